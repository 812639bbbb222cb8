//! The interpreter thread's side of the REPL: prompts asked for, events (lines, Ctrl-C,
//! Ctrl-D, completion questions) in; entries run in one `__main__` namespace on one event
//! loop. The loop runs for the whole session; this module is its selector, so tasks keep
//! running while the prompt waits. An entry with top-level `await` becomes a Task that the
//! loop drives; the next prompt waits for it. Mirrors `Lib/asyncio/__main__.py`.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender};
use std::time::{Duration, Instant};

use super::helper::KEYWORDS;
use super::input::{self, Decision};
use super::{Ask, CONTINUE, Event, PROMPT};
use crate::asyncio::future::{self, Status};
use crate::asyncio::{event_loop, task};
use crate::compile::Code;
use crate::interp::{self, EntryStatement, SourceFile};
use crate::syntax::diagnostics::emit_to_stderr;

use crate::vm::dict::StrKeys;
use crate::vm::frame::Frame;

use crate::interp::Config;
use crate::vm::frame::FrameResult;
use crate::vm::frame::GenKind;
use crate::vm::object::Function;
use crate::vm::value::DictTable;
use crate::vm::value::{PyDict, Value, ValueCell};
use crate::vm::{Exc, PyResult, Vm, interrupt};

/// The file name of entry `n` (from 0), in tracebacks and diagnostics, as CPython 3.13's
/// REPL names it (`_pyrepl.simple_interact`): each entry is a file of its own, whose lines
/// a traceback shows.
fn entry_name(n: usize) -> String {
    format!("<python-input-{n}>")
}

/// How often a running entry looks for Ctrl-C while the loop has nothing to do.
const INTERRUPT_POLL: Duration = Duration::from_millis(20);

struct Repl {
    globals: Rc<PyDict>,
    event_loop: Value,
    asks: Sender<Ask>,
    events: Receiver<Event>,
    /// The lines of the entry typed so far.
    lines: Vec<String>,
    /// Lines that came in one event (a paste, a recalled entry) and are not fed yet: each
    /// goes in once the entry before it has finished, as if typed after it.
    waiting: VecDeque<String>,
    /// Whether a prompt is out (the input thread is reading a line).
    asked: bool,
    /// The statements of the entry being run that have not run yet, with its source: each
    /// runs once the one before it (and its task) has finished.
    entry: Option<(SourceFile, VecDeque<EntryStatement>)>,
    /// The Task running the current statement (one with top-level `await`).
    task: Option<Value>,
    /// Ctrl-C cancelled `task`: its end is shown as `KeyboardInterrupt`.
    interrupted: bool,
    /// Set when the session ends, with the process exit status.
    exit_status: Option<i32>,
    /// How many entries were read so far (an empty one too, as CPython counts them).
    entries: usize,
}

/// Runs the session: the `-i` file, the banner, then entries until Ctrl-D or `exit()`.
pub fn run(
    config: Config,
    startup: Option<SourceFile>,
    asks: Sender<Ask>,
    events: Receiver<Event>,
) -> i32 {
    let mut vm = interp::new_vm(config);
    let globals = vm.main_namespace();
    let mut repl = Repl {
        globals,
        event_loop: Value::None,
        asks,
        events,
        lines: Vec::new(),
        waiting: VecDeque::new(),
        asked: false,
        entry: None,
        task: None,
        interrupted: false,
        exit_status: None,
        entries: 0,
    };
    if let Err(e) = repl.start(&mut vm, startup) {
        return vm.report_uncaught(&e);
    }
    let event_loop = repl.event_loop.clone();
    let status = loop {
        let outcome = event_loop::run_forever_with(
            &mut vm,
            &event_loop,
            Some(&mut |vm: &mut Vm, timeout| repl.select(vm, timeout)),
        );
        if let Some(status) = repl.exit_status {
            break status;
        }
        if let Err(e) = outcome
            && let Some(status) = repl.escaped(&mut vm, e)
        {
            break status;
        }
    };
    vm.flush_stdout();
    eprintln!("exiting apy REPL...");
    repl.abandon_tasks(&mut vm);
    // As the interpreter shuts down after the REPL: `atexit`'s functions.
    vm.run_exit_functions();
    vm.flush_stdout();
    status
}

impl Repl {
    /// Runs the `-i` file (or shows the banner and imports asyncio), then makes the
    /// session's event loop, as `python -m asyncio` does.
    fn start(&mut self, vm: &mut Vm, startup: Option<SourceFile>) -> PyResult<()> {
        match startup {
            Some(file) => self.run_file(vm, &file),
            None => {
                eprintln!(
                    "apy {} REPL: async Python, printing what CPython 3.13 prints\n\
                     Use \"await\" directly instead of \"asyncio.run()\".\n\
                     Type \"exit()\" or press Ctrl-D to leave; \"apy --help\" lists the keys.\n\
                     >>> import asyncio",
                    env!("CARGO_PKG_VERSION")
                );
                // Not an entry of the learner's: CPython's asyncio REPL puts the module in
                // the namespace, and only shows the line.
                self.execute(vm, "<stdin>".into(), "import asyncio\n".to_string())?;
            }
        }
        // The loop's types come with the asyncio module: import it before making the loop.
        vm.import_module("asyncio")?;
        self.event_loop = event_loop::new_loop(vm);
        let asyncio = vm.import_module("asyncio")?;
        vm.call_method(
            &asyncio,
            "set_event_loop",
            std::slice::from_ref(&self.event_loop),
        )?;
        Ok(())
    }

    /// `apy -i FILE`: runs the file in the session's namespace; its errors are reported
    /// and the prompt opens all the same, as `python -i` does.
    fn run_file(&mut self, vm: &mut Vm, file: &SourceFile) {
        let code = match interp::compile(file) {
            Ok(code) => code,
            Err(diagnostic) => {
                emit_to_stderr(&diagnostic, &file.name, &file.text);
                return;
            }
        };
        vm.sources
            .insert(code.filename.clone(), file.text.as_str().into());
        let code = vm.load_code(&code);
        let mut frame = Frame::for_module(vm, code, self.globals.clone());
        let result = vm.run_frame(&mut frame, None);
        drop(frame);
        vm.run_finalizers(None);
        if let FrameResult::Err(e) = result {
            vm.report_uncaught(&e);
        }
        vm.flush_stdout();
    }

    /// The loop's selector: called once per iteration with how long the loop may wait.
    /// Finishes the entry whose task ended, asks for a line when none is running, and
    /// waits for the next event (a line runs right here, inside the running loop).
    fn select(&mut self, vm: &mut Vm, timeout: Option<f64>) -> PyResult<()> {
        self.finish_task(vm)?;
        if self.task.is_none() && self.entry.is_some() {
            return self.run_entry(vm);
        }
        if self.task.is_none() && !self.waiting.is_empty() {
            return self.feed_waiting(vm);
        }
        if self.task.is_some() {
            self.wait_running(vm, timeout);
            return Ok(());
        }
        if !self.asked {
            vm.flush_stdout();
            let prompt = if self.lines.is_empty() {
                PROMPT
            } else {
                CONTINUE
            };
            if self.asks.send(Ask::Line(prompt)).is_err() {
                self.leave(vm, 0);
                return Ok(());
            }
            self.asked = true;
        }
        let deadline = timeout.map(|t| Instant::now() + Duration::from_secs_f64(t.min(1e6)));
        loop {
            let event = match deadline {
                None => self
                    .events
                    .recv()
                    .map_err(|_| RecvTimeoutError::Disconnected),
                Some(at) => self
                    .events
                    .recv_timeout(at.saturating_duration_since(Instant::now())),
            };
            match event {
                Err(RecvTimeoutError::Timeout) => return Ok(()),
                Ok(Event::Complete(word, reply)) => {
                    let _ = reply.send(self.completions(vm, &word));
                }
                Ok(Event::Interrupted) => {
                    self.asked = false;
                    self.lines.clear();
                    // The editor has moved to a new line already.
                    eprintln!("KeyboardInterrupt");
                    return Ok(());
                }
                Ok(Event::Line(text)) if text.contains('\n') => {
                    self.asked = false;
                    // A paste (or a recalled block) is one entry, whose empty lines do
                    // not end a block (`input::decide_paste`).
                    let text = text.trim_end_matches([' ', '\t', '\r']);
                    let ended = text.ends_with('\n');
                    let text = text.strip_suffix('\n').unwrap_or(text);
                    self.lines
                        .extend(text.split('\n').map(|l| l.trim_end_matches('\r').into()));
                    let decision = input::decide_paste(&self.lines, ended);
                    return self.act_on(vm, decision);
                }
                Ok(Event::Line(line)) => {
                    self.asked = false;
                    self.waiting.push_back(line);
                    return self.feed_waiting(vm);
                }
                Ok(Event::Eof) | Err(RecvTimeoutError::Disconnected) => {
                    self.asked = false;
                    self.leave(vm, 0);
                    return Ok(());
                }
            }
        }
    }

    /// While an entry's task runs, the loop's idle time passes here, watching for Ctrl-C
    /// (which cancels the task, as `python -m asyncio` does).
    fn wait_running(&mut self, vm: &mut Vm, timeout: Option<f64>) {
        let deadline = timeout.map(|t| Instant::now() + Duration::from_secs_f64(t.min(1e6)));
        loop {
            if interrupt::take() {
                self.interrupt(vm);
                return;
            }
            let left = deadline.map(|at| at.saturating_duration_since(Instant::now()));
            match left {
                Some(left) if left.is_zero() => return,
                Some(left) => std::thread::sleep(left.min(INTERRUPT_POLL)),
                None => std::thread::sleep(INTERRUPT_POLL),
            }
        }
    }

    /// Ctrl-C while an entry runs: its task is cancelled and its end reported as
    /// `KeyboardInterrupt`; with no task running, the interrupt is just reported. The lines
    /// waiting after the entry are dropped with it.
    fn interrupt(&mut self, vm: &mut Vm) {
        self.waiting.clear();
        self.entry = None;
        match &self.task {
            Some(t) if future::as_future(t).is_some_and(|f| f.status() == Status::Pending) => {
                let t = t.clone();
                if vm.call_method(&t, "cancel", &[]).is_ok() {
                    self.interrupted = true;
                }
            }
            Some(_) => {}
            None => {
                vm.flush_stdout();
                eprintln!("\nKeyboardInterrupt");
            }
        }
    }

    /// An exception that stopped the loop: `SystemExit` ends the session (its status is
    /// returned), `KeyboardInterrupt` interrupts the running entry, anything else is shown.
    fn escaped(&mut self, vm: &mut Vm, e: Exc) -> Option<i32> {
        if vm.exc_matches(&e, &vm.types.system_exit.clone()) {
            return Some(vm.report_uncaught(&e));
        }
        if vm.exc_matches(&e, &vm.types.keyboard_interrupt.clone()) {
            self.interrupt(vm);
        } else {
            show_exception(vm, &e);
        }
        None
    }

    /// Leaving as `python -m asyncio` leaves: the tasks still pending are never finalized
    /// there (the namespace outlives the output streams), so they end without a report
    /// ("Task was destroyed but it is pending!") and without running their `finally`.
    fn abandon_tasks(&self, vm: &mut Vm) {
        let pending = task::all_tasks(vm, std::slice::from_ref(&self.event_loop), &[])
            .and_then(|set| vm.collect_iterable(&set))
            .unwrap_or_default();
        for t in &pending {
            if let Some(data) = future::as_future(t).and_then(|f| f.task.as_ref()) {
                data.log_destroy_pending.set(false);
            }
        }
    }

    /// Ends the session with `status` once the loop stops.
    fn leave(&mut self, vm: &mut Vm, status: i32) {
        self.exit_status = Some(status);
        let _ = vm.call_method(&self.event_loop.clone(), "stop", &[]);
    }

    /// Feeds the waiting lines until one starts a task (the rest wait for its end).
    fn feed_waiting(&mut self, vm: &mut Vm) -> PyResult<()> {
        while self.task.is_none()
            && self.entry.is_none()
            && let Some(line) = self.waiting.pop_front()
        {
            self.feed(vm, line)?;
        }
        Ok(())
    }

    /// Adds a typed line to the entry and runs the entry once it is complete.
    fn feed(&mut self, vm: &mut Vm, line: String) -> PyResult<()> {
        if self.lines.is_empty() && line.trim().is_empty() {
            self.entries += 1;
            return Ok(());
        }
        self.lines.push(line);
        let decision = input::decide(&self.lines);
        self.act_on(vm, decision)
    }

    /// Runs the entry's lines once they are complete.
    fn act_on(&mut self, vm: &mut Vm, decision: Decision) -> PyResult<()> {
        match decision {
            Decision::NeedMore => Ok(()),
            Decision::Run | Decision::Invalid => {
                let text = input::entry_text(&std::mem::take(&mut self.lines));
                if self.ran_command(vm, &text) {
                    return Ok(());
                }
                let name = entry_name(self.entries);
                self.entries += 1;
                self.execute(vm, name, text)
            }
        }
    }

    /// CPython 3.13's REPL commands, an entry of one bare word that the session has no
    /// variable of that name for: `exit` and `quit` leave, `clear` clears the screen. Not
    /// counted as an entry, nor kept in the history (`_pyrepl.simple_interact.REPL_COMMANDS`).
    fn ran_command(&mut self, vm: &mut Vm, text: &str) -> bool {
        let word = text.trim();
        if !matches!(word, "exit" | "quit" | "clear") {
            return false;
        }
        let key = vm.intern(word);
        if self.globals.table.borrow().get_str(&key).is_some() {
            return false;
        }
        let _ = self.asks.send(Ask::ForgetEntry);
        match word {
            "clear" => {
                // Home, then erase the screen; the prompt comes next.
                let _ = vm.write_stdout("\x1b[H\x1b[2J");
                vm.flush_stdout();
            }
            _ => self.leave(vm, 0),
        }
        true
    }

    /// Parses the entry, as the file `name`, and starts running its statements
    /// ([`Repl::run_entry`]); a syntax error anywhere in it is shown and none of it runs.
    fn execute(&mut self, vm: &mut Vm, name: String, text: String) -> PyResult<()> {
        let source = SourceFile { name, text };
        vm.sources
            .insert(source.name.as_str().into(), source.text.as_str().into());
        match interp::parse_entry(&source) {
            Ok(statements) => self.entry = Some((source, statements)),
            Err(diagnostic) => {
                vm.flush_stdout();
                emit_to_stderr(&diagnostic, &source.name, &source.text);
            }
        }
        self.run_entry(vm)
    }

    /// Runs the entry's statements in order until one starts a task (the rest wait for
    /// its end). An exception is shown and the next statement runs; a statement that does
    /// not compile is shown and ends the entry, as in CPython's REPL.
    fn run_entry(&mut self, vm: &mut Vm) -> PyResult<()> {
        while self.task.is_none()
            && let Some((source, statements)) = &mut self.entry
        {
            let Some(statement) = statements.pop_front() else {
                self.entry = None;
                break;
            };
            match statement.compile(source) {
                Ok(code) => self.run_statement(vm, code)?,
                Err(diagnostic) => {
                    vm.flush_stdout();
                    emit_to_stderr(&diagnostic, &source.name, &source.text);
                    self.entry = None;
                }
            }
        }
        Ok(())
    }

    /// Runs one statement of the entry. Without `await` it runs at once; with it, its
    /// code is a coroutine that runs as a Task on the session's loop. Only `SystemExit`
    /// comes back as an error: it ends the session.
    fn run_statement(&mut self, vm: &mut Vm, code: Rc<Code>) -> PyResult<()> {
        let code = vm.load_code(&code);
        let mut frame = Frame::for_module(vm, code.clone(), self.globals.clone());
        if code.head.flags.coroutine {
            // `types.FunctionType(code, globals)()` in `python -m asyncio`.
            let module_function = Function {
                code: code.clone(),
                globals: self.globals.clone(),
                name: RefCell::new(vm.intern("<module>")),
                qualname: RefCell::new("<module>".into()),
                renamed: std::cell::Cell::new(false),
                defaults: RefCell::new(None),
                kwdefaults: RefCell::new(None),
                closure: Vec::new(),
                dict: RefCell::new(DictTable::new()),
                type_params: ValueCell::new(Value::Null),
            };
            let coroutine = vm.new_generator(GenKind::Coroutine, Box::new(frame), &module_function);
            match task::new_task(vm, coroutine, self.event_loop.clone(), None, None) {
                Ok(t) => self.task = Some(t),
                Err(e) => return self.report(vm, e),
            }
            return Ok(());
        }
        let result = vm.run_frame(&mut frame, None);
        drop(frame);
        vm.run_finalizers(None);
        match result {
            FrameResult::Err(e) => self.report(vm, e),
            _ => Ok(()),
        }
    }

    /// Reports how the entry's task ended, once it has: its exception, or
    /// `KeyboardInterrupt` when Ctrl-C cancelled it.
    fn finish_task(&mut self, vm: &mut Vm) -> PyResult<()> {
        let Some(t) = &self.task else {
            return Ok(());
        };
        if future::as_future(t).is_some_and(|f| f.status() == Status::Pending) {
            return Ok(());
        }
        let t = t.clone();
        self.task = None;
        let interrupted = std::mem::take(&mut self.interrupted);
        match vm.call_method(&t, "result", &[]) {
            Ok(_) => Ok(()),
            Err(_) if interrupted => {
                vm.flush_stdout();
                eprintln!("\nKeyboardInterrupt");
                Ok(())
            }
            Err(e) => self.report(vm, e),
        }
    }

    /// Shows an entry's exception: `SystemExit` goes back up to end the session;
    /// `KeyboardInterrupt` is one line, as in CPython's REPL, and drops the lines waiting
    /// after the entry; anything else a traceback.
    fn report(&mut self, vm: &mut Vm, e: Exc) -> PyResult<()> {
        if vm.exc_matches(&e, &vm.types.system_exit.clone()) {
            return Err(e);
        }
        remember_last_exception(vm, &e);
        if vm.exc_matches(&e, &vm.types.keyboard_interrupt.clone()) {
            self.waiting.clear();
            self.entry = None;
            vm.flush_stdout();
            eprintln!("\nKeyboardInterrupt");
        } else {
            show_exception(vm, &e);
        }
        Ok(())
    }

    /// What Tab offers for `word`: attributes of the object a dotted name leads to, or
    /// keywords and names in scope, as CPython's `rlcompleter` does (callables get `(`).
    fn completions(&self, vm: &mut Vm, word: &str) -> Vec<String> {
        if word.is_empty() {
            return Vec::new();
        }
        let mut found: Vec<String> = Vec::new();
        match word.rsplit_once('.') {
            Some((path, prefix)) => {
                let Some(target) = self.lookup(vm, path) else {
                    return Vec::new();
                };
                for name in attribute_names(vm, &target) {
                    let hidden = name.starts_with('_') && !prefix.starts_with('_');
                    if name.starts_with(prefix) && !hidden {
                        let key = vm.intern(&name);
                        let value = vm.get_attr_opt(&target, &key).ok().flatten();
                        found.push(format!("{path}.{name}{}", call_suffix(vm, value)));
                    }
                }
            }
            None => {
                for keyword in KEYWORDS.iter().filter(|k| k.starts_with(word)) {
                    found.push(match *keyword {
                        "finally" | "try" => format!("{keyword}:"),
                        "False" | "None" | "True" | "break" | "continue" | "pass" | "else" => {
                            keyword.to_string()
                        }
                        _ => format!("{keyword} "),
                    });
                }
                let mut names: Vec<(String, Value)> = Vec::new();
                for table in [&self.globals, &vm.builtins.clone()] {
                    for entry in table.table.borrow().iter() {
                        if let Value::Str(name) = &entry.key
                            && name.as_str().starts_with(word)
                            && !names.iter().any(|(n, _)| n == name.as_str())
                        {
                            names.push((name.as_str().to_string(), entry.value.clone()));
                        }
                    }
                }
                for (name, value) in names {
                    if !KEYWORDS.contains(&name.as_str()) {
                        found.push(format!("{name}{}", call_suffix(vm, Some(value))));
                    }
                }
            }
        }
        found.sort();
        found.dedup();
        found
    }

    /// The value a dotted name leads to: a global or builtin, then attributes.
    fn lookup(&self, vm: &mut Vm, path: &str) -> Option<Value> {
        let mut parts = path.split('.');
        let first = vm.intern(parts.next()?);
        let mut value = self
            .globals
            .table
            .borrow()
            .get_str(&first)
            .cloned()
            .or_else(|| vm.builtins.table.borrow().get_str(&first).cloned())?;
        for part in parts {
            let key = vm.intern(part);
            value = vm.get_attr_opt(&value, &key).ok().flatten()?;
        }
        Some(value)
    }
}

/// `dir(value)`, as strings.
fn attribute_names(vm: &mut Vm, value: &Value) -> Vec<String> {
    let dir_name = vm.intern("dir");
    let Some(dir) = vm.builtins.table.borrow().get_str(&dir_name).cloned() else {
        return Vec::new();
    };
    match vm.call(&dir, std::slice::from_ref(value), &[]) {
        Ok(Value::List(list)) => list
            .items
            .borrow()
            .iter()
            .filter_map(|v| v.as_str().map(str::to_string))
            .collect(),
        _ => Vec::new(),
    }
}

fn call_suffix(vm: &Vm, value: Option<Value>) -> &'static str {
    match value {
        Some(v) if vm.is_callable(&v) => "(",
        _ => "",
    }
}

/// An entry's exception, shown through `sys.excepthook` (a program's own runs instead), as
/// CPython's REPL does.
fn show_exception(vm: &mut Vm, e: &Exc) {
    vm.flush_stdout();
    vm.report_through_excepthook(e);
}

/// `sys.last_exc`, `last_type`, `last_value` and `last_traceback`: the exception an entry
/// ended with, as CPython's REPL keeps it (`_PyErr_PrintEx` with `set_sys_last_vars`), for
/// `pdb.pm()` to look into.
fn remember_last_exception(vm: &mut Vm, e: &Exc) {
    let Ok(sys) = vm.import_module("sys") else {
        return;
    };
    let value = Value::Object(e.clone());
    let fields = [
        ("last_exc", value.clone()),
        ("last_type", Value::Type(e.class.clone())),
        ("last_value", value),
        ("last_traceback", vm.traceback_of(e)),
    ];
    for (name, field) in fields {
        let key = vm.intern(name);
        let _ = vm.set_attr(&sys, &key, field);
    }
}
