//! The OSError family: `OSError(errno, strerror[, filename[, winerror[, filename2]]])`
//! becomes the subclass the errno names (`OSError(2, …)` is a FileNotFoundError), keeps
//! `errno`, `strerror`, `filename` and `filename2` as attributes and only
//! `(errno, strerror)` as `args`, and shows as `[Errno 2] No such file or directory:
//! 'f.txt'`. Mirrors `OSError_new`/`oserror_init`/`OSError_str` in `Objects/exceptions.c`
//! and `errmap.h` (Linux errno values).

use std::rc::Rc;

use super::dict::StrKeys;
use super::object::{KwArgs, ObjectKind, PyType, is_native_fn};
use super::types::{lookup, resolves_to_native};
use super::value::Value;
use super::{PyResult, Vm};

/// Linux errno values apy raises itself (the `libc` crate's, which a browser build lacks).
pub const EEXIST: i32 = 17;
pub const EISDIR: i32 = 21;
pub const EINVAL: i32 = 22;
pub const ELOOP: i32 = 40;
#[cfg(target_arch = "wasm32")]
pub const EBADF: i32 = 9;

/// The attributes an OSError carries, all None unless given.
const ATTRIBUTES: [&str; 4] = ["errno", "strerror", "filename", "filename2"];

pub fn init(vm: &mut Vm) {
    let os_error = vm.types.os_error.clone();
    vm.add_static(&os_error, "__new__", os_error_new);
    vm.add_method(&os_error, "__init__", os_error_init);
    vm.add_method(&os_error, "__str__", os_error_str);
    // What an instance made without OSError's constructor answers (the TimeoutError "timed
    // out" of a socket, made natively), where CPython's member descriptors give None.
    for name in ATTRIBUTES {
        vm.set_type_attr(&os_error, name, Value::None);
    }
    let blocking = vm.types.blocking_io_error.clone();
    vm.add_getset(&blocking, WRITTEN, written_get, Some(written_set));
}

/// `BlockingIOError.characters_written`, kept in the instance's dict under its own name
/// (the descriptor comes first), absent until given.
const WRITTEN: &str = "characters_written";

fn written_get(vm: &mut Vm, this: &Value) -> PyResult<Value> {
    let key = vm.intern(WRITTEN);
    let Value::Object(exc) = this else {
        return Err(vm.attribute_error(WRITTEN));
    };
    let written = exc.attrs().and_then(|a| a.borrow().get_str(&key).cloned());
    written.ok_or_else(|| vm.attribute_error(WRITTEN))
}

fn written_set(vm: &mut Vm, this: &Value, value: Value) -> PyResult<()> {
    let written = vm.expect_index(&value)?;
    let key = vm.intern(WRITTEN);
    if let Value::Object(exc) = this
        && let Some(attrs) = exc.attrs_to_write()
    {
        attrs.borrow_mut().set_str(key, Value::Int(written));
    }
    Ok(())
}

/// The subclass `OSError(errno, …)` makes for a Linux errno, if it has one.
fn subclass_for(vm: &Vm, errno: i64) -> Option<Rc<PyType>> {
    let t = &vm.types;
    Some(match errno {
        11 | 114 | 115 => t.blocking_io_error.clone(),
        10 => t.child_process_error.clone(),
        32 | 108 => t.broken_pipe_error.clone(),
        103 => t.connection_aborted_error.clone(),
        111 => t.connection_refused_error.clone(),
        104 => t.connection_reset_error.clone(),
        17 => t.file_exists_error.clone(),
        2 => t.file_not_found_error.clone(),
        21 => t.is_a_directory_error.clone(),
        20 => t.not_a_directory_error.clone(),
        4 => t.interrupted_error.clone(),
        1 | 13 => t.permission_error.clone(),
        3 => t.process_lookup_error.clone(),
        110 => t.timeout_error.clone(),
        _ => return None,
    })
}

/// `OSError.__new__(cls, *args)`: OSError itself with an errno it maps becomes that
/// subclass.
fn os_error_new(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let Some(Value::Type(cls)) = args.first() else {
        return Err(vm.type_error("OSError.__new__(X): X is not a type object"));
    };
    let rest = &args[1..];
    let mut class = cls.clone();
    if Rc::ptr_eq(cls, &vm.types.os_error)
        && (2..=5).contains(&rest.len())
        && let Value::Int(errno) = rest[0]
        && let Some(sub) = subclass_for(vm, errno)
    {
        class = sub;
    }
    if cls.builtin && !kw.is_empty() {
        return Err(vm.type_error(format!("{}() takes no keyword arguments", cls.name())));
    }
    let parsed = if use_init(vm, &class) { &[] } else { rest };
    let exc = vm.new_exc_args(&class, parsed.to_vec());
    parse_args(vm, &Value::Object(exc.clone()), parsed);
    Ok(Value::Object(exc))
}

/// CPython's `oserror_use_init`: a subclass with an `__init__` of its own (and OSError's
/// `__new__`) leaves the arguments to `OSError.__init__`, if it calls it; until then
/// `args` is empty and `errno` None.
fn use_init(vm: &mut Vm, class: &Rc<PyType>) -> bool {
    let init = vm.intern("__init__");
    let new = vm.intern("__new__");
    let native_new = match lookup(class, &new) {
        Some(Value::Object(o)) => match &o.kind {
            ObjectKind::StaticMethod(f) => is_native_fn(f, os_error_new),
            _ => false,
        },
        _ => false,
    };
    native_new && !resolves_to_native(class, &init, os_error_init)
}

/// `OSError.__init__(self, *args)`: parses the arguments when a subclass's own `__init__`
/// calls it (`oserror_use_init`).
fn os_error_init(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    let Some(this) = args.first() else {
        return Ok(Value::None);
    };
    // Everything is done in `__new__` unless a subclass's `__init__` took it over.
    let class = vm.type_of(this).clone();
    if use_init(vm, &class) {
        parse_args(vm, this, &args[1..]);
    }
    Ok(Value::None)
}

/// Sets `args` and the four attributes from the constructor's arguments: with 2 to 5 of
/// them, the first two are errno and strerror, the third the filename and the fifth the
/// second filename, and `args` keeps the first two only when a filename was given.
fn parse_args(vm: &mut Vm, this: &Value, args: &[Value]) {
    let Value::Object(exc) = this else { return };
    let mut values = [Value::None, Value::None, Value::None, Value::None];
    let mut kept = args.to_vec();
    if (2..=5).contains(&args.len()) {
        values[0] = args[0].clone();
        values[1] = args[1].clone();
        // `BlockingIOError(errno, strerror, written)`, of that very class: the third is the
        // number of characters written, and `args` keeps all of them.
        if let Some(written @ (Value::Int(_) | Value::Bool(_))) = args.get(2)
            && Rc::ptr_eq(vm.type_of(this), &vm.types.blocking_io_error)
        {
            let _ = written_set(vm, this, written.clone());
        } else if let Some(filename) = args.get(2) {
            values[2] = filename.clone();
            values[3] = args.get(4).cloned().unwrap_or(Value::None);
            kept.truncate(2);
        }
    }
    if let Some(data) = exc.exc_data() {
        data.borrow_mut().args = Value::tuple(kept);
    }
    if let Some(attrs) = exc.attrs_to_write() {
        let mut attrs = attrs.borrow_mut();
        for (name, value) in ATTRIBUTES.iter().zip(values) {
            attrs.set_str(vm.interner.intern(name), value);
        }
    }
}

/// `[Errno 2] No such file or directory: 'f.txt'` (and `-> 'g.txt'` for a second
/// filename), `[Errno 2] …` without one, else as BaseException shows it.
fn os_error_str(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let this = args.first().cloned().unwrap_or(Value::None);
    let attr = |vm: &mut Vm, name: &str| -> PyResult<Value> {
        let key = vm.intern(name);
        Ok(vm.get_attr_opt(&this, &key)?.unwrap_or(Value::None))
    };
    let (errno, strerror) = (attr(vm, "errno")?, attr(vm, "strerror")?);
    let (filename, filename2) = (attr(vm, "filename")?, attr(vm, "filename2")?);
    if !filename.is_none() {
        let (errno, strerror, file) = (
            vm.str_of(&errno)?,
            vm.str_of(&strerror)?,
            vm.repr(&filename)?,
        );
        let mut text = format!("[Errno {}] {}: {file}", errno.as_str(), strerror.as_str());
        if !filename2.is_none() {
            text.push_str(&format!(" -> {}", vm.repr(&filename2)?));
        }
        return Ok(Value::str(text));
    }
    if !errno.is_none() && !strerror.is_none() {
        let (errno, strerror) = (vm.str_of(&errno)?, vm.str_of(&strerror)?);
        return Ok(Value::str(format!(
            "[Errno {}] {}",
            errno.as_str(),
            strerror.as_str()
        )));
    }
    super::exceptions::exc_str(vm, args, kw)
}
