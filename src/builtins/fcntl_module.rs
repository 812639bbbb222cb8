//! `fcntl`, file and I/O control of descriptors (`Modules/fcntlmodule.c`): `fcntl`
//! (an int argument, or a buffer of up to 1024 bytes the call may fill), `ioctl` (an int,
//! a bytes-like buffer, or a bytearray it changes in place), `flock`, `lockf`, and
//! Linux's numbers (`posix_constants.rs`). A descriptor is an int or has `fileno()`
//! (`fd_arg.rs`); a failed call is the OSError of its errno.
//!
//! As in CPython, an int argument goes to the system as it is: a command that reads it as
//! an address (`F_GETLK` given an int, `ioctl(fd, TIOCGWINSZ, 0)`) gets that address, and
//! the system refuses most with EFAULT. The buffer forms are the safe way to pass a struct.

use super::bytes_type::payload;
use super::fd_arg::descriptor;
use super::posix_constants::{FCNTL, FCNTL_DOC};
use crate::common::int_ops::Int;
use crate::vm::args::Signature;
use crate::vm::object::KwArgs;
use crate::vm::value::Value;
use crate::vm::{PyResult, Vm};

/// The most a buffer argument can hold (`FCNTL_BUFSZ`, `IOCTL_BUFSZ`).
const BUFFER_SIZE: usize = 1024;

pub fn module(vm: &mut Vm) -> Value {
    let mut attrs = vec![
        ("__doc__", Value::str(FCNTL_DOC)),
        ("fcntl", vm.native("fcntl", fcntl)),
        ("ioctl", vm.native("ioctl", ioctl)),
        ("flock", vm.native("flock", flock)),
        ("lockf", vm.native("lockf", lockf)),
    ];
    for &(name, value) in FCNTL {
        attrs.push((name, Value::Int(value)));
    }
    vm.new_module("fcntl", attrs)
}

/// The OSError of the last failed call.
fn last_error(vm: &mut Vm) -> crate::vm::Exc {
    super::socket::os_error(vm, &std::io::Error::last_os_error())
}

/// Whether the last failed call was interrupted by a signal (to be made again, as
/// CPython's loops do once the signal's handler ran).
fn interrupted() -> bool {
    std::io::Error::last_os_error().raw_os_error() == Some(libc::EINTR)
}

/// The bytes of a str (UTF-8) or of a bytes (not a bytearray: CPython's `s#`), or None.
fn read_only_buffer(vm: &Vm, v: &Value) -> Option<Vec<u8>> {
    if let Some(s) = v.as_str() {
        return Some(s.as_bytes().to_vec());
    }
    match payload(v) {
        Some(b) if !vm.isinstance(v, &vm.types.bytearray) => Some(b.data().clone()),
        _ => None,
    }
}

/// `PyLong_AsUnsignedLongMask`-style: an int's low bits, two's complement.
fn masked(vm: &mut Vm, v: &Value) -> PyResult<u64> {
    match vm.index_int(v)? {
        Some(Int::Small(n)) => Ok(n as u64),
        Some(Int::Big(b)) => {
            let low = b & num_bigint::BigInt::from(u64::MAX);
            Ok(low.iter_u64_digits().next().unwrap_or(0))
        }
        None => Err(vm.type_error(format!(
            "'{}' object cannot be interpreted as an integer",
            vm.type_name(v)
        ))),
    }
}

/// Runs `call` on a copy of `data` in a buffer of [`BUFFER_SIZE`] bytes (the system may
/// write that much), the copy's bytes after it.
fn with_buffer(
    vm: &mut Vm,
    data: &[u8],
    too_long: &str,
    mut call: impl FnMut(*mut libc::c_void) -> i32,
) -> PyResult<Vec<u8>> {
    if data.len() > BUFFER_SIZE {
        return Err(vm.value_error(too_long.to_string()));
    }
    let mut buffer = [0u8; BUFFER_SIZE + 1];
    buffer[..data.len()].copy_from_slice(data);
    loop {
        if call(buffer.as_mut_ptr().cast()) != -1 {
            return Ok(buffer[..data.len()].to_vec());
        }
        if !interrupted() {
            return Err(last_error(vm));
        }
        if let Some(exc) = vm.check_woken() {
            return Err(exc);
        }
    }
}

/// Runs `call` until it is not interrupted: its result, or the OSError.
fn retrying(vm: &mut Vm, mut call: impl FnMut() -> i64) -> PyResult<i64> {
    loop {
        let result = call();
        if result != -1 {
            return Ok(result);
        }
        if !interrupted() {
            return Err(last_error(vm));
        }
        if let Some(exc) = vm.check_woken() {
            return Err(exc);
        }
    }
}

/// `fcntl.fcntl(fd, cmd, arg=0)`.
fn fcntl(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    Signature::positional("fcntl", "fcntl", &["fd", "cmd", "arg"], 2).check(vm, args, kw)?;
    let fd = descriptor(vm, &args[0])?;
    let cmd = vm.expect_c_int(&args[1])?;
    if let Some(data) = args.get(2).and_then(|a| read_only_buffer(vm, a)) {
        let out = with_buffer(vm, &data, "fcntl string arg too long", |p| {
            // SAFETY: `p` is a live buffer of BUFFER_SIZE + 1 bytes, as CPython passes one;
            // what the command reads or writes there is the program's to choose.
            unsafe { libc::fcntl(fd, cmd, p) }
        })?;
        return Ok(vm.new_bytes(out));
    }
    // `I`: the low 32 bits of any int.
    let arg = match args.get(2) {
        Some(a) => masked(vm, a)? as u32 as libc::c_int,
        None => 0,
    };
    // SAFETY: an int argument, passed as CPython passes it (see the module's comment).
    let result = retrying(vm, || unsafe { libc::fcntl(fd, cmd, arg) }.into())?;
    Ok(Value::Int(result))
}

/// `fcntl.ioctl(fd, request, arg=0, mutate_flag=True)`.
fn ioctl(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    Signature::positional(
        "fcntl",
        "ioctl",
        &["fd", "request", "arg", "mutate_flag"],
        2,
    )
    .check(vm, args, kw)?;
    let fd = descriptor(vm, &args[0])?;
    // `unsigned long`, bitwise: the low 64 bits of any int.
    let request = masked(vm, &args[1])? as libc::c_ulong;
    let mutate = match args.get(3) {
        Some(flag) => vm.truthy(flag)?,
        None => true,
    };
    let too_long = "ioctl string arg too long";
    if let Some(arg) = args.get(2) {
        // A bytearray: changed in place (its bytes copied through a buffer of 1024 when
        // they fit, as CPython does), unless `mutate_flag` is false.
        if vm.isinstance(arg, &vm.types.bytearray)
            && let Some(bytes) = payload(arg)
        {
            let data = bytes.data().clone();
            if !mutate {
                let out = with_buffer(vm, &data, too_long, |p| {
                    // SAFETY: as in `fcntl`'s buffer form.
                    unsafe { libc::ioctl(fd, request as _, p) }
                })?;
                return Ok(vm.new_bytes(out));
            }
            let result;
            let out = if data.len() <= BUFFER_SIZE {
                let mut status = 0;
                let out = with_buffer(vm, &data, too_long, |p| {
                    // SAFETY: as in `fcntl`'s buffer form.
                    status = unsafe { libc::ioctl(fd, request as _, p) };
                    status
                })?;
                result = status;
                out
            } else {
                let mut big = data;
                // SAFETY: `big` is a live buffer of its length, which is what the program
                // gave; as in CPython, a request must not write past it.
                let status = unsafe { libc::ioctl(fd, request as _, big.as_mut_ptr()) };
                if status == -1 {
                    return Err(last_error(vm));
                }
                result = status;
                big
            };
            if let Some(mut target) = bytes.data_mut() {
                let n = out.len().min(target.len());
                target[..n].copy_from_slice(&out[..n]);
            }
            return Ok(Value::Int(result.into()));
        }
        if let Some(data) = read_only_buffer(vm, arg) {
            let out = with_buffer(vm, &data, too_long, |p| {
                // SAFETY: as in `fcntl`'s buffer form.
                unsafe { libc::ioctl(fd, request as _, p) }
            })?;
            return Ok(vm.new_bytes(out));
        }
    }
    // `i`: a C int.
    let arg = match args.get(2) {
        Some(a) => int_arg(vm, a)?,
        None => 0,
    };
    // SAFETY: an int argument, passed as CPython passes it (see the module's comment).
    let result = unsafe { libc::ioctl(fd, request as _, arg) };
    if result == -1 {
        return Err(last_error(vm));
    }
    Ok(Value::Int(result.into()))
}

/// `PyArg_Parse(…, "i")`: a C int, with its own overflow messages.
fn int_arg(vm: &mut Vm, v: &Value) -> PyResult<libc::c_int> {
    let n = match vm.index_int(v)? {
        Some(Int::Small(n)) => n,
        Some(Int::Big(b)) if b.sign() == num_bigint::Sign::Minus => i64::MIN,
        Some(Int::Big(_)) => i64::MAX,
        None => {
            return Err(vm.type_error(format!(
                "'{}' object cannot be interpreted as an integer",
                vm.type_name(v)
            )));
        }
    };
    if n > i64::from(libc::c_int::MAX) {
        return Err(vm.overflow_error("signed integer is greater than maximum"));
    }
    if n < i64::from(libc::c_int::MIN) {
        return Err(vm.overflow_error("signed integer is less than minimum"));
    }
    Ok(n as libc::c_int)
}

/// `fcntl.flock(fd, operation)`.
fn flock(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    Signature::positional("fcntl", "flock", &["fd", "operation"], 2).check(vm, args, kw)?;
    let fd = descriptor(vm, &args[0])?;
    let operation = vm.expect_c_int(&args[1])?;
    // SAFETY: flock takes two ints.
    retrying(vm, || unsafe { libc::flock(fd, operation) }.into())?;
    Ok(Value::None)
}

/// `fcntl.lockf(fd, cmd, len=0, start=0, whence=0)`: `flock`'s operations as POSIX
/// record locks (`F_SETLK`, or `F_SETLKW` without `LOCK_NB`).
fn lockf(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    Signature::positional(
        "fcntl",
        "lockf",
        &["fd", "cmd", "len", "start", "whence"],
        2,
    )
    .check(vm, args, kw)?;
    let fd = descriptor(vm, &args[0])?;
    let code = vm.expect_c_int(&args[1])?;
    let whence = match args.get(4) {
        Some(w) => vm.expect_c_int(w)?,
        None => 0,
    };
    let kind = if code == libc::LOCK_UN {
        libc::F_UNLCK
    } else if code & libc::LOCK_SH != 0 {
        libc::F_RDLCK
    } else if code & libc::LOCK_EX != 0 {
        libc::F_WRLCK
    } else {
        return Err(vm.value_error("unrecognized lockf argument"));
    };
    let start = match args.get(3) {
        Some(s) => super::module_args::as_c_long(vm, s)?,
        None => 0,
    };
    let len = match args.get(2) {
        Some(l) => super::module_args::as_c_long(vm, l)?,
        None => 0,
    };
    // SAFETY: `flock` is a plain C struct, all zeroes valid.
    let mut lock: libc::flock = unsafe { std::mem::zeroed() };
    lock.l_type = kind as _;
    lock.l_whence = whence as _;
    lock.l_start = start;
    lock.l_len = len;
    let command = match code & libc::LOCK_NB {
        0 => libc::F_SETLKW,
        _ => libc::F_SETLK,
    };
    // SAFETY: `lock` is a live flock the command reads.
    retrying(vm, || unsafe { libc::fcntl(fd, command, &lock) }.into())?;
    Ok(Value::None)
}
