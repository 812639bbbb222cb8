//! The `io` module and `open()`: a host file opened (through `vm::sandbox`'s gate) in a
//! text mode is a `TextIOWrapper` (`text_file.rs`), in a binary mode one of the buffered
//! binary files of `binary_file.rs`; and `io.StringIO`, text in memory
//! (`Modules/_io/stringio.c`).

use std::cell::RefCell;
use std::fs::File;
use std::rc::Rc;

use super::text_file::{self, Newline, char_prefix};
use crate::vm::args::Signature;
use crate::vm::dict::StrKeys;
use crate::vm::object::{KwArgs, Layout, Object, ObjectKind, PyType};
use crate::vm::sandbox::Capability;
use crate::vm::types::make_type;
use crate::vm::value::Value;
use crate::vm::{Exc, PyResult, Vm};

/// CPython's `io.DEFAULT_BUFFER_SIZE`: written text is kept until there is this much.
pub(super) const BUFFER_SIZE: usize = 8192;

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

/// Text in memory (`_io.StringIO`): its text and the position, in characters.
pub struct StringIo {
    text: RefCell<String>,
    /// How many characters `text` holds, so a write at the end (every write of a `print`
    /// to it) appends without counting them again.
    chars: std::cell::Cell<usize>,
    position: std::cell::Cell<usize>,
    closed: std::cell::Cell<bool>,
    /// The `newline` it was made with: None translates `\r\n` and `\r` to `\n` as text
    /// is written, `'\r'` or `'\r\n'` is what a written `\n` becomes, and each says
    /// where a read line ends (`''`: at any of the three).
    newline: Newline,
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
    vm.add_static(&wrapper, "__new__", text_file::wrapper_new);
    vm.add_methods(&wrapper, text_file::METHODS);
    wrapper.has_del.set(true);
    for &(name, get) in text_file::GETTERS {
        vm.add_getset(&wrapper, name, get, None);
    }
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
    let text_encoding = vm.native("text_encoding", text_encoding);
    names.extend([
        ("open", open),
        ("text_encoding", text_encoding),
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

/// `io.text_encoding(encoding, stacklevel=2, /)`: the encoding a function opening a text
/// file passes on when it was given none, "locale" (apy has no UTF-8 mode, and
/// `-X warn_default_encoding`'s EncodingWarning is off); any other value as it is.
fn text_encoding(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    if !kw.is_empty() {
        return Err(vm.type_error("_io.text_encoding() takes no keyword arguments"));
    }
    let [encoding, rest @ ..] = args else {
        return Err(vm.type_error("text_encoding expected at least 1 argument, got 0"));
    };
    match rest {
        [] => {}
        [stacklevel] => {
            vm.expect_c_int(stacklevel)?;
        }
        _ => {
            let message = format!(
                "text_encoding expected at most 2 arguments, got {}",
                args.len()
            );
            return Err(vm.type_error(message));
        }
    }
    Ok(match encoding {
        Value::None => Value::str("locale"),
        other => other.clone(),
    })
}

/// The classes written in apy: the abstract IOBase, RawIOBase, BufferedIOBase and
/// TextIOBase, and BufferedRWPair.
const ABSTRACT_CLASSES: [&str; 5] = [
    "IOBase",
    "RawIOBase",
    "BufferedIOBase",
    "TextIOBase",
    "BufferedRWPair",
];

/// The module's `__getattr__` (PEP 562): the abstract classes and BufferedRWPair are
/// written in apy (`stdlib/_iobase.apy`) and loaded when one is first asked for, so that
/// `import io` costs no more than the native streams; loading registers this module's
/// streams with them and stores all five here.
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

pub(super) fn closed_error(vm: &Vm) -> Exc {
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
    let mut config = text_file::config(vm, "open", arg(3), arg(4))?;
    config.newline = text_file::newline_arg(vm, "open", arg(5))?;
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
        return super::binary_file::new(vm, class, name, shown, access, file, start);
    }
    let class = io_type(vm, "TextIOWrapper")?;
    let access = (readable, writable);
    Ok(text_file::open_file(
        class,
        (name, mode),
        config,
        file,
        access,
        start,
    ))
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

type Method = fn(&mut Vm, &[Value], &KwArgs) -> PyResult<Value>;

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

/// Where `readlines(hint)` stops: IOBase's (files, StringIO, the standard streams) once
/// the lines read are longer than `hint` in all, BytesIO's once they are as long.
pub(super) enum HintRule {
    Exceeded,
    Reached,
}

/// `readlines(hint=-1)`: the lines `next_line` gives (each with its length; a length of 0
/// at the end), all of them, or with a positive `hint` until their total length passes it
/// as `rule` says.
pub(super) fn read_lines(
    vm: &mut Vm,
    hint: Option<usize>,
    rule: HintRule,
    mut next_line: impl FnMut(&mut Vm) -> PyResult<(Value, usize)>,
) -> PyResult<Value> {
    let limit = hint.filter(|&h| h > 0);
    let mut lines = Vec::new();
    let mut total = 0usize;
    loop {
        let (line, len) = next_line(vm)?;
        if len == 0 {
            return Ok(Value::list(lines));
        }
        lines.push(line);
        total += len;
        if let Some(limit) = limit {
            let done = match rule {
                HintRule::Exceeded => total > limit,
                HintRule::Reached => total >= limit,
            };
            if done {
                return Ok(Value::list(lines));
            }
        }
    }
}

/// A text line as [`read_lines`] takes it: the str and its length in characters.
pub(super) fn text_line(line: String) -> (Value, usize) {
    let len = line.chars().count();
    (Value::str(line), len)
}

pub(super) fn text_arg(vm: &Vm, v: Option<&Value>) -> PyResult<String> {
    match v {
        Some(Value::Str(s)) => Ok(s.as_str().to_string()),
        Some(other) => Err(vm.type_error(format!(
            "write() argument must be str, not {}",
            vm.type_name(other)
        ))),
        None => Err(vm.type_error("write() takes exactly one argument (0 given)")),
    }
}

// ---- io.StringIO ---------------------------------------------------------------------------

fn string_io_new(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    const NEW: Signature =
        Signature::keywords("StringIO", "StringIO", &["initial_value", "newline"], 0, 0);
    let Some(Value::Type(class)) = args.first() else {
        return Err(vm.type_error("StringIO.__new__(X): X is not a type object"));
    };
    let slots = NEW.bind(vm, &args[1..], kw)?;
    let newline = match slots[1].clone() {
        None => Newline::Fixed("\n"),
        Some(Value::None) => Newline::Universal,
        Some(Value::Str(s)) => match s.as_str() {
            "" => Newline::Untranslated,
            "\n" => Newline::Fixed("\n"),
            "\r" => Newline::Fixed("\r"),
            "\r\n" => Newline::Fixed("\r\n"),
            _ => {
                let shown = vm.repr(&Value::Str(s))?;
                return Err(vm.value_error(format!("illegal newline value: {shown}")));
            }
        },
        Some(other) => {
            return Err(vm.type_error(format!(
                "newline must be str or None, not {}",
                vm.type_name(&other)
            )));
        }
    };
    let initial = match slots[0].clone() {
        None | Some(Value::None) => String::new(),
        Some(Value::Str(s)) => written_text(s.as_str(), newline),
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
        newline,
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

    /// The next line (ending where `newline` says), at most `limit` characters of it.
    fn readline(&self, limit: Option<usize>) -> String {
        let (_, rest) = self.rest();
        let reading = match self.newline {
            // (Written text was translated already.)
            Newline::Universal => Newline::Fixed("\n"),
            Newline::Untranslated => Newline::Universal,
            fixed => fixed,
        };
        let mut end = text_file::line_end(&rest, reading, true).unwrap_or(rest.len());
        if let Some(limit) = limit {
            end = end.min(char_prefix(&rest, limit, Newline::Untranslated));
        }
        self.advance(&rest[..end])
    }
}

/// Text as a StringIO made with `newline` keeps it when it is written.
fn written_text(text: &str, newline: Newline) -> String {
    match newline {
        Newline::Universal => text.replace("\r\n", "\n").replace('\r', "\n"),
        Newline::Fixed(end @ ("\r" | "\r\n")) => text.replace('\n', end),
        _ => text.to_string(),
    }
}

const STRING_IO_METHODS: &[(&str, Method)] = &[
    ("getvalue", |vm, args, _| {
        Ok(Value::str(open_string_io(vm, args)?.text.borrow().as_str()))
    }),
    ("write", |vm, args, _| {
        let s = open_string_io(vm, args)?;
        let given = text_arg(vm, args.get(1))?;
        // (The count is of the characters given, before any translation.)
        let returned = given.chars().count();
        let text = written_text(&given, s.newline);
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
        Ok(Value::Int(returned as i64))
    }),
    ("writelines", |vm, args, _| {
        open_string_io(vm, args)?;
        let Some(lines) = args.get(1) else {
            return Err(vm.type_error("writelines() takes exactly one argument (0 given)"));
        };
        for line in vm.collect_iterable(lines)? {
            vm.call_method(&args[0], "write", &[line])?;
        }
        Ok(Value::None)
    }),
    ("read", |vm, args, _| {
        let s = open_string_io(vm, args)?;
        let size = size_arg(vm, args.get(1))?;
        let (_, rest) = s.rest();
        let end = size.map_or(rest.len(), |n| char_prefix(&rest, n, Newline::Untranslated));
        Ok(Value::str(s.advance(&rest[..end])))
    }),
    ("readline", |vm, args, _| {
        let s = open_string_io(vm, args)?;
        let limit = size_arg(vm, args.get(1))?;
        Ok(Value::str(s.readline(limit)))
    }),
    ("readlines", |vm, args, _| {
        let s = open_string_io(vm, args)?;
        let hint = optional_size(vm, args.get(1))?;
        read_lines(vm, hint, HintRule::Exceeded, |_| {
            Ok(text_line(s.readline(None)))
        })
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
    ("readable", |vm, args, _| {
        open_string_io(vm, args).map(|_| Value::Bool(true))
    }),
    ("writable", |vm, args, _| {
        open_string_io(vm, args).map(|_| Value::Bool(true))
    }),
    ("seekable", |vm, args, _| {
        open_string_io(vm, args).map(|_| Value::Bool(true))
    }),
    // IOBase's `isatty`, whose message has a full stop.
    ("isatty", |vm, args, _| {
        match this_string_io(vm, &args[0])?.closed.get() {
            true => Err(closed_error(vm)),
            false => Ok(Value::Bool(false)),
        }
    }),
    ("fileno", |vm, args, _| {
        this_string_io(vm, &args[0])?;
        Err(unsupported(vm, "fileno"))
    }),
    // `iter()` is IOBase's check, with a full stop.
    ("__iter__", |vm, args, _| {
        if this_string_io(vm, &args[0])?.closed.get() {
            return Err(closed_error(vm));
        }
        Ok(args[0].clone())
    }),
    ("__next__", |vm, args, _| {
        let line = open_string_io(vm, args)?.readline(None);
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
