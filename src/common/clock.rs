//! The event loop's clock: real monotonic time (`time.monotonic()`, as
//! `Lib/asyncio/base_events.py`'s `BaseEventLoop.time`) or a virtual clock that stands still
//! within a loop iteration and jumps straight to the next timer when nothing is ready.
//! Value-free: the VM's `Config` says which clock a run uses, the event loop keeps a [`Clock`],
//! and `time.monotonic()`/`perf_counter()` read [`seconds_since_start`].

use std::cell::Cell;
use std::time::Instant;

thread_local! {
    static PROCESS_START: Instant = Instant::now();
}

/// Real monotonic seconds since the interpreter thread started: `time.monotonic()`, and the
/// real clock's "now".
pub fn seconds_since_start() -> f64 {
    PROCESS_START.with(|start| start.elapsed().as_secs_f64())
}

/// Which clock `--clock` selects.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ClockKind {
    #[default]
    Real,
    Virtual,
}

impl std::str::FromStr for ClockKind {
    type Err = String;
    fn from_str(s: &str) -> Result<ClockKind, String> {
        match s {
            "real" => Ok(ClockKind::Real),
            "virtual" => Ok(ClockKind::Virtual),
            _ => Err(format!(
                "unknown clock '{s}' (expected 'real' or 'virtual')"
            )),
        }
    }
}

/// One loop's notion of "now".
pub struct Clock {
    kind: ClockKind,
    /// The virtual "now"; starts at the real monotonic time so both clocks read alike.
    virtual_now: Cell<f64>,
}

impl Clock {
    pub fn new(kind: ClockKind) -> Clock {
        Clock {
            kind,
            virtual_now: Cell::new(seconds_since_start()),
        }
    }

    pub fn now(&self) -> f64 {
        match self.kind {
            ClockKind::Real => seconds_since_start(),
            ClockKind::Virtual => self.virtual_now.get(),
        }
    }

    /// True for `--clock virtual`, whose time moves only by jumps.
    pub fn is_virtual(&self) -> bool {
        self.kind == ClockKind::Virtual
    }

    /// Lets time pass until `deadline` (nothing is ready before it): sleeps on the real
    /// clock, jumps on the virtual one. A real sleep is cut into short slices and ends early
    /// once `should_wake` says so (Ctrl-C, or the sandbox's time limit), as CPython's
    /// `select()` returns early on a signal.
    pub fn wait_until(&self, deadline: f64, should_wake: impl Fn() -> bool) {
        const SLICE: f64 = 0.05;
        match self.kind {
            ClockKind::Real => loop {
                let delay = deadline - self.now();
                if delay <= 0.0 || should_wake() {
                    break;
                }
                std::thread::sleep(std::time::Duration::from_secs_f64(delay.min(SLICE)));
            },
            ClockKind::Virtual => {
                if deadline > self.virtual_now.get() {
                    self.virtual_now.set(deadline);
                }
            }
        }
    }
}
