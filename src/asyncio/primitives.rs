//! The bookkeeping half of asyncio's Queue, Event, Lock and Semaphore, natively: the plain
//! methods that run on every hand-off (`put_nowait`, `get_nowait`, `release`, …), installed
//! into the apy classes of `lib/queues.apy` and `lib/locks.apy`, which keep the coroutines
//! (`put get join wait acquire`), the reprs and the rare paths. Each function is its
//! `Lib/asyncio/queues.py` / `locks.py` body, step by step: attributes are read from the
//! instance and every method a subclass may override (`full`, `_put`, `_get`, …) is called
//! through it, so LifoQueue, PriorityQueue and user subclasses behave as in CPython.
//! Measured in issue #6 (pingpong): the apy versions cost ~43k of the ~79k machine
//! instructions per round trip. Depends on the VM's attribute and call API and on `future`.

use std::borrow::Cow;
use std::cell::Cell;
use std::rc::Rc;

use super::event_loop;
use super::future::{self, Status};
use crate::builtins::deque;
use crate::common::set_table::DictEntry;
use crate::compile::bytecode::{BinaryOperator, CompareOperator};
use crate::vm::dict::StrKeys;
use crate::vm::instance_values::AttrStorage;
use crate::vm::object::{KwArgs, NativeFn, PyType};
use crate::vm::types::{ClassMemo, has_own_getattribute, lookup, resolves_to_native};
use crate::vm::value::DictTable;
use crate::vm::value::{PyList, PyStr, Value};
use crate::vm::{PyResult, Vm};

macro_rules! names {
    ($($field:ident = $text:literal),* $(,)?) => {
        /// The attribute and method names these functions (and `gather`) use, interned once.
        pub(super) struct Names { $(pub(super) $field: Rc<PyStr>,)* }

        fn make_names(vm: &mut Vm) -> Names {
            Names { $($field: vm.intern($text),)* }
        }
    };
}

names! {
    queue = "_queue", maxsize = "_maxsize", is_shutdown = "_is_shutdown",
    getters = "_getters", putters = "_putters", unfinished_tasks = "_unfinished_tasks",
    finished = "_finished", waiters = "_waiters", value = "_value",
    qsize = "qsize", full = "full", empty = "empty", put = "_put", get = "_get",
    wakeup_next = "_wakeup_next", clear = "clear", append = "append", popleft = "popleft",
    done = "done", set_result = "set_result", cancelled = "cancelled", locked = "_locked",
    wake_up_first = "_wake_up_first", wake_up_next = "_wake_up_next",
    exception = "exception", result = "result", set_exception = "set_exception",
    make_cancelled_error = "_make_cancelled_error", cancel_message = "_cancel_message",
    cancel_requested = "_cancel_requested", log_destroy_pending = "_log_destroy_pending",
    add_done_callback = "add_done_callback", get_loop = "get_loop",
    gathering_future = "_GatheringFuture", children = "_children",
    put_nowait = "put_nowait", get_nowait = "get_nowait", is_set = "is_set", set = "set",
    release = "release", locked_method = "locked", bound_loop = "_loop",
    get_loop_method = "_get_loop", create_future = "create_future",
    getattribute = "__getattribute__", setattr = "__setattr__",
}

thread_local! {
    /// Made once per thread and kept for its life (a few dozen interned strings).
    static NAMES: Cell<Option<&'static Names>> = const { Cell::new(None) };
}

pub(super) fn names(vm: &mut Vm) -> &'static Names {
    if let Some(n) = NAMES.with(Cell::get) {
        return n;
    }
    let n: &'static Names = Box::leak(Box::new(make_names(vm)));
    NAMES.with(|cell| cell.set(Some(n)));
    n
}

/// `obj.name(*args)` for at most one argument.
pub(super) fn call(vm: &mut Vm, obj: &Value, name: &Rc<PyStr>, args: &[Value]) -> PyResult<Value> {
    let (f, this) = vm.load_method(obj, name)?;
    match (this.is_null(), args) {
        (true, _) => vm.call(&f, args, &[]),
        (false, []) => vm.call(&f, &[this], &[]),
        (false, [arg]) => vm.call(&f, &[this, arg.clone()], &[]),
        (false, _) => {
            let mut all = vec![this];
            all.extend_from_slice(args);
            vm.call(&f, &all, &[])
        }
    }
}

/// `self.method(self.field)`: the method loaded before its argument is read, in CPython's
/// order (which a `__getattribute__` of a subclass sees).
fn call_with_field(
    vm: &mut Vm,
    this: &Value,
    method: &Rc<PyStr>,
    field: &Rc<PyStr>,
) -> PyResult<Value> {
    let (f, receiver) = vm.load_method(this, method)?;
    let arg = vm.get_attr(this, field)?;
    match receiver.is_null() {
        true => vm.call(&f, &[arg], &[]),
        false => vm.call(&f, &[receiver, arg], &[]),
    }
}

/// `raise NAME`, for the exception classes `lib/queues.apy` defines.
fn raise(vm: &mut Vm, class: &str) -> PyResult<Value> {
    let Some(module) = vm.loaded_module("asyncio") else {
        return Err(vm.runtime_error("the asyncio library is not loaded"));
    };
    let name = vm.intern(class);
    let class = vm.get_attr(&module, &name)?;
    Err(vm.make_raisable(class)?)
}

// ---- fast paths -----------------------------------------------------------------------
//
// Each native below first tries to do its work directly on the instance's `__dict__`: when
// the instance's class still has every native method of its protocol (no subclass override,
// remembered per class by a `ClassMemo`), no instance attribute shadows a method the body
// calls through `self`, and the attributes it reads have the plain types `__init__` gave
// them. Anything else (a subclass, a replaced attribute, an error to raise) takes the
// general path, which is the library's body step by step. A fast path decides before it
// changes anything.

/// An instance attribute: its name and the position `__init__` gives it in the `__dict__`
/// (where it is looked for first).
type Field<'n> = (&'n Rc<PyStr>, usize);

/// The attributes of an instance whose class passed its protocol's memo, where they are:
/// in its shared-keys values (a fresh instance's, read and written in place without
/// making its `__dict__`, so that method loads on it stay on the inline path) or in its
/// `__dict__`.
struct Fields<'a> {
    storage: AttrStorage<'a>,
    /// The instance holds exactly `__init__`'s attributes, in their order (as a fresh
    /// instance's does): no other name is there to shadow a method.
    only_init: bool,
}

impl Fields<'_> {
    #[inline(always)]
    fn position(table: &DictTable, (name, at): Field) -> Option<usize> {
        match table.entries().get(at) {
            Some(Some(e)) if matches!(&e.key, Value::Str(k) if Rc::ptr_eq(k, name)) => Some(at),
            _ => table.position_str(name),
        }
    }

    /// `f` of the field's value, if the instance has the field.
    #[inline(always)]
    fn with<R>(&self, field: Field, f: impl FnOnce(&Value) -> R) -> Option<R> {
        match self.storage {
            AttrStorage::Values(values, keys) => {
                let at = keys.index_of_at(field.0, field.1)?;
                values.borrow().get(at).map(f)
            }
            AttrStorage::Dict(table) => {
                let t = table.borrow();
                let at = Self::position(&t, field)?;
                t.entry(at).map(|e| f(&e.value))
            }
        }
    }

    #[inline(always)]
    fn get(&self, field: Field) -> Option<Value> {
        self.with(field, Value::clone)
    }

    /// The field's value when it is a plain int.
    #[inline(always)]
    fn int(&self, field: Field) -> Option<i64> {
        match self.with(field, |v| match v {
            Value::Int(i) => Some(*i),
            _ => None,
        }) {
            Some(Some(i)) => Some(i),
            _ => None,
        }
    }

    /// The field's value when it is a bool.
    #[inline(always)]
    fn bool(&self, field: Field) -> Option<bool> {
        match self.with(field, |v| match v {
            Value::Bool(b) => Some(*b),
            _ => None,
        }) {
            Some(Some(b)) => Some(b),
            _ => None,
        }
    }

    /// Replaces a field the fast path has read as a plain int or bool (dropping it runs no
    /// code).
    #[inline(always)]
    fn set(&self, field: Field, value: Value) {
        match self.storage {
            AttrStorage::Values(values, keys) => {
                if let Some(at) = keys.index_of_at(field.0, field.1)
                    && let Some(slot) = values.borrow_mut().get_mut(at)
                {
                    *slot = value;
                }
            }
            AttrStorage::Dict(table) => {
                let mut t = table.borrow_mut();
                if let Some(at) = Self::position(&t, field)
                    && let Some(slot) = t.value_mut(at)
                {
                    *slot = value;
                }
            }
        }
    }

    /// Whether an instance attribute has one of these method names (and so shadows it).
    #[inline(always)]
    fn shadows(&self, methods: &[&Rc<PyStr>]) -> bool {
        if self.only_init {
            return false;
        }
        methods.iter().any(|name| self.storage.get(name).is_some())
    }
}

thread_local! {
    static PLAIN_QUEUE: ClassMemo = const { ClassMemo::new() };
    static PLAIN_EVENT: ClassMemo = const { ClassMemo::new() };
    static PLAIN_LOCK: ClassMemo = const { ClassMemo::new() };
    static PLAIN_SEMAPHORE: ClassMemo = const { ClassMemo::new() };
}

/// The `__dict__` of `this` when its class passes `memo` (checked by `check` when it is
/// not the class remembered); `init` names the attributes `__init__` sets, in order, which
/// `bound_loop` (`_loop`) may follow.
fn plain<'a>(
    memo: &'static std::thread::LocalKey<ClassMemo>,
    this: &'a Value,
    (init, bound_loop): (&[&Rc<PyStr>], &Rc<PyStr>),
    check: impl FnOnce(&PyType) -> bool,
) -> Option<Fields<'a>> {
    let Value::Object(o) = this else {
        return None;
    };
    let storage = o.attr_storage()?;
    if !memo.with(|memo| memo.passes(&o.class, check)) {
        return None;
    }
    let only_init = match storage {
        AttrStorage::Values(_, keys) => keys.are(init, bound_loop),
        AttrStorage::Dict(table) => holds_exactly(&table.borrow(), init, bound_loop),
    };
    Some(Fields { storage, only_init })
}

/// Whether `table` holds exactly the keys `names`, in that order (no deleted entry
/// between), and perhaps after them `bound_loop`, which `_LoopBoundMixin._get_loop` adds
/// at the first wait.
fn holds_exactly(table: &DictTable, names: &[&Rc<PyStr>], bound_loop: &Rc<PyStr>) -> bool {
    let entries = table.entries();
    let init = entries.get(..names.len()).unwrap_or_default();
    init.len() == names.len()
        && init
            .iter()
            .zip(names)
            .all(|(entry, name)| has_key(entry, name))
        && match &entries[names.len()..] {
            [] => true,
            [last] => has_key(last, bound_loop),
            _ => false,
        }
}

/// Whether a `__dict__` entry is there and has the (interned) key `name`.
fn has_key(entry: &Option<DictEntry<Value, Value>>, name: &Rc<PyStr>) -> bool {
    matches!(entry, Some(e) if matches!(&e.key, Value::Str(k) if Rc::ptr_eq(k, name)))
}

/// Whether `class` has each of `methods` as the given native, and no class attribute named
/// like one of the instance's `fields` (a property there would take precedence); and, for
/// the waits the natives begin (`_queue_getter`, `_lock_waiter`, …), `_LoopBoundMixin`'s
/// native `_get_loop` and its class attribute `_loop = None`. No `__getattribute__` or
/// `__setattr__` written in Python may see (or miss) the reads and writes done in place.
fn class_is_plain(
    n: &Names,
    class: &PyType,
    methods: &[(&Rc<PyStr>, NativeFn)],
    fields: &[&Rc<PyStr>],
) -> bool {
    methods
        .iter()
        .all(|(name, func)| resolves_to_native(class, name, *func))
        && fields.iter().all(|name| lookup(class, name).is_none())
        && resolves_to_native(class, &n.get_loop_method, get_loop)
        && matches!(lookup(class, &n.bound_loop), Some(Value::None))
        && !matches!(lookup(class, &n.getattribute), Some(Value::Function(_)))
        && !matches!(lookup(class, &n.setattr), Some(Value::Function(_)))
}

/// `Queue.__init__`'s attributes, in the order it sets them.
const MAXSIZE: usize = 0;
const GETTERS: usize = 1;
const PUTTERS: usize = 2;
const UNFINISHED: usize = 3;
const FINISHED: usize = 4;
const QUEUE: usize = 5;
const SHUTDOWN: usize = 6;
/// How many: `_loop` comes after them.
const QUEUE_FIELDS: usize = 7;

/// A Queue (not LifoQueue/PriorityQueue, not a subclass changing any native).
fn plain_queue<'a>(n: &Names, this: &'a Value) -> Option<Fields<'a>> {
    let fields = [
        &n.maxsize,
        &n.getters,
        &n.putters,
        &n.unfinished_tasks,
        &n.finished,
        &n.queue,
        &n.is_shutdown,
    ];
    plain(&PLAIN_QUEUE, this, (&fields, &n.bound_loop), |class| {
        let methods: [(&Rc<PyStr>, NativeFn); 8] = [
            (&n.qsize, qsize),
            (&n.empty, empty),
            (&n.full, full),
            (&n.put_nowait, put_nowait),
            (&n.get_nowait, get_nowait),
            (&n.put, put),
            (&n.get, get),
            (&n.wakeup_next, wakeup_next),
        ];
        class_is_plain(n, class, &methods, &fields)
    })
}

/// The number of items of a plain queue whose `_queue` is a plain deque.
fn plain_queue_len(vm: &mut Vm, n: &Names, this: &Value) -> Option<usize> {
    let q = plain_queue(n, this)?;
    deque_len(vm, n, &q)
}

/// The length of a plain queue's `_queue` when it is a plain deque (read in place).
fn deque_len(vm: &mut Vm, n: &Names, q: &Fields) -> Option<usize> {
    q.with((&n.queue, QUEUE), |items| {
        deque::plain_deque(vm, items).map(|d| d.len())
    })?
}

/// `Event.__init__`'s, `Lock.__init__`'s and `Semaphore.__init__`'s attributes.
const WAITERS: usize = 0;
const STATE: usize = 1;
/// How many: `_loop` comes after them.
const PRIMITIVE_FIELDS: usize = 2;

/// An Event, Lock or Semaphore (per `memo` and its natives), whose `_waiters` and
/// `_value`/`_locked` (`state`) are read from the `__dict__`.
fn plain_primitive<'a>(
    memo: &'static std::thread::LocalKey<ClassMemo>,
    methods: &[(&Rc<PyStr>, NativeFn); 3],
    state: &Rc<PyStr>,
    n: &Names,
    this: &'a Value,
) -> Option<Fields<'a>> {
    let fields = [&n.waiters, state];
    plain(memo, this, (&fields, &n.bound_loop), |class| {
        class_is_plain(n, class, methods, &fields)
    })
}

fn plain_event<'a>(n: &Names, this: &'a Value) -> Option<Fields<'a>> {
    let methods: [(&Rc<PyStr>, NativeFn); 3] = [
        (&n.is_set, event_is_set),
        (&n.set, event_set),
        (&n.clear, event_clear),
    ];
    plain_primitive(&PLAIN_EVENT, &methods, &n.value, n, this)
}

fn plain_lock<'a>(n: &Names, this: &'a Value) -> Option<Fields<'a>> {
    let methods: [(&Rc<PyStr>, NativeFn); 3] = [
        (&n.locked_method, lock_locked),
        (&n.release, lock_release),
        (&n.wake_up_first, lock_wake_up_first),
    ];
    plain_primitive(&PLAIN_LOCK, &methods, &n.locked, n, this)
}

fn plain_semaphore<'a>(n: &Names, this: &'a Value) -> Option<Fields<'a>> {
    let methods: [(&Rc<PyStr>, NativeFn); 3] = [
        (&n.locked_method, semaphore_locked),
        (&n.release, semaphore_release),
        (&n.wake_up_next, semaphore_wake_up_next),
    ];
    plain_primitive(&PLAIN_SEMAPHORE, &methods, &n.value, n, this)
}

/// A queue of waiting futures as the natives read it in place: a plain deque (what
/// CPython's asyncio keeps them in) or a list.
enum Waiters<'a> {
    Deque(&'a deque::Deque),
    List(&'a PyList),
}

impl Waiters<'_> {
    fn get(&self, i: usize) -> Option<Value> {
        match self {
            Waiters::Deque(d) => d.get(i),
            Waiters::List(l) => l.items.borrow().get(i).cloned(),
        }
    }

    fn is_empty(&self) -> bool {
        match self {
            Waiters::Deque(d) => d.is_empty(),
            Waiters::List(l) => l.items.borrow().is_empty(),
        }
    }

    /// How many waiters from `from` on are plain futures already done: woken, waiting for
    /// their task to take them out. A walk for the first pending one steps over them
    /// without running any code (a plain future's `done()` is its status).
    fn done_run(&self, from: usize) -> usize {
        let done =
            |v: &&Value| future::plain_future(v).is_some_and(|f| f.status() != Status::Pending);
        match self {
            Waiters::Deque(d) => d.with_items(|items| {
                items
                    .range(from.min(items.len())..)
                    .take_while(done)
                    .count()
            }),
            Waiters::List(l) => {
                let items = l.items.borrow();
                items
                    .get(from..)
                    .unwrap_or_default()
                    .iter()
                    .take_while(done)
                    .count()
            }
        }
    }
}

/// `not waiters`: read in place when it is a plain deque or a list.
fn no_waiters(vm: &mut Vm, v: &Value) -> PyResult<bool> {
    match waiters(vm, v) {
        Some(queue) => Ok(queue.is_empty()),
        None => Ok(!vm.truthy(v)?),
    }
}

/// `v` as a [`Waiters`] when it is a plain deque or a list.
fn waiters<'a>(vm: &mut Vm, v: &'a Value) -> Option<Waiters<'a>> {
    match v {
        Value::List(l) => Some(Waiters::List(l)),
        _ => deque::plain_deque(vm, v).map(Waiters::Deque),
    }
}

/// The arguments of a method written in Python as `def qualname(self, *params)` (every
/// parameter required, positional or keyword), bound in order, `self` first (the VM has
/// checked it is there); or the TypeError CPython raises for that call.
#[inline]
fn bind<'a>(
    vm: &Vm,
    qualname: &str,
    params: &[&str],
    args: &'a [Value],
    kw: &KwArgs,
) -> PyResult<Cow<'a, [Value]>> {
    if kw.is_empty() && args.len() == params.len() + 1 {
        return Ok(Cow::Borrowed(args));
    }
    bind_slow(vm, qualname, params, args, kw).map(Cow::Owned)
}

/// [`bind`] for keyword arguments or a wrong count.
#[cold]
fn bind_slow(
    vm: &Vm,
    qualname: &str,
    params: &[&str],
    args: &[Value],
    kw: &KwArgs,
) -> PyResult<Vec<Value>> {
    let takes = params.len() + 1;
    if args.len() > takes {
        let plural = if takes == 1 { "" } else { "s" };
        let were = if args.len() == 1 { "was" } else { "were" };
        return Err(vm.type_error(format!(
            "{qualname}() takes {takes} positional argument{plural} but {} {were} given",
            args.len()
        )));
    }
    let mut bound: Vec<Option<Value>> = args.iter().cloned().map(Some).collect();
    bound.resize(takes, None);
    for (key, value) in kw {
        let Some(i) = params.iter().position(|p| *p == key.as_str()) else {
            return Err(vm.type_error(format!(
                "{qualname}() got an unexpected keyword argument '{}'",
                key.as_str()
            )));
        };
        if bound[i + 1].is_some() {
            return Err(vm.type_error(format!(
                "{qualname}() got multiple values for argument '{}'",
                key.as_str()
            )));
        }
        bound[i + 1] = Some(value.clone());
    }
    let missing: Vec<String> = params
        .iter()
        .zip(&bound[1..])
        .filter(|(_, v)| v.is_none())
        .map(|(p, _)| format!("'{p}'"))
        .collect();
    if !missing.is_empty() {
        let n = missing.len();
        let names = match missing.as_slice() {
            [one] => one.clone(),
            [init @ .., last] if n == 2 => format!("{} and {last}", init.join(", ")),
            [init @ .., last] => format!("{}, and {last}", init.join(", ")),
            [] => String::new(),
        };
        let s = if n == 1 { "" } else { "s" };
        return Err(vm.type_error(format!(
            "{qualname}() missing {n} required positional argument{s}: {names}"
        )));
    }
    Ok(bound.into_iter().flatten().collect())
}

/// `Queue.qsize`: `len(self._queue)`.
fn qsize(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let args = &*bind(vm, "Queue.qsize", &[], args, kw)?;
    let n = names(vm);
    if let Some(len) = plain_queue_len(vm, n, &args[0]) {
        return Ok(Value::Int(len as i64));
    }
    let queue = vm.get_attr(&args[0], &n.queue)?;
    Ok(Value::Int(vm.len(&queue)? as i64))
}

/// `Queue.empty`: `not self._queue`.
fn empty(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let args = &*bind(vm, "Queue.empty", &[], args, kw)?;
    let n = names(vm);
    if let Some(len) = plain_queue_len(vm, n, &args[0]) {
        return Ok(Value::Bool(len == 0));
    }
    let queue = vm.get_attr(&args[0], &n.queue)?;
    Ok(Value::Bool(!vm.truthy(&queue)?))
}

/// `Queue.full`: never when `maxsize <= 0` (unbounded), else `self.qsize() >= maxsize`.
fn full(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let args = &*bind(vm, "Queue.full", &[], args, kw)?;
    let n = names(vm);
    let this = &args[0];
    if let Some(q) = plain_queue(n, this)
        && !q.shadows(&[&n.qsize])
        && let Some(full) = plain_queue_full(vm, n, &q)
    {
        return Ok(Value::Bool(full));
    }
    let maxsize = vm.get_attr(this, &n.maxsize)?;
    let unbounded = match maxsize {
        Value::Int(m) => m <= 0,
        _ => {
            let le = vm.compare(CompareOperator::Le, &maxsize, &Value::Int(0))?;
            vm.truthy(&le)?
        }
    };
    if unbounded {
        return Ok(Value::Bool(false));
    }
    let size = call(vm, this, &n.qsize, &[])?;
    let maxsize = vm.get_attr(this, &n.maxsize)?;
    vm.compare(CompareOperator::Ge, &size, &maxsize)
}

/// `full()` of a plain queue with an int `_maxsize` (whose `qsize` is not shadowed).
fn plain_queue_full(vm: &mut Vm, n: &Names, q: &Fields) -> Option<bool> {
    let maxsize = q.int((&n.maxsize, MAXSIZE))?;
    if maxsize <= 0 {
        return Some(false);
    }
    Some(deque_len(vm, n, q)? as i64 >= maxsize)
}

fn is_shutdown(vm: &mut Vm, n: &Names, this: &Value) -> PyResult<bool> {
    let flag = vm.get_attr(this, &n.is_shutdown)?;
    vm.truthy(&flag)
}

/// `Queue.put_nowait`: store the item, count it as unfinished, wake the oldest getter.
fn put_nowait(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let args = &*bind(vm, "Queue.put_nowait", &["item"], args, kw)?;
    let n = names(vm);
    let (this, item) = (&args[0], &args[1]);
    if let Some(q) = plain_queue(n, this)
        && let Some(done) = plain_put_nowait(vm, n, &q, item)
    {
        return done;
    }
    if is_shutdown(vm, n, this)? {
        return raise(vm, "QueueShutDown");
    }
    let full = call(vm, this, &n.full, &[])?;
    if vm.truthy(&full)? {
        return raise(vm, "QueueFull");
    }
    call(vm, this, &n.put, std::slice::from_ref(item))?;
    let unfinished = vm.get_attr(this, &n.unfinished_tasks)?;
    let unfinished = vm.binary_op(BinaryOperator::InplaceAdd, &unfinished, &Value::Int(1))?;
    vm.set_attr(this, &n.unfinished_tasks, unfinished)?;
    let finished = vm.get_attr(this, &n.finished)?;
    call(vm, &finished, &n.clear, &[])?;
    call_with_field(vm, this, &n.wakeup_next, &n.getters)?;
    Ok(Value::None)
}

/// [`put_nowait`] on a plain queue that is open and has room (else None: the general path
/// raises).
fn plain_put_nowait(vm: &mut Vm, n: &Names, q: &Fields, item: &Value) -> Option<PyResult<Value>> {
    if q.shadows(&[&n.full, &n.qsize, &n.put, &n.wakeup_next])
        || q.bool((&n.is_shutdown, SHUTDOWN))?
        || plain_queue_full(vm, n, q)?
    {
        return None;
    }
    let items = q.get((&n.queue, QUEUE))?;
    let deque = deque::plain_deque(vm, &items)?;
    let unfinished = q.int((&n.unfinished_tasks, UNFINISHED))?.checked_add(1)?;
    let finished = q.get((&n.finished, FINISHED))?;
    let event = plain_event(n, &finished)?;
    let getters = q.get((&n.getters, GETTERS))?;
    if event.shadows(&[&n.clear])
        || waiters(vm, &getters).is_none()
        || event.bool((&n.value, STATE)).is_none()
    {
        return None;
    }
    deque.push_back(item.clone());
    q.set((&n.unfinished_tasks, UNFINISHED), Value::Int(unfinished));
    event.set((&n.value, STATE), Value::Bool(false));
    Some(wakeup_first_pending(vm, &getters).map(|()| Value::None))
}

/// `Queue.get_nowait`: take the next item and wake the oldest putter.
fn get_nowait(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let args = &*bind(vm, "Queue.get_nowait", &[], args, kw)?;
    let n = names(vm);
    let this = &args[0];
    if let Some(item) = plain_get_nowait(vm, n, this) {
        return item;
    }
    let empty = call(vm, this, &n.empty, &[])?;
    if vm.truthy(&empty)? {
        if is_shutdown(vm, n, this)? {
            return raise(vm, "QueueShutDown");
        }
        return raise(vm, "QueueEmpty");
    }
    let item = call(vm, this, &n.get, &[])?;
    call_with_field(vm, this, &n.wakeup_next, &n.putters)?;
    Ok(item)
}

/// [`get_nowait`] on a plain queue that has an item (else None: the general path raises).
fn plain_get_nowait(vm: &mut Vm, n: &Names, this: &Value) -> Option<PyResult<Value>> {
    let q = plain_queue(n, this)?;
    if q.shadows(&[&n.empty, &n.get, &n.wakeup_next]) {
        return None;
    }
    let items = q.get((&n.queue, QUEUE))?;
    let deque = deque::plain_deque(vm, &items)?;
    let putters = q.get((&n.putters, PUTTERS))?;
    waiters(vm, &putters)?;
    let item = deque.pop_front()?;
    Some(wakeup_first_pending(vm, &putters).map(|()| item))
}

/// `Queue._put`: `self._queue.append(item)`.
fn put(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let args = &*bind(vm, "Queue._put", &["item"], args, kw)?;
    let n = names(vm);
    let queue = vm.get_attr(&args[0], &n.queue)?;
    call(vm, &queue, &n.append, &args[1..])
}

/// `Queue._get`: `self._queue.popleft()`.
fn get(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let args = &*bind(vm, "Queue._get", &[], args, kw)?;
    let n = names(vm);
    let queue = vm.get_attr(&args[0], &n.queue)?;
    call(vm, &queue, &n.popleft, &[])
}

/// `Queue._wakeup_next(waiters)`: pop waiters, oldest first, until one that is not done
/// yet (a cancelled one already left) has been woken.
fn wakeup_next(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let args = &*bind(vm, "Queue._wakeup_next", &["waiters"], args, kw)?;
    wakeup_first_pending(vm, &args[1])?;
    Ok(Value::None)
}

/// The body of `_wakeup_next(waiters)`.
fn wakeup_first_pending(vm: &mut Vm, waiters: &Value) -> PyResult<()> {
    while !no_waiters(vm, waiters)? {
        let first = match waiters {
            Value::List(l) => Some(l.items.borrow_mut().remove(0)),
            _ => deque::plain_deque(vm, waiters).and_then(deque::Deque::pop_front),
        };
        let waiter = match first {
            Some(w) => w,
            None => vm.call_method(waiters, "popleft", &[])?,
        };
        if wake(vm, &waiter, Value::None)? {
            break;
        }
    }
    Ok(())
}

/// `if not waiter.done(): waiter.set_result(result)`; whether it was woken.
fn wake(vm: &mut Vm, waiter: &Value, result: Value) -> PyResult<bool> {
    let n = names(vm);
    if let Some(fut) = future::plain_future(waiter).or_else(|| {
        future::with_own_method(waiter, &n.done)
            .and_then(|_| future::with_own_method(waiter, &n.set_result))
    }) {
        if fut.status() != Status::Pending {
            return Ok(false);
        }
        future::set_result(vm, waiter, fut, result)?;
        return Ok(true);
    }
    let done = call(vm, waiter, &n.done, &[])?;
    if vm.truthy(&done)? {
        return Ok(false);
    }
    call(vm, waiter, &n.set_result, &[result])?;
    Ok(true)
}

/// `waiter.done()`: a future's status read in place when `done` is Future's own.
fn is_done(vm: &mut Vm, n: &Names, waiter: &Value) -> PyResult<bool> {
    match future::with_own_method(waiter, &n.done) {
        Some(f) => Ok(f.status() != Status::Pending),
        None => {
            let done = call(vm, waiter, &n.done, &[])?;
            vm.truthy(&done)
        }
    }
}

/// `waiter.set_result(result)`, for a waiter already seen pending.
fn resolve(vm: &mut Vm, waiter: &Value, result: Value) -> PyResult<()> {
    let n = names(vm);
    match future::with_own_method(waiter, &n.set_result) {
        Some(fut) => future::set_result(vm, waiter, fut, result),
        None => call(vm, waiter, &n.set_result, &[result]).map(drop),
    }
}

/// `Event.is_set`: `self._value`.
fn event_is_set(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let args = &*bind(vm, "Event.is_set", &[], args, kw)?;
    let n = names(vm);
    if let Some(value) = plain_event(n, &args[0]).and_then(|e| e.get((&n.value, STATE))) {
        return Ok(value);
    }
    vm.get_attr(&args[0], &n.value)
}

/// `Event.set`: wakes every waiter not yet done, in the order they came.
fn event_set(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let args = &*bind(vm, "Event.set", &[], args, kw)?;
    let n = names(vm);
    let this = &args[0];
    if let Some(event) = plain_event(n, this)
        && let Some(set) = event.bool((&n.value, STATE))
        && let Some(queue) = event.get((&n.waiters, WAITERS))
        && let Some(queue) = waiters(vm, &queue)
    {
        if !set {
            event.set((&n.value, STATE), Value::Bool(true));
            let mut i = 0;
            loop {
                let Some(fut) = queue.get(i) else {
                    break;
                };
                i += 1;
                wake(vm, &fut, Value::Bool(true))?;
            }
        }
        return Ok(Value::None);
    }
    let value = vm.get_attr(this, &n.value)?;
    if !vm.truthy(&value)? {
        vm.set_attr(this, &n.value, Value::Bool(true))?;
        let waiters = vm.get_attr(this, &n.waiters)?;
        let iter = vm.get_iter(&waiters)?;
        while let Some(fut) = vm.next(&iter)? {
            wake(vm, &fut, Value::Bool(true))?;
        }
    }
    Ok(Value::None)
}

/// `Event.clear`: `self._value = False`.
fn event_clear(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let args = &*bind(vm, "Event.clear", &[], args, kw)?;
    let n = names(vm);
    if let Some(event) = plain_event(n, &args[0])
        && event.bool((&n.value, STATE)).is_some()
    {
        event.set((&n.value, STATE), Value::Bool(false));
        return Ok(Value::None);
    }
    vm.set_attr(&args[0], &n.value, Value::Bool(false))?;
    Ok(Value::None)
}

/// `all(w.cancelled() for w in waiters)`: whether no waiter is still queued (Lock.acquire's
/// fairness test).
fn all_cancelled(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    crate::vm::args::check_arity(vm, "_all_cancelled", args, 1, 1)?;
    let n = names(vm);
    // Walked by index, as its iterator would (seeing it grow), without making one.
    if let Some(queue) = waiters(vm, &args[0]) {
        let mut i = 0;
        loop {
            let Some(w) = queue.get(i) else {
                return Ok(Value::Bool(true));
            };
            i += 1;
            if !is_cancelled(vm, n, &w)? {
                return Ok(Value::Bool(false));
            }
        }
    }
    let iter = vm.get_iter(&args[0])?;
    while let Some(w) = vm.next(&iter)? {
        if !is_cancelled(vm, n, &w)? {
            return Ok(Value::Bool(false));
        }
    }
    Ok(Value::Bool(true))
}

/// `w.cancelled()`, done directly for a future that has Future's own method.
fn is_cancelled(vm: &mut Vm, n: &Names, w: &Value) -> PyResult<bool> {
    match future::with_own_method(w, &n.cancelled) {
        Some(fut) => Ok(fut.status() == Status::Cancelled),
        None => {
            let c = call(vm, w, &n.cancelled, &[])?;
            vm.truthy(&c)
        }
    }
}

/// `Lock.locked`: `self._locked`.
fn lock_locked(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let args = &*bind(vm, "Lock.locked", &[], args, kw)?;
    let n = names(vm);
    if let Some(locked) = plain_lock(n, &args[0]).and_then(|l| l.get((&n.locked, STATE))) {
        return Ok(locked);
    }
    vm.get_attr(&args[0], &n.locked)
}

/// `Lock.release`: unlock and hand the lock to the first waiter.
fn lock_release(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let args = &*bind(vm, "Lock.release", &[], args, kw)?;
    let n = names(vm);
    let this = &args[0];
    if let Some(lock) = plain_lock(n, this)
        && !lock.shadows(&[&n.wake_up_first])
        && lock.bool((&n.locked, STATE)) == Some(true)
        && let Some(waiters) = lock.get((&n.waiters, WAITERS))
        && (waiters.is_none() || self::waiters(vm, &waiters).is_some())
    {
        lock.set((&n.locked, STATE), Value::Bool(false));
        wake_first_waiter(vm, &waiters)?;
        return Ok(Value::None);
    }
    let locked = vm.get_attr(this, &n.locked)?;
    if !vm.truthy(&locked)? {
        return Err(vm.runtime_error("Lock is not acquired."));
    }
    vm.set_attr(this, &n.locked, Value::Bool(false))?;
    call(vm, this, &n.wake_up_first, &[])?;
    Ok(Value::None)
}

/// `Lock._wake_up_first`: wake the head of the queue; a done future there is already on
/// its way.
fn lock_wake_up_first(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let args = &*bind(vm, "Lock._wake_up_first", &[], args, kw)?;
    let n = names(vm);
    let waiters = vm.get_attr(&args[0], &n.waiters)?;
    wake_first_waiter(vm, &waiters)?;
    Ok(Value::None)
}

/// The body of `Lock._wake_up_first` given `self._waiters`.
fn wake_first_waiter(vm: &mut Vm, waiters: &Value) -> PyResult<()> {
    if no_waiters(vm, waiters)? {
        return Ok(());
    }
    let first = match self::waiters(vm, waiters) {
        Some(queue) => queue.get(0),
        None => {
            let iter = vm.get_iter(waiters)?;
            vm.next(&iter)?
        }
    };
    if let Some(fut) = first {
        wake(vm, &fut, Value::Bool(true))?;
    }
    Ok(())
}

/// `Semaphore.locked`: no units left, or someone (not cancelled) queued first.
fn semaphore_locked(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let args = &*bind(vm, "Semaphore.locked", &[], args, kw)?;
    let n = names(vm);
    let this = &args[0];
    if let Some(sem) = plain_semaphore(n, this)
        && let Some(value) = sem.int((&n.value, STATE))
        && let Some(waiters) = sem.get((&n.waiters, WAITERS))
    {
        if value == 0 {
            return Ok(Value::Bool(true));
        }
        if waiters.is_none() || self::waiters(vm, &waiters).is_some_and(|q| q.is_empty()) {
            return Ok(Value::Bool(false));
        }
        if self::waiters(vm, &waiters).is_some() {
            let all_cancelled = all_cancelled(vm, &[waiters], &[])?;
            return Ok(Value::Bool(!vm.truthy(&all_cancelled)?));
        }
    }
    let value = vm.get_attr(this, &n.value)?;
    let none_left = vm.compare(CompareOperator::Eq, &value, &Value::Int(0))?;
    if vm.truthy(&none_left)? {
        return Ok(none_left);
    }
    let waiters = vm.get_attr(this, &n.waiters)?;
    if !vm.truthy(&waiters)? {
        return Ok(Value::Bool(false));
    }
    let all_cancelled = all_cancelled(vm, &[waiters], &[])?;
    Ok(Value::Bool(!vm.truthy(&all_cancelled)?))
}

/// `Semaphore.release`: one more unit, given to the next waiter if there is one.
fn semaphore_release(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let args = &*bind(vm, "Semaphore.release", &[], args, kw)?;
    let n = names(vm);
    let this = &args[0];
    if let Some(sem) = plain_semaphore(n, this)
        && !sem.shadows(&[&n.wake_up_next])
        && let Some(value) = sem.int((&n.value, STATE)).and_then(|v| v.checked_add(1))
        && let Some(waiters) = sem.get((&n.waiters, WAITERS))
        && (waiters.is_none() || self::waiters(vm, &waiters).is_some())
    {
        sem.set((&n.value, STATE), Value::Int(value));
        wake_up_next_plain(vm, n, this, &waiters)?;
        return Ok(Value::None);
    }
    let value = vm.get_attr(this, &n.value)?;
    let value = vm.binary_op(BinaryOperator::InplaceAdd, &value, &Value::Int(1))?;
    vm.set_attr(this, &n.value, value)?;
    call(vm, this, &n.wake_up_next, &[])?;
    Ok(Value::None)
}

/// `Semaphore._wake_up_next`: reserve a unit for the first waiter not yet woken; whether
/// there was one.
fn semaphore_wake_up_next(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let args = &*bind(vm, "Semaphore._wake_up_next", &[], args, kw)?;
    let n = names(vm);
    let this = &args[0];
    let waiters = vm.get_attr(this, &n.waiters)?;
    if !vm.truthy(&waiters)? {
        return Ok(Value::Bool(false));
    }
    let iter = vm.get_iter(&waiters)?;
    while let Some(fut) = vm.next(&iter)? {
        if !is_done(vm, n, &fut)? {
            let value = vm.get_attr(this, &n.value)?;
            let value = vm.binary_op(BinaryOperator::InplaceSubtract, &value, &Value::Int(1))?;
            vm.set_attr(this, &n.value, value)?;
            resolve(vm, &fut, Value::Bool(true))?;
            return Ok(Value::Bool(true));
        }
    }
    Ok(Value::Bool(false))
}

/// `Semaphore._wake_up_next` on a plain semaphore whose `_waiters` is None, a plain deque
/// or a list.
fn wake_up_next_plain(vm: &mut Vm, n: &Names, this: &Value, waiters: &Value) -> PyResult<bool> {
    let mut i = 0;
    loop {
        let Some(queue) = self::waiters(vm, waiters) else {
            return Ok(false);
        };
        i += queue.done_run(i);
        let Some(fut) = queue.get(i) else {
            return Ok(false);
        };
        i += 1;
        if !is_done(vm, n, &fut)? {
            // (A waiter's own `done()` may have run code that changed the semaphore.)
            match plain_semaphore(n, this) {
                Some(sem)
                    if let Some(value) = sem.int((&n.value, STATE))
                        && value > i64::MIN =>
                {
                    sem.set((&n.value, STATE), Value::Int(value - 1));
                }
                _ => {
                    let value = vm.get_attr(this, &n.value)?;
                    let value =
                        vm.binary_op(BinaryOperator::InplaceSubtract, &value, &Value::Int(1))?;
                    vm.set_attr(this, &n.value, value)?;
                }
            }
            resolve(vm, &fut, Value::Bool(true))?;
            return Ok(true);
        }
    }
}

/// `_LoopBoundMixin._get_loop` (`Lib/asyncio/mixins.py`): the running loop, to which the
/// object is bound at its first call (its first wait); called in another loop after,
/// the RuntimeError a primitive shared between two `asyncio.run`s raises.
fn get_loop(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let args = &*bind(vm, "_LoopBoundMixin._get_loop", &[], args, kw)?;
    let n = names(vm);
    let this = &args[0];
    let running = event_loop::rt(vm).running_loop.borrow().clone();
    // `self._loop` is read as often as the mixin does: twice when bound, thrice (the
    // second under its lock) when binding now.
    let read = |vm: &mut Vm| match bound_in_dict(vm, n, this) {
        Some(bound) => Ok(bound),
        None => vm.get_attr(this, &n.bound_loop),
    };
    if read(vm)?.is_none() && read(vm)?.is_none() {
        vm.set_attr(this, &n.bound_loop, running.clone())?;
    }
    let bound = read(vm)?;
    if !running.is(&bound) {
        let shown = vm.repr(this)?;
        return Err(vm.runtime_error(format!("{shown} is bound to a different event loop")));
    }
    Ok(running)
}

/// `self._loop` read straight from the instance's `__dict__`, where the attribute lookup
/// finds it when the class's `_loop` is a plain value (the mixin's None) and no
/// `__getattribute__` of the class's own intervenes; None otherwise, or when not bound yet.
fn bound_in_dict(vm: &Vm, n: &Names, this: &Value) -> Option<Value> {
    let Value::Object(o) = this else {
        return None;
    };
    if !matches!(lookup(&o.class, &n.bound_loop), Some(Value::None))
        || has_own_getattribute(&o.class, &vm.names.getattribute)
    {
        return None;
    }
    let table = match o.attr_storage()? {
        AttrStorage::Values(values, keys) => {
            let at = keys.index_of(&n.bound_loop)?;
            return values.borrow().get(at).cloned();
        }
        AttrStorage::Dict(table) => table.borrow(),
    };
    // Most often the last attribute: set at the first wait, after `__init__`'s.
    if let Some(Some(last)) = table.entries().last()
        && matches!(&last.key, Value::Str(k) if Rc::ptr_eq(k, &n.bound_loop))
    {
        return Some(last.value.clone());
    }
    table.get_str(&n.bound_loop).cloned()
}

// ---- the start of a wait ----------------------------------------------------------------
//
// Every wait in queues.py and locks.py begins `fut = self._get_loop().create_future()` and
// `self._WAITERS.append(fut)`. The natives below do that at once (one call where the apy
// body makes four) when the primitive is plain (its class passed its memo, which checks
// `_get_loop` too), the loop it is bound to is the running one, that loop's `create_future`
// is its own native, and the waiters are a plain deque; else they return None having done
// nothing, and the apy body goes its general way (which also binds a primitive at its
// first wait and raises "bound to a different event loop").

thread_local! {
    static PLAIN_LOOP: ClassMemo = const { ClassMemo::new() };
}

/// `self._get_loop().create_future()` for a plain primitive already bound to the running
/// loop (`bound_at`: where `_loop` follows `__init__`'s attributes), whose `_get_loop` is
/// not shadowed; None (nothing done) otherwise.
fn plain_new_future(vm: &mut Vm, n: &Names, fields: &Fields, bound_at: usize) -> Option<Value> {
    if fields.shadows(&[&n.get_loop_method]) {
        return None;
    }
    let bound = fields.get((&n.bound_loop, bound_at))?;
    let Value::Object(o) = &bound else {
        return None;
    };
    event_loop::as_loop(&bound)?;
    if !event_loop::rt(vm).running_loop.borrow().is(&bound)
        || o.attr_storage()
            .is_some_and(|attrs| attrs.get(&n.create_future).is_some())
        || !PLAIN_LOOP.with(|memo| {
            memo.passes(&o.class, |class| {
                resolves_to_native(class, &n.create_future, event_loop::loop_create_future)
                    && !matches!(lookup(class, &n.getattribute), Some(Value::Function(_)))
            })
        })
    {
        return None;
    }
    Some(future::new_future(vm, bound))
}

/// The wait's future, made and appended to the plain deque `waiters` (a field of the
/// primitive `fields`); None, having done nothing, when one of them is not plain.
fn plain_waiter(
    vm: &mut Vm,
    n: &Names,
    fields: &Fields,
    waiters: Field,
    bound_at: usize,
) -> Option<Value> {
    let queue = fields.get(waiters)?;
    let queue = deque::plain_deque(vm, &queue)?;
    let fut = plain_new_future(vm, n, fields, bound_at)?;
    queue.push_back(fut.clone());
    Some(fut)
}

/// `_queue_get_step(self)`: `get()`'s loop on a plain queue, natively as far as it goes
/// without waiting: `(item, None)` when the queue has an item (`self.empty()` false, then
/// `self.get_nowait()`), `(None, getter)` when it is empty and open (the start of the wait:
/// `self._get_loop().create_future()`, appended to `_getters`); else None, having done
/// nothing.
fn get_step(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    crate::vm::args::check_arity(vm, "_queue_get_step", args, 1, 1)?;
    let n = names(vm);
    let this = &args[0];
    let Some(q) = plain_queue(n, this) else {
        return Ok(Value::None);
    };
    if q.shadows(&[&n.empty, &n.get, &n.wakeup_next, &n.get_nowait]) {
        return Ok(Value::None);
    }
    let Some(items) = q.get((&n.queue, QUEUE)) else {
        return Ok(Value::None);
    };
    let Some(deque) = deque::plain_deque(vm, &items) else {
        return Ok(Value::None);
    };
    if deque.is_empty() {
        if q.bool((&n.is_shutdown, SHUTDOWN)) != Some(false) {
            return Ok(Value::None);
        }
        return Ok(
            match plain_waiter(vm, n, &q, (&n.getters, GETTERS), QUEUE_FIELDS) {
                Some(getter) => Value::tuple(vec![Value::None, getter]),
                None => Value::None,
            },
        );
    }
    let Some(putters) = q.get((&n.putters, PUTTERS)) else {
        return Ok(Value::None);
    };
    if waiters(vm, &putters).is_none() {
        return Ok(Value::None);
    }
    let Some(item) = deque.pop_front() else {
        return Ok(Value::None);
    };
    wakeup_first_pending(vm, &putters)?;
    Ok(Value::tuple(vec![item, Value::None]))
}

/// `_queue_put_step(self, item)`: `put()`'s loop on a plain queue, natively as far as it
/// goes without waiting: True when the queue had room and took the item (`self.full()`
/// false, then `self.put_nowait(item)`), the putter when it is full and open (the start of
/// the wait, appended to `_putters`); else False, having done nothing.
fn put_step(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    crate::vm::args::check_arity(vm, "_queue_put_step", args, 2, 2)?;
    let n = names(vm);
    let Some(q) = plain_queue(n, &args[0]).filter(|q| !q.shadows(&[&n.put_nowait])) else {
        return Ok(Value::Bool(false));
    };
    if let Some(done) = plain_put_nowait(vm, n, &q, &args[1]) {
        return done.map(|_| Value::Bool(true));
    }
    if q.shadows(&[&n.full, &n.qsize])
        || q.bool((&n.is_shutdown, SHUTDOWN)) != Some(false)
        || plain_queue_full(vm, n, &q) != Some(true)
    {
        return Ok(Value::Bool(false));
    }
    let putter = plain_waiter(vm, n, &q, (&n.putters, PUTTERS), QUEUE_FIELDS);
    Ok(putter.unwrap_or(Value::Bool(false)))
}

/// `_lock_waiter(self)`, `_semaphore_waiter(self)`, `_event_waiter(self)`: on a plain
/// primitive (as `plain` finds it) whose `_waiters` is a plain deque, the start of its wait
/// (`fut = self._get_loop().create_future()`, `self._waiters.append(fut)`): the future;
/// else None, having done nothing.
fn primitive_waiter(
    vm: &mut Vm,
    args: &[Value],
    name: &str,
    plain: for<'a> fn(&Names, &'a Value) -> Option<Fields<'a>>,
) -> PyResult<Value> {
    crate::vm::args::check_arity(vm, name, args, 1, 1)?;
    let n = names(vm);
    let fields = plain(n, &args[0]);
    let waiter =
        fields.and_then(|f| plain_waiter(vm, n, &f, (&n.waiters, WAITERS), PRIMITIVE_FIELDS));
    Ok(waiter.unwrap_or(Value::None))
}

fn lock_waiter(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    primitive_waiter(vm, args, "_lock_waiter", plain_lock)
}

fn semaphore_waiter(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    primitive_waiter(vm, args, "_semaphore_waiter", plain_semaphore)
}

fn event_waiter(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    primitive_waiter(vm, args, "_event_waiter", plain_event)
}

/// The natives, as `(name, value)` pairs for the module; the apy classes take them in.
pub fn natives(vm: &Vm) -> Vec<(&'static str, Value)> {
    let q = |name, func| vm.native_method("Queue".into(), name, func);
    let e = |name, func| vm.native_method("Event".into(), name, func);
    let l = |name, func| vm.native_method("Lock".into(), name, func);
    let s = |name, func| vm.native_method("Semaphore".into(), name, func);
    vec![
        ("_queue_qsize", q("qsize", qsize)),
        ("_queue_empty", q("empty", empty)),
        ("_queue_full", q("full", full)),
        ("_queue_put_nowait", q("put_nowait", put_nowait)),
        ("_queue_get_nowait", q("get_nowait", get_nowait)),
        ("_queue_get_step", vm.native("_queue_get_step", get_step)),
        ("_queue_put_step", vm.native("_queue_put_step", put_step)),
        ("_lock_waiter", vm.native("_lock_waiter", lock_waiter)),
        (
            "_semaphore_waiter",
            vm.native("_semaphore_waiter", semaphore_waiter),
        ),
        ("_event_waiter", vm.native("_event_waiter", event_waiter)),
        ("_queue_put", q("_put", put)),
        ("_queue_get", q("_get", get)),
        ("_queue_wakeup_next", q("_wakeup_next", wakeup_next)),
        ("_event_is_set", e("is_set", event_is_set)),
        ("_event_set", e("set", event_set)),
        ("_event_clear", e("clear", event_clear)),
        ("_lock_locked", l("locked", lock_locked)),
        ("_lock_release", l("release", lock_release)),
        (
            "_lock_wake_up_first",
            l("_wake_up_first", lock_wake_up_first),
        ),
        ("_semaphore_locked", s("locked", semaphore_locked)),
        ("_semaphore_release", s("release", semaphore_release)),
        (
            "_semaphore_wake_up_next",
            s("_wake_up_next", semaphore_wake_up_next),
        ),
        ("_all_cancelled", vm.native("_all_cancelled", all_cancelled)),
        (
            "_loop_bound_get_loop",
            vm.native_method("_LoopBoundMixin".into(), "_get_loop", get_loop),
        ),
    ]
}
