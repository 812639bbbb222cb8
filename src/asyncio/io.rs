//! The loop's methods over its selector (`Lib/asyncio/selector_events.py`):
//! `add_reader`/`add_writer`/`remove_reader`/`remove_writer` (natively, over
//! `watchers.rs`); and the parts of the library over them written in apy, each run on
//! first use so that `import asyncio` does not compile them: the socket operations
//! (`sock_recv`, …, `lib/selector_events.apy`), the protocols, the transports with
//! `create_connection`/`create_server`/`create_datagram_endpoint`, and the streams.

use std::rc::Rc;

use super::event_loop::{cancel_handle, check_open, is_closed, new_handle, rt, this_loop};
use crate::builtins::selectors::fileobj_to_fd;
use crate::builtins::socket::os_error;
use crate::vm::dict::StrKeys;
use crate::vm::object::{KwArgs, NativeFn, ObjectKind, PyType};
use crate::vm::types::lookup;
use crate::vm::value::Value;
use crate::vm::{PyResult, Vm};

/// `loop._add_reader(fd, callback, *args)` / `_add_writer`: the new handle; an older
/// one for the same descriptor is cancelled.
fn add(vm: &mut Vm, args: &[Value], write: bool) -> PyResult<Value> {
    let name = if write { "add_writer" } else { "add_reader" };
    if args.len() < 3 {
        return Err(vm.type_error(format!(
            "{name}() missing required positional arguments: 'fd' and 'callback'"
        )));
    }
    let l = check_open(vm, &args[0])?;
    let fd = fileobj_to_fd(vm, &args[1])?;
    let handle = new_handle(
        vm,
        &args[0],
        args[2].clone(),
        args[3..].to_vec(),
        None,
        None,
    );
    let old =
        l.io.borrow_mut()
            .watch(fd, handle.clone(), write)
            .map_err(|e| os_error(vm, &e))?;
    if let Some(old) = old {
        cancel_handle(&old);
    }
    Ok(handle)
}

/// `loop.remove_reader(fd)` / `remove_writer`: whether it was watched.
fn remove(vm: &mut Vm, args: &[Value], write: bool) -> PyResult<Value> {
    let name = if write {
        "remove_writer"
    } else {
        "remove_reader"
    };
    if args.len() != 2 {
        return Err(vm.type_error(format!(
            "{name}() takes 2 positional arguments but {} were given",
            args.len()
        )));
    }
    let l = this_loop(vm, &args[0])?;
    if is_closed(&args[0]) {
        return Ok(Value::Bool(false));
    }
    let fd = fileobj_to_fd(vm, &args[1])?;
    let removed = l.io.borrow_mut().unwatch(fd, write);
    Ok(Value::Bool(match removed {
        Some(handle) => {
            cancel_handle(&handle);
            true
        }
        None => false,
    }))
}

/// The parts of the library written in apy that load on first use (so that
/// `import asyncio` compiles none of them), each after the parts it needs.
#[derive(Clone, Copy)]
enum Part {
    /// The loop's `sock_*` methods (`lib/selector_events.apy`).
    Sockets,
    /// Protocol, BufferedProtocol, DatagramProtocol, SubprocessProtocol.
    Protocols,
    /// The transports, `create_connection`, `create_server` and its Server,
    /// `create_datagram_endpoint`.
    Transports,
    /// `open_connection`, `start_server`, StreamReader, StreamWriter.
    Streams,
    /// `create_subprocess_exec`/`_shell`, Process, the pipe and subprocess transports.
    Subprocess,
}

impl Part {
    /// The file's name (for tracebacks and `__module__`) and text.
    fn file(self) -> (&'static str, &'static str) {
        match self {
            Part::Sockets => (
                "asyncio/selector_events.py",
                include_str!("lib/selector_events.apy"),
            ),
            Part::Protocols => ("asyncio/protocols.py", include_str!("lib/protocols.apy")),
            Part::Transports => ("asyncio/transports.py", include_str!("lib/transports.apy")),
            Part::Streams => ("asyncio/streams.py", include_str!("lib/streams.apy")),
            Part::Subprocess => ("asyncio/subprocess.py", include_str!("lib/subprocess.apy")),
        }
    }

    fn needs(self) -> &'static [Part] {
        match self {
            Part::Sockets | Part::Protocols => &[],
            Part::Transports => &[Part::Sockets, Part::Protocols],
            Part::Streams => &[Part::Transports],
            Part::Subprocess => &[Part::Streams],
        }
    }

    /// A name the part defines when it has run: on the loop class, or in the module.
    fn marker(self) -> (bool, &'static str) {
        match self {
            Part::Sockets => (true, "_sock_recv"),
            Part::Protocols => (false, "BaseProtocol"),
            Part::Transports => (true, "_accept_connection"),
            Part::Streams => (false, "StreamReaderProtocol"),
            Part::Subprocess => (true, "_make_subprocess_transport"),
        }
    }
}

/// Runs `part` (and first what it needs) unless it has run.
fn load(vm: &mut Vm, part: Part) -> PyResult<()> {
    for need in part.needs() {
        load(vm, *need)?;
    }
    let (on_loop, marker) = part.marker();
    let key = vm.intern(marker);
    let module = vm.import_module("asyncio")?;
    let loaded = if on_loop {
        let event_loop = rt(vm).types.event_loop.clone();
        lookup(&event_loop, &key).is_some()
    } else {
        module_global(&module, &key).is_some()
    };
    if loaded {
        return Ok(());
    }
    let (name, text) = part.file();
    super::library::run_lazy(vm, name, text)
}

/// A name in `module`'s own namespace (not through its `__getattr__`).
fn module_global(module: &Value, key: &crate::vm::value::PyStr) -> Option<Value> {
    match module {
        Value::Object(o) => match &o.kind {
            ObjectKind::Module { dict, .. } => dict.table.borrow().get_str(key).cloned(),
            _ => None,
        },
        _ => None,
    }
}

/// A loop method written in apy, before its part has run: runs it (which puts the real
/// method on the loop class in place of this stand-in) and calls the real method.
fn loop_method(
    vm: &mut Vm,
    args: &[Value],
    kw: &KwArgs,
    name: &str,
    part: Part,
) -> PyResult<Value> {
    let event_loop = rt(vm).types.event_loop.clone();
    let key = vm.intern(name);
    let stub = lookup(&event_loop, &key);
    load(vm, part)?;
    match lookup(&event_loop, &key) {
        Some(method) if !stub.as_ref().is_some_and(|s| s.is(&method)) => vm.call(&method, args, kw),
        _ => Err(vm.runtime_error(format!("apy: the loop has no {name}()"))),
    }
}

/// The module's names that live in a part loaded on first use.
const LAZY_NAMES: &[(&str, Part)] = &[
    ("BaseProtocol", Part::Protocols),
    ("Protocol", Part::Protocols),
    ("BufferedProtocol", Part::Protocols),
    ("DatagramProtocol", Part::Protocols),
    ("SubprocessProtocol", Part::Protocols),
    ("BaseTransport", Part::Transports),
    ("ReadTransport", Part::Transports),
    ("WriteTransport", Part::Transports),
    ("Transport", Part::Transports),
    ("DatagramTransport", Part::Transports),
    ("SubprocessTransport", Part::Transports),
    ("Server", Part::Transports),
    ("open_connection", Part::Streams),
    ("start_server", Part::Streams),
    ("open_unix_connection", Part::Streams),
    ("start_unix_server", Part::Streams),
    ("StreamReader", Part::Streams),
    ("StreamWriter", Part::Streams),
    ("StreamReaderProtocol", Part::Streams),
    ("create_subprocess_exec", Part::Subprocess),
    ("create_subprocess_shell", Part::Subprocess),
    ("SubprocessStreamProtocol", Part::Subprocess),
];

/// `asyncio.subprocess`, a library module of its own (`import asyncio.subprocess`
/// finds it under its dotted name, `asyncio` not being a package).
pub const SUBPROCESS_MODULE: (&str, &str, &str) = (
    "asyncio.subprocess",
    "asyncio/subprocess_module.py",
    include_str!("lib/subprocess_module.apy"),
);

/// The module's `__getattr__` (PEP 562): a name of a part not loaded yet loads it.
fn module_getattr(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    let module = vm.import_module("asyncio")?;
    let Some(Value::Str(name)) = args.first() else {
        return Err(vm.type_error("__getattr__() takes exactly one argument"));
    };
    if name.as_str() == "subprocess" {
        return vm.import_module(SUBPROCESS_MODULE.0);
    }
    if name.as_str() == "__all__" {
        let all = super::submodules::package_all(vm)?;
        vm.set_attr(&module, name, all.clone())?;
        return Ok(all);
    }
    if let Some(submodule) = super::submodules::named(name.as_str()) {
        return vm.import_module(submodule);
    }
    if let Some((_, part)) = LAZY_NAMES.iter().find(|(n, _)| *n == name.as_str()) {
        load(vm, *part)?;
        if let Some(value) = module_global(&module, name) {
            return Ok(value);
        }
    }
    Err(vm.no_attribute(&module, name))
}

/// The module's `__getattr__`, which loads the parts that wait for their first use, and
/// the natives of the streams' hot paths those parts call.
pub fn lazy_names(vm: &Vm) -> Vec<(&'static str, Value)> {
    let mut names = vec![("__getattr__", vm.native("__getattr__", module_getattr))];
    names.extend(super::stream_paths::names(vm));
    names
}

/// A table entry whose function calls `$loader` with its own name.
macro_rules! stand_in {
    ($part:ident, $name:literal) => {
        ($name, |vm, args, kw| {
            loop_method(vm, args, kw, $name, Part::$part)
        })
    };
}

/// Sets an exception's `args` to `(message,)` and its attributes (`BaseException.__init__`
/// then `self.name = value`).
fn init_error(
    vm: &mut Vm,
    this: &Value,
    message: String,
    attrs: &[(&str, Value)],
) -> PyResult<Value> {
    if let Value::Object(o) = this
        && let Some(data) = o.exc_data()
    {
        data.borrow_mut().args = Value::tuple(vec![Value::str(message)]);
    }
    for (name, value) in attrs {
        let key = vm.intern(name);
        vm.set_attr(this, &key, value.clone())?;
    }
    Ok(Value::None)
}

/// `IncompleteReadError(partial, expected)`: "2 bytes read on a total of 5 expected bytes".
fn incomplete_read_init(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    let [this, partial, expected] = args else {
        return Err(vm.type_error(format!(
            "IncompleteReadError.__init__() takes 3 positional arguments but {} were given",
            args.len()
        )));
    };
    let length = vm.len(partial)?;
    let shown = match expected {
        Value::None => "undefined".to_string(),
        other => vm.repr(other)?,
    };
    let message = format!("{length} bytes read on a total of {shown} expected bytes");
    let attrs = [("partial", partial.clone()), ("expected", expected.clone())];
    init_error(vm, this, message, &attrs)
}

/// `LimitOverrunError(message, consumed)`.
fn limit_overrun_init(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    let [this, message, consumed] = args else {
        return Err(vm.type_error(format!(
            "LimitOverrunError.__init__() takes 3 positional arguments but {} were given",
            args.len()
        )));
    };
    let text = vm.str_of(message)?.as_str().to_string();
    init_error(vm, this, text, &[("consumed", consumed.clone())])
}

/// The streams' errors (`asyncio/exceptions.py`), made with the module (natively, so
/// that `import asyncio` compiles nothing for them) so that an `except` can name them
/// before the streams are loaded.
pub fn stream_errors(vm: &mut Vm) -> Vec<(&'static str, Value)> {
    // (With CPython's docstrings.)
    let errors: [(&str, Rc<PyType>, NativeFn, &str); 2] = [
        (
            "IncompleteReadError",
            vm.types.eof_error.clone(),
            incomplete_read_init,
            "\nIncomplete read error. Attributes:\n\n\
             - partial: read bytes string before the end of stream was reached\n\
             - expected: total number of expected bytes (or None if unknown)\n",
        ),
        (
            "LimitOverrunError",
            vm.types.exception.clone(),
            limit_overrun_init,
            "Reached the buffer limit while looking for a separator.\n\n\
             Attributes:\n\
             - consumed: total number of to be consumed bytes.\n",
        ),
    ];
    let mut out = Vec::new();
    for (name, base, init, doc) in errors {
        let mut ns = crate::vm::value::DictTable::new();
        ns.set_str(vm.names.module.clone(), Value::str("asyncio.exceptions"));
        ns.set_str(vm.names.doc.clone(), Value::str(doc));
        if let Ok(class) = vm.new_class(None, name, vec![base], ns) {
            vm.add_method(&class, "__init__", init);
            out.push((name, Value::Type(class)));
        }
    }
    out
}

const METHODS: &[(&str, NativeFn)] = &[
    stand_in!(Sockets, "sock_recv"),
    stand_in!(Sockets, "sock_recv_into"),
    stand_in!(Sockets, "sock_sendall"),
    stand_in!(Sockets, "sock_connect"),
    stand_in!(Sockets, "sock_accept"),
    stand_in!(Transports, "create_connection"),
    stand_in!(Transports, "create_server"),
    stand_in!(Transports, "create_datagram_endpoint"),
    stand_in!(Subprocess, "subprocess_exec"),
    stand_in!(Subprocess, "subprocess_shell"),
    stand_in!(Subprocess, "connect_read_pipe"),
    stand_in!(Subprocess, "connect_write_pipe"),
    ("_add_reader", |vm, args, _| add(vm, args, false)),
    ("_add_writer", |vm, args, _| add(vm, args, true)),
    ("add_reader", |vm, args, _| {
        add(vm, args, false).map(|_| Value::None)
    }),
    ("add_writer", |vm, args, _| {
        add(vm, args, true).map(|_| Value::None)
    }),
    ("remove_reader", |vm, args, _| remove(vm, args, false)),
    ("remove_writer", |vm, args, _| remove(vm, args, true)),
];

/// Adds the selector's methods to the loop type.
pub fn init_type(vm: &mut Vm, event_loop: &Rc<PyType>) {
    for (name, f) in METHODS {
        vm.add_method(event_loop, name, *f);
    }
}
