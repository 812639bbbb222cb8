//! The layout stage: turns logos tokens into the stream the grammar expects.
//!
//! In: the source text. Out: `(start, Tok, end)` triples with NEWLINE, INDENT and DEDENT added
//! as CPython's tokenizer does (`Parser/tokenizer.c`, `tok_get_normal_mode`): no NEWLINE inside
//! brackets or on blank/comment lines, tabs to multiples of 8 checked against tab-size-1
//! columns (TabError), all DEDENTs flushed at EOF, a final NEWLINE added when missing.
//! Bracket matching and depth (CPython's `MAXLEVEL`) are checked here too. Knows no grammar.

use std::collections::VecDeque;

use logos::{Logos, SpannedIter};

use super::ast::Span;
use super::error::{SyntaxError, SyntaxErrorKind};
use super::lexer::{bracket_mismatch, char_end};
use super::token::Tok;

/// A token with its byte offsets, as lalrpop consumes it.
pub type Spanned = (usize, Tok, usize);

/// Deepest bracket nesting, as CPython's tokenizer `MAXLEVEL`.
const MAX_BRACKET_DEPTH: usize = 200;

/// Most indentation levels (counting the outermost), as CPython's tokenizer `MAXINDENT`.
const MAX_INDENT_LEVELS: usize = 100;

/// What is being tokenized: a whole module, or one expression (an f-string field), where
/// newlines never end anything, as if the expression sat inside parentheses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Module,
    Expression,
}

/// One level of the indentation stack: the column with tabs to multiples of 8, and the
/// column with tabs counted as 1 (CPython's `altcol`). Both must agree on the ordering.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Indentation {
    col: usize,
    alt: usize,
}

impl Indentation {
    /// Measures the whitespace in `text` (from a line start up to its first token).
    fn measure(text: &str) -> Indentation {
        let mut indentation = Indentation { col: 0, alt: 0 };
        for c in text.chars() {
            match c {
                ' ' => {
                    indentation.col += 1;
                    indentation.alt += 1;
                }
                '\t' => {
                    indentation.col = (indentation.col / 8 + 1) * 8;
                    indentation.alt += 1;
                }
                '\x0c' => indentation = Indentation { col: 0, alt: 0 },
                _ => {}
            }
        }
        indentation
    }
}

/// The layout iterator over one source (or one byte range of it, in expression mode).
pub struct Layout<'s> {
    src: &'s str,
    tokens: SpannedIter<'s, Tok>,
    mode: Mode,
    indents: Vec<Indentation>,
    /// Open brackets: the token and its span.
    brackets: Vec<(Tok, Span)>,
    pending: VecDeque<Spanned>,
    at_line_start: bool,
    /// End of the last token that was not layout, where DEDENTs and a final NEWLINE go.
    last_end: usize,
    done: bool,
}

impl<'s> Layout<'s> {
    pub fn new(src: &'s str, mode: Mode) -> Layout<'s> {
        Layout::over_range(src, Span::new(0, src.len()), mode)
    }

    /// Tokens of `src[range]` with offsets into the whole of `src`.
    pub fn over_range(src: &'s str, range: Span, mode: Mode) -> Layout<'s> {
        let mut lexer = Tok::lexer(&src[..range.end as usize]);
        lexer.bump(range.start as usize);
        Layout {
            src,
            tokens: lexer.spanned(),
            mode,
            indents: vec![Indentation { col: 0, alt: 0 }],
            brackets: Vec::new(),
            pending: VecDeque::new(),
            at_line_start: mode == Mode::Module,
            last_end: range.start as usize,
            done: false,
        }
    }

    /// Handles the first token of a logical line: INDENT, DEDENTs or an indentation error.
    fn indent_to(&mut self, start: usize, end: usize) -> Result<(), SyntaxError> {
        let line_start = self.src[..start].rfind(['\n', '\r']).map_or(0, |i| i + 1);
        let here = Indentation::measure(&self.src[line_start..start]);
        let span = Span::new(line_start, start.max(char_end(self.src, line_start)));
        let tab_error = || {
            SyntaxError::new(
                SyntaxErrorKind::Tab,
                "inconsistent use of tabs and spaces in indentation",
                span,
            )
        };
        let top = *self
            .indents
            .last()
            .unwrap_or(&Indentation { col: 0, alt: 0 });
        if here.col == top.col {
            if here.alt != top.alt {
                return Err(tab_error());
            }
        } else if here.col > top.col {
            if here.alt <= top.alt {
                return Err(tab_error());
            }
            if self.indents.len() >= MAX_INDENT_LEVELS {
                return Err(SyntaxError::new(
                    SyntaxErrorKind::Indentation,
                    "too many levels of indentation",
                    Span::new(start, end),
                ));
            }
            self.indents.push(here);
            self.pending.push_back((start, Tok::Indent, end));
        } else {
            while self.indents.len() > 1 && here.col < self.indents[self.indents.len() - 1].col {
                self.indents.pop();
                self.pending
                    .push_back((self.last_end, Tok::Dedent, self.last_end));
            }
            let top = self.indents[self.indents.len() - 1];
            if here.col != top.col {
                return Err(SyntaxError::new(
                    SyntaxErrorKind::Indentation,
                    "unindent does not match any outer indentation level",
                    span,
                ));
            }
            if here.alt != top.alt {
                return Err(tab_error());
            }
        }
        Ok(())
    }

    /// Tracks brackets: depth limit and matching pairs.
    fn bracket(&mut self, tok: &Tok, span: Span) -> Result<(), SyntaxError> {
        let close_of = |open: &Tok| match open {
            Tok::LPar => Tok::RPar,
            Tok::LSqb => Tok::RSqb,
            _ => Tok::RBrace,
        };
        match tok {
            Tok::LPar | Tok::LSqb | Tok::LBrace => {
                if self.brackets.len() >= MAX_BRACKET_DEPTH {
                    return Err(SyntaxError::invalid("too many nested parentheses", span));
                }
                self.brackets.push((tok.clone(), span));
            }
            Tok::RPar | Tok::RSqb | Tok::RBrace => {
                let close = tok.bracket_text().unwrap_or(")");
                let Some((open, open_span)) = self.brackets.pop() else {
                    return Err(SyntaxError::invalid(format!("unmatched '{close}'"), span));
                };
                if close_of(&open) != *tok {
                    let open_text = open.bracket_text().unwrap_or("(");
                    let (open_at, close_at) = (open_span.start as usize, span.start as usize);
                    let message = bracket_mismatch(self.src, close, open_text, open_at, close_at);
                    return Err(SyntaxError::invalid(message, span));
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// `x = 1 \` as the last line: the continuation has nothing to join (the REPL reads on).
    /// A blank line after it is what it joins, which ends the statement there: CPython's
    /// "invalid syntax" at that line's end.
    fn check_no_continuation_at_end(&self) -> Result<(), SyntaxError> {
        let tail = self.src[self.last_end..].trim_end();
        let in_comment = |before: &str| {
            before
                .rsplit(['\n', '\r'])
                .next()
                .is_some_and(|line| line.contains('#'))
        };
        match tail.strip_suffix('\\') {
            Some(before) if !in_comment(before) => {
                let end = self.last_end + tail.len();
                let after = &self.src[end..];
                let blank_line = after
                    .strip_prefix("\r\n")
                    .or_else(|| after.strip_prefix('\n'))
                    .and_then(|rest| Some(self.src.len() - rest.len() + rest.find('\n')?));
                if let Some(at) = blank_line {
                    return Err(SyntaxError::invalid(
                        "invalid syntax",
                        Span::new(at, at + 1),
                    ));
                }
                Err(SyntaxError::new(
                    SyntaxErrorKind::Incomplete,
                    "unexpected EOF while parsing",
                    Span::new(end, end),
                ))
            }
            _ => Ok(()),
        }
    }

    /// Queues what comes at the end of input: a NEWLINE if the last line lacks one, DEDENTs.
    fn finish(&mut self) -> Result<(), SyntaxError> {
        if let Some((open, span)) = self.brackets.first() {
            return Err(SyntaxError::new(
                SyntaxErrorKind::Incomplete,
                format!("'{}' was never closed", open.bracket_text().unwrap_or("(")),
                *span,
            ));
        }
        if self.mode == Mode::Module {
            self.check_no_continuation_at_end()?;
            if !self.at_line_start {
                self.pending
                    .push_back((self.last_end, Tok::Newline, self.last_end));
            }
            for _ in 1..self.indents.len() {
                self.pending
                    .push_back((self.last_end, Tok::Dedent, self.last_end));
            }
        }
        Ok(())
    }

    /// Pulls logos tokens until something is queued (or input ends).
    fn fill(&mut self) -> Result<(), SyntaxError> {
        while self.pending.is_empty() {
            let Some((result, range)) = self.tokens.next() else {
                self.done = true;
                return self.finish();
            };
            let span = Span::new(range.start, range.end);
            let tok = result.map_err(|e| e.into_syntax_error(span))?;
            if tok == Tok::Newline {
                if self.mode == Mode::Module && self.brackets.is_empty() && !self.at_line_start {
                    self.at_line_start = true;
                    // A NEWLINE sits where the line's last token ends (not after a comment),
                    // so statements end there and "expected ':'" points where CPython does.
                    self.pending
                        .push_back((self.last_end, Tok::Newline, self.last_end));
                }
                continue;
            }
            if self.at_line_start {
                self.indent_to(range.start, range.end)?;
                self.at_line_start = false;
            }
            self.bracket(&tok, span)?;
            self.last_end = range.end;
            self.pending.push_back((range.start, tok, range.end));
        }
        Ok(())
    }
}

impl Iterator for Layout<'_> {
    type Item = Result<Spanned, SyntaxError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.pending.is_empty()
            && !self.done
            && let Err(error) = self.fill()
        {
            self.done = true;
            self.pending.clear();
            return Some(Err(error));
        }
        self.pending.pop_front().map(Ok)
    }
}

/// Whether the last logical line of `src` (a module's text) is indented, so that only
/// the DEDENTs flushed at its end close its block: what CPython's
/// `PyCF_DONT_IMPLY_DEDENT` leaves open in `single` input without a final newline. False
/// when the text does not tokenize.
pub fn ends_inside_block(src: &str) -> bool {
    let mut depth = 0usize;
    let mut depth_of_last_line = 0;
    for token in Layout::new(src, Mode::Module) {
        match token {
            Ok((_, Tok::Indent, _)) => depth += 1,
            Ok((_, Tok::Dedent, _)) => depth = depth.saturating_sub(1),
            Ok((_, Tok::Newline, _)) => depth_of_last_line = depth,
            Ok(_) => {}
            Err(_) => return false,
        }
    }
    depth_of_last_line > 0
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The token kinds of `src`, layout tokens spelled out, names by their text.
    fn layout(src: &str) -> Vec<String> {
        Layout::new(src, Mode::Module)
            .map(|item| match item {
                Ok((_, Tok::Name(n), _)) => n,
                Ok((_, Tok::Int(i), _)) => i.to_string(),
                Ok((_, tok, _)) => format!("{tok:?}"),
                Err(e) => format!("error: {}", e.message),
            })
            .collect()
    }

    fn joined(src: &str) -> String {
        layout(src).join(" ")
    }

    #[test]
    fn blocks_and_eof_dedents() {
        assert_eq!(
            joined("if a:\n    if b:\n        c\nd"),
            "If a Colon Newline Indent If b Colon Newline Indent c Newline Dedent Dedent d Newline"
        );
        assert_eq!(
            joined("if a:\n  b\n"),
            "If a Colon Newline Indent b Newline Dedent"
        );
    }

    #[test]
    fn blank_and_comment_lines_are_ignored() {
        assert_eq!(joined("a\n\n   # note\n  \nb # x\n"), "a Newline b Newline");
    }

    #[test]
    fn no_newline_inside_brackets_or_after_backslash() {
        assert_eq!(
            joined("f(a,\n  b)\nc = 1 + \\\n    2"),
            "f LPar a Comma b RPar Newline c Equal 1 Plus 2 Newline"
        );
    }

    #[test]
    fn tabs_count_to_multiples_of_eight() {
        assert_eq!(
            joined("if a:\n\tb\n        c\n"),
            "If a Colon Newline Indent b Newline error: inconsistent use of tabs and spaces in indentation"
        );
        assert_eq!(
            joined("if a:\n\tb\n\tc\n"),
            "If a Colon Newline Indent b Newline c Newline Dedent"
        );
    }

    #[test]
    fn indentation_errors() {
        assert_eq!(
            layout("if a:\n    b\n  c\n").last().unwrap(),
            "error: unindent does not match any outer indentation level"
        );
        assert_eq!(joined("  a\n"), "Indent a Newline Dedent");
        let deep: String = (0..100)
            .map(|i| format!("{}if x:\n", " ".repeat(i)))
            .collect();
        assert_eq!(
            layout(&(deep + &" ".repeat(100) + "pass\n"))
                .last()
                .unwrap(),
            "error: too many levels of indentation"
        );
    }

    #[test]
    fn bracket_errors() {
        assert_eq!(
            layout("(a]").last().unwrap(),
            "error: closing parenthesis ']' does not match opening parenthesis '('"
        );
        assert_eq!(
            layout("(a,\n]").last().unwrap(),
            "error: closing parenthesis ']' does not match opening parenthesis '(' on line 1"
        );
        assert_eq!(layout("a)").last().unwrap(), "error: unmatched ')'");
        assert_eq!(layout("f(a").last().unwrap(), "error: '(' was never closed");
        assert_eq!(
            layout(&"(".repeat(10_000)).last().unwrap(),
            "error: too many nested parentheses"
        );
    }

    #[test]
    fn expression_mode_ignores_newlines() {
        let tokens: Vec<_> =
            Layout::over_range("xx(a +\n b)yy", Span::new(2, 10), Mode::Expression)
                .map(|t| t.map(|(s, tok, e)| (s, format!("{tok:?}"), e)))
                .collect::<Result<_, _>>()
                .unwrap();
        assert_eq!(tokens.first().unwrap().0, 2);
        assert_eq!(tokens.len(), 5);
    }

    #[test]
    fn continuation_at_end_of_input() {
        assert_eq!(
            layout("x = 1 \\\n").last().unwrap(),
            "error: unexpected EOF while parsing"
        );
        assert_eq!(joined("x = 1 # \\\n"), "x Equal 1 Newline");
    }

    #[test]
    fn a_last_line_inside_a_block_is_told() {
        assert!(ends_inside_block("if x:\n  y"));
        assert!(ends_inside_block("if a:\n  if b: c"));
        assert!(!ends_inside_block("if x: y"));
        assert!(!ends_inside_block("if x:\n  y\nz"));
        assert!(!ends_inside_block("x = (1,\n  2)"));
        assert!(!ends_inside_block("x = (1,"));
    }
}
