//! Logos callbacks: numbers, names and string literals, with CPython's lexical errors.
//!
//! In: the source text, one token at a time (driven by the `Tok` derive in `token.rs`).
//! Out: token payloads (`BigInt`, `f64`, decoded `String`, split f-strings) or a [`LexError`].
//! Mirrors CPython's `Parser/tokenizer.c` (`verify_end_of_number`, string scanning) and
//! `Parser/string_parser.c` (escape decoding). Knows nothing of indentation or grammar.

use logos::Lexer;
use num_bigint::BigInt;

use super::ast::Span;
use super::error::{SyntaxError, SyntaxErrorKind};
use super::fstring;
use super::token::{StrToken, Tok};

/// A lexical error. `span` overrides the span of the token being lexed when set.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LexError {
    pub kind: Option<SyntaxErrorKind>,
    pub message: String,
    pub span: Option<Span>,
    /// Advice for a learner (what to write instead of an unsupported construct).
    pub help: Option<&'static str>,
}

impl LexError {
    pub fn new(kind: SyntaxErrorKind, message: impl Into<String>, span: Span) -> LexError {
        LexError {
            kind: Some(kind),
            message: message.into(),
            span: Some(span),
            help: None,
        }
    }

    /// Valid Python outside the apy subset, with advice.
    pub fn unsupported(message: &str, span: Span, help: &'static str) -> LexError {
        LexError {
            help: Some(help),
            ..LexError::new(SyntaxErrorKind::Unsupported, message, span)
        }
    }

    pub fn invalid(message: impl Into<String>, start: usize, end: usize) -> LexError {
        LexError::new(SyntaxErrorKind::Invalid, message, Span::new(start, end))
    }

    /// Called by logos when no token matches: an invalid character.
    pub fn from_lexer(lex: &mut Lexer<'_, Tok>) -> LexError {
        let start = lex.span().start;
        let c = lex.slice().chars().next().unwrap_or('\u{FFFD}');
        invalid_character(c, start)
    }

    /// The [`SyntaxError`] for this error, using `token_span` when no span was recorded.
    pub fn into_syntax_error(self, token_span: Span) -> SyntaxError {
        let error = SyntaxError::new(
            self.kind.unwrap_or(SyntaxErrorKind::Invalid),
            if self.message.is_empty() {
                "invalid syntax".to_string()
            } else {
                self.message
            },
            self.span.unwrap_or(token_span),
        );
        match self.help {
            Some(help) => error.with_help(help),
            None => error,
        }
    }
}

/// CPython's message for a character that cannot start any token.
fn invalid_character(c: char, start: usize) -> LexError {
    let end = start + c.len_utf8();
    if c == '\0' {
        LexError::invalid("source code cannot contain null bytes", start, end)
    } else if matches!(c, '$' | '?' | '`') {
        LexError::invalid("invalid syntax", start, end)
    } else if c.is_control() || c.is_whitespace() {
        LexError::invalid(
            format!("invalid non-printable character U+{:04X}", c as u32),
            start,
            end,
        )
    } else {
        LexError::invalid(
            format!("invalid character '{c}' (U+{:04X})", c as u32),
            start,
            end,
        )
    }
}

/// 1-based line number of byte offset `pos`.
pub fn line_of(src: &str, pos: usize) -> usize {
    let pos = pos.min(src.len());
    src.as_bytes()[..pos]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

/// The tokenizer's message for a closing bracket `close` at `close_at` that does not match
/// the `open` one at `open_at` (naming `open`'s line when it is another).
pub fn bracket_mismatch(
    src: &str,
    close: &str,
    open: &str,
    open_at: usize,
    close_at: usize,
) -> String {
    let open_line = line_of(src, open_at);
    let where_ = match open_line == line_of(src, close_at) {
        true => String::new(),
        false => format!(" on line {open_line}"),
    };
    format!("closing parenthesis '{close}' does not match opening parenthesis '{open}'{where_}")
}

/// The end of the character starting at byte `pos` (`pos` itself at the end of `src`), so
/// one-character spans never split a UTF-8 sequence.
pub fn char_end(src: &str, pos: usize) -> usize {
    src.get(pos..)
        .and_then(|rest| rest.chars().next())
        .map_or(pos.min(src.len()), |c| pos + c.len_utf8())
}

pub fn is_ident_start(c: char) -> bool {
    c == '_' || unicode_ident::is_xid_start(c)
}

pub fn is_ident_continue(c: char) -> bool {
    unicode_ident::is_xid_continue(c)
}

/// A name: the regex accepts any non-ASCII character, so check XID rules here.
pub fn name(lex: &mut Lexer<'_, Tok>) -> Result<String, LexError> {
    let start = lex.span().start;
    let text = lex.slice();
    for (i, c) in text.char_indices() {
        let ok = if i == 0 {
            is_ident_start(c)
        } else {
            is_ident_continue(c)
        };
        if !ok {
            return Err(invalid_character(c, start + i));
        }
    }
    Ok(text.to_string())
}

/// Keywords that may follow a number directly (`1if x else 2`): CPython only warns.
const KEYWORDS_AFTER_NUMBER: [&str; 8] = ["and", "else", "for", "if", "in", "is", "not", "or"];

/// CPython's `verify_end_of_number`: a number glued to a name is an error (`0x1j` too).
fn check_end_of_number(lex: &Lexer<'_, Tok>, kind: &str) -> Result<(), LexError> {
    let rest = lex.remainder();
    let Some(c) = rest.chars().next() else {
        return Ok(());
    };
    let span = lex.span();
    if KEYWORDS_AFTER_NUMBER.iter().any(|k| {
        rest.starts_with(k) && !rest[k.len()..].starts_with(|c: char| is_ident_continue(c))
    }) {
        return Ok(());
    }
    if is_ident_continue(c) {
        return Err(LexError::invalid(
            format!("invalid {kind} literal"),
            span.start,
            span.end,
        ));
    }
    Ok(())
}

pub fn decimal_int(lex: &mut Lexer<'_, Tok>) -> Result<BigInt, LexError> {
    if lex.slice() == "0" {
        check_radix_prefix(lex)?;
    }
    let digits: String = lex.slice().chars().filter(|&c| c != '_').collect();
    if digits.len() > 1 && digits.starts_with('0') && digits.bytes().any(|b| b != b'0') {
        let span = lex.span();
        return Err(LexError::invalid(
            "leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers",
            span.start,
            span.end,
        ));
    }
    check_end_of_number(lex, "decimal")?;
    BigInt::parse_bytes(digits.as_bytes(), 10).ok_or_else(|| {
        LexError::invalid("invalid decimal literal", lex.span().start, lex.span().end)
    })
}

/// `0x`, `0o8`, `0b2`: a radix prefix the int regexes did not accept.
fn check_radix_prefix(lex: &Lexer<'_, Tok>) -> Result<(), LexError> {
    let mut rest = lex.remainder().chars();
    let name = match rest.next() {
        Some('x' | 'X') => "hexadecimal",
        Some('o' | 'O') => "octal",
        Some('b' | 'B') => "binary",
        _ => return Ok(()),
    };
    let start = lex.span().start;
    match rest.next() {
        Some(d) if d.is_ascii_digit() => Err(LexError::invalid(
            format!("invalid digit '{d}' in {name} literal"),
            start + 2,
            start + 3,
        )),
        _ => Err(LexError::invalid(
            format!("invalid {name} literal"),
            start,
            start + 2,
        )),
    }
}

pub fn radix_int(lex: &mut Lexer<'_, Tok>, radix: u32) -> Result<BigInt, LexError> {
    let (kind, name) = match radix {
        16 => ("hexadecimal", "hexadecimal"),
        8 => ("octal", "octal"),
        _ => ("binary", "binary"),
    };
    let span = lex.span();
    if let Some(c) = lex.remainder().chars().next()
        && c.is_ascii_digit()
    {
        return Err(LexError::invalid(
            format!("invalid digit '{c}' in {name} literal"),
            span.end,
            span.end + 1,
        ));
    }
    check_end_of_number(lex, kind)?;
    let digits: String = lex.slice()[2..].chars().filter(|&c| c != '_').collect();
    BigInt::parse_bytes(digits.as_bytes(), radix)
        .ok_or_else(|| LexError::invalid(format!("invalid {kind} literal"), span.start, span.end))
}

pub fn float(lex: &mut Lexer<'_, Tok>) -> Result<f64, LexError> {
    check_end_of_number(lex, "decimal")?;
    let text: String = lex.slice().chars().filter(|&c| c != '_').collect();
    text.parse::<f64>()
        .map_err(|_| LexError::invalid("invalid decimal literal", lex.span().start, lex.span().end))
}

/// An imaginary literal: the number before its `j`.
pub fn imaginary(lex: &mut Lexer<'_, Tok>) -> Result<f64, LexError> {
    check_end_of_number(lex, "imaginary")?;
    let slice = lex.slice();
    let text: String = slice[..slice.len() - 1]
        .chars()
        .filter(|&c| c != '_')
        .collect();
    text.parse::<f64>().map_err(|_| {
        LexError::invalid(
            "invalid imaginary literal",
            lex.span().start,
            lex.span().end,
        )
    })
}

/// A `\` that does not end a line.
pub fn stray_backslash(lex: &mut Lexer<'_, Tok>) -> Result<(), LexError> {
    let span = lex.span();
    if lex.remainder().is_empty() {
        Err(LexError::new(
            SyntaxErrorKind::Incomplete,
            "unexpected EOF while parsing",
            Span::new(span.end, span.end),
        ))
    } else {
        Err(LexError::invalid(
            "unexpected character after line continuation character",
            span.end,
            char_end(lex.source(), span.end),
        ))
    }
}

/// A string literal: logos matched the prefix and opening quote; scan the rest by hand.
pub fn string(lex: &mut Lexer<'_, Tok>) -> Result<StrToken, LexError> {
    let start = lex.span().start;
    let (token, end) = scan_string(lex.source(), start, 0)?;
    lex.bump(end - lex.span().end);
    Ok(token)
}

/// The prefix letters of a string literal.
#[derive(Clone, Copy, Debug, Default)]
pub struct Prefix {
    pub raw: bool,
    pub format: bool,
    pub bytes: bool,
}

impl Prefix {
    /// Parses the letters before the quote (already known to be a valid prefix by the regex).
    pub fn parse(letters: &str) -> Prefix {
        let has = |c: char| letters.chars().any(|l| l.eq_ignore_ascii_case(&c));
        Prefix {
            raw: has('r'),
            format: has('f'),
            bytes: has('b'),
        }
    }
}

/// Where a string's body starts and how it ends.
#[derive(Clone, Copy, Debug)]
pub struct Quote {
    pub ch: char,
    pub triple: bool,
}

impl Quote {
    pub fn width(self) -> usize {
        if self.triple { 3 } else { 1 }
    }

    /// True when the closing quote starts at `src[pos..]`.
    pub fn closes_at(self, src: &str, pos: usize) -> bool {
        let rest = &src.as_bytes()[pos..];
        let q = self.ch as u8;
        if self.triple {
            rest.len() >= 3 && rest[0] == q && rest[1] == q && rest[2] == q
        } else {
            rest.first() == Some(&q)
        }
    }
}

/// Scans the string literal whose prefix starts at `start`; returns the token and the end
/// offset. `depth` counts f-string nesting (a string inside an f-string field is one deeper).
pub fn scan_string(src: &str, start: usize, depth: usize) -> Result<(StrToken, usize), LexError> {
    let quote_pos = start + src[start..].find(['\'', '"']).unwrap_or(0);
    let prefix = Prefix::parse(&src[start..quote_pos]);
    let ch = src[quote_pos..].chars().next().unwrap_or('"');
    let triple = src[quote_pos..].starts_with(&format!("{ch}{ch}{ch}"));
    let quote = Quote { ch, triple };
    let body = quote_pos + quote.width();
    if prefix.format {
        let (token, end) = fstring::scan(src, start, body, quote, prefix.raw, depth)?;
        return Ok((StrToken::Format(Box::new(token)), end));
    }
    let mut text = String::new();
    // A bytes body is scanned raw (escapes kept as written), then decoded as bytes.
    let raw = prefix.raw || prefix.bytes;
    let end = scan_plain_body(src, start, body, quote, raw, &mut text)?;
    if prefix.bytes
        && !prefix.raw
        && let Some(message) = super::warnings::invalid_bytes_escape(&text)
    {
        super::warnings::note(start, message);
    }
    if prefix.bytes {
        if !text.is_ascii() {
            return Err(LexError::invalid(
                "bytes can only contain ASCII literal characters",
                start,
                end,
            ));
        }
        let bytes = if prefix.raw {
            text.into_bytes()
        } else {
            decode_bytes_escapes(text.as_bytes())
                .map_err(|message| LexError::invalid(message, start, end))?
        };
        return Ok((StrToken::Bytes(bytes), end));
    }
    Ok((StrToken::Plain(text), end))
}

/// The value of a bytes literal from its ASCII body with escapes as written: `\xNN` and
/// octal escapes are bytes (an octal one past 0o377 keeps its low 8 bits, as CPython's
/// does after its warning); `\u`, `\N` and unknown escapes stay as written.
fn decode_bytes_escapes(body: &[u8]) -> Result<Vec<u8>, String> {
    let mut out = Vec::with_capacity(body.len());
    let mut i = 0;
    while i < body.len() {
        let b = body[i];
        i += 1;
        if b != b'\\' || i >= body.len() {
            out.push(b);
            continue;
        }
        let c = body[i];
        i += 1;
        let decoded = match c {
            b'\n' => None,
            b'\\' | b'\'' | b'"' => Some(c),
            b'a' => Some(7),
            b'b' => Some(8),
            b'f' => Some(12),
            b'n' => Some(b'\n'),
            b'r' => Some(b'\r'),
            b't' => Some(b'\t'),
            b'v' => Some(11),
            b'0'..=b'7' => {
                let mut value = u32::from(c - b'0');
                let digits_end = (i + 2).min(body.len());
                while i < digits_end && (b'0'..=b'7').contains(&body[i]) {
                    value = value * 8 + u32::from(body[i] - b'0');
                    i += 1;
                }
                Some(value as u8)
            }
            b'x' => {
                let hex = body
                    .get(i..i + 2)
                    .filter(|h| h.iter().all(u8::is_ascii_hexdigit));
                let Some(hex) = hex.and_then(|h| std::str::from_utf8(h).ok()) else {
                    return Err(format!(
                        "(value error) invalid \\x escape at position {}",
                        i - 2
                    ));
                };
                i += 2;
                Some(u8::from_str_radix(hex, 16).unwrap_or(0))
            }
            _ => {
                // Kept as written; the character after the backslash is read again.
                out.push(b'\\');
                i -= 1;
                continue;
            }
        };
        out.extend(decoded);
    }
    Ok(out)
}

/// Scans a non-f-string body from `pos`, appending decoded text; returns the end offset.
fn scan_plain_body(
    src: &str,
    start: usize,
    mut pos: usize,
    quote: Quote,
    raw: bool,
    text: &mut String,
) -> Result<usize, LexError> {
    // Only a literal's first invalid escape is warned of, at the literal's start.
    let mut warned = raw;
    let body = pos;
    loop {
        if quote.closes_at(src, pos) {
            return Ok(pos + quote.width());
        }
        let Some(c) = src[pos..].chars().next() else {
            return Err(unterminated(src, start, quote, src.len(), "string"));
        };
        if c == '\\' {
            if !warned && let Some(message) = super::warnings::invalid_str_escape(src, pos) {
                super::warnings::note(start, message);
                warned = true;
            }
            pos = decode_escape(src, (body, pos), quote, raw, text).map_err(|e| {
                // CPython finds the literal's end before it decodes: unterminated first.
                unterminated_from(src, pos, quote)
                    .map_or(e, |at| unterminated(src, start, quote, at, "string"))
            })?;
            if pos >= src.len() {
                return Err(unterminated(src, start, quote, src.len(), "string"));
            }
            continue;
        }
        if (c == '\n' || c == '\r') && !quote.triple {
            return Err(unterminated(src, start, quote, pos, "string"));
        }
        pos = push_source_char(src, pos, c, text);
    }
}

/// Appends the character at `src[pos]` to a string's value, reading `\r\n` and `\r` as
/// `\n` as CPython's tokenizer does; returns the offset after it.
pub fn push_source_char(src: &str, pos: usize, c: char, text: &mut String) -> usize {
    if c == '\r' {
        text.push('\n');
        if src[pos + 1..].starts_with('\n') {
            return pos + 2;
        }
        return pos + 1;
    }
    text.push(c);
    pos + c.len_utf8()
}

/// Where a literal whose text goes on at `pos` is found unterminated: the end of the input,
/// or a one-line literal's line end; None when its closing quote comes first.
pub fn unterminated_from(src: &str, mut pos: usize, quote: Quote) -> Option<usize> {
    loop {
        if quote.closes_at(src, pos) {
            return None;
        }
        let Some(c) = src[pos..].chars().next() else {
            return Some(src.len());
        };
        if (c == '\n' || c == '\r') && !quote.triple {
            return Some(pos);
        }
        pos += c.len_utf8();
        if c == '\\' {
            // The escaped character, a line end included, cannot close the literal.
            pos += src[pos..].chars().next().map_or(0, char::len_utf8);
        }
    }
}

/// CPython's error for a string that never closes. A triple-quoted one may still be
/// completed by more input (the REPL asks for it); so may a line ended by `\`.
/// `what` names the literal: "string", or "f-string" for an f-string's own quote.
pub fn unterminated(src: &str, start: usize, quote: Quote, at: usize, what: &str) -> LexError {
    // At the end of input, CPython counts the last line, not the empty one after its newline.
    let line = if at >= src.len() && src.ends_with('\n') {
        line_of(src, at) - 1
    } else {
        line_of(src, at)
    };
    if quote.triple {
        LexError::new(
            SyntaxErrorKind::Incomplete,
            format!("unterminated triple-quoted {what} literal (detected at line {line})"),
            Span::new(start, start + 1),
        )
    } else {
        let continued = src[..at].ends_with('\\') || src[..at].ends_with("\\\n");
        let kind = if continued && at >= src.len() {
            SyntaxErrorKind::Incomplete
        } else {
            SyntaxErrorKind::Invalid
        };
        LexError::new(
            kind,
            format!("unterminated {what} literal (detected at line {line})"),
            Span::new(start, start + 1),
        )
    }
}

/// Decodes the escape sequence at `src[pos] == '\\'` into `out`; returns the offset after it.
/// Unknown escapes are kept as written, as CPython does (it only warns). `body` is where
/// the literal's text (an f-string's stretch between fields) starts: an error's message
/// counts positions from there ([`escape_position`]).
pub fn decode_escape(
    src: &str,
    (body, pos): (usize, usize),
    quote: Quote,
    raw: bool,
    out: &mut String,
) -> Result<usize, LexError> {
    let rest = &src[pos + 1..];
    let Some(c) = rest.chars().next() else {
        out.push('\\');
        return Ok(pos + 1);
    };
    let after = pos + 1 + c.len_utf8();
    if raw {
        // A raw string keeps the backslash, but the next character cannot close the string.
        out.push('\\');
        return Ok(push_source_char(src, pos + 1, c, out));
    }
    let simple = match c {
        '\n' => Some(None),
        '\r' => {
            let after = if rest[1..].starts_with('\n') {
                after + 1
            } else {
                after
            };
            return Ok(after);
        }
        '\\' => Some(Some('\\')),
        '\'' => Some(Some('\'')),
        '"' => Some(Some('"')),
        'a' => Some(Some('\x07')),
        'b' => Some(Some('\x08')),
        'f' => Some(Some('\x0c')),
        'n' => Some(Some('\n')),
        'r' => Some(Some('\r')),
        't' => Some(Some('\t')),
        'v' => Some(Some('\x0b')),
        _ => None,
    };
    if let Some(decoded) = simple {
        out.extend(decoded);
        return Ok(after);
    }
    match c {
        '0'..='7' => {
            let digits: String = rest.chars().take(3).take_while(|d| d.is_digit(8)).collect();
            let value = u32::from_str_radix(&digits, 8).unwrap_or(0);
            out.push(char::from_u32(value).unwrap_or('\u{FFFD}'));
            Ok(pos + 1 + digits.len())
        }
        'x' | 'u' | 'U' => {
            let width = match c {
                'x' => 2,
                'u' => 4,
                _ => 8,
            };
            let digits: String = rest[1..]
                .chars()
                .take(width)
                .take_while(|d| d.is_ascii_hexdigit())
                .collect();
            if digits.len() < width {
                let what = match c {
                    'x' => "truncated \\xXX escape",
                    'u' => "truncated \\uXXXX escape",
                    _ => "truncated \\UXXXXXXXX escape",
                };
                let end = pos + 2 + digits.len();
                return Err(escape_error(src, (body, pos), end, what));
            }
            let value = u32::from_str_radix(&digits, 16).unwrap_or(0);
            match char::from_u32(value) {
                Some(ch) => out.push(ch),
                None if (0xD800..0xE000).contains(&value) => {
                    return Err(LexError::unsupported(
                        "lone surrogate escapes are not supported by apy",
                        Span::new(pos, pos + 2 + width),
                        "apy strings hold Unicode characters only",
                    ));
                }
                None => {
                    let what = "illegal Unicode character";
                    return Err(escape_error(src, (body, pos), pos + 2 + width, what));
                }
            }
            Ok(pos + 2 + width)
        }
        'N' => named_escape(src, (body, pos), quote, out),
        _ => {
            out.push('\\');
            Ok(pos + 1)
        }
    }
}

/// `\N{NAME}` at `src[pos]`: the character of that name or alias, found as
/// `unicodedata.lookup` finds it; CPython's errors for a malformed escape (no
/// `{`, an empty name, no `}` before the literal's end) or an unknown name.
fn named_escape(
    src: &str,
    (body, pos): (usize, usize),
    quote: Quote,
    out: &mut String,
) -> Result<usize, LexError> {
    let error = |what: &str, end: usize| escape_error(src, (body, pos), end, what);
    let open = pos + 2;
    if !src[open..].starts_with('{') {
        return Err(error("malformed \\N character escape", open));
    }
    let name_start = open + 1;
    // The name runs to the first `}` before the literal's end.
    let mut at = name_start;
    let close = loop {
        let Some(c) = src[at..].chars().next() else {
            break None;
        };
        if quote.closes_at(src, at) || (c == '\n' && !quote.triple) {
            break None;
        }
        if c == '}' {
            break Some(at);
        }
        at += c.len_utf8();
    };
    let Some(close) = close.filter(|&close| close > name_start) else {
        return Err(error("malformed \\N character escape", at));
    };
    match crate::common::unicode_data::ucd().lookup_char(&src[name_start..close]) {
        Some(c) => {
            out.push(c);
            Ok(close + 1)
        }
        None => Err(error("unknown Unicode character name", close + 1)),
    }
}

/// CPython's error for the escape from `src[pos]` to `src[end]` that it cannot decode
/// (`what`), its positions counted as [`escape_position`] counts them.
fn escape_error(src: &str, (body, pos): (usize, usize), end: usize, what: &str) -> LexError {
    let at = escape_position(src, body, pos);
    let last = escape_position(src, body, end) - 1;
    let message = format!(
        "(unicode error) 'unicodeescape' codec can't decode bytes in position {at}-{last}: {what}"
    );
    LexError::invalid(message, pos, end.max(pos + 2))
}

/// Where CPython's escape decoder says the escape at `src[pos]` is, in a literal whose text
/// starts at `body`: it counts the bytes of its own copy of the text, in which each
/// character outside ASCII became a ten-byte `\Uxxxxxxxx`.
fn escape_position(src: &str, body: usize, pos: usize) -> usize {
    src.get(body..pos)
        .unwrap_or("")
        .chars()
        .map(|c| if c.is_ascii() { 1 } else { 10 })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use logos::Logos;

    fn lex(src: &str) -> Vec<Result<Tok, LexError>> {
        Tok::lexer(src).collect()
    }

    fn plain(s: &str) -> Tok {
        Tok::Str(StrToken::Plain(s.to_string()))
    }

    fn error_message(src: &str) -> String {
        lex(src)
            .into_iter()
            .find_map(Result::err)
            .map(|e| e.message)
            .unwrap_or_default()
    }

    #[test]
    fn numbers() {
        assert_eq!(
            lex("0x_ff 0o17 0b101 1_000 00"),
            vec![
                Ok(Tok::Int(255.into())),
                Ok(Tok::Int(15.into())),
                Ok(Tok::Int(5.into())),
                Ok(Tok::Int(1000.into())),
                Ok(Tok::Int(0.into())),
            ]
        );
        assert_eq!(
            lex("1.5 1e-3 .5 1_000.5 1."),
            [1.5, 1e-3, 0.5, 1000.5, 1.0].map(|f| Ok(Tok::Float(f)))
        );
        assert_eq!(
            lex("1j 2.5J 1e3j 1_0j 00j .5j 1.j"),
            [1.0, 2.5, 1e3, 10.0, 0.0, 0.5, 1.0].map(|f| Ok(Tok::Imaginary(f)))
        );
        let big: BigInt = "123456789012345678901234567890".parse().unwrap();
        assert_eq!(
            lex("123456789012345678901234567890"),
            vec![Ok(Tok::Int(big))]
        );
    }

    #[test]
    fn number_errors() {
        assert!(error_message("012").starts_with("leading zeros in decimal integer literals"));
        assert_eq!(error_message("1abc"), "invalid decimal literal");
        assert_eq!(error_message("0b12"), "invalid digit '2' in binary literal");
        assert_eq!(error_message("1jx"), "invalid imaginary literal");
        assert_eq!(error_message("0x1j"), "invalid hexadecimal literal");
        assert_eq!(error_message("1_j"), "invalid decimal literal");
        assert_eq!(lex("1if").len(), 2);
    }

    #[test]
    fn names_and_keywords() {
        assert_eq!(
            lex("déf def match _x"),
            vec![
                Ok(Tok::Name("déf".into())),
                Ok(Tok::Def),
                Ok(Tok::Name("match".into())),
                Ok(Tok::Name("_x".into())),
            ]
        );
        assert_eq!(error_message("a €"), "invalid character '€' (U+20AC)");
    }

    #[test]
    fn strings_and_escapes() {
        assert_eq!(lex(r#"'a\n\x41\u00e9\101'"#), vec![Ok(plain("a\nAéA"))]);
        assert_eq!(lex(r#"r'a\n\''"#), vec![Ok(plain("a\\n\\'"))]);
        assert_eq!(lex(r#"'\d'"#), vec![Ok(plain("\\d"))]);
        assert_eq!(lex("'''a\nb'''"), vec![Ok(plain("a\nb"))]);
        assert_eq!(lex("'a\\\nb'"), vec![Ok(plain("ab"))]);
        assert_eq!(lex("rb"), vec![Ok(Tok::Name("rb".into()))]);
        assert_eq!(lex("'''a\r\nb\rc'''"), vec![Ok(plain("a\nb\nc"))]);
        let bytes = |b: &[u8]| vec![Ok(Tok::Str(StrToken::Bytes(b.to_vec())))];
        assert_eq!(lex(r"b'a\x41\101\u00\n'"), bytes(b"aAA\\u00\n"));
        assert_eq!(lex(r"rb'\x41'"), bytes(b"\\x41"));
        assert_eq!(lex(r"b'\777\q\0123'"), bytes(b"\xff\\q\n3"));
    }

    #[test]
    fn string_errors() {
        assert_eq!(
            error_message("'abc"),
            "unterminated string literal (detected at line 1)"
        );
        assert_eq!(
            error_message("'''abc\n\n"),
            "unterminated triple-quoted string literal (detected at line 2)"
        );
        assert_eq!(
            error_message("b'café'"),
            "bytes can only contain ASCII literal characters"
        );
        assert_eq!(
            error_message(r"b'\x4'"),
            "(value error) invalid \\x escape at position 0"
        );
        let err = lex("'''abc").into_iter().find_map(Result::err).unwrap();
        assert_eq!(err.kind, Some(SyntaxErrorKind::Incomplete));
    }
}
