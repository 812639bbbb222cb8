//! `termios`, the POSIX terminal interface (`Modules/termios.c`): `tcgetattr` (the list
//! `[iflag, oflag, cflag, lflag, ispeed, ospeed, cc]`), `tcsetattr`, `tcsendbreak`,
//! `tcdrain`, `tcflush`, `tcflow`, `tcgetwinsize`, `tcsetwinsize`, `error` (raised as
//! `termios.error(errno, strerror)`), and Linux's numbers (`posix_constants.rs`). `tty`
//! (`src/stdlib/tty.apy`) is written over it.

use super::fd_arg::descriptor;
use super::posix_constants::{TERMIOS, TERMIOS_DOC};
use crate::vm::Exc;
use crate::vm::args::Signature;
use crate::vm::object::KwArgs;
use crate::vm::value::Value;
use crate::vm::{PyResult, Vm};

pub fn module(vm: &mut Vm) -> Value {
    let mut attrs = vec![
        ("__doc__", Value::str(TERMIOS_DOC)),
        ("error", super::posix_constants::termios_error(vm)),
        ("tcgetattr", vm.native("tcgetattr", tcgetattr)),
        ("tcsetattr", vm.native("tcsetattr", tcsetattr)),
        ("tcsendbreak", vm.native("tcsendbreak", tcsendbreak)),
        ("tcdrain", vm.native("tcdrain", tcdrain)),
        ("tcflush", vm.native("tcflush", tcflush)),
        ("tcflow", vm.native("tcflow", tcflow)),
        ("tcgetwinsize", vm.native("tcgetwinsize", tcgetwinsize)),
        ("tcsetwinsize", vm.native("tcsetwinsize", tcsetwinsize)),
    ];
    for &(name, value) in TERMIOS {
        attrs.push((name, Value::Int(value)));
    }
    vm.new_module("termios", attrs)
}

/// `PyErr_SetFromErrno(termios.error)` for the last failed call: `error(errno, text)`
/// (an OSError should the program have taken the module out of `sys.modules`).
fn error(vm: &mut Vm) -> Exc {
    let errno = std::io::Error::last_os_error()
        .raw_os_error()
        .unwrap_or(libc::EINVAL);
    let class = match vm.loaded_module("termios") {
        Some(module) => {
            let name = vm.intern("error");
            vm.get_attr(&module, &name)
                .unwrap_or_else(|_| Value::Type(vm.types.os_error.clone()))
        }
        None => Value::Type(vm.types.os_error.clone()),
    };
    let text = crate::common::errno_text::strerror(errno);
    match vm.call(&class, &[Value::Int(errno.into()), Value::str(text)], &[]) {
        Ok(Value::Object(exc)) | Err(exc) => exc,
        Ok(_) => vm.runtime_error("termios.error() did not make an exception"),
    }
}

/// Checks a call's status: the module's error for -1.
fn status(vm: &mut Vm, result: i32) -> PyResult<Value> {
    match result {
        -1 => Err(error(vm)),
        _ => Ok(Value::None),
    }
}

/// A terminal's attributes, or the module's error.
fn attributes(vm: &mut Vm, fd: i32) -> PyResult<libc::termios> {
    // SAFETY: `termios` is a plain C struct, all zeroes valid; tcgetattr fills it.
    let mut mode: libc::termios = unsafe { std::mem::zeroed() };
    // SAFETY: `mode` is a live, writable termios.
    if unsafe { libc::tcgetattr(fd, &mut mode) } == -1 {
        return Err(error(vm));
    }
    Ok(mode)
}

/// `termios.tcgetattr(fd)`.
fn tcgetattr(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    Signature::one("termios", "tcgetattr").check(vm, args, kw)?;
    let fd = descriptor(vm, &args[0])?;
    let mode = attributes(vm, fd)?;
    // SAFETY: `mode` is a termios tcgetattr filled.
    let (ispeed, ospeed) = unsafe { (libc::cfgetispeed(&mode), libc::cfgetospeed(&mode)) };
    let mut cc: Vec<Value> = mode.c_cc.iter().map(|&c| vm.new_bytes(vec![c])).collect();
    // The MIN and TIME slots are numbers in noncanonical mode (elsewhere they may be the
    // EOF and EOL characters).
    if mode.c_lflag & libc::ICANON == 0 {
        cc[libc::VMIN] = Value::Int(mode.c_cc[libc::VMIN].into());
        cc[libc::VTIME] = Value::Int(mode.c_cc[libc::VTIME].into());
    }
    Ok(Value::list(vec![
        Value::Int(mode.c_iflag.into()),
        Value::Int(mode.c_oflag.into()),
        Value::Int(mode.c_cflag.into()),
        Value::Int(mode.c_lflag.into()),
        Value::Int(ispeed.into()),
        Value::Int(ospeed.into()),
        Value::list(cc),
    ]))
}

/// `termios.tcsetattr(fd, when, attributes)`.
fn tcsetattr(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    Signature::positional("termios", "tcsetattr", &["fd", "when", "attributes"], 3)
        .check(vm, args, kw)?;
    let fd = descriptor(vm, &args[0])?;
    let when = vm.expect_c_int(&args[1])?;
    let term = match &args[2] {
        Value::List(list) if list.items.borrow().len() == 7 => list.items.borrow().clone(),
        _ => return Err(vm.type_error("tcsetattr, arg 3: must be 7 element list")),
    };
    // The old mode first, for any fields the list does not carry.
    let mut mode = attributes(vm, fd)?;
    let mut words = [0i64; 6];
    for (word, item) in words.iter_mut().zip(&term) {
        *word = super::module_args::as_c_long(vm, item)?;
    }
    mode.c_iflag = words[0] as libc::tcflag_t;
    mode.c_oflag = words[1] as libc::tcflag_t;
    mode.c_cflag = words[2] as libc::tcflag_t;
    mode.c_lflag = words[3] as libc::tcflag_t;
    let (ispeed, ospeed) = (words[4] as libc::speed_t, words[5] as libc::speed_t);
    let cc = match &term[6] {
        Value::List(list) if list.items.borrow().len() == libc::NCCS => list.items.borrow().clone(),
        _ => {
            return Err(vm.type_error(format!(
                "tcsetattr: attributes[6] must be {} element list",
                libc::NCCS
            )));
        }
    };
    for (slot, item) in mode.c_cc.iter_mut().zip(&cc) {
        let bytes = super::bytes_type::payload(item)
            .filter(|_| vm.isinstance(item, &vm.types.bytes))
            .map(|b| b.data().clone());
        *slot = match bytes {
            Some(b) if b.len() == 1 => b[0],
            _ if matches!(item, Value::Int(_) | Value::Bool(_) | Value::BigInt(_)) => {
                super::module_args::as_c_long(vm, item)? as libc::cc_t
            }
            _ => {
                return Err(vm.type_error(
                    "tcsetattr: elements of attributes must be characters or integers",
                ));
            }
        };
    }
    // SAFETY: `mode` is a live termios; the calls set its speeds.
    if unsafe { libc::cfsetispeed(&mut mode, ispeed) } == -1 {
        return Err(error(vm));
    }
    // SAFETY: as above.
    if unsafe { libc::cfsetospeed(&mut mode, ospeed) } == -1 {
        return Err(error(vm));
    }
    // SAFETY: `mode` is a live termios, only read.
    let result = unsafe { libc::tcsetattr(fd, when, &mode) };
    status(vm, result)
}

/// `termios.tcsendbreak(fd, duration)`.
fn tcsendbreak(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    Signature::positional("termios", "tcsendbreak", &["fd", "duration"], 2).check(vm, args, kw)?;
    let fd = descriptor(vm, &args[0])?;
    let duration = vm.expect_c_int(&args[1])?;
    // SAFETY: tcsendbreak takes two ints.
    let result = unsafe { libc::tcsendbreak(fd, duration) };
    status(vm, result)
}

/// `termios.tcdrain(fd)`.
fn tcdrain(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    Signature::one("termios", "tcdrain").check(vm, args, kw)?;
    let fd = descriptor(vm, &args[0])?;
    // SAFETY: tcdrain takes an int.
    let result = unsafe { libc::tcdrain(fd) };
    status(vm, result)
}

/// `termios.tcflush(fd, queue)`.
fn tcflush(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    Signature::positional("termios", "tcflush", &["fd", "queue"], 2).check(vm, args, kw)?;
    let fd = descriptor(vm, &args[0])?;
    let queue = vm.expect_c_int(&args[1])?;
    // SAFETY: tcflush takes two ints.
    let result = unsafe { libc::tcflush(fd, queue) };
    status(vm, result)
}

/// `termios.tcflow(fd, action)`.
fn tcflow(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    Signature::positional("termios", "tcflow", &["fd", "action"], 2).check(vm, args, kw)?;
    let fd = descriptor(vm, &args[0])?;
    let action = vm.expect_c_int(&args[1])?;
    // SAFETY: tcflow takes two ints.
    let result = unsafe { libc::tcflow(fd, action) };
    status(vm, result)
}

/// A terminal's window size, or the module's error.
fn window_size(vm: &mut Vm, fd: i32) -> PyResult<libc::winsize> {
    let mut size = libc::winsize {
        ws_row: 0,
        ws_col: 0,
        ws_xpixel: 0,
        ws_ypixel: 0,
    };
    // SAFETY: TIOCGWINSZ writes a winsize, and `size` is a live one.
    if unsafe { libc::ioctl(fd, libc::TIOCGWINSZ, &mut size) } == -1 {
        return Err(error(vm));
    }
    Ok(size)
}

/// `termios.tcgetwinsize(fd)`: `(rows, columns)`.
fn tcgetwinsize(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    Signature::one("termios", "tcgetwinsize").check(vm, args, kw)?;
    let fd = descriptor(vm, &args[0])?;
    let size = window_size(vm, fd)?;
    Ok(Value::tuple(vec![
        Value::Int(size.ws_row.into()),
        Value::Int(size.ws_col.into()),
    ]))
}

/// `termios.tcsetwinsize(fd, winsize)`: `winsize` is `(rows, columns)`.
fn tcsetwinsize(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    Signature::positional("termios", "tcsetwinsize", &["fd", "winsize"], 2).check(vm, args, kw)?;
    let fd = descriptor(vm, &args[0])?;
    let items = match &args[1] {
        Value::Tuple(_) | Value::List(_) => vm.collect_iterable(&args[1])?,
        _ => Vec::new(),
    };
    if items.len() != 2 {
        return Err(vm.type_error("tcsetwinsize, arg 2: must be a two-item sequence"));
    }
    let rows = super::module_args::as_c_long(vm, &items[0])?;
    let columns = super::module_args::as_c_long(vm, &items[1])?;
    // The old size first, for its pixel fields.
    let mut size = window_size(vm, fd)?;
    let (Ok(rows), Ok(columns)) = (u16::try_from(rows), u16::try_from(columns)) else {
        return Err(vm.overflow_error("winsize value(s) out of range."));
    };
    size.ws_row = rows;
    size.ws_col = columns;
    // SAFETY: TIOCSWINSZ reads a winsize, and `size` is a live one.
    let result = unsafe { libc::ioctl(fd, libc::TIOCSWINSZ, &size) };
    status(vm, result)
}
