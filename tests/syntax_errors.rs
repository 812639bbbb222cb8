//! Every broken program in `tests/syntax_errors/`: its rendered diagnostic is snapshot-tested,
//! and its last line must be the one CPython 3.13 prints for the same file
//! (`NAME.expected`, written by `tests/regen_syntax_errors.py`).

use std::path::Path;

use apy::interp::{self, SourceFile};
use apy::syntax::diagnostics::render_to_string;

fn fixture_name(path: &Path) -> String {
    path.file_name().unwrap().to_string_lossy().into_owned()
}

#[test]
fn each_fixture_renders_and_ends_like_cpython() {
    let mut mismatches = Vec::new();
    insta::glob!("syntax_errors/*.apy", |path| {
        let name = fixture_name(path);
        let source = SourceFile {
            name: name.clone(),
            text: std::fs::read_to_string(path).unwrap(),
        };
        let Err(diagnostic) = interp::check(&source) else {
            mismatches.push(format!("{name}: accepted, but CPython rejects it"));
            return;
        };
        let rendered = render_to_string(&diagnostic, &source.name, &source.text);
        insta::assert_snapshot!(format!(
            "----- SOURCE\n{}\n----- ERROR\n{rendered}",
            source.text
        ));
        let expected =
            std::fs::read_to_string(path.with_extension("expected")).unwrap_or_else(|_| {
                panic!("{name} has no .expected: run tests/regen_syntax_errors.py")
            });
        let last = rendered.lines().last().unwrap_or("");
        if last != expected.trim_end() {
            mismatches.push(format!("{name}:\n  apy:     {last}\n  CPython: {expected}"));
        }
    });
    assert!(
        mismatches.is_empty(),
        "last lines that differ from CPython 3.13's:\n{}",
        mismatches.join("\n")
    );
}

#[test]
fn there_are_enough_fixtures_and_each_has_an_expectation() {
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/syntax_errors");
    let fixtures: Vec<_> = std::fs::read_dir(&folder)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "apy"))
        .collect();
    assert!(fixtures.len() >= 35, "only {} fixtures", fixtures.len());
    for fixture in fixtures {
        assert!(
            fixture.with_extension("expected").exists(),
            "{} has no .expected",
            fixture_name(&fixture)
        );
    }
}
