//! Python's signal handlers (`Modules/signalmodule.c`): what each signal does is the VM's
//! `SignalTable` (`signal.signal` fills it in, `builtins::signal_module`); here is
//! [`Vm::check_signals`], CPython's `PyErr_CheckSignals`: on the main thread, the handlers
//! of the signals `vm::interrupt` caught since run, between instructions
//! ([`Vm::check_between_instructions`]), after a wait ([`Vm::check_woken`]) and right after
//! `os.kill` or `signal.raise_signal`.

use super::interrupt;
use super::value::Value;
use super::{PyResult, Vm};

impl Vm {
    /// `PyErr_CheckSignals`: on the main thread, a pending Ctrl-C as KeyboardInterrupt,
    /// then the handlers of the caught signals; the exception one raises.
    pub fn check_signals(&mut self) -> PyResult<()> {
        if !self.threads.on_main() {
            return Ok(());
        }
        if interrupt::take() {
            return Err(self.new_exc_args(&self.types.keyboard_interrupt, vec![]));
        }
        self.run_signal_handlers()
    }

    /// Whether a wait should end for signal handlers to run: some are pending, and the
    /// main thread, the only one, waits ([`Vm::handlers_may_run`]), or the scheduler does
    /// (it then wakes the main thread: `vm::threads`). A wait of another thread goes on.
    #[cfg(not(target_arch = "wasm32"))]
    pub(crate) fn signals_deliverable(&self) -> bool {
        interrupt::signals_pending() && (self.handlers_may_run() || self.threads.scheduling())
    }

    /// Whether the handlers may run right here: the main thread runs, alone (with other
    /// threads alive they run as the main thread's turn or wait ends).
    pub(crate) fn handlers_may_run(&self) -> bool {
        self.threads.on_main() && !self.threads.active() && !self.threads.scheduling()
    }

    /// Runs the handler of each caught signal, lowest number first, with `(signum, frame)`;
    /// an exception one raises ends the round, and the signals not yet handled stay
    /// pending (as CPython's `is_tripped`). To be called on the main thread.
    pub(crate) fn run_signal_handlers(&mut self) -> PyResult<()> {
        let mut pending = interrupt::take_pending();
        while pending != 0 {
            let signum = pending.trailing_zeros() + 1;
            pending &= pending - 1;
            let Some(handler) = self.signals.handlers.get(signum as usize).cloned() else {
                continue;
            };
            // (Reset to SIG_DFL or SIG_IGN after the signal came: nothing to run.)
            if !self.is_callable(&handler) {
                continue;
            }
            // The frame the signal interrupted: the innermost Python frame (the caller of
            // the native function that waited), a snapshot as `sys._getframe()` gives.
            let frame = self.frame_object(0).unwrap_or(Value::None);
            if let Err(exc) = self.call(&handler, &[Value::Int(signum.into()), frame], &[]) {
                interrupt::repend(pending);
                return Err(exc);
            }
        }
        Ok(())
    }
}
