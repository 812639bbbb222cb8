//! The `_thread` module: the native core `threading` is written over (as CPython's
//! `Modules/_threadmodule.c`): `allocate_lock` and the lock type, `start_joinable_thread`
//! and the `_ThreadHandle` it returns, `get_ident`, `set_name`. The threads themselves, their
//! turns and their waits are the VM's (`vm::threads`); a lock that is taken makes the
//! thread wanting it wait there, woken by the release.

use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::rc::Rc;

use super::module_args::as_double;
use crate::common::clock;
use crate::vm::args::{check_arity, check_kwargs, kwarg};
use crate::vm::object::{KwArgs, Layout, Object, ObjectKind, PyType};
use crate::vm::thread_list::Wait;
use crate::vm::types::make_type;
use crate::vm::value::Value;
use crate::vm::{Exc, PyResult, Vm};

/// `threading.TIMEOUT_MAX`, as on Linux.
const TIMEOUT_MAX: f64 = 9223372036.0;

/// A lock (`_thread.lock`): taken or not, and the threads waiting for it, first come first.
struct LockObj {
    locked: Cell<bool>,
    waiters: RefCell<VecDeque<u64>>,
}

/// What `start_joinable_thread` returns: the thread's ident and whether it has finished.
struct HandleObj {
    ident: u64,
    done: Rc<Cell<bool>>,
}

thread_local! {
    static TYPES: RefCell<Option<(Rc<PyType>, Rc<PyType>)>> = const { RefCell::new(None) };
}

fn lock_of<'a>(vm: &Vm, v: &'a Value) -> PyResult<&'a LockObj> {
    v.native()
        .ok_or_else(|| vm.type_error("descriptor requires a '_thread.lock' object"))
}

fn handle_of<'a>(vm: &Vm, v: &'a Value) -> PyResult<&'a HandleObj> {
    v.native()
        .ok_or_else(|| vm.type_error("descriptor requires a '_thread._ThreadHandle' object"))
}

fn types() -> (Rc<PyType>, Rc<PyType>) {
    TYPES
        .with(|t| t.borrow().clone())
        .expect("_thread types are made with the module")
}

fn allocate_lock(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    check_arity(vm, "allocate_lock", args, 0, 0)?;
    check_kwargs(vm, "allocate_lock", kw, &[])?;
    Ok(Value::object(Object::new(
        types().0,
        ObjectKind::Other(Box::new(LockObj {
            locked: Cell::new(false),
            waiters: RefCell::default(),
        })),
    )))
}

/// `_thread.lock()` (threading's `Lock()`).
fn lock_new(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    allocate_lock(vm, &args[1.min(args.len())..], kw)
}

/// `lock.acquire(blocking=True, timeout=-1)`.
fn lock_acquire(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    check_arity(vm, "acquire", args, 1, 3)?;
    check_kwargs(vm, "acquire", kw, &["blocking", "timeout"])?;
    let blocking = match args.get(1).cloned().or_else(|| kwarg(kw, "blocking")) {
        Some(v) => vm.truthy(&v)?,
        None => true,
    };
    let timeout = match args.get(2).cloned().or_else(|| kwarg(kw, "timeout")) {
        Some(v) => as_double(vm, &v)?,
        None => -1.0,
    };
    if !blocking && timeout != -1.0 {
        return Err(vm.value_error("can't specify a timeout for a non-blocking call"));
    }
    if timeout < 0.0 && timeout != -1.0 {
        return Err(vm.value_error("timeout value must be a non-negative number"));
    }
    if timeout > TIMEOUT_MAX {
        return Err(vm.overflow_error("timeout value is too large"));
    }
    let lock = args[0].clone();
    let deadline = (timeout >= 0.0).then(|| clock::now(vm.config.clock) + timeout);
    acquire(vm, lock_of(vm, &lock)?, blocking, deadline).map(Value::Bool)
}

/// Takes `lock`, waiting for it (until `deadline`) when it is taken and `blocking`.
fn acquire(vm: &mut Vm, lock: &LockObj, blocking: bool, deadline: Option<f64>) -> PyResult<bool> {
    if !lock.locked.get() {
        lock.locked.set(true);
        return Ok(true);
    }
    if !blocking {
        return Ok(false);
    }
    let me = vm.threads.ident();
    loop {
        lock.waiters.borrow_mut().push_back(me);
        let woken = vm.block(Wait::Lock, deadline);
        lock.waiters.borrow_mut().retain(|&w| w != me);
        let woken = woken?;
        if !lock.locked.get() {
            lock.locked.set(true);
            return Ok(true);
        }
        if !woken {
            return Ok(false);
        }
    }
}

fn lock_release(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    check_arity(vm, "release", args, 1, 1)?;
    let lock = lock_of(vm, &args[0])?;
    if !lock.locked.get() {
        return Err(vm.runtime_error("release unlocked lock"));
    }
    lock.locked.set(false);
    let first = lock.waiters.borrow().front().copied();
    if let Some(waiter) = first {
        vm.wake_blocked(waiter, Wait::Lock);
    }
    Ok(Value::None)
}

fn lock_exit(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    lock_release(vm, &args[..1.min(args.len())], &[])
}

fn lock_locked(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    check_arity(vm, "locked", args, 1, 1)?;
    Ok(Value::Bool(lock_of(vm, &args[0])?.locked.get()))
}

fn lock_repr(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    check_arity(vm, "__repr__", args, 1, 1)?;
    let state = match lock_of(vm, &args[0])?.locked.get() {
        true => "locked",
        false => "unlocked",
    };
    Ok(Value::str(format!(
        "<{state} _thread.lock object at {:#x}>",
        args[0].address()
    )))
}

/// `start_joinable_thread(function, handle=None, daemon=True)`: a new thread that calls
/// `function()`, ready to run at its turn.
fn start_joinable_thread(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    check_arity(vm, "start_joinable_thread", args, 0, 1)?;
    // `name` is apy's own: the name `--trace` shows from the thread's first turn on.
    check_kwargs(
        vm,
        "start_joinable_thread",
        kw,
        &["function", "handle", "daemon", "name"],
    )?;
    let Some(function) = args.first().cloned().or_else(|| kwarg(kw, "function")) else {
        return Err(
            vm.type_error("start_joinable_thread() missing required argument 'function' (pos 1)")
        );
    };
    if !vm.is_callable(&function) {
        return Err(vm.type_error("thread function must be callable"));
    }
    let handle = start(vm, function, Vec::new())?;
    if let Some(name) = kwarg(kw, "name") {
        let name = vm.str_of(&name)?;
        let ident = handle_of(vm, &handle)?.ident;
        vm.threads.name_thread(ident, name.as_str());
    }
    Ok(handle)
}

/// `start_new_thread(function, args, kwargs=None)`: the older interface; an exception
/// the function lets out is reported as unraisable.
fn start_new_thread(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    check_kwargs(vm, "start_new_thread", kw, &[])?;
    check_arity(vm, "start_new_thread", args, 2, 3)?;
    if !vm.is_callable(&args[0]) {
        return Err(vm.type_error("first arg must be callable"));
    }
    let Value::Tuple(call_args) = &args[1] else {
        return Err(vm.type_error("2nd arg must be a tuple"));
    };
    let handle = start(vm, args[0].clone(), call_args.items.to_vec())?;
    Ok(Value::Int(handle_of(vm, &handle)?.ident as i64))
}

fn start(vm: &mut Vm, function: Value, args: Vec<Value>) -> PyResult<Value> {
    let (ident, done) = vm.start_thread(function, args, report_thread_error)?;
    Ok(Value::object(Object::new(
        types().1,
        ObjectKind::Other(Box::new(HandleObj { ident, done })),
    )))
}

/// An exception a thread's function let out (`thread_run`): "Exception ignored in thread
/// started by: …" and its traceback; SystemExit ends the thread quietly, and so does a
/// limit stopping the program (the main thread reports that).
fn report_thread_error(vm: &mut Vm, function: &Value, exc: Exc) {
    if vm.abort.is_some() || exc.class.is_subtype(&vm.types.system_exit) {
        return;
    }
    let repr = vm.repr(function).unwrap_or_default();
    let mut text = format!("Exception ignored in thread started by {repr}:\n");
    vm.format_unraisable(&exc, &mut text);
    vm.write_stderr(&text);
}

/// `_ThreadHandle.join(timeout=None)`: waits until the thread has finished, or for
/// `timeout` seconds.
fn handle_join(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    check_arity(vm, "join", args, 1, 2)?;
    check_kwargs(vm, "join", kw, &["timeout"])?;
    let handle = handle_of(vm, &args[0])?;
    let (ident, done) = (handle.ident, handle.done.clone());
    let timeout = match args.get(1).cloned().or_else(|| kwarg(kw, "timeout")) {
        None | Some(Value::None) => None,
        Some(v) => Some(as_double(vm, &v)?.max(0.0)),
    };
    if ident == vm.threads.ident() && !done.get() {
        return Err(vm.runtime_error("Cannot join current thread"));
    }
    let deadline = timeout.map(|t| clock::now(vm.config.clock) + t);
    while !done.get() {
        if !vm.block(Wait::Join, deadline)? {
            break;
        }
    }
    Ok(Value::None)
}

fn handle_is_done(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    check_arity(vm, "is_done", args, 1, 1)?;
    Ok(Value::Bool(handle_of(vm, &args[0])?.done.get()))
}

fn handle_ident(vm: &mut Vm, this: &Value) -> PyResult<Value> {
    Ok(Value::Int(handle_of(vm, this)?.ident as i64))
}

fn get_ident(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    check_arity(vm, "get_ident", args, 0, 0)?;
    Ok(Value::Int(vm.threads.ident() as i64))
}

fn count(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    check_arity(vm, "_count", args, 0, 0)?;
    Ok(Value::Int(vm.threads.count() as i64 - 1))
}

/// `set_name(name)`: the running thread's name, as `--trace` shows it.
fn set_name(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    check_arity(vm, "set_name", args, 1, 1)?;
    let name = vm.str_of(&args[0])?;
    vm.threads.set_name(name.as_str());
    Ok(Value::None)
}

fn main_ident(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    check_arity(vm, "_get_main_thread_ident", args, 0, 0)?;
    Ok(Value::Int(crate::vm::thread_list::MAIN_IDENT as i64))
}

/// `sys.getswitchinterval()`: how long a thread runs before it gives way to a ready one.
pub fn getswitchinterval(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    check_arity(vm, "getswitchinterval", args, 0, 0)?;
    Ok(Value::Float(vm.threads.switch_interval))
}

/// `sys.setswitchinterval(interval)`, kept in microseconds as CPython keeps it.
pub fn setswitchinterval(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    check_kwargs(vm, "setswitchinterval", kw, &[])?;
    check_arity(vm, "setswitchinterval", args, 1, 1)?;
    let interval = as_double(vm, &args[0])?;
    if interval <= 0.0 {
        return Err(vm.value_error("switch interval must be strictly positive"));
    }
    vm.threads.switch_interval = ((interval * 1e6) as u64).max(1) as f64 / 1e6;
    Ok(Value::None)
}

pub fn module(vm: &mut Vm) -> Value {
    vm.threads.add_hook(super::contextvars::thread_hook);
    let object = vm.types.object.clone();
    let lock = make_type("lock", vec![object.clone()], Layout::Builtin, true);
    vm.set_type_attr(&lock, "__module__", Value::str("_thread"));
    for (name, f) in [
        ("acquire", lock_acquire as crate::vm::object::NativeFn),
        ("acquire_lock", lock_acquire),
        ("__enter__", lock_acquire),
        ("release", lock_release),
        ("release_lock", lock_release),
        ("__exit__", lock_exit),
        ("locked", lock_locked),
        ("locked_lock", lock_locked),
        ("__repr__", lock_repr),
    ] {
        vm.add_method(&lock, name, f);
    }
    vm.add_static(&lock, "__new__", lock_new);
    let handle = make_type("_ThreadHandle", vec![object], Layout::Builtin, true);
    vm.set_type_attr(&handle, "__module__", Value::str("_thread"));
    vm.add_method(&handle, "join", handle_join);
    vm.add_method(&handle, "is_done", handle_is_done);
    vm.add_getset(&handle, "ident", handle_ident, None);
    TYPES.with(|t| *t.borrow_mut() = Some((lock.clone(), handle)));
    let attrs = vec![
        ("allocate_lock", vm.native("allocate_lock", allocate_lock)),
        ("LockType", Value::Type(lock)),
        ("get_ident", vm.native("get_ident", get_ident)),
        ("get_native_id", vm.native("get_native_id", get_ident)),
        ("_count", vm.native("_count", count)),
        ("set_name", vm.native("set_name", set_name)),
        (
            "start_joinable_thread",
            vm.native("start_joinable_thread", start_joinable_thread),
        ),
        (
            "start_new_thread",
            vm.native("start_new_thread", start_new_thread),
        ),
        (
            "_get_main_thread_ident",
            vm.native("_get_main_thread_ident", main_ident),
        ),
        ("error", Value::Type(vm.types.runtime_error.clone())),
        ("TIMEOUT_MAX", Value::Float(TIMEOUT_MAX)),
    ];
    vm.new_module("_thread", attrs)
}
