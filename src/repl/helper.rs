//! The line editor's helper: colours (keywords, strings, numbers, comments), the bracket
//! matching the one at the cursor, and Tab completion. The editor runs on the input
//! thread while the names live on the interpreter thread, so completion is a question
//! sent over a channel: the word before the cursor goes out, candidates come back.
//! Depends on rustyline and nothing of the VM.

use std::borrow::Cow;
use std::sync::mpsc::{Sender, channel};
use std::time::Duration;

use rustyline::completion::Completer;
use rustyline::highlight::{CmdKind, Highlighter};
use rustyline::hint::Hinter;
use rustyline::validate::Validator;
use rustyline::{Context, Helper};

use super::Event;

/// Python's keywords, coloured and offered by completion (`keyword.kwlist`).
pub const KEYWORDS: [&str; 35] = [
    "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue",
    "def", "del", "elif", "else", "except", "finally", "for", "from", "global", "if", "import",
    "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try", "while",
    "with", "yield",
];

const KEYWORD: &str = "\x1b[1;35m";
const STRING: &str = "\x1b[32m";
const NUMBER: &str = "\x1b[36m";
const COMMENT: &str = "\x1b[90m";
const BRACKET: &str = "\x1b[1;4;34m";
const RESET: &str = "\x1b[0m";

pub struct ReplHelper {
    /// Where completion questions go (the interpreter thread's event channel).
    events: Sender<Event>,
    /// False under `NO_COLOR`: lines are shown as typed.
    colour: bool,
}

impl ReplHelper {
    pub fn new(events: Sender<Event>) -> ReplHelper {
        ReplHelper {
            events,
            colour: std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()),
        }
    }
}

impl Helper for ReplHelper {}
impl Hinter for ReplHelper {
    type Hint = String;
}
impl Validator for ReplHelper {}

impl Completer for ReplHelper {
    type Candidate = String;

    fn complete(
        &self,
        line: &str,
        pos: usize,
        _: &Context<'_>,
    ) -> rustyline::Result<(usize, Vec<String>)> {
        let before = &line[..pos];
        if before.trim().is_empty() {
            // Tab at the start of a line indents, as in CPython's REPL.
            return Ok((pos, vec!["    ".to_string()]));
        }
        let word = completion_word(before);
        let (reply, answer) = channel();
        if self
            .events
            .send(Event::Complete(word.to_string(), reply))
            .is_err()
        {
            return Ok((pos, Vec::new()));
        }
        // The interpreter answers between loop iterations; a busy one is not waited for.
        let candidates = answer
            .recv_timeout(Duration::from_secs(2))
            .unwrap_or_default();
        Ok((pos - word.len(), candidates))
    }
}

/// The dotted name that ends `before` (`asyncio.cr` in `t = asyncio.cr`).
pub fn completion_word(before: &str) -> &str {
    let start = before
        .char_indices()
        .rev()
        .take_while(|&(_, c)| c == '.' || c == '_' || c.is_alphanumeric())
        .last()
        .map_or(before.len(), |(i, _)| i);
    &before[start..]
}

impl Highlighter for ReplHelper {
    fn highlight<'l>(&self, line: &'l str, pos: usize) -> Cow<'l, str> {
        if self.colour {
            Cow::Owned(highlight(line, pos))
        } else {
            Cow::Borrowed(line)
        }
    }

    fn highlight_char(&self, _line: &str, _pos: usize, kind: CmdKind) -> bool {
        // Brackets light up as the cursor moves, so every change repaints the line.
        self.colour && kind != CmdKind::ForcedRefresh
    }
}

/// One coloured piece of a line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Class {
    Plain,
    Keyword,
    Str,
    Number,
    Comment,
}

/// Splits `line` into classified byte ranges. A line is read on its own, so a string left
/// open (a triple-quoted one going on) runs to the end of the line.
fn classify(line: &str) -> Vec<(Class, usize, usize)> {
    let bytes = line.as_bytes();
    let mut pieces = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        let start = i;
        let class = if c == b'#' {
            i = bytes.len();
            Class::Comment
        } else if c == b'"' || c == b'\'' {
            i = string_end(bytes, i);
            Class::Str
        } else if c.is_ascii_digit()
            || (c == b'.' && bytes.get(i + 1).is_some_and(u8::is_ascii_digit))
        {
            while i < bytes.len()
                && (bytes[i].is_ascii_alphanumeric() || matches!(bytes[i], b'.' | b'_'))
            {
                i += 1;
            }
            Class::Number
        } else if c == b'_' || c.is_ascii_alphabetic() || c >= 0x80 {
            while i < bytes.len()
                && (bytes[i] == b'_' || bytes[i].is_ascii_alphanumeric() || bytes[i] >= 0x80)
            {
                i += 1;
            }
            let word = &line[start..i];
            let is_prefix = word.len() <= 2
                && word.chars().all(|c| "rRbBfFuU".contains(c))
                && matches!(bytes.get(i), Some(b'"' | b'\''));
            if is_prefix {
                i = string_end(bytes, i);
                Class::Str
            } else if KEYWORDS.contains(&word) {
                Class::Keyword
            } else {
                Class::Plain
            }
        } else {
            i += 1;
            Class::Plain
        };
        pieces.push((class, start, i));
    }
    pieces
}

/// The end of the string literal whose quote is at `open`.
fn string_end(bytes: &[u8], open: usize) -> usize {
    let quote = bytes[open];
    let triple = bytes.get(open..open + 3) == Some(&[quote, quote, quote][..]);
    let mut i = open + if triple { 3 } else { 1 };
    while i < bytes.len() {
        if bytes[i] == b'\\' {
            i += 2;
        } else if triple && bytes.get(i..i + 3) == Some(&[quote, quote, quote][..]) {
            return i + 3;
        } else if !triple && bytes[i] == quote {
            return i + 1;
        } else {
            i += 1;
        }
    }
    bytes.len()
}

/// The position of the bracket that pairs with the one at (or just before) the cursor,
/// brackets inside strings and comments left out.
fn matching_bracket(line: &str, pieces: &[(Class, usize, usize)], cursor: usize) -> Option<usize> {
    let brackets: Vec<(usize, u8)> = pieces
        .iter()
        .filter(|(class, ..)| *class == Class::Plain)
        .flat_map(|&(_, start, end)| (start..end).map(|i| (i, line.as_bytes()[i])))
        .filter(|(_, b)| b"()[]{}".contains(b))
        .collect();
    let at = brackets
        .iter()
        .position(|&(i, _)| i == cursor)
        .or_else(|| brackets.iter().position(|&(i, _)| i + 1 == cursor))?;
    let (_, bracket) = brackets[at];
    let opening = b"([{".contains(&bracket);
    let mut depth = 0i32;
    let walk: Box<dyn Iterator<Item = &(usize, u8)>> = if opening {
        Box::new(brackets[at..].iter())
    } else {
        Box::new(brackets[..=at].iter().rev())
    };
    for &(i, b) in walk {
        depth += if b"([{".contains(&b) == opening {
            1
        } else {
            -1
        };
        if depth == 0 {
            return Some(i);
        }
    }
    None
}

/// `line` with ANSI colours, the same width as the line itself.
pub fn highlight(line: &str, cursor: usize) -> String {
    let pieces = classify(line);
    let partner = matching_bracket(line, &pieces, cursor);
    let mut out = String::with_capacity(line.len() * 2);
    for &(class, start, end) in &pieces {
        let text = &line[start..end];
        let colour = match class {
            Class::Plain if partner == Some(start) => BRACKET,
            Class::Plain => {
                out.push_str(text);
                continue;
            }
            Class::Keyword => KEYWORD,
            Class::Str => STRING,
            Class::Number => NUMBER,
            Class::Comment => COMMENT,
        };
        out.push_str(colour);
        out.push_str(text);
        out.push_str(RESET);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colours_keywords_strings_numbers_and_comments() {
        assert_eq!(
            highlight("await f('a', 10)  # go", 0),
            "\x1b[1;35mawait\x1b[0m f(\x1b[32m'a'\x1b[0m, \x1b[36m10\x1b[0m)  \x1b[90m# go\x1b[0m"
        );
        assert_eq!(highlight("rb'x'", 0), "\x1b[32mrb'x'\x1b[0m");
        assert_eq!(highlight("awaiting", 0), "awaiting");
    }

    #[test]
    fn lights_the_bracket_matching_the_cursor() {
        // The cursor on the outer `(`: its partner is the last character.
        let shown = highlight("f(g(1), ')')", 1);
        assert!(shown.ends_with("\x1b[1;4;34m)\x1b[0m"), "{shown:?}");
        // The cursor on the inner `)`: its partner is the `(` of `g(`.
        let shown = highlight("f(g(1))", 5);
        assert!(shown.starts_with("f(g\x1b[1;4;34m(\x1b[0m"), "{shown:?}");
        // The cursor just after a `)` at the end of the line.
        let shown = highlight("g(1)", 4);
        assert!(shown.starts_with("g\x1b[1;4;34m(\x1b[0m"), "{shown:?}");
    }

    #[test]
    fn completes_the_dotted_name_before_the_cursor() {
        assert_eq!(completion_word("t = asyncio.cr"), "asyncio.cr");
        assert_eq!(completion_word("print(x"), "x");
        assert_eq!(completion_word("f("), "");
    }
}
