//! `sys.settrace` and `sys.setprofile`: the functions a debugger (`bdb`, `pdb`), a
//! coverage tool or a profiler sets, and the frames' own `f_trace`, called with a frame, an
//! event and an argument as CPython 3.13's tracing calls them (`Python/legacy_tracing.c`
//! over `Python/instrumentation.c`):
//!
//! | event       | to              | when                                                  | argument |
//! |-------------|-----------------|-------------------------------------------------------|----------|
//! | `call`      | trace, profile  | a frame starts, resumes, or has an exception thrown in | None     |
//! | `line`      | trace           | a line starts (below), or a backward jump stays on its line | None |
//! | `return`    | trace, profile  | a frame returns or yields; or an exception leaves it  | the value, or None |
//! | `exception` | trace           | an exception is raised in the frame or passes through it; an awaited generator, or a `for` loop's with a value, returns (its `StopIteration`) | `(type, value, traceback)` |
//! | `c_call`, `c_return`, `c_exception` | profile | around a call of a `builtin_function_or_method` | the function |
//!
//! Costs nothing while neither is set. While one is, the VM's check window is one
//! instruction long ([`Vm::tracing_on`]), so `execute` calls [`Vm::trace_instruction`]
//! from its between-instructions check before every instruction, and every fast path that
//! skips instructions stands aside, as it does when a limit check is due.
//!
//! A line starts, as CPython's instrumentation marks them, at a frame's first instruction,
//! at an instruction whose line differs from the one before it in the code, and at every
//! jump target and exception handler; the event fires when the instruction run before it
//! in the frame was on another line, or when the frame has just started or resumed.
//!
//! Each frame the tracer has seen has a [`FrameTrace`] here, by address, with its `f_trace`
//! and its frame object, which stays the same object while the frame runs (a debugger
//! compares frames with `is`). The table belongs to the thread (swapped with the others).

use std::rc::Rc;

use crate::compile::bytecode::{Code, Instr};

use super::frame::{AfterGenerator, Frame, FrameResult, InlineFrames};
use super::frames::FrameObject;
use super::object::{CodeObj, ObjectKind};
use super::value::Value;
use super::{Exc, FrameTrace, Lines, PyResult, Tracing, Vm};

impl FrameTrace {
    fn new(code: &Rc<CodeObj>) -> FrameTrace {
        FrameTrace {
            code: code.clone(),
            f_trace: Value::None,
            lines: true,
            opcodes: false,
            active: false,
            previous: None,
            c_call: None,
            object: None,
        }
    }
}

/// The key of a frame in [`Tracing::frames`].
fn key(frame: &Frame) -> usize {
    frame as *const Frame as usize
}

/// The lines of `code`'s instructions as tracing sees them: None where CPython's have no
/// line, the compiler's [`lineless`](crate::compile::bytecode::Location::lineless) jumps,
/// the entry of an exception handler (not a `with`'s) and the cleanup that re-raises from
/// one (apy's carry the line of the code before them).
fn traced_lines(code: &Code) -> Vec<Option<u32>> {
    let mut lines: Vec<Option<u32>> = (code.locations.iter())
        .map(|l| (!l.lineless).then_some(l.line))
        .collect();
    let instr = |i: usize| code.instructions.get(i).copied();
    for entry in &code.exception_table {
        let target = entry.target as usize;
        let with_exit = instr(target) == Some(Instr::PushExcInfo)
            && instr(target + 1) == Some(Instr::WithExceptStart);
        if with_exit {
            continue;
        }
        if instr(target) == Some(Instr::PushExcInfo) {
            if let Some(line) = lines.get_mut(target) {
                *line = None;
            }
        } else if entry.push_lasti {
            for (i, line) in lines.iter_mut().enumerate().skip(target) {
                *line = None;
                if matches!(instr(i), Some(Instr::Reraise(_))) {
                    break;
                }
            }
        }
    }
    lines
}

/// What an instruction about to run tells the tracer.
enum Ending {
    /// Not a return or a yield.
    No,
    /// The frame returns this value.
    Return(Value),
    /// The frame yields this value.
    Yield(Value),
}

impl Tracing {
    /// The table entry of the running frame at `frame`, if it is this code's.
    pub fn entry(&mut self, frame: usize, code: &Rc<CodeObj>) -> Option<&mut FrameTrace> {
        self.frames
            .get_mut(&frame)
            .filter(|e| Rc::ptr_eq(&e.code, code))
    }

    /// The entry of the running frame at `frame` with `code`, made if there is none.
    pub fn entry_or_new(&mut self, frame: usize, code: &Rc<CodeObj>) -> &mut FrameTrace {
        let e = self
            .frames
            .entry(frame)
            .or_insert_with(|| FrameTrace::new(code));
        if !Rc::ptr_eq(&e.code, code) {
            *e = FrameTrace::new(code);
        }
        e
    }

    /// The lines of `code`'s instructions ([`traced_lines`]) and which of them start a
    /// line (see the module's doc).
    fn lines(&mut self, code: &Rc<CodeObj>) -> Rc<Lines> {
        let at = Rc::as_ptr(code) as usize;
        if let Some((_, lines)) = self.lines.get(&at) {
            return lines.clone();
        }
        let whole = code.code();
        let line = traced_lines(whole);
        let mut starts: Vec<bool> = (0..line.len())
            .map(|i| line[i].is_some() && (i == 0 || line[i] != line[i - 1]))
            .collect();
        let targets = (whole.instructions.iter())
            .filter_map(Instr::jump_target)
            .chain(whole.exception_table.iter().map(|e| e.target));
        for target in targets {
            let target = target as usize;
            if line.get(target).is_some_and(Option::is_some) {
                starts[target] = true;
            }
        }
        let lines = Rc::new(Lines { line, starts });
        self.lines.insert(at, (code.clone(), lines.clone()));
        lines
    }
}

impl Vm {
    /// Whether a trace or profile function is set on this thread: then every instruction
    /// comes through [`Vm::trace_instruction`].
    #[inline]
    pub fn tracing_on(&self) -> bool {
        self.tracing.function.is_some() || self.tracing.profile.is_some()
    }

    /// `sys.settrace(function)` (None: off). The frames running now get no `call` event
    /// (they have started); those started from now on do.
    pub fn set_trace(&mut self, function: Option<Value>) {
        self.set_hook(function, |t| &mut t.function);
    }

    /// `sys.call_tracing(func, args)`: `func(*args)` traced, even from inside a trace
    /// function, whose calls are not traced otherwise (`_PyEval_CallTracing`): how `pdb`'s
    /// `debug` command runs a debugger inside the debugger.
    pub fn call_tracing(&mut self, func: &Value, args: &[Value]) -> PyResult<Value> {
        let busy = std::mem::replace(&mut self.tracing.busy, false);
        let result = self.call(func, args, &[]);
        self.tracing.busy = busy;
        result
    }

    /// `sys.setprofile(function)` (None: off), as [`Vm::set_trace`].
    pub fn set_profile(&mut self, function: Option<Value>) {
        self.set_hook(function, |t| &mut t.profile);
    }

    fn set_hook(&mut self, function: Option<Value>, hook: fn(&mut Tracing) -> &mut Option<Value>) {
        if function.is_some() {
            for frame in self.running_frame_addresses() {
                // SAFETY: as in `Vm::python_frames`: a running frame stays alive and in
                // place while code it runs runs; only its address and code are read.
                let code = unsafe { &(*frame).code }.clone();
                self.tracing.entry_or_new(frame as usize, &code).active = true;
            }
            self.narrow_window();
        }
        *hook(&mut self.tracing) = function;
        if !self.tracing_on() {
            self.tracing.frames.clear();
            self.tracing.lines.clear();
        }
    }

    /// `sys.gettrace()`.
    pub fn get_trace(&self) -> Value {
        self.tracing.function.clone().unwrap_or(Value::None)
    }

    /// `sys.getprofile()`.
    pub fn get_profile(&self) -> Value {
        self.tracing.profile.clone().unwrap_or(Value::None)
    }

    /// Before `frame` runs its instruction at `frame.ip - 1`: the `c_return` of the native
    /// call its last instruction made; its `call` event when it has just started or
    /// resumed; its `line` event when a line starts; its `return` event when the
    /// instruction returns or yields; the `c_call` of a native function it calls.
    #[cold]
    #[inline(never)]
    pub(super) fn trace_instruction(&mut self, frame: &mut Frame) -> PyResult<()> {
        if self.tracing.busy || !self.tracing_on() {
            return Ok(());
        }
        let at = frame.ip.saturating_sub(1);
        let address = key(frame);
        let (active, mut previous, c_call) = match self.tracing.entry(address, &frame.code) {
            // A frame's first instruction starts a new call, whatever ran here before.
            Some(e) if at > 0 => (e.active, e.previous, e.c_call.take()),
            _ => (false, None, None),
        };
        if let Some(callee) = c_call {
            self.call_profiler(frame, "c_return", callee)?;
        }
        if !active {
            // The `call` event shows the frame where it starts: the `def` line, or the yield
            // it resumes after.
            frame.ip = at;
            let called = self.trace_call(frame, at == 0);
            frame.ip = at + 1;
            called?;
            previous = None;
        }
        let lines = self.tracing.lines(&frame.code);
        let whole = frame.code.code().clone();
        let line = lines.line.get(at as usize).copied().flatten();
        let starts_line = lines.starts.get(at as usize).copied().unwrap_or(false);
        let new_line = match previous {
            None => starts_line,
            // A lineless instruction is on the line run last (CPython's propagated lines).
            Some(_) if line.is_none() => false,
            Some((_, previous_line)) if previous_line != line => starts_line,
            // On the same line: only a jump back to it is a new one.
            Some((previous_at, _)) => {
                at <= previous_at
                    && matches!(
                        whole.instructions.get(previous_at as usize),
                        Some(
                            Instr::Jump(_)
                                | Instr::PopJumpIfFalse(_)
                                | Instr::PopJumpIfTrue(_)
                                | Instr::PopJumpIfNone(_)
                                | Instr::PopJumpIfNotNone(_)
                        )
                    )
            }
        };
        let Some(entry) = self.tracing.entry(address, &frame.code) else {
            return Ok(());
        };
        let carried = line.or(previous.and_then(|(_, line)| line));
        entry.previous = Some((at, carried));
        let (lines, opcodes) = (entry.lines, entry.opcodes);
        if new_line && lines {
            self.call_local_tracer(frame, "line", Value::None)?;
        }
        if opcodes {
            self.call_local_tracer(frame, "opcode", Value::None)?;
        }
        let instr = whole.instructions.get(at as usize).copied();
        let top = || frame.stack.last().cloned().unwrap_or(Value::None);
        let ending = match instr {
            Some(Instr::ReturnValue) => Ending::Return(top()),
            Some(Instr::ReturnConst(i)) => Ending::Return(
                (frame.code.running())
                    .and_then(|body| body.consts.get(i as usize).cloned())
                    .unwrap_or(Value::None),
            ),
            Some(Instr::YieldValue(_)) => Ending::Yield(top()),
            _ => Ending::No,
        };
        match ending {
            Ending::No => self.profile_native_call(frame, instr),
            Ending::Return(v) => {
                let traced = self.trace_return(frame, v);
                self.forget_frame(frame);
                traced
            }
            Ending::Yield(v) => {
                let traced = self.trace_return(frame, v);
                if let Some(e) = self.tracing.entry(address, &frame.code) {
                    e.active = false;
                }
                traced
            }
        }
    }

    /// The `return` event of `frame`, returning or yielding `value`: to its `f_trace`, then
    /// to the profile function.
    fn trace_return(&mut self, frame: &mut Frame, value: Value) -> PyResult<()> {
        self.call_local_tracer(frame, "return", value.clone())?;
        self.call_profiler(frame, "return", value)
    }

    /// The `c_call` event of the call `instr` makes, when it calls a native function (a
    /// `builtin_function_or_method`, or a built-in method with its `self`), as CPython's
    /// profiling sees C functions; its `c_return` comes before the frame's next
    /// instruction, its `c_exception` as the error unwinds.
    fn profile_native_call(&mut self, frame: &mut Frame, instr: Option<Instr>) -> PyResult<()> {
        if self.tracing.profile.is_none() {
            return Ok(());
        }
        let len = frame.stack.len();
        let (callable_at, first_arg) = match instr {
            Some(Instr::Call(n)) => (len.checked_sub(n as usize + 2), None),
            Some(Instr::CallKw(n)) => (len.checked_sub(n as usize + 3), None),
            Some(Instr::CallFunctionEx(flags)) => {
                let at = len.checked_sub(3 + (flags & 1) as usize);
                let first = match at.and_then(|at| frame.stack.get(at + 2)) {
                    Some(Value::Tuple(t)) => t.items.first().cloned(),
                    _ => None,
                };
                (at, Some(first))
            }
            _ => return Ok(()),
        };
        let Some(at) = callable_at else {
            return Ok(());
        };
        let callable = frame.stack[at].clone();
        let Value::Object(o) = &callable else {
            return Ok(());
        };
        let callee = match &o.kind {
            ObjectKind::Native(n) if n.is_method => {
                // Its self: the call's self, else its first argument (CALL_KW's names last).
                let this = match first_arg {
                    Some(first) => first,
                    None => {
                        let args_end = len - matches!(instr, Some(Instr::CallKw(_))) as usize;
                        let self_and_args = frame.stack.get(at + 1..args_end).unwrap_or(&[]);
                        self_and_args.iter().find(|v| !v.is_null()).cloned()
                    }
                };
                match this {
                    Some(this) => self.bound_method(callable.clone(), this),
                    None => return Ok(()),
                }
            }
            ObjectKind::Native(_) => callable.clone(),
            ObjectKind::BoundMethod {
                func: Value::Object(f),
                ..
            } if matches!(f.kind, ObjectKind::Native(_)) => callable.clone(),
            _ => return Ok(()),
        };
        self.call_profiler(frame, "c_call", callee.clone())?;
        if let Some(e) = self.tracing.entry(key(frame), &frame.code) {
            e.c_call = Some(callee);
        }
        Ok(())
    }

    /// The `call` event of `frame`, starting (`fresh`) or resuming: to the global trace
    /// function, whose result becomes its `f_trace` if not None; then to the profile
    /// function.
    fn trace_call(&mut self, frame: &mut Frame, fresh: bool) -> PyResult<()> {
        let address = key(frame);
        let entry = self.tracing.entry_or_new(address, &frame.code);
        if fresh {
            *entry = FrameTrace::new(&frame.code);
        }
        entry.previous = None;
        if let Some(global) = self.tracing.function.clone() {
            self.call_tracer(frame, &global, "call", Value::None)?;
        }
        self.tracing.entry_or_new(address, &frame.code).active = true;
        self.call_profiler(frame, "call", Value::None)
    }

    /// An exception (`throw`) is thrown into the suspended generator frame `base`
    /// (`throw()`, `close()`), `callees` its inline frames: its `call` event, before the
    /// exception's; an error of the trace function is thrown instead.
    #[cold]
    #[inline(never)]
    pub(super) fn trace_thrown_in(
        &mut self,
        base: &mut Frame,
        callees: &InlineFrames,
        throw: &mut Option<Exc>,
    ) {
        if self.tracing.busy {
            return;
        }
        if let Some(e) = self.tracing.entry(key(base), &base.code)
            && e.active
        {
            return;
        }
        self.publish_frames(base, callees);
        if let Err(e) = self.trace_call(base, false) {
            *throw = Some(e);
        }
        self.frame_chain.pop();
    }

    /// An exception raised in `frame` or passing through it, its traceback entry just
    /// added: the `c_exception` event of the native call that raised it, if one did, and
    /// the `exception` event, while tracing or profiling. `exc` becomes the exception the trace
    /// function raised, if it did.
    pub(super) fn trace_exception(&mut self, frame: &mut Frame, exc: &mut Exc) {
        if self.tracing_on() && !self.tracing.busy && self.abort.is_none() {
            // A native call's failure, to the profile function first.
            let c_call =
                (self.tracing.entry(key(frame), &frame.code)).and_then(|e| e.c_call.take());
            if let Some(callee) = c_call
                && let Err(e) = self.call_profiler(frame, "c_exception", callee)
            {
                *exc = e;
                return;
            }
            let ty = Value::Type(self.type_of(&Value::Object(exc.clone())).clone());
            let tb = self.traceback_of(exc);
            let arg = Value::tuple(vec![ty, Value::Object(exc.clone()), tb]);
            if let Err(e) = self.call_local_tracer(frame, "exception", arg) {
                *exc = e;
            }
        }
    }

    /// `frame` left by an exception no handler of it catches: its `return` event, with
    /// None, while tracing.
    pub(super) fn trace_unwound(&mut self, frame: &mut Frame) {
        if !self.tracing_on() || self.tracing.busy || self.abort.is_some() {
            return;
        }
        // (An error of the trace function here is lost: the frame is leaving with one.)
        let _ = self.trace_return(frame, Value::None);
        self.forget_frame(frame);
    }

    /// What a generator's frame gave back to `frame`, its caller, which goes on `after`:
    /// when it returned to a `yield from`/`await` (or a value to a `for` loop), the
    /// `StopIteration` event of CPython's `END_SEND` (`FOR_ITER`), at the await's (the
    /// loop's) line.
    #[cold]
    #[inline(never)]
    pub(super) fn trace_generator_end(
        &mut self,
        frame: &mut Frame,
        result: &FrameResult,
        after: AfterGenerator,
    ) -> PyResult<()> {
        match (result, after) {
            (FrameResult::Returned(v), AfterGenerator::Send(_)) => {
                self.trace_stop_iteration(frame, v)
            }
            // A `for` loop's generator raises StopIteration only for a value (CPython's
            // `gen_iternext`): a plain return ends the loop without one.
            (FrameResult::Returned(v), AfterGenerator::ForIter(_)) if !v.is_none() => {
                self.trace_stop_iteration(frame, v)
            }
            _ => Ok(()),
        }
    }

    /// The next item of the iterator on top of `frame`'s stack for its `for` loop
    /// ([`Vm::next_uncharged`]); while tracing, [`Vm::traced_next`].
    #[inline(always)]
    pub(super) fn next_for_loop(&mut self, frame: &mut Frame) -> PyResult<Option<Value>> {
        match self.tracing_on() {
            true => self.traced_next(frame),
            false => self.next_uncharged(frame.stack.last().unwrap_or(&Value::Null)),
        }
    }

    /// [`Vm::next_uncharged`] while tracing: an iterator of the program's that ends by
    /// raising StopIteration gives the loop that exception's event (CPython's `FOR_ITER`).
    #[cold]
    #[inline(never)]
    fn traced_next(&mut self, frame: &mut Frame) -> PyResult<Option<Value>> {
        let it = frame.stack.last().cloned().unwrap_or(Value::None);
        if let Value::Object(o) = &it
            && matches!(o.kind, ObjectKind::Iter(_) | ObjectKind::Generator(_))
        {
            return self.next_uncharged(&it);
        }
        match self.call_next_method(&it) {
            Ok(v) => Ok(Some(v)),
            Err(e) if self.exc_matches(&e, &self.types.stop_iteration.clone()) => {
                let ty = Value::Type(self.types.stop_iteration.clone());
                let tb = self.traceback_of(&e);
                let arg = Value::tuple(vec![ty, Value::Object(e), tb]);
                self.call_local_tracer(frame, "exception", arg)?;
                Ok(None)
            }
            Err(e) => Err(e),
        }
    }

    /// `frame`'s `yield from`/`await` (or `for` loop) got `value` back, the receiver's
    /// `StopIteration`: its `exception` event, while tracing.
    pub(super) fn trace_stop_iteration(
        &mut self,
        frame: &mut Frame,
        value: &Value,
    ) -> PyResult<()> {
        if !self.tracing_on() || self.tracing.busy {
            return Ok(());
        }
        let exc = self.stop_iteration(value.clone());
        let ty = Value::Type(self.types.stop_iteration.clone());
        let arg = Value::tuple(vec![ty, Value::Object(exc), Value::None]);
        self.call_local_tracer(frame, "exception", arg)
    }

    /// Calls `frame`'s `f_trace` (if it has one) with `event` and `arg`.
    fn call_local_tracer(&mut self, frame: &mut Frame, event: &str, arg: Value) -> PyResult<()> {
        if self.tracing.function.is_none() {
            return Ok(());
        }
        let local = match self.tracing.entry(key(frame), &frame.code) {
            Some(e) => e.f_trace.clone(),
            None => return Ok(()),
        };
        if local.is_none() {
            return Ok(());
        }
        self.call_tracer(frame, &local, event, arg)
    }

    /// Calls the profile function (if one is set) with `frame`, `event` and `arg`; an error
    /// turns profiling off and is raised.
    fn call_profiler(&mut self, frame: &mut Frame, event: &str, arg: Value) -> PyResult<()> {
        let Some(profile) = self.tracing.profile.clone() else {
            return Ok(());
        };
        let object = self.traced_frame_object(frame);
        let event = Value::Str(self.intern(event));
        self.tracing.busy = true;
        let result = self.call(&profile, &[object, event, arg], &[]);
        self.tracing.busy = false;
        result
            .map(drop)
            .inspect_err(|_| self.tracing.profile = None)
    }

    /// Calls `tracer(frame, event, arg)` as CPython's `trace_trampoline`: a result other
    /// than None becomes the frame's `f_trace`; an error turns tracing off, clears the
    /// frame's `f_trace` and is raised.
    fn call_tracer(
        &mut self,
        frame: &mut Frame,
        tracer: &Value,
        event: &str,
        arg: Value,
    ) -> PyResult<()> {
        let object = self.traced_frame_object(frame);
        let event = Value::Str(self.intern(event));
        self.tracing.busy = true;
        let result = self.call(tracer, &[object, event, arg], &[]);
        self.tracing.busy = false;
        let address = key(frame);
        match result {
            Ok(v) if v.is_none() => Ok(()),
            Ok(v) => {
                if let Some(e) = self.tracing.entry(address, &frame.code) {
                    e.f_trace = v;
                }
                Ok(())
            }
            Err(e) => {
                self.tracing.function = None;
                if let Some(entry) = self.tracing.entry(address, &frame.code) {
                    entry.f_trace = Value::None;
                }
                Err(e)
            }
        }
    }

    /// The frame object of `frame`, the innermost running frame.
    fn traced_frame_object(&mut self, frame: &Frame) -> Value {
        debug_assert!(self.running_frame_addresses().first() == Some(&(frame as *const Frame)));
        self.kept_frame_object(0).unwrap_or(Value::None)
    }

    /// `frame` has finished: its object keeps what it last saw; its entry goes.
    fn forget_frame(&mut self, frame: &Frame) {
        if let Some(entry) = self.tracing.frames.remove(&key(frame))
            && let Some(object) = &entry.object
            && let Some(f) = object.native::<FrameObject>()
        {
            f.finish(self, entry.f_trace.clone());
        }
    }

    /// The frame object of the running frame `depth` calls out from the innermost one,
    /// kept in the table (with its callers', its `f_back`), so that it stays the same
    /// object while its frame runs.
    pub(super) fn kept_frame_object(&mut self, depth: usize) -> Option<Value> {
        super::frames::ready(self);
        let frames = self.running_frame_addresses();
        let outermost = frames.len();
        frames.get(depth)?;
        let mut back = Value::None;
        for (i, &f) in frames.iter().enumerate().skip(depth).rev() {
            let place = outermost - 1 - i;
            // SAFETY: as in `Vm::set_trace`.
            let frame = unsafe { &*f };
            let entry = self.tracing.entry_or_new(f as usize, &frame.code);
            let object = match &entry.object {
                Some(object) => object.clone(),
                None => {
                    let object = Value::object(super::object::Object::new(
                        self.types.frame.clone(),
                        super::object::ObjectKind::Other(Box::new(FrameObject::running(
                            frame,
                            place,
                            Value::None,
                        ))),
                    ));
                    self.tracing.entry_or_new(f as usize, &frame.code).object =
                        Some(object.clone());
                    object
                }
            };
            if let Some(o) = object.native::<FrameObject>() {
                o.moved_to(place, std::mem::replace(&mut back, Value::None));
            }
            back = object;
        }
        Some(back)
    }

    /// Whether frame objects are kept in the table (a trace function is set, or a frame has
    /// an `f_trace`): then `sys._getframe` gives the kept ones.
    pub(super) fn keeps_frame_objects(&self) -> bool {
        self.tracing_on() || !self.tracing.frames.is_empty()
    }
}
