//! `--explain`: a teaching note under each classic async mistake apy reports. The reports
//! themselves (CPython's lines, unchanged) come from `vm/generator.rs` ("coroutine … was
//! never awaited") and `asyncio/reports.rs` (task reports); this module only words the
//! notes, from facts the caller hands in, and knows whether notes are on for this thread.
//! Every note is a block of lines starting `explain| `, on stderr, right after the report.
//! Off, each hook is one branch on a thread-local flag.

use std::cell::Cell;
use std::time::{Duration, Instant};

thread_local! {
    static ON: Cell<bool> = const { Cell::new(false) };
}

/// Turns notes on for this (the interpreter's) thread.
pub fn install(on: bool) {
    ON.with(|o| o.set(on));
}

#[inline(always)]
pub fn on() -> bool {
    ON.with(|o| o.get())
}

/// A note as lines starting `explain| `, wrapped at about 88 columns, ending in a newline.
pub fn render(text: &str) -> String {
    let mut out = String::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        if !line.is_empty() && line.len() + 1 + word.len() > 80 {
            out.push_str(&format!("explain| {line}\n"));
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() {
        out.push_str(&format!("explain| {line}\n"));
    }
    out
}

/// The note after a RuntimeWarning `message` when notes are on and it is "coroutine 'NAME'
/// was never awaited": `dropped_at` is the line whose instruction let go of the last
/// reference (the line CPython's warning shows).
pub fn never_awaited(message: &str, dropped_at: Option<u32>) -> Option<String> {
    let name = message
        .strip_prefix("coroutine '")?
        .strip_suffix("' was never awaited")
        .filter(|_| on())?;
    let short = name.rsplit('.').next().unwrap_or(name);
    let place = dropped_at.map_or("before the program ended".to_string(), |l| {
        format!("on line {l}")
    });
    Some(render(&format!(
        "Calling {name}() only made a coroutine object; the body of {short} runs when \
         something awaits that object. This one was dropped {place} without being awaited, \
         so {name}() never ran (that is usually the line that called it). Fix: write \
         `await {short}(...)` inside an async function, or `asyncio.create_task({short}(...))` \
         to run it alongside the caller, keeping a reference to the task."
    )))
}

/// Who made a task: `Task-1, running main()`, or None at top level.
pub type Creator = Option<String>;

/// After "Task exception was never retrieved".
pub fn never_retrieved(task: &str, coro: &str, exception: &str, creator: &Creator) -> String {
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

/// Starts timing one callback when notes are on.
#[inline]
pub fn stopwatch() -> Option<Instant> {
    if on() { Some(Instant::now()) } else { None }
}

/// Prints the note for a callback (`what`: `Task-1 step, main()`) that ran longer than
/// [`SLOW_CALLBACK`] since it started; `watch` is None when notes are off.
pub fn report_slow(vm: &mut crate::vm::Vm, watch: Option<(Instant, String)>) {
    let Some((started, what)) = watch else {
        return;
    };
    let took = started.elapsed();
    if took <= SLOW_CALLBACK {
        return;
    }
    vm.flush_stdout();
    eprint!(
        "{}",
        render(&format!(
            "{what} held the event loop for {} ms: no other task or callback could run \
         meanwhile. Something in it blocks instead of awaiting (time.sleep(), a long \
         computation). Fix: `await asyncio.sleep(...)` instead of time.sleep(...), or split \
         long work with `await asyncio.sleep(0)` between the pieces.",
            took.as_millis()
        ))
    );
}

/// Prints the note for an async generator the loop's finalizer hook got: one abandoned
/// un-exhausted (an `async for` left by `break`), closed by the loop instead of its user.
pub fn abandoned_agen(vm: &mut crate::vm::Vm, agen: &crate::vm::value::Value) {
    if !on() {
        return;
    }
    let name = crate::vm::generator::as_generator(agen).map_or("?".into(), |g| g.qualname.clone());
    vm.flush_stdout();
    eprint!(
        "{}",
        render(&format!(
            "The async generator {name}() was left suspended when its `async for` loop ended \
         early (a break, a return or an exception), so its cleanup (finally blocks, async with exits) ran \
         later, when the event loop's finalizer hook closed it, not where the loop ended. \
         Fix: close it where you stop using it: `await agen.aclose()` in a finally block \
         (contextlib.aclosing does this in CPython)."
        ))
    );
}
