//! Fast paths of the call and await protocol: instead of a nested `run_frame` (Rust
//! recursion), the callee's or the generator's frame joins [`InlineFrames`] and the dispatch
//! loop runs it; on the way back its outcome goes straight to the caller's stack. In: the
//! executing frame at a `Call`, `GetAwaitable`, `Send`, `ForIter`, `YieldValue` or return;
//! out: the frame to execute next. Mirrors CPython 3.11+'s inlined calls
//! (`_PyEvalFramePushAndInit`, `SEND_GEN`, `FOR_ITER_GEN` in `Python/bytecodes.c`).
//!
//! | instruction: fast path                     | short-cuts (the plain protocol, its file)                                | applies when                                                                |
//! |--------------------------------------------|--------------------------------------------------------------------------|-----------------------------------------------------------------------------|
//! | `Call`: [`inline_call`]                    | `call_from_stack` → `call_function_with_locals` (`call.rs`)              | a plain function (not a generator) given its positionals (or defaults)     |
//! | … [`Vm::inline_init`]                      | `call` → `call_type` (`call.rs`): `__new__`, then `__init__`             | `object.__new__` makes it, a Python `__init__` takes exactly the args       |
//! | … [`awaited_call`]                         | `new_generator` (`call.rs`), `get_awaitable`, `send_to` (`generator.rs`) | `await f(…)`/`yield from g(…)` (f a function or a bound method of one), positional, send loop next; fusable |
//! | … [`inline_send`]                          | `gen_send`/`next` → `resume` (`generator.rs`)                            | `g.send(v)` of a generator or coroutine; `next(g)` of a generator           |
//! | `GetAwaitable`: [`is_unstarted_coroutine`] | `get_awaitable` (`generator.rs`)                                         | a coroutine not started yet: it is its own awaitable                        |
//! | … [`Vm::awaited_await_method`]             | `get_awaitable` → `__await__()` (`generator.rs`), then `send_to`         | `__await__` is a generator function of `self`, send loop next; fusable      |
//! | `BeforeAsyncWith`: [`Vm::awaited_aenter`]  | `enter_context` (`context_managers.rs`) → `__aenter__()`, then `send_to` | `__aenter__` is a coroutine function of `self`, send loop next; fusable     |
//! | `Send`, `ForIter`: [`inline_generator`]    | `send_to` (`generator.rs`); `next` (`iter.rs`) → `resume`                | a generator (for `Send` also a coroutine)                                   |
//! | … on down: [`Vm::enter_generator`]         | a `Jump` and a `Send` at each level of an `await` chain                  | the generator sends on to a lendable one ([`sends_on`])                     |
//! | `YieldValue`: [`Vm::leave_yielding`]       | a `YieldValue` at each level on the way back up                          | the caller is a lent generator frame about to yield the value on            |
//! | return, raise: [`Vm::leave_lent`]          | `finish_resume`'s outcome handed back through `resume`                   | the frame leaving is a generator's lent frame                               |
//!
//! The plain paths run the frame in a nested `run_frame`. "Fusable" ([`Vm::can_fuse`]):
//! within the recursion limit, and no check of the limits (`--max-steps`, the time limit)
//! is due among the instructions skipped; a fast path that skips instructions counts them
//! as run, so the limits stop a program where they would have on the plain path. `Call`'s
//! fast paths are one macro, [`fast_call!`], because a method could not take the executing
//! frame and the frames it is borrowed from together.

use std::rc::Rc;
use std::sync::atomic::Ordering;

use crate::compile::bytecode::Instr;

use super::call::{binds_positionally, generator_kind};
use super::frame::{AfterGenerator, Frame, InlineFrames, Passed};
use super::generator::{FINALIZERS_PENDING, is_send_method};
use super::object::{Body, Function, Object, ObjectKind};
use super::types;
use super::value::Value;
use super::{Exc, PyResult, Vm};
use crate::vm::frame::FrameResult;
use crate::vm::frame::GenKind;
use crate::vm::frame::as_generator;

// ---- `Call` ---------------------------------------------------------------------------

/// For `Call(n)` in `execute`, with the callable at `stack[$callable_at]`: tries the fast
/// paths in turn ([`awaited_call`] when `$awaited`, the call being a `CallAwaited`;
/// [`inline_call`], [`Vm::inline_init`], [`inline_send`]);
/// when one applies, makes its frame the executing one and runs `$then` (`continue
/// 'frames`: `execute` goes on with that frame); else the call is not made. A macro, not a
/// method: it needs the executing frame (`$frame`, borrowed from `$callees` and `$base`),
/// then, done with it, `$callees` and `$base` themselves, which only a jump straight out
/// (`$then`) lets the borrow checker see; and it returns from `execute` (`?`) when entering
/// the frame raises (RecursionError).
macro_rules! fast_call {
    ($vm:expr, $callees:expr, $base:expr, $frame:expr, $body:expr, $callable_at:expr, $n:expr, $awaited:expr => $then:expr) => {{
        use $crate::vm::fast_calls::{awaited_call, inline_call, inline_send};
        let (callable_at, n) = ($callable_at, $n);
        // `CallAwaited`: most often of a coroutine function, which no other path runs.
        if $awaited
            && let Some(call) = awaited_call($frame, $body, callable_at)
            && $vm.can_fuse(&call)
        {
            $vm.start_first_step($callees, $base, call);
            $then;
        }
        if let Some(args_start) = inline_call($frame, callable_at) {
            $vm.enter_recursion()?;
            $callees.push_call($vm, $base, callable_at, args_start);
            $then;
        }
        if let Some((init, instance)) = $vm.inline_init($frame, callable_at) {
            $vm.enter_recursion()?;
            let args_start = callable_at + 1;
            $callees.push_init($vm, $base, &init, args_start, instance);
            $then;
        }
        // `generator.send(v)` and `next(generator)`: the generator's frame runs here, as
        // for `Send`.
        if let Some((generator, sends_arg)) = inline_send($frame, callable_at, n) {
            let v = if sends_arg {
                $crate::vm::stack::pop!($frame)
            } else {
                $crate::vm::value::Value::None
            };
            $crate::vm::fast_calls::truncate_call(&mut $frame.stack, callable_at);
            let after = $crate::vm::frame::AfterGenerator::Call;
            $vm.enter_generator($callees, $base, generator, v, after)?;
            $then;
        }
    }};
}

pub(super) use fast_call;

/// For `Call(n)` with the callable at `stack[base]`: where its arguments (self included)
/// start, when the callable is a plain Python function (not a generator or coroutine)
/// called with its positional parameters (those left out having defaults), to be called
/// inline.
#[inline]
pub(super) fn inline_call(frame: &Frame, base: usize) -> Option<usize> {
    let Value::Function(f) = frame.stack.get(base)? else {
        return None;
    };
    let has_self = !frame.stack.get(base + 1)?.is_null();
    let args_start = if has_self { base + 1 } else { base + 2 };
    takes_positionally(f, frame.stack.len() - args_start).then_some(args_start)
}

/// Whether a call of `f` with `nargs` positional arguments can run inline: `f` is a plain
/// function (not a generator or coroutine) that [`binds_positionally`], as the code's
/// [`inline_arity`](super::frame::inline_arity) has it: every positional parameter given,
/// or the ones left out having defaults.
#[inline]
fn takes_positionally(f: &Function, nargs: usize) -> bool {
    let arity = f.code.inline_arity as usize;
    arity == nargs || (nargs < arity && takes_defaults(f, arity - nargs))
}

#[cold]
fn takes_defaults(f: &Function, missing: usize) -> bool {
    missing <= f.defaults_count()
}

impl Vm {
    /// For `Call(n)` with a class at `stack[base]` (and NULL above it): when the class is
    /// made by `object.__new__` and initialised by a Python `__init__` taking exactly the
    /// call's positional arguments, makes the instance, puts it in the NULL's place as
    /// `self`, and gives the `__init__` to run inline with it.
    #[inline]
    pub(super) fn inline_init(
        &self,
        frame: &mut Frame,
        base: usize,
    ) -> Option<(Rc<Function>, Value)> {
        let Value::Type(cls) = frame.stack.get(base)? else {
            return None;
        };
        if cls.builtin || !frame.stack.get(base + 1)?.is_null() {
            return None;
        }
        let init = types::inline_init(self, cls)?;
        if !takes_positionally(&init, frame.stack.len() - (base + 1)) {
            return None;
        }
        let instance = self.new_instance(cls);
        frame.stack[base + 1] = instance.clone();
        Some((init, instance))
    }
}

/// A call whose result is awaited (or delegated to) at once, run fused
/// ([`Vm::start_first_step`]).
pub(super) struct AwaitedCall {
    /// The function to run when it is not the callable on the stack (an `__await__`, a
    /// bound method's function).
    stand_in: Option<Rc<Function>>,
    /// Whether the callable is a bound method, to be replaced on the stack by its `self`
    /// (dropping the NULL above it, if there is one) as the first argument.
    unbind: bool,
    /// Whether the function was renamed (its generator is then made at once).
    renamed: bool,
    kind: GenKind,
    callable_at: usize,
    args_start: usize,
    /// Where the `Send` of the `await` is, and its target.
    send_at: usize,
    target: u32,
    /// How many instructions running it fused skips: they still count as run (a step of
    /// `--max-steps` each).
    skipped: u64,
}

/// For `CallAwaited(n)` with the callable at `stack[base]`: the call, when it is
/// `await f(…)` of a coroutine function or `yield from g(…)` of a generator function (or
/// of a bound method of one, such as the `__aexit__` an `async with` calls), called with
/// its positional parameters (those left out having defaults). The quickened instruction
/// says the call is followed by `GetAwaitable` (or `GetYieldFromIter`), `LoadConst(None)`
/// and the `Send` of the send loop; those three would do nothing but send None into the
/// new generator, so they are skipped.
#[inline]
pub(super) fn awaited_call(frame: &Frame, body: &Body, base: usize) -> Option<AwaitedCall> {
    let Value::Function(f) = frame.stack.get(base)? else {
        return awaited_bound_call(frame, body, base);
    };
    let has_self = !frame.stack.get(base + 1)?.is_null();
    let args_start = if has_self { base + 1 } else { base + 2 };
    let nargs = frame.stack.len() - args_start;
    let (kind, send_at, target) = awaits_generator_of(f, nargs, body, frame.ip as usize)?;
    Some(AwaitedCall {
        stand_in: None,
        unbind: false,
        renamed: f.renamed.get(),
        kind,
        callable_at: base,
        args_start,
        send_at,
        target,
        skipped: 3,
    })
}

/// [`awaited_call`] of a bound method of a Python function: the method's `self` takes the
/// callable's place on the stack when the call is made ([`AwaitedCall::unbind`]).
#[inline(never)]
fn awaited_bound_call(frame: &Frame, body: &Body, base: usize) -> Option<AwaitedCall> {
    let Value::Object(method) = frame.stack.get(base)? else {
        return None;
    };
    let ObjectKind::BoundMethod {
        func: Value::Function(f),
        ..
    } = &method.kind
    else {
        return None;
    };
    let has_self = !frame.stack.get(base + 1)?.is_null();
    let args = frame.stack.len() - base - 2 + has_self as usize;
    let (kind, send_at, target) = awaits_generator_of(f, 1 + args, body, frame.ip as usize)?;
    Some(AwaitedCall {
        stand_in: Some(f.clone()),
        unbind: true,
        renamed: f.renamed.get(),
        kind,
        callable_at: base,
        args_start: base,
        send_at,
        target,
        skipped: 3,
    })
}

/// For [`awaited_call`]: when `f` makes a coroutine awaited at `ip` (`GetAwaitable`) or a
/// generator delegated to (`GetYieldFromIter`), the send loop following, and binds `nargs`
/// positionally: its kind, and where the `Send` is and its target.
#[inline(always)]
fn awaits_generator_of(
    f: &Function,
    nargs: usize,
    body: &Body,
    ip: usize,
) -> Option<(GenKind, usize, u32)> {
    let kind = generator_kind(f)?;
    let instrs = &body.code.instructions;
    let fetches = matches!(
        (kind, instrs.get(ip)?),
        (GenKind::Coroutine, Instr::GetAwaitable(_))
            | (GenKind::Generator, Instr::GetYieldFromIter)
    );
    let &Instr::Send(target) = instrs.get(ip + 2)? else {
        return None;
    };
    (fetches && binds_positionally(f, nargs)).then_some((kind, ip + 2, target))
}

/// `LoadConst(None)` then `Send` at `ip`: the start of the send loop of an `await` or a
/// `yield from`, where the first value sent is None. Where that `Send` is, and its target.
#[inline]
fn sends_none_first(body: &Body, ip: usize) -> Option<(usize, u32)> {
    let instrs = &body.code.instructions;
    let &Instr::LoadConst(none) = instrs.get(ip)? else {
        return None;
    };
    let &Instr::Send(target) = instrs.get(ip + 1)? else {
        return None;
    };
    body.consts
        .get(none as usize)?
        .is_none()
        .then_some((ip + 1, target))
}

/// For `Call(n)` with the callable at `stack[base]`: the generator whose frame the call
/// runs, and whether it sends the call's argument, when the call is `generator.send(v)`
/// (of a generator or coroutine) or `next(generator)` (the built-in, on a plain generator).
#[inline]
pub(super) fn inline_send(frame: &Frame, base: usize, n: usize) -> Option<(Rc<Object>, bool)> {
    if n != 1 {
        return None;
    }
    let [callable, this, arg] = frame.stack.get(base..base + 3)? else {
        return None;
    };
    if is_send_method(callable) {
        return inline_generator(this, GenKind::Coroutine).map(|g| (g, true));
    }
    if this.is_null() && super::iter::is_builtin_next(callable) {
        return inline_generator(arg, GenKind::Generator).map(|g| (g, false));
    }
    None
}

/// Cuts `stack` back to `len`, dropping a call's callable and `self` (objects, most often)
/// above it: their counts dropped inline, not through `Value`'s out-of-line destructor.
#[inline(always)]
pub(super) fn truncate_call(stack: &mut Vec<Value>, len: usize) {
    while stack.len() > len {
        match stack.pop() {
            Some(v) => v.release(),
            None => break,
        }
    }
}

// ---- `GetAwaitable` -------------------------------------------------------------------

/// Whether `v` is a coroutine that has not started (the operand of most `await`s).
#[inline]
pub(super) fn is_unstarted_coroutine(v: &Value) -> bool {
    as_generator(v).is_some_and(|g| g.kind == GenKind::Coroutine && !g.state.borrow().started)
}

impl Vm {
    /// For `GetAwaitable` with the awaited object on top of the stack: `await obj` of an
    /// object whose `__await__` is a generator function, when the send loop follows. The
    /// call of `__await__` is made like an [`AwaitedCall`], `obj` its argument.
    #[inline]
    pub(super) fn awaited_await_method(&self, frame: &Frame, body: &Body) -> Option<AwaitedCall> {
        let func = self.await_generator_function(frame.stack.last()?)?;
        let (send_at, target) = sends_none_first(body, frame.ip as usize)?;
        let at = frame.stack.len() - 1;
        Some(AwaitedCall {
            renamed: func.renamed.get(),
            stand_in: Some(func),
            unbind: false,
            kind: GenKind::Generator,
            callable_at: at,
            args_start: at,
            send_at,
            target,
            skipped: 2,
        })
    }

    /// For `BeforeAsyncWith` with the manager on top of the stack: `async with mgr` of a
    /// manager whose `__aenter__` is a coroutine function of `self` alone, when its awaitable
    /// is awaited at once (`GetAwaitable`, then the send loop). The `__aexit__` found beside
    /// it, and the call of `__aenter__` made like an [`AwaitedCall`], `mgr` its argument,
    /// once [`Vm::enter_async_with_fused`] has put the bound `__aexit__` under `mgr`.
    #[inline]
    pub(super) fn awaited_aenter(
        &self,
        frame: &Frame,
        body: &Body,
    ) -> Option<(Value, AwaitedCall)> {
        let ty = self.type_of(frame.stack.last()?);
        let Value::Function(enter) = types::lookup(ty, &self.names.aenter)? else {
            return None;
        };
        if generator_kind(&enter) != Some(GenKind::Coroutine) || !binds_positionally(&enter, 1) {
            return None;
        }
        let exit = types::lookup(ty, &self.names.aexit)?;
        let ip = frame.ip as usize;
        if !matches!(body.code.instructions.get(ip), Some(Instr::GetAwaitable(_))) {
            return None;
        }
        let (send_at, target) = sends_none_first(body, ip + 1)?;
        // The manager moves up one place, above the bound `__aexit__`.
        let at = frame.stack.len();
        let call = AwaitedCall {
            renamed: enter.renamed.get(),
            stand_in: Some(enter),
            unbind: false,
            kind: GenKind::Coroutine,
            callable_at: at,
            args_start: at,
            send_at,
            target,
            skipped: 3,
        };
        Some((exit, call))
    }

    /// Runs `async with mgr`'s entry fused ([`Vm::awaited_aenter`], [`Vm::can_fuse`]): the
    /// bound `__aexit__` goes under the manager, and `__aenter__`'s first step starts.
    pub(super) fn enter_async_with_fused(
        &mut self,
        callees: &mut InlineFrames,
        base: &mut Frame,
        exit: Value,
        call: AwaitedCall,
    ) {
        let frame = callees.current(base);
        let mgr = super::stack::pop!(frame);
        let exit = self.bind_special(exit, &mgr);
        frame.stack.push(exit);
        frame.stack.push(mgr);
        self.start_first_step(callees, base, call);
    }

    /// Whether `call` can run fused: its frame is within the recursion limit, and the
    /// instructions it skips are not the ones where the limits are due to be checked.
    #[inline]
    pub(super) fn can_fuse(&self, call: &AwaitedCall) -> bool {
        self.depth < self.recursion_limit && self.countdown > call.skipped
    }

    /// Runs an [`AwaitedCall`] fused ([`Vm::can_fuse`]): starts the generator's first step
    /// at once, as the skipped `Send` would, the generator made only if it comes to be
    /// needed ([`InlineFrames::push_first_step`]).
    pub(super) fn start_first_step(
        &mut self,
        callees: &mut InlineFrames,
        base: &mut Frame,
        call: AwaitedCall,
    ) {
        let AwaitedCall {
            stand_in,
            unbind,
            renamed,
            kind,
            callable_at,
            args_start,
            send_at,
            target,
            skipped,
        } = call;
        self.countdown -= skipped;
        self.depth += 1;
        let caller = callees.current(base);
        if unbind {
            unbind_method(&mut caller.stack, callable_at);
        }
        // The caller goes on after the `Send`, as it would once the generator yields.
        caller.ip = send_at as u32 + 1;
        let after = AfterGenerator::Send(target);
        callees.push_first_step(self, base, stand_in, (callable_at, args_start), kind, after);
        self.exc_info.push(Value::None);
        // Made at once for the frame events of a trace, which name it, and for a renamed
        // function, whose names might change again before the generator is made.
        if (renamed || crate::common::trace::on(crate::common::trace::Category::Frames))
            && let Some(generator) = callees.make_first_stepping(self, base)
            && let ObjectKind::Generator(g) = &generator.kind
        {
            super::trace::frame_enter(self, g, callees.current(base), &Value::None, None);
        }
    }
}

/// For an [`AwaitedCall::unbind`]: the bound method at `stack[at]` gives way to its `self`,
/// and the NULL above it, if there is one, goes, so that the arguments start at `at`.
#[inline(never)]
fn unbind_method(stack: &mut Vec<Value>, at: usize) {
    let this = match &stack[at] {
        Value::Object(method) => match &method.kind {
            ObjectKind::BoundMethod { this, .. } => this.clone(),
            _ => return,
        },
        _ => return,
    };
    stack[at] = this;
    if stack.get(at + 1).is_some_and(Value::is_null) {
        stack.remove(at + 1);
    }
}

// ---- generator frames lent to the loop: `Send`, `ForIter`, and back -------------------

/// For `Send` (`most`: Coroutine) or `ForIter` (`most`: Generator): the generator object
/// behind `receiver` when its frame can be lent to [`InlineFrames`]: a generator, or for
/// `Send` also a coroutine (an async generator's steps go through its awaitables).
#[inline]
pub(super) fn inline_generator(receiver: &Value, most: GenKind) -> Option<Rc<Object>> {
    let Value::Object(o) = receiver else {
        return None;
    };
    let ObjectKind::Generator(g) = &o.kind else {
        return None;
    };
    let lendable = g.kind == GenKind::Generator || g.kind == most;
    lendable.then(|| o.clone())
}

/// For a generator's `frame` suspended in a `yield from`/`await` send loop, at its jump
/// back to the `Send`: the generator it sends to, when that one's frame can be lent too,
/// and the `Send`'s target.
#[inline(always)]
pub(super) fn sends_on(frame: &Frame) -> Option<(Rc<Object>, u32)> {
    // The quickened copy is one load closer, and differs only where a run starts.
    let instrs = &frame.code.running()?.quick;
    let &Instr::JumpNoInterrupt(send_at) = instrs.get(frame.ip as usize)? else {
        return None;
    };
    let &Instr::Send(target) = instrs.get(send_at as usize)? else {
        return None;
    };
    Some((sends_again(frame)?, target))
}

/// [`sends_on`] for a frame known to be suspended in a send loop: the generator it sends
/// to, when that one's frame can be lent too.
#[inline(always)]
pub(super) fn sends_again(frame: &Frame) -> Option<Rc<Object>> {
    inline_generator(frame.stack.last()?, GenKind::Coroutine)
}

/// Continues the frame that sent into (or iterated) a generator with what the generator did:
/// a yielded value is pushed for the next instruction; a return ends the `Send` loop with
/// its value, or the `for` loop, whose exhausted iterator comes back (for
/// [`Vm::recycle_generator`]), or raises StopIteration at a `send()` call; an exception is
/// given back to raise at the instruction.
#[inline(always)]
fn resume_caller(
    vm: &Vm,
    caller: &mut Frame,
    result: FrameResult,
    after: AfterGenerator,
) -> PyResult<Option<Value>> {
    match (result, after) {
        (FrameResult::Yielded(v), _) => caller.stack.push(v),
        (FrameResult::Returned(v), AfterGenerator::Send(target)) => {
            caller.stack.push(v);
            caller.ip = target;
        }
        (FrameResult::Returned(_), AfterGenerator::ForIter(target)) => {
            caller.ip = target;
            return Ok(caller.stack.pop());
        }
        (FrameResult::Returned(v), AfterGenerator::Call) => return Err(vm.stop_iteration(v)),
        (FrameResult::Err(e), _) => return Err(e),
    }
    Ok(None)
}

impl Vm {
    /// Resumes `generator` with `value` on `callees`, one level deeper: its frame becomes the
    /// executing one. When it refuses to run (already executing, finished, a non-None first
    /// send) the caller gets that outcome at once.
    ///
    /// A generator suspended in a `yield from`/`await` send loop over another generator is
    /// passed straight through ([`Vm::pass_through`]): its frame stays suspended, and
    /// `value` goes on down to the generator it sends to, level after level, without a trip
    /// through the dispatch loop (the chain of an `await` resumes in one go). Its `Jump`
    /// back to the `Send` and that `Send` count as run. Stops where anything else is next:
    /// a receiver that is not a generator (a Future's iterator), or a check of the limits
    /// due.
    pub(super) fn enter_generator(
        &mut self,
        callees: &mut InlineFrames,
        base: &mut Frame,
        mut generator: Rc<Object>,
        value: Value,
        mut after: AfterGenerator,
    ) -> PyResult<()> {
        // (Asked once: nothing that runs on the way down can turn tracing on or off.)
        let traced = crate::common::trace::on(crate::common::trace::Category::Frames);
        let passed = if traced {
            self.pass_down::<true>(callees, generator, &value, after)
        } else {
            self.pass_down::<false>(callees, generator, &value, after)
        };
        (generator, after) = passed?;
        let ObjectKind::Generator(g) = &generator.kind else {
            return Err(self.runtime_error("lent frame of a non-generator"));
        };
        match self.start_resume(g, value, None) {
            Ok(frame) => {
                callees.push_generator(self, generator, frame, after);
                Ok(())
            }
            Err(refused) => {
                self.leave_recursion();
                self.lend_passed(callees)?;
                let caller = callees.current(base);
                resume_caller(self, caller, refused.with_throw(None), after).map(drop)
            }
        }
    }

    /// [`Vm::enter_generator`]'s way down, `TRACED` when frame events are traced: passes
    /// through `generator` and those it sends to while it can, one recursion level each
    /// (RecursionError at the limit). Gives the generator to resume, one level deeper, and
    /// how its caller goes on.
    #[inline(always)]
    fn pass_down<const TRACED: bool>(
        &mut self,
        callees: &mut InlineFrames,
        mut generator: Rc<Object>,
        value: &Value,
        mut after: AfterGenerator,
    ) -> PyResult<(Rc<Object>, AfterGenerator)> {
        // The recursion depth and the countdown, kept here on the way down and stored once:
        // nothing on the way down reads them.
        let (mut depth, mut countdown) = (self.depth, self.countdown);
        loop {
            if depth >= self.recursion_limit {
                (self.depth, self.countdown) = (depth, countdown);
                return Err(self.refuse_too_deep(callees, &generator));
            }
            depth += 1;
            if countdown <= 2 {
                break;
            }
            match self.pass_through(generator, value, after, TRACED) {
                Ok((passed, sub, target)) => {
                    countdown -= 2;
                    callees.push_passed(passed);
                    generator = sub;
                    after = AfterGenerator::Send(target);
                }
                Err(not_passed) => {
                    generator = not_passed;
                    break;
                }
            }
        }
        (self.depth, self.countdown) = (depth, countdown);
        Ok((generator, after))
    }

    /// [`Vm::enter_generator`] reached the recursion limit entering `generator`: the
    /// RecursionError, raised in the generator passed through last if there is one.
    #[cold]
    #[inline(never)]
    fn refuse_too_deep(&mut self, callees: &mut InlineFrames, generator: &Object) -> Exc {
        let e = self.recursion_error();
        if let ObjectKind::Generator(g) = &generator.kind {
            self.end_if_unstarted(g);
        }
        match self.lend_passed(callees) {
            Ok(()) => e,
            Err(lost) => lost,
        }
    }

    /// The generator passed through last ([`Vm::pass_through`]), if the frame it sent to
    /// has just left `callees`, goes on after all ([`Vm::lend_popped`]).
    #[inline(never)]
    fn lend_passed(&mut self, callees: &mut InlineFrames) -> PyResult<()> {
        match callees.pop_passed() {
            Some(passed) => self.lend_popped(callees, passed),
            None => Ok(()),
        }
    }

    /// A generator passed through, its link just taken off `callees`
    /// ([`InlineFrames::pop_passed`]), goes on after all: its frame is lent as the executing
    /// one, about to go on from its `Send`.
    #[inline(never)]
    fn lend_popped(&mut self, callees: &mut InlineFrames, passed: Passed) -> PyResult<()> {
        let Passed { generator, after } = passed;
        let frame = match &generator.kind {
            ObjectKind::Generator(g) => self.take_passed_frame(g),
            _ => None,
        };
        let Some(frame) = frame else {
            return Err(self.runtime_error("a generator passed through lost its frame"));
        };
        callees.push_generator(self, generator, frame, after);
        Ok(())
    }

    /// The executing frame, a generator's lent frame, yielded `value`: the frame goes back
    /// to its generator, suspended, and its caller continues with `value`. A caller that is
    /// a generator's frame in a send loop, whose next instruction yields `value` on, leaves
    /// too, level after level, without a trip through the dispatch loop and without `value`
    /// pushed and popped at each level: the way back up of [`Vm::enter_generator`].
    #[inline(always)]
    pub(super) fn leave_yielding(
        &mut self,
        callees: &mut InlineFrames,
        base: &mut Frame,
        value: Value,
    ) -> PyResult<()> {
        let traced = crate::common::trace::on(crate::common::trace::Category::Frames);
        loop {
            let left = match callees.first_step_on_top() {
                Some(_) => callees.pop_first_step_made(self, base),
                None => callees.pop_generator().map(|(g, frame, _)| (g, frame)),
            };
            let Some((generator, frame)) = left else {
                return Err(self.runtime_error("the executing frame is not a generator's"));
            };
            let ObjectKind::Generator(g) = &generator.kind else {
                return Err(self.runtime_error("lent frame of a non-generator"));
            };
            self.suspend(g, frame, &value);
            self.leave_recursion();
            drop(generator);
            if self.unpass_all(callees, &value, traced) {
                self.lend_passed(callees)?;
                callees.current(base).stack.push(value);
                return Ok(());
            }
            let yields_on = callees.generator_on_top() && self.countdown > 1;
            let caller = callees.current(base);
            let instrs = caller.code.running().map_or(&[][..], |body| &body.quick);
            if !(yields_on && matches!(instrs.get(caller.ip as usize), Some(Instr::YieldValue(_))))
            {
                caller.stack.push(value);
                return Ok(());
            }
            self.countdown -= 1;
            caller.ip += 1;
        }
    }

    /// For [`Vm::leave_yielding`]: the generators the send passed through on the way to
    /// the frame that left suspend again, each yielding `value` on (its `YieldValue` counts
    /// as run), unless a check of the limits is due: then gives true, the generator passed
    /// through last still on `callees`.
    #[inline(always)]
    fn unpass_all(&mut self, callees: &mut InlineFrames, value: &Value, traced: bool) -> bool {
        // (Kept here, stored once: nothing on the way up reads them.)
        let (mut countdown, mut depth) = (self.countdown, self.depth);
        let due = loop {
            if countdown <= 1 {
                break callees.passed_on_top().is_some();
            }
            let Some(passed) = callees.pop_passed() else {
                break false;
            };
            countdown -= 1;
            depth -= 1;
            self.unpass(passed, value, traced);
        };
        (self.countdown, self.depth) = (countdown, depth);
        due
    }

    /// [`Vm::leave_lent`] for a return.
    #[inline(always)]
    pub(super) fn leave_returning(
        &mut self,
        callees: &mut InlineFrames,
        base: &mut Frame,
        value: Value,
    ) -> PyResult<()> {
        self.leave_lent(callees, base, FrameResult::Returned(value))
    }

    /// [`Vm::leave_lent`] for an exception that escaped: it is given back, to raise in the
    /// caller.
    pub(super) fn leave_raising(
        &mut self,
        callees: &mut InlineFrames,
        base: &mut Frame,
        exc: Exc,
    ) -> PyResult<()> {
        self.leave_lent(callees, base, FrameResult::Err(exc))
    }

    /// The executing frame, a generator's lent frame, returned or raised (`result`): the
    /// frame goes back to its generator ([`Vm::finish_resume`]) and its caller resumes with
    /// the outcome; an exception is given back to raise in the caller. Inlined into one
    /// wrapper per outcome, so each takes a short path of its own.
    #[inline(always)]
    fn leave_lent(
        &mut self,
        callees: &mut InlineFrames,
        base: &mut Frame,
        result: FrameResult,
    ) -> PyResult<()> {
        if let Some((kind, after)) = callees.first_step_on_top() {
            return self.leave_first_step(callees, base, kind, result, after);
        }
        let Some((generator, frame, after)) = callees.pop_generator() else {
            return Err(self.runtime_error("the executing frame is not a generator's"));
        };
        let ObjectKind::Generator(g) = &generator.kind else {
            return Err(self.runtime_error("lent frame of a non-generator"));
        };
        let result = self.finish_resume(g, frame, result, true);
        self.leave_recursion();
        // The frame's own reference goes first: a `for` loop's generator may then be the
        // last one's, and be reused.
        drop(generator);
        // (Checked here so that the common case makes no call to the out-of-line lend.)
        if callees.passed_on_top().is_some() {
            self.lend_passed(callees)?;
        }
        let caller = callees.current(base);
        if FINALIZERS_PENDING.load(Ordering::Relaxed) {
            self.run_finalizers(Some((&caller.code, caller.ip as usize)));
        }
        if self.tracing_on() {
            self.trace_generator_end(caller, &result, after)?;
        }
        if let Some(exhausted) = resume_caller(self, caller, result, after)? {
            self.recycle_generator(exhausted);
        }
        Ok(())
    }

    /// [`Vm::leave_lent`] of a first step whose generator was never made
    /// ([`InlineFrames::first_step_on_top`]): what [`Vm::finish_resume`] does to a frame
    /// that ends (its exception state goes, then its locals; PEP 479 for what it raised),
    /// with no generator to mark finished. The caller's `EndSend` drops the function that
    /// stood in for it.
    #[inline(always)]
    fn leave_first_step(
        &mut self,
        callees: &mut InlineFrames,
        base: &mut Frame,
        kind: GenKind,
        result: FrameResult,
        after: AfterGenerator,
    ) -> PyResult<()> {
        if let Some(exc_state) = self.exc_info.pop() {
            exc_state.discard();
        }
        callees.pop_first_step();
        self.leave_recursion();
        let result = match result {
            FrameResult::Err(e) => self.pep479(kind, FrameResult::Err(e)),
            other => other,
        };
        let caller = callees.current(base);
        if FINALIZERS_PENDING.load(Ordering::Relaxed) {
            self.run_finalizers(Some((&caller.code, caller.ip as usize)));
        }
        if self.tracing_on() {
            self.trace_generator_end(caller, &result, after)?;
        }
        resume_caller(self, caller, result, after).map(drop)
    }
}
