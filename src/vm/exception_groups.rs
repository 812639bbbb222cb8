//! `except` and `except*` matching: whether an exception matches a handler's type
//! (`CHECK_EXC_MATCH`), how an exception group splits into the part a handler takes and the
//! rest (`CHECK_EG_MATCH`), and what a `try`/`except*` re-raises (`PREP_RERAISE_STAR`).
//! In: the exception and the handler's type(s); out: bools and new exception groups.
//! Mirrors `_PyEval_ExceptionGroupMatch` (`Python/ceval.c`) and `_PyExc_PrepReraiseStar`
//! (`Objects/exceptions.c`).

use super::value::Value;
use super::{Exc, PyResult, Vm};

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
    /// None for an empty part).
    pub fn split_exception_group(&mut self, exc: &Value, ty: &Value) -> PyResult<(Value, Value)> {
        let Value::Object(e) = exc else {
            return Ok((Value::None, Value::None));
        };
        let is_group = e.class.is_subtype(&self.types.base_exception_group);
        if !is_group {
            if self.exception_matches(exc, ty)? {
                let group = self.call(
                    &Value::Type(self.types.exception_group.clone()),
                    &[Value::str(""), Value::tuple(vec![exc.clone()])],
                    &[],
                )?;
                return Ok((Value::None, group));
            }
            return Ok((exc.clone(), Value::None));
        }
        if self.exception_matches(exc, ty)? {
            return Ok((Value::None, exc.clone()));
        }
        let args = self.exc_args(e);
        let msg = args.first().cloned().unwrap_or(Value::str(""));
        let leaves = match args.get(1) {
            Some(v) => self.collect_iterable(v)?,
            None => vec![],
        };
        let (mut matched, mut rest) = (Vec::new(), Vec::new());
        for leaf in leaves {
            let (r, m) = self.split_exception_group(&leaf, ty)?;
            let leaf_is_group = matches!(&leaf, Value::Object(o) if o.class.is_subtype(&self.types.base_exception_group));
            if !m.is_none() {
                matched.push(if leaf_is_group { m } else { leaf.clone() });
            }
            if !r.is_none() {
                rest.push(r);
            }
        }
        let class = Value::Type(e.class.clone());
        let make = |vm: &mut Vm, items: Vec<Value>| -> PyResult<Value> {
            if items.is_empty() {
                return Ok(Value::None);
            }
            let g = vm.call(&class, &[msg.clone(), Value::list(items)], &[])?;
            if let (Value::Object(new), Some(d)) = (&g, e.exc_data()) {
                let (cause, context) = (d.borrow().cause.clone(), d.borrow().context.clone());
                if let Some(nd) = new.exc_data() {
                    let mut nd = nd.borrow_mut();
                    nd.cause = cause;
                    nd.context = context;
                    nd.traceback = d.borrow().traceback.clone();
                }
            }
            Ok(g)
        };
        let matched = make(self, matched)?;
        let rest = make(self, rest)?;
        Ok((rest, matched))
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
