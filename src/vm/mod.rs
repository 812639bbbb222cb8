//! The virtual machine: code objects in, program behaviour (output, exceptions) out.
//!
//! `value`/`object` define what a Python value is, `types` the type objects and attribute
//! lookup, `ops` the arithmetic operators, `compare` comparisons, hashing and `in`,
//! `containers` subscripts, slices and the dict/set tables, `call` the call protocol, `eval`
//! the dispatch loop over heap `frame`s, with `fast_calls` and `fast_ops` the fast paths that
//! short-cut its plain protocol, and `scopes`, `unpack`, `context_managers`, `intrinsics` and
//! `exception_groups` what its instructions do beyond the stack; `generator` the
//! resumable-frame core, `exceptions`/`traceback` the error side.
//! What the operators need of the built-in types is here too: `format` (`format()`, `str %`),
//! `set_ops` (the set algebra), `complex` (complex values and their operators), `iter` (the iterator protocol, with `next()`), `range` (a
//! range's arithmetic on whole ints); `args` binds and checks the arguments of every native
//! function and method; `fatal` writes out the program's output when apy aborts.
//! Mirrors CPython's `Python/ceval.c` and `Objects/`. Never sees the AST or the parser.

pub mod args;
pub mod async_gen;
pub mod attr_cache;
mod attr_errors;
pub mod bytes;
pub mod call;
pub mod compare;
pub mod complex;
pub mod containers;
pub mod context_managers;
pub mod cpython_names;
pub mod dict;
pub mod eval;
pub mod exception_groups;
pub mod exceptions;
pub mod explain;
pub mod fast_calls;
pub mod fast_ops;
#[cfg(not(target_arch = "wasm32"))]
pub mod fatal;
pub mod format;
pub mod frame;
pub mod frames;
pub mod generator;
pub mod generics;
mod getattr_hooks;
pub mod import;
pub mod instance_values;
pub mod interrupt;
pub mod intrinsics;
pub mod iter;
pub mod loaders;
pub mod long_work;
pub mod mapping_proxy;
pub mod native_docs;
pub mod object;
pub mod ops;
pub mod os_errors;
pub mod patterns;
pub mod quicken;
pub mod range;
pub mod repr;
pub mod run;
pub mod sandbox;
pub mod scopes;
pub mod set_ops;
pub mod signals;
pub mod slots;
pub mod source_lines;
pub mod stack;
pub mod teardown;
pub mod thread_list;
pub mod threads;
pub mod trace;
pub mod traceback;
pub mod tracing;
pub mod trashcan;
pub mod type_attrs;
pub mod types;
pub mod unpack;
pub mod value;
pub mod warnings;
pub mod weakrefs;

use std::collections::HashMap;
use std::io::Write;
use std::rc::Rc;
use std::time::Duration;

use crate::common::clock::{ClockKind, Instant};
use crate::common::console;
use crate::compile::bytecode::Code;
use crate::syntax::diagnostics::Diagnostic;
use object::Object;
use value::{PyDict, PyStr, Value};

/// An exception in flight: always an instance of a BaseException subclass.
pub type Exc = Rc<Object>;
pub type PyResult<T> = Result<T, Exc>;

/// What the VM itself is configured by: its limits, `sys.argv` and its clock. The
/// embedder's own switches (`--trace`, `--explain`, asyncio's debug mode) are in
/// `interp::Config`.
#[derive(Clone, Debug, Default)]
pub struct Config {
    /// Stop the program after this many instructions.
    pub max_steps: Option<u64>,
    /// Stop the program after this much wall time.
    pub time_limit: Option<Duration>,
    /// `sys.argv`.
    pub argv: Vec<String>,
    /// `sys.path`: the folders `import` searches for modules, in order (`""` is the current
    /// directory).
    pub sys_path: Vec<String>,
    /// The clock timers and the event loop run on (`--clock real|virtual`).
    pub clock: ClockKind,
    /// `--sandbox`: files, sockets and processes are refused (`vm::sandbox`).
    pub sandbox: bool,
    /// `-u`, `PYTHONUNBUFFERED`: each write to standard output is written out at once.
    pub unbuffered: bool,
    /// `-m NAME`: the main code is the runner handing NAME to runpy's
    /// `_run_module_as_main`; its frame is left out of tracebacks, as CPython calls runpy
    /// from C.
    pub runs_module: bool,
}

/// Builds a native module on its first import (`sys`, `asyncio`, …). The embedder
/// registers one per name ([`Vm::register_module`]); the VM knows none of them itself.
pub type ModuleMaker = fn(&mut Vm) -> Value;

/// Compiles source text while the program runs (imported modules, the asyncio library's
/// `.apy` files, `exec`/`eval`/`compile()`): the file name shown in tracebacks, the text,
/// the mode and the `__future__` features in force from the start; a syntax error comes
/// back as its diagnostic. The embedder, which owns the parser and the compiler, provides
/// it ([`Vm::compile`]).
pub type CompileHook = fn(
    name: &str,
    text: &str,
    mode: crate::compile::Mode,
    inherited: crate::compile::Inherited,
) -> Result<Rc<Code>, Diagnostic>;

/// The highest recursion limit `sys.setrecursionlimit` accepts: deeper Python recursion
/// would exhaust the interpreter thread's native stack.
pub const MAX_RECURSION_LIMIT: usize = 20_000;

/// How deep native code may recurse (a repr of nested lists, `==` of nested tuples, nested
/// `map`s, a JSON document): CPython 3.13's `Py_C_RECURSION_LIMIT` (10,000), counted apart
/// from the recursion limit of Python calls, as CPython counts it since 3.12, less the two
/// levels a program never has there: the main module's frame, entered from C, holds one,
/// and the count fails on reaching the limit, not past it (so a list nested 9,997 deep has
/// a repr and one 9,998 deep has not; `json.loads` parses 9,998 brackets, not 9,999).
pub const NATIVE_RECURSION_LIMIT: usize = 9_998;

/// How often (in instructions) the time limit is checked.
const TIME_CHECK_INTERVAL: u64 = 1 << 14;

/// Why the VM stopped a program by itself (not a Python exception).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Abort {
    MaxSteps(u64),
    TimeLimit(Duration),
    /// Nothing can ever run again (an idle event loop under the virtual clock): the
    /// report, made by whoever found it.
    Deadlock(String),
}

impl std::fmt::Display for Abort {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Abort::MaxSteps(n) => write!(f, "apy: stopped after {n} instructions (--max-steps)"),
            Abort::TimeLimit(d) => {
                write!(
                    f,
                    "apy: stopped after {:.3} seconds (--time-limit)",
                    d.as_secs_f64()
                )
            }
            Abort::Deadlock(report) => f.write_str(report.trim_end()),
        }
    }
}

macro_rules! names {
    ($($field:ident = $text:literal),* $(,)?) => {
        /// Interned names the VM looks up often (dunders), so lookups never re-hash them.
        pub struct Names { $(pub $field: Rc<PyStr>,)* }
        impl Names {
            fn new(interner: &mut Interner) -> Names {
                Names { $($field: interner.intern($text),)* }
            }
        }
    };
}

names! {
    init = "__init__", new = "__new__", repr = "__repr__", str = "__str__",
    hash = "__hash__", eq = "__eq__", ne = "__ne__", lt = "__lt__", le = "__le__",
    gt = "__gt__", ge = "__ge__", len = "__len__", bool_ = "__bool__", iter = "__iter__",
    next = "__next__", getitem = "__getitem__", setitem = "__setitem__",
    delitem = "__delitem__", contains = "__contains__", call = "__call__",
    enter = "__enter__", exit = "__exit__", getattr = "__getattr__",
    getattribute = "__getattribute__", setattr = "__setattr__", delattr = "__delattr__",
    neg = "__neg__", pos = "__pos__", invert = "__invert__", abs = "__abs__",
    index = "__index__", int = "__int__", float = "__float__", format = "__format__",
    name = "__name__", qualname = "__qualname__", module = "__module__", doc = "__doc__",
    dict = "__dict__", class = "__class__", classcell = "__classcell__",
    main = "__main__", builtins = "__builtins__", await_ = "__await__",
    aiter = "__aiter__", anext = "__anext__", aenter = "__aenter__", aexit = "__aexit__",
    send = "send", throw = "throw", close = "close", args = "args", notes = "__notes__",
    reversed = "__reversed__", set_name = "__set_name__", init_subclass = "__init_subclass__",
    round = "__round__", missing = "__missing__", get = "__get__", set = "__set__",
    delete = "__delete__", del = "__del__",
}

/// The VM's interned strings: names in code, attribute names, identifiers. Hashed with
/// foldhash (hashbrown's own hasher, seeded per process), not SipHash: interning every name of
/// the library's code at `import asyncio` was a tenth of start-up with SipHash. The table
/// holds the strings themselves, found by their text ([`Interned`]): no second copy as key.
pub struct Interner {
    table: std::collections::HashSet<Interned, foldhash::fast::RandomState>,
}

impl Default for Interner {
    /// Sized for what a run with `import asyncio` interns (1,183 names for a hello-asyncio
    /// program), so that the table is not copied as it grows at start-up.
    fn default() -> Interner {
        Interner {
            table: std::collections::HashSet::with_capacity_and_hasher(1792, Default::default()),
        }
    }
}

/// An interned string, hashed and compared as its text (so the table is searched by `&str`).
struct Interned(Rc<PyStr>);

impl std::hash::Hash for Interned {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.0.as_str().hash(state);
    }
}

impl PartialEq for Interned {
    fn eq(&self, other: &Interned) -> bool {
        self.0.as_str() == other.0.as_str()
    }
}

impl Eq for Interned {}

impl std::borrow::Borrow<str> for Interned {
    fn borrow(&self) -> &str {
        self.0.as_str()
    }
}

impl Interner {
    pub fn intern(&mut self, text: &str) -> Rc<PyStr> {
        if let Some(s) = self.table.get(text) {
            return s.0.clone();
        }
        let s = Rc::new(PyStr::new(text));
        self.table.insert(Interned(s.clone()));
        s
    }
}

/// What installs a type's methods on its first use ([`Vm::lazy_methods`]).
pub type InstallMethods = fn(&mut Vm, &Rc<object::PyType>);

pub struct Vm {
    pub types: object::BuiltinTypes,
    pub names: Names,
    pub interner: Interner,
    /// The `builtins` module's namespace.
    pub builtins: Rc<PyDict>,
    /// Imported modules by name: the dict `sys.modules` is.
    pub modules: Rc<PyDict>,
    /// The folders `import` searches: the list `sys.path` is.
    pub sys_path: Value,
    /// The modules whose code is running because they are being imported, innermost last
    /// (a circular import's ImportError says "partially initialized module").
    pub importing: Vec<Rc<str>>,
    /// The file of the `__main__` module's code, once it runs: warnings that CPython's
    /// default filters show only in `__main__` (DeprecationWarning) check it.
    pub main_file: Option<Rc<str>>,
    /// The code of `-m`'s runner ([`Config::runs_module`]), whose frame tracebacks skip.
    pub module_runner: Option<Rc<Code>>,
    /// Whether a traceback keeps the locals of the function frames it passes through, so
    /// that `tb_frame.f_locals` has them after the frame ended (as CPython's frames keep
    /// them): off until a debugger asks (`bdb` imports: `_frames.keep_traceback_locals`),
    /// since they often hold the exception itself, a cycle apy never frees.
    pub keep_traceback_locals: bool,
    /// The class bodies running in a mapping their metaclass's `__prepare__` made (not a
    /// plain dict), innermost last: the placeholder dict each body's frame has as its
    /// `locals_dict`, and the mapping its names go to ([`Vm::namespace_mapping`]).
    pub class_namespaces: Vec<(Rc<PyDict>, Value)>,
    /// Source text by file name, for traceback lines.
    pub sources: HashMap<Rc<str>, Rc<str>>,
    /// Current depth of nested Python calls.
    pub depth: usize,
    /// Current depth of native recursion ([`Vm::nested`]).
    pub native_depth: usize,
    /// How deep native code may recurse: [`NATIVE_RECURSION_LIMIT`], less when the
    /// interpreter thread's stack is smaller (a browser's).
    pub max_native_depth: usize,
    pub recursion_limit: usize,
    /// The highest `recursion_limit` the interpreter thread's stack holds
    /// ([`MAX_RECURSION_LIMIT`], less under a memory ulimit).
    pub max_recursion_limit: usize,
    /// The handled-exception stack: one entry for the main program plus one per running
    /// generator (`_PyErr_StackItem` chain). `None` entries mean "nothing handled here".
    pub exc_info: Vec<Value>,
    pub config: Config,
    /// Instructions run before the current check window ([`Vm::check_limits`]).
    steps: u64,
    /// The length of the current check window, and the instructions left in it: `execute`
    /// counts down, and calls `check_limits` when it reaches 0 (one decrement and test
    /// per instruction). Never 0 between instructions.
    window: u64,
    countdown: u64,
    started: Instant,
    /// Set when a sandbox limit stops the program; unwinding then skips every handler.
    pub abort: Option<Abort>,
    /// Addresses of containers whose repr is being built (prints `[...]` on recursion).
    pub repr_stack: Vec<usize>,
    /// Spare value buffers for frames' stacks and locals (no allocation per call).
    pub vec_pool: Vec<Vec<value::Value>>,
    /// Finished generator frames, kept boxed for new generators (`Vm::boxed_frame`).
    pub frame_pool: Vec<Box<frame::Frame>>,
    /// Finished generator objects nothing else refers to, kept for new generators: a
    /// coroutine awaited to its end makes room for the next one without a free and a malloc
    /// (`Vm::recycle_generator`).
    pub generator_pool: Vec<Rc<Object>>,
    /// An empty vector with room for inline call frames (`frame::InlineFrames`), kept
    /// between runs so it is allocated once.
    pub spare_frames: frame::InlineFrames,
    /// Warnings already shown, by (file, line, message): each is printed once per place,
    /// as the `warnings` module's default action does (`__warningregistry__`).
    pub warning_registry: std::collections::HashSet<(Rc<str>, u32, String)>,
    /// The generators whose frames are running, innermost last (for reprs' line numbers).
    pub running_frames: Vec<frame::RunningFrame>,
    /// Where the native call now running was made from, for its warnings.
    pub caller: Option<frame::CallSite>,
    /// What a layer above does as the main module ends, its globals still alive (asyncio
    /// reports the tasks left pending and closes their coroutines, as CPython's collector
    /// does at exit before the modules' dicts are cleared).
    pub before_exit: Option<fn(&mut Vm)>,
    /// `atexit`'s functions, in the order registered; None where one was unregistered.
    pub exit_functions: Vec<Option<ExitFunction>>,
    /// `os.register_at_fork`'s functions.
    pub fork_hooks: ForkHooks,
    /// A library's own `Send` step for its native awaitables' iterators (asyncio's future
    /// iterator), tried before the `__next__`/`send` protocol; None when not one of them.
    pub native_send: fn(&mut Vm, &Value) -> Option<frame::FrameResult>,
    /// A library's own `await` of its native awaitables (asyncio's futures): the iterator
    /// their `__await__` would give, made directly; None when not one of them, or when its
    /// class overrides `__await__`.
    pub native_await: fn(&mut Vm, &Value) -> Option<Value>,
    /// `sys.set_asyncgen_hooks` (firstiter, finalizer).
    pub asyncgen_hooks: AsyncGenHooks,
    /// `sys.settrace`'s function and the frames it traces (`vm::tracing`).
    pub(crate) tracing: Tracing,
    /// The native modules `import` can make, by name (filled in by the embedder).
    pub native_modules: HashMap<&'static str, ModuleMaker>,
    /// The library modules written in apy that `import` can compile, by name: the file name
    /// their tracebacks show and their source (filled in by the embedder).
    pub library_modules: HashMap<&'static str, (&'static str, &'static str)>,
    /// How to compile source at run time (set by the embedder).
    pub compile: CompileHook,
    /// The frames of each `execute` now running, outermost first: its base frame and its
    /// inline callees (published for `vm::frames`).
    pub(crate) frame_chain: Vec<(*const frame::Frame, *const frame::InlineFrames)>,
    /// Installs the methods of `bytes` and `bytearray`, set by `builtins` and run once, on
    /// their first use ([`Vm::ready_bytes`]): most programs never use their hundred
    /// methods, and installing them made every start 7% slower.
    pub bytes_methods: Option<fn(&mut Vm)>,
    /// Other types whose methods wait for their first use, with what installs them
    /// (`memoryview`): [`Vm::ready_methods`] runs it.
    pub lazy_methods: Vec<(Rc<object::PyType>, InstallMethods)>,
    /// The classes of modules' `__loader__`s, made on first use (`vm::loaders`).
    pub loaders: LoaderClasses,
    /// The program's threads and whose turn it is (`vm::threads`).
    pub threads: thread_list::Threads<ThreadOwn, Value>,
    /// Each signal's Python handler (`vm::signals`).
    pub signals: SignalTable,
}

/// The classes of modules' `__loader__`s (`vm::loaders`), each made on its first use.
#[derive(Default)]
pub struct LoaderClasses {
    source_file: Option<Rc<object::PyType>>,
    builtin_importer: Option<Rc<object::PyType>>,
}

/// A thread's native stack: a coroutine resumed with the `Vm` (`vm::threads`).
#[cfg(not(target_arch = "wasm32"))]
pub type ThreadStack = corosensei::Coroutine<*mut Vm, *mut Vm, ()>;
#[cfg(target_arch = "wasm32")]
pub type ThreadStack = ();

/// What a thread has of its own in the `Vm` (these fields of it), kept in the thread table
/// while another thread runs, with the thread's own stack (`vm::threads`).
#[derive(Default)]
pub struct ThreadOwn {
    pub(crate) depth: usize,
    pub(crate) native_depth: usize,
    pub(crate) exc_info: Vec<Value>,
    pub(crate) running_frames: Vec<frame::RunningFrame>,
    pub(crate) caller: Option<frame::CallSite>,
    pub(crate) frame_chain: Vec<(*const frame::Frame, *const frame::InlineFrames)>,
    pub(crate) repr_stack: Vec<usize>,
    pub(crate) class_namespaces: Vec<(Rc<PyDict>, Value)>,
    pub(crate) asyncgen_hooks: AsyncGenHooks,
    pub(crate) tracing: Tracing,
    /// One per hook of the thread table, in order: the layers' own per-thread state.
    pub(crate) slots: Vec<Value>,
    /// Its own native stack (None: the main thread's is the interpreter thread's, and a
    /// thread's is out of the table while it runs).
    pub(crate) stack: Option<Box<ThreadStack>>,
    /// Where the thread's stack gives way (set as it starts; a page starts no threads).
    #[cfg(not(target_arch = "wasm32"))]
    pub(crate) yielder: *const std::ffi::c_void,
}

impl Drop for ThreadOwn {
    /// A thread still alive when the interpreter ends (a daemon, or one blocked for good)
    /// is left where it stands, as CPython leaves daemon threads: its stack is never
    /// unwound, and what that holds is never freed.
    fn drop(&mut self) {
        std::mem::forget(self.stack.take());
    }
}

thread_local! {
    /// What the program prints, buffered. Kept per thread rather than in the `Vm`, so
    /// that the binary's panic hook, which runs on the interpreter thread with no `Vm` at
    /// hand, can still write out the program's output before apy exits on a bug.
    static PROGRAM_STDOUT: std::cell::RefCell<std::io::BufWriter<console::Stdout>> = {
        // An abort (a native stack overflow, a failed allocation) writes it out too.
        #[cfg(not(target_arch = "wasm32"))]
        fatal::install_handler(write_buffered_output_raw);
        std::cell::RefCell::new(stdout_buffer())
    };
}

/// An empty buffer for the program's standard output.
fn stdout_buffer() -> std::io::BufWriter<console::Stdout> {
    std::io::BufWriter::with_capacity(console::STDOUT_BUFFER, console::stdout())
}

/// Writes what the program printed and is still buffered straight to file descriptor 1,
/// from a signal handler on the interpreter thread: no lock taken, nothing allocated.
#[cfg(not(target_arch = "wasm32"))]
fn write_buffered_output_raw() {
    let _ = PROGRAM_STDOUT.try_with(|out| {
        if let Ok(out) = out.try_borrow() {
            let bytes = out.buffer();
            // SAFETY: writes `bytes.len()` bytes of a live slice; write(2) is
            // async-signal-safe.
            unsafe { libc::write(1, bytes.as_ptr().cast(), bytes.len()) };
        }
    });
}

/// Writes out what the program printed so far (a no-op if a write is under way): the
/// error when the output cannot be written (a closed descriptor, a broken pipe), and what
/// could not be written stays buffered.
pub fn flush_program_stdout() -> std::io::Result<()> {
    PROGRAM_STDOUT.with(|out| match out.try_borrow_mut() {
        Ok(mut out) => out.flush(),
        Err(_) => Ok(()),
    })
}

impl Drop for Vm {
    /// The program's output is written out when its interpreter goes away, as it was
    /// when the buffer was a field of the `Vm`.
    fn drop(&mut self) {
        let _ = flush_program_stdout();
        self.locate_allocations(false);
    }
}

impl Vm {
    pub fn intern(&mut self, text: &str) -> Rc<PyStr> {
        self.interner.intern(text)
    }

    /// Writes out what the program printed so far, before apy writes elsewhere (stderr, a
    /// prompt), so that the two keep their order. An error is the program's to see at its
    /// next write or flush, and apy's to report at the end ([`Vm::flush_stdout_at_exit`]).
    pub fn flush_stdout(&mut self) {
        let _ = flush_program_stdout();
    }

    /// `sys.stdout.flush()`, `print(..., flush=True)`: OSError when the output cannot be
    /// written.
    pub fn flush_stdout_for_program(&mut self) -> PyResult<()> {
        flush_program_stdout().map_err(|e| self.os_error(&e, None))
    }

    /// Adds `s` to what the program prints (`print`, `sys.stdout.write`): OSError when a
    /// full buffer cannot be written out. What was buffered is then dropped, as CPython
    /// drops the chunk its text layer was handing down (`apy prog | head -1` ends with the
    /// BrokenPipeError alone, not a second report at exit); a failed flush
    /// ([`Vm::flush_stdout_for_program`]) keeps it, as CPython's buffered layer does.
    pub fn write_stdout(&mut self, s: &str) -> PyResult<()> {
        self.write_stdout_bytes(s.as_bytes())
    }

    /// [`Vm::write_stdout`] of bytes (`sys.stdout.buffer.write`).
    pub fn write_stdout_bytes(&mut self, bytes: &[u8]) -> PyResult<()> {
        let unbuffered = self.config.unbuffered;
        PROGRAM_STDOUT
            .with(|out| match out.try_borrow_mut() {
                Ok(mut out) => out
                    .write_all(bytes)
                    .and_then(|()| match unbuffered {
                        true => out.flush(),
                        false => Ok(()),
                    })
                    .inspect_err(|_| {
                        // Taken apart, not dropped: a BufWriter's drop would try to write it.
                        let _unwritten = std::mem::replace(&mut *out, stdout_buffer()).into_parts();
                    }),
                Err(_) => Ok(()),
            })
            .map_err(|e| self.os_error(&e, None))
    }

    /// Called every `TIME_CHECK_INTERVAL` steps or when `max_steps` is reached (the
    /// countdown ran out): the exception to raise when a sandbox limit is exceeded
    /// (recording an [`Abort`], which no handler can catch), when the heap went past
    /// `--max-memory` (a `MemoryError`) or when Ctrl-C was pressed (a `KeyboardInterrupt`);
    /// code may catch those two.
    #[cold]
    pub(crate) fn check_limits(&mut self) -> Option<Exc> {
        // Counts the instruction about to run: the one past the limit stops the program.
        // (Saturating: a native call may charge an estimate near u64::MAX, which must stop
        // the program, not wrap around to a small count.)
        self.steps = self.steps.saturating_add(self.window);
        if let Some(max) = self.config.max_steps
            && self.steps > max
        {
            self.abort = Some(Abort::MaxSteps(max));
        } else if let Some(limit) = self.config.time_limit
            && self.started.elapsed() >= limit
        {
            self.abort = Some(Abort::TimeLimit(limit));
        }
        if let Some(abort) = self.abort.take() {
            return Some(self.stop(abort));
        }
        let left = match self.config.max_steps {
            Some(max) => (max.saturating_add(1) - self.steps).min(TIME_CHECK_INTERVAL),
            None => TIME_CHECK_INTERVAL,
        };
        self.start_window(self.slice_window(left));
        if crate::common::memory::take_over_limit() {
            // Past `--max-memory` where no allocation could be refused (`common::memory`).
            return Some(self.new_exc_args(&self.types.memory_error, vec![]));
        }
        // Ctrl-C is the main thread's to raise, as in CPython.
        (self.threads.on_main() && interrupt::take())
            .then(|| self.new_exc_args(&self.types.keyboard_interrupt, vec![]))
    }

    /// The dispatch loop's check when a window runs out: [`Vm::check_limits`], then, while
    /// other threads live, whether the running one's turn is over (`vm::threads`).
    #[cold]
    pub(crate) fn check_between_instructions(&mut self) -> Option<Exc> {
        if let Some(stop) = self.check_limits() {
            return Some(stop);
        }
        // The handlers of caught signals run in the main thread, as CPython's eval breaker
        // runs them.
        if interrupt::signals_pending()
            && self.threads.on_main()
            && let Err(exc) = self.run_signal_handlers()
        {
            return Some(exc);
        }
        if self.threads.active() {
            return self.slice_over().err();
        }
        None
    }

    /// The dispatch loop's check when its window runs out ([`Vm::check_between_instructions`]),
    /// then, while a trace function is set, the events of the instruction about to run in
    /// `frame`.
    #[cold]
    #[inline(never)]
    pub(crate) fn between_instructions(&mut self, frame: &mut frame::Frame) -> PyResult<()> {
        if let Some(stop) = self.check_between_instructions() {
            return Err(stop);
        }
        if self.tracing_on() {
            self.trace_instruction(frame)?;
        }
        Ok(())
    }

    /// Starts a check window of `length` (at least 1) instructions; of one while a trace
    /// function is set, which sees every instruction (`vm::tracing`).
    fn start_window(&mut self, length: u64) {
        self.window = if self.tracing_on() { 1 } else { length.max(1) };
        self.countdown = self.window;
    }

    /// Ends the check window now (the instructions run in it counted): the next
    /// instruction checks, and a window of one starts if a trace function is set.
    fn narrow_window(&mut self) {
        self.steps = self.steps.saturating_add(self.window - self.countdown);
        self.window = 1;
        self.countdown = 1;
    }

    /// Blocks until `until` (None: until woken), or until Ctrl-C is pressed or the time
    /// limit is reached, whichever comes first; never busy. Then [`Vm::check_woken`] says
    /// what to raise. The event loop's idle wait and `time.sleep` block here.
    pub fn wait_idle(&self, until: Option<Instant>) {
        #[cfg(not(target_arch = "wasm32"))]
        self.wait_ready(&mut [], until);
        // A page cannot block: in a browser apy runs on the virtual clock, which never
        // waits (src/web.rs).
        #[cfg(target_arch = "wasm32")]
        let _ = until;
    }

    /// Blocks as [`Vm::wait_idle`] does, or until one of `fds` is ready (their `revents`
    /// say how); how many are. A selector and a socket's blocking call wait here.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn wait_ready(
        &self,
        fds: &mut [crate::common::net::PollFd],
        until: Option<Instant>,
    ) -> usize {
        let limit = self
            .config
            .time_limit
            .and_then(|limit| self.started.checked_add(limit));
        let until = match (until, limit) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        loop {
            let left = until.map(|at| at.saturating_duration_since(Instant::now()));
            if interrupt::pending()
                || self.signals_deliverable()
                || left.is_some_and(|left| left.is_zero())
            {
                return 0;
            }
            let ready = interrupt::wait_ready(fds, left);
            if ready > 0 {
                return ready;
            }
        }
    }

    /// Blocks until `fd` is ready for `events` (`POLLIN`: input, or its end), raising
    /// what [`Vm::check_woken`] says when the time limit or a Ctrl-C ends the wait first: a
    /// blocking read from outside apy (stdin, a pipe, a child's exit) waits here.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn wait_for_fd(&mut self, fd: std::os::fd::RawFd, events: i16) -> PyResult<()> {
        loop {
            let ready = self.wait_ready(&mut [crate::common::net::poll_fd(fd, events)], None);
            if let Some(exc) = self.check_woken() {
                return Err(exc);
            }
            if ready > 0 {
                return Ok(());
            }
        }
    }

    /// After a blocking wait: the exception to raise when the time limit has been reached
    /// (recording an [`Abort`]) or Ctrl-C was pressed; None when the wait simply ended.
    /// The handlers of the signals caught meanwhile run here (when
    /// [`Vm::handlers_may_run`]); the exception one raises is returned.
    /// Counts no instructions, unlike [`Vm::check_limits`].
    #[cold]
    pub fn check_woken(&mut self) -> Option<Exc> {
        if let Some(limit) = self.config.time_limit
            && self.started.elapsed() >= limit
        {
            return Some(self.stop(Abort::TimeLimit(limit)));
        }
        if interrupt::take() {
            return Some(self.new_exc_args(&self.types.keyboard_interrupt, vec![]));
        }
        if self.handlers_may_run() {
            return self.run_signal_handlers().err();
        }
        None
    }

    /// Stops the program for `why`: records the [`Abort`] and returns the exception that
    /// unwinds it, which no handler can catch (the unwinder skips handlers while `abort`
    /// is set; it is checked again at every instruction).
    pub fn stop(&mut self, why: Abort) -> Exc {
        let message = why.to_string();
        self.abort = Some(why);
        self.start_window(1);
        self.new_exc(&self.types.system_exit, message)
    }

    /// Counts `n` steps of native work (an element a built-in consumes) against the same
    /// budget as instructions, so a long native loop (`sum(range(10**10))`) stops at the
    /// limits and on Ctrl-C too; one subtraction and test while the window lasts.
    #[inline]
    pub fn charge(&mut self, n: u64) -> PyResult<()> {
        if self.countdown > n {
            self.countdown -= n;
            return Ok(());
        }
        self.charge_window(n)
    }

    /// The check window ran out in native code: the limit checks the dispatch loop makes,
    /// counting what `n` had beyond the window.
    #[cold]
    fn charge_window(&mut self, n: u64) -> PyResult<()> {
        self.steps = self.steps.saturating_add(n - self.countdown);
        match self.check_limits() {
            Some(exc) => Err(exc),
            None => Ok(()),
        }
    }

    /// The exception being handled right now (`sys.exception()`), or None.
    pub fn current_exception(&self) -> Value {
        self.exc_info
            .iter()
            .rev()
            .find(|v| !v.is_none())
            .cloned()
            .unwrap_or(Value::None)
    }

    /// Enters one level of (Python or native) recursion.
    #[inline]
    pub fn enter_recursion(&mut self) -> PyResult<()> {
        if self.depth >= self.recursion_limit {
            return Err(self.recursion_error());
        }
        self.depth += 1;
        Ok(())
    }

    #[cold]
    fn recursion_error(&self) -> Exc {
        self.new_exc(
            &self.types.recursion_error.clone(),
            "maximum recursion depth exceeded",
        )
    }

    #[inline]
    pub fn leave_recursion(&mut self) {
        self.depth -= 1;
    }

    /// Runs a frame with `run` one recursion level deeper (RecursionError when too deep).
    pub fn frame_deeper(
        &mut self,
        run: impl FnOnce(&mut Vm) -> frame::FrameResult,
    ) -> frame::FrameResult {
        if let Err(e) = self.enter_recursion() {
            return frame::FrameResult::Err(e);
        }
        let result = run(self);
        self.leave_recursion();
        result
    }

    /// Runs `f` one level of native recursion deeper (reprs, `==`, nested iterators):
    /// RecursionError "maximum recursion depth exceeded`while_doing`" past
    /// [`Vm::max_native_depth`] (`_Py_EnterRecursiveCall`). Python calls `f` makes count
    /// against the recursion limit as well.
    pub fn nested<T>(
        &mut self,
        while_doing: &str,
        f: impl FnOnce(&mut Vm) -> PyResult<T>,
    ) -> PyResult<T> {
        if self.native_depth >= self.max_native_depth {
            return Err(self.new_exc(
                &self.types.recursion_error.clone(),
                format!("maximum recursion depth exceeded{while_doing}"),
            ));
        }
        self.native_depth += 1;
        let result = f(self);
        self.native_depth -= 1;
        result
    }
}

/// A thread's tracing (`vm::tracing`): `sys.settrace`'s and `sys.setprofile`'s functions
/// and the frames they have seen.
#[derive(Default)]
pub struct Tracing {
    /// The function `sys.settrace` set (None: not tracing; frames may keep an `f_trace`).
    function: Option<Value>,
    /// The function `sys.setprofile` set.
    profile: Option<Value>,
    /// Set while a trace function runs: what it runs is not traced.
    busy: bool,
    /// The frames seen, by address.
    frames: HashMap<usize, FrameTrace>,
    /// The lines of code objects' instructions, by code object (kept alive by its entry).
    lines: HashMap<usize, (Rc<object::CodeObj>, Rc<Lines>)>,
}

/// What tracing keeps of one frame.
pub struct FrameTrace {
    /// Its code (a finished frame's address may be reused by another).
    code: Rc<object::CodeObj>,
    /// `f_trace`: the local trace function, None for none.
    f_trace: Value,
    /// `f_trace_lines`, `f_trace_opcodes`.
    lines: bool,
    opcodes: bool,
    /// Whether its `call` event was given (false between a generator's yield and resume).
    active: bool,
    /// The instruction it ran last and the line it was on (a lineless one's is the line
    /// run before it), None when it has just started or resumed.
    previous: Option<(u32, Option<u32>)>,
    /// The native function its last instruction called, for the profile function's
    /// `c_return` or `c_exception`.
    c_call: Option<Value>,
    /// Its frame object, made when first needed.
    object: Option<Value>,
}

/// A code object's lines as tracing sees them: each instruction's (None: none), and
/// whether it starts one.
struct Lines {
    line: Vec<Option<u32>>,
    starts: Vec<bool>,
}

/// The functions `os.register_at_fork` was given, each list in the order registered.
#[derive(Default)]
pub struct ForkHooks {
    pub before: Vec<Value>,
    pub after_in_parent: Vec<Value>,
    pub after_in_child: Vec<Value>,
}

/// A function `atexit.register` was given, with its arguments ([`Vm::run_exit_functions`]).
pub struct ExitFunction {
    pub func: Value,
    pub args: Vec<Value>,
    pub kwargs: Vec<(Rc<PyStr>, Value)>,
}

/// `sys.set_asyncgen_hooks` state (`tstate->async_gen_firstiter/finalizer`).
#[derive(Default)]
pub struct AsyncGenHooks {
    pub firstiter: Option<Value>,
    pub finalizer: Option<Value>,
}

/// Each signal's Python-level handler.
pub struct SignalTable {
    /// By signal number (index 0 unused): `SIG_DFL` (0), `SIG_IGN` (1), a callable, or
    /// None (a number the system refuses). Empty until `_signal` is first imported.
    pub handlers: Vec<Value>,
    /// `signal.default_int_handler`, SIGINT's handler at start, which apy runs as the
    /// Ctrl-C flag (`interrupt::Disposition::Interrupt`); None until `_signal` is imported.
    pub default_int_handler: Value,
}

impl Default for SignalTable {
    fn default() -> SignalTable {
        SignalTable {
            handlers: Vec::new(),
            default_int_handler: Value::None,
        }
    }
}
