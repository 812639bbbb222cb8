//! Builds a [`Timeline`] from the loop's events ([`crate::asyncio::record`]), as they happen,
//! on the interpreter thread. It names futures and tasks as `--trace` does, reads a task's
//! await chain to tell what it waits on, and remembers which entry completed each future so
//! that the step it wakes gets an arrow from there. It holds only weak references, so a
//! recorded run frees its objects when an unrecorded one does.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::{Rc, Weak};

use super::model::*;
use crate::asyncio::future::as_future;
use crate::asyncio::record::{Event, Hook};
use crate::asyncio::task;
use crate::asyncio::trace::future_name;
use crate::vm::Vm;
use crate::vm::frame::{FrameResult, as_generator};
use crate::vm::object::Object;
use crate::vm::trace::{describe, describe_call, describe_exc, generator_call};
use crate::vm::value::Value;

/// Objects by address, each with a weak reference that keeps the address from being
/// reused by a later object while it is remembered.
struct ByObject<T>(HashMap<usize, (Weak<Object>, T)>);

impl<T> Default for ByObject<T> {
    fn default() -> Self {
        ByObject(HashMap::new())
    }
}

impl<T: Copy> ByObject<T> {
    fn get(&self, v: &Value) -> Option<T> {
        let Value::Object(o) = v else { return None };
        self.0.get(&(Rc::as_ptr(o) as usize)).map(|(_, t)| *t)
    }

    fn insert(&mut self, v: &Value, t: T) {
        if let Value::Object(o) = v {
            self.0.insert(Rc::as_ptr(o) as usize, (Rc::downgrade(o), t));
        }
    }
}

#[derive(Default)]
struct Recorder {
    timeline: Timeline,
    /// The loop being recorded, the loop time it started at, and the time already
    /// recorded for earlier loops (a program may run several one after another).
    event_loop: Weak<Object>,
    epoch: f64,
    offset: f64,
    t: f64,
    iteration: u64,
    /// Each task's lane.
    lanes: ByObject<usize>,
    /// The entry that completed each future (None: outside any entry).
    completed_by: ByObject<Option<usize>>,
    /// The steps running, innermost last (an eager task's first step runs inside another).
    steps: Vec<usize>,
    /// The callback or select running, when no step is.
    callback: Option<usize>,
    /// A lane's next step was woken by this future, completed in that entry.
    woken: HashMap<usize, (String, Option<usize>)>,
    /// A lane's wait in progress.
    waiting: HashMap<usize, usize>,
    callbacks_lane: Option<usize>,
    selector_lane: Option<usize>,
    /// The async generator whose `aclose()` the finalizer hook just scheduled: the task
    /// made next drives it.
    aclose_of: Option<String>,
}

thread_local! {
    static RECORDER: RefCell<Option<Recorder>> = const { RefCell::new(None) };
}

/// Starts recording this thread's loop events.
pub fn start(program: &str, clock: &'static str) -> bool {
    RECORDER.with(|r| {
        *r.borrow_mut() = Some(Recorder {
            timeline: Timeline {
                program: program.to_string(),
                clock,
                ..Timeline::default()
            },
            ..Recorder::default()
        });
    });
    crate::asyncio::record::install(on_event)
}

/// Stops recording and hands over what was recorded.
pub fn finish() -> Option<Timeline> {
    RECORDER.with(|r| r.borrow_mut().take()).map(|r| r.timeline)
}

fn on_event(vm: &mut Vm, event: &Event<'_>) {
    RECORDER.with(|r| {
        // An event met while one is being recorded (none should be) is left out.
        if let Ok(mut r) = r.try_borrow_mut()
            && let Some(r) = r.as_mut()
        {
            r.event(vm, event);
        }
    });
}

impl Recorder {
    fn event(&mut self, vm: &mut Vm, event: &Event<'_>) {
        let _ = vm;
        match *event {
            Event::LoopStart { event_loop, now } => self.loop_start(event_loop, now),
            Event::LoopStop => self.callback = None,
            Event::Iteration { now } => {
                self.iteration += 1;
                self.t = (now - self.epoch + self.offset).max(self.t);
                self.callback = None;
            }
            Event::Selected { waited, ready } => {
                let lane = self.selector_lane();
                #[cfg(not(target_arch = "wasm32"))]
                let what = crate::common::net::describe_ready(ready);
                // A page has no sockets: its loop never selects on one (src/web.rs).
                #[cfg(target_arch = "wasm32")]
                let what = format!("{} ready", ready.len());
                let what = match waited {
                    Some(_) => format!("select waited: {what}"),
                    None => format!("select polled: {what}"),
                };
                self.callback = Some(self.entry(EntryKind::Select, lane, what));
            }
            Event::RunHandle { handle } => {
                if let Some((callback, args, _)) = crate::asyncio::event_loop::handle_parts(handle)
                {
                    let lane = self.callbacks_lane();
                    let what = describe_call(callback, args);
                    self.callback = Some(self.entry(EntryKind::Callback, lane, what));
                }
            }
            Event::RunCall { func, arg } => {
                let lane = self.callbacks_lane();
                let what = describe_call(func, std::slice::from_ref(arg));
                let id = self.entry(EntryKind::Callback, lane, what);
                self.callback = Some(id);
                // A done callback runs because its future completed: an arrow from there.
                if let Some(Some(from)) = self.completed_by.get(arg) {
                    self.timeline.arrows.push(Arrow {
                        from,
                        to: id,
                        future: future_name(arg),
                    });
                }
            }
            Event::TaskCreated { task, by } => self.task_created(task, by),
            Event::TaskWakeup { task, future } => {
                self.callback = None;
                let lane = self.lane(task);
                let by = self.completed_by.get(future).flatten();
                self.woken.insert(lane, (future_name(future), by));
            }
            Event::TaskStep { task, exc } => self.task_step(task, exc),
            Event::TaskOutcome { task, outcome } => self.task_outcome(task, outcome),
            Event::StepEnd { task } => {
                let lane = self.lane(task);
                if let Some(at) = self
                    .steps
                    .iter()
                    .rposition(|&e| self.timeline.entries[e].lane == lane)
                {
                    self.steps.remove(at);
                }
            }
            Event::CancelRequested { task, msg } => {
                let lane = self.lane(task);
                let mut text = "cancel requested".to_string();
                if let Some(by) = self.current() {
                    let by = &self.timeline.lanes[self.timeline.entries[by].lane].name;
                    text = format!("{text} by {by}");
                }
                if !msg.is_none() {
                    text = format!("{text} (msg={})", describe(msg));
                }
                self.mark(MarkKind::CancelRequested, lane, text);
            }
            Event::FutureDone { future } => {
                let current = self.current();
                self.completed_by.insert(future, current);
            }
            Event::AsyncgenHook { hook, agen } => {
                let (kind, text) = match hook {
                    Hook::FirstIter => (MarkKind::AsyncgenFirstiter, "firstiter"),
                    Hook::Finalizer => (MarkKind::AsyncgenFinalizer, "finalizer"),
                    Hook::AcloseScheduled => (MarkKind::AcloseScheduled, "aclose scheduled"),
                };
                let lane = self.current_lane();
                let name = generator_call(agen);
                if let Hook::AcloseScheduled = hook {
                    self.aclose_of = Some(name.clone());
                }
                self.mark(kind, lane, format!("{text} {name}"));
            }
            Event::ShutdownAsyncgens { count } => {
                let lane = self.callbacks_lane();
                let text = format!("shutdown_asyncgens closes {count}");
                self.mark(MarkKind::ShutdownAsyncgens, lane, text);
            }
        }
    }

    fn loop_start(&mut self, event_loop: &Value, now: f64) {
        let Value::Object(this_loop) = event_loop else {
            return;
        };
        if !std::ptr::eq(self.event_loop.as_ptr(), Rc::as_ptr(this_loop)) {
            self.event_loop = Rc::downgrade(this_loop);
            self.epoch = now;
            self.offset = self.t;
        }
        self.callback = None;
    }

    /// The entry running now: the innermost step, else the callback.
    fn current(&self) -> Option<usize> {
        self.steps.last().copied().or(self.callback)
    }

    /// The lane of the entry running now, or the callbacks lane.
    fn current_lane(&mut self) -> usize {
        match self.current() {
            Some(e) => self.timeline.entries[e].lane,
            None => self.callbacks_lane(),
        }
    }

    fn callbacks_lane(&mut self) -> usize {
        if let Some(lane) = self.callbacks_lane {
            return lane;
        }
        let lane = self.new_lane(LaneKind::Callbacks, "callbacks".into(), String::new());
        self.callbacks_lane = Some(lane);
        lane
    }

    fn selector_lane(&mut self) -> usize {
        if let Some(lane) = self.selector_lane {
            return lane;
        }
        let lane = self.new_lane(LaneKind::Selector, "selector".into(), String::new());
        self.selector_lane = Some(lane);
        lane
    }

    fn new_lane(&mut self, kind: LaneKind, name: String, coro: String) -> usize {
        self.timeline.lanes.push(Lane {
            kind,
            name,
            coro,
            created_by: None,
            created_at: None,
            internal: false,
        });
        self.timeline.lanes.len() - 1
    }

    /// A task's lane, made on first sight.
    fn lane(&mut self, task: &Value) -> usize {
        if let Some(lane) = self.lanes.get(task) {
            return lane;
        }
        let coro = match task::task_coro(task) {
            Some(c) if as_generator(&c).is_some() => generator_call(&c),
            Some(c) => match self.aclose_of.take() {
                Some(agen) => format!("{agen}.aclose()"),
                None => describe(&c),
            },
            None => String::new(),
        };
        let lane = self.new_lane(LaneKind::Task, future_name(task), coro.clone());
        // The runner's own tasks (`shutdown_asyncgens()`) belong to the loop.
        self.timeline.lanes[lane].internal = coro.starts_with("BaseEventLoop.");
        self.lanes.insert(task, lane);
        lane
    }

    fn task_created(&mut self, task: &Value, by: &Value) {
        let lane = self.lane(task);
        let creator = if by.is_none() {
            None
        } else {
            Some(self.lane(by))
        };
        let at = self.current();
        let l = &mut self.timeline.lanes[lane];
        l.created_by = creator;
        l.created_at = at;
        let text = match creator {
            Some(c) => format!("created by {}", self.timeline.lanes[c].name),
            None => "created".to_string(),
        };
        self.mark(MarkKind::Created, lane, text);
    }

    fn entry(&mut self, kind: EntryKind, lane: usize, what: String) -> usize {
        self.timeline.entries.push(Entry {
            kind,
            lane,
            iteration: self.iteration,
            t: self.t,
            what,
            resume_line: None,
            stop_line: None,
            chain: String::new(),
            outcome: None,
            cancel_delivered: false,
        });
        self.timeline.entries.len() - 1
    }

    fn mark(&mut self, kind: MarkKind, lane: usize, text: String) {
        let entry = self.current();
        let after = match entry {
            Some(_) => None,
            None => self.timeline.entries.len().checked_sub(1),
        };
        self.timeline.marks.push(Mark {
            kind,
            lane,
            entry,
            after,
            text,
        });
    }

    fn task_step(&mut self, task: &Value, exc: Option<&crate::vm::Exc>) {
        self.callback = None;
        let lane = self.lane(task);
        let what = match exc {
            None => "send None".to_string(),
            Some(e) => format!("throw {}", describe_exc(e)),
        };
        let id = self.entry(EntryKind::Step, lane, what);
        self.timeline.entries[id].resume_line = resume_line(task);
        self.steps.push(id);
        if let Some(wait) = self.waiting.remove(&lane) {
            self.timeline.waits[wait].to = Some(id);
        }
        if let Some((future, Some(from))) = self.woken.remove(&lane)
            && from != id
        {
            self.timeline.arrows.push(Arrow {
                from,
                to: id,
                future,
            });
        }
        let delivered = exc.is_some_and(|e| e.class.name().as_ref() == "CancelledError")
            && task::cancelling(task) > 0;
        if delivered {
            self.timeline.entries[id].cancel_delivered = true;
            self.mark(
                MarkKind::CancelDelivered,
                lane,
                "cancellation delivered".into(),
            );
        }
    }

    fn task_outcome(&mut self, task: &Value, outcome: &FrameResult) {
        let lane = self.lane(task);
        let Some(&id) = self.steps.last() else {
            return;
        };
        let chain = task::await_chain(task);
        let entry = &mut self.timeline.entries[id];
        entry.stop_line = chain.first().map(|link| link.line);
        entry.chain = chain
            .iter()
            .map(|link| format!("{}() line {}", link.qualname, link.line))
            .collect::<Vec<_>>()
            .join(" > ");
        let delivered = entry.cancel_delivered;
        let result = match outcome {
            FrameResult::Yielded(v) if v.is_none() => {
                self.wait(lane, WaitKind::Yield, id, String::new(), "yield".into());
                Outcome::Yield
            }
            FrameResult::Yielded(v) if as_future(v).is_some() => {
                let (kind, label) = wait_kind(&chain, v);
                let future = future_name(v);
                self.wait(lane, kind, id, future.clone(), label);
                Outcome::Waits(future)
            }
            FrameResult::Yielded(v) => Outcome::Raised(format!("yielded {}", describe(v))),
            FrameResult::Returned(v) => Outcome::Returned(describe(v)),
            FrameResult::Err(e) if e.class.name().as_ref() == "CancelledError" => {
                Outcome::Cancelled(describe_exc(e))
            }
            FrameResult::Err(e) => Outcome::Raised(describe_exc(e)),
        };
        match &result {
            Outcome::Returned(v) => self.mark(MarkKind::Result, lane, format!("returned {v}")),
            Outcome::Raised(e) => self.mark(MarkKind::Exception, lane, format!("raised {e}")),
            Outcome::Cancelled(_) => self.mark(MarkKind::Cancelled, lane, "cancelled".into()),
            _ => {}
        }
        if delivered && !matches!(result, Outcome::Cancelled(_)) {
            if task::cancelling(task) > 0 {
                self.mark(
                    MarkKind::CancelSwallowed,
                    lane,
                    "cancellation swallowed".into(),
                );
            } else {
                self.mark(
                    MarkKind::CancelHandled,
                    lane,
                    "cancellation handled (uncancel)".into(),
                );
            }
        }
        self.timeline.entries[id].outcome = Some(result);
    }
}

impl Recorder {
    /// The task of `lane` waits from the step `from` until its next step.
    fn wait(&mut self, lane: usize, kind: WaitKind, from: usize, future: String, label: String) {
        self.timeline.waits.push(Wait {
            lane,
            kind,
            from,
            to: None,
            future,
            label,
        });
        self.waiting.insert(lane, self.timeline.waits.len() - 1);
    }
}

/// The line in a task's own coroutine where its next step resumes (None: at its start).
fn resume_line(task: &Value) -> Option<u32> {
    let coro = task::task_coro(task)?;
    let g = as_generator(&coro)?;
    let state = g.state.borrow();
    let frame = state.frame.as_ref()?;
    (frame.ip != 0).then(|| frame.line())
}

/// What a task waits on, from its await chain (the library coroutine it is suspended in)
/// and the future it yielded: the kind and the label drawn on the wait.
fn wait_kind(chain: &[task::Link], future: &Value) -> (WaitKind, String) {
    if task::task_name(future).is_some() {
        return (WaitKind::Task, future_name(future));
    }
    if let Value::Object(o) = future
        && o.class.name().as_ref() == "_GatheringFuture"
    {
        return (WaitKind::Task, "gather".into());
    }
    for link in chain.iter().rev() {
        let name = link.qualname.as_ref();
        let kind = match name {
            "sleep" => WaitKind::Sleep,
            "Queue.get" => WaitKind::QueueGet,
            "Queue.put" => WaitKind::QueuePut,
            "Lock.acquire"
            | "Semaphore.acquire"
            | "BoundedSemaphore.acquire"
            | "Condition.wait"
            | "Barrier.wait" => WaitKind::Lock,
            "Event.wait" | "Queue.join" => WaitKind::Event,
            "TaskGroup.__aexit__" | "TaskGroup._aexit" => {
                return (WaitKind::TaskGroup, "TaskGroup".into());
            }
            _ if name.contains("sock_") || name.starts_with("StreamReader.") => WaitKind::Io,
            _ => continue,
        };
        return (kind, name.to_string());
    }
    (WaitKind::Future, future_name(future))
}
