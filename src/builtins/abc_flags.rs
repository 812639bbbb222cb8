//! `_abc`, the native corner of `abc.apy`: what CPython's `Modules/_abc.c` does to a type's
//! flags. A class body that sets `__abc_tpflags__` (`collections.abc.Sequence` and
//! `Mapping` do) makes its class, its later subclasses and the classes it `register`s
//! match `case [a, b]` or `case {"k": v}` patterns as the built-in sequences and mappings do.

use crate::vm::args::{check_arity, check_kwargs};
use crate::vm::object::{KwArgs, MATCH_MAPPING, MATCH_SELF, MATCH_SEQUENCE};
use crate::vm::value::Value;
use crate::vm::{PyResult, Vm};

/// CPython's `Py_TPFLAGS_SEQUENCE` and `Py_TPFLAGS_MAPPING`.
const TPFLAGS_SEQUENCE: i64 = 1 << 5;
const TPFLAGS_MAPPING: i64 = 1 << 6;

/// `_set_collection_flag(cls, flags)`: marks `cls` a sequence or a mapping for `match`,
/// the one of the two that `flags` (CPython's type-flag bits) names.
fn set_collection_flag(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    check_arity(vm, "_set_collection_flag", args, 2, 2)?;
    check_kwargs(vm, "_set_collection_flag", kw, &[])?;
    let Value::Type(cls) = &args[0] else {
        return Err(vm.type_error("_set_collection_flag() argument 1 must be a type"));
    };
    let flags = vm.expect_index(&args[1])?;
    // Built-in types keep their own flags (CPython skips immutable types): `str` is
    // registered as a Sequence, yet `case [a, b]` never matches a string.
    if cls.builtin || cls.match_flags.get() & MATCH_SELF != 0 {
        return Ok(Value::None);
    }
    let collection = if flags & TPFLAGS_SEQUENCE != 0 {
        MATCH_SEQUENCE
    } else if flags & TPFLAGS_MAPPING != 0 {
        MATCH_MAPPING
    } else {
        return Ok(Value::None);
    };
    let others = cls.match_flags.get() & !(MATCH_SEQUENCE | MATCH_MAPPING);
    cls.match_flags.set(others | collection);
    Ok(Value::None)
}

pub fn module(vm: &mut Vm) -> Value {
    let set = vm.native("_set_collection_flag", set_collection_flag);
    vm.new_module("_abc", vec![("_set_collection_flag", set)])
}
