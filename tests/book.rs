//! Every example in the book (`book/src/*.md`) is a test: it runs with the apy binary and
//! `--clock virtual`, and what it prints must equal both the output printed under it in the
//! chapter and its insta snapshot (`tests/snapshots/book__<chapter>-<n>.snap`).
//! `book_agrees_with_cpython` runs `tests/book_cpython.py`, which checks the chapters against
//! CPython 3.13 when `python3.13` is installed.
//!
//! # Contributor note: how an example is written
//!
//! ````text
//! ```python                 an example: a whole program, run as /home/learner/lesson.apy
//! print("hi")
//! ```
//! ```text                   the next fenced block: what it prints on stdout
//! hi
//! ```
//! ```text,stderr            then, when it writes to stderr, a block with that (optional)
//! ```
//! ````
//! An example may be `{{#include ../../examples/NAME.apy}}` (mdBook's include, on a line of
//! its own): the book then shows, and this test runs, the runnable file in `examples/`.
//! Only blank lines may separate an example from its output blocks (so a ```` ```text ````
//! block after some prose is never taken for output); an example that prints nothing on
//! stdout has no ```` ```text ```` block. Tags go after `python`, comma-separated:
//! - `should_fail`: the program must exit with a non-zero status (its traceback goes in the
//!   `text,stderr` block, its exit status in the snapshot).
//! - `nondeterministic`: CPython, on its real clock, may print something else (say why in an
//!   HTML comment next to it); `tests/book_cpython.py` skips it.
//! - `args=--dis`: run as `apy --dis lesson.apy` (any one switch); apy-only, CPython skips it.
//! - `apy_differs`: apy disagrees with CPython here; the block shows CPython's output and this
//!   test checks that apy still differs (remove the tag once apy is fixed).
//!
//!
//! The REPL needs a terminal, so a REPL session is shown as a ```` ```text,repl ```` block,
//! which must be a run of whole lines from one of the transcripts `tests/repl.rs` snapshots
//! (`tests/snapshots/repl__*.snap`): those are checked against the real REPL.
//!
//! Output blocks are never written by hand: `python3 tests/book_cpython.py --bless` fills them
//! in (stdout from CPython 3.13, or from apy for `nondeterministic`/`args=` examples; stderr
//! from apy, since CPython's tracebacks name its own library files where apy's name apy's;
//! both from CPython for `apy_differs`). Then
//! `INSTA_UPDATE=always cargo test --test book` and read the `git diff`.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The folder every example appears to live in, in tracebacks and warnings.
const LEARNER_DIR: &str = "/home/learner";
/// The file name every example is saved under.
const LESSON_FILE: &str = "lesson.apy";
const TAGS: &[&str] = &["should_fail", "nondeterministic", "apy_differs"];

/// A fenced code block: its info string (`python,should_fail`), its text, the lines of its
/// opening and closing fences (1-based).
struct Block {
    info: String,
    body: String,
    line: usize,
    end: usize,
}

/// One ```` ```python ```` example with the output the chapter prints under it.
struct Example {
    /// `06-tasks-and-futures-03`: the chapter's file stem and the example's number in it.
    name: String,
    line: usize,
    source: String,
    tags: Vec<String>,
    switch: Option<String>,
    stdout: String,
    stderr: String,
}

/// What apy did with an example.
struct Outcome {
    stdout: String,
    stderr: String,
    status: i32,
}

fn fenced_blocks(markdown: &str) -> Result<Vec<Block>, String> {
    let mut blocks = Vec::new();
    let mut open: Option<Block> = None;
    for (number, line) in markdown.lines().enumerate() {
        let fence = line.strip_prefix("```");
        match (&mut open, fence) {
            (None, Some(info)) => {
                open = Some(Block {
                    info: info.trim().to_string(),
                    body: String::new(),
                    line: number + 1,
                    end: 0,
                })
            }
            (Some(block), Some(rest)) if rest.trim().is_empty() => {
                block.end = number + 1;
                blocks.extend(open.take());
            }
            (Some(block), _) => {
                block.body.push_str(line);
                block.body.push('\n');
            }
            (None, None) => {}
        }
    }
    match open {
        Some(block) => Err(format!("line {}: unclosed ``` block", block.line)),
        None => Ok(blocks),
    }
}

/// The examples of one chapter, each with the output blocks that follow it.
/// The example's program: its text, with each `{{#include PATH}}` line (mdBook's, PATH
/// relative to the chapter) replaced by that file.
fn program(body: &str, chapter_dir: &Path) -> Result<String, String> {
    let mut program = String::new();
    for line in body.lines() {
        match line
            .trim()
            .strip_prefix("{{#include ")
            .and_then(|l| l.strip_suffix("}}"))
        {
            Some(path) => {
                let text = std::fs::read_to_string(chapter_dir.join(path.trim()))
                    .map_err(|e| format!("cannot include {path}: {e}"))?;
                program.push_str(&text);
            }
            None => {
                program.push_str(line);
                program.push('\n');
            }
        }
    }
    Ok(program)
}

/// Output blocks follow their example with only blank lines in between.
fn examples(stem: &str, markdown: &str, chapter_dir: &Path) -> Result<Vec<Example>, String> {
    let blocks = fenced_blocks(markdown)?;
    let lines: Vec<&str> = markdown.lines().collect();
    let adjacent = |before: &Block, after: &Block| {
        lines[before.end..after.line - 1]
            .iter()
            .all(|l| l.trim().is_empty())
    };
    let mut examples = Vec::new();
    let mut i = 0;
    while i < blocks.len() {
        let block = &blocks[i];
        i += 1;
        let mut parts = block.info.split(',');
        if parts.next() != Some("python") {
            continue;
        }
        let mut tags = Vec::new();
        let mut switch = None;
        for tag in parts {
            if let Some(arg) = tag.strip_prefix("args=") {
                switch = Some(arg.to_string());
            } else if TAGS.contains(&tag) {
                tags.push(tag.to_string());
            } else {
                return Err(format!("line {}: unknown tag {tag:?}", block.line));
            }
        }
        let mut previous = block;
        let mut output = |info: &str| match blocks.get(i) {
            Some(next) if next.info == info && adjacent(previous, next) => {
                previous = next;
                i += 1;
                next.body.clone()
            }
            _ => String::new(),
        };
        let stdout = output("text");
        let stderr = output("text,stderr");
        examples.push(Example {
            name: format!("{stem}-{:02}", examples.len() + 1),
            line: block.line,
            source: program(&block.body, chapter_dir)
                .map_err(|e| format!("line {}: {e}", block.line))?,
            tags,
            switch,
            stdout,
            stderr,
        });
    }
    Ok(examples)
}

/// Runs an example as `/home/learner/lesson.apy` would run: saved in a scratch folder whose
/// path is then shown as `/home/learner`.
fn run(example: &Example) -> Result<Outcome, String> {
    let scratch =
        std::env::temp_dir().join(format!("apy-book-{}-{}", std::process::id(), example.name));
    std::fs::create_dir_all(&scratch).map_err(|e| format!("scratch folder: {e}"))?;
    let scratch = scratch
        .canonicalize()
        .map_err(|e| format!("scratch folder: {e}"))?;
    std::fs::write(scratch.join(LESSON_FILE), &example.source)
        .map_err(|e| format!("cannot save the example: {e}"))?;
    let mut command = Command::new(env!("CARGO_BIN_EXE_apy"));
    command.args(["--clock", "virtual", "--time-limit", "20"]);
    command.args(example.switch.iter());
    let output = command
        .arg(LESSON_FILE)
        .current_dir(&scratch)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run apy: {e}"))?;
    let _ = std::fs::remove_dir_all(&scratch);
    let shown = |bytes: &[u8]| {
        String::from_utf8_lossy(bytes).replace(&scratch.display().to_string(), LEARNER_DIR)
    };
    Ok(Outcome {
        stdout: shown(&output.stdout),
        stderr: shown(&output.stderr),
        status: output.status.code().unwrap_or(-1),
    })
}

/// The differences between the chapter and what apy printed, or `None` when they agree.
fn compare(example: &Example, got: &Outcome) -> Option<String> {
    let mut problems = Vec::new();
    for (stream, want, have) in [
        ("stdout (```text)", &example.stdout, &got.stdout),
        ("stderr (```text,stderr)", &example.stderr, &got.stderr),
    ] {
        if want != have {
            problems.push(format!("{stream} differs:\n{}", diff(want, have)));
        }
    }
    let should_fail = example.tags.iter().any(|t| t == "should_fail");
    if should_fail != (got.status != 0) {
        problems.push(format!(
            "exit status {} but the example is {}marked should_fail",
            got.status,
            if should_fail { "" } else { "not " }
        ));
    }
    (!problems.is_empty()).then(|| problems.join("\n"))
}

/// A line diff of the differing middle: `-` lines are in the book, `+` lines are what apy
/// printed.
fn diff(book: &str, apy: &str) -> String {
    let (book, apy): (Vec<&str>, Vec<&str>) = (book.lines().collect(), apy.lines().collect());
    let head = book.iter().zip(&apy).take_while(|(a, b)| a == b).count();
    let tail = book[head..]
        .iter()
        .rev()
        .zip(apy[head..].iter().rev())
        .take_while(|(a, b)| a == b)
        .count();
    let mut text = format!("  (after {head} equal lines)\n");
    for line in &book[head..book.len() - tail] {
        text += &format!("  - {line}\n");
    }
    for line in &apy[head..apy.len() - tail] {
        text += &format!("  + {line}\n");
    }
    text + &format!("  (then {tail} equal lines)\n")
}

fn snapshot(example: &Example, got: &Outcome) -> String {
    format!(
        "----- SOURCE\n{}----- STDOUT\n{}----- STDERR\n{}----- EXIT STATUS: {}\n",
        example.source, got.stdout, got.stderr, got.status
    )
}

fn chapters() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("book/src");
    let mut chapters: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("book/src exists")
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|e| e == "md"))
        .collect();
    chapters.sort();
    chapters
}

/// Every ```` ```text,repl ```` block of the book is a run of whole lines of a REPL transcript
/// that `tests/repl.rs` checks.
#[test]
fn every_repl_session_is_a_tested_transcript() {
    let snapshots = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/snapshots");
    let transcripts: Vec<String> = std::fs::read_dir(&snapshots)
        .expect("tests/snapshots exists")
        .flatten()
        .filter(|entry| entry.file_name().to_string_lossy().starts_with("repl__"))
        .filter_map(|entry| std::fs::read_to_string(entry.path()).ok())
        .map(|text| format!("\n{text}"))
        .collect();
    let mut sessions = 0;
    let mut failures = Vec::new();
    for chapter in chapters() {
        let markdown = std::fs::read_to_string(&chapter).expect("readable chapter");
        let blocks = fenced_blocks(&markdown).expect("chapter parses");
        for block in blocks.iter().filter(|b| b.info == "text,repl") {
            sessions += 1;
            let lines = format!("\n{}", block.body);
            if !transcripts.iter().any(|t| t.contains(&lines)) {
                failures.push(format!("{} line {}", chapter.display(), block.line));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "these REPL sessions are not part of any transcript tests/repl.rs checks \
         (tests/snapshots/repl__*.snap); copy them from one:\n{}",
        failures.join("\n")
    );
    assert!(sessions > 0, "the book shows no REPL session");
}

#[test]
fn every_example_prints_what_its_chapter_shows() {
    let mut failures = Vec::new();
    let mut outcomes = Vec::new();
    for chapter in chapters() {
        let stem = chapter
            .file_stem()
            .expect("a file")
            .to_string_lossy()
            .into_owned();
        let markdown = std::fs::read_to_string(&chapter).expect("readable chapter");
        let dir = chapter.parent().expect("chapters live in book/src");
        let examples = match examples(&stem, &markdown, dir) {
            Ok(examples) => examples,
            Err(e) => {
                failures.push(format!("{stem}.md: {e}"));
                continue;
            }
        };
        for example in examples {
            let got = match run(&example) {
                Ok(got) => got,
                Err(e) => {
                    failures.push(format!("{stem}.md line {}: {e}", example.line));
                    continue;
                }
            };
            let problem = compare(&example, &got);
            let differs = example.tags.iter().any(|t| t == "apy_differs");
            let where_ = format!(
                "{stem}.md, example {} (line {})",
                example.name, example.line
            );
            match (problem, differs) {
                (Some(problem), false) => failures.push(format!("{where_}:\n{problem}")),
                (None, true) => failures.push(format!(
                    "{where_}: apy now prints what the book shows: remove the apy_differs tag"
                )),
                _ => {}
            }
            outcomes.push((example, got));
        }
    }
    assert!(
        failures.is_empty(),
        "{} book example(s) disagree with apy (fill output blocks with \
         `python3 tests/book_cpython.py --bless`, never by hand):\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
    assert!(
        outcomes.len() >= 14,
        "the book has only {} examples",
        outcomes.len()
    );
    for (example, got) in &outcomes {
        insta::assert_snapshot!(example.name.as_str(), snapshot(example, got));
    }
}

/// Runs `tests/book_cpython.py`: every deterministic example prints under CPython 3.13 what
/// its chapter shows. Skipped (with a note) where `python3.13` is not installed.
#[test]
fn book_agrees_with_cpython() {
    let python = || {
        let mut command = Command::new("python3.13");
        command.env("PYENV_VERSION", "3.13.0");
        command
    };
    let present = python()
        .args(["-c", "pass"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !present {
        eprintln!("python3.13 is not installed: the book is not checked against CPython");
        return;
    }
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/book_cpython.py");
    let output = python().arg(script).output().expect("python3.13 runs");
    assert!(
        output.status.success(),
        "the book disagrees with CPython 3.13:\n{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}
