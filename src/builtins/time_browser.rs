//! `_time` in a browser (`src/web.rs`), which has no C library: the CPU clocks read the
//! page's monotonic clock (a run is one thread that never waits), the time zone is UTC, and
//! the calendar functions that need the C library raise `OSError` saying so.

use crate::vm::object::KwArgs;
use crate::vm::value::Value;
use crate::vm::{PyResult, Vm};

/// The calendar functions, for `_time`.
pub fn natives(vm: &mut Vm) -> Vec<(&'static str, Value)> {
    let mut natives: Vec<(&'static str, Value)> = [
        "gmtime",
        "localtime",
        "mktime",
        "strftime",
        "asctime",
        "ctime",
    ]
    .into_iter()
    .map(|name| (name, vm.native(name, unavailable)))
    .collect();
    natives.push(("tzset", vm.native("tzset", |_, _, _| Ok(Value::None))));
    natives.push(("zone_info", vm.native("zone_info", zone_info)));
    natives
}

/// `(timezone, altzone, daylight, tzname)` as CPython has them under `TZ=UTC`.
fn zone_info(_: &mut Vm, _: &[Value], _: &KwArgs) -> PyResult<Value> {
    let utc = || Value::str("UTC");
    Ok(Value::tuple(vec![
        Value::Int(0),
        Value::Int(0),
        Value::Int(0),
        Value::tuple(vec![utc(), utc()]),
    ]))
}

fn unavailable(vm: &mut Vm, _: &[Value], _: &KwArgs) -> PyResult<Value> {
    let os_error = vm.types.os_error.clone();
    Err(vm.new_exc(
        &os_error,
        "the calendar (time.localtime(), strftime(), ...) is not available in the browser: \
         run apy on your machine for it",
    ))
}

/// `time.process_time()`: the page's monotonic clock.
pub fn process_time() -> f64 {
    crate::common::browser::performance_now() / 1000.0
}

/// `time.thread_time()`: as [`process_time`].
pub fn thread_time() -> f64 {
    process_time()
}
