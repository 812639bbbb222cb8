//! The types annotations are made of: `types.GenericAlias` (`list[int]`, `dict[str, int]`,
//! `tuple[int, ...]`, what a `__class_getitem__` of the built-in containers returns) and
//! `types.UnionType` (`int | None`, what `type.__or__` makes), with CPython's reprs,
//! equality, `__origin__`/`__args__`, and the `isinstance(x, int | str)` check. In the VM
//! because `|` on classes is an operator (`Vm::binary_op` calls [`union_of`]). Mirrors
//! `Objects/genericaliasobject.c` and `Objects/unionobject.c`. An alias's type parameters
//! (`tuple[T, T]`) are substituted as CPython's `_Py_subs_parameters` does, through the
//! parameters' own `__typing_prepare_subst__`/`__typing_subst__` (typing's TypeVar,
//! ParamSpec and TypeVarTuple); `*tuple[int, ...]` is a starred alias.

use std::rc::Rc;

use super::args::{check_arity, check_kwargs, split_cls};
use super::dict::StrKeys;
use super::object::{KwArgs, Object, ObjectKind, PyType};
use super::value::{PyStr, Value};
use super::{PyResult, Vm};

/// `origin[args]`, or `*origin[args]` when `starred` (what iterating an alias gives).
struct GenericAlias {
    origin: Value,
    /// Always a tuple.
    args: Value,
    starred: bool,
}

/// `a | b | …`: the distinct members, in order, each a class or a generic alias.
struct Union {
    /// Always a tuple.
    args: Value,
}

/// The built-in types whose `cls[...]` is a generic alias (`__class_getitem__`).
fn generic_builtins(vm: &Vm) -> [Rc<PyType>; 7] {
    let t = &vm.types;
    [
        t.enumerate.clone(),
        t.list.clone(),
        t.dict.clone(),
        t.tuple.clone(),
        t.set.clone(),
        t.frozenset.clone(),
        t.type_.clone(),
    ]
}

/// Sets up both types, `__class_getitem__` on the built-in containers, and `type.__or__`.
pub fn init(vm: &mut Vm) {
    let alias = vm.types.generic_alias.clone();
    vm.set_type_attr(&alias, "__module__", Value::str("types"));
    vm.add_method(&alias, "__new__", |vm, args, kw| {
        // (Not `split_cls_of`: this type is not flagged built-in, to print as `types.…`.)
        let (cls, rest) = split_cls(vm, args)?;
        if !cls.is_subtype(&vm.types.generic_alias) {
            let c = cls.name();
            let message = format!(
                "types.GenericAlias.__new__({c}): {c} is not a subtype of types.GenericAlias"
            );
            return Err(vm.type_error(message));
        }
        check_kwargs(vm, "GenericAlias", kw, &[])?;
        check_arity(vm, "GenericAlias", rest, 2, 2)?;
        // A subclass (collections.abc's `_CallableGenericAlias`) gets instances of its own.
        Ok(alias_of_class(cls, rest[0].clone(), rest[1].clone(), false))
    });
    vm.add_method(&alias, "__getitem__", |vm, args, _| {
        let alias = this_alias(vm, &args[0])?;
        let (origin, members, starred) = (alias.origin.clone(), alias.args.clone(), alias.starred);
        let parameters = make_parameters(vm, &items(&members))?;
        let new_args = substitute(vm, &args[0], &items(&members), &parameters, &args[1])?;
        Ok(alias_value(vm, origin, Value::tuple(new_args), starred))
    });
    vm.add_method(&alias, "__iter__", |vm, args, _| {
        // `*tuple[int, ...]`: one starred copy of the alias.
        let alias = this_alias(vm, &args[0])?;
        let (origin, members) = (alias.origin.clone(), alias.args.clone());
        let starred = alias_value(vm, origin, members, true);
        vm.get_iter(&Value::tuple(vec![starred]))
    });
    vm.add_method(&alias, "__repr__", |vm, args, _| {
        Ok(Value::str(alias_repr(vm, &args[0])?))
    });
    vm.add_method(&alias, "__eq__", alias_eq);
    vm.add_method(&alias, "__hash__", |vm, args, _| {
        let Some(a) = args[0].native::<GenericAlias>() else {
            return Ok(Value::NotImplemented);
        };
        let (origin, members, starred) = (a.origin.clone(), a.args.clone(), a.starred);
        Ok(Value::Int(
            vm.hash(&origin)? ^ vm.hash(&members)? ^ i64::from(starred),
        ))
    });
    vm.add_method(&alias, "__call__", |vm, args, kw| {
        let origin = this_alias(vm, &args[0])?.origin.clone();
        vm.call(&origin, &args[1..], kw)
    });
    vm.add_method(&alias, "__mro_entries__", |vm, args, _| {
        let origin = this_alias(vm, &args[0])?.origin.clone();
        Ok(Value::tuple(vec![origin]))
    });
    vm.add_method(&alias, "__or__", |vm, args, _| {
        union_of(vm, &args[0], &args[1])
    });
    vm.add_method(&alias, "__ror__", |vm, args, _| {
        union_of(vm, &args[1], &args[0])
    });
    vm.add_getset(
        &alias,
        "__origin__",
        |vm, v| Ok(this_alias(vm, v)?.origin.clone()),
        None,
    );
    vm.add_getset(
        &alias,
        "__args__",
        |vm, v| Ok(this_alias(vm, v)?.args.clone()),
        None,
    );
    vm.add_getset(
        &alias,
        "__parameters__",
        |vm, v| {
            let members = items(&this_alias(vm, v)?.args);
            Ok(Value::tuple(make_parameters(vm, &members)?))
        },
        None,
    );
    vm.add_getset(
        &alias,
        "__unpacked__",
        |vm, v| Ok(Value::Bool(this_alias(vm, v)?.starred)),
        None,
    );
    vm.add_getset(
        &alias,
        "__typing_unpacked_tuple_args__",
        |vm, v| {
            let alias = this_alias(vm, v)?;
            let is_tuple =
                matches!(&alias.origin, Value::Type(t) if Rc::ptr_eq(t, &vm.types.tuple));
            Ok(match alias.starred && is_tuple {
                true => alias.args.clone(),
                false => Value::None,
            })
        },
        None,
    );

    let union = vm.types.union_type.clone();
    vm.set_type_attr(&union, "__module__", Value::str("types"));
    vm.add_method(&union, "__repr__", |vm, args, _| {
        Ok(Value::str(union_repr(vm, &args[0])?))
    });
    vm.add_method(&union, "__eq__", union_eq);
    vm.add_method(&union, "__hash__", |vm, args, _| {
        let members = union_members(&args[0]);
        let mut hash = 0x5a17_i64;
        for member in members {
            hash ^= vm.hash(&member)?;
        }
        Ok(Value::Int(hash))
    });
    vm.add_method(&union, "__or__", |vm, args, _| {
        union_of(vm, &args[0], &args[1])
    });
    vm.add_method(&union, "__ror__", |vm, args, _| {
        union_of(vm, &args[1], &args[0])
    });
    vm.add_getset(
        &union,
        "__args__",
        |_, v| Ok(Value::tuple(union_members(v))),
        None,
    );

    for ty in generic_builtins(vm) {
        vm.add_method(&ty, "__class_getitem__", class_getitem);
    }
    let type_ = vm.types.type_.clone();
    vm.add_method(&type_, "__or__", |vm, args, _| {
        union_of(vm, &args[0], &args[1])
    });
    vm.add_method(&type_, "__ror__", |vm, args, _| {
        union_of(vm, &args[1], &args[0])
    });
}

/// `cls.__class_getitem__(item)`: `cls[item]` as a generic alias (`types.GenericAlias`
/// itself, so that `__class_getitem__ = classmethod(GenericAlias)` works in a class body).
pub fn class_getitem(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    check_kwargs(vm, "__class_getitem__", kw, &[])?;
    check_arity(vm, "__class_getitem__", args, 2, 2)?;
    Ok(new_alias(vm, args[0].clone(), args[1].clone()))
}

/// `types.GenericAlias(origin, args)`: `args` a tuple, or one item.
pub fn new_alias(vm: &Vm, origin: Value, args: Value) -> Value {
    alias_value(vm, origin, args, false)
}

fn alias_value(vm: &Vm, origin: Value, args: Value, starred: bool) -> Value {
    alias_of_class(vm.types.generic_alias.clone(), origin, args, starred)
}

fn alias_of_class(class: Rc<PyType>, origin: Value, args: Value, starred: bool) -> Value {
    let args = match args {
        Value::Tuple(_) => args,
        one => Value::tuple(vec![one]),
    };
    Value::object(Object::new(
        class,
        ObjectKind::Other(Box::new(GenericAlias {
            origin,
            args,
            starred,
        })),
    ))
}

/// An attribute of `v` that typing's type parameters and aliases have (None when absent).
fn typing_attr(vm: &mut Vm, v: &Value, name: &str) -> PyResult<Option<Value>> {
    if matches!(v, Value::Type(_)) {
        return Ok(None);
    }
    let name = vm.intern(name);
    vm.get_attr_opt(v, &name)
}

/// The type parameters among `args`, first seen first: the parameters themselves (what
/// has `__typing_subst__`) and those of the aliases among them (`_Py_make_parameters`;
/// CPython 3.13 does not look into lists and tuples here).
fn make_parameters(vm: &mut Vm, args: &[Value]) -> PyResult<Vec<Value>> {
    let mut parameters: Vec<Value> = Vec::new();
    for arg in args {
        let found = match typing_attr(vm, arg, "__typing_subst__")? {
            Some(_) => vec![arg.clone()],
            None => typing_attr(vm, arg, "__parameters__")?.map_or_else(Vec::new, |s| items(&s)),
        };
        for p in found {
            if index_of(vm, &parameters, &p)?.is_none() {
                parameters.push(p);
            }
        }
    }
    Ok(parameters)
}

/// Fixed-length unpacked tuple types among the items spread out: `*tuple[int, str]` is
/// `int, str` (`_unpack_args`).
fn unpack_args(vm: &mut Vm, item: &Value) -> PyResult<Vec<Value>> {
    let members = match item {
        Value::Tuple(t) => t.items.to_vec(),
        one => vec![one.clone()],
    };
    let mut out = Vec::new();
    for member in members {
        let sub = typing_attr(vm, &member, "__typing_unpacked_tuple_args__")?;
        match sub {
            Some(sub @ Value::Tuple(_))
                if !items(&sub)
                    .last()
                    .is_some_and(|l| matches!(l, Value::Ellipsis)) =>
            {
                out.extend(items(&sub));
            }
            _ => out.push(member),
        }
    }
    Ok(out)
}

/// `alias[item]`: the alias's arguments with each of its `parameters` replaced by the
/// matching argument of `item`, after each parameter readied them (a default, a
/// ParamSpec's list, a TypeVarTuple's share): `_Py_subs_parameters`.
fn substitute(
    vm: &mut Vm,
    alias: &Value,
    args: &[Value],
    parameters: &[Value],
    item: &Value,
) -> PyResult<Vec<Value>> {
    if parameters.is_empty() {
        let shown = vm.repr(alias)?;
        return Err(vm.type_error(format!("{shown} is not a generic class")));
    }
    let mut item = Value::tuple(unpack_args(vm, item)?);
    for param in parameters {
        if let Some(prepare) = typing_attr(vm, param, "__typing_prepare_subst__")? {
            item = vm.call(&prepare, &[alias.clone(), item.clone()], &[])?;
            if !matches!(item, Value::Tuple(_)) {
                item = Value::tuple(vec![item]);
            }
        }
    }
    let given = items(&item);
    if given.len() != parameters.len() {
        let shown = vm.repr(alias)?;
        let which = if given.len() > parameters.len() {
            "many"
        } else {
            "few"
        };
        return Err(vm.type_error(format!(
            "Too {which} arguments for {shown}; actual {}, expected {}",
            given.len(),
            parameters.len()
        )));
    }
    substitute_args(vm, args, parameters, &given)
}

/// [`substitute`] of `args`, with the parameters' arguments `given`, an unpacked
/// TypeVarTuple spread out (CPython 3.13 leaves lists and tuples among them as they are).
fn substitute_args(
    vm: &mut Vm,
    args: &[Value],
    parameters: &[Value],
    given: &[Value],
) -> PyResult<Vec<Value>> {
    let mut new_args = Vec::with_capacity(args.len());
    for arg in args {
        if matches!(arg, Value::Type(_)) {
            new_args.push(arg.clone());
            continue;
        }
        let unpack = match typing_attr(vm, arg, "__typing_is_unpacked_typevartuple__")? {
            Some(flag) => vm.truthy(&flag)?,
            None => false,
        };
        let new_arg = match typing_attr(vm, arg, "__typing_subst__")? {
            Some(subst) => {
                let i = position(vm, parameters, arg)?;
                vm.call(&subst, &[given[i].clone()], &[])?
            }
            None => substitute_within(vm, arg, parameters, given)?,
        };
        if unpack {
            new_args.extend(items(&new_arg));
        } else {
            new_args.push(new_arg);
        }
    }
    Ok(new_args)
}

/// An argument that has parameters of its own (`list[T]` within `dict[str, list[T]]`),
/// subscripted with what they stand for (`subs_tvars`).
fn substitute_within(
    vm: &mut Vm,
    arg: &Value,
    parameters: &[Value],
    given: &[Value],
) -> PyResult<Value> {
    let sub = match typing_attr(vm, arg, "__parameters__")? {
        Some(sub) => items(&sub),
        None => Vec::new(),
    };
    if sub.is_empty() {
        return Ok(arg.clone());
    }
    let mut sub_args = Vec::new();
    for p in &sub {
        let i = position(vm, parameters, p)?;
        let value = &given[i];
        // A TypeVarTuple (iterable, unlike the other parameters) stands for its tuple's items.
        let variadic = typing_attr(vm, p, "__iter__")?.is_some();
        match value {
            Value::Tuple(t) if variadic => sub_args.extend(t.items.iter().cloned()),
            _ => sub_args.push(value.clone()),
        }
    }
    vm.get_item(arg, &Value::tuple(sub_args))
}

/// Where `v` is among `values` (the same object, or an equal one).
fn index_of(vm: &mut Vm, values: &[Value], v: &Value) -> PyResult<Option<usize>> {
    for (i, kept) in values.iter().enumerate() {
        if kept.is(v) || vm.eq(kept, v)? {
            return Ok(Some(i));
        }
    }
    Ok(None)
}

/// Where `param` is among `parameters`.
fn position(vm: &mut Vm, parameters: &[Value], param: &Value) -> PyResult<usize> {
    match index_of(vm, parameters, param)? {
        Some(i) => Ok(i),
        None => {
            let shown = vm.repr(param)?;
            Err(vm.type_error(format!("{shown} is not a parameter of the alias")))
        }
    }
}

fn this_alias<'a>(vm: &Vm, v: &'a Value) -> PyResult<&'a GenericAlias> {
    v.native::<GenericAlias>()
        .ok_or_else(|| vm.type_error("a types.GenericAlias was expected"))
}

fn items(tuple: &Value) -> Vec<Value> {
    match tuple {
        Value::Tuple(t) => t.items.to_vec(),
        _ => Vec::new(),
    }
}

/// The members of a union, or of what would join one (`None` is `NoneType`).
fn union_members(v: &Value) -> Vec<Value> {
    match v.native::<Union>() {
        Some(u) => items(&u.args),
        None => vec![v.clone()],
    }
}

/// A class, a generic alias, a union or a `type` alias: what `|` makes a union of (with
/// `None`), as CPython's `is_unionable`.
pub fn joins_union(v: &Value) -> bool {
    matches!(v, Value::Type(_))
        || v.native::<GenericAlias>().is_some()
        || v.native::<Union>().is_some()
        || is_type_alias(v)
}

/// An instance of `typing.TypeAliasType` (written in apy, so known by its class).
fn is_type_alias(v: &Value) -> bool {
    let Value::Object(o) = v else { return false };
    &*o.class.name() == "TypeAliasType"
        && matches!(
            o.class.dict.borrow().get_str(&PyStr::new("__module__")),
            Some(Value::Str(m)) if m.as_str() == "typing"
        )
}

/// `a | b`: a union of the members of both, each once (a single member is itself), or
/// NotImplemented when either is not a class, None, an alias or a union.
pub fn union_of(vm: &mut Vm, a: &Value, b: &Value) -> PyResult<Value> {
    let none_type = Value::Type(vm.types.none.clone());
    let mut members: Vec<Value> = Vec::new();
    for side in [a, b] {
        let side = if side.is_none() { &none_type } else { side };
        if !joins_union(side) {
            return Ok(Value::NotImplemented);
        }
        for member in union_members(side) {
            if index_of(vm, &members, &member)?.is_none() {
                members.push(member);
            }
        }
    }
    if members.len() == 1 {
        return Ok(members.remove(0));
    }
    Ok(Value::object(Object::new(
        vm.types.union_type.clone(),
        ObjectKind::Other(Box::new(Union {
            args: Value::tuple(members),
        })),
    )))
}

fn alias_eq(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    let (Some(a), Some(b)) = (
        args[0].native::<GenericAlias>(),
        args[1].native::<GenericAlias>(),
    ) else {
        return Ok(Value::NotImplemented);
    };
    if a.starred != b.starred {
        return Ok(Value::Bool(false));
    }
    let (a_origin, a_args) = (a.origin.clone(), a.args.clone());
    let (b_origin, b_args) = (b.origin.clone(), b.args.clone());
    Ok(Value::Bool(
        vm.eq(&a_origin, &b_origin)? && vm.eq(&a_args, &b_args)?,
    ))
}

/// Unions are equal when they have the same members, in any order.
fn union_eq(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    if args[1].native::<Union>().is_none() {
        return Ok(Value::NotImplemented);
    }
    let (a, b) = (union_members(&args[0]), union_members(&args[1]));
    if a.len() != b.len() {
        return Ok(Value::Bool(false));
    }
    for member in &a {
        let mut found = false;
        for other in &b {
            if vm.eq(member, other)? {
                found = true;
                break;
            }
        }
        if !found {
            return Ok(Value::Bool(false));
        }
    }
    Ok(Value::Bool(true))
}

/// `list[int]`, `dict[str, list[int]]`, `tuple[int, ...]`, `tuple[()]` (`ga_repr`).
fn alias_repr(vm: &mut Vm, v: &Value) -> PyResult<String> {
    let alias = this_alias(vm, v)?;
    let (origin, members) = (alias.origin.clone(), items(&alias.args));
    let mut out = if alias.starred {
        "*".to_string()
    } else {
        String::new()
    };
    out.push_str(&item_repr(vm, &origin, false)?);
    out.push('[');
    if members.is_empty() {
        out.push_str("()");
    }
    for (i, member) in members.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        out.push_str(&item_repr(vm, member, false)?);
    }
    out.push(']');
    Ok(out)
}

/// `int | None` (`union_repr`): `NoneType` shows as `None`.
fn union_repr(vm: &mut Vm, v: &Value) -> PyResult<String> {
    let mut parts = Vec::new();
    for member in union_members(v) {
        parts.push(item_repr(vm, &member, true)?);
    }
    Ok(parts.join(" | "))
}

/// One class or argument as an alias or union shows it: a class by its qualified name
/// (without `builtins.`), `...` for Ellipsis, a list as `[a, b]`, else `repr`.
fn item_repr(vm: &mut Vm, v: &Value, in_union: bool) -> PyResult<String> {
    match v {
        Value::Ellipsis => Ok("...".to_string()),
        Value::Type(t) if in_union && Rc::ptr_eq(t, &vm.types.none) => Ok("None".to_string()),
        Value::Type(t) => Ok(match vm.type_module(t) {
            Some(m) if &*m != "builtins" => format!("{m}.{}", t.qualname()),
            _ => t.qualname().to_string(),
        }),
        Value::List(l) => {
            let members = l.items.borrow().clone();
            let mut parts = Vec::new();
            for member in &members {
                parts.push(item_repr(vm, member, false)?);
            }
            Ok(format!("[{}]", parts.join(", ")))
        }
        other => Ok(vm.repr(other)?),
    }
}

/// The classes `isinstance`/`issubclass` check against for a union (its members), or the
/// TypeError CPython raises for a parameterized generic; None for anything else.
pub fn check_classes(vm: &Vm, fname: &str, v: &Value) -> Option<PyResult<Vec<Value>>> {
    if v.native::<GenericAlias>().is_some() {
        return Some(Err(vm.type_error(format!(
            "{fname}() argument 2 cannot be a parameterized generic"
        ))));
    }
    let union = v.native::<Union>()?;
    let members = items(&union.args);
    if members.iter().any(|m| m.native::<GenericAlias>().is_some()) {
        return Some(Err(vm.type_error(format!(
            "{fname}() argument 2 cannot be a parameterized generic"
        ))));
    }
    Some(Ok(members))
}
