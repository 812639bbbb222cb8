//! The one place that wires the stages together: source text in, a finished run out
//! (source → parse → compile → VM), with errors printed the way CPython prints them.
//! Mirrors what CPython's `Python/pythonrun.c` does for a file. The VM runs on a thread
//! with a large stack so that deep (but limited) recursion never overflows the native stack.

use crate::compile::{Mode, compile_module};
use crate::syntax::diagnostics::{Diagnostic, emit_to_stderr};
use crate::syntax::parse_module;
use crate::vm::{Config, Vm};

/// The interpreter thread's native stack: enough for `sys.setrecursionlimit`'s maximum.
const VM_STACK_BYTES: usize = 1 << 30;

/// A program's text and the name shown for it in messages.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourceFile {
    pub name: String,
    pub text: String,
}

/// Parses and compiles `source`, printing a SyntaxError on failure.
pub fn check(
    source: &SourceFile,
) -> Result<std::rc::Rc<crate::compile::bytecode::Code>, Diagnostic> {
    let module = parse_module(&source.text).map_err(Diagnostic::from)?;
    compile_module(&module, &source.text, &source.name, Mode::Exec)
        .map_err(|e| Diagnostic::syntax_error(e.message, e.span))
}

/// Runs `source` as the main module; returns the process exit status.
pub fn run(source: SourceFile, config: Config) -> i32 {
    let worker = std::thread::Builder::new()
        .name("apy".into())
        .stack_size(VM_STACK_BYTES)
        .spawn(move || {
            let code = match check(&source) {
                Ok(code) => code,
                Err(diagnostic) => {
                    emit_to_stderr(&diagnostic, &source.name, &source.text);
                    return 1;
                }
            };
            let mut vm = Vm::new(config);
            vm.run_main(&code, &source.text)
        });
    match worker.map(|handle| handle.join()) {
        Ok(Ok(status)) => status,
        _ => {
            eprintln!("apy: internal error: the interpreter thread failed");
            70
        }
    }
}
