//! The evaluation loop: runs one [`Frame`] until it returns, yields or raises
//! (`Python/ceval.c`, `Python/bytecodes.c`). Exceptions unwind through the code object's
//! exception table; each frame an exception passes through adds a traceback entry. Sandbox
//! limits (`max_steps`, `time_limit`) cost one countdown per instruction.

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::atomic::Ordering;

use crate::compile::bytecode::{BinaryOperator, Instr, Intrinsic1};

use super::attr_cache::instance_attr_hit;
use super::call::{binds_positionally, generator_kind};
use super::dict::StrKeys;
use super::frame::{AfterGenerator, Frame, InlineFrames, move_arguments};
use super::generator::{FINALIZERS_PENDING, as_generator, is_send_method};
use super::object::{CodeObj, Function, GlobalSlot, Object, ObjectKind, TracebackEntry};
use super::ops::compare_native;
use super::quicken;
use super::types;
use super::value::{PyDict, PyStr, Value};
use super::{Exc, PyResult, Vm};
use crate::vm::frame::FrameResult;
use crate::vm::frame::GenKind;

/// `x op y` for two small ints when the result is a small int and no error is possible
/// (overflow, zero divisors and negative shifts take the general path).
#[inline(always)]
fn small_int_op(op: BinaryOperator, x: i64, y: i64) -> Option<i64> {
    use BinaryOperator::*;
    match op.base() {
        Add => x.checked_add(y),
        Subtract => x.checked_sub(y),
        Multiply => x.checked_mul(y),
        FloorDivide if y != 0 && !(x == i64::MIN && y == -1) => {
            Some(x.div_euclid(y) - i64::from(y < 0 && x.rem_euclid(y) != 0))
        }
        Remainder if y != 0 && !(x == i64::MIN && y == -1) => {
            let r = x % y;
            Some(if r != 0 && ((r < 0) != (y < 0)) {
                r + y
            } else {
                r
            })
        }
        And => Some(x & y),
        Or => Some(x | y),
        Xor => Some(x ^ y),
        Rshift if (0..64).contains(&y) => Some(x >> y),
        Lshift if (0..63).contains(&y) && (x << y) >> y == x => Some(x << y),
        _ => None,
    }
}

/// `x op y` for two small ints or two floats when no error or method call is possible;
/// `None` for any other operands (which must then take the general path).
#[inline(always)]
fn unboxed_binary_op(op: BinaryOperator, a: &Value, b: &Value) -> Option<Value> {
    use BinaryOperator::*;
    match (a, b) {
        (Value::Int(x), Value::Int(y)) => small_int_op(op, *x, *y).map(Value::Int),
        (Value::Float(x), Value::Float(y)) => match op.base() {
            Add => Some(Value::Float(x + y)),
            Subtract => Some(Value::Float(x - y)),
            Multiply => Some(Value::Float(x * y)),
            TrueDivide if *y != 0.0 => Some(Value::Float(x / y)),
            _ => None,
        },
        _ => None,
    }
}

/// Discards two operands already known to be unboxed (ints, floats) without calling the
/// generic `Value` destructor: they own nothing, so nothing leaks.
#[inline(always)]
fn forget_unboxed(a: Value, b: Value) {
    std::mem::forget(a);
    std::mem::forget(b);
}

/// For `Call(n)` with the callable at `stack[base]`: the function to call inline and where
/// its arguments (self included) start, when the callable is a plain Python function (not
/// a generator or coroutine) called with exactly its positional parameters.
#[inline]
fn inline_call(frame: &Frame, base: usize) -> Option<(Rc<Function>, usize)> {
    let Value::Function(f) = frame.stack.get(base)? else {
        return None;
    };
    let has_self = !frame.stack.get(base + 1)?.is_null();
    let args_start = if has_self { base + 1 } else { base + 2 };
    takes_exactly(f, frame.stack.len() - args_start).then(|| (f.clone(), args_start))
}

/// A call whose result is awaited (or delegated to) at once, run fused
/// ([`Vm::start_first_step`]).
struct AwaitedCall {
    func: Rc<Function>,
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

/// For `Call(n)` with the callable at `stack[base]`: the call, when it is `await f(…)` of
/// a coroutine function or `yield from g(…)` of a generator function, called with exactly
/// its positional parameters: the call is followed by `GetAwaitable` (or
/// `GetYieldFromIter`), `LoadConst(None)` and the `Send` of the send loop. Those three
/// would do nothing but send None into the new generator, so they are skipped.
#[inline]
fn awaited_call(frame: &Frame, code: &CodeObj, base: usize) -> Option<AwaitedCall> {
    let Value::Function(f) = frame.stack.get(base)? else {
        return None;
    };
    let kind = generator_kind(f)?;
    let ip = frame.ip;
    let fetches = matches!(
        (kind, code.code.instructions.get(ip)?),
        (GenKind::Coroutine, Instr::GetAwaitable(_))
            | (GenKind::Generator, Instr::GetYieldFromIter)
    );
    let (send_at, target) = sends_none_first(code, ip + 1).filter(|_| fetches)?;
    let has_self = !frame.stack.get(base + 1)?.is_null();
    let args_start = if has_self { base + 1 } else { base + 2 };
    binds_positionally(f, frame.stack.len() - args_start).then(|| AwaitedCall {
        func: f.clone(),
        kind,
        callable_at: base,
        args_start,
        send_at,
        target,
        skipped: 3,
    })
}

/// `LoadConst(None)` then `Send` at `ip`: the start of the send loop of an `await` or a
/// `yield from`, where the first value sent is None. Where that `Send` is, and its target.
#[inline]
fn sends_none_first(code: &CodeObj, ip: usize) -> Option<(usize, u32)> {
    let instrs = &code.code.instructions;
    let &Instr::LoadConst(none) = instrs.get(ip)? else {
        return None;
    };
    let &Instr::Send(target) = instrs.get(ip + 1)? else {
        return None;
    };
    code.consts
        .get(none as usize)?
        .is_none()
        .then_some((ip + 1, target))
}

/// For `Call(n)` with the callable at `stack[base]`: the generator whose frame the call
/// runs, and whether it sends the call's argument, when the call is `generator.send(v)`
/// (of a generator or coroutine) or `next(generator)` (the built-in, on a plain generator).
#[inline]
fn inline_send(frame: &Frame, base: usize, n: usize) -> Option<(Rc<Object>, bool)> {
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

/// Whether a call of `f` with `nargs` positional arguments can run inline: `f` is a plain
/// function (not a generator or coroutine) that [`binds_positionally`].
#[inline]
fn takes_exactly(f: &Function, nargs: usize) -> bool {
    binds_positionally(f, nargs) && generator_kind(f).is_none()
}

impl Vm {
    /// For `Call(n)` with a class at `stack[base]` (and NULL above it): when the class is
    /// made by `object.__new__` and initialised by a Python `__init__` taking exactly the
    /// call's positional arguments, makes the instance, puts it in the NULL's place as
    /// `self`, and gives the `__init__` to run inline with it.
    #[inline]
    fn inline_init(&self, frame: &mut Frame, base: usize) -> Option<(Rc<Function>, Value)> {
        let Value::Type(cls) = frame.stack.get(base)? else {
            return None;
        };
        if cls.builtin || !frame.stack.get(base + 1)?.is_null() {
            return None;
        }
        let init = types::inline_init(self, cls)?;
        if !takes_exactly(&init, frame.stack.len() - (base + 1)) {
            return None;
        }
        let instance = self.new_instance(cls);
        frame.stack[base + 1] = instance.clone();
        Some((init, instance))
    }
}

/// For a quickened instruction (`vm::quicken`) standing for a load of `locals` and the
/// `more` instructions after it: whether it runs them all now. It does when the locals are
/// bound and the steps left before the limits are checked outlast the run; it then counts
/// those steps and moves `ip` to the run's last instruction.
#[inline(always)]
fn runs_whole<const N: usize>(
    vm: &mut Vm,
    frame: &mut Frame,
    locals: [usize; N],
    more: u64,
) -> bool {
    if vm.countdown <= more || locals.iter().any(|&l| frame.locals[l].is_null()) {
        return false;
    }
    vm.countdown -= more;
    frame.ip += more as usize;
    true
}

/// The two locals of a `LOAD_FAST_LOAD_FAST` pair (and of the runs that start with one).
#[inline(always)]
fn nibbles(pair: u32) -> [usize; 2] {
    [(pair >> 4) as usize, (pair & 15) as usize]
}

/// `a op b` for a quickened run, its operands read where they are (a local, a constant).
#[inline(always)]
fn binary_in_place(vm: &mut Vm, op: BinaryOperator, a: &Value, b: &Value) -> PyResult<Value> {
    match unboxed_binary_op(op, a, b) {
        Some(r) => Ok(r),
        None => vm.binary_op(op, a, b),
    }
}

/// The end of a comparison run whose result is the plain bool `b`: pushes it, or, when a
/// `POP_JUMP_IF_FALSE`/`POP_JUMP_IF_TRUE` is next whose step can be counted before the
/// limits are due, runs that branch now.
#[inline(always)]
fn push_or_branch(vm: &mut Vm, frame: &mut Frame, instrs: &[Instr], b: bool) {
    let taken = match instrs.get(frame.ip) {
        Some(&Instr::PopJumpIfFalse(target)) if vm.countdown > 1 => (!b).then_some(target),
        Some(&Instr::PopJumpIfTrue(target)) if vm.countdown > 1 => b.then_some(target),
        _ => return frame.stack.push(Value::Bool(b)),
    };
    vm.countdown -= 1;
    frame.ip = match taken {
        Some(target) => target as usize,
        None => frame.ip + 1,
    };
}

/// Whether `v` is a coroutine that has not started (the operand of most `await`s).
#[inline]
fn is_unstarted_coroutine(v: &Value) -> bool {
    as_generator(v).is_some_and(|g| g.kind == GenKind::Coroutine && !g.state.borrow().started)
}

/// For `Send` (`most`: Coroutine) or `ForIter` (`most`: Generator): the generator object
/// behind `receiver` when its frame can be lent to [`InlineFrames`]: a generator, or for
/// `Send` also a coroutine (an async generator's steps go through its awaitables).
#[inline]
fn inline_generator(receiver: &Value, most: GenKind) -> Option<Rc<Object>> {
    let Value::Object(o) = receiver else {
        return None;
    };
    let ObjectKind::Generator(g) = &o.kind else {
        return None;
    };
    let lendable = g.kind == GenKind::Generator || g.kind == most;
    lendable.then(|| o.clone())
}

/// For a generator's `frame` suspended in a `yield from`/`await` send loop, at its `Jump`
/// back to the `Send`: the generator it sends to, when that one's frame can be lent too,
/// and the `Send`'s target.
#[inline(always)]
pub(super) fn sends_on(frame: &Frame) -> Option<(Rc<Object>, u32)> {
    // The quickened copy is one load closer, and differs only where a run starts.
    let instrs = &frame.code.quick;
    let &Instr::Jump(send_at) = instrs.get(frame.ip)? else {
        return None;
    };
    let &Instr::Send(target) = instrs.get(send_at as usize)? else {
        return None;
    };
    let sub = inline_generator(frame.stack.last()?, GenKind::Coroutine)?;
    Some((sub, target))
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
            caller.ip = target as usize;
        }
        (FrameResult::Returned(_), AfterGenerator::ForIter(target)) => {
            caller.ip = target as usize;
            return Ok(caller.stack.pop());
        }
        (FrameResult::Returned(v), AfterGenerator::Call) => return Err(vm.stop_iteration(v)),
        (FrameResult::Err(e), _) => return Err(e),
    }
    Ok(None)
}

/// How `execute` stopped without an error.
enum Exit {
    Return(Value),
    Yield(Value),
}

/// Where an instruction may have dropped the last reference to a generator: run the
/// finalizers its `Drop` queued (close, "never awaited"), blamed on this instruction.
macro_rules! finalize_point {
    ($vm:expr, $frame:expr, $code:expr) => {
        if FINALIZERS_PENDING.load(Ordering::Relaxed) {
            $vm.run_finalizers(Some(($code, $frame.ip)));
        }
    };
}

/// `LoadFast(i)`: push local i, or raise UnboundLocalError.
macro_rules! load_fast {
    ($vm:expr, $frame:expr, $code:expr, $i:expr) => {{
        let i = $i as usize;
        let v = &$frame.locals[i];
        if v.is_null() {
            return Err($vm.unbound_local(&$code.varnames[i]));
        }
        $frame.stack.push(v.clone());
    }};
}

/// `StoreFast(i)`: pop into local i.
macro_rules! store_fast {
    ($vm:expr, $frame:expr, $code:expr, $i:expr) => {{
        let v = pop!($frame);
        std::mem::replace(&mut $frame.locals[$i as usize], v).discard();
        finalize_point!($vm, $frame, $code);
    }};
}

/// Pops the top of the stack as a truth value (`bool(v)`), without the generic destructor
/// when it is a bool.
macro_rules! pop_truth {
    ($vm:expr, $frame:expr) => {{
        let v = pop!($frame);
        let b = match v {
            Value::Bool(b) => b,
            ref other => $vm.truthy(other)?,
        };
        v.discard();
        b
    }};
}

/// A quickened instruction (`vm::quicken`) standing for loads of `locals` and the `more`
/// instructions after them: when [`runs_whole`] says it may, runs `body` with the locals'
/// values bound to the pattern (borrowed where they are: `ip` is already at the run's
/// last instruction, so errors and tracebacks see that instruction running); otherwise
/// just the loads, and the rest of the run follows one by one.
macro_rules! quickened_run {
    ($vm:expr, $frame:expr, $code:expr, $locals:expr, $more:expr, |$values:pat_param| $body:block) => {{
        let locals = $locals;
        if runs_whole($vm, $frame, locals, $more) {
            let $values = locals.map(|l| &$frame.locals[l]);
            $body
        } else {
            for l in locals {
                load_fast!($vm, $frame, $code, l);
            }
        }
    }};
}

/// `a op b` for a quickened comparison run, its operands read where they are (locals, a
/// constant): two ints are compared at once and may take the branch after the run
/// ([`push_or_branch`]); anything else goes the general way and is pushed.
macro_rules! compare_in_place {
    ($vm:expr, $frame:expr, $instrs:expr, $op:expr, $a:expr, $b:expr) => {
        if let (Value::Int(x), Value::Int(y)) = ($a, $b) {
            let r = compare_native($op, x, y);
            push_or_branch($vm, $frame, $instrs, r);
        } else {
            let r = $vm.compare_values($op, $a, $b)?;
            $frame.stack.push(r);
        }
    };
}

/// The end of an operator run: pushes its result `r`, or, when a `STORE_FAST` is next and
/// its step can be counted before the limits are due, stores `r` there now.
macro_rules! push_or_store {
    ($vm:expr, $frame:expr, $code:expr, $instrs:expr, $r:expr) => {
        match $instrs.get($frame.ip) {
            Some(&Instr::StoreFast(i)) if $vm.countdown > 1 => {
                $vm.countdown -= 1;
                $frame.ip += 1;
                std::mem::replace(&mut $frame.locals[i as usize], $r).discard();
                finalize_point!($vm, $frame, $code);
            }
            _ => $frame.stack.push($r),
        }
    };
}

macro_rules! pop {
    ($frame:expr) => {
        match $frame.stack.pop() {
            Some(v) => v,
            None => Value::Null,
        }
    };
}

macro_rules! top {
    ($frame:expr) => {
        match $frame.stack.last() {
            Some(v) => v,
            None => &Value::Null,
        }
    };
}

impl Vm {
    /// Runs `frame` until it returns or yields. With `throw`, the exception is raised at the
    /// frame's current position first (generator `throw()`).
    pub fn run_frame(&mut self, frame: &mut Frame, throw: Option<Exc>) -> FrameResult {
        self.frame_deeper(|vm| vm.run_frame_unwinding(frame, throw))
    }

    /// Runs `base` and, inline, the plain Python functions it calls ([`InlineFrames`]), so
    /// a Python-to-Python call needs no Rust recursion (as in CPython 3.11+). An exception
    /// no handler of a callee catches is raised again in its caller.
    pub(super) fn run_frame_unwinding(
        &mut self,
        base: &mut Frame,
        mut throw: Option<Exc>,
    ) -> FrameResult {
        let mut callees = InlineFrames::default();
        let result = loop {
            let exc = match throw.take() {
                Some(e) => e,
                None => match self.execute(base, &mut callees) {
                    Ok(Exit::Return(v)) => break FrameResult::Returned(v),
                    Ok(Exit::Yield(v)) => break FrameResult::Yielded(v),
                    Err(e) => e,
                },
            };
            let Some(escaped) = self.unwind(callees.current(base), exc) else {
                continue;
            };
            if callees.is_empty() {
                break FrameResult::Err(escaped);
            }
            // The exception leaves an inline callee: it is raised again in its caller, at
            // the call (or send) instruction.
            if callees.generator_on_top() {
                throw = self.leave_raising(&mut callees, base, escaped).err();
            } else {
                callees.pop_call(self, base);
                throw = Some(escaped);
            }
        };
        callees.finish(self);
        result
    }

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
    fn enter_generator(
        &mut self,
        callees: &mut InlineFrames,
        base: &mut Frame,
        mut generator: Rc<Object>,
        value: Value,
        mut after: AfterGenerator,
    ) -> PyResult<()> {
        // (Asked once: nothing that runs on the way down can turn tracing on or off.)
        let traced = crate::trace::on(crate::trace::Category::Frames);
        loop {
            if let Err(e) = self.enter_recursion() {
                if let ObjectKind::Generator(g) = &generator.kind {
                    self.end_if_unstarted(g);
                }
                self.lend_passed(callees)?;
                return Err(e);
            }
            if self.countdown <= 2 {
                break;
            }
            match self.pass_through(generator, &value, after, traced) {
                Ok((passed, sub, target)) => {
                    self.countdown -= 2;
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

    /// The generator passed through last ([`Vm::pass_through`]), if the frame it sent to
    /// has just left `callees`, goes on after all: its frame is lent as the executing one,
    /// about to go on from its `Send`.
    #[inline(never)]
    fn lend_passed(&mut self, callees: &mut InlineFrames) -> PyResult<()> {
        let Some(passed) = callees.passed_on_top() else {
            return Ok(());
        };
        let (generator, after) = (passed.generator.clone(), passed.after);
        callees.drop_passed();
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

    /// For `GetAwaitable` with the awaited object on top of the stack: `await obj` of an
    /// object whose `__await__` is a generator function, when the send loop follows. The
    /// call of `__await__` is made like an [`AwaitedCall`], `obj` its argument.
    #[inline]
    fn awaited_await_method(&self, frame: &Frame, code: &CodeObj) -> Option<AwaitedCall> {
        let func = self.await_generator_function(frame.stack.last()?)?;
        let (send_at, target) = sends_none_first(code, frame.ip)?;
        let at = frame.stack.len() - 1;
        Some(AwaitedCall {
            func,
            kind: GenKind::Generator,
            callable_at: at,
            args_start: at,
            send_at,
            target,
            skipped: 2,
        })
    }

    /// Whether `call` can run fused: its frame is within the recursion limit, and the
    /// instructions it skips are not the ones where the limits are due to be checked.
    #[inline]
    fn can_fuse(&self, call: &AwaitedCall) -> bool {
        self.depth < self.recursion_limit && self.countdown > call.skipped
    }

    /// Runs an [`AwaitedCall`] fused ([`Vm::can_fuse`]): makes the generator and starts its
    /// first step at once, as the skipped `Send` would.
    fn start_first_step(
        &mut self,
        callees: &mut InlineFrames,
        base: &mut Frame,
        call: AwaitedCall,
    ) {
        let AwaitedCall {
            func,
            kind,
            callable_at,
            args_start,
            send_at,
            target,
            skipped,
        } = call;
        self.countdown -= skipped;
        self.depth += 1;
        let generator = self.new_first_stepping(kind, &func);
        // The caller goes on after the `Send`, as it would once the generator yields.
        callees.current(base).ip = send_at + 1;
        callees.push_first_step(
            self,
            base,
            &func,
            (callable_at, args_start),
            generator.clone(),
            AfterGenerator::Send(target),
        );
        self.exc_info.push(Value::None);
        if let ObjectKind::Generator(g) = &generator.kind {
            crate::trace::frame_enter(self, g, callees.current(base), &Value::None, None);
        }
    }

    /// [`Vm::leave_lent`] for an exception that escaped: it is given back, to raise in the
    /// caller.
    fn leave_raising(
        &mut self,
        callees: &mut InlineFrames,
        base: &mut Frame,
        exc: Exc,
    ) -> PyResult<()> {
        self.leave_lent(callees, base, FrameResult::Err(exc))
    }

    /// The executing frame, a generator's lent frame, yielded `value`: the frame goes back
    /// to its generator, suspended, and its caller continues with `value`. A caller that is
    /// a generator's frame in a send loop, whose next instruction yields `value` on, leaves
    /// too, level after level, without a trip through the dispatch loop and without `value`
    /// pushed and popped at each level: the way back up of [`Vm::enter_generator`].
    fn leave_yielding(
        &mut self,
        callees: &mut InlineFrames,
        base: &mut Frame,
        value: Value,
    ) -> PyResult<()> {
        let traced = crate::trace::on(crate::trace::Category::Frames);
        loop {
            let Some((generator, frame, _)) = callees.pop_generator() else {
                return Err(self.runtime_error("the executing frame is not a generator's"));
            };
            let ObjectKind::Generator(g) = &generator.kind else {
                return Err(self.runtime_error("lent frame of a non-generator"));
            };
            self.suspend(g, frame, &value);
            self.leave_recursion();
            drop(generator);
            // The generators the send passed through suspend again, each yielding `value`
            // on (its `YieldValue` counts as run), unless a check of the limits is due.
            while let Some(passed) = callees.passed_on_top() {
                if self.countdown <= 1 {
                    self.lend_passed(callees)?;
                    callees.current(base).stack.push(value);
                    return Ok(());
                }
                self.countdown -= 1;
                self.unpass(passed, &value, traced);
                callees.drop_passed();
            }
            let yields_on = callees.generator_on_top() && self.countdown > 1;
            let caller = callees.current(base);
            let instrs = &caller.code.quick;
            if !(yields_on && matches!(instrs.get(caller.ip), Some(Instr::YieldValue(_)))) {
                caller.stack.push(value);
                return Ok(());
            }
            self.countdown -= 1;
            caller.ip += 1;
        }
    }

    /// [`Vm::leave_lent`] for a return.
    fn leave_returning(
        &mut self,
        callees: &mut InlineFrames,
        base: &mut Frame,
        value: Value,
    ) -> PyResult<()> {
        self.leave_lent(callees, base, FrameResult::Returned(value))
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
        let Some((generator, frame, after)) = callees.pop_generator() else {
            return Err(self.runtime_error("the executing frame is not a generator's"));
        };
        let ObjectKind::Generator(g) = &generator.kind else {
            return Err(self.runtime_error("lent frame of a non-generator"));
        };
        let result = self.finish_resume(g, frame, result);
        self.leave_recursion();
        // The frame's own reference goes first: a `for` loop's generator may then be the
        // last one's, and be reused.
        drop(generator);
        // (Checked here so that the common case makes no call to the out-of-line lend.)
        if callees.passed_on_top().is_some() {
            self.lend_passed(callees)?;
        }
        if let Some(exhausted) = resume_caller(self, callees.current(base), result, after)? {
            self.recycle_generator(exhausted);
        }
        Ok(())
    }

    /// Adds `frame`'s traceback entry to `exc` and jumps to the handler covering the failed
    /// instruction; gives `exc` back when no handler in this frame catches it.
    fn unwind(&mut self, frame: &mut Frame, exc: Exc) -> Option<Exc> {
        let code = &frame.code;
        let lasti = frame.ip.saturating_sub(1);
        if frame.reraising {
            frame.reraising = false;
        } else if let Some(data) = exc.exc_data() {
            let fresh = data.borrow().traceback.is_empty();
            let line = code.code.line_before(frame.ip);
            data.borrow_mut().traceback.push(TracebackEntry {
                code: code.code.clone(),
                line,
                span: code.code.locations.get(lasti).map(|l| l.span),
            });
            if fresh {
                self.set_context(&exc);
            }
        }
        if self.abort.is_some() {
            return Some(exc);
        }
        let handler = code
            .code
            .exception_table
            .iter()
            .find(|e| (e.start as usize) <= lasti && lasti < e.end as usize);
        let Some(handler) = handler else {
            return Some(exc);
        };
        let (depth, push_lasti, target) = (handler.depth, handler.push_lasti, handler.target);
        frame.stack.truncate(depth as usize);
        if push_lasti {
            frame.stack.push(Value::Int(lasti as i64));
        }
        frame.stack.push(Value::Object(exc));
        frame.ip = target as usize;
        None
    }

    /// Implicit chaining: the exception being handled becomes `exc.__context__`
    /// (`_PyErr_SetObject`), breaking any cycle this would create.
    pub fn set_context(&mut self, exc: &Exc) {
        let Value::Object(handled) = self.current_exception() else {
            return;
        };
        if Rc::ptr_eq(&handled, exc) {
            return;
        }
        let mut o = handled.clone();
        while let Some(d) = o.exc_data() {
            let next = d.borrow().context.clone();
            match next {
                Value::Object(n) if Rc::ptr_eq(&n, exc) => {
                    if let Some(d) = o.exc_data() {
                        d.borrow_mut().context = Value::None;
                    }
                    break;
                }
                Value::Object(n) => o = n,
                _ => break,
            }
        }
        if let Some(d) = exc.exc_data() {
            d.borrow_mut().context = Value::Object(handled);
        }
    }

    /// Runs the executing frame until `base` returns or yields: a call to a plain Python
    /// function makes the callee the executing frame; its return resumes the caller.
    fn execute(&mut self, base: &mut Frame, callees: &mut InlineFrames) -> PyResult<Exit> {
        'frames: loop {
            let frame = callees.current(base);
            let code = frame.code.clone();
            let code = &code;
            let instrs: &[Instr] = &code.quick;
            loop {
                let Some(&instr) = instrs.get(frame.ip) else {
                    return Err(self.runtime_error("bytecode ran off the end of the code object"));
                };
                frame.ip += 1;
                // Checked after the fetch, so a KeyboardInterrupt is raised by the instruction
                // about to run (inside its `try`), not by the one before a jump.
                self.countdown -= 1;
                if self.countdown == 0
                    && let Some(stop) = self.check_limits()
                {
                    return Err(stop);
                }
                match instr {
                    Instr::Nop => {}
                    Instr::PopTop => {
                        pop!(frame).discard();
                        finalize_point!(self, frame, code);
                    }
                    Instr::PushNull => frame.stack.push(Value::Null),
                    Instr::Copy(n) => {
                        let v = frame.stack[frame.stack.len() - n as usize].clone();
                        frame.stack.push(v);
                    }
                    Instr::Swap(n) => {
                        let len = frame.stack.len();
                        frame.stack.swap(len - 1, len - n as usize);
                    }
                    Instr::LoadConst(i) => frame.stack.push(code.consts[i as usize].clone()),
                    Instr::LoadFast(i) => load_fast!(self, frame, code, i),
                    // The quickened runs (`vm::quicken`), through `quickened_run!`.
                    Instr::LoadFastLoadAttr(local, name) => {
                        quickened_run!(self, frame, code, [local as usize], 1, |[obj]| {
                            let v = match instance_attr_hit(code, name as usize, obj) {
                                Some(v) => v,
                                None => {
                                    let obj = obj.clone();
                                    self.load_attr_cached(code, name as usize, &obj)?
                                }
                            };
                            frame.stack.push(v);
                        });
                    }
                    Instr::LoadFastLoadMethod(local, name) => {
                        quickened_run!(self, frame, code, [local as usize], 1, |[obj]| {
                            let obj = obj.clone();
                            let (m, this) = self.load_method_cached(code, name as usize, obj)?;
                            frame.stack.push(m);
                            frame.stack.push(this);
                        });
                    }
                    Instr::LoadFastConstBinaryOp(op, operands) => {
                        let (local, constant) = quicken::unpack(operands);
                        quickened_run!(self, frame, code, [local], 2, |[a]| {
                            let r = binary_in_place(self, op, a, &code.consts[constant])?;
                            push_or_store!(self, frame, code, instrs, r);
                        });
                    }
                    Instr::LoadFastConstCompareOp(op, operands) => {
                        let (local, constant) = quicken::unpack(operands);
                        quickened_run!(self, frame, code, [local], 2, |[a]| {
                            compare_in_place!(self, frame, instrs, op, a, &code.consts[constant]);
                        });
                    }
                    Instr::LoadFastLoadFastBinaryOp(op, pair) => {
                        quickened_run!(self, frame, code, nibbles(pair), 1, |[a, b]| {
                            let r = binary_in_place(self, op, a, b)?;
                            push_or_store!(self, frame, code, instrs, r);
                        });
                    }
                    Instr::LoadFastLoadFastCompareOp(op, pair) => {
                        quickened_run!(self, frame, code, nibbles(pair), 1, |[a, b]| {
                            compare_in_place!(self, frame, instrs, op, a, b);
                        });
                    }
                    Instr::LoadFastLoadFastStoreAttr(pair, name) => {
                        quickened_run!(self, frame, code, nibbles(pair.into()), 1, |[v, obj]| {
                            let v = v.clone();
                            self.store_attr_cached(code, name as usize, obj, v)?;
                            finalize_point!(self, frame, code);
                        });
                    }
                    Instr::LoadFastLoadFast(pair) => {
                        for l in nibbles(pair) {
                            load_fast!(self, frame, code, l);
                        }
                    }
                    Instr::StoreFastLoadFast(pair) => {
                        store_fast!(self, frame, code, pair >> 4);
                        load_fast!(self, frame, code, pair & 15);
                    }
                    Instr::StoreFastStoreFast(pair) => {
                        store_fast!(self, frame, code, pair >> 4);
                        store_fast!(self, frame, code, pair & 15);
                    }
                    Instr::LoadFastAndClear(i) => {
                        let v = std::mem::replace(&mut frame.locals[i as usize], Value::Null);
                        frame.stack.push(v);
                    }
                    Instr::StoreFast(i) => store_fast!(self, frame, code, i),
                    Instr::DeleteFast(i) => {
                        if frame.locals[i as usize].is_null() {
                            return Err(self.unbound_local(&code.varnames[i as usize]));
                        }
                        frame.locals[i as usize] = Value::Null;
                        finalize_point!(self, frame, code);
                    }
                    Instr::LoadName(i) => {
                        let name = &code.names[i as usize];
                        let local = frame
                            .locals_dict
                            .as_ref()
                            .and_then(|d| d.table.borrow().get_str(name).cloned());
                        let v = match local {
                            Some(v) => v,
                            None => match self.load_global(&frame.globals, name) {
                                Ok(v) => v,
                                Err(e) => return Err(self.suggest_name(e, frame, name)),
                            },
                        };
                        frame.stack.push(v);
                    }
                    Instr::StoreName(i) => {
                        let v = pop!(frame);
                        let name = code.names[i as usize].clone();
                        let dict = frame.locals_dict.as_ref().unwrap_or(&frame.globals);
                        dict.table.borrow_mut().set_str(name, v);
                        finalize_point!(self, frame, code);
                    }
                    Instr::DeleteName(i) => {
                        let name = &code.names[i as usize];
                        let dict = frame.locals_dict.as_ref().unwrap_or(&frame.globals);
                        let removed = dict.table.borrow_mut().remove_str(name);
                        if removed.is_none() {
                            return Err(self.name_error(name.as_str()));
                        }
                        drop(removed);
                        finalize_point!(self, frame, code);
                    }
                    Instr::LoadGlobal(i) | Instr::LoadGlobalNull(i) => {
                        let v = match self.cached_global(code, &frame.globals, i as usize) {
                            Some(v) => v,
                            None => {
                                let name = &code.names[i as usize];
                                match self.load_global(&frame.globals, name) {
                                    Ok(v) => v,
                                    Err(e) => return Err(self.suggest_name(e, frame, name)),
                                }
                            }
                        };
                        frame.stack.push(v);
                        if matches!(instr, Instr::LoadGlobalNull(_)) {
                            frame.stack.push(Value::Null);
                        }
                    }
                    Instr::StoreGlobal(i) => {
                        let v = pop!(frame);
                        frame
                            .globals
                            .table
                            .borrow_mut()
                            .set_str(code.names[i as usize].clone(), v);
                        finalize_point!(self, frame, code);
                    }
                    Instr::DeleteGlobal(i) => {
                        let name = &code.names[i as usize];
                        let removed = frame.globals.table.borrow_mut().remove_str(name);
                        if removed.is_none() {
                            return Err(self.name_error(name.as_str()));
                        }
                        drop(removed);
                        finalize_point!(self, frame, code);
                    }
                    Instr::LoadDeref(i) => {
                        let v = self.load_deref(frame, code, i as usize)?;
                        frame.stack.push(v);
                    }
                    Instr::StoreDeref(i) => {
                        let v = pop!(frame);
                        self.cell_set(&frame.cells[i as usize], v);
                    }
                    Instr::DeleteDeref(i) => {
                        if self.cell_get(&frame.cells[i as usize]).is_null() {
                            return Err(self.unbound_deref(code, i as usize));
                        }
                        self.cell_set(&frame.cells[i as usize], Value::Null);
                    }
                    Instr::SetupAnnotations => {
                        let key = self.intern("__annotations__");
                        let dict = frame.locals_dict.as_ref().unwrap_or(&frame.globals);
                        if dict.table.borrow().get_str(&key).is_none() {
                            dict.table
                                .borrow_mut()
                                .set_str(key, Value::dict(Default::default()));
                        }
                    }
                    Instr::LoadLocals => {
                        let locals = match &frame.locals_dict {
                            Some(d) => Value::Dict(d.clone()),
                            None => return Err(self.runtime_error("no locals found")),
                        };
                        frame.stack.push(locals);
                    }
                    Instr::LoadClosure(i) => frame.stack.push(frame.cells[i as usize].clone()),
                    Instr::LoadFromDictOrDeref(i) => {
                        let mapping = pop!(frame);
                        let name = code.cellnames[i as usize].clone();
                        let found = match &mapping {
                            Value::Dict(d) => d.table.borrow().get_str(&name).cloned(),
                            _ => None,
                        };
                        let v = match found {
                            Some(v) => v,
                            None => self.load_deref(frame, code, i as usize)?,
                        };
                        frame.stack.push(v);
                    }
                    Instr::LoadAttr(i) => {
                        let obj = pop!(frame);
                        let v = match instance_attr_hit(code, i as usize, &obj) {
                            Some(v) => v,
                            None => self.load_attr_cached(code, i as usize, &obj)?,
                        };
                        frame.stack.push(v);
                    }
                    Instr::LoadMethod(i) => {
                        let obj = pop!(frame);
                        let (m, this) = self.load_method_cached(code, i as usize, obj)?;
                        frame.stack.push(m);
                        frame.stack.push(this);
                    }
                    Instr::StoreAttr(i) => {
                        let obj = pop!(frame);
                        let v = pop!(frame);
                        self.store_attr_cached(code, i as usize, &obj, v)?;
                        finalize_point!(self, frame, code);
                    }
                    Instr::DeleteAttr(i) => {
                        let obj = pop!(frame);
                        self.del_attr(&obj, &code.names[i as usize])?;
                        finalize_point!(self, frame, code);
                    }
                    Instr::LoadSuperAttr(i) | Instr::LoadSuperMethod(i) => {
                        let this = pop!(frame);
                        let class = pop!(frame);
                        let global_super = pop!(frame);
                        let name = &code.names[i as usize];
                        let is_method = matches!(instr, Instr::LoadSuperMethod(_));
                        let (attr, self_arg) =
                            self.load_super(global_super, class, this, name, is_method)?;
                        frame.stack.push(attr);
                        if is_method {
                            frame.stack.push(self_arg);
                        }
                    }
                    Instr::BinarySubscr => {
                        let key = pop!(frame);
                        let container = pop!(frame);
                        let fast = match (&container, &key) {
                            (Value::List(l), Value::Int(i)) if *i >= 0 => {
                                l.items.borrow().get(*i as usize).cloned()
                            }
                            _ => None,
                        };
                        let v = match fast {
                            Some(v) => v,
                            None => self.get_item(&container, &key)?,
                        };
                        frame.stack.push(v);
                    }
                    Instr::StoreSubscr => {
                        let key = pop!(frame);
                        let container = pop!(frame);
                        let v = pop!(frame);
                        // `list[i] = v` with an in-range index: no method lookup. The old item
                        // is dropped after the list's borrow ends.
                        if let (Value::List(l), Value::Int(i)) = (&container, &key)
                            && let Ok(mut items) = l.items.try_borrow_mut()
                            && let Some(slot) =
                                usize::try_from(*i).ok().and_then(|i| items.get_mut(i))
                        {
                            let old = std::mem::replace(slot, v);
                            drop(items);
                            drop(old);
                            continue;
                        }
                        self.set_item(&container, &key, v)?;
                        finalize_point!(self, frame, code);
                    }
                    Instr::DeleteSubscr => {
                        let key = pop!(frame);
                        let container = pop!(frame);
                        self.del_item(&container, &key)?;
                        finalize_point!(self, frame, code);
                    }
                    Instr::BinarySlice => {
                        let stop = pop!(frame);
                        let start = pop!(frame);
                        let container = pop!(frame);
                        let v = self.get_slice(&container, &start, &stop, &Value::None)?;
                        frame.stack.push(v);
                    }
                    Instr::StoreSlice => {
                        let stop = pop!(frame);
                        let start = pop!(frame);
                        let container = pop!(frame);
                        let v = pop!(frame);
                        let slice = self.new_slice(start, stop, Value::None);
                        self.set_item(&container, &slice, v)?;
                    }
                    Instr::BuildSlice(n) => {
                        let step = if n == 3 { pop!(frame) } else { Value::None };
                        let stop = pop!(frame);
                        let start = pop!(frame);
                        frame.stack.push(self.new_slice(start, stop, step));
                    }
                    Instr::UnaryNegative => {
                        let v = pop!(frame);
                        let r = self.unary_op("-", &v)?;
                        frame.stack.push(r);
                    }
                    Instr::UnaryInvert => {
                        let v = pop!(frame);
                        let r = self.unary_op("~", &v)?;
                        frame.stack.push(r);
                    }
                    Instr::UnaryNot => {
                        let v = pop!(frame);
                        let b = self.truthy(&v)?;
                        frame.stack.push(Value::Bool(!b));
                    }
                    Instr::BinaryOp(op) => {
                        let b = pop!(frame);
                        let a = pop!(frame);
                        let r = match unboxed_binary_op(op, &a, &b) {
                            Some(r) => {
                                forget_unboxed(a, b);
                                r
                            }
                            None => self.binary_op(op, &a, &b)?,
                        };
                        frame.stack.push(r);
                    }
                    Instr::CompareOp(op) => {
                        let b = pop!(frame);
                        let a = pop!(frame);
                        let r = match (&a, &b) {
                            (Value::Int(x), Value::Int(y)) => {
                                let r = Value::Bool(compare_native(op, x, y));
                                forget_unboxed(a, b);
                                r
                            }
                            _ => self.compare_values(op, &a, &b)?,
                        };
                        frame.stack.push(r);
                    }
                    Instr::IsOp(invert) => {
                        let b = pop!(frame);
                        let a = pop!(frame);
                        frame.stack.push(Value::Bool(a.is(&b) != (invert != 0)));
                    }
                    Instr::ContainsOp(invert) => {
                        let container = pop!(frame);
                        let item = pop!(frame);
                        let r = self.contains(&container, &item)?;
                        frame.stack.push(Value::Bool(r != (invert != 0)));
                    }
                    Instr::CallIntrinsic1(which) => {
                        let v = pop!(frame);
                        let r = self.intrinsic1(which, v, code)?;
                        frame.stack.push(r);
                    }
                    Instr::BuildTuple(n) => {
                        let items = frame.stack.split_off(frame.stack.len() - n as usize);
                        frame.stack.push(Value::tuple(items));
                    }
                    Instr::BuildList(n) => {
                        let items = frame.stack.split_off(frame.stack.len() - n as usize);
                        frame.stack.push(Value::list(items));
                    }
                    Instr::BuildSet(n) => {
                        let items = frame.stack.split_off(frame.stack.len() - n as usize);
                        let set = self.new_set(items, false)?;
                        frame.stack.push(set);
                    }
                    Instr::BuildMap(n) => {
                        let items = frame.stack.split_off(frame.stack.len() - 2 * n as usize);
                        let d = Rc::new(PyDict {
                            table: Default::default(),
                        });
                        let mut it = items.into_iter();
                        while let (Some(k), Some(v)) = (it.next(), it.next()) {
                            self.dict_set(&d, k, v)?;
                        }
                        frame.stack.push(Value::Dict(d));
                    }
                    Instr::BuildString(n) => {
                        let items = frame.stack.split_off(frame.stack.len() - n as usize);
                        let mut s = String::new();
                        for item in &items {
                            if let Value::Str(p) = item {
                                s.push_str(p.as_str());
                            }
                        }
                        frame.stack.push(Value::str(s));
                    }
                    Instr::ListAppend(n) => {
                        let v = pop!(frame);
                        if let Value::List(l) = &frame.stack[frame.stack.len() - n as usize] {
                            l.items.borrow_mut().push(v);
                        }
                    }
                    Instr::SetAdd(n) => {
                        let v = pop!(frame);
                        if let Value::Set(s) = frame.stack[frame.stack.len() - n as usize].clone() {
                            self.set_add(&s, v)?;
                        }
                    }
                    Instr::MapAdd(n) => {
                        let v = pop!(frame);
                        let k = pop!(frame);
                        if let Value::Dict(d) = frame.stack[frame.stack.len() - n as usize].clone()
                        {
                            self.dict_set(&d, k, v)?;
                        }
                    }
                    Instr::ListExtend(n) => {
                        let iterable = pop!(frame);
                        let target = frame.stack[frame.stack.len() - n as usize].clone();
                        let items = match self.collect_iterable(&iterable) {
                            Ok(items) => items,
                            Err(e)
                                if self.exc_matches(&e, &self.types.type_error.clone())
                                    && !self.is_iterable(&iterable) =>
                            {
                                return Err(self.type_error(format!(
                                    "Value after * must be an iterable, not {}",
                                    self.type_name(&iterable)
                                )));
                            }
                            Err(e) => return Err(e),
                        };
                        if let Value::List(l) = target {
                            l.items.borrow_mut().extend(items);
                        }
                    }
                    Instr::SetUpdate(n) => {
                        let iterable = pop!(frame);
                        let target = frame.stack[frame.stack.len() - n as usize].clone();
                        if let Value::Set(s) = target {
                            for item in self.collect_iterable(&iterable)? {
                                self.set_add(&s, item)?;
                            }
                        }
                    }
                    Instr::DictUpdate(n) | Instr::DictMerge(n) => {
                        self.op_dict_update(frame, n, matches!(instr, Instr::DictMerge(_)))?
                    }
                    Instr::UnpackSequence(n) => {
                        let seq = pop!(frame);
                        self.unpack_sequence(frame, seq, n as usize)?;
                    }
                    Instr::UnpackEx(arg) => self.op_unpack_ex(frame, arg)?,
                    Instr::ConvertValue(kind) => {
                        let v = pop!(frame);
                        let r = match kind {
                            1 => Value::Str(self.str_of(&v)?),
                            2 => Value::str(self.repr(&v)?),
                            _ => Value::str(self.ascii(&v)?),
                        };
                        frame.stack.push(r);
                    }
                    Instr::FormatSimple => {
                        let v = pop!(frame);
                        let r = match v {
                            Value::Str(_) => v,
                            other => self.format_value(&other, "")?,
                        };
                        frame.stack.push(r);
                    }
                    Instr::FormatWithSpec => {
                        let spec = pop!(frame);
                        let v = pop!(frame);
                        let spec = spec.as_str().unwrap_or("").to_owned();
                        let r = self.format_value(&v, &spec)?;
                        frame.stack.push(r);
                    }
                    Instr::Jump(target) => frame.ip = target as usize,
                    Instr::PopJumpIfFalse(target) => {
                        let b = pop_truth!(self, frame);
                        if !b {
                            frame.ip = target as usize;
                        }
                    }
                    Instr::PopJumpIfTrue(target) => {
                        let b = pop_truth!(self, frame);
                        if b {
                            frame.ip = target as usize;
                        }
                    }
                    Instr::PopJumpIfNone(target) => {
                        if pop!(frame).is_none() {
                            frame.ip = target as usize;
                        }
                    }
                    Instr::PopJumpIfNotNone(target) => {
                        if !pop!(frame).is_none() {
                            frame.ip = target as usize;
                        }
                    }
                    Instr::GetIter => {
                        let v = pop!(frame);
                        let it = self.get_iter(&v)?;
                        frame.stack.push(it);
                    }
                    Instr::ForIter(target) => {
                        if let Some(generator) = inline_generator(top!(frame), GenKind::Generator) {
                            let after = AfterGenerator::ForIter(target);
                            self.enter_generator(callees, base, generator, Value::None, after)?;
                            continue 'frames;
                        }
                        let next = self.next(top!(frame))?;
                        match next {
                            Some(v) => frame.stack.push(v),
                            None => {
                                frame.stack.pop();
                                frame.ip = target as usize;
                            }
                        }
                    }
                    Instr::ReturnValue | Instr::ReturnConst(_) => {
                        let v = match instr {
                            Instr::ReturnConst(i) => code.consts[i as usize].clone(),
                            _ => pop!(frame),
                        };
                        if callees.is_empty() {
                            return Ok(Exit::Return(v));
                        }
                        if callees.generator_on_top() {
                            self.leave_returning(callees, base, v)?;
                        } else {
                            let v = match callees.pop_call(self, base) {
                                Some(instance) => self.init_result(v, instance)?,
                                None => v,
                            };
                            callees.current(base).stack.push(v);
                        }
                        continue 'frames;
                    }
                    Instr::MakeFunction => {
                        let code_value = pop!(frame);
                        let f = self.make_function(&code_value, &frame.globals)?;
                        frame.stack.push(f);
                    }
                    Instr::SetFunctionAttribute(flag) => {
                        self.op_set_function_attribute(frame, flag)?
                    }
                    Instr::Call(n) => {
                        self.note_call_site(frame);
                        let n = n as usize;
                        let len = frame.stack.len();
                        let callable_at = len - n - 2;
                        if let Some((func, args_start)) = inline_call(frame, callable_at) {
                            self.enter_recursion()?;
                            callees.push_call(self, base, &func, args_start);
                            continue 'frames;
                        }
                        if let Some((init, instance)) = self.inline_init(frame, callable_at) {
                            self.enter_recursion()?;
                            let args_start = callable_at + 1;
                            callees.push_init(self, base, &init, args_start, instance);
                            continue 'frames;
                        }
                        if let Some(call) = awaited_call(frame, code, callable_at)
                            && self.can_fuse(&call)
                        {
                            self.start_first_step(callees, base, call);
                            continue 'frames;
                        }
                        // `generator.send(v)` and `next(generator)`: the generator's frame
                        // runs here, as for `Send`.
                        if let Some((generator, sends_arg)) = inline_send(frame, callable_at, n) {
                            let v = if sends_arg { pop!(frame) } else { Value::None };
                            frame.stack.truncate(callable_at);
                            let after = AfterGenerator::Call;
                            self.enter_generator(callees, base, generator, v, after)?;
                            continue 'frames;
                        }
                        let result = self.call_from_stack(frame, callable_at)?;
                        frame.stack.truncate(callable_at);
                        frame.stack.push(result);
                    }
                    Instr::CallKw(n) => {
                        self.note_native_call(frame);
                        self.op_call_kw(frame, n)?
                    }
                    Instr::CallFunctionEx(flags) => {
                        self.note_native_call(frame);
                        self.op_call_function_ex(frame, flags)?
                    }
                    Instr::LoadBuildClass => {
                        let key = self.intern("__build_class__");
                        let v = self.builtins.table.borrow().get_str(&key).cloned();
                        match v {
                            Some(v) => frame.stack.push(v),
                            None => {
                                return Err(self.new_exc(
                                    &self.types.name_error.clone(),
                                    "__build_class__ not found",
                                ));
                            }
                        }
                    }
                    Instr::RaiseVarargs(n) => {
                        let cause = if n == 2 { Some(pop!(frame)) } else { None };
                        if n == 0 {
                            return match self.current_exception() {
                                Value::Object(e) => {
                                    frame.reraising = true;
                                    Err(e)
                                }
                                _ => Err(self.runtime_error("No active exception to reraise")),
                            };
                        }
                        let v = pop!(frame);
                        let exc = self.make_raisable(v)?;
                        if let Some(cause) = cause {
                            let cause = match cause {
                                Value::None => Value::None,
                                other => {
                                    Value::Object(self.make_raisable(other).map_err(|_| {
                                        self.type_error(
                                            "exception causes must derive from BaseException",
                                        )
                                    })?)
                                }
                            };
                            if let Some(d) = exc.exc_data() {
                                let mut d = d.borrow_mut();
                                d.cause = cause;
                                d.suppress_context = true;
                            }
                        }
                        self.set_context(&exc);
                        return Err(exc);
                    }
                    Instr::Reraise(_) => {
                        // The saved lasti below the exception only matters for the frame's line
                        // number; handler lookup uses this instruction, and a re-raise adds no
                        // traceback entry, so apy does not need it.
                        let exc = pop!(frame);
                        frame.reraising = true;
                        return match exc {
                            Value::Object(e) if e.exc_data().is_some() => Err(e),
                            _ => Err(self.runtime_error("RERAISE of a non-exception")),
                        };
                    }
                    Instr::PushExcInfo => {
                        let exc = pop!(frame);
                        let slot = self
                            .exc_info
                            .last_mut()
                            .expect("the exception stack is never empty");
                        let prev = std::mem::replace(slot, exc.clone());
                        frame.stack.push(prev);
                        frame.stack.push(exc);
                    }
                    Instr::PopExcept => {
                        let prev = pop!(frame);
                        if let Some(slot) = self.exc_info.last_mut() {
                            *slot = prev;
                        }
                    }
                    Instr::CheckExcMatch => {
                        let ty = pop!(frame);
                        let exc = top!(frame).clone();
                        let r = self.exception_matches(&exc, &ty)?;
                        frame.stack.push(Value::Bool(r));
                    }
                    Instr::CheckEgMatch => {
                        let ty = pop!(frame);
                        let exc = pop!(frame);
                        let (rest, matched) = self.split_exception_group(&exc, &ty)?;
                        frame.stack.push(rest);
                        frame.stack.push(matched);
                    }
                    Instr::PrepReraiseStar => {
                        let excs = pop!(frame);
                        let orig = pop!(frame);
                        let result = self.prep_reraise_star(&orig, &excs)?;
                        frame.stack.push(result);
                    }
                    Instr::LoadAssertionError => frame
                        .stack
                        .push(Value::Type(self.types.assertion_error.clone())),
                    Instr::BeforeWith => {
                        let mgr = pop!(frame);
                        let (exit, result) = self.enter_context(&mgr, false)?;
                        frame.stack.push(exit);
                        frame.stack.push(result);
                    }
                    Instr::WithExceptStart => {
                        let len = frame.stack.len();
                        let exit = frame.stack[len - 4].clone();
                        let exc = frame.stack[len - 1].clone();
                        let ty = Value::Type(self.type_of(&exc).clone());
                        let tb = match &exc {
                            Value::Object(o)
                                if o.exc_data()
                                    .is_some_and(|d| !d.borrow().traceback.is_empty()) =>
                            {
                                exc.clone()
                            }
                            _ => Value::None,
                        };
                        let r = self.call(&exit, &[ty, exc, tb], &[])?;
                        frame.stack.push(r);
                    }
                    Instr::YieldValue(_) => {
                        let v = pop!(frame);
                        if callees.is_empty() {
                            return Ok(Exit::Yield(v));
                        }
                        self.leave_yielding(callees, base, v)?;
                        continue 'frames;
                    }
                    Instr::Send(target) => {
                        self.note_call_site(frame);
                        let v = pop!(frame);
                        if let Some(generator) = inline_generator(top!(frame), GenKind::Coroutine) {
                            let after = AfterGenerator::Send(target);
                            self.enter_generator(callees, base, generator, v, after)?;
                            continue 'frames;
                        }
                        let receiver = top!(frame).clone();
                        match self.send_to(&receiver, v)? {
                            FrameResult::Yielded(y) => frame.stack.push(y),
                            FrameResult::Returned(r) => {
                                frame.stack.push(r);
                                frame.ip = target as usize;
                            }
                            FrameResult::Err(e) => return Err(e),
                        }
                    }
                    Instr::EndSend => {
                        let v = pop!(frame);
                        let receiver = pop!(frame);
                        self.recycle_generator(receiver);
                        frame.stack.push(v);
                    }
                    Instr::GetYieldFromIter => {
                        let v = pop!(frame);
                        let it = self.yield_from_iter(v, code)?;
                        frame.stack.push(it);
                    }
                    Instr::GetAwaitable(where_) => {
                        // `await f()`: a coroutine not started yet is its own awaitable.
                        if !is_unstarted_coroutine(top!(frame)) {
                            if let Some(call) = self.awaited_await_method(frame, code)
                                && self.can_fuse(&call)
                            {
                                self.start_first_step(callees, base, call);
                                continue 'frames;
                            }
                            let v = pop!(frame);
                            let it = self.get_awaitable(v, where_)?;
                            frame.stack.push(it);
                        }
                    }
                    Instr::GetAiter => {
                        let v = pop!(frame);
                        let it = self.get_aiter(&v)?;
                        frame.stack.push(it);
                    }
                    Instr::GetAnext => {
                        let aiter = top!(frame).clone();
                        let awaitable = self.get_anext(&aiter)?;
                        frame.stack.push(awaitable);
                    }
                    Instr::EndAsyncFor => {
                        let exc = pop!(frame);
                        frame.stack.pop();
                        match exc {
                            Value::Object(e)
                                if self
                                    .exc_matches(&e, &self.types.stop_async_iteration.clone()) => {}
                            Value::Object(e) => {
                                frame.reraising = true;
                                return Err(e);
                            }
                            _ => {}
                        }
                    }
                    Instr::BeforeAsyncWith => {
                        let mgr = pop!(frame);
                        let (exit, awaitable) = self.enter_context(&mgr, true)?;
                        frame.stack.push(exit);
                        frame.stack.push(awaitable);
                    }
                    Instr::CleanupThrow => {
                        let exc = pop!(frame);
                        match exc {
                            Value::Object(e)
                                if self.exc_matches(&e, &self.types.stop_iteration.clone()) =>
                            {
                                frame.stack.pop();
                                frame.stack.pop();
                                let value =
                                    self.exc_args(&e).into_iter().next().unwrap_or(Value::None);
                                frame.stack.push(Value::None);
                                frame.stack.push(value);
                            }
                            Value::Object(e) => {
                                frame.reraising = true;
                                return Err(e);
                            }
                            _ => {
                                return Err(
                                    self.runtime_error("CLEANUP_THROW without an exception")
                                );
                            }
                        }
                    }
                    Instr::ImportName(i) => {
                        let _fromlist = pop!(frame);
                        let _level = pop!(frame);
                        let m = self.import_module(code.names[i as usize].as_str())?;
                        frame.stack.push(m);
                    }
                    Instr::ImportFrom(i) => {
                        let module = top!(frame).clone();
                        let name = &code.names[i as usize];
                        let v = match self.get_attr_opt(&module, name)? {
                            Some(v) => v,
                            None => {
                                let mname = self.module_name(&module);
                                return Err(self.new_exc(
                                    &self.types.import_error.clone(),
                                    format!(
                                        "cannot import name '{}' from '{mname}' (unknown location)",
                                        name.as_str()
                                    ),
                                ));
                            }
                        };
                        frame.stack.push(v);
                    }
                }
            }
        }
    }

    /// `DictUpdate` / `DictMerge` (`merge`: duplicate keys are an error).
    #[inline(never)]
    fn op_dict_update(&mut self, frame: &mut Frame, n: u32, merge: bool) -> PyResult<()> {
        let other = pop!(frame);
        let len = frame.stack.len();
        let target = frame.stack[len - n as usize].clone();
        let Value::Dict(d) = target else {
            return Ok(());
        };
        let func_name = if merge {
            let callable = frame
                .stack
                .get(len.wrapping_sub(n as usize + 3))
                .cloned()
                .unwrap_or(Value::None);
            self.callable_name(&callable)
        } else {
            String::new()
        };
        if !self.is_mapping(&other) {
            return Err(self.type_error(if merge {
                format!(
                    "{func_name}() argument after ** must be a mapping, not {}",
                    self.type_name(&other)
                )
            } else {
                format!("'{}' object is not a mapping", self.type_name(&other))
            }));
        }
        if merge {
            let tmp = Rc::new(PyDict {
                table: Default::default(),
            });
            self.dict_update(&tmp, &other)?;
            let entries: Vec<(Value, Value)> = tmp.table.borrow().snapshot();
            for (k, v) in entries {
                if self.dict_get(&d, &k)?.is_some() {
                    let key = self.str_of(&k)?;
                    return Err(self.type_error(format!(
                        "{func_name}() got multiple values for keyword argument '{}'",
                        key.as_str()
                    )));
                }
                self.dict_set(&d, k, v)?;
            }
        } else {
            self.dict_update(&d, &other)?;
        }
        Ok(())
    }

    #[inline(never)]
    fn op_set_function_attribute(&mut self, frame: &mut Frame, flag: u32) -> PyResult<()> {
        let func = pop!(frame);
        let value = pop!(frame);
        let Value::Function(mut f) = func else {
            return Err(self.runtime_error("SET_FUNCTION_ATTRIBUTE on a non-function"));
        };
        if let Some(func) = Rc::get_mut(&mut f) {
            match flag {
                0x01 => func.defaults = self.collect_iterable(&value)?,
                0x02 => {
                    if let Value::Dict(d) = &value {
                        func.kwdefaults = d
                            .table
                            .borrow()
                            .iter()
                            .filter_map(|e| match &e.key {
                                Value::Str(k) => Some((k.clone(), e.value.clone())),
                                _ => None,
                            })
                            .collect();
                    }
                }
                0x04 => {
                    let flat = self.collect_iterable(&value)?;
                    let annotations = Rc::new(PyDict {
                        table: Default::default(),
                    });
                    for pair in flat.chunks(2) {
                        if let [k, v] = pair {
                            self.dict_set(&annotations, k.clone(), v.clone())?;
                        }
                    }
                    let key = self.intern("__annotations__");
                    func.dict
                        .borrow_mut()
                        .set_str(key, Value::Dict(annotations));
                }
                0x08 => func.closure = self.collect_iterable(&value)?,
                _ => {}
            }
        }
        frame.stack.push(Value::Function(f));
        Ok(())
    }

    #[inline(never)]
    fn op_call_kw(&mut self, frame: &mut Frame, n: u32) -> PyResult<()> {
        let kwnames = pop!(frame);
        let n = n as usize;
        let len = frame.stack.len();
        let base = len - n - 2;
        let Value::Tuple(names) = kwnames else {
            return Err(self.runtime_error("CALL_KW without a tuple of names"));
        };
        let nkw = names.items.len();
        let kw: Vec<(Rc<PyStr>, Value)> = names
            .items
            .iter()
            .zip(frame.stack[len - nkw..].iter())
            .filter_map(|(k, v)| match k {
                Value::Str(s) => Some((s.clone(), v.clone())),
                _ => None,
            })
            .collect();
        let callable = frame.stack[base].clone();
        let this = &frame.stack[base + 1];
        let mut args: Vec<Value> = Vec::with_capacity(n + 1 - nkw);
        if !this.is_null() {
            args.push(this.clone());
        }
        args.extend_from_slice(&frame.stack[base + 2..len - nkw]);
        frame.stack.truncate(base);
        let result = self.call(&callable, &args, &kw)?;
        frame.stack.push(result);
        Ok(())
    }

    #[inline(never)]
    fn op_call_function_ex(&mut self, frame: &mut Frame, flags: u32) -> PyResult<()> {
        let kwargs = if flags & 1 != 0 {
            Some(pop!(frame))
        } else {
            None
        };
        let args = pop!(frame);
        let _null = pop!(frame);
        let callable = pop!(frame);
        let args = match &args {
            Value::Tuple(t) => t.items.to_vec(),
            other => self.collect_iterable(other)?,
        };
        let mut kw = Vec::new();
        if let Some(Value::Dict(d)) = &kwargs {
            for e in d.table.borrow().iter() {
                match &e.key {
                    Value::Str(k) => kw.push((k.clone(), e.value.clone())),
                    _ => return Err(self.type_error("keywords must be strings")),
                }
            }
        }
        let result = self.call(&callable, &args, &kw)?;
        frame.stack.push(result);
        Ok(())
    }

    #[inline(never)]
    fn op_unpack_ex(&mut self, frame: &mut Frame, arg: u32) -> PyResult<()> {
        let seq = pop!(frame);
        let before = (arg & 0xff) as usize;
        let after = (arg >> 8) as usize;
        let items = self.collect_for_unpack(&seq)?;
        if items.len() < before + after {
            return Err(self.value_error(format!(
                "not enough values to unpack (expected at least {}, got {})",
                before + after,
                items.len()
            )));
        }
        let mid_end = items.len() - after;
        for v in items[mid_end..].iter().rev() {
            frame.stack.push(v.clone());
        }
        frame
            .stack
            .push(Value::list(items[before..mid_end].to_vec()));
        for v in items[..before].iter().rev() {
            frame.stack.push(v.clone());
        }
        Ok(())
    }

    /// `Call(n)` with the callable at `stack[base]`, self-or-NULL at `base + 1`, arguments
    /// after. Python functions with a matching positional signature get their locals straight
    /// from the stack.
    #[inline]
    fn call_from_stack(&mut self, frame: &mut Frame, base: usize) -> PyResult<Value> {
        let has_self = !frame.stack[base + 1].is_null();
        let args_start = if has_self { base + 1 } else { base + 2 };
        if let Value::Function(f) = &frame.stack[base]
            && let Some(kind) = generator_kind(f)
            && binds_positionally(f, frame.stack.len() - args_start)
        {
            // Making a generator or coroutine runs no code: no call site to note.
            let f = f.clone();
            let generator_frame = self.boxed_frame_from_stack(&f, &mut frame.stack, args_start);
            return Ok(self.new_generator(kind, generator_frame, &f));
        }
        self.note_caller(frame);
        let callable = std::mem::replace(&mut frame.stack[base], Value::Null);
        if let Value::Function(f) = &callable {
            let nargs = frame.stack.len() - args_start;
            if binds_positionally(f, nargs) {
                let mut locals = self.take_vec(f.code.code.varnames.len());
                move_arguments(&mut frame.stack, args_start, &mut locals);
                return self.call_function_with_locals(f, locals);
            }
        }
        self.call(&callable, &frame.stack[args_start..], &[])
    }

    fn make_function(&mut self, code_value: &Value, globals: &Rc<PyDict>) -> PyResult<Value> {
        let Value::Object(o) = code_value else {
            return Err(self.runtime_error("MAKE_FUNCTION without a code object"));
        };
        let ObjectKind::Code(code) = &o.kind else {
            return Err(self.runtime_error("MAKE_FUNCTION without a code object"));
        };
        let name = self.intern(&code.code.name);
        Ok(Value::Function(Rc::new(Function {
            code: code.clone(),
            globals: globals.clone(),
            name: RefCell::new(name),
            qualname: RefCell::new(code.code.qualname.clone()),
            defaults: Vec::new(),
            kwdefaults: Vec::new(),
            closure: Vec::new(),
            dict: Default::default(),
        })))
    }

    /// `LOAD_GLOBAL` of `code.names[i]` through its cache: the value, found again at the
    /// remembered entry position when neither dict changed since, or looked up and
    /// remembered. None when the name is in neither dict.
    #[inline]
    fn cached_global(&self, code: &CodeObj, globals: &PyDict, i: usize) -> Option<Value> {
        let slot = code.global_cache.globals.get(i)?;
        let globals = globals.table.borrow();
        let builtins = self.builtins.table.borrow();
        let cached = slot.get();
        if cached.globals_version == globals.version()
            && cached.builtins_version == builtins.version()
        {
            let table = if cached.in_builtins {
                &builtins
            } else {
                &globals
            };
            if let Some(entry) = table.entry(cached.index) {
                return Some(entry.value.clone());
            }
        }
        let name = code.names.get(i)?;
        let (table, in_builtins, index) = match globals.position_str(name) {
            Some(index) => (&globals, false, index),
            None => (&builtins, true, builtins.position_str(name)?),
        };
        slot.set(GlobalSlot {
            globals_version: globals.version(),
            builtins_version: builtins.version(),
            in_builtins,
            index,
        });
        table.entry(index).map(|entry| entry.value.clone())
    }

    #[inline]
    fn load_global(&mut self, globals: &PyDict, name: &Rc<PyStr>) -> PyResult<Value> {
        if let Some(v) = globals.table.borrow().get_str(name) {
            return Ok(v.clone());
        }
        if let Some(v) = self.builtins.table.borrow().get_str(name) {
            return Ok(v.clone());
        }
        Err(self.name_error(name.as_str()))
    }

    /// Adds "Did you mean …?" to a NameError: the closest of the frame's local, global and
    /// built-in names.
    #[cold]
    fn suggest_name(&self, exc: Exc, frame: &Frame, name: &PyStr) -> Exc {
        let mut candidates: Vec<Value> = Vec::new();
        for (slot, var) in frame.locals.iter().zip(frame.code.varnames.iter()) {
            if !slot.is_null() {
                candidates.push(Value::Str(var.clone()));
            }
        }
        if let Some(d) = &frame.locals_dict {
            candidates.extend(d.table.borrow().keys());
        }
        candidates.extend(frame.globals.table.borrow().keys());
        candidates.extend(self.builtins.table.borrow().keys());
        super::exceptions::with_suggestion(exc, name, &candidates)
    }

    fn unbound_local(&self, name: &PyStr) -> Exc {
        self.new_exc(
            &self.types.unbound_local_error,
            format!(
                "cannot access local variable '{}' where it is not associated with a value",
                name.as_str()
            ),
        )
    }

    /// The value in cell `i` of `frame`, or the NameError for an unbound one.
    fn load_deref(&self, frame: &Frame, code: &CodeObj, i: usize) -> PyResult<Value> {
        let v = self.cell_get(&frame.cells[i]);
        if v.is_null() {
            return Err(self.unbound_deref(code, i));
        }
        Ok(v)
    }

    fn unbound_deref(&self, code: &CodeObj, i: usize) -> Exc {
        let name = code.cellnames[i].as_str();
        if i < code.code.cellvars.len() {
            self.unbound_local(&code.cellnames[i])
        } else {
            self.new_exc(
                &self.types.name_error,
                format!("cannot access free variable '{name}' where it is not associated with a value in enclosing scope"),
            )
        }
    }

    pub fn cell_get(&self, cell: &Value) -> Value {
        match cell {
            Value::Object(o) => match &o.kind {
                ObjectKind::Cell(c) => c.borrow().clone(),
                _ => Value::Null,
            },
            _ => Value::Null,
        }
    }

    pub fn cell_set(&self, cell: &Value, v: Value) {
        if let Value::Object(o) = cell
            && let ObjectKind::Cell(c) = &o.kind
        {
            let old = c.replace(v);
            drop(old);
        }
    }

    fn load_super(
        &mut self,
        global_super: Value,
        class: Value,
        this: Value,
        name: &Rc<PyStr>,
        is_method: bool,
    ) -> PyResult<(Value, Value)> {
        let is_builtin_super =
            matches!(&global_super, Value::Type(t) if Rc::ptr_eq(t, &self.types.super_));
        if !is_builtin_super {
            let sup = self.call(&global_super, &[class, this], &[])?;
            let attr = self.get_attr(&sup, name)?;
            return Ok((attr, Value::Null));
        }
        let Value::Type(cls) = &class else {
            return Err(
                self.type_error("super(type, obj): obj must be an instance or subtype of type")
            );
        };
        self.check_super_args(cls, &this)?;
        if is_method && !matches!(this, Value::Type(_)) {
            // Plain functions found along the MRO are returned unbound with self separately.
            let start = self.type_of(&this).mro();
            let pos = start
                .iter()
                .position(|t| Rc::ptr_eq(t, cls))
                .map_or(start.len(), |p| p + 1);
            for base in &start[pos..] {
                let found = base.dict.borrow().get_str(name).cloned();
                if let Some(attr) = found {
                    if matches!(attr, Value::Function(_)) {
                        return Ok((attr, this));
                    }
                    break;
                }
            }
        }
        match self.super_lookup(cls, &this, name)? {
            Some(v) => Ok((v, Value::Null)),
            None => Err(self.attribute_error(format!(
                "'super' object has no attribute '{}'",
                name.as_str()
            ))),
        }
    }

    pub fn check_super_args(
        &mut self,
        cls: &Rc<super::object::PyType>,
        this: &Value,
    ) -> PyResult<()> {
        let ok = match this {
            Value::Type(t) => t.is_subtype(cls) || self.type_of(this).is_subtype(cls),
            other => self.type_of(other).is_subtype(cls),
        };
        if ok {
            Ok(())
        } else {
            Err(self.type_error("super(type, obj): obj must be an instance or subtype of type"))
        }
    }

    fn intrinsic1(&mut self, which: Intrinsic1, v: Value, code: &CodeObj) -> PyResult<Value> {
        Ok(match which {
            Intrinsic1::Print => {
                if !v.is_none() {
                    let r = self.repr(&v)?;
                    self.write_stdout(&r);
                    self.write_stdout("\n");
                    let key = self.intern("_");
                    self.builtins.table.borrow_mut().set_str(key, v);
                }
                Value::None
            }
            Intrinsic1::ImportStar => {
                return Err(self.new_exc(
                    &self.types.syntax_error.clone(),
                    "'import *' is not supported in apy",
                ));
            }
            Intrinsic1::StopIterationError => {
                let flags = code.code.flags;
                let Value::Object(e) = &v else { return Ok(v) };
                let (msg, matches) = if flags.async_generator {
                    if self.exc_matches(e, &self.types.stop_async_iteration.clone()) {
                        ("async generator raised StopAsyncIteration", true)
                    } else {
                        (
                            "async generator raised StopIteration",
                            self.exc_matches(e, &self.types.stop_iteration.clone()),
                        )
                    }
                } else if flags.coroutine {
                    (
                        "coroutine raised StopIteration",
                        self.exc_matches(e, &self.types.stop_iteration.clone()),
                    )
                } else {
                    (
                        "generator raised StopIteration",
                        self.exc_matches(e, &self.types.stop_iteration.clone()),
                    )
                };
                if !matches {
                    return Ok(v);
                }
                let new = self.runtime_error(msg);
                if let Some(d) = new.exc_data() {
                    let mut d = d.borrow_mut();
                    d.cause = v.clone();
                    d.context = v.clone();
                    d.suppress_context = true;
                }
                Value::Object(new)
            }
            Intrinsic1::AsyncGenWrap => self.async_gen_wrap(v),
            Intrinsic1::UnaryPositive => self.unary_op("+", &v)?,
            Intrinsic1::ListToTuple => match &v {
                Value::List(l) => Value::tuple(l.items.borrow().clone()),
                _ => v,
            },
        })
    }

    fn unpack_sequence(&mut self, frame: &mut Frame, seq: Value, n: usize) -> PyResult<()> {
        match &seq {
            Value::Tuple(t) if t.items.len() == n => {
                frame.stack.extend(t.items.iter().rev().cloned());
                return Ok(());
            }
            Value::List(l) if l.items.borrow().len() == n => {
                frame.stack.extend(l.items.borrow().iter().rev().cloned());
                return Ok(());
            }
            _ => {}
        }
        let iter = match self.get_iter(&seq) {
            Ok(it) => it,
            Err(_) => {
                return Err(self.type_error(format!(
                    "cannot unpack non-iterable {} object",
                    self.type_name(&seq)
                )));
            }
        };
        let mut items = Vec::with_capacity(n);
        while let Some(v) = self.next(&iter)? {
            if items.len() == n {
                return Err(self.value_error(format!("too many values to unpack (expected {n})")));
            }
            items.push(v);
        }
        if items.len() < n {
            return Err(self.value_error(format!(
                "not enough values to unpack (expected {n}, got {})",
                items.len()
            )));
        }
        frame.stack.extend(items.into_iter().rev());
        Ok(())
    }

    fn collect_for_unpack(&mut self, seq: &Value) -> PyResult<Vec<Value>> {
        if !self.is_iterable(seq) {
            return Err(self.type_error(format!(
                "cannot unpack non-iterable {} object",
                self.type_name(seq)
            )));
        }
        self.collect_iterable(seq)
    }

    /// `except T:` matching, with CPython's TypeError for non-exception classes.
    pub fn exception_matches(&mut self, exc: &Value, ty: &Value) -> PyResult<bool> {
        let base = &self.types.base_exception;
        let matches_one = |t: &Value| match t {
            Value::Type(t) if t.is_subtype(base) => Some(self.type_of(exc).is_subtype(t)),
            _ => None,
        };
        let result = match ty {
            Value::Tuple(types) => {
                let mut any = Some(false);
                for t in types.items.iter() {
                    match matches_one(t) {
                        Some(m) => any = any.map(|a| a || m),
                        None => any = None,
                    }
                }
                any
            }
            single => matches_one(single),
        };
        result.ok_or_else(|| {
            self.type_error(
                "catching classes that do not inherit from BaseException is not allowed",
            )
        })
    }

    /// `with` / `async with` entry: the bound `__exit__`/`__aexit__` and the result of
    /// `__enter__()` (or the awaitable from `__aenter__()`).
    fn enter_context(&mut self, mgr: &Value, is_async: bool) -> PyResult<(Value, Value)> {
        let (enter_name, exit_name) = if is_async {
            (self.names.aenter.clone(), self.names.aexit.clone())
        } else {
            (self.names.enter.clone(), self.names.exit.clone())
        };
        let ty = self.type_of(mgr).clone();
        let enter = super::types::lookup(&ty, &enter_name);
        let exit = super::types::lookup(&ty, &exit_name);
        let (Some(enter), Some(exit)) = (enter, exit) else {
            let what = if is_async {
                "asynchronous context manager"
            } else {
                "context manager"
            };
            let missing = if is_async { "__aexit__" } else { "__exit__" };
            let enter_missing = super::types::lookup(&ty, &enter_name).is_none();
            let extra = if enter_missing {
                String::new()
            } else {
                format!(" (missed {missing} method)")
            };
            return Err(self.type_error(format!(
                "'{}' object does not support the {what} protocol{extra}",
                ty.name
            )));
        };
        let exit = self.bind_value(exit, mgr);
        // `enter` is called at once: a method gets `mgr` as its first argument instead of
        // being bound first (what a bound method's call would do, without making one).
        let result = if types::is_plain_method(&enter) {
            self.call(&enter, std::slice::from_ref(mgr), &[])?
        } else {
            self.call(&enter, &[], &[])?
        };
        if is_async {
            let awaitable = self.get_awaitable(result, 1)?;
            return Ok((exit, awaitable));
        }
        Ok((exit, result))
    }

    /// Binds a function found on a type to `obj` (for implicit dunder calls).
    fn bind_value(&self, f: Value, obj: &Value) -> Value {
        if types::is_plain_method(&f) {
            self.bound_method(f, obj.clone())
        } else {
            f
        }
    }

    pub fn callable_name(&mut self, f: &Value) -> String {
        match f {
            Value::Function(func) => func.qualname.borrow().to_string(),
            Value::Type(t) => t.name.to_string(),
            Value::Object(o) => match &o.kind {
                ObjectKind::Native(n) => n.name.to_string(),
                ObjectKind::BoundMethod { func, .. } => {
                    let func = func.clone();
                    self.callable_name(&func)
                }
                _ => format!("{} object", o.class.name),
            },
            other => format!("{} object", self.type_name(other)),
        }
    }

    fn is_mapping(&mut self, v: &Value) -> bool {
        match v {
            Value::Dict(_) => true,
            Value::Object(o) if !o.class.builtin => {
                let keys = self.intern("keys");
                super::types::lookup(&o.class, &keys).is_some()
                    && super::types::lookup(&o.class, &self.names.getitem).is_some()
            }
            _ => false,
        }
    }

    fn module_name(&self, module: &Value) -> String {
        match module {
            Value::Object(o) => match &o.kind {
                ObjectKind::Module { name, .. } => name.to_string(),
                _ => String::new(),
            },
            _ => String::new(),
        }
    }

    /// The leaf exceptions of a (possibly nested) exception group.
    fn group_leaves(&mut self, exc: &Value, out: &mut Vec<Value>) -> PyResult<()> {
        match exc {
            Value::Object(e) if e.class.is_subtype(&self.types.base_exception_group) => {
                let children = match self.exc_args(e).get(1) {
                    Some(v) => self.collect_iterable(v)?,
                    None => vec![],
                };
                for child in &children {
                    self.group_leaves(child, out)?;
                }
                Ok(())
            }
            other => {
                out.push(other.clone());
                Ok(())
            }
        }
    }

    /// A copy of group `exc` keeping only the leaves in `keep` (None if none is left).
    fn project_group(&mut self, exc: &Value, keep: &[Value]) -> PyResult<Value> {
        let Value::Object(e) = exc else {
            return Ok(Value::None);
        };
        if !e.class.is_subtype(&self.types.base_exception_group) {
            return Ok(if keep.iter().any(|k| k.is(exc)) {
                exc.clone()
            } else {
                Value::None
            });
        }
        let args = self.exc_args(e);
        let children = match args.get(1) {
            Some(v) => self.collect_iterable(v)?,
            None => vec![],
        };
        let mut kept = Vec::new();
        for child in &children {
            let projected = self.project_group(child, keep)?;
            if !projected.is_none() {
                kept.push(projected);
            }
        }
        if kept.len() == children.len() {
            return Ok(exc.clone());
        }
        self.derive_group(e, kept)
    }

    /// `eg.derive(items)` keeping the original's cause, context and traceback.
    fn derive_group(&mut self, e: &Exc, items: Vec<Value>) -> PyResult<Value> {
        if items.is_empty() {
            return Ok(Value::None);
        }
        let msg = self.exc_args(e).first().cloned().unwrap_or(Value::str(""));
        let g = self.call(
            &Value::Type(e.class.clone()),
            &[msg, Value::list(items)],
            &[],
        )?;
        if let (Value::Object(new), Some(d)) = (&g, e.exc_data()) {
            let d = d.borrow();
            if let Some(nd) = new.exc_data() {
                let mut nd = nd.borrow_mut();
                nd.cause = d.cause.clone();
                nd.context = d.context.clone();
                nd.traceback = d.traceback.clone();
            }
        }
        Ok(g)
    }

    /// `_PyExc_PrepReraiseStar`: what a `try/except*` re-raises, given the original
    /// exception and what the handlers raised or re-raised.
    fn prep_reraise_star(&mut self, orig: &Value, excs: &Value) -> PyResult<Value> {
        let excs: Vec<Value> = self
            .collect_iterable(excs)?
            .into_iter()
            .filter(|e| !e.is_none())
            .collect();
        if excs.is_empty() {
            return Ok(Value::None);
        }
        let orig_is_group = matches!(orig, Value::Object(o) if o.class.is_subtype(&self.types.base_exception_group));
        if !orig_is_group {
            return Ok(excs[0].clone());
        }
        let mut orig_leaves = Vec::new();
        self.group_leaves(orig, &mut orig_leaves)?;
        let (mut raised, mut reraised_leaves) = (Vec::new(), Vec::new());
        for e in excs {
            let mut leaves = Vec::new();
            self.group_leaves(&e, &mut leaves)?;
            if leaves.iter().all(|l| orig_leaves.iter().any(|o| o.is(l))) {
                reraised_leaves.extend(leaves);
            } else {
                raised.push(e);
            }
        }
        let reraised = self.project_group(orig, &reraised_leaves)?;
        if raised.is_empty() {
            return Ok(reraised);
        }
        if !reraised.is_none() {
            raised.push(reraised);
        }
        if raised.len() == 1 {
            return Ok(raised.remove(0));
        }
        let eg = Value::Type(self.types.exception_group.clone());
        self.call(&eg, &[Value::str(""), Value::list(raised)], &[])
    }

    /// `except*`: splits `exc` into the part matching `ty` and the rest (`(rest, match)`;
    /// None for an empty part).
    pub fn split_exception_group(&mut self, exc: &Value, ty: &Value) -> PyResult<(Value, Value)> {
        let Value::Object(e) = exc else {
            return Ok((Value::None, Value::None));
        };
        let is_group = e.class.is_subtype(&self.types.base_exception_group);
        if !is_group {
            if self.exception_matches(exc, ty)? {
                let group = self.call(
                    &Value::Type(self.types.exception_group.clone()),
                    &[Value::str(""), Value::tuple(vec![exc.clone()])],
                    &[],
                )?;
                return Ok((Value::None, group));
            }
            return Ok((exc.clone(), Value::None));
        }
        if self.exception_matches(exc, ty)? {
            return Ok((Value::None, exc.clone()));
        }
        let args = self.exc_args(e);
        let msg = args.first().cloned().unwrap_or(Value::str(""));
        let leaves = match args.get(1) {
            Some(v) => self.collect_iterable(v)?,
            None => vec![],
        };
        let (mut matched, mut rest) = (Vec::new(), Vec::new());
        for leaf in leaves {
            let (r, m) = self.split_exception_group(&leaf, ty)?;
            let leaf_is_group = matches!(&leaf, Value::Object(o) if o.class.is_subtype(&self.types.base_exception_group));
            if !m.is_none() {
                matched.push(if leaf_is_group { m } else { leaf.clone() });
            }
            if !r.is_none() {
                rest.push(r);
            }
        }
        let class = Value::Type(e.class.clone());
        let make = |vm: &mut Vm, items: Vec<Value>| -> PyResult<Value> {
            if items.is_empty() {
                return Ok(Value::None);
            }
            let g = vm.call(&class, &[msg.clone(), Value::list(items)], &[])?;
            if let (Value::Object(new), Some(d)) = (&g, e.exc_data()) {
                let (cause, context) = (d.borrow().cause.clone(), d.borrow().context.clone());
                if let Some(nd) = new.exc_data() {
                    let mut nd = nd.borrow_mut();
                    nd.cause = cause;
                    nd.context = context;
                    nd.traceback = d.borrow().traceback.clone();
                }
            }
            Ok(g)
        };
        let matched = make(self, matched)?;
        let rest = make(self, rest)?;
        Ok((rest, matched))
    }
}
