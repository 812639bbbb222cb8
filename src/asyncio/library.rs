//! Runs a file of the asyncio library written in apy (`lib/*.apy`) in the `asyncio`
//! module's namespace: at `import asyncio` for most, on first use for those that wait
//! (the loop's `sock_*` methods). Depends on the VM only.

use crate::vm::dict::StrKeys;
use crate::vm::object::ObjectKind;
use crate::vm::value::Value;
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
    let code =
        (vm.compile)(name, text, crate::compile::Mode::Exec).map_err(|d| format!("{d:?}"))?;
    vm.sources.insert(code.filename.clone(), text.into());
    let code = vm.load_code(&code);
    // Classes take `__module__` from `__name__`: "asyncio/locks.py" makes Lock's
    // repr say `asyncio.locks.Lock`, as in CPython. The module is "asyncio" again after.
    let submodule = name.trim_end_matches(".py").trim_end_matches("/__init__");
    let name_key = vm.names.name.clone();
    let set_name = |n: &str| {
        dict.table
            .borrow_mut()
            .set_str(name_key.clone(), Value::str(n))
    };
    set_name(&submodule.replace('/', "."));
    let mut frame = crate::vm::frame::Frame::for_module(vm, code, dict.clone());
    let result = vm.run_frame(&mut frame, None);
    set_name("asyncio");
    match result {
        crate::vm::frame::FrameResult::Err(e) => Err(vm.format_exception(&e)),
        _ => Ok(()),
    }
}
