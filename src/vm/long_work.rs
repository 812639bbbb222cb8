//! Native work whose cost grows faster than its operands (a big-int power, product,
//! quotient, modular power, root or binomial), which would otherwise run on uninterrupted,
//! past `--max-steps`, `--time-limit` and Ctrl-C: [`Vm::long_work`] charges its estimated
//! cost against the step budget before it starts, so a step limit stops it without running
//! it (the same on every machine), and runs an expensive one on a worker thread while the
//! interpreter waits, so the time limit and Ctrl-C still end the program on time. A worker
//! left behind is abandoned: nothing in it touches the VM, and it ends with its work or
//! with the process. CPython cannot interrupt these either (`3**10**9` ignores Ctrl-C);
//! apy's limits are promises, so it must.

#[cfg(not(target_arch = "wasm32"))]
use std::time::Duration;

use super::{PyResult, Vm};

/// Steps (a step is about 16 machine-word operations) below which work runs in place:
/// about a millisecond, short next to the limits' margins, and cheaper than a thread.
#[cfg(not(target_arch = "wasm32"))]
const IN_PLACE_STEPS: u64 = 1 << 16;

/// How often the waiting interpreter looks at the clock and for Ctrl-C.
#[cfg(not(target_arch = "wasm32"))]
const POLL: Duration = Duration::from_millis(10);

/// The cost in steps of multiplying two numbers of `words` 64-bit words each (Karatsuba's
/// `n^1.585`, which num-bigint's Toom-3 only betters for huge operands).
pub fn product_steps(words: f64) -> u64 {
    steps(words.max(1.0).powf(1.585))
}

/// The cost in steps of a schoolbook long division of `words` words by `by_words` (what
/// num-bigint does at every size).
pub fn division_steps(words: f64, by_words: f64) -> u64 {
    steps(words.max(1.0) * by_words.max(1.0))
}

/// The cost in steps of work that touches each of `words` words once (a shift, a sum).
pub fn linear_steps(words: f64) -> u64 {
    steps(words)
}

/// `word_operations` as steps, saturating: an impossible estimate is a huge cost, never a
/// wrapped small one.
fn steps(word_operations: f64) -> u64 {
    (word_operations / 16.0).min((u64::MAX / 2) as f64) as u64
}

/// The 64-bit words of a number of `bits` bits.
pub fn words(bits: u64) -> f64 {
    (bits / 64 + 1) as f64
}

impl Vm {
    /// Runs `work`, whose cost is estimated at `steps`: charged first (raising the step
    /// limit's stop before it starts), then run in place when short, else on a worker
    /// thread this one waits for, ending the wait at the time limit or on Ctrl-C.
    pub fn long_work<T: Send + 'static>(
        &mut self,
        steps: u64,
        work: impl FnOnce() -> T + Send + 'static,
    ) -> PyResult<T> {
        self.charge(steps)?;
        // A page has no threads; in a browser the Stop button ends the worker running apy.
        #[cfg(not(target_arch = "wasm32"))]
        if steps >= IN_PLACE_STEPS {
            return self.wait_for_worker(work);
        }
        Ok(work())
    }

    /// Runs `work` on a new thread, polling the clock and Ctrl-C ([`Vm::check_woken`])
    /// while it lasts.
    #[cfg(not(target_arch = "wasm32"))]
    fn wait_for_worker<T: Send + 'static>(
        &mut self,
        work: impl FnOnce() -> T + Send + 'static,
    ) -> PyResult<T> {
        use std::sync::mpsc::{RecvTimeoutError, channel};
        let (done, result) = channel();
        let worker = std::thread::Builder::new()
            .name("apy-long-work".into())
            .spawn(move || {
                // Signals stay with the interpreter thread (`interrupt::route_signals`).
                super::interrupt::route_signals(true);
                // The receiver is gone when the interpreter stopped waiting: nothing to do.
                let _ = done.send(work());
            });
        let worker = match worker {
            Ok(worker) => worker,
            Err(_) => return Err(self.runtime_error("can't start new thread")),
        };
        loop {
            match result.recv_timeout(POLL) {
                Ok(value) => return Ok(value),
                // The worker panicked (a bug in apy): the panic goes on here, as it would
                // have in place.
                Err(RecvTimeoutError::Disconnected) => match worker.join() {
                    Err(panic) => std::panic::resume_unwind(panic),
                    Ok(()) => return Err(self.runtime_error("the worker thread left no result")),
                },
                Err(RecvTimeoutError::Timeout) => {
                    if let Some(stop) = self.check_woken() {
                        return Err(stop);
                    }
                }
            }
        }
    }
}
