//! `--timeline FILE.svg|FILE.html|FILE.json`: a picture of the event loop's run — one lane
//! per task, a bar for each step (labelled with the lines it resumed and stopped at), a line
//! in a colour per kind for what the task waited on between steps, an arrow from the entry
//! that completed a future to the step it woke, marks for cancellations, exceptions,
//! results and async-generator hooks.
//!
//! It is another reader of the events behind `--trace`: [`recorder`] hears them through
//! [`crate::asyncio::record`] and builds a [`model::Timeline`]; [`layout`] places it (by
//! loop time, or one column per loop iteration), and [`json`], [`svg`] and [`html`] write
//! it out. Nothing is recorded, and no event costs more than its one branch, unless the
//! switch is given.

pub mod html;
pub mod json;
pub mod layout;
pub mod model;
pub mod recorder;
pub mod svg;

use std::path::PathBuf;

/// How the picture spaces the loop's entries from left to right.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Spacing {
    /// Gaps in proportion to the loop time that passed (the default).
    #[default]
    Time,
    /// A gap at each new loop iteration, whatever the time: for runs where everything
    /// happens at t=0.
    Iteration,
}

/// What `--timeline` writes, and where.
#[derive(Clone, Debug)]
pub struct Settings {
    pub to: Destination,
    pub spacing: Spacing,
    /// The program's name shown in the picture (`crawler.apy`).
    pub program: String,
}

/// Where the picture goes when the run ends.
#[derive(Clone, Debug)]
pub enum Destination {
    /// `--timeline FILE`: the file; its extension (`.svg`, `.html`, `.json`) says the format.
    File(PathBuf),
    /// An embedder's function, which gets the text in this format: a page, which has no
    /// files (`src/web.rs`). A run that never started an event loop sends nothing.
    Sink(Format, fn(&str)),
}

/// The formats, by file extension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Svg,
    Html,
    Json,
}

impl Format {
    /// The format a path's extension names, or the usage error's text.
    pub fn of(path: &std::path::Path) -> Result<Format, String> {
        match path.extension().and_then(|e| e.to_str()) {
            Some("svg") => Ok(Format::Svg),
            Some("html" | "htm") => Ok(Format::Html),
            Some("json") => Ok(Format::Json),
            _ => Err(format!(
                "--timeline: '{}' should end in .svg, .html or .json",
                path.display()
            )),
        }
    }
}

/// A program's name as the picture shows it: the file's name without its folder.
pub fn program_name(name: &str) -> String {
    std::path::Path::new(name)
        .file_name()
        .map_or(name.to_string(), |n| n.to_string_lossy().into_owned())
}

/// Starts recording on this (the interpreter's) thread. False when apy was built without
/// the `trace` feature, which compiles the loop's events away.
pub fn start(settings: &Settings, clock: crate::common::clock::ClockKind) -> bool {
    let clock = match clock {
        crate::common::clock::ClockKind::Real => "real",
        crate::common::clock::ClockKind::Virtual => "virtual",
    };
    recorder::start(&settings.program, clock)
}

/// Stops recording and writes the file, or hands the text to the sink; the reason a file
/// could not be written.
pub fn finish(settings: &Settings) -> Result<(), String> {
    let Some(timeline) = recorder::finish() else {
        return Ok(());
    };
    match &settings.to {
        Destination::File(path) => {
            let text = render(&timeline, Format::of(path)?, settings.spacing);
            std::fs::write(path, text)
                .map_err(|error| format!("can't write timeline file '{}': {error}", path.display()))
        }
        Destination::Sink(_, _) if timeline.entries.is_empty() => Ok(()),
        Destination::Sink(format, sink) => {
            sink(&render(&timeline, *format, settings.spacing));
            Ok(())
        }
    }
}

/// The picture's text in `format`.
pub fn render(timeline: &model::Timeline, format: Format, spacing: Spacing) -> String {
    match format {
        Format::Json => json::write(timeline),
        Format::Svg => svg::write(timeline, spacing),
        Format::Html => html::write(timeline),
    }
}
