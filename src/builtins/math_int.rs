//! The integer functions of the `math` module (`Modules/mathmodule.c`): `gcd`, `lcm`,
//! `factorial`, `comb`, `perm`, `isqrt` on ints of any size, and `prod` over any values
//! through the VM's `*`. Arguments go through `__index__` as CPython's do, and the errors
//! are CPython's ("factorial() not defined for negative values", …).

use num_bigint::BigInt;
use num_integer::Integer;
use num_traits::{One, Signed, Zero};

use crate::common::int_ops::Int;
use crate::compile::bytecode::BinaryOperator;
use crate::vm::args::{Signature, check_arity, check_kwargs};
use crate::vm::object::KwArgs;
use crate::vm::ops::from_int;
use crate::vm::value::Value;
use crate::vm::{PyResult, Vm};

use super::module_args::index_int;

fn big(vm: &mut Vm, v: &Value) -> PyResult<BigInt> {
    Ok(index_int(vm, v)?.to_bigint())
}

fn int_value(n: BigInt) -> Value {
    from_int(Int::from(n))
}

/// `gcd(*integers)`.
pub fn math_gcd(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    check_kwargs(vm, "math.gcd", kw, &[])?;
    let mut result = BigInt::zero();
    for v in args {
        let n = big(vm, v)?;
        if !result.is_one() {
            result = result.gcd(&n);
        }
    }
    Ok(int_value(result))
}

/// `lcm(*integers)`: `abs(a // gcd(a, b) * b)`, 0 once any argument is 0.
pub fn math_lcm(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    check_kwargs(vm, "math.lcm", kw, &[])?;
    let mut result = BigInt::one();
    for (i, v) in args.iter().enumerate() {
        let n = big(vm, v)?;
        if i == 0 {
            result = n.abs();
        } else if !result.is_zero() {
            result = if n.is_zero() {
                BigInt::zero()
            } else {
                (&result / result.gcd(&n) * &n).abs()
            };
        }
    }
    Ok(int_value(result))
}

/// The product of `lo..hi`, split in halves so that the big multiplications are balanced.
fn range_product(lo: u64, hi: u64) -> BigInt {
    if hi - lo <= 16 {
        return (lo..hi).fold(BigInt::one(), |acc, i| acc * i);
    }
    let mid = lo + (hi - lo) / 2;
    range_product(lo, mid) * range_product(mid, hi)
}

/// `factorial(n)`.
pub fn math_factorial(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    Signature::one("math", "factorial").check(vm, args, kw)?;
    let n = index_int(vm, &args[0])?;
    factorial(vm, &n)
}

fn factorial(vm: &Vm, n: &Int) -> PyResult<Value> {
    match n {
        _ if n.is_negative() => Err(vm.value_error("factorial() not defined for negative values")),
        Int::Big(_) => {
            Err(vm.overflow_error("factorial() argument should not exceed 9223372036854775807"))
        }
        Int::Small(n) => Ok(int_value(range_product(1, *n as u64 + 1))),
    }
}

/// `comb(n, k)` and `perm(n, k)`: both non-negative, 0 when `k > n`.
fn check_nk(vm: &mut Vm, n: &Value, k: &Value) -> PyResult<(BigInt, BigInt)> {
    let (n, k) = (big(vm, n)?, big(vm, k)?);
    if n.is_negative() {
        return Err(vm.value_error("n must be a non-negative integer"));
    }
    if k.is_negative() {
        return Err(vm.value_error("k must be a non-negative integer"));
    }
    Ok((n, k))
}

/// `comb(n, k)`: n! / (k! * (n - k)!), computed as a running product over min(k, n - k).
pub fn math_comb(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    check_kwargs(vm, "math.comb", kw, &[])?;
    check_arity(vm, "comb", args, 2, 2)?;
    let (n, k) = check_nk(vm, &args[0], &args[1])?;
    if k > n {
        return Ok(Value::Int(0));
    }
    let k = k.clone().min(&n - &k);
    let Some(k) = num_traits::ToPrimitive::to_u64(&k) else {
        return Err(vm.overflow_error("min(n - k, k) must not exceed 9223372036854775807"));
    };
    let mut result = BigInt::one();
    for i in 0..k {
        result = result * (&n - i) / (i + 1);
    }
    Ok(int_value(result))
}

/// `perm(n, k=None)`: n! / (n - k)!; without k, `factorial(n)`.
pub fn math_perm(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    check_kwargs(vm, "math.perm", kw, &[])?;
    check_arity(vm, "perm", args, 1, 2)?;
    let k = match args.get(1) {
        None | Some(Value::None) => {
            let n = index_int(vm, &args[0])?;
            return factorial(vm, &n);
        }
        Some(k) => k,
    };
    let (n, k) = check_nk(vm, &args[0], k)?;
    if k > n {
        return Ok(Value::Int(0));
    }
    let Some(k) = num_traits::ToPrimitive::to_u64(&k) else {
        return Err(vm.overflow_error("k must not exceed 9223372036854775807"));
    };
    let mut result = BigInt::one();
    for i in 0..k {
        result *= &n - i;
    }
    Ok(int_value(result))
}

/// `isqrt(n)`: the floor of the exact square root.
pub fn math_isqrt(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    Signature::one("math", "isqrt").check(vm, args, kw)?;
    let n = big(vm, &args[0])?;
    if n.is_negative() {
        return Err(vm.value_error("isqrt() argument must be nonnegative"));
    }
    Ok(int_value(n.sqrt()))
}

/// `prod(iterable, /, *, start=1)`: `start * x1 * x2 * …` with the VM's `*`.
pub fn math_prod(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    const SIG: Signature = Signature::keywords("math", "prod", &["iterable", "start"], 1, 1);
    let slots = super::module_args::bind_kwonly(vm, &SIG, 1, args, kw)?;
    let mut result = slots[1].clone().unwrap_or(Value::Int(1));
    let it = vm.get_iter(&args[0])?;
    while let Some(x) = vm.next(&it)? {
        result = vm.binary_op(BinaryOperator::Multiply, &result, &x)?;
    }
    Ok(result)
}
