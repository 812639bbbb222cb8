//! Text files and text in memory: `open()` for text files, `io.TextIOWrapper` and
//! `io.StringIO` (`Modules/_io/textio.c`, `stringio.c`). A file is read with a real,
//! blocking read of the host file (through `vm::sandbox`'s gate) and decoded as UTF-8; lines
//! end as the `newline` argument says (universal newlines by default). Writes are buffered
//! as CPython buffers them (8 KiB), flushed by `flush()`, `seek()`, a read and `close()`.
//! Binary modes give the buffered binary files of `binary_file.rs`.

use std::cell::RefCell;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};
use std::rc::Rc;

use crate::common::chars::str_repr;
use crate::vm::args::Signature;
use crate::vm::dict::StrKeys;
use crate::vm::object::{KwArgs, Layout, Object, ObjectKind, PyType};
use crate::vm::sandbox::Capability;
use crate::vm::types::make_type;
use crate::vm::value::Value;
use crate::vm::{Exc, PyResult, Vm};

/// CPython's `io.DEFAULT_BUFFER_SIZE`: written text is kept until there is this much.
const BUFFER_SIZE: usize = 8192;

const OPEN: Signature = Signature::keywords(
    "builtins",
    "open",
    &[
        "file",
        "mode",
        "buffering",
        "encoding",
        "errors",
        "newline",
        "closefd",
        "opener",
    ],
    1,
    0,
);

/// How lines end (`newline=`): None translates `\r\n` and `\r` to `\n` on reading;
/// `''` splits at all three and translates nothing; `'\n'`, `'\r'`, `'\r\n'` split at that
/// one only, and a written `\n` becomes it.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Newline {
    Universal,
    Untranslated,
    Fixed(&'static str),
}

/// What an open text file holds besides its name and mode.
struct FileState {
    file: Option<File>,
    readable: bool,
    writable: bool,
    /// Text read ahead from the file, not translated, and how much of it was consumed;
    /// `start` is the file offset `ahead` begins at.
    ahead: String,
    consumed: usize,
    start: u64,
    /// A `utf-8-sig` file written from its start: the byte order mark goes before the
    /// first text written.
    mark_due: bool,
    /// Text written and not yet flushed to the file.
    pending: String,
}

/// An open text file (`_io.TextIOWrapper`).
pub struct TextFile {
    name: Value,
    mode: String,
    encoding: String,
    /// The encoding is `utf-8-sig`: a byte order mark at the start of the file is skipped
    /// when reading and written before the first text written there.
    signature: bool,
    newline: Newline,
    state: RefCell<FileState>,
}

impl Drop for TextFile {
    /// A file dropped unclosed writes out the text still pending, as CPython's finalizer
    /// closes it (a program that never calls close(), or the temporary of
    /// `json.dump(data, open(path, "w"))`, lost the last buffer's worth).
    fn drop(&mut self) {
        let state = self.state.get_mut();
        if let Some(file) = state.file.as_mut() {
            let _ = file.write_all(state.pending.as_bytes());
        }
    }
}

/// Text in memory (`_io.StringIO`): its text and the position, in characters.
pub struct StringIo {
    text: RefCell<String>,
    /// How many characters `text` holds, so a write at the end (every write of a `print`
    /// to it) appends without counting them again.
    chars: std::cell::Cell<usize>,
    position: std::cell::Cell<usize>,
    closed: std::cell::Cell<bool>,
}

/// The `io` module: `open`, `TextIOWrapper`, `StringIO`, `UnsupportedOperation`.
pub fn module(vm: &mut Vm) -> Value {
    let unsupported = make_type(
        "UnsupportedOperation",
        vec![vm.types.os_error.clone(), vm.types.value_error.clone()],
        Layout::Exception,
        false,
    );
    // The one class of `io` that CPython defines there rather than in `_io`.
    vm.set_type_attr(&unsupported, "__module__", Value::str("io"));
    let wrapper = make_type(
        "TextIOWrapper",
        vec![vm.types.object.clone()],
        Layout::Builtin,
        true,
    );
    set_module(vm, &wrapper);
    vm.add_methods(&wrapper, FILE_METHODS);
    vm.add_getset(
        &wrapper,
        "closed",
        |vm, v| Ok(Value::Bool(this_file(vm, v)?.state.borrow().file.is_none())),
        None,
    );
    vm.add_getset(
        &wrapper,
        "name",
        |vm, v| Ok(this_file(vm, v)?.name.clone()),
        None,
    );
    vm.add_getset(
        &wrapper,
        "mode",
        |vm, v| Ok(Value::str(this_file(vm, v)?.mode.as_str())),
        None,
    );
    vm.add_getset(
        &wrapper,
        "encoding",
        |vm, v| Ok(Value::str(this_file(vm, v)?.encoding.as_str())),
        None,
    );
    let string_io = make_type(
        "StringIO",
        vec![vm.types.object.clone()],
        Layout::Builtin,
        true,
    );
    set_module(vm, &string_io);
    vm.add_static(&string_io, "__new__", string_io_new);
    vm.add_methods(&string_io, STRING_IO_METHODS);
    vm.add_getset(
        &string_io,
        "closed",
        |vm, v| Ok(Value::Bool(this_string_io(vm, v)?.closed.get())),
        None,
    );
    let bytes_io = super::bytes_io::class(vm);
    set_module(vm, &bytes_io);
    let open = vm.native("open", builtin_open);
    let mut names = super::binary_file::classes(vm);
    names.extend([
        ("open", open),
        ("TextIOWrapper", Value::Type(wrapper)),
        ("StringIO", Value::Type(string_io)),
        ("BytesIO", Value::Type(bytes_io)),
        ("UnsupportedOperation", Value::Type(unsupported)),
        ("DEFAULT_BUFFER_SIZE", Value::Int(BUFFER_SIZE as i64)),
        ("SEEK_SET", Value::Int(0)),
        ("SEEK_CUR", Value::Int(1)),
        ("SEEK_END", Value::Int(2)),
        (
            "BlockingIOError",
            Value::Type(vm.types.blocking_io_error.clone()),
        ),
    ]);
    let lazy = vm.native("__getattr__", module_getattr);
    names.push(("__getattr__", lazy));
    vm.new_module("io", names)
}

/// The abstract classes, IOBase, RawIOBase, BufferedIOBase and TextIOBase.
const ABSTRACT_CLASSES: [&str; 4] = ["IOBase", "RawIOBase", "BufferedIOBase", "TextIOBase"];

/// The module's `__getattr__` (PEP 562): the abstract classes are written in apy
/// (`stdlib/_iobase.apy`) and loaded when one is first asked for, so that `import io`
/// costs no more than the native streams; loading registers this module's streams with
/// them and stores all four here.
fn module_getattr(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    let Some(Value::Str(name)) = args.first() else {
        return Err(vm.type_error("__getattr__ expects an attribute name"));
    };
    if !ABSTRACT_CLASSES.contains(&name.as_str()) {
        let message = format!("module 'io' has no attribute '{}'", name.as_str());
        return Err(vm.attribute_error(message));
    }
    let module = vm.import_module("io")?;
    let class = |vm: &mut Vm, name: &str| {
        let key = vm.intern(name);
        vm.get_attr(&module, &key)
    };
    let mut text = Vec::new();
    for name in ["TextIOWrapper", "StringIO"] {
        text.push(class(vm, name)?);
    }
    let mut buffered = Vec::new();
    for name in [
        "BytesIO",
        "BufferedReader",
        "BufferedWriter",
        "BufferedRandom",
    ] {
        buffered.push(class(vm, name)?);
    }
    let bases = vm.import_module("_iobase")?;
    vm.call_method(
        &bases,
        "_register",
        &[Value::tuple(text), Value::tuple(buffered)],
    )?;
    for abstract_name in ABSTRACT_CLASSES {
        let key = vm.intern(abstract_name);
        let class = vm.get_attr(&bases, &key)?;
        vm.set_attr(&module, &key, class)?;
    }
    let key = vm.intern(name.as_str());
    vm.get_attr(&module, &key)
}

fn set_module(vm: &mut Vm, ty: &Rc<PyType>) {
    let key = vm.names.module.clone();
    ty.dict.borrow_mut().set_str(key, Value::str("_io"));
}

/// A type of the `io` module (imported on first use, as CPython has it from the start).
fn io_type(vm: &mut Vm, name: &str) -> PyResult<Rc<PyType>> {
    let module = vm.import_module("io")?;
    let key = vm.intern(name);
    match vm.get_attr(&module, &key)? {
        Value::Type(t) => Ok(t),
        _ => Err(vm.runtime_error(format!("io.{name} is not a type"))),
    }
}

pub(super) fn unsupported(vm: &mut Vm, message: &str) -> Exc {
    match io_type(vm, "UnsupportedOperation") {
        Ok(class) => vm.new_exc(&class, message),
        Err(e) => e,
    }
}

fn closed_error(vm: &Vm) -> Exc {
    vm.value_error("I/O operation on closed file.")
}

/// `open(file, mode='r', buffering=-1, encoding=None, errors=None, newline=None, …)`.
pub fn builtin_open(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let slots = OPEN.bind(vm, args, kw)?;
    let arg = |i: usize| slots[i].clone().unwrap_or(Value::None);
    let name = arg(0);
    // A descriptor (a pipe's end, as subprocess opens them) or a path.
    let descriptor = match name {
        Value::Int(fd) => Some(i32::try_from(fd).unwrap_or(-1)),
        _ => None,
    };
    let path = match descriptor {
        Some(fd) => fd.to_string(),
        None => super::os::fspath_arg(vm, &name)?,
    };
    // The file's `name` is the path as `os.fspath` gives it (a str for a `Path` too).
    let name = match descriptor {
        Some(_) => name,
        None => Value::str(path.as_str()),
    };
    let mode = match arg(1) {
        Value::None => "r".to_string(),
        Value::Str(s) => s.as_str().to_string(),
        other => {
            return Err(vm.type_error(format!(
                "open() argument 'mode' must be str, not {}",
                vm.type_name(&other)
            )));
        }
    };
    let (options, readable, writable) = parse_mode(vm, &mode)?;
    if mode.contains('b') {
        for (i, what) in [(3, "an encoding"), (4, "an errors"), (5, "a newline")] {
            if !matches!(arg(i), Value::None) {
                return Err(vm.value_error(format!("binary mode doesn't take {what} argument")));
            }
        }
    }
    let encoding = match arg(3) {
        Value::None => "UTF-8".to_string(),
        Value::Str(s) => {
            let normal = s.as_str().to_ascii_lowercase().replace('_', "-");
            if !matches!(
                normal.as_str(),
                "utf-8" | "utf8" | "u8" | "utf" | "utf-8-sig"
            ) {
                return Err(vm.value_error(format!(
                    "encoding {} is outside the subset apy runs: apy reads and writes UTF-8 \
                     (and utf-8-sig)",
                    str_repr(s.as_str())
                )));
            }
            s.as_str().to_string()
        }
        other => {
            return Err(vm.type_error(format!(
                "open() argument 'encoding' must be str or None, not {}",
                vm.type_name(&other)
            )));
        }
    };
    let newline = match arg(5) {
        Value::None => Newline::Universal,
        Value::Str(s) => match s.as_str() {
            "" => Newline::Untranslated,
            "\n" => Newline::Fixed("\n"),
            "\r" => Newline::Fixed("\r"),
            "\r\n" => Newline::Fixed("\r\n"),
            other => return Err(vm.value_error(format!("illegal newline value: {other}"))),
        },
        other => {
            return Err(vm.type_error(format!(
                "open() argument 'newline' must be str or None, not {}",
                vm.type_name(&other)
            )));
        }
    };
    vm.require(Capability::Files, &path)?;
    let file = match descriptor {
        Some(fd) if fd < 0 => return Err(vm.value_error("negative file descriptor")),
        // A page has no file descriptors (src/web.rs).
        #[cfg(target_arch = "wasm32")]
        Some(_) => {
            let error = std::io::Error::from_raw_os_error(crate::vm::os_errors::EBADF);
            return Err(vm.os_error(&error, None));
        }
        // SAFETY: fcntl only asks whether the descriptor is open.
        #[cfg(not(target_arch = "wasm32"))]
        Some(fd) if unsafe { libc::fcntl(fd, libc::F_GETFD) } < 0 => {
            let error = std::io::Error::last_os_error();
            return Err(vm.os_error(&error, None));
        }
        // SAFETY: the file takes the descriptor over, as `open(fd)` does (closefd=True).
        #[cfg(not(target_arch = "wasm32"))]
        Some(fd) => unsafe { <File as std::os::fd::FromRawFd>::from_raw_fd(fd) },
        None => options
            .open(&path)
            .map_err(|e| vm.os_error(&e, Some(&path)))?,
    };
    if file.metadata().is_ok_and(|m| m.is_dir()) {
        let error = std::io::Error::from_raw_os_error(crate::vm::os_errors::EISDIR);
        return Err(vm.os_error(&error, Some(&path)));
    }
    let start = if mode.contains('a') {
        file.metadata().map_or(0, |m| m.len())
    } else {
        0
    };
    if mode.contains('b') {
        let class = super::binary_file::class_name(readable, writable);
        let class = io_type(vm, class)?;
        let kind = mode.chars().find(|c| "rwax".contains(*c)).unwrap_or('r');
        let shown = match (kind, mode.contains('+')) {
            ('w', true) | ('r', true) => "rb+".to_string(),
            (kind, plus) => format!("{kind}b{}", if plus { "+" } else { "" }),
        };
        let access = (readable, writable);
        return Ok(super::binary_file::new(
            vm, class, name, shown, access, file, start,
        ));
    }
    let class = io_type(vm, "TextIOWrapper")?;
    let signature = encoding.to_ascii_lowercase().replace('_', "-") == "utf-8-sig";
    let text_file = TextFile {
        name,
        mode,
        encoding,
        signature,
        newline,
        state: RefCell::new(FileState {
            file: Some(file),
            readable,
            writable,
            ahead: String::new(),
            consumed: 0,
            start,
            pending: String::new(),
            mark_due: signature && writable && start == 0,
        }),
    };
    Ok(Value::object(Object::new(
        class,
        ObjectKind::Other(Box::new(text_file)),
    )))
}

/// The open options for a mode (`r`, `w`, `a`, `x`, each with `+` and `t` or `b`), and
/// whether the file reads and writes.
fn parse_mode(vm: &Vm, mode: &str) -> PyResult<(std::fs::OpenOptions, bool, bool)> {
    let invalid = || vm.value_error(format!("invalid mode: '{mode}'"));
    let mut kinds = mode.chars().filter(|c| "rwax".contains(*c));
    let (Some(kind), None) = (kinds.next(), kinds.next()) else {
        return Err(if mode.chars().any(|c| "rwax".contains(c)) {
            vm.value_error("must have exactly one of create/read/write/append mode")
        } else {
            invalid()
        });
    };
    if mode.chars().any(|c| !"rwaxtb+".contains(c)) || mode.matches('+').count() > 1 {
        return Err(invalid());
    }
    if mode.contains('b') && mode.contains('t') {
        return Err(vm.value_error("can't have text and binary mode at once"));
    }
    let plus = mode.contains('+');
    let mut options = std::fs::OpenOptions::new();
    match kind {
        'r' => options.read(true).write(plus),
        'w' => options.write(true).create(true).truncate(true).read(plus),
        'a' => options.append(true).create(true).read(plus),
        _ => options.write(true).create_new(true).read(plus),
    };
    Ok((options, kind == 'r' || plus, kind != 'r' || plus))
}

fn this_file<'a>(vm: &Vm, v: &'a Value) -> PyResult<&'a TextFile> {
    v.native::<TextFile>()
        .ok_or_else(|| vm.type_error("descriptor requires a '_io.TextIOWrapper' object"))
}

type Method = fn(&mut Vm, &[Value], &KwArgs) -> PyResult<Value>;

const FILE_METHODS: &[(&str, Method)] = &[
    ("read", |vm, args, _| {
        let f = this_file(vm, &args[0])?;
        let size = size_arg(vm, args.get(1))?;
        f.read(vm, size).map(Value::str)
    }),
    ("readline", |vm, args, _| {
        let f = this_file(vm, &args[0])?;
        let size = size_arg(vm, args.get(1))?;
        f.readline(vm, size).map(Value::str)
    }),
    ("readlines", |vm, args, _| {
        let f = this_file(vm, &args[0])?;
        let mut lines = Vec::new();
        loop {
            let line = f.readline(vm, None)?;
            if line.is_empty() {
                return Ok(Value::list(lines));
            }
            lines.push(Value::str(line));
        }
    }),
    ("write", |vm, args, _| {
        let f = this_file(vm, &args[0])?;
        let text = text_arg(vm, args.get(1))?;
        f.write(vm, &text)?;
        Ok(Value::Int(text.chars().count() as i64))
    }),
    ("writelines", |vm, args, _| {
        let f = this_file(vm, &args[0])?;
        let lines = vm.collect_iterable(args.get(1).unwrap_or(&Value::None))?;
        for line in &lines {
            let text = text_arg(vm, Some(line))?;
            f.write(vm, &text)?;
        }
        Ok(Value::None)
    }),
    ("flush", |vm, args, _| {
        let f = this_file(vm, &args[0])?;
        f.open_state(vm)?;
        f.flush(vm)?;
        Ok(Value::None)
    }),
    ("close", |vm, args, _| {
        let f = this_file(vm, &args[0])?;
        if f.state.borrow().file.is_some() {
            let flushed = f.flush(vm);
            f.state.borrow_mut().file = None;
            flushed?;
        }
        Ok(Value::None)
    }),
    ("tell", |vm, args, _| {
        let f = this_file(vm, &args[0])?;
        f.open_state(vm)?;
        f.flush(vm)?;
        let state = f.state.borrow();
        Ok(Value::Int((state.start + state.consumed as u64) as i64))
    }),
    ("seek", |vm, args, _| {
        let f = this_file(vm, &args[0])?;
        let (offset, whence) = seek_args(vm, args)?;
        f.seek(vm, offset, whence).map(|at| Value::Int(at as i64))
    }),
    ("fileno", |vm, args, _| {
        let f = this_file(vm, &args[0])?;
        let state = f.state.borrow();
        fileno(vm, state.file.as_ref(), "I/O operation on closed file.")
    }),
    ("readable", |vm, args, _| {
        let f = this_file(vm, &args[0])?;
        Ok(Value::Bool(f.open_state(vm)?.0))
    }),
    ("writable", |vm, args, _| {
        let f = this_file(vm, &args[0])?;
        Ok(Value::Bool(f.open_state(vm)?.1))
    }),
    ("seekable", |vm, args, _| {
        let f = this_file(vm, &args[0])?;
        f.open_state(vm)?;
        Ok(Value::Bool(true))
    }),
    ("__iter__", |vm, args, _| {
        this_file(vm, &args[0])?.open_state(vm)?;
        Ok(args[0].clone())
    }),
    ("__next__", |vm, args, _| {
        let line = this_file(vm, &args[0])?.readline(vm, None)?;
        if line.is_empty() {
            return Err(vm.stop_iteration(Value::None));
        }
        Ok(Value::str(line))
    }),
    ("__enter__", |vm, args, _| {
        this_file(vm, &args[0])?.open_state(vm)?;
        Ok(args[0].clone())
    }),
    ("__exit__", |vm, args, kw| {
        let close = FILE_METHODS
            .iter()
            .find(|(name, _)| *name == "close")
            .map(|(_, m)| *m);
        match close {
            Some(close) => close(vm, &args[..1], kw),
            None => Ok(Value::None),
        }
    }),
    ("__repr__", |vm, args, _| {
        let f = this_file(vm, &args[0])?;
        let name = vm.repr(&f.name)?;
        Ok(Value::str(format!(
            "<_io.TextIOWrapper name={name} mode={} encoding={}>",
            str_repr(&f.mode),
            str_repr(&f.encoding)
        )))
    }),
];

/// `seek(offset, whence=0)`'s arguments.
/// `fileno()` of a text or binary file: its descriptor, or the ValueError (worded per type,
/// as CPython words it) once it is closed.
pub(super) fn fileno(vm: &mut Vm, file: Option<&File>, closed: &str) -> PyResult<Value> {
    match file {
        #[cfg(not(target_arch = "wasm32"))]
        Some(file) => Ok(Value::Int(i64::from(std::os::fd::AsRawFd::as_raw_fd(file)))),
        // A page has no file descriptors (src/web.rs).
        #[cfg(target_arch = "wasm32")]
        Some(_) => Err(vm.os_error(&std::io::Error::from(std::io::ErrorKind::Unsupported), None)),
        None => Err(vm.value_error(closed)),
    }
}

pub(super) fn seek_args(vm: &mut Vm, args: &[Value]) -> PyResult<(i64, i64)> {
    let offset = vm.expect_index(args.get(1).unwrap_or(&Value::None))?;
    let whence = match args.get(2) {
        Some(v) => vm.expect_index(v)?,
        None => 0,
    };
    Ok((offset, whence))
}

/// A size argument: None for "all" (None or negative).
pub(super) fn size_arg(vm: &mut Vm, v: Option<&Value>) -> PyResult<Option<usize>> {
    match v {
        None | Some(Value::None) => Ok(None),
        Some(v) => {
            let n = vm.expect_index(v)?;
            Ok((n >= 0).then_some(n as usize))
        }
    }
}

/// A size argument as `_Py_convert_optional_to_ssize_t` takes it (`read(size=-1, /)` of the
/// binary streams and the standard ones): "argument should be integer or None, not 'str'".
pub(super) fn optional_size(vm: &mut Vm, v: Option<&Value>) -> PyResult<Option<usize>> {
    size_arg(vm, v).map_err(|e| match v {
        Some(other) if vm.exc_matches(&e, &vm.types.type_error) => vm.type_error(format!(
            "argument should be integer or None, not '{}'",
            vm.type_name(other)
        )),
        _ => e,
    })
}

fn text_arg(vm: &Vm, v: Option<&Value>) -> PyResult<String> {
    match v {
        Some(Value::Str(s)) => Ok(s.as_str().to_string()),
        Some(other) => Err(vm.type_error(format!(
            "write() argument must be str, not {}",
            vm.type_name(other)
        ))),
        None => Err(vm.type_error("write() takes exactly one argument (0 given)")),
    }
}

/// Where a line ends in `text` under `newline`: the index just past its end, if it ends.
fn line_end(text: &str, newline: Newline, at_eof: bool) -> Option<usize> {
    match newline {
        Newline::Fixed(end) => text.find(end).map(|i| i + end.len()),
        Newline::Universal | Newline::Untranslated => {
            let i = text.find(['\n', '\r'])?;
            if &text[i..i + 1] == "\n" {
                return Some(i + 1);
            }
            match text.as_bytes().get(i + 1) {
                Some(b'\n') => Some(i + 2),
                Some(_) => Some(i + 1),
                // A `\r` last: the next read may bring its `\n`.
                None if at_eof => Some(i + 1),
                None => None,
            }
        }
    }
}

/// Text as read under `newline`: universal newlines become `\n`.
fn translate_read(text: &str, newline: Newline) -> String {
    match newline {
        Newline::Universal => text.replace("\r\n", "\n").replace('\r', "\n"),
        _ => text.to_string(),
    }
}

impl TextFile {
    /// (readable, writable) of an open file; ValueError once closed.
    fn open_state(&self, vm: &Vm) -> PyResult<(bool, bool)> {
        let state = self.state.borrow();
        match state.file {
            Some(_) => Ok((state.readable, state.writable)),
            None => Err(closed_error(vm)),
        }
    }

    fn name_text(&self) -> String {
        self.name.as_str().unwrap_or_default().to_string()
    }

    /// Writes out the text written so far.
    fn flush(&self, vm: &mut Vm) -> PyResult<()> {
        let mut state = self.state.borrow_mut();
        if state.pending.is_empty() {
            return Ok(());
        }
        let pending = std::mem::take(&mut state.pending);
        let written = match state.file.as_mut() {
            Some(file) => file.write_all(pending.as_bytes()),
            None => Ok(()),
        };
        state.start += pending.len() as u64;
        drop(state);
        written.map_err(|e| vm.os_error(&e, None))
    }

    /// Makes sure the text read ahead holds a whole line (or `want` characters), or all the
    /// rest of the file; gives whether the file has ended.
    fn fill(&self, vm: &mut Vm, want: Option<usize>, line: bool) -> PyResult<bool> {
        let (readable, _) = self.open_state(vm)?;
        if !readable {
            return Err(unsupported(vm, "not readable"));
        }
        self.flush(vm)?;
        loop {
            {
                let state = self.state.borrow();
                let rest = &state.ahead[state.consumed..];
                let enough = match want {
                    Some(n) if !line => rest.chars().count() > n,
                    _ if line => line_end(rest, self.newline, false).is_some(),
                    _ => false,
                };
                if enough {
                    return Ok(false);
                }
            }
            let mut chunk = vec![0u8; BUFFER_SIZE];
            let mut state = self.state.borrow_mut();
            let read = match state.file.as_mut() {
                Some(file) => file.read(&mut chunk),
                None => return Err(closed_error(vm)),
            };
            let n = match read {
                Ok(n) => n,
                Err(e) => {
                    drop(state);
                    return Err(vm.os_error(&e, None));
                }
            };
            if n == 0 {
                return Ok(true);
            }
            chunk.truncate(n);
            let at_start = self.signature && state.start == 0 && state.ahead.is_empty();
            if at_start && let Some(text) = chunk.strip_prefix(b"\xef\xbb\xbf") {
                chunk = text.to_vec();
                state.start = 3;
            }
            // A character cut at the chunk's end is finished by the next read.
            let mut bytes = chunk;
            loop {
                match std::str::from_utf8(&bytes) {
                    Ok(text) => {
                        state.ahead.push_str(text);
                        break;
                    }
                    Err(e) if e.error_len().is_none() => {
                        let mut more = [0u8; 1];
                        let read = state.file.as_mut().map(|f| f.read(&mut more));
                        match read {
                            Some(Ok(1)) => bytes.push(more[0]),
                            _ => {
                                return Err(decode_error(
                                    vm,
                                    bytes[e.valid_up_to()],
                                    e.valid_up_to(),
                                ));
                            }
                        }
                    }
                    Err(e) => {
                        return Err(decode_error(vm, bytes[e.valid_up_to()], e.valid_up_to()));
                    }
                }
            }
        }
    }

    /// Takes `len` bytes of the text read ahead.
    fn take(&self, len: usize) -> String {
        let mut state = self.state.borrow_mut();
        let start = state.consumed;
        state.consumed += len;
        let text = state.ahead[start..start + len].to_string();
        if state.consumed == state.ahead.len() {
            state.start += state.ahead.len() as u64;
            state.ahead.clear();
            state.consumed = 0;
        }
        text
    }

    fn read(&self, vm: &mut Vm, size: Option<usize>) -> PyResult<String> {
        self.fill(vm, Some(size.unwrap_or(usize::MAX)), false)?;
        let len = {
            let state = self.state.borrow();
            let rest = &state.ahead[state.consumed..];
            match size {
                None => rest.len(),
                Some(n) => char_prefix(rest, n, self.newline),
            }
        };
        Ok(translate_read(&self.take(len), self.newline))
    }

    fn readline(&self, vm: &mut Vm, size: Option<usize>) -> PyResult<String> {
        let at_eof = self.fill(vm, None, true)?;
        let len = {
            let state = self.state.borrow();
            let rest = &state.ahead[state.consumed..];
            let end = line_end(rest, self.newline, at_eof).unwrap_or(rest.len());
            match size {
                Some(n) => end.min(char_prefix(rest, n, self.newline)),
                None => end,
            }
        };
        Ok(translate_read(&self.take(len), self.newline))
    }

    fn write(&self, vm: &mut Vm, text: &str) -> PyResult<()> {
        let (_, writable) = self.open_state(vm)?;
        if !writable {
            return Err(unsupported(vm, "not writable"));
        }
        {
            // Text read ahead is dropped: as in CPython, the write goes where the file's
            // reading stopped, past what was read ahead (a chunk of 8 KiB).
            let mut state = self.state.borrow_mut();
            if !state.ahead.is_empty() {
                state.start += state.ahead.len() as u64;
                state.ahead.clear();
                state.consumed = 0;
            }
            if std::mem::take(&mut state.mark_due) {
                state.pending.push('\u{feff}');
            }
            match self.newline {
                Newline::Fixed(end) if end != "\n" => {
                    state.pending.push_str(&text.replace('\n', end))
                }
                _ => state.pending.push_str(text),
            }
            if state.pending.len() < BUFFER_SIZE {
                return Ok(());
            }
        }
        self.flush(vm)
    }

    fn seek(&self, vm: &mut Vm, offset: i64, whence: i64) -> PyResult<u64> {
        self.open_state(vm)?;
        self.flush(vm)?;
        let target = match whence {
            0 if offset < 0 => {
                return Err(vm.value_error(format!("negative seek position {offset}")));
            }
            0 => SeekFrom::Start(offset as u64),
            1 | 2 if offset != 0 => {
                let message = match whence {
                    1 => "can't do nonzero cur-relative seeks",
                    _ => "can't do nonzero end-relative seeks",
                };
                return Err(unsupported(vm, message));
            }
            1 => {
                let state = self.state.borrow();
                SeekFrom::Start(state.start + state.consumed as u64)
            }
            2 => SeekFrom::End(0),
            _ => {
                return Err(
                    vm.value_error(format!("invalid whence ({whence}, should be 0, 1 or 2)"))
                );
            }
        };
        let mut state = self.state.borrow_mut();
        let moved = match state.file.as_mut() {
            Some(file) => file.seek(target),
            None => return Err(closed_error(vm)),
        };
        state.ahead.clear();
        state.consumed = 0;
        match moved {
            Ok(at) => {
                state.start = at;
                state.mark_due = self.signature && state.writable && at == 0;
                Ok(at)
            }
            Err(e) => {
                drop(state);
                Err(vm.os_error(&e, Some(&self.name_text())))
            }
        }
    }
}

/// The bytes of the first `n` characters of `text` as read under `newline` (a `\r\n`
/// read as one `\n` counts once).
fn char_prefix(text: &str, n: usize, newline: Newline) -> usize {
    let mut count = 0;
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if count == n {
            return i;
        }
        count += 1;
        if c == '\r'
            && newline == Newline::Universal
            && chars.peek().is_some_and(|(_, next)| *next == '\n')
        {
            chars.next();
        }
    }
    text.len()
}

fn decode_error(vm: &Vm, byte: u8, position: usize) -> Exc {
    vm.new_exc(
        &vm.types.unicode_error.clone(),
        format!("'utf-8' codec can't decode byte 0x{byte:02x} in position {position}: invalid start byte"),
    )
}

// ---- io.StringIO ---------------------------------------------------------------------------

fn string_io_new(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    const NEW: Signature =
        Signature::keywords("StringIO", "StringIO", &["initial_value", "newline"], 0, 0);
    let Some(Value::Type(class)) = args.first() else {
        return Err(vm.type_error("StringIO.__new__(X): X is not a type object"));
    };
    let slots = NEW.bind(vm, &args[1..], kw)?;
    let initial = match slots[0].clone() {
        None | Some(Value::None) => String::new(),
        Some(Value::Str(s)) => s.as_str().to_string(),
        Some(other) => {
            return Err(vm.type_error(format!(
                "initial_value must be str or None, not {}",
                vm.type_name(&other)
            )));
        }
    };
    let string_io = StringIo {
        chars: std::cell::Cell::new(initial.chars().count()),
        text: RefCell::new(initial),
        position: std::cell::Cell::new(0),
        closed: std::cell::Cell::new(false),
    };
    Ok(Value::object(Object::new(
        class.clone(),
        ObjectKind::Other(Box::new(string_io)),
    )))
}

fn this_string_io<'a>(vm: &Vm, v: &'a Value) -> PyResult<&'a StringIo> {
    v.native::<StringIo>()
        .ok_or_else(|| vm.type_error("descriptor requires a '_io.StringIO' object"))
}

/// The open StringIO of `args[0]`. (A closed one's message has no full stop, unlike a
/// file's: `Modules/_io/stringio.c`.)
fn open_string_io<'a>(vm: &Vm, args: &'a [Value]) -> PyResult<&'a StringIo> {
    let s = this_string_io(vm, &args[0])?;
    if s.closed.get() {
        return Err(vm.value_error("I/O operation on closed file"));
    }
    Ok(s)
}

impl StringIo {
    /// The text from the position on, as (byte offset of the position, text).
    fn rest(&self) -> (usize, String) {
        let text = self.text.borrow();
        let at = text
            .char_indices()
            .nth(self.position.get())
            .map_or(text.len(), |(i, _)| i);
        (at, text[at..].to_string())
    }

    fn advance(&self, text: &str) -> String {
        self.position
            .set(self.position.get() + text.chars().count());
        text.to_string()
    }

    fn readline(&self) -> String {
        let (_, rest) = self.rest();
        let end = rest.find('\n').map_or(rest.len(), |i| i + 1);
        self.advance(&rest[..end])
    }
}

const STRING_IO_METHODS: &[(&str, Method)] = &[
    ("getvalue", |vm, args, _| {
        Ok(Value::str(open_string_io(vm, args)?.text.borrow().as_str()))
    }),
    ("write", |vm, args, _| {
        let s = open_string_io(vm, args)?;
        let text = text_arg(vm, args.get(1))?;
        let written = text.chars().count();
        let (position, chars) = (s.position.get(), s.chars.get());
        if position == chars {
            s.text.borrow_mut().push_str(&text);
        } else {
            let (at, rest) = s.rest();
            let mut whole = s.text.borrow()[..at].to_string();
            // Past the end, the gap is filled with NULs, as CPython does.
            whole.extend(std::iter::repeat_n('\0', position.saturating_sub(chars)));
            whole.push_str(&text);
            whole.extend(rest.chars().skip(written));
            *s.text.borrow_mut() = whole;
        }
        s.position.set(position + written);
        s.chars.set(chars.max(position + written));
        Ok(Value::Int(written as i64))
    }),
    ("read", |vm, args, _| {
        let s = open_string_io(vm, args)?;
        let size = size_arg(vm, args.get(1))?;
        let (_, rest) = s.rest();
        let end = size.map_or(rest.len(), |n| char_prefix(&rest, n, Newline::Untranslated));
        Ok(Value::str(s.advance(&rest[..end])))
    }),
    ("readline", |vm, args, _| {
        Ok(Value::str(open_string_io(vm, args)?.readline()))
    }),
    ("readlines", |vm, args, _| {
        let s = open_string_io(vm, args)?;
        let mut lines = Vec::new();
        loop {
            let line = s.readline();
            if line.is_empty() {
                return Ok(Value::list(lines));
            }
            lines.push(Value::str(line));
        }
    }),
    ("tell", |vm, args, _| {
        Ok(Value::Int(open_string_io(vm, args)?.position.get() as i64))
    }),
    ("seek", |vm, args, _| {
        let s = open_string_io(vm, args)?;
        let offset = vm.expect_index(args.get(1).unwrap_or(&Value::None))?;
        let whence = match args.get(2) {
            Some(v) => vm.expect_index(v)?,
            None => 0,
        };
        let at = match whence {
            0 if offset < 0 => {
                return Err(vm.value_error(format!("Negative seek position {offset}")));
            }
            0 => offset as usize,
            1 | 2 if offset != 0 => {
                return Err(vm.os_error(
                    &std::io::Error::other("Can't do nonzero cur-relative seeks"),
                    None,
                ));
            }
            1 => s.position.get(),
            2 => s.text.borrow().chars().count(),
            _ => {
                return Err(
                    vm.value_error(format!("Invalid whence ({whence}, should be 0, 1 or 2)"))
                );
            }
        };
        s.position.set(at);
        Ok(Value::Int(at as i64))
    }),
    // `truncate(size=None)`: the text cut to `size` characters (the position unless
    // given), the position left where it was.
    ("truncate", |vm, args, _| {
        let s = open_string_io(vm, args)?;
        let size = match args.get(1) {
            None | Some(Value::None) => s.position.get(),
            Some(v) => match vm.expect_index(v)? {
                n if n < 0 => return Err(vm.value_error(format!("Negative size value {n}"))),
                n => n as usize,
            },
        };
        if size < s.chars.get() {
            let mut text = s.text.borrow_mut();
            let at = text.char_indices().nth(size).map_or(text.len(), |(i, _)| i);
            text.truncate(at);
            s.chars.set(size);
        }
        Ok(Value::Int(size as i64))
    }),
    ("close", |vm, args, _| {
        this_string_io(vm, &args[0])?.closed.set(true);
        Ok(Value::None)
    }),
    ("flush", |vm, args, _| {
        open_string_io(vm, args)?;
        Ok(Value::None)
    }),
    // `iter()` is IOBase's check, with a full stop.
    ("__iter__", |vm, args, _| {
        if this_string_io(vm, &args[0])?.closed.get() {
            return Err(closed_error(vm));
        }
        Ok(args[0].clone())
    }),
    ("__next__", |vm, args, _| {
        let line = open_string_io(vm, args)?.readline();
        if line.is_empty() {
            return Err(vm.stop_iteration(Value::None));
        }
        Ok(Value::str(line))
    }),
    ("__enter__", |vm, args, _| {
        open_string_io(vm, args)?;
        Ok(args[0].clone())
    }),
    ("__exit__", |vm, args, _| {
        this_string_io(vm, &args[0])?.closed.set(true);
        Ok(Value::None)
    }),
];
