//! The `cmath` module (`Modules/cmathmodule.c`): the complex functions with CPython's
//! algorithms (written to avoid spurious overflow and to keep accuracy near the branch
//! cuts and for subnormal parts), its special values for infinite and NaN parts
//! (`cmath_special.rs`) and its errors: a domain error is a ValueError "math domain
//! error", an overflow an OverflowError "math range error". libm is the platform's, as
//! CPython's is, so results agree bit for bit. Each argument is read as
//! `PyComplex_AsCComplex` reads it (`complex_type.rs`).

use std::f64::consts::{E, FRAC_PI_2, LN_2, LN_10, PI};

use crate::common::complex_ops::Complex;
use crate::vm::args::Signature;
use crate::vm::object::{KwArgs, NativeFn};
use crate::vm::value::Value;
use crate::vm::{PyResult, Vm};

use super::cmath_special::{self as special, Table, kind};
use super::complex_type::as_complex;
use super::math::{Errno, asinh, ldexp};
use super::module_args::{as_double, bind_kwonly};

/// `CM_LARGE_DOUBLE`: past it, the formulas that would overflow are rewritten.
const LARGE: f64 = f64::MAX / 4.0;
/// `CM_SCALE_UP` and `CM_SCALE_DOWN`: the scaling that makes subnormal parts normal.
const SCALE_UP: i64 = 53;
const SCALE_DOWN: i64 = -27;

/// A function's result and what it reports beside it (`errno`).
type Outcome = (Complex, Errno);

fn ok(z: Complex) -> Outcome {
    (z, Errno::Ok)
}

/// `SPECIAL_VALUE`: the table's answer for an argument with an infinite or NaN part.
fn special_value(z: Complex, table: &Table) -> Option<Complex> {
    (!z.re.is_finite() || !z.im.is_finite()).then(|| {
        let (re, im) = table[kind(z.re)][kind(z.im)];
        Complex::new(re, im)
    })
}

/// `m_log1p`: `log1p`, keeping the sign of a zero.
fn log1p(x: f64) -> f64 {
    if x == 0.0 { x } else { x.ln_1p() }
}

/// `log(hypot(x/2, y/2)) + log(2) * scale`: the log of a magnitude too large to compute.
fn log_of_large(x: f64, y: f64, scale: f64) -> f64 {
    (x / 2.0).hypot(y / 2.0).ln() + LN_2 * scale
}

/// The function `f` of `i*z`, turned back: `-i f(i z)`, how `asin`, `atan`, `sin` and `tan`
/// are the hyperbolic functions.
fn rotated(z: Complex, f: fn(Complex) -> Outcome) -> Outcome {
    let (s, errno) = f(Complex::new(-z.im, z.re));
    (Complex::new(s.im, -s.re), errno)
}

fn c_sqrt(z: Complex) -> Outcome {
    if let Some(r) = special_value(z, &special::SQRT) {
        return ok(r);
    }
    if z.re == 0.0 && z.im == 0.0 {
        return ok(Complex::new(0.0, z.im));
    }
    // With x, y >= 0: s = sqrt((x + hypot(x, y))/2), written so that neither overflows,
    // and scaled up first when both are subnormal.
    let (ax, ay) = (z.re.abs(), z.im.abs());
    let s = if ax < f64::MIN_POSITIVE && ay < f64::MIN_POSITIVE {
        let ax = ldexp(ax, SCALE_UP);
        ldexp((ax + ax.hypot(ldexp(ay, SCALE_UP))).sqrt(), SCALE_DOWN)
    } else {
        let ax = ax / 8.0;
        2.0 * (ax + ax.hypot(ay / 8.0)).sqrt()
    };
    let d = ay / (2.0 * s);
    ok(if z.re >= 0.0 {
        Complex::new(s, d.copysign(z.im))
    } else {
        Complex::new(d, s.copysign(z.im))
    })
}

/// `c_sqrt` for the inverse functions, which use its value only.
fn sqrt(z: Complex) -> Complex {
    c_sqrt(z).0
}

fn c_acos(z: Complex) -> Outcome {
    if let Some(r) = special_value(z, &special::ACOS) {
        return ok(r);
    }
    ok(if z.re.abs() > LARGE || z.im.abs() > LARGE {
        let big = log_of_large(z.re, z.im, 2.0);
        let im = if z.re < 0.0 {
            -big.copysign(z.im)
        } else {
            big.copysign(-z.im)
        };
        Complex::new(z.im.abs().atan2(z.re), im)
    } else {
        let s1 = sqrt(Complex::new(1.0 - z.re, -z.im));
        let s2 = sqrt(Complex::new(1.0 + z.re, z.im));
        Complex::new(
            2.0 * s1.re.atan2(s2.re),
            asinh(s2.re * s1.im - s2.im * s1.re),
        )
    })
}

fn c_acosh(z: Complex) -> Outcome {
    if let Some(r) = special_value(z, &special::ACOSH) {
        return ok(r);
    }
    ok(if z.re.abs() > LARGE || z.im.abs() > LARGE {
        Complex::new(log_of_large(z.re, z.im, 2.0), z.im.atan2(z.re))
    } else {
        let s1 = sqrt(Complex::new(z.re - 1.0, z.im));
        let s2 = sqrt(Complex::new(z.re + 1.0, z.im));
        Complex::new(
            asinh(s1.re * s2.re + s1.im * s2.im),
            2.0 * s1.im.atan2(s2.re),
        )
    })
}

fn c_asinh(z: Complex) -> Outcome {
    if let Some(r) = special_value(z, &special::ASINH) {
        return ok(r);
    }
    ok(if z.re.abs() > LARGE || z.im.abs() > LARGE {
        let big = log_of_large(z.re, z.im, 2.0);
        let re = if z.im >= 0.0 {
            big.copysign(z.re)
        } else {
            -big.copysign(-z.re)
        };
        Complex::new(re, z.im.atan2(z.re.abs()))
    } else {
        let s1 = sqrt(Complex::new(1.0 + z.im, -z.re));
        let s2 = sqrt(Complex::new(1.0 - z.im, z.re));
        Complex::new(
            asinh(s1.re * s2.im - s2.re * s1.im),
            z.im.atan2(s1.re * s2.re - s1.im * s2.im),
        )
    })
}

fn c_asin(z: Complex) -> Outcome {
    rotated(z, c_asinh)
}

fn c_atanh(z: Complex) -> Outcome {
    if let Some(r) = special_value(z, &special::ATANH) {
        return ok(r);
    }
    // atanh(z) = -atanh(-z): work with a nonnegative real part.
    if z.re < 0.0 {
        let (r, errno) = c_atanh(-z);
        return (-r, errno);
    }
    let ay = z.im.abs();
    let sqrt_large = LARGE.sqrt();
    if z.re > sqrt_large || ay > sqrt_large {
        // atanh(z) is about 1/z ± i pi/2 for a large z.
        let h = (z.re / 2.0).hypot(z.im / 2.0);
        return ok(Complex::new(z.re / 4.0 / h / h, -FRAC_PI_2.copysign(-z.im)));
    }
    if z.re == 1.0 && ay < f64::MIN_POSITIVE.sqrt() {
        if ay == 0.0 {
            return (Complex::new(f64::INFINITY, z.im), Errno::Domain);
        }
        return ok(Complex::new(
            -(ay.sqrt() / ay.hypot(2.0).sqrt()).ln(),
            (2.0f64.atan2(-ay) / 2.0).copysign(z.im),
        ));
    }
    let (x, y) = (z.re, z.im);
    ok(Complex::new(
        log1p(4.0 * x / ((1.0 - x) * (1.0 - x) + ay * ay)) / 4.0,
        -(-2.0 * y).atan2((1.0 - x) * (1.0 + x) - ay * ay) / 2.0,
    ))
}

fn c_atan(z: Complex) -> Outcome {
    rotated(z, c_atanh)
}

/// An infinity with the sign of `x`.
fn inf_as(x: f64) -> f64 {
    f64::INFINITY.copysign(x)
}

/// An overflow is reported when the result has an infinite part.
fn range_checked(r: Complex) -> Outcome {
    let overflow = r.re.is_infinite() || r.im.is_infinite();
    (r, if overflow { Errno::Range } else { Errno::Ok })
}

fn c_cosh(z: Complex) -> Outcome {
    if !z.re.is_finite() || !z.im.is_finite() {
        let r = if z.re.is_infinite() && z.im.is_finite() && z.im != 0.0 {
            let (cos, sin) = (z.im.cos(), z.im.sin());
            let sin = if z.re > 0.0 { sin } else { -sin };
            Complex::new(inf_as(cos), inf_as(sin))
        } else {
            let (re, im) = special::COSH[kind(z.re)][kind(z.im)];
            Complex::new(re, im)
        };
        let domain = z.im.is_infinite() && !z.re.is_nan();
        return (r, if domain { Errno::Domain } else { Errno::Ok });
    }
    range_checked(if z.re.abs() > LARGE.ln() {
        // cosh(x) overflows where cosh(z) may not: e * cosh(x - 1).
        let x = z.re - 1.0f64.copysign(z.re);
        Complex::new(z.im.cos() * x.cosh() * E, z.im.sin() * x.sinh() * E)
    } else {
        Complex::new(z.im.cos() * z.re.cosh(), z.im.sin() * z.re.sinh())
    })
}

fn c_cos(z: Complex) -> Outcome {
    // cos(z) = cosh(iz).
    c_cosh(Complex::new(-z.im, z.re))
}

fn c_sinh(z: Complex) -> Outcome {
    if !z.re.is_finite() || !z.im.is_finite() {
        let r = if z.re.is_infinite() && z.im.is_finite() && z.im != 0.0 {
            let (cos, sin) = (z.im.cos(), z.im.sin());
            let cos = if z.re > 0.0 { cos } else { -cos };
            Complex::new(inf_as(cos), inf_as(sin))
        } else {
            let (re, im) = special::SINH[kind(z.re)][kind(z.im)];
            Complex::new(re, im)
        };
        let domain = z.im.is_infinite() && !z.re.is_nan();
        return (r, if domain { Errno::Domain } else { Errno::Ok });
    }
    range_checked(if z.re.abs() > LARGE.ln() {
        let x = z.re - 1.0f64.copysign(z.re);
        Complex::new(z.im.cos() * x.sinh() * E, z.im.sin() * x.cosh() * E)
    } else {
        Complex::new(z.im.cos() * z.re.sinh(), z.im.sin() * z.re.cosh())
    })
}

fn c_sin(z: Complex) -> Outcome {
    rotated(z, c_sinh)
}

fn c_tanh(z: Complex) -> Outcome {
    if !z.re.is_finite() || !z.im.is_finite() {
        let r = if z.re.is_infinite() && z.im.is_finite() && z.im != 0.0 {
            let im = 0.0f64.copysign(2.0 * z.im.sin() * z.im.cos());
            Complex::new(1.0f64.copysign(z.re), im)
        } else {
            let (re, im) = special::TANH[kind(z.re)][kind(z.im)];
            Complex::new(re, im)
        };
        let domain = z.im.is_infinite() && z.re.is_finite();
        return (r, if domain { Errno::Domain } else { Errno::Ok });
    }
    if z.re.abs() > LARGE.ln() {
        // 1 - tanh(x)^2 is about 4 exp(-2|x|): cosh(x) would overflow.
        let im = 4.0 * z.im.sin() * z.im.cos() * (-2.0 * z.re.abs()).exp();
        return ok(Complex::new(1.0f64.copysign(z.re), im));
    }
    let (tx, ty) = (z.re.tanh(), z.im.tan());
    let cx = 1.0 / z.re.cosh();
    let txty = tx * ty;
    let denom = 1.0 + txty * txty;
    ok(Complex::new(
        tx * (1.0 + ty * ty) / denom,
        ((ty / denom) * cx) * cx,
    ))
}

fn c_tan(z: Complex) -> Outcome {
    rotated(z, c_tanh)
}

fn c_exp(z: Complex) -> Outcome {
    if !z.re.is_finite() || !z.im.is_finite() {
        let r = if z.re.is_infinite() && z.im.is_finite() && z.im != 0.0 {
            let (cos, sin) = (z.im.cos(), z.im.sin());
            if z.re > 0.0 {
                Complex::new(inf_as(cos), inf_as(sin))
            } else {
                Complex::new(0.0f64.copysign(cos), 0.0f64.copysign(sin))
            }
        } else {
            let (re, im) = special::EXP[kind(z.re)][kind(z.im)];
            Complex::new(re, im)
        };
        let domain = z.im.is_infinite() && (z.re.is_finite() || z.re == f64::INFINITY);
        return (r, if domain { Errno::Domain } else { Errno::Ok });
    }
    range_checked(if z.re > LARGE.ln() {
        let l = (z.re - 1.0).exp();
        Complex::new(l * z.im.cos() * E, l * z.im.sin() * E)
    } else {
        let l = z.re.exp();
        Complex::new(l * z.im.cos(), l * z.im.sin())
    })
}

/// `c_log`: log(|z|) written to keep its accuracy for a subnormal, a huge and a near-1
/// magnitude; log(0) is a domain error.
fn c_log(z: Complex) -> Outcome {
    if let Some(r) = special_value(z, &special::LOG) {
        return ok(r);
    }
    let (ax, ay) = (z.re.abs(), z.im.abs());
    let re = if ax > LARGE || ay > LARGE {
        log_of_large(ax, ay, 1.0)
    } else if ax < f64::MIN_POSITIVE && ay < f64::MIN_POSITIVE {
        if ax == 0.0 && ay == 0.0 {
            return (
                Complex::new(f64::NEG_INFINITY, z.im.atan2(z.re)),
                Errno::Domain,
            );
        }
        let scaled = ldexp(ax, SCALE_UP).hypot(ldexp(ay, SCALE_UP));
        scaled.ln() - SCALE_UP as f64 * LN_2
    } else {
        let h = ax.hypot(ay);
        if (0.71..=1.73).contains(&h) {
            let (am, an) = if ax > ay { (ax, ay) } else { (ay, ax) };
            log1p((am - 1.0) * (am + 1.0) + an * an) / 2.0
        } else {
            h.ln()
        }
    };
    ok(Complex::new(re, z.im.atan2(z.re)))
}

fn c_log10(z: Complex) -> Outcome {
    let (r, errno) = c_log(z);
    (Complex::new(r.re / LN_10, r.im / LN_10), errno)
}

/// `c_atan2`: the phase, with C99's values for infinities and zeros on every platform.
fn c_atan2(z: Complex) -> f64 {
    if z.re.is_nan() || z.im.is_nan() {
        return f64::NAN;
    }
    if z.im.is_infinite() {
        let angle = match z.re {
            re if re == f64::INFINITY => PI / 4.0,
            re if re == f64::NEG_INFINITY => 0.75 * PI,
            _ => FRAC_PI_2,
        };
        return angle.copysign(z.im);
    }
    if z.re.is_infinite() || z.im == 0.0 {
        let angle = if z.re.is_sign_positive() { 0.0 } else { PI };
        return angle.copysign(z.im);
    }
    z.im.atan2(z.re)
}

/// The result as a complex, or CPython's `math_error` for what the function reported.
fn checked(vm: &Vm, (z, errno): Outcome) -> PyResult<Value> {
    match errno {
        Errno::Domain => Err(vm.value_error("math domain error")),
        Errno::Range => Err(vm.overflow_error("math range error")),
        Errno::Ok => Ok(vm.new_complex(z)),
    }
}

/// The one complex argument of `cmath.name(z)`.
fn one_complex(vm: &mut Vm, args: &[Value], kw: &KwArgs, name: &'static str) -> PyResult<Complex> {
    Signature::one("cmath", name).check(vm, args, kw)?;
    as_complex(vm, &args[0])
}

/// A [`NativeFn`] for each function of one complex returning a complex (CPython's
/// `math_1` of cmath), by name.
macro_rules! complex_functions {
    ($($name:literal => $f:ident),* $(,)?) => {
        [$(($name, {
            fn native(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
                let z = one_complex(vm, args, kw, $name)?;
                checked(vm, $f(z))
            }
            native as NativeFn
        })),*]
    };
}

/// `log(z[, base])`: a base divides by its own log; log(1) as a base divides by zero, a
/// domain error.
fn cmath_log(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    Signature::positional("cmath", "log", &["z", "base"], 1).check(vm, args, kw)?;
    let x = as_complex(vm, &args[0])?;
    let (mut r, mut errno) = c_log(x);
    if let Some(base) = args.get(1) {
        let y = as_complex(vm, base)?;
        // (The base's log reports last, as CPython's errno keeps only the last report.)
        let (log_base, base_errno) = c_log(y);
        (r, errno) = match r.quot(log_base) {
            Some(q) => (q, base_errno),
            None => (r, Errno::Domain),
        };
    }
    checked(vm, (r, errno))
}

/// `phase(z)`. glibc's `atan2` reports an angle that underflows to zero (`errno = ERANGE`),
/// which CPython's `phase` raises, as `polar` does not (its `abs` resets `errno`).
fn cmath_phase(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let z = one_complex(vm, args, kw, "phase")?;
    let phi = c_atan2(z);
    if phi == 0.0 && z.im != 0.0 && z.re.is_finite() {
        return Err(vm.overflow_error("math range error"));
    }
    Ok(Value::Float(phi))
}

fn cmath_polar(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let z = one_complex(vm, args, kw, "polar")?;
    let phi = c_atan2(z);
    let Some(r) = z.hypot() else {
        return Err(vm.overflow_error("math range error"));
    };
    Ok(Value::tuple(vec![Value::Float(r), Value::Float(phi)]))
}

/// `rect(r, phi)`: behaves as `exp(log(r) + i phi)` for special values (r's sign kept).
fn cmath_rect(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    Signature::positional("cmath", "rect", &["r", "phi"], 2).check(vm, args, kw)?;
    let (r, phi) = (as_double(vm, &args[0])?, as_double(vm, &args[1])?);
    let outcome = if !r.is_finite() || !phi.is_finite() {
        let z = if r.is_infinite() && phi.is_finite() && phi != 0.0 {
            let (cos, sin) = (phi.cos(), phi.sin());
            let (cos, sin) = if r > 0.0 { (cos, sin) } else { (-cos, -sin) };
            Complex::new(inf_as(cos), inf_as(sin))
        } else {
            let (re, im) = special::RECT[kind(r)][kind(phi)];
            Complex::new(re, im)
        };
        let domain = r != 0.0 && !r.is_nan() && phi.is_infinite();
        (z, if domain { Errno::Domain } else { Errno::Ok })
    } else if phi == 0.0 {
        ok(Complex::new(r, r * phi))
    } else {
        ok(Complex::new(r * phi.cos(), r * phi.sin()))
    };
    checked(vm, outcome)
}

/// `isfinite`, `isnan` and `isinf` of a complex: a test of its parts.
fn part_test(
    vm: &mut Vm,
    args: &[Value],
    kw: &KwArgs,
    name: &'static str,
    test: fn(Complex) -> bool,
) -> PyResult<Value> {
    let z = one_complex(vm, args, kw, name)?;
    Ok(Value::Bool(test(z)))
}

/// `isclose(a, b, *, rel_tol=1e-09, abs_tol=0.0)`: the difference within either
/// tolerance; infinities close only to themselves, NaN to nothing.
fn cmath_isclose(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    const SIG: Signature =
        Signature::keywords("cmath", "isclose", &["a", "b", "rel_tol", "abs_tol"], 2, 0);
    let slots = bind_kwonly(vm, &SIG, 2, args, kw)?;
    let (a, b) = match (&slots[0], &slots[1]) {
        (Some(a), Some(b)) => (as_complex(vm, a)?, as_complex(vm, b)?),
        _ => return Err(vm.type_error("isclose() missing required argument")),
    };
    let mut tolerances = [1e-09, 0.0];
    for (slot, value) in slots[2..].iter().zip(tolerances.iter_mut()) {
        if let Some(v) = slot {
            *value = as_double(vm, v)?;
        }
    }
    let [rel_tol, abs_tol] = tolerances;
    if rel_tol < 0.0 || abs_tol < 0.0 {
        return Err(vm.value_error("tolerances must be non-negative"));
    }
    if a == b {
        return Ok(Value::Bool(true));
    }
    if [a.re, a.im, b.re, b.im].iter().any(|x| x.is_infinite()) {
        return Ok(Value::Bool(false));
    }
    let magnitude = |z: Complex| z.hypot().unwrap_or(f64::INFINITY);
    let diff = magnitude(a - b);
    Ok(Value::Bool(
        diff <= rel_tol * magnitude(b) || diff <= rel_tol * magnitude(a) || diff <= abs_tol,
    ))
}

/// Makes the `cmath` module, on its first import.
pub fn module(vm: &mut Vm) -> Value {
    vm.ready_methods(&vm.types.complex.clone());
    let functions = complex_functions!(
        "acos" => c_acos, "acosh" => c_acosh, "asin" => c_asin, "asinh" => c_asinh,
        "atan" => c_atan, "atanh" => c_atanh, "cos" => c_cos, "cosh" => c_cosh,
        "exp" => c_exp, "log10" => c_log10, "sin" => c_sin, "sinh" => c_sinh,
        "sqrt" => c_sqrt, "tan" => c_tan, "tanh" => c_tanh,
    );
    let others: [(&'static str, NativeFn); 8] = [
        ("isclose", cmath_isclose),
        ("isfinite", |vm, args, kw| {
            part_test(vm, args, kw, "isfinite", |z| {
                z.re.is_finite() && z.im.is_finite()
            })
        }),
        ("isinf", |vm, args, kw| {
            part_test(vm, args, kw, "isinf", |z| {
                z.re.is_infinite() || z.im.is_infinite()
            })
        }),
        ("isnan", |vm, args, kw| {
            part_test(vm, args, kw, "isnan", |z| z.re.is_nan() || z.im.is_nan())
        }),
        ("log", cmath_log),
        ("phase", cmath_phase),
        ("polar", cmath_polar),
        ("rect", cmath_rect),
    ];
    let mut attrs: Vec<(&str, Value)> = functions
        .iter()
        .chain(others.iter())
        .map(|&(name, f)| (name, vm.native(name, f)))
        .collect();
    attrs.extend([
        ("pi", Value::Float(PI)),
        ("e", Value::Float(E)),
        ("tau", Value::Float(std::f64::consts::TAU)),
        ("inf", Value::Float(f64::INFINITY)),
        ("infj", vm.new_complex(Complex::new(0.0, f64::INFINITY))),
        ("nan", Value::Float(f64::NAN.abs())),
        ("nanj", vm.new_complex(Complex::new(0.0, f64::NAN))),
    ]);
    vm.new_module("cmath", attrs)
}
