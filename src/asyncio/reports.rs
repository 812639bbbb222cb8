//! asyncio's reports about futures freed in a bad state ("Task exception was never
//! retrieved", "Task was destroyed but it is pending!"), as `Lib/asyncio/futures.py`'s and
//! `tasks.py`'s `__del__` log them. A `Drop` only queues a report (STYLE.md principle 8);
//! the loop prints the queue after each callback, and whatever is left at thread exit.

use std::cell::RefCell;

use crate::vm::value::Value;
use crate::vm::{Exc, Vm};

/// One queued report: its header, the `future:`/`task:` repr without the exception part,
/// and the exception whose traceback follows.
pub struct Report {
    pub header: &'static str,
    pub context: String,
    pub exception: Option<Exc>,
    /// The `--explain` note printed after the report.
    pub note: Option<String>,
}

/// The queue; prints what is still queued when the interpreter thread ends.
struct Queue(Vec<Report>);

impl Drop for Queue {
    fn drop(&mut self) {
        for report in self.0.drain(..) {
            let mut text = format!("{}\n{}", report.header, report.context);
            if let Some(e) = &report.exception {
                text.push_str(&format!(" exception={}>", plain_exception(e)));
                text.push_str(&format!("\n{}", plain_exception_line(e)));
            }
            eprintln!("{text}");
            eprint!("{}", report.note.unwrap_or_default());
        }
    }
}

thread_local! {
    static QUEUE: RefCell<Queue> = const { RefCell::new(Queue(Vec::new())) };
}

pub fn queue(report: Report) {
    let _ = QUEUE.try_with(|q| q.borrow_mut().0.push(report));
}

/// Prints every queued report on stderr, with full tracebacks.
pub fn flush(vm: &mut Vm) {
    loop {
        let Ok(Some(report)) = QUEUE.try_with(|q| {
            let mut q = q.borrow_mut();
            if q.0.is_empty() {
                None
            } else {
                Some(q.0.remove(0))
            }
        }) else {
            return;
        };
        vm.flush_stdout();
        let mut text = format!("{}\n{}", report.header, report.context);
        if let Some(e) = &report.exception {
            let shown = vm
                .repr(&Value::Object(e.clone()))
                .unwrap_or_else(|_| plain_exception(e));
            text.push_str(&format!(" exception={shown}>\n"));
            text.push_str(&vm.format_exception(e));
        } else {
            text.push('\n');
        }
        text.push_str(report.note.as_deref().unwrap_or_default());
        eprint!("{text}");
    }
}

/// `ValueError('message')` without running user code.
fn plain_exception(e: &Exc) -> String {
    format!(
        "{}({})",
        e.class.name,
        first_arg(e).map_or(String::new(), |a| format!("{a:?}"))
    )
}

fn plain_exception_line(e: &Exc) -> String {
    match first_arg(e) {
        Some(a) => format!("{}: {a}", e.class.name),
        None => e.class.name.to_string(),
    }
}

fn first_arg(e: &Exc) -> Option<String> {
    let data = e.exc_data()?.borrow();
    match &data.args {
        Value::Tuple(t) => t.items.first().and_then(|a| a.as_str()).map(str::to_string),
        _ => None,
    }
}
