//! `apy --ast` against CPython 3.13's `ast.dump(ast.parse(src), indent=2)` for every program
//! the tests run: `tests/programs/**/*.apy`, `examples/*.apy` and `tests/ast_dump/*.apy`
//! (programs covering every statement and expression kind).
//!
//! CPython's dumps are blessed files, `tests/ast_dump/cpython/<path>.ast`, written by
//! `tests/bless_ast.py` (never by hand); a program CPython cannot parse has a `.skip` file
//! there with the reason instead.

use std::path::{Path, PathBuf};

use apy::syntax::ast_dump::dump_module;
use apy::syntax::parse_module;

fn programs(dir: &Path, recurse: bool, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("a test folder").flatten() {
        let path = entry.path();
        if path.is_dir() {
            if recurse {
                programs(&path, recurse, out);
            }
        } else if path.extension().is_some_and(|e| e == "apy") {
            out.push(path);
        }
    }
}

/// The difference between apy's dump of `program` and CPython's, if there is one.
fn check(repo: &Path, program: &Path) -> Option<String> {
    let rel = program.strip_prefix(repo).expect("under the repository");
    let stem = repo
        .join("tests/ast_dump/cpython")
        .join(rel.with_extension(""));
    if stem.with_extension("skip").exists() {
        return None;
    }
    let Ok(want) = std::fs::read_to_string(stem.with_extension("ast")) else {
        return Some(format!(
            "{}: no CPython dump: run tests/bless_ast.py",
            rel.display()
        ));
    };
    let source = std::fs::read_to_string(program).expect("a readable program");
    let got = match parse_module(&source) {
        Ok(module) => dump_module(&module),
        Err(error) => return Some(format!("{}: apy cannot parse it: {error:?}", rel.display())),
    };
    if got == want {
        return None;
    }
    let line = got.lines().zip(want.lines()).position(|(a, b)| a != b);
    let line = line.unwrap_or_else(|| got.lines().count().min(want.lines().count()));
    let show = |text: &str| {
        text.lines()
            .skip(line.saturating_sub(3))
            .take(7)
            .collect::<Vec<_>>()
            .join("\n")
    };
    Some(format!(
        "{} differs at line {}:\n--- apy\n{}\n--- CPython\n{}",
        rel.display(),
        line + 1,
        show(&got),
        show(&want)
    ))
}

#[test]
fn every_program_dumps_like_cpython() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut all = Vec::new();
    programs(&repo.join("tests/programs"), true, &mut all);
    programs(&repo.join("examples"), true, &mut all);
    programs(&repo.join("tests/ast_dump"), false, &mut all);
    all.sort();
    assert!(all.len() > 200, "only {} programs found", all.len());
    let failures: Vec<String> = all.iter().filter_map(|p| check(repo, p)).collect();
    assert!(
        failures.is_empty(),
        "{} of {} programs dump differently from CPython:\n\n{}",
        failures.len(),
        all.len(),
        failures.join("\n\n")
    );
}
