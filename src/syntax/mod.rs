//! The front end: source text in, [`ast::Module`] or a [`SyntaxError`] out.
//!
//! `lexer` (logos) → `indent` (NEWLINE/INDENT/DEDENT) → `parser` (lalrpop, `grammar/apy.lalrpop`)
//! → `ast`. `diagnostics` renders errors with codespan-reporting. Nothing here knows the
//! compiler or the VM.

pub mod ast;
pub mod ast_dump;
pub mod ast_tree;
pub mod diagnostics;
pub mod error;
pub mod fstring;
pub mod indent;
pub mod lexer;
pub mod parser;
pub mod shape;
pub mod token;
pub mod unparse;
pub mod warnings;

pub use error::{SyntaxError, SyntaxErrorKind};

/// Parses a whole source file (or REPL entry); spans are byte offsets into `source`.
pub fn parse_module(source: &str) -> Result<ast::Module, SyntaxError> {
    parser::parse_module(source)
}

/// [`parse_module`], with the SyntaxWarnings the lexer found (`warnings`), by line.
pub fn parse_module_warned(source: &str) -> Result<(ast::Module, Vec<(u32, String)>), SyntaxError> {
    warnings::clear();
    let module = parse_module(source);
    let mut found = warnings::take();
    // Source order; the lexer may read a literal's body again (a backtracking parse).
    found.sort_by_key(|(offset, _)| *offset);
    found.dedup();
    let lines = found
        .into_iter()
        .map(|(offset, message)| (lexer::line_of(source, offset) as u32, message))
        .collect();
    Ok((module?, lines))
}
