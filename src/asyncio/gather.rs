//! `asyncio.gather`, natively: `gather(*aws, return_exceptions=False)` gives a
//! `_GatheringFuture` (the apy class in `lib/asyncio.apy`, which keeps its `cancel`) that
//! completes with every child's result in order. Mirrors `gather` and its `_done_callback`
//! in `Lib/asyncio/tasks.py` step by step (that text is kept beside `_GatheringFuture` for
//! the reader). Measured in issue #6: in apy, gather and its callbacks were ~38% of
//! async_tree. Depends on `future`, `task` and the VM's attribute and call API.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;

use super::event_loop::rt;
use super::future::{self, Callback, FutureObj, Status};
use super::primitives::{self, Names};
use super::{event_loop, task};
use crate::builtins::contextvars;
use crate::vm::args::{check_kwargs, kwarg};

use crate::vm::frame::GenKind;

use crate::vm::frame::as_generator;
use crate::vm::object::{KwArgs, Layout, Object, ObjectKind, PyType};
use crate::vm::types::make_type;
use crate::vm::value::DictTable;
use crate::vm::value::{PyDict, PyStr, Value};
use crate::vm::{PyResult, Vm};

/// The variables `gather`'s `_done_callback` closes over.
struct Gathering {
    /// The `children` list (also the outer future's `_children`).
    children: Value,
    nfuts: Cell<usize>,
    nfinished: Cell<usize>,
    /// None until the outer future exists (bpo-46672).
    outer: RefCell<Value>,
    return_exceptions: Value,
}

fn gathering(v: &Value) -> Option<&Gathering> {
    v.native::<Gathering>()
}

/// The type of the callback's closure, and the callback itself (`_done_callback`), bound to
/// a closure each time: the type is named so that the callback, a method of it, shows as
/// `gather.<locals>._done_callback` (in `--trace` too), as the closure does in CPython.
/// Made once per runtime.
fn closure(vm: &mut Vm) -> (Rc<PyType>, Value) {
    rt(vm)
        .gather
        .get_or_init(|| {
            let closure_type = make_type(
                "gather.<locals>",
                vec![vm.types.object.clone()],
                Layout::Builtin,
                true,
            );
            (closure_type, vm.native("_done_callback", done_callback))
        })
        .clone()
}

/// `fut.name(*args)` through the names `primitives` keeps.
fn call(vm: &mut Vm, fut: &Value, name: &Rc<PyStr>, args: &[Value]) -> PyResult<Value> {
    primitives::call(vm, fut, name, args)
}

fn is_done(vm: &mut Vm, n: &Names, fut: &Value) -> PyResult<bool> {
    match future::with_own_method(fut, &n.done) {
        Some(f) => Ok(f.status() != Status::Pending),
        None => {
            let r = call(vm, fut, &n.done, &[])?;
            vm.truthy(&r)
        }
    }
}

fn is_cancelled(vm: &mut Vm, n: &Names, fut: &Value) -> PyResult<bool> {
    match future::with_own_method(fut, &n.cancelled) {
        Some(f) => Ok(f.status() == Status::Cancelled),
        None => {
            let r = call(vm, fut, &n.cancelled, &[])?;
            vm.truthy(&r)
        }
    }
}

/// `fut.exception()`: the exception or None.
fn exception_of(vm: &mut Vm, n: &Names, fut: &Value) -> PyResult<Value> {
    match future::with_own_method(fut, &n.exception) {
        Some(f) => future::exception(vm, f),
        None => call(vm, fut, &n.exception, &[]),
    }
}

/// `fut.result()`.
fn result_of(vm: &mut Vm, n: &Names, fut: &Value) -> PyResult<Value> {
    match future::with_own_method(fut, &n.result) {
        Some(f) => future::result(vm, f),
        None => call(vm, fut, &n.result, &[]),
    }
}

/// `fut._make_cancelled_error()`.
fn cancelled_error(vm: &mut Vm, n: &Names, fut: &Value) -> PyResult<Value> {
    match future::with_own_method(fut, &n.make_cancelled_error) {
        Some(f) => Ok(Value::Object(future::make_cancelled_error(vm, f))),
        None => call(vm, fut, &n.make_cancelled_error, &[]),
    }
}

/// `outer.set_result(v)` / `outer.set_exception(v)`.
fn complete(vm: &mut Vm, n: &Names, outer: &Value, exception: bool, v: Value) -> PyResult<()> {
    let name = if exception {
        &n.set_exception
    } else {
        &n.set_result
    };
    match future::with_own_method(outer, name) {
        Some(f) if exception => future::set_exception(vm, outer, f, v),
        Some(f) => future::set_result(vm, outer, f, v),
        None => call(vm, outer, name, &[v]).map(drop),
    }
}

/// `gather(*coros_or_futures, return_exceptions=False)`.
pub fn gather(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    check_kwargs(vm, "gather", kw, &["return_exceptions"])?;
    let return_exceptions = kwarg(kw, "return_exceptions").unwrap_or(Value::Bool(false));
    if args.is_empty() {
        let l = event_loop::get_event_loop(vm)?;
        let outer = vm.call_method(&l, "create_future", &[])?;
        vm.call_method(&outer, "set_result", &[Value::list(vec![])])?;
        return Ok(outer);
    }
    let n = primitives::names(vm);
    let (closure_type, function) = closure(vm);
    let children = Value::list(Vec::with_capacity(args.len()));
    let state = Value::object(Object::new(
        closure_type,
        ObjectKind::Other(Box::new(Gathering {
            children: children.clone(),
            nfuts: Cell::new(0),
            nfinished: Cell::new(0),
            outer: RefCell::new(Value::None),
            return_exceptions,
        })),
    ));
    let Some(g) = gathering(&state) else {
        return Ok(Value::None);
    };
    let callback = vm.bound_method(function, state.clone());
    let mut arg_to_fut = ArgToFut::for_args(args);
    let mut done_futs = Vec::new();
    let mut event_loop: Option<Value> = None;
    for arg in args {
        let fut = match arg_to_fut.get(vm, arg)? {
            Some(fut) => fut,
            None => {
                let fut = task::ensure_future(vm, arg.clone(), event_loop.clone())?;
                if event_loop.is_none() {
                    event_loop = Some(future::loop_of(vm, &fut, &n.get_loop)?);
                }
                if !fut.is(arg) && !task::stop_logging_destroy_pending(vm, &fut) {
                    vm.set_attr(&fut, &n.log_destroy_pending, Value::Bool(false))?;
                }
                g.nfuts.set(g.nfuts.get() + 1);
                arg_to_fut.set(vm, arg, fut.clone())?;
                if is_done(vm, n, &fut)? {
                    done_futs.push(fut.clone());
                } else {
                    add_done_callback(vm, n, &fut, &callback)?;
                }
                fut
            }
        };
        if let Value::List(l) = &children {
            l.items.borrow_mut().push(fut);
        }
    }
    let outer = gathering_future(vm, n, children, event_loop.unwrap_or(Value::None))?;
    *g.outer.borrow_mut() = outer.clone();
    for fut in done_futs {
        done_callback(vm, &[state.clone(), fut], &[])?;
    }
    Ok(outer)
}

/// gather's `arg_to_fut` dict. Coroutine objects hash and compare by identity (their
/// type keeps `object`'s `__hash__` and `__eq__`), so when every argument is one, a map
/// by address does the dict's work without calling into the VM: a list searched in order
/// for a few (a tree's gather has six), a hash map for more.
enum ArgToFut {
    Few(Vec<(usize, Value)>),
    Coroutines(HashMap<usize, Value>),
    Dict(PyDict),
}

/// Up to this many coroutines, [`ArgToFut::Few`].
const FEW: usize = 16;

impl ArgToFut {
    fn for_args(args: &[Value]) -> ArgToFut {
        let coroutines = args
            .iter()
            .all(|a| as_generator(a).is_some_and(|g| g.kind == GenKind::Coroutine));
        match coroutines {
            true if args.len() <= FEW => ArgToFut::Few(Vec::with_capacity(args.len())),
            true => ArgToFut::Coroutines(HashMap::with_capacity(args.len())),
            false => ArgToFut::Dict(PyDict {
                table: RefCell::new(DictTable::new()),
            }),
        }
    }

    fn get(&self, vm: &mut Vm, arg: &Value) -> PyResult<Option<Value>> {
        match self {
            ArgToFut::Few(list) => {
                let address = arg.address();
                Ok(list
                    .iter()
                    .find(|(a, _)| *a == address)
                    .map(|(_, f)| f.clone()))
            }
            ArgToFut::Coroutines(map) => Ok(map.get(&arg.address()).cloned()),
            ArgToFut::Dict(dict) => vm.dict_get(dict, arg),
        }
    }

    fn set(&mut self, vm: &mut Vm, arg: &Value, fut: Value) -> PyResult<()> {
        match self {
            // (Only set after `get` found nothing: no address is there twice.)
            ArgToFut::Few(list) => {
                list.push((arg.address(), fut));
                Ok(())
            }
            ArgToFut::Coroutines(map) => {
                map.insert(arg.address(), fut);
                Ok(())
            }
            ArgToFut::Dict(dict) => vm.dict_set(dict, arg.clone(), fut),
        }
    }
}

/// `fut.add_done_callback(callback)`.
fn add_done_callback(vm: &mut Vm, n: &Names, fut: &Value, callback: &Value) -> PyResult<()> {
    match future::with_own_method(fut, &n.add_done_callback) {
        Some(f) => {
            let context = contextvars::context_arg(vm, None)?;
            future::add_callback(vm, fut, f, Callback::Py(callback.clone(), context))
        }
        None => call(
            vm,
            fut,
            &n.add_done_callback,
            std::slice::from_ref(callback),
        )
        .map(drop),
    }
}

/// `_GatheringFuture(children, loop=loop)`, of the apy class (which keeps its `cancel`):
/// made here as its `__init__` makes it (bound to `event_loop`, with `_children` and
/// `_cancel_requested`), without running that code on gather's path.
fn gathering_future(vm: &mut Vm, n: &Names, children: Value, event_loop: Value) -> PyResult<Value> {
    let Some(module) = vm.loaded_module("asyncio") else {
        return Err(vm.runtime_error("the asyncio library is not loaded"));
    };
    let Value::Type(class) = vm.get_attr(&module, &n.gathering_future)? else {
        return Err(vm.type_error("asyncio._GatheringFuture is not a class"));
    };
    let outer = future::object_of(class, FutureObj::new(event_loop, None));
    vm.set_attr(&outer, &n.children, children)?;
    vm.set_attr(&outer, &n.cancel_requested, Value::Bool(false))?;
    Ok(outer)
}

/// `_done_callback(fut)`: counts the child in; the first failure (unless
/// `return_exceptions`) or the last child completes the outer future.
pub fn done_callback(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    crate::vm::args::check_arity(vm, "_done_callback", args, 2, 2)?;
    let Some(g) = gathering(&args[0]) else {
        return Ok(Value::None);
    };
    let fut = &args[1];
    let n = primitives::names(vm);
    g.nfinished.set(g.nfinished.get() + 1);
    let outer = g.outer.borrow().clone();
    if outer.is_none() || is_done(vm, n, &outer)? {
        if !is_cancelled(vm, n, fut)? {
            // Marks the exception retrieved.
            exception_of(vm, n, fut)?;
        }
        return Ok(Value::None);
    }
    if !vm.truthy(&g.return_exceptions.clone())? {
        let exc = if is_cancelled(vm, n, fut)? {
            cancelled_error(vm, n, fut)?
        } else {
            exception_of(vm, n, fut)?
        };
        if !exc.is_none() {
            complete(vm, n, &outer, true, exc)?;
            return Ok(Value::None);
        }
    }
    if g.nfinished.get() != g.nfuts.get() {
        return Ok(Value::None);
    }
    let children = vm.collect_iterable(&g.children)?;
    let mut results = Vec::with_capacity(children.len());
    for child in &children {
        let res = if is_cancelled(vm, n, child)? {
            let msg = vm.get_attr(child, &n.cancel_message)?;
            let msg = if msg.is_none() { Value::str("") } else { msg };
            let class = Value::Type(rt(vm).types.cancelled_error.clone());
            vm.call(&class, &[msg], &[])?
        } else {
            match exception_of(vm, n, child)? {
                Value::None => result_of(vm, n, child)?,
                exc => exc,
            }
        };
        results.push(res);
    }
    let cancel_requested = vm.get_attr(&outer, &n.cancel_requested)?;
    if vm.truthy(&cancel_requested)? {
        // As in tasks.py, `fut` is the last child here (the loop above rebinds it).
        let last = children.last().unwrap_or(fut);
        let exc = cancelled_error(vm, n, last)?;
        complete(vm, n, &outer, true, exc)?;
    } else {
        complete(vm, n, &outer, false, Value::list(results))?;
    }
    Ok(Value::None)
}
