//! How Futures and Tasks are made: `__new__` and `__init__` of `_asyncio.Future` and
//! `_asyncio.Task`. As in CPython, `__new__` of a subclass makes an object that no loop is
//! bound to yet (the C types' generic `tp_new`), and `__init__` binds it, on each call: to
//! a loop, and a task to a coroutine, a name and a context, with its first step scheduled.
//! So a subclass's `__init__` can call `super().__init__(...)`, and one that does not
//! leaves its object uninitialized. `Future(...)` and `Task(...)` themselves do both in
//! `__new__`, at once, and `type.__call__` then calls no `__init__`
//! (`PyType::init_in_new`): so `Future.__new__(Future)` called by hand gives a bound
//! future, where CPython's is not initialized.

use std::rc::Rc;

use super::event_loop::rt;
use super::future::{self, FutureObj, as_future};
use super::task::{self, TaskData, TaskInit};
use crate::vm::args::{Signature, kwarg};
use crate::vm::object::{KwArgs, PyType};
use crate::vm::value::Value;
use crate::vm::{Exc, PyResult, Vm};

/// `Future.__init__(self, *, loop=None)`, whose errors name `Future()`.
const FUTURE_INIT: Signature =
    Signature::keywords("Future", "Future", &["loop"], 0, 0).keyword_only(1);

/// `Task.__init__(self, coro, *, loop=None, name=None, context=None, eager_start=False)`.
const TASK_INIT: Signature = Signature::keywords(
    "Task",
    "Task",
    &["coro", "loop", "name", "context", "eager_start"],
    1,
    0,
)
.keyword_only(4);

/// `Future.__new__(cls, *args, **kwargs)`.
fn future_new(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let future_type = rt(vm).types.future.clone();
    if is_exactly(args, &future_type) {
        FUTURE_INIT.check(vm, &args[1..], kw)?;
        return future::new_future_called(vm, kwarg(kw, "loop"));
    }
    new_of(vm, &future_type, args, kw)
}

/// `Task.__new__(cls, *args, **kwargs)`.
fn task_new(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let task_type = rt(vm).types.task.clone();
    if is_exactly(args, &task_type) {
        let init = task_args(vm, &args[1..], kw)?;
        return task::new_task_called(vm, init);
    }
    new_of(vm, &task_type, args, kw)
}

/// Whether `__new__` was given `class` itself (not a subclass) as its `cls`.
fn is_exactly(args: &[Value], class: &Rc<PyType>) -> bool {
    matches!(args.first(), Some(Value::Type(cls)) if Rc::ptr_eq(cls, class))
}

/// `owner.__new__(cls, ...)` of a subclass `cls` of `owner` (Future or Task): an
/// uninitialized object of `cls`, a task when `cls` is a Task. The other arguments are
/// `__init__`'s: the object is made with the loop they name (or the running one), which
/// its `__init__` then most likely binds in place (`FutureObj::unbound`).
fn new_of(vm: &mut Vm, owner: &Rc<PyType>, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let cls = match args.first() {
        Some(Value::Type(cls)) if cls.is_subtype(owner) => cls,
        Some(Value::Type(cls)) => {
            let (o, c) = (vm.tp_name(owner), vm.tp_name(cls));
            return Err(vm.type_error(format!("{o}.__new__({c}): {c} is not a subtype of {o}")));
        }
        Some(other) => {
            return Err(vm.type_error(format!(
                "{}.__new__(X): X is not a type object ({})",
                vm.tp_name(owner),
                vm.object_type_name(other)
            )));
        }
        None => {
            let o = vm.tp_name(owner);
            return Err(vm.type_error(format!("{o}.__new__(): not enough arguments")));
        }
    };
    let runtime = rt(vm);
    let event_loop = match kwarg(kw, "loop") {
        Some(l) if !l.is_none() => l,
        _ => runtime.running_loop.borrow().clone(),
    };
    let task = cls.is_subtype(&runtime.types.task).then(TaskData::unbound);
    Ok(future::object_of(
        cls.clone(),
        FutureObj::unbound(event_loop, task),
    ))
}

/// `Future.__init__(self, *, loop=None)`.
fn future_init(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let Some(fut) = args.first().and_then(as_future) else {
        return Err(receiver_error(vm, args, "_asyncio.Future"));
    };
    FUTURE_INIT.check(vm, &args[1..], kw)?;
    future::init(vm, fut, kwarg(kw, "loop"))?;
    Ok(Value::None)
}

/// `Task.__init__(self, coro, *, loop=None, name=None, context=None, eager_start=False)`.
fn task_init(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let Some(task) = args
        .first()
        .filter(|v| as_future(v).is_some_and(|f| f.task.is_some()))
    else {
        return Err(receiver_error(vm, args, "_asyncio.Task"));
    };
    let init = task_args(vm, &args[1..], kw)?;
    task::init(vm, task, init)?;
    Ok(Value::None)
}

/// `Task.__init__`'s arguments (without self), checked.
fn task_args(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<TaskInit> {
    TASK_INIT.check(vm, args, kw)?;
    let coro = match args.first() {
        Some(coro) => coro.clone(),
        None => kwarg(kw, "coro").unwrap_or(Value::None),
    };
    let eager_start = match kwarg(kw, "eager_start") {
        Some(flag) => vm.truthy(&flag)?,
        None => false,
    };
    Ok(TaskInit {
        coro,
        event_loop: kwarg(kw, "loop"),
        name: kwarg(kw, "name"),
        context: kwarg(kw, "context"),
        eager_start,
    })
}

/// The TypeError of `owner.__init__` called on something else (or on nothing).
fn receiver_error(vm: &Vm, args: &[Value], owner: &str) -> Exc {
    match args.first() {
        Some(v) => vm.type_error(format!(
            "descriptor '__init__' requires a '{owner}' object but received a '{}'",
            vm.object_type_name(v)
        )),
        None => vm.type_error(format!(
            "descriptor '__init__' of '{owner}' object needs an argument"
        )),
    }
}

/// Gives Future and Task their `__new__` and `__init__`.
pub fn init_types(vm: &mut Vm, future: &Rc<PyType>, task: &Rc<PyType>) {
    future.init_in_new.set(true);
    task.init_in_new.set(true);
    vm.add_static(future, "__new__", future_new);
    vm.add_method(future, "__init__", future_init);
    vm.add_static(task, "__new__", task_new);
    vm.add_method(task, "__init__", task_init);
}
