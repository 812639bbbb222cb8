//! What a timeline holds: lanes (one per task, one for the loop's own callbacks, one for the
//! selector's waits), the entries the loop ran in order (task steps, callbacks, selects), the
//! waits between a task's steps, the arrows from the entry that completed a future to the
//! step it woke, and the marks (cancellations, exceptions, results, async-generator hooks).
//! The recorder builds it; the JSON, SVG and HTML writers read it. Every reference between
//! its parts is an index into its vectors, which is also the `id` the JSON gives.

/// A whole run.
#[derive(Debug, Default)]
pub struct Timeline {
    /// The program's file name (`crawler.apy`), `<string>` for `-c`.
    pub program: String,
    /// `virtual` or `real`.
    pub clock: &'static str,
    pub lanes: Vec<Lane>,
    pub entries: Vec<Entry>,
    pub waits: Vec<Wait>,
    pub arrows: Vec<Arrow>,
    pub marks: Vec<Mark>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LaneKind {
    Task,
    /// The loop's plain callbacks (handles and done callbacks).
    Callbacks,
    /// The selector's waits for sockets.
    Selector,
}

impl LaneKind {
    pub fn name(self) -> &'static str {
        match self {
            LaneKind::Task => "task",
            LaneKind::Callbacks => "callbacks",
            LaneKind::Selector => "selector",
        }
    }
}

#[derive(Debug)]
pub struct Lane {
    pub kind: LaneKind,
    /// `Task-2`, `callbacks`, `selector`.
    pub name: String,
    /// The coroutine a task drives: `worker()`.
    pub coro: String,
    /// The lane of the task that created this one.
    pub created_by: Option<usize>,
    /// The entry running when this task was created (None: before the loop ran).
    pub created_at: Option<usize>,
    /// A task the loop's runner makes for itself (`shutdown_asyncgens()`): drawn in the
    /// callbacks lane.
    pub internal: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EntryKind {
    Step,
    Callback,
    Select,
}

impl EntryKind {
    pub fn name(self) -> &'static str {
        match self {
            EntryKind::Step => "step",
            EntryKind::Callback => "callback",
            EntryKind::Select => "select",
        }
    }
}

/// One thing the loop ran: a task step, a callback or a select.
#[derive(Debug)]
pub struct Entry {
    pub kind: EntryKind,
    pub lane: usize,
    /// The loop iteration, counted from 1 over the whole run.
    pub iteration: u64,
    /// Loop time in seconds since the first loop started.
    pub t: f64,
    /// What ran: `send None`, `throw CancelledError()`, a callback `f(args)`, the select's
    /// report.
    pub what: String,
    /// A step's line in the task's own coroutine where it resumed (None: at its start).
    pub resume_line: Option<u32>,
    /// Where it stopped (None: it returned or raised).
    pub stop_line: Option<u32>,
    /// A step's await chain when it stopped (`job() line 4 > sleep() line 20`).
    pub chain: String,
    /// How a step ended.
    pub outcome: Option<Outcome>,
    /// A step that threw a requested cancellation into the coroutine.
    pub cancel_delivered: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// Yielded a future to wait for (its name).
    Waits(String),
    /// A bare `yield` (`sleep(0)`): steps again soon.
    Yield,
    Returned(String),
    Raised(String),
    Cancelled(String),
}

/// What a task waits on between two steps, by kind (each drawn in its own colour).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WaitKind {
    Sleep,
    Future,
    QueueGet,
    QueuePut,
    Lock,
    Event,
    Task,
    TaskGroup,
    Io,
    /// A bare `yield` (`sleep(0)`): the task steps again in the next iteration.
    Yield,
}

impl WaitKind {
    pub const ALL: [WaitKind; 10] = [
        WaitKind::Sleep,
        WaitKind::Future,
        WaitKind::QueueGet,
        WaitKind::QueuePut,
        WaitKind::Lock,
        WaitKind::Event,
        WaitKind::Task,
        WaitKind::TaskGroup,
        WaitKind::Io,
        WaitKind::Yield,
    ];

    pub fn name(self) -> &'static str {
        match self {
            WaitKind::Sleep => "sleep",
            WaitKind::Future => "future",
            WaitKind::QueueGet => "queue-get",
            WaitKind::QueuePut => "queue-put",
            WaitKind::Lock => "lock",
            WaitKind::Event => "event",
            WaitKind::Task => "task",
            WaitKind::TaskGroup => "taskgroup",
            WaitKind::Io => "io",
            WaitKind::Yield => "yield",
        }
    }
}

/// A task waiting, from the step that yielded to the step that resumed it.
#[derive(Debug)]
pub struct Wait {
    pub lane: usize,
    pub kind: WaitKind,
    /// The step that stopped to wait.
    pub from: usize,
    /// The step that resumed (None: still waiting when the program ended).
    pub to: Option<usize>,
    /// The future waited for (`Future#3`, `Task-2`; empty for a bare yield).
    pub future: String,
    /// What is shown on the line: `sleep`, `Queue.put`, `Task-3`.
    pub label: String,
}

/// From the entry that completed `future` to the step that ran because of it.
#[derive(Debug)]
pub struct Arrow {
    pub from: usize,
    pub to: usize,
    pub future: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MarkKind {
    Created,
    CancelRequested,
    CancelDelivered,
    /// The coroutine caught the delivered cancellation and went on with `cancelling() > 0`.
    CancelSwallowed,
    /// The cancellation was turned into something else after `uncancel()` (timeout, TaskGroup).
    CancelHandled,
    Cancelled,
    Exception,
    Result,
    AsyncgenFirstiter,
    AsyncgenFinalizer,
    AcloseScheduled,
    ShutdownAsyncgens,
}

impl MarkKind {
    pub fn name(self) -> &'static str {
        match self {
            MarkKind::Created => "created",
            MarkKind::CancelRequested => "cancel-requested",
            MarkKind::CancelDelivered => "cancel-delivered",
            MarkKind::CancelSwallowed => "cancel-swallowed",
            MarkKind::CancelHandled => "cancel-handled",
            MarkKind::Cancelled => "cancelled",
            MarkKind::Exception => "exception",
            MarkKind::Result => "result",
            MarkKind::AsyncgenFirstiter => "asyncgen-firstiter",
            MarkKind::AsyncgenFinalizer => "asyncgen-finalizer",
            MarkKind::AcloseScheduled => "aclose-scheduled",
            MarkKind::ShutdownAsyncgens => "shutdown-asyncgens",
        }
    }
}

/// Something that happened to a lane during an entry.
#[derive(Debug)]
pub struct Mark {
    pub kind: MarkKind,
    pub lane: usize,
    /// The entry running when it happened (None: before any, or between entries, then the
    /// last entry that ran is given in `after`).
    pub entry: Option<usize>,
    /// With no entry running: the last entry that ran before (None: before the first).
    pub after: Option<usize>,
    pub text: String,
}
