//! One resumable-frame core for generators and coroutines (`Objects/genobject.c`): a
//! suspended [`Frame`], resumed by `send`/`throw`, ending in `Returned`/`Err`. Each protocol
//! rule lives in one function: "already executing" and "just-started" in [`Vm::resume`],
//! delegation to a `yield from` sub-iterator in [`Vm::gen_throw`], "ignored GeneratorExit"
//! in [`gen_close`], PEP 479 in the compiler's handler (with a fallback here).

use std::cell::{Cell, OnceCell, RefCell};
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::compile::bytecode::{AwaitSite, Code, Instr};

use super::async_gen::step_awaitable;
use super::call::{binds_positionally, generator_kind};
use super::fast_calls::{sends_again, sends_on};
use super::frame::{AfterGenerator, Frame, Passed};
use super::object::{CodeObj, Function, KwArgs, Object, ObjectKind, TracebackEntry};
use super::value::Value;

use super::{Exc, PyResult, Vm};
use crate::vm::frame::AgenFlags;
use crate::vm::frame::CallSite;
use crate::vm::frame::FrameResult;
use crate::vm::frame::GenKind;
use crate::vm::frame::GenState;
use crate::vm::frame::Generator;
use crate::vm::frame::RunningFrame;
use crate::vm::frame::as_generator;
use crate::vm::frame::as_generator_object;

impl GenState {
    /// Takes the frame out (to run it, or to end it): whatever [`GenState::resends`] knew
    /// of it goes with it.
    #[inline(always)]
    pub fn take_frame(&mut self) -> Option<Box<Frame>> {
        self.resends = None;
        self.frame.take()
    }

    /// The state of a generator that has not run yet.
    fn before_start(frame: Box<Frame>) -> GenState {
        GenState {
            frame: Some(frame),
            resends: None,
            started: false,
            exc_state: Value::None,
        }
    }

    /// The state of a generator whose first step is running now, its frame lent out
    /// ([`Vm::new_first_stepping`]): as [`Vm::start_resume`] leaves one. (Made running:
    /// [`Generator::start`].)
    fn first_step() -> GenState {
        GenState {
            frame: None,
            resends: None,
            started: true,
            exc_state: Value::None,
        }
    }
}

/// Why [`Vm::start_resume`] did not start a generator's frame.
pub enum Refused {
    /// It cannot run now (already executing, reused coroutine, bad first send).
    Err(Exc),
    /// It has finished, or is thrown into before it started: the send ends it at once.
    Finished,
}

impl Refused {
    /// What the refused resume returns: a thrown exception comes straight back out.
    pub(super) fn with_throw(self, throw: Option<Exc>) -> FrameResult {
        match (self, throw) {
            (Refused::Err(e), _) | (Refused::Finished, Some(e)) => FrameResult::Err(e),
            (Refused::Finished, None) => FrameResult::Returned(Value::None),
        }
    }
}

impl RunningFrame {
    fn line(&self) -> u32 {
        self.code.line_before(self.ip)
    }
}

impl Generator {
    /// The sub-iterator a suspended `yield from`/`await` is delegating to (`_PyGen_yf`);
    /// None while the generator runs, its frame lent out or passed through.
    pub fn yield_from(&self) -> Option<Value> {
        let state = self.state.borrow();
        let frame = state.frame.as_ref()?;
        if !state.started || self.running.get() || frame.ip < 2 {
            return None;
        }
        let instrs = &frame.code.code().instructions;
        let suspended_in_send_loop =
            matches!(
                instrs.get(frame.ip as usize - 1),
                Some(Instr::YieldValue(_))
            ) && matches!(instrs.get(frame.ip as usize - 2), Some(Instr::Send(_)));
        if suspended_in_send_loop {
            frame.stack.last().cloned()
        } else {
            None
        }
    }

    pub fn is_finished(&self) -> bool {
        self.state.borrow().frame.is_none()
    }

    /// Can be the operand of `await`: a coroutine, or a `types.coroutine` generator.
    pub fn is_awaitable(&self) -> bool {
        self.kind == GenKind::Coroutine || self.code.head.flags.iterable_coroutine
    }
}

/// What CPython's generator finalizer (`_PyGen_Finalize`) does when the last reference
/// goes: an async generator first iterated under a finalizer hook, and neither exhausted
/// nor closed, is handed to that hook, still resumable; a coroutine that never ran warns
/// "coroutine '…' was never awaited"; a suspended generator is closed, running its
/// `finally` blocks. `Drop` cannot run Python code, so it queues the work (moving the
/// frame into a fresh [`Generator`]) and the VM does it at its next safe point
/// ([`Vm::run_finalizers`]).
impl Drop for Generator {
    fn drop(&mut self) {
        if self.state.get_mut().frame.is_none()
            || self.agen.get().is_some_and(|a| a.finalized.get())
            || !finalizers_accepted()
        {
            return;
        }
        let hook = self
            .agen
            .get_mut()
            .and_then(|a| a.finalizer.get_mut().take());
        let pending = match hook {
            Some(hook) if !self.agen().closed.get() => {
                let revived = self.revive();
                revived.agen().finalized.set(true);
                Finalizer::AsyncGenHook(revived, hook)
            }
            _ if !self.state.get_mut().started => {
                if self.kind != GenKind::Coroutine {
                    return;
                }
                Finalizer::Warn(format!("coroutine '{}' was never awaited", self.qualname))
            }
            _ => Finalizer::Close(self.revive()),
        };
        queue_finalizer(pending);
    }
}

impl Generator {
    /// A new generator of `func`, in `state`: running if it is made started (its first
    /// step runs now, [`GenState::first_step`]).
    fn start(kind: GenKind, func: &Function, state: GenState) -> Generator {
        Generator {
            kind,
            code: func.code.clone(),
            name: func.name.borrow().clone(),
            qualname: func.qualname.borrow().clone(),
            running: Cell::new(state.started),
            state: RefCell::new(state),
            agen: OnceCell::new(),
        }
    }

    /// The async-generator flags ([`AgenFlags`]), made on first use.
    pub fn agen(&self) -> &AgenFlags {
        self.agen.get_or_init(Box::default)
    }

    /// This finished generator made new, as [`Generator::start`] would make it: the fields
    /// that are already the same (the same function's code and names, usually) are kept.
    fn restart(&mut self, kind: GenKind, func: &Function, state: GenState) {
        self.kind = kind;
        if !Rc::ptr_eq(&self.code, &func.code) {
            self.code = func.code.clone();
        }
        let name = func.name.borrow();
        if !Rc::ptr_eq(&self.name, &name) {
            self.name = name.clone();
        }
        let qualname = func.qualname.borrow();
        if !Rc::ptr_eq(&self.qualname, &qualname) {
            self.qualname = qualname.clone();
        }
        self.running.set(state.started);
        // The finished state's parts dropped one by one: its exception state is most often
        // None, which then needs no destructor call.
        let GenState {
            frame, exc_state, ..
        } = std::mem::replace(self.state.get_mut(), state);
        exc_state.discard();
        drop(frame);
        self.agen = OnceCell::new();
    }

    /// A generator that takes over this one's frame and state (this one is being freed).
    fn revive(&mut self) -> Generator {
        let state = self.state.get_mut();
        Generator {
            kind: self.kind,
            code: self.code.clone(),
            name: self.name.clone(),
            qualname: self.qualname.clone(),
            running: Cell::new(false),
            state: RefCell::new(GenState {
                frame: state.take_frame(),
                resends: None,
                started: state.started,
                exc_state: std::mem::replace(&mut state.exc_state, Value::None),
            }),
            agen: match self.agen.get() {
                None => OnceCell::new(),
                Some(flags) => OnceCell::from(Box::new(AgenFlags {
                    hooks_inited: flags.hooks_inited.clone(),
                    closed: flags.closed.clone(),
                    running_async: flags.running_async.clone(),
                    finalizer: RefCell::new(None),
                    finalized: Cell::new(false),
                })),
            },
        }
    }
}

/// An instance whose class has `__del__` calls it when its last reference goes, as CPython
/// does (`slot_tp_finalize`): `Drop` cannot run Python code, so the object's contents come
/// back to life in a new object, queued for [`Vm::run_finalizers`] to call `__del__` on.
/// As PEP 442 says, `__del__` runs once per object, even if it resurrects the object.
impl Drop for Object {
    fn drop(&mut self) {
        if self.class.has_del.get() && !was_finalized(self) {
            let revived = Rc::new(self.take_contents());
            let marked = FINALIZED.try_with(|done| {
                done.borrow_mut().insert(Rc::as_ptr(&revived) as usize);
            });
            if marked.is_ok() {
                queue_finalizer(Finalizer::Del(Value::Object(revived)));
            }
        }
        if self.class.weakly_watched.get() {
            for (callback, weakref) in super::weakrefs::referent_died(self) {
                queue_finalizer(Finalizer::Call(callback, weakref));
            }
        }
    }
}

/// Whether `__del__` already ran for `object` (which forgets it, since it is being freed).
fn was_finalized(object: &Object) -> bool {
    let address = object as *const Object as usize;
    FINALIZED
        .try_with(|done| done.borrow_mut().remove(&address))
        .unwrap_or(true)
}

enum Finalizer {
    /// A RuntimeWarning ("coroutine '…' was never awaited" and its kin).
    Warn(String),
    /// Call `__del__` on the object (`PyObject_CallFinalizerFromDealloc`).
    Del(Value),
    Close(Generator),
    /// Call the async generator finalizer hook with the revived generator.
    AsyncGenHook(Generator, Value),
    /// Call a weak reference's callback with the reference (its referent was freed).
    Call(Value, Value),
    /// A layer above's own report of an object it freed (asyncio's "Task was destroyed
    /// but it is pending!"), printed in its place among the warnings.
    Native(fn(&mut Vm)),
}

/// Queues a RuntimeWarning for the next safe point (a never-awaited `aclose()`).
pub fn queue_warning(message: String) {
    queue_finalizer(Finalizer::Warn(message));
}

/// Queues `report` to run at the next safe point, in order with the finalizers the same
/// drop queues after it (a freed task's report before its coroutine's "never awaited").
pub fn queue_native(report: fn(&mut Vm)) {
    queue_finalizer(Finalizer::Native(report));
}

/// Whether queued work can still run: not while teardown frees what a run left, nor once
/// the thread's queue is gone (its thread-local values being destroyed as it ends). A
/// generator dropped then is freed with its frame, unclosed: queued, the revived copy
/// would only be dropped in turn, reviving another, until the native stack ran out.
fn finalizers_accepted() -> bool {
    !super::teardown::tearing_down() && FINALIZERS.try_with(|_| ()).is_ok()
}

/// Queues work for [`Vm::run_finalizers`]; dropped silently during teardown or once the
/// thread is ending (its queue gone: `try_with` fails).
fn queue_finalizer(pending: Finalizer) {
    if super::teardown::tearing_down() {
        return;
    }
    let queued = FINALIZERS.try_with(|q| q.borrow_mut().push(pending));
    if queued.is_ok() {
        FINALIZERS_PENDING.store(true, Ordering::Relaxed);
    }
}

/// Drops the queued work unrun (`teardown::collect_cycles`, while nothing can be queued).
pub fn discard_finalizers() {
    if let Ok(pending) = FINALIZERS.try_with(|q| std::mem::take(&mut *q.borrow_mut())) {
        drop(pending);
    }
}

thread_local! {
    static FINALIZERS: RefCell<Vec<Finalizer>> = const { RefCell::new(Vec::new()) };
    /// The objects (by address) whose `__del__` has run or is queued, while they live.
    static FINALIZED: RefCell<std::collections::HashSet<usize>> = RefCell::default();
}

/// A cheap "the queue may be non-empty" flag, checked by the eval loop where values die.
pub static FINALIZERS_PENDING: AtomicBool = AtomicBool::new(false);

/// Whether `f` is a generator function taking just `self` (not made awaitable by
/// `types.coroutine`): as an `__await__`, calling it makes a plain generator, an iterator,
/// with no code run and nothing to check.
fn generates_from_self(f: &Function) -> bool {
    generator_kind(f) == Some(GenKind::Generator)
        && !f.code.head.flags.iterable_coroutine
        && binds_positionally(f, 1)
}

/// Finished generator objects kept by [`Vm::recycle_generator`].
const GENERATOR_POOL_LIMIT: usize = 32;

impl Vm {
    pub fn new_generator(&mut self, kind: GenKind, frame: Box<Frame>, func: &Function) -> Value {
        Value::Object(self.generator_in_state(kind, func, GenState::before_start(frame)))
    }

    /// A new generator of `func` whose first step runs now, its frame made in place by the
    /// caller and lent to it (`await f()` fused, [`InlineFrames::push_first_step`]):
    /// started, running, and as yet without a frame of its own.
    ///
    /// [`InlineFrames::push_first_step`]: super::frame::InlineFrames::push_first_step
    pub fn new_first_stepping(&mut self, kind: GenKind, func: &Function) -> Rc<Object> {
        self.generator_in_state(kind, func, GenState::first_step())
    }

    /// Gives `generator`, just made and held nowhere else, its code's names: those its
    /// function had until it was renamed during the generator's first step.
    pub(super) fn name_generator_as_code(&mut self, generator: &mut Rc<Object>) {
        let Some(ObjectKind::Generator(g)) = Rc::get_mut(generator).map(|o| &mut o.kind) else {
            return;
        };
        g.name = self.intern(&g.code.head.name);
        g.qualname = g.code.head.qualname.clone();
    }

    fn generator_in_state(
        &mut self,
        kind: GenKind,
        func: &Function,
        state: GenState,
    ) -> Rc<Object> {
        let class = match kind {
            GenKind::Generator => &self.types.generator,
            GenKind::Coroutine => &self.types.coroutine,
            GenKind::AsyncGenerator => &self.types.async_generator,
        };
        // The pool holds only finished generators, that nothing else refers to.
        if let Some(mut recycled) = self.generator_pool.pop()
            && let Some(object) = Rc::get_mut(&mut recycled)
            && let ObjectKind::Generator(old) = &mut object.kind
        {
            old.restart(kind, func, state);
            if !Rc::ptr_eq(&object.class, class) {
                object.class = class.clone();
            }
            object.clear_dict();
            return recycled;
        }
        let generator = ObjectKind::Generator(Generator::start(kind, func, state));
        Rc::new(Object::new(class.clone(), generator))
    }

    /// Drops `v`, keeping it for [`Vm::new_generator`] when it is a finished generator
    /// that nothing else refers to (a coroutine at the end of its `await`): being finished,
    /// it has nothing left to finalize, and no one can tell it is not freed.
    #[inline]
    pub fn recycle_generator(&mut self, v: Value) {
        if let Value::Object(object) = v
            && self.generator_pool.len() < GENERATOR_POOL_LIMIT
            && Rc::strong_count(&object) == 1
            && Rc::weak_count(&object) == 0
            && as_generator_object(&object).is_some_and(Generator::is_finished)
        {
            self.generator_pool.push(object);
        }
    }

    /// Resumes `gen` with `value` sent in, or with `throw` raised at its suspension point.
    pub fn resume(
        &mut self,
        generator: &Generator,
        value: Value,
        throw: Option<Exc>,
    ) -> FrameResult {
        if let Err(e) = self.enter_recursion() {
            self.end_if_unstarted(generator);
            return FrameResult::Err(e);
        }
        let result = match self.start_resume(generator, value, throw.as_ref()) {
            Ok(mut frame) => {
                let owner = generator as *const Generator as usize;
                let result = self.run_recorded(owner, &mut frame, throw);
                self.finish_resume(generator, frame, result, false)
            }
            Err(refused) => refused.with_throw(throw),
        };
        self.leave_recursion();
        result
    }

    /// A generator that failed to start (a RecursionError as its frame was pushed) has run
    /// and ended, as in CPython, where the frame is pushed before the check: it is closed,
    /// and gives no "never awaited" warning when freed.
    pub(super) fn end_if_unstarted(&mut self, generator: &Generator) {
        let mut state = generator.state.borrow_mut();
        if state.started || generator.running.get() {
            return;
        }
        state.started = true;
        let frame = state.take_frame();
        drop(state);
        if let Some(frame) = frame {
            self.recycle_boxed_frame(frame);
        }
    }

    /// Takes the suspended frame out of `generator` to run it one recursion level deeper than
    /// the caller (already entered), with `value` pushed as the result of its `yield`; or says
    /// why it cannot run. Marks it running and gives it its own exception state;
    /// [`Vm::finish_resume`] undoes this. (Only a frame resumed from native code, the one a
    /// task's repr asks about, also gets a [`RunningFrame`] record.)
    #[inline(always)]
    pub fn start_resume(
        &mut self,
        generator: &Generator,
        value: Value,
        throw: Option<&Exc>,
    ) -> Result<Box<Frame>, Refused> {
        if generator.running.get() {
            return Err(self.refuse_running(generator));
        }
        let mut state = generator.state.borrow_mut();
        let Some(mut frame) = state.take_frame() else {
            drop(state);
            return Err(self.refuse_finished(generator));
        };
        let resumed = state.started;
        if !resumed {
            if throw.is_some() {
                // Thrown into a generator that never ran: it ends without running any code.
                drop(state);
                self.recycle_boxed_frame(frame);
                return Err(Refused::Finished);
            }
            if !value.is_none() {
                state.frame = Some(frame);
                drop(state);
                return Err(self.refuse_first_value(generator));
            }
        }
        state.started = true;
        generator.running.set(true);
        let exc_state = std::mem::replace(&mut state.exc_state, Value::None);
        drop(state);
        super::trace::frame_enter(self, generator, &frame, &value, throw);
        self.exc_info.push(exc_state);
        if resumed {
            // Pushed on throw() as well, as gen_send_ex2 does: the handler depths of the
            // exception table count this slot (CLEANUP_THROW inside a `with` relies on it).
            frame.stack.push(value);
        }
        Ok(frame)
    }

    /// A send of `value` into `generator` that passes straight through it: when it is
    /// suspended in a `yield from`/`await` send loop over a generator whose frame can be
    /// lent ([`sends_on`]), and not in an `except` block (its exception state is None), it
    /// becomes running, as [`Vm::start_resume`] would make it, but its frame stays suspended
    /// where it is, untouched. Gives what [`Link::Passed`] keeps (`after` says how its
    /// caller goes on), the generator to send on to, and its `Send`'s target; or gives the
    /// generator back when it must run (or refuse to) instead. `traced`: whether frame
    /// events are traced, asked once for the whole chain.
    ///
    /// [`Link::Passed`]: super::frame::Link::Passed
    #[inline(always)]
    pub(super) fn pass_through(
        &mut self,
        generator: Rc<Object>,
        value: &Value,
        after: AfterGenerator,
        traced: bool,
    ) -> Result<(Passed, Rc<Object>, u32), Rc<Object>> {
        let ObjectKind::Generator(g) = &generator.kind else {
            return Err(generator);
        };
        if g.running.get() {
            return Err(generator);
        }
        let mut guard = g.state.borrow_mut();
        let state = &mut *guard;
        let Some(frame) = state.frame.as_deref() else {
            drop(guard);
            return Err(generator);
        };
        let delegate = match state.resends {
            // Passed through before, and the frame has not moved since.
            Some(target) => sends_again(frame).map(|sub| (sub, target.get())),
            None if state.started && state.exc_state.is_none() => {
                let found = sends_on(frame);
                state.resends = found
                    .as_ref()
                    .and_then(|&(_, target)| std::num::NonZeroU32::new(target));
                found
            }
            None => None,
        };
        let Some((sub, target)) = delegate else {
            drop(guard);
            return Err(generator);
        };
        if traced {
            super::trace::frame_enter(self, g, frame, value, None);
        }
        g.running.set(true);
        drop(guard);
        Ok((Passed { generator, after }, sub, target))
    }

    /// A generator passed through ([`Vm::pass_through`]) suspends again as `value` comes
    /// back up the chain: [`Vm::suspend`], with its frame still in place. (The caller
    /// leaves its recursion level.)
    #[inline(always)]
    pub(super) fn unpass(&mut self, passed: Passed, value: &Value, traced: bool) {
        let ObjectKind::Generator(g) = &passed.generator.kind else {
            return;
        };
        if traced {
            self.trace_unpass(g, value);
        }
        g.running.set(false);
    }

    /// The frame event of [`Vm::unpass`].
    #[cold]
    fn trace_unpass(&mut self, g: &Generator, value: &Value) {
        if let Some(frame) = g.state.borrow().frame.as_deref() {
            super::trace::frame_leave(self, g, frame, || FrameResult::Yielded(value.clone()));
        }
    }

    /// Takes the frame out of a generator passed through ([`Vm::pass_through`]) that must
    /// go on after all (what it sent to returned, raised or refused to run): it is then as
    /// [`Vm::start_resume`] leaves one, its frame about to go on from its `Send`.
    pub(super) fn take_passed_frame(&mut self, generator: &Generator) -> Option<Box<Frame>> {
        let mut frame = generator.state.borrow_mut().take_frame()?;
        self.exc_info.push(Value::None);
        if let Some(&Instr::JumpNoInterrupt(send_at)) =
            frame.code.code().instructions.get(frame.ip as usize)
        {
            frame.ip = send_at + 1;
        }
        Some(frame)
    }

    #[cold]
    fn refuse_running(&mut self, generator: &Generator) -> Refused {
        Refused::Err(self.value_error(format!("{} already executing", generator.kind.noun())))
    }

    #[cold]
    fn refuse_first_value(&mut self, generator: &Generator) -> Refused {
        Refused::Err(self.type_error(format!(
            "can't send non-None value to a just-started {}",
            generator.kind.noun()
        )))
    }

    /// A finished generator refuses to run: a send ends it at once, except that a finished
    /// coroutine refuses even a throw (`gen_send_ex2`; close() never gets here).
    #[cold]
    fn refuse_finished(&mut self, generator: &Generator) -> Refused {
        if generator.kind == GenKind::Coroutine {
            return Refused::Err(self.runtime_error("cannot reuse already awaited coroutine"));
        }
        Refused::Finished
    }

    /// Gives `frame` back to `generator` after it ran ([`Vm::start_resume`]): kept when it
    /// yielded; freed when it returned or raised, PEP 479 applied to what it raised.
    /// `by_python`: a Python frame resumed it, and runs what freeing its locals queued
    /// (a coroutine's "never awaited" blamed on that frame's line, as CPython unlinks an
    /// ending frame before clearing it); else it runs here, blamed on the ended frame.
    #[inline(always)]
    pub fn finish_resume(
        &mut self,
        generator: &Generator,
        frame: Box<Frame>,
        result: FrameResult,
        by_python: bool,
    ) -> FrameResult {
        match result {
            FrameResult::Yielded(v) => {
                self.suspend(generator, frame, &v);
                FrameResult::Yielded(v)
            }
            FrameResult::Returned(v) => {
                self.end_returned(generator, frame, &v, by_python);
                FrameResult::Returned(v)
            }
            FrameResult::Err(e) => self.end_raised(generator, frame, e, by_python),
        }
    }

    /// [`Vm::finish_resume`] of a frame that raised `exc`.
    #[inline(never)]
    fn end_raised(
        &mut self,
        generator: &Generator,
        frame: Box<Frame>,
        exc: Exc,
        by_python: bool,
    ) -> FrameResult {
        self.end_frame(generator, frame, by_python, || {
            FrameResult::Err(exc.clone())
        });
        self.pep479(generator.kind, FrameResult::Err(exc))
    }

    /// [`Vm::finish_resume`] of a frame that returned `value`.
    #[inline(always)]
    fn end_returned(
        &mut self,
        generator: &Generator,
        frame: Box<Frame>,
        value: &Value,
        by_python: bool,
    ) {
        self.end_frame(generator, frame, by_python, || {
            FrameResult::Returned(value.clone())
        });
    }

    /// The end of a frame that returned or raised (`outcome`, for the trace): its exception
    /// state goes, and the frame is released ([`Vm::release_ended`]).
    #[inline(always)]
    fn end_frame(
        &mut self,
        generator: &Generator,
        frame: Box<Frame>,
        by_python: bool,
        outcome: impl FnOnce() -> FrameResult,
    ) {
        if let Some(exc_state) = self.exc_info.pop() {
            exc_state.discard();
        }
        super::trace::frame_leave(self, generator, &frame, outcome);
        generator.running.set(false);
        self.release_ended(frame, by_python);
    }

    /// [`Vm::finish_resume`] of a frame that yielded `value`: the generator keeps it,
    /// suspended, with its exception state.
    #[inline(always)]
    pub(super) fn suspend(&mut self, generator: &Generator, frame: Box<Frame>, value: &Value) {
        let exc_state = match self.exc_info.pop() {
            Some(v) => v,
            None => Value::None,
        };
        super::trace::frame_leave(self, generator, &frame, || {
            FrameResult::Yielded(value.clone())
        });
        generator.running.set(false);
        let mut state = generator.state.borrow_mut();
        state.frame = Some(frame);
        // Emptied by start_resume: nothing to drop.
        std::mem::replace(&mut state.exc_state, exc_state).discard();
    }

    /// A generator's frame that returned or raised: its locals die now, and what that
    /// freed is finalized at once (by the Python frame that resumed it, when `by_python`);
    /// the frame is kept for the next generator.
    #[inline(always)]
    fn release_ended(&mut self, mut frame: Box<Frame>, by_python: bool) {
        frame.release();
        if !by_python && FINALIZERS_PENDING.load(Ordering::Relaxed) {
            self.run_finalizers(Some((&frame.code, frame.ip as usize)));
        }
        self.keep_boxed_frame(frame);
    }

    /// PEP 479, for code compiled without the compiler's handler: a StopIteration that
    /// escapes a generator (of `kind`) becomes a RuntimeError.
    #[cold]
    pub(super) fn pep479(&mut self, kind: GenKind, result: FrameResult) -> FrameResult {
        match result {
            FrameResult::Err(e)
                if kind != GenKind::AsyncGenerator
                    && self.exc_matches(&e, &self.types.stop_iteration.clone()) =>
            {
                let new = self.runtime_error(format!("{} raised StopIteration", kind.noun()));
                if let Some(d) = new.exc_data() {
                    let mut d = d.borrow_mut();
                    d.cause = Value::Object(e.clone());
                    d.context = Value::Object(e);
                    d.suppress_context = true;
                }
                FrameResult::Err(new)
            }
            other => other,
        }
    }

    /// The dispatch loop's [`Vm::run_finalizers`], before the instruction just fetched
    /// (`frame.ip` is past it): blamed on the end of the instruction before, where the
    /// values died, as `finalize_point!` inside that instruction would have blamed them.
    #[cold]
    #[inline(never)]
    pub(super) fn finalize_before(&mut self, frame: &Frame) {
        self.run_finalizers(Some((&frame.code, frame.ip as usize - 1)));
    }

    /// Runs the queued generator finalizers. `at` is the code and instruction pointer of
    /// the frame that dropped them (warnings and tracebacks blame its line); None at shutdown.
    #[cold]
    pub fn run_finalizers(&mut self, at: Option<(&CodeObj, usize)>) {
        FINALIZERS_PENDING.store(false, Ordering::Relaxed);
        let place = at.map(|(code, ip)| (code.code().clone(), code.line_before(ip)));
        loop {
            let pending = FINALIZERS.with(|q| std::mem::take(&mut *q.borrow_mut()));
            if pending.is_empty() {
                break;
            }
            for finalizer in pending {
                match finalizer {
                    Finalizer::Warn(message) => self.warn_runtime(message, place.as_ref()),
                    Finalizer::Del(object) => self.call_del(&object, place.as_ref()),
                    Finalizer::Close(generator) => self.finalize_close(generator, place.as_ref()),
                    Finalizer::Call(callback, arg) => {
                        if let Err(exc) = self.call(&callback, std::slice::from_ref(&arg), &[]) {
                            self.write_unraisable(&callback, exc, place.as_ref());
                        }
                    }
                    Finalizer::Native(report) => report(self),
                    Finalizer::AsyncGenHook(generator, hook) => {
                        let object = self.generator_object(generator);
                        if let Err(exc) = self.call(&hook, std::slice::from_ref(&object), &[]) {
                            self.write_unraisable(&object, exc, place.as_ref());
                        }
                    }
                }
            }
        }
    }

    /// Calls `object.__del__()`; an error is reported "Exception ignored in: <function
    /// C.__del__ …>" as `PyErr_WriteUnraisable` does.
    fn call_del(&mut self, object: &Value, place: Option<&(Rc<Code>, u32)>) {
        let Some(del) = super::types::lookup(self.type_of(object), &self.names.del) else {
            return;
        };
        if let Err(exc) = self.call(&del, std::slice::from_ref(object), &[]) {
            // A native type's finalizer (an io stream's close) names the object, as C's
            // `PyErr_WriteUnraisable(self)` does; a class's `__del__` names the function.
            let native =
                matches!(&del, Value::Object(o) if matches!(o.kind, ObjectKind::Native(_)));
            let culprit = if native { object } else { &del };
            self.write_unraisable(culprit, exc, place);
        }
    }

    /// `_PyErr_WarnUnawaitedCoroutine`, formatted as `warnings.showwarning` prints it, once
    /// per place (the default action).
    fn warn_runtime(&mut self, message: String, place: Option<&(Rc<Code>, u32)>) {
        let Some((code, line)) = place else {
            let note = super::explain::never_awaited(&message, None).unwrap_or_default();
            self.write_stderr(&format!("<sys>:0: RuntimeWarning: {message}\n{note}"));
            return;
        };
        let extra = format!(
            "RuntimeWarning: Enable tracemalloc to get the object allocation traceback\n{}",
            super::explain::never_awaited(&message, Some(*line)).unwrap_or_default()
        );
        self.warn_at(
            "RuntimeWarning",
            &message,
            code.filename.clone(),
            *line,
            &extra,
        );
    }

    /// Closes a freed suspended generator; an error is reported "Exception ignored in" as
    /// `PyErr_WriteUnraisable` does, with the dropping frame as its traceback if it has none.
    fn finalize_close(&mut self, generator: Generator, place: Option<&(Rc<Code>, u32)>) {
        let object = self.generator_object(generator);
        let Some(g) = as_generator(&object) else {
            return;
        };
        let result = gen_close_impl(self, g);
        // Whatever happened, the frame dies now without running more code.
        drop(g.state.borrow_mut().take_frame());
        if let Err(exc) = result {
            self.write_unraisable(&object, exc, place);
        }
    }

    /// Closes the generator `object` as CPython's collector finalizes one it frees (a
    /// task's coroutine left in a cycle at exit): `close()`, its error reported "Exception
    /// ignored in" as `PyErr_WriteUnraisable` does.
    pub fn collect_generator(&mut self, object: &Value) {
        let Some(g) = as_generator(object) else {
            return;
        };
        if let Err(exc) = gen_close_impl(self, g) {
            self.write_unraisable(object, exc, None);
        }
    }

    fn generator_object(&mut self, generator: Generator) -> Value {
        let class = match generator.kind {
            GenKind::Generator => self.types.generator.clone(),
            GenKind::Coroutine => self.types.coroutine.clone(),
            GenKind::AsyncGenerator => self.types.async_generator.clone(),
        };
        Value::object(Object::new(class, ObjectKind::Generator(generator)))
    }

    /// `PyErr_WriteUnraisable(object)`: "Exception ignored in: …" and the traceback, with the
    /// dropping frame as its traceback if it has none.
    pub(crate) fn write_unraisable(
        &mut self,
        object: &Value,
        exc: Exc,
        place: Option<&(Rc<Code>, u32)>,
    ) {
        if let (Some(data), Some((code, line))) = (exc.exc_data(), place)
            && data.borrow().traceback.is_empty()
        {
            data.borrow_mut().traceback.push(TracebackEntry {
                code: code.clone(),
                line: *line,
                span: None,
                frame: None,
            });
        }
        // At the recursion limit (a `__del__` that recursed), the report still has room to
        // call `repr` and `str`, as CPython's error display does.
        let limit = self.recursion_limit;
        self.recursion_limit = limit + 50;
        let repr = self.repr(object).unwrap_or_default();
        let mut text = format!("Exception ignored in: {repr}\n");
        self.format_unraisable(&exc, &mut text);
        self.recursion_limit = limit;
        self.write_stderr(&text);
    }

    /// Runs the main module's `frame` with a [`RunningFrame`] record (owner 0).
    pub fn run_main_recorded(&mut self, frame: &mut Frame) -> FrameResult {
        self.frame_deeper(|vm| vm.run_recorded(0, frame, None))
    }

    /// Runs `frame`, the frame of the generator at address `owner` (0: the main module),
    /// at the current recursion depth with a [`RunningFrame`] record.
    fn run_recorded(&mut self, owner: usize, frame: &mut Frame, throw: Option<Exc>) -> FrameResult {
        self.running_frames.push(RunningFrame {
            generator: owner,
            code: frame.code.clone(),
            depth: self.depth,
            ip: frame.ip as usize,
        });
        let result = self.run_frame_unwinding(frame, throw);
        self.running_frames.pop();
        result
    }

    /// Notes that `frame` is about to make a call or a send: the line a running generator
    /// is at.
    #[inline]
    pub fn note_call_site(&mut self, frame: &Frame) {
        let depth = self.depth;
        if let Some(top) = self.running_frames.last_mut()
            && top.depth == depth
        {
            top.ip = frame.ip as usize;
        }
    }

    /// Notes that `frame` is about to call a native function (or one that is not run
    /// inline): also where a warning that call gives is blamed ([`Vm::warn_caller`]).
    #[inline]
    pub fn note_native_call(&mut self, frame: &Frame) {
        self.note_call_site(frame);
        self.note_caller(frame);
    }

    /// Only the second half of [`Vm::note_native_call`], for a call instruction that noted
    /// its call site already.
    #[inline]
    pub fn note_caller(&mut self, frame: &Frame) {
        self.caller = Some(CallSite::new(frame, self.depth));
    }

    /// The line a running generator's frame is at (its last call or send), if it runs.
    pub fn running_line(&self, generator: &Generator) -> Option<u32> {
        let address = generator as *const Generator as usize;
        let running = self
            .running_frames
            .iter()
            .rev()
            .find(|r| r.generator == address)?;
        Some(running.line())
    }

    /// `file:line` of the innermost Python frame calling the native function now running
    /// (debug mode's "created at"): a generator resumed from native code (or the main
    /// module) when it is that frame, else the line of the call the frame made.
    pub fn call_site(&self) -> Option<String> {
        match self.running_frames.last() {
            Some(top) if top.depth == self.depth => {
                Some(format!("{}:{}", top.code.head.filename, top.line()))
            }
            _ => self.caller_location(),
        }
    }

    /// `generator.send(v)` / `next(generator)`: a yielded value, or StopIteration carrying the return value.
    pub fn gen_send(&mut self, generator: &Generator, value: Value) -> PyResult<Value> {
        match self.resume(generator, value, None) {
            FrameResult::Yielded(v) => Ok(v),
            FrameResult::Returned(v) => Err(self.stop_iteration(v)),
            FrameResult::Err(e) => Err(e),
        }
    }

    /// `generator.throw(exc)`, delegating to a `yield from` sub-iterator first (`_gen_throw`).
    pub fn gen_throw(&mut self, generator: &Generator, exc: Exc) -> FrameResult {
        if let Some(sub) = generator.yield_from() {
            let is_exit = self.exc_matches(&exc, &self.types.generator_exit.clone());
            generator.running.set(true);
            let delegated = if is_exit {
                match self.close_iterator(&sub) {
                    Ok(()) => Some(FrameResult::Err(exc.clone())),
                    Err(e) => Some(FrameResult::Err(e)),
                }
            } else if let Some(sub_gen) = as_generator(&sub) {
                Some(self.gen_throw(sub_gen, exc.clone()))
            } else if let Some(r) = step_awaitable(self, &sub, Value::None, Some(exc.clone())) {
                Some(r)
            } else {
                let throw_name = self.names.throw.clone();
                match self.get_attr_opt(&sub, &throw_name) {
                    Ok(Some(method)) => Some(
                        match self.call(&method, &[Value::Object(exc.clone())], &[]) {
                            Ok(v) => FrameResult::Yielded(v),
                            Err(e) => FrameResult::Err(e),
                        },
                    ),
                    Ok(None) => None,
                    Err(e) => Some(FrameResult::Err(e)),
                }
            };
            generator.running.set(false);
            match delegated {
                Some(FrameResult::Yielded(v)) => return FrameResult::Yielded(v),
                Some(FrameResult::Returned(v)) => {
                    return self.resume(generator, Value::None, Some(self.stop_iteration(v)));
                }
                Some(FrameResult::Err(e)) => return self.resume(generator, Value::None, Some(e)),
                None => {}
            }
        }
        self.resume(generator, Value::None, Some(exc))
    }

    /// Calls `close()` on a sub-iterator if it has one.
    fn close_iterator(&mut self, sub: &Value) -> PyResult<()> {
        if let Some(g) = as_generator(sub) {
            return gen_close_impl(self, g).map(drop);
        }
        let close = self.names.close.clone();
        if let Some(method) = self.get_attr_opt(sub, &close)? {
            self.call(&method, &[], &[])?;
        }
        Ok(())
    }

    /// `Send`: send `v` into a receiver (generator, coroutine, or any iterator).
    pub fn send_to(&mut self, receiver: &Value, v: Value) -> PyResult<FrameResult> {
        if let Some(g) = as_generator(receiver) {
            return Ok(self.resume(g, v, None));
        }
        if let Some(r) = (self.native_send)(self, receiver) {
            return Ok(r);
        }
        if let Some(r) = step_awaitable(self, receiver, v.clone(), None) {
            return Ok(r);
        }
        let result = if v.is_none() {
            let next = self.names.next.clone();
            match super::types::lookup(self.type_of(receiver), &next) {
                Some(f) => self.call(&f, std::slice::from_ref(receiver), &[]),
                None => {
                    return Err(self.type_error(format!(
                        "'{}' object is not an iterator",
                        self.type_name(receiver)
                    )));
                }
            }
        } else {
            self.call_method(receiver, "send", &[v])
        };
        Ok(match result {
            Ok(y) => FrameResult::Yielded(y),
            Err(e) if self.exc_matches(&e, &self.types.stop_iteration.clone()) => {
                FrameResult::Returned(self.exc_args(&e).into_iter().next().unwrap_or(Value::None))
            }
            Err(e) => FrameResult::Err(e),
        })
    }

    /// `GetYieldFromIter`.
    pub fn yield_from_iter(&mut self, v: Value, code: &super::object::CodeObj) -> PyResult<Value> {
        if let Some(g) = as_generator(&v) {
            if g.kind == GenKind::Coroutine
                && !code.head.flags.coroutine
                && !code.head.flags.iterable_coroutine
            {
                return Err(self.type_error(
                    "cannot 'yield from' a coroutine object in a non-coroutine generator",
                ));
            }
            return Ok(v);
        }
        self.get_iter(&v)
    }

    /// `GetAwaitable`: a coroutine itself, or the iterator `__await__()` returns.
    pub fn get_awaitable(&mut self, v: Value, site: AwaitSite) -> PyResult<Value> {
        if let Some(g) = as_generator(&v)
            && g.is_awaitable()
        {
            // A coroutine not started yet (the usual `await f()`) cannot be awaited already.
            if g.kind == GenKind::Coroutine
                && g.state.borrow().started
                && let Some(sub) = g.yield_from()
                && !sub.is_none()
                && !g.is_finished()
            {
                return Err(self.runtime_error("coroutine is being awaited already"));
            }
            return Ok(v);
        }
        if super::async_gen::is_agen_awaitable(&v) {
            return Ok(v);
        }
        if let Some(it) = (self.native_await)(self, &v) {
            return Ok(it);
        }
        let await_name = self.names.await_.clone();
        let method = super::types::lookup(self.type_of(&v), &await_name);
        let Some(method) = method else {
            let detail = match site {
                AwaitSite::AsyncWithEnter => format!(
                    "'async with' received an object from __aenter__ that does not implement __await__: {}",
                    self.type_name(&v)
                ),
                AwaitSite::AsyncWithExit => format!(
                    "'async with' received an object from __aexit__ that does not implement __await__: {}",
                    self.type_name(&v)
                ),
                _ => format!(
                    "object {} can't be used in 'await' expression",
                    self.type_name(&v)
                ),
            };
            return Err(self.type_error(detail));
        };
        if let Value::Function(f) = &method
            && generates_from_self(f)
        {
            // Makes the generator; nothing runs, and it is an iterator.
            let mut locals = self.take_vec(f.code.head.frame_size());
            locals.push(v);
            return self.call_function_with_locals(f, locals);
        }
        let it = self.call(&method, std::slice::from_ref(&v), &[])?;
        if as_generator(&it).is_some_and(Generator::is_awaitable) {
            return Err(self.type_error("__await__() returned a coroutine"));
        }
        if !self.is_iterator(&it) {
            return Err(self.type_error(format!(
                "__await__() returned non-iterator of type '{}'",
                self.type_name(&it)
            )));
        }
        Ok(it)
    }

    /// The `__await__` of `v`'s class when it is a generator function taking just `self`
    /// ([`generates_from_self`]), the usual way to write one.
    pub(super) fn await_generator_function(&self, v: &Value) -> Option<Rc<Function>> {
        if as_generator(v).is_some() || super::async_gen::is_agen_awaitable(v) {
            return None;
        }
        match super::types::lookup(self.type_of(v), &self.names.await_)? {
            Value::Function(f) if generates_from_self(&f) => Some(f),
            _ => None,
        }
    }

    /// `GET_AITER`: `__aiter__()`, which must give an object with `__anext__`.
    pub fn get_aiter(&mut self, v: &Value) -> PyResult<Value> {
        let name = self.names.aiter.clone();
        let iter = match super::types::lookup(self.type_of(v), &name) {
            Some(f) => self.call(&f, std::slice::from_ref(v), &[])?,
            None => {
                return Err(self.type_error(format!(
                    "'async for' requires an object with __aiter__ method, got {}",
                    self.type_name(v)
                )));
            }
        };
        let anext = self.names.anext.clone();
        if super::types::lookup(self.type_of(&iter), &anext).is_none() {
            return Err(self.type_error(format!(
                "'async for' received an object from __aiter__ that does not implement __anext__: {}",
                self.type_name(&iter)
            )));
        }
        Ok(iter)
    }

    /// `GET_ANEXT`: `__anext__()` made awaitable; what cannot be awaited is reported as
    /// `async for`'s error, caused by the `await` one (`_PyErr_FormatFromCause`).
    pub fn get_anext(&mut self, aiter: &Value) -> PyResult<Value> {
        let next = self.anext_awaitable_of(aiter)?;
        self.get_awaitable(next.clone(), AwaitSite::Await)
            .map_err(|cause| {
                let message = format!(
                    "'async for' received an invalid object from __anext__: {}",
                    self.type_name(&next)
                );
                self.new_exc_from(&self.types.type_error.clone(), message, cause)
            })
    }

    /// `INTRINSIC_ASYNC_GEN_WRAP`: the identity. An async generator's own yields are told
    /// from the ones of the awaits inside it by where the frame stopped (the instruction
    /// before its YIELD_VALUE), so no wrapper object is made per item.
    pub fn async_gen_wrap(&mut self, v: Value) -> Value {
        v
    }
}

fn this_gen<'a>(vm: &Vm, args: &'a [Value]) -> PyResult<&'a Generator> {
    args.first()
        .and_then(as_generator)
        .ok_or_else(|| vm.type_error("descriptor requires a generator object"))
}

fn gen_next(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    let g = this_gen(vm, args)?;
    vm.gen_send(g, Value::None)
}

/// Whether `f` is the `send` method of generators and coroutines, which the eval loop's
/// `Call` runs inline when the generator can lend it its frame.
pub fn is_send_method(f: &Value) -> bool {
    super::object::is_native_fn(f, gen_send)
}

fn gen_send(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    let g = this_gen(vm, args)?;
    let v = args.get(1).cloned().unwrap_or(Value::None);
    vm.gen_send(g, v)
}

fn gen_throw(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    let g = this_gen(vm, args)?;
    warn_throw_signature(vm, "throw", &args[1..]);
    let exc = throw_args_to_exc(vm, &args[1..])?;
    match vm.gen_throw(g, exc) {
        FrameResult::Yielded(v) => Ok(v),
        FrameResult::Returned(v) => Err(vm.stop_iteration(v)),
        FrameResult::Err(e) => Err(e),
    }
}

/// CPython 3.12 deprecated `throw(type, value[, traceback])`: called so, `method` warns
/// (and works as before).
pub fn warn_throw_signature(vm: &mut Vm, method: &str, args: &[Value]) {
    if (2..=3).contains(&args.len()) {
        vm.warn_caller(
            "DeprecationWarning",
            &format!(
                "the (type, exc, tb) signature of {method}() is deprecated, \
                 use the single-arg signature instead."
            ),
        );
    }
}

/// The exception `throw(typ[, val[, tb]])` raises (`_gen_throw` with
/// `PyErr_NormalizeException`); the 2- and 3-argument forms are deprecated but still work.
pub fn throw_args_to_exc(vm: &mut Vm, args: &[Value]) -> PyResult<Exc> {
    match args.len() {
        0 => return Err(vm.type_error("throw expected at least 1 argument, got 0")),
        1..=3 => {}
        n => {
            return Err(vm.type_error(format!("throw expected at most 3 arguments, got {n}")));
        }
    }
    if args.get(2).is_some_and(|tb| !tb.is_none()) {
        return Err(vm.type_error("throw() third argument must be a traceback object"));
    }
    let typ = &args[0];
    let val = args.get(1).cloned().unwrap_or(Value::None);
    match typ {
        Value::Type(t) if t.is_subtype(&vm.types.base_exception) => {
            // PyErr_NormalizeException: when making the instance fails, that failure is
            // what is thrown in.
            let instance = match &val {
                Value::None => vm.make_raisable(typ.clone()),
                Value::Object(o) if o.exc_data().is_some() && o.class.is_subtype(t) => {
                    return Ok(o.clone());
                }
                Value::Tuple(items) => vm
                    .call(typ, &items.items, &[])
                    .and_then(|v| vm.make_raisable(v)),
                _ => vm
                    .call(typ, std::slice::from_ref(&val), &[])
                    .and_then(|v| vm.make_raisable(v)),
            };
            Ok(instance.unwrap_or_else(|failure| failure))
        }
        Value::Object(o) if o.exc_data().is_some() => {
            if val.is_none() {
                Ok(o.clone())
            } else {
                Err(vm.type_error("instance exception may not have a separate value"))
            }
        }
        _ => Err(vm.type_error(format!(
            "exceptions must be classes or instances deriving from BaseException, not {}",
            vm.type_name(typ)
        ))),
    }
}

/// `close()`: throw GeneratorExit in; returns the generator's return value (3.13).
fn gen_close_impl(vm: &mut Vm, g: &Generator) -> PyResult<Value> {
    {
        if g.running.get() {
            return Err(vm.value_error(format!("{} already executing", g.kind.noun())));
        }
        let mut state = g.state.borrow_mut();
        if state.frame.is_none() {
            return Ok(Value::None);
        }
        if !state.started {
            drop(state.take_frame());
            return Ok(Value::None);
        }
    }
    let exit = vm.new_exc_args(&vm.types.generator_exit.clone(), vec![]);
    match vm.gen_throw(g, exit) {
        FrameResult::Yielded(_) => {
            Err(vm.runtime_error(format!("{} ignored GeneratorExit", g.kind.noun())))
        }
        FrameResult::Returned(v) => Ok(v),
        FrameResult::Err(e)
            if vm.exc_matches(&e, &vm.types.generator_exit.clone())
                || vm.exc_matches(&e, &vm.types.stop_iteration.clone()) =>
        {
            Ok(Value::None)
        }
        FrameResult::Err(e) => Err(e),
    }
}

fn gen_close(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    let g = this_gen(vm, args)?;
    gen_close_impl(vm, g)
}

/// What `coroutine.__await__()` returns (`coroutine_wrapper`): an iterator over the
/// coroutine's steps, with its `send`, `throw` and `close`.
struct CoroutineWrapper {
    coroutine: Value,
}

fn coro_await(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    let coroutine = this_gen(vm, args)?;
    if coroutine.kind != GenKind::Coroutine {
        return Err(vm.type_error("descriptor '__await__' requires a 'coroutine' object"));
    }
    let wrapper = CoroutineWrapper {
        coroutine: args[0].clone(),
    };
    Ok(Value::object(Object::new(
        vm.types.coroutine_wrapper.clone(),
        ObjectKind::Other(Box::new(wrapper)),
    )))
}

/// The arguments of a `coroutine_wrapper` method with the wrapper (`args[0]`) replaced by
/// the coroutine it steps, for the coroutine's own method.
fn with_coroutine(vm: &Vm, args: &[Value]) -> PyResult<Vec<Value>> {
    let Some(wrapper) = args.first().and_then(Value::native::<CoroutineWrapper>) else {
        return Err(vm.type_error("descriptor requires a 'coroutine_wrapper' object"));
    };
    let mut args = args.to_vec();
    args[0] = wrapper.coroutine.clone();
    Ok(args)
}

pub fn init(vm: &mut Vm) {
    let generator = vm.types.generator.clone();
    let coroutine = vm.types.coroutine.clone();
    vm.add_method(&generator, "__next__", gen_next);
    vm.add_method(&generator, "__iter__", |_, args, _| Ok(args[0].clone()));
    for ty in [&generator, &coroutine] {
        vm.add_method(ty, "send", gen_send);
        vm.add_method(ty, "throw", gen_throw);
        vm.add_method(ty, "close", gen_close);
    }
    let async_generator = vm.types.async_generator.clone();
    for ty in [&generator, &coroutine, &async_generator] {
        vm.add_getset(
            ty,
            "__name__",
            |vm, v| {
                Ok(Value::Str(
                    this_gen(vm, std::slice::from_ref(v))?.name.clone(),
                ))
            },
            None,
        );
        vm.add_getset(
            ty,
            "__qualname__",
            |vm, v| {
                Ok(Value::str(
                    &*this_gen(vm, std::slice::from_ref(v))?.qualname,
                ))
            },
            None,
        );
    }
    vm.add_method(&coroutine, "__await__", coro_await);
    let wrapper = vm.types.coroutine_wrapper.clone();
    vm.add_method(&wrapper, "__iter__", |_, args, _| Ok(args[0].clone()));
    vm.add_method(&wrapper, "__next__", |vm, args, kw| {
        gen_next(vm, &with_coroutine(vm, args)?, kw)
    });
    vm.add_method(&wrapper, "send", |vm, args, kw| {
        gen_send(vm, &with_coroutine(vm, args)?, kw)
    });
    vm.add_method(&wrapper, "throw", |vm, args, kw| {
        gen_throw(vm, &with_coroutine(vm, args)?, kw)
    });
    vm.add_method(&wrapper, "close", |vm, args, kw| {
        gen_close(vm, &with_coroutine(vm, args)?, kw)
    });
    let running: super::object::Getter = |vm, v| {
        Ok(Value::Bool(
            this_gen(vm, std::slice::from_ref(v))?.running.get(),
        ))
    };
    let frame: super::object::Getter = |vm, v| {
        let g = this_gen(vm, std::slice::from_ref(v))?;
        Ok(vm.generator_frame(g))
    };
    let yield_from: super::object::Getter = |vm, v| {
        let g = this_gen(vm, std::slice::from_ref(v))?;
        Ok(g.yield_from().unwrap_or(Value::None))
    };
    let suspended: super::object::Getter = |vm, v| {
        let g = this_gen(vm, std::slice::from_ref(v))?;
        let state = g.state.borrow();
        Ok(Value::Bool(
            state.started && !g.running.get() && state.frame.is_some(),
        ))
    };
    let code: super::object::Getter = |vm, v| {
        let g = this_gen(vm, std::slice::from_ref(v))?;
        Ok(super::frames::code_value(vm, &g.code))
    };
    let attrs = [
        (
            &generator,
            [
                "gi_running",
                "gi_frame",
                "gi_suspended",
                "gi_code",
                "gi_yieldfrom",
            ],
        ),
        (
            &coroutine,
            [
                "cr_running",
                "cr_frame",
                "cr_suspended",
                "cr_code",
                "cr_await",
            ],
        ),
    ];
    for (ty, names) in attrs {
        for (name, getter) in names
            .into_iter()
            .zip([running, frame, suspended, code, yield_from])
        {
            vm.add_getset(ty, name, getter, None);
        }
    }
    // `ag_running` is the async-level flag, added with the async methods.
    let async_attrs = ["ag_frame", "ag_suspended", "ag_code", "ag_await"];
    for (name, getter) in async_attrs
        .into_iter()
        .zip([frame, suspended, code, yield_from])
    {
        vm.add_getset(&async_generator, name, getter, None);
    }
    super::async_gen::init(vm);
}
