//! The callbacks of weak references (`Objects/weakrefobject.c`'s `handle_callback`): a
//! weak reference with a callback to an object registers here, and the object's `Drop`
//! (`generator.rs`) takes its callbacks from here to the finalizer queue, which calls each
//! at the next safe point with its weak reference — while the reference still exists, as in
//! CPython. The referent's class is marked ([`PyType::weakly_watched`]) so that the drop of
//! other objects never looks here. The reference objects themselves are `builtins/weakref.rs`.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::{Rc, Weak};

use super::object::{Object, PyType};
use super::value::Value;

/// A weak reference (by its object) and the callback to call with it.
type Watcher = (Weak<Object>, Value);

thread_local! {
    /// Watched objects, by address, with their weak references that have callbacks.
    static WATCHERS: RefCell<HashMap<usize, Vec<Watcher>>> = RefCell::default();
}

/// Calls `callback(weakref)` once `target` is freed (unless `weakref` is freed first).
pub fn watch(target: &Rc<Object>, weakref: &Rc<Object>, callback: Value) {
    mark(&target.class);
    let address = Rc::as_ptr(target) as usize;
    WATCHERS.with(|w| {
        w.borrow_mut()
            .entry(address)
            .or_default()
            .push((Rc::downgrade(weakref), callback))
    });
}

fn mark(class: &PyType) {
    class.weakly_watched.set(true);
}

/// `object` is being freed: the callbacks of its weak references still alive, each with
/// its reference, newest reference first (as CPython calls them), for the finalizer queue.
pub(super) fn referent_died(object: &Object) -> Vec<(Value, Value)> {
    let address = object as *const Object as usize;
    let Ok(Some(watchers)) = WATCHERS.try_with(|w| w.borrow_mut().remove(&address)) else {
        return Vec::new();
    };
    watchers
        .into_iter()
        .rev()
        .filter_map(|(weakref, callback)| Some((callback, Value::Object(weakref.upgrade()?))))
        .collect()
}

/// `obj.__weakref__` (a class's own descriptor, `vm::slots`): None while nothing refers
/// to `obj` weakly, else a weak reference to it. CPython gives the first in the object's
/// list of weak references; apy keeps no such list, so this is a new reference to `obj`.
pub fn weakref_attribute(vm: &mut super::Vm, v: &Value) -> super::PyResult<Value> {
    let referred = match v {
        Value::Object(o) => Rc::weak_count(o) > 0,
        _ => false,
    };
    if !referred {
        return Ok(Value::None);
    }
    let module = vm.import_module("_weakref")?;
    let key = vm.intern("ref");
    let ref_type = vm.get_attr(&module, &key)?;
    vm.call(&ref_type, std::slice::from_ref(v), &[])
}
