//! The event loop, natively (DESIGN.md decision 2): a ready deque and a timer heap ordered by
//! `(when, sequence)`; one iteration moves due timers to the ready deque and runs exactly the
//! callbacks that were ready when it began. Handles, `call_soon/call_later/call_at`,
//! `run_forever/run_until_complete/stop/close`, the running-loop registry and the default
//! exception handler. Mirrors `Lib/asyncio/base_events.py` and `events.py`; knows tasks
//! only through `task::step`/`task::wakeup`. Also the asyncio runtime of the interpreter
//! thread ([`Runtime`], read through [`rt`]): the classes, the running-loop registry and
//! policy, the task registry.

use std::cell::{Cell, OnceCell, RefCell};
use std::cmp::Ordering;
use std::collections::{BinaryHeap, VecDeque};
use std::rc::{Rc, Weak};
use std::sync::atomic::Ordering as AtomicOrdering;
use std::time::Duration;

use crate::common::clock::Instant;

use super::classes::{LoopClasses, class_in, loop_classes};
use super::exception_handler;
use super::format_helpers::format_callback;
use super::future::{self, Callback};
use super::loop_subclass::Method;
use super::task;
use crate::builtins::contextvars;
use crate::common::clock::{self, Clock};
use crate::vm::args::{check_kwargs, kwarg};
use crate::vm::dict::StrKeys;
use crate::vm::generator::FINALIZERS_PENDING;
use crate::vm::object::{KwArgs, Object, ObjectKind, PyType};
use crate::vm::thread_list::Wait;
use crate::vm::types::lookup;
use crate::vm::value::{DictTable, Value};
use crate::vm::{Abort, AsyncGenHooks, Exc, PyResult, Vm};

/// What the loop runs next. Only `Handle` is visible to Python; the other entries are the
/// loop's own work (a future's done callback, a task's step or wakeup), kept allocation-free.
pub enum Ready {
    Handle(Value),
    /// A done callback: `func(future)`, in its context (None: a fresh empty one).
    Call(Value, Value, Option<Value>),
    /// `task.__step(exc)`.
    Step(Value, Option<Exc>),
    /// `task.__wakeup(future)`.
    Wakeup(Value, Value),
}

/// A loop's signal handlers (`signals.rs`) and the signals received for them.
#[derive(Default)]
pub struct LoopSignals {
    /// Each signal's Handle, in the order added (`_signal_handlers`).
    pub handlers: Vec<(i32, Value)>,
    /// The signals received and not yet read (what the wakeup descriptor holds).
    pub received: Vec<i32>,
}

/// A scheduled timer; the heap pops the smallest `(when, seq)` first.
struct Timer {
    when: f64,
    seq: u64,
    handle: Value,
}

impl PartialEq for Timer {
    fn eq(&self, other: &Timer) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Timer {}
impl PartialOrd for Timer {
    fn partial_cmp(&self, other: &Timer) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Timer {
    fn cmp(&self, other: &Timer) -> Ordering {
        other
            .when
            .total_cmp(&self.when)
            .then(other.seq.cmp(&self.seq))
    }
}

pub struct LoopState {
    ready: VecDeque<Ready>,
    timers: BinaryHeap<Timer>,
    seq: u64,
    stopping: bool,
    running: bool,
    closed: bool,
    debug: bool,
    /// Debug mode reports callbacks that run this long or longer (seconds).
    slow_callback_duration: f64,
    /// The task whose step is running (`asyncio.current_task()`).
    pub current_task: Value,
    /// A Python `set_exception_handler` handler, or None.
    exception_handler: Value,
    /// `set_task_factory`'s factory, or None.
    task_factory: Value,
    /// The ident of the thread that runs it (`_thread_id`), 0 before it first runs.
    pub thread: u64,
}

pub struct LoopObj {
    pub state: RefCell<LoopState>,
    pub clock: Clock,
    /// The descriptors it watches (`add_reader`, `add_writer`): its selector.
    #[cfg(not(target_arch = "wasm32"))]
    pub io: RefCell<super::watchers::Watchers>,
    /// Its signal handlers (`add_signal_handler`; none in a page).
    pub signals: RefCell<LoopSignals>,
    pub asyncgens: RefCell<LiveAsyncGens>,
    /// Which of the methods the loop calls through `self` its class replaces.
    pub overrides: super::loop_subclass::Overrides,
}

/// A `Handle`/`TimerHandle` (`events.py`).
pub struct HandleObj {
    event_loop: Value,
    callback: Value,
    args: Vec<Value>,
    cancelled: Cell<bool>,
    when: Option<f64>,
    /// Where it was made, in debug mode (`_source_traceback[-1]`).
    created_at: Option<String>,
    /// The context the callback runs in (None: a fresh empty one, made when asked for).
    context: RefCell<Option<Value>>,
}

pub fn as_loop(v: &Value) -> Option<&LoopObj> {
    v.native::<LoopObj>()
}

/// A handle's callback, arguments and (for a timer) deadline, for the tracer.
pub fn handle_parts(v: &Value) -> Option<(&Value, &[Value], Option<f64>)> {
    as_handle(v).map(|h| (&h.callback, h.args.as_slice(), h.when))
}

/// `BaseSelectorEventLoop.__init__`'s `logger.debug('Using selector: %s', …)`: a program
/// that set up `logging` at DEBUG sees each new loop announced, as on CPython (on Linux,
/// an EpollSelector). An error in the logging is left unreported, as the loop is made all
/// the same.
fn log_selector(vm: &mut Vm) {
    let args = [
        Value::str("Using selector: %s"),
        Value::str("EpollSelector"),
    ];
    let _ = super::log::log_to_asyncio_logger(vm, "debug", &args, &[]);
}

fn as_handle(v: &Value) -> Option<&HandleObj> {
    v.native::<HandleObj>()
}

fn this<'a>(vm: &Vm, v: &'a Value) -> PyResult<&'a LoopObj> {
    as_loop(v).ok_or_else(|| vm.type_error("an event loop was expected"))
}

/// The loop `v` is, for a method of it.
pub fn this_loop<'a>(vm: &Vm, v: &'a Value) -> PyResult<&'a LoopObj> {
    this(vm, v)
}

/// The loop `v` is, for a method that needs it open ("Event loop is closed").
pub fn check_open<'a>(vm: &Vm, v: &'a Value) -> PyResult<&'a LoopObj> {
    let l = this(vm, v)?;
    check_closed(vm, l)?;
    Ok(l)
}

/// Whether `handle` was cancelled.
pub fn is_cancelled(handle: &Value) -> bool {
    as_handle(handle).is_some_and(|h| h.cancelled.get())
}

/// `handle.cancel()`, for a handle the loop replaces or forgets.
pub fn cancel_handle(handle: &Value) {
    if let Some(h) = as_handle(handle) {
        h.cancelled.set(true);
    }
}

/// A new loop of the plain class (`asyncio.new_event_loop()`'s, the REPL's).
pub fn new_loop(vm: &mut Vm) -> Value {
    let class = rt(vm).types.event_loop.clone();
    new_loop_of(vm, class)
}

/// A new loop of `class`, the loop's class or a subclass of it. An instance of a subclass
/// gets a `__dict__` (and checks for methods of its own, `loop_subclass`); one of the plain
/// class has none (its methods then load by the VM's quicker way), where CPython's, written
/// in Python, would.
pub fn new_loop_of(vm: &mut Vm, class: Rc<PyType>) -> Value {
    log_selector(vm);
    let runtime = rt(vm);
    let plain = Rc::ptr_eq(&class, &runtime.types.event_loop);
    let overrides = super::loop_subclass::Overrides::default();
    let make = match overrides.to_check(vm, &class, plain) {
        true => Object::with_dict,
        false => Object::new,
    };
    Value::object(make(
        class,
        ObjectKind::Other(Box::new(LoopObj {
            state: RefCell::new(LoopState {
                ready: VecDeque::new(),
                timers: BinaryHeap::new(),
                seq: 0,
                stopping: false,
                running: false,
                closed: false,
                debug: runtime.debug,
                slow_callback_duration: 0.1,
                current_task: Value::None,
                exception_handler: Value::None,
                task_factory: Value::None,
                thread: 0,
            }),
            clock: Clock::new(runtime.clock),
            #[cfg(not(target_arch = "wasm32"))]
            io: super::watchers::watchers(),
            signals: Default::default(),
            asyncgens: Default::default(),
            overrides,
        })),
    ))
}

/// Appends `entry` to the ready deque of `event_loop` (`call_soon` without a Handle), or,
/// when the loop has a `call_soon` of its own, hands it to that as CPython's futures and
/// tasks do (`task::call_soon_of_loop`), which may fail.
pub fn schedule(vm: &mut Vm, event_loop: &Value, entry: Ready) -> PyResult<()> {
    if super::loop_subclass::checks(event_loop) {
        return schedule_checked(vm, event_loop, entry);
    }
    if let Some(l) = as_loop(event_loop) {
        l.push_ready(entry);
    }
    Ok(())
}

/// [`schedule`] on a loop that may have methods of its own.
#[inline(never)]
fn schedule_checked(vm: &mut Vm, event_loop: &Value, entry: Ready) -> PyResult<()> {
    match as_loop(event_loop) {
        Some(l) if l.replaces(vm, event_loop, Method::CallSoon) => {
            task::call_soon_of_loop(vm, event_loop, entry)
        }
        Some(l) => {
            l.push_ready(entry);
            Ok(())
        }
        None => Ok(()),
    }
}

/// Appends `entry` to the ready deque of `event_loop` as the loop's own work, which no
/// `call_soon` of a subclass sees (CPython's `call_soon_threadsafe` and `_add_callback`).
pub fn schedule_native(event_loop: &Value, entry: Ready) {
    if let Some(l) = as_loop(event_loop) {
        l.push_ready(entry);
    }
}

impl LoopObj {
    /// Whether the loop `this` (this object) has its own `method` (`loop_subclass`).
    #[inline]
    pub fn replaces(&self, vm: &mut Vm, this: &Value, method: Method) -> bool {
        super::loop_subclass::checks(this) && self.overrides.replaced(vm, this, method)
    }

    /// Appends `entry` to the ready deque.
    pub fn push_ready(&self, entry: Ready) {
        self.state.borrow_mut().ready.push_back(entry);
    }
}

pub fn is_closed(event_loop: &Value) -> bool {
    as_loop(event_loop).is_some_and(|l| l.state.borrow().closed)
}

/// `asyncio.get_running_loop()`.
pub fn running_loop(vm: &mut Vm) -> PyResult<Value> {
    let current = rt(vm).running_loop.borrow().clone();
    if current.is_none() {
        return Err(vm.runtime_error("no running event loop"));
    }
    Ok(current)
}

/// `asyncio.get_event_loop()` (CPython's C `get_event_loop`): the running loop, else what
/// the event loop policy's `get_event_loop()` gives (`lib/events.apy`).
pub fn get_event_loop(vm: &mut Vm) -> PyResult<Value> {
    let running = rt(vm).running_loop.borrow().clone();
    if !running.is_none() {
        return Ok(running);
    }
    let asyncio = vm.import_module("asyncio")?;
    let name = vm.intern("_get_event_loop_policy");
    let get_policy = vm.get_attr(&asyncio, &name)?;
    let policy = vm.call(&get_policy, &[], &[])?;
    vm.call_method(&policy, "get_event_loop", &[])
}

fn check_closed(vm: &Vm, l: &LoopObj) -> PyResult<()> {
    if l.state.borrow().closed {
        return Err(vm.runtime_error("Event loop is closed"));
    }
    Ok(())
}

pub fn new_handle(
    vm: &mut Vm,
    event_loop: &Value,
    callback: Value,
    args: Vec<Value>,
    when: Option<f64>,
    context: Option<Value>,
) -> Value {
    let runtime = rt(vm);
    let ty = if when.is_some() {
        runtime.types.timer_handle.clone()
    } else {
        runtime.types.handle.clone()
    };
    Value::object(Object::new(
        ty,
        ObjectKind::Other(Box::new(HandleObj {
            event_loop: event_loop.clone(),
            callback,
            args,
            cancelled: Cell::new(false),
            when,
            created_at: created_at(vm, event_loop),
            context: RefCell::new(context),
        })),
    ))
}

/// A deadline or delay as the float `self.time() + delay` makes of it.
pub fn number(vm: &Vm, v: &Value) -> PyResult<f64> {
    match v {
        Value::Int(n) => Ok(*n as f64),
        Value::Float(f) => Ok(*f),
        Value::Bool(b) => Ok(*b as i64 as f64),
        other => Err(vm.type_error(format!(
            "unsupported operand type(s) for +: 'float' and '{}'",
            vm.type_name(other)
        ))),
    }
}

/// Adds a timer handle at `when`.
pub fn push_timer(
    vm: &mut Vm,
    loop_value: &Value,
    when: f64,
    callback: Value,
    args: Vec<Value>,
    context: Option<Value>,
) -> PyResult<Value> {
    let l = this(vm, loop_value)?;
    let handle = new_handle(vm, loop_value, callback, args, Some(when), context);
    let mut st = l.state.borrow_mut();
    st.seq += 1;
    let seq = st.seq;
    st.timers.push(Timer {
        when,
        seq,
        handle: handle.clone(),
    });
    drop(st);
    super::trace::timer_scheduled(vm, &handle);
    Ok(handle)
}

/// What the loop calls where CPython's `_run_once` calls `self._selector.select(timeout)`:
/// the REPL waits there for its next input line. `timeout` is how long the loop may block:
/// `Some(0.0)` when callbacks are ready, the time to the next timer, or `None` when nothing
/// is scheduled at all. Without a selector the loop waits in [`idle`].
pub type Selector<'a> = dyn FnMut(&mut Vm, Option<f64>) -> PyResult<()> + 'a;

/// One iteration (`BaseEventLoop._run_once`).
fn run_once(
    vm: &mut Vm,
    loop_value: &Value,
    l: &LoopObj,
    selector: Option<&mut Selector>,
) -> PyResult<()> {
    let (busy, next_timer) = {
        let mut st = l.state.borrow_mut();
        while st
            .timers
            .peek()
            .is_some_and(|t| as_handle(&t.handle).is_some_and(|h| h.cancelled.get()))
        {
            st.timers.pop();
        }
        (
            !st.ready.is_empty() || st.stopping || signals_received(l),
            st.timers.peek().map(|t| t.when),
        )
    };
    match selector {
        Some(select) => {
            // Virtual time never waits: the selector only polls, then time jumps.
            let timeout = match next_timer {
                _ if busy => Some(0.0),
                Some(_) if l.clock.is_virtual() => Some(0.0),
                Some(when) => Some((when - l.clock.now()).max(0.0)),
                None => None,
            };
            vm.flush_stdout();
            select(vm, timeout)?;
            if let Some(deadline) = next_timer.filter(|_| !busy && l.clock.is_virtual()) {
                clock::advance_virtual(deadline);
            }
        }
        // CPython's select: polls while callbacks are ready, so I/O is never starved.
        #[cfg(not(target_arch = "wasm32"))]
        None if !l.io.borrow().is_empty() => {
            // With other threads alive the sockets are polled, and the threads run while
            // they stay quiet (CPython's select releases the GIL): for a turn on the real
            // clock; on the virtual one until another thread's deadline, or not at all when
            // none is ready or has one (the sockets are then waited for in real time).
            let now = l.clock.now();
            let share = match vm.threads.active() && !busy {
                false => None,
                true if !l.clock.is_virtual() => Some(now + vm.threads.switch_interval),
                true if !vm.threads.ready.is_empty() => Some(now),
                true => vm.threads.earliest_deadline(),
            };
            let (selected, handles) =
                super::watchers::select(vm, &l.io, &l.clock, busy || share.is_some(), next_timer)?;
            if let Some(until) = share.filter(|_| handles.is_empty()) {
                l.state.borrow_mut().thread = vm.threads.ident();
                vm.block(
                    Wait::Select,
                    Some(next_timer.map_or(until, |t| t.min(until))),
                )?;
            }
            for handle in handles {
                l.push_ready(Ready::Handle(handle));
            }
            signals_after_wait(vm, loop_value, l);
            super::trace::iteration(vm, &l.clock);
            super::trace::selected(vm, selected.waited, &selected.ready, l.clock.is_virtual());
            return run_ready(vm, loop_value, l);
        }
        None if !busy => idle(vm, loop_value, l, next_timer)?,
        None => {}
    }
    signals_after_wait(vm, loop_value, l);
    super::trace::iteration(vm, &l.clock);
    run_ready(vm, loop_value, l)
}

/// Whether signals wait for the loop to read them (`add_signal_handler`): then its wait
/// does not block, and after it the loop's `_read_from_self` (`signals.rs`), which reads
/// them, joins the ready callbacks, as the self-pipe's reader.
fn signals_received(l: &LoopObj) -> bool {
    !l.signals.borrow().received.is_empty()
}

fn signals_after_wait(vm: &mut Vm, loop_value: &Value, l: &LoopObj) {
    if signals_received(l) {
        let name = vm.intern("_read_from_self");
        let read = lookup(&vm.type_of(loop_value).clone(), &name).unwrap_or(Value::None);
        l.push_ready(Ready::Call(read, loop_value.clone(), None));
    }
}

/// The second half of an iteration: the timers now due join the ready queue, then exactly
/// the callbacks ready at this point run.
fn run_ready(vm: &mut Vm, loop_value: &Value, l: &LoopObj) -> PyResult<()> {
    let ntodo = {
        // `when <= end_time` where CPython has `<`: past 2**24 seconds (virtual time jumps
        // there) `now + 1e-9 == now`, and a timer due exactly now must still fire.
        // (No timer, no clock reading: most iterations of a busy loop have none.)
        let mut st = l.state.borrow_mut();
        let end_time = match st.timers.is_empty() {
            true => f64::NEG_INFINITY,
            false => l.clock.now() + 1e-9,
        };
        while st.timers.peek().is_some_and(|t| t.when <= end_time) {
            if let Some(t) = st.timers.pop() {
                super::trace::timer_fired(vm, &t.handle);
                st.ready.push_back(Ready::Handle(t.handle));
            }
        }
        st.ready.len()
    };
    for _ in 0..ntodo {
        let Some(entry) = l.state.borrow_mut().ready.pop_front() else {
            break;
        };
        let watch =
            super::reports::stopwatch(&l.clock).map(|t| (t, super::trace::describe_ready(&entry)));
        let debug = l.state.borrow().debug;
        let outcome = if debug {
            run_timed(vm, loop_value, l, entry)
        } else {
            run_entry(vm, loop_value, entry)
        };
        super::reports::report_slow(vm, &l.clock, watch);
        super::reports::flush(vm);
        outcome?;
        if vm.abort.is_some() {
            return Err(vm.runtime_error("aborted"));
        }
    }
    Ok(())
}

/// The loop's wait with nothing ready (`self._selector.select(timeout)` without file
/// descriptors yet): until `deadline` (loop time), or with no timer until woken. On the real
/// clock it blocks, ending early on Ctrl-C (KeyboardInterrupt) or at `--time-limit`; a
/// selector over sockets (DESIGN.md decision 8) replaces this, waking on the same pipe as
/// Ctrl-C. On the virtual clock time jumps to the deadline, and with no timer nothing can
/// ever wake the loop: the program ends with the deadlock report.
fn idle(vm: &mut Vm, loop_value: &Value, l: &LoopObj, deadline: Option<f64>) -> PyResult<()> {
    if deadline.is_none() && FINALIZERS_PENDING.load(AtomicOrdering::Relaxed) {
        // A finalizer queued by the last callback may schedule work (an async generator's
        // aclose()): run it before deciding that nothing can.
        vm.run_finalizers(None);
        return Ok(());
    }
    if vm.threads.active() {
        // Other threads run meanwhile (CPython's select releases the GIL), until the
        // deadline or a `call_soon_threadsafe` (`threadsafe.rs`) wakes this thread.
        l.state.borrow_mut().thread = vm.threads.ident();
        vm.flush_stdout();
        return vm.block(Wait::Select, deadline).map(drop);
    }
    if l.clock.is_virtual() {
        return match deadline {
            Some(when) => {
                clock::advance_virtual(when);
                Ok(())
            }
            None => Err(deadlock(vm, loop_value)),
        };
    }
    vm.flush_stdout();
    // As CPython's epoll selector waits: in whole milliseconds, rounded up.
    let until = deadline.and_then(|when| {
        let wait = clock::whole_milliseconds(when - l.clock.now());
        let delay = Duration::try_from_secs_f64(wait).ok()?;
        Instant::now().checked_add(delay)
    });
    vm.wait_idle(until);
    match vm.check_woken() {
        Some(exc) => Err(exc),
        None => Ok(()),
    }
}

/// Ends the program: the loop's pending tasks wait on what nothing can bring about. The
/// report names them (so they are not reported again as destroyed while pending).
#[cold]
fn deadlock(vm: &mut Vm, loop_value: &Value) -> Exc {
    let tasks = rt(vm).live_tasks();
    let mut waiting = Vec::new();
    for t in tasks {
        let Some(data) = future::as_future(&t)
            .filter(|f| f.loop_is(loop_value) && f.status() == future::Status::Pending)
            .and_then(|f| f.task.as_ref())
        else {
            continue;
        };
        data.log_destroy_pending.set(false);
        let waiter = task::waiting_for(&t);
        waiting.push(super::reports::Waiting {
            task: super::trace::future_name(&t),
            waits_for: if waiter.is_none() {
                "nothing".to_string()
            } else {
                super::trace::future_name(&waiter)
            },
            chain: task::await_chain(&t)
                .iter()
                .map(|link| format!("{}() at {}:{}", link.qualname, link.file, link.line))
                .collect(),
        });
    }
    vm.stop(Abort::Deadlock(super::reports::deadlock(&waiting)))
}

/// `_run_once` in debug mode: runs the entry and, when it held the loop for
/// `slow_callback_duration` or longer, logs it as the `asyncio` logger does.
fn run_timed(vm: &mut Vm, loop_value: &Value, l: &LoopObj, entry: Ready) -> PyResult<()> {
    // `_format_handle`: a task's step or wakeup shows the task itself.
    let subject = match &entry {
        Ready::Handle(h) => h.clone(),
        Ready::Step(t, _) | Ready::Wakeup(t, _) => t.clone(),
        Ready::Call(func, arg, _) => {
            new_handle(vm, loop_value, func.clone(), vec![arg.clone()], None, None)
        }
    };
    let started = l.clock.now();
    let outcome = run_entry(vm, loop_value, entry);
    let took = l.clock.now() - started;
    if took >= l.state.borrow().slow_callback_duration {
        let shown = vm.repr(&subject)?;
        let args = [
            Value::str("Executing %s took %.3f seconds"),
            Value::str(shown.as_str()),
            Value::Float(took),
        ];
        if !super::log::log_to_asyncio_logger(vm, "warning", &args, &[])? {
            vm.flush_stdout();
            crate::common::console::eprint(&format!("Executing {shown} took {took:.3} seconds\n"));
        }
    }
    outcome
}

/// Runs one ready entry in its context (`Handle._run`: `self._context.run(callback)`).
fn run_entry(vm: &mut Vm, loop_value: &Value, entry: Ready) -> PyResult<()> {
    let context = match &entry {
        Ready::Handle(h) => as_handle(h).and_then(|h| h.context.borrow().clone()),
        Ready::Call(_, _, context) => context.clone(),
        Ready::Step(t, _) | Ready::Wakeup(t, _) => task::context(t),
    };
    // The guard is dropped before an error is reported: `Handle._run` reports it after
    // `self._context.run(...)` returned, so the exception handler runs outside that context.
    let entered = match contextvars::enter(vm, context.as_ref()) {
        Ok(entered) => entered,
        Err(e) => {
            let text = format!("Exception in callback {}", describe_entry(vm, &entry)?);
            return exception_handler::report_callback_error(
                vm,
                &exception_handler_of(loop_value),
                loop_value,
                text,
                None,
                e,
            );
        }
    };
    match entry {
        Ready::Step(t, exc) => {
            let outcome = task::step(vm, &t, exc);
            task::keep_context(&t);
            drop(entered);
            outcome.or_else(|e| {
                let handler = exception_handler_of(loop_value);
                task::report_step_error(vm, &handler, loop_value, &t, e)
            })
        }
        Ready::Wakeup(t, fut) => {
            super::trace::task_wakeup(vm, &t, &fut);
            let outcome = task::wakeup(vm, &t, &fut);
            task::keep_context(&t);
            drop(entered);
            outcome.or_else(|e| {
                let handler = exception_handler_of(loop_value);
                exception_handler::wakeup_error(vm, &handler, loop_value, e)
            })
        }
        Ready::Call(func, arg, _) => {
            super::trace::run_call(vm, &func, &arg);
            let outcome = vm.call(&func, std::slice::from_ref(&arg), &[]);
            drop(entered);
            if let Err(e) = outcome {
                if vm.abort.is_some() {
                    return Err(e);
                }
                let debug = debug_of(loop_value);
                let shown = format_callback(vm, &func, std::slice::from_ref(&arg), debug)?;
                let text = format!("Exception in callback {shown}");
                let handle =
                    new_handle(vm, loop_value, func.clone(), vec![arg.clone()], None, None);
                exception_handler::report_callback_error(
                    vm,
                    &exception_handler_of(loop_value),
                    loop_value,
                    text,
                    Some(handle),
                    e,
                )?;
            }
            Ok(())
        }
        Ready::Handle(h) => {
            let Some(handle) = as_handle(&h) else {
                return Ok(());
            };
            if handle.cancelled.get() {
                return Ok(());
            }
            super::trace::run_handle(vm, &h);
            let outcome = vm.call(&handle.callback, &handle.args, &[]);
            drop(entered);
            if let Err(e) = outcome {
                if vm.abort.is_some() {
                    return Err(e);
                }
                let text = format!(
                    "Exception in callback {}",
                    format_callback(vm, &handle.callback, &handle.args, debug_of(loop_value))?
                );
                exception_handler::report_callback_error(
                    vm,
                    &exception_handler_of(loop_value),
                    loop_value,
                    text,
                    Some(h.clone()),
                    e,
                )?;
            }
            Ok(())
        }
    }
}

/// How CPython's "Exception in callback …" names an entry.
fn describe_entry(vm: &mut Vm, entry: &Ready) -> PyResult<String> {
    match entry {
        Ready::Handle(h) => match as_handle(h) {
            Some(handle) => format_callback(vm, &handle.callback, &handle.args, false),
            None => vm.repr(h),
        },
        Ready::Call(func, arg, _) => format_callback(vm, func, std::slice::from_ref(arg), false),
        Ready::Step(t, _) => Ok(task::shown_step(vm, t)?.1),
        Ready::Wakeup(..) => Ok(exception_handler::WAKEUP_NAME.into()),
    }
}

/// The handler `set_exception_handler` gave `loop_value`, or None.
fn exception_handler_of(loop_value: &Value) -> Value {
    as_loop(loop_value).map_or(Value::None, |l| l.state.borrow().exception_handler.clone())
}

/// In debug mode, where the Python code making a handle or future is (`file:line`).
pub fn created_at(vm: &Vm, event_loop: &Value) -> Option<String> {
    if debug_of(event_loop) {
        vm.call_site()
    } else {
        None
    }
}

/// Whether `event_loop` is in debug mode (callback reprs then show their arguments).
pub fn debug_of(event_loop: &Value) -> bool {
    loop_debug(event_loop).unwrap_or(false)
}

/// [`debug_of`], None when `event_loop` is not one of apy's loops.
pub fn loop_debug(event_loop: &Value) -> Option<bool> {
    as_loop(event_loop).map(|l| l.state.borrow().debug)
}

/// `run_forever`.
pub fn run_forever(vm: &mut Vm, loop_value: &Value) -> PyResult<()> {
    run_forever_with(vm, loop_value, None)
}

/// `run_forever` with a [`Selector`] consulted once per iteration (the REPL's input).
pub fn run_forever_with(
    vm: &mut Vm,
    loop_value: &Value,
    mut selector: Option<&mut Selector>,
) -> PyResult<()> {
    let l = this(vm, loop_value)?;
    check_closed(vm, l)?;
    if l.state.borrow().running {
        return Err(vm.runtime_error("This event loop is already running"));
    }
    let runtime = rt(vm);
    if !runtime.running_loop.borrow().is_none() {
        return Err(vm.runtime_error("Cannot run the event loop while another loop is running"));
    }
    let hooks = asyncgen_hooks(vm, loop_value)?;
    let old_hooks = std::mem::replace(&mut vm.asyncgen_hooks, hooks);
    {
        let mut st = l.state.borrow_mut();
        st.running = true;
        st.thread = vm.threads.ident();
    }
    *runtime.running_loop.borrow_mut() = loop_value.clone();
    super::trace::loop_start(vm, loop_value, l.clock.now());
    let mut result = Ok(());
    loop {
        if let Err(e) = run_once(vm, loop_value, l, selector.as_deref_mut()) {
            result = Err(e);
            break;
        }
        if l.state.borrow().stopping {
            break;
        }
    }
    {
        let mut st = l.state.borrow_mut();
        st.stopping = false;
        st.running = false;
    }
    *runtime.running_loop.borrow_mut() = Value::None;
    vm.asyncgen_hooks = old_hooks;
    super::trace::loop_stop(vm);
    result
}

pub(super) fn loop_run_forever(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    run_forever(vm, &args[0])?;
    Ok(Value::None)
}

/// `_run_until_complete_cb(fut)`: stops the future's loop, unless the future ended with
/// SystemExit or KeyboardInterrupt. A task's step re-raised that out of `run_forever`
/// already, and this callback, scheduled before it was, would otherwise stop the next run
/// of the loop at its start (bpo-22429). Reading the exception marks it retrieved.
fn stop_loop_callback(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    let Some(fut) = args.first().and_then(future::as_future) else {
        return Ok(Value::None);
    };
    if fut.status() == future::Status::Finished
        && let Value::Object(e) = future::exception(vm, fut)?
        && task::ends_the_program(vm, &e)
    {
        return Ok(Value::None);
    }
    // `fut.get_loop().stop()`.
    let event_loop = fut.event_loop();
    if let Some(l) = as_loop(&event_loop) {
        if l.replaces(vm, &event_loop, Method::Stop) {
            return vm.call_method(&event_loop, "stop", &[]);
        }
        l.state.borrow_mut().stopping = true;
    }
    Ok(Value::None)
}

/// `run_until_complete(future)`.
pub fn run_until_complete(vm: &mut Vm, loop_value: &Value, awaitable: Value) -> PyResult<Value> {
    let l = this(vm, loop_value)?;
    check_closed(vm, l)?;
    if l.state.borrow().running {
        return Err(vm.runtime_error("This event loop is already running"));
    }
    let new_task = future::as_future(&awaitable).is_none();
    let fut = task::ensure_future(vm, awaitable, Some(loop_value.clone()))?;
    if new_task && let Some(t) = future::as_future(&fut).and_then(|f| f.task.as_ref()) {
        t.log_destroy_pending.set(false);
    }
    let Some(native) = future::as_future(&fut) else {
        return Err(vm.type_error("An asyncio.Future, a coroutine or an awaitable is required"));
    };
    let stopper = rt(vm).stop_callback.clone();
    future::add_callback(vm, &fut, native, Callback::Py(stopper.clone(), None))?;
    let outcome = match l.replaces(vm, loop_value, Method::RunForever) {
        true => vm.call_method(loop_value, "run_forever", &[]).map(drop),
        false => run_forever(vm, loop_value),
    };
    native
        .state
        .borrow_mut()
        .callbacks
        .retain(|cb| !matches!(cb, Callback::Py(f, _) if f.is(&stopper)));
    if outcome.is_err() && new_task && native.status() == future::Status::Finished {
        // The coroutine raised a BaseException that ended the loop: the caller has no
        // way to the task made here, so its exception counts as retrieved.
        future::exception(vm, native)?;
    }
    outcome?;
    if native.status() == future::Status::Pending {
        return Err(vm.runtime_error("Event loop stopped before Future completed."));
    }
    future::result(vm, native)
}

fn loop_run_until_complete(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    crate::vm::args::check_arity(vm, "run_until_complete", args, 2, 2)?;
    run_until_complete(vm, &args[0], args[1].clone())
}

pub(super) fn loop_stop(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    this(vm, &args[0])?.state.borrow_mut().stopping = true;
    Ok(Value::None)
}

/// `loop.close()`: in debug mode the `asyncio` logger hears "Close <loop>" first.
fn loop_close(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    let l = this(vm, &args[0])?;
    let st = l.state.borrow();
    if st.running {
        drop(st);
        return Err(vm.runtime_error("Cannot close a running event loop"));
    }
    if st.closed {
        return Ok(Value::None);
    }
    let debug = st.debug;
    drop(st);
    if debug {
        let args = [Value::str("Close %r"), args[0].clone()];
        super::log::log_to_asyncio_logger(vm, "debug", &args, &[])?;
    }
    l.state.borrow_mut().closed = true;
    discard_scheduled(l);
    // Its selector closes: the descriptors it watched are forgotten, and its signal
    // handlers removed (`_UnixSelectorEventLoop.close`).
    #[cfg(not(target_arch = "wasm32"))]
    {
        drop(std::mem::take(&mut *l.io.borrow_mut()));
        vm.call_method(&args[0], "_close_signal_handlers", &[])?;
    }
    Ok(Value::None)
}

/// Drops every scheduled callback (outside the borrow: dropping them may free tasks).
pub fn discard_scheduled(l: &LoopObj) {
    let mut st = l.state.borrow_mut();
    let ready = std::mem::take(&mut st.ready);
    let timers = std::mem::take(&mut st.timers);
    drop(st);
    drop(ready);
    drop(timers);
}

fn flag(vm: &mut Vm, args: &[Value], get: fn(&LoopState) -> bool) -> PyResult<Value> {
    Ok(Value::Bool(get(&this(vm, &args[0])?.state.borrow())))
}

/// The arguments of a loop method CPython writes in Python, `BaseEventLoop.{method}(self,
/// *params, [*args,] *, keywords)`: its TypeError, worded as the function's would be, when
/// `args` (self first) and `kw` do not fit.
pub fn check_method_args(
    vm: &Vm,
    method: &str,
    (params, rest): (&[&str], bool),
    keywords: &[&str],
    args: &[Value],
    kw: &KwArgs,
) -> PyResult<()> {
    let (given, takes) = (args.len(), params.len() + 1);
    // The usual call fits: decided before the name for the messages is made.
    if kw.is_empty() && (given == takes || (given > takes && rest)) {
        return Ok(());
    }
    let qualname = format!("BaseEventLoop.{method}");
    check_kwargs(vm, &qualname, kw, keywords)?;
    if given > takes && !rest {
        let text = crate::vm::call::too_many_positional_text(&qualname, takes, 0, given, 0);
        return Err(vm.type_error(text));
    }
    if given < takes {
        let missing = &params[given.saturating_sub(1)..];
        let text = crate::vm::call::missing_arguments_text(&qualname, missing, "positional");
        return Err(vm.type_error(text));
    }
    Ok(())
}

fn loop_time(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    check_method_args(vm, "time", (&[], false), &[], args, kw)?;
    Ok(Value::Float(this(vm, &args[0])?.clock.now()))
}

fn loop_set_debug(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    crate::vm::args::check_arity(vm, "set_debug", args, 2, 2)?;
    let on = vm.truthy(&args[1])?;
    this(vm, &args[0])?.state.borrow_mut().debug = on;
    Ok(Value::None)
}

pub(super) fn loop_create_future(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    check_method_args(vm, "create_future", (&[], false), &[], args, kw)?;
    this(vm, &args[0])?;
    Ok(future::new_future(vm, args[0].clone()))
}

pub(super) fn loop_create_task(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let keywords = &["name", "context"];
    check_method_args(vm, "create_task", (&["coro"], false), keywords, args, kw)?;
    let l = this(vm, &args[0])?;
    check_closed(vm, l)?;
    let context = kwarg(kw, "context");
    create_task(
        vm,
        Some(l),
        &args[0],
        args[1].clone(),
        kwarg(kw, "name"),
        context,
    )
}

/// `loop.create_task(coro, ...)` as `asyncio.create_task` (`named`: with `name=`) and
/// `ensure_future` call it: through the loop's replacement of the method when it has one,
/// else as [`loop_create_task`] does after its checks.
pub fn ask_create_task(
    vm: &mut Vm,
    loop_value: &Value,
    coro: Value,
    (name, named): (Option<Value>, bool),
    context: Option<Value>,
) -> PyResult<Value> {
    let l = as_loop(loop_value);
    if l.is_some_and(|l| l.replaces(vm, loop_value, Method::CreateTask)) {
        let name = named.then(|| name.unwrap_or(Value::None));
        return super::loop_subclass::create_task(vm, loop_value, coro, name, context);
    }
    create_task(vm, l, loop_value, coro, name, context)
}

/// `BaseEventLoop.create_task` after its checks, on the loop `l` (`loop_value`): a Task,
/// or what the task factory makes (called as `factory(loop, coro)`, with `context=` only
/// when one is given, and then named with `set_name(name)` even when `name` is None, as
/// 3.13.0 does).
#[inline(always)]
fn create_task(
    vm: &mut Vm,
    l: Option<&LoopObj>,
    loop_value: &Value,
    coro: Value,
    name: Option<Value>,
    context: Option<Value>,
) -> PyResult<Value> {
    let factory = l.map_or(Value::None, |l| l.state.borrow().task_factory.clone());
    if factory.is_none() {
        return task::new_task(vm, coro, loop_value.clone(), name, context);
    }
    let kw = match context {
        Some(context) if !context.is_none() => vec![(vm.intern("context"), context)],
        _ => Vec::new(),
    };
    let task = vm.call(&factory, &[loop_value.clone(), coro], &kw)?;
    vm.call_method(&task, "set_name", &[name.unwrap_or(Value::None)])?;
    Ok(task)
}

fn loop_set_task_factory(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    crate::vm::args::check_arity(vm, "set_task_factory", args, 2, 2)?;
    let l = this(vm, &args[0])?;
    if !args[1].is_none() && !vm.is_callable(&args[1]) {
        return Err(vm.type_error("task factory must be a callable or None"));
    }
    l.state.borrow_mut().task_factory = args[1].clone();
    Ok(Value::None)
}

fn loop_get_task_factory(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    Ok(this(vm, &args[0])?.state.borrow().task_factory.clone())
}

/// Whether the loop `loop_value` is running (a task made now may start eagerly).
pub fn is_running(loop_value: &Value) -> bool {
    as_loop(loop_value).is_some_and(|l| l.state.borrow().running)
}

fn loop_set_exception_handler(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    crate::vm::args::check_arity(vm, "set_exception_handler", args, 2, 2)?;
    let handler = &args[1];
    if !handler.is_none() && !vm.is_callable(handler) {
        let shown = vm.repr(handler)?;
        return Err(vm.type_error(format!(
            "A callable object or None is expected, got {shown}"
        )));
    }
    this(vm, &args[0])?.state.borrow_mut().exception_handler = handler.clone();
    Ok(Value::None)
}

fn loop_get_exception_handler(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    Ok(this(vm, &args[0])?.state.borrow().exception_handler.clone())
}

pub fn loop_call_exception_handler(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    crate::vm::args::check_arity(vm, "call_exception_handler", args, 2, 2)?;
    exception_handler::call_dict(vm, &exception_handler_of(&args[0]), &args[0], &args[1])?;
    Ok(Value::None)
}

/// `loop.default_exception_handler(context)`, for a custom handler deferring to it.
pub fn loop_default_exception_handler(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    crate::vm::args::check_arity(vm, "default_exception_handler", args, 2, 2)?;
    this(vm, &args[0])?;
    exception_handler::default_handler(vm, &args[1])?;
    Ok(Value::None)
}

fn loop_repr(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    let l = this(vm, &args[0])?;
    let st = l.state.borrow();
    let text = format!(
        "<{} running={} closed={} debug={}>",
        vm.type_name(&args[0]),
        if st.running { "True" } else { "False" },
        if st.closed { "True" } else { "False" },
        if st.debug { "True" } else { "False" },
    );
    Ok(Value::str(text))
}

fn handle_of<'a>(vm: &Vm, v: &'a Value) -> PyResult<&'a HandleObj> {
    as_handle(v).ok_or_else(|| vm.type_error("a Handle was expected"))
}

fn handle_repr(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    let h = handle_of(vm, &args[0])?;
    let debug = as_loop(&h.event_loop).is_some_and(|l| l.state.borrow().debug);
    let mut info = vec![vm.type_name(&args[0]).to_string()];
    if h.cancelled.get() {
        info.push("cancelled".into());
    }
    if let Some(when) = h.when {
        info.push(format!("when={}", vm.repr(&Value::Float(when))?));
    }
    if !h.cancelled.get() {
        info.push(format_callback(vm, &h.callback, &h.args, debug)?);
    }
    if let Some(place) = &h.created_at {
        info.push(format!("created at {place}"));
    }
    Ok(Value::str(format!("<{}>", info.join(" "))))
}

/// Adds the loop's and handles' methods to their types.
pub fn init_types(
    vm: &mut Vm,
    loop_type: &Rc<crate::vm::object::PyType>,
    handle: &Rc<crate::vm::object::PyType>,
    timer: &Rc<crate::vm::object::PyType>,
) {
    vm.add_method(loop_type, "time", loop_time);
    vm.add_method(loop_type, "run_forever", loop_run_forever);
    vm.add_method(loop_type, "run_until_complete", loop_run_until_complete);
    vm.add_method(loop_type, "stop", loop_stop);
    vm.add_method(loop_type, "close", loop_close);
    vm.add_method(loop_type, "is_running", |vm, a, _| {
        flag(vm, a, |s| s.running)
    });
    vm.add_method(loop_type, "is_closed", |vm, a, _| flag(vm, a, |s| s.closed));
    vm.add_method(loop_type, "get_debug", |vm, a, _| flag(vm, a, |s| s.debug));
    vm.add_method(loop_type, "set_debug", loop_set_debug);
    vm.add_getset(
        loop_type,
        "slow_callback_duration",
        |vm, v| {
            Ok(Value::Float(
                this(vm, v)?.state.borrow().slow_callback_duration,
            ))
        },
        Some(|vm, v, new| {
            let seconds = number(vm, &new)?;
            this(vm, v)?.state.borrow_mut().slow_callback_duration = seconds;
            Ok(())
        }),
    );
    vm.add_method(loop_type, "create_future", loop_create_future);
    vm.add_method(loop_type, "create_task", loop_create_task);
    vm.add_method(loop_type, "set_task_factory", loop_set_task_factory);
    vm.add_method(loop_type, "get_task_factory", loop_get_task_factory);
    vm.add_method(
        loop_type,
        "set_exception_handler",
        loop_set_exception_handler,
    );
    vm.add_method(
        loop_type,
        "get_exception_handler",
        loop_get_exception_handler,
    );
    vm.add_method(
        loop_type,
        "call_exception_handler",
        loop_call_exception_handler,
    );
    vm.add_method(
        loop_type,
        "default_exception_handler",
        loop_default_exception_handler,
    );
    vm.add_method(loop_type, "__repr__", loop_repr);
    vm.add_method(handle, "cancel", |vm, a, _| {
        handle_of(vm, &a[0])?.cancelled.set(true);
        Ok(Value::None)
    });
    vm.add_method(handle, "cancelled", |vm, a, _| {
        Ok(Value::Bool(handle_of(vm, &a[0])?.cancelled.get()))
    });
    vm.add_method(handle, "__repr__", handle_repr);
    vm.add_method(handle, "get_context", |vm, a, _| {
        let h = handle_of(vm, &a[0])?;
        let context = h.context.borrow().clone();
        Ok(match context {
            Some(context) => context,
            None => {
                let empty = contextvars::empty_context(vm);
                *h.context.borrow_mut() = Some(empty.clone());
                empty
            }
        })
    });
    vm.add_method(timer, "when", |vm, a, _| {
        Ok(Value::Float(handle_of(vm, &a[0])?.when.unwrap_or(0.0)))
    });
    vm.add_method(timer, "__hash__", |vm, a, _| {
        let when = Value::Float(handle_of(vm, &a[0])?.when.unwrap_or(0.0));
        Ok(Value::Int(vm.hash(&when)?))
    });
    for (name, op) in TIMER_ORDER {
        vm.add_method(timer, name, *op);
    }
}

/// `TimerHandle`'s comparisons (events.py): by deadline, and equal when deadline,
/// callback, arguments and cancelled flag all are; NotImplemented against anything else.
const TIMER_ORDER: &[(&str, crate::vm::object::NativeFn)] = &[
    ("__lt__", |vm, a, _| {
        compare_timers(vm, a, |o| o.is_lt(), false)
    }),
    ("__le__", |vm, a, _| {
        compare_timers(vm, a, |o| o.is_lt(), true)
    }),
    ("__gt__", |vm, a, _| {
        compare_timers(vm, a, |o| o.is_gt(), false)
    }),
    ("__ge__", |vm, a, _| {
        compare_timers(vm, a, |o| o.is_gt(), true)
    }),
    ("__eq__", |vm, a, _| compare_timers(vm, a, |_| false, true)),
    ("__ne__", |vm, a, _| {
        let eq = compare_timers(vm, a, |_| false, true)?;
        Ok(match eq {
            Value::Bool(eq) => Value::Bool(!eq),
            other => other,
        })
    }),
];

/// `ordered(self._when, other._when)`, or (when `or_equal`) `__eq__`.
fn compare_timers(
    vm: &mut Vm,
    args: &[Value],
    ordered: fn(Ordering) -> bool,
    or_equal: bool,
) -> PyResult<Value> {
    crate::vm::args::check_arity(vm, "comparison", args, 2, 2)?;
    let this = handle_of(vm, &args[0])?;
    let Some(other) = as_handle(&args[1]).filter(|h| h.when.is_some()) else {
        return Ok(Value::NotImplemented);
    };
    let (a, b) = (this.when.unwrap_or(0.0), other.when.unwrap_or(0.0));
    if a.partial_cmp(&b).is_some_and(ordered) {
        return Ok(Value::Bool(true));
    }
    if !or_equal || a != b {
        return Ok(Value::Bool(false));
    }
    if !vm.eq(&this.callback, &other.callback)? || this.args.len() != other.args.len() {
        return Ok(Value::Bool(false));
    }
    for (x, y) in this.args.iter().zip(&other.args) {
        if !vm.eq(x, y)? {
            return Ok(Value::Bool(false));
        }
    }
    Ok(Value::Bool(this.cancelled.get() == other.cancelled.get()))
}

/// The native callable `run_until_complete` adds to stop the loop when its future is done.
pub fn stop_callback(vm: &Vm) -> Value {
    vm.native("_run_until_complete_cb", stop_loop_callback)
}

/// `self._asyncgens` (a WeakSet in CPython, kept in first-iteration order here) and
/// `self._asyncgens_shutdown_called`.
#[derive(Default)]
pub struct LiveAsyncGens {
    pub(super) gens: Vec<Weak<Object>>,
    pub(super) shutdown_called: bool,
}

impl LiveAsyncGens {
    pub(super) fn discard(&mut self, agen: &Value) {
        if let Value::Object(o) = agen {
            self.gens
                .retain(|w| w.strong_count() > 0 && !std::ptr::eq(w.as_ptr(), Rc::as_ptr(o)));
        }
    }
}

/// The hooks `run_forever` installs: the loop's bound hook methods (`asyncgens.rs`).
fn asyncgen_hooks(vm: &mut Vm, loop_value: &Value) -> PyResult<AsyncGenHooks> {
    let firstiter = vm.intern("_asyncgen_firstiter_hook");
    let finalizer = vm.intern("_asyncgen_finalizer_hook");
    Ok(AsyncGenHooks {
        firstiter: Some(vm.get_attr(loop_value, &firstiter)?),
        finalizer: Some(vm.get_attr(loop_value, &finalizer)?),
    })
}

// ---- the asyncio runtime of this thread -------------------------------------------------
//
// Its classes and process-wide state (`events.py`'s running-loop registry and policy,
// `tasks.py`'s task registry and name counter), made when `import asyncio` first runs and
// freed at interpreter exit, when the tasks still pending are reported as CPython's
// collector reports them. Event loop, Future and Task read it through [`rt`].

/// asyncio's own switches, given by the embedder ([`install`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Settings {
    /// New event loops start in debug mode (`--asyncio-debug`, `PYTHONASYNCIODEBUG`).
    pub debug: bool,
}

thread_local! {
    static SETTINGS: Cell<Settings> = const { Cell::new(Settings { debug: false }) };
}

/// The asyncio classes, made once per interpreter thread.
pub struct AsyncTypes {
    pub future: Rc<PyType>,
    pub future_iter: Rc<PyType>,
    pub task: Rc<PyType>,
    pub event_loop: Rc<PyType>,
    pub base_event_loop: Rc<PyType>,
    pub abstract_event_loop: Rc<PyType>,
    pub handle: Rc<PyType>,
    pub timer_handle: Rc<PyType>,
    pub cancelled_error: Rc<PyType>,
    pub invalid_state_error: Rc<PyType>,
}

/// Process-wide asyncio state (`events.py`'s running-loop registry and policy, `tasks.py`'s
/// task registry and name counter).
pub struct Runtime {
    pub types: AsyncTypes,
    pub clock: crate::common::clock::ClockKind,
    /// New loops start in debug mode ([`Settings::debug`]).
    pub debug: bool,
    pub running_loop: RefCell<Value>,
    pub task_counter: Cell<u64>,
    /// Every task made so far (`_scheduled_tasks`, a WeakSet in CPython).
    pub tasks: RefCell<Vec<Weak<Object>>>,
    /// The callback `run_until_complete` uses to stop the loop.
    pub stop_callback: Value,
    /// gather's closure type and `_done_callback`, made at the first gather
    /// (`gather::closure`).
    pub gather: OnceCell<(Rc<PyType>, Value)>,
    /// `_asyncio.TaskStepMethWrapper`, made at first use (`task::step_callable`).
    pub step_wrapper: OnceCell<Rc<PyType>>,
}

impl Drop for Runtime {
    /// Tasks still pending when the interpreter ends (kept alive by a task↔future cycle)
    /// are reported as CPython's collector reports them at exit.
    fn drop(&mut self) {
        for t in self.tasks.get_mut().drain(..).filter_map(|w| w.upgrade()) {
            let t = Value::Object(t);
            if let Some(fut) =
                future::as_future(&t).filter(|f| f.status() == future::Status::Pending)
                && let Some(data) = &fut.task
                && data.log_destroy_pending.get()
            {
                data.log_destroy_pending.set(false);
                crate::common::console::eprint(&format!(
                    "Task was destroyed but it is pending!\ntask: {}>\n",
                    task::repr_head(fut, "pending")
                ));
                crate::common::console::eprint(
                    &task::explain_destroyed_pending(fut).unwrap_or_default(),
                );
                // The collector then frees the loop↔task cycle, and with it the coroutine.
                if let Some(l) = as_loop(&fut.event_loop()) {
                    discard_scheduled(l);
                }
            }
        }
    }
}

impl Runtime {
    /// The tasks made so far that are still alive, in the order they were made.
    pub fn live_tasks(&self) -> Vec<Value> {
        let tasks = self.tasks.borrow();
        tasks
            .iter()
            .filter_map(Weak::upgrade)
            .map(Value::Object)
            .collect()
    }
}

thread_local! {
    static RUNTIME: RefCell<Option<Rc<Runtime>>> = const { RefCell::new(None) };
}

/// The asyncio runtime of this interpreter thread, made on first use (`import asyncio`
/// makes a fresh one: [`reset`]).
#[inline]
pub fn rt(vm: &mut Vm) -> Rc<Runtime> {
    match RUNTIME.with(|r| r.borrow().clone()) {
        Some(r) => r,
        None => first_rt(vm),
    }
}

/// [`rt`] the first time on this thread: makes the runtime.
#[cold]
#[inline(never)]
fn first_rt(vm: &mut Vm) -> Rc<Runtime> {
    let runtime = Rc::new(new_runtime(vm));
    RUNTIME.with(|r| *r.borrow_mut() = Some(runtime.clone()));
    runtime
}

/// This interpreter thread's asyncio runtime, if made.
pub fn current_runtime() -> Option<Rc<Runtime>> {
    // (A future freed as the thread ends asks too, when the runtime may be gone.)
    RUNTIME.try_with(|r| r.borrow().clone()).ok().flatten()
}

/// An exception class of `asyncio.exceptions`, with CPython's docstring.
fn exception_class(vm: &mut Vm, name: &str, base: &Rc<PyType>, doc: &str) -> Rc<PyType> {
    let mut ns = DictTable::new();
    ns.set_str(vm.names.module.clone(), Value::str("asyncio.exceptions"));
    ns.set_str(vm.names.doc.clone(), Value::str(doc));
    match vm.new_class(None, name, vec![base.clone()], ns) {
        Ok(t) => t,
        Err(_) => base.clone(),
    }
}

fn new_runtime(vm: &mut Vm) -> Runtime {
    let object = vm.types.object.clone();
    let future = class_in(vm, "Future", vec![object.clone()], "_asyncio");
    // A Future's attributes, a Task's and their subclasses' instances', go in a dict made
    // when the first is set, which no `__dict__` shows (CPython 3.13's managed dict).
    future.managed_dict.set(true);
    let future_iter = class_in(vm, "FutureIter", vec![object.clone()], "_asyncio");
    let task = class_in(vm, "Task", vec![future.clone()], "_asyncio");
    let LoopClasses {
        event_loop,
        base_event_loop,
        abstract_event_loop,
    } = loop_classes(vm);
    let handle = class_in(vm, "Handle", vec![object.clone()], "asyncio.events");
    let timer_handle = class_in(vm, "TimerHandle", vec![handle.clone()], "asyncio.events");
    let base_exception = vm.types.base_exception.clone();
    let exception = vm.types.exception.clone();
    let cancelled_error = exception_class(
        vm,
        "CancelledError",
        &base_exception,
        "The Future or Task was cancelled.",
    );
    let invalid_state_error = exception_class(
        vm,
        "InvalidStateError",
        &exception,
        "The operation is not allowed in this state.",
    );
    future::init_type(vm, &future);
    future::init_iter_type(vm, &future_iter);
    vm.native_send = future::send_to_future_iter;
    vm.native_await = future::await_future;
    task::init_type(vm, &task);
    init_types(vm, &event_loop, &handle, &timer_handle);
    Runtime {
        types: AsyncTypes {
            future,
            future_iter,
            task,
            event_loop,
            base_event_loop,
            abstract_event_loop,
            handle,
            timer_handle,
            cancelled_error,
            invalid_state_error,
        },
        clock: vm.config.clock,
        debug: SETTINGS.with(Cell::get).debug,
        running_loop: RefCell::new(Value::None),
        task_counter: Cell::new(0),
        tasks: RefCell::new(Vec::new()),
        stop_callback: stop_callback(vm),
        gather: OnceCell::new(),
        step_wrapper: OnceCell::new(),
    }
}

/// Sets the settings runtimes are made with ([`super::install`]).
pub fn configure(settings: Settings) {
    SETTINGS.with(|s| s.set(settings));
}

/// Forgets this thread's runtime: the next [`rt`] makes a new one.
pub fn reset() {
    // Freed outside the borrow: what freeing it frees may ask for the runtime.
    drop(take());
}

/// Takes this thread's runtime away, for the caller to free at interpreter exit.
pub fn take() -> Option<Rc<Runtime>> {
    RUNTIME.with(|r| r.borrow_mut().take())
}
