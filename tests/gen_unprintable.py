#!/usr/bin/env python3
"""Writes src/common/unprintable.rs: the runs of non-ASCII code points that CPython 3.13's
`str.isprintable` says are not printable (what `repr` escapes), the oracle asked about
each one:

    PYENV_VERSION=3.13.0 python3.13 tests/gen_unprintable.py
"""
import os
import sys

if sys.version_info[:2] != (3, 13):
    sys.exit("run with CPython 3.13: PYENV_VERSION=3.13.0 python3.13 tests/gen_unprintable.py")

runs, start = [], None
for cp in range(0x80, 0x110001):
    printable = cp < 0x110000 and chr(cp).isprintable()
    if not printable and cp < 0x110000:
        if start is None:
            start = cp
    elif start is not None:
        runs.append((start, cp - 1))
        start = None

lines = [
    "//! The code points outside ASCII that Python does not count as printable (`str.isprintable`,",
    "//! what `repr` escapes): controls, format characters, separators other than the space,",
    "//! surrogates, private use and every unassigned one (Unicode 15.1.0, CPython 3.13's data).",
    "//! Written by `tests/gen_unprintable.py`, which asks CPython about each code point.",
    "",
    f"/// The inclusive runs of unprintable code points from U+0080 on, in order ({len(runs)}).",
    "pub const UNPRINTABLE: &[(u32, u32)] = &[",
]
lines += [f"    (0x{a:04X}, 0x{b:04X})," for a, b in runs]
lines += ["];", ""]
path = os.path.join(os.path.dirname(__file__), "..", "src", "common", "unprintable.rs")
with open(path, "w") as f:
    f.write("\n".join(lines))
print(f"wrote {len(runs)} runs")
