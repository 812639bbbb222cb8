//! An instance's attributes as CPython 3.13 keeps them (`Objects/dictobject.c`'s shared keys
//! and inline values): the class holds the names its instances take on ([`SharedKeys`],
//! append-only, in the order they were first set), and each instance only its values, in
//! that order, inside the object ([`InstanceValues`]: no table, no hashes, no keys, no
//! allocation for the first [`super::object::INLINE_VALUES`]). An instance whose attributes leave that
//! shape (one deleted, one set out of the class's order, more than [`MAX_SHARED_KEYS`]
//! names) or whose `__dict__` is asked for gets a real dict, made from its values in
//! order, and keeps it ([`Object::dict_object`]): what Python sees is the same either way.
//!
//! An instance reads its names from its class's keys, so an assignment to `__class__` (not
//! supported yet) would have to give it its dict first.

use std::cell::{Ref, RefCell};
use std::rc::Rc;

use super::dict::StrKeys;
use super::object::{InstanceValues, MAX_SHARED_KEYS, Object, ObjectKind, SharedKeys};
use super::value::{DictTable, PyStr, Value};

/// Where an object's attributes are, seen without changing it.
pub enum AttrStorage<'a> {
    /// Values in the order of the class's keys.
    Values(&'a RefCell<InstanceValues>, &'a SharedKeys),
    /// A table: the materialised `__dict__` (or the attributes of an exception, a property …).
    Dict(&'a RefCell<DictTable>),
}

impl AttrStorage<'_> {
    /// The value of attribute `name`, if the object has it.
    pub fn get(&self, name: &PyStr) -> Option<Value> {
        match self {
            AttrStorage::Values(values, keys) => values.borrow().get(keys.index_of(name)?).cloned(),
            AttrStorage::Dict(table) => table.borrow().get_str(name).cloned(),
        }
    }

    /// The attribute names, in order.
    pub fn names(&self) -> Vec<Value> {
        match self {
            AttrStorage::Values(values, keys) => {
                let len = values.borrow().len();
                (0..len)
                    .filter_map(|at| keys.name(at))
                    .map(Value::Str)
                    .collect()
            }
            AttrStorage::Dict(table) => table.borrow().keys(),
        }
    }

    pub fn is_empty(&self) -> bool {
        match self {
            AttrStorage::Values(values, _) => values.borrow().is_empty(),
            AttrStorage::Dict(table) => table.borrow().is_empty(),
        }
    }
}

impl Object {
    /// Where the object's attributes are, if it has any (without making a dict).
    #[inline]
    pub fn attr_storage(&self) -> Option<AttrStorage<'_>> {
        match (self.dict.get(), &self.kind) {
            (Some(dict), _) => Some(AttrStorage::Dict(&dict.table)),
            (None, ObjectKind::Plain(values)) => {
                Some(AttrStorage::Values(values, &self.class.shared_keys))
            }
            _ => None,
        }
    }

    /// The values of a plain instance still in shared-keys form (no `__dict__` made).
    #[inline]
    pub fn shared_values(&self) -> Option<&RefCell<InstanceValues>> {
        match (self.dict.get(), &self.kind) {
            (None, ObjectKind::Plain(values)) => Some(values),
            _ => None,
        }
    }

    /// `obj.name = value` into the object's attributes (no descriptor, no `__setattr__`):
    /// the value back when the object has no attributes.
    pub fn set_instance_attr(&self, name: &Rc<PyStr>, value: Value) -> Result<(), Value> {
        let Some(values) = self.shared_values() else {
            return self.set_in_dict(name, value);
        };
        let keys = &self.class.shared_keys;
        let Ok(mut slots) = values.try_borrow_mut() else {
            return self.set_in_dict(name, value);
        };
        let len = slots.len();
        match keys.index_of(name) {
            Some(at) if at < len => {
                let old = slots.get_mut(at).map(|slot| std::mem::replace(slot, value));
                drop(slots);
                drop(old);
                Ok(())
            }
            Some(at) if at == len => {
                slots.push(value);
                Ok(())
            }
            None if len == keys.len() && len < MAX_SHARED_KEYS => {
                keys.push(name.clone());
                slots.push(value);
                Ok(())
            }
            // Out of the class's order: the instance takes a dict of its own.
            _ => {
                drop(slots);
                self.set_in_dict(name, value)
            }
        }
    }

    /// Sets the attribute in the object's `__dict__`, made now if it has none yet.
    fn set_in_dict(&self, name: &Rc<PyStr>, value: Value) -> Result<(), Value> {
        let Some(table) = self.attrs_to_write() else {
            return Err(value);
        };
        let old = {
            let mut table = table.borrow_mut();
            match table.position_str(name).and_then(|at| table.value_mut(at)) {
                Some(slot) => Some(std::mem::replace(slot, value)),
                None => {
                    table.set_str(name.clone(), value);
                    None
                }
            }
        };
        // (Freed with no table borrowed: a `__del__` may look at the object.)
        drop(old);
        Ok(())
    }
}

/// The values of `o` borrowed, when it is a plain instance in shared-keys form.
#[inline]
pub fn borrow_values(o: &Object) -> Option<Ref<'_, InstanceValues>> {
    o.shared_values()?.try_borrow().ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vm::object::{INLINE_VALUES, Layout};
    use crate::vm::types::make_type;

    fn name(s: &str) -> Rc<PyStr> {
        Rc::new(PyStr::new(s))
    }

    fn names(o: &Object) -> Vec<String> {
        let storage = o.attr_storage().expect("an instance has attributes");
        storage
            .names()
            .iter()
            .map(|k| k.as_str().unwrap_or_default().to_string())
            .collect()
    }

    #[test]
    fn instances_setting_names_in_order_share_the_class_keys_and_hold_only_values() {
        let class = make_type("C", vec![], Layout::Object, false);
        let (x, y) = (name("x"), name("y"));
        let a = Object::plain(class.clone());
        let b = Object::plain(class.clone());
        for (o, n) in [(&a, 1), (&b, 2)] {
            assert!(o.set_instance_attr(&x, Value::Int(n)).is_ok());
            assert!(o.set_instance_attr(&y, Value::Int(n * 10)).is_ok());
        }
        assert_eq!(class.shared_keys.len(), 2);
        for o in [&a, &b] {
            assert!(o.shared_values().is_some(), "no dict made");
            assert_eq!(names(o), ["x", "y"]);
        }
        assert!(matches!(
            b.attr_storage().and_then(|s| s.get(&y)),
            Some(Value::Int(20))
        ));
        // Replacing a value keeps the shape.
        assert!(a.set_instance_attr(&x, Value::Int(5)).is_ok());
        assert!(a.shared_values().is_some());
    }

    #[test]
    fn values_past_the_inline_ones_are_kept_in_order() {
        let class = make_type("C", vec![], Layout::Object, false);
        let o = Object::plain(class);
        let all: Vec<String> = (0..INLINE_VALUES + 3).map(|i| format!("a{i}")).collect();
        for (i, n) in all.iter().enumerate() {
            assert!(o.set_instance_attr(&name(n), Value::Int(i as i64)).is_ok());
        }
        assert!(o.shared_values().is_some());
        assert_eq!(names(&o), all);
        let last = name(&all[all.len() - 1]);
        let got = o.attr_storage().and_then(|s| s.get(&last));
        assert!(matches!(got, Some(Value::Int(n)) if n as usize == all.len() - 1));
    }

    #[test]
    fn an_instance_leaving_the_class_order_gets_a_dict_with_its_attributes_in_order() {
        let class = make_type("C", vec![], Layout::Object, false);
        let (x, y, z) = (name("x"), name("y"), name("z"));
        let a = Object::plain(class.clone());
        assert!(a.set_instance_attr(&x, Value::Int(1)).is_ok());
        assert!(a.set_instance_attr(&y, Value::Int(2)).is_ok());
        let b = Object::plain(class.clone());
        assert!(b.set_instance_attr(&x, Value::Int(3)).is_ok());
        assert!(b.set_instance_attr(&z, Value::Int(4)).is_ok());
        assert!(
            b.shared_values().is_none(),
            "z is not the class's next name"
        );
        assert_eq!(names(&b), ["x", "z"]);
        assert!(a.shared_values().is_some());
        // Asking for the dict materialises it, once.
        let d = a.dict_object().expect("a dict");
        assert!(a.shared_values().is_none());
        assert!(Rc::ptr_eq(&d, &a.dict_object().expect("the same dict")));
        assert_eq!(names(&a), ["x", "y"]);
    }

    #[test]
    fn push_at_adds_only_the_next_value() {
        let mut values = InstanceValues::default();
        let total = INLINE_VALUES + 2;
        for at in 0..total {
            // Not the next key: before it (a gap) or already set.
            assert!(values.push_at(at + 1, Value::Int(-1)).is_err());
            if at > 0 {
                assert!(values.push_at(at - 1, Value::Int(-1)).is_err());
            }
            assert!(values.push_at(at, Value::Int(at as i64)).is_ok());
            assert_eq!(values.len(), at + 1);
        }
        assert!(values.push_at(u32::MAX as usize, Value::None).is_err());
        for at in 0..total {
            assert!(matches!(values.get(at), Some(Value::Int(n)) if *n == at as i64));
        }
    }

    #[test]
    fn a_class_shares_at_most_max_shared_keys_names() {
        let class = make_type("C", vec![], Layout::Object, false);
        let o = Object::plain(class.clone());
        for i in 0..MAX_SHARED_KEYS + 1 {
            assert!(
                o.set_instance_attr(&name(&format!("a{i}")), Value::None)
                    .is_ok()
            );
        }
        assert_eq!(class.shared_keys.len(), MAX_SHARED_KEYS);
        assert!(o.shared_values().is_none());
        assert_eq!(names(&o).len(), MAX_SHARED_KEYS + 1);
    }
}
