//! The compiler: [`crate::syntax::ast::Module`] in, [`bytecode::Code`] out.
//!
//! `scope` builds symbol tables (CPython's `Python/symtable.c`), `codegen` emits bytecode
//! (`Python/compile.c`, `Python/flowgraph.c`), `dis` prints it like `python3.13 -m dis`.
//! Nothing here knows about runtime values or the VM.

pub mod bytecode;
pub mod codegen;
pub mod dis;
pub mod error;
pub mod scope;

use std::rc::Rc;

pub use bytecode::Code;
pub use codegen::LineIndex;
pub use dis::disassemble;
pub use error::CompileError;

use crate::syntax::ast;

/// How a module is compiled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// A file.
    Exec,
    /// One REPL entry: expression statements print their value, and top-level `await`
    /// (with `async for` / `async with`) is allowed, making the module code a coroutine.
    Interactive,
}

/// Compile a parsed module into its code object (which holds every nested code object).
pub fn compile_module(
    module: &ast::Module,
    source: &str,
    filename: &str,
    mode: Mode,
) -> Result<Rc<Code>, CompileError> {
    let table = scope::build(module, mode == Mode::Interactive)?;
    codegen::Codegen::new(&table, source, filename, mode).compile_module(module)
}
