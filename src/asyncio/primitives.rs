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

use super::future::{self, Status};
use crate::compile::bytecode::{BinaryOperator, CompareOperator};
use crate::vm::object::KwArgs;
use crate::vm::value::{PyStr, Value};
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
    gathering_future = "_GatheringFuture", loop_ = "loop",
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

/// `raise NAME`, for the exception classes `lib/queues.apy` defines.
fn raise(vm: &mut Vm, class: &str) -> PyResult<Value> {
    let Some(module) = vm.modules.get("asyncio").cloned() else {
        return Err(vm.runtime_error("the asyncio library is not loaded"));
    };
    let name = vm.intern(class);
    let class = vm.get_attr(&module, &name)?;
    Err(vm.make_raisable(class)?)
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
    let queue = vm.get_attr(&args[0], &n.queue)?;
    Ok(Value::Int(vm.len(&queue)? as i64))
}

/// `Queue.empty`: `not self._queue`.
fn empty(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let args = &*bind(vm, "Queue.empty", &[], args, kw)?;
    let n = names(vm);
    let queue = vm.get_attr(&args[0], &n.queue)?;
    Ok(Value::Bool(!vm.truthy(&queue)?))
}

/// `Queue.full`: never when `maxsize <= 0` (unbounded), else `self.qsize() >= maxsize`.
fn full(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let args = &*bind(vm, "Queue.full", &[], args, kw)?;
    let n = names(vm);
    let this = &args[0];
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

fn is_shutdown(vm: &mut Vm, n: &Names, this: &Value) -> PyResult<bool> {
    let flag = vm.get_attr(this, &n.is_shutdown)?;
    vm.truthy(&flag)
}

/// `Queue.put_nowait`: store the item, count it as unfinished, wake the oldest getter.
fn put_nowait(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let args = &*bind(vm, "Queue.put_nowait", &["item"], args, kw)?;
    let n = names(vm);
    let (this, item) = (&args[0], &args[1]);
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
    let getters = vm.get_attr(this, &n.getters)?;
    call(vm, this, &n.wakeup_next, &[getters])?;
    Ok(Value::None)
}

/// `Queue.get_nowait`: take the next item and wake the oldest putter.
fn get_nowait(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let args = &*bind(vm, "Queue.get_nowait", &[], args, kw)?;
    let n = names(vm);
    let this = &args[0];
    let empty = call(vm, this, &n.empty, &[])?;
    if vm.truthy(&empty)? {
        if is_shutdown(vm, n, this)? {
            return raise(vm, "QueueShutDown");
        }
        return raise(vm, "QueueEmpty");
    }
    let item = call(vm, this, &n.get, &[])?;
    let putters = vm.get_attr(this, &n.putters)?;
    call(vm, this, &n.wakeup_next, &[putters])?;
    Ok(item)
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
    let waiters = &args[1];
    while vm.truthy(waiters)? {
        let waiter = match waiters {
            Value::List(l) => l.items.borrow_mut().remove(0),
            _ => vm.call_method(waiters, "pop", &[Value::Int(0)])?,
        };
        if wake(vm, &waiter, Value::None)? {
            break;
        }
    }
    Ok(Value::None)
}

/// `if not waiter.done(): waiter.set_result(result)`; whether it was woken.
fn wake(vm: &mut Vm, waiter: &Value, result: Value) -> PyResult<bool> {
    let n = names(vm);
    if let Some(fut) = future::with_own_method(waiter, &n.done)
        .and_then(|_| future::with_own_method(waiter, &n.set_result))
    {
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

/// `Event.is_set`: `self._value`.
fn event_is_set(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let args = &*bind(vm, "Event.is_set", &[], args, kw)?;
    let n = names(vm);
    vm.get_attr(&args[0], &n.value)
}

/// `Event.set`: wakes every waiter not yet done, in the order they came.
fn event_set(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let args = &*bind(vm, "Event.set", &[], args, kw)?;
    let n = names(vm);
    let this = &args[0];
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
    vm.set_attr(&args[0], &n.value, Value::Bool(false))?;
    Ok(Value::None)
}

/// `all(w.cancelled() for w in waiters)`: whether no waiter is still queued (Lock.acquire's
/// fairness test).
fn all_cancelled(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    crate::builtins::check_arity(vm, "_all_cancelled", args, 1, 1)?;
    let n = names(vm);
    let iter = vm.get_iter(&args[0])?;
    while let Some(w) = vm.next(&iter)? {
        let cancelled = match future::with_own_method(&w, &n.cancelled) {
            Some(fut) => fut.status() == Status::Cancelled,
            None => {
                let c = call(vm, &w, &n.cancelled, &[])?;
                vm.truthy(&c)?
            }
        };
        if !cancelled {
            return Ok(Value::Bool(false));
        }
    }
    Ok(Value::Bool(true))
}

/// `Lock.locked`: `self._locked`.
fn lock_locked(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let args = &*bind(vm, "Lock.locked", &[], args, kw)?;
    let n = names(vm);
    vm.get_attr(&args[0], &n.locked)
}

/// `Lock.release`: unlock and hand the lock to the first waiter.
fn lock_release(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let args = &*bind(vm, "Lock.release", &[], args, kw)?;
    let n = names(vm);
    let this = &args[0];
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
    if !vm.truthy(&waiters)? {
        return Ok(Value::None);
    }
    let first = match &waiters {
        Value::List(l) => l.items.borrow().first().cloned(),
        _ => {
            let iter = vm.get_iter(&waiters)?;
            vm.next(&iter)?
        }
    };
    if let Some(fut) = first {
        wake(vm, &fut, Value::Bool(true))?;
    }
    Ok(Value::None)
}

/// `Semaphore.locked`: no units left, or someone (not cancelled) queued first.
fn semaphore_locked(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let args = &*bind(vm, "Semaphore.locked", &[], args, kw)?;
    let n = names(vm);
    let this = &args[0];
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
        let done = match future::with_own_method(&fut, &n.done) {
            Some(f) => f.status() != Status::Pending,
            None => {
                let d = call(vm, &fut, &n.done, &[])?;
                vm.truthy(&d)?
            }
        };
        if !done {
            let value = vm.get_attr(this, &n.value)?;
            let value = vm.binary_op(BinaryOperator::InplaceSubtract, &value, &Value::Int(1))?;
            vm.set_attr(this, &n.value, value)?;
            wake(vm, &fut, Value::Bool(true))?;
            return Ok(Value::Bool(true));
        }
    }
    Ok(Value::Bool(false))
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
    ]
}
