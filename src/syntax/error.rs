//! Errors of the front end: what went wrong, and where.
//!
//! A [`SyntaxError`] is data — a kind, a CPython-worded message, a span, an optional help
//! line. It is rendered in one place (`diagnostics.rs`). The REPL asks [`SyntaxError::is_incomplete`]
//! to decide whether to read another line.

use super::ast::Span;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SyntaxError {
    pub kind: SyntaxErrorKind,
    /// CPython's message where CPython has one: "invalid syntax", "expected ':'", …
    pub message: String,
    pub span: Span,
    /// A line of advice for a learner, shown under the diagnostic.
    pub help: Option<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SyntaxErrorKind {
    /// The input is wrong whatever follows it.
    Invalid,
    /// The input ended too early: an open bracket, an indented block still expected, an
    /// unterminated triple-quoted string, a trailing `\`. More lines could complete it.
    Incomplete,
    /// Valid Python outside the apy subset (named in the message, with a hint).
    Unsupported,
    /// CPython's `IndentationError` ("unexpected indent", "expected an indented block …").
    Indentation,
    /// CPython's `TabError` ("inconsistent use of tabs and spaces in indentation").
    Tab,
    /// The input ended where an indented block is expected (`if x:` then EOF): CPython's
    /// `IndentationError`, yet more lines could complete it, so the REPL keeps reading.
    IncompleteBlock,
}

impl SyntaxError {
    pub fn new(kind: SyntaxErrorKind, message: impl Into<String>, span: Span) -> SyntaxError {
        SyntaxError {
            kind,
            message: message.into(),
            span,
            help: None,
        }
    }

    pub fn invalid(message: impl Into<String>, span: Span) -> SyntaxError {
        SyntaxError::new(SyntaxErrorKind::Invalid, message, span)
    }

    pub fn with_help(mut self, help: impl Into<String>) -> SyntaxError {
        self.help = Some(help.into());
        self
    }

    /// True when more input could make the program valid (the REPL then asks for a line).
    pub fn is_incomplete(&self) -> bool {
        matches!(
            self.kind,
            SyntaxErrorKind::Incomplete | SyntaxErrorKind::IncompleteBlock
        )
    }

    /// The Python exception class CPython would raise: the last line of stderr is
    /// `{class_name}: {message}`.
    pub fn class_name(&self) -> &'static str {
        match self.kind {
            SyntaxErrorKind::Indentation | SyntaxErrorKind::IncompleteBlock => "IndentationError",
            SyntaxErrorKind::Tab => "TabError",
            _ => "SyntaxError",
        }
    }
}
