//! Frames on the heap: a frame owns its fast locals, cells and value stack (one buffer, as
//! CPython's `localsplus`) and its instruction pointer, so a generator can keep one
//! suspended (`Include/internal/pycore_frame.h`).
//! Also turns the compiler's [`Code`] into a runnable [`CodeObj`] (constants as values,
//! names interned). Nothing here executes instructions.

use std::cell::RefCell;
use std::rc::Rc;

use crate::common::complex_ops::Complex;
use crate::compile::bytecode::{Code, Constant};
use crate::compile::frozen::FrozenCode;

use super::Vm;
use super::object::{Body, CodeObj, Function, Object, ObjectKind};
use super::trashcan;
use super::value::{PyDict, PyStr, Value};
use std::cell::Cell;

/// How many spare value buffers the VM keeps for new frames.
const VEC_POOL_LIMIT: usize = 64;

/// How many finished generator frames the VM keeps for new generators.
const FRAME_POOL_LIMIT: usize = 32;

pub struct Frame {
    pub code: Rc<CodeObj>,
    pub globals: Rc<PyDict>,
    /// Module and class bodies keep their names here (`LoadName`/`StoreName`).
    pub locals_dict: Option<Rc<PyDict>>,
    /// The value stack, above the frame's other slots in one buffer, as CPython's
    /// `localsplus`: the fast locals first (`Null` when unbound), then the cells (cellvars,
    /// then freevars), then the stack proper from [`Code::nlocalsplus`], so that pushes and
    /// pops are a `Vec`'s and a suspended frame is one allocation beside its header.
    /// Absolute positions (`callable_at`, an exception handler's depth plus the base)
    /// count from the first local.
    pub stack: Vec<Value>,
    /// The next instruction to run.
    pub ip: u32,
    /// Set by `Reraise` and bare `raise`: the error being unwound already has this frame's
    /// traceback entry.
    pub reraising: bool,
}

// One 64-byte glibc chunk for a generator's frame header (its slots are the other).
const _: () = assert!(std::mem::size_of::<Frame>() <= 56);

/// A frame dropped with values still in its slots (a generator's that never finished,
/// dropped with its generator) frees them first to last, as `_PyFrame_ClearLocals`, as one
/// level of the [`trashcan`]: a chain of generators each holding the next
/// (`g = (x for x in g)` in a loop) is as deep as it is long. A finished frame's buffer is
/// empty by then, or taken back for the next call.
impl Drop for Frame {
    #[inline]
    fn drop(&mut self) {
        trashcan::free_first_last(&mut self.stack);
    }
}

impl Frame {
    /// A frame for calling `func` with already-bound fast locals at the start of `slots`.
    #[inline]
    pub fn for_function(vm: &Vm, func: &Function, mut slots: Vec<Value>) -> Frame {
        reserve_frame(&mut slots, &func.code.head);
        let mut frame = Frame {
            stack: slots,
            code: func.code.clone(),
            globals: func.globals.clone(),
            locals_dict: None,
            ip: 0,
            reraising: false,
        };
        frame.make_cells(vm, func);
        frame
    }

    /// A frame with an empty buffer, to be readied for a call ([`Frame::restart`]).
    fn blank(vm: &mut Vm, code: &Rc<CodeObj>, globals: &Rc<PyDict>) -> Frame {
        Frame {
            stack: vm.take_vec(code.head.frame_size()),
            code: code.clone(),
            globals: globals.clone(),
            locals_dict: None,
            ip: 0,
            reraising: false,
        }
    }

    /// Readies a finished frame (buffer kept, cleared) to run `func` from its start.
    #[inline]
    fn restart(&mut self, func: &Function) {
        // Often the same function as last time (recursion, a generator's frame reused).
        if !Rc::ptr_eq(&self.code, &func.code) {
            self.code = func.code.clone();
        }
        if !Rc::ptr_eq(&self.globals, &func.globals) {
            self.globals = func.globals.clone();
        }
        self.ip = 0;
        self.reraising = false;
    }

    /// Pads the fast locals to the code's size and makes the cells after them: one per
    /// cell variable (holding its argument when it is one), then the function's closure.
    /// Positional parameters after the arguments given take their defaults first (a call
    /// that [`binds_positionally`](super::call::binds_positionally) with some left out).
    /// Decided inline when there are no cells: at most some locals to pad (a function's
    /// own variables).
    #[inline(always)]
    fn make_cells(&mut self, vm: &Vm, func: &Function) {
        let code = &func.code.head;
        if self.stack.len() < code.argcount as usize {
            self.take_defaults(func);
        }
        if code.cell2arg.is_empty() && func.closure.is_empty() {
            while self.stack.len() < code.varnames.len() {
                self.stack.push(Value::Null);
            }
            return;
        }
        self.pad_locals_and_make_cells(vm, func);
    }

    /// The defaults of the positional parameters after the arguments in the locals (the
    /// last `defaults.len()` parameters have them; the call checked there are enough).
    #[cold]
    #[inline(never)]
    fn take_defaults(&mut self, func: &Function) {
        let argcount = func.code.head.argcount as usize;
        let defaults = func.positional_defaults();
        let first_with_default = argcount.saturating_sub(defaults.len());
        while self.stack.len() < argcount {
            let Some(default) = defaults.get(self.stack.len() - first_with_default) else {
                return;
            };
            self.stack.push(default.clone());
        }
    }

    #[inline(never)]
    fn pad_locals_and_make_cells(&mut self, vm: &Vm, func: &Function) {
        let code = &func.code;
        let nlocals = code.head.varnames.len();
        // Pushed one by one: cheaper than `resize` for the few a frame has.
        while self.stack.len() < nlocals {
            self.stack.push(Value::Null);
        }
        for arg in &code.head.cell2arg {
            let initial = match arg {
                Some(i) => self.stack.get(*i as usize).cloned().unwrap_or(Value::Null),
                None => Value::Null,
            };
            self.stack.push(vm.new_cell(initial));
        }
        if !func.closure.is_empty() {
            self.stack.extend(func.closure.iter().cloned());
        }
    }

    /// Fast local `i` (`Null` when unbound), `i` read from a running instruction.
    #[inline(always)]
    pub fn local(&self, i: usize) -> &Value {
        debug_assert!(i < self.code.head.varnames.len() && i < self.stack.len());
        // SAFETY: `quicken` made every fast local's index in the running instructions one
        // of the code's locals, and a running frame's buffer holds them all: the frame is
        // padded to them before it first runs (`make_cells`, `for_module`), the stack
        // proper grows and shrinks above them (the compiler's depth analysis,
        // `codegen::assemble`, refuses code that would pop below its base, and unwinding
        // cuts it back to the base), and only a finished frame is cleared.
        unsafe { self.stack.get_unchecked(i) }
    }

    /// The fast locals (`Null` when unbound).
    pub fn locals(&self) -> &[Value] {
        let n = self.code.head.varnames.len().min(self.stack.len());
        &self.stack[..n]
    }

    /// The cells: cellvars, then freevars.
    pub fn cells(&self) -> &[Value] {
        let code = &self.code.head;
        self.stack
            .get(code.varnames.len()..code.nlocalsplus())
            .unwrap_or_default()
    }

    /// Cell `i` (a cellvar, or past them a freevar); Null when the frame has no such cell,
    /// which valid bytecode never asks for.
    #[inline]
    pub fn cell(&self, i: usize) -> &Value {
        let at = self.code.head.varnames.len() + i;
        self.stack.get(at).unwrap_or(&Value::Null)
    }

    /// Drops what a finished generator's frame holds ([`Frame::clear`], and its names
    /// dict); its code and `ip` stay, to say where it ended.
    #[inline]
    pub fn release(&mut self) {
        self.clear();
        self.locals_dict = None;
    }

    /// Drops what a finished frame holds, keeping its buffer: locals, cells, then the
    /// value stack, in CPython's order (`_PyFrame_ClearLocals`), which is the buffer's.
    /// Inline: a return runs it for every call, most often on a local or two of small ints.
    #[inline(always)]
    fn clear(&mut self) {
        Value::clear_all(&mut self.stack);
    }

    /// A frame running a module body, with `globals` as its namespace.
    pub fn for_module(vm: &Vm, code: Rc<CodeObj>, globals: Rc<PyDict>) -> Frame {
        let mut slots = Vec::with_capacity(code.head.frame_size());
        slots.resize(code.head.varnames.len(), Value::Null);
        slots.extend(code.cellnames.iter().map(|_| vm.new_cell(Value::Null)));
        Frame {
            stack: slots,
            code,
            locals_dict: Some(globals.clone()),
            globals,
            ip: 0,
            reraising: false,
        }
    }

    /// The line being executed (for tracebacks); a frame that has not started (a new
    /// generator's) is at its `def` line, as CPython's is at its RESUME.
    pub fn line(&self) -> u32 {
        self.code.line_before(self.ip as usize)
    }
}

/// Makes room in `slots` (holding a call's bound locals) for all of a frame of `code`,
/// exactly: a suspended generator or coroutine keeps its buffer, and growing it by
/// doubling would leave it larger than it needs.
#[inline]
fn reserve_frame(slots: &mut Vec<Value>, code: &Code) {
    slots.reserve_exact(code.frame_size().saturating_sub(slots.len()));
}

/// Moves `stack[args_start..]` onto the end of `locals`, in order: one bulk copy, with no
/// reference count touched (the values change owner).
#[inline(always)]
pub fn move_arguments(stack: &mut Vec<Value>, args_start: usize, locals: &mut Vec<Value>) {
    let Some(moved) = stack.get(args_start..) else {
        return;
    };
    let n = moved.len();
    locals.reserve(n);
    // SAFETY: `reserve` made room for `n` more values in `locals`; the `n` values at
    // `stack[args_start..]` are copied there bitwise, and the stack is cut back to
    // `args_start` without dropping them: each value has exactly one owner afterwards.
    // The usual counts are copied as plain moves: a `memcpy` call would cost more than
    // the copy.
    unsafe {
        let (from, to) = (moved.as_ptr(), locals.as_mut_ptr().add(locals.len()));
        match n {
            0 => {}
            1 => to.write(from.read()),
            2 => {
                to.write(from.read());
                to.add(1).write(from.add(1).read());
            }
            _ => std::ptr::copy_nonoverlapping(from, to, n),
        }
        stack.set_len(args_start);
        locals.set_len(locals.len() + n);
    }
}

/// The frames of the inline calls made while one frame runs (`Vm::run_frame`): a call to
/// a plain Python function fills the next frame here instead of recursing in Rust, and a
/// `Send` or `ForIter` into a generator or coroutine lends its frame here for one step (as
/// CPython's `SEND_GEN`/`FOR_ITER_GEN` push the generator's frame), so a whole `await` chain
/// runs, suspends and resumes in one Rust loop. `frames[..live]` are the running callees
/// (the last one is executing); the frames after them finished and keep their buffers for
/// the next call. `links` says how the frames not entered by a plain call got there
/// (plain calls, the common case, cost no entry), and which generators a send went
/// straight through on its way down an `await` chain ([`Link::Passed`]). Starts empty:
/// most runs (a generator resumed for one step) make no inline call, so the VM's spare
/// stack is only taken at the first one.
#[derive(Default)]
pub struct InlineFrames {
    /// Boxed, so lending a generator's frame (kept boxed by its generator) swaps two pointers.
    #[allow(clippy::vec_box)]
    frames: Vec<Box<Frame>>,
    links: Vec<Lent>,
    live: usize,
}

/// A frame on [`InlineFrames`] entered otherwise than by a plain function call (where
/// the caller keeps the callable until the call ends, and gets the return value), or a
/// generator passed through on the way to one. Four words: it is copied whole as it is
/// pushed and popped, and a larger or oddly laid out one costs store-forwarding stalls.
struct Lent {
    /// The frame's index in `frames`.
    at: usize,
    link: Link,
}

/// How a [`Lent`] frame was entered, which says how its end resumes its caller.
enum Link {
    /// A class call running its Python `__init__` on `instance` (CPython's
    /// `CALL_ALLOC_AND_ENTER_INIT`): the call's value is the instance.
    Init(Value),
    /// The first step of a generator (`kind`) started by a fused `await f(…)` or
    /// `yield from g(…)` ([`InlineFrames::push_first_step`]), whose object is not made yet:
    /// its function stands in for it on the caller's stack. Nothing can reach the object
    /// while its first step runs (it is running, so no `cr_await` shows it, and no name
    /// holds it), so it is made only when the frame yields and must be kept
    /// ([`InlineFrames::pop_first_step_made`]), or at once for the frame events of a trace
    /// or a renamed function ([`InlineFrames::make_first_stepping`]); a first step that
    /// returns or raises, as most `await`s of a helper do, never needs it.
    FirstStep {
        kind: GenKind,
        after: AfterGenerator,
    },
    /// A generator's frame, lent while it runs; `home` is the generator's frame box, holding
    /// the slot's spare frame meanwhile.
    Generator {
        generator: Rc<Object>,
        home: Box<Frame>,
        after: AfterGenerator,
    },
    /// A generator a send passed straight through on its way down a `yield from`/`await`
    /// chain (`Vm::pass_through`): running, its frame left suspended in the generator
    /// (it would only send the value on and yield back up what comes), below the frame lent
    /// at `at`. It goes on only if that frame returns or raises (`Vm::lend_passed`).
    Passed(Passed),
}

/// A generator passed through ([`Link::Passed`]). It has no exception state (a send into
/// one suspended in an `except` block is not passed through), so it needs none on the
/// VM's stack while it runs: a None there changes nothing for `sys.exception()`.
pub struct Passed {
    pub generator: Rc<Object>,
    /// How its caller goes on when it ends, as for a lent frame.
    pub after: AfterGenerator,
}

/// The instruction that lent a generator's frame to [`InlineFrames`]: where the caller goes
/// when the generator returns.
#[derive(Clone, Copy)]
pub enum AfterGenerator {
    /// `Send(target)`: the return value is pushed and the caller jumps to `target`.
    Send(u32),
    /// `ForIter(target)`: the iterator is popped and the caller jumps to `target`.
    ForIter(u32),
    /// `Call` of `generator.send(value)`: a yielded value is the call's result, and a
    /// return raises `StopIteration(value)` at the call.
    Call,
}

const _: () = assert!(std::mem::size_of::<Lent>() == 32);

impl InlineFrames {
    /// The running callees, innermost first.
    pub fn running(&self) -> impl Iterator<Item = &Frame> {
        self.frames[..self.live].iter().rev().map(|frame| &**frame)
    }

    /// Whether only the base frame is running.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.live == 0
    }

    /// Whether the executing frame is a generator's lent frame (or a first step's, whose
    /// generator is not made yet).
    #[inline]
    pub fn generator_on_top(&self) -> bool {
        matches!(
            self.links.last(),
            Some(Lent { at, link: Link::Generator { .. } | Link::FirstStep { .. } })
                if at + 1 == self.live
        )
    }

    /// The kind and the caller's way on of the executing frame, when it is a first step
    /// whose generator is not made yet ([`Link::FirstStep`]).
    #[inline(always)]
    pub fn first_step_on_top(&self) -> Option<(GenKind, AfterGenerator)> {
        match self.links.last() {
            Some(Lent {
                at,
                link: Link::FirstStep { kind, after },
            }) if at + 1 == self.live => Some((*kind, *after)),
            _ => None,
        }
    }

    /// The executing frame: the innermost callee, or `base` when there is none.
    #[inline(always)]
    pub fn current<'a>(&'a mut self, base: &'a mut Frame) -> &'a mut Frame {
        match self.live.checked_sub(1) {
            Some(last) => &mut self.frames[last],
            None => base,
        }
    }

    /// Makes sure `frames[live]` exists, taking the VM's spare stack at the first call.
    #[inline(always)]
    fn reserve_slot(&mut self, vm: &mut Vm, code: &Rc<CodeObj>, globals: &Rc<PyDict>) {
        if self.live == self.frames.len() {
            self.grow(vm, code, globals);
        }
    }

    #[cold]
    #[inline(never)]
    fn grow(&mut self, vm: &mut Vm, code: &Rc<CodeObj>, globals: &Rc<PyDict>) {
        if self.frames.capacity() == 0 {
            // The links so far (generators passed through) stay; the spare's are empty.
            let spare = std::mem::take(&mut vm.spare_frames);
            self.frames = spare.frames;
            if self.links.is_empty() {
                self.links = spare.links;
            }
            if self.live < self.frames.len() {
                return;
            }
        }
        self.frames.push(Box::new(Frame::blank(vm, code, globals)));
    }

    /// Starts a call of the Python function at `callable_at` on the executing frame's
    /// stack, followed by self-or-NULL and the arguments from `args_start`
    /// (`callable_at + 1` with a self, `callable_at + 2` after a NULL): the arguments (self
    /// included) move into the callee's locals and the NULL is dropped; the callable stays
    /// on the caller's stack until the call ends, as in CPython, so the call reads it there
    /// without taking a reference of its own. The callee becomes the executing frame.
    #[inline(never)]
    pub fn push_call(
        &mut self,
        vm: &mut Vm,
        base: &mut Frame,
        callable_at: usize,
        args_start: usize,
    ) {
        let (caller, Some(callee)) = self.caller_and_spare(vm, base, callable_at) else {
            return;
        };
        let Some(Value::Function(func)) = caller.stack.get(callable_at) else {
            return;
        };
        // Read through a pointer: the stack changes above the function, which stays there,
        // untouched, until the call ends.
        let func: *const Function = Rc::as_ptr(func);
        move_arguments(&mut caller.stack, args_start, &mut callee.stack);
        // The NULL under the arguments of a plain call owns nothing: forgotten, not dropped.
        debug_assert!(args_start == callable_at + 1 || caller.stack[callable_at + 1].is_null());
        // SAFETY: the stack was cut back to `args_start`, and what lies from `callable_at + 1`
        // up to it, if anything, is that NULL.
        unsafe { caller.stack.set_len(callable_at + 1) };
        // SAFETY: as said above, the caller's stack keeps the function alive.
        let func = unsafe { &*func };
        callee.restart(func);
        callee.make_cells(vm, func);
        self.live += 1;
    }

    /// Readies the spare frame `frames[live]` for a call of the Python function at
    /// `callable_at` on the executing frame's stack ([`InlineFrames::push_call`]): moves
    /// the arguments from `args_start` into it, and drops the NULL under them, so that the
    /// function is left on top.
    #[inline(always)]
    fn ready_callee_in_place(
        &mut self,
        vm: &mut Vm,
        base: &mut Frame,
        callable_at: usize,
        args_start: usize,
    ) {
        let (caller, Some(callee)) = self.caller_and_spare(vm, base, callable_at) else {
            return;
        };
        move_arguments(&mut caller.stack, args_start, &mut callee.stack);
        if let Some(Value::Function(func)) = caller.stack.get(callable_at) {
            callee.restart(func);
            callee.make_cells(vm, func);
        }
        // The NULL under the arguments of a plain call owns nothing: forgotten, not dropped.
        if caller.stack.last().is_some_and(Value::is_null) {
            std::mem::forget(caller.stack.pop());
        }
    }

    /// The executing frame (the caller) and the spare frame `frames[live]`, for a call of
    /// the function at `callable_at` on the caller's stack (the spare made if there is
    /// none yet).
    #[inline(always)]
    fn caller_and_spare<'a>(
        &'a mut self,
        vm: &mut Vm,
        base: &'a mut Frame,
        callable_at: usize,
    ) -> (&'a mut Frame, Option<&'a mut Frame>) {
        if self.live == self.frames.len() {
            self.grow_for_callable(vm, base, callable_at);
        }
        let (running, spare) = self.frames.split_at_mut(self.live);
        let caller = match running.last_mut() {
            Some(f) => &mut **f,
            None => base,
        };
        (caller, spare.first_mut().map(|f| &mut **f))
    }

    /// [`InlineFrames::reserve_slot`] for [`InlineFrames::push_call`], which has the
    /// function only on the executing frame's stack.
    #[cold]
    #[inline(never)]
    fn grow_for_callable(&mut self, vm: &mut Vm, base: &mut Frame, callable_at: usize) {
        if let Some(Value::Function(func)) = self.current(base).stack.get(callable_at) {
            let func = func.clone();
            self.grow(vm, &func.code, &func.globals);
        }
    }

    /// Readies the spare frame `frames[live]` to run `func` from its start, with the
    /// arguments (self included) moved off the executing frame's stack from `args_start`;
    /// gives back that executing frame, the caller.
    #[inline(always)]
    fn ready_callee<'a>(
        &'a mut self,
        vm: &mut Vm,
        base: &'a mut Frame,
        func: &Function,
        args_start: usize,
    ) -> &'a mut Frame {
        self.reserve_slot(vm, &func.code, &func.globals);
        let (running, spare) = self.frames.split_at_mut(self.live);
        let caller = match running.last_mut() {
            Some(f) => &mut **f,
            None => base,
        };
        if let Some(callee) = spare.first_mut() {
            callee.restart(func);
            move_arguments(&mut caller.stack, args_start, &mut callee.stack);
            callee.make_cells(vm, func);
        }
        caller
    }

    /// `await f(…)` (or `yield from f(…)`) of a coroutine (or generator) function, fused:
    /// the generator's first step starts at once, its frame made in place like a plain
    /// call's, and the generator itself only if it comes to be needed
    /// ([`Link::FirstStep`]). The function is left on the caller's stack at `callable_at`,
    /// where the skipped `Send` would have the generator: the callable itself
    /// (`stand_in` None), or `stand_in` (an `__await__` method called on the awaited
    /// object, which is its argument, at `callable_at`).
    pub fn push_first_step(
        &mut self,
        vm: &mut Vm,
        base: &mut Frame,
        stand_in: Option<Rc<Function>>,
        (callable_at, args_start): (usize, usize),
        kind: GenKind,
        after: AfterGenerator,
    ) {
        match stand_in {
            None => self.ready_callee_in_place(vm, base, callable_at, args_start),
            Some(func) => {
                let caller = self.ready_callee(vm, base, &func, args_start);
                caller.stack.push(Value::Function(func));
            }
        }
        self.links.push(Lent {
            at: self.live,
            link: Link::FirstStep { kind, after },
        });
        self.live += 1;
    }

    /// Makes the generator of the executing first step ([`Link::FirstStep`]) before the
    /// step runs (for the frame events of a trace, which name it, and for a renamed
    /// function): as [`InlineFrames::pop_first_step_made`] makes it, but the frame stays
    /// lent, from the generator now ([`Link::Generator`]). None when the executing frame
    /// is no first step.
    pub fn make_first_stepping(&mut self, vm: &mut Vm, base: &mut Frame) -> Option<Rc<Object>> {
        let (_, after) = self.first_step_on_top()?;
        let (generator, mut home) = self.take_first_step(vm, base, true)?;
        std::mem::swap(&mut self.frames[self.live], &mut home);
        self.links.push(Lent {
            at: self.live,
            link: Link::Generator {
                generator: generator.clone(),
                home,
                after,
            },
        });
        self.live += 1;
        Some(generator)
    }

    /// Takes the executing first step, whose generator was never made, off this stack as
    /// its frame yields: the generator is made ([`InlineFrames::make_first_stepping`]) and
    /// given with the frame, to suspend in it (as [`InlineFrames::pop_generator`] gives a
    /// lent one); its caller executes again.
    #[inline]
    pub fn pop_first_step_made(
        &mut self,
        vm: &mut Vm,
        base: &mut Frame,
    ) -> Option<(Rc<Object>, Box<Frame>)> {
        self.take_first_step(vm, base, false)
    }

    /// [`InlineFrames::pop_first_step_made`], or with `at_start` for
    /// [`InlineFrames::make_first_stepping`] before the step runs.
    #[inline(always)]
    fn take_first_step(
        &mut self,
        vm: &mut Vm,
        base: &mut Frame,
        at_start: bool,
    ) -> Option<(Rc<Object>, Box<Frame>)> {
        let (kind, _) = self.first_step_on_top()?;
        let (running, spare) = self.frames.split_at_mut(self.live - 1);
        let caller = match running.last_mut() {
            Some(f) => &mut **f,
            None => base,
        };
        let receiver = caller.stack.last_mut()?;
        let Value::Function(func) = std::mem::replace(receiver, Value::Null) else {
            return None;
        };
        let mut generator = vm.new_first_stepping(kind, &func);
        if !at_start && func.renamed.get() {
            // Renamed while the step ran (a renamed function's is made at its start): the
            // generator has the names it started with.
            vm.name_generator_as_code(&mut generator);
        }
        // (The Null put there above needs no destructor call.)
        std::mem::replace(receiver, Value::Object(generator.clone())).discard();
        let mut frame = vm.spare_boxed_frame(&func);
        std::mem::swap(spare.first_mut()?, &mut frame);
        self.links.pop();
        self.live -= 1;
        Some((generator, frame))
    }

    /// Takes the executing first step, whose generator was never made, off this stack
    /// after its frame returned or raised: the frame is cleared in place, as a plain
    /// call's ([`InlineFrames::pop_call`]), and its caller executes again.
    #[inline(always)]
    pub fn pop_first_step(&mut self) {
        self.links.pop();
        self.live -= 1;
        self.frames[self.live].clear();
    }

    /// A class call running `init` inline as the `__init__` of `instance`, which is on the
    /// caller's stack as `self` at `args_start` ([`InlineFrames::push_call`]); the call's
    /// value is the instance (CPython's `CALL_ALLOC_AND_ENTER_INIT`).
    pub fn push_init(
        &mut self,
        vm: &mut Vm,
        base: &mut Frame,
        init: &Function,
        args_start: usize,
        instance: Value,
    ) {
        self.ready_callee(vm, base, init, args_start);
        self.live += 1;
        self.links.push(Lent {
            at: self.live - 1,
            link: Link::Init(instance),
        });
    }

    /// Ends the executing callee (after it returned or let an exception escape): its
    /// caller executes again, without the callable it kept during the call. Gives back the
    /// instance of a class call.
    #[inline(always)]
    pub fn pop_call(&mut self, vm: &mut Vm, base: &mut Frame) -> Option<Value> {
        let last = self.live.checked_sub(1)?;
        self.frames[last].clear();
        self.live = last;
        vm.leave_recursion();
        // The callable (most often a function) is released inline, without the generic
        // out-of-line destructor.
        match self.current(base).stack.pop() {
            Some(Value::Function(f)) => drop(f),
            other => drop(other),
        }
        if self.links.last().is_some_and(|l| l.at == last) {
            return self.pop_init();
        }
        None
    }

    #[cold]
    fn pop_init(&mut self) -> Option<Value> {
        match self.links.pop() {
            Some(Lent {
                link: Link::Init(instance),
                ..
            }) => Some(instance),
            _ => None,
        }
    }

    /// Lends `generator`'s suspended `frame` (taken out by `Vm::start_resume`) to this stack:
    /// it becomes the executing frame.
    #[inline(always)]
    pub fn push_generator(
        &mut self,
        vm: &mut Vm,
        generator: Rc<Object>,
        mut frame: Box<Frame>,
        after: AfterGenerator,
    ) {
        self.reserve_slot(vm, &frame.code, &frame.globals);
        std::mem::swap(&mut self.frames[self.live], &mut frame);
        self.links.push(Lent {
            at: self.live,
            link: Link::Generator {
                generator,
                home: frame,
                after,
            },
        });
        self.live += 1;
    }

    /// Notes that the send into the frame about to be lent passed through `passed`.
    #[inline(always)]
    pub fn push_passed(&mut self, passed: Passed) {
        self.links.push(Lent {
            at: self.live,
            link: Link::Passed(passed),
        });
    }

    /// The innermost generator passed through on the way to the frame lent last, once that
    /// frame has left (`live` is back to its slot).
    #[inline(always)]
    pub fn passed_on_top(&self) -> Option<&Passed> {
        match self.links.last() {
            Some(Lent {
                at,
                link: Link::Passed(passed),
            }) if *at == self.live => Some(passed),
            _ => None,
        }
    }

    /// Takes off the link [`InlineFrames::passed_on_top`] gives, if there is one.
    #[inline(always)]
    pub fn pop_passed(&mut self) -> Option<Passed> {
        let passed: *const Passed = self.passed_on_top()?;
        // SAFETY: `passed` points into the last link, a `Passed`: the vector is cut back
        // past it without dropping it, and the `Passed` moves out, its one owner. (`pop`
        // and a match would copy the whole link through the stack first.)
        unsafe {
            self.links.set_len(self.links.len() - 1);
            let generator = std::ptr::read(&(*passed).generator);
            Some(Passed {
                generator,
                after: (*passed).after,
            })
        }
    }

    /// Takes the executing generator frame back off this stack (it yielded, returned or
    /// raised), for `Vm::finish_resume`; its caller executes again. None when the executing
    /// frame is not a generator's.
    #[inline(always)]
    pub fn pop_generator(&mut self) -> Option<(Rc<Object>, Box<Frame>, AfterGenerator)> {
        let made = matches!(
            self.links.last(),
            Some(Lent { at, link: Link::Generator { .. } }) if at + 1 == self.live
        );
        if !made {
            return None;
        }
        let Lent {
            link:
                Link::Generator {
                    generator,
                    mut home,
                    after,
                },
            ..
        } = self.links.pop()?
        else {
            return None;
        };
        self.live -= 1;
        std::mem::swap(&mut self.frames[self.live], &mut home);
        Some((generator, home, after))
    }

    /// Gives the (finished, cleared) frames back to the VM once the base frame stops, for
    /// the next run to reuse.
    #[inline]
    pub fn finish(self, vm: &mut Vm) {
        if self.frames.capacity() != 0 {
            vm.spare_frames = self;
        }
    }
}

impl Vm {
    /// An empty value vector for a frame's slots, reusing the buffer of a finished frame
    /// when there is one.
    #[inline]
    pub fn take_vec(&mut self, capacity: usize) -> Vec<Value> {
        match self.vec_pool.pop() {
            Some(v) => v,
            // Exactly what the code needs: a suspended generator or coroutine keeps its
            // buffer, and a minimum of 8 values made each of them 128 bytes.
            None => Vec::with_capacity(capacity),
        }
    }

    /// A boxed frame for a generator of `func`, with its bound locals at the start of
    /// `slots`, reusing a finished generator's box when there is one.
    #[inline]
    pub fn boxed_frame(&mut self, func: &Function, mut slots: Vec<Value>) -> Box<Frame> {
        let Some(mut frame) = self.frame_pool.pop() else {
            return Box::new(Frame::for_function(self, func, slots));
        };
        frame.restart(func);
        reserve_frame(&mut slots, &func.code.head);
        let spare = std::mem::replace(&mut frame.stack, slots);
        if self.vec_pool.len() < VEC_POOL_LIMIT {
            self.vec_pool.push(spare);
        }
        frame.make_cells(self, func);
        frame
    }

    /// [`Vm::boxed_frame`] with the arguments moved off `stack` from `args_start`.
    pub fn boxed_frame_from_stack(
        &mut self,
        func: &Function,
        stack: &mut Vec<Value>,
        args_start: usize,
    ) -> Box<Frame> {
        let Some(mut frame) = self.frame_pool.pop() else {
            let mut slots = self.take_vec(func.code.head.frame_size());
            move_arguments(stack, args_start, &mut slots);
            return Box::new(Frame::for_function(self, func, slots));
        };
        frame.restart(func);
        reserve_frame(&mut frame.stack, &func.code.head);
        move_arguments(stack, args_start, &mut frame.stack);
        frame.make_cells(self, func);
        frame
    }

    /// A box for a generator of `func` to keep its frame in: a finished generator's, or
    /// a new one with empty buffers.
    #[inline]
    pub fn spare_boxed_frame(&mut self, func: &Function) -> Box<Frame> {
        match self.frame_pool.pop() {
            Some(frame) => frame,
            None => Box::new(Frame::blank(self, &func.code, &func.globals)),
        }
    }

    /// Gives a finished generator's frame back, box and buffers, for the next generator.
    #[inline]
    pub fn recycle_boxed_frame(&mut self, mut frame: Box<Frame>) {
        frame.release();
        self.keep_boxed_frame(frame);
    }

    /// Keeps a released frame ([`Frame::release`]) for the next generator.
    #[inline(always)]
    pub fn keep_boxed_frame(&mut self, frame: Box<Frame>) {
        if self.frame_pool.len() < FRAME_POOL_LIMIT {
            self.frame_pool.push(frame);
        }
    }

    /// Gives a finished frame's buffer back for the next call.
    #[inline]
    pub fn recycle_frame(&mut self, mut frame: Frame) {
        frame.clear();
        if self.vec_pool.len() < VEC_POOL_LIMIT {
            self.vec_pool.push(std::mem::take(&mut frame.stack));
        }
    }

    pub fn new_cell(&self, initial: Value) -> Value {
        Value::object(Object::new(
            self.types.cell.clone(),
            ObjectKind::Cell(RefCell::new(initial)),
        ))
    }

    /// A code object for a compiled module (or `exec`'d) code. A module's SyntaxWarnings are
    /// shown here, before anything runs, as CPython's compiler shows them while compiling.
    pub fn load_code(&mut self, code: &Rc<Code>) -> Rc<CodeObj> {
        if !code.warnings.is_empty() {
            self.show_syntax_warnings(code);
        }
        Rc::new(self.code_object(code.clone(), None))
    }

    /// A code object for `head` (the whole code unless `frozen`): its variables are
    /// interned now, the rest waits for its first run ([`Vm::body`]).
    fn code_object(&mut self, head: Rc<Code>, frozen: Option<Rc<FrozenCode>>) -> CodeObj {
        let varnames = head.varnames.iter().map(|n| self.intern(n)).collect();
        let cellnames = head
            .cellvars
            .iter()
            .chain(head.freevars.iter())
            .map(|n| self.intern(n))
            .collect();
        CodeObj::new(head, frozen, varnames, cellnames)
    }

    /// What running `code` needs beyond its [`Code`], made on its first run: the whole code
    /// read (a frozen code object's), its constants made values (a nested code object only
    /// a code object, its own body made when it runs), its names interned, its instructions
    /// quickened.
    #[inline]
    pub fn body<'c>(&mut self, code: &'c CodeObj) -> &'c Body {
        match code.running() {
            Some(body) => body,
            None => self.make_body(code),
        }
    }

    #[cold]
    #[inline(never)]
    fn make_body<'c>(&mut self, code: &'c CodeObj) -> &'c Body {
        let whole = code.code().clone();
        let body = Body {
            quick: super::quicken::quicken(
                &whole.instructions,
                &whole.constants,
                whole.varnames.len(),
            ),
            consts: whole.constants.iter().map(|c| self.constant(c)).collect(),
            names: whole.names.iter().map(|n| self.intern(n)).collect(),
            caches: Default::default(),
            code: whole,
        };
        code.set_body(body)
    }

    fn code_value(&mut self, head: Rc<Code>, frozen: Option<Rc<FrozenCode>>) -> Value {
        let code = Rc::new(self.code_object(head, frozen));
        Value::object(Object::new(self.types.code.clone(), ObjectKind::Code(code)))
    }

    fn constant(&mut self, c: &Constant) -> Value {
        match c {
            Constant::None => Value::None,
            Constant::Bool(b) => Value::Bool(*b),
            Constant::Ellipsis => Value::Ellipsis,
            Constant::Int(n) => Value::Int(*n),
            Constant::BigInt(b) => Value::from_bigint((**b).clone()),
            Constant::Float(f) => Value::Float(*f),
            Constant::Complex(re, im) => {
                self.ready_methods(&self.types.complex.clone());
                self.new_complex(Complex::new(*re, *im))
            }
            // Constant strings are interned, as CPython does for identifier-like ones.
            Constant::Str(s) => Value::Str(self.intern(s)),
            Constant::Bytes(b) => self.new_bytes(b.to_vec()),
            Constant::Tuple(items) => {
                Value::tuple(items.iter().map(|c| self.constant(c)).collect())
            }
            Constant::FrozenSet(items) => {
                let items = items.iter().map(|c| self.constant(c)).collect();
                // Constants hash and compare without running Python code.
                self.new_set(items, true).unwrap_or(Value::None)
            }
            Constant::Code(code) => self.code_value(code.clone(), None),
            Constant::Frozen(frozen) => self.code_value(frozen.head.clone(), Some(frozen.clone())),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GenKind {
    Generator,
    Coroutine,
    AsyncGenerator,
}

impl GenKind {
    /// What CPython's messages call one ("coroutine raised StopIteration").
    pub fn noun(self) -> &'static str {
        match self {
            GenKind::Generator => "generator",
            GenKind::Coroutine => "coroutine",
            GenKind::AsyncGenerator => "async generator",
        }
    }
}

pub struct GenState {
    /// The suspended frame; taken out while running, None once finished. Taken out by
    /// [`GenState::take_frame`].
    pub frame: Option<Box<Frame>>,
    /// The target of the `Send` of the `yield from`/`await` send loop the frame is suspended
    /// in, once a send passed through it (`Vm::pass_through`): while the frame stays in
    /// place, the next send passes through without finding the loop again. (A target is
    /// never 0: it is past its `Send`.)
    pub resends: Option<std::num::NonZeroU32>,
    pub started: bool,
    /// The exception this generator was handling when it suspended.
    pub exc_state: Value,
}

/// A generator (or the main module) whose frame is running: where that frame last called
/// or sent from, so a repr can say which line it is "running at" (`f_lineno`).
pub struct RunningFrame {
    /// The generator's address (identity only).
    pub(super) generator: usize,
    pub(super) code: Rc<CodeObj>,
    /// `Vm::depth` while its own frame executes.
    pub(super) depth: usize,
    /// The frame's `ip` when it last made a call or a send.
    pub(super) ip: usize,
}

pub struct Generator {
    pub kind: GenKind,
    /// The function's code (`gi_code`); also says whether `types.coroutine` made it awaitable.
    pub code: Rc<CodeObj>,
    pub name: Rc<PyStr>,
    pub qualname: Rc<str>,
    /// Whether it runs now (`gi_running`): its frame lent out, or passed through with its
    /// frame in place. Kept outside `state`, so flipping it takes no borrow.
    pub running: Cell<bool>,
    pub state: RefCell<GenState>,
    /// Async generators only: hooks, `ag_closed`, `ag_running_async` (made at first use,
    /// so a plain generator or coroutine carries one pointer, not the flags).
    pub(super) agen: std::cell::OnceCell<Box<AgenFlags>>,
}

/// The async-generator part of a generator's state (`ag_hooks_inited`, `ag_closed`,
/// `ag_running_async`, and the finalizer hook captured at first iteration).
#[derive(Default)]
pub struct AgenFlags {
    pub hooks_inited: Cell<bool>,
    pub closed: Cell<bool>,
    pub running_async: Cell<bool>,
    pub finalizer: RefCell<Option<Value>>,
    /// Revived for the finalizer hook: freed again, it ends quietly (PEP 442 finalizes once).
    pub finalized: Cell<bool>,
}

/// The outcome of running a frame until it stops.
pub enum FrameResult {
    Returned(Value),
    Yielded(Value),
    Err(super::Exc),
}

/// Where the innermost Python frame made the native call now running (`Vm::caller`).
pub struct CallSite {
    pub(super) code: Rc<CodeObj>,
    /// The frame's `ip` after the call instruction.
    pub(super) ip: usize,
    /// `Vm::depth` of that frame: a native call runs at its caller's depth.
    pub(super) depth: usize,
}

pub(super) fn as_generator_object(o: &Object) -> Option<&Generator> {
    match &o.kind {
        ObjectKind::Generator(g) => Some(g),
        _ => None,
    }
}

pub fn as_generator(v: &Value) -> Option<&Generator> {
    match v {
        Value::Object(o) => as_generator_object(o),
        _ => None,
    }
}

/// [`CodeObj::inline_arity`] of `code`: its positional parameter count when a call with
/// exactly that many positional arguments binds them as they are (no keyword-only
/// parameters, no `*args` or `**kwargs`) and runs the body (not a generator, coroutine or
/// async generator); `u32::MAX` otherwise. What `call::binds_positionally` and
/// `call::generator_kind` say together.
pub fn inline_arity(code: &Code) -> u32 {
    let flags = &code.flags;
    let simple = code.kwonlyargcount == 0 && !flags.varargs && !flags.varkeywords;
    let runs_body = !flags.async_generator && !flags.coroutine && !flags.generator;
    match simple && runs_body {
        true => code.argcount,
        false => u32::MAX,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compile::first_function as function;

    /// Every count (the unrolled ones and the bulk copy) moves the values in order, each
    /// keeping its one reference, and leaves what is below `args_start` in place.
    #[test]
    fn move_arguments_moves_in_order_without_touching_reference_counts() {
        for n in 0..6 {
            let args: Vec<Value> = (0..n).map(|i| Value::str(format!("a{i}"))).collect();
            let mut stack = vec![Value::Int(-1), Value::Null];
            stack.extend(args.iter().cloned());
            let mut locals = Vec::new();
            move_arguments(&mut stack, 2, &mut locals);
            assert!(matches!(stack[..], [Value::Int(-1), Value::Null]));
            assert_eq!(locals.len(), n);
            for (moved, arg) in locals.iter().zip(&args) {
                let (Value::Str(moved), Value::Str(arg)) = (moved, arg) else {
                    panic!("not a str");
                };
                assert!(Rc::ptr_eq(moved, arg));
                assert_eq!(Rc::strong_count(arg), 2);
            }
            drop(locals);
            assert!(
                args.iter()
                    .all(|a| matches!(a, Value::Str(s) if Rc::strong_count(s) == 1))
            );
        }
    }

    #[test]
    fn inline_arity_is_the_positional_count_of_plain_functions_only() {
        assert_eq!(inline_arity(&function("def f(a, b):\n    pass\n")), 2);
        // Defaults change nothing: a call with every argument binds them as they are.
        assert_eq!(inline_arity(&function("def f(a, b=1):\n    pass\n")), 2);
        assert_eq!(inline_arity(&function("def f():\n    pass\n")), 0);
        for source in [
            "def f(a, *b):\n    pass\n",
            "def f(a, **k):\n    pass\n",
            "def f(a, *, b):\n    pass\n",
            "def f(a):\n    yield a\n",
            "async def f(a):\n    pass\n",
            "async def f(a):\n    yield a\n",
        ] {
            assert_eq!(inline_arity(&function(source)), u32::MAX, "{source}");
        }
    }
}
