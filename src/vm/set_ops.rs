//! The set algebra on values: `set | set` and friends (with a result of the left operand's
//! type), their in-place forms, and the operators, comparisons and `isdisjoint` of
//! `dict_keys`/`dict_items` views, over the runtime library's tables
//! (`common::set_table`) with `__eq__`/`__hash__` called through the VM. Filling a table
//! from any iterable is here too, for the operators and for `set`'s methods
//! (`builtins/set_type.rs`). Mirrors `Objects/setobject.c`'s number methods and
//! `Objects/dictobject.c`'s `dictviews_*`.

use crate::compile::bytecode::{BinaryOperator, CompareOperator};

use super::object::{DictViewKind, ObjectKind};
use super::value::{PySet, SetTable, Value};
use super::{PyResult, Vm};

/// `set(iterable)` the way `set_update_internal` fills an empty table: a set is merged, a
/// dict's keys are added after one up-front resize, anything else is added item by item.
pub fn table_from(vm: &mut Vm, iterable: &Value) -> PyResult<SetTable> {
    let mut table = SetTable::new();
    update_table(vm, &mut table, iterable)?;
    Ok(table)
}

/// `set_update_internal(table, other)`.
pub fn update_table(vm: &mut Vm, table: &mut SetTable, other: &Value) -> PyResult<()> {
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

/// The size of a set, a frozenset or a keys/items view (`PyAnySet_Check(v) ||
/// PyDictViewSet_Check(v)`); None for anything else.
fn set_like_len(value: &Value) -> Option<usize> {
    match value {
        Value::Set(s) => Some(s.table.borrow().len()),
        v if is_set_like_view(v) => view_len(v),
        _ => None,
    }
}

/// Whether some item of `a` is (`inside`) or is not in `b`, stopping at the first.
fn any_item(vm: &mut Vm, a: &Value, b: &Value, inside: bool) -> PyResult<bool> {
    let iter = vm.get_iter(a)?;
    while let Some(item) = vm.next(&iter)? {
        if vm.contains(b, &item)? == inside {
            return Ok(true);
        }
    }
    Ok(false)
}

/// `all_contained_in(a, b)`: every item of `a` is in `b`.
fn all_contained_in(vm: &mut Vm, a: &Value, b: &Value) -> PyResult<bool> {
    Ok(!any_item(vm, a, b, false)?)
}

/// `view op other` for a keys or items view (`dictview_richcompare`): against a set or
/// another such view, the sizes and then containment; None (NotImplemented) otherwise.
pub fn view_compare(
    vm: &mut Vm,
    op: CompareOperator,
    view: &Value,
    other: &Value,
) -> PyResult<Option<bool>> {
    let (Some(len_self), Some(len_other)) = (view_len(view), set_like_len(other)) else {
        return Ok(None);
    };
    Ok(Some(match op {
        CompareOperator::Eq => len_self == len_other && all_contained_in(vm, view, other)?,
        CompareOperator::Ne => !(len_self == len_other && all_contained_in(vm, view, other)?),
        CompareOperator::Lt => len_self < len_other && all_contained_in(vm, view, other)?,
        CompareOperator::Le => len_self <= len_other && all_contained_in(vm, view, other)?,
        CompareOperator::Gt => len_self > len_other && all_contained_in(vm, other, view)?,
        CompareOperator::Ge => len_self >= len_other && all_contained_in(vm, other, view)?,
    }))
}

/// `view.isdisjoint(other)` (`dictviews_isdisjoint`): walks the smaller operand when the
/// other is set-like, else `other`, looking each item up in the rest.
pub fn view_isdisjoint(vm: &mut Vm, view: &Value, other: &Value) -> PyResult<bool> {
    if view.is(other) {
        return Ok(view_len(view) == Some(0));
    }
    let (walked, container) = if set_like_len(other) > view_len(view) {
        (view, other)
    } else {
        (other, view)
    };
    Ok(!any_item(vm, walked, container, true)?)
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
    Ok(Value::set(table, false))
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
        return Ok(Value::set(intersect(vm, &mine, view)?, false));
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
    Ok(Value::set(table, false))
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
    Ok(Value::set(table, x.frozen))
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

/// `set_intersection(so, other)` for any iterable `other`.
pub fn intersect(vm: &mut Vm, table: &SetTable, other: &Value) -> PyResult<SetTable> {
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

/// `set_difference_update_internal(table, other)` for any iterable `other`.
pub fn subtract(vm: &mut Vm, table: &mut SetTable, other: &Value) -> PyResult<()> {
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
