//! Who owns a file: `os.chown`, `os.lchown` and `os.fchown` (`Modules/posixmodule.c`, over
//! `fchownat(2)` and `fchown(2)`), with the user and group ids as CPython's
//! `_Py_Uid_Converter` and `_Py_Gid_Converter` take them (-1: leave it as it is). Changing
//! an owner changes the file system, so `vm::sandbox`'s gate is asked first, as for
//! `os.chmod`; in a page in a browser (which is always sandboxed) that is where it ends.

use num_traits::Signed;

use crate::common::int_ops::Int;
use crate::vm::args::Signature;
use crate::vm::object::KwArgs;
use crate::vm::sandbox::Capability;
use crate::vm::value::Value;
use crate::vm::{PyResult, Vm};

use super::os::path_arg;

type Function = fn(&mut Vm, &[Value], &KwArgs) -> PyResult<Value>;

/// The functions, for `posix`'s namespace.
pub const FUNCTIONS: &[(&str, Function)] =
    &[("chown", chown), ("lchown", lchown), ("fchown", fchown)];

const CHOWN: Signature = Signature::keywords(
    "os",
    "chown",
    &["path", "uid", "gid", "dir_fd", "follow_symlinks"],
    3,
    0,
)
.keyword_only(2);

const LCHOWN: Signature = Signature::keywords("os", "lchown", &["path", "uid", "gid"], 3, 0);

const FCHOWN: Signature = Signature::keywords("os", "fchown", &["fd", "uid", "gid"], 3, 0);

/// A user or group id (`which` is "uid" or "gid") as CPython converts one: an integer
/// that fits the C type, or -1 for "unchanged" (`u32::MAX`, as the system takes it).
fn id_arg(vm: &mut Vm, which: &str, v: &Value) -> PyResult<u32> {
    let Some(n) = vm.index_int(v)? else {
        return Err(vm.type_error(format!(
            "{which} should be integer, not {}",
            vm.type_name(v)
        )));
    };
    let less = || format!("{which} is less than minimum");
    match n {
        Int::Small(-1) => Ok(u32::MAX),
        // As posixmodule.c: a value that fits a C long but not the id's type is said to
        // be below the minimum; one past a long, above the maximum.
        Int::Small(n) => u32::try_from(n).map_err(|_| vm.overflow_error(less())),
        Int::Big(b) if b.is_negative() => Err(vm.overflow_error(less())),
        Int::Big(_) => Err(vm.overflow_error(format!("{which} is greater than maximum"))),
    }
}

/// The ids of `slots[1]` and `slots[2]`.
fn ids(vm: &mut Vm, slots: &[Option<Value>]) -> PyResult<(u32, u32)> {
    let uid = id_arg(vm, "uid", slots[1].as_ref().unwrap_or(&Value::None))?;
    let gid = id_arg(vm, "gid", slots[2].as_ref().unwrap_or(&Value::None))?;
    Ok((uid, gid))
}

/// `os.chown(path, uid, gid, *, dir_fd=None, follow_symlinks=True)`; `path` may be an open
/// descriptor, as `fchown`.
fn chown(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let slots = CHOWN.bind(vm, args, kw)?;
    let follow = match &slots[4] {
        Some(v) => vm.truthy(v)?,
        None => true,
    };
    if let Some(Value::Int(fd)) = slots[0] {
        if !follow {
            return Err(vm.value_error("chown: cannot use fd and follow_symlinks together"));
        }
        let fd = vm.expect_c_int(&Value::Int(fd))?;
        let (uid, gid) = ids(vm, &slots)?;
        vm.require(Capability::Files, &format!("os.chown({fd})"))?;
        return sys::fchown(fd, uid, gid)
            .map(|()| Value::None)
            .map_err(|e| vm.os_error_named(&e, Some(Value::Int(fd.into()))));
    }
    let path = path_arg(vm, "chown", "path", slots[0].as_ref())?;
    let (uid, gid) = ids(vm, &slots)?;
    let dir_fd = match &slots[3] {
        None | Some(Value::None) => None,
        Some(v) => Some(vm.expect_c_int(v)?),
    };
    vm.require(Capability::Files, &path)?;
    done(vm, sys::chown_at(dir_fd, &path, uid, gid, follow), &path)
}

/// `os.lchown(path, uid, gid)`: a symbolic link's own owner.
fn lchown(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let slots = LCHOWN.bind(vm, args, kw)?;
    let path = path_arg(vm, "lchown", "path", slots[0].as_ref())?;
    let (uid, gid) = ids(vm, &slots)?;
    vm.require(Capability::Files, &path)?;
    done(vm, sys::chown_at(None, &path, uid, gid, false), &path)
}

/// `os.fchown(fd, uid, gid)`: the owner of an open file.
fn fchown(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let slots = FCHOWN.bind(vm, args, kw)?;
    let fd = vm.expect_c_int(slots[0].as_ref().unwrap_or(&Value::None))?;
    let (uid, gid) = ids(vm, &slots)?;
    vm.require(Capability::Files, &format!("os.fchown({fd})"))?;
    sys::fchown(fd, uid, gid)
        .map(|()| Value::None)
        .map_err(|e| vm.os_error(&e, None))
}

/// None, or the OSError of a call on `path`.
fn done(vm: &mut Vm, result: std::io::Result<()>, path: &str) -> PyResult<Value> {
    result.map_err(|e| vm.os_error(&e, Some(path)))?;
    Ok(Value::None)
}

/// The system calls (none in a browser, where the sandbox refuses first anyway).
#[cfg(unix)]
mod sys {
    use std::ffi::CString;
    use std::io;

    /// `fchownat(2)` of `path`, relative to `dir_fd` when given (else the working folder),
    /// the link itself when not `follow`ing it.
    pub fn chown_at(
        dir_fd: Option<i32>,
        path: &str,
        uid: u32,
        gid: u32,
        follow: bool,
    ) -> io::Result<()> {
        let path = CString::new(path).map_err(|_| io::Error::from_raw_os_error(libc::EINVAL))?;
        let flags = if follow { 0 } else { libc::AT_SYMLINK_NOFOLLOW };
        let dir = dir_fd.unwrap_or(libc::AT_FDCWD);
        // SAFETY: `path` is NUL-terminated; fchownat only reads it.
        match unsafe { libc::fchownat(dir, path.as_ptr(), uid, gid, flags) } {
            0 => Ok(()),
            _ => Err(io::Error::last_os_error()),
        }
    }

    /// `fchown(2)`.
    pub fn fchown(fd: i32, uid: u32, gid: u32) -> io::Result<()> {
        // SAFETY: fchown takes plain integers; a bad descriptor is its EBADF.
        match unsafe { libc::fchown(fd, uid, gid) } {
            0 => Ok(()),
            _ => Err(io::Error::last_os_error()),
        }
    }
}

#[cfg(not(unix))]
mod sys {
    use std::io;

    pub fn chown_at(_: Option<i32>, _: &str, _: u32, _: u32, _: bool) -> io::Result<()> {
        Err(io::Error::from(io::ErrorKind::Unsupported))
    }

    pub fn fchown(_: i32, _: u32, _: u32) -> io::Result<()> {
        Err(io::Error::from(io::ErrorKind::Unsupported))
    }
}
