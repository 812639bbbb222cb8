//! Complex numbers as plain pairs of floats: the arithmetic of `complex` (`_Py_c_sum`,
//! `_Py_c_quot`, `complex_pow` with `c_powi`/`_Py_c_pow`, `_Py_c_abs`), its `repr`, its hash
//! and `complex(str)`'s parsing. Mirrors CPython 3.13's `Objects/complexobject.c`: an int or
//! float operand is made a complex with a zero imaginary part first (3.14's mixed-mode rules
//! are not 3.13's). In: `f64`s and text; out: a [`Complex`] or the [`OpError`] CPython
//! raises. Used by the compiler (constants, `--dis`), the VM's operators and `cmath`.

use super::chars::{decimal_digit_value, is_python_whitespace, str_repr};
use super::float_repr::{FloatCode, FloatFlags, double_to_string};
use super::op_error::{OpError, OpResult};
use super::set_table::hash_float;

/// A complex number (`Py_complex`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Complex {
    pub re: f64,
    pub im: f64,
}

/// `_PyHASH_IMAG`: the multiplier of the imaginary part's hash.
const HASH_IMAG: u64 = 1_000_003;

impl std::ops::Add for Complex {
    type Output = Complex;
    fn add(self, b: Complex) -> Complex {
        Complex::new(self.re + b.re, self.im + b.im)
    }
}

impl std::ops::Sub for Complex {
    type Output = Complex;
    fn sub(self, b: Complex) -> Complex {
        Complex::new(self.re - b.re, self.im - b.im)
    }
}

impl std::ops::Neg for Complex {
    type Output = Complex;
    fn neg(self) -> Complex {
        Complex::new(-self.re, -self.im)
    }
}

/// `_Py_c_prod`.
impl std::ops::Mul for Complex {
    type Output = Complex;
    fn mul(self, b: Complex) -> Complex {
        Complex::new(
            self.re * b.re - self.im * b.im,
            self.re * b.im + self.im * b.re,
        )
    }
}

impl Complex {
    pub const fn new(re: f64, im: f64) -> Complex {
        Complex { re, im }
    }

    /// `_Py_c_quot`: Smith's algorithm (divide by the larger of `b`'s parts); None for a zero
    /// divisor (CPython's `errno = EDOM`).
    pub fn quot(self, b: Complex) -> Option<Complex> {
        let (a, abs_re, abs_im) = (self, b.re.abs(), b.im.abs());
        if abs_re >= abs_im {
            if abs_re == 0.0 {
                return None;
            }
            let ratio = b.im / b.re;
            let denom = b.re + b.im * ratio;
            Some(Complex::new(
                (a.re + a.im * ratio) / denom,
                (a.im - a.re * ratio) / denom,
            ))
        } else if abs_im >= abs_re {
            let ratio = b.re / b.im;
            let denom = b.re * ratio + b.im;
            Some(Complex::new(
                (a.re * ratio + a.im) / denom,
                (a.im * ratio - a.re) / denom,
            ))
        } else {
            // A part of `b` is a NaN.
            Some(Complex::new(f64::NAN, f64::NAN))
        }
    }

    /// `a / b` (`complex_div`).
    pub fn true_div(self, b: Complex) -> OpResult<Complex> {
        self.quot(b)
            .ok_or_else(|| OpError::zero_division("complex division by zero"))
    }

    /// `a ** b` (`complex_pow`): an integral exponent up to 100 in size by repeated squaring
    /// (`c_powi`, more accurate), any other by polar form (`_Py_c_pow`). A zero base with a
    /// negative or complex exponent is a ZeroDivisionError, an infinite part an OverflowError.
    pub fn pow(self, b: Complex) -> OpResult<Complex> {
        let result = if b.im == 0.0 && b.re == b.re.floor() && b.re.abs() <= 100.0 {
            self.powi(b.re as i64)
        } else {
            self.pow_polar(b)
        };
        let p =
            result.ok_or_else(|| OpError::zero_division("0.0 to a negative or complex power"))?;
        if p.re.is_infinite() || p.im.is_infinite() {
            return Err(OpError::overflow("complex exponentiation"));
        }
        Ok(p)
    }

    /// `c_powi`: None when a negative power of zero divides by zero.
    fn powi(self, n: i64) -> Option<Complex> {
        if n < 0 {
            Complex::new(1.0, 0.0).quot(self.powu(-n))
        } else {
            Some(self.powu(n))
        }
    }

    /// `c_powu`: binary exponentiation, the product order CPython's (`r *= p` for each set
    /// bit of `n - 1`, the first factor `x` itself), so rounding agrees.
    fn powu(self, n: i64) -> Complex {
        if n == 0 {
            return Complex::new(1.0, 0.0);
        }
        let (mut r, mut p, rest) = (self, self, n - 1);
        let mut mask: i64 = 1;
        while mask > 0 && rest >= mask {
            if rest & mask != 0 {
                r = r * p;
            }
            mask <<= 1;
            p = p * p;
        }
        r
    }

    /// `_Py_c_pow`: None for zero to a negative or complex power.
    fn pow_polar(self, b: Complex) -> Option<Complex> {
        let a = self;
        if b.re == 0.0 && b.im == 0.0 {
            return Some(Complex::new(1.0, 0.0));
        }
        if a.re == 0.0 && a.im == 0.0 {
            return (b.im == 0.0 && b.re >= 0.0).then_some(Complex::new(0.0, 0.0));
        }
        let vabs = a.re.hypot(a.im);
        let mut len = vabs.powf(b.re);
        let at = a.im.atan2(a.re);
        let mut phase = at * b.re;
        if b.im != 0.0 {
            len /= (at * b.im).exp();
            phase += b.im * vabs.ln();
        }
        Some(Complex::new(len * phase.cos(), len * phase.sin()))
    }

    /// `_Py_c_abs`: an infinite part makes infinity even beside a NaN; None when the result
    /// overflows.
    pub fn hypot(self) -> Option<f64> {
        if self.re.is_infinite() || self.im.is_infinite() {
            return Some(f64::INFINITY);
        }
        if self.re.is_nan() || self.im.is_nan() {
            return Some(f64::NAN);
        }
        let r = self.re.hypot(self.im);
        r.is_finite().then_some(r)
    }

    /// `abs(z)` (`complex_abs`).
    pub fn abs(self) -> OpResult<f64> {
        self.hypot()
            .ok_or_else(|| OpError::overflow("absolute value too large"))
    }

    /// `hash(z)` (`complex_hash`): the real part's hash plus 1000003 times the imaginary
    /// part's, so `hash(x + 0j) == hash(x)`; a NaN part hashes as `identity` (the object's).
    pub fn hash(self, identity: i64) -> i64 {
        let part = |x: f64| hash_float(x).unwrap_or(identity) as u64;
        match part(self.re).wrapping_add(HASH_IMAG.wrapping_mul(part(self.im))) as i64 {
            -1 => -2,
            h => h,
        }
    }
}

/// `repr(z)` (`complex_repr`): a real part of +0.0 is left out (`1j`, `-0j`); otherwise both,
/// the imaginary one signed, in parentheses (`(1+2j)`, `(-0-0j)`, `(nan+infj)`). Each part
/// as `repr(float)` without the `.0` (`(1e+16+1j)`).
pub fn complex_repr(z: Complex) -> String {
    let part = |x: f64| double_to_string(x, FloatCode::Repr, FloatFlags::default());
    if z.re == 0.0 && z.re.is_sign_positive() {
        return format!("{}j", part(z.im));
    }
    let im = part(z.im);
    let sign = if im.starts_with('-') { "" } else { "+" };
    format!("({}{sign}{im}j)", part(z.re))
}

/// `complex(text)` (`complex_subtype_from_string`): `<float>`, `<float>j` or
/// `<float><signed float>j`, where a float is what `float()` reads (`inf`, `nan`, …), the
/// old forms `<float><sign>j`, `<sign>j` and `j`, all maybe in parentheses and whitespace.
/// Underscores may stand between digits only.
pub fn parse_complex(text: &str) -> OpResult<Complex> {
    // `_PyUnicode_TransformDecimalAndSpaceToASCII`: any whitespace is a space, any decimal
    // digit its ASCII digit, anything else outside ASCII unreadable.
    let ascii: Vec<u8> = text
        .chars()
        .map(|c| match c {
            c if c.is_ascii() => c as u8,
            c if is_python_whitespace(c) => b' ',
            c => decimal_digit_value(c).map_or(b'?', |d| b'0' + d as u8),
        })
        .collect();
    let cleaned = without_underscores(&ascii).ok_or_else(|| {
        OpError::value(format!(
            "could not convert string to complex: {}",
            str_repr(text)
        ))
    })?;
    parse_ascii(&cleaned).ok_or_else(|| OpError::value("complex() arg is a malformed string"))
}

/// The text without its underscores when each stands between two digits
/// (`_Py_string_to_number_with_underscores`), None when one does not.
fn without_underscores(text: &[u8]) -> Option<Vec<u8>> {
    let mut prev = 0u8;
    let mut out = Vec::with_capacity(text.len());
    for &c in text {
        if c == b'_' {
            if !prev.is_ascii_digit() {
                return None;
            }
        } else {
            if prev == b'_' && !c.is_ascii_digit() {
                return None;
            }
            out.push(c);
        }
        prev = c;
    }
    (prev != b'_').then_some(out)
}

/// `complex_from_string_inner` over ASCII text; None when it is malformed.
fn parse_ascii(s: &[u8]) -> Option<Complex> {
    let is_space = |c: &u8| matches!(c, b' ' | b'\t' | b'\n' | b'\x0b' | b'\x0c' | b'\r');
    let skip_spaces = |at: usize| at + s[at..].iter().take_while(|c| is_space(c)).count();
    let mut at = skip_spaces(0);
    let bracket = s.get(at) == Some(&b'(');
    if bracket {
        at = skip_spaces(at + 1);
    }
    let is_j = |c: Option<&u8>| matches!(c, Some(b'j' | b'J'));
    let sign_of = |c: Option<&u8>| match c {
        Some(b'+') => Some(1.0),
        Some(b'-') => Some(-1.0),
        _ => None,
    };
    let (mut re, mut im) = (0.0, 0.0);
    if let Some((first, len)) = scan_float(&s[at..]) {
        at += len;
        if let Some(sign) = sign_of(s.get(at)) {
            // <float><signed float>j, or <float><sign>j.
            re = first;
            im = match scan_float(&s[at..]) {
                Some((second, len)) => {
                    at += len;
                    second
                }
                None => {
                    at += 1;
                    sign
                }
            };
            if !is_j(s.get(at)) {
                return None;
            }
            at += 1;
        } else if is_j(s.get(at)) {
            im = first;
            at += 1;
        } else {
            re = first;
        }
    } else {
        // <sign>j or j.
        let sign = sign_of(s.get(at));
        if sign.is_some() {
            at += 1;
        }
        im = sign.unwrap_or(1.0);
        if !is_j(s.get(at)) {
            return None;
        }
        at += 1;
    }
    at = skip_spaces(at);
    if bracket {
        if s.get(at) != Some(&b')') {
            return None;
        }
        at = skip_spaces(at + 1);
    }
    (at == s.len()).then_some(Complex::new(re, im))
}

/// The float at the start of `s` and how many bytes it takes, as `PyOS_string_to_double`
/// reads one (the longest prefix that is a float: `1e` reads `1`); None when there is none.
/// An overflowing exponent reads as an infinity.
fn scan_float(s: &[u8]) -> Option<(f64, usize)> {
    let signed = usize::from(matches!(s.first(), Some(b'+' | b'-')));
    let rest = &s[signed..];
    let starts_with =
        |word: &[u8]| rest.len() >= word.len() && rest[..word.len()].eq_ignore_ascii_case(word);
    let special = if starts_with(b"infinity") {
        Some((f64::INFINITY, 8))
    } else if starts_with(b"inf") {
        Some((f64::INFINITY, 3))
    } else if starts_with(b"nan") {
        Some((f64::NAN, 3))
    } else {
        None
    };
    if let Some((value, len)) = special {
        let value = if s[0] == b'-' { -value } else { value };
        return Some((value, signed + len));
    }
    let digits = |from: usize| s[from..].iter().take_while(|c| c.is_ascii_digit()).count();
    let mut end = signed;
    let whole = digits(end);
    end += whole;
    let mut fraction = 0;
    if s.get(end) == Some(&b'.') {
        fraction = digits(end + 1);
        if whole + fraction > 0 {
            end += 1 + fraction;
        }
    }
    if whole + fraction == 0 {
        return None;
    }
    if matches!(s.get(end), Some(b'e' | b'E')) {
        let sign = usize::from(matches!(s.get(end + 1), Some(b'+' | b'-')));
        let exponent = digits(end + 1 + sign);
        if exponent > 0 {
            end += 1 + sign + exponent;
        }
    }
    let text = std::str::from_utf8(&s[..end]).ok()?;
    Some((text.parse().ok()?, end))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(text: &str) -> String {
        match parse_complex(text) {
            Ok(z) => complex_repr(z),
            Err(e) => e.message,
        }
    }

    /// Signed zeros, exponents and the special values, as `repr` shows them.
    #[test]
    fn reprs() {
        let cases = [
            ((0.0, 1.0), "1j"),
            ((-0.0, 1.0), "(-0+1j)"),
            ((-0.0, -0.0), "(-0-0j)"),
            ((0.0, -0.0), "-0j"),
            ((1.0, 2.0), "(1+2j)"),
            ((1e16, 1.0), "(1e+16+1j)"),
            ((f64::NAN, f64::INFINITY), "(nan+infj)"),
            ((1.0, -f64::NAN), "(1+nanj)"),
            ((1.5e-7, 2e22), "(1.5e-07+2e+22j)"),
        ];
        for ((re, im), want) in cases {
            assert_eq!(complex_repr(Complex::new(re, im)), want);
        }
    }

    /// The forms `complex()` reads, and the two errors.
    #[test]
    fn parsing() {
        assert_eq!(parsed(" ( 1.5-3j ) "), "(1.5-3j)");
        assert_eq!(parsed("j"), "1j");
        assert_eq!(parsed("-J"), "-1j");
        assert_eq!(parsed("1+j"), "(1+1j)");
        assert_eq!(parsed("inf+nanj"), "(inf+nanj)");
        assert_eq!(parsed("-infinityj"), "-infj");
        assert_eq!(parsed("1_0j"), "10j");
        assert_eq!(parsed("1.j"), "1j");
        assert_eq!(parsed("١٢j"), "12j");
        assert_eq!(parsed("1e400j"), "infj");
        assert_eq!(parsed("\u{a0}1j\u{a0}"), "1j");
        let malformed = "complex() arg is a malformed string";
        for text in ["", "(1+2j", "1e", "1+", "jj", "1 + 2j", ".j", "0x1j", "()"] {
            assert_eq!(parsed(text), malformed, "{text:?}");
        }
        assert_eq!(
            parsed("1__0j"),
            "could not convert string to complex: '1__0j'"
        );
        assert_eq!(parsed(&"1".repeat(100_000)), "(inf+0j)");
    }

    /// `c_powi` for small integral exponents, `_Py_c_pow` otherwise, and their errors.
    #[test]
    fn powers() {
        let z = Complex::new(1.0, 1.0);
        assert_eq!(
            z.pow(Complex::new(100.0, 0.0)).map(complex_repr),
            Ok("(-1125899906842624+0j)".into())
        );
        assert_eq!(
            Complex::new(0.0, 0.0)
                .pow(Complex::new(-1.0, 0.0))
                .map_err(|e| e.message),
            Err("0.0 to a negative or complex power".into())
        );
        assert_eq!(
            Complex::new(1e300, 0.0)
                .pow(Complex::new(2.0, 0.0))
                .map_err(|e| e.message),
            Err("complex exponentiation".into())
        );
    }

    /// `hash(x + 0j) == hash(x)`, and -1 is never a hash.
    #[test]
    fn hashes() {
        assert_eq!(Complex::new(1.5, 0.0).hash(0), hash_float(1.5).unwrap());
        assert_eq!(Complex::new(-1.0, 0.0).hash(0), -2);
    }
}
