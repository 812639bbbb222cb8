//! The machinery log behind `--trace`: events from the event loop, tasks, futures,
//! async-generator hooks and coroutine frames in, one readable line per event out, on stderr
//! or in the `--trace-file`. Never runs Python code (values are described natively) and never
//! touches stdout, so a traced program prints exactly what it prints untraced. Each event is
//! a one-line call-site in `asyncio/` or `vm/generator.rs`: an inline test of this thread's
//! category mask, then a `#[cold]` body, so tracing off costs one predictable branch per
//! event (and nothing when apy is built without the `trace` feature).
//!
//! # The format (stable; tests/trace.rs snapshots it)
//!
//! Every line starts with `trace| `. Lines inside a loop iteration are indented by two
//! spaces; `frames` lines are indented further by the depth of coroutines resuming
//! coroutines. Times are seconds since the loop first started, with three decimals (`t=0.100`);
//! under `--clock virtual` they are exact. Futures are named by type and a number given on
//! first mention (`Future#1`), tasks by their name (`Task-2`), coroutines as `main()`, and
//! places by line only (`line 7`), so a log does not depend on where the file lives. Values
//! are shown like `repr` for built-in types (cut at 60 characters) and as `<Foo object>`
//! for instances of user classes, whose `__repr__` is never called.
//!
//! | category  | line (after the `trace` prefix)                                      |
//! |-----------|----------------------------------------------------------------------|
//! | `loop`    | `loop starts running (virtual clock)` / `loop stops running`         |
//! | `loop`    | `iteration N, t=T` (N and T count from the loop's first run)         |
//! | `loop`    | `  call_soon f(args)` / `  timer scheduled (t=T): f(args)`           |
//! | `loop`    | `  timer fires (t=T): f(args)` / `  run (t=T): f(args)` (a timer)    |
//! | `loop`    | `  run f(args)` (a handle, or a done callback `f(Future#1)`)         |
//! | `tasks`   | `  Task-2 created for job() by Task-1`                               |
//! | `tasks`   | `  Task-1 wakes up: Future#1 is done`                                |
//! | `tasks`   | `  Task-1 step: send None into main()` / `throw X into main()`       |
//! | `tasks`   | `  Task-2 job() line 4 > sleep() line 20 yielded Future#1: waits for it` (the await chain) |
//! | `tasks`   | `  Task-1 main() line 11 > sleep() line 14 yielded None (a bare yield): steps again soon` |
//! | `tasks`   | `  Task-1 main() returned 42` / `raised ValueError('x')` / `raised CancelledError(): cancelled` |
//! | `tasks`   | `  Task-2 cancel requested by Task-1 (msg='m')`; a `throw CancelledError()` step says `(cancellation delivered)` |
//! | `futures` | `  Future#1 finished result=None, schedules Task-1 wakeup`           |
//! | `futures` | `  Future#1 cancelled` / `Task-2 finished exception=ValueError('x')` |
//! | `hooks`   | `  asyncgen firstiter agen()` / `asyncgen finalizer agen()` / `aclose of agen() scheduled` / `shutdown_asyncgens closes N async generators` |
//! | `frames`  | `  > send None into main() at its start` / `  > throw X into job() line 3` |
//! | `frames`  | `  < main() line 8 yielded Future#1` / `returned 2` / `raised X`      |
//!
//! `--trace` alone means `loop,tasks,futures,hooks`; `--trace=all` adds `frames`.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::fmt::Write as _;
use std::io::Write;
use std::path::PathBuf;
use std::rc::{Rc, Weak};

use crate::vm::frame::Frame;
use crate::vm::frame::FrameResult;
use crate::vm::frame::GenKind;
use crate::vm::frame::Generator;
use crate::vm::generator::as_generator;
use crate::vm::object::{Object, ObjectKind};
use crate::vm::value::Value;
use crate::vm::{Exc, Vm};

/// One kind of event, a bit in the mask.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Category {
    Loop = 1,
    Tasks = 2,
    Futures = 4,
    Hooks = 8,
    Frames = 16,
}

const CATEGORY_NAMES: [(&str, Category); 5] = [
    ("loop", Category::Loop),
    ("tasks", Category::Tasks),
    ("futures", Category::Futures),
    ("hooks", Category::Hooks),
    ("frames", Category::Frames),
];

/// The categories `--trace` without a list selects: all but `frames`.
pub const DEFAULT_CATEGORIES: u8 = 1 | 2 | 4 | 8;

/// What to trace and where: `--trace[=…]` and `--trace-file`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Settings {
    /// A mask of [`Category`] bits; 0 traces nothing.
    pub categories: u8,
    /// Write the log here instead of stderr.
    pub file: Option<PathBuf>,
}

/// Parses a `--trace=` list: comma-separated category names, or `all`.
pub fn parse_categories(text: &str) -> Result<u8, String> {
    let mut mask = 0;
    for word in text.split(',').map(str::trim).filter(|w| !w.is_empty()) {
        if word == "all" {
            mask |= DEFAULT_CATEGORIES | Category::Frames as u8;
            continue;
        }
        match CATEGORY_NAMES.iter().find(|(name, _)| *name == word) {
            Some((_, c)) => mask |= *c as u8,
            None => {
                return Err(format!(
                    "unknown trace category '{word}' (expected loop, tasks, futures, hooks, \
                     frames or all)"
                ));
            }
        }
    }
    if mask == 0 {
        return Err("expected at least one trace category".into());
    }
    Ok(mask)
}

thread_local! {
    static MASK: Cell<u8> = const { Cell::new(0) };
    static TRACER: RefCell<Tracer> = RefCell::new(Tracer::default());
}

/// Starts tracing on this (the interpreter's) thread. A trace file that cannot be created
/// is reported once on stderr and the log goes to stderr instead.
pub fn install(settings: &Settings) {
    if settings.categories == 0 || !cfg!(feature = "trace") {
        return;
    }
    let sink = match &settings.file {
        None => Sink::Stderr,
        Some(path) => match std::fs::File::create(path) {
            Ok(file) => Sink::File(std::io::LineWriter::new(file)),
            Err(error) => {
                eprintln!("apy: can't write trace file '{}': {error}", path.display());
                Sink::Stderr
            }
        },
    };
    TRACER.with(|t| t.borrow_mut().sink = sink);
    MASK.with(|m| m.set(settings.categories));
}

/// Whether events of `category` are traced: the one branch an event costs when off.
#[inline(always)]
pub fn on(category: Category) -> bool {
    cfg!(feature = "trace") && MASK.with(|m| m.get()) & category as u8 != 0
}

#[derive(Default)]
enum Sink {
    #[default]
    Stderr,
    File(std::io::LineWriter<std::fs::File>),
}

#[derive(Default)]
struct Tracer {
    sink: Sink,
    /// Numbers given to futures on first mention. The weak reference keeps the allocation,
    /// so no later object can take the same address while its number is remembered.
    ids: HashMap<usize, (Weak<Object>, u32)>,
    next_id: u32,
    /// The traced loop, its first start time and its iteration count.
    traced_loop: Weak<Object>,
    epoch: f64,
    iteration: u64,
    in_loop: bool,
    /// How many coroutine frames are resuming one another (`frames` indentation).
    frame_depth: usize,
}

/// Writes one line, indented inside a loop iteration by two spaces plus `extra`.
fn emit(vm: &mut Vm, extra: usize, text: &str) {
    TRACER.with(|t| {
        let mut t = t.borrow_mut();
        let indent = if t.in_loop { 2 } else { 0 } + extra;
        let line = format!("trace| {:indent$}{text}\n", "");
        match &mut t.sink {
            Sink::Stderr => {
                // Program output written so far comes first on a terminal or a shared pipe.
                vm.flush_stdout();
                let _ = std::io::stderr().write_all(line.as_bytes());
            }
            Sink::File(file) => {
                let _ = file.write_all(line.as_bytes());
            }
        }
    });
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
    TRACER.with(|t| {
        let mut t = t.borrow_mut();
        // The weak reference keeps the address from being reused by a later loop.
        if !std::ptr::eq(t.traced_loop.as_ptr(), Rc::as_ptr(this_loop)) {
            t.traced_loop = Rc::downgrade(this_loop);
            t.epoch = now;
            t.iteration = 0;
        }
        t.in_loop = false;
    });
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
    TRACER.with(|t| t.borrow_mut().in_loop = false);
    emit(vm, 0, "loop stops running");
}

/// One iteration of `_run_once` begins, at loop time `now`.
#[inline]
pub fn iteration(vm: &mut Vm, now: f64) {
    if on(Category::Loop) {
        cold_iteration(vm, now);
    }
}

#[cold]
fn cold_iteration(vm: &mut Vm, now: f64) {
    let (n, t) = TRACER.with(|t| {
        let mut t = t.borrow_mut();
        t.iteration += 1;
        t.in_loop = false;
        (t.iteration, now - t.epoch)
    });
    emit(vm, 0, &format!("iteration {n}, t={}", seconds(t)));
    TRACER.with(|t| t.borrow_mut().in_loop = true);
}

/// `call_soon` made this handle.
#[inline]
pub fn call_soon(vm: &mut Vm, handle: &Value) {
    if on(Category::Loop) {
        cold_handle(vm, "call_soon", handle);
    }
}

/// A timer handle was pushed on the heap (`call_later`/`call_at`).
#[inline]
pub fn timer_scheduled(vm: &mut Vm, handle: &Value) {
    if on(Category::Loop) {
        cold_handle(vm, "timer scheduled", handle);
    }
}

/// A due timer handle moved to the ready queue.
#[inline]
pub fn timer_fired(vm: &mut Vm, handle: &Value) {
    if on(Category::Loop) {
        cold_handle(vm, "timer fires", handle);
    }
}

/// The loop runs a (not cancelled) handle.
#[inline]
pub fn run_handle(vm: &mut Vm, handle: &Value) {
    if on(Category::Loop) {
        cold_handle(vm, "run", handle);
    }
}

#[cold]
fn cold_handle(vm: &mut Vm, what: &str, handle: &Value) {
    let Some((callback, args, when)) = crate::asyncio::event_loop::handle_parts(handle) else {
        return;
    };
    let call = describe_call(callback, args);
    let text = match when {
        Some(when) => {
            let t = TRACER.with(|t| when - t.borrow().epoch);
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
        let text = format!("run {}", describe_call(func, std::slice::from_ref(arg)));
        emit(vm, 0, &text);
    }
}

// ---- tasks ----------------------------------------------------------------------------

/// A new task; `by` is the task running when it was made (None at top level).
#[inline]
pub fn task_created(vm: &mut Vm, task: &Value, by: &Value) {
    if on(Category::Tasks) {
        cold_task_created(vm, task, by);
    }
}

#[cold]
fn cold_task_created(vm: &mut Vm, task: &Value, by: &Value) {
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
    let coro = task_coro(task);
    let text = match exc {
        None => format!("{} step: send None into {coro}", future_name(task)),
        Some(e) => {
            let note = if e.class.name.as_ref() == "CancelledError"
                && crate::asyncio::task::cancelling(task) > 0
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
    let name = future_name(task);
    let who = task_coro(task);
    let text = match outcome {
        FrameResult::Yielded(v) if v.is_none() => {
            format!(
                "{name} {} yielded None (a bare yield): steps again soon",
                await_chain(task)
            )
        }
        FrameResult::Yielded(v) if crate::asyncio::future::as_future(v).is_some() => {
            let chain = await_chain(task);
            format!("{name} {chain} yielded {}: waits for it", future_name(v))
        }
        FrameResult::Yielded(v) => format!("{name} {who} yielded {}", describe(v)),
        FrameResult::Returned(v) => format!("{name} {who} returned {}", describe(v)),
        FrameResult::Err(e) if e.class.name.as_ref() == "CancelledError" => {
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
    let mut text = format!("{} cancel requested", future_name(task));
    let by = crate::asyncio::future::as_future(task)
        .and_then(|f| crate::asyncio::event_loop::as_loop(&f.event_loop))
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
    use crate::asyncio::future::{Callback, Status, as_future};
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

/// An async-generator hook call on `agen`.
#[inline]
pub fn asyncgen_hook(vm: &mut Vm, hook: Hook, agen: &Value) {
    if on(Category::Hooks) {
        cold_asyncgen_hook(vm, hook, agen);
    }
}

#[cold]
fn cold_asyncgen_hook(vm: &mut Vm, hook: Hook, agen: &Value) {
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
        let text = format!("shutdown_asyncgens closes {count} async generators");
        emit(vm, 0, &text);
    }
}

// ---- frames ---------------------------------------------------------------------------

/// `send`/`throw` into a coroutine or async-generator frame, suspended at `frame`'s line
/// (or not started yet), with `sent` (None on a throw).
#[inline]
pub fn frame_enter(vm: &mut Vm, g: &Generator, frame: &Frame, sent: &Value, throw: Option<&Exc>) {
    if on(Category::Frames) && g.kind != GenKind::Generator {
        cold_frame_enter(vm, g, frame, sent, throw);
    }
}

#[cold]
fn cold_frame_enter(vm: &mut Vm, g: &Generator, frame: &Frame, sent: &Value, throw: Option<&Exc>) {
    let what = match throw {
        Some(e) => format!("throw {}", describe_exc(e)),
        None => format!("send {}", describe(sent)),
    };
    let depth = TRACER.with(|t| {
        let mut t = t.borrow_mut();
        t.frame_depth += 1;
        t.frame_depth
    });
    let at = if frame.ip == 0 {
        "at its start".to_string()
    } else {
        format!("line {}", frame.line())
    };
    let text = format!("> {what} into {}() {at}", g.qualname);
    emit(vm, 2 * depth, &text);
}

/// The frame entered by [`frame_enter`] suspended, returned or raised (`outcome`, made
/// only when the category is on), at `frame`'s line.
#[inline]
pub fn frame_leave(
    vm: &mut Vm,
    g: &Generator,
    frame: &Frame,
    outcome: impl FnOnce() -> FrameResult,
) {
    if on(Category::Frames) && g.kind != GenKind::Generator {
        cold_frame_leave(vm, g, frame, &outcome());
    }
}

#[cold]
fn cold_frame_leave(vm: &mut Vm, g: &Generator, frame: &Frame, result: &FrameResult) {
    let depth = TRACER.with(|t| {
        let mut t = t.borrow_mut();
        let depth = t.frame_depth;
        t.frame_depth = depth.saturating_sub(1);
        depth
    });
    let at = format!(" line {}", frame.line());
    let what = match result {
        FrameResult::Yielded(v) => format!("yielded {}", describe(v)),
        FrameResult::Returned(v) => format!("returned {}", describe(v)),
        FrameResult::Err(e) => format!("raised {}", describe_exc(e)),
    };
    emit(vm, 2 * depth, &format!("< {}(){at} {what}", g.qualname));
}

// ---- describing values without running Python code ------------------------------------

/// What a ready-queue entry runs: `Task-1 step, main()`, `callback f(1)`.
pub fn describe_ready(entry: &crate::asyncio::event_loop::Ready) -> String {
    use crate::asyncio::event_loop::Ready;
    match entry {
        Ready::Step(task, _) | Ready::Wakeup(task, _) => {
            format!("{} step, {}", future_name(task), task_coro(task))
        }
        Ready::Handle(handle) => match crate::asyncio::event_loop::handle_parts(handle) {
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

/// `Task-2` for a task, `Future#3` (numbered on first mention) for any other future.
pub fn future_name(v: &Value) -> String {
    if let Some(name) = crate::asyncio::task::task_name(v) {
        return name;
    }
    match v {
        Value::Object(o) => format!("{}#{}", o.class.name, object_number(v)),
        _ => describe(v),
    }
}

/// A number for `v`, given on first mention (1, 2, …): a stable stand-in for its address.
pub fn object_number(v: &Value) -> u32 {
    let Value::Object(o) = v else {
        return 0;
    };
    TRACER.with(|t| {
        let mut t = t.borrow_mut();
        let key = Rc::as_ptr(o) as usize;
        if let Some((_, id)) = t.ids.get(&key) {
            return *id;
        }
        t.next_id += 1;
        let id = t.next_id;
        t.ids.insert(key, (Rc::downgrade(o), id));
        id
    })
}

/// `main()`: the coroutine a task drives.
fn task_coro(task: &Value) -> String {
    crate::asyncio::task::task_coro(task).map_or(String::new(), |c| generator_call(&c))
}

fn generator_call(v: &Value) -> String {
    as_generator(v).map_or_else(|| describe(v), |g| format!("{}()", g.qualname))
}

/// A task's await chain with the line each coroutine is suspended at, outermost first:
/// `job() line 4 > sleep() line 20` (the last one yielded what the task got).
fn await_chain(task: &Value) -> String {
    let mut links = Vec::new();
    let mut current = crate::asyncio::task::task_coro(task);
    while let Some(g) = current.as_ref().and_then(as_generator) {
        let Some(line) = g.state.borrow().frame.as_ref().map(|f| f.line()) else {
            break;
        };
        links.push(format!("{}() line {line}", g.qualname));
        if links.len() == 100 {
            break;
        }
        current = g.yield_from();
    }
    links.join(" > ")
}

/// `f(1, Future#2)`: a callback and its arguments.
fn describe_call(callback: &Value, args: &[Value]) -> String {
    let (func, mut all) = match callback {
        Value::Object(o) => match &o.kind {
            ObjectKind::Partial { func, args, .. } => (func.clone(), args.clone()),
            _ => (callback.clone(), vec![]),
        },
        _ => (callback.clone(), vec![]),
    };
    all.extend_from_slice(args);
    let shown: Vec<String> = all.iter().map(describe).collect();
    format!("{}({})", callable_name(&func), shown.join(", "))
}

fn describe_callable(func: &Value) -> String {
    match func {
        Value::Object(o) if matches!(o.kind, ObjectKind::Partial { .. }) => {
            describe_call(func, &[])
        }
        _ => callable_name(func),
    }
}

fn callable_name(func: &Value) -> String {
    match func {
        Value::Function(f) => f.qualname.borrow().to_string(),
        Value::Type(t) => t.name.to_string(),
        Value::Object(o) => match &o.kind {
            ObjectKind::BoundMethod { func, this } => {
                let owner = match this {
                    Value::Object(_) if crate::asyncio::future::as_future(this).is_some() => {
                        future_name(this)
                    }
                    _ => this_type_name(this),
                };
                match func {
                    Value::Function(f) => format!("{owner}.{}", f.name.borrow().as_str()),
                    other => format!("{owner}.{}", callable_name(other)),
                }
            }
            ObjectKind::Native(n) => n.name.to_string(),
            _ => describe(func),
        },
        other => describe(other),
    }
}

fn this_type_name(v: &Value) -> String {
    match v {
        Value::Object(o) => o.class.name.to_string(),
        Value::Type(t) => t.name.to_string(),
        _ => describe(v),
    }
}

/// `ValueError('boom')`.
fn describe_exc(e: &Exc) -> String {
    let args = match e.exc_data().map(|d| d.borrow().args.clone()) {
        Some(Value::Tuple(t)) => t.items.iter().map(describe).collect::<Vec<_>>(),
        _ => vec![],
    };
    format!("{}({})", e.class.name, args.join(", "))
}

/// A value as `repr` shows it for built-in types, without running any Python code.
pub fn describe(v: &Value) -> String {
    let text = describe_full(v);
    if text.chars().count() <= 60 {
        return text;
    }
    let cut: String = text.chars().take(56).collect();
    format!("{cut}...")
}

fn describe_full(v: &Value) -> String {
    let items = |items: &[Value], open: &str, close: &str| {
        let mut shown: Vec<String> = items.iter().take(5).map(describe).collect();
        if items.len() > 5 {
            shown.push("...".into());
        }
        let comma = if open == "(" && items.len() == 1 {
            ","
        } else {
            ""
        };
        format!("{open}{}{comma}{close}", shown.join(", "))
    };
    match v {
        Value::Null => "<NULL>".into(),
        Value::None => "None".into(),
        Value::NotImplemented => "NotImplemented".into(),
        Value::Ellipsis => "Ellipsis".into(),
        Value::Bool(true) => "True".into(),
        Value::Bool(false) => "False".into(),
        Value::Int(i) => i.to_string(),
        Value::Float(f) => crate::common::float_repr::float_repr(*f),
        Value::BigInt(i) => i.to_string(),
        Value::Str(s) => {
            // Long strings keep their two ends, as `reprlib.repr` shows them.
            let shown: Vec<char> = crate::common::chars::str_repr(s.as_str()).chars().collect();
            if shown.len() <= 40 {
                shown.into_iter().collect()
            } else {
                let head: String = shown[..18].iter().collect();
                let tail: String = shown[shown.len() - 18..].iter().collect();
                format!("{head}...{tail}")
            }
        }
        Value::Tuple(t) => items(&t.items, "(", ")"),
        Value::List(l) => items(&l.items.borrow(), "[", "]"),
        Value::Dict(_) => "<dict>".into(),
        Value::Set(_) => "<set>".into(),
        Value::Type(t) => format!("<class '{}'>", t.name),
        Value::Function(f) => format!("<function {}>", f.qualname.borrow()),
        Value::Object(o) => match &o.kind {
            ObjectKind::Exception(_) => describe_exc(o),
            ObjectKind::Generator(g) => {
                let noun = match g.kind {
                    GenKind::Generator => "generator",
                    GenKind::Coroutine => "coroutine",
                    GenKind::AsyncGenerator => "async_generator",
                };
                format!("<{noun} {}()>", g.qualname)
            }
            _ if crate::asyncio::future::as_future(v).is_some() => future_name(v),
            _ => format!("<{} object>", o.class.name),
        },
    }
}
