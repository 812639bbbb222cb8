//! `object.__reduce__` and `object.__reduce_ex__`: the default answer to "how is this
//! object rebuilt?" that `pickle` and `copy` ask (`object___reduce_ex___impl`,
//! `reduce_newobj` and `_PyObject_GetState` in `Objects/typeobject.c`, and
//! `copyreg._reduce_ex` for protocols 0 and 1). The callables named in the answer are
//! `copyreg`'s (`src/stdlib/copyreg.apy`), imported on first use. Also the `__reduce__` of
//! the built-in objects CPython gives one of their own (ranges, slices, `...`,
//! `NotImplemented`, built-in functions and methods, bound methods, exceptions), so that
//! `pickle` can save them.

use std::rc::Rc;

use crate::vm::args::check_arity;
use crate::vm::dict::StrKeys;
use crate::vm::object::{KwArgs, NativeFn, ObjectKind, PyType};
use crate::vm::ops::from_int;
use crate::vm::value::{PyStr, Value};
use crate::vm::{PyResult, Vm};

/// The methods this file gives `object`.
pub const OBJECT_METHODS: &[(&str, NativeFn)] = &[
    ("__reduce_ex__", object_reduce_ex),
    ("__reduce__", object_reduce),
];

/// `object.__reduce_ex__(self, protocol)`: a class's own `__reduce__` if it has one, else
/// the default reduction for `protocol`.
fn object_reduce_ex(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    if args.len() != 2 {
        return Err(vm.type_error(format!(
            "object.__reduce_ex__() takes exactly one argument ({} given)",
            args.len().saturating_sub(1)
        )));
    }
    let (obj, protocol) = (&args[0], vm.expect_index(&args[1])?);
    let name = vm.intern("__reduce__");
    if let Some(reduce) = vm.get_attr_opt(obj, &name)? {
        let class = Value::Type(vm.type_of(obj).clone());
        let class_reduce = vm.get_attr(&class, &name)?;
        if !is_object_reduce(vm, &class_reduce, &name) {
            return vm.call(&reduce, &[], &[]);
        }
    }
    common_reduce(vm, obj, protocol)
}

/// `object.__reduce__(self)`: the reduction for protocol 0.
fn object_reduce(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    check_arity(vm, "__reduce__", args, 1, 1)?;
    common_reduce(vm, &args[0], 0)
}

/// Whether `method` is `object.__reduce__` itself (not a class's override).
fn is_object_reduce(vm: &Vm, method: &Value, name: &Rc<PyStr>) -> bool {
    let own = vm.types.object.dict.borrow().get_str(name).cloned();
    matches!((own, method), (Some(Value::Object(a)), Value::Object(b)) if Rc::ptr_eq(&a, b))
}

fn common_reduce(vm: &mut Vm, obj: &Value, protocol: i64) -> PyResult<Value> {
    if protocol >= 2 {
        reduce_newobj(vm, obj)
    } else {
        reduce_ex_old(vm, obj)
    }
}

/// `copyreg.<name>`.
fn copyreg(vm: &mut Vm, name: &str) -> PyResult<Value> {
    let module = vm.import_module("copyreg")?;
    let name = vm.intern(name);
    vm.get_attr(&module, &name)
}

/// Protocols 2 and up: `(copyreg.__newobj__, (cls, *args), state, listitems, dictitems)`,
/// or `__newobj_ex__` with `(cls, args, kwargs)` when `__getnewargs_ex__` gives keywords.
fn reduce_newobj(vm: &mut Vm, obj: &Value) -> PyResult<Value> {
    let class = vm.type_of(obj).clone();
    let (args, kwargs) = new_arguments(vm, obj)?;
    let has_args = args.is_some();
    let args = args.unwrap_or_default();
    let (newobj, newargs) = match kwargs {
        Some(kwargs) if !is_empty_dict(&kwargs) => (
            copyreg(vm, "__newobj_ex__")?,
            Value::tuple(vec![Value::Type(class.clone()), Value::tuple(args), kwargs]),
        ),
        _ => {
            let mut all = vec![Value::Type(class.clone())];
            all.extend(args);
            (copyreg(vm, "__newobj__")?, Value::tuple(all))
        }
    };
    let is_list = class.is_subtype(&vm.types.list);
    let is_dict = class.is_subtype(&vm.types.dict);
    let state = state(vm, obj, &class, !(has_args || is_list || is_dict))?;
    let list_items = match is_list {
        true => vm.get_iter(obj)?,
        false => Value::None,
    };
    let dict_items = match is_dict {
        true => {
            let items = vm.call_method(obj, "items", &[])?;
            vm.get_iter(&items)?
        }
        false => Value::None,
    };
    Ok(Value::tuple(vec![
        newobj, newargs, state, list_items, dict_items,
    ]))
}

fn is_empty_dict(v: &Value) -> bool {
    matches!(v, Value::Dict(d) if d.table.borrow().is_empty())
}

/// `_PyObject_GetNewArguments`: what `__getnewargs_ex__` (positional and keyword) or
/// `__getnewargs__` (positional) say `__new__` needs; none without either.
type NewArguments = (Option<Vec<Value>>, Option<Value>);

fn new_arguments(vm: &mut Vm, obj: &Value) -> PyResult<NewArguments> {
    let name = vm.intern("__getnewargs_ex__");
    if let Some(method) = vm.special_method(obj, &name) {
        let r = vm.call(&method, std::slice::from_ref(obj), &[])?;
        let Value::Tuple(pair) = &r else {
            return Err(vm.type_error(format!(
                "__getnewargs_ex__ should return a tuple, not '{}'",
                vm.type_name(&r)
            )));
        };
        let [args, kwargs] = &pair.items[..] else {
            return Err(vm.value_error(format!(
                "__getnewargs_ex__ should return a tuple of length 2, not {}",
                pair.items.len()
            )));
        };
        let Value::Tuple(args) = args else {
            return Err(vm.type_error(format!(
                "first item of the tuple returned by __getnewargs_ex__ must be a tuple, not '{}'",
                vm.type_name(args)
            )));
        };
        if !matches!(kwargs, Value::Dict(_)) {
            return Err(vm.type_error(format!(
                "second item of the tuple returned by __getnewargs_ex__ must be a dict, not '{}'",
                vm.type_name(kwargs)
            )));
        }
        return Ok((Some(args.items.to_vec()), Some(kwargs.clone())));
    }
    let name = vm.intern("__getnewargs__");
    if let Some(method) = vm.special_method(obj, &name) {
        let r = vm.call(&method, std::slice::from_ref(obj), &[])?;
        let Value::Tuple(args) = &r else {
            return Err(vm.type_error(format!(
                "__getnewargs__ should return a tuple, not '{}'",
                vm.type_name(&r)
            )));
        };
        return Ok((Some(args.items.to_vec()), None));
    }
    Ok((None, None))
}

/// `_PyObject_GetState`: what `obj.__getstate__()` gives. When the state must say it all
/// (`required`: `__new__` gets no arguments and no items follow), an object of a built-in
/// type other than `object` keeps what the state cannot carry, and cannot be pickled.
fn state(vm: &mut Vm, obj: &Value, class: &Rc<PyType>, required: bool) -> PyResult<Value> {
    let name = vm.intern("__getstate__");
    let getstate = vm.get_attr(obj, &name)?;
    if required
        && !overrides(vm, class, &name)
        && !Rc::ptr_eq(&builtin_base(vm, class), &vm.types.object)
    {
        return Err(vm.type_error(format!("cannot pickle '{}' object", vm.tp_name(class))));
    }
    vm.call(&getstate, &[], &[])
}

/// Whether a class in `class`'s MRO before `object` defines `name`.
fn overrides(vm: &Vm, class: &Rc<PyType>, name: &PyStr) -> bool {
    class
        .mro()
        .iter()
        .take_while(|t| !Rc::ptr_eq(t, &vm.types.object))
        .any(|t| t.dict.borrow().get_str(name).is_some())
}

/// The first built-in type in `class`'s MRO: what makes its instances (`object` for a
/// plain class). CPython's test is "not a heap type, or a type with its own C `__new__`".
fn builtin_base(vm: &Vm, class: &Rc<PyType>) -> Rc<PyType> {
    class
        .mro()
        .into_iter()
        .find(|t| t.builtin)
        .unwrap_or_else(|| vm.types.object.clone())
}

/// Protocols 0 and 1 (`copyreg._reduce_ex`): `(copyreg._reconstructor, (cls, base,
/// state))` with the instance's state after it when it has one, where `base` is the
/// built-in type the class derives from and `state` that type's value of the object.
fn reduce_ex_old(vm: &mut Vm, obj: &Value) -> PyResult<Value> {
    let class_name = vm.intern("__class__");
    let class = match vm.get_attr(obj, &class_name)? {
        Value::Type(t) => t,
        _ => vm.type_of(obj).clone(),
    };
    let base = builtin_base(vm, &class);
    let base_state = if Rc::ptr_eq(&base, &vm.types.object) {
        Value::None
    } else if Rc::ptr_eq(&base, &class) {
        return Err(vm.type_error(format!("cannot pickle '{}' object", class.name())));
    } else {
        vm.call(&Value::Type(base.clone()), std::slice::from_ref(obj), &[])?
    };
    let args = Value::tuple(vec![
        Value::Type(class.clone()),
        Value::Type(base),
        base_state,
    ]);
    let getstate_name = vm.intern("__getstate__");
    let getstate = vm.get_attr(obj, &getstate_name)?;
    let slots_name = vm.intern("__slots__");
    if !overrides(vm, vm.type_of(obj), &getstate_name) {
        let slots = vm.get_attr_opt(obj, &slots_name)?;
        if let Some(slots) = slots
            && vm.truthy(&slots)?
        {
            return Err(vm.type_error(
                "a class that defines __slots__ without defining __getstate__ cannot be pickled",
            ));
        }
    }
    let state = vm.call(&getstate, &[], &[])?;
    let reconstructor = copyreg(vm, "_reconstructor")?;
    Ok(match vm.truthy(&state)? {
        true => Value::tuple(vec![reconstructor, args, state]),
        false => Value::tuple(vec![reconstructor, args]),
    })
}

/// Gives the immutable built-in types their `__getnewargs__`: the value, as the exact
/// built-in type, that `__new__` rebuilds an instance (of a subclass too) from.
pub fn init(vm: &mut Vm) {
    let t = &vm.types;
    let types = [
        t.int.clone(),
        t.float.clone(),
        t.str.clone(),
        t.bytes.clone(),
        t.tuple.clone(),
        t.complex.clone(),
    ];
    for ty in &types {
        vm.add_method(ty, "__getnewargs__", getnewargs);
    }
    let t = &vm.types;
    let reducers: [(Rc<PyType>, NativeFn); 7] = [
        (t.range.clone(), range_reduce),
        (t.slice.clone(), slice_reduce),
        (t.ellipsis.clone(), |_, _, _| Ok(Value::str("Ellipsis"))),
        (t.not_implemented.clone(), |_, _, _| {
            Ok(Value::str("NotImplemented"))
        }),
        (t.builtin_function.clone(), callable_reduce),
        (t.method.clone(), callable_reduce),
        (t.base_exception.clone(), exception_reduce),
    ];
    for (ty, reduce) in reducers {
        vm.add_method(&ty, "__reduce__", reduce);
    }
    let base_exception = vm.types.base_exception.clone();
    vm.add_method(&base_exception, "__setstate__", exception_setstate);
}

/// `int.__getnewargs__(self)` and its likes (a subclass instance arrives as its base
/// value): `(value,)`, or `(real, imag)` for a complex.
fn getnewargs(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    check_arity(vm, "__getnewargs__", args, 1, 1)?;
    let value = match &args[0] {
        Value::Bool(b) => Value::Int(*b as i64),
        other => other.clone(),
    };
    if let Some(c) = crate::vm::complex::complex_of(&value) {
        return Ok(Value::tuple(vec![Value::Float(c.re), Value::Float(c.im)]));
    }
    Ok(Value::tuple(vec![value]))
}

/// `range.__reduce__()`: `(range, (start, stop, step))` (`range_reduce`).
fn range_reduce(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    check_arity(vm, "__reduce__", args, 1, 1)?;
    let Value::Object(o) = &args[0] else {
        return Err(vm.type_error("descriptor requires a 'range' object"));
    };
    let ObjectKind::Range(r) = &o.kind else {
        return Err(vm.type_error("descriptor requires a 'range' object"));
    };
    let bounds = [&r.start, &r.stop, &r.step].map(|n| from_int(n.clone()));
    Ok(Value::tuple(vec![
        Value::Type(vm.types.range.clone()),
        Value::tuple(bounds.to_vec()),
    ]))
}

/// `slice.__reduce__()`: `(slice, (start, stop, step))` (`slice_reduce`).
fn slice_reduce(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    check_arity(vm, "__reduce__", args, 1, 1)?;
    let Some(parts) = crate::vm::compare::slice_parts(&args[0]) else {
        return Err(vm.type_error("descriptor requires a 'slice' object"));
    };
    Ok(Value::tuple(vec![
        Value::Type(vm.types.slice.clone()),
        Value::tuple(parts.to_vec()),
    ]))
}

/// `f.__reduce__()` of a built-in function or a bound method (`meth_reduce`,
/// `method___reduce___impl`, `descr_reduce`): a module's function is saved by its name (a
/// global); a method bound to an object as `getattr(object, name)`, and a built-in type's
/// own method (`str.join`, `object.__new__`) as `getattr(type, name)`.
fn callable_reduce(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    check_arity(vm, "__reduce__", args, 1, 1)?;
    let this = &args[0];
    let (owner, name) = match this {
        Value::Object(o) => match &o.kind {
            ObjectKind::BoundMethod { this, func } => {
                let key = vm.names.name.clone();
                (this.clone(), vm.get_attr(func, &key)?)
            }
            ObjectKind::Native(n) => match &n.owner {
                None => return Ok(Value::str(n.name)),
                Some(owner) => match builtin_type_named(vm, owner)? {
                    Some(ty) => (ty, Value::str(n.name)),
                    None => return common_reduce(vm, this, 0),
                },
            },
            _ => return common_reduce(vm, this, 0),
        },
        _ => return common_reduce(vm, this, 0),
    };
    let getattr = builtin_named(vm, "getattr").unwrap_or(Value::None);
    Ok(Value::tuple(vec![getattr, Value::tuple(vec![owner, name])]))
}

/// The built-in type a native method's owner names: `str` in `builtins`,
/// `collections.deque` in its module.
fn builtin_type_named(vm: &mut Vm, owner: &str) -> PyResult<Option<Value>> {
    let found = match owner.rsplit_once('.') {
        Some((module, name)) => {
            let module = vm.import_module(module)?;
            let name = vm.intern(name);
            vm.get_attr_opt(&module, &name)?
        }
        None => builtin_named(vm, owner),
    };
    Ok(found.filter(|v| matches!(v, Value::Type(_))))
}

/// The built-in name `name` (what `builtins.name` holds now).
fn builtin_named(vm: &Vm, name: &str) -> Option<Value> {
    vm.builtins
        .table
        .borrow()
        .get_str(&PyStr::new(name))
        .cloned()
}

/// `BaseException.__reduce__()`: `(type(e), e.args)`, with the instance's `__dict__` after
/// them when it holds anything (`BaseException___reduce___impl`).
fn exception_reduce(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    check_arity(vm, "__reduce__", args, 1, 1)?;
    let this = &args[0];
    let class = Value::Type(vm.type_of(this).clone());
    let key = vm.intern("args");
    let exc_args = vm.get_attr(this, &key)?;
    let dict = match this {
        Value::Object(o) if o.attrs().is_some_and(|a| !a.borrow().is_empty()) => {
            o.dict_object().map(Value::Dict)
        }
        _ => None,
    };
    let mut parts = vec![class, exc_args];
    parts.extend(dict);
    Ok(Value::tuple(parts))
}

/// `BaseException.__setstate__(state)`: each item of the state dict set as an attribute
/// (`BaseException_setstate`); None sets nothing.
fn exception_setstate(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    check_arity(vm, "__setstate__", args, 2, 2)?;
    let items: Vec<(Value, Value)> = match &args[1] {
        Value::None => return Ok(Value::None),
        Value::Dict(d) => d
            .table
            .borrow()
            .iter()
            .map(|e| (e.key.clone(), e.value.clone()))
            .collect(),
        _ => return Err(vm.type_error("state is not a dictionary")),
    };
    for (key, value) in items {
        let Value::Str(name) = &key else {
            return Err(vm.type_error(format!(
                "attribute name must be string, not '{}'",
                vm.type_name(&key)
            )));
        };
        vm.set_attr(&args[0], name, value)?;
    }
    Ok(Value::None)
}
