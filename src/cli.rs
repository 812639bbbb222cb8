//! The command line, shaped like `python`'s: arguments in, an exit status out.
//!
//! `apy FILE [ARGS…]`, `apy -c CODE [ARGS…]`, `apy -` (standard input), plus the teaching
//! switches. It reads the program, hands it to [`apy::interp`], and turns the outcome into
//! CPython's messages and exit statuses (0 ok, 1 error in the program or a limit reached, 2
//! usage or unreadable file, 130 Ctrl-C). Nothing else in apy touches files, stdin or the
//! process exit code, but for `common::memory`, which ends apy when memory runs out.

use std::ffi::OsString;
use std::io::{IsTerminal, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Parser;

use apy::interp::{self, SourceFile};
use apy::syntax::ast_dump::dump_module;
use apy::syntax::diagnostics::{Diagnostic, emit_to_stderr};

/// A bug in apy (a Rust panic) ends the process with the panic's message, the program's
/// output so far, a last line saying so, and exit status 70 (`EX_SOFTWARE`). The hook does
/// it all because release builds abort on a panic (`panic = "abort"` in Cargo.toml):
/// nothing unwinds back to the thread that waits for the interpreter.
fn exit_70_on_internal_error() {
    let report_panic = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let _ = apy::vm::flush_program_stdout();
        report_panic(info);
        eprintln!("apy: internal error: this is a bug in apy, not in the program");
        std::process::exit(70);
    }));
}

/// A teaching interpreter for async Python: it prints what CPython 3.13 prints.
#[derive(Debug, Parser)]
#[command(
    name = "apy",
    version,
    after_help = after_help()
)]
pub struct Cli {
    /// Run CODE, a program passed in as a string (like `python -c`).
    #[arg(short = 'c', value_name = "CODE")]
    pub command: Option<String>,

    /// Run module MODULE as a script (like `python -m`): a module or package (its
    /// `__main__`) found as `import` finds it, the current folder first, then apy's
    /// library; the ARGS after it become `sys.argv[1:]`. `-m asyncio` opens asyncio's REPL,
    /// which is apy's own prompt (top-level `await`, asyncio imported), whether or not
    /// standard input is a terminal.
    #[arg(short = 'm', value_name = "MODULE", conflicts_with = "command")]
    pub module: Option<String>,

    /// Print the program's abstract syntax tree, as Python's
    /// `ast.dump(ast.parse(source), indent=2)` shows it, instead of running it.
    #[arg(long, conflicts_with_all = ["check", "dis"])]
    pub ast: bool,

    /// Print the bytecode of every code object (module, functions, classes, lambdas,
    /// comprehensions) in the layout and order of `python3.13 -m dis`, instead of running
    /// the program; `--dis=NAME` shows one function and what it contains, like
    /// `dis.dis(NAME)` (a qualified name such as `main` or `Outer.method`). Code objects
    /// appear `at 0x0001`, `0x0002`, … (their place in the full listing) rather than at a
    /// memory address, so the output is the same on every run. A first line says where the
    /// instruction set differs from CPython's on purpose.
    #[arg(
        long,
        value_name = "NAME",
        num_args = 0..=1,
        require_equals = true,
        conflicts_with = "check"
    )]
    pub dis: Option<Option<String>>,

    /// Log the event loop's machinery on stderr while the program runs (stdout is
    /// unchanged): loop iterations, callbacks, task steps, futures, timers, cancellations,
    /// async-generator hooks, and with `frames` each send/throw into a coroutine frame.
    /// Choose categories with `--trace=loop,tasks,futures,hooks,frames` (or `all`); plain
    /// `--trace` is all but `frames`. Each line starts with `trace| `; the format is
    /// documented in src/common/trace.rs.
    #[arg(
        long,
        value_name = "CATEGORIES",
        num_args = 0..=1,
        require_equals = true,
        value_parser = apy::common::trace::parse_categories
    )]
    pub trace: Option<Option<u8>>,

    /// Write the `--trace` log to PATH instead of stderr (implies `--trace` if not given).
    #[arg(long, value_name = "PATH")]
    pub trace_file: Option<PathBuf>,

    /// Record the event loop's run and draw it to FILE when the program ends: one lane per
    /// task, a bar per step, what each task waited on, arrows from the step that completed
    /// a future to the step it woke, cancellations, exceptions and results. The extension
    /// says the format: `.svg` (a picture), `.html` (a page with details on hover) or
    /// `.json` (the data, documented in src/timeline/json.rs).
    #[arg(long, value_name = "FILE")]
    pub timeline: Option<PathBuf>,

    /// How `--timeline` spaces the picture from left to right: by loop `time` (the
    /// default), or by loop `iteration` (for runs where everything happens at t=0).
    #[arg(long, value_name = "time|iteration", default_value = "time", value_parser = parse_spacing)]
    pub timeline_spacing: apy::timeline::Spacing,

    /// After each classic async mistake apy reports (a coroutine never awaited, a task
    /// exception never retrieved, a task destroyed while pending, …), keep CPython's
    /// message as it is and add a short teaching note below it on stderr.
    #[arg(long)]
    pub explain: bool,

    /// Only parse and compile the program: report any SyntaxError and exit with 1, or exit
    /// with 0 when there is none (showing any SyntaxWarning, as `python -m py_compile`
    /// does). Nothing runs.
    #[arg(long)]
    pub check: bool,

    /// The clock: `real` monotonic time, or `virtual` time that jumps straight to the next
    /// timer whenever nothing is ready (sleeps take no wall time; `time.monotonic()` and
    /// `time.perf_counter()` follow it). Under `virtual` an event loop that nothing can ever
    /// wake is reported as a deadlock (exit status 1).
    #[arg(long, value_name = "real|virtual", default_value = "real")]
    pub clock: apy::common::clock::ClockKind,

    /// Stop the program with an error (exit status 1) after it has run N bytecode
    /// instructions (the items a built-in such as sum() or sorted() consumes count too): a
    /// guard for untrusted or runaway code.
    #[arg(long, value_name = "N")]
    pub max_steps: Option<u64>,

    /// Stop the program with an error (exit status 1) after SECONDS of wall time, even
    /// while it waits (an idle event loop, time.sleep).
    #[arg(long, value_name = "SECONDS", value_parser = parse_seconds)]
    pub time_limit: Option<std::time::Duration>,

    /// Limit the program's heap to BYTES (`100000`, `256M`, `1G`): an allocation past it
    /// raises MemoryError, as running out of memory does in CPython.
    #[arg(long, value_name = "BYTES", value_parser = apy::common::memory::parse_size)]
    pub max_memory: Option<usize>,

    /// Refuse the program files, sockets and processes: open(), os's file functions and the
    /// like raise PermissionError "... (apy --sandbox)". The other limits stay as set.
    #[arg(long)]
    pub sandbox: bool,

    /// Open the interactive prompt after running FILE or CODE, in its namespace (like
    /// `python -i`). Without FILE, CODE or -i, apy on a terminal opens the prompt too.
    #[arg(short = 'i')]
    pub interactive: bool,

    /// Unbuffered output: each write to standard output goes out at once, as `python -u`
    /// and `PYTHONUNBUFFERED` (which apy honours too) make it. Without it, what the program
    /// prints is buffered and written out whenever the program waits (a sleep, input(), an
    /// event loop with nothing ready) and when it ends.
    #[arg(short = 'u')]
    pub unbuffered: bool,

    /// Start every event loop in asyncio's debug mode, as `PYTHONASYNCIODEBUG=1` does (apy
    /// honours that variable too): a callback or task step that holds the loop for 100 ms
    /// or longer is reported on stderr.
    #[arg(long)]
    pub asyncio_debug: bool,

    /// FILE is the program to run (`-` reads it from standard input, a folder runs its
    /// `__main__.py`); ARGS become sys.argv[1:], and switches after FILE belong to them.
    /// Without FILE (and without -c) the program is read from standard input when that is
    /// not a terminal. With -c, FILE and ARGS all become sys.argv[1:].
    #[arg(
        value_name = "FILE [ARGS]",
        trailing_var_arg = true,
        allow_hyphen_values = true
    )]
    pub program: Vec<OsString>,
}

/// The text after the switches in `apy --help`: exit statuses, then the REPL's keys.
fn after_help() -> String {
    format!(
        "Exit status: 0 on success, 1 for a SyntaxError, an uncaught exception or a limit \
         reached, 2 for a usage error or a file that cannot be opened, 130 on Ctrl-C, or the \
         code given to sys.exit.\n\n{}",
        apy::repl::KEYS_HELP
    )
}

/// What to do with the program once it is read.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Mode {
    Run,
    Check,
    Ast,
    Dis(Option<String>),
}

/// Runs apy with these arguments and returns the process exit status.
pub fn main(cli: Cli) -> ExitCode {
    exit_70_on_internal_error();
    if let Some(bytes) = cli.max_memory {
        apy::common::memory::set_limit(bytes);
    }
    let mode = if cli.ast {
        Mode::Ast
    } else if let Some(name) = &cli.dis {
        Mode::Dis(name.clone())
    } else if cli.check {
        Mode::Check
    } else {
        Mode::Run
    };
    if let Some(module) = &cli.module {
        return run_module(&cli, module, &mode);
    }
    // A switch apy does not know lands in FILE (whose place may hold `-`, and ARGS any
    // switches): said as python says it, not as a file that cannot be opened.
    if let (None, Some(first)) = (&cli.command, cli.program.first())
        && let Some(switch) = first.to_str().filter(|s| s.starts_with('-') && *s != "-")
    {
        eprintln!("apy: unknown option: {switch}\nTry `apy --help' for more information.");
        return ExitCode::from(2);
    }
    let no_program = cli.command.is_none() && cli.program.is_empty();
    if cli.timeline.is_some() && (mode != Mode::Run || cli.interactive || no_program) {
        eprintln!("apy: --timeline draws the run of a program: give one, without -i or --check");
        return ExitCode::from(2);
    }
    if mode == Mode::Run && no_program && (cli.interactive || std::io::stdin().is_terminal()) {
        return exit_code(apy::repl::run(run_config(&cli, vec![String::new()]), None));
    }
    let (source, argv) = match read_program(&cli) {
        Ok(program) => program,
        Err(Unreadable::Usage(message)) => {
            eprintln!("apy: {message}");
            return ExitCode::from(2);
        }
        Err(Unreadable::Undecodable(source, diagnostic)) => {
            return report(&diagnostic, &source);
        }
        Err(Unreadable::NoMain(message)) => {
            eprintln!("apy: {message}");
            return ExitCode::from(1);
        }
    };
    let outcome = match &mode {
        Mode::Ast => {
            interp::parse(&source).map(|module| print_ignoring_closed_pipe(&dump_module(&module)))
        }
        Mode::Check => interp::check(&source),
        Mode::Dis(None) => interp::compile(&source).map(|code| {
            let text = apy::compile::dis::disassemble(&code);
            print_ignoring_closed_pipe(&format!("{}\n{text}", apy::compile::dis::HEADER));
        }),
        Mode::Dis(Some(name)) => match interp::compile(&source) {
            Ok(code) => match apy::compile::dis::disassemble_function(&code, name) {
                Some(text) => {
                    print_ignoring_closed_pipe(&format!("{}\n{text}", apy::compile::dis::HEADER));
                    Ok(())
                }
                None => {
                    eprintln!("apy: {}", no_such_function(&code, name, &source.name));
                    return ExitCode::from(2);
                }
            },
            Err(diagnostic) => Err(diagnostic),
        },
        Mode::Run if cli.interactive => {
            return exit_code(apy::repl::run(run_config(&cli, argv), Some(source)));
        }
        Mode::Run => match interp::run_with(&source, {
            let mut config = run_config(&cli, argv);
            config.timeline =
                match timeline_settings(&cli, apy::timeline::program_name(&source.name)) {
                    Ok(timeline) => timeline,
                    Err(status) => return status,
                };
            config
        }) {
            Ok(()) => Ok(()),
            Err(interp::Error::Diagnostic(diagnostic)) => Err(diagnostic),
            // The VM has already reported the exception or SystemExit message.
            Err(interp::Error::Exited(status)) => return ExitCode::from(status as u8),
        },
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(diagnostic) => report(&diagnostic, &source),
    }
}

/// `apy -m MODULE [ARGS]`, as `python -m`: `-m asyncio` opens the prompt, asyncio's REPL,
/// with ARGS as `sys.argv[1:]`; any other module is found as `import` finds it (the
/// current folder first, then apy's library) and run as `__main__` by runpy
/// (`src/stdlib/runpy.apy`), `sys.argv` `['-m', ARGS…]` until its file takes the first place.
fn run_module(cli: &Cli, module: &str, mode: &Mode) -> ExitCode {
    if module == "asyncio" && (*mode != Mode::Run || cli.timeline.is_some()) {
        eprintln!(
            "apy: -m asyncio opens the prompt: give it without --check, --ast, --dis or --timeline"
        );
        return ExitCode::from(2);
    }
    if *mode != Mode::Run {
        eprintln!("apy: -m {module} runs the module: give it without --check, --ast or --dis");
        return ExitCode::from(2);
    }
    let argv = std::iter::once("-m".to_string())
        .chain(
            cli.program
                .iter()
                .map(|arg| arg.to_string_lossy().into_owned()),
        )
        .collect();
    if module == "asyncio" {
        // CPython's sys.argv[0] is then asyncio's `__main__.py`, which apy does not have.
        return exit_code(apy::repl::run(run_config(cli, argv), None));
    }
    let runner = SourceFile {
        name: "<apy -m>".to_string(),
        text: format!(
            "__import__('runpy')._run_module_as_main({})\n",
            python_string_literal(module)
        ),
    };
    let mut config = run_config(cli, argv);
    config.vm.runs_module = true;
    // `python -m` puts the current folder itself first on sys.path, not `''`.
    let cwd = std::env::current_dir().unwrap_or_default();
    config.vm.sys_path = vec![cwd.to_string_lossy().into_owned()];
    config.timeline = match timeline_settings(cli, module.to_string()) {
        Ok(timeline) => timeline,
        Err(status) => return status,
    };
    match interp::run_with(&runner, config) {
        Ok(()) => ExitCode::SUCCESS,
        Err(interp::Error::Exited(status)) => exit_code(status),
        Err(interp::Error::Diagnostic(diagnostic)) => report(&diagnostic, &runner),
    }
}

/// The `--timeline` settings for a run of `program` (its name in the picture), if asked
/// for; when the file's extension names no format, says so and gives the exit status.
fn timeline_settings(
    cli: &Cli,
    program: String,
) -> Result<Option<apy::timeline::Settings>, ExitCode> {
    let Some(path) = &cli.timeline else {
        return Ok(None);
    };
    if let Err(message) = apy::timeline::Format::of(path) {
        eprintln!("apy: {message}");
        return Err(ExitCode::from(2));
    }
    Ok(Some(apy::timeline::Settings {
        to: apy::timeline::Destination::File(path.clone()),
        spacing: cli.timeline_spacing,
        program,
    }))
}

/// `text` as a Python string literal in single quotes.
fn python_string_literal(text: &str) -> String {
    let mut literal = String::from("'");
    for c in text.chars() {
        match c {
            '\\' | '\'' => {
                literal.push('\\');
                literal.push(c);
            }
            c if c.is_control() => literal.push_str(&format!("\\U{:08x}", c as u32)),
            c => literal.push(c),
        }
    }
    literal.push('\'');
    literal
}

/// The `--dis=NAME` error: what was asked for, and what there is.
fn no_such_function(code: &apy::compile::Code, name: &str, file: &str) -> String {
    let names = apy::compile::dis::function_names(code);
    if names.is_empty() {
        format!("--dis={name}: {file} defines no functions or classes")
    } else {
        format!(
            "--dis={name}: no function or class named '{name}' in {file}; it has: {}",
            names.join(", ")
        )
    }
}

/// The run's settings from the switches, with `argv` as `sys.argv`.
fn run_config(cli: &Cli, argv: Vec<String>) -> interp::Config {
    interp::Config {
        vm: apy::vm::Config {
            argv,
            clock: cli.clock,
            max_steps: cli.max_steps,
            time_limit: cli.time_limit,
            sys_path: Vec::new(),
            sandbox: cli.sandbox,
            unbuffered: cli.unbuffered
                || std::env::var_os("PYTHONUNBUFFERED").is_some_and(|v| !v.is_empty()),
            runs_module: false,
        },
        asyncio_debug: cli.asyncio_debug
            || std::env::var_os("PYTHONASYNCIODEBUG").is_some_and(|v| !v.is_empty()),
        trace: apy::common::trace::Settings {
            categories: match (cli.trace, &cli.trace_file) {
                (Some(Some(mask)), _) => mask,
                (Some(None), _) | (None, Some(_)) => apy::common::trace::DEFAULT_CATEGORIES,
                (None, None) => 0,
            },
            file: cli.trace_file.clone(),
        },
        explain: cli.explain,
        timeline: None,
        exiting: true,
    }
}

fn parse_spacing(text: &str) -> Result<apy::timeline::Spacing, String> {
    match text {
        "time" => Ok(apy::timeline::Spacing::Time),
        "iteration" => Ok(apy::timeline::Spacing::Iteration),
        _ => Err("expected 'time' or 'iteration'".into()),
    }
}

/// A status from the interpreter as the process's exit code (Unix keeps the low byte).
fn exit_code(status: i32) -> ExitCode {
    ExitCode::from(status as u8)
}

/// A `--time-limit` value: a positive number of seconds, fractions allowed.
fn parse_seconds(text: &str) -> Result<std::time::Duration, String> {
    match text.parse::<f64>() {
        // A limit too long for a `Duration` (`1e300`) is no limit at all.
        Ok(seconds) if seconds.is_finite() && seconds > 0.0 => {
            Ok(std::time::Duration::try_from_secs_f64(seconds).unwrap_or(std::time::Duration::MAX))
        }
        _ => Err(format!(
            "expected a positive number of seconds, got '{text}'"
        )),
    }
}

/// Writes to stdout; a reader that went away (`apy --ast f | head`) is not an error.
fn print_ignoring_closed_pipe(text: &str) {
    let _ = std::io::stdout().lock().write_all(text.as_bytes());
}

fn report(diagnostic: &Diagnostic, source: &SourceFile) -> ExitCode {
    emit_to_stderr(diagnostic, &source.name, &source.text);
    ExitCode::from(1)
}

/// Why no program text could be had.
enum Unreadable {
    /// A usage problem or an unopenable file: the message after `apy: `, exit status 2.
    Usage(String),
    /// The bytes are not UTF-8: a SyntaxError, exit status 1.
    Undecodable(SourceFile, Box<Diagnostic>),
    /// A folder given as the program has no `__main__.py`: the message after `apy: `,
    /// exit status 1, as python's.
    NoMain(String),
}

/// Reads the program named by the arguments and builds its `sys.argv`, as python does:
/// `['-c', ARGS…]`, `['-', ARGS…]`, `['', …]` for implicit stdin, or `[FILE, ARGS…]`.
fn read_program(cli: &Cli) -> Result<(SourceFile, Vec<String>), Unreadable> {
    let words = cli
        .program
        .iter()
        .map(|arg| arg.to_string_lossy().into_owned());
    if let Some(code) = &cli.command {
        let argv = std::iter::once("-c".to_string()).chain(words).collect();
        let source = SourceFile {
            name: "<string>".to_string(),
            text: code.clone(),
        };
        return Ok((source, argv));
    }
    let (name, bytes, argv0) = match cli.program.first() {
        Some(path) if path == "-" => (stdin_name(), read_stdin()?, "-".to_string()),
        // A folder runs its `__main__.py`, as python runs it (its `sys.argv[0]` the folder).
        Some(path) if Path::new(path).is_dir() => {
            let shown = absolute(Path::new(path));
            let main = shown.join("__main__.py");
            let bytes = std::fs::read(&main).map_err(|_| {
                Unreadable::NoMain(format!(
                    "can't find '__main__' module in '{}'",
                    shown.display()
                ))
            })?;
            let argv0 = path.to_string_lossy().into_owned();
            (main.to_string_lossy().into_owned(), bytes, argv0)
        }
        Some(path) => {
            let shown = absolute(Path::new(path));
            let bytes = std::fs::read(path).map_err(|error| {
                Unreadable::Usage(format!(
                    "can't open file '{}': {}",
                    shown.display(),
                    errno_text(&error)
                ))
            })?;
            let argv0 = path.to_string_lossy().into_owned();
            (shown.to_string_lossy().into_owned(), bytes, argv0)
        }
        None if std::io::stdin().is_terminal() => {
            return Err(Unreadable::Usage(
                "no program to read: give a FILE, or -c CODE (see apy --help)".to_string(),
            ));
        }
        None => (stdin_name(), read_stdin()?, String::new()),
    };
    let argv = std::iter::once(argv0).chain(words.skip(1)).collect();
    match SourceFile::decode(name.clone(), &bytes) {
        Ok(source) => Ok((source, argv)),
        Err(diagnostic) => Err(Unreadable::Undecodable(
            SourceFile::lossy(name, &bytes),
            Box::new(diagnostic),
        )),
    }
}

fn stdin_name() -> String {
    "<stdin>".to_string()
}

fn read_stdin() -> Result<Vec<u8>, Unreadable> {
    let mut bytes = Vec::new();
    std::io::stdin()
        .read_to_end(&mut bytes)
        .map_err(|error| Unreadable::Usage(format!("can't read standard input: {error}")))?;
    Ok(bytes)
}

/// The path as python shows it in "can't open file": joined to the current directory,
/// not normalised (`./x.apy` becomes `/cwd/./x.apy`).
fn absolute(path: &Path) -> PathBuf {
    match std::env::current_dir() {
        Ok(cwd) => cwd.join(path),
        Err(_) => path.to_path_buf(),
    }
}

/// An I/O error in Python's words: `[Errno 2] No such file or directory`.
fn errno_text(error: &std::io::Error) -> String {
    match error.raw_os_error() {
        Some(code) => {
            // Rust shows "No such file or directory (os error 2)"; Python puts the number first.
            let text = error.to_string();
            let reason = text
                .strip_suffix(&format!(" (os error {code})"))
                .unwrap_or(&text);
            format!("[Errno {code}] {reason}")
        }
        None => error.to_string(),
    }
}
