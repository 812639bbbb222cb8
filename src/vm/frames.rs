//! What a program sees of the frames running it: `globals()`, `locals()`, `sys._getframe()`
//! and frame objects (`f_code`, `f_lineno`, `f_locals`, `f_globals`, `f_back`), a generator's
//! frame (`gi_frame`), and the code objects they show (`co_name`, `co_firstlineno`, …).
//! In: the frames the dispatch loop works on, which each `execute` publishes as it starts
//! and its caller withdraws when it returns (`Vm::frame_chain`): one push and one pop per run,
//! nothing per call. Out: values. A frame object is made only when asked for, as CPython's
//! `_PyFrame_GetFrameObject` makes one. While its frame runs, it reads `f_lineno` and
//! `f_locals` from it (found again by its place in the chain and its address); once the frame
//! has finished, it keeps what it last saw (`Objects/frameobject.c`, `Objects/codeobject.c`).

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use super::frame::{Frame, Generator, InlineFrames};
use super::object::{CodeObj, Getter, Object, ObjectKind, Setter, TracebackEntry};
use super::value::{PyDict, Value};
use super::{FrameTrace, PyResult, Vm};
use crate::vm::dict::StrKeys;

/// A frame object: a running (or suspended) frame as a program sees it.
pub struct FrameObject {
    pub code: Rc<CodeObj>,
    /// The line and locals when last seen.
    line: Cell<u32>,
    locals: RefCell<Value>,
    pub globals: Rc<PyDict>,
    /// `f_back`: the calling frame's object, or None.
    back: RefCell<Value>,
    /// `f_trace` once the frame has finished (while it runs, tracing keeps it).
    trace: RefCell<Value>,
    /// Where the frame runs, while it does: its place among the running frames counted
    /// from the outermost, and its address (identity only).
    running: Cell<Option<(usize, usize)>>,
}

thread_local! {
    /// The frame chain of the VM whose allocations `tracemalloc` traces on this thread
    /// (null: none), read by [`allocation_site`] at each allocation.
    static TRACED_CHAIN: Cell<*const FrameChain> = const { Cell::new(std::ptr::null()) };
}

type FrameChain = Vec<(*const Frame, *const InlineFrames)>;

/// The running Python frames, innermost first, as their file and line, for `tracemalloc`:
/// `each` gets the first `limit` of them; the answer is how many there are in all. None
/// when no VM traces its allocations on this thread. Allocates nothing, and is called by
/// the allocator before it makes a block, so every frame it reads is whole.
pub fn allocation_site(limit: usize, mut each: impl FnMut(&str, u32)) -> Option<usize> {
    let chain = TRACED_CHAIN.with(Cell::get);
    if chain.is_null() {
        return None;
    }
    // SAFETY: `Vm::locate_allocations` stored the address of a live VM's chain, and the
    // VM takes it back before it goes away; the entries are as in `Vm::python_frames`.
    let chain = unsafe { &*chain };
    let mut count = 0;
    for &(base, callees) in chain.iter().rev() {
        // SAFETY: as in `Vm::python_frames`.
        let (base, callees) = unsafe { (&*base, &*callees) };
        for frame in callees.running().chain(std::iter::once(base)) {
            if count < limit {
                each(&frame.code.head.filename, frame.line());
            }
            count += 1;
        }
    }
    Some(count)
}

impl Vm {
    /// Publishes the frames a starting `execute` works on, for [`Vm::python_frames`];
    /// `run_frame_unwinding` withdraws them when `execute` returns.
    #[inline(always)]
    pub(super) fn publish_frames(&mut self, base: &Frame, callees: &InlineFrames) {
        self.frame_chain.push((base, callees));
    }

    /// Lets [`allocation_site`] read this VM's running frames (`tracemalloc.start`), or
    /// stops it (`stop`, and the VM going away).
    pub fn locate_allocations(&self, on: bool) {
        let mine: *const FrameChain = &self.frame_chain;
        TRACED_CHAIN.with(|chain| {
            if on {
                chain.set(mine);
            } else if chain.get() == mine {
                chain.set(std::ptr::null());
            }
        });
    }

    /// The Python frames running now, innermost first. A generator's frame is among them
    /// while it runs; one that a send passed straight through on its way down an `await`
    /// chain is not.
    fn python_frames(&self) -> Vec<&Frame> {
        let mut frames = Vec::new();
        for &(base, callees) in self.frame_chain.iter().rev() {
            // SAFETY: each entry was published by an `execute` that has not returned (its
            // caller pops the entry when it does), so the frames it points to are alive and
            // stay where they are: their owners are on the native stack below this call,
            // and an `execute` moves or grows its frames only while it runs, which it does
            // not do while a call it made is running. The program runs on this one thread,
            // and nothing here writes to them.
            let (base, callees) = unsafe { (&*base, &*callees) };
            frames.extend(callees.running());
            frames.push(base);
        }
        frames
    }

    /// The addresses of the Python frames running now, innermost first (the frames
    /// themselves are read through them where a `&mut Vm` is needed meanwhile).
    pub(super) fn running_frame_addresses(&self) -> Vec<*const Frame> {
        (self.python_frames().into_iter())
            .map(|f| f as *const Frame)
            .collect()
    }

    /// The running Python frames, innermost first, as (file, line, function name): what
    /// `faulthandler.dump_traceback` writes.
    pub fn stack_lines(&self) -> Vec<(String, u32, String)> {
        self.python_frames()
            .iter()
            .map(|f| {
                let head = &f.code.head;
                (head.filename.to_string(), f.line(), head.name.to_string())
            })
            .collect()
    }

    /// `globals()` and `locals()` of the innermost running Python frame (the caller of the
    /// native function now running), or None when no Python code runs.
    pub fn caller_scope(&self) -> Option<(Rc<PyDict>, Value)> {
        let frames = self.python_frames();
        let frame = frames.first()?;
        Some((frame.globals.clone(), locals_of(frame)))
    }

    /// The `__future__` features of the innermost Python frame's code, which source text
    /// compiled by `exec`, `eval` and `compile()` inherits (`PyEval_MergeCompilerFlags`).
    pub fn caller_future(&self) -> crate::compile::Inherited {
        let frames = self.python_frames();
        crate::compile::Inherited {
            annotations: frames
                .first()
                .is_some_and(|frame| frame.code.head.flags.future_annotations),
        }
    }

    /// How many positional parameters the innermost Python frame's code has (None at
    /// none): what a zero-argument `super()` outside a class tells apart by
    /// (`super_init_without_args`).
    pub fn caller_argcount(&self) -> Option<u32> {
        let frames = self.python_frames();
        frames.first().map(|frame| frame.code.head.argcount)
    }

    /// `sys._getframe(depth)`: the frame `depth` calls out from the innermost one, with
    /// its callers as `f_back`; None when the stack is not that deep.
    pub fn frame_object(&mut self, depth: usize) -> Option<Value> {
        ready(self);
        if self.keeps_frame_objects() {
            return self.kept_frame_object(depth);
        }
        let frames = self.python_frames();
        let outermost = frames.len();
        let snapshots: Vec<_> = (frames.get(depth..)?.iter().enumerate())
            .map(|(i, f)| {
                let frame = snapshot(f);
                let place = outermost - 1 - (depth + i);
                frame
                    .running
                    .set(Some((place, *f as *const Frame as usize)));
                frame
            })
            .collect();
        let class = self.types.frame.clone();
        let mut back = Value::None;
        for frame in snapshots.into_iter().rev() {
            *frame.back.borrow_mut() = back;
            back = Value::object(Object::new(
                class.clone(),
                ObjectKind::Other(Box::new(frame)),
            ));
        }
        Some(back)
    }

    /// `tb_frame` of a traceback whose outermost entry is `entry`: the frame object of the
    /// frame that entry was made in. While a frame running that code is on the stack (the
    /// one whose `except` block looks, most often), its live object, as `sys._getframe`
    /// gives it; otherwise one that shows the finished frame as the entry kept it, with
    /// `caller` (the frame of the entry outside it) as its `f_back`.
    pub fn traceback_frame(&mut self, entry: &TracebackEntry, caller: Option<Value>) -> Value {
        let Some(kept) = &entry.frame else {
            return Value::None;
        };
        if caller.is_none() {
            let running = self
                .python_frames()
                .iter()
                .position(|f| Rc::ptr_eq(&f.code, &kept.code));
            if let Some(live) = running.and_then(|depth| self.frame_object(depth)) {
                return live;
            }
        }
        ready(self);
        let frame = FrameObject {
            code: kept.code.clone(),
            line: Cell::new(entry.line),
            globals: kept.globals.clone(),
            // A function's fast locals are not kept (`TracebackEntry::frame`): Null, which
            // `f_locals` reports.
            locals: RefCell::new(kept.namespace.clone().map_or(Value::Null, Value::Dict)),
            back: RefCell::new(caller.unwrap_or(Value::None)),
            trace: RefCell::new(Value::None),
            running: Cell::new(None),
        };
        Value::object(Object::new(
            self.types.frame.clone(),
            ObjectKind::Other(Box::new(frame)),
        ))
    }

    /// `gi_frame`/`cr_frame`/`ag_frame`: the generator's frame, None once it has finished.
    /// While it runs, its frame is found among the running ones.
    pub fn generator_frame(&mut self, generator: &Generator) -> Value {
        ready(self);
        let state = generator.state.borrow();
        let frame = match &state.frame {
            Some(frame) => snapshot(frame),
            None if generator.running.get() => {
                let frames = self.python_frames();
                match frames.iter().find(|f| Rc::ptr_eq(&f.code, &generator.code)) {
                    Some(frame) => snapshot(frame),
                    None => return Value::None,
                }
            }
            None => return Value::None,
        };
        Value::object(Object::new(
            self.types.frame.clone(),
            ObjectKind::Other(Box::new(frame)),
        ))
    }
}

fn snapshot(frame: &Frame) -> FrameObject {
    FrameObject {
        code: frame.code.clone(),
        line: Cell::new(frame.line()),
        globals: frame.globals.clone(),
        locals: RefCell::new(locals_of(frame)),
        back: RefCell::new(Value::None),
        trace: RefCell::new(Value::None),
        running: Cell::new(None),
    }
}

impl FrameObject {
    /// The object of `frame`, running at `place` among the running frames (counted from
    /// the outermost), called from `back`'s frame.
    pub(super) fn running(frame: &Frame, place: usize, back: Value) -> FrameObject {
        let object = snapshot(frame);
        object.moved_to(place, back);
        object
            .running
            .set(Some((place, frame as *const Frame as usize)));
        object
    }

    /// Its frame runs at `place` now, called from `back`'s frame (a generator's frame
    /// resumes where it is sent to).
    pub(super) fn moved_to(&self, place: usize, back: Value) {
        if let Some((_, address)) = self.running.get() {
            self.running.set(Some((place, address)));
        }
        *self.back.borrow_mut() = back;
    }

    /// Its frame has finished: it keeps what it saw last, and its `f_trace`.
    pub(super) fn finish(&self, vm: &Vm, trace: Value) {
        self.refresh(vm);
        self.running.set(None);
        *self.trace.borrow_mut() = trace;
    }

    /// Reads the line and locals again from the frame, if it still runs.
    fn refresh(&self, vm: &Vm) {
        let Some((place, address)) = self.running.get() else {
            return;
        };
        let frames = vm.python_frames();
        let found = (frames.len().checked_sub(place + 1))
            .and_then(|i| frames.get(i))
            .filter(|f| {
                std::ptr::eq(**f, address as *const Frame) && Rc::ptr_eq(&f.code, &self.code)
            });
        match found {
            Some(frame) => {
                self.line.set(frame.line());
                let fresh = locals_of(frame);
                let old = self.locals.replace(fresh.clone());
                carry_extra_locals(&old, &fresh, &self.code);
            }
            None => self.running.set(None),
        }
    }
}

/// The keys a program stored in a function frame's `f_locals` that name none of its
/// variables (pdb's `__return__` and `__exception__`): CPython 3.13 keeps them with the
/// frame (`f_extra_locals`, `Objects/frameobject.c`), so every later `f_locals` shows them.
/// apy's `f_locals` of a function is a new dict at each look; the extras move into it.
fn carry_extra_locals(old: &Value, fresh: &Value, code: &CodeObj) {
    let (Value::Dict(old), Value::Dict(fresh)) = (old, fresh) else {
        return;
    };
    if Rc::ptr_eq(old, fresh) {
        return;
    }
    let is_variable = |key: &str| {
        (code.varnames.iter())
            .chain(&code.cellnames)
            .any(|name| name.as_str() == key)
    };
    let extras: Vec<_> = (old.table.borrow().iter())
        .filter_map(|entry| match &entry.key {
            Value::Str(key) if !is_variable(key.as_str()) => {
                Some((key.clone(), entry.value.clone()))
            }
            _ => None,
        })
        .collect();
    let mut table = fresh.table.borrow_mut();
    for (key, value) in extras {
        table.set_str(key, value);
    }
}

/// A frame's locals as `locals()` gives them (PEP 667): a module's or class body's
/// namespace itself; for a function, a new dict of its bound fast locals, then the values
/// of its cell and free variables.
pub fn locals_of(frame: &Frame) -> Value {
    if let Some(namespace) = &frame.locals_dict {
        return Value::Dict(namespace.clone());
    }
    let mut table = super::value::DictTable::new();
    for (name, value) in frame.code.varnames.iter().zip(frame.locals()) {
        if !value.is_null() {
            table.set_str(name.clone(), value.clone());
        }
    }
    for (name, cell) in frame.code.cellnames.iter().zip(frame.cells()) {
        if let Value::Object(cell) = cell
            && let ObjectKind::Cell(content) = &cell.kind
            && !content.borrow().is_null()
        {
            table.set_str(name.clone(), content.borrow().clone());
        }
    }
    Value::dict(table)
}

/// What tracing keeps of the running frame `v` shows, if it has an entry.
fn traced<'a>(vm: &'a mut Vm, v: &Value) -> PyResult<Option<&'a mut FrameTrace>> {
    let frame = this_frame(vm, v)?;
    frame.refresh(vm);
    let (running, code) = (frame.running.get(), frame.code.clone());
    Ok(running.and_then(|(_, address)| vm.tracing.entry(address, &code)))
}

/// What tracing keeps of the running frame `v` shows, made if there is none (this object
/// becomes the frame's kept one); None when the frame has finished.
fn traced_or_new<'a>(vm: &'a mut Vm, v: &Value) -> PyResult<Option<&'a mut FrameTrace>> {
    let frame = this_frame(vm, v)?;
    frame.refresh(vm);
    let (running, code) = (frame.running.get(), frame.code.clone());
    let Some((_, address)) = running else {
        return Ok(None);
    };
    let entry = vm.tracing.entry_or_new(address, &code);
    // The frame runs: it has started, and gets no `call` event.
    entry.active = true;
    entry.object.get_or_insert_with(|| v.clone());
    Ok(Some(entry))
}

/// Sets `f_trace_lines` or `f_trace_opcodes` (`flag`) of the running frame `v` shows to
/// `on`, which must be a bool.
fn set_trace_flag(
    vm: &mut Vm,
    v: &Value,
    on: &Value,
    flag: fn(&mut FrameTrace) -> &mut bool,
) -> PyResult<()> {
    let Value::Bool(on) = *on else {
        return Err(vm.type_error("attribute value type must be bool"));
    };
    if let Some(e) = traced_or_new(vm, v)? {
        *flag(e) = on;
    }
    Ok(())
}

fn this_frame<'a>(vm: &Vm, v: &'a Value) -> PyResult<&'a FrameObject> {
    v.native::<FrameObject>()
        .ok_or_else(|| vm.type_error("descriptor requires a 'frame' object"))
}

/// The code object value of `code`.
pub fn code_value(vm: &mut Vm, code: &Rc<CodeObj>) -> Value {
    if let Some(shown) = code.shown.borrow().upgrade() {
        return Value::Object(shown);
    }
    ready(vm);
    let shown = Rc::new(Object::new(
        vm.types.code.clone(),
        ObjectKind::Code(code.clone()),
    ));
    *code.shown.borrow_mut() = Rc::downgrade(&shown);
    Value::Object(shown)
}

fn this_code<'a>(vm: &Vm, v: &'a Value) -> PyResult<&'a Rc<CodeObj>> {
    match v {
        Value::Object(o) => match &o.kind {
            ObjectKind::Code(code) => Ok(code),
            _ => Err(vm.type_error("descriptor requires a 'code' object")),
        },
        _ => Err(vm.type_error("descriptor requires a 'code' object")),
    }
}

/// `co_flags` as CPython numbers them (`Include/cpython/code.h`).
fn code_flags(code: &CodeObj) -> i64 {
    let f = code.head.flags;
    let bits = [
        (f.optimized, 0x1 | 0x2),
        (f.varargs, 0x4),
        (f.varkeywords, 0x8),
        (code.head.qualname.contains("<locals>"), 0x10),
        (f.generator, 0x20),
        (f.coroutine, 0x80),
        (f.iterable_coroutine, 0x100),
        (f.async_generator, 0x200),
        (f.future_annotations, 0x100_0000),
    ];
    bits.iter()
        .filter(|(on, _)| *on)
        .fold(0, |flags, (_, bit)| flags | bit)
}

fn names_tuple(names: &[Rc<str>]) -> Value {
    Value::tuple(names.iter().map(|n| Value::str(&**n)).collect())
}

/// Gives the frame and code types their attributes the first time a frame or code object
/// is made, so that a program that never looks at one does not pay for them at start-up.
pub(super) fn ready(vm: &mut Vm) {
    if vm.types.frame.dict.borrow().is_empty() {
        install_attributes(vm);
    }
}

/// A function's `__code__` and `__globals__` (the frame and code types get theirs when
/// first needed: [`ready`]).
pub(super) fn init(vm: &mut Vm) {
    let function = vm.types.function.clone();
    vm.add_getset(
        &function,
        "__code__",
        |vm, v| match v {
            Value::Function(f) => Ok(code_value(vm, &f.code)),
            _ => Err(vm.type_error("descriptor requires a 'function' object")),
        },
        None,
    );
    vm.add_getset(
        &function,
        "__globals__",
        |vm, v| match v {
            Value::Function(f) => Ok(Value::Dict(f.globals.clone())),
            _ => Err(vm.type_error("descriptor requires a 'function' object")),
        },
        None,
    );
}

/// The attributes of frame and code objects.
fn install_attributes(vm: &mut Vm) {
    let frame = vm.types.frame.clone();
    let frame_attrs: [(&'static str, Getter); 5] = [
        ("f_code", |vm, v| {
            Ok(code_value(vm, &this_frame(vm, v)?.code))
        }),
        ("f_lineno", |vm, v| {
            let frame = this_frame(vm, v)?;
            frame.refresh(vm);
            Ok(Value::Int(frame.line.get().into()))
        }),
        ("f_locals", |vm, v| {
            let frame = this_frame(vm, v)?;
            frame.refresh(vm);
            match &*frame.locals.borrow() {
                Value::Null => Err(vm.new_exc(
                    &vm.types.attribute_error.clone(),
                    "apy keeps no f_locals of a function's frame in a traceback once it has \
                     finished: they would often hold the exception itself, a reference cycle \
                     apy (with no cycle collector) would never free",
                )),
                locals => Ok(locals.clone()),
            }
        }),
        ("f_globals", |vm, v| {
            Ok(Value::Dict(this_frame(vm, v)?.globals.clone()))
        }),
        ("f_back", |vm, v| {
            Ok(this_frame(vm, v)?.back.borrow().clone())
        }),
    ];
    for (name, getter) in frame_attrs {
        vm.add_getset(&frame, name, getter, None);
    }
    vm.add_deletable_getset(
        &frame,
        "f_trace",
        |vm, v| match traced(vm, v)? {
            Some(e) => Ok(e.f_trace.clone()),
            None => Ok(this_frame(vm, v)?.trace.borrow().clone()),
        },
        |vm, v, new| {
            let new = if new.is_null() { Value::None } else { new };
            if let Some(e) = traced_or_new(vm, v)? {
                e.f_trace = new;
            }
            Ok(())
        },
    );
    let flags: [(&'static str, Getter, Setter); 2] = [
        (
            "f_trace_lines",
            |vm, v| Ok(Value::Bool(traced(vm, v)?.is_none_or(|e| e.lines))),
            |vm, v, on| set_trace_flag(vm, v, &on, |e| &mut e.lines),
        ),
        (
            "f_trace_opcodes",
            |vm, v| Ok(Value::Bool(traced(vm, v)?.is_some_and(|e| e.opcodes))),
            |vm, v, on| set_trace_flag(vm, v, &on, |e| &mut e.opcodes),
        ),
    ];
    for (name, getter, setter) in flags {
        vm.add_getset(&frame, name, getter, Some(setter));
    }
    vm.add_method(&frame, "__repr__", |vm, args, _| {
        let f = this_frame(vm, &args[0])?;
        f.refresh(vm);
        Ok(Value::str(format!(
            "<frame at {:#x}, file '{}', line {}, code {}>",
            args[0].address(),
            f.code.head.filename,
            f.line.get(),
            f.code.head.name
        )))
    });
    let code = vm.types.code.clone();
    let code_attrs: [(&'static str, Getter); 12] = [
        ("co_name", |vm, v| {
            Ok(Value::str(&*this_code(vm, v)?.head.name))
        }),
        ("co_qualname", |vm, v| {
            Ok(Value::str(&*this_code(vm, v)?.head.qualname))
        }),
        ("co_filename", |vm, v| {
            Ok(Value::str(&*this_code(vm, v)?.head.filename))
        }),
        ("co_firstlineno", |vm, v| {
            Ok(Value::Int(this_code(vm, v)?.head.first_line.into()))
        }),
        ("co_argcount", |vm, v| {
            Ok(Value::Int(this_code(vm, v)?.head.argcount.into()))
        }),
        ("co_posonlyargcount", |vm, v| {
            Ok(Value::Int(this_code(vm, v)?.head.posonlyargcount.into()))
        }),
        ("co_kwonlyargcount", |vm, v| {
            Ok(Value::Int(this_code(vm, v)?.head.kwonlyargcount.into()))
        }),
        ("co_nlocals", |vm, v| {
            Ok(Value::Int(this_code(vm, v)?.head.varnames.len() as i64))
        }),
        ("co_varnames", |vm, v| {
            Ok(names_tuple(&this_code(vm, v)?.head.varnames))
        }),
        ("co_cellvars", |vm, v| {
            Ok(names_tuple(&this_code(vm, v)?.head.cellvars))
        }),
        ("co_freevars", |vm, v| {
            Ok(names_tuple(&this_code(vm, v)?.head.freevars))
        }),
        ("co_flags", |vm, v| {
            Ok(Value::Int(code_flags(this_code(vm, v)?)))
        }),
    ];
    for (name, getter) in code_attrs {
        vm.add_getset(&code, name, getter, None);
    }
    vm.add_getset(
        &code,
        "co_names",
        |vm, v| Ok(names_tuple(&this_code(vm, v)?.code().names)),
        None,
    );
}
