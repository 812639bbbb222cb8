//! Comparisons of values: `==`/`<` and friends with dunder dispatch (reflected operands,
//! `NotImplemented`, a subclass's method first), equality that needs no user code, hashing
//! (what dict and set tables key on) and `in`. In: operand values; out: a bool or value, or
//! the TypeError CPython raises. Mirrors `PyObject_RichCompare` and `PyObject_Hash`
//! (`Objects/object.c`) and `PySequence_Contains` (`Objects/abstract.c`).

use std::rc::Rc;

use num_bigint::BigInt;

use crate::common::int_ops::Int;
use crate::common::set_table::{
    HASH_NONE, hash_float, hash_int, hash_slice, hash_small_int, hash_tuple,
};
use crate::compile::bytecode::CompareOperator;

use super::object::ObjectKind;
use super::ops::{is_int, to_int};
use super::set_ops::{is_set_like_view, view_compare};
use super::types::lookup;
use super::value::{PyDict, Value};
use super::{PyResult, Vm};

impl Vm {
    /// `a == b` as a bool.
    #[inline]
    pub fn eq(&mut self, a: &Value, b: &Value) -> PyResult<bool> {
        if let Some(r) = simple_eq(a, b) {
            return Ok(r);
        }
        let r = self.compare(CompareOperator::Eq, a, b)?;
        self.truthy(&r)
    }

    /// `COMPARE_OP`'s general path: `==` and `!=` of values whose equality needs no method
    /// call ([`simple_eq`]) directly, anything else through [`Vm::compare`].
    #[inline]
    pub fn compare_values(&mut self, op: CompareOperator, a: &Value, b: &Value) -> PyResult<Value> {
        match (op, simple_eq(a, b)) {
            (CompareOperator::Eq, Some(r)) => Ok(Value::Bool(r)),
            (CompareOperator::Ne, Some(r)) => Ok(Value::Bool(!r)),
            _ => self.compare(op, a, b),
        }
    }

    /// `a op b` (`PyObject_RichCompare`).
    pub fn compare(&mut self, op: CompareOperator, a: &Value, b: &Value) -> PyResult<Value> {
        match self.rich_compare(op, a, b)? {
            Some(v) => Ok(v),
            None => Err(self.type_error(format!(
                "'{}' not supported between instances of '{}' and '{}'",
                op.symbol(),
                self.object_type_name(a),
                self.object_type_name(b)
            ))),
        }
    }

    /// `a op b`, or None for an ordering neither operand answers (the TypeError, which
    /// [`Vm::compare`] words with the operands' own types, not their built-in bases').
    fn rich_compare(
        &mut self,
        op: CompareOperator,
        a: &Value,
        b: &Value,
    ) -> PyResult<Option<Value>> {
        use CompareOperator::*;
        match (a, b) {
            (Value::Int(x), Value::Int(y)) => {
                return Ok(Some(Value::Bool(cmp_result(op, x.cmp(y)))));
            }
            (Value::Float(x), Value::Float(y)) => {
                return Ok(Some(Value::Bool(compare_native(op, *x, *y))));
            }
            _ => {}
        }
        if let Some(r) = self.builtin_compare(op, a, b)? {
            return Ok(Some(Value::Bool(r)));
        }
        let (name, reflected) = match op {
            Lt => ("__lt__", "__gt__"),
            Le => ("__le__", "__ge__"),
            Eq => ("__eq__", "__eq__"),
            Ne => ("__ne__", "__ne__"),
            Gt => ("__gt__", "__lt__"),
            Ge => ("__ge__", "__le__"),
        };
        let (name, reflected) = (self.intern(name), self.intern(reflected));
        let (base_a, base_b) = (self.base_value(a, &name), self.base_value(b, &reflected));
        if base_a.is_some() || base_b.is_some() {
            let a = base_a.unwrap_or_else(|| a.clone());
            let b = base_b.unwrap_or_else(|| b.clone());
            return self.rich_compare(op, &a, &b);
        }
        let ta = self.type_of(a).clone();
        let tb = self.type_of(b).clone();
        let try_reflected_first = !Rc::ptr_eq(&ta, &tb) && tb.is_subtype(&ta);
        let left = if ta.builtin { None } else { lookup(&ta, &name) };
        let right = if tb.builtin {
            None
        } else {
            lookup(&tb, &reflected)
        };
        if try_reflected_first && let Some(r) = &right {
            let v = self.nested(" in comparison", |vm| {
                vm.call(r, &[b.clone(), a.clone()], &[])
            })?;
            if !matches!(v, Value::NotImplemented) {
                return Ok(Some(v));
            }
        }
        if let Some(l) = &left {
            let v = self.nested(" in comparison", |vm| {
                vm.call(l, &[a.clone(), b.clone()], &[])
            })?;
            if !matches!(v, Value::NotImplemented) {
                return Ok(Some(v));
            }
        }
        if !try_reflected_first && let Some(r) = &right {
            let v = self.nested(" in comparison", |vm| {
                vm.call(r, &[b.clone(), a.clone()], &[])
            })?;
            if !matches!(v, Value::NotImplemented) {
                return Ok(Some(v));
            }
        }
        // Neither answered: identity, as `do_richcompare` (object's own `__ne__` already
        // inverted the instance's `__eq__`).
        Ok(match op {
            Eq => Some(Value::Bool(a.is(b))),
            Ne => Some(Value::Bool(!a.is(b))),
            _ => None,
        })
    }

    fn builtin_compare(
        &mut self,
        op: CompareOperator,
        a: &Value,
        b: &Value,
    ) -> PyResult<Option<bool>> {
        use std::cmp::Ordering;
        if is_int(a) && is_int(b) {
            let ord = to_int(a).cmp(&to_int(b));
            return Ok(Some(cmp_result(op, ord)));
        }
        if matches!(a, Value::Float(_)) && is_int(b) || is_int(a) && matches!(b, Value::Float(_)) {
            return Ok(Some(match (a, b) {
                (Value::Float(x), _) => match float_int_cmp(*x, b) {
                    Some(o) => cmp_result(op, o),
                    None => op == CompareOperator::Ne,
                },
                (_, Value::Float(y)) => match float_int_cmp(*y, a) {
                    Some(o) => cmp_result(op, o.reverse()),
                    None => op == CompareOperator::Ne,
                },
                _ => unreachable!(),
            }));
        }
        if let Some(r) = self.complex_eq(op, a, b) {
            return Ok(Some(r));
        }
        // A set's comparison leaves a view to the view's reflected one.
        if is_set_like_view(a)
            && let Some(r) = view_compare(self, op, a, b)?
        {
            return Ok(Some(r));
        }
        if is_set_like_view(b)
            && let Some(r) = view_compare(self, op.swapped(), b, a)?
        {
            return Ok(Some(r));
        }
        // Slices compare as the tuples of their start, stop and step (`slice_richcompare`).
        if let (Value::Object(_), Value::Object(_)) = (a, b)
            && let (Some(x), Some(y)) = (slice_parts(a), slice_parts(b))
        {
            return self.seq_compare(op, &x, &y).map(Some);
        }
        let eq_only = matches!(op, CompareOperator::Eq | CompareOperator::Ne);
        let r = match (a, b) {
            (Value::Str(x), Value::Str(y)) => cmp_result(op, x.as_str().cmp(y.as_str())),
            (Value::List(x), Value::List(y)) => {
                let (xs, ys) = (x.items.borrow().clone(), y.items.borrow().clone());
                return self.seq_compare(op, &xs, &ys).map(Some);
            }
            (Value::Tuple(x), Value::Tuple(y)) => {
                let (xs, ys) = (x.items.clone(), y.items.clone());
                return self.seq_compare(op, &xs, &ys).map(Some);
            }
            (Value::Dict(x), Value::Dict(y)) if eq_only => {
                let eq = self.dict_eq(x, y)?;
                eq == (op == CompareOperator::Eq)
            }
            (Value::Set(x), Value::Set(y)) => {
                // CPython's set_richcompare: sizes first, then one subset walk that looks
                // each key up by its stored hash (copies: an `__eq__` may change the sets).
                let xs = x.table.borrow().clone();
                let ys = y.table.borrow().clone();
                let (nx, ny) = (xs.len(), ys.len());
                let mut eq = |p: &Value, q: &Value| self.keys_equal(p, q);
                match op {
                    CompareOperator::Eq => nx == ny && xs.is_subset(&ys, &mut eq)?,
                    CompareOperator::Ne => !(nx == ny && xs.is_subset(&ys, &mut eq)?),
                    CompareOperator::Le => xs.is_subset(&ys, &mut eq)?,
                    CompareOperator::Lt => nx < ny && xs.is_subset(&ys, &mut eq)?,
                    CompareOperator::Ge => ys.is_subset(&xs, &mut eq)?,
                    CompareOperator::Gt => nx > ny && ys.is_subset(&xs, &mut eq)?,
                }
            }
            (Value::None, Value::None) if eq_only => op == CompareOperator::Eq,
            (Value::Type(_), Value::Type(_)) | (Value::Function(_), Value::Function(_))
                if eq_only =>
            {
                a.is(b) == (op == CompareOperator::Eq)
            }
            (Value::Object(x), Value::Object(y))
                if eq_only && x.class.builtin && y.class.builtin =>
            {
                let same = match (&x.kind, &y.kind) {
                    (ObjectKind::Range(r), ObjectKind::Range(s)) => r.same_items(s),
                    (
                        ObjectKind::BoundMethod { func: f1, this: t1 },
                        ObjectKind::BoundMethod { func: f2, this: t2 },
                    ) => f1.is(f2) && t1.is(t2),
                    _ => a.is(b),
                };
                same == (op == CompareOperator::Eq)
            }
            _ => {
                if eq_only && self.type_of(a).builtin && self.type_of(b).builtin {
                    let _ = Ordering::Equal;
                    return Ok(Some(a.is(b) == (op == CompareOperator::Eq)));
                }
                return Ok(None);
            }
        };
        Ok(Some(r))
    }

    fn seq_compare(&mut self, op: CompareOperator, xs: &[Value], ys: &[Value]) -> PyResult<bool> {
        if matches!(op, CompareOperator::Eq | CompareOperator::Ne) && xs.len() != ys.len() {
            return Ok(op == CompareOperator::Ne);
        }
        for (x, y) in xs.iter().zip(ys) {
            if x.is(y) {
                continue;
            }
            if !self.nested(" in comparison", |vm| vm.eq(x, y))? {
                return match op {
                    CompareOperator::Eq => Ok(false),
                    CompareOperator::Ne => Ok(true),
                    _ => {
                        let r = self.nested(" in comparison", |vm| vm.compare(op, x, y))?;
                        self.truthy(&r)
                    }
                };
            }
        }
        Ok(cmp_result(op, xs.len().cmp(&ys.len())))
    }

    fn dict_eq(&mut self, x: &PyDict, y: &Rc<PyDict>) -> PyResult<bool> {
        if x.table.borrow().len() != y.table.borrow().len() {
            return Ok(false);
        }
        let entries: Vec<(Value, Value)> = x.table.borrow().snapshot();
        for (k, v) in entries {
            match self.dict_get(y, &k)? {
                Some(w) => {
                    // PyObject_RichCompareBool: the same object is equal without `__eq__`.
                    if !v.is(&w) && !self.nested(" in comparison", |vm| vm.eq(&v, &w))? {
                        return Ok(false);
                    }
                }
                None => return Ok(false),
            }
        }
        Ok(true)
    }

    /// `hash(v)` (`PyObject_Hash`): a str's and a small int's inline, the rest out of line.
    #[inline]
    pub fn hash(&mut self, v: &Value) -> PyResult<i64> {
        match v {
            Value::Str(s) => Ok(s.hash()),
            Value::Int(n) => Ok(hash_small_int(*n)),
            _ => self.hash_other(v),
        }
    }

    fn hash_other(&mut self, v: &Value) -> PyResult<i64> {
        Ok(match v {
            Value::Str(s) => s.hash(),
            Value::Int(n) => hash_small_int(*n),
            Value::Bool(b) => *b as i64,
            Value::None => HASH_NONE,
            Value::Float(f) => hash_float(*f).unwrap_or_else(|| (v.address() >> 4) as i64),
            Value::BigInt(b) => hash_int(&Int::Big((**b).clone())),
            Value::Tuple(t) => {
                let mut hashes = Vec::with_capacity(t.items.len());
                for item in t.items.iter() {
                    hashes.push(self.nested("", |vm| vm.hash(item))?);
                }
                hash_tuple(hashes.into_iter())
            }
            Value::Set(s) if s.frozen => s.table.borrow().frozenset_hash(),
            Value::Object(o)
                if Rc::ptr_eq(&o.class, &self.types.bytes)
                    && let Some(bytes) = v.native::<super::bytes::PyBytes>() =>
            {
                bytes.hash()
            }
            Value::List(_) | Value::Dict(_) | Value::Set(_) => {
                return Err(self.type_error(format!("unhashable type: '{}'", self.type_name(v))));
            }
            Value::Object(o)
                if o.builtin_base().is_some()
                    && !matches!(
                        lookup(&o.class, &self.names.hash.clone()),
                        Some(Value::Function(_) | Value::None)
                    ) =>
            {
                let base = o.builtin_base().cloned().unwrap_or(Value::None);
                self.hash(&base)?
            }
            Value::Object(o) if !o.class.builtin => {
                match lookup(&o.class, &self.names.hash.clone()) {
                    Some(Value::None) => {
                        let name = self.tp_name(&o.class);
                        return Err(self.type_error(format!("unhashable type: '{name}'")));
                    }
                    // A function called with the instance; another object that is no
                    // native method bound first when it is a descriptor (a mock's magic
                    // method), else called as it is (`slot_tp_hash`).
                    Some(f) if !is_native_function(&f) => {
                        let r = self.call_slot(f, v.clone(), &[], &[])?;
                        // As `slot_tp_hash`: an int that fits is the hash itself (-1
                        // being -2), a bigger one is hashed.
                        match r {
                            Value::Int(-1) => -2,
                            Value::Int(n) => n,
                            Value::Bool(b) => b as i64,
                            Value::BigInt(b) => hash_int(&Int::Big((*b).clone())),
                            _ => {
                                return Err(
                                    self.type_error("__hash__ method should return an integer")
                                );
                            }
                        }
                    }
                    // A native class's own hash (a weak reference's is its referent's, a
                    // loader's its name's and path's).
                    Some(f @ Value::Object(_))
                        if lookup(&self.types.object, &self.names.hash.clone())
                            .is_none_or(|inherited| !inherited.is(&f)) =>
                    {
                        let r = self.call(&f, std::slice::from_ref(v), &[])?;
                        self.expect_index(&r)?
                    }
                    _ => (v.address() >> 4) as i64,
                }
            }
            Value::Object(o) => match &o.kind {
                ObjectKind::DictView { .. } => {
                    return Err(self.type_error(format!("unhashable type: '{}'", o.class.name())));
                }
                ObjectKind::Complex(z) => z.hash((v.address() >> 4) as i64),
                ObjectKind::Slice { start, stop, step } => {
                    let parts = [start.clone(), stop.clone(), step.clone()];
                    let mut hashes = [0; 3];
                    for (hash, part) in hashes.iter_mut().zip(parts) {
                        *hash = self.nested("", |vm| vm.hash(&part))?;
                    }
                    hash_slice(hashes)
                }
                // Equal when their function and instance are the same objects (above): so
                // is the hash, from those identities (`meth_hash`).
                ObjectKind::BoundMethod { func, this } => {
                    match ((this.address() >> 4) ^ (func.address() >> 4)) as i64 {
                        -1 => -2,
                        h => h,
                    }
                }
                _ => (v.address() >> 4) as i64,
            },
            _ => (v.address() >> 4) as i64,
        })
    }

    /// Key equality for hash tables: identity, then `==` (`PyObject_RichCompare`).
    pub fn keys_equal(&mut self, stored: &Value, key: &Value) -> PyResult<bool> {
        if stored.is(key) {
            return Ok(true);
        }
        match simple_eq(stored, key) {
            Some(r) => Ok(r),
            None => self.eq(stored, key),
        }
    }

    /// `item in container`.
    pub fn contains(&mut self, container: &Value, item: &Value) -> PyResult<bool> {
        if let Some(base) = self.base_value(container, &self.names.contains.clone()) {
            return self.contains(&base, item);
        }
        match container {
            Value::List(l) => {
                let mut i = 0;
                loop {
                    let x = match l.items.borrow().get(i) {
                        Some(x) => x.clone(),
                        None => return Ok(false),
                    };
                    if x.is(item) || self.eq(&x, item)? {
                        return Ok(true);
                    }
                    i += 1;
                }
            }
            Value::Tuple(t) => {
                for x in t.items.iter() {
                    if x.is(item) || self.eq(x, item)? {
                        return Ok(true);
                    }
                }
                Ok(false)
            }
            Value::Str(s) => match item.str_or_subclass() {
                Some(sub) => Ok(s.as_str().contains(sub.as_str())),
                _ => Err(self.type_error(format!(
                    "'in <string>' requires string as left operand, not {}",
                    self.type_name(item)
                ))),
            },
            Value::Dict(d) => Ok(self.dict_get(d, item)?.is_some()),
            Value::Set(s) => self.set_contains(s, item),
            Value::Object(o) => {
                match &o.kind {
                    ObjectKind::Range(r) => {
                        if let Value::Int(_) | Value::BigInt(_) | Value::Bool(_) = item {
                            let n = super::ops::to_int(item).expect("an int");
                            return Ok(r.position(&n).is_some());
                        }
                    }
                    ObjectKind::DictView { dict, kind } => match kind {
                        super::object::DictViewKind::Keys => {
                            return Ok(self.dict_get(dict, item)?.is_some());
                        }
                        super::object::DictViewKind::Items => {
                            if let Value::Tuple(t) = item
                                && t.items.len() == 2
                            {
                                return match self.dict_get(dict, &t.items[0])? {
                                    Some(v) => self.eq(&v, &t.items[1]),
                                    None => Ok(false),
                                };
                            }
                            return Ok(false);
                        }
                        super::object::DictViewKind::Values => {}
                    },
                    _ => {}
                }
                if !o.class.builtin
                    && let Some(f) = lookup(&o.class, &self.names.contains.clone())
                {
                    let r = self.call(&f, &[container.clone(), item.clone()], &[])?;
                    return self.truthy(&r);
                }
                let iter = match self.get_iter(container) {
                    Ok(it) => it,
                    Err(_) => {
                        return Err(self.type_error(format!(
                            "argument of type '{}' is not iterable",
                            o.class.name()
                        )));
                    }
                };
                while let Some(x) = self.next(&iter)? {
                    if x.is(item) || self.eq(&x, item)? {
                        return Ok(true);
                    }
                }
                Ok(false)
            }
            Value::Type(t) if t.meta.is_some() => {
                match self.meta_method(t, &self.names.contains.clone()) {
                    Some(f) => {
                        let r = self.call(&f, &[container.clone(), item.clone()], &[])?;
                        self.truthy(&r)
                    }
                    None => Err(self.type_error(format!(
                        "argument of type '{}' is not iterable",
                        self.type_name(container)
                    ))),
                }
            }
            _ => Err(self.type_error(format!(
                "argument of type '{}' is not iterable",
                self.type_name(container)
            ))),
        }
    }
}

/// A slice's start, stop and step.
pub fn slice_parts(v: &Value) -> Option<[Value; 3]> {
    match v {
        Value::Object(o) => match &o.kind {
            ObjectKind::Slice { start, stop, step } => {
                Some([start.clone(), stop.clone(), step.clone()])
            }
            _ => None,
        },
        _ => None,
    }
}

/// Equality that needs no user code, or None.
#[inline]
pub fn simple_eq(a: &Value, b: &Value) -> Option<bool> {
    use Value::*;
    Some(match (a, b) {
        (Int(x), Int(y)) => x == y,
        (Str(x), Str(y)) => Rc::ptr_eq(x, y) || x.as_str() == y.as_str(),
        (Float(x), Float(y)) => x == y,
        (Int(x), Float(y)) | (Float(y), Int(x)) => (*x as f64) == *y && (*y as i64) == *x,
        (Bool(x), Bool(y)) => x == y,
        (Bool(x), Int(y)) | (Int(y), Bool(x)) => (*x as i64) == *y,
        (None, None) => true,
        (BigInt(x), BigInt(y)) => x == y,
        (BigInt(_), Int(_) | Bool(_)) | (Int(_) | Bool(_), BigInt(_)) => false,
        (Str(_), Int(_) | Float(_) | None | Bool(_) | Tuple(_))
        | (Int(_) | Float(_) | None | Bool(_) | Tuple(_), Str(_)) => false,
        (None, Int(_) | Float(_) | Bool(_)) | (Int(_) | Float(_) | Bool(_), None) => false,
        (Type(x), Type(y)) => Rc::ptr_eq(x, y),
        _ => return Option::None,
    })
}

fn cmp_result(op: CompareOperator, ord: std::cmp::Ordering) -> bool {
    use std::cmp::Ordering::*;
    match op {
        CompareOperator::Lt => ord == Less,
        CompareOperator::Le => ord != Greater,
        CompareOperator::Eq => ord == Equal,
        CompareOperator::Ne => ord != Equal,
        CompareOperator::Gt => ord == Greater,
        CompareOperator::Ge => ord != Less,
    }
}

/// `x op y` for two numbers of one native type (ints in the dispatch loop's fast path,
/// floats here; a NaN compares false except under `!=`, as in Python).
#[inline]
pub(crate) fn compare_native<T: PartialOrd>(op: CompareOperator, x: T, y: T) -> bool {
    match op {
        CompareOperator::Lt => x < y,
        CompareOperator::Le => x <= y,
        CompareOperator::Eq => x == y,
        CompareOperator::Ne => x != y,
        CompareOperator::Gt => x > y,
        CompareOperator::Ge => x >= y,
    }
}

/// Exact comparison of a float with an int (None when the float is NaN).
pub(super) fn float_int_cmp(x: f64, n: &Value) -> Option<std::cmp::Ordering> {
    if x.is_nan() {
        return None;
    }
    if x.is_infinite() {
        return Some(if x > 0.0 {
            std::cmp::Ordering::Greater
        } else {
            std::cmp::Ordering::Less
        });
    }
    let n = to_int(n)?.to_bigint();
    let floor = x.floor();
    let fb = BigInt::from(floor as i128);
    let fb = if floor.abs() < 1e38 {
        fb
    } else {
        num_traits::FromPrimitive::from_f64(floor)?
    };
    match fb.cmp(&n) {
        std::cmp::Ordering::Equal if x > floor => Some(std::cmp::Ordering::Greater),
        other => Some(other),
    }
}

/// Whether `f` is a function (or method) written natively.
fn is_native_function(f: &Value) -> bool {
    matches!(f, Value::Object(o) if matches!(o.kind, ObjectKind::Native(_)))
}
