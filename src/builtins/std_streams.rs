//! `sys.stdin`, `sys.stdout` and `sys.stderr`: one native class, shown as CPython's
//! `_io.TextIOWrapper`, over the process's standard streams. Output goes through the VM's
//! stdout buffer (so `print` and `sys.stdout.write` interleave as in CPython); input is read
//! from the process-wide buffered stdin that `input()` reads too, so mixing `input()` with
//! `sys.stdin.readline()` loses nothing. Text is UTF-8, lines end at `"\n"` only (CPython's
//! `newline="\n"` for the standard streams on POSIX). `Python/pylifecycle.c` `create_stdio`.

use std::cell::{Cell, RefCell};
use std::io::{BufRead, IsTerminal};

use crate::common::console;
use std::rc::Rc;

use super::io::{optional_size, size_arg, unsupported};
use crate::common::chars::str_repr;
use crate::vm::args::{check_arity, check_kwargs};
use crate::vm::object::{KwArgs, Layout, Object, ObjectKind, PyType};
use crate::vm::types::make_type;
use crate::vm::value::Value;
use crate::vm::{Exc, PyResult, Vm};

/// Where `print` and `sys.stdout.write` send text; a `line_buffered` stdout is flushed
/// after text with a line break (`sys.stdout.reconfigure(line_buffering=True)`).
pub enum Stream {
    Stdout { line_buffered: bool },
    Stderr,
}

pub fn write_stream(vm: &mut Vm, stream: &Stream, text: &str) -> PyResult<()> {
    match stream {
        Stream::Stdout { line_buffered } => {
            vm.write_stdout(text)?;
            if *line_buffered && text.contains('\n') {
                vm.flush_stdout_for_program()?;
            }
            Ok(())
        }
        Stream::Stderr => {
            vm.flush_stdout();
            crate::common::console::eprint(text);
            Ok(())
        }
    }
}

/// The standard output stream behind an open `sys.stdout`/`sys.stderr` object (a closed
/// one's `write` raises).
pub fn stream_of(v: &Value) -> Option<Stream> {
    let stream = std_stream(v).filter(|s| !s.closed.get())?;
    match stream.kind {
        StdKind::Out => Some(Stream::Stdout {
            line_buffered: stream.settings.borrow().line_buffering,
        }),
        StdKind::Err => Some(Stream::Stderr),
        StdKind::In => None,
    }
}

/// One of the three objects: which stream it stands for, and whether the program closed it
/// (`exit()` closes stdin; a closed stdout or stderr refuses writes, as CPython's does).
struct StdStream {
    kind: StdKind,
    /// Shared with the stream's `buffer`, which closing either closes.
    closed: Rc<Cell<bool>>,
    /// `buffer`, once asked for.
    buffer: RefCell<Option<Value>>,
    settings: RefCell<Settings>,
}

/// What `reconfigure()` changes, as the stream shows it. The text is UTF-8 whatever the
/// encoding's name, and `errors` is only shown.
struct Settings {
    encoding: String,
    errors: String,
    line_buffering: bool,
    write_through: bool,
}

impl Settings {
    /// CPython's at start-up (`config_init_stdio`): stderr is line-buffered, stdout when a
    /// terminal, none of them with `-u` (which writes through instead); errors are
    /// `backslashreplace` on stderr, elsewhere `surrogateescape` in the C and POSIX locales
    /// and those CPython coerces to (`C.UTF-8`), else `strict`.
    fn initial(kind: StdKind, unbuffered: bool) -> Settings {
        let errors = match kind {
            StdKind::Err => "backslashreplace",
            _ if c_like_locale() => "surrogateescape",
            _ => "strict",
        };
        let line_buffering = !unbuffered
            && match kind {
                StdKind::In => false,
                StdKind::Out => console::is_terminal(console::Stream::Stdout),
                StdKind::Err => true,
            };
        Settings {
            encoding: "utf-8".to_string(),
            errors: errors.to_string(),
            line_buffering,
            write_through: unbuffered,
        }
    }
}

/// Whether the locale of the character type is the C or POSIX locale or one CPython
/// coerces to (`_Py_IsLocaleCoercionTarget`): `LC_ALL`, else `LC_CTYPE`, else `LANG`.
fn c_like_locale() -> bool {
    let locale = ["LC_ALL", "LC_CTYPE", "LANG"]
        .iter()
        .find_map(|name| std::env::var(name).ok().filter(|v| !v.is_empty()))
        .unwrap_or_else(|| "C".to_string());
    matches!(
        locale.as_str(),
        "C" | "POSIX" | "C.UTF-8" | "C.utf8" | "UTF-8"
    )
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum StdKind {
    In,
    Out,
    Err,
}

fn std_stream(v: &Value) -> Option<&StdStream> {
    let Value::Object(o) = v else { return None };
    let ObjectKind::Other(any) = &o.kind else {
        return None;
    };
    any.downcast_ref::<StdStream>()
}

/// The stream `args[0]` is, for a method of the class.
fn this<'a>(vm: &Vm, args: &'a [Value]) -> PyResult<&'a StdStream> {
    args.first()
        .and_then(std_stream)
        .ok_or_else(|| vm.type_error("descriptor requires a standard stream"))
}

/// `sys.stdin`, `sys.stdout` and `sys.stderr`, for the `sys` module.
pub fn make(vm: &mut Vm) -> [Value; 3] {
    let class = stream_class(vm);
    let unbuffered = vm.config.unbuffered;
    [StdKind::In, StdKind::Out, StdKind::Err]
        .map(|kind| StdStream {
            kind,
            closed: Rc::new(Cell::new(false)),
            buffer: RefCell::new(None),
            settings: RefCell::new(Settings::initial(kind, unbuffered)),
        })
        .map(|s| Value::object(Object::new(class.clone(), ObjectKind::Other(Box::new(s)))))
}

fn stream_class(vm: &mut Vm) -> Rc<PyType> {
    let class = make_type(
        "TextIOWrapper",
        vec![vm.types.object.clone()],
        Layout::Builtin,
        true,
    );
    vm.set_type_attr(&class, "__module__", Value::str("_io"));
    let methods: &[(&'static str, crate::vm::object::NativeFn)] = &[
        ("write", write),
        ("writelines", writelines),
        ("flush", flush),
        ("read", |vm, args, kw| {
            let limit = size(vm, "read", args, kw)?;
            read_text(vm, args, limit, false)
        }),
        ("readline", |vm, args, kw| {
            let limit = size(vm, "readline", args, kw)?;
            read_text(vm, args, limit, true)
        }),
        ("readlines", readlines),
        ("__iter__", |vm, args, _| {
            open_stdin(vm, args, "I/O operation on closed file.")?;
            Ok(args[0].clone())
        }),
        ("__next__", |vm, args, _| {
            match read_text(vm, args, None, true)? {
                Value::Str(line) if line.as_str().is_empty() => Err(vm.stop_iteration(Value::None)),
                line => Ok(line),
            }
        }),
        ("close", |vm, args, _| {
            let stream = this(vm, args)?;
            if stream.kind == StdKind::Out && !stream.closed.get() {
                vm.flush_stdout();
            }
            stream.closed.set(true);
            Ok(Value::None)
        }),
        ("fileno", |vm, args, _| {
            Ok(Value::Int(descriptor(
                vm,
                args,
                "I/O operation on closed file",
            )?))
        }),
        ("isatty", |vm, args, _| {
            let tty = match descriptor(vm, args, "I/O operation on closed file")? {
                0 => std::io::stdin().is_terminal(),
                1 => console::is_terminal(console::Stream::Stdout),
                _ => console::is_terminal(console::Stream::Stderr),
            };
            Ok(Value::Bool(tty))
        }),
        ("readable", |vm, args, _| {
            descriptor(vm, args, "I/O operation on closed file")?;
            Ok(Value::Bool(this(vm, args)?.kind == StdKind::In))
        }),
        ("writable", |vm, args, _| {
            // stdin's buffer answers without looking (`IOBase.writable`); the others ask
            // their file, which checks it is open.
            if this(vm, args)?.kind == StdKind::In {
                return Ok(Value::Bool(false));
            }
            descriptor(vm, args, "I/O operation on closed file")?;
            Ok(Value::Bool(true))
        }),
        ("__repr__", |vm, args, _| {
            let stream = this(vm, args)?;
            let (name, mode) = name_and_mode(stream);
            Ok(Value::str(format!(
                "<_io.TextIOWrapper name={} mode='{mode}' encoding={}>",
                str_repr(name),
                str_repr(&stream.settings.borrow().encoding)
            )))
        }),
        ("reconfigure", reconfigure),
    ];
    vm.add_methods(&class, methods);
    vm.add_getset(
        &class,
        "name",
        |vm, v| {
            Ok(Value::str(
                name_and_mode(this(vm, std::slice::from_ref(v))?).0,
            ))
        },
        None,
    );
    vm.add_getset(
        &class,
        "mode",
        |vm, v| {
            Ok(Value::str(
                name_and_mode(this(vm, std::slice::from_ref(v))?).1,
            ))
        },
        None,
    );
    let settings: [(&str, crate::vm::object::Getter); 4] = [
        ("encoding", |vm, v| {
            setting(vm, v, |s| Value::str(s.encoding.as_str()))
        }),
        ("errors", |vm, v| {
            setting(vm, v, |s| Value::str(s.errors.as_str()))
        }),
        ("line_buffering", |vm, v| {
            setting(vm, v, |s| Value::Bool(s.line_buffering))
        }),
        ("write_through", |vm, v| {
            setting(vm, v, |s| Value::Bool(s.write_through))
        }),
    ];
    for (name, get) in settings {
        vm.add_getset(&class, name, get, None);
    }
    vm.add_getset(&class, "newlines", |_, _| Ok(Value::None), None);
    vm.add_getset(&class, "buffer", buffer, None);
    vm.add_getset(
        &class,
        "closed",
        |vm, v| Ok(Value::Bool(this(vm, std::slice::from_ref(v))?.closed.get())),
        None,
    );
    class
}

/// A getter of one of the stream's [`Settings`].
fn setting(vm: &mut Vm, v: &Value, read: fn(&Settings) -> Value) -> PyResult<Value> {
    let stream = this(vm, std::slice::from_ref(v))?;
    Ok(read(&stream.settings.borrow()))
}

/// `reconfigure(*, encoding=None, errors=None, newline=None, line_buffering=None,
/// write_through=None)`, checked as CPython checks it (stdout flushed first). The streams
/// stay UTF-8 with `\n` line ends: another encoding, or a newline translating `\n`, is
/// named as outside apy's subset.
fn reconfigure(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let stream = this(vm, args)?;
    if args.len() > 1 {
        return Err(vm.type_error("reconfigure() takes no positional arguments"));
    }
    let [encoding, errors, newline, line_buffering, write_through] =
        super::text_file::reconfigure_kwargs(vm, kw)?;
    if stream.kind == StdKind::Out {
        vm.flush_stdout_for_program()?;
    }
    if encoding.is_some() || errors.is_some() {
        let encoding =
            encoding.unwrap_or_else(|| Value::str(stream.settings.borrow().encoding.as_str()));
        let errors = errors.unwrap_or(Value::None);
        let checked = super::text_file::config(vm, "reconfigure", encoding, errors)?;
        let (name, errors, coding) = checked.encoding_and_errors();
        if coding.chunk_codec != "utf-8" || coding.signature {
            return Err(vm.value_error(format!(
                "encoding {} is outside the subset apy runs: apy's standard streams read and \
                 write UTF-8",
                str_repr(&name)
            )));
        }
        let mut settings = stream.settings.borrow_mut();
        (settings.encoding, settings.errors) = (name, errors);
    }
    if let Some(newline) = newline {
        use super::text_file::Newline;
        match super::text_file::newline_arg(vm, "reconfigure", newline)? {
            Newline::Universal | Newline::Untranslated | Newline::Fixed("\n") => {}
            Newline::Fixed(other) => {
                return Err(vm.value_error(format!(
                    "newline={} is outside the subset apy runs: apy's standard streams end \
                     lines with '\\n'",
                    str_repr(other)
                )));
            }
        }
    }
    if let Some(on) = super::text_file::flag_arg(vm, line_buffering)? {
        stream.settings.borrow_mut().line_buffering = on;
    }
    if let Some(on) = super::text_file::flag_arg(vm, write_through)? {
        stream.settings.borrow_mut().write_through = on;
    }
    Ok(Value::None)
}

/// `buffer`: the byte layer under the stream, made on first use.
fn buffer(vm: &mut Vm, v: &Value) -> PyResult<Value> {
    let stream = this(vm, std::slice::from_ref(v))?;
    if let Some(buffer) = stream.buffer.borrow().clone() {
        return Ok(buffer);
    }
    let buffer = super::std_buffers::new(vm, stream.kind, stream.closed.clone());
    *stream.buffer.borrow_mut() = Some(buffer.clone());
    Ok(buffer)
}

fn name_and_mode(stream: &StdStream) -> (&'static str, &'static str) {
    match stream.kind {
        StdKind::In => ("<stdin>", "r"),
        StdKind::Out => ("<stdout>", "w"),
        StdKind::Err => ("<stderr>", "w"),
    }
}

/// The stream's file descriptor; ValueError(`closed_message`) once it is closed.
fn descriptor(vm: &Vm, args: &[Value], closed_message: &str) -> PyResult<i64> {
    let stream = open_stream(vm, args, closed_message)?;
    Ok(match stream.kind {
        StdKind::In => 0,
        StdKind::Out => 1,
        StdKind::Err => 2,
    })
}

/// The stream `args[0]` is, when it is open; ValueError(`closed_message`) once closed.
fn open_stream<'a>(vm: &Vm, args: &'a [Value], closed_message: &str) -> PyResult<&'a StdStream> {
    let stream = this(vm, args)?;
    match stream.closed.get() {
        true => Err(vm.value_error(closed_message)),
        false => Ok(stream),
    }
}

/// Checks that `args[0]` is stdin and open: io.UnsupportedOperation("not readable") for
/// stdout and stderr, ValueError(`closed_message`) once closed.
fn open_stdin(vm: &mut Vm, args: &[Value], closed_message: &str) -> PyResult<()> {
    match open_stream(vm, args, closed_message)?.kind {
        StdKind::In => Ok(()),
        _ => Err(unsupported(vm, "not readable")),
    }
}

fn write(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    check_arity(vm, "write", args, 2, 2)?;
    let Some(stream) = stream_of(&args[0]) else {
        open_stream(vm, args, "I/O operation on closed file.")?;
        return Err(unsupported(vm, "not writable"));
    };
    let Value::Str(text) = &args[1] else {
        return Err(vm.type_error(format!(
            "write() argument must be str, not {}",
            vm.type_name(&args[1])
        )));
    };
    write_stream(vm, &stream, text.as_str())?;
    Ok(Value::Int(text.char_len() as i64))
}

/// `writelines(lines)`: each line written in turn (no newlines added).
fn writelines(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    check_arity(vm, "writelines", args, 2, 2)?;
    let lines = vm.collect_iterable(&args[1])?;
    for line in lines {
        write(vm, &[args[0].clone(), line], kw)?;
    }
    Ok(Value::None)
}

fn flush(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    if open_stream(vm, args, "I/O operation on closed file.")?.kind == StdKind::Out {
        vm.flush_stdout_for_program()?;
    }
    Ok(Value::None)
}

/// The optional size argument of `read(size=-1, /)` and `readline(size=-1, /)`.
fn size(vm: &mut Vm, name: &str, args: &[Value], kw: &KwArgs) -> PyResult<Option<usize>> {
    check_kwargs(vm, name, kw, &[])?;
    check_arity(vm, name, args, 1, 2)?;
    match name {
        "read" => optional_size(vm, args.get(1)),
        _ => size_arg(vm, args.get(1)),
    }
}

/// `read()` (`line` false) or `readline()` (`line` true) of stdin, at most `limit`
/// characters.
fn read_text(vm: &mut Vm, args: &[Value], limit: Option<usize>, line: bool) -> PyResult<Value> {
    open_stdin(vm, args, "I/O operation on closed file.")?;
    read_stdin(vm, limit, line).map(Value::str)
}

fn readlines(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    open_stdin(vm, args, "I/O operation on closed file.")?;
    let hint = super::io::optional_size(vm, args.get(1))?;
    super::io::read_lines(vm, hint, super::io::HintRule::Exceeded, |vm| {
        Ok(super::io::text_line(read_stdin(vm, None, true)?))
    })
}

/// Reads from the process's stdin: up to and including the next `"\n"` when `line`, else to
/// the end, and at most `limit` characters; "" at the end of input. Blocks until it has them.
fn read_stdin(vm: &mut Vm, limit: Option<usize>, line: bool) -> PyResult<String> {
    let bytes = read_stdin_raw(vm, limit.map(Limit::Chars), line)?;
    super::codecs::decode(vm, &bytes, "utf-8", "strict")
}

/// [`read_stdin`] in bytes, for `sys.stdin.buffer`: at most `limit` bytes.
pub(super) fn read_stdin_bytes(vm: &mut Vm, limit: Option<usize>, line: bool) -> PyResult<Vec<u8>> {
    read_stdin_raw(vm, limit.map(Limit::Bytes), line)
}

fn read_stdin_raw(vm: &mut Vm, limit: Option<Limit>, line: bool) -> PyResult<Vec<u8>> {
    vm.flush_stdout();
    let mut bytes = Vec::new();
    if !matches!(limit, Some(Limit::Chars(0) | Limit::Bytes(0))) {
        #[cfg(not(target_arch = "wasm32"))]
        super::stdin_reader::with_stdin(vm, |input| read_until(input, &mut bytes, limit, line))?;
        // A page's stdin is empty.
        #[cfg(target_arch = "wasm32")]
        read_until(&mut std::io::stdin().lock(), &mut bytes, limit, line)
            .map_err(|e| vm.os_error(&e, None))?;
    }
    Ok(bytes)
}

/// How much a read may take: so many UTF-8 characters (text) or bytes (the buffer).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Limit {
    Chars(usize),
    Bytes(usize),
}

/// Appends to `out` what [`read_stdin`] reads, from `input`: under a limit of characters,
/// whole UTF-8 characters are counted (a character's continuation bytes come with it).
fn read_until(
    input: &mut (impl BufRead + ?Sized),
    out: &mut Vec<u8>,
    limit: Option<Limit>,
    line: bool,
) -> std::io::Result<()> {
    let (limit, count_bytes) = match limit {
        Some(Limit::Chars(n)) => (Some(n), false),
        Some(Limit::Bytes(n)) => (Some(n), true),
        None => (None, false),
    };
    let mut chars = 0;
    loop {
        let buffer = match input.fill_buf() {
            Ok(buffer) => buffer,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if buffer.is_empty() {
            return Ok(());
        }
        let mut taken = 0;
        let mut done = false;
        for &byte in buffer {
            let starts_char = count_bytes || byte & 0xC0 != 0x80;
            if starts_char && limit == Some(chars) {
                done = true;
                break;
            }
            chars += usize::from(starts_char);
            taken += 1;
            if line && byte == b'\n' {
                done = true;
                break;
            }
        }
        out.extend_from_slice(&buffer[..taken]);
        input.consume(taken);
        if done {
            return Ok(());
        }
    }
}

/// `input()`'s read: a line from `sys.stdin` without its `"\n"`, as CPython reads it when
/// stdin is not a terminal it prompts on. Through the stream's `readline()` when a program
/// has put something else there (a `StringIO`); EOFError at the end of input.
pub fn input_line(vm: &mut Vm) -> PyResult<Value> {
    let sys = vm.import_module("sys")?;
    let key = vm.intern("stdin");
    let stdin = vm.get_attr(&sys, &key)?;
    let mut line = match std_stream(&stdin).filter(|s| s.kind == StdKind::In) {
        Some(s) if s.closed.get() => {
            return Err(vm.value_error("I/O operation on closed file."));
        }
        Some(_) => read_stdin(vm, None, true)?,
        _ => match vm.call_method(&stdin, "readline", &[])? {
            Value::Str(s) => s.as_str().to_string(),
            other => {
                return Err(vm.type_error(format!(
                    "object.readline() returned non-string, not {}",
                    vm.type_name(&other)
                )));
            }
        },
    };
    if line.is_empty() {
        return Err(eof(vm));
    }
    if line.ends_with('\n') {
        line.pop();
    }
    Ok(Value::str(line))
}

fn eof(vm: &Vm) -> Exc {
    vm.new_exc(&vm.types.eof_error, "EOF when reading a line")
}

#[cfg(test)]
mod tests {
    use super::{Limit, read_until};

    fn read(text: &str, limit: Option<usize>, line: bool) -> (String, String) {
        let mut input = std::io::Cursor::new(text.as_bytes().to_vec());
        let mut out = Vec::new();
        read_until(&mut input, &mut out, limit.map(Limit::Chars), line).unwrap();
        let rest = text.as_bytes()[input.position() as usize..].to_vec();
        (
            String::from_utf8(out).unwrap(),
            String::from_utf8(rest).unwrap(),
        )
    }

    #[test]
    fn lines_end_at_newline_and_limits_count_characters() {
        assert_eq!(read("ab\ncd", None, true), ("ab\n".into(), "cd".into()));
        assert_eq!(read("ab\r\ncd", None, true), ("ab\r\n".into(), "cd".into()));
        assert_eq!(read("ab\ncd", None, false), ("ab\ncd".into(), "".into()));
        assert_eq!(read("éé\n", Some(1), true), ("é".into(), "é\n".into()));
        assert_eq!(read("aé\nb", Some(5), true), ("aé\n".into(), "b".into()));
        assert_eq!(read("", None, true), ("".into(), "".into()));
    }
}
