//! `exit`, `quit` and `help`: built-ins CPython's `site` module adds at start-up
//! (`Lib/_sitebuiltins.py`). `exit` and `quit` are instances of `_sitebuiltins.Quitter`:
//! calling one closes `sys.stdin` and raises `SystemExit(code)`; its repr tells a REPL user
//! how to leave. `help` is a `_sitebuiltins._Helper`: calling it imports `pydoc` (only
//! then) and hands it the call.

use crate::vm::args::{check_arity, check_kwargs};
use crate::vm::dict::StrKeys;
use crate::vm::object::{KwArgs, Layout};
use crate::vm::types::make_type;
use crate::vm::value::Value;
use crate::vm::{PyResult, Vm};

/// Makes the `Quitter` and `_Helper` classes and puts `exit`, `quit` and `help` among the
/// built-ins.
pub fn init(vm: &mut Vm) {
    init_helper(vm);
    let quitter = make_type(
        "Quitter",
        vec![vm.types.object.clone()],
        Layout::Object,
        false,
    );
    vm.set_type_attr(&quitter, "__module__", Value::str("_sitebuiltins"));
    vm.add_method(&quitter, "__init__", init_quitter);
    vm.add_method(&quitter, "__repr__", |vm, args, _| {
        let name = attr_str(vm, &args[0], "name")?;
        let eof = attr_str(vm, &args[0], "eof")?;
        Ok(Value::str(format!("Use {name}() or {eof} to exit")))
    });
    vm.add_method(&quitter, "__call__", call);
    for name in ["exit", "quit"] {
        let value = vm.new_instance(&quitter);
        let fields = [Value::str(name), Value::str("Ctrl-D (i.e. EOF)")];
        let args = [value.clone(), fields[0].clone(), fields[1].clone()];
        // Cannot fail: the instance is fresh and the values are strs.
        let _ = init_quitter(vm, &args, &[]);
        let key = vm.intern(name);
        vm.builtins.table.borrow_mut().set_str(key, value);
    }
}

/// `Quitter.__init__(self, name, eof)`.
fn init_quitter(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    check_kwargs(vm, "__init__", kw, &[])?;
    check_arity(vm, "Quitter.__init__", args, 3, 3)?;
    for (field, value) in ["name", "eof"].into_iter().zip(&args[1..]) {
        let key = vm.intern(field);
        vm.set_attr(&args[0], &key, value.clone())?;
    }
    Ok(Value::None)
}

fn attr_str(vm: &mut Vm, obj: &Value, name: &str) -> PyResult<String> {
    let key = vm.intern(name);
    let value = vm.get_attr(obj, &key)?;
    Ok(vm.str_of(&value)?.as_str().to_string())
}

/// `Quitter.__call__(self, code=None)`: closes `sys.stdin` (ignoring whatever that raises),
/// then raises `SystemExit(code)`.
fn call(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    check_kwargs(vm, "__call__", kw, &["code"])?;
    if args.len() > 2 {
        return Err(vm.type_error(format!(
            "Quitter.__call__() takes from 1 to 2 positional arguments but {} were given",
            args.len()
        )));
    }
    let code = match (args.get(1), kw.first()) {
        (Some(code), _) => code.clone(),
        (None, Some((_, code))) => code.clone(),
        (None, None) => Value::None,
    };
    let _ = close_stdin(vm);
    Err(vm.new_exc_args(&vm.types.system_exit.clone(), vec![code]))
}

fn close_stdin(vm: &mut Vm) -> PyResult<Value> {
    let sys = vm.import_module("sys")?;
    let key = vm.intern("stdin");
    let stdin = vm.get_attr(&sys, &key)?;
    vm.call_method(&stdin, "close", &[])
}

/// `help`, the one `_sitebuiltins._Helper`.
fn init_helper(vm: &mut Vm) {
    let helper = make_type(
        "_Helper",
        vec![vm.types.object.clone()],
        Layout::Object,
        false,
    );
    vm.set_type_attr(&helper, "__module__", Value::str("_sitebuiltins"));
    vm.add_method(&helper, "__repr__", |_, _, _| {
        Ok(Value::str(
            "Type help() for interactive help, or help(object) for help about object.",
        ))
    });
    vm.add_method(&helper, "__call__", |vm, args, kw| {
        let pydoc = vm.import_module("pydoc")?;
        let key = vm.intern("help");
        let help = vm.get_attr(&pydoc, &key)?;
        vm.call(&help, args.get(1..).unwrap_or_default(), kw)
    });
    let value = vm.new_instance(&helper);
    let key = vm.intern("help");
    vm.builtins.table.borrow_mut().set_str(key, value);
}
