//! The program's output while the REPL runs: file descriptors 1 and 2 are pointed at one
//! pipe (one pipe keeps stdout and stderr in the order they were written), and a thread
//! hands what comes out of it to rustyline's `ExternalPrinter`, which prints above the
//! prompt being edited, so a background task's `print` never breaks the line you type.
//! Knows nothing of the VM; only `repl/mod.rs` uses it.

use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::sync::{Arc, Mutex};

use rustyline::ExternalPrinter;

/// The redirection, undone on drop.
pub struct Capture {
    /// Duplicates of the original stdout and stderr, put back on drop.
    saved: [OwnedFd; 2],
    /// The pipe's read end, shared with the forwarding thread.
    reader: Arc<OwnedFd>,
    /// Held by the forwarding thread while it reads and prints a chunk.
    busy: Arc<Mutex<()>>,
}

impl Capture {
    /// Starts forwarding fds 1 and 2 to `printer`; None when the pipe cannot be made.
    pub fn start(mut printer: impl ExternalPrinter + Send + 'static) -> Option<Capture> {
        let mut ends: [RawFd; 2] = [0; 2];
        // SAFETY: `pipe` fills the two descriptors it is given room for.
        if unsafe { libc::pipe(ends.as_mut_ptr()) } != 0 {
            return None;
        }
        // SAFETY: both ends were just created and are owned by nothing else.
        let (read_end, write_end) =
            unsafe { (OwnedFd::from_raw_fd(ends[0]), OwnedFd::from_raw_fd(ends[1])) };
        let saved = [duplicate(1)?, duplicate(2)?];
        for fd in [1, 2] {
            // SAFETY: dup2 onto the process's own stdout/stderr descriptors.
            unsafe { libc::dup2(write_end.as_raw_fd(), fd) };
        }
        drop(write_end);
        let reader = Arc::new(read_end);
        let busy = Arc::new(Mutex::new(()));
        let (thread_reader, thread_busy) = (reader.clone(), busy.clone());
        std::thread::Builder::new()
            .name("apy-output".into())
            .spawn(move || forward(&thread_reader, &thread_busy, &mut printer))
            .ok()?;
        Some(Capture {
            saved,
            reader,
            busy,
        })
    }

    /// Waits until everything written so far has been printed (before a prompt is drawn,
    /// so that a command's output never lands after the next prompt).
    pub fn drain(&self) {
        for _ in 0..1000 {
            let guard = self.busy.lock();
            if pending_bytes(self.reader.as_raw_fd()) == 0 {
                return;
            }
            drop(guard);
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
    }
}

impl Drop for Capture {
    fn drop(&mut self) {
        self.drain();
        for (fd, saved) in [1, 2].into_iter().zip(&self.saved) {
            // SAFETY: puts the original descriptors back.
            unsafe { libc::dup2(saved.as_raw_fd(), fd) };
        }
    }
}

fn duplicate(fd: RawFd) -> Option<OwnedFd> {
    // SAFETY: dup returns a new descriptor we own, or -1.
    let copy = unsafe { libc::dup(fd) };
    // SAFETY: a fresh descriptor owned by nothing else.
    (copy >= 0).then(|| unsafe { OwnedFd::from_raw_fd(copy) })
}

/// How many bytes wait in the pipe.
fn pending_bytes(fd: RawFd) -> libc::c_int {
    let mut count: libc::c_int = 0;
    // SAFETY: FIONREAD writes one int.
    if unsafe { libc::ioctl(fd, libc::FIONREAD, &mut count) } != 0 {
        return 0;
    }
    count
}

/// The forwarding thread: waits for output, then reads and prints it while holding `busy`.
fn forward(reader: &OwnedFd, busy: &Mutex<()>, printer: &mut impl ExternalPrinter) {
    let fd = reader.as_raw_fd();
    let mut buffer = vec![0u8; 1 << 16];
    // The start of a UTF-8 character split between two reads.
    let mut carry: Vec<u8> = Vec::new();
    loop {
        let mut poll = libc::pollfd {
            fd,
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: one pollfd, blocking until there is something to read.
        if unsafe { libc::poll(&mut poll, 1, -1) } < 0 {
            continue;
        }
        let _guard = busy.lock();
        // SAFETY: reads into a buffer of the given length.
        let n = unsafe { libc::read(fd, buffer.as_mut_ptr().cast(), buffer.len()) };
        if n <= 0 {
            return;
        }
        carry.extend_from_slice(&buffer[..n as usize]);
        let complete = match std::str::from_utf8(&carry) {
            Err(e) if e.error_len().is_none() => e.valid_up_to(),
            _ => carry.len(),
        };
        let text = String::from_utf8_lossy(&carry[..complete]).into_owned();
        carry.drain(..complete);
        if printer.print(text).is_err() {
            return;
        }
    }
}
