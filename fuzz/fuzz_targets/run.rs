//! Any UTF-8 text run as a program under the sandbox limits, on the virtual clock (so
//! sleeps take no time and every run is the same): it may raise anything, but apy must end
//! within its limits without a panic, an abort or a native stack overflow. Run with
//! `-close_fd_mask=1` (the program's output is not wanted) and stdin from /dev/null.
//!
//! The limits keep every input well inside libFuzzer's `-timeout` and `-rss_limit_mb`:
//! 200,000 instructions (native work such as `sum(range(n))` is metered against the same
//! budget), 2 s of wall time, and a heap of 256 MB (`--max-memory`, counted by apy's own
//! allocator from the start of each input: going over it is the program's `MemoryError`).
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
        ..apy::vm::Config::default()
    };
    // Exit status 70 is apy's own failure: the interpreter thread died.
    assert_ne!(
        interp::run_with(&source, config.into()),
        Err(Error::Exited(70))
    );
});
