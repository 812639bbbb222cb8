//! What the built-in iterators tell `operator.length_hint`, `pickle` and `copy` about
//! where they are: `__length_hint__` (the items left), `__reduce__` (how to rebuild the
//! iterator at that point: `iter(seq)` and the index, `iter(list_of_the_rest)`,
//! `enumerate(it, count)`, …) and `__setstate__` (the index a rebuilt one goes on from),
//! as `Objects/iterobject.c`, `listobject.c`, `tupleobject.c`, `unicodeobject.c`,
//! `bytesobject.c`, `rangeobject.c`, `dictobject.c`, `setobject.c`, `enumobject.c`,
//! `bltinmodule.c` and `odictobject.c` answer. The iterators themselves step in
//! `vm/iter.rs`; this file only reads and sets their state ([`IterState`]), so that no
//! `next` pays for it. An exhausted iterator has let its container go
//! ([`IterState::Exhausted`]): its reduction rebuilds an empty one of its kind.

use std::cell::RefCell;
use std::rc::Rc;

use crate::common::int_ops::{self, Int};
use crate::compile::bytecode::CompareOperator;
use crate::vm::bytes::PyBytes;
use crate::vm::iter::view_item;
use crate::vm::object::{IterState, KwArgs, NativeFn, ObjectKind, PyType};
use crate::vm::ops::{from_int, to_int};
use crate::vm::range::Range;
use crate::vm::types::lookup;
use crate::vm::value::Value;
use crate::vm::{PyResult, Vm};

/// The state of the built-in iterator `v` (`self` of the methods here).
fn state_of<'a>(vm: &Vm, v: &'a Value) -> PyResult<(&'a Rc<PyType>, &'a RefCell<IterState>)> {
    if let Value::Object(o) = v
        && let ObjectKind::Iter(state) = &o.kind
    {
        return Ok((&o.class, state));
    }
    Err(vm.type_error(format!(
        "descriptor requires an iterator, not '{}'",
        vm.type_name(v)
    )))
}

/// How many items a sequence iterator at byte `index` of `seq` has left, or None for a
/// sequence of the program's (the `iterator` type), whose length only `len()` knows.
fn seq_left(seq: &Value, index: usize) -> Option<usize> {
    Some(match seq {
        Value::List(l) => l.items.borrow().len().saturating_sub(index),
        Value::Tuple(t) => t.items.len().saturating_sub(index),
        // A str iterator's index counts bytes (see `builtin_next`).
        Value::Str(s) => s
            .as_str()
            .get(index..)
            .map_or(0, |rest| rest.chars().count()),
        other => other
            .native::<PyBytes>()?
            .data()
            .len()
            .saturating_sub(index),
    })
}

/// The index CPython keeps for a sequence iterator at byte `index`: characters for a str.
fn seq_position(seq: &Value, index: usize) -> usize {
    match seq {
        Value::Str(s) => s
            .as_str()
            .get(..index)
            .map_or(index, |head| head.chars().count()),
        _ => index,
    }
}

/// The items a dict or set iterator has still to give (`dictiter_len`, `setiter_len`:
/// none once the container changed size under it).
fn rest_of(state: &IterState) -> Option<Vec<Value>> {
    let mut items = Vec::new();
    match state {
        IterState::Dict {
            dict,
            pos,
            kind,
            size,
            reversed,
            ..
        } => {
            let table = dict.table.borrow();
            if table.len() != *size {
                return None;
            }
            let mut at = *pos;
            while let Some((next, e)) = table.step(at, *reversed) {
                items.push(view_item(*kind, e));
                at = next;
            }
        }
        IterState::Set { set, pos, size } => {
            let Value::Set(s) = set else {
                return Some(items);
            };
            let table = s.table.borrow();
            if table.len() != *size {
                return None;
            }
            let mut at = *pos;
            while let Some((next, key)) = table.next_from(at) {
                items.push(key.clone());
                at = next;
            }
        }
        _ => {}
    }
    Some(items)
}

/// A small range iterator's length, and the range it has left (`rangeiter_reduce`).
fn small_range_left(next: i64, stop: i64, step: i64) -> (Int, Range) {
    let (start, step) = (Int::Small(next), Int::Small(step));
    let length = Range {
        start: start.clone(),
        stop: Int::Small(stop),
        step: step.clone(),
    }
    .length();
    let stop = int_ops::add(&start, &int_ops::mul(&length, &step));
    (length, Range { start, stop, step })
}

/// `__length_hint__`: the items left, 0 once exhausted.
fn length_hint(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    let (_, state) = state_of(vm, &args[0])?;
    let state = state.borrow();
    Ok(match &*state {
        IterState::Seq { seq, index } => match seq_left(seq, *index) {
            Some(left) => Value::Int(left as i64),
            None => {
                // `iter_len`: the sequence's own length when it has one.
                let (seq, index) = (seq.clone(), *index);
                drop(state);
                let has_len = lookup(vm.type_of(&seq), &vm.names.len.clone()).is_some();
                if !has_len {
                    return Ok(Value::NotImplemented);
                }
                let len = vm.len(&seq)?;
                Value::Int(len.saturating_sub(index) as i64)
            }
        },
        IterState::Range { next, stop, step } => from_int(small_range_left(*next, *stop, *step).0),
        IterState::LongRange(long) => from_int(int_ops::sub(&long.length, &long.index)),
        IterState::Reversed { seq, index } => {
            // `reversed_len`: the position, unless the sequence shrank below it.
            let (seq, index) = (seq.clone(), *index);
            drop(state);
            let len = vm.len(&seq)?;
            Value::Int(if len < index { 0 } else { index as i64 })
        }
        other => Value::Int(rest_of(other).map_or(0, |rest| rest.len() as i64)),
    })
}

/// `__reduce__`: how pickle and copy rebuild the iterator where it is.
fn reduce(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    let (class, state) = state_of(vm, &args[0])?;
    let t = &vm.types;
    let rebuild_with_reversed =
        Rc::ptr_eq(class, &t.reversed) || Rc::ptr_eq(class, &t.list_reverseiterator);
    let (list_iter, str_iter) = (
        Rc::ptr_eq(class, &t.list_iterator) || Rc::ptr_eq(class, &t.list_reverseiterator),
        Rc::ptr_eq(class, &t.str_iterator) || Rc::ptr_eq(class, &t.str_ascii_iterator),
    );
    let (class, mut snapshot) = (class.clone(), state.borrow().clone());
    if list_iter && let IterState::Reversed { index: 0, .. } = snapshot {
        // (A list's reverse iterator at its end is an exhausted one, `index` -1.)
        snapshot = IterState::Exhausted;
    }
    let iter = match rebuild_with_reversed {
        true => Value::Type(vm.types.reversed.clone()),
        false => vm.builtin("iter")?,
    };
    let tuple = Value::tuple;
    Ok(match snapshot {
        IterState::Seq { seq, index } => {
            let at = seq_position(&seq, index);
            tuple(vec![iter, tuple(vec![seq]), Value::Int(at as i64)])
        }
        IterState::Range { next, stop, step } => {
            let range = vm.new_range(small_range_left(next, stop, step).1);
            tuple(vec![iter, tuple(vec![range]), Value::None])
        }
        IterState::LongRange(long) => {
            let start = long.range.item(&long.index);
            let left = int_ops::sub(&long.length, &long.index);
            let stop = int_ops::add(&start, &int_ops::mul(&left, &long.range.step));
            let step = long.range.step.clone();
            let range = vm.new_range(Range { start, stop, step });
            tuple(vec![iter, tuple(vec![range]), Value::None])
        }
        IterState::Reversed { seq, index } => {
            tuple(vec![iter, tuple(vec![seq]), Value::Int(index as i64 - 1)])
        }
        IterState::Enumerate { iter, count } => {
            tuple(vec![Value::Type(class), tuple(vec![iter, count])])
        }
        IterState::Zip { iters, strict } => {
            let mut reduced = vec![Value::Type(class), tuple(iters)];
            if strict {
                reduced.push(Value::Bool(true));
            }
            tuple(reduced)
        }
        IterState::Map { func, iters } => {
            let args = std::iter::once(func).chain(iters).collect();
            tuple(vec![Value::Type(class), tuple(args)])
        }
        IterState::Filter { func, iter } => {
            tuple(vec![Value::Type(class), tuple(vec![func, iter])])
        }
        IterState::Callable { func, sentinel } => tuple(vec![iter, tuple(vec![func, sentinel])]),
        IterState::Exhausted => {
            // An empty one of its kind: `iter([])`, `iter('')`, `reversed(())`, ….
            let t = &vm.types;
            let dict_or_set = [
                &t.set_iterator,
                &t.dict_keyiterator,
                &t.dict_valueiterator,
                &t.dict_itemiterator,
                &t.dict_reversekeyiterator,
                &t.dict_reversevalueiterator,
                &t.dict_reverseitemiterator,
                &t.odict_iterator,
            ]
            .into_iter()
            .any(|ty| Rc::ptr_eq(ty, &class));
            let empty = match () {
                _ if list_iter || dict_or_set => Value::list(Vec::new()),
                _ if str_iter => Value::str(""),
                _ => tuple(Vec::new()),
            };
            tuple(vec![iter, tuple(vec![empty])])
        }
        dict_or_set => {
            let Some(rest) = rest_of(&dict_or_set) else {
                let message = match dict_or_set {
                    IterState::Set { .. } => "Set changed size during iteration",
                    IterState::Dict { odict: true, .. } => "OrderedDict mutated during iteration",
                    _ => "dictionary changed size during iteration",
                };
                return Err(vm.runtime_error(message));
            };
            tuple(vec![iter, tuple(vec![Value::list(rest)])])
        }
    })
}

/// `PyLong_AsSsize_t` of a `__setstate__` argument: an int (no `__index__`), in range.
fn ssize_state(vm: &mut Vm, v: &Value) -> PyResult<i64> {
    if !vm.isinstance(v, &vm.types.int.clone()) {
        return Err(vm.type_error("an integer is required"));
    }
    vm.expect_ssize(v)
}

/// `__setstate__`: where a rebuilt iterator goes on from, clamped to its sequence (a zip's
/// is whether it is strict).
fn set_state(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    let [this, state_arg] = args else {
        return Err(vm.type_error(format!(
            "expected 1 argument, got {}",
            args.len().saturating_sub(1)
        )));
    };
    let (class, state) = state_of(vm, this)?;
    let snapshot = state.borrow().clone();
    let new = match snapshot {
        IterState::Seq { seq, .. } => {
            let at = ssize_state(vm, state_arg)?;
            if at < 0 && matches!(seq, Value::List(_)) {
                // `listiter_setstate`: -1 is its exhausted state.
                *state.borrow_mut() = IterState::Exhausted;
                return Ok(Value::None);
            }
            let at = at.max(0) as usize;
            let index = match &seq {
                // A str's index counts bytes: the `at`th character's.
                Value::Str(s) => {
                    let text = s.as_str();
                    text.char_indices().nth(at).map_or(text.len(), |(i, _)| i)
                }
                // (`iter_setstate` does not clamp at the end of a program's sequence.)
                other => seq_left(other, 0).map_or(at, |len| at.min(len)),
            };
            IterState::Seq { seq, index }
        }
        IterState::Reversed { seq, .. } => {
            let at = ssize_state(vm, state_arg)?;
            let len = vm.len(&seq)? as i64;
            let index = (at.clamp(-1, len - 1) + 1) as usize;
            IterState::Reversed { seq, index }
        }
        IterState::Range { next, stop, step } => {
            let at = long_state(vm, state_arg)?;
            let left = small_range_left(next, stop, step).0.as_i64().unwrap_or(0);
            let at = at.clamp(0, left);
            let next = next.saturating_add(at.saturating_mul(step));
            IterState::Range { next, stop, step }
        }
        IterState::LongRange(mut long) => {
            let at = big_state(vm, state_arg)?;
            let left = int_ops::sub(&long.length, &long.index);
            let at = match () {
                _ if at < Int::Small(0) => Int::Small(0),
                _ if at > left => left,
                _ => at,
            };
            long.index = int_ops::add(&long.index, &at);
            IterState::LongRange(long)
        }
        IterState::Zip { iters, .. } if Rc::ptr_eq(class, &vm.types.zip) => {
            let strict = vm.truthy(state_arg)?;
            IterState::Zip { iters, strict }
        }
        IterState::Exhausted => {
            if !Rc::ptr_eq(class, &vm.types.zip) {
                ssize_state(vm, state_arg)?;
            }
            return Ok(Value::None);
        }
        _ => return Ok(Value::None),
    };
    *state.borrow_mut() = new;
    Ok(Value::None)
}

/// `PyLong_AsLong` of a range iterator's state (`__index__` asked).
fn long_state(vm: &mut Vm, v: &Value) -> PyResult<i64> {
    if let Value::BigInt(_) = v {
        return Err(vm.overflow_error("Python int too large to convert to C long"));
    }
    vm.expect_index(v)
}

/// A long range iterator's state, compared with 0 first as `longrangeiter_setstate` does
/// (so a str is the comparison's TypeError).
fn big_state(vm: &mut Vm, v: &Value) -> PyResult<Int> {
    vm.compare(CompareOperator::Lt, v, &Value::Int(0))?;
    match to_int(v) {
        Some(n) => Ok(n),
        None => vm.expect_index(v).map(Int::Small),
    }
}

/// A type's methods, by name.
type MethodTable = &'static [(&'static str, NativeFn)];

const SEQUENCE: &[(&str, NativeFn)] = &[
    ("__length_hint__", length_hint),
    ("__reduce__", reduce),
    ("__setstate__", set_state),
];

const COLLECTION: &[(&str, NativeFn)] = &[("__length_hint__", length_hint), ("__reduce__", reduce)];

const REDUCE_ONLY: &[(&str, NativeFn)] = &[("__reduce__", reduce)];

const ZIP: &[(&str, NativeFn)] = &[("__reduce__", reduce), ("__setstate__", set_state)];

/// Puts the methods on each iterator type, as CPython's method tables have them.
pub(super) fn init(vm: &mut Vm) {
    let t = &vm.types;
    let tables: [(Vec<Rc<PyType>>, MethodTable); 4] = [
        (
            vec![
                t.list_iterator.clone(),
                t.list_reverseiterator.clone(),
                t.tuple_iterator.clone(),
                t.str_ascii_iterator.clone(),
                t.str_iterator.clone(),
                t.bytes_iterator.clone(),
                t.bytearray_iterator.clone(),
                t.range_iterator.clone(),
                t.longrange_iterator.clone(),
                t.reversed.clone(),
                t.seq_iterator.clone(),
            ],
            SEQUENCE,
        ),
        (
            vec![
                t.set_iterator.clone(),
                t.dict_keyiterator.clone(),
                t.dict_valueiterator.clone(),
                t.dict_itemiterator.clone(),
                t.dict_reversekeyiterator.clone(),
                t.dict_reversevalueiterator.clone(),
                t.dict_reverseitemiterator.clone(),
            ],
            COLLECTION,
        ),
        (
            vec![
                t.odict_iterator.clone(),
                t.enumerate.clone(),
                t.map.clone(),
                t.filter.clone(),
                t.callable_iterator.clone(),
            ],
            REDUCE_ONLY,
        ),
        (vec![t.zip.clone()], ZIP),
    ];
    for (types, methods) in tables {
        for ty in types {
            vm.add_methods(&ty, methods);
        }
    }
}
