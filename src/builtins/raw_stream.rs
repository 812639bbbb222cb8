//! The raw stream under a buffered binary file (`binary_file.rs`): the host file `open()`
//! opened, read and written with direct calls as CPython's `FileIO` does, or any object of
//! the program's (`io.BufferedReader(io.BytesIO(…))`, a subclass of `io.RawIOBase`), used
//! through its methods as `Modules/_io/bufferedio.c` uses them: `readinto` with a writable
//! memoryview, `write` with a read-only one, `seek`, `tell`, `readall`, and so on. Each
//! operation borrows the slot only around host calls, never across a call into Python.

use std::cell::RefCell;
use std::fs::File;
use std::io::{Read, Write};

use super::bytes_type::{bytes_of, payload};
use super::memoryview::new_memoryview;
use crate::vm::value::Value;
use crate::vm::{Exc, PyResult, Vm};

/// What a buffered file reads and writes through.
enum Slot {
    /// Made by `__new__`, before `__init__` has run.
    Uninitialized,
    /// A host file (None once closed), with the name and mode `open()` shows.
    File {
        file: Option<File>,
        name: Value,
        mode: String,
    },
    /// A raw stream object of the program's.
    Stream(Value),
    /// After `detach()`.
    Detached,
}

/// The raw stream of one buffered file.
pub(super) struct RawStream(RefCell<Slot>);

/// The raw stream of an operation: the host file is used in place, a stream object is
/// called with the slot's borrow released.
enum Target {
    File,
    Stream(Value),
}

impl RawStream {
    pub(super) fn uninitialized() -> Self {
        Self(RefCell::new(Slot::Uninitialized))
    }

    pub(super) fn file(file: File, name: Value, mode: String) -> Self {
        Self(RefCell::new(Slot::File {
            file: Some(file),
            name,
            mode,
        }))
    }

    /// Attaches a stream object (`__init__`).
    pub(super) fn attach(&self, stream: Value) {
        *self.0.borrow_mut() = Slot::Stream(stream);
    }

    /// The stream object, ValueError when detached or not yet initialized.
    fn target(&self, vm: &Vm) -> PyResult<Target> {
        match &*self.0.borrow() {
            Slot::File { .. } => Ok(Target::File),
            Slot::Stream(stream) => Ok(Target::Stream(stream.clone())),
            Slot::Uninitialized => Err(vm.value_error("I/O operation on uninitialized object")),
            Slot::Detached => Err(vm.value_error("raw stream has been detached")),
        }
    }

    /// Ok when the file may be used (attached), as `CHECK_INITIALIZED` says.
    pub(super) fn check(&self, vm: &Vm) -> PyResult<()> {
        self.target(vm).map(|_| ())
    }

    /// Runs `op` on the open host file (`FileIO`'s closed message otherwise).
    fn with_file<T>(
        &self,
        vm: &mut Vm,
        op: impl FnOnce(&mut File) -> std::io::Result<T>,
    ) -> PyResult<T> {
        let result = match &mut *self.0.borrow_mut() {
            Slot::File {
                file: Some(file), ..
            } => op(file),
            _ => return Err(vm.value_error("I/O operation on closed file")),
        };
        result.map_err(|e| vm.os_error(&e, None))
    }

    /// Writes `data` to a host file, as a dropped file does with what is pending.
    pub(super) fn write_all_to_file(&self, data: &[u8]) -> std::io::Result<()> {
        match &mut *self.0.borrow_mut() {
            Slot::File {
                file: Some(file), ..
            } => file.write_all(data),
            _ => Ok(()),
        }
    }

    /// `raw`: the stream object (a host file has none that apy shows).
    pub(super) fn object(&self, vm: &Vm) -> PyResult<Value> {
        match self.target(vm)? {
            Target::Stream(stream) => Ok(stream),
            Target::File => Err(vm.attribute_error(
                "apy's binary files from open() read and write the file directly: they have \
                 no raw FileIO under them",
            )),
        }
    }

    /// `detach()`'s end: the stream object, which the file no longer uses.
    pub(super) fn detach(&self, vm: &Vm) -> PyResult<Value> {
        let stream = self.object(vm)?;
        *self.0.borrow_mut() = Slot::Detached;
        Ok(stream)
    }

    /// `closed`.
    pub(super) fn closed(&self, vm: &mut Vm) -> PyResult<bool> {
        match self.target(vm)? {
            Target::File => Ok(matches!(&*self.0.borrow(), Slot::File { file: None, .. })),
            Target::Stream(stream) => {
                let key = vm.intern("closed");
                let closed = vm.get_attr(&stream, &key)?;
                vm.truthy(&closed)
            }
        }
    }

    /// `name` or `mode`: the host file's, or the stream's attribute.
    pub(super) fn attribute(&self, vm: &mut Vm, name: &str) -> PyResult<Value> {
        match self.target(vm)? {
            Target::File => match &*self.0.borrow() {
                Slot::File { name: n, .. } if name == "name" => Ok(n.clone()),
                Slot::File { mode, .. } => Ok(Value::str(mode.as_str())),
                _ => Ok(Value::None),
            },
            Target::Stream(stream) => {
                let key = vm.intern(name);
                vm.get_attr(&stream, &key)
            }
        }
    }

    /// A method of the stream called with no arguments (`readable`, `flush`, `fileno`, …);
    /// for a host file, `file_answer` gives what FileIO's method would (None: closed).
    pub(super) fn ask(
        &self,
        vm: &mut Vm,
        name: &str,
        file_answer: impl FnOnce(&mut Vm, Option<&File>) -> PyResult<Value>,
    ) -> PyResult<Value> {
        match self.target(vm)? {
            Target::File => {
                let slot = self.0.borrow();
                let file = match &*slot {
                    Slot::File { file, .. } => file.as_ref(),
                    _ => None,
                };
                file_answer(vm, file)
            }
            Target::Stream(stream) => vm.call_method(&stream, name, &[]),
        }
    }

    /// Closes the host file, or calls the stream's `close()`.
    pub(super) fn close(&self, vm: &mut Vm) -> PyResult<()> {
        match self.target(vm)? {
            Target::File => {
                if let Slot::File { file, .. } = &mut *self.0.borrow_mut() {
                    *file = None;
                }
                Ok(())
            }
            Target::Stream(stream) => vm.call_method(&stream, "close", &[]).map(|_| ()),
        }
    }

    /// Reads up to `len` bytes (`readinto` with a memoryview of a bytearray of that size);
    /// None when the stream would block.
    pub(super) fn readinto(&self, vm: &mut Vm, len: usize) -> PyResult<Option<Vec<u8>>> {
        let stream = match self.target(vm)? {
            Target::File => {
                return self.with_file(vm, |file| {
                    let mut chunk = vec![0; len];
                    let n = file.read(&mut chunk)?;
                    chunk.truncate(n);
                    Ok(Some(chunk))
                });
            }
            Target::Stream(stream) => stream,
        };
        let buffer = vm.new_bytearray(vec![0; len]);
        let view = new_memoryview(vm, buffer.clone())?;
        let answer = vm.call_method(&stream, "readinto", &[view])?;
        if matches!(answer, Value::None) {
            return Ok(None);
        }
        let n = vm.expect_index(&answer)?;
        let Some(n) = usize::try_from(n).ok().filter(|&n| n <= len) else {
            let message = format!(
                "raw readinto() returned invalid length {n} (should have been between 0 and \
                 {len})"
            );
            return Err(os_error(vm, message));
        };
        let data = payload(&buffer).map_or_else(Vec::new, |b| b.data().clone());
        Ok(Some(data[..n.min(data.len())].to_vec()))
    }

    /// The rest of the stream: its `readall()`, or `read()` until it ends when it has no
    /// `readall`; None when it would block before anything was read.
    pub(super) fn readall(&self, vm: &mut Vm) -> PyResult<Option<Vec<u8>>> {
        let stream = match self.target(vm)? {
            Target::File => {
                return self.with_file(vm, |file| {
                    let mut rest = Vec::new();
                    file.read_to_end(&mut rest)?;
                    Ok(Some(rest))
                });
            }
            Target::Stream(stream) => stream,
        };
        let key = vm.intern("readall");
        if let Some(readall) = vm.get_attr_opt(&stream, &key)? {
            let data = vm.call(&readall, &[], &[])?;
            return match data {
                Value::None => Ok(None),
                data => match payload(&data).filter(|_| vm.isinstance(&data, &vm.types.bytes)) {
                    Some(b) => Ok(Some(b.data().clone())),
                    None => Err(vm.type_error("readall() should return bytes")),
                },
            };
        }
        let mut rest = Vec::new();
        loop {
            let data = vm.call_method(&stream, "read", &[])?;
            let chunk = match &data {
                Value::None if rest.is_empty() => return Ok(None),
                Value::None => break,
                data => match payload(data).filter(|_| vm.isinstance(data, &vm.types.bytes)) {
                    Some(b) => b.data().clone(),
                    None => return Err(vm.type_error("read() should return bytes")),
                },
            };
            if chunk.is_empty() {
                break;
            }
            rest.extend(chunk);
        }
        Ok(Some(rest))
    }

    /// Writes some of `data` (`write` with a read-only memoryview of it): how much was
    /// written; None when the stream would block.
    pub(super) fn write(&self, vm: &mut Vm, data: &[u8]) -> PyResult<Option<usize>> {
        let stream = match self.target(vm)? {
            Target::File => return self.with_file(vm, |file| file.write(data).map(Some)),
            Target::Stream(stream) => stream,
        };
        let bytes = vm.new_bytes(data.to_vec());
        let view = new_memoryview(vm, bytes)?;
        let answer = vm.call_method(&stream, "write", &[view])?;
        if matches!(answer, Value::None) {
            return Ok(None);
        }
        let n = vm.expect_index(&answer)?;
        match usize::try_from(n).ok().filter(|&n| n <= data.len()) {
            Some(n) => Ok(Some(n)),
            None => {
                let message = format!(
                    "raw write() returned invalid length {n} (should have been between 0 and \
                     {})",
                    data.len()
                );
                Err(os_error(vm, message))
            }
        }
    }

    /// `seek(offset, whence)`: where the stream now is.
    pub(super) fn seek(&self, vm: &mut Vm, offset: i64, whence: i64) -> PyResult<i64> {
        let at = match self.target(vm)? {
            Target::File => {
                let whence = i32::try_from(whence).unwrap_or(-1);
                let at = self.with_file(vm, |file| lseek(file, offset, whence))?;
                return Ok(at);
            }
            Target::Stream(stream) => {
                let args = [Value::Int(offset), Value::Int(whence)];
                vm.call_method(&stream, "seek", &args)?
            }
        };
        position(vm, &at)
    }

    /// `tell()`: where the stream is.
    pub(super) fn tell(&self, vm: &mut Vm) -> PyResult<i64> {
        let at = match self.target(vm)? {
            Target::File => return self.with_file(vm, |file| lseek(file, 0, 1)),
            Target::Stream(stream) => vm.call_method(&stream, "tell", &[])?,
        };
        position(vm, &at)
    }

    /// `truncate(size)`: the host file cut or grown to `size` (None: where it is), or the
    /// stream's `truncate`.
    pub(super) fn truncate(&self, vm: &mut Vm, size: Value) -> PyResult<Value> {
        match self.target(vm)? {
            Target::File => {
                let size = match size {
                    Value::None => self.with_file(vm, |file| lseek(file, 0, 1))?,
                    size => vm.expect_index(&size)?,
                };
                let Ok(len) = u64::try_from(size) else {
                    let error = std::io::Error::from_raw_os_error(crate::vm::os_errors::EINVAL);
                    return Err(vm.os_error(&error, None));
                };
                self.with_file(vm, |file| file.set_len(len))?;
                Ok(Value::Int(size))
            }
            Target::Stream(stream) => vm.call_method(&stream, "truncate", &[size]),
        }
    }
}

/// A position a stream gave, which must be an integer of at least 0.
fn position(vm: &mut Vm, at: &Value) -> PyResult<i64> {
    let at = vm.expect_index(at)?;
    if at < 0 {
        return Err(os_error(
            vm,
            format!("Raw stream returned invalid position {at}"),
        ));
    }
    Ok(at)
}

/// A plain OSError with a message (no errno).
fn os_error(vm: &Vm, message: String) -> Exc {
    vm.new_exc(&vm.types.os_error, message)
}

/// The bytes of a `write()` argument, or CPython's TypeError.
pub(super) fn data_arg(vm: &Vm, v: Option<&Value>) -> PyResult<Vec<u8>> {
    match v.map(|v| (v, bytes_of(v))) {
        Some((_, Some(b))) => Ok(b),
        Some((other, None)) => Err(vm.type_error(format!(
            "a bytes-like object is required, not '{}'",
            vm.type_name(other)
        ))),
        None => Err(vm.type_error("write() takes exactly one argument (0 given)")),
    }
}

/// `lseek(2)` on the file's descriptor.
#[cfg(not(target_arch = "wasm32"))]
fn lseek(file: &File, offset: i64, whence: i32) -> std::io::Result<i64> {
    use std::os::fd::AsRawFd;
    crate::common::process::lseek(file.as_raw_fd(), offset, whence)
}

/// A page has no file descriptors to seek on (src/web.rs).
#[cfg(target_arch = "wasm32")]
fn lseek(_: &File, _: i64, _: i32) -> std::io::Result<i64> {
    Err(std::io::ErrorKind::Unsupported.into())
}
