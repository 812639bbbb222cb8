//! `io.BytesIO`: a binary stream over a growable buffer in memory (`Modules/_io/bytesio.c`).
//! Reads and writes at a position that may pass the end (a write there pads with zeros),
//! lines end at `b"\n"`, and every method but `__iter__` and `close` refuses a closed one.
//! The buffer is a bytearray, so that `getbuffer()` is a memoryview of it; while one is
//! alive, writes, `truncate` and `close` raise BufferError, as CPython's exports rule has it.

use std::cell::{Cell, RefMut};

use super::bytes_type::{buffer_arg, payload};
use super::io::{HintRule, optional_size, read_lines, seek_args};
use super::memoryview::{WritableBuffer, new_memoryview};
use crate::common::sizes::grow_for;
use crate::vm::args::{OrRaise, Signature};
use crate::vm::bytes::PyBytes;
use crate::vm::object::{KwArgs, Layout, NativeFn, Object, ObjectKind, PyType};
use crate::vm::types::make_type;
use crate::vm::value::Value;
use crate::vm::{PyResult, Vm};

struct BytesIo {
    /// A bytearray, which `getbuffer()`'s views show.
    buffer: Value,
    position: Cell<usize>,
    closed: Cell<bool>,
}

/// The class, for the `io` module (which sets its `__module__`).
pub fn class(vm: &mut Vm) -> std::rc::Rc<PyType> {
    let class = make_type(
        "BytesIO",
        vec![vm.types.object.clone()],
        Layout::Builtin,
        true,
    );
    vm.add_static(&class, "__new__", new);
    vm.add_methods(&class, METHODS);
    vm.add_getset(
        &class,
        "closed",
        |vm, v| Ok(Value::Bool(this(vm, std::slice::from_ref(v))?.closed.get())),
        None,
    );
    class
}

/// `BytesIO(initial_bytes=b'')`.
fn new(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    const NEW: Signature = Signature::keywords("BytesIO", "BytesIO", &["initial_bytes"], 0, 0);
    let Some(Value::Type(class)) = args.first() else {
        return Err(vm.type_error("BytesIO.__new__(X): X is not a type object"));
    };
    let slots = NEW.bind(vm, &args[1..], kw)?;
    let data = match &slots[0] {
        None | Some(Value::None) => Vec::new(),
        Some(v) => buffer_arg(vm, v)?,
    };
    let stream = BytesIo {
        buffer: vm.new_bytearray(data),
        position: Cell::new(0),
        closed: Cell::new(false),
    };
    Ok(Value::object(Object::new(
        class.clone(),
        ObjectKind::Other(Box::new(stream)),
    )))
}

fn this<'a>(vm: &Vm, args: &'a [Value]) -> PyResult<&'a BytesIo> {
    args.first()
        .and_then(|v| v.native::<BytesIo>())
        .ok_or_else(|| vm.type_error("descriptor requires a '_io.BytesIO' object"))
}

/// `self`, open: ValueError once closed.
fn open<'a>(vm: &Vm, args: &'a [Value]) -> PyResult<&'a BytesIo> {
    let stream = this(vm, args)?;
    match stream.closed.get() {
        true => Err(vm.value_error("I/O operation on closed file.")),
        false => Ok(stream),
    }
}

impl BytesIo {
    fn bytes(&self) -> &PyBytes {
        payload(&self.buffer).expect("a BytesIO's buffer is a bytearray")
    }

    /// The buffer to change: BufferError while a `getbuffer()` view shows it.
    fn data_mut(&self, vm: &Vm) -> PyResult<RefMut<'_, Vec<u8>>> {
        let bytes = self.bytes();
        if bytes.exports.get() > 0 {
            let error = vm.types.buffer_error.clone();
            let message = "Existing exports of data: object cannot be re-sized";
            return Err(vm.new_exc(&error, message));
        }
        bytes
            .data_mut()
            .ok_or_else(|| vm.value_error("BytesIO changed while in use"))
    }

    /// Up to `limit` bytes from the position on, stopping after a newline when `line`.
    fn take(&self, limit: Option<usize>, line: bool) -> Vec<u8> {
        let data = self.bytes().data();
        let start = self.position.get().min(data.len());
        let mut end = limit.map_or(data.len(), |n| start.saturating_add(n).min(data.len()));
        if line && let Some(at) = data[start..end].iter().position(|&b| b == b'\n') {
            end = start + at + 1;
        }
        self.position.set(self.position.get().max(end));
        data[start..end].to_vec()
    }
}

fn read(vm: &mut Vm, args: &[Value], line: bool) -> PyResult<Value> {
    let stream = open(vm, args)?;
    let limit = optional_size(vm, args.get(1))?;
    let chunk = stream.take(limit, line);
    Ok(vm.new_bytes(chunk))
}

/// `readinto(buffer)`: the bytes from the position on written into `buffer` (a bytearray
/// or a writable memoryview), as many as fit: how many.
fn readinto(vm: &mut Vm, args: &[Value], name: &str) -> PyResult<Value> {
    this(vm, args)?;
    let target = args.get(1).cloned().unwrap_or(Value::None);
    let Some(room) = WritableBuffer::of(vm, &target).map(|w| w.size()) else {
        return Err(vm.type_error(format!(
            "{name}() argument must be read-write bytes-like object, not {}",
            vm.type_name(&target)
        )));
    };
    let chunk = open(vm, args)?.take(Some(room), false);
    WritableBuffer::of(vm, &target).map(|w| w.write(0, &chunk));
    Ok(Value::Int(chunk.len() as i64))
}

const METHODS: &[(&str, NativeFn)] = &[
    ("getvalue", |vm, args, _| {
        let data = open(vm, args)?.bytes().data().clone();
        Ok(vm.new_bytes(data))
    }),
    // A memoryview of the buffer, written through in place.
    ("getbuffer", |vm, args, _| {
        let buffer = open(vm, args)?.buffer.clone();
        new_memoryview(vm, buffer)
    }),
    ("read", |vm, args, _| read(vm, args, false)),
    ("read1", |vm, args, _| read(vm, args, false)),
    ("readinto", |vm, args, _| readinto(vm, args, "readinto")),
    ("readinto1", |vm, args, _| readinto(vm, args, "readinto1")),
    ("readline", |vm, args, _| read(vm, args, true)),
    ("readlines", |vm, args, _| {
        let stream = open(vm, args)?;
        let hint = match args.get(1) {
            None | Some(Value::None) => None,
            Some(v @ (Value::Int(_) | Value::Bool(_))) => optional_size(vm, Some(v))?,
            Some(other) => {
                return Err(vm.type_error(format!(
                    "integer argument expected, got '{}'",
                    vm.type_name(other)
                )));
            }
        };
        read_lines(vm, hint, HintRule::Reached, |vm| {
            let line = stream.take(None, true);
            let len = line.len();
            Ok((vm.new_bytes(line), len))
        })
    }),
    ("write", |vm, args, _| {
        let stream = open(vm, args)?;
        let chunk = buffer_arg(vm, args.get(1).unwrap_or(&Value::None))?;
        write(vm, stream, &chunk)?;
        Ok(Value::Int(chunk.len() as i64))
    }),
    ("writelines", |vm, args, _| {
        let stream = open(vm, args)?;
        stream.data_mut(vm)?;
        let lines = vm.collect_iterable(args.get(1).unwrap_or(&Value::None))?;
        for line in &lines {
            write(vm, stream, &buffer_arg(vm, line)?)?;
        }
        Ok(Value::None)
    }),
    ("seek", |vm, args, _| {
        let stream = open(vm, args)?;
        let (offset, whence) = seek_args(vm, args)?;
        let base = match whence {
            0 if offset < 0 => {
                return Err(vm.value_error(format!("negative seek value {offset}")));
            }
            0 => 0,
            1 => stream.position.get() as i64,
            2 => stream.bytes().data().len() as i64,
            _ => {
                return Err(
                    vm.value_error(format!("invalid whence ({whence}, should be 0, 1 or 2)"))
                );
            }
        };
        let at = base.saturating_add(offset).max(0);
        stream.position.set(at as usize);
        Ok(Value::Int(at))
    }),
    ("tell", |vm, args, _| {
        Ok(Value::Int(open(vm, args)?.position.get() as i64))
    }),
    ("truncate", |vm, args, _| {
        let stream = open(vm, args)?;
        let size = match args.get(1) {
            None | Some(Value::None) => stream.position.get(),
            Some(v) => {
                let n = vm.expect_index(v)?;
                usize::try_from(n)
                    .map_err(|_| vm.value_error(format!("negative size value {n}")))?
            }
        };
        stream.data_mut(vm)?.truncate(size);
        Ok(Value::Int(size as i64))
    }),
    ("close", |vm, args, _| {
        let stream = this(vm, args)?;
        stream.data_mut(vm)?;
        stream.closed.set(true);
        Ok(Value::None)
    }),
    ("flush", |vm, args, _| open(vm, args).map(|_| Value::None)),
    ("readable", |vm, args, _| {
        open(vm, args).map(|_| Value::Bool(true))
    }),
    ("writable", |vm, args, _| {
        open(vm, args).map(|_| Value::Bool(true))
    }),
    ("seekable", |vm, args, _| {
        open(vm, args).map(|_| Value::Bool(true))
    }),
    ("isatty", |vm, args, _| {
        open(vm, args).map(|_| Value::Bool(false))
    }),
    // IOBase's: no file descriptor, open or closed.
    ("fileno", |vm, args, _| {
        this(vm, args)?;
        Err(super::io::unsupported(vm, "fileno"))
    }),
    ("__iter__", |vm, args, _| {
        this(vm, args)?;
        Ok(args[0].clone())
    }),
    ("__next__", |vm, args, _| {
        let line = open(vm, args)?.take(None, true);
        if line.is_empty() {
            return Err(vm.stop_iteration(Value::None));
        }
        Ok(vm.new_bytes(line))
    }),
    ("__enter__", |vm, args, _| {
        open(vm, args)?;
        Ok(args[0].clone())
    }),
    ("__exit__", |vm, args, _| {
        let stream = this(vm, args)?;
        stream.data_mut(vm)?;
        stream.closed.set(true);
        Ok(Value::None)
    }),
];

/// Writes `chunk` at the position, padding with zeros when the position is past the end
/// (MemoryError when that cannot be had).
fn write(vm: &Vm, stream: &BytesIo, chunk: &[u8]) -> PyResult<()> {
    let mut data = stream.data_mut(vm)?;
    let at = stream.position.get();
    if data.len() < at {
        let more = at - data.len();
        grow_for(&mut data, more.saturating_add(chunk.len())).or_raise(vm)?;
        data.resize(at, 0);
    }
    let overlap = (data.len() - at).min(chunk.len());
    data[at..at + overlap].copy_from_slice(&chunk[..overlap]);
    data.extend_from_slice(&chunk[overlap..]);
    stream.position.set(at + chunk.len());
    Ok(())
}
