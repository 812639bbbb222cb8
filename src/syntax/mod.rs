//! The front end: source text in, [`ast::Module`] or a [`SyntaxError`] out.
//!
//! `lexer` (logos) → `indent` (NEWLINE/INDENT/DEDENT) → `parser` (lalrpop, `grammar/apy.lalrpop`)
//! → `ast`. `diagnostics` renders errors with codespan-reporting. Nothing here knows the
//! compiler or the VM.

pub mod ast;
pub mod ast_dump;
pub mod diagnostics;
pub mod error;
pub mod fstring;
pub mod indent;
pub mod lexer;
pub mod parser;
pub mod token;
pub mod unparse;

pub use error::{SyntaxError, SyntaxErrorKind};

/// Parses a whole source file (or REPL entry); spans are byte offsets into `source`.
pub fn parse_module(source: &str) -> Result<ast::Module, SyntaxError> {
    parser::parse_module(source)
}
