//! The REPL: `apy` on a terminal, or `apy -i FILE` after the file has run. Lines typed at
//! the prompt in, their effects and results out, as in `python -m asyncio`: one event loop
//! for the session keeps running tasks while the prompt waits, and top-level `await` works.
//!
//! Two threads: this one edits lines with rustyline (history, colours, completion) and
//! the interpreter thread (`session`) runs the loop and asks for a line whenever it wants
//! one. `input` decides when an entry is complete; `output` prints the program's output
//! above the prompt. Mirrors `Lib/asyncio/__main__.py` and `Lib/code.py`.
//!
//! Typeahead is kept: rustyline switches the terminal mode with `TCSADRAIN` (never
//! `TCSAFLUSH`, which would discard it), and its `buffer-redux` feature hands the bytes it
//! has read past a line's Enter to the next `readline`. The history is written here, one
//! item per entry, when the session asks for the next entry's first line.

pub mod helper;
pub mod input;
mod output;
mod session;

use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::mpsc::{Sender, channel};

use rustyline::error::ReadlineError;
use rustyline::history::FileHistory;
use rustyline::{Behavior, CompletionType, Config, Editor};

use crate::interp::SourceFile;

/// What the input thread tells the interpreter thread.
pub enum Event {
    /// A line typed at the prompt, without its newline.
    Line(String),
    /// Ctrl-C at the prompt.
    Interrupted,
    /// Ctrl-D on an empty line (or the terminal went away).
    Eof,
    /// Tab after this dotted name: the interpreter answers with the full replacements.
    Complete(String, Sender<Vec<String>>),
}

/// The prompt to show for the next line: [`PROMPT`] for a new entry, `... ` to go on.
pub type Prompt = &'static str;

/// The prompt of a new entry.
pub const PROMPT: Prompt = ">>> ";

/// The prompt of an entry's next line.
pub const CONTINUE: Prompt = "... ";

/// What the session asks of the line editor.
pub enum Ask {
    /// Read a line after this prompt.
    Line(Prompt),
    /// The entry just typed was a command (`exit`, `quit`, `clear`): not kept in the
    /// history, as pyrepl pops it.
    ForgetEntry,
}

/// The keys the REPL knows, for `apy --help`.
pub const KEYS_HELP: &str = "\
Interactive prompt (apy with no FILE on a terminal, or apy -i FILE):
  Enter         run the entry; a block (def, if, for, ...) ends at an empty line
  Tab           complete names, keywords and attributes after a dot; indent at line start
  Up / Down     previous / next entry in the history, a block whole (~/.apy_history)
  Ctrl-R        search the history
  Ctrl-C        clear the line at the prompt; stop running code (KeyboardInterrupt)
  Ctrl-D        leave (on an empty line), as exit() does
  Ctrl-A / E    start / end of the line;  Ctrl-W / K / U  delete word / to end / to start
  exit, quit    typed alone: leave;  clear  typed alone: clear the screen
Top-level await works at the prompt; tasks keep running while it waits.";

/// Runs a REPL session (after `startup`, the file of `apy -i FILE`) and returns the
/// process exit status.
pub fn run(config: crate::interp::Config, startup: Option<SourceFile>) -> i32 {
    crate::vm::interrupt::install_handler();
    let (events, event_queue) = channel::<Event>();
    let (asks, ask_queue) = channel::<Ask>();
    let mut editor = match new_editor(events.clone()) {
        Ok(editor) => editor,
        Err(error) => {
            eprintln!("apy: cannot start the interactive prompt: {error}");
            return 1;
        }
    };
    let history = history_path();
    if let Some(path) = &history {
        let _ = editor.load_history(path);
    }
    // Output is routed above the prompt only when it would reach the terminal anyway.
    let capture = if std::io::stdout().is_terminal() {
        editor
            .create_external_printer()
            .ok()
            .and_then(output::Capture::start)
    } else {
        None
    };
    let worker =
        crate::interp::spawn_interpreter(move || session::run(config, startup, asks, event_queue));
    let Ok(worker) = worker else {
        eprintln!("apy: internal error: the interpreter thread failed to start");
        return 70;
    };
    // The lines of the entry being typed, saved as one history entry once it has run.
    let mut entry: Vec<String> = Vec::new();
    for ask in ask_queue {
        let prompt = match ask {
            Ask::Line(prompt) => prompt,
            Ask::ForgetEntry => {
                entry.clear();
                continue;
            }
        };
        if let Some(capture) = &capture {
            capture.drain();
        }
        if prompt == PROMPT {
            save_entry(&mut editor, history.as_deref(), &mut entry);
        }
        let event = match editor.readline(prompt) {
            Ok(line) => {
                entry.push(line.clone());
                Event::Line(line)
            }
            Err(ReadlineError::Interrupted) => {
                // An entry abandoned with Ctrl-C is not kept.
                entry.clear();
                Event::Interrupted
            }
            Err(_) => {
                entry.clear();
                Event::Eof
            }
        };
        if events.send(event).is_err() {
            break;
        }
    }
    // `exit()` ends the session without another prompt.
    save_entry(&mut editor, history.as_deref(), &mut entry);
    let status = worker.join().unwrap_or(70);
    drop(capture);
    status
}

fn new_editor(events: Sender<Event>) -> rustyline::Result<Editor<helper::ReplHelper, FileHistory>> {
    // On a terminal the editor talks to it directly (fds 1 and 2 then go to `output`);
    // otherwise lines are read from stdin as they come (`apy -i FILE < lines`).
    let behavior = if std::io::stdin().is_terminal() {
        Behavior::PreferTerm
    } else {
        Behavior::Stdio
    };
    let config = Config::builder()
        .behavior(behavior)
        .auto_add_history(false)
        .history_ignore_dups(true)?
        .completion_type(CompletionType::List)
        .build();
    let mut editor = Editor::with_config(config)?;
    editor.set_helper(Some(helper::ReplHelper::new(events)));
    Ok(editor)
}

/// Adds the lines of an entry to the history as one entry (recalled whole with Up), and
/// appends it to the history file.
fn save_entry(
    editor: &mut Editor<helper::ReplHelper, FileHistory>,
    path: Option<&std::path::Path>,
    entry: &mut Vec<String>,
) {
    let text = entry.join("\n");
    entry.clear();
    let text = text.trim_end();
    if !text.trim().is_empty()
        && editor.add_history_entry(text).is_ok()
        && let Some(path) = path
    {
        let _ = editor.append_history(path);
    }
}

/// `~/.apy_history`, with `~` taken from `$HOME`.
fn history_path() -> Option<PathBuf> {
    let home = std::env::var_os("HOME").filter(|h| !h.is_empty())?;
    Some(PathBuf::from(home).join(".apy_history"))
}
