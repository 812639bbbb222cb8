//! Inline caches for `LOAD_ATTR`, `LOAD_ATTR` (method form) and `STORE_ATTR`: per name of a
//! code object, what the receiver's class had under that name when last looked up, and
//! where the instance's `__dict__` held it (CPython's `LOAD_ATTR_INSTANCE_VALUE`,
//! `LOAD_ATTR_METHOD_WITH_VALUES` and `STORE_ATTR_INSTANCE_VALUE` specialisations, keyed by
//! name rather than by instruction). A memo is valid while the class is the same and no type
//! dict changed; anything it does not cover takes the general path in `types`. Holds no
//! strong reference, so caching never keeps a value alive.

use std::cell::{Cell, RefCell};
use std::rc::{Rc, Weak};

use super::dict::StrKeys;
use super::object::{CodeObj, MAX_ATTRS_HINT, ObjectKind, PyType};
use super::types::{has_own_getattribute, is_plain_method, lookup, type_version};
use super::value::{PyStr, Value};
use super::{Names, PyResult, Vm};
use crate::vm::object::AttrSlot;
use crate::vm::object::OnClass;
use crate::vm::object::WeakMethod;
use crate::vm::value::DictTable;

impl WeakMethod {
    fn new(v: &Value) -> Option<WeakMethod> {
        match v {
            Value::Function(f) => Some(WeakMethod::Function(Rc::downgrade(f))),
            Value::Object(o) => Some(WeakMethod::Native(Rc::downgrade(o))),
            _ => None,
        }
    }

    fn get(&self) -> Option<Value> {
        match self {
            WeakMethod::Function(f) => f.upgrade().map(Value::Function),
            WeakMethod::Native(o) => o.upgrade().map(Value::Object),
        }
    }
}

impl AttrSlot {
    /// Empty memos for a code object with `names` names.
    pub fn empty_cache(names: usize) -> Box<[AttrSlot]> {
        (0..names).map(|_| Default::default()).collect()
    }

    /// What the memo knows about `class.name`, refreshed when stale.
    #[inline]
    fn on_class(
        &self,
        class: &Rc<PyType>,
        name: &Rc<PyStr>,
        names: &Names,
    ) -> std::cell::Ref<'_, (OnClass, Weak<PyType>)> {
        if self.version.get() != type_version()
            || !std::ptr::eq(self.class.get(), Rc::as_ptr(class))
        {
            self.refresh(class, name, names);
        }
        self.found.borrow()
    }

    #[inline(never)]
    fn refresh(&self, class: &Rc<PyType>, name: &Rc<PyStr>, names: &Names) {
        let custom_setattr =
            !class.builtin && matches!(lookup(class, &names.setattr), Some(Value::Function(_)));
        let on_class = match lookup(class, name) {
            // A class's own `__getattribute__` decides every lookup: the general path.
            _ if has_own_getattribute(class, &names.getattribute) => OnClass::General,
            None if !custom_setattr => OnClass::Nothing,
            Some(m) if is_plain_method(&m) => {
                WeakMethod::new(&m).map_or(OnClass::General, OnClass::Method)
            }
            _ => OnClass::General,
        };
        self.nothing_on_class
            .set(matches!(on_class, OnClass::Nothing));
        *self.found.borrow_mut() = (on_class, Rc::downgrade(class));
        self.class.set(Rc::as_ptr(class));
        self.version.set(type_version());
    }
}

/// A receiver the cache covers: its class and its `__dict__` (if any). Types, modules,
/// functions and `super` objects have attribute rules of their own.
#[inline]
fn receiver<'a>(
    vm: &'a Vm,
    obj: &'a Value,
) -> Option<(&'a Rc<PyType>, Option<&'a RefCell<DictTable>>)> {
    match obj {
        Value::Object(o) => match o.kind {
            ObjectKind::Module { .. } | ObjectKind::Super { .. } => None,
            _ => Some((&o.class, o.attrs())),
        },
        Value::Type(_) | Value::Function(_) => None,
        other => Some((vm.type_of(other), None)),
    }
}

/// The value of `name` in `dict`, trying the hinted position first.
#[inline]
fn dict_value(dict: &RefCell<DictTable>, name: &Rc<PyStr>, hint: &Cell<usize>) -> Option<Value> {
    let table = dict.borrow();
    if let Some(Some(e)) = table.entries().get(hint.get())
        && matches!(&e.key, Value::Str(k) if Rc::ptr_eq(k, name))
    {
        return Some(e.value.clone());
    }
    let at = table.position_str(name)?;
    hint.set(at);
    table.entry(at).map(|e| e.value.clone())
}

/// `LOAD_ATTR` of `code.names[i]` on `obj` in its commonest case, decided inline: an
/// attribute of an instance whose class has nothing under the name, at the `__dict__`
/// position the memo remembers (CPython's `LOAD_ATTR_INSTANCE_VALUE`). None sends the
/// lookup the general way, [`Vm::load_attr_cached`].
#[inline(always)]
pub fn instance_attr_hit(code: &CodeObj, i: usize, obj: &Value) -> Option<Value> {
    let Value::Object(o) = obj else {
        return None;
    };
    let attrs = o.attrs()?;
    let slot = code.global_cache.attrs.get(i)?;
    let fresh = slot.nothing_on_class.get()
        && std::ptr::eq(slot.class.get(), Rc::as_ptr(&o.class))
        && slot.version.get() == type_version()
        && !matches!(o.kind, ObjectKind::Module { .. } | ObjectKind::Super { .. });
    if !fresh {
        return None;
    }
    let table = attrs.try_borrow().ok()?;
    let entry = table.entries().get(slot.hint.get())?.as_ref()?;
    match &entry.key {
        Value::Str(k) if Rc::ptr_eq(k, code.names.get(i)?) => Some(entry.value.clone()),
        _ => None,
    }
}

/// What the memo found for an attribute.
enum Found {
    /// The attribute's value.
    Value(Value),
    /// A method of the class, to be bound to (or called with) the receiver.
    Method(Value),
}

impl Vm {
    /// `LOAD_ATTR` of `code.names[i]` on `obj`.
    pub fn load_attr_cached(&mut self, code: &CodeObj, i: usize, obj: &Value) -> PyResult<Value> {
        match self.cached_attr(code, i, obj) {
            Some(Found::Value(v)) => Ok(v),
            Some(Found::Method(m)) => Ok(self.bound_method(m, obj.clone())),
            None => self.get_attr(obj, &code.names[i]),
        }
    }

    /// `LOAD_ATTR` (method form) of `code.names[i]` on `obj`: the callable and the `self` to
    /// pass (Null when the callable is already bound). Takes the receiver, which becomes
    /// that `self`.
    pub fn load_method_cached(
        &mut self,
        code: &CodeObj,
        i: usize,
        obj: Value,
    ) -> PyResult<(Value, Value)> {
        match self.cached_attr(code, i, &obj) {
            Some(Found::Value(v)) => Ok((v, Value::Null)),
            Some(Found::Method(m)) => Ok((m, obj)),
            None => self.load_method(&obj, &code.names[i]),
        }
    }

    /// The attribute through the memo, when it covers `obj`.
    #[inline]
    fn cached_attr(&mut self, code: &CodeObj, i: usize, obj: &Value) -> Option<Found> {
        let (class, dict) = receiver(self, obj)?;
        let name = code.names.get(i)?;
        let slot = code.global_cache.attrs.get(i)?;
        let found = match &slot.on_class(class, name, &self.names).0 {
            OnClass::General => return None,
            OnClass::Nothing => return dict_value(dict?, name, &slot.hint).map(Found::Value),
            OnClass::Method(m) => m.get()?,
        };
        // (The name is rarely in the instance's `__dict__`: no position hint for it.)
        if let Some(dict) = dict
            && let Some(shadowing) = dict.borrow().get_str(name)
        {
            return Some(Found::Value(shadowing.clone()));
        }
        Some(Found::Method(found))
    }

    /// `STORE_ATTR` of `code.names[i]` on `obj`.
    pub fn store_attr_cached(
        &mut self,
        code: &CodeObj,
        i: usize,
        obj: &Value,
        value: Value,
    ) -> PyResult<()> {
        let value = match self.store_in_dict(code, i, obj, value) {
            Ok(()) => return Ok(()),
            Err(value) => value,
        };
        self.set_attr(obj, &code.names[i], value)
    }

    /// Stores into the instance's `__dict__` when the memo says the class has nothing under
    /// the name and no `__setattr__` of its own; gives the value back otherwise.
    fn store_in_dict(
        &mut self,
        code: &CodeObj,
        i: usize,
        obj: &Value,
        value: Value,
    ) -> Result<(), Value> {
        let Some((class, Some(dict))) = receiver(self, obj) else {
            return Err(value);
        };
        let (Some(name), Some(slot)) = (code.names.get(i), code.global_cache.attrs.get(i)) else {
            return Err(value);
        };
        if !matches!(slot.on_class(class, name, &self.names).0, OnClass::Nothing) {
            return Err(value);
        }
        let mut table = dict.borrow_mut();
        let hint = slot.hint.get();
        let at = match table.entries().get(hint) {
            Some(Some(e)) if matches!(&e.key, Value::Str(k) if Rc::ptr_eq(k, name)) => Some(hint),
            _ => table.position_str(name),
        };
        let old = match at.and_then(|at| table.value_mut(at)) {
            Some(v) => std::mem::replace(v, value),
            None => {
                table.set_str(name.clone(), value);
                let len = table.entries().len();
                slot.hint.set(len - 1);
                if len > class.instance_attrs.get().into() && len <= MAX_ATTRS_HINT {
                    class.instance_attrs.set(len as u8);
                }
                return Ok(());
            }
        };
        if let Some(at) = at {
            slot.hint.set(at);
        }
        drop(table);
        drop(old);
        Ok(())
    }
}
