//! The loop's signal handlers (`Lib/asyncio/unix_events.py`): `add_signal_handler`,
//! `remove_signal_handler`, and their removal when the loop closes. As in CPython the
//! signal's own handler (`signal.signal`) is a stand-in, `_sighandler_noop`; where
//! CPython's C handler writes the signal's number to the loop's wakeup descriptor
//! (`signal.set_wakeup_fd`), apy's stand-in, a method of the loop that added it, records
//! it with that loop. The loop's next iteration reads what was recorded
//! (`_read_from_self`, a ready callback as the self-pipe's reader is) and schedules each
//! signal's Handle, which runs in the iteration after.

use crate::builtins::{contextvars, signal_module};
use crate::vm::args::{check_arity, check_kwargs};
use crate::vm::object::KwArgs;
use crate::vm::value::Value;
use crate::vm::{Exc, PyResult, Vm};

use super::event_loop::{self, LoopObj, Ready};
use super::scheduling::is_coroutine_like;

/// The loop's methods; `event_loop` calls the last two by name (`_read_from_self` after
/// a wait that saw signals, `_close_signal_handlers` as the loop closes), so that it does
/// not import this file.
pub const METHODS: &[(&str, crate::vm::object::NativeFn)] = &[
    ("add_signal_handler", add_signal_handler),
    ("_read_from_self", read_from_self),
    ("_close_signal_handlers", |vm, args, _| {
        check_arity(vm, "_close_signal_handlers", args, 1, 1)?;
        let l = event_loop::this_loop(vm, &args[0])?;
        close(vm, l).map(|()| Value::None)
    }),
    ("remove_signal_handler", |vm, args, kw| {
        check_kwargs(vm, "remove_signal_handler", kw, &[])?;
        check_arity(vm, "remove_signal_handler", args, 2, 2)?;
        let signum = check_signal(vm, &args[1])?;
        let l = event_loop::this_loop(vm, &args[0])?;
        remove(vm, l, signum).map(Value::Bool)
    }),
];

/// `_check_signal`: the number `sig` is, when it is a signal's.
fn check_signal(vm: &mut Vm, sig: &Value) -> PyResult<i32> {
    let int = vm.types.int.clone();
    if !vm.isinstance(sig, &int) {
        let shown = vm.repr(sig)?;
        return Err(vm.type_error(format!("sig must be an int, not {shown}")));
    }
    let number = vm.index_value(sig)?.and_then(|n| i32::try_from(n).ok());
    match number.filter(|&n| signal_module::is_valid(n)) {
        Some(n) => Ok(n),
        None => {
            let shown = vm.str_of(sig)?;
            Err(vm.value_error(format!("invalid signal number {}", shown.as_str())))
        }
    }
}

/// `loop.add_signal_handler(sig, callback, *args)`.
fn add_signal_handler(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    check_kwargs(vm, "add_signal_handler", kw, &[])?;
    check_arity(vm, "add_signal_handler", args, 3, usize::MAX)?;
    let (loop_value, callback) = (&args[0], &args[2]);
    event_loop::this_loop(vm, loop_value)?;
    if is_coroutine_like(vm, callback)? {
        return Err(vm.type_error("coroutines cannot be used with add_signal_handler()"));
    }
    let signum = check_signal(vm, &args[1])?;
    let l = event_loop::check_open(vm, loop_value)?;
    // CPython's set_wakeup_fd() refuses first: a loop in another thread cannot add one.
    if !vm.threads.on_main() {
        return Err(
            vm.runtime_error("set_wakeup_fd only works in main thread of the main interpreter")
        );
    }
    let context = contextvars::context_arg(vm, None)?;
    let handle = event_loop::new_handle(
        vm,
        loop_value,
        callback.clone(),
        args[3..].to_vec(),
        None,
        context,
    );
    set_entry(l, signum, Some(handle));
    let noop = vm.native("_sighandler_noop", sighandler_noop);
    let noop = vm.bound_method(noop, loop_value.clone());
    if let Err(exc) = signal_module::set_handler(vm, signum, noop) {
        set_entry(l, signum, None);
        return Err(cannot_catch(vm, signum, exc));
    }
    Ok(Value::None)
}

/// Sets (Some) or forgets (None) the Handle of `signum`; whether it had one.
fn set_entry(l: &LoopObj, signum: i32, handle: Option<Value>) -> bool {
    let mut signals = l.signals.borrow_mut();
    let old = signals.handlers.iter().position(|(sig, _)| *sig == signum);
    // (Taken out of the borrow: dropping a Handle may free what it holds.)
    let removed = old.map(|i| signals.handlers.remove(i));
    if let Some(handle) = handle {
        signals.handlers.push((signum, handle));
    }
    drop(signals);
    removed.is_some()
}

/// A failed `signal.signal()`: EINVAL (SIGKILL, SIGSTOP) becomes CPython's RuntimeError.
fn cannot_catch(vm: &mut Vm, signum: i32, exc: Exc) -> Exc {
    let errno = vm.intern("errno");
    let einval = vm
        .get_attr(&Value::Object(exc.clone()), &errno)
        .is_ok_and(|e| matches!(e, Value::Int(n) if n == i64::from(libc::EINVAL)));
    match einval {
        true => vm.runtime_error(format!("sig {signum} cannot be caught")),
        false => exc,
    }
}

/// `loop.remove_signal_handler(sig)` of a checked number: the signal's handler goes back
/// to `SIG_DFL` (`default_int_handler` for SIGINT); false when it had none from the loop.
fn remove(vm: &mut Vm, l: &LoopObj, signum: i32) -> PyResult<bool> {
    if !set_entry(l, signum, None) {
        return Ok(false);
    }
    signal_module::set_default(vm, signum).map_err(|exc| cannot_catch(vm, signum, exc))?;
    Ok(true)
}

/// The handler `add_signal_handler` gives the signal, a method of the loop: records the
/// signal for the loop's next iteration (as CPython's C handler writes it to the wakeup
/// descriptor).
fn sighandler_noop(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    check_arity(vm, "_sighandler_noop", args, 3, 3)?;
    let l = event_loop::this_loop(vm, &args[0])?;
    let signum = vm.expect_c_int(&args[1])?;
    l.signals.borrow_mut().received.push(signum);
    Ok(Value::None)
}

/// `_process_self_data`: each signal received schedules its Handle (`_handle_signal`);
/// one cancelled meanwhile has its handler removed instead.
fn read_from_self(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    let l = event_loop::this_loop(vm, &args[0])?;
    let received = std::mem::take(&mut l.signals.borrow_mut().received);
    for signum in received {
        let handle = {
            let signals = l.signals.borrow();
            let found = signals.handlers.iter().find(|(sig, _)| *sig == signum);
            found.map(|(_, handle)| handle.clone())
        };
        let Some(handle) = handle else {
            continue;
        };
        if event_loop::is_cancelled(&handle) {
            remove(vm, l, signum)?;
        } else {
            l.push_ready(Ready::Handle(handle));
        }
    }
    Ok(Value::None)
}

/// As the loop closes: every signal handler it added is removed.
fn close(vm: &mut Vm, l: &LoopObj) -> PyResult<()> {
    let signals: Vec<i32> = l
        .signals
        .borrow()
        .handlers
        .iter()
        .map(|(sig, _)| *sig)
        .collect();
    for signum in signals {
        remove(vm, l, signum)?;
    }
    Ok(())
}
