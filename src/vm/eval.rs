//! The evaluation loop: runs one [`Frame`] until it returns, yields or raises
//! (`Python/ceval.c`, `Python/bytecodes.c`). Each arm of `execute` is an instruction's plain
//! protocol; where a fast path short-cuts it, the arm first makes one call (or macro) into
//! `fast_calls` (calls, awaits, generator frames) or `fast_ops` (unboxed operators,
//! quickened runs).
//! Exceptions unwind through the code object's exception table; each frame an exception
//! passes through adds a traceback entry. Sandbox limits (`max_steps`, `time_limit`) cost
//! one countdown per instruction.

use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::sync::atomic::Ordering;

use crate::compile::bytecode::Instr;

use super::attr_cache::{class_attr_hit, instance_attr_hit, method_hit};
use super::call::{binds_positionally, generator_kind, plain_native};
use super::compare::compare_native;
use super::dict::StrKeys;
use super::fast_calls::{fast_call, inline_generator, is_unstarted_coroutine};
use super::fast_ops::{
    binary_in_place, binary_op_for_attr, binary_op_store_item, compare_in_place, forget_unboxed,
    pop_binary_in_place, pop_binary_op, push_or_store, quickened_run, runs_whole, store_list_item,
    subscript,
};
use super::frame::{AfterGenerator, Frame, InlineFrames, move_arguments};
use super::generator::FINALIZERS_PENDING;
use super::object::{Body, Function, ObjectKind, TracebackEntry, TracebackFrame};
use super::quicken::{self, nibbles};
use super::set_ops::update_table;
use super::stack::{finalize_point, load_bound_fast, load_fast, pop, pop_truth, store_fast, top};
use super::value::{PyDict, PyStr, Value, ValueCell};
use super::{Exc, PyResult, Vm};
use crate::vm::frame::FrameResult;
use crate::vm::frame::GenKind;

/// How `execute` stopped without an error.
enum Exit {
    Return(Value),
    Yield(Value),
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
        // An exception thrown in (`throw()`) is chained as `_PyErr_ChainStackItem` does.
        let mut thrown = throw.is_some();
        if thrown && self.tracing_on() {
            self.trace_thrown_in(base, &callees, &mut throw);
        }
        let result = loop {
            let exc = match throw.take() {
                Some(e) => e,
                None => {
                    let ran = self.execute(base, &mut callees);
                    // `execute` published its frames as it started ([`Vm::publish_frames`]).
                    self.frame_chain.pop();
                    match ran {
                        Ok(Exit::Return(v)) => break FrameResult::Returned(v),
                        Ok(Exit::Yield(v)) => break FrameResult::Yielded(v),
                        Err(e) => e,
                    }
                }
            };
            let thrown_in = std::mem::take(&mut thrown);
            // Published again while it unwinds, for what runs meanwhile (a trace function,
            // a `__del__`): the frame is still running.
            self.publish_frames(base, &callees);
            let unwound = self.unwind(callees.current(base), exc, thrown_in);
            self.frame_chain.pop();
            let Some(escaped) = unwound else {
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

    /// Adds `frame`'s traceback entry to `exc` and jumps to the handler covering the failed
    /// instruction; gives `exc` back when no handler in this frame catches it. A new
    /// exception's `__context__` is the one being handled; one `thrown_in` to a generator
    /// gets it only from the generator's own `except` block, not its caller's. A trace
    /// function sees it pass (`exception`), and the frame end (`return`) if it does.
    fn unwind(&mut self, frame: &mut Frame, mut exc: Exc, thrown_in: bool) -> Option<Exc> {
        let code = frame.code.clone();
        let lasti = (frame.ip as usize).saturating_sub(1);
        if frame.reraising {
            frame.reraising = false;
        } else if let Some(data) = self.entry_taker(&exc, &code) {
            let fresh = data.borrow().traceback.is_empty();
            let line = code.code().line_before(frame.ip as usize);
            data.borrow_mut().traceback.push(TracebackEntry {
                code: code.code().clone(),
                line,
                span: code.code().locations.get(lasti).map(|l| l.span),
                frame: Some(TracebackFrame {
                    code: code.clone(),
                    globals: frame.globals.clone(),
                    namespace: match (&frame.locals_dict, self.keep_traceback_locals) {
                        (None, true) => match super::frames::locals_of(frame) {
                            Value::Dict(locals) => Some(locals),
                            _ => None,
                        },
                        (namespace, _) => namespace.clone(),
                    },
                }),
            });
            let chain = match thrown_in {
                true => self.exc_info.last().is_some_and(|v| !v.is_none()),
                false => fresh,
            };
            if chain {
                self.set_context(&exc);
            }
            self.trace_exception(frame, &mut exc);
        }
        if self.abort.is_some() {
            return Some(exc);
        }
        let handler = code
            .code()
            .exception_table
            .iter()
            .find(|e| (e.start as usize) <= lasti && lasti < e.end as usize);
        let Some(handler) = handler else {
            // The exception leaves the frame: what it frees dies now, blamed on the failed
            // line (CPython's `exception_unwind`), so a coroutine among it warns "never
            // awaited" there, before the traceback, not later with no line (`<sys>:0`).
            frame.stack.truncate(code.head.nlocalsplus());
            finalize_point!(self, frame);
            self.trace_unwound(frame);
            return Some(exc);
        };
        let (depth, push_lasti, target) = (handler.depth, handler.push_lasti, handler.target);
        // (Within the code, as the instructions' own targets: `Body::instruction`.)
        let target = target.min(code.code().instructions.len() as u32);
        // The handler's depth counts from the stack's base, above the locals and cells.
        frame
            .stack
            .truncate(code.head.nlocalsplus() + depth as usize);
        if push_lasti {
            frame.stack.push(Value::Int(lasti as i64));
        }
        frame.stack.push(Value::Object(exc));
        frame.ip = target;
        // What the unwinding freed runs its finalizers as the handler starts, blamed on
        // its first line (an `except` clause), not on what is laid out before it.
        if FINALIZERS_PENDING.load(Ordering::Relaxed) {
            self.run_finalizers(Some((&code, target as usize + 2)));
        }
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
        self.publish_frames(base, callees);
        'frames: loop {
            let frame = callees.current(base);
            // The code's runnable parts (made as it first runs: its constants, names and
            // quickened instructions), which the hot instructions use; what else an
            // instruction needs of its code object it reads from the frame. SAFETY: the
            // frame's own reference keeps its code object, and so the body, alive while it
            // executes: nothing replaces a running frame's `code` (only a finished, spare
            // frame is readied for another function), and a frame ends only by leaving this
            // loop (`continue 'frames` or a return), after which `body` is not used. Read
            // through a pointer, not a clone, so switching frames (every call and return)
            // costs no reference-count traffic.
            let body: &Body = self.body(unsafe { &*Rc::as_ptr(&frame.code) });
            loop {
                let instr = body.instruction(frame.ip);
                frame.ip += 1;
                // Finalizers queued by what the last instruction dropped (a temporary's
                // `__del__`, a generator's close) run now, as CPython's run where the count
                // falls to zero: one check for every instruction that drops a value.
                if FINALIZERS_PENDING.load(Ordering::Relaxed) {
                    self.finalize_before(frame);
                }
                // Checked after the fetch, so a KeyboardInterrupt is raised by the instruction
                // about to run (inside its `try`), not by the one before a jump.
                self.countdown -= 1;
                if self.countdown == 0
                    && let Err(stop) = self.between_instructions(frame)
                {
                    return Err(stop);
                }
                match instr {
                    Instr::Nop => {}
                    Instr::EndOfCode => {
                        return Err(
                            self.runtime_error("bytecode ran off the end of the code object")
                        );
                    }
                    Instr::PopTop => {
                        pop!(frame).discard();
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
                    Instr::LoadConst(i) => frame.stack.push(body.constant(i as usize).clone()),
                    Instr::LoadFast(i) => load_bound_fast!(frame, i),
                    Instr::LoadFastCheck(i) => load_fast!(self, frame, i),
                    // The quickened runs (`vm::quicken`), through `quickened_run!` (`fast_ops`).
                    Instr::LoadFastLoadAttr(local, name)
                    | Instr::LoadFastCopyLoadAttr(local, name) => {
                        // The copy's run (`o.x op= v`) keeps the object under the value.
                        let keep = matches!(instr, Instr::LoadFastCopyLoadAttr(..));
                        quickened_run!(self, frame, [local as usize], 1 + keep as u64, |[obj]| {
                            let hit = instance_attr_hit(body, name as usize, obj)
                                .or_else(|| class_attr_hit(body, name as usize, obj));
                            let v = match hit {
                                Some(v) => v,
                                None => {
                                    let obj = obj.clone();
                                    self.load_attr_cached(body, name as usize, &obj)?
                                }
                            };
                            if keep {
                                frame.stack.push(obj.clone());
                            }
                            frame.stack.push(v);
                        });
                    }
                    Instr::LoadFastLoadMethod(local, name) => {
                        quickened_run!(self, frame, [local as usize], 1, |[obj]| {
                            let (m, this) = match method_hit(self, body, name as usize, obj) {
                                Some(m) => (m, obj.clone()),
                                None => match instance_attr_hit(body, name as usize, obj)
                                    .or_else(|| class_attr_hit(body, name as usize, obj))
                                {
                                    Some(v) => (v, Value::Null),
                                    None => {
                                        let obj = obj.clone();
                                        self.load_method_cached(body, name as usize, obj)?
                                    }
                                },
                            };
                            frame.stack.push(m);
                            frame.stack.push(this);
                        });
                    }
                    Instr::LoadFastConstBinaryOp(op, operands) => {
                        let (local, constant) = quicken::unpack(operands);
                        quickened_run!(self, frame, [local], 2, |[a]| {
                            let r = binary_in_place(self, op, a, body.constant(constant))?;
                            push_or_store!(self, frame, body, r);
                        });
                    }
                    Instr::LoadFastConstCompareOp(op, operands) => {
                        let (local, constant) = quicken::unpack(operands);
                        quickened_run!(self, frame, [local], 2, |[a]| {
                            compare_in_place!(self, frame, body, op, a, body.constant(constant));
                        });
                    }
                    Instr::LoadFastLoadFastBinaryOp(op, pair) => {
                        quickened_run!(self, frame, nibbles(pair), 1, |[a, b]| {
                            let r = binary_in_place(self, op, a, b)?;
                            push_or_store!(self, frame, body, r);
                        });
                    }
                    Instr::LoadFastLoadFastCompareOp(op, pair) => {
                        quickened_run!(self, frame, nibbles(pair), 1, |[a, b]| {
                            compare_in_place!(self, frame, body, op, a, b);
                        });
                    }
                    Instr::LoadFastLoadFastStoreAttr(pair, name) => {
                        quickened_run!(self, frame, nibbles(pair.into()), 1, |[v, obj]| {
                            let v = v.clone();
                            self.store_attr_cached(body, name as usize, obj, v)?;
                        });
                    }
                    Instr::LoadFastLoadFastSubscr(pair) => {
                        quickened_run!(self, frame, nibbles(pair), 1, |[container, key]| {
                            let v = subscript(self, container, key)?;
                            frame.stack.push(v);
                        });
                    }
                    Instr::LoadFastLoadFastSubscrKeep(pair) => {
                        quickened_run!(self, frame, nibbles(pair), 3, |[container, key]| {
                            let v = subscript(self, container, key)?;
                            let (container, key) = (container.clone(), key.clone());
                            frame.stack.extend([container, key, v]);
                        });
                    }
                    Instr::LoadFastPairBinaryOp(op, operands) => {
                        let (a, b) = quicken::unpack(operands);
                        quickened_run!(self, frame, [a, b], 2, |[a, b]| {
                            let r = binary_in_place(self, op, a, b)?;
                            push_or_store!(self, frame, body, r);
                        } else {
                            load_bound_fast!(frame, a);
                        });
                    }
                    Instr::LoadFastBinaryOp(op, local) => {
                        quickened_run!(self, frame, [local as usize], 1, |[b]| {
                            // Copied out: the local lives in the buffer the operand is
                            // popped from (a float or small int copies without a count).
                            let b = b.clone();
                            let r = pop_binary_in_place(self, &mut frame.stack, op, &b)?;
                            b.discard();
                            push_or_store!(self, frame, body, r);
                        });
                    }
                    Instr::LoadConstBinaryOp(op, constant) => {
                        let b = body.constant(constant as usize);
                        if runs_whole(self, frame, 1) {
                            let r = pop_binary_in_place(self, &mut frame.stack, op, b)?;
                            push_or_store!(self, frame, body, r);
                        } else {
                            frame.stack.push(b.clone());
                        }
                    }
                    Instr::LoadFastSubscr(local) => {
                        quickened_run!(self, frame, [local as usize], 1, |[key]| {
                            let key = key.clone();
                            let container = pop!(frame);
                            let v = subscript(self, &container, &key)?;
                            frame.stack.push(v);
                            container.release();
                            key.discard();
                        });
                    }
                    Instr::BinaryOpStoreFast(op, _) => {
                        let r = pop_binary_op(self, frame, op)?;
                        push_or_store!(self, frame, body, r);
                    }
                    Instr::BinaryOpStoreSubscr(op) => {
                        if !binary_op_store_item(self, frame, op) {
                            let r = pop_binary_op(self, frame, op)?;
                            frame.stack.push(r);
                        }
                    }
                    Instr::BinaryOpStoreAttr(op, name) => {
                        match binary_op_for_attr(self, frame, op) {
                            Some((obj, r)) => {
                                self.store_attr_cached(body, name as usize, &obj, r)?;
                            }
                            None => {
                                let r = pop_binary_op(self, frame, op)?;
                                frame.stack.push(r);
                            }
                        }
                    }
                    Instr::LoadFastLoadFast(pair) => {
                        for l in nibbles(pair) {
                            load_bound_fast!(frame, l);
                        }
                    }
                    Instr::StoreFastLoadFast(pair) => {
                        store_fast!(frame, pair >> 4);
                        load_bound_fast!(frame, pair & 15);
                    }
                    Instr::StoreFastStoreFast(pair) => {
                        store_fast!(frame, pair >> 4);
                        store_fast!(frame, pair & 15);
                    }
                    Instr::LoadFastAndClear(i) => {
                        let v = std::mem::replace(&mut frame.stack[i as usize], Value::Null);
                        frame.stack.push(v);
                    }
                    // The compiler's pseudo-instruction, a `StoreFast` once compiled.
                    Instr::StoreFast(i) | Instr::StoreFastMaybeNull(i) => {
                        store_fast!(frame, i)
                    }
                    Instr::DeleteFast(i) => {
                        if frame.stack[i as usize].is_null() {
                            return Err(self.unbound_local(&frame.code.varnames[i as usize]));
                        }
                        frame.stack[i as usize] = Value::Null;
                    }
                    Instr::LoadName(i) => {
                        let name = &body.names[i as usize];
                        let local = match &frame.locals_dict {
                            Some(d) => match self.namespace_mapping(d) {
                                None => d.table.borrow().get_str(name).cloned(),
                                Some(mapping) => self.mapping_load(&mapping, name)?,
                            },
                            None => None,
                        };
                        let v = match local {
                            Some(v) => v,
                            None => self.global_or_name_error(frame, name)?,
                        };
                        frame.stack.push(v);
                    }
                    Instr::StoreName(i) => {
                        let v = pop!(frame);
                        let name = body.names[i as usize].clone();
                        let dict = frame.locals_dict.as_ref().unwrap_or(&frame.globals);
                        if let Some(mapping) = self.namespace_mapping(dict) {
                            self.mapping_store(&mapping, name, v)?;
                            continue;
                        }
                        dict.table.borrow_mut().set_str(name, v);
                    }
                    Instr::DeleteName(i) => {
                        let name = &body.names[i as usize];
                        let dict = frame.locals_dict.as_ref().unwrap_or(&frame.globals);
                        if let Some(mapping) = self.namespace_mapping(dict) {
                            self.mapping_delete(&mapping, name)?;
                            continue;
                        }
                        let removed = dict.table.borrow_mut().remove_str(name);
                        if removed.is_none() {
                            return Err(self.name_error(name.as_str()));
                        }
                        drop(removed);
                    }
                    Instr::LoadGlobal(i) | Instr::LoadGlobalNull(i) => {
                        let v = match self.cached_global(body, &frame.globals, i as usize) {
                            Some(v) => v,
                            None => {
                                let name = &body.names[i as usize];
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
                            .set_str(body.names[i as usize].clone(), v);
                    }
                    Instr::DeleteGlobal(i) => {
                        let name = &body.names[i as usize];
                        let removed = frame.globals.table.borrow_mut().remove_str(name);
                        if removed.is_none() {
                            return Err(self.name_error(name.as_str()));
                        }
                        drop(removed);
                    }
                    Instr::LoadDeref(i) => {
                        let v = self.load_deref(frame, i as usize)?;
                        frame.stack.push(v);
                    }
                    Instr::StoreDeref(i) => {
                        let v = pop!(frame);
                        self.cell_set(frame.cell(i as usize), v);
                    }
                    Instr::DeleteDeref(i) => {
                        if self.cell_get(frame.cell(i as usize)).is_null() {
                            return Err(self.unbound_deref(&frame.code, i as usize));
                        }
                        self.cell_set(frame.cell(i as usize), Value::Null);
                    }
                    Instr::SetupAnnotations => {
                        let key = self.intern("__annotations__");
                        let dict = frame.locals_dict.as_ref().unwrap_or(&frame.globals);
                        if let Some(mapping) = self.namespace_mapping(dict) {
                            self.mapping_setup_annotations(&mapping, key)?;
                            continue;
                        }
                        if dict.table.borrow().get_str(&key).is_none() {
                            dict.table
                                .borrow_mut()
                                .set_str(key, Value::dict(Default::default()));
                        }
                    }
                    Instr::LoadLocals => {
                        let locals = match &frame.locals_dict {
                            Some(d) => self
                                .namespace_mapping(d)
                                .unwrap_or_else(|| Value::Dict(d.clone())),
                            None => return Err(self.runtime_error("no locals found")),
                        };
                        frame.stack.push(locals);
                    }
                    Instr::LoadClosure(i) => frame.stack.push(frame.cell(i as usize).clone()),
                    Instr::LoadFromDictOrDeref(i) => {
                        let mapping = pop!(frame);
                        let name = frame.code.cellnames[i as usize].clone();
                        let found = match &mapping {
                            Value::Dict(d) => d.table.borrow().get_str(&name).cloned(),
                            _ => self.mapping_load(&mapping, &name)?,
                        };
                        let v = match found {
                            Some(v) => v,
                            None => self.load_deref(frame, i as usize)?,
                        };
                        frame.stack.push(v);
                    }
                    Instr::LoadFromDictOrGlobals(i) => {
                        let mapping = pop!(frame);
                        let name = &body.names[i as usize];
                        let found = match &mapping {
                            Value::Dict(d) => d.table.borrow().get_str(name).cloned(),
                            _ => self.mapping_load(&mapping, name)?,
                        };
                        let v = match found {
                            Some(v) => v,
                            None => self.global_or_name_error(frame, name)?,
                        };
                        frame.stack.push(v);
                    }
                    Instr::LoadAttr(i) => {
                        let obj = pop!(frame);
                        let hit = instance_attr_hit(body, i as usize, &obj)
                            .or_else(|| class_attr_hit(body, i as usize, &obj));
                        let v = match hit {
                            Some(v) => v,
                            None => self.load_attr_cached(body, i as usize, &obj)?,
                        };
                        frame.stack.push(v);
                    }
                    Instr::LoadMethod(i) => {
                        let obj = pop!(frame);
                        let (m, this) = match method_hit(self, body, i as usize, &obj) {
                            Some(m) => (m, obj),
                            None => match instance_attr_hit(body, i as usize, &obj)
                                .or_else(|| class_attr_hit(body, i as usize, &obj))
                            {
                                Some(v) => (v, Value::Null),
                                None => self.load_method_cached(body, i as usize, obj)?,
                            },
                        };
                        frame.stack.push(m);
                        frame.stack.push(this);
                    }
                    Instr::StoreAttr(i) => {
                        let obj = pop!(frame);
                        let v = pop!(frame);
                        self.store_attr_cached(body, i as usize, &obj, v)?;
                    }
                    Instr::DeleteAttr(i) => {
                        let obj = pop!(frame);
                        self.del_attr(&obj, &body.names[i as usize])?;
                    }
                    Instr::LoadSuperAttr(i) | Instr::LoadSuperMethod(i) => {
                        let this = pop!(frame);
                        let class = pop!(frame);
                        let global_super = pop!(frame);
                        let name = &body.names[i as usize];
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
                        let v = subscript(self, &container, &key)?;
                        frame.stack.push(v);
                        // The container's count first, as CPython's BINARY_SUBSCR drops them.
                        container.release();
                        key.discard();
                    }
                    Instr::StoreSubscr => {
                        let key = pop!(frame);
                        let container = pop!(frame);
                        let v = pop!(frame);
                        match store_list_item(&container, &key, v) {
                            Ok(old) => {
                                old.discard();
                                key.discard();
                                container.release();
                            }
                            Err(v) => {
                                self.set_item(&container, &key, v)?;
                            }
                        }
                    }
                    Instr::DeleteSubscr => {
                        let key = pop!(frame);
                        let container = pop!(frame);
                        self.del_item(&container, &key)?;
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
                        // Fast path (`fast_ops`): two small ints or two floats.
                        let r = pop_binary_op(self, frame, op)?;
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
                        let namespace = frame.locals_dict.as_ref().unwrap_or(&frame.globals);
                        let r = self.intrinsic1(which, v, &frame.code, namespace)?;
                        frame.stack.push(r);
                    }
                    Instr::CallIntrinsic2(which) => {
                        let b = pop!(frame);
                        let a = pop!(frame);
                        let r = self.intrinsic2(which, a, b)?;
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
                        if let Value::List(l) = &frame.stack[frame.stack.len() - n as usize]
                            && let Err(e) = l.append(v)
                        {
                            return Err(self.op_error(e));
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
                        let (items, hint) = match self.collect_for_list(&iterable) {
                            Ok(collected) => collected,
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
                        if let Value::List(l) = target
                            && let Err(e) = l.extend(items, hint)
                        {
                            return Err(self.op_error(e));
                        }
                    }
                    Instr::SetUpdate(n) => {
                        let iterable = pop!(frame);
                        let target = frame.stack[frame.stack.len() - n as usize].clone();
                        if let Value::Set(s) = target {
                            // As `set.update`: a set is merged (`set_merge`), resizing first.
                            let mut table = s.table.borrow().clone();
                            update_table(self, &mut table, &iterable)?;
                            *self.table_mut(&s.table)? = table;
                        }
                    }
                    Instr::DictUpdate(n) | Instr::DictMerge(n) => {
                        self.op_dict_update(frame, n, matches!(instr, Instr::DictMerge(_)))?
                    }
                    Instr::UnpackSequence(n) => {
                        let seq = pop!(frame);
                        self.unpack_sequence(frame, seq, n as usize)?;
                    }
                    Instr::UnpackEx(arg) => self.unpack_ex(frame, arg)?,
                    Instr::GetLen
                    | Instr::MatchMapping
                    | Instr::MatchSequence
                    | Instr::MatchKeys
                    | Instr::MatchClass(_) => self.op_match(frame, instr)?,
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
                    Instr::Jump(target) | Instr::JumpNoInterrupt(target) => frame.ip = target,
                    Instr::PopJumpIfFalse(target) => {
                        let b = pop_truth!(self, frame);
                        if !b {
                            frame.ip = target;
                        }
                    }
                    Instr::PopJumpIfTrue(target) => {
                        let b = pop_truth!(self, frame);
                        if b {
                            frame.ip = target;
                        }
                    }
                    Instr::PopJumpIfNone(target) | Instr::PopJumpIfNotNone(target) => {
                        let v = pop!(frame);
                        let jumps = v.is_none() == matches!(instr, Instr::PopJumpIfNone(_));
                        v.release();
                        if jumps {
                            frame.ip = target;
                        }
                    }
                    Instr::GetIter => {
                        let v = pop!(frame);
                        let it = self.get_iter(&v)?;
                        frame.stack.push(it);
                    }
                    Instr::ForIter(target) => {
                        // Fast path (`fast_calls`): a generator's frame runs here.
                        if let Some(generator) = inline_generator(top!(frame), GenKind::Generator) {
                            let after = AfterGenerator::ForIter(target);
                            self.enter_generator(callees, base, generator, Value::None, after)?;
                            continue 'frames;
                        }
                        match self.next_for_loop(frame)? {
                            Some(v) => frame.stack.push(v),
                            None => {
                                frame.stack.pop();
                                // What the iterator held dies here, blamed on the `for` line
                                // (CPython's END_FOR), not on whatever runs next.
                                finalize_point!(self, frame);
                                frame.ip = target;
                            }
                        }
                    }
                    Instr::ReturnValue
                    | Instr::ReturnConst(_)
                    | Instr::LoadFastReturn(_)
                    | Instr::BinaryOpReturn(_) => {
                        let v = match instr {
                            Instr::ReturnConst(i) => body.constant(i as usize).clone(),
                            // The return runs (`vm::quicken`): their first instruction alone
                            // when the limits are due at the `RETURN_VALUE`.
                            Instr::LoadFastReturn(local) => {
                                if !runs_whole(self, frame, 1) {
                                    load_bound_fast!(frame, local);
                                    continue;
                                }
                                frame.local(local as usize).clone()
                            }
                            Instr::BinaryOpReturn(op) => {
                                let r = pop_binary_op(self, frame, op)?;
                                if !runs_whole(self, frame, 1) {
                                    frame.stack.push(r);
                                    continue;
                                }
                                r
                            }
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
                            let caller = callees.current(base);
                            // The callee's locals died: their `__del__`s run at the caller's
                            // next instruction, as CPython's run when the frame is freed.
                            caller.stack.push(v);
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
                    Instr::Call(n) | Instr::CallAwaited(n) => {
                        self.note_call_site(frame);
                        let n = n as usize;
                        let callable_at = frame.stack.len() - n - 2;
                        let awaited = matches!(instr, Instr::CallAwaited(_));
                        // Fast path (`fast_calls`): the callee's frame runs here.
                        fast_call!(
                            self, callees, base, frame, body, callable_at, n, awaited
                                => continue 'frames
                        );
                        // A built-in (`len(x)`, `d.get(k)`): called on the arguments in place.
                        let args_start =
                            callable_at + 2 - !frame.stack[callable_at + 1].is_null() as usize;
                        if let Some(native) =
                            plain_native(&frame.stack[callable_at], &frame.stack[args_start..])
                        {
                            self.note_caller(frame);
                            let result = native(self, &frame.stack[args_start..], &[])?;
                            frame.stack.truncate(callable_at);
                            frame.stack.push(result);
                            continue;
                        }
                        let result = self.call_from_stack(frame, callable_at, args_start)?;
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
                            Value::Object(o) => self.traceback_of(o),
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
                        // Fast path (`fast_calls`): a generator's or coroutine's frame runs here.
                        if let Some(generator) = inline_generator(top!(frame), GenKind::Coroutine) {
                            let after = AfterGenerator::Send(target);
                            self.enter_generator(callees, base, generator, v, after)?;
                            continue 'frames;
                        }
                        let receiver = top!(frame).clone();
                        match self.send_to(&receiver, v)? {
                            FrameResult::Yielded(y) => frame.stack.push(y),
                            FrameResult::Returned(r) => {
                                self.trace_stop_iteration(frame, &r)?;
                                frame.stack.push(r);
                                frame.ip = target;
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
                        let it = self.yield_from_iter(v, &frame.code)?;
                        frame.stack.push(it);
                    }
                    Instr::GetAwaitable(site) => {
                        // `await f()`: a coroutine not started yet is its own awaitable.
                        if !is_unstarted_coroutine(top!(frame)) {
                            // Fast path (`fast_calls`): `__await__`'s generator runs here.
                            if let Some(call) = self.awaited_await_method(frame, body)
                                && self.can_fuse(&call)
                            {
                                self.start_first_step(callees, base, call);
                                continue 'frames;
                            }
                            let v = pop!(frame);
                            let it = self.get_awaitable(v, site)?;
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
                        // Fast path (`fast_calls`): `__aenter__`'s coroutine runs here.
                        if let Some((exit, call)) = self.awaited_aenter(frame, body)
                            && self.can_fuse(&call)
                        {
                            self.enter_async_with_fused(callees, base, exit, call);
                            continue 'frames;
                        }
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
                        let fromlist = pop!(frame);
                        let level = match pop!(frame) {
                            Value::Int(level) => level,
                            _ => 0,
                        };
                        let name = body.names[i as usize].clone();
                        let m =
                            self.import_name(name.as_str(), &fromlist, level, &frame.globals)?;
                        frame.stack.push(m);
                    }
                    Instr::ImportFrom(i) => {
                        let module = top!(frame).clone();
                        let v = self.import_from(&module, &body.names[i as usize])?;
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
            self.function_str(&callable)
        } else {
            String::new()
        };
        if !self.is_mapping(&other) {
            return Err(self.type_error(if merge {
                format!(
                    "{func_name} argument after ** must be a mapping, not {}",
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
                        "{func_name} got multiple values for keyword argument '{}'",
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
                0x01 => *func.defaults.get_mut() = Some(self.collect_iterable(&value)?),
                0x02 => {
                    if let Value::Dict(d) = &value {
                        *func.kwdefaults.get_mut() = Some(d.clone());
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
            other => match self.collect_iterable(other) {
                Ok(items) => items,
                Err(e)
                    if self.exc_matches(&e, &self.types.type_error.clone())
                        && !self.is_iterable(other) =>
                {
                    let message = format!(
                        "{} argument after * must be an iterable, not {}",
                        self.function_str(&callable),
                        self.type_name(other)
                    );
                    return Err(self.type_error(message));
                }
                Err(e) => return Err(e),
            },
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

    /// `Call(n)` with the callable at `stack[base]`, self-or-NULL at `base + 1`, arguments
    /// from `args_start` (`self` among them when there is one). Python functions with a matching positional signature get their locals straight
    /// from the stack.
    #[inline]
    fn call_from_stack(
        &mut self,
        frame: &mut Frame,
        base: usize,
        args_start: usize,
    ) -> PyResult<Value> {
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
                let mut locals = self.take_vec(f.code.head.frame_size());
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
        let name = self.intern(&code.head.name);
        Ok(Value::Function(Rc::new(Function {
            code: code.clone(),
            globals: globals.clone(),
            name: RefCell::new(name),
            qualname: RefCell::new(code.head.qualname.clone()),
            renamed: Cell::new(false),
            defaults: RefCell::new(None),
            kwdefaults: RefCell::new(None),
            closure: Vec::new(),
            dict: Default::default(),
            type_params: ValueCell::new(Value::Null),
        })))
    }

    pub fn callable_name(&mut self, f: &Value) -> String {
        match f {
            Value::Function(func) => func.qualname.borrow().to_string(),
            Value::Type(t) => t.name().to_string(),
            Value::Object(o) => match &o.kind {
                ObjectKind::Native(n) => n.name.to_string(),
                ObjectKind::BoundMethod { func, .. } => {
                    let func = func.clone();
                    self.callable_name(&func)
                }
                _ => format!("{} object", o.class.name()),
            },
            other => format!("{} object", self.type_name(other)),
        }
    }

    /// CPython's `_PyObject_FunctionStr`, its name for the callee in errors about a call's
    /// `**` arguments: `module.qualname()`, or `qualname()` for a built-in (module
    /// `builtins`, or none, as a built-in type's method: `list.append()`).
    pub fn function_str(&mut self, f: &Value) -> String {
        let module = match f {
            Value::Function(_) | Value::Type(_) => {
                let name = self.intern("__module__");
                match self.get_attr_opt(f, &name) {
                    Ok(Some(Value::Str(m))) if m.as_str() != "builtins" => Some(m),
                    _ => None,
                }
            }
            Value::Object(o) => match &o.kind {
                ObjectKind::BoundMethod { func, .. } => {
                    let func = func.clone();
                    return self.function_str(&func);
                }
                ObjectKind::Native(n) => {
                    return match &n.owner {
                        Some(owner) => format!("{owner}.{}()", n.name),
                        None => format!("{}()", n.name),
                    };
                }
                _ => None,
            },
            _ => None,
        };
        let qualname = match f {
            Value::Type(t) if !t.builtin => t.qualname().to_string(),
            _ => self.callable_name(f),
        };
        match module {
            Some(module) => format!("{}.{qualname}()", module.as_str()),
            None => format!("{qualname}()"),
        }
    }

    pub fn is_mapping(&mut self, v: &Value) -> bool {
        match v {
            Value::Dict(_) => true,
            // A dict subclass (`Counter`, `OrderedDict`) is one, whatever it overrides.
            Value::Object(o) if matches!(o.builtin_base(), Some(Value::Dict(_))) => true,
            Value::Object(o) if !o.class.builtin => {
                let keys = self.intern("keys");
                super::types::lookup(&o.class, &keys).is_some()
                    && super::types::lookup(&o.class, &self.names.getitem).is_some()
            }
            _ => false,
        }
    }
}
