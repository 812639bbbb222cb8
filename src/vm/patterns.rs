//! The instructions of `match` statements: `GET_LEN`, `MATCH_MAPPING`, `MATCH_SEQUENCE`,
//! `MATCH_KEYS` and `MATCH_CLASS`, as CPython 3.13's `bytecodes.c` and `match_keys` /
//! `match_class` (`Python/ceval.c`) run them. Kept out of the dispatch loop, which reaches
//! them through one cold call.

use std::rc::Rc;

use super::frame::Frame;
use super::object::{
    BuiltinTypes, MATCH_MAPPING, MATCH_SELF, MATCH_SEQUENCE, Object, ObjectKind, PyType,
};
use super::value::{PyStr, Value};
use super::{PyResult, Vm};
use crate::compile::bytecode::Instr;

/// How `match` sees the built-in types: the sequences, the mapping, and the types that
/// match one positional sub-pattern as themselves (`int(x)`).
pub fn set_builtin_match_flags(types: &BuiltinTypes) {
    let plain = [
        &types.int,
        &types.bool,
        &types.float,
        &types.str,
        &types.set,
        &types.frozenset,
        &types.bytes,
        &types.bytearray,
    ];
    for ty in plain {
        ty.match_flags.set(MATCH_SELF);
    }
    for ty in [&types.tuple, &types.list, &types.asyncgen_hooks] {
        ty.match_flags.set(MATCH_SEQUENCE | MATCH_SELF);
    }
    types.dict.match_flags.set(MATCH_MAPPING | MATCH_SELF);
    types.range.match_flags.set(MATCH_SEQUENCE);
}

/// The [`PyType::match_flags`] a new class takes from the first base in its MRO that has
/// any (CPython's `inherit_patma_flags` and `inherit_special`, from the solid base).
pub fn inherited_match_flags(mro_tail: &[Rc<PyType>]) -> u8 {
    mro_tail
        .iter()
        .map(|base| base.match_flags.get())
        .find(|&flags| flags != 0)
        .unwrap_or(0)
}

impl Vm {
    /// Runs one of the pattern-matching instructions on `frame`'s stack.
    #[inline(never)]
    pub(super) fn op_match(&mut self, frame: &mut Frame, instr: Instr) -> PyResult<()> {
        let top = frame.stack.len() - 1;
        let result = match instr {
            Instr::GetLen => {
                let len = self.len(&frame.stack[top])?;
                Value::Int(len as i64)
            }
            Instr::MatchMapping => Value::Bool(self.match_flag(&frame.stack[top], MATCH_MAPPING)),
            Instr::MatchSequence => Value::Bool(self.match_flag(&frame.stack[top], MATCH_SEQUENCE)),
            Instr::MatchKeys => {
                let (subject, keys) = (frame.stack[top - 1].clone(), frame.stack[top].clone());
                self.match_keys(&subject, &keys)?
            }
            Instr::MatchClass(count) => {
                let names = frame.stack.pop().unwrap_or(Value::None);
                let cls = frame.stack.pop().unwrap_or(Value::None);
                let subject = frame.stack.pop().unwrap_or(Value::None);
                self.match_class(&subject, &cls, count as usize, &names)?
            }
            _ => return Ok(()),
        };
        frame.stack.push(result);
        Ok(())
    }

    fn match_flag(&self, subject: &Value, flag: u8) -> bool {
        self.type_of(subject).match_flags.get() & flag != 0
    }

    /// The values of `keys` in the mapping `subject`, as a tuple; None when one is missing.
    /// Looked up with the mapping's own `get` (CPython's `match_keys`).
    fn match_keys(&mut self, subject: &Value, keys: &Value) -> PyResult<Value> {
        let keys: Vec<Value> = match keys {
            Value::Tuple(t) => t.items.to_vec(),
            _ => Vec::new(),
        };
        let seen = self.new_set(Vec::new(), false)?;
        let Value::Set(seen) = seen else {
            return Ok(Value::None);
        };
        let plain_dict = matches!(subject, Value::Dict(_));
        let get = if plain_dict {
            None
        } else {
            let name = self.intern("get");
            Some(self.get_attr(subject, &name)?)
        };
        let missing = Value::object(Object::new(self.types.object.clone(), ObjectKind::Bare));
        let mut values = Vec::with_capacity(keys.len());
        for key in keys {
            if self.set_contains(&seen, &key)? {
                let repr = self.repr(&key)?;
                return Err(
                    self.value_error(format!("mapping pattern checks duplicate key ({repr})"))
                );
            }
            self.set_add(&seen, key.clone())?;
            let value = match (&get, subject) {
                (None, Value::Dict(d)) => self.dict_get(d, &key)?,
                (Some(get), _) => {
                    let value = self.call(get, &[key, missing.clone()], &[])?;
                    (!value.is(&missing)).then_some(value)
                }
                _ => None,
            };
            match value {
                Some(value) => values.push(value),
                None => return Ok(Value::None),
            }
        }
        Ok(Value::tuple(values))
    }

    /// The attributes a class pattern matches its sub-patterns against, as a tuple; None
    /// when the subject is no instance of `cls` or lacks one (CPython's `match_class`).
    fn match_class(
        &mut self,
        subject: &Value,
        cls: &Value,
        count: usize,
        names: &Value,
    ) -> PyResult<Value> {
        let Value::Type(ty) = cls else {
            return Err(self.type_error("called match pattern must be a class"));
        };
        if !self.isinstance(subject, ty) {
            return Ok(Value::None);
        }
        let mut seen: Vec<Rc<PyStr>> = Vec::new();
        let mut attrs = Vec::new();
        if count > 0 {
            let key = self.intern("__match_args__");
            let match_args = self.get_attr_opt(cls, &key)?;
            let (match_args, match_self) = match match_args {
                Some(Value::Tuple(t)) => (t.items.to_vec(), false),
                Some(other) => {
                    return Err(self.type_error(format!(
                        "{}.__match_args__ must be a tuple (got {})",
                        ty.name(),
                        self.type_name(&other)
                    )));
                }
                None => (Vec::new(), ty.match_flags.get() & MATCH_SELF != 0),
            };
            let allowed = if match_self { 1 } else { match_args.len() };
            if allowed < count {
                let plural = if allowed == 1 { "" } else { "s" };
                return Err(self.type_error(format!(
                    "{}() accepts {allowed} positional sub-pattern{plural} ({count} given)",
                    ty.name()
                )));
            }
            if match_self {
                attrs.push(subject.clone());
            } else {
                for name in &match_args[..count] {
                    let Value::Str(name) = name else {
                        return Err(self.type_error(format!(
                            "__match_args__ elements must be strings (got {})",
                            self.type_name(name)
                        )));
                    };
                    match self.match_class_attr(subject, ty, name, &mut seen)? {
                        Some(attr) => attrs.push(attr),
                        None => return Ok(Value::None),
                    }
                }
            }
        }
        if let Value::Tuple(names) = names {
            for name in names.items.iter() {
                let Value::Str(name) = name else { continue };
                match self.match_class_attr(subject, ty, name, &mut seen)? {
                    Some(attr) => attrs.push(attr),
                    None => return Ok(Value::None),
                }
            }
        }
        Ok(Value::tuple(attrs))
    }

    /// `subject.name` for a class pattern, or None when it has no such attribute; an
    /// attribute named twice is a TypeError.
    fn match_class_attr(
        &mut self,
        subject: &Value,
        ty: &Rc<PyType>,
        name: &Rc<PyStr>,
        seen: &mut Vec<Rc<PyStr>>,
    ) -> PyResult<Option<Value>> {
        if seen.iter().any(|s| s.as_str() == name.as_str()) {
            return Err(self.type_error(format!(
                "{}() got multiple sub-patterns for attribute '{}'",
                ty.name(),
                name.as_str()
            )));
        }
        seen.push(name.clone());
        let name = self.intern(name.as_str());
        match self.get_attr_opt(subject, &name) {
            Ok(attr) => Ok(attr),
            Err(e) if self.exc_matches(&e, &self.types.attribute_error.clone()) => Ok(None),
            Err(e) => Err(e),
        }
    }
}
