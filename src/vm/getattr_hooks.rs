//! What an attribute lookup reaches beyond the instance, its class and their descriptors
//! (`PyObject_GenericGetAttr`, in `types`): a class's own `__getattribute__`, and the
//! `__getattr__` hooks called when the lookup fails with AttributeError
//! (`slot_tp_getattr_hook`): a class's, a metaclass's, a module's (PEP 562), and a bound
//! method's reading of its function's attributes.

use std::rc::Rc;

use super::dict::StrKeys;
use super::native_docs::type_doc;
use super::object::{ObjectKind, PyType};
use super::types::{has_own_getattribute, lookup};
use super::value::{PyStr, Value};
use super::{PyResult, Vm};

impl Vm {
    /// A user class's own `__getattribute__` for `obj` (a metaclass's, for a class), which
    /// then decides every attribute lookup on it (special methods, looked up on the type,
    /// excepted).
    pub(super) fn custom_getattribute(&self, obj: &Value) -> Option<Value> {
        let class = match obj {
            Value::Object(o) => &o.class,
            Value::Type(t) => t.meta.as_ref()?,
            _ => return None,
        };
        if !has_own_getattribute(class, &self.names.getattribute) {
            return None;
        }
        lookup(class, &self.names.getattribute)
    }

    /// `slot_tp_getattr_hook`: the class's `__getattribute__`, and its `__getattr__` when
    /// that raises AttributeError.
    pub(super) fn call_getattribute(
        &mut self,
        getattribute: &Value,
        obj: &Value,
        name: &Rc<PyStr>,
    ) -> PyResult<Value> {
        let args = [obj.clone(), Value::Str(name.clone())];
        match self.call(getattribute, &args, &[]) {
            Err(e) if self.exc_matches(&e, &self.types.attribute_error.clone()) => {
                match self.missing_attr(obj, name)? {
                    Some(v) => Ok(v),
                    None => Err(e),
                }
            }
            result => result,
        }
    }

    /// A descriptor's value for `obj.name`; when it raises AttributeError (a property's
    /// getter) and `use_getattr`, what the class's own `__getattr__` gives instead, as
    /// `slot_tp_getattr_hook` calls it after any AttributeError of the lookup.
    pub(super) fn bind_or_getattr(
        &mut self,
        descr: Value,
        obj: &Value,
        name: &Rc<PyStr>,
        use_getattr: bool,
    ) -> PyResult<Option<Value>> {
        match self.bind_to_instance(descr, obj) {
            Err(e)
                if use_getattr
                    && !self.type_of(obj).builtin
                    && self.exc_matches(&e, &self.types.attribute_error.clone())
                    && lookup(self.type_of(obj), &self.names.getattr).is_some() =>
            {
                match self.missing_attr(obj, name)? {
                    Some(v) => Ok(Some(v)),
                    None => Err(e),
                }
            }
            found => found.map(Some),
        }
    }

    /// What `obj.name` gives when neither the instance nor its type has `name`: the
    /// result of a user class's `__getattr__`, else None.
    pub(super) fn missing_attr(
        &mut self,
        obj: &Value,
        name: &Rc<PyStr>,
    ) -> PyResult<Option<Value>> {
        // A module's own `__getattr__` (PEP 562) answers for the names it lacks.
        if let Value::Object(o) = obj
            && let ObjectKind::Module { dict, .. } = &o.kind
        {
            let hook = dict.table.borrow().get_str(&self.names.getattr).cloned();
            if let Some(hook) = hook {
                return self.call(&hook, &[Value::Str(name.clone())], &[]).map(Some);
            }
        }
        // A bound method's other attributes are its function's (`method_getattro`): what a
        // decorator set on the function (`f.tag = …`) reads through `obj.f.tag`, and the
        // error names the function.
        if let Value::Object(o) = obj
            && let ObjectKind::BoundMethod { func, .. } = &o.kind
        {
            let func = func.clone();
            return match self.get_attr_opt(&func, name)? {
                Some(v) => Ok(Some(v)),
                None => Err(self.no_attribute(&func, name)),
            };
        }
        let ty = self.type_of(obj).clone();
        if !ty.builtin
            && let Some(getattr) = lookup(&ty, &self.names.getattr.clone())
        {
            // An AttributeError it raises gets its name and object in `get_attr`.
            return self
                .call(&getattr, &[obj.clone(), Value::Str(name.clone())], &[])
                .map(Some);
        }
        // A class statement always gives its class a `__doc__`: a type without one in its
        // MRO is one the VM made, whose instances show its docstring, which CPython's
        // `PyType_Ready` puts in a static type's dict (`[].__doc__`).
        if name.as_str() == "__doc__" {
            return Ok(Some(type_doc(&ty).map_or(Value::None, Value::str)));
        }
        Ok(None)
    }

    /// What a metaclass of the program's `__getattr__` gives for a name its class lacks.
    pub(super) fn metaclass_getattr(
        &mut self,
        t: &Rc<PyType>,
        name: &Rc<PyStr>,
    ) -> PyResult<Option<Value>> {
        let Some(meta) = t.meta.clone().filter(|meta| !meta.builtin) else {
            return Ok(None);
        };
        match lookup(&meta, &self.names.getattr.clone()) {
            Some(getattr) => {
                let args = [Value::Type(t.clone()), Value::Str(name.clone())];
                self.call(&getattr, &args, &[]).map(Some)
            }
            None => Ok(None),
        }
    }
}
