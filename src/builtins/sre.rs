//! `_sre`, the native core under `stdlib/re.apy` (CPython's `Modules/_sre/sre.c`): it
//! compiles a pattern with the engine in `re_engine/` and runs it over a subject, handing
//! back a `re.Match` (`sre_match`); `Pattern` and everything above it are written in apy, except
//! the loops over every match that make no Match object (`findall`, `split`, and `sub`
//! with a replacement string), which run here.
//! A subject's code points are kept between calls on the same str, so iterating over the
//! matches of a long text converts it once.

use std::cell::RefCell;
use std::rc::Rc;

use super::re_engine::matcher::{Found, Mode, run};
use super::re_engine::{self, ErrorKind, Program};
use super::sre_match::{MatchObj, new_match};
use crate::vm::args::check_arity;
use crate::vm::bytes::PyBytes;
use crate::vm::object::{KwArgs, Layout, Object, ObjectKind, PyType};
use crate::vm::types::make_type;
use crate::vm::value::Value;
use crate::vm::{PyResult, Vm};

/// A compiled pattern, and the last subject it ran over.
pub(super) struct Compiled {
    pub(super) program: Program,
    is_str: bool,
    last: RefCell<Option<Subject>>,
}

/// A subject's code points, and for a str that is not ASCII the byte offset of each code
/// point (and of its end), so that slicing it by code point index takes no scan.
#[derive(Clone)]
pub(super) struct Subject {
    pub(super) value: Value,
    points: Rc<[u32]>,
    offsets: Option<Rc<[usize]>>,
}

thread_local! {
    static PROGRAM_TYPE: RefCell<Option<Rc<PyType>>> = const { RefCell::new(None) };
}

/// The code points of a str, or the bytes of a bytes-like object; None for anything else.
fn code_points(v: &Value) -> Option<(bool, Vec<u32>)> {
    if let Some(s) = v.str_or_subclass() {
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
    // The text of a str subclass's instance is matched as the str it extends.
    let base = v.str_or_subclass().map(|s| Value::Str(s.clone()));
    let v = base.as_ref().unwrap_or(v);
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

impl Subject {
    /// `string[start:end]` by code point indices (clamped), without scanning the string.
    pub(super) fn slice(&self, vm: &mut Vm, start: usize, end: usize) -> Value {
        let len = self.points.len();
        let start = start.min(len);
        let end = end.clamp(start, len);
        match &self.value {
            Value::Str(s) => {
                let (a, b) = match &self.offsets {
                    Some(offsets) => (offsets[start], offsets[end]),
                    None => (start, end),
                };
                Value::str(&s.as_str()[a..b])
            }
            _ => {
                let bytes: Vec<u8> = self.points[start..end].iter().map(|&b| b as u8).collect();
                vm.new_bytes(bytes)
            }
        }
    }

    /// Group `g`'s text in `found`, or `missing` when the group did not take part.
    fn group(&self, vm: &mut Vm, found: &Found, g: usize, missing: &Value) -> Value {
        let span = (found.slots.get(2 * g), found.slots.get(2 * g + 1));
        match span {
            (Some(&a), Some(&b)) if a != usize::MAX && b != usize::MAX => self.slice(vm, a, b),
            _ => missing.clone(),
        }
    }
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
    let end = vm.expect_index(&args[3])?.clamp(0, len) as usize;
    Ok(subject.slice(vm, start, end))
}

/// The successive matches of a search of `compiled` over `subject[..endpos]` from `pos`,
/// as sre's scanner finds them (after an empty match, the next one may not be empty at
/// the same place), at most `count` of them (0: all), each given to `each`.
fn each_match(
    vm: &mut Vm,
    compiled: &Compiled,
    subject: &Subject,
    (mut pos, endpos): (usize, usize),
    count: usize,
    mut each: impl FnMut(&mut Vm, &Found) -> PyResult<()>,
) -> PyResult<()> {
    let mut must_advance = false;
    let mut n = 0;
    while count == 0 || n < count {
        let points = &subject.points[..endpos];
        let found = run(
            &compiled.program,
            points,
            pos,
            Mode::Search,
            must_advance,
            &mut |c| vm.charge(c),
        )?;
        let Some(found) = found else {
            break;
        };
        each(vm, &found)?;
        let (start, end) = (found.slots[0], found.slots[1]);
        must_advance = start == end;
        pos = end;
        n += 1;
    }
    Ok(())
}

/// The compiled pattern and subject of a call's first two arguments.
fn pattern_and_subject<'a>(
    vm: &mut Vm,
    name: &str,
    args: &'a [Value],
) -> PyResult<(&'a Compiled, Subject)> {
    let Some(compiled) = args[0].native::<Compiled>() else {
        return Err(vm.type_error(format!("{name}() needs a compiled pattern")));
    };
    let subject = subject(vm, compiled, &args[1])?;
    Ok((compiled, subject))
}

/// `_sre.findall(program, string, pos, endpos, groups)`: `Pattern.findall`: each match's
/// text, or its one group's (empty when it did not take part), or a tuple of its groups.
fn findall(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    check_arity(vm, "findall", args, 5, 5)?;
    let (compiled, subject) = pattern_and_subject(vm, "findall", args)?;
    let span = bounds(vm, &subject, &args[2], &args[3])?;
    let groups = vm.expect_index(&args[4])?.max(0) as usize;
    let empty = subject.slice(vm, 0, 0);
    let mut out = Vec::new();
    each_match(vm, compiled, &subject, span, 0, |vm, found| {
        out.push(match groups {
            0 => subject.group(vm, found, 0, &empty),
            1 => subject.group(vm, found, 1, &empty),
            _ => Value::tuple(
                (1..=groups)
                    .map(|g| subject.group(vm, found, g, &empty))
                    .collect(),
            ),
        });
        Ok(())
    })?;
    Ok(Value::list(out))
}

/// `_sre.split(program, string, maxsplit)`: `Pattern.split`: the text between matches,
/// each match's groups (None for one that did not take part) after the text before it.
fn split(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    check_arity(vm, "split", args, 4, 4)?;
    let (compiled, subject) = pattern_and_subject(vm, "split", args)?;
    let maxsplit = vm.expect_index(&args[2])?;
    let groups = vm.expect_index(&args[3])?.max(0) as usize;
    let mut out = Vec::new();
    let mut last = 0;
    // A negative maxsplit splits nowhere, as `n >= maxsplit` holds at once in sre.
    if maxsplit >= 0 {
        let span = (0, subject.points.len());
        each_match(
            vm,
            compiled,
            &subject,
            span,
            maxsplit as usize,
            |vm, found| {
                out.push(subject.slice(vm, last, found.slots[0]));
                for g in 1..=groups {
                    out.push(subject.group(vm, found, g, &Value::None));
                }
                last = found.slots[1];
                Ok(())
            },
        )?;
    }
    out.push(subject.slice(vm, last, subject.points.len()));
    Ok(Value::list(out))
}

/// `_sre.sub_template(program, string, template, count)`: `Pattern.subn` with a
/// replacement string, parsed as `re.apy`'s `_parse_template` gives it (`[literal, group,
/// literal, …]`; a group that did not take part adds nothing): `(new string, number of
/// replacements)`.
fn sub_template(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    check_arity(vm, "sub_template", args, 4, 4)?;
    let (compiled, subject) = pattern_and_subject(vm, "sub_template", args)?;
    let template = vm.collect_iterable(&args[2])?;
    let mut groups = Vec::with_capacity(template.len() / 2);
    for g in template.iter().skip(1).step_by(2) {
        groups.push(vm.expect_index(g)?.max(0) as usize);
    }
    let count = vm.expect_index(&args[3])?.max(0) as usize;
    let mut pieces = Vec::new();
    let mut last = 0;
    let mut n = 0;
    let span = (0, subject.points.len());
    each_match(vm, compiled, &subject, span, count, |vm, found| {
        if last < found.slots[0] {
            pieces.push(subject.slice(vm, last, found.slots[0]));
        }
        for (i, literal) in template.iter().step_by(2).enumerate() {
            pieces.push(literal.clone());
            if let Some(&g) = groups.get(i) {
                pieces.push(subject.group(vm, found, g, &Value::None));
            }
        }
        last = found.slots[1];
        n += 1;
        Ok(())
    })?;
    pieces.push(subject.slice(vm, last, subject.points.len()));
    let joined = join(vm, &subject.value, &pieces)?;
    Ok(Value::tuple(vec![joined, Value::Int(n)]))
}

/// The pieces (None ones left out) joined into one str or bytes, as the subject is, with
/// the TypeError of `str.join`/`bytes.join` for a piece of the other kind.
fn join(vm: &mut Vm, subject: &Value, pieces: &[Value]) -> PyResult<Value> {
    let is_str = matches!(subject, Value::Str(_));
    let mut text = String::new();
    let mut bytes = Vec::new();
    for (i, piece) in pieces.iter().filter(|p| !p.is_none()).enumerate() {
        match (is_str, piece.as_str(), piece.native::<PyBytes>()) {
            (true, Some(s), _) => text.push_str(s),
            (false, _, Some(b)) => bytes.extend_from_slice(&b.data()),
            _ => {
                let expected = if is_str {
                    "str instance"
                } else {
                    "a bytes-like object"
                };
                return Err(vm.type_error(format!(
                    "sequence item {i}: expected {expected}, {} found",
                    vm.type_name(piece)
                )));
            }
        }
    }
    Ok(match is_str {
        true => Value::str(text),
        false => vm.new_bytes(bytes),
    })
}

/// `pos` and `endpos` clamped to the subject (`endpos` None: its end), as a match's are.
fn bounds(vm: &mut Vm, subject: &Subject, pos: &Value, endpos: &Value) -> PyResult<(usize, usize)> {
    let len = subject.points.len() as i64;
    let pos = vm.expect_index(pos)?.clamp(0, len) as usize;
    let endpos = match endpos {
        Value::None => len,
        v => vm.expect_index(v)?.clamp(0, len),
    } as usize;
    Ok((pos, endpos.max(pos)))
}

/// `_sre.exec(program, string, pos, endpos, mode, must_advance, pattern)`: None, or the
/// `re.Match` (`sre_match`) of `pattern`, with `(-1, -1)` for a group that did not take
/// part, `pos` and `endpos` clamped to the string (`endpos` None: its end). `mode` is 0
/// for match, 1 for fullmatch, 2 for search.
fn exec(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    check_arity(vm, "exec", args, 7, 7)?;
    let Some(compiled) = args[0].native::<Compiled>() else {
        return Err(vm.type_error("exec() needs a compiled pattern"));
    };
    let subject = subject(vm, compiled, &args[1])?;
    let (pos, endpos) = bounds(vm, &subject, &args[2], &args[3])?;
    let points = subject.points.clone();
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
    let spans = found
        .slots
        .chunks(2)
        .map(|pair| match (pair[0], pair[1]) {
            (a, b) if a == usize::MAX || b == usize::MAX => (-1, -1),
            (a, b) => (a as i64, b as i64),
        })
        .collect();
    let found = MatchObj {
        pattern: args[6].clone(),
        program: args[0].clone(),
        subject,
        spans,
        pos: pos as i64,
        endpos: endpos as i64,
        lastindex: found.lastindex,
    };
    Ok(new_match(vm, found))
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
    super::sre_match::match_type(vm);
    let attrs = vec![
        ("Match", super::sre_match::the_type(vm)),
        ("compile", vm.native("compile", compile)),
        ("exec", vm.native("exec", exec)),
        ("slice", vm.native("slice", slice)),
        ("findall", vm.native("findall", findall)),
        ("split", vm.native("split", split)),
        ("sub_template", vm.native("sub_template", sub_template)),
        ("MAXREPEAT", Value::Int(re_engine::parser::MAXREPEAT as i64)),
        ("MAXGROUPS", Value::Int(re_engine::parser::MAXGROUPS as i64)),
    ];
    vm.new_module("_sre", attrs)
}
