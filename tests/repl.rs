//! The REPL, driven as a person drives it: through a pseudo-terminal (rexpect), with
//! keystrokes in and the screen's text out. Each test waits for what it expects (never a
//! fixed time where something can be waited for) and snapshots the transcript with insta,
//! after removing terminal escapes and carriage returns. `HOME` points at a fresh folder,
//! so the history file is the test's own. The last test feeds every conformance program to
//! the REPL line by line (through a pipe, for speed) and checks that nothing panics.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use rexpect::reader::Options;
use rexpect::session::{PtySession, spawn_with_options};

/// How long any one expected text may take to appear.
const TIMEOUT_MS: u64 = 20_000;

struct Repl {
    session: PtySession,
    transcript: String,
}

impl Repl {
    /// Starts `apy` (plus `args`) on a terminal with `home` as `$HOME`, and waits for the
    /// first prompt.
    fn start(home: &Path, args: &[&str]) -> Repl {
        let mut command = Command::new(env!("CARGO_BIN_EXE_apy"));
        command
            .args(args)
            .env("HOME", home)
            .env("NO_COLOR", "1")
            .env("TERM", "xterm");
        let options = Options::new().timeout_ms(Some(TIMEOUT_MS));
        let session = spawn_with_options(command, options).expect("apy starts on a pty");
        let mut repl = Repl {
            session,
            transcript: String::new(),
        };
        if args.is_empty() {
            // The banner ends with the `>>> import asyncio` that python -m asyncio shows.
            repl.expect(">>> import asyncio\r\n");
        }
        repl.expect(">>> ");
        repl
    }

    /// Waits for `text`, adding what came before it (and it) to the transcript.
    fn expect(&mut self, text: &str) {
        match self.session.exp_string(text) {
            Ok(before) => {
                self.transcript.push_str(&before);
                self.transcript.push_str(text);
            }
            Err(error) => panic!(
                "waiting for {text:?}: {error}\ntranscript so far:\n{}",
                self.transcript
            ),
        }
    }

    /// Sends keystrokes to the terminal.
    fn keys(&mut self, keys: &str) {
        self.session.send(keys).expect("typing");
        self.session.flush().expect("typing");
    }

    /// Sends `text` in one write, each newline an Enter, with no wait between lines: as a
    /// paste without bracketed paste, fast typing or a terminal multiplexer delivers it.
    fn at_once(&mut self, text: &str) {
        let keys = text.replace('\n', "\r");
        let sent = self.session.send(&keys).expect("typing");
        assert_eq!(sent, keys.len(), "one write");
        self.session.flush().expect("typing");
    }

    /// Types `line` and Enter, then waits for the next prompt (`>>> ` or `... `).
    fn enter(&mut self, line: &str, next_prompt: &str) {
        self.keys(&format!("{line}\r"));
        self.expect(line);
        self.expect("\r\n");
        self.expect(next_prompt);
    }

    /// Ends the session with Ctrl-D and returns the transcript, cleaned for a snapshot.
    fn finish(mut self) -> String {
        self.session.send_control('d').expect("ctrl-d");
        self.ended()
    }

    /// Waits for the session to end and returns the transcript, cleaned for a snapshot.
    fn ended(mut self) -> String {
        self.expect("exiting apy REPL...");
        let rest = self.session.exp_eof().unwrap_or_default();
        self.transcript.push_str(&rest);
        clean(&self.transcript)
    }
}

/// The transcript as a person would see it on the screen: the terminal output replayed
/// on a grid (carriage returns, clearing to the end of the line and cursor moves are what
/// the line editor uses to redraw), as UTF-8 again (the pty reader hands out one char per
/// byte), with trailing blanks trimmed.
fn clean(text: &str) -> String {
    let bytes: Vec<u8> = text.chars().map(|c| c as u32 as u8).collect();
    let text = String::from_utf8_lossy(&bytes);
    let mut screen: Vec<Vec<char>> = vec![Vec::new()];
    let (mut row, mut col) = (0usize, 0usize);
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\r' => col = 0,
            '\n' => {
                row += 1;
                col = 0;
                if screen.len() <= row {
                    screen.push(Vec::new());
                }
            }
            '\x1b' => {
                // A CSI sequence: parameters, then one final letter.
                if chars.peek() != Some(&'[') {
                    continue;
                }
                chars.next();
                let mut params = String::new();
                let mut last = ' ';
                for c in chars.by_ref() {
                    if c.is_ascii_alphabetic() || c == '~' {
                        last = c;
                        break;
                    }
                    params.push(c);
                }
                let n: usize = params.parse().unwrap_or(1);
                match last {
                    'C' => col += n,
                    'D' => col = col.saturating_sub(n),
                    'K' => screen[row].truncate(col),
                    _ => {}
                }
            }
            c if c.is_control() => {}
            c => {
                let line = &mut screen[row];
                while line.len() < col {
                    line.push(' ');
                }
                if col < line.len() {
                    line[col] = c;
                } else {
                    line.push(c);
                }
                col += 1;
            }
        }
    }
    screen
        .iter()
        .map(|line| line.iter().collect::<String>().trim_end().to_string())
        .collect::<Vec<_>>()
        .join("\n")
}

/// A fresh, empty folder to serve as `$HOME`.
fn fresh_home(name: &str) -> PathBuf {
    let home = std::env::temp_dir().join(format!("apy-repl-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&home);
    std::fs::create_dir_all(&home).expect("temp home");
    home
}

#[test]
fn a_multi_line_async_def_then_await() {
    let home = fresh_home("multi");
    let mut repl = Repl::start(&home, &[]);
    repl.enter("async def f(x):", "... ");
    repl.enter("    await asyncio.sleep(0.01)", "... ");
    repl.enter("    return x * 2", "... ");
    repl.enter("", ">>> ");
    repl.enter("await f(21)", ">>> ");
    repl.enter("_ + 1", ">>> ");
    insta::assert_snapshot!(repl.finish());
}

#[test]
fn a_background_task_prints_while_the_prompt_waits() {
    let home = fresh_home("background");
    let mut repl = Repl::start(&home, &[]);
    repl.enter("async def tick():", "... ");
    repl.enter("    for i in range(3):", "... ");
    repl.enter("        await asyncio.sleep(0.1)", "... ");
    repl.enter("        print('tick', i)", "... ");
    repl.enter("", ">>> ");
    repl.enter("t = asyncio.create_task(tick())", ">>> ");
    // Nothing is typed: the task runs while the prompt waits, printing above it.
    repl.expect("tick 0");
    repl.expect("tick 1");
    repl.expect("tick 2");
    repl.expect(">>> ");
    repl.enter("t.done()", ">>> ");
    insta::assert_snapshot!(repl.finish());
}

#[test]
fn an_exception_then_a_working_line() {
    let home = fresh_home("exception");
    let mut repl = Repl::start(&home, &[]);
    repl.enter("1 / 0", ">>> ");
    repl.enter("def g():", "... ");
    repl.enter("    raise ValueError('bad')", "... ");
    repl.enter("", ">>> ");
    repl.enter("g()", ">>> ");
    repl.enter("x = 1 +", ">>> ");
    repl.enter("x = 6 * 7", ">>> ");
    repl.enter("x", ">>> ");
    insta::assert_snapshot!(repl.finish());
}

#[test]
fn ctrl_c_interrupts_an_await_and_the_prompt_comes_back() {
    let home = fresh_home("interrupt");
    let mut repl = Repl::start(&home, &[]);
    // The entry runs only after the editor has given the terminal back, so once
    // `sleeping` shows, Ctrl-C is a signal, not a key for the editor.
    repl.keys("print('sleeping'); await asyncio.sleep(10)\r");
    repl.expect("print('sleeping'); await asyncio.sleep(10)");
    repl.expect("\r\nsleeping");
    let interrupted_at = Instant::now();
    repl.session.send_control('c').expect("ctrl-c");
    repl.expect("KeyboardInterrupt");
    repl.expect(">>> ");
    assert!(
        interrupted_at.elapsed() < Duration::from_secs(5),
        "Ctrl-C did not stop the sleep"
    );
    // Ctrl-C at the prompt drops the line being typed.
    repl.keys("forgotten");
    repl.expect("forgotten");
    repl.session.send_control('c').expect("ctrl-c");
    repl.expect("KeyboardInterrupt");
    repl.expect(">>> ");
    repl.enter("1 + 1", ">>> ");
    insta::assert_snapshot!(repl.finish());
}

#[test]
fn history_is_recalled_after_a_restart() {
    let home = fresh_home("history");
    let mut first = Repl::start(&home, &[]);
    first.enter("40 + 2", ">>> ");
    first.finish();
    assert!(home.join(".apy_history").exists(), "no ~/.apy_history");
    let mut second = Repl::start(&home, &[]);
    // Up arrow, then Enter: the line from the first session runs again.
    second.keys("\x1b[A");
    second.expect("40 + 2");
    second.keys("\r");
    second.expect("42");
    second.expect(">>> ");
    insta::assert_snapshot!(second.finish());
}

#[test]
fn tab_completes_an_attribute_after_a_dot() {
    let home = fresh_home("complete");
    let mut repl = Repl::start(&home, &[]);
    repl.keys("asyncio.create_t\t");
    repl.expect("asyncio.create_task(");
    repl.enter("asyncio.sleep(0)).get_name()", ">>> ");
    insta::assert_snapshot!(repl.finish());
}

#[test]
fn i_runs_a_file_then_opens_the_prompt_in_its_namespace() {
    let home = fresh_home("inspect");
    let file = home.join("prog.apy");
    std::fs::write(
        &file,
        "async def double(x):\n    return 2 * x\nname = 'prog'\n",
    )
    .expect("write");
    let mut repl = Repl::start(&home, &["-i", file.to_str().expect("utf-8 path")]);
    repl.enter("name", ">>> ");
    repl.enter("await double(4)", ">>> ");
    // A warning at the prompt names the entry (the third: `-i`'s file is none) and shows
    // its line, as in CPython 3.13.
    repl.keys("len(double(1))\r");
    repl.expect("<python-input-2>:1: RuntimeWarning: coroutine 'double' was never awaited");
    repl.expect("  len(double(1))");
    repl.expect(">>> ");
    insta::assert_snapshot!(repl.finish());
}

// ---- Lines that arrive together ------------------------------------------------------------
//
// The expectations below were taken from `PYENV_VERSION=3.13.0 python3.13 -m asyncio` in a
// pseudo-terminal. CPython runs a block pasted with bracketed paste as it runs a file, and
// keeps every byte of typeahead; its line editor (pyrepl) also auto-indents each typed line,
// so there a block with a dedent sent in one write without bracketed paste is garbled
// (`IndentationError: unexpected indent`): apy runs it as CPython runs the paste.

/// A 13-line block in one write: an `async def`, a class, a top-level `await`, statements
/// after it. CPython (bracketed paste): `tick 0`, `tick 1`, `5`.
#[test]
fn a_block_sent_in_one_write_runs_line_by_line() {
    let home = fresh_home("one-write");
    let mut repl = Repl::start(&home, &[]);
    repl.at_once(
        "async def ticker(n):\n\
         \x20   for i in range(n):\n\
         \x20       await asyncio.sleep(0.01)\n\
         \x20       print('tick', i)\n\
         \n\
         class Counter:\n\
         \x20   def __init__(self):\n\
         \x20       self.n = 0\n\
         \n\
         c = Counter()\n\
         await ticker(2)\n\
         c.n += 5\n\
         c.n\n",
    );
    repl.expect("tick 0");
    repl.expect("tick 1");
    repl.expect("\r\n5\r\n");
    repl.expect(">>> ");
    insta::assert_snapshot!(repl.finish());
}

/// Two blocks, each ended by an empty line, then a line, in one write; then another block
/// sent at once after it. CPython: `first 0`, `first 1`, `second 0`, `second 1`, `done`,
/// then `9`.
#[test]
fn a_block_followed_at_once_by_another() {
    let home = fresh_home("two-blocks");
    let mut repl = Repl::start(&home, &[]);
    repl.at_once(
        "for i in range(2):\n\
         \x20   print('first', i)\n\
         \n\
         for j in range(2):\n\
         \x20   print('second', j)\n\
         \n\
         print('done')\n",
    );
    repl.at_once("def square(x):\n    return x * x\n\nsquare(3)\n");
    repl.expect("first 1");
    repl.expect("second 1");
    repl.expect("done");
    repl.expect("square(3)");
    repl.expect("\r\n9\r\n");
    repl.expect(">>> ");
    insta::assert_snapshot!(repl.finish());
}

/// A bracketed paste is one entry in the history, and its lines run in order: the line
/// after a top-level `await` waits for it. Its last line had no newline: the paste waits
/// for Enter. CPython: `... `, then `a`, `b`, `c`.
#[test]
fn a_bracketed_paste_runs_its_lines_in_order() {
    let home = fresh_home("bracketed");
    let mut repl = Repl::start(&home, &[]);
    repl.at_once(
        "\x1b[200~print('a'); await asyncio.sleep(0.2); print('b')\n\
         print('c')\x1b[201~\n",
    );
    repl.expect("... ");
    repl.keys("\r");
    repl.expect("\r\na\r\nb\r\nc\r\n");
    repl.expect(">>> ");
    insta::assert_snapshot!(repl.finish());
}

/// A bracketed paste is one entry, as in CPython 3.13's REPL: its empty lines do not end
/// the class (both methods are in it), each statement runs in turn (a failing one is
/// shown and the next still runs), line numbers count from the paste's first line, and
/// only the last statement's value is echoed. Without a newline after its last line, the
/// paste waits for Enter. CPython: `2`, the traceback at `<python-input-0>`, line 9,
/// `after`, `'last'`; then for `1; 2` typed, only `2`.
#[test]
fn a_bracketed_paste_is_one_entry() {
    let home = fresh_home("paste-entry");
    let mut repl = Repl::start(&home, &[]);
    repl.at_once(
        "\x1b[200~class A:\n\
         \x20   def f(self):\n\
         \x20       return 1\n\
         \n\
         \x20   def g(self):\n\
         \x20       return 2\n\
         \n\
         print(A().g())\n\
         x = 1/0\n\
         'not echoed'\n\
         print('after')\n\
         'last'\x1b[201~\r",
    );
    repl.expect("... ");
    repl.keys("\r");
    repl.expect("\r\n2\r\n");
    repl.expect("File \"<python-input-0>\", line 9, in <module>");
    repl.expect("ZeroDivisionError: division by zero\r\nafter\r\n'last'\r\n");
    repl.expect(">>> ");
    repl.enter("1; 2", ">>> ");
    insta::assert_snapshot!(repl.finish());
}

/// `exit` typed bare leaves, as CPython 3.13's REPL commands do (`quit` too; `clear`
/// clears the screen), unless the session has a variable of that name: then it is an
/// expression like any other. CPython: `5`, then the session ends.
#[test]
fn exit_typed_bare_leaves_unless_it_is_a_variable() {
    let home = fresh_home("exit-command");
    let mut repl = Repl::start(&home, &[]);
    repl.enter("exit = 5", ">>> ");
    repl.enter("exit", ">>> ");
    repl.keys("clear\r");
    repl.expect("\x1b[H\x1b[2J");
    repl.expect(">>> ");
    repl.enter("del exit", ">>> ");
    repl.keys("exit\r");
    let transcript = repl.ended();
    // The commands are not kept in the history; `exit` as a variable's name is.
    let history = std::fs::read_to_string(home.join(".apy_history")).expect("history");
    let entries: Vec<&str> = history.lines().skip(1).collect();
    assert_eq!(entries, ["exit = 5", "exit", "del exit"], "{history}");
    insta::assert_snapshot!(transcript);
}

/// Lines typed while an entry sleeps are kept and run, in order, once it is done (the
/// terminal echoes them as they are typed, as under CPython). CPython: `awake`, then `43`,
/// `7`.
#[test]
fn typeahead_during_an_await_is_kept() {
    let home = fresh_home("typeahead");
    let mut repl = Repl::start(&home, &[]);
    repl.keys("print('sleeping'); await asyncio.sleep(1); print('awake')\r");
    repl.expect("\r\nsleeping");
    let typed_at = Instant::now();
    repl.at_once("x = 6 * 7\nx + 1\ndef f():\n    return 7\n\nf()\n");
    repl.expect("awake");
    assert!(
        typed_at.elapsed() > Duration::from_millis(500),
        "the lines typed ahead ran before the sleep ended"
    );
    repl.expect("\r\n43\r\n");
    repl.expect("\r\n7\r\n");
    repl.expect(">>> ");
    insta::assert_snapshot!(repl.finish());
}

/// `def f(:` and `1 +)` are errors on Enter (CPython: `invalid syntax` at the colon,
/// `unmatched ')'`), not a `... ` prompt; an open bracket still asks for more.
#[test]
fn impossible_input_is_an_error_at_once() {
    let home = fresh_home("impossible");
    let mut repl = Repl::start(&home, &[]);
    repl.keys("def f(:\r");
    repl.expect("SyntaxError");
    repl.expect(">>> ");
    repl.keys("1 +)\r");
    repl.expect("SyntaxError: unmatched ')'");
    repl.expect(">>> ");
    repl.enter("total = (1 +", "... ");
    repl.enter("2)", ">>> ");
    repl.enter("total", ">>> ");
    insta::assert_snapshot!(repl.finish());
}

/// A block is one history entry, recalled whole by Up; an entry abandoned with Ctrl-C is
/// not kept.
#[test]
fn history_keeps_a_block_as_one_entry() {
    let home = fresh_home("history-block");
    let mut repl = Repl::start(&home, &[]);
    repl.at_once("async def g():\n    return 5\n\n");
    repl.expect("    return 5");
    repl.expect("... ");
    repl.expect(">>> ");
    repl.enter("abandoned = (1,", "... ");
    repl.session.send_control('c').expect("ctrl-c");
    repl.expect("KeyboardInterrupt");
    repl.expect(">>> ");
    // Up: the block comes back whole; Enter, then an empty line, runs it again.
    repl.keys("\x1b[A");
    repl.expect("    return 5");
    repl.keys("\r");
    repl.expect("... ");
    repl.enter("", ">>> ");
    repl.enter("await g()", ">>> ");
    let transcript = repl.finish();
    let history = std::fs::read_to_string(home.join(".apy_history")).expect("history");
    let entries: Vec<&str> = history.lines().skip(1).collect();
    assert_eq!(
        entries,
        ["async def g():\\n    return 5", "await g()"],
        "{history}"
    );
    insta::assert_snapshot!(transcript);
}

/// Leaving while tasks are pending prints what `python3.13 -m asyncio` prints: nothing after
/// the goodbye (no "Task was destroyed but it is pending!", no `finally` run). A coroutine
/// dropped by an error at the prompt warns at its entry (`<python-input-N>`) and line.
#[test]
fn leaving_with_pending_tasks_reports_nothing() {
    let home = fresh_home("leave");
    let mut repl = Repl::start(&home, &[]);
    repl.at_once(
        "async def w():\n\
         \x20   try:\n\
         \x20       await asyncio.sleep(100)\n\
         \x20   finally:\n\
         \x20       print('cleanup')\n\
         \n\
         t = asyncio.create_task(w())\n\
         1 + w()\n",
    );
    repl.expect("<python-input-2>:1: RuntimeWarning: coroutine 'w' was never awaited");
    repl.expect("TypeError");
    repl.expect(">>> ");
    repl.keys("exit()\r");
    repl.expect("exiting apy REPL...");
    let rest = repl.session.exp_eof().unwrap_or_default();
    assert_eq!(rest.trim(), "", "printed after leaving");
    repl.transcript.push_str(&rest);
    insta::assert_snapshot!(clean(&repl.transcript));
}

/// The conformance corpus beside the repository (`../shared/conformance`), if it is there.
fn conformance_programs() -> Vec<PathBuf> {
    fn walk(dir: &Path, found: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                walk(&path, found);
            } else if path.extension().is_some_and(|e| e == "apy" || e == "py")
                && !path.ends_with("run.py")
                && !path.ends_with("regen.py")
            {
                found.push(path);
            }
        }
    }
    let mut found = Vec::new();
    walk(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/conformance"),
        &mut found,
    );
    found.sort();
    found
}

#[test]
fn no_conformance_program_fed_line_by_line_makes_the_repl_panic() {
    let programs = conformance_programs();
    if programs.is_empty() {
        eprintln!("skipped: no ../shared/conformance beside the repository");
        return;
    }
    let home = fresh_home("no-panic");
    let mut panicked = Vec::new();
    for program in &programs {
        let text = std::fs::read_to_string(program).unwrap_or_default();
        let mut child = Command::new(env!("CARGO_BIN_EXE_apy"))
            .args(["-i", "--clock", "virtual", "--time-limit", "10"])
            .env("HOME", &home)
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("apy starts");
        let mut stdin = child.stdin.take().expect("stdin");
        // Lines go in as typed; a write fails only when the REPL has already left.
        let writer = std::thread::spawn(move || {
            use std::io::Write;
            let _ = stdin.write_all(text.as_bytes());
            let _ = stdin.write_all(b"\n\n");
        });
        let deadline = Instant::now() + Duration::from_secs(30);
        while child.try_wait().ok().flatten().is_none() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
        // A program that waits forever at the prompt is not a panic: it is stopped here.
        let _ = child.kill();
        let output = child.wait_with_output().expect("apy ends");
        let _ = writer.join();
        let stderr = String::from_utf8_lossy(&output.stderr);
        if output.status.code() == Some(101) || stderr.contains("panicked") {
            panicked.push(format!("{}:\n{stderr}", program.display()));
        }
    }
    assert!(panicked.is_empty(), "{}", panicked.join("\n"));
}

/// An entry's exception stays in `sys.last_exc` (and `last_type`, `last_value`,
/// `last_traceback`), as in CPython's REPL, so that `pdb.pm()` can look into it.
#[test]
fn the_last_exception_is_kept_in_sys() {
    let home = fresh_home("last_exc");
    let mut repl = Repl::start(&home, &[]);
    repl.enter("int('x')", ">>> ");
    repl.enter("import sys", ">>> ");
    repl.enter("sys.last_exc is sys.last_value", ">>> ");
    repl.enter("sys.last_type.__name__", ">>> ");
    repl.enter("sys.last_traceback.tb_lineno", ">>> ");
    insta::assert_snapshot!(repl.finish());
}
