//! The `apy` command line, run as a process: switches, exit statuses and messages.
//!
//! Messages that copy CPython's say which `python3.13` command shows the original.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// Runs apy in `cwd` with `args`, feeding `stdin` (stdin is a pipe, never a terminal).
fn apy_in(cwd: &Path, args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_apy"))
        .args(args)
        .current_dir(cwd)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("apy starts");
    let mut pipe = child.stdin.take().expect("stdin is piped");
    // apy may exit before reading its input (a usage error): a closed pipe is not a failure.
    if let Err(error) = pipe.write_all(stdin) {
        assert_eq!(
            error.kind(),
            std::io::ErrorKind::BrokenPipe,
            "writing stdin: {error}"
        );
    }
    drop(pipe);
    child.wait_with_output().expect("apy finishes")
}

/// Runs apy where no test writes files.
fn apy(args: &[&str], stdin: &[u8]) -> Output {
    apy_in(Path::new(env!("CARGO_TARGET_TMPDIR")), args, stdin)
}

/// A fresh directory for one test's files (each test uses its own name).
fn scratch_dir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("cli")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

fn last_stderr_line(output: &Output) -> String {
    stderr(output).lines().last().unwrap_or("").to_string()
}

#[test]
fn version_prints_name_and_number() {
    let output = apy(&["--version"], b"");
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(stdout(&output), "apy 0.1.0\n");
}

#[test]
fn help_explains_every_switch() {
    let output = apy(&["--help"], b"");
    assert_eq!(output.status.code(), Some(0));
    let help = stdout(&output);
    for switch in ["-c <CODE>", "--ast", "--check", "--version", "FILE", "ARGS"] {
        assert!(help.contains(switch), "--help lacks {switch}:\n{help}");
    }
}

/// A switch apy does not know is named as one (python: "Unknown option: -Z"), not taken for
/// a file to open; after the program's FILE, every switch is the program's.
#[test]
fn unknown_switch_is_a_usage_error() {
    for switch in ["--no-such-switch", "-Z"] {
        let output = apy(&[switch, "prog.py"], b"");
        assert_eq!(output.status.code(), Some(2));
        assert_eq!(
            stderr(&output),
            format!("apy: unknown option: {switch}\nTry `apy --help' for more information.\n")
        );
    }
    let output = apy(&["-", "-Z"], b"import sys\nprint(sys.argv)\n");
    assert_eq!(stdout(&output), "['-', '-Z']\n");
}

#[test]
fn ast_and_check_together_are_a_usage_error() {
    let output = apy(&["--ast", "--check", "-c", "pass"], b"");
    assert_eq!(output.status.code(), Some(2));
}

#[test]
fn missing_file_is_reported_like_python() {
    // python3.13 no/such.apy: "…: can't open file '/cwd/no/such.apy': [Errno 2] No such file or directory"
    let cwd = scratch_dir("missing");
    let output = apy_in(&cwd, &["no/such.apy"], b"");
    assert_eq!(output.status.code(), Some(2));
    let expected = format!(
        "apy: can't open file '{}/no/such.apy': [Errno 2] No such file or directory\n",
        cwd.display()
    );
    assert_eq!(stderr(&output), expected);
    assert_eq!(stdout(&output), "");
}

#[test]
fn a_directory_runs_its_main_module_like_python() {
    // python3.13 lesson: runs lesson/__main__.py, sys.argv[0] the folder as given, sys.path[0]
    // the folder; with no __main__.py: "…: can't find '__main__' module in '/cwd/empty'", 1.
    let cwd = scratch_dir("directory");
    std::fs::create_dir(cwd.join("lesson")).unwrap();
    std::fs::write(
        cwd.join("lesson/__main__.py"),
        "import sys\nprint(sys.argv, __name__, __file__ == sys.path[0] + '/__main__.py')\n",
    )
    .unwrap();
    let output = apy_in(&cwd, &["lesson", "x"], b"");
    assert_eq!(stdout(&output), "['lesson', 'x'] __main__ True\n");
    assert_eq!(output.status.code(), Some(0));
    std::fs::create_dir(cwd.join("empty")).unwrap();
    let output = apy_in(&cwd, &["empty"], b"");
    assert_eq!(output.status.code(), Some(1));
    let expected = format!(
        "apy: can't find '__main__' module in '{}/empty'\n",
        cwd.display()
    );
    assert_eq!(stderr(&output), expected);
}

#[test]
fn non_utf8_file_is_a_syntax_error_with_pythons_message() {
    // printf 'x = 1\n# caf\xe9\n' > bad.py; python3.13 bad.py
    let cwd = scratch_dir("non_utf8");
    std::fs::write(cwd.join("bad.apy"), b"x = 1\n# caf\xe9\n").unwrap();
    let output = apy_in(&cwd, &["--check", "bad.apy"], b"");
    assert_eq!(output.status.code(), Some(1));
    let expected = format!(
        "SyntaxError: Non-UTF-8 code starting with '\\xe9' in file {}/bad.apy on line 2, \
         but no encoding declared; see https://peps.python.org/pep-0263/ for details",
        cwd.display()
    );
    assert_eq!(last_stderr_line(&output), expected);
    // The bad line is shown with the location.
    assert!(
        stderr(&output).contains("bad.apy:2:6"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn byte_order_mark_is_accepted() {
    let output = apy(&["--check", "-"], b"\xEF\xBB\xBFx = 1\n");
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
}

#[test]
fn check_accepts_a_valid_file_silently() {
    let cwd = scratch_dir("check_ok");
    std::fs::write(cwd.join("ok.apy"), "async def main():\n    await f()\n").unwrap();
    // Arguments after FILE belong to the program, even when they look like switches.
    let output = apy_in(&cwd, &["--check", "ok.apy", "--ast", "-x"], b"");
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(stdout(&output), "");
    assert_eq!(stderr(&output), "");
}

#[test]
fn check_reports_a_syntax_error_with_its_location() {
    // python3.13 bad.py (same text): last line "SyntaxError: expected ':'"
    let cwd = scratch_dir("check_bad");
    std::fs::write(cwd.join("bad.apy"), "x = 1\nif x > 1\n    pass\n").unwrap();
    let output = apy_in(&cwd, &["--check", "bad.apy"], b"");
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(stdout(&output), "");
    let shown = format!("{}/bad.apy:2:", cwd.display());
    assert!(stderr(&output).contains(&shown), "{}", stderr(&output));
    assert_eq!(last_stderr_line(&output), "SyntaxError: expected ':'");
}

#[test]
fn dash_c_names_the_program_string() {
    // python3.13 -c 'x = (': File "<string>", line 1 … SyntaxError: '(' was never closed
    let output = apy(&["--check", "-c", "x = ("], b"");
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr(&output).contains("<string>:1:5"),
        "{}",
        stderr(&output)
    );
    assert_eq!(
        last_stderr_line(&output),
        "SyntaxError: '(' was never closed"
    );
}

#[test]
fn dash_reads_the_program_from_stdin() {
    let output = apy(&["--check", "-"], b"def f(:\n    pass\n");
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr(&output).contains("<stdin>:1:"),
        "{}",
        stderr(&output)
    );
    assert!(last_stderr_line(&output).starts_with("SyntaxError: "));
}

#[test]
fn without_file_a_piped_stdin_is_the_program() {
    let output = apy(&["--ast"], b"x = 1\n");
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(stdout(&output).starts_with("Module(\n"));
}

#[test]
fn ast_prints_the_tree_like_python() {
    // python3.13 -c "import ast; print(ast.dump(ast.parse('print(1)'), indent=2))"
    let output = apy(&["--ast", "-c", "print(1)"], b"");
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let expected = "\
Module(
  body=[
    Expr(
      value=Call(
        func=Name(id='print', ctx=Load()),
        args=[
          Constant(value=1)]))])
";
    assert_eq!(stdout(&output), expected);
}

#[test]
fn ast_of_a_broken_program_is_the_syntax_error() {
    let output = apy(&["--ast", "-c", "print(1"], b"");
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(stdout(&output), "");
    assert_eq!(
        last_stderr_line(&output),
        "SyntaxError: '(' was never closed"
    );
}

#[test]
fn check_reports_compile_errors_too() {
    // python3.13 -c 'return 1': SyntaxError: 'return' outside function
    let output = apy(&["--check", "-c", "return 1"], b"");
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr(&output).contains("<string>:1:1"),
        "{}",
        stderr(&output)
    );
    assert_eq!(
        last_stderr_line(&output),
        "SyntaxError: 'return' outside function"
    );
}

/// `--clock virtual` jumps over sleeps: an hour of timers runs at once, in deadline order,
/// and the loop's time moves by exactly the slept amount.
#[test]
fn virtual_clock_jumps_to_the_next_timer() {
    let program = br#"import asyncio
async def w(name, d):
    await asyncio.sleep(d)
    print(name)
async def main():
    loop = asyncio.get_running_loop()
    t0 = loop.time()
    await asyncio.gather(w('late', 3600), w('early', 1800))
    print(round(loop.time() - t0, 6))
asyncio.run(main())
"#;
    let started = std::time::Instant::now();
    let output = apy(&["--clock", "virtual", "-"], program);
    assert_eq!(
        stdout(&output),
        "early\nlate\n3600.0\n",
        "{}",
        stderr(&output)
    );
    assert!(started.elapsed() < std::time::Duration::from_secs(30));
    let output = apy(&["--clock", "sundial", "-"], program);
    assert_eq!(output.status.code(), Some(2));
}

/// Runs `source` as a program file and sends Ctrl-C each time it prints the next of
/// `cues` on stdout; returns how apy ended.
fn interrupt_at_cues(name: &str, source: &str, cues: &[&str]) -> Output {
    use std::io::{BufRead, BufReader};
    let program = scratch_dir(name).join("program.apy");
    std::fs::write(&program, source).expect("write the program");
    let mut child = Command::new(env!("CARGO_BIN_EXE_apy"))
        .arg(&program)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("apy starts");
    let mut lines = BufReader::new(child.stdout.take().expect("stdout is piped")).lines();
    for cue in cues {
        let line = lines.next().expect("a line").expect("utf-8");
        assert_eq!(&line, cue);
        // SAFETY: sends SIGINT to the child this test started.
        unsafe {
            libc::kill(child.id() as libc::pid_t, libc::SIGINT);
        }
    }
    child.wait_with_output().expect("apy finishes")
}

/// Ctrl-C raises KeyboardInterrupt in the running code: a handler can catch it, and an
/// uncaught one prints its traceback and ends apy with 130, as a shell sees python end.
#[test]
fn ctrl_c_raises_keyboard_interrupt() {
    let output = interrupt_at_cues(
        "ctrl_c",
        "try:\n    print('ready', flush=True)\n    while True:\n        pass\n\
         except KeyboardInterrupt:\n    print('caught', flush=True)\nwhile True:\n    pass\n",
        &["ready", "caught"],
    );
    assert_eq!(output.status.code(), Some(130));
    assert_eq!(last_stderr_line(&output), "KeyboardInterrupt");
}

/// Ctrl-C ends the event loop's sleep until its next timer at once, as a signal ends
/// CPython's `select()`: the program does not wait out `asyncio.sleep(60)`.
#[test]
fn ctrl_c_ends_a_sleeping_event_loop() {
    let started = std::time::Instant::now();
    let output = interrupt_at_cues(
        "ctrl_c_sleep",
        "import asyncio\nasync def main():\n    print('sleeping', flush=True)\n    \
         await asyncio.sleep(60)\nasyncio.run(main())\n",
        &["sleeping"],
    );
    assert!(started.elapsed() < std::time::Duration::from_secs(30));
    assert_eq!(output.status.code(), Some(130));
    assert_eq!(last_stderr_line(&output), "KeyboardInterrupt");
}

/// `--time-limit` also ends a real-clock sleep that would outlast it.
#[test]
fn time_limit_ends_a_sleeping_event_loop() {
    let started = std::time::Instant::now();
    let output = apy(
        &["--time-limit", "1", "-"],
        b"import asyncio\nasyncio.run(asyncio.sleep(60))\n",
    );
    assert!(started.elapsed() < std::time::Duration::from_secs(30));
    assert_ne!(output.status.code(), Some(0), "{}", stderr(&output));
}

#[test]
fn import_prefers_apy_files_and_searches_the_scripts_folder() {
    // CPython would import m.py; apy looks for its own extension first.
    let dir = scratch_dir("import_prefers_apy");
    std::fs::create_dir_all(dir.join("lib")).expect("lib dir");
    std::fs::write(dir.join("lib/main.apy"), "import m\nprint(m.WHO)\n").expect("main");
    std::fs::write(dir.join("lib/m.apy"), "WHO = 'm.apy'\n").expect("m.apy");
    std::fs::write(dir.join("lib/m.py"), "WHO = 'm.py'\n").expect("m.py");
    // Run from the parent folder: the script's own folder is searched, not the current one.
    let output = apy_in(&dir, &["lib/main.apy"], b"");
    assert_eq!(stdout(&output), "m.apy\n", "{}", stderr(&output));
}

#[test]
fn dash_c_and_stdin_import_from_the_current_directory() {
    // `python3.13 -c 'import m'` searches '' (the current directory) first.
    let dir = scratch_dir("import_from_cwd");
    std::fs::write(dir.join("m.py"), "WHO = 'cwd'\n").expect("m.py");
    let output = apy_in(
        &dir,
        &["-c", "import m, sys; print(m.WHO, repr(sys.path[0]))"],
        b"",
    );
    assert_eq!(stdout(&output), "cwd ''\n", "{}", stderr(&output));
    // Found through '', a module's __file__ is still absolute, as importlib makes it.
    let output = apy_in(
        &dir,
        &["-"],
        b"import m\nprint(m.WHO, m.__file__.startswith('/'))\n",
    );
    assert_eq!(stdout(&output), "cwd True\n", "{}", stderr(&output));
}

#[test]
fn dash_c_and_stdin_are_loaded_by_the_builtin_importer() {
    // python3.13 -c 'print(__loader__, __spec__, list(globals())[:5])'
    let source = "print(__loader__, __spec__, list(globals())[:5])";
    let expected = "<class '_frozen_importlib.BuiltinImporter'> None \
                    ['__name__', '__doc__', '__package__', '__loader__', '__spec__']\n";
    let output = apy(&["-c", source], b"");
    assert_eq!(stdout(&output), expected, "{}", stderr(&output));
    // echo 'print(__loader__.find_spec("sys").origin)' | python3.13 -
    let output = apy(&["-"], b"print(__loader__.find_spec('sys').origin)\n");
    assert_eq!(stdout(&output), "built-in\n", "{}", stderr(&output));
}

#[test]
fn a_standard_module_apy_lacks_is_named_as_outside_the_subset() {
    // CPython's words first ("No module named 'tkinter'"), then where apy stops.
    let output = apy(&["-c", "import tkinter"], b"");
    assert_eq!(
        last_stderr_line(&output),
        "ModuleNotFoundError: No module named 'tkinter' (apy does not provide it yet: see the \
         subset chapter of apy's book)"
    );
    let output = apy(&["-c", "import no_such_thing"], b"");
    assert_eq!(
        last_stderr_line(&output),
        "ModuleNotFoundError: No module named 'no_such_thing'"
    );
}

#[test]
fn a_builtin_apy_lacks_is_named_as_outside_the_subset() {
    let output = apy(&["-c", "license()"], b"");
    assert_eq!(
        last_stderr_line(&output),
        "NameError: name 'license' is not defined (apy does not provide it yet: see the \
         subset chapter of apy's book)"
    );
    // A name CPython lacks too keeps CPython's message and suggestion.
    let output = apy(&["-c", "prnt(1)"], b"");
    assert_eq!(
        last_stderr_line(&output),
        "NameError: name 'prnt' is not defined. Did you mean: 'print'?"
    );
}

#[test]
fn a_submodule_of_a_cpython_package_apy_lacks_is_named_as_outside_the_subset() {
    // apy's `logging` is a plain module; CPython's is a package with `config` in it.
    let output = apy(&["-c", "import logging.config"], b"");
    assert_eq!(
        last_stderr_line(&output),
        "ModuleNotFoundError: No module named 'logging.config' \
         (apy does not provide it yet: see the subset chapter of apy's book)"
    );
    // A submodule CPython's package lacks too: CPython's words alone.
    let output = apy(&["-c", "import json.nonexistent"], b"");
    assert_eq!(
        last_stderr_line(&output),
        "ModuleNotFoundError: No module named 'json.nonexistent'"
    );
    // A module that is not a package in CPython either.
    let output = apy(&["-c", "import os.nothing"], b"");
    assert_eq!(
        last_stderr_line(&output),
        "ModuleNotFoundError: No module named 'os.nothing'; 'os' is not a package"
    );
}

#[test]
fn a_module_name_apy_lacks_is_named_as_outside_the_subset() {
    // os.forkpty exists in CPython and not in apy: no near miss ("Did you mean:
    // 'fork'?"), whether read as an attribute or imported.
    let output = apy(&["-c", "import os; os.forkpty()"], b"");
    assert_eq!(
        last_stderr_line(&output),
        "AttributeError: module 'os' has no attribute 'forkpty' \
         (apy does not provide it yet: see the subset chapter of apy's book)"
    );
    let output = apy(&["-c", "from os import forkpty"], b"");
    assert_eq!(
        last_stderr_line(&output),
        "ImportError: cannot import name 'forkpty' from 'os' \
         (apy does not provide it yet: see the subset chapter of apy's book)"
    );
    // A name CPython lacks too keeps CPython's message and suggestion (which for
    // `from a.b import c` CPython looks for in the top-level package `a`: none there).
    let output = apy(
        &["-c", "import concurrent.futures as f; f.ThreadPoolExecuter"],
        b"",
    );
    assert!(
        last_stderr_line(&output).ends_with("Did you mean: 'ThreadPoolExecutor'?"),
        "{}",
        stderr(&output)
    );
    let output = apy(
        &["-c", "from concurrent.futures import ThreadPoolExecuter"],
        b"",
    );
    assert_eq!(
        last_stderr_line(&output),
        "ImportError: cannot import name 'ThreadPoolExecuter' from 'concurrent.futures' \
         (concurrent/futures/__init__.py)"
    );
}

#[test]
fn dash_m_asyncio_opens_the_asyncio_repl() {
    // `python -m asyncio`, as the asyncio docs start their REPL: top-level await, asyncio
    // imported, ARGS in sys.argv[1:], even with standard input piped.
    let output = apy(
        &["-m", "asyncio", "one"],
        b"print(await asyncio.sleep(0, 'slept'))\nimport sys; print(sys.argv[1:])\n",
    );
    assert_eq!(stdout(&output), "slept\n['one']\n", "{}", stderr(&output));
    assert_eq!(output.status.code(), Some(0));
}

/// Writes `files` (path, text) under `dir`, making the folders on the way.
fn write_files(dir: &Path, files: &[(&str, &str)]) {
    for (path, text) in files {
        let path = dir.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
}

#[test]
fn dash_m_runs_a_module_or_package_from_the_current_folder_like_python() {
    // Each expectation below is what `python3.13 -m …` printed in the same folder.
    let cwd = scratch_dir("dash_m");
    write_files(
        &cwd,
        &[
            (
                "greet.py",
                "import sys\nprint(__name__, sys.argv[1:], sys.argv[0] == __file__, \
                 __file__.endswith('/greet.py'), __package__ == '', __spec__.name)\n\
                 print(repr(sys.modules[__name__]) == f\"<module 'greet' from {__file__!r}>\")\n",
            ),
            ("plain.py", "print('imported as', __name__)\n"),
            ("app/__init__.py", "print('app init', __name__)\n"),
            ("app/helper.py", "NAME = 'helper'\n"),
            (
                "app/__main__.py",
                "from . import helper\nprint('main', __name__, __package__, __spec__.name, \
                 helper.NAME)\n",
            ),
            ("app/tools/__init__.py", ""),
            (
                "app/tools/fail.py",
                "from ..helper import NAME\nprint(__package__, NAME)\n\
                 def boom():\n    raise ValueError('boom')\nboom()\n",
            ),
        ],
    );
    let output = apy_in(&cwd, &["-m", "greet", "a", "-v"], b"");
    assert_eq!(
        stdout(&output),
        "__main__ ['a', '-v'] True True True greet\nTrue\n",
        "{}",
        stderr(&output)
    );
    // A package runs its __main__, after its __init__; relative imports work.
    let output = apy_in(&cwd, &["-m", "app"], b"");
    assert_eq!(
        stdout(&output),
        "app init app\nmain __main__ app app.__main__ helper\n",
        "{}",
        stderr(&output)
    );
    // A traceback starts at runpy's frames (`<frozen runpy>`, no source line), as
    // CPython's does, and ends as it does.
    let output = apy_in(&cwd, &["-m", "app.tools.fail"], b"");
    assert_eq!(stdout(&output), "app init app\napp.tools helper\n");
    assert_eq!(output.status.code(), Some(1));
    let text = stderr(&output);
    let frames: Vec<&str> = text.lines().filter(|l| l.starts_with("  File")).collect();
    assert_eq!(frames.len(), 4, "{text}");
    assert!(
        frames[0].starts_with("  File \"<frozen runpy>\", line "),
        "{text}"
    );
    assert!(frames[0].ends_with(", in _run_module_as_main"), "{text}");
    assert!(frames[1].ends_with(", in _run_code"), "{text}");
    assert!(text.contains("/app/tools/fail.py\", line 5, in <module>\n    boom()\n"));
    assert_eq!(last_stderr_line(&output), "ValueError: boom");
    // What cannot be run is said as python says it, after the interpreter's path; exit 1.
    let exe = env!("CARGO_BIN_EXE_apy");
    for (module, message) in [
        ("nosuch", "No module named nosuch".to_string()),
        (
            "app.tools",
            "No module named app.tools.__main__; 'app.tools' is a package and cannot be \
             directly executed"
                .to_string(),
        ),
        (
            "plain.py",
            "Error while finding module specification for 'plain.py' (ModuleNotFoundError: \
             __path__ attribute not found on 'plain' while trying to find 'plain.py'). Try \
             using 'plain' instead of 'plain.py' as the module name."
                .to_string(),
        ),
        (
            "json",
            "No module named json.__main__; 'json' is a package and cannot be directly \
             executed"
                .to_string(),
        ),
    ] {
        let output = apy_in(&cwd, &["-m", module], b"");
        assert_eq!(output.status.code(), Some(1), "{module}");
        // (The parent package is imported first, as python imports it.)
        let imported = match module {
            "plain.py" => "imported as plain\n",
            "app.tools" => "app init app\n",
            _ => "",
        };
        assert_eq!(stdout(&output), imported);
        assert_eq!(last_stderr_line(&output), format!("{exe}: {message}"));
    }
    // One of apy's library modules runs when it has a command line (calendar's), and is
    // refused when CPython's has one but apy's has not.
    let output = apy_in(&cwd, &["-m", "calendar", "2024", "2"], b"");
    assert!(stdout(&output).starts_with("   February 2024\nMo Tu We Th Fr Sa Su\n"));
    let output = apy_in(&cwd, &["-m", "timeit", "1"], b"");
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        last_stderr_line(&output),
        format!(
            "{exe}: apy's library module 'timeit' has no command line (-m runs a library \
             module only when apy's has one)"
        )
    );
}

#[test]
fn dash_m_unittest_discovers_the_tests_of_the_current_folder() {
    // python3.13 -m unittest (-v): test*.py files here and in packages, sorted; a folder
    // without __init__.py is not searched.
    let cwd = scratch_dir("dash_m_unittest");
    let case = |name: &str, body: &str| {
        format!("import unittest\nclass {name}(unittest.TestCase):\n    {body}\n")
    };
    write_files(
        &cwd,
        &[
            (
                "test_math.py",
                &case("T", "def test_add(self): self.assertEqual(1 + 1, 2)"),
            ),
            ("pkg/__init__.py", ""),
            (
                "pkg/test_inner.py",
                &case("U", "def test_inner(self): pass"),
            ),
            (
                "loose/test_never.py",
                &case("V", "def test_never(self): pass"),
            ),
            (
                "helper.py",
                &case("W", "def test_not_a_test_file(self): pass"),
            ),
        ],
    );
    let output = apy_in(&cwd, &["-m", "unittest", "-v"], b"");
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let text = stderr(&output);
    let ran: Vec<&str> = text.lines().filter(|l| l.ends_with("... ok")).collect();
    assert_eq!(
        ran,
        [
            "test_inner (pkg.test_inner.U.test_inner) ... ok",
            "test_add (test_math.T.test_add) ... ok"
        ],
        "{text}"
    );
    let output = apy_in(&cwd, &["-m", "unittest", "discover", "-s", "pkg"], b"");
    assert!(
        stderr(&output).contains("Ran 1 test in "),
        "{}",
        stderr(&output)
    );
}

/// `sys.implementation` names apy, not CPython (PEP 421; the book's subset chapter says so).
#[test]
fn sys_implementation_names_apy() {
    let output = apy(
        &[
            "-c",
            "import sys; print(sys.implementation); print(sys.implementation.name)",
        ],
        b"",
    );
    assert_eq!(
        stdout(&output),
        "namespace(name='apy', cache_tag=None, version=(0, 1, 0, 'final', 0), \
         hexversion=65776)\napy\n"
    );
}

/// `--sandbox` refuses a change of owner as it refuses any other change to a file, after
/// the arguments are checked as CPython checks them (a file descriptor is named by the call).
#[test]
fn sandbox_refuses_changing_owners() {
    let program = "\
import os, shutil
for call in [lambda: os.chown('f', -1, -1), lambda: os.lchown('f', -1, -1),
             lambda: os.fchown(1, -1, -1), lambda: os.chown(1, -1, -1),
             lambda: shutil.chown('f', user=0), lambda: os.chown('f', 'x', -1)]:
    try:
        call()
        print('allowed')
    except Exception as e:
        print(type(e).__name__, e)
";
    let sandboxed = apy(&["--sandbox", "-c", program], b"");
    assert_eq!(
        stdout(&sandboxed),
        "PermissionError [Errno 1] Operation not permitted: 'f' (apy --sandbox)\n\
         PermissionError [Errno 1] Operation not permitted: 'f' (apy --sandbox)\n\
         PermissionError [Errno 1] Operation not permitted: 'os.fchown(1)' (apy --sandbox)\n\
         PermissionError [Errno 1] Operation not permitted: 'os.chown(1)' (apy --sandbox)\n\
         PermissionError [Errno 1] Operation not permitted: 'f' (apy --sandbox)\n\
         TypeError uid should be integer, not str\n"
    );
}

/// `--sandbox` refuses each file operation with a PermissionError naming the switch, before
/// anything reaches the disk; text-only work (path arithmetic, StringIO) and the program's
/// output are unchanged, and without the switch the same calls reach the file system. The
/// predicates `os.path.exists`, `isfile` and `isdir` answer False, as CPython's do when
/// their `stat` raises an OSError (the refusal is one), so that a program looking for a
/// file goes on as on a machine without it (mimetypes' `init`, zoneinfo's search).
#[test]
fn sandbox_refuses_files_and_nothing_else() {
    let dir = scratch_dir("sandbox");
    let program = "\
import io, os
print(os.path.join('a', 'b'), io.StringIO('text').read())
calls = [lambda: open('made.txt', 'w'), lambda: os.listdir('.'), lambda: os.remove('x'),
         lambda: os.getcwd(), lambda: os.mkdir('d'),
         lambda: os.makedirs('d/e'), lambda: os.rename('a', 'b'), lambda: os.chdir('..')]
for call in calls:
    try:
        call()
        print('allowed')
    except PermissionError as e:
        print(e.errno, e)
print([f(p) for f in (os.path.exists, os.path.isfile, os.path.isdir) for p in ('.', '/etc/hosts')])
open('made.txt', 'w')
";
    let sandboxed = apy_in(&dir, &["--sandbox", "-c", program], b"");
    let refused = "1 [Errno 1] Operation not permitted: 'made.txt' (apy --sandbox)\n";
    assert!(
        stdout(&sandboxed).starts_with("a/b text\n"),
        "{}",
        stdout(&sandboxed)
    );
    assert!(
        stdout(&sandboxed).contains(refused),
        "{}",
        stdout(&sandboxed)
    );
    assert_eq!(stdout(&sandboxed).matches("(apy --sandbox)").count(), 8);
    assert!(
        stdout(&sandboxed).contains("\n[False, False, False, False, False, False]\n"),
        "{}",
        stdout(&sandboxed)
    );
    assert_eq!(
        last_stderr_line(&sandboxed),
        "PermissionError: [Errno 1] Operation not permitted: 'made.txt' (apy --sandbox)"
    );
    assert_eq!(sandboxed.status.code(), Some(1));
    assert!(
        !dir.join("made.txt").exists(),
        "the sandbox let a file be made"
    );
    let free = apy_in(&dir, &["-c", "open('made.txt', 'w').write('x')"], b"");
    assert_eq!(free.status.code(), Some(0), "{}", stderr(&free));
    assert!(dir.join("made.txt").exists());
}

#[test]
fn sandbox_refuses_sockets_before_they_are_made() {
    let program = "\
import socket, asyncio
calls = [lambda: socket.socket(), lambda: socket.socketpair(),
         lambda: socket.create_connection(('127.0.0.1', 9)),
         lambda: socket.create_server(('127.0.0.1', 0))]
for call in calls:
    try:
        call()
        print('allowed')
    except PermissionError as e:
        print(e)
async def main():
    await asyncio.open_connection('127.0.0.1', 9)
asyncio.run(main())
";
    let sandboxed = apy(&["--sandbox", "-c", program], b"");
    assert_eq!(
        stdout(&sandboxed),
        "[Errno 1] Operation not permitted: network 'socket.socket' (apy --sandbox)\n\
         [Errno 1] Operation not permitted: network 'socket.socketpair' (apy --sandbox)\n\
         [Errno 1] Operation not permitted: network 'socket.create_connection' (apy --sandbox)\n\
         [Errno 1] Operation not permitted: network 'socket.create_server' (apy --sandbox)\n"
    );
    assert!(
        last_stderr_line(&sandboxed).starts_with("PermissionError: [Errno 1]"),
        "{}",
        stderr(&sandboxed)
    );
    let free = apy(
        &[
            "-c",
            "import socket\na, b = socket.socketpair()\nprint('made')",
        ],
        b"",
    );
    assert_eq!(stdout(&free), "made\n", "{}", stderr(&free));
}

/// sqlite3 under the sandbox: an in-memory database works, a database file is refused
/// before SQLite opens it, and SQL cannot reach a file either (ATTACH, VACUUM INTO).
#[test]
fn sandbox_refuses_sqlite_files() {
    let dir = scratch_dir("sandbox_sqlite");
    let program = "\
import sqlite3
con = sqlite3.connect(':memory:')
print(con.execute('SELECT 6 * 7').fetchone()[0])
print(sqlite3.connect('file:mem?mode=memory', uri=True).execute('SELECT 1').fetchone())
for sql in [\"ATTACH 'other.db' AS other\", \"VACUUM INTO 'copy.db'\"]:
    try:
        con.execute(sql)
        print('allowed')
    except sqlite3.OperationalError as e:
        print(e)
try:
    sqlite3.connect('data.db')
except PermissionError as e:
    print(e)
";
    let sandboxed = apy_in(&dir, &["--sandbox", "-c", program], b"");
    assert_eq!(
        stdout(&sandboxed),
        "42\n(1,)\ntoo many attached databases - max 0\n\
         too many attached databases - max 0\n\
         [Errno 1] Operation not permitted: 'data.db' (apy --sandbox)\n",
        "{}",
        stderr(&sandboxed)
    );
    for file in ["data.db", "other.db", "copy.db"] {
        assert!(!dir.join(file).exists(), "{file} was made");
    }
}

/// Starting a program or signalling one asks the gate first: subprocess, asyncio's
/// subprocesses and os.kill each give their PermissionError, and no child is started.
#[test]
fn sandbox_refuses_processes() {
    let program = "\
import asyncio, os, subprocess
calls = [lambda: subprocess.run(['echo', 'hi']), lambda: subprocess.check_output('ls', shell=True),
         lambda: os.kill(os.getpid(), 0)]
for call in calls:
    try:
        call()
        print('allowed')
    except PermissionError as e:
        print(e)
print(os.pipe() is not None)
for call in (os.fork, lambda: os._exit(3)):
    try:
        call()
    except PermissionError as e:
        print(e)
async def main():
    await asyncio.create_subprocess_exec('echo', 'hi')
asyncio.run(main())
";
    let sandboxed = apy(&["--sandbox", "-c", program], b"");
    let pid_call = stdout(&sandboxed)
        .lines()
        .nth(2)
        .unwrap_or_default()
        .to_string();
    assert_eq!(
        stdout(&sandboxed),
        format!(
            "[Errno 1] Operation not permitted: process 'echo' (apy --sandbox)\n\
             [Errno 1] Operation not permitted: process '/bin/sh' (apy --sandbox)\n\
             {pid_call}\nTrue\n\
             [Errno 1] Operation not permitted: process 'os.fork()' (apy --sandbox)\n\
             [Errno 1] Operation not permitted: process 'os._exit(3)' (apy --sandbox)\n"
        )
    );
    assert!(pid_call.starts_with("[Errno 1] Operation not permitted: process 'os.kill("));
    assert_eq!(
        last_stderr_line(&sandboxed),
        "PermissionError: [Errno 1] Operation not permitted: process 'echo' (apy --sandbox)"
    );
    let free = apy(
        &[
            "-c",
            "import subprocess\nprint(subprocess.run(['echo', 'hi']).returncode)",
        ],
        b"",
    );
    assert_eq!(stdout(&free), "hi\n0\n", "{}", stderr(&free));
}

/// A sandboxed program keeps the host's signal dispositions (an in-process fuzzer's
/// SIGALRM timer killed it silently once an input set SIGALRM back to SIG_DFL): only
/// SIGINT's handler may change, and `signal.alarm` is refused.
#[test]
fn sandbox_keeps_the_hosts_signals_but_sigint() {
    let program = "\
import signal
for call in [lambda: signal.signal(signal.SIGALRM, signal.SIG_DFL),
             lambda: signal.signal(signal.SIGTERM, lambda *a: None), lambda: signal.alarm(1)]:
    try:
        call()
        print('allowed')
    except PermissionError as e:
        print(e)
print(signal.getsignal(signal.SIGALRM))
signal.signal(signal.SIGINT, signal.SIG_IGN)
print(signal.getsignal(signal.SIGINT))
";
    let sandboxed = apy(&["--sandbox", "-c", program], b"");
    assert_eq!(
        stdout(&sandboxed),
        "[Errno 1] Operation not permitted: process 'signal.signal(14)' (apy --sandbox)\n\
         [Errno 1] Operation not permitted: process 'signal.signal(15)' (apy --sandbox)\n\
         [Errno 1] Operation not permitted: process 'signal.alarm(1)' (apy --sandbox)\n\
         0\n1\n",
        "{}",
        stderr(&sandboxed)
    );
    let free = apy(
        &[
            "-c",
            "import signal\nprint(signal.signal(signal.SIGTERM, signal.SIG_IGN), signal.alarm(0))",
        ],
        b"",
    );
    assert_eq!(stdout(&free), "0 0\n", "{}", stderr(&free));
}

#[test]
fn an_environment_variable_that_is_not_utf8_is_read_and_passed_on() {
    // `import os` stopped on it ("internal error"); now the value reads with U+FFFD (CPython
    // keeps the byte as a surrogate, which apy's str cannot hold) and a started program
    // gets the byte itself.
    use std::os::unix::ffi::OsStrExt;
    let program = "import os, subprocess\nprint(ascii(os.environ['APY_BYTES']))\n\
                   subprocess.run(['sh', '-c', 'printf %s \"$APY_BYTES\" | od -An -tx1'])\n";
    let output = Command::new(env!("CARGO_BIN_EXE_apy"))
        .args(["-c", program])
        .env("APY_BYTES", std::ffi::OsStr::from_bytes(b"a\xffb"))
        .output()
        .expect("apy runs");
    assert_eq!(stderr(&output), "");
    assert_eq!(stdout(&output), "'a\\ufffdb'\n 61 ff 62\n");
    assert!(output.status.success());
}

#[test]
fn check_shows_syntax_warnings_and_runs_nothing() {
    let dir = scratch_dir("check_warnings");
    std::fs::write(
        dir.join("w.py"),
        "print('ran')\nif len('a') is 1:\n    pass\nx = '\\d'\n",
    )
    .expect("written");
    let output = apy_in(&dir, &["--check", "w.py"], b"");
    assert_eq!(stdout(&output), "");
    // Named as a run names the main file, by its absolute path.
    let file = dir.join("w.py").display().to_string();
    assert_eq!(
        stderr(&output).replace(&file, "w.py"),
        "w.py:4: SyntaxWarning: invalid escape sequence '\\d'\n  x = '\\d'\n\
         w.py:2: SyntaxWarning: \"is\" with 'int' literal. Did you mean \"==\"?\n  \
         if len('a') is 1:\n"
    );
    assert!(output.status.success());
}

/// A codec CPython has and apy lacks is named as such; a name no codec has is just unknown.
#[test]
fn a_codec_apy_lacks_is_named_as_outside_the_subset() {
    let output = apy(&["-c", "'x'.encode('cp1252')"], b"");
    assert_eq!(
        last_stderr_line(&output),
        "LookupError: unknown encoding: cp1252 (a codec CPython has and apy does not provide \
         yet: apy's are UTF-8, UTF-16, UTF-32, ASCII and Latin-1)"
    );
    let output = apy(&["-c", "'x'.encode('nonsense')"], b"");
    assert_eq!(
        last_stderr_line(&output),
        "LookupError: unknown encoding: nonsense"
    );
}

#[test]
fn a_child_watcher_is_named_as_outside_the_subset() {
    let output = apy(&["-c", "import asyncio; asyncio.get_child_watcher()"], b"");
    assert_eq!(
        last_stderr_line(&output),
        "AttributeError: module 'asyncio' has no attribute 'get_child_watcher' \
         (apy does not provide it yet: see the subset chapter of apy's book)"
    );
}

#[test]
fn a_file_left_open_at_exit_is_written_out_in_full() {
    let dir = scratch_dir("unclosed_at_exit");
    let program =
        "log = open('out.txt', 'w')\nfor i in range(10000):\n    log.write('0123456789')\n";
    let output = apy_in(&dir, &["-c", program], b"");
    assert!(output.status.success(), "{}", stderr(&output));
    let written = std::fs::read(dir.join("out.txt")).expect("written");
    assert_eq!(written.len(), 100_000);
}

#[test]
fn names_cpython_modules_have_and_apy_lacks_are_named_as_outside_the_subset() {
    for (program, line) in [
        (
            "import sys; sys.addaudithook(print)",
            "AttributeError: module 'sys' has no attribute 'addaudithook'",
        ),
        (
            "import os; os.pathconf",
            "AttributeError: module 'os' has no attribute 'pathconf'",
        ),
        (
            "from os import pathconf",
            "ImportError: cannot import name 'pathconf' from 'os'",
        ),
    ] {
        let output = apy(&["-c", program], b"");
        assert_eq!(
            last_stderr_line(&output),
            format!("{line} (apy does not provide it yet: see the subset chapter of apy's book)")
        );
    }
    // A name CPython's module lacks too keeps CPython's words and near miss.
    let output = apy(&["-c", "import collections; collections.Countr"], b"");
    assert!(last_stderr_line(&output).ends_with("Did you mean: 'Counter'?"));
}
