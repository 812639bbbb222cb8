//! `breakpoint()` and `sys.breakpointhook` (PEP 553), as CPython 3.13's
//! `builtin_breakpoint` (`Python/bltinmodule.c`) and `sys_breakpointhook`
//! (`Python/sysmodule.c`): `breakpoint(*args, **kws)` calls whatever `sys.breakpointhook` is
//! now; the default hook reads `$PYTHONBREAKPOINT` at each call (`0` does nothing, empty or
//! unset is `pdb.set_trace`, `module.function` imports the module and calls the function,
//! a name that does not import warns and does nothing). apy's environment is `os.environ`
//! once a program imported `os` (a program sets the variable there), the process's before.

use crate::vm::object::KwArgs;
use crate::vm::value::Value;
use crate::vm::{PyResult, Vm};

/// `breakpoint(*args, **kws)`: `sys.breakpointhook(*args, **kws)`.
pub fn builtin_breakpoint(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let sys = vm.import_module("sys")?;
    let key = vm.intern("breakpointhook");
    let hook = match vm.get_attr(&sys, &key) {
        Ok(hook) => hook,
        Err(_) => return Err(vm.runtime_error("lost sys.breakpointhook")),
    };
    vm.call(&hook, args, kw)
}

/// `sys.breakpointhook(*args, **kws)` (and `sys.__breakpointhook__`). A name that does
/// not import gives a RuntimeWarning blamed on the line that called `breakpoint()`.
pub fn sys_breakpointhook(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    // The line a warning blames, taken before an import runs other Python code.
    let site = vm.caller_site();
    let ignore_unimportable = |vm: &mut Vm, envar: &str| {
        if let Some((filename, line, _)) = site.clone() {
            let message = format!("Ignoring unimportable $PYTHONBREAKPOINT: \"{envar}\"");
            vm.warn_at("RuntimeWarning", &message, filename, line, "");
        }
        Value::None
    };
    let envar = match breakpoint_variable(vm)? {
        Some(value) if value == "0" => return Ok(Value::None),
        Some(value) if !value.is_empty() => value,
        _ => "pdb.set_trace".to_string(),
    };
    let (module_path, attr_name) = match envar.rsplit_once('.') {
        None => ("builtins", envar.as_str()),
        Some(("", _)) => return Ok(ignore_unimportable(vm, &envar)),
        Some(parts) => parts,
    };
    let module = match vm.import_module(module_path) {
        Ok(module) => module,
        Err(e) if vm.exc_matches(&e, &vm.types.import_error.clone()) => {
            return Ok(ignore_unimportable(vm, &envar));
        }
        Err(e) => return Err(e),
    };
    let key = vm.intern(attr_name);
    let hook = match vm.get_attr(&module, &key) {
        Ok(hook) => hook,
        Err(e) if vm.exc_matches(&e, &vm.types.attribute_error.clone()) => {
            return Ok(ignore_unimportable(vm, &envar));
        }
        Err(e) => return Err(e),
    };
    vm.call(&hook, args, kw)
}

/// `$PYTHONBREAKPOINT`: from `os.environ` when `os` is imported, else from the process.
fn breakpoint_variable(vm: &mut Vm) -> PyResult<Option<String>> {
    if let Some(os) = vm.loaded_module("os").filter(|m| !m.is_none()) {
        let key = vm.intern("environ");
        let environ = vm.get_attr(&os, &key)?;
        return Ok(
            match vm.call_method(&environ, "get", &[Value::str("PYTHONBREAKPOINT")])? {
                Value::Str(value) => Some(value.as_str().to_string()),
                _ => None,
            },
        );
    }
    Ok(match cfg!(target_arch = "wasm32") {
        true => None,
        false => std::env::var("PYTHONBREAKPOINT").ok(),
    })
}
