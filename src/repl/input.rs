//! When is a REPL entry complete? The lines typed so far in, a [`Decision`] out: run them,
//! ask for another line (`... `), or report a syntax error. The parser decides, through its
//! `Incomplete`/`IncompleteBlock` error kinds, as CPython's `codeop` asks its compiler;
//! a compound statement ends at an empty line, as in CPython's interactive mode.
//! Depends only on `syntax`.

use crate::syntax::error::{SyntaxError, SyntaxErrorKind};
use crate::syntax::parse_module;

/// What to do with the lines of an entry typed so far.
#[derive(Debug, PartialEq, Eq)]
pub enum Decision {
    /// The entry is complete: compile and run it.
    Run,
    /// More lines could complete it: show the `... ` prompt.
    NeedMore,
    /// Wrong whatever follows (the compiler reports it, with its span, when asked to run).
    Invalid,
}

/// Decides about `lines`, the entry's lines without their newlines; the last one is the
/// line just typed.
pub fn decide(lines: &[String]) -> Decision {
    let last_is_blank = lines.last().is_none_or(|l| l.trim().is_empty());
    match parse_module(&entry_text(lines)) {
        Ok(module) => match module.body.last() {
            // `if x: y` or a `def` keeps going until an empty line, as in CPython.
            Some(stmt) if stmt.is_compound() && !last_is_blank => Decision::NeedMore,
            _ => Decision::Run,
        },
        Err(error) if wants_more(&error, last_is_blank) => Decision::NeedMore,
        Err(_) => Decision::Invalid,
    }
}

/// Decides about `lines` when they came in one event (a bracketed paste, a recalled
/// block), `ended` when a newline followed the last of them: empty lines inside do not end
/// a block. As CPython's pyrepl (`_more_lines`): one statement runs once complete (a block
/// needs that final newline); several run when the newline ended them, else Enter runs
/// them; an error on one line is reported at once, on more at Enter.
pub fn decide_paste(lines: &[String], ended: bool) -> Decision {
    let mut text = lines.join("\n");
    if ended {
        text.push('\n');
    }
    let wait_for_enter = |decision| if ended { decision } else { Decision::NeedMore };
    match parse_module(&text) {
        Ok(module) => match module.body.as_slice() {
            [stmt] if stmt.is_compound() => wait_for_enter(Decision::Run),
            [] | [_] => Decision::Run,
            _ => wait_for_enter(Decision::Run),
        },
        Err(error) if wants_more(&error, false) => Decision::NeedMore,
        Err(_) if lines.len() == 1 => Decision::Invalid,
        Err(_) => wait_for_enter(Decision::Invalid),
    }
}

/// The source text of an entry: its lines, each ended by a newline.
pub fn entry_text(lines: &[String]) -> String {
    lines.iter().map(|l| format!("{l}\n")).collect()
}

/// An open bracket, string or `\` always waits for more; a missing indented block waits
/// only until an empty line, which makes it CPython's "expected an indented block".
fn wants_more(error: &SyntaxError, last_is_blank: bool) -> bool {
    match error.kind {
        SyntaxErrorKind::Incomplete => true,
        SyntaxErrorKind::IncompleteBlock => !last_is_blank,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decide_text(text: &str) -> Decision {
        let lines: Vec<String> = text.split('\n').map(str::to_string).collect();
        decide(&lines)
    }

    fn decide_pasted(text: &str) -> Decision {
        let ended = text.ends_with('\n');
        let text = text.strip_suffix('\n').unwrap_or(text);
        let lines: Vec<String> = text.split('\n').map(str::to_string).collect();
        decide_paste(&lines, ended)
    }

    #[test]
    fn a_paste_keeps_its_empty_lines_inside_blocks() {
        let class =
            "class A:\n    def f(self):\n        return 1\n\n    def g(self):\n        return 2\n";
        assert_eq!(decide_text(class), Decision::Run);
        assert_eq!(decide_pasted(class), Decision::Run);
        let then_call = format!("{class}\nA().g()");
        assert_eq!(decide_pasted(&then_call), Decision::NeedMore);
        assert_eq!(decide_pasted(&format!("{then_call}\n")), Decision::Run);
    }

    #[test]
    fn a_paste_runs_as_cpythons_more_lines_decides() {
        // One complete statement runs; a block, or several statements, wait for the
        // newline that ends the last line.
        assert_eq!(decide_pasted("x = (1,\n2)"), Decision::Run);
        assert_eq!(decide_pasted("def f():\n    return 1"), Decision::NeedMore);
        assert_eq!(decide_pasted("def f():\n    return 1\n"), Decision::Run);
        assert_eq!(decide_pasted("x = 1\ny = 2"), Decision::NeedMore);
        assert_eq!(decide_pasted("x = 1\ny = 2\n"), Decision::Run);
        assert_eq!(decide_pasted("x = (1,\n2,"), Decision::NeedMore);
        assert_eq!(decide_pasted("x = 1 +)\ny = 2"), Decision::NeedMore);
        assert_eq!(decide_pasted("x = 1 +)\ny = 2\n"), Decision::Invalid);
    }

    #[test]
    fn a_simple_statement_runs_at_once() {
        assert_eq!(decide_text("x = 1"), Decision::Run);
        assert_eq!(decide_text("await asyncio.sleep(1)"), Decision::Run);
        assert_eq!(decide_text(""), Decision::Run);
    }

    #[test]
    fn open_brackets_strings_and_backslashes_ask_for_more() {
        assert_eq!(decide_text("x = (1,"), Decision::NeedMore);
        assert_eq!(decide_text("x = (1,\n"), Decision::NeedMore);
        assert_eq!(decide_text("x = (1,\n2)"), Decision::Run);
        assert_eq!(decide_text("s = '''a"), Decision::NeedMore);
        assert_eq!(decide_text("s = '''a\nb'''"), Decision::Run);
        assert_eq!(decide_text("x = 1 + \\"), Decision::NeedMore);
    }

    #[test]
    fn a_block_ends_at_an_empty_line() {
        assert_eq!(decide_text("async def f():"), Decision::NeedMore);
        assert_eq!(
            decide_text("async def f():\n    return 5"),
            Decision::NeedMore
        );
        assert_eq!(decide_text("async def f():\n    return 5\n"), Decision::Run);
        assert_eq!(decide_text("if x: y"), Decision::NeedMore);
        assert_eq!(decide_text("for i in x:\n    if i:\n"), Decision::Invalid);
        assert_eq!(decide_text("class C:\n    x = 1\n"), Decision::Run);
        assert_eq!(decide_text("match x:"), Decision::NeedMore);
        assert_eq!(decide_text("match x:\n    case 1:"), Decision::NeedMore);
        let entry = "match x:\n    case 1:\n        pass";
        assert_eq!(decide_text(entry), Decision::NeedMore);
        assert_eq!(decide_text(&format!("{entry}\n")), Decision::Run);
        assert_eq!(decide_text("match = 1"), Decision::Run);
    }

    #[test]
    fn an_empty_line_where_a_block_is_expected_is_an_error() {
        assert_eq!(decide_text("if x:\n"), Decision::Invalid);
    }

    #[test]
    fn wrong_input_is_reported_at_once() {
        assert_eq!(decide_text("x = 1 +"), Decision::Invalid);
        assert_eq!(decide_text(")"), Decision::Invalid);
        assert_eq!(decide_text("    x = 1"), Decision::Invalid);
    }

    #[test]
    fn an_open_bracket_waits_only_when_the_parser_reached_the_end() {
        // As CPython's REPL: these are errors on Enter, not an endless `... `.
        assert_eq!(decide_text("def f(:"), Decision::Invalid);
        assert_eq!(decide_text("1 +)"), Decision::Invalid);
        assert_eq!(decide_text("print(1 2"), Decision::Invalid);
        assert_eq!(decide_text("if (x:"), Decision::Invalid);
        // These could still be completed.
        assert_eq!(decide_text("foo("), Decision::NeedMore);
        assert_eq!(decide_text("x = (1 +"), Decision::NeedMore);
        assert_eq!(decide_text("def f(x"), Decision::NeedMore);
        assert_eq!(decide_text("f(1,)("), Decision::NeedMore);
    }
}
