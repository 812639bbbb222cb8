//! `apy --timeline`: the pictures of the book's main examples (virtual clock), snapshot-tested
//! as SVG and JSON and written into `book/src/timelines/` for the book (ignored by git: the
//! book's images are made here, never by hand, so `.ci/run` runs this before `mdbook build`);
//! structural checks that read the JSON back against `--trace` of the same run (every task
//! step appears once, every arrow joins the entry that completed a future to the step it
//! woke); every SVG parsed as XML; and one picture rendered by headless Chromium to a PNG
//! that must not be blank.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The chapters' main examples: (example, the chapter that shows its picture, the
/// picture's spacing: everything in the first happens at t=0).
const BOOK: &[(&str, &str, &str)] = &[
    ("await_coro_vs_task", "06-tasks-and-futures.md", "iteration"),
    ("cancel_resource", "08-cancellation.md", "time"),
    ("taskgroup_except_star", "10-taskgroup.md", "time"),
    ("crawler", "11-queues.md", "time"),
    ("agen_finally_break", "13-async-generators.md", "time"),
];

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn out_dir() -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("timeline");
    std::fs::create_dir_all(&dir).expect("a folder for the timelines");
    dir
}

fn apy(args: &[&str], program: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_apy"))
        .args(args)
        .arg(program)
        .output()
        .expect("apy runs")
}

/// Runs `program` under the virtual clock with `--timeline FILE` (plus `extra`) and returns
/// the file's text, after checking that the switch left stdout and the exit status alone.
fn timeline(program: &Path, file_name: &str, extra: &[&str]) -> String {
    let file = out_dir().join(file_name);
    let file_arg = file.to_str().expect("a utf-8 path");
    let plain = apy(&["--clock", "virtual"], program);
    let mut args = vec!["--clock", "virtual", "--timeline", file_arg];
    args.extend_from_slice(extra);
    let drawn = apy(&args, program);
    assert_eq!(
        String::from_utf8_lossy(&drawn.stdout),
        String::from_utf8_lossy(&plain.stdout),
        "--timeline changed stdout of {}",
        program.display()
    );
    assert_eq!(drawn.status.code(), plain.status.code());
    std::fs::read_to_string(&file).expect("the timeline was written")
}

fn example(name: &str) -> PathBuf {
    root().join("examples").join(format!("{name}.apy"))
}

/// Parses an SVG as XML and checks its shape: an `<svg>` root with a title naming the
/// program, and a drawn element for each entry of the JSON not left out as plumbing.
fn check_svg<'a>(svg: &'a str, program: &str) -> roxmltree::Document<'a> {
    let doc = roxmltree::Document::parse(svg).unwrap_or_else(|e| panic!("{program}: {e}"));
    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "svg");
    assert_eq!(
        root.tag_name().namespace(),
        Some("http://www.w3.org/2000/svg")
    );
    let title = root
        .children()
        .find(|n| n.has_tag_name("title"))
        .and_then(|n| n.text())
        .unwrap_or_default();
    assert!(title.starts_with(program), "title {title:?}");
    doc
}

#[test]
fn the_book_pictures_are_drawn_from_the_examples() {
    let book = root().join("book/src/timelines");
    std::fs::create_dir_all(&book).expect("book/src/timelines");
    for (name, chapter, spacing) in BOOK {
        let program = example(name);
        let svg = timeline(
            &program,
            &format!("{name}.svg"),
            &["--timeline-spacing", spacing],
        );
        check_svg(&svg, &format!("{name}.apy"));
        insta::assert_snapshot!(format!("{name}.svg"), svg);
        let json = timeline(&program, &format!("{name}.json"), &[]);
        insta::assert_snapshot!(format!("{name}.json"), json);
        std::fs::write(book.join(format!("{name}.svg")), &svg).expect("the book's picture");
        let text =
            std::fs::read_to_string(root().join("book/src").join(chapter)).expect("the chapter");
        assert!(
            text.contains(&format!("timelines/{name}.svg")),
            "{chapter} should show timelines/{name}.svg"
        );
    }
}

#[test]
fn iteration_spacing_puts_a_gap_at_each_loop_iteration() {
    let svg = timeline(
        &example("cancel_resource"),
        "cancel_resource_iterations.svg",
        &["--timeline-spacing", "iteration"],
    );
    let doc = check_svg(&svg, "cancel_resource.apy");
    assert!(svg.contains(">#4</text>"), "iterations on the axis");
    assert!(!svg.contains(">0.01s</text>"), "no times on the axis");
    let bars = doc
        .descendants()
        .filter(|n| n.attribute("data-entry").is_some())
        .count();
    assert!(bars > 5);
    insta::assert_snapshot!(svg);
}

// ---- the JSON read back against --trace --------------------------------------------------

/// One entry of the loop as `--trace` tells it: what ran (`step Task-2`, `callback`,
/// `select`), the futures it completed, and for a step the future whose completion woke it.
#[derive(Debug, Default)]
struct Traced {
    kind: String,
    task: String,
    completed: Vec<String>,
    woken_by: Option<String>,
}

/// The entries of a `--trace=loop,tasks,futures` log, in order.
fn traced_entries(log: &str) -> Vec<Traced> {
    let mut entries: Vec<Traced> = Vec::new();
    let mut wakeup: Option<String> = None;
    let mut open = false;
    for line in log.lines() {
        let Some(text) = line.strip_prefix("trace| ") else {
            continue;
        };
        let text = text.trim_start();
        let first = text.split(' ').next().unwrap_or_default();
        if text.starts_with("iteration ") || text.starts_with("loop ") {
            open = false;
        } else if let Some(rest) = text.split_once(" wakes up: ") {
            wakeup = rest.1.strip_suffix(" is done").map(str::to_string);
        } else if text.contains(" step: ") {
            entries.push(Traced {
                kind: "step".into(),
                task: first.to_string(),
                woken_by: wakeup.take(),
                ..Traced::default()
            });
            open = true;
        } else if text.starts_with("run ") {
            // `run TaskGroup._on_task_done(Task-2)`: a done callback, run because its
            // future completed.
            let argument = text
                .strip_suffix(')')
                .and_then(|t| t.rsplit_once('('))
                .map(|(_, args)| args.rsplit(", ").next().unwrap_or(args).to_string())
                .filter(|arg| arg.starts_with("Task-") || arg.contains('#'));
            entries.push(Traced {
                kind: "callback".into(),
                woken_by: argument,
                ..Traced::default()
            });
            open = true;
        } else if text.starts_with("select ") {
            entries.push(Traced {
                kind: "select".into(),
                ..Traced::default()
            });
            open = true;
        } else if matches!(
            text.split(' ').nth(1),
            Some("finished" | "cancelled" | "cancelled,")
        ) && open
            && let Some(last) = entries.last_mut()
        {
            last.completed.push(first.to_string());
        }
    }
    entries
}

/// Runs `program` with both `--trace` and `--timeline FILE.json` and checks one against the
/// other.
fn check_against_trace(program: &Path) {
    let stem = program
        .file_stem()
        .and_then(|s| s.to_str())
        .expect("a name");
    let log = out_dir().join(format!("{stem}.trace"));
    let json = timeline(
        program,
        &format!("{stem}.checked.json"),
        &[
            "--trace=loop,tasks,futures",
            "--trace-file",
            log.to_str().expect("utf-8"),
        ],
    );
    let data: serde_json::Value = serde_json::from_str(&json).expect("valid JSON");
    let traced = traced_entries(&std::fs::read_to_string(&log).expect("the trace"));
    let entries = data["entries"].as_array().expect("entries");
    let lanes = data["lanes"].as_array().expect("lanes");
    let lane_name = |e: &serde_json::Value| {
        lanes[e["lane"].as_u64().expect("a lane") as usize]["name"]
            .as_str()
            .expect("a name")
            .to_string()
    };
    // Every entry of the trace, and so every task step, once and in order.
    let recorded: Vec<(String, String)> = entries
        .iter()
        .map(|e| {
            let kind = e["kind"].as_str().expect("a kind").to_string();
            let task = if kind == "step" {
                lane_name(e)
            } else {
                String::new()
            };
            (kind, task)
        })
        .collect();
    let expected: Vec<(String, String)> = traced
        .iter()
        .map(|t| (t.kind.clone(), t.task.clone()))
        .collect();
    assert_eq!(
        recorded, expected,
        "{stem}: the entries differ from --trace"
    );
    // Every arrow: from the entry during which the trace saw the future finish, to the step
    // the trace says that future woke.
    let arrows = data["arrows"].as_array().expect("arrows");
    for arrow in arrows {
        let from = arrow["from"].as_u64().expect("from") as usize;
        let to = arrow["to"].as_u64().expect("to") as usize;
        let future = arrow["future"].as_str().expect("future").to_string();
        assert!(from < to, "{stem}: an arrow goes back in time: {arrow}");
        assert!(
            traced[from].completed.contains(&future),
            "{stem}: entry {from} did not complete {future}: {:?}",
            traced[from]
        );
        assert_eq!(
            traced[to].woken_by.as_ref(),
            Some(&future),
            "{stem}: entry {to} was not woken by {future}"
        );
    }
    // And every task's wake-up by a future some entry completed has its arrow.
    for (to, t) in traced.iter().enumerate().filter(|(_, t)| t.kind == "step") {
        let Some(future) = &t.woken_by else { continue };
        if traced[..to].iter().any(|e| e.completed.contains(future)) {
            assert!(
                arrows
                    .iter()
                    .any(|a| a["to"] == to && a["future"] == *future.as_str()),
                "{stem}: no arrow for {future} waking entry {to}"
            );
        }
    }
    // Every wait ends at the next step of its lane, or runs to the end.
    for wait in data["waits"].as_array().expect("waits") {
        let lane = &wait["lane"];
        let from = wait["from"].as_u64().expect("from") as usize;
        let next = (from + 1..entries.len()).find(|&e| entries[e]["lane"] == *lane);
        match wait["to"].as_u64() {
            Some(to) => assert_eq!(Some(to as usize), next, "{stem}: {wait}"),
            None => assert_eq!(next, None, "{stem}: {wait}"),
        }
    }
}

#[test]
fn the_json_tells_what_the_trace_tells() {
    for (name, _, _) in BOOK {
        check_against_trace(&example(name));
    }
    let mut others: Vec<PathBuf> = std::fs::read_dir(root().join("tests/trace"))
        .expect("tests/trace")
        .map(|e| e.expect("an entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "apy"))
        .collect();
    others.sort();
    for program in others {
        check_against_trace(&program);
    }
}

#[test]
fn waits_are_told_apart_by_kind_and_cancellations_are_marked() {
    let data: serde_json::Value =
        serde_json::from_str(&timeline(&example("crawler"), "crawler_kinds.json", &[]))
            .expect("JSON");
    let kinds: Vec<&str> = data["waits"]
        .as_array()
        .expect("waits")
        .iter()
        .map(|w| w["kind"].as_str().expect("a kind"))
        .collect();
    // The producer waits on a full queue while the workers sleep in fetch().
    for kind in ["queue-put", "sleep", "taskgroup"] {
        assert!(
            kinds.contains(&kind),
            "crawler has no {kind} wait: {kinds:?}"
        );
    }
    let data: serde_json::Value =
        serde_json::from_str(&timeline(&example("cancel_resource"), "cancel.json", &[]))
            .expect("JSON");
    let marks: Vec<&str> = data["marks"]
        .as_array()
        .expect("marks")
        .iter()
        .map(|m| m["kind"].as_str().expect("a kind"))
        .collect();
    for kind in ["cancel-requested", "cancel-delivered", "cancelled"] {
        assert!(marks.contains(&kind), "no {kind} mark: {marks:?}");
    }
}

/// Lock, Event, a bare yield, gather and a timeout: each wait gets its kind, and the run
/// agrees with its trace.
#[test]
fn locks_events_and_yields_have_their_kinds() {
    let program = out_dir().join("kinds.apy");
    std::fs::write(
        &program,
        "import asyncio\n\
         async def holder(lock, event):\n\
         \x20   async with lock:\n\
         \x20       await event.wait()\n\
         async def contender(lock):\n\
         \x20   async with lock:\n\
         \x20       await asyncio.sleep(0)\n\
         async def main():\n\
         \x20   lock, event = asyncio.Lock(), asyncio.Event()\n\
         \x20   tasks = [asyncio.create_task(holder(lock, event)),\n\
         \x20            asyncio.create_task(contender(lock))]\n\
         \x20   await asyncio.sleep(0.1)\n\
         \x20   event.set()\n\
         \x20   await asyncio.gather(*tasks)\n\
         \x20   try:\n\
         \x20       async with asyncio.timeout(0.05):\n\
         \x20           await asyncio.sleep(1)\n\
         \x20   except TimeoutError:\n\
         \x20       print('timed out')\n\
         asyncio.run(main())\n",
    )
    .expect("the program");
    check_against_trace(&program);
    let data: serde_json::Value =
        serde_json::from_str(&timeline(&program, "kinds.json", &[])).expect("JSON");
    let kinds: Vec<&str> = data["waits"]
        .as_array()
        .expect("waits")
        .iter()
        .map(|w| w["kind"].as_str().expect("a kind"))
        .collect();
    for kind in ["lock", "event", "yield", "task", "sleep"] {
        assert!(kinds.contains(&kind), "no {kind} wait: {kinds:?}");
    }
    let marks = data["marks"].to_string();
    assert!(
        marks.contains("cancel-handled"),
        "the timeout's cancel: {marks}"
    );
}

#[test]
fn a_swallowed_cancellation_is_marked() {
    let program = out_dir().join("swallow.apy");
    std::fs::write(
        &program,
        "import asyncio\n\
         async def stubborn():\n\
         \x20   try:\n\
         \x20       await asyncio.sleep(1)\n\
         \x20   except asyncio.CancelledError:\n\
         \x20       pass\n\
         \x20   return 'kept going'\n\
         async def main():\n\
         \x20   t = asyncio.create_task(stubborn())\n\
         \x20   await asyncio.sleep(0)\n\
         \x20   t.cancel()\n\
         \x20   print(await t)\n\
         asyncio.run(main())\n",
    )
    .expect("the program");
    let json = timeline(&program, "swallow.json", &[]);
    assert!(json.contains(r#""kind": "cancel-swallowed""#), "{json}");
    assert!(
        json.contains(r#""text": "returned 'kept going'""#),
        "{json}"
    );
}

#[test]
fn the_html_page_is_self_contained() {
    let html = timeline(&example("cancel_resource"), "cancel_resource.html", &[]);
    assert!(html.starts_with("<!DOCTYPE html>"));
    assert!(html.contains(r#"<script type="application/json" id="timeline-data">"#));
    // Both spacings, and no address but the SVG namespace: nothing is fetched.
    assert_eq!(html.matches("<svg ").count(), 2);
    let addresses = html.matches("http").count();
    assert_eq!(
        addresses,
        html.matches("http://www.w3.org/2000/svg").count()
    );
}

#[test]
fn a_file_of_another_kind_is_a_usage_error() {
    let out = apy(&["--timeline", "picture.png"], &example("hello"));
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "apy: --timeline: 'picture.png' should end in .svg, .html or .json\n"
    );
}

#[test]
fn the_prompt_is_not_drawn() {
    let out = apy(&["-i", "--timeline", "t.svg"], &example("hello"));
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--timeline draws the run"));
}

#[test]
fn a_program_that_fails_is_still_drawn() {
    let program = out_dir().join("fails.apy");
    std::fs::write(
        &program,
        "import asyncio\nasync def main():\n    await asyncio.sleep(0.1)\n    raise ValueError('no')\nasyncio.run(main())\n",
    )
    .expect("the program");
    let json = timeline(&program, "fails.json", &[]);
    assert!(
        json.contains(r#""text": "raised ValueError('no')""#),
        "{json}"
    );
}

// ---- a real browser ------------------------------------------------------------------------

/// Renders the crawler's picture with headless Chromium and checks the PNG is not blank:
/// many pixels are not white, and the queue's back-pressure colour (vermillion) is there.
/// Without chromium the test says so and passes, unless `APY_REQUIRE_CHROMIUM=1` (CI).
#[test]
fn chromium_renders_the_crawler_picture() {
    let chromium = Path::new("/usr/bin/chromium");
    if !chromium.exists() {
        let message = "chromium is not installed (bash .ci/chromium.sh installs it): \
                       the timeline was not rendered in a browser";
        assert!(
            std::env::var_os("APY_REQUIRE_CHROMIUM").is_none(),
            "{message}"
        );
        println!("skipped: {message}");
        return;
    }
    let svg = out_dir().join("render.svg");
    std::fs::write(&svg, timeline(&example("crawler"), "render.svg", &[])).expect("the SVG");
    let png = out_dir().join("render.png");
    let _ = std::fs::remove_file(&png);
    let profile = out_dir().join("chromium-profile");
    let status = Command::new(chromium)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--hide-scrollbars",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg(format!("--screenshot={}", png.display()))
        .arg("--window-size=1200,800")
        .arg(format!("file://{}", svg.display()))
        .output()
        .expect("chromium runs");
    assert!(
        png.exists(),
        "chromium wrote no screenshot: {}",
        String::from_utf8_lossy(&status.stderr)
    );
    let decoder = png::Decoder::new(std::io::BufReader::new(
        std::fs::File::open(&png).expect("the PNG"),
    ));
    let mut reader = decoder.read_info().expect("a PNG");
    let mut pixels = vec![0; reader.output_buffer_size().expect("a size")];
    let info = reader.next_frame(&mut pixels).expect("a frame");
    let channels = info.color_type.samples();
    assert!(channels >= 3, "{:?}", info.color_type);
    let rgb: Vec<&[u8]> = pixels[..info.buffer_size()]
        .chunks(channels)
        .map(|p| &p[..3])
        .collect();
    let inked = rgb.iter().filter(|p| p.iter().any(|&c| c < 200)).count();
    assert!(
        inked * 50 > rgb.len(),
        "the picture is nearly blank: {inked} of {} pixels inked",
        rgb.len()
    );
    let vermillion = rgb
        .iter()
        .filter(|p| p[0] > 180 && p[1] > 70 && p[1] < 120 && p[2] < 40)
        .count();
    assert!(vermillion > 100, "no Queue.put line: {vermillion} pixels");
}
