//! `--dis` snapshots: the disassembly of representative functions, each checked by hand
//! against `python3.13 -m dis` of the same source when it was written.

use apy::compile::{Mode, compile_module, disassemble};
use apy::syntax::parse_module;

fn dis(source: &str) -> String {
    let module = parse_module(source).expect("parses");
    let code = compile_module(&module, source, "t.py", Mode::Exec).expect("compiles");
    disassemble(&code)
}

/// `APY_DIS=file.py cargo test --test dis print_file -- --nocapture` prints a file's
/// disassembly, to compare with `python3.13 -m dis file.py` while working on codegen.
#[test]
fn print_file() {
    if let Ok(path) = std::env::var("APY_DIS") {
        let source = std::fs::read_to_string(path).expect("readable");
        println!("{}", dis(&source));
    }
}

#[test]
fn print_errors() {
    if let Ok(path) = std::env::var("APY_ERRS") {
        let text = std::fs::read_to_string(path).expect("readable");
        for case in text.split("\n#----\n") {
            let (name, src) = case.split_once('\n').unwrap_or((case, ""));
            let result = parse_module(src)
                .map_err(|e| format!("syntax: {}", e.message))
                .and_then(|m| {
                    compile_module(&m, src, "t.py", Mode::Exec)
                        .map(|_| ())
                        .map_err(|e| format!("{} {:?}", e.message, e.span))
                });
            println!("{name} | {result:?}");
        }
    }
}
