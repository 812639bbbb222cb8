//! The system calls behind processes (DESIGN.md decision 10): spawning a program with
//! `posix_spawnp` (its standard streams redirected, in a working folder), pipes, reads
//! and writes on descriptors, `waitpid`, `kill` and `pidfd_open` (how the loop waits for
//! a child, as 3.13's PidfdChildWatcher does). Value-free: `builtins/process.rs` makes
//! Python functions of them, behind the sandbox's gate.

use std::ffi::CString;
use std::io;
use std::os::fd::{FromRawFd, RawFd};

fn check(result: libc::c_int) -> io::Result<libc::c_int> {
    if result < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(result)
    }
}

/// What one of a child's standard streams (0, 1, 2) becomes.
#[derive(Clone, Copy)]
pub enum Stream {
    /// The parent's.
    Inherit,
    /// This descriptor, dup'ed onto it (after the streams before it are set, so 1 for
    /// stderr is the child's stdout).
    Fd(RawFd),
    /// `/dev/null`, for reading and writing.
    DevNull,
}

/// A program to start: its arguments, environment (`NAME=value`; None: ours), folder and
/// standard streams.
pub struct Spawn<'a> {
    pub args: &'a [String],
    pub env: Option<&'a [String]>,
    pub cwd: Option<&'a str>,
    pub streams: [Stream; 3],
}

fn c_strings(items: &[String]) -> io::Result<Vec<CString>> {
    items
        .iter()
        .map(|s| CString::new(s.as_str()).map_err(|_| io::Error::from_raw_os_error(libc::EINVAL)))
        .collect()
}

fn pointers(items: &[CString]) -> Vec<*mut libc::c_char> {
    items
        .iter()
        .map(|s| s.as_ptr().cast_mut())
        .chain(std::iter::once(std::ptr::null_mut()))
        .collect()
}

/// Starts `spawn.args[0]` (found on PATH) and gives its process id.
pub fn spawn(spawn: &Spawn) -> io::Result<libc::pid_t> {
    let args = c_strings(spawn.args)?;
    let Some(program) = args.first() else {
        return Err(io::Error::from_raw_os_error(libc::EINVAL));
    };
    let env = match spawn.env {
        Some(env) => c_strings(env)?,
        // This process's own environment, byte for byte (a variable need not be UTF-8).
        None => std::env::vars_os()
            .map(|(k, v)| {
                use std::os::unix::ffi::OsStrExt;
                let mut entry = k.as_bytes().to_vec();
                entry.push(b'=');
                entry.extend_from_slice(v.as_bytes());
                CString::new(entry)
            })
            .collect::<Result<_, _>>()
            .map_err(|_| io::Error::from_raw_os_error(libc::EINVAL))?,
    };
    let cwd = match spawn.cwd {
        Some(cwd) => {
            Some(CString::new(cwd).map_err(|_| io::Error::from_raw_os_error(libc::EINVAL))?)
        }
        None => None,
    };
    let argv = pointers(&args);
    let envp = pointers(&env);
    let mut pid: libc::pid_t = 0;
    // SAFETY: the file actions are initialised before use and destroyed after; every
    // pointer handed over lives (in `args`, `env`, `cwd`) until posix_spawnp returns.
    unsafe {
        let mut actions: libc::posix_spawn_file_actions_t = std::mem::zeroed();
        let error = libc::posix_spawn_file_actions_init(&mut actions);
        if error != 0 {
            return Err(io::Error::from_raw_os_error(error));
        }
        let mut error = 0;
        for (target, stream) in spawn.streams.iter().enumerate() {
            if error != 0 {
                break;
            }
            error = match stream {
                Stream::Inherit => 0,
                Stream::Fd(fd) => {
                    libc::posix_spawn_file_actions_adddup2(&mut actions, *fd, target as i32)
                }
                Stream::DevNull => libc::posix_spawn_file_actions_addopen(
                    &mut actions,
                    target as i32,
                    c"/dev/null".as_ptr(),
                    libc::O_RDWR,
                    0,
                ),
            };
        }
        if let Some(cwd) = &cwd
            && error == 0
        {
            error = libc::posix_spawn_file_actions_addchdir_np(&mut actions, cwd.as_ptr());
        }
        if error == 0 {
            error = libc::posix_spawnp(
                &mut pid,
                program.as_ptr(),
                &actions,
                std::ptr::null(),
                argv.as_ptr(),
                envp.as_ptr(),
            );
        }
        libc::posix_spawn_file_actions_destroy(&mut actions);
        if error != 0 {
            return Err(io::Error::from_raw_os_error(error));
        }
    }
    Ok(pid)
}

/// A pipe, both ends closed on exec: (read end, write end).
pub fn pipe() -> io::Result<(RawFd, RawFd)> {
    let mut fds = [0; 2];
    // SAFETY: `fds` has room for the two descriptors.
    check(unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) })?;
    Ok((fds[0], fds[1]))
}

/// A new pseudo-terminal: its controlling side and its terminal side, both closed on exec
/// (CPython's `os.openpty`, over `posix_openpt` as glibc's `openpty` is).
pub fn openpty() -> io::Result<(RawFd, RawFd)> {
    let flags = libc::O_RDWR | libc::O_NOCTTY | libc::O_CLOEXEC;
    // SAFETY: posix_openpt takes flags only.
    let master = check(unsafe { libc::posix_openpt(flags) })?;
    let slave = (|| {
        // SAFETY: `master` is the controlling side just opened.
        check(unsafe { libc::grantpt(master) })?;
        // SAFETY: as above.
        check(unsafe { libc::unlockpt(master) })?;
        let mut name = [0 as libc::c_char; 128];
        // SAFETY: `name` has room for the length passed; ptsname_r NUL-terminates it.
        let status = unsafe { libc::ptsname_r(master, name.as_mut_ptr(), name.len()) };
        if status != 0 {
            return Err(io::Error::from_raw_os_error(status));
        }
        // SAFETY: `name` holds the NUL-terminated path ptsname_r wrote.
        check(unsafe { libc::open(name.as_ptr(), flags) })
    })();
    match slave {
        Ok(slave) => Ok((master, slave)),
        Err(e) => {
            // SAFETY: `master` is ours, and closed once.
            unsafe { libc::close(master) };
            Err(e)
        }
    }
}

/// Opens `path` (relative to the folder open as `dir_fd`, if any) with `flags` (and `mode`
/// for a file it creates), closed on exec as CPython's `os.open` makes every descriptor
/// (PEP 446).
pub fn open(path: &str, flags: i32, mode: u32, dir_fd: Option<RawFd>) -> io::Result<RawFd> {
    let path = std::ffi::CString::new(path)
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "embedded null byte"))?;
    let dir_fd = dir_fd.unwrap_or(libc::AT_FDCWD);
    // SAFETY: `path` is a NUL-terminated string that outlives the call; a wrong `dir_fd`
    // is EBADF.
    check(unsafe { libc::openat(dir_fd, path.as_ptr(), flags | libc::O_CLOEXEC, mode) })
}

/// Moves `fd`'s offset (`how`: SEEK_SET, SEEK_CUR or SEEK_END): the new offset.
pub fn lseek(fd: RawFd, position: i64, how: i32) -> io::Result<i64> {
    // SAFETY: a wrong descriptor or `how` is an error (EBADF, EINVAL), nothing worse.
    let at = unsafe { libc::lseek(fd, position, how) };
    if at < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(at)
}

/// Whether `fd` is a terminal.
pub fn isatty(fd: RawFd) -> bool {
    // SAFETY: any descriptor may be asked; a closed one is just not a terminal.
    unsafe { libc::isatty(fd) == 1 }
}

/// A second descriptor for what `fd` is open on, closed on exec (CPython's `os.dup`).
pub fn dup(fd: RawFd) -> io::Result<RawFd> {
    // SAFETY: a wrong descriptor is EBADF.
    check(unsafe { libc::fcntl(fd, libc::F_DUPFD_CLOEXEC, 0) })
}

/// The metadata of an open descriptor (`fstat(2)`), read through a copy of it.
pub fn fd_metadata(fd: RawFd) -> io::Result<std::fs::Metadata> {
    let copy = dup(fd)?;
    // SAFETY: `copy` is a descriptor this call just made, owned by the file from here.
    let file = unsafe { std::fs::File::from_raw_fd(copy) };
    file.metadata()
}

/// Reads at most `n` bytes (into fresh capacity: no zeroing of a big buffer first).
pub fn read(fd: RawFd, n: usize) -> io::Result<Vec<u8>> {
    let mut buffer: Vec<u8> = Vec::new();
    // A size no allocation can hold is the program's MemoryError, not apy's abort.
    crate::common::memory::fallible(|| buffer.try_reserve_exact(n))
        .map_err(|_| io::Error::from(io::ErrorKind::OutOfMemory))?;
    // SAFETY: the capacity has room for `n` bytes.
    let got = unsafe { libc::read(fd, buffer.as_mut_ptr().cast(), n) };
    if got < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: read initialised the first `got` bytes.
    unsafe { buffer.set_len(got as usize) };
    buffer.shrink_to_fit();
    Ok(buffer)
}

/// Writes what it can of `data`: how much.
pub fn write(fd: RawFd, data: &[u8]) -> io::Result<usize> {
    // SAFETY: `data` is valid for its length.
    let put = unsafe { libc::write(fd, data.as_ptr().cast(), data.len()) };
    if put < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(put as usize)
}

pub fn close(fd: RawFd) -> io::Result<()> {
    // SAFETY: closing a descriptor the program names; a wrong one is EBADF.
    check(unsafe { libc::close(fd) }).map(drop)
}

/// Whether `fd` is in blocking mode (false for a descriptor that is not open).
pub fn is_blocking(fd: RawFd) -> bool {
    // SAFETY: fcntl on a descriptor; a wrong one is EBADF.
    let flags = unsafe { libc::fcntl(fd, libc::F_GETFL) };
    flags >= 0 && flags & libc::O_NONBLOCK == 0
}

/// Sets or clears `O_NONBLOCK`.
pub fn set_blocking(fd: RawFd, blocking: bool) -> io::Result<()> {
    // SAFETY: fcntl on a descriptor; a wrong one is EBADF.
    let flags = check(unsafe { libc::fcntl(fd, libc::F_GETFL) })?;
    let flags = if blocking {
        flags & !libc::O_NONBLOCK
    } else {
        flags | libc::O_NONBLOCK
    };
    // SAFETY: as above.
    check(unsafe { libc::fcntl(fd, libc::F_SETFL, flags) }).map(drop)
}

/// `waitpid(pid, options)`: (pid, status); pid 0 with WNOHANG while it runs.
pub fn waitpid(pid: libc::pid_t, options: i32) -> io::Result<(libc::pid_t, i32)> {
    let mut status = 0;
    loop {
        // SAFETY: `status` is valid for writing.
        let got = unsafe { libc::waitpid(pid, &mut status, options) };
        if got >= 0 {
            return Ok((got, status));
        }
        let error = io::Error::last_os_error();
        if error.raw_os_error() != Some(libc::EINTR) {
            return Err(error);
        }
    }
}

/// `os.waitstatus_to_exitcode`: the exit code, or minus the signal that ended it.
pub fn exit_code(status: i32) -> Option<i32> {
    if libc::WIFEXITED(status) {
        Some(libc::WEXITSTATUS(status))
    } else if libc::WIFSIGNALED(status) {
        Some(-libc::WTERMSIG(status))
    } else {
        None
    }
}

pub fn kill(pid: libc::pid_t, signal: i32) -> io::Result<()> {
    // SAFETY: kill has no memory effects.
    check(unsafe { libc::kill(pid, signal) }).map(drop)
}

/// A descriptor that becomes readable when process `pid` ends.
pub fn pidfd_open(pid: libc::pid_t) -> io::Result<RawFd> {
    // SAFETY: the pidfd_open system call with no flags.
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(fd as RawFd)
}

/// `uname(2)`: system name, node (host) name, release, version, machine.
pub fn uname() -> io::Result<[String; 5]> {
    // SAFETY: utsname is plain bytes; uname fills it in.
    let mut names: libc::utsname = unsafe { std::mem::zeroed() };
    // SAFETY: `names` is valid for writing.
    check(unsafe { libc::uname(&mut names) })?;
    let text = |field: &[libc::c_char]| {
        let bytes: Vec<u8> = field
            .iter()
            .take_while(|&&c| c != 0)
            .map(|&c| c as u8)
            .collect();
        String::from_utf8_lossy(&bytes).into_owned()
    };
    Ok([
        text(&names.sysname),
        text(&names.nodename),
        text(&names.release),
        text(&names.version),
        text(&names.machine),
    ])
}

/// The real user id of the process.
pub fn getuid() -> u32 {
    // SAFETY: getuid cannot fail and has no memory effects.
    unsafe { libc::getuid() }
}

/// The real group id of the process.
pub fn getgid() -> u32 {
    // SAFETY: getgid cannot fail and has no memory effects.
    unsafe { libc::getgid() }
}

/// The effective user id of the process.
pub fn geteuid() -> u32 {
    // SAFETY: geteuid cannot fail and has no memory effects.
    unsafe { libc::geteuid() }
}

/// The effective group id of the process.
pub fn getegid() -> u32 {
    // SAFETY: getegid cannot fail and has no memory effects.
    unsafe { libc::getegid() }
}

/// The supplementary group ids of the process (`getgroups(2)`).
pub fn getgroups() -> io::Result<Vec<u32>> {
    loop {
        // SAFETY: with a size of 0, getgroups only counts the groups.
        let count = unsafe { libc::getgroups(0, std::ptr::null_mut()) };
        let Ok(len) = usize::try_from(count) else {
            return Err(io::Error::last_os_error());
        };
        let mut groups = vec![0; len];
        // SAFETY: `groups` has room for `count` ids.
        let got = unsafe { libc::getgroups(count, groups.as_mut_ptr()) };
        match usize::try_from(got) {
            Ok(got) => {
                groups.truncate(got);
                return Ok(groups);
            }
            // The groups changed between the two calls: count them again.
            Err(_) if io::Error::last_os_error().raw_os_error() == Some(libc::EINVAL) => {}
            Err(_) => return Err(io::Error::last_os_error()),
        }
    }
}

/// `confstr(3)` for the configuration value `name`: None when the system has no value
/// for it, an error (EINVAL) when it does not know the name.
pub fn confstr(name: i32) -> io::Result<Option<String>> {
    // SAFETY: with no buffer confstr only says how long the value is.
    let length = unsafe { libc::confstr(name, std::ptr::null_mut(), 0) };
    if length == 0 {
        let error = io::Error::last_os_error();
        return match error.raw_os_error() {
            Some(0) | None => Ok(None),
            Some(_) => Err(error),
        };
    }
    let mut buffer = vec![0u8; length];
    // SAFETY: `buffer` has room for `length` bytes, the terminating NUL included.
    unsafe { libc::confstr(name, buffer.as_mut_ptr().cast(), length) };
    buffer.truncate(length - 1);
    Ok(Some(String::from_utf8_lossy(&buffer).into_owned()))
}

/// Set in a child that [`fork`] made: its interpreter thread is the only native thread
/// left, so nothing waits for it, and it ends the process itself ([`exit_now`]).
static FORKED_CHILD: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// `fork()`: the child's pid in the parent, 0 in the child (which only the calling thread
/// is in).
pub fn fork() -> io::Result<libc::pid_t> {
    // SAFETY: fork has no memory-safety preconditions; the child only goes on running the
    // interpreter thread, which called it.
    let pid = check(unsafe { libc::fork() })?;
    if pid == 0 {
        FORKED_CHILD.store(true, std::sync::atomic::Ordering::Relaxed);
    }
    Ok(pid)
}

/// Whether this process is a child that [`fork`] made.
pub fn is_forked_child() -> bool {
    FORKED_CHILD.load(std::sync::atomic::Ordering::Relaxed)
}

/// `_exit(status)`: ends the process at once, flushing nothing and running no handlers.
pub fn exit_now(status: i32) -> ! {
    // SAFETY: _exit has no preconditions.
    unsafe { libc::_exit(status) }
}

/// `os.cpu_count()`: the processors online (`sysconf(_SC_NPROCESSORS_ONLN)`, as CPython).
pub fn online_cpus() -> Option<usize> {
    // SAFETY: sysconf has no preconditions.
    let n = unsafe { libc::sysconf(libc::_SC_NPROCESSORS_ONLN) };
    usize::try_from(n).ok().filter(|&n| n > 0)
}

/// `os.process_cpu_count()`: the processors this process may run on (its affinity mask),
/// or None when the mask cannot be read.
pub fn affinity_cpus() -> Option<usize> {
    // SAFETY: an all-zero cpu_set_t is a valid empty set, and sched_getaffinity writes at
    // most its size into it.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    let size = std::mem::size_of::<libc::cpu_set_t>();
    // SAFETY: `set` is valid for `size` bytes.
    let got = unsafe { libc::sched_getaffinity(0, size, &mut set) };
    // SAFETY: `set` was filled in above.
    (got == 0).then(|| unsafe { libc::CPU_COUNT(&set) } as usize)
}
