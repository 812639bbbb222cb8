//! `object`, and the small built-in classes that have no file of their own: `slice`,
//! the iterator classes `enumerate`, `zip`, `map`, `filter`, `reversed` (their `__next__` is
//! the VM's, `vm/iter.rs`), `super`, `property`, `classmethod`, `staticmethod`. Their
//! constructors (each type's `tp_new` in `Objects/`), and their methods and attributes in one
//! table per class. `type` is made in `class_build.rs`; `object.__new__`/`__init__` and
//! `type.__call__` are the VM's call protocol (`vm/call.rs`), `object.__repr__`/`__str__` its `vm/repr.rs`. Installs itself with
//! [`init`].

use std::rc::Rc;

use crate::vm::args::{check_arity, check_kwargs, kwarg, split_cls};
use crate::vm::call::{object_init, object_new};
use crate::vm::dict::StrKeys;
use crate::vm::native_docs;
use crate::vm::object::{
    DictViewKind, Getter, IterState, KwArgs, NativeFn, Object, ObjectKind, PyType,
};
use crate::vm::repr::{object_repr, object_str};
use crate::vm::types::lookup;
use crate::vm::value::{PyDict, Value};
use crate::vm::{PyResult, Vm};

fn slice_new(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    let (_, args) = split_cls(vm, args)?;
    Ok(match args {
        [stop] => vm.new_slice(Value::None, stop.clone(), Value::None),
        [start, stop] => vm.new_slice(start.clone(), stop.clone(), Value::None),
        [start, stop, step] => vm.new_slice(start.clone(), stop.clone(), step.clone()),
        _ => {
            return Err(vm.type_error(format!(
                "slice expected at least 1 argument, got {}",
                args.len()
            )));
        }
    })
}

fn iterator_args<'a>(vm: &Vm, name: &str, args: &'a [Value], min: usize) -> PyResult<&'a [Value]> {
    let (_, rest) = split_cls(vm, args)?;
    if rest.len() < min {
        return Err(vm.type_error(format!(
            "{name}() must have at least {min} argument{}.",
            if min == 1 { "" } else { "s" }
        )));
    }
    Ok(rest)
}

fn enumerate_new(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let (_, args) = split_cls(vm, args)?;
    // Parsed by vgetargskeywords in CPython, which words an unknown keyword its own way.
    if let Some((key, _)) = kw
        .iter()
        .find(|(k, _)| !matches!(k.as_str(), "iterable" | "start"))
    {
        return Err(vm.type_error(format!(
            "'{}' is an invalid keyword argument for enumerate()",
            key.as_str()
        )));
    }
    let Some(iterable) = args.first().cloned().or_else(|| kwarg(kw, "iterable")) else {
        return Err(vm.type_error("enumerate() missing required argument 'iterable' (pos 1)"));
    };
    let start = args
        .get(1)
        .cloned()
        .or_else(|| kwarg(kw, "start"))
        .unwrap_or(Value::Int(0));
    if vm.index_value(&start)?.is_none() {
        return Err(vm.type_error(format!(
            "'{}' object cannot be interpreted as an integer",
            vm.type_name(&start)
        )));
    }
    let iter = vm.get_iter(&iterable)?;
    Ok(vm.new_iter(
        &vm.types.enumerate.clone(),
        IterState::Enumerate { iter, count: start },
    ))
}

fn zip_new(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let (_, args) = split_cls(vm, args)?;
    check_kwargs(vm, "zip", kw, &["strict"])?;
    let strict = match kwarg(kw, "strict") {
        Some(v) => vm.truthy(&v)?,
        None => false,
    };
    let mut iters = Vec::with_capacity(args.len());
    for (i, a) in args.iter().enumerate() {
        match vm.get_iter(a) {
            Ok(it) => iters.push(it),
            Err(_) => {
                return Err(
                    vm.type_error(format!("zip argument #{} must support iteration", i + 1))
                );
            }
        }
    }
    Ok(vm.new_iter(&vm.types.zip.clone(), IterState::Zip { iters, strict }))
}

fn map_new(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    check_kwargs(vm, "map", kw, &[])?;
    let args = iterator_args(vm, "map", args, 2)?;
    let func = args[0].clone();
    let mut iters = Vec::new();
    for a in &args[1..] {
        iters.push(vm.get_iter(a)?);
    }
    Ok(vm.new_iter(&vm.types.map.clone(), IterState::Map { func, iters }))
}

fn filter_new(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    check_kwargs(vm, "filter", kw, &[])?;
    let (_, rest) = split_cls(vm, args)?;
    if rest.len() != 2 {
        return Err(vm.type_error(format!("filter expected 2 arguments, got {}", rest.len())));
    }
    let iter = vm.get_iter(&rest[1])?;
    Ok(vm.new_iter(
        &vm.types.filter.clone(),
        IterState::Filter {
            func: rest[0].clone(),
            iter,
        },
    ))
}

fn reversed_new(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    check_kwargs(vm, "reversed", kw, &[])?;
    let (_, rest) = split_cls(vm, args)?;
    if rest.len() != 1 {
        return Err(vm.type_error(format!("reversed expected 1 argument, got {}", rest.len())));
    }
    let seq = rest[0].clone();
    let reversible = match &seq {
        Value::List(_) | Value::Tuple(_) | Value::Str(_) => true,
        Value::Object(o) if let ObjectKind::Range(range) = &o.kind => {
            // A range_iterator over the reversed range, as `range_reverse` makes.
            let reversed = vm.new_range(range.reversed());
            return vm.get_iter(&reversed);
        }
        Value::Dict(d) => return Ok(reversed_dict(vm, d.clone(), DictViewKind::Keys, false)),
        Value::Object(o) if let ObjectKind::DictView { dict, kind } = &o.kind => {
            let odict = vm.is_odict_view(&o.class);
            return Ok(reversed_dict(vm, dict.clone(), *kind, odict));
        }
        Value::Type(t) => {
            // `reversed(Color)`: the metaclass's `__reversed__`.
            let key = vm.names.reversed.clone();
            if let Some(f) = vm.meta_method(t, &key) {
                return vm.call(&f, std::slice::from_ref(&seq), &[]);
            }
            false
        }
        Value::Object(o) if !o.class.builtin => {
            let key = vm.names.reversed.clone();
            if let Some(f) = lookup(&o.class, &key) {
                return vm.call(&f, std::slice::from_ref(&seq), &[]);
            }
            lookup(&o.class, &vm.names.len.clone()).is_some()
                && lookup(&o.class, &vm.names.getitem.clone()).is_some()
        }
        _ => false,
    };
    if !reversible {
        return Err(vm.type_error(format!("'{}' object is not reversible", vm.type_name(&seq))));
    }
    let n = vm.len(&seq)?;
    // A list has an iterator type of its own (`list.__reversed__`'s).
    let class = match &seq {
        Value::List(_) => vm.types.list_reverseiterator.clone(),
        _ => vm.types.reversed.clone(),
    };
    Ok(vm.new_iter(&class, IterState::Reversed { seq, index: n }))
}

/// `reversed()` of a dict or of one of its views: its entries last to first, as a
/// `dict_reversekeyiterator` (or `…valueiterator`, `…itemiterator`); an `odict_iterator`
/// for an OrderedDict's (`odict`).
pub fn reversed_dict(vm: &mut Vm, dict: Rc<PyDict>, kind: DictViewKind, odict: bool) -> Value {
    let t = &vm.types;
    let class = match kind {
        _ if odict => t.odict_iterator.clone(),
        DictViewKind::Keys => t.dict_reversekeyiterator.clone(),
        DictViewKind::Values => t.dict_reversevalueiterator.clone(),
        DictViewKind::Items => t.dict_reverseitemiterator.clone(),
    };
    let size = dict.table.borrow().len();
    let state = IterState::Dict {
        dict,
        pos: usize::MAX,
        kind,
        size,
        reversed: true,
        odict,
    };
    vm.new_iter(&class, state)
}

fn super_new(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    let (_, rest) = split_cls(vm, args)?;
    match rest {
        [Value::Type(cls), obj] => {
            vm.check_super_args(cls, obj)?;
            Ok(Value::object(Object::new(
                vm.types.super_.clone(),
                ObjectKind::Super {
                    this_class: cls.clone(),
                    obj: obj.clone(),
                },
            )))
        }
        // Called without arguments where the compiler gave it none (outside a class): a
        // function with a first argument lacks only its class.
        [] => Err(vm.runtime_error(match vm.caller_argcount() {
            Some(1..) => "super(): __class__ cell not found",
            _ => "super(): no arguments",
        })),
        [other, ..] if !matches!(other, Value::Type(_)) => Err(vm.type_error(format!(
            "super() argument 1 must be a type, not {}",
            vm.type_name(other)
        ))),
        _ => Err(vm.runtime_error("super(): apy supports super() and super(type, obj)")),
    }
}

fn property_new(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let (_, rest) = split_cls(vm, args)?;
    check_kwargs(vm, "property", kw, &["fget", "fset", "fdel", "doc"])?;
    let get = |i: usize, name: &str| {
        rest.get(i)
            .cloned()
            .or_else(|| kwarg(kw, name))
            .unwrap_or(Value::None)
    };
    let (fget, doc) = (get(0, "fget"), get(3, "doc"));
    // Its docstring: `doc=`, else the getter's (`property_init_impl`).
    let doc = match doc {
        Value::None => getter_doc(vm, &fget)?,
        doc => doc,
    };
    Ok(new_property(
        vm,
        [fget, get(1, "fset"), get(2, "fdel")],
        doc,
    ))
}

/// The docstring a property takes from its getter: the getter's `__doc__`, or None.
fn getter_doc(vm: &mut Vm, fget: &Value) -> PyResult<Value> {
    if fget.is_none() {
        return Ok(Value::None);
    }
    let name = vm.names.doc.clone();
    Ok(vm.get_attr_opt(fget, &name)?.unwrap_or(Value::None))
}

/// A property of the getter, setter and deleter `parts`; its `__doc__` (None at least) is
/// in its attribute table, where a program may replace it.
fn new_property(vm: &Vm, [fget, fset, fdel]: [Value; 3], doc: Value) -> Value {
    let property = Value::object(Object::with_dict(
        vm.types.property.clone(),
        ObjectKind::Property { fget, fset, fdel },
    ));
    if let Value::Object(o) = &property
        && let Some(dict) = o.dict_object()
    {
        dict.table.borrow_mut().set_str(vm.names.doc.clone(), doc);
    }
    property
}

/// `prop.getter(f)`, `prop.setter(f)`, `prop.deleter(f)`: a copy of `prop` with part
/// `which` (0, 1, 2) replaced by `args[1]` (`property_copy`). The copy keeps the docstring,
/// unless it was the old getter's and the getter is the part replaced.
fn property_copy(vm: &mut Vm, args: &[Value], which: usize) -> PyResult<Value> {
    let (fget, fset, fdel) = property_parts(vm, &args[0])?;
    let mut parts = [fget, fset, fdel];
    let new = args.get(1).cloned().unwrap_or(Value::None);
    let old = std::mem::replace(&mut parts[which], new);
    let key = vm.names.doc.clone();
    let mut doc = vm.get_attr_opt(&args[0], &key)?.unwrap_or(Value::None);
    if which == 0 && vm.get_attr_opt(&old, &key)?.is_some_and(|d| d.is(&doc)) {
        doc = getter_doc(vm, &parts[0])?;
    }
    let copy = new_property(vm, parts, doc);
    // The name `__set_name__` gave goes with the copy.
    if let Some(name) = property_own_name(vm, &args[0])
        && let Value::Object(o) = &copy
        && let Some(dict) = o.dict_object()
    {
        dict.table.borrow_mut().set_str(vm.names.name.clone(), name);
    }
    Ok(copy)
}

/// The name a property was given by `__set_name__` (or by assigning `__name__`), kept in
/// its dict beside its docstring (CPython's `prop_name`).
fn property_own_name(vm: &Vm, v: &Value) -> Option<Value> {
    let Value::Object(o) = v else { return None };
    let dict = o.dict_object()?;
    dict.table.borrow().get_str(&vm.names.name).cloned()
}

/// `property.__name__` (3.13): its own name, else its getter's.
fn property_name(vm: &mut Vm, v: &Value) -> PyResult<Value> {
    if let Some(name) = property_own_name(vm, v) {
        return Ok(name);
    }
    let (fget, _, _) = property_parts(vm, v)?;
    let key = vm.names.name.clone();
    match fget {
        Value::None => Err(vm.no_attribute(v, &key)),
        fget => vm.get_attr(&fget, &key),
    }
}

/// Sets the name `property_name` answers (`__set_name__`, `prop.__name__ = ...`).
fn set_property_name(vm: &mut Vm, v: &Value, name: Value) -> PyResult<()> {
    property_parts(vm, v)?;
    if let Value::Object(o) = v
        && let Some(dict) = o.dict_object()
    {
        dict.table.borrow_mut().set_str(vm.names.name.clone(), name);
    }
    Ok(())
}

fn property_parts(vm: &Vm, v: &Value) -> PyResult<(Value, Value, Value)> {
    match v {
        Value::Object(o) => match &o.kind {
            ObjectKind::Property { fget, fset, fdel } => {
                Ok((fget.clone(), fset.clone(), fdel.clone()))
            }
            _ => Err(vm.type_error("descriptor requires a 'property' object")),
        },
        _ => Err(vm.type_error("descriptor requires a 'property' object")),
    }
}

/// `prop.__set__(obj, value)` and `prop.__delete__(obj)`: what `obj.name = value` and
/// `del obj.name` do through the property (the VM's own stores match a property before
/// looking for these, so they are for programs, and make a property a data descriptor to
/// `inspect.isdatadescriptor`). = `property_descr_set`
fn property_store(vm: &mut Vm, args: &[Value], set: bool) -> PyResult<Value> {
    let (fget, fset, fdel) = property_parts(vm, &args[0])?;
    let (func, what, wanted) = if set {
        (fset, "setter", 2)
    } else {
        (fdel, "deleter", 1)
    };
    let rest = &args[1..];
    check_arity(
        vm,
        if set { "__set__" } else { "__delete__" },
        rest,
        wanted,
        wanted,
    )?;
    if func.is_none() {
        let key = vm.intern("__name__");
        let name = match vm.get_attr(&fget, &key) {
            Ok(Value::Str(s)) => format!("'{}' ", s.as_str()),
            _ => String::new(),
        };
        let owner = vm.type_name(&rest[0]);
        return Err(vm.attribute_error(format!("property {name}of '{owner}' object has no {what}")));
    }
    vm.call(&func, rest, &[])?;
    Ok(Value::None)
}

fn wrapper_new(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let (cls, rest) = split_cls(vm, args)?;
    let is_class = Rc::ptr_eq(&cls, &vm.types.classmethod);
    let name = if is_class {
        "classmethod"
    } else {
        "staticmethod"
    };
    check_kwargs(vm, name, kw, &[])?;
    check_arity(vm, name, rest, 1, 1)?;
    let f = rest[0].clone();
    let kind = if is_class {
        ObjectKind::ClassMethod(f)
    } else {
        ObjectKind::StaticMethod(f)
    };
    Ok(Value::object(Object::new(cls, kind)))
}

fn object_eq(_: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    Ok(if args.len() == 2 && args[0].is(&args[1]) {
        Value::Bool(true)
    } else {
        Value::NotImplemented
    })
}

fn object_ne(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    if args.len() != 2 {
        return Ok(Value::NotImplemented);
    }
    // `object_richcompare`: the inverse of the instance's own `__eq__`, not of `==` (which
    // would also try the other operand's and fall back to identity).
    let ty = vm.type_of(&args[0]).clone();
    let r = match lookup(&ty, &vm.names.eq.clone()) {
        Some(eq) => vm.call(&eq, &args[..2], &[])?,
        None => Value::NotImplemented,
    };
    match r {
        Value::NotImplemented => Ok(r),
        other => Ok(Value::Bool(!vm.truthy(&other)?)),
    }
}

fn object_no_order(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    match args.len() {
        2 => Ok(Value::NotImplemented),
        n => Err(vm.type_error(format!("expected 1 argument, got {}", n.saturating_sub(1)))),
    }
}

fn object_hash(_: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    Ok(Value::Int((args[0].address() >> 4) as i64))
}

fn object_setattr(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    check_arity(vm, "__setattr__", args, 3, 3)?;
    let Some(name) = args[1].str_or_subclass() else {
        return Err(vm.type_error("attribute name must be string"));
    };
    let name = vm.intern(name.as_str());
    vm.generic_set_attr(&args[0], &name, Some(args[2].clone()))?;
    Ok(Value::None)
}

fn object_delattr(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    check_arity(vm, "__delattr__", args, 2, 2)?;
    let Some(name) = args[1].str_or_subclass() else {
        return Err(vm.type_error("attribute name must be string"));
    };
    let name = vm.intern(name.as_str());
    vm.generic_set_attr(&args[0], &name, None)?;
    Ok(Value::None)
}

fn object_getattribute(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    check_arity(vm, "__getattribute__", args, 2, 2)?;
    let Some(name) = args[1].str_or_subclass() else {
        return Err(vm.type_error("attribute name must be string"));
    };
    let name = vm.intern(name.as_str());
    vm.object_get_attr(&args[0], &name)
}

fn object_format(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    check_arity(vm, "__format__", args, 2, 2)?;
    if args[1].as_str().is_some_and(|s| !s.is_empty()) {
        return Err(vm.type_error(format!(
            "unsupported format string passed to {}.__format__",
            vm.type_name(&args[0])
        )));
    }
    Ok(Value::Str(vm.str_of(&args[0])?))
}

/// The methods of `object`, by name (`object_methods` and the slots of `PyBaseObject_Type`).
const OBJECT_METHODS: &[(&str, NativeFn)] = &[
    ("__init__", object_init),
    ("__repr__", object_repr),
    ("__str__", object_str),
    ("__eq__", object_eq),
    ("__ne__", object_ne),
    // Orderings are the operands' own: object's only says it has none.
    ("__lt__", object_no_order),
    ("__le__", object_no_order),
    ("__gt__", object_no_order),
    ("__ge__", object_no_order),
    ("__hash__", object_hash),
    ("__setattr__", object_setattr),
    ("__delattr__", object_delattr),
    ("__getattribute__", object_getattribute),
    ("__format__", object_format),
    ("__sizeof__", super::sizeof::object_sizeof),
    ("__getstate__", crate::vm::slots::object_getstate),
];

/// The methods of `property`, by name.
const PROPERTY_METHODS: &[(&str, NativeFn)] = &[
    ("getter", |vm, args, _| property_copy(vm, args, 0)),
    ("setter", |vm, args, _| property_copy(vm, args, 1)),
    ("deleter", |vm, args, _| property_copy(vm, args, 2)),
    ("__set__", |vm, args, _| property_store(vm, args, true)),
    ("__delete__", |vm, args, _| property_store(vm, args, false)),
    ("__set_name__", |vm, args, _| {
        check_arity(vm, "__set_name__", args, 3, 3)?;
        set_property_name(vm, &args[0], args[2].clone())?;
        Ok(Value::None)
    }),
    ("__get__", |vm, args, _| {
        let (fget, _, _) = property_parts(vm, &args[0])?;
        match args.get(1) {
            None | Some(Value::None) => Ok(args[0].clone()),
            Some(obj) => vm.call(&fget, std::slice::from_ref(obj), &[]),
        }
    }),
];

/// The attributes of `property`, by name.
const PROPERTY_GETSETS: &[(&str, Getter)] = &[
    ("fget", |vm, v| Ok(property_parts(vm, v)?.0)),
    ("fset", |vm, v| Ok(property_parts(vm, v)?.1)),
    ("fdel", |vm, v| Ok(property_parts(vm, v)?.2)),
];

/// The attributes of `slice`, by name.
const SLICE_GETSETS: &[(&str, Getter)] = &[
    ("start", |_, v| Ok(slice_field(v, 0))),
    ("stop", |_, v| Ok(slice_field(v, 1))),
    ("step", |_, v| Ok(slice_field(v, 2))),
];

/// Installs the constructors, methods and attributes of the classes of this file.
/// The attributes a program reads and `functools.wraps` writes: a class's own docstring
/// (never a base's; a class statement always puts one in its namespace, None at least,
/// so a type without is one the VM made, whose docstring is CPython's:
/// `vm::native_docs`, which comes first for a built-in type, as a static type's `tp_doc`
/// comes before the descriptor in its dict: `type.__doc__`), and a function's
/// annotations, kept in its attribute table.
fn init_doc_attrs(vm: &mut Vm) {
    let type_ = vm.types.type_.clone();
    vm.add_getset(
        &type_,
        "__doc__",
        |vm, v| {
            let Value::Type(t) = v else {
                return Ok(Value::None);
            };
            let own = t.dict.borrow().get_str(&vm.names.doc).cloned();
            let cpython = || native_docs::type_doc(t).map(Value::str);
            let doc = if t.builtin {
                cpython().or(own)
            } else {
                own.or_else(cpython)
            };
            Ok(doc.unwrap_or(Value::None))
        },
        None,
    );
    // A built-in type's signature as its docstring gives it (`enumerate`'s
    // `(iterable, start=0)`), which `inspect.signature` reads; None for a class.
    vm.add_getset(
        &type_,
        "__text_signature__",
        |vm, v| {
            let signature = match v {
                Value::Type(t) if t.dict.borrow().get_str(&vm.names.doc).is_none() => {
                    native_docs::type_text_signature(t)
                }
                _ => None,
            };
            Ok(signature.map_or(Value::None, Value::str))
        },
        None,
    );
    let function = vm.types.function.clone();
    vm.add_getset(
        &function,
        "__annotations__",
        |vm, v| {
            let Value::Function(f) = v else {
                return Ok(Value::None);
            };
            let key = vm.intern("__annotations__");
            let existing = f.dict.borrow().get_str(&key).cloned();
            Ok(existing.unwrap_or_else(|| {
                let d = Value::dict(Default::default());
                f.dict.borrow_mut().set_str(key, d.clone());
                d
            }))
        },
        Some(|vm, v, new| match (v, &new) {
            (Value::Function(f), Value::Dict(_)) => {
                let key = vm.intern("__annotations__");
                f.dict.borrow_mut().set_str(key, new);
                Ok(())
            }
            _ => Err(vm.type_error("__annotations__ must be set to a dict object")),
        }),
    );
}

pub fn init(vm: &mut Vm) {
    init_doc_attrs(vm);
    let t = &vm.types;
    let news: Vec<(Rc<PyType>, NativeFn)> = vec![
        (t.slice.clone(), slice_new),
        (t.enumerate.clone(), enumerate_new),
        (t.zip.clone(), zip_new),
        (t.map.clone(), map_new),
        (t.filter.clone(), filter_new),
        (t.reversed.clone(), reversed_new),
        (t.super_.clone(), super_new),
        (t.property.clone(), property_new),
        (t.classmethod.clone(), wrapper_new),
        (t.staticmethod.clone(), wrapper_new),
        (t.object.clone(), object_new),
    ];
    for (ty, f) in news {
        vm.add_static(&ty, "__new__", f);
    }
    let object = vm.types.object.clone();
    vm.add_methods(&object, OBJECT_METHODS);
    vm.add_methods(&object, super::reduce::OBJECT_METHODS);
    // `object.__init_subclass__(cls)`: the end of the chain, which takes no keywords.
    let init_subclass = vm.native("__init_subclass__", |vm, args, kw| {
        if kw.is_empty() {
            return Ok(Value::None);
        }
        let name = match args.first() {
            Some(Value::Type(cls)) => cls.name().to_string(),
            _ => "object".to_string(),
        };
        Err(vm.type_error(format!(
            "{name}.__init_subclass__() takes no keyword arguments"
        )))
    });
    let wrapped = class_method(vm, init_subclass);
    vm.set_type_attr(&object, "__init_subclass__", wrapped);
    // `object.__subclasshook__(cls, sub)`: no opinion, for `abc.ABCMeta` to ask.
    let hook = vm.native("__subclasshook__", |_, _, _| Ok(Value::NotImplemented));
    let wrapped = class_method(vm, hook);
    vm.set_type_attr(&object, "__subclasshook__", wrapped);

    let property = vm.types.property.clone();
    vm.add_getset(
        &property,
        "__isabstractmethod__",
        property_is_abstract,
        None,
    );
    vm.add_methods(&property, PROPERTY_METHODS);
    for (name, get) in PROPERTY_GETSETS {
        vm.add_getset(&property, name, *get, None);
    }
    vm.add_getset(
        &property,
        "__name__",
        property_name,
        Some(set_property_name),
    );
    for ty in [vm.types.classmethod.clone(), vm.types.staticmethod.clone()] {
        vm.add_getset(&ty, "__isabstractmethod__", wrapper_is_abstract, None);
        vm.add_method(&ty, "__get__", wrapper_get);
        // `__wrapped__` (3.10+) is the function too.
        for name in ["__func__", "__wrapped__"] {
            vm.add_getset(&ty, name, wrapped_function, None);
        }
    }
    let staticmethod = vm.types.staticmethod.clone();
    vm.add_method(&staticmethod, "__call__", |vm, args, kw| {
        let (this, rest) = args.split_first().unwrap_or((&Value::None, &[]));
        let function = wrapped_function(vm, this)?;
        vm.call(&function, rest, kw)
    });
    let super_ = vm.types.super_.clone();
    for (name, get) in SUPER_GETSETS {
        vm.add_getset(&super_, name, *get, None);
    }
    let slice = vm.types.slice.clone();
    for (name, get) in SLICE_GETSETS {
        vm.add_getset(&slice, name, *get, None);
    }
    vm.add_method(&slice, "indices", slice_indices);
}

/// `slice.indices(length)`: the start, stop and step a sequence of that length would use.
fn slice_indices(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    check_arity(vm, "indices", args, 2, 2)?;
    let Some(length) = vm.index_value(&args[1])? else {
        return Err(vm.type_error(format!(
            "'{}' object cannot be interpreted as an integer",
            vm.type_name(&args[1])
        )));
    };
    let length =
        usize::try_from(length).map_err(|_| vm.value_error("length should not be negative"))?;
    let [start, stop, step] = [0, 1, 2].map(|i| slice_field(&args[0], i));
    let (start, stop, step, _) = vm.slice_indices(length, &start, &stop, &step)?;
    Ok(Value::tuple(vec![
        Value::Int(start),
        Value::Int(stop),
        Value::Int(step),
    ]))
}

/// The function a `classmethod` or `staticmethod` object wraps.
fn wrapped_function(_: &mut Vm, v: &Value) -> PyResult<Value> {
    Ok(match v {
        Value::Object(o) => match &o.kind {
            ObjectKind::ClassMethod(f) | ObjectKind::StaticMethod(f) => f.clone(),
            _ => Value::None,
        },
        _ => Value::None,
    })
}

/// The attributes of a `super` object: the class whose MRO it searches past
/// (`__thisclass__`), the object it binds (`__self__`) and that object's class, or the
/// object itself when it is a class (`__self_class__`).
const SUPER_GETSETS: &[(&str, Getter)] = &[
    ("__thisclass__", |_, v| Ok(super_parts(v).0)),
    ("__self__", |_, v| Ok(super_parts(v).1)),
    ("__self_class__", |vm, v| {
        Ok(match super_parts(v).1 {
            Value::None => Value::None,
            Value::Type(t) => Value::Type(t),
            obj => Value::Type(vm.type_of(&obj).clone()),
        })
    }),
];

fn super_parts(v: &Value) -> (Value, Value) {
    match v {
        Value::Object(o) => match &o.kind {
            ObjectKind::Super { this_class, obj } => (Value::Type(this_class.clone()), obj.clone()),
            _ => (Value::None, Value::None),
        },
        _ => (Value::None, Value::None),
    }
}

/// `classmethod(f)`.
pub(crate) fn class_method(vm: &Vm, f: Value) -> Value {
    Value::object(Object::new(
        vm.types.classmethod.clone(),
        ObjectKind::ClassMethod(f),
    ))
}

/// Whether `f.__isabstractmethod__` is true (`_PyObject_IsAbstract`).
fn is_abstract(vm: &mut Vm, f: &Value) -> PyResult<bool> {
    let key = vm.intern("__isabstractmethod__");
    match vm.get_attr_opt(f, &key)? {
        Some(v) => vm.truthy(&v),
        None => Ok(false),
    }
}

/// `property.__isabstractmethod__`: any of its functions is abstract.
fn property_is_abstract(vm: &mut Vm, v: &Value) -> PyResult<Value> {
    let (fget, fset, fdel) = property_parts(vm, v)?;
    for f in [fget, fset, fdel] {
        if is_abstract(vm, &f)? {
            return Ok(Value::Bool(true));
        }
    }
    Ok(Value::Bool(false))
}

/// `staticmethod.__get__(obj, type=None)` gives the function; `classmethod.__get__` binds
/// it to `type`, or to `type(obj)` (what attribute lookup does natively; for programs and
/// `inspect`, which call it). = `sm_descr_get`, `cm_descr_get`
fn wrapper_get(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    let (this, rest) = args.split_first().ok_or_else(|| vm.type_error("no self"))?;
    check_arity(vm, "__get__", rest, 1, 2)?;
    match this {
        Value::Object(o) => match &o.kind {
            ObjectKind::StaticMethod(f) => Ok(f.clone()),
            ObjectKind::ClassMethod(f) => {
                let owner = match rest.get(1) {
                    Some(t) if !t.is_none() => t.clone(),
                    _ => Value::Type(vm.type_of(&rest[0]).clone()),
                };
                Ok(vm.bound_method(f.clone(), owner))
            }
            _ => Err(vm.type_error("descriptor '__get__' needs a classmethod or staticmethod")),
        },
        _ => Err(vm.type_error("descriptor '__get__' needs a classmethod or staticmethod")),
    }
}

/// `classmethod.__isabstractmethod__`, `staticmethod.__isabstractmethod__`: the wrapped
/// function's.
fn wrapper_is_abstract(vm: &mut Vm, v: &Value) -> PyResult<Value> {
    match v {
        Value::Object(o) => match &o.kind {
            ObjectKind::ClassMethod(f) | ObjectKind::StaticMethod(f) => {
                Ok(Value::Bool(is_abstract(vm, &f.clone())?))
            }
            _ => Ok(Value::Bool(false)),
        },
        _ => Ok(Value::Bool(false)),
    }
}

fn slice_field(v: &Value, i: usize) -> Value {
    crate::vm::compare::slice_parts(v).map_or(Value::None, |parts| parts[i].clone())
}
