//! Async generators, the async half of `Objects/genobject.c`: the awaitables that
//! `__anext__`/`asend` (`async_generator_asend`) and `athrow`/`aclose`
//! (`async_generator_athrow`) return, `anext(it, default)` (`anext_awaitable`), and the
//! firstiter/finalizer hooks of `sys.set_asyncgen_hooks`. The frame runs in the generator
//! core (generator.rs); this module sorts what it yields: a value the body yielded (marked
//! by ASYNC_GEN_WRAP) ends the awaitable with StopIteration(value), anything else is an
//! inner `await` passing through to the event loop. Knows nothing of asyncio.

use std::cell::{Cell, RefCell};

use crate::compile::bytecode::{Instr, Intrinsic1};

use super::generator::{throw_args_to_exc, warn_throw_signature};
use super::object::{KwArgs, Object, ObjectKind};
use super::value::Value;
use super::{Exc, PyResult, Vm};
use crate::vm::frame::FrameResult;
use crate::vm::frame::GenKind;
use crate::vm::frame::Generator;
use crate::vm::frame::as_generator;

#[derive(Clone, Copy, PartialEq, Eq)]
enum AwaitState {
    Init,
    Iter,
    Closed,
}

/// `async_generator_asend`: one `__anext__()`/`asend(v)` step, awaitable once.
pub struct ASend {
    agen: Value,
    value: Value,
    state: Cell<AwaitState>,
}

/// `async_generator_athrow`: one `athrow(...)` step, or `aclose()` when `args` is None.
pub struct AThrow {
    agen: Value,
    args: Option<Vec<Value>>,
    state: Cell<AwaitState>,
}

/// `anext(it, default)`: awaits `it.__anext__()`, turning StopAsyncIteration into `default`.
pub struct ANextAwaitable {
    aiter: Value,
    default: Value,
    awaitable: RefCell<Option<Value>>,
}

/// An awaitable dropped before anyone awaited it warns, as `async_gen_asend_finalize` and
/// `async_gen_athrow_finalize` do.
fn warn_unawaited(state: AwaitState, agen: &Value, method: &str) {
    if state != AwaitState::Init {
        return;
    }
    if let Some(g) = as_generator(agen) {
        super::generator::queue_warning(format!(
            "coroutine method '{method}' of '{}' was never awaited",
            g.qualname
        ));
    }
}

impl Drop for ASend {
    fn drop(&mut self) {
        warn_unawaited(self.state.get(), &self.agen, "asend");
    }
}

impl Drop for AThrow {
    fn drop(&mut self) {
        let method = if self.args.is_some() {
            "athrow"
        } else {
            "aclose"
        };
        warn_unawaited(self.state.get(), &self.agen, method);
    }
}

fn agen_of(v: &Value) -> &Generator {
    match as_generator(v) {
        Some(g) => g,
        None => unreachable!("async generator awaitables are made only from async generators"),
    }
}

/// Is `v` one of the awaitables this module makes (a coroutine in `collections.abc` terms)?
pub fn is_agen_awaitable(v: &Value) -> bool {
    v.native::<ASend>().is_some() || v.native::<AThrow>().is_some()
}

/// Sends `arg` (or throws `throw`) into one of this module's awaitables; None for any
/// other object. The fast path `SEND`, `throw()` delegation and Task steps share.
pub fn step_awaitable(
    vm: &mut Vm,
    v: &Value,
    arg: Value,
    throw: Option<Exc>,
) -> Option<FrameResult> {
    if let Some(o) = v.native::<ASend>() {
        return Some(match throw {
            None => asend_send(vm, o, arg),
            Some(e) => asend_throw(vm, o, e),
        });
    }
    if let Some(o) = v.native::<AThrow>() {
        return Some(match throw {
            None => athrow_send(vm, o, arg),
            Some(e) => athrow_throw(vm, o, e),
        });
    }
    if let Some(o) = v.native::<ANextAwaitable>() {
        return Some(anext_step(vm, o, arg, throw));
    }
    None
}

impl Generator {
    /// Is the frame suspended at the body's own `yield` (ASYNC_GEN_WRAP then YIELD_VALUE),
    /// rather than inside an `await`?
    fn at_async_yield(&self) -> bool {
        let state = self.state.borrow();
        let Some(frame) = state.frame.as_ref() else {
            return false;
        };
        frame.ip >= 2
            && matches!(
                frame.code.code().instructions.get(frame.ip as usize - 2),
                Some(Instr::CallIntrinsic1(Intrinsic1::AsyncGenWrap))
            )
    }
}

/// `async_gen_unwrap_value`: an async yield ends the step with its value, an inner await
/// passes through, the end of the body is StopAsyncIteration.
fn unwrap(vm: &mut Vm, g: &Generator, result: FrameResult) -> FrameResult {
    let flags = g.agen();
    match result {
        FrameResult::Yielded(v) if g.at_async_yield() => {
            flags.running_async.set(false);
            FrameResult::Returned(v)
        }
        FrameResult::Yielded(v) => FrameResult::Yielded(v),
        FrameResult::Returned(_) => {
            flags.closed.set(true);
            flags.running_async.set(false);
            FrameResult::Err(vm.new_exc_args(&vm.types.stop_async_iteration.clone(), vec![]))
        }
        FrameResult::Err(e) => {
            if is_stop_or_exit(vm, &e) {
                flags.closed.set(true);
            }
            flags.running_async.set(false);
            FrameResult::Err(e)
        }
    }
}

fn is_stop_or_exit(vm: &Vm, e: &Exc) -> bool {
    vm.exc_matches(e, &vm.types.stop_async_iteration) || vm.exc_matches(e, &vm.types.generator_exit)
}

fn generator_exit(vm: &Vm) -> Exc {
    vm.new_exc_args(&vm.types.generator_exit, vec![])
}

/// What `asend`'s send and throw check first (`async_gen_asend_send`/`_throw`): a used-up
/// awaitable, or a fresh one whose generator is already running, is an error; a fresh one
/// starts iterating. `Ok(true)` when it was fresh.
fn asend_start(vm: &mut Vm, o: &ASend, g: &Generator) -> Result<bool, FrameResult> {
    match o.state.get() {
        AwaitState::Closed => Err(FrameResult::Err(
            vm.runtime_error("cannot reuse already awaited __anext__()/asend()"),
        )),
        AwaitState::Init if g.agen().running_async.get() => {
            o.state.set(AwaitState::Closed);
            Err(FrameResult::Err(vm.runtime_error(
                "anext(): asynchronous generator is already running",
            )))
        }
        AwaitState::Init => {
            o.state.set(AwaitState::Iter);
            Ok(true)
        }
        AwaitState::Iter => Ok(false),
    }
}

/// `async_gen_asend_send`.
fn asend_send(vm: &mut Vm, o: &ASend, arg: Value) -> FrameResult {
    let g = agen_of(&o.agen);
    let arg = match asend_start(vm, o, g) {
        Err(refused) => return refused,
        Ok(true) if arg.is_none() => o.value.clone(),
        Ok(_) => arg,
    };
    g.agen().running_async.set(true);
    let raw = vm.resume(g, arg, None);
    let result = unwrap(vm, g, raw);
    if !matches!(result, FrameResult::Yielded(_)) {
        o.state.set(AwaitState::Closed);
    }
    result
}

/// `async_gen_asend_throw`.
fn asend_throw(vm: &mut Vm, o: &ASend, exc: Exc) -> FrameResult {
    let g = agen_of(&o.agen);
    match asend_start(vm, o, g) {
        Err(refused) => return refused,
        Ok(true) => g.agen().running_async.set(true),
        Ok(false) => {}
    }
    let raw = vm.gen_throw(g, exc);
    let result = unwrap(vm, g, raw);
    if !matches!(result, FrameResult::Yielded(_)) {
        g.agen().running_async.set(false);
        o.state.set(AwaitState::Closed);
    }
    result
}

/// `async_gen_athrow_send`.
fn athrow_send(vm: &mut Vm, o: &AThrow, arg: Value) -> FrameResult {
    let g = agen_of(&o.agen);
    if o.state.get() == AwaitState::Closed {
        return FrameResult::Err(
            vm.runtime_error("cannot reuse already awaited aclose()/athrow()"),
        );
    }
    if g.is_finished() {
        o.state.set(AwaitState::Closed);
        return FrameResult::Returned(Value::None);
    }
    let raw = if o.state.get() == AwaitState::Init {
        if g.agen().running_async.get() {
            o.state.set(AwaitState::Closed);
            return FrameResult::Err(already_running(vm, o));
        }
        if g.agen().closed.get() {
            o.state.set(AwaitState::Closed);
            return FrameResult::Err(
                vm.new_exc_args(&vm.types.stop_async_iteration.clone(), vec![]),
            );
        }
        if !arg.is_none() {
            return FrameResult::Err(
                vm.runtime_error("can't send non-None value to a just-started coroutine"),
            );
        }
        o.state.set(AwaitState::Iter);
        g.agen().running_async.set(true);
        // Bad athrow() arguments fail here and leave the generator marked running, as
        // CPython's PyArg_UnpackTuple failure does.
        let exc = match &o.args {
            None => {
                g.agen().closed.set(true);
                generator_exit(vm)
            }
            Some(args) => {
                let unpacked = super::args::check_arity(vm, "athrow", args, 1, 3)
                    .and_then(|()| throw_args_to_exc(vm, args));
                match unpacked {
                    Ok(e) => e,
                    Err(e) => return FrameResult::Err(e),
                }
            }
        };
        vm.gen_throw(g, exc)
    } else {
        vm.resume(g, arg, None)
    };
    athrow_result(vm, o, g, raw)
}

/// `async_gen_athrow_throw`.
fn athrow_throw(vm: &mut Vm, o: &AThrow, exc: Exc) -> FrameResult {
    let g = agen_of(&o.agen);
    match o.state.get() {
        AwaitState::Closed => {
            return FrameResult::Err(
                vm.runtime_error("cannot reuse already awaited aclose()/athrow()"),
            );
        }
        AwaitState::Init => {
            if g.agen().running_async.get() {
                o.state.set(AwaitState::Closed);
                return FrameResult::Err(already_running(vm, o));
            }
            o.state.set(AwaitState::Iter);
            g.agen().running_async.set(true);
        }
        AwaitState::Iter => {}
    }
    let raw = vm.gen_throw(g, exc);
    athrow_result(vm, o, g, raw)
}

fn already_running(vm: &Vm, o: &AThrow) -> Exc {
    let method = if o.args.is_some() { "athrow" } else { "aclose" };
    vm.runtime_error(format!(
        "{method}(): asynchronous generator is already running"
    ))
}

/// What an athrow/aclose step hands back: for `aclose()`, a yield from the body means it
/// ignored GeneratorExit, and the generator ending (StopAsyncIteration or GeneratorExit)
/// completes the await with None.
fn athrow_result(vm: &mut Vm, o: &AThrow, g: &Generator, raw: FrameResult) -> FrameResult {
    let result = if o.args.is_some() {
        unwrap(vm, g, raw)
    } else {
        match raw {
            FrameResult::Yielded(_) if g.at_async_yield() => {
                FrameResult::Err(vm.runtime_error("async generator ignored GeneratorExit"))
            }
            FrameResult::Returned(_) => FrameResult::Returned(Value::None),
            FrameResult::Err(e) if is_stop_or_exit(vm, &e) => FrameResult::Returned(Value::None),
            other => other,
        }
    };
    if !matches!(result, FrameResult::Yielded(_)) {
        g.agen().running_async.set(false);
        o.state.set(AwaitState::Closed);
    }
    result
}

/// `close()` of an asend/athrow awaitable: GeneratorExit thrown in must end it.
fn awaitable_close(vm: &mut Vm, v: &Value) -> PyResult<Value> {
    let closed = v
        .native::<ASend>()
        .map(|o| o.state.get() == AwaitState::Closed)
        .or_else(|| {
            v.native::<AThrow>()
                .map(|o| o.state.get() == AwaitState::Closed)
        })
        .unwrap_or(false);
    if closed {
        return Ok(Value::None);
    }
    let exit = generator_exit(vm);
    match step_awaitable(vm, v, Value::None, Some(exit)) {
        Some(FrameResult::Yielded(_)) => Err(vm.runtime_error("coroutine ignored GeneratorExit")),
        Some(FrameResult::Err(e))
            if !is_stop_or_exit(vm, &e) && !vm.exc_matches(&e, &vm.types.stop_iteration) =>
        {
            Err(e)
        }
        _ => Ok(Value::None),
    }
}

/// `anextawaitable_proxy`: steps the `__anext__()` awaitable (made on first use);
/// StopAsyncIteration becomes the default value.
fn anext_step(vm: &mut Vm, o: &ANextAwaitable, arg: Value, throw: Option<Exc>) -> FrameResult {
    let made = o.awaitable.borrow().clone();
    let awaitable = match made {
        Some(a) => a,
        None => match vm.get_anext(&o.aiter) {
            Ok(a) => {
                *o.awaitable.borrow_mut() = Some(a.clone());
                a
            }
            Err(e) => return FrameResult::Err(e),
        },
    };
    let result = match step_awaitable(vm, &awaitable, arg.clone(), throw.clone()) {
        Some(r) => r,
        None => {
            let outcome = match throw {
                None => vm.send_to(&awaitable, arg),
                Some(e) => vm
                    .call_method(&awaitable, "throw", &[Value::Object(e)])
                    .map(FrameResult::Yielded),
            };
            match outcome {
                Ok(r) => r,
                Err(e) if vm.exc_matches(&e, &vm.types.stop_iteration.clone()) => {
                    FrameResult::Returned(vm.exc_args(&e).into_iter().next().unwrap_or(Value::None))
                }
                Err(e) => FrameResult::Err(e),
            }
        }
    };
    match result {
        FrameResult::Err(e) if vm.exc_matches(&e, &vm.types.stop_async_iteration.clone()) => {
            FrameResult::Returned(o.default.clone())
        }
        other => other,
    }
}

impl Vm {
    /// `async_gen_init_hooks`: on first iteration, remember the finalizer hook and call
    /// the firstiter hook.
    fn async_gen_init_hooks(&mut self, agen: &Value) -> PyResult<()> {
        let g = agen_of(agen);
        if g.agen().hooks_inited.replace(true) {
            return Ok(());
        }
        if let Some(finalizer) = self.asyncgen_hooks.finalizer.clone() {
            *g.agen().finalizer.borrow_mut() = Some(finalizer);
        }
        if let Some(firstiter) = self.asyncgen_hooks.firstiter.clone() {
            self.call(&firstiter, std::slice::from_ref(agen), &[])?;
        }
        Ok(())
    }

    /// `agen.__anext__()` / `agen.asend(value)`.
    fn async_gen_asend(&mut self, agen: &Value, value: Value) -> PyResult<Value> {
        self.async_gen_init_hooks(agen)?;
        Ok(Value::object(Object::new(
            self.types.async_generator_asend.clone(),
            ObjectKind::Other(Box::new(ASend {
                agen: agen.clone(),
                value,
                state: Cell::new(AwaitState::Init),
            })),
        )))
    }

    fn async_gen_athrow(&mut self, agen: &Value, args: Option<Vec<Value>>) -> PyResult<Value> {
        self.async_gen_init_hooks(agen)?;
        Ok(Value::object(Object::new(
            self.types.async_generator_athrow.clone(),
            ObjectKind::Other(Box::new(AThrow {
                agen: agen.clone(),
                args,
                state: Cell::new(AwaitState::Init),
            })),
        )))
    }

    /// `anext(aiterator[, default])`.
    pub fn builtin_anext(&mut self, args: &[Value]) -> PyResult<Value> {
        super::args::check_arity(self, "anext", args, 1, 2)?;
        let aiter = &args[0];
        let name = self.names.anext.clone();
        if super::types::lookup(self.type_of(aiter), &name).is_none() {
            return Err(self.type_error(format!(
                "'{}' object is not an async iterator",
                self.type_name(aiter)
            )));
        }
        let Some(default) = args.get(1) else {
            return self.anext_awaitable_of(aiter);
        };
        Ok(Value::object(Object::new(
            self.types.anext_awaitable.clone(),
            ObjectKind::Other(Box::new(ANextAwaitable {
                aiter: aiter.clone(),
                default: default.clone(),
                awaitable: RefCell::new(None),
            })),
        )))
    }

    /// `aiter(async_iterable)`.
    pub fn builtin_aiter(&mut self, v: &Value) -> PyResult<Value> {
        let name = self.names.aiter.clone();
        let Some(f) = super::types::lookup(self.type_of(v), &name) else {
            return Err(self.type_error(format!(
                "'{}' object is not an async iterable",
                self.type_name(v)
            )));
        };
        let it = self.call(&f, std::slice::from_ref(v), &[])?;
        let anext = self.names.anext.clone();
        if super::types::lookup(self.type_of(&it), &anext).is_none() {
            return Err(self.type_error(format!(
                "aiter() returned not an async iterator of type '{}'",
                self.type_name(&it)
            )));
        }
        Ok(it)
    }

    /// `aiter.__anext__()`, with async generators served without a method lookup.
    pub fn anext_awaitable_of(&mut self, aiter: &Value) -> PyResult<Value> {
        if as_generator(aiter).is_some_and(|g| g.kind == GenKind::AsyncGenerator) {
            return self.async_gen_asend(aiter, Value::None);
        }
        let name = self.names.anext.clone();
        match super::types::lookup(self.type_of(aiter), &name) {
            Some(f) => self.call(&f, std::slice::from_ref(aiter), &[]),
            None => Err(self.type_error(format!(
                "'async for' requires an iterator with __anext__ method, got {}",
                self.type_name(aiter)
            ))),
        }
    }
}

fn frame_result(vm: &Vm, r: FrameResult) -> PyResult<Value> {
    match r {
        FrameResult::Yielded(v) => Ok(v),
        FrameResult::Returned(v) => Err(vm.stop_iteration(v)),
        FrameResult::Err(e) => Err(e),
    }
}

fn this_agen<'a>(vm: &Vm, args: &'a [Value]) -> PyResult<&'a Value> {
    match args.first() {
        Some(v) if as_generator(v).is_some_and(|g| g.kind == GenKind::AsyncGenerator) => Ok(v),
        _ => Err(vm.type_error("descriptor requires an 'async_generator' object")),
    }
}

fn awaitable_send(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    let arg = args.get(1).cloned().unwrap_or(Value::None);
    match step_awaitable(vm, &args[0], arg, None) {
        Some(r) => frame_result(vm, r),
        None => Err(vm.type_error("descriptor 'send' requires an async generator awaitable")),
    }
}

fn awaitable_throw(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    warn_throw_signature(vm, "throw", &args[1..]);
    let exc = throw_args_to_exc(vm, &args[1..])?;
    match step_awaitable(vm, &args[0], Value::None, Some(exc)) {
        Some(r) => frame_result(vm, r),
        None => Err(vm.type_error("descriptor 'throw' requires an async generator awaitable")),
    }
}

pub fn init(vm: &mut Vm) {
    let hooks = vm.types.asyncgen_hooks.clone();
    init_hooks_type(vm, &hooks);
    let agen = vm.types.async_generator.clone();
    vm.add_method(&agen, "__aiter__", |vm, args, _| {
        this_agen(vm, args).cloned()
    });
    vm.add_method(&agen, "__anext__", |vm, args, _| {
        let agen = this_agen(vm, args)?.clone();
        vm.async_gen_asend(&agen, Value::None)
    });
    vm.add_method(&agen, "asend", |vm, args, _| {
        super::args::check_arity(vm, "async_generator.asend", &args[1..], 1, 1)?;
        let agen = this_agen(vm, args)?.clone();
        vm.async_gen_asend(&agen, args[1].clone())
    });
    vm.add_method(&agen, "athrow", |vm, args, _| {
        let agen = this_agen(vm, args)?.clone();
        warn_throw_signature(vm, "athrow", &args[1..]);
        vm.async_gen_athrow(&agen, Some(args[1..].to_vec()))
    });
    vm.add_method(&agen, "aclose", |vm, args, _| {
        if args.len() > 1 {
            return Err(vm.type_error(format!(
                "async_generator.aclose() takes no arguments ({} given)",
                args.len() - 1
            )));
        }
        let agen = this_agen(vm, args)?.clone();
        vm.async_gen_athrow(&agen, None)
    });
    vm.add_getset(
        &agen,
        "ag_running",
        |vm, v| {
            let agen = this_agen(vm, std::slice::from_ref(v))?;
            Ok(Value::Bool(agen_of(agen).agen().running_async.get()))
        },
        None,
    );
    let awaitables = [
        vm.types.async_generator_asend.clone(),
        vm.types.async_generator_athrow.clone(),
        vm.types.anext_awaitable.clone(),
    ];
    for ty in &awaitables {
        vm.add_method(ty, "__await__", |_, args, _| Ok(args[0].clone()));
        vm.add_method(ty, "__iter__", |_, args, _| Ok(args[0].clone()));
        vm.add_method(ty, "__next__", |vm, args, kw| {
            awaitable_send(vm, &args[..1], kw)
        });
        vm.add_method(ty, "send", awaitable_send);
        vm.add_method(ty, "throw", awaitable_throw);
        vm.add_method(ty, "close", |vm, args, _| awaitable_close(vm, &args[0]));
    }
}

/// `sys.set_asyncgen_hooks(firstiter=…, finalizer=…)`: an argument left out keeps its
/// hook, None removes it, anything else must be callable.
pub fn sys_set_asyncgen_hooks(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    if args.len() > 2 {
        return Err(vm.type_error(format!(
            "function takes at most 2 arguments ({} given)",
            args.len()
        )));
    }
    let mut given = [args.first().cloned(), args.get(1).cloned()];
    for (k, v) in kw {
        let slot = match k.as_str() {
            "firstiter" => 0,
            "finalizer" => 1,
            other => {
                return Err(vm.type_error(format!(
                    "this function got an unexpected keyword argument '{other}'"
                )));
            }
        };
        given[slot] = Some(v.clone());
    }
    for (name, v) in ["firstiter", "finalizer"].iter().zip(&given) {
        if let Some(v) = v
            && !v.is_none()
            && !vm.is_callable(v)
        {
            return Err(vm.type_error(format!("callable {name} expected, got {}", vm.type_name(v))));
        }
    }
    let [firstiter, finalizer] = given;
    let hooks = &mut vm.asyncgen_hooks;
    if let Some(f) = firstiter {
        hooks.firstiter = Some(f).filter(|f| !f.is_none());
    }
    if let Some(f) = finalizer {
        hooks.finalizer = Some(f).filter(|f| !f.is_none());
    }
    Ok(Value::None)
}

/// `sys.get_asyncgen_hooks()`: the `asyncgen_hooks(firstiter=…, finalizer=…)` struct sequence.
pub fn sys_get_asyncgen_hooks(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    super::args::check_kwargs(vm, "sys.get_asyncgen_hooks", kw, &[])?;
    if !args.is_empty() {
        return Err(vm.type_error(format!(
            "sys.get_asyncgen_hooks() takes no arguments ({} given)",
            args.len()
        )));
    }
    let hooks = &vm.asyncgen_hooks;
    let items = vec![
        hooks.firstiter.clone().unwrap_or(Value::None),
        hooks.finalizer.clone().unwrap_or(Value::None),
    ];
    Ok(Value::object(Object::new(
        vm.types.asyncgen_hooks.clone(),
        ObjectKind::Builtin(Value::tuple(items)),
    )))
}

fn hooks_item(v: &Value, index: usize) -> Value {
    match v {
        Value::Object(o) => match o.builtin_base() {
            Some(Value::Tuple(t)) => t.items.get(index).cloned().unwrap_or(Value::None),
            _ => Value::None,
        },
        _ => Value::None,
    }
}

fn init_hooks_type(vm: &mut Vm, ty: &std::rc::Rc<super::object::PyType>) {
    vm.add_getset(ty, "firstiter", |_, v| Ok(hooks_item(v, 0)), None);
    vm.add_getset(ty, "finalizer", |_, v| Ok(hooks_item(v, 1)), None);
    vm.add_method(ty, "__repr__", |vm, args, _| {
        let firstiter = vm.repr(&hooks_item(&args[0], 0))?;
        let finalizer = vm.repr(&hooks_item(&args[0], 1))?;
        Ok(Value::str(format!(
            "asyncgen_hooks(firstiter={firstiter}, finalizer={finalizer})"
        )))
    });
}
