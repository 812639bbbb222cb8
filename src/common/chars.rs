//! Character classes and quoting: Python's notion of whitespace, digits, printable code
//! points, the `str.isX()` predicates, and `repr`/`ascii` of a string. Value-free (plain
//! `char`s and `&str`), shared by `int()`/`float()` parsing (`int_ops`), the `str` methods
//! (`str_ops`), reprs and `--ast`. Mirrors CPython's `Objects/unicodectype.c` and
//! `unicode_repr` in `Objects/unicodeobject.c`.

// ---- predicates -------------------------------------------------------------------------

/// Python's `str.isspace` characters, which `split()`, `strip()`, `int()` and `float()` use.
pub fn is_python_whitespace(c: char) -> bool {
    c.is_whitespace() || ('\x1c'..='\x1f').contains(&c)
}

/// A Unicode decimal digit (category Nd) and its value: what `int()` and `isdecimal` accept.
pub fn decimal_digit_value(c: char) -> Option<u32> {
    if c.is_ascii() {
        return c.to_digit(10);
    }
    if !c.is_numeric() {
        return None;
    }
    // Decimal digits come in runs of ten starting at a zero digit.
    (0..10u32).find(|offset| char::from_u32(c as u32 - offset).is_some_and(is_unicode_zero_digit))
}

/// The zero digits of the common Unicode decimal digit runs (Arabic-Indic, Devanagari, …).
fn is_unicode_zero_digit(c: char) -> bool {
    matches!(
        c as u32,
        0x0660
            | 0x06F0
            | 0x07C0
            | 0x0966
            | 0x09E6
            | 0x0A66
            | 0x0AE6
            | 0x0B66
            | 0x0BE6
            | 0x0C66
            | 0x0CE6
            | 0x0D66
            | 0x0DE6
            | 0x0E50
            | 0x0ED0
            | 0x0F20
            | 0x1040
            | 0x1090
            | 0x17E0
            | 0x1810
            | 0x1946
            | 0x19D0
            | 0xA620
            | 0xA8D0
            | 0xA900
            | 0xAA50
            | 0xFF10
    )
}

/// Digits that are not decimal: superscripts, subscripts, circled digits (category No with
/// a digit value).
fn is_other_digit(c: char) -> bool {
    matches!(c, '²' | '³' | '¹' | '\u{2070}' | '\u{2074}'..='\u{2079}' | '\u{2080}'..='\u{2089}'
        | '\u{2460}'..='\u{2468}' | '\u{2474}'..='\u{247C}' | '\u{2488}'..='\u{2490}'
        | '\u{24F5}'..='\u{24FD}' | '\u{24EA}' | '\u{2776}'..='\u{277E}'
        | '\u{2780}'..='\u{2788}' | '\u{278A}'..='\u{2792}')
}

/// Han characters with a numeric value, which `isnumeric` accepts.
fn is_han_numeral(c: char) -> bool {
    "〇一二三四五六七八九十百千万亿兆零壹贰叁肆伍陆柒捌玖拾佰仟萬億".contains(c)
}

/// The `str.isX()` predicates: false for the empty string (except `isascii`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CharClass {
    Decimal,
    Digit,
    Numeric,
    Alpha,
    Alnum,
    Space,
    Ascii,
    Printable,
}

/// `s.isdecimal()`, `s.isdigit()`, … for every code point of `s`.
pub fn is_all(s: &str, class: CharClass) -> bool {
    let test = |c: char| match class {
        CharClass::Decimal => decimal_digit_value(c).is_some(),
        CharClass::Digit => decimal_digit_value(c).is_some() || is_other_digit(c),
        CharClass::Numeric => c.is_numeric() || is_han_numeral(c),
        CharClass::Alpha => c.is_alphabetic(),
        CharClass::Alnum => c.is_alphanumeric() || is_han_numeral(c),
        CharClass::Space => is_python_whitespace(c),
        CharClass::Ascii => c.is_ascii(),
        CharClass::Printable => is_printable(c),
    };
    match class {
        CharClass::Ascii | CharClass::Printable => s.chars().all(test),
        _ => !s.is_empty() && s.chars().all(test),
    }
}

/// `s.isupper()`: some cased character and no lowercase or titlecase one.
pub fn is_upper(s: &str) -> bool {
    !s.chars().any(|c| c.is_lowercase() || is_titlecase(c)) && s.chars().any(char::is_uppercase)
}

/// `s.islower()`.
pub fn is_lower(s: &str) -> bool {
    !s.chars().any(|c| c.is_uppercase() || is_titlecase(c)) && s.chars().any(char::is_lowercase)
}

/// `s.istitle()`: uppercase only after uncased, lowercase only after cased characters.
pub fn is_title(s: &str) -> bool {
    let mut cased = false;
    let mut previous_is_cased = false;
    for c in s.chars() {
        if c.is_uppercase() || is_titlecase(c) {
            if previous_is_cased {
                return false;
            }
            previous_is_cased = true;
            cased = true;
        } else if c.is_lowercase() {
            if !previous_is_cased {
                return false;
            }
            previous_is_cased = true;
            cased = true;
        } else {
            previous_is_cased = false;
        }
    }
    cased
}

/// `s.isidentifier()` (XID_Start / XID_Continue approximated by alphabetic / alphanumeric).
pub fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    match chars.next() {
        Some(first) if first == '_' || first.is_alphabetic() => {
            chars.all(|c| c == '_' || c.is_alphanumeric() || is_combining_mark(c))
        }
        _ => false,
    }
}

fn is_combining_mark(c: char) -> bool {
    matches!(c, '\u{0300}'..='\u{036F}' | '\u{1AB0}'..='\u{1AFF}' | '\u{1DC0}'..='\u{1DFF}'
        | '\u{20D0}'..='\u{20FF}' | '\u{FE20}'..='\u{FE2F}')
}

/// Python's notion of printable (`str.isprintable`, what `repr` leaves unescaped): not a
/// control, format, separator (other than space), private-use or non-character code point.
pub fn is_printable(c: char) -> bool {
    if c.is_ascii() {
        return (' '..='~').contains(&c);
    }
    let code = c as u32;
    let runs = super::unprintable::UNPRINTABLE;
    let at = runs.partition_point(|&(first, _)| first <= code);
    at.checked_sub(1).is_none_or(|i| code > runs[i].1)
}

// ---- repr ---------------------------------------------------------------------------------

/// `repr(s)`: single quotes unless `s` holds `'` and no `"`; escapes for the quote, `\`,
/// `\t \n \r`, other controls as `\xNN`, unprintable code points as `\xNN`/`\uNNNN`/`\UNNNNNNNN`.
pub fn str_repr(s: &str) -> String {
    let quote = if s.contains('\'') && !s.contains('"') {
        '"'
    } else {
        '\''
    };
    let mut out = String::with_capacity(s.len() + 2);
    out.push(quote);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            _ if c == quote => {
                out.push('\\');
                out.push(c);
            }
            _ if is_printable(c) => out.push(c),
            _ => push_code_point_escape(&mut out, c),
        }
    }
    out.push(quote);
    out
}

/// `repr(b)` of bytes (`bytes_repr` in `Objects/bytesobject.c`): `b'…'`, quoted as
/// [`str_repr`] quotes, every byte outside printable ASCII as `\xNN`.
pub fn bytes_repr(bytes: &[u8]) -> String {
    let quote = if bytes.contains(&b'\'') && !bytes.contains(&b'"') {
        b'"'
    } else {
        b'\''
    };
    let mut out = String::with_capacity(bytes.len() + 3);
    out.push('b');
    out.push(quote as char);
    for &b in bytes {
        match b {
            b'\\' => out.push_str("\\\\"),
            b'\t' => out.push_str("\\t"),
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            _ if b == quote => {
                out.push('\\');
                out.push(b as char);
            }
            0x20..0x7f => out.push(b as char),
            _ => out.push_str(&format!("\\x{b:02x}")),
        }
    }
    out.push(quote as char);
    out
}

/// `\xNN`, `\uNNNN` or `\UNNNNNNNN`, the shortest that fits.
pub fn push_code_point_escape(out: &mut String, c: char) {
    let code = c as u32;
    let escape = if code < 0x100 {
        format!("\\x{code:02x}")
    } else if code < 0x10000 {
        format!("\\u{code:04x}")
    } else {
        format!("\\U{code:08x}")
    };
    out.push_str(&escape);
}

/// `ascii(obj)` given `repr(obj)`: every non-ASCII code point escaped.
pub fn escape_non_ascii(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_ascii() {
            out.push(c);
        } else {
            push_code_point_escape(&mut out, c);
        }
    }
    out
}

/// A titlecase letter (category Lt), such as the digraph `ǅ`.
pub fn is_titlecase(c: char) -> bool {
    matches!(c, 'ǅ' | 'ǈ' | 'ǋ' | 'ǲ')
}

#[cfg(test)]
mod tests {
    use super::*;

    // Every expected value below was printed by python3.13.

    #[test]
    fn predicates() {
        assert!(is_all("123", CharClass::Digit));
        assert!(is_all("²", CharClass::Digit));
        assert!(!is_all("²", CharClass::Decimal));
        assert!(is_all("½", CharClass::Numeric));
        assert!(!is_all("½", CharClass::Digit));
        assert!(is_all("一", CharClass::Numeric));
        assert!(!is_all("", CharClass::Digit));
        assert!(is_all("abc1", CharClass::Alnum));
        assert!(is_all(" \t", CharClass::Space));
        assert!(is_all("é", CharClass::Alpha));
        assert!(is_upper("ABC1"));
        assert!(is_lower("abc"));
        assert!(!is_upper("1"));
        assert!(is_identifier("_a1"));
        assert!(!is_identifier("1a"));
        assert!(is_title("Hello World"));
        assert!(!is_title("Hello world"));
        assert!(!is_title("HeLLo"));
        assert!(!is_title(""));
    }

    #[test]
    fn reprs() {
        assert_eq!(str_repr("it's"), "\"it's\"");
        assert_eq!(str_repr("it's \"x\""), "'it\\'s \"x\"'");
        assert_eq!(str_repr("a\nb\t\x07\x7f\\"), "'a\\nb\\t\\x07\\x7f\\\\'");
        assert_eq!(str_repr("é€😀"), "'é€😀'");
        assert_eq!(
            str_repr("\u{a0}\u{200b}\u{2028}\u{e000}\u{e0001}"),
            "'\\xa0\\u200b\\u2028\\ue000\\U000e0001'"
        );
        assert_eq!(str_repr("\x00\u{9f}\u{ad}"), "'\\x00\\x9f\\xad'");
        assert_eq!(str_repr("\""), "'\"'");
        assert_eq!(str_repr(""), "''");
        assert_eq!(escape_non_ascii("'é'"), "'\\xe9'");
    }
}
