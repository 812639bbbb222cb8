//! `memoryview` over the buffers apy has, `bytes` and `bytearray` (CPython's
//! `Objects/memoryobject.c` for the one-dimensional format `'B'`): a window (start, step,
//! length) onto the exporter's bytes, read and written in place, sliced without copying,
//! released by `release()` or a `with` block. While a view is alive the bytearray under it
//! cannot change size (`BufferError`), as CPython's exports rule has it, so a window never
//! points past the end of its buffer.
//!
//! Any function that takes a bytes-like object takes a view too: `bytes_type::bytes_of`
//! copies the bytes it shows. The methods are installed on the first `memoryview(…)`, so an
//! interpreter that never makes one pays only for the type's name at start-up.

use std::cell::Cell;
use std::rc::Rc;

use super::bytes_type::{bytes_of, hex_method, payload};
use crate::compile::bytecode::CompareOperator;
use crate::vm::args::check_arity;
use crate::vm::bytes::PyBytes;
use crate::vm::object::{KwArgs, Layout, Object, ObjectKind, PyType};
use crate::vm::types::make_type;
use crate::vm::value::{Value, text_hash};
use crate::vm::{PyResult, Vm};

/// A view of `len` bytes of `exporter` (a bytes or bytearray), `step` apart from `start`.
pub struct MemoryView {
    exporter: Value,
    start: usize,
    step: isize,
    len: usize,
    readonly: bool,
    released: Cell<bool>,
}

impl MemoryView {
    fn buffer(&self) -> &PyBytes {
        payload(&self.exporter).expect("a memoryview's exporter is a bytes or bytearray")
    }

    /// The index in the exporter's buffer of the view's item `i` (< len).
    fn position(&self, i: usize) -> usize {
        (self.start as isize + i as isize * self.step) as usize
    }

    /// A copy of the bytes the view shows.
    pub fn to_vec(&self) -> Vec<u8> {
        let data = self.buffer().data();
        (0..self.len).map(|i| data[self.position(i)]).collect()
    }

    /// Ends the export: the bytearray may change size again.
    fn release(&self) {
        if !self.released.replace(true) {
            let exports = &self.buffer().exports;
            exports.set(exports.get() - 1);
        }
    }
}

impl Drop for MemoryView {
    fn drop(&mut self) {
        self.release();
    }
}

/// Where a read-write bytes-like argument (`recv_into`'s, `pack_into`'s) is written: all of a
/// bytearray, or the bytes a writable memoryview shows.
pub struct WritableBuffer<'a> {
    buffer: &'a PyBytes,
    start: usize,
    step: isize,
    len: usize,
}

impl WritableBuffer<'_> {
    /// `v` as a buffer to write into, unless it is not a bytearray or a writable, unreleased
    /// view.
    pub fn of<'a>(vm: &Vm, v: &'a Value) -> Option<WritableBuffer<'a>> {
        if let Some(view) = v.native::<MemoryView>() {
            let (start, step, len) = (view.start, view.step, view.len);
            return (!view.readonly && !view.released.get()).then(|| WritableBuffer {
                buffer: view.buffer(),
                start,
                step,
                len,
            });
        }
        let buffer = payload(v).filter(|_| vm.isinstance(v, &vm.types.bytearray))?;
        let len = buffer.data().len();
        Some(WritableBuffer {
            buffer,
            start: 0,
            step: 1,
            len,
        })
    }

    /// How many bytes may be written.
    pub fn size(&self) -> usize {
        self.len
    }

    /// Writes `bytes` from the window's item `offset` on; false (nothing written) when they
    /// do not fit any more (a bytearray that shrank) or the buffer is being read.
    pub fn write(&self, offset: usize, bytes: &[u8]) -> bool {
        let Some(mut data) = self.buffer.data_mut() else {
            return false;
        };
        if offset + bytes.len() > self.len.min(data.len()) {
            return false;
        }
        for (k, &b) in bytes.iter().enumerate() {
            data[(self.start as isize + (offset + k) as isize * self.step) as usize] = b;
        }
        true
    }
}

/// The `memoryview` type, with only its constructor until the first view is made.
pub fn memoryview_type(vm: &mut Vm) -> Rc<PyType> {
    let object = vm.types.object.clone();
    // Not `builtin` in apy's sense: its dunders are found by lookup, like a class's.
    let ty = make_type("memoryview", vec![object], Layout::Builtin, false);
    vm.add_static(&ty, "__new__", memoryview_new);
    vm.lazy_methods.push((ty.clone(), install_methods));
    ty
}

/// `memoryview(source)`, as the program's `memoryview` would make it.
pub fn new_memoryview(vm: &mut Vm, source: Value) -> PyResult<Value> {
    let memoryview = vm.builtin("memoryview")?;
    vm.call(&memoryview, &[source], &[])
}

/// `memoryview(object)`.
fn memoryview_new(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let Some((Value::Type(ty), rest)) = args.split_first() else {
        return Err(vm.type_error("memoryview.__new__(X): X is not a type object"));
    };
    let source = match (rest, kw) {
        ([source], []) => source.clone(),
        ([], [(name, source)]) if name.as_str() == "object" => source.clone(),
        _ => {
            let given = rest.len() + kw.len();
            return Err(vm.type_error(format!(
                "memoryview() takes exactly one argument ({given} given)"
            )));
        }
    };
    vm.ready_methods(ty);
    if let Some(view) = source.native::<MemoryView>() {
        let view = alive(vm, view)?;
        let (start, step, len) = (view.start, view.step, view.len);
        let (exporter, readonly) = (view.exporter.clone(), view.readonly);
        return Ok(new_view(ty, exporter, start, step, len, readonly));
    }
    let Some(buffer) = payload(&source) else {
        return Err(vm.type_error(format!(
            "memoryview: a bytes-like object is required, not '{}'",
            vm.type_name(&source)
        )));
    };
    let len = buffer.data().len();
    let readonly = !vm.isinstance(&source, &vm.types.bytearray);
    Ok(new_view(ty, source, 0, 1, len, readonly))
}

/// A view, counted as an export of its buffer.
fn new_view(
    ty: &Rc<PyType>,
    exporter: Value,
    start: usize,
    step: isize,
    len: usize,
    readonly: bool,
) -> Value {
    let exports = &payload(&exporter).expect("a bytes or bytearray").exports;
    exports.set(exports.get() + 1);
    Value::object(Object::new(
        ty.clone(),
        ObjectKind::Other(Box::new(MemoryView {
            exporter,
            start,
            step,
            len,
            readonly,
            released: Cell::new(false),
        })),
    ))
}

/// The view a method was called on, unless it was released.
fn this<'a>(vm: &Vm, args: &'a [Value]) -> PyResult<&'a MemoryView> {
    let view = args
        .first()
        .and_then(|v| v.native::<MemoryView>())
        .ok_or_else(|| vm.type_error("descriptor requires a 'memoryview' object"))?;
    alive(vm, view)
}

fn alive<'a>(vm: &Vm, view: &'a MemoryView) -> PyResult<&'a MemoryView> {
    match view.released.get() {
        true => Err(vm.value_error("operation forbidden on released memoryview object")),
        false => Ok(view),
    }
}

fn install_methods(vm: &mut Vm, ty: &Rc<PyType>) {
    vm.set_type_attr(ty, "__hash__", Value::None);
    vm.add_methods(ty, METHODS);
    let getters: [(&'static str, crate::vm::object::Getter); 12] = [
        ("obj", |vm, v| Ok(view_of(vm, v)?.exporter.clone())),
        ("nbytes", |vm, v| Ok(Value::Int(view_of(vm, v)?.len as i64))),
        ("readonly", |vm, v| {
            Ok(Value::Bool(view_of(vm, v)?.readonly))
        }),
        ("itemsize", |vm, v| view_of(vm, v).map(|_| Value::Int(1))),
        ("format", |vm, v| view_of(vm, v).map(|_| Value::str("B"))),
        ("ndim", |vm, v| view_of(vm, v).map(|_| Value::Int(1))),
        ("shape", |vm, v| {
            let len = view_of(vm, v)?.len as i64;
            Ok(Value::tuple(vec![Value::Int(len)]))
        }),
        ("strides", |vm, v| {
            let step = view_of(vm, v)?.step as i64;
            Ok(Value::tuple(vec![Value::Int(step)]))
        }),
        ("suboffsets", |vm, v| {
            view_of(vm, v).map(|_| Value::tuple(vec![]))
        }),
        ("c_contiguous", |vm, v| contiguous(view_of(vm, v)?)),
        ("f_contiguous", |vm, v| contiguous(view_of(vm, v)?)),
        ("contiguous", |vm, v| contiguous(view_of(vm, v)?)),
    ];
    for (name, get) in getters {
        vm.add_getset(ty, name, get, None);
    }
}

fn view_of<'a>(vm: &Vm, v: &'a Value) -> PyResult<&'a MemoryView> {
    this(vm, std::slice::from_ref(v))
}

fn contiguous(view: &MemoryView) -> PyResult<Value> {
    Ok(Value::Bool(view.step == 1 || view.len <= 1))
}

const METHODS: &[(&str, crate::vm::object::NativeFn)] = &[
    ("__len__", |vm, args, _| {
        Ok(Value::Int(this(vm, args)?.len as i64))
    }),
    ("__getitem__", getitem),
    ("__setitem__", setitem),
    ("__delitem__", |vm, args, _| {
        this(vm, args)?;
        Err(vm.type_error("cannot delete memory"))
    }),
    ("__iter__", |vm, args, _| {
        let items = this(vm, args)?.to_vec();
        let list = Value::list(items.into_iter().map(|b| Value::Int(b as i64)).collect());
        vm.get_iter(&list)
    }),
    ("__eq__", |vm, args, _| {
        compare(vm, args, CompareOperator::Eq)
    }),
    ("__ne__", |vm, args, _| {
        compare(vm, args, CompareOperator::Ne)
    }),
    ("__hash__", |vm, args, _| {
        let view = this(vm, args)?;
        if !view.readonly {
            return Err(vm.value_error("cannot hash writable memoryview object"));
        }
        Ok(Value::Int(text_hash(&view.to_vec())))
    }),
    ("__repr__", |_, args, _| {
        let Some(v) = args.first() else {
            return Ok(Value::None);
        };
        let released = v.native::<MemoryView>().is_some_and(|m| m.released.get());
        let what = if released {
            "released memory"
        } else {
            "memory"
        };
        Ok(Value::str(format!("<{what} at {:#x}>", v.address())))
    }),
    ("__enter__", |vm, args, _| {
        this(vm, args)?;
        Ok(args[0].clone())
    }),
    ("__exit__", |vm, args, _| {
        this(vm, args)?.release();
        Ok(Value::None)
    }),
    ("release", |vm, args, _| {
        check_arity(vm, "release", &args[1..], 0, 0)?;
        if let Some(view) = args[0].native::<MemoryView>() {
            view.release();
        }
        Ok(Value::None)
    }),
    ("tobytes", |vm, args, _| {
        let data = this(vm, args)?.to_vec();
        Ok(vm.new_bytes(data))
    }),
    ("tolist", |vm, args, _| {
        let items = this(vm, args)?.to_vec();
        Ok(Value::list(
            items.into_iter().map(|b| Value::Int(b as i64)).collect(),
        ))
    }),
    ("hex", |vm, args, kw| {
        let data = this(vm, args)?.to_vec();
        hex_method(vm, &data, &args[1..], kw)
    }),
    ("toreadonly", |vm, args, _| {
        let view = this(vm, args)?;
        let (exporter, start, step, len) = (view.exporter.clone(), view.start, view.step, view.len);
        let ty = vm.type_of(&args[0]).clone();
        Ok(new_view(&ty, exporter, start, step, len, true))
    }),
];

/// `view[i]` (an int) or `view[i:j:k]` (a view of the same buffer).
fn getitem(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    check_arity(vm, "__getitem__", &args[1..], 1, 1)?;
    let view = this(vm, args)?;
    let (len, key) = (view.len, args[1].clone());
    if let Value::Object(o) = &key
        && let ObjectKind::Slice { start, stop, step } = &o.kind
    {
        let (from, _, by, count) = vm.slice_indices(len, start, stop, step)?;
        let view = this(vm, args)?;
        let start = if count == 0 {
            view.start
        } else {
            view.position(from as usize)
        };
        let step = view.step * by as isize;
        let (exporter, readonly) = (view.exporter.clone(), view.readonly);
        let ty = vm.type_of(&args[0]).clone();
        return Ok(new_view(&ty, exporter, start, step, count, readonly));
    }
    let i = item_index(vm, &key, len)?;
    let view = this(vm, args)?;
    let byte = view.buffer().data()[view.position(i)];
    Ok(Value::Int(byte as i64))
}

/// `view[i] = byte` or `view[i:j:k] = bytes_like` of the same length, into the buffer.
fn setitem(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    check_arity(vm, "__setitem__", &args[1..], 2, 2)?;
    let view = this(vm, args)?;
    if view.readonly {
        return Err(vm.type_error("cannot modify read-only memory"));
    }
    let (len, key, value) = (view.len, args[1].clone(), args[2].clone());
    let writes: Vec<(usize, u8)> = if let Value::Object(o) = &key
        && let ObjectKind::Slice { start, stop, step } = &o.kind
    {
        let (from, _, by, count) = vm.slice_indices(len, start, stop, step)?;
        let Some(new) = bytes_of(&value) else {
            return Err(vm.type_error(format!(
                "a bytes-like object is required, not '{}'",
                vm.type_name(&value)
            )));
        };
        if new.len() != count {
            return Err(vm.value_error(
                "memoryview assignment: lvalue and rvalue have different structures",
            ));
        }
        let view = this(vm, args)?;
        (0..count)
            .map(|k| view.position((from + k as i64 * by) as usize))
            .zip(new)
            .collect()
    } else {
        let i = item_index(vm, &key, len)?;
        let byte = match value {
            Value::Int(n) => u8::try_from(n)
                .map_err(|_| vm.value_error("memoryview: invalid value for format 'B'"))?,
            Value::Bool(b) => b as u8,
            Value::BigInt(_) => {
                return Err(vm.value_error("memoryview: invalid value for format 'B'"));
            }
            _ => return Err(vm.type_error("memoryview: invalid type for format 'B'")),
        };
        vec![(this(vm, args)?.position(i), byte)]
    };
    let view = this(vm, args)?;
    let Some(mut data) = view.buffer().data_mut() else {
        return Err(vm.value_error("bytearray changed while in use"));
    };
    for (at, byte) in writes {
        data[at] = byte;
    }
    Ok(Value::None)
}

/// The item an integer key names, counted from the end when negative.
fn item_index(vm: &mut Vm, key: &Value, len: usize) -> PyResult<usize> {
    let Some(i) = vm.sequence_index(key)? else {
        return Err(vm.type_error("memoryview: invalid slice key"));
    };
    let i = if i < 0 { i + len as i64 } else { i };
    usize::try_from(i)
        .ok()
        .filter(|&i| i < len)
        .ok_or_else(|| vm.index_error("index out of bounds on dimension 1"))
}

/// `view == other`: the same bytes, when `other` is bytes-like; a released view equals
/// only itself.
fn compare(vm: &mut Vm, args: &[Value], op: CompareOperator) -> PyResult<Value> {
    check_arity(vm, "__eq__", &args[1..], 1, 1)?;
    let (a, b) = (&args[0], &args[1]);
    let Some(view) = a.native::<MemoryView>() else {
        return Ok(Value::NotImplemented);
    };
    let equal = if a.is(b) {
        true
    } else if view.released.get() || b.native::<MemoryView>().is_some_and(|m| m.released.get()) {
        false
    } else {
        match bytes_of(b) {
            Some(other) => view.to_vec() == other,
            None => return Ok(Value::NotImplemented),
        }
    };
    Ok(Value::Bool(equal == (op == CompareOperator::Eq)))
}
