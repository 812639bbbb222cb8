//! The loop's selector (DESIGN.md decision 8): the descriptors watched for reading and
//! writing with the handle each wakes, and the wait of `_run_once` —
//! `self._selector.select(timeout)` then `_process_events` in `Lib/asyncio/base_events.py`
//! and `selector_events.py`. The epoll instance is made when the first descriptor is
//! watched, so a loop of timers alone never has one; the wait also watches the Ctrl-C pipe
//! and `--time-limit` (`Vm::wait_ready`). Knows no loop: `event_loop.rs` owns one set of
//! watchers per loop and hands over its clock; `io.rs` has the loop's methods over them.
//!
//! Under `--clock virtual` the wait only polls while a timer is pending: a descriptor that
//! is not ready yet loses to the timer, and the clock jumps to it as when nothing is
//! watched. With no timer, the loop blocks on its descriptors in real time (a program
//! waiting on a socket is not deadlocked); virtual time stands still while it waits.

use std::cell::RefCell;
use std::collections::HashMap;
use std::os::fd::RawFd;
use std::time::Instant;

use crate::builtins::selectors::wait_descriptors;
use crate::common::clock::{self, Clock};
use crate::common::net::{self, Epoll};
use crate::vm::value::Value;
use crate::vm::{PyResult, Vm};

/// The descriptors a loop watches, each with the handle its readiness schedules (maps,
/// as `_fd_to_key` is: a loop with many connections finds each in one step).
#[derive(Default)]
pub struct Watchers {
    epoll: Option<Epoll>,
    readers: HashMap<RawFd, Value>,
    writers: HashMap<RawFd, Value>,
}

/// What one select saw, for the trace: how long it blocked (None: it only polled) and
/// which descriptors came ready, with their readiness.
pub struct Selected {
    pub waited: Option<f64>,
    pub ready: Vec<(RawFd, u32)>,
}

/// CPython's `MAXIMUM_SELECT_TIMEOUT`: a select never blocks longer than a day.
const MAXIMUM_SELECT_TIMEOUT: f64 = 24.0 * 3600.0;

impl Watchers {
    pub fn is_empty(&self) -> bool {
        self.readers.is_empty() && self.writers.is_empty()
    }

    /// The epoll events `fd` is watched for now.
    fn events(&self, fd: RawFd) -> u32 {
        let mut events = 0;
        if self.readers.contains_key(&fd) {
            events |= net::READABLE;
        }
        if self.writers.contains_key(&fd) {
            events |= net::WRITABLE;
        }
        events
    }

    /// Sets `fd`'s handle in `list` (replacing and returning an older one) and tells epoll.
    pub fn watch(
        &mut self,
        fd: RawFd,
        handle: Value,
        write: bool,
    ) -> std::io::Result<Option<Value>> {
        let before = self.events(fd);
        let list = if write {
            &mut self.writers
        } else {
            &mut self.readers
        };
        let old = list.insert(fd, handle);
        let after = self.events(fd);
        let epoll = match &mut self.epoll {
            Some(epoll) => epoll,
            none => none.insert(Epoll::new()?),
        };
        let result = if before == 0 {
            epoll.add(fd, after)
        } else {
            epoll.modify(fd, after)
        };
        if let Err(e) = result {
            let list = if write {
                &mut self.writers
            } else {
                &mut self.readers
            };
            list.remove(&fd);
            return Err(e);
        }
        Ok(old)
    }

    /// Stops watching `fd` for reading (or writing): its handle, if it had one.
    pub fn unwatch(&mut self, fd: RawFd, write: bool) -> Option<Value> {
        let list = if write {
            &mut self.writers
        } else {
            &mut self.readers
        };
        let handle = list.remove(&fd)?;
        let after = self.events(fd);
        if let Some(epoll) = &self.epoll {
            // A descriptor closed first has left the epoll set already.
            let _ = if after == 0 {
                epoll.remove(fd)
            } else {
                epoll.modify(fd, after)
            };
        }
        Some(handle)
    }

    /// The descriptors watched with their events, for a wait without epoll (with it, the
    /// epoll set has them and an empty list does).
    fn watched(&self) -> Vec<(RawFd, u32)> {
        if self.epoll.is_some() {
            return Vec::new();
        }
        let mut fds: Vec<RawFd> = self.readers.keys().copied().collect();
        fds.extend(self.writers.keys().copied());
        fds.sort_unstable();
        fds.dedup();
        fds.into_iter().map(|fd| (fd, self.events(fd))).collect()
    }
}

/// The wait of one iteration, and `_process_events`: the handles of the descriptors that
/// came ready, for the ready queue (readers before writers, in the order epoll reports
/// them). `busy`: callbacks are ready, so the select only polls; `next_timer`: the
/// earliest timer's deadline on `clock`. Also returns what the select saw, for the trace.
pub fn select(
    vm: &mut Vm,
    watchers: &RefCell<Watchers>,
    clock: &Clock,
    busy: bool,
    next_timer: Option<f64>,
) -> PyResult<(Selected, Vec<Value>)> {
    let virtual_clock = clock.is_virtual();
    let timeout = match next_timer {
        _ if busy => Some(0.0),
        Some(_) if virtual_clock => Some(0.0),
        Some(when) => {
            Some(clock::whole_milliseconds(when - clock.now()).min(MAXIMUM_SELECT_TIMEOUT))
        }
        None => None,
    };
    let watched = watchers.borrow().watched();
    let started = Instant::now();
    vm.flush_stdout();
    // The epoll instance is only borrowed for the wait: nothing runs Python code meanwhile.
    let ready = {
        let io = watchers.borrow();
        let count = io.readers.len() + io.writers.len();
        wait_descriptors(vm, io.epoll.as_ref().map(|e| (e, count)), &watched, timeout)
    }?;
    let waited = (timeout != Some(0.0)).then(|| started.elapsed().as_secs_f64());
    if ready.is_empty()
        && !busy
        && virtual_clock
        && let Some(when) = next_timer
    {
        clock::advance_virtual(when);
    }
    let (mut readers, mut writers) = (Vec::new(), Vec::new());
    let io = watchers.borrow();
    for &(fd, mask) in &ready {
        let found = |list: &HashMap<RawFd, Value>| list.get(&fd).cloned();
        if mask & (net::READABLE | net::ERROR) != 0 {
            readers.extend(found(&io.readers));
        }
        if mask & (net::WRITABLE | net::ERROR) != 0 {
            writers.extend(found(&io.writers));
        }
    }
    readers.extend(writers);
    Ok((Selected { waited, ready }, readers))
}

/// The watchers of a new loop.
pub fn watchers() -> RefCell<Watchers> {
    RefCell::new(Watchers::default())
}
