//! Where everything of a [`Timeline`] goes in the picture. Entries run one after another
//! (one thread), so each shown entry gets its own slot from left to right — a step a bar
//! wide enough for its line numbers, a callback a tick — and between two slots a gap: in
//! proportion to the loop time that passed ([`Spacing::Time`]), or a fixed one at each new
//! loop iteration ([`Spacing::Iteration`]). Rows top to bottom: each task in order of
//! creation, then the loop's callbacks (with the runner's own tasks), then the selector.

use super::Spacing;
use super::model::*;

pub const LEFT: f64 = 150.0;
pub const TOP: f64 = 78.0;
pub const ROW: f64 = 50.0;
pub const RIGHT: f64 = 110.0;
const STEP_W: f64 = 42.0;
const CALLBACK_W: f64 = 8.0;
const PAD: f64 = 5.0;
const ITERATION_GAP: f64 = 14.0;
/// In time spacing, the width the run's whole time takes: about half the slots' width,
/// within these bounds.
const TIME_MIN: f64 = 240.0;
const TIME_MAX: f64 = 900.0;

/// A shown entry's slot.
#[derive(Clone, Copy, Debug)]
pub struct Slot {
    pub x: f64,
    pub w: f64,
}

pub struct Layout {
    /// For each entry, its slot; a hidden entry gets a slot of width 0 where it ran.
    pub slots: Vec<Slot>,
    pub hidden: Vec<bool>,
    /// For each lane, its row.
    pub row_of: Vec<usize>,
    /// Each row's lanes (the first names it) and its y (the middle of the row).
    pub rows: Vec<Vec<usize>>,
    /// Each row's line, from its first task's creation (or first entry) to its last entry
    /// (or the end, for a task still waiting); start is infinite for a row with neither.
    pub spans: Vec<(f64, f64)>,
    /// Ticks on the axis: x and label.
    pub ticks: Vec<(f64, String)>,
    /// Where the entries end.
    pub end: f64,
    pub width: f64,
}

impl Layout {
    pub fn y(&self, row: usize) -> f64 {
        TOP + ROW * row as f64 + ROW / 2.0
    }

    pub fn lane_y(&self, lane: usize) -> f64 {
        self.y(self.row_of[lane])
    }

    /// The bottom of the last row.
    pub fn bottom(&self) -> f64 {
        TOP + ROW * self.rows.len() as f64
    }
}

/// Entries the picture leaves out, as the loop's plumbing: the timer that ends a `sleep`
/// (the sleep's line already ends there) and the callback that stops `run_until_complete`.
pub fn is_plumbing(entry: &Entry) -> bool {
    entry.kind == EntryKind::Callback
        && (entry.what.starts_with("_set_result_unless_cancelled(")
            || entry.what.starts_with("_run_until_complete_cb("))
}

pub fn place(timeline: &Timeline, spacing: Spacing) -> Layout {
    let (row_of, rows) = rows(timeline);
    let hidden: Vec<bool> = timeline.entries.iter().map(is_plumbing).collect();
    let width_of = |e: &Entry| match e.kind {
        EntryKind::Step if !timeline.lanes[e.lane].internal => {
            STEP_W.max(7.0 * step_label(e).chars().count() as f64 + 8.0)
        }
        _ => CALLBACK_W,
    };
    let shown_width: f64 = timeline
        .entries
        .iter()
        .zip(&hidden)
        .filter(|(_, h)| !**h)
        .map(|(e, _)| width_of(e) + PAD)
        .sum();
    let total_time = timeline.entries.last().map_or(0.0, |e| e.t);
    let scale = if total_time > 0.0 {
        (shown_width / 2.0).clamp(TIME_MIN, TIME_MAX) / total_time
    } else {
        0.0
    };
    let mut slots = Vec::with_capacity(timeline.entries.len());
    let mut ticks: Vec<(f64, String)> = Vec::new();
    let mut cursor = LEFT + PAD;
    let mut last_t = 0.0;
    let mut last_iteration = None;
    let mut last_tick_x = f64::NEG_INFINITY;
    for (entry, &hide) in timeline.entries.iter().zip(&hidden) {
        if spacing == Spacing::Time && entry.t > last_t {
            cursor += (entry.t - last_t) * scale;
            last_t = entry.t;
        }
        if hide {
            slots.push(Slot { x: cursor, w: 0.0 });
            continue;
        }
        let new_iteration = last_iteration != Some(entry.iteration);
        if spacing == Spacing::Iteration && new_iteration && last_iteration.is_some() {
            cursor += ITERATION_GAP;
        }
        let tick = match spacing {
            Spacing::Time if ticks.last().is_none_or(|(_, t)| *t != time_label(entry.t)) => {
                Some(time_label(entry.t))
            }
            Spacing::Iteration if new_iteration => Some(format!("#{}", entry.iteration)),
            _ => None,
        };
        if let Some(label) = tick {
            let room = 7.0 * label.chars().count() as f64 + 8.0;
            if cursor - last_tick_x >= room {
                ticks.push((cursor, label));
                last_tick_x = cursor;
            }
        }
        last_iteration = Some(entry.iteration);
        let w = width_of(entry);
        slots.push(Slot { x: cursor, w });
        cursor += w + PAD;
    }
    let spans = spans(timeline, &slots, &row_of, rows.len(), cursor);
    Layout {
        slots,
        hidden,
        row_of,
        rows,
        spans,
        ticks,
        end: cursor,
        width: cursor + RIGHT,
    }
}

fn spans(
    timeline: &Timeline,
    slots: &[Slot],
    row_of: &[usize],
    rows: usize,
    end: f64,
) -> Vec<(f64, f64)> {
    let mut spans = vec![(f64::INFINITY, LEFT); rows];
    let end_of = |e: usize| slots[e].x + slots[e].w;
    for (lane, l) in timeline.lanes.iter().enumerate() {
        if let Some(e) = l.created_at {
            let span = &mut spans[row_of[lane]];
            span.0 = span.0.min(end_of(e));
        }
    }
    for (id, entry) in timeline.entries.iter().enumerate() {
        let span = &mut spans[row_of[entry.lane]];
        *span = (span.0.min(slots[id].x), span.1.max(end_of(id)));
    }
    for wait in timeline.waits.iter().filter(|w| w.to.is_none()) {
        spans[row_of[wait.lane]].1 = end;
    }
    spans
}

/// The rows: tasks in order of creation, then the callbacks (with the runner's own tasks),
/// then the selector.
fn rows(timeline: &Timeline) -> (Vec<usize>, Vec<Vec<usize>>) {
    let mut rows: Vec<Vec<usize>> = Vec::new();
    let mut row_of = vec![0; timeline.lanes.len()];
    let tasks = timeline
        .lanes
        .iter()
        .enumerate()
        .filter(|(_, l)| l.kind == LaneKind::Task && !l.internal);
    for (id, _) in tasks {
        row_of[id] = rows.len();
        rows.push(vec![id]);
    }
    for group in [
        |l: &Lane| l.kind == LaneKind::Callbacks || l.internal,
        |l: &Lane| l.kind == LaneKind::Selector,
    ] {
        let lanes: Vec<usize> = (0..timeline.lanes.len())
            .filter(|&id| group(&timeline.lanes[id]))
            .collect();
        if lanes.is_empty() {
            continue;
        }
        for &id in &lanes {
            row_of[id] = rows.len();
        }
        rows.push(lanes);
    }
    (row_of, rows)
}

/// A step's label: the line it resumed at → the line it stopped at (`start` for a first
/// step, `end` for the last).
pub fn step_label(entry: &Entry) -> String {
    let from = entry
        .resume_line
        .map_or("start".to_string(), |l| l.to_string());
    let to = entry.stop_line.map_or("end".to_string(), |l| l.to_string());
    format!("{from}→{to}")
}

/// `0.05s` on the time axis.
pub fn time_label(t: f64) -> String {
    format!("{}s", super::json::seconds(t))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step(lane: usize, iteration: u64, t: f64) -> Entry {
        Entry {
            kind: EntryKind::Step,
            lane,
            iteration,
            t,
            what: "send None".into(),
            resume_line: Some(3),
            stop_line: Some(4),
            chain: String::new(),
            outcome: None,
            cancel_delivered: false,
        }
    }

    fn timeline(entries: Vec<Entry>) -> Timeline {
        let lane = |name: &str| Lane {
            kind: LaneKind::Task,
            name: name.into(),
            coro: "main()".into(),
            created_by: None,
            created_at: None,
            internal: false,
        };
        Timeline {
            lanes: vec![lane("Task-1"), lane("Task-2")],
            entries,
            ..Timeline::default()
        }
    }

    /// The gap after a slot: where the next one starts minus where this one ends.
    fn gaps(layout: &Layout) -> Vec<f64> {
        let s = &layout.slots;
        (1..s.len())
            .map(|i| s[i].x - (s[i - 1].x + s[i - 1].w))
            .collect()
    }

    #[test]
    fn time_spacing_keeps_gaps_in_proportion_to_loop_time() {
        let t = timeline(vec![step(0, 1, 0.0), step(1, 2, 0.1), step(0, 3, 0.3)]);
        let g = gaps(&place(&t, Spacing::Time));
        // 0.1 s then 0.2 s: the second gap's time part is twice the first's.
        assert!(((g[1] - PAD) - 2.0 * (g[0] - PAD)).abs() < 1e-6, "{g:?}");
    }

    #[test]
    fn iteration_spacing_ignores_time_and_marks_each_iteration() {
        let t = timeline(vec![step(0, 1, 0.0), step(1, 1, 5.0), step(0, 2, 9.0)]);
        let layout = place(&t, Spacing::Iteration);
        assert_eq!(gaps(&layout), vec![PAD, PAD + ITERATION_GAP]);
        let ticks: Vec<&str> = layout.ticks.iter().map(|(_, l)| l.as_str()).collect();
        assert_eq!(ticks, ["#1", "#2"]);
    }

    #[test]
    fn plumbing_takes_no_room() {
        let mut timer = step(0, 1, 0.0);
        timer.kind = EntryKind::Callback;
        timer.what = "_set_result_unless_cancelled(Future#1, None)".into();
        let t = timeline(vec![step(0, 1, 0.0), timer, step(1, 1, 0.0)]);
        let layout = place(&t, Spacing::Iteration);
        assert_eq!(layout.hidden, [false, true, false]);
        assert_eq!(layout.slots[1].w, 0.0);
        assert_eq!(
            layout.slots[2].x,
            layout.slots[0].x + layout.slots[0].w + PAD
        );
        assert_eq!(step_label(&t.entries[0]), "3→4");
    }
}
