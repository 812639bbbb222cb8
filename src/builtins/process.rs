//! Processes for Python: the `os` functions on descriptors and child processes (`pipe`,
//! `read`, `write`, `close`, `set_blocking`, `waitpid`, `kill`, `pidfd_open`,
//! `waitstatus_to_exitcode`, `Modules/posixmodule.c`), the system's and the process's
//! names and ids (`uname`, `getuid`, `geteuid`, `getgroups`, `confstr`), and
//! `_spawn.spawn`, what `subprocess.Popen` starts a program with (CPython's
//! `_posixsubprocess.fork_exec`, here over `posix_spawnp`). Starting a program or sending
//! a signal asks `vm::sandbox`'s gate first (Capability::Processes); `_spawn.check` asks it
//! on its own, before `subprocess` makes any pipe.

use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::time::{Duration, Instant};

use crate::common::process::{self as sys, Spawn, Stream};
use crate::vm::args::{Signature, check_arity};
use crate::vm::object::KwArgs;
use crate::vm::sandbox::Capability;
use crate::vm::value::Value;
use crate::vm::{PyResult, Vm};

use super::bytes_type::bytes_of;
use super::module_args::as_double;
use super::os::path_arg;

type Function = fn(&mut Vm, &[Value], &KwArgs) -> PyResult<Value>;

/// A C `int` argument as PyArg_Parse's "i" takes it (a pid, a signal, `waitpid`'s
/// options); descriptors and flags are Argument Clinic's (`Vm::expect_c_int`).
fn int(vm: &mut Vm, v: &Value) -> PyResult<i32> {
    let n = vm.expect_index(v)?;
    i32::try_from(n).map_err(|_| match n < 0 {
        true => vm.overflow_error("signed integer is less than minimum"),
        false => vm.overflow_error("signed integer is greater than maximum"),
    })
}

/// The `os` functions over descriptors and children, for `os`'s namespace.
pub fn os_functions(vm: &mut Vm) -> Vec<(&'static str, Value)> {
    let mut names: Vec<(&str, Value)> = OS_FUNCTIONS
        .iter()
        .map(|(name, f)| (*name, vm.native(name, *f)))
        .collect();
    names.push(("WNOHANG", Value::Int(libc::WNOHANG.into())));
    for (name, flag) in OPEN_FLAGS {
        names.push((name, Value::Int((*flag).into())));
    }
    names
}

/// `os.open`'s flags and `os.lseek`'s whences (Linux's values, from libc; O_LARGEFILE is 0
/// on a 64-bit system, as CPython's).
const OPEN_FLAGS: &[(&str, i32)] = &[
    ("O_ASYNC", libc::O_ASYNC),
    ("O_DIRECT", libc::O_DIRECT),
    ("O_FSYNC", libc::O_FSYNC),
    ("O_RSYNC", libc::O_RSYNC),
    ("O_LARGEFILE", 0),
    ("SEEK_SET", libc::SEEK_SET),
    ("SEEK_CUR", libc::SEEK_CUR),
    ("SEEK_END", libc::SEEK_END),
    ("SEEK_DATA", libc::SEEK_DATA),
    ("SEEK_HOLE", libc::SEEK_HOLE),
    ("O_RDONLY", libc::O_RDONLY),
    ("O_WRONLY", libc::O_WRONLY),
    ("O_RDWR", libc::O_RDWR),
    ("O_ACCMODE", libc::O_ACCMODE),
    ("O_CREAT", libc::O_CREAT),
    ("O_EXCL", libc::O_EXCL),
    ("O_TRUNC", libc::O_TRUNC),
    ("O_APPEND", libc::O_APPEND),
    ("O_NONBLOCK", libc::O_NONBLOCK),
    ("O_NDELAY", libc::O_NDELAY),
    ("O_CLOEXEC", libc::O_CLOEXEC),
    ("O_NOCTTY", libc::O_NOCTTY),
    ("O_NOFOLLOW", libc::O_NOFOLLOW),
    ("O_DIRECTORY", libc::O_DIRECTORY),
    ("O_SYNC", libc::O_SYNC),
    ("O_DSYNC", libc::O_DSYNC),
    ("O_NOATIME", libc::O_NOATIME),
    ("O_PATH", libc::O_PATH),
    ("O_TMPFILE", libc::O_TMPFILE),
];

const OPEN: Signature =
    Signature::keywords("os", "open", &["path", "flags", "mode", "dir_fd"], 2, 0);

const EXIT: Signature = Signature::keywords("", "_exit", &["status"], 1, 0);

const OS_FUNCTIONS: &[(&str, Function)] = &[
    // `os.uname()` is os.apy's uname_result of this tuple.
    ("_uname", |vm, args, _| {
        check_arity(vm, "uname", args, 0, 0)?;
        let names = sys::uname().map_err(|e| vm.os_error(&e, None))?;
        Ok(Value::tuple(names.into_iter().map(Value::str).collect()))
    }),
    ("getuid", |vm, args, _| {
        check_arity(vm, "posix.getuid", args, 0, 0)?;
        Ok(Value::Int(sys::getuid().into()))
    }),
    ("getgid", |vm, args, _| {
        check_arity(vm, "posix.getgid", args, 0, 0)?;
        Ok(Value::Int(sys::getgid().into()))
    }),
    ("geteuid", |vm, args, _| {
        check_arity(vm, "posix.geteuid", args, 0, 0)?;
        Ok(Value::Int(sys::geteuid().into()))
    }),
    ("getegid", |vm, args, _| {
        check_arity(vm, "posix.getegid", args, 0, 0)?;
        Ok(Value::Int(sys::getegid().into()))
    }),
    ("getgroups", |vm, args, _| {
        check_arity(vm, "posix.getgroups", args, 0, 0)?;
        let groups = sys::getgroups().map_err(|e| vm.os_error(&e, None))?;
        let groups = groups.into_iter().map(|g| Value::Int(g.into())).collect();
        Ok(Value::list(groups))
    }),
    // `os.confstr(name)` looks a name up in os.apy's `confstr_names` and asks this.
    ("_confstr", |vm, args, _| {
        check_arity(vm, "confstr", args, 1, 1)?;
        let name = int(vm, &args[0])?;
        match sys::confstr(name).map_err(|e| vm.os_error(&e, None))? {
            Some(value) => Ok(Value::str(value)),
            None => Ok(Value::None),
        }
    }),
    ("process_cpu_count", |vm, args, _| {
        check_arity(vm, "process_cpu_count", args, 0, 0)?;
        let n = sys::affinity_cpus().or_else(sys::online_cpus);
        Ok(n.map_or(Value::None, |n| Value::Int(n as i64)))
    }),
    ("fork", super::fork::fork),
    ("register_at_fork", super::fork::register_at_fork),
    ("_exit", |vm, args, kw| {
        let slots = EXIT.bind(vm, args, kw)?;
        let status = vm.expect_c_int(slots[0].as_ref().unwrap_or(&Value::None))?;
        // Ending the process at once would also end a host running apy in-process (a
        // fuzzer, an embedder): a sandboxed program asks first.
        vm.require(Capability::Processes, &format!("os._exit({status})"))?;
        sys::exit_now(status)
    }),
    ("pipe", |vm, args, _| {
        check_arity(vm, "pipe", args, 0, 0)?;
        let (r, w) = sys::pipe().map_err(|e| vm.os_error(&e, None))?;
        Ok(Value::tuple(vec![
            Value::Int(r.into()),
            Value::Int(w.into()),
        ]))
    }),
    ("openpty", |vm, args, _| {
        check_arity(vm, "openpty", args, 0, 0)?;
        vm.require(Capability::Files, "/dev/ptmx")?;
        let (master, slave) = sys::openpty().map_err(|e| vm.os_error(&e, None))?;
        Ok(Value::tuple(vec![
            Value::Int(master.into()),
            Value::Int(slave.into()),
        ]))
    }),
    ("read", |vm, args, _| {
        check_arity(vm, "read", args, 2, 2)?;
        let fd = vm.expect_c_int(&args[0])?;
        let n = vm.expect_index(&args[1])?;
        if n < 0 {
            return Err(vm.value_error("negative length"));
        }
        vm.flush_stdout();
        wait_until_readable(vm, fd)?;
        let data = sys::read(fd, n as usize).map_err(|e| match e.kind() {
            std::io::ErrorKind::OutOfMemory => vm.new_exc_args(&vm.types.memory_error, vec![]),
            _ => vm.os_error(&e, None),
        })?;
        Ok(vm.new_bytes(data))
    }),
    ("write", |vm, args, _| {
        check_arity(vm, "write", args, 2, 2)?;
        let fd = vm.expect_c_int(&args[0])?;
        let Some(data) = bytes_of(&args[1]) else {
            return Err(vm.type_error(format!(
                "a bytes-like object is required, not '{}'",
                vm.type_name(&args[1])
            )));
        };
        vm.flush_stdout();
        let n = sys::write(fd, &data).map_err(|e| vm.os_error(&e, None))?;
        Ok(Value::Int(n as i64))
    }),
    ("close", |vm, args, _| {
        check_arity(vm, "close", args, 1, 1)?;
        let fd = vm.expect_c_int(&args[0])?;
        sys::close(fd).map_err(|e| vm.os_error(&e, None))?;
        Ok(Value::None)
    }),
    ("open", |vm, args, kw| {
        let slots = OPEN.bind(vm, args, kw)?;
        let path = path_arg(vm, "open", "path", slots[0].as_ref())?;
        let flags = vm.expect_c_int(slots[1].as_ref().unwrap_or(&Value::None))?;
        let mode = match &slots[2] {
            Some(v) => vm.expect_c_int(v)?,
            None => 0o777,
        };
        let dir_fd = match &slots[3] {
            Some(v) if !v.is_none() => Some(vm.expect_c_int(v)?),
            _ => None,
        };
        vm.require(Capability::Files, &path)?;
        let fd = sys::open(&path, flags, mode as u32, dir_fd)
            .map_err(|e| vm.os_error(&e, Some(&path)))?;
        Ok(Value::Int(fd.into()))
    }),
    ("lseek", |vm, args, _| {
        check_arity(vm, "lseek", args, 3, 3)?;
        let fd = vm.expect_c_int(&args[0])?;
        let position = vm.expect_index(&args[1])?;
        let how = vm.expect_c_int(&args[2])?;
        let at = sys::lseek(fd, position, how).map_err(|e| vm.os_error(&e, None))?;
        Ok(Value::Int(at))
    }),
    ("isatty", |vm, args, _| {
        check_arity(vm, "isatty", args, 1, 1)?;
        let fd = vm.expect_c_int(&args[0])?;
        Ok(Value::Bool(sys::isatty(fd)))
    }),
    ("fstat", |vm, args, _| {
        check_arity(vm, "fstat", args, 1, 1)?;
        let fd = vm.expect_c_int(&args[0])?;
        let metadata = sys::fd_metadata(fd).map_err(|e| vm.os_error(&e, None))?;
        super::os::stat_result(vm, &metadata)
    }),
    ("dup", |vm, args, _| {
        check_arity(vm, "dup", args, 1, 1)?;
        let fd = vm.expect_c_int(&args[0])?;
        let copy = sys::dup(fd).map_err(|e| vm.os_error(&e, None))?;
        Ok(Value::Int(copy.into()))
    }),
    ("set_blocking", |vm, args, _| {
        check_arity(vm, "set_blocking", args, 2, 2)?;
        let fd = vm.expect_c_int(&args[0])?;
        let blocking = vm.truthy(&args[1])?;
        sys::set_blocking(fd, blocking).map_err(|e| vm.os_error(&e, None))?;
        Ok(Value::None)
    }),
    ("waitpid", |vm, args, _| {
        check_arity(vm, "waitpid", args, 2, 2)?;
        let pid = int(vm, &args[0])?;
        let options = int(vm, &args[1])?;
        vm.flush_stdout();
        let (pid, status) = wait_for_child(vm, pid, options, None)?.unwrap_or((0, 0));
        Ok(Value::tuple(vec![
            Value::Int(pid.into()),
            Value::Int(status.into()),
        ]))
    }),
    ("waitstatus_to_exitcode", |vm, args, _| {
        check_arity(vm, "waitstatus_to_exitcode", args, 1, 1)?;
        let status = vm.expect_c_int(&args[0])?;
        match sys::exit_code(status) {
            Some(code) => Ok(Value::Int(code.into())),
            None => Err(vm.value_error(format!("invalid wait status: {status}"))),
        }
    }),
    ("kill", |vm, args, _| {
        check_arity(vm, "kill", args, 2, 2)?;
        let pid = int(vm, &args[0])?;
        let signal = int(vm, &args[1])?;
        vm.require(Capability::Processes, &format!("os.kill({pid}, {signal})"))?;
        sys::kill(pid, signal).map_err(|e| vm.os_error(&e, None))?;
        // A signal the program sent itself is handled at once, as in CPython.
        vm.check_signals()?;
        Ok(Value::None)
    }),
    ("pidfd_open", |vm, args, _| {
        check_arity(vm, "pidfd_open", args, 1, 2)?;
        let pid = int(vm, &args[0])?;
        let fd = sys::pidfd_open(pid).map_err(|e| vm.os_error(&e, None))?;
        Ok(Value::Int(fd.into()))
    }),
];

/// Before a blocking `os.read`: waits until `fd` has something (or its end), letting the
/// other threads run, so that Ctrl-C and `--time-limit` end a read nobody will answer (a
/// pipe no one writes to), as a signal interrupts CPython's. A non-blocking descriptor
/// reads at once (BlockingIOError when empty).
fn wait_until_readable(vm: &mut Vm, fd: i32) -> PyResult<()> {
    if sys::is_blocking(fd) {
        vm.wait_fd_sharing(fd, libc::POLLIN, None)?;
    }
    Ok(())
}

/// `os.waitpid(pid, options)`, and `_spawn.wait`'s wait until `deadline` (None when it
/// passes first). Without `WNOHANG` it waits for the child's pidfd (or in 10 ms naps where
/// there is none: a process group, an old kernel) while the other threads run, so Ctrl-C
/// and `--time-limit` end the wait, as they end CPython's.
fn wait_for_child(
    vm: &mut Vm,
    pid: i32,
    options: i32,
    deadline: Option<Instant>,
) -> PyResult<Option<(i32, i32)>> {
    let wait = |vm: &mut Vm, options| sys::waitpid(pid, options).map_err(|e| vm.os_error(&e, None));
    if options & libc::WNOHANG != 0 {
        return wait(vm, options).map(Some);
    }
    // SAFETY: a pidfd just opened is owned by nothing else.
    let pidfd = (pid > 0)
        .then(|| sys::pidfd_open(pid).ok())
        .flatten()
        .map(|fd| unsafe { OwnedFd::from_raw_fd(fd) });
    loop {
        let (got, status) = wait(vm, options | libc::WNOHANG)?;
        if got != 0 {
            return Ok(Some((got, status)));
        }
        if deadline.is_some_and(|at| Instant::now() >= at) {
            return Ok(None);
        }
        match &pidfd {
            Some(fd) => {
                vm.wait_fd_sharing(fd.as_raw_fd(), libc::POLLIN, deadline)?;
            }
            None => {
                let nap = Instant::now() + Duration::from_millis(10);
                let until = deadline.map_or(nap, |at| at.min(nap));
                vm.wait_ready_sharing(&mut [], Some(until))?;
                if let Some(exc) = vm.check_woken() {
                    return Err(exc);
                }
            }
        }
    }
}

/// `_spawn.wait(pid, timeout)`: the child's `(pid, status)` once it has ended, or None
/// when `timeout` seconds pass first (`Popen.wait(timeout)`; CPython polls in naps).
fn wait_timed(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    check_arity(vm, "wait", args, 2, 2)?;
    let pid = int(vm, &args[0])?;
    let seconds = as_double(vm, &args[1])?.max(0.0);
    let deadline = Duration::try_from_secs_f64(seconds)
        .ok()
        .and_then(|d| Instant::now().checked_add(d));
    vm.flush_stdout();
    Ok(match wait_for_child(vm, pid, 0, deadline)? {
        Some((pid, status)) => {
            Value::tuple(vec![Value::Int(pid.into()), Value::Int(status.into())])
        }
        None => Value::None,
    })
}

/// The strings of a list argument.
fn strings(vm: &mut Vm, v: &Value, what: &str) -> PyResult<Vec<String>> {
    let items = vm.collect_iterable(v)?;
    items
        .iter()
        .map(|item| match item.as_str() {
            Some(s) => Ok(s.to_string()),
            None => Err(vm.type_error(format!("{what} must be str, not {}", vm.type_name(item)))),
        })
        .collect()
}

/// `_spawn.spawn(args, env, cwd, stdin, stdout, stderr)`: starts `args[0]` (found on
/// PATH) with `args`; `env` a list of `'NAME=value'` (None: this process's), `cwd` a
/// folder or None, and each stream a descriptor to become the child's, -1 to share ours
/// or -3 (`subprocess.DEVNULL`) for `/dev/null`. The pid.
fn spawn(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    check_arity(vm, "spawn", args, 6, 6)?;
    let argv = strings(vm, &args[0], "args")?;
    let env = match &args[1] {
        Value::None => None,
        v => Some(strings(vm, v, "environment")?),
    };
    let cwd = match &args[2] {
        Value::None => None,
        v => Some(strings(vm, &Value::tuple(vec![v.clone()]), "cwd")?.remove(0)),
    };
    let mut streams = [Stream::Inherit; 3];
    for (slot, v) in streams.iter_mut().zip(&args[3..6]) {
        *slot = match int(vm, v)? {
            -3 => Stream::DevNull,
            fd if fd >= 0 => Stream::Fd(fd),
            _ => Stream::Inherit,
        };
    }
    let program = argv.first().cloned().unwrap_or_default();
    vm.require(Capability::Processes, &program)?;
    vm.flush_stdout();
    let request = Spawn {
        args: &argv,
        env: env.as_deref(),
        cwd: cwd.as_deref(),
        streams,
    };
    match sys::spawn(&request) {
        Ok(pid) => Ok(Value::Int(pid.into())),
        Err(e) => {
            // CPython names the folder when it is the one that is missing.
            let missing_cwd = cwd.as_deref().filter(|c| !std::path::Path::new(c).is_dir());
            Err(vm.os_error(&e, Some(missing_cwd.unwrap_or(&program))))
        }
    }
}

/// `_spawn.check(args)`: the sandbox's gate for starting `args[0]`, asked before any pipe
/// is made.
fn check(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    check_arity(vm, "check", args, 1, 1)?;
    let argv = vm.collect_iterable(&args[0])?;
    let program = argv.first().and_then(Value::as_str).unwrap_or_default();
    vm.require(Capability::Processes, program)?;
    Ok(Value::None)
}

/// The `_spawn` module.
pub fn spawn_module(vm: &mut Vm) -> Value {
    let spawn = vm.native("spawn", spawn);
    let check = vm.native("check", check);
    let wait = vm.native("wait", wait_timed);
    vm.new_module(
        "_spawn",
        vec![("spawn", spawn), ("check", check), ("wait", wait)],
    )
}
