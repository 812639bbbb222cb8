//! Character classes and quoting: Python's notion of whitespace, digits, printable code
//! points, the `str.isX()` predicates, and `repr`/`ascii` of a string. Value-free (plain
//! `char`s and `&str`), shared by `int()`/`float()` parsing (`int_ops`), the `str` methods
//! (`str_ops`), reprs and `--ast`. Mirrors CPython's `Objects/unicodectype.c` and
//! `unicode_repr` in `Objects/unicodeobject.c`; what is not ASCII is looked up in the
//! Unicode database CPython 3.13 has (`unicode_data`, `unprintable`).

use super::unicode_data::ucd;

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
    u32::try_from(ucd().numeric(c)?.decimal).ok()
}

/// Whether `c` is a letter (category Lu, Ll, Lt, Lm or Lo), as `str.isalpha` counts.
fn is_letter(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_alphabetic();
    }
    matches!(ucd().category(c), "Lu" | "Ll" | "Lt" | "Lm" | "Lo")
}

/// Whether `c` has a digit value (decimal digits, superscripts, circled digits, …).
fn is_digit(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_digit();
    }
    ucd().numeric(c).is_some_and(|n| n.digit >= 0)
}

/// `c.isalnum()`: a letter or a character with a numeric value (also sre's `\w`).
pub fn is_alnum(c: char) -> bool {
    is_letter(c) || is_numeric(c)
}

/// Whether `c` has a numeric value (digits, fractions, Roman numerals, Han numerals, …).
fn is_numeric(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_digit();
    }
    ucd().numeric(c).is_some()
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
        CharClass::Digit => is_digit(c),
        CharClass::Numeric => is_numeric(c),
        CharClass::Alpha => is_letter(c),
        CharClass::Alnum => is_alnum(c),
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
    !s.chars().any(|c| is_lowercase(c) || is_titlecase(c)) && s.chars().any(is_uppercase)
}

/// `s.islower()`.
pub fn is_lower(s: &str) -> bool {
    !s.chars().any(|c| is_uppercase(c) || is_titlecase(c)) && s.chars().any(is_lowercase)
}

/// `s.istitle()`: uppercase only after uncased, lowercase only after cased characters.
pub fn is_title(s: &str) -> bool {
    let mut cased = false;
    let mut previous_is_cased = false;
    for c in s.chars() {
        if is_uppercase(c) || is_titlecase(c) {
            if previous_is_cased {
                return false;
            }
            previous_is_cased = true;
            cased = true;
        } else if is_lowercase(c) {
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

/// `s.isidentifier()`: XID_Start (or `_`) then XID_Continue, as CPython's tables have them.
pub fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    let Some(first) = chars.next() else {
        return false;
    };
    let start = match first.is_ascii() {
        true => first == '_' || first.is_ascii_alphabetic(),
        false => ucd().is_identifier_start(first),
    };
    start
        && chars.all(|c| match c.is_ascii() {
            true => c == '_' || c.is_ascii_alphanumeric(),
            false => ucd().is_identifier_continue(c),
        })
}

/// An uppercase character (category Lu or Other_Uppercase), as `str.isupper` counts.
pub fn is_uppercase(c: char) -> bool {
    match c.is_ascii() {
        true => c.is_ascii_uppercase(),
        false => ucd().is_uppercase(c),
    }
}

/// A lowercase character (category Ll or Other_Lowercase), as `str.islower` counts.
pub fn is_lowercase(c: char) -> bool {
    match c.is_ascii() {
        true => c.is_ascii_lowercase(),
        false => ucd().is_lowercase(c),
    }
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
    !c.is_ascii() && ucd().category(c) == "Lt"
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
