//! The VM's view of the runtime library's hash tables (`builtins::set_table`): dicts and
//! attribute namespaces are `DictTable<Value, Value>`, sets are `SetTable<Value>`, and
//! `str`-keyed access (globals, attributes, keyword arguments) never runs user code, so it
//! needs no VM. Value-keyed access that may call `__eq__` lives in `ops`.

use std::convert::Infallible;
use std::rc::Rc;

use super::value::{PyStr, Value};
use crate::vm::value::DictTable;
use crate::vm::value::SetTable;

/// Lookups by `str` key (interned or not), which never need user code.
pub trait StrKeys {
    fn get_str(&self, key: &PyStr) -> Option<&Value>;
    /// The entry position of `key` (for [`DictTable::entry`]).
    fn position_str(&self, key: &PyStr) -> Option<usize>;
    fn set_str(&mut self, key: Rc<PyStr>, value: Value);
    fn remove_str(&mut self, key: &PyStr) -> Option<Value>;
    fn keys(&self) -> Vec<Value>;
}

/// Whether a stored key is the str `key`: a str, or an instance of a str subclass whose
/// text it is (its `==` taken to be str's: a subclass's own `__eq__` is not run here).
fn str_key_eq(stored: &Value, key: &PyStr) -> Result<bool, Infallible> {
    Ok(match stored.str_or_subclass() {
        Some(s) => std::ptr::eq(Rc::as_ptr(s), key) || s.as_str() == key.as_str(),
        None => false,
    })
}

fn unwrap<T>(r: Result<T, Infallible>) -> T {
    match r {
        Ok(v) => v,
        Err(never) => match never {},
    }
}

impl StrKeys for DictTable {
    #[inline]
    fn get_str(&self, key: &PyStr) -> Option<&Value> {
        // The probe key is only ever handed to the comparison, which uses `key` itself.
        unwrap(self.get(&Value::Null, key.hash(), |stored, _| {
            str_key_eq(stored, key)
        }))
    }

    #[inline]
    fn position_str(&self, key: &PyStr) -> Option<usize> {
        unwrap(self.position(&Value::Null, key.hash(), |stored, _| {
            str_key_eq(stored, key)
        }))
    }

    fn set_str(&mut self, key: Rc<PyStr>, value: Value) {
        let hash = key.hash();
        let probe = key.clone();
        let old = unwrap(self.insert(Value::Str(key), hash, value, |stored, _| {
            str_key_eq(stored, &probe)
        }));
        drop(old);
    }

    fn remove_str(&mut self, key: &PyStr) -> Option<Value> {
        unwrap(self.remove(&Value::Null, key.hash(), |stored, _| {
            str_key_eq(stored, key)
        }))
        .map(|(_, v)| v)
    }

    fn keys(&self) -> Vec<Value> {
        self.iter().map(|e| e.key.clone()).collect()
    }
}

/// The keys of a set table, in CPython's iteration order.
pub fn set_keys(table: &SetTable) -> Vec<Value> {
    table.iter().map(|(k, _)| k.clone()).collect()
}
