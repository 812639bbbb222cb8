//! The ground floor: value-free helpers that every stage above may use and that use nothing
//! above them. Each works on plain Rust data (`&str`, `char`, `f64`, `i64`/`BigInt`, generic
//! hash tables) and reports failures as an [`op_error::OpError`] that the VM turns into a
//! Python exception. Nothing here knows what a Python value, a frame or the VM is; RustPython
//! keeps the same kind of code in its `common` crate.
//!
//! - `chars`       — character classes (`isspace`, digits, printable) and `repr` of a string
//! - `east_asian_width` — which characters a terminal shows two columns wide (carets)
//! - `unprintable` — the code points `str.isprintable` refuses (generated from CPython)
//! - `unicode_data` — the Unicode Character Database as CPython 3.13 has it (`unicodedata`,
//!   `\N{…}`), with normalization
//! - `clock`       — the real and the virtual clock (`--clock`), and the process start time
//! - `int_ops`     — int arithmetic on `i64` with `BigInt` overflow, `int()` parsing
//! - `float_repr`  — `repr(float)` and float formatting (`Python/dtoa.c`, `pystrtod.c`)
//! - `complex_ops` — complex arithmetic, `repr(complex)`, its hash and `complex(str)`
//! - `format_spec` — the format-spec mini-language (`format(x, spec)`, f-string specs)
//! - `str_ops`     — the algorithms behind `str` methods
//! - `percent`     — the `%` operator of str and bytes
//! - `struct_layout` — the formats of the `struct` module and the byte layouts they describe
//! - `bytes_ops`   — the algorithms behind `bytes` methods (shared with `str` where the same)
//! - `net`         — sockets, `poll` and epoll through `libc`: the one place they are called
//! - `str_format`  — `str.format` field parsing
//! - `set_table`   — dict and set hash tables in CPython's iteration order
//! - `list_sort`   — timsort (`Objects/listsort.txt`)
//! - `memory`      — the heap's accounting for `--max-memory`: the global allocator
//! - `op_error`    — the errors these helpers return, by exception class
//! - `sizes`       — sizes checked before allocating: `MemoryError` instead of an abort
//! - `suggestions` — "Did you mean …?" (`Python/suggestions.c`)
//! - `trace`       — the `--trace` log's sink: categories, this thread's mask, the writer
//!   (stderr or `--trace-file`, indentation); the events are worded in `vm/trace.rs` and
//!   `asyncio/trace.rs`, and its module doc holds the log's format
//! - `explain`     — the `--explain` switch and the layout of a teaching note

#[cfg(target_arch = "wasm32")]
pub mod browser;
pub mod bytes_ops;
pub mod chars;
pub mod clock;
pub mod complex_ops;
pub mod console;
pub mod east_asian_width;
pub mod errno_text;
pub mod explain;
pub mod float_repr;
pub mod format_spec;
pub mod int_ops;
pub mod list_sort;
pub mod memory;
#[cfg(not(target_arch = "wasm32"))]
pub mod net;
pub mod op_error;
pub mod percent;
#[cfg(not(target_arch = "wasm32"))]
pub mod process;
pub mod set_table;
pub mod sizes;
pub mod str_format;
pub mod str_ops;
pub mod struct_layout;
pub mod suggestions;
pub mod trace;
pub mod unicode_data;
pub mod unprintable;
