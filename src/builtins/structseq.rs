//! Struct sequences for the native modules (`pwd.struct_passwd`, `grp.struct_group`,
//! `resource.struct_rusage`): each class is made by `_structseq.struct_sequence`
//! (`src/stdlib/structseq.apy`, CPython's `Objects/structseq.c` in apy) as its module is
//! made, kept in that module, and found there when a function returns one.

use crate::vm::Vm;
use crate::vm::value::Value;

/// The struct sequence class `qualified` (`module.name`) of `fields` (name, doc), or the
/// plain `tuple` should `_structseq` fail to load (a program that broke the import system).
pub fn make_class(vm: &mut Vm, qualified: &str, fields: &[(&str, &str)], doc: &str) -> Value {
    let made = (|| {
        let module = vm.import_module("_structseq")?;
        let name = vm.intern("struct_sequence");
        let make = vm.get_attr(&module, &name)?;
        let fields = fields
            .iter()
            .map(|&(name, doc)| Value::tuple(vec![Value::str(name), Value::str(doc)]))
            .collect();
        let args = [Value::str(qualified), Value::list(fields), Value::str(doc)];
        vm.call(&make, &args, &[])
    })();
    made.unwrap_or_else(|_| Value::Type(vm.types.tuple.clone()))
}

/// A `module.class` struct sequence of `items`: the class its module keeps, or a plain tuple
/// when the program took the module out of `sys.modules`. (A page makes none: its look-ups
/// are refused, `page_os.rs`.)
#[cfg(not(target_arch = "wasm32"))]
pub fn instance(
    vm: &mut Vm,
    module: &str,
    class: &str,
    items: Vec<Value>,
) -> crate::vm::PyResult<Value> {
    let Some(module) = vm.loaded_module(module) else {
        return Ok(Value::tuple(items));
    };
    let name = vm.intern(class);
    let class = vm.get_attr(&module, &name)?;
    vm.call(&class, &[Value::tuple(items)], &[])
}
