//! The compiler: [`crate::syntax::ast::Module`] in, [`bytecode::Code`] out.
//!
//! `scope` builds symbol tables (CPython's `Python/symtable.c`), `codegen` emits bytecode
//! (`Python/compile.c`, `Python/flowgraph.c`), `dis` prints it like `python3.13 -m dis`.
//! Nothing here knows about runtime values or the VM.

pub mod bytecode;
