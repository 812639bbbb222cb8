//! The accurate sums and norms of the `math` module, step for step as
//! `Modules/mathmodule.c` computes them so every last bit agrees: `fsum` (Shewchuk's exact
//! partials with CPython's half-even fix-up), `sumprod` (an int path, a triple-length float
//! path, then the VM's `*` and `+`), and `hypot`/`dist` (`vector_norm`: scaling, exact
//! squares, compensated sums and a differential correction of the square root).

use crate::common::int_ops::Int;
use crate::compile::bytecode::BinaryOperator;
use crate::vm::args::{Signature, check_arity, check_kwargs};
use crate::vm::object::KwArgs;
use crate::vm::value::Value;
use crate::vm::{PyResult, Vm};

use super::module_args::as_double;

/// `fsum(seq)`.
pub fn math_fsum(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    Signature::one("math", "fsum").check(vm, args, kw)?;
    let it = vm.get_iter(&args[0])?;
    let mut partials: Vec<f64> = Vec::new();
    let (mut special_sum, mut inf_sum) = (0.0f64, 0.0f64);
    while let Some(item) = vm.next(&it)? {
        let mut x = as_double(vm, &item)?;
        let xsave = x;
        let mut i = 0;
        for j in 0..partials.len() {
            let mut y = partials[j];
            if x.abs() < y.abs() {
                std::mem::swap(&mut x, &mut y);
            }
            let hi = x + y;
            let yr = hi - x;
            let lo = y - yr;
            if lo != 0.0 {
                partials[i] = lo;
                i += 1;
            }
            x = hi;
        }
        partials.truncate(i);
        if x != 0.0 {
            if !x.is_finite() {
                // a nonfinite x could arise either as a result of intermediate overflow,
                // or as a result of a nan or inf in the summands
                if xsave.is_finite() {
                    return Err(vm.overflow_error("intermediate overflow in fsum"));
                }
                if xsave.is_infinite() {
                    inf_sum += xsave;
                }
                special_sum += xsave;
                partials.clear();
            } else {
                partials.push(x);
            }
        }
    }
    if special_sum != 0.0 {
        if inf_sum.is_nan() {
            return Err(vm.value_error("-inf + inf in fsum"));
        }
        return Ok(Value::Float(special_sum));
    }
    let mut hi = 0.0;
    let mut n = partials.len();
    if n > 0 {
        n -= 1;
        hi = partials[n];
        let mut lo = 0.0;
        // sum_exact(ps, hi) from the top, stop when the sum becomes inexact.
        while n > 0 {
            let x = hi;
            n -= 1;
            let y = partials[n];
            hi = x + y;
            let yr = hi - x;
            lo = y - yr;
            if lo != 0.0 {
                break;
            }
        }
        // Make half-even rounding work across multiple partials.
        if n > 0 && ((lo < 0.0 && partials[n - 1] < 0.0) || (lo > 0.0 && partials[n - 1] > 0.0)) {
            let y = lo * 2.0;
            let x = hi + y;
            let yr = x - hi;
            if y == yr {
                hi = x;
            }
        }
    }
    Ok(Value::Float(hi))
}

/// An unevaluated sum `hi + lo` (`DoubleLength`).
#[derive(Clone, Copy)]
struct Double {
    hi: f64,
    lo: f64,
}

/// `dl_fast_sum` (|a| >= |b|).
fn fast_sum(a: f64, b: f64) -> Double {
    let x = a + b;
    let z = x - a;
    Double { hi: x, lo: b - z }
}

/// `dl_sum`: the error-free sum.
fn sum2(a: f64, b: f64) -> Double {
    let x = a + b;
    let z = x - a;
    Double {
        hi: x,
        lo: (a - (x - z)) + (b - z),
    }
}

/// `dl_mul`: the error-free product (with a fused multiply-add).
fn mul2(x: f64, y: f64) -> Double {
    let z = x * y;
    Double {
        hi: z,
        lo: x.mul_add(y, -z),
    }
}

/// `TripleLength`: `hi + lo + tiny`.
#[derive(Clone, Copy, Default)]
struct Triple {
    hi: f64,
    lo: f64,
    tiny: f64,
}

/// `tl_fma`: `total + x * y` (Algorithm 5.10 with SumKVert for K=3).
fn triple_fma(x: f64, y: f64, total: Triple) -> Triple {
    let pr = mul2(x, y);
    let sm = sum2(total.hi, pr.hi);
    let r1 = sum2(total.lo, pr.lo);
    let r2 = sum2(r1.hi, sm.lo);
    Triple {
        hi: sm.hi,
        lo: r2.hi,
        tiny: total.tiny + r1.lo + r2.lo,
    }
}

/// `tl_to_d`.
fn triple_to_double(total: Triple) -> f64 {
    let last = sum2(total.lo, total.hi);
    total.tiny + last.lo + last.hi
}

/// A float operand of the float path: floats, and ints paired with a float.
fn float_pair(p: &Value, q: &Value) -> Option<(f64, f64)> {
    let int_as_float = |v: &Value| match v {
        Value::Int(n) => Int::Small(*n).to_f64().ok(),
        Value::Bool(b) => Some(f64::from(u8::from(*b))),
        Value::BigInt(b) => Int::Big((**b).clone()).to_f64().ok(),
        _ => None,
    };
    match (p, q) {
        (Value::Float(x), Value::Float(y)) => Some((*x, *y)),
        (Value::Float(x), other) => int_as_float(other).map(|y| (*x, y)),
        (other, Value::Float(y)) => int_as_float(other).map(|x| (x, *y)),
        _ => None,
    }
}

/// `sumprod(p, q)`: exact ints while they fit, then triple-length floats while the pairs
/// are floats (or an int with a float) and the total stays finite, then `total + p * q`.
pub fn math_sumprod(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    check_kwargs(vm, "math.sumprod", kw, &[])?;
    check_arity(vm, "sumprod", args, 2, 2)?;
    let p_it = vm.get_iter(&args[0])?;
    let q_it = vm.get_iter(&args[1])?;
    let mut total = Value::Int(0);
    let (mut int_path, mut int_total): (bool, Option<i64>) = (true, None);
    let (mut flt_path, mut flt_total): (bool, Option<Triple>) = (true, None);
    loop {
        let p = vm.next(&p_it)?;
        let q = vm.next(&q_it)?;
        if p.is_some() != q.is_some() {
            return Err(vm.value_error("Inputs are not the same length"));
        }
        let pair = p.zip(q);
        if int_path {
            if let Some((Value::Int(a), Value::Int(b))) = &pair
                && let Some(sum) = a
                    .checked_mul(*b)
                    .and_then(|prod| prod.checked_add(int_total.unwrap_or(0)))
            {
                int_total = Some(sum);
                continue;
            }
            int_path = false;
            if let Some(t) = int_total.take() {
                total = vm.binary_op(BinaryOperator::Add, &total, &Value::Int(t))?;
            }
        }
        if flt_path {
            if let Some((x, y)) = pair.as_ref().and_then(|(p, q)| float_pair(p, q)) {
                let next = triple_fma(x, y, flt_total.unwrap_or_default());
                if next.hi.is_finite() {
                    flt_total = Some(next);
                    continue;
                }
            }
            flt_path = false;
            if let Some(t) = flt_total.take() {
                let term = Value::Float(triple_to_double(t));
                total = vm.binary_op(BinaryOperator::Add, &total, &term)?;
            }
        }
        let Some((p, q)) = pair else {
            return Ok(total);
        };
        let term = vm.binary_op(BinaryOperator::Multiply, &p, &q)?;
        total = vm.binary_op(BinaryOperator::Add, &total, &term)?;
    }
}

/// `vector_norm`: sqrt(sum(x ** 2 for x in vec)) for non-negative finite `vec`, `max` its
/// largest element.
fn vector_norm(vec: &mut [f64], max: f64, found_nan: bool) -> f64 {
    if max.is_infinite() {
        return max;
    }
    if found_nan {
        return f64::NAN;
    }
    if max == 0.0 || vec.len() <= 1 {
        return max;
    }
    let (_, max_e) = super::math::frexp(max);
    if max_e < -1023 {
        // When max_e < -1023, ldexp(1.0, -max_e) would overflow.
        for x in vec.iter_mut() {
            *x /= f64::MIN_POSITIVE;
        }
        return f64::MIN_POSITIVE * vector_norm(vec, max / f64::MIN_POSITIVE, found_nan);
    }
    let scale = super::math::ldexp(1.0, -i64::from(max_e));
    let (mut csum, mut frac1, mut frac2) = (1.0f64, 0.0f64, 0.0f64);
    for &x in vec.iter() {
        let x = x * scale; // lossless scaling
        let pr = mul2(x, x); // lossless squaring
        let sm = fast_sum(csum, pr.hi); // lossless addition
        csum = sm.hi;
        frac1 += pr.lo; // lossy addition
        frac2 += sm.lo; // lossy addition
    }
    let mut h = (csum - 1.0 + (frac1 + frac2)).sqrt();
    let pr = mul2(-h, h);
    let sm = fast_sum(csum, pr.hi);
    csum = sm.hi;
    frac1 += pr.lo;
    frac2 += sm.lo;
    let x = csum - 1.0 + (frac1 + frac2);
    h += x / (2.0 * h); // differential correction
    h / scale
}

/// The norm of absolute values, with the largest and whether one is a NaN.
fn norm_of(mut values: Vec<f64>) -> f64 {
    let mut max = 0.0f64;
    let mut found_nan = false;
    for x in &values {
        found_nan |= x.is_nan();
        if *x > max {
            max = *x;
        }
    }
    vector_norm(&mut values, max, found_nan)
}

/// `hypot(*coordinates)`.
pub fn math_hypot(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    check_kwargs(vm, "math.hypot", kw, &[])?;
    let mut coordinates = Vec::with_capacity(args.len());
    for v in args {
        coordinates.push(as_double(vm, v)?.abs());
    }
    Ok(Value::Float(norm_of(coordinates)))
}

/// `dist(p, q)`: `hypot` of the differences.
pub fn math_dist(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    check_kwargs(vm, "math.dist", kw, &[])?;
    check_arity(vm, "dist", args, 2, 2)?;
    let p = vm.collect_iterable(&args[0])?;
    let q = vm.collect_iterable(&args[1])?;
    if p.len() != q.len() {
        return Err(vm.value_error("both points must have the same number of dimensions"));
    }
    let mut diffs = Vec::with_capacity(p.len());
    for (px, qx) in p.iter().zip(&q) {
        let (px, qx) = (as_double(vm, px)?, as_double(vm, qx)?);
        diffs.push((px - qx).abs());
    }
    Ok(Value::Float(norm_of(diffs)))
}
