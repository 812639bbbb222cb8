//! apy: a teaching interpreter for async Python.
//!
//! ```text
//! source ─► syntax (lexer, indent, parser) ─► AST ─► compile (scopes, codegen) ─► Code ─► vm
//! ```
//! `interp` is the one place that wires the stages together; `main.rs`/`cli.rs` only read
//! arguments and files and turn outcomes into exit statuses.
//!
//! Where to look:
//! - `syntax/`   — tokens, indentation, the lalrpop grammar's driver, the AST, diagnostics.
//! - `compile/`  — symbol tables, bytecode generation, the instruction set and `--dis`.
//! - `vm/`       — values, objects, frames, the evaluation loop, exceptions, tracebacks.
//! - `builtins/` — built-in functions, the methods of built-in types, modules, and the pure
//!   helpers behind them (float repr, format specs, int ops, CPython-ordered hash tables).
//! - `asyncio/`  — the native event loop, Future, Task and clocks; `asyncio/lib/*.apy` is the
//!   library above them, written in apy and compiled at first import.
//! - `repl/`     — the interactive prompt: line editing, multi-line entries, one event loop
//!   that keeps running while the prompt waits.
//! - `common/`   — value-free helpers at the bottom, among them the sinks of `--trace` (its
//!   format is documented in `common/trace.rs`) and `--explain`; their events and notes are
//!   worded beside what they describe, in `vm/` (frames, coroutines) and `asyncio/`.

pub mod asyncio;
pub mod builtins;
pub mod common;
pub mod compile;
pub mod interp;
pub mod repl;
pub mod syntax;
pub mod vm;
