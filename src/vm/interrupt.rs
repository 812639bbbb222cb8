//! Ctrl-C: SIGINT sets a flag, and the dispatch loop's periodic limit check (every few
//! thousand instructions, `Vm::check_limits`) turns it into a `KeyboardInterrupt` raised in
//! the running Python code, as CPython's eval breaker does (`Python/ceval_gil.c`).
//! The handler itself only stores to an atomic: nothing else is async-signal-safe.

use std::sync::atomic::{AtomicBool, Ordering};

static INTERRUPTED: AtomicBool = AtomicBool::new(false);

extern "C" fn on_sigint(_signal: libc::c_int) {
    INTERRUPTED.store(true, Ordering::Relaxed);
}

/// Routes SIGINT to the flag instead of killing the process (`signal.default_int_handler`).
pub fn install_handler() {
    let handler: extern "C" fn(libc::c_int) = on_sigint;
    // SAFETY: the handler only stores to an atomic, which is async-signal-safe.
    unsafe {
        libc::signal(libc::SIGINT, handler as libc::sighandler_t);
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_signal_is_reported_once() {
        install_handler();
        // SAFETY: raising SIGINT in-process runs the handler installed above.
        unsafe {
            libc::raise(libc::SIGINT);
        }
        assert!(take());
        assert!(!take());
    }
}
