//! Any bytes through what runs before a program's first instruction (`apy --check`):
//! decoding, the lexer, indentation, the parser, the compiler, and the diagnostic shown
//! for an error. On the interpreter's own thread, as the command line does it. Nothing may
//! panic, overflow the stack or hang.
#![no_main]

use apy::interp::{self, SourceFile};
use apy::syntax::diagnostics::render_to_string;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let data = data.to_vec();
    let worker = interp::spawn_interpreter(move || {
        let name = "fuzz.apy".to_string();
        let source = match SourceFile::decode(name.clone(), &data) {
            Ok(source) => source,
            Err(diagnostic) => {
                let lossy = SourceFile::lossy(name, &data);
                render_to_string(&diagnostic, &lossy.name, &lossy.text);
                return;
            }
        };
        if let Err(diagnostic) = interp::check(&source) {
            render_to_string(&diagnostic, &source.name, &source.text);
        }
    });
    worker.expect("a thread").join().expect("no panic");
});
