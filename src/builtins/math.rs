//! The `math` module (`Modules/mathmodule.c`): the float functions here, each wrapped as
//! CPython wraps it (`math_1`, `math_2`, `loghelper`, …) so a domain error is a ValueError
//! "math domain error" and an overflow an OverflowError "math range error" exactly where
//! CPython raises them; the integer functions are in `math_int.rs`, the accurate sums and
//! norms in `math_sum.rs`. libm is the platform's, as CPython's is, so results agree bit
//! for bit; CPython's own algorithms (gamma, lgamma, atan2, remainder, pow's special cases)
//! are written out.

use crate::common::int_ops::{self, Int};
use crate::vm::args::{Signature, check_arity, check_kwargs};
use crate::vm::object::{KwArgs, NativeFn};
use crate::vm::ops::{from_int, to_int};
use crate::vm::value::Value;
use crate::vm::{Exc, PyResult, Vm};

use super::module_args::{as_double, bind_kwonly, index_int};

// The C library's functions that Rust's `f64` does not take from it (its own `asinh`,
// `acosh` and `atanh` are computed differently, and it has no `erf`).
unsafe extern "C" {
    safe fn erf(x: f64) -> f64;
    safe fn erfc(x: f64) -> f64;
    #[cfg(not(target_arch = "wasm32"))]
    pub(super) safe fn asinh(x: f64) -> f64;
    #[cfg(not(target_arch = "wasm32"))]
    safe fn acosh(x: f64) -> f64;
    #[cfg(not(target_arch = "wasm32"))]
    safe fn atanh(x: f64) -> f64;
}

// In a browser there is no C library: Rust's own (which may differ from glibc's in the last
// bit), with the C library's calling convention, as the table below takes them.
#[cfg(target_arch = "wasm32")]
pub(super) extern "C" fn asinh(x: f64) -> f64 {
    x.asinh()
}
#[cfg(target_arch = "wasm32")]
extern "C" fn acosh(x: f64) -> f64 {
    x.acosh()
}
#[cfg(target_arch = "wasm32")]
extern "C" fn atanh(x: f64) -> f64 {
    x.atanh()
}

/// The C library's `cbrt`. Rust links its own port of musl's (less accurate than glibc's,
/// which CPython calls) under that name, so the library's is looked up by name instead.
#[cfg(not(target_arch = "wasm32"))]
fn cbrt(x: f64) -> f64 {
    type Cbrt = unsafe extern "C" fn(f64) -> f64;
    static LIBC_CBRT: std::sync::OnceLock<Option<Cbrt>> = std::sync::OnceLock::new();
    let found = LIBC_CBRT.get_or_init(|| {
        // SAFETY: dlsym only reads the loaded libraries' symbol tables; a non-null result
        // for "cbrt" is the C library's `double cbrt(double)`.
        unsafe {
            let symbol = libc::dlsym(libc::RTLD_DEFAULT, c"cbrt".as_ptr());
            (!symbol.is_null()).then(|| std::mem::transmute::<*mut libc::c_void, Cbrt>(symbol))
        }
    });
    match found {
        // SAFETY: a pure function of one double.
        Some(f) => unsafe { f(x) },
        None => x.cbrt(),
    }
}

/// In a browser there is no C library: Rust's own `cbrt`.
#[cfg(target_arch = "wasm32")]
fn cbrt(x: f64) -> f64 {
    x.cbrt()
}

pub(super) fn domain_error(vm: &Vm) -> Exc {
    vm.value_error("math domain error")
}

pub(super) fn range_error(vm: &Vm) -> Exc {
    vm.overflow_error("math range error")
}

/// `math_1`: one float argument, a NaN from a non-NaN is a domain error, an infinity from
/// a finite argument an overflow (`can_overflow`) or a domain error (a singularity).
fn math_1(
    vm: &mut Vm,
    args: &[Value],
    kw: &KwArgs,
    name: &'static str,
    f: fn(f64) -> f64,
    can_overflow: bool,
) -> PyResult<Value> {
    Signature::one("math", name).check(vm, args, kw)?;
    let x = as_double(vm, &args[0])?;
    let r = f(x);
    if r.is_nan() && !x.is_nan() {
        return Err(domain_error(vm));
    }
    if r.is_infinite() && x.is_finite() {
        return Err(if can_overflow {
            range_error(vm)
        } else {
            domain_error(vm)
        });
    }
    Ok(Value::Float(r))
}

/// What a libm-style function reports beside its result (`errno`).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Errno {
    Ok,
    Domain,
    Range,
}

/// `is_error`: EDOM is a ValueError; ERANGE an OverflowError unless the result is small
/// (an underflow).
fn checked(vm: &Vm, r: f64, errno: Errno) -> PyResult<Value> {
    match errno {
        Errno::Domain => Err(domain_error(vm)),
        Errno::Range if r.abs() >= 1.5 => Err(range_error(vm)),
        _ => Ok(Value::Float(r)),
    }
}

/// `math_1a`: one float argument, errors as the function reports them.
fn math_1a(
    vm: &mut Vm,
    args: &[Value],
    kw: &KwArgs,
    name: &'static str,
    f: fn(f64) -> (f64, Errno),
) -> PyResult<Value> {
    Signature::one("math", name).check(vm, args, kw)?;
    let x = as_double(vm, &args[0])?;
    let (r, errno) = f(x);
    checked(vm, r, errno)
}

/// Two float arguments (`math_2` and the clinic functions taking `x: double, y: double`).
fn two_doubles(vm: &mut Vm, args: &[Value], kw: &KwArgs, name: &str) -> PyResult<(f64, f64)> {
    if !kw.is_empty() {
        return Err(vm.type_error(format!("math.{name}() takes no keyword arguments")));
    }
    check_arity(vm, name, args, 2, 2)?;
    Ok((as_double(vm, &args[0])?, as_double(vm, &args[1])?))
}

/// `math_2`: a NaN from non-NaNs is a domain error, an infinity from finite arguments an
/// overflow.
fn math_2(
    vm: &mut Vm,
    args: &[Value],
    kw: &KwArgs,
    name: &str,
    f: fn(f64, f64) -> f64,
) -> PyResult<Value> {
    let (x, y) = two_doubles(vm, args, kw, name)?;
    let r = f(x, y);
    let errno = if r.is_nan() && !x.is_nan() && !y.is_nan() {
        Errno::Domain
    } else if r.is_infinite() && x.is_finite() && y.is_finite() {
        Errno::Range
    } else {
        Errno::Ok
    };
    checked(vm, r, errno)
}

/// One `x: double` argument (`frexp`, `modf`, `isnan`, …).
fn one_double(vm: &mut Vm, args: &[Value], kw: &KwArgs, name: &'static str) -> PyResult<f64> {
    Signature::one("math", name).check(vm, args, kw)?;
    as_double(vm, &args[0])
}

macro_rules! math_1_fns {
    ($($fname:ident = $name:literal, $f:expr, $overflow:expr;)*) => {
        $(fn $fname(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
            math_1(vm, args, kw, $name, $f, $overflow)
        })*
    };
}

math_1_fns! {
    math_acos = "acos", f64::acos, false;
    math_acosh = "acosh", |x| acosh(x), false;
    math_asin = "asin", f64::asin, false;
    math_asinh = "asinh", |x| asinh(x), false;
    math_atan = "atan", f64::atan, false;
    math_atanh = "atanh", |x| atanh(x), false;
    math_cbrt = "cbrt", cbrt, false;
    math_cos = "cos", f64::cos, false;
    math_cosh = "cosh", f64::cosh, true;
    math_exp = "exp", f64::exp, true;
    math_exp2 = "exp2", f64::exp2, true;
    math_expm1 = "expm1", f64::exp_m1, true;
    math_fabs = "fabs", f64::abs, false;
    math_log1p = "log1p", f64::ln_1p, false;
    math_sin = "sin", f64::sin, false;
    math_sinh = "sinh", f64::sinh, true;
    math_sqrt = "sqrt", f64::sqrt, false;
    math_tan = "tan", f64::tan, false;
    math_tanh = "tanh", f64::tanh, false;
}

fn math_erf(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    math_1a(vm, args, kw, "erf", |x| (erf(x), Errno::Ok))
}

fn math_erfc(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    math_1a(vm, args, kw, "erfc", |x| (erfc(x), Errno::Ok))
}

fn math_gamma(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    math_1a(vm, args, kw, "gamma", tgamma)
}

fn math_lgamma(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    math_1a(vm, args, kw, "lgamma", lgamma_errno)
}

const PI: f64 = std::f64::consts::PI;
const LOGPI: f64 = 1.144_729_885_849_400_2;

/// `m_sinpi`: sin(pi*x), accurate for integral and near-integral x.
fn sinpi(x: f64) -> f64 {
    let y = x.abs() % 2.0;
    let n = (2.0 * y).round() as i32;
    let r = match n {
        0 => (PI * y).sin(),
        1 => (PI * (y - 0.5)).cos(),
        2 => (PI * (1.0 - y)).sin(),
        3 => -(PI * (y - 1.5)).cos(),
        _ => (PI * (y - 2.0)).sin(),
    };
    1f64.copysign(x) * r
}

// The Lanczos parameters as `mathmodule.c` writes them, digit for digit.
#[allow(clippy::excessive_precision)]
const LANCZOS_G: f64 = 6.024_680_040_776_729_583_740_234_375;
#[allow(clippy::excessive_precision)]
const LANCZOS_G_MINUS_HALF: f64 = 5.524_680_040_776_729_583_740_234_375;
#[allow(clippy::excessive_precision)]
const LANCZOS_NUM: [f64; 13] = [
    23531376880.410759688572007674451636754734846804940,
    42919803642.649098768957899047001988850926355848959,
    35711959237.355668049440185451547166705960488635843,
    17921034426.037209699919755754458931112671403265390,
    6039542586.3520280050642916443072979210699388420708,
    1439720407.3117216736632230727949123939715485786772,
    248874557.86205415651146038641322942321632125127801,
    31426415.585400194380614231628318205362874684987640,
    2876370.6289353724412254090516208496135991145378768,
    186056.26539522349504029498971604569928220784236328,
    8071.6720023658162106380029022722506138218516325024,
    210.82427775157934587250973392071336271166969580291,
    2.5066282746310002701649081771338373386264310793408,
];
const LANCZOS_DEN: [f64; 13] = [
    0.0,
    39916800.0,
    120543840.0,
    150917976.0,
    105258076.0,
    45995730.0,
    13339535.0,
    2637558.0,
    357423.0,
    32670.0,
    1925.0,
    66.0,
    1.0,
];

/// `lanczos_sum`, for positive x.
fn lanczos_sum(x: f64) -> f64 {
    let (mut num, mut den) = (0.0, 0.0);
    if x < 5.0 {
        for i in (0..13).rev() {
            num = num * x + LANCZOS_NUM[i];
            den = den * x + LANCZOS_DEN[i];
        }
    } else {
        for i in 0..13 {
            num = num / x + LANCZOS_NUM[i];
            den = den / x + LANCZOS_DEN[i];
        }
    }
    num / den
}

/// `m_tgamma`: the Lanczos approximation, the reflection formula below zero.
fn tgamma(x: f64) -> (f64, Errno) {
    if !x.is_finite() {
        if x.is_nan() || x > 0.0 {
            return (x, Errno::Ok);
        }
        return (f64::NAN, Errno::Domain);
    }
    if x == 0.0 {
        return (f64::INFINITY.copysign(x), Errno::Domain);
    }
    if x == x.floor() {
        if x < 0.0 {
            return (f64::NAN, Errno::Domain);
        }
        if x <= 23.0 {
            let mut r = 1.0;
            for i in 2..x as i64 {
                r *= i as f64;
            }
            return (r, Errno::Ok);
        }
    }
    let absx = x.abs();
    if absx < 1e-20 {
        let r = 1.0 / x;
        return (
            r,
            if r.is_infinite() {
                Errno::Range
            } else {
                Errno::Ok
            },
        );
    }
    if absx > 200.0 {
        if x < 0.0 {
            return (0.0 / sinpi(x), Errno::Ok);
        }
        return (f64::INFINITY, Errno::Range);
    }
    let y = absx + LANCZOS_G_MINUS_HALF;
    let z = if absx > LANCZOS_G_MINUS_HALF {
        let q = y - absx;
        q - LANCZOS_G_MINUS_HALF
    } else {
        let q = y - LANCZOS_G_MINUS_HALF;
        q - absx
    };
    let z = z * LANCZOS_G / y;
    let mut r;
    if x < 0.0 {
        r = -PI / sinpi(absx) / absx * y.exp() / lanczos_sum(absx);
        r -= z * r;
        if absx < 140.0 {
            r /= y.powf(absx - 0.5);
        } else {
            let sqrtpow = y.powf(absx / 2.0 - 0.25);
            r /= sqrtpow;
            r /= sqrtpow;
        }
    } else {
        r = lanczos_sum(absx) / y.exp();
        r += z * r;
        if absx < 140.0 {
            r *= y.powf(absx - 0.5);
        } else {
            let sqrtpow = y.powf(absx / 2.0 - 0.25);
            r *= sqrtpow;
            r *= sqrtpow;
        }
    }
    (
        r,
        if r.is_infinite() {
            Errno::Range
        } else {
            Errno::Ok
        },
    )
}

/// `m_lgamma`: log |Gamma(x)|.
fn lgamma_errno(x: f64) -> (f64, Errno) {
    if !x.is_finite() {
        return (if x.is_nan() { x } else { f64::INFINITY }, Errno::Ok);
    }
    if x == x.floor() && x <= 2.0 {
        if x <= 0.0 {
            return (f64::INFINITY, Errno::Domain);
        }
        return (0.0, Errno::Ok);
    }
    let absx = x.abs();
    if absx < 1e-20 {
        return (-absx.ln(), Errno::Ok);
    }
    let mut r = lanczos_sum(absx).ln() - LANCZOS_G;
    r += (absx - 0.5) * ((absx + LANCZOS_G - 0.5).ln() - 1.0);
    if x < 0.0 {
        r = LOGPI - sinpi(absx).abs().ln() - absx.ln() - r;
    }
    (
        r,
        if r.is_infinite() {
            Errno::Range
        } else {
            Errno::Ok
        },
    )
}

/// `m_lgamma` for `random.binomialvariate`.
pub(super) fn lgamma(x: f64) -> f64 {
    lgamma_errno(x).0
}

/// `m_atan2`: the special cases C99 gives, whatever the platform's libm does.
fn atan2(y: f64, x: f64) -> f64 {
    if x.is_nan() || y.is_nan() {
        return f64::NAN;
    }
    if y.is_infinite() {
        if x.is_infinite() {
            return if 1f64.copysign(x) == 1.0 {
                (0.25 * PI).copysign(y)
            } else {
                (0.75 * PI).copysign(y)
            };
        }
        return (0.5 * PI).copysign(y);
    }
    if x.is_infinite() || y == 0.0 {
        return if 1f64.copysign(x) == 1.0 {
            0f64.copysign(y)
        } else {
            PI.copysign(y)
        };
    }
    y.atan2(x)
}

/// `m_remainder`: IEEE 754 remainder, exact.
fn remainder(x: f64, y: f64) -> f64 {
    if x.is_finite() && y.is_finite() {
        if y == 0.0 {
            return f64::NAN;
        }
        let (absx, absy) = (x.abs(), y.abs());
        let m = absx % absy;
        let c = absy - m;
        let r = if m < c {
            m
        } else if m > c {
            -c
        } else {
            m - 2.0 * ((0.5 * (absx - m)) % absy)
        };
        return 1f64.copysign(x) * r;
    }
    if x.is_nan() {
        return x;
    }
    if y.is_nan() {
        return y;
    }
    if x.is_infinite() {
        return f64::NAN;
    }
    x
}

fn math_atan2(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    math_2(vm, args, kw, "atan2", atan2)
}

fn math_copysign(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    math_2(vm, args, kw, "copysign", f64::copysign)
}

fn math_remainder(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    math_2(vm, args, kw, "remainder", remainder)
}

/// `math_fmod_impl`: `fmod(x, ±inf)` is x; a NaN from non-NaNs a domain error.
fn math_fmod(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let (x, y) = two_doubles(vm, args, kw, "fmod")?;
    if y.is_infinite() && x.is_finite() {
        return Ok(Value::Float(x));
    }
    let r = x % y;
    if r.is_nan() && !x.is_nan() && !y.is_nan() {
        return Err(domain_error(vm));
    }
    Ok(Value::Float(r))
}

/// `math_pow_impl`: IEEE special values first, then libm's pow with its errors sorted.
fn math_pow(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let (x, y) = two_doubles(vm, args, kw, "pow")?;
    let mut errno = Errno::Ok;
    let r = if !x.is_finite() || !y.is_finite() {
        if x.is_nan() {
            if y == 0.0 { 1.0 } else { x }
        } else if y.is_nan() {
            if x == 1.0 { 1.0 } else { y }
        } else if x.is_infinite() {
            let odd_y = y.is_finite() && (y.abs() % 2.0) == 1.0;
            if y > 0.0 {
                if odd_y { x } else { x.abs() }
            } else if y == 0.0 {
                1.0
            } else if odd_y {
                0f64.copysign(x)
            } else {
                0.0
            }
        } else if x.abs() == 1.0 {
            1.0
        } else if y > 0.0 && x.abs() > 1.0 {
            y
        } else if y < 0.0 && x.abs() < 1.0 {
            -y
        } else {
            0.0
        }
    } else {
        let r = x.powf(y);
        if r.is_nan() {
            errno = Errno::Domain;
        } else if r.is_infinite() {
            errno = if x == 0.0 {
                Errno::Domain
            } else {
                Errno::Range
            };
        }
        r
    };
    checked(vm, r, errno)
}

/// `frexp` of a finite non-zero float: the mantissa in [0.5, 1) and the exponent.
pub(super) fn frexp(x: f64) -> (f64, i32) {
    if x == 0.0 || !x.is_finite() {
        return (x, 0);
    }
    let (x, extra) = if x.abs() < f64::MIN_POSITIVE {
        (x * 2f64.powi(64), -64)
    } else {
        (x, 0)
    };
    let bits = x.to_bits();
    let exp = ((bits >> 52) & 0x7ff) as i32 - 1022;
    let mantissa = f64::from_bits((bits & !(0x7ff << 52)) | (1022 << 52));
    (mantissa, exp + extra)
}

/// `ldexp(x, e)`: `x * 2**e`, rounded once (musl's `scalbn`: large steps that stay exact,
/// and a last step into the subnormals that rounds only once).
pub(super) fn ldexp(x: f64, e: i64) -> f64 {
    let two_1023 = f64::from_bits(0x7fe0_0000_0000_0000);
    let two_m1022_53 =
        f64::from_bits(0x0010_0000_0000_0000) * f64::from_bits(0x4340_0000_0000_0000);
    let (mut x, mut n) = (x, e.clamp(-5000, 5000) as i32);
    if n > 1023 {
        x *= two_1023;
        n -= 1023;
        if n > 1023 {
            x *= two_1023;
            n = (n - 1023).min(1023);
        }
    } else if n < -1022 {
        x *= two_m1022_53;
        n += 1022 - 53;
        if n < -1022 {
            x *= two_m1022_53;
            n = (n + 1022 - 53).max(-1022);
        }
    }
    x * f64::from_bits(((0x3ff + n) as u64) << 52)
}

fn math_frexp(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let x = one_double(vm, args, kw, "frexp")?;
    let (m, e) = frexp(x);
    Ok(Value::tuple(vec![Value::Float(m), Value::Int(e.into())]))
}

/// `math_ldexp_impl`: the exponent must be an int; out of range it saturates.
fn math_ldexp(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    check_kwargs(vm, "math.ldexp", kw, &[])?;
    check_arity(vm, "ldexp", args, 2, 2)?;
    let x = as_double(vm, &args[0])?;
    let Some(i) = to_int(&args[1]) else {
        return Err(vm.type_error("Expected an int as second argument to ldexp."));
    };
    let exp = match i {
        Int::Small(e) => e,
        Int::Big(_) if i.is_negative() => i64::MIN,
        Int::Big(_) => i64::MAX,
    };
    let r = if x == 0.0 || !x.is_finite() {
        x
    } else if exp > i64::from(i32::MAX) {
        return Err(range_error(vm));
    } else if exp < i64::from(i32::MIN) {
        0f64.copysign(x)
    } else {
        let r = ldexp(x, exp);
        if r.is_infinite() {
            return Err(range_error(vm));
        }
        r
    };
    Ok(Value::Float(r))
}

fn math_modf(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let x = one_double(vm, args, kw, "modf")?;
    let (frac, int) = if x.is_infinite() {
        (0f64.copysign(x), x)
    } else if x.is_nan() {
        (x, x)
    } else {
        let int = x.trunc();
        ((x - int).copysign(x), int)
    };
    Ok(Value::tuple(vec![Value::Float(frac), Value::Float(int)]))
}

fn math_degrees(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    const RAD_TO_DEG: f64 = 180.0 / PI;
    Ok(Value::Float(
        one_double(vm, args, kw, "degrees")? * RAD_TO_DEG,
    ))
}

fn math_radians(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    const DEG_TO_RAD: f64 = PI / 180.0;
    Ok(Value::Float(
        one_double(vm, args, kw, "radians")? * DEG_TO_RAD,
    ))
}

fn math_isfinite(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    Ok(Value::Bool(
        one_double(vm, args, kw, "isfinite")?.is_finite(),
    ))
}

fn math_isinf(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    Ok(Value::Bool(
        one_double(vm, args, kw, "isinf")?.is_infinite(),
    ))
}

fn math_isnan(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    Ok(Value::Bool(one_double(vm, args, kw, "isnan")?.is_nan()))
}

/// A float made an int (`PyLong_FromDouble`): OverflowError for infinities, ValueError for
/// NaN.
fn float_to_int(vm: &Vm, x: f64) -> PyResult<Value> {
    int_ops::float_to_int(x)
        .map(from_int)
        .map_err(|e| vm.op_error(e))
}

/// `floor`/`ceil`: ints are their own floor; other objects may define `__floor__`/`__ceil__`;
/// the rest go through `float`.
fn rounding(
    vm: &mut Vm,
    args: &[Value],
    kw: &KwArgs,
    name: &'static str,
    dunder: &str,
    f: fn(f64) -> f64,
) -> PyResult<Value> {
    Signature::one("math", name).check(vm, args, kw)?;
    let x = &args[0];
    match x {
        Value::Float(f_) => return float_to_int(vm, f(*f_)),
        Value::Int(_) | Value::Bool(_) | Value::BigInt(_) => {
            return Ok(to_int(x).map_or(Value::Int(0), from_int));
        }
        _ => {}
    }
    let key = vm.intern(dunder);
    if let Some(method) = vm.special_method(x, &key) {
        return vm.call(&method, std::slice::from_ref(x), &[]);
    }
    // A subclass of int or float keeping the built-in method: int's or float's.
    if let Some(base) = vm.numeric_base(x, &key) {
        return rounding(vm, &[base], kw, name, dunder, f);
    }
    let v = as_double(vm, x)?;
    float_to_int(vm, f(v))
}

pub(super) fn math_floor(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    rounding(vm, args, kw, "floor", "__floor__", f64::floor)
}

pub(super) fn math_ceil(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    rounding(vm, args, kw, "ceil", "__ceil__", f64::ceil)
}

/// `trunc(x)`: floats directly, everything else by `__trunc__`.
pub(super) fn math_trunc(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    Signature::one("math", "trunc").check(vm, args, kw)?;
    let x = &args[0];
    match x {
        Value::Float(f) => return float_to_int(vm, *f),
        Value::Int(_) | Value::Bool(_) | Value::BigInt(_) => {
            return Ok(to_int(x).map_or(Value::Int(0), from_int));
        }
        _ => {}
    }
    let key = vm.intern("__trunc__");
    match vm.special_method(x, &key) {
        Some(method) => vm.call(&method, std::slice::from_ref(x), &[]),
        // A subclass of int or float keeping the built-in `__trunc__`.
        None if let Some(base) = vm.numeric_base(x, &key) => math_trunc(vm, &[base], kw),
        None => Err(vm.type_error(format!(
            "type {} doesn't define __trunc__ method",
            vm.type_name(x)
        ))),
    }
}

/// `_PyLong_Frexp` for a positive int: the mantissa in [0.5, 1) rounded half-even to 53
/// bits, and the exponent.
fn int_frexp(n: &Int) -> (f64, i64) {
    let big = n.to_bigint();
    let bits = big.bits() as i64;
    if bits <= 55 {
        let v = big.iter_u64_digits().next().unwrap_or(0) as f64;
        return (ldexp(v, -bits), bits);
    }
    let shift = (bits - 55) as usize;
    let mut top = (&big >> shift).iter_u64_digits().next().unwrap_or(0);
    if big.trailing_zeros().is_some_and(|z| (z as usize) < shift) {
        top |= 1;
    }
    let mut x = ldexp(top as f64, -55);
    let mut e = bits;
    if x == 1.0 {
        x = 0.5;
        e += 1;
    }
    (x, e)
}

/// `loghelper`: ints of any size (through their mantissa and exponent when too large for a
/// float), everything else through `math_1`.
fn loghelper(vm: &mut Vm, arg: &Value, func: fn(f64) -> f64) -> PyResult<f64> {
    if let Some(n) = to_int(arg) {
        if n.is_negative() || n.is_zero() {
            return Err(domain_error(vm));
        }
        return Ok(match n.to_f64() {
            Ok(x) => func(x),
            Err(_) => {
                let (x, e) = int_frexp(&n);
                func(x) + func(2.0) * e as f64
            }
        });
    }
    let x = as_double(vm, arg)?;
    let r = func(x);
    if r.is_nan() && !x.is_nan() || r.is_infinite() && x.is_finite() {
        return Err(domain_error(vm));
    }
    Ok(r)
}

/// `m_log`, `m_log2`, `m_log10`: a NaN for negative arguments, -inf for zero.
fn m_log(x: f64) -> f64 {
    if x.is_finite() && x <= 0.0 {
        return if x == 0.0 {
            f64::NEG_INFINITY
        } else {
            f64::NAN
        };
    }
    if x == f64::NEG_INFINITY {
        return f64::NAN;
    }
    x.ln()
}

fn m_log2(x: f64) -> f64 {
    if x <= 0.0 {
        return if x == 0.0 {
            f64::NEG_INFINITY
        } else {
            f64::NAN
        };
    }
    x.log2()
}

fn m_log10(x: f64) -> f64 {
    if x <= 0.0 {
        return if x == 0.0 {
            f64::NEG_INFINITY
        } else {
            f64::NAN
        };
    }
    x.log10()
}

/// `log(x[, base])`: `loghelper(x) / loghelper(base)`.
fn math_log(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    check_kwargs(vm, "math.log", kw, &[])?;
    check_arity(vm, "log", args, 1, 2)?;
    let num = loghelper(vm, &args[0], m_log)?;
    let Some(base) = args.get(1) else {
        return Ok(Value::Float(num));
    };
    let den = loghelper(vm, base, m_log)?;
    if den == 0.0 {
        return Err(vm.zero_division("float division by zero"));
    }
    Ok(Value::Float(num / den))
}

fn math_log2(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    Signature::one("math", "log2").check(vm, args, kw)?;
    loghelper(vm, &args[0], m_log2).map(Value::Float)
}

fn math_log10(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    Signature::one("math", "log10").check(vm, args, kw)?;
    loghelper(vm, &args[0], m_log10).map(Value::Float)
}

/// `isclose(a, b, *, rel_tol=1e-09, abs_tol=0.0)`: the "weak" test of the Boost library.
fn math_isclose(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    const SIG: Signature =
        Signature::keywords("math", "isclose", &["a", "b", "rel_tol", "abs_tol"], 2, 0);
    let slots = bind_kwonly(vm, &SIG, 2, args, kw)?;
    let mut values = [0.0, 0.0, 1e-09, 0.0];
    for (slot, value) in slots.iter().zip(values.iter_mut()) {
        if let Some(v) = slot {
            *value = as_double(vm, v)?;
        }
    }
    let [a, b, rel_tol, abs_tol] = values;
    if rel_tol < 0.0 || abs_tol < 0.0 {
        return Err(vm.value_error("tolerances must be non-negative"));
    }
    if a == b {
        return Ok(Value::Bool(true));
    }
    if a.is_infinite() || b.is_infinite() {
        return Ok(Value::Bool(false));
    }
    let diff = (b - a).abs();
    Ok(Value::Bool(
        diff <= (rel_tol * b).abs() || diff <= (rel_tol * a).abs() || diff <= abs_tol,
    ))
}

/// `nextafter(x, y, /, *, steps=None)`: the float `steps` representable values from x
/// toward y, walked on the bit patterns as CPython does.
fn math_nextafter(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    const SIG: Signature = Signature::keywords("math", "nextafter", &["x", "y", "steps"], 2, 2);
    let slots = bind_kwonly(vm, &SIG, 2, args, kw)?;
    let x = as_double(vm, &args[0])?;
    let y = as_double(vm, &args[1])?;
    let steps = match slots[2].as_ref().filter(|v| !v.is_none()) {
        None => return Ok(Value::Float(next_toward(x, y))),
        Some(v) => index_int(vm, v)?,
    };
    if steps.is_negative() {
        return Err(vm.value_error("steps must be a non-negative integer"));
    }
    let steps = steps.as_i64().map_or(u64::MAX, |s| s as u64);
    if steps == 0 || x.is_nan() {
        return Ok(Value::Float(x));
    }
    if y.is_nan() {
        return Ok(Value::Float(y));
    }
    let (ux, uy) = (x.to_bits(), y.to_bits());
    if ux == uy {
        return Ok(Value::Float(x));
    }
    const SIGN: u64 = 1 << 63;
    let (ax, ay) = (ux & !SIGN, uy & !SIGN);
    let r = if (ux ^ uy) & SIGN != 0 {
        if ax + ay <= steps {
            y
        } else if ax < steps {
            f64::from_bits((uy & SIGN) | (steps - ax))
        } else {
            f64::from_bits(ux - steps)
        }
    } else if ax > ay {
        if ax - ay >= steps {
            f64::from_bits(ux - steps)
        } else {
            y
        }
    } else if ay - ax >= steps {
        f64::from_bits(ux + steps)
    } else {
        y
    };
    Ok(Value::Float(r))
}

/// C's `nextafter(x, y)`.
fn next_toward(x: f64, y: f64) -> f64 {
    if x.is_nan() || y.is_nan() {
        return x + y;
    }
    if x == y {
        return y;
    }
    if x == 0.0 {
        return f64::from_bits(1).copysign(y);
    }
    let bits = x.to_bits();
    let away = (y > x) == (x > 0.0);
    f64::from_bits(if away { bits + 1 } else { bits - 1 })
}

/// `ulp(x)`: the distance from |x| to the next float away from zero (toward zero at the
/// largest float).
fn math_ulp(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let x = one_double(vm, args, kw, "ulp")?;
    if x.is_nan() {
        return Ok(Value::Float(x));
    }
    let x = x.abs();
    if x.is_infinite() {
        return Ok(Value::Float(x));
    }
    let up = next_toward(x, f64::INFINITY);
    if up.is_infinite() {
        return Ok(Value::Float(x - next_toward(x, f64::NEG_INFINITY)));
    }
    Ok(Value::Float(up - x))
}

/// `fma(x, y, z)` (3.13): `x * y + z` rounded once.
fn math_fma(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    check_kwargs(vm, "math.fma", kw, &[])?;
    check_arity(vm, "fma", args, 3, 3)?;
    let (x, y, z) = (
        as_double(vm, &args[0])?,
        as_double(vm, &args[1])?,
        as_double(vm, &args[2])?,
    );
    let r = x.mul_add(y, z);
    if r.is_finite() {
        return Ok(Value::Float(r));
    }
    if r.is_nan() {
        if !x.is_nan() && !y.is_nan() && !z.is_nan() {
            return Err(vm.value_error("invalid operation in fma"));
        }
    } else if x.is_finite() && y.is_finite() && z.is_finite() {
        return Err(vm.overflow_error("overflow in fma"));
    }
    Ok(Value::Float(r))
}

pub fn module(vm: &mut Vm) -> Value {
    let functions: [(&'static str, NativeFn); 56] = [
        ("acos", math_acos),
        ("acosh", math_acosh),
        ("asin", math_asin),
        ("asinh", math_asinh),
        ("atan", math_atan),
        ("atan2", math_atan2),
        ("atanh", math_atanh),
        ("cbrt", math_cbrt),
        ("ceil", math_ceil),
        ("comb", super::math_int::math_comb),
        ("copysign", math_copysign),
        ("cos", math_cos),
        ("cosh", math_cosh),
        ("degrees", math_degrees),
        ("dist", super::math_sum::math_dist),
        ("erf", math_erf),
        ("erfc", math_erfc),
        ("exp", math_exp),
        ("exp2", math_exp2),
        ("expm1", math_expm1),
        ("fabs", math_fabs),
        ("factorial", super::math_int::math_factorial),
        ("floor", math_floor),
        ("fma", math_fma),
        ("fmod", math_fmod),
        ("frexp", math_frexp),
        ("fsum", super::math_sum::math_fsum),
        ("gamma", math_gamma),
        ("gcd", super::math_int::math_gcd),
        ("hypot", super::math_sum::math_hypot),
        ("isclose", math_isclose),
        ("isfinite", math_isfinite),
        ("isinf", math_isinf),
        ("isnan", math_isnan),
        ("isqrt", super::math_int::math_isqrt),
        ("lcm", super::math_int::math_lcm),
        ("ldexp", math_ldexp),
        ("lgamma", math_lgamma),
        ("log", math_log),
        ("log10", math_log10),
        ("log1p", math_log1p),
        ("log2", math_log2),
        ("modf", math_modf),
        ("nextafter", math_nextafter),
        ("perm", super::math_int::math_perm),
        ("pow", math_pow),
        ("prod", super::math_int::math_prod),
        ("radians", math_radians),
        ("remainder", math_remainder),
        ("sin", math_sin),
        ("sinh", math_sinh),
        ("sqrt", math_sqrt),
        ("sumprod", super::math_sum::math_sumprod),
        ("tan", math_tan),
        ("tanh", math_tanh),
        ("trunc", math_trunc),
    ];
    let mut attrs: Vec<(&str, Value)> = functions
        .iter()
        .map(|&(name, f)| (name, vm.native(name, f)))
        .collect();
    attrs.extend([
        ("ulp", vm.native("ulp", math_ulp)),
        ("pi", Value::Float(PI)),
        ("e", Value::Float(std::f64::consts::E)),
        ("tau", Value::Float(std::f64::consts::TAU)),
        ("inf", Value::Float(f64::INFINITY)),
        ("nan", Value::Float(f64::NAN)),
    ]);
    vm.new_module("math", attrs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frexp_and_ldexp_round_trip() {
        for x in [
            1.0,
            0.75,
            -3.5,
            1e300,
            5e-324,
            2.2250738585072014e-308,
            123456.789,
        ] {
            let (m, e) = frexp(x);
            assert!((0.5..1.0).contains(&m.abs()), "{x}");
            assert_eq!(ldexp(m, e.into()), x);
        }
        assert_eq!(ldexp(1.0, -1074), 5e-324);
        assert_eq!(ldexp(1.0, -1075), 0.0);
        assert_eq!(ldexp(0.75, -1074), 5e-324);
        assert_eq!(ldexp(1.0, 1024), f64::INFINITY);
    }
}
