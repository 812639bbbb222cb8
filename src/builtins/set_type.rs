//! The methods and operators of `set` and `frozenset` with CPython's algorithms, so that
//! results iterate in CPython's order: the table algebra lives in `set_table`; this module
//! binds arguments, accepts any iterable where CPython does, and calls `__eq__`/`__hash__`
//! through the VM. Mirrors `Objects/setobject.c`'s method table. Installs itself with
//! [`init`]; the VM's operators call [`binary`] and [`in_place`].

use std::rc::Rc;

use super::method_args::Signature;
use crate::compile::bytecode::BinaryOperator;

use crate::vm::object::{DictViewKind, ObjectKind};
use crate::vm::value::SetTable;
use crate::vm::value::{PySet, Value};
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

/// A new set or frozenset value holding `table`.
fn set_value(table: SetTable, frozen: bool) -> Value {
    Value::set(table, frozen)
}

/// `set(iterable)` the way `set_update_internal` fills an empty table: a set is merged, a
/// dict's keys are added after one up-front resize, anything else is added item by item.
pub fn table_from(vm: &mut Vm, iterable: &Value) -> PyResult<SetTable> {
    let mut table = SetTable::new();
    update_table(vm, &mut table, iterable)?;
    Ok(table)
}

/// `set_update_internal(table, other)`.
fn update_table(vm: &mut Vm, table: &mut SetTable, other: &Value) -> PyResult<()> {
    match other {
        Value::Set(s) => {
            let other = s.table.borrow();
            table.merge(&other, |a, b| vm.keys_equal(a, b))
        }
        Value::Dict(d) => {
            let keys: Vec<(Value, i64)> = d
                .table
                .borrow()
                .iter()
                .map(|e| (e.key.clone(), e.hash))
                .collect();
            table.reserve_for_dict(keys.len());
            for (key, hash) in keys {
                table.insert(key, hash, |a, b| vm.keys_equal(a, b))?;
            }
            Ok(())
        }
        _ => {
            for item in vm.collect_iterable(other)? {
                let hash = vm.hash(&item)?;
                table.insert(item, hash, |a, b| vm.keys_equal(a, b))?;
            }
            Ok(())
        }
    }
}

/// A `dict_keys` or `dict_items` view, which supports the set operators.
pub fn is_set_like_view(value: &Value) -> bool {
    matches!(value, Value::Object(o)
        if matches!(o.kind, ObjectKind::DictView { kind: DictViewKind::Keys | DictViewKind::Items, .. }))
}

fn view_len(value: &Value) -> Option<usize> {
    match value {
        Value::Object(o) => match &o.kind {
            ObjectKind::DictView { dict, .. } => Some(dict.table.borrow().len()),
            _ => None,
        },
        _ => None,
    }
}

/// `set(operand)` as `dictviews_to_set` builds it: a keys view goes through its dict.
fn view_to_table(vm: &mut Vm, operand: &Value) -> PyResult<SetTable> {
    if let Value::Object(o) = operand
        && let ObjectKind::DictView {
            dict,
            kind: DictViewKind::Keys,
        } = &o.kind
    {
        return table_from(vm, &Value::Dict(dict.clone()));
    }
    table_from(vm, operand)
}

/// `a | b`, `a & b`, `a - b`, `a ^ b` where one side is a dict keys/items view
/// (`dictviews_or`, `_PyDictView_Intersect`, …): always a new `set`.
pub fn view_binary(vm: &mut Vm, op: BinaryOperator, a: &Value, b: &Value) -> PyResult<Value> {
    if op == BinaryOperator::And {
        return view_intersection(vm, a, b);
    }
    let mut table = view_to_table(vm, a)?;
    match op {
        BinaryOperator::Or => update_table(vm, &mut table, b)?,
        BinaryOperator::Subtract => subtract(vm, &mut table, b)?,
        _ => {
            let toggles = match b {
                Value::Set(s) => s.table.borrow().clone(),
                other => table_from(vm, other)?,
            };
            table.symmetric_difference_update(&toggles, |p, q| vm.keys_equal(p, q))?;
        }
    }
    Ok(set_value(table, false))
}

/// `_PyDictView_Intersect`: walk the smaller operand, keep what the view contains.
fn view_intersection(vm: &mut Vm, a: &Value, b: &Value) -> PyResult<Value> {
    let (mut view, mut other) = if is_set_like_view(a) { (a, b) } else { (b, a) };
    let view_size = view_len(view).unwrap_or(0);
    if let Value::Set(s) = other
        && !s.frozen
        && view_size <= s.table.borrow().len()
    {
        let mine = s.table.borrow().clone();
        return Ok(set_value(intersect(vm, &mine, view)?, false));
    }
    if is_set_like_view(other) && view_len(other).unwrap_or(0) > view_size {
        std::mem::swap(&mut view, &mut other);
    }
    let mut table = SetTable::new();
    for item in vm.collect_iterable(other)? {
        if vm.contains(view, &item)? {
            let hash = vm.hash(&item)?;
            table.insert(item, hash, |p, q| vm.keys_equal(p, q))?;
        }
    }
    Ok(set_value(table, false))
}

/// `x | y`, `x & y`, `x - y`, `x ^ y` for two sets; the result has `x`'s type.
pub fn binary(vm: &mut Vm, op: BinaryOperator, x: &PySet, y: &PySet) -> PyResult<Value> {
    let (a, b) = (x.table.borrow(), y.table.borrow());
    let eq = |p: &Value, q: &Value| vm.keys_equal(p, q);
    let table = match op {
        BinaryOperator::Or => a.union(&b, eq)?,
        BinaryOperator::And => a.intersection(&b, eq)?,
        BinaryOperator::Subtract => a.difference(&b, eq)?,
        _ => a.symmetric_difference(&b, eq)?,
    };
    Ok(set_value(table, x.frozen))
}

/// `x |= y`, `x &= y`, `x -= y`, `x ^= y` for a set `x` and a set `y`, in place.
pub fn in_place(vm: &mut Vm, op: BinaryOperator, x: &PySet, y: &PySet) -> PyResult<()> {
    if std::ptr::eq(x, y) {
        // s |= s and s &= s change nothing; s -= s and s ^= s empty it.
        if matches!(op, BinaryOperator::Subtract | BinaryOperator::Xor) {
            let old = std::mem::take(&mut *vm.table_mut(&x.table)?);
            drop(old);
        }
        return Ok(());
    }
    let other = y.table.borrow().clone();
    let mut table = x.table.borrow().clone();
    let eq = |p: &Value, q: &Value| vm.keys_equal(p, q);
    match op {
        BinaryOperator::Or => table.merge(&other, eq)?,
        BinaryOperator::And => table.intersection_update(&other, eq)?,
        BinaryOperator::Subtract => table.difference_update(&other, eq)?,
        _ => table.symmetric_difference_update(&other, eq)?,
    }
    *vm.table_mut(&x.table)? = table;
    Ok(())
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
    Ok(set_value(table, s.frozen))
}

/// `set_intersection(so, other)` for any iterable `other`.
fn intersect(vm: &mut Vm, table: &SetTable, other: &Value) -> PyResult<SetTable> {
    if let Value::Set(o) = other {
        let o = o.table.borrow();
        return table.intersection(&o, |a, b| vm.keys_equal(a, b));
    }
    let mut result = SetTable::new();
    for item in vm.collect_iterable(other)? {
        let hash = vm.hash(&item)?;
        if table.contains(&item, hash, |a, b| vm.keys_equal(a, b))? {
            result.insert(item, hash, |a, b| vm.keys_equal(a, b))?;
            if result.len() >= table.len() {
                break;
            }
        }
    }
    Ok(result)
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
    Ok(set_value(table, s.frozen))
}

/// `set_difference_update_internal(table, other)` for any iterable `other`.
fn subtract(vm: &mut Vm, table: &mut SetTable, other: &Value) -> PyResult<()> {
    if let Value::Set(o) = other {
        let o = o.table.borrow();
        return table.difference_update(&o, |a, b| vm.keys_equal(a, b));
    }
    for item in vm.collect_iterable(other)? {
        let hash = vm.hash(&item)?;
        table.remove(&item, hash, |a, b| vm.keys_equal(a, b))?;
    }
    table.purge_dummies();
    Ok(())
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
    Ok(set_value(table, s.frozen))
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
    Ok(set_value(table, s.frozen))
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
            Ok(set_value(s.table.borrow().copy(), false))
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
