//! The clocks: real monotonic time (`time.monotonic()`, as `Lib/asyncio/base_events.py`'s
//! `BaseEventLoop.time`) or a virtual clock that stands still while code runs and moves only
//! by jumps: the event loop jumps it straight to the next timer when nothing is ready, and
//! `time.sleep` jumps it by the time asked for. Virtual time is one per interpreter thread,
//! so `loop.time()`, `time.monotonic()` and `time.perf_counter()` all read it alike.
//! Value-free: the VM's `Config` says which clock a run uses, the event loop keeps a
//! [`Clock`], and the `time` module reads [`now`].

use std::cell::Cell;

/// A moment on the real monotonic clock: the standard library's, or in a browser (whose
/// standard library has no clock) the page's `performance.now()`.
#[cfg(not(target_arch = "wasm32"))]
pub use std::time::Instant;
#[cfg(target_arch = "wasm32")]
pub use web_instant::Instant;

thread_local! {
    static PROCESS_START: Instant = Instant::now();
    /// Virtual "now", set on first read to the real monotonic time so both clocks start alike.
    static VIRTUAL_NOW: Cell<Option<f64>> = const { Cell::new(None) };
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

/// "Now" in seconds on the clock `kind`: `time.monotonic()` and `loop.time()`.
pub fn now(kind: ClockKind) -> f64 {
    match kind {
        ClockKind::Real => seconds_since_start(),
        ClockKind::Virtual => VIRTUAL_NOW.with(|v| match v.get() {
            Some(now) => now,
            None => {
                let now = seconds_since_start();
                v.set(Some(now));
                now
            }
        }),
    }
}

/// Moves virtual time forward to `when` (never back): the jump that replaces a wait.
pub fn advance_virtual(when: f64) {
    if when > now(ClockKind::Virtual) {
        VIRTUAL_NOW.with(|v| v.set(Some(when)));
    }
}

/// A wait of `seconds` as CPython's epoll selector makes it: in whole milliseconds,
/// rounded up (none for a negative one), so that timers due within the same millisecond
/// run in the same iteration, as there.
pub fn whole_milliseconds(seconds: f64) -> f64 {
    (seconds.max(0.0) * 1e3).ceil() / 1e3
}

/// One loop's clock.
pub struct Clock {
    kind: ClockKind,
}

impl Clock {
    pub fn new(kind: ClockKind) -> Clock {
        Clock { kind }
    }

    pub fn now(&self) -> f64 {
        now(self.kind)
    }

    /// True for `--clock virtual`, whose time moves only by jumps.
    pub fn is_virtual(&self) -> bool {
        self.kind == ClockKind::Virtual
    }
}

/// Seconds since the epoch on the real clock (`time.time()`, the calendar's "now").
#[cfg(not(target_arch = "wasm32"))]
pub fn unix_time() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64())
}

/// Seconds since the epoch: the page's `Date.now()`, which counts whole milliseconds; two
/// reads within one are told apart by the next float up, so that time passes between any
/// two reads as it does natively (`t = time(); … time() - t` is never 0, and a deadline
/// `time() + d` is never reached before `d` has passed from an earlier read).
#[cfg(target_arch = "wasm32")]
pub fn unix_time() -> f64 {
    thread_local! {
        static LAST: std::cell::Cell<f64> = const { std::cell::Cell::new(0.0) };
    }
    let now = super::browser::date_now() / 1000.0;
    LAST.with(|last| {
        let time = if now > last.get() {
            now
        } else {
            f64::from_bits(last.get().to_bits() + 1)
        };
        last.set(time);
        time
    })
}

#[cfg(target_arch = "wasm32")]
mod web_instant {
    use std::time::Duration;

    /// The time since the page started, as `std::time::Instant` offers it (the part apy uses).
    #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
    pub struct Instant(Duration);

    impl Instant {
        pub fn now() -> Instant {
            let millis = crate::common::browser::performance_now().max(0.0);
            Instant(Duration::from_secs_f64(millis / 1000.0))
        }

        pub fn elapsed(&self) -> Duration {
            Instant::now().saturating_duration_since(*self)
        }

        pub fn checked_add(&self, duration: Duration) -> Option<Instant> {
            self.0.checked_add(duration).map(Instant)
        }

        pub fn saturating_duration_since(&self, earlier: Instant) -> Duration {
            self.0.saturating_sub(earlier.0)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn virtual_time_moves_only_forward_and_by_jumps() {
        let start = now(ClockKind::Virtual);
        assert_eq!(now(ClockKind::Virtual), start);
        advance_virtual(start + 2e7);
        assert_eq!(now(ClockKind::Virtual), start + 2e7);
        advance_virtual(start);
        assert_eq!(now(ClockKind::Virtual), start + 2e7);
    }
}
