//! The `atexit` module (`Modules/atexitmodule.c`): functions registered to run as the
//! program ends, last registered first, after the main module's uncaught exception (if
//! any) is reported and the threads are joined ([`Vm::run_exit_functions`]). Unregistering
//! leaves a hole, as CPython's does (`_ncallbacks()` still counts it).

use std::rc::Rc;

use crate::vm::args::check_arity;
use crate::vm::object::KwArgs;
use crate::vm::value::Value;
use crate::vm::{ExitFunction, PyResult, Vm};

/// `atexit.register(func, *args, **kwargs)`: gives `func` back, so it serves as a decorator.
fn register(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let Some(func) = args.first() else {
        return Err(vm.type_error("register() takes at least 1 argument (0 given)"));
    };
    if !vm.is_callable(func) {
        return Err(vm.type_error("the first argument must be callable"));
    }
    vm.exit_functions.push(Some(ExitFunction {
        func: func.clone(),
        args: args[1..].to_vec(),
        kwargs: kw.iter().map(|(k, v)| (Rc::clone(k), v.clone())).collect(),
    }));
    Ok(func.clone())
}

/// `atexit.unregister(func)`: forgets every registration of a function equal to `func`.
fn unregister(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    check_arity(vm, "unregister", args, 1, 1)?;
    for i in 0..vm.exit_functions.len() {
        let Some(registered) = vm.exit_functions[i].as_ref().map(|f| f.func.clone()) else {
            continue;
        };
        if vm.eq(&registered, &args[0])? {
            vm.exit_functions[i] = None;
        }
    }
    Ok(Value::None)
}

fn run_exitfuncs(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    check_arity(vm, "_run_exitfuncs", args, 0, 0)?;
    vm.run_exit_functions();
    Ok(Value::None)
}

fn clear(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    check_arity(vm, "_clear", args, 0, 0)?;
    vm.exit_functions.clear();
    Ok(Value::None)
}

fn ncallbacks(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    check_arity(vm, "_ncallbacks", args, 0, 0)?;
    Ok(Value::Int(vm.exit_functions.len() as i64))
}

pub fn module(vm: &mut Vm) -> Value {
    let attrs = vec![
        ("register", vm.native("register", register)),
        ("unregister", vm.native("unregister", unregister)),
        ("_run_exitfuncs", vm.native("_run_exitfuncs", run_exitfuncs)),
        ("_clear", vm.native("_clear", clear)),
        ("_ncallbacks", vm.native("_ncallbacks", ncallbacks)),
    ];
    vm.new_module("atexit", attrs)
}
