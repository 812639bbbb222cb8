//! The loop's trace events as data, for a recorder above this layer (`--timeline` in
//! `timeline/`): the same events `--trace` words as text in `trace.rs`, handed over as
//! [`Event`]s with the objects they concern. A recorder is a plain function installed once
//! per interpreter thread; it must not run Python code or keep the objects alive (it sees
//! them only for the length of the call). With no recorder installed, the events' `#[cold]`
//! bodies never run for it: recording costs nothing when off.

use std::cell::Cell;

use crate::common::trace::Category;
use crate::vm::Exc;
use crate::vm::Vm;
use crate::vm::frame::FrameResult;
use crate::vm::value::Value;

/// One event of the loop, tasks, futures or async-generator hooks.
pub enum Event<'a> {
    /// `run_forever` begins on this loop, at loop time `now`.
    LoopStart { event_loop: &'a Value, now: f64 },
    /// `run_forever` ends.
    LoopStop,
    /// One iteration of `_run_once` begins at loop time `now`.
    Iteration { now: f64 },
    /// The selector reported these `(fd, events)` after waiting (or polling, `waited` None).
    Selected {
        waited: Option<f64>,
        ready: &'a [(i32, u32)],
    },
    /// The loop runs a handle (a `call_soon`/`call_later` callback).
    RunHandle { handle: &'a Value },
    /// The loop runs one of its own calls `func(arg)` (a future's done callback).
    RunCall { func: &'a Value, arg: &'a Value },
    /// A new task, made while `by` ran (None at top level).
    TaskCreated { task: &'a Value, by: &'a Value },
    /// The loop runs a task's wakeup: `future` is done.
    TaskWakeup { task: &'a Value, future: &'a Value },
    /// A task step sends None, or throws `exc`, into its coroutine.
    TaskStep {
        task: &'a Value,
        exc: Option<&'a Exc>,
    },
    /// What the step got back from the coroutine.
    TaskOutcome {
        task: &'a Value,
        outcome: &'a FrameResult,
    },
    /// The step is over (the task's own result, if any, is set).
    StepEnd { task: &'a Value },
    /// `task.cancel(msg)` on a pending task.
    CancelRequested { task: &'a Value, msg: &'a Value },
    /// A future (or task) just became done.
    FutureDone { future: &'a Value },
    /// An async-generator hook call.
    AsyncgenHook { hook: Hook, agen: &'a Value },
    /// `shutdown_asyncgens` closes `count` async generators.
    ShutdownAsyncgens { count: usize },
}

/// Which async-generator hook event happened.
#[derive(Clone, Copy, Debug)]
pub enum Hook {
    /// The loop's firstiter hook saw a new async generator.
    FirstIter,
    /// The loop's finalizer hook got an async generator that was not exhausted.
    Finalizer,
    /// The finalizer scheduled a task running `aclose()`.
    AcloseScheduled,
}

/// A recorder: called with each event while it is installed.
pub type Recorder = fn(&mut Vm, &Event<'_>);

/// The categories a recorder hears: everything but `frames`.
const CATEGORIES: u8 = crate::common::trace::DEFAULT_CATEGORIES;

thread_local! {
    static RECORDER: Cell<Option<Recorder>> = const { Cell::new(None) };
}

/// Hands every loop event on this thread to `recorder` from now on. False when apy is
/// built without the `trace` feature, which compiles the events away.
pub fn install(recorder: Recorder) -> bool {
    RECORDER.with(|r| r.set(Some(recorder)));
    crate::common::trace::listen(CATEGORIES)
}

/// Hands `event` to the recorder, if one is installed (called from the events' `#[cold]`
/// bodies in `trace.rs`).
pub fn record(vm: &mut Vm, event: &Event<'_>) {
    if let Some(recorder) = RECORDER.with(Cell::get) {
        recorder(vm, event);
    }
}

/// The end of a task step: only a recorder hears it (the text log has no line for it).
#[inline]
pub fn step_end(vm: &mut Vm, task: &Value) {
    if crate::common::trace::on(Category::Tasks) {
        cold_step_end(vm, task);
    }
}

#[cold]
fn cold_step_end(vm: &mut Vm, task: &Value) {
    record(vm, &Event::StepEnd { task });
}
