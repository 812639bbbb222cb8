//! Runs a file of the asyncio library written in apy (`lib/*.apy`) in the `asyncio`
//! module's namespace: at `import asyncio` for most, on first use for those that wait
//! (the loop's `sock_*` methods). Depends on the VM only.

use crate::vm::dict::StrKeys;
use crate::vm::object::{Function, ObjectKind};
use crate::vm::value::{PyDict, Value};
use crate::vm::{PyResult, Vm};

/// Runs a file of the library that waits for its first use (the loop's `sock_*` methods)
/// in the `asyncio` module's namespace.
pub fn run_lazy(vm: &mut Vm, name: &str, text: &str) -> PyResult<()> {
    let module = vm.import_module("asyncio")?;
    run(vm, &module, name, text).map_err(|message| {
        vm.runtime_error(format!(
            "apy: internal error in the asyncio library ({name}): {message}"
        ))
    })
}

/// Compiles and runs `text` (shown as file `name`) in `module`'s namespace.
pub fn run(vm: &mut Vm, module: &Value, name: &str, text: &str) -> Result<(), String> {
    let Value::Object(m) = module else {
        return Err("not a module".into());
    };
    let ObjectKind::Module { dict, .. } = &m.kind else {
        return Err("not a module".into());
    };
    let code = (vm.compile)(name, text, crate::compile::Mode::Exec, Default::default())
        .map_err(|d| format!("{d:?}"))?;
    vm.sources.insert(code.filename.clone(), text.into());
    let code = vm.load_code(&code);
    // Classes take `__module__` from `__name__`: "asyncio/locks.py" makes Lock's
    // repr say `asyncio.locks.Lock`, as in CPython; functions are given it after the run.
    // The module is "asyncio" again after.
    let submodule = name
        .trim_end_matches(".py")
        .trim_end_matches("/__init__")
        .replace('/', ".");
    let name_key = vm.names.name.clone();
    let set_name = |n: &str| {
        dict.table
            .borrow_mut()
            .set_str(name_key.clone(), Value::str(n))
    };
    set_name(&submodule);
    let filename = code.head.filename.clone();
    let mut frame = crate::vm::frame::Frame::for_module(vm, code, dict.clone());
    let result = vm.run_frame(&mut frame, None);
    if submodule != "asyncio" {
        name_functions_module(vm, dict, &filename, &submodule);
    }
    set_name("asyncio");
    match result {
        crate::vm::frame::FrameResult::Err(e) => Err(vm.format_exception(&e)),
        _ => Ok(()),
    }
}

/// Gives the functions the file `filename` defined, at the namespace's top level or in its
/// classes, `module` for their `__module__` (`asyncio.tasks`), as CPython's have that of
/// the submodule they are written in: they would otherwise say the namespace's `__name__`,
/// "asyncio", after the run. One the file assigned a `__module__` keeps it.
fn name_functions_module(vm: &Vm, namespace: &PyDict, filename: &str, module: &str) {
    let module = Value::str(module);
    let key = &vm.names.module;
    let name = |f: &Function| {
        if &*f.code.head.filename == filename && f.dict.borrow().get_str(key).is_none() {
            f.dict.borrow_mut().set_str(key.clone(), module.clone());
        }
    };
    for entry in namespace.table.borrow().iter() {
        match &entry.value {
            Value::Function(f) => name(f),
            Value::Type(class) => {
                for entry in class.dict.borrow().iter() {
                    if let Value::Function(f) = &entry.value {
                        name(f);
                    }
                }
            }
            _ => {}
        }
    }
}
