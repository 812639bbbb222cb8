//! Errors the compiler finds in a program the parser accepted: `'return' outside function`,
//! `no binding for nonlocal 'x' found`, … worded as CPython 3.13 words them.
//!
//! A [`CompileError`] is data (a message and a span), rendered by the diagnostics module the
//! same way as a [`crate::syntax::SyntaxError`]. It knows nothing of codegen or the VM.

use crate::syntax::ast::Span;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CompileError {
    /// CPython's message, e.g. "'await' outside async function".
    pub message: String,
    pub span: Span,
}

impl CompileError {
    pub fn new(message: impl Into<String>, span: Span) -> CompileError {
        CompileError {
            message: message.into(),
            span,
        }
    }

    /// The Python exception class CPython raises for it: always `SyntaxError`.
    pub fn class_name(&self) -> &'static str {
        "SyntaxError"
    }
}

impl std::fmt::Display for CompileError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.class_name(), self.message)
    }
}

impl std::error::Error for CompileError {}

pub type CompileResult<T> = Result<T, CompileError>;
