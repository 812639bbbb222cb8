//! Arithmetic operators on values: binary and unary arithmetic with dunder dispatch
//! (`__add__`, reflected `__radd__`, in-place `__iadd__`, `NotImplemented`), truthiness and
//! `len`. In: operand values; out: the result value or the TypeError CPython raises. Fast
//! paths for unboxed ints and floats come first. Mirrors `binary_op1`/`PyNumber_*`
//! (`Objects/abstract.c`), `PyObject_IsTrue` (`Objects/object.c`) and `PyObject_Size`.
//! Comparisons are in `compare`, subscripts and the dict/set tables in `containers`.

use super::set_ops;
use std::rc::Rc;

use num_traits::Signed;

use crate::compile::bytecode::BinaryOperator;

use crate::common::int_ops::{self, Int, IntOrFloat};
use crate::common::op_error::{ErrorKind, OpError};
use crate::common::sizes::{repeat_items, repeat_text, text_with_capacity};

use super::args::OrRaise;
use super::complex::complex_of;
use super::long_work::{division_steps, linear_steps, product_steps, words};
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

/// [`to_int`], or the int an instance of an int subclass (an IntEnum member) extends.
pub fn int_or_subclass(v: &Value) -> Option<Int> {
    to_int(v).or_else(|| match v {
        Value::Object(o) => o.builtin_base().and_then(to_int),
        _ => None,
    })
}

pub fn from_int(n: Int) -> Value {
    match n {
        Int::Small(n) => Value::Int(n),
        Int::Big(b) => Value::BigInt(Rc::new(b)),
    }
}

/// An int or float operand as f64 (OverflowError for huge ints).
pub(super) fn as_float(v: &Value) -> Option<Result<f64, OpError>> {
    match v {
        Value::Float(f) => Some(Ok(*f)),
        Value::Int(n) => Some(Ok(*n as f64)),
        Value::Bool(b) => Some(Ok(*b as i64 as f64)),
        Value::BigInt(b) => Some(Int::Big((**b).clone()).to_f64()),
        _ => None,
    }
}

pub(super) fn is_int(v: &Value) -> bool {
    matches!(v, Value::Int(_) | Value::Bool(_) | Value::BigInt(_))
}

/// The steps `a op b` on two ints costs ([`Vm::long_work`]), charged before it runs, so
/// that a big-int operation the limits cannot interrupt stops before it starts, or runs
/// where they can still end the wait (`3**10**8`): products and quotients counted as
/// schoolbook arithmetic does, a power as the squarings that make its result.
fn int_work(op: BinaryOperator, x: &Int, y: &Int) -> u64 {
    use BinaryOperator::*;
    let (wx, wy) = (words(x.bit_length()), words(y.bit_length()));
    match op {
        Multiply | FloorDivide | Remainder => division_steps(wx, wy),
        Power => match y.as_i64() {
            Some(e) if e > 0 => product_steps(x.bit_length() as f64 * e as f64 / 64.0),
            _ => 0,
        },
        Lshift => linear_steps(y.as_i64().map_or(0, |n| n.max(0) / 64) as f64 + wx),
        _ => linear_steps(wx + wy),
    }
}

/// `x op y` for two ints (`Objects/longobject.c`, through `builtins::int_ops`), without
/// `Value`s (which stay on the interpreter's thread), so that a worker can compute it;
/// None for an operator ints do not have.
fn int_arith(op: BinaryOperator, x: &Int, y: &Int) -> Result<Option<IntOrFloat>, OpError> {
    use BinaryOperator::*;
    let int = IntOrFloat::Int;
    Ok(Some(match op {
        Add => int(int_ops::add(x, y)),
        Subtract => int(int_ops::sub(x, y)),
        Multiply => int(int_ops::product(x, y)?),
        FloorDivide => int(int_ops::floor_div(x, y)?),
        Remainder => int(int_ops::modulo(x, y)?),
        TrueDivide => IntOrFloat::Float(int_ops::true_div(x, y)?),
        Power => int_ops::pow(x, y)?,
        Lshift => int(int_ops::lshift(x, y)?),
        Rshift => int(int_ops::rshift(x, y)?),
        And => int(int_ops::bit_and(x, y)),
        Or => int(int_ops::bit_or(x, y)),
        Xor => int(int_ops::bit_xor(x, y)),
        _ => return Ok(None),
    }))
}

/// `x op y` for floats (`Objects/floatobject.c`, through `builtins::int_ops`);
/// `NotImplemented` for an operator floats do not have, and for a power that is a complex
/// (`Vm::complex_binop`'s).
fn float_binop(op: BinaryOperator, x: f64, y: f64) -> Result<Value, OpError> {
    use BinaryOperator::*;
    Ok(Value::Float(match op {
        Power if int_ops::float_pow_is_complex(x, y) => return Ok(Value::NotImplemented),
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

/// The built-in value an instance of a subclass of a built-in type extends (whatever its
/// class overrides); None for anything else.
pub fn builtin_value(v: &Value) -> Option<Value> {
    match v {
        Value::Object(o) => o.builtin_base().cloned(),
        _ => None,
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

    /// [`Vm::base_value`] when that value is an int or a float: what the numeric dunders
    /// the built-in types implement inline (`__neg__`, `__abs__`, …) act on.
    pub fn numeric_base(&self, v: &Value, dunder: &Rc<PyStr>) -> Option<Value> {
        self.base_value(v, dunder).filter(|b| {
            matches!(
                b,
                Value::Int(_) | Value::Bool(_) | Value::BigInt(_) | Value::Float(_)
            )
        })
    }

    /// Does the class of `v` (or a base) define `dunder` as a Python function?
    fn defines_in_python(&self, v: &Value, dunder: &Rc<PyStr>) -> bool {
        matches!(lookup(self.type_of(v), dunder), Some(Value::Function(_)))
    }

    /// `a op b` for two ints, as [`Vm::long_work`] with its cost ([`int_work`]);
    /// `NotImplemented` for an operator ints do not have.
    fn int_binop(&mut self, op: BinaryOperator, a: &Value, b: &Value) -> PyResult<Value> {
        use BinaryOperator::{Lshift, Power};
        let (Some(x), Some(y)) = (to_int(a), to_int(b)) else {
            return Err(self.type_error("int operation on a non-int"));
        };
        // Only these make a big result from two machine ints.
        let result = match (&x, &y, op) {
            (Int::Small(_), Int::Small(_), op) if !matches!(op, Power | Lshift) => {
                int_arith(op, &x, &y)
            }
            _ => self.long_work(int_work(op, &x, &y), move || int_arith(op, &x, &y))?,
        };
        Ok(match result.map_err(|e| self.op_error(e))? {
            Some(IntOrFloat::Int(n)) => from_int(n),
            Some(IntOrFloat::Float(f)) => Value::Float(f),
            None => Value::NotImplemented,
        })
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
        // `PyErr_NoMemory()` raises a MemoryError without arguments.
        if e.kind == ErrorKind::MemoryError && e.message.is_empty() {
            return self.new_exc_args(ty, vec![]);
        }
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
                return self.int_binop(op.base(), a, b);
            }
            (Value::Float(x), Value::Float(y)) => {
                let r = float_binop(op.base(), *x, *y).map_err(|e| self.op_error(e))?;
                if !matches!(r, Value::NotImplemented) {
                    return Ok(r);
                }
            }
            _ => {}
        }
        self.binary_op_general(op, a, b, (a, b))
    }

    /// `a op b` past the fast paths: built-in operations, then the operands' dunders.
    /// `shown` are the operands an error names: `a` and `b` themselves, or, when those are
    /// the built-in values that instances of subclasses extend, the instances.
    fn binary_op_general(
        &mut self,
        op: BinaryOperator,
        a: &Value,
        b: &Value,
        shown: (&Value, &Value),
    ) -> PyResult<Value> {
        if op.is_inplace() {
            if let Some(r) = self.builtin_inplace(op, a, b)? {
                return Ok(r);
            }
            let name = self.intern(inplace_name(op));
            // (A built-in type's own in-place wrapper is `builtin_inplace` above.)
            let ta = self.type_of(a);
            if !ta.builtin
                && let Some(f) = lookup(ta, &name)
            {
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
        // Instances of subclasses of built-in types act as the values they extend, unless
        // either side's class defines the operator itself (`Counter.__add__`): then the
        // protocol below calls that method with the operands unchanged.
        if (base_a.is_some() || base_b.is_some())
            && !self.defines_in_python(a, &lname)
            && !self.defines_in_python(b, &rname)
        {
            let a_value = base_a.unwrap_or_else(|| a.clone());
            let b_value = base_b.unwrap_or_else(|| b.clone());
            return self.binary_op_general(base, &a_value, &b_value, shown);
        }
        if let Some(r) = self.dunder_binop(a, b, &lname, &rname)? {
            return Ok(r);
        }
        // Both classes' own methods declined (`super().__add__(x)` in a subclass of int
        // answers NotImplemented for a float): a built-in type's operation on the values,
        // as the built-in side's own (reflected) method would do it.
        let (inner_a, inner_b) = (builtin_value(a), builtin_value(b));
        if inner_a.is_some() || inner_b.is_some() {
            let a_value = inner_a.unwrap_or_else(|| a.clone());
            let b_value = inner_b.unwrap_or_else(|| b.clone());
            if let Some(r) = self.builtin_binop(base, &a_value, &b_value)? {
                return Ok(r);
            }
        }
        Err(self.binop_type_error(op, shown.0, shown.1))
    }

    /// The operator protocol of two operands by their dunders `lname` and reflected
    /// `rname` (`__add__`, `__radd__`): the right operand's first when its class is a proper
    /// subclass of the left's, each result `NotImplemented` passing on to the other; `None`
    /// when neither gives an answer. Built-in classes' operations are not asked here.
    pub fn dunder_binop(
        &mut self,
        a: &Value,
        b: &Value,
        lname: &Rc<PyStr>,
        rname: &Rc<PyStr>,
    ) -> PyResult<Option<Value>> {
        let ta = self.type_of(a).clone();
        let tb = self.type_of(b).clone();
        let left = if ta.builtin { None } else { lookup(&ta, lname) };
        let right = if Rc::ptr_eq(&ta, &tb) || tb.builtin {
            None
        } else {
            lookup(&tb, rname)
        };
        if let Some(r) = &right
            && tb.is_subtype(&ta)
        {
            let v = self.call(r, &[b.clone(), a.clone()], &[])?;
            if !matches!(v, Value::NotImplemented) {
                return Ok(Some(v));
            }
        } else if let Some(l) = &left {
            let v = self.call(l, &[a.clone(), b.clone()], &[])?;
            if !matches!(v, Value::NotImplemented) {
                return Ok(Some(v));
            }
        }
        if let Some(r) = &right
            && !tb.is_subtype(&ta)
        {
            let v = self.call(r, &[b.clone(), a.clone()], &[])?;
            if !matches!(v, Value::NotImplemented) {
                return Ok(Some(v));
            }
        } else if let Some(l) = &left
            && tb.is_subtype(&ta)
            && right.is_some()
        {
            let v = self.call(l, &[a.clone(), b.clone()], &[])?;
            if !matches!(v, Value::NotImplemented) {
                return Ok(Some(v));
            }
        }
        Ok(None)
    }

    /// `str`, `list` or `tuple` when `v` is one (or of a subclass): the sequences whose
    /// concatenation and repetition CPython words its TypeErrors for.
    fn sequence_kind(&self, v: &Value) -> Option<&'static str> {
        let types = &self.types;
        let ty = self.type_of(v);
        [
            (&types.str, "str"),
            (&types.list, "list"),
            (&types.tuple, "tuple"),
        ]
        .into_iter()
        .find(|(base, _)| ty.is_subtype(base))
        .map(|(_, name)| name)
    }

    fn binop_type_error(&self, op: BinaryOperator, a: &Value, b: &Value) -> super::Exc {
        let base = op.base();
        let seq_name = self.sequence_kind(a);
        if base == BinaryOperator::Add
            && let Some(seq) = seq_name
        {
            return self.type_error(format!(
                "can only concatenate {seq} (not \"{}\") to {seq}",
                self.object_type_name(b)
            ));
        }
        if base == BinaryOperator::Multiply
            && (seq_name.is_some() || self.sequence_kind(b).is_some())
        {
            let other = if seq_name.is_some() { b } else { a };
            return self.type_error(format!(
                "can't multiply sequence by non-int of type '{}'",
                self.object_type_name(other)
            ));
        }
        // (CPython names the operator as `PyNumber_Power` does.)
        let symbol = match op {
            BinaryOperator::Power => "** or pow()",
            _ => op.symbol(),
        };
        self.type_error(format!(
            "unsupported operand type(s) for {symbol}: '{}' and '{}'",
            self.object_type_name(a),
            self.object_type_name(b)
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
                let (items, hint) = self.collect_for_list(b)?;
                l.extend(items, hint).or_raise(self)?;
                Ok(Some(a.clone()))
            }
            (BinaryOperator::InplaceMultiply, Value::List(l)) => {
                let Some(Int::Small(n)) = to_int(b) else {
                    return Ok(None);
                };
                let out = repeat_items(&l.items.borrow(), n.max(0) as usize).or_raise(self)?;
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
            let r = self.int_binop(op, a, b)?;
            return Ok((!matches!(r, Value::NotImplemented)).then_some(r));
        }
        if let Some(r) = self.complex_binop(op, a, b)? {
            return Ok(Some(r));
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
        if op == Or && (super::generics::joins_union(a) || super::generics::joins_union(b)) {
            let union = super::generics::union_of(self, a, b)?;
            return Ok((!matches!(union, Value::NotImplemented)).then_some(union));
        }
        Ok(match (op, a, b) {
            (Add, Value::Str(x), Value::Str(y)) => {
                let bytes = x.as_str().len() + y.as_str().len();
                let chars = || x.char_len() + y.char_len();
                let mut s = text_with_capacity(bytes, chars).or_raise(self)?;
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
        let len = match seq {
            Value::Str(s) => s.as_str().len(),
            Value::List(l) => l.items.borrow().len(),
            Value::Tuple(t) => t.items.len(),
            _ => 0,
        };
        // The size is the program's choice: counted against the limits before anything is
        // allocated (and checked by `repeat_text`/`repeat_items`).
        self.charge(len.saturating_mul(count) as u64 / 8)?;
        Ok(match seq {
            Value::Str(s) => {
                let text = repeat_text(s.as_str(), s.char_len(), count).or_raise(self)?;
                Value::str(text)
            }
            Value::List(l) => {
                let items = repeat_items(&l.items.borrow(), count).or_raise(self)?;
                Value::list(items)
            }
            Value::Tuple(t) => Value::tuple(repeat_items(&t.items, count).or_raise(self)?),
            _ => unreachable!("repeat on a sequence"),
        })
    }

    fn set_op(&mut self, op: BinaryOperator, x: &PySet, y: &PySet) -> PyResult<Value> {
        set_ops::binary(self, op, x, y)
    }

    /// `-a`, `+a`, `~a`.
    pub fn unary_op(&mut self, op: &str, a: &Value) -> PyResult<Value> {
        let r = match (op, a) {
            ("-", Value::Int(_) | Value::Bool(_) | Value::BigInt(_)) => {
                to_int(a).map(|n| from_int(int_ops::neg(&n)))
            }
            ("-", Value::Float(f)) => Some(Value::Float(-f)),
            ("-", v) if let Some(z) = complex_of(v) => Some(self.new_complex(-z)),
            ("+", Value::Int(_) | Value::BigInt(_) | Value::Float(_)) => Some(a.clone()),
            ("+", v) if complex_of(v).is_some() => Some(a.clone()),
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
        // A subclass of int, bool or float (an IntEnum member too) that does not override
        // the operator: int's or float's, on its value (so `-member` is a plain int).
        if let Some(base) = self.numeric_base(a, &name) {
            return self.unary_op(op, &base);
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
            // A class is true unless its metaclass (one of the program's) says otherwise.
            Value::Type(t) => match &t.meta {
                Some(meta) if !meta.builtin => return self.truthy_by_dunders(v, &meta.clone()),
                _ => true,
            },
            Value::Function(_) | Value::Ellipsis | Value::NotImplemented => true,
            Value::Object(o) => return self.object_truthy(v, o),
        })
    }

    fn object_truthy(&mut self, v: &Value, o: &Rc<super::object::Object>) -> PyResult<bool> {
        if let Some(base) = self.base_value(v, &self.names.bool_.clone()) {
            return self.truthy(&base);
        }
        if let ObjectKind::Range(r) = &o.kind {
            return Ok(!r.is_empty());
        }
        if let ObjectKind::Complex(z) = &o.kind {
            return Ok(z.re != 0.0 || z.im != 0.0);
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
        self.truthy_by_dunders(v, &o.class)
    }

    /// `bool(v)` for an instance of `class`, a class of the program's: its `__bool__`,
    /// else its `__len__`, else true.
    fn truthy_by_dunders(
        &mut self,
        v: &Value,
        class: &Rc<super::object::PyType>,
    ) -> PyResult<bool> {
        if let Some(f) = lookup(class, &self.names.bool_.clone()) {
            let r = self.call(&f, std::slice::from_ref(v), &[])?;
            return match r {
                Value::Bool(b) => Ok(b),
                other => Err(self.type_error(format!(
                    "__bool__ should return bool, returned {}",
                    self.type_name(&other)
                ))),
            };
        }
        if let Some(f) = lookup(class, &self.names.len.clone()) {
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
            Value::BigInt(_) => {
                Err(self.overflow_error("cannot fit 'int' into an index-sized integer"))
            }
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
                ObjectKind::Range(r) => match r.length().as_i64() {
                    Some(n) => n as usize,
                    None => {
                        let message = "Python int too large to convert to C ssize_t";
                        return Err(self.overflow_error(message));
                    }
                },
                ObjectKind::DictView { dict, .. } => dict.table.borrow().len(),
                _ => {
                    // A native container's length, read in place (bytes, a deque).
                    if let Some(len) = o.class.native_len.get().and_then(|len| len(self, v)) {
                        return Ok(len);
                    }
                    let f = if o.class.builtin {
                        None
                    } else {
                        lookup(&o.class, &self.names.len.clone())
                    };
                    let Some(f) = f else {
                        return Err(self.type_error(format!(
                            "object of type '{}' has no len()",
                            self.tp_name(&o.class)
                        )));
                    };
                    let r = self.call(&f, std::slice::from_ref(v), &[])?;
                    return self.len_result(r);
                }
            },
            _ => {
                if let Value::Type(t) = v
                    && let Some(f) = self.meta_method(t, &self.names.len.clone())
                {
                    let r = self.call(&f, std::slice::from_ref(v), &[])?;
                    return self.len_result(r);
                }
                return Err(self.type_error(format!(
                    "object of type '{}' has no len()",
                    self.object_type_name(v)
                )));
            }
        })
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

    /// `getattr(obj, name, None)`: `obj.name`, or `None` when looking it up raises
    /// AttributeError, whoever raised it (a descriptor, a `__getattr__`); other errors
    /// propagate.
    pub fn get_attr_or_none(&mut self, obj: &Value, name: &Rc<PyStr>) -> PyResult<Option<Value>> {
        match self.get_attr(obj, name) {
            Ok(v) => Ok(Some(v)),
            Err(e) if self.exc_matches(&e, &self.types.attribute_error) => Ok(None),
            Err(e) => Err(e),
        }
    }
}
