//! `_sre`, the native core under `stdlib/re.apy` (CPython's `Modules/_sre/sre.c`): it
//! compiles a pattern with the engine in `re_engine/` and runs it over a subject, handing
//! back spans; `Pattern` and `Match` and everything above them are written in apy.
//! A subject's code points are kept between calls on the same str, so iterating over the
//! matches of a long text converts it once.

use std::cell::RefCell;
use std::rc::Rc;

use super::re_engine::matcher::{Mode, run};
use super::re_engine::{self, ErrorKind, Program};
use crate::vm::args::check_arity;
use crate::vm::bytes::PyBytes;
use crate::vm::object::{KwArgs, Layout, Object, ObjectKind, PyType};
use crate::vm::types::make_type;
use crate::vm::value::Value;
use crate::vm::{PyResult, Vm};

/// A compiled pattern, and the last subject it ran over.
struct Compiled {
    program: Program,
    is_str: bool,
    last: RefCell<Option<Subject>>,
}

/// A subject's code points, and for a str that is not ASCII the byte offset of each code
/// point (and of its end), so that slicing it by code point index takes no scan.
#[derive(Clone)]
struct Subject {
    value: Value,
    points: Rc<[u32]>,
    offsets: Option<Rc<[usize]>>,
}

thread_local! {
    static PROGRAM_TYPE: RefCell<Option<Rc<PyType>>> = const { RefCell::new(None) };
}

/// The code points of a str, or the bytes of a bytes-like object; None for anything else.
fn code_points(v: &Value) -> Option<(bool, Vec<u32>)> {
    if let Value::Str(s) = v {
        return Some((true, s.as_str().chars().map(|c| c as u32).collect()));
    }
    let bytes = v.native::<PyBytes>()?;
    Some((false, bytes.data().iter().map(|&b| b as u32).collect()))
}

/// `_sre.compile(pattern, flags, error)`: `(program, flags, groups, [(name, index)…])`,
/// or the pattern's error raised as `error(msg, pattern, pos)`.
fn compile(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    check_arity(vm, "compile", args, 3, 3)?;
    let Some((is_str, pattern)) = code_points(&args[0]) else {
        return Err(vm.type_error("first argument must be string or compiled pattern"));
    };
    let flags = vm.expect_index(&args[1])?;
    let program = match re_engine::compile(&pattern, is_str, flags as u32) {
        Ok(program) => program,
        Err(err) => {
            return Err(match err.kind {
                ErrorKind::Value => vm.value_error(err.msg),
                ErrorKind::Overflow => vm.overflow_error(err.msg),
                ErrorKind::Recursion => vm.new_exc(&vm.types.recursion_error.clone(), err.msg),
                ErrorKind::Pattern => {
                    let (pattern, pos) = match err.pos {
                        Some(p) => (args[0].clone(), Value::Int(p as i64)),
                        None => (Value::None, Value::None),
                    };
                    let exc = vm.call(&args[2], &[Value::str(err.msg), pattern, pos], &[])?;
                    match exc {
                        Value::Object(o) => o,
                        _ => vm.type_error("re.error did not make an exception"),
                    }
                }
            });
        }
    };
    let names = program
        .names
        .iter()
        .map(|(n, g)| Value::tuple(vec![Value::str(n.as_str()), Value::Int(*g as i64)]))
        .collect();
    let info = vec![
        Value::Int(program.flags as i64),
        Value::Int(program.groups as i64 - 1),
        Value::list(names),
    ];
    let ty = PROGRAM_TYPE
        .with(|t| t.borrow().clone())
        .unwrap_or_else(|| vm.types.object.clone());
    let compiled = Value::object(Object::new(
        ty,
        ObjectKind::Other(Box::new(Compiled {
            program,
            is_str,
            last: RefCell::new(None),
        })),
    ));
    let mut out = vec![compiled];
    out.extend(info);
    Ok(Value::tuple(out))
}

/// The subject's code points, from the cache when it is the same immutable object.
fn subject(vm: &mut Vm, compiled: &Compiled, v: &Value) -> PyResult<Subject> {
    if let Some(last) = &*compiled.last.borrow()
        && last.value.is(v)
    {
        return Ok(last.clone());
    }
    let Some((is_str, points)) = code_points(v) else {
        return Err(vm.type_error(format!(
            "expected string or bytes-like object, got '{}'",
            vm.type_name(v)
        )));
    };
    if is_str != compiled.is_str {
        return Err(vm.type_error(if compiled.is_str {
            "cannot use a string pattern on a bytes-like object"
        } else {
            "cannot use a bytes pattern on a string-like object"
        }));
    }
    vm.charge(points.len() as u64 / 16)?;
    let offsets = match v {
        Value::Str(s) if !s.is_ascii() => {
            let text = s.as_str();
            let mut offsets: Vec<usize> = text.char_indices().map(|(i, _)| i).collect();
            offsets.push(text.len());
            Some(offsets.into())
        }
        _ => None,
    };
    let subject = Subject {
        value: v.clone(),
        points: points.into(),
        offsets,
    };
    let immutable = matches!(v, Value::Str(_)) || vm.type_name(v).as_ref() == "bytes";
    if immutable {
        *compiled.last.borrow_mut() = Some(subject.clone());
    }
    Ok(subject)
}

/// `_sre.slice(program, string, start, end)`: `string[start:end]` for indices a match
/// gave, without scanning the string again (CPython's strings index in constant time).
fn slice(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    check_arity(vm, "slice", args, 4, 4)?;
    let Some(compiled) = args[0].native::<Compiled>() else {
        return Err(vm.type_error("slice() needs a compiled pattern"));
    };
    let subject = subject(vm, compiled, &args[1])?;
    let len = subject.points.len() as i64;
    let start = vm.expect_index(&args[2])?.clamp(0, len) as usize;
    let end = (vm.expect_index(&args[3])?.clamp(0, len) as usize).max(start);
    Ok(match &subject.value {
        Value::Str(s) => {
            let (a, b) = match &subject.offsets {
                Some(offsets) => (offsets[start], offsets[end]),
                None => (start, end),
            };
            Value::str(&s.as_str()[a..b])
        }
        _ => {
            let bytes: Vec<u8> = subject.points[start..end]
                .iter()
                .map(|&b| b as u8)
                .collect();
            vm.new_bytes(bytes)
        }
    })
}

/// `_sre.exec(program, string, pos, endpos, mode, must_advance)`: None, or
/// `(lastindex, pos, endpos, (start, end), …)` with `(-1, -1)` for a group that did not
/// take part, `pos` and `endpos` clamped to the string (`endpos` None: its end).
/// `mode` is 0 for match, 1 for fullmatch, 2 for search.
fn exec(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    check_arity(vm, "exec", args, 6, 6)?;
    let Some(compiled) = args[0].native::<Compiled>() else {
        return Err(vm.type_error("exec() needs a compiled pattern"));
    };
    let points = subject(vm, compiled, &args[1])?.points;
    let len = points.len() as i64;
    let pos = vm.expect_index(&args[2])?.clamp(0, len) as usize;
    let endpos = match &args[3] {
        Value::None => len,
        v => vm.expect_index(v)?.clamp(0, len),
    } as usize;
    let endpos = endpos.max(pos);
    let mode = match vm.expect_index(&args[4])? {
        0 => Mode::Match,
        1 => Mode::Full,
        _ => Mode::Search,
    };
    let must_advance = vm.truthy(&args[5])?;
    let found = run(
        &compiled.program,
        &points[..endpos],
        pos,
        mode,
        must_advance,
        &mut |n| vm.charge(n),
    )?;
    let Some(found) = found else {
        return Ok(Value::None);
    };
    let mut out = Vec::with_capacity(found.slots.len() / 2 + 3);
    out.push(match found.lastindex {
        0 => Value::None,
        g => Value::Int(g as i64),
    });
    out.push(Value::Int(pos as i64));
    out.push(Value::Int(endpos as i64));
    for pair in found.slots.chunks(2) {
        let span = match (pair[0], pair[1]) {
            (a, b) if a == usize::MAX || b == usize::MAX => (-1, -1),
            (a, b) => (a as i64, b as i64),
        };
        out.push(Value::tuple(vec![Value::Int(span.0), Value::Int(span.1)]));
    }
    Ok(Value::tuple(out))
}

pub fn module(vm: &mut Vm) -> Value {
    let ty = make_type(
        "_Program",
        vec![vm.types.object.clone()],
        Layout::Builtin,
        false,
    );
    vm.set_type_attr(&ty, "__module__", Value::str("_sre"));
    PROGRAM_TYPE.with(|t| *t.borrow_mut() = Some(ty));
    let attrs = vec![
        ("compile", vm.native("compile", compile)),
        ("exec", vm.native("exec", exec)),
        ("slice", vm.native("slice", slice)),
        ("MAXREPEAT", Value::Int(re_engine::parser::MAXREPEAT as i64)),
        ("MAXGROUPS", Value::Int(re_engine::parser::MAXGROUPS as i64)),
    ];
    vm.new_module("_sre", attrs)
}
