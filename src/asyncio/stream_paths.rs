//! The streams' hot paths, natively, each standing for apy methods of the library
//! (lib/transports.apy, lib/streams.apy) while those are the methods the objects have
//! (none overridden in a subclass, shadowed on the instance or replaced on the class),
//! with their effects in the same order; otherwise the apy methods run, as in CPython:
//! - a socket transport's read into a `StreamReader` (`_read_ready__data_received`,
//!   `data_received`, `feed_data`, `_wakeup_waiter`: recv, extend the reader's
//!   buffer, wake its waiter, pause reading past twice the limit);
//! - `StreamWriter.drain()` with nothing to wait for (`exception()`, `is_closing()`,
//!   `_drain_helper()`: no error, not closing, not paused);
//! - `_wait_for_data`'s steps before it awaits (the checks, resuming a paused
//!   transport, the new waiter).
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::thread::LocalKey;

use super::future::{Status, plain_future, set_result};
use crate::builtins::socket::{as_socket, recv_bytes};
use crate::vm::bytes::PyBytes;
use crate::vm::dict::StrKeys;
use crate::vm::object::{KwArgs, ObjectKind};
use crate::vm::types::{ClassMemo, has_own_getattribute, lookup, lookup_uncached};
use crate::vm::value::{PyStr, Value};
use crate::vm::{Exc, PyResult, Vm};

/// A method of the library, as it defined it, with its name.
struct Method {
    name: Rc<PyStr>,
    func: Value,
}

/// The methods the native paths stand for and the attribute names they read, interned
/// once.
struct Paths {
    read_ready_data_received: Value,
    data_received: Method,
    feed_data: Method,
    wakeup_waiter: Method,
    exception: Method,
    is_closing: Method,
    drain_helper: Method,
    wait_for_data: Method,
    names: Names,
}

/// An attribute the native paths read or set on instances, with where it was last
/// found in an instance's dict (instances of a class fill their dicts in one order).
struct Field {
    name: Rc<PyStr>,
    hint: Cell<usize>,
}

/// The attributes, by the objects they are read on.
struct Names {
    read_ready_cb: Field,
    conn_lost: Field,
    sock: Field,
    max_size: Field,
    transport_protocol: Field,
    closing: Field,
    stream_reader: Field,
    connection_lost: Field,
    protocol_paused: Field,
    eof: Field,
    buffer: Field,
    waiter: Field,
    reader_transport: Field,
    reader_paused: Field,
    limit: Field,
    exception: Field,
    event_loop: Field,
    reader: Field,
    writer_transport: Field,
    writer_protocol: Field,
    getattribute: Rc<PyStr>,
    setattr: Rc<PyStr>,
}

impl Names {
    fn new(vm: &mut Vm) -> Names {
        let mut field = |text: &str| Field {
            name: vm.intern(text),
            hint: Cell::new(0),
        };
        Names {
            read_ready_cb: field("_read_ready_cb"),
            conn_lost: field("_conn_lost"),
            sock: field("_sock"),
            max_size: field("max_size"),
            transport_protocol: field("_protocol"),
            closing: field("_closing"),
            stream_reader: field("_stream_reader"),
            connection_lost: field("_connection_lost"),
            protocol_paused: field("_paused"),
            eof: field("_eof"),
            buffer: field("_buffer"),
            waiter: field("_waiter"),
            reader_transport: field("_transport"),
            reader_paused: field("_paused"),
            limit: field("_limit"),
            exception: field("_exception"),
            event_loop: field("_loop"),
            reader: field("_reader"),
            writer_transport: field("_transport"),
            writer_protocol: field("_protocol"),
            getattribute: vm.intern("__getattribute__"),
            setattr: vm.intern("__setattr__"),
        }
    }

    /// The fields (those of `max_size` and `_sock` may be the class's).
    fn fields(&self) -> [&Field; 20] {
        [
            &self.read_ready_cb,
            &self.conn_lost,
            &self.sock,
            &self.max_size,
            &self.transport_protocol,
            &self.closing,
            &self.stream_reader,
            &self.connection_lost,
            &self.protocol_paused,
            &self.eof,
            &self.buffer,
            &self.waiter,
            &self.reader_transport,
            &self.reader_paused,
            &self.limit,
            &self.exception,
            &self.event_loop,
            &self.reader,
            &self.writer_transport,
            &self.writer_protocol,
        ]
    }
}

thread_local! {
    /// Set by `_stream_paths` when streams.apy has run (a later asyncio module sets its
    /// own; those of an earlier module no longer match any object's methods).
    static PATHS: RefCell<Option<Rc<Paths>>> = const { RefCell::new(None) };
    static TRANSPORT_READS: ClassMemo = const { ClassMemo::new() };
    static WRITER_DRAINS: ClassMemo = const { ClassMemo::new() };
    static PROTOCOL_READS: ClassMemo = const { ClassMemo::new() };
    static READER_READS: ClassMemo = const { ClassMemo::new() };
    static READER_DRAINS: ClassMemo = const { ClassMemo::new() };
    static TRANSPORT_DRAINS: ClassMemo = const { ClassMemo::new() };
    static PROTOCOL_DRAINS: ClassMemo = const { ClassMemo::new() };
    static READER_WAITS: ClassMemo = const { ClassMemo::new() };
}

fn paths() -> Option<Rc<Paths>> {
    PATHS.with(|p| p.borrow().clone())
}

/// `_stream_paths(_read_ready__data_received, data_received, feed_data, _wakeup_waiter,
/// exception, is_closing, _drain_helper, _wait_for_data)`: the library's methods, given
/// by streams.apy once it has defined them.
fn register(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    let [read_ready_data_received, rest @ ..] = args else {
        return Err(vm.type_error("_stream_paths() takes 8 arguments"));
    };
    if rest.len() != 7 {
        return Err(vm.type_error("_stream_paths() takes 8 arguments"));
    }
    let names = Names::new(vm);
    let mut method = |i: usize| {
        let Value::Function(f) = &rest[i] else {
            return Err(vm.type_error("_stream_paths() takes functions"));
        };
        let name = f.name.borrow().as_str().to_string();
        Ok(Method {
            name: vm.intern(&name),
            func: rest[i].clone(),
        })
    };
    let paths = Paths {
        read_ready_data_received: read_ready_data_received.clone(),
        data_received: method(0)?,
        feed_data: method(1)?,
        wakeup_waiter: method(2)?,
        exception: method(3)?,
        is_closing: method(4)?,
        drain_helper: method(5)?,
        wait_for_data: method(6)?,
        names,
    };
    PATHS.with(|p| *p.borrow_mut() = Some(Rc::new(paths)));
    Ok(Value::None)
}

/// Whether `obj` has each of `methods` as the library defined it (not shadowed on the
/// instance) and its class lets [`field`] and [`set_field`] use the instance's dict: no
/// `__getattribute__` or `__setattr__` of its own, nothing on the class under the
/// fields' names but plain values (checked once for a class until a class changes).
fn keeps(
    memo: &'static LocalKey<ClassMemo>,
    names: &Names,
    obj: &Value,
    methods: &[&Method],
) -> bool {
    let Value::Object(o) = obj else {
        return false;
    };
    let shadowed = o.attrs().is_some_and(|attrs| {
        let attrs = attrs.borrow();
        methods.iter().any(|m| attrs.get_str(&m.name).is_some())
    });
    !shadowed
        && memo.with(|memo| {
            memo.passes(&o.class, |class| {
                let plain_value = |v: &Value| {
                    matches!(
                        v,
                        Value::None
                            | Value::Bool(_)
                            | Value::Int(_)
                            | Value::Float(_)
                            | Value::Str(_)
                    )
                };
                methods
                    .iter()
                    .all(|m| lookup_uncached(class, &m.name).is_some_and(|found| found.is(&m.func)))
                    && !has_own_getattribute(class, &names.getattribute)
                    && !matches!(
                        lookup_uncached(class, &names.setattr),
                        Some(Value::Function(_))
                    )
                    && names
                        .fields()
                        .iter()
                        .all(|f| lookup_uncached(class, &f.name).is_none_or(|v| plain_value(&v)))
            })
        })
}

/// `obj.name` for an `obj` that [`keeps`] passed: from its dict (where the field was
/// last found first), else from its class, else as usual.
fn field(vm: &mut Vm, obj: &Value, f: &Field) -> PyResult<Value> {
    if let Value::Object(o) = obj
        && let Some(attrs) = o.attrs()
    {
        let table = attrs.borrow();
        let hinted = table
            .entry(f.hint.get())
            .filter(|e| matches!(&e.key, Value::Str(k) if Rc::ptr_eq(k, &f.name)));
        if let Some(e) = hinted {
            return Ok(e.value.clone());
        }
        if let Some(at) = table.position_str(&f.name) {
            f.hint.set(at);
            if let Some(e) = table.entry(at) {
                return Ok(e.value.clone());
            }
        }
        drop(table);
        if let Some(v) = lookup(&o.class, &f.name) {
            return Ok(v);
        }
    }
    vm.get_attr(obj, &f.name)
}

/// `obj.name = value` for an `obj` that [`keeps`] passed: in its dict when it is there,
/// else as usual.
fn set_field(vm: &mut Vm, obj: &Value, f: &Field, value: Value) -> PyResult<()> {
    if let Value::Object(o) = obj
        && let Some(attrs) = o.attrs()
    {
        let mut table = attrs.borrow_mut();
        let hinted = table
            .entry(f.hint.get())
            .is_some_and(|e| matches!(&e.key, Value::Str(k) if Rc::ptr_eq(k, &f.name)));
        let at = if hinted {
            Some(f.hint.get())
        } else {
            table.position_str(&f.name)
        };
        if let Some(slot) = at.and_then(|at| table.value_mut(at)) {
            let old = std::mem::replace(slot, value);
            drop(table);
            drop(old);
            return Ok(());
        }
    }
    vm.set_attr(obj, &f.name, value)
}

/// `_stream_read_ready(transport)`: reads natively and returns True, or returns False
/// having done nothing, for `_read_ready` to call `_read_ready_cb()`.
fn read_ready(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    let Some(path) = paths() else {
        return Ok(Value::Bool(false));
    };
    let [transport] = args else {
        return Err(vm.type_error("_stream_read_ready() takes 1 argument"));
    };
    let Some(read) = applies(vm, &path, transport)? else {
        return Ok(Value::Bool(false));
    };
    read.run(vm, &path, transport)?;
    Ok(Value::Bool(true))
}

/// What the native read reads before it starts (no apy code runs until it is done, so
/// these stay as read).
struct Read {
    sock: Value,
    size: usize,
    reader: Value,
    buffer: Value,
    waiter: Value,
    /// The reader's `_transport`, and whether it is to be paused past twice `limit`.
    pausable: Option<(Value, i64)>,
}

/// The native read of `transport` when it applies (checked before anything is done, so
/// that `_read_ready_cb()` may do it all instead).
fn applies(vm: &mut Vm, path: &Paths, transport: &Value) -> PyResult<Option<Read>> {
    let n = &path.names;
    if !keeps(&TRANSPORT_READS, n, transport, &[]) {
        return Ok(None);
    }
    let cb = field(vm, transport, &n.read_ready_cb)?;
    let bound_here = matches!(&cb, Value::Object(o) if matches!(&o.kind,
        ObjectKind::BoundMethod { func, this }
            if func.is(&path.read_ready_data_received) && this.is(transport)));
    if !bound_here || !matches!(field(vm, transport, &n.conn_lost)?, Value::Int(0)) {
        return Ok(None);
    }
    let sock = field(vm, transport, &n.sock)?;
    let Value::Int(size @ 0..) = field(vm, transport, &n.max_size)? else {
        return Ok(None);
    };
    if as_socket(&sock).is_none() {
        return Ok(None);
    }
    let protocol = field(vm, transport, &n.transport_protocol)?;
    if !keeps(&PROTOCOL_READS, n, &protocol, &[&path.data_received]) {
        return Ok(None);
    }
    let reader = field(vm, &protocol, &n.stream_reader)?;
    if !keeps(
        &READER_READS,
        n,
        &reader,
        &[&path.feed_data, &path.wakeup_waiter],
    ) {
        return Ok(None);
    }
    let buffer = field(vm, &reader, &n.buffer)?;
    let waiter = field(vm, &reader, &n.waiter)?;
    let (Value::Bool(false), Value::Bool(paused), Value::Int(limit)) = (
        field(vm, &reader, &n.eof)?,
        field(vm, &reader, &n.reader_paused)?,
        field(vm, &reader, &n.limit)?,
    ) else {
        return Ok(None);
    };
    let is_bytearray =
        matches!(&buffer, Value::Object(o) if Rc::ptr_eq(&o.class, &vm.types.bytearray));
    if !is_bytearray || !(waiter.is_none() || plain_future(&waiter).is_some()) {
        return Ok(None);
    }
    let stream_transport = field(vm, &reader, &n.reader_transport)?;
    let pausable = (!stream_transport.is_none() && !paused).then_some((stream_transport, limit));
    Ok(Some(Read {
        sock,
        size: size as usize,
        reader,
        buffer,
        waiter,
        pausable,
    }))
}

impl Read {
    /// `_read_ready__data_received`: recv, then the protocol's `data_received`, each
    /// exception going where that method's `except` clauses send it.
    fn run(self, vm: &mut Vm, path: &Paths, transport: &Value) -> PyResult<()> {
        let Some(sock) = as_socket(&self.sock) else {
            return Ok(());
        };
        let data = match recv_bytes(vm, sock, self.size) {
            Ok(data) => data,
            Err(exc) => {
                let types = &vm.types;
                if vm.exc_matches(&exc, &types.blocking_io_error)
                    || vm.exc_matches(&exc, &types.interrupted_error)
                {
                    return Ok(());
                }
                return fatal_error(vm, transport, exc, "Fatal read error on socket transport");
            }
        };
        if data.is_empty() {
            vm.call_method(transport, "_read_ready__on_eof", &[])?;
            return Ok(());
        }
        match self.feed_data(vm, path, &data) {
            Ok(()) => Ok(()),
            Err(exc) => fatal_error(
                vm,
                transport,
                exc,
                "Fatal error: protocol.data_received() call failed.",
            ),
        }
    }

    /// `StreamReader.feed_data(data)` (data not empty, the reader not at EOF), with
    /// `_wakeup_waiter()`.
    fn feed_data(self, vm: &mut Vm, path: &Paths, data: &[u8]) -> PyResult<()> {
        let n = &path.names;
        let length = match self.buffer.native::<PyBytes>().and_then(|b| b.data_mut()) {
            Some(mut buffer) => {
                buffer.extend_from_slice(data);
                buffer.len()
            }
            None => return Ok(()),
        };
        if let Some(fut) = plain_future(&self.waiter) {
            set_field(vm, &self.reader, &n.waiter, Value::None)?;
            if fut.status() != Status::Cancelled {
                set_result(vm, &self.waiter, fut, Value::None)?;
            }
        }
        let Some((stream_transport, limit)) = self.pausable else {
            return Ok(());
        };
        if (length as i128) <= 2 * limit as i128 {
            return Ok(());
        }
        match vm.call_method(&stream_transport, "pause_reading", &[]) {
            Ok(_) => set_field(vm, &self.reader, &n.reader_paused, Value::Bool(true)),
            Err(exc) if vm.exc_matches(&exc, &vm.types.not_implemented_error) => {
                set_field(vm, &self.reader, &n.reader_transport, Value::None)
            }
            Err(exc) => Err(exc),
        }
    }
}

/// `transport._fatal_error(exc, message)` for an exception caught by
/// `except BaseException` (SystemExit and KeyboardInterrupt go on).
fn fatal_error(vm: &mut Vm, transport: &Value, exc: Exc, message: &str) -> PyResult<()> {
    let types = &vm.types;
    if vm.exc_matches(&exc, &types.system_exit) || vm.exc_matches(&exc, &types.keyboard_interrupt) {
        return Err(exc);
    }
    let args = [Value::Object(exc), Value::str(message)];
    vm.call_method(transport, "_fatal_error", &args)?;
    Ok(())
}

/// `_stream_drained(writer)`: whether `drain()` has nothing to wait for: no exception
/// on the reader, the transport not closing, the protocol neither paused nor lost (what
/// `exception()`, `is_closing()` and `_drain_helper()` would find). False when they
/// are not the library's, for `drain()` to call them.
fn drained(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    let Some(paths) = paths() else {
        return Ok(Value::Bool(false));
    };
    let [writer] = args else {
        return Err(vm.type_error("_stream_drained() takes 1 argument"));
    };
    let n = &paths.names;
    if !keeps(&WRITER_DRAINS, n, writer, &[]) {
        return Ok(Value::Bool(false));
    }
    let reader = field(vm, writer, &n.reader)?;
    let no_error = reader.is_none()
        || (keeps(&READER_DRAINS, n, &reader, &[&paths.exception])
            && field(vm, &reader, &n.exception)?.is_none());
    if !no_error {
        return Ok(Value::Bool(false));
    }
    let transport = field(vm, writer, &n.writer_transport)?;
    if !(keeps(&TRANSPORT_DRAINS, n, &transport, &[&paths.is_closing])
        && matches!(field(vm, &transport, &n.closing)?, Value::Bool(false)))
    {
        return Ok(Value::Bool(false));
    }
    let protocol = field(vm, writer, &n.writer_protocol)?;
    let idle = keeps(&PROTOCOL_DRAINS, n, &protocol, &[&paths.drain_helper])
        && matches!(
            field(vm, &protocol, &n.connection_lost)?,
            Value::Bool(false)
        )
        && matches!(
            field(vm, &protocol, &n.protocol_paused)?,
            Value::Bool(false)
        );
    Ok(Value::Bool(idle))
}

/// `_stream_waiter(reader, func_name)`: `_wait_for_data(func_name)`'s steps up to its
/// `await`: the new waiter, for the caller to await (and set `_waiter` to None after,
/// as `_wait_for_data` does); None when `_wait_for_data` is not the library's.
fn waiter(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    let Some(paths) = paths() else {
        return Ok(Value::None);
    };
    let [reader, Value::Str(func_name)] = args else {
        return Err(vm.type_error("_stream_waiter() takes a reader and a name"));
    };
    let n = &paths.names;
    if !keeps(&READER_WAITS, n, reader, &[&paths.wait_for_data]) {
        return Ok(Value::None);
    }
    if !field(vm, reader, &n.waiter)?.is_none() {
        return Err(vm.runtime_error(format!(
            "{}() called while another coroutine is already waiting for incoming data",
            func_name.as_str()
        )));
    }
    let eof = field(vm, reader, &n.eof)?;
    if vm.truthy(&eof)? {
        return Err(vm.new_exc(&vm.types.assertion_error, "_wait_for_data after EOF"));
    }
    let paused = field(vm, reader, &n.reader_paused)?;
    if vm.truthy(&paused)? {
        set_field(vm, reader, &n.reader_paused, Value::Bool(false))?;
        let transport = field(vm, reader, &n.reader_transport)?;
        vm.call_method(&transport, "resume_reading", &[])?;
    }
    let event_loop = field(vm, reader, &n.event_loop)?;
    let waiter = vm.call_method(&event_loop, "create_future", &[])?;
    set_field(vm, reader, &n.waiter, waiter.clone())?;
    Ok(waiter)
}

/// The module's names for the native paths: `_stream_read_ready` (the socket
/// transport's `_read_ready` calls it), `_stream_drained`, `_stream_waiter` (the
/// streams call them) and `_stream_paths` (streams.apy calls it once).
pub fn names(vm: &Vm) -> Vec<(&'static str, Value)> {
    vec![
        (
            "_stream_read_ready",
            vm.native("_stream_read_ready", read_ready),
        ),
        ("_stream_drained", vm.native("_stream_drained", drained)),
        ("_stream_waiter", vm.native("_stream_waiter", waiter)),
        ("_stream_paths", vm.native("_stream_paths", register)),
    ]
}
