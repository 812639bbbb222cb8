//! `sys.stdout.buffer`, `sys.stderr.buffer` and `sys.stdin.buffer`: the byte layer under
//! the standard text streams, shown as CPython's `_io.BufferedWriter`/`_io.BufferedReader`.
//! Bytes written to stdout's go into the program's stdout buffer, in order with the text
//! `print` writes there; stdin's reads from the process-wide buffered stdin that
//! `sys.stdin` and `input()` read too. A buffer shares its stream's open/closed state, as
//! closing the text layer closes the buffer under it. Made on first use (`std_streams.rs`).

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use super::bytes_type::bytes_of;
use super::io::{HintRule, optional_size, read_lines, size_arg, unsupported};
use super::std_streams::{StdKind, read_stdin_bytes};
use crate::common::chars::str_repr;
use crate::common::console;
use crate::vm::args::{check_arity, check_kwargs};
use crate::vm::object::{KwArgs, Layout, NativeFn, Object, ObjectKind, PyType};
use crate::vm::types::make_type;
use crate::vm::value::Value;
use crate::vm::{PyResult, Vm};

/// The buffer of one standard stream.
struct StdBuffer {
    kind: StdKind,
    closed: Rc<Cell<bool>>,
}

thread_local! {
    /// `BufferedWriter` and `BufferedReader`, made with the first buffer asked for.
    static CLASSES: RefCell<Option<(Rc<PyType>, Rc<PyType>)>> = const { RefCell::new(None) };
}

/// The buffer of the stream of `kind` whose closed flag is `closed`.
pub fn new(vm: &mut Vm, kind: StdKind, closed: Rc<Cell<bool>>) -> Value {
    let (writer, reader) = match CLASSES.with(|c| c.borrow().clone()) {
        Some(classes) => classes,
        None => {
            let classes = (
                buffer_class(vm, "BufferedWriter", WRITER_METHODS),
                buffer_class(vm, "BufferedReader", READER_METHODS),
            );
            CLASSES.with(|c| *c.borrow_mut() = Some(classes.clone()));
            classes
        }
    };
    let class = match kind {
        StdKind::In => reader,
        StdKind::Out | StdKind::Err => writer,
    };
    let buffer = StdBuffer { kind, closed };
    Value::object(Object::new(class, ObjectKind::Other(Box::new(buffer))))
}

fn buffer_class(
    vm: &mut Vm,
    name: &str,
    methods: &'static [(&'static str, NativeFn)],
) -> Rc<PyType> {
    let class = make_type(name, vec![vm.types.object.clone()], Layout::Builtin, true);
    vm.set_type_attr(&class, "__module__", Value::str("_io"));
    vm.add_methods(&class, COMMON_METHODS);
    vm.add_methods(&class, methods);
    vm.add_getset(
        &class,
        "name",
        |vm, v| Ok(Value::str(names(this(vm, v)?).0)),
        None,
    );
    vm.add_getset(
        &class,
        "mode",
        |vm, v| Ok(Value::str(names(this(vm, v)?).1)),
        None,
    );
    vm.add_getset(
        &class,
        "closed",
        |vm, v| Ok(Value::Bool(this(vm, v)?.closed.get())),
        None,
    );
    class
}

fn this<'a>(vm: &Vm, v: &'a Value) -> PyResult<&'a StdBuffer> {
    v.native::<StdBuffer>()
        .ok_or_else(|| vm.type_error("descriptor requires a standard stream's buffer"))
}

/// The buffer `args[0]` is, when it is open; ValueError(`closed_message`) once closed.
fn open<'a>(vm: &Vm, args: &'a [Value], closed_message: &str) -> PyResult<&'a StdBuffer> {
    let buffer = this(vm, args.first().unwrap_or(&Value::None))?;
    match buffer.closed.get() {
        true => Err(vm.value_error(closed_message)),
        false => Ok(buffer),
    }
}

fn names(buffer: &StdBuffer) -> (&'static str, &'static str) {
    match buffer.kind {
        StdKind::In => ("<stdin>", "rb"),
        StdKind::Out => ("<stdout>", "wb"),
        StdKind::Err => ("<stderr>", "wb"),
    }
}

const CLOSED_FILE: &str = "I/O operation on closed file";

const COMMON_METHODS: &[(&str, NativeFn)] = &[
    ("fileno", |vm, args, _| {
        let fd = match open(vm, args, CLOSED_FILE)?.kind {
            StdKind::In => 0,
            StdKind::Out => 1,
            StdKind::Err => 2,
        };
        Ok(Value::Int(fd))
    }),
    ("isatty", |vm, args, _| {
        let tty = match open(vm, args, CLOSED_FILE)?.kind {
            StdKind::In => std::io::IsTerminal::is_terminal(&std::io::stdin()),
            StdKind::Out => console::is_terminal(console::Stream::Stdout),
            StdKind::Err => console::is_terminal(console::Stream::Stderr),
        };
        Ok(Value::Bool(tty))
    }),
    ("readable", |vm, args, _| {
        Ok(Value::Bool(
            open(vm, args, CLOSED_FILE)?.kind == StdKind::In,
        ))
    }),
    ("writable", |vm, args, _| {
        Ok(Value::Bool(
            open(vm, args, CLOSED_FILE)?.kind != StdKind::In,
        ))
    }),
    // The buffers write through the program's output buffer and read from the shared
    // stdin reader: they never seek (as CPython's, over a pipe or a terminal).
    ("seekable", |vm, args, _| {
        open(vm, args, CLOSED_FILE).map(|_| Value::Bool(false))
    }),
    ("close", |vm, args, _| {
        let buffer = this(vm, args.first().unwrap_or(&Value::None))?;
        if buffer.kind == StdKind::Out && !buffer.closed.get() {
            vm.flush_stdout();
        }
        buffer.closed.set(true);
        Ok(Value::None)
    }),
    ("__repr__", |vm, args, _| {
        let buffer = this(vm, args.first().unwrap_or(&Value::None))?;
        let class = match buffer.kind {
            StdKind::In => "BufferedReader",
            _ => "BufferedWriter",
        };
        let name = str_repr(names(buffer).0);
        Ok(Value::str(format!("<_io.{class} name={name}>")))
    }),
];

const WRITER_METHODS: &[(&str, NativeFn)] = &[
    ("write", |vm, args, _| {
        check_arity(vm, "write", args, 2, 2)?;
        let kind = open(vm, args, "write to closed file")?.kind;
        let Some(bytes) = bytes_of(&args[1]) else {
            let message = format!(
                "a bytes-like object is required, not '{}'",
                vm.type_name(&args[1])
            );
            return Err(vm.type_error(message));
        };
        match kind {
            StdKind::Err => {
                vm.flush_stdout();
                console::eprint_bytes(&bytes);
            }
            _ => vm.write_stdout_bytes(&bytes)?,
        }
        Ok(Value::Int(bytes.len() as i64))
    }),
    ("flush", |vm, args, _| {
        if open(vm, args, "flush of closed file")?.kind == StdKind::Out {
            vm.flush_stdout_for_program()?;
        }
        Ok(Value::None)
    }),
    ("read", |vm, _, _| Err(unsupported(vm, "read"))),
    ("readline", |vm, _, _| Err(unsupported(vm, "readline"))),
];

/// `read(size=-1)`, `read1(size=-1)` and `readline(size=-1)` of stdin's buffer.
fn read(vm: &mut Vm, args: &[Value], kw: &KwArgs, name: &str) -> PyResult<Value> {
    check_kwargs(vm, name, kw, &[])?;
    check_arity(vm, name, args, 1, 2)?;
    open(vm, args, "read of closed file")?;
    let (limit, line) = match name {
        "readline" => (size_arg(vm, args.get(1))?, true),
        _ => (optional_size(vm, args.get(1))?, false),
    };
    let bytes = read_stdin_bytes(vm, limit, line)?;
    Ok(vm.new_bytes(bytes))
}

const READER_METHODS: &[(&str, NativeFn)] = &[
    ("read", |vm, args, kw| read(vm, args, kw, "read")),
    ("read1", |vm, args, kw| read(vm, args, kw, "read1")),
    ("readline", |vm, args, kw| read(vm, args, kw, "readline")),
    ("readlines", |vm, args, _| {
        open(vm, args, "read of closed file")?;
        let hint = optional_size(vm, args.get(1))?;
        read_lines(vm, hint, HintRule::Exceeded, |vm| {
            let line = read_stdin_bytes(vm, None, true)?;
            let len = line.len();
            Ok((vm.new_bytes(line), len))
        })
    }),
    ("__iter__", |vm, args, _| {
        open(vm, args, CLOSED_FILE)?;
        Ok(args[0].clone())
    }),
    ("__next__", |vm, args, _| {
        open(vm, args, "readline of closed file")?;
        let line = read_stdin_bytes(vm, None, true)?;
        match line.is_empty() {
            true => Err(vm.stop_iteration(Value::None)),
            false => Ok(vm.new_bytes(line)),
        }
    }),
    ("write", |vm, _, _| Err(unsupported(vm, "write"))),
    ("flush", |vm, args, _| {
        open(vm, args, "flush of closed file")?;
        Ok(Value::None)
    }),
];
