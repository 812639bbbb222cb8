//! `resource`, the process's resource limits and usage (`Modules/resource.c`):
//! `getrusage` (a `struct_rusage`), `getrlimit`, `setrlimit`, `prlimit`, `getpagesize`,
//! the `RLIMIT_*`/`RUSAGE_*` numbers, `RLIM_INFINITY` and `error` (OSError), with
//! CPython's ValueErrors. A limit set here is the system's alone: apy's own
//! `--max-memory` accounting (`common::memory`) is separate, and stays as it was.

use super::module_args::as_c_long;
use super::posix_constants::{RESOURCE, RUSAGE_DOC, RUSAGE_FIELDS};
use super::structseq;
use crate::vm::args::Signature;
use crate::vm::object::KwArgs;
use crate::vm::value::Value;
use crate::vm::{PyResult, Vm};

/// How many limits there are (`RLIM_NLIMITS`, glibc's as CPython was built with it; the
/// `libc` crate's is deprecated as not stable across kernels).
const RLIM_NLIMITS: i32 = 16;

pub fn module(vm: &mut Vm) -> Value {
    let class = structseq::make_class(vm, "resource.struct_rusage", RUSAGE_FIELDS, RUSAGE_DOC);
    let mut attrs = vec![
        ("error", Value::Type(vm.types.os_error.clone())),
        ("struct_rusage", class),
        ("getrusage", vm.native("getrusage", getrusage)),
        ("getrlimit", vm.native("getrlimit", getrlimit)),
        ("setrlimit", vm.native("setrlimit", setrlimit)),
        ("prlimit", vm.native("prlimit", prlimit)),
        ("getpagesize", vm.native("getpagesize", getpagesize)),
        // All ones, which CPython shows as a C long.
        ("RLIM_INFINITY", Value::Int(libc::RLIM_INFINITY as i64)),
    ];
    for &(name, value) in RESOURCE {
        attrs.push((name, Value::Int(value)));
    }
    vm.new_module("resource", attrs)
}

/// The OSError of the last failed call.
fn last_error(vm: &mut Vm) -> crate::vm::Exc {
    super::socket::os_error(vm, &std::io::Error::last_os_error())
}

/// The errno of the last failed call.
fn last_errno() -> i32 {
    std::io::Error::last_os_error().raw_os_error().unwrap_or(0)
}

/// `doubletime`: a `timeval` as seconds.
fn seconds(tv: libc::timeval) -> f64 {
    tv.tv_sec as f64 + tv.tv_usec as f64 * 0.000001
}

/// `resource.getrusage(who)`.
fn getrusage(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    Signature::one("resource", "getrusage").check(vm, args, kw)?;
    let who = vm.expect_c_int(&args[0])?;
    // SAFETY: `rusage` is a plain C struct, all zeroes valid; getrusage fills it.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `ru` is a live, writable rusage.
    if unsafe { libc::getrusage(who, &mut ru) } == -1 {
        if last_errno() == libc::EINVAL {
            return Err(vm.value_error("invalid who parameter"));
        }
        return Err(last_error(vm));
    }
    let ints = [
        ru.ru_maxrss,
        ru.ru_ixrss,
        ru.ru_idrss,
        ru.ru_isrss,
        ru.ru_minflt,
        ru.ru_majflt,
        ru.ru_nswap,
        ru.ru_inblock,
        ru.ru_oublock,
        ru.ru_msgsnd,
        ru.ru_msgrcv,
        ru.ru_nsignals,
        ru.ru_nvcsw,
        ru.ru_nivcsw,
    ];
    let mut items = vec![
        Value::Float(seconds(ru.ru_utime)),
        Value::Float(seconds(ru.ru_stime)),
    ];
    items.extend(ints.into_iter().map(Value::Int));
    structseq::instance(vm, "resource", "struct_rusage", items)
}

/// A resource number, "invalid resource specified" past `RLIM_NLIMITS`.
fn resource_arg(vm: &mut Vm, v: &Value) -> PyResult<i32> {
    let resource = vm.expect_c_int(v)?;
    if !(0..RLIM_NLIMITS).contains(&resource) {
        return Err(vm.value_error("invalid resource specified"));
    }
    Ok(resource)
}

/// `rlimit2py`: (soft, hard), all ones as -1.
fn limits_value(rl: libc::rlimit) -> Value {
    Value::tuple(vec![
        Value::Int(rl.rlim_cur as i64),
        Value::Int(rl.rlim_max as i64),
    ])
}

/// `py2rlimit`: a sequence of two ints (each a C long long; a negative one is all ones
/// below its bits, as CPython masks it) as an rlimit.
fn limits_arg(vm: &mut Vm, v: &Value) -> PyResult<libc::rlimit> {
    let items = vm.collect_iterable(v)?;
    if items.len() != 2 {
        return Err(vm.value_error("expected a tuple of 2 integers"));
    }
    let mut two = [0; 2];
    for (slot, item) in two.iter_mut().zip(&items) {
        *slot = as_c_long(vm, item)? as libc::rlim_t;
    }
    Ok(libc::rlimit {
        rlim_cur: two[0],
        rlim_max: two[1],
    })
}

/// `resource.getrlimit(resource)`.
fn getrlimit(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    Signature::one("resource", "getrlimit").check(vm, args, kw)?;
    let resource = resource_arg(vm, &args[0])?;
    let mut rl = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: `rl` is a live, writable rlimit.
    if unsafe { libc::getrlimit(resource as _, &mut rl) } == -1 {
        return Err(last_error(vm));
    }
    Ok(limits_value(rl))
}

/// `resource.setrlimit(resource, limits)`.
fn setrlimit(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    Signature::positional("resource", "setrlimit", &["resource", "limits"], 2)
        .check(vm, args, kw)?;
    let resource = resource_arg(vm, &args[0])?;
    let rl = limits_arg(vm, &args[1])?;
    // SAFETY: `rl` is a live rlimit, only read.
    if unsafe { libc::setrlimit(resource as _, &rl) } == -1 {
        return Err(match last_errno() {
            libc::EINVAL => vm.value_error("current limit exceeds maximum limit"),
            libc::EPERM => vm.value_error("not allowed to raise maximum limit"),
            _ => last_error(vm),
        });
    }
    Ok(Value::None)
}

/// `resource.prlimit(pid, resource[, limits])`: the limits of the process `pid` (0: this
/// one), set to `limits` when given; the old ones.
fn prlimit(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    Signature::positional("resource", "prlimit", &["pid", "resource", "limits"], 2)
        .check(vm, args, kw)?;
    let pid = vm.expect_c_int(&args[0])?;
    let resource = resource_arg(vm, &args[1])?;
    let new = match args.get(2) {
        None | Some(Value::None) => None,
        Some(limits) => Some(limits_arg(vm, limits)?),
    };
    let mut old = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    let new_ptr = new.as_ref().map_or(std::ptr::null(), |rl| rl as *const _);
    // SAFETY: `new_ptr` is null or a live rlimit, only read; `old` is live and writable.
    if unsafe { libc::prlimit(pid, resource as _, new_ptr, &mut old) } == -1 {
        if last_errno() == libc::EINVAL {
            return Err(vm.value_error("current limit exceeds maximum limit"));
        }
        return Err(last_error(vm));
    }
    Ok(limits_value(old))
}

/// `resource.getpagesize()`.
fn getpagesize(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    Signature::no_args("resource", "getpagesize").check(vm, args, kw)?;
    // SAFETY: sysconf reads a number of the system's.
    let size = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    Ok(Value::Int(size as i64))
}
