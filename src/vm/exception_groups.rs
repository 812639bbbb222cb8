//! `except` and `except*` matching: whether an exception matches a handler's type
//! (`CHECK_EXC_MATCH`), how an exception group splits into the part a handler takes and the
//! rest (`CHECK_EG_MATCH`), and what a `try`/`except*` re-raises (`PREP_RERAISE_STAR`).
//! In: the exception and the handler's type(s); out: bools and new exception groups.
//! Mirrors `_PyEval_ExceptionGroupMatch` (`Python/ceval.c`) and `_PyExc_PrepReraiseStar`
//! (`Objects/exceptions.c`).

use super::value::Value;
use super::{Exc, PyResult, Vm};

impl Vm {
    /// `PySequence_Check`: a list, tuple or str, or an object with `__getitem__` that is
    /// not a dict.
    fn is_sequence(&self, v: &Value) -> bool {
        match v {
            Value::List(_) | Value::Tuple(_) | Value::Str(_) => true,
            Value::Object(o) if o.builtin_base().is_none() => {
                super::types::lookup(&o.class, &self.names.getitem).is_some()
            }
            _ => false,
        }
    }
}

/// How `split`/`subgroup` choose (CPython's `_exceptiongroup_split_matcher_type`).
enum Matcher {
    /// An exception class or a tuple of them.
    Types(Value),
    /// A callable other than a class, asked about each exception.
    Predicate(Value),
}

impl Vm {
    /// `except T:` matching, with CPython's TypeError for non-exception classes.
    pub fn exception_matches(&mut self, exc: &Value, ty: &Value) -> PyResult<bool> {
        let base = &self.types.base_exception;
        let matches_one = |t: &Value| match t {
            Value::Type(t) if t.is_subtype(base) => Some(self.type_of(exc).is_subtype(t)),
            _ => None,
        };
        let result = match ty {
            Value::Tuple(types) => {
                let mut any = Some(false);
                for t in types.items.iter() {
                    match matches_one(t) {
                        Some(m) => any = any.map(|a| a || m),
                        None => any = None,
                    }
                }
                any
            }
            single => matches_one(single),
        };
        result.ok_or_else(|| {
            self.type_error(
                "catching classes that do not inherit from BaseException is not allowed",
            )
        })
    }

    /// `except*`: splits `exc` into the part matching `ty` and the rest (`(rest, match)`;
    /// None for an empty part). A bare exception that matches is wrapped in a group
    /// (`exception_group_match`).
    pub fn split_exception_group(&mut self, exc: &Value, ty: &Value) -> PyResult<(Value, Value)> {
        let Value::Object(e) = exc else {
            return Ok((Value::None, Value::None));
        };
        let is_group = e.class.is_subtype(&self.types.base_exception_group);
        if self.exception_matches(exc, ty)? {
            if is_group {
                return Ok((Value::None, exc.clone()));
            }
            let group = self.call(
                &Value::Type(self.types.exception_group.clone()),
                &[Value::str(""), Value::tuple(vec![exc.clone()])],
                &[],
            )?;
            if let (Value::Object(g), Some(d)) = (&group, e.exc_data())
                && let Some(gd) = g.exc_data()
            {
                gd.borrow_mut().traceback = d.borrow().traceback.clone();
            }
            return Ok((Value::None, group));
        }
        if !is_group {
            return Ok((exc.clone(), Value::None));
        }
        let (matched, rest) = self.group_split(exc, &Matcher::Types(ty.clone()), true)?;
        Ok((rest.unwrap_or(Value::None), matched.unwrap_or(Value::None)))
    }

    /// `eg.split(matcher)` and `eg.subgroup(matcher)` (`construct_rest` false): the
    /// matching part and the rest, each None when empty.
    pub fn split_group_by(
        &mut self,
        exc: &Value,
        matcher: &Value,
        construct_rest: bool,
    ) -> PyResult<(Value, Value)> {
        let matcher = self.matcher(matcher)?;
        let (matched, rest) = self.group_split(exc, &matcher, construct_rest)?;
        Ok((matched.unwrap_or(Value::None), rest.unwrap_or(Value::None)))
    }

    /// CPython's `get_matcher_type`: a callable other than a class is a predicate.
    fn matcher(&mut self, value: &Value) -> PyResult<Matcher> {
        let base = self.types.base_exception.clone();
        let is_exc_class = |v: &Value| matches!(v, Value::Type(t) if t.is_subtype(&base));
        if !matches!(value, Value::Type(_)) && self.is_callable(value) {
            return Ok(Matcher::Predicate(value.clone()));
        }
        let valid = match value {
            Value::Tuple(items) => items.items.iter().all(is_exc_class),
            other => is_exc_class(other),
        };
        if valid {
            return Ok(Matcher::Types(value.clone()));
        }
        Err(self.type_error(
            "expected an exception type, a tuple of exception types, or a callable (other than a class)",
        ))
    }

    /// `exceptiongroup_split_recursive`: `(match, rest)` of `exc`.
    fn group_split(
        &mut self,
        exc: &Value,
        matcher: &Matcher,
        construct_rest: bool,
    ) -> PyResult<(Option<Value>, Option<Value>)> {
        let is_match = match matcher {
            Matcher::Types(ty) => self.exception_matches(exc, ty)?,
            Matcher::Predicate(f) => {
                let verdict = self.call(f, std::slice::from_ref(exc), &[])?;
                self.truthy(&verdict)?
            }
        };
        if is_match {
            return Ok((Some(exc.clone()), None));
        }
        let group = match exc {
            Value::Object(e) if e.class.is_subtype(&self.types.base_exception_group) => e.clone(),
            _ => return Ok((None, construct_rest.then(|| exc.clone()))),
        };
        let (_, items) = super::exceptions::group_parts(self, exc)?;
        let (mut matched, mut rest) = (Vec::new(), Vec::new());
        for item in &items {
            self.enter_recursion()?;
            let parts = self.group_split(item, matcher, construct_rest);
            self.leave_recursion();
            let (m, r) = parts?;
            matched.extend(m);
            rest.extend(r);
        }
        let matched = self.group_subset(&group, matched)?;
        let rest = match construct_rest {
            true => self.group_subset(&group, rest)?,
            false => None,
        };
        Ok((matched, rest))
    }

    /// `exceptiongroup_subset`: `orig.derive(items)` with `orig`'s traceback, cause,
    /// context and a copy of its `__notes__`; None for no items.
    fn group_subset(&mut self, orig: &Exc, items: Vec<Value>) -> PyResult<Option<Value>> {
        if items.is_empty() {
            return Ok(None);
        }
        let orig_value = Value::Object(orig.clone());
        let derive = self.intern("derive");
        let method = self.get_attr(&orig_value, &derive)?;
        let derived = self.call(&method, &[Value::list(items)], &[])?;
        let group = match &derived {
            Value::Object(g) if g.class.is_subtype(&self.types.base_exception_group) => g.clone(),
            _ => {
                return Err(self.type_error("derive must return an instance of BaseExceptionGroup"));
            }
        };
        if std::rc::Rc::ptr_eq(orig, &group) {
            // A `derive` that gives `orig` back: copying its parts onto itself changes only
            // the flag setting the cause sets.
            if let Some(d) = orig.exc_data() {
                d.borrow_mut().suppress_context = true;
            }
        } else if let (Some(d), Some(gd)) = (orig.exc_data(), group.exc_data()) {
            let d = d.borrow();
            let mut gd = gd.borrow_mut();
            gd.traceback = d.traceback.clone();
            gd.context = d.context.clone();
            gd.cause = d.cause.clone();
            gd.suppress_context = true;
        }
        let notes_name = self.names.notes.clone();
        if let Some(notes) = self.get_attr_opt(&orig_value, &notes_name)?
            && self.is_sequence(&notes)
        {
            // PySequence_List: a copy, so the parts' notes are their own.
            let copy = Value::list(self.collect_iterable(&notes)?);
            self.set_attr(&derived, &notes_name, copy)?;
        }
        Ok(Some(derived))
    }

    /// `_PyExc_PrepReraiseStar`: what a `try/except*` re-raises, given the original
    /// exception and what the handlers raised or re-raised.
    pub(super) fn prep_reraise_star(&mut self, orig: &Value, excs: &Value) -> PyResult<Value> {
        let excs: Vec<Value> = self
            .collect_iterable(excs)?
            .into_iter()
            .filter(|e| !e.is_none())
            .collect();
        if excs.is_empty() {
            return Ok(Value::None);
        }
        let orig_is_group = matches!(orig, Value::Object(o) if o.class.is_subtype(&self.types.base_exception_group));
        if !orig_is_group {
            return Ok(excs[0].clone());
        }
        let mut orig_leaves = Vec::new();
        self.group_leaves(orig, &mut orig_leaves)?;
        let (mut raised, mut reraised_leaves) = (Vec::new(), Vec::new());
        for e in excs {
            let mut leaves = Vec::new();
            self.group_leaves(&e, &mut leaves)?;
            if leaves.iter().all(|l| orig_leaves.iter().any(|o| o.is(l))) {
                reraised_leaves.extend(leaves);
            } else {
                raised.push(e);
            }
        }
        let reraised = self.project_group(orig, &reraised_leaves)?;
        if raised.is_empty() {
            return Ok(reraised);
        }
        if !reraised.is_none() {
            raised.push(reraised);
        }
        if raised.len() == 1 {
            return Ok(raised.remove(0));
        }
        let eg = Value::Type(self.types.exception_group.clone());
        self.call(&eg, &[Value::str(""), Value::list(raised)], &[])
    }

    /// The leaf exceptions of a (possibly nested) exception group.
    fn group_leaves(&mut self, exc: &Value, out: &mut Vec<Value>) -> PyResult<()> {
        match exc {
            Value::Object(e) if e.class.is_subtype(&self.types.base_exception_group) => {
                let children = match self.exc_args(e).get(1) {
                    Some(v) => self.collect_iterable(v)?,
                    None => vec![],
                };
                for child in &children {
                    self.group_leaves(child, out)?;
                }
                Ok(())
            }
            other => {
                out.push(other.clone());
                Ok(())
            }
        }
    }

    /// A copy of group `exc` keeping only the leaves in `keep` (None if none is left).
    fn project_group(&mut self, exc: &Value, keep: &[Value]) -> PyResult<Value> {
        let Value::Object(e) = exc else {
            return Ok(Value::None);
        };
        if !e.class.is_subtype(&self.types.base_exception_group) {
            return Ok(if keep.iter().any(|k| k.is(exc)) {
                exc.clone()
            } else {
                Value::None
            });
        }
        let args = self.exc_args(e);
        let children = match args.get(1) {
            Some(v) => self.collect_iterable(v)?,
            None => vec![],
        };
        let mut kept = Vec::new();
        for child in &children {
            let projected = self.project_group(child, keep)?;
            if !projected.is_none() {
                kept.push(projected);
            }
        }
        if kept.len() == children.len() {
            return Ok(exc.clone());
        }
        self.derive_group(e, kept)
    }

    /// `eg.derive(items)` keeping the original's cause, context and traceback.
    fn derive_group(&mut self, e: &Exc, items: Vec<Value>) -> PyResult<Value> {
        if items.is_empty() {
            return Ok(Value::None);
        }
        let msg = self.exc_args(e).first().cloned().unwrap_or(Value::str(""));
        let g = self.call(
            &Value::Type(e.class.clone()),
            &[msg, Value::list(items)],
            &[],
        )?;
        if let (Value::Object(new), Some(d)) = (&g, e.exc_data()) {
            let d = d.borrow();
            if let Some(nd) = new.exc_data() {
                let mut nd = nd.borrow_mut();
                nd.cause = d.cause.clone();
                nd.context = d.context.clone();
                nd.traceback = d.traceback.clone();
            }
        }
        Ok(g)
    }
}
