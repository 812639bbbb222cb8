//! Python `int` and `float` arithmetic with CPython's exact semantics and error messages.
//!
//! In: [`Int`] (an `i64` that spills to `num_bigint::BigInt`), `f64`, `&str`. Out: results or
//! an [`OpError`]. Mirrors `Objects/longobject.c` (floor division, modulo, pow, shifts, bit
//! operations on two's complement, `int(str, base)`, true division correctly rounded) and
//! `Objects/floatobject.c` (float floor division and modulo signs, `round`, `float(str)`).
//! Must not depend on the VM's value model.

use std::cmp::Ordering;

use num_bigint::BigInt;
use num_integer::Integer;
use num_traits::{FromPrimitive, One, Signed, ToPrimitive, Zero};

use super::chars::{decimal_digit_value, is_python_whitespace, str_repr};
use super::op_error::{OpError, OpResult};
use super::sizes::{check_room, no_memory};

/// CPython's default `sys.get_int_max_str_digits()`.
pub const MAX_STR_DIGITS: usize = 4300;

/// The limit in force (`sys.set_int_max_str_digits`; 0: none), for the whole process as
/// CPython's is for its interpreter; a new VM sets it back to the default.
static MAX_STR_DIGITS_NOW: std::sync::atomic::AtomicUsize =
    std::sync::atomic::AtomicUsize::new(MAX_STR_DIGITS);

/// `sys.get_int_max_str_digits()`.
pub fn max_str_digits() -> usize {
    MAX_STR_DIGITS_NOW.load(std::sync::atomic::Ordering::Relaxed)
}

/// `sys.set_int_max_str_digits(limit)`, checked by the caller (0, or above 640).
pub fn set_max_str_digits(limit: usize) {
    MAX_STR_DIGITS_NOW.store(limit, std::sync::atomic::Ordering::Relaxed);
}

/// Products, shifts and powers whose result would need more bits than this are refused
/// with `MemoryError` (CPython's when its allocation fails) instead of exhausting memory.
const MAX_RESULT_BITS: u64 = 1 << 32;

/// Results from this many bits on are allocated first as a trial (see [`check_result_bits`]).
const TRIAL_BITS: u64 = 1 << 23;

/// CPython's `MAX_LONG_DIGITS` (30-bit digits in a `PyLongObject` under `PY_SSIZE_T_MAX`
/// bytes): an int of more digits is an `OverflowError`, "too many digits in integer".
const MAX_LONG_DIGITS: u128 = (i64::MAX as u128 - 24) / 4;

/// `MemoryError` unless a result of `bits` bits can be made: at most [`MAX_RESULT_BITS`],
/// and, for a big one, room for it (and the work space of the multiplication that makes
/// it, three times as much) that the allocator gives now — under a memory ulimit or
/// `--max-memory` an allocation num-bigint makes cannot fail without ending the process.
fn check_result_bits(bits: u64) -> OpResult<()> {
    if bits > MAX_RESULT_BITS {
        return Err(no_memory());
    }
    if bits >= TRIAL_BITS {
        check_room((bits / 8) as usize * 4)?;
    }
    Ok(())
}

/// A Python int: `Small` whenever the value fits in an `i64` (always normalized), else `Big`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Int {
    Small(i64),
    Big(BigInt),
}

/// The result of an operation that yields an int or, for negative powers, a float.
#[derive(Clone, Debug, PartialEq)]
pub enum IntOrFloat {
    Int(Int),
    Float(f64),
}

impl From<i64> for Int {
    fn from(value: i64) -> Self {
        Int::Small(value)
    }
}

impl From<BigInt> for Int {
    fn from(value: BigInt) -> Self {
        match value.to_i64() {
            Some(small) => Int::Small(small),
            None => Int::Big(value),
        }
    }
}

impl PartialOrd for Int {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Int {
    fn cmp(&self, other: &Self) -> Ordering {
        match (self, other) {
            (Int::Small(a), Int::Small(b)) => a.cmp(b),
            _ => self.to_bigint().cmp(&other.to_bigint()),
        }
    }
}

impl std::fmt::Display for Int {
    /// Decimal digits without the `int_max_str_digits` limit (see [`Int::to_decimal`]).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Int::Small(v) => write!(f, "{v}"),
            Int::Big(v) => write!(f, "{v}"),
        }
    }
}

impl Int {
    pub fn to_bigint(&self) -> BigInt {
        match self {
            Int::Small(v) => BigInt::from(*v),
            Int::Big(v) => v.clone(),
        }
    }

    pub fn as_i64(&self) -> Option<i64> {
        match self {
            Int::Small(v) => Some(*v),
            Int::Big(_) => None,
        }
    }

    pub fn is_zero(&self) -> bool {
        matches!(self, Int::Small(0))
    }

    pub fn is_negative(&self) -> bool {
        match self {
            Int::Small(v) => *v < 0,
            Int::Big(v) => v.is_negative(),
        }
    }

    /// `str(n)`: refuses more than [`MAX_STR_DIGITS`] digits, as CPython does.
    pub fn to_decimal(&self) -> OpResult<String> {
        match self {
            Int::Small(v) => Ok(v.to_string()),
            Int::Big(v) => bigint_to_decimal(v),
        }
    }

    /// `bin`, `oct`, `hex` (radix 2, 8, 16): `-0xff`, `0b0`; `prefix` adds the `0x`.
    pub fn to_radix(&self, radix: u32, prefix: bool) -> String {
        let magnitude = match self {
            Int::Small(v) => BigInt::from(v.unsigned_abs()),
            Int::Big(v) => v.abs(),
        };
        let digits = magnitude.to_str_radix(radix);
        let prefix = match (prefix, radix) {
            (false, _) => "",
            (true, 2) => "0b",
            (true, 8) => "0o",
            (true, _) => "0x",
        };
        let sign = if self.is_negative() { "-" } else { "" };
        format!("{sign}{prefix}{digits}")
    }

    /// `int.bit_length()`.
    pub fn bit_length(&self) -> u64 {
        match self {
            Int::Small(v) => 64 - u64::from(v.unsigned_abs().leading_zeros()),
            Int::Big(v) => v.bits(),
        }
    }

    /// `float(n)`, correctly rounded (half-even), as `PyLong_AsDouble`.
    pub fn to_f64(&self) -> OpResult<f64> {
        match self {
            Int::Small(v) if v.unsigned_abs() <= 1 << 53 => Ok(*v as f64),
            _ => ratio_to_f64(&self.to_bigint(), &BigInt::one())
                .ok_or_else(|| OpError::overflow("int too large to convert to float")),
        }
    }
}

/// `str(n)` for a big int: refuses more digits than the limit ([`max_str_digits`]), as
/// CPython does. A number of more bits than the limit's digits can hold is refused before
/// the (quadratic) conversion, as CPython's pre-check does: `str(1 << 10**7)` must not take
/// seconds to say no.
pub fn bigint_to_decimal(value: &BigInt) -> OpResult<String> {
    let limit = max_str_digits();
    let too_long = || {
        OpError::value(format!(
            "Exceeds the limit ({limit} digits) for integer string conversion; \
             use sys.set_int_max_str_digits() to increase the limit"
        ))
    };
    let max_bits = (limit as u64 * 3322).div_ceil(1000) + 1;
    if limit > 0 && value.bits() > max_bits {
        return Err(too_long());
    }
    let text = value.to_string();
    let digits = text.trim_start_matches('-').len();
    if limit > 0 && digits > limit {
        return Err(too_long());
    }
    Ok(text)
}

/// Apply an `i64` operation, falling back to `BigInt` on overflow.
fn small_or_big(
    a: &Int,
    b: &Int,
    small: impl Fn(i64, i64) -> Option<i64>,
    big: impl Fn(&BigInt, &BigInt) -> BigInt,
) -> Int {
    if let (Int::Small(x), Int::Small(y)) = (a, b)
        && let Some(result) = small(*x, *y)
    {
        return Int::Small(result);
    }
    Int::from(big(&a.to_bigint(), &b.to_bigint()))
}

pub fn add(a: &Int, b: &Int) -> Int {
    small_or_big(a, b, i64::checked_add, |x, y| x + y)
}

pub fn sub(a: &Int, b: &Int) -> Int {
    small_or_big(a, b, i64::checked_sub, |x, y| x - y)
}

pub fn mul(a: &Int, b: &Int) -> Int {
    small_or_big(a, b, i64::checked_mul, |x, y| x * y)
}

/// `a * b` as the program asks for it: `MemoryError` for a product too big to make
/// (repeated squaring, `x *= x`), where CPython's allocation would fail.
pub fn product(a: &Int, b: &Int) -> OpResult<Int> {
    if let (Int::Small(x), Int::Small(y)) = (a, b)
        && let Some(result) = x.checked_mul(*y)
    {
        return Ok(Int::Small(result));
    }
    check_result_bits(a.bit_length() + b.bit_length())?;
    Ok(mul(a, b))
}

pub fn neg(a: &Int) -> Int {
    match a {
        Int::Small(v) if *v != i64::MIN => Int::Small(-v),
        _ => Int::from(-a.to_bigint()),
    }
}

pub fn abs(a: &Int) -> Int {
    if a.is_negative() { neg(a) } else { a.clone() }
}

/// `a // b`, rounding toward negative infinity.
pub fn floor_div(a: &Int, b: &Int) -> OpResult<Int> {
    if b.is_zero() {
        return Err(OpError::zero_division("integer division or modulo by zero"));
    }
    Ok(small_or_big(a, b, floor_div_i64, Integer::div_floor))
}

/// `a % b`, with the sign of `b`.
pub fn modulo(a: &Int, b: &Int) -> OpResult<Int> {
    if b.is_zero() {
        return Err(OpError::zero_division("integer modulo by zero"));
    }
    Ok(small_or_big(a, b, floor_mod_i64, Integer::mod_floor))
}

/// `x // y` on `i64`, `None` on overflow or a zero divisor.
fn floor_div_i64(x: i64, y: i64) -> Option<i64> {
    let quotient = x.checked_div(y)?;
    let inexact = x % y != 0;
    Some(if inexact && ((x < 0) != (y < 0)) {
        quotient - 1
    } else {
        quotient
    })
}

/// `x % y` on `i64` with the sign of `y`, `None` on overflow or a zero divisor.
fn floor_mod_i64(x: i64, y: i64) -> Option<i64> {
    let remainder = x.checked_rem(y)?;
    Some(if remainder != 0 && ((remainder < 0) != (y < 0)) {
        remainder + y
    } else {
        remainder
    })
}

/// `divmod(a, b)`.
pub fn divmod(a: &Int, b: &Int) -> OpResult<(Int, Int)> {
    if b.is_zero() {
        return Err(OpError::zero_division("integer division or modulo by zero"));
    }
    Ok((floor_div(a, b)?, modulo(a, b)?))
}

/// `a / b` for ints: the correctly rounded quotient, as `long_true_divide`.
pub fn true_div(a: &Int, b: &Int) -> OpResult<f64> {
    if b.is_zero() {
        return Err(OpError::zero_division("division by zero"));
    }
    if let (Int::Small(x), Int::Small(y)) = (a, b)
        && x.unsigned_abs() <= 1 << 53
        && y.unsigned_abs() <= 1 << 53
    {
        return Ok(*x as f64 / *y as f64);
    }
    ratio_to_f64(&a.to_bigint(), &b.to_bigint())
        .ok_or_else(|| OpError::overflow("integer division result too large for a float"))
}

/// The nearest `f64` to `n / d` (`d != 0`), ties to even, or `None` if it overflows.
fn ratio_to_f64(n: &BigInt, d: &BigInt) -> Option<f64> {
    let negative = n.is_negative() != d.is_negative();
    let (n, d) = (n.abs(), d.abs());
    if n.is_zero() {
        return Some(if negative { -0.0 } else { 0.0 });
    }
    // Scale so the integer quotient has at least 55 bits, then keep a sticky bit.
    let shift = 55 + d.bits() as i64 - n.bits() as i64;
    let (scaled_n, scaled_d) = if shift >= 0 {
        (n << shift as usize, d)
    } else {
        (n, d << (-shift) as usize)
    };
    let (quotient, remainder) = scaled_n.div_rem(&scaled_d);
    let length = quotient.bits() as i64;
    // value = quotient * 2^-shift; the least significant kept bit is 2^(drop - shift).
    let drop = (length - 53).max(-1074 + shift);
    let mut mantissa = &quotient >> drop as usize;
    let dropped = &quotient - (&mantissa << drop as usize);
    let half = BigInt::one() << (drop as usize).saturating_sub(1);
    let above_half = match dropped.cmp(&half) {
        Ordering::Greater => true,
        Ordering::Equal if drop > 0 => !remainder.is_zero() || mantissa.is_odd(),
        _ => false,
    };
    if drop > 0 && above_half {
        mantissa += 1;
    }
    let exponent = drop - shift;
    if mantissa.bits() as i64 + exponent > 1024 {
        return None;
    }
    let mantissa = mantissa.to_f64()?;
    let value = scale_by_power_of_two(mantissa, exponent);
    if value.is_infinite() {
        return None;
    }
    Some(if negative { -value } else { value })
}

/// `x * 2^exponent` in steps that never overflow or underflow an intermediate.
fn scale_by_power_of_two(mut x: f64, mut exponent: i64) -> f64 {
    while exponent > 1000 {
        x *= 2f64.powi(1000);
        exponent -= 1000;
    }
    while exponent < -1000 {
        x *= 2f64.powi(-1000);
        exponent += 1000;
    }
    x * 2f64.powi(exponent as i32)
}

/// `a ** b`: an int for `b >= 0`, otherwise the float power.
pub fn pow(a: &Int, b: &Int) -> OpResult<IntOrFloat> {
    if b.is_negative() {
        return float_pow(a.to_f64()?, b.to_f64()?).map(IntOrFloat::Float);
    }
    if let (Int::Small(x), Int::Small(y)) = (a, b)
        && let Ok(y) = u32::try_from(*y)
        && let Some(result) = x.checked_pow(y)
    {
        return Ok(IntOrFloat::Int(Int::Small(result)));
    }
    let base = a.to_bigint();
    if base.is_zero() || base.is_one() {
        return Ok(IntOrFloat::Int(a.clone()));
    }
    if base == BigInt::from(-1) {
        let odd = match b {
            Int::Small(y) => y % 2 != 0,
            Int::Big(y) => y.is_odd(),
        };
        return Ok(IntOrFloat::Int(Int::Small(if odd { -1 } else { 1 })));
    }
    let Some(e) = b.as_i64().and_then(|e| u32::try_from(e).ok()) else {
        return Err(no_memory());
    };
    check_result_bits(u64::from(e).saturating_mul(base.bits()))?;
    Ok(IntOrFloat::Int(Int::from(num_traits::Pow::pow(&base, e))))
}

/// Three-argument `pow(a, b, m)`, including modular inverses for negative `b`.
pub fn pow_mod(a: &Int, b: &Int, m: &Int) -> OpResult<Int> {
    if m.is_zero() {
        return Err(OpError::value("pow() 3rd argument cannot be 0"));
    }
    let modulus = m.to_bigint();
    let abs_mod = modulus.abs();
    let mut base = a.to_bigint().mod_floor(&abs_mod);
    let mut exponent = b.to_bigint();
    if exponent.is_negative() {
        base = mod_inverse(&base, &abs_mod)
            .ok_or_else(|| OpError::value("base is not invertible for the given modulus"))?;
        exponent = -exponent;
    }
    let mut result = base.modpow(&exponent, &abs_mod);
    if modulus.is_negative() && !result.is_zero() {
        result += &modulus;
    }
    Ok(Int::from(result))
}

/// The inverse of `a` modulo `m` (`m > 0`), if `gcd(a, m) == 1`.
fn mod_inverse(a: &BigInt, m: &BigInt) -> Option<BigInt> {
    let extended = a.extended_gcd(m);
    extended.gcd.is_one().then(|| extended.x.mod_floor(m))
}

/// `a << n`.
pub fn lshift(a: &Int, n: &Int) -> OpResult<Int> {
    if n.is_negative() {
        return Err(OpError::value("negative shift count"));
    }
    if a.is_zero() {
        return Ok(Int::Small(0));
    }
    // As `long_lshift`: an OverflowError when the result has more than MAX_LONG_DIGITS
    // 30-bit digits (python3.13: `1 << 30 * (MAX_LONG_DIGITS - 1)` is a MemoryError, one
    // more an OverflowError), else a MemoryError past what can be allocated.
    let count = match n {
        Int::Small(n) => *n as u128,
        Int::Big(n) => n.to_u128().unwrap_or(u128::MAX),
    };
    let digits = u128::from(a.bit_length().div_ceil(30));
    if digits + count / 30 + u128::from(count % 30 != 0) > MAX_LONG_DIGITS {
        return Err(OpError::overflow("too many digits in integer"));
    }
    let bits = count + u128::from(a.bit_length());
    check_result_bits(u64::try_from(bits).unwrap_or(u64::MAX))?;
    let count = count as u64;
    if let Int::Small(x) = a
        && count < 63
        && let Some(result) = x.checked_mul(1 << count)
    {
        return Ok(Int::Small(result));
    }
    Ok(Int::from(a.to_bigint() << count as usize))
}

/// `a >> n`, rounding toward negative infinity.
pub fn rshift(a: &Int, n: &Int) -> OpResult<Int> {
    if n.is_negative() {
        return Err(OpError::value("negative shift count"));
    }
    let all_gone = Int::Small(if a.is_negative() { -1 } else { 0 });
    let Some(count) = n.as_i64().filter(|n| (*n as u64) < a.bit_length() + 1) else {
        return Ok(all_gone);
    };
    Ok(match a {
        Int::Small(x) => Int::Small(x >> count.min(63)),
        Int::Big(x) => Int::from(x >> count as usize),
    })
}

pub fn bit_and(a: &Int, b: &Int) -> Int {
    small_or_big(a, b, |x, y| Some(x & y), |x, y| x & y)
}

pub fn bit_or(a: &Int, b: &Int) -> Int {
    small_or_big(a, b, |x, y| Some(x | y), |x, y| x | y)
}

pub fn bit_xor(a: &Int, b: &Int) -> Int {
    small_or_big(a, b, |x, y| Some(x ^ y), |x, y| x ^ y)
}

/// `~a == -(a + 1)`.
pub fn invert(a: &Int) -> Int {
    match a {
        Int::Small(x) => Int::Small(!x),
        Int::Big(x) => Int::from(-(x + BigInt::one())),
    }
}

/// `int(text, base)` exactly as `PyLong_FromString`: surrounding whitespace, a sign, a
/// `0x`/`0o`/`0b` prefix (required to pick the base when `base == 0`, optional when it
/// matches), single `_` between digits or after the prefix, any Unicode decimal digit.
pub fn parse_int(text: &str, base: u32) -> OpResult<Int> {
    if base == 1 || base > 36 {
        return Err(OpError::value("int() base must be >= 2 and <= 36, or 0"));
    }
    let invalid = || {
        OpError::value(format!(
            "invalid literal for int() with base {base}: {}",
            str_repr(text)
        ))
    };
    let trimmed = text.trim_matches(is_python_whitespace);
    let (negative, unsigned) = match trimmed.as_bytes().first() {
        Some(b'-') => (true, &trimmed[1..]),
        Some(b'+') => (false, &trimmed[1..]),
        _ => (false, trimmed),
    };
    let prefix_base = match unsigned.get(..2).map(str::to_ascii_lowercase).as_deref() {
        Some("0x") => Some(16),
        Some("0o") => Some(8),
        Some("0b") => Some(2),
        _ => None,
    };
    let (radix, body, after_prefix) = match (base, prefix_base) {
        (0, Some(p)) => (p, &unsigned[2..], true),
        (0, None) => (10, unsigned, false),
        (b, Some(p)) if b == p => (b, &unsigned[2..], true),
        (b, _) => (b, unsigned, false),
    };
    let mut digits = String::with_capacity(body.len());
    let mut underscore_allowed = after_prefix;
    for c in body.chars() {
        if c == '_' {
            if !underscore_allowed {
                return Err(invalid());
            }
            underscore_allowed = false;
            continue;
        }
        let digit = decimal_digit_value(c)
            .or_else(|| c.to_digit(36))
            .filter(|d| *d < radix);
        let Some(digit) = digit else {
            return Err(invalid());
        };
        digits.push(std::char::from_digit(digit, radix).unwrap_or('0'));
        underscore_allowed = true;
    }
    if digits.is_empty() || body.ends_with('_') {
        return Err(invalid());
    }
    // Base 0 forbids leading zeros in a non-zero decimal literal ("010").
    if base == 0 && !after_prefix && digits.starts_with('0') && digits.bytes().any(|d| d != b'0') {
        return Err(invalid());
    }
    let limit = max_str_digits();
    if radix == 10 && limit > 0 && digits.len() > limit {
        return Err(OpError::value(format!(
            "Exceeds the limit ({limit} digits) for integer string conversion: value has \
             {} digits; use sys.set_int_max_str_digits() to increase the limit",
            digits.len()
        )));
    }
    let magnitude = BigInt::parse_bytes(digits.as_bytes(), radix).ok_or_else(invalid)?;
    Ok(Int::from(if negative { -magnitude } else { magnitude }))
}

/// `int(x)` for a float: truncation toward zero.
pub fn float_to_int(x: f64) -> OpResult<Int> {
    if x.is_nan() {
        return Err(OpError::value("cannot convert float NaN to integer"));
    }
    if x.is_infinite() {
        return Err(OpError::overflow(
            "cannot convert float infinity to integer",
        ));
    }
    let truncated = x.trunc();
    if truncated.abs() < 9.2e18 {
        return Ok(Int::Small(truncated as i64));
    }
    Ok(Int::from(BigInt::from_f64(truncated).unwrap_or_default()))
}

/// `round(n, ndigits)` for ints: unchanged for `ndigits >= 0`, else to a multiple of
/// `10**-ndigits`, ties to even.
pub fn round_int(n: &Int, ndigits: &Int) -> Int {
    if !ndigits.is_negative() {
        return n.clone();
    }
    let places = ndigits.as_i64().map(i64::unsigned_abs).unwrap_or(u64::MAX);
    if places > n.to_string().len() as u64 {
        return Int::Small(0);
    }
    let unit = num_traits::Pow::pow(BigInt::from(10), places as u32);
    let rounded = round_half_even_div(&n.to_bigint(), &unit) * unit;
    Int::from(rounded)
}

/// `n / d` (`d > 0`) rounded to the nearest integer, ties to even.
fn round_half_even_div(n: &BigInt, d: &BigInt) -> BigInt {
    let (quotient, remainder) = n.div_mod_floor(d);
    let twice: BigInt = remainder * 2;
    match twice.cmp(d) {
        Ordering::Greater => quotient + 1,
        Ordering::Equal if quotient.is_odd() => quotient + 1,
        _ => quotient,
    }
}

/// `round(x)` for a float: the nearest int, ties to even.
pub fn round_float_to_int(x: f64) -> OpResult<Int> {
    let rounded = x.round_ties_even();
    float_to_int(rounded)
}

/// `round(x, ndigits)` for a float, correctly rounded on the exact binary value like
/// CPython's dtoa-based `double_round`.
pub fn round_float(x: f64, ndigits: i64) -> OpResult<f64> {
    // CPython's NDIGITS_MAX / NDIGITS_MIN: beyond them the answer is x or a signed zero.
    if !x.is_finite() || ndigits > 323 {
        return Ok(x);
    }
    if ndigits < -308 {
        return Ok(0.0 * x);
    }
    let rounded = if ndigits >= 0 {
        format!("{x:.0$}", ndigits as usize)
            .parse::<f64>()
            .unwrap_or(x)
    } else {
        let (numerator, denominator) = exact_ratio(x);
        let unit = num_traits::Pow::pow(BigInt::from(10), ndigits.unsigned_abs() as u32);
        let multiple = round_half_even_div(&numerator, &(denominator * &unit)) * unit;
        ratio_to_f64(&multiple, &BigInt::one()).unwrap_or(f64::INFINITY)
    };
    if rounded.is_infinite() {
        return Err(OpError::overflow("rounded value too large to represent"));
    }
    // Keep the sign of zero: round(-0.4, 0) == -0.0.
    Ok(if rounded == 0.0 {
        0.0f64.copysign(x)
    } else {
        rounded
    })
}

/// A finite float as an exact fraction `numerator / denominator` (denominator a power of 2).
fn exact_ratio(x: f64) -> (BigInt, BigInt) {
    let bits = x.to_bits();
    let exponent_bits = ((bits >> 52) & 0x7ff) as i64;
    let fraction = bits & ((1 << 52) - 1);
    let (mantissa, exponent) = if exponent_bits == 0 {
        (fraction, -1074)
    } else {
        (fraction | (1 << 52), exponent_bits - 1075)
    };
    let mut numerator = BigInt::from(mantissa);
    if x.is_sign_negative() {
        numerator = -numerator;
    }
    if exponent >= 0 {
        (numerator << exponent as usize, BigInt::one())
    } else {
        (numerator, BigInt::one() << (-exponent) as usize)
    }
}

/// `x.as_integer_ratio()`: the exact value as a fraction in lowest terms.
pub fn float_as_integer_ratio(x: f64) -> OpResult<(Int, Int)> {
    if x.is_nan() {
        return Err(OpError::value("cannot convert NaN to integer ratio"));
    }
    if x.is_infinite() {
        return Err(OpError::overflow(
            "cannot convert Infinity to integer ratio",
        ));
    }
    let (numerator, denominator) = exact_ratio(x);
    let divisor = numerator.gcd(&denominator);
    if divisor.is_zero() {
        return Ok((Int::Small(0), Int::Small(1)));
    }
    Ok((
        Int::from(numerator / &divisor),
        Int::from(denominator / divisor),
    ))
}

/// `x.hex()`: `[-]0x1.<13 hex digits>p<exp>`, `0x0.<digits>p-1022` for subnormals.
pub fn float_hex(x: f64) -> String {
    if x.is_nan() {
        return "nan".to_string();
    }
    if x.is_infinite() {
        return if x > 0.0 { "inf" } else { "-inf" }.to_string();
    }
    let sign = if x.is_sign_negative() { "-" } else { "" };
    if x == 0.0 {
        return format!("{sign}0x0.0p+0");
    }
    let bits = x.to_bits();
    let exponent_bits = ((bits >> 52) & 0x7ff) as i64;
    let fraction = bits & ((1 << 52) - 1);
    let (lead, exponent) = if exponent_bits == 0 {
        (0, -1022)
    } else {
        (1, exponent_bits - 1023)
    };
    let exponent_sign = if exponent < 0 { '-' } else { '+' };
    format!(
        "{sign}0x{lead}.{fraction:013x}p{exponent_sign}{}",
        exponent.unsigned_abs()
    )
}

/// `float.fromhex(s)`: `[sign][0x]digits[.digits][p[sign]exponent]` (or `inf`/`nan`)
/// rounded to the nearest double, ties to even, subnormals included; CPython's
/// `float_fromhex` messages.
pub fn float_from_hex(s: &str) -> OpResult<f64> {
    const INVALID: &str = "invalid hexadecimal floating-point string";
    let invalid = || OpError::value(INVALID);
    let text = s.trim_matches([' ', '\t', '\n', '\x0b', '\x0c', '\r']);
    let (negative, text) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    let signed = |x: f64| if negative { -x } else { x };
    let lower = text.to_ascii_lowercase();
    match lower.as_str() {
        "inf" | "infinity" => return Ok(signed(f64::INFINITY)),
        "nan" => return Ok(signed(f64::NAN)),
        _ => {}
    }
    let body = lower.strip_prefix("0x").unwrap_or(&lower);
    let (digits, exponent) = match body.split_once('p') {
        Some((digits, exponent)) => (digits, Some(exponent)),
        None => (body, None),
    };
    let (whole, fraction) = digits.split_once('.').unwrap_or((digits, ""));
    let is_hex = |part: &str| part.bytes().all(|b| b.is_ascii_hexdigit());
    if whole.len() + fraction.len() == 0 || !is_hex(whole) || !is_hex(fraction) {
        return Err(invalid());
    }
    // The binary exponent: a decimal integer, its size clamped (far past any double).
    let mut exp2: i64 = match exponent {
        None => 0,
        Some(e) => {
            let magnitude = e.strip_prefix(['+', '-']).unwrap_or(e);
            if magnitude.is_empty() || !magnitude.bytes().all(|b| b.is_ascii_digit()) {
                return Err(invalid());
            }
            let value = magnitude
                .parse::<i64>()
                .unwrap_or(i64::MAX / 4)
                .min(i64::MAX / 4);
            if e.starts_with('-') { -value } else { value }
        }
    };
    exp2 -= 4 * fraction.len().min(i64::MAX as usize / 8) as i64;
    // The significand: its first 120 bits exactly, the rest only as a sticky bit.
    let mut mantissa: u128 = 0;
    let mut sticky = false;
    for digit in whole.bytes().chain(fraction.bytes()) {
        let value = (digit as char).to_digit(16).unwrap_or(0) as u128;
        if mantissa >> 116 == 0 {
            mantissa = mantissa << 4 | value;
        } else {
            sticky |= value != 0;
            exp2 += 4;
        }
    }
    if mantissa == 0 {
        return Ok(signed(0.0));
    }
    let top = i64::from(127 - mantissa.leading_zeros() as i32) + exp2;
    if top > 1023 {
        return Err(OpError::overflow(
            "hexadecimal value too large to represent as a float",
        ));
    }
    // The weight of the last bit the double keeps: 53 bits, or fewer below the normals.
    let lsb = (top - 52).max(-1074);
    let shift = lsb - exp2;
    // Round the bits below `lsb` off, half to even (the significand has under 121 bits,
    // so dropping more leaves less than half of the last bit kept: zero).
    let kept = match shift {
        ..=0 => mantissa << (-shift) as u32,
        1..=120 => {
            let kept = mantissa >> shift as u32;
            let dropped = mantissa & ((1u128 << shift) - 1);
            let half = 1u128 << (shift - 1);
            let up = dropped > half || (dropped == half && (sticky || kept & 1 == 1));
            kept + u128::from(up)
        }
        _ => 0,
    };
    // Rounding up may carry into a 54th bit, and that past the largest double.
    if kept >> 53 != 0 && lsb + 53 > 1023 {
        return Err(OpError::overflow(
            "hexadecimal value too large to represent as a float",
        ));
    }
    // Exact: `kept` has at most 53 bits, and a subnormal is scaled in two steps.
    let value = match lsb {
        -1022.. => kept as f64 * 2f64.powi(lsb as i32),
        _ => kept as f64 * 2f64.powi((lsb + 1022) as i32) * 2f64.powi(-1022),
    };
    Ok(signed(value))
}

/// `x / y` for floats.
pub fn float_true_div(x: f64, y: f64) -> OpResult<f64> {
    if y == 0.0 {
        return Err(OpError::zero_division("float division by zero"));
    }
    Ok(x / y)
}

/// `divmod(x, y)` for floats, as `float_divmod` (quotient snapped to an integral value,
/// remainder with the sign of `y`).
pub fn float_divmod(x: f64, y: f64) -> OpResult<(f64, f64)> {
    if y == 0.0 {
        return Err(OpError::zero_division("float divmod()"));
    }
    Ok(float_divmod_unchecked(x, y))
}

fn float_divmod_unchecked(x: f64, y: f64) -> (f64, f64) {
    let mut remainder = x % y;
    let mut quotient = (x - remainder) / y;
    if remainder != 0.0 {
        if (y < 0.0) != (remainder < 0.0) {
            remainder += y;
            quotient -= 1.0;
        }
    } else {
        remainder = 0.0f64.copysign(y);
    }
    let floor_quotient = if quotient != 0.0 {
        let floored = quotient.floor();
        if quotient - floored > 0.5 {
            floored + 1.0
        } else {
            floored
        }
    } else {
        0.0f64.copysign(x / y)
    };
    (floor_quotient, remainder)
}

/// `x // y` for floats.
pub fn float_floor_div(x: f64, y: f64) -> OpResult<f64> {
    if y == 0.0 {
        return Err(OpError::zero_division("float floor division by zero"));
    }
    Ok(float_divmod_unchecked(x, y).0)
}

/// `x % y` for floats, as `float_rem`: the sign of `y`.
pub fn float_mod(x: f64, y: f64) -> OpResult<f64> {
    if y == 0.0 {
        return Err(OpError::zero_division("float modulo by zero"));
    }
    let remainder = x % y;
    Ok(if remainder == 0.0 {
        0.0f64.copysign(y)
    } else if (y < 0.0) != (remainder < 0.0) {
        remainder + y
    } else {
        remainder
    })
}

/// Whether `x ** y` is a complex: a negative finite base and a fractional finite exponent
/// (`float_pow` hands those to complex's power; [`float_pow`] does not take them).
pub fn float_pow_is_complex(x: f64, y: f64) -> bool {
    x < 0.0 && x.is_finite() && y.is_finite() && y.fract() != 0.0
}

/// `x ** y` for floats, with `float_pow`'s errors, when it is not a complex
/// ([`float_pow_is_complex`]).
pub fn float_pow(x: f64, y: f64) -> OpResult<f64> {
    if x == 0.0 && y < 0.0 && y.is_finite() {
        return Err(OpError::zero_division(
            "0.0 cannot be raised to a negative power",
        ));
    }
    let result = x.powf(y);
    if result.is_infinite() && x.is_finite() && y.is_finite() {
        return Err(OpError::overflow("(34, 'Numerical result out of range')"));
    }
    Ok(result)
}

/// `float(text)` as `PyFloat_FromString`: whitespace, sign, `inf`/`infinity`/`nan` in any
/// case, decimal digits with single `_` between digits, optional fraction and exponent.
pub fn parse_float(text: &str) -> OpResult<f64> {
    let invalid = || {
        OpError::value(format!(
            "could not convert string to float: {}",
            str_repr(text)
        ))
    };
    // Like `_PyUnicode_TransformDecimalAndSpaceToASCII`: any decimal digit counts.
    let ascii: String = text
        .chars()
        .map(|c| match decimal_digit_value(c) {
            Some(digit) if !c.is_ascii() => char::from_digit(digit, 10).unwrap_or(c),
            _ => c,
        })
        .collect();
    let trimmed = ascii.trim_matches(is_python_whitespace);
    let unsigned = trimmed.strip_prefix(['+', '-']).unwrap_or(trimmed);
    let negative = trimmed.starts_with('-');
    let special = match unsigned.to_ascii_lowercase().as_str() {
        "inf" | "infinity" => Some(f64::INFINITY),
        "nan" => Some(f64::NAN),
        _ => None,
    };
    if let Some(value) = special {
        return Ok(if negative { -value } else { value });
    }
    if !is_float_literal(unsigned) {
        return Err(invalid());
    }
    let cleaned: String = trimmed.chars().filter(|c| *c != '_').collect();
    cleaned.parse::<f64>().map_err(|_| invalid())
}

/// `digits [. digits] [e [sign] digits]` or `. digits ...`, where each digit run may hold
/// single underscores between digits.
fn is_float_literal(text: &str) -> bool {
    let (mantissa, exponent) = match text.find(['e', 'E']) {
        Some(at) => (&text[..at], Some(&text[at + 1..])),
        None => (text, None),
    };
    let (int_part, frac_part) = match mantissa.split_once('.') {
        Some((i, f)) => (i, Some(f)),
        None => (mantissa, None),
    };
    let digit_run = |run: &str| {
        !run.is_empty()
            && !run.starts_with('_')
            && !run.ends_with('_')
            && !run.contains("__")
            && run.chars().all(|c| c.is_ascii_digit() || c == '_')
    };
    let mantissa_ok = match frac_part {
        None => digit_run(int_part),
        Some(frac) => {
            (int_part.is_empty() || digit_run(int_part))
                && (frac.is_empty() || digit_run(frac))
                && !(int_part.is_empty() && frac.is_empty())
        }
    };
    let exponent_ok = exponent.is_none_or(|e| digit_run(e.strip_prefix(['+', '-']).unwrap_or(e)));
    mantissa_ok && exponent_ok
}

#[cfg(test)]
mod tests {
    use super::*;

    fn int(v: i64) -> Int {
        Int::Small(v)
    }

    fn big(text: &str) -> Int {
        Int::from(BigInt::parse_bytes(text.as_bytes(), 10).unwrap())
    }

    fn message<T: std::fmt::Debug>(result: OpResult<T>) -> String {
        result.unwrap_err().to_string()
    }

    #[test]
    fn floor_division_and_modulo_signs() {
        // python3.13: (-7)//2, -7%2, 7%-2, divmod(-7,2), -2**63//-1, (2**64)%(-3)
        assert_eq!(floor_div(&int(-7), &int(2)).unwrap(), int(-4));
        assert_eq!(modulo(&int(-7), &int(2)).unwrap(), int(1));
        assert_eq!(modulo(&int(7), &int(-2)).unwrap(), int(-1));
        assert_eq!(divmod(&int(-7), &int(2)).unwrap(), (int(-4), int(1)));
        assert_eq!(
            floor_div(&int(i64::MIN), &int(-1)).unwrap(),
            big("9223372036854775808")
        );
        assert_eq!(
            modulo(&big("18446744073709551616"), &int(-3)).unwrap(),
            int(-2)
        );
        assert_eq!(
            message(floor_div(&int(1), &int(0))),
            "ZeroDivisionError: integer division or modulo by zero"
        );
        assert_eq!(
            message(modulo(&int(1), &int(0))),
            "ZeroDivisionError: integer modulo by zero"
        );
    }

    #[test]
    fn true_division_is_correctly_rounded() {
        // python3.13: 2**1000/3, (10**400)/(10**399), (2**53+1)/1, 10**400/1
        let two_1000 = Int::from(BigInt::one() << 1000);
        assert_eq!(
            true_div(&two_1000, &int(3)).unwrap(),
            3.5716953572875575e+300
        );
        let ten_400 = Int::from(num_traits::Pow::pow(BigInt::from(10), 400u32));
        let ten_399 = Int::from(num_traits::Pow::pow(BigInt::from(10), 399u32));
        assert_eq!(true_div(&ten_400, &ten_399).unwrap(), 10.0);
        assert_eq!(
            true_div(&int((1 << 53) + 1), &int(1)).unwrap(),
            9007199254740992.0
        );
        assert_eq!(
            message(true_div(&ten_400, &int(1))),
            "OverflowError: integer division result too large for a float"
        );
        assert_eq!(
            message(true_div(&int(1), &int(0))),
            "ZeroDivisionError: division by zero"
        );
        // float(2**1024) overflows; 1/10**400 underflows to 0.0.
        let two_1024 = Int::from(BigInt::one() << 1024);
        assert_eq!(
            message(two_1024.to_f64()),
            "OverflowError: int too large to convert to float"
        );
        assert_eq!(true_div(&int(1), &ten_400).unwrap(), 0.0);
    }

    #[test]
    fn powers() {
        // python3.13: 2**-2, (-2)**-3, 0**-1, 2**63, pow(3,-1,7), pow(2,-1,4), pow(-2,3,5),
        // pow(5,2,-7), pow(2,3,0)
        assert_eq!(pow(&int(2), &int(-2)).unwrap(), IntOrFloat::Float(0.25));
        assert_eq!(pow(&int(-2), &int(-3)).unwrap(), IntOrFloat::Float(-0.125));
        assert_eq!(
            message(pow(&int(0), &int(-1))),
            "ZeroDivisionError: 0.0 cannot be raised to a negative power"
        );
        assert_eq!(
            pow(&int(2), &int(63)).unwrap(),
            IntOrFloat::Int(big("9223372036854775808"))
        );
        assert_eq!(pow_mod(&int(3), &int(-1), &int(7)).unwrap(), int(5));
        assert_eq!(
            message(pow_mod(&int(2), &int(-1), &int(4))),
            "ValueError: base is not invertible for the given modulus"
        );
        assert_eq!(pow_mod(&int(-2), &int(3), &int(5)).unwrap(), int(2));
        assert_eq!(pow_mod(&int(5), &int(2), &int(-7)).unwrap(), int(-3));
        assert_eq!(
            message(pow_mod(&int(2), &int(3), &int(0))),
            "ValueError: pow() 3rd argument cannot be 0"
        );
    }

    #[test]
    fn shifts_and_bits() {
        // python3.13: -5>>1, ~5, -5&3, -5|3, -5^3, 1<<-1, 1<<100, -(2**100)>>99
        assert_eq!(rshift(&int(-5), &int(1)).unwrap(), int(-3));
        assert_eq!(rshift(&int(-5), &int(1000)).unwrap(), int(-1));
        assert_eq!(invert(&int(5)), int(-6));
        assert_eq!(bit_and(&int(-5), &int(3)), int(3));
        assert_eq!(bit_or(&int(-5), &int(3)), int(-5));
        assert_eq!(bit_xor(&int(-5), &int(3)), int(-8));
        assert_eq!(
            message(lshift(&int(1), &int(-1))),
            "ValueError: negative shift count"
        );
        assert_eq!(
            message(rshift(&int(1), &int(-1))),
            "ValueError: negative shift count"
        );
        assert_eq!(
            lshift(&int(1), &int(100)).unwrap(),
            big("1267650600228229401496703205376")
        );
        let minus_2_100 = big("-1267650600228229401496703205376");
        assert_eq!(rshift(&minus_2_100, &int(99)).unwrap(), int(-2));
        assert_eq!(
            message(lshift(&int(1), &big("1180591620717411303424"))),
            "OverflowError: too many digits in integer"
        );
        assert_eq!(message(lshift(&int(1), &int(1 << 40))), "MemoryError: ");
    }

    #[test]
    fn radix_strings() {
        // python3.13: hex(-255), bin(-5), oct(8), hex(0)
        assert_eq!(int(-255).to_radix(16, true), "-0xff");
        assert_eq!(int(-5).to_radix(2, true), "-0b101");
        assert_eq!(int(8).to_radix(8, true), "0o10");
        assert_eq!(int(0).to_radix(16, true), "0x0");
        let too_long = Int::from(num_traits::Pow::pow(BigInt::from(10), 5000u32));
        assert!(
            message(too_long.to_decimal())
                .starts_with("ValueError: Exceeds the limit (4300 digits)")
        );
    }

    #[test]
    fn int_from_string() {
        // python3.13 outputs for int(text, base)
        assert_eq!(parse_int(" 0x1f ", 0).unwrap(), int(31));
        assert_eq!(parse_int("00", 0).unwrap(), int(0));
        assert_eq!(parse_int("0x_ff", 16).unwrap(), int(255));
        assert_eq!(parse_int("z", 36).unwrap(), int(35));
        assert_eq!(parse_int("  -1_000  ", 10).unwrap(), int(-1000));
        assert_eq!(parse_int("0b101", 0).unwrap(), int(5));
        assert_eq!(parse_int("0b101", 16).unwrap(), int(45313));
        assert_eq!(parse_int("0b101", 2).unwrap(), int(5));
        assert_eq!(parse_int("١٢٣", 10).unwrap(), int(123));
        assert_eq!(parse_int(" \u{3000} 7 ", 10).unwrap(), int(7));
        assert_eq!(parse_int("-0", 10).unwrap(), int(0));
        for (text, base) in [
            ("12x", 10),
            ("010", 0),
            ("1__0", 10),
            ("_1", 10),
            ("1_", 10),
            ("+ 1", 10),
            ("", 10),
        ] {
            assert_eq!(
                message(parse_int(text, base)),
                format!(
                    "ValueError: invalid literal for int() with base {base}: {}",
                    str_repr(text)
                )
            );
        }
        assert_eq!(
            message(parse_int("z", 37)),
            "ValueError: int() base must be >= 2 and <= 36, or 0"
        );
        assert!(message(parse_int(&"1".repeat(5000), 10)).contains("value has 5000 digits"));
    }

    #[test]
    fn float_to_int_conversions() {
        // python3.13: int(1e20), int(-2.7), int(inf), int(nan), round(2.5), round(-2.5), round(3.5)
        assert_eq!(float_to_int(1e20).unwrap(), big("100000000000000000000"));
        assert_eq!(float_to_int(-2.7).unwrap(), int(-2));
        assert_eq!(
            message(float_to_int(f64::INFINITY)),
            "OverflowError: cannot convert float infinity to integer"
        );
        assert_eq!(
            message(float_to_int(f64::NAN)),
            "ValueError: cannot convert float NaN to integer"
        );
        assert_eq!(round_float_to_int(2.5).unwrap(), int(2));
        assert_eq!(round_float_to_int(-2.5).unwrap(), int(-2));
        assert_eq!(round_float_to_int(3.5).unwrap(), int(4));
    }

    #[test]
    fn rounding_with_ndigits() {
        // python3.13: round(25,-1), round(35,-1), round(-25,-1), round(5,2), round(2.675,2),
        // round(25.3,-1), round(123.456,-2), round(0.5,0), round(-0.0,1), round(1e300,-300),
        // round(1.5e308,-308)
        assert_eq!(round_int(&int(25), &int(-1)), int(20));
        assert_eq!(round_int(&int(35), &int(-1)), int(40));
        assert_eq!(round_int(&int(-25), &int(-1)), int(-20));
        assert_eq!(round_int(&int(5), &int(2)), int(5));
        assert_eq!(round_int(&int(5), &int(-100)), int(0));
        assert_eq!(round_float(2.675, 2).unwrap(), 2.67);
        assert_eq!(round_float(25.3, -1).unwrap(), 30.0);
        assert_eq!(round_float(123.456, -2).unwrap(), 100.0);
        assert_eq!(round_float(0.5, 0).unwrap(), 0.0);
        assert!(round_float(-0.0, 1).unwrap().is_sign_negative());
        assert_eq!(round_float(1e300, -300).unwrap(), 1e300);
        assert_eq!(
            message(round_float(1.5e308, -308)),
            "OverflowError: rounded value too large to represent"
        );
    }

    #[test]
    fn float_division_family() {
        // python3.13: 7.5//-2, 7.5%-2, -7.5%2, divmod(-7.5,2), -0.0%1, 0.0%-1,
        // (-1.0)//inf, 1.0%inf, -1.0%inf
        assert_eq!(float_floor_div(7.5, -2.0).unwrap(), -4.0);
        assert_eq!(float_mod(7.5, -2.0).unwrap(), -0.5);
        assert_eq!(float_mod(-7.5, 2.0).unwrap(), 0.5);
        assert_eq!(float_divmod(-7.5, 2.0).unwrap(), (-4.0, 0.5));
        assert!(float_mod(-0.0, 1.0).unwrap().is_sign_positive());
        assert!(float_mod(0.0, -1.0).unwrap().is_sign_negative());
        assert_eq!(float_floor_div(-1.0, f64::INFINITY).unwrap(), -1.0);
        assert_eq!(float_mod(1.0, f64::INFINITY).unwrap(), 1.0);
        assert_eq!(float_mod(-1.0, f64::INFINITY).unwrap(), f64::INFINITY);
        assert_eq!(
            message(float_floor_div(1.0, 0.0)),
            "ZeroDivisionError: float floor division by zero"
        );
        assert_eq!(
            message(float_mod(1.0, 0.0)),
            "ZeroDivisionError: float modulo by zero"
        );
        assert_eq!(
            message(float_divmod(1.0, 0.0)),
            "ZeroDivisionError: float divmod()"
        );
        assert_eq!(
            message(float_true_div(1.0, 0.0)),
            "ZeroDivisionError: float division by zero"
        );
        assert_eq!(
            message(float_pow(10.0, 400.0)),
            "OverflowError: (34, 'Numerical result out of range')"
        );
        assert_eq!(float_pow(0.0, 0.0).unwrap(), 1.0);
    }

    #[test]
    fn float_introspection() {
        // python3.13: v.hex() and v.as_integer_ratio()
        assert_eq!(float_hex(0.0), "0x0.0p+0");
        assert_eq!(float_hex(-0.0), "-0x0.0p+0");
        assert_eq!(float_hex(1.5), "0x1.8000000000000p+0");
        assert_eq!(float_hex(5e-324), "0x0.0000000000001p-1022");
        assert_eq!(float_hex(1e300), "0x1.7e43c8800759cp+996");
        assert_eq!(float_hex(-2.5), "-0x1.4000000000000p+1");
        assert_eq!(float_hex(0.1), "0x1.999999999999ap-4");
        assert_eq!(float_hex(f64::NEG_INFINITY), "-inf");
        assert_eq!(float_as_integer_ratio(-2.5).unwrap(), (int(-5), int(2)));
        assert_eq!(
            float_as_integer_ratio(0.1).unwrap(),
            (int(3602879701896397), int(36028797018963968))
        );
        assert_eq!(float_as_integer_ratio(-0.0).unwrap(), (int(0), int(1)));
        assert_eq!(
            message(float_as_integer_ratio(f64::INFINITY)),
            "OverflowError: cannot convert Infinity to integer ratio"
        );
        assert_eq!(
            message(float_as_integer_ratio(f64::NAN)),
            "ValueError: cannot convert NaN to integer ratio"
        );
    }

    #[test]
    fn float_from_string() {
        // python3.13: float('1_000.5'), float(' -Inf '), float('infinity'), float('1e5_0'),
        // float('.5'), float('5.'), float('-.5e-3'), float('1e400')
        assert_eq!(parse_float("1_000.5").unwrap(), 1000.5);
        assert_eq!(parse_float(" -Inf ").unwrap(), f64::NEG_INFINITY);
        assert_eq!(parse_float("infinity").unwrap(), f64::INFINITY);
        assert!(parse_float("nan").unwrap().is_nan());
        assert_eq!(parse_float("1e5_0").unwrap(), 1e50);
        assert_eq!(parse_float(".5").unwrap(), 0.5);
        assert_eq!(parse_float("5.").unwrap(), 5.0);
        assert_eq!(parse_float("-.5e-3").unwrap(), -0.0005);
        assert_eq!(parse_float("1e400").unwrap(), f64::INFINITY);
        assert_eq!(parse_float("١.٥").unwrap(), 1.5);
        for text in ["1_e5", "x", "", ".", "1e", "0x10", "1__0", "_1", "in f"] {
            assert_eq!(
                message(parse_float(text)),
                format!(
                    "ValueError: could not convert string to float: {}",
                    str_repr(text)
                )
            );
        }
    }
}
