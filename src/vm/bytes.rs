//! The payload of `bytes` and `bytearray` objects (`PyBytesObject`, `PyByteArrayObject`):
//! a byte buffer, its hash cached for `bytes`. The VM makes them for `b'…'` constants; their
//! methods and operators are in `builtins/bytes_type.rs`. Depends on `value` and `object`.

use std::cell::{Cell, Ref, RefCell, RefMut};
use std::rc::Rc;

use super::object::{Object, ObjectKind, PyType};
use super::value::Value;
use super::{PyResult, Vm};

/// The bytes of a `bytes` (never changed after it is made) or a `bytearray`.
pub struct PyBytes {
    data: RefCell<Vec<u8>>,
    hash: Cell<i64>,
    /// How many memoryviews show these bytes: while any does, a bytearray keeps its size.
    pub exports: Cell<u32>,
}

impl PyBytes {
    pub fn new(data: Vec<u8>) -> PyBytes {
        PyBytes {
            data: RefCell::new(data),
            hash: Cell::new(-1),
            exports: Cell::new(0),
        }
    }

    pub fn data(&self) -> Ref<'_, Vec<u8>> {
        self.data.borrow()
    }

    /// The buffer to change, for a `bytearray` (its methods check the type first); `None`
    /// while it is being read.
    pub fn data_mut(&self) -> Option<RefMut<'_, Vec<u8>>> {
        self.data.try_borrow_mut().ok()
    }

    /// `hash(b)`: the hash a str of the same ASCII text has (as in CPython, where
    /// `hash(b'ab') == hash('ab')`), cached.
    pub fn hash(&self) -> i64 {
        let cached = self.hash.get();
        if cached != -1 {
            return cached;
        }
        let h = super::value::text_hash(&self.data.borrow());
        self.hash.set(h);
        h
    }
}

/// The `count` bytes of `data` from `start` on, `step` apart (a slice's, from
/// `slice_indices`; those past the end of a bytearray that shrank meanwhile are left out).
pub fn pick_bytes(data: &[u8], start: i64, step: i64, count: usize) -> Vec<u8> {
    if step == 1 {
        let start = (start as usize).min(data.len());
        return data[start..(start + count).min(data.len())].to_vec();
    }
    (0..count)
        .filter_map(|k| data.get((start + k as i64 * step) as usize).copied())
        .collect()
}

impl Vm {
    /// Makes the methods of `bytes` and `bytearray` ready, on the first use of either: a
    /// literal met when code is loaded, a call of either type, `str.encode`, the `socket`
    /// module. Until then the types have only their constructors and `fromhex`.
    pub fn ready_bytes(&mut self) {
        if let Some(install) = self.bytes_methods.take() {
            install(self);
        }
    }

    /// Installs the methods of `t` (or a base of it) that wait for their first use, as
    /// looking one up on the class (`bytes.hex`, `dir(memoryview)`) is a use too; whether
    /// there were any.
    pub fn ready_methods(&mut self, t: &Rc<PyType>) -> bool {
        let mut installed = false;
        let bytes_like = t.is_subtype(&self.types.bytes) || t.is_subtype(&self.types.bytearray);
        if bytes_like && self.bytes_methods.is_some() {
            self.ready_bytes();
            installed = true;
        }
        while let Some(at) = self
            .lazy_methods
            .iter()
            .position(|(ty, _)| t.is_subtype(ty))
        {
            let (ty, install) = self.lazy_methods.swap_remove(at);
            install(self, &ty);
            installed = true;
        }
        installed
    }

    /// A new `bytes` object (the type's methods installed first, if they were not yet:
    /// whatever makes the first bytes of a program, the object behaves the same).
    pub fn new_bytes(&mut self, data: Vec<u8>) -> Value {
        self.ready_bytes();
        Value::object(Object::new(
            self.types.bytes.clone(),
            ObjectKind::Other(Box::new(PyBytes::new(data))),
        ))
    }

    /// The bytes `bytes(v)` and `b'%s' % v` take from `v`: its buffer when it is a bytes or
    /// bytearray, else what its `__bytes__` returns (which must be a bytes); None when it
    /// has neither.
    pub fn bytes_of_object(&mut self, v: &Value) -> PyResult<Option<Vec<u8>>> {
        if let Some(b) = v.native::<PyBytes>() {
            return Ok(Some(b.data().clone()));
        }
        let name = self.intern("__bytes__");
        let Some(method) = self.special_method(v, &name) else {
            return Ok(None);
        };
        let result = self.call(&method, std::slice::from_ref(v), &[])?;
        match result.native::<PyBytes>() {
            Some(b) if self.isinstance(&result, &self.types.bytes) => Ok(Some(b.data().clone())),
            _ => Err(self.type_error(format!(
                "__bytes__ returned non-bytes (type {})",
                self.type_name(&result)
            ))),
        }
    }

    /// A new `bytearray` object.
    pub fn new_bytearray(&mut self, data: Vec<u8>) -> Value {
        self.ready_bytes();
        Value::object(Object::new(
            self.types.bytearray.clone(),
            ObjectKind::Other(Box::new(PyBytes::new(data))),
        ))
    }
}
