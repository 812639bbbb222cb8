//! asyncio's reports about futures freed in a bad state ("Task exception was never
//! retrieved", "Task was destroyed but it is pending!"), as `Lib/asyncio/futures.py`'s and
//! `tasks.py`'s `__del__` log them. A `Drop` only queues a report (STYLE.md principle 8);
//! the loop prints the queue after each callback, and whatever is left at thread exit.
//!
//! Below them, the `--explain` notes about tasks and the loop: after those two reports, for
//! a cancellation a coroutine swallowed, and for a callback that held the loop too long.
//! The switch and the notes' layout are in `common/explain.rs`; the notes about coroutines
//! and async generators are in `vm/explain.rs`.

use std::cell::RefCell;
use std::time::Duration;

use crate::common::clock::Instant;

use crate::common::clock::Clock;
use crate::common::explain::{on, render};
use crate::vm::dict::StrKeys;
use crate::vm::value::{DictTable, Value};
use crate::vm::{Exc, Vm};

/// One queued report: its header, the `future:`/`task:` repr without the exception part,
/// and the exception whose traceback follows.
pub struct Report {
    pub header: &'static str,
    pub context: String,
    pub exception: Option<Exc>,
    /// The `--explain` note printed after the report.
    pub note: Option<String>,
    /// The loop of the future or task (`self._loop` in `__del__`), whose custom exception
    /// handler, if one is set, gets the report.
    pub event_loop: Value,
    /// The `task`/`future` entry of the handler's context: a task still alive, or a
    /// freed future's contents in a new object (`FutureObj::revive`); a task freed while
    /// pending is not handed over, so its context has only the message.
    pub subject: Option<(&'static str, Value)>,
}

/// Whether the program set an exception handler on `event_loop` (`get_exception_handler()`
/// is not None), asked through the loop's methods as CPython's `__del__` asks `self._loop`,
/// or the loop's class has its own `call_exception_handler` or `default_exception_handler`.
fn has_custom_handler(vm: &mut Vm, event_loop: &Value) -> bool {
    if event_loop.is_none() {
        return false;
    }
    super::loop_subclass::replaces_exception_handling(vm, event_loop)
        || vm
            .call_method(event_loop, "get_exception_handler", &[])
            .is_ok_and(|handler| !handler.is_none())
}

/// The queue; prints what is still queued when the interpreter thread ends.
struct Queue(Vec<Report>);

impl Drop for Queue {
    fn drop(&mut self) {
        for report in self.0.drain(..) {
            let mut text = format!("{}\n{}", report.header, report.context);
            if let Some(e) = &report.exception {
                text.push_str(&format!(" exception={}>", plain_exception(e)));
                text.push_str(&format!("\n{}", plain_exception_line(e)));
            }
            crate::common::console::eprint(&format!("{text}\n"));
            crate::common::console::eprint(&report.note.unwrap_or_default());
        }
    }
}

thread_local! {
    static QUEUE: RefCell<Queue> = const { RefCell::new(Queue(Vec::new())) };
}

/// Queues `report`, to be printed at the VM's next safe point, in its place among the
/// warnings and finalizers that the same drop queues after it (as CPython prints it from
/// inside the deallocation).
pub fn queue(report: Report) {
    // What the cycles broken at the end held was never reported before (`vm::teardown`).
    if crate::vm::teardown::tearing_down() {
        return;
    }
    if QUEUE.try_with(|q| q.borrow_mut().0.push(report)).is_ok() {
        crate::vm::generator::queue_native(flush);
    }
}

/// Prints every queued report on stderr, with full tracebacks.
pub fn flush(vm: &mut Vm) {
    loop {
        let Ok(Some(report)) = QUEUE.try_with(|q| {
            let mut q = q.borrow_mut();
            if q.0.is_empty() {
                None
            } else {
                Some(q.0.remove(0))
            }
        }) else {
            return;
        };
        print(vm, report);
    }
}

/// Prints one report on stderr, with its traceback, or logs it through the `asyncio`
/// logger once the program imported logging, as CPython's default exception handler does.
pub fn print(vm: &mut Vm, report: Report) {
    if has_custom_handler(vm, &report.event_loop) {
        // `self._loop.call_exception_handler(context)` with a handler the program set.
        // In CPython's order: `{'task': self, 'message': ...}` for a pending task,
        // `{'message': ..., 'exception': ..., 'future': self}` for an exception.
        let mut context = vec![("message", Value::str(report.header))];
        if let Some(e) = &report.exception {
            context.push(("exception", Value::Object(e.clone())));
        }
        if let Some((key, value)) = &report.subject {
            let at = if report.exception.is_none() {
                0
            } else {
                context.len()
            };
            context.insert(at, (key, value.clone()));
        }
        let mut table = DictTable::new();
        for (key, value) in context {
            table.set_str(vm.intern(key), value);
        }
        let called = vm.call_method(
            &report.event_loop,
            "call_exception_handler",
            &[Value::dict(table)],
        );
        if let Err(e) = called {
            vm.flush_stdout();
            crate::common::console::eprint(&vm.format_exception(&e));
        }
        crate::common::console::eprint(report.note.as_deref().unwrap_or_default());
        return;
    }
    vm.flush_stdout();
    let mut text = format!("{}\n{}", report.header, report.context);
    if let Some(e) = &report.exception {
        let shown = vm
            .repr(&Value::Object(e.clone()))
            .unwrap_or_else(|_| plain_exception(e));
        text.push_str(&format!(" exception={shown}>"));
    }
    // As CPython's default exception handler: `logger.error(text, exc_info=…)` once
    // the program imported logging.
    let exc_info = vm.intern("exc_info");
    let exception = report.exception.clone().map_or(Value::None, Value::Object);
    let args = [Value::str(text.as_str())];
    let logged = super::log::log_to_asyncio_logger(vm, "error", &args, &[(exc_info, exception)]);
    if !matches!(logged, Ok(true)) {
        text.push('\n');
        if let Some(e) = &report.exception {
            text.push_str(&vm.format_exception(e));
        }
        crate::common::console::eprint(&text);
    }
    crate::common::console::eprint(report.note.as_deref().unwrap_or_default());
}

/// `ValueError('message')` without running user code.
fn plain_exception(e: &Exc) -> String {
    format!(
        "{}({})",
        e.class.name(),
        first_arg(e).map_or(String::new(), |a| format!("{a:?}"))
    )
}

fn plain_exception_line(e: &Exc) -> String {
    match first_arg(e) {
        Some(a) => format!("{}: {a}", e.class.name()),
        None => e.class.name().to_string(),
    }
}

fn first_arg(e: &Exc) -> Option<String> {
    let data = e.exc_data()?.borrow();
    match &data.args {
        Value::Tuple(t) => t.items.first().and_then(|a| a.as_str()).map(str::to_string),
        _ => None,
    }
}

// ---- `--explain` notes ------------------------------------------------------------------

/// Who made a task: `Task-1, running main()`, or None at top level.
pub type Creator = Option<Box<str>>;

/// After "Task exception was never retrieved".
pub fn never_retrieved(task: &str, coro: &str, exception: &str, creator: Option<&str>) -> String {
    let made = match creator {
        Some(by) => format!("{task} was created by {by}."),
        None => format!("{task} was created outside any task."),
    };
    render(&format!(
        "{task} ran {coro} and ended with {exception}, but nothing awaited the task or \
         called its result() or exception(), so the error surfaced only when the task was \
         freed. {made} Fix: await the task (or gather it) where its outcome matters, or add \
         a done callback that checks task.exception()."
    ))
}

/// After "Task was destroyed but it is pending!".
pub fn destroyed_pending(task: &str, coro: &str) -> String {
    render(&format!(
        "{task} (running {coro}) was still waiting when it was freed: the event loop stopped, \
         or the last reference to the task went away, before it finished, so the rest of \
         {coro} never ran. Fix: keep a reference to every task you create and await them \
         (asyncio.gather, or an asyncio.TaskGroup) before the main coroutine returns."
    ))
}

/// A cancelled task whose coroutine caught CancelledError and returned normally (CPython
/// reports nothing here).
pub fn swallowed_cancel(task: &str, coro: &str) -> String {
    render(&format!(
        "{task} was cancelled, but {coro} caught the CancelledError and returned normally, \
         so whoever cancelled it (a timeout, a TaskGroup, asyncio.run at exit) cannot tell \
         the cancellation took effect. Fix: after cleaning up in `except \
         asyncio.CancelledError:`, `raise` it again (or call uncancel() on the task if the \
         cancellation is truly dealt with)."
    ))
}

/// How long one callback may hold the loop before a note (asyncio's debug-mode threshold).
pub const SLOW_CALLBACK: Duration = Duration::from_millis(100);

/// When a callback started, for its note: the real time, and the loop's time (which
/// `time.sleep` moves under the virtual clock).
pub struct Stopwatch {
    real: Instant,
    loop_time: f64,
}

/// Starts timing one callback when notes are on.
#[inline]
pub fn stopwatch(clock: &Clock) -> Option<Stopwatch> {
    on().then(|| Stopwatch {
        real: Instant::now(),
        loop_time: clock.now(),
    })
}

/// Prints the note for a callback (`what`: `Task-1 step, main()`) that held the loop
/// longer than [`SLOW_CALLBACK`] (in real time, plus what it slept under the virtual
/// clock); `watch` is None when notes are off.
pub fn report_slow(vm: &mut Vm, clock: &Clock, watch: Option<(Stopwatch, String)>) {
    let Some((started, what)) = watch else {
        return;
    };
    let mut took = started.real.elapsed();
    if clock.is_virtual() {
        took += Duration::try_from_secs_f64(clock.now() - started.loop_time).unwrap_or_default();
    }
    if took <= SLOW_CALLBACK {
        return;
    }
    vm.flush_stdout();
    crate::common::console::eprint(&render(&format!(
        "{what} held the event loop for {} ms: no other task or callback could run \
         meanwhile. Something in it blocks instead of awaiting (time.sleep(), a long \
         computation). Fix: `await asyncio.sleep(...)` instead of time.sleep(...), or split \
         long work with `await asyncio.sleep(0)` between the pieces.",
        took.as_millis()
    )));
}

// ---- the deadlock report ----------------------------------------------------------------

/// A task left waiting when the loop can never wake: its name, what it waits for (a
/// `--trace` name: `Task-2`, `Future#1`) and its await chain (`main() at file:line`, outermost
/// first).
pub struct Waiting {
    pub task: String,
    pub waits_for: String,
    pub chain: Vec<String>,
}

/// What ends a program whose event loop can never wake again (`--clock virtual`, nothing
/// ready, no timer): each task still waiting, what it waits for and where its await chain
/// stands (outermost first), then the `--explain` note when notes are on.
pub fn deadlock(waiting: &[Waiting]) -> String {
    let mut text = String::from(
        "apy: deadlock: nothing is ready to run, no timer is set, and nothing else can wake \
         the event loop (--clock virtual)\n",
    );
    if waiting.is_empty() {
        text.push_str("  no task is waiting: the loop runs with nothing scheduled\n");
    }
    for w in waiting {
        text.push_str(&format!("  {} waits for {}\n", w.task, w.waits_for));
        for link in &w.chain {
            text.push_str(&format!("    {link}\n"));
        }
    }
    if on() && waiting.is_empty() {
        text.push_str(&render(
            "run_forever() runs until something calls loop.stop(), and nothing is scheduled \
             that could: no callback is ready and no timer is set. Under the real clock the \
             program would wait forever, as CPython does; under --clock virtual apy stops it. \
             Fix: run a coroutine with asyncio.run() (or loop.run_until_complete()), which \
             stops the loop when it is done, or schedule a callback that calls loop.stop().",
        ));
    } else if on() {
        text.push_str(&render(
            "Every task is waiting for something only other code could bring about (a \
             future's result, an Event's set(), a Queue's put() or task_done()), and nothing \
             is left that could run: no callback is ready and no timer is set. Under the real \
             clock the program would wait forever, as CPython does; under --clock virtual apy \
             stops it. Fix: make sure what each task waits for is done by someone (set the \
             event, complete the future, call task_done() after each get()), or bound the \
             wait with asyncio.timeout() or asyncio.wait_for().",
        ));
    }
    text
}
