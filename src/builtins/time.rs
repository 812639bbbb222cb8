//! `_time`, the native half of the `time` module (`Modules/timemodule.c`); `stdlib/time.apy`
//! imports it and adds `struct_time`. The clocks and `sleep` here; the calendar functions
//! (`gmtime`, `localtime`, `mktime`, `strftime`, …) and the CPU clocks over the C library in
//! `time_calendar.rs`; in a browser, where there is no C library, `time_browser.rs` (UTC,
//! and the calendar refused). A broken-down time crosses to apy as an 11-tuple (the nine
//! fields, `tm_zone`, `tm_gmtoff`).
//!
//! Under `--clock virtual`, `monotonic` and `perf_counter` read the virtual clock
//! (`common/clock.rs`) and `sleep` jumps it; `time`, the calendar functions and the CPU
//! clocks (`process_time`, `thread_time`) stay real.

use std::time::Duration;

use crate::common::clock::{self, ClockKind, Instant};
use crate::vm::args::{check_arity, check_kwargs};
use crate::vm::object::KwArgs;
use crate::vm::thread_list::Wait;
use crate::vm::value::Value;
use crate::vm::{PyResult, Vm};

#[cfg(target_arch = "wasm32")]
use super::time_browser as calendar;
#[cfg(not(target_arch = "wasm32"))]
use super::time_calendar as calendar;

pub fn module(vm: &mut Vm) -> Value {
    let mut attrs = vec![
        (
            "time",
            vm.native("time", |_, _, _| Ok(Value::Float(clock::unix_time()))),
        ),
        (
            "time_ns",
            vm.native("time_ns", |_, _, _| Ok(ns(clock::unix_time()))),
        ),
        (
            "monotonic",
            vm.native("monotonic", |vm, _, _| {
                Ok(Value::Float(clock::now(vm.config.clock)))
            }),
        ),
        (
            "monotonic_ns",
            vm.native("monotonic_ns", |vm, _, _| {
                Ok(ns(clock::now(vm.config.clock)))
            }),
        ),
        (
            "perf_counter",
            vm.native("perf_counter", |vm, _, _| {
                Ok(Value::Float(clock::now(vm.config.clock)))
            }),
        ),
        (
            "perf_counter_ns",
            vm.native("perf_counter_ns", |vm, _, _| {
                Ok(ns(clock::now(vm.config.clock)))
            }),
        ),
        (
            "process_time",
            vm.native("process_time", |_, _, _| {
                Ok(Value::Float(calendar::process_time()))
            }),
        ),
        (
            "process_time_ns",
            vm.native("process_time_ns", |_, _, _| {
                Ok(ns(calendar::process_time()))
            }),
        ),
        (
            "thread_time",
            vm.native("thread_time", |_, _, _| {
                Ok(Value::Float(calendar::thread_time()))
            }),
        ),
        (
            "thread_time_ns",
            vm.native("thread_time_ns", |_, _, _| Ok(ns(calendar::thread_time()))),
        ),
        ("sleep", vm.native("sleep", time_sleep)),
    ];
    attrs.extend(calendar::natives(vm));
    vm.new_module("_time", attrs)
}

/// A clock's seconds as the `_ns` functions' int.
fn ns(secs: f64) -> Value {
    Value::Int((secs * 1e9) as i64)
}

fn time_sleep(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    check_kwargs(vm, "sleep", kw, &[])?;
    check_arity(vm, "sleep", args, 1, 1)?;
    let secs = match &args[0] {
        Value::Int(n) => *n as f64,
        Value::Float(f) => *f,
        Value::Bool(b) => *b as i64 as f64,
        other => {
            return Err(vm.type_error(format!(
                "'{}' object cannot be interpreted as an integer",
                vm.type_name(other)
            )));
        }
    };
    if secs.is_nan() {
        return Err(vm.value_error("Invalid value NaN (not a number)"));
    }
    if secs < 0.0 {
        return Err(vm.value_error("sleep length must be non-negative"));
    }
    // CPython counts nanoseconds in an i64.
    if secs * 1e9 >= i64::MAX as f64 {
        return Err(vm.overflow_error("timestamp out of range for platform time_t"));
    }
    if vm.threads.active() {
        // Other threads run meanwhile (the GIL is released around the wait).
        let deadline = clock::now(vm.config.clock) + secs;
        while vm.block(Wait::Sleep, Some(deadline))? {}
        return Ok(Value::None);
    }
    if vm.config.clock == ClockKind::Virtual {
        clock::advance_virtual(clock::now(ClockKind::Virtual) + secs);
        return Ok(Value::None);
    }
    vm.flush_stdout();
    // A signal's handler runs during the sleep, which then goes on (PEP 475).
    let until = Instant::now().checked_add(Duration::from_secs_f64(secs));
    loop {
        vm.wait_idle(until);
        if let Some(exc) = vm.check_woken() {
            return Err(exc);
        }
        if until.is_some_and(|until| Instant::now() >= until) {
            return Ok(Value::None);
        }
    }
}
