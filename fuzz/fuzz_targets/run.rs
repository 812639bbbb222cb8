//! Any UTF-8 text run as a program under `--sandbox` and the sandbox limits, on the virtual clock (so
//! sleeps take no time and every run is the same): it may raise anything, but apy must end
//! within its limits without a panic, an abort or a native stack overflow. Run with
//! `-close_fd_mask=1` (the program's output is not wanted) and stdin from /dev/null.
//!
//! The limits keep every input well inside libFuzzer's `-timeout` and `-rss_limit_mb`:
//! 200,000 instructions (native work such as `sum(range(n))` is metered against the same
//! budget), 2 s of wall time, and a heap of 256 MB (`--max-memory`, counted by apy's own
//! allocator from the start of each input: going over it is the program's `MemoryError`).
//!
//! The sandbox leaves the host's signal handlers alone (only SIGINT's may change): libFuzzer's
//! are checked after every input, as one reset to SIG_DFL ends the fuzzer without a word
//! (its timeout timer is SIGALRM).
#![no_main]

use std::time::Duration;

use apy::common::clock::ClockKind;
use apy::common::memory::{self, Accounting};
use apy::interp::{self, Error, SourceFile};
use libfuzzer_sys::fuzz_target;

#[global_allocator]
static HEAP: Accounting = Accounting;

/// The heap a program may use (`--max-memory 256M`).
const MAX_MEMORY: usize = 256 << 20;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    memory::set_limit(MAX_MEMORY);
    let source = SourceFile {
        name: "fuzz.apy".into(),
        text: text.into(),
    };
    let config = apy::vm::Config {
        max_steps: Some(200_000),
        time_limit: Some(Duration::from_secs(2)),
        clock: ClockKind::Virtual,
        // No files, sockets or processes: an input must not write files, change the
        // fuzzer's folder (`os.chdir`) or signal its process group (`os.kill`).
        sandbox: true,
        ..apy::vm::Config::default()
    };
    let before = host_handlers();
    // Exit status 70 is apy's own failure: the interpreter thread died.
    assert_ne!(
        interp::run_with(&source, config.into()),
        Err(Error::Exited(70))
    );
    assert_eq!(
        host_handlers(),
        before,
        "the program changed the host's signal handlers"
    );
});

/// The handlers of the signals libFuzzer and Rust's runtime rely on: its timer, its crash
/// reports and its stop requests. (Not SIGABRT's: apy puts its own before it, once, to
/// write out a dying program's output; `vm::fatal`.)
fn host_handlers() -> Vec<libc::sighandler_t> {
    let signals = [
        libc::SIGALRM,
        libc::SIGSEGV,
        libc::SIGBUS,
        libc::SIGILL,
        libc::SIGFPE,
        libc::SIGTERM,
        libc::SIGXFSZ,
        libc::SIGUSR1,
        libc::SIGUSR2,
    ];
    signals
        .into_iter()
        .map(|signal| {
            // SAFETY: sigaction only fills in the zeroed struct.
            unsafe {
                let mut action: libc::sigaction = std::mem::zeroed();
                libc::sigaction(signal, std::ptr::null(), &mut action);
                action.sa_sigaction
            }
        })
        .collect()
}
