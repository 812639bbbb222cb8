//! `asyncio.Task`, natively: a Future that drives a coroutine. `step` and `wakeup` follow
//! `Lib/asyncio/tasks.py`'s `__step`/`__wakeup` exactly (bare `yield` reschedules, a
//! blocking Future gets the wakeup as done callback, anything else is thrown back in as
//! RuntimeError), plus naming (`Task-N`), cancellation, `current_task`/`all_tasks` and
//! CPython's reprs. Runs the coroutine only through the VM's generator core.

use std::cell::Cell;
use std::rc::Rc;

use super::event_loop::{self, Ready, as_loop};
use super::event_loop::{Runtime, rt};
use super::future::{self, Callback, FutureObj, Status, as_future};
use crate::builtins::contextvars;
use crate::common::explain;
use crate::vm::args::Signature;

use crate::vm::frame::FrameResult;
use crate::vm::frame::GenKind;

use crate::vm::frame::as_generator;
use crate::vm::object::{KwArgs, Object, ObjectKind};
use crate::vm::value::{Value, ValueCell};
use crate::vm::{Exc, PyResult, Vm};

/// The Task-only part of a future. Its fields are cells, as `__init__` may bind the task
/// again, but for the coroutine it was made with (see `FutureObj::coro`).
pub struct TaskData {
    /// The coroutine it was made with (None for a subclass's task before `__init__`).
    pub(super) coro: Value,
    /// Set when an eager start finished the task: CPython lets the coroutine go then
    /// (`self._coro = None`), so `get_coro()` and the repr show none. (A finished
    /// coroutine has nothing left to run or free, so keeping it is invisible, and a
    /// `Value` here keeps the niche that fits a task in its allocation.)
    coro_released: Cell<bool>,
    /// A str, or `Int(n)` for an automatic `Task-n` not yet read (see `name_value`); None
    /// until `__init__` names the task.
    name: ValueCell,
    fut_waiter: ValueCell,
    must_cancel: Cell<bool>,
    num_cancels_requested: Cell<u32>,
    pub log_destroy_pending: Cell<bool>,
    /// `--explain` only: whether a cancellation reached the coroutine as CancelledError.
    cancel_delivered: Cell<bool>,
    /// The Context every step runs in: a copy of the creator's, or the `context=` given.
    /// Null stands for a copy of an empty context that nothing has looked at yet: most
    /// tasks never use contextvars, so the object is made only when needed
    /// (`context_value`, or `keep_context` after a step that set a variable).
    context: ValueCell,
}

impl TaskData {
    /// A new task's data: `coro` to run, named `name` (see `name_of`), in `context`
    /// (None: a fresh empty one).
    fn new(coro: Value, name: Value, context: Option<Value>) -> TaskData {
        TaskData {
            coro,
            coro_released: Cell::new(false),
            name: ValueCell::new(name),
            fut_waiter: ValueCell::new(Value::None),
            must_cancel: Cell::new(false),
            num_cancels_requested: Cell::new(0),
            log_destroy_pending: Cell::new(true),
            cancel_delivered: Cell::new(false),
            context: ValueCell::new(context.unwrap_or(Value::Null)),
        }
    }

    /// A task's data before `__init__` (what `Task.__new__` makes): no coroutine, no name,
    /// and nothing to report when freed.
    pub fn unbound() -> TaskData {
        let data = TaskData::new(Value::None, Value::None, None);
        data.log_destroy_pending.set(false);
        data
    }
}

/// The task's coroutine, as `_coro` has it: None once let go (or before `__init__`).
fn coro(fut: &FutureObj, data: &TaskData) -> Option<Value> {
    if data.coro_released.get() {
        return None;
    }
    Some(fut.coro().into_owned()).filter(|c| !c.is_none())
}

#[inline]
fn task_parts(v: &Value) -> Option<(&FutureObj, &TaskData)> {
    let fut = as_future(v)?;
    Some((fut, fut.task.as_ref()?))
}

fn this<'a>(vm: &Vm, v: &'a Value) -> PyResult<(&'a FutureObj, &'a TaskData)> {
    task_parts(v).ok_or_else(|| {
        vm.type_error(format!(
            "descriptor requires a '_asyncio.Task' object but received a '{}'",
            vm.type_name(v)
        ))
    })
}

pub fn is_coroutine(v: &Value) -> bool {
    as_generator(v).is_some_and(|g| g.kind == GenKind::Coroutine)
        || crate::vm::async_gen::is_agen_awaitable(v)
}

/// `coro` if it is a coroutine, else the TypeError of making a task of it.
#[inline]
fn check_coroutine(vm: &mut Vm, coro: &Value) -> PyResult<()> {
    match is_coroutine(coro) {
        true => Ok(()),
        false => Err(not_a_coroutine(vm, coro)),
    }
}

#[cold]
fn not_a_coroutine(vm: &mut Vm, coro: &Value) -> Exc {
    match vm.repr(coro) {
        Ok(shown) => vm.type_error(format!("a coroutine was expected, got {shown}")),
        Err(e) => e,
    }
}

/// A task's name: `name` made a str, or, when None, only the task's number, which
/// `name_value` makes the string `Task-n` of when it is first read, as
/// `_asynciomodule.c` does (most tasks are never asked their name).
#[inline]
fn name_of(vm: &mut Vm, runtime: &Runtime, name: Option<Value>) -> PyResult<Value> {
    Ok(match name {
        Some(n @ Value::Str(_)) => n,
        Some(n) if !n.is_none() => Value::Str(vm.str_of(&n)?),
        _ => {
            let n = runtime.task_counter.get() + 1;
            runtime.task_counter.set(n);
            Value::Int(i64::try_from(n).unwrap_or(i64::MAX))
        }
    })
}

/// `Task(coro, loop=loop, name=name, context=context)` as asyncio's natives make it
/// (`create_task` without a task factory): registers the task and schedules its first
/// step.
pub fn new_task(
    vm: &mut Vm,
    coro: Value,
    event_loop: Value,
    name: Option<Value>,
    context: Option<Value>,
) -> PyResult<Value> {
    check_coroutine(vm, &coro)?;
    let runtime = rt(vm);
    let task = made(
        vm,
        &runtime,
        (coro, event_loop.clone()),
        (name, context),
        None,
    )?;
    start_registered(vm, &runtime, &task, &event_loop, false, false)?;
    Ok(task)
}

/// What `Task.__init__` is given (`Task.__init__(coro, *, loop=None, name=None,
/// context=None, eager_start=False)`).
pub struct TaskInit {
    pub coro: Value,
    pub event_loop: Option<Value>,
    pub name: Option<Value>,
    pub context: Option<Value>,
    pub eager_start: bool,
}

/// `Task(...)` called on Task itself: what its `__new__` and `__init__` do, at once (the
/// task made bound to its loop and coroutine, as [`new_task`] makes it), in
/// `_asyncio.Task.__init__`'s order: the loop, the coroutine checked, then its start.
pub fn new_task_called(vm: &mut Vm, args: TaskInit) -> PyResult<Value> {
    let event_loop = match &args.event_loop {
        Some(l) if !l.is_none() => l.clone(),
        _ => event_loop::get_event_loop(vm)?,
    };
    let origin = future::origin(vm, &event_loop)?;
    check_coroutine(vm, &args.coro)?;
    let runtime = rt(vm);
    let task = made(
        vm,
        &runtime,
        (args.coro, event_loop.clone()),
        (args.name, args.context),
        origin,
    )?;
    let eager = eager_start(vm, args.eager_start, args.event_loop)?;
    start_registered(vm, &runtime, &task, &event_loop, eager, false)?;
    Ok(task)
}

/// A new Task bound to `coro` and `event_loop`, named `name` and with `context` (see
/// `name_of` and `contextvars::context_arg`), made where `origin` says (debug mode).
#[inline(always)]
fn made(
    vm: &mut Vm,
    runtime: &Runtime,
    (coro, event_loop): (Value, Value),
    (name, context): (Option<Value>, Option<Value>),
    origin: Option<Box<str>>,
) -> PyResult<Value> {
    let context = contextvars::context_arg(vm, context)?;
    let name = name_of(vm, runtime, name)?;
    let created_by = if explain::on() {
        creator_of(&event_loop)
    } else {
        None
    };
    let mut future = FutureObj::new(event_loop, Some(TaskData::new(coro, name, context)));
    let st = future.state.get_mut();
    st.set_created_at(origin);
    st.set_created_by(created_by);
    Ok(future::object_of(runtime.types.task.clone(), future))
}

/// `Task.__init__` on `task` (made by `Task.__new__`, or initialized before), as
/// `_asyncio.Task.__init__` does it: the future's part first (`future::init`), then the
/// coroutine checked (a task that is not given one is left pending and silent), the
/// task's own fields set, and its first step scheduled, or run at once for an eager start
/// on a running loop.
pub fn init(vm: &mut Vm, task: &Value, args: TaskInit) -> PyResult<()> {
    let Some((fut, data)) = task_parts(task) else {
        return Ok(());
    };
    // Only a task initialized before may be registered already.
    let maybe_registered = fut.is_initialized();
    future::init(vm, fut, args.event_loop.clone())?;
    if let Err(e) = check_coroutine(vm, &args.coro) {
        data.log_destroy_pending.set(false);
        return Err(e);
    }
    let context = contextvars::context_arg(vm, args.context)?;
    data.context.set(context.unwrap_or(Value::Null));
    data.fut_waiter.set(Value::None);
    data.must_cancel.set(false);
    data.log_destroy_pending.set(true);
    data.num_cancels_requested.set(0);
    data.cancel_delivered.set(false);
    future::bind_coro(fut, args.coro);
    data.coro_released.set(false);
    let runtime = rt(vm);
    data.name.set(name_of(vm, &runtime, args.name)?);
    let event_loop = fut.event_loop().into_owned();
    if explain::on() {
        fut.state
            .borrow_mut()
            .set_created_by(creator_of(&event_loop));
    }
    let eager = eager_start(vm, args.eager_start, args.event_loop)?;
    start_registered(vm, &runtime, task, &event_loop, eager, maybe_registered)
}

/// Registers `task` ([`register`]) and [`start`]s it, in `Task.__init__`'s order: an eager
/// task is registered before its first step runs, any other after that step is scheduled,
/// so that one whose `call_soon` failed is not among `all_tasks()` (nor cancelled when the
/// run ends).
fn start_registered(
    vm: &mut Vm,
    runtime: &Runtime,
    task: &Value,
    event_loop: &Value,
    eager: bool,
    maybe_registered: bool,
) -> PyResult<()> {
    if eager {
        register(runtime, task, maybe_registered);
    }
    start(vm, task, event_loop, eager)?;
    if !eager {
        register(runtime, task, maybe_registered);
    }
    Ok(())
}

/// Whether a task asked for an eager start (`eager_start`) starts eagerly: when
/// `loop.is_running()` of the loop given, as CPython asks it (so of None when none was).
#[inline]
fn eager_start(vm: &mut Vm, eager_start: bool, given: Option<Value>) -> PyResult<bool> {
    if !eager_start {
        return Ok(false);
    }
    given_loop_runs(vm, given.unwrap_or(Value::None))
}

/// `given.is_running()`.
fn given_loop_runs(vm: &mut Vm, given: Value) -> PyResult<bool> {
    if as_loop(&given).is_some() {
        return Ok(event_loop::is_running(&given));
    }
    let running = vm.call_method(&given, "is_running", &[])?;
    vm.truthy(&running)
}

/// Adds `task` to the tasks `all_tasks` knows, unless it is there already (which only a
/// task initialized again, `maybe_registered`, may be).
#[inline]
fn register(runtime: &Runtime, task: &Value, maybe_registered: bool) {
    let Value::Object(o) = task else {
        return;
    };
    let mut tasks = runtime.tasks.borrow_mut();
    if maybe_registered && tasks.iter().any(|w| std::ptr::eq(w.as_ptr(), &**o)) {
        return;
    }
    if tasks.len() >= 64 && tasks.len().is_power_of_two() {
        tasks.retain(|w| w.strong_count() > 0);
    }
    tasks.push(Rc::downgrade(o));
}

/// A task made or initialized on `event_loop`: its first step scheduled, or run now for
/// an eager start.
#[inline]
fn start(vm: &mut Vm, task: &Value, event_loop: &Value, eager: bool) -> PyResult<()> {
    super::trace::task_created(vm, task, event_loop);
    if eager {
        eager_step(vm, task, event_loop)
    } else {
        event_loop::schedule(vm, event_loop, Ready::Step(task.clone(), None))
    }
}

/// `Task.__eager_start` (3.12+): the task's first step runs now, inside the call that made
/// it, as the current task in place of its creator, and in its context; only if it is not
/// done after that step does the loop schedule the next.
fn eager_step(vm: &mut Vm, task: &Value, event_loop: &Value) -> PyResult<()> {
    let Some(l) = as_loop(event_loop) else {
        return Ok(());
    };
    let creator = std::mem::replace(&mut l.state.borrow_mut().current_task, Value::None);
    let outcome = match contextvars::enter(vm, context(task).as_ref()) {
        Ok(_entered) => {
            let outcome = step(vm, task, None);
            keep_context(task);
            // A task done at once lets its coroutine go (`self._coro = None`).
            if let Some((fut, data)) = task_parts(task)
                && fut.status() != Status::Pending
            {
                data.coro_released.set(true);
            }
            outcome
        }
        Err(e) => Err(e),
    };
    l.state.borrow_mut().current_task = creator;
    outcome
}

/// `ensure_future(obj, loop=loop)`: a future as is, a coroutine wrapped in a new task, any
/// other awaitable wrapped in a coroutine (`_wrap_awaitable`) and then in a task.
pub fn ensure_future(vm: &mut Vm, obj: Value, event_loop: Option<Value>) -> PyResult<Value> {
    if as_future(&obj).is_some() {
        if let Some(l) = event_loop.filter(|l| !l.is_none()) {
            let get_loop = vm.intern("get_loop");
            if !future::loop_of(vm, &obj, &get_loop)?.is(&l) {
                return Err(vm.value_error(
                    "The future belongs to a different loop than the one specified as the \
                     loop argument",
                ));
            }
        }
        return Ok(obj);
    }
    let obj = if !is_coroutine(&obj) && is_awaitable(vm, &obj) {
        wrap_awaitable(vm, obj)?
    } else {
        obj
    };
    if is_coroutine(&obj) {
        let event_loop = match event_loop {
            Some(l) if !l.is_none() => l,
            _ => event_loop::get_event_loop(vm)?,
        };
        // `loop.create_task(coro_or_future)`.
        return event_loop::ask_create_task(vm, &event_loop, obj, (None, false), None);
    }
    Err(vm.type_error("An asyncio.Future, a coroutine or an awaitable is required"))
}

/// The context a task's steps run in; None for a fresh empty one.
#[inline]
pub fn context(task: &Value) -> Option<Value> {
    task_parts(task).and_then(|(_, data)| context_of(data))
}

/// The task's context; None while it is a fresh empty one nothing has looked at.
fn context_of(data: &TaskData) -> Option<Value> {
    (!data.context.is_null()).then(|| data.context.get())
}

/// After a step that ran in a fresh empty context: if the step made that context (it set
/// a variable or asked for the current context), the task keeps it for its next steps.
pub fn keep_context(task: &Value) {
    if let Some((_, data)) = task_parts(task)
        && data.context.is_null()
        && let Some(made) = contextvars::current_if_made()
    {
        data.context.set(made);
    }
}

/// The task's Context object, made on first need: while the task's step runs, the
/// current context (which the step then goes on using), otherwise a new empty one.
fn context_value(vm: &mut Vm, task: &Value) -> Value {
    let Some((fut, data)) = task_parts(task) else {
        return Value::None;
    };
    if let Some(context) = context_of(data) {
        return context;
    }
    let event_loop = fut.event_loop();
    let stepping = as_loop(&event_loop).is_some_and(|l| l.state.borrow().current_task.is(task));
    let context = if stepping {
        contextvars::current_context(vm)
    } else {
        contextvars::empty_context(vm)
    };
    data.context.set(context.clone());
    context
}

/// `inspect.isawaitable`: a coroutine, a `types.coroutine` generator, or an object whose
/// class has `__await__`.
fn is_awaitable(vm: &Vm, v: &Value) -> bool {
    match as_generator(v) {
        Some(g) => g.is_awaitable(),
        None => crate::vm::types::lookup(vm.type_of(v), &vm.names.await_).is_some(),
    }
}

/// The library's `_wrap_awaitable(obj)`: a coroutine that awaits `obj`.
fn wrap_awaitable(vm: &mut Vm, obj: Value) -> PyResult<Value> {
    let Some(module) = vm.loaded_module("asyncio") else {
        return Err(vm.runtime_error("the asyncio library is not loaded"));
    };
    let name = vm.intern("_wrap_awaitable");
    let wrapper = vm.get_attr(&module, &name)?;
    vm.call(&wrapper, &[obj], &[])
}

fn is_cancelled_error(vm: &mut Vm, e: &Exc) -> bool {
    let ty = rt(vm).types.cancelled_error.clone();
    vm.exc_matches(e, &ty)
}

/// `Task.__step(exc)`.
pub fn step(vm: &mut Vm, task: &Value, exc: Option<Exc>) -> PyResult<()> {
    let Some((fut, data)) = task_parts(task) else {
        return Ok(());
    };
    if fut.status() != Status::Pending {
        let shown = vm.repr(task)?;
        let ty = rt(vm).types.invalid_state_error.clone();
        return Err(vm.new_exc(&ty, format!("_step(): already done: {shown}")));
    }
    let mut exc = exc;
    if data.must_cancel.get() {
        if !exc.as_ref().is_some_and(|e| is_cancelled_error(vm, e)) {
            exc = Some(future::make_cancelled_error(vm, fut));
        }
        data.must_cancel.set(false);
    }
    data.fut_waiter.set(Value::None);
    if explain::on() && exc.as_ref().is_some_and(|e| is_cancelled_error(vm, e)) {
        data.cancel_delivered
            .set(data.num_cancels_requested.get() > 0);
    }
    // (Those of a task bound again by `__init__` are read once, for the step.)
    let bound_again: (Value, Value);
    let (event_loop, coro) = match fut.own_binding() {
        Some(made_with) => made_with,
        None => {
            bound_again = (fut.event_loop().into_owned(), fut.coro().into_owned());
            (&bound_again.0, &bound_again.1)
        }
    };
    let Some(l) = as_loop(event_loop) else {
        return Ok(());
    };
    let previous = std::mem::replace(&mut l.state.borrow_mut().current_task, task.clone());
    if !previous.is_none() {
        l.state.borrow_mut().current_task = previous.clone();
        let (t, p) = (vm.repr(task)?, vm.repr(&previous)?);
        return Err(vm.runtime_error(format!(
            "Cannot enter into task {t} while another task {p} is being executed."
        )));
    }
    let outcome = run_and_handle_result(vm, (task, fut, data), (event_loop, coro), exc);
    l.state.borrow_mut().current_task = Value::None;
    super::record::step_end(vm, task);
    outcome
}

/// A task (its value, future and task parts) as a step handles it.
type Parts<'a> = (&'a Value, &'a FutureObj, &'a TaskData);

/// The body of a step of the task on `event_loop`: its coroutine run and the outcome
/// handled.
fn run_and_handle_result(
    vm: &mut Vm,
    (task, fut, data): Parts,
    (event_loop, coro): (&Value, &Value),
    exc: Option<Exc>,
) -> PyResult<()> {
    super::trace::task_step(vm, task, exc.as_ref());
    let outcome = match as_generator(coro) {
        Some(g) => match exc {
            None => vm.resume(g, Value::None, None),
            Some(e) => vm.gen_throw(g, e),
        },
        // `agen.aclose()` and its kin, scheduled by the async generator finalizer hook.
        None => match crate::vm::async_gen::step_awaitable(vm, coro, Value::None, exc) {
            Some(outcome) => outcome,
            None => return Ok(()),
        },
    };
    super::trace::task_outcome(vm, task, &outcome);
    match outcome {
        FrameResult::Returned(v) => {
            explain_swallowed_cancel(vm, fut, data);
            if data.must_cancel.get() {
                data.must_cancel.set(false);
                let msg = fut.state.borrow().cancel_message();
                future::cancel_future(vm, task, fut, msg)?;
            } else {
                future::set_result(vm, task, fut, v)?;
            }
        }
        FrameResult::Err(e) => {
            if vm.abort.is_some() {
                return Err(e);
            }
            if is_cancelled_error(vm, &e) {
                fut.state.borrow_mut().set_cancelled_exc(e);
                future::cancel_future(vm, task, fut, Value::None)?;
            } else if ends_the_program(vm, &e) {
                future::set_exception(vm, task, fut, Value::Object(e.clone()))?;
                return Err(e);
            } else {
                future::set_exception(vm, task, fut, Value::Object(e))?;
            }
        }
        FrameResult::Yielded(result) => handle_yield(vm, (task, fut, data), event_loop, result)?,
    }
    Ok(())
}

/// Whether `e` is a SystemExit or KeyboardInterrupt, which a task's step re-raises out of
/// the loop after setting it as the task's exception (`__step_run_and_handle_result`).
pub fn ends_the_program(vm: &Vm, e: &Exc) -> bool {
    vm.exc_matches(e, &vm.types.keyboard_interrupt) || vm.exc_matches(e, &vm.types.system_exit)
}

/// What a task on `event_loop` does with a value its coroutine yielded.
fn handle_yield(
    vm: &mut Vm,
    (task, fut, data): Parts,
    event_loop: &Value,
    result: Value,
) -> PyResult<()> {
    let reschedule = |vm: &mut Vm, exc: Option<Exc>| {
        event_loop::schedule(vm, event_loop, Ready::Step(task.clone(), exc))
    };
    if let Some(other) = as_future(&result) {
        let blocking = other.state.borrow().blocking;
        if !other.loop_is(event_loop) {
            let (t, r) = (vm.repr(task)?, vm.repr(&result)?);
            let e = vm.runtime_error(format!(
                "Task {t} got Future {r} attached to a different loop"
            ));
            reschedule(vm, Some(e))?;
        } else if blocking {
            if result.is(task) {
                let t = vm.repr(task)?;
                let e = vm.runtime_error(format!("Task cannot await on itself: {t}"));
                reschedule(vm, Some(e))?;
            } else {
                other.state.borrow_mut().blocking = false;
                future::add_callback(vm, &result, other, Callback::Wakeup(task.clone()))?;
                wait_on(vm, fut, data, &result)?;
            }
        } else {
            let e = yield_instead_of_yield_from(vm, task, &result)?;
            reschedule(vm, Some(e))?;
        }
        return Ok(());
    }
    if result.is_none() {
        reschedule(vm, None)?;
        return Ok(());
    }
    let blocking_name = vm.intern("_asyncio_future_blocking");
    let blocking = vm.get_attr_opt(&result, &blocking_name)?;
    if let Some(blocking) = blocking.filter(|b| !b.is_none()) {
        // A Future-like object of another implementation (duck typing, as tasks.py does).
        if vm.truthy(&blocking)? {
            vm.set_attr(&result, &blocking_name, Value::Bool(false))?;
            let wakeup = wakeup_callable(vm, task);
            let add = vm.intern("add_done_callback");
            let add = vm.get_attr(&result, &add)?;
            let context = (vm.intern("context"), context_value(vm, task));
            vm.call(&add, &[wakeup], &[context])?;
            wait_on(vm, fut, data, &result)?;
        } else {
            let e = yield_instead_of_yield_from(vm, task, &result)?;
            reschedule(vm, Some(e))?;
        }
        return Ok(());
    }
    let e = if as_generator(&result).is_some_and(|g| g.kind == GenKind::Generator) {
        let (t, r) = (vm.repr(task)?, vm.repr(&result)?);
        vm.runtime_error(format!(
            "yield was used instead of yield from for generator in task {t} with {r}"
        ))
    } else {
        let r = vm.repr(&result)?;
        vm.runtime_error(format!("Task got bad yield: {r}"))
    };
    reschedule(vm, Some(e))?;
    Ok(())
}

/// The task now waits on `result`; a cancellation requested before it got there goes on
/// to that future (`__step_run_and_handle_result`).
fn wait_on(vm: &mut Vm, fut: &FutureObj, data: &TaskData, result: &Value) -> PyResult<()> {
    data.fut_waiter.set(result.clone());
    if data.must_cancel.get() {
        let msg = fut.state.borrow().cancel_message();
        if cancel_any(vm, result, msg)? {
            data.must_cancel.set(false);
        }
    }
    Ok(())
}

/// The RuntimeError for a future yielded without its blocking flag set.
fn yield_instead_of_yield_from(vm: &mut Vm, task: &Value, result: &Value) -> PyResult<Exc> {
    let (t, r) = (vm.repr(task)?, vm.repr(result)?);
    Ok(vm.runtime_error(format!(
        "yield was used instead of yield from in task {t} with {r}"
    )))
}

/// `fut.cancel(msg=msg)` on a native or duck-typed future.
fn cancel_any(vm: &mut Vm, fut: &Value, msg: Value) -> PyResult<bool> {
    let future_type = rt(vm).types.future.clone();
    if let Some(f) = as_future(fut)
        && Rc::ptr_eq(vm.type_of(fut), &future_type)
    {
        return future::cancel_future(vm, fut, f, msg);
    }
    let cancel = vm.intern("cancel");
    let method = vm.get_attr(fut, &cancel)?;
    let key = vm.intern("msg");
    let r = vm.call(&method, &[], &[(key, msg)])?;
    vm.truthy(&r)
}

/// The task's wakeup as a Python callable (`functools.partial(wakeup, task)`).
fn wakeup_callable(vm: &mut Vm, task: &Value) -> Value {
    let func = vm.native("task_wakeup", |vm, args, _| {
        crate::vm::args::check_arity(vm, "task_wakeup", args, 2, 2)?;
        wakeup(vm, &args[0], &args[1])?;
        Ok(Value::None)
    });
    vm.bound_method(func, task.clone())
}

/// `loop.call_soon(callback, *args, context=context)` of a loop that replaces `call_soon`,
/// for what a future or a task asks the loop to run (`entry`), as CPython's `_asyncio`
/// asks it: a done callback as `callback(future)` in its context, a task's step as a
/// callable without arguments (its `TaskStepMethWrapper`) and its wakeup as `task_wakeup`
/// bound to the task, both in the task's context.
pub fn call_soon_of_loop(vm: &mut Vm, loop_value: &Value, entry: Ready) -> PyResult<()> {
    let (callback, arg, context) = match entry {
        Ready::Call(func, arg, context) => (func, Some(arg), context),
        Ready::Step(task, exc) => {
            let context = context_value(vm, &task);
            (step_callable(vm, task, exc), None, Some(context))
        }
        Ready::Wakeup(task, fut) => {
            let context = context_value(vm, &task);
            (wakeup_callable(vm, &task), Some(fut), Some(context))
        }
        Ready::Handle(_) => {
            event_loop::schedule_native(loop_value, entry);
            return Ok(());
        }
    };
    // No context: the callback runs in a fresh empty one.
    let context = match context {
        Some(context) => context,
        None => contextvars::empty_context(vm),
    };
    super::loop_subclass::call_soon(vm, loop_value, callback, arg, context)
}

/// What an `_asyncio.TaskStepMethWrapper` holds: the task to step, and the exception to
/// throw into its coroutine (None: a plain step).
struct StepWrapper {
    task: Value,
    exc: Value,
}

/// A task's step as a callable without arguments, `task.__step(exc)`: an
/// `_asyncio.TaskStepMethWrapper`, as CPython's task hands its loop.
fn step_callable(vm: &mut Vm, task: Value, exc: Option<Exc>) -> Value {
    let runtime = rt(vm);
    let class = match runtime.step_wrapper.get() {
        Some(class) => class.clone(),
        None => {
            let object = vm.types.object.clone();
            let class =
                super::classes::class_in(vm, "TaskStepMethWrapper", vec![object], "_asyncio");
            vm.add_method(&class, "__call__", call_step);
            runtime.step_wrapper.get_or_init(|| class).clone()
        }
    };
    let exc = exc.map_or(Value::None, Value::Object);
    Value::object(Object::new(
        class,
        ObjectKind::Other(Box::new(StepWrapper { task, exc })),
    ))
}

/// A task's step as the loop shows it: its TaskStepMethWrapper, and how "Exception in
/// callback …" names it.
pub fn shown_step(vm: &mut Vm, task: &Value) -> PyResult<(Value, String)> {
    let step = step_callable(vm, task.clone(), None);
    let shown = super::format_helpers::format_callback(vm, &step, &[], false)?;
    Ok((step, shown))
}

/// `call_exception_handler` for the step of `task` that raised `exc` (`_step(): already
/// done`, a loop subclass's `call_soon` that failed), as `Handle._run` reports what its
/// TaskStepMethWrapper raised, with the handle; unless the VM is stopping.
#[cold]
pub fn report_step_error(
    vm: &mut Vm,
    handler: &Value,
    loop_value: &Value,
    task: &Value,
    exc: Exc,
) -> PyResult<()> {
    if vm.abort.is_some() {
        return Err(exc);
    }
    let (step, shown) = shown_step(vm, task)?;
    let handle = event_loop::new_handle(vm, loop_value, step, vec![], None, None);
    let message = format!("Exception in callback {shown}");
    super::exception_handler::report_callback_error(
        vm,
        handler,
        loop_value,
        message,
        Some(handle),
        exc,
    )
}

/// `TaskStepMethWrapper.__call__()`: the step, with no arguments (CPython's messages).
fn call_step(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    if !kw.is_empty() {
        return Err(vm.type_error("function takes no keyword arguments"));
    }
    if args.len() > 1 {
        return Err(vm.type_error("function takes no positional arguments"));
    }
    let Some(wrapper) = args.first().and_then(|w| w.native::<StepWrapper>()) else {
        return Err(vm.type_error("TaskStepMethWrapper.__call__ needs a TaskStepMethWrapper"));
    };
    let task = wrapper.task.clone();
    let exc = match &wrapper.exc {
        Value::Object(e) => Some(e.clone()),
        _ => None,
    };
    step(vm, &task, exc)?;
    Ok(Value::None)
}

/// `Task.__wakeup(future)`: steps with the future's exception thrown in, or with nothing.
pub fn wakeup(vm: &mut Vm, task: &Value, fut: &Value) -> PyResult<()> {
    let outcome = match as_future(fut) {
        Some(f) => future::result(vm, f),
        None => vm.call_method(fut, "result", &[]),
    };
    match outcome {
        Ok(_) => step(vm, task, None),
        Err(e) if vm.abort.is_some() => Err(e),
        Err(e) => step(vm, task, Some(e)),
    }
}

/// `Task.cancel(msg)`: cancels the awaited future, or injects CancelledError at the next step.
fn task_cancel(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let msg = future::cancel_message(vm, args, kw)?;
    let (fut, data) = this(vm, &args[0])?;
    fut.state.borrow_mut().log_traceback = false;
    if fut.status() != Status::Pending {
        return Ok(Value::Bool(false));
    }
    super::trace::cancel_requested(vm, &args[0], &msg);
    data.num_cancels_requested
        .set(data.num_cancels_requested.get().saturating_add(1));
    let waiter = data.fut_waiter.get();
    if !waiter.is_none() && cancel_any(vm, &waiter, msg.clone())? {
        return Ok(Value::Bool(true));
    }
    data.must_cancel.set(true);
    fut.state.borrow_mut().set_cancel_message(msg);
    Ok(Value::Bool(true))
}

fn task_uncancel(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    Signature::no_args("Task", "uncancel").check(vm, &args[1..], kw)?;
    let (_, data) = this(vm, &args[0])?;
    let mut n = data.num_cancels_requested.get();
    if n > 0 {
        n -= 1;
        data.num_cancels_requested.set(n);
        if n == 0 {
            data.must_cancel.set(false);
        }
    }
    Ok(Value::Int(n.into()))
}

fn task_set_name(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    Signature::one("Task", "set_name").check(vm, &args[1..], kw)?;
    let name = match &args[1] {
        Value::Str(_) => args[1].clone(),
        other => Value::Str(vm.str_of(other)?),
    };
    this(vm, &args[0])?.1.name.set(name);
    Ok(Value::None)
}

/// `_format_coroutine`: `main() running at file:12` or `job() done, defined at file:3`.
/// `running_line` is where a running coroutine is (`Vm::running_line`), when known.
fn format_coroutine(coro: &Value, running_line: Option<u32>) -> String {
    let Some(g) = as_generator(coro) else {
        // `_format_coroutine` of a coroutine-like object such as `agen.aclose()`.
        return match coro {
            Value::Object(o) => format!("<{} without __name__>()", o.class.name()),
            _ => String::new(),
        };
    };
    let st = g.state.borrow();
    let code = &g.code.head;
    let filename = &code.filename;
    match (&st.frame, g.running.get()) {
        (Some(frame), _) => format!("{}() running at {filename}:{}", g.qualname, frame.line()),
        (None, true) => format!(
            "{}() running at {filename}:{}",
            g.qualname,
            running_line.unwrap_or(code.first_line)
        ),
        (None, false) => format!(
            "{}() done, defined at {filename}:{}",
            g.qualname, code.first_line
        ),
    }
}

/// `<Task STATUS name='…' coro=<…>`, without the closing `>`: what the reports about the
/// freed task `fut` show (no VM needed).
pub fn repr_head(fut: &FutureObj, status: &str) -> String {
    let Some(data) = &fut.task else {
        return String::new();
    };
    let coro = match coro(fut, data) {
        Some(coro) => format!(" coro=<{}>", format_coroutine(&coro, None)),
        None => String::new(),
    };
    format!("<Task {status} name='{}'{coro}", name_text(data))
}

fn task_repr(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    let (fut, data) = this(vm, &args[0])?;
    future::ensure_initialized(vm, fut)?;
    let mut info = future::repr_info(vm, fut)?;
    if data.num_cancels_requested.get() > 0 && fut.status() == Status::Pending {
        info[0] = "cancelling".into();
    }
    let name = name_value(data);
    info.insert(1, format!("name={}", vm.repr(&name)?));
    let waiter = data.fut_waiter.get();
    if !waiter.is_none() {
        let shown = vm.repr(&waiter)?;
        info.insert(2, format!("wait_for={shown}"));
    }
    if let Some(coro) = coro(fut, data) {
        let running_line = as_generator(&coro).and_then(|g| vm.running_line(g));
        info.insert(
            2,
            format!("coro=<{}>", format_coroutine(&coro, running_line)),
        );
    }
    let class = vm.type_name(&args[0]);
    Ok(Value::str(format!("<{class} {}>", info.join(" "))))
}

/// `Task-1, running main()`: the task running on `event_loop` now, for `--explain`.
fn creator_of(event_loop: &Value) -> super::reports::Creator {
    let current = as_loop(event_loop)?
        .state
        .try_borrow()
        .ok()?
        .current_task
        .clone();
    let (fut, data) = task_parts(&current)?;
    Some(format!("{}, running {}", name_text(data), coro_text(fut)).into())
}

fn name_text(data: &TaskData) -> String {
    match &data.name.get() {
        Value::Str(s) => s.as_str().to_string(),
        Value::Int(n) => format!("Task-{n}"),
        _ => String::new(),
    }
}

/// `task.get_name()`: the name, made from the task's number on first read and kept.
fn name_value(data: &TaskData) -> Value {
    let mut name = data.name.get();
    if let Value::Int(n) = name {
        name = Value::str(format!("Task-{n}"));
        data.name.set(name.clone());
    }
    name
}

/// `work()`: the task's coroutine (even once let go), for the `--explain` notes.
fn coro_text(fut: &FutureObj) -> String {
    as_generator(&fut.coro()).map_or(String::new(), |g| format!("{}()", g.qualname))
}

/// The `--explain` note for "Task was destroyed but it is pending!" about the task `fut`,
/// when notes are on.
pub fn explain_destroyed_pending(fut: &FutureObj) -> Option<String> {
    let data = fut.task.as_ref()?;
    explain::on().then(|| super::reports::destroyed_pending(&name_text(data), &coro_text(fut)))
}

/// The `--explain` note for "Task exception was never retrieved" about the task `fut`,
/// when notes are on.
pub fn explain_never_retrieved(
    fut: &FutureObj,
    created_by: Option<&str>,
    exc: &Exc,
) -> Option<String> {
    let data = fut.task.as_ref()?;
    explain::on().then(|| {
        super::reports::never_retrieved(
            &name_text(data),
            &coro_text(fut),
            &crate::vm::trace::describe(&Value::Object(exc.clone())),
            created_by,
        )
    })
}

/// A cancellation reached the coroutine, which returned normally without `uncancel()`.
fn explain_swallowed_cancel(vm: &mut Vm, fut: &FutureObj, data: &TaskData) {
    if explain::on() && data.cancel_delivered.get() && data.num_cancels_requested.get() > 0 {
        vm.flush_stdout();
        crate::common::console::eprint(&super::reports::swallowed_cancel(
            &name_text(data),
            &coro_text(fut),
        ));
    }
}

/// A task's name as a string (`Task-2`); None if `v` is not a task.
pub fn task_name(v: &Value) -> Option<String> {
    task_parts(v).map(|(_, data)| name_text(data))
}

/// `task.cancelling()`: cancellation requests not yet uncancelled (0 for a non-task).
pub fn cancelling(v: &Value) -> i64 {
    task_parts(v).map_or(0, |(_, data)| data.num_cancels_requested.get().into())
}

/// The coroutine a task drives; None if `v` is not a task or has let its coroutine go.
pub fn task_coro(v: &Value) -> Option<Value> {
    task_parts(v).and_then(|(fut, data)| coro(fut, data))
}

/// What a task's `__step` is waiting for (`_fut_waiter`): a future, or None.
pub fn waiting_for(v: &Value) -> Value {
    task_parts(v).map_or(Value::None, |(_, data)| data.fut_waiter.get())
}

/// One coroutine of a task's await chain, suspended at `line` of `file`.
pub struct Link {
    pub qualname: Rc<str>,
    pub file: Rc<str>,
    pub line: u32,
}

/// A task's await chain, outermost first: each suspended coroutine it goes through (the
/// last one yielded what the task waits for). At most 100 links.
pub fn await_chain(v: &Value) -> Vec<Link> {
    let mut links = Vec::new();
    let mut current = task_coro(v);
    while let Some(g) = current.as_ref().and_then(as_generator) {
        let Some(line) = g.state.borrow().frame.as_ref().map(|f| f.line()) else {
            break;
        };
        links.push(Link {
            qualname: g.qualname.clone(),
            file: g.code.head.filename.clone(),
            line,
        });
        if links.len() == 100 {
            break;
        }
        current = g.yield_from();
    }
    links
}

/// `asyncio.current_task(loop=None)`.
pub fn current_task(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    let l = match args.first() {
        Some(l) if !l.is_none() => l.clone(),
        _ => event_loop::running_loop(vm)?,
    };
    Ok(as_loop(&l).map_or(Value::None, |l| l.state.borrow().current_task.clone()))
}

/// `asyncio.all_tasks(loop=None)`: the loop's unfinished tasks, as a set.
pub fn all_tasks(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    let tasks = unfinished_tasks(vm, args)?;
    let set_type = vm.types.set.clone();
    vm.call_type(&set_type, &[Value::list(tasks)], &[])
}

/// `_tasks_to_cancel(loop)`: the loop's unfinished tasks as a list, in the order they were
/// made, for `asyncio.run` to cancel at its end. CPython cancels them in the order of
/// `all_tasks()`'s set, which follows their memory addresses; apy's addresses differ from
/// CPython's (and between a native run and one in a browser), so that order could not be
/// CPython's anyway, and the order they were made in is the same on every run.
pub fn tasks_to_cancel(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    Ok(Value::list(unfinished_tasks(vm, args)?))
}

/// The unfinished tasks of the loop `args[0]` (the running loop when None or absent), in
/// the order they were made.
fn unfinished_tasks(vm: &mut Vm, args: &[Value]) -> PyResult<Vec<Value>> {
    let l = match args.first() {
        Some(l) if !l.is_none() => l.clone(),
        _ => event_loop::running_loop(vm)?,
    };
    Ok(rt(vm)
        .live_tasks()
        .into_iter()
        .filter(|t| as_future(t).is_some_and(|f| f.loop_is(&l) && f.status() == Status::Pending))
        .collect())
}

/// `task._log_destroy_pending = False` done directly on a Task of the native class itself
/// (its attribute is the native getset, and it has no `__dict__`): true then; false for
/// anything else, which the caller sets through the attribute protocol.
pub fn stop_logging_destroy_pending(vm: &mut Vm, v: &Value) -> bool {
    let Value::Object(o) = v else {
        return false;
    };
    if !Rc::ptr_eq(&o.class, &rt(vm).types.task) {
        return false;
    }
    match task_parts(v) {
        Some((_, data)) => {
            data.log_destroy_pending.set(false);
            true
        }
        None => false,
    }
}

fn log_destroy_get(vm: &mut Vm, v: &Value) -> PyResult<Value> {
    Ok(Value::Bool(this(vm, v)?.1.log_destroy_pending.get()))
}

fn log_destroy_set(vm: &mut Vm, v: &Value, new: Value) -> PyResult<()> {
    let flag = vm.truthy(&new)?;
    this(vm, v)?.1.log_destroy_pending.set(flag);
    Ok(())
}

pub fn init_type(vm: &mut Vm, task: &Rc<crate::vm::object::PyType>) {
    vm.add_method(task, "cancel", task_cancel);
    vm.add_method(task, "uncancel", task_uncancel);
    // Only the task's coroutine decides its outcome (`_asyncio.Task` rejects these).
    vm.add_method(task, "set_result", |vm, a, kw| {
        Signature::one("Task", "set_result").check(vm, &a[1..], kw)?;
        Err(vm.runtime_error("Task does not support set_result operation"))
    });
    vm.add_method(task, "set_exception", |vm, a, kw| {
        Signature::one("Task", "set_exception").check(vm, &a[1..], kw)?;
        Err(vm.runtime_error("Task does not support set_exception operation"))
    });
    vm.add_method(task, "cancelling", |vm, a, kw| {
        Signature::no_args("Task", "cancelling").check(vm, &a[1..], kw)?;
        Ok(Value::Int(
            this(vm, &a[0])?.1.num_cancels_requested.get().into(),
        ))
    });
    vm.add_method(task, "get_name", |vm, a, kw| {
        Signature::no_args("Task", "get_name").check(vm, &a[1..], kw)?;
        Ok(name_value(this(vm, &a[0])?.1))
    });
    vm.add_method(task, "set_name", task_set_name);
    vm.add_method(task, "get_coro", |vm, a, kw| {
        Signature::no_args("Task", "get_coro").check(vm, &a[1..], kw)?;
        let (fut, data) = this(vm, &a[0])?;
        Ok(coro(fut, data).unwrap_or(Value::None))
    });
    vm.add_method(task, "__repr__", task_repr);
    vm.add_method(task, "get_context", |vm, a, kw| {
        Signature::no_args("Task", "get_context").check(vm, &a[1..], kw)?;
        this(vm, &a[0])?;
        Ok(context_value(vm, &a[0]))
    });
    vm.add_getset(
        task,
        "_log_destroy_pending",
        log_destroy_get,
        Some(log_destroy_set),
    );
}
