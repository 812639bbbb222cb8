//! asyncio's debug mode, checked on whole stderr: runs every `tests/debug/*.apy` with apy
//! and compares stdout with `NAME.out` and stderr with `NAME.stderr`, both captured from
//! CPython 3.13 (`cd tests/debug && python3.13 NAME.apy > NAME.out 2> NAME.stderr`;
//! in `tests/debug/env/` with `PYTHONASYNCIODEBUG=1` set).
//! Stderr is compared after normalising what cannot match: file paths (to their base
//! name), measured durations ("took N seconds"), and a " created at FILE:LINE" that points
//! into CPython's asyncio package (apy leaves those out: its library is elsewhere).

use std::path::Path;
use std::process::{Command, Stdio};

/// A path-like word reduced to its base name: `/a/b/file.py:7>` becomes `file.py:7>`.
fn base_name(word: &str) -> String {
    let Some(first_slash) = word.find('/') else {
        return word.to_string();
    };
    let start = word[..first_slash]
        .rfind(|c: char| !(c.is_alphanumeric() || "._-".contains(c)))
        .map_or(0, |i| i + 1);
    let last_slash = word.rfind('/').unwrap_or(first_slash);
    format!("{}{}", &word[..start], &word[last_slash + 1..])
}

fn normalize(text: &str) -> Vec<String> {
    text.lines()
        .map(|line| {
            let words: Vec<&str> = line.split(' ').collect();
            let mut out: Vec<String> = Vec::new();
            let mut i = 0;
            while i < words.len() {
                if words[i] == "created"
                    && words.get(i + 1) == Some(&"at")
                    && words.get(i + 2).is_some_and(|w| w.contains("asyncio/"))
                {
                    let closing = words[i + 2].trim_start_matches(|c| c != '>');
                    if let Some(last) = out.last_mut() {
                        last.push_str(closing);
                    }
                    i += 3;
                    continue;
                }
                if i > 0 && words[i - 1] == "took" {
                    out.push("N".into());
                } else {
                    out.push(base_name(words[i]));
                }
                i += 1;
            }
            out.join(" ")
        })
        .collect()
}

#[test]
fn normalize_keeps_what_apy_must_match() {
    assert_eq!(
        normalize(
            "<Task pending name='Task-1' created at /lib/asyncio/runners.py:100> \
             <Handle f() at /a/b.apy:7 created at /a/b.apy:15> took 0.121 seconds"
        ),
        ["<Task pending name='Task-1'> <Handle f() at b.apy:7 created at b.apy:15> took N seconds"]
    );
}

/// Runs `program` (in its folder) with `args` and `env`, and compares its output with the
/// captured `.out` and `.stderr` beside it.
fn check(program: &Path, args: &[&str], env: &[(&str, &str)]) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_apy"));
    command
        .args(args)
        .arg(program.file_name().expect("a file"))
        .current_dir(program.parent().expect("a folder"))
        .stdin(Stdio::null())
        .env_remove("PYTHONASYNCIODEBUG");
    for (k, v) in env {
        command.env(k, v);
    }
    let output = command.output().expect("apy runs");
    let expected = |ext: &str| {
        std::fs::read_to_string(program.with_extension(ext)).expect("captured from CPython")
    };
    assert_eq!(
        String::from_utf8_lossy(&output.stdout),
        expected("out"),
        "{} {args:?} {env:?}: stdout",
        program.display()
    );
    assert_eq!(
        normalize(&String::from_utf8_lossy(&output.stderr)),
        normalize(&expected("stderr")),
        "{} {args:?} {env:?}: stderr",
        program.display()
    );
}

#[test]
fn debug_mode_from_the_environment_or_the_switch() {
    let program = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/debug/env/env_and_flag.apy");
    check(&program, &[], &[("PYTHONASYNCIODEBUG", "1")]);
    check(&program, &["--asyncio-debug"], &[]);
}

#[test]
fn debug_mode_stderr_matches_cpython() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/debug");
    let mut programs: Vec<_> = std::fs::read_dir(&dir)
        .expect("tests/debug exists")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "apy"))
        .collect();
    programs.sort();
    assert!(!programs.is_empty());
    for program in programs {
        check(&program, &[], &[]);
    }
}
