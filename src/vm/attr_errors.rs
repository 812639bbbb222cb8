//! Building an AttributeError: CPython's message for each kind of object (a type, a
//! module by its `__name__`, an instance), the near miss it suggests, the note for a name
//! CPython's module has and apy's lacks, and the name and object that an AttributeError
//! raised by a lookup's own code (a `__getattr__`, a property) is given afterwards
//! (`set_attribute_error_context`).

use super::Vm;
use super::dict::StrKeys;
use super::object::ObjectKind;
use super::types::module_dict_str;
use super::value::{PyStr, Value};

impl Vm {
    /// An AttributeError that a lookup of `obj.name` raised itself (a `__getattr__`, a
    /// property) and that names no attribute and object gets these two, so that its
    /// report can suggest a near miss, as CPython's `set_attribute_error_context` does.
    pub(super) fn attribute_error_context(
        &mut self,
        exc: super::Exc,
        obj: &Value,
        name: &PyStr,
    ) -> super::Exc {
        let unnamed = exc.exc_data().is_some_and(|data| {
            data.borrow()
                .missing
                .as_ref()
                .is_none_or(|m| m.name.is_none() && m.obj.is_none())
        });
        let attribute_error = self.types.attribute_error.clone();
        if unnamed && self.isinstance(&Value::Object(exc.clone()), &attribute_error) {
            super::exceptions::set_missing(&exc, Value::str(name.as_str()), obj.clone(), false);
        }
        exc
    }

    pub fn no_attribute(&mut self, obj: &Value, name: &PyStr) -> super::Exc {
        let exc = self.no_attribute_suggesting(obj, name);
        // Its `name` and `obj`, as CPython's generic lookup sets them.
        super::exceptions::set_missing(&exc, Value::str(name.as_str()), obj.clone(), true);
        exc
    }

    fn no_attribute_suggesting(&mut self, obj: &Value, name: &PyStr) -> super::Exc {
        // A name CPython's module has and apy's lacks is named as such, with no near miss.
        if let Some(module) = lacked_module_name(obj, name) {
            let (name, note) = (name.as_str(), super::cpython_names::OUTSIDE_THE_SUBSET);
            return self.attribute_error(format!(
                "module '{module}' has no attribute '{name}' {note}"
            ));
        }
        let exc = self.no_attribute_plain(obj, name);
        let candidates = self.attribute_candidates(obj);
        super::exceptions::with_suggestion(exc, name, &candidates)
    }

    /// The names a "Did you mean" for an attribute of `obj` picks from: those of its own
    /// attributes (a module's globals) and its class's, in `sorted(dir(obj))` order.
    pub(super) fn attribute_candidates(&self, obj: &Value) -> Vec<Value> {
        let mut candidates: Vec<Value> = Vec::new();
        match obj {
            Value::Object(o) => {
                if let Some(attrs) = o.attr_storage() {
                    candidates.extend(attrs.names());
                }
                if let ObjectKind::Module { dict, .. } = &o.kind {
                    candidates.extend(dict.table.borrow().keys());
                }
            }
            Value::Type(t) => {
                for base in t.mro() {
                    candidates.extend(base.dict.borrow().keys());
                }
            }
            _ => {}
        }
        for base in self.type_of(obj).mro() {
            candidates.extend(base.dict.borrow().keys());
        }
        // CPython looks through `sorted(dir(obj))`: of two names equally close, the first
        // in that order is suggested.
        candidates.sort_by(|a, b| a.as_str().cmp(&b.as_str()));
        candidates.dedup_by(|a, b| a.as_str() == b.as_str());
        candidates
    }

    fn no_attribute_plain(&mut self, obj: &Value, name: &PyStr) -> super::Exc {
        let msg = match obj {
            Value::Type(t) => format!(
                "type object '{}' has no attribute '{}'",
                self.tp_name(t),
                name.as_str()
            ),
            Value::Object(o) if matches!(o.kind, ObjectKind::Module { .. }) => {
                let ObjectKind::Module { dict, .. } = &o.kind else {
                    unreachable!()
                };
                // Named by its `__name__`, as CPython's `module_getattro` names it.
                match module_dunder_name(dict) {
                    Some(m) => self.module_no_attribute(&m, dict, name.as_str()),
                    None => format!("module has no attribute '{}'", name.as_str()),
                }
            }
            _ => format!(
                "'{}' object has no attribute '{}'",
                self.object_type_name(obj),
                name.as_str()
            ),
        };
        self.attribute_error(msg)
    }
}

/// The module's name when `obj` is a module CPython gives a `name` that apy's lacks
/// (`os.forkpty`).
pub(super) fn lacked_module_name(obj: &Value, name: &PyStr) -> Option<String> {
    let Value::Object(o) = obj else {
        return None;
    };
    let ObjectKind::Module { dict, .. } = &o.kind else {
        return None;
    };
    module_dunder_name(dict)
        .filter(|module| super::cpython_names::is_module_name_apy_lacks(module, name.as_str()))
}

/// A module's `__name__` when it is a string (`collections.abc` for the module registered
/// as `_collections_abc`).
fn module_dunder_name(dict: &super::PyDict) -> Option<String> {
    module_dict_str(dict, "__name__")
}
