//! The `socket` module: `socket.socket` (AF_INET, AF_INET6, AF_UNIX; stream and datagram),
//! `socketpair`, `create_connection`, `create_server`, `getaddrinfo`, the constants, and
//! the OSError family with CPython's errno and texts (`socket.gaierror` for names that do
//! not resolve, TimeoutError "timed out"). Mirrors `Modules/socketmodule.c` and the Python
//! half in `Lib/socket.py`.
//!
//! In: Python values. Out: socket objects and values. The system calls are in
//! `common/net.rs`; every descriptor is non-blocking underneath, and a blocking call waits
//! for readiness in `Vm::wait_ready_sharing`, so that Ctrl-C and `--time-limit` end it and
//! other threads run meanwhile.

use std::cell::{Cell, RefCell};
use std::io;
use std::os::fd::RawFd;
use std::rc::Rc;
use std::time::{Duration, Instant};

use super::bytes_type::bytes_of;
use super::memoryview::WritableBuffer;
use crate::common::errno_text;
use crate::common::net::{self, SockAddr};
use crate::vm::args::Signature;
use crate::vm::object::{KwArgs, Layout, NativeFn, Object, ObjectKind, PyType};
use crate::vm::sandbox::Capability;
use crate::vm::types::make_type;
use crate::vm::value::Value;
use crate::vm::{Exc, PyResult, Vm};

/// A socket object's state (`PySocketSockObject`).
pub struct Socket {
    /// -1 once closed or detached.
    fd: Cell<RawFd>,
    family: i32,
    kind: i32,
    proto: i32,
    /// None: blocking; Some(0.0): non-blocking; Some(t): blocking for at most t seconds.
    timeout: Cell<Option<f64>>,
    /// The files `makefile` made over it that are still open (CPython's `_io_refs`).
    /// While there are some, `close()` only marks the socket closed: the descriptor is
    /// closed with the last of them, so that a response can still be read after its
    /// connection was closed (`http.client` does that).
    io_refs: Cell<usize>,
    /// `close()` was called while files were open.
    close_pending: Cell<bool>,
}

impl Drop for Socket {
    fn drop(&mut self) {
        if self.fd.get() >= 0 {
            net::close(self.fd.get());
        }
    }
}

thread_local! {
    /// The module's classes, made with it: `socket.socket` and `socket.gaierror`.
    static CLASSES: RefCell<Option<(Rc<PyType>, Rc<PyType>)>> = const { RefCell::new(None) };
    /// The timeout a new socket starts with (`setdefaulttimeout`; None: blocking).
    static DEFAULT_TIMEOUT: Cell<Option<f64>> = const { Cell::new(None) };
}

fn classes(vm: &Vm) -> (Rc<PyType>, Rc<PyType>) {
    CLASSES.with(|c| c.borrow().clone()).unwrap_or_else(|| {
        let os_error = vm.types.os_error.clone();
        (vm.types.object.clone(), os_error)
    })
}

/// The socket `v` holds, if it is one.
pub fn as_socket(v: &Value) -> Option<&Socket> {
    v.native::<Socket>()
}

fn this<'a>(vm: &Vm, args: &'a [Value]) -> PyResult<&'a Socket> {
    args.first()
        .and_then(as_socket)
        .ok_or_else(|| vm.type_error("descriptor requires a 'socket' object"))
}

/// `class(errno, text)`: OSError itself becomes the subclass its errno names.
fn errno_error(vm: &mut Vm, class: Rc<PyType>, errno: i32, text: String) -> Exc {
    let args = [Value::Int(errno.into()), Value::str(text)];
    match vm.call(&Value::Type(class), &args, &[]) {
        Ok(Value::Object(exc)) => exc,
        Ok(_) => vm.new_exc(&vm.types.os_error, "[Errno ?]"),
        Err(exc) => exc,
    }
}

/// The OSError (or the subclass its errno names) for a failed system call.
pub fn os_error(vm: &mut Vm, error: &io::Error) -> Exc {
    let errno = error.raw_os_error().unwrap_or(libc::EINVAL);
    let os_error = vm.types.os_error.clone();
    errno_error(vm, os_error, errno, errno_text::strerror(errno))
}

pub(super) fn gai_error(vm: &mut Vm, (errno, text): (i32, String)) -> Exc {
    let (_, gaierror) = classes(vm);
    errno_error(vm, gaierror, errno, text)
}

fn new_socket(vm: &Vm, fd: RawFd, family: i32, kind: i32, proto: i32) -> Value {
    let (class, _) = classes(vm);
    Value::object(Object::new(
        class,
        ObjectKind::Other(Box::new(Socket {
            fd: Cell::new(fd),
            family,
            kind,
            proto,
            timeout: Cell::new(DEFAULT_TIMEOUT.get()),
            io_refs: Cell::new(0),
            close_pending: Cell::new(false),
        })),
    ))
}

fn would_block(error: &io::Error) -> bool {
    matches!(error.raw_os_error(), Some(libc::EAGAIN | libc::EINPROGRESS))
}

/// Runs `op` on the socket's descriptor as a blocking call when the socket blocks: until
/// it no longer reports "would block", waiting for `events` in between, for at most the
/// socket's timeout (then TimeoutError "timed out").
fn io_call<T>(
    vm: &mut Vm,
    sock: &Socket,
    events: i16,
    mut op: impl FnMut(RawFd) -> io::Result<T>,
) -> PyResult<T> {
    let timeout = sock.timeout.get();
    let deadline = timeout
        .filter(|t| *t > 0.0)
        .and_then(|t| Instant::now().checked_add(Duration::from_secs_f64(t)));
    loop {
        match op(sock.fd.get()) {
            Ok(v) => return Ok(v),
            Err(e) if e.raw_os_error() == Some(libc::EINTR) => {}
            Err(e) if would_block(&e) && timeout != Some(0.0) => {
                if !vm.wait_fd_sharing(sock.fd.get(), events, deadline)? {
                    return Err(vm.new_exc(&vm.types.timeout_error, "timed out"));
                }
            }
            Err(e) => return Err(os_error(vm, &e)),
        }
    }
}

// ---- addresses ----------------------------------------------------------------------

fn port_arg(vm: &mut Vm, v: &Value, method: &str) -> PyResult<u16> {
    let Some(port) = vm.index_value(v)? else {
        return Err(vm.type_error(format!(
            "'{}' object cannot be interpreted as an integer",
            vm.type_name(v)
        )));
    };
    u16::try_from(port).map_err(|_| vm.overflow_error(format!("{method}(): port must be 0-65535.")))
}

/// A Python address for a socket of `family` (`getsockaddrarg`), resolved.
fn address_arg(vm: &mut Vm, family: i32, v: &Value, method: &str) -> PyResult<SockAddr> {
    if family == libc::AF_UNIX {
        return match v {
            Value::Str(path) => Ok(SockAddr::Unix(path.as_str().as_bytes().to_vec())),
            other => bytes_of(other).map(SockAddr::Unix).ok_or_else(|| {
                vm.type_error(format!(
                    "a bytes-like object is required, not '{}'",
                    vm.type_name(other)
                ))
            }),
        };
    }
    let family_name = if family == libc::AF_INET6 {
        "AF_INET6"
    } else {
        "AF_INET"
    };
    let Value::Tuple(t) = v else {
        return Err(vm.type_error(format!(
            "{method}(): {family_name} address must be tuple, not {}",
            vm.type_name(v)
        )));
    };
    let (Some(host), Some(port)) = (t.items.first(), t.items.get(1)) else {
        return Err(vm.type_error(format!("{family_name} address must be a pair (host, port)")));
    };
    let Value::Str(host) = host else {
        return Err(vm.type_error(format!(
            "str, bytes or bytearray expected, not {}",
            vm.type_name(host)
        )));
    };
    let port = port_arg(vm, port, method)?;
    let addrs = net::resolve(host.as_str(), port).map_err(|e| gai_error(vm, e))?;
    let wanted = |a: &&SockAddr| match a {
        SockAddr::Inet(..) => family == libc::AF_INET,
        SockAddr::Inet6(..) => family == libc::AF_INET6,
        SockAddr::Unix(_) => false,
    };
    match addrs.iter().find(wanted) {
        Some(addr) => Ok(addr.clone()),
        None => Err(gai_error(
            vm,
            (-9, "Address family for hostname not supported".into()),
        )),
    }
}

/// A socket address as Python shows it: `('127.0.0.1', 80)`, `('::1', 80, 0, 0)`, a path.
pub fn address_value(addr: &SockAddr) -> Value {
    match addr {
        SockAddr::Inet(ip, port) => {
            Value::tuple(vec![Value::str(ip.to_string()), Value::Int((*port).into())])
        }
        SockAddr::Inet6(ip, port, flowinfo, scope) => Value::tuple(vec![
            Value::str(ip.to_string()),
            Value::Int((*port).into()),
            Value::Int((*flowinfo).into()),
            Value::Int((*scope).into()),
        ]),
        SockAddr::Unix(path) => Value::str(String::from_utf8_lossy(path)),
    }
}

// ---- the socket type ----------------------------------------------------------------

fn socket_new(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    const SIGNATURE: Signature = Signature::keywords(
        "socket",
        "socket",
        &["family", "type", "proto", "fileno"],
        0,
        0,
    );
    let bound = SIGNATURE.bind(vm, args.get(1..).unwrap_or(&[]), kw)?;
    let int = |vm: &mut Vm, v: &Option<Value>, default: i64| -> PyResult<i32> {
        match v {
            None | Some(Value::None) => Ok(default as i32),
            Some(v) => Ok(vm.expect_index(v)? as i32),
        }
    };
    let family = int(vm, &bound[0], libc::AF_INET.into())?;
    let kind = int(vm, &bound[1], libc::SOCK_STREAM.into())?;
    let proto = int(vm, &bound[2], 0)?;
    if bound[3].as_ref().is_some_and(|v| !v.is_none()) {
        return Err(vm.value_error("socket.socket(fileno=…) is not supported by apy"));
    }
    vm.require(Capability::Sockets, "socket.socket")?;
    let fd = net::socket(family, kind, proto).map_err(|e| os_error(vm, &e))?;
    Ok(new_socket(vm, fd, family, kind, proto))
}

fn socket_repr(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    let sock = this(vm, args)?;
    let fd = sock.fd.get();
    let mut text = format!(
        "<socket.socket {}fd={fd}, family={}, type={}, proto={}",
        if fd < 0 { "[closed] " } else { "" },
        sock.family,
        sock.kind,
        sock.proto
    );
    if fd >= 0 {
        for (label, addr) in [
            ("laddr", net::local_addr(fd)),
            ("raddr", net::peer_addr(fd)),
        ] {
            match addr {
                Ok(SockAddr::Unix(path)) if path.is_empty() => {}
                Ok(addr) => {
                    let shown = vm.repr(&address_value(&addr))?;
                    text.push_str(&format!(", {label}={shown}"));
                }
                Err(_) => {}
            }
        }
    }
    text.push('>');
    Ok(Value::str(text))
}

fn bind(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    Signature::one("socket", "bind").check(vm, &args[1..], &[])?;
    let sock = this(vm, args)?;
    let addr = address_arg(vm, sock.family, &args[1], "bind")?;
    net::bind(sock.fd.get(), &addr).map_err(|e| os_error(vm, &e))?;
    Ok(Value::None)
}

fn listen(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    let bound =
        Signature::positional("socket", "listen", &["backlog"], 0).bind(vm, &args[1..], &[])?;
    let sock = this(vm, args)?;
    let backlog = match &bound[0] {
        Some(v) => vm.expect_index(v)?.clamp(0, i32::MAX.into()) as i32,
        None => 128,
    };
    net::listen(sock.fd.get(), backlog).map_err(|e| os_error(vm, &e))?;
    Ok(Value::None)
}

fn accept(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    let sock = this(vm, args)?;
    let (fd, peer) = io_call(vm, sock, libc::POLLIN, net::accept)?;
    let conn = new_socket(vm, fd, sock.family, sock.kind, sock.proto);
    // A socket accepted starts with the default timeout, whatever the listener's is, as
    // Lib/socket.py's accept() makes it.
    Ok(Value::tuple(vec![conn, address_value(&peer)]))
}

/// `connect`, and `connect_ex` (`ex`: the errno as a result instead of an exception).
fn connect(vm: &mut Vm, args: &[Value], ex: bool) -> PyResult<Value> {
    Signature::one("socket", if ex { "connect_ex" } else { "connect" }).check(
        vm,
        &args[1..],
        &[],
    )?;
    let sock = this(vm, args)?;
    let addr = address_arg(vm, sock.family, &args[1], "connect")?;
    let fd = sock.fd.get();
    let outcome = match net::connect(fd, &addr) {
        Err(e)
            if e.raw_os_error() == Some(libc::EINPROGRESS) && sock.timeout.get() != Some(0.0) =>
        {
            // Blocking: wait until the connection is made or refused, then read which.
            io_call(vm, sock, libc::POLLOUT, |fd| {
                let mut fds = [net::poll_fd(fd, libc::POLLOUT)];
                match net::poll(&mut fds, 0)? {
                    0 => Err(io::Error::from_raw_os_error(libc::EAGAIN)),
                    _ => Ok(()),
                }
            })
            .map(|()| match net::socket_error(fd) {
                Ok(0) => Ok(()),
                Ok(errno) => {
                    // A socket without a timeout is a blocking one in CPython, which can
                    // connect again after a refusal (`connect_ex` in a retry loop).
                    if sock.timeout.get().is_none() {
                        let _ = net::dissolve(fd);
                    }
                    Err(io::Error::from_raw_os_error(errno))
                }
                Err(e) => Err(e),
            })?
        }
        other => other,
    };
    match (outcome, ex) {
        (Ok(()), true) => Ok(Value::Int(0)),
        (Ok(()), false) => Ok(Value::None),
        (Err(e), true) => Ok(Value::Int(e.raw_os_error().unwrap_or(libc::EINVAL).into())),
        (Err(e), false) => Err(os_error(vm, &e)),
    }
}

fn data_arg(vm: &Vm, v: &Value) -> PyResult<Vec<u8>> {
    bytes_of(v).ok_or_else(|| {
        vm.type_error(format!(
            "a bytes-like object is required, not '{}'",
            vm.type_name(v)
        ))
    })
}

fn flags_arg(vm: &mut Vm, v: Option<&Value>) -> PyResult<i32> {
    match v {
        None => Ok(0),
        Some(v) => Ok(vm.expect_index(v)? as i32),
    }
}

/// The arguments of `name(first, flags=0)` after `self`, positional only, with the
/// messages of CPython's `PyArg_ParseTuple` ("recv() takes at least 1 argument (0 given)").
fn first_and_flags(
    vm: &Vm,
    args: &[Value],
    kw: &KwArgs,
    name: &'static str,
) -> PyResult<[Option<Value>; 2]> {
    if !kw.is_empty() {
        return Err(vm.type_error(format!("socket.{name}() takes no keyword arguments")));
    }
    match &args[1..] {
        [first] => Ok([Some(first.clone()), None]),
        [first, flags] => Ok([Some(first.clone()), Some(flags.clone())]),
        rest => {
            let (bound, n) = if rest.is_empty() {
                ("at least 1 argument", 0)
            } else {
                ("at most 2 arguments", rest.len())
            };
            Err(vm.type_error(format!("{name}() takes {bound} ({n} given)")))
        }
    }
}

/// The socket, the data and the flags of `send(data, flags=0)` and `sendall`.
fn data_and_flags<'a>(
    vm: &mut Vm,
    args: &'a [Value],
    kw: &KwArgs,
    name: &'static str,
) -> PyResult<(&'a Socket, Vec<u8>, i32)> {
    let bound = first_and_flags(vm, args, kw, name)?;
    let sock = this(vm, args)?;
    let data = data_arg(vm, bound[0].as_ref().unwrap_or(&Value::None))?;
    let flags = flags_arg(vm, bound[1].as_ref())?;
    Ok((sock, data, flags))
}

/// The socket, the buffer size and the flags of `recv(bufsize, flags=0)` and `recvfrom`.
fn size_and_flags<'a>(
    vm: &mut Vm,
    args: &'a [Value],
    kw: &KwArgs,
    name: &'static str,
) -> PyResult<(&'a Socket, usize, i32)> {
    let bound = first_and_flags(vm, args, kw, name)?;
    let sock = this(vm, args)?;
    let size = bufsize_arg(vm, bound[0].as_ref().unwrap_or(&Value::None), name)?;
    let flags = flags_arg(vm, bound[1].as_ref())?;
    Ok((sock, size.min(1 << 24), flags))
}

fn send(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let (sock, data, flags) = data_and_flags(vm, args, kw, "send")?;
    let n = io_call(vm, sock, libc::POLLOUT, |fd| net::send(fd, &data, flags))?;
    Ok(Value::Int(n as i64))
}

fn sendall(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let (sock, data, flags) = data_and_flags(vm, args, kw, "sendall")?;
    let mut sent = 0;
    while sent < data.len() {
        sent += io_call(vm, sock, libc::POLLOUT, |fd| {
            net::send(fd, &data[sent..], flags)
        })?;
    }
    Ok(Value::None)
}

fn bufsize_arg(vm: &mut Vm, v: &Value, method: &str) -> PyResult<usize> {
    let n = vm.expect_index(v)?;
    usize::try_from(n).map_err(|_| vm.value_error(format!("negative buffersize in {method}")))
}

thread_local! {
    /// The buffer `recv` and `recvfrom` read into, kept between calls: a fresh buffer of
    /// the socket transport's 256 KiB (`max_size`) for each read cost the allocator an
    /// mmap, an mremap and a munmap, three system calls where copying out the few bytes
    /// that came costs less.
    static READ_BUFFER: Cell<Vec<u8>> = const { Cell::new(Vec::new()) };
}

/// The largest read that goes through `READ_BUFFER` (so the most it keeps); a larger one
/// reads into a buffer of its own.
const KEPT_READ_BUFFER: usize = 1 << 20;

/// Runs `read`, which appends at most `size` bytes to the empty buffer it is given, and
/// returns those bytes, in a buffer of their length, with what `read` returned.
fn read_into_buffer<T>(
    size: usize,
    read: impl FnOnce(&mut Vec<u8>) -> PyResult<T>,
) -> PyResult<(Vec<u8>, T)> {
    if size > KEPT_READ_BUFFER {
        let mut buffer = Vec::new();
        let result = read(&mut buffer)?;
        buffer.shrink_to_fit();
        return Ok((buffer, result));
    }
    // Taken out while in use, so a read that starts meanwhile gets a buffer of its own.
    let mut buffer = READ_BUFFER.take();
    buffer.clear();
    let result = read(&mut buffer);
    let data = buffer.as_slice().to_vec();
    READ_BUFFER.set(buffer);
    result.map(|r| (data, r))
}

fn recv(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let (sock, size, flags) = size_and_flags(vm, args, kw, "recv")?;
    let data = recv_flags(vm, sock, size, flags)?;
    Ok(vm.new_bytes(data))
}

/// `sock.recv(size)`'s bytes, for a native caller (the streams' read, asyncio/stream_read.rs).
pub fn recv_bytes(vm: &mut Vm, sock: &Socket, size: usize) -> PyResult<Vec<u8>> {
    recv_flags(vm, sock, size.min(1 << 24), 0)
}

fn recv_flags(vm: &mut Vm, sock: &Socket, size: usize, flags: i32) -> PyResult<Vec<u8>> {
    let (data, _) = read_into_buffer(size, |buffer| {
        io_call(vm, sock, libc::POLLIN, |fd| {
            net::recv_spare(fd, buffer, size, flags)
        })
    })?;
    Ok(data)
}

/// `recv_into(buffer, nbytes=0, flags=0)`: into a bytearray; the number of bytes read.
fn recv_into(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    let bound = Signature::positional("socket", "recv_into", &["buffer", "nbytes", "flags"], 1)
        .bind(vm, &args[1..], &[])?;
    let sock = this(vm, args)?;
    let target = bound[0].clone().unwrap_or(Value::None);
    let Some(room) = WritableBuffer::of(vm, &target).map(|w| w.size()) else {
        return Err(vm.type_error(format!(
            "recv_into() argument 1 must be read-write bytes-like object, not {}",
            vm.type_name(&target)
        )));
    };
    let size = match &bound[1] {
        Some(v) => bufsize_arg(vm, v, "recv_into")?,
        None => 0,
    };
    if size > room {
        return Err(vm.value_error("buffer too small for requested bytes"));
    }
    let size = if size == 0 { room } else { size };
    let flags = flags_arg(vm, bound[2].as_ref())?;
    let mut buffer = vec![0u8; size];
    let n = io_call(vm, sock, libc::POLLIN, |fd| {
        net::recv(fd, &mut buffer, flags)
    })?;
    if let Some(window) = WritableBuffer::of(vm, &target) {
        window.write(0, &buffer[..n]);
    }
    Ok(Value::Int(n as i64))
}

/// `sendto(data, address)` or `sendto(data, flags, address)`.
fn sendto(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    let sock = this(vm, args)?;
    let (data, flags, address) = match &args[1..] {
        [data, address] => (data, None, address),
        [data, flags, address] => (data, Some(flags), address),
        other => {
            return Err(vm.type_error(format!(
                "sendto() takes 2 or 3 arguments ({} given)",
                other.len()
            )));
        }
    };
    let data = data_arg(vm, data)?;
    let flags = flags_arg(vm, flags)?;
    let addr = address_arg(vm, sock.family, address, "sendto")?;
    let n = io_call(vm, sock, libc::POLLOUT, |fd| {
        net::send_to(fd, &data, flags, &addr)
    })?;
    Ok(Value::Int(n as i64))
}

fn recvfrom(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let (sock, size, flags) = size_and_flags(vm, args, kw, "recvfrom")?;
    let (data, (_, from)) = read_into_buffer(size, |buffer| {
        io_call(vm, sock, libc::POLLIN, |fd| {
            net::recv_from(fd, buffer, size, flags)
        })
    })?;
    Ok(Value::tuple(vec![vm.new_bytes(data), address_value(&from)]))
}

fn close(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    let sock = this(vm, args)?;
    if sock.io_refs.get() > 0 {
        sock.close_pending.set(true);
    } else {
        sock.real_close();
    }
    Ok(Value::None)
}

impl Socket {
    fn real_close(&self) {
        let fd = self.fd.replace(-1);
        if fd >= 0 {
            net::close(fd);
        }
    }
}

/// `makefile(mode='r', buffering=None, *, encoding=None, errors=None, newline=None)`: a
/// file object over the socket, made in apy by the library module `_socketfile` (CPython
/// makes a `BufferedReader`/`BufferedWriter` over a `SocketIO`, in `Lib/socket.py`).
fn makefile(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    this(vm, args)?;
    let module = vm.import_module("_socketfile")?;
    let make = vm.intern("makefile");
    let make = vm.get_attr(&module, &make)?;
    vm.call(&make, args, kw)
}

/// `_adjust_io_refs(delta)`: a file of `makefile` was opened (1) or closed (-1); the last
/// one closed closes a socket whose `close()` was called meanwhile.
fn adjust_io_refs(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    Signature::one("socket", "_adjust_io_refs").check(vm, &args[1..], &[])?;
    let sock = this(vm, args)?;
    let refs = match vm.expect_index(&args[1])? {
        1 => sock.io_refs.get() + 1,
        _ => sock.io_refs.get().saturating_sub(1),
    };
    sock.io_refs.set(refs);
    if refs == 0 && sock.close_pending.get() {
        sock.real_close();
    }
    Ok(Value::None)
}

fn name(vm: &mut Vm, args: &[Value], peer: bool) -> PyResult<Value> {
    let sock = this(vm, args)?;
    let fd = sock.fd.get();
    let addr = if peer {
        net::peer_addr(fd)
    } else {
        net::local_addr(fd)
    };
    addr.map(|a| address_value(&a))
        .map_err(|e| os_error(vm, &e))
}

/// The socket, level and option name of `setsockopt` (`params` has `value`) and
/// `getsockopt`.
fn option_args<'a>(
    vm: &mut Vm,
    args: &'a [Value],
    name: &'static str,
    params: &'static [&'static str],
) -> PyResult<(&'a Socket, i32, i32)> {
    Signature::positional("socket", name, params, params.len()).check(vm, &args[1..], &[])?;
    let sock = this(vm, args)?;
    let level = vm.expect_index(&args[1])? as i32;
    let option = vm.expect_index(&args[2])? as i32;
    Ok((sock, level, option))
}

fn setsockopt(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    let params = &["level", "optname", "value"];
    let (sock, level, option) = option_args(vm, args, "setsockopt", params)?;
    // The value is an int, or the bytes of a C structure (`struct linger` for SO_LINGER).
    let set = match bytes_of(&args[3]) {
        Some(bytes) => net::set_option_bytes(sock.fd.get(), level, option, &bytes),
        None => {
            let value = vm.expect_index(&args[3])? as i32;
            net::set_option(sock.fd.get(), level, option, value)
        }
    };
    set.map_err(|e| os_error(vm, &e))?;
    Ok(Value::None)
}

fn getsockopt(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    let (sock, level, option) = option_args(vm, args, "getsockopt", &["level", "optname"])?;
    let value = net::get_option(sock.fd.get(), level, option).map_err(|e| os_error(vm, &e))?;
    Ok(Value::Int(value.into()))
}

fn shutdown(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    Signature::one("socket", "shutdown").check(vm, &args[1..], &[])?;
    let sock = this(vm, args)?;
    let how = vm.expect_index(&args[1])? as i32;
    net::shutdown(sock.fd.get(), how).map_err(|e| os_error(vm, &e))?;
    Ok(Value::None)
}

/// A timeout argument: None, or seconds that are not negative, a float or an integer
/// (`socket_parse_timeout`, with `_PyTime_FromSecondsObject`'s messages).
fn timeout_arg(vm: &mut Vm, v: &Value) -> PyResult<Option<f64>> {
    let t = match v {
        Value::None => return Ok(None),
        Value::Float(f) => *f,
        v => vm.expect_index(v)? as f64,
    };
    if t.is_nan() {
        return Err(vm.value_error("Invalid value NaN (not a number)"));
    }
    if t < 0.0 {
        return Err(vm.value_error("Timeout value out of range"));
    }
    Ok(Some(t))
}

/// `settimeout(None | seconds)`; `setblocking(flag)` is `settimeout(None | 0.0)`.
fn settimeout(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    Signature::one("socket", "settimeout").check(vm, &args[1..], &[])?;
    let sock = this(vm, args)?;
    sock.timeout.set(timeout_arg(vm, &args[1])?);
    Ok(Value::None)
}

fn setdefaulttimeout(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    Signature::one("socket", "setdefaulttimeout").check(vm, args, &[])?;
    DEFAULT_TIMEOUT.set(timeout_arg(vm, &args[0])?);
    Ok(Value::None)
}

fn setblocking(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    Signature::one("socket", "setblocking").check(vm, &args[1..], &[])?;
    let sock = this(vm, args)?;
    let blocking = vm.truthy(&args[1])?;
    sock.timeout.set(if blocking { None } else { Some(0.0) });
    Ok(Value::None)
}

const METHODS: &[(&str, NativeFn)] = &[
    ("__repr__", socket_repr),
    ("__enter__", |vm, args, _| {
        this(vm, args).map(|_| args[0].clone())
    }),
    ("__exit__", close),
    ("bind", bind),
    ("listen", listen),
    ("accept", accept),
    ("connect", |vm, args, _| connect(vm, args, false)),
    ("connect_ex", |vm, args, _| connect(vm, args, true)),
    ("send", send),
    ("sendall", sendall),
    ("recv", recv),
    ("recv_into", recv_into),
    ("sendto", sendto),
    ("recvfrom", recvfrom),
    ("close", close),
    ("makefile", makefile),
    ("_adjust_io_refs", adjust_io_refs),
    ("detach", |vm, args, _| {
        Ok(Value::Int(this(vm, args)?.fd.replace(-1).into()))
    }),
    ("fileno", |vm, args, _| {
        Ok(Value::Int(this(vm, args)?.fd.get().into()))
    }),
    ("getsockname", |vm, args, _| name(vm, args, false)),
    ("getpeername", |vm, args, _| name(vm, args, true)),
    ("setsockopt", setsockopt),
    ("getsockopt", getsockopt),
    ("shutdown", shutdown),
    ("settimeout", settimeout),
    ("gettimeout", |vm, args, _| {
        Ok(this(vm, args)?
            .timeout
            .get()
            .map_or(Value::None, Value::Float))
    }),
    ("setblocking", setblocking),
    ("getblocking", |vm, args, _| {
        Ok(Value::Bool(this(vm, args)?.timeout.get() != Some(0.0)))
    }),
];

// ---- module functions ---------------------------------------------------------------

fn socketpair(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    const SIGNATURE: Signature =
        Signature::keywords("socket", "socketpair", &["family", "type", "proto"], 0, 0);
    let bound = SIGNATURE.bind(vm, args, kw)?;
    let mut ints = [libc::AF_UNIX, libc::SOCK_STREAM, 0];
    for (slot, v) in ints.iter_mut().zip(&bound) {
        if let Some(v) = v.as_ref().filter(|v| !v.is_none()) {
            *slot = vm.expect_index(v)? as i32;
        }
    }
    let [family, kind, proto] = ints;
    vm.require(Capability::Sockets, "socket.socketpair")?;
    let (a, b) = net::socketpair(family, kind, proto).map_err(|e| os_error(vm, &e))?;
    Ok(Value::tuple(vec![
        new_socket(vm, a, family, kind, proto),
        new_socket(vm, b, family, kind, proto),
    ]))
}

/// `(host, port)` of an address argument, resolved to every address it names.
fn host_port(vm: &mut Vm, v: &Value, method: &str) -> PyResult<Vec<SockAddr>> {
    let Value::Tuple(t) = v else {
        return Err(vm.type_error(format!(
            "{method}() address must be a (host, port) tuple, not {}",
            vm.type_name(v)
        )));
    };
    let (host, port) = match &t.items[..] {
        [Value::Str(h), port, ..] => (h.as_str().to_string(), port_arg(vm, port, method)?),
        [Value::None, port, ..] => (String::new(), port_arg(vm, port, method)?),
        _ => return Err(vm.type_error(format!("{method}() address must be (host, port)"))),
    };
    net::resolve(&host, port).map_err(|e| gai_error(vm, e))
}

fn family_of(addr: &SockAddr) -> i32 {
    match addr {
        SockAddr::Inet(..) => libc::AF_INET,
        SockAddr::Inet6(..) => libc::AF_INET6,
        SockAddr::Unix(_) => libc::AF_UNIX,
    }
}

/// `create_connection(address, timeout=None, source_address=None)`: the first address
/// that accepts, else the last error (`Lib/socket.py`).
fn create_connection(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    const SIGNATURE: Signature = Signature::keywords(
        "socket",
        "create_connection",
        &["address", "timeout", "source_address", "all_errors"],
        1,
        0,
    );
    let bound = SIGNATURE.bind(vm, args, kw)?;
    vm.require(Capability::Sockets, "socket.create_connection")?;
    let addrs = host_port(
        vm,
        bound[0].as_ref().unwrap_or(&Value::None),
        "create_connection",
    )?;
    let mut last = None;
    for addr in addrs {
        let family = family_of(&addr);
        let fd = net::socket(family, libc::SOCK_STREAM, 0).map_err(|e| os_error(vm, &e))?;
        let sock = new_socket(vm, fd, family, libc::SOCK_STREAM, 0);
        // No timeout given: the default one, which the socket has; None: blocking.
        if let Some(t) = &bound[1] {
            settimeout(vm, &[sock.clone(), t.clone()], &[])?;
        }
        if let Some(source) = bound[2].as_ref().filter(|s| !s.is_none()) {
            bind(vm, &[sock.clone(), source.clone()], &[])?;
        }
        match connect(vm, &[sock.clone(), address_value(&addr)], false) {
            Ok(_) => return Ok(sock),
            Err(exc) if vm.isinstance(&Value::Object(exc.clone()), &vm.types.os_error) => {
                last = Some(exc);
            }
            Err(exc) => return Err(exc),
        }
    }
    Err(last.unwrap_or_else(|| vm.new_exc(&vm.types.os_error, "getaddrinfo returns an empty list")))
}

/// `create_server(address, *, family=AF_INET, backlog=None, reuse_port=False)`.
fn create_server(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    const SIGNATURE: Signature = Signature::keywords(
        "socket",
        "create_server",
        &[
            "address",
            "family",
            "backlog",
            "reuse_port",
            "dualstack_ipv6",
        ],
        1,
        1,
    );
    let bound = SIGNATURE.bind(vm, args, kw)?;
    vm.require(Capability::Sockets, "socket.create_server")?;
    let family = match &bound[1] {
        Some(v) => vm.expect_index(v)? as i32,
        None => libc::AF_INET,
    };
    let fd = net::socket(family, libc::SOCK_STREAM, 0).map_err(|e| os_error(vm, &e))?;
    let sock = new_socket(vm, fd, family, libc::SOCK_STREAM, 0);
    net::set_option(fd, libc::SOL_SOCKET, libc::SO_REUSEADDR, 1).map_err(|e| os_error(vm, &e))?;
    if let Some(v) = &bound[3]
        && vm.truthy(v)?
    {
        net::set_option(fd, libc::SOL_SOCKET, libc::SO_REUSEPORT, 1)
            .map_err(|e| os_error(vm, &e))?;
    }
    let address = bound[0].clone().unwrap_or(Value::None);
    let addr = address_arg(vm, family, &address, "bind")?;
    if let Err(e) = net::bind(fd, &addr) {
        // Lib/socket.py adds the address to the message.
        let errno = e.raw_os_error().unwrap_or(libc::EINVAL);
        let shown = vm.repr(&address)?;
        let text = format!(
            "{} (while attempting to bind on address {shown})",
            errno_text::strerror(errno)
        );
        let os_error = vm.types.os_error.clone();
        return Err(errno_error(vm, os_error, errno, text));
    }
    let backlog = match bound[2].as_ref().filter(|b| !b.is_none()) {
        Some(b) => b.clone(),
        None => Value::Int(128),
    };
    listen(vm, &[sock.clone(), backlog], &[])?;
    Ok(sock)
}

/// `getaddrinfo(host, port, family=0, type=0, proto=0, flags=0)`: a list of
/// `(family, type, proto, canonname, sockaddr)` for the stream and datagram kinds.
fn getaddrinfo(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    const SIGNATURE: Signature = Signature::keywords(
        "socket",
        "getaddrinfo",
        &["host", "port", "family", "type", "proto", "flags"],
        2,
        0,
    );
    let bound = SIGNATURE.bind(vm, args, kw)?;
    let address = Value::tuple(vec![
        bound[0].clone().unwrap_or(Value::None),
        match bound[1].clone() {
            Some(Value::None) | None => Value::Int(0),
            Some(p) => p,
        },
    ]);
    let family = match &bound[2] {
        Some(v) => vm.expect_index(v)? as i32,
        None => 0,
    };
    let kind = match &bound[3] {
        Some(v) => vm.expect_index(v)? as i32,
        None => 0,
    };
    let addrs = host_port(vm, &address, "getaddrinfo")?;
    let mut entries = Vec::new();
    for addr in addrs {
        let f = family_of(&addr);
        if family != 0 && family != f {
            continue;
        }
        for (k, proto) in [(libc::SOCK_STREAM, 6), (libc::SOCK_DGRAM, 17)] {
            if kind == 0 || kind == k {
                entries.push(Value::tuple(vec![
                    Value::Int(f.into()),
                    Value::Int(k.into()),
                    Value::Int(proto),
                    Value::str(""),
                    address_value(&addr),
                ]));
            }
        }
    }
    Ok(Value::list(entries))
}

const CONSTANTS: &[(&str, i32)] = &[
    ("AF_UNIX", libc::AF_UNIX),
    ("AF_INET", libc::AF_INET),
    ("AF_INET6", libc::AF_INET6),
    ("AF_UNSPEC", libc::AF_UNSPEC),
    ("SOCK_STREAM", libc::SOCK_STREAM),
    ("SOCK_DGRAM", libc::SOCK_DGRAM),
    ("SOL_SOCKET", libc::SOL_SOCKET),
    ("SO_REUSEADDR", libc::SO_REUSEADDR),
    ("SO_REUSEPORT", libc::SO_REUSEPORT),
    ("SO_KEEPALIVE", libc::SO_KEEPALIVE),
    ("SO_ERROR", libc::SO_ERROR),
    ("SO_RCVBUF", libc::SO_RCVBUF),
    ("SO_SNDBUF", libc::SO_SNDBUF),
    ("SO_BROADCAST", libc::SO_BROADCAST),
    ("SO_LINGER", libc::SO_LINGER),
    ("IPPROTO_TCP", libc::IPPROTO_TCP),
    ("IPPROTO_UDP", libc::IPPROTO_UDP),
    ("TCP_NODELAY", libc::TCP_NODELAY),
    ("SHUT_RD", libc::SHUT_RD),
    ("SHUT_WR", libc::SHUT_WR),
    ("SHUT_RDWR", libc::SHUT_RDWR),
    ("MSG_PEEK", libc::MSG_PEEK),
    ("SOMAXCONN", 4096),
    ("EAI_AGAIN", libc::EAI_AGAIN),
    ("EAI_BADFLAGS", libc::EAI_BADFLAGS),
    ("EAI_FAIL", libc::EAI_FAIL),
    ("EAI_FAMILY", libc::EAI_FAMILY),
    ("EAI_MEMORY", libc::EAI_MEMORY),
    ("EAI_NODATA", libc::EAI_NODATA),
    ("EAI_NONAME", libc::EAI_NONAME),
    ("EAI_OVERFLOW", libc::EAI_OVERFLOW),
    ("EAI_SERVICE", libc::EAI_SERVICE),
    ("EAI_SOCKTYPE", libc::EAI_SOCKTYPE),
    ("EAI_SYSTEM", libc::EAI_SYSTEM),
];

/// Builds the module on its first import.
pub fn module(vm: &mut Vm) -> Value {
    vm.ready_bytes();
    let class = make_type(
        "socket",
        vec![vm.types.object.clone()],
        Layout::Builtin,
        false,
    );
    vm.set_type_attr(&class, "__module__", Value::str("socket"));
    vm.add_static(&class, "__new__", socket_new);
    vm.add_methods(&class, METHODS);
    for name in ["family", "type", "proto"] {
        let get: crate::vm::object::Getter = match name {
            "family" => |vm, v| Ok(Value::Int(this(vm, std::slice::from_ref(v))?.family.into())),
            "type" => |vm, v| Ok(Value::Int(this(vm, std::slice::from_ref(v))?.kind.into())),
            _ => |vm, v| Ok(Value::Int(this(vm, std::slice::from_ref(v))?.proto.into())),
        };
        vm.add_getset(&class, name, get, None);
    }
    let gaierror = make_type(
        "gaierror",
        vec![vm.types.os_error.clone()],
        Layout::Exception,
        false,
    );
    vm.set_type_attr(&gaierror, "__module__", Value::str("socket"));
    CLASSES.with(|c| *c.borrow_mut() = Some((class.clone(), gaierror.clone())));
    let mut attrs: Vec<(&str, Value)> = vec![
        ("socket", Value::Type(class.clone())),
        ("SocketType", Value::Type(class)),
        ("gaierror", Value::Type(gaierror)),
        ("error", Value::Type(vm.types.os_error.clone())),
        ("timeout", Value::Type(vm.types.timeout_error.clone())),
        ("socketpair", vm.native("socketpair", socketpair)),
        (
            "create_connection",
            vm.native("create_connection", create_connection),
        ),
        ("create_server", vm.native("create_server", create_server)),
        ("getaddrinfo", vm.native("getaddrinfo", getaddrinfo)),
        ("has_ipv6", Value::Bool(true)),
        (
            "setdefaulttimeout",
            vm.native("setdefaulttimeout", setdefaulttimeout),
        ),
        (
            "getdefaulttimeout",
            vm.native("getdefaulttimeout", |_, _, _| {
                Ok(DEFAULT_TIMEOUT.get().map_or(Value::None, Value::Float))
            }),
        ),
    ];
    for (name, f) in super::socket_convert::FUNCTIONS {
        attrs.push((name, vm.native(name, *f)));
    }
    for (name, value) in CONSTANTS {
        attrs.push((name, Value::Int((*value).into())));
    }
    vm.new_module("socket", attrs)
}
