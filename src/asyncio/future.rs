//! `asyncio.Future`, natively: a pending/cancelled/finished state, a result or exception,
//! and done callbacks scheduled on the loop in registration order. Mirrors
//! `Lib/asyncio/futures.py` (and the C `_asyncio.Future`, whose messages it uses); `Task`
//! extends it (see `task.rs`). Knows the loop only through `event_loop::schedule`.

use std::borrow::Cow;
use std::cell::{Cell, RefCell};
use std::rc::Rc;

use super::event_loop::rt;
use super::event_loop::{self, Ready};
use super::reports::Creator;
use super::task::TaskData;
use crate::vm::args::{Signature, check_kwargs, kwarg};

use crate::vm::dict::StrKeys;
use crate::vm::frame::FrameResult;
use crate::vm::object::{KwArgs, Object, ObjectKind, PyType};
use crate::vm::types::ClassMemo;
use crate::vm::value::{PyStr, Value};
use crate::vm::{Exc, PyResult, Vm};

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Status {
    Pending,
    Cancelled,
    Finished,
}

impl Status {
    pub fn name(self) -> &'static str {
        match self {
            Status::Pending => "pending",
            Status::Cancelled => "cancelled",
            Status::Finished => "finished",
        }
    }
}

/// A done callback: a Python callable called with the future in the context captured
/// when it was added (None: a fresh empty one), or a task's wakeup.
#[derive(Clone)]
pub enum Callback {
    Py(Value, Option<Value>),
    Wakeup(Value),
}

impl Callback {
    /// The loop entry that runs this callback for the finished future `fut`.
    fn into_ready(self, fut: &Value) -> Ready {
        match self {
            Callback::Py(f, context) => Ready::Call(f, fut.clone(), context),
            Callback::Wakeup(task) => Ready::Wakeup(task, fut.clone()),
        }
    }
}

/// Done callbacks in registration order. The first is kept inline: most futures get exactly
/// one (the wakeup of the task awaiting it), and then need no allocation for it; the others
/// go to a vector made for the second, so that a future pays one word, not three, for it.
#[derive(Clone, Default)]
pub struct Callbacks {
    /// None only while `rest` is None too.
    first: Option<Callback>,
    #[allow(clippy::box_collection)]
    rest: Option<Box<Vec<Callback>>>,
}

impl Callbacks {
    pub fn push(&mut self, cb: Callback) {
        if self.first.is_none() {
            self.first = Some(cb);
        } else {
            self.rest.get_or_insert_default().push(cb);
        }
    }

    pub fn retain(&mut self, keep: impl FnMut(&Callback) -> bool) {
        let all = std::mem::take(self);
        for cb in all.into_iter().filter(keep) {
            self.push(cb);
        }
    }

    pub fn iter(&self) -> impl Iterator<Item = &Callback> {
        self.first
            .iter()
            .chain(self.rest.iter().flat_map(|rest| rest.iter()))
    }

    pub fn is_empty(&self) -> bool {
        self.first.is_none()
    }
}

impl IntoIterator for Callbacks {
    type Item = Callback;
    type IntoIter = std::iter::Chain<std::option::IntoIter<Callback>, std::vec::IntoIter<Callback>>;

    fn into_iter(self) -> Self::IntoIter {
        self.first
            .into_iter()
            .chain(self.rest.map_or_else(Vec::new, |rest| *rest))
    }
}

pub struct FutState {
    pub status: Status,
    pub result: Value,
    pub exception: Option<Exc>,
    pub callbacks: Callbacks,
    /// What few futures have (None: nothing of it set yet). Boxed: most futures are never
    /// cancelled, and have no origin kept.
    rare: Option<Box<Rare>>,
    /// `_asyncio_future_blocking`: set while a coroutine awaits this future.
    pub blocking: bool,
    /// An exception nobody retrieved yet ("exception was never retrieved").
    pub log_traceback: bool,
}

/// The rare part of a future's state: what a cancellation left, and where the future
/// came from when that is kept (debug mode, `--explain`).
struct Rare {
    /// The message of a cancellation (`_cancel_message`).
    cancel_message: Value,
    /// For a task, the CancelledError that cancelled it, re-raised by `result()`
    /// (`_cancelled_exc`).
    cancelled_exc: Option<Exc>,
    /// Where `Future()` or `Task()` was called, in debug mode (`_source_traceback[-1]`).
    /// Futures and tasks that asyncio's natives make (`create_future`, `create_task`)
    /// have none: CPython's point into its library.
    created_at: Option<Box<str>>,
    /// `--explain` only: the task that created this task.
    created_by: Creator,
    /// The loop an `__init__` bound the future to, when it is not the one it was made
    /// with (`Binding::Rebound`).
    bound_loop: Value,
    /// The coroutine an `__init__` bound a task to, when it is not the one it was made
    /// with.
    bound_coro: Option<Value>,
}

impl Default for Rare {
    fn default() -> Rare {
        Rare {
            cancel_message: Value::None,
            cancelled_exc: None,
            created_at: None,
            created_by: None,
            bound_loop: Value::None,
            bound_coro: None,
        }
    }
}

impl FutState {
    fn new() -> FutState {
        FutState {
            status: Status::Pending,
            result: Value::None,
            exception: None,
            callbacks: Callbacks::default(),
            rare: None,
            blocking: false,
            log_traceback: false,
        }
    }

    pub fn cancel_message(&self) -> Value {
        self.rare
            .as_ref()
            .map_or(Value::None, |r| r.cancel_message.clone())
    }

    pub fn set_cancel_message(&mut self, message: Value) {
        if message.is_none() && self.rare.is_none() {
            return;
        }
        self.rare.get_or_insert_default().cancel_message = message;
    }

    pub fn set_cancelled_exc(&mut self, exc: Exc) {
        self.rare.get_or_insert_default().cancelled_exc = Some(exc);
    }

    fn take_cancelled_exc(&mut self) -> Option<Exc> {
        self.rare.as_mut().and_then(|r| r.cancelled_exc.take())
    }

    /// Keeps where the future was made (debug mode), if known.
    pub fn set_created_at(&mut self, place: Option<Box<str>>) {
        if place.is_some() {
            self.rare.get_or_insert_default().created_at = place;
        }
    }

    /// Keeps which task created this one (`--explain`), if known.
    pub fn set_created_by(&mut self, creator: Creator) {
        if creator.is_some() {
            self.rare.get_or_insert_default().created_by = creator;
        }
    }

    fn created_by(&self) -> Option<&str> {
        self.rare.as_ref()?.created_by.as_deref()
    }
}

/// What a future is bound to: its loop, and a task's coroutine. `__init__` binds them, on
/// each call; most futures and tasks are made bound once and for all, and the hot paths
/// borrow their loop and coroutine from the object then.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Binding {
    /// Not initialized: made by `__new__` of a subclass (as `_asyncio`'s generic `tp_new`
    /// does), before its `__init__`, or left so by an `__init__` that failed early.
    Unbound,
    /// To the loop (and coroutine) the object was made with.
    Own,
    /// By an `__init__`, to another loop or coroutine: those in `Rare`.
    Rebound,
}

/// The payload of a Future or Task object.
pub struct FutureObj {
    /// The loop it was made with, which it is bound to while `Binding::Own`. `__new__`
    /// puts the running loop (or the `loop=` given) here, as `__init__` will most likely
    /// bind that one.
    event_loop: Value,
    binding: Cell<Binding>,
    pub state: RefCell<FutState>,
    /// Some for a Task.
    pub task: Option<TaskData>,
}

// A task's whole state in one 192-byte glibc chunk (184 bytes and the chunk's header).
const _: () = assert!(std::mem::size_of::<FutureObj>() <= 184);

impl FutureObj {
    /// A future bound to `event_loop` (a task to its coroutine) for good.
    pub fn new(event_loop: Value, task: Option<TaskData>) -> FutureObj {
        FutureObj {
            event_loop,
            binding: Cell::new(Binding::Own),
            state: RefCell::new(FutState::new()),
            task,
        }
    }

    /// A future that no `__init__` has bound yet, made with the loop (and a task with the
    /// coroutine) its `__init__` will likely bind.
    pub fn unbound(event_loop: Value, task: Option<TaskData>) -> FutureObj {
        let fut = FutureObj::new(event_loop, task);
        fut.binding.set(Binding::Unbound);
        fut
    }

    pub fn status(&self) -> Status {
        self.state.borrow().status
    }

    /// The loop the future is bound to (`_loop`); None while it is not initialized.
    #[inline]
    pub fn event_loop(&self) -> Cow<'_, Value> {
        match self.binding.get() {
            Binding::Own => Cow::Borrowed(&self.event_loop),
            Binding::Unbound => Cow::Owned(Value::None),
            Binding::Rebound => Cow::Owned(self.rare(|r| r.bound_loop.clone())),
        }
    }

    /// Whether the future is bound to `event_loop`.
    #[inline]
    pub fn loop_is(&self, event_loop: &Value) -> bool {
        match self.binding.get() {
            Binding::Own => self.event_loop.is(event_loop),
            Binding::Unbound => false,
            Binding::Rebound => self.rare(|r| r.bound_loop.is(event_loop)),
        }
    }

    /// Whether `__init__` (or a native constructor) bound a loop (`future_is_alive`).
    pub fn is_initialized(&self) -> bool {
        self.binding.get() != Binding::Unbound
    }

    /// A task's loop and coroutine, borrowed, while it is bound to those it was made with.
    #[inline]
    pub fn own_binding(&self) -> Option<(&Value, &Value)> {
        let data = self.task.as_ref()?;
        (self.binding.get() == Binding::Own).then_some((&self.event_loop, &data.coro))
    }

    /// A task's coroutine as bound (None before `__init__`, and for a future).
    #[inline]
    pub fn coro(&self) -> Cow<'_, Value> {
        let Some(data) = &self.task else {
            return Cow::Owned(Value::None);
        };
        if self.binding.get() == Binding::Own {
            return Cow::Borrowed(&data.coro);
        }
        let st = self.state.borrow();
        let bound = st.rare.as_ref().and_then(|r| r.bound_coro.clone());
        bound.map_or(Cow::Borrowed(&data.coro), Cow::Owned)
    }

    /// What `read` reads of the rare part of the state (of its default when there is none).
    fn rare<R>(&self, read: impl FnOnce(&Rare) -> R) -> R {
        match &self.state.borrow().rare {
            Some(rare) => read(rare),
            None => read(&Rare::default()),
        }
    }

    /// Binds the future to `event_loop`, and a task to `coro` as well when Some (else it
    /// keeps its coroutine): in place when they are the ones it was made with.
    fn bind(&self, event_loop: Value, coro: Option<Value>) {
        let st = &mut *self.state.borrow_mut();
        if let (Some(coro), Some(data)) = (coro, &self.task) {
            if coro.is(&data.coro) {
                if let Some(rare) = &mut st.rare {
                    rare.bound_coro = None;
                }
            } else {
                st.rare.get_or_insert_default().bound_coro = Some(coro);
            }
        }
        let own_coro = st.rare.as_ref().is_none_or(|r| r.bound_coro.is_none());
        if own_coro && event_loop.is(&self.event_loop) {
            if let Some(rare) = &mut st.rare {
                rare.bound_loop = Value::None;
            }
            self.binding.set(Binding::Own);
        } else {
            st.rare.get_or_insert_default().bound_loop = event_loop;
            self.binding.set(Binding::Rebound);
        }
    }

    fn created_at(&self) -> Option<Box<str>> {
        self.rare(|r| r.created_at.clone())
    }

    /// This future's contents taken over by a new object (this one is being freed), as
    /// CPython's `__del__` brings `self` back to hand it to the exception handler: a Task
    /// or a Future, without the freed one's subclass or `__dict__`. None once the asyncio
    /// runtime is gone.
    fn revive(&mut self) -> Option<Value> {
        let runtime = event_loop::current_runtime()?;
        let ty = match self.task {
            Some(_) => runtime.types.task.clone(),
            None => runtime.types.future.clone(),
        };
        let revived = FutureObj {
            event_loop: self.event_loop.clone(),
            binding: self.binding.clone(),
            state: RefCell::new(std::mem::replace(self.state.get_mut(), FutState::new())),
            task: self.task.take(),
        };
        Some(Value::object(Object::new(
            ty,
            ObjectKind::Other(Box::new(revived)),
        )))
    }

    /// Queues "Task was destroyed but it is pending!" when `destroyed_pending`, and
    /// "exception was never retrieved" when an exception was not.
    #[cold]
    fn report(&mut self, destroyed_pending: bool) {
        let event_loop = self.event_loop().into_owned();
        if destroyed_pending {
            super::reports::queue(super::reports::Report {
                header: "Task was destroyed but it is pending!",
                context: format!("task: {}>", super::task::repr_head(self, "pending")),
                exception: None,
                note: super::task::explain_destroyed_pending(self),
                event_loop: event_loop.clone(),
                subject: None,
            });
        }
        let st = self.state.get_mut();
        if !st.log_traceback {
            return;
        }
        let Some(exc) = st.exception.clone() else {
            return;
        };
        st.log_traceback = false;
        let created_by = st.created_by().map(str::to_string);
        let (header, head, note) = match &self.task {
            Some(_) => (
                "Task exception was never retrieved",
                super::task::repr_head(self, "finished"),
                super::task::explain_never_retrieved(self, created_by.as_deref(), &exc),
            ),
            None => (
                "Future exception was never retrieved",
                "<Future finished".to_string(),
                None,
            ),
        };
        super::reports::queue(super::reports::Report {
            header,
            context: format!("future: {head}"),
            exception: Some(exc),
            note,
            event_loop,
            subject: self.revive().map(|future| ("future", future)),
        });
    }
}

impl Drop for FutureObj {
    /// Queues "exception was never retrieved" / "destroyed but it is pending!".
    fn drop(&mut self) {
        let st = self.state.get_mut();
        let destroyed_pending = st.status == Status::Pending
            && self
                .task
                .as_ref()
                .is_some_and(|task| task.log_destroy_pending.get());
        if destroyed_pending || (st.log_traceback && st.exception.is_some()) {
            self.report(destroyed_pending);
        }
    }
}

/// The native future inside `v`, if `v` is a Future or Task.
pub fn as_future(v: &Value) -> Option<&FutureObj> {
    v.native::<FutureObj>()
}

/// The native future inside `v` when `v.name` is still `asyncio.Future`'s own method (not
/// overridden by a subclass or shadowed on the instance): a native caller may then do that
/// method's work directly.
pub fn with_own_method<'a>(v: &'a Value, name: &Rc<PyStr>) -> Option<&'a FutureObj> {
    let fut = as_future(v)?;
    let Value::Object(o) = v else {
        return None;
    };
    if is_plain(fut, o) || is_plain_task_inheriting(fut, o, name) {
        return Some(fut);
    }
    if o.attrs()
        .is_some_and(|t| t.borrow().get_str(name).is_some())
    {
        return None;
    }
    match crate::vm::types::lookup(&o.class, name) {
        Some(Value::Object(m)) => match &m.kind {
            ObjectKind::Native(n) if n.owner.as_deref() == Some("Future") => Some(fut),
            _ => None,
        },
        _ => None,
    }
}

thread_local! {
    static PLAIN_FUTURE: ClassMemo = const { ClassMemo::new() };
    static PLAIN_TASK: ClassMemo = const { ClassMemo::new() };
    static OWN_AWAIT: ClassMemo = const { ClassMemo::new() };
}

/// The native future inside `v` when it has every one of Future's own methods
/// ([`FUTURE_METHODS`], none overridden or shadowed): [`with_own_method`] for all of them
/// at once.
pub fn plain_future(v: &Value) -> Option<&FutureObj> {
    let fut = as_future(v)?;
    let Value::Object(o) = v else {
        return None;
    };
    is_plain(fut, o).then_some(fut)
}

fn is_plain(fut: &FutureObj, o: &Object) -> bool {
    // (A Task has methods of its own: it never passes.)
    fut.task.is_none()
        && o.attrs().is_none_or(|t| t.borrow().is_empty())
        && PLAIN_FUTURE.with(|memo| memo.passes(&o.class, keeps_future_methods))
}

/// A Task of a class that keeps the Future methods Task inherits ([`INHERITED_BY_TASK`],
/// none overridden or shadowed), asked for one of them: `gather` asks each child Task.
fn is_plain_task_inheriting(fut: &FutureObj, o: &Object, name: &PyStr) -> bool {
    fut.task.is_some()
        && inherited_by_task(name.as_str())
        && o.attrs().is_none_or(|t| t.borrow().is_empty())
        && PLAIN_TASK.with(|memo| memo.passes(&o.class, |c| keeps_methods(c, &INHERITED_BY_TASK)))
}

/// The methods of Future that Task does not override.
const INHERITED_BY_TASK: [&str; 7] = [
    "result",
    "exception",
    "done",
    "cancelled",
    "add_done_callback",
    "remove_done_callback",
    "get_loop",
];

/// Whether `name` is one of [`INHERITED_BY_TASK`] (a `match`, which compares lengths before
/// bytes: `gather` asks this of every child several times).
fn inherited_by_task(name: &str) -> bool {
    matches!(
        name,
        "result"
            | "exception"
            | "done"
            | "cancelled"
            | "add_done_callback"
            | "remove_done_callback"
            | "get_loop"
    )
}

/// Future's methods that natives may do the work of directly ([`with_own_method`]).
const FUTURE_METHODS: [&str; 11] = [
    "result",
    "exception",
    "done",
    "cancelled",
    "cancel",
    "set_result",
    "set_exception",
    "add_done_callback",
    "remove_done_callback",
    "get_loop",
    "_make_cancelled_error",
];

/// Whether `class` has every one of [`FUTURE_METHODS`] from `asyncio.Future` itself (true
/// of Future, not of Task, which has its own `cancel`, `set_result`, …).
fn keeps_future_methods(class: &PyType) -> bool {
    keeps_methods(class, &FUTURE_METHODS)
}

/// Whether `class` has each of `methods` from `asyncio.Future` itself.
fn keeps_methods(class: &PyType, methods: &[&str]) -> bool {
    methods.iter().all(
        |name| match crate::vm::types::lookup_uncached(class, &PyStr::new(*name)) {
            Some(Value::Object(m)) => {
                matches!(&m.kind, ObjectKind::Native(n) if n.owner.as_deref() == Some("Future"))
            }
            _ => false,
        },
    )
}

/// `futures._get_loop(fut)`: `fut.get_loop()` (`get_loop` is the name, interned), done
/// here when it is Future's own.
pub fn loop_of(vm: &mut Vm, fut: &Value, get_loop: &Rc<PyStr>) -> PyResult<Value> {
    match with_own_method(fut, get_loop) {
        Some(f) => {
            ensure_initialized(vm, f)?;
            Ok(f.event_loop().into_owned())
        }
        None => {
            let method = vm.get_attr(fut, get_loop)?;
            vm.call(&method, &[], &[])
        }
    }
}

fn this<'a>(vm: &Vm, v: &'a Value) -> PyResult<&'a FutureObj> {
    as_future(v).ok_or_else(|| {
        vm.type_error(format!(
            "descriptor requires a '_asyncio.Future' object but received a '{}'",
            vm.type_name(v)
        ))
    })
}

/// [`this`], initialized: else CPython's `ENSURE_FUTURE_ALIVE` error.
fn alive<'a>(vm: &Vm, v: &'a Value) -> PyResult<&'a FutureObj> {
    let fut = this(vm, v)?;
    ensure_initialized(vm, fut)?;
    Ok(fut)
}

/// Ok if `__init__` bound `fut` to a loop, else `ENSURE_FUTURE_ALIVE`'s RuntimeError.
pub fn ensure_initialized(vm: &Vm, fut: &FutureObj) -> PyResult<()> {
    match fut.is_initialized() {
        true => Ok(()),
        false => Err(not_initialized(vm)),
    }
}

#[cold]
fn not_initialized(vm: &Vm) -> Exc {
    vm.runtime_error("Future object is not initialized.")
}

fn invalid_state(vm: &mut Vm, msg: &str) -> Exc {
    let ty = rt(vm).types.invalid_state_error.clone();
    vm.new_exc(&ty, msg)
}

/// The object of class `class` (Future, Task or a subclass) whose payload is `fut`.
pub fn object_of(class: Rc<PyType>, fut: FutureObj) -> Value {
    Value::object(Object::new(class, ObjectKind::Other(Box::new(fut))))
}

/// `future_init`: `fut` made pending again, with nothing set, cancelled or called back,
/// and bound to `event_loop` (the current loop when None); in debug mode it keeps where it
/// was made. (A task keeps its coroutine, a subclass's instance its attributes.)
pub fn init(vm: &mut Vm, fut: &FutureObj, event_loop: Option<Value>) -> PyResult<()> {
    // All goes but a task's coroutine, until it is given another.
    let bound_coro = match fut.binding.replace(Binding::Unbound) {
        Binding::Own => None,
        _ => fut
            .state
            .borrow_mut()
            .rare
            .as_mut()
            .and_then(|r| r.bound_coro.take()),
    };
    let mut fresh = FutState::new();
    if bound_coro.is_some() {
        fresh.rare.get_or_insert_default().bound_coro = bound_coro;
    }
    drop(fut.state.replace(fresh));
    let event_loop = match event_loop {
        Some(l) if !l.is_none() => l,
        _ => event_loop::get_event_loop(vm)?,
    };
    fut.bind(event_loop.clone(), None);
    let origin = origin(vm, &event_loop)?;
    fut.state.borrow_mut().set_created_at(origin);
    Ok(())
}

/// Where the Python code making a future on `event_loop` is (`file:line`), when the loop
/// is in debug mode (`loop.get_debug()`, asked of any object but apy's loops).
pub fn origin(vm: &mut Vm, event_loop: &Value) -> PyResult<Option<Box<str>>> {
    let debug = match event_loop::loop_debug(event_loop) {
        Some(debug) => debug,
        None => {
            let debug = vm.call_method(event_loop, "get_debug", &[])?;
            vm.truthy(&debug)?
        }
    };
    Ok(debug
        .then(|| vm.call_site())
        .flatten()
        .map(String::into_boxed_str))
}

/// `Future(loop=loop)` called on Future itself: what its `__new__` and `__init__` do, at
/// once.
pub fn new_future_called(vm: &mut Vm, event_loop: Option<Value>) -> PyResult<Value> {
    let event_loop = match event_loop {
        Some(l) if !l.is_none() => l,
        _ => event_loop::get_event_loop(vm)?,
    };
    let origin = origin(vm, &event_loop)?;
    let mut fut = FutureObj::new(event_loop, None);
    fut.state.get_mut().set_created_at(origin);
    Ok(object_of(rt(vm).types.future.clone(), fut))
}

/// Binds the task `fut` (initialized by [`init`]) to the coroutine `coro`.
pub fn bind_coro(fut: &FutureObj, coro: Value) {
    fut.bind(fut.event_loop().into_owned(), Some(coro));
}

pub fn new_future(vm: &mut Vm, event_loop: Value) -> Value {
    let ty = rt(vm).types.future.clone();
    object_of(ty, FutureObj::new(event_loop, None))
}

/// `_make_cancelled_error`: the saved CancelledError, or a new one with the cancel message.
pub fn make_cancelled_error(vm: &mut Vm, fut: &FutureObj) -> Exc {
    let mut st = fut.state.borrow_mut();
    if let Some(exc) = st.take_cancelled_exc() {
        return exc;
    }
    let msg = st.cancel_message();
    drop(st);
    let ty = rt(vm).types.cancelled_error.clone();
    if msg.is_none() {
        vm.new_exc_args(&ty, vec![])
    } else {
        vm.new_exc_args(&ty, vec![msg])
    }
}

/// Schedules every done callback with `call_soon`, in registration order; a `call_soon`
/// of the loop's subclass that fails leaves the rest unscheduled, as in CPython.
fn schedule_callbacks(vm: &mut Vm, this_value: &Value, fut: &FutureObj) -> PyResult<()> {
    super::trace::future_done(vm, this_value);
    let callbacks = {
        let mut st = fut.state.borrow_mut();
        if st.callbacks.is_empty() {
            return Ok(());
        }
        std::mem::take(&mut st.callbacks)
    };
    let event_loop = fut.event_loop();
    for cb in callbacks {
        event_loop::schedule(vm, &event_loop, cb.into_ready(this_value))?;
    }
    Ok(())
}

/// The error of setting or cancelling `fut` when it is not pending, or not initialized
/// (which it then is).
#[cold]
fn not_pending(vm: &mut Vm, fut: &FutureObj) -> Exc {
    match fut.is_initialized() {
        true => invalid_state(vm, "invalid state"),
        false => not_initialized(vm),
    }
}

/// `Future.cancel(msg)` (also Task's `super().cancel()`).
pub fn cancel_future(
    vm: &mut Vm,
    this_value: &Value,
    fut: &FutureObj,
    msg: Value,
) -> PyResult<bool> {
    ensure_initialized(vm, fut)?;
    {
        let mut st = fut.state.borrow_mut();
        st.log_traceback = false;
        if st.status != Status::Pending {
            return Ok(false);
        }
        st.status = Status::Cancelled;
        st.set_cancel_message(msg);
    }
    schedule_callbacks(vm, this_value, fut)?;
    Ok(true)
}

pub fn set_result(vm: &mut Vm, this_value: &Value, fut: &FutureObj, v: Value) -> PyResult<()> {
    {
        let mut st = fut.state.borrow_mut();
        if st.status != Status::Pending || !fut.is_initialized() {
            drop(st);
            return Err(not_pending(vm, fut));
        }
        st.result = v;
        st.status = Status::Finished;
    }
    schedule_callbacks(vm, this_value, fut)
}

pub fn set_exception(vm: &mut Vm, this_value: &Value, fut: &FutureObj, exc: Value) -> PyResult<()> {
    if fut.status() != Status::Pending || !fut.is_initialized() {
        return Err(not_pending(vm, fut));
    }
    let exc = match exc {
        Value::Type(t) => vm.call_type(&t, &[], &[])?,
        other => other,
    };
    let exc = match &exc {
        Value::Object(o) if o.exc_data().is_some() => o.clone(),
        _ => return Err(vm.type_error("invalid exception object")),
    };
    // CPython keeps a RuntimeError instead, caused by the StopIteration.
    let exc = if vm.exc_matches(&exc, &vm.types.stop_iteration.clone()) {
        vm.new_exc_from(
            &vm.types.runtime_error.clone(),
            "StopIteration interacts badly with generators and cannot be raised into a Future",
            exc,
        )
    } else {
        exc
    };
    {
        let mut st = fut.state.borrow_mut();
        st.exception = Some(exc);
        st.status = Status::Finished;
        st.log_traceback = true;
    }
    schedule_callbacks(vm, this_value, fut)
}

/// `result()`: the value, the exception raised, or CancelledError.
pub fn result(vm: &mut Vm, fut: &FutureObj) -> PyResult<Value> {
    match fut.status() {
        Status::Cancelled => Err(make_cancelled_error(vm, fut)),
        Status::Pending => Err(pending_error(vm, fut, "Result is not set.")),
        Status::Finished => {
            let mut st = fut.state.borrow_mut();
            st.log_traceback = false;
            match &st.exception {
                Some(e) => Err(e.clone()),
                None => Ok(st.result.clone()),
            }
        }
    }
}

/// The InvalidStateError of asking a pending future for its outcome (`msg`), which
/// names the reason when `fut` is not initialized.
#[cold]
fn pending_error(vm: &mut Vm, fut: &FutureObj, msg: &str) -> Exc {
    match fut.is_initialized() {
        true => invalid_state(vm, msg),
        false => invalid_state(vm, "Future object is not initialized."),
    }
}

/// `add_done_callback` for native callers (on an initialized future): runs soon when
/// already done.
pub fn add_callback(
    vm: &mut Vm,
    this_value: &Value,
    fut: &FutureObj,
    cb: Callback,
) -> PyResult<()> {
    let done = fut.status() != Status::Pending;
    if done {
        return event_loop::schedule(vm, &fut.event_loop(), cb.into_ready(this_value));
    }
    fut.state.borrow_mut().callbacks.push(cb);
    Ok(())
}

/// The class whose method `v`'s is, as `_asyncio`'s METH_NOARGS and METH_O methods name
/// it in their errors ("Task.done() takes no arguments (1 given)").
fn owner(v: &Value) -> &'static str {
    match as_future(v).is_some_and(|f| f.task.is_some()) {
        true => "Task",
        false => "Future",
    }
}

/// The argument check of an `_asyncio` method that Argument Clinic hands its defining
/// class, `name(<positional>, /, *, <keywords>)`, whose messages name no class
/// ("exception() takes no arguments", "set_result() takes at most 1 argument (2 given)",
/// "add_done_callback() takes exactly 1 positional argument (0 given)"); `args` without
/// self.
pub fn check_clinic(
    vm: &Vm,
    name: &str,
    (positional, keywords): (usize, &[&str]),
    args: &[Value],
    kw: &KwArgs,
) -> PyResult<()> {
    let plural = |n: usize| if n == 1 { "" } else { "s" };
    let (given, most) = (args.len() + kw.len(), positional + keywords.len());
    if most == 0 && given > 0 {
        return Err(vm.type_error(format!("{name}() takes no arguments")));
    }
    if given > most {
        return Err(vm.type_error(format!(
            "{name}() takes at most {most} argument{} ({given} given)",
            plural(most)
        )));
    }
    if args.len() != positional {
        return Err(vm.type_error(format!(
            "{name}() takes exactly {positional} positional argument{} ({} given)",
            plural(positional),
            args.len()
        )));
    }
    check_kwargs(vm, name, kw, keywords)
}

/// `cancel(msg=None)`'s parameters, for Future and Task.
const CANCEL: Signature = Signature::keywords("Future", "cancel", &["msg"], 0, 0);

/// The `msg` that `cancel(msg=None)` was given (`args` with self), checked.
pub fn cancel_message(vm: &Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let slots = CANCEL.bind(vm, &args[1..], kw)?;
    Ok(slots.into_iter().next().flatten().unwrap_or(Value::None))
}

fn fut_result(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    Signature::no_args(owner(&args[0]), "result").check(vm, &args[1..], kw)?;
    let fut = this(vm, &args[0])?;
    result(vm, fut)
}

fn fut_exception(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    check_clinic(vm, "exception", (0, &[]), &args[1..], kw)?;
    let fut = this(vm, &args[0])?;
    exception(vm, fut)
}

/// `exception()`: the exception (marked retrieved) or None; CancelledError if cancelled.
pub fn exception(vm: &mut Vm, fut: &FutureObj) -> PyResult<Value> {
    match fut.status() {
        Status::Cancelled => Err(make_cancelled_error(vm, fut)),
        Status::Pending => Err(pending_error(vm, fut, "Exception is not set.")),
        Status::Finished => {
            let mut st = fut.state.borrow_mut();
            st.log_traceback = false;
            Ok(st.exception.clone().map_or(Value::None, Value::Object))
        }
    }
}

fn fut_done(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    Signature::no_args(owner(&args[0]), "done").check(vm, &args[1..], kw)?;
    Ok(Value::Bool(this(vm, &args[0])?.status() != Status::Pending))
}

fn fut_cancelled(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    Signature::no_args(owner(&args[0]), "cancelled").check(vm, &args[1..], kw)?;
    Ok(Value::Bool(
        this(vm, &args[0])?.status() == Status::Cancelled,
    ))
}

fn fut_cancel(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let msg = cancel_message(vm, args, kw)?;
    let fut = this(vm, &args[0])?;
    Ok(Value::Bool(cancel_future(vm, &args[0], fut, msg)?))
}

fn fut_set_result(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    check_clinic(vm, "set_result", (1, &[]), &args[1..], kw)?;
    let fut = this(vm, &args[0])?;
    set_result(vm, &args[0], fut, args[1].clone())?;
    Ok(Value::None)
}

fn fut_set_exception(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    check_clinic(vm, "set_exception", (1, &[]), &args[1..], kw)?;
    let fut = this(vm, &args[0])?;
    set_exception(vm, &args[0], fut, args[1].clone())?;
    Ok(Value::None)
}

fn fut_add_done_callback(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    check_clinic(vm, "add_done_callback", (1, &["context"]), &args[1..], kw)?;
    let fut = this(vm, &args[0])?;
    if !fut.is_initialized() {
        return Err(vm.runtime_error("uninitialized Future object"));
    }
    let context = crate::builtins::contextvars::context_arg(vm, kwarg(kw, "context"))?;
    add_callback(vm, &args[0], fut, Callback::Py(args[1].clone(), context))?;
    Ok(Value::None)
}

fn fut_remove_done_callback(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    check_clinic(vm, "remove_done_callback", (1, &[]), &args[1..], kw)?;
    let fut = alive(vm, &args[0])?;
    let callbacks = std::mem::take(&mut fut.state.borrow_mut().callbacks);
    let mut kept = Callbacks::default();
    let mut removed = 0;
    for cb in callbacks {
        let same = match &cb {
            Callback::Py(f, _) => f.is(&args[1]) || vm.eq(f, &args[1])?,
            Callback::Wakeup(_) => false,
        };
        if same {
            removed += 1;
        } else {
            kept.push(cb);
        }
    }
    fut.state.borrow_mut().callbacks = kept;
    Ok(Value::Int(removed))
}

fn fut_get_loop(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    check_clinic(vm, "get_loop", (0, &[]), &args[1..], kw)?;
    Ok(alive(vm, &args[0])?.event_loop().into_owned())
}

/// `__await__`/`__iter__`: an iterator that yields the future once while it is pending.
fn fut_await(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    alive(vm, &args[0])?;
    Ok(future_iter(vm, &args[0]))
}

fn future_iter(vm: &mut Vm, fut: &Value) -> Value {
    let ty = rt(vm).types.future_iter.clone();
    Value::object(Object::new(
        ty,
        ObjectKind::Other(Box::new(FutureIter(fut.clone()))),
    ))
}

/// What `await v` iterates when `v` is a future (a Task too) whose class keeps Future's
/// own `__await__`: the iterator `__await__` would give, made without looking the method
/// up, calling it and checking that it gave an iterator ([`Vm::native_await`]). None for
/// anything else, which takes the `__await__` protocol (and an uninitialized future, whose
/// `__await__` raises).
pub fn await_future(vm: &mut Vm, v: &Value) -> Option<Value> {
    as_future(v).filter(|f| f.is_initialized())?;
    let Value::Object(o) = v else {
        return None;
    };
    OWN_AWAIT
        .with(|memo| memo.passes(&o.class, |c| keeps_methods(c, &["__await__"])))
        .then(|| future_iter(vm, v))
}

/// The iterator behind `await future` (`FutureIter` in `_asynciomodule.c`).
struct FutureIter(Value);

/// One step of `await future` (`FutureIter_am_send`; what is sent is ignored): the future
/// itself while it is pending, then its result as the await's value.
fn iter_step(vm: &mut Vm, FutureIter(fut_value): &FutureIter) -> FrameResult {
    let fut = match this(vm, fut_value) {
        Ok(fut) => fut,
        Err(e) => return FrameResult::Err(e),
    };
    let mut st = fut.state.borrow_mut();
    if st.status == Status::Pending {
        if st.blocking {
            drop(st);
            return FrameResult::Err(vm.runtime_error("await wasn't used with future"));
        }
        st.blocking = true;
        return FrameResult::Yielded(fut_value.clone());
    }
    drop(st);
    match result(vm, fut) {
        Ok(v) => FrameResult::Returned(v),
        Err(e) => FrameResult::Err(e),
    }
}

/// The VM's `Send` into a future's iterator, without the `__next__` call and the
/// StopIteration object that would carry the result ([`Vm::native_send`]).
pub fn send_to_future_iter(vm: &mut Vm, receiver: &Value) -> Option<FrameResult> {
    let it = receiver.native::<FutureIter>()?;
    Some(iter_step(vm, it))
}

fn iter_next(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    let Some(it) = args[0].native::<FutureIter>() else {
        return Err(vm.type_error("expected a future iterator"));
    };
    match iter_step(vm, it) {
        FrameResult::Yielded(v) => Ok(v),
        FrameResult::Returned(v) => Err(vm.stop_iteration(v)),
        FrameResult::Err(e) => Err(e),
    }
}

fn iter_send(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    iter_next(vm, &args[..1], kw)
}

/// `throw(exc)`: the exception is raised at the `yield` inside `__await__`, i.e. out of here.
fn iter_throw(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    crate::vm::args::check_arity(vm, "throw", args, 2, 4)?;
    Err(vm.make_raisable(args[1].clone())?)
}

fn blocking_get(vm: &mut Vm, v: &Value) -> PyResult<Value> {
    Ok(Value::Bool(this(vm, v)?.state.borrow().blocking))
}

fn blocking_set(vm: &mut Vm, v: &Value, new: Value) -> PyResult<()> {
    let flag = vm.truthy(&new)?;
    this(vm, v)?.state.borrow_mut().blocking = flag;
    Ok(())
}

/// `<Future pending>`, `<Future finished result=42>`, `<Future cancelled>`: the state part
/// (`base_futures._future_repr_info`).
pub fn repr_info(vm: &mut Vm, fut: &FutureObj) -> PyResult<Vec<String>> {
    let (status, result, exception, callbacks) = {
        let st = fut.state.borrow();
        (
            st.status,
            st.result.clone(),
            st.exception.clone(),
            st.callbacks.clone(),
        )
    };
    let mut info = vec![status.name().to_string()];
    if status == Status::Finished {
        match exception {
            Some(e) => info.push(format!("exception={}", vm.repr(&Value::Object(e))?)),
            None => info.push(format!("result={}", short_repr(vm.repr(&result)?))),
        }
    }
    if !callbacks.is_empty() {
        let names: Vec<String> = callbacks
            .iter()
            .map(|cb| match cb {
                Callback::Wakeup(_) => Ok("Task.task_wakeup()".to_string()),
                // `_format_callbacks` leaves debug mode out: no arguments shown.
                Callback::Py(f, _) => super::format_helpers::format_callback(vm, f, &[], false),
            })
            .collect::<PyResult<_>>()?;
        let shown = match names.len() {
            1 | 2 => names.join(", "),
            n => format!("{}, <{} more>, {}", names[0], n - 2, names[n - 1]),
        };
        info.push(format!("cb=[{shown}]"));
    }
    if let Some(place) = fut.created_at() {
        info.push(format!("created at {place}"));
    }
    Ok(info)
}

/// `reprlib.repr` of a result: at most 30 characters, elided in the middle.
fn short_repr(s: String) -> String {
    let chars: Vec<char> = s.chars().collect();
    if chars.len() <= 30 {
        return s;
    }
    let head: String = chars[..13].iter().collect();
    let tail: String = chars[chars.len() - 14..].iter().collect();
    format!("{head}...{tail}")
}

fn fut_repr(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    let fut = alive(vm, &args[0])?;
    let info = repr_info(vm, fut)?;
    let name = vm.type_of(&args[0]).name();
    Ok(Value::str(format!("<{name} {}>", info.join(" "))))
}

/// Adds Future's methods to `ty` (Future itself, and Task which inherits them).
pub fn init_type(vm: &mut Vm, future: &std::rc::Rc<crate::vm::object::PyType>) {
    vm.add_method(
        future,
        "__class_getitem__",
        crate::vm::generics::class_getitem,
    );
    vm.add_method(future, "result", fut_result);
    vm.add_method(future, "exception", fut_exception);
    vm.add_method(future, "done", fut_done);
    vm.add_method(future, "cancelled", fut_cancelled);
    vm.add_method(future, "cancel", fut_cancel);
    vm.add_method(future, "set_result", fut_set_result);
    vm.add_method(future, "set_exception", fut_set_exception);
    vm.add_method(future, "add_done_callback", fut_add_done_callback);
    vm.add_method(future, "remove_done_callback", fut_remove_done_callback);
    vm.add_method(future, "get_loop", fut_get_loop);
    vm.add_method(future, "__await__", fut_await);
    vm.add_method(future, "__iter__", fut_await);
    vm.add_method(future, "__repr__", fut_repr);
    vm.add_method(future, "_make_cancelled_error", |vm, a, _| {
        let fut = this(vm, &a[0])?;
        Ok(Value::Object(make_cancelled_error(vm, fut)))
    });
    // `_exception`: the exception set, without marking it retrieved (base_tasks.py reads
    // it so); None while pending or when cancelled.
    vm.add_getset(
        future,
        "_exception",
        |vm, v| {
            let fut = alive(vm, v)?;
            if fut.status() != Status::Finished {
                return Ok(Value::None);
            }
            let st = fut.state.borrow();
            Ok(st.exception.clone().map_or(Value::None, Value::Object))
        },
        None,
    );
    vm.add_getset(
        future,
        "_cancel_message",
        |vm, v| Ok(this(vm, v)?.state.borrow().cancel_message()),
        None,
    );
    vm.add_getset(
        future,
        "_asyncio_future_blocking",
        blocking_get,
        Some(blocking_set),
    );
}

pub fn init_iter_type(vm: &mut Vm, ty: &std::rc::Rc<crate::vm::object::PyType>) {
    vm.add_method(ty, "__next__", iter_next);
    vm.add_method(ty, "send", iter_send);
    vm.add_method(ty, "throw", iter_throw);
    vm.add_method(ty, "__iter__", |_, args, _| Ok(args[0].clone()));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inherited_by_task_is_the_list() {
        for name in INHERITED_BY_TASK {
            assert!(inherited_by_task(name), "{name}");
        }
        for name in FUTURE_METHODS
            .iter()
            .filter(|n| !INHERITED_BY_TASK.contains(n))
        {
            assert!(!inherited_by_task(name), "{name}");
        }
        assert!(!inherited_by_task("__repr__"));
    }
}
