//! `_weakref`, the native core of `stdlib/weakref.apy` (CPython's `Objects/weakrefobject.c`):
//! `ref(obj[, callback])`, a real weak reference — an `Rc` downgraded, so it keeps nothing
//! alive and answers None the moment apy's reference counting frees the object. A callback
//! is called with the reference when that happens (`vm/weakrefs.rs`), at the next safe
//! point. `proxy`, `WeakValueDictionary`, `WeakKeyDictionary`, `WeakSet` and `finalize` are
//! built on it in apy.

use std::cell::Cell;
use std::rc::{Rc, Weak};

use crate::vm::args::Signature;
use crate::vm::dict::StrKeys;
use crate::vm::object::{Function, KwArgs, Layout, Object, ObjectKind, PyType};
use crate::vm::types::make_type;
use crate::vm::value::{PySet, Value};
use crate::vm::{PyResult, Vm, weakrefs};

/// What a weak reference points at.
enum Target {
    Object(Weak<Object>),
    Function(Weak<Function>),
    Type(Weak<PyType>),
    Set(Weak<PySet>),
}

/// A `weakref.ref`.
struct WeakRef {
    target: Target,
    callback: Value,
    /// The referent's hash, kept once asked for (it stays after the referent is gone).
    hash: Cell<Option<i64>>,
}

impl WeakRef {
    fn get(&self) -> Option<Value> {
        match &self.target {
            Target::Object(w) => w.upgrade().map(Value::Object),
            Target::Function(w) => w.upgrade().map(Value::Function),
            Target::Type(w) => w.upgrade().map(Value::Type),
            Target::Set(w) => w.upgrade().map(Value::Set),
        }
    }
}

/// The weak reference to `v`, or CPython's TypeError for a type without `__weakref__`.
fn target_of(vm: &mut Vm, v: &Value) -> PyResult<Target> {
    let refusal = |vm: &Vm| {
        vm.type_error(format!(
            "cannot create weak reference to '{}' object",
            vm.type_name(v)
        ))
    };
    Ok(match v {
        Value::Function(f) => Target::Function(Rc::downgrade(f)),
        Value::Type(t) => Target::Type(Rc::downgrade(t)),
        Value::Set(s) => Target::Set(Rc::downgrade(s)),
        Value::Object(o) => {
            let weakrefable = match &o.kind {
                // `__slots__` without "__weakref__" leaves no room for one.
                _ if o.class.no_dict => lists_weakref_slot(vm, &o.class),
                ObjectKind::Exception(_) => !o.class.builtin,
                ObjectKind::Bare
                | ObjectKind::Cell(_)
                | ObjectKind::Range(_)
                | ObjectKind::Slice { .. }
                | ObjectKind::Iter(_)
                | ObjectKind::DictView { .. } => false,
                ObjectKind::Other(_) => !matches!(vm.type_name(v).as_ref(), "bytes" | "bytearray"),
                _ => true,
            };
            if !weakrefable {
                return Err(refusal(vm));
            }
            Target::Object(Rc::downgrade(o))
        }
        _ => return Err(refusal(vm)),
    })
}

/// Whether a class or one of its bases lists `"__weakref__"` in its `__slots__`.
fn lists_weakref_slot(vm: &mut Vm, class: &PyType) -> bool {
    let key = vm.intern("__slots__");
    class.mro().iter().any(|t| {
        let slots = StrKeys::get_str(&*t.dict.borrow(), &key).cloned();
        let is_it = |v: &Value| v.as_str() == Some("__weakref__");
        match &slots {
            Some(Value::Tuple(items)) => items.items.iter().any(is_it),
            Some(Value::List(items)) => items.items.borrow().iter().any(is_it),
            Some(v) => is_it(v),
            None => false,
        }
    })
}

fn this<'a>(vm: &Vm, args: &'a [Value]) -> PyResult<&'a WeakRef> {
    args.first()
        .and_then(|v| v.native::<WeakRef>())
        .ok_or_else(|| vm.type_error("descriptor requires a 'weakref.ReferenceType' object"))
}

/// `ref(object[, callback])`.
fn ref_new(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let (cls, args) = crate::vm::args::split_cls(vm, args)?;
    const SIG: Signature = Signature::positional("", "ref", &["object", "callback"], 1);
    let slots = SIG.bind(vm, args, kw)?;
    let object = slots[0].clone().unwrap_or(Value::None);
    let callback = slots[1].clone().unwrap_or(Value::None);
    let target = target_of(vm, &object)?;
    let weakref = Rc::new(Object::new(
        cls,
        ObjectKind::Other(Box::new(WeakRef {
            target,
            callback: callback.clone(),
            hash: Cell::new(None),
        })),
    ));
    if !callback.is_none()
        && let Value::Object(o) = &object
    {
        weakrefs::watch(o, &weakref, callback);
    }
    Ok(Value::Object(weakref))
}

/// `r()`: the referent, or None once it is gone.
fn ref_call(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    Ok(this(vm, args)?.get().unwrap_or(Value::None))
}

fn ref_hash(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    let r = this(vm, args)?;
    if let Some(h) = r.hash.get() {
        return Ok(Value::Int(h));
    }
    let Some(referent) = r.get() else {
        return Err(vm.type_error("weak object has gone away"));
    };
    let h = vm.hash(&referent)?;
    r.hash.set(Some(h));
    Ok(Value::Int(h))
}

/// `r1 == r2`: the referents compared while both live, else identity.
fn ref_eq(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    let r = this(vm, args)?;
    let Some(other) = args.get(1).and_then(|v| v.native::<WeakRef>()) else {
        return Ok(Value::NotImplemented);
    };
    match (r.get(), other.get()) {
        (Some(a), Some(b)) => Ok(Value::Bool(vm.eq(&a, &b)?)),
        _ => Ok(Value::Bool(args[0].is(&args[1]))),
    }
}

fn ref_ne(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    Ok(match ref_eq(vm, args, kw)? {
        Value::Bool(b) => Value::Bool(!b),
        other => other,
    })
}

fn ref_repr(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    let r = this(vm, args)?;
    let at = args[0].address();
    Ok(Value::str(match r.get() {
        Some(referent) => format!(
            "<weakref at {at:#x}; to '{}' at {:#x}>",
            vm.type_name(&referent),
            referent.address()
        ),
        None => format!("<weakref at {at:#x}; dead>"),
    }))
}

pub fn module(vm: &mut Vm) -> Value {
    let ty = make_type(
        "ReferenceType",
        vec![vm.types.object.clone()],
        Layout::Builtin,
        false,
    );
    vm.set_type_attr(&ty, "__module__", Value::str("weakref"));
    vm.add_static(&ty, "__new__", ref_new);
    vm.add_method(&ty, "__call__", ref_call);
    vm.add_method(&ty, "__hash__", ref_hash);
    vm.add_method(&ty, "__eq__", ref_eq);
    vm.add_method(&ty, "__ne__", ref_ne);
    vm.add_method(&ty, "__repr__", ref_repr);
    vm.add_getset(
        &ty,
        "__callback__",
        |vm, v| Ok(this(vm, std::slice::from_ref(v))?.callback.clone()),
        None,
    );
    let attrs = vec![
        ("ref", Value::Type(ty.clone())),
        ("ReferenceType", Value::Type(ty)),
    ];
    vm.new_module("_weakref", attrs)
}
