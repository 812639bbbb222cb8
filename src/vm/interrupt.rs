//! Ctrl-C: SIGINT sets a flag, and the dispatch loop's periodic limit check (every few
//! thousand instructions, `Vm::check_limits`) turns it into a `KeyboardInterrupt` raised in
//! the running Python code, as CPython's eval breaker does (`Python/ceval_gil.c`).
//! The handler also writes a byte to a pipe, so that a thread blocked in [`wait`] (an idle
//! event loop, `time.sleep`) wakes at once, as CPython's `select()` returns on a signal
//! (`signal.set_wakeup_fd`); a selector that waits on sockets will poll the same pipe.
//! The handler itself only stores to an atomic and writes to the pipe: nothing else is
//! async-signal-safe.

use std::sync::atomic::{AtomicBool, Ordering};
#[cfg(not(target_arch = "wasm32"))]
use std::{sync::atomic::AtomicI32, time::Duration};

#[cfg(not(target_arch = "wasm32"))]
use crate::common::net::{self, PollFd};

static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// The wakeup pipe's ends (-1 until [`install_handler`] makes it).
#[cfg(not(target_arch = "wasm32"))]
static WAKE_READ: AtomicI32 = AtomicI32::new(-1);
#[cfg(not(target_arch = "wasm32"))]
static WAKE_WRITE: AtomicI32 = AtomicI32::new(-1);

#[cfg(not(target_arch = "wasm32"))]
extern "C" fn on_sigint(_signal: libc::c_int) {
    INTERRUPTED.store(true, Ordering::Relaxed);
    let fd = WAKE_WRITE.load(Ordering::Relaxed);
    if fd >= 0 {
        // SAFETY: write(2) is async-signal-safe; a full pipe already holds a wakeup.
        unsafe {
            libc::write(fd, [1u8].as_ptr().cast(), 1);
        }
    }
}

/// Routes SIGINT to the flag instead of killing the process (`signal.default_int_handler`),
/// and makes the wakeup pipe (once).
#[cfg(not(target_arch = "wasm32"))]
pub fn install_handler() {
    if WAKE_READ.load(Ordering::Relaxed) < 0 {
        let mut fds = [-1; 2];
        // SAFETY: pipe2 fills `fds` with two new descriptors, or fails and leaves them -1.
        if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_NONBLOCK | libc::O_CLOEXEC) } == 0 {
            // Moved out of the way, so that the program's own descriptors (a socket's
            // `fileno()`) are numbered from 3 as in CPython.
            let fds = fds.map(move_high);
            WAKE_WRITE.store(fds[1], Ordering::Relaxed);
            WAKE_READ.store(fds[0], Ordering::Relaxed);
        }
    }
    let handler: extern "C" fn(libc::c_int) = on_sigint;
    // SAFETY: the handler only stores to an atomic and writes to a pipe, both
    // async-signal-safe.
    unsafe {
        libc::signal(libc::SIGINT, handler as libc::sighandler_t);
    }
}

/// `fd` duplicated to a number of 500 or more (the original closed), or `fd` itself when
/// that fails.
#[cfg(not(target_arch = "wasm32"))]
fn move_high(fd: libc::c_int) -> libc::c_int {
    // SAFETY: duplicates and closes a descriptor this module owns.
    unsafe {
        let high = libc::fcntl(fd, libc::F_DUPFD_CLOEXEC, 500);
        if high < 0 {
            return fd;
        }
        libc::close(fd);
        high
    }
}

/// True while a Ctrl-C waits to be reported, without clearing it.
pub fn pending() -> bool {
    INTERRUPTED.load(Ordering::Relaxed)
}

/// True once per Ctrl-C: clears the flag it reports.
pub fn take() -> bool {
    INTERRUPTED.swap(false, Ordering::Relaxed)
}

/// Blocks the thread for `timeout` (None: until woken), or until a Ctrl-C arrives (at once
/// if one is pending). Without the handler nothing can wake it early, and a wait without a
/// timeout sleeps a second at a time: the caller checks its limits and waits again.
#[cfg(not(target_arch = "wasm32"))]
pub fn wait(timeout: Option<Duration>) {
    wait_ready(&mut [], timeout);
}

/// Blocks as [`wait`] does, or until one of `fds` is ready (their `revents` say how): the
/// selector's wait, and a socket's blocking call. Returns how many of `fds` are ready.
#[cfg(not(target_arch = "wasm32"))]
pub fn wait_ready(fds: &mut [PollFd], timeout: Option<Duration>) -> usize {
    if pending() {
        return 0;
    }
    let pipe_fd = WAKE_READ.load(Ordering::Relaxed);
    if pipe_fd < 0 && fds.is_empty() {
        std::thread::sleep(timeout.unwrap_or(Duration::from_secs(1)));
        return 0;
    }
    // poll(2) counts whole milliseconds: round up, so a wait never ends before it is due.
    let millis = timeout.map_or(-1, |t| {
        libc::c_int::try_from(t.as_nanos().div_ceil(1_000_000)).unwrap_or(libc::c_int::MAX)
    });
    let mut all = Vec::with_capacity(fds.len() + 1);
    all.extend_from_slice(fds);
    all.push(net::poll_fd(pipe_fd, libc::POLLIN));
    // An interrupted or failed poll just ends the wait early.
    let ready = net::poll(&mut all, millis).unwrap_or(0);
    let pipe = all.pop().map_or(0, |p| p.revents);
    if pipe != 0 {
        let mut bytes = [0u8; 64];
        // SAFETY: reads into a local buffer from the non-blocking pipe until it is empty.
        while unsafe { libc::read(pipe_fd, bytes.as_mut_ptr().cast(), bytes.len()) } > 0 {}
    }
    fds.copy_from_slice(&all);
    ready - usize::from(pipe != 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_signal_is_reported_once_and_ends_a_wait() {
        install_handler();
        // SAFETY: raising SIGINT in-process runs the handler installed above.
        unsafe {
            libc::raise(libc::SIGINT);
        }
        // The pending Ctrl-C ends the wait at once; then the pipe is drained.
        wait(None);
        assert!(take());
        assert!(!take());
        // SAFETY: as above.
        unsafe {
            libc::raise(libc::SIGINT);
        }
        take();
        // The byte left in the pipe wakes the next wait at once, and is drained.
        let started = std::time::Instant::now();
        wait(Some(Duration::from_secs(10)));
        assert!(started.elapsed() < Duration::from_secs(5));
    }
}
