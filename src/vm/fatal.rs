//! A fatal end still writes out what the program printed. When apy aborts (Rust's handler
//! for a native stack overflow aborts, and so does an allocation the allocator cannot
//! make), a SIGABRT handler writes the program's buffered output to standard output with
//! `write(2)` and then lets the abort go on through whatever handler was there before (the
//! default one, or a fuzzer's). Installed once per process, when the first output buffer
//! is made. Only async-signal-safe work in the handler: no lock taken, nothing allocated.
//! Knows nothing of the buffer: `vm/mod.rs`, which owns it, hands in the function that
//! writes it out.

use std::sync::OnceLock;

/// The SIGABRT action in place before ours, restored before the abort goes on.
static PREVIOUS: OnceLock<libc::sigaction> = OnceLock::new();

/// Writes out the buffered output (async-signal-safe).
static WRITE_OUT: OnceLock<fn()> = OnceLock::new();

extern "C" fn on_abort(signal: libc::c_int) {
    if let Some(write_out) = WRITE_OUT.get() {
        write_out();
    }
    if let Some(previous) = PREVIOUS.get() {
        // SAFETY: puts back the action read by `install`, then raises the signal again,
        // which that action (by default: end the process with a core) now handles.
        unsafe {
            libc::sigaction(signal, previous, std::ptr::null_mut());
            libc::raise(signal);
        }
    }
}

/// Routes SIGABRT through [`on_abort`], which calls `write_out` (once per process).
pub fn install_handler(write_out: fn()) {
    WRITE_OUT.get_or_init(|| write_out);
    PREVIOUS.get_or_init(|| {
        // SAFETY: a zeroed `sigaction` is a valid value to fill in; the handler only writes
        // a buffer that already exists and calls async-signal-safe functions.
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = on_abort as extern "C" fn(libc::c_int) as libc::sighandler_t;
            action.sa_flags = libc::SA_ONSTACK;
            libc::sigemptyset(&mut action.sa_mask);
            let mut previous: libc::sigaction = std::mem::zeroed();
            libc::sigaction(libc::SIGABRT, &action, &mut previous);
            previous
        }
    });
}
