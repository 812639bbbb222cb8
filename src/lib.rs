//! apy: a teaching interpreter for async Python.
//!
//! ```text
//! source ─► syntax (lexer, indent, parser) ─► AST ─► compile (scopes, codegen) ─► Code ─► vm
//! ```
//!
//! # The layers
//! Each layer imports only the layers below it (`tests/architecture.rs` checks this, and that
//! no more than four files import each other in a circle):
//!
//! ```text
//!   cli.rs, main.rs        the command line: arguments, files, exit statuses
//!   repl/                  the interactive prompt
//!   interp.rs              the embedder: wires the stages, builds a VM (new_vm) and runs it
//!   timeline/              --timeline: a recorder of the loop's events, its SVG/HTML/JSON
//!   ─────────────────────────────────────────────────────────────────────────────────────
//!   stdlib/                library modules written in apy (contextlib, …)
//!   asyncio/               the native event loop, Future, Task; lib/*.apy above them
//!   builtins/              the builtins module: functions, one file per built-in type, modules
//!   vm/                    values, objects, frames, the dispatch loop, calls, generators,
//!                          exceptions, tracebacks, import
//!   compile/               symbol tables, code generation, the instruction set, --dis
//!   syntax/                tokens, indentation, the parser, the AST, diagnostics
//!   common/                value-free helpers: text, numbers, hash tables, clocks, the
//!                          --trace and --explain sinks
//! ```
//!
//! The VM knows no layer above it. What it needs from them is handed to it by `interp`: the
//! `builtins` module and the native modules (`Vm::register_module`), the compile hook for
//! source met at run time (`Vm::compile`), asyncio's send step for its futures
//! (`Vm::native_send`) and its names for them in the trace (`vm::trace::name_objects_with`).
//! Inside the VM, four files define the data model and need each other (`mod.rs` with `Vm`,
//! `value.rs`, `object.rs`, `frame.rs`); everything else in `vm/` stands on them.
//!
//! Where to look:
//! - `common/`   — value-free helpers at the bottom, among them the sinks of `--trace` (its
//!   format is documented in `common/trace.rs`) and `--explain`; their events and notes are
//!   worded beside what they describe, in `vm/` (frames, coroutines) and `asyncio/`.
//! - `syntax/`   — tokens, indentation, the lalrpop grammar's driver, the AST, diagnostics.
//! - `compile/`  — symbol tables, bytecode generation (`codegen/`, a file per kind of node),
//!   the instruction set and `--dis`.
//! - `vm/`       — values, objects, frames, the evaluation loop (`eval.rs`, with its fast
//!   paths in `fast_calls.rs` and `fast_ops.rs`), calls, generators, exceptions, tracebacks,
//!   `import`, argument checking (`args.rs`).
//! - `builtins/` — built-in functions (`functions.rs`), a file per built-in type with its
//!   methods in one table, and the native modules (`sys`, `time`, `collections`, …).
//! - `asyncio/`  — the native event loop, Future, Task and gather; `asyncio/lib/*.apy` is the
//!   library above them, written in apy and compiled at first import.
//! - `stdlib/`   — the library modules CPython writes in Python, written in apy (`*.apy`),
//!   compiled on first import.
//! - `repl/`     — the interactive prompt: line editing, multi-line entries, one event loop
//!   that keeps running while the prompt waits.
//! - `interp.rs` — the one place that wires the stages together.

pub mod asyncio;
pub mod builtins;
pub mod common;
pub mod compile;
pub mod interp;
#[cfg(not(target_arch = "wasm32"))]
pub mod repl;
pub mod stdlib;
pub mod syntax;
pub mod timeline;
pub mod vm;
#[cfg(target_arch = "wasm32")]
pub mod web;
