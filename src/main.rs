//! The `apy` command: a stand-in until the CLI module lands (`apy FILE [ARGS...]`).

use std::process::ExitCode;

use apy::interp::{self, SourceFile};
use apy::syntax::diagnostics::emit_to_stderr;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(path) = args.first() else {
        eprintln!("usage: apy FILE [ARGS...]");
        return ExitCode::from(2);
    };
    let bytes = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(e) => {
            eprintln!("apy: can't open file '{path}': {e}");
            return ExitCode::from(2);
        }
    };
    let source = match SourceFile::decode(path.clone(), &bytes) {
        Ok(source) => source,
        Err(diagnostic) => {
            emit_to_stderr(
                &diagnostic,
                path,
                &SourceFile::lossy(path.clone(), &bytes).text,
            );
            return ExitCode::from(1);
        }
    };
    match interp::run(&source, &args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(interp::Error::Diagnostic(diagnostic)) => {
            emit_to_stderr(&diagnostic, &source.name, &source.text);
            ExitCode::from(1)
        }
        Err(interp::Error::Exited(status)) => ExitCode::from(status as u8),
    }
}
