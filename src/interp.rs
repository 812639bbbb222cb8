//! The one place that wires the stages together: a [`SourceFile`] in, a finished run (or the
//! [`Error`] that stopped it) out: decode → parse → compile → VM.
//!
//! Mirrors what CPython's `Python/pythonrun.c` does for a file. The CLI (`cli.rs`) and the
//! REPL call only this module. It is also the embedder: [`new_vm`] hands a bare VM its
//! `builtins`, its native modules (asyncio among them), its compile hook and the trace and
//! explain switches, so that no layer below has to reach up for them (starlark-rust's
//! `GlobalsBuilder`, handed to its evaluator, is the model). The program's own output and its uncaught exceptions go to
//! stdout/stderr from the VM; syntax errors come back as diagnostics for the caller to show.
//! The VM runs on a thread with a large native stack, so that recursion up to the (capped)
//! recursion limit never overflows it.

use std::rc::Rc;

use crate::compile::{self, Code, CompileError};
use crate::syntax::ast::{Module, Span};
use crate::syntax::diagnostics::Diagnostic;
use crate::syntax::shape::{StartSymbol, check_shape, check_start};
use crate::syntax::{parse_module, parse_module_warned};
use crate::vm::Vm;

/// The interpreter thread's native stack: room for `vm::MAX_RECURSION_LIMIT` nested calls.
const VM_STACK_BYTES: usize = 1 << 30;

/// The stack the interpreter thread gets: [`VM_STACK_BYTES`], or under a limit on the
/// address space (`ulimit -v`), which counts the whole reservation, a quarter of that limit
/// (the recursion limit's cap shrinks with it: [`recursion_cap`]).
#[cfg(not(target_arch = "wasm32"))]
fn stack_bytes() -> usize {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit only fills in the struct it is given.
    let known = unsafe { libc::getrlimit(libc::RLIMIT_AS, &mut limit) } == 0;
    if known && limit.rlim_cur != libc::RLIM_INFINITY {
        VM_STACK_BYTES.min(usize::try_from(limit.rlim_cur / 4).unwrap_or(usize::MAX))
    } else {
        VM_STACK_BYTES
    }
}

/// In a browser: the stack the wasm module is linked with (`book/web.sh`).
#[cfg(target_arch = "wasm32")]
fn stack_bytes() -> usize {
    WASM_STACK_BYTES
}

/// The stack `book/web.sh` links the wasm module with (`-z stack-size`).
#[cfg(target_arch = "wasm32")]
pub const WASM_STACK_BYTES: usize = 64 << 20;

/// The highest recursion limit a stack of `bytes` holds (as many levels per byte as
/// [`VM_STACK_BYTES`] gives `vm::MAX_RECURSION_LIMIT`).
fn recursion_cap(bytes: usize) -> usize {
    bytes / (VM_STACK_BYTES / crate::vm::MAX_RECURSION_LIMIT)
}

/// A program's text and the name shown for it in messages: the script's path,
/// `<string>` for `-c`, `<stdin>` for standard input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourceFile {
    pub name: String,
    pub text: String,
}

impl SourceFile {
    /// Decodes source bytes as CPython does: in the encoding a PEP 263 declaration in the
    /// first two lines names (`# -*- coding: latin-1 -*-`), else UTF-8, after an optional
    /// byte-order mark. The error's span points into [`SourceFile::lossy`] of the same
    /// bytes, which is what to show it against.
    pub fn decode(name: String, bytes: &[u8]) -> Result<SourceFile, Diagnostic> {
        let bytes = without_bom(bytes);
        if let Some((declared, span)) = declared_encoding(bytes) {
            match crate::builtins::codecs::source_codec(&declared) {
                Some("latin-1") => {
                    let text = bytes.iter().map(|&b| char::from(b)).collect();
                    return Ok(SourceFile { name, text });
                }
                Some("ascii") if !bytes.is_ascii() => {
                    let message = format!("encoding problem: {declared}");
                    return Err(Diagnostic::syntax_error(message, span));
                }
                Some(_) => {}
                // Text in ASCII reads the same in any of these codecs.
                None if crate::builtins::codecs::extends_ascii(&declared) && bytes.is_ascii() => {}
                None => {
                    let message = format!("encoding problem: {declared}");
                    return Err(Diagnostic::syntax_error(message, span).with_help(
                        "apy reads programs in UTF-8, Latin-1 or ASCII (or ASCII text under \
                         another codec's declaration); another codec is outside its subset",
                    ));
                }
            }
        }
        match std::str::from_utf8(bytes) {
            Ok(text) => Ok(SourceFile {
                name,
                text: text.to_string(),
            }),
            Err(error) => {
                let bad = error.valid_up_to();
                let line = 1 + bytes[..bad].iter().filter(|&&b| b == b'\n').count();
                let message = format!(
                    "Non-UTF-8 code starting with '\\x{:02x}' in file {name} on line {line}, \
                     but no encoding declared; see https://peps.python.org/pep-0263/ for details",
                    bytes[bad]
                );
                // The lossy text agrees with the bytes up to `bad`, where U+FFFD (3 bytes) starts.
                Err(Diagnostic::syntax_error(message, Span::new(bad, bad + 3))
                    .with_help("apy reads programs as UTF-8: save the file with that encoding"))
            }
        }
    }

    /// The text of source bytes with each invalid UTF-8 sequence replaced by U+FFFD.
    pub fn lossy(name: String, bytes: &[u8]) -> SourceFile {
        SourceFile {
            name,
            text: String::from_utf8_lossy(without_bom(bytes)).into_owned(),
        }
    }
}

/// The encoding a PEP 263 declaration names, and where: a comment on the first line, or
/// on the second after a first line that is blank or a comment, matching
/// `^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)` (`Parser/tokenizer.c`'s `get_coding_spec`).
fn declared_encoding(bytes: &[u8]) -> Option<(String, Span)> {
    let mut start = 0;
    for line_no in 0..2 {
        let end = bytes[start..]
            .iter()
            .position(|&b| b == b'\n')
            .map_or(bytes.len(), |i| start + i);
        let line = &bytes[start..end];
        let body = line.trim_ascii_start();
        if !body.starts_with(b"#") {
            // A first line that is code ends the search; a blank one lets the second speak.
            if line_no == 0 && !body.is_empty() {
                return None;
            }
        } else if let Some(found) = coding_spec(body) {
            let offset = start + (line.len() - body.len());
            let (at, name) = found;
            let span = Span::new(offset + at, offset + at + name.len());
            return Some((name, span));
        }
        if end == bytes.len() {
            return None;
        }
        start = end + 1;
    }
    None
}

/// In a comment (from its `#`), the name after the first `coding:` or `coding=` that is
/// followed by one, and its offset.
fn coding_spec(comment: &[u8]) -> Option<(usize, String)> {
    let is_name = |b: &u8| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.');
    let mut from = 0;
    while let Some(i) = comment[from..].windows(6).position(|w| w == b"coding") {
        let after = from + i + 6;
        from = after;
        if !matches!(comment.get(after), Some(b':' | b'=')) {
            continue;
        }
        let mut at = after + 1;
        while matches!(comment.get(at), Some(b' ' | b'\t')) {
            at += 1;
        }
        let len = comment[at..].iter().take_while(|b| is_name(b)).count();
        if len > 0 {
            return Some((
                at,
                String::from_utf8_lossy(&comment[at..at + len]).into_owned(),
            ));
        }
    }
    None
}

fn without_bom(bytes: &[u8]) -> &[u8] {
    bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes)
}

/// Why a program did not run to completion.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Error {
    /// A syntax or compile error: the program never started (exit status 1).
    Diagnostic(Diagnostic),
    /// The program ran and ended with this non-zero exit status (an uncaught exception,
    /// already reported on stderr, or `sys.exit(n)`).
    Exited(i32),
}

impl From<Diagnostic> for Error {
    fn from(diagnostic: Diagnostic) -> Error {
        Error::Diagnostic(diagnostic)
    }
}

/// Everything a run is configured by: the VM's own settings (limits, `sys.argv`, clock) and
/// the switches of the layers the embedder wires in.
#[derive(Clone, Debug, Default)]
pub struct Config {
    pub vm: crate::vm::Config,
    /// Event loops start in asyncio's debug mode (`--asyncio-debug`, `PYTHONASYNCIODEBUG`).
    pub asyncio_debug: bool,
    /// What `--trace` logs, and where.
    pub trace: crate::common::trace::Settings,
    /// `--explain`: a teaching note under each classic async mistake reported.
    pub explain: bool,
    /// `--timeline FILE`: record the loop's run and write its picture when it ends.
    pub timeline: Option<crate::timeline::Settings>,
    /// The process ends with the run (the command line): what the run leaves in reference
    /// cycles goes with it, not freed piece by piece (`vm::teardown`), which would add a
    /// quarter to the instructions of `apy -c pass`.
    pub exiting: bool,
}

impl From<crate::vm::Config> for Config {
    /// A run with these VM settings and every other switch off.
    fn from(vm: crate::vm::Config) -> Config {
        Config {
            vm,
            ..Config::default()
        }
    }
}

/// A VM ready to run programs: the built-in types (`Vm::new`), then the `builtins` module
/// and its native modules, asyncio, the compile hook, and the trace and explain switches.
pub fn new_vm(mut config: Config) -> Vm {
    if config.vm.sys_path.is_empty() {
        config.vm.sys_path = vec![String::new()];
    }
    crate::common::trace::install(&config.trace);
    crate::common::explain::install(config.explain);
    let mut vm = Vm::new(config.vm);
    vm.max_recursion_limit = recursion_cap(stack_bytes());
    vm.max_native_depth = crate::vm::NATIVE_RECURSION_LIMIT.min(vm.max_recursion_limit);
    // Each thread's own stack holds as much recursion as the interpreter thread's.
    vm.threads.stack_bytes = stack_bytes();
    vm.recursion_limit = vm.recursion_limit.min(vm.max_recursion_limit);
    vm.compile = compile_at_run_time;
    crate::builtins::install(&mut vm);
    crate::stdlib::install(&mut vm);
    crate::asyncio::install(
        &mut vm,
        crate::asyncio::event_loop::Settings {
            debug: config.asyncio_debug,
        },
    );
    vm
}

/// The library written in apy, compiled by `build.rs` (`compile::frozen`).
static LIBRARY_IMAGE: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/library.image"));

/// The VM's compile hook: source text compiled as a module of its own (`import`, the
/// library's files), or for `exec`, `eval` and `compile()` in their `mode`, with the
/// `__future__` features `inherited`. A file of the library comes compiled already.
fn compile_at_run_time(
    name: &str,
    text: &str,
    mode: compile::Mode,
    inherited: compile::Inherited,
) -> Result<Rc<Code>, Diagnostic> {
    if mode == compile::Mode::Exec
        && inherited == compile::Inherited::default()
        && let Some(code) = compile::frozen::thaw(LIBRARY_IMAGE, text, name)
    {
        return Ok(code);
    }
    compile_text(text, name, mode, inherited)
}

/// Parses and compiles `text` in `mode`, with its SyntaxWarnings on the code.
fn compile_text(
    text: &str,
    name: &str,
    mode: compile::Mode,
    inherited: compile::Inherited,
) -> Result<Rc<Code>, Diagnostic> {
    let start = match mode {
        compile::Mode::Eval => StartSymbol::Eval,
        compile::Mode::Single => StartSymbol::Single,
        compile::Mode::Exec | compile::Mode::Interactive | compile::Mode::InteractiveQuiet => {
            StartSymbol::File
        }
    };
    check_start(text, start)?;
    let (module, lexed) = parse_module_warned(text).map_err(Diagnostic::from)?;
    check_shape(&module, text, start)?;
    let code = compile::compile_module_inheriting(&module, text, name, mode, inherited)
        .map_err(|error| compile_diagnostic(&error))?;
    Ok(with_lexer_warnings(code, lexed))
}

/// `code` with the lexer's SyntaxWarnings (`syntax::warnings`) before the compiler's, as
/// CPython shows the tokenizer's before the compiler's.
fn with_lexer_warnings(mut code: Rc<Code>, mut lexed: Vec<(u32, String)>) -> Rc<Code> {
    if !lexed.is_empty()
        && let Some(code) = Rc::get_mut(&mut code)
    {
        lexed.append(&mut code.warnings);
        code.warnings = lexed;
    }
    code
}

/// Parses `source` (`apy --ast`).
pub fn parse(source: &SourceFile) -> Result<Module, Diagnostic> {
    parse_module(&source.text).map_err(Diagnostic::from)
}

/// Parses and compiles `source` as a file's main module.
pub fn compile(source: &SourceFile) -> Result<Rc<Code>, Diagnostic> {
    compile_text(
        &source.text,
        &source.name,
        compile::Mode::Exec,
        compile::Inherited::default(),
    )
}

/// One top-level statement of a REPL entry, which is parsed whole before any of it runs
/// and has each statement compiled just before it runs ([`EntryStatement::compile`]), as
/// CPython 3.13's REPL runs an entry (`_pyrepl.console.InteractiveColoredConsole.runsource`).
pub struct EntryStatement {
    module: Module,
    /// The entry's last statement prints the value of an expression statement; the
    /// others run as a file's statements do.
    last: bool,
    /// The lexer's SyntaxWarnings of the whole entry, carried by its first statement.
    lexed: Vec<(u32, String)>,
}

/// Parses a REPL entry into its statements; a syntax error anywhere in it means none of
/// it runs.
pub fn parse_entry(
    source: &SourceFile,
) -> Result<std::collections::VecDeque<EntryStatement>, Diagnostic> {
    let (module, mut lexed) = parse_module_warned(&source.text).map_err(Diagnostic::from)?;
    let count = module.body.len();
    Ok(module
        .body
        .into_iter()
        .enumerate()
        .map(|(i, stmt)| EntryStatement {
            module: Module { body: vec![stmt] },
            last: i + 1 == count,
            lexed: std::mem::take(&mut lexed),
        })
        .collect())
}

impl EntryStatement {
    /// Compiles the statement, its lines numbered as in the entry: top-level `await`,
    /// `async for` and `async with` are allowed (CPython's `PyCF_ALLOW_TOP_LEVEL_AWAIT`),
    /// making the code a coroutine; the last statement is compiled as `single` (an
    /// expression's value is printed), the others as `exec`.
    pub fn compile(self, source: &SourceFile) -> Result<Rc<Code>, Diagnostic> {
        let mode = match self.last {
            true => compile::Mode::Interactive,
            false => compile::Mode::InteractiveQuiet,
        };
        let code = compile::compile_module(&self.module, &source.text, &source.name, mode)
            .map_err(|error| compile_diagnostic(&error))?;
        Ok(with_lexer_warnings(code, self.lexed))
    }
}

/// Everything that happens before the first instruction runs (`apy --check`): the
/// SyntaxWarnings too, on stderr, as `python -m py_compile` shows them.
pub fn check(source: &SourceFile) -> Result<(), Diagnostic> {
    let code = compile(source)?;
    let mut shown = std::collections::HashSet::new();
    for (line, message) in &code.warnings {
        if shown.insert((*line, message)) {
            let text = crate::vm::warnings::warning_text(
                &source.name,
                *line,
                "SyntaxWarning",
                message,
                Some(&source.text),
            );
            crate::common::console::eprint(&text);
        }
    }
    Ok(())
}

/// A compile error ("'return' outside function") shown like a syntax error, as CPython does.
fn compile_diagnostic(error: &CompileError) -> Diagnostic {
    Diagnostic {
        class_name: error.class_name(),
        ..Diagnostic::syntax_error(error.message.clone(), error.span)
    }
}

/// Runs `source` as the main module with `argv` as `sys.argv`.
pub fn run(source: &SourceFile, argv: &[String]) -> Result<(), Error> {
    run_with(
        source,
        Config {
            vm: crate::vm::Config {
                argv: argv.to_vec(),
                ..Default::default()
            },
            ..Config::default()
        },
    )
}

/// `sys.path` for running `source`, as CPython sets it up: the script's folder first, or
/// `''` (the current directory) for `-c`, standard input and the prompt.
pub fn search_path(source: &SourceFile) -> Vec<String> {
    let folder = match source.name.starts_with('<') {
        true => None,
        false => std::path::Path::new(&source.name).parent(),
    };
    vec![folder.map_or(String::new(), |f| f.to_string_lossy().into_owned())]
}

/// Runs `source` with explicit sandbox limits (`--max-steps`, `--time-limit`).
pub fn run_with(source: &SourceFile, mut config: Config) -> Result<(), Error> {
    let source = source.clone();
    if config.vm.sys_path.is_empty() {
        config.vm.sys_path = search_path(&source);
    }
    // In a browser the page's worker is the interpreter thread (src/web.rs).
    #[cfg(target_arch = "wasm32")]
    let finished = Ok(run_here(&source, config));
    #[cfg(not(target_arch = "wasm32"))]
    let finished = {
        // Ctrl-C becomes a KeyboardInterrupt in the program instead of killing apy.
        crate::vm::interrupt::install_handler();
        // Signals go to the interpreter thread (`interrupt::route_signals`). Not under
        // --sandbox: its program can neither send a signal nor catch one but SIGINT (which
        // any thread may take), and the host keeps its own; a fuzzer's timeout timer
        // (SIGALRM) must reach the fuzzer's thread, which its handler checks.
        let route = !config.vm.sandbox;
        if route {
            crate::vm::interrupt::route_signals(true);
        }
        spawn_interpreter(move || {
            if route {
                crate::vm::interrupt::route_signals(false);
            }
            let status = run_here(&source, config);
            // A child that `os.fork()` made has no other native thread to hand it to.
            if crate::common::process::is_forked_child() {
                crate::common::process::exit_now(*status.as_ref().unwrap_or(&1));
            }
            status
        })
        .map_err(drop)
        .and_then(|handle| handle.join().map_err(drop))
    };
    match finished {
        Ok(Ok(0)) => Ok(()),
        Ok(Ok(status)) => Err(Error::Exited(status)),
        Ok(Err(diagnostic)) => Err(Error::Diagnostic(diagnostic)),
        Err(()) => {
            crate::common::console::eprint("apy: internal error: the interpreter thread failed\n");
            Err(Error::Exited(70))
        }
    }
}

/// Compiles `source` and runs it on this thread: the exit status.
fn run_here(source: &SourceFile, config: Config) -> Result<i32, Diagnostic> {
    let code = compile(source)?;
    let timeline = config.timeline.clone();
    let clock = config.vm.clock;
    let exiting = config.exiting;
    let mut vm = new_vm(config);
    if let Some(settings) = &timeline
        && !crate::timeline::start(settings, clock)
    {
        crate::common::console::eprint(
            "apy: --timeline needs apy built with the `trace` feature\n",
        );
    }
    let status = vm.run_main(&code, &source.text);
    crate::asyncio::shutdown(&mut vm);
    if let Some(settings) = &timeline
        && let Err(error) = crate::timeline::finish(settings)
    {
        crate::common::console::eprint(&format!("apy: {error}\n"));
    }
    // What the run left in reference cycles is freed, so that a process running program
    // after program (an embedder, a fuzzer, the page's worker) keeps none of them.
    drop(vm);
    if !exiting {
        crate::vm::teardown::collect_cycles(crate::vm::generator::discard_finalizers);
    }
    Ok(status)
}

/// Starts `body` on the interpreter thread, whose native stack has room for the deepest
/// recursion allowed. Values are `Rc`-based: a whole run happens on that one thread.
#[cfg(not(target_arch = "wasm32"))]
pub fn spawn_interpreter<T: Send + 'static>(
    body: impl FnOnce() -> T + Send + 'static,
) -> std::io::Result<std::thread::JoinHandle<T>> {
    std::thread::Builder::new()
        .name("apy".into())
        .stack_size(stack_bytes())
        .spawn(|| {
            let result = body();
            // A child that `os.fork()` made (in the REPL, say) ends here: no other native
            // thread is left to wait for this one.
            if crate::common::process::is_forked_child() {
                crate::common::process::exit_now(0);
            }
            result
        })
}

#[cfg(test)]
mod tests {
    use crate::vm::cpython_names::{CPYTHON_BUILTINS, is_builtin_apy_lacks};
    use crate::vm::dict::StrKeys;

    /// A NameError for a CPython built-in says apy lacks it only when a fresh VM really has
    /// no such built-in (not when a program deleted one), and every one it lacks says so.
    #[test]
    fn the_builtins_apy_lacks_are_the_ones_a_fresh_vm_has_not() {
        let mut vm = super::new_vm(super::Config::default());
        for name in CPYTHON_BUILTINS {
            let key = vm.intern(name);
            let provided = vm.builtins.table.borrow().get_str(&key).is_some();
            assert_ne!(provided, is_builtin_apy_lacks(name), "{name}");
        }
    }

    /// A function's code object is made runnable (for the frozen library, read from the
    /// image too) when it first runs, not when its module is loaded: a function never called
    /// has no body, one called has.
    #[test]
    fn a_code_object_is_made_runnable_on_its_first_run() {
        use crate::vm::object::ObjectKind;
        use crate::vm::value::Value;
        let mut vm = super::new_vm(super::Config::default());
        let source =
            "import asyncio\n\ndef never():\n    return 1\n\ndef once():\n    return 2\n\nonce()\n";
        let module = crate::syntax::parse_module(source).unwrap();
        let code =
            crate::compile::compile_module(&module, source, "t.py", crate::compile::Mode::Exec)
                .unwrap();
        let globals = vm.main_namespace();
        let code = vm.load_code(&code);
        let mut frame = crate::vm::frame::Frame::for_module(&vm, code, globals.clone());
        let ran = vm.run_frame(&mut frame, None);
        assert!(matches!(ran, crate::vm::frame::FrameResult::Returned(_)));
        let made = |vm: &mut crate::vm::Vm, module: &str, name: &str| {
            let dict = match module {
                "__main__" => globals.clone(),
                _ => {
                    let key = vm.intern(module);
                    let Some(Value::Object(m)) = vm.modules.table.borrow().get_str(&key).cloned()
                    else {
                        panic!("{module} is not imported");
                    };
                    let ObjectKind::Module { dict, .. } = &m.kind else {
                        panic!("{module} is not a module");
                    };
                    dict.clone()
                }
            };
            let key = vm.intern(name);
            match dict.table.borrow().get_str(&key) {
                Some(Value::Function(f)) => f.code.running().is_some(),
                _ => panic!("{module}.{name} is not a function"),
            }
        };
        assert!(!made(&mut vm, "__main__", "never"));
        assert!(made(&mut vm, "__main__", "once"));
        // From the frozen library: `timeout_at` (timeouts.apy) runs only when called.
        assert!(!made(&mut vm, "asyncio", "timeout_at"));
    }

    fn decoded(bytes: &[u8]) -> Result<String, String> {
        super::SourceFile::decode("t.py".into(), bytes)
            .map(|source| source.text)
            .map_err(|diagnostic| diagnostic.message.clone())
    }

    /// PEP 263: a declaration on the first line, or on the second after a blank or comment
    /// line, decides how the bytes read (checked against CPython 3.13's answers).
    #[test]
    fn a_coding_declaration_decides_how_the_source_reads() {
        let latin = b"# -*- coding: latin-1 -*-\ns = 'caf\xe9'\n";
        assert_eq!(
            decoded(latin).unwrap(),
            "# -*- coding: latin-1 -*-\ns = 'caf\u{e9}'\n"
        );
        let second = b"#!/usr/bin/env python\n# vim: set fileencoding=iso-8859-1 :\n'\xe9'\n";
        assert!(decoded(second).unwrap().ends_with("'\u{e9}'\n"));
        // Code on the first line: the second line's declaration is not one.
        assert!(decoded(b"x = 1\n# coding: nonsense\n").is_ok());
        assert_eq!(
            decoded(b"\n# coding: nonsense\n").unwrap_err(),
            "encoding problem: nonsense"
        );
        assert_eq!(
            decoded(b"# coding=ascii\n'\xe9'\n").unwrap_err(),
            "encoding problem: ascii"
        );
        // The first `coding` followed by `:` or `=` and a name counts.
        assert!(decoded(b"# codingX coding= utf_8\n'\xc3\xa9'\n").is_ok());
        // ASCII text under another ASCII-extending codec reads as itself; other text
        // under one is outside apy's subset.
        assert!(decoded(b"# coding: cp1252\nprint(4)\n").is_ok());
        assert_eq!(
            decoded(b"# coding: cp1252\n'\xe9'\n").unwrap_err(),
            "encoding problem: cp1252"
        );
    }
}
