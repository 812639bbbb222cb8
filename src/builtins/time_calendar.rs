//! The calendar functions of `_time` and its CPU clocks, over the C library's `gmtime_r`,
//! `localtime_r`, `mktime`, `strftime` and `clock_gettime`, as CPython calls them on Linux:
//! the machine's time zone comes from `TZ` or `/etc/localtime` as the C library reads it,
//! and every strftime directive is glibc's. `time.rs` adds them to the module.

use std::ffi::{CStr, CString};

use crate::common::clock::unix_time;
use crate::vm::args::{check_arity, check_kwargs};
use crate::vm::dict::StrKeys;
use crate::vm::object::KwArgs;
use crate::vm::value::Value;
use crate::vm::{PyResult, Vm};

use super::module_args::index_int;

// The C library's own, which the libc crate does not declare: reads TZ (or
// /etc/localtime) into the globals localtime_r and mktime use.
unsafe extern "C" {
    safe fn tzset();
}

/// The calendar functions, for `_time` (the C library reads the time zone first).
pub fn natives(vm: &mut Vm) -> Vec<(&'static str, Value)> {
    tzset();
    vec![
        (
            "gmtime",
            vm.native("gmtime", |vm, args, kw| {
                broken_down(vm, "gmtime", args, kw, false)
            }),
        ),
        (
            "localtime",
            vm.native("localtime", |vm, args, kw| {
                broken_down(vm, "localtime", args, kw, true)
            }),
        ),
        ("mktime", vm.native("mktime", time_mktime)),
        ("strftime", vm.native("strftime", time_strftime)),
        ("asctime", vm.native("asctime", time_asctime)),
        ("ctime", vm.native("ctime", time_ctime)),
        (
            "tzset",
            vm.native("tzset", |_, _, _| {
                tzset();
                Ok(Value::None)
            }),
        ),
        (
            "zone_info",
            vm.native("zone_info", |_, _, _| Ok(zone_info())),
        ),
    ]
}

/// `time.process_time()`: the CPU seconds of the process.
pub fn process_time() -> f64 {
    cpu_secs(libc::CLOCK_PROCESS_CPUTIME_ID)
}

/// `time.thread_time()`: the CPU seconds of the thread.
pub fn thread_time() -> f64 {
    cpu_secs(libc::CLOCK_THREAD_CPUTIME_ID)
}

/// CPU seconds on the clock `id` (`process_time`, `thread_time`).
fn cpu_secs(id: libc::clockid_t) -> f64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes only the timespec it is given.
    unsafe { libc::clock_gettime(id, &mut ts) };
    ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9
}

/// `_PyTime_ObjectToTime_t(v, ROUND_FLOOR)`: seconds since the epoch as a `time_t`.
fn timestamp(vm: &mut Vm, v: &Value) -> PyResult<libc::time_t> {
    let out_of_range = |vm: &Vm| vm.overflow_error("timestamp out of range for platform time_t");
    if let Value::Float(f) = v {
        if f.is_nan() {
            return Err(vm.value_error("Invalid value NaN (not a number)"));
        }
        let f = f.floor();
        // i64::MAX as f64 rounds up to 2**63, itself out of range.
        if f < i64::MIN as f64 || f >= i64::MAX as f64 {
            return Err(out_of_range(vm));
        }
        return Ok(f as libc::time_t);
    }
    index_int(vm, v)?.as_i64().ok_or_else(|| out_of_range(vm))
}

/// The `seconds` argument of gmtime/localtime/ctime: absent or None means now.
fn seconds_arg(vm: &mut Vm, name: &str, args: &[Value], kw: &KwArgs) -> PyResult<libc::time_t> {
    check_kwargs(vm, name, kw, &[])?;
    check_arity(vm, name, args, 0, 1)?;
    match args.first() {
        None | Some(Value::None) => Ok(unix_time().floor() as libc::time_t),
        Some(v) => timestamp(vm, v),
    }
}

/// `gmtime_r` or `localtime_r` of `t`; an OSError with the C library's errno when the year
/// does not fit (`_PyTime_gmtime`, `_PyTime_localtime`).
fn c_broken_down(vm: &mut Vm, t: libc::time_t, local: bool) -> PyResult<libc::tm> {
    // SAFETY: an all-zero `tm` is valid (a null tm_zone included).
    let mut tm: libc::tm = unsafe { std::mem::zeroed() };
    // SAFETY: both write only `tm`; tm_zone then points at the C library's static names.
    let ok = unsafe {
        match local {
            true => !libc::localtime_r(&t, &mut tm).is_null(),
            false => !libc::gmtime_r(&t, &mut tm).is_null(),
        }
    };
    if ok {
        return Ok(tm);
    }
    let errno = std::io::Error::last_os_error()
        .raw_os_error()
        .unwrap_or(libc::EINVAL);
    // SAFETY: strerror returns a NUL-terminated message for any errno.
    let message = unsafe { CStr::from_ptr(libc::strerror(errno)) }.to_string_lossy();
    let os_error = Value::Type(vm.types.os_error.clone());
    let args = [Value::Int(errno.into()), Value::str(message.as_ref())];
    match vm.call(&os_error, &args, &[])? {
        Value::Object(e) => Err(e),
        _ => Err(vm.type_error("OSError() did not make an exception")),
    }
}

/// The zone name a `tm` carries ("" when none).
fn zone_name(tm: &libc::tm) -> String {
    if tm.tm_zone.is_null() {
        return String::new();
    }
    // SAFETY: a non-null tm_zone from the C library is a NUL-terminated static string.
    unsafe { CStr::from_ptr(tm.tm_zone) }
        .to_string_lossy()
        .into_owned()
}

/// `tmtotuple`: the nine fields as Python numbers them (months from 1, Monday = 0, days of
/// the year from 1), then tm_zone and tm_gmtoff.
fn tm_tuple(tm: &libc::tm) -> Value {
    let fields = [
        tm.tm_year as i64 + 1900,
        tm.tm_mon as i64 + 1,
        tm.tm_mday as i64,
        tm.tm_hour as i64,
        tm.tm_min as i64,
        tm.tm_sec as i64,
        (tm.tm_wday as i64 + 6) % 7,
        tm.tm_yday as i64 + 1,
        tm.tm_isdst as i64,
    ];
    let mut items: Vec<Value> = fields.into_iter().map(Value::Int).collect();
    items.push(Value::str(zone_name(tm)));
    items.push(Value::Int(tm.tm_gmtoff));
    Value::tuple(items)
}

/// `gmtime`/`localtime`: a `time.struct_time`, the class `time.apy` defines (the module
/// that imports this one, so loaded by then).
fn broken_down(
    vm: &mut Vm,
    name: &str,
    args: &[Value],
    kw: &KwArgs,
    local: bool,
) -> PyResult<Value> {
    let t = seconds_arg(vm, name, args, kw)?;
    let fields = tm_tuple(&c_broken_down(vm, t, local)?);
    let time_key = vm.intern("time");
    let module = vm.modules.table.borrow().get_str(&time_key).cloned();
    let struct_time = vm.intern("struct_time");
    match module {
        Some(module) => {
            let class = vm.get_attr(&module, &struct_time)?;
            vm.call(&class, &[fields], &[])
        }
        None => Ok(fields),
    }
}

/// A `tm` read from a time tuple, and the zone name it points at (kept alive beside it).
struct TimeArg {
    tm: libc::tm,
    _zone: Option<CString>,
}

/// `gettmarg`: a tuple (or struct_time) of nine ints as a C `tm`; a struct_time's
/// tm_zone and tm_gmtoff come too. `error` is the message for a tuple of the wrong length.
fn time_arg(vm: &mut Vm, v: &Value, error: &str) -> PyResult<TimeArg> {
    let (items, struct_time) = match v {
        Value::Tuple(t) => (t.items.to_vec(), false),
        Value::Object(o) if matches!(o.builtin_base(), Some(Value::Tuple(_))) => {
            let Some(Value::Tuple(t)) = o.builtin_base() else {
                unreachable!("matched above")
            };
            (t.items.to_vec(), true)
        }
        _ => return Err(vm.type_error("Tuple or struct_time argument required")),
    };
    if items.len() != 9 {
        return Err(vm.type_error(error.to_string()));
    }
    let mut f = [0 as libc::c_int; 9];
    for (slot, item) in f.iter_mut().zip(&items) {
        *slot = c_int(vm, item)?;
    }
    if f[0] < libc::c_int::MIN + 1900 {
        return Err(vm.overflow_error("year out of range"));
    }
    // SAFETY: an all-zero `tm` is valid.
    let mut tm: libc::tm = unsafe { std::mem::zeroed() };
    tm.tm_year = f[0] - 1900;
    tm.tm_mon = f[1] - 1;
    tm.tm_mday = f[2];
    tm.tm_hour = f[3];
    tm.tm_min = f[4];
    tm.tm_sec = f[5];
    tm.tm_wday = (f[6] + 1) % 7;
    tm.tm_yday = f[7] - 1;
    tm.tm_isdst = f[8];
    let mut zone = None;
    if struct_time {
        let name = vm.intern("tm_zone");
        if let Some(Value::Str(z)) = vm.get_attr_opt(v, &name)? {
            zone = CString::new(z.as_str()).ok();
        }
        let name = vm.intern("tm_gmtoff");
        if let Some(Value::Int(off)) = vm.get_attr_opt(v, &name)? {
            tm.tm_gmtoff = off;
        }
    }
    if let Some(z) = &zone {
        tm.tm_zone = z.as_ptr();
    }
    Ok(TimeArg { tm, _zone: zone })
}

/// Argument Clinic's `i` format: an int that fits a C int.
fn c_int(vm: &mut Vm, v: &Value) -> PyResult<libc::c_int> {
    let n = index_int(vm, v)?;
    match n.as_i64() {
        Some(n) if n > libc::c_int::MAX as i64 => {}
        Some(n) if n < libc::c_int::MIN as i64 => {
            return Err(vm.overflow_error("signed integer is less than minimum"));
        }
        Some(n) => return Ok(n as libc::c_int),
        None if n.is_negative() => {
            return Err(vm.overflow_error("signed integer is less than minimum"));
        }
        None => {}
    }
    Err(vm.overflow_error("signed integer is greater than maximum"))
}

/// `checktm`: the fields strftime and asctime index tables with must be in range; a zero
/// month, day of the month or day of the year means the first.
fn check_tm(vm: &Vm, tm: &mut libc::tm) -> PyResult<()> {
    let error = |what: &str| Err(vm.value_error(format!("{what} out of range")));
    if tm.tm_mon == -1 {
        tm.tm_mon = 0;
    } else if !(0..=11).contains(&tm.tm_mon) {
        return error("month");
    }
    if tm.tm_mday == 0 {
        tm.tm_mday = 1;
    } else if !(0..=31).contains(&tm.tm_mday) {
        return error("day of month");
    }
    if !(0..=23).contains(&tm.tm_hour) {
        return error("hour");
    }
    if !(0..=59).contains(&tm.tm_min) {
        return error("minute");
    }
    if !(0..=61).contains(&tm.tm_sec) {
        return error("seconds");
    }
    if tm.tm_wday < 0 {
        return error("day of week");
    }
    if tm.tm_yday == -1 {
        tm.tm_yday = 0;
    } else if !(0..=365).contains(&tm.tm_yday) {
        return error("day of year");
    }
    Ok(())
}

/// The time tuple argument of strftime/asctime, or the local time now when absent.
fn time_arg_or_now(vm: &mut Vm, v: Option<&Value>, error: &str) -> PyResult<TimeArg> {
    match v {
        Some(v) => time_arg(vm, v, error),
        None => {
            let now = unix_time().floor() as libc::time_t;
            let tm = c_broken_down(vm, now, true)?;
            Ok(TimeArg { tm, _zone: None })
        }
    }
}

fn time_strftime(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    check_kwargs(vm, "strftime", kw, &[])?;
    check_arity(vm, "strftime", args, 1, 2)?;
    let Value::Str(format) = &args[0] else {
        return Err(vm.type_error(format!(
            "strftime() argument 1 must be str, not {}",
            vm.arg_type_name(&args[0])
        )));
    };
    let mut arg = time_arg_or_now(vm, args.get(1), "strftime(): illegal time tuple argument")?;
    check_tm(vm, &mut arg.tm)?;
    // Normalised in case a C library indexes its zone names by tm_isdst.
    arg.tm.tm_isdst = arg.tm.tm_isdst.clamp(-1, 1);
    let Ok(c_format) = CString::new(format.as_str()) else {
        return Err(vm.value_error("embedded null character"));
    };
    Ok(Value::str(c_strftime(&c_format, &arg.tm)))
}

/// The C library's strftime, with CPython's growing buffer: an empty result from a buffer
/// 256 times the format's length is taken to be empty indeed (`%p` in some locales).
fn c_strftime(format: &CStr, tm: &libc::tm) -> String {
    let format_len = format.to_bytes().len().max(1);
    let mut size = 1024;
    loop {
        let mut buffer = vec![0u8; size];
        // SAFETY: strftime writes at most `size` bytes into the buffer and reads the
        // NUL-terminated format and the `tm` (whose tm_zone, if set, outlives the call).
        let written =
            unsafe { libc::strftime(buffer.as_mut_ptr().cast(), size, format.as_ptr(), tm) };
        if written > 0 || size >= 256 * format_len {
            buffer.truncate(written);
            return String::from_utf8_lossy(&buffer).into_owned();
        }
        size *= 2;
    }
}

/// `_asctime`: `Mon Jan  1 00:00:00 2024`, in English whatever the locale.
fn asctime_text(tm: &libc::tm) -> String {
    const DAYS: [&str; 7] = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    format!(
        "{} {}{:3} {:02}:{:02}:{:02} {}",
        DAYS[tm.tm_wday.rem_euclid(7) as usize],
        MONTHS[tm.tm_mon.rem_euclid(12) as usize],
        tm.tm_mday,
        tm.tm_hour,
        tm.tm_min,
        tm.tm_sec,
        1900 + tm.tm_year as i64
    )
}

fn time_asctime(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    check_kwargs(vm, "asctime", kw, &[])?;
    check_arity(vm, "asctime", args, 0, 1)?;
    let mut arg = time_arg_or_now(vm, args.first(), "asctime(): illegal time tuple argument")?;
    check_tm(vm, &mut arg.tm)?;
    Ok(Value::str(asctime_text(&arg.tm)))
}

fn time_ctime(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let t = seconds_arg(vm, "ctime", args, kw)?;
    let tm = c_broken_down(vm, t, true)?;
    Ok(Value::str(asctime_text(&tm)))
}

fn time_mktime(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    check_kwargs(vm, "mktime", kw, &[])?;
    check_arity(vm, "mktime", args, 1, 1)?;
    let mut arg = time_arg(vm, &args[0], "mktime(): illegal time tuple argument")?;
    // A sentinel: mktime sets tm_wday only when it succeeds.
    arg.tm.tm_wday = -1;
    // SAFETY: mktime reads and normalises the `tm` it is given.
    let t = unsafe { libc::mktime(&mut arg.tm) };
    if t == -1 && arg.tm.tm_wday == -1 {
        return Err(vm.overflow_error("mktime argument out of range"));
    }
    Ok(Value::Float(t as f64))
}

/// `init_timezone` as CPython does it on Linux: the local zone in January and in July of
/// this year gives `(timezone, altzone, daylight, tzname)`, the standard zone being the one
/// further west (so the southern hemisphere's summer is not taken for standard time).
fn zone_info() -> Value {
    const YEAR: libc::time_t = (365 * 24 + 6) * 3600;
    let jan = (unix_time() as libc::time_t / YEAR) * YEAR;
    let zone_at = |t: libc::time_t| {
        // SAFETY: as in c_broken_down.
        let mut tm: libc::tm = unsafe { std::mem::zeroed() };
        match unsafe { libc::localtime_r(&t, &mut tm) }.is_null() {
            true => (0, "UTC".to_string()),
            false => (-tm.tm_gmtoff, zone_name(&tm)),
        }
    };
    let (jan_zone, jan_name) = zone_at(jan);
    let (july_zone, july_name) = zone_at(jan + YEAR / 2);
    let ((zone, name), (alt, alt_name)) = match jan_zone < july_zone {
        true => ((july_zone, july_name), (jan_zone, jan_name)),
        false => ((jan_zone, jan_name), (july_zone, july_name)),
    };
    Value::tuple(vec![
        Value::Int(zone),
        Value::Int(alt),
        Value::Int((zone != alt).into()),
        Value::tuple(vec![Value::str(name), Value::str(alt_name)]),
    ])
}
