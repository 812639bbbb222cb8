//! The `asyncio` module: a native core (event loop, Future, Task, clocks, `gather`, and the
//! per-item bookkeeping of the queues and locks in `primitives`) with the layers above it
//! (`run`, `sleep`, Queue, Lock, TaskGroup, …) written in apy itself in `lib/*.apy`, compiled
//! at first import, as CPython keeps them in `Lib/asyncio`. Mirrors `Lib/asyncio/__init__.py`
//! and `events.py`'s module functions. The VM never sees this module: the embedder `install`s it, and `import asyncio` calls
//! [`module`].

pub mod asyncgens;
pub mod classes;
pub mod construct;
pub mod event_loop;
pub mod exception_handler;
pub mod format_helpers;
pub mod future;
pub mod gather;
pub mod graph;
// The loop's sockets and streams: there are no sockets in a browser (src/web.rs).
#[cfg(not(target_arch = "wasm32"))]
pub mod io;
pub mod library;
pub mod log;
pub mod loop_subclass;
pub mod primitives;
pub mod record;
pub mod reports;
pub mod scheduling;
// There are no signals in a browser (src/web.rs).
#[cfg(not(target_arch = "wasm32"))]
pub mod signals;
#[cfg(not(target_arch = "wasm32"))]
pub mod stream_paths;
pub mod submodules;
pub mod task;
pub mod threadsafe;
pub mod trace;
#[cfg(not(target_arch = "wasm32"))]
pub mod watchers;

use crate::vm::args::{check_kwargs, kwarg};
use crate::vm::object::{KwArgs, NativeFn, NativeFunction};
use crate::vm::value::Value;
use crate::vm::{PyResult, Vm};
use event_loop::rt;
use future::{Status, as_future};
use std::rc::Rc;

/// Makes `import asyncio` available in `vm`, with these settings: the embedder's one call
/// into this module before a run.
pub fn install(vm: &mut Vm, settings: event_loop::Settings) {
    event_loop::configure(settings);
    vm.register_module("asyncio", module);
    vm.before_exit = Some(collect_pending_tasks);
    #[cfg(not(target_arch = "wasm32"))]
    {
        let (name, file, text) = io::SUBPROCESS_MODULE;
        vm.register_library_module(name, file, text);
    }
    // A page has no processes: the module's names, and the sandbox's refusal.
    #[cfg(target_arch = "wasm32")]
    vm.register_library_module(
        "asyncio.subprocess",
        "asyncio/subprocess_module.py",
        include_str!("lib/subprocess_page.apy"),
    );
    // The frames log names the futures and tasks coroutines yield (`Future#1`).
    crate::vm::trace::name_objects_with(trace::object_name);
}

/// As the main module ends, its globals still alive: reports the tasks still pending and
/// closes their coroutines, as CPython's collector does at exit ([`pending_at_exit`]).
fn collect_pending_tasks(vm: &mut Vm) {
    if let Some(runtime) = event_loop::current_runtime().filter(|_| vm.abort.is_none()) {
        pending_at_exit(vm, &runtime);
    }
}

/// Interpreter exit: frees the asyncio runtime (reporting, as CPython's collector does at
/// exit, the tasks still pending that [`collect_pending_tasks`] did not), then runs what
/// freeing them queued, such as the warning for an `aclose()` a finalizer hook scheduled
/// but no loop ever ran.
pub fn shutdown(vm: &mut Vm) {
    drop(event_loop::take());
    vm.run_finalizers(None);
    vm.flush_stdout();
}

/// Interpreter exit. A task still pending there is garbage kept alive by its task↔future
/// cycle, which CPython's collector frees at exit: it reports the task (with its whole
/// repr, `wait_for=` included) and closes its coroutine, whose `finally` blocks run. The
/// order of the two depends on CPython's collector; apy reports every task first, in the
/// order they were made, then closes their coroutines in that order (then frees what
/// their loops still had scheduled): what CPython does
/// when the cycles are still reachable from the program's globals as it exits (the loop
/// left unclosed with a timer pending, a global naming the task or its future). The
/// shapes that differ are listed in the book's subset appendix.
fn pending_at_exit(vm: &mut Vm, runtime: &event_loop::Runtime) {
    let tasks = runtime.live_tasks();
    let (mut coroutines, mut loops) = (Vec::new(), Vec::new());
    for t in tasks {
        let Some((fut, data)) = as_future(&t)
            .filter(|f| f.status() == Status::Pending)
            .and_then(|f| Some((f, f.task.as_ref()?)))
            .filter(|(_, data)| data.log_destroy_pending.get())
        else {
            continue;
        };
        data.log_destroy_pending.set(false);
        let shown = vm
            .repr(&t)
            .unwrap_or_else(|_| format!("{}>", task::repr_head(fut, "pending")));
        let report = reports::Report {
            header: "Task was destroyed but it is pending!",
            context: format!("task: {shown}"),
            exception: None,
            note: task::explain_destroyed_pending(fut),
            event_loop: fut.event_loop().into_owned(),
            subject: Some(("task", t.clone())),
        };
        reports::print(vm, report);
        coroutines.extend(task::task_coro(&t));
        loops.push(fut.event_loop().into_owned());
    }
    for coroutine in &coroutines {
        vm.collect_generator(coroutine);
    }
    // The collector then frees the loop↔task cycles: a task that never started goes with
    // its loop's queue, and with it what it was to run ("never awaited").
    for l in loops.iter().filter_map(event_loop::as_loop) {
        event_loop::discard_scheduled(l);
    }
}

fn loop_arg(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> Option<Value> {
    let _ = vm;
    args.first().cloned().or_else(|| kwarg(kw, "loop"))
}

fn ensure_future(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    check_kwargs(vm, "ensure_future", kw, &["loop"])?;
    crate::vm::args::check_arity(vm, "ensure_future", args, 1, 1)?;
    task::ensure_future(vm, args[0].clone(), kwarg(kw, "loop"))
}

fn create_task(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    check_kwargs(vm, "create_task", kw, &["name", "context"])?;
    crate::vm::args::check_arity(vm, "create_task", args, 1, 1)?;
    let l = event_loop::running_loop(vm)?;
    // `loop.create_task(coro, name=name[, context=context])`.
    let (name, context) = (kwarg(kw, "name"), kwarg(kw, "context"));
    event_loop::ask_create_task(vm, &l, args[0].clone(), (name, true), context)
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

/// The apy half of the module (DESIGN.md decision 3): file name and source, each run in the
/// module's namespace in this order, because each file may use what the ones before it
/// define when it runs (a later file's functions may use anything, once all have run):
/// - `__init__` first: `_GatheringFuture`, the loop's shutdown coroutines — the core the
///   others call;
/// - `runners` (`run`, `Runner`), `locks`, `queues`, `timeouts`;
/// - `taskgroups`, then `tasks` (`sleep`, `wait_for`; `wait` and `as_completed` use
///   `Queue`);
/// - `graph` last: `print_call_graph` reads tasks and futures only.
///
/// A new file goes after everything it uses at import time.
const LIBRARY: [(&str, &str); 9] = [
    ("asyncio/__init__.py", include_str!("lib/asyncio.apy")),
    ("asyncio/events.py", include_str!("lib/events.apy")),
    ("asyncio/runners.py", include_str!("lib/runners.apy")),
    ("asyncio/locks.py", include_str!("lib/locks.apy")),
    ("asyncio/queues.py", include_str!("lib/queues.apy")),
    ("asyncio/timeouts.py", include_str!("lib/timeouts.apy")),
    ("asyncio/taskgroups.py", include_str!("lib/taskgroups.apy")),
    ("asyncio/tasks.py", include_str!("lib/tasks.apy")),
    ("asyncio/graph.py", include_str!("lib/graph.apy")),
];

/// The module's `__getattr__`, which loads the protocols, transports, streams and
/// subprocesses on first use, and the streams' errors.
#[cfg(not(target_arch = "wasm32"))]
fn streams(vm: &mut Vm) -> Vec<(&'static str, Value)> {
    let mut streams = io::lazy_names(vm);
    streams.extend(io::stream_errors(vm));
    streams
}

/// In a browser there are no sockets or processes, so no transports or streams (src/web.rs).
#[cfg(target_arch = "wasm32")]
fn streams(_: &mut Vm) -> Vec<(&'static str, Value)> {
    Vec::new()
}

/// The module CPython's counterpart of each of the module's natives is in, which is their
/// `__module__` (and keys their docs, `vm::native_docs`): `_asyncio`'s are natives there
/// too; the others CPython writes in Python.
const NATIVE_HOMES: [(&str, &str); 13] = [
    ("get_running_loop", "_asyncio"),
    ("_get_running_loop", "_asyncio"),
    ("get_event_loop", "_asyncio"),
    ("current_task", "_asyncio"),
    ("all_tasks", "asyncio.tasks"),
    ("ensure_future", "asyncio.tasks"),
    ("create_task", "asyncio.tasks"),
    ("gather", "asyncio.tasks"),
    ("run_coroutine_threadsafe", "asyncio.tasks"),
    ("iscoroutine", "asyncio.coroutines"),
    ("isfuture", "asyncio.base_futures"),
    ("wrap_future", "asyncio.futures"),
    ("to_thread", "asyncio.threads"),
];

/// The natives of the loop's methods a subclass may replace, in the order of
/// `loop_subclass::Method`.
static LOOP_NATIVES: [NativeFn; loop_subclass::METHODS] = [
    scheduling::call_soon,
    scheduling::call_at,
    event_loop::loop_create_task,
    event_loop::loop_run_forever,
    event_loop::loop_stop,
    event_loop::loop_call_exception_handler,
    event_loop::loop_default_exception_handler,
];

/// `_UnixSelectorEventLoop.__new__(cls)`: a new loop of `cls`, the loop's class or a
/// subclass of it (whose `__init__` then runs).
fn loop_new(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    let base = rt(vm).types.event_loop.clone();
    let class = match args.first() {
        Some(Value::Type(class)) => class.clone(),
        _ => base.clone(),
    };
    if !class.is_subtype(&base) {
        let (name, base) = (class.name(), base.name());
        return Err(vm.type_error(format!(
            "{base}.__new__({name}): {name} is not a subtype of {base}"
        )));
    }
    Ok(event_loop::new_loop_of(vm, class))
}

/// Builds the `asyncio` module: the native core, then the library run in its namespace.
pub fn module(vm: &mut Vm) -> Value {
    // Its submodules become importable with it (a program without asyncio pays nothing).
    submodules::register(vm);
    event_loop::reset();
    let runtime = rt(vm);
    loop_subclass::know_natives(&LOOP_NATIVES);
    construct::init_types(vm, &runtime.types.future, &runtime.types.task);
    vm.add_static(&runtime.types.event_loop, "__new__", loop_new);
    vm.add_method(
        &runtime.types.event_loop,
        "__init__",
        loop_subclass::loop_init,
    );
    asyncgens::init_types(vm, &runtime.types.event_loop);
    for (name, f) in scheduling::METHODS {
        vm.add_method(&runtime.types.event_loop, name, *f);
    }
    #[cfg(not(target_arch = "wasm32"))]
    io::init_type(vm, &runtime.types.event_loop);
    #[cfg(not(target_arch = "wasm32"))]
    for (name, f) in signals::METHODS {
        vm.add_method(&runtime.types.event_loop, name, *f);
    }
    threadsafe::init_type(vm, &runtime.types.event_loop);
    vm.threads.add_hook(threadsafe::thread_hook);
    let t = &runtime.types;
    let attrs = vec![
        ("Future", Value::Type(t.future.clone())),
        ("Task", Value::Type(t.task.clone())),
        (
            "AbstractEventLoop",
            Value::Type(t.abstract_event_loop.clone()),
        ),
        ("BaseEventLoop", Value::Type(t.base_event_loop.clone())),
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
            vm.native("get_event_loop", |vm, args, _| {
                crate::vm::args::check_arity(vm, "get_event_loop", args, 0, 0)?;
                event_loop::get_event_loop(vm)
            }),
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
        (
            "_tasks_to_cancel",
            vm.native("_tasks_to_cancel", task::tasks_to_cancel),
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
        // The parts that load on first use (transports, streams, …) answer through
        // the module's __getattr__.
        .chain(streams(vm))
        // So do the threads' (they load lib/threads.apy).
        .chain(threadsafe::stubs(vm))
        .collect::<Vec<_>>();
    for (name, value) in &attrs {
        if let Some((_, home)) = NATIVE_HOMES.iter().find(|(n, _)| n == name) {
            NativeFunction::place_in(value, &Rc::from(*home));
        }
    }
    let module = vm.new_module("asyncio", attrs);
    for (name, text) in LIBRARY {
        if let Err(message) = library::run(vm, &module, name, text) {
            crate::common::console::eprint(&format!(
                "apy: internal error in the asyncio library ({name}): {message}\n"
            ));
        }
    }
    module
}
