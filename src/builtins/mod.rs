//! The `builtins` module: what a program finds without importing anything — the built-in
//! functions, the built-in types' constructors and methods — and the native modules it can
//! import (`sys`, `_time`, `functools`, `collections`, `heapq`, `inspect`, `types`,
//! `contextvars`, `random`, `math`, `itertools`). Works on the VM's value model through `Vm` methods only; never touches
//! frames or bytecode. [`install`] is the one way in: it runs each file's `init`.
//!
//! Each file below imports the VM, never this one (`vm/args.rs` checks their arguments).
//! A built-in type's constructor, methods and attributes are in one file, in tables, so
//! adding `list.foo` is one line in `list_type.rs`'s table and one function beside it:
//!
//! - `functions.rs` — the built-in functions, one table (`Python/bltinmodule.c`); `dir.rs`
//!   — `dir()` and the `__dir__` methods; `reduce.rs` — `object.__reduce_ex__`;
//!   `exec.rs` — `exec`, `eval` and `compile()`, which compile and run source; `io.rs` —
//!   `open()`, the `io` module (text files, `StringIO`); `os.rs` — `os` and `os.path`.
//! - `list_type.rs`, `tuple_type.rs`, `dict_type.rs`, `set_type.rs` (`set`, `frozenset`),
//!   `str_type.rs`, `num_type.rs` (`int`, `bool`, `float`), `complex_type.rs`,
//!   `range_type.rs` — those types.
//! - `classes.rs` — `object`, `type`, and the small classes without a file of their own:
//!   `slice`, `enumerate`, `zip`, `map`, `filter`, `reversed`, `super`, `property`,
//!   `classmethod`, `staticmethod`.
//! - `modules.rs` — `sys`, `functools` (with `lru_cache.rs`, its cache wrapper), and the table of native modules; `std_streams.rs`
//!   (`sys.stdin`, `sys.stdout`, `sys.stderr`, and what `input()` reads, through
//!   `stdin_reader.rs`, which waits for input where Ctrl-C and the limits apply); `site_builtins.rs`
//!   (`exit` and `quit`); `time.rs` (`_time`, the native half of `time`); `collections.rs` (the `_collections` module and `heapq`), `deque.rs` (`deque`), `inspect.rs` (`inspect`, `types`),
//!   `contextvars.rs`, `random.rs` (over `random_core.rs`, the Mersenne Twister), `math.rs`
//!   (with `math_int.rs`, `math_sum.rs`), `cmath.rs` (with `cmath_special.rs`), `itertools.rs` (with `itertools_comb.rs`);
//!   the POSIX modules: `pwd_grp.rs` (`pwd`, `grp`), `resource_module.rs`, `fcntl_module.rs`,
//!   `termios_module.rs` (descriptor arguments in `fd_arg.rs`, their numbers and texts in
//!   `posix_constants.rs`, their struct sequences through `structseq.rs`), `faulthandler.rs`;
//!   `frames.rs` (`_frames`, what `logging`,
//!   `warnings` and `traceback` ask of the running program); `module_args.rs` converts their arguments as CPython's C API does.
//!
//! What the VM's own protocols need is in `vm/`: the operators of the built-in types
//! (`vm/ops.rs`) and their `repr` (`vm/repr.rs`), `format()` and `str %` (`vm/format.rs`),
//! the set algebra (`vm/set_ops.rs`), `next()` and iteration (`vm/iter.rs`), the hash table
//! (`vm/dict.rs`).

mod abc_flags;
pub mod array;
mod ast_module;
mod atexit;
mod binary_file;
mod binascii;
mod bind;
mod breakpoint;
mod bytes_io;
mod bytes_iter;
mod bytes_type;
mod class_build;
mod classes;
mod cmath;
mod cmath_special;
pub mod codecs;
pub mod collections;
mod complex_type;
pub mod contextvars;
pub mod deque;
mod dict_type;
mod dir;
mod dis;
mod errno_module;
mod exec;
mod faulthandler;
#[cfg(not(target_arch = "wasm32"))]
mod fcntl_module;
#[cfg(not(target_arch = "wasm32"))]
mod fd_arg;
#[cfg(not(target_arch = "wasm32"))]
mod fork;
mod frames;
mod functions;
mod gc;
mod hashlib;
mod inspect;
mod int_bytes;
mod io;
mod iter_reduce;
mod itertools;
mod itertools_comb;
mod json_native;
mod list_type;
mod lru_cache;
mod math;
mod math_int;
mod math_sum;
pub mod memoryview;
mod module_args;
mod modules;
mod namespace_type;
mod num_type;
mod os;
mod os_owner;
#[cfg(target_arch = "wasm32")]
mod page_os;
mod posix_constants;
#[cfg(not(target_arch = "wasm32"))]
mod process;
#[cfg(not(target_arch = "wasm32"))]
mod pwd_grp;
mod random;
mod random_core;
mod range_type;
mod raw_stream;
mod re_engine;
mod reduce;
#[cfg(not(target_arch = "wasm32"))]
mod resource_module;
mod select_constants;
#[cfg(not(target_arch = "wasm32"))]
pub mod select_module;
#[cfg(not(target_arch = "wasm32"))]
pub mod selectors;
mod set_type;
pub mod signal_module;
mod site_builtins;
mod sizeof;
mod slot_wrappers;
#[cfg(not(target_arch = "wasm32"))]
pub mod socket;
#[cfg(not(target_arch = "wasm32"))]
mod socket_convert;
#[cfg(not(target_arch = "wasm32"))]
mod sqlite;
#[cfg(not(target_arch = "wasm32"))]
mod sqlite_codes;
mod sre;
mod sre_match;
mod std_buffers;
mod std_streams;
#[cfg(not(target_arch = "wasm32"))]
mod stdin_reader;
mod str_type;
mod struct_module;
mod structseq;
#[cfg(not(target_arch = "wasm32"))]
mod termios_module;
mod text_file;
mod thread;
mod time;
#[cfg(target_arch = "wasm32")]
mod time_browser;
#[cfg(not(target_arch = "wasm32"))]
mod time_calendar;
mod tracemalloc;
mod tuple_type;
mod unicodedata;
mod weakref;
mod zlib_diagnose;
mod zlib_module;
mod zlib_stream;

use crate::vm::Vm;
use crate::vm::dict::StrKeys;
use crate::vm::object::{Layout, NativeFunction};
use crate::vm::types::make_type;
use crate::vm::value::Value;

/// Installs everything into `vm.builtins` and the built-in types.
pub fn install(vm: &mut Vm) {
    modules::register(vm);
    classes::init(vm);
    class_build::init(vm);
    dir::init(vm);
    reduce::init(vm);
    list_type::init(vm);
    tuple_type::init(vm);
    dict_type::init(vm);
    set_type::init(vm);
    str_type::init(vm);
    bytes_type::init(vm);
    num_type::init(vm);
    complex_type::init(vm);
    range_type::init(vm);
    slot_wrappers::init(vm);
    iter_reduce::init(vm);
    crate::vm::generics::init(vm);
    site_builtins::init(vm);
    let open: (&str, crate::vm::object::NativeFn) = ("open", io::builtin_open);
    let module: std::rc::Rc<str> = "builtins".into();
    for (name, f) in functions::FUNCTIONS
        .iter()
        .chain(exec::FUNCTIONS)
        .chain([&open])
    {
        let value = vm.native(name, *f);
        NativeFunction::place_in(&value, &module);
        set_builtin(vm, name, value);
    }
    let t = &vm.types;
    let types = [
        ("object", t.object.clone()),
        ("type", t.type_.clone()),
        ("int", t.int.clone()),
        ("bool", t.bool.clone()),
        ("float", t.float.clone()),
        ("complex", t.complex.clone()),
        ("str", t.str.clone()),
        ("bytes", t.bytes.clone()),
        ("bytearray", t.bytearray.clone()),
        ("list", t.list.clone()),
        ("tuple", t.tuple.clone()),
        ("dict", t.dict.clone()),
        ("set", t.set.clone()),
        ("frozenset", t.frozenset.clone()),
        ("range", t.range.clone()),
        ("slice", t.slice.clone()),
        ("enumerate", t.enumerate.clone()),
        ("zip", t.zip.clone()),
        ("map", t.map.clone()),
        ("filter", t.filter.clone()),
        ("reversed", t.reversed.clone()),
        ("super", t.super_.clone()),
        ("property", t.property.clone()),
        ("classmethod", t.classmethod.clone()),
        ("staticmethod", t.staticmethod.clone()),
    ];
    for (name, ty) in types {
        set_builtin(vm, name, Value::Type(ty));
    }
    let view = memoryview::memoryview_type(vm);
    set_builtin(vm, "memoryview", Value::Type(view));
    for ty in vm.types.exception_types() {
        let name = ty.name().to_string();
        set_builtin(vm, &name, Value::Type(ty));
    }
    // The warning categories the VM itself never raises: classes of builtins only.
    for name in [
        "PendingDeprecationWarning",
        "FutureWarning",
        "SyntaxWarning",
        "ImportWarning",
        "ResourceWarning",
        "UnicodeWarning",
        "BytesWarning",
        "EncodingWarning",
    ] {
        let warning = vec![vm.types.warning.clone()];
        let ty = make_type(name, warning, Layout::Exception, true);
        set_builtin(vm, name, Value::Type(ty));
    }
    // Errors only C code raises in CPython: classes for programs that catch or raise them.
    let plain_errors = [
        ("SystemError", vm.types.exception.clone()),
        ("PythonFinalizationError", vm.types.runtime_error.clone()),
    ];
    for (name, base) in plain_errors {
        let ty = make_type(name, vec![base], Layout::Exception, true);
        set_builtin(vm, name, Value::Type(ty));
    }
    let translate = codecs::unicode_translate_error(vm);
    set_builtin(vm, "UnicodeTranslateError", Value::Type(translate));
    // Old names of OSError, kept by CPython as aliases.
    for alias in ["EnvironmentError", "IOError"] {
        set_builtin(vm, alias, Value::Type(vm.types.os_error.clone()));
    }
    set_builtin(vm, "None", Value::None);
    set_builtin(vm, "Ellipsis", Value::Ellipsis);
    set_builtin(vm, "NotImplemented", Value::NotImplemented);
    set_builtin(vm, "__name__", Value::str("builtins"));
}

fn set_builtin(vm: &mut Vm, name: &str, value: Value) {
    let key = vm.intern(name);
    vm.builtins.table.borrow_mut().set_str(key, value);
}
