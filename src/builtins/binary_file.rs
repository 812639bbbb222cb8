//! Buffered binary streams (`Modules/_io/bufferedio.c`): `io.BufferedReader`,
//! `io.BufferedWriter` and `io.BufferedRandom`, over the host file `open()` opened in a mode
//! with `b` (`rb`; `wb`, `ab`, `xb`; a mode with `+`) or over any raw stream object of the
//! program's (`io.BufferedReader(io.BytesIO(…))`, a subclass of `io.RawIOBase`), through
//! `raw_stream.rs`. Buffered as CPython buffers: reads come from the raw stream a buffer
//! (`buffer_size`; a file's block size for `open()`) at a time, a large read goes to the raw
//! stream directly, and writes wait in the buffer until it would overflow, a flush, a seek, a
//! read or `close()`. A write after a read goes where reading stopped.

use std::cell::RefCell;
use std::fs::File;
use std::rc::Rc;

use super::io::{
    BUFFER_SIZE, HintRule, closed_error, fileno, optional_size, read_lines, unsupported,
};
use super::memoryview::WritableBuffer;
use super::raw_stream::{RawStream, data_arg};
use crate::vm::args::Signature;
use crate::vm::dict::StrKeys;
use crate::vm::object::{KwArgs, Layout, NativeFn, Object, ObjectKind, PyType};
use crate::vm::types::make_type;
use crate::vm::value::Value;
use crate::vm::{Exc, PyResult, Vm};

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

/// The buffers: bytes read ahead (`ahead`, of which `consumed` are read; the raw stream is
/// just past them) and bytes written and not yet handed down (`pending`, to go where the
/// raw stream is). One of the two is empty.
struct Buffers {
    readable: bool,
    writable: bool,
    size: usize,
    ahead: Vec<u8>,
    consumed: usize,
    pending: Vec<u8>,
    /// Where the raw stream is, when known (`abs_pos`): a seek inside what was read ahead
    /// needs no call of the stream's.
    raw_at: Option<i64>,
}

impl Buffers {
    fn unconsumed(&self) -> usize {
        self.ahead.len() - self.consumed
    }

    fn reset_ahead(&mut self) {
        self.ahead.clear();
        self.consumed = 0;
    }

    /// Takes `len` bytes (at most what is read ahead).
    fn take(&mut self, len: usize) -> Vec<u8> {
        let from = self.consumed;
        let to = from.saturating_add(len).min(self.ahead.len());
        self.consumed = to;
        self.ahead[from..to].to_vec()
    }
}

pub struct BinaryFile {
    raw: RawStream,
    buffers: RefCell<Buffers>,
}

impl Drop for BinaryFile {
    /// A host file dropped unclosed writes out what is pending, as CPython's finalizer does.
    fn drop(&mut self) {
        let pending = std::mem::take(&mut self.buffers.get_mut().pending);
        if !pending.is_empty() {
            let _ = self.raw.write_all_to_file(&pending);
        }
    }
}

/// The classes for `io`'s namespace, with their methods and attributes.
pub fn classes(vm: &mut Vm) -> Vec<(&'static str, Value)> {
    let inits: [NativeFn; 3] = [
        |vm, args, kw| init(vm, args, kw, (true, false)),
        |vm, args, kw| init(vm, args, kw, (false, true)),
        |vm, args, kw| init(vm, args, kw, (true, true)),
    ];
    CLASSES
        .iter()
        .zip(inits)
        .map(|(name, init)| {
            let class = make_type(name, vec![vm.types.object.clone()], Layout::Builtin, true);
            let key = vm.names.module.clone();
            class.dict.borrow_mut().set_str(key, Value::str("_io"));
            vm.add_static(&class, "__new__", new_uninitialized);
            vm.add_method(&class, "__init__", init);
            vm.add_methods(&class, METHODS);
            if *name != "BufferedWriter" {
                vm.add_method(&class, "peek", peek);
            }
            class.has_del.set(true);
            vm.add_getset(
                &class,
                "closed",
                |vm, v| Ok(Value::Bool(this(vm, v)?.closed(vm)?)),
                None,
            );
            // A member in CPython: None once detached.
            vm.add_getset(
                &class,
                "raw",
                |vm, v| {
                    let f = this(vm, v)?;
                    match f.raw.check(vm) {
                        Ok(()) => f.raw.object(vm),
                        Err(_) => Ok(Value::None),
                    }
                },
                None,
            );
            vm.add_getset(
                &class,
                "name",
                |vm, v| this(vm, v)?.raw.attribute(vm, "name"),
                None,
            );
            vm.add_getset(
                &class,
                "mode",
                |vm, v| this(vm, v)?.raw.attribute(vm, "mode"),
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

fn buffers(size: usize, (readable, writable): (bool, bool), raw_at: Option<i64>) -> Buffers {
    Buffers {
        readable,
        writable,
        size,
        ahead: Vec::new(),
        consumed: 0,
        pending: Vec::new(),
        raw_at,
    }
}

/// Wraps an opened host file; `mode` as CPython shows it (`rb`, `wb`, `ab`, `xb`, `rb+`,
/// `ab+`, …); `start` is where the file is to be positioned.
pub fn new(
    vm: &mut Vm,
    class: Rc<PyType>,
    name: Value,
    mode: String,
    access: (bool, bool),
    file: File,
    start: u64,
) -> PyResult<Value> {
    vm.ready_bytes();
    let size = block_size(&file);
    let binary = BinaryFile {
        raw: RawStream::file(file, name, mode),
        buffers: RefCell::new(buffers(size, access, Some(0))),
    };
    if start > 0 {
        binary.raw_seek(vm, start as i64, 0)?;
    }
    Ok(Value::object(Object::new(
        class,
        ObjectKind::Other(Box::new(binary)),
    )))
}

/// `__new__`: a file with no raw stream yet, which `__init__` gives it (so that a subclass's
/// `__init__` may take other arguments); apy runs no `__init__` after a built-in type's
/// `__new__`, so for the classes themselves `__new__` runs it.
fn new_uninitialized(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let Some(Value::Type(class)) = args.first() else {
        return Err(vm.type_error("BufferedReader.__new__(X): X is not a type object"));
    };
    vm.ready_bytes();
    let binary = BinaryFile {
        raw: RawStream::uninitialized(),
        buffers: RefCell::new(buffers(BUFFER_SIZE, (false, false), None)),
    };
    let kind = ObjectKind::Other(Box::new(binary));
    let file = Value::object(match class.builtin {
        true => Object::new(class.clone(), kind),
        false => Object::with_dict(class.clone(), kind),
    });
    if class.builtin {
        let access = match CLASSES.iter().position(|c| **c == *class.name()) {
            Some(0) => (true, false),
            Some(1) => (false, true),
            _ => (true, true),
        };
        let mut all = vec![file.clone()];
        all.extend_from_slice(&args[1..]);
        init(vm, &all, kw, access)?;
    }
    Ok(file)
}

/// `__init__(raw, buffer_size=DEFAULT_BUFFER_SIZE)`: the raw stream checked (seekable for
/// BufferedRandom, readable and/or writable), then asked where it is.
fn init(vm: &mut Vm, args: &[Value], kw: &KwArgs, access: (bool, bool)) -> PyResult<Value> {
    let class = CLASSES[usize::from(access.1) + usize::from(access.0 && access.1)];
    let signature = Signature::keywords(class, class, &["raw", "buffer_size"], 1, 0);
    let f = this(vm, &args[0])?;
    let slots = signature.bind(vm, &args[1..], kw)?;
    let raw = slots[0].clone().unwrap_or(Value::None);
    let size = match &slots[1] {
        Some(v) => vm.expect_index(v)?,
        None => BUFFER_SIZE as i64,
    };
    if access == (true, true) {
        check_raw(vm, &raw, "seekable")?;
    }
    if access.0 {
        check_raw(vm, &raw, "readable")?;
    }
    if access.1 {
        check_raw(vm, &raw, "writable")?;
    }
    if size <= 0 {
        return Err(vm.value_error("buffer size must be strictly positive"));
    }
    f.raw.attach(raw);
    *f.buffers.borrow_mut() = buffers(size as usize, access, None);
    // As `_buffered_init`: where the stream is, if it says (an error is forgotten).
    let _ = f.raw_tell(vm);
    Ok(Value::None)
}

/// `_PyIOBase_check_readable` and its twins: the raw stream must answer True.
fn check_raw(vm: &mut Vm, raw: &Value, what: &str) -> PyResult<()> {
    let answer = vm.call_method(raw, what, &[])?;
    if matches!(answer, Value::Bool(true)) {
        return Ok(());
    }
    let able = what.trim_end_matches("able");
    Err(unsupported(
        vm,
        &format!("File or stream is not {able}able."),
    ))
}

fn this<'a>(vm: &Vm, v: &'a Value) -> PyResult<&'a BinaryFile> {
    v.native::<BinaryFile>()
        .ok_or_else(|| vm.type_error("descriptor requires a '_io.BufferedReader' object"))
}

/// The file of a method call, attached to its raw stream.
fn attached<'a>(vm: &Vm, args: &'a [Value]) -> PyResult<&'a BinaryFile> {
    let f = this(vm, &args[0])?;
    f.raw.check(vm)?;
    Ok(f)
}

/// A `buffer_size`-style size argument: None for "all" (None or negative).
fn size(vm: &mut Vm, v: Option<&Value>) -> PyResult<Option<usize>> {
    optional_size(vm, v)
}

impl BinaryFile {
    fn closed(&self, vm: &mut Vm) -> PyResult<bool> {
        self.raw.closed(vm)
    }

    /// `CHECK_CLOSED`: ValueError with `message` once the raw stream is closed, unless bytes
    /// read ahead are left to read.
    fn check_closed(&self, vm: &mut Vm, message: &str) -> PyResult<()> {
        self.raw.check(vm)?;
        if self.buffers.borrow().unconsumed() == 0 && self.closed(vm)? {
            return Err(vm.value_error(message));
        }
        Ok(())
    }

    fn check_readable(&self, vm: &mut Vm, what: &str) -> PyResult<()> {
        match self.buffers.borrow().readable {
            true => Ok(()),
            false => Err(unsupported(vm, what)),
        }
    }

    // ---- the raw stream, with where it is kept track of ----

    fn raw_read(&self, vm: &mut Vm, len: usize) -> PyResult<Option<Vec<u8>>> {
        let data = self.raw.readinto(vm, len)?;
        if let (Some(data), Some(at)) = (&data, &mut self.buffers.borrow_mut().raw_at) {
            *at += data.len() as i64;
        }
        Ok(data)
    }

    fn raw_seek(&self, vm: &mut Vm, offset: i64, whence: i64) -> PyResult<i64> {
        let at = self.raw.seek(vm, offset, whence)?;
        self.buffers.borrow_mut().raw_at = Some(at);
        Ok(at)
    }

    fn raw_tell(&self, vm: &mut Vm) -> PyResult<i64> {
        let at = self.raw.tell(vm)?;
        self.buffers.borrow_mut().raw_at = Some(at);
        Ok(at)
    }

    /// Reads once into the buffer, up to its size: how many bytes came (None: would block).
    fn fill(&self, vm: &mut Vm) -> PyResult<Option<usize>> {
        let room = {
            let b = self.buffers.borrow();
            b.size.saturating_sub(b.ahead.len()).max(1)
        };
        let data = self.raw_read(vm, room)?;
        let n = data.as_ref().map(Vec::len);
        if let Some(data) = data {
            self.buffers.borrow_mut().ahead.extend(data);
        }
        Ok(n)
    }

    // ---- writing ----

    /// `_bufferedwriter_flush_unlocked`: hands the pending bytes to the raw stream.
    fn flush_pending(&self, vm: &mut Vm) -> PyResult<()> {
        loop {
            let pending = std::mem::take(&mut self.buffers.borrow_mut().pending);
            if pending.is_empty() {
                return Ok(());
            }
            let written = self.raw.write(vm, &pending);
            let mut b = self.buffers.borrow_mut();
            let n = match written {
                Ok(Some(n)) => n,
                Ok(None) => 0,
                Err(e) => {
                    b.pending = pending;
                    return Err(e);
                }
            };
            if let Some(at) = &mut b.raw_at {
                *at += n as i64;
            }
            b.pending = pending[n..].to_vec();
            if n == 0 {
                drop(b);
                let message = "write could not complete without blocking";
                return Err(vm.new_exc(&vm.types.blocking_io_error, message));
            }
        }
    }

    /// `buffered_flush_and_rewind_unlocked`: the pending bytes written, and the raw stream
    /// moved back to where the program is when bytes were read ahead.
    fn flush_and_rewind(&self, vm: &mut Vm) -> PyResult<()> {
        self.flush_pending(vm)?;
        let (readable, back) = {
            let b = self.buffers.borrow();
            (b.readable, b.unconsumed())
        };
        if readable {
            self.buffers.borrow_mut().reset_ahead();
            self.raw_seek(vm, -(back as i64), 1)?;
        }
        Ok(())
    }

    /// Before a read goes to the raw stream: what is pending written out first.
    fn before_raw_read(&self, vm: &mut Vm) -> PyResult<()> {
        if self.buffers.borrow().pending.is_empty() {
            return Ok(());
        }
        self.flush_and_rewind(vm)
    }

    fn write(&self, vm: &mut Vm, data: &[u8]) -> PyResult<()> {
        if !self.buffers.borrow().writable {
            return Err(unsupported(vm, "write"));
        }
        self.raw.check(vm)?;
        if self.closed(vm)? {
            return Err(vm.value_error("write to closed file"));
        }
        let back = self.buffers.borrow().unconsumed();
        if !self.buffers.borrow().ahead.is_empty() {
            // A write after a read goes where the reading stopped.
            self.buffers.borrow_mut().reset_ahead();
            if back > 0 {
                self.raw_seek(vm, -(back as i64), 1)?;
            }
        }
        {
            let mut b = self.buffers.borrow_mut();
            if b.pending.len() + data.len() <= b.size && data.len() < b.size {
                b.pending.extend_from_slice(data);
                return Ok(());
            }
        }
        self.flush_pending(vm)?;
        let size = self.buffers.borrow().size;
        let mut written = 0;
        while data.len() - written >= size {
            match self.raw.write(vm, &data[written..])? {
                Some(n) if n > 0 => {
                    if let Some(at) = &mut self.buffers.borrow_mut().raw_at {
                        *at += n as i64;
                    }
                    written += n;
                }
                _ => break,
            }
        }
        self.buffers
            .borrow_mut()
            .pending
            .extend_from_slice(&data[written..]);
        Ok(())
    }

    // ---- reading ----

    /// `read(size)`: from what was read ahead when it holds enough; else the rest of it,
    /// whole buffers' worth read directly, and the last bit through the buffer.
    fn read(&self, vm: &mut Vm, size: Option<usize>) -> PyResult<Option<Vec<u8>>> {
        self.check_readable(vm, "read")?;
        self.check_closed(vm, "read of closed file")?;
        let Some(n) = size else {
            return self.read_all(vm);
        };
        let mut out = {
            let mut b = self.buffers.borrow_mut();
            if b.unconsumed() >= n {
                return Ok(Some(b.take(n)));
            }
            let out = b.take(usize::MAX);
            b.reset_ahead();
            out
        };
        self.before_raw_read(vm)?;
        let size = self.buffers.borrow().size;
        loop {
            let direct = (n - out.len()) / size * size;
            if direct == 0 {
                break;
            }
            match self.raw_read(vm, direct)? {
                None if out.is_empty() => return Ok(None),
                None => return Ok(Some(out)),
                Some(data) if data.is_empty() => return Ok(Some(out)),
                Some(data) => out.extend(data),
            }
        }
        while out.len() < n && self.buffers.borrow().ahead.len() < size {
            match self.fill(vm)? {
                None if out.is_empty() => return Ok(None),
                None | Some(0) => break,
                Some(_) => {
                    let wanted = n - out.len();
                    out.extend(self.buffers.borrow_mut().take(wanted));
                }
            }
        }
        Ok(Some(out))
    }

    /// `read()`: what was read ahead and the rest of the raw stream.
    fn read_all(&self, vm: &mut Vm) -> PyResult<Option<Vec<u8>>> {
        let mut out = {
            let mut b = self.buffers.borrow_mut();
            let out = b.take(usize::MAX);
            b.reset_ahead();
            out
        };
        self.before_raw_read(vm)?;
        match self.raw.readall(vm)? {
            Some(rest) => {
                if let Some(at) = &mut self.buffers.borrow_mut().raw_at {
                    *at += rest.len() as i64;
                }
                out.extend(rest);
                Ok(Some(out))
            }
            None if out.is_empty() => Ok(None),
            None => Ok(Some(out)),
        }
    }

    /// `read1(size=-1)`: at most `size` of the bytes read ahead; with none, what one read
    /// of the raw stream gives, of `size` bytes or (-1) a buffer's.
    fn read1(&self, vm: &mut Vm, size: Option<usize>) -> PyResult<Vec<u8>> {
        self.check_readable(vm, "read1")?;
        let n = size.unwrap_or(self.buffers.borrow().size);
        self.check_closed(vm, "read of closed file")?;
        if n == 0 {
            return Ok(Vec::new());
        }
        {
            let mut b = self.buffers.borrow_mut();
            if b.unconsumed() > 0 {
                return Ok(b.take(n));
            }
            b.reset_ahead();
        }
        self.before_raw_read(vm)?;
        Ok(self.raw_read(vm, n)?.unwrap_or_default())
    }

    /// `peek(size=0)`: the bytes read ahead, after one read of the raw stream when there
    /// were none.
    fn peek(&self, vm: &mut Vm) -> PyResult<Vec<u8>> {
        self.check_closed(vm, "peek of closed file")?;
        self.before_raw_read(vm)?;
        if self.buffers.borrow().unconsumed() == 0 {
            self.buffers.borrow_mut().reset_ahead();
            self.fill(vm)?;
        }
        let b = self.buffers.borrow();
        Ok(b.ahead[b.consumed..].to_vec())
    }

    /// `readinto(b)` / `readinto1(b)`: up to `len` bytes (`one`: at most one raw read).
    fn readinto(&self, vm: &mut Vm, len: usize, one: bool) -> PyResult<Option<Vec<u8>>> {
        self.check_readable(vm, "read")?;
        self.check_closed(vm, "readinto of closed file")?;
        let mut out = self.buffers.borrow_mut().take(len);
        if out.len() == len {
            return Ok(Some(out));
        }
        self.buffers.borrow_mut().reset_ahead();
        self.before_raw_read(vm)?;
        let size = self.buffers.borrow().size;
        while out.len() < len {
            let remaining = len - out.len();
            let got = if remaining > size {
                self.raw_read(vm, remaining)?.map(|data| {
                    let n = data.len();
                    out.extend(data);
                    n
                })
            } else if !one || out.is_empty() {
                self.buffers.borrow_mut().reset_ahead();
                let got = self.fill(vm)?;
                let data = self.buffers.borrow_mut().take(remaining);
                let n = data.len();
                out.extend(data);
                got.map(|_| n)
            } else {
                Some(0)
            };
            match got {
                None if out.is_empty() => return Ok(None),
                None | Some(0) => break,
                Some(_) if one => break,
                Some(_) => {}
            }
        }
        Ok(Some(out))
    }

    /// `readline(size=-1)`: to the first `\n`, `size` bytes or the end.
    fn readline(&self, vm: &mut Vm, limit: Option<usize>) -> PyResult<Vec<u8>> {
        self.check_readable(vm, "read")?;
        self.check_closed(vm, "readline of closed file")?;
        let limit = limit.unwrap_or(usize::MAX);
        let mut out = {
            let mut b = self.buffers.borrow_mut();
            let rest = &b.ahead[b.consumed..];
            let n = rest.len().min(limit);
            if let Some(i) = rest[..n].iter().position(|&c| c == b'\n') {
                return Ok(b.take(i + 1));
            }
            if n == limit {
                return Ok(b.take(n));
            }
            b.take(n)
        };
        self.before_raw_read(vm)?;
        while out.len() < limit {
            self.buffers.borrow_mut().reset_ahead();
            match self.fill(vm)? {
                None | Some(0) => break,
                Some(_) => {}
            }
            let mut b = self.buffers.borrow_mut();
            let n = b.ahead.len().min(limit - out.len());
            if let Some(i) = b.ahead[..n].iter().position(|&c| c == b'\n') {
                out.extend(b.take(i + 1));
                break;
            }
            out.extend(b.take(n));
        }
        Ok(out)
    }

    // ---- positioning ----

    /// `tell()`: where the raw stream is, less what was read ahead and not yet read, plus
    /// what is pending.
    fn tell(&self, vm: &mut Vm) -> PyResult<i64> {
        let at = self.raw_tell(vm)?;
        let b = self.buffers.borrow();
        let at = at - b.unconsumed() as i64 + b.pending.len() as i64;
        if at < 0 {
            drop(b);
            return Err(vm.new_exc(
                &vm.types.os_error,
                format!("Raw stream returned invalid position {at}"),
            ));
        }
        Ok(at)
    }

    /// `seek(target, whence=0)`: inside what was read ahead when it can, else a seek of the
    /// raw stream after the pending bytes are written.
    fn seek(&self, vm: &mut Vm, target: i64, whence: i64) -> PyResult<i64> {
        if !(0..=4).contains(&whence) || (cfg!(not(target_os = "linux")) && whence > 2) {
            return Err(vm.value_error(format!("whence value {whence} unsupported")));
        }
        self.check_closed(vm, "seek of closed file")?;
        let seekable = self.raw.ask(vm, "seekable", file_seekable)?;
        if !vm.truthy(&seekable)? {
            return Err(unsupported(vm, "File or stream is not seekable."));
        }
        {
            let mut b = self.buffers.borrow_mut();
            let avail = b.unconsumed() as i64;
            if let (true, true, true, Some(current)) =
                (whence != 2, b.readable, avail > 0, b.raw_at)
            {
                let offset = match whence {
                    0 => target - (current - avail),
                    _ => target,
                };
                if offset >= -(b.consumed as i64) && offset <= avail {
                    b.consumed = (b.consumed as i64 + offset) as usize;
                    return Ok(current - avail + offset);
                }
            }
        }
        if self.buffers.borrow().writable {
            self.flush_pending(vm)?;
        }
        let back = self.buffers.borrow().unconsumed() as i64;
        let target = if whence == 1 { target - back } else { target };
        let at = self.raw_seek(vm, target, whence)?;
        self.buffers.borrow_mut().reset_ahead();
        Ok(at)
    }

    /// `truncate(pos=None)`: the pending bytes written and the raw stream truncated.
    fn truncate(&self, vm: &mut Vm, pos: Value) -> PyResult<Value> {
        self.check_closed(vm, "truncate of closed file")?;
        if !self.buffers.borrow().writable {
            return Err(unsupported(vm, "truncate"));
        }
        self.flush_and_rewind(vm)?;
        let result = self.raw.truncate(vm, pos)?;
        // Where the stream now is, if it says (an error is forgotten).
        let _ = self.raw_tell(vm);
        Ok(result)
    }

    // ---- the life of the file ----

    /// `flush()`: a reader's asks its raw stream to flush; a writer's writes what is pending.
    fn flush(&self, vm: &mut Vm) -> PyResult<()> {
        self.raw.check(vm)?;
        if !self.buffers.borrow().writable {
            self.raw.ask(vm, "flush", |vm, file| match file {
                Some(_) => Ok(Value::None),
                None => Err(closed_error(vm)),
            })?;
            return Ok(());
        }
        if self.closed(vm)? {
            return Err(vm.value_error("flush of closed file"));
        }
        self.flush_and_rewind(vm)
    }

    /// `close()`: the file's `flush()` (an error in it raised after the raw stream is
    /// closed, as its context), then the raw stream's `close()`.
    fn close(&self, vm: &mut Vm, this: &Value) -> PyResult<()> {
        self.raw.check(vm)?;
        if self.closed(vm)? {
            return Ok(());
        }
        let flushed = vm.call_method(this, "flush", &[]);
        let closed = self.raw.close(vm);
        self.buffers.borrow_mut().reset_ahead();
        match (flushed, closed) {
            (Err(e), Ok(())) => Err(e),
            (Err(flush_error), Err(close_error)) => Err(chain(close_error, flush_error)),
            (Ok(_), closed) => closed,
        }
    }

    /// `detach()`: flushed, then the raw stream handed back.
    fn detach(&self, vm: &mut Vm, this: &Value) -> PyResult<Value> {
        self.raw.object(vm)?;
        vm.call_method(this, "flush", &[])?;
        self.raw.detach(vm)
    }

    /// `<_io.BufferedReader name=…>`, without the name when there is none.
    fn repr(&self, vm: &mut Vm, this: &Value) -> PyResult<String> {
        let class = vm.type_of(this).clone();
        let module = class.dict.borrow().get_str(&vm.names.module).cloned();
        let class_name = match module {
            Some(Value::Str(m)) if m.as_str() == "_io" => format!("_io.{}", class.name()),
            _ => class.name().to_string(),
        };
        let key = vm.intern("name");
        let name = match vm.get_attr(this, &key) {
            Ok(name) => name,
            Err(e)
                if vm.exc_matches(&e, &vm.types.attribute_error)
                    || vm.exc_matches(&e, &vm.types.value_error) =>
            {
                return Ok(format!("<{class_name}>"));
            }
            Err(e) => return Err(e),
        };
        Ok(format!("<{class_name} name={}>", vm.repr(&name)?))
    }
}

/// `close_error` with `flush_error` as its context (`_PyErr_ChainExceptions1`).
fn chain(close_error: Exc, flush_error: Exc) -> Exc {
    if let Some(data) = close_error.exc_data() {
        data.borrow_mut().context = Value::Object(flush_error);
    }
    close_error
}

/// FileIO's `seekable()`: whether the descriptor can seek.
fn file_seekable(vm: &mut Vm, file: Option<&File>) -> PyResult<Value> {
    match file {
        Some(file) => Ok(Value::Bool(
            std::io::Seek::stream_position(&mut &*file).is_ok(),
        )),
        None => Err(vm.value_error("I/O operation on closed file")),
    }
}

/// The bytes read, as bytes (None when the raw stream would block).
fn bytes_or_none(vm: &mut Vm, data: Option<Vec<u8>>) -> Value {
    match data {
        Some(data) => vm.new_bytes(data),
        None => Value::None,
    }
}

/// `readinto(b)` and `readinto1(b)`: the bytes read written into `b`, and how many.
fn readinto(vm: &mut Vm, args: &[Value], one: bool) -> PyResult<Value> {
    let f = attached(vm, args)?;
    let target = args.get(1).cloned().unwrap_or(Value::None);
    let Some(len) = WritableBuffer::of(vm, &target).map(|w| w.size()) else {
        let name = if one { "readinto1" } else { "readinto" };
        return Err(vm.type_error(format!(
            "{name}() argument must be read-write bytes-like object, not {}",
            vm.type_name(&target)
        )));
    };
    let Some(data) = f.readinto(vm, len, one)? else {
        return Ok(Value::None);
    };
    if !WritableBuffer::of(vm, &target).is_some_and(|w| w.write(0, &data)) {
        return Err(vm.new_exc(
            &vm.types.buffer_error,
            "Existing exports of data: object cannot be re-sized",
        ));
    }
    Ok(Value::Int(data.len() as i64))
}

fn peek(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    let f = attached(vm, args)?;
    if let Some(size) = args.get(2) {
        vm.expect_index(size)?;
    }
    let data = f.peek(vm)?;
    Ok(vm.new_bytes(data))
}

/// The file's own `readline`, or a subclass's.
fn next_line(vm: &mut Vm, this: &Value) -> PyResult<Value> {
    if CLASSES.contains(&&*vm.type_of(this).name()) {
        let line = attached(vm, std::slice::from_ref(this))?.readline(vm, None)?;
        return Ok(vm.new_bytes(line));
    }
    vm.call_method(this, "readline", &[])
}

/// IOBase's check of `__iter__`, `__enter__`, `readlines` and `writelines`.
fn check_open(vm: &mut Vm, this: &Value) -> PyResult<()> {
    let key = vm.intern("closed");
    let closed = vm.get_attr(this, &key)?;
    match vm.truthy(&closed)? {
        true => Err(closed_error(vm)),
        false => Ok(()),
    }
}

const METHODS: &[(&str, NativeFn)] = &[
    ("read", |vm, args, _| {
        let f = attached(vm, args)?;
        let size = size(vm, args.get(1))?;
        let data = f.read(vm, size)?;
        Ok(bytes_or_none(vm, data))
    }),
    ("read1", |vm, args, _| {
        let f = attached(vm, args)?;
        let size = size(vm, args.get(1))?;
        let data = f.read1(vm, size)?;
        Ok(vm.new_bytes(data))
    }),
    ("readinto", |vm, args, _| readinto(vm, args, false)),
    ("readinto1", |vm, args, _| readinto(vm, args, true)),
    ("readline", |vm, args, _| {
        let f = attached(vm, args)?;
        let size = size(vm, args.get(1))?;
        let line = f.readline(vm, size)?;
        Ok(vm.new_bytes(line))
    }),
    ("readlines", |vm, args, _| {
        attached(vm, args)?;
        check_open(vm, &args[0])?;
        let hint = optional_size(vm, args.get(1))?;
        read_lines(vm, hint, HintRule::Exceeded, |vm| {
            let line = next_line(vm, &args[0])?;
            let len = vm.len(&line)?;
            Ok((line, len))
        })
    }),
    ("write", |vm, args, _| {
        let f = attached(vm, args)?;
        let data = data_arg(vm, args.get(1))?;
        f.write(vm, &data)?;
        Ok(Value::Int(data.len() as i64))
    }),
    ("writelines", |vm, args, _| {
        let f = attached(vm, args)?;
        check_open(vm, &args[0])?;
        let lines = vm.collect_iterable(args.get(1).unwrap_or(&Value::None))?;
        for line in &lines {
            let data = data_arg(vm, Some(line))?;
            f.write(vm, &data)?;
        }
        Ok(Value::None)
    }),
    ("flush", |vm, args, _| {
        attached(vm, args)?.flush(vm)?;
        Ok(Value::None)
    }),
    ("close", |vm, args, _| {
        this(vm, &args[0])?.close(vm, &args[0])?;
        Ok(Value::None)
    }),
    ("detach", |vm, args, _| {
        this(vm, &args[0])?.detach(vm, &args[0])
    }),
    ("tell", |vm, args, _| {
        Ok(Value::Int(attached(vm, args)?.tell(vm)?))
    }),
    ("seek", |vm, args, _| {
        let f = attached(vm, args)?;
        let target = vm.expect_index(args.get(1).unwrap_or(&Value::None))?;
        let whence = match args.get(2) {
            Some(v) => vm.expect_index(v)?,
            None => 0,
        };
        f.seek(vm, target, whence).map(Value::Int)
    }),
    ("truncate", |vm, args, _| {
        let f = attached(vm, args)?;
        f.truncate(vm, args.get(1).cloned().unwrap_or(Value::None))
    }),
    ("fileno", |vm, args, _| {
        attached(vm, args)?.raw.ask(vm, "fileno", |vm, file| {
            fileno(vm, file, "I/O operation on closed file")
        })
    }),
    ("isatty", |vm, args, _| {
        attached(vm, args)?
            .raw
            .ask(vm, "isatty", |vm, file| match file {
                Some(file) => Ok(Value::Bool(std::io::IsTerminal::is_terminal(file))),
                None => Err(vm.value_error("I/O operation on closed file")),
            })
    }),
    ("readable", |vm, args, _| {
        let f = attached(vm, args)?;
        // A BufferedWriter has IOBase's, which answers False.
        if !f.buffers.borrow().readable {
            return Ok(Value::Bool(false));
        }
        f.raw.ask(vm, "readable", |vm, file| match file {
            Some(_) => Ok(Value::Bool(true)),
            None => Err(vm.value_error("I/O operation on closed file")),
        })
    }),
    ("writable", |vm, args, _| {
        let f = attached(vm, args)?;
        if !f.buffers.borrow().writable {
            return Ok(Value::Bool(false));
        }
        f.raw.ask(vm, "writable", |vm, file| match file {
            Some(_) => Ok(Value::Bool(true)),
            None => Err(vm.value_error("I/O operation on closed file")),
        })
    }),
    ("seekable", |vm, args, _| {
        attached(vm, args)?.raw.ask(vm, "seekable", file_seekable)
    }),
    ("__iter__", |vm, args, _| {
        attached(vm, args)?;
        check_open(vm, &args[0])?;
        Ok(args[0].clone())
    }),
    ("__next__", |vm, args, _| {
        let line = next_line(vm, &args[0])?;
        if vm.len(&line)? == 0 {
            return Err(vm.stop_iteration(Value::None));
        }
        Ok(line)
    }),
    ("__enter__", |vm, args, _| {
        attached(vm, args)?;
        check_open(vm, &args[0])?;
        Ok(args[0].clone())
    }),
    ("__exit__", |vm, args, _| {
        vm.call_method(&args[0], "close", &[])?;
        Ok(Value::None)
    }),
    ("__repr__", |vm, args, _| {
        let f = this(vm, &args[0])?;
        f.repr(vm, &args[0]).map(Value::str)
    }),
    // A file dropped unclosed is closed (`iobase_finalize`): what is pending written out,
    // and the raw stream closed with it.
    ("__del__", |vm, args, _| {
        let f = this(vm, &args[0])?;
        if f.raw.check(vm).is_ok() && matches!(f.closed(vm), Ok(false)) {
            vm.call_method(&args[0], "close", &[])?;
        }
        Ok(Value::None)
    }),
];
