//! The `asyncio` module: a native core (event loop, Future, Task, clocks, `gather`, and the
//! per-item bookkeeping of the queues and locks in `primitives`) with the layers above it
//! (`run`, `sleep`, Queue, Lock, TaskGroup, …) written in apy itself in `lib/*.apy`, compiled
//! at first import, as CPython keeps them in `Lib/asyncio`. Mirrors `Lib/asyncio/__init__.py`
//! and `events.py`'s module functions. The VM never sees this module: the embedder `install`s it, and `import asyncio` calls
//! [`module`].

pub mod asyncgens;
pub mod event_loop;
pub mod future;
pub mod gather;
pub mod graph;
pub mod primitives;
pub mod reports;
pub mod task;

use std::cell::{Cell, RefCell};
use std::rc::{Rc, Weak};

use crate::vm::dict::StrKeys;
use crate::vm::object::{KwArgs, Layout, Object, ObjectKind, PyType};
use crate::vm::types::make_type;
use crate::vm::value::DictTable;
use crate::vm::value::Value;
use crate::vm::{PyResult, Vm};

/// asyncio's own switches, given by the embedder ([`install`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Settings {
    /// New event loops start in debug mode (`--asyncio-debug`, `PYTHONASYNCIODEBUG`).
    pub debug: bool,
}

thread_local! {
    static SETTINGS: Cell<Settings> = const { Cell::new(Settings { debug: false }) };
}

/// Makes `import asyncio` available in `vm`, with these settings: the embedder's one call
/// into this module before a run.
pub fn install(vm: &mut Vm, settings: Settings) {
    SETTINGS.with(|s| s.set(settings));
    vm.register_module("asyncio", module);
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
    /// The closure of gather's done callback (`gather::closure_type`).
    pub gathering: Rc<PyType>,
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
    /// gather's `_done_callback`, bound to each gather's closure.
    pub done_callback: Value,
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

/// Interpreter exit: frees the asyncio runtime (reporting the tasks still pending, as
/// CPython's collector does at exit), then runs what freeing them queued, such as the
/// warning for an `aclose()` a finalizer hook scheduled but no loop ever ran.
pub fn shutdown(vm: &mut Vm) {
    let runtime = RUNTIME.with(|r| r.borrow_mut().take());
    drop(runtime);
    vm.run_finalizers(None);
    vm.flush_stdout();
}

/// The asyncio runtime of this interpreter thread, made on first use.
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
    asyncgens::init_types(vm, &event_loop);
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
            gathering: gather::closure_type(vm),
        },
        clock: vm.config.clock,
        debug: SETTINGS.with(Cell::get).debug,
        running_loop: RefCell::new(Value::None),
        event_loop: RefCell::new(Value::None),
        event_loop_set: Cell::new(false),
        task_counter: Cell::new(0),
        tasks: RefCell::new(Vec::new()),
        stop_callback: event_loop::stop_callback(vm),
        done_callback: gather::done_callback_function(vm),
    }
}

/// The value of keyword argument `name`, if given.
pub fn kwarg(kw: &KwArgs, name: &str) -> Option<Value> {
    kw.iter()
        .find(|(k, _)| k.as_str() == name)
        .map(|(_, v)| v.clone())
}

/// Rejects keyword arguments outside `allowed`.
pub fn check_kw(vm: &Vm, fname: &str, kw: &KwArgs, allowed: &[&str]) -> PyResult<()> {
    crate::vm::args::check_kwargs(vm, fname, kw, allowed)
}

fn loop_arg(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> Option<Value> {
    let _ = vm;
    args.first().cloned().or_else(|| kwarg(kw, "loop"))
}

fn set_event_loop(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    crate::vm::args::check_arity(vm, "set_event_loop", args, 1, 1)?;
    if !args[0].is_none() && event_loop::as_loop(&args[0]).is_none() {
        let shown = vm.type_name(&args[0]);
        return Err(vm.type_error(format!(
            "loop must be an instance of AbstractEventLoop or None, not '{shown}'"
        )));
    }
    let runtime = rt(vm);
    runtime.event_loop_set.set(true);
    *runtime.event_loop.borrow_mut() = args[0].clone();
    Ok(Value::None)
}

fn ensure_future(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    check_kw(vm, "ensure_future", kw, &["loop"])?;
    crate::vm::args::check_arity(vm, "ensure_future", args, 1, 1)?;
    task::ensure_future(vm, args[0].clone(), kwarg(kw, "loop"))
}

fn create_task(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    check_kw(vm, "create_task", kw, &["name", "context"])?;
    crate::vm::args::check_arity(vm, "create_task", args, 1, 1)?;
    let l = event_loop::running_loop(vm)?;
    task::new_task(
        vm,
        args[0].clone(),
        l,
        kwarg(kw, "name"),
        kwarg(kw, "context"),
    )
}

fn is_future(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    crate::vm::args::check_arity(vm, "isfuture", args, 1, 1)?;
    if future::as_future(&args[0]).is_some() {
        return Ok(Value::Bool(true));
    }
    let name = vm.intern("_asyncio_future_blocking");
    let on_class = crate::vm::types::lookup(vm.type_of(&args[0]), &name).is_some();
    Ok(Value::Bool(
        on_class
            && !vm
                .get_attr_opt(&args[0], &name)?
                .is_none_or(|v| v.is_none()),
    ))
}

/// The apy half of the module (DESIGN.md decision 3): file name and source, run in order.
const LIBRARY: [(&str, &str); 8] = [
    ("asyncio/__init__.py", include_str!("lib/asyncio.apy")),
    ("asyncio/runners.py", include_str!("lib/runners.apy")),
    ("asyncio/locks.py", include_str!("lib/locks.apy")),
    ("asyncio/queues.py", include_str!("lib/queues.apy")),
    ("asyncio/timeouts.py", include_str!("lib/timeouts.apy")),
    ("asyncio/taskgroups.py", include_str!("lib/taskgroups.apy")),
    ("asyncio/tasks.py", include_str!("lib/tasks.apy")),
    ("asyncio/graph.py", include_str!("lib/graph.apy")),
];

/// Builds the `asyncio` module: the native core, then the library run in its namespace.
pub fn module(vm: &mut Vm) -> Value {
    RUNTIME.with(|r| *r.borrow_mut() = None);
    let runtime = rt(vm);
    let t = &runtime.types;
    let attrs = vec![
        ("Future", Value::Type(t.future.clone())),
        ("Task", Value::Type(t.task.clone())),
        (
            "AbstractEventLoop",
            Value::Type(t.abstract_event_loop.clone()),
        ),
        ("EventLoop", Value::Type(t.event_loop.clone())),
        ("SelectorEventLoop", Value::Type(t.event_loop.clone())),
        ("Handle", Value::Type(t.handle.clone())),
        ("TimerHandle", Value::Type(t.timer_handle.clone())),
        ("CancelledError", Value::Type(t.cancelled_error.clone())),
        (
            "InvalidStateError",
            Value::Type(t.invalid_state_error.clone()),
        ),
        ("TimeoutError", Value::Type(vm.types.timeout_error.clone())),
        (
            "get_running_loop",
            vm.native("get_running_loop", |vm, _, _| event_loop::running_loop(vm)),
        ),
        (
            "_get_running_loop",
            vm.native("_get_running_loop", |vm, _, _| {
                Ok(rt(vm).running_loop.borrow().clone())
            }),
        ),
        (
            "get_event_loop",
            vm.native("get_event_loop", |vm, _, _| event_loop::get_event_loop(vm)),
        ),
        (
            "new_event_loop",
            vm.native("new_event_loop", |vm, _, _| Ok(event_loop::new_loop(vm))),
        ),
        (
            "set_event_loop",
            vm.native("set_event_loop", set_event_loop),
        ),
        (
            "current_task",
            vm.native("current_task", |vm, a, k| {
                let l = loop_arg(vm, a, k);
                task::current_task(vm, l.as_slice(), &[])
            }),
        ),
        (
            "all_tasks",
            vm.native("all_tasks", |vm, a, k| {
                let l = loop_arg(vm, a, k);
                task::all_tasks(vm, l.as_slice(), &[])
            }),
        ),
        ("ensure_future", vm.native("ensure_future", ensure_future)),
        ("create_task", vm.native("create_task", create_task)),
        (
            "iscoroutine",
            vm.native("iscoroutine", |vm, a, _| {
                crate::vm::args::check_arity(vm, "iscoroutine", a, 1, 1)?;
                Ok(Value::Bool(task::is_coroutine(&a[0])))
            }),
        ),
        ("isfuture", vm.native("isfuture", is_future)),
        ("gather", vm.native("gather", gather::gather)),
    ];
    let attrs = attrs
        .into_iter()
        .chain(graph::natives(vm))
        .chain(primitives::natives(vm))
        .collect();
    let module = vm.new_module("asyncio", attrs);
    for (name, text) in LIBRARY {
        if let Err(message) = run_library(vm, &module, name, text) {
            eprintln!("apy: internal error in the asyncio library ({name}): {message}");
        }
    }
    module
}

fn run_library(vm: &mut Vm, module: &Value, name: &str, text: &str) -> Result<(), String> {
    let Value::Object(m) = module else {
        return Err("not a module".into());
    };
    let ObjectKind::Module { dict, .. } = &m.kind else {
        return Err("not a module".into());
    };
    let code = (vm.compile)(name, text).map_err(|d| format!("{d:?}"))?;
    vm.sources.insert(code.filename.clone(), text.into());
    let code = vm.load_code(&code);
    // Classes take `__module__` from `__name__`: "asyncio/locks.py" makes Lock's
    // repr say `asyncio.locks.Lock`, as in CPython. The module is "asyncio" again after.
    let submodule = name.trim_end_matches(".py").trim_end_matches("/__init__");
    let name_key = vm.names.name.clone();
    let set_name = |n: &str| {
        dict.table
            .borrow_mut()
            .set_str(name_key.clone(), Value::str(n))
    };
    set_name(&submodule.replace('/', "."));
    let mut frame = crate::vm::frame::Frame::for_module(vm, code, dict.clone());
    let result = vm.run_frame(&mut frame, None);
    set_name("asyncio");
    match result {
        crate::vm::frame::FrameResult::Err(e) => Err(vm.format_exception(&e)),
        _ => Ok(()),
    }
}
