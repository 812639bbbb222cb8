//! The front end: source text in, [`ast::Module`] or a [`SyntaxError`] out.
//!
//! `lexer` (logos) → `indent` (NEWLINE/INDENT/DEDENT) → `parser` (lalrpop, `grammar/apy.lalrpop`)
//! → `ast`. `diagnostics` renders errors with codespan-reporting. Nothing here knows the
//! compiler or the VM.

pub mod ast;
pub mod error;

pub use error::{SyntaxError, SyntaxErrorKind};
pub mod ast_dump;
pub mod diagnostics;
