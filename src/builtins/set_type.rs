//! The methods and operators of `set` and `frozenset` with CPython's algorithms, so that
//! results iterate in CPython's order: the table algebra lives in `set_table`; this module
//! binds arguments, accepts any iterable where CPython does, and calls `__eq__`/`__hash__`
//! through the VM. Mirrors `Objects/setobject.c`'s method table. Installs itself with
//! [`init`]; the VM's operators call [`binary`] and [`in_place`].

use std::rc::Rc;

use crate::vm::args::Signature;
use crate::vm::set_ops::{intersect, subtract, table_from, update_table};
use crate::vm::value::{PySet, SetTable, Value};
use crate::vm::{PyResult, Vm};

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

/// Installs the methods of `set` and `frozenset`.
pub fn init(vm: &mut Vm) {
    for ty in [vm.types.set.clone(), vm.types.frozenset.clone()] {
        vm.add_method(&ty, "copy", |vm, args, _| {
            let s = this(vm, args, "set")?;
            Signature::no_args("set", "copy").check(vm, &args[1..], &[])?;
            if s.frozen {
                return Ok(Value::Set(s));
            }
            Ok(Value::set(s.table.borrow().copy(), false))
        });
        vm.add_method(&ty, "union", |vm, args, kw| {
            Signature::positional("set", "union", &[], 0).check(vm, &[], kw)?;
            union(vm, args)
        });
        vm.add_method(&ty, "intersection", |vm, args, _| {
            intersection(vm, args, false)
        });
        vm.add_method(&ty, "difference", |vm, args, _| difference(vm, args, false));
        vm.add_method(&ty, "symmetric_difference", |vm, args, _| {
            symmetric_difference(vm, args, false)
        });
        vm.add_method(&ty, "issubset", |vm, args, _| {
            relation(vm, args, "issubset")
        });
        vm.add_method(&ty, "issuperset", |vm, args, _| {
            relation(vm, args, "issuperset")
        });
        vm.add_method(&ty, "isdisjoint", |vm, args, _| {
            relation(vm, args, "isdisjoint")
        });
    }
    let set = vm.types.set.clone();
    vm.add_method(&set, "update", |vm, args, _| {
        let s = this(vm, args, "set")?;
        let mut table = s.table.borrow().clone();
        for other in &args[1..] {
            if !matches!(other, Value::Set(o) if Rc::ptr_eq(o, &s)) {
                update_table(vm, &mut table, other)?;
            }
        }
        *vm.table_mut(&s.table)? = table;
        Ok(Value::None)
    });
    vm.add_method(&set, "intersection_update", |vm, args, _| {
        intersection(vm, args, true)
    });
    vm.add_method(&set, "difference_update", |vm, args, _| {
        difference(vm, args, true)
    });
    vm.add_method(&set, "symmetric_difference_update", |vm, args, _| {
        symmetric_difference(vm, args, true)
    });
}
