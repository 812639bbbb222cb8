//! The loop's scheduling methods, `call_soon`, `call_later` and `call_at`
//! (`BaseEventLoop` in `Lib/asyncio/base_events.py`), and the checks
//! `call_soon_threadsafe` shares with them: arguments worded as CPython's Python methods
//! word them ("BaseEventLoop.call_soon() missing 1 required positional argument:
//! 'callback'"), and debug mode's `_check_callback`, which only debug mode makes (a
//! non-callable scheduled otherwise fails when it runs, through the exception handler).
//! The handles and the loop that runs them are `event_loop`'s.

use crate::builtins::contextvars;
use crate::vm::args::kwarg;
use crate::vm::object::KwArgs;
use crate::vm::value::Value;
use crate::vm::{PyResult, Vm};

use super::event_loop::{self, Ready, check_method_args};
use super::loop_subclass::Method;
use super::task;

/// The loop's methods this file defines (`mod.rs` adds them to the loop's class).
pub const METHODS: &[(&str, crate::vm::object::NativeFn)] = &[
    ("call_soon", call_soon),
    ("call_later", call_later),
    ("call_at", call_at),
];

/// The keyword arguments the scheduling methods take.
const CONTEXT: &[&str] = &["context"];

/// `coroutines.iscoroutine(callback) or coroutines._iscoroutinefunction(callback)`.
pub fn is_coroutine_like(vm: &mut Vm, callback: &Value) -> PyResult<bool> {
    if task::is_coroutine(callback) {
        return Ok(true);
    }
    let asyncio = vm.import_module("asyncio")?;
    let name = vm.intern("iscoroutinefunction");
    let check = vm.get_attr(&asyncio, &name)?;
    let answer = vm.call(&check, std::slice::from_ref(callback), &[])?;
    vm.truthy(&answer)
}

/// `BaseEventLoop._check_callback`, made in debug mode only.
fn check_callback(vm: &mut Vm, loop_value: &Value, callback: &Value, method: &str) -> PyResult<()> {
    if !event_loop::debug_of(loop_value) {
        return Ok(());
    }
    if is_coroutine_like(vm, callback)? {
        return Err(vm.type_error(format!("coroutines cannot be used with {method}()")));
    }
    if !vm.is_callable(callback) {
        let shown = vm.repr(callback)?;
        return Err(vm.type_error(format!(
            "a callable object was expected by {method}(), got {shown}"
        )));
    }
    Ok(())
}

pub(super) fn call_soon(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    if let Some(l) = args.first().and_then(event_loop::as_loop) {
        // Debug mode's `_check_thread`: a running loop is the business of its own thread.
        let thread = l.state.borrow().thread;
        let (debug, running) = (
            event_loop::debug_of(&args[0]),
            event_loop::is_running(&args[0]),
        );
        if debug && running && thread != vm.threads.ident() {
            return Err(vm.runtime_error(
                "Non-thread-safe operation invoked on an event loop other than the current one",
            ));
        }
    }
    schedule_soon(vm, args, kw, "call_soon")
}

/// `call_soon` and `call_soon_threadsafe` (named `method` in errors): a Handle at the end
/// of the ready deque.
pub fn schedule_soon(vm: &mut Vm, args: &[Value], kw: &KwArgs, method: &str) -> PyResult<Value> {
    check_method_args(vm, method, (&["callback"], true), CONTEXT, args, kw)?;
    let l = event_loop::check_open(vm, &args[0])?;
    check_callback(vm, &args[0], &args[1], method)?;
    let context = contextvars::context_arg(vm, kwarg(kw, "context"))?;
    let (callback, rest) = (args[1].clone(), args[2..].to_vec());
    let handle = event_loop::new_handle(vm, &args[0], callback, rest, None, context);
    l.push_ready(Ready::Handle(handle.clone()));
    super::trace::call_soon(vm, &handle);
    Ok(handle)
}

/// `loop.call_later(delay, callback, *args, context=None)`: `call_at(self.time() + delay, …)`.
fn call_later(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let params = (&["delay", "callback"][..], true);
    check_method_args(vm, "call_later", params, CONTEXT, args, kw)?;
    if args[1].is_none() {
        return Err(vm.type_error("delay must not be None"));
    }
    let l = event_loop::this_loop(vm, &args[0])?;
    let when = l.clock.now() + event_loop::number(vm, &args[1])?;
    if l.replaces(vm, &args[0], Method::CallAt) {
        return super::loop_subclass::call_at(vm, args, kw, when);
    }
    schedule_at(vm, args, kw, when)
}

/// `loop.call_at(when, callback, *args, context=None)`.
pub(super) fn call_at(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let params = (&["when", "callback"][..], true);
    check_method_args(vm, "call_at", params, CONTEXT, args, kw)?;
    if args[1].is_none() {
        return Err(vm.type_error("when cannot be None"));
    }
    let when = event_loop::number(vm, &args[1])?;
    schedule_at(vm, args, kw, when)
}

/// What `call_at` does once it has its deadline: a TimerHandle on the heap.
fn schedule_at(vm: &mut Vm, args: &[Value], kw: &KwArgs, when: f64) -> PyResult<Value> {
    event_loop::check_open(vm, &args[0])?;
    check_callback(vm, &args[0], &args[2], "call_at")?;
    let context = contextvars::context_arg(vm, kwarg(kw, "context"))?;
    let (callback, rest) = (args[2].clone(), args[3..].to_vec());
    event_loop::push_timer(vm, &args[0], when, callback, rest, context)
}
