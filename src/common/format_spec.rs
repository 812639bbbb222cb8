//! The format-spec mini-language: `format(value, spec)` and f-string `{value:spec}`.
//!
//! In: an int ([`Int`]), float, complex (two floats) or `&str` and the spec text. Out: the formatted text or the
//! `ValueError` CPython raises. Mirrors `Python/formatter_unicode.c`
//! (`parse_internal_render_format_spec`, `calc_number_widths`, thousands grouping with a
//! minimum width) on top of [`double_to_string`]. Must not depend on the VM's value model.

use super::float_repr::{FloatCode, FloatFlags, double_to_string};
use super::int_ops::Int;
use super::op_error::{OpError, OpResult};
use super::sizes::check_text_len;

/// A parsed `[[fill]align][sign][z][#][0][width][grouping][.precision][type]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FormatSpec {
    pub fill: char,
    /// `<`, `>`, `^` or `=`; `None` means the type's default.
    pub align: Option<char>,
    /// `+`, `-` or ` `.
    pub sign: Option<char>,
    pub no_negative_zero: bool,
    pub alternate: bool,
    /// A `0` before the width without an explicit fill: zero padding after the sign.
    pub zero_pad: bool,
    pub width: usize,
    /// `,` or `_`.
    pub grouping: Option<char>,
    pub precision: Option<usize>,
    pub kind: Option<char>,
}

impl FormatSpec {
    /// Parse `spec` for a value of type `type_name` (named in the error messages) whose
    /// presentation type defaults to `default_kind` (`s` for str, `d` for int).
    pub fn parse(spec: &str, type_name: &str, default_kind: Option<char>) -> OpResult<FormatSpec> {
        let chars: Vec<char> = spec.chars().collect();
        let mut pos = 0;
        let is_align = |c: char| matches!(c, '<' | '>' | '^' | '=');
        let mut parsed = FormatSpec {
            fill: ' ',
            align: None,
            sign: None,
            no_negative_zero: false,
            alternate: false,
            zero_pad: false,
            width: 0,
            grouping: None,
            precision: None,
            kind: None,
        };
        let mut fill_specified = false;
        if chars.len() >= 2 && is_align(chars[1]) {
            parsed.fill = chars[0];
            parsed.align = Some(chars[1]);
            fill_specified = true;
            pos = 2;
        } else if chars.first().is_some_and(|c| is_align(*c)) {
            parsed.align = Some(chars[0]);
            pos = 1;
        }
        let peek = |pos: usize| chars.get(pos).copied();
        if let Some(c @ ('+' | '-' | ' ')) = peek(pos) {
            parsed.sign = Some(c);
            pos += 1;
        }
        if peek(pos) == Some('z') {
            parsed.no_negative_zero = true;
            pos += 1;
        }
        if peek(pos) == Some('#') {
            parsed.alternate = true;
            pos += 1;
        }
        if !fill_specified && peek(pos) == Some('0') {
            parsed.zero_pad = true;
            pos += 1;
        }
        parsed.width = parse_number(&chars, &mut pos)?.unwrap_or(0);
        if peek(pos) == Some(',') {
            parsed.grouping = Some(',');
            pos += 1;
        }
        if peek(pos) == Some('_') {
            if parsed.grouping.is_some() {
                return Err(OpError::value("Cannot specify both ',' and '_'."));
            }
            parsed.grouping = Some('_');
            pos += 1;
        }
        if peek(pos) == Some(',') && parsed.grouping == Some('_') {
            return Err(OpError::value("Cannot specify both ',' and '_'."));
        }
        if peek(pos) == Some('.') {
            pos += 1;
            parsed.precision = parse_number(&chars, &mut pos)?;
            if parsed.precision.is_none() {
                return Err(OpError::value("Format specifier missing precision"));
            }
        }
        check_text_len(parsed.width)?;
        check_text_len(parsed.precision.unwrap_or(0))?;
        if chars.len() - pos > 1 {
            return Err(OpError::value(format!(
                "Invalid format specifier '{spec}' for object of type '{type_name}'"
            )));
        }
        parsed.kind = peek(pos);
        if let Some(separator) = parsed.grouping {
            let allowed = match parsed.kind.or(default_kind) {
                None | Some('d' | 'e' | 'f' | 'g' | 'E' | 'G' | '%' | 'F') => true,
                Some('b' | 'o' | 'x' | 'X') => separator == '_',
                _ => false,
            };
            if !allowed {
                let kind = parsed.kind.or(default_kind).unwrap_or(' ');
                let shown = if (' '..'\x7f').contains(&kind) {
                    kind.to_string()
                } else {
                    format!("\\x{:x}", kind as u32)
                };
                return Err(OpError::value(format!(
                    "Cannot specify '{separator}' with '{shown}'."
                )));
            }
        }
        Ok(parsed)
    }

    fn unknown_code(&self, type_name: &str) -> OpError {
        let code = self.kind.unwrap_or(' ');
        OpError::value(format!(
            "Unknown format code '{code}' for object of type '{type_name}'"
        ))
    }
}

/// Digits at `pos`, advancing it; `None` if there are none.
fn parse_number(chars: &[char], pos: &mut usize) -> OpResult<Option<usize>> {
    let start = *pos;
    let mut value: usize = 0;
    while let Some(digit) = chars.get(*pos).and_then(|c| c.to_digit(10)) {
        value = value
            .checked_mul(10)
            .and_then(|v| v.checked_add(digit as usize))
            .filter(|v| *v <= isize::MAX as usize)
            .ok_or_else(|| OpError::value("Too many decimal digits in format string"))?;
        *pos += 1;
    }
    Ok((*pos > start).then_some(value))
}

/// `format(text, spec)` for a str.
pub fn format_str(text: &str, spec: &str) -> OpResult<String> {
    if spec.is_empty() {
        return Ok(text.to_string());
    }
    let spec = FormatSpec::parse(spec, "str", Some('s'))?;
    if !matches!(spec.kind, None | Some('s')) {
        return Err(spec.unknown_code("str"));
    }
    match spec.sign {
        Some(' ') => {
            return Err(OpError::value(
                "Space not allowed in string format specifier",
            ));
        }
        Some(_) => {
            return Err(OpError::value(
                "Sign not allowed in string format specifier",
            ));
        }
        None => {}
    }
    if spec.no_negative_zero {
        return Err(OpError::value(
            "Negative zero coercion (z) not allowed in string format specifier",
        ));
    }
    if spec.alternate {
        return Err(OpError::value(
            "Alternate form (#) not allowed in string format specifier",
        ));
    }
    if spec.align == Some('=') {
        return Err(OpError::value(
            "'=' alignment not allowed in string format specifier",
        ));
    }
    let truncated: String = match spec.precision {
        Some(precision) => text.chars().take(precision).collect(),
        None => text.to_string(),
    };
    let fill = if spec.zero_pad { '0' } else { spec.fill };
    Ok(pad(&truncated, spec.width, fill, spec.align.unwrap_or('<')))
}

/// Pad `text` to `width` characters with `fill`, aligned `<`, `>` or `^`.
pub fn pad(text: &str, width: usize, fill: char, align: char) -> String {
    let length = text.chars().count();
    if length >= width {
        return text.to_string();
    }
    let padding = width - length;
    let (left, right) = match align {
        '<' => (0, padding),
        '^' => (padding / 2, padding - padding / 2),
        _ => (padding, 0),
    };
    let mut out = String::with_capacity(text.len() + padding);
    out.extend(std::iter::repeat_n(fill, left));
    out.push_str(text);
    out.extend(std::iter::repeat_n(fill, right));
    out
}

/// `format(n, spec)` for an int (and bool's int formatting).
pub fn format_int(value: &Int, spec: &str) -> OpResult<String> {
    if spec.is_empty() {
        return value.to_decimal();
    }
    let spec = FormatSpec::parse(spec, "int", Some('d'))?;
    let radix = match spec.kind {
        None | Some('d' | 'n') => 10,
        Some('b') => 2,
        Some('o') => 8,
        Some('x' | 'X') => 16,
        Some('c') => return format_int_as_char(value, &spec),
        Some('e' | 'E' | 'f' | 'F' | 'g' | 'G' | '%') => {
            return format_float_with(value.to_f64()?, &spec);
        }
        Some(_) => return Err(spec.unknown_code("int")),
    };
    if spec.precision.is_some() {
        return Err(OpError::value(
            "Precision not allowed in integer format specifier",
        ));
    }
    if spec.no_negative_zero {
        return Err(OpError::value(
            "Negative zero coercion (z) not allowed in integer format specifier",
        ));
    }
    let mut digits = if radix == 10 {
        value.to_decimal()?.trim_start_matches('-').to_string()
    } else {
        value
            .to_radix(radix, false)
            .trim_start_matches('-')
            .to_string()
    };
    if spec.kind == Some('X') {
        digits.make_ascii_uppercase();
    }
    let prefix = match (spec.alternate, spec.kind) {
        (true, Some('b')) => "0b",
        (true, Some('o')) => "0o",
        (true, Some('x')) => "0x",
        (true, Some('X')) => "0X",
        _ => "",
    };
    let group_size = if radix == 10 { 3 } else { 4 };
    Ok(render_number(
        &spec,
        value.is_negative(),
        prefix,
        &digits,
        "",
        group_size,
    ))
}

/// The `c` presentation: the code point, laid out like a number without digits.
fn format_int_as_char(value: &Int, spec: &FormatSpec) -> OpResult<String> {
    if spec.precision.is_some() {
        return Err(OpError::value(
            "Precision not allowed in integer format specifier",
        ));
    }
    if spec.no_negative_zero {
        return Err(OpError::value(
            "Negative zero coercion (z) not allowed in integer format specifier",
        ));
    }
    if spec.sign.is_some() {
        return Err(OpError::value(
            "Sign not allowed with integer format specifier 'c'",
        ));
    }
    if spec.alternate {
        return Err(OpError::value(
            "Alternate form (#) not allowed with integer format specifier 'c'",
        ));
    }
    let character = value
        .as_i64()
        .and_then(|v| u32::try_from(v).ok())
        .and_then(char::from_u32)
        .ok_or_else(|| OpError::overflow("%c arg not in range(0x110000)"))?;
    Ok(render_number(
        spec,
        false,
        "",
        "",
        &character.to_string(),
        3,
    ))
}

/// `format(x, spec)` for a float.
pub fn format_float(value: f64, spec: &str) -> OpResult<String> {
    if spec.is_empty() {
        return Ok(super::float_repr::float_repr(value));
    }
    let spec = FormatSpec::parse(spec, "float", None)?;
    format_float_with(value, &spec)
}

fn format_float_with(value: f64, spec: &FormatSpec) -> OpResult<String> {
    let mut flags = FloatFlags {
        alternate: spec.alternate,
        no_negative_zero: spec.no_negative_zero,
        ..FloatFlags::default()
    };
    let precision = spec.precision;
    let mut value = value;
    let mut percent = false;
    let code = match spec.kind {
        None => {
            flags.add_dot_0 = true;
            precision.map_or(FloatCode::Repr, FloatCode::General)
        }
        Some('e' | 'E') => FloatCode::Exponent(precision.unwrap_or(6)),
        Some('f' | 'F') => FloatCode::Fixed(precision.unwrap_or(6)),
        Some('g' | 'G' | 'n') => FloatCode::General(precision.unwrap_or(6)),
        Some('%') => {
            value *= 100.0;
            percent = true;
            FloatCode::Fixed(precision.unwrap_or(6))
        }
        Some(_) => return Err(spec.unknown_code("float")),
    };
    let text = float_text(value, code, flags, spec.kind);
    let (negative, digits, rest) = split_number(&text);
    let remainder = if percent {
        format!("{rest}%")
    } else {
        rest.to_string()
    };
    Ok(render_number(spec, negative, "", digits, &remainder, 3))
}

/// `double_to_string`, in capitals for the presentation types `E`, `F` and `G`.
fn float_text(value: f64, code: FloatCode, flags: FloatFlags, kind: Option<char>) -> String {
    let mut text = double_to_string(value, code, flags);
    if matches!(kind, Some('E' | 'F' | 'G')) {
        text.make_ascii_uppercase();
    }
    text
}

/// A formatted float split as `calc_number_widths` reads it: whether it is negative, its
/// integer digits, and the rest (fraction, exponent; all of `inf` and `nan`).
fn split_number(text: &str) -> (bool, &str, &str) {
    let unsigned = text.trim_start_matches('-');
    let digits_end = unsigned
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(unsigned.len());
    let (digits, rest) = unsigned.split_at(digits_end);
    (text.starts_with('-'), digits, rest)
}

/// `format(z, spec)` for a complex with a non-empty spec (`format_complex_internal`): both
/// parts formatted as floats, the imaginary one always signed, the whole padded. No type
/// is `repr`'s layout (parentheses unless the real part, +0.0, is left out), or `g` when a
/// precision is given; `%`, zero padding and `=` alignment are refused.
pub fn format_complex(re: f64, im: f64, spec: &str) -> OpResult<String> {
    let spec = FormatSpec::parse(spec, "complex", None)?;
    if spec.zero_pad || spec.fill == '0' {
        return Err(OpError::value(
            "Zero padding is not allowed in complex format specifier",
        ));
    }
    if spec.align == Some('=') {
        return Err(OpError::value(
            "'=' alignment flag is not allowed in complex format specifier",
        ));
    }
    let flags = FloatFlags {
        alternate: spec.alternate,
        no_negative_zero: spec.no_negative_zero,
        add_dot_0: false,
    };
    let precision = spec.precision;
    let code = match spec.kind {
        None => precision.map_or(FloatCode::Repr, FloatCode::General),
        Some('e' | 'E') => FloatCode::Exponent(precision.unwrap_or(6)),
        Some('f' | 'F') => FloatCode::Fixed(precision.unwrap_or(6)),
        Some('g' | 'G' | 'n') => FloatCode::General(precision.unwrap_or(6)),
        Some(_) => return Err(spec.unknown_code("complex")),
    };
    let skip_re = spec.kind.is_none() && re == 0.0 && re.is_sign_positive();
    let parens = spec.kind.is_none() && !skip_re;
    // Each part laid out alone, unpadded; the imaginary one with a sign unless it stands alone.
    let mut part_spec = FormatSpec {
        fill: ' ',
        align: Some('<'),
        width: 0,
        ..spec.clone()
    };
    let render = |x: f64, part_spec: &FormatSpec| {
        let text = float_text(x, code, flags, spec.kind);
        let (negative, digits, rest) = split_number(&text);
        render_number(part_spec, negative, "", digits, rest, 3)
    };
    let real = if skip_re {
        String::new()
    } else {
        render(re, &part_spec)
    };
    if !skip_re {
        part_spec.sign = Some('+');
    }
    let imag = render(im, &part_spec);
    let (open, close) = if parens { ("(", ")") } else { ("", "") };
    let body = format!("{open}{real}{imag}j{close}");
    Ok(pad(&body, spec.width, spec.fill, spec.align.unwrap_or('>')))
}

/// Lay out a number as `calc_number_widths` + `fill_number`: sign, prefix, grouped integer
/// digits, the remainder (fraction, exponent, `%`), padded per the spec. With `0` padding
/// (or an explicit `0=`), the zeros join the digits and get grouped too: `00,001,234`.
fn render_number(
    spec: &FormatSpec,
    negative: bool,
    prefix: &str,
    digits: &str,
    remainder: &str,
    group_size: usize,
) -> String {
    let sign = match (negative, spec.sign) {
        (true, _) => "-",
        (false, Some('+')) => "+",
        (false, Some(' ')) => " ",
        _ => "",
    };
    let (fill, align) = match (spec.zero_pad, spec.align) {
        (true, None) => ('0', '='),
        (true, Some(align)) => ('0', align),
        (false, align) => (spec.fill, align.unwrap_or('>')),
    };
    let leading = sign.len() + prefix.len();
    let remainder_len = remainder.chars().count();
    let separator = if spec.kind == Some('n') {
        None
    } else {
        spec.grouping
    };
    let min_width = if fill == '0' && align == '=' {
        spec.width.saturating_sub(leading + remainder_len)
    } else {
        0
    };
    let grouped = if digits.is_empty() {
        String::new()
    } else {
        group_digits(digits, separator, group_size, min_width)
    };
    let body_len = leading + grouped.chars().count() + remainder_len;
    let padding = spec.width.saturating_sub(body_len);
    let fill_run = |n: usize| std::iter::repeat_n(fill, n).collect::<String>();
    let (left, middle, right) = match align {
        '<' => (0, 0, padding),
        '^' => (padding / 2, 0, padding - padding / 2),
        '=' => (0, padding, 0),
        _ => (padding, 0, 0),
    };
    format!(
        "{}{sign}{prefix}{}{grouped}{remainder}{}",
        fill_run(left),
        fill_run(middle),
        fill_run(right)
    )
}

/// Insert `separator` every `group_size` digits from the right, padding with leading zeros
/// (grouped as well) up to `min_width` characters, as `_PyUnicode_InsertThousandsGrouping`.
fn group_digits(
    digits: &str,
    separator: Option<char>,
    group_size: usize,
    min_width: usize,
) -> String {
    let Some(separator) = separator else {
        let zeros = min_width.saturating_sub(digits.len());
        return format!("{}{digits}", "0".repeat(zeros));
    };
    let mut pieces: Vec<String> = Vec::new();
    let mut remaining = digits.len() as isize;
    let mut min_width = min_width as isize;
    loop {
        let length = (group_size as isize).min(remaining.max(min_width).max(1));
        let zeros = (length - remaining).max(0);
        let taken = remaining.min(length).max(0);
        let start = (remaining - taken) as usize;
        pieces.push(format!(
            "{}{}",
            "0".repeat(zeros as usize),
            &digits[start..remaining as usize]
        ));
        remaining -= taken;
        min_width -= length;
        if remaining <= 0 && min_width <= 0 {
            break;
        }
        min_width -= 1;
    }
    pieces.reverse();
    pieces.join(&separator.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn int(v: i64) -> Int {
        Int::Small(v)
    }

    fn error<T: std::fmt::Debug>(result: OpResult<T>) -> String {
        result.unwrap_err().to_string()
    }

    #[test]
    fn int_layouts() {
        // python3.13: format(v, spec)
        let cases = [
            (1234, "010,", "00,001,234"),
            (1234, "09,", "0,001,234"),
            (1234, "*=10,", "*****1,234"),
            (255, "#010_x", "0x000_00ff"),
            (5, "^5", "  5  "),
            (5, "^6", "  5   "),
            (-42, "+d", "-42"),
            (42, "+d", "+42"),
            (42, " d", " 42"),
            (-42, "08", "-0000042"),
            (-42, "<8", "-42     "),
            (255, "#X", "0XFF"),
            (255, "#o", "0o377"),
            (10, "b", "1010"),
            (123456789, "n", "123456789"),
            (1234567, "_", "1_234_567"),
            (65, "c", "A"),
            (65, "^3c", " A "),
            (100, "e", "1.000000e+02"),
            (1, "z.2f", "1.00"),
            (7, "%", "700.000000%"),
            (1234, "0>", "1234"),
        ];
        for (value, spec, expected) in cases {
            assert_eq!(
                format_int(&int(value), spec).unwrap(),
                expected,
                "format({value}, {spec:?})"
            );
        }
        let big = Int::from(num_bigint::BigInt::from(2).pow(100));
        assert_eq!(
            format_int(&big, ",").unwrap(),
            "1,267,650,600,228,229,401,496,703,205,376"
        );
        assert_eq!(format_int(&big, "e").unwrap(), "1.267651e+30");
    }

    #[test]
    fn complex_layouts() {
        // python3.13: format(complex(re, im), spec)
        let nan = f64::NAN;
        let cases = [
            ((1.0, 2.0), ".2f", "1.00+2.00j"),
            ((1.0, 2.0), "^20.3", "       (1+2j)       "),
            ((0.0, 1.0), "10", "        1j"),
            ((0.0, 1.0), "+", "+1j"),
            ((1.0, 2.0), "+", "(+1+2j)"),
            ((-0.0001, -0.0001), "z.1f", "0.0+0.0j"),
            ((0.0, 1.0), "#", "1.j"),
            ((1234567.25, 0.5), ",", "(1,234,567.25+0.5j)"),
            ((1234567.25, 0.5), ".0", "(1e+06+0.5j)"),
            (
                (nan, f64::NEG_INFINITY),
                "*^30.2e",
                "***********nan-infj***********",
            ),
            ((-1.5, 2.25), "E", "-1.500000E+00+2.250000E+00j"),
        ];
        for ((re, im), spec, expected) in cases {
            assert_eq!(format_complex(re, im, spec).unwrap(), expected, "{spec:?}");
        }
        let refused = |spec| error(format_complex(1.0, 1.0, spec));
        assert_eq!(
            refused("010"),
            "ValueError: Zero padding is not allowed in complex format specifier"
        );
        assert_eq!(
            refused("=10"),
            "ValueError: '=' alignment flag is not allowed in complex format specifier"
        );
        assert_eq!(
            refused("%"),
            "ValueError: Unknown format code '%' for object of type 'complex'"
        );
    }

    #[test]
    fn float_layouts() {
        // python3.13: format(v, spec)
        let inf = f64::INFINITY;
        let cases = [
            (inf, "010", "0000000inf"),
            (f64::NAN, "+", "+nan"),
            (-inf, "=10", "-      inf"),
            (inf, "010,", "0000000inf"),
            (-1234.5, "012,.1f", "-0,001,234.5"),
            (1e16, "", "1e+16"),
            (0.1, ".3", "0.1"),
            (1234.5, ".3", "1.23e+03"),
            (12.0, ".3", "12.0"),
            (1e22, ",.0f", "10,000,000,000,000,000,000,000"),
            (1.0, "#g", "1.00000"),
            (-0.0, "z.1f", "0.0"),
            (1e-5, "n", "1e-05"),
            (1.0, "%", "100.000000%"),
            (0.5, ".0%", "50%"),
            (12345.678, "_.2f", "12_345.68"),
            (1.5, "E", "1.500000E+00"),
            (inf, "F", "INF"),
            (-0.0, "", "-0.0"),
            (0.0, "g", "0"),
            (1e16, ".17", "1e+16"),
            (123.0, ".3n", "123"),
            (1e5, "#.0e", "1.e+05"),
            (3.14259, "10.2f", "      3.14"),
            (3.14259, "<10.2f", "3.14      "),
            (1234.5, ",", "1,234.5"),
            (1e20, ",", "1e+20"),
        ];
        for (value, spec, expected) in cases {
            assert_eq!(
                format_float(value, spec).unwrap(),
                expected,
                "format({value}, {spec:?})"
            );
        }
    }

    #[test]
    fn str_layouts() {
        // python3.13: format('ab', '^5'), format('a', '05'), format('abc', '.2'),
        // format('abc', '*>6.1')
        assert_eq!(format_str("ab", "^5").unwrap(), " ab  ");
        assert_eq!(format_str("a", "05").unwrap(), "a0000");
        assert_eq!(format_str("abc", ".2").unwrap(), "ab");
        assert_eq!(format_str("abc", "*>6.1").unwrap(), "*****a");
    }

    #[test]
    fn error_messages() {
        // python3.13: the ValueError messages of format(v, spec)
        let float_cases = [
            (
                "10.3x",
                "Unknown format code 'x' for object of type 'float'",
            ),
            (
                "abc",
                "Invalid format specifier 'abc' for object of type 'float'",
            ),
            (",x", "Cannot specify ',' with 'x'."),
            (",_", "Cannot specify both ',' and '_'."),
            (".", "Format specifier missing precision"),
            ("d", "Unknown format code 'd' for object of type 'float'"),
        ];
        for (spec, expected) in float_cases {
            assert_eq!(
                error(format_float(1.5, spec)),
                format!("ValueError: {expected}")
            );
        }
        let int_cases = [
            ("10.3x", "Precision not allowed in integer format specifier"),
            ("_c", "Cannot specify '_' with 'c'."),
            ("+c", "Sign not allowed with integer format specifier 'c'"),
            (
                "z",
                "Negative zero coercion (z) not allowed in integer format specifier",
            ),
            (".3s", "Unknown format code 's' for object of type 'int'"),
            (",s", "Cannot specify ',' with 's'."),
        ];
        for (spec, expected) in int_cases {
            assert_eq!(
                error(format_int(&int(1), spec)),
                format!("ValueError: {expected}")
            );
        }
        let str_cases = [
            (
                "=10s",
                "'=' alignment not allowed in string format specifier",
            ),
            ("+s", "Sign not allowed in string format specifier"),
            (
                "#s",
                "Alternate form (#) not allowed in string format specifier",
            ),
            (
                "z",
                "Negative zero coercion (z) not allowed in string format specifier",
            ),
            (
                "<<<10",
                "Invalid format specifier '<<<10' for object of type 'str'",
            ),
            ("d", "Unknown format code 'd' for object of type 'str'"),
        ];
        for (spec, expected) in str_cases {
            assert_eq!(
                error(format_str("a", spec)),
                format!("ValueError: {expected}")
            );
        }
        assert_eq!(
            error(format_int(&int(-1), "c")),
            "OverflowError: %c arg not in range(0x110000)"
        );
        // CPython runs out of memory building these; apy refuses up front.
        assert!(error(format_int(&int(1), "9999999999")).starts_with("MemoryError"));
        assert!(error(format_float(1.5, ".99999999999f")).starts_with("MemoryError"));
    }
}
