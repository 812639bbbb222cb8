#!/usr/bin/env python3
"""Prints the special-value tables of src/builtins/cmath_special.rs (everything after its
constants) from what CPython 3.13's cmath returns for each kind of argument, the oracle:

    PYENV_VERSION=3.13.0 python3.13 tests/gen_cmath_special.py
"""
import cmath, math
inf, nan = math.inf, math.nan
KINDS = [-inf, -2.3, -0.0, 0.0, 2.3, inf, nan]
P = math.pi
NAMES = {P: "P", P/2: "P12", P/4: "P14", 0.75*P: "P34", inf: "INF", 1.0: "1.0", 0.0: "0.0"}

def name(x, unused):
    if unused: return "U"
    if math.isnan(x): return "N"
    a = abs(x)
    sign = "-" if math.copysign(1, x) < 0 else ""
    return sign + NAMES[a]

def rect(z): return cmath.rect(z.real, z.imag)
FUNCS = ["acos", "acosh", "asinh", "atanh", "cosh", "exp", "log", "sinh", "sqrt", "tanh", "rect"]
# Cells the functions compute in code: an infinite first part with a finite nonzero second.
CODED = {"cosh", "exp", "sinh", "tanh", "rect"}
for fname in FUNCS:
    f = rect if fname == "rect" else getattr(cmath, fname)
    print(f"/// `{fname}`.")
    print(f"pub const {fname.upper()}: Table = [")
    for i, re in enumerate(KINDS):
        cells = []
        for j, im in enumerate(KINDS):
            special = not (math.isfinite(re) and math.isfinite(im))
            coded = fname in CODED and math.isinf(re) and j in (1, 4)
            try:
                w = f(complex(re, im))
                raised = False
            except (ValueError, OverflowError):
                w, raised = complex(0, 0), True
            unused = not special or coded or raised
            cells.append(f"({name(w.real, unused)}, {name(w.imag, unused)})")
        print("    [" + ", ".join(cells) + "],")
    print("];")
    print()
