//! The `%` operator of str and bytes: `PyUnicode_Format` and `_PyBytes_FormatEx`.
//!
//! In: the format (Latin-1 text for bytes, see [`Flavor`]) and the right operand, seen
//! through the [`PercentOperand`] trait so that this module does not depend on the VM's
//! value model. Out: the formatted text, or an error: this module's own as an [`OpError`]
//! with CPython's message, or one raised by user code (`__str__`, `__bytes__`,
//! `__getitem__`) passed through.

use super::chars::escape_non_ascii;
use super::float_repr::{FloatCode, FloatFlags, double_to_string};
use super::int_ops::{Int, float_to_int};
use super::op_error::{Failure, OpError};
use super::sizes::check_text_len;
use super::str_ops::{char_len, pad_with};

/// What a `%` conversion needs to know about an operand.
#[derive(Clone, Debug, PartialEq)]
pub enum OperandKind {
    /// An int (or bool, or an object with `__index__`).
    Int(Int),
    /// A float (or an object with `__float__`).
    Float(f64),
    /// A str, for `%c` of a str.
    Str(String),
    /// The bytes of a bytes or bytearray, for `%c` of bytes.
    Bytes(Vec<u8>),
    /// Anything else.
    Other,
}

/// The VM's view of a value for `str % args` and `bytes % args`. `Context` is what the operations need (the
/// VM); errors from user code (`__str__`, `__repr__`, `__getitem__`) pass through as
/// `Self::Error`, and this module's own errors become one through [`Self::error`].
pub trait PercentOperand: Sized + Clone {
    type Context;
    type Error;
    /// Raise one of this module's errors.
    fn error(cx: &mut Self::Context, error: OpError) -> Self::Error;
    fn to_str(&self, cx: &mut Self::Context) -> Result<String, Self::Error>;
    fn to_repr(&self, cx: &mut Self::Context) -> Result<String, Self::Error>;
    /// The bytes of a bytes-like value or of its `__bytes__` (`%s`/`%b` of bytes), None for
    /// any other value.
    fn to_bytes(&self, cx: &mut Self::Context) -> Result<Option<Vec<u8>>, Self::Error>;
    fn kind(&self, cx: &mut Self::Context) -> Result<OperandKind, Self::Error>;
    /// The Python type name, for error messages.
    fn type_name(&self, cx: &mut Self::Context) -> String;
    /// `self[key]` for `%(key)s`: the key is a str, or for [`Flavor::Bytes`] the bytes whose
    /// Latin-1 reading `key` is.
    fn get_item(
        &self,
        cx: &mut Self::Context,
        key: &str,
        flavor: Flavor,
    ) -> Result<Self, Self::Error>;
}

/// What is formatted: a str (`PyUnicode_Format`) or a bytes or bytearray (`_PyBytes_FormatEx`).
/// Bytes are handled here as Latin-1 text, one char per byte, in the format and in the
/// result ([`latin1_text`], [`latin1_bytes`]), so widths and precisions count bytes.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Flavor {
    Text,
    Bytes,
}

/// `data` read as Latin-1: each byte the char with its value.
pub fn latin1_text(data: &[u8]) -> String {
    data.iter().map(|&b| char::from(b)).collect()
}

/// The bytes of a text made by [`latin1_text`] and the conversions of [`Flavor::Bytes`],
/// every char of which is below U+0100.
pub fn latin1_bytes(text: &str) -> Vec<u8> {
    text.chars().map(|c| c as u32 as u8).collect()
}

/// The right operand of `%`.
pub enum PercentArgs<'a, V> {
    /// A tuple: its items are the arguments.
    Tuple(&'a [V]),
    /// Any other value: the single argument, or the mapping for `%(key)` when
    /// `is_mapping` (its type supports `[]` and it is not a tuple or a str, nor for bytes a
    /// bytes or bytearray).
    Single { value: &'a V, is_mapping: bool },
}

/// Where the next argument comes from (CPython's `arglen`/`argidx` state machine).
enum ArgSource<'a, V> {
    Tuple { items: &'a [V], next: usize },
    Single { value: V, used: bool },
}

impl<V: PercentOperand> ArgSource<'_, V> {
    fn next(&mut self) -> Result<V, Failure<V::Error>> {
        let not_enough = || OpError::type_error("not enough arguments for format string");
        match self {
            ArgSource::Tuple { items, next } => {
                let item = items.get(*next).cloned().ok_or_else(not_enough)?;
                *next += 1;
                Ok(item)
            }
            ArgSource::Single { value, used } => {
                if *used {
                    return Err(not_enough().into());
                }
                *used = true;
                Ok(value.clone())
            }
        }
    }
}

/// The flags, width and precision of one `%` conversion.
#[derive(Default)]
struct Conversion {
    left: bool,
    plus: bool,
    space: bool,
    alternate: bool,
    zero: bool,
    width: usize,
    precision: Option<usize>,
}

/// `format % args`, as `PyUnicode_Format` or, for [`Flavor::Bytes`], `_PyBytes_FormatEx`
/// (with `format` and the result in Latin-1, see [`Flavor`]).
pub fn percent_format<V: PercentOperand>(
    cx: &mut V::Context,
    format: &str,
    args: PercentArgs<'_, V>,
    flavor: Flavor,
) -> Result<String, V::Error> {
    match format_all(cx, format, args, flavor) {
        Ok(text) => Ok(text),
        Err(Failure::Op(error)) => Err(V::error(cx, error)),
        Err(Failure::Raised(error)) => Err(error),
    }
}

fn format_all<V: PercentOperand>(
    cx: &mut V::Context,
    format: &str,
    args: PercentArgs<'_, V>,
    flavor: Flavor,
) -> Result<String, Failure<V::Error>> {
    let (mut source, mapping) = match args {
        PercentArgs::Tuple(items) => (ArgSource::Tuple { items, next: 0 }, None),
        PercentArgs::Single { value, is_mapping } => (
            ArgSource::Single {
                value: value.clone(),
                used: false,
            },
            is_mapping.then_some(value),
        ),
    };
    let chars: Vec<char> = format.chars().collect();
    let mut out = String::with_capacity(format.len());
    let mut pos = 0;
    let incomplete = || OpError::value("incomplete format");
    while pos < chars.len() {
        if chars[pos] != '%' {
            out.push(chars[pos]);
            pos += 1;
            continue;
        }
        pos += 1;
        if chars.get(pos) == Some(&'%') {
            out.push('%');
            pos += 1;
            continue;
        }
        if chars.get(pos) == Some(&'(') {
            let Some(mapping) = mapping else {
                return Err(OpError::type_error("format requires a mapping").into());
            };
            let key_start = pos + 1;
            let mut depth = 1;
            pos += 1;
            while pos < chars.len() && depth > 0 {
                match chars[pos] {
                    '(' => depth += 1,
                    ')' => depth -= 1,
                    _ => {}
                }
                pos += 1;
            }
            if depth > 0 {
                return Err(OpError::value("incomplete format key").into());
            }
            let key: String = chars[key_start..pos - 1].iter().collect();
            source = ArgSource::Single {
                value: mapping
                    .get_item(cx, &key, flavor)
                    .map_err(Failure::Raised)?,
                used: false,
            };
        }
        let mut conversion = Conversion::default();
        while let Some(flag) = chars.get(pos) {
            match flag {
                '-' => conversion.left = true,
                '+' => conversion.plus = true,
                ' ' => conversion.space = true,
                '#' => conversion.alternate = true,
                '0' => conversion.zero = true,
                _ => break,
            }
            pos += 1;
        }
        if chars.get(pos) == Some(&'*') {
            let width = star_argument(cx, &mut source)?;
            conversion.left |= width < 0;
            conversion.width = width.unsigned_abs() as usize;
            pos += 1;
        } else {
            conversion.width = read_digits(&chars, &mut pos).unwrap_or(0);
        }
        if chars.get(pos) == Some(&'.') {
            pos += 1;
            if chars.get(pos) == Some(&'*') {
                conversion.precision = Some(star_argument(cx, &mut source)?.max(0) as usize);
                pos += 1;
            } else {
                conversion.precision = Some(read_digits(&chars, &mut pos).unwrap_or(0));
            }
        }
        check_text_len(conversion.width)?;
        check_text_len(conversion.precision.unwrap_or(0))?;
        while matches!(chars.get(pos), Some('h' | 'l' | 'L')) {
            pos += 1;
        }
        let Some(&code) = chars.get(pos) else {
            return Err(incomplete().into());
        };
        pos += 1;
        if code == '%' {
            out.push('%');
            continue;
        }
        let known = match flavor {
            Flavor::Text => "sradiucxXoeEfFgG",
            Flavor::Bytes => "sbradiucxXoeEfFgG",
        };
        if !known.contains(code) {
            let shown = if code.is_ascii() { code } else { '?' };
            return Err(OpError::value(format!(
                "unsupported format character '{shown}' (0x{:x}) at index {}",
                code as u32,
                pos - 1
            ))
            .into());
        }
        let value = source.next()?;
        out.push_str(&convert_one(cx, &value, code, &conversion, flavor)?);
    }
    let leftover = match &source {
        ArgSource::Tuple { items, next } => *next < items.len(),
        ArgSource::Single { used, .. } => !used && mapping.is_none(),
    };
    if leftover {
        let what = match flavor {
            Flavor::Text => "string",
            Flavor::Bytes => "bytes",
        };
        let message = format!("not all arguments converted during {what} formatting");
        return Err(OpError::type_error(message).into());
    }
    Ok(out)
}

fn read_digits(chars: &[char], pos: &mut usize) -> Option<usize> {
    let start = *pos;
    while chars.get(*pos).is_some_and(char::is_ascii_digit) {
        *pos += 1;
    }
    let digits: String = chars[start..*pos].iter().collect();
    // An overflowing number is "too big", which the caller's size check reports.
    (!digits.is_empty()).then(|| digits.parse().unwrap_or(usize::MAX))
}

/// The value of a `*` width or precision: the next argument, which must be an int.
fn star_argument<V: PercentOperand>(
    cx: &mut V::Context,
    source: &mut ArgSource<'_, V>,
) -> Result<i64, Failure<V::Error>> {
    match source.next()?.kind(cx).map_err(Failure::Raised)? {
        OperandKind::Int(Int::Small(n)) => Ok(n),
        _ => Err(OpError::type_error("* wants int").into()),
    }
}

/// One conversion: `%s %r %a %c %d %i %u %x %X %o %e %E %f %F %g %G`, and `%b` of bytes.
fn convert_one<V: PercentOperand>(
    cx: &mut V::Context,
    value: &V,
    code: char,
    conversion: &Conversion,
    flavor: Flavor,
) -> Result<String, Failure<V::Error>> {
    let text_with_precision = |text: String| match conversion.precision {
        Some(precision) => text.chars().take(precision).collect(),
        None => text,
    };
    let text = match (code, flavor) {
        ('s', Flavor::Text) => text_with_precision(value.to_str(cx).map_err(Failure::Raised)?),
        ('s' | 'b', Flavor::Bytes) => {
            let Some(data) = value.to_bytes(cx).map_err(Failure::Raised)? else {
                let message = format!(
                    "%b requires a bytes-like object, or an object that implements \
                     __bytes__, not '{}'",
                    value.type_name(cx)
                );
                return Err(OpError::type_error(message).into());
            };
            let end = conversion
                .precision
                .map_or(data.len(), |p| p.min(data.len()));
            latin1_text(&data[..end])
        }
        ('r', Flavor::Text) => text_with_precision(value.to_repr(cx).map_err(Failure::Raised)?),
        ('a', _) | ('r', Flavor::Bytes) => text_with_precision(escape_non_ascii(
            &value.to_repr(cx).map_err(Failure::Raised)?,
        )),
        ('c', Flavor::Text) => percent_char(cx, value)?.to_string(),
        ('c', Flavor::Bytes) => percent_byte(cx, value)?.to_string(),
        ('d' | 'i' | 'u', _) => {
            let int = match value.kind(cx).map_err(Failure::Raised)? {
                OperandKind::Int(int) => int,
                OperandKind::Float(x) => float_to_int(x)?,
                _ => {
                    let message = format!(
                        "%{code} format: a real number is required, not {}",
                        value.type_name(cx)
                    );
                    return Err(OpError::type_error(message).into());
                }
            };
            return Ok(pad_number(
                &int.to_string(),
                "",
                conversion,
                conversion.precision,
            ));
        }
        ('x' | 'X' | 'o', _) => {
            let OperandKind::Int(int) = value.kind(cx).map_err(Failure::Raised)? else {
                let message = format!(
                    "%{code} format: an integer is required, not {}",
                    value.type_name(cx)
                );
                return Err(OpError::type_error(message).into());
            };
            let radix = if code == 'o' { 8 } else { 16 };
            let mut digits = int.to_radix(radix, false);
            let prefix = match (conversion.alternate, code) {
                (false, _) => "",
                (true, 'o') => "0o",
                (true, 'x') => "0x",
                (true, _) => "0X",
            };
            if code == 'X' {
                digits.make_ascii_uppercase();
            }
            return Ok(pad_number(
                &digits,
                prefix,
                conversion,
                conversion.precision,
            ));
        }
        _ => {
            let x = match value.kind(cx).map_err(Failure::Raised)? {
                OperandKind::Int(int) => int.to_f64()?,
                OperandKind::Float(x) => x,
                _ => {
                    let message = match flavor {
                        Flavor::Text => format!("must be real number, not {}", value.type_name(cx)),
                        Flavor::Bytes => {
                            format!("float argument required, not {}", value.type_name(cx))
                        }
                    };
                    return Err(OpError::type_error(message).into());
                }
            };
            let precision = conversion.precision.unwrap_or(6);
            let float_code = match code.to_ascii_lowercase() {
                'e' => FloatCode::Exponent(precision),
                'f' => FloatCode::Fixed(precision),
                _ => FloatCode::General(precision),
            };
            let flags = FloatFlags {
                alternate: conversion.alternate,
                ..FloatFlags::default()
            };
            let mut text = double_to_string(x, float_code, flags);
            if code.is_ascii_uppercase() {
                text.make_ascii_uppercase();
            }
            return Ok(pad_number(&text, "", conversion, None));
        }
    };
    let fill = conversion.width.saturating_sub(char_len(&text));
    Ok(if conversion.left {
        pad_with(&text, 0, fill, ' ')
    } else {
        pad_with(&text, fill, 0, ' ')
    })
}

/// `%c`: an int code point or a one-character str.
fn percent_char<V: PercentOperand>(
    cx: &mut V::Context,
    value: &V,
) -> Result<char, Failure<V::Error>> {
    match value.kind(cx).map_err(Failure::Raised)? {
        OperandKind::Int(int) => int
            .as_i64()
            .and_then(|v| u32::try_from(v).ok())
            .and_then(char::from_u32)
            .ok_or_else(|| OpError::overflow("%c arg not in range(0x110000)").into()),
        OperandKind::Str(text) if char_len(&text) == 1 => Ok(text.chars().next().unwrap_or(' ')),
        _ => Err(OpError::type_error("%c requires int or char").into()),
    }
}

/// `%c` of bytes: an int below 256 or a bytes or bytearray of one byte, as the char of
/// that byte's Latin-1 reading.
fn percent_byte<V: PercentOperand>(
    cx: &mut V::Context,
    value: &V,
) -> Result<char, Failure<V::Error>> {
    match value.kind(cx).map_err(Failure::Raised)? {
        OperandKind::Int(int) => int
            .as_i64()
            .and_then(|v| u8::try_from(v).ok())
            .map(char::from)
            .ok_or_else(|| OpError::overflow("%c arg not in range(256)").into()),
        OperandKind::Bytes(data) if data.len() == 1 => Ok(char::from(data[0])),
        _ => {
            Err(OpError::type_error("%c requires an integer in range(256) or a single byte").into())
        }
    }
}

/// Sign, prefix and zero/space padding of a numeric `%` conversion. `text` may start with
/// `-`; `min_digits` (an int conversion's precision) pads the digits with zeros.
fn pad_number(
    text: &str,
    prefix: &str,
    conversion: &Conversion,
    min_digits: Option<usize>,
) -> String {
    let (negative, digits) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let sign = if negative {
        "-"
    } else if conversion.plus {
        "+"
    } else if conversion.space {
        " "
    } else {
        ""
    };
    let zeros = min_digits.unwrap_or(0).saturating_sub(digits.len());
    let digits = format!("{}{digits}", "0".repeat(zeros));
    let body_len = sign.len() + prefix.len() + char_len(&digits);
    let fill = conversion.width.saturating_sub(body_len);
    if conversion.left {
        format!("{sign}{prefix}{digits}{}", " ".repeat(fill))
    } else if conversion.zero {
        format!("{sign}{prefix}{}{digits}", "0".repeat(fill))
    } else {
        format!("{}{sign}{prefix}{digits}", " ".repeat(fill))
    }
}

#[cfg(test)]
mod tests {
    use super::super::chars::str_repr;
    use super::*;

    // Every expected value below was printed by python3.13.

    /// A stand-in for VM values in `%` tests.
    #[derive(Clone, Debug)]
    enum Value {
        Int(i64),
        Float(f64),
        Str(&'static str),
        Bytes(&'static [u8]),
        None,
        Dict(Vec<(&'static str, Value)>),
    }

    impl PercentOperand for Value {
        type Context = ();
        type Error = OpError;
        fn error(_: &mut (), error: OpError) -> OpError {
            error
        }
        fn to_str(&self, cx: &mut ()) -> Result<String, OpError> {
            Ok(match self {
                Value::Str(s) => s.to_string(),
                other => other.to_repr(cx)?,
            })
        }
        fn to_repr(&self, _: &mut ()) -> Result<String, OpError> {
            Ok(match self {
                Value::Int(n) => n.to_string(),
                Value::Float(x) => super::super::float_repr::float_repr(*x),
                Value::Str(s) => str_repr(s),
                Value::Bytes(_) => "b'...'".to_string(),
                Value::None => "None".to_string(),
                Value::Dict(_) => "{...}".to_string(),
            })
        }
        fn kind(&self, _: &mut ()) -> Result<OperandKind, OpError> {
            Ok(match self {
                Value::Int(n) => OperandKind::Int(Int::Small(*n)),
                Value::Float(x) => OperandKind::Float(*x),
                Value::Str(s) => OperandKind::Str(s.to_string()),
                Value::Bytes(data) => OperandKind::Bytes(data.to_vec()),
                _ => OperandKind::Other,
            })
        }
        fn type_name(&self, _: &mut ()) -> String {
            match self {
                Value::Int(_) => "int",
                Value::Float(_) => "float",
                Value::Str(_) => "str",
                Value::Bytes(_) => "bytes",
                Value::None => "NoneType",
                Value::Dict(_) => "dict",
            }
            .to_string()
        }
        fn to_bytes(&self, _: &mut ()) -> Result<Option<Vec<u8>>, OpError> {
            Ok(match self {
                Value::Bytes(data) => Some(data.to_vec()),
                _ => None,
            })
        }
        fn get_item(&self, _: &mut (), key: &str, _: Flavor) -> Result<Value, OpError> {
            match self {
                Value::Dict(items) => items
                    .iter()
                    .find(|(k, _)| *k == key)
                    .map(|(_, v)| v.clone())
                    .ok_or_else(|| {
                        OpError::new(super::super::op_error::ErrorKind::KeyError, str_repr(key))
                    }),
                _ => Err(OpError::type_error("not subscriptable")),
            }
        }
    }

    fn tuple(format: &str, items: &[Value]) -> String {
        percent_format(&mut (), format, PercentArgs::Tuple(items), Flavor::Text)
            .unwrap_or_else(|e| e.to_string())
    }

    fn single(format: &str, value: Value) -> String {
        let is_mapping = matches!(value, Value::Dict(_));
        percent_format(
            &mut (),
            format,
            PercentArgs::Single {
                value: &value,
                is_mapping,
            },
            Flavor::Text,
        )
        .unwrap_or_else(|e| e.to_string())
    }

    /// `format % items` of bytes, the format and the result read as Latin-1.
    fn bytes(format: &[u8], items: &[Value]) -> String {
        percent_format(
            &mut (),
            &latin1_text(format),
            PercentArgs::Tuple(items),
            Flavor::Bytes,
        )
        .unwrap_or_else(|e| e.to_string())
    }

    #[test]
    fn percent_operator() {
        use Value::*;
        assert_eq!(single("%d items", Int(5)), "5 items");
        assert_eq!(
            tuple("%5.2f|%-6d|%x|%%", &[Float(3.14259), Int(42), Int(255)]),
            " 3.14|42    |ff|%"
        );
        assert_eq!(tuple("%s %r", &[Str("a"), Str("a")]), "a 'a'");
        assert_eq!(
            single("%c", Str("ab")),
            "TypeError: %c requires int or char"
        );
        assert_eq!(single("%c", Int(65)), "A");
        assert_eq!(
            single("%c", Int(1 << 40)),
            "OverflowError: %c arg not in range(0x110000)"
        );
        assert_eq!(
            single("%d", Str("3")),
            "TypeError: %d format: a real number is required, not str"
        );
        assert_eq!(
            single("%i", Str("x")),
            "TypeError: %i format: a real number is required, not str"
        );
        assert_eq!(single("%d", Float(3.7)), "3");
        assert_eq!(
            single("%x", Float(3.0)),
            "TypeError: %x format: an integer is required, not float"
        );
        assert_eq!(
            single("%f", Str("x")),
            "TypeError: must be real number, not str"
        );
        assert_eq!(
            single("%e", None),
            "TypeError: must be real number, not NoneType"
        );
        assert_eq!(
            single("%q", Int(1)),
            "ValueError: unsupported format character 'q' (0x71) at index 1"
        );
        assert_eq!(
            single("%é", Int(1)),
            "ValueError: unsupported format character '?' (0xe9) at index 1"
        );
        assert_eq!(single("abc %", Int(1)), "ValueError: incomplete format");
        assert_eq!(
            single("%s %s", Int(1)),
            "TypeError: not enough arguments for format string"
        );
        assert_eq!(
            tuple("%s", &[Int(1), Int(2)]),
            "TypeError: not all arguments converted during string formatting"
        );
        assert_eq!(
            single("x", Int(5)),
            "TypeError: not all arguments converted during string formatting"
        );
        assert_eq!(single("x", Dict(vec![])), "x");
        assert_eq!(
            single("%(a)s", Int(5)),
            "TypeError: format requires a mapping"
        );
        assert_eq!(
            single("%(a)s %(b)05d", Dict(vec![("a", Int(1)), ("b", Int(2))])),
            "1 00002"
        );
        assert_eq!(
            single("%(a", Dict(vec![])),
            "ValueError: incomplete format key"
        );
        assert_eq!(
            single("%(a)s %s", Dict(vec![("a", Int(1))])),
            "TypeError: not enough arguments for format string"
        );
        assert_eq!(single("%s %(a)s", Dict(vec![("a", Int(1))])), "{...} 1");
        assert_eq!(tuple("%*d", &[Int(5), Int(3)]), "    3");
        assert_eq!(tuple("%*d", &[Str("a"), Int(3)]), "TypeError: * wants int");
        assert_eq!(tuple("%.*f", &[Int(2), Float(3.14259)]), "3.14");
        assert_eq!(tuple("%-*d|", &[Int(4), Int(1)]), "1   |");
        assert_eq!(tuple("%*s", &[Int(-5), Str("a")]), "a    ");
        assert_eq!(single("%010f", Float(f64::INFINITY)), "0000000inf");
        assert_eq!(single("%+05d", Int(3)), "+0003");
        assert_eq!(
            tuple("%#x %#o %#X", &[Int(255), Int(8), Int(255)]),
            "0xff 0o10 0XFF"
        );
        assert_eq!(single("%.3d", Int(5)), "005");
        assert_eq!(single("%-05d|", Int(3)), "3    |");
        assert_eq!(single("% d", Int(5)), " 5");
        assert_eq!(single("%05s", Str("ab")), "   ab");
        assert_eq!(single("%.2s", Str("abc")), "ab");
        assert_eq!(single("%e", Float(12345.678)), "1.234568e+04");
        assert_eq!(single("%g", Float(0.00001)), "1e-05");
        assert_eq!(single("%#g", Float(1.0)), "1.00000");
        assert_eq!(single("%r", Str("it's")), "\"it's\"");
        assert_eq!(single("%a", Str("é")), "'\\xe9'");
        assert_eq!(single("%ld", Int(7)), "7");
        assert_eq!(single("%x", Int(-255)), "-ff");
        assert_eq!(single("%#.3x", Int(5)), "0x005");
        assert_eq!(single("%+.2e", Float(-0.0)), "-0.00e+00");
        assert_eq!(single("%F", Float(f64::NAN)), "NAN");
        assert_eq!(single("%-8.3s|", Str("abcdef")), "abc     |");
        assert_eq!(single("%3c|", Str("x")), "  x|");
        assert_eq!(single("%.3r", Str("abcdef")), "'ab");
        assert_eq!(single("% 5.1f", Float(2.25)), "  2.2");
        assert_eq!(single("%#o", Int(0)), "0o0");
        assert_eq!(
            single("%d", Float(f64::INFINITY)),
            "OverflowError: cannot convert float infinity to integer"
        );
        assert_eq!(tuple("a%%b", &[]), "a%b");
    }

    #[test]
    fn percent_operator_of_bytes() {
        use Value::*;
        assert_eq!(
            bytes(b"%s|%b|%5s", &[Bytes(b"a"), Bytes(b"b"), Bytes(b"c")]),
            "a|b|    c"
        );
        assert_eq!(bytes(b"\xff%d\x80", &[Int(3)]), "\u{ff}3\u{80}");
        assert_eq!(
            latin1_bytes(&bytes(b"\xff%.1s", &[Bytes(b"\xfe\xfd")])),
            b"\xff\xfe"
        );
        assert_eq!(
            bytes(b"%s", &[Str("x")]),
            "TypeError: %b requires a bytes-like object, or an object that implements \
             __bytes__, not 'str'"
        );
        assert_eq!(bytes(b"%c%c", &[Int(65), Bytes(b"z")]), "Az");
        assert_eq!(
            bytes(b"%c", &[Int(256)]),
            "OverflowError: %c arg not in range(256)"
        );
        assert_eq!(
            bytes(b"%c", &[Str("a")]),
            "TypeError: %c requires an integer in range(256) or a single byte"
        );
        assert_eq!(
            bytes(b"%f", &[Str("x")]),
            "TypeError: float argument required, not str"
        );
        assert_eq!(bytes(b"%r|%a", &[Str("\u{e9}"), Str("x")]), "'\\xe9'|'x'");
        assert_eq!(
            bytes(b"%s", &[Bytes(b"a"), Bytes(b"b")]),
            "TypeError: not all arguments converted during bytes formatting"
        );
        assert_eq!(
            tuple("%b", &[Int(1)]),
            "ValueError: unsupported format character 'b' (0x62) at index 1"
        );
    }
}
