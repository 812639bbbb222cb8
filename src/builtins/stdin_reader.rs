//! The process's stdin as `input()` and `sys.stdin` read it: buffered here rather than by
//! `std::io::stdin()`, so that apy knows when a read would block, and then waits for input in
//! `Vm::wait_ready`, where Ctrl-C raises `KeyboardInterrupt` and `--time-limit` stops the
//! program, instead of blocking in `read(2)` until a line comes (CPython's `input()` is
//! interrupted by Ctrl-C the same way).

use std::io::{self, BufRead, Read};
use std::sync::Mutex;

use crate::vm::{Exc, PyResult, Vm};

/// Bytes read from fd 0 and not yet consumed.
struct Buffer {
    bytes: Vec<u8>,
    at: usize,
}

static STDIN: Mutex<Buffer> = Mutex::new(Buffer {
    bytes: Vec::new(),
    at: 0,
});

/// How much one `read(2)` asks for.
const CHUNK: usize = 64 * 1024;

/// Runs `read` on the buffered stdin. A read that finds the buffer empty waits until fd 0
/// is readable; a Ctrl-C or the time limit during that wait ends `read` with the exception
/// it raises (what was consumed before it stays consumed).
pub fn with_stdin<T>(
    vm: &mut Vm,
    read: impl FnOnce(&mut dyn BufRead) -> io::Result<T>,
) -> PyResult<T> {
    let mut buffer = STDIN
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let mut input = Waiting {
        vm,
        buffer: &mut buffer,
        stopped: None,
    };
    let result = read(&mut input);
    if let Some(exc) = input.stopped.take() {
        return Err(exc);
    }
    result.map_err(|e| input.vm.os_error(&e, None))
}

/// The buffer, with the VM to wait in.
struct Waiting<'a> {
    vm: &'a mut Vm,
    buffer: &'a mut Buffer,
    /// What ended a wait (KeyboardInterrupt, the time limit's stop).
    stopped: Option<Exc>,
}

impl Waiting<'_> {
    /// Waits until fd 0 has input (or its end), then reads what is there.
    fn refill(&mut self) -> io::Result<()> {
        loop {
            if let Err(exc) = self.vm.wait_for_fd(0, libc::POLLIN) {
                self.stopped = Some(exc);
                return Err(io::Error::other("stopped while waiting for input"));
            }
            let buffer = &mut *self.buffer;
            buffer.bytes.resize(CHUNK, 0);
            buffer.at = 0;
            match io::stdin().lock().read(&mut buffer.bytes) {
                Ok(n) => {
                    buffer.bytes.truncate(n);
                    return Ok(());
                }
                Err(e) => {
                    buffer.bytes.clear();
                    if e.kind() != io::ErrorKind::Interrupted {
                        return Err(e);
                    }
                }
            }
        }
    }
}

impl Read for Waiting<'_> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let available = self.fill_buf()?;
        let n = available.len().min(out.len());
        out[..n].copy_from_slice(&available[..n]);
        self.consume(n);
        Ok(n)
    }
}

impl BufRead for Waiting<'_> {
    /// What is buffered; empty only at the end of input.
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        if self.buffer.at == self.buffer.bytes.len() {
            self.refill()?;
        }
        Ok(&self.buffer.bytes[self.buffer.at..])
    }

    fn consume(&mut self, n: usize) {
        self.buffer.at = (self.buffer.at + n).min(self.buffer.bytes.len());
    }
}
