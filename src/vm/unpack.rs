//! Unpacking assignments: `a, b = seq` (`UNPACK_SEQUENCE`) and `a, *rest, b = seq`
//! (`UNPACK_EX`). In: the sequence; out: its items pushed in reverse, so the first is on
//! top, or CPython's ValueError/TypeError. Mirrors `_PyEval_UnpackIterable`
//! (`Python/ceval.c`).

use super::frame::Frame;
use super::value::Value;
use super::{PyResult, Vm};

impl Vm {
    pub(super) fn unpack_sequence(
        &mut self,
        frame: &mut Frame,
        seq: Value,
        n: usize,
    ) -> PyResult<()> {
        match &seq {
            Value::Tuple(t) if t.items.len() == n => {
                frame.stack.extend(t.items.iter().rev().cloned());
                return Ok(());
            }
            Value::List(l) if l.items.borrow().len() == n => {
                frame.stack.extend(l.items.borrow().iter().rev().cloned());
                return Ok(());
            }
            _ => {}
        }
        let iter = match self.get_iter(&seq) {
            Ok(it) => it,
            Err(_) => {
                return Err(self.type_error(format!(
                    "cannot unpack non-iterable {} object",
                    self.type_name(&seq)
                )));
            }
        };
        let mut items = Vec::with_capacity(n);
        while let Some(v) = self.next(&iter)? {
            if items.len() == n {
                return Err(self.value_error(format!("too many values to unpack (expected {n})")));
            }
            items.push(v);
        }
        if items.len() < n {
            return Err(self.value_error(format!(
                "not enough values to unpack (expected {n}, got {})",
                items.len()
            )));
        }
        frame.stack.extend(items.into_iter().rev());
        Ok(())
    }

    /// `UnpackEx(arg)`: `arg & 0xff` targets before the starred one, `arg >> 8` after it.
    #[inline(never)]
    pub(super) fn unpack_ex(&mut self, frame: &mut Frame, arg: u32) -> PyResult<()> {
        let seq = frame.stack.pop().unwrap_or(Value::Null);
        let before = (arg & 0xff) as usize;
        let after = (arg >> 8) as usize;
        let items = self.collect_for_unpack(&seq)?;
        if items.len() < before + after {
            return Err(self.value_error(format!(
                "not enough values to unpack (expected at least {}, got {})",
                before + after,
                items.len()
            )));
        }
        let mid_end = items.len() - after;
        for v in items[mid_end..].iter().rev() {
            frame.stack.push(v.clone());
        }
        frame
            .stack
            .push(Value::list(items[before..mid_end].to_vec()));
        for v in items[..before].iter().rev() {
            frame.stack.push(v.clone());
        }
        Ok(())
    }

    fn collect_for_unpack(&mut self, seq: &Value) -> PyResult<Vec<Value>> {
        if !self.is_iterable(seq) {
            return Err(self.type_error(format!(
                "cannot unpack non-iterable {} object",
                self.type_name(seq)
            )));
        }
        self.collect_iterable(seq)
    }
}
