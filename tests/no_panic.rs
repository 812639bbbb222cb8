//! The front end returns on any input: a module or a SyntaxError, never a panic or a crash.
//!
//! Fed to `parse_module` (and what parses, to the compiler): every prefix, cut at each token boundary, of the programs in
//! `tests/` and `examples/`; cuts of the shared conformance corpus when it sits beside the
//! repository (`../shared/conformance`); thousands of seeded random mutations of all of them;
//! and bracket nesting far deeper than CPython's limit. The corpus is large for a debug build,
//! so by default its cuts are taken per statement (see [`corpus_cuts`]); the ignored test
//! `every_prefix_of_the_corpus` cuts it exhaustively
//! (`cargo test --release --test no_panic -- --ignored`).

use std::collections::HashSet;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};

use apy::compile::{Mode, compile_module};
use apy::syntax::parse_module;

/// Parses `text` and compiles it when it parses; a panic fails the test and shows the input
/// that caused it.
fn assert_returns(text: &str, origin: &str) {
    let front_end = || {
        if let Ok(module) = parse_module(text) {
            let _ = compile_module(&module, text, "<test>", Mode::Exec);
        }
    };
    if catch_unwind(AssertUnwindSafe(front_end)).is_err() {
        panic!("the front end panicked on {origin}:\n-----\n{text}\n-----");
    }
}

fn crate_dir() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn apy_files_under(dir: &Path, found: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return; // an absent folder (the corpus outside CI) is skipped silently
    };
    let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    for path in paths {
        if path.is_dir() {
            apy_files_under(&path, found);
        } else if path.extension().is_some_and(|ext| ext == "apy") {
            found.push(path);
        }
    }
}

/// The programs of this repository (`tests/`, `examples/`), with their text.
fn own_programs() -> Vec<(String, String)> {
    let mut paths = Vec::new();
    for dir in ["tests/syntax_errors", "tests/ast_dump", "examples"] {
        apy_files_under(&crate_dir().join(dir), &mut paths);
    }
    read_all(paths)
}

/// The shared conformance corpus, or nothing when it is not beside the repository.
fn corpus_programs() -> Vec<(String, String)> {
    let mut paths = Vec::new();
    apy_files_under(&crate_dir().join("../shared/conformance"), &mut paths);
    read_all(paths)
}

fn read_all(paths: Vec<PathBuf>) -> Vec<(String, String)> {
    paths
        .into_iter()
        .filter_map(|path| {
            let text = std::fs::read_to_string(&path).ok()?;
            Some((path.display().to_string(), text))
        })
        .collect()
}

/// The byte offsets where a token may begin or end: wherever the kind of character changes
/// (word, space, other) and around every punctuation character.
fn token_boundaries(text: &str) -> Vec<usize> {
    #[derive(PartialEq)]
    enum Class {
        Word,
        Space,
        Punct,
    }
    let class = |c: char| {
        if c.is_alphanumeric() || c == '_' {
            Class::Word
        } else if c.is_whitespace() {
            Class::Space
        } else {
            Class::Punct
        }
    };
    let mut boundaries = vec![0];
    let mut previous: Option<Class> = None;
    for (offset, c) in text.char_indices() {
        let current = class(c);
        if previous
            .as_ref()
            .is_some_and(|p| *p != current || current == Class::Punct)
        {
            boundaries.push(offset);
        }
        previous = Some(current);
    }
    boundaries.push(text.len());
    boundaries
}

#[test]
fn every_prefix_of_the_own_programs() {
    for (origin, text) in own_programs() {
        for end in token_boundaries(&text) {
            assert_returns(&text[..end], &format!("{origin} cut at byte {end}"));
        }
    }
}

/// Pieces of `text` that reach the parser states a prefix would, at a fraction of the cost:
/// from the start of each top-level statement to every line end inside it (blocks, brackets
/// and strings left open), and each line on its own, dedented, cut at every token boundary.
fn corpus_cuts(text: &str) -> Vec<&str> {
    let mut cuts = Vec::new();
    let mut statement_start = 0;
    let mut line_start = 0;
    for line in text.split_inclusive('\n') {
        let starts_statement = line
            .chars()
            .next()
            .is_some_and(|c| !c.is_whitespace() && !matches!(c, '#' | ')' | ']' | '}'));
        if starts_statement {
            statement_start = line_start;
        }
        line_start += line.len();
        cuts.push(&text[statement_start..line_start]);
        let dedented = line.trim_start();
        for end in token_boundaries(dedented) {
            cuts.push(&dedented[..end]);
        }
    }
    cuts
}

#[test]
fn statement_cuts_of_the_corpus() {
    let programs = corpus_programs();
    // Many lines recur across programs (`print(`, `await asyncio.sleep(0)`): parse each once.
    let mut seen = HashSet::new();
    for (origin, text) in &programs {
        for cut in corpus_cuts(text) {
            if seen.insert(cut) {
                assert_returns(cut, &format!("a cut of {origin}"));
            }
        }
    }
}

#[test]
#[ignore = "exhaustive and slow in a debug build: run with --release -- --ignored"]
fn every_prefix_of_the_corpus() {
    for (origin, text) in corpus_programs() {
        for end in token_boundaries(&text) {
            assert_returns(&text[..end], &format!("{origin} cut at byte {end}"));
        }
    }
}

/// Marsaglia's xorshift64: a deterministic sequence without the rand crate.
struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A number in `0..bound` (`bound` > 0).
    fn below(&mut self, bound: usize) -> usize {
        (self.next() % bound as u64) as usize
    }
}

/// Bytes that matter to the lexer and the indentation stage, plus a few that are not UTF-8.
const INTERESTING: &[u8] = b"()[]{}:;,.=+-*/%<>!'\"\\#@\n\r\t fxrb0123456789_eEjJ\xc3\xa9\xff";

fn mutate(rng: &mut XorShift, program: &[u8]) -> Vec<u8> {
    let mut bytes = program.to_vec();
    for _ in 0..1 + rng.below(3) {
        let at = rng.below(bytes.len() + 1);
        match rng.below(4) {
            0 if at < bytes.len() => bytes[at] = INTERESTING[rng.below(INTERESTING.len())],
            1 => bytes.insert(at, INTERESTING[rng.below(INTERESTING.len())]),
            2 => {
                let end = (at + rng.below(8)).min(bytes.len());
                bytes.drain(at..end);
            }
            _ => {
                // Duplicate a short slice, like a pasted line.
                let end = (at + rng.below(16)).min(bytes.len());
                let slice = bytes[at..end].to_vec();
                let to = rng.below(bytes.len() + 1);
                bytes.splice(to..to, slice);
            }
        }
    }
    bytes
}

#[test]
fn random_mutations_parse_or_fail_cleanly() {
    let programs = [own_programs(), corpus_programs()].concat();
    let mut rng = XorShift(0x9E37_79B9_7F4A_7C15);
    for round in 0..3000 {
        let (origin, text) = &programs[rng.below(programs.len())];
        let mutated = mutate(&mut rng, text.as_bytes());
        let mutated = String::from_utf8_lossy(&mutated);
        assert_returns(&mutated, &format!("mutation {round} of {origin}"));
    }
}

#[test]
fn deep_bracket_nesting_is_an_error_not_a_crash() {
    // CPython 3.13: "SyntaxError: too many nested parentheses" for both.
    let open = "(".repeat(10_000);
    let balanced = format!("x = {}1{}\n", "[".repeat(10_000), "]".repeat(10_000));
    for text in [open, balanced] {
        assert!(
            parse_module(&text).is_err(),
            "10,000 nested brackets were accepted"
        );
    }
}
