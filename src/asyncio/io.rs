//! The loop's methods over its selector (`Lib/asyncio/selector_events.py`):
//! `add_reader`/`add_writer`/`remove_reader`/`remove_writer` (natively, over
//! `watchers.rs`) and the socket operations `sock_recv`, `sock_recv_into`, `sock_sendall`,
//! `sock_connect`, `sock_accept` (in apy, `lib/selector_events.apy`, run on the first
//! call of one of them so that `import asyncio` does not compile it).

use std::rc::Rc;

use super::event_loop::{cancel_handle, check_open, is_closed, new_handle, rt, this_loop};
use crate::builtins::selectors::fileobj_to_fd;
use crate::builtins::socket::os_error;
use crate::vm::dict::StrKeys;
use crate::vm::object::{KwArgs, NativeFn, PyType};
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

/// The loop's socket operations, written in apy and run on the first call of one of them:
/// until then each is a stub that runs the file (which puts the real methods on the loop
/// class) and calls the real method.
const SOCKET_METHODS: (&str, &str) = (
    "asyncio/selector_events.py",
    include_str!("lib/selector_events.apy"),
);

fn socket_method(vm: &mut Vm, args: &[Value], kw: &KwArgs, name: &str) -> PyResult<Value> {
    let event_loop = rt(vm).types.event_loop.clone();
    let key = vm.intern(name);
    let stub = lookup(&event_loop, &key);
    super::library::run_lazy(vm, SOCKET_METHODS.0, SOCKET_METHODS.1)?;
    match lookup(&event_loop, &key) {
        Some(method) if !stub.as_ref().is_some_and(|s| s.is(&method)) => vm.call(&method, args, kw),
        _ => Err(vm.runtime_error(format!("apy: the loop has no {name}()"))),
    }
}

/// The streams (`open_connection`, `start_server`, StreamReader, StreamWriter, Server),
/// written in apy and run on the first call of `open_connection` or `start_server`.
const STREAMS: (&str, &str) = ("asyncio/streams.py", include_str!("lib/streams.apy"));

/// `asyncio.open_connection`, `start_server`, `StreamReader(…)`, `StreamWriter(…)` before
/// the streams are loaded: loads them (the real ones replace these in the module) and calls
/// the real one.
fn stream_function(vm: &mut Vm, args: &[Value], kw: &KwArgs, name: &str) -> PyResult<Value> {
    super::library::run_lazy(vm, STREAMS.0, STREAMS.1)?;
    let module = vm.import_module("asyncio")?;
    let key = vm.intern(name);
    match vm.get_attr(&module, &key)? {
        real @ (Value::Function(_) | Value::Type(_)) => vm.call(&real, args, kw),
        _ => Err(vm.runtime_error(format!("apy: asyncio has no {name}()"))),
    }
}

/// A table entry whose function calls `$loader` with its own name.
macro_rules! stand_in {
    ($loader:ident, $name:literal) => {
        ($name, |vm, args, kw| $loader(vm, args, kw, $name))
    };
}

const STREAM_STUBS: [(&str, NativeFn); 4] = [
    stand_in!(stream_function, "open_connection"),
    stand_in!(stream_function, "start_server"),
    stand_in!(stream_function, "StreamReader"),
    stand_in!(stream_function, "StreamWriter"),
];

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
    let errors: [(&str, Rc<PyType>, NativeFn); 2] = [
        (
            "IncompleteReadError",
            vm.types.eof_error.clone(),
            incomplete_read_init,
        ),
        (
            "LimitOverrunError",
            vm.types.exception.clone(),
            limit_overrun_init,
        ),
    ];
    let mut out = Vec::new();
    for (name, base, init) in errors {
        let mut ns = crate::vm::value::DictTable::new();
        ns.set_str(vm.names.module.clone(), Value::str("asyncio.exceptions"));
        if let Ok(class) = vm.new_class(None, name, vec![base], ns) {
            vm.add_method(&class, "__init__", init);
            out.push((name, Value::Type(class)));
        }
    }
    out
}

/// The module's stand-ins for the streams' functions until they are loaded.
pub fn stream_stubs(vm: &Vm) -> Vec<(&'static str, Value)> {
    STREAM_STUBS
        .iter()
        .map(|(name, f)| (*name, vm.native(name, *f)))
        .collect()
}

const METHODS: &[(&str, NativeFn)] = &[
    stand_in!(socket_method, "sock_recv"),
    stand_in!(socket_method, "sock_recv_into"),
    stand_in!(socket_method, "sock_sendall"),
    stand_in!(socket_method, "sock_connect"),
    stand_in!(socket_method, "sock_accept"),
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
