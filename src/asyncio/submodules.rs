//! CPython's asyncio is a package of submodules (`asyncio.events`, `asyncio.tasks`, ...)
//! whose names the package re-exports; apy's is one module. So that `from asyncio.events
//! import AbstractEventLoop` and `asyncio.exceptions.CancelledError` work, each submodule
//! CPython has with an `__all__` is a small library module of its own name holding the
//! asyncio names of that `__all__` (those apy has), made on its first import or first use
//! as an attribute of asyncio. (`asyncio.subprocess` is a fuller one, in `io.rs`.)

use crate::vm::value::Value;
use crate::vm::{PyResult, Vm};

/// One submodule's library module: its name, its file (as CPython names it) and its
/// source, which takes those of its names the asyncio module has and lists them in
/// `__all__`; after `also`, names it has outside `__all__`, each with the asyncio name it
/// is bound to there (`("BaseDefaultEventLoopPolicy", "_BaseDefaultEventLoopPolicy")`).
/// With `also` alone, the submodule has no `__all__` (as `asyncio.mixins`).
macro_rules! submodule {
    ($name:literal, $file:literal, [$($item:literal),+ $(,)?] $(, also $also:tt)?) => {
        submodule!(@module $name, $file, concat!(
            // (Those the asyncio module has here: the page's lacks the streams'.)
            "__all__ = tuple(_n for _n in (", $("'", $item, "', ",)+ ")\n",
            "                if hasattr(_asyncio, _n))\n",
            "globals().update({_n: getattr(_asyncio, _n) for _n in __all__})\n",
        ) $(, also $also)?)
    };
    ($name:literal, $file:literal, also $also:tt) => {
        submodule!(@module $name, $file, "", also $also)
    };
    (@module $name:literal, $file:literal, $exports:expr $(, also [$(($extra:literal, $from:literal)),+ $(,)?])?) => {
        (
            concat!("asyncio.", $name),
            concat!("asyncio/", $file, ".py"),
            concat!(
                "# asyncio.", $name, ": the names CPython's submodule exports, from apy's ",
                "asyncio module (src/asyncio/submodules.rs).\n",
                "import asyncio as _asyncio\n",
                $exports,
                $($($extra, " = _asyncio.", $from, "\n",)+)?
                "del _asyncio\n",
            ),
        )
    };
}

/// The submodules, their names read off CPython 3.13's `__all__`s (less those apy lacks:
/// the child watchers, `staggered_race`, `_register_task` and
/// friends, `SendfileNotAvailableError`, `BaseSelectorEventLoop`).
pub const SUBMODULES: &[(&str, &str, &str)] = &[
    submodule!("base_events", "base_events", ["BaseEventLoop", "Server"]),
    submodule!(
        "coroutines",
        "coroutines",
        ["iscoroutinefunction", "iscoroutine"],
        also[("_is_coroutine", "_is_coroutine")]
    ),
    submodule!(
        "events",
        "events",
        [
            "AbstractEventLoopPolicy",
            "AbstractEventLoop",
            "Handle",
            "TimerHandle",
            "get_event_loop_policy",
            "set_event_loop_policy",
            "get_event_loop",
            "set_event_loop",
            "new_event_loop",
            "get_running_loop",
            "_get_running_loop",
        ],
        also[("BaseDefaultEventLoopPolicy", "_BaseDefaultEventLoopPolicy")]
    ),
    submodule!(
        "exceptions",
        "exceptions",
        [
            "BrokenBarrierError",
            "CancelledError",
            "InvalidStateError",
            "TimeoutError",
            "IncompleteReadError",
            "LimitOverrunError",
        ]
    ),
    submodule!("futures", "futures", ["Future", "wrap_future", "isfuture"]),
    submodule!(
        "locks",
        "locks",
        [
            "Lock",
            "Event",
            "Condition",
            "Semaphore",
            "BoundedSemaphore",
            "Barrier",
        ]
    ),
    submodule!(
        "mixins",
        "mixins",
        also[("_LoopBoundMixin", "_LoopBoundMixin")]
    ),
    submodule!(
        "protocols",
        "protocols",
        [
            "BaseProtocol",
            "Protocol",
            "DatagramProtocol",
            "SubprocessProtocol",
            "BufferedProtocol",
        ]
    ),
    submodule!(
        "queues",
        "queues",
        [
            "Queue",
            "PriorityQueue",
            "LifoQueue",
            "QueueFull",
            "QueueEmpty",
            "QueueShutDown",
        ]
    ),
    submodule!("runners", "runners", ["Runner", "run"]),
    submodule!(
        "streams",
        "streams",
        [
            "StreamReader",
            "StreamWriter",
            "StreamReaderProtocol",
            "open_connection",
            "start_server",
            "open_unix_connection",
            "start_unix_server",
        ]
    ),
    submodule!("taskgroups", "taskgroups", ["TaskGroup"]),
    submodule!(
        "tasks",
        "tasks",
        [
            "Task",
            "create_task",
            "FIRST_COMPLETED",
            "FIRST_EXCEPTION",
            "ALL_COMPLETED",
            "wait",
            "wait_for",
            "as_completed",
            "sleep",
            "gather",
            "shield",
            "ensure_future",
            "run_coroutine_threadsafe",
            "current_task",
            "all_tasks",
            "create_eager_task_factory",
            "eager_task_factory",
        ]
    ),
    submodule!("threads", "threads", ["to_thread"]),
    submodule!("timeouts", "timeouts", ["Timeout", "timeout", "timeout_at"]),
    submodule!(
        "transports",
        "transports",
        [
            "BaseTransport",
            "ReadTransport",
            "WriteTransport",
            "Transport",
            "DatagramTransport",
            "SubprocessTransport",
        ]
    ),
    submodule!(
        "unix_events",
        "unix_events",
        ["SelectorEventLoop", "DefaultEventLoopPolicy", "EventLoop"]
    ),
];

/// The submodules with names of their own rather than asyncio's: its logger and its
/// constants.
const OWN_SUBMODULES: &[(&str, &str, &str)] = &[
    ("asyncio.log", "asyncio/log.py", include_str!("lib/log.apy")),
    (
        "asyncio.constants",
        "asyncio/constants.py",
        include_str!("lib/constants.apy"),
    ),
];

/// Makes each submodule importable under its dotted name (as `import asyncio` runs, which
/// `import asyncio.events` does first).
pub fn register(vm: &mut Vm) {
    for &(name, file, text) in SUBMODULES.iter().chain(OWN_SUBMODULES) {
        vm.register_library_module(name, file, text);
    }
}

/// The submodules whose `__all__`s make up the package's, in the order of CPython 3.13's
/// `asyncio/__init__.py` (unix_events last, as on a Unix).
const PACKAGE_ALL_FROM: &[&str] = &[
    "base_events",
    "coroutines",
    "events",
    "exceptions",
    "futures",
    "locks",
    "protocols",
    "runners",
    "queues",
    "streams",
    "subprocess",
    "tasks",
    "taskgroups",
    "timeouts",
    "threads",
    "transports",
    "unix_events",
];

/// `asyncio.__all__` (what `from asyncio import *` takes), made on first use: the
/// submodules' `__all__`s, each imported for it, concatenated as CPython's package does.
pub fn package_all(vm: &mut Vm) -> PyResult<Value> {
    let mut all = Vec::new();
    let key = vm.intern("__all__");
    for submodule in PACKAGE_ALL_FROM {
        let module = vm.import_module(&format!("asyncio.{submodule}"))?;
        let names = vm.get_attr(&module, &key)?;
        all.extend(vm.collect_iterable(&names)?);
    }
    Ok(Value::tuple(all))
}

/// The submodule that `asyncio.<attribute>` names, if it is one.
pub fn named(attribute: &str) -> Option<&'static str> {
    (SUBMODULES.iter().chain(OWN_SUBMODULES))
        .map(|(name, _, _)| *name)
        .find(|name| name.strip_prefix("asyncio.") == Some(attribute))
}
