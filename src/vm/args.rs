//! The one place that binds and checks the arguments of native functions and methods, with
//! CPython's wording (`Python/getargs.c`, `Python/modsupport.c`), and turns the runtime
//! library's errors into exceptions.
//!
//! In: a function's declared parameters and the positional/keyword arguments of a call (self
//! excluded). Out: one slot per parameter, or the `TypeError` CPython raises for that
//! calling convention: [`Signature`] for the methods of the built-in types (`METH_NOARGS`,
//! `METH_O`, Argument Clinic positional-only or with keywords), [`check_arity`] and
//! [`check_kwargs`] for the built-in functions' `PyArg_UnpackTuple` and
//! `_PyArg_NoKeywords` style. Knows only the VM's value and exception constructors.

use std::rc::Rc;

use super::object::{KwArgs, PyType};
use super::value::Value;
use super::{PyResult, Vm};
use crate::common::op_error::OpResult;

/// `helper(...).or_raise(vm)?`: a runtime-library error as the VM exception.
pub trait OrRaise<T> {
    fn or_raise(self, vm: &Vm) -> PyResult<T>;
}

impl<T> OrRaise<T> for OpResult<T> {
    fn or_raise(self, vm: &Vm) -> PyResult<T> {
        self.map_err(|error| vm.op_error(error))
    }
}

/// How a method takes its arguments, which decides the wording of its errors.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Style {
    /// `METH_NOARGS`: "str.upper() takes no arguments (1 given)".
    NoArgs,
    /// `METH_O`: "list.append() takes exactly one argument (0 given)".
    One,
    /// Argument Clinic, positional only: "find expected at least 1 argument, got 0".
    Positional,
    /// Argument Clinic with keywords: "split() takes at most 2 arguments (3 given)".
    Keywords,
}

/// A method's signature: `owner.name(params)`, the first `required` of them mandatory.
/// With [`Style::Keywords`], the first `positional_only` parameters cannot be keywords and
/// the last `keyword_only` can only be keywords.
pub struct Signature {
    pub owner: &'static str,
    pub name: &'static str,
    pub style: Style,
    pub params: &'static [&'static str],
    pub required: usize,
    pub positional_only: usize,
    pub keyword_only: usize,
}

impl Signature {
    pub const fn no_args(owner: &'static str, name: &'static str) -> Signature {
        Signature {
            owner,
            name,
            style: Style::NoArgs,
            params: &[],
            required: 0,
            positional_only: 0,
            keyword_only: 0,
        }
    }

    pub const fn one(owner: &'static str, name: &'static str) -> Signature {
        Signature {
            owner,
            name,
            style: Style::One,
            params: &["arg"],
            required: 1,
            positional_only: 1,
            keyword_only: 0,
        }
    }

    pub const fn positional(
        owner: &'static str,
        name: &'static str,
        params: &'static [&'static str],
        required: usize,
    ) -> Signature {
        Signature {
            owner,
            name,
            style: Style::Positional,
            params,
            required,
            positional_only: params.len(),
            keyword_only: 0,
        }
    }

    pub const fn keywords(
        owner: &'static str,
        name: &'static str,
        params: &'static [&'static str],
        required: usize,
        positional_only: usize,
    ) -> Signature {
        Signature {
            owner,
            name,
            style: Style::Keywords,
            params,
            required,
            positional_only,
            keyword_only: 0,
        }
    }

    /// This signature with its last `n` parameters keyword-only (`f(a, *, b, c)`).
    pub const fn keyword_only(self, n: usize) -> Signature {
        Signature {
            keyword_only: n,
            ..self
        }
    }

    /// How many arguments may be given by position.
    const fn max_positional(&self) -> usize {
        self.params.len() - self.keyword_only
    }

    /// Only check that `args` and `kw` fit the parameters (what [`Signature::bind`] raises
    /// when they do not), for a method that reads `args` itself: no allocation when the
    /// required ones are positional and the rest fit.
    #[inline]
    pub fn check(&self, vm: &Vm, args: &[Value], kw: &KwArgs) -> PyResult<()> {
        let given = args.len();
        let fits = kw.is_empty()
            && match self.style {
                Style::NoArgs => given == 0,
                Style::One => given == 1,
                Style::Positional | Style::Keywords => {
                    self.required <= given && given <= self.max_positional()
                }
            };
        if fits {
            return Ok(());
        }
        self.check_keywords(vm, args, kw)
    }

    /// [`Signature::check`] when keywords are given.
    #[inline(never)]
    fn check_keywords(&self, vm: &Vm, args: &[Value], kw: &KwArgs) -> PyResult<()> {
        let given = args.len();
        if self.style == Style::Keywords && self.required <= given && given <= self.max_positional()
        {
            let by_name = &self.params[given.max(self.positional_only)..];
            if kw.iter().all(|(k, _)| by_name.contains(&k.as_str())) {
                return Ok(());
            }
        }
        self.bind(vm, args, kw).map(drop)
    }

    /// Bind `args` and `kw` to the parameters: `None` for an omitted optional one.
    pub fn bind(&self, vm: &Vm, args: &[Value], kw: &KwArgs) -> PyResult<Vec<Option<Value>>> {
        let given = args.len();
        let plural = |n: usize| if n == 1 { "" } else { "s" };
        let (owner, name) = (self.owner, self.name);
        match self.style {
            Style::NoArgs | Style::One | Style::Positional if !kw.is_empty() => {
                return Err(vm.type_error(format!("{owner}.{name}() takes no keyword arguments")));
            }
            Style::NoArgs if given > 0 => {
                return Err(vm.type_error(format!(
                    "{owner}.{name}() takes no arguments ({given} given)"
                )));
            }
            Style::One if given != 1 => {
                return Err(vm.type_error(format!(
                    "{owner}.{name}() takes exactly one argument ({given} given)"
                )));
            }
            Style::Positional if given < self.required || given > self.params.len() => {
                let (bound, which) = if given < self.required {
                    (self.required, "at least ")
                } else {
                    (self.params.len(), "at most ")
                };
                let which = if self.required == self.params.len() {
                    ""
                } else {
                    which
                };
                return Err(vm.type_error(format!(
                    "{name} expected {which}{bound} argument{}, got {given}",
                    plural(bound)
                )));
            }
            // `_PyArg_UnpackKeywords` counts keywords in: "split() takes at most 2
            // keyword arguments (3 given)" when all were keywords.
            Style::Keywords if given + kw.len() > self.params.len() => {
                let most = self.params.len();
                let what = if given == 0 {
                    "keyword argument"
                } else {
                    "argument"
                };
                return Err(vm.type_error(format!(
                    "{name}() takes at most {most} {what}{} ({} given)",
                    plural(most),
                    given + kw.len()
                )));
            }
            Style::Keywords if given > self.max_positional() => {
                let most = self.max_positional();
                if most == 0 {
                    return Err(vm.type_error(format!("{name}() takes no positional arguments")));
                }
                let which = if self.required < most {
                    "at most"
                } else {
                    "exactly"
                };
                return Err(vm.type_error(format!(
                    "{name}() takes {which} {most} positional argument{} ({given} given)",
                    plural(most)
                )));
            }
            _ => {}
        }
        let mut slots: Vec<Option<Value>> = args.iter().cloned().map(Some).collect();
        slots.resize(self.params.len(), None);
        for (key, value) in kw {
            let position = self.params.iter().position(|p| *p == key.as_str());
            let Some(position) = position.filter(|p| *p >= self.positional_only) else {
                let keywords = self.params[self.positional_only..].iter().copied();
                let hint = match crate::common::suggestions::suggest(key.as_str(), keywords) {
                    Some(close) => format!(". Did you mean '{close}'?"),
                    None => String::new(),
                };
                return Err(vm.type_error(format!(
                    "{name}() got an unexpected keyword argument '{}'{hint}",
                    key.as_str()
                )));
            };
            if slots[position].is_some() {
                return Err(vm.type_error(format!(
                    "argument for {name}() given by name ('{}') and position ({})",
                    key.as_str(),
                    position + 1
                )));
            }
            slots[position] = Some(value.clone());
        }
        if let Some(missing) = slots[..self.required].iter().position(Option::is_none) {
            if missing < self.positional_only || given < self.positional_only.min(self.required) {
                let least = self.positional_only.min(self.required);
                return Err(vm.type_error(format!(
                    "{name}() takes at least {least} positional argument{} ({given} given)",
                    plural(least)
                )));
            }
            return Err(vm.type_error(format!(
                "{name}() missing required argument '{}' (pos {})",
                self.params[missing],
                missing + 1
            )));
        }
        Ok(slots)
    }
}

/// A keyword argument by name.
pub fn kwarg(kw: &KwArgs, name: &str) -> Option<Value> {
    kw.iter()
        .find(|(k, _)| k.as_str() == name)
        .map(|(_, v)| v.clone())
}

/// Rejects keyword arguments other than `allowed`.
pub fn check_kwargs(vm: &Vm, fname: &str, kw: &KwArgs, allowed: &[&str]) -> PyResult<()> {
    for (k, _) in kw {
        if !allowed.contains(&k.as_str()) {
            if allowed.is_empty() {
                return Err(vm.type_error(format!("{fname}() takes no keyword arguments")));
            }
            let hint =
                match crate::common::suggestions::suggest(k.as_str(), allowed.iter().copied()) {
                    Some(close) => format!(". Did you mean '{close}'?"),
                    None => String::new(),
                };
            return Err(vm.type_error(format!(
                "{fname}() got an unexpected keyword argument '{}'{hint}",
                k.as_str()
            )));
        }
    }
    Ok(())
}

/// Checks the positional argument count (`f() takes exactly one argument (2 given)` style).
pub fn check_arity(vm: &Vm, fname: &str, args: &[Value], min: usize, max: usize) -> PyResult<()> {
    let n = args.len();
    if n >= min && n <= max {
        return Ok(());
    }
    Err(vm.type_error(if max == 0 {
        format!("{fname}() takes no arguments ({n} given)")
    } else if min == max && min == 1 {
        format!("{fname}() takes exactly one argument ({n} given)")
    } else if min == max {
        format!("{fname} expected {min} arguments, got {n}")
    } else if n < min {
        format!(
            "{fname} expected at least {min} argument{}, got {n}",
            if min == 1 { "" } else { "s" }
        )
    } else {
        format!(
            "{fname} expected at most {max} argument{}, got {n}",
            if max == 1 { "" } else { "s" }
        )
    }))
}

/// Splits `(cls, *args)` as passed to `owner.__new__`, checking `cls` as CPython's
/// `tp_new_wrapper` does: a subtype of `owner` whose nearest built-in class is `owner`
/// itself (`int.__new__(bool)` is refused: bool has a `__new__` of its own).
pub fn split_cls_of<'a>(
    vm: &Vm,
    owner: &Rc<PyType>,
    args: &'a [Value],
) -> PyResult<(Rc<PyType>, &'a [Value])> {
    let (cls, rest) = split_cls(vm, args)?;
    let (o, c) = (owner.name(), cls.name());
    if !cls.is_subtype(owner) {
        return Err(vm.type_error(format!("{o}.__new__({c}): {c} is not a subtype of {o}")));
    }
    let nearest = cls.mro.borrow().iter().find(|t| t.builtin).cloned();
    if let Some(nearest) = nearest.filter(|t| !Rc::ptr_eq(t, owner)) {
        let n = nearest.name();
        return Err(vm.type_error(format!("{o}.__new__({c}) is not safe, use {n}.__new__()")));
    }
    Ok((cls, rest))
}

/// Splits `(cls, *args)` as passed to a `__new__`.
pub fn split_cls<'a>(vm: &Vm, args: &'a [Value]) -> PyResult<(Rc<PyType>, &'a [Value])> {
    match args.first() {
        Some(Value::Type(t)) => Ok((t.clone(), &args[1..])),
        _ => Err(vm.type_error("__new__(X): X is not a type object")),
    }
}
