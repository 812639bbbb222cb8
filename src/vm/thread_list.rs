//! The table of a program's threads that the `Vm` keeps: each thread's ident, name and
//! state (running, ready, blocked for what and until when), the queue of ready threads and
//! the running thread's turn. What each thread has of its own in the `Vm` is the `own`
//! record (`vm::ThreadOwn`); the scheduler that works this table is `vm::threads`. Kept
//! apart from both so that the data model does not depend on the scheduler.

use crate::common::clock::Instant;
use std::cell::Cell;
use std::collections::VecDeque;
use std::rc::Rc;

/// What a blocked thread waits for (shown by `--trace` and in a deadlock report).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wait {
    Sleep,
    Lock,
    Join,
    /// The event loop's wait for its next callback (`selector.select`).
    Select,
    /// A blocking socket call or `selectors` wait, polling while other threads run.
    Io,
}

impl Wait {
    pub fn name(self) -> &'static str {
        match self {
            Wait::Sleep => "blocked in sleep",
            Wait::Lock => "blocked in acquire",
            Wait::Join => "blocked in join",
            Wait::Select => "blocked in select",
            Wait::Io => "blocked on a socket",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum State {
    Running,
    Ready,
    Blocked(Wait),
}

pub struct Thread<T> {
    pub ident: u64,
    pub name: Rc<str>,
    pub state: State,
    /// When a blocked thread wakes by itself (clock time), and the order it blocked in.
    pub deadline: Option<(f64, u64)>,
    /// Whether its last block ended at the deadline rather than by a wake.
    pub timed_out: bool,
    /// Set when it finishes: what `_ThreadHandle.join` waits for.
    pub done: Rc<Cell<bool>>,
    /// What it has of its own in the `Vm`, kept here while another thread runs, and its
    /// stack.
    pub own: T,
}

impl<T> Thread<T> {
    pub fn new(ident: u64, name: Rc<str>, state: State, own: T) -> Thread<T> {
        Thread {
            ident,
            name,
            state,
            deadline: None,
            timed_out: false,
            done: Rc::default(),
            own,
        }
    }
}

/// The threads of a program and whose turn it is; `S` is what a layer keeps per thread
/// (exchanged at each switch by the hooks).
pub struct Threads<T, S> {
    pub list: Vec<Thread<T>>,
    /// Index in `list` of the running thread.
    pub current: usize,
    pub ready: VecDeque<u64>,
    pub next_ident: u64,
    /// Orders blocked threads with equal deadlines.
    pub seq: u64,
    /// `sys.getswitchinterval()`, in seconds.
    pub switch_interval: f64,
    /// When the running thread's turn began: steps run and real time.
    pub slice_steps: u64,
    pub slice_start: Instant,
    /// Exchange each layer's per-thread state: install the given thread's value (None: a
    /// new thread's) and return the one it replaces.
    pub hooks: Vec<fn(S) -> S>,
    /// The native stack each new thread gets (set by the embedder).
    pub stack_bytes: usize,
}

/// The main thread's ident (`threading.main_thread().ident`).
pub const MAIN_IDENT: u64 = 1;

impl<T: Default, S> Default for Threads<T, S> {
    fn default() -> Threads<T, S> {
        Threads {
            list: vec![Thread::new(
                MAIN_IDENT,
                "MainThread".into(),
                State::Running,
                T::default(),
            )],
            current: 0,
            ready: VecDeque::new(),
            next_ident: MAIN_IDENT + 1,
            seq: 0,
            switch_interval: 0.005,
            slice_steps: 0,
            slice_start: Instant::now(),
            hooks: Vec::new(),
            stack_bytes: 1 << 20,
        }
    }
}

impl<T, S> Threads<T, S> {
    /// Whether any thread besides the running one is alive (then switches can happen).
    #[inline]
    pub fn active(&self) -> bool {
        self.list.len() > 1
    }

    /// The running thread's ident (`_thread.get_ident()`).
    pub fn ident(&self) -> u64 {
        self.list[self.current].ident
    }

    /// How many threads are alive (`_thread._count()` plus the main thread).
    pub fn count(&self) -> usize {
        self.list.len()
    }

    /// Names the running thread (`_thread.set_name`), as `--trace` shows it.
    pub fn set_name(&mut self, name: &str) {
        self.list[self.current].name = name.into();
    }

    /// Names the thread `ident`.
    pub fn name_thread(&mut self, ident: u64, name: &str) {
        if let Some(i) = self.index(ident) {
            self.list[i].name = name.into();
        }
    }

    /// Registers a layer's per-thread state (once per hook; a second call does nothing).
    pub fn add_hook(&mut self, hook: fn(S) -> S) {
        if !self.hooks.iter().any(|h| *h as usize == hook as usize) {
            self.hooks.push(hook);
        }
    }

    /// The earliest deadline a blocked thread has.
    pub fn earliest_deadline(&self) -> Option<f64> {
        self.list
            .iter()
            .filter_map(|t| t.deadline.map(|(when, _)| when))
            .min_by(f64::total_cmp)
    }

    pub fn index(&self, ident: u64) -> Option<usize> {
        self.list.iter().position(|t| t.ident == ident)
    }

    /// In a child that `fork` made, only the running thread lives on: the others' stacks
    /// and states are kept as they were (never resumed, never freed, since freeing would
    /// run their code's destructors in a process they are not in), and they count as
    /// finished for whoever joins them, as CPython's `_after_fork` marks them.
    pub fn keep_only_running(&mut self) {
        let running = self.current;
        for (i, thread) in std::mem::take(&mut self.list).into_iter().enumerate() {
            if i == running {
                self.list.push(thread);
            } else {
                thread.done.set(true);
                std::mem::forget(thread);
            }
        }
        self.current = 0;
        self.ready.clear();
    }

    /// Whether the main thread is the one running.
    pub fn on_main(&self) -> bool {
        self.current == 0
    }

    /// Whether the scheduler is choosing the next thread to run: the last one blocked,
    /// gave way or finished, and none runs.
    pub fn scheduling(&self) -> bool {
        self.list[self.current].state != State::Running
    }
}
