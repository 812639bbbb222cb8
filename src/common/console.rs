//! Where text leaves apy: the program's standard output, its standard error (tracebacks,
//! warnings, `--explain` notes, apy's own messages) and the `--trace` log. Natively these
//! are the process's stdout and stderr (the log goes to stderr). In a browser there is no
//! process: the embedder (`src/web.rs`) installs a sink that gets every piece of text with
//! the stream it belongs to, as it is written. Every write to stderr in the layers below the
//! command line goes through here (`tests/architecture.rs` checks it), so that nothing a
//! program or apy says is lost in the page.

/// The three streams a run writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stream {
    Stdout,
    Stderr,
    Trace,
}

/// The writer behind the program's buffered standard output (`vm::PROGRAM_STDOUT`):
/// natively, file descriptor 1 written directly. Not `std::io::Stdout`, which reports a
/// closed descriptor's writes (EBADF) as done, so that what the program printed was lost
/// without a word; here the error comes back, for the program to get it as CPython's
/// `OSError`/`BrokenPipeError` and for apy's exit to report it. No second buffer under
/// the program's either.
#[cfg(not(target_arch = "wasm32"))]
pub struct Stdout;

#[cfg(not(target_arch = "wasm32"))]
impl std::io::Write for Stdout {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        // SAFETY: writes from a live slice, at most its length.
        let written = unsafe { libc::write(1, bytes.as_ptr().cast(), bytes.len()) };
        match usize::try_from(written) {
            Ok(n) => Ok(n),
            Err(_) => Err(std::io::Error::last_os_error()),
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// How much of the program's output is buffered before it is written: natively 64 KiB; in
/// a browser nothing, so that each piece reaches the sink while the clock still shows the
/// time it was printed at.
pub const STDOUT_BUFFER: usize = if cfg!(target_arch = "wasm32") {
    0
} else {
    1 << 16
};

#[cfg(not(target_arch = "wasm32"))]
pub fn stdout() -> Stdout {
    Stdout
}

/// Writes `text` to standard error (the `--trace` log too, natively): what the program
/// printed and is still buffered must have been flushed first by the caller.
#[cfg(not(target_arch = "wasm32"))]
pub fn write(stream: Stream, text: &str) {
    use std::io::Write;
    let _ = match stream {
        Stream::Stdout => std::io::stdout().write_all(text.as_bytes()),
        Stream::Stderr | Stream::Trace => std::io::stderr().write_all(text.as_bytes()),
    };
}

/// Whether the stream is a terminal (`sys.stdout.isatty()`): never in a browser.
pub fn is_terminal(stream: Stream) -> bool {
    use std::io::IsTerminal;
    !cfg!(target_arch = "wasm32")
        && match stream {
            Stream::Stdout => std::io::stdout().is_terminal(),
            Stream::Stderr | Stream::Trace => std::io::stderr().is_terminal(),
        }
}

/// Writes `text` to standard error.
pub fn eprint(text: &str) {
    write(Stream::Stderr, text);
}

/// Writes bytes to standard error (`sys.stderr.buffer.write`): as they are natively, as
/// text in a browser (an invalid sequence shown as U+FFFD).
pub fn eprint_bytes(bytes: &[u8]) {
    #[cfg(not(target_arch = "wasm32"))]
    {
        use std::io::Write;
        let _ = std::io::stderr().write_all(bytes);
    }
    #[cfg(target_arch = "wasm32")]
    write(Stream::Stderr, &String::from_utf8_lossy(bytes));
}

#[cfg(target_arch = "wasm32")]
pub use web::{Stdout, install, stdout, write};

/// The browser's side: a sink installed by the embedder.
#[cfg(target_arch = "wasm32")]
mod web {
    use std::cell::RefCell;

    use super::Stream;

    /// What receives every piece of text: the stream and the text.
    pub type Sink = Box<dyn FnMut(Stream, &str)>;

    thread_local! {
        static SINK: RefCell<Option<Sink>> = RefCell::new(None);
    }

    /// Sends all that is written from now on to `sink` (None: drops it).
    pub fn install(sink: Option<Sink>) {
        SINK.with(|s| *s.borrow_mut() = sink);
    }

    pub fn write(stream: Stream, text: &str) {
        SINK.with(|s| {
            if let Some(sink) = s.borrow_mut().as_mut() {
                sink(stream, text);
            }
        });
    }

    /// The program's standard output as a writer (whole UTF-8 text arrives: `print` and
    /// `sys.stdout.write` write `str`s, unbuffered here).
    pub struct Stdout;

    pub fn stdout() -> Stdout {
        Stdout
    }

    impl std::io::Write for Stdout {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            write(Stream::Stdout, &String::from_utf8_lossy(bytes));
            Ok(bytes.len())
        }

        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
}
