//! How a class comes to be: `__build_class__` (`builtin___build_class__` in
//! `Python/bltinmodule.c`) picks the metaclass from `metaclass=` and the bases, lets its
//! `__prepare__` make the namespace, runs the class body in it and calls the metaclass with
//! `(name, bases, namespace, **kw)`; `type.__new__`, `type.__init__` and `type.__prepare__`
//! (`type_new`, `type_init` in `Objects/typeobject.c`) make the class and finish it
//! (`__classcell__`, `__set_name__`, `__init_subclass__`). A class statement whose
//! metaclass is `type` takes the direct way, without calling through the metaclass.

use std::rc::Rc;

use crate::vm::args::split_cls;
use crate::vm::call::type_dunder_call;
use crate::vm::dict::StrKeys;
use crate::vm::frame::{Frame, FrameResult};
use crate::vm::object::{Function, KwArgs, Object, ObjectKind, PyType};
use crate::vm::types::lookup;
use crate::vm::value::{DictTable, PyDict, PyStr, Value};
use crate::vm::{PyResult, Vm};

/// `__build_class__(func, name, *bases, metaclass=…, **kw)`.
pub fn build_class(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    if args.len() < 2 {
        return Err(vm.type_error("__build_class__: not enough arguments"));
    }
    let Value::Function(body) = &args[0] else {
        return Err(vm.type_error("__build_class__: func must be a function"));
    };
    let Value::Str(name) = &args[1] else {
        return Err(vm.type_error("__build_class__: name is not a string"));
    };
    let explicit = kw.iter().find(|(k, _)| k.as_str() == "metaclass");
    let kw: Vec<(Rc<PyStr>, Value)> = kw
        .iter()
        .filter(|(k, _)| k.as_str() != "metaclass")
        .cloned()
        .collect();
    let (bases, replaced) = resolve_bases(vm, &args[2..])?;
    let bases_list: Vec<Value> = bases.iter().cloned().map(Value::Type).collect();
    let meta = match explicit {
        Some((_, Value::Type(m))) => Value::Type(calculate_metaclass(vm, m, &bases_list)?),
        Some((_, other)) => other.clone(),
        None => match bases_list.first() {
            Some(first) => {
                let first = vm.type_of(first).clone();
                Value::Type(calculate_metaclass(vm, &first, &bases_list)?)
            }
            None => Value::Type(vm.types.type_.clone()),
        },
    };
    let plain = matches!(&meta, Value::Type(m) if Rc::ptr_eq(m, &vm.types.type_));
    let bases_tuple = Value::tuple(bases_list);
    let ns = if plain {
        Value::dict(DictTable::new())
    } else {
        prepare(vm, &meta, name, &bases_tuple, &kw)?
    };
    let module_name = body
        .globals
        .table
        .borrow()
        .get_str(&vm.names.name)
        .cloned()
        .unwrap_or(Value::None);
    let qualname = Value::str(&**body.qualname.borrow());
    let mut preset = vec![
        (vm.names.module.clone(), module_name),
        (vm.names.qualname.clone(), qualname),
    ];
    if replaced {
        preset.push((
            vm.intern("__orig_bases__"),
            Value::tuple(args[2..].to_vec()),
        ));
    }
    for (key, value) in preset {
        vm.set_item(&ns, &Value::Str(key), value)?;
    }
    run_body(vm, body, &ns)?;
    if plain {
        let Value::Dict(ns) = &ns else {
            unreachable!("a plain class's namespace is a dict")
        };
        let table = ns.table.borrow().clone();
        let cls = make_class(vm, None, name.as_str(), bases, table, &kw)?;
        return Ok(Value::Type(cls));
    }
    vm.call(&meta, &[Value::Str(name.clone()), bases_tuple, ns], &kw)
}

/// The namespace `meta.__prepare__(name, bases, **kw)` makes (a dict when the metaclass
/// is not a class and has none), which must be a mapping.
fn prepare(
    vm: &mut Vm,
    meta: &Value,
    name: &Rc<PyStr>,
    bases: &Value,
    kw: &KwArgs,
) -> PyResult<Value> {
    let key = vm.intern("__prepare__");
    let Some(prepare) = vm.get_attr_opt(meta, &key)? else {
        return Ok(Value::dict(DictTable::new()));
    };
    let ns = vm.call(&prepare, &[Value::Str(name.clone()), bases.clone()], kw)?;
    let is_mapping = match &ns {
        Value::Dict(_) => true,
        Value::Object(o) if o.builtin_base().is_some() => true,
        other => lookup(vm.type_of(other), &vm.names.getitem.clone()).is_some(),
    };
    if !is_mapping {
        let meta_name = match meta {
            Value::Type(m) => m.name().to_string(),
            _ => "<metaclass>".to_string(),
        };
        return Err(vm.type_error(format!(
            "{meta_name}.__prepare__() must return a mapping, not {}",
            vm.type_name(&ns)
        )));
    }
    Ok(ns)
}

/// Runs the class body with `ns` as its namespace: a dict directly, another mapping
/// through its item methods ([`Vm::class_namespaces`]).
fn run_body(vm: &mut Vm, body: &Rc<Function>, ns: &Value) -> PyResult<()> {
    let mut frame = Frame::for_function(vm, body, Vec::new());
    let dict = match ns {
        Value::Dict(d) => d.clone(),
        mapping => {
            let placeholder = Rc::new(PyDict {
                table: Default::default(),
            });
            vm.class_namespaces
                .push((placeholder.clone(), mapping.clone()));
            placeholder
        }
    };
    frame.locals_dict = Some(dict);
    let result = vm.run_frame(&mut frame, None);
    if !matches!(ns, Value::Dict(_)) {
        vm.class_namespaces.pop();
    }
    match result {
        FrameResult::Err(e) => Err(e),
        _ => Ok(()),
    }
}

/// The most derived of `meta` and the metaclasses of `bases`
/// (`_PyType_CalculateMetaclass`), or CPython's "metaclass conflict" TypeError.
fn calculate_metaclass(vm: &mut Vm, meta: &Rc<PyType>, bases: &[Value]) -> PyResult<Rc<PyType>> {
    let mut winner = meta.clone();
    for base in bases {
        let base_meta = vm.type_of(base).clone();
        if winner.is_subtype(&base_meta) {
            continue;
        }
        if base_meta.is_subtype(&winner) {
            winner = base_meta;
            continue;
        }
        return Err(vm.type_error(
            "metaclass conflict: the metaclass of a derived class must be a (non-strict) \
             subclass of the metaclasses of all its bases",
        ));
    }
    Ok(winner)
}

/// The bases a class statement names, with each base that is not a class replaced by what
/// its `__mro_entries__(bases)` returns (PEP 560, `update_bases` in
/// `Python/bltinmodule.c`), and whether any was replaced.
fn resolve_bases(vm: &mut Vm, named: &[Value]) -> PyResult<(Vec<Rc<PyType>>, bool)> {
    let mut bases = Vec::new();
    let mut replaced = false;
    let mro_entries = vm.intern("__mro_entries__");
    for base in named {
        if let Value::Type(t) = base {
            bases.push(t.clone());
            continue;
        }
        let Some(entries) = vm.get_attr_opt(base, &mro_entries)? else {
            return Err(vm.type_error(format!("bases must be types, not {}", vm.type_name(base))));
        };
        let entries = vm.call(&entries, &[Value::tuple(named.to_vec())], &[])?;
        let Value::Tuple(entries) = entries else {
            return Err(vm.type_error("__mro_entries__ must return a tuple"));
        };
        replaced = true;
        bases.extend(class_list(vm, &entries.items)?);
    }
    Ok((bases, replaced))
}

/// `items` as classes, or "bases must be types".
fn class_list(vm: &Vm, items: &[Value]) -> PyResult<Vec<Rc<PyType>>> {
    items
        .iter()
        .map(|item| match item {
            Value::Type(t) => Ok(t.clone()),
            other => {
                Err(vm.type_error(format!("bases must be types, not {}", vm.type_name(other))))
            }
        })
        .collect()
}

/// `type.__new__(meta, name, bases, ns, **kw)`, and `type(obj)`.
fn type_new(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let (meta, args) = split_cls(vm, args)?;
    match args {
        [v] if Rc::ptr_eq(&meta, &vm.types.type_) => Ok(Value::Type(vm.type_of(v).clone())),
        [Value::Str(name), Value::Tuple(bases), ns] => {
            let table = match ns {
                Value::Dict(d) => d.table.borrow().clone(),
                Value::Object(o) if matches!(o.builtin_base(), Some(Value::Dict(_))) => {
                    let Some(Value::Dict(d)) = o.builtin_base() else {
                        unreachable!()
                    };
                    d.table.borrow().clone()
                }
                other => {
                    return Err(vm.type_error(format!(
                        "type.__new__() argument 3 must be dict, not {}",
                        vm.type_name(other)
                    )));
                }
            };
            let mut table = table;
            if table.get_str(&vm.names.module).is_none() {
                table.set_str(vm.names.module.clone(), Value::str("__main__"));
            }
            let meta = calculate_metaclass(vm, &meta, &bases.items)?;
            let bases = class_list(vm, &bases.items)?;
            let meta = (!Rc::ptr_eq(&meta, &vm.types.type_)).then_some(meta);
            let cls = make_class(vm, meta, name.as_str(), bases, table, kw)?;
            Ok(Value::Type(cls))
        }
        [name, bases, _] => {
            let (n, expected, got) = match name {
                Value::Str(_) => (2, "tuple", bases),
                _ => (1, "str", name),
            };
            Err(vm.type_error(format!(
                "type.__new__() argument {n} must be {expected}, not {}",
                vm.type_name(got)
            )))
        }
        _ if Rc::ptr_eq(&meta, &vm.types.type_) => {
            Err(vm.type_error("type() takes 1 or 3 arguments"))
        }
        _ => Err(vm.type_error(format!(
            "type.__new__() takes exactly 3 arguments ({} given)",
            args.len()
        ))),
    }
}

/// Makes the class from its namespace `table` and finishes it: what `type_new` does after
/// choosing the metaclass. A `__eq__` without `__hash__` makes the class unhashable.
fn make_class(
    vm: &mut Vm,
    meta: Option<Rc<PyType>>,
    name: &str,
    bases: Vec<Rc<PyType>>,
    mut table: DictTable,
    kw: &KwArgs,
) -> PyResult<Rc<PyType>> {
    let classcell = table.remove_str(&vm.names.classcell);
    // `__init_subclass__` and `__class_getitem__` are class methods whether or not they
    // are declared so (`type_new_set_classmethod`), so `super().__init_subclass__()` binds.
    for name in ["__init_subclass__", "__class_getitem__"] {
        let key = vm.intern(name);
        if let Some(f @ Value::Function(_)) = table.get_str(&key).cloned() {
            let wrapped = super::classes::class_method(vm, f);
            table.set_str(key, wrapped);
        }
    }
    if table.get_str(&vm.names.eq).is_some() && table.get_str(&vm.names.hash).is_none() {
        table.set_str(vm.names.hash.clone(), Value::None);
    }
    let cls = vm.new_class(meta, name, bases, table)?;
    if let Some(cell) = classcell {
        vm.cell_set(&cell, Value::Type(cls.clone()));
    }
    init_new_class(vm, &cls, kw)?;
    Ok(cls)
}

/// What `type.__new__` does once a class exists (`type_new_set_names`,
/// `type_new_init_subclass`): `__set_name__` on each attribute that has one, then the
/// parent's `__init_subclass__` with the class statement's keyword arguments.
pub fn init_new_class(vm: &mut Vm, cls: &Rc<PyType>, kw: &KwArgs) -> PyResult<()> {
    let attrs: Vec<(Value, Value)> = cls.dict.borrow().snapshot();
    for (k, v) in attrs {
        // Of the built-in types only `property` has a `__set_name__` (3.13): the others'
        // attributes (classmethods, staticmethods, ...) are not looked up.
        if let Value::Object(o) = &v
            && (!o.class.builtin || Rc::ptr_eq(&o.class, &vm.types.property))
            && let Some(set_name) = lookup(&o.class, &vm.names.set_name.clone())
        {
            vm.call(&set_name, &[v.clone(), Value::Type(cls.clone()), k], &[])?;
        }
    }
    // `super(cls, cls).__init_subclass__`: the first definition after the class in its
    // own MRO (a later base's may come before the first base's bases').
    let init_subclass = vm.names.init_subclass.clone();
    let found = cls
        .mro()
        .iter()
        .skip(1)
        .find_map(|t| t.dict.borrow().get_str(&init_subclass).cloned());
    if let Some(f) = found {
        let f = match &f {
            Value::Object(o) => match &o.kind {
                ObjectKind::ClassMethod(inner) => Some(inner.clone()),
                _ => None,
            },
            Value::Function(_) => Some(f.clone()),
            _ => None,
        };
        if let Some(f) = f {
            vm.call(&f, &[Value::Type(cls.clone())], kw)?;
        }
    }
    Ok(())
}

/// `type.__init__(cls, name, bases, ns, **kw)`: the class is made already; only the
/// number of arguments is checked.
fn type_init(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    match args.len() {
        2 | 4 => Ok(Value::None),
        _ => Err(vm.type_error("type.__init__() takes 1 or 3 arguments")),
    }
}

/// `type.__prepare__(name, bases, **kw)`: an empty dict.
fn type_prepare(_: &mut Vm, _: &[Value], _: &KwArgs) -> PyResult<Value> {
    Ok(Value::dict(DictTable::new()))
}

/// `type.__instancecheck__(cls, obj)` and `type.__subclasscheck__(cls, sub)` without any
/// metaclass hook: what a metaclass reaches with `super()`.
fn type_instancecheck(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    match args {
        [Value::Type(cls), obj] => Ok(Value::Bool(vm.type_of(obj).is_subtype(cls))),
        _ => Err(vm.type_error("__instancecheck__ expected 1 argument")),
    }
}

fn type_subclasscheck(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    match args {
        [Value::Type(cls), Value::Type(sub)] => Ok(Value::Bool(sub.is_subtype(cls))),
        [Value::Type(_), _] => Err(vm.type_error("issubclass() arg 1 must be a class")),
        _ => Err(vm.type_error("__subclasscheck__ expected 1 argument")),
    }
}

/// Installs `type`'s constructor and the methods a metaclass inherits from it.
pub fn init(vm: &mut Vm) {
    let type_ = vm.types.type_.clone();
    vm.add_static(&type_, "__new__", type_new);
    vm.add_method(&type_, "__init__", type_init);
    vm.add_method(&type_, "__call__", type_dunder_call);
    vm.add_method(&type_, "__instancecheck__", type_instancecheck);
    vm.add_method(&type_, "__subclasscheck__", type_subclasscheck);
    let prepare = vm.native("__prepare__", type_prepare);
    let prepare = Value::object(Object::new(
        vm.types.classmethod.clone(),
        ObjectKind::ClassMethod(prepare),
    ));
    vm.set_type_attr(&type_, "__prepare__", prepare);
}
