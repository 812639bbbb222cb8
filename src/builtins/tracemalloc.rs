//! `_tracemalloc`, the native core of `tracemalloc` (`src/stdlib/tracemalloc.apy`), over
//! apy's own heap: while it traces, the global allocator (`common::memory`) asks it where
//! the program is before each block is made and tells it of each block made and freed, and
//! it keeps, per live block, its size and the traceback it was made at (file and line of
//! the running Python frames, innermost first, as `vm::frames::allocation_site` reads
//! them). The sizes are those of apy's Rust allocations, not CPython's objects: the same
//! program shows other numbers here than on CPython, though the lines that hold the most
//! are the same ones. Off, it costs nothing: the allocator's fast path does not know it.
//! Mirrors the surface of `Modules/_tracemalloc.c` and `Python/tracemalloc.c`.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;

use crate::common::memory::{self, Tracer};
use crate::vm::args::{check_arity, check_kwargs};
use crate::vm::frames::allocation_site;
use crate::vm::object::KwArgs;
use crate::vm::value::Value;
use crate::vm::{PyResult, Vm};

/// CPython's bound on a traceback's frames (`MAX_NFRAME`).
const MAX_NFRAME: i64 = 65535;

/// What the tracer knows: interned file names and tracebacks, and the live blocks.
#[derive(Default)]
struct Traces {
    /// The frames to keep per traceback (`start(nframe)`).
    nframe: usize,
    file_ids: HashMap<Box<str>, u32>,
    files: Vec<Box<str>>,
    /// A traceback is its frames `(file, line)`, innermost first, then `(u32::MAX, total)`:
    /// how many frames there were before `nframe` cut them.
    traceback_ids: HashMap<Vec<(u32, u32)>, u32>,
    tracebacks: Vec<Vec<(u32, u32)>>,
    /// The traceback being read (kept, so that reading one allocates nothing new).
    scratch: Vec<(u32, u32)>,
    /// Address → (size, traceback) of each live block made while tracing.
    blocks: HashMap<usize, (usize, u32)>,
    current: usize,
    peak: usize,
}

thread_local! {
    /// True while this thread traces: the tracer's hooks look nowhere else before that.
    static TRACING: Cell<bool> = const { Cell::new(false) };
    static TRACES: RefCell<Traces> = RefCell::new(Traces::default());
}

static TRACER: Tracer = Tracer {
    locate,
    record,
    forget,
};

/// Runs `work` on the tables, if this thread traces and they are free (never re-entered:
/// the allocator calls one hook at a time, and module functions reach them through
/// [`memory::untraced`]).
fn with_traces<T>(work: impl FnOnce(&mut Traces) -> T) -> Option<T> {
    if !TRACING.with(Cell::get) {
        return None;
    }
    TRACES
        .try_with(|t| t.try_borrow_mut().ok().map(|mut t| work(&mut t)))
        .ok()
        .flatten()
}

impl Traces {
    fn file_id(&mut self, name: &str) -> u32 {
        if let Some(&id) = self.file_ids.get(name) {
            return id;
        }
        let id = self.files.len() as u32;
        self.files.push(name.into());
        self.file_ids.insert(name.into(), id);
        id
    }

    /// The traceback of the block about to be made: where the program is now.
    fn locate(&mut self) -> Option<u32> {
        let mut frames = std::mem::take(&mut self.scratch);
        frames.clear();
        let total = allocation_site(self.nframe, |file, line| {
            frames.push((self.file_id(file), line));
        })?;
        if total == 0 {
            frames.push((self.file_id("<unknown>"), 0));
        }
        frames.push((u32::MAX, total.max(1) as u32));
        let id = match self.traceback_ids.get(frames.as_slice()) {
            Some(&id) => id,
            None => {
                let id = self.tracebacks.len() as u32;
                self.tracebacks.push(frames.clone());
                self.traceback_ids.insert(frames.clone(), id);
                id
            }
        };
        self.scratch = frames;
        Some(id)
    }

    fn record(&mut self, address: usize, size: usize, site: u32) {
        if let Some((stale, _)) = self.blocks.insert(address, (size, site)) {
            self.current -= stale;
        }
        self.current += size;
        self.peak = self.peak.max(self.current);
    }

    fn forget(&mut self, address: usize) {
        if let Some((size, _)) = self.blocks.remove(&address) {
            self.current -= size;
        }
    }

    /// Forgets every block (`clear_traces`, `stop`), keeping the traceback limit.
    fn clear(&mut self) {
        *self = Traces {
            nframe: self.nframe,
            ..Traces::default()
        };
    }

    /// The bytes the tables take (`get_tracemalloc_memory`), roughly: their capacities.
    fn own_size(&self) -> usize {
        let entry = std::mem::size_of::<(usize, (usize, u32))>() + 1;
        let frames: usize = self.tracebacks.iter().map(|t| t.capacity() * 16).sum();
        let names: usize = self.files.iter().map(|f| f.len() * 2).sum();
        self.blocks.capacity() * entry + frames + names + std::mem::size_of::<Traces>()
    }
}

fn locate(_size: usize) -> Option<u32> {
    with_traces(Traces::locate).flatten()
}

fn record(address: usize, size: usize, site: u32) {
    with_traces(|t| t.record(address, size, site));
}

fn forget(address: usize) {
    with_traces(|t| t.forget(address));
}

/// Runs `work` on the tables from a module function: what it allocates or frees for them
/// is not traced. Answers `default` when not tracing.
fn tables<T>(default: T, work: impl FnOnce(&mut Traces) -> T) -> T {
    memory::untraced(|| with_traces(work)).unwrap_or(default)
}

fn no_arguments(vm: &Vm, name: &str, args: &[Value], kw: &KwArgs) -> PyResult<()> {
    check_arity(vm, name, args, 0, 0)?;
    check_kwargs(vm, name, kw, &[])
}

/// `start(nframe=1, /)`: traces from now on, keeping `nframe` frames per traceback (a
/// second `start` only changes that).
fn start(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    check_kwargs(vm, "_tracemalloc.start", kw, &[])?;
    check_arity(vm, "start", args, 0, 1)?;
    let nframe = match args.first() {
        Some(n) => vm.expect_index(n)?,
        None => 1,
    };
    if !(1..=MAX_NFRAME).contains(&nframe) {
        return Err(vm.value_error("the number of frames must be in range [1; 65535]"));
    }
    memory::untraced(|| {
        TRACES.with(|t| t.borrow_mut().nframe = nframe as usize);
    });
    if !TRACING.with(Cell::get) {
        TRACING.set(true);
        vm.locate_allocations(true);
        memory::set_tracer(Some(&TRACER));
    }
    Ok(Value::None)
}

/// `stop()`: no more tracing, and every trace forgotten.
fn stop(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    no_arguments(vm, "_tracemalloc.stop", args, kw)?;
    if TRACING.with(Cell::get) {
        memory::set_tracer(None);
        vm.locate_allocations(false);
        tables((), Traces::clear);
        TRACING.set(false);
    }
    Ok(Value::None)
}

fn is_tracing(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    no_arguments(vm, "_tracemalloc.is_tracing", args, kw)?;
    Ok(Value::Bool(TRACING.with(Cell::get)))
}

fn clear_traces(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    no_arguments(vm, "_tracemalloc.clear_traces", args, kw)?;
    tables((), Traces::clear);
    Ok(Value::None)
}

/// `get_traced_memory()`: `(current, peak)` bytes of the traced blocks.
fn get_traced_memory(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    no_arguments(vm, "_tracemalloc.get_traced_memory", args, kw)?;
    let (current, peak) = tables((0, 0), |t| (t.current, t.peak));
    Ok(Value::tuple(vec![
        Value::Int(current as i64),
        Value::Int(peak as i64),
    ]))
}

fn reset_peak(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    no_arguments(vm, "_tracemalloc.reset_peak", args, kw)?;
    tables((), |t| t.peak = t.current);
    Ok(Value::None)
}

fn get_tracemalloc_memory(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    no_arguments(vm, "_tracemalloc.get_tracemalloc_memory", args, kw)?;
    let size = tables(0, |t| t.own_size());
    Ok(Value::Int(size as i64))
}

fn get_traceback_limit(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    no_arguments(vm, "_tracemalloc.get_traceback_limit", args, kw)?;
    let limit = memory::untraced(|| TRACES.with(|t| t.borrow().nframe)).max(1);
    Ok(Value::Int(limit as i64))
}

/// A traceback as `_get_traces` gives it: a tuple of `(filename, lineno)`, innermost
/// first, and the number of frames before the limit cut them.
fn traceback_value(frames: &[(Rc<str>, u32)]) -> Value {
    Value::tuple(
        frames
            .iter()
            .map(|(file, line)| {
                Value::tuple(vec![Value::str(&**file), Value::Int(i64::from(*line))])
            })
            .collect(),
    )
}

/// The frames of traceback `id`, with file names copied out of the tables.
fn frames_of(t: &Traces, id: u32) -> (Vec<(Rc<str>, u32)>, u32) {
    let mut frames = Vec::new();
    let mut total = 0;
    for &(file, line) in &t.tracebacks[id as usize] {
        if file == u32::MAX {
            total = line;
        } else {
            frames.push((Rc::from(&*t.files[file as usize]), line));
        }
    }
    (frames, total)
}

/// `_get_traces()`: `[(domain, size, traceback, total_nframe), …]`, one per live block.
fn get_traces(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    no_arguments(vm, "_tracemalloc._get_traces", args, kw)?;
    let (blocks, tracebacks) = tables(Default::default(), |t| {
        let blocks: Vec<(usize, u32)> = t.blocks.values().copied().collect();
        let mut tracebacks = HashMap::new();
        for &(_, id) in &blocks {
            tracebacks.entry(id).or_insert_with(|| frames_of(t, id));
        }
        (blocks, tracebacks)
    });
    let mut values: HashMap<u32, (Value, Value)> = HashMap::new();
    let mut traces = Vec::with_capacity(blocks.len());
    for (size, id) in blocks {
        let (frames, total) = values.entry(id).or_insert_with(|| {
            let (frames, total) = &tracebacks[&id];
            (traceback_value(frames), Value::Int(i64::from(*total)))
        });
        traces.push(Value::tuple(vec![
            Value::Int(0),
            Value::Int(size as i64),
            frames.clone(),
            total.clone(),
        ]));
    }
    Ok(Value::list(traces))
}

/// Where the heap block of a reference-counted value starts: its `Rc`'s counts come
/// first, two words.
fn block_of(v: &Value) -> Option<usize> {
    match v {
        Value::BigInt(_)
        | Value::Str(_)
        | Value::Tuple(_)
        | Value::List(_)
        | Value::Dict(_)
        | Value::Set(_)
        | Value::Type(_)
        | Value::Function(_)
        | Value::Object(_) => Some(v.address() - 2 * std::mem::size_of::<usize>()),
        _ => None,
    }
}

/// `_get_object_traceback(obj)`: the traceback `obj`'s block was made at, or None.
fn get_object_traceback(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    check_kwargs(vm, "_tracemalloc._get_object_traceback", kw, &[])?;
    check_arity(vm, "_get_object_traceback", args, 1, 1)?;
    let Some(address) = block_of(&args[0]) else {
        return Ok(Value::None);
    };
    let frames = tables(None, |t| {
        let &(_, id) = t.blocks.get(&address)?;
        Some(frames_of(t, id).0)
    });
    Ok(frames.map_or(Value::None, |f| traceback_value(&f)))
}

pub fn module(vm: &mut Vm) -> Value {
    let attrs = vec![
        ("start", vm.native("start", start)),
        ("stop", vm.native("stop", stop)),
        ("is_tracing", vm.native("is_tracing", is_tracing)),
        ("clear_traces", vm.native("clear_traces", clear_traces)),
        (
            "get_traced_memory",
            vm.native("get_traced_memory", get_traced_memory),
        ),
        ("reset_peak", vm.native("reset_peak", reset_peak)),
        (
            "get_tracemalloc_memory",
            vm.native("get_tracemalloc_memory", get_tracemalloc_memory),
        ),
        (
            "get_traceback_limit",
            vm.native("get_traceback_limit", get_traceback_limit),
        ),
        ("_get_traces", vm.native("_get_traces", get_traces)),
        (
            "_get_object_traceback",
            vm.native("_get_object_traceback", get_object_traceback),
        ),
    ];
    vm.new_module("_tracemalloc", attrs)
}
