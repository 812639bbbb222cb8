//! apy in a browser: the entry point the page's JavaScript calls (built for
//! `wasm32-unknown-unknown` with wasm-bindgen by `book/web.sh`; the page side is in
//! `book/src/web/`).
//!
//! [`run`] runs one program as `apy --sandbox --clock virtual` would: no files, sockets or
//! processes, and a clock that jumps instead of waiting, so a `sleep(1)` costs nothing here
//! and the page replays the output at the times it was printed. What the program writes
//! reaches the page while it runs, through the options object's `output(stream, time,
//! text)`: `stream` is `"stdout"`, `"stderr"` or `"trace"`, `time` the virtual seconds since
//! the program started. Pieces written at the same virtual time on the same stream arrive
//! together. The page runs each program in a fresh worker (a fresh instance of this module:
//! a run leaves thread-local state behind, as a native process would at its exit).
//!
//! With the option `timeline` the run is recorded as `--timeline` records it, and when it
//! ends its picture reaches the page as one more stream, `output("timeline", time, text)`:
//! the SVG (`true` or `"svg"`), or `"html"` or `"json"`, spaced by `timelineSpacing`
//! (`"time"`, the default, or `"iteration"`, as `--timeline-spacing`). A run that never
//! started an event loop sends none; one whose picture is over a megabyte, a note instead. The page's Timeline tab (`book/src/web/apy-book.js`)
//! shows the SVG.

use std::cell::RefCell;

use wasm_bindgen::prelude::wasm_bindgen;

use crate::common::clock::{self, ClockKind};
use crate::common::console::{self, Stream};
use crate::interp::{self, Config, SourceFile};
use crate::timeline::{Destination, Format, Spacing};

/// The heap with its accounting, so that a program that asks for too much memory gets
/// `MemoryError` (`--max-memory`) rather than a page that runs out.
#[global_allocator]
static HEAP: crate::common::memory::Accounting = crate::common::memory::Accounting;

/// The heap a run may use in a page.
const MAX_MEMORY: usize = 1 << 30;

/// The name a program has when the page gives none: the book's examples are
/// `/home/learner/lesson.apy`, as `tests/book.rs` runs them.
const DEFAULT_NAME: &str = "/home/learner/lesson.apy";

/// How much text gathers before it goes to the page, even while time stands still.
const BATCH_BYTES: usize = 8192;

#[wasm_bindgen]
extern "C" {
    /// What the page passes to [`run`]: `{name, clock, trace, explain, dis, maxSteps,
    /// timeline, timelineSpacing, output(stream, time, text)}`, every field optional but
    /// `output`.
    pub type RunOptions;
    #[wasm_bindgen(method, getter)]
    fn name(this: &RunOptions) -> Option<String>;
    #[wasm_bindgen(method, getter)]
    fn clock(this: &RunOptions) -> Option<String>;
    /// `true` for `--trace`, or a category list as `--trace=` takes it (`"all"`).
    #[wasm_bindgen(method, getter)]
    fn trace(this: &RunOptions) -> wasm_bindgen::JsValue;
    #[wasm_bindgen(method, getter)]
    fn explain(this: &RunOptions) -> Option<bool>;
    /// `--dis`: show the bytecode instead of running.
    #[wasm_bindgen(method, getter)]
    fn dis(this: &RunOptions) -> Option<bool>;
    /// `true` or a format: `"svg"`, `"html"`, `"json"`.
    #[wasm_bindgen(method, getter)]
    fn timeline(this: &RunOptions) -> wasm_bindgen::JsValue;
    #[wasm_bindgen(method, getter, js_name = timelineSpacing)]
    fn timeline_spacing(this: &RunOptions) -> Option<String>;
    #[wasm_bindgen(method, getter, js_name = maxSteps)]
    fn max_steps(this: &RunOptions) -> Option<f64>;
    #[wasm_bindgen(method)]
    fn output(this: &RunOptions, stream: &str, time: f64, text: &str);
}

/// The text on its way to the page, gathered while time stands still.
struct Batcher {
    options: RunOptions,
    /// Virtual time when the program started.
    start: f64,
    pending: Option<(Stream, f64, String)>,
}

impl Batcher {
    fn push(&mut self, stream: Stream, text: &str) {
        let time = clock::now(ClockKind::Virtual) - self.start;
        match &mut self.pending {
            Some((s, t, pending)) if *s == stream && *t == time && pending.len() < BATCH_BYTES => {
                pending.push_str(text)
            }
            _ => {
                self.flush();
                self.pending = Some((stream, time, text.to_string()));
            }
        }
    }

    fn flush(&mut self) {
        if let Some((stream, time, text)) = self.pending.take() {
            let name = match stream {
                Stream::Stdout => "stdout",
                Stream::Stderr => "stderr",
                Stream::Trace => "trace",
            };
            self.options.output(name, time, &text);
        }
    }
}

/// The largest picture sent to the page: a busier run's (a loop turning thousands of
/// times) would hold the page up while it draws; a note goes instead.
const MAX_TIMELINE_BYTES: usize = 1 << 20;

/// The timeline's [`crate::timeline::Destination::Sink`]: the picture goes to the page
/// after everything written before it, at the time the run ended.
fn send_timeline(text: &str) {
    let too_big;
    let text = match text.len() > MAX_TIMELINE_BYTES {
        true => {
            too_big = format!(
                "This run's timeline is too big to draw in the page ({:.1} MB): draw it on \
                 your machine with apy --timeline run.html\n",
                text.len() as f64 / 1e6
            );
            &too_big
        }
        false => text,
    };
    BATCHER.with(|b| {
        if let Some(batcher) = b.borrow_mut().as_mut() {
            batcher.flush();
            let time = clock::now(ClockKind::Virtual) - batcher.start;
            batcher.options.output("timeline", time, text);
        }
    })
}

thread_local! {
    static BATCHER: RefCell<Option<Batcher>> = const { RefCell::new(None) };
}

/// Runs `source` sandboxed on the virtual clock (or, with `dis`, shows its bytecode as
/// `apy --dis` does), sending what it writes to `options.output` as it is written; the exit
/// status, as `apy` would exit (2 for options the page got wrong, the reason on stderr).
#[wasm_bindgen]
pub fn run(source: &str, options: RunOptions) -> i32 {
    let name = options.name().unwrap_or_else(|| DEFAULT_NAME.to_string());
    let config = config(&options, &name);
    let dis = options.dis().unwrap_or(false);
    let start = clock::now(ClockKind::Virtual);
    BATCHER.with(|b| {
        *b.borrow_mut() = Some(Batcher {
            options,
            start,
            pending: None,
        })
    });
    console::install(Some(Box::new(|stream, text| {
        BATCHER.with(|b| {
            if let Some(batcher) = b.borrow_mut().as_mut() {
                batcher.push(stream, text);
            }
        })
    })));
    let status = match config {
        Err(message) => {
            console::eprint(&format!("apy: {message}\n"));
            2
        }
        Ok(config) => {
            crate::common::memory::set_limit(MAX_MEMORY);
            let source = SourceFile {
                name,
                text: source.to_string(),
            };
            let outcome = match dis {
                true => interp::compile(&source)
                    .map_err(interp::Error::Diagnostic)
                    .map(|code| {
                        let text = crate::compile::dis::disassemble(&code);
                        let header = crate::compile::dis::HEADER;
                        console::write(Stream::Stdout, &format!("{header}\n{text}"));
                    }),
                false => interp::run_with(&source, config),
            };
            match outcome {
                Ok(()) => 0,
                Err(interp::Error::Exited(status)) => status,
                Err(interp::Error::Diagnostic(diagnostic)) => {
                    console::eprint(&crate::syntax::diagnostics::render_to_string(
                        &diagnostic,
                        &source.name,
                        &source.text,
                    ));
                    1
                }
            }
        }
    };
    console::install(None);
    BATCHER.with(|b| {
        if let Some(mut batcher) = b.borrow_mut().take() {
            batcher.flush();
        }
    });
    status
}

/// The run's configuration from the page's options: always sandboxed, on the virtual clock.
fn config(options: &RunOptions, name: &str) -> Result<Config, String> {
    if let Some(clock) = options.clock()
        && clock != "virtual"
    {
        return Err(format!(
            "the clock in a browser is 'virtual' (got '{clock}'): a page cannot block while \
             the program waits, so sleeps jump instead, and the page replays the output at \
             the times it was printed"
        ));
    }
    let trace = options.trace();
    let categories = match trace.as_string() {
        Some(list) => crate::common::trace::parse_categories(&list)?,
        None if trace.is_truthy() => crate::common::trace::DEFAULT_CATEGORIES,
        None => 0,
    };
    let max_steps = match options.max_steps() {
        Some(n) if n >= 1.0 => Some(n as u64),
        Some(n) => return Err(format!("maxSteps must be at least 1 (got {n})")),
        None => None,
    };
    let timeline = options.timeline();
    let format = match timeline.as_string().as_deref() {
        Some("svg") => Some(Format::Svg),
        Some("html") => Some(Format::Html),
        Some("json") => Some(Format::Json),
        Some(other) => {
            return Err(format!(
                "timeline is 'svg', 'html' or 'json' (got '{other}')"
            ));
        }
        None if timeline.is_truthy() => Some(Format::Svg),
        None => None,
    };
    let spacing = match options.timeline_spacing().as_deref() {
        None | Some("time") => Spacing::Time,
        Some("iteration") => Spacing::Iteration,
        Some(other) => {
            return Err(format!(
                "timelineSpacing is 'time' or 'iteration' (got '{other}')"
            ));
        }
    };
    Ok(Config {
        timeline: format.map(|format| crate::timeline::Settings {
            to: Destination::Sink(format, send_timeline),
            spacing,
            program: crate::timeline::program_name(name),
        }),
        vm: crate::vm::Config {
            argv: vec![name.to_string()],
            clock: ClockKind::Virtual,
            max_steps,
            sandbox: true,
            ..Default::default()
        },
        trace: crate::common::trace::Settings {
            categories,
            file: None,
        },
        explain: options.explain().unwrap_or(false),
        ..Config::default()
    })
}
