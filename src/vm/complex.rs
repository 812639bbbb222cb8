//! Complex values in the VM: made by [`Vm::new_complex`] (an object of kind
//! [`ObjectKind::Complex`], so `Value` stays two words), read as operands the way
//! `Objects/complexobject.c`'s `TO_COMPLEX` reads them (an int or float is a complex with a
//! zero imaginary part), and the operators of `complex`: `+ - * / **` (`complex_add` …
//! `complex_pow`), `==` (`complex_richcompare`), `-z`, `+z` and the truth test. The numbers'
//! own algorithms are `common::complex_ops`; the constructor, methods and `cmath` are in
//! `builtins`.

use std::cmp::Ordering;

use crate::common::complex_ops::Complex;
use crate::common::int_ops;
use crate::compile::bytecode::{BinaryOperator, CompareOperator};

use super::object::{Object, ObjectKind};
use super::ops::{as_float, is_int};
use super::value::Value;
use super::{PyResult, Vm};

/// The number `v` holds when it is a `complex` (not an instance of a subclass, whose
/// operators reach the complex it extends through `Vm::base_value`).
pub fn complex_of(v: &Value) -> Option<Complex> {
    match v {
        Value::Object(o) => match o.kind {
            ObjectKind::Complex(z) => Some(z),
            _ => None,
        },
        _ => None,
    }
}

impl Vm {
    /// A new `complex`.
    pub fn new_complex(&self, z: Complex) -> Value {
        Value::object(Object::new(
            self.types.complex.clone(),
            ObjectKind::Complex(z),
        ))
    }

    /// `a op b` when it is complex arithmetic: a complex and an int, float or complex, or a
    /// negative float to a fractional power (which `float_pow` hands to complex's power).
    /// None when it is not, or for an operator complex does not have (`//`, `%`: the
    /// caller's TypeError).
    pub(super) fn complex_binop(
        &mut self,
        op: BinaryOperator,
        a: &Value,
        b: &Value,
    ) -> PyResult<Option<Value>> {
        use BinaryOperator::*;
        let (x, y) = match (complex_of(a), complex_of(b)) {
            (None, None) if op != Power || is_int(a) && is_int(b) => return Ok(None),
            (None, None) => match (as_float(a), as_float(b)) {
                (Some(Ok(x)), Some(Ok(y))) if int_ops::float_pow_is_complex(x, y) => {
                    self.ready_methods(&self.types.complex.clone());
                    (Complex::new(x, 0.0), Complex::new(y, 0.0))
                }
                _ => return Ok(None),
            },
            (Some(x), Some(y)) => (x, y),
            (Some(x), None) => match as_float(b) {
                Some(y) => (x, Complex::new(y.map_err(|e| self.op_error(e))?, 0.0)),
                None => return Ok(None),
            },
            (None, Some(y)) => match as_float(a) {
                Some(x) => (Complex::new(x.map_err(|e| self.op_error(e))?, 0.0), y),
                None => return Ok(None),
            },
        };
        let z = match op {
            Add => x + y,
            Subtract => x - y,
            Multiply => x * y,
            TrueDivide => x.true_div(y).map_err(|e| self.op_error(e))?,
            Power => x.pow(y).map_err(|e| self.op_error(e))?,
            _ => return Ok(None),
        };
        Ok(Some(self.new_complex(z)))
    }

    /// `a == b` or `a != b` when either is a complex and the other an int, float or complex
    /// (`complex_richcompare`: an int against the real part exactly, when the imaginary part
    /// is zero); None otherwise, and for the orderings, which complex does not have.
    pub(super) fn complex_eq(&self, op: CompareOperator, a: &Value, b: &Value) -> Option<bool> {
        let (z, other) = match (complex_of(a), complex_of(b)) {
            (Some(z), _) => (z, b),
            (None, Some(z)) => (z, a),
            (None, None) => return None,
        };
        let equal = match (other, complex_of(other)) {
            (_, Some(w)) => z == w,
            (Value::Float(f), _) => z.re == *f && z.im == 0.0,
            (n, _) if is_int(n) => {
                z.im == 0.0 && super::compare::float_int_cmp(z.re, n) == Some(Ordering::Equal)
            }
            _ => return None,
        };
        match op {
            CompareOperator::Eq => Some(equal),
            CompareOperator::Ne => Some(!equal),
            _ => None,
        }
    }
}
