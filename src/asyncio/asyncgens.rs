//! The loop's async-generator bookkeeping, as in `Lib/asyncio/base_events.py`: while a
//! loop runs, its `_asyncgen_firstiter_hook` records every async generator first iterated
//! (weakly) and its `_asyncgen_finalizer_hook` schedules `aclose()` as a task for one freed
//! un-exhausted; `shutdown_asyncgens` (in lib/asyncio.apy) closes those still alive. The
//! VM side (when the hooks are called) is `vm::async_gen`.

use std::rc::{Rc, Weak};

use super::event_loop::{self, LiveAsyncGens, Ready};

use crate::vm::object::{KwArgs, PyType};
use crate::vm::value::Value;
use crate::vm::{PyResult, Vm};

fn live<'a>(vm: &Vm, loop_value: &'a Value) -> PyResult<&'a std::cell::RefCell<LiveAsyncGens>> {
    event_loop::as_loop(loop_value)
        .map(|l| &l.asyncgens)
        .ok_or_else(|| vm.type_error("an event loop was expected"))
}

/// `_asyncgen_firstiter_hook(agen)`. After shutdown CPython warns with a ResourceWarning,
/// which the default filters hide, so only the bookkeeping shows.
fn firstiter_hook(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    crate::vm::args::check_arity(vm, "_asyncgen_firstiter_hook", &args[1..], 1, 1)?;
    let mut live = live(vm, &args[0])?.borrow_mut();
    if let Value::Object(o) = &args[1] {
        live.gens.push(Rc::downgrade(o));
    }
    drop(live);
    super::trace::asyncgen_hook(vm, super::trace::Hook::FirstIter, &args[1]);
    Ok(Value::None)
}

/// `_asyncgen_finalizer_hook(agen)`: `call_soon_threadsafe(self.create_task, agen.aclose())`.
fn finalizer_hook(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    crate::vm::args::check_arity(vm, "_asyncgen_finalizer_hook", &args[1..], 1, 1)?;
    let loop_value = &args[0];
    super::trace::asyncgen_hook(vm, super::trace::Hook::Finalizer, &args[1]);
    crate::vm::explain::abandoned_agen(vm, &args[1]);
    live(vm, loop_value)?.borrow_mut().discard(&args[1]);
    if event_loop::is_closed(loop_value) {
        return Ok(Value::None);
    }
    let closer = vm.call_method(&args[1], "aclose", &[])?;
    let create_task = vm.intern("create_task");
    let create_task = vm.get_attr(loop_value, &create_task)?;
    let context = crate::builtins::contextvars::capture(vm);
    event_loop::schedule_native(loop_value, Ready::Call(create_task, closer, context));
    super::trace::asyncgen_hook(vm, super::trace::Hook::AcloseScheduled, &args[1]);
    Ok(Value::None)
}

/// `shutdown_asyncgens`' first half: marks the shutdown and hands over the live generators.
fn take_for_shutdown(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    let mut live = live(vm, &args[0])?.borrow_mut();
    live.shutdown_called = true;
    let gens = std::mem::take(&mut live.gens)
        .iter()
        .filter_map(Weak::upgrade)
        .map(Value::Object)
        .collect::<Vec<_>>();
    drop(live);
    super::trace::shutdown_asyncgens(vm, gens.len());
    Ok(Value::list(gens))
}

pub fn init_types(vm: &mut Vm, loop_type: &Rc<PyType>) {
    vm.add_method(loop_type, "_asyncgen_firstiter_hook", firstiter_hook);
    vm.add_method(loop_type, "_asyncgen_finalizer_hook", finalizer_hook);
    vm.add_method(loop_type, "_asyncgens_to_close", take_for_shutdown);
}
