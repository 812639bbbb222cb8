//! Green threads: the scheduler under `_thread` and `threading`, as CPython's GIL runs
//! threads — one thread runs Python at a time; it gives way when it blocks (a sleep, a lock,
//! a join, the event loop's wait: [`Vm::block`]) and, once the switch interval has passed,
//! to a thread that is ready ([`Vm::slice_over`], called from the dispatch loop's limit
//! check, so it costs nothing per instruction).
//!
//! Each thread other than the main one runs on a native stack of its own (a corosensei
//! coroutine) on the one interpreter thread, so a switch may happen at any depth (inside a
//! `__enter__`, a key function, a second event loop) and objects stay `Rc`. The main thread
//! is the interpreter thread's own stack: while another thread runs, the main thread sits
//! in [`Vm::run_others`], which resumes the thread chosen next and takes back control when
//! that one gives way. What each thread has of its own in the `Vm` (its recursion depth,
//! the exceptions it handles, its running frames, and the layers' own per-thread state
//! through [`Threads::add_hook`]) is swapped at each switch.
//!
//! The order is deterministic: ready threads run first-come first-served; with none ready,
//! the blocked thread with the earliest deadline wakes (ties: the one that blocked first).
//! Under `--clock virtual` the switch interval is counted in steps (one per microsecond: 5,000
//! steps for the default 5 ms) and each interval a thread runs while others exist moves the
//! clock on by that much; so the same program interleaves the same way on every run.
//! Every thread blocked with no deadline is a deadlock: the virtual clock reports it, the
//! real one waits, as CPython does, for Ctrl-C or the time limit (delivered to the main
//! thread).

use std::rc::Rc;
use std::time::Duration;

use super::thread_list::{MAIN_IDENT, State, Wait};
use super::value::Value;
use super::{Abort, Exc, PyResult, Vm};
use crate::common::clock::{self, ClockKind, Instant};

#[cfg(not(target_arch = "wasm32"))]
type Yielder = corosensei::Yielder<*mut Vm, *mut Vm>;

impl Vm {
    /// Steps run so far, including the current check window's.
    fn steps_now(&self) -> u64 {
        self.steps.saturating_add(self.window - self.countdown)
    }

    /// The switch interval in steps, as the virtual clock counts it (one per microsecond).
    fn interval_steps(&self) -> u64 {
        ((self.threads.switch_interval * 1e6) as u64).max(1)
    }

    /// How long the next check window may be, so that the running thread's turn is looked
    /// at in time (only while other threads live).
    pub(super) fn slice_window(&self, left: u64) -> u64 {
        if !self.threads.active() || self.config.clock != ClockKind::Virtual {
            return left;
        }
        let used = self.steps.saturating_sub(self.threads.slice_steps);
        left.min(self.interval_steps().saturating_sub(used).max(1))
    }

    /// Starts the running thread's turn: a fresh check window sized for it.
    fn start_slice(&mut self) {
        self.steps = self.steps_now();
        self.threads.slice_steps = self.steps;
        self.threads.slice_start = Instant::now();
        let left = match self.config.max_steps {
            Some(max) => max.saturating_add(1).saturating_sub(self.steps),
            None => super::TIME_CHECK_INTERVAL,
        };
        let left = self.slice_window(left.min(super::TIME_CHECK_INTERVAL));
        self.start_window(left);
    }

    /// Called between instructions when a check window ends while other threads live: when
    /// the running thread's turn is over (the switch interval has passed: in steps under the
    /// virtual clock, which it moves on, in time under the real one) and another thread is
    /// ready, that one runs (`drop_gil`/`take_gil` at the eval breaker).
    /// A Ctrl-C pressed while another thread runs ends its turn at once: the main thread
    /// raises it ([`Vm::run_others`]).
    #[cold]
    pub(super) fn slice_over(&mut self) -> PyResult<()> {
        let interrupted = !self.threads.on_main() && super::interrupt::pending();
        // So does a signal, whose handler the main thread runs.
        let signalled = !self.threads.on_main() && super::interrupt::signals_pending();
        let over = interrupted
            || signalled
            || match self.config.clock {
                ClockKind::Virtual => {
                    let over = self.steps.saturating_sub(self.threads.slice_steps)
                        >= self.interval_steps();
                    if over {
                        let now = clock::now(ClockKind::Virtual);
                        clock::advance_virtual(now + self.threads.switch_interval);
                    }
                    over
                }
                ClockKind::Real => {
                    self.threads.slice_start.elapsed().as_secs_f64() >= self.threads.switch_interval
                }
            };
        if !over {
            return Ok(());
        }
        self.wake_due();
        if self.threads.ready.is_empty() && !interrupted && !signalled {
            self.threads.slice_steps = self.steps;
            self.threads.slice_start = Instant::now();
            return Ok(());
        }
        let me = self.threads.ident();
        self.threads.list[self.threads.current].state = State::Ready;
        self.threads.ready.push_back(me);
        self.switch(match (interrupted, signalled) {
            (true, _) => "gave way to Ctrl-C",
            (false, true) => "gave way to a signal",
            (false, false) => "used up its switch interval",
        })
    }

    /// Blocks the running thread for `why` until another wakes it ([`Vm::wake_thread`]) or
    /// the clock reaches `deadline`; other threads run meanwhile. True when woken, false at
    /// the deadline. Callers check again what they wait for (a wake may find it gone). The
    /// main thread gets Ctrl-C and the limits here as an exception.
    pub fn block(&mut self, why: Wait, deadline: Option<f64>) -> PyResult<bool> {
        let seq = self.threads.seq;
        self.threads.seq += 1;
        let me = &mut self.threads.list[self.threads.current];
        me.state = State::Blocked(why);
        me.deadline = deadline.map(|d| (d, seq));
        me.timed_out = false;
        self.switch(why.name())?;
        // A signal's handler runs in the main thread as its wait ends (`pick` woke it).
        if self.threads.on_main() {
            self.run_signal_handlers()?;
        }
        Ok(!self.threads.list[self.threads.current].timed_out)
    }

    /// [`Vm::wait_ready`] for a blocking socket call or a selector's wait, which lets the
    /// other threads run meanwhile, as CPython releases the GIL around them: the
    /// descriptors are polled, and while they stay quiet a thread that is ready runs; with
    /// none ready they are waited for, on the real clock for a switch interval at most
    /// (a sleeping thread's deadline may come), on the virtual one until the earliest
    /// deadline of another thread, which the clock jumps to (the event loop's rule).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn wait_ready_sharing(
        &mut self,
        fds: &mut [crate::common::net::PollFd],
        until: Option<std::time::Instant>,
    ) -> PyResult<usize> {
        use crate::common::net;
        loop {
            if !self.threads.active() {
                return Ok(self.wait_ready(fds, until));
            }
            let ready = net::poll(fds, 0).unwrap_or(0);
            let now = std::time::Instant::now();
            if ready > 0 || until.is_some_and(|at| now >= at) {
                return Ok(ready);
            }
            let clock_now = clock::now(self.config.clock);
            let turn = match self.config.clock {
                _ if !self.threads.ready.is_empty() => Some(clock_now),
                ClockKind::Virtual => self.threads.earliest_deadline(),
                ClockKind::Real => {
                    let slice = Duration::from_secs_f64(self.threads.switch_interval);
                    let slice_end = now + slice;
                    let end = until.map_or(slice_end, |at| at.min(slice_end));
                    let ready = self.wait_ready(fds, Some(end));
                    if ready > 0 || super::interrupt::pending() {
                        return Ok(ready);
                    }
                    Some(clock_now)
                }
            };
            match turn {
                Some(when) => {
                    self.block(Wait::Io, Some(when))?;
                }
                None => return Ok(self.wait_ready(fds, until)),
            }
        }
    }

    /// Waits, sharing as [`Vm::wait_ready_sharing`] does, until `fd` is ready for `events`
    /// (`POLLIN`: input, or its end) or `deadline` passes: false then. Raises what
    /// [`Vm::check_woken`] says when Ctrl-C or the time limit ends the wait first. A
    /// blocking socket call, a read from a pipe and the wait for a child wait here.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn wait_fd_sharing(
        &mut self,
        fd: std::os::fd::RawFd,
        events: i16,
        deadline: Option<std::time::Instant>,
    ) -> PyResult<bool> {
        let mut fds = [crate::common::net::poll_fd(fd, events)];
        let ready = self.wait_ready_sharing(&mut fds, deadline)?;
        if let Some(exc) = self.check_woken() {
            return Err(exc);
        }
        Ok(ready > 0 || deadline.is_none_or(|at| std::time::Instant::now() < at))
    }

    /// Makes the thread `ident` ready if it is blocked (else nothing): it runs at its turn.
    pub fn wake_thread(&mut self, ident: u64) {
        if let Some(i) = self.threads.index(ident)
            && matches!(self.threads.list[i].state, State::Blocked(_))
        {
            self.threads.list[i].state = State::Ready;
            self.threads.list[i].deadline = None;
            self.threads.ready.push_back(ident);
        }
    }

    /// Wakes the thread `ident` if it is blocked for `why`.
    pub fn wake_blocked(&mut self, ident: u64, why: Wait) {
        if let Some(i) = self.threads.index(ident)
            && self.threads.list[i].state == State::Blocked(why)
        {
            self.wake_thread(ident);
        }
    }

    /// Wakes every thread blocked in a join (a thread has finished).
    fn wake_joiners(&mut self) {
        let joiners: Vec<u64> = self
            .threads
            .list
            .iter()
            .filter(|t| t.state == State::Blocked(Wait::Join))
            .map(|t| t.ident)
            .collect();
        for ident in joiners {
            self.wake_thread(ident);
        }
    }

    /// The blocked threads whose deadline has come become ready, earliest first.
    fn wake_due(&mut self) {
        let now = clock::now(self.config.clock);
        let mut due: Vec<(f64, u64, u64)> = self
            .threads
            .list
            .iter()
            .filter(|t| matches!(t.state, State::Blocked(_)))
            .filter_map(|t| t.deadline.map(|(when, seq)| (when, seq, t.ident)))
            .filter(|&(when, _, _)| when <= now)
            .collect();
        due.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        for (_, _, ident) in due {
            if let Some(i) = self.threads.index(ident) {
                self.threads.list[i].deadline = None;
                self.threads.list[i].timed_out = true;
                self.threads.list[i].state = State::Ready;
                self.threads.ready.push_back(ident);
            }
        }
    }

    /// Gives the interpreter to the next thread; returns when this one runs again. The
    /// running thread's state says already why it stops.
    fn switch(&mut self, why: &'static str) -> PyResult<()> {
        if self.threads.on_main() {
            return self.run_others(why);
        }
        #[cfg(not(target_arch = "wasm32"))]
        {
            let yielder = self.threads.list[self.threads.current].own.yielder as *const Yielder;
            // SAFETY: the yielder lives on this thread's own stack, which is running now.
            // The `Vm` goes to the main thread with the switch and comes back with it.
            let vm = unsafe { &*yielder }.suspend(self as *mut Vm);
            debug_assert!(std::ptr::eq(vm, self));
        }
        Ok(())
    }

    /// The main thread's side of every switch: runs the threads whose turn it is until the
    /// main thread's comes (an error ends the wait: Ctrl-C, a limit, a deadlock).
    fn run_others(&mut self, why: &'static str) -> PyResult<()> {
        self.exchange(0);
        let mut why = why;
        let mut from = (MAIN_IDENT, self.threads.list[0].name.clone());
        let result = loop {
            // A limit that stopped another thread stops the program, and Ctrl-C is raised
            // in the main thread, whatever it waits for (CPython's `join()` and
            // `acquire()` are interrupted too).
            if let Some(abort) = self.abort.clone() {
                break Err(self.stop(abort));
            }
            if super::interrupt::take() {
                break Err(self.new_exc_args(&self.types.keyboard_interrupt, vec![]));
            }
            let next = match self.pick() {
                Ok(next) => next,
                Err(exc) => break Err(exc),
            };
            let Some(i) = self.threads.index(next) else {
                continue;
            };
            if next != from.0 {
                let to = self.threads.list[i].name.clone();
                super::trace::thread_switch(self, &to, &from.1, why);
            }
            self.threads.current = i;
            self.threads.list[i].state = State::Running;
            if i == 0 {
                break Ok(());
            }
            self.exchange(i);
            self.start_slice();
            let outcome = self.resume_thread(i);
            let i = self.threads.current;
            self.exchange(i);
            from = (
                self.threads.list[i].ident,
                self.threads.list[i].name.clone(),
            );
            why = match self.threads.list[i].state {
                State::Blocked(wait) => wait.name(),
                State::Ready => "used up its switch interval",
                State::Running => "finished",
            };
            if outcome {
                let t = self.threads.list.remove(i);
                t.done.set(true);
                self.threads.current = 0;
                self.wake_joiners();
            }
        };
        self.threads.current = 0;
        self.threads.list[0].state = State::Running;
        self.exchange(0);
        self.start_slice();
        result
    }

    /// Runs thread `i` until it gives way; true when it has finished.
    #[cfg(not(target_arch = "wasm32"))]
    fn resume_thread(&mut self, i: usize) -> bool {
        let Some(mut stack) = self.threads.list[i].own.stack.take() else {
            return true;
        };
        let finished = stack.resume(self as *mut Vm).as_return().is_some();
        let i = self.threads.current;
        if finished {
            drop(stack);
        } else {
            self.threads.list[i].own.stack = Some(stack);
        }
        finished
    }

    #[cfg(target_arch = "wasm32")]
    fn resume_thread(&mut self, _: usize) -> bool {
        true
    }

    /// The next thread to run: the first ready one; with none, the blocked one with the
    /// earliest deadline, once the clock gets there (jumping to it under `virtual`).
    fn pick(&mut self) -> PyResult<u64> {
        loop {
            self.wake_due();
            // The main thread runs the handlers of the signals caught: it stops waiting (a
            // wake its caller checks, as after any), as CPython's waits end on a signal.
            if super::interrupt::signals_pending() {
                self.wake_thread(MAIN_IDENT);
            }
            if let Some(next) = self.threads.ready.pop_front() {
                return Ok(next);
            }
            let earliest = self.threads.earliest_deadline();
            if self.config.clock == ClockKind::Virtual {
                match earliest {
                    Some(when) => clock::advance_virtual(when),
                    None => return Err(self.stop(Abort::Deadlock(self.deadlock_report()))),
                }
                continue;
            }
            self.flush_stdout();
            let until = earliest.and_then(|when| {
                let delay = (when - clock::now(ClockKind::Real)).max(0.0);
                Instant::now().checked_add(Duration::try_from_secs_f64(delay).ok()?)
            });
            self.wait_idle(until);
            if let Some(exc) = self.check_woken() {
                return Err(exc);
            }
        }
    }

    fn deadlock_report(&self) -> String {
        let mut report = String::from(
            "apy: deadlock: every thread is blocked and none can wake the others (--clock virtual)",
        );
        for t in &self.threads.list {
            if let State::Blocked(why) = t.state {
                report.push_str(&format!("\n  thread {} {}", t.name, why.name()));
            }
        }
        report
    }

    /// Swaps what thread `i` has of its own with the `Vm`'s: in when it starts running,
    /// out when it stops.
    fn exchange(&mut self, i: usize) {
        let mut s = std::mem::take(&mut self.threads.list[i].own);
        std::mem::swap(&mut self.depth, &mut s.depth);
        std::mem::swap(&mut self.native_depth, &mut s.native_depth);
        std::mem::swap(&mut self.exc_info, &mut s.exc_info);
        std::mem::swap(&mut self.running_frames, &mut s.running_frames);
        std::mem::swap(&mut self.caller, &mut s.caller);
        std::mem::swap(&mut self.frame_chain, &mut s.frame_chain);
        std::mem::swap(&mut self.repr_stack, &mut s.repr_stack);
        std::mem::swap(&mut self.class_namespaces, &mut s.class_namespaces);
        std::mem::swap(&mut self.asyncgen_hooks, &mut s.asyncgen_hooks);
        std::mem::swap(&mut self.tracing, &mut s.tracing);
        s.slots.resize(self.threads.hooks.len(), Value::None);
        for (k, hook) in self.threads.hooks.clone().into_iter().enumerate() {
            let mine = std::mem::replace(&mut s.slots[k], Value::None);
            s.slots[k] = hook(mine);
        }
        self.threads.list[i].own = s;
    }

    /// Starts a thread that calls `function(*args)` (`_thread.start_joinable_thread`):
    /// ready to run at its turn. Its ident, and the flag set when it has finished.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn start_thread(
        &mut self,
        function: Value,
        args: Vec<Value>,
        on_error: fn(&mut Vm, &Value, Exc),
    ) -> PyResult<(u64, Rc<std::cell::Cell<bool>>)> {
        let stack = corosensei::stack::DefaultStack::new(self.threads.stack_bytes)
            .map_err(|_| self.runtime_error("can't start new thread"))?;
        let ident = self.threads.next_ident;
        self.threads.next_ident += 1;
        let body = move |yielder: &Yielder, vm: *mut Vm| -> () {
            // SAFETY: the main thread resumes this stack with the `Vm` it runs, and runs
            // nothing itself until this stack gives way again (`run_others`).
            let vm = unsafe { &mut *vm };
            let i = vm.threads.current;
            vm.threads.list[i].own.yielder = (yielder as *const Yielder).cast();
            if let Err(exc) = vm.call(&function, &args, &[]) {
                on_error(vm, &function, exc);
            }
        };
        let stack = corosensei::Coroutine::with_stack(stack, body);
        let mut own = super::ThreadOwn::default();
        own.exc_info.push(Value::None);
        own.stack = Some(Box::new(stack));
        let thread = super::thread_list::Thread::new(
            ident,
            format!("Thread-{ident}").into(),
            State::Ready,
            own,
        );
        let done = thread.done.clone();
        self.threads.list.push(thread);
        self.threads.ready.push_back(ident);
        if self.threads.list.len() == 2 {
            // The first other thread: turns start being counted now.
            self.start_slice();
        }
        Ok((ident, done))
    }

    #[cfg(target_arch = "wasm32")]
    pub fn start_thread(
        &mut self,
        _: Value,
        _: Vec<Value>,
        _: fn(&mut Vm, &Value, Exc),
    ) -> PyResult<(u64, Rc<std::cell::Cell<bool>>)> {
        Err(self.runtime_error("can't start new thread"))
    }
}
