//! Any bytes through what runs before a program's first instruction (`apy --check`):
//! decoding, the lexer, indentation, the parser, the compiler, and the diagnostic shown
//! for an error. On an interpreter thread (its large stack), as the command line does it:
//! one such thread for the whole process, handed each input in turn, since spawning one
//! per input (a 1 GB stack mapped, touched and unmapped) was a sixth of an execution; none
//! of these stages keeps state in the thread between inputs. Nothing may panic (libFuzzer's
//! panic hook aborts the process whichever thread panics), overflow the stack or hang.
#![no_main]

use std::sync::Mutex;
use std::sync::mpsc::{Receiver, Sender, channel};

use apy::interp::{self, SourceFile};
use apy::syntax::diagnostics::render_to_string;
use libfuzzer_sys::fuzz_target;

/// The interpreter thread's end of the work: inputs in, one message out as each is done.
struct Worker {
    inputs: Sender<Vec<u8>>,
    done: Receiver<()>,
}

static WORKER: Mutex<Option<Worker>> = Mutex::new(None);

fn start_worker() -> Worker {
    let (inputs, received) = channel::<Vec<u8>>();
    let (finished, done) = channel();
    interp::spawn_interpreter(move || {
        for data in received {
            check(&data);
            finished.send(()).expect("the fuzzer waits");
        }
    })
    .expect("a thread");
    Worker { inputs, done }
}

/// `apy --check` on `data`, showing the diagnostic of an error.
fn check(data: &[u8]) {
    let name = "fuzz.apy".to_string();
    let source = match SourceFile::decode(name.clone(), data) {
        Ok(source) => source,
        Err(diagnostic) => {
            let lossy = SourceFile::lossy(name, data);
            render_to_string(&diagnostic, &lossy.name, &lossy.text);
            return;
        }
    };
    if let Err(diagnostic) = interp::check(&source) {
        render_to_string(&diagnostic, &source.name, &source.text);
    }
}

fuzz_target!(|data: &[u8]| {
    let mut worker = WORKER.lock().expect("one fuzzing thread");
    let worker = worker.get_or_insert_with(start_worker);
    worker.inputs.send(data.to_vec()).expect("the worker runs");
    worker.done.recv().expect("the worker finishes each input");
});
