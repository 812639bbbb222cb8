//! The `--explain` notes about coroutines and async generators: under the RuntimeWarning
//! "coroutine … was never awaited" (`generator.rs` reports it) and for an async generator
//! the loop's finalizer hook had to close. The switch and the notes' layout are in
//! `common/explain.rs`; the notes about tasks and the loop are in `asyncio/reports.rs`.

use super::Vm;

use super::value::Value;
use crate::common::explain::{on, render};
use crate::vm::frame::as_generator;

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

/// Prints the note for an async generator the loop's finalizer hook got: one abandoned
/// un-exhausted (an `async for` left by `break`), closed by the loop instead of its user.
pub fn abandoned_agen(vm: &mut Vm, agen: &Value) {
    if !on() {
        return;
    }
    let name = as_generator(agen).map_or("?".into(), |g| g.qualname.clone());
    vm.flush_stdout();
    crate::common::console::eprint(&render(&format!(
        "The async generator {name}() was left suspended when its `async for` loop ended \
         early (a break, a return or an exception), so its cleanup (finally blocks, async with exits) ran \
         later, when the event loop's finalizer hook closed it, not where the loop ended. \
         Fix: close it where you stop using it: `await agen.aclose()` in a finally block \
         (contextlib.aclosing does this in CPython)."
    )));
}
