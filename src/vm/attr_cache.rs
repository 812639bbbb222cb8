//! Inline caches for `LOAD_ATTR`, `LOAD_ATTR` (method form) and `STORE_ATTR`: per name of a
//! code object, what the receiver's class had under that name when last looked up, and
//! where the instance's `__dict__` held it (CPython's `LOAD_ATTR_INSTANCE_VALUE`,
//! `LOAD_ATTR_METHOD_WITH_VALUES` and `STORE_ATTR_INSTANCE_VALUE` specialisations, keyed by
//! name rather than by instruction). A memo is valid while the class is the same and no type
//! dict changed; anything it does not cover takes the general path in `types`. Holds no
//! strong reference, so caching never keeps a value alive.

use std::cell::RefCell;
use std::rc::{Rc, Weak};

use super::dict::StrKeys;
use super::instance_values::{AttrStorage, borrow_values};
use super::object::{Body, InstanceValues, ObjectKind, PyType, SharedKeys};
use super::types::{
    has_own_getattribute, is_data_descriptor, is_plain_method, lookup, type_version,
};
use super::value::{PyDict, PyStr, Value};
use super::{Names, PyResult, Vm};
use crate::vm::object::AttrSlot;
use crate::vm::object::OnClass;
use crate::vm::object::WeakMethod;

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
        if !std::ptr::eq(self.class.get(), Rc::as_ptr(class)) {
            self.index.set(u32::MAX);
            self.absent_below.set(0);
        }
        self.class.set(Rc::as_ptr(class));
        self.version.set(type_version());
    }
}

/// A receiver the cache covers: its class and where its attributes are (if anywhere).
/// Types, modules, functions and `super` objects have attribute rules of their own.
#[inline]
fn receiver<'a>(vm: &'a Vm, obj: &'a Value) -> Option<(&'a Rc<PyType>, Option<AttrStorage<'a>>)> {
    match obj {
        Value::Object(o) => match o.kind {
            ObjectKind::Module { .. } | ObjectKind::Super { .. } => None,
            _ => Some((&o.class, o.attr_storage())),
        },
        Value::Type(_) | Value::Function(_) => None,
        other => Some((vm.type_of(other), None)),
    }
}

impl AttrSlot {
    /// Where the slot's name is among `class`'s shared keys (remembered once found).
    #[inline]
    fn key_index(&self, keys: &SharedKeys, name: &PyStr) -> Option<usize> {
        let known = self.index.get();
        if known != u32::MAX {
            return Some(known as usize);
        }
        let at = keys.index_of(name)?;
        self.index.set(at as u32);
        Some(at)
    }
}

/// The memo of `body.names[i]` for receivers of `class`. Each name has two, so that a site
/// seeing instances of two classes (a method of a base class called on instances of
/// subclasses) keeps both: the one that was made for `class`, else the one to remake (the
/// first, unless it is still fresh for another class).
#[inline(always)]
fn slot_for<'a>(body: &'a Body, i: usize, class: &PyType) -> Option<&'a AttrSlot> {
    let [first, second] = body.attr_caches().get(2 * i..2 * i + 2)? else {
        return None;
    };
    if std::ptr::eq(first.class.get(), class) {
        return Some(first);
    }
    if std::ptr::eq(second.class.get(), class) || first.version.get() == type_version() {
        return Some(second);
    }
    Some(first)
}

/// The value of `name` among an object's attributes, trying the remembered position first.
#[inline]
fn stored_value(storage: &AttrStorage, name: &Rc<PyStr>, slot: &AttrSlot) -> Option<Value> {
    match storage {
        AttrStorage::Values(values, keys) => {
            values.borrow().get(slot.key_index(keys, name)?).cloned()
        }
        AttrStorage::Dict(dict) => {
            let table = dict.borrow();
            if let Some(Some(e)) = table.entries().get(slot.hint.get())
                && matches!(&e.key, Value::Str(k) if Rc::ptr_eq(k, name))
            {
                return Some(e.value.clone());
            }
            let at = table.position_str(name)?;
            slot.hint.set(at);
            table.entry(at).map(|e| e.value.clone())
        }
    }
}

/// The value of an instance attribute named like a method of its class (which it then
/// shadows): remembers, per number of keys the class has, that the name is not among them.
#[inline]
fn shadowing_value(
    values: &RefCell<InstanceValues>,
    keys: &SharedKeys,
    name: &PyStr,
    slot: &AttrSlot,
) -> Option<Value> {
    let absent_below = keys.len() as u32 + 1;
    if slot.absent_below.get() == absent_below {
        return None;
    }
    match keys.index_of(name) {
        Some(at) => values.borrow().get(at).cloned(),
        None => {
            slot.absent_below.set(absent_below);
            None
        }
    }
}

/// `LOAD_ATTR` of `body.names[i]` on `obj` in its commonest case, decided inline: an
/// attribute of an instance whose class has nothing under the name, at the place the memo
/// remembers (CPython's `LOAD_ATTR_INSTANCE_VALUE`), or a module's global at the place its
/// namespace last had it (`LOAD_ATTR_MODULE`: `asyncio.sleep`; the memo says the module's
/// class has nothing under the name, [`Vm::note_module_attr`]). None sends the lookup the
/// general way, [`Vm::load_attr_cached`].
#[inline(always)]
pub fn instance_attr_hit(body: &Body, i: usize, obj: &Value) -> Option<Value> {
    let Value::Object(o) = obj else {
        return None;
    };
    let slot = slot_for(body, i, &o.class)?;
    let fresh = slot.nothing_on_class.get()
        && std::ptr::eq(slot.class.get(), Rc::as_ptr(&o.class))
        && slot.version.get() == type_version();
    if !fresh {
        return None;
    }
    if let Some(values) = borrow_values(o) {
        return values.get(slot.index.get() as usize).cloned();
    }
    let table = match &o.kind {
        ObjectKind::Module { dict, .. } => dict.table.try_borrow().ok()?,
        _ => o.dict.get()?.table.try_borrow().ok()?,
    };
    let entry = table.entries().get(slot.hint.get())?.as_ref()?;
    match &entry.key {
        Value::Str(k) if Rc::ptr_eq(k, body.names.get(i)?) => Some(entry.value.clone()),
        _ => None,
    }
}

/// `LOAD_ATTR` of `body.names[i]` on a class (`Color.RED`, `C.helper`), decided inline
/// from the memo [`Vm::note_class_attr`] made: the value in the class's own namespace at
/// the remembered place, or the callable of a staticmethod there. None sends the lookup
/// the general way.
#[inline(always)]
pub fn class_attr_hit(body: &Body, i: usize, obj: &Value) -> Option<Value> {
    let Value::Type(class) = obj else {
        return None;
    };
    let slot = slot_for(body, i, class)?;
    let fresh =
        std::ptr::eq(slot.class.get(), Rc::as_ptr(class)) && slot.version.get() == type_version();
    if !fresh {
        return None;
    }
    let OnClass::ClassAttribute { unwrap_static } = slot.found.try_borrow().ok()?.0 else {
        return None;
    };
    let table = class.dict.try_borrow().ok()?;
    let entry = table.entries().get(slot.hint.get())?.as_ref()?;
    if !matches!(&entry.key, Value::Str(k) if Rc::ptr_eq(k, body.names.get(i)?)) {
        return None;
    }
    match (&entry.value, unwrap_static) {
        (value, false) => Some(value.clone()),
        (Value::Object(o), true) => match &o.kind {
            ObjectKind::StaticMethod(f) => Some(f.clone()),
            _ => None,
        },
        _ => None,
    }
}

/// `LOAD_ATTR` (method form) of `body.names[i]` on `obj` in its commonest case, decided
/// inline: a plain method of the receiver's class, as the fresh memo has it, which no
/// attribute of the receiver can shadow: it keeps none (a built-in value such as a list
/// or a str, a generator, a future), or its class's shared keys were found without the
/// name at their present number (CPython's `LOAD_ATTR_METHOD_NO_DICT` and
/// `LOAD_ATTR_METHOD_WITH_VALUES`). The method, to be called with `obj` as `self`; None
/// sends the lookup the general way, [`Vm::load_method_cached`].
#[inline(always)]
pub fn method_hit(vm: &Vm, body: &Body, i: usize, obj: &Value) -> Option<Value> {
    let o = match obj {
        Value::Object(o) => o,
        // Classes and functions have attributes of their own (and a class its metaclass's
        // rules); every other value is a built-in type's, with none.
        Value::Type(_) | Value::Function(_) => return None,
        _ => return memo_method(body, i, vm.type_of(obj), None),
    };
    // First what needs no memo: a materialised `__dict__` must be searched (the general
    // way), and modules and `super` objects have rules of their own.
    let absent_below = match o.attr_storage() {
        None if matches!(o.kind, ObjectKind::Module { .. } | ObjectKind::Super { .. }) => {
            return None;
        }
        None => None,
        Some(AttrStorage::Values(_, keys)) => Some(keys.len() as u32 + 1),
        Some(AttrStorage::Dict(_)) => return None,
    };
    memo_method(body, i, &o.class, absent_below)
}

/// The plain method the fresh memo of `body.names[i]` has for `class`, when the receiver's
/// shared keys (if it has any) are known not to hold the name at their number
/// (`absent_below`, as [`shadowing_value`] records it).
#[inline(always)]
fn memo_method(
    body: &Body,
    i: usize,
    class: &Rc<PyType>,
    absent_below: Option<u32>,
) -> Option<Value> {
    let slot = slot_for(body, i, class)?;
    let fresh = std::ptr::eq(slot.class.get(), Rc::as_ptr(class))
        && slot.version.get() == type_version()
        && absent_below.is_none_or(|n| slot.absent_below.get() == n);
    if !fresh {
        return None;
    }
    match &slot.found.try_borrow().ok()?.0 {
        OnClass::Method(m) => m.get(),
        _ => None,
    }
}

/// `STORE_ATTR` of `body.names[i]` on `obj` in its commonest case, decided inline: the
/// replacement of an attribute an instance has among its class's keys, or the addition of
/// the next of those keys, where the class has nothing under the name (CPython's
/// `STORE_ATTR_INSTANCE_VALUE`). Gives the value back otherwise.
#[inline(always)]
fn instance_store_hit(body: &Body, i: usize, obj: &Value, value: Value) -> Result<(), Value> {
    let Value::Object(o) = obj else {
        return Err(value);
    };
    let Some(slot) = slot_for(body, i, &o.class) else {
        return Err(value);
    };
    let fresh = slot.nothing_on_class.get()
        && std::ptr::eq(slot.class.get(), Rc::as_ptr(&o.class))
        && slot.version.get() == type_version();
    let values = o.shared_values().filter(|_| fresh);
    let Some(mut slots) = values.and_then(|v| v.try_borrow_mut().ok()) else {
        return Err(value);
    };
    let at = slot.index.get() as usize;
    let Some(v) = slots.get_mut(at) else {
        // A fresh instance taking on its attributes in the class's order (`__init__`).
        return slots.push_at(at, value);
    };
    let old = std::mem::replace(v, value);
    drop(slots);
    old.discard();
    Ok(())
}

/// What the memo found for an attribute.
enum Found {
    /// The attribute's value.
    Value(Value),
    /// A method of the class, to be bound to (or called with) the receiver.
    Method(Value),
}

impl Vm {
    /// `LOAD_ATTR` of `body.names[i]` on `obj`.
    pub fn load_attr_cached(&mut self, body: &Body, i: usize, obj: &Value) -> PyResult<Value> {
        match self.cached_attr(body, i, obj) {
            Some(Found::Value(v)) => Ok(v),
            Some(Found::Method(m)) => Ok(self.bound_method(m, obj.clone())),
            None => {
                self.note_for_inline(body, i, obj);
                self.get_attr(obj, &body.names[i])
            }
        }
    }

    /// On the general path for a receiver the memo does not cover, what the inline paths
    /// need to answer the next load of `body.names[i]` on a class or a module.
    fn note_for_inline(&self, body: &Body, i: usize, obj: &Value) {
        match obj {
            Value::Type(class) => self.note_class_attr(body, i, class),
            Value::Object(o) => {
                if let ObjectKind::Module { dict, .. } = &o.kind {
                    self.note_module_attr(body, i, &o.class, dict);
                }
            }
            _ => {}
        }
    }

    /// For a class whose metaclass is `type`, what [`class_attr_hit`] needs to answer the
    /// next load of `body.names[i]` on it inline, when the class's own namespace holds the
    /// name and reading it through the class gives it unchanged (anything but a
    /// classmethod or a descriptor of a class of the program's) or gives a staticmethod's
    /// callable, and `type` has no data descriptor of that name (`__name__`, `__doc__`).
    fn note_class_attr(&self, body: &Body, i: usize, class: &Rc<PyType>) {
        let Some(name) = body.names.get(i) else {
            return;
        };
        if class.meta.is_some()
            || lookup(&self.types.type_, name).is_some_and(|d| is_data_descriptor(&d, &self.names))
        {
            return;
        }
        let table = class.dict.borrow();
        let Some(at) = table.position_str(name) else {
            return;
        };
        let unwrap_static = match table.entry(at).map(|e| &e.value) {
            Some(Value::Object(o)) => match &o.kind {
                ObjectKind::StaticMethod(_) => true,
                ObjectKind::ClassMethod(_) => return,
                _ if !o.class.builtin && lookup(&o.class, &self.names.get).is_some() => return,
                _ => false,
            },
            Some(_) => false,
            None => return,
        };
        let Some(slot) = slot_for(body, i, class) else {
            return;
        };
        let Ok(mut found) = slot.found.try_borrow_mut() else {
            return;
        };
        *found = (
            OnClass::ClassAttribute { unwrap_static },
            Rc::downgrade(class),
        );
        slot.class.set(Rc::as_ptr(class));
        slot.version.set(type_version());
        slot.hint.set(at);
        slot.index.set(u32::MAX);
        slot.absent_below.set(0);
        slot.nothing_on_class.set(false);
    }

    /// For a module (of class `class`, its namespace `dict`), what [`instance_attr_hit`]
    /// needs to answer the next load of `body.names[i]` on it inline: the memo of the
    /// module's class under the name (when it has nothing there, the namespace decides)
    /// and where the namespace has it.
    fn note_module_attr(&self, body: &Body, i: usize, class: &Rc<PyType>, dict: &PyDict) {
        let (Some(name), Some(slot)) = (body.names.get(i), slot_for(body, i, class)) else {
            return;
        };
        if matches!(slot.on_class(class, name, &self.names).0, OnClass::Nothing)
            && let Some(at) = dict.table.borrow().position_str(name)
        {
            slot.hint.set(at);
        }
    }

    /// `LOAD_ATTR` (method form) of `body.names[i]` on `obj`: the callable and the `self` to
    /// pass (Null when the callable is already bound). Takes the receiver, which becomes
    /// that `self`.
    pub fn load_method_cached(
        &mut self,
        body: &Body,
        i: usize,
        obj: Value,
    ) -> PyResult<(Value, Value)> {
        match self.cached_attr(body, i, &obj) {
            Some(Found::Value(v)) => Ok((v, Value::Null)),
            Some(Found::Method(m)) => Ok((m, obj)),
            None => {
                self.note_for_inline(body, i, &obj);
                self.load_method(&obj, &body.names[i])
            }
        }
    }

    /// The attribute through the memo, when it covers `obj`.
    #[inline]
    fn cached_attr(&mut self, body: &Body, i: usize, obj: &Value) -> Option<Found> {
        let (class, dict) = receiver(self, obj)?;
        let name = body.names.get(i)?;
        let slot = slot_for(body, i, class)?;
        let found = match &slot.on_class(class, name, &self.names).0 {
            OnClass::General | OnClass::ClassAttribute { .. } => return None,
            OnClass::Nothing => return stored_value(&dict?, name, slot).map(Found::Value),
            OnClass::Method(m) => m.get()?,
        };
        // (The name is rarely among the instance's attributes: no position hint for it.)
        let shadowing = match dict {
            Some(AttrStorage::Dict(table)) => table.borrow().get_str(name).cloned(),
            Some(AttrStorage::Values(values, keys)) => shadowing_value(values, keys, name, slot),
            None => None,
        };
        match shadowing {
            Some(v) => Some(Found::Value(v)),
            None => Some(Found::Method(found)),
        }
    }

    /// `STORE_ATTR` of `body.names[i]` on `obj`.
    pub fn store_attr_cached(
        &mut self,
        body: &Body,
        i: usize,
        obj: &Value,
        value: Value,
    ) -> PyResult<()> {
        let value = match instance_store_hit(body, i, obj, value) {
            Ok(()) => return Ok(()),
            Err(value) => value,
        };
        let value = match self.store_in_dict(body, i, obj, value) {
            Ok(()) => return Ok(()),
            Err(value) => value,
        };
        self.set_attr(obj, &body.names[i], value)
    }

    /// Stores into the instance's attributes when the memo says the class has nothing under
    /// the name and no `__setattr__` of its own; gives the value back otherwise.
    fn store_in_dict(
        &mut self,
        body: &Body,
        i: usize,
        obj: &Value,
        value: Value,
    ) -> Result<(), Value> {
        let Some((class, Some(storage))) = receiver(self, obj) else {
            return Err(value);
        };
        let (Some(name), Some(slot)) = (body.names.get(i), slot_for(body, i, class)) else {
            return Err(value);
        };
        if !matches!(slot.on_class(class, name, &self.names).0, OnClass::Nothing) {
            return Err(value);
        }
        let dict = match storage {
            AttrStorage::Values(values, keys) => {
                return store_value(obj, values, keys, name, slot, value);
            }
            AttrStorage::Dict(dict) => dict,
        };
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
                slot.hint.set(table.entries().len() - 1);
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

/// `STORE_ATTR` into an instance's values: in place at the remembered key, or as the next
/// value when the name is the next of the class's keys; otherwise the general store, which
/// may add the key or give the instance a dict.
#[inline]
fn store_value(
    obj: &Value,
    values: &RefCell<InstanceValues>,
    keys: &SharedKeys,
    name: &Rc<PyStr>,
    slot: &AttrSlot,
    value: Value,
) -> Result<(), Value> {
    let mut value = value;
    if let Some(at) = slot.key_index(keys, name)
        && let Ok(mut slots) = values.try_borrow_mut()
    {
        if let Some(v) = slots.get_mut(at) {
            let old = std::mem::replace(v, value);
            drop(slots);
            drop(old);
            return Ok(());
        }
        value = match slots.push_at(at, value) {
            Ok(()) => return Ok(()),
            Err(value) => value,
        };
    }
    let Value::Object(o) = obj else {
        return Err(value);
    };
    o.set_instance_attr(name, value)
}
