//! The operating system's modules in a page in a browser (src/web.rs), which has no
//! sockets and no processes: `socket`, `select`, `selectors` and `_spawn` import as they do
//! natively, with their names and numbers (Linux's), so that `import subprocess` and the
//! like work, and every call that would open a socket, wait on one or start a process
//! raises the sandbox's `PermissionError`, as `apy --sandbox` does natively (a page is
//! always sandboxed). Natively these modules are `socket.rs`, `select_module.rs`,
//! `selectors.rs` and `process.rs`. (`_signal` has its numbers in a page too: `signal_module.rs`.)
//! `pwd`, `grp`, `resource`, `fcntl` and `termios` import the same way, with their
//! classes and numbers, every call refused (natively `pwd_grp.rs`, `resource_module.rs`,
//! `fcntl_module.rs`, `termios_module.rs`).

use crate::vm::object::{KwArgs, Layout, NativeFn};
use crate::vm::sandbox::Capability;
use crate::vm::types::make_type;
use crate::vm::value::Value;
use crate::vm::{PyResult, Vm};

/// The sandbox's refusal of `target`; should a page ever run unsandboxed, the host's
/// (there is no socket or process to be had either way).
fn denied(vm: &mut Vm, capability: Capability, target: &str) -> PyResult<Value> {
    vm.require(capability, target)?;
    let error = std::io::Error::from(std::io::ErrorKind::Unsupported);
    Err(vm.os_error(&error, Some(target)))
}

/// A class of `module` whose instances cannot be made in a page.
fn refused_class(vm: &mut Vm, module: &str, name: &'static str, new: NativeFn) -> Value {
    let class = make_type(name, vec![vm.types.object.clone()], Layout::Builtin, false);
    vm.set_type_attr(&class, "__module__", Value::str(module));
    vm.add_static(&class, "__new__", new);
    Value::Type(class)
}

const SOCKET_CONSTANTS: &[(&str, i64)] = &[
    ("AF_UNIX", 1),
    ("AF_INET", 2),
    ("AF_INET6", 10),
    ("AF_UNSPEC", 0),
    ("SOCK_STREAM", 1),
    ("SOCK_DGRAM", 2),
    ("SOL_SOCKET", 1),
    ("SO_REUSEADDR", 2),
    ("SO_REUSEPORT", 15),
    ("SO_KEEPALIVE", 9),
    ("SO_ERROR", 4),
    ("SO_RCVBUF", 8),
    ("SO_SNDBUF", 7),
    ("SO_BROADCAST", 6),
    ("SO_LINGER", 13),
    ("IPPROTO_TCP", 6),
    ("IPPROTO_UDP", 17),
    ("TCP_NODELAY", 1),
    ("SHUT_RD", 0),
    ("SHUT_WR", 1),
    ("SHUT_RDWR", 2),
    ("MSG_PEEK", 2),
    ("SOMAXCONN", 4096),
];

const SOCKET_FUNCTIONS: &[(&str, NativeFn)] = &[
    ("socketpair", |vm, _, _| {
        denied(vm, Capability::Sockets, "socket.socketpair")
    }),
    ("create_connection", |vm, _, _| {
        denied(vm, Capability::Sockets, "socket.create_connection")
    }),
    ("create_server", |vm, _, _| {
        denied(vm, Capability::Sockets, "socket.create_server")
    }),
    ("getaddrinfo", |vm, _, _| {
        denied(vm, Capability::Sockets, "socket.getaddrinfo")
    }),
];

/// `socket`: its class, errors, functions and constants; making a socket is refused.
pub fn socket_module(vm: &mut Vm) -> Value {
    let class = refused_class(vm, "socket", "socket", |vm, _, _| {
        denied(vm, Capability::Sockets, "socket.socket")
    });
    let gaierror = make_type(
        "gaierror",
        vec![vm.types.os_error.clone()],
        Layout::Exception,
        false,
    );
    vm.set_type_attr(&gaierror, "__module__", Value::str("socket"));
    let mut attrs: Vec<(&str, Value)> = vec![
        ("socket", class.clone()),
        ("SocketType", class),
        ("gaierror", Value::Type(gaierror)),
        ("error", Value::Type(vm.types.os_error.clone())),
        ("timeout", Value::Type(vm.types.timeout_error.clone())),
        ("has_ipv6", Value::Bool(true)),
    ];
    for (name, f) in SOCKET_FUNCTIONS {
        attrs.push((name, vm.native(name, *f)));
    }
    for (name, value) in SOCKET_CONSTANTS {
        attrs.push((name, Value::Int(*value)));
    }
    vm.new_module("socket", attrs)
}

/// `select`: its constants, and `select()`, `poll()` and `epoll()`, which are refused
/// (there are no descriptors in a page to wait on).
pub fn select_module(vm: &mut Vm) -> Value {
    let epoll = refused_class(vm, "select", "epoll", |vm, _, _| {
        denied(vm, Capability::Sockets, "select.epoll")
    });
    let select: NativeFn = |vm, _, _| denied(vm, Capability::Sockets, "select.select");
    let poll: NativeFn = |vm, _, _| denied(vm, Capability::Sockets, "select.poll");
    let mut attrs = vec![
        ("error", Value::Type(vm.types.os_error.clone())),
        ("select", vm.native("select", select)),
        ("poll", vm.native("poll", poll)),
        ("epoll", epoll),
    ];
    for &(name, value) in super::select_constants::CONSTANTS {
        attrs.push((name, Value::Int(value)));
    }
    vm.new_module("select", attrs)
}

/// `selectors`: its events and classes; making a selector is refused (there is nothing in
/// a page to select on).
pub fn selectors_module(vm: &mut Vm) -> Value {
    let make: NativeFn = |vm, _, _| denied(vm, Capability::Sockets, "selectors.DefaultSelector");
    let selector = refused_class(vm, "selectors", "EpollSelector", make);
    let select = refused_class(vm, "selectors", "SelectSelector", |vm, _, _| {
        denied(vm, Capability::Sockets, "selectors.SelectSelector")
    });
    let base = refused_class(vm, "selectors", "BaseSelector", make);
    vm.new_module(
        "selectors",
        vec![
            ("EVENT_READ", Value::Int(1)),
            ("EVENT_WRITE", Value::Int(2)),
            ("BaseSelector", base),
            ("DefaultSelector", selector.clone()),
            ("EpollSelector", selector),
            ("SelectSelector", select),
        ],
    )
}

/// `_spawn.check(args)` and `_spawn.spawn(args, …)`: starting `args[0]` is refused, as
/// natively under `--sandbox`.
fn refuse_start(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    let argv = match args.first() {
        Some(argv) => vm.collect_iterable(argv)?,
        None => Vec::new(),
    };
    let program = argv.first().and_then(Value::as_str).unwrap_or_default();
    denied(vm, Capability::Processes, program)
}

/// `_spawn`, what `subprocess.Popen` starts a program with.
pub fn spawn_module(vm: &mut Vm) -> Value {
    let spawn = vm.native("spawn", refuse_start);
    let check = vm.native("check", refuse_start);
    vm.new_module("_spawn", vec![("spawn", spawn), ("check", check)])
}

/// The `os` functions for pipes and signals that `subprocess` reaches for: refused.
pub fn os_functions(vm: &mut Vm) -> Vec<(&'static str, Value)> {
    let functions: [(&'static str, NativeFn); 4] = [
        ("pipe", |vm, _, _| {
            denied(vm, Capability::Processes, "os.pipe")
        }),
        ("fork", |vm, _, _| {
            denied(vm, Capability::Processes, "os.fork")
        }),
        ("kill", |vm, _, _| {
            denied(vm, Capability::Processes, "os.kill")
        }),
        ("open", |vm, _, _| denied(vm, Capability::Files, "os.open")),
    ];
    let mut names: Vec<(&'static str, Value)> = functions
        .into_iter()
        .map(|(name, f)| (name, vm.native(name, f)))
        .collect();
    for &(name, value) in OPEN_FLAGS {
        names.push((name, Value::Int(value)));
    }
    // What `multiprocessing` names as it is imported (Linux's number, as natively).
    names.push(("WNOHANG", Value::Int(1)));
    names
}

/// `os.open`'s flags and `os.lseek`'s whences, Linux's numbers (x86-64), as natively
/// (`process.rs`, from libc), so that modules using them (`tempfile`) import in a page.
const OPEN_FLAGS: &[(&str, i64)] = &[
    ("O_RDONLY", 0),
    ("O_WRONLY", 1),
    ("O_RDWR", 2),
    ("O_ACCMODE", 3),
    ("O_CREAT", 64),
    ("O_EXCL", 128),
    ("O_NOCTTY", 256),
    ("O_TRUNC", 512),
    ("O_APPEND", 1024),
    ("O_NONBLOCK", 2048),
    ("O_NDELAY", 2048),
    ("O_DSYNC", 4096),
    ("O_ASYNC", 8192),
    ("O_DIRECT", 16384),
    ("O_LARGEFILE", 0),
    ("O_DIRECTORY", 65536),
    ("O_NOFOLLOW", 131072),
    ("O_NOATIME", 262144),
    ("O_CLOEXEC", 524288),
    ("O_SYNC", 1052672),
    ("O_FSYNC", 1052672),
    ("O_RSYNC", 1052672),
    ("O_PATH", 2097152),
    ("O_TMPFILE", 4259840),
    ("SEEK_SET", 0),
    ("SEEK_CUR", 1),
    ("SEEK_END", 2),
    ("SEEK_DATA", 3),
    ("SEEK_HOLE", 4),
];

/// A module of the user and group databases, the system's limits or its terminals, as a
/// page has it: its names, numbers and classes, every call refused (a page has no users,
/// no limits of its own and no descriptors).
fn refused_module(
    vm: &mut Vm,
    name: &'static str,
    doc: Option<&str>,
    functions: &[(&'static str, NativeFn)],
    mut attrs: Vec<(&'static str, Value)>,
) -> Value {
    if let Some(doc) = doc {
        attrs.push(("__doc__", Value::str(doc)));
    }
    for &(function, f) in functions {
        attrs.push((function, vm.native(function, f)));
    }
    vm.new_module(name, attrs)
}

/// `pwd`: `struct_passwd`; the look-ups refused.
pub fn pwd_module(vm: &mut Vm) -> Value {
    use super::posix_constants::{PASSWD_DOC, PASSWD_FIELDS, PWD_DOC};
    let class = super::structseq::make_class(vm, "pwd.struct_passwd", PASSWD_FIELDS, PASSWD_DOC);
    let functions: [(&'static str, NativeFn); 3] = [
        ("getpwuid", |vm, _, _| {
            denied(vm, Capability::Files, "pwd.getpwuid")
        }),
        ("getpwnam", |vm, _, _| {
            denied(vm, Capability::Files, "pwd.getpwnam")
        }),
        ("getpwall", |vm, _, _| {
            denied(vm, Capability::Files, "pwd.getpwall")
        }),
    ];
    refused_module(
        vm,
        "pwd",
        Some(PWD_DOC),
        &functions,
        vec![("struct_passwd", class)],
    )
}

/// `grp`: `struct_group`; the look-ups refused.
pub fn grp_module(vm: &mut Vm) -> Value {
    use super::posix_constants::{GROUP_DOC, GROUP_FIELDS, GRP_DOC};
    let class = super::structseq::make_class(vm, "grp.struct_group", GROUP_FIELDS, GROUP_DOC);
    let functions: [(&'static str, NativeFn); 3] = [
        ("getgrgid", |vm, _, _| {
            denied(vm, Capability::Files, "grp.getgrgid")
        }),
        ("getgrnam", |vm, _, _| {
            denied(vm, Capability::Files, "grp.getgrnam")
        }),
        ("getgrall", |vm, _, _| {
            denied(vm, Capability::Files, "grp.getgrall")
        }),
    ];
    refused_module(
        vm,
        "grp",
        Some(GRP_DOC),
        &functions,
        vec![("struct_group", class)],
    )
}

/// `resource`: its numbers, `struct_rusage` and `error`; every call refused.
pub fn resource_module(vm: &mut Vm) -> Value {
    use super::posix_constants::{RESOURCE, RUSAGE_DOC, RUSAGE_FIELDS};
    let class =
        super::structseq::make_class(vm, "resource.struct_rusage", RUSAGE_FIELDS, RUSAGE_DOC);
    let functions: [(&'static str, NativeFn); 5] = [
        ("getrusage", |vm, _, _| {
            denied(vm, Capability::Processes, "resource.getrusage")
        }),
        ("getrlimit", |vm, _, _| {
            denied(vm, Capability::Processes, "resource.getrlimit")
        }),
        ("setrlimit", |vm, _, _| {
            denied(vm, Capability::Processes, "resource.setrlimit")
        }),
        ("prlimit", |vm, _, _| {
            denied(vm, Capability::Processes, "resource.prlimit")
        }),
        ("getpagesize", |vm, _, _| {
            denied(vm, Capability::Processes, "resource.getpagesize")
        }),
    ];
    let mut attrs = vec![
        ("error", Value::Type(vm.types.os_error.clone())),
        ("struct_rusage", class),
        ("RLIM_INFINITY", Value::Int(-1)),
    ];
    attrs.extend(RESOURCE.iter().map(|&(name, n)| (name, Value::Int(n))));
    refused_module(vm, "resource", None, &functions, attrs)
}

/// `fcntl`: its numbers; every call refused.
pub fn fcntl_module(vm: &mut Vm) -> Value {
    use super::posix_constants::{FCNTL, FCNTL_DOC};
    let functions: [(&'static str, NativeFn); 4] = [
        ("fcntl", |vm, _, _| {
            denied(vm, Capability::Files, "fcntl.fcntl")
        }),
        ("ioctl", |vm, _, _| {
            denied(vm, Capability::Files, "fcntl.ioctl")
        }),
        ("flock", |vm, _, _| {
            denied(vm, Capability::Files, "fcntl.flock")
        }),
        ("lockf", |vm, _, _| {
            denied(vm, Capability::Files, "fcntl.lockf")
        }),
    ];
    let attrs = FCNTL
        .iter()
        .map(|&(name, n)| (name, Value::Int(n)))
        .collect();
    refused_module(vm, "fcntl", Some(FCNTL_DOC), &functions, attrs)
}

/// `termios`: its numbers and `error`; every call refused (`tty` imports over it).
pub fn termios_module(vm: &mut Vm) -> Value {
    use super::posix_constants::{TERMIOS, TERMIOS_DOC, termios_error};
    let functions: [(&'static str, NativeFn); 8] = [
        ("tcgetattr", |vm, _, _| {
            denied(vm, Capability::Files, "termios.tcgetattr")
        }),
        ("tcsetattr", |vm, _, _| {
            denied(vm, Capability::Files, "termios.tcsetattr")
        }),
        ("tcsendbreak", |vm, _, _| {
            denied(vm, Capability::Files, "termios.tcsendbreak")
        }),
        ("tcdrain", |vm, _, _| {
            denied(vm, Capability::Files, "termios.tcdrain")
        }),
        ("tcflush", |vm, _, _| {
            denied(vm, Capability::Files, "termios.tcflush")
        }),
        ("tcflow", |vm, _, _| {
            denied(vm, Capability::Files, "termios.tcflow")
        }),
        ("tcgetwinsize", |vm, _, _| {
            denied(vm, Capability::Files, "termios.tcgetwinsize")
        }),
        ("tcsetwinsize", |vm, _, _| {
            denied(vm, Capability::Files, "termios.tcsetwinsize")
        }),
    ];
    let mut attrs = vec![("error", termios_error(vm))];
    attrs.extend(TERMIOS.iter().map(|&(name, n)| (name, Value::Int(n))));
    refused_module(vm, "termios", Some(TERMIOS_DOC), &functions, attrs)
}
