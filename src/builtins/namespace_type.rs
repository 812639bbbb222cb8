//! `types.SimpleNamespace` (`Objects/namespaceobject.c`): an object whose attributes are
//! what its constructor was given, shown as `namespace(a=1, b=2)`. `sys.implementation` is
//! one, and the `types` module finds the type there, as `Lib/types.py` does
//! (`SimpleNamespace = type(sys.implementation)`).
//!
//! Its instances are ordinary objects with a `__dict__`; the methods below read and write
//! it through the VM's attribute protocol, so subclasses behave as CPython's do.

use std::rc::Rc;

use crate::vm::args::check_arity;
use crate::vm::dict::StrKeys;
use crate::vm::object::{KwArgs, Layout, PyType, is_native_fn};
use crate::vm::types::make_type;
use crate::vm::value::Value;
use crate::vm::{PyResult, Vm};

/// Makes the type, with its methods. It is made as a class (its methods are looked up, its
/// `__init__` runs after `__new__`), in module `types`, as CPython shows it.
pub fn make(vm: &mut Vm) -> Rc<PyType> {
    let ty = make_type(
        "SimpleNamespace",
        vec![vm.types.object.clone()],
        Layout::Object,
        false,
    );
    vm.add_method(&ty, "__init__", init);
    vm.add_method(&ty, "__repr__", repr);
    vm.add_method(&ty, "__eq__", |vm, args, _| compare(vm, args, true));
    vm.add_method(&ty, "__ne__", |vm, args, _| compare(vm, args, false));
    vm.add_method(&ty, "__replace__", replace);
    let mut dict = ty.dict.borrow_mut();
    dict.set_str(vm.names.hash.clone(), Value::None);
    dict.set_str(vm.names.module.clone(), Value::str("types"));
    drop(dict);
    ty
}

/// Whether `ty` is `SimpleNamespace` itself: the type whose own `__init__` is [`init`].
fn is_namespace_type(vm: &Vm, ty: &PyType) -> bool {
    let own_init = ty.dict.borrow().get_str(&vm.names.init).cloned();
    own_init.is_some_and(|f| is_native_fn(&f, init))
}

/// Whether `v` is a namespace: an instance of `SimpleNamespace` or of a subclass.
fn is_namespace(vm: &Vm, v: &Value) -> bool {
    let ty = vm.type_of(v);
    let mro = ty.mro.borrow();
    mro.iter().any(|t| is_namespace_type(vm, t))
}

/// `SimpleNamespace(mapping_or_iterable=(), /, **kwargs)`: the mapping's items, then the
/// keywords, become attributes; every name must be a str.
fn init(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let (this, rest) = args.split_first().ok_or_else(|| vm.type_error("no self"))?;
    let name = vm.type_of(this).name().to_string();
    check_arity(vm, &name, rest, 0, 1)?;
    if let Some(initial) = rest.first() {
        let dict_type = Value::Type(vm.types.dict.clone());
        let items = vm.call(&dict_type, std::slice::from_ref(initial), &[])?;
        let Value::Dict(items) = items else {
            return Ok(Value::None);
        };
        let entries = items.table.borrow().snapshot();
        if entries.iter().any(|(k, _)| !matches!(k, Value::Str(_))) {
            return Err(vm.type_error("keywords must be strings"));
        }
        for (key, value) in entries {
            if let Value::Str(key) = key {
                let key = vm.intern(key.as_str());
                vm.set_attr(this, &key, value)?;
            }
        }
    }
    for (key, value) in kw {
        vm.set_attr(this, key, value.clone())?;
    }
    Ok(Value::None)
}

/// The attributes, in the order they were first set.
fn entries(vm: &mut Vm, this: &Value) -> PyResult<Vec<(Value, Value)>> {
    let key = vm.names.dict.clone();
    match vm.get_attr(this, &key)? {
        Value::Dict(d) => Ok(d.table.borrow().snapshot()),
        _ => Ok(Vec::new()),
    }
}

/// `namespace(a=1, b='x')`, or the subclass's name; `namespace(...)` inside itself.
fn repr(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    let this = &args[0];
    let ty = vm.type_of(this);
    let name = if is_namespace_type(vm, ty) {
        "namespace".to_string()
    } else {
        ty.name().to_string()
    };
    let inner = vm.guarded_repr(this, |vm| {
        let mut parts = Vec::new();
        for (key, value) in entries(vm, this)? {
            if let Value::Str(key) = key
                && !key.as_str().is_empty()
            {
                parts.push(format!("{}={}", key.as_str(), vm.repr(&value)?));
            }
        }
        Ok(parts.join(", "))
    })?;
    Ok(Value::str(format!(
        "{name}({})",
        inner.as_deref().unwrap_or("...")
    )))
}

/// `==` and `!=` between two namespaces compare their attributes; anything else is
/// NotImplemented.
fn compare(vm: &mut Vm, args: &[Value], equal: bool) -> PyResult<Value> {
    let [this, other] = args else {
        return Ok(Value::NotImplemented);
    };
    if !is_namespace(vm, this) || !is_namespace(vm, other) {
        return Ok(Value::NotImplemented);
    }
    let key = vm.names.dict.clone();
    let mine = vm.get_attr(this, &key)?;
    let theirs = vm.get_attr(other, &key)?;
    let same = vm.eq(&mine, &theirs)?;
    Ok(Value::Bool(same == equal))
}

/// `copy.replace(ns, **changes)`: a new namespace of the same type with the changes.
fn replace(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let (this, rest) = args.split_first().ok_or_else(|| vm.type_error("no self"))?;
    if !rest.is_empty() {
        return Err(vm.type_error("__replace__() takes no positional arguments"));
    }
    let ty = Value::Type(vm.type_of(this).clone());
    let copy = vm.call(&ty, &[], &[])?;
    for (key, value) in entries(vm, this)? {
        if let Value::Str(key) = key {
            let key = vm.intern(key.as_str());
            vm.set_attr(&copy, &key, value)?;
        }
    }
    for (key, value) in kw {
        vm.set_attr(&copy, key, value.clone())?;
    }
    Ok(copy)
}
