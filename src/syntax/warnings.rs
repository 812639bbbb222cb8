//! The SyntaxWarnings the lexer finds: an invalid escape sequence in a string or bytes
//! literal (`"\d"`, `"\777"`), which CPython's string decoder warns of and keeps as
//! written. Collected, with their offsets, while one source is parsed
//! ([`super::parse_module_warned`]); the first of each literal only, as CPython reports it.

use std::cell::RefCell;

thread_local! {
    static FOUND: RefCell<Vec<(usize, String)>> = const { RefCell::new(Vec::new()) };
}

/// Notes a warning at `offset` of the source being parsed.
pub fn note(offset: usize, message: String) {
    FOUND.with(|found| found.borrow_mut().push((offset, message)));
}

/// Forgets what an earlier parse noted.
pub fn clear() {
    FOUND.with(|found| found.borrow_mut().clear());
}

/// What the parse noted, in source order of the literals.
pub fn take() -> Vec<(usize, String)> {
    FOUND.with(|found| std::mem::take(&mut *found.borrow_mut()))
}

/// The warning for the escape at `body[at] == b'\\'` of a str literal written as `body`,
/// if it is invalid: an unknown escape, or an octal one past 0o377.
pub fn invalid_str_escape(body: &str, at: usize) -> Option<String> {
    let c = body[at + 1..].chars().next()?;
    match c {
        '\n' | '\r' | '\\' | '\'' | '"' | 'a' | 'b' | 'f' | 'n' | 'r' | 't' | 'v' | 'x' | 'u'
        | 'U' | 'N' => None,
        '0'..='7' => invalid_octal(&body[at + 1..]),
        _ => Some(format!("invalid escape sequence '\\{c}'")),
    }
}

/// The first invalid escape of a bytes literal written as `body` (`\u` and `\N` are not
/// escapes in bytes).
pub fn invalid_bytes_escape(body: &str) -> Option<String> {
    let mut chars = body.char_indices();
    while let Some((at, c)) = chars.next() {
        if c != '\\' {
            continue;
        }
        let (_, next) = chars.next()?;
        match next {
            '\n' | '\r' | '\\' | '\'' | '"' | 'a' | 'b' | 'f' | 'n' | 'r' | 't' | 'v' | 'x' => {}
            '0'..='7' => {
                if let Some(message) = invalid_octal(&body[at + 1..]) {
                    return Some(message);
                }
            }
            _ => return Some(format!("invalid escape sequence '\\{next}'")),
        }
    }
    None
}

/// "invalid octal escape sequence '\777'" for up to three octal digits at the start of
/// `digits` whose value is past 0o377.
fn invalid_octal(digits: &str) -> Option<String> {
    let octal: String = digits
        .chars()
        .take(3)
        .take_while(|d| d.is_digit(8))
        .collect();
    let value = u32::from_str_radix(&octal, 8).ok()?;
    (value > 0o377).then(|| format!("invalid octal escape sequence '\\{octal}'"))
}
