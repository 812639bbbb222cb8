//! `apy --trace`: the machinery log of the programs in `tests/trace/*.apy` (four of them
//! copied from the conformance seeds), one insta snapshot per program and `--trace` mode,
//! with the program's own output interleaved as a reader sees it on a terminal. Each run
//! also checks that tracing leaves stdout and the exit status exactly as they are without it.
//! Then the other reports about the machinery: `--explain`'s notes, the call graph, the
//! deadlock report of `--clock virtual`, and how threads take turns under it.

use std::io::Read;
use std::path::Path;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

fn apy(args: &[&str], program: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_apy"))
        .args(args)
        .arg(program)
        .output()
        .expect("apy runs")
}

/// Runs apy with stdout and stderr on one pipe, as a terminal shows them.
fn apy_interleaved(args: &[&str], program: &Path) -> String {
    let (mut reader, writer) = std::io::pipe().expect("a pipe");
    let mut child = Command::new(env!("CARGO_BIN_EXE_apy"))
        .args(args)
        .arg(program)
        .stdout(writer.try_clone().expect("a second pipe end"))
        .stderr(writer)
        .spawn()
        .expect("apy starts");
    let mut text = String::new();
    reader.read_to_string(&mut text).expect("utf-8 output");
    child.wait().expect("apy finishes");
    text
}

/// The log of a `--trace` run with the program's output between its lines, after checking
/// that stdout and the exit status match a plain run.
fn traced(mode: &str, program: &Path) -> String {
    let plain = apy(&["--clock", "virtual"], program);
    let traced = apy(&[mode, "--clock", "virtual"], program);
    assert_eq!(
        String::from_utf8_lossy(&traced.stdout),
        String::from_utf8_lossy(&plain.stdout),
        "{mode} changed stdout of {}",
        program.display()
    );
    assert_eq!(traced.status.code(), plain.status.code());
    // Tracebacks name the program by its absolute path.
    apy_interleaved(&[mode, "--clock", "virtual"], program)
        .replace(env!("CARGO_MANIFEST_DIR"), "[ROOT]")
}

#[test]
fn each_program_traces_loop_tasks_futures_and_hooks() {
    insta::glob!("trace/*.apy", |path| {
        insta::assert_snapshot!(traced("--trace", path));
    });
}

#[test]
fn frames_show_each_send_and_throw_with_its_line() {
    let program = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/trace/cancel_resource.apy");
    insta::assert_snapshot!(traced("--trace=tasks,frames", &program));
}

#[test]
fn trace_file_takes_the_log_off_stderr() {
    let program = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/trace/future_demo.apy");
    let log = Path::new(env!("CARGO_TARGET_TMPDIR")).join("future_demo.trace");
    let out = apy(
        &[
            "--trace-file",
            log.to_str().expect("utf-8 path"),
            "--clock",
            "virtual",
        ],
        &program,
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout), "wake up!\n");
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
    let text = std::fs::read_to_string(&log).expect("the trace file was written");
    let both = traced("--trace", &program);
    let trace_lines: Vec<&str> = both.lines().filter(|l| l.starts_with("trace| ")).collect();
    assert_eq!(text, trace_lines.join("\n") + "\n");
}

#[test]
fn an_unknown_category_is_a_usage_error() {
    let program = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/trace/future_demo.apy");
    let out = apy(&["--trace=loop,timers"], &program);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("unknown trace category 'timers'"), "{err}");
}

/// stderr with `ms` durations blanked (`held the event loop for 253 ms` varies by machine).
fn steady_durations(text: &str) -> String {
    text.lines()
        .map(|line| match line.find(" for ").zip(line.find(" ms")) {
            Some((start, end)) if start < end => {
                format!("{} for N{}", &line[..start], &line[end..])
            }
            _ => line.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn explain_adds_a_note_under_each_mistake_and_changes_nothing_else() {
    insta::glob!("explain/*.apy", |path| {
        let plain = apy(&["--clock", "virtual"], path);
        let explained = apy(&["--explain", "--clock", "virtual"], path);
        assert_eq!(explained.stdout, plain.stdout);
        assert_eq!(explained.status.code(), plain.status.code());
        let stderr = String::from_utf8_lossy(&explained.stderr);
        let without_notes: Vec<&str> = stderr
            .lines()
            .filter(|l| !l.starts_with("explain| "))
            .collect();
        let plain_stderr = String::from_utf8_lossy(&plain.stderr);
        assert_eq!(without_notes, plain_stderr.lines().collect::<Vec<_>>());
        assert!(
            stderr.contains("explain| "),
            "no note for {}",
            path.display()
        );
        let both = apy_interleaved(&["--explain", "--clock", "virtual"], path);
        insta::assert_snapshot!(steady_durations(
            &both.replace(env!("CARGO_MANIFEST_DIR"), "[ROOT]")
        ));
    });
}

/// `asyncio.print_call_graph()` as CPython 3.14 prints it: each task, its coroutine chain
/// innermost first, and who awaits it (ids numbered under the virtual clock).
#[test]
fn print_call_graph_shows_who_awaits_whom() {
    let program = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/graph/call_graph.apy");
    let out = apy(&["--clock", "virtual"], &program);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    insta::assert_snapshot!(
        String::from_utf8_lossy(&out.stdout).replace(env!("CARGO_MANIFEST_DIR"), "[ROOT]")
    );
}

// `--clock virtual` ends a program whose event loop can never wake again (nothing ready,
// no timer, nothing else that could wake it) with a report naming each waiting task and its
// await chain, and exit status 1: the programs in `tests/deadlock/*.apy`, with `--explain`'s
// note. Under the real clock the same programs wait, as CPython's do, until `--time-limit`
// (or Ctrl-C: `tests/vm_limits.rs`).

#[test]
fn a_deadlock_under_the_virtual_clock_is_reported_and_ends_the_program() {
    insta::glob!("deadlock/*.apy", |path| {
        let plain = apy(&["--clock", "virtual"], path);
        assert_eq!(plain.status.code(), Some(1), "{}", path.display());
        let explained = apy(&["--clock", "virtual", "--explain"], path);
        assert_eq!(explained.status.code(), Some(1));
        assert_eq!(explained.stdout, plain.stdout);
        let stderr = String::from_utf8_lossy(&explained.stderr);
        let without_notes: Vec<&str> = stderr
            .lines()
            .filter(|l| !l.starts_with("explain| "))
            .collect();
        assert_eq!(
            without_notes,
            String::from_utf8_lossy(&plain.stderr)
                .lines()
                .collect::<Vec<_>>()
        );
        let shown = format!(
            "----- stdout\n{}----- stderr\n{stderr}",
            String::from_utf8_lossy(&explained.stdout)
        );
        insta::assert_snapshot!(shown.replace(env!("CARGO_MANIFEST_DIR"), "[ROOT]"));
    });
}

#[test]
fn under_the_real_clock_a_deadlock_waits_until_the_time_limit() {
    insta::glob!("deadlock/*.apy", |path| {
        let started = Instant::now();
        let out = apy(&["--time-limit", "0.5"], path);
        // Generous: a debug build on a loaded machine starts slowly; a hang takes forever.
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "{}",
            path.display()
        );
        assert_eq!(out.status.code(), Some(1));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains("apy: stopped after 0.500 seconds (--time-limit)"),
            "{stderr}"
        );
        assert!(!stderr.contains("apy: deadlock"), "{stderr}");
    });
}

/// Threads under `--clock virtual` (`tests/threads/*.apy`): the order they take turns in,
/// as `--trace=threads` shows it between the program's lines, is apy's documented rule
/// (`vm/threads.rs`) and the same on every run.
#[test]
fn threads_take_turns_in_the_same_order_on_every_run() {
    insta::glob!("threads/*.apy", |path| {
        let first = apy_interleaved(&["--trace=threads", "--clock", "virtual"], path);
        let second = apy_interleaved(&["--trace=threads", "--clock", "virtual"], path);
        assert_eq!(first, second, "{}", path.display());
        insta::assert_snapshot!(first.replace(env!("CARGO_MANIFEST_DIR"), "[ROOT]"));
    });
}
