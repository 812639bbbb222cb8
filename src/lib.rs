//! apy: a teaching interpreter for async Python.
//!
//! ```text
//! source ─► syntax (lexer, indent, parser) ─► AST ─► compile (scopes, codegen) ─► Code ─► vm
//! ```
//!
//! Where to look:
//! - `syntax/`   — tokens, indentation, the lalrpop grammar's driver, the AST, diagnostics.
//! - `compile/`  — symbol tables, bytecode generation, the instruction set and `--dis`.
//! - `vm/`       — values, objects, frames, the evaluation loop, exceptions, tracebacks.
//! - `builtins/` — built-in functions, types and modules.

pub mod asyncio;
pub mod builtins;
pub mod compile;
pub mod interp;
pub mod syntax;
pub mod vm;
