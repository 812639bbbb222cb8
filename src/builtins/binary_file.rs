//! Binary files: what `open()` returns for a mode with `b` — `io.BufferedReader` (`rb`),
//! `io.BufferedWriter` (`wb`, `ab`, `xb`) and `io.BufferedRandom` (a mode with `+`)
//! (`Modules/_io/bufferedio.c`). Reads and writes `bytes` with real, blocking calls on the
//! host file (opened by `io.rs`'s `open()` after `vm::sandbox`'s gate), buffered as CPython
//! buffers them: reads come in chunks of the file's block size (`st_blksize`, what
//! `read1()` shows), writes wait until 8 KiB are pending, a seek, a read or `close()`; a
//! write after a read goes where reading stopped.

use std::cell::RefCell;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};
#[cfg(not(target_arch = "wasm32"))]
use std::os::fd::AsRawFd;
use std::rc::Rc;

use super::bytes_type::bytes_of;
use super::io::{HintRule, fileno, optional_size, read_lines, seek_args, size_arg, unsupported};
use crate::vm::dict::StrKeys;
use crate::vm::object::{KwArgs, Layout, Object, ObjectKind, PyType};
use crate::vm::types::make_type;
use crate::vm::value::Value;
use crate::vm::{PyResult, Vm};

/// CPython's buffer size (`io.DEFAULT_BUFFER_SIZE`).
const BUFFER_SIZE: usize = 8192;

/// The three classes, by what the file may do.
pub const CLASSES: [&str; 3] = ["BufferedReader", "BufferedWriter", "BufferedRandom"];

/// The class for a file that reads and/or writes.
pub fn class_name(readable: bool, writable: bool) -> &'static str {
    match (readable, writable) {
        (true, true) => CLASSES[2],
        (true, false) => CLASSES[0],
        _ => CLASSES[1],
    }
}

/// An open binary file: the host file, bytes read ahead of the position (`ahead`, of which
/// `consumed` are read; `start` is the file offset `ahead` begins at) and bytes written and
/// not yet flushed (`pending`, to go at `start`). One of `ahead` and `pending` is empty.
struct State {
    file: Option<File>,
    ahead: Vec<u8>,
    consumed: usize,
    start: u64,
    pending: Vec<u8>,
}

impl State {
    /// Forgets the bytes read ahead (all consumed): the file's position is past them.
    fn drop_ahead(&mut self) {
        self.start += self.ahead.len() as u64;
        self.ahead.clear();
        self.consumed = 0;
    }
}

pub struct BinaryFile {
    name: Value,
    mode: String,
    readable: bool,
    writable: bool,
    /// How much a read from the file asks for: its block size, as CPython's buffer.
    chunk: usize,
    state: RefCell<State>,
}

impl Drop for BinaryFile {
    /// A file dropped unclosed writes out what is pending, as CPython's finalizer does.
    fn drop(&mut self) {
        let state = self.state.get_mut();
        if let Some(file) = state.file.as_mut() {
            let _ = file.write_all(&state.pending);
        }
    }
}

/// The classes for `io`'s namespace, with their methods and attributes.
pub fn classes(vm: &mut Vm) -> Vec<(&'static str, Value)> {
    CLASSES
        .iter()
        .map(|name| {
            let class = make_type(name, vec![vm.types.object.clone()], Layout::Builtin, true);
            let key = vm.names.module.clone();
            class.dict.borrow_mut().set_str(key, Value::str("_io"));
            for (method, f) in METHODS {
                vm.add_method(&class, method, *f);
            }
            vm.add_getset(
                &class,
                "closed",
                |vm, v| Ok(Value::Bool(this(vm, v)?.state.borrow().file.is_none())),
                None,
            );
            vm.add_getset(&class, "name", |vm, v| Ok(this(vm, v)?.name.clone()), None);
            vm.add_getset(
                &class,
                "mode",
                |vm, v| Ok(Value::str(this(vm, v)?.mode.as_str())),
                None,
            );
            (*name, Value::Type(class))
        })
        .collect()
}

/// The block size of the file (`st_blksize`), which CPython's buffers take.
#[cfg(unix)]
fn block_size(file: &File) -> usize {
    use std::os::unix::fs::MetadataExt;
    match file.metadata() {
        Ok(meta) if meta.blksize() > 1 => meta.blksize() as usize,
        _ => BUFFER_SIZE,
    }
}

#[cfg(not(unix))]
fn block_size(_: &File) -> usize {
    BUFFER_SIZE
}

/// Wraps an opened host file; `mode` as CPython shows it (`rb`, `wb`, `ab`, `xb`, `rb+`,
/// `ab+`, …); `start` is where the file is positioned.
pub fn new(
    vm: &mut Vm,
    class: Rc<PyType>,
    name: Value,
    mode: String,
    (readable, writable): (bool, bool),
    file: File,
    start: u64,
) -> Value {
    vm.ready_bytes();
    let binary = BinaryFile {
        name,
        mode,
        readable,
        writable,
        chunk: block_size(&file),
        state: RefCell::new(State {
            file: Some(file),
            ahead: Vec::new(),
            consumed: 0,
            start,
            pending: Vec::new(),
        }),
    };
    Value::object(Object::new(class, ObjectKind::Other(Box::new(binary))))
}

/// `lseek(2)` on the file's descriptor (-1 when closed: EBADF).
#[cfg(not(target_arch = "wasm32"))]
fn lseek(file: Option<&File>, offset: i64, whence: i32) -> std::io::Result<u64> {
    let fd = file.map_or(-1, |f| f.as_raw_fd());
    // SAFETY: lseek on a descriptor this file owns; an invalid whence is EINVAL.
    let moved = unsafe { libc::lseek(fd, offset, whence) };
    if moved < 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(moved as u64)
}

/// A page has no file descriptors to seek on (src/web.rs).
#[cfg(target_arch = "wasm32")]
fn lseek(_: Option<&File>, _: i64, _: i32) -> std::io::Result<u64> {
    Err(std::io::ErrorKind::Unsupported.into())
}

fn this<'a>(vm: &Vm, v: &'a Value) -> PyResult<&'a BinaryFile> {
    v.native::<BinaryFile>()
        .ok_or_else(|| vm.type_error("descriptor requires a '_io.BufferedReader' object"))
}

impl BinaryFile {
    /// The file, open; else ValueError with `message`.
    fn check_open(&self, vm: &Vm, message: &str) -> PyResult<()> {
        match self.state.borrow().file {
            Some(_) => Ok(()),
            None => Err(vm.value_error(message)),
        }
    }

    /// Writes out the pending bytes.
    fn flush(&self, vm: &mut Vm) -> PyResult<()> {
        let mut state = self.state.borrow_mut();
        if state.pending.is_empty() {
            return Ok(());
        }
        let pending = std::mem::take(&mut state.pending);
        let written = match state.file.as_mut() {
            Some(file) => file.write_all(&pending),
            None => Ok(()),
        };
        state.start += pending.len() as u64;
        drop(state);
        written.map_err(|e| vm.os_error(&e, None))
    }

    /// Makes the bytes read ahead hold `enough` of them (or the rest of the file).
    fn fill(&self, vm: &mut Vm, what: &str, enough: impl Fn(&[u8]) -> bool) -> PyResult<()> {
        if !self.readable {
            return Err(unsupported(vm, "read"));
        }
        self.check_open(vm, &format!("{what} of closed file"))?;
        self.flush(vm)?;
        let mut state = self.state.borrow_mut();
        while !enough(&state.ahead[state.consumed..]) {
            if state.consumed == state.ahead.len() {
                state.drop_ahead();
            }
            let State { file, ahead, .. } = &mut *state;
            let had = ahead.len();
            ahead.resize(had + self.chunk, 0);
            let read = file.as_mut().map_or(Ok(0), |f| f.read(&mut ahead[had..]));
            let n = read.as_ref().map_or(0, |n| *n);
            ahead.truncate(had + n);
            match read {
                Ok(0) => break,
                Ok(_) => {}
                Err(e) => {
                    drop(state);
                    return Err(vm.os_error(&e, None));
                }
            }
        }
        Ok(())
    }

    /// Takes `len` bytes (at most what is read ahead).
    fn take(&self, len: usize) -> Vec<u8> {
        let mut state = self.state.borrow_mut();
        let from = state.consumed;
        let to = from.saturating_add(len).min(state.ahead.len());
        state.consumed = to;
        state.ahead[from..to].to_vec()
    }

    fn read(&self, vm: &mut Vm, size: Option<usize>) -> PyResult<Vec<u8>> {
        let want = size.unwrap_or(usize::MAX);
        self.fill(vm, "read", |rest| rest.len() >= want)?;
        Ok(self.take(want))
    }

    /// `read1(size=-1)`: at most `size` of the bytes read ahead; with none, what one read
    /// of the file gives, of `size` bytes or (-1) a chunk.
    fn read1(&self, vm: &mut Vm, size: Option<usize>) -> PyResult<Vec<u8>> {
        // The checks and the flush of a read, reading nothing.
        self.fill(vm, "read", |_| true)?;
        let mut state = self.state.borrow_mut();
        if state.consumed < state.ahead.len() || size == Some(0) {
            drop(state);
            return Ok(self.take(size.unwrap_or(usize::MAX)));
        }
        state.drop_ahead();
        let State { file, start, .. } = &mut *state;
        let Some(file) = file.as_mut() else {
            return Ok(Vec::new());
        };
        let mut chunk = vec![0; size.unwrap_or(self.chunk)];
        match file.read(&mut chunk) {
            Ok(n) => {
                chunk.truncate(n);
                *start += n as u64;
                Ok(chunk)
            }
            Err(e) => {
                drop(state);
                Err(vm.os_error(&e, None))
            }
        }
    }

    fn readline(&self, vm: &mut Vm, size: Option<usize>) -> PyResult<Vec<u8>> {
        let limit = size.unwrap_or(usize::MAX);
        self.fill(vm, "readline", |rest| {
            rest.len() >= limit || rest.contains(&b'\n')
        })?;
        let end = {
            let state = self.state.borrow();
            let rest = &state.ahead[state.consumed..];
            rest.iter()
                .position(|&b| b == b'\n')
                .map_or(rest.len(), |i| i + 1)
        };
        Ok(self.take(end.min(limit)))
    }

    /// The position the program sees.
    fn tell(&self) -> u64 {
        let state = self.state.borrow();
        state.start + (state.consumed + state.pending.len()) as u64
    }

    fn write(&self, vm: &mut Vm, data: &[u8]) -> PyResult<()> {
        if !self.writable {
            return Err(unsupported(vm, "write"));
        }
        self.check_open(vm, "write to closed file")?;
        let mut state = self.state.borrow_mut();
        if !state.ahead.is_empty() {
            // A write after a read goes where the reading stopped.
            let at = state.start + state.consumed as u64;
            if let Some(file) = state.file.as_mut()
                && let Err(e) = file.seek(SeekFrom::Start(at))
            {
                drop(state);
                return Err(vm.os_error(&e, None));
            }
            state.start = at;
            state.ahead.clear();
            state.consumed = 0;
        }
        state.pending.extend_from_slice(data);
        let full = state.pending.len() >= BUFFER_SIZE;
        drop(state);
        if full { self.flush(vm) } else { Ok(()) }
    }

    /// `lseek` as CPython's buffered files call it: a relative seek from the position
    /// the program sees; whence values past 2 (`SEEK_DATA`, …) go to the host as they are.
    fn seek(&self, vm: &mut Vm, offset: i64, whence: i64) -> PyResult<u64> {
        self.check_open(vm, "seek of closed file")?;
        let at = self.tell() as i64;
        self.flush(vm)?;
        let mut state = self.state.borrow_mut();
        state.ahead.clear();
        state.consumed = 0;
        let (offset, whence) = match whence {
            1 => (at.saturating_add(offset), 0),
            _ => (offset, whence),
        };
        let whence = i32::try_from(whence).unwrap_or(-1);
        match lseek(state.file.as_ref(), offset, whence) {
            Ok(moved) => {
                state.start = moved;
                Ok(moved)
            }
            Err(error) => {
                drop(state);
                Err(vm.os_error(&error, None))
            }
        }
    }

    /// `truncate(size=None)`: the file cut (or grown) to `size` bytes, by default where
    /// the program is, after the pending bytes are written; the position stays. The size.
    fn truncate(&self, vm: &mut Vm, size: Option<i64>) -> PyResult<i64> {
        if !self.writable {
            return Err(unsupported(vm, "truncate"));
        }
        self.check_open(vm, "truncate of closed file")?;
        let at = self.tell() as i64;
        // As a seek to where the program is: what is pending is written, what was read
        // ahead (and may be cut off) forgotten.
        self.seek(vm, at, 0)?;
        let size = size.unwrap_or(at);
        let result = match (self.state.borrow().file.as_ref(), u64::try_from(size)) {
            (Some(file), Ok(len)) => file.set_len(len),
            _ => Err(std::io::Error::from_raw_os_error(
                crate::vm::os_errors::EINVAL,
            )),
        };
        result.map_err(|e| vm.os_error(&e, None))?;
        Ok(size)
    }

    fn close(&self, vm: &mut Vm) -> PyResult<()> {
        if self.state.borrow().file.is_none() {
            return Ok(());
        }
        let flushed = self.flush(vm);
        self.state.borrow_mut().file = None;
        flushed
    }
}

/// The bytes of a `write()` argument.
fn data_arg(vm: &Vm, v: Option<&Value>) -> PyResult<Vec<u8>> {
    match v.map(|v| (v, bytes_of(v))) {
        Some((_, Some(b))) => Ok(b),
        Some((other, None)) => Err(vm.type_error(format!(
            "a bytes-like object is required, not '{}'",
            vm.type_name(other)
        ))),
        None => Err(vm.type_error("write() takes exactly one argument (0 given)")),
    }
}

type Method = fn(&mut Vm, &[Value], &KwArgs) -> PyResult<Value>;

const METHODS: &[(&str, Method)] = &[
    ("read", |vm, args, _| {
        let f = this(vm, &args[0])?;
        let size = size_arg(vm, args.get(1))?;
        let data = f.read(vm, size)?;
        Ok(vm.new_bytes(data))
    }),
    ("read1", |vm, args, _| {
        let f = this(vm, &args[0])?;
        if !f.readable {
            return Err(unsupported(vm, "read1"));
        }
        let size = size_arg(vm, args.get(1))?;
        let data = f.read1(vm, size)?;
        Ok(vm.new_bytes(data))
    }),
    ("readline", |vm, args, _| {
        let f = this(vm, &args[0])?;
        let size = size_arg(vm, args.get(1))?;
        let line = f.readline(vm, size)?;
        Ok(vm.new_bytes(line))
    }),
    ("readlines", |vm, args, _| {
        let f = this(vm, &args[0])?;
        if f.readable {
            f.check_open(vm, "I/O operation on closed file.")?;
        }
        let hint = optional_size(vm, args.get(1))?;
        read_lines(vm, hint, HintRule::Exceeded, |vm| {
            let line = f.readline(vm, None)?;
            let len = line.len();
            Ok((vm.new_bytes(line), len))
        })
    }),
    ("write", |vm, args, _| {
        let f = this(vm, &args[0])?;
        let data = data_arg(vm, args.get(1))?;
        f.write(vm, &data)?;
        Ok(Value::Int(data.len() as i64))
    }),
    ("writelines", |vm, args, _| {
        let f = this(vm, &args[0])?;
        f.check_open(vm, "I/O operation on closed file.")?;
        let lines = vm.collect_iterable(args.get(1).unwrap_or(&Value::None))?;
        for line in &lines {
            let data = data_arg(vm, Some(line))?;
            f.write(vm, &data)?;
        }
        Ok(Value::None)
    }),
    ("flush", |vm, args, _| {
        let f = this(vm, &args[0])?;
        let message = match f.writable {
            true => "flush of closed file",
            false => "I/O operation on closed file.",
        };
        f.check_open(vm, message)?;
        f.flush(vm)?;
        Ok(Value::None)
    }),
    ("close", |vm, args, _| {
        this(vm, &args[0])?.close(vm)?;
        Ok(Value::None)
    }),
    ("tell", |vm, args, _| {
        let f = this(vm, &args[0])?;
        f.check_open(vm, "I/O operation on closed file")?;
        Ok(Value::Int(f.tell() as i64))
    }),
    ("seek", |vm, args, _| {
        let f = this(vm, &args[0])?;
        let (offset, whence) = seek_args(vm, args)?;
        f.seek(vm, offset, whence).map(|at| Value::Int(at as i64))
    }),
    ("truncate", |vm, args, _| {
        let f = this(vm, &args[0])?;
        let size = match args.get(1) {
            None | Some(Value::None) => None,
            Some(v) => Some(vm.expect_index(v)?),
        };
        f.truncate(vm, size).map(Value::Int)
    }),
    ("fileno", |vm, args, _| {
        let f = this(vm, &args[0])?;
        let state = f.state.borrow();
        fileno(vm, state.file.as_ref(), "I/O operation on closed file")
    }),
    ("readable", |vm, args, _| {
        let f = this(vm, &args[0])?;
        if f.readable {
            f.check_open(vm, "I/O operation on closed file")?;
        }
        Ok(Value::Bool(f.readable))
    }),
    ("writable", |vm, args, _| {
        let f = this(vm, &args[0])?;
        if f.writable {
            f.check_open(vm, "I/O operation on closed file")?;
        }
        Ok(Value::Bool(f.writable))
    }),
    ("seekable", |vm, args, _| {
        let f = this(vm, &args[0])?;
        f.check_open(vm, "I/O operation on closed file")?;
        Ok(Value::Bool(true))
    }),
    ("__iter__", |vm, args, _| {
        this(vm, &args[0])?.check_open(vm, "I/O operation on closed file.")?;
        Ok(args[0].clone())
    }),
    ("__next__", |vm, args, _| {
        let line = this(vm, &args[0])?.readline(vm, None)?;
        if line.is_empty() {
            return Err(vm.stop_iteration(Value::None));
        }
        Ok(vm.new_bytes(line))
    }),
    ("__enter__", |vm, args, _| {
        this(vm, &args[0])?.check_open(vm, "I/O operation on closed file.")?;
        Ok(args[0].clone())
    }),
    ("__exit__", |vm, args, _| {
        this(vm, &args[0])?.close(vm)?;
        Ok(Value::None)
    }),
    ("__repr__", |vm, args, _| {
        let f = this(vm, &args[0])?;
        let name = vm.repr(&f.name)?;
        let class = vm.type_name(&args[0]);
        Ok(Value::str(format!("<_io.{class} name={name}>")))
    }),
];
