#!/usr/bin/env python3
"""Writes src/common/unicode_data.bin, the Unicode Character Database as CPython 3.13's
`unicodedata` has it (Unicode 15.1.0), for src/common/unicode_data.rs: CPython is the oracle,
asked about every code point. Name aliases and named sequences, which CPython's `lookup`
accepts but cannot list, are the candidates in Perl's copy of the database
(unicore/Name.pl) that CPython's `lookup` confirms.

    PYENV_VERSION=3.13.0 python3.13 tests/gen_unicode_data.py

The format (all integers little-endian; a "text" is a u8 or u16 length then UTF-8):
  magic b"UCD1", version text (u8)
  nine property tables, in the order category, bidirectional, east_asian_width, combining,
  mirrored, and str's uppercase, lowercase, identifier-start and identifier-continue
  flags (`c.isupper()`, `c.islower()`, `c.isidentifier()`, `('a' + c).isidentifier()`):
  u8 count of value texts (u8 each; a number's decimal text for combining, "0"/"1" for
  mirrored, "False"/"True" for the flags), u32 count of runs, each run a u24 first code
  point and a u8 value index; a run lasts until the next one starts
  decompositions: u32 count, each a u24 code point and a u8 text (CPython's string)
  numeric values: u32 count, each a u24 code point, i8 decimal and i8 digit (-1: none),
  and a u8 text (repr of the float)
  compositions: u32 count, each three u24s: first, second, the primary composite
  name words: u16 count, each a u8 text
  names: u32 count, each a u24 code point, a u8 count of words and that many u16 word
  indices (joined by spaces)
  derived names: u16 count, each a u24 first and u24 last code point and a u8 prefix text
  (the name is the prefix and the code point in hex)
  aliases and named sequences: u16 count, each a u8 count of code points, that many u24s,
  and a u8 text
"""
import os
import struct
import sys
import unicodedata as ucd

if sys.version_info[:2] != (3, 13):
    sys.exit("run with CPython 3.13: PYENV_VERSION=3.13.0 python3.13 tests/gen_unicode_data.py")

MAX = 0x110000
out = bytearray(b"UCD1")


def u8(n):
    out.extend(struct.pack("<B", n))


def u16(n):
    out.extend(struct.pack("<H", n))


def u24(n):
    out.extend(struct.pack("<I", n)[:3])


def u32(n):
    out.extend(struct.pack("<I", n))


def text8(s):
    b = s.encode()
    u8(len(b))
    out.extend(b)


text8(ucd.unidata_version)

PROPERTIES = [ucd.category, ucd.bidirectional, ucd.east_asian_width, ucd.combining, ucd.mirrored,
              str.isupper, str.islower, str.isidentifier, lambda c: ("a" + c).isidentifier()]
for prop in PROPERTIES:
    values, runs, last = [], [], object()
    for cp in range(MAX):
        v = str(prop(chr(cp)))
        if v != last:
            if v not in values:
                values.append(v)
            runs.append((cp, values.index(v)))
            last = v
    u8(len(values))
    for v in values:
        text8(v)
    u32(len(runs))
    for cp, index in runs:
        u24(cp)
        u8(index)

decompositions = [(cp, ucd.decomposition(chr(cp))) for cp in range(MAX)]
decompositions = [(cp, d) for cp, d in decompositions if d]
u32(len(decompositions))
for cp, d in decompositions:
    u24(cp)
    text8(d)

numerics = [cp for cp in range(MAX) if ucd.numeric(chr(cp), None) is not None]
u32(len(numerics))
for cp in numerics:
    ch = chr(cp)
    u24(cp)
    out.extend(struct.pack("<bb", ucd.decimal(ch, -1), ucd.digit(ch, -1)))
    text8(repr(ucd.numeric(ch)))

# A primary composite: a canonical decomposition into two, which NFC keeps.
compositions = []
for cp, d in decompositions:
    parts = d.split()
    if len(parts) == 2 and not parts[0].startswith("<"):
        if ucd.normalize("NFC", chr(cp)) == chr(cp):
            compositions.append((int(parts[0], 16), int(parts[1], 16), cp))
u32(len(compositions))
for first, second, cp in compositions:
    u24(first)
    u24(second)
    u24(cp)

# Names: those made of a prefix and the code point in hex are derived, in runs.
names, derived = {}, []
for cp in range(MAX):
    name = ucd.name(chr(cp), None)
    if name is None:
        continue
    prefix, dash, tail = name.rpartition("-")
    if dash and tail == f"{cp:04X}":
        prefix += "-"
        if derived and derived[-1][2] == prefix and derived[-1][1] == cp - 1:
            derived[-1][1] = cp
        else:
            derived.append([cp, cp, prefix])
    else:
        names[cp] = name
words = sorted({w for name in names.values() for w in name.split(" ")})
index = {w: i for i, w in enumerate(words)}
u16(len(words))
for w in words:
    text8(w)
u32(len(names))
for cp, name in names.items():
    u24(cp)
    parts = name.split(" ")
    u8(len(parts))
    for w in parts:
        u16(index[w])
u16(len(derived))
for first, last, prefix in derived:
    u24(first)
    u24(last)
    text8(prefix)

# Aliases and named sequences: Perl's candidates that CPython's lookup agrees with.
perl = "/usr/share/perl/5.36.0/unicore/Name.pl"
extras = []
with open(perl, encoding="utf-8") as f:
    body = f.read().split("return <<'END';\n", 1)[1].split("\nEND\n", 1)[0]
for entry in body.split("\n\n"):
    lines = entry.strip("\n").split("\n")
    if len(lines) != 2:
        continue
    cps = [int(h, 16) for h in lines[0].split()]
    name = lines[1]
    text = "".join(map(chr, cps))
    if len(cps) == 1 and ucd.name(text, None) == name:
        continue
    try:
        if ucd.lookup(name) != text:
            continue
    except KeyError:
        continue
    extras.append((cps, name))
u16(len(extras))
for cps, name in extras:
    u8(len(cps))
    for cp in cps:
        u24(cp)
    text8(name)

path = os.path.join(os.path.dirname(__file__), "..", "src", "common", "unicode_data.bin")
with open(path, "wb") as f:
    f.write(out)
print(f"wrote {len(out)} bytes: {len(names)} names, {len(derived)} derived runs, "
      f"{len(extras)} aliases and sequences, {len(decompositions)} decompositions, "
      f"{len(compositions)} compositions, {len(numerics)} numerics")
