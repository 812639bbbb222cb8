//! `apy --ast` for programs covering every statement and expression kind
//! (`tests/ast_dump/*.apy`), one insta snapshot per program.
//!
//! Each snapshot equals CPython's dump without the fields apy does not keep:
//! `PYENV_VERSION=3.13.0 python3.13 tests/python_ast_dump.py tests/ast_dump/NAME.apy`.

use apy::syntax::ast_dump::dump_module;
use apy::syntax::parse_module;

#[test]
fn each_program_dumps_like_python() {
    insta::glob!("ast_dump/*.apy", |path| {
        let source = std::fs::read_to_string(path).unwrap();
        let module =
            parse_module(&source).unwrap_or_else(|error| panic!("{}: {error:?}", path.display()));
        insta::assert_snapshot!(dump_module(&module));
    });
}
