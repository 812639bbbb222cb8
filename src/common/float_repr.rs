//! `repr(float)`, `str(float)` and the digit layout behind every float-to-text conversion.
//!
//! In: an `f64` and a conversion mode. Out: CPython's exact text. Mirrors
//! `PyOS_double_to_string` / `format_float_short` in `Python/pystrtod.c`: the digits come
//! from Rust's correctly rounded formatting (shortest round-trip for `repr`, round-half-even
//! on the exact binary value otherwise, like David Gay's dtoa), then CPython's layout rules
//! place the decimal point, zeros and exponent. Depends on nothing but `std`.

/// Which conversion `double_to_string` performs (CPython's format codes, lowercase).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FloatCode {
    /// `'r'`: shortest digits that round-trip; exponent when exp < -4 or exp >= 16.
    Repr,
    /// `'e'` with this many digits after the point.
    Exponent(usize),
    /// `'f'` with this many digits after the point.
    Fixed(usize),
    /// `'g'` with this many significant digits (0 means 1).
    General(usize),
}

/// The `Py_DTSF_*` flags of `PyOS_double_to_string`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FloatFlags {
    /// `#`: keep trailing zeros (`g`) and always write the decimal point.
    pub alternate: bool,
    /// Write `.0` after an integral value shown without exponent (`repr`, format type none).
    pub add_dot_0: bool,
    /// `z`: drop the minus sign of a value that rounds to zero.
    pub no_negative_zero: bool,
}

/// `repr(x)` and `str(x)` for a Python float.
pub fn float_repr(x: f64) -> String {
    let flags = FloatFlags {
        add_dot_0: true,
        ..FloatFlags::default()
    };
    double_to_string(x, FloatCode::Repr, flags)
}

/// CPython's `PyOS_double_to_string` with a lowercase code: a `-` for negative values
/// (never a `+`), `inf`, `-inf`, `nan` for the special values.
pub fn double_to_string(x: f64, code: FloatCode, flags: FloatFlags) -> String {
    if x.is_nan() {
        return "nan".to_string();
    }
    let negative = x.is_sign_negative();
    if x.is_infinite() {
        return if negative { "-inf" } else { "inf" }.to_string();
    }
    let (digits, decpt) = decimal_digits(x.abs(), code);
    let body = layout_digits(&digits, decpt, code, flags);
    let rounds_to_zero = digits.bytes().all(|b| b == b'0');
    if negative && !(flags.no_negative_zero && rounds_to_zero) {
        format!("-{body}")
    } else {
        body
    }
}

/// The significant digits of `x >= 0` (no leading or trailing zeros; `"0"` for zero, or
/// `""` when a fixed conversion rounds to zero) and the decimal point position `decpt`:
/// `x ≈ 0.d1d2d3… × 10^decpt`. This is what `_Py_dg_dtoa` returns for each mode.
fn decimal_digits(x: f64, code: FloatCode) -> (String, i32) {
    if x == 0.0 {
        return ("0".to_string(), 1);
    }
    let text = match code {
        FloatCode::Repr => shortest_repr_text(x),
        FloatCode::Exponent(precision) => format!("{x:.precision$e}"),
        FloatCode::General(precision) => format!("{:.*e}", precision.max(1) - 1, x),
        FloatCode::Fixed(precision) => return fixed_digits(&format!("{x:.precision$}")),
    };
    // Scientific text: `d[.ddd]e[-]N`.
    let (mantissa, exponent) = text.split_once('e').unwrap_or((&text, "0"));
    let exponent: i32 = exponent.parse().unwrap_or(0);
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    (digits.trim_end_matches('0').to_string(), exponent + 1)
}

/// The shortest scientific text that round-trips to `x`, choosing the digits nearest to
/// `x` (ties to even) as dtoa's mode 0 does; Rust's shortest formatting breaks exact ties
/// upward (77348568524999.125 gives `…13`, CPython `…12`).
fn shortest_repr_text(x: f64) -> String {
    let shortest = format!("{x:e}");
    let digit_count = shortest
        .split('e')
        .next()
        .unwrap_or("")
        .replace('.', "")
        .len();
    let nearest = format!("{:.*e}", digit_count.saturating_sub(1), x);
    if nearest.parse::<f64>() == Ok(x) {
        nearest
    } else {
        shortest
    }
}

/// Digits and `decpt` of a plain fixed-point text such as `"0.0500"` or `"123"`.
fn fixed_digits(text: &str) -> (String, i32) {
    let (int_part, frac_part) = text.split_once('.').unwrap_or((text, ""));
    let all = format!("{int_part}{frac_part}");
    let leading_zeros = all.len() - all.trim_start_matches('0').len();
    let digits = all[leading_zeros..].trim_end_matches('0').to_string();
    if digits.is_empty() {
        // dtoa's "no digits" answer for a value that rounds to 0 at this precision.
        let precision = frac_part.len() as i32;
        return (String::new(), -precision);
    }
    (digits, int_part.len() as i32 - leading_zeros as i32)
}

/// `format_float_short`'s layout: output the slice `vdigits[start..end]` of the digit string
/// padded with zeros on both sides, with the decimal point and maybe an exponent.
fn layout_digits(digits: &str, mut decpt: i32, code: FloatCode, flags: FloatFlags) -> String {
    let digits_len = digits.len() as i32;
    let mut use_exp = false;
    let mut vdigits_end = digits_len;
    match code {
        FloatCode::Exponent(precision) => {
            use_exp = true;
            vdigits_end = precision as i32 + 1;
        }
        FloatCode::Fixed(precision) => vdigits_end = decpt + precision as i32,
        FloatCode::General(precision) => {
            let precision = precision.max(1) as i32;
            let limit = if flags.add_dot_0 {
                precision - 1
            } else {
                precision
            };
            use_exp = decpt <= -4 || decpt > limit;
            if flags.alternate {
                vdigits_end = precision;
            }
        }
        FloatCode::Repr => use_exp = decpt <= -4 || decpt > 16,
    }
    let mut exp = 0;
    if use_exp {
        exp = decpt - 1;
        decpt = 1;
    }
    let vdigits_start = if decpt <= 0 { decpt - 1 } else { 0 };
    vdigits_end = if !use_exp && flags.add_dot_0 {
        vdigits_end.max(decpt + 1)
    } else {
        vdigits_end.max(decpt)
    };

    let zeros = |n: i32| "0".repeat(n.max(0) as usize);
    let mut out = String::new();
    if decpt <= 0 {
        out += &zeros(decpt - vdigits_start);
        out.push('.');
        out += &zeros(-decpt);
    } else {
        out += &zeros(-vdigits_start);
    }
    if 0 < decpt && decpt <= digits_len {
        out += &digits[..decpt as usize];
        out.push('.');
        out += &digits[decpt as usize..];
    } else {
        out += digits;
    }
    if digits_len < decpt {
        out += &zeros(decpt - digits_len);
        out.push('.');
        out += &zeros(vdigits_end - decpt);
    } else {
        out += &zeros(vdigits_end - digits_len);
    }
    if out.ends_with('.') && !flags.alternate {
        out.pop();
    }
    if use_exp {
        let sign = if exp < 0 { '-' } else { '+' };
        out += &format!("e{sign}{:02}", exp.unsigned_abs());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repr_matches_cpython() {
        // Expected values printed by python3.13 `repr(v)`.
        let cases = [
            (0.0_f64, "0.0"),
            (-0.0_f64, "-0.0"),
            (1.0_f64, "1.0"),
            (-1.5_f64, "-1.5"),
            (0.1_f64, "0.1"),
            (0.3333333333333333_f64, "0.3333333333333333"),
            (1e+16_f64, "1e+16"),
            (1000000000000000.0_f64, "1000000000000000.0"),
            (1.2345678901234568e+17_f64, "1.2345678901234568e+17"),
            (0.0001_f64, "0.0001"),
            (1e-05_f64, "1e-05"),
            (0.00012345_f64, "0.00012345"),
            (1.5e+300_f64, "1.5e+300"),
            (5e-324_f64, "5e-324"),
            (1.7976931348623157e+308_f64, "1.7976931348623157e+308"),
            (9007199254740992.0_f64, "9007199254740992.0"),
            (100.0_f64, "100.0"),
            (1e+22_f64, "1e+22"),
            (-2.5e-07_f64, "-2.5e-07"),
            (3.14259_f64, "3.14259"),
            (77348568524999.12_f64, "77348568524999.12"),
            (f64::INFINITY, "inf"),
            (f64::NEG_INFINITY, "-inf"),
            (f64::NAN, "nan"),
            (-f64::NAN, "nan"),
        ];
        for (value, expected) in cases {
            assert_eq!(float_repr(value), expected, "repr({value:?})");
        }
    }

    #[test]
    fn fixed_exponent_and_general_codes() {
        let plain = FloatFlags::default();
        let alt = FloatFlags {
            alternate: true,
            ..plain
        };
        // python3.13: '%.2f' % 0.125, '%.0f' % 2.5, '%.2f' % -0.001, '%#.0f' % 1.5,
        // '%.3e' % 0.0, '%g' % 1e100, '%.20g' % 1e100, '%#.3g' % 0.0, '%g' % 0.0001,
        // '%g' % 123456.0, '%g' % 1234567.0, '%.0e' % 15000.0
        assert_eq!(double_to_string(0.125, FloatCode::Fixed(2), plain), "0.12");
        assert_eq!(double_to_string(2.5, FloatCode::Fixed(0), plain), "2");
        assert_eq!(
            double_to_string(-0.001, FloatCode::Fixed(2), plain),
            "-0.00"
        );
        assert_eq!(double_to_string(1.5, FloatCode::Fixed(0), alt), "2.");
        assert_eq!(
            double_to_string(1e22, FloatCode::Fixed(0), plain),
            "10000000000000000000000"
        );
        assert_eq!(
            double_to_string(0.0, FloatCode::Exponent(3), plain),
            "0.000e+00"
        );
        assert_eq!(
            double_to_string(1e100, FloatCode::General(6), plain),
            "1e+100"
        );
        assert_eq!(
            double_to_string(1e100, FloatCode::General(20), plain),
            "1.0000000000000000159e+100"
        );
        assert_eq!(double_to_string(0.0, FloatCode::General(3), alt), "0.00");
        assert_eq!(
            double_to_string(0.0001, FloatCode::General(6), plain),
            "0.0001"
        );
        assert_eq!(
            double_to_string(123456.0, FloatCode::General(6), plain),
            "123456"
        );
        assert_eq!(
            double_to_string(1234567.0, FloatCode::General(6), plain),
            "1.23457e+06"
        );
        assert_eq!(
            double_to_string(15000.0, FloatCode::Exponent(0), plain),
            "2e+04"
        );
    }

    #[test]
    fn negative_zero_coercion() {
        let z = FloatFlags {
            no_negative_zero: true,
            ..FloatFlags::default()
        };
        // python3.13: format(-0.001, 'z.2f') == '0.00', format(-0.5, 'z.2f') == '-0.50'
        assert_eq!(double_to_string(-0.001, FloatCode::Fixed(2), z), "0.00");
        assert_eq!(double_to_string(-0.5, FloatCode::Fixed(2), z), "-0.50");
    }
}
