//! The `selectors` module: `DefaultSelector` (= `EpollSelector`, over epoll) and
//! `SelectSelector` (over `poll`, which waits as `select` does), `register`/`modify`/
//! `unregister`/`select(timeout)`/`get_key`/`get_map`/`close`, `SelectorKey` (a tuple of
//! `fileobj, fd, events, data`), `EVENT_READ`/`EVENT_WRITE`. Mirrors `Lib/selectors.py`,
//! with its messages. Every wait also watches the Ctrl-C pipe and `--time-limit`, and lets
//! other threads run meanwhile (`Vm::wait_ready_sharing`).
//!
//! In: file objects (an int or anything with `fileno()`), events, timeouts. Out: keys and
//! `(key, events)` lists. The system calls are in `common/net.rs`.

use std::cell::{Cell, RefCell};
use std::os::fd::RawFd;
use std::rc::Rc;
use std::time::{Duration, Instant};

use super::module_args::as_double;
use super::socket::os_error;
use crate::common::net::{self, Epoll};
use crate::vm::args::Signature;
use crate::vm::object::{KwArgs, Layout, NativeFn, Object, ObjectKind, PyType};
use crate::vm::types::make_type;
use crate::vm::value::Value;
use crate::vm::{PyResult, Vm};

pub const EVENT_READ: i64 = 1;
pub const EVENT_WRITE: i64 = 2;

/// How a selector asks the system. The epoll instance is gone once the selector is closed
/// (an `Rc`, so that a wait holds no borrow while other threads run).
enum Backend {
    Epoll(RefCell<Option<Rc<Epoll>>>),
    Poll,
}

/// A selector's state (`_BaseSelectorImpl`): the keys by descriptor, in registration order.
struct Selector {
    backend: Backend,
    keys: RefCell<Vec<(RawFd, Value)>>,
    closed: Cell<bool>,
}

thread_local! {
    /// `SelectorKey` and the mapping type of `get_map()`, made with the module.
    static CLASSES: RefCell<Option<(Rc<PyType>, Rc<PyType>)>> = const { RefCell::new(None) };
}

fn this<'a>(vm: &Vm, args: &'a [Value]) -> PyResult<&'a Selector> {
    args.first()
        .and_then(|v| v.native::<Selector>())
        .ok_or_else(|| vm.type_error("descriptor requires a selector"))
}

/// The selector's epoll instance (None for a `SelectSelector`); ValueError once closed,
/// as CPython's closed `select.epoll` says.
fn epoll_of(vm: &Vm, sel: &Selector) -> PyResult<Option<Rc<Epoll>>> {
    match &sel.backend {
        Backend::Epoll(epoll) => match epoll.borrow().clone() {
            Some(epoll) => Ok(Some(epoll)),
            None => Err(vm.value_error("I/O operation on closed epoll object")),
        },
        Backend::Poll => Ok(None),
    }
}

/// `_fileobj_to_fd`: an int, or what `fileobj.fileno()` returns.
pub fn fileobj_to_fd(vm: &mut Vm, fileobj: &Value) -> PyResult<RawFd> {
    let fd = match fileobj {
        Value::Int(n) => *n,
        other => {
            let fileno = vm.intern("fileno");
            match vm.get_attr_opt(other, &fileno)? {
                Some(f) => {
                    let n = vm.call(&f, &[], &[])?;
                    vm.expect_index(&n)?
                }
                None => {
                    let shown = vm.repr(other)?;
                    return Err(vm.value_error(format!("Invalid file object: {shown}")));
                }
            }
        }
    };
    if fd < 0 {
        return Err(vm.value_error(format!("Invalid file descriptor: {fd}")));
    }
    RawFd::try_from(fd).map_err(|_| vm.value_error(format!("Invalid file descriptor: {fd}")))
}

/// `_fileobj_lookup`: the descriptor of a registered file object, found by identity when
/// its `fileno()` no longer answers (a closed socket).
fn lookup_fd(vm: &mut Vm, sel: &Selector, fileobj: &Value) -> PyResult<RawFd> {
    match fileobj_to_fd(vm, fileobj) {
        Ok(fd) => Ok(fd),
        Err(exc) => {
            let keys = sel.keys.borrow().clone();
            for (fd, key) in keys {
                if key_field(&key, 0).is(fileobj) {
                    return Ok(fd);
                }
            }
            Err(exc)
        }
    }
}

/// A field of a key: of the key, or of the tuple a method of the key receives as `self`.
fn key_field(key: &Value, index: usize) -> Value {
    let tuple = match key {
        Value::Object(o) => o.builtin_base(),
        tuple => Some(tuple),
    };
    match tuple {
        Some(Value::Tuple(t)) => t.items.get(index).cloned().unwrap_or(Value::None),
        _ => Value::None,
    }
}

fn new_key(vm: &Vm, fileobj: Value, fd: RawFd, events: i64, data: Value) -> Value {
    let class = CLASSES
        .with(|c| c.borrow().as_ref().map(|(key, _)| key.clone()))
        .unwrap_or_else(|| vm.types.tuple.clone());
    let items = vec![fileobj, Value::Int(fd.into()), Value::Int(events), data];
    Value::object(Object::new(class, ObjectKind::Builtin(Value::tuple(items))))
}

fn not_registered(vm: &mut Vm, fileobj: &Value) -> PyResult<crate::vm::Exc> {
    let shown = vm.repr(fileobj)?;
    Ok(vm.key_error(Value::str(format!("{shown} is not registered"))))
}

/// Where the keys hold `fileobj`, and its descriptor; KeyError when it is not registered.
fn registered(vm: &mut Vm, sel: &Selector, fileobj: &Value) -> PyResult<(usize, RawFd)> {
    let fd = lookup_fd(vm, sel, fileobj)?;
    let at = sel.keys.borrow().iter().position(|(f, _)| *f == fd);
    match at {
        Some(at) => Ok((at, fd)),
        None => Err(not_registered(vm, fileobj)?),
    }
}

fn events_arg(vm: &mut Vm, v: &Value) -> PyResult<i64> {
    let events = vm.expect_index(v)?;
    if events == 0 || events & !(EVENT_READ | EVENT_WRITE) != 0 {
        return Err(vm.value_error(format!("Invalid events: {events}")));
    }
    Ok(events)
}

fn epoll_events(events: i64) -> u32 {
    let mut mask = 0;
    if events & EVENT_READ != 0 {
        mask |= net::READABLE;
    }
    if events & EVENT_WRITE != 0 {
        mask |= net::WRITABLE;
    }
    mask
}

/// The selector and the `fileobj, events, data=None` of `register` and `modify`.
fn key_args<'a>(
    vm: &mut Vm,
    args: &'a [Value],
    kw: &KwArgs,
    name: &'static str,
) -> PyResult<(&'a Selector, Value, Value, Value)> {
    let signature = Signature::keywords("selector", name, &["fileobj", "events", "data"], 2, 0);
    let mut bound = signature.bind(vm, &args[1..], kw)?.into_iter();
    let mut next = || bound.next().flatten().unwrap_or(Value::None);
    let (fileobj, events, data) = (next(), next(), next());
    Ok((this(vm, args)?, fileobj, events, data))
}

fn register(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let (sel, fileobj, events, data) = key_args(vm, args, kw, "register")?;
    let events = events_arg(vm, &events)?;
    let fd = lookup_fd(vm, sel, &fileobj)?;
    if sel.keys.borrow().iter().any(|(f, _)| *f == fd) {
        let shown = vm.repr(&fileobj)?;
        let message = format!("{shown} (FD {fd}) is already registered");
        return Err(vm.key_error(Value::str(message)));
    }
    if let Some(epoll) = epoll_of(vm, sel)? {
        epoll
            .add(fd, epoll_events(events))
            .map_err(|e| os_error(vm, &e))?;
    }
    let key = new_key(vm, fileobj, fd, events, data);
    sel.keys.borrow_mut().push((fd, key.clone()));
    Ok(key)
}

fn unregister(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    Signature::one("selector", "unregister").check(vm, &args[1..], &[])?;
    let sel = this(vm, args)?;
    let (at, fd) = registered(vm, sel, &args[1])?;
    let (_, key) = sel.keys.borrow_mut().remove(at);
    if let Ok(Some(epoll)) = epoll_of(vm, sel) {
        // A descriptor closed before it was unregistered has left the set already.
        let _ = epoll.remove(fd);
    }
    Ok(key)
}

fn modify(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let (sel, fileobj, events, data) = key_args(vm, args, kw, "modify")?;
    let (at, fd) = registered(vm, sel, &fileobj)?;
    let events = events_arg(vm, &events)?;
    let old = sel.keys.borrow()[at].1.clone();
    if key_field(&old, 2).is(&Value::Int(events)) && key_field(&old, 3).is(&data) {
        return Ok(old);
    }
    if let Some(epoll) = epoll_of(vm, sel)? {
        epoll
            .modify(fd, epoll_events(events))
            .map_err(|e| os_error(vm, &e))?;
    }
    let key = new_key(vm, key_field(&old, 0), fd, events, data);
    sel.keys.borrow_mut()[at].1 = key.clone();
    Ok(key)
}

/// `select(timeout=None)`: waits until a registered descriptor is ready, the timeout
/// passes (`<= 0`: does not wait), Ctrl-C or the time limit; `[(key, events), …]`.
fn select(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    const SIGNATURE: Signature = Signature::keywords("selector", "select", &["timeout"], 0, 0);
    let bound = SIGNATURE.bind(vm, &args[1..], kw)?;
    let sel = this(vm, args)?;
    let timeout = match &bound[0] {
        None | Some(Value::None) => None,
        Some(v) => Some(as_double(vm, v)?.max(0.0)),
    };
    let ready = wait(vm, sel, timeout)?;
    let keys = sel.keys.borrow().clone();
    let mut out = Vec::new();
    for (fd, mask) in ready {
        let Some((_, key)) = keys.iter().find(|(f, _)| *f == fd) else {
            continue;
        };
        let wanted = match key_field(key, 2) {
            Value::Int(n) => n,
            _ => 0,
        };
        let mut events = 0;
        if mask & (net::READABLE | net::ERROR) != 0 {
            events |= EVENT_READ;
        }
        if mask & (net::WRITABLE | net::ERROR) != 0 {
            events |= EVENT_WRITE;
        }
        if events & wanted != 0 {
            out.push(Value::tuple(vec![key.clone(), Value::Int(events & wanted)]));
        }
    }
    Ok(Value::list(out))
}

/// The descriptors ready within `timeout` seconds (None: no limit), with their
/// readiness as epoll words it: from `epoll` and the number of descriptors in it, or
/// without one, by polling `watched`.
pub fn wait_descriptors(
    vm: &mut Vm,
    epoll: Option<(&Epoll, usize)>,
    watched: &[(RawFd, u32)],
    timeout: Option<f64>,
) -> PyResult<Vec<(RawFd, u32)>> {
    let deadline =
        timeout.and_then(|t| Instant::now().checked_add(Duration::try_from_secs_f64(t).ok()?));
    let mut fds: Vec<net::PollFd> = match epoll {
        Some((epoll, _)) => vec![net::poll_fd(epoll.fd(), libc::POLLIN)],
        None => watched
            .iter()
            .map(|&(fd, mask)| {
                let mut events = 0;
                if mask & net::READABLE != 0 {
                    events |= libc::POLLIN;
                }
                if mask & net::WRITABLE != 0 {
                    events |= libc::POLLOUT;
                }
                net::poll_fd(fd, events)
            })
            .collect(),
    };
    let ready = if timeout == Some(0.0) {
        net::poll(&mut fds, 0).unwrap_or(0)
    } else {
        vm.wait_ready_sharing(&mut fds, deadline)?
    };
    if let Some(exc) = vm.check_woken() {
        return Err(exc);
    }
    if ready == 0 {
        return Ok(Vec::new());
    }
    match epoll {
        Some((epoll, count)) => epoll.ready(count.max(1)).map_err(|e| os_error(vm, &e)),
        None => Ok(fds
            .iter()
            .filter(|p| p.revents != 0)
            .map(|p| {
                let mut mask = 0;
                if p.revents & libc::POLLIN != 0 {
                    mask |= net::READABLE;
                }
                if p.revents & libc::POLLOUT != 0 {
                    mask |= net::WRITABLE;
                }
                if p.revents & (libc::POLLERR | libc::POLLHUP | libc::POLLNVAL) != 0 {
                    mask |= net::ERROR;
                }
                (p.fd, mask)
            })
            .collect()),
    }
}

fn wait(vm: &mut Vm, sel: &Selector, timeout: Option<f64>) -> PyResult<Vec<(RawFd, u32)>> {
    let watched: Vec<(RawFd, u32)> = sel
        .keys
        .borrow()
        .iter()
        .map(|(fd, key)| {
            let events = match key_field(key, 2) {
                Value::Int(n) => n,
                _ => 0,
            };
            (*fd, epoll_events(events))
        })
        .collect();
    let epoll = epoll_of(vm, sel)?;
    let epoll = epoll.as_deref().map(|epoll| (epoll, watched.len()));
    wait_descriptors(vm, epoll, &watched, timeout)
}

fn get_key(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    Signature::one("selector", "get_key").check(vm, &args[1..], &[])?;
    let sel = this(vm, args)?;
    if sel.closed.get() {
        return Err(vm.runtime_error("Selector is closed"));
    }
    let (at, _) = registered(vm, sel, &args[1])?;
    Ok(sel.keys.borrow()[at].1.clone())
}

/// `close()` (and `__exit__`): forgets the keys and closes the epoll instance; then
/// `get_map()` is None and `get_key()` a RuntimeError, as in `Lib/selectors.py`.
fn close(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    let sel = this(vm, args)?;
    sel.closed.set(true);
    sel.keys.borrow_mut().clear();
    if let Backend::Epoll(epoll) = &sel.backend {
        epoll.borrow_mut().take();
    }
    Ok(Value::None)
}

/// `get_map()`: a read-only mapping from descriptors to keys, live (None once closed).
fn get_map(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    if this(vm, args)?.closed.get() {
        return Ok(Value::None);
    }
    let class = CLASSES
        .with(|c| c.borrow().as_ref().map(|(_, map)| map.clone()))
        .unwrap_or_else(|| vm.types.object.clone());
    Ok(Value::object(Object::new(
        class,
        ObjectKind::Other(Box::new(SelectorMap(args[0].clone()))),
    )))
}

/// What `get_map()` returns: a view of its selector's keys.
struct SelectorMap(Value);

/// The selector a `get_map()` mapping reads.
fn mapped<'a>(vm: &Vm, args: &'a [Value]) -> PyResult<&'a Selector> {
    args.first()
        .and_then(|v| v.native::<SelectorMap>())
        .and_then(|map| map.0.native::<Selector>())
        .ok_or_else(|| vm.type_error("descriptor requires a selector mapping"))
}

const MAPPING_METHODS: &[(&str, NativeFn)] = &[
    ("__len__", |vm, args, _| {
        Ok(Value::Int(mapped(vm, args)?.keys.borrow().len() as i64))
    }),
    ("__iter__", |vm, args, _| {
        let fds: Vec<Value> = mapped(vm, args)?
            .keys
            .borrow()
            .iter()
            .map(|(fd, _)| Value::Int((*fd).into()))
            .collect();
        vm.get_iter(&Value::list(fds))
    }),
    ("__getitem__", |vm, args, _| {
        let sel = mapped(vm, args)?;
        let fileobj = args.get(1).cloned().unwrap_or(Value::None);
        let fd = lookup_fd(vm, sel, &fileobj)?;
        let keys = sel.keys.borrow();
        let found = keys.iter().find(|(f, _)| *f == fd).map(|(_, k)| k.clone());
        drop(keys);
        found.ok_or_else(|| vm.key_error(fileobj))
    }),
    ("__contains__", |vm, args, _| {
        let sel = mapped(vm, args)?;
        let fileobj = args.get(1).cloned().unwrap_or(Value::None);
        let Ok(fd) = lookup_fd(vm, sel, &fileobj) else {
            return Ok(Value::Bool(false));
        };
        Ok(Value::Bool(sel.keys.borrow().iter().any(|(f, _)| *f == fd)))
    }),
    ("values", |vm, args, _| {
        let keys: Vec<Value> = mapped(vm, args)?
            .keys
            .borrow()
            .iter()
            .map(|(_, k)| k.clone())
            .collect();
        Ok(Value::list(keys))
    }),
];

const SELECTOR_METHODS: &[(&str, NativeFn)] = &[
    ("register", register),
    ("unregister", unregister),
    ("modify", modify),
    ("select", select),
    ("get_key", get_key),
    ("get_map", get_map),
    ("close", close),
    ("fileno", |vm, args, _| {
        match epoll_of(vm, this(vm, args)?)? {
            Some(epoll) => Ok(Value::Int(epoll.fd().into())),
            None => Err(vm.attribute_error("'SelectSelector' object has no attribute 'fileno'")),
        }
    }),
    ("__enter__", |vm, args, _| {
        this(vm, args).map(|_| args[0].clone())
    }),
    ("__exit__", close),
];

/// A class of this module deriving from `base`.
fn module_type(vm: &mut Vm, name: &str, base: &Rc<PyType>) -> Rc<PyType> {
    let ty = make_type(name, vec![base.clone()], Layout::Builtin, false);
    vm.set_type_attr(&ty, "__module__", Value::str("selectors"));
    ty
}

fn selector_type(vm: &mut Vm, name: &str, base: &Rc<PyType>, new: NativeFn) -> Rc<PyType> {
    let ty = module_type(vm, name, base);
    vm.add_static(&ty, "__new__", new);
    vm.add_methods(&ty, SELECTOR_METHODS);
    ty
}

fn make_selector(vm: &mut Vm, args: &[Value], backend: Backend) -> PyResult<Value> {
    let Some(Value::Type(cls)) = args.first() else {
        return Err(vm.type_error("selector.__new__(X): X is not a type object"));
    };
    Ok(Value::object(Object::new(
        cls.clone(),
        ObjectKind::Other(Box::new(Selector {
            backend,
            keys: RefCell::new(Vec::new()),
            closed: Cell::new(false),
        })),
    )))
}

fn key_repr(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    let key = args.first().cloned().unwrap_or(Value::None);
    let mut parts = Vec::new();
    for (i, name) in ["fileobj", "fd", "events", "data"].into_iter().enumerate() {
        parts.push(format!("{name}={}", vm.repr(&key_field(&key, i))?));
    }
    Ok(Value::str(format!("SelectorKey({})", parts.join(", "))))
}

/// Builds the module on its first import.
pub fn module(vm: &mut Vm) -> Value {
    let tuple = vm.types.tuple.clone();
    let key = module_type(vm, "SelectorKey", &tuple);
    vm.add_method(&key, "__repr__", key_repr);
    for name in ["fileobj", "fd", "events", "data"] {
        let get: crate::vm::object::Getter = match name {
            "fileobj" => |_, v| Ok(key_field(v, 0)),
            "fd" => |_, v| Ok(key_field(v, 1)),
            "events" => |_, v| Ok(key_field(v, 2)),
            _ => |_, v| Ok(key_field(v, 3)),
        };
        vm.add_getset(&key, name, get, None);
    }
    let object = vm.types.object.clone();
    let map = module_type(vm, "_SelectorMapping", &object);
    vm.add_methods(&map, MAPPING_METHODS);
    CLASSES.with(|c| *c.borrow_mut() = Some((key.clone(), map)));
    let base = module_type(vm, "BaseSelector", &object);
    let epoll = selector_type(vm, "EpollSelector", &base, |vm, args, _| {
        let epoll = Epoll::new().map_err(|e| os_error(vm, &e))?;
        make_selector(vm, args, Backend::Epoll(RefCell::new(Some(Rc::new(epoll)))))
    });
    let select = selector_type(vm, "SelectSelector", &base, |vm, args, _| {
        make_selector(vm, args, Backend::Poll)
    });
    vm.new_module(
        "selectors",
        vec![
            ("EVENT_READ", Value::Int(EVENT_READ)),
            ("EVENT_WRITE", Value::Int(EVENT_WRITE)),
            ("SelectorKey", Value::Type(key)),
            ("BaseSelector", Value::Type(base)),
            ("DefaultSelector", Value::Type(epoll.clone())),
            ("EpollSelector", Value::Type(epoll)),
            ("SelectSelector", Value::Type(select)),
        ],
    )
}
