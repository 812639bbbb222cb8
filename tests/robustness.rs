//! What no program or argument may do to apy (issue 23): crash it (exit 70, 134, 139), lose
//! the output it printed, or make its compiler quadratic. Each case is a reproducer a
//! fuzzing campaign or an adversarial tester found; the ones CPython 3.13 can answer are
//! under `tests/programs/robustness/` instead.

use std::io::Write;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

fn apy(args: &[&str]) -> Output {
    apy_with_stdin(args, "")
}

fn apy_with_stdin(args: &[&str], stdin: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_apy"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("apy runs");
    let mut input = child.stdin.take().expect("a pipe");
    input
        .write_all(stdin.as_bytes())
        .expect("apy reads its program");
    drop(input);
    child.wait_with_output().expect("apy ends")
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn last_stderr_line(output: &Output) -> String {
    let stderr = String::from_utf8_lossy(&output.stderr);
    stderr.lines().last().unwrap_or("").to_owned()
}

/// A time limit too long for a `Duration` is no limit, not a panic in argument parsing.
#[test]
fn a_huge_time_limit_is_no_limit() {
    let output = apy(&["--time-limit", "1e300", "-c", "print('ran')"]);
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    assert_eq!(stdout(&output), "ran\n");
}

/// Native iterators that wrap others count against the recursion limit: CPython 3.13
/// itself overflows its C stack here (exit 139); apy raises RecursionError.
#[test]
fn deeply_nested_maps_are_a_recursion_error() {
    let program = "m = iter([1])\nfor _ in range(300_000):\n    m = map(abs, m)\n\
                   print('built')\nprint(next(m))\n";
    let output = apy(&["-c", program]);
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    assert_eq!(stdout(&output), "built\n");
    assert_eq!(
        last_stderr_line(&output),
        "RecursionError: maximum recursion depth exceeded"
    );
}

/// An allocation that fails where no MemoryError can be raised aborts apy, but what the
/// program printed before is written out first (it used to be lost in the buffer). The
/// program grows until the allocator refuses, under a 1.6 GB address-space limit.
#[test]
fn output_survives_an_abort() {
    let program = "print('before')\ns = 'x' * 2**24\nparts = []\nwhile True:\n    \
                   parts.append(s.upper())\n";
    let output = Command::new("sh")
        .args(["-c", "ulimit -v 1600000 && exec \"$0\" -c \"$1\""])
        .arg(env!("CARGO_BIN_EXE_apy"))
        .arg(program)
        .stdin(Stdio::null())
        .output()
        .expect("sh runs");
    assert_eq!(stdout(&output), "before\n", "{output:?}");
    assert_ne!(output.status.code(), Some(0));
}

/// A class with one base takes its base's MRO: a chain of 5,000 subclasses is made at
/// once (the C3 merge made it cubic: 19.5 s in release).
#[test]
fn a_long_chain_of_subclasses_is_linear() {
    let program = "C = object\nfor i in range(5000):\n    C = type('C%d' % i, (C,), {})\n\
                   print(len(C.__mro__), C.__mro__[1].__name__)\n";
    let started = Instant::now();
    let output = apy(&["-c", program]);
    assert_eq!(stdout(&output), "5001 C4998\n", "{output:?}");
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "{:?}",
        started.elapsed()
    );
}

/// Constants and local names are found by hashing while a code object is compiled: a
/// function with 100,000 locals, each given its own constant, compiled in seconds (it
/// took 41 s with a linear search for each).
#[test]
fn compiling_many_constants_and_locals_is_linear() {
    let mut program = String::from("def f():\n");
    for i in 0..100_000 {
        program.push_str(&format!("    v{i} = {i}\n"));
    }
    program.push_str("    return v99999\nprint(f())\n");
    let started = Instant::now();
    let output = apy_with_stdin(&["-"], &program);
    assert_eq!(stdout(&output), "99999\n", "{output:?}");
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "{:?}",
        started.elapsed()
    );
}
