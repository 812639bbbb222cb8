//! `--timeline FILE.svg`: the picture. A title with the program's name, an axis (loop time or
//! loop iterations), one row per task with a bar per step (labelled `resumed→stopped` with
//! line numbers), a line per wait in its kind's colour and dash (Okabe–Ito colours, each
//! with its own dash as well, so no reader depends on telling colours apart), arrows from
//! the entry that completed a future to the step it woke, marks, and a legend of what the
//! picture uses. Every element carries a `<title>` (a tooltip in browsers) and entries a
//! `data-entry` id, which the HTML page uses for its details.

use std::fmt::Write as _;

use super::Spacing;
use super::layout::{self, LEFT, Layout, TOP};
use super::model::*;

/// A wait kind's colour, dash pattern, line width and legend text.
pub fn wait_style(kind: WaitKind) -> (&'static str, &'static str, f64, &'static str) {
    match kind {
        WaitKind::Sleep => ("#56B4E9", "2 3", 3.0, "sleep"),
        WaitKind::Future => ("#7a7a7a", "", 2.0, "a Future"),
        WaitKind::QueueGet => ("#009E73", "", 3.0, "Queue.get (empty queue)"),
        WaitKind::QueuePut => ("#D55E00", "", 4.0, "Queue.put (full queue)"),
        WaitKind::Lock => ("#CC79A7", "7 3", 3.0, "Lock / Semaphore / Condition"),
        WaitKind::Event => ("#E69F00", "9 2 2 2", 3.0, "Event.wait / Queue.join"),
        WaitKind::Task => ("#0072B2", "", 3.0, "another task / gather"),
        WaitKind::TaskGroup => ("#0072B2", "9 3", 3.0, "TaskGroup exit"),
        WaitKind::Io => ("#000000", "1 2", 2.0, "socket I/O"),
        WaitKind::Yield => ("#7a7a7a", "1 3", 2.0, "nothing: a bare yield, sleep(0)"),
    }
}

const CANCEL: &str = "#D55E00";
/// The narrowest picture: room for the title and the legend's longest line.
const LEGEND_WIDTH: f64 = 1000.0;
const HOOK: &str = "#CC79A7";

pub fn write(timeline: &Timeline, spacing: Spacing) -> String {
    let layout = layout::place(timeline, spacing);
    let legend_top = layout.bottom() + 28.0;
    let height = legend_top + 86.0 + 22.0 * (wait_legend(timeline).1 - 1) as f64;
    let width = layout.width.max(LEGEND_WIDTH);
    let mut out = String::new();
    let _ = writeln!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0}" height="{height:.0}" viewBox="0 0 {width:.0} {height:.0}" font-family="DejaVu Sans, Verdana, sans-serif" font-size="12">"#
    );
    let _ = writeln!(
        out,
        "<title>{} — event loop timeline</title>",
        esc(&timeline.program)
    );
    out.push_str(concat!(
        "<defs><marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" ",
        "markerWidth=\"7\" markerHeight=\"7\" orient=\"auto-start-reverse\">",
        "<path d=\"M0,0 L10,5 L0,10 z\" fill=\"#333\"/></marker></defs>\n"
    ));
    let _ = writeln!(
        out,
        r##"<rect x="0" y="0" width="{width:.0}" height="{height:.0}" fill="#ffffff"/>"##
    );
    header(&mut out, timeline, spacing, &layout);
    for (row, lanes) in layout.rows.iter().enumerate() {
        row_background(&mut out, timeline, &layout, row, lanes, width);
    }
    for (id, wait) in timeline.waits.iter().enumerate() {
        wait_line(&mut out, timeline, &layout, id, wait);
    }
    // Where the last small label of each row ends, so that labels never overlap.
    let mut label_end = vec![f64::NEG_INFINITY; layout.rows.len()];
    for (id, entry) in timeline.entries.iter().enumerate() {
        if layout.hidden[id] {
            continue;
        }
        let row = layout.row_of[entry.lane];
        if timeline.lanes[entry.lane].internal || entry.kind != EntryKind::Step {
            tick(&mut out, timeline, &layout, id, entry, &mut label_end[row]);
        } else {
            step_bar(&mut out, timeline, &layout, id, entry);
        }
    }
    let drawn = arrows_drawn(timeline, &layout);
    for (arrow, _) in timeline.arrows.iter().zip(&drawn).filter(|(_, d)| **d) {
        arrow_path(&mut out, timeline, &layout, arrow);
    }
    let mut ends: TextEnds = vec![[f64::NEG_INFINITY; 3]; layout.rows.len()];
    for mark in &timeline.marks {
        mark_shape(&mut out, timeline, &layout, mark, &mut ends);
    }
    legend(&mut out, timeline, legend_top);
    out.push_str("</svg>\n");
    out
}

fn header(out: &mut String, timeline: &Timeline, spacing: Spacing, layout: &Layout) {
    let _ = writeln!(
        out,
        r##"<text x="12" y="24" font-size="17" font-weight="bold" fill="#111">{} — the event loop's timeline</text>"##,
        esc(&timeline.program)
    );
    let spaced = match spacing {
        Spacing::Time => "left to right in loop time",
        Spacing::Iteration => "left to right one loop iteration after another",
    };
    let _ = writeln!(
        out,
        r##"<text x="12" y="44" fill="#444">{} clock · {spaced} · a bar is a task step, labelled with the lines where it resumed→stopped</text>"##,
        timeline.clock
    );
    let axis_y = TOP - 10.0;
    let _ = writeln!(
        out,
        r##"<line x1="{LEFT}" y1="{axis_y}" x2="{:.1}" y2="{axis_y}" stroke="#999"/>"##,
        layout.end
    );
    let name = match spacing {
        Spacing::Time => "loop time",
        Spacing::Iteration => "iteration",
    };
    let _ = writeln!(
        out,
        r##"<text x="{:.1}" y="{:.1}" text-anchor="end" fill="#666" font-size="11">{name}</text>"##,
        LEFT - 8.0,
        axis_y + 4.0
    );
    for (x, label) in &layout.ticks {
        let _ = writeln!(
            out,
            r##"<line x1="{x:.1}" y1="{:.1}" x2="{x:.1}" y2="{:.1}" stroke="#999"/><text x="{x:.1}" y="{:.1}" fill="#555" font-size="11">{}</text>"##,
            axis_y - 4.0,
            axis_y + 4.0,
            axis_y - 6.0,
            esc(label)
        );
    }
}

fn row_background(
    out: &mut String,
    timeline: &Timeline,
    layout: &Layout,
    row: usize,
    lanes: &[usize],
    width: f64,
) {
    let y = layout.y(row);
    if row.is_multiple_of(2) {
        let _ = writeln!(
            out,
            r##"<rect x="0" y="{:.1}" width="{width:.0}" height="{}" fill="#f4f4f4"/>"##,
            y - layout::ROW / 2.0,
            layout::ROW
        );
    }
    let first = &timeline.lanes[lanes[0]];
    let (name, sub) = match first.kind {
        LaneKind::Task => (first.name.clone(), first.coro.clone()),
        LaneKind::Callbacks => ("callbacks".to_string(), "the loop's own".to_string()),
        LaneKind::Selector => ("selector".to_string(), "waits for sockets".to_string()),
    };
    let _ = writeln!(
        out,
        r##"<text x="12" y="{:.1}" font-weight="bold" fill="#111">{}</text><text x="12" y="{:.1}" fill="#444" font-size="11">{}</text>"##,
        y - 2.0,
        esc(&name),
        y + 12.0,
        esc(&shorten(&sub, 22))
    );
    // The lane's line: from the task's creation to its last entry (or the end).
    let (start, end) = layout.spans[row];
    if start.is_finite() {
        let _ = writeln!(
            out,
            r##"<line x1="{start:.1}" y1="{y:.1}" x2="{end:.1}" y2="{y:.1}" stroke="#c8c8c8" stroke-width="1"/>"##
        );
    }
}

fn wait_line(out: &mut String, timeline: &Timeline, layout: &Layout, id: usize, wait: &Wait) {
    let from = layout.slots[wait.from];
    let x1 = from.x + from.w;
    let x2 = wait.to.map_or(layout.end, |to| layout.slots[to].x);
    let y = layout.lane_y(wait.lane);
    let (colour, dash, stroke, _) = wait_style(wait.kind);
    let dash = if dash.is_empty() {
        String::new()
    } else {
        format!(r#" stroke-dasharray="{dash}""#)
    };
    let lane = &timeline.lanes[wait.lane].name;
    let until = match wait.to {
        Some(to) => format!("until t={}", super::json::seconds(timeline.entries[to].t)),
        None => "still waiting at the end".to_string(),
    };
    let _ = writeln!(
        out,
        r#"<g data-wait="{}"><title>{} waits: {} ({}), {until}</title><line x1="{x1:.1}" y1="{y:.1}" x2="{x2:.1}" y2="{y:.1}" stroke="{colour}" stroke-width="{stroke}"{dash}/>"#,
        id,
        esc(lane),
        esc(&wait.label),
        esc(&wait.future),
    );
    let room = x2 - x1 - 6.0;
    let label = fit(&wait.label, room, 6.2);
    if !label.is_empty() {
        let _ = write!(
            out,
            r#"<text x="{:.1}" y="{:.1}" text-anchor="middle" font-size="10" fill="{}">{}</text>"#,
            (x1 + x2) / 2.0,
            y - 6.0,
            text_colour(colour),
            esc(&label)
        );
    }
    out.push_str("</g>\n");
}

/// A darker text colour for light line colours (yellow-orange, sky blue) on white.
fn text_colour(colour: &str) -> &str {
    match colour {
        "#56B4E9" => "#1f6f9f",
        "#E69F00" => "#8a5a00",
        other => other,
    }
}

/// When an entry ran, for its tooltip.
fn when(entry: &Entry) -> String {
    format!(
        "iteration {}, t={}",
        entry.iteration,
        super::json::seconds(entry.t)
    )
}

fn step_bar(out: &mut String, timeline: &Timeline, layout: &Layout, id: usize, entry: &Entry) {
    let slot = layout.slots[id];
    let y = layout.lane_y(entry.lane);
    let lane = &timeline.lanes[entry.lane];
    let label = layout::step_label(entry);
    let mut title = format!(
        "{} step: {} into {} ({})",
        lane.name,
        entry.what,
        lane.coro,
        when(entry)
    );
    if !entry.chain.is_empty() {
        let _ = write!(title, "; stopped at {}", entry.chain);
    }
    if let Some(outcome) = &entry.outcome {
        let _ = write!(title, "; {}", describe_outcome(outcome));
    }
    let stroke = if entry.cancel_delivered {
        format!(r#" stroke="{CANCEL}" stroke-width="3""#)
    } else {
        String::new()
    };
    let _ = writeln!(
        out,
        r##"<g data-entry="{id}"><title>{}</title><rect x="{:.1}" y="{:.1}" width="{:.1}" height="22" rx="3" fill="#333333"{stroke}/><text x="{:.1}" y="{:.1}" text-anchor="middle" font-family="DejaVu Sans Mono, monospace" font-size="11" fill="#fff">{}</text></g>"##,
        esc(&title),
        slot.x,
        y - 11.0,
        slot.w,
        slot.x + slot.w / 2.0,
        y + 4.0,
        esc(&label)
    );
}

/// A callback, a select, or a step of the runner's own tasks: a grey tick, with a small
/// label below when there is room.
fn tick(
    out: &mut String,
    timeline: &Timeline,
    layout: &Layout,
    id: usize,
    entry: &Entry,
    label_end: &mut f64,
) {
    let slot = layout.slots[id];
    let y = layout.lane_y(entry.lane);
    let lane = &timeline.lanes[entry.lane];
    let (title, label) = match entry.kind {
        EntryKind::Select => (entry.what.clone(), "select".to_string()),
        EntryKind::Callback => (
            format!("callback {}", entry.what),
            callback_name(&entry.what),
        ),
        EntryKind::Step => (
            format!("{} step: {} into {}", lane.name, entry.what, lane.coro),
            callback_name(&lane.coro),
        ),
    };
    let label = if slot.x >= *label_end {
        *label_end = slot.x + 5.6 * label.chars().count() as f64 + 6.0;
        format!(
            r##"<text x="{:.1}" y="{:.1}" font-size="9" fill="#555">{}</text>"##,
            slot.x,
            y + 19.0,
            esc(&label)
        )
    } else {
        String::new()
    };
    let _ = writeln!(
        out,
        r##"<g data-entry="{id}"><title>{} ({})</title><rect x="{:.1}" y="{:.1}" width="{:.1}" height="16" rx="2" fill="#9a9a9a"/>{label}</g>"##,
        esc(&title),
        when(entry),
        slot.x,
        y - 8.0,
        slot.w,
    );
}

/// `_on_task_done` for `TaskGroup._on_task_done(Task-2)`.
fn callback_name(what: &str) -> String {
    let head = what.split('(').next().unwrap_or(what);
    head.rsplit('.').next().unwrap_or(head).to_string()
}

fn describe_outcome(outcome: &Outcome) -> String {
    match outcome {
        Outcome::Waits(f) => format!("waits for {f}"),
        Outcome::Yield => "a bare yield: steps again soon".into(),
        Outcome::Returned(v) => format!("returned {v}"),
        Outcome::Raised(e) => format!("raised {e}"),
        Outcome::Cancelled(e) => format!("raised {e}: cancelled"),
    }
}

/// Which arrows the picture draws: those between shown entries that lead to a task's
/// step, directly or through callbacks (a done callback that wakes nothing, such as the
/// runner's bookkeeping, gets no arrow in).
fn arrows_drawn(timeline: &Timeline, layout: &Layout) -> Vec<bool> {
    let mut drawn = vec![false; timeline.arrows.len()];
    let mut leads_on = vec![false; timeline.entries.len()];
    let mut order: Vec<usize> = (0..timeline.arrows.len()).collect();
    // An arrow's target runs after its source: deciding the latest targets first, a
    // callback's arrows out are known before the arrows into it.
    order.sort_by_key(|&a| std::cmp::Reverse(timeline.arrows[a].to));
    for a in order {
        let Arrow { from, to, .. } = timeline.arrows[a];
        let target = &timeline.entries[to];
        let shown = !layout.hidden[from] && !layout.hidden[to];
        let useful = match target.kind {
            EntryKind::Step => !timeline.lanes[target.lane].internal,
            _ => leads_on[to],
        };
        if shown && useful {
            drawn[a] = true;
            leads_on[from] = true;
        }
    }
    drawn
}

fn arrow_path(out: &mut String, timeline: &Timeline, layout: &Layout, arrow: &Arrow) {
    let (from, to) = (layout.slots[arrow.from], layout.slots[arrow.to]);
    let (fe, te) = (&timeline.entries[arrow.from], &timeline.entries[arrow.to]);
    let (y1, y2) = (layout.lane_y(fe.lane), layout.lane_y(te.lane));
    let x1 = from.x + from.w / 2.0;
    let x2 = to.x + 2.0;
    // Leave the source bar from its top or bottom edge, towards the woken row.
    let (y1, y2) = if y2 > y1 {
        (y1 + 11.0, y2 - 11.0)
    } else if y2 < y1 {
        (y1 - 11.0, y2 + 11.0)
    } else {
        (y1 - 11.0, y2 - 11.0)
    };
    let bend = if (y2 - y1).abs() < 1.0 { -20.0 } else { 0.0 };
    let _ = writeln!(
        out,
        r##"<path d="M{x1:.1},{y1:.1} C{x1:.1},{:.1} {x2:.1},{:.1} {x2:.1},{y2:.1}" fill="none" stroke="#333" stroke-width="1.3" stroke-opacity="0.75" marker-end="url(#arrow)"><title>{} completed {}, which woke {}</title></path>"##,
        (y1 + y2) / 2.0 + bend,
        (y1 + y2) / 2.0 + bend,
        esc(&timeline.lanes[fe.lane].name),
        esc(&arrow.future),
        esc(&timeline.lanes[te.lane].name),
    );
}

/// Where a mark goes: the end of its entry, or just after the entry before it.
fn mark_x(layout: &Layout, mark: &Mark) -> f64 {
    match (mark.entry, mark.after) {
        (Some(e), _) => layout.slots[e].x + layout.slots[e].w,
        (None, Some(e)) => layout.slots[e].x + layout.slots[e].w + 2.0,
        (None, None) => LEFT,
    }
}

/// Where the marks' texts of each row end, above the lane, beside it and below it, so
/// that marks at one place stand side by side instead of on top of each other.
type TextEnds = Vec<[f64; 3]>;

fn mark_shape(
    out: &mut String,
    timeline: &Timeline,
    layout: &Layout,
    mark: &Mark,
    ends: &mut TextEnds,
) {
    if is_routine(timeline, mark) {
        return;
    }
    let y = layout.lane_y(mark.lane);
    let x = mark_x(layout, mark);
    let row = layout.row_of[mark.lane];
    // Which band the mark's text goes in, and its text.
    let (band, text) = match mark.kind {
        MarkKind::Created | MarkKind::CancelDelivered => (None, String::new()),
        MarkKind::CancelRequested => (Some(0), "cancel()".to_string()),
        MarkKind::AsyncgenFirstiter
        | MarkKind::AsyncgenFinalizer
        | MarkKind::AcloseScheduled
        | MarkKind::ShutdownAsyncgens => (Some(0), shorten(&mark.text, 36)),
        MarkKind::Cancelled => (Some(1), "cancelled".to_string()),
        MarkKind::Exception => (Some(1), shorten(&mark.text, 40)),
        MarkKind::Result => (Some(1), shorten(&mark.text, 28)),
        MarkKind::CancelSwallowed => (Some(2), "swallowed the cancel!".to_string()),
        MarkKind::CancelHandled => (Some(2), "cancel handled".to_string()),
    };
    let x = match band {
        Some(band) => {
            let x = x.max(ends[row][band] + 6.0);
            ends[row][band] = x + 16.0 + 5.8 * text.chars().count() as f64;
            x
        }
        None => x,
    };
    let shape = match mark.kind {
        MarkKind::Created => {
            format!(r##"<circle cx="{x:.1}" cy="{y:.1}" r="3.5" fill="#fff" stroke="#555"/>"##)
        }
        MarkKind::CancelDelivered => String::new(),
        MarkKind::CancelRequested => format!(
            r#"<path d="M{:.1},{:.1} l8,8 m0,-8 l-8,8" stroke="{CANCEL}" stroke-width="2.5"/>{}"#,
            x - 4.0,
            y - 23.0,
            small_text(x + 6.0, y - 15.0, CANCEL, &text)
        ),
        MarkKind::CancelSwallowed => small_text(x + 3.0, y + 22.0, CANCEL, &text),
        MarkKind::CancelHandled => small_text(x + 3.0, y + 22.0, "#555", &text),
        MarkKind::Cancelled => format!(
            r#"<path d="M{:.1},{:.1} l9,9 m0,-9 l-9,9" stroke="{CANCEL}" stroke-width="2.5"/>{}"#,
            x + 2.0,
            y - 4.5,
            small_text(x + 14.0, y + 4.0, CANCEL, &text)
        ),
        MarkKind::Exception => format!(
            r##"<path d="M{:.1},{y:.1} l6,-6 l6,6 l-6,6 z" fill="#000"/>{}"##,
            x + 2.0,
            small_text(x + 16.0, y + 4.0, "#000", &text)
        ),
        MarkKind::Result => small_text(x + 4.0, y + 4.0, "#333", &text),
        MarkKind::AsyncgenFirstiter
        | MarkKind::AsyncgenFinalizer
        | MarkKind::AcloseScheduled
        | MarkKind::ShutdownAsyncgens => format!(
            r#"<path d="M{:.1},{:.1} l5,-5 l5,5 l-5,5 z" fill="{HOOK}"/>{}"#,
            x - 5.0,
            y - 17.0,
            small_text(x + 3.0, y - 14.0, "#8e3f73", &text)
        ),
    };
    if !shape.is_empty() {
        let title = format!("{}: {}", timeline.lanes[mark.lane].name, mark.text);
        let _ = writeln!(
            out,
            r#"<g data-mark="{}"><title>{}</title>{shape}</g>"#,
            mark.kind.name(),
            esc(&title)
        );
    }
}

/// A mark the picture leaves out: the runner's `shutdown_asyncgens` when it had nothing
/// to close, and the creation and result of the runner's own tasks.
fn is_routine(timeline: &Timeline, mark: &Mark) -> bool {
    let internal = timeline.lanes[mark.lane].internal;
    (mark.kind == MarkKind::ShutdownAsyncgens && mark.text.ends_with(" 0"))
        || (internal && matches!(mark.kind, MarkKind::Created | MarkKind::Result))
}

fn small_text(x: f64, y: f64, colour: &str, text: &str) -> String {
    format!(
        r#"<text x="{x:.1}" y="{y:.1}" font-size="10" fill="{colour}">{}</text>"#,
        esc(text)
    )
}

fn legend(out: &mut String, timeline: &Timeline, top: f64) {
    let _ = writeln!(
        out,
        r##"<text x="12" y="{:.1}" font-weight="bold" fill="#111">Legend</text>"##,
        top + 4.0
    );
    // What a task waited on: only the kinds this run has.
    let (places, lines) = wait_legend(timeline);
    for (kind, x, line) in places {
        let y = top + 22.0 * line as f64;
        let (colour, dash, stroke, text) = wait_style(kind);
        let dash = if dash.is_empty() {
            String::new()
        } else {
            format!(r#" stroke-dasharray="{dash}""#)
        };
        let _ = writeln!(
            out,
            r##"<line x1="{x:.1}" y1="{y:.1}" x2="{:.1}" y2="{y:.1}" stroke="{colour}" stroke-width="{stroke}"{dash}/><text x="{:.1}" y="{:.1}" fill="#222" font-size="11">waits: {text}</text>"##,
            x + 30.0,
            x + 36.0,
            y + 4.0
        );
    }
    let top = top + 22.0 * lines.saturating_sub(1) as f64;
    let y = top + 28.0;
    let _ = writeln!(
        out,
        r##"<rect x="80" y="{:.1}" width="42" height="18" rx="3" fill="#333"/><text x="101" y="{:.1}" text-anchor="middle" font-family="DejaVu Sans Mono, monospace" font-size="11" fill="#fff">7→9</text><text x="128" y="{:.1}" fill="#222" font-size="11">a step: resumed at line 7, stopped at line 9</text>"##,
        y - 9.0,
        y + 4.0,
        y + 4.0
    );
    let _ = writeln!(
        out,
        r##"<path d="M400,{:.1} C430,{:.1} 440,{:.1} 470,{:.1}" fill="none" stroke="#333" stroke-width="1.3" marker-end="url(#arrow)"/><text x="478" y="{:.1}" fill="#222" font-size="11">this step completed a future, which woke that one</text>"##,
        y - 6.0,
        y - 6.0,
        y + 6.0,
        y + 6.0,
        y + 4.0
    );
    let has = |kinds: &[MarkKind]| {
        timeline
            .marks
            .iter()
            .any(|m| kinds.contains(&m.kind) && !is_routine(timeline, m))
    };
    let mut items = vec![
        (Symbol::Created, "a task is created"),
        (Symbol::Callback, "a callback the loop ran"),
    ];
    if has(&[MarkKind::CancelRequested, MarkKind::CancelDelivered]) {
        items.push((
            Symbol::Cancel,
            "cancel() requested; a red-edged step had it delivered",
        ));
    }
    if has(&[MarkKind::Exception]) {
        items.push((Symbol::Exception, "an exception ended the task"));
    }
    if has(&[
        MarkKind::AsyncgenFirstiter,
        MarkKind::AsyncgenFinalizer,
        MarkKind::AcloseScheduled,
        MarkKind::ShutdownAsyncgens,
    ]) {
        items.push((Symbol::Hook, "an async-generator hook"));
    }
    let y = top + 56.0;
    let mut x = 80.0;
    for (symbol, text) in items {
        let _ = writeln!(
            out,
            r##"{}<text x="{:.1}" y="{:.1}" fill="#222" font-size="11">{text}</text>"##,
            symbol.draw(x, y),
            x + 16.0,
            y + 4.0
        );
        x += 30.0 + 6.4 * text.len() as f64;
    }
}

/// Where the legend puts each kind of wait this run has: (kind, x, line), wrapped to the
/// legend's width; and how many lines that takes.
fn wait_legend(timeline: &Timeline) -> (Vec<(WaitKind, f64, usize)>, usize) {
    let mut places = Vec::new();
    let (mut x, mut line) = (80.0, 0);
    for kind in WaitKind::ALL {
        if !timeline.waits.iter().any(|w| w.kind == kind) {
            continue;
        }
        let width = 50.0 + 6.6 * (wait_style(kind).3.len() as f64 + 7.0);
        if x + width > LEGEND_WIDTH && x > 80.0 {
            (x, line) = (80.0, line + 1);
        }
        places.push((kind, x, line));
        x += width;
    }
    (places, line + 1)
}

/// The legend's symbols, drawn as the marks are.
#[derive(Clone, Copy)]
enum Symbol {
    Created,
    Callback,
    Cancel,
    Exception,
    Hook,
}

impl Symbol {
    fn draw(self, x: f64, y: f64) -> String {
        match self {
            Symbol::Created => format!(
                r##"<circle cx="{:.1}" cy="{y:.1}" r="3.5" fill="#fff" stroke="#555"/>"##,
                x + 4.0
            ),
            Symbol::Callback => format!(
                r##"<rect x="{x:.1}" y="{:.1}" width="8" height="16" rx="2" fill="#9a9a9a"/>"##,
                y - 8.0
            ),
            Symbol::Cancel => format!(
                r#"<path d="M{x:.1},{:.1} l8,8 m0,-8 l-8,8" stroke="{CANCEL}" stroke-width="2.5"/>"#,
                y - 4.0
            ),
            Symbol::Exception => {
                format!(r##"<path d="M{x:.1},{y:.1} l6,-6 l6,6 l-6,6 z" fill="#000"/>"##)
            }
            Symbol::Hook => {
                format!(r#"<path d="M{x:.1},{y:.1} l5,-5 l5,5 l-5,5 z" fill="{HOOK}"/>"#)
            }
        }
    }
}

/// `text` cut to what fits in `room` pixels at `per_char` pixels a character ("" if not
/// even a few characters fit).
fn fit(text: &str, room: f64, per_char: f64) -> String {
    let chars = (room / per_char).floor() as usize;
    if chars >= text.chars().count() {
        text.to_string()
    } else if chars >= 4 {
        shorten(text, chars)
    } else {
        String::new()
    }
}

fn shorten(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let mut cut: String = text.chars().take(max.saturating_sub(1)).collect();
    cut.push('…');
    cut
}

/// Text escaped for XML.
pub fn esc(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            c if (c as u32) < 0x20 && c != '\n' && c != '\t' => out.push('?'),
            c => out.push(c),
        }
    }
    out
}
