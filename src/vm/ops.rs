//! Operators on values: truthiness, `==`/`<` and friends, hashing, binary and unary
//! arithmetic with dunder dispatch (`__add__`, reflected `__radd__`, `NotImplemented`),
//! `in`, subscripts and slices, `len`. Fast paths for unboxed ints and floats come first.
//! Mirrors `Objects/abstract.c` and `Objects/object.c` (`PyObject_RichCompare`).

use super::set_ops;
use std::rc::Rc;

use num_bigint::BigInt;
use num_traits::Signed;

use crate::compile::bytecode::{BinaryOperator, CompareOperator};

use std::cell::{RefCell, RefMut};
use std::convert::Infallible;

use crate::common::int_ops::{self, Int, IntOrFloat};
use crate::common::op_error::{ErrorKind, OpError};
use crate::common::set_table::{HASH_NONE, hash_float, hash_int, hash_tuple};

use super::dict::{StrKeys, set_keys};
use super::object::ObjectKind;
use super::types::lookup;
use super::value::{PyDict, PySet, PyStr, Value};
use super::{PyResult, Vm};

/// An int operand in the runtime library's representation.
pub fn to_int(v: &Value) -> Option<Int> {
    match v {
        Value::Int(n) => Some(Int::Small(*n)),
        Value::Bool(b) => Some(Int::Small(*b as i64)),
        Value::BigInt(b) => Some(Int::Big((**b).clone())),
        _ => None,
    }
}

pub fn from_int(n: Int) -> Value {
    match n {
        Int::Small(n) => Value::Int(n),
        Int::Big(b) => Value::BigInt(Rc::new(b)),
    }
}

/// An int or float operand as f64 (OverflowError for huge ints).
fn as_float(v: &Value) -> Option<Result<f64, OpError>> {
    match v {
        Value::Float(f) => Some(Ok(*f)),
        Value::Int(n) => Some(Ok(*n as f64)),
        Value::Bool(b) => Some(Ok(*b as i64 as f64)),
        Value::BigInt(b) => Some(Int::Big((**b).clone()).to_f64()),
        _ => None,
    }
}

fn is_int(v: &Value) -> bool {
    matches!(v, Value::Int(_) | Value::Bool(_) | Value::BigInt(_))
}

/// `a op b` for two ints (`Objects/longobject.c`, through `builtins::int_ops`).
fn int_binop(op: BinaryOperator, a: &Value, b: &Value) -> Result<Value, OpError> {
    use BinaryOperator::*;
    let (Some(x), Some(y)) = (to_int(a), to_int(b)) else {
        return Err(OpError::type_error("int operation on a non-int"));
    };
    Ok(match op {
        Add => from_int(int_ops::add(&x, &y)),
        Subtract => from_int(int_ops::sub(&x, &y)),
        Multiply => from_int(int_ops::mul(&x, &y)),
        FloorDivide => from_int(int_ops::floor_div(&x, &y)?),
        Remainder => from_int(int_ops::modulo(&x, &y)?),
        TrueDivide => Value::Float(int_ops::true_div(&x, &y)?),
        Power => match int_ops::pow(&x, &y)? {
            IntOrFloat::Int(n) => from_int(n),
            IntOrFloat::Float(f) => Value::Float(f),
        },
        Lshift => from_int(int_ops::lshift(&x, &y)?),
        Rshift => from_int(int_ops::rshift(&x, &y)?),
        And => from_int(int_ops::bit_and(&x, &y)),
        Or => from_int(int_ops::bit_or(&x, &y)),
        Xor => from_int(int_ops::bit_xor(&x, &y)),
        _ => return Ok(Value::NotImplemented),
    })
}

/// `x op y` for floats (`Objects/floatobject.c`, through `builtins::int_ops`).
fn float_binop(op: BinaryOperator, x: f64, y: f64) -> Result<Value, OpError> {
    use BinaryOperator::*;
    Ok(Value::Float(match op {
        Add => x + y,
        Subtract => x - y,
        Multiply => x * y,
        TrueDivide => int_ops::float_true_div(x, y)?,
        FloorDivide => int_ops::float_floor_div(x, y)?,
        Remainder => int_ops::float_mod(x, y)?,
        Power => int_ops::float_pow(x, y)?,
        _ => return Ok(Value::NotImplemented),
    }))
}

fn dunder_names(op: BinaryOperator) -> (&'static str, &'static str) {
    use BinaryOperator::*;
    match op.base() {
        Add => ("__add__", "__radd__"),
        Subtract => ("__sub__", "__rsub__"),
        Multiply => ("__mul__", "__rmul__"),
        TrueDivide => ("__truediv__", "__rtruediv__"),
        FloorDivide => ("__floordiv__", "__rfloordiv__"),
        Remainder => ("__mod__", "__rmod__"),
        Power => ("__pow__", "__rpow__"),
        MatrixMultiply => ("__matmul__", "__rmatmul__"),
        And => ("__and__", "__rand__"),
        Or => ("__or__", "__ror__"),
        Xor => ("__xor__", "__rxor__"),
        Lshift => ("__lshift__", "__rlshift__"),
        Rshift => ("__rshift__", "__rrshift__"),
        _ => unreachable!("base() returns a binary operator"),
    }
}

fn inplace_name(op: BinaryOperator) -> &'static str {
    use BinaryOperator::*;
    match op {
        InplaceAdd => "__iadd__",
        InplaceSubtract => "__isub__",
        InplaceMultiply => "__imul__",
        InplaceTrueDivide => "__itruediv__",
        InplaceFloorDivide => "__ifloordiv__",
        InplaceRemainder => "__imod__",
        InplacePower => "__ipow__",
        InplaceMatrixMultiply => "__imatmul__",
        InplaceAnd => "__iand__",
        InplaceOr => "__ior__",
        InplaceXor => "__ixor__",
        InplaceLshift => "__ilshift__",
        _ => "__irshift__",
    }
}

impl Vm {
    /// For an instance of a user subclass of a built-in type: the built-in value an operation
    /// acts on, unless the class overrides `dunder` in Python.
    pub fn base_value(&self, v: &Value, dunder: &Rc<PyStr>) -> Option<Value> {
        let Value::Object(o) = v else { return None };
        let base = o.builtin_base()?;
        match lookup(&o.class, dunder) {
            Some(Value::Function(_)) => None,
            _ => Some(base.clone()),
        }
    }

    /// The exception for an error reported by the runtime library.
    pub fn op_error(&self, e: OpError) -> super::Exc {
        let t = &self.types;
        let ty = match e.kind {
            ErrorKind::ValueError => &t.value_error,
            ErrorKind::TypeError => &t.type_error,
            ErrorKind::OverflowError => &t.overflow_error,
            ErrorKind::ZeroDivisionError => &t.zero_division_error,
            ErrorKind::IndexError => &t.index_error,
            ErrorKind::KeyError => &t.key_error,
            ErrorKind::MemoryError => &t.memory_error,
        };
        self.new_exc(ty, e.message)
    }

    /// `a op b` for every `BinaryOp`.
    pub fn binary_op(&mut self, op: BinaryOperator, a: &Value, b: &Value) -> PyResult<Value> {
        // Fast paths: unboxed numbers.
        match (a, b) {
            (Value::Int(x), Value::Int(y)) => {
                let r = match op.base() {
                    BinaryOperator::Add => x.checked_add(*y),
                    BinaryOperator::Subtract => x.checked_sub(*y),
                    BinaryOperator::Multiply => x.checked_mul(*y),
                    _ => None,
                };
                if let Some(r) = r {
                    return Ok(Value::Int(r));
                }
                return int_binop(op.base(), a, b).map_err(|e| self.op_error(e));
            }
            (Value::Float(x), Value::Float(y)) => {
                return float_binop(op.base(), *x, *y).map_err(|e| self.op_error(e));
            }
            _ => {}
        }
        if op.is_inplace() {
            if let Some(r) = self.builtin_inplace(op, a, b)? {
                return Ok(r);
            }
            let name = self.intern(inplace_name(op));
            if let Some(f) = lookup(self.type_of(a), &name) {
                let r = self.call(&f, &[a.clone(), b.clone()], &[])?;
                if !matches!(r, Value::NotImplemented) {
                    return Ok(r);
                }
            }
        }
        let base = op.base();
        if let Some(r) = self.builtin_binop(base, a, b)? {
            return Ok(r);
        }
        let (lname, rname) = dunder_names(base);
        let (lname, rname) = (self.intern(lname), self.intern(rname));
        let (base_a, base_b) = (self.base_value(a, &lname), self.base_value(b, &rname));
        if base_a.is_some() || base_b.is_some() {
            let a = base_a.unwrap_or_else(|| a.clone());
            let b = base_b.unwrap_or_else(|| b.clone());
            return self.binary_op(base, &a, &b);
        }
        let ta = self.type_of(a).clone();
        let tb = self.type_of(b).clone();
        let left = if ta.builtin {
            None
        } else {
            lookup(&ta, &lname)
        };
        let right = if Rc::ptr_eq(&ta, &tb) || tb.builtin {
            None
        } else {
            lookup(&tb, &rname)
        };
        if let Some(r) = &right
            && tb.is_subtype(&ta)
        {
            let v = self.call(r, &[b.clone(), a.clone()], &[])?;
            if !matches!(v, Value::NotImplemented) {
                return Ok(v);
            }
        } else if let Some(l) = &left {
            let v = self.call(l, &[a.clone(), b.clone()], &[])?;
            if !matches!(v, Value::NotImplemented) {
                return Ok(v);
            }
        }
        if let Some(r) = &right
            && !tb.is_subtype(&ta)
        {
            let v = self.call(r, &[b.clone(), a.clone()], &[])?;
            if !matches!(v, Value::NotImplemented) {
                return Ok(v);
            }
        } else if let Some(l) = &left
            && tb.is_subtype(&ta)
            && right.is_some()
        {
            let v = self.call(l, &[a.clone(), b.clone()], &[])?;
            if !matches!(v, Value::NotImplemented) {
                return Ok(v);
            }
        }
        Err(self.binop_type_error(op, a, b))
    }

    fn binop_type_error(&self, op: BinaryOperator, a: &Value, b: &Value) -> super::Exc {
        let base = op.base();
        let seq_name = match a {
            Value::Str(_) => Some("str"),
            Value::List(_) => Some("list"),
            Value::Tuple(_) => Some("tuple"),
            _ => None,
        };
        if base == BinaryOperator::Add
            && let Some(seq) = seq_name
            && self.type_of(b).builtin
        {
            return self.type_error(format!(
                "can only concatenate {seq} (not \"{}\") to {seq}",
                self.type_name(b)
            ));
        }
        if base == BinaryOperator::Multiply
            && (seq_name.is_some() || matches!(b, Value::Str(_) | Value::List(_) | Value::Tuple(_)))
        {
            let other = if seq_name.is_some() { b } else { a };
            return self.type_error(format!(
                "can't multiply sequence by non-int of type '{}'",
                self.type_name(other)
            ));
        }
        self.type_error(format!(
            "unsupported operand type(s) for {}: '{}' and '{}'",
            op.symbol(),
            self.type_name(a),
            self.type_name(b)
        ))
    }

    /// `list += iterable` and `set |= …` mutate in place.
    fn builtin_inplace(
        &mut self,
        op: BinaryOperator,
        a: &Value,
        b: &Value,
    ) -> PyResult<Option<Value>> {
        match (op, a) {
            (BinaryOperator::InplaceAdd, Value::List(l)) => {
                let items = self.collect_iterable(b)?;
                l.items.borrow_mut().extend(items);
                Ok(Some(a.clone()))
            }
            (BinaryOperator::InplaceMultiply, Value::List(l)) => {
                let Some(Int::Small(n)) = to_int(b) else {
                    return Ok(None);
                };
                let items = l.items.borrow().clone();
                let mut out = Vec::new();
                for _ in 0..n.max(0) {
                    out.extend(items.iter().cloned());
                }
                *l.items.borrow_mut() = out;
                Ok(Some(a.clone()))
            }
            (
                BinaryOperator::InplaceOr
                | BinaryOperator::InplaceAnd
                | BinaryOperator::InplaceSubtract
                | BinaryOperator::InplaceXor,
                Value::Set(s),
            ) if !s.frozen => {
                let Value::Set(other) = b else {
                    return Ok(None);
                };
                set_ops::in_place(self, op.base(), s, other)?;
                Ok(Some(a.clone()))
            }
            (BinaryOperator::InplaceOr, Value::Dict(d)) => {
                self.dict_update(d, b)?;
                Ok(Some(a.clone()))
            }
            _ => Ok(None),
        }
    }

    /// Operators of the built-in types; `None` when they do not apply.
    fn builtin_binop(
        &mut self,
        op: BinaryOperator,
        a: &Value,
        b: &Value,
    ) -> PyResult<Option<Value>> {
        use BinaryOperator::*;
        if is_int(a) && is_int(b) {
            let r = int_binop(op, a, b).map_err(|e| self.op_error(e))?;
            return Ok(if matches!(r, Value::NotImplemented) {
                None
            } else {
                Some(r)
            });
        }
        if (matches!(a, Value::Float(_)) || matches!(b, Value::Float(_)))
            && let (Some(x), Some(y)) = (as_float(a), as_float(b))
        {
            let r = x
                .and_then(|x| y.and_then(|y| float_binop(op, x, y)))
                .map_err(|e| self.op_error(e))?;
            return Ok(if matches!(r, Value::NotImplemented) {
                None
            } else {
                Some(r)
            });
        }
        Ok(match (op, a, b) {
            (Add, Value::Str(x), Value::Str(y)) => {
                let mut s = String::with_capacity(x.as_str().len() + y.as_str().len());
                s.push_str(x.as_str());
                s.push_str(y.as_str());
                Some(Value::str(s))
            }
            (Add, Value::List(x), Value::List(y)) => {
                let mut v = x.items.borrow().clone();
                v.extend(y.items.borrow().iter().cloned());
                Some(Value::list(v))
            }
            (Add, Value::Tuple(x), Value::Tuple(y)) => {
                let mut v = x.items.to_vec();
                v.extend(y.items.iter().cloned());
                Some(Value::tuple(v))
            }
            (Multiply, Value::Str(_) | Value::List(_) | Value::Tuple(_), n) if is_int(n) => {
                Some(self.repeat(a, n)?)
            }
            (Multiply, n, Value::Str(_) | Value::List(_) | Value::Tuple(_)) if is_int(n) => {
                Some(self.repeat(b, n)?)
            }
            (Remainder, Value::Str(_), _) => Some(super::format::printf_format(self, a, b)?),
            (Or | And | Subtract | Xor, Value::Set(x), Value::Set(y)) => {
                Some(self.set_op(op, x, y)?)
            }
            (Or | And | Subtract | Xor, _, _)
                if set_ops::is_set_like_view(a) || set_ops::is_set_like_view(b) =>
            {
                Some(set_ops::view_binary(self, op, a, b)?)
            }
            (Or, Value::Dict(x), Value::Dict(_)) => {
                let d = Rc::new(PyDict {
                    table: std::cell::RefCell::new(x.table.borrow().clone()),
                });
                self.dict_update(&d, b)?;
                Some(Value::Dict(d))
            }
            _ => None,
        })
    }

    fn repeat(&mut self, seq: &Value, n: &Value) -> PyResult<Value> {
        let count = match n {
            Value::BigInt(b) if b.is_negative() => 0,
            Value::BigInt(_) => {
                return Err(self.overflow_error("cannot fit 'int' into an index-sized integer"));
            }
            other => match to_int(other) {
                Some(Int::Small(n)) => n.max(0) as usize,
                _ => 0,
            },
        };
        Ok(match seq {
            Value::Str(s) => Value::str(s.as_str().repeat(count)),
            Value::List(l) => {
                let items = l.items.borrow();
                let mut v = Vec::with_capacity(items.len() * count);
                for _ in 0..count {
                    v.extend(items.iter().cloned());
                }
                Value::list(v)
            }
            Value::Tuple(t) => {
                let mut v = Vec::with_capacity(t.items.len() * count);
                for _ in 0..count {
                    v.extend(t.items.iter().cloned());
                }
                Value::tuple(v)
            }
            _ => unreachable!("repeat on a sequence"),
        })
    }

    fn set_op(&mut self, op: BinaryOperator, x: &PySet, y: &PySet) -> PyResult<Value> {
        set_ops::binary(self, op, x, y)
    }

    pub fn new_set(&mut self, items: Vec<Value>, frozen: bool) -> PyResult<Value> {
        let set = Value::set(Default::default(), frozen);
        if let Value::Set(s) = &set {
            for item in items {
                self.set_add(s, item)?;
            }
        }
        Ok(set)
    }

    /// `-a`, `+a`, `~a`.
    pub fn unary_op(&mut self, op: &str, a: &Value) -> PyResult<Value> {
        let r = match (op, a) {
            ("-", Value::Int(_) | Value::Bool(_) | Value::BigInt(_)) => {
                to_int(a).map(|n| from_int(int_ops::neg(&n)))
            }
            ("-", Value::Float(f)) => Some(Value::Float(-f)),
            ("+", Value::Int(_) | Value::BigInt(_) | Value::Float(_)) => Some(a.clone()),
            ("+", Value::Bool(b)) => Some(Value::Int(*b as i64)),
            ("~", Value::Int(_) | Value::Bool(_) | Value::BigInt(_)) => {
                to_int(a).map(|n| from_int(int_ops::invert(&n)))
            }
            _ => None,
        };
        if let Some(r) = r {
            return Ok(r);
        }
        let name = match op {
            "-" => self.names.neg.clone(),
            "+" => self.names.pos.clone(),
            _ => self.names.invert.clone(),
        };
        if let Some(f) = lookup(self.type_of(a), &name) {
            return self.call(&f, std::slice::from_ref(a), &[]);
        }
        Err(self.type_error(format!(
            "bad operand type for unary {op}: '{}'",
            self.type_name(a)
        )))
    }

    /// `bool(v)` (`PyObject_IsTrue`).
    #[inline]
    pub fn truthy(&mut self, v: &Value) -> PyResult<bool> {
        Ok(match v {
            Value::Bool(b) => *b,
            Value::None | Value::Null => false,
            Value::Int(n) => *n != 0,
            Value::Float(f) => *f != 0.0,
            Value::BigInt(_) => true,
            Value::Str(s) => !s.as_str().is_empty(),
            Value::List(l) => !l.items.borrow().is_empty(),
            Value::Tuple(t) => !t.items.is_empty(),
            Value::Dict(d) => !d.table.borrow().is_empty(),
            Value::Set(s) => !s.table.borrow().is_empty(),
            Value::Type(_) | Value::Function(_) | Value::Ellipsis | Value::NotImplemented => true,
            Value::Object(o) => return self.object_truthy(v, o),
        })
    }

    fn object_truthy(&mut self, v: &Value, o: &Rc<super::object::Object>) -> PyResult<bool> {
        if let Some(base) = self.base_value(v, &self.names.bool_.clone()) {
            return self.truthy(&base);
        }
        if let ObjectKind::Range(r) = &o.kind {
            return Ok(r.length() > 0);
        }
        if let ObjectKind::DictView { dict, .. } = &o.kind {
            return Ok(!dict.table.borrow().is_empty());
        }
        // A native length without the call (a deque: asyncio's Queue tests `not self._queue`).
        if let ObjectKind::Other(_) = &o.kind
            && let Some(len) = o.class.native_len.get().and_then(|len| len(self, v))
        {
            return Ok(len != 0);
        }
        if o.class.builtin {
            return Ok(true);
        }
        if let Some(f) = lookup(&o.class, &self.names.bool_.clone()) {
            let r = self.call(&f, std::slice::from_ref(v), &[])?;
            return match r {
                Value::Bool(b) => Ok(b),
                other => Err(self.type_error(format!(
                    "__bool__ should return bool, returned {}",
                    self.type_name(&other)
                ))),
            };
        }
        if let Some(f) = lookup(&o.class, &self.names.len.clone()) {
            let r = self.call(&f, std::slice::from_ref(v), &[])?;
            return Ok(self.len_result(r)? != 0);
        }
        Ok(true)
    }

    fn len_result(&mut self, r: Value) -> PyResult<usize> {
        match r {
            Value::Int(n) if n >= 0 => Ok(n as usize),
            Value::Bool(b) => Ok(b as usize),
            Value::Int(_) => Err(self.value_error("__len__() should return >= 0")),
            other => Err(self.type_error(format!(
                "'{}' object cannot be interpreted as an integer",
                self.type_name(&other)
            ))),
        }
    }

    /// `len(v)`.
    pub fn len(&mut self, v: &Value) -> PyResult<usize> {
        if let Some(base) = self.base_value(v, &self.names.len.clone()) {
            return self.len(&base);
        }
        Ok(match v {
            Value::Str(s) => s.char_len(),
            Value::List(l) => l.items.borrow().len(),
            Value::Tuple(t) => t.items.len(),
            Value::Dict(d) => d.table.borrow().len(),
            Value::Set(s) => s.table.borrow().len(),
            Value::Object(o) => match &o.kind {
                ObjectKind::Range(r) => r.length() as usize,
                ObjectKind::DictView { dict, .. } => dict.table.borrow().len(),
                _ => {
                    let f = if o.class.builtin {
                        None
                    } else {
                        lookup(&o.class, &self.names.len.clone())
                    };
                    let Some(f) = f else {
                        return Err(self.type_error(format!(
                            "object of type '{}' has no len()",
                            o.class.name
                        )));
                    };
                    let r = self.call(&f, std::slice::from_ref(v), &[])?;
                    return self.len_result(r);
                }
            },
            _ => {
                return Err(self.type_error(format!(
                    "object of type '{}' has no len()",
                    self.type_name(v)
                )));
            }
        })
    }

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
        use CompareOperator::*;
        match (a, b) {
            (Value::Int(x), Value::Int(y)) => return Ok(Value::Bool(cmp_result(op, x.cmp(y)))),
            (Value::Float(x), Value::Float(y)) => {
                return Ok(Value::Bool(compare_native(op, *x, *y)));
            }
            _ => {}
        }
        if let Some(r) = self.builtin_compare(op, a, b)? {
            return Ok(Value::Bool(r));
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
            return self.compare(op, &a, &b);
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
            let v = self.nested(|vm| vm.call(r, &[b.clone(), a.clone()], &[]))?;
            if !matches!(v, Value::NotImplemented) {
                return Ok(v);
            }
        }
        if let Some(l) = &left {
            let v = self.nested(|vm| vm.call(l, &[a.clone(), b.clone()], &[]))?;
            if !matches!(v, Value::NotImplemented) {
                return Ok(v);
            }
        }
        if !try_reflected_first && let Some(r) = &right {
            let v = self.nested(|vm| vm.call(r, &[b.clone(), a.clone()], &[]))?;
            if !matches!(v, Value::NotImplemented) {
                return Ok(v);
            }
        }
        match op {
            Eq => Ok(Value::Bool(a.is(b))),
            Ne => {
                // Default __ne__ inverts __eq__.
                if !ta.builtin && lookup(&ta, &self.names.eq.clone()).is_some() {
                    let r = self.compare(Eq, a, b)?;
                    return Ok(Value::Bool(!self.truthy(&r)?));
                }
                Ok(Value::Bool(!a.is(b)))
            }
            _ => Err(self.type_error(format!(
                "'{}' not supported between instances of '{}' and '{}'",
                op.symbol(),
                ta.name,
                tb.name
            ))),
        }
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
                let xs = set_keys(&x.table.borrow());
                let ys = set_keys(&y.table.borrow());
                let mut x_in_y = true;
                for k in &xs {
                    if !self.contains(b, k)? {
                        x_in_y = false;
                        break;
                    }
                }
                let mut y_in_x = true;
                for k in &ys {
                    if !self.contains(a, k)? {
                        y_in_x = false;
                        break;
                    }
                }
                match op {
                    CompareOperator::Eq => x_in_y && y_in_x,
                    CompareOperator::Ne => !(x_in_y && y_in_x),
                    CompareOperator::Le => x_in_y,
                    CompareOperator::Lt => x_in_y && !y_in_x,
                    CompareOperator::Ge => y_in_x,
                    CompareOperator::Gt => y_in_x && !x_in_y,
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
                    (ObjectKind::Range(r), ObjectKind::Range(s)) => {
                        (r.length() == 0 && s.length() == 0)
                            || (r.start == s.start
                                && r.length() == s.length()
                                && (r.length() == 1 || r.step == s.step))
                    }
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
            if !self.nested(|vm| vm.eq(x, y))? {
                return match op {
                    CompareOperator::Eq => Ok(false),
                    CompareOperator::Ne => Ok(true),
                    _ => {
                        let r = self.nested(|vm| vm.compare(op, x, y))?;
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
                    if !self.nested(|vm| vm.eq(&v, &w))? {
                        return Ok(false);
                    }
                }
                None => return Ok(false),
            }
        }
        Ok(true)
    }

    /// `hash(v)` (`PyObject_Hash`).
    pub fn hash(&mut self, v: &Value) -> PyResult<i64> {
        Ok(match v {
            Value::Str(s) => s.hash(),
            Value::Int(n) => hash_int(&Int::Small(*n)),
            Value::Bool(b) => *b as i64,
            Value::None => HASH_NONE,
            Value::Float(f) => hash_float(*f).unwrap_or_else(|| (v.address() >> 4) as i64),
            Value::BigInt(b) => hash_int(&Int::Big((**b).clone())),
            Value::Tuple(t) => {
                let mut hashes = Vec::with_capacity(t.items.len());
                for item in t.items.iter() {
                    hashes.push(self.nested(|vm| vm.hash(item))?);
                }
                hash_tuple(hashes.into_iter())
            }
            Value::Set(s) if s.frozen => s.table.borrow().frozenset_hash(),
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
                        return Err(self.type_error(format!("unhashable type: '{}'", o.class.name)));
                    }
                    Some(f @ Value::Function(_)) => {
                        let r = self.call(&f, std::slice::from_ref(v), &[])?;
                        match r {
                            Value::Int(n) => hash_int(&Int::Small(n)),
                            Value::Bool(b) => b as i64,
                            Value::BigInt(b) => hash_int(&Int::Big((*b).clone())),
                            _ => {
                                return Err(
                                    self.type_error("__hash__ method should return an integer")
                                );
                            }
                        }
                    }
                    _ => (v.address() >> 4) as i64,
                }
            }
            Value::Object(o) => match &o.kind {
                ObjectKind::DictView { .. } => {
                    return Err(self.type_error(format!("unhashable type: '{}'", o.class.name)));
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

    pub fn dict_get(&mut self, d: &PyDict, key: &Value) -> PyResult<Option<Value>> {
        if let Value::Str(s) = key {
            return Ok(d.table.borrow().get_str(s).cloned());
        }
        let hash = self.hash(key)?;
        let table = d.table.borrow();
        Ok(table.get(key, hash, |a, b| self.keys_equal(a, b))?.cloned())
    }

    pub fn dict_set(&mut self, d: &PyDict, key: Value, value: Value) -> PyResult<()> {
        if let Value::Str(s) = &key {
            let mut table = self.table_mut(&d.table)?;
            table.set_str(s.clone(), value);
            return Ok(());
        }
        let hash = self.hash(&key)?;
        let position = d
            .table
            .borrow()
            .position(&key, hash, |a, b| self.keys_equal(a, b))?;
        let mut table = self.table_mut(&d.table)?;
        let old = match position.and_then(|at| table.value_mut(at)) {
            Some(slot) => Some(std::mem::replace(slot, value)),
            // Known absent: identity comparison is enough to place it.
            None => table
                .insert(key, hash, value, |a, b| Ok::<_, Infallible>(a.is(b)))
                .unwrap_or(None),
        };
        drop(table);
        drop(old);
        Ok(())
    }

    pub fn dict_del(&mut self, d: &PyDict, key: &Value) -> PyResult<Option<Value>> {
        let hash = self.hash(key)?;
        let position = d
            .table
            .borrow()
            .position(key, hash, |a, b| self.keys_equal(a, b))?;
        if position.is_none() {
            return Ok(None);
        }
        let mut table = self.table_mut(&d.table)?;
        let removed = table.remove(key, hash, |a, b| {
            Ok::<_, Infallible>(a.is(b) || simple_eq(a, b) == Some(true))
        });
        drop(table);
        match removed {
            Ok(Some((_, v))) => Ok(Some(v)),
            _ => {
                // A key equal only through __eq__: remove the entry found above by its key.
                let stored =
                    position.and_then(|at| d.table.borrow().entry(at).map(|e| e.key.clone()));
                let Some(stored) = stored else {
                    return Ok(None);
                };
                let mut table = self.table_mut(&d.table)?;
                let removed = table
                    .remove(&stored, hash, |a, b| Ok::<_, Infallible>(a.is(b)))
                    .unwrap_or(None);
                Ok(removed.map(|(_, v)| v))
            }
        }
    }

    pub fn set_contains(&mut self, set: &PySet, key: &Value) -> PyResult<bool> {
        let hash = self.hash(key)?;
        let table = set.table.borrow();
        table.contains(key, hash, |a, b| self.keys_equal(a, b))
    }

    pub fn set_add(&mut self, set: &PySet, key: Value) -> PyResult<()> {
        let hash = self.hash(&key)?;
        if set
            .table
            .borrow()
            .contains(&key, hash, |a, b| self.keys_equal(a, b))?
        {
            return Ok(());
        }
        let mut table = self.table_mut(&set.table)?;
        let _ = table.insert(key, hash, |a, b| Ok::<_, Infallible>(a.is(b)));
        Ok(())
    }

    /// Removes `key` from a set: whether it was there.
    pub fn set_discard(&mut self, set: &PySet, key: &Value) -> PyResult<bool> {
        let hash = self.hash(key)?;
        let stored = set
            .table
            .borrow()
            .get(key, hash, |a, b| self.keys_equal(a, b))?
            .cloned();
        let Some(stored) = stored else {
            return Ok(false);
        };
        let mut table = self.table_mut(&set.table)?;
        let removed = table
            .remove(&stored, hash, |a, b| Ok::<_, Infallible>(a.is(b)))
            .unwrap_or(None);
        Ok(removed.is_some())
    }

    /// Borrows a table for mutation; a table already in use (mutated from inside a key's
    /// `__eq__` or `__hash__`) is a RuntimeError, not a crash.
    pub fn table_mut<'a, T>(&self, cell: &'a RefCell<T>) -> PyResult<RefMut<'a, T>> {
        cell.try_borrow_mut()
            .map_err(|_| self.runtime_error("dictionary or set changed during a lookup"))
    }

    /// `dict.update(other)`: a mapping or an iterable of pairs.
    pub fn dict_update(&mut self, d: &PyDict, other: &Value) -> PyResult<()> {
        if let Value::Dict(o) = other {
            let entries: Vec<(Value, Value)> = o.table.borrow().snapshot();
            for (k, v) in entries {
                self.dict_set(d, k, v)?;
            }
            return Ok(());
        }
        let keys_name = self.intern("keys");
        if !matches!(other, Value::List(_) | Value::Tuple(_))
            && self.get_attr_opt(other, &keys_name)?.is_some()
        {
            let keys = self.call_method(other, "keys", &[])?;
            for k in self.collect_iterable(&keys)? {
                let v = self.get_item(other, &k)?;
                self.dict_set(d, k, v)?;
            }
            return Ok(());
        }
        for (i, item) in self.collect_iterable(other)?.into_iter().enumerate() {
            let pair = self.collect_iterable(&item).map_err(|_| {
                self.type_error(format!(
                    "cannot convert dictionary update sequence element #{i} to a sequence"
                ))
            })?;
            if pair.len() != 2 {
                return Err(self.value_error(format!(
                    "dictionary update sequence element #{i} has length {}; 2 is required",
                    pair.len()
                )));
            }
            let mut it = pair.into_iter();
            let (k, v) = (
                it.next().unwrap_or(Value::None),
                it.next().unwrap_or(Value::None),
            );
            self.dict_set(d, k, v)?;
        }
        Ok(())
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
            Value::Str(s) => match item {
                Value::Str(sub) => Ok(s.as_str().contains(sub.as_str())),
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
                        if let Value::Int(n) = item {
                            let n = *n;
                            let inside = if r.step > 0 {
                                n >= r.start && n < r.stop
                            } else {
                                n <= r.start && n > r.stop
                            };
                            return Ok(inside && (n - r.start) % r.step == 0);
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
                            o.class.name
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
            _ => Err(self.type_error(format!(
                "argument of type '{}' is not iterable",
                self.type_name(container)
            ))),
        }
    }

    /// An index operand as i64 (`__index__`).
    pub fn index_value(&mut self, v: &Value) -> PyResult<Option<i64>> {
        Ok(match v {
            Value::Int(n) => Some(*n),
            Value::Bool(b) => Some(*b as i64),
            Value::BigInt(b) => Some(if b.is_negative() { i64::MIN } else { i64::MAX }),
            Value::Object(o) if !o.class.builtin => {
                match lookup(&o.class, &self.names.index.clone()) {
                    Some(f) => {
                        let r = self.call(&f, std::slice::from_ref(v), &[])?;
                        self.index_value(&r)?
                    }
                    None => None,
                }
            }
            _ => None,
        })
    }

    /// An int argument (`'str' object cannot be interpreted as an integer`).
    pub fn expect_index(&mut self, v: &Value) -> PyResult<i64> {
        match self.index_value(v)? {
            Some(n) => Ok(n),
            None => Err(self.type_error(format!(
                "'{}' object cannot be interpreted as an integer",
                self.type_name(v)
            ))),
        }
    }

    /// `container[key]`.
    pub fn get_item(&mut self, container: &Value, key: &Value) -> PyResult<Value> {
        if let Some(base) = self.base_value(container, &self.names.getitem.clone()) {
            // A dict subclass may supply missing keys (`__missing__`).
            if let (Value::Dict(d), Value::Object(o)) = (&base, container)
                && let Some(missing) = lookup(&o.class, &self.names.missing.clone())
            {
                return match self.dict_get(d, key)? {
                    Some(v) => Ok(v),
                    None => self.call(&missing, &[container.clone(), key.clone()], &[]),
                };
            }
            return self.get_item(&base, key);
        }
        match (container, key) {
            (Value::List(l), Value::Int(i)) => {
                let items = l.items.borrow();
                let n = items.len() as i64;
                let j = if *i < 0 { i + n } else { *i };
                if j < 0 || j >= n {
                    drop(items);
                    return Err(self.index_error("list index out of range"));
                }
                return Ok(items[j as usize].clone());
            }
            (Value::Tuple(t), Value::Int(i)) => {
                let n = t.items.len() as i64;
                let j = if *i < 0 { i + n } else { *i };
                if j < 0 || j >= n {
                    return Err(self.index_error("tuple index out of range"));
                }
                return Ok(t.items[j as usize].clone());
            }
            (Value::Dict(d), _) => {
                return match self.dict_get(d, key)? {
                    Some(v) => Ok(v),
                    None => {
                        // A dict subclass with __missing__ is not in apy; plain KeyError.
                        Err(self.key_error(key.clone()))
                    }
                };
            }
            _ => {}
        }
        if let Value::Object(s) = key
            && let ObjectKind::Slice { start, stop, step } = &s.kind
        {
            let (start, stop, step) = (start.clone(), stop.clone(), step.clone());
            return self.get_slice(container, &start, &stop, &step);
        }
        match container {
            Value::List(_) | Value::Tuple(_) | Value::Str(_) => {
                let Some(i) = self.index_value(key)? else {
                    let what = match container {
                        Value::List(_) => "list",
                        Value::Tuple(_) => "tuple",
                        _ => "string",
                    };
                    return Err(self.type_error(format!(
                        "{what} indices must be integers or slices, not {}",
                        self.type_name(key)
                    )));
                };
                match container {
                    Value::Str(s) => {
                        let text = s.as_str();
                        let n = s.char_len() as i64;
                        let j = if i < 0 { i + n } else { i };
                        if j < 0 || j >= n {
                            return Err(self.index_error("string index out of range"));
                        }
                        let c = if text.is_ascii() {
                            text[j as usize..j as usize + 1].to_string()
                        } else {
                            text.chars()
                                .nth(j as usize)
                                .map(String::from)
                                .unwrap_or_default()
                        };
                        Ok(Value::str(c))
                    }
                    _ => self.get_item(container, &Value::Int(i)),
                }
            }
            Value::Object(o) => {
                if let ObjectKind::Range(r) = &o.kind {
                    let Some(i) = self.index_value(key)? else {
                        return Err(self.type_error(format!(
                            "range indices must be integers or slices, not {}",
                            self.type_name(key)
                        )));
                    };
                    let n = r.length();
                    let j = if i < 0 { i + n } else { i };
                    if j < 0 || j >= n {
                        return Err(self.index_error("range object index out of range"));
                    }
                    return Ok(Value::Int(r.start + j * r.step));
                }
                if !o.class.builtin
                    && let Some(f) = lookup(&o.class, &self.names.getitem.clone())
                {
                    return self.call(&f, &[container.clone(), key.clone()], &[]);
                }
                Err(self.type_error(format!("'{}' object is not subscriptable", o.class.name)))
            }
            Value::Type(t) => {
                // `list[int]` and friends: apy keeps the class itself (annotations only).
                let name = self.intern("__class_getitem__");
                if let Some(f) = lookup(t, &name) {
                    return self.call(&f, &[container.clone(), key.clone()], &[]);
                }
                if t.builtin {
                    return Ok(container.clone());
                }
                Err(self.type_error(format!("type '{}' is not subscriptable", t.name)))
            }
            _ => Err(self.type_error(format!(
                "'{}' object is not subscriptable",
                self.type_name(container)
            ))),
        }
    }

    /// `container[key] = value`.
    pub fn set_item(&mut self, container: &Value, key: &Value, value: Value) -> PyResult<()> {
        if let Some(base) = self.base_value(container, &self.names.setitem.clone()) {
            return self.set_item(&base, key, value);
        }
        match container {
            Value::List(l) => match self.list_target(l, key)? {
                ListTarget::Slice(start, stop, step) => {
                    self.set_list_slice(l, &start, &stop, &step, Some(value))
                }
                ListTarget::Index(j) => {
                    // The old item is dropped after the list's borrow ends, so nothing its
                    // drop sets off can find the list borrowed.
                    let old = std::mem::replace(&mut l.items.borrow_mut()[j], value);
                    drop(old);
                    Ok(())
                }
            },
            Value::Dict(d) => self.dict_set(d, key.clone(), value),
            Value::Object(o) if !o.class.builtin => {
                match lookup(&o.class, &self.names.setitem.clone()) {
                    Some(f) => self
                        .call(&f, &[container.clone(), key.clone(), value], &[])
                        .map(drop),
                    None => {
                        Err(self.no_item_support(container, "does not support item assignment"))
                    }
                }
            }
            _ => Err(self.no_item_support(container, "does not support item assignment")),
        }
    }

    /// What `list[key] = v` and `del list[key]` act on: an in-range position, or the parts
    /// of a slice. Raises CPython's TypeError for other keys and IndexError out of range.
    fn list_target(&mut self, l: &super::value::PyList, key: &Value) -> PyResult<ListTarget> {
        if let Value::Object(s) = key
            && let ObjectKind::Slice { start, stop, step } = &s.kind
        {
            return Ok(ListTarget::Slice(start.clone(), stop.clone(), step.clone()));
        }
        let Some(i) = self.index_value(key)? else {
            return Err(self.type_error(format!(
                "list indices must be integers or slices, not {}",
                self.type_name(key)
            )));
        };
        let n = l.items.borrow().len() as i64;
        let j = if i < 0 { i + n } else { i };
        if j < 0 || j >= n {
            return Err(self.index_error("list assignment index out of range"));
        }
        Ok(ListTarget::Index(j as usize))
    }

    /// The TypeError for `container[k] = v` / `del container[k]` on a type without them, in
    /// CPython's words (which differ: "does not support item assignment", "doesn't support
    /// item deletion"), for built-in and user classes alike.
    fn no_item_support(&self, container: &Value, what: &str) -> super::Exc {
        self.type_error(format!("'{}' object {what}", self.type_name(container)))
    }

    /// `del container[key]`.
    pub fn del_item(&mut self, container: &Value, key: &Value) -> PyResult<()> {
        if let Some(base) = self.base_value(container, &self.names.delitem.clone()) {
            return self.del_item(&base, key);
        }
        match container {
            Value::List(l) => match self.list_target(l, key)? {
                ListTarget::Slice(start, stop, step) => {
                    self.set_list_slice(l, &start, &stop, &step, None)
                }
                ListTarget::Index(j) => {
                    let old = l.items.borrow_mut().remove(j);
                    drop(old);
                    Ok(())
                }
            },
            Value::Dict(d) => match self.dict_del(d, key)? {
                Some(_) => Ok(()),
                None => Err(self.key_error(key.clone())),
            },
            Value::Object(o) if !o.class.builtin => {
                match lookup(&o.class, &self.names.delitem.clone()) {
                    Some(f) => self
                        .call(&f, &[container.clone(), key.clone()], &[])
                        .map(drop),
                    None => Err(self.no_item_support(container, "doesn't support item deletion")),
                }
            }
            _ => Err(self.no_item_support(container, "doesn't support item deletion")),
        }
    }

    /// Resolves slice bounds against a length (`PySlice_GetIndicesEx`): start, stop, step and
    /// the number of items.
    pub fn slice_indices(
        &mut self,
        len: usize,
        start: &Value,
        stop: &Value,
        step: &Value,
    ) -> PyResult<(i64, i64, i64, usize)> {
        let len = len as i64;
        let step = if step.is_none() {
            1
        } else {
            match self.index_value(step)? {
                Some(0) => return Err(self.value_error("slice step cannot be zero")),
                Some(s) => s,
                None => {
                    return Err(self.type_error(
                        "slice indices must be integers or None or have an __index__ method",
                    ));
                }
            }
        };
        let bound = |vm: &mut Vm, v: &Value, default: i64| -> PyResult<i64> {
            if v.is_none() {
                return Ok(default);
            }
            let Some(mut i) = vm.index_value(v)? else {
                return Err(vm.type_error(
                    "slice indices must be integers or None or have an __index__ method",
                ));
            };
            if i < 0 {
                i = i.saturating_add(len);
                if i < 0 {
                    i = if step < 0 { -1 } else { 0 };
                }
            } else if i >= len {
                i = if step < 0 { len - 1 } else { len };
            }
            Ok(i)
        };
        let (start, stop) = if step > 0 {
            (bound(self, start, 0)?, bound(self, stop, len)?)
        } else {
            (bound(self, start, len - 1)?, bound(self, stop, -1)?)
        };
        let count = if step > 0 {
            if stop > start {
                ((stop - start - 1) / step + 1) as usize
            } else {
                0
            }
        } else if start > stop {
            ((start - stop - 1) / (-step) + 1) as usize
        } else {
            0
        };
        Ok((start, stop, step, count))
    }

    /// `container[start:stop:step]`.
    pub fn get_slice(
        &mut self,
        container: &Value,
        start: &Value,
        stop: &Value,
        step: &Value,
    ) -> PyResult<Value> {
        let pick = |items: &[Value], s: i64, st: i64, n: usize| -> Vec<Value> {
            (0..n)
                .map(|k| items[(s + k as i64 * st) as usize].clone())
                .collect()
        };
        match container {
            Value::List(l) => {
                let len = l.items.borrow().len();
                let (s, _, st, n) = self.slice_indices(len, start, stop, step)?;
                let items = l.items.borrow();
                Ok(Value::list(pick(&items, s, st, n)))
            }
            Value::Tuple(t) => {
                let (s, _, st, n) = self.slice_indices(t.items.len(), start, stop, step)?;
                Ok(Value::tuple(pick(&t.items, s, st, n)))
            }
            Value::Str(text) => {
                let chars: Vec<char> = text.as_str().chars().collect();
                let (s, _, st, n) = self.slice_indices(chars.len(), start, stop, step)?;
                Ok(Value::str(
                    (0..n)
                        .map(|k| chars[(s + k as i64 * st) as usize])
                        .collect::<String>(),
                ))
            }
            Value::Object(o) if matches!(o.kind, ObjectKind::Range(_)) => {
                let ObjectKind::Range(r) = &o.kind else {
                    unreachable!()
                };
                let (s, _, st, n) = self.slice_indices(r.length() as usize, start, stop, step)?;
                let new_start = r.start + s * r.step;
                let new_step = r.step * st;
                Ok(self.new_range(new_start, new_start + n as i64 * new_step, new_step))
            }
            _ => {
                let slice = self.new_slice(start.clone(), stop.clone(), step.clone());
                self.get_item(container, &slice)
            }
        }
    }

    pub fn new_slice(&self, start: Value, stop: Value, step: Value) -> Value {
        Value::object(super::object::Object::new(
            self.types.slice.clone(),
            ObjectKind::Slice { start, stop, step },
        ))
    }

    pub fn new_range(&self, start: i64, stop: i64, step: i64) -> Value {
        Value::object(super::object::Object::new(
            self.types.range.clone(),
            ObjectKind::Range(super::object::Range { start, stop, step }),
        ))
    }

    /// `l[a:b:c] = value` (value None: `del l[a:b:c]`).
    pub fn set_list_slice(
        &mut self,
        l: &super::value::PyList,
        start: &Value,
        stop: &Value,
        step: &Value,
        value: Option<Value>,
    ) -> PyResult<()> {
        let len = l.items.borrow().len();
        let (s, e, st, n) = self.slice_indices(len, start, stop, step)?;
        let new_items = match &value {
            Some(v) => Some(self.collect_iterable(v)?),
            None => None,
        };
        if st == 1 {
            let e = e.max(s);
            let mut items = l.items.borrow_mut();
            let removed: Vec<Value> = items
                .splice(s as usize..e as usize, new_items.unwrap_or_default())
                .collect();
            drop(items);
            drop(removed);
            return Ok(());
        }
        match new_items {
            Some(new_items) => {
                if new_items.len() != n {
                    return Err(self.value_error(format!(
                        "attempt to assign sequence of size {} to extended slice of size {n}",
                        new_items.len()
                    )));
                }
                let mut items = l.items.borrow_mut();
                for (k, v) in new_items.into_iter().enumerate() {
                    items[(s + k as i64 * st) as usize] = v;
                }
            }
            None => {
                let mut indices: Vec<usize> =
                    (0..n).map(|k| (s + k as i64 * st) as usize).collect();
                indices.sort_unstable();
                let mut items = l.items.borrow_mut();
                for i in indices.into_iter().rev() {
                    items.remove(i);
                }
            }
        }
        Ok(())
    }

    /// Calls `obj.name(*args)`.
    pub fn call_method(&mut self, obj: &Value, name: &str, args: &[Value]) -> PyResult<Value> {
        let name = self.intern(name);
        let (f, this) = self.load_method(obj, &name)?;
        if this.is_null() {
            self.call(&f, args, &[])
        } else {
            let mut all = Vec::with_capacity(args.len() + 1);
            all.push(this);
            all.extend_from_slice(args);
            self.call(&f, &all, &[])
        }
    }

    /// Looks up a special method on the type (skipping the instance dict), as CPython does for
    /// implicit dunder calls.
    pub fn special_method(&self, v: &Value, name: &Rc<PyStr>) -> Option<Value> {
        lookup(self.type_of(v), name)
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
fn float_int_cmp(x: f64, n: &Value) -> Option<std::cmp::Ordering> {
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

/// The target of an item assignment or deletion in a list (see `Vm::list_target`).
enum ListTarget {
    Index(usize),
    Slice(Value, Value, Value),
}
