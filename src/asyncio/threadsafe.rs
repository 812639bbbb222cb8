//! asyncio's side of threads (`vm::threads`): `loop.call_soon_threadsafe`, which wakes the
//! loop's thread when it waits in its select (`event_loop::idle` hands the interpreter to
//! the other threads meanwhile); each thread's own running loop ([`thread_hook`]); and the stand-ins that load `lib/threads.apy` (to_thread,
//! run_in_executor, getaddrinfo, wrap_future, run_coroutine_threadsafe) on the first call
//! of one.

use super::event_loop::{self, rt};
use super::library;
use crate::vm::object::{KwArgs, NativeFn};
use crate::vm::thread_list::Wait;
use crate::vm::types::lookup;
use crate::vm::value::Value;
use crate::vm::{PyResult, Vm};

/// `loop.call_soon_threadsafe(callback, *args, context=None)`: `call_soon` from any
/// thread; the loop's thread, if it waits in its select, wakes up to run it.
pub fn call_soon_threadsafe(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let handle = super::scheduling::schedule_soon(vm, args, kw, "call_soon_threadsafe")?;
    if let Some(l) = args.first().and_then(event_loop::as_loop) {
        let thread = l.state.borrow().thread;
        vm.wake_blocked(thread, Wait::Select);
    }
    Ok(handle)
}

/// Each thread has its own running loop: installs the incoming thread's (None: a new
/// thread's, none) and returns the one it replaces. (The policy keeps each thread's
/// current loop itself, by thread ident: `lib/events.apy`.)
pub fn thread_hook(incoming: Value) -> Value {
    let Some(runtime) = event_loop::current_runtime() else {
        return Value::None;
    };
    runtime.running_loop.replace(incoming)
}

/// `lib/threads.apy`: run in the module's namespace on the first call of a stand-in.
const THREADS: (&str, &str) = ("asyncio/threads.py", include_str!("lib/threads.apy"));

/// A module function or loop method of `lib/threads.apy` before that is loaded: loads it
/// (the real ones replace the stand-ins) and calls the real one.
fn load_and_call(vm: &mut Vm, args: &[Value], kw: &KwArgs, name: &str) -> PyResult<Value> {
    library::run_lazy(vm, THREADS.0, THREADS.1)?;
    let key = vm.intern(name);
    let real = match name {
        "run_in_executor" | "set_default_executor" | "getaddrinfo" => {
            lookup(&rt(vm).types.event_loop.clone(), &key).unwrap_or(Value::None)
        }
        _ => {
            let module = vm.import_module("asyncio")?;
            vm.get_attr(&module, &key)?
        }
    };
    match real {
        real @ Value::Function(_) => vm.call(&real, args, kw),
        _ => Err(vm.runtime_error(format!("apy: asyncio has no {name}()"))),
    }
}

macro_rules! stand_in {
    ($name:literal) => {
        ($name, |vm, args, kw| load_and_call(vm, args, kw, $name))
    };
}

const FUNCTIONS: [(&str, NativeFn); 3] = [
    stand_in!("to_thread"),
    stand_in!("wrap_future"),
    stand_in!("run_coroutine_threadsafe"),
];

const METHODS: [(&str, NativeFn); 3] = [
    stand_in!("run_in_executor"),
    stand_in!("set_default_executor"),
    stand_in!("getaddrinfo"),
];

/// The module's stand-ins until `lib/threads.apy` is loaded.
pub fn stubs(vm: &Vm) -> Vec<(&'static str, Value)> {
    FUNCTIONS
        .iter()
        .map(|(name, f)| (*name, vm.native(name, *f)))
        .collect()
}

/// Adds `call_soon_threadsafe` and the stand-ins of the executor methods to the loop type.
pub fn init_type(vm: &mut Vm, event_loop: &std::rc::Rc<crate::vm::object::PyType>) {
    vm.add_method(event_loop, "call_soon_threadsafe", call_soon_threadsafe);
    for (name, f) in METHODS {
        vm.add_method(event_loop, name, f);
    }
}
