//! The special-value tables of `cmath` (`Modules/cmathmodule.c`): what each function returns
//! for an argument with an infinite or NaN part, as C99's Annex G recommends. Indexed by
//! [`kind`] of the real part, then of the imaginary part (`rect`: of `r`, then of `phi`).
//! Generated from CPython 3.13's own results (tests/gen_cmath_special.py); `U` marks a
//! cell never read: both parts finite, a result the function computes itself (an
//! infinity with a finite nonzero second part, for `exp`, `cosh`, `sinh`, `tanh` and
//! `rect`), or an argument it refuses.

use std::f64::consts::{FRAC_PI_2, FRAC_PI_4, PI};

/// A table: `[real kind][imaginary kind]`, the result's real and imaginary parts.
pub type Table = [[(f64, f64); 7]; 7];

/// `special_type`: the row or column of `x`: -inf, negative, -0.0, +0.0, positive, +inf, NaN.
pub fn kind(x: f64) -> usize {
    match x {
        x if x.is_nan() => 6,
        x if x == f64::NEG_INFINITY => 0,
        x if x == f64::INFINITY => 5,
        x if x == 0.0 => 2 + usize::from(x.is_sign_positive()),
        x if x < 0.0 => 1,
        _ => 4,
    }
}

const P: f64 = PI;
const P12: f64 = FRAC_PI_2;
const P14: f64 = FRAC_PI_4;
const P34: f64 = 0.75 * PI;
const INF: f64 = f64::INFINITY;
const N: f64 = f64::NAN;
/// A cell never read.
const U: f64 = f64::NAN;

/// `acos`.
pub const ACOS: Table = [
    [
        (P34, INF),
        (P, INF),
        (P, INF),
        (P, -INF),
        (P, -INF),
        (P34, -INF),
        (N, INF),
    ],
    [
        (P12, INF),
        (U, U),
        (U, U),
        (U, U),
        (U, U),
        (P12, -INF),
        (N, N),
    ],
    [
        (P12, INF),
        (U, U),
        (U, U),
        (U, U),
        (U, U),
        (P12, -INF),
        (P12, N),
    ],
    [
        (P12, INF),
        (U, U),
        (U, U),
        (U, U),
        (U, U),
        (P12, -INF),
        (P12, N),
    ],
    [
        (P12, INF),
        (U, U),
        (U, U),
        (U, U),
        (U, U),
        (P12, -INF),
        (N, N),
    ],
    [
        (P14, INF),
        (0.0, INF),
        (0.0, INF),
        (0.0, -INF),
        (0.0, -INF),
        (P14, -INF),
        (N, INF),
    ],
    [(N, INF), (N, N), (N, N), (N, N), (N, N), (N, -INF), (N, N)],
];

/// `acosh`.
pub const ACOSH: Table = [
    [
        (INF, -P34),
        (INF, -P),
        (INF, -P),
        (INF, P),
        (INF, P),
        (INF, P34),
        (INF, N),
    ],
    [
        (INF, -P12),
        (U, U),
        (U, U),
        (U, U),
        (U, U),
        (INF, P12),
        (N, N),
    ],
    [
        (INF, -P12),
        (U, U),
        (U, U),
        (U, U),
        (U, U),
        (INF, P12),
        (N, N),
    ],
    [
        (INF, -P12),
        (U, U),
        (U, U),
        (U, U),
        (U, U),
        (INF, P12),
        (N, N),
    ],
    [
        (INF, -P12),
        (U, U),
        (U, U),
        (U, U),
        (U, U),
        (INF, P12),
        (N, N),
    ],
    [
        (INF, -P14),
        (INF, -0.0),
        (INF, -0.0),
        (INF, 0.0),
        (INF, 0.0),
        (INF, P14),
        (INF, N),
    ],
    [(INF, N), (N, N), (N, N), (N, N), (N, N), (INF, N), (N, N)],
];

/// `asinh`.
pub const ASINH: Table = [
    [
        (-INF, -P14),
        (-INF, -0.0),
        (-INF, -0.0),
        (-INF, 0.0),
        (-INF, 0.0),
        (-INF, P14),
        (-INF, N),
    ],
    [
        (-INF, -P12),
        (U, U),
        (U, U),
        (U, U),
        (U, U),
        (-INF, P12),
        (N, N),
    ],
    [
        (-INF, -P12),
        (U, U),
        (U, U),
        (U, U),
        (U, U),
        (-INF, P12),
        (N, N),
    ],
    [
        (INF, -P12),
        (U, U),
        (U, U),
        (U, U),
        (U, U),
        (INF, P12),
        (N, N),
    ],
    [
        (INF, -P12),
        (U, U),
        (U, U),
        (U, U),
        (U, U),
        (INF, P12),
        (N, N),
    ],
    [
        (INF, -P14),
        (INF, -0.0),
        (INF, -0.0),
        (INF, 0.0),
        (INF, 0.0),
        (INF, P14),
        (INF, N),
    ],
    [
        (INF, N),
        (N, N),
        (N, -0.0),
        (N, 0.0),
        (N, N),
        (INF, N),
        (N, N),
    ],
];

/// `atanh`.
pub const ATANH: Table = [
    [
        (-0.0, -P12),
        (-0.0, -P12),
        (-0.0, -P12),
        (-0.0, P12),
        (-0.0, P12),
        (-0.0, P12),
        (-0.0, N),
    ],
    [
        (-0.0, -P12),
        (U, U),
        (U, U),
        (U, U),
        (U, U),
        (-0.0, P12),
        (N, N),
    ],
    [
        (-0.0, -P12),
        (U, U),
        (U, U),
        (U, U),
        (U, U),
        (-0.0, P12),
        (-0.0, N),
    ],
    [
        (0.0, -P12),
        (U, U),
        (U, U),
        (U, U),
        (U, U),
        (0.0, P12),
        (0.0, N),
    ],
    [
        (0.0, -P12),
        (U, U),
        (U, U),
        (U, U),
        (U, U),
        (0.0, P12),
        (N, N),
    ],
    [
        (0.0, -P12),
        (0.0, -P12),
        (0.0, -P12),
        (0.0, P12),
        (0.0, P12),
        (0.0, P12),
        (0.0, N),
    ],
    [
        (0.0, -P12),
        (N, N),
        (N, N),
        (N, N),
        (N, N),
        (0.0, P12),
        (N, N),
    ],
];

/// `cosh`.
pub const COSH: Table = [
    [
        (U, U),
        (U, U),
        (INF, 0.0),
        (INF, -0.0),
        (U, U),
        (U, U),
        (INF, N),
    ],
    [(U, U), (U, U), (U, U), (U, U), (U, U), (U, U), (N, N)],
    [(U, U), (U, U), (U, U), (U, U), (U, U), (U, U), (N, 0.0)],
    [(U, U), (U, U), (U, U), (U, U), (U, U), (U, U), (N, 0.0)],
    [(U, U), (U, U), (U, U), (U, U), (U, U), (U, U), (N, N)],
    [
        (U, U),
        (U, U),
        (INF, -0.0),
        (INF, 0.0),
        (U, U),
        (U, U),
        (INF, N),
    ],
    [(N, N), (N, N), (N, 0.0), (N, 0.0), (N, N), (N, N), (N, N)],
];

/// `exp`.
pub const EXP: Table = [
    [
        (0.0, 0.0),
        (U, U),
        (0.0, -0.0),
        (0.0, 0.0),
        (U, U),
        (0.0, 0.0),
        (0.0, 0.0),
    ],
    [(U, U), (U, U), (U, U), (U, U), (U, U), (U, U), (N, N)],
    [(U, U), (U, U), (U, U), (U, U), (U, U), (U, U), (N, N)],
    [(U, U), (U, U), (U, U), (U, U), (U, U), (U, U), (N, N)],
    [(U, U), (U, U), (U, U), (U, U), (U, U), (U, U), (N, N)],
    [
        (U, U),
        (U, U),
        (INF, -0.0),
        (INF, 0.0),
        (U, U),
        (U, U),
        (INF, N),
    ],
    [(N, N), (N, N), (N, -0.0), (N, 0.0), (N, N), (N, N), (N, N)],
];

/// `log`.
pub const LOG: Table = [
    [
        (INF, -P34),
        (INF, -P),
        (INF, -P),
        (INF, P),
        (INF, P),
        (INF, P34),
        (INF, N),
    ],
    [
        (INF, -P12),
        (U, U),
        (U, U),
        (U, U),
        (U, U),
        (INF, P12),
        (N, N),
    ],
    [
        (INF, -P12),
        (U, U),
        (U, U),
        (U, U),
        (U, U),
        (INF, P12),
        (N, N),
    ],
    [
        (INF, -P12),
        (U, U),
        (U, U),
        (U, U),
        (U, U),
        (INF, P12),
        (N, N),
    ],
    [
        (INF, -P12),
        (U, U),
        (U, U),
        (U, U),
        (U, U),
        (INF, P12),
        (N, N),
    ],
    [
        (INF, -P14),
        (INF, -0.0),
        (INF, -0.0),
        (INF, 0.0),
        (INF, 0.0),
        (INF, P14),
        (INF, N),
    ],
    [(INF, N), (N, N), (N, N), (N, N), (N, N), (INF, N), (N, N)],
];

/// `sinh`.
pub const SINH: Table = [
    [
        (U, U),
        (U, U),
        (-INF, -0.0),
        (-INF, 0.0),
        (U, U),
        (U, U),
        (INF, N),
    ],
    [(U, U), (U, U), (U, U), (U, U), (U, U), (U, U), (N, N)],
    [(U, U), (U, U), (U, U), (U, U), (U, U), (U, U), (0.0, N)],
    [(U, U), (U, U), (U, U), (U, U), (U, U), (U, U), (0.0, N)],
    [(U, U), (U, U), (U, U), (U, U), (U, U), (U, U), (N, N)],
    [
        (U, U),
        (U, U),
        (INF, -0.0),
        (INF, 0.0),
        (U, U),
        (U, U),
        (INF, N),
    ],
    [(N, N), (N, N), (N, -0.0), (N, 0.0), (N, N), (N, N), (N, N)],
];

/// `sqrt`.
pub const SQRT: Table = [
    [
        (INF, -INF),
        (0.0, -INF),
        (0.0, -INF),
        (0.0, INF),
        (0.0, INF),
        (INF, INF),
        (N, INF),
    ],
    [
        (INF, -INF),
        (U, U),
        (U, U),
        (U, U),
        (U, U),
        (INF, INF),
        (N, N),
    ],
    [
        (INF, -INF),
        (U, U),
        (U, U),
        (U, U),
        (U, U),
        (INF, INF),
        (N, N),
    ],
    [
        (INF, -INF),
        (U, U),
        (U, U),
        (U, U),
        (U, U),
        (INF, INF),
        (N, N),
    ],
    [
        (INF, -INF),
        (U, U),
        (U, U),
        (U, U),
        (U, U),
        (INF, INF),
        (N, N),
    ],
    [
        (INF, -INF),
        (INF, -0.0),
        (INF, -0.0),
        (INF, 0.0),
        (INF, 0.0),
        (INF, INF),
        (INF, N),
    ],
    [
        (INF, -INF),
        (N, N),
        (N, N),
        (N, N),
        (N, N),
        (INF, INF),
        (N, N),
    ],
];

/// `tanh`.
pub const TANH: Table = [
    [
        (-1.0, 0.0),
        (U, U),
        (-1.0, -0.0),
        (-1.0, 0.0),
        (U, U),
        (-1.0, 0.0),
        (-1.0, 0.0),
    ],
    [(U, U), (U, U), (U, U), (U, U), (U, U), (U, U), (N, N)],
    [(U, U), (U, U), (U, U), (U, U), (U, U), (U, U), (N, N)],
    [(U, U), (U, U), (U, U), (U, U), (U, U), (U, U), (N, N)],
    [(U, U), (U, U), (U, U), (U, U), (U, U), (U, U), (N, N)],
    [
        (1.0, 0.0),
        (U, U),
        (1.0, -0.0),
        (1.0, 0.0),
        (U, U),
        (1.0, 0.0),
        (1.0, 0.0),
    ],
    [(N, N), (N, N), (N, -0.0), (N, 0.0), (N, N), (N, N), (N, N)],
];

/// `rect`.
pub const RECT: Table = [
    [
        (U, U),
        (U, U),
        (-INF, 0.0),
        (-INF, -0.0),
        (U, U),
        (U, U),
        (INF, N),
    ],
    [(U, U), (U, U), (U, U), (U, U), (U, U), (U, U), (N, N)],
    [
        (0.0, 0.0),
        (U, U),
        (U, U),
        (U, U),
        (U, U),
        (0.0, 0.0),
        (0.0, 0.0),
    ],
    [
        (0.0, 0.0),
        (U, U),
        (U, U),
        (U, U),
        (U, U),
        (0.0, 0.0),
        (0.0, 0.0),
    ],
    [(U, U), (U, U), (U, U), (U, U), (U, U), (U, U), (N, N)],
    [
        (U, U),
        (U, U),
        (INF, -0.0),
        (INF, 0.0),
        (U, U),
        (U, U),
        (INF, N),
    ],
    [(N, N), (N, N), (N, 0.0), (N, 0.0), (N, N), (N, N), (N, N)],
];
