//! `_sqlite3`: the native core under `sqlite3` (src/stdlib/sqlite3_dbapi2.apy), a thin safe
//! layer over SQLite's C API (the bundled amalgamation of `libsqlite3-sys`). It mirrors the
//! C calls of CPython's `Modules/_sqlite/` (`connection.c`, `cursor.c`, `statement.c`,
//! `util.c`): opening and closing a database, preparing, binding, stepping and reading a
//! statement, user functions and aggregates, the trace callback, and SQLite's errors turned
//! into the `sqlite3` exception the library's error factory makes (`_pysqlite_seterror`).
//! `Connection`, `Cursor` and `Row` are written in apy above it.
//!
//! In: Python values. Out: two opaque handle types, `Database` and `Statement`, and values.
//! Every pointer SQLite hands out lives in one of them and is checked before use, so no
//! Python input reaches the C API in a state it forbids. Not in the browser build.

use std::cell::{Cell, RefCell};
use std::ffi::{CStr, CString, c_char, c_int, c_void};
use std::ptr;
use std::rc::Rc;

use libsqlite3_sys as ffi;

use super::bytes_type::bytes_of;
use super::sqlite_codes::{ERROR_CODES, OTHER_CONSTANTS};
use crate::vm::object::{KwArgs, Layout, Object, ObjectKind, PyType};
use crate::vm::sandbox::Capability;
use crate::vm::types::make_type;
use crate::vm::value::Value;
use crate::vm::{Exc, PyResult, Vm};

unsafe extern "C" {
    /// In the bundled library but left out of `libsqlite3-sys`'s bindings: `sqlite3_close`
    /// refuses while statements are alive, and Python objects may keep theirs longer than
    /// the connection is open.
    fn sqlite3_close_v2(db: *mut ffi::sqlite3) -> c_int;
}

/// An open database (`pysqlite_Connection.db`): null once closed. Statements hold it, so
/// it outlives them; `sqlite3_close_v2` leaves SQLite's side alive until the last of them is
/// finalized.
struct DbHandle {
    db: Cell<*mut ffi::sqlite3>,
    /// The trace callback's callable, which SQLite holds a pointer to while it is set.
    trace: RefCell<Option<Box<Value>>>,
}

impl DbHandle {
    fn close(&self) -> c_int {
        let db = self.db.replace(ptr::null_mut());
        if db.is_null() {
            return ffi::SQLITE_OK;
        }
        // SAFETY: `db` came from `sqlite3_open_v2` and is closed once (the cell is now
        // null); the trace callback is removed first, so SQLite keeps no pointer into
        // `self.trace`, whose box is dropped after.
        let rc = unsafe {
            ffi::sqlite3_trace_v2(db, 0, None, ptr::null_mut());
            sqlite3_close_v2(db)
        };
        let trace = self.trace.borrow_mut().take();
        drop(trace);
        rc
    }
}

impl Drop for DbHandle {
    fn drop(&mut self) {
        self.close();
    }
}

/// A `Database` handle object's payload.
struct Database(Rc<DbHandle>);

/// A prepared statement (`pysqlite_Statement`). `st` is null when the SQL held no
/// statement (only blanks and comments), or once finalized.
struct Statement {
    db: Rc<DbHandle>,
    st: Cell<*mut ffi::sqlite3_stmt>,
    /// INSERT, UPDATE, DELETE or REPLACE: the statements before which the legacy
    /// transaction control opens a transaction, and whose changes `rowcount` counts.
    is_dml: bool,
    /// Inside `sqlite3_step`: a user function reaching this statement may not reset,
    /// bind, step or finalize it then.
    running: Cell<bool>,
}

impl Statement {
    fn finalize(&self) {
        let st = self.st.replace(ptr::null_mut());
        if !st.is_null() {
            // SAFETY: `st` came from `sqlite3_prepare_v2` on `self.db`, which this
            // statement keeps alive, and is finalized once (the cell is now null).
            unsafe { ffi::sqlite3_finalize(st) };
        }
    }
}

impl Drop for Statement {
    fn drop(&mut self) {
        self.finalize();
    }
}

thread_local! {
    /// The handle classes, `_sqlite3.Database` and `_sqlite3.Statement`.
    static CLASSES: RefCell<Option<(Rc<PyType>, Rc<PyType>)>> = const { RefCell::new(None) };
    /// `sqlite3.dbapi2._error(code_or_class_name, errorname, message)`: makes the
    /// exception instance an error is raised as.
    static ERROR_FACTORY: RefCell<Value> = const { RefCell::new(Value::None) };
    /// The VM of the native call now inside SQLite, for the callbacks SQLite makes from
    /// there (user functions, aggregates, the trace): null outside such a call.
    static CURRENT_VM: Cell<*mut Vm> = const { Cell::new(ptr::null_mut()) };
}

/// Sets [`CURRENT_VM`] for the time of one call into SQLite, and puts back what was there
/// (a user function may itself use SQLite) when dropped.
struct VmGuard(*mut Vm);

impl VmGuard {
    fn enter(vm: &mut Vm) -> VmGuard {
        VmGuard(CURRENT_VM.replace(vm as *mut Vm))
    }
}

impl Drop for VmGuard {
    fn drop(&mut self) {
        CURRENT_VM.set(self.0);
    }
}

/// Runs `f` with the VM of the native call SQLite is calling back from; None when there is
/// none (SQLite calls back only from inside such a call, so never in practice).
fn with_vm<R>(f: impl FnOnce(&mut Vm) -> R) -> Option<R> {
    let p = CURRENT_VM.get();
    if p.is_null() {
        return None;
    }
    // SAFETY: CURRENT_VM is set only by a VmGuard, from the `&mut Vm` of a native function
    // that is inside a call into SQLite on this thread and does not use that reference
    // until SQLite returns; SQLite calls back only from inside that call, on this thread.
    Some(f(unsafe { &mut *p }))
}

// ---- errors ---------------------------------------------------------------------------

/// The exception the library's factory makes for `kind` (a class name, or an SQLite
/// result code with its `name`).
fn make_error(vm: &mut Vm, kind: Value, name: Value, message: &str) -> Exc {
    let factory = ERROR_FACTORY.with(|f| f.borrow().clone());
    if matches!(factory, Value::None) {
        return vm.runtime_error(message.to_string());
    }
    match vm.call(&factory, &[kind, name, Value::str(message)], &[]) {
        Ok(Value::Object(o)) if matches!(o.kind, ObjectKind::Exception(_)) => o,
        Ok(_) => vm.type_error("sqlite3's error factory did not make an exception"),
        Err(e) => e,
    }
}

/// `sqlite3.<class_name>(message)`.
fn error_of(vm: &mut Vm, class_name: &str, message: &str) -> Exc {
    make_error(vm, Value::str(class_name), Value::None, message)
}

fn closed_error(vm: &mut Vm) -> Exc {
    error_of(
        vm,
        "ProgrammingError",
        "Cannot operate on a closed database.",
    )
}

/// The name CPython gives an SQLite result code (`pysqlite_error_name`).
fn error_name(code: c_int) -> Option<&'static str> {
    ERROR_CODES
        .binary_search_by_key(&code, |&(c, _)| c)
        .ok()
        .map(|i| ERROR_CODES[i].1)
}

/// `_pysqlite_seterror`: the database's last error as the exception for its code.
fn db_error(vm: &mut Vm, db: *mut ffi::sqlite3) -> Exc {
    // SAFETY: `db` is an open handle (callers check), and `sqlite3_errmsg` returns a
    // NUL-terminated string that stays valid until the next call on `db`, copied here.
    let (code, message) = unsafe {
        let code = ffi::sqlite3_extended_errcode(db);
        let text = ffi::sqlite3_errmsg(db);
        let message = if text.is_null() {
            String::from("out of memory")
        } else {
            CStr::from_ptr(text).to_string_lossy().into_owned()
        };
        (code, message)
    };
    if code & 0xff == ffi::SQLITE_NOMEM {
        return vm.new_exc(&vm.types.memory_error.clone(), "");
    }
    let name = error_name(code).map_or(Value::None, Value::str);
    make_error(vm, Value::Int(code.into()), name, &message)
}

// ---- arguments ------------------------------------------------------------------------

fn arg<'a>(vm: &Vm, args: &'a [Value], i: usize) -> PyResult<&'a Value> {
    args.get(i)
        .ok_or_else(|| vm.type_error("_sqlite3: missing argument"))
}

fn handle(vm: &Vm, args: &[Value], i: usize) -> PyResult<Rc<DbHandle>> {
    arg(vm, args, i)?
        .native::<Database>()
        .map(|d| d.0.clone())
        .ok_or_else(|| vm.type_error("_sqlite3: expected a Database"))
}

/// The open database of argument `i`, or "Cannot operate on a closed database.".
fn open_db(vm: &mut Vm, args: &[Value], i: usize) -> PyResult<(Rc<DbHandle>, *mut ffi::sqlite3)> {
    let h = handle(vm, args, i)?;
    let db = h.db.get();
    if db.is_null() {
        return Err(closed_error(vm));
    }
    Ok((h, db))
}

fn statement<'a>(vm: &Vm, args: &'a [Value], i: usize) -> PyResult<&'a Statement> {
    arg(vm, args, i)?
        .native::<Statement>()
        .ok_or_else(|| vm.type_error("_sqlite3: expected a Statement"))
}

/// The statement of argument `i` and its database, which must be open; the statement
/// pointer is null for an empty statement.
fn live_statement<'a>(
    vm: &mut Vm,
    args: &'a [Value],
    i: usize,
) -> PyResult<(&'a Statement, *mut ffi::sqlite3_stmt)> {
    let s = statement(vm, args, i)?;
    if s.db.db.get().is_null() {
        return Err(closed_error(vm));
    }
    not_running(vm, s)?;
    Ok((s, s.st.get()))
}

/// "Recursive use of cursors not allowed." for a statement now stepping.
fn not_running(vm: &mut Vm, s: &Statement) -> PyResult<()> {
    if s.running.get() {
        return Err(error_of(
            vm,
            "ProgrammingError",
            "Recursive use of cursors not allowed.",
        ));
    }
    Ok(())
}

fn str_arg<'a>(vm: &Vm, args: &'a [Value], i: usize) -> PyResult<&'a str> {
    match arg(vm, args, i)? {
        Value::Str(s) => Ok(s.as_str()),
        other => Err(vm.type_error(format!(
            "argument {} must be str, not {}",
            i + 1,
            vm.arg_type_name(other)
        ))),
    }
}

fn int_arg(vm: &Vm, args: &[Value], i: usize) -> PyResult<i64> {
    match arg(vm, args, i)? {
        Value::Int(n) => Ok(*n),
        Value::Bool(b) => Ok(i64::from(*b)),
        other => Err(vm.type_error(format!(
            "argument {} must be int, not {}",
            i + 1,
            vm.arg_type_name(other)
        ))),
    }
}

/// A flag the library passes as a bool.
fn flag(v: &Value) -> bool {
    matches!(v, Value::Bool(true) | Value::Int(1..))
}

/// A C string of `text`, or CPython's ValueError for one with a NUL in it.
fn c_string(vm: &Vm, text: &str) -> PyResult<CString> {
    CString::new(text).map_err(|_| vm.value_error("embedded null character"))
}

fn c_int_of(vm: &Vm, n: i64) -> PyResult<c_int> {
    c_int::try_from(n).map_err(|_| {
        vm.new_exc(
            &vm.types.overflow_error,
            "Python int too large to convert to C int",
        )
    })
}

fn new_handle<T: 'static>(vm: &Vm, second: bool, state: T) -> Value {
    let class = CLASSES
        .with(|c| c.borrow().clone())
        .map(|(d, s)| if second { s } else { d })
        .unwrap_or_else(|| vm.types.object.clone());
    Value::object(Object::new(class, ObjectKind::Other(Box::new(state))))
}

// ---- SQL text -------------------------------------------------------------------------

/// `lstrip_sql`: `sql` past blanks and comments, or None when nothing else is left.
fn lstrip_sql(sql: &[u8]) -> Option<usize> {
    let mut pos = 0;
    while pos < sql.len() {
        match sql[pos] {
            b' ' | b'\t' | b'\x0c' | b'\n' | b'\r' => pos += 1,
            b'-' if sql.get(pos + 1) == Some(&b'-') => {
                let end = sql[pos..].iter().position(|&c| c == b'\n')?;
                pos += end + 1;
            }
            b'/' if sql.get(pos + 1) == Some(&b'*') => {
                let body = sql.get(pos + 2..).unwrap_or_default();
                let end = body.windows(2).position(|w| w == b"*/")?;
                pos += 2 + end + 2;
            }
            _ => return Some(pos),
        }
    }
    None
}

/// Whether the statement starts with INSERT, UPDATE, DELETE or REPLACE (`statement.c`).
fn is_dml(sql: &str) -> bool {
    let bytes = sql.as_bytes();
    let Some(start) = lstrip_sql(bytes) else {
        return false;
    };
    let rest = &bytes[start..];
    ["insert", "update", "delete", "replace"]
        .iter()
        .any(|word| {
            rest.get(..word.len())
                .is_some_and(|head| head.eq_ignore_ascii_case(word.as_bytes()))
        })
}

// ---- values in and out ----------------------------------------------------------------

/// A column of the current row (`_pysqlite_fetch_one_row`'s conversions).
fn column_value(
    vm: &mut Vm,
    st: *mut ffi::sqlite3_stmt,
    i: c_int,
    text_factory: &Value,
    converter: Option<&Value>,
) -> PyResult<Value> {
    // SAFETY: `st` is a live statement positioned on a row, and `i` is below its column
    // count (the callers loop over `sqlite3_column_count`); the blob and text pointers are
    // read, with their lengths from `sqlite3_column_bytes`, before any other call on `st`.
    unsafe {
        let kind = ffi::sqlite3_column_type(st, i);
        let raw = |st: *mut ffi::sqlite3_stmt| -> Vec<u8> {
            let p = ffi::sqlite3_column_blob(st, i) as *const u8;
            let n = ffi::sqlite3_column_bytes(st, i);
            if p.is_null() || n <= 0 {
                Vec::new()
            } else {
                std::slice::from_raw_parts(p, n as usize).to_vec()
            }
        };
        if let Some(converter) = converter
            && kind != ffi::SQLITE_NULL
        {
            let data = raw(st);
            let data = vm.new_bytes(data);
            return vm.call(converter, &[data], &[]);
        }
        match kind {
            ffi::SQLITE_NULL => Ok(Value::None),
            ffi::SQLITE_INTEGER => Ok(Value::Int(ffi::sqlite3_column_int64(st, i))),
            ffi::SQLITE_FLOAT => Ok(Value::Float(ffi::sqlite3_column_double(st, i))),
            ffi::SQLITE_TEXT => {
                let p = ffi::sqlite3_column_text(st, i);
                let n = ffi::sqlite3_column_bytes(st, i);
                let data = if p.is_null() || n <= 0 {
                    Vec::new()
                } else {
                    std::slice::from_raw_parts(p, n as usize).to_vec()
                };
                text_value(vm, st, i, data, text_factory)
            }
            _ => {
                let data = raw(st);
                Ok(vm.new_bytes(data))
            }
        }
    }
}

/// A TEXT column through the connection's `text_factory`.
fn text_value(
    vm: &mut Vm,
    st: *mut ffi::sqlite3_stmt,
    i: c_int,
    data: Vec<u8>,
    text_factory: &Value,
) -> PyResult<Value> {
    let is = |ty: &Rc<PyType>| matches!(text_factory, Value::Type(t) if Rc::ptr_eq(t, ty));
    if is(&vm.types.str) {
        return match String::from_utf8(data) {
            Ok(text) => Ok(Value::str(text)),
            Err(e) => {
                // SAFETY: `st` is live and `i` one of its columns (see `column_value`).
                let name = unsafe {
                    let p = ffi::sqlite3_column_name(st, i);
                    if p.is_null() {
                        String::new()
                    } else {
                        CStr::from_ptr(p).to_string_lossy().into_owned()
                    }
                };
                let text = String::from_utf8_lossy(e.as_bytes()).into_owned();
                Err(error_of(
                    vm,
                    "OperationalError",
                    &format!("Could not decode to UTF-8 column '{name}' with text '{text}'"),
                ))
            }
        };
    }
    let bytes = vm.new_bytes(data);
    if is(&vm.types.bytes) {
        return Ok(bytes);
    }
    vm.call(text_factory, &[bytes], &[])
}

/// An argument of a user function (`_pysqlite_build_py_params`).
///
/// # Safety
/// `value` must be one of the arguments SQLite passed to the running callback.
unsafe fn argument_value(vm: &mut Vm, value: *mut ffi::sqlite3_value) -> Value {
    // SAFETY: per the contract, `value` is valid for the callback's duration; the text and
    // blob pointers are read with their lengths before any other call on it.
    unsafe {
        let bytes = |p: *const u8| -> Vec<u8> {
            let n = ffi::sqlite3_value_bytes(value);
            if p.is_null() || n <= 0 {
                Vec::new()
            } else {
                std::slice::from_raw_parts(p, n as usize).to_vec()
            }
        };
        match ffi::sqlite3_value_type(value) {
            ffi::SQLITE_INTEGER => Value::Int(ffi::sqlite3_value_int64(value)),
            ffi::SQLITE_FLOAT => Value::Float(ffi::sqlite3_value_double(value)),
            ffi::SQLITE_TEXT => {
                let data = bytes(ffi::sqlite3_value_text(value));
                Value::str(String::from_utf8_lossy(&data).into_owned())
            }
            ffi::SQLITE_BLOB => {
                let data = bytes(ffi::sqlite3_value_blob(value) as *const u8);
                vm.new_bytes(data)
            }
            _ => Value::None,
        }
    }
}

/// The arguments of a user function as Python values.
///
/// # Safety
/// `argv` must point to `argc` values, as SQLite passes them to a callback.
unsafe fn arguments(vm: &mut Vm, argc: c_int, argv: *mut *mut ffi::sqlite3_value) -> Vec<Value> {
    let n = usize::try_from(argc).unwrap_or(0);
    if argv.is_null() {
        return Vec::new();
    }
    // SAFETY: per the contract, `argv` holds `argc` valid values.
    let values = unsafe { std::slice::from_raw_parts(argv, n) };
    values
        .iter()
        // SAFETY: each is one of the callback's arguments.
        .map(|&v| unsafe { argument_value(vm, v) })
        .collect()
}

/// What went wrong in a user function: its message, or SQLite's own result for memory
/// and size errors (`set_sqlite_error`).
///
/// # Safety
/// `ctx` must be the running callback's context.
unsafe fn set_error(vm: &Vm, ctx: *mut ffi::sqlite3_context, error: Option<&Exc>, message: &str) {
    let is = |ty: &Rc<PyType>| error.is_some_and(|e| vm.isinstance(&Value::Object(e.clone()), ty));
    // SAFETY: per the contract, `ctx` is valid; the message is copied by SQLite (length
    // given, -1 never used with a non-terminated string).
    unsafe {
        if is(&vm.types.memory_error) {
            ffi::sqlite3_result_error_nomem(ctx);
        } else if is(&vm.types.overflow_error) {
            ffi::sqlite3_result_error_toobig(ctx);
        } else {
            ffi::sqlite3_result_error(
                ctx,
                message.as_ptr() as *const c_char,
                message.len() as c_int,
            );
        }
    }
}

/// `_pysqlite_set_result`: a user function's value as the SQL result; false when it is of
/// a type SQLite cannot take (or an int past 64 bits: OverflowError, as the caller says).
///
/// # Safety
/// `ctx` must be the running callback's context.
unsafe fn set_result(
    vm: &mut Vm,
    ctx: *mut ffi::sqlite3_context,
    v: &Value,
) -> Result<(), Option<Exc>> {
    // SAFETY: per the contract, `ctx` is valid; text and blobs are copied by SQLite
    // (SQLITE_TRANSIENT), with their lengths given.
    unsafe {
        match v {
            Value::None => ffi::sqlite3_result_null(ctx),
            Value::Bool(b) => ffi::sqlite3_result_int64(ctx, i64::from(*b)),
            Value::Int(n) => ffi::sqlite3_result_int64(ctx, *n),
            Value::BigInt(_) => {
                return Err(Some(vm.new_exc(
                    &vm.types.overflow_error,
                    "Python int too large to convert to SQLite INTEGER",
                )));
            }
            Value::Float(f) => ffi::sqlite3_result_double(ctx, *f),
            Value::Str(s) => {
                let text = s.as_str();
                ffi::sqlite3_result_text64(
                    ctx,
                    text.as_ptr() as *const c_char,
                    text.len() as u64,
                    ffi::SQLITE_TRANSIENT(),
                    ffi::SQLITE_UTF8 as u8,
                );
            }
            other => match bytes_of(other) {
                Some(data) => ffi::sqlite3_result_blob64(
                    ctx,
                    data.as_ptr() as *const c_void,
                    data.len() as u64,
                    ffi::SQLITE_TRANSIENT(),
                ),
                None => return Err(None),
            },
        }
    }
    Ok(())
}

type ScalarCallback =
    Option<unsafe extern "C" fn(*mut ffi::sqlite3_context, c_int, *mut *mut ffi::sqlite3_value)>;
type FinalCallback = Option<unsafe extern "C" fn(*mut ffi::sqlite3_context)>;

/// Frees a callable SQLite held (a function's or aggregate's `pApp`).
unsafe extern "C" fn destroy_value(p: *mut c_void) {
    if !p.is_null() {
        // SAFETY: every `pApp` given with this destructor is a `Box<Value>` made by
        // `Box::into_raw`, and SQLite calls the destructor once.
        drop(unsafe { Box::from_raw(p as *mut Value) });
    }
}

/// `func_callback`: a scalar user function called from SQL.
unsafe extern "C" fn call_function(
    ctx: *mut ffi::sqlite3_context,
    argc: c_int,
    argv: *mut *mut ffi::sqlite3_value,
) {
    // SAFETY: SQLite passes this callback's own context and arguments; `pApp` is the
    // `Box<Value>` given to `sqlite3_create_function_v2`, alive while the function is.
    unsafe {
        // A clone: the call may replace the function or close the database.
        let func = (*(ffi::sqlite3_user_data(ctx) as *const Value)).clone();
        let done = with_vm(|vm| {
            let args = arguments(vm, argc, argv);
            let outcome = match vm.call(&func, &args, &[]) {
                Ok(v) => set_result(vm, ctx, &v),
                Err(e) => Err(Some(e)),
            };
            if let Err(e) = outcome {
                set_error(
                    vm,
                    ctx,
                    e.as_ref(),
                    "user-defined function raised exception",
                );
            }
        });
        if done.is_none() {
            set_error_plain(ctx, "user-defined function raised exception");
        }
    }
}

/// # Safety
/// `ctx` must be the running callback's context.
unsafe fn set_error_plain(ctx: *mut ffi::sqlite3_context, message: &str) {
    // SAFETY: per the contract; the message's length is given.
    unsafe {
        ffi::sqlite3_result_error(
            ctx,
            message.as_ptr() as *const c_char,
            message.len() as c_int,
        )
    };
}

/// `step_callback`: one row into an aggregate, made (by calling its class) on the first.
unsafe extern "C" fn aggregate_step(
    ctx: *mut ffi::sqlite3_context,
    argc: c_int,
    argv: *mut *mut ffi::sqlite3_value,
) {
    // SAFETY: as in `call_function`; the aggregate context is SQLite's zeroed memory of
    // one pointer, which holds null or a `Box<Value>` made here and taken back in
    // `aggregate_final`.
    unsafe {
        let class = (*(ffi::sqlite3_user_data(ctx) as *const Value)).clone();
        let slot = ffi::sqlite3_aggregate_context(ctx, std::mem::size_of::<*mut Value>() as c_int)
            as *mut *mut Value;
        if slot.is_null() {
            ffi::sqlite3_result_error_nomem(ctx);
            return;
        }
        let done = with_vm(|vm| {
            if (*slot).is_null() {
                match vm.call(&class, &[], &[]) {
                    Ok(instance) => *slot = Box::into_raw(Box::new(instance)),
                    Err(e) => {
                        let message = "user-defined aggregate's '__init__' method raised error";
                        set_error(vm, ctx, Some(&e), message);
                        return;
                    }
                }
            }
            let instance = (**slot).clone();
            let args = arguments(vm, argc, argv);
            if let Err(e) = vm.call_method(&instance, "step", &args) {
                let message = if vm.isinstance(&Value::Object(e.clone()), &vm.types.attribute_error)
                {
                    "user-defined aggregate's 'step' method not defined"
                } else {
                    "user-defined aggregate's 'step' method raised error"
                };
                set_error(vm, ctx, Some(&e), message);
            }
        });
        if done.is_none() {
            set_error_plain(ctx, "user-defined aggregate's 'step' method raised error");
        }
    }
}

/// `final_callback`: the aggregate's `finalize()` as the result (NULL when no row came).
unsafe extern "C" fn aggregate_final(ctx: *mut ffi::sqlite3_context) {
    // SAFETY: as in `aggregate_step`; asking for 0 bytes gives null when no step ran.
    unsafe {
        let slot = ffi::sqlite3_aggregate_context(ctx, 0) as *mut *mut Value;
        if slot.is_null() || (*slot).is_null() {
            return;
        }
        let instance = Box::from_raw(*slot);
        *slot = ptr::null_mut();
        with_vm(|vm| {
            let outcome = match vm.call_method(&instance, "finalize", &[]) {
                Ok(v) => set_result(vm, ctx, &v),
                Err(e) => Err(Some(e)),
            };
            if let Err(e) = outcome {
                let attr = e.as_ref().is_some_and(|e| {
                    vm.isinstance(&Value::Object(e.clone()), &vm.types.attribute_error)
                });
                let message = if attr {
                    "user-defined aggregate's 'finalize' method not defined"
                } else {
                    "user-defined aggregate's 'finalize' method raised error"
                };
                set_error(vm, ctx, e.as_ref(), message);
            }
        });
    }
}

/// `trace_callback`: each statement SQLite starts, as its text with the parameters
/// filled in, to the callable given to `set_trace_callback`.
unsafe extern "C" fn trace(
    kind: u32,
    ctx: *mut c_void,
    stmt: *mut c_void,
    sql: *mut c_void,
) -> c_int {
    if kind != ffi::SQLITE_TRACE_STMT || ctx.is_null() {
        return 0;
    }
    // SAFETY: `ctx` is the `Box<Value>` kept in the database's `trace` cell while the
    // callback is set; `stmt` is the statement starting and `sql` its NUL-terminated text,
    // as `sqlite3_trace_v2` documents for SQLITE_TRACE_STMT. The expanded text is freed
    // with `sqlite3_free`, as SQLite requires.
    unsafe {
        // A clone: the callback may clear itself or close the database, freeing the box.
        let func = (*(ctx as *const Value)).clone();
        let expanded = ffi::sqlite3_expanded_sql(stmt as *mut ffi::sqlite3_stmt);
        let text = if expanded.is_null() {
            if sql.is_null() {
                return 0;
            }
            CStr::from_ptr(sql as *const c_char)
                .to_string_lossy()
                .into_owned()
        } else {
            let text = CStr::from_ptr(expanded).to_string_lossy().into_owned();
            ffi::sqlite3_free(expanded as *mut c_void);
            text
        };
        with_vm(|vm| {
            // An error in the callback is dropped, as CPython does without
            // `enable_callback_tracebacks`.
            let _ = vm.call(&func, &[Value::str(text)], &[]);
        });
    }
    0
}

// ---- the module's functions -------------------------------------------------------------

/// `open(path, uri, timeout)`: a Database (`pysqlite_connection_init`).
fn open(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    let text = str_arg(vm, args, 0)?;
    let uri = flag(arg(vm, args, 1)?);
    let in_memory = text == ":memory:"
        || (uri && (text.starts_with("file::memory:") || text.contains("mode=memory")));
    if !in_memory {
        vm.require(Capability::Files, text)?;
    }
    let path = c_string(vm, text)?;
    let timeout = match arg(vm, args, 2)? {
        Value::Float(f) => *f,
        Value::Int(n) => *n as f64,
        _ => 5.0,
    };
    let mut flags = ffi::SQLITE_OPEN_READWRITE | ffi::SQLITE_OPEN_CREATE;
    if uri {
        flags |= ffi::SQLITE_OPEN_URI;
    }
    let mut db = ptr::null_mut();
    // SAFETY: `path` is NUL-terminated and `db` an out-pointer; a null VFS is the default.
    let rc = unsafe { ffi::sqlite3_open_v2(path.as_ptr(), &mut db, flags, ptr::null()) };
    let h = Rc::new(DbHandle {
        db: Cell::new(db),
        trace: RefCell::new(None),
    });
    if db.is_null() {
        return Err(vm.new_exc(&vm.types.memory_error.clone(), ""));
    }
    if rc != ffi::SQLITE_OK {
        // `h` closes the handle SQLite gave even on failure.
        return Err(db_error(vm, db));
    }
    let ms = (timeout * 1000.0).clamp(f64::from(c_int::MIN), f64::from(c_int::MAX)) as c_int;
    // SAFETY: `db` is open. Under `--sandbox` no database may be attached, so that SQL
    // reaches no file either (`VACUUM INTO` attaches its file, and is refused too).
    unsafe {
        ffi::sqlite3_busy_timeout(db, ms);
        if vm.config.sandbox {
            ffi::sqlite3_limit(db, ffi::SQLITE_LIMIT_ATTACHED, 0);
        }
    }
    Ok(new_handle(vm, false, Database(h)))
}

/// `close(db)`.
fn close(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    let h = handle(vm, args, 0)?;
    let db = h.db.get();
    if db.is_null() {
        return Ok(Value::None);
    }
    let rc = h.close();
    if rc != ffi::SQLITE_OK {
        return Err(error_of(vm, "OperationalError", "unable to close database"));
    }
    Ok(Value::None)
}

/// `is_open(db)`.
fn is_open(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    Ok(Value::Bool(!handle(vm, args, 0)?.db.get().is_null()))
}

/// `prepare(db, sql)`: a Statement (`pysqlite_statement_create`).
fn prepare(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    let (h, db) = open_db(vm, args, 0)?;
    let sql = str_arg(vm, args, 1)?;
    // SAFETY: `db` is open; -1 only reads the limit.
    let max = unsafe { ffi::sqlite3_limit(db, ffi::SQLITE_LIMIT_SQL_LENGTH, -1) };
    if sql.len() > usize::try_from(max).unwrap_or(0) {
        return Err(error_of(vm, "DataError", "query string is too large"));
    }
    let Ok(c_sql) = CString::new(sql) else {
        return Err(error_of(
            vm,
            "ProgrammingError",
            "the query contains a null character",
        ));
    };
    let mut st = ptr::null_mut();
    let mut tail: *const c_char = ptr::null();
    let guard = VmGuard::enter(vm);
    // SAFETY: `db` is open, `c_sql` NUL-terminated with the length given counting the
    // NUL (at most the SQL length limit, checked above, so it fits a c_int), and `st`
    // and `tail` are out-pointers.
    let rc = unsafe {
        ffi::sqlite3_prepare_v2(
            db,
            c_sql.as_ptr(),
            (sql.len() + 1) as c_int,
            &mut st,
            &mut tail,
        )
    };
    drop(guard);
    let statement = Statement {
        db: h,
        st: Cell::new(st),
        is_dml: is_dml(sql),
        running: Cell::new(false),
    };
    if rc != ffi::SQLITE_OK {
        return Err(db_error(vm, db));
    }
    // SAFETY: `tail` points into `c_sql` (or is null), past the first statement.
    let rest = if tail.is_null() {
        0
    } else {
        (unsafe { tail.offset_from(c_sql.as_ptr()) }).max(0) as usize
    };
    if lstrip_sql(sql.as_bytes().get(rest..).unwrap_or_default()).is_some() {
        return Err(error_of(
            vm,
            "ProgrammingError",
            "You can only execute one statement at a time.",
        ));
    }
    Ok(new_handle(vm, true, statement))
}

/// `bind_count(stmt)`: how many parameters the statement has.
fn bind_count(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    let (_, st) = live_statement(vm, args, 0)?;
    if st.is_null() {
        return Ok(Value::Int(0));
    }
    // SAFETY: `st` is a live statement.
    Ok(Value::Int(
        unsafe { ffi::sqlite3_bind_parameter_count(st) }.into(),
    ))
}

/// `bind_name(stmt, i)`: the name of parameter `i` (from 1, with its `:`), or None.
fn bind_name(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    let (_, st) = live_statement(vm, args, 0)?;
    let i = c_int_of(vm, int_arg(vm, args, 1)?)?;
    if st.is_null() {
        return Ok(Value::None);
    }
    // SAFETY: `st` is live; an index out of range gives null; the name lives as long as
    // the statement and is copied here.
    let name = unsafe { ffi::sqlite3_bind_parameter_name(st, i) };
    if name.is_null() {
        return Ok(Value::None);
    }
    // SAFETY: a non-null name is NUL-terminated.
    let text = unsafe { CStr::from_ptr(name) }
        .to_string_lossy()
        .into_owned();
    Ok(Value::str(text))
}

/// `bind(stmt, i, value)`: binds parameter `i`; False when `value`'s type is not one
/// SQLite stores (`bind_param`).
fn bind(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    let (s, st) = live_statement(vm, args, 0)?;
    let i = c_int_of(vm, int_arg(vm, args, 1)?)?;
    let v = arg(vm, args, 2)?;
    if st.is_null() {
        return Ok(Value::Bool(true));
    }
    // SAFETY: `st` is live; text and blobs are copied (SQLITE_TRANSIENT) with their
    // lengths given; an index out of range is SQLITE_RANGE, not undefined.
    let rc = unsafe {
        match v {
            Value::None => ffi::sqlite3_bind_null(st, i),
            Value::Bool(b) => ffi::sqlite3_bind_int64(st, i, i64::from(*b)),
            Value::Int(n) => ffi::sqlite3_bind_int64(st, i, *n),
            Value::BigInt(_) => {
                return Err(vm.new_exc(
                    &vm.types.overflow_error,
                    "Python int too large to convert to SQLite INTEGER",
                ));
            }
            Value::Float(f) => ffi::sqlite3_bind_double(st, i, *f),
            Value::Str(text) => {
                let text = text.as_str();
                ffi::sqlite3_bind_text64(
                    st,
                    i,
                    text.as_ptr() as *const c_char,
                    text.len() as u64,
                    ffi::SQLITE_TRANSIENT(),
                    ffi::SQLITE_UTF8 as u8,
                )
            }
            other => match bytes_of(other) {
                Some(data) => ffi::sqlite3_bind_blob64(
                    st,
                    i,
                    data.as_ptr() as *const c_void,
                    data.len() as u64,
                    ffi::SQLITE_TRANSIENT(),
                ),
                None => return Ok(Value::Bool(false)),
            },
        }
    };
    if rc != ffi::SQLITE_OK {
        return Err(db_error(vm, s.db.db.get()));
    }
    Ok(Value::Bool(true))
}

/// `step(stmt)`: True on a row, False when done (`stmt_step`).
fn step(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    let (s, st) = live_statement(vm, args, 0)?;
    if st.is_null() {
        return Ok(Value::Bool(false));
    }
    let guard = VmGuard::enter(vm);
    s.running.set(true);
    // SAFETY: `st` is live, and stays so: while `running` is set nothing resets or
    // finalizes it, and the statement object is held by the caller's arguments.
    // Callbacks reach the VM through the guard only.
    let rc = unsafe { ffi::sqlite3_step(st) };
    s.running.set(false);
    drop(guard);
    match rc {
        ffi::SQLITE_ROW => Ok(Value::Bool(true)),
        ffi::SQLITE_DONE => Ok(Value::Bool(false)),
        _ => {
            let db = s.db.db.get();
            if db.is_null() {
                return Err(closed_error(vm));
            }
            Err(db_error(vm, db))
        }
    }
}

/// `reset(stmt)`.
fn reset(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    let s = statement(vm, args, 0)?;
    not_running(vm, s)?;
    let st = s.st.get();
    if !st.is_null() && !s.db.db.get().is_null() {
        // SAFETY: `st` is live; a reset's code repeats the last step's, ignored here as
        // CPython's `stmt_reset` ignores it.
        unsafe { ffi::sqlite3_reset(st) };
    }
    Ok(Value::None)
}

/// `finalize(stmt)`.
fn finalize(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    let s = statement(vm, args, 0)?;
    not_running(vm, s)?;
    s.finalize();
    Ok(Value::None)
}

/// `info(stmt)`: (is_dml, readonly, busy, empty).
fn info(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    let s = statement(vm, args, 0)?;
    let st = s.st.get();
    let (readonly, busy) = if st.is_null() {
        (true, false)
    } else {
        // SAFETY: `st` is a live statement (finalizing nulls the cell).
        unsafe {
            (
                ffi::sqlite3_stmt_readonly(st) != 0,
                ffi::sqlite3_stmt_busy(st) != 0,
            )
        }
    };
    Ok(Value::tuple(vec![
        Value::Bool(s.is_dml),
        Value::Bool(readonly),
        Value::Bool(busy),
        Value::Bool(st.is_null()),
    ]))
}

/// `columns(stmt)`: ((name, decltype or None), …).
fn columns(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    let (_, st) = live_statement(vm, args, 0)?;
    if st.is_null() {
        return Ok(Value::tuple(Vec::new()));
    }
    // SAFETY: `st` is live; `i` below its column count; the strings are copied.
    let out = unsafe {
        let n = ffi::sqlite3_column_count(st);
        let text = |p: *const c_char| {
            if p.is_null() {
                Value::None
            } else {
                Value::str(CStr::from_ptr(p).to_string_lossy().into_owned())
            }
        };
        (0..n)
            .map(|i| {
                Value::tuple(vec![
                    text(ffi::sqlite3_column_name(st, i)),
                    text(ffi::sqlite3_column_decltype(st, i)),
                ])
            })
            .collect()
    };
    Ok(Value::tuple(out))
}

/// `row(stmt, text_factory, converters)`: the current row as a tuple; `converters` is None
/// or a tuple of None or a converter per column.
fn row(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    let (_, st) = live_statement(vm, args, 0)?;
    let text_factory = arg(vm, args, 1)?.clone();
    let converters = match arg(vm, args, 2)? {
        Value::Tuple(t) => Some(t.clone()),
        _ => None,
    };
    if st.is_null() {
        return Ok(Value::tuple(Vec::new()));
    }
    // SAFETY: `st` is live.
    let n = unsafe { ffi::sqlite3_column_count(st) };
    let mut out = Vec::with_capacity(usize::try_from(n).unwrap_or(0));
    // Converters and text factories are Python code: the statement must stay as it is
    // until the row is read.
    let (s, _) = live_statement(vm, args, 0)?;
    s.running.set(true);
    let mut outcome = Ok(());
    for i in 0..n {
        let converter = converters
            .as_ref()
            .and_then(|c| c.items.get(i as usize))
            .filter(|c| !matches!(c, Value::None));
        match column_value(vm, st, i, &text_factory, converter) {
            Ok(v) => out.push(v),
            Err(e) => {
                outcome = Err(e);
                break;
            }
        }
    }
    s.running.set(false);
    outcome?;
    Ok(Value::tuple(out))
}

/// `counts(db)`: (changes, total_changes, last_insert_rowid, autocommit).
fn counts(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    let (_, db) = open_db(vm, args, 0)?;
    // SAFETY: `db` is open.
    let (changes, total, rowid, autocommit) = unsafe {
        (
            ffi::sqlite3_changes64(db),
            ffi::sqlite3_total_changes64(db),
            ffi::sqlite3_last_insert_rowid(db),
            ffi::sqlite3_get_autocommit(db) != 0,
        )
    };
    Ok(Value::tuple(vec![
        Value::Int(changes),
        Value::Int(total),
        Value::Int(rowid),
        Value::Bool(autocommit),
    ]))
}

/// `execute_script(db, script)`: each statement of `script` run to its end
/// (`pysqlite_cursor_executescript_impl`).
fn execute_script(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    let (_h, db) = open_db(vm, args, 0)?;
    let script = str_arg(vm, args, 1)?;
    let script = c_string(vm, script)?;
    // SAFETY: `db` is open; -1 only reads the limit.
    let max = unsafe { ffi::sqlite3_limit(db, ffi::SQLITE_LIMIT_SQL_LENGTH, -1) };
    let bytes = script.as_bytes();
    if bytes.len() > usize::try_from(max).unwrap_or(0) {
        return Err(error_of(vm, "DataError", "query string is too large"));
    }
    let mut offset = 0usize;
    loop {
        let rest = bytes.get(offset..).unwrap_or_default();
        let mut st = ptr::null_mut();
        let mut tail: *const c_char = ptr::null();
        let guard = VmGuard::enter(vm);
        // SAFETY: `db` is open; the text from `offset` lies inside `script`, which is
        // NUL-terminated, and its length with the NUL fits a c_int (checked against the
        // limit above); `st` is stepped and finalized before the next prepare, and `tail`
        // points into `script`.
        let (rc, next) = unsafe {
            let start = script.as_ptr().add(offset);
            let mut rc =
                ffi::sqlite3_prepare_v2(db, start, (rest.len() + 1) as c_int, &mut st, &mut tail);
            // A stretch of blanks and comments prepares to no statement.
            if rc == ffi::SQLITE_OK && !st.is_null() {
                loop {
                    rc = ffi::sqlite3_step(st);
                    if rc != ffi::SQLITE_ROW {
                        break;
                    }
                }
                rc = ffi::sqlite3_finalize(st);
            }
            let next = if tail.is_null() {
                bytes.len()
            } else {
                (tail.offset_from(script.as_ptr()).max(0) as usize).max(offset)
            };
            (rc, next)
        };
        drop(guard);
        if rc != ffi::SQLITE_OK {
            return Err(db_error(vm, db));
        }
        if next >= bytes.len() || next == offset {
            return Ok(Value::None);
        }
        offset = next;
    }
}

/// `create_function(db, name, narg, func, deterministic, aggregate)`: registers a scalar
/// function, or an aggregate whose class is `func` (None too, as CPython: calling it fails).
fn create_function(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    let (_h, db) = open_db(vm, args, 0)?;
    let name = c_string(vm, str_arg(vm, args, 1)?)?;
    let narg = c_int_of(vm, int_arg(vm, args, 2)?)?;
    let func = arg(vm, args, 3)?.clone();
    let deterministic = flag(arg(vm, args, 4)?);
    let aggregate = flag(arg(vm, args, 5)?);
    let mut flags = ffi::SQLITE_UTF8;
    if deterministic {
        flags |= ffi::SQLITE_DETERMINISTIC;
    }
    // SAFETY: `db` is open and `name` NUL-terminated. The callable goes to SQLite as a
    // `Box<Value>` with `destroy_value` as its destructor, which SQLite calls once, when
    // the function is replaced or the database closed, or at once if this call fails.
    let data = Box::into_raw(Box::new(func)) as *mut c_void;
    let (call, step, last): (ScalarCallback, ScalarCallback, FinalCallback) = if aggregate {
        (None, Some(aggregate_step), Some(aggregate_final))
    } else {
        (Some(call_function), None, None)
    };
    let rc = unsafe {
        ffi::sqlite3_create_function_v2(
            db,
            name.as_ptr(),
            narg,
            flags,
            data,
            call,
            step,
            last,
            Some(destroy_value),
        )
    };
    if rc != ffi::SQLITE_OK {
        let message = if aggregate {
            "Error creating aggregate"
        } else {
            "Error creating function"
        };
        return Err(error_of(vm, "OperationalError", message));
    }
    Ok(Value::None)
}

/// `set_trace(db, func)`: `func(sql)` before each statement runs; None stops it.
fn set_trace(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    let (h, db) = open_db(vm, args, 0)?;
    let func = arg(vm, args, 1)?.clone();
    let old = if matches!(func, Value::None) {
        // SAFETY: `db` is open; clearing the callback before its box is dropped below.
        unsafe { ffi::sqlite3_trace_v2(db, 0, None, ptr::null_mut()) };
        h.trace.borrow_mut().take()
    } else {
        let boxed = Box::new(func);
        let p = &*boxed as *const Value as *mut c_void;
        // SAFETY: `db` is open; `p` points into the box stored in `h.trace` just after,
        // which is kept until the callback is replaced or the database closed.
        unsafe { ffi::sqlite3_trace_v2(db, ffi::SQLITE_TRACE_STMT, Some(trace), p) };
        h.trace.borrow_mut().replace(boxed)
    };
    drop(old);
    Ok(Value::None)
}

/// `backup(db, target, name, pages, progress)`: copies database `name` of `db` into
/// the main database of `target`, `pages` at a time, calling `progress(status,
/// remaining, pagecount)` after each step (`pysqlite_connection_backup_impl`).
fn backup(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    let (_h, db) = open_db(vm, args, 0)?;
    let (_target, target) = open_db(vm, args, 1)?;
    let name = c_string(vm, str_arg(vm, args, 2)?)?;
    let pages = c_int_of(vm, int_arg(vm, args, 3)?)?;
    let pages = if pages == 0 { -1 } else { pages };
    let progress = arg(vm, args, 4)?.clone();
    // SAFETY: both handles are open (and kept so by `_h` and `_target`), `name` is
    // NUL-terminated; the backup handle is finished on every path below.
    let handle = unsafe { ffi::sqlite3_backup_init(target, c"main".as_ptr(), db, name.as_ptr()) };
    if handle.is_null() {
        return Err(db_error(vm, target));
    }
    loop {
        let guard = VmGuard::enter(vm);
        // SAFETY: `handle` is live until `sqlite3_backup_finish`.
        let (rc, remaining, count) = unsafe {
            let rc = ffi::sqlite3_backup_step(handle, pages);
            (
                rc,
                ffi::sqlite3_backup_remaining(handle),
                ffi::sqlite3_backup_pagecount(handle),
            )
        };
        drop(guard);
        if !matches!(progress, Value::None) {
            let status = [rc, remaining, count].map(|n| Value::Int(n.into()));
            if let Err(e) = vm.call(&progress, &status, &[]) {
                // SAFETY: `handle` is live; finishing it ends the backup.
                unsafe { ffi::sqlite3_backup_finish(handle) };
                return Err(e);
            }
        }
        if rc == ffi::SQLITE_BUSY || rc == ffi::SQLITE_LOCKED {
            std::thread::sleep(std::time::Duration::from_millis(1));
        } else if rc != ffi::SQLITE_OK {
            break;
        }
    }
    // SAFETY: `handle` is live; this frees it.
    let rc = unsafe { ffi::sqlite3_backup_finish(handle) };
    if rc != ffi::SQLITE_OK {
        return Err(db_error(vm, target));
    }
    Ok(Value::None)
}

/// `interrupt(db)`.
fn interrupt(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    let (_, db) = open_db(vm, args, 0)?;
    // SAFETY: `db` is open.
    unsafe { ffi::sqlite3_interrupt(db) };
    Ok(Value::None)
}

/// `limit(db, category, new)`: the old value of a limit (`new` -1 only reads it).
fn limit(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    let (_, db) = open_db(vm, args, 0)?;
    let category = c_int_of(vm, int_arg(vm, args, 1)?)?;
    let new = c_int_of(vm, int_arg(vm, args, 2)?)?;
    // SAFETY: `db` is open; a category out of range gives -1.
    let old = unsafe { ffi::sqlite3_limit(db, category, new) };
    if old < 0 {
        return Err(error_of(
            vm,
            "ProgrammingError",
            "'category' is out of bounds",
        ));
    }
    Ok(Value::Int(old.into()))
}

/// `complete_statement(sql)`: whether `sql` ends a statement (`sqlite3_complete`).
fn complete_statement(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    let sql = c_string(vm, str_arg(vm, args, 0)?)?;
    // SAFETY: `sql` is NUL-terminated.
    Ok(Value::Bool(
        unsafe { ffi::sqlite3_complete(sql.as_ptr()) } != 0,
    ))
}

/// `set_error_factory(f)`.
fn set_error_factory(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    let f = arg(vm, args, 0)?.clone();
    ERROR_FACTORY.with(|e| *e.borrow_mut() = f);
    Ok(Value::None)
}

/// `error_name(code)`: CPython's name of an SQLite result code, or None.
fn error_name_fn(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    let code = int_arg(vm, args, 0)?;
    Ok(c_int::try_from(code)
        .ok()
        .and_then(error_name)
        .map_or(Value::None, Value::str))
}

const FUNCTIONS: &[(&str, crate::vm::object::NativeFn)] = &[
    ("open", open),
    ("close", close),
    ("is_open", is_open),
    ("prepare", prepare),
    ("bind_count", bind_count),
    ("bind_name", bind_name),
    ("bind", bind),
    ("step", step),
    ("reset", reset),
    ("finalize", finalize),
    ("info", info),
    ("columns", columns),
    ("row", row),
    ("counts", counts),
    ("execute_script", execute_script),
    ("create_function", create_function),
    ("set_trace", set_trace),
    ("interrupt", interrupt),
    ("backup", backup),
    ("limit", limit),
    ("complete_statement", complete_statement),
    ("set_error_factory", set_error_factory),
    ("error_name", error_name_fn),
];

fn handle_class(vm: &mut Vm, name: &str) -> Rc<PyType> {
    let class = make_type(name, vec![vm.types.object.clone()], Layout::Builtin, false);
    vm.set_type_attr(&class, "__module__", Value::str("_sqlite3"));
    vm.add_static(&class, "__new__", |vm, _, _| {
        Err(vm.type_error("cannot create '_sqlite3' handles"))
    });
    class
}

/// Builds `_sqlite3` on its first import.
pub fn module(vm: &mut Vm) -> Value {
    vm.ready_bytes();
    let database = handle_class(vm, "Database");
    let statement = handle_class(vm, "Statement");
    CLASSES.with(|c| *c.borrow_mut() = Some((database, statement)));
    // SAFETY: `sqlite3_libversion` returns a static NUL-terminated string.
    let version = unsafe { CStr::from_ptr(ffi::sqlite3_libversion()) }
        .to_string_lossy()
        .into_owned();
    let mut attrs: Vec<(&str, Value)> = vec![("sqlite_version", Value::str(version))];
    for &(name, f) in FUNCTIONS {
        attrs.push((name, vm.native(name, f)));
    }
    for &(code, name) in ERROR_CODES {
        attrs.push((name, Value::Int(code.into())));
    }
    for &(name, value) in OTHER_CONSTANTS {
        attrs.push((name, Value::Int(value.into())));
    }
    vm.new_module("_sqlite3", attrs)
}
