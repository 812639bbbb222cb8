//! `--timeline FILE.json`: the timeline as data, for the HTML page's script and for tests.
//!
//! # The format (`"format": "apy-timeline/1"`)
//!
//! One object. Every `id` is the item's index in its array; references are ids.
//!
//! | key | value |
//! |-----|-------|
//! | `format` | `"apy-timeline/1"` |
//! | `program` | the program's file name (`"crawler.apy"`) |
//! | `clock` | `"virtual"` or `"real"` |
//! | `lanes` | `{id, kind, name, coro, created_by, created_at, internal}`: `kind` is `task`, `callbacks` (the loop's plain callbacks) or `selector` (its waits for sockets); `name` is `Task-2`; `coro` the coroutine the task drives (`worker()`); `created_by` the lane of the task that made it, `created_at` the entry running then (or null); `internal` for the runner's own tasks (`shutdown_asyncgens()`), drawn in the callbacks lane |
//! | `entries` | what the loop ran, in order: `{id, kind, lane, iteration, t, what, resume_line, stop_line, chain, outcome, cancel_delivered}`: `kind` is `step`, `callback` or `select`; `iteration` counts from 1; `t` is loop time in seconds since the first loop started; `what` is `send None`, `throw CancelledError()` or the callback `f(args)`; a step's `resume_line`/`stop_line` are lines of the task's own coroutine (null: at its start / it ended) and `chain` its await chain when it stopped; `outcome` is null or `{kind, value}` with `kind` one of `waits` (value: the future), `yield` (a bare yield), `returned` (the value's repr), `raised`, `cancelled` (the exception) |
//! | `waits` | `{id, lane, kind, from, to, future, label}`: a task waiting between the step `from` and the step `to` (null: still waiting at the end); `kind` is `sleep`, `future`, `queue-get`, `queue-put`, `lock`, `event`, `task`, `taskgroup`, `io` or `yield` (a bare yield, `sleep(0)`: `future` is empty); `label` what the picture writes on it (`Queue.put`, `Task-3`) |
//! | `arrows` | `{id, from, to, future}`: the entry `from` completed `future`, which woke the step `to` |
//! | `marks` | `{id, kind, lane, entry, after, text}`: `kind` is `created`, `cancel-requested`, `cancel-delivered`, `cancel-swallowed` (caught, with `cancelling()` still above 0), `cancel-handled` (caught after `uncancel()`, as `timeout` does), `cancelled`, `exception`, `result`, `asyncgen-firstiter`, `asyncgen-finalizer`, `aclose-scheduled` or `shutdown-asyncgens`; it happened during `entry`, or (`entry` null) after the entry `after` (null: before the first) |

use std::fmt::Write as _;

use super::model::*;

/// The whole timeline as JSON text, one item per line.
pub fn write(timeline: &Timeline) -> String {
    let mut out = String::from("{\n");
    let _ = writeln!(out, "\"format\": \"apy-timeline/1\",");
    let _ = writeln!(out, "\"program\": {},", quote(&timeline.program));
    let _ = writeln!(out, "\"clock\": {},", quote(timeline.clock));
    array(&mut out, "lanes", &timeline.lanes, |l| {
        format!(
            "\"kind\": {}, \"name\": {}, \"coro\": {}, \"created_by\": {}, \"created_at\": {}, \"internal\": {}",
            quote(l.kind.name()),
            quote(&l.name),
            quote(&l.coro),
            opt(l.created_by),
            opt(l.created_at),
            l.internal
        )
    });
    out.push_str(",\n");
    array(&mut out, "entries", &timeline.entries, |e| {
        format!(
            "\"kind\": {}, \"lane\": {}, \"iteration\": {}, \"t\": {}, \"what\": {}, \"resume_line\": {}, \"stop_line\": {}, \"chain\": {}, \"outcome\": {}, \"cancel_delivered\": {}",
            quote(e.kind.name()),
            e.lane,
            e.iteration,
            seconds(e.t),
            quote(&e.what),
            opt(e.resume_line),
            opt(e.stop_line),
            quote(&e.chain),
            outcome(e.outcome.as_ref()),
            e.cancel_delivered
        )
    });
    out.push_str(",\n");
    array(&mut out, "waits", &timeline.waits, |w| {
        format!(
            "\"lane\": {}, \"kind\": {}, \"from\": {}, \"to\": {}, \"future\": {}, \"label\": {}",
            w.lane,
            quote(w.kind.name()),
            w.from,
            opt(w.to),
            quote(&w.future),
            quote(&w.label)
        )
    });
    out.push_str(",\n");
    array(&mut out, "arrows", &timeline.arrows, |a| {
        format!(
            "\"from\": {}, \"to\": {}, \"future\": {}",
            a.from,
            a.to,
            quote(&a.future)
        )
    });
    out.push_str(",\n");
    array(&mut out, "marks", &timeline.marks, |m| {
        format!(
            "\"kind\": {}, \"lane\": {}, \"entry\": {}, \"after\": {}, \"text\": {}",
            quote(m.kind.name()),
            m.lane,
            opt(m.entry),
            opt(m.after),
            quote(&m.text)
        )
    });
    out.push_str("\n}\n");
    out
}

/// `"name": [` then one `{"id": i, …}` per line, then `]`.
fn array<T>(out: &mut String, name: &str, items: &[T], fields: impl Fn(&T) -> String) {
    let _ = write!(out, "{}: [", quote(name));
    for (id, item) in items.iter().enumerate() {
        let comma = if id == 0 { "" } else { "," };
        let _ = write!(out, "{comma}\n  {{\"id\": {id}, {}}}", fields(item));
    }
    out.push_str(if items.is_empty() { "]" } else { "\n]" });
}

fn outcome(outcome: Option<&Outcome>) -> String {
    let (kind, value) = match outcome {
        None => return "null".into(),
        Some(Outcome::Waits(f)) => ("waits", f.as_str()),
        Some(Outcome::Yield) => ("yield", ""),
        Some(Outcome::Returned(v)) => ("returned", v.as_str()),
        Some(Outcome::Raised(e)) => ("raised", e.as_str()),
        Some(Outcome::Cancelled(e)) => ("cancelled", e.as_str()),
    };
    format!("{{\"kind\": {}, \"value\": {}}}", quote(kind), quote(value))
}

fn opt<T: std::fmt::Display>(v: Option<T>) -> String {
    v.map_or("null".into(), |v| v.to_string())
}

/// Loop time with microsecond precision, so a virtual-clock run is the same every time.
pub fn seconds(t: f64) -> String {
    let t = if t.abs() < 5e-7 { 0.0 } else { t };
    let text = format!("{t:.6}");
    let text = text.trim_end_matches('0');
    match text.strip_suffix('.') {
        Some(whole) => format!("{whole}.0"),
        None => text.to_string(),
    }
}

/// A JSON string literal.
pub fn quote(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            // `<` escaped too, so the text can sit inside an HTML <script> element.
            c if (c as u32) < 0x20 || c == '<' => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoting_and_seconds() {
        assert_eq!(quote("a\"b\\c\n</script>"), r#""a\"b\\c\n\u003c/script>""#);
        assert_eq!(seconds(0.05), "0.05");
        assert_eq!(seconds(-0.0), "0.0");
        assert_eq!(seconds(2.0), "2.0");
    }
}
