//! `dict`: its constructor and its methods, in one table ([`METHODS`], plus the class method
//! `fromkeys`). Mirrors `Objects/dictobject.c` (`mapp_methods`). The hash table itself is
//! the VM's (`vm/dict.rs`: `dict_get`, `dict_set`, `dict_update`, …); operators (`|`, `==`,
//! `in`, `[k]`) and the views' set operators: `vm/ops.rs`, `vm/set_ops.rs`; `repr`:
//! `vm/repr.rs`. Installs itself with [`init`].

use std::rc::Rc;

use crate::vm::args::{Signature, check_arity, split_cls};
use crate::vm::call::instance_of_subclass;
use crate::vm::dict::StrKeys;
use crate::vm::object::{DictViewKind, KwArgs, NativeFn, Object, ObjectKind};
use crate::vm::set_ops::view_isdisjoint;
use crate::vm::value::{PyDict, Value};
use crate::vm::{PyResult, Vm};

/// The methods of `dict`, by name.
const METHODS: &[(&str, NativeFn)] = &[
    ("get", get),
    ("keys", keys),
    ("values", values),
    ("items", items),
    ("setdefault", setdefault),
    ("update", update),
    ("pop", pop),
    ("popitem", popitem),
    ("copy", copy),
    ("clear", clear),
    // What `super().__setitem__(k, v)` reaches in a subclass (a `__prepare__` namespace).
    ("__getitem__", |vm, args, _| {
        check_arity(vm, "__getitem__", args, 2, 2)?;
        vm.get_item(&args[0], &args[1])
    }),
    ("__setitem__", |vm, args, _| {
        check_arity(vm, "__setitem__", args, 3, 3)?;
        vm.set_item(&args[0], &args[1], args[2].clone())?;
        Ok(Value::None)
    }),
    ("__delitem__", |vm, args, _| {
        check_arity(vm, "__delitem__", args, 2, 2)?;
        vm.del_item(&args[0], &args[1])?;
        Ok(Value::None)
    }),
    ("__contains__", |vm, args, _| {
        check_arity(vm, "__contains__", args, 2, 2)?;
        Ok(Value::Bool(vm.contains(&args[0], &args[1])?))
    }),
];

/// Installs `dict`'s constructor and methods.
pub fn init(vm: &mut Vm) {
    let dict = vm.types.dict.clone();
    vm.add_static(&dict, "__new__", dict_new);
    // Mutable containers fill subclass instances in `__init__`, as CPython does.
    vm.add_method(&dict, "__init__", dict_init);
    vm.add_methods(&dict, METHODS);
    vm.add_class_method(&dict, "fromkeys", fromkeys);
    // What `collections.abc` sees: unhashable containers, and a reversible dict.
    for ty in [
        dict.clone(),
        vm.types.dict_keys.clone(),
        vm.types.dict_items.clone(),
    ] {
        vm.set_type_attr(&ty, "__hash__", Value::None);
    }
    let (keys, items) = (vm.types.dict_keys.clone(), vm.types.dict_items.clone());
    vm.add_method(&keys, "isdisjoint", |vm, args, kw| {
        isdisjoint(vm, "dict_keys", args, kw)
    });
    vm.add_method(&items, "isdisjoint", |vm, args, kw| {
        isdisjoint(vm, "dict_items", args, kw)
    });
    vm.add_method(&dict, "__iter__", |vm, args, _| vm.get_iter(&args[0]));
    let t = &vm.types;
    let views = [
        t.dict_keys.clone(),
        t.dict_values.clone(),
        t.dict_items.clone(),
    ];
    // (Their `__iter__`, `__len__` and operators are slot wrappers: `slot_wrappers.rs`.)
    let odict_views = [
        t.odict_keys.clone(),
        t.odict_values.clone(),
        t.odict_items.clone(),
    ];
    for ty in &views {
        vm.add_getset(ty, "mapping", view_mapping, None);
    }
    for ty in views.iter().chain(&odict_views) {
        vm.set_type_attr(ty, "__doc__", Value::None);
    }
    for ty in std::iter::once(dict).chain(views).chain(odict_views) {
        vm.add_method(&ty, "__reversed__", |vm, args, _| {
            let reversed = Value::Type(vm.types.reversed.clone());
            vm.call(&reversed, &args[..1], &[])
        });
    }
}

/// A view's `mapping`: a read-only proxy of its dict.
fn view_mapping(vm: &mut Vm, v: &Value) -> PyResult<Value> {
    let Value::Object(o) = v else {
        return Ok(Value::None);
    };
    let ObjectKind::DictView { dict, .. } = &o.kind else {
        return Ok(Value::None);
    };
    let proxy = vm.mapping_proxy_type();
    vm.call(&proxy, &[Value::Dict(dict.clone())], &[])
}

/// `dict_keys.isdisjoint(other)` and `dict_items.isdisjoint(other)`, `owner` naming which
/// (the call has already refused an unbound call without `self`).
fn isdisjoint(vm: &mut Vm, owner: &'static str, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let given = vm.type_name(&args[0]);
    let owner_type = match owner {
        "dict_keys" => vm.types.dict_keys.clone(),
        _ => vm.types.dict_items.clone(),
    };
    if !vm.type_of(&args[0]).is_subtype(&owner_type) {
        return Err(vm.type_error(format!(
            "descriptor 'isdisjoint' for '{owner}' objects doesn't apply to a '{given}' object"
        )));
    }
    Signature::one(owner, "isdisjoint").check(vm, &args[1..], kw)?;
    Ok(Value::Bool(view_isdisjoint(vm, &args[0], &args[1])?))
}

fn dict_new(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let (cls, args) = split_cls(vm, args)?;
    if !cls.builtin {
        // A subclass instance starts empty; `dict.__init__` fills it.
        return Ok(instance_of_subclass(&cls, Value::dict(Default::default())));
    }
    if args.len() > 1 {
        return Err(vm.type_error(format!(
            "dict expected at most 1 argument, got {}",
            args.len()
        )));
    }
    let d = Rc::new(PyDict {
        table: Default::default(),
    });
    if let Some(src) = args.first() {
        vm.dict_update(&d, src)?;
    }
    for (k, v) in kw {
        d.table.borrow_mut().set_str(k.clone(), v.clone());
    }
    Ok(Value::Dict(d))
}

fn dict_init(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let Some(Value::Dict(d)) = args.first() else {
        return Ok(Value::None);
    };
    let d = d.clone();
    if let Some(src) = args.get(1) {
        vm.dict_update(&d, src)?;
    }
    for (k, v) in kw {
        d.table.borrow_mut().set_str(k.clone(), v.clone());
    }
    Ok(Value::None)
}

fn this_dict<'a>(vm: &Vm, args: &'a [Value]) -> PyResult<&'a Rc<PyDict>> {
    match args.first() {
        Some(Value::Dict(d)) => Ok(d),
        _ => Err(vm.type_error("descriptor requires a 'dict' object")),
    }
}

fn dict_view(vm: &Vm, d: &Rc<PyDict>, kind: DictViewKind) -> Value {
    let class = match kind {
        DictViewKind::Keys => vm.types.dict_keys.clone(),
        DictViewKind::Values => vm.types.dict_values.clone(),
        DictViewKind::Items => vm.types.dict_items.clone(),
    };
    Value::object(Object::new(
        class,
        ObjectKind::DictView {
            dict: d.clone(),
            kind,
        },
    ))
}

fn get(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    Signature::positional("dict", "get", &["key", "default"], 1).check(vm, &args[1..], kw)?;
    let d = this_dict(vm, args)?.clone();
    Ok(vm
        .dict_get(&d, &args[1])?
        .unwrap_or_else(|| args.get(2).cloned().unwrap_or(Value::None)))
}

fn keys(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    Signature::no_args("dict", "keys").check(vm, &args[1..], kw)?;
    Ok(dict_view(vm, this_dict(vm, args)?, DictViewKind::Keys))
}

fn values(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    Signature::no_args("dict", "values").check(vm, &args[1..], kw)?;
    Ok(dict_view(vm, this_dict(vm, args)?, DictViewKind::Values))
}

fn items(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    Signature::no_args("dict", "items").check(vm, &args[1..], kw)?;
    Ok(dict_view(vm, this_dict(vm, args)?, DictViewKind::Items))
}

fn setdefault(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    Signature::positional("dict", "setdefault", &["key", "default"], 1).bind(vm, &args[1..], kw)?;
    let d = this_dict(vm, args)?.clone();
    if let Some(v) = vm.dict_get(&d, &args[1])? {
        return Ok(v);
    }
    let default = args.get(2).cloned().unwrap_or(Value::None);
    vm.dict_set(&d, args[1].clone(), default.clone())?;
    Ok(default)
}

fn update(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let d = this_dict(vm, args)?.clone();
    if let Some(other) = args.get(1) {
        vm.dict_update(&d, other)?;
    }
    for (k, v) in kw {
        vm.table_mut(&d.table)?.set_str(k.clone(), v.clone());
    }
    Ok(Value::None)
}

fn pop(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    Signature::positional("dict", "pop", &["key", "default"], 1).check(vm, &args[1..], kw)?;
    let d = this_dict(vm, args)?.clone();
    match vm.dict_del(&d, &args[1])? {
        Some(v) => Ok(v),
        None => match args.get(2) {
            Some(default) => Ok(default.clone()),
            None => Err(vm.key_error(args[1].clone())),
        },
    }
}

fn popitem(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    Signature::no_args("dict", "popitem").check(vm, &args[1..], kw)?;
    let d = this_dict(vm, args)?.clone();
    let last = vm.table_mut(&d.table)?.pop_last();
    match last {
        Some((k, v)) => Ok(Value::tuple(vec![k, v])),
        None => Err(vm.key_error(Value::str("popitem(): dictionary is empty"))),
    }
}

fn copy(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    Signature::no_args("dict", "copy").check(vm, &args[1..], kw)?;
    Ok(Value::dict(this_dict(vm, args)?.table.borrow().clone()))
}

fn clear(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    Signature::no_args("dict", "clear").check(vm, &args[1..], kw)?;
    let d = this_dict(vm, args)?;
    let old = std::mem::take(&mut *vm.table_mut(&d.table)?);
    drop(old);
    Ok(Value::None)
}

/// The class method `dict.fromkeys(iterable[, value])`: a subclass's is `cls()` with each
/// key set through its `__setitem__`.
fn fromkeys(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let (cls, args) = args.split_first().unwrap_or((&Value::None, &[]));
    Signature::positional("dict", "fromkeys", &["iterable", "value"], 1).check(vm, args, kw)?;
    let keys = vm.collect_iterable(&args[0])?;
    let value = args.get(1).cloned().unwrap_or(Value::None);
    if matches!(cls, Value::Type(t) if Rc::ptr_eq(t, &vm.types.dict)) {
        let d = Rc::new(PyDict {
            table: Default::default(),
        });
        for k in keys {
            vm.dict_set(&d, k, value.clone())?;
        }
        return Ok(Value::Dict(d));
    }
    let d = vm.call(cls, &[], &[])?;
    for k in keys {
        vm.set_item(&d, &k, value.clone())?;
    }
    Ok(d)
}
