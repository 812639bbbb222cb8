//! The `select` module: `select.select(rlist, wlist, xlist[, timeout])`, `poll()` objects
//! and `epoll` objects, with CPython's constants and messages (`Modules/selectmodule.c`).
//! What a program builds its own event loop on, as the lessons on how asyncio works do.
//! Every wait also watches the Ctrl-C pipe and `--time-limit`, and lets other threads run
//! meanwhile (`Vm::wait_ready_sharing`).
//!
//! In: descriptors (an int, or anything with `fileno()`), event masks, timeouts. Out: the
//! ready objects, or `(fd, events)` lists. The system calls are in `common/net.rs`.

use std::cell::RefCell;
use std::io;
use std::os::fd::RawFd;
use std::rc::Rc;
use std::time::{Duration, Instant};

use super::module_args::as_double;
use super::select_constants::CONSTANTS;
use super::socket::os_error;
use crate::common::net::{self, Epoll, PollFd};
use crate::vm::args::{Signature, check_arity};
use crate::vm::object::{KwArgs, Layout, NativeFn, Object, ObjectKind, PyType};
use crate::vm::types::make_type;
use crate::vm::value::Value;
use crate::vm::{PyResult, Vm};

/// `select()` takes descriptors below this (`FD_SETSIZE`), as CPython's does.
const FD_SETSIZE: i64 = 1024;

/// A `select.poll()` object: the registered descriptors and their event masks, in order.
struct Poll {
    fds: RefCell<Vec<(RawFd, i16)>>,
}

/// A `select.epoll` object: its epoll instance until `close()`.
struct EpollObject {
    epoll: RefCell<Option<Rc<Epoll>>>,
}

/// `PyObject_AsFileDescriptor`: an int, or what `fileno()` returns.
fn descriptor(vm: &mut Vm, obj: &Value) -> PyResult<RawFd> {
    let fd = match obj {
        Value::Int(_) | Value::Bool(_) | Value::BigInt(_) => vm.expect_index(obj)?,
        other => {
            let fileno = vm.intern("fileno");
            let Some(method) = vm.get_attr_opt(other, &fileno)? else {
                let message = "argument must be an int, or have a fileno() method.";
                return Err(vm.type_error(message));
            };
            match vm.call(&method, &[], &[])? {
                n @ (Value::Int(_) | Value::Bool(_) | Value::BigInt(_)) => vm.expect_index(&n)?,
                _ => return Err(vm.type_error("fileno() returned a non-integer")),
            }
        }
    };
    if fd < 0 {
        return Err(vm.value_error(format!(
            "file descriptor cannot be a negative integer ({fd})"
        )));
    }
    RawFd::try_from(fd).map_err(|_| vm.overflow_error("fd is greater than maximum"))
}

/// The instant `seconds` from now; None when there is no limit (or it is past any clock).
fn deadline(seconds: Option<f64>) -> Option<Instant> {
    seconds.and_then(|t| Instant::now().checked_add(Duration::try_from_secs_f64(t).ok()?))
}

/// Waits until one of `fds` is ready or `seconds` pass (None: no limit; 0: just looks).
fn wait(vm: &mut Vm, fds: &mut [PollFd], seconds: Option<f64>) -> PyResult<usize> {
    let ready = if seconds == Some(0.0) {
        net::poll(fds, 0).map_err(|e| os_error(vm, &e))?
    } else {
        vm.wait_ready_sharing(fds, deadline(seconds))?
    };
    if let Some(exc) = vm.check_woken() {
        return Err(exc);
    }
    Ok(ready)
}

/// `select.select(rlist, wlist, xlist[, timeout])`: the three lists' objects whose
/// descriptors are ready to read, to write, or have an exceptional condition.
fn select(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    if !kw.is_empty() {
        return Err(vm.type_error("select() takes no keyword arguments"));
    }
    check_arity(vm, "select", args, 3, 4)?;
    let seconds = match args.get(3) {
        None | Some(Value::None) => None,
        Some(v @ (Value::Int(_) | Value::Bool(_) | Value::BigInt(_) | Value::Float(_))) => {
            let seconds = as_double(vm, v)?;
            if seconds < 0.0 {
                return Err(vm.value_error("timeout must be non-negative"));
            }
            Some(seconds)
        }
        Some(_) => return Err(vm.type_error("timeout must be a float or None")),
    };
    // One pollfd an entry: `select(2)`'s three sets as the events poll asks for.
    let mut entries: Vec<(usize, Value)> = Vec::new();
    let mut fds = Vec::new();
    for (set, events) in [libc::POLLIN, libc::POLLOUT, libc::POLLPRI]
        .into_iter()
        .enumerate()
    {
        let objects = match vm.collect_iterable(&args[set]) {
            Ok(objects) => objects,
            Err(exc) if vm.exc_matches(&exc, &vm.types.type_error) => {
                return Err(vm.type_error("arguments 1-3 must be sequences"));
            }
            Err(exc) => return Err(exc),
        };
        for obj in objects {
            let fd = descriptor(vm, &obj)?;
            if i64::from(fd) >= FD_SETSIZE {
                return Err(vm.value_error("filedescriptor out of range in select()"));
            }
            fds.push(net::poll_fd(fd, events));
            entries.push((set, obj));
        }
    }
    let ready = wait(vm, &mut fds, seconds)?;
    if fds.iter().any(|p| p.revents & libc::POLLNVAL != 0) {
        return Err(os_error(vm, &io::Error::from_raw_os_error(libc::EBADF)));
    }
    // What Linux's select counts as ready in each set.
    let in_set = [
        libc::POLLIN | libc::POLLHUP | libc::POLLERR,
        libc::POLLOUT | libc::POLLERR,
        libc::POLLPRI,
    ];
    let mut lists = [Vec::new(), Vec::new(), Vec::new()];
    if ready > 0 {
        for ((set, obj), p) in entries.into_iter().zip(&fds) {
            if p.revents & in_set[set] != 0 {
                lists[set].push(obj);
            }
        }
    }
    Ok(Value::tuple(lists.into_iter().map(Value::list).collect()))
}

/// A poll event mask: an int that fits a C `unsigned short`.
fn poll_mask(vm: &mut Vm, v: &Value) -> PyResult<i16> {
    let mask = vm.expect_index(v)?;
    if mask < 0 {
        return Err(vm.value_error("value must be positive"));
    }
    if mask > 0xffff {
        let message = "Python int too large for C unsigned short";
        return Err(vm.overflow_error(message));
    }
    Ok(mask as u16 as i16)
}

/// An epoll event mask: an int's low 32 bits, as CPython's `I` conversion takes them.
fn epoll_mask(vm: &mut Vm, v: &Value) -> PyResult<u32> {
    Ok(vm.expect_index(v)? as u32)
}

fn this_poll<'a>(vm: &Vm, args: &'a [Value]) -> PyResult<&'a Poll> {
    args.first()
        .and_then(|v| v.native::<Poll>())
        .ok_or_else(|| vm.type_error("descriptor requires a 'select.poll' object"))
}

const DEFAULT_POLL_MASK: i16 = libc::POLLIN | libc::POLLPRI | libc::POLLOUT;

/// `poll.register(fd[, eventmask])`: watches `fd` (again: with the new mask).
fn poll_register(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    const SIGNATURE: Signature = Signature::positional("poll", "register", &["fd", "mask"], 1);
    let bound = SIGNATURE.bind(vm, &args[1..], kw)?;
    let poll = this_poll(vm, args)?;
    let fd = descriptor(vm, &args[1])?;
    let mask = match &bound[1] {
        Some(v) => poll_mask(vm, v)?,
        None => DEFAULT_POLL_MASK,
    };
    let mut fds = poll.fds.borrow_mut();
    match fds.iter_mut().find(|(f, _)| *f == fd) {
        Some(entry) => entry.1 = mask,
        None => fds.push((fd, mask)),
    }
    Ok(Value::None)
}

/// `poll.modify(fd, eventmask)`: FileNotFoundError (ENOENT) for an unregistered `fd`.
fn poll_modify(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    const SIGNATURE: Signature = Signature::positional("poll", "modify", &["fd", "mask"], 2);
    SIGNATURE.check(vm, &args[1..], kw)?;
    let poll = this_poll(vm, args)?;
    let fd = descriptor(vm, &args[1])?;
    let mask = poll_mask(vm, &args[2])?;
    let mut fds = poll.fds.borrow_mut();
    match fds.iter_mut().find(|(f, _)| *f == fd) {
        Some(entry) => entry.1 = mask,
        None => {
            drop(fds);
            return Err(os_error(vm, &io::Error::from_raw_os_error(libc::ENOENT)));
        }
    }
    Ok(Value::None)
}

/// `poll.unregister(fd)`: KeyError for an unregistered `fd`.
fn poll_unregister(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    Signature::one("poll", "unregister").check(vm, &args[1..], kw)?;
    let poll = this_poll(vm, args)?;
    let fd = descriptor(vm, &args[1])?;
    let at = poll.fds.borrow().iter().position(|(f, _)| *f == fd);
    match at {
        Some(at) => {
            poll.fds.borrow_mut().remove(at);
            Ok(Value::None)
        }
        None => Err(vm.key_error(Value::Int(fd.into()))),
    }
}

/// `poll.poll([timeout])`: `[(fd, events), …]` once one is ready or `timeout`
/// milliseconds pass (None or negative: no limit).
fn poll_poll(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    const SIGNATURE: Signature = Signature::positional("poll", "poll", &["timeout"], 0);
    let bound = SIGNATURE.bind(vm, &args[1..], kw)?;
    let poll = this_poll(vm, args)?;
    let seconds = match &bound[0] {
        None | Some(Value::None) => None,
        Some(v @ (Value::Int(_) | Value::Bool(_) | Value::BigInt(_) | Value::Float(_))) => {
            // Milliseconds, rounded up as CPython's `_PyTime_ROUND_CEILING`.
            let ms = as_double(vm, v)?.ceil();
            (ms >= 0.0).then_some(ms / 1000.0)
        }
        Some(_) => return Err(vm.type_error("timeout must be an integer or None")),
    };
    let mut fds: Vec<PollFd> = poll
        .fds
        .borrow()
        .iter()
        .map(|&(fd, mask)| net::poll_fd(fd, mask))
        .collect();
    wait(vm, &mut fds, seconds)?;
    let ready = fds
        .iter()
        .filter(|p| p.revents != 0)
        .map(|p| {
            let events = i64::from(p.revents as u16);
            Value::tuple(vec![Value::Int(p.fd.into()), Value::Int(events)])
        })
        .collect();
    Ok(Value::list(ready))
}

const POLL_METHODS: &[(&str, NativeFn)] = &[
    ("register", poll_register),
    ("modify", poll_modify),
    ("unregister", poll_unregister),
    ("poll", poll_poll),
];

/// `select.poll()`.
fn new_poll(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    Signature::no_args("select", "poll").check(vm, args, kw)?;
    let class = POLL_TYPE.with(|t| t.borrow().clone());
    let class = class.ok_or_else(|| vm.type_error("select.poll is not ready"))?;
    let poll = Poll {
        fds: RefCell::new(Vec::new()),
    };
    Ok(Value::object(Object::new(
        class,
        ObjectKind::Other(Box::new(poll)),
    )))
}

thread_local! {
    /// The `select.poll` class, made with the module.
    static POLL_TYPE: RefCell<Option<Rc<PyType>>> = const { RefCell::new(None) };
}

/// The epoll instance of an open `select.epoll`; ValueError once it is closed.
fn open_epoll(vm: &Vm, args: &[Value]) -> PyResult<Rc<Epoll>> {
    let obj = args
        .first()
        .and_then(|v| v.native::<EpollObject>())
        .ok_or_else(|| vm.type_error("descriptor requires a 'select.epoll' object"))?;
    let epoll = obj.epoll.borrow().clone();
    epoll.ok_or_else(|| vm.value_error("I/O operation on closed epoll object"))
}

fn epoll_error(vm: &mut Vm, result: io::Result<()>) -> PyResult<Value> {
    result.map(|()| Value::None).map_err(|e| os_error(vm, &e))
}

const DEFAULT_EPOLL_MASK: u32 = (libc::EPOLLIN | libc::EPOLLPRI | libc::EPOLLOUT) as u32;

/// `epoll.register(fd[, eventmask])` and `epoll.modify(fd, eventmask)`.
fn epoll_control(vm: &mut Vm, args: &[Value], kw: &KwArgs, modify: bool) -> PyResult<Value> {
    let signature = match modify {
        true => Signature::keywords("epoll", "modify", &["fd", "eventmask"], 2, 0),
        false => Signature::keywords("epoll", "register", &["fd", "eventmask"], 1, 0),
    };
    let bound = signature.bind(vm, &args[1..], kw)?;
    let epoll = open_epoll(vm, args)?;
    let fd = descriptor(vm, bound[0].as_ref().unwrap_or(&Value::None))?;
    let mask = match &bound[1] {
        Some(v) => epoll_mask(vm, v)?,
        None => DEFAULT_EPOLL_MASK,
    };
    let result = match modify {
        true => epoll.modify(fd, mask),
        false => epoll.add(fd, mask),
    };
    epoll_error(vm, result)
}

/// `epoll.unregister(fd)`.
fn epoll_unregister(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    const SIGNATURE: Signature = Signature::keywords("epoll", "unregister", &["fd"], 1, 0);
    let bound = SIGNATURE.bind(vm, &args[1..], kw)?;
    let epoll = open_epoll(vm, args)?;
    let fd = descriptor(vm, bound[0].as_ref().unwrap_or(&Value::None))?;
    let result = epoll.remove(fd);
    epoll_error(vm, result)
}

/// `epoll.poll(timeout=None, maxevents=-1)`: `[(fd, events), …]` once one is ready or
/// `timeout` seconds pass (None or negative: no limit).
fn epoll_poll(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    const SIGNATURE: Signature =
        Signature::keywords("epoll", "poll", &["timeout", "maxevents"], 0, 0);
    let bound = SIGNATURE.bind(vm, &args[1..], kw)?;
    let epoll = open_epoll(vm, args)?;
    let seconds = match &bound[0] {
        None | Some(Value::None) => None,
        Some(v @ (Value::Int(_) | Value::Bool(_) | Value::BigInt(_) | Value::Float(_))) => {
            let seconds = as_double(vm, v)?;
            (seconds >= 0.0).then_some(seconds)
        }
        Some(v) => {
            let name = vm.type_name(v);
            let message = format!("'{name}' object cannot be interpreted as an integer");
            return Err(vm.type_error(message));
        }
    };
    let max = match &bound[1] {
        None => -1,
        Some(v) => vm.expect_index(v)?,
    };
    let max = match max {
        -1 => FD_SETSIZE as usize - 1,
        n if n <= 0 => {
            let message = format!("maxevents must be greater than 0, got {n}");
            return Err(vm.value_error(message));
        }
        n => n as usize,
    };
    let mut fds = [net::poll_fd(epoll.fd(), libc::POLLIN)];
    if wait(vm, &mut fds, seconds)? == 0 {
        return Ok(Value::list(Vec::new()));
    }
    let ready = epoll.ready(max).map_err(|e| os_error(vm, &e))?;
    let ready = ready
        .into_iter()
        .map(|(fd, events)| Value::tuple(vec![Value::Int(fd.into()), Value::Int(events.into())]))
        .collect();
    Ok(Value::list(ready))
}

fn epoll_close(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    if let Some(obj) = args.first().and_then(|v| v.native::<EpollObject>()) {
        obj.epoll.borrow_mut().take();
        return Ok(Value::None);
    }
    Err(vm.type_error("descriptor requires a 'select.epoll' object"))
}

const EPOLL_METHODS: &[(&str, NativeFn)] = &[
    ("register", |vm, a, kw| epoll_control(vm, a, kw, false)),
    ("modify", |vm, a, kw| epoll_control(vm, a, kw, true)),
    ("unregister", epoll_unregister),
    ("poll", epoll_poll),
    ("close", epoll_close),
    ("fileno", |vm, args, _| {
        Ok(Value::Int(open_epoll(vm, args)?.fd().into()))
    }),
    ("__enter__", |vm, args, _| {
        open_epoll(vm, args).map(|_| args[0].clone())
    }),
    ("__exit__", epoll_close),
];

/// `select.epoll(sizehint=-1, flags=0)`.
fn new_epoll(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    const SIGNATURE: Signature =
        Signature::keywords("epoll", "__new__", &["sizehint", "flags"], 0, 0);
    let Some(Value::Type(cls)) = args.first() else {
        return Err(vm.type_error("epoll.__new__(X): X is not a type object"));
    };
    let bound = SIGNATURE.bind(vm, &args[1..], kw)?;
    if let Some(hint) = &bound[0] {
        let hint = vm.expect_index(hint)?;
        if hint != -1 && hint <= 0 {
            return Err(vm.value_error("negative sizehint"));
        }
    }
    if let Some(flags) = &bound[1] {
        vm.expect_index(flags)?;
    }
    let epoll = Epoll::new().map_err(|e| os_error(vm, &e))?;
    let obj = EpollObject {
        epoll: RefCell::new(Some(Rc::new(epoll))),
    };
    Ok(Value::object(Object::new(
        cls.clone(),
        ObjectKind::Other(Box::new(obj)),
    )))
}

/// A class of this module.
fn module_type(
    vm: &mut Vm,
    name: &str,
    methods: &'static [(&'static str, NativeFn)],
) -> Rc<PyType> {
    let object = vm.types.object.clone();
    let ty = make_type(name, vec![object], Layout::Builtin, false);
    vm.set_type_attr(&ty, "__module__", Value::str("select"));
    vm.add_methods(&ty, methods);
    ty
}

/// Builds the module on its first import.
pub fn module(vm: &mut Vm) -> Value {
    let poll = module_type(vm, "poll", POLL_METHODS);
    POLL_TYPE.with(|t| *t.borrow_mut() = Some(poll));
    let epoll = module_type(vm, "epoll", EPOLL_METHODS);
    vm.add_static(&epoll, "__new__", new_epoll);
    vm.add_getset(
        &epoll,
        "closed",
        |vm, v| {
            let obj = v.native::<EpollObject>();
            let obj = obj.ok_or_else(|| vm.type_error("descriptor requires an epoll"))?;
            Ok(Value::Bool(obj.epoll.borrow().is_none()))
        },
        None,
    );
    let mut attrs = vec![
        ("error", Value::Type(vm.types.os_error.clone())),
        ("select", vm.native("select", select)),
        ("poll", vm.native("poll", new_poll)),
        ("epoll", Value::Type(epoll)),
    ];
    for &(name, value) in CONSTANTS {
        attrs.push((name, Value::Int(value)));
    }
    vm.new_module("select", attrs)
}

#[cfg(test)]
mod tests {
    use super::CONSTANTS;

    /// The table's numbers (shared with the page's module) are this system's.
    #[test]
    fn the_constants_are_the_system_s() {
        let system: &[(&str, i64)] = &[
            ("EPOLLERR", libc::EPOLLERR as i64),
            ("EPOLLET", libc::EPOLLET as u32 as i64),
            ("EPOLLEXCLUSIVE", libc::EPOLLEXCLUSIVE as i64),
            ("EPOLLHUP", libc::EPOLLHUP as i64),
            ("EPOLLIN", libc::EPOLLIN as i64),
            ("EPOLLMSG", libc::EPOLLMSG as i64),
            ("EPOLLONESHOT", libc::EPOLLONESHOT as i64),
            ("EPOLLOUT", libc::EPOLLOUT as i64),
            ("EPOLLPRI", libc::EPOLLPRI as i64),
            ("EPOLLRDBAND", libc::EPOLLRDBAND as i64),
            ("EPOLLRDHUP", libc::EPOLLRDHUP as i64),
            ("EPOLLRDNORM", libc::EPOLLRDNORM as i64),
            ("EPOLLWRBAND", libc::EPOLLWRBAND as i64),
            ("EPOLLWRNORM", libc::EPOLLWRNORM as i64),
            ("EPOLL_CLOEXEC", libc::EPOLL_CLOEXEC as i64),
            ("PIPE_BUF", libc::PIPE_BUF as i64),
            ("POLLERR", libc::POLLERR as i64),
            ("POLLHUP", libc::POLLHUP as i64),
            ("POLLIN", libc::POLLIN as i64),
            ("POLLNVAL", libc::POLLNVAL as i64),
            ("POLLOUT", libc::POLLOUT as i64),
            ("POLLPRI", libc::POLLPRI as i64),
            ("POLLRDBAND", libc::POLLRDBAND as i64),
            ("POLLRDHUP", libc::POLLRDHUP as i64),
            ("POLLRDNORM", libc::POLLRDNORM as i64),
            ("POLLWRBAND", libc::POLLWRBAND as i64),
            ("POLLWRNORM", libc::POLLWRNORM as i64),
        ];
        for &(name, value) in system {
            let listed = CONSTANTS.iter().find(|&&(n, _)| n == name);
            assert_eq!(listed, Some(&(name, value)), "{name}");
        }
    }
}
