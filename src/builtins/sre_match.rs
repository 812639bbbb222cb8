//! `re.Match` (CPython's `Modules/_sre/sre.c` match object, C there too): what `_sre.exec`
//! gives back when a pattern matches. It keeps the spans of its groups and the subject (its
//! code points, so a group is sliced out without scanning the string), and answers
//! `group`, `m[g]`, `groups`, `groupdict`, `start`, `end`, `span`, the attributes `re`,
//! `string`, `pos`, `endpos`, `lastindex`, `lastgroup`, `regs`, and its repr; `expand`
//! hands the template to `re._expand` (the template parser is written in apy). Native
//! because a match's methods are called for every token a scanner or a parser reads.

use std::rc::Rc;

use super::sre::{Compiled, Subject};
use crate::vm::args::{Signature, check_arity};
use crate::vm::dict::StrKeys;
use crate::vm::object::{KwArgs, Layout, Object, ObjectKind, PyType};
use crate::vm::types::make_type;
use crate::vm::value::{DictTable, Value};
use crate::vm::{PyResult, Vm};

/// A match: the pattern and program it came from, the subject, and each group's span
/// (`(-1, -1)` for a group that took no part).
pub(super) struct MatchObj {
    pub(super) pattern: Value,
    pub(super) program: Value,
    pub(super) subject: Subject,
    pub(super) spans: Vec<(i64, i64)>,
    pub(super) pos: i64,
    pub(super) endpos: i64,
    /// The last group that closed (0: none).
    pub(super) lastindex: usize,
}

thread_local! {
    static MATCH_TYPE: std::cell::RefCell<Option<Rc<PyType>>> =
        const { std::cell::RefCell::new(None) };
}

/// A new match object.
pub(super) fn new_match(vm: &Vm, found: MatchObj) -> Value {
    Value::object(Object::new(
        match_class(vm),
        ObjectKind::Other(Box::new(found)),
    ))
}

/// `re.Match`, once [`match_type`] has made it.
fn match_class(vm: &Vm) -> Rc<PyType> {
    MATCH_TYPE
        .with(|t| t.borrow().clone())
        .unwrap_or_else(|| vm.types.object.clone())
}

fn this<'a>(vm: &mut Vm, args: &'a [Value]) -> PyResult<&'a MatchObj> {
    match args.first().and_then(Value::native::<MatchObj>) {
        Some(m) => Ok(m),
        None => Err(vm.type_error("descriptor requires a 're.Match' object")),
    }
}

impl MatchObj {
    fn names(&self) -> &[(String, usize)] {
        self.program
            .native::<Compiled>()
            .map_or(&[], |c| c.program.names.as_slice())
    }

    /// The group a `group()` argument names (`match_getindex`): an index in range, or a
    /// group's name; IndexError("no such group") for anything else.
    fn index(&self, vm: &mut Vm, g: &Value) -> PyResult<usize> {
        let found = match g {
            Value::Int(i) => usize::try_from(*i).ok(),
            Value::Bool(b) => Some(usize::from(*b)),
            Value::Str(name) => self
                .names()
                .iter()
                .find(|(n, _)| n == name.as_str())
                .map(|&(_, i)| i),
            Value::BigInt(_) => None,
            // Another object counts by its `__index__` (an IntEnum member, a numpy-like
            // integer); one without is no group.
            Value::Object(_) => match vm.expect_index(g) {
                Ok(i) => usize::try_from(i).ok(),
                Err(e) if vm.exc_matches(&e, &vm.types.type_error) => None,
                Err(e) => return Err(e),
            },
            _ => None,
        };
        match found.filter(|&i| i < self.spans.len()) {
            Some(i) => Ok(i),
            None => Err(vm.new_exc(&vm.types.index_error.clone(), "no such group")),
        }
    }

    /// Group `i`'s text, or `default` when it took no part.
    fn group(&self, vm: &mut Vm, i: usize, default: &Value) -> Value {
        match self.spans[i] {
            (start, end) if start >= 0 && end >= 0 => {
                self.subject.slice(vm, start as usize, end as usize)
            }
            _ => default.clone(),
        }
    }

    fn span(&self, i: usize) -> Value {
        let (start, end) = self.spans[i];
        Value::tuple(vec![Value::Int(start), Value::Int(end)])
    }
}

const GROUPS: Signature = Signature::keywords("Match", "groups", &["default"], 0, 0);
const GROUPDICT: Signature = Signature::keywords("Match", "groupdict", &["default"], 0, 0);

/// `m.group(*groups)`: the whole match, one group, or a tuple of them.
fn group(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    if !kw.is_empty() {
        return Err(vm.type_error("group() takes no keyword arguments"));
    }
    let m = this(vm, args)?;
    match &args[1..] {
        [] => Ok(m.group(vm, 0, &Value::None)),
        [g] => {
            let i = m.index(vm, g)?;
            Ok(m.group(vm, i, &Value::None))
        }
        groups => {
            let mut out = Vec::with_capacity(groups.len());
            for g in groups {
                let i = m.index(vm, g)?;
                out.push(m.group(vm, i, &Value::None));
            }
            Ok(Value::tuple(out))
        }
    }
}

/// `m[g]`.
fn getitem(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    check_arity(vm, "__getitem__", args, 2, 2)?;
    let m = this(vm, args)?;
    let i = m.index(vm, &args[1])?;
    Ok(m.group(vm, i, &Value::None))
}

/// `m.groups(default=None)`: every group but the whole match.
fn groups(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let m = this(vm, args)?;
    let slots = GROUPS.bind(vm, &args[1..], kw)?;
    let default = slots[0].clone().unwrap_or(Value::None);
    let out = (1..m.spans.len())
        .map(|i| m.group(vm, i, &default))
        .collect();
    Ok(Value::tuple(out))
}

/// `m.groupdict(default=None)`: the named groups by name.
fn groupdict(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let m = this(vm, args)?;
    let slots = GROUPDICT.bind(vm, &args[1..], kw)?;
    let default = slots[0].clone().unwrap_or(Value::None);
    let mut table = DictTable::new();
    for (name, i) in m.names() {
        let key = vm.intern(name);
        let value = m.group(vm, *i, &default);
        table.set_str(key, value);
    }
    Ok(Value::dict(table))
}

/// The match and the group `start`, `end` and `span` ask about (the whole match by
/// default).
fn asked_group<'a>(vm: &mut Vm, name: &str, args: &'a [Value]) -> PyResult<(&'a MatchObj, usize)> {
    check_arity(vm, name, args, 1, 2)?;
    let m = this(vm, args)?;
    let i = match args.get(1) {
        Some(g) => m.index(vm, g)?,
        None => 0,
    };
    Ok((m, i))
}

fn start(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    let (m, i) = asked_group(vm, "start", args)?;
    Ok(Value::Int(m.spans[i].0))
}

fn end(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    let (m, i) = asked_group(vm, "end", args)?;
    Ok(Value::Int(m.spans[i].1))
}

fn span(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    let (m, i) = asked_group(vm, "span", args)?;
    Ok(m.span(i))
}

/// `m.expand(template)`: `re._expand(m, template)`, where the template is parsed.
fn expand(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    check_arity(vm, "expand", args, 2, 2)?;
    let re = vm.import_module("re")?;
    let name = vm.intern("_expand");
    let expand = vm.get_attr(&re, &name)?;
    vm.call(&expand, args, &[])
}

/// `copy.copy(m)` and `copy.deepcopy(m)`: the match itself (it cannot change).
fn itself(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    this(vm, args)?;
    Ok(args[0].clone())
}

fn repr(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    check_arity(vm, "__repr__", args, 1, 1)?;
    let m = this(vm, args)?;
    let (start, end) = m.spans[0];
    let whole = m.group(vm, 0, &Value::None);
    let text: String = vm.repr(&whole)?.chars().take(50).collect();
    Ok(Value::str(format!(
        "<re.Match object; span=({start}, {end}), match={text}>"
    )))
}

fn no_new(vm: &mut Vm, _: &[Value], _: &KwArgs) -> PyResult<Value> {
    Err(vm.type_error("cannot create 're.Match' instances"))
}

/// A getter of the match object `v`.
fn getter(vm: &mut Vm, v: &Value, get: fn(&mut Vm, &MatchObj) -> Value) -> PyResult<Value> {
    let m = this(vm, std::slice::from_ref(v))?;
    Ok(get(vm, m))
}

/// The type `re.Match`, made once per VM with the `_sre` module.
pub(super) fn match_type(vm: &mut Vm) {
    let ty = make_type(
        "Match",
        vec![vm.types.object.clone()],
        Layout::Builtin,
        false,
    );
    vm.set_type_attr(&ty, "__module__", Value::str("re"));
    vm.add_static(&ty, "__new__", no_new);
    vm.add_method(&ty, "__class_getitem__", crate::vm::generics::class_getitem);
    vm.add_methods(
        &ty,
        &[
            ("group", group),
            ("__getitem__", getitem),
            ("groups", groups),
            ("groupdict", groupdict),
            ("start", start),
            ("end", end),
            ("span", span),
            ("expand", expand),
            ("__copy__", itself),
            ("__deepcopy__", |vm, args, _| {
                check_arity(vm, "__deepcopy__", args, 2, 2)?;
                itself(vm, &args[..1], &[])
            }),
            ("__repr__", repr),
        ],
    );
    vm.add_getset(
        &ty,
        "re",
        |vm, v| getter(vm, v, |_, m| m.pattern.clone()),
        None,
    );
    vm.add_getset(
        &ty,
        "string",
        |vm, v| getter(vm, v, |_, m| m.subject.value.clone()),
        None,
    );
    vm.add_getset(
        &ty,
        "pos",
        |vm, v| getter(vm, v, |_, m| Value::Int(m.pos)),
        None,
    );
    vm.add_getset(
        &ty,
        "endpos",
        |vm, v| getter(vm, v, |_, m| Value::Int(m.endpos)),
        None,
    );
    vm.add_getset(
        &ty,
        "lastindex",
        |vm, v| {
            getter(vm, v, |_, m| match m.lastindex {
                0 => Value::None,
                i => Value::Int(i as i64),
            })
        },
        None,
    );
    vm.add_getset(
        &ty,
        "lastgroup",
        |vm, v| {
            getter(vm, v, |_, m| {
                let name = m.names().iter().find(|&&(_, i)| i == m.lastindex);
                match name {
                    Some((name, _)) if m.lastindex != 0 => Value::str(name.as_str()),
                    _ => Value::None,
                }
            })
        },
        None,
    );
    vm.add_getset(
        &ty,
        "regs",
        |vm, v| {
            getter(vm, v, |_, m| {
                Value::tuple((0..m.spans.len()).map(|i| m.span(i)).collect())
            })
        },
        None,
    );
    MATCH_TYPE.with(|t| *t.borrow_mut() = Some(ty));
}

/// `re.Match` itself, for the `_sre` module's namespace.
pub(super) fn the_type(vm: &Vm) -> Value {
    Value::Type(match_class(vm))
}
