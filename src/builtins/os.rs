//! The `os` module's basics and `os.path` (`posixpath`): the working folder, listing,
//! making and removing files and folders, the process id, the environment, and path
//! arithmetic (`Modules/posixmodule.c`, `Lib/posixpath.py`, `Lib/genericpath.py`). Every
//! call that reaches the file system asks `vm::sandbox`'s gate first; the path arithmetic
//! is text only and always allowed.

use crate::vm::args::{OrRaise, Signature, check_arity};
use crate::vm::dict::StrKeys;
use crate::vm::object::KwArgs;
use crate::vm::sandbox::Capability;
use crate::vm::value::Value;
use crate::vm::{PyResult, Vm};

type Method = fn(&mut Vm, &[Value], &KwArgs) -> PyResult<Value>;

/// The `os` module, with `os.path` made and entered in `sys.modules` beside it.
pub fn module(vm: &mut Vm) -> Value {
    let mut attrs: Vec<(&str, Value)> = vec![
        ("sep", Value::str("/")),
        ("altsep", Value::None),
        ("linesep", Value::str("\n")),
        ("pathsep", Value::str(":")),
        ("curdir", Value::str(".")),
        ("pardir", Value::str("..")),
        ("extsep", Value::str(".")),
        ("name", Value::str("posix")),
        ("environ", environ()),
    ];
    for (name, f) in OS_FUNCTIONS {
        attrs.push((name, vm.native(name, *f)));
    }
    // A page in a browser has no processes to spawn or wait for (src/web.rs).
    #[cfg(not(target_arch = "wasm32"))]
    attrs.extend(super::process::os_functions(vm));
    #[cfg(target_arch = "wasm32")]
    attrs.extend(super::page_os::os_functions(vm));
    let path = path_module(vm);
    let key = vm.intern("os.path");
    vm.modules.table.borrow_mut().set_str(key, path.clone());
    attrs.push(("path", path));
    vm.new_module("os", attrs)
}

/// `os.environ`: the environment when the module was made, as a dict (empty in a browser,
/// which has none: `src/web.rs`).
fn environ() -> Value {
    let mut table = crate::vm::value::DictTable::new();
    let variables: Vec<(String, String)> = match cfg!(target_arch = "wasm32") {
        true => Vec::new(),
        false => std::env::vars().collect(),
    };
    for (key, value) in variables {
        table.set_str(
            std::rc::Rc::new(crate::vm::value::PyStr::new(key)),
            Value::str(value),
        );
    }
    Value::dict(table)
}

fn path_module(vm: &mut Vm) -> Value {
    let mut attrs: Vec<(&str, Value)> = vec![("sep", Value::str("/"))];
    for (name, f) in PATH_FUNCTIONS {
        attrs.push((name, vm.native(name, *f)));
    }
    vm.new_module("posixpath", attrs)
}

/// A path argument, as `os.fspath` takes it (str only until `bytes` lands).
fn path_arg(vm: &Vm, fname: &str, v: Option<&Value>) -> PyResult<String> {
    match v {
        Some(Value::Str(s)) => Ok(s.as_str().to_string()),
        Some(other) => Err(vm.type_error(format!(
            "{fname}: path should be string, bytes or os.PathLike, not {}",
            vm.type_name(other)
        ))),
        None => Err(vm.type_error(format!(
            "{fname}() missing required argument 'path' (pos 1)"
        ))),
    }
}

/// The path argument of a call that touches the file system, once the sandbox allows it.
fn host_path(vm: &mut Vm, fname: &str, args: &[Value]) -> PyResult<String> {
    let path = path_arg(vm, fname, args.first())?;
    vm.require(Capability::Files, &path)?;
    Ok(path)
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

const OS_FUNCTIONS: &[(&str, Method)] = &[
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
    ("getpid", |vm, args, _| {
        check_arity(vm, "getpid", args, 0, 0)?;
        Ok(Value::Int(crate::vm::sandbox::process_id().into()))
    }),
    ("cpu_count", |vm, args, _| {
        check_arity(vm, "cpu_count", args, 0, 0)?;
        Ok(
            std::thread::available_parallelism()
                .map_or(Value::None, |n| Value::Int(n.get() as i64)),
        )
    }),
    ("getenv", |vm, args, _| {
        check_arity(vm, "getenv", args, 1, 2)?;
        let key = path_arg(vm, "getenv", args.first())?;
        Ok(match std::env::var(&key) {
            Ok(value) => Value::str(value),
            Err(_) => args.get(1).cloned().unwrap_or(Value::None),
        })
    }),
    ("listdir", |vm, args, _| {
        check_arity(vm, "listdir", args, 0, 1)?;
        let path = match args.first() {
            None | Some(Value::None) => ".".to_string(),
            Some(_) => path_arg(vm, "listdir", args.first())?,
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
        let path = host_path(vm, "makedirs", &[slots[0].clone().unwrap_or(Value::None)])?;
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
    ("rename", |vm, args, _| {
        check_arity(vm, "rename", args, 2, 2)?;
        let source = host_path(vm, "rename", args)?;
        let target = host_path(vm, "rename", &args[1..])?;
        if let Err(e) = std::fs::rename(&source, &target) {
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
    }),
];

const PATH_FUNCTIONS: &[(&str, Method)] = &[
    ("join", |vm, args, _| {
        check_arity(vm, "join", args, 1, usize::MAX)?;
        let mut path = path_arg(vm, "join", args.first())?;
        for part in &args[1..] {
            let part = path_arg(vm, "join", Some(part))?;
            if part.starts_with('/') {
                path = part;
            } else if path.is_empty() || path.ends_with('/') {
                path.push_str(&part);
            } else {
                path.push('/');
                path.push_str(&part);
            }
        }
        Ok(Value::str(path))
    }),
    ("split", |vm, args, _| {
        check_arity(vm, "split", args, 1, 1)?;
        let path = path_arg(vm, "split", args.first())?;
        let (head, tail) = split(&path);
        Ok(Value::tuple(vec![Value::str(head), Value::str(tail)]))
    }),
    ("basename", |vm, args, _| {
        check_arity(vm, "basename", args, 1, 1)?;
        let path = path_arg(vm, "basename", args.first())?;
        Ok(Value::str(split(&path).1))
    }),
    ("dirname", |vm, args, _| {
        check_arity(vm, "dirname", args, 1, 1)?;
        let path = path_arg(vm, "dirname", args.first())?;
        Ok(Value::str(split(&path).0))
    }),
    ("splitext", |vm, args, _| {
        check_arity(vm, "splitext", args, 1, 1)?;
        let path = path_arg(vm, "splitext", args.first())?;
        let (root, ext) = splitext(&path);
        Ok(Value::tuple(vec![Value::str(root), Value::str(ext)]))
    }),
    ("isabs", |vm, args, _| {
        check_arity(vm, "isabs", args, 1, 1)?;
        let path = path_arg(vm, "isabs", args.first())?;
        Ok(Value::Bool(path.starts_with('/')))
    }),
    ("normpath", |vm, args, _| {
        check_arity(vm, "normpath", args, 1, 1)?;
        let path = path_arg(vm, "normpath", args.first())?;
        Ok(Value::str(normpath(&path)))
    }),
    ("abspath", |vm, args, _| {
        check_arity(vm, "abspath", args, 1, 1)?;
        let path = path_arg(vm, "abspath", args.first())?;
        if path.starts_with('/') {
            return Ok(Value::str(normpath(&path)));
        }
        let cwd = getcwd(vm)?;
        Ok(Value::str(normpath(&format!("{cwd}/{path}"))))
    }),
    ("exists", |vm, args, _| {
        check_arity(vm, "exists", args, 1, 1)?;
        let path = host_path(vm, "exists", args)?;
        Ok(Value::Bool(std::fs::metadata(path).is_ok()))
    }),
    ("isfile", |vm, args, _| {
        check_arity(vm, "isfile", args, 1, 1)?;
        let path = host_path(vm, "isfile", args)?;
        Ok(Value::Bool(
            std::fs::metadata(path).is_ok_and(|m| m.is_file()),
        ))
    }),
    ("isdir", |vm, args, _| {
        check_arity(vm, "isdir", args, 1, 1)?;
        let path = host_path(vm, "isdir", args)?;
        Ok(Value::Bool(
            std::fs::metadata(path).is_ok_and(|m| m.is_dir()),
        ))
    }),
    ("getsize", |vm, args, _| {
        check_arity(vm, "getsize", args, 1, 1)?;
        let path = host_path(vm, "getsize", args)?;
        match std::fs::metadata(&path) {
            Ok(m) => Ok(Value::Int(m.len() as i64)),
            Err(e) => Err(vm.os_error(&e, Some(&path))),
        }
    }),
];

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
