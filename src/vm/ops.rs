//! Operators on values: truthiness, `==`/`<` and friends, hashing, binary and unary
//! arithmetic with dunder dispatch (`__add__`, reflected `__radd__`, `NotImplemented`),
//! `in`, subscripts and slices, `len`. Fast paths for unboxed ints and floats come first.
//! Mirrors `Objects/abstract.c` and `Objects/object.c` (`PyObject_RichCompare`).

use std::rc::Rc;

use num_bigint::BigInt;
use num_integer::Integer;
use num_traits::{Signed, ToPrimitive, Zero};

use crate::compile::bytecode::{BinaryOperator, CompareOperator};

use super::dict::{KeyEq, Probe};
use super::object::{ObjectKind, PyType};
use super::types::lookup;
use super::value::{PyDict, PyStr, Value};
use super::{PyResult, Vm};

/// CPython's modulus for numeric hashes (`_PyHASH_MODULUS`).
const HASH_MODULUS: u64 = (1 << 61) - 1;

fn big(v: &Value) -> Option<BigInt> {
    match v {
        Value::Int(n) => Some(BigInt::from(*n)),
        Value::Bool(b) => Some(BigInt::from(*b as i64)),
        Value::BigInt(b) => Some((**b).clone()),
        _ => None,
    }
}

/// An int or float operand as f64 (OverflowError for huge ints).
fn as_float(vm: &Vm, v: &Value) -> Option<PyResult<f64>> {
    match v {
        Value::Float(f) => Some(Ok(*f)),
        Value::Int(n) => Some(Ok(*n as f64)),
        Value::Bool(b) => Some(Ok(*b as i64 as f64)),
        Value::BigInt(b) => Some(
            b.to_f64()
                .filter(|f| f.is_finite())
                .ok_or_else(|| vm.overflow_error("int too large to convert to float")),
        ),
        _ => None,
    }
}

fn is_int(v: &Value) -> bool {
    matches!(v, Value::Int(_) | Value::Bool(_) | Value::BigInt(_))
}

/// Python's float `%`: the result takes the sign of the divisor.
pub fn float_mod(a: f64, b: f64) -> f64 {
    let m = a % b;
    if m != 0.0 {
        if (b < 0.0) != (m < 0.0) { m + b } else { m }
    } else {
        0.0f64.copysign(b)
    }
}

/// Python's float `//` (`float_floor_div` in `Objects/floatobject.c`).
pub fn float_floordiv(a: f64, b: f64) -> f64 {
    let m = a % b;
    let mut div = (a - m) / b;
    if m != 0.0 && ((b < 0.0) != (m < 0.0)) {
        div -= 1.0;
    }
    if div != 0.0 {
        let floor = div.floor();
        if div - floor > 0.5 { floor + 1.0 } else { floor }
    } else {
        0.0f64.copysign(a / b)
    }
}

fn int_binop(vm: &Vm, op: BinaryOperator, a: &Value, b: &Value) -> PyResult<Value> {
    use BinaryOperator::*;
    if let (Some(x), Some(y)) = (small(a), small(b)) {
        let r = match op {
            Add => x.checked_add(y),
            Subtract => x.checked_sub(y),
            Multiply => x.checked_mul(y),
            FloorDivide | Remainder => {
                if y == 0 {
                    let msg = if op == FloorDivide {
                        "integer division or modulo by zero"
                    } else {
                        "integer modulo by zero"
                    };
                    return Err(vm.zero_division(msg));
                }
                if x == i64::MIN && y == -1 {
                    None
                } else if op == FloorDivide {
                    Some(Integer::div_floor(&x, &y))
                } else {
                    Some(Integer::mod_floor(&x, &y))
                }
            }
            And => Some(x & y),
            Or => Some(x | y),
            Xor => Some(x ^ y),
            Lshift => {
                if y < 0 {
                    return Err(vm.value_error("negative shift count"));
                }
                if y < 63 && (x << y) >> y == x { Some(x << y) } else { None }
            }
            Rshift => {
                if y < 0 {
                    return Err(vm.value_error("negative shift count"));
                }
                Some(x >> y.min(63))
            }
            TrueDivide => {
                if y == 0 {
                    return Err(vm.zero_division("division by zero"));
                }
                return Ok(Value::Float(if x.unsigned_abs() < (1 << 53) && y.unsigned_abs() < (1 << 53) {
                    x as f64 / y as f64
                } else {
                    big_true_div(&BigInt::from(x), &BigInt::from(y))
                }));
            }
            Power => {
                if y < 0 {
                    if x == 0 {
                        return Err(vm.zero_division("0.0 cannot be raised to a negative power"));
                    }
                    return Ok(Value::Float((x as f64).powf(y as f64)));
                }
                u32::try_from(y).ok().and_then(|e| x.checked_pow(e))
            }
            _ => unreachable!("matrix multiply is not an int operation"),
        };
        if let Some(r) = r {
            return Ok(Value::Int(r));
        }
    }
    let (Some(x), Some(y)) = (big(a), big(b)) else { unreachable!("int operands") };
    let r = match op {
        Add => x + y,
        Subtract => x - y,
        Multiply => x * y,
        FloorDivide | Remainder => {
            if y.is_zero() {
                let msg = if op == FloorDivide { "integer division or modulo by zero" } else { "integer modulo by zero" };
                return Err(vm.zero_division(msg));
            }
            if op == FloorDivide { x.div_floor(&y) } else { x.mod_floor(&y) }
        }
        And => x & y,
        Or => x | y,
        Xor => x ^ y,
        Lshift | Rshift => {
            if y.is_negative() {
                return Err(vm.value_error("negative shift count"));
            }
            let Some(shift) = y.to_usize().filter(|s| *s < (1 << 32)) else {
                if op == Rshift {
                    return Ok(Value::Int(if x.is_negative() { -1 } else { 0 }));
                }
                return Err(vm.overflow_error("too many digits in integer"));
            };
            if op == Lshift { x << shift } else { x >> shift }
        }
        TrueDivide => {
            if y.is_zero() {
                return Err(vm.zero_division("division by zero"));
            }
            return Ok(Value::Float(big_true_div(&x, &y)));
        }
        Power => {
            if y.is_negative() {
                let (fx, fy) = (x.to_f64().unwrap_or(f64::INFINITY), y.to_f64().unwrap_or(f64::NEG_INFINITY));
                if x.is_zero() {
                    return Err(vm.zero_division("0.0 cannot be raised to a negative power"));
                }
                return Ok(Value::Float(fx.powf(fy)));
            }
            let Some(e) = y.to_u32() else {
                return Err(vm.overflow_error("exponent too large"));
            };
            num_traits::Pow::pow(x, e)
        }
        _ => unreachable!("matrix multiply is not an int operation"),
    };
    Ok(Value::from_bigint(r))
}

fn big_true_div(x: &BigInt, y: &BigInt) -> f64 {
    match (x.to_f64(), y.to_f64()) {
        (Some(a), Some(b)) if a.is_finite() && b.is_finite() => a / b,
        _ => {
            // Scale both down so that the quotient is representable.
            let shift = x.bits().max(y.bits()).saturating_sub(1000) as usize;
            let a = (x >> shift).to_f64().unwrap_or(f64::INFINITY);
            let b = (y >> shift).to_f64().unwrap_or(f64::INFINITY);
            a / b
        }
    }
}

#[inline]
fn small(v: &Value) -> Option<i64> {
    match v {
        Value::Int(n) => Some(*n),
        Value::Bool(b) => Some(*b as i64),
        _ => None,
    }
}

fn float_binop(vm: &Vm, op: BinaryOperator, x: f64, y: f64) -> PyResult<Value> {
    use BinaryOperator::*;
    Ok(Value::Float(match op {
        Add => x + y,
        Subtract => x - y,
        Multiply => x * y,
        TrueDivide => {
            if y == 0.0 {
                return Err(vm.zero_division("float division by zero"));
            }
            x / y
        }
        FloorDivide => {
            if y == 0.0 {
                return Err(vm.zero_division("float floor division by zero"));
            }
            float_floordiv(x, y)
        }
        Remainder => {
            if y == 0.0 {
                return Err(vm.zero_division("float modulo by zero"));
            }
            float_mod(x, y)
        }
        Power => {
            if x == 0.0 && y < 0.0 {
                return Err(vm.zero_division("0.0 cannot be raised to a negative power"));
            }
            if x < 0.0 && y.fract() != 0.0 && y.is_finite() {
                // A complex result: apy has no complex numbers.
                return Err(vm.value_error("math domain error"));
            }
            let r = x.powf(y);
            if r.is_infinite() && x.is_finite() && y.is_finite() {
                return Err(vm.new_exc(&vm.types.overflow_error, "(34, 'Numerical result out of range')"));
            }
            r
        }
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
                return int_binop(self, op.base(), a, b);
            }
            (Value::Float(x), Value::Float(y)) => return float_binop(self, op.base(), *x, *y),
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
        let ta = self.type_of(a).clone();
        let tb = self.type_of(b).clone();
        let left = if ta.builtin { None } else { lookup(&ta, &lname) };
        let right = if Rc::ptr_eq(&ta, &tb) || tb.builtin { None } else { lookup(&tb, &rname) };
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
            && !matches!(self.type_of(b).builtin, false)
        {
            return self.type_error(format!(
                "can only concatenate {seq} (not \"{}\") to {seq}",
                self.type_name(b)
            ));
        }
        if base == BinaryOperator::Multiply && (seq_name.is_some() || matches!(b, Value::Str(_) | Value::List(_) | Value::Tuple(_))) {
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
    fn builtin_inplace(&mut self, op: BinaryOperator, a: &Value, b: &Value) -> PyResult<Option<Value>> {
        match (op, a) {
            (BinaryOperator::InplaceAdd, Value::List(l)) => {
                let items = self.collect_iterable(b)?;
                l.items.borrow_mut().extend(items);
                Ok(Some(a.clone()))
            }
            (BinaryOperator::InplaceMultiply, Value::List(l)) => {
                let Some(n) = small(b) else { return Ok(None) };
                let items = l.items.borrow().clone();
                let mut out = Vec::new();
                for _ in 0..n.max(0) {
                    out.extend(items.iter().cloned());
                }
                *l.items.borrow_mut() = out;
                Ok(Some(a.clone()))
            }
            (BinaryOperator::InplaceOr | BinaryOperator::InplaceAnd | BinaryOperator::InplaceSubtract | BinaryOperator::InplaceXor, Value::Set(s)) if !s.frozen => {
                let Value::Set(_) = b else { return Ok(None) };
                let Some(result) = self.builtin_binop(op.base(), a, b)? else { return Ok(None) };
                if let Value::Set(r) = result {
                    *s.table.borrow_mut() = r.table.borrow().clone();
                }
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
    fn builtin_binop(&mut self, op: BinaryOperator, a: &Value, b: &Value) -> PyResult<Option<Value>> {
        use BinaryOperator::*;
        if is_int(a) && is_int(b) {
            return int_binop(self, op, a, b).map(Some);
        }
        if matches!(a, Value::Float(_)) || matches!(b, Value::Float(_)) {
            if let (Some(x), Some(y)) = (as_float(self, a), as_float(self, b)) {
                let r = float_binop(self, op, x?, y?)?;
                return Ok(if matches!(r, Value::NotImplemented) { None } else { Some(r) });
            }
            return Ok(None);
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
            (Multiply, Value::Str(_) | Value::List(_) | Value::Tuple(_), n) if is_int(n) => Some(self.repeat(a, n)?),
            (Multiply, n, Value::Str(_) | Value::List(_) | Value::Tuple(_)) if is_int(n) => Some(self.repeat(b, n)?),
            (Remainder, Value::Str(_), _) => Some(crate::builtins::printf_format(self, a, b)?),
            (Or | And | Subtract | Xor, Value::Set(x), Value::Set(y)) => Some(self.set_op(op, x, y)?),
            (Or, Value::Dict(x), Value::Dict(_)) => {
                let d = Rc::new(PyDict { table: std::cell::RefCell::new(x.table.borrow().clone()) });
                self.dict_update(&d, b)?;
                Some(Value::Dict(d))
            }
            _ => None,
        })
    }

    fn repeat(&mut self, seq: &Value, n: &Value) -> PyResult<Value> {
        let count = match n {
            Value::BigInt(b) if b.is_negative() => 0,
            Value::BigInt(_) => return Err(self.overflow_error("cannot fit 'int' into an index-sized integer")),
            other => small(other).unwrap_or(0).max(0) as usize,
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

    fn set_op(&mut self, op: BinaryOperator, x: &super::value::PySet, y: &super::value::PySet) -> PyResult<Value> {
        let xs: Vec<Value> = x.table.borrow().keys();
        let ys: Vec<Value> = y.table.borrow().keys();
        let ys_set = Value::set(y.table.borrow().clone(), true);
        let xs_set = Value::set(x.table.borrow().clone(), true);
        let mut out = Vec::new();
        match op {
            BinaryOperator::Or => {
                out.extend(xs);
                out.extend(ys);
            }
            BinaryOperator::And => {
                for k in xs {
                    if self.contains(&ys_set, &k)? {
                        out.push(k);
                    }
                }
            }
            BinaryOperator::Subtract => {
                for k in xs {
                    if !self.contains(&ys_set, &k)? {
                        out.push(k);
                    }
                }
            }
            _ => {
                for k in xs {
                    if !self.contains(&ys_set, &k)? {
                        out.push(k);
                    }
                }
                for k in ys {
                    if !self.contains(&xs_set, &k)? {
                        out.push(k);
                    }
                }
            }
        }
        self.new_set(out, x.frozen)
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

    pub fn set_add(&mut self, set: &super::value::PySet, key: Value) -> PyResult<()> {
        let hash = self.hash(&key)?;
        if self.table_find(&set.table, &key, hash)?.is_none() {
            set.table.borrow_mut().insert_new(hash, key, Value::None);
        }
        Ok(())
    }

    /// `-a`, `+a`, `~a`.
    pub fn unary_op(&mut self, op: &str, a: &Value) -> PyResult<Value> {
        let r = match (op, a) {
            ("-", Value::Int(n)) => Some(n.checked_neg().map_or_else(|| Value::from_bigint(-BigInt::from(*n)), Value::Int)),
            ("-", Value::Bool(b)) => Some(Value::Int(-(*b as i64))),
            ("-", Value::BigInt(n)) => Some(Value::from_bigint(-(**n).clone())),
            ("-", Value::Float(f)) => Some(Value::Float(-f)),
            ("+", Value::Int(_) | Value::BigInt(_) | Value::Float(_)) => Some(a.clone()),
            ("+", Value::Bool(b)) => Some(Value::Int(*b as i64)),
            ("~", Value::Int(n)) => Some(Value::Int(!n)),
            ("~", Value::Bool(b)) => Some(Value::Int(!(*b as i64))),
            ("~", Value::BigInt(n)) => Some(Value::from_bigint(-(**n).clone() - 1)),
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
        Err(self.type_error(format!("bad operand type for unary {op}: '{}'", self.type_name(a))))
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
        if let ObjectKind::Range(r) = &o.kind {
            return Ok(r.len() > 0);
        }
        if let ObjectKind::DictView { dict, .. } = &o.kind {
            return Ok(!dict.table.borrow().is_empty());
        }
        if o.class.builtin {
            return Ok(true);
        }
        if let Some(f) = lookup(&o.class, &self.names.bool_.clone()) {
            let r = self.call(&f, std::slice::from_ref(v), &[])?;
            return match r {
                Value::Bool(b) => Ok(b),
                other => Err(self.type_error(format!("__bool__ should return bool, returned {}", self.type_name(&other)))),
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
            other => Err(self.type_error(format!("'{}' object cannot be interpreted as an integer", self.type_name(&other)))),
        }
    }

    /// `len(v)`.
    pub fn len(&mut self, v: &Value) -> PyResult<usize> {
        Ok(match v {
            Value::Str(s) => s.char_len(),
            Value::List(l) => l.items.borrow().len(),
            Value::Tuple(t) => t.items.len(),
            Value::Dict(d) => d.table.borrow().len(),
            Value::Set(s) => s.table.borrow().len(),
            Value::Object(o) => match &o.kind {
                ObjectKind::Range(r) => r.len() as usize,
                ObjectKind::DictView { dict, .. } => dict.table.borrow().len(),
                _ => {
                    let f = if o.class.builtin { None } else { lookup(&o.class, &self.names.len.clone()) };
                    let Some(f) = f else {
                        return Err(self.type_error(format!("object of type '{}' has no len()", o.class.name)));
                    };
                    let r = self.call(&f, std::slice::from_ref(v), &[])?;
                    return self.len_result(r);
                }
            },
            _ => return Err(self.type_error(format!("object of type '{}' has no len()", self.type_name(v)))),
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

    /// `a op b` (`PyObject_RichCompare`).
    pub fn compare(&mut self, op: CompareOperator, a: &Value, b: &Value) -> PyResult<Value> {
        use CompareOperator::*;
        match (a, b) {
            (Value::Int(x), Value::Int(y)) => return Ok(Value::Bool(cmp_result(op, x.cmp(y)))),
            (Value::Float(x), Value::Float(y)) => return Ok(Value::Bool(float_cmp(op, *x, *y))),
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
        let ta = self.type_of(a).clone();
        let tb = self.type_of(b).clone();
        let try_reflected_first = !Rc::ptr_eq(&ta, &tb) && tb.is_subtype(&ta);
        let left = if ta.builtin { None } else { lookup(&ta, &name) };
        let right = if tb.builtin { None } else { lookup(&tb, &reflected) };
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

    fn builtin_compare(&mut self, op: CompareOperator, a: &Value, b: &Value) -> PyResult<Option<bool>> {
        use std::cmp::Ordering;
        if is_int(a) && is_int(b) {
            let ord = match (small(a), small(b)) {
                (Some(x), Some(y)) => x.cmp(&y),
                _ => big(a).cmp(&big(b)),
            };
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
                let xs = x.table.borrow().keys();
                let ys = y.table.borrow().keys();
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
            (Value::Type(_), Value::Type(_)) | (Value::Function(_), Value::Function(_)) if eq_only => {
                a.is(b) == (op == CompareOperator::Eq)
            }
            (Value::Object(x), Value::Object(y)) if eq_only && x.class.builtin && y.class.builtin => {
                let same = match (&x.kind, &y.kind) {
                    (ObjectKind::Range(r), ObjectKind::Range(s)) => {
                        (r.len() == 0 && s.len() == 0)
                            || (r.start == s.start && r.len() == s.len() && (r.len() == 1 || r.step == s.step))
                    }
                    (ObjectKind::BoundMethod { func: f1, this: t1 }, ObjectKind::BoundMethod { func: f2, this: t2 }) => {
                        f1.is(f2) && t1.is(t2)
                    }
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
        let entries: Vec<(Value, Value)> = x.table.borrow().iter().map(|e| (e.key.clone(), e.value.clone())).collect();
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
            Value::Int(n) => hash_i64(*n),
            Value::Bool(b) => *b as i64,
            Value::None => 0xFCA86420,
            Value::Float(f) => hash_float(*f),
            Value::BigInt(b) => hash_bigint(b),
            Value::Tuple(t) => {
                // xxHash-based tuple hash (`Objects/tupleobject.c`).
                const P1: u64 = 11400714785074694791;
                const P2: u64 = 14029467366897019727;
                const P5: u64 = 2870177450012600261;
                let mut acc: u64 = P5;
                for item in t.items.iter() {
                    let h = self.nested(|vm| vm.hash(item))? as u64;
                    acc = acc.wrapping_add(h.wrapping_mul(P2));
                    acc = acc.rotate_left(31);
                    acc = acc.wrapping_mul(P1);
                }
                acc = acc.wrapping_add((t.items.len() as u64) ^ (P5 ^ 3527539));
                if acc == u64::MAX { 1546275796 } else { acc as i64 }
            }
            Value::Set(s) if s.frozen => {
                let mut h: u64 = 0;
                for e in s.table.borrow().iter() {
                    h ^= (e.hash as u64 ^ 89869747).wrapping_mul(3644798167);
                }
                h as i64
            }
            Value::List(_) | Value::Dict(_) | Value::Set(_) => {
                return Err(self.type_error(format!("unhashable type: '{}'", self.type_name(v))));
            }
            Value::Object(o) if !o.class.builtin => {
                match lookup(&o.class, &self.names.hash.clone()) {
                    Some(Value::None) => {
                        return Err(self.type_error(format!("unhashable type: '{}'", o.class.name)));
                    }
                    Some(f @ Value::Function(_)) => {
                        let r = self.call(&f, std::slice::from_ref(v), &[])?;
                        match r {
                            Value::Int(n) => hash_i64(n),
                            Value::Bool(b) => b as i64,
                            Value::BigInt(b) => hash_bigint(&b),
                            _ => return Err(self.type_error("__hash__ method should return an integer")),
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

    /// Finds `key` in a dict or set table: the entry index.
    pub fn table_find(&mut self, table: &std::cell::RefCell<super::dict::DictTable>, key: &Value, hash: i64) -> PyResult<Option<usize>> {
        let probe = table.borrow().probe(hash, |k| match simple_eq(k, key) {
            Some(true) => KeyEq::Equal,
            Some(false) => KeyEq::Different,
            None => {
                if k.is(key) {
                    KeyEq::Equal
                } else {
                    KeyEq::Unknown
                }
            }
        });
        match probe {
            Probe::Found(i) => Ok(Some(i)),
            Probe::Missing => Ok(None),
            Probe::NeedsEq(candidates) => {
                for i in candidates {
                    let stored = table.borrow().entry(i).map(|e| e.key.clone());
                    if let Some(stored) = stored
                        && (stored.is(key) || self.eq(&stored, key)?)
                    {
                        return Ok(Some(i));
                    }
                }
                Ok(None)
            }
        }
    }

    pub fn dict_get(&mut self, d: &PyDict, key: &Value) -> PyResult<Option<Value>> {
        if let Value::Str(s) = key {
            return Ok(d.table.borrow().get_str(s).cloned());
        }
        let hash = self.hash(key)?;
        let found = self.table_find(&d.table, key, hash)?;
        Ok(found.and_then(|i| d.table.borrow().entry(i).map(|e| e.value.clone())))
    }

    pub fn dict_set(&mut self, d: &PyDict, key: Value, value: Value) -> PyResult<()> {
        if let Value::Str(s) = &key {
            d.table.borrow_mut().set_str(s.clone(), value);
            return Ok(());
        }
        let hash = self.hash(&key)?;
        match self.table_find(&d.table, &key, hash)? {
            Some(i) => d.table.borrow_mut().set_value_at(i, value),
            None => d.table.borrow_mut().insert_new(hash, key, value),
        }
        Ok(())
    }

    pub fn dict_del(&mut self, d: &PyDict, key: &Value) -> PyResult<Option<Value>> {
        let hash = self.hash(key)?;
        match self.table_find(&d.table, key, hash)? {
            Some(i) => Ok(d.table.borrow_mut().remove_at(i).map(|e| e.value)),
            None => Ok(None),
        }
    }

    /// `dict.update(other)`: a mapping or an iterable of pairs.
    pub fn dict_update(&mut self, d: &PyDict, other: &Value) -> PyResult<()> {
        if let Value::Dict(o) = other {
            let entries: Vec<(Value, Value)> = o.table.borrow().iter().map(|e| (e.key.clone(), e.value.clone())).collect();
            for (k, v) in entries {
                self.dict_set(d, k, v)?;
            }
            return Ok(());
        }
        let keys_name = self.intern("keys");
        if !matches!(other, Value::List(_) | Value::Tuple(_)) && self.get_attr_opt(other, &keys_name)?.is_some() {
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
            let (k, v) = (it.next().unwrap_or(Value::None), it.next().unwrap_or(Value::None));
            self.dict_set(d, k, v)?;
        }
        Ok(())
    }

    /// `item in container`.
    pub fn contains(&mut self, container: &Value, item: &Value) -> PyResult<bool> {
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
            Value::Set(s) => {
                let hash = self.hash(item)?;
                Ok(self.table_find(&s.table, item, hash)?.is_some())
            }
            Value::Object(o) => {
                match &o.kind {
                    ObjectKind::Range(r) => {
                        if let Value::Int(n) = item {
                            let n = *n;
                            let inside = if r.step > 0 { n >= r.start && n < r.stop } else { n <= r.start && n > r.stop };
                            return Ok(inside && (n - r.start) % r.step == 0);
                        }
                    }
                    ObjectKind::DictView { dict, kind } => match kind {
                        super::object::DictViewKind::Keys => return Ok(self.dict_get(dict, item)?.is_some()),
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
                        return Err(self.type_error(format!("argument of type '{}' is not iterable", o.class.name)));
                    }
                };
                while let Some(x) = self.next(&iter)? {
                    if x.is(item) || self.eq(&x, item)? {
                        return Ok(true);
                    }
                }
                Ok(false)
            }
            _ => Err(self.type_error(format!("argument of type '{}' is not iterable", self.type_name(container)))),
        }
    }

    /// An index operand as i64 (`__index__`).
    pub fn index_value(&mut self, v: &Value) -> PyResult<Option<i64>> {
        Ok(match v {
            Value::Int(n) => Some(*n),
            Value::Bool(b) => Some(*b as i64),
            Value::BigInt(b) => Some(if b.is_negative() { i64::MIN } else { i64::MAX }),
            Value::Object(o) if !o.class.builtin => match lookup(&o.class, &self.names.index.clone()) {
                Some(f) => {
                    let r = self.call(&f, std::slice::from_ref(v), &[])?;
                    self.index_value(&r)?
                }
                None => None,
            },
            _ => None,
        })
    }

    /// An int argument (`'str' object cannot be interpreted as an integer`).
    pub fn expect_index(&mut self, v: &Value) -> PyResult<i64> {
        match self.index_value(v)? {
            Some(n) => Ok(n),
            None => Err(self.type_error(format!("'{}' object cannot be interpreted as an integer", self.type_name(v)))),
        }
    }

    /// `container[key]`.
    pub fn get_item(&mut self, container: &Value, key: &Value) -> PyResult<Value> {
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
                    return Err(self.type_error(format!("{what} indices must be integers or slices, not {}", self.type_name(key))));
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
                            text.chars().nth(j as usize).map(String::from).unwrap_or_default()
                        };
                        Ok(Value::str(c))
                    }
                    _ => self.get_item(container, &Value::Int(i)),
                }
            }
            Value::Object(o) => {
                if let ObjectKind::Range(r) = &o.kind {
                    let Some(i) = self.index_value(key)? else {
                        return Err(self.type_error(format!("range indices must be integers or slices, not {}", self.type_name(key))));
                    };
                    let n = r.len();
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
            _ => Err(self.type_error(format!("'{}' object is not subscriptable", self.type_name(container)))),
        }
    }

    /// `container[key] = value`.
    pub fn set_item(&mut self, container: &Value, key: &Value, value: Value) -> PyResult<()> {
        match container {
            Value::List(l) => {
                if let Value::Object(s) = key
                    && let ObjectKind::Slice { start, stop, step } = &s.kind
                {
                    let (start, stop, step) = (start.clone(), stop.clone(), step.clone());
                    return self.set_list_slice(l, &start, &stop, &step, Some(value));
                }
                let Some(i) = self.index_value(key)? else {
                    return Err(self.type_error(format!("list indices must be integers or slices, not {}", self.type_name(key))));
                };
                let mut items = l.items.borrow_mut();
                let n = items.len() as i64;
                let j = if i < 0 { i + n } else { i };
                if j < 0 || j >= n {
                    drop(items);
                    return Err(self.index_error("list assignment index out of range"));
                }
                let old = std::mem::replace(&mut items[j as usize], value);
                drop(items);
                drop(old);
                Ok(())
            }
            Value::Dict(d) => self.dict_set(d, key.clone(), value),
            Value::Object(o) if !o.class.builtin => match lookup(&o.class, &self.names.setitem.clone()) {
                Some(f) => self.call(&f, &[container.clone(), key.clone(), value], &[]).map(drop),
                None => Err(self.type_error(format!("'{}' object does not support item assignment", o.class.name))),
            },
            _ => Err(self.type_error(format!("'{}' object does not support item assignment", self.type_name(container)))),
        }
    }

    /// `del container[key]`.
    pub fn del_item(&mut self, container: &Value, key: &Value) -> PyResult<()> {
        match container {
            Value::List(l) => {
                if let Value::Object(s) = key
                    && let ObjectKind::Slice { start, stop, step } = &s.kind
                {
                    let (start, stop, step) = (start.clone(), stop.clone(), step.clone());
                    return self.set_list_slice(l, &start, &stop, &step, None);
                }
                let Some(i) = self.index_value(key)? else {
                    return Err(self.type_error(format!("list indices must be integers or slices, not {}", self.type_name(key))));
                };
                let mut items = l.items.borrow_mut();
                let n = items.len() as i64;
                let j = if i < 0 { i + n } else { i };
                if j < 0 || j >= n {
                    drop(items);
                    return Err(self.index_error("list assignment index out of range"));
                }
                let old = items.remove(j as usize);
                drop(items);
                drop(old);
                Ok(())
            }
            Value::Dict(d) => match self.dict_del(d, key)? {
                Some(_) => Ok(()),
                None => Err(self.key_error(key.clone())),
            },
            Value::Object(o) if !o.class.builtin => match lookup(&o.class, &self.names.delitem.clone()) {
                Some(f) => self.call(&f, &[container.clone(), key.clone()], &[]).map(drop),
                None => Err(self.type_error(format!("'{}' object does not support item deletion", o.class.name))),
            },
            _ => Err(self.type_error(format!("'{}' object doesn't support item deletion", self.type_name(container)))),
        }
    }

    /// Resolves slice bounds against a length (`PySlice_GetIndicesEx`): start, stop, step and
    /// the number of items.
    pub fn slice_indices(&mut self, len: usize, start: &Value, stop: &Value, step: &Value) -> PyResult<(i64, i64, i64, usize)> {
        let len = len as i64;
        let step = if step.is_none() {
            1
        } else {
            match self.index_value(step)? {
                Some(0) => return Err(self.value_error("slice step cannot be zero")),
                Some(s) => s,
                None => return Err(self.type_error("slice indices must be integers or None or have an __index__ method")),
            }
        };
        let bound = |vm: &mut Vm, v: &Value, default: i64| -> PyResult<i64> {
            if v.is_none() {
                return Ok(default);
            }
            let Some(mut i) = vm.index_value(v)? else {
                return Err(vm.type_error("slice indices must be integers or None or have an __index__ method"));
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
            if stop > start { ((stop - start - 1) / step + 1) as usize } else { 0 }
        } else if start > stop {
            ((start - stop - 1) / (-step) + 1) as usize
        } else {
            0
        };
        Ok((start, stop, step, count))
    }

    /// `container[start:stop:step]`.
    pub fn get_slice(&mut self, container: &Value, start: &Value, stop: &Value, step: &Value) -> PyResult<Value> {
        let pick = |items: &[Value], s: i64, st: i64, n: usize| -> Vec<Value> {
            (0..n).map(|k| items[(s + k as i64 * st) as usize].clone()).collect()
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
                Ok(Value::str((0..n).map(|k| chars[(s + k as i64 * st) as usize]).collect::<String>()))
            }
            Value::Object(o) if matches!(o.kind, ObjectKind::Range(_)) => {
                let ObjectKind::Range(r) = &o.kind else { unreachable!() };
                let (s, _, st, n) = self.slice_indices(r.len() as usize, start, stop, step)?;
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
        Value::object(super::object::Object::new(self.types.slice.clone(), ObjectKind::Slice { start, stop, step }))
    }

    pub fn new_range(&self, start: i64, stop: i64, step: i64) -> Value {
        Value::object(super::object::Object::new(
            self.types.range.clone(),
            ObjectKind::Range(super::object::Range { start, stop, step }),
        ))
    }

    /// `l[a:b:c] = value` (value None: `del l[a:b:c]`).
    pub fn set_list_slice(&mut self, l: &super::value::PyList, start: &Value, stop: &Value, step: &Value, value: Option<Value>) -> PyResult<()> {
        let len = l.items.borrow().len();
        let (s, e, st, n) = self.slice_indices(len, start, stop, step)?;
        let new_items = match &value {
            Some(v) => Some(self.collect_iterable(v)?),
            None => None,
        };
        if st == 1 {
            let e = e.max(s);
            let mut items = l.items.borrow_mut();
            let removed: Vec<Value> = items.splice(s as usize..e as usize, new_items.unwrap_or_default()).collect();
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
                let mut indices: Vec<usize> = (0..n).map(|k| (s + k as i64 * st) as usize).collect();
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
    pub fn special_method(&self, v: &Value, name: &PyStr) -> Option<Value> {
        lookup(self.type_of(v), name)
    }

    pub fn is_subclass(&self, a: &Rc<PyType>, b: &Rc<PyType>) -> bool {
        a.is_subtype(b)
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

fn float_cmp(op: CompareOperator, x: f64, y: f64) -> bool {
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
        return Some(if x > 0.0 { std::cmp::Ordering::Greater } else { std::cmp::Ordering::Less });
    }
    let n = big(n)?;
    let floor = x.floor();
    let fb = BigInt::from(floor as i128);
    let fb = if floor.abs() < 1e38 { fb } else { num_traits::FromPrimitive::from_f64(floor)? };
    match fb.cmp(&n) {
        std::cmp::Ordering::Equal if x > floor => Some(std::cmp::Ordering::Greater),
        other => Some(other),
    }
}

fn hash_i64(n: i64) -> i64 {
    let m = (n.unsigned_abs() % HASH_MODULUS) as i64;
    let h = if n < 0 { -m } else { m };
    if h == -1 { -2 } else { h }
}

fn hash_bigint(b: &BigInt) -> i64 {
    let m = (b.abs() % BigInt::from(HASH_MODULUS)).to_i64().unwrap_or(0);
    let h = if b.is_negative() { -m } else { m };
    if h == -1 { -2 } else { h }
}

/// `_Py_HashDouble` (NaN hashes by identity in CPython; apy uses 0).
fn hash_float(f: f64) -> i64 {
    if f.is_nan() {
        return 0;
    }
    if f.is_infinite() {
        return if f > 0.0 { 314159 } else { -314159 };
    }
    if f.fract() == 0.0 && f.abs() < 9.2e18 {
        return hash_i64(f as i64);
    }
    let (mut m, mut e) = frexp(f.abs());
    let sign: i64 = if f < 0.0 { -1 } else { 1 };
    let mut x: u64 = 0;
    while m != 0.0 {
        x = ((x << 28) & HASH_MODULUS) | (x >> (61 - 28));
        m *= 268435456.0;
        e -= 28;
        let y = m as u64;
        m -= y as f64;
        x += y;
        if x >= HASH_MODULUS {
            x -= HASH_MODULUS;
        }
    }
    let e = if e >= 0 { e % 61 } else { 61 - 1 - ((-1 - e) % 61) };
    x = ((x << e) & HASH_MODULUS) | (x >> (61 - e));
    let h = x as i64 * sign;
    if h == -1 { -2 } else { h }
}

fn frexp(x: f64) -> (f64, i32) {
    if x == 0.0 {
        return (0.0, 0);
    }
    let bits = x.to_bits();
    let exp = ((bits >> 52) & 0x7ff) as i32;
    if exp == 0 {
        let (m, e) = frexp(x * (1u64 << 54) as f64);
        return (m, e - 54);
    }
    let m = f64::from_bits((bits & !(0x7ff << 52)) | (1022 << 52));
    (m, exp - 1022)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn float_floor_division_and_modulo_follow_the_divisor_sign() {
        assert_eq!(float_mod(-7.0, 2.0), 1.0);
        assert_eq!(float_mod(7.0, -2.0), -1.0);
        assert_eq!(float_floordiv(-7.0, 2.0), -4.0);
        assert_eq!(float_floordiv(7.5, 2.0), 3.0);
    }

    #[test]
    fn numeric_hashes_agree_across_int_and_float() {
        assert_eq!(hash_float(3.0), hash_i64(3));
        assert_eq!(hash_i64(-1), -2);
        assert_eq!(hash_float(0.5), 1 << 60);
    }
}
