//! The `gc` module, answered honestly: apy frees an object the moment its last reference
//! goes (reference counting, as CPython does first), and has no cycle collector behind it.
//! So `gc.collect()` finds nothing and returns 0, objects in a reference cycle are never
//! freed, and `enable`/`disable`/thresholds only keep the settings a program reads back.
//! Mirrors the surface of `Modules/gcmodule.c`.

use std::cell::Cell;

use crate::vm::args::{check_arity, check_kwargs, kwarg};
use crate::vm::object::KwArgs;
use crate::vm::value::Value;
use crate::vm::{PyResult, Vm};

thread_local! {
    /// What `gc.enable()`/`gc.disable()` last set.
    static ENABLED: Cell<bool> = const { Cell::new(true) };
    /// What `gc.set_threshold` last set (CPython 3.13's defaults).
    static THRESHOLD: Cell<[i64; 3]> = const { Cell::new([2000, 10, 10]) };
}

/// `gc.collect(generation=2)`: checks its argument as CPython does; nothing to collect.
fn collect(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    check_arity(vm, "collect", args, 0, 1)?;
    check_kwargs(vm, "collect", kw, &["generation"])?;
    if let Some(generation) = args.first().cloned().or_else(|| kwarg(kw, "generation")) {
        let generation = vm.expect_index(&generation)?;
        if !(0..=2).contains(&generation) {
            return Err(vm.value_error("invalid generation"));
        }
    }
    Ok(Value::Int(0))
}

fn no_arguments(vm: &Vm, name: &str, args: &[Value], kw: &KwArgs) -> PyResult<()> {
    check_arity(vm, name, args, 0, 0)?;
    check_kwargs(vm, name, kw, &[])
}

fn enable(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    no_arguments(vm, "gc.enable", args, kw)?;
    ENABLED.set(true);
    Ok(Value::None)
}

fn disable(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    no_arguments(vm, "gc.disable", args, kw)?;
    ENABLED.set(false);
    Ok(Value::None)
}

fn isenabled(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    no_arguments(vm, "gc.isenabled", args, kw)?;
    Ok(Value::Bool(ENABLED.get()))
}

fn get_threshold(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    no_arguments(vm, "gc.get_threshold", args, kw)?;
    Ok(Value::tuple(THRESHOLD.get().map(Value::Int).to_vec()))
}

fn set_threshold(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    check_kwargs(vm, "set_threshold", kw, &[])?;
    if !(1..=3).contains(&args.len()) {
        return Err(vm.type_error("gc.set_threshold requires 1 to 3 arguments"));
    }
    let mut threshold = THRESHOLD.get();
    for (slot, arg) in threshold.iter_mut().zip(args) {
        *slot = vm.expect_index(arg)?;
    }
    THRESHOLD.set(threshold);
    Ok(Value::None)
}

/// `get_count()` and `get_freeze_count()`: no generations, nothing counted or frozen.
fn get_count(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    no_arguments(vm, "gc.get_count", args, kw)?;
    Ok(Value::tuple(vec![Value::Int(0); 3]))
}

fn get_freeze_count(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    no_arguments(vm, "gc.get_freeze_count", args, kw)?;
    Ok(Value::Int(0))
}

pub fn module(vm: &mut Vm) -> Value {
    let attrs = vec![
        ("collect", vm.native("collect", collect)),
        ("enable", vm.native("enable", enable)),
        ("disable", vm.native("disable", disable)),
        ("isenabled", vm.native("isenabled", isenabled)),
        ("get_threshold", vm.native("get_threshold", get_threshold)),
        ("set_threshold", vm.native("set_threshold", set_threshold)),
        ("get_count", vm.native("get_count", get_count)),
        (
            "get_freeze_count",
            vm.native("get_freeze_count", get_freeze_count),
        ),
        ("garbage", Value::list(Vec::new())),
        ("callbacks", Value::list(Vec::new())),
        ("DEBUG_STATS", Value::Int(1)),
        ("DEBUG_COLLECTABLE", Value::Int(2)),
        ("DEBUG_UNCOLLECTABLE", Value::Int(4)),
        ("DEBUG_SAVEALL", Value::Int(32)),
        ("DEBUG_LEAK", Value::Int(38)),
    ];
    vm.new_module("gc", attrs)
}
