//! The asyncio runtime of an interpreter thread: its classes and process-wide state
//! (`events.py`'s running-loop registry and policy, `tasks.py`'s task registry and name
//! counter), made when `import asyncio` first runs and freed at interpreter exit, when the
//! tasks still pending are reported as CPython's collector reports them. Event loop, Future
//! and Task read it through [`rt`].

use std::cell::{Cell, OnceCell, RefCell};
use std::rc::{Rc, Weak};

use super::{event_loop, future, task};
use crate::vm::Vm;
use crate::vm::dict::StrKeys;
use crate::vm::object::{Layout, Object, PyType};
use crate::vm::types::make_type;
use crate::vm::value::{DictTable, Value};

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
    /// The loop `set_event_loop` set (the policy's current loop).
    pub event_loop: RefCell<Value>,
    /// Whether `set_event_loop` was ever called (then `get_event_loop` makes no new loop).
    pub event_loop_set: Cell<bool>,
    pub task_counter: Cell<u64>,
    /// Every task made so far (`_scheduled_tasks`, a WeakSet in CPython).
    pub tasks: RefCell<Vec<Weak<Object>>>,
    /// The callback `run_until_complete` uses to stop the loop.
    pub stop_callback: Value,
    /// gather's closure type and `_done_callback`, made at the first gather
    /// (`gather::closure`).
    pub gather: OnceCell<(Rc<PyType>, Value)>,
}

impl Drop for Runtime {
    /// Tasks still pending when the interpreter ends (kept alive by a task↔future cycle)
    /// are reported as CPython's collector reports them at exit.
    fn drop(&mut self) {
        for t in self.tasks.get_mut().drain(..).filter_map(|w| w.upgrade()) {
            let t = Value::Object(t);
            if let Some(data) = future::as_future(&t)
                .filter(|f| f.status() == future::Status::Pending)
                .and_then(|f| f.task.as_ref())
                && data.log_destroy_pending.get()
            {
                data.log_destroy_pending.set(false);
                eprintln!(
                    "Task was destroyed but it is pending!\ntask: {}>",
                    task::repr_head(data, "pending")
                );
                eprint!(
                    "{}",
                    task::explain_destroyed_pending(data).unwrap_or_default()
                );
                // The collector then frees the loop↔task cycle, and with it the coroutine.
                if let Some(l) =
                    future::as_future(&t).and_then(|f| event_loop::as_loop(&f.event_loop))
                {
                    event_loop::discard_scheduled(l);
                }
            }
        }
    }
}

thread_local! {
    static RUNTIME: RefCell<Option<Rc<Runtime>>> = const { RefCell::new(None) };
}

/// The asyncio runtime of this interpreter thread, made on first use (`import asyncio`
/// makes a fresh one: [`reset`]).
pub fn rt(vm: &mut Vm) -> Rc<Runtime> {
    if let Some(r) = RUNTIME.with(|r| r.borrow().clone()) {
        return r;
    }
    let runtime = Rc::new(new_runtime(vm));
    RUNTIME.with(|r| *r.borrow_mut() = Some(runtime.clone()));
    runtime
}

fn class_in(vm: &mut Vm, name: &str, bases: Vec<Rc<PyType>>, module: &str) -> Rc<PyType> {
    let ty = make_type(name, bases, Layout::Builtin, false);
    vm.set_type_attr(&ty, "__module__", Value::str(module));
    ty
}

fn exception_class(vm: &mut Vm, name: &str, base: &Rc<PyType>) -> Rc<PyType> {
    let mut ns = DictTable::new();
    ns.set_str(vm.names.module.clone(), Value::str("asyncio.exceptions"));
    match vm.new_class(name, vec![base.clone()], ns) {
        Ok(t) => t,
        Err(_) => base.clone(),
    }
}

fn new_runtime(vm: &mut Vm) -> Runtime {
    let object = vm.types.object.clone();
    let future = class_in(vm, "Future", vec![object.clone()], "_asyncio");
    let future_iter = class_in(vm, "FutureIter", vec![object.clone()], "_asyncio");
    let task = class_in(vm, "Task", vec![future.clone()], "_asyncio");
    let abstract_event_loop = class_in(
        vm,
        "AbstractEventLoop",
        vec![object.clone()],
        "asyncio.events",
    );
    let event_loop = class_in(
        vm,
        "_UnixSelectorEventLoop",
        vec![abstract_event_loop.clone()],
        "asyncio.unix_events",
    );
    let handle = class_in(vm, "Handle", vec![object.clone()], "asyncio.events");
    let timer_handle = class_in(vm, "TimerHandle", vec![handle.clone()], "asyncio.events");
    let base_exception = vm.types.base_exception.clone();
    let exception = vm.types.exception.clone();
    let cancelled_error = exception_class(vm, "CancelledError", &base_exception);
    let invalid_state_error = exception_class(vm, "InvalidStateError", &exception);
    future::init_type(vm, &future);
    future::init_iter_type(vm, &future_iter);
    vm.native_send = future::send_to_future_iter;
    task::init_type(vm, &task);
    event_loop::init_types(vm, &event_loop, &handle, &timer_handle);
    Runtime {
        types: AsyncTypes {
            future,
            future_iter,
            task,
            event_loop,
            abstract_event_loop,
            handle,
            timer_handle,
            cancelled_error,
            invalid_state_error,
        },
        clock: vm.config.clock,
        debug: SETTINGS.with(Cell::get).debug,
        running_loop: RefCell::new(Value::None),
        event_loop: RefCell::new(Value::None),
        event_loop_set: Cell::new(false),
        task_counter: Cell::new(0),
        tasks: RefCell::new(Vec::new()),
        stop_callback: event_loop::stop_callback(vm),
        gather: OnceCell::new(),
    }
}

/// Sets the settings runtimes are made with ([`super::install`]).
pub fn configure(settings: Settings) {
    SETTINGS.with(|s| s.set(settings));
}

/// Forgets this thread's runtime: the next [`rt`] makes a new one.
pub fn reset() {
    RUNTIME.with(|r| *r.borrow_mut() = None);
}

/// Takes this thread's runtime away, for the caller to free at interpreter exit.
pub fn take() -> Option<Rc<Runtime>> {
    RUNTIME.with(|r| r.borrow_mut().take())
}
