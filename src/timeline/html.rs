//! `--timeline FILE.html`: one self-contained page (no network): the picture in both
//! spacings (a button switches between loop time and loop iterations), the timeline's JSON,
//! and a short script that shows the details of whatever the pointer is over — a step's
//! await chain and outcome, the arrows into and out of it, a wait's future.

use super::Spacing;
use super::model::Timeline;

const SCRIPT: &str = r#"
const data = JSON.parse(document.getElementById('timeline-data').textContent);
const details = document.getElementById('details');
const lane = id => data.lanes[id].name;
function show(text) { details.textContent = text; }
function entryText(id) {
  const e = data.entries[id];
  const lines = [`${lane(e.lane)} — ${e.kind} #${id}, iteration ${e.iteration}, t=${e.t}s`, e.what];
  if (e.kind === 'step') {
    lines.push(`resumed at ${e.resume_line ?? 'its start'}, stopped at ${e.stop_line ?? 'its end'}`);
    if (e.chain) lines.push('await chain: ' + e.chain);
    if (e.outcome) lines.push(`${e.outcome.kind} ${e.outcome.value}`);
    if (e.cancel_delivered) lines.push('a cancellation was delivered into it');
  }
  for (const a of data.arrows) {
    if (a.to === id) lines.push(`woken: ${a.future} completed by ${lane(data.entries[a.from].lane)} (entry #${a.from})`);
    if (a.from === id) lines.push(`completed ${a.future}, which woke ${lane(data.entries[a.to].lane)} (entry #${a.to})`);
  }
  for (const m of data.marks) if (m.entry === id) lines.push(`${lane(m.lane)}: ${m.text}`);
  return lines.join('\n');
}
document.querySelectorAll('[data-entry]').forEach(el =>
  el.addEventListener('mouseenter', () => show(entryText(Number(el.dataset.entry)))));
document.querySelectorAll('[data-wait]').forEach(el =>
  el.addEventListener('mouseenter', () => {
    const w = data.waits[Number(el.dataset.wait)];
    show(`${lane(w.lane)} waits on ${w.label} (${w.future}, ${w.kind}) from entry #${w.from} to ${w.to === null ? 'the end' : 'entry #' + w.to}`);
  }));
const views = document.querySelectorAll('.view');
document.getElementById('switch').addEventListener('click', () =>
  views.forEach(v => v.hidden = !v.hidden));
"#;

pub fn write(timeline: &Timeline) -> String {
    let program = super::svg::esc(&timeline.program);
    let by_time = super::svg::write(timeline, Spacing::Time);
    let by_iteration = super::svg::write(timeline, Spacing::Iteration);
    let json = super::json::write(timeline);
    format!(
        r#"<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>{program} — event loop timeline</title>
<style>
body {{ font-family: DejaVu Sans, Verdana, sans-serif; margin: 1em; color: #111; }}
.view {{ overflow-x: auto; border: 1px solid #ddd; }}
#details {{ position: sticky; bottom: 0; background: #fffbe6; border: 1px solid #e0d9b0;
  padding: .6em; white-space: pre-wrap; font-family: DejaVu Sans Mono, monospace;
  font-size: 13px; min-height: 5em; }}
[data-entry], [data-wait] {{ cursor: pointer; }}
</style>
</head>
<body>
<p><button id="switch">Switch spacing: loop time / loop iterations</button>
Point at a step, a wait or an arrow for its details.</p>
<div class="view">{by_time}</div>
<div class="view" hidden>{by_iteration}</div>
<pre id="details">Point at a step or a wait.</pre>
<script type="application/json" id="timeline-data">{json}</script>
<script>{SCRIPT}</script>
</body>
</html>
"#
    )
}
