//! `bytes_iterator` and `bytearray_iterator` (`Objects/bytesobject.c`, `bytearrayobject.c`):
//! `iter(b"…")` gives the bytes one int at a time. The iterator holds the object itself and
//! an index (`IterState::Seq`, stepped by `vm/iter.rs`), so a bytearray iterator sees the
//! bytearray change as it goes, as CPython's reads it live; a subclass's `__getitem__` is not
//! asked. Here are the iterator's constructor and its `__length_hint__`, `__reduce__` and
//! `__setstate__`.

use crate::vm::bytes::PyBytes;
use crate::vm::object::{IterState, KwArgs, NativeFn, ObjectKind};
use crate::vm::value::Value;
use crate::vm::{PyResult, Vm};

/// `iter(b)` of a bytes or a bytearray (or an instance of a subclass).
pub(super) fn new(vm: &mut Vm, b: &Value) -> Value {
    let class = match vm.isinstance(b, &vm.types.bytearray) {
        true => vm.types.bytearray_iterator.clone(),
        false => vm.types.bytes_iterator.clone(),
    };
    vm.new_iter(
        &class,
        IterState::Seq {
            seq: b.clone(),
            index: 0,
        },
    )
}

/// The iterator's state: its object and index, or None once it is exhausted.
fn state(vm: &Vm, v: &Value) -> PyResult<Option<(Value, usize)>> {
    let Value::Object(o) = v else {
        return Err(vm.type_error("descriptor requires a bytes iterator"));
    };
    let ObjectKind::Iter(state) = &o.kind else {
        return Err(vm.type_error("descriptor requires a bytes iterator"));
    };
    Ok(match &*state.borrow() {
        IterState::Seq { seq, index } => Some((seq.clone(), *index)),
        _ => None,
    })
}

fn len_of(seq: &Value) -> usize {
    seq.native::<PyBytes>().map_or(0, |b| b.data().len())
}

const METHODS: &[(&str, NativeFn)] = &[
    // How many bytes are left (0 once exhausted).
    ("__length_hint__", |vm, args, _| {
        let left = match state(vm, &args[0])? {
            Some((seq, index)) => len_of(&seq).saturating_sub(index),
            None => 0,
        };
        Ok(Value::Int(left as i64))
    }),
    // `(iter, (b,), index)`, or `(iter, ((),))` once exhausted.
    ("__reduce__", |vm, args, _| {
        let iter = vm.builtin("iter")?;
        Ok(match state(vm, &args[0])? {
            Some((seq, index)) => Value::tuple(vec![
                iter,
                Value::tuple(vec![seq]),
                Value::Int(index as i64),
            ]),
            None => Value::tuple(vec![iter, Value::tuple(vec![Value::tuple(vec![])])]),
        })
    }),
    // The index to go on from, kept between 0 and the length.
    ("__setstate__", set_state),
];

fn set_state(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    let index = match args.get(1) {
        Some(v @ (Value::Int(_) | Value::Bool(_))) => vm.expect_index(v)?,
        Some(v) if vm.isinstance(v, &vm.types.int) => vm.expect_index(v)?,
        _ => return Err(vm.type_error("an integer is required")),
    };
    if let Some((seq, _)) = state(vm, &args[0])?
        && let Value::Object(o) = &args[0]
        && let ObjectKind::Iter(state) = &o.kind
    {
        let index = index.clamp(0, len_of(&seq) as i64) as usize;
        *state.borrow_mut() = IterState::Seq { seq, index };
    }
    Ok(Value::None)
}

/// Installs the methods on both iterator types.
pub(super) fn install(vm: &mut Vm) {
    for ty in [
        vm.types.bytes_iterator.clone(),
        vm.types.bytearray_iterator.clone(),
    ] {
        vm.add_methods(&ty, METHODS);
    }
}
