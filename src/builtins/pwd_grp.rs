//! `pwd` and `grp`, the user and group databases (`Modules/pwdmodule.c`,
//! `Modules/grpmodule.c`): `getpwuid`, `getpwnam`, `getpwall` and `struct_passwd`;
//! `getgrgid`, `getgrnam`, `getgrall` and `struct_group`, over the C library's reentrant
//! look-ups (`getpwuid_r`, …) and, for the whole database, `getpwent`/`getgrent` under a
//! lock, as CPython takes one. Ids are converted as CPython's `_Py_Uid_Converter` does,
//! its quirks included (`2**32` is "less than minimum"); names are decoded as UTF-8 (a
//! byte that is not becomes U+FFFD, where CPython keeps it as a surrogate).

use std::ffi::{CStr, CString, c_char};
use std::sync::Mutex;

use super::posix_constants::{
    GROUP_DOC, GROUP_FIELDS, GRP_DOC, PASSWD_DOC, PASSWD_FIELDS, PWD_DOC,
};
use super::structseq;
use crate::common::int_ops::Int;
use crate::vm::args::Signature;
use crate::vm::object::KwArgs;
use crate::vm::value::Value;
use crate::vm::{Exc, PyResult, Vm};

/// `getpwent` and `getgrent` walk one cursor of the process: one walk at a time.
static DATABASE_WALK: Mutex<()> = Mutex::new(());

pub fn pwd_module(vm: &mut Vm) -> Value {
    let class = structseq::make_class(vm, "pwd.struct_passwd", PASSWD_FIELDS, PASSWD_DOC);
    let attrs = vec![
        ("__doc__", Value::str(PWD_DOC)),
        ("getpwuid", vm.native("getpwuid", getpwuid)),
        ("getpwnam", vm.native("getpwnam", getpwnam)),
        ("getpwall", vm.native("getpwall", getpwall)),
        ("struct_passwd", class),
    ];
    vm.new_module("pwd", attrs)
}

pub fn grp_module(vm: &mut Vm) -> Value {
    let class = structseq::make_class(vm, "grp.struct_group", GROUP_FIELDS, GROUP_DOC);
    let attrs = vec![
        ("__doc__", Value::str(GRP_DOC)),
        ("getgrgid", vm.native("getgrgid", getgrgid)),
        ("getgrnam", vm.native("getgrnam", getgrnam)),
        ("getgrall", vm.native("getgrall", getgrall)),
        ("struct_group", class),
    ];
    vm.new_module("grp", attrs)
}

/// Why an int is no `uid_t`/`gid_t`, in `_Py_Uid_Converter`'s words.
enum IdRange {
    Less,
    Greater,
}

/// `_Py_Uid_Converter`/`_Py_Gid_Converter`: an int (or `__index__`) as an id; -1 is the
/// id of all ones. `what` is "uid" or "gid".
fn id_arg(vm: &mut Vm, v: &Value, what: &str) -> PyResult<Result<u32, IdRange>> {
    let Some(n) = vm.index_int(v)? else {
        return Err(vm.type_error(format!("{what} should be integer, not {}", vm.type_name(v))));
    };
    Ok(match n {
        Int::Small(-1) => Ok(u32::MAX),
        // What fits a C long but not the id, negative or not, is "less than minimum".
        Int::Small(n) => u32::try_from(n).map_err(|_| IdRange::Less),
        Int::Big(b) if b.sign() == num_bigint::Sign::Minus => Err(IdRange::Less),
        Int::Big(_) => Err(IdRange::Greater),
    })
}

/// `_PyLong_FromUid`: the id of all ones is -1.
fn id_value(id: u32) -> Value {
    match id {
        u32::MAX => Value::Int(-1),
        id => Value::Int(id.into()),
    }
}

/// The C library's text as a str.
///
/// # Safety
/// `p` is null or points at a NUL-terminated string.
unsafe fn text(p: *const c_char) -> Value {
    if p.is_null() {
        return Value::None;
    }
    // SAFETY: the caller's promise.
    let bytes = unsafe { CStr::from_ptr(p) }.to_bytes();
    Value::str(String::from_utf8_lossy(bytes).into_owned())
}

/// The entry's seven fields.
///
/// # Safety
/// `p`'s strings are NUL-terminated (or null), as the C library fills them.
unsafe fn passwd_items(p: &libc::passwd) -> Vec<Value> {
    // SAFETY: the caller's promise, for each string.
    unsafe {
        vec![
            text(p.pw_name),
            text(p.pw_passwd),
            id_value(p.pw_uid),
            id_value(p.pw_gid),
            text(p.pw_gecos),
            text(p.pw_dir),
            text(p.pw_shell),
        ]
    }
}

/// The entry's four fields, its members a list.
///
/// # Safety
/// `g`'s strings are NUL-terminated (or null) and `gr_mem` a null-terminated array of
/// them (or null), as the C library fills them.
unsafe fn group_items(g: &libc::group) -> Vec<Value> {
    let mut members = Vec::new();
    let mut p = g.gr_mem;
    // SAFETY: the caller's promise: each element up to the null one is a string.
    unsafe {
        while !p.is_null() && !(*p).is_null() {
            members.push(text(*p));
            p = p.add(1);
        }
        vec![
            text(g.gr_name),
            text(g.gr_passwd),
            id_value(g.gr_gid),
            Value::list(members),
        ]
    }
}

/// Runs a `get…_r` look-up with a buffer that grows while the C library answers ERANGE:
/// the entry's fields, or None when there is none (or the look-up failed otherwise).
fn look_up<E>(
    mut call: impl FnMut(&mut E, &mut [c_char], &mut *mut E) -> i32,
    fields: impl Fn(&E) -> Vec<Value>,
) -> Option<Vec<Value>> {
    let mut size = 1024;
    loop {
        let mut buffer: Vec<c_char> = vec![0; size];
        // SAFETY: `passwd` and `group` are plain C structs of pointers and ints, for which
        // all zeroes is a valid value; the look-up fills them.
        let mut entry: E = unsafe { std::mem::zeroed() };
        let mut found: *mut E = std::ptr::null_mut();
        let status = call(&mut entry, &mut buffer, &mut found);
        if status == libc::ERANGE && size < (1 << 24) {
            size *= 4;
            continue;
        }
        if status != 0 || found.is_null() {
            return None;
        }
        // The strings point into `buffer`, alive until this returns.
        return Some(fields(&entry));
    }
}

fn passwd_by_uid(uid: u32) -> Option<Vec<Value>> {
    look_up(
        |entry, buffer, found| {
            // SAFETY: every pointer is to a live local of `look_up`, `buffer` of the length
            // passed.
            unsafe { libc::getpwuid_r(uid, entry, buffer.as_mut_ptr(), buffer.len(), found) }
        },
        // SAFETY: the C library filled the entry.
        |entry| unsafe { passwd_items(entry) },
    )
}

fn passwd_by_name(name: &CStr) -> Option<Vec<Value>> {
    look_up(
        |entry, buffer, found| {
            // SAFETY: as in `passwd_by_uid`; `name` is NUL-terminated.
            unsafe {
                libc::getpwnam_r(
                    name.as_ptr(),
                    entry,
                    buffer.as_mut_ptr(),
                    buffer.len(),
                    found,
                )
            }
        },
        // SAFETY: the C library filled the entry.
        |entry| unsafe { passwd_items(entry) },
    )
}

fn group_by_gid(gid: u32) -> Option<Vec<Value>> {
    look_up(
        |entry, buffer, found| {
            // SAFETY: as in `passwd_by_uid`.
            unsafe { libc::getgrgid_r(gid, entry, buffer.as_mut_ptr(), buffer.len(), found) }
        },
        // SAFETY: the C library filled the entry.
        |entry| unsafe { group_items(entry) },
    )
}

fn group_by_name(name: &CStr) -> Option<Vec<Value>> {
    look_up(
        |entry, buffer, found| {
            // SAFETY: as in `passwd_by_uid`; `name` is NUL-terminated.
            unsafe {
                libc::getgrnam_r(
                    name.as_ptr(),
                    entry,
                    buffer.as_mut_ptr(),
                    buffer.len(),
                    found,
                )
            }
        },
        // SAFETY: the C library filled the entry.
        |entry| unsafe { group_items(entry) },
    )
}

/// A name argument as a C string: "embedded null byte" for one with a NUL in it.
fn c_name(vm: &Vm, name: &str) -> PyResult<CString> {
    CString::new(name).map_err(|_| vm.value_error("embedded null byte"))
}

/// A `KeyError` with `message` as its argument.
fn not_found(vm: &Vm, message: String) -> Exc {
    vm.key_error(Value::str(message))
}

/// `pwd.getpwuid(uid)`.
fn getpwuid(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    Signature::one("pwd", "getpwuid").check(vm, args, kw)?;
    let uid = match id_arg(vm, &args[0], "uid")? {
        Ok(uid) => uid,
        // CPython turns the OverflowError into this, without the number.
        Err(_) => return Err(not_found(vm, "getpwuid(): uid not found".into())),
    };
    match passwd_by_uid(uid) {
        Some(items) => structseq::instance(vm, "pwd", "struct_passwd", items),
        None => {
            let shown = vm.repr(&id_value(uid))?;
            Err(not_found(vm, format!("getpwuid(): uid not found: {shown}")))
        }
    }
}

/// `pwd.getpwnam(name)`.
fn getpwnam(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    Signature::one("pwd", "getpwnam").check(vm, args, kw)?;
    let Some(name) = args[0].as_str() else {
        return Err(vm.type_error(format!(
            "getpwnam() argument must be str, not {}",
            vm.type_name(&args[0])
        )));
    };
    let c = c_name(vm, name)?;
    match passwd_by_name(&c) {
        Some(items) => structseq::instance(vm, "pwd", "struct_passwd", items),
        None => {
            let shown = vm.repr(&args[0])?;
            Err(not_found(
                vm,
                format!("getpwnam(): name not found: {shown}"),
            ))
        }
    }
}

/// `pwd.getpwall()`: every entry, in the database's order.
fn getpwall(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    Signature::no_args("pwd", "getpwall").check(vm, args, kw)?;
    let mut entries = Vec::new();
    {
        let _walk = DATABASE_WALK.lock().unwrap_or_else(|e| e.into_inner());
        // SAFETY: the walk's cursor is the process's, and the lock keeps it to this one
        // walk; each entry is read before the next call overwrites it.
        unsafe {
            libc::setpwent();
            loop {
                let p = libc::getpwent();
                if p.is_null() {
                    break;
                }
                entries.push(passwd_items(&*p));
            }
            libc::endpwent();
        }
    }
    let mut list = Vec::with_capacity(entries.len());
    for items in entries {
        list.push(structseq::instance(vm, "pwd", "struct_passwd", items)?);
    }
    Ok(Value::list(list))
}

/// `grp.getgrgid(id)`.
fn getgrgid(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let bound = Signature::keywords("grp", "getgrgid", &["id"], 1, 0).bind(vm, args, kw)?;
    let id = bound[0].clone().unwrap_or(Value::None);
    let gid = match id_arg(vm, &id, "gid")? {
        Ok(gid) => gid,
        Err(IdRange::Less) => return Err(vm.overflow_error("gid is less than minimum")),
        Err(IdRange::Greater) => return Err(vm.overflow_error("gid is greater than maximum")),
    };
    match group_by_gid(gid) {
        Some(items) => structseq::instance(vm, "grp", "struct_group", items),
        None => {
            let shown = vm.repr(&id_value(gid))?;
            Err(not_found(vm, format!("getgrgid(): gid not found: {shown}")))
        }
    }
}

/// `grp.getgrnam(name)`.
fn getgrnam(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let bound = Signature::keywords("grp", "getgrnam", &["name"], 1, 0).bind(vm, args, kw)?;
    let name_value = bound[0].clone().unwrap_or(Value::None);
    let Some(name) = name_value.as_str() else {
        return Err(vm.type_error(format!(
            "getgrnam() argument 1 must be str, not {}",
            vm.type_name(&name_value)
        )));
    };
    let c = c_name(vm, name)?;
    match group_by_name(&c) {
        Some(items) => structseq::instance(vm, "grp", "struct_group", items),
        None => {
            let shown = vm.repr(&name_value)?;
            Err(not_found(
                vm,
                format!("getgrnam(): name not found: {shown}"),
            ))
        }
    }
}

/// `grp.getgrall()`: every entry, in the database's order.
fn getgrall(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    Signature::no_args("grp", "getgrall").check(vm, args, kw)?;
    let mut entries = Vec::new();
    {
        let _walk = DATABASE_WALK.lock().unwrap_or_else(|e| e.into_inner());
        // SAFETY: as in `getpwall`.
        unsafe {
            libc::setgrent();
            loop {
                let g = libc::getgrent();
                if g.is_null() {
                    break;
                }
                entries.push(group_items(&*g));
            }
            libc::endgrent();
        }
    }
    let mut list = Vec::with_capacity(entries.len());
    for items in entries {
        list.push(structseq::instance(vm, "grp", "struct_group", items)?);
    }
    Ok(Value::list(list))
}
