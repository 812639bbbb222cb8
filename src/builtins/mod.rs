//! The `builtins` module: what a program finds without importing anything — the built-in
//! functions, the built-in types' constructors and methods — and the native modules it can
//! import (`sys`, `time`, `functools`, `collections`, `heapq`, `inspect`, `types`,
//! `contextvars`). Works on the VM's value model through `Vm` methods only; never touches
//! frames or bytecode. [`install`] is the one way in: it runs each file's `init`.
//!
//! Each file below imports the VM, never this one (`vm/args.rs` checks their arguments):
//!
//! - `functions.rs` — the built-in functions, one table (`Python/bltinmodule.c`).
//! - `constructors.rs` — the constructors (`__new__`/`__init__`) of the built-in types, and
//!   the methods of `object`, `property`, `classmethod`, `staticmethod`.
//! - `methods.rs` — the methods of `list`, `tuple`, `dict`, and `set`'s `add`/`remove`/….
//! - `str_type.rs`, `num_type.rs` (`int`, `float`), `range_type.rs`, `set_type.rs` — the
//!   methods of those types.
//! - `modules.rs` — `sys` (with its standard streams), `time`, `functools`, and the table of
//!   native modules; `collections.rs` (`deque`, `heapq`), `inspect.rs` (`inspect`, `types`),
//!   `contextvars.rs`.
//!
//! The operators of the built-in types are the VM's protocol (`vm/ops.rs`, their `repr` in
//! `vm/repr.rs`), as are `format()` and `str %` (`vm/format.rs`), the set algebra
//! (`vm/set_ops.rs`) and `next()` (`vm/iter.rs`).

pub mod collections;
mod constructors;
pub mod contextvars;
mod functions;
mod inspect;
mod methods;
mod modules;
mod num_type;
mod range_type;
mod set_type;
mod str_type;

use crate::vm::Vm;
use crate::vm::dict::StrKeys;
use crate::vm::value::Value;

/// Installs everything into `vm.builtins` and the built-in types.
pub fn install(vm: &mut Vm) {
    modules::register(vm);
    constructors::init(vm);
    methods::init(vm);
    str_type::init(vm);
    set_type::init(vm);
    num_type::init(vm);
    range_type::init(vm);
    for (name, f) in functions::FUNCTIONS {
        let value = vm.native(name, *f);
        set_builtin(vm, name, value);
    }
    let t = &vm.types;
    let types = [
        ("object", t.object.clone()),
        ("type", t.type_.clone()),
        ("int", t.int.clone()),
        ("bool", t.bool.clone()),
        ("float", t.float.clone()),
        ("str", t.str.clone()),
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
    for ty in vm.types.exception_types() {
        let name = ty.name.to_string();
        set_builtin(vm, &name, Value::Type(ty));
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
