//! `tuple`: its constructor and its methods, in one table ([`METHODS`]). Mirrors
//! `Objects/tupleobject.c` (`tuple_methods`); `index`/`count` share `list`'s search
//! (`list_type.rs`). Operators (`+`, `*`, `==`, `in`, `[i]`, hashing): the VM's protocol in
//! `vm/ops.rs`; `repr`: `vm/repr.rs`. Installs itself with [`init`].

use super::list_type::{seq_count, seq_index};
use crate::vm::args::{Signature, check_arity, check_kwargs, split_cls};
use crate::vm::call::instance_of_subclass;
use crate::vm::object::{KwArgs, NativeFn};
use crate::vm::value::Value;
use crate::vm::{PyResult, Vm};

/// The methods of `tuple`, by name.
const METHODS: &[(&str, NativeFn)] = &[("index", index), ("count", count)];

/// Installs `tuple`'s constructor and methods.
pub fn init(vm: &mut Vm) {
    let tuple = vm.types.tuple.clone();
    vm.add_static(&tuple, "__new__", tuple_new);
    vm.add_methods(&tuple, METHODS);
}

fn tuple_new(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let (cls, args) = split_cls(vm, args)?;
    check_kwargs(vm, "tuple", kw, &[])?;
    check_arity(vm, "tuple", args, 0, 1)?;
    let tuple = match args.first() {
        None => Value::tuple(vec![]),
        Some(v @ Value::Tuple(_)) => v.clone(),
        // (A user class's iterable is asked its length hint, as `PySequence_Tuple` does.)
        Some(v) => Value::tuple(vm.collect_for_list(v)?.0),
    };
    // `super().__new__(cls, items)` in a subclass's own `__new__` makes the subclass's
    // instance there, so that `__new__` can give it attributes (a plain call of the class
    // gets the same from `Vm::call_type`).
    if cls.builtin {
        return Ok(tuple);
    }
    // `tuple.__new__(Point, values)`: an instance of the subclass (a namedtuple's `_make`).
    Ok(instance_of_subclass(&cls, tuple))
}

fn index(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    Signature::positional("tuple", "index", &["value", "start", "stop"], 1).bind(
        vm,
        &args[1..],
        kw,
    )?;
    let Some(Value::Tuple(t)) = args.first() else {
        return Err(vm.type_error("descriptor requires a 'tuple' object"));
    };
    let items = t.items.clone();
    seq_index(vm, &|i| items.get(i).cloned(), items.len(), args, "tuple")
}

fn count(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    Signature::one("tuple", "count").check(vm, &args[1..], kw)?;
    let Some(Value::Tuple(t)) = args.first() else {
        return Err(vm.type_error("descriptor requires a 'tuple' object"));
    };
    let items = t.items.clone();
    seq_count(vm, &|i| items.get(i).cloned(), args)
}
