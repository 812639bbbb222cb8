//! The source lines under a traceback entry, with the caret lines `traceback.py` draws
//! beneath them (`StackSummary.format_frame_summary` in CPython 3.13's `Lib/traceback.py`):
//!
//! ```text
//!     total = prices[item] * count
//!             ~~~~~~^^^^^^
//! ```
//!
//! The carets cover the failed instruction's span. Under a binary operation, a call or a
//! subscript (the spans the compiler recorded [`Anchors`] for), `~` marks the operands and
//! `^` the operator, or the brackets and what they hold. Without anchors, carets are drawn
//! only when they would not cover the whole line; and never under `return f(x)` or
//! `y = f(x)`, which `traceback.py` leaves bare. A span over many lines shows its first and
//! last lines and those around the anchors, with `...<N lines>...` for the rest.
//!
//! Columns count display cells, as `traceback._display_width` does: a wide or fullwidth
//! (East Asian) character takes two.

use crate::common::east_asian_width::display_width;
use crate::compile::bytecode::Anchors;
use crate::syntax::ast::Span;

/// Where carets go in the shown lines: line indexes from the first shown line, columns
/// in display cells of the dedented lines.
struct Marks {
    start: usize,
    end: usize,
    /// `(line, column)` of the first `^` and of the first `~` after the `^`s.
    anchors: Option<((usize, usize), (usize, usize))>,
    show: bool,
}

/// The lines to print under `File "…", line N` for an instruction at `span` (when it is
/// known and starts on line `first`), dedented together, each followed by its caret line
/// where `traceback.py` draws one. Empty when the lines are blank or out of the text.
pub fn source_lines(
    text: &str,
    first: u32,
    span: Option<Span>,
    anchors: Option<Anchors>,
) -> Vec<String> {
    let starts = line_starts(text);
    let line_of = |offset: u32| starts.partition_point(|&s| s <= offset as usize) as u32;
    let span = span.filter(|span| span.end > span.start && line_of(span.start) == first);
    let last = span.map_or(first, |span| line_of(span.end - 1));
    let index = first.saturating_sub(1) as usize;
    let lines: Vec<&str> = text
        .lines()
        .skip(index)
        .take((last + 1).saturating_sub(first) as usize)
        .map(str::trim_end)
        .collect();
    if lines.iter().all(|l| l.is_empty()) {
        return Vec::new();
    }
    let margin = lines
        .iter()
        .filter(|l| !l.is_empty())
        .map(|l| l.len() - l.trim_start().len())
        .min()
        .unwrap_or(0);
    let dedented: Vec<&str> = lines
        .iter()
        .map(|l| l.get(margin..).unwrap_or(""))
        .collect();
    // A byte offset in `text` as (shown line, column in the dedented line). Clamped to the
    // shown lines: the text may be a later source under the same name (`<string>`).
    let position = |offset: u32| {
        let row = (line_of(offset).saturating_sub(first) as usize).min(lines.len() - 1);
        let line = lines[row];
        let start = starts.get(index + row).copied().unwrap_or(0);
        let bytes = (offset as usize).saturating_sub(start).min(line.len());
        let chars = line.get(..bytes).map_or(0, |s| s.chars().count());
        (row, chars.saturating_sub(margin))
    };
    let marks = span.map(|span| {
        let (_, start) = position(span.start);
        let (_, end) = position(span.end);
        let show = match anchors {
            Some(anchors) => !anchors.quiet,
            // Without anchors, carets only when they would not cover the whole line.
            None => {
                let last_line = dedented[dedented.len() - 1];
                dedented[0].chars().take(start).any(|c| !c.is_whitespace())
                    || last_line.chars().skip(end).any(|c| !c.is_whitespace())
            }
        };
        let cells = |(row, col): (usize, usize)| (row, display_width(dedented[row], col));
        Marks {
            start: display_width(dedented[0], start),
            end: display_width(dedented[dedented.len() - 1], end),
            anchors: anchors.map(|a| (cells(position(a.left)), cells(position(a.right)))),
            show,
        }
    });
    let n = dedented.len();
    let mut significant = vec![0, n - 1];
    if let Some(((left, _), (right, _))) = marks.as_ref().and_then(|m| m.anchors) {
        for anchor in [left, right] {
            significant.extend([anchor.saturating_sub(1), anchor, anchor + 1]);
        }
    }
    significant.retain(|&i| i < n);
    significant.sort_unstable();
    significant.dedup();
    let mut shown = Vec::new();
    let output = |i: usize, shown: &mut Vec<String>| {
        shown.push(dedented[i].to_string());
        if let Some(marks) = marks.as_ref().filter(|m| m.show) {
            shown.push(caret_line(dedented[i], i, n, marks));
        }
    };
    for (k, &i) in significant.iter().enumerate() {
        match k.checked_sub(1).map(|k| i - significant[k]) {
            Some(2) => output(i - 1, &mut shown),
            Some(gap) if gap > 2 => shown.push(format!("...<{} lines>...", gap - 1)),
            _ => {}
        }
        output(i, &mut shown);
    }
    dedent(shown)
}

/// The carets under shown line `i` of `n`.
fn caret_line(line: &str, i: usize, n: usize, marks: &Marks) -> String {
    let indent = line.len() - line.trim_start().len();
    let width = if i == n - 1 {
        marks.end
    } else {
        display_width(line, usize::MAX)
    };
    let (primary, secondary) = if marks.anchors.is_some() {
        ('~', '^')
    } else {
        ('^', '^')
    };
    (0..width)
        .map(|col| {
            if col < indent || (i == 0 && col < marks.start) {
                ' '
            } else if marks
                .anchors
                .is_some_and(|((l_row, l_col), (r_row, r_col))| {
                    (i > l_row || (i == l_row && col >= l_col))
                        && (i < r_row || (i == r_row && col < r_col))
                })
            {
                secondary
            } else {
                primary
            }
        })
        .collect()
}

/// `textwrap.dedent` over the finished lines, as `traceback.py` applies it last.
fn dedent(lines: Vec<String>) -> Vec<String> {
    let margin = lines
        .iter()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start().len())
        .min()
        .unwrap_or(0);
    if margin == 0 {
        return lines;
    }
    lines
        .into_iter()
        .map(|l| l.get(margin..).unwrap_or("").to_string())
        .collect()
}

/// The byte offset where each line of `text` starts.
fn line_starts(text: &str) -> Vec<usize> {
    std::iter::once(0)
        .chain(text.match_indices('\n').map(|(i, _)| i + 1))
        .collect()
}
