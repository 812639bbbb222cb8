//! `--explain`: a teaching note under each classic async mistake apy reports. The reports
//! themselves (CPython's lines, unchanged) and the notes are made beside what they describe:
//! `vm/explain.rs` words the notes about coroutines and async generators ("coroutine … was
//! never awaited", an abandoned async generator), `asyncio/reports.rs` those about tasks and
//! the loop. This module only knows whether notes are on for this thread and lays a note
//! out: a block of lines starting `explain| `, written on stderr right after the report.
//! Off, each hook is one branch on a thread-local flag.

use std::cell::Cell;

thread_local! {
    static ON: Cell<bool> = const { Cell::new(false) };
}

/// Turns notes on for this (the interpreter's) thread.
pub fn install(on: bool) {
    ON.with(|o| o.set(on));
}

#[inline(always)]
pub fn on() -> bool {
    ON.with(|o| o.get())
}

/// A note as lines starting `explain| `, wrapped at about 88 columns, ending in a newline.
pub fn render(text: &str) -> String {
    let mut out = String::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        if !line.is_empty() && line.len() + 1 + word.len() > 80 {
            out.push_str(&format!("explain| {line}\n"));
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() {
        out.push_str(&format!("explain| {line}\n"));
    }
    out
}
