//! `posix`, the native core of `os` (`Modules/posixmodule.c`): the working folder,
//! listing, making, removing and examining files and folders (`stat`), the process id, the
//! environment; and `posixpath` (`os.path`): path arithmetic and the tests on paths
//! (`Lib/posixpath.py`, `Lib/genericpath.py`). `src/stdlib/os.apy` builds `os` on them,
//! as CPython's `Lib/os.py` does. Every call that reaches the file system asks
//! `vm::sandbox`'s gate first; the path arithmetic is text only and always allowed. A path
//! is a str or an `os.PathLike` (its `__fspath__`); apy has no bytes paths.

use crate::vm::args::{OrRaise, Signature, check_arity};
use crate::vm::dict::StrKeys;
use crate::vm::object::KwArgs;
use crate::vm::sandbox::Capability;
use crate::vm::value::Value;
use crate::vm::{PyResult, Vm};

type Method = fn(&mut Vm, &[Value], &KwArgs) -> PyResult<Value>;

/// The `posix` module (what `os.apy` imports everything from).
pub fn module(vm: &mut Vm) -> Value {
    let mut attrs: Vec<(&str, Value)> = vec![
        ("sep", Value::str("/")),
        ("altsep", Value::None),
        ("linesep", Value::str("\n")),
        ("pathsep", Value::str(":")),
        ("curdir", Value::str(".")),
        ("pardir", Value::str("..")),
        ("extsep", Value::str(".")),
        ("devnull", Value::str("/dev/null")),
        ("name", Value::str("posix")),
        ("environ", environ()),
        // access()'s modes (the same on every POSIX system).
        ("F_OK", Value::Int(0)),
        ("R_OK", Value::Int(4)),
        ("W_OK", Value::Int(2)),
        ("X_OK", Value::Int(1)),
    ];
    for (name, f) in OS_FUNCTIONS.iter().chain(super::os_owner::FUNCTIONS) {
        attrs.push((name, vm.native(name, *f)));
    }
    // A page in a browser has no processes to spawn or wait for (src/web.rs).
    #[cfg(not(target_arch = "wasm32"))]
    attrs.extend(super::process::os_functions(vm));
    #[cfg(target_arch = "wasm32")]
    attrs.extend(super::page_os::os_functions(vm));
    vm.new_module("posix", attrs)
}

/// `os.environ`: the environment when the module was made, as a dict (empty in a browser,
/// which has none: `src/web.rs`).
fn environ() -> Value {
    let mut table = crate::vm::value::DictTable::new();
    // `vars_os`: a variable that is not UTF-8 is read with U+FFFD (CPython keeps its bytes
    // as surrogates, which apy's str cannot hold) rather than stopping the program.
    let variables: Vec<(String, String)> = match cfg!(target_arch = "wasm32") {
        true => Vec::new(),
        false => std::env::vars_os()
            .map(|(k, v)| {
                (
                    k.to_string_lossy().into_owned(),
                    v.to_string_lossy().into_owned(),
                )
            })
            .collect(),
    };
    for (key, value) in variables {
        table.set_str(
            std::rc::Rc::new(crate::vm::value::PyStr::new(key)),
            Value::str(value),
        );
    }
    Value::dict(table)
}

/// The `posixpath` module, which `os.apy` makes `os.path`.
pub fn path_module(vm: &mut Vm) -> Value {
    let mut attrs: Vec<(&str, Value)> = vec![
        ("sep", Value::str("/")),
        ("curdir", Value::str(".")),
        ("pardir", Value::str("..")),
        ("extsep", Value::str(".")),
        ("pathsep", Value::str(":")),
        ("defpath", Value::str("/bin:/usr/bin")),
        ("devnull", Value::str("/dev/null")),
        ("altsep", Value::None),
        ("supports_unicode_filenames", Value::Bool(false)),
    ];
    for (name, f) in PATH_FUNCTIONS {
        attrs.push((name, vm.native(name, *f)));
    }
    vm.new_module("posixpath", attrs)
}

/// `os.fspath(v)`: a str or bytes as it is, or what an os.PathLike's `__fspath__` gives;
/// None for anything else, for the caller's TypeError.
fn fspath(vm: &mut Vm, v: &Value) -> PyResult<Option<Value>> {
    if is_str_or_bytes(v) {
        return Ok(Some(v.clone()));
    }
    let name = vm.intern("__fspath__");
    let Some(method) = vm.special_method(v, &name) else {
        return Ok(None);
    };
    match vm.call(&method, std::slice::from_ref(v), &[])? {
        path if is_str_or_bytes(&path) => Ok(Some(path)),
        other => Err(vm.type_error(format!(
            "expected {}.__fspath__() to return str or bytes, not {}",
            vm.type_name(v),
            vm.type_name(&other)
        ))),
    }
}

fn is_str_or_bytes(v: &Value) -> bool {
    v.str_or_subclass().is_some() || v.native::<crate::vm::bytes::PyBytes>().is_some()
}

/// A path as text: apy's paths are str; a bytes path is named as outside the subset.
fn path_text(vm: &Vm, path: Value) -> PyResult<String> {
    match path.str_or_subclass() {
        Some(s) => Ok(s.as_str().to_string()),
        None => Err(vm.type_error(format!(
            "bytes paths {}",
            crate::vm::cpython_names::OUTSIDE_THE_SUBSET
        ))),
    }
}

/// `os.fspath`'s own error: `v` is no path at all.
fn not_a_path(vm: &Vm, v: &Value) -> crate::vm::Exc {
    vm.type_error(format!(
        "expected str, bytes or os.PathLike object, not {}",
        vm.type_name(v)
    ))
}

/// A path argument of `os.path`'s text functions (and `open`), through `os.fspath`.
pub fn fspath_arg(vm: &mut Vm, v: &Value) -> PyResult<String> {
    match fspath(vm, v)? {
        Some(path) => path_text(vm, path),
        None => Err(not_a_path(vm, v)),
    }
}

/// The path argument `param` of the system call `fname` (a str or an os.PathLike), with
/// the TypeError `posixmodule.c`'s converter raises for anything else.
pub(super) fn path_arg(
    vm: &mut Vm,
    fname: &str,
    param: &str,
    v: Option<&Value>,
) -> PyResult<String> {
    let Some(v) = v else {
        return Err(vm.type_error(format!(
            "{fname}() missing required argument '{param}' (pos 1)"
        )));
    };
    if let Some(path) = fspath(vm, v)? {
        return path_text(vm, path);
    }
    // What else each call takes (a descriptor, None for the working folder), as CPython
    // lists it; apy takes str and os.PathLike paths only.
    let kinds = match fname {
        "listdir" => "string, bytes, os.PathLike, integer or None",
        "stat" | "chdir" | "chown" => "string, bytes, os.PathLike or integer",
        _ => "string, bytes or os.PathLike",
    };
    Err(vm.type_error(format!(
        "{fname}: {param} should be {kinds}, not {}",
        vm.type_name(v)
    )))
}

/// The path argument of a call that touches the file system, once the sandbox allows it.
fn host_path(vm: &mut Vm, fname: &str, args: &[Value]) -> PyResult<String> {
    let path = path_arg(vm, fname, "path", args.first())?;
    vm.require(Capability::Files, &path)?;
    Ok(path)
}

/// A predicate of `os.path` (`exists`, `isfile`, `isdir`): `test` of the path's metadata,
/// False when there is none. CPython's predicates answer False for any OSError from their
/// `stat`, and `--sandbox`'s refusal is one (a PermissionError): then the host is not
/// asked at all. A wrong argument type still raises.
fn path_predicate(
    vm: &mut Vm,
    name: &str,
    args: &[Value],
    test: fn(&std::fs::Metadata) -> bool,
) -> PyResult<Value> {
    check_arity(vm, name, args, 1, 1)?;
    let path = path_arg(vm, "stat", "path", args.first())?;
    let allowed = vm.require(Capability::Files, &path).is_ok();
    Ok(Value::Bool(
        allowed && std::fs::metadata(path).is_ok_and(|m| test(&m)),
    ))
}

/// The result of a host call on `path`: None, or its OSError.
fn done(vm: &mut Vm, result: std::io::Result<()>, path: &str) -> PyResult<Value> {
    result.map_err(|e| vm.os_error(&e, Some(path)))?;
    Ok(Value::None)
}

/// A call that does `op` to its path argument (and takes up to `max` arguments).
fn on_path(
    vm: &mut Vm,
    fname: &str,
    args: &[Value],
    max: usize,
    op: fn(&str) -> std::io::Result<()>,
) -> PyResult<Value> {
    check_arity(vm, fname, args, 1, max)?;
    let path = host_path(vm, fname, args)?;
    done(vm, op(&path), &path)
}

fn getcwd(vm: &mut Vm) -> PyResult<String> {
    vm.require(Capability::Files, ".")?;
    match std::env::current_dir() {
        Ok(dir) => Ok(dir.to_string_lossy().into_owned()),
        Err(e) => Err(vm.os_error(&e, None)),
    }
}

const MAKEDIRS: Signature =
    Signature::keywords("os", "makedirs", &["name", "mode", "exist_ok"], 1, 0);

const SYMLINK: Signature = Signature::keywords(
    "os",
    "symlink",
    &["src", "dst", "target_is_directory", "dir_fd"],
    2,
    0,
);

/// A symbolic link at `target` to `source` (which need not exist).
#[cfg(unix)]
fn symlink(source: &str, target: &str) -> std::io::Result<()> {
    std::os::unix::fs::symlink(source, target)
}

#[cfg(not(unix))]
fn symlink(_: &str, _: &str) -> std::io::Result<()> {
    Err(std::io::Error::from(std::io::ErrorKind::Unsupported))
}

const CHMOD: Signature = Signature::keywords(
    "os",
    "chmod",
    &["path", "mode", "dir_fd", "follow_symlinks"],
    2,
    0,
);

const UTIME: Signature = Signature::keywords(
    "os",
    "utime",
    &["path", "times", "ns", "dir_fd", "follow_symlinks"],
    1,
    0,
);

/// A `times` or `ns` pair of `os.utime`: its two items, or None if it is not a tuple of two.
fn time_pair(value: &Value) -> Option<[Value; 2]> {
    match value {
        Value::Tuple(t) if t.items.len() == 2 => Some([t.items[0].clone(), t.items[1].clone()]),
        _ => None,
    }
}

/// A time of `os.utime`'s `times` (seconds, int or float) or `ns` (nanoseconds, int), as a
/// SystemTime; one before 1970 or beyond what the host holds is an OSError(EINVAL).
fn utime_instant(vm: &mut Vm, value: &Value, in_ns: bool) -> PyResult<std::time::SystemTime> {
    let nanos: i128 = match value {
        Value::Float(f) if !in_ns => (f * 1e9) as i128,
        other => {
            let n = vm.expect_index(other)? as i128;
            if in_ns { n } else { n * 1_000_000_000 }
        }
    };
    let invalid = || std::io::Error::from_raw_os_error(22);
    let offset = u64::try_from(nanos)
        .map(std::time::Duration::from_nanos)
        .map_err(|_| vm.os_error(&invalid(), None))?;
    std::time::UNIX_EPOCH
        .checked_add(offset)
        .ok_or_else(|| vm.os_error(&invalid(), None))
}

/// `os.utime(path, times=None, *, ns=None)`: sets a file's access and modification times
/// (now, `times` in seconds, or `ns` in nanoseconds).
fn utime(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let slots = UTIME.bind(vm, args, kw)?;
    let path = path_arg(vm, "utime", "path", slots[0].as_ref())?;
    let times = slots[1].clone().unwrap_or(Value::None);
    let ns = slots[2].clone().unwrap_or(Value::None);
    let (atime, mtime) = match (&times, &ns) {
        (Value::None, Value::None) => {
            let now = std::time::SystemTime::now();
            (now, now)
        }
        (_, Value::None) => {
            let Some([a, m]) = time_pair(&times) else {
                return Err(
                    vm.type_error("utime: 'times' must be either a tuple of two ints or None")
                );
            };
            (utime_instant(vm, &a, false)?, utime_instant(vm, &m, false)?)
        }
        (Value::None, _) => {
            let Some([a, m]) = time_pair(&ns) else {
                return Err(vm.type_error("utime: 'ns' must be a tuple of two ints"));
            };
            (utime_instant(vm, &a, true)?, utime_instant(vm, &m, true)?)
        }
        _ => {
            return Err(
                vm.value_error("utime: you may specify either 'times' or 'ns' but not both")
            );
        }
    };
    vm.require(Capability::Files, &path)?;
    let times = std::fs::FileTimes::new()
        .set_accessed(atime)
        .set_modified(mtime);
    let result = std::fs::File::open(&path).and_then(|file| file.set_times(times));
    done(vm, result, &path)
}

const ACCESS: Signature = Signature::keywords(
    "os",
    "access",
    &["path", "mode", "dir_fd", "effective_ids", "follow_symlinks"],
    2,
    0,
);

/// Sets the permission bits of `path` (`chmod(2)`).
#[cfg(unix)]
fn set_mode(path: &str, mode: u32) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))
}

#[cfg(not(unix))]
fn set_mode(_: &str, _: u32) -> std::io::Result<()> {
    Err(std::io::Error::from(std::io::ErrorKind::Unsupported))
}

/// Whether this process may use `path` as `mode` says (`access(2)`: F_OK, R_OK, …).
#[cfg(unix)]
fn may_access(path: &str, mode: i32) -> bool {
    let Ok(path) = std::ffi::CString::new(path) else {
        return false;
    };
    // SAFETY: `path` is NUL-terminated; access(2) only reads it.
    unsafe { libc::access(path.as_ptr(), mode) == 0 }
}

#[cfg(not(unix))]
fn may_access(path: &str, _: i32) -> bool {
    std::path::Path::new(path).exists()
}

const STAT: Signature =
    Signature::keywords("os", "stat", &["path", "dir_fd", "follow_symlinks"], 1, 0);

/// `stat`/`lstat`: an [`stat_result`] of a path (or, for `stat`, a descriptor).
fn stat(vm: &mut Vm, args: &[Value], kw: &KwArgs, fname: &str, follow: bool) -> PyResult<Value> {
    let slots = STAT.bind(vm, args, kw)?;
    // `stat(fd)`: an open descriptor's, as `fstat(fd)`, but the error names the
    // descriptor; -1 is posixmodule.c's "no descriptor", so stat(NULL): EFAULT.
    #[cfg(not(target_arch = "wasm32"))]
    if fname == "stat"
        && let Some(Value::Int(fd)) = slots[0]
    {
        let fd = i32::try_from(fd).map_err(|_| match fd < 0 {
            true => vm.overflow_error("fd is less than minimum"),
            false => vm.overflow_error("fd is greater than maximum"),
        })?;
        let metadata = match fd {
            -1 => Err(std::io::Error::from_raw_os_error(libc::EFAULT)),
            fd => crate::common::process::fd_metadata(fd),
        };
        let metadata = metadata.map_err(|e| vm.os_error_named(&e, Some(Value::Int(fd.into()))))?;
        return stat_result(vm, &metadata);
    }
    let path = path_arg(vm, fname, "path", slots[0].as_ref())?;
    vm.require(Capability::Files, &path)?;
    let follow = match &slots[2] {
        Some(v) => follow && vm.truthy(v)?,
        None => follow,
    };
    let metadata = match follow {
        true => std::fs::metadata(&path),
        false => std::fs::symlink_metadata(&path),
    };
    let metadata = metadata.map_err(|e| vm.os_error(&e, Some(&path)))?;
    stat_result(vm, &metadata)
}

/// An `os.stat_result` of `metadata`: the class `os.apy` defines (the module that
/// imports this one, so loaded by then; the plain fields otherwise).
pub(super) fn stat_result(vm: &mut Vm, metadata: &std::fs::Metadata) -> PyResult<Value> {
    let (fields, extra) = stat_fields(vm, metadata)?;
    let os_key = vm.intern("os");
    let module = vm.modules.table.borrow().get_str(&os_key).cloned();
    match module {
        Some(module) => {
            let name = vm.intern("stat_result");
            let class = vm.get_attr(&module, &name)?;
            vm.call(&class, &[fields, extra], &[])
        }
        None => Ok(fields),
    }
}

/// The ten fields of a `stat_result` (times in whole seconds), and the named ones past
/// them (the times as floats and in nanoseconds, the block size, the blocks, the device).
#[cfg(unix)]
fn stat_fields(vm: &mut Vm, m: &std::fs::Metadata) -> PyResult<(Value, Value)> {
    use std::os::unix::fs::MetadataExt;
    let int = |v: u64| Value::Int(i64::try_from(v).unwrap_or(i64::MAX));
    let fields = vec![
        int(m.mode().into()),
        int(m.ino()),
        int(m.dev()),
        int(m.nlink()),
        int(m.uid().into()),
        int(m.gid().into()),
        int(m.size()),
        Value::Int(m.atime()),
        Value::Int(m.mtime()),
        Value::Int(m.ctime()),
    ];
    let mut extra = crate::vm::value::DictTable::new();
    let times = [
        ("atime", m.atime(), m.atime_nsec()),
        ("mtime", m.mtime(), m.mtime_nsec()),
        ("ctime", m.ctime(), m.ctime_nsec()),
    ];
    for (name, seconds, nanos) in times {
        let float = seconds as f64 + nanos as f64 * 1e-9;
        extra.set_str(vm.intern(&format!("st_{name}")), Value::Float(float));
        // (Whole nanoseconds fit a small int until the year 2262.)
        let total = seconds.saturating_mul(1_000_000_000).saturating_add(nanos);
        extra.set_str(vm.intern(&format!("st_{name}_ns")), Value::Int(total));
    }
    extra.set_str(vm.intern("st_blksize"), int(m.blksize()));
    extra.set_str(vm.intern("st_blocks"), int(m.blocks()));
    extra.set_str(vm.intern("st_rdev"), int(m.rdev()));
    Ok((Value::tuple(fields), Value::dict(extra)))
}

/// A page in a browser has no file system to examine (src/web.rs).
#[cfg(not(unix))]
fn stat_fields(vm: &mut Vm, _: &std::fs::Metadata) -> PyResult<(Value, Value)> {
    let error = std::io::Error::from(std::io::ErrorKind::Unsupported);
    Err(vm.os_error(&error, None))
}

/// `rename`/`replace` (the same call on POSIX: an existing target file is replaced).
fn rename(vm: &mut Vm, args: &[Value], fname: &str) -> PyResult<Value> {
    check_arity(vm, fname, args, 2, 2)?;
    on_two_paths(vm, args, fname, |source, target| {
        std::fs::rename(source, target)
    })
}

/// A call that does `op` to its two path arguments, `src` and `dst`; an error names
/// both paths (`[Errno 17] File exists: 'a' -> 'b'`).
fn on_two_paths(
    vm: &mut Vm,
    args: &[Value],
    fname: &str,
    op: impl FnOnce(&str, &str) -> std::io::Result<()>,
) -> PyResult<Value> {
    let source = path_arg(vm, fname, "src", args.first())?;
    let target = path_arg(vm, fname, "dst", args.get(1))?;
    vm.require(Capability::Files, &source)?;
    vm.require(Capability::Files, &target)?;
    if let Err(e) = op(&source, &target) {
        let Some(errno) = e.raw_os_error() else {
            return Err(vm.os_error(&e, Some(&source)));
        };
        let strerror = vm.os_error(&e, None);
        let strerror = vm.str_of(&Value::Object(strerror))?;
        let strerror = strerror.as_str().split_once("] ").map_or("", |(_, s)| s);
        let class = Value::Type(vm.types.os_error.clone());
        let args = [
            Value::Int(errno.into()),
            Value::str(strerror),
            Value::str(source),
            Value::None,
            Value::str(target),
        ];
        let exc = vm.call(&class, &args, &[])?;
        return Err(match exc {
            Value::Object(exc) => exc,
            _ => vm.runtime_error("OSError() did not make an exception"),
        });
    }
    Ok(Value::None)
}

/// The paths of an iterable (`commonprefix`'s and `commonpath`'s argument).
fn path_list(vm: &mut Vm, paths: &Value) -> PyResult<Vec<String>> {
    let items = vm.collect_iterable(paths)?;
    items.iter().map(|p| fspath_arg(vm, p)).collect()
}

/// `posixpath.commonpath`: the longest path, component by component, that all of `paths`
/// start with.
fn commonpath(vm: &Vm, paths: &[String]) -> PyResult<String> {
    let Some(first) = paths.first() else {
        return Err(vm.value_error("commonpath() arg is an empty sequence"));
    };
    let absolute = first.starts_with('/');
    if paths.iter().any(|p| p.starts_with('/') != absolute) {
        return Err(vm.value_error("Can't mix absolute and relative paths"));
    }
    let split: Vec<Vec<&str>> = paths
        .iter()
        .map(|p| {
            p.split('/')
                .filter(|c| !c.is_empty() && *c != ".")
                .collect()
        })
        .collect();
    // The least and the greatest (as lists) share what all of them share.
    let (Some(low), Some(high)) = (split.iter().min(), split.iter().max()) else {
        return Ok(String::new());
    };
    let shared = low.iter().zip(high).take_while(|(a, b)| a == b).count();
    let prefix = if absolute { "/" } else { "" };
    Ok(format!("{prefix}{}", low[..shared].join("/")))
}

/// `posixpath.expandvars`: each `$name` and `${name}` of a variable the environment has
/// (`os.environ`, asked through `lookup`) is replaced by its value; the others are left as
/// they are.
fn expandvars(
    vm: &mut Vm,
    path: &str,
    lookup: impl Fn(&mut Vm, &str) -> PyResult<Option<String>>,
) -> PyResult<String> {
    let mut out = String::with_capacity(path.len());
    let mut rest = path;
    while let Some(at) = rest.find('$') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        let (name, len) = match after.strip_prefix('{') {
            Some(braced) => match braced.find('}') {
                Some(end) => (&braced[..end], end + 2),
                None => ("", 0),
            },
            None => {
                let end = after
                    .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                    .unwrap_or(after.len());
                (&after[..end], end)
            }
        };
        match if len > 0 { lookup(vm, name)? } else { None } {
            Some(value) => out.push_str(&value),
            None => out.push_str(&rest[at..at + 1 + len]),
        }
        rest = &after[len..];
    }
    out.push_str(rest);
    Ok(out)
}

const OS_FUNCTIONS: &[(&str, Method)] = &[
    ("fspath", |vm, args, _| {
        check_arity(vm, "fspath", args, 1, 1)?;
        fspath(vm, &args[0])?.ok_or_else(|| not_a_path(vm, &args[0]))
    }),
    ("stat", |vm, args, kw| stat(vm, args, kw, "stat", true)),
    ("lstat", |vm, args, kw| stat(vm, args, kw, "lstat", false)),
    ("getcwd", |vm, args, _| {
        check_arity(vm, "getcwd", args, 0, 0)?;
        getcwd(vm).map(Value::str)
    }),
    ("chdir", |vm, args, _| {
        on_path(vm, "chdir", args, 1, |path| std::env::set_current_dir(path))
    }),
    ("urandom", |vm, args, _| {
        check_arity(vm, "urandom", args, 1, 1)?;
        let n = vm.expect_index(&args[0])?;
        let n = usize::try_from(n).map_err(|_| vm.value_error("negative argument not allowed"))?;
        let mut bytes = crate::common::sizes::vec_with_capacity(n).or_raise(vm)?;
        bytes.resize(n, 0u8);
        // The kernel's generator, as CPython's getrandom() reads it (none in a browser:
        // an OSError there).
        std::fs::File::open("/dev/urandom")
            .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut bytes))
            .map_err(|e| vm.os_error(&e, None))?;
        Ok(vm.new_bytes(bytes))
    }),
    ("strerror", |vm, args, _| {
        check_arity(vm, "strerror", args, 1, 1)?;
        let Some(code) = vm.index_value(&args[0])? else {
            return Err(vm.type_error(format!(
                "'{}' object cannot be interpreted as an integer",
                vm.type_name(&args[0])
            )));
        };
        let code = i32::try_from(code)
            .map_err(|_| vm.overflow_error("signed integer is greater than maximum"))?;
        Ok(Value::str(crate::common::errno_text::strerror(code)))
    }),
    ("getpid", |vm, args, _| {
        check_arity(vm, "getpid", args, 0, 0)?;
        Ok(Value::Int(crate::vm::sandbox::process_id().into()))
    }),
    ("cpu_count", |vm, args, _| {
        check_arity(vm, "cpu_count", args, 0, 0)?;
        #[cfg(not(target_arch = "wasm32"))]
        let n = crate::common::process::online_cpus();
        #[cfg(target_arch = "wasm32")]
        let n = std::thread::available_parallelism().ok().map(usize::from);
        Ok(n.map_or(Value::None, |n| Value::Int(n as i64)))
    }),
    ("listdir", |vm, args, _| {
        check_arity(vm, "listdir", args, 0, 1)?;
        let path = match args.first() {
            None | Some(Value::None) => ".".to_string(),
            Some(_) => path_arg(vm, "listdir", "path", args.first())?,
        };
        vm.require(Capability::Files, &path)?;
        let entries = std::fs::read_dir(&path).map_err(|e| vm.os_error(&e, Some(&path)))?;
        let mut names = Vec::new();
        for entry in entries {
            let entry = entry.map_err(|e| vm.os_error(&e, Some(&path)))?;
            names.push(Value::str(entry.file_name().to_string_lossy().as_ref()));
        }
        Ok(Value::list(names))
    }),
    ("remove", |vm, args, _| {
        on_path(vm, "remove", args, 1, |path| std::fs::remove_file(path))
    }),
    ("unlink", |vm, args, _| {
        on_path(vm, "unlink", args, 1, |path| std::fs::remove_file(path))
    }),
    ("rmdir", |vm, args, _| {
        on_path(vm, "rmdir", args, 1, |path| std::fs::remove_dir(path))
    }),
    ("mkdir", |vm, args, _| {
        on_path(vm, "mkdir", args, 2, |path| std::fs::create_dir(path))
    }),
    ("makedirs", |vm, args, kw| {
        let slots = MAKEDIRS.bind(vm, args, kw)?;
        let path = fspath_arg(vm, slots[0].as_ref().unwrap_or(&Value::None))?;
        vm.require(Capability::Files, &path)?;
        let exist_ok = match &slots[2] {
            Some(v) => vm.truthy(v)?,
            None => false,
        };
        if std::path::Path::new(&path).is_dir() && !exist_ok {
            let error = std::io::Error::from_raw_os_error(crate::vm::os_errors::EEXIST);
            return Err(vm.os_error(&error, Some(&path)));
        }
        done(vm, std::fs::create_dir_all(&path), &path)
    }),
    ("symlink", |vm, args, kw| {
        let slots = SYMLINK.bind(vm, args, kw)?;
        if slots[3].as_ref().is_some_and(|v| !v.is_none()) {
            let class = vm.types.not_implemented_error.clone();
            return Err(vm.new_exc(&class, "dir_fd unavailable on this platform"));
        }
        let paths = [slots[0].clone(), slots[1].clone()].map(|v| v.unwrap_or(Value::None));
        on_two_paths(vm, &paths, "symlink", |source, target| {
            symlink(source, target)
        })
    }),
    ("readlink", |vm, args, _| {
        check_arity(vm, "readlink", args, 1, 1)?;
        let path = host_path(vm, "readlink", args)?;
        match std::fs::read_link(&path) {
            Ok(target) => Ok(Value::str(target.to_string_lossy().as_ref())),
            Err(e) => Err(vm.os_error(&e, Some(&path))),
        }
    }),
    ("chmod", |vm, args, kw| {
        let slots = CHMOD.bind(vm, args, kw)?;
        let path = path_arg(vm, "chmod", "path", slots[0].as_ref())?;
        let mode = vm.expect_index(slots[1].as_ref().unwrap_or(&Value::None))?;
        vm.require(Capability::Files, &path)?;
        done(vm, set_mode(&path, mode as u32), &path)
    }),
    ("access", |vm, args, kw| {
        let slots = ACCESS.bind(vm, args, kw)?;
        let path = path_arg(vm, "access", "path", slots[0].as_ref())?;
        let mode = vm.expect_index(slots[1].as_ref().unwrap_or(&Value::None))?;
        vm.require(Capability::Files, &path)?;
        Ok(Value::Bool(may_access(&path, mode as i32)))
    }),
    ("utime", utime),
    ("rename", |vm, args, _| rename(vm, args, "rename")),
    ("replace", |vm, args, _| rename(vm, args, "replace")),
];

/// `getatime`/`getmtime`/`getctime`: a time of `path`'s stat, as a float.
fn stat_time(vm: &mut Vm, args: &[Value], field: &str) -> PyResult<Value> {
    check_arity(vm, field, args, 1, 1)?;
    let path = host_path(vm, "stat", args)?;
    let metadata = std::fs::metadata(&path).map_err(|e| vm.os_error(&e, Some(&path)))?;
    let (_, extra) = stat_fields(vm, &metadata)?;
    let key = Value::str(format!("st_{}", &field[3..]));
    vm.get_item(&extra, &key)
}

const PATH_FUNCTIONS: &[(&str, Method)] = &[
    ("normcase", |vm, args, _| {
        check_arity(vm, "normcase", args, 1, 1)?;
        fspath(vm, &args[0])?.ok_or_else(|| not_a_path(vm, &args[0]))
    }),
    ("islink", |vm, args, _| {
        check_arity(vm, "islink", args, 1, 1)?;
        let path = host_path(vm, "lstat", args)?;
        Ok(Value::Bool(
            std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink()),
        ))
    }),
    ("lexists", |vm, args, _| {
        check_arity(vm, "lexists", args, 1, 1)?;
        let path = host_path(vm, "lstat", args)?;
        Ok(Value::Bool(std::fs::symlink_metadata(path).is_ok()))
    }),
    ("getatime", |vm, args, _| stat_time(vm, args, "getatime")),
    ("getmtime", |vm, args, _| stat_time(vm, args, "getmtime")),
    ("getctime", |vm, args, _| stat_time(vm, args, "getctime")),
    ("join", |vm, args, _| {
        check_arity(vm, "join", args, 1, usize::MAX)?;
        let mut path = fspath_arg(vm, &args[0])?;
        for part in &args[1..] {
            let part = fspath_arg(vm, part)?;
            path = join(path, &part);
        }
        Ok(Value::str(path))
    }),
    ("split", |vm, args, _| {
        check_arity(vm, "split", args, 1, 1)?;
        let path = fspath_arg(vm, &args[0])?;
        let (head, tail) = split(&path);
        Ok(Value::tuple(vec![Value::str(head), Value::str(tail)]))
    }),
    ("basename", |vm, args, _| {
        check_arity(vm, "basename", args, 1, 1)?;
        let path = fspath_arg(vm, &args[0])?;
        Ok(Value::str(split(&path).1))
    }),
    ("dirname", |vm, args, _| {
        check_arity(vm, "dirname", args, 1, 1)?;
        let path = fspath_arg(vm, &args[0])?;
        Ok(Value::str(split(&path).0))
    }),
    ("splitext", |vm, args, _| {
        check_arity(vm, "splitext", args, 1, 1)?;
        let path = fspath_arg(vm, &args[0])?;
        let (root, ext) = splitext(&path);
        Ok(Value::tuple(vec![Value::str(root), Value::str(ext)]))
    }),
    // POSIX paths have no drive: it is always empty.
    ("splitdrive", |vm, args, _| {
        check_arity(vm, "splitdrive", args, 1, 1)?;
        let path = fspath_arg(vm, &args[0])?;
        Ok(Value::tuple(vec![Value::str(""), Value::str(path)]))
    }),
    ("splitroot", |vm, args, _| {
        check_arity(vm, "splitroot", args, 1, 1)?;
        let path = fspath_arg(vm, &args[0])?;
        let (root, tail) = splitroot(&path);
        Ok(Value::tuple(vec![
            Value::str(""),
            Value::str(root),
            Value::str(tail),
        ]))
    }),
    ("isabs", |vm, args, _| {
        check_arity(vm, "isabs", args, 1, 1)?;
        let path = fspath_arg(vm, &args[0])?;
        Ok(Value::Bool(path.starts_with('/')))
    }),
    ("normpath", |vm, args, _| {
        check_arity(vm, "normpath", args, 1, 1)?;
        let path = path_arg(vm, "_path_normpath", "path", args.first())?;
        Ok(Value::str(normpath(&path)))
    }),
    ("abspath", |vm, args, _| {
        check_arity(vm, "abspath", args, 1, 1)?;
        let path = fspath_arg(vm, &args[0])?;
        Ok(Value::str(abspath(vm, &path)?))
    }),
    ("commonprefix", |vm, args, _| {
        check_arity(vm, "commonprefix", args, 1, 1)?;
        let paths = path_list(vm, &args[0])?;
        // The longest start all share, character by character (not by component).
        let (Some(low), Some(high)) = (paths.iter().min(), paths.iter().max()) else {
            return Ok(Value::str(""));
        };
        let shared = low
            .char_indices()
            .zip(high.chars())
            .find(|((_, a), b)| a != b)
            .map_or(low.len(), |((at, _), _)| at);
        Ok(Value::str(&low[..shared]))
    }),
    ("commonpath", |vm, args, _| {
        check_arity(vm, "commonpath", args, 1, 1)?;
        let paths = path_list(vm, &args[0])?;
        Ok(Value::str(commonpath(vm, &paths)?))
    }),
    ("expandvars", |vm, args, _| {
        check_arity(vm, "expandvars", args, 1, 1)?;
        let path = fspath_arg(vm, &args[0])?;
        if !path.contains('$') {
            return Ok(Value::str(path));
        }
        let os = vm.import_module("os")?;
        let key = vm.intern("environ");
        let environ = vm.get_attr(&os, &key)?;
        let lookup =
            |vm: &mut Vm, name: &str| match vm.call_method(&environ, "get", &[Value::str(name)])? {
                Value::Str(value) => Ok(Some(value.as_str().to_string())),
                _ => Ok(None),
            };
        Ok(Value::str(expandvars(vm, &path, lookup)?))
    }),
    ("relpath", |vm, args, kw| {
        check_arity(vm, "relpath", args, 1, 2)?;
        let start = args
            .get(1)
            .cloned()
            .or_else(|| crate::vm::args::kwarg(kw, "start"));
        let start = match start {
            Some(v) if !v.is_none() => fspath_arg(vm, &v)?,
            _ => ".".to_string(),
        };
        let path = fspath_arg(vm, &args[0])?;
        if path.is_empty() {
            return Err(vm.value_error("no path specified"));
        }
        let (path, start) = (abspath(vm, &path)?, abspath(vm, &start)?);
        let parts = |p: &str| -> Vec<String> {
            p.split('/')
                .filter(|c| !c.is_empty())
                .map(str::to_string)
                .collect()
        };
        let (path, start) = (parts(&path), parts(&start));
        let shared = path.iter().zip(&start).take_while(|(a, b)| a == b).count();
        let mut rel: Vec<String> = vec!["..".to_string(); start.len() - shared];
        rel.extend(path[shared..].iter().cloned());
        Ok(Value::str(match rel.is_empty() {
            true => ".".to_string(),
            false => rel.join("/"),
        }))
    }),
    ("realpath", |vm, args, kw| {
        check_arity(vm, "realpath", args, 1, 1)?;
        let strict = match crate::vm::args::kwarg(kw, "strict") {
            Some(v) => vm.truthy(&v)?,
            None => false,
        };
        let path = fspath_arg(vm, &args[0])?;
        let mut seen = std::collections::HashMap::new();
        let (resolved, _) = join_real(vm, String::new(), &path, strict, &mut seen)?;
        Ok(Value::str(abspath(vm, &resolved)?))
    }),
    ("expanduser", |vm, args, _| {
        check_arity(vm, "expanduser", args, 1, 1)?;
        let path = fspath_arg(vm, &args[0])?;
        Ok(Value::str(expanduser(vm, &path)?))
    }),
    ("exists", |vm, args, _| {
        path_predicate(vm, "exists", args, |_| true)
    }),
    ("isfile", |vm, args, _| {
        path_predicate(vm, "isfile", args, std::fs::Metadata::is_file)
    }),
    ("isdir", |vm, args, _| {
        path_predicate(vm, "isdir", args, std::fs::Metadata::is_dir)
    }),
    ("getsize", |vm, args, _| {
        check_arity(vm, "getsize", args, 1, 1)?;
        let path = host_path(vm, "stat", args)?;
        match std::fs::metadata(&path) {
            Ok(m) => Ok(Value::Int(m.len() as i64)),
            Err(e) => Err(vm.os_error(&e, Some(&path))),
        }
    }),
];

/// `posixpath.join` of two paths: `part` after `path` with one `/` between them, or
/// `part` alone when it is absolute.
fn join(mut path: String, part: &str) -> String {
    if part.starts_with('/') {
        return part.to_string();
    }
    if !path.is_empty() && !path.ends_with('/') {
        path.push('/');
    }
    path.push_str(part);
    path
}

/// `posixpath._joinrealpath`: `rest` resolved onto the already resolved `path`, one
/// component at a time, each symbolic link replaced by what it points to (resolved in
/// turn). A component that does not exist is kept as it is (an OSError when `strict`).
/// `seen` holds the links being resolved (None) and those done: meeting one still being
/// resolved is a loop, which ends the resolution there (the answer's `false`), or raises
/// ELOOP when `strict`.
fn join_real(
    vm: &mut Vm,
    mut path: String,
    rest: &str,
    strict: bool,
    seen: &mut std::collections::HashMap<String, Option<String>>,
) -> PyResult<(String, bool)> {
    let mut rest = rest;
    if let Some(relative) = rest.strip_prefix('/') {
        rest = relative;
        path = "/".into();
    }
    while !rest.is_empty() {
        let (name, tail) = rest.split_once('/').unwrap_or((rest, ""));
        rest = tail;
        match name {
            "" | "." => continue,
            ".." => {
                path = match path.is_empty() {
                    true => "..".into(),
                    false => match split(&path) {
                        (head, last) if last == ".." => join(join(head, ".."), ".."),
                        (head, _) => head,
                    },
                };
                continue;
            }
            _ => {}
        }
        let new_path = join(path.clone(), name);
        let is_link = match std::fs::symlink_metadata(&new_path) {
            Ok(metadata) => metadata.file_type().is_symlink(),
            Err(e) if strict => return Err(vm.os_error(&e, Some(&new_path))),
            Err(_) => false,
        };
        if !is_link {
            path = new_path;
            continue;
        }
        match seen.get(&new_path) {
            Some(Some(resolved)) => {
                path = resolved.clone();
                continue;
            }
            Some(None) if strict => {
                let error = std::fs::metadata(&new_path).err().unwrap_or_else(|| {
                    std::io::Error::from_raw_os_error(crate::vm::os_errors::ELOOP)
                });
                return Err(vm.os_error(&error, Some(&new_path)));
            }
            Some(None) => return Ok((join(new_path, rest), false)),
            None => {}
        }
        seen.insert(new_path.clone(), None);
        let target = std::fs::read_link(&new_path).map_err(|e| vm.os_error(&e, Some(&new_path)))?;
        let (resolved, whole) = join_real(vm, path, &target.to_string_lossy(), strict, seen)?;
        if !whole {
            return Ok((join(resolved, rest), false));
        }
        seen.insert(new_path, Some(resolved.clone()));
        path = resolved;
    }
    Ok((path, true))
}

/// `posixpath.split`: everything up to the last `/` (without trailing slashes unless it is
/// all slashes), and the rest.
fn split(path: &str) -> (String, String) {
    let cut = path.rfind('/').map_or(0, |i| i + 1);
    let (head, tail) = path.split_at(cut);
    let head = match head.trim_end_matches('/') {
        "" => head,
        trimmed => trimmed,
    };
    (head.to_string(), tail.to_string())
}

/// `posixpath.splitroot` without its empty drive: the root is `''`, `'/'`, or `'//'` (two
/// slashes exactly, which POSIX lets an implementation give a meaning).
fn splitroot(path: &str) -> (&str, &str) {
    let slashes = path.len() - path.trim_start_matches('/').len();
    let root = match slashes {
        0 => 0,
        2 => 2,
        _ => 1,
    };
    path.split_at(root)
}

/// `genericpath._splitext`: the extension is from the last dot of the last component,
/// unless only dots come before it there.
fn splitext(path: &str) -> (String, String) {
    let sep = path.rfind('/').map_or(0, |i| i + 1);
    if let Some(dot) = path.rfind('.')
        && dot >= sep
        && path[sep..dot].chars().any(|c| c != '.')
    {
        return (path[..dot].to_string(), path[dot..].to_string());
    }
    (path.to_string(), String::new())
}

/// `path` made absolute against the working folder, and normalised.
fn abspath(vm: &mut Vm, path: &str) -> PyResult<String> {
    if path.starts_with('/') {
        return Ok(normpath(path));
    }
    let cwd = getcwd(vm)?;
    Ok(normpath(&format!("{cwd}/{path}")))
}

/// `~` and `~user` at the start of `path` replaced by that home folder (CPython's
/// posixpath.expanduser: `$HOME` as os.environ has it, else the password database);
/// `path` as it is when there is no such user.
fn expanduser(vm: &mut Vm, path: &str) -> PyResult<String> {
    let Some(rest) = path.strip_prefix('~') else {
        return Ok(path.to_string());
    };
    let end = rest.find('/').unwrap_or(rest.len());
    let (user, tail) = rest.split_at(end);
    let home = match user {
        "" => match environment_home(vm)? {
            Some(home) => Some(home),
            None => home_of(None),
        },
        name => home_of(Some(name)),
    };
    let Some(home) = home else {
        return Ok(path.to_string());
    };
    let joined = format!("{}{tail}", home.trim_end_matches('/'));
    Ok(if joined.is_empty() {
        "/".to_string()
    } else {
        joined
    })
}

/// `os.environ['HOME']` once os is imported (a program may have changed it), else the
/// process's own `$HOME`.
fn environment_home(vm: &mut Vm) -> PyResult<Option<String>> {
    let key = vm.intern("os");
    let os = vm.modules.table.borrow().get_str(&key).cloned();
    if let Some(os) = os {
        let (environ_name, get_name) = (vm.intern("environ"), vm.intern("get"));
        let environ = vm.get_attr(&os, &environ_name)?;
        let get = vm.get_attr(&environ, &get_name)?;
        return Ok(match vm.call(&get, &[Value::str("HOME")], &[])? {
            Value::Str(home) => Some(home.as_str().to_string()),
            _ => None,
        });
    }
    Ok(std::env::var_os("HOME").map(|h| h.to_string_lossy().into_owned()))
}

/// The home folder of `user` (None: this process's user) in the password database.
#[cfg(not(target_arch = "wasm32"))]
fn home_of(user: Option<&str>) -> Option<String> {
    // SAFETY: getpwnam/getpwuid return a pointer into static storage (or null), read at
    // once on this, the interpreter's only OS thread that asks.
    unsafe {
        let entry = match user {
            Some(name) => {
                let name = std::ffi::CString::new(name).ok()?;
                libc::getpwnam(name.as_ptr())
            }
            None => libc::getpwuid(libc::getuid()),
        };
        if entry.is_null() || (*entry).pw_dir.is_null() {
            return None;
        }
        let dir = std::ffi::CStr::from_ptr((*entry).pw_dir);
        Some(dir.to_string_lossy().into_owned())
    }
}

/// A page has no password database.
#[cfg(target_arch = "wasm32")]
fn home_of(_: Option<&str>) -> Option<String> {
    None
}

/// `posixpath.normpath`: `.` and empty components dropped, `..` taking off the one before.
fn normpath(path: &str) -> String {
    if path.is_empty() {
        return ".".into();
    }
    // POSIX keeps exactly two leading slashes.
    let initial = match path.len() - path.trim_start_matches('/').len() {
        0 => "",
        2 => "//",
        _ => "/",
    };
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." if !parts.is_empty() && parts.last() != Some(&"..") => {
                parts.pop();
            }
            ".." if !initial.is_empty() => {}
            _ => parts.push(part),
        }
    }
    let joined = format!("{initial}{}", parts.join("/"));
    if joined.is_empty() {
        ".".into()
    } else {
        joined
    }
}
