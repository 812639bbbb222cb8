//! `_frames`: what apy's library modules written in apy (`logging`, `warnings`,
//! `traceback`) need to know about the running program and cannot compute themselves:
//! where a call came from (`call_with_caller`, the site a log record or a warning names),
//! a line of a source file apy has read (`source_line`, CPython's `linecache`), an
//! exception's traceback as the VM prints it when nothing catches it (`format_exception`:
//! `vm/traceback.rs`, so there is one formatter), its entries each drawn as that formatter
//! draws them (`traceback_entries`), the pieces of its last line `traceback` cannot
//! compute (`format_syntax_error`, `name_hints`), the file `__main__` runs (`main_file`),
//! the process id a log record carries, and `keep_traceback_locals` (for `bdb`, so a
//! post-mortem sees a finished function's locals). apy keeps no chain of frame objects, so the
//! site is the one Python line that called: CPython's `stacklevel=1`.

use crate::vm::args::{check_arity, check_kwargs};
use crate::vm::exceptions::traceback_entries;
use crate::vm::object::{KwArgs, TracebackEntry};
use crate::vm::value::Value;
use crate::vm::{Exc, PyResult, Vm};

pub fn module(vm: &mut Vm) -> Value {
    let attrs = vec![
        (
            "call_with_caller",
            vm.native("call_with_caller", call_with_caller),
        ),
        ("source_line", vm.native("source_line", source_line)),
        (
            "remember_source",
            vm.native("remember_source", remember_source),
        ),
        (
            "format_exception",
            vm.native("format_exception", |vm, args, kw| {
                let exc = exception_arg(vm, "format_exception", args, kw)?;
                Ok(Value::str(vm.format_exception(&exc)))
            }),
        ),
        (
            "format_syntax_error",
            vm.native("format_syntax_error", |vm, args, kw| {
                let exc = exception_arg(vm, "format_syntax_error", args, kw)?;
                let msg = vm.syntax_error_attr(&exc, "msg").unwrap_or(Value::None);
                let mut out = String::new();
                vm.format_syntax_error(&exc, &msg, &mut out);
                out.push('\n');
                Ok(Value::str(out))
            }),
        ),
        ("name_hints", vm.native("name_hints", name_hints)),
        (
            "keep_traceback_locals",
            vm.native("keep_traceback_locals", |vm, args, kw| {
                check_kwargs(vm, "keep_traceback_locals", kw, &[])?;
                check_arity(vm, "keep_traceback_locals", args, 0, 0)?;
                vm.keep_traceback_locals = true;
                Ok(Value::None)
            }),
        ),
        (
            "traceback_entries",
            vm.native("traceback_entries", traceback_entries_of),
        ),
        (
            "main_file",
            vm.native("main_file", |vm, _, _| {
                Ok(vm.main_file.as_deref().map_or(Value::None, Value::str))
            }),
        ),
        (
            "getpid",
            vm.native("getpid", |_, _, _| {
                Ok(Value::Int(crate::vm::sandbox::process_id().into()))
            }),
        ),
    ];
    vm.new_module("_frames", attrs)
}

/// `call_with_caller(f, *args, **kw)`: `f(*args, _site=(filename, lineno, name), **kw)`,
/// the site being the Python line that called `call_with_caller` (through a
/// `functools.partial` around it, say): a library function made this way learns who
/// called it.
fn call_with_caller(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let Some((func, rest)) = args.split_first() else {
        return Err(vm.type_error("call_with_caller() needs a function"));
    };
    let site = match vm.caller_site() {
        Some((file, line, name)) => Value::tuple(vec![
            Value::str(&*file),
            Value::Int(line.into()),
            Value::str(&*name),
        ]),
        None => Value::tuple(vec![
            Value::str("(unknown file)"),
            Value::Int(0),
            Value::str("(unknown function)"),
        ]),
    };
    let mut kw = kw.to_vec();
    kw.push((vm.intern("_site"), site));
    vm.call(func, rest, &kw)
}

/// `source_line(filename, lineno)`: that line of a file apy has read, without its
/// indentation and line end; "" when apy has not read the file or it has no such line.
fn source_line(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    check_kwargs(vm, "source_line", kw, &[])?;
    check_arity(vm, "source_line", args, 2, 2)?;
    let (Value::Str(file), Value::Int(line)) = (&args[0], &args[1]) else {
        return Ok(Value::str(""));
    };
    let line = usize::try_from(*line).unwrap_or(0);
    Ok(Value::str(line_of(vm, file.as_str(), line)))
}

/// `remember_source(filename, text)`: the source of code compiled from a string under a
/// made-up file name, for tracebacks to show its lines (doctest's `<doctest name[n]>`
/// examples, whose lines CPython's doctest serves through `linecache`).
fn remember_source(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    check_kwargs(vm, "remember_source", kw, &[])?;
    check_arity(vm, "remember_source", args, 2, 2)?;
    let (Value::Str(file), Value::Str(text)) = (&args[0], &args[1]) else {
        return Err(vm.type_error("remember_source() takes a file name and its text"));
    };
    vm.sources
        .insert(file.as_str().into(), text.as_str().into());
    Ok(Value::None)
}

/// Line `line` (from 1) of a file apy has read, stripped; "" when there is none.
fn line_of<'a>(vm: &'a Vm, file: &str, line: usize) -> &'a str {
    vm.sources
        .get(file)
        .zip(line.checked_sub(1))
        .and_then(|(source, index)| source.lines().nth(index))
        .map_or("", str::trim)
}

/// The entries of the traceback (or exception) that is the one argument, innermost first.
fn entries_arg(
    vm: &mut Vm,
    name: &str,
    args: &[Value],
    kw: &KwArgs,
) -> PyResult<Vec<TracebackEntry>> {
    check_kwargs(vm, name, kw, &[])?;
    check_arity(vm, name, args, 1, 1)?;
    match &args[0] {
        Value::None => Ok(Vec::new()),
        v => traceback_entries(v).ok_or_else(|| {
            vm.type_error(format!(
                "{name}() needs a traceback, not {}",
                vm.type_name(v)
            ))
        }),
    }
}

/// `traceback_entries(tb)`: `(filename, lineno, name, line, drawn)` for each entry,
/// oldest first, `drawn` being the entry as a traceback shows it: its `File "…", line N,
/// in name` line, then its source lines with the carets under the failed expression.
fn traceback_entries_of(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let entries = entries_arg(vm, "traceback_entries", args, kw)?;
    let rows = entries
        .iter()
        .rev()
        .map(|entry| {
            let code = &entry.code;
            Value::tuple(vec![
                Value::str(&*code.filename),
                Value::Int(entry.line.into()),
                Value::str(&*code.name),
                Value::str(line_of(vm, &code.filename, entry.line as usize)),
                Value::str(vm.format_entries(std::slice::from_ref(entry))),
            ])
        })
        .collect();
    Ok(Value::list(rows))
}

fn exception_arg(vm: &mut Vm, name: &str, args: &[Value], kw: &KwArgs) -> PyResult<Exc> {
    check_kwargs(vm, name, kw, &[])?;
    check_arity(vm, name, args, 1, 1)?;
    match &args[0] {
        Value::Object(o) if o.exc_data().is_some() => Ok(o.clone()),
        other => Err(vm.type_error(format!(
            "{name}() argument must be an exception, not {}",
            vm.type_name(other)
        ))),
    }
}

/// `name_hints(exc, with_traceback)`: what CPython's `TracebackException` adds to the
/// message of an error about a missing name, ". Did you mean: 'x'?" and the like; a
/// NameError's only comes `with_traceback` (its near miss is among the names of the
/// frame it was raised in).
fn name_hints(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    check_arity(vm, "name_hints", args, 2, 2)?;
    let exc = exception_arg(vm, "name_hints", &args[..1], kw)?;
    let with_traceback = vm.truthy(&args[1])?;
    Ok(Value::str(vm.missing_name_hints(&exc, with_traceback)))
}
