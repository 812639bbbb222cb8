//! Ctrl-C: SIGINT sets a flag, and the dispatch loop's periodic limit check (every few
//! thousand instructions, `Vm::check_limits`) turns it into a `KeyboardInterrupt` raised in
//! the running Python code, as CPython's eval breaker does (`Python/ceval_gil.c`).
//! The handler also writes a byte to a pipe, so that a thread blocked in [`wait`] (an idle
//! event loop, `time.sleep`) wakes at once, as CPython's `select()` returns on a signal
//! (`signal.set_wakeup_fd`); a selector that waits on sockets will poll the same pipe.
//! The handler itself only stores to an atomic and writes to the pipe: nothing else is
//! async-signal-safe.
//!
//! Any other signal a program gives a Python handler (`signal.signal`, `vm::signals`) is
//! caught the same way: [`on_signal`] sets its bit in a pending mask and writes to the
//! same pipe, and the main thread runs the handler between instructions.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
#[cfg(not(target_arch = "wasm32"))]
use std::{sync::atomic::AtomicI32, time::Duration};

#[cfg(not(target_arch = "wasm32"))]
use crate::common::net::{self, PollFd};

static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// The caught signals not yet handled: bit `n - 1` for signal `n` (1 to 64).
static PENDING: AtomicU64 = AtomicU64::new(0);

/// The wakeup pipe's ends (-1 until [`install_handler`] makes it).
#[cfg(not(target_arch = "wasm32"))]
static WAKE_READ: AtomicI32 = AtomicI32::new(-1);
#[cfg(not(target_arch = "wasm32"))]
static WAKE_WRITE: AtomicI32 = AtomicI32::new(-1);

#[cfg(not(target_arch = "wasm32"))]
extern "C" fn on_sigint(_signal: libc::c_int) {
    INTERRUPTED.store(true, Ordering::Relaxed);
    wake();
}

/// The handler of a signal with a Python handler: marks it pending and wakes a wait.
#[cfg(not(target_arch = "wasm32"))]
extern "C" fn on_signal(signal: libc::c_int) {
    if let Some(bit) = bit(signal) {
        PENDING.fetch_or(bit, Ordering::Relaxed);
    }
    wake();
}

/// The mask bit of signal `n`, None outside 1 to 64.
#[cfg(not(target_arch = "wasm32"))]
fn bit(n: i32) -> Option<u64> {
    (1..=64).contains(&n).then(|| 1 << (n - 1))
}

/// Writes a byte to the wakeup pipe (async-signal-safe).
#[cfg(not(target_arch = "wasm32"))]
fn wake() {
    let fd = WAKE_WRITE.load(Ordering::Relaxed);
    if fd >= 0 {
        // SAFETY: write(2) is async-signal-safe; a full pipe already holds a wakeup. The
        // interrupted code's errno is kept, as CPython's handler keeps it.
        unsafe {
            let errno = *libc::__errno_location();
            libc::write(fd, [1u8].as_ptr().cast(), 1);
            *libc::__errno_location() = errno;
        }
    }
}

/// Routes SIGINT to the flag instead of killing the process (`signal.default_int_handler`),
/// and makes the wakeup pipe (once).
#[cfg(not(target_arch = "wasm32"))]
pub fn install_handler() {
    // (SIGINT can always be caught.)
    let _ = set_disposition(libc::SIGINT, Disposition::Interrupt);
}

/// Makes the wakeup pipe, once.
#[cfg(not(target_arch = "wasm32"))]
fn make_pipe() {
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
}

/// What the process does on a signal.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Disposition {
    /// The system's default (`SIG_DFL`).
    Default,
    /// Nothing (`SIG_IGN`).
    Ignore,
    /// Marks it pending for its Python handler ([`take_pending`]).
    Catch,
    /// Sets the Ctrl-C flag ([`take`]): SIGINT's `default_int_handler`.
    Interrupt,
}

/// Sets what the process does on `signal` (`PyOS_setsig`), with `SA_RESTART`, so that
/// only waits (which watch the wakeup pipe) are interrupted; an error is sigaction's (a
/// signal that cannot be caught: EINVAL).
#[cfg(not(target_arch = "wasm32"))]
pub fn set_disposition(signal: i32, disposition: Disposition) -> std::io::Result<()> {
    let handler = match disposition {
        Disposition::Default => libc::SIG_DFL,
        Disposition::Ignore => libc::SIG_IGN,
        Disposition::Catch | Disposition::Interrupt => {
            make_pipe();
            let handler: extern "C" fn(libc::c_int) = match disposition {
                Disposition::Catch => on_signal,
                _ => on_sigint,
            };
            handler as libc::sighandler_t
        }
    };
    // SAFETY: a zeroed sigaction is valid; the handlers only store to atomics and write to
    // a pipe, both async-signal-safe.
    let failed = unsafe {
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = handler;
        action.sa_flags = libc::SA_RESTART;
        libc::sigemptyset(&mut action.sa_mask);
        libc::sigaction(signal, &action, std::ptr::null_mut()) != 0
    };
    if failed {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

/// What the process does on `signal` now, as [`set_disposition`] would set it: a handler
/// apy did not install (Rust's own, for stack overflows) counts as the default; None for a
/// number sigaction refuses.
#[cfg(not(target_arch = "wasm32"))]
pub fn disposition(signal: i32) -> Option<Disposition> {
    // SAFETY: sigaction only fills in the zeroed struct.
    let handler = unsafe {
        let mut action: libc::sigaction = std::mem::zeroed();
        if libc::sigaction(signal, std::ptr::null(), &mut action) != 0 {
            return None;
        }
        action.sa_sigaction
    };
    let sigint: extern "C" fn(libc::c_int) = on_sigint;
    let caught: extern "C" fn(libc::c_int) = on_signal;
    Some(match handler {
        libc::SIG_IGN => Disposition::Ignore,
        h if h == sigint as libc::sighandler_t => Disposition::Interrupt,
        h if h == caught as libc::sighandler_t => Disposition::Catch,
        _ => Disposition::Default,
    })
}

/// The signals a thread does not take from other processes: those that report its own
/// fault, which go to the thread that made it whatever its mask.
#[cfg(not(target_arch = "wasm32"))]
fn routed_signals() -> libc::sigset_t {
    // SAFETY: fills and edits a local signal set.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigfillset(&mut set);
        for fault in [
            libc::SIGSEGV,
            libc::SIGBUS,
            libc::SIGILL,
            libc::SIGFPE,
            libc::SIGTRAP,
            libc::SIGSYS,
        ] {
            libc::sigdelset(&mut set, fault);
        }
        set
    }
}

/// Blocks (true) or unblocks the signals sent to the process in the calling thread, and
/// in the threads it starts next. The thread that starts the interpreter thread blocks
/// them, the interpreter thread unblocks them, the helper threads apy starts block them:
/// a signal the program sends itself (`os.kill(os.getpid(), …)`) is then taken by the
/// interpreter thread, before `kill` returns, as CPython's main thread takes it, and its
/// handler runs at once.
#[cfg(not(target_arch = "wasm32"))]
pub fn route_signals(block: bool) {
    let how = if block {
        libc::SIG_BLOCK
    } else {
        libc::SIG_UNBLOCK
    };
    // SAFETY: changes the calling thread's mask with a valid set.
    unsafe {
        libc::pthread_sigmask(how, &routed_signals(), std::ptr::null_mut());
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

/// True while a caught signal waits for its Python handler, without clearing it.
pub fn signals_pending() -> bool {
    PENDING.load(Ordering::Relaxed) != 0
}

/// The caught signals waiting for their handlers (bit `n - 1` for signal `n`), cleared.
pub fn take_pending() -> u64 {
    PENDING.swap(0, Ordering::Relaxed)
}

/// Marks the signals of `mask` pending again (those a failing handler left unhandled).
pub fn repend(mask: u64) {
    PENDING.fetch_or(mask, Ordering::Relaxed);
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

    #[test]
    fn a_caught_signal_stays_pending_until_taken() {
        let bit = 1 << (libc::SIGUSR2 - 1);
        set_disposition(libc::SIGUSR2, Disposition::Catch).expect("SIGUSR2 can be caught");
        assert_eq!(disposition(libc::SIGUSR2), Some(Disposition::Catch));
        // SAFETY: raising SIGUSR2 in this thread runs the handler installed above before
        // raise returns.
        unsafe {
            libc::raise(libc::SIGUSR2);
        }
        assert!(signals_pending());
        assert_eq!(take_pending() & bit, bit);
        repend(bit);
        assert_eq!(take_pending(), bit);
        assert!(!signals_pending());
        set_disposition(libc::SIGUSR2, Disposition::Default).expect("SIGUSR2 can be reset");
        assert_eq!(disposition(libc::SIGUSR2), Some(Disposition::Default));
        // SIGKILL cannot be caught: sigaction's EINVAL.
        let refused = set_disposition(libc::SIGKILL, Disposition::Catch);
        assert_eq!(
            refused.map_err(|e| e.raw_os_error()),
            Err(Some(libc::EINVAL))
        );
    }
}
