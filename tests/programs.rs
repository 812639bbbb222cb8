//! Runs every `tests/programs/**/*.apy` and every `examples/*.apy` with the apy binary and
//! compares it with what CPython 3.13 did (files written by `tests/bless.py`): stdout
//! exactly, the exit status (`.rc`, default 0), and the last line of stderr (`.err`) when
//! there is one; for the programs under `tracebacks/` and `warnings/`, the whole of stderr (`.stderr`);
//! a program with a `NAME.stdin` beside it reads that file on stdin (others read nothing);
//! paths under the program's folder are compared relative to it. A
//! test program's expected files sit beside it; an example's are in
//! `tests/examples/`, so `examples/` holds only what a learner runs.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn programs(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            programs(&path, out);
        } else if path.extension().is_some_and(|e| e == "apy") {
            out.push(path);
        }
    }
}

/// Runs `program` and compares it with the expected files `expected_stem.{out,rc,err}`.
fn check(program: &Path, expected_stem: &Path) -> Result<(), String> {
    let dir = program.parent().expect("programs live in folders");
    // What the program reads on stdin: `NAME.stdin` beside it, or nothing.
    let stdin =
        std::fs::File::open(program.with_extension("stdin")).map_or(Stdio::null(), Stdio::from);
    let output = Command::new(env!("CARGO_BIN_EXE_apy"))
        .arg(program.file_name().expect("a file"))
        .current_dir(dir)
        .stdin(stdin)
        .output()
        .map_err(|e| format!("cannot run apy: {e}"))?;
    let expected = |ext: &str| std::fs::read_to_string(expected_stem.with_extension(ext)).ok();
    // Paths are compared relative to the program's folder, in stdout too (a traceback that
    // `logging` or `traceback.print_exc` writes there names the program's file).
    let relative = |text: &str| text.replace(&format!("{}/", dir.display()), "");
    let stdout = relative(&String::from_utf8_lossy(&output.stdout));
    let want_out = expected("out").ok_or("missing .out: run tests/bless.py")?;
    if stdout != want_out {
        let line = stdout
            .lines()
            .zip(want_out.lines())
            .position(|(a, b)| a != b);
        return Err(format!(
            "stdout differs (first differing line {line:?}):\n--- got\n{stdout}\n--- expected\n{want_out}"
        ));
    }
    let want_rc: i32 = expected("rc").map_or(0, |rc| rc.trim().parse().unwrap_or(-1));
    let rc = output.status.code().unwrap_or(-1);
    if rc != want_rc {
        return Err(format!("exit status {rc}, expected {want_rc}"));
    }
    let stderr = String::from_utf8_lossy(&output.stderr);
    if let Some(want_stderr) = expected("stderr")
        && relative(&stderr) != want_stderr
    {
        return Err(format!(
            "stderr differs:\n--- got\n{stderr}\n--- expected\n{want_stderr}"
        ));
    }
    if let Some(want_err) = expected("err") {
        let last = stderr.lines().last().unwrap_or("");
        let last = relative(last);
        // Only the newline goes: a last line may end in a space ("KeyboardInterrupt: ").
        let want_err = want_err.trim_end_matches(['\n', '\r']);
        if last != want_err {
            return Err(format!("last stderr line {last:?}, expected {want_err:?}"));
        }
    }
    Ok(())
}

/// Checks every program under `root` against the expected files `expected_for` names.
fn check_all(root: &Path, expected_for: impl Fn(&Path) -> PathBuf) {
    let mut all = Vec::new();
    programs(root, &mut all);
    all.sort();
    assert!(!all.is_empty(), "no programs under {}", root.display());
    let failures: Vec<String> = all
        .iter()
        .filter_map(|p| {
            check(p, &expected_for(p))
                .err()
                .map(|e| format!("{}: {e}", p.strip_prefix(root).unwrap_or(p).display()))
        })
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {} programs differ from CPython:\n{}",
        failures.len(),
        all.len(),
        failures.join("\n\n")
    );
}

#[test]
fn programs_match_cpython() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/programs");
    check_all(&root, |program| program.with_extension(""));
}

#[test]
fn examples_match_cpython() {
    let crate_root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let expected_dir = crate_root.join("tests/examples");
    check_all(&crate_root.join("examples"), |program| {
        expected_dir.join(program.file_stem().expect("a file name"))
    });
}
