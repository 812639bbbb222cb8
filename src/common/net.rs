//! The operating system's sockets and readiness polling, through `libc`: the one place apy
//! makes these system calls (DESIGN.md decision 10: a sandbox can refuse them here).
//!
//! In: descriptors, socket addresses, buffers. Out: `io::Result`s whose errors carry the
//! errno CPython reports. Every socket is made non-blocking and close-on-exec: the
//! `socket` module waits for readiness itself, so that Ctrl-C and `--time-limit` can end a
//! blocking call (`Modules/socketmodule.c` does the same for sockets with a timeout).
//! Value-free: the `socket` and `selectors` modules and the event loop stand on it.

use std::io;
use std::net::{Ipv4Addr, Ipv6Addr, SocketAddr, ToSocketAddrs};
use std::os::fd::RawFd;

pub use libc::pollfd as PollFd;

/// A socket address, as the three families apy knows spell it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SockAddr {
    Inet(Ipv4Addr, u16),
    /// Address, port, flow info, scope id.
    Inet6(Ipv6Addr, u16, u32, u32),
    /// A path (empty for an unnamed socket, such as one end of a `socketpair`).
    Unix(Vec<u8>),
}

fn check(result: libc::c_int) -> io::Result<libc::c_int> {
    if result < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(result)
    }
}

fn check_size(result: libc::ssize_t) -> io::Result<usize> {
    if result < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(result as usize)
    }
}

/// `socket(family, type, proto)`, non-blocking and close-on-exec.
pub fn socket(family: i32, ty: i32, proto: i32) -> io::Result<RawFd> {
    let flags = libc::SOCK_NONBLOCK | libc::SOCK_CLOEXEC;
    // SAFETY: socket(2) takes plain integers.
    check(unsafe { libc::socket(family, ty | flags, proto) })
}

/// `socketpair(family, type, proto)`: two connected sockets.
pub fn socketpair(family: i32, ty: i32, proto: i32) -> io::Result<(RawFd, RawFd)> {
    let mut fds = [-1; 2];
    let flags = libc::SOCK_NONBLOCK | libc::SOCK_CLOEXEC;
    // SAFETY: socketpair(2) writes two descriptors into `fds`.
    check(unsafe { libc::socketpair(family, ty | flags, proto, fds.as_mut_ptr()) })?;
    Ok((fds[0], fds[1]))
}

/// A `sockaddr_storage` filled from `addr`, and the length that counts.
fn to_raw(addr: &SockAddr) -> io::Result<(libc::sockaddr_storage, libc::socklen_t)> {
    // SAFETY: all-zero bytes are a valid sockaddr_storage.
    let mut storage: libc::sockaddr_storage = unsafe { std::mem::zeroed() };
    let len = match addr {
        SockAddr::Inet(ip, port) => {
            // SAFETY: sockaddr_storage is large and aligned enough for any sockaddr.
            let sin = unsafe { &mut *(&mut storage as *mut _ as *mut libc::sockaddr_in) };
            sin.sin_family = libc::AF_INET as libc::sa_family_t;
            sin.sin_port = port.to_be();
            sin.sin_addr.s_addr = u32::from(*ip).to_be();
            std::mem::size_of::<libc::sockaddr_in>()
        }
        SockAddr::Inet6(ip, port, flowinfo, scope) => {
            // SAFETY: as above.
            let sin6 = unsafe { &mut *(&mut storage as *mut _ as *mut libc::sockaddr_in6) };
            sin6.sin6_family = libc::AF_INET6 as libc::sa_family_t;
            sin6.sin6_port = port.to_be();
            sin6.sin6_flowinfo = flowinfo.to_be();
            sin6.sin6_addr.s6_addr = ip.octets();
            sin6.sin6_scope_id = *scope;
            std::mem::size_of::<libc::sockaddr_in6>()
        }
        SockAddr::Unix(path) => {
            // SAFETY: as above.
            let sun = unsafe { &mut *(&mut storage as *mut _ as *mut libc::sockaddr_un) };
            if path.len() >= sun.sun_path.len() {
                return Err(io::Error::other("AF_UNIX path too long"));
            }
            sun.sun_family = libc::AF_UNIX as libc::sa_family_t;
            for (slot, b) in sun.sun_path.iter_mut().zip(path) {
                *slot = *b as libc::c_char;
            }
            let base = std::mem::size_of::<libc::sa_family_t>();
            // An abstract address (leading NUL) counts exactly its bytes.
            base + path.len() + usize::from(path.first() != Some(&0))
        }
    };
    Ok((storage, len as libc::socklen_t))
}

fn from_raw(storage: &libc::sockaddr_storage, len: libc::socklen_t) -> SockAddr {
    match storage.ss_family as i32 {
        libc::AF_INET => {
            // SAFETY: the family says the storage holds a sockaddr_in.
            let sin = unsafe { &*(storage as *const _ as *const libc::sockaddr_in) };
            SockAddr::Inet(
                Ipv4Addr::from(u32::from_be(sin.sin_addr.s_addr)),
                u16::from_be(sin.sin_port),
            )
        }
        libc::AF_INET6 => {
            // SAFETY: the family says the storage holds a sockaddr_in6.
            let sin6 = unsafe { &*(storage as *const _ as *const libc::sockaddr_in6) };
            SockAddr::Inet6(
                Ipv6Addr::from(sin6.sin6_addr.s6_addr),
                u16::from_be(sin6.sin6_port),
                u32::from_be(sin6.sin6_flowinfo),
                sin6.sin6_scope_id,
            )
        }
        _ => {
            // SAFETY: any other family apy makes is AF_UNIX.
            let sun = unsafe { &*(storage as *const _ as *const libc::sockaddr_un) };
            let base = std::mem::size_of::<libc::sa_family_t>();
            let n = (len as usize).saturating_sub(base).min(sun.sun_path.len());
            let mut path: Vec<u8> = sun.sun_path[..n].iter().map(|&c| c as u8).collect();
            if path.first() != Some(&0) {
                let end = path.iter().position(|&b| b == 0).unwrap_or(path.len());
                path.truncate(end);
            }
            SockAddr::Unix(path)
        }
    }
}

pub fn bind(fd: RawFd, addr: &SockAddr) -> io::Result<()> {
    let (storage, len) = to_raw(addr)?;
    // SAFETY: `storage` holds a sockaddr of `len` bytes.
    check(unsafe { libc::bind(fd, &storage as *const _ as *const libc::sockaddr, len) }).map(drop)
}

/// Starts connecting; a non-blocking socket reports `EINPROGRESS` (see [`socket_error`]).
pub fn connect(fd: RawFd, addr: &SockAddr) -> io::Result<()> {
    let (storage, len) = to_raw(addr)?;
    // SAFETY: as in `bind`.
    check(unsafe { libc::connect(fd, &storage as *const _ as *const libc::sockaddr, len) })
        .map(drop)
}

/// Dissolves a connection attempt that failed (`connect(2)` to `AF_UNSPEC`). A blocking
/// socket is ready to connect again after a refusal; the non-blocking socket apy waits on
/// stays "connecting", and its next `connect` would report `ECONNABORTED`.
pub fn dissolve(fd: RawFd) -> io::Result<()> {
    // SAFETY: all-zero bytes are a valid sockaddr_storage.
    let mut storage: libc::sockaddr_storage = unsafe { std::mem::zeroed() };
    storage.ss_family = libc::AF_UNSPEC as libc::sa_family_t;
    let len = std::mem::size_of::<libc::sockaddr>() as libc::socklen_t;
    // SAFETY: `storage` holds a sockaddr of `len` bytes.
    check(unsafe { libc::connect(fd, &storage as *const _ as *const libc::sockaddr, len) })
        .map(drop)
}

pub fn listen(fd: RawFd, backlog: i32) -> io::Result<()> {
    // SAFETY: listen(2) takes plain integers.
    check(unsafe { libc::listen(fd, backlog) }).map(drop)
}

/// A connection from the queue: its socket (non-blocking, close-on-exec) and the peer.
pub fn accept(fd: RawFd) -> io::Result<(RawFd, SockAddr)> {
    // SAFETY: all-zero bytes are a valid sockaddr_storage; accept4 fills at most `len`.
    let mut storage: libc::sockaddr_storage = unsafe { std::mem::zeroed() };
    let mut len = std::mem::size_of::<libc::sockaddr_storage>() as libc::socklen_t;
    let flags = libc::SOCK_NONBLOCK | libc::SOCK_CLOEXEC;
    // SAFETY: `storage` and `len` are valid for writing.
    let conn = check(unsafe {
        libc::accept4(
            fd,
            &mut storage as *mut _ as *mut libc::sockaddr,
            &mut len,
            flags,
        )
    })?;
    Ok((conn, from_raw(&storage, len)))
}

/// Sends what it can of `data`; never raises SIGPIPE (a closed peer is `EPIPE`).
pub fn send(fd: RawFd, data: &[u8], flags: i32) -> io::Result<usize> {
    // SAFETY: `data` is valid for reading its length.
    check_size(unsafe {
        libc::send(
            fd,
            data.as_ptr().cast(),
            data.len(),
            flags | libc::MSG_NOSIGNAL,
        )
    })
}

pub fn recv(fd: RawFd, buffer: &mut [u8], flags: i32) -> io::Result<usize> {
    // SAFETY: `buffer` is valid for writing its length.
    check_size(unsafe { libc::recv(fd, buffer.as_mut_ptr().cast(), buffer.len(), flags) })
}

/// `recv` of at most `size` bytes into the unused capacity of `buffer` (which grows by
/// what came): a big `recv(n)` costs no zeroing of memory the kernel then overwrites, as
/// CPython's does not.
pub fn recv_spare(fd: RawFd, buffer: &mut Vec<u8>, size: usize, flags: i32) -> io::Result<usize> {
    buffer.reserve(size);
    let spare = &mut buffer.spare_capacity_mut()[..size];
    // SAFETY: the spare capacity is valid for writing its length.
    let n = check_size(unsafe { libc::recv(fd, spare.as_mut_ptr().cast(), spare.len(), flags) })?;
    // SAFETY: recv initialised the first `n` bytes of the spare capacity.
    unsafe { buffer.set_len(buffer.len() + n) };
    Ok(n)
}

pub fn send_to(fd: RawFd, data: &[u8], flags: i32, addr: &SockAddr) -> io::Result<usize> {
    let (storage, len) = to_raw(addr)?;
    // SAFETY: `data` and the sockaddr are valid for reading.
    check_size(unsafe {
        libc::sendto(
            fd,
            data.as_ptr().cast(),
            data.len(),
            flags | libc::MSG_NOSIGNAL,
            &storage as *const _ as *const libc::sockaddr,
            len,
        )
    })
}

/// `recvfrom` of at most `size` bytes into the unused capacity of `buffer`, as `recv_spare`.
pub fn recv_from(
    fd: RawFd,
    buffer: &mut Vec<u8>,
    size: usize,
    flags: i32,
) -> io::Result<(usize, SockAddr)> {
    // SAFETY: all-zero bytes are a valid sockaddr_storage.
    let mut storage: libc::sockaddr_storage = unsafe { std::mem::zeroed() };
    let mut len = std::mem::size_of::<libc::sockaddr_storage>() as libc::socklen_t;
    buffer.reserve(size);
    let spare = &mut buffer.spare_capacity_mut()[..size];
    // SAFETY: the spare capacity, `storage` and `len` are valid for writing.
    let n = check_size(unsafe {
        libc::recvfrom(
            fd,
            spare.as_mut_ptr().cast(),
            spare.len(),
            flags,
            &mut storage as *mut _ as *mut libc::sockaddr,
            &mut len,
        )
    })?;
    // SAFETY: recvfrom initialised the first `n` bytes of the spare capacity.
    unsafe { buffer.set_len(buffer.len() + n) };
    Ok((n, from_raw(&storage, len)))
}

pub fn close(fd: RawFd) {
    // SAFETY: closes a descriptor the caller owns; an error leaves nothing to do.
    unsafe {
        libc::close(fd);
    }
}

pub fn shutdown(fd: RawFd, how: i32) -> io::Result<()> {
    // SAFETY: shutdown(2) takes plain integers.
    check(unsafe { libc::shutdown(fd, how) }).map(drop)
}

fn name_of(
    fd: RawFd,
    call: unsafe extern "C" fn(
        libc::c_int,
        *mut libc::sockaddr,
        *mut libc::socklen_t,
    ) -> libc::c_int,
) -> io::Result<SockAddr> {
    // SAFETY: all-zero bytes are a valid sockaddr_storage.
    let mut storage: libc::sockaddr_storage = unsafe { std::mem::zeroed() };
    let mut len = std::mem::size_of::<libc::sockaddr_storage>() as libc::socklen_t;
    // SAFETY: `storage` and `len` are valid for writing.
    check(unsafe { call(fd, &mut storage as *mut _ as *mut libc::sockaddr, &mut len) })?;
    Ok(from_raw(&storage, len))
}

/// The address the socket is bound to (`getsockname`).
pub fn local_addr(fd: RawFd) -> io::Result<SockAddr> {
    name_of(fd, libc::getsockname)
}

/// The address of the connected peer (`getpeername`).
pub fn peer_addr(fd: RawFd) -> io::Result<SockAddr> {
    name_of(fd, libc::getpeername)
}

pub fn set_option(fd: RawFd, level: i32, name: i32, value: i32) -> io::Result<()> {
    set_option_bytes(fd, level, name, &value.to_ne_bytes())
}

/// `setsockopt` with the option's value as its bytes (a `struct linger`, …).
pub fn set_option_bytes(fd: RawFd, level: i32, name: i32, value: &[u8]) -> io::Result<()> {
    // SAFETY: passes a pointer to `value` and its length.
    check(unsafe {
        libc::setsockopt(
            fd,
            level,
            name,
            value.as_ptr().cast(),
            value.len() as libc::socklen_t,
        )
    })
    .map(drop)
}

pub fn get_option(fd: RawFd, level: i32, name: i32) -> io::Result<i32> {
    let mut value: i32 = 0;
    let mut len = std::mem::size_of::<i32>() as libc::socklen_t;
    // SAFETY: `value` and `len` are valid for writing one int.
    check(unsafe { libc::getsockopt(fd, level, name, (&mut value as *mut i32).cast(), &mut len) })?;
    Ok(value)
}

/// The error a non-blocking `connect` ended with (`SO_ERROR`; 0: connected).
pub fn socket_error(fd: RawFd) -> io::Result<i32> {
    get_option(fd, libc::SOL_SOCKET, libc::SO_ERROR)
}

/// The addresses `host` names for `port` (`getaddrinfo`), IPv4 and IPv6; the empty host
/// is the wildcard address. `Err` holds the `gaierror` errno and text.
pub fn resolve(host: &str, port: u16) -> Result<Vec<SockAddr>, (i32, String)> {
    if host.is_empty() {
        return Ok(vec![SockAddr::Inet(Ipv4Addr::UNSPECIFIED, port)]);
    }
    if let Ok(ip) = host.parse::<Ipv4Addr>() {
        return Ok(vec![SockAddr::Inet(ip, port)]);
    }
    if let Ok(ip) = host.parse::<Ipv6Addr>() {
        return Ok(vec![SockAddr::Inet6(ip, port, 0, 0)]);
    }
    match (host, port).to_socket_addrs() {
        Ok(addrs) => Ok(addrs
            .map(|a| match a {
                SocketAddr::V4(v4) => SockAddr::Inet(*v4.ip(), v4.port()),
                SocketAddr::V6(v6) => {
                    SockAddr::Inet6(*v6.ip(), v6.port(), v6.flowinfo(), v6.scope_id())
                }
            })
            .collect()),
        Err(_) => Err((libc::EAI_NONAME, "Name or service not known".into())),
    }
}

/// The machine's host name (`gethostname(2)`).
pub fn hostname() -> io::Result<String> {
    let mut buf = [0u8; 256];
    // SAFETY: `buf` has room for `buf.len()` bytes.
    check(unsafe { libc::gethostname(buf.as_mut_ptr().cast(), buf.len()) })?;
    let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
    Ok(String::from_utf8_lossy(&buf[..end]).into_owned())
}

// The C library's address conversions, which the `libc` crate does not declare.
unsafe extern "C" {
    #[link_name = "inet_aton"]
    fn c_inet_aton(text: *const libc::c_char, addr: *mut libc::in_addr) -> libc::c_int;
    #[link_name = "inet_pton"]
    fn c_inet_pton(
        family: libc::c_int,
        text: *const libc::c_char,
        dst: *mut libc::c_void,
    ) -> libc::c_int;
    #[link_name = "inet_ntop"]
    fn c_inet_ntop(
        family: libc::c_int,
        src: *const libc::c_void,
        dst: *mut libc::c_char,
        size: libc::socklen_t,
    ) -> *const libc::c_char;
}

/// The address an IPv4 string names as `inet_aton(3)` reads it ("127.1" included);
/// None when it names none. `text` must hold no NUL.
pub fn inet_aton(text: &str) -> Option<[u8; 4]> {
    let text = std::ffi::CString::new(text).ok()?;
    // SAFETY: all-zero bytes are a valid in_addr; `text` is NUL-terminated.
    let mut addr: libc::in_addr = unsafe { std::mem::zeroed() };
    // SAFETY: as above; inet_aton writes one in_addr.
    let ok = unsafe { c_inet_aton(text.as_ptr(), &mut addr) } != 0;
    ok.then(|| addr.s_addr.to_ne_bytes())
}

/// The packed address (4 or 16 bytes) `text` names in `family` (`inet_pton(3)`); None
/// when it names none. `text` must hold no NUL.
pub fn inet_pton(family: i32, text: &str) -> Option<Vec<u8>> {
    let text = std::ffi::CString::new(text).ok()?;
    let mut packed = [0u8; 16];
    // SAFETY: `packed` has room for an in6_addr; `text` is NUL-terminated.
    let ok = unsafe { c_inet_pton(family, text.as_ptr(), packed.as_mut_ptr().cast()) } == 1;
    let len = if family == libc::AF_INET6 { 16 } else { 4 };
    ok.then(|| packed[..len].to_vec())
}

/// The text of a packed address of `family` (4 or 16 bytes, as the caller checked),
/// as `inet_ntop(3)` writes it.
pub fn inet_ntop(family: i32, packed: &[u8]) -> io::Result<String> {
    let mut text = [0u8; 64];
    // SAFETY: `packed` holds an address of `family`; `text` has room for the longest.
    let written = unsafe {
        c_inet_ntop(
            family,
            packed.as_ptr().cast(),
            text.as_mut_ptr().cast(),
            text.len() as libc::socklen_t,
        )
    };
    if written.is_null() {
        return Err(io::Error::last_os_error());
    }
    let end = text.iter().position(|&b| b == 0).unwrap_or(text.len());
    Ok(String::from_utf8_lossy(&text[..end]).into_owned())
}

/// Waits until one of `fds` is ready or `timeout_ms` passes (-1: no limit); the number
/// ready. An interrupted wait counts as none ready.
pub fn poll(fds: &mut [PollFd], timeout_ms: i32) -> io::Result<usize> {
    // SAFETY: `fds` is a valid array of pollfd of the length given.
    let n = unsafe { libc::poll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, timeout_ms) };
    if n < 0 {
        let error = io::Error::last_os_error();
        if error.raw_os_error() == Some(libc::EINTR) {
            return Ok(0);
        }
        return Err(error);
    }
    Ok(n as usize)
}

/// A pollfd asking for `events` on `fd`.
pub fn poll_fd(fd: RawFd, events: i16) -> PollFd {
    PollFd {
        fd,
        events,
        revents: 0,
    }
}

/// An epoll instance (`select.epoll`), closed when dropped.
pub struct Epoll {
    fd: RawFd,
}

/// Readiness bits as epoll and poll share them.
pub const READABLE: u32 = libc::EPOLLIN as u32;
pub const WRITABLE: u32 = libc::EPOLLOUT as u32;
pub const ERROR: u32 = (libc::EPOLLERR | libc::EPOLLHUP) as u32;

impl Epoll {
    pub fn new() -> io::Result<Epoll> {
        // SAFETY: epoll_create1 takes a flag.
        let fd = check(unsafe { libc::epoll_create1(libc::EPOLL_CLOEXEC) })?;
        Ok(Epoll { fd })
    }

    /// Its own descriptor (pollable: readable when an event is waiting).
    pub fn fd(&self) -> RawFd {
        self.fd
    }

    fn control(&self, op: i32, fd: RawFd, events: u32) -> io::Result<()> {
        let mut event = libc::epoll_event {
            events,
            u64: fd as u64,
        };
        // SAFETY: `event` is a valid epoll_event.
        check(unsafe { libc::epoll_ctl(self.fd, op, fd, &mut event) }).map(drop)
    }

    pub fn add(&self, fd: RawFd, events: u32) -> io::Result<()> {
        self.control(libc::EPOLL_CTL_ADD, fd, events)
    }

    pub fn modify(&self, fd: RawFd, events: u32) -> io::Result<()> {
        self.control(libc::EPOLL_CTL_MOD, fd, events)
    }

    pub fn remove(&self, fd: RawFd) -> io::Result<()> {
        self.control(libc::EPOLL_CTL_DEL, fd, 0)
    }

    /// The descriptors ready now (no waiting: the caller waits with [`poll`] on
    /// [`Epoll::fd`] beside the wakeup pipe), with their events.
    pub fn ready(&self, max: usize) -> io::Result<Vec<(RawFd, u32)>> {
        let mut events = vec![libc::epoll_event { events: 0, u64: 0 }; max.max(1)];
        // SAFETY: `events` has room for `events.len()` entries.
        let n = unsafe { libc::epoll_wait(self.fd, events.as_mut_ptr(), events.len() as i32, 0) };
        if n < 0 {
            let error = io::Error::last_os_error();
            if error.raw_os_error() == Some(libc::EINTR) {
                return Ok(Vec::new());
            }
            return Err(error);
        }
        Ok(events[..n as usize]
            .iter()
            .map(|e| (e.u64 as RawFd, e.events))
            .collect())
    }
}

impl Drop for Epoll {
    fn drop(&mut self) {
        close(self.fd);
    }
}

/// Describes what a select saw: `fd 6 readable, fd 7 writable`.
pub fn describe_ready(ready: &[(RawFd, u32)]) -> String {
    if ready.is_empty() {
        return "nothing ready".into();
    }
    let parts: Vec<String> = ready
        .iter()
        .map(|(fd, mask)| {
            let mut what = Vec::new();
            if mask & READABLE != 0 {
                what.push("readable");
            }
            if mask & WRITABLE != 0 {
                what.push("writable");
            }
            if mask & ERROR != 0 {
                what.push("closed or failed");
            }
            format!("fd {fd} {}", what.join(" and "))
        })
        .collect();
    parts.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_socketpair_carries_bytes_and_epoll_sees_them() {
        let (a, b) = socketpair(libc::AF_UNIX, libc::SOCK_STREAM, 0).unwrap();
        let epoll = Epoll::new().unwrap();
        epoll.add(b, READABLE).unwrap();
        assert!(epoll.ready(8).unwrap().is_empty());
        assert_eq!(send(a, b"ping", 0).unwrap(), 4);
        assert_eq!(epoll.ready(8).unwrap(), [(b, READABLE)]);
        let mut buffer = [0u8; 16];
        assert_eq!(recv(b, &mut buffer, 0).unwrap(), 4);
        assert_eq!(&buffer[..4], b"ping");
        let error = recv(b, &mut buffer, 0).unwrap_err();
        assert_eq!(error.raw_os_error(), Some(libc::EAGAIN));
        close(a);
        close(b);
    }

    #[test]
    fn addresses_round_trip() {
        let fd = socket(libc::AF_INET, libc::SOCK_STREAM, 0).unwrap();
        bind(fd, &SockAddr::Inet(Ipv4Addr::LOCALHOST, 0)).unwrap();
        let SockAddr::Inet(ip, port) = local_addr(fd).unwrap() else {
            panic!("not inet")
        };
        assert_eq!(ip, Ipv4Addr::LOCALHOST);
        assert_ne!(port, 0);
        close(fd);
        assert_eq!(
            resolve("", 5).unwrap(),
            [SockAddr::Inet(Ipv4Addr::UNSPECIFIED, 5)]
        );
    }
}
