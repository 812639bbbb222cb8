//! `bytes_iterator` and `bytearray_iterator` (`Objects/bytesobject.c`, `bytearrayobject.c`):
//! `iter(b"…")` gives the bytes one int at a time. The iterator holds the object itself and
//! an index (`IterState::Seq`, stepped by `vm/iter.rs`), so a bytearray iterator sees the
//! bytearray change as it goes, as CPython's reads it live; a subclass's `__getitem__` is not
//! asked. Here is the iterator's constructor; its `__length_hint__`, `__reduce__` and
//! `__setstate__` are every sequence iterator's (`iter_reduce.rs`).

use crate::vm::Vm;
use crate::vm::object::IterState;
use crate::vm::value::Value;

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
