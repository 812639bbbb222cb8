//! The constructors (`__new__`) of the built-in types — `int(x)`, `list(it)`, `range(…)`,
//! `type(…)`, `enumerate`, `zip`, `property` … — plus the methods of `object`, `property`,
//! `classmethod` and `staticmethod`. Mirrors each type's `tp_new` in `Objects/`.

use std::rc::Rc;

use num_bigint::BigInt;
use num_traits::ToPrimitive;

use crate::vm::args::{check_arity, check_kwargs, kwarg};
use crate::vm::call::{object_init, object_new};
use crate::vm::dict::StrKeys;
use crate::vm::object::{IterState, KwArgs, Object, ObjectKind, PyType};
use crate::vm::ops::from_int;
use crate::vm::repr::{object_repr, object_str};
use crate::vm::types::lookup;
use crate::vm::value::{PyDict, Value};
use crate::vm::{PyResult, Vm};

/// Splits `(cls, *args)` as passed to a `__new__`.
fn split_cls<'a>(vm: &Vm, args: &'a [Value]) -> PyResult<(Rc<PyType>, &'a [Value])> {
    match args.first() {
        Some(Value::Type(t)) => Ok((t.clone(), &args[1..])),
        _ => Err(vm.type_error("__new__(X): X is not a type object")),
    }
}

/// The argument of a numeric conversion, seen through a subclass instance
/// (`float(Celsius(21.5))` converts the float it extends).
fn numeric_arg(v: &Value) -> Value {
    match v {
        Value::Object(o) => o.builtin_base().cloned().unwrap_or_else(|| v.clone()),
        _ => v.clone(),
    }
}

fn int_new(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let (_, args) = split_cls(vm, args)?;
    check_kwargs(vm, "int", kw, &["base"])?;
    check_arity(vm, "int", args, 0, 2)?;
    let base = args.get(1).cloned().or_else(|| kwarg(kw, "base"));
    let Some(x) = args.first().map(numeric_arg) else {
        return Ok(Value::Int(0));
    };
    let x = &x;
    if let Some(base) = base {
        let b = vm.expect_index(&base)?;
        let Value::Str(s) = x else {
            return Err(vm.type_error("int() can't convert non-string with explicit base"));
        };
        return crate::common::int_ops::parse_int(s.as_str(), b as u32)
            .map(from_int)
            .map_err(|e| vm.op_error(e));
    }
    match x {
        Value::Int(_) | Value::BigInt(_) => Ok(x.clone()),
        Value::Bool(b) => Ok(Value::Int(*b as i64)),
        Value::Float(f) => {
            if f.is_nan() {
                return Err(vm.value_error("cannot convert float NaN to integer"));
            }
            if f.is_infinite() {
                return Err(vm.overflow_error("cannot convert float infinity to integer"));
            }
            Ok(super::num_type::float_to_int(f.trunc()))
        }
        Value::Str(s) => crate::common::int_ops::parse_int(s.as_str(), 10)
            .map(from_int)
            .map_err(|e| vm.op_error(e)),
        other => {
            for name in ["__int__", "__index__"] {
                let key = vm.intern(name);
                if let Some(f) = vm.special_method(other, &key) {
                    return vm.call(&f, std::slice::from_ref(other), &[]);
                }
            }
            Err(vm.type_error(format!(
                "int() argument must be a string, a bytes-like object or a real number, not '{}'",
                vm.type_name(other)
            )))
        }
    }
}

fn float_new(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let (_, args) = split_cls(vm, args)?;
    check_kwargs(vm, "float", kw, &[])?;
    check_arity(vm, "float", args, 0, 1)?;
    let Some(x) = args.first().map(numeric_arg) else {
        return Ok(Value::Float(0.0));
    };
    let x = &x;
    match x {
        Value::Float(_) => Ok(x.clone()),
        Value::Int(n) => Ok(Value::Float(*n as f64)),
        Value::Bool(b) => Ok(Value::Float(*b as i64 as f64)),
        Value::BigInt(b) => match b.to_f64().filter(|f| f.is_finite()) {
            Some(f) => Ok(Value::Float(f)),
            None => Err(vm.overflow_error("int too large to convert to float")),
        },
        Value::Str(s) => crate::common::int_ops::parse_float(s.as_str())
            .map(Value::Float)
            .map_err(|e| vm.op_error(e)),
        other => {
            let key = vm.names.float.clone();
            if let Some(f) = vm.special_method(other, &key) {
                return vm.call(&f, std::slice::from_ref(other), &[]);
            }
            Err(vm.type_error(format!(
                "float() argument must be a string or a real number, not '{}'",
                vm.type_name(other)
            )))
        }
    }
}

fn str_new(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let (_, args) = split_cls(vm, args)?;
    check_kwargs(vm, "str", kw, &["object"])?;
    match args.first().cloned().or_else(|| kwarg(kw, "object")) {
        None => Ok(Value::str("")),
        Some(v) => Ok(Value::Str(vm.str_of(&v)?)),
    }
}

fn bool_new(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let (_, args) = split_cls(vm, args)?;
    check_kwargs(vm, "bool", kw, &[])?;
    check_arity(vm, "bool", args, 0, 1)?;
    match args.first() {
        None => Ok(Value::Bool(false)),
        Some(v) => Ok(Value::Bool(vm.truthy(v)?)),
    }
}

fn list_new(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let (cls, args) = split_cls(vm, args)?;
    if !cls.builtin {
        // A subclass instance starts empty; `list.__init__` fills it.
        return Ok(Value::list(vec![]));
    }
    check_kwargs(vm, "list", kw, &[])?;
    check_arity(vm, "list", args, 0, 1)?;
    match args.first() {
        None => Ok(Value::list(vec![])),
        Some(v) => Ok(Value::list(vm.collect_iterable(v)?)),
    }
}

fn tuple_new(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let (_, args) = split_cls(vm, args)?;
    check_kwargs(vm, "tuple", kw, &[])?;
    check_arity(vm, "tuple", args, 0, 1)?;
    match args.first() {
        None => Ok(Value::tuple(vec![])),
        Some(v @ Value::Tuple(_)) => Ok(v.clone()),
        Some(v) => Ok(Value::tuple(vm.collect_iterable(v)?)),
    }
}

fn dict_new(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let (cls, args) = split_cls(vm, args)?;
    if !cls.builtin {
        return Ok(Value::dict(Default::default()));
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

fn set_new(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let (cls, args) = split_cls(vm, args)?;
    if !cls.builtin && cls.is_subtype(&vm.types.set) {
        return vm.new_set(vec![], false);
    }
    let frozen = cls.is_subtype(&vm.types.frozenset);
    let name = if frozen { "frozenset" } else { "set" };
    check_kwargs(vm, name, kw, &[])?;
    check_arity(vm, name, args, 0, 1)?;
    match args.first() {
        // frozenset(f) is f itself, as in CPython.
        Some(Value::Set(s)) if frozen && s.frozen => Ok(args[0].clone()),
        Some(iterable) => Ok(Value::set(
            crate::vm::set_ops::table_from(vm, iterable)?,
            frozen,
        )),
        None => Ok(Value::set(Default::default(), frozen)),
    }
}

fn range_new(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let (_, args) = split_cls(vm, args)?;
    check_kwargs(vm, "range", kw, &[])?;
    let mut ints = Vec::with_capacity(3);
    for a in args {
        ints.push(vm.expect_index(a)?);
    }
    let (start, stop, step) = match ints.as_slice() {
        [stop] => (0, *stop, 1),
        [start, stop] => (*start, *stop, 1),
        [start, stop, step] => (*start, *stop, *step),
        [] => return Err(vm.type_error("range expected at least 1 argument, got 0")),
        _ => {
            return Err(vm.type_error(format!(
                "range expected at most 3 arguments, got {}",
                args.len()
            )));
        }
    };
    if step == 0 {
        return Err(vm.value_error("range() arg 3 must not be zero"));
    }
    Ok(vm.new_range(start, stop, step))
}

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

fn type_new(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let (_, args) = split_cls(vm, args)?;
    match args {
        [v] => Ok(Value::Type(vm.type_of(v).clone())),
        [Value::Str(name), Value::Tuple(bases), Value::Dict(ns)] => {
            let _ = kw;
            let mut base_types = Vec::new();
            for b in bases.items.iter() {
                match b {
                    Value::Type(t) => base_types.push(t.clone()),
                    other => {
                        return Err(vm.type_error(format!(
                            "bases must be types, not {}",
                            vm.type_name(other)
                        )));
                    }
                }
            }
            let mut table = ns.table.borrow().clone();
            if table.get_str(&vm.names.module).is_none() {
                table.set_str(vm.names.module.clone(), Value::str("__main__"));
            }
            Ok(Value::Type(vm.new_class(
                name.as_str(),
                base_types,
                table,
            )?))
        }
        _ => Err(vm.type_error("type() takes 1 or 3 arguments")),
    }
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
    check_kwargs(vm, "enumerate", kw, &["iterable", "start"])?;
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
        Value::Object(o) if matches!(o.kind, ObjectKind::Range(_)) => true,
        Value::Dict(d) => {
            let keys = d.table.borrow().keys();
            let n = keys.len();
            return Ok(vm.new_iter(
                &vm.types.reversed.clone(),
                IterState::Reversed {
                    seq: Value::list(keys),
                    index: n,
                },
            ));
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
    Ok(vm.new_iter(
        &vm.types.reversed.clone(),
        IterState::Reversed { seq, index: n },
    ))
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
        [] => Err(vm.runtime_error("super(): no arguments")),
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
    Ok(new_property(
        vm,
        get(0, "fget"),
        get(1, "fset"),
        get(2, "fdel"),
    ))
}

fn new_property(vm: &Vm, fget: Value, fset: Value, fdel: Value) -> Value {
    Value::object(Object::new(
        vm.types.property.clone(),
        ObjectKind::Property { fget, fset, fdel },
    ))
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
    let r = vm.compare(
        crate::compile::bytecode::CompareOperator::Eq,
        &args[0],
        &args[1],
    )?;
    match r {
        Value::NotImplemented => Ok(r),
        other => Ok(Value::Bool(!vm.truthy(&other)?)),
    }
}

fn object_hash(_: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    Ok(Value::Int((args[0].address() >> 4) as i64))
}

fn object_setattr(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    check_arity(vm, "__setattr__", args, 3, 3)?;
    let Value::Str(name) = &args[1] else {
        return Err(vm.type_error("attribute name must be string"));
    };
    let name = vm.intern(name.as_str());
    vm.generic_set_attr(&args[0], &name, Some(args[2].clone()))?;
    Ok(Value::None)
}

fn object_delattr(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    check_arity(vm, "__delattr__", args, 2, 2)?;
    let Value::Str(name) = &args[1] else {
        return Err(vm.type_error("attribute name must be string"));
    };
    let name = vm.intern(name.as_str());
    vm.generic_set_attr(&args[0], &name, None)?;
    Ok(Value::None)
}

fn object_getattribute(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    check_arity(vm, "__getattribute__", args, 2, 2)?;
    let Value::Str(name) = &args[1] else {
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

pub fn init(vm: &mut Vm) {
    let t = &vm.types;
    let news: Vec<(Rc<PyType>, crate::vm::object::NativeFn)> = vec![
        (t.int.clone(), int_new),
        (t.float.clone(), float_new),
        (t.str.clone(), str_new),
        (t.bool.clone(), bool_new),
        (t.list.clone(), list_new),
        (t.tuple.clone(), tuple_new),
        (t.dict.clone(), dict_new),
        (t.set.clone(), set_new),
        (t.frozenset.clone(), set_new),
        (t.range.clone(), range_new),
        (t.slice.clone(), slice_new),
        (t.type_.clone(), type_new),
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
    vm.add_method(&object, "__init__", object_init);
    // Mutable containers fill subclass instances in `__init__`, as CPython does.
    let list = vm.types.list.clone();
    vm.add_method(&list, "__init__", |vm, args, kw| {
        check_kwargs(vm, "list", kw, &[])?;
        check_arity(vm, "list", &args[1..], 0, 1)?;
        let Some(Value::List(l)) = args.first() else {
            return Ok(Value::None);
        };
        let items = match args.get(1) {
            Some(v) => vm.collect_iterable(v)?,
            None => vec![],
        };
        *l.items.borrow_mut() = items;
        Ok(Value::None)
    });
    let dict = vm.types.dict.clone();
    vm.add_method(&dict, "__init__", |vm, args, kw| {
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
    });
    let set = vm.types.set.clone();
    vm.add_method(&set, "__init__", |vm, args, _| {
        let Some(Value::Set(s)) = args.first() else {
            return Ok(Value::None);
        };
        let s = s.clone();
        if let Some(src) = args.get(1) {
            for item in vm.collect_iterable(src)? {
                vm.set_add(&s, item)?;
            }
        }
        Ok(Value::None)
    });
    vm.add_method(&object, "__repr__", object_repr);
    vm.add_method(&object, "__str__", object_str);
    vm.add_method(&object, "__eq__", object_eq);
    vm.add_method(&object, "__ne__", object_ne);
    vm.add_method(&object, "__hash__", object_hash);
    vm.add_method(&object, "__setattr__", object_setattr);
    vm.add_method(&object, "__delattr__", object_delattr);
    vm.add_method(&object, "__getattribute__", object_getattribute);
    vm.add_method(&object, "__format__", object_format);
    let init_subclass = vm.native("__init_subclass__", |_, _, _| Ok(Value::None));
    let wrapped = Value::object(Object::new(
        vm.types.classmethod.clone(),
        ObjectKind::ClassMethod(init_subclass),
    ));
    vm.set_type_attr(&object, "__init_subclass__", wrapped);

    let property = vm.types.property.clone();
    vm.add_method(&property, "getter", |vm, args, _| {
        let (_, fset, fdel) = property_parts(vm, &args[0])?;
        Ok(new_property(
            vm,
            args.get(1).cloned().unwrap_or(Value::None),
            fset,
            fdel,
        ))
    });
    vm.add_method(&property, "setter", |vm, args, _| {
        let (fget, _, fdel) = property_parts(vm, &args[0])?;
        Ok(new_property(
            vm,
            fget,
            args.get(1).cloned().unwrap_or(Value::None),
            fdel,
        ))
    });
    vm.add_method(&property, "deleter", |vm, args, _| {
        let (fget, fset, _) = property_parts(vm, &args[0])?;
        Ok(new_property(
            vm,
            fget,
            fset,
            args.get(1).cloned().unwrap_or(Value::None),
        ))
    });
    vm.add_method(&property, "__get__", |vm, args, _| {
        let (fget, _, _) = property_parts(vm, &args[0])?;
        match args.get(1) {
            None | Some(Value::None) => Ok(args[0].clone()),
            Some(obj) => vm.call(&fget, std::slice::from_ref(obj), &[]),
        }
    });
    vm.add_getset(
        &property,
        "fget",
        |vm, v| Ok(property_parts(vm, v)?.0),
        None,
    );
    vm.add_getset(
        &property,
        "fset",
        |vm, v| Ok(property_parts(vm, v)?.1),
        None,
    );
    vm.add_getset(
        &property,
        "fdel",
        |vm, v| Ok(property_parts(vm, v)?.2),
        None,
    );
    for ty in [vm.types.classmethod.clone(), vm.types.staticmethod.clone()] {
        vm.add_getset(
            &ty,
            "__func__",
            |_, v| match v {
                Value::Object(o) => match &o.kind {
                    ObjectKind::ClassMethod(f) | ObjectKind::StaticMethod(f) => Ok(f.clone()),
                    _ => Ok(Value::None),
                },
                _ => Ok(Value::None),
            },
            None,
        );
    }
    let range = vm.types.range.clone();
    for name in ["start", "stop", "step"] {
        let getter: crate::vm::object::Getter = match name {
            "start" => |_, v| Ok(range_field(v, |r| r.start)),
            "stop" => |_, v| Ok(range_field(v, |r| r.stop)),
            _ => |_, v| Ok(range_field(v, |r| r.step)),
        };
        vm.add_getset(&range, name, getter, None);
    }
    let slice = vm.types.slice.clone();
    for name in ["start", "stop", "step"] {
        let getter: crate::vm::object::Getter = match name {
            "start" => |_, v| Ok(slice_field(v, 0)),
            "stop" => |_, v| Ok(slice_field(v, 1)),
            _ => |_, v| Ok(slice_field(v, 2)),
        };
        vm.add_getset(&slice, name, getter, None);
    }
    let _ = BigInt::from(0);
}

fn range_field(v: &Value, f: fn(&crate::vm::object::Range) -> i64) -> Value {
    match v {
        Value::Object(o) => match &o.kind {
            ObjectKind::Range(r) => Value::Int(f(r)),
            _ => Value::None,
        },
        _ => Value::None,
    }
}

fn slice_field(v: &Value, i: usize) -> Value {
    match v {
        Value::Object(o) => match &o.kind {
            ObjectKind::Slice { start, stop, step } => [start, stop, step][i].clone(),
            _ => Value::None,
        },
        _ => Value::None,
    }
}
