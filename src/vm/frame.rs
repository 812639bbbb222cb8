//! Frames on the heap: a frame owns its value stack, fast locals, cells and instruction
//! pointer, so a generator can keep one suspended (`Include/internal/pycore_frame.h`).
//! Also turns the compiler's [`Code`] into a runnable [`CodeObj`] (constants as values,
//! names interned). Nothing here executes instructions.

use std::cell::RefCell;
use std::rc::Rc;

use crate::compile::bytecode::{Code, Constant};

use super::Vm;
use super::object::{CodeObj, Function, GlobalSlot, Object, ObjectKind};
use super::value::{PyDict, Value};

/// How many spare value buffers the VM keeps for new frames.
const VEC_POOL_LIMIT: usize = 64;

pub struct Frame {
    pub code: Rc<CodeObj>,
    pub globals: Rc<PyDict>,
    /// Module and class bodies keep their names here (`LoadName`/`StoreName`).
    pub locals_dict: Option<Rc<PyDict>>,
    /// Fast locals; `Null` when unbound.
    pub locals: Vec<Value>,
    /// Cell objects: cellvars then freevars.
    pub cells: Vec<Value>,
    pub stack: Vec<Value>,
    /// The next instruction to run.
    pub ip: usize,
    /// Set by `Reraise` and bare `raise`: the error being unwound already has this frame's
    /// traceback entry.
    pub reraising: bool,
}

impl Frame {
    /// A frame for calling `func` with already-bound fast locals.
    #[inline]
    pub fn for_function(vm: &mut Vm, func: &Function, locals: Vec<Value>) -> Frame {
        let mut frame = Frame {
            stack: vm.take_vec(func.code.code.stack_size as usize),
            code: func.code.clone(),
            globals: func.globals.clone(),
            locals_dict: None,
            locals,
            cells: Vec::new(),
            ip: 0,
            reraising: false,
        };
        frame.make_cells(vm, func);
        frame
    }

    /// Pads the fast locals to the code's size and makes the cells: one per cell variable
    /// (holding its argument when it is one), then the function's closure.
    #[inline]
    fn make_cells(&mut self, vm: &Vm, func: &Function) {
        let code = &func.code;
        let nlocals = code.code.varnames.len();
        if self.locals.len() < nlocals {
            self.locals.resize(nlocals, Value::Null);
        }
        for arg in &code.code.cell2arg {
            let initial = match arg {
                Some(i) => self.locals.get(*i as usize).cloned().unwrap_or(Value::Null),
                None => Value::Null,
            };
            self.cells.push(vm.new_cell(initial));
        }
        if !func.closure.is_empty() {
            self.cells.extend(func.closure.iter().cloned());
        }
    }

    /// Drops what a finished frame holds, keeping its buffers: locals, cells, then the
    /// value stack, in CPython's order (`_PyFrame_ClearLocals`).
    fn clear(&mut self) {
        self.locals.clear();
        self.cells.clear();
        self.stack.clear();
    }

    /// A frame running a module body, with `globals` as its namespace.
    pub fn for_module(vm: &Vm, code: Rc<CodeObj>, globals: Rc<PyDict>) -> Frame {
        let cells = code
            .cellnames
            .iter()
            .map(|_| vm.new_cell(Value::Null))
            .collect();
        Frame {
            stack: Vec::with_capacity(code.code.stack_size as usize),
            locals: vec![Value::Null; code.code.varnames.len()],
            code,
            locals_dict: Some(globals.clone()),
            globals,
            cells,
            ip: 0,
            reraising: false,
        }
    }

    /// The line being executed (for tracebacks).
    pub fn line(&self) -> u32 {
        let at = self.ip.saturating_sub(1);
        self.code
            .code
            .locations
            .get(at)
            .map_or(self.code.code.first_line, |l| l.line)
    }
}

/// The frames of the inline calls made while one frame runs (`Vm::run_frame`): a call to
/// a plain Python function fills the next frame here instead of recursing in Rust.
/// `frames[..live]` are the running callees (the last one is executing); the frames after
/// them finished and keep their buffers for the next call. Starts empty: most runs (a
/// generator resumed for one step) make no inline call, so the VM's spare vector is only
/// taken at the first one.
#[derive(Default)]
pub struct InlineFrames {
    frames: Vec<Frame>,
    live: usize,
}

impl InlineFrames {
    /// Whether only the base frame is running.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.live == 0
    }

    /// The executing frame: the innermost callee, or `base` when there is none.
    #[inline]
    pub fn current<'a>(&'a mut self, base: &'a mut Frame) -> &'a mut Frame {
        match self.live.checked_sub(1) {
            Some(last) => &mut self.frames[last],
            None => base,
        }
    }

    /// Starts a call of `func` from the executing frame, whose stack ends with the
    /// callable, then self-or-NULL and the arguments from `args_start`: the arguments (self
    /// included) move into the callee's locals; the callable stays on the caller's stack
    /// until the call ends, as in CPython. The callee becomes the executing frame.
    pub fn push_call(&mut self, vm: &mut Vm, base: &mut Frame, func: &Function, args_start: usize) {
        let live = self.live;
        if self.frames.capacity() == 0 {
            self.frames = std::mem::take(&mut vm.spare_frames);
        }
        if live == self.frames.len() {
            let blank = Frame {
                stack: vm.take_vec(func.code.code.stack_size as usize),
                code: func.code.clone(),
                globals: func.globals.clone(),
                locals_dict: None,
                locals: vm.take_vec(func.code.code.varnames.len()),
                cells: Vec::new(),
                ip: 0,
                reraising: false,
            };
            self.frames.push(blank);
        }
        let (running, spare) = self.frames.split_at_mut(live);
        let caller = match running.last_mut() {
            Some(f) => f,
            None => base,
        };
        let Some(callee) = spare.first_mut() else {
            return;
        };
        callee.code = func.code.clone();
        callee.globals = func.globals.clone();
        callee.ip = 0;
        callee.reraising = false;
        // Popped and reversed: cheaper than `drain` for a handful of arguments.
        while caller.stack.len() > args_start {
            if let Some(arg) = caller.stack.pop() {
                callee.locals.push(arg);
            }
        }
        callee.locals.reverse();
        if caller.stack.last().is_some_and(Value::is_null) {
            caller.stack.pop();
        }
        callee.make_cells(vm, func);
        self.live += 1;
    }

    /// Ends the executing callee (after it returned or let an exception escape): its
    /// caller executes again, without the callable it kept during the call.
    pub fn pop_call(&mut self, vm: &mut Vm, base: &mut Frame) {
        let Some(last) = self.live.checked_sub(1) else {
            return;
        };
        self.frames[last].clear();
        self.live = last;
        vm.leave_recursion();
        self.current(base).stack.pop();
    }

    /// Gives the frame buffers back to the VM once the base frame stops.
    #[inline]
    pub fn finish(mut self, vm: &mut Vm) {
        if self.frames.capacity() == 0 {
            return;
        }
        for frame in self.frames.drain(..) {
            vm.recycle_frame(frame);
        }
        vm.spare_frames = self.frames;
    }
}

impl Vm {
    /// An empty value vector, reusing the buffer of a finished frame when there is one.
    #[inline]
    pub fn take_vec(&mut self, capacity: usize) -> Vec<Value> {
        match self.vec_pool.pop() {
            Some(v) => v,
            None => Vec::with_capacity(capacity.max(8)),
        }
    }

    /// Gives a finished frame's buffers back for the next call.
    #[inline]
    pub fn recycle_frame(&mut self, mut frame: Frame) {
        frame.clear();
        let Frame { stack, locals, .. } = frame;
        if self.vec_pool.len() < VEC_POOL_LIMIT {
            self.vec_pool.push(stack);
            self.vec_pool.push(locals);
        }
    }

    pub fn new_cell(&self, initial: Value) -> Value {
        Value::object(Object::new(
            self.types.cell.clone(),
            ObjectKind::Cell(RefCell::new(initial)),
        ))
    }

    /// Prepares a compiled code object (and, recursively, the code objects among its
    /// constants) to run.
    pub fn load_code(&mut self, code: &Rc<Code>) -> Rc<CodeObj> {
        let consts = code.constants.iter().map(|c| self.constant(c)).collect();
        let names = code.names.iter().map(|n| self.intern(n)).collect();
        let varnames = code.varnames.iter().map(|n| self.intern(n)).collect();
        let cellnames = code
            .cellvars
            .iter()
            .chain(code.freevars.iter())
            .map(|n| self.intern(n))
            .collect();
        Rc::new(CodeObj {
            global_cache: GlobalSlot::empty_cache(code.names.len()),
            code: code.clone(),
            consts,
            names,
            varnames,
            cellnames,
        })
    }

    fn constant(&mut self, c: &Constant) -> Value {
        match c {
            Constant::None => Value::None,
            Constant::Bool(b) => Value::Bool(*b),
            Constant::Ellipsis => Value::Ellipsis,
            Constant::Int(n) => Value::Int(*n),
            Constant::BigInt(b) => Value::from_bigint((**b).clone()),
            Constant::Float(f) => Value::Float(*f),
            // Constant strings are interned, as CPython does for identifier-like ones.
            Constant::Str(s) => Value::Str(self.intern(s)),
            Constant::Tuple(items) => {
                Value::tuple(items.iter().map(|c| self.constant(c)).collect())
            }
            Constant::Code(code) => {
                let loaded = self.load_code(code);
                Value::object(Object::new(
                    self.types.code.clone(),
                    ObjectKind::Code(loaded),
                ))
            }
        }
    }
}
