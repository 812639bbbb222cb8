//! Entering `with` and `async with` blocks (`BEFORE_WITH`, `BEFORE_ASYNC_WITH`): looks up
//! `__enter__`/`__exit__` (or `__aenter__`/`__aexit__`) on the manager's type, calls the
//! first and binds the second. In: the manager; out: the bound exit and what `__enter__`
//! returned (or the awaitable `__aenter__` did). Mirrors those instructions in
//! `Python/bytecodes.c` (`_PyObject_LookupSpecial`).

use super::types;
use super::value::Value;
use super::{PyResult, Vm};
use crate::compile::bytecode::AwaitSite;

impl Vm {
    /// `with` / `async with` entry: the bound `__exit__`/`__aexit__` and the result of
    /// `__enter__()` (or the awaitable from `__aenter__()`).
    pub(super) fn enter_context(
        &mut self,
        mgr: &Value,
        is_async: bool,
    ) -> PyResult<(Value, Value)> {
        let (enter_name, exit_name) = if is_async {
            (self.names.aenter.clone(), self.names.aexit.clone())
        } else {
            (self.names.enter.clone(), self.names.exit.clone())
        };
        let ty = self.type_of(mgr).clone();
        let enter = types::lookup(&ty, &enter_name);
        let exit = types::lookup(&ty, &exit_name);
        let (Some(enter), Some(exit)) = (enter, exit) else {
            let what = if is_async {
                "asynchronous context manager"
            } else {
                "context manager"
            };
            let missing = if is_async { "__aexit__" } else { "__exit__" };
            let enter_missing = types::lookup(&ty, &enter_name).is_none();
            let extra = if enter_missing {
                String::new()
            } else {
                format!(" (missed {missing} method)")
            };
            return Err(self.type_error(format!(
                "'{}' object does not support the {what} protocol{extra}",
                ty.name()
            )));
        };
        let exit = self.bind_special(exit, mgr);
        // `enter` is called at once: a method gets `mgr` as its first argument instead of
        // being bound first (what a bound method's call would do, without making one).
        let result = if types::is_plain_method(&enter) {
            self.call(&enter, std::slice::from_ref(mgr), &[])?
        } else {
            self.call(&enter, &[], &[])?
        };
        if is_async {
            let awaitable = self.get_awaitable(result, AwaitSite::AsyncWithEnter)?;
            return Ok((exit, awaitable));
        }
        Ok((exit, result))
    }

    /// Binds a function found on a type to `obj` (for implicit dunder calls).
    pub(super) fn bind_special(&self, f: Value, obj: &Value) -> Value {
        if types::is_plain_method(&f) {
            self.bound_method(f, obj.clone())
        } else {
            f
        }
    }
}
