//! The sink of the machinery log behind `--trace`: the categories, this thread's category
//! mask, and the writer (stderr or the `--trace-file`, with the log's indentation). It knows
//! nothing of values, frames or loops: the events themselves are worded beside what they
//! describe, frames in `vm/trace.rs` (with the helpers that describe values without running
//! Python code) and the event loop, tasks, futures and async-generator hooks in
//! `asyncio/trace.rs`. Each event is a one-line call-site: an inline test of this thread's
//! category mask ([`on`]), then a `#[cold]` body, so tracing off costs one predictable
//! branch per event (and nothing when apy is built without the `trace` feature). The log
//! never runs Python code and never touches stdout, so a traced program prints exactly what
//! it prints untraced.
//!
//! # The format (stable; tests/trace.rs snapshots it)
//!
//! Every line starts with `trace| `. Lines inside a loop iteration are indented by two
//! spaces; `frames` lines are indented further by the depth of coroutines resuming
//! coroutines. Times are seconds since the loop first started, with three decimals (`t=0.100`);
//! under `--clock virtual` they are exact. Futures are named by type and a number given on
//! first mention (`Future#1`), tasks by their name (`Task-2`), coroutines as `main()`, and
//! places by line only (`line 7`), so a log does not depend on where the file lives. Values
//! are shown like `repr` for built-in types (cut at 60 characters) and as `<Foo object>`
//! for instances of user classes, whose `__repr__` is never called.
//!
//! | category  | line (after the `trace` prefix)                                      |
//! |-----------|----------------------------------------------------------------------|
//! | `loop`    | `loop starts running (virtual clock)` / `loop stops running`         |
//! | `loop`    | `iteration N, t=T` (N and T count from the loop's first run)         |
//! | `loop`    | `  call_soon f(args)` / `  timer scheduled (t=T): f(args)`           |
//! | `loop`    | `  timer fires (t=T): f(args)` / `  run (t=T): f(args)` (a timer)    |
//! | `loop`    | `  run f(args)` (a handle, or a done callback `f(Future#1)`)         |
//! | `loop`    | `  select waited 0.250s: fd 6 readable` (a select that blocked; under `--clock virtual` without the time: `select waited: …`) / `  select polled: fd 6 writable` (one that did not block, shown when something was ready); `nothing ready`, `fd 6 readable and writable`, `fd 6 … closed or failed` |
//! | `tasks`   | `  Task-2 created for job() by Task-1`                               |
//! | `tasks`   | `  Task-1 wakes up: Future#1 is done`                                |
//! | `tasks`   | `  Task-1 step: send None into main()` / `throw X into main()`       |
//! | `tasks`   | `  Task-2 job() line 4 > sleep() line 20 yielded Future#1: waits for it` (the await chain) |
//! | `tasks`   | `  Task-1 main() line 11 > sleep() line 14 yielded None (a bare yield): steps again soon` |
//! | `tasks`   | `  Task-1 main() returned 42` / `raised ValueError('x')` / `raised CancelledError(): cancelled` |
//! | `tasks`   | `  Task-2 cancel requested by Task-1 (msg='m')`; a `throw CancelledError()` step says `(cancellation delivered)` |
//! | `futures` | `  Future#1 finished result=None, schedules Task-1 wakeup`           |
//! | `futures` | `  Future#1 cancelled` / `Task-2 finished exception=ValueError('x')` |
//! | `hooks`   | `  asyncgen firstiter agen()` / `asyncgen finalizer agen()` / `aclose of agen() scheduled` / `shutdown_asyncgens closes N async generators` |
//! | `frames`  | `  > send None into main() at its start` / `  > throw X into job() line 3` |
//! | `frames`  | `  < main() line 8 yielded Future#1` / `returned 2` / `raised X`      |
//! | `threads` | `thread Thread-1 takes over: MainThread blocked in sleep` (`… in acquire`, `join`, `select`) / `…: Thread-1 finished` / `…: Thread-1 used up its switch interval` |
//!
//! `--trace` alone means `loop,tasks,futures,hooks,threads`; `--trace=all` adds `frames`.

use std::cell::{Cell, RefCell};
use std::io::Write;
use std::path::PathBuf;

/// One kind of event, a bit in the mask.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Category {
    Loop = 1,
    Tasks = 2,
    Futures = 4,
    Hooks = 8,
    Frames = 16,
    Threads = 32,
}

const CATEGORY_NAMES: [(&str, Category); 6] = [
    ("loop", Category::Loop),
    ("tasks", Category::Tasks),
    ("futures", Category::Futures),
    ("hooks", Category::Hooks),
    ("frames", Category::Frames),
    ("threads", Category::Threads),
];

/// The categories `--trace` without a list selects: all but `frames`.
pub const DEFAULT_CATEGORIES: u8 = 1 | 2 | 4 | 8 | 32;

/// What to trace and where: `--trace[=…]` and `--trace-file`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Settings {
    /// A mask of [`Category`] bits; 0 traces nothing.
    pub categories: u8,
    /// Write the log here instead of stderr.
    pub file: Option<PathBuf>,
}

/// Parses a `--trace=` list: comma-separated category names, or `all`.
pub fn parse_categories(text: &str) -> Result<u8, String> {
    let mut mask = 0;
    for word in text.split(',').map(str::trim).filter(|w| !w.is_empty()) {
        if word == "all" {
            mask |= DEFAULT_CATEGORIES | Category::Frames as u8;
            continue;
        }
        match CATEGORY_NAMES.iter().find(|(name, _)| *name == word) {
            Some((_, c)) => mask |= *c as u8,
            None => {
                return Err(format!(
                    "unknown trace category '{word}' (expected loop, tasks, futures, hooks, \
                     frames, threads or all)"
                ));
            }
        }
    }
    if mask == 0 {
        return Err("expected at least one trace category".into());
    }
    Ok(mask)
}

thread_local! {
    /// The categories whose events run their `#[cold]` body: those logged as text, plus
    /// those a recorder (`--timeline`) listens to.
    static MASK: Cell<u8> = const { Cell::new(0) };
    /// The categories logged as text.
    static TEXT: Cell<u8> = const { Cell::new(0) };
    static WRITER: RefCell<Writer> = RefCell::new(Writer::default());
}

/// Starts tracing on this (the interpreter's) thread. A trace file that cannot be created
/// is reported once on stderr and the log goes to stderr instead.
pub fn install(settings: &Settings) {
    if settings.categories == 0 || !cfg!(feature = "trace") {
        return;
    }
    let sink = match &settings.file {
        None => Sink::Stderr,
        Some(path) => match std::fs::File::create(path) {
            Ok(file) => Sink::File(std::io::LineWriter::new(file)),
            Err(error) => {
                crate::common::console::eprint(&format!(
                    "apy: can't write trace file '{}': {error}\n",
                    path.display()
                ));
                Sink::Stderr
            }
        },
    };
    WRITER.with(|w| w.borrow_mut().sink = sink);
    TEXT.with(|m| m.set(settings.categories));
    MASK.with(|m| m.set(m.get() | settings.categories));
}

/// Turns on the events of `categories` for a recorder (`--timeline`) without logging them
/// as text: their `#[cold]` bodies run, and [`text_on`] tells them whether to write a line.
/// Returns false when apy is built without the `trace` feature (no event is ever seen).
pub fn listen(categories: u8) -> bool {
    if !cfg!(feature = "trace") {
        return false;
    }
    MASK.with(|m| m.set(m.get() | categories));
    true
}

/// Whether events of `category` are logged as text (inside a `#[cold]` body, where [`on`]
/// may be true for a recorder alone).
pub fn text_on(category: Category) -> bool {
    TEXT.with(|m| m.get()) & category as u8 != 0
}

/// Whether events of `category` are traced or recorded: the one branch an event costs
/// when off.
#[inline(always)]
pub fn on(category: Category) -> bool {
    cfg!(feature = "trace") && MASK.with(|m| m.get()) & category as u8 != 0
}

#[derive(Default)]
enum Sink {
    #[default]
    Stderr,
    File(std::io::LineWriter<std::fs::File>),
}

#[derive(Default)]
struct Writer {
    sink: Sink,
    /// Inside a loop iteration: lines are indented by two spaces.
    in_loop: bool,
}

/// Marks whether the lines that follow belong to a loop iteration (indented by two spaces).
pub fn set_in_loop(in_loop: bool) {
    WRITER.with(|w| w.borrow_mut().in_loop = in_loop);
}

/// Writes one line, indented inside a loop iteration by two spaces plus `extra`. Before a
/// line goes to stderr, `flush_stdout` writes out what the program printed so far, so that
/// it comes first on a terminal or a shared pipe.
pub fn emit(extra: usize, text: &str, flush_stdout: impl FnOnce()) {
    WRITER.with(|w| {
        let mut w = w.borrow_mut();
        let indent = if w.in_loop { 2 } else { 0 } + extra;
        let line = format!("trace| {:indent$}{text}\n", "");
        match &mut w.sink {
            Sink::Stderr => {
                flush_stdout();
                crate::common::console::write(crate::common::console::Stream::Trace, &line);
            }
            Sink::File(file) => {
                let _ = file.write_all(line.as_bytes());
            }
        }
    });
}
