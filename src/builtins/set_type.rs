//! `set` and `frozenset`: their constructor and their methods, in tables by kind
//! ([`ELEMENT_METHODS`], [`ALGEBRA_METHODS`], [`UPDATE_METHODS`]), with CPython's algorithms
//! so that results iterate in CPython's order. The table algebra lives in
//! `common::set_table`, its use on values (any iterable where CPython takes one, `__eq__` and
//! `__hash__` through the VM) in `vm/set_ops.rs`; this file binds the methods' arguments.
//! Mirrors `Objects/setobject.c` (`set_methods`, `frozenset_methods`). Operators (`|`, `&`,
//! `-`, `^`, their in-place forms, `==`, `<=`, `in`): the VM's protocol in `vm/ops.rs` over
//! `vm/set_ops.rs`; `repr`: `vm/repr.rs`. Installs itself with [`init`].

use std::rc::Rc;

use crate::vm::args::{Signature, check_arity, check_kwargs, split_cls};
use crate::vm::call::instance_of_subclass;
use crate::vm::object::{KwArgs, NativeFn};
use crate::vm::set_ops::{intersect, subtract, table_from, update_table};
use crate::vm::value::{PySet, SetTable, Value};
use crate::vm::{PyResult, Vm};

/// The methods of `set` that add or remove one element, or all.
const ELEMENT_METHODS: &[(&str, NativeFn)] = &[
    ("add", add),
    ("discard", |vm, args, kw| {
        Signature::one("set", "discard").check(vm, &args[1..], kw)?;
        set_remove(vm, args, false)?;
        Ok(Value::None)
    }),
    ("remove", |vm, args, kw| {
        Signature::one("set", "remove").check(vm, &args[1..], kw)?;
        set_remove(vm, args, true)?;
        Ok(Value::None)
    }),
    ("pop", pop),
    ("clear", clear),
];

/// The methods of both `set` and `frozenset`: copies, new sets from others, comparisons.
const ALGEBRA_METHODS: &[(&str, NativeFn)] = &[
    ("copy", copy),
    ("union", |vm, args, kw| {
        Signature::positional("set", "union", &[], 0).check(vm, &[], kw)?;
        union(vm, args)
    }),
    ("intersection", |vm, args, _| intersection(vm, args, false)),
    ("difference", |vm, args, _| difference(vm, args, false)),
    ("symmetric_difference", |vm, args, _| {
        symmetric_difference(vm, args, false)
    }),
    ("issubset", |vm, args, _| relation(vm, args, "issubset")),
    ("issuperset", |vm, args, _| relation(vm, args, "issuperset")),
    ("isdisjoint", |vm, args, _| relation(vm, args, "isdisjoint")),
];

/// The in-place forms of the algebra, `set`'s only.
const UPDATE_METHODS: &[(&str, NativeFn)] = &[
    ("update", update),
    ("intersection_update", |vm, args, _| {
        intersection(vm, args, true)
    }),
    ("difference_update", |vm, args, _| {
        difference(vm, args, true)
    }),
    ("symmetric_difference_update", |vm, args, _| {
        symmetric_difference(vm, args, true)
    }),
];

/// Installs the constructors and methods of `set` and `frozenset`.
pub fn init(vm: &mut Vm) {
    let (set, frozenset) = (vm.types.set.clone(), vm.types.frozenset.clone());
    vm.add_static(&set, "__new__", set_new);
    vm.add_static(&frozenset, "__new__", set_new);
    // Mutable containers fill subclass instances in `__init__`, as CPython does.
    vm.add_method(&set, "__init__", set_init);
    // Unhashable, as `collections.abc.Hashable` sees it.
    vm.set_type_attr(&set, "__hash__", Value::None);
    for methods in [ELEMENT_METHODS, ALGEBRA_METHODS, UPDATE_METHODS] {
        vm.add_methods(&set, methods);
    }
    vm.add_methods(&frozenset, ALGEBRA_METHODS);
}

/// `set(iterable)` and `frozenset(iterable)`.
fn set_new(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let (cls, args) = split_cls(vm, args)?;
    if !cls.builtin && cls.is_subtype(&vm.types.set) {
        let set = vm.new_set(vec![], false)?;
        return Ok(instance_of_subclass(&cls, set));
    }
    let frozen = cls.is_subtype(&vm.types.frozenset);
    let name = if frozen { "frozenset" } else { "set" };
    check_kwargs(vm, name, kw, &[])?;
    check_arity(vm, name, args, 0, 1)?;
    let value = match args.first() {
        // frozenset(f) is f itself, as in CPython.
        Some(Value::Set(s)) if frozen && s.frozen && cls.builtin => args[0].clone(),
        Some(iterable) => Value::set(table_from(vm, iterable)?, frozen),
        None => Value::set(Default::default(), frozen),
    };
    // `frozenset.__new__(cls, items)` in a subclass's own `__new__` makes its instance.
    match cls.builtin {
        true => Ok(value),
        false => Ok(instance_of_subclass(&cls, value)),
    }
}

fn set_init(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
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
}

/// The set `self` of an element method (CPython's shorter wording there).
fn this_set<'a>(vm: &Vm, args: &'a [Value]) -> PyResult<&'a Rc<PySet>> {
    match args.first() {
        Some(Value::Set(s)) => Ok(s),
        _ => Err(vm.type_error("descriptor requires a 'set' object")),
    }
}

fn add(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    Signature::one("set", "add").check(vm, &args[1..], kw)?;
    let s = this_set(vm, args)?.clone();
    vm.set_add(&s, args[1].clone())?;
    Ok(Value::None)
}

/// `s.discard(x)` / `s.remove(x)` (which raises KeyError when `x` is missing).
fn set_remove(vm: &mut Vm, args: &[Value], must_exist: bool) -> PyResult<()> {
    let s = this_set(vm, args)?.clone();
    if !vm.set_discard(&s, &args[1])? && must_exist {
        return Err(vm.key_error(args[1].clone()));
    }
    Ok(())
}

fn pop(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    Signature::no_args("set", "pop").check(vm, &args[1..], kw)?;
    let s = this_set(vm, args)?;
    let popped = vm.table_mut(&s.table)?.pop();
    match popped {
        Some(key) => Ok(key),
        None => Err(vm.key_error(Value::str("pop from an empty set"))),
    }
}

fn clear(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    Signature::no_args("set", "clear").check(vm, &args[1..], kw)?;
    let set = this_set(vm, args)?;
    let old = std::mem::take(&mut *vm.table_mut(&set.table)?);
    drop(old);
    Ok(Value::None)
}

fn copy(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    let s = this(vm, args, "set")?;
    Signature::no_args("set", "copy").check(vm, &args[1..], &[])?;
    if s.frozen {
        return Ok(Value::Set(s));
    }
    Ok(Value::set(s.table.borrow().copy(), false))
}

fn update(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    let s = this(vm, args, "set")?;
    let mut table = s.table.borrow().clone();
    for other in &args[1..] {
        if !matches!(other, Value::Set(o) if Rc::ptr_eq(o, &s)) {
            update_table(vm, &mut table, other)?;
        }
    }
    *vm.table_mut(&s.table)? = table;
    Ok(Value::None)
}

/// The set `self` of a method call (`set` or `frozenset`).
fn this(vm: &Vm, args: &[Value], owner: &str) -> PyResult<Rc<PySet>> {
    match args.first() {
        Some(Value::Set(s)) => Ok(s.clone()),
        other => Err(vm.type_error(format!(
            "descriptor requires a '{owner}' object but received a '{}'",
            other.map_or_else(|| "nothing".into(), |v| vm.type_name(v))
        ))),
    }
}

/// `s.union(*others)`: a copy of `s` updated with each.
fn union(vm: &mut Vm, args: &[Value]) -> PyResult<Value> {
    let s = this(vm, args, "set")?;
    let mut table = s.table.borrow().copy();
    for other in &args[1..] {
        if let Value::Set(o) = other
            && Rc::ptr_eq(o, &s)
        {
            continue;
        }
        update_table(vm, &mut table, other)?;
    }
    Ok(Value::set(table, s.frozen))
}

/// `s.intersection(*others)`.
fn intersection(vm: &mut Vm, args: &[Value], update: bool) -> PyResult<Value> {
    let s = this(vm, args, "set")?;
    // With no others, CPython returns (or swaps in) a copy, whose layout may differ.
    let mut table = if args.len() == 1 {
        s.table.borrow().copy()
    } else {
        s.table.borrow().clone()
    };
    for other in &args[1..] {
        table = intersect(vm, &table, other)?;
    }
    if update {
        *vm.table_mut(&s.table)? = table;
        return Ok(Value::None);
    }
    Ok(Value::set(table, s.frozen))
}

/// `s.difference(*others)` / `s.difference_update(*others)`.
fn difference(vm: &mut Vm, args: &[Value], update: bool) -> PyResult<Value> {
    let s = this(vm, args, "set")?;
    let original = s.table.borrow().clone();
    let mut table = match args.get(1) {
        Some(Value::Set(o)) if !update => {
            if Rc::ptr_eq(o, &s) {
                SetTable::new()
            } else {
                let o = o.table.borrow();
                original.difference(&o, |a, b| vm.keys_equal(a, b))?
            }
        }
        Some(first) if !update => {
            let mut copy = original.copy();
            subtract(vm, &mut copy, first)?;
            copy
        }
        _ => original,
    };
    let rest = if update {
        &args[1..]
    } else {
        args.get(2..).unwrap_or(&[])
    };
    for other in rest {
        match other {
            Value::Set(o) if Rc::ptr_eq(o, &s) => table = SetTable::new(),
            _ => subtract(vm, &mut table, other)?,
        }
    }
    if update {
        *vm.table_mut(&s.table)? = table;
        return Ok(Value::None);
    }
    Ok(Value::set(table, s.frozen))
}

/// `s.symmetric_difference(other)` (a copy of `other` toggled by `s`) and
/// `s.symmetric_difference_update(other)` (`s` toggled by `other`).
fn symmetric_difference(vm: &mut Vm, args: &[Value], update: bool) -> PyResult<Value> {
    let name = if update {
        "symmetric_difference_update"
    } else {
        "symmetric_difference"
    };
    let s = this(vm, args, "set")?;
    Signature::one("set", name).check(vm, &args[1..], &[])?;
    let table = if matches!(&args[1], Value::Set(o) if Rc::ptr_eq(o, &s)) {
        SetTable::new()
    } else {
        let (mut target, toggles) = match (&args[1], update) {
            (Value::Set(o), true) => (s.table.borrow().clone(), o.table.borrow().clone()),
            (other, true) => (s.table.borrow().clone(), table_from(vm, other)?),
            (Value::Set(o), false) => (o.table.borrow().copy(), s.table.borrow().clone()),
            (other, false) => (table_from(vm, other)?, s.table.borrow().clone()),
        };
        target.symmetric_difference_update(&toggles, |a, b| vm.keys_equal(a, b))?;
        target
    };
    if update {
        *vm.table_mut(&s.table)? = table;
        return Ok(Value::None);
    }
    Ok(Value::set(table, s.frozen))
}

/// `s.issubset(other)` / `s.issuperset(other)` / `s.isdisjoint(other)`.
fn relation(vm: &mut Vm, args: &[Value], name: &'static str) -> PyResult<Value> {
    let s = this(vm, args, "set")?;
    Signature::one("set", name).check(vm, &args[1..], &[])?;
    let mine = s.table.borrow().clone();
    let eq_result = match (name, &args[1]) {
        ("issubset", Value::Set(o)) => {
            mine.is_subset(&o.table.borrow(), |a, b| vm.keys_equal(a, b))?
        }
        ("issubset", other) => intersect(vm, &mine, other)?.len() == mine.len(),
        ("issuperset", Value::Set(o)) => {
            let theirs = o.table.borrow().clone();
            theirs.is_subset(&mine, |a, b| vm.keys_equal(a, b))?
        }
        ("isdisjoint", Value::Set(o)) => {
            mine.is_disjoint(&o.table.borrow(), |a, b| vm.keys_equal(a, b))?
        }
        (_, other) => {
            let want_all = name == "issuperset";
            let mut verdict = true;
            for item in vm.collect_iterable(other)? {
                let hash = vm.hash(&item)?;
                let found = mine.contains(&item, hash, |a, b| vm.keys_equal(a, b))?;
                if found != want_all {
                    verdict = false;
                    break;
                }
            }
            verdict
        }
    };
    Ok(Value::Bool(eq_result))
}
