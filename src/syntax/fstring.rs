//! f-strings (PEP 701): split an f-string literal into text and `{expr!c:spec}` fields.
//!
//! In: the source and the offset of an f-string's prefix (from the lexer). Out: an
//! [`FStringToken`] whose fields record the byte range of each embedded expression; the
//! grammar later parses those ranges with the expression entry ([`build_parts`]).
//! Mirrors the f-string modes of CPython's `Parser/tokenizer.c` and `Parser/action_helpers.c`.

use super::ast::{Expr, FStringPart, FormattedValue, Span};
use super::error::SyntaxError;
use super::lexer::{self, LexError, Quote};

/// Deepest nesting of f-strings and replacement fields. CPython's `MAXFSTRINGLEVEL` is 150;
/// apy parses each nested field with a fresh (recursive) parser run, whose frames are large
/// in debug builds, so it stops at 20 — far beyond what anyone writes.
const MAX_NESTING: usize = 20;

/// How many replacement fields may nest within one f-string's format specs
/// (`f"{x:{w:{p}}}"` is three): CPython's `MAX_EXPR_NESTING`.
const MAX_SPEC_NESTING: usize = 3;

/// An f-string as the lexer saw it: literal text already unescaped, fields not yet parsed.
#[derive(Clone, Debug, PartialEq)]
pub struct FStringToken {
    pub parts: Vec<RawPart>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum RawPart {
    Literal(String),
    Field(RawField),
}

/// One `{…}` replacement field.
#[derive(Clone, Debug, PartialEq)]
pub struct RawField {
    /// Byte range of the expression text in the source.
    pub expr: Span,
    /// For `{x = }`: the text `x = `, printed before the value.
    pub debug_text: Option<String>,
    pub conversion: Option<char>,
    pub spec: Option<Vec<RawPart>>,
}

/// Scans an f-string whose prefix starts at `start` and body at `body`; returns it and its end.
pub fn scan(
    src: &str,
    start: usize,
    body: usize,
    quote: Quote,
    raw: bool,
    depth: usize,
) -> Result<(FStringToken, usize), LexError> {
    if depth > MAX_NESTING {
        return Err(LexError::invalid(
            "f-string: expressions nested too deeply",
            start,
            body,
        ));
    }
    let mut scanner = Scanner {
        src,
        start,
        pos: body,
        quote,
        raw,
        depth,
        spec_depth: 0,
    };
    let parts = scanner.literal_parts(None)?;
    Ok((FStringToken { parts }, scanner.pos + quote.width()))
}

/// The error for a field whose `{` at `open` the input ends inside.
fn never_closed(open: usize) -> LexError {
    LexError::invalid("'{' was never closed", open, open + 1)
}

struct Scanner<'s> {
    src: &'s str,
    /// Where the f-string (its prefix) starts, for "unterminated" errors.
    start: usize,
    pos: usize,
    quote: Quote,
    raw: bool,
    depth: usize,
    /// The fields of this f-string whose format spec is being scanned.
    spec_depth: usize,
}

impl Scanner<'_> {
    fn peek(&self) -> Option<char> {
        self.src[self.pos..].chars().next()
    }

    fn peek2(&self) -> Option<char> {
        let mut chars = self.src[self.pos..].chars();
        chars.next();
        chars.next()
    }

    fn unterminated(&self) -> LexError {
        lexer::unterminated(self.src, self.start, self.quote, self.pos, "f-string")
    }

    /// Text and fields up to the closing quote, or, in the format spec of the field whose
    /// `{` is at `spec_of`, up to the field's `}`.
    fn literal_parts(&mut self, spec_of: Option<usize>) -> Result<Vec<RawPart>, LexError> {
        let in_spec = spec_of.is_some();
        let mut parts = Vec::new();
        let mut text = String::new();
        // Each stretch of text between fields warns of its first invalid escape, at it;
        // an escape's error counts its position from the stretch's start, as CPython's.
        let mut warned = self.raw;
        let mut stretch = self.pos;
        loop {
            if self.quote.closes_at(self.src, self.pos) {
                if let Some(open) = spec_of {
                    let after = self.pos + self.quote.width();
                    return Err(self.bracket_mismatch_after(open, after).unwrap_or_else(|| {
                        LexError::invalid(
                            "f-string: expecting '}', or format specs",
                            self.pos,
                            after,
                        )
                    }));
                }
                break;
            }
            let Some(c) = self.peek() else {
                return Err(self.unterminated());
            };
            match c {
                '\\' => {
                    if !warned
                        && let Some(message) =
                            super::warnings::invalid_str_escape(self.src, self.pos)
                    {
                        super::warnings::note(self.pos, message);
                        warned = true;
                    }
                    let (src, at) = (self.src, (stretch, self.pos));
                    let decoded = lexer::decode_escape(src, at, self.quote, self.raw, &mut text);
                    self.pos = match decoded {
                        Ok(pos) => pos,
                        // Unterminated first, as CPython finds the literal's end first.
                        Err(e) => match lexer::unterminated_from(src, self.pos, self.quote) {
                            Some(at) => {
                                self.pos = at;
                                return Err(self.unterminated());
                            }
                            None => return Err(e),
                        },
                    };
                    if self.pos >= self.src.len() {
                        return Err(self.unterminated());
                    }
                }
                '\n' | '\r' if !self.quote.triple => match spec_of {
                    // CPython's tokenizer leaves a single-quoted spec at a line break (unless
                    // a field in it has closed) and reads on as code.
                    Some(open) if !parts.iter().any(|p| matches!(p, RawPart::Field(_))) => {
                        self.leave_spec_at_line_break(open)?;
                        break;
                    }
                    _ => return Err(self.unterminated()),
                },
                '{' if !in_spec && self.peek2() == Some('{') => {
                    text.push('{');
                    self.pos += 2;
                }
                '}' if in_spec => break,
                '}' if self.peek2() == Some('}') => {
                    text.push('}');
                    self.pos += 2;
                }
                '}' => {
                    return Err(LexError::invalid(
                        "f-string: single '}' is not allowed",
                        self.pos,
                        self.pos + 1,
                    ));
                }
                '{' => {
                    if !text.is_empty() {
                        parts.push(RawPart::Literal(std::mem::take(&mut text)));
                    }
                    parts.push(RawPart::Field(self.field()?));
                    warned = self.raw;
                    stretch = self.pos;
                }
                _ => self.pos = lexer::push_source_char(self.src, self.pos, c, &mut text),
            }
        }
        if !text.is_empty() {
            parts.push(RawPart::Literal(text));
        }
        Ok(parts)
    }

    /// Whether this f-string's own closing quote (all three of a triple quote) comes next.
    fn at_closing_quote(&self) -> bool {
        let quote = self.quote.ch;
        let size = if self.quote.triple { 3 } else { 1 };
        self.src[self.pos..]
            .chars()
            .take(size)
            .filter(|&c| c == quote)
            .count()
            == size
    }

    /// A single-quoted format spec broken by a line: what follows is read as code. The
    /// field's `}` closes it (the f-string then goes on); the end of the file leaves the
    /// `{` at `open` never closed; anything else is not what the field expects.
    fn leave_spec_at_line_break(&mut self, open: usize) -> Result<(), LexError> {
        let next = self.next_code(self.pos);
        match self.src[next..].chars().next() {
            Some('}') => {
                self.pos = next;
                Ok(())
            }
            None => Err(never_closed(open)),
            Some(c @ (')' | ']')) => Err(LexError::invalid(
                format!("f-string: unmatched '{c}'"),
                next,
                next + 1,
            )),
            Some(_) => Err(LexError::invalid(
                "f-string: expecting '}', or format specs",
                next,
                self.token_end(next),
            )),
        }
    }

    /// The quote closed the f-string inside the spec of the field whose `{` is at `open`:
    /// the parser's error at the quote, unless the code after it, read on with that `{`
    /// open, closes a bracket that does not match: CPython's tokenizer error, found as it
    /// reads the rest of the file after the parser failed, wins
    /// (`print(f'{x:>8')`: ')' does not match '{').
    fn bracket_mismatch_after(&self, open: usize, mut pos: usize) -> Option<LexError> {
        let mut opened = vec![('{', open)];
        loop {
            pos = self.next_code(pos);
            let c = self.src[pos..].chars().next()?;
            match c {
                '\'' | '"' => {
                    pos = lexer::scan_string(self.src, pos, self.depth + 1).ok()?.1;
                    continue;
                }
                '(' | '[' | '{' => opened.push((c, pos)),
                ')' | ']' | '}' => {
                    let (open_ch, open_at) = opened.pop()?;
                    if matches!((open_ch, c), ('(', ')') | ('[', ']') | ('{', '}')) {
                        if opened.is_empty() {
                            return None;
                        }
                    } else {
                        let (close, open) = (c.to_string(), open_ch.to_string());
                        let message =
                            lexer::bracket_mismatch(self.src, &close, &open, open_at, pos);
                        return Some(LexError::invalid(message, pos, pos + 1));
                    }
                }
                _ => {}
            }
            pos = lexer::char_end(self.src, pos);
        }
    }

    /// Where the next code after `pos` starts: past spaces, line breaks and comments.
    fn next_code(&self, mut pos: usize) -> usize {
        loop {
            let rest = &self.src[pos..];
            let trimmed = rest.trim_start_matches([' ', '\t', '\n', '\r', '\x0c']);
            pos += rest.len() - trimmed.len();
            if !trimmed.starts_with('#') {
                return pos;
            }
            pos += trimmed.find(['\n', '\r']).unwrap_or(trimmed.len());
        }
    }

    /// The end of the token at `pos`, for a caret under all of it: a name or number, a
    /// string on one line, else one character.
    fn token_end(&self, pos: usize) -> usize {
        let rest = &self.src[pos..];
        let word = rest
            .find(|c: char| !lexer::is_ident_continue(c))
            .unwrap_or(rest.len());
        if word > 0 {
            return pos + word;
        }
        if let Some(q @ ('\'' | '"')) = rest.chars().next()
            && let Some(close) = rest[1..].find([q, '\n'])
            && rest[1 + close..].starts_with(q)
        {
            return pos + close + 2;
        }
        lexer::char_end(self.src, pos)
    }

    fn expecting_brace(&self) -> LexError {
        LexError::invalid(
            "f-string: expecting '}'",
            self.pos,
            lexer::char_end(self.src, self.pos),
        )
    }

    /// A replacement field; `self.pos` is at its `{`.
    fn field(&mut self) -> Result<RawField, LexError> {
        if self.depth + 1 > MAX_NESTING {
            return Err(LexError::invalid(
                "f-string: expressions nested too deeply",
                self.pos,
                self.pos + 1,
            ));
        }
        let open = self.pos;
        if self.spec_depth >= MAX_SPEC_NESTING {
            // Where CPython's tokenizer points: the character before the `{`.
            let before = self.src[..open]
                .char_indices()
                .next_back()
                .map_or(open, |(i, _)| i);
            return Err(LexError::invalid(
                "f-string: expressions nested too deeply",
                before,
                open,
            ));
        }
        self.pos += 1;
        let expr_start = self.pos;
        let (expr_end, terminator) = self.expression_text()?;
        let text = &self.src[expr_start..expr_end];
        let code = text.trim_start();
        let lambda = code
            .strip_prefix("lambda")
            .filter(|rest| !rest.starts_with(|c: char| lexer::is_ident_continue(c)));
        if terminator == ':' && lambda.is_some() {
            // The field's `:` would be the lambda's: CPython's `invalid_replacement_field`.
            let start = expr_start + (text.len() - code.len());
            return Err(LexError::invalid(
                "f-string: lambda expressions are not allowed without parentheses",
                start,
                expr_end + 1,
            ));
        }
        if text.trim().is_empty() {
            return Err(LexError::invalid(
                format!("f-string: valid expression required before '{terminator}'"),
                expr_end,
                expr_end + 1,
            ));
        }
        let mut field = RawField {
            expr: Span::new(expr_start, expr_end),
            debug_text: None,
            conversion: None,
            spec: None,
        };
        if terminator == '=' {
            self.pos += 1;
            while matches!(self.peek(), Some(' ' | '\t' | '\n' | '\r' | '\x0c')) {
                self.pos += 1;
            }
            field.debug_text = Some(self.src[expr_start..self.pos].to_string());
        }
        if self.peek() == Some('!') {
            self.pos += 1;
            let conv_start = self.pos;
            let name: String = self.src[self.pos..]
                .chars()
                .take_while(|&c| lexer::is_ident_continue(c))
                .collect();
            self.pos += name.len();
            // Code again until the `:` or `}`: spaces and line breaks may come first.
            while matches!(self.peek(), Some(' ' | '\t' | '\n' | '\r' | '\x0c')) {
                self.pos += 1;
            }
            match name.as_str() {
                "s" | "r" | "a" if self.peek().is_none() => {
                    return Err(never_closed(open));
                }
                "s" | "r" | "a" if matches!(self.peek(), Some(':' | '}')) => {
                    field.conversion = name.chars().next();
                }
                // The f-string ends right after the conversion: CPython's tokenizer meets
                // its closing quote inside the field first (`f'{x!r'`).
                "s" | "r" | "a" if self.at_closing_quote() => {
                    return Err(LexError::invalid(
                        "f-string: expecting '}'",
                        conv_start,
                        lexer::char_end(self.src, conv_start),
                    ));
                }
                "s" | "r" | "a" => {
                    return Err(LexError::invalid(
                        "f-string: expecting ':' or '}'",
                        self.pos,
                        lexer::char_end(self.src, self.pos),
                    ));
                }
                "" => {
                    return Err(LexError::invalid(
                        "f-string: missing conversion character",
                        conv_start,
                        lexer::char_end(self.src, conv_start),
                    ));
                }
                _ => {
                    return Err(LexError::invalid(
                        format!(
                            "f-string: invalid conversion character '{name}': expected 's', 'r', or 'a'"
                        ),
                        conv_start,
                        self.pos,
                    ));
                }
            }
        }
        if self.peek() == Some(':') {
            self.pos += 1;
            self.depth += 1;
            self.spec_depth += 1;
            let spec = self.literal_parts(Some(open))?;
            self.spec_depth -= 1;
            self.depth -= 1;
            field.spec = Some(spec);
        }
        match self.peek() {
            Some('}') => {}
            None => return Err(never_closed(open)),
            // After `=`, what else may come (CPython's `fstring_replacement_field` rule).
            Some(_) if terminator == '=' && !self.at_closing_quote() => {
                return Err(LexError::invalid(
                    "f-string: expecting '!', or ':', or '}'",
                    self.pos,
                    self.token_end(self.pos),
                ));
            }
            Some(_) => return Err(self.expecting_brace()),
        }
        self.pos += 1;
        Ok(field)
    }

    /// Skips the expression of a field, tracking brackets and nested strings; stops before
    /// the `}`, `!`, `:` or debug `=` that ends it at bracket depth 0 and returns it.
    /// Inside the field the source is code: it may span lines (PEP 701) as within
    /// brackets, so a single-quoted f-string whose field runs to the end of the file has a
    /// `{` never closed.
    fn expression_text(&mut self) -> Result<(usize, char), LexError> {
        let open = self.pos - 1;
        let mut brackets = 0usize;
        loop {
            let Some(c) = self.peek() else {
                if self.quote.triple {
                    return Err(self.unterminated());
                }
                return Err(never_closed(open));
            };
            let next = self.peek2();
            match c {
                '\'' | '"' => {
                    let prefix_start = self.string_prefix_start();
                    let (_, end) = lexer::scan_string(self.src, prefix_start, self.depth + 1)
                        .map_err(|error| self.unclosed_field(c, error))?;
                    self.pos = end;
                    continue;
                }
                '#' => {
                    // The comment runs to the end of the line (it may hold any character).
                    let rest = &self.src[self.pos..];
                    self.pos += rest.find(['\n', '\r']).unwrap_or(rest.len());
                    continue;
                }
                '(' | '[' | '{' => brackets += 1,
                ')' | ']' if brackets > 0 => brackets -= 1,
                '}' if brackets > 0 => brackets -= 1,
                '}' | ':' if brackets == 0 => return Ok((self.pos, c)),
                '!' if brackets == 0 && next != Some('=') => return Ok((self.pos, '!')),
                '=' | '!' | '<' | '>' if next == Some('=') => self.pos += 1,
                '=' if brackets == 0 => return Ok((self.pos, '=')),
                _ => {}
            }
            self.pos += c.len_utf8();
        }
    }

    /// A string that starts in a field with this f-string's own quote and never ends most
    /// likely is this f-string's end, with the field's `}` missing: `f"{x"`.
    fn unclosed_field(&self, quote: char, error: LexError) -> LexError {
        let unterminated = error.message.starts_with("unterminated string literal");
        if unterminated && quote == self.quote.ch && !self.quote.triple {
            LexError::invalid("f-string: expecting '}'", self.pos, self.pos + 1)
        } else {
            error
        }
    }

    /// The start of a nested string's prefix letters (`rf` in `rf"…"`), `self.pos` at its quote.
    fn string_prefix_start(&self) -> usize {
        let before = &self.src[..self.pos];
        let letters = before.len()
            - before
                .trim_end_matches(|c: char| "rRbBfFuU".contains(c))
                .len();
        let letters = letters.min(2);
        let start = self.pos - letters;
        let glued = self.src[..start]
            .chars()
            .next_back()
            .is_some_and(lexer::is_ident_continue);
        if glued { self.pos } else { start }
    }
}

/// Turns scanned parts into AST parts, parsing each field's expression with `parse_expr`
/// (the grammar's expression entry applied to a byte range of the source).
pub fn build_parts(
    raw: &[RawPart],
    parse_expr: &mut dyn FnMut(Span) -> Result<Expr, SyntaxError>,
    out: &mut Vec<FStringPart>,
) -> Result<(), SyntaxError> {
    for part in raw {
        match part {
            RawPart::Literal(text) => push_literal(out, text),
            RawPart::Field(field) => {
                let value = parse_expr(field.expr)?;
                let spec = match &field.spec {
                    Some(spec) => {
                        let mut parts = Vec::new();
                        build_parts(spec, parse_expr, &mut parts)?;
                        Some(parts)
                    }
                    None => None,
                };
                let mut conversion = field.conversion;
                if let Some(text) = &field.debug_text {
                    push_literal(out, text);
                    // CPython: `{x=}` means `{x!r}` unless a conversion or a spec is given.
                    if conversion.is_none() && spec.is_none() {
                        conversion = Some('r');
                    }
                }
                out.push(FStringPart::Formatted(FormattedValue {
                    value: Box::new(value),
                    conversion,
                    format_spec: spec,
                }));
            }
        }
    }
    Ok(())
}

/// Appends literal text, merging it with a literal just before it.
pub fn push_literal(out: &mut Vec<FStringPart>, text: &str) {
    if text.is_empty() {
        return;
    }
    if let Some(FStringPart::Literal(last)) = out.last_mut() {
        last.push_str(text);
    } else {
        out.push(FStringPart::Literal(text.to_string()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::lexer::scan_string;
    use crate::syntax::token::StrToken;

    fn split(src: &str) -> Vec<RawPart> {
        match scan_string(src, 0, 0) {
            Ok((StrToken::Format(token), end)) => {
                assert_eq!(end, src.len());
                token.parts
            }
            other => panic!("not an f-string: {other:?}"),
        }
    }

    fn field(src: &str, part: &RawPart) -> (String, Option<String>, Option<char>, bool) {
        match part {
            RawPart::Field(f) => (
                src[f.expr.range()].to_string(),
                f.debug_text.clone(),
                f.conversion,
                f.spec.is_some(),
            ),
            RawPart::Literal(text) => panic!("literal {text:?}"),
        }
    }

    fn error(src: &str) -> String {
        scan_string(src, 0, 0).unwrap_err().message
    }

    #[test]
    fn literal_and_fields() {
        let src = r#"f"a{{b}}{x!r}\n{y:>{w}}""#;
        let parts = split(src);
        assert_eq!(parts[0], RawPart::Literal("a{b}".into()));
        assert_eq!(field(src, &parts[1]), ("x".into(), None, Some('r'), false));
        assert_eq!(parts[2], RawPart::Literal("\n".into()));
        assert_eq!(field(src, &parts[3]), ("y".into(), None, None, true));
    }

    #[test]
    fn debug_fields() {
        let src = r#"f"{ x = }{a==b}{c!=d=}""#;
        let parts = split(src);
        assert_eq!(
            field(src, &parts[0]),
            (" x ".into(), Some(" x = ".into()), None, false)
        );
        assert_eq!(field(src, &parts[1]), ("a==b".into(), None, None, false));
        assert_eq!(
            field(src, &parts[2]),
            ("c!=d".into(), Some("c!=d=".into()), None, false)
        );
    }

    #[test]
    fn nested_quotes_pep701() {
        let src = r#"f"{x["a"]}{f"{1}"}{'}'}""#;
        let parts = split(src);
        assert_eq!(field(src, &parts[0]).0, r#"x["a"]"#);
        assert_eq!(field(src, &parts[1]).0, r#"f"{1}""#);
        assert_eq!(field(src, &parts[2]).0, "'}'");
    }

    #[test]
    fn errors() {
        assert_eq!(error(r#"f"}""#), "f-string: single '}' is not allowed");
        assert_eq!(
            error(r#"f"{}""#),
            "f-string: valid expression required before '}'"
        );
        assert_eq!(
            error(r#"f"{x!z}""#),
            "f-string: invalid conversion character 'z': expected 's', 'r', or 'a'"
        );
        assert_eq!(
            error(r#"f"{x:""#),
            "f-string: expecting '}', or format specs"
        );
        assert_eq!(error("f'{x:ab\n"), "'{' was never closed");
        assert_eq!(error("f'{x:ab\n  # note\n"), "'{' was never closed");
        assert_eq!(
            error("f'{x:ab\nprint(1)"),
            "f-string: expecting '}', or format specs"
        );
        assert_eq!(error("f'{x:ab\n]"), "f-string: unmatched ']'");
        assert_eq!(
            error("f'{x:{y}ab\n"),
            "unterminated f-string literal (detected at line 1)"
        );
        assert_eq!(error("f'{x!r\n"), "'{' was never closed");
        assert_eq!(error("f'''{x=\n"), "'{' was never closed");
        assert_eq!(
            error("f'{x= y}'"),
            "f-string: expecting '!', or ':', or '}'"
        );
        assert_eq!(error("f'{x='"), "f-string: expecting '}'");
        assert_eq!(
            error("f'{x:>8' + g(1"),
            "f-string: expecting '}', or format specs"
        );
        assert_eq!(
            error("f'{x:>8' + g(1))"),
            "closing parenthesis ')' does not match opening parenthesis '{'"
        );
        assert_eq!(
            error("f'{x:' ('}'\n]"),
            "closing parenthesis ']' does not match opening parenthesis '(' on line 1"
        );
        assert_eq!(error(r#"f"{x!r""#), "f-string: expecting '}'");
        assert_eq!(error(r#"f"{x!r  ""#), "f-string: expecting '}'");
        assert_eq!(error("f'''{x!r'''"), "f-string: expecting '}'");
        assert_eq!(error(r#"f"{x!r;}""#), "f-string: expecting ':' or '}'");
    }
}
