//! A VM's life: made with its built-in types ([`Vm::new`]), then running the `__main__`
//! module and reporting how it ended, as CPython's `Python/pythonrun.c` does: the exit
//! status, after the traceback of an uncaught exception or `SystemExit`'s code.

use std::collections::HashMap;
use std::rc::Rc;

use crate::common::clock::Instant;
use crate::compile::bytecode::Code;
use crate::syntax::diagnostics::Diagnostic;

use super::dict::StrKeys;
use super::exceptions::init as init_exceptions;
use super::frame::{Frame, FrameResult, InlineFrames};
use super::generator::init as init_generators;
use super::iter::init as init_iterators;
use super::native_docs::module_doc;
use super::object::{BuiltinTypes, CodeObj, ExcData, ModuleOrigin, Object, ObjectKind};
use super::type_attrs::init_type_methods;
use super::value::{PyDict, Value};
use super::{
    Config, Exc, Interner, ModuleMaker, Names, PROGRAM_STDOUT, PyResult, TIME_CHECK_INTERVAL, Vm,
};

impl Vm {
    /// A VM with the built-in types and their core methods, and nothing else: the
    /// embedder (`interp::new_vm`) then installs the `builtins` module, the native modules
    /// and the compile hook.
    pub fn new(config: Config) -> Vm {
        // What an earlier program of this process changed is CPython's default again.
        crate::common::int_ops::set_max_str_digits(crate::common::int_ops::MAX_STR_DIGITS);
        let mut interner = Interner::default();
        let names = Names::new(&mut interner);
        let types = BuiltinTypes::new(&mut interner);
        let first_window = config.max_steps.map_or(TIME_CHECK_INTERVAL, |max| {
            max.saturating_add(1).min(TIME_CHECK_INTERVAL)
        });
        let builtins = Rc::new(PyDict {
            table: Default::default(),
        });
        let sys_path = config
            .sys_path
            .iter()
            .map(|p| Value::str(p.as_str()))
            .collect();
        let mut vm = Vm {
            types,
            names,
            interner,
            builtins,
            modules: Rc::new(PyDict {
                table: Default::default(),
            }),
            sys_path: Value::None,
            importing: Vec::new(),
            main_file: None,
            module_runner: None,
            keep_traceback_locals: false,
            class_namespaces: Vec::new(),
            sources: HashMap::new(),
            depth: 0,
            native_depth: 0,
            max_native_depth: super::NATIVE_RECURSION_LIMIT,
            recursion_limit: 1000,
            max_recursion_limit: super::MAX_RECURSION_LIMIT,
            exc_info: vec![Value::None],
            config,
            steps: 0,
            window: first_window,
            countdown: first_window,
            started: Instant::now(),
            abort: None,
            repr_stack: Vec::new(),
            vec_pool: Vec::new(),
            frame_pool: Vec::new(),
            generator_pool: Vec::new(),
            spare_frames: InlineFrames::default(),
            warning_registry: Default::default(),
            running_frames: Vec::new(),
            caller: None,
            before_exit: None,
            exit_functions: Vec::new(),
            fork_hooks: Default::default(),
            native_send: |_, _| None,
            native_await: |_, _| None,
            asyncgen_hooks: Default::default(),
            tracing: Default::default(),
            native_modules: HashMap::new(),
            library_modules: HashMap::new(),
            frame_chain: Vec::new(),
            bytes_methods: None,
            lazy_methods: Vec::new(),
            loaders: Default::default(),
            threads: Default::default(),
            signals: Default::default(),
            compile: |name, _, _, _| {
                let message = format!("{name}: this interpreter cannot compile at run time");
                Err(Diagnostic::syntax_error(message, Default::default()))
            },
        };
        // The output buffer is made now, while the heap is small: made at the first print,
        // late in a run, its 64 KiB would first have malloc consolidate every small block
        // freed so far.
        PROGRAM_STDOUT.with(|_| ());
        vm.sys_path = Value::list(sys_path);
        // An allocation that cannot be made writes out the program's output before apy ends.
        crate::common::memory::set_last_words(|| {
            let _ = super::flush_program_stdout();
        });
        init_type_methods(&mut vm);
        init_exceptions(&mut vm);
        super::os_errors::init(&mut vm);
        init_iterators(&mut vm);
        init_generators(&mut vm);
        super::frames::init(&mut vm);
        vm
    }

    /// Makes `import name` compile and run `text`, shown in tracebacks as `file`, as a
    /// module of apy's library (on first import; then it is in `sys.modules`).
    pub fn register_library_module(
        &mut self,
        name: &'static str,
        file: &'static str,
        text: &'static str,
    ) {
        self.library_modules.insert(name, (file, text));
    }

    /// Makes `import name` build a module with `make` (on first import; then it is in
    /// `sys.modules`).
    pub fn register_module(&mut self, name: &'static str, make: ModuleMaker) {
        self.native_modules.insert(name, make);
    }

    /// A fresh `__main__` namespace with the names CPython's starts with: `__name__`,
    /// `__doc__`, `__package__` and `__spec__` (None for a script, `-c` and the prompt),
    /// `__loader__` (`BuiltinImporter` here, for `-c`, standard input and the prompt),
    /// `__annotations__` (empty) and `__builtins__` (the `builtins` module).
    pub fn main_namespace(&mut self) -> Rc<PyDict> {
        let loader = Value::Type(self.builtin_importer());
        self.main_namespace_loaded_by(loader)
    }

    /// [`Vm::main_namespace`] with `loader` as its `__loader__`.
    fn main_namespace_loaded_by(&mut self, loader: Value) -> Rc<PyDict> {
        let globals = Rc::new(PyDict {
            table: Default::default(),
        });
        let builtins = self.builtins_module();
        let mut g = globals.table.borrow_mut();
        g.set_str(self.names.name.clone(), Value::Str(self.names.main.clone()));
        g.set_str(self.names.doc.clone(), Value::None);
        g.set_str(self.intern("__package__"), Value::None);
        g.set_str(self.intern("__loader__"), loader);
        g.set_str(self.intern("__spec__"), Value::None);
        g.set_str(
            self.intern("__annotations__"),
            Value::dict(Default::default()),
        );
        g.set_str(self.names.builtins.clone(), builtins);
        drop(g);
        globals
    }

    /// The `builtins` module, made on first use and kept in `sys.modules`: its namespace is
    /// the VM's built-in names, so `builtins.print = f` changes what `print` means in every
    /// module, as in CPython.
    pub fn builtins_module(&mut self) -> Value {
        if let Some(module) = self.loaded_module("builtins") {
            return module;
        }
        {
            let mut names = self.builtins.table.borrow_mut();
            names.set_str(self.names.name.clone(), Value::str("builtins"));
            let doc = module_doc("builtins").map_or(Value::None, Value::str);
            names.set_str(self.names.doc.clone(), doc);
        }
        let module = Value::object(Object::new(
            self.types.module.clone(),
            ObjectKind::Module {
                name: "builtins".into(),
                dict: self.builtins.clone(),
                origin: ModuleOrigin::BuiltIn,
            },
        ));
        let key = self.intern("builtins");
        self.modules.table.borrow_mut().set_str(key, module.clone());
        module
    }

    /// Runs `code` as the `__main__` module and reports how it ended: the exit status, after
    /// printing any uncaught exception's traceback on stderr (`Python/pythonrun.c`).
    pub fn run_main(&mut self, code: &Rc<Code>, source: &str) -> i32 {
        self.sources.insert(code.filename.clone(), source.into());
        self.main_file = Some(code.filename.clone());
        if self.config.runs_module {
            self.module_runner = Some(code.clone());
        }
        let code = self.load_code(code);
        // A script's own path and loader; `-c`, standard input and the prompt have none.
        let from_file = !code.head.filename.starts_with('<');
        let globals = match from_file {
            true => {
                let loader = self.source_file_loader("__main__", &code.head.filename);
                self.main_namespace_loaded_by(loader)
            }
            false => self.main_namespace(),
        };
        if from_file {
            let file = Value::str(code.head.filename.as_ref());
            let key = self.intern("__file__");
            globals.table.borrow_mut().set_str(key, file);
            // No bytecode cache is written for the script (CPython's is None too).
            let key = self.intern("__cached__");
            globals.table.borrow_mut().set_str(key, Value::None);
        }
        super::teardown::watch_module(&globals);
        // `sys.modules['__main__']` is the module whose namespace the program runs in.
        let main_module = Value::object(Object::new(
            self.types.module.clone(),
            ObjectKind::Module {
                name: "__main__".into(),
                dict: globals.clone(),
                origin: match from_file {
                    true => ModuleOrigin::File,
                    false => ModuleOrigin::BuiltIn,
                },
            },
        ));
        let main_key = self.names.main.clone();
        self.modules
            .table
            .borrow_mut()
            .set_str(main_key, main_module);
        let mut frame = Frame::for_module(self, code, globals.clone());
        let result = self.run_main_recorded(&mut frame);
        drop(frame);
        let status = match result {
            FrameResult::Err(exc) => self.report_uncaught(&exc),
            _ => 0,
        };
        let status = self.join_threads(status);
        self.run_exit_functions();
        if let Some(before_exit) = self.before_exit {
            before_exit(self);
        }
        // Module globals die before the interpreter, as at CPython's shutdown.
        globals.table.borrow_mut().clear();
        self.run_finalizers(None);
        self.flush_stdout_at_exit(status)
    }

    /// The exception data of `exc` that takes a traceback entry for a frame running
    /// `code` as it unwinds: none for an exception that has none, or for `-m`'s runner
    /// ([`Vm::module_runner`]), whose frame tracebacks leave out.
    pub(super) fn entry_taker<'e>(
        &self,
        exc: &'e Exc,
        code: &CodeObj,
    ) -> Option<&'e std::cell::RefCell<ExcData>> {
        let runner = self.module_runner.as_ref();
        match runner.is_some_and(|runner| Rc::ptr_eq(runner, &code.head)) {
            true => None,
            false => exc.exc_data(),
        }
    }

    /// The last flush of the program's output, as CPython's finalization makes it: when
    /// the output cannot be written (stdout closed under it, a broken pipe), the error is
    /// reported ("Exception ignored on flushing sys.stdout:") and the exit status is 120,
    /// whatever it was to be.
    fn flush_stdout_at_exit(&mut self, status: i32) -> i32 {
        let flushed = match self.flush_replaced_stdout() {
            Ok(()) => super::flush_program_stdout().map_err(|e| self.os_error(&e, None)),
            Err(exc) => {
                let _ = super::flush_program_stdout();
                Err(exc)
            }
        };
        let Err(exc) = flushed else {
            return status;
        };
        let line = self.exception_last_line(&exc, false);
        self.write_report(&["Exception ignored on flushing sys.stdout:\n", &line, "\n"]);
        120
    }

    /// Flushes a `sys.stdout` the program put in place of the standard one (a
    /// `TextIOWrapper` over `sys.stdout.buffer` keeps text until flushed), unless it is
    /// closed, as `flush_std_files` does.
    fn flush_replaced_stdout(&mut self) -> PyResult<()> {
        let (Some(out), Some(standard)) = (self.sys_attr("stdout"), self.sys_attr("__stdout__"))
        else {
            return Ok(());
        };
        if out.is_none() || out.is(&standard) {
            return Ok(());
        }
        let key = self.intern("closed");
        let closed = match self.get_attr_opt(&out, &key)? {
            Some(closed) => self.truthy(&closed)?,
            None => false,
        };
        if !closed {
            self.call_method(&out, "flush", &[])?;
        }
        Ok(())
    }

    /// Runs `atexit`'s functions, last registered first, and forgets them all; one
    /// registered meanwhile does not run (`atexit_callfuncs`). An error in one is reported
    /// as unraisable ("Exception ignored in atexit callback …", `SystemExit` too) and the
    /// next runs; a stop (a limit, Ctrl-C's abort) ends them.
    pub fn run_exit_functions(&mut self) {
        let registered = std::mem::take(&mut self.exit_functions);
        for exit in registered.into_iter().rev().flatten() {
            if self.abort.is_some() {
                break;
            }
            if let Err(exc) = self.call(&exit.func, &exit.args, &exit.kwargs) {
                let repr = self.repr(&exit.func).unwrap_or_default();
                let mut text = format!("Exception ignored in atexit callback {repr}:\n");
                self.format_unraisable(&exc, &mut text);
                self.write_stderr(&text);
            }
        }
        self.exit_functions.clear();
    }

    /// As the main module ends, `threading._shutdown()` waits for the threads that are not
    /// daemons (`wait_for_thread_shutdown`), when `threading` was imported. A limit that
    /// stops it (or stopped a thread it waited for) is reported and becomes the exit status;
    /// another error there (Ctrl-C) is printed as unraisable, without its heading, and the
    /// status stays as it was, as in CPython 3.13.
    fn join_threads(&mut self, status: i32) -> i32 {
        if !self.threads.active() || self.abort.is_some() {
            return status;
        }
        let key = self.intern("threading");
        let threading = self.modules.table.borrow().get_str(&key).cloned();
        let Some(threading) = threading else {
            return status;
        };
        let shutdown = self.intern("_shutdown");
        let joined = self
            .get_attr(&threading, &shutdown)
            .and_then(|f| self.call(&f, &[], &[]));
        match joined {
            Ok(_) => status,
            Err(exc) if self.abort.is_some() => self.report_uncaught(&exc),
            Err(exc) => {
                let mut text = String::new();
                self.format_unraisable(&exc, &mut text);
                self.write_stderr(&text);
                status
            }
        }
    }

    /// Prints an exception that ended the program and returns the exit status.
    pub fn report_uncaught(&mut self, exc: &Exc) -> i32 {
        self.flush_stdout();
        if let Some(abort) = self.abort.clone() {
            crate::common::console::eprint(&format!("{abort}\n"));
            return 1;
        }
        if exc.class.is_subtype(&self.types.system_exit) {
            let args = self.exc_args(exc);
            let code = match args.len() {
                0 => Value::None,
                1 => args[0].clone(),
                _ => Value::tuple(args),
            };
            return match code {
                Value::None => 0,
                Value::Int(n) => n as i32,
                Value::Bool(b) => b as i32,
                // CPython's `PyLong_AsLong` fails: its exit status is the -1 it gave, and the
                // error it left is reported when the threads shut down.
                Value::BigInt(_) => {
                    crate::common::console::eprint(
                        "Exception ignored on threading shutdown:\n\
                         OverflowError: Python int too large to convert to C long\n",
                    );
                    255
                }
                other => {
                    let text = self
                        .str_of(&other)
                        .map(|s| s.as_str().to_string())
                        .unwrap_or_default();
                    self.write_report(&[&text, "\n"]);
                    1
                }
            };
        }
        self.report_through_excepthook(exc);
        if exc.class.is_subtype(&self.types.keyboard_interrupt) {
            // CPython dies by SIGINT here; a shell shows that as 128 + 2.
            return 130;
        }
        1
    }

    /// Hands an uncaught exception to `sys.excepthook(type, value, traceback)`, as CPython's
    /// `_PyErr_PrintEx` does: the default hook (`sys.__excepthook__`) prints the traceback;
    /// a program's own runs instead, and if it raises, both tracebacks are printed.
    pub fn report_through_excepthook(&mut self, exc: &Exc) {
        let hook = match (self.sys_attr("__excepthook__"), self.sys_attr("excepthook")) {
            (Some(default), Some(hook)) if !default.is(&hook) => hook,
            (Some(_), None) => {
                self.write_report(&["sys.excepthook is missing\n"]);
                return self.print_exception_report(exc);
            }
            // The default hook, or `sys` not imported (nothing can have replaced it).
            _ => return self.print_exception_report(exc),
        };
        let args = [
            Value::Type(exc.class.clone()),
            Value::Object(exc.clone()),
            self.traceback_of(exc),
        ];
        let outcome = self.call(&hook, &args, &[]);
        self.flush_stdout();
        if let Err(failure) = outcome {
            let hook_text = self.format_exception(&failure);
            let text = self.format_exception(exc);
            self.write_report(&[
                "Error in sys.excepthook:\n",
                &hook_text,
                "\nOriginal exception was:\n",
                &text,
            ]);
        }
    }

    /// The default `sys.excepthook`'s work: the exception's traceback, to `sys.stderr`.
    pub fn print_exception_report(&mut self, exc: &Exc) {
        let text = self.format_exception(exc);
        self.write_report(&[&text]);
    }

    /// Writes the report of an uncaught exception (its traceback, or `SystemExit`'s message
    /// and a newline) where CPython's `PyErr_Display` does: to `sys.stderr` as the program
    /// left it. Nothing when that is None, "lost sys.stderr" when it is closed; a `write`
    /// of each of the `pieces` when the program put a file object of its own there (what
    /// that raises is lost, as in CPython; CPython writes a traceback in several pieces, one
    /// a frame, apy whole).
    pub fn write_report(&mut self, pieces: &[&str]) {
        let Some(stderr) = self.sys_attr("stderr") else {
            return self.write_stderr(&pieces.concat());
        };
        if stderr.is_none() {
            return;
        }
        let closed = self.intern("closed");
        let is_closed = self
            .get_attr(&stderr, &closed)
            .and_then(|c| self.truthy(&c));
        if let Ok(true) = is_closed {
            return self.write_stderr("lost sys.stderr\n");
        }
        if self
            .sys_attr("__stderr__")
            .is_some_and(|real| real.is(&stderr))
        {
            return self.write_stderr(&pieces.concat());
        }
        self.flush_stdout();
        for piece in pieces {
            let _ = self.call_method(&stderr, "write", &[Value::str(*piece)]);
        }
    }
}
