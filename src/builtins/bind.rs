//! `_bind`: binds a call's arguments to a parameter list that a library module decides at
//! run time, with the very TypeErrors a `def` with those parameters raises. CPython's
//! `namedtuple` and `dataclass` write the source of `__new__`/`__init__` and `exec` it;
//! apy's `collections.apy` and `dataclasses.apy` define one generic `(self, *args,
//! **kwargs)` method instead and call [`bind_method`] with the fields. In: the method's
//! qualified name, its parameters after `self` (positional-or-keyword with their trailing
//! defaults, keyword-only with theirs) and the call's arguments after `self`. Out: a list of
//! one value per parameter. Mirrors `initialize_locals` in `Python/ceval.c` (keywords
//! first, then too many positional, then the missing ones); the texts are the VM's own
//! (`vm/call.rs`), so a generated method words its errors as a compiled one does.

use crate::common::suggestions::suggest;
use crate::vm::args::check_arity;
use crate::vm::call::{missing_arguments_text, too_many_positional_text};
use crate::vm::dict::StrKeys;
use crate::vm::object::KwArgs;
use crate::vm::value::{PyStr, Value};
use crate::vm::{PyResult, Vm};

use std::rc::Rc;

/// The names of a tuple of strings.
fn names(vm: &Vm, v: &Value) -> PyResult<Vec<Rc<PyStr>>> {
    let Value::Tuple(t) = v else {
        return Err(vm.type_error("bind_method() parameter names must be a tuple"));
    };
    t.items
        .iter()
        .map(|n| match n {
            Value::Str(s) => Ok(s.clone()),
            _ => Err(vm.type_error("bind_method() parameter names must be strings")),
        })
        .collect()
}

/// `bind_method(qualname, params, defaults, kwonly, kwdefaults, args, kwargs)`.
fn bind_method(vm: &mut Vm, a: &[Value], _: &KwArgs) -> PyResult<Value> {
    check_arity(vm, "bind_method", a, 7, 7)?;
    let [qualname, params, defaults, kwonly, kwdefaults, args, kwargs] = a else {
        return Ok(Value::None);
    };
    let qualname = vm.str_of(qualname)?;
    let qualname = qualname.as_str();
    let (params, kwonly) = (names(vm, params)?, names(vm, kwonly)?);
    let (Value::Tuple(defaults), Value::Dict(kwdefaults)) = (defaults, kwdefaults) else {
        return Err(vm.type_error("bind_method() takes defaults as a tuple and a dict"));
    };
    let (Value::Tuple(args), Value::Dict(kwargs)) = (args, kwargs) else {
        return Err(vm.type_error("bind_method() takes the arguments as a tuple and a dict"));
    };
    let argcount = params.len();
    let mut slots: Vec<Option<Value>> = vec![None; argcount + kwonly.len()];
    for (slot, v) in slots[..argcount].iter_mut().zip(args.items.iter()) {
        *slot = Some(v.clone());
    }
    let given: Vec<(Value, Value)> = kwargs.table.borrow().snapshot();
    for (key, value) in given {
        let key = vm.str_of(&key)?;
        let position = params
            .iter()
            .chain(kwonly.iter())
            .position(|p| p.as_str() == key.as_str());
        let Some(position) = position else {
            let candidates = params.iter().chain(kwonly.iter()).map(|p| p.as_str());
            let hint = match suggest(key.as_str(), candidates) {
                Some(close) => format!(". Did you mean '{close}'?"),
                None => String::new(),
            };
            return Err(vm.type_error(format!(
                "{qualname}() got an unexpected keyword argument '{}'{hint}",
                key.as_str()
            )));
        };
        if slots[position].is_some() {
            return Err(vm.type_error(format!(
                "{qualname}() got multiple values for argument '{}'",
                key.as_str()
            )));
        }
        slots[position] = Some(value);
    }
    if args.items.len() > argcount {
        let kwonly_given = slots[argcount..].iter().filter(|s| s.is_some()).count();
        return Err(vm.type_error(too_many_positional_text(
            qualname,
            argcount + 1,
            defaults.items.len(),
            args.items.len() + 1,
            kwonly_given,
        )));
    }
    let first_default = argcount.saturating_sub(defaults.items.len());
    let missing: Vec<&str> = (0..first_default)
        .filter(|&i| slots[i].is_none())
        .map(|i| params[i].as_str())
        .collect();
    if !missing.is_empty() {
        return Err(vm.type_error(missing_arguments_text(qualname, &missing, "positional")));
    }
    for (slot, default) in slots[first_default..argcount]
        .iter_mut()
        .zip(defaults.items.iter())
    {
        if slot.is_none() {
            *slot = Some(default.clone());
        }
    }
    let mut missing = Vec::new();
    for (i, name) in kwonly.iter().enumerate() {
        let slot = &mut slots[argcount + i];
        if slot.is_none() {
            match kwdefaults.table.borrow().get_str(name) {
                Some(v) => *slot = Some(v.clone()),
                None => missing.push(name.as_str()),
            }
        }
    }
    if !missing.is_empty() {
        return Err(vm.type_error(missing_arguments_text(qualname, &missing, "keyword-only")));
    }
    Ok(Value::list(slots.into_iter().flatten().collect()))
}

pub fn module(vm: &mut Vm) -> Value {
    let attrs = vec![("bind_method", vm.native("bind_method", bind_method))];
    vm.new_module("_bind", attrs)
}
