//! Text conversions the built-ins need: the format-spec mini-language (`format(v, spec)`,
//! f-string specs), `str.format`, printf-style `%`, and parsing `int()`/`float()` from text.
//! Mirrors `Python/formatter_unicode.c`, `Objects/stringlib/unicode_format.h`,
//! `Objects/longobject.c` (`PyLong_FromString`). Interim versions until the runtime
//! library's complete ones are wired in.

use num_bigint::BigInt;
use num_traits::{Signed, ToPrimitive};

use crate::vm::object::KwArgs;
use crate::vm::repr::float_repr;
use crate::vm::value::Value;
use crate::vm::{PyResult, Vm};

struct Spec {
    fill: char,
    align: Option<char>,
    sign: char,
    alternate: bool,
    width: usize,
    grouping: Option<char>,
    precision: Option<usize>,
    kind: Option<char>,
}

fn parse_spec(vm: &Vm, spec: &str) -> PyResult<Spec> {
    let chars: Vec<char> = spec.chars().collect();
    let mut i = 0;
    let mut s = Spec { fill: ' ', align: None, sign: '-', alternate: false, width: 0, grouping: None, precision: None, kind: None };
    let is_align = |c: char| matches!(c, '<' | '>' | '^' | '=');
    if chars.len() >= 2 && is_align(chars[1]) {
        s.fill = chars[0];
        s.align = Some(chars[1]);
        i = 2;
    } else if !chars.is_empty() && is_align(chars[0]) {
        s.align = Some(chars[0]);
        i = 1;
    }
    if i < chars.len() && matches!(chars[i], '+' | '-' | ' ') {
        s.sign = chars[i];
        i += 1;
    }
    if i < chars.len() && chars[i] == '#' {
        s.alternate = true;
        i += 1;
    }
    if i < chars.len() && chars[i] == '0' {
        if s.align.is_none() {
            s.fill = '0';
            s.align = Some('=');
        }
        i += 1;
    }
    let start = i;
    while i < chars.len() && chars[i].is_ascii_digit() {
        i += 1;
    }
    s.width = chars[start..i].iter().collect::<String>().parse().unwrap_or(0);
    if i < chars.len() && matches!(chars[i], ',' | '_') {
        s.grouping = Some(chars[i]);
        i += 1;
    }
    if i < chars.len() && chars[i] == '.' {
        i += 1;
        let start = i;
        while i < chars.len() && chars[i].is_ascii_digit() {
            i += 1;
        }
        if start == i {
            return Err(vm.value_error("Format specifier missing precision"));
        }
        s.precision = chars[start..i].iter().collect::<String>().parse().ok();
    }
    if i < chars.len() {
        s.kind = Some(chars[i]);
        i += 1;
    }
    if i < chars.len() {
        return Err(vm.value_error("Invalid format specifier"));
    }
    Ok(s)
}

fn group_digits(digits: &str, sep: char, every: usize) -> String {
    let mut out: Vec<char> = Vec::new();
    for (n, c) in digits.chars().rev().enumerate() {
        if n > 0 && n % every == 0 {
            out.push(sep);
        }
        out.push(c);
    }
    out.into_iter().rev().collect()
}

fn pad(s: &Spec, sign: &str, body: &str, default_align: char) -> String {
    let len = sign.chars().count() + body.chars().count();
    if len >= s.width {
        return format!("{sign}{body}");
    }
    let fill_n = s.width - len;
    let fill: String = std::iter::repeat_n(s.fill, fill_n).collect();
    match s.align.unwrap_or(default_align) {
        '<' => format!("{sign}{body}{fill}"),
        '^' => {
            let left: String = std::iter::repeat_n(s.fill, fill_n / 2).collect();
            let right: String = std::iter::repeat_n(s.fill, fill_n - fill_n / 2).collect();
            format!("{left}{sign}{body}{right}")
        }
        '=' => format!("{sign}{fill}{body}"),
        _ => format!("{fill}{sign}{body}"),
    }
}

fn sign_text(s: &Spec, negative: bool) -> &'static str {
    match (negative, s.sign) {
        (true, _) => "-",
        (false, '+') => "+",
        (false, ' ') => " ",
        _ => "",
    }
}

fn format_float_body(f: f64, kind: Option<char>, precision: Option<usize>) -> String {
    let a = f.abs();
    if a.is_nan() {
        return if kind.is_some_and(|k| k.is_ascii_uppercase()) { "NAN".into() } else { "nan".into() };
    }
    if a.is_infinite() {
        return if kind.is_some_and(|k| k.is_ascii_uppercase()) { "INF".into() } else { "inf".into() };
    }
    match kind {
        Some('f' | 'F') => format!("{:.*}", precision.unwrap_or(6), a),
        Some('%') => format!("{:.*}%", precision.unwrap_or(6), a * 100.0),
        Some(k @ ('e' | 'E')) => {
            let s = format!("{:.*e}", precision.unwrap_or(6), a);
            let (m, e) = s.split_once('e').unwrap_or((&s, "0"));
            let e: i32 = e.parse().unwrap_or(0);
            let out = format!("{m}e{}{:02}", if e < 0 { '-' } else { '+' }, e.abs());
            if k == 'E' { out.to_uppercase() } else { out }
        }
        Some(k @ ('g' | 'G')) | Some(k @ 'n') => {
            let p = precision.unwrap_or(6).max(1);
            let out = general(a, p, false);
            if k == 'G' { out.to_uppercase() } else { out }
        }
        _ => match precision {
            None => float_repr(a),
            Some(p) => general(a, p.max(1), true),
        },
    }
}

/// `%g`-style formatting with `p` significant digits (`repr_style` keeps a `.0`).
fn general(a: f64, p: usize, repr_style: bool) -> String {
    if a == 0.0 {
        return if repr_style { "0.0".into() } else { "0".into() };
    }
    let sci = format!("{:.*e}", p - 1, a);
    let (_, e) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = e.parse().unwrap_or(0);
    if exp < -4 || exp >= p as i32 {
        let (m, _) = sci.split_once('e').unwrap_or((&sci, "0"));
        let m = if m.contains('.') { m.trim_end_matches('0').trim_end_matches('.') } else { m };
        format!("{m}e{}{:02}", if exp < 0 { '-' } else { '+' }, exp.abs())
    } else {
        let decimals = (p as i32 - 1 - exp).max(0) as usize;
        let s = format!("{a:.decimals$}");
        let s = if s.contains('.') { s.trim_end_matches('0').trim_end_matches('.').to_string() } else { s };
        if repr_style && !s.contains('.') { format!("{s}.0") } else { s }
    }
}

/// `format(v, spec)` for the built-in types.
pub fn format_spec(vm: &mut Vm, v: &Value, spec: &str) -> PyResult<String> {
    let s = parse_spec(vm, spec)?;
    let bad = |vm: &Vm, kind: char| {
        vm.value_error(format!(
            "Unknown format code '{kind}' for object of type '{}'",
            vm.type_name(v)
        ))
    };
    match v {
        Value::Int(_) | Value::BigInt(_) | Value::Bool(_) if !matches!(s.kind, Some('e' | 'E' | 'f' | 'F' | 'g' | 'G' | '%')) => {
            if matches!(v, Value::Bool(_)) && s.kind.is_none() && s.width == 0 {
                return Ok(vm.str_of(v)?.as_str().to_string());
            }
            let n = match v {
                Value::Int(n) => BigInt::from(*n),
                Value::Bool(b) => BigInt::from(*b as i64),
                Value::BigInt(b) => (**b).clone(),
                _ => unreachable!(),
            };
            let (radix, prefix) = match s.kind {
                None | Some('d') | Some('n') => (10, ""),
                Some('x') => (16, "0x"),
                Some('X') => (16, "0X"),
                Some('o') => (8, "0o"),
                Some('b') => (2, "0b"),
                Some('c') => {
                    let c = n.to_u32().and_then(char::from_u32).unwrap_or('\u{fffd}');
                    return Ok(pad(&s, "", &c.to_string(), '<'));
                }
                Some(k) => return Err(bad(vm, k)),
            };
            if s.precision.is_some() {
                return Err(vm.value_error("Precision not allowed in integer format specifier"));
            }
            let mut digits = n.abs().to_str_radix(radix);
            if s.kind == Some('X') {
                digits = digits.to_uppercase();
            }
            if let Some(g) = s.grouping {
                digits = group_digits(&digits, g, if radix == 10 { 3 } else { 4 });
            }
            let sign = format!("{}{}", sign_text(&s, n.is_negative()), if s.alternate { prefix } else { "" });
            Ok(pad(&s, &sign, &digits, '>'))
        }
        Value::Int(_) | Value::BigInt(_) | Value::Bool(_) | Value::Float(_) => {
            let f = match v {
                Value::Float(f) => *f,
                Value::Int(n) => *n as f64,
                Value::Bool(b) => *b as i64 as f64,
                Value::BigInt(b) => b.to_f64().unwrap_or(f64::INFINITY),
                _ => unreachable!(),
            };
            if let Some(k) = s.kind
                && !matches!(k, 'e' | 'E' | 'f' | 'F' | 'g' | 'G' | '%' | 'n')
            {
                return Err(bad(vm, k));
            }
            let mut body = format_float_body(f, s.kind, s.precision);
            if let Some(g) = s.grouping {
                let (int_part, rest) = match body.find(|c: char| !c.is_ascii_digit()) {
                    Some(i) => (body[..i].to_string(), body[i..].to_string()),
                    None => (body.clone(), String::new()),
                };
                body = format!("{}{rest}", group_digits(&int_part, g, 3));
            }
            let negative = f.is_sign_negative() && !(f == 0.0 && s.kind.is_none() && false);
            let negative = negative && !f.is_nan();
            Ok(pad(&s, sign_text(&s, negative), &body, '>'))
        }
        Value::Str(text) => {
            if let Some(k) = s.kind
                && k != 's'
            {
                return Err(bad(vm, k));
            }
            if s.sign != '-' {
                return Err(vm.value_error("Sign not allowed in string format specifier"));
            }
            let mut body: String = text.as_str().to_string();
            if let Some(p) = s.precision {
                body = body.chars().take(p).collect();
            }
            Ok(pad(&s, "", &body, '<'))
        }
        other => {
            let text = vm.str_of(other)?;
            if !spec.is_empty() {
                return Err(vm.type_error(format!(
                    "unsupported format string passed to {}.__format__",
                    vm.type_name(other)
                )));
            }
            Ok(text.as_str().to_string())
        }
    }
}

/// `str.format(*args, **kwargs)`.
pub fn str_format(vm: &mut Vm, template: &str, args: &[Value], kw: &KwArgs) -> PyResult<String> {
    let mut out = String::new();
    let chars: Vec<char> = template.chars().collect();
    let mut i = 0;
    let mut auto = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '}' {
            if chars.get(i + 1) == Some(&'}') {
                out.push('}');
                i += 2;
                continue;
            }
            return Err(vm.value_error("Single '}' encountered in format string"));
        }
        if c != '{' {
            out.push(c);
            i += 1;
            continue;
        }
        if chars.get(i + 1) == Some(&'{') {
            out.push('{');
            i += 2;
            continue;
        }
        let mut depth = 1;
        let mut j = i + 1;
        while j < chars.len() && depth > 0 {
            match chars[j] {
                '{' => depth += 1,
                '}' => depth -= 1,
                _ => {}
            }
            j += 1;
        }
        if depth > 0 {
            return Err(vm.value_error("expected '}' before end of string"));
        }
        let field: String = chars[i + 1..j - 1].iter().collect();
        i = j;
        let (field, spec) = match field.find(':') {
            Some(p) => (field[..p].to_string(), field[p + 1..].to_string()),
            None => (field, String::new()),
        };
        let (field, conversion) = match field.find('!') {
            Some(p) => (field[..p].to_string(), field[p + 1..].chars().next()),
            None => (field, None),
        };
        let name_end = field.find(['.', '[']).unwrap_or(field.len());
        let (head, mut rest) = (&field[..name_end], &field[name_end..]);
        let mut value = if head.is_empty() {
            let v = args.get(auto).cloned();
            auto += 1;
            v.ok_or_else(|| vm.index_error(format!("Replacement index {} out of range for positional args tuple", auto - 1)))?
        } else if let Ok(n) = head.parse::<usize>() {
            args.get(n)
                .cloned()
                .ok_or_else(|| vm.index_error(format!("Replacement index {n} out of range for positional args tuple")))?
        } else {
            super::kwarg(kw, head).ok_or_else(|| vm.key_error(Value::str(head)))?
        };
        while !rest.is_empty() {
            if let Some(r) = rest.strip_prefix('.') {
                let end = r.find(['.', '[']).unwrap_or(r.len());
                let name = vm.intern(&r[..end]);
                value = vm.get_attr(&value, &name)?;
                rest = &r[end..];
            } else if let Some(r) = rest.strip_prefix('[') {
                let end = r.find(']').unwrap_or(r.len());
                let key = &r[..end];
                let key = key.parse::<i64>().map(Value::Int).unwrap_or_else(|_| Value::str(key));
                value = vm.get_item(&value, &key)?;
                rest = r.get(end + 1..).unwrap_or("");
            } else {
                break;
            }
        }
        let value = match conversion {
            Some('r') => Value::str(vm.repr(&value)?),
            Some('s') => Value::Str(vm.str_of(&value)?),
            Some('a') => Value::str(vm.ascii(&value)?),
            _ => value,
        };
        let spec = if spec.contains('{') { str_format(vm, &spec, args, kw)? } else { spec };
        let formatted = vm.format_value(&value, &spec)?;
        out.push_str(vm.str_of(&formatted)?.as_str());
    }
    Ok(out)
}

/// `text % args` (printf-style formatting).
pub fn printf_format(vm: &mut Vm, text: &Value, args: &Value) -> PyResult<Value> {
    let Value::Str(template) = text else { return Ok(Value::NotImplemented) };
    let items: Vec<Value> = match args {
        Value::Tuple(t) => t.items.to_vec(),
        other => vec![other.clone()],
    };
    let mapping = matches!(args, Value::Dict(_));
    let chars: Vec<char> = template.as_str().chars().collect();
    let mut out = String::new();
    let mut next = 0;
    let mut i = 0;
    while i < chars.len() {
        if chars[i] != '%' {
            out.push(chars[i]);
            i += 1;
            continue;
        }
        i += 1;
        let mut value = None;
        if chars.get(i) == Some(&'(') {
            let end = chars[i..].iter().position(|c| *c == ')').map_or(chars.len(), |p| p + i);
            let key: String = chars[i + 1..end].iter().collect();
            value = Some(vm.get_item(args, &Value::str(key))?);
            i = end + 1;
        }
        let mut flags = String::new();
        while i < chars.len() && matches!(chars[i], '-' | '+' | ' ' | '#' | '0') {
            flags.push(chars[i]);
            i += 1;
        }
        let mut width = String::new();
        while i < chars.len() && chars[i].is_ascii_digit() {
            width.push(chars[i]);
            i += 1;
        }
        let mut precision = None;
        if chars.get(i) == Some(&'.') {
            i += 1;
            let mut p = String::new();
            while i < chars.len() && chars[i].is_ascii_digit() {
                p.push(chars[i]);
                i += 1;
            }
            precision = Some(p);
        }
        let Some(&conv) = chars.get(i) else {
            return Err(vm.value_error("incomplete format"));
        };
        i += 1;
        if conv == '%' {
            out.push('%');
            continue;
        }
        let value = match value {
            Some(v) => v,
            None if mapping => args.clone(),
            None => {
                let v = items.get(next).cloned().ok_or_else(|| vm.type_error("not enough arguments for format string"))?;
                next += 1;
                v
            }
        };
        let align = if flags.contains('-') { "<" } else { ">" };
        let zero = if flags.contains('0') && !flags.contains('-') { "0" } else { "" };
        let sign = if flags.contains('+') { "+" } else if flags.contains(' ') { " " } else { "" };
        let prec = precision.map(|p| format!(".{}", if p.is_empty() { "0".into() } else { p })).unwrap_or_default();
        let piece = match conv {
            's' | 'r' | 'a' => {
                let s = match conv {
                    's' => vm.str_of(&value)?.as_str().to_string(),
                    'r' => vm.repr(&value)?,
                    _ => vm.ascii(&value)?,
                };
                let spec = format!("{align}{width}{prec}");
                format_spec(vm, &Value::str(s), &spec)?
            }
            'd' | 'i' | 'u' => {
                let n = match &value {
                    Value::Float(f) => super::float_to_int(f.trunc()),
                    Value::Int(_) | Value::BigInt(_) | Value::Bool(_) => value.clone(),
                    other => {
                        return Err(vm.type_error(format!(
                            "%{conv} format: a real number is required, not {}",
                            vm.type_name(other)
                        )));
                    }
                };
                let spec = if zero.is_empty() { format!("{align}{sign}{width}d") } else { format!("{sign}0{width}d") };
                format_spec(vm, &n, &spec)?
            }
            'x' | 'X' | 'o' => {
                let alt = if flags.contains('#') { "#" } else { "" };
                let spec = format!("{align}{sign}{alt}{zero}{width}{conv}");
                format_spec(vm, &value, &spec)?
            }
            'f' | 'F' | 'e' | 'E' | 'g' | 'G' => {
                let prec = if prec.is_empty() { ".6".to_string() } else { prec };
                let spec = if zero.is_empty() {
                    format!("{align}{sign}{width}{prec}{conv}")
                } else {
                    format!("{sign}0{width}{prec}{conv}")
                };
                let f = match &value {
                    Value::Str(_) => {
                        return Err(vm.type_error(format!("must be real number, not {}", vm.type_name(&value))));
                    }
                    other => other.clone(),
                };
                format_spec(vm, &f, &spec)?
            }
            'c' => match &value {
                Value::Str(s) => s.as_str().to_string(),
                other => format_spec(vm, other, "c")?,
            },
            other => {
                return Err(vm.value_error(format!(
                    "unsupported format character '{other}' (0x{:x}) at index {}",
                    other as u32,
                    i - 1
                )));
            }
        };
        out.push_str(&piece);
    }
    if !mapping && next < items.len() {
        return Err(vm.type_error("not all arguments converted during string formatting"));
    }
    Ok(Value::str(out))
}

/// `int(text, base)`.
pub fn parse_int(vm: &mut Vm, text: &str, base: u32) -> PyResult<Value> {
    let invalid = |vm: &Vm| {
        vm.value_error(format!(
            "invalid literal for int() with base {base}: {}",
            crate::vm::repr::str_repr(text)
        ))
    };
    if base == 1 || base > 36 {
        return Err(vm.value_error("int() base must be >= 2 and <= 36, or 0"));
    }
    let t = text.trim();
    let (negative, t) = match t.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, t.strip_prefix('+').unwrap_or(t)),
    };
    let lower = t.to_ascii_lowercase();
    let (radix, digits) = match (base, lower.get(..2)) {
        (0 | 16, Some("0x")) => (16, &t[2..]),
        (0 | 8, Some("0o")) => (8, &t[2..]),
        (0 | 2, Some("0b")) => (2, &t[2..]),
        (0, _) => (10, t),
        (b, _) => (b, t),
    };
    let digits = digits.strip_prefix('_').filter(|_| radix != base || base == 0).unwrap_or(digits);
    if digits.is_empty() || digits.starts_with('_') || digits.ends_with('_') || digits.contains("__") {
        return Err(invalid(vm));
    }
    let clean: String = digits.chars().filter(|c| *c != '_').collect();
    if base == 0 && radix == 10 && clean.len() > 1 && clean.starts_with('0') && clean.chars().any(|c| c != '0') {
        return Err(invalid(vm));
    }
    match BigInt::parse_bytes(clean.as_bytes(), radix) {
        Some(n) => Ok(Value::from_bigint(if negative { -n } else { n })),
        None => Err(invalid(vm)),
    }
}

/// `float(text)`.
pub fn parse_float(vm: &mut Vm, text: &str) -> PyResult<f64> {
    let t = text.trim();
    let invalid = |vm: &Vm| vm.value_error(format!("could not convert string to float: {}", crate::vm::repr::str_repr(text)));
    let (sign, body) = match t.strip_prefix('-') {
        Some(rest) => (-1.0, rest),
        None => (1.0, t.strip_prefix('+').unwrap_or(t)),
    };
    match body.to_ascii_lowercase().as_str() {
        "inf" | "infinity" => return Ok(sign * f64::INFINITY),
        "nan" => return Ok(f64::NAN),
        _ => {}
    }
    if body.is_empty() || body.starts_with('_') || body.ends_with('_') || body.contains("__") || !body.chars().all(|c| c.is_ascii_digit() || matches!(c, '.' | 'e' | 'E' | '+' | '-' | '_')) {
        return Err(invalid(vm));
    }
    let clean: String = body.chars().filter(|c| *c != '_').collect();
    clean.parse::<f64>().map(|f| sign * f).map_err(|_| invalid(vm))
}

/// `round(f, ndigits)`: correctly rounded through exact decimal formatting.
pub fn round_float(f: f64, ndigits: i64) -> f64 {
    if !f.is_finite() {
        return f;
    }
    if ndigits >= 0 {
        if ndigits > 320 {
            return f;
        }
        return format!("{:.*}", ndigits as usize, f).parse().unwrap_or(f);
    }
    let scale = 10f64.powi((-ndigits).min(308) as i32);
    let r = (f / scale).round_ties_even() * scale;
    if r.is_finite() { r } else { 0.0 }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn general_format_trims_zeros() {
        assert_eq!(general(0.5, 6, false), "0.5");
        assert_eq!(general(1234567.0, 6, false), "1.23457e+06");
        assert_eq!(group_digits("1234567", ',', 3), "1,234,567");
        assert_eq!(round_float(2.675, 2), 2.67);
    }
}
