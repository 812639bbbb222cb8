//! `faulthandler` (`Modules/faulthandler.c`): `dump_traceback(file, all_threads)` writes
//! the running Python frames to a descriptor as CPython's does, straight to it after
//! flushing the file, innermost first, in CPython's format (`Stack (most recent call
//! first):` or `Current thread 0x… (most recent call first):`, then `  File "…", line N
//! in name`, text past ASCII escaped, the innermost 100 frames); `enable`, `disable` and
//! `is_enabled` keep the switch, checking the file as CPython does. apy ends no program on
//! a fatal signal (a Rust panic is a bug of apy's, reported as such), so an enabled handler
//! never has a crash to report. Only the calling thread's frames are written (CPython
//! writes every thread's). In a page (src/web.rs), descriptors 1 and 2 are the page's
//! output and error panes.

use std::sync::atomic::{AtomicBool, Ordering};

use crate::vm::args::Signature;
use crate::vm::object::KwArgs;
use crate::vm::value::Value;
use crate::vm::{PyResult, Vm};

/// Whether `enable()` was called last (process-wide, as CPython's).
static ENABLED: AtomicBool = AtomicBool::new(false);

/// At most this many frames are written (`MAX_FRAME_DEPTH`), the outer ones left out
/// without a word, as CPython 3.13 does.
const MAX_FRAME_DEPTH: usize = 100;

/// A text longer than this is cut there, with `...` (`MAX_STRING_LENGTH`).
const MAX_STRING_LENGTH: usize = 500;

pub fn module(vm: &mut Vm) -> Value {
    let attrs = vec![
        ("__doc__", Value::str("faulthandler module.")),
        ("enable", vm.native("enable", enable)),
        ("disable", vm.native("disable", disable)),
        ("is_enabled", vm.native("is_enabled", is_enabled)),
        (
            "dump_traceback",
            vm.native("dump_traceback", dump_traceback),
        ),
    ];
    vm.new_module("faulthandler", attrs)
}

/// Whether `v` is an int, as `PyLong_Check` asks.
fn is_int(v: &Value) -> bool {
    match v {
        Value::Int(_) | Value::Bool(_) | Value::BigInt(_) => true,
        Value::Object(o) => matches!(o.builtin_base(), Some(Value::Int(_) | Value::BigInt(_))),
        _ => false,
    }
}

/// `faulthandler_get_fileno`: the descriptor `file` names (None: `sys.stderr`), the
/// file flushed first (an error there ignored, as CPython ignores it).
fn file_descriptor(vm: &mut Vm, file: Option<&Value>) -> PyResult<i32> {
    let file = match file {
        None | Some(Value::None) => match vm.sys_attr("stderr") {
            None => return Err(vm.runtime_error("unable to get sys.stderr")),
            Some(Value::None) => return Err(vm.runtime_error("sys.stderr is None")),
            Some(stderr) => stderr,
        },
        Some(n) if is_int(n) => {
            if matches!(n, Value::Bool(_)) {
                vm.warn_caller("RuntimeWarning", "bool is used as a file descriptor");
            }
            let fd = vm.expect_c_int(n)?;
            if fd < 0 {
                return Err(vm.value_error("file is not a valid file descriptor"));
            }
            return Ok(fd);
        }
        Some(file) => file.clone(),
    };
    let fileno = vm.intern("fileno");
    let method = vm.get_attr(&file, &fileno)?;
    let n = vm.call(&method, &[], &[])?;
    let fd = match n {
        Value::Int(n) if (0..i64::from(i32::MAX)).contains(&n) => n as i32,
        _ => return Err(vm.runtime_error("file.fileno() is not a valid file descriptor")),
    };
    let flush = vm.intern("flush");
    if let Ok(method) = vm.get_attr(&file, &flush) {
        let _ignored = vm.call(&method, &[], &[]);
    }
    Ok(fd)
}

/// `faulthandler.enable(file=sys.stderr, all_threads=True)`.
fn enable(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let bound = Signature::keywords("faulthandler", "enable", &["file", "all_threads"], 0, 0)
        .bind(vm, args, kw)?;
    file_descriptor(vm, bound[0].as_ref())?;
    if let Some(all_threads) = &bound[1] {
        vm.truthy(all_threads)?;
    }
    ENABLED.store(true, Ordering::Relaxed);
    Ok(Value::None)
}

/// `faulthandler.disable()`: whether it was enabled.
fn disable(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    Signature::no_args("faulthandler", "disable").check(vm, args, kw)?;
    Ok(Value::Bool(ENABLED.swap(false, Ordering::Relaxed)))
}

/// `faulthandler.is_enabled()`.
fn is_enabled(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    Signature::no_args("faulthandler", "is_enabled").check(vm, args, kw)?;
    Ok(Value::Bool(ENABLED.load(Ordering::Relaxed)))
}

/// `faulthandler.dump_traceback(file=sys.stderr, all_threads=True)`.
fn dump_traceback(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let bound = Signature::keywords(
        "faulthandler",
        "dump_traceback",
        &["file", "all_threads"],
        0,
        0,
    )
    .bind(vm, args, kw)?;
    let fd = file_descriptor(vm, bound[0].as_ref())?;
    let all_threads = match &bound[1] {
        Some(flag) => vm.truthy(flag)?,
        None => true,
    };
    let mut out = String::new();
    match all_threads {
        true => out.push_str(&format!(
            "Current thread 0x{:016x} (most recent call first):\n",
            thread_id()
        )),
        false => out.push_str("Stack (most recent call first):\n"),
    }
    let frames = vm.stack_lines();
    if frames.is_empty() {
        out.push_str("  <no Python frame>\n");
    }
    for (depth, (file, line, name)) in frames.iter().enumerate() {
        if depth >= MAX_FRAME_DEPTH {
            break;
        }
        out.push_str("  File \"");
        dump_ascii(&mut out, file);
        out.push_str(&format!("\", line {line} in "));
        dump_ascii(&mut out, name);
        out.push('\n');
    }
    write_fd(vm, fd, out.as_bytes());
    Ok(Value::None)
}

/// `_Py_DumpASCII`: printable ASCII as it is, anything else as `\xNN`, `\uNNNN` or
/// `\UNNNNNNNN`; cut at [`MAX_STRING_LENGTH`] characters, with `...`.
fn dump_ascii(out: &mut String, text: &str) {
    for (i, c) in text.chars().enumerate() {
        if i == MAX_STRING_LENGTH {
            out.push_str("...");
            break;
        }
        let code = u32::from(c);
        match code {
            0x20..=0x7e => out.push(c),
            0..=0xff => out.push_str(&format!("\\x{code:02x}")),
            0x100..=0xffff => out.push_str(&format!("\\u{code:04x}")),
            _ => out.push_str(&format!("\\U{code:08x}")),
        }
    }
}

/// The calling thread's id, as CPython shows it (`pthread_self`).
#[cfg(not(target_arch = "wasm32"))]
fn thread_id() -> u64 {
    // SAFETY: pthread_self has no preconditions.
    unsafe { libc::pthread_self() as u64 }
}

/// A page has one thread, and no thread ids.
#[cfg(target_arch = "wasm32")]
fn thread_id() -> u64 {
    0
}

/// Writes `bytes` to `fd` as faulthandler does, errors ignored.
#[cfg(not(target_arch = "wasm32"))]
fn write_fd(_: &mut Vm, fd: i32, mut bytes: &[u8]) {
    while !bytes.is_empty() {
        // SAFETY: `bytes` is a live buffer of its length, only read.
        let written = unsafe { libc::write(fd, bytes.as_ptr().cast(), bytes.len()) };
        match written {
            n if n > 0 => bytes = &bytes[n as usize..],
            -1 if std::io::Error::last_os_error().raw_os_error() == Some(libc::EINTR) => {}
            _ => return,
        }
    }
}

/// A page's descriptors 1 and 2 are its output and error panes; it has no others.
#[cfg(target_arch = "wasm32")]
fn write_fd(vm: &mut Vm, fd: i32, bytes: &[u8]) {
    let text = String::from_utf8_lossy(bytes);
    match fd {
        1 => {
            let _ignored = vm.write_stdout(&text);
        }
        2 => vm.write_stderr(&text),
        _ => {}
    }
}
