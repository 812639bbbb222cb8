//! Frames on the heap: a frame owns its value stack, fast locals, cells and instruction
//! pointer, so a generator can keep one suspended (`Include/internal/pycore_frame.h`).
//! Also turns the compiler's [`Code`] into a runnable [`CodeObj`] (constants as values,
//! names interned). Nothing here executes instructions.

use std::cell::RefCell;
use std::rc::Rc;

use crate::compile::bytecode::{Code, Constant};

use super::Vm;
use super::object::{CodeObj, Function, Object, ObjectKind};
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
    pub fn for_function(vm: &mut Vm, func: &Function, mut locals: Vec<Value>) -> Frame {
        let code = func.code.clone();
        let nlocals = code.code.varnames.len();
        if locals.len() < nlocals {
            locals.resize(nlocals, Value::Null);
        }
        let mut cells = Vec::with_capacity(code.cellnames.len());
        for arg in &code.code.cell2arg {
            let initial = match arg {
                Some(i) => locals.get(*i as usize).cloned().unwrap_or(Value::Null),
                None => Value::Null,
            };
            cells.push(vm.new_cell(initial));
        }
        cells.extend(func.closure.iter().cloned());
        Frame {
            stack: vm.take_vec(code.code.stack_size as usize),
            code,
            globals: func.globals.clone(),
            locals_dict: None,
            locals,
            cells,
            ip: 0,
            reraising: false,
        }
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
    pub fn recycle_frame(&mut self, frame: Frame) {
        let Frame {
            mut stack,
            mut locals,
            ..
        } = frame;
        stack.clear();
        locals.clear();
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
