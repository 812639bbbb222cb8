//! `dir()` and the `__dir__` methods it asks (`PyObject_Dir` in `Objects/object.c`;
//! `object.__dir__`, `type.__dir__` and `module.__dir__` in `Objects/typeobject.c` and
//! `Objects/moduleobject.c`): `dir(x)` is `sorted(type(x).__dir__(x))`, so a class or a
//! module that defines its own `__dir__` decides what it lists. The defaults gather names
//! in CPython's order (an instance's own, then its class's, then each base's), so
//! `x.__dir__()` reads as CPython's does before `dir()` sorts it.

use std::cell::RefCell;
use std::rc::Rc;

use super::list_type::sort_values;
use crate::vm::args::{check_arity, check_kwargs};
use crate::vm::dict::StrKeys;
use crate::vm::object::{KwArgs, ObjectKind, PyType};
use crate::vm::value::{DictTable, PyDict, Value};
use crate::vm::{PyResult, Vm};

/// Installs `object.__dir__`, `type.__dir__` and `module.__dir__`.
pub fn init(vm: &mut Vm) {
    let (object, type_, module) = (
        vm.types.object.clone(),
        vm.types.type_.clone(),
        vm.types.module.clone(),
    );
    vm.add_method(&object, "__dir__", object_dir);
    vm.add_method(&type_, "__dir__", type_dir);
    vm.add_method(&module, "__dir__", module_dir);
}

/// `dir([object])`: without an argument the names of the caller's scope; with one, what
/// its type's `__dir__` gives, as a sorted list.
pub fn builtin_dir(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    check_kwargs(vm, "dir", kw, &[])?;
    check_arity(vm, "dir", args, 0, 1)?;
    let Some(v) = args.first() else {
        let locals = super::functions::caller_scope(vm).1;
        return sorted(vm, &locals);
    };
    let name = vm.intern("__dir__");
    let Some(method) = vm.special_method(v, &name) else {
        return Err(vm.type_error("object does not provide __dir__"));
    };
    let names = vm.call(&method, std::slice::from_ref(v), &[])?;
    sorted(vm, &names)
}

/// `sorted(names)`, as `dir()` returns it.
fn sorted(vm: &mut Vm, names: &Value) -> PyResult<Value> {
    let mut names = vm.collect_iterable(names)?;
    sort_values(vm, &mut names, &Value::None, false)?;
    Ok(Value::list(names))
}

/// Names in the order first seen, each once (CPython collects them in a dict).
struct Names(Rc<PyDict>);

impl Names {
    fn new() -> Names {
        Names(Rc::new(PyDict {
            table: RefCell::new(DictTable::new()),
        }))
    }

    fn add(&mut self, vm: &mut Vm, key: &Value) -> PyResult<()> {
        if let Value::Str(s) = key {
            self.0.table.borrow_mut().set_str(s.clone(), Value::None);
            return Ok(());
        }
        // A non-str key (put in a `__dict__` by hand) is listed as it is.
        vm.dict_set(&self.0, key.clone(), Value::None)
    }

    /// The keys of `table` but `skip` (read under a short borrow: adding a non-str key
    /// may run Python code).
    fn add_keys(
        &mut self,
        vm: &mut Vm,
        table: &RefCell<DictTable>,
        skip: Option<&Value>,
    ) -> PyResult<()> {
        let keys: Vec<Value> = table
            .borrow()
            .iter()
            .map(|e| e.key.clone())
            .filter(|k| skip.is_none_or(|s| !k.is(s)))
            .collect();
        for key in &keys {
            self.add(vm, key)?;
        }
        Ok(())
    }

    fn into_list(self) -> Value {
        Value::list(
            self.0
                .table
                .borrow()
                .iter()
                .map(|e| e.key.clone())
                .collect(),
        )
    }
}

/// `object.__dir__(self)`: the names in `self.__dict__`, then those of `self.__class__`
/// and its bases.
fn object_dir(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    check_arity(vm, "__dir__", args, 1, 1)?;
    let obj = &args[0];
    let mut names = Names::new();
    let dict_name = vm.intern("__dict__");
    if let Some(Value::Dict(dict)) = vm.get_attr_or_none(obj, &dict_name)? {
        names.add_keys(vm, &dict.table, None)?;
    }
    let class_name = vm.intern("__class__");
    if let Some(Value::Type(class)) = vm.get_attr_or_none(obj, &class_name)? {
        merge_class_dict(vm, &class, &mut names)?;
    }
    Ok(names.into_list())
}

/// `type.__dir__(cls)`: the names of the class and of its bases, recursively.
fn type_dir(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    check_arity(vm, "__dir__", args, 1, 1)?;
    let Value::Type(class) = &args[0] else {
        return Err(vm.type_error(format!(
            "descriptor '__dir__' for 'type' objects doesn't apply to a '{}' object",
            vm.type_name(&args[0])
        )));
    };
    let mut names = Names::new();
    merge_class_dict(vm, class, &mut names)?;
    Ok(names.into_list())
}

/// CPython's `merge_class_dict`: the class's own names, then each base's in turn. A
/// built-in type lists `__doc__`, which CPython keeps in every static type's dict (apy
/// answers it from the docs table instead).
fn merge_class_dict(vm: &mut Vm, class: &Rc<PyType>, names: &mut Names) -> PyResult<()> {
    vm.ready_methods(class);
    if class.builtin {
        names.add(vm, &Value::str("__doc__"))?;
    }
    // apy's fallback `__dict__` descriptor on `object` (`vm::type_attrs`) is left out:
    // CPython's `object` has none.
    let fallback = Value::Str(vm.names.dict.clone());
    let skip = Rc::ptr_eq(class, &vm.types.object).then_some(&fallback);
    names.add_keys(vm, &class.dict, skip)?;
    for base in class.bases.clone() {
        merge_class_dict(vm, &base, names)?;
    }
    Ok(())
}

/// `module.__dir__(self)`: what the module's own `__dir__` function returns (PEP 562),
/// else the names in its namespace.
fn module_dir(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    check_arity(vm, "__dir__", args, 1, 1)?;
    let Value::Object(module) = &args[0] else {
        return Err(vm.type_error("__dir__() needs a module"));
    };
    let ObjectKind::Module { dict, .. } = &module.kind else {
        return Err(vm.type_error(format!(
            "descriptor '__dir__' for 'module' objects doesn't apply to a '{}' object",
            vm.type_name(&args[0])
        )));
    };
    let own = dict.table.borrow().get_str(&vm.intern("__dir__")).cloned();
    if let Some(function) = own {
        return vm.call(&function, &[], &[]);
    }
    let keys: Vec<Value> = dict.table.borrow().iter().map(|e| e.key.clone()).collect();
    Ok(Value::list(keys))
}
