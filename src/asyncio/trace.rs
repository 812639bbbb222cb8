//! The `--trace` events of the event loop, tasks, futures and async-generator hooks: each
//! is a one-line call-site in `asyncio/`, an inline test of the category mask then a
//! `#[cold]` body that words the line. The log's format (a table of every line), its
//! categories and its writer are in `common/trace.rs`; frame events and the helpers that
//! describe values without running Python code are in `vm/trace.rs`, which names futures
//! and tasks through [`object_name`].

use std::cell::RefCell;
use std::fmt::Write as _;
use std::rc::{Rc, Weak};

use super::event_loop::{Ready, as_loop, handle_parts};
use super::future::{Callback, Status, as_future};
pub use super::record::Hook;
use super::record::{Event, record};
use crate::common::trace::{Category, on, set_in_loop, text_on};
use crate::vm::frame::FrameResult;

use crate::vm::object::Object;
use crate::vm::trace::{
    describe, describe_call, describe_callable, describe_exc, emit, generator_call, object_number,
};
use crate::vm::value::Value;
use crate::vm::{Exc, Vm};

#[derive(Default)]
struct Traced {
    /// The traced loop, its first start time and its iteration count. The weak reference
    /// keeps the address from being reused by a later loop.
    event_loop: Weak<Object>,
    epoch: f64,
    iteration: u64,
}

thread_local! {
    static TRACED: RefCell<Traced> = RefCell::new(Traced::default());
}

// ---- loop -----------------------------------------------------------------------------

/// `run_forever` begins on `event_loop`; times are measured from its first run.
#[inline]
pub fn loop_start(vm: &mut Vm, event_loop: &Value, now: f64) {
    if on(Category::Loop) {
        cold_loop_start(vm, event_loop, now);
    }
}

#[cold]
fn cold_loop_start(vm: &mut Vm, event_loop: &Value, now: f64) {
    let Value::Object(this_loop) = event_loop else {
        return;
    };
    TRACED.with(|t| {
        let mut t = t.borrow_mut();
        if !std::ptr::eq(t.event_loop.as_ptr(), Rc::as_ptr(this_loop)) {
            t.event_loop = Rc::downgrade(this_loop);
            t.epoch = now;
            t.iteration = 0;
        }
    });
    record(vm, &Event::LoopStart { event_loop, now });
    if !text_on(Category::Loop) {
        return;
    }
    set_in_loop(false);
    let clock = match vm.config.clock {
        crate::common::clock::ClockKind::Real => "real",
        crate::common::clock::ClockKind::Virtual => "virtual",
    };
    emit(vm, 0, &format!("loop starts running ({clock} clock)"));
}

/// `run_forever` ends.
#[inline]
pub fn loop_stop(vm: &mut Vm) {
    if on(Category::Loop) {
        cold_loop_stop(vm);
    }
}

#[cold]
fn cold_loop_stop(vm: &mut Vm) {
    record(vm, &Event::LoopStop);
    if !text_on(Category::Loop) {
        return;
    }
    set_in_loop(false);
    emit(vm, 0, "loop stops running");
}

/// One iteration of `_run_once` begins (at the loop time `clock` tells, read only when
/// traced).
#[inline]
pub fn iteration(vm: &mut Vm, clock: &crate::common::clock::Clock) {
    if on(Category::Loop) {
        cold_iteration(vm, clock.now());
    }
}

#[cold]
fn cold_iteration(vm: &mut Vm, now: f64) {
    let (n, t) = TRACED.with(|t| {
        let mut t = t.borrow_mut();
        t.iteration += 1;
        (t.iteration, now - t.epoch)
    });
    record(vm, &Event::Iteration { now });
    if !text_on(Category::Loop) {
        return;
    }
    set_in_loop(false);
    emit(vm, 0, &format!("iteration {n}, t={}", seconds(t)));
    set_in_loop(true);
}

/// The loop's select saw `selected` (shown when it blocked, or when something came
/// ready): how long it waited on the real clock, and which descriptors are ready.
#[cfg(not(target_arch = "wasm32"))]
#[inline]
pub fn selected(vm: &mut Vm, waited: Option<f64>, ready: &[(i32, u32)], virtual_clock: bool) {
    if on(Category::Loop) && (waited.is_some() || !ready.is_empty()) {
        cold_selected(vm, waited, ready, virtual_clock);
    }
}

#[cfg(not(target_arch = "wasm32"))]
#[cold]
fn cold_selected(vm: &mut Vm, waited: Option<f64>, ready: &[(i32, u32)], virtual_clock: bool) {
    record(vm, &Event::Selected { waited, ready });
    if !text_on(Category::Loop) {
        return;
    }
    let what = crate::common::net::describe_ready(ready);
    let text = match waited {
        None => format!("select polled: {what}"),
        // Real time waited varies from run to run: the virtual clock's log leaves it out.
        Some(_) if virtual_clock => format!("select waited: {what}"),
        Some(t) => format!("select waited {t:.3}s: {what}"),
    };
    emit(vm, 0, &text);
}

/// `call_soon` made this handle.
#[inline]
pub fn call_soon(vm: &mut Vm, handle: &Value) {
    if on(Category::Loop) && text_on(Category::Loop) {
        cold_handle(vm, "call_soon", handle);
    }
}

/// A timer handle was pushed on the heap (`call_later`/`call_at`).
#[inline]
pub fn timer_scheduled(vm: &mut Vm, handle: &Value) {
    if on(Category::Loop) && text_on(Category::Loop) {
        cold_handle(vm, "timer scheduled", handle);
    }
}

/// A due timer handle moved to the ready queue.
#[inline]
pub fn timer_fired(vm: &mut Vm, handle: &Value) {
    if on(Category::Loop) && text_on(Category::Loop) {
        cold_handle(vm, "timer fires", handle);
    }
}

/// The loop runs a (not cancelled) handle.
#[inline]
pub fn run_handle(vm: &mut Vm, handle: &Value) {
    if on(Category::Loop) {
        cold_run_handle(vm, handle);
    }
}

#[cold]
fn cold_run_handle(vm: &mut Vm, handle: &Value) {
    record(vm, &Event::RunHandle { handle });
    if text_on(Category::Loop) {
        cold_handle(vm, "run", handle);
    }
}

#[cold]
fn cold_handle(vm: &mut Vm, what: &str, handle: &Value) {
    let Some((callback, args, when)) = handle_parts(handle) else {
        return;
    };
    let call = describe_call(callback, args);
    let text = match when {
        Some(when) => {
            let t = TRACED.with(|t| when - t.borrow().epoch);
            format!("{what} (t={}): {call}", seconds(t))
        }
        None => format!("{what} {call}"),
    };
    emit(vm, 0, &text);
}

/// The loop runs one of its own calls `func(arg)` (a future's done callback, or the
/// finalizer hook's `create_task(agen.aclose())`).
#[inline]
pub fn run_call(vm: &mut Vm, func: &Value, arg: &Value) {
    if on(Category::Loop) {
        cold_run_call(vm, func, arg);
    }
}

#[cold]
fn cold_run_call(vm: &mut Vm, func: &Value, arg: &Value) {
    record(vm, &Event::RunCall { func, arg });
    if text_on(Category::Loop) {
        let text = format!("run {}", describe_call(func, std::slice::from_ref(arg)));
        emit(vm, 0, &text);
    }
}

// ---- tasks ----------------------------------------------------------------------------

/// A new task on `event_loop`, made by the task running there (if any).
#[inline]
pub fn task_created(vm: &mut Vm, task: &Value, event_loop: &Value) {
    if on(Category::Tasks) {
        cold_task_created(vm, task, event_loop);
    }
}

#[cold]
fn cold_task_created(vm: &mut Vm, task: &Value, event_loop: &Value) {
    let by = &as_loop(event_loop).map_or(Value::None, |l| l.state.borrow().current_task.clone());
    record(vm, &Event::TaskCreated { task, by });
    if !text_on(Category::Tasks) {
        return;
    }
    let mut text = format!("{} created for {}", future_name(task), task_coro(task));
    if !by.is_none() {
        let _ = write!(text, " by {}", future_name(by));
    }
    emit(vm, 0, &text);
}

/// The loop runs a task's wakeup: the future it waited on is done.
#[inline]
pub fn task_wakeup(vm: &mut Vm, task: &Value, future: &Value) {
    if on(Category::Tasks) {
        cold_task_wakeup(vm, task, future);
    }
}

#[cold]
fn cold_task_wakeup(vm: &mut Vm, task: &Value, future: &Value) {
    record(vm, &Event::TaskWakeup { task, future });
    if text_on(Category::Tasks) {
        let text = format!(
            "{} wakes up: {} is done",
            future_name(task),
            future_name(future)
        );
        emit(vm, 0, &text);
    }
}

/// A task step is about to send None, or throw `exc`, into its coroutine.
#[inline]
pub fn task_step(vm: &mut Vm, task: &Value, exc: Option<&Exc>) {
    if on(Category::Tasks) {
        cold_task_step(vm, task, exc);
    }
}

#[cold]
fn cold_task_step(vm: &mut Vm, task: &Value, exc: Option<&Exc>) {
    record(vm, &Event::TaskStep { task, exc });
    if !text_on(Category::Tasks) {
        return;
    }
    let coro = task_coro(task);
    let text = match exc {
        None => format!("{} step: send None into {coro}", future_name(task)),
        Some(e) => {
            let note = if e.class.name().as_ref() == "CancelledError"
                && super::task::cancelling(task) > 0
            {
                " (cancellation delivered)"
            } else {
                ""
            };
            format!(
                "{} step: throw {} into {coro}{note}",
                future_name(task),
                describe_exc(e)
            )
        }
    };
    emit(vm, 0, &text);
}

/// What a task's step got back from its coroutine.
#[inline]
pub fn task_outcome(vm: &mut Vm, task: &Value, outcome: &FrameResult) {
    if on(Category::Tasks) {
        cold_task_outcome(vm, task, outcome);
    }
}

#[cold]
fn cold_task_outcome(vm: &mut Vm, task: &Value, outcome: &FrameResult) {
    record(vm, &Event::TaskOutcome { task, outcome });
    if !text_on(Category::Tasks) {
        return;
    }
    let name = future_name(task);
    let who = task_coro(task);
    let text = match outcome {
        FrameResult::Yielded(v) if v.is_none() => {
            format!(
                "{name} {} yielded None (a bare yield): steps again soon",
                await_chain(task)
            )
        }
        FrameResult::Yielded(v) if as_future(v).is_some() => {
            let chain = await_chain(task);
            format!("{name} {chain} yielded {}: waits for it", future_name(v))
        }
        FrameResult::Yielded(v) => format!("{name} {who} yielded {}", describe(v)),
        FrameResult::Returned(v) => format!("{name} {who} returned {}", describe(v)),
        FrameResult::Err(e) if e.class.name().as_ref() == "CancelledError" => {
            format!("{name} {who} raised {}: cancelled", describe_exc(e))
        }
        FrameResult::Err(e) => format!("{name} {who} raised {}", describe_exc(e)),
    };
    emit(vm, 0, &text);
}

/// `task.cancel(msg)` was called on a pending task.
#[inline]
pub fn cancel_requested(vm: &mut Vm, task: &Value, msg: &Value) {
    if on(Category::Tasks) {
        cold_cancel_requested(vm, task, msg);
    }
}

#[cold]
fn cold_cancel_requested(vm: &mut Vm, task: &Value, msg: &Value) {
    record(vm, &Event::CancelRequested { task, msg });
    if !text_on(Category::Tasks) {
        return;
    }
    let mut text = format!("{} cancel requested", future_name(task));
    let event_loop = as_future(task).map_or(Value::None, |f| f.event_loop().into_owned());
    let by = as_loop(&event_loop)
        .and_then(|l| l.state.try_borrow().ok().map(|s| s.current_task.clone()))
        .filter(|current| !current.is_none());
    if let Some(by) = by {
        let _ = write!(text, " by {}", future_name(&by));
    }
    if !msg.is_none() {
        let _ = write!(text, " (msg={})", describe(msg));
    }
    emit(vm, 0, &text);
}

// ---- futures --------------------------------------------------------------------------

/// A future (or task) just became done; `callbacks` are about to be scheduled.
#[inline]
pub fn future_done(vm: &mut Vm, future: &Value) {
    if on(Category::Futures) {
        cold_future_done(vm, future);
    }
}

#[cold]
fn cold_future_done(vm: &mut Vm, future: &Value) {
    record(vm, &Event::FutureDone { future });
    if !text_on(Category::Futures) {
        return;
    }
    let Some(f) = as_future(future) else {
        return;
    };
    let mut text = future_name(future);
    {
        let st = f.state.borrow();
        match (st.status, &st.exception) {
            (Status::Cancelled, _) => text.push_str(" cancelled"),
            (_, Some(e)) => {
                let _ = write!(text, " finished exception={}", describe_exc(e));
            }
            _ => {
                let _ = write!(text, " finished result={}", describe(&st.result));
            }
        }
        let callbacks: Vec<String> = st
            .callbacks
            .iter()
            .map(|cb| match cb {
                Callback::Wakeup(task) => format!("{} wakeup", future_name(task)),
                Callback::Py(func, _) => describe_callable(func),
            })
            .collect();
        if !callbacks.is_empty() {
            let _ = write!(text, ", schedules {}", callbacks.join(", "));
        }
    }
    emit(vm, 0, &text);
}

// ---- async-generator hooks --------------------------------------------------------------

/// An async-generator hook call on `agen`.
#[inline]
pub fn asyncgen_hook(vm: &mut Vm, hook: Hook, agen: &Value) {
    if on(Category::Hooks) {
        cold_asyncgen_hook(vm, hook, agen);
    }
}

#[cold]
fn cold_asyncgen_hook(vm: &mut Vm, hook: Hook, agen: &Value) {
    record(vm, &Event::AsyncgenHook { hook, agen });
    if !text_on(Category::Hooks) {
        return;
    }
    let name = generator_call(agen);
    let text = match hook {
        Hook::FirstIter => format!("asyncgen firstiter {name}"),
        Hook::Finalizer => format!("asyncgen finalizer {name}"),
        Hook::AcloseScheduled => format!("aclose of {name} scheduled"),
    };
    emit(vm, 0, &text);
}

/// `loop.shutdown_asyncgens()` closes `count` async generators.
#[inline]
pub fn shutdown_asyncgens(vm: &mut Vm, count: usize) {
    if on(Category::Hooks) {
        cold_shutdown_asyncgens(vm, count);
    }
}

#[cold]
fn cold_shutdown_asyncgens(vm: &mut Vm, count: usize) {
    record(vm, &Event::ShutdownAsyncgens { count });
    if text_on(Category::Hooks) {
        let text = format!("shutdown_asyncgens closes {count} async generators");
        emit(vm, 0, &text);
    }
}

// ---- describing loop objects ------------------------------------------------------------

/// What a ready-queue entry runs: `Task-1 step, main()`, `callback f(1)`.
pub fn describe_ready(entry: &Ready) -> String {
    match entry {
        Ready::Step(task, _) | Ready::Wakeup(task, _) => {
            format!("{} step, {}", future_name(task), task_coro(task))
        }
        Ready::Handle(handle) => match handle_parts(handle) {
            Some((callback, args, _)) => format!("callback {}", describe_call(callback, args)),
            None => "a callback".into(),
        },
        Ready::Call(func, future, _) => format!(
            "callback {}",
            describe_call(func, std::slice::from_ref(future))
        ),
    }
}

/// `0.100`: seconds with three decimals (never `-0.000`).
fn seconds(t: f64) -> String {
    let t = if t.abs() < 0.0005 { 0.0 } else { t };
    format!("{t:.3}")
}

/// A future's or task's name for the log, None for any other value: how `vm/trace.rs`
/// describes them ([`crate::vm::trace::name_objects_with`]).
pub fn object_name(v: &Value) -> Option<String> {
    as_future(v).map(|_| future_name(v))
}

/// `Task-2` for a task, `Future#3` (numbered on first mention) for any other future.
pub fn future_name(v: &Value) -> String {
    if let Some(name) = super::task::task_name(v) {
        return name;
    }
    match v {
        Value::Object(o) => format!("{}#{}", o.class.name(), object_number(v)),
        _ => describe(v),
    }
}

/// `main()`: the coroutine a task drives.
fn task_coro(task: &Value) -> String {
    super::task::task_coro(task).map_or(String::new(), |c| generator_call(&c))
}

/// A task's await chain with the line each coroutine is suspended at, outermost first:
/// `job() line 4 > sleep() line 20` (the last one yielded what the task got).
fn await_chain(task: &Value) -> String {
    let links: Vec<String> = super::task::await_chain(task)
        .iter()
        .map(|link| format!("{}() line {}", link.qualname, link.line))
        .collect();
    links.join(" > ")
}
