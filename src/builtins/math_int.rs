//! The integer functions of the `math` module (`Modules/mathmodule.c`): `gcd`, `lcm`,
//! `factorial`, `comb`, `perm`, `isqrt` on ints of any size, and `prod` over any values
//! through the VM's `*`. Arguments go through `__index__` as CPython's do, and the errors
//! are CPython's ("factorial() not defined for negative values", …).

use num_bigint::BigInt;
use num_integer::Integer;
use num_traits::{One, Signed, ToPrimitive, Zero};

use crate::common::int_ops::Int;
use crate::compile::bytecode::BinaryOperator;
use crate::vm::args::{Signature, check_arity, check_kwargs};
use crate::vm::long_work::{division_steps, product_steps, words};
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
            result = gcd(result, n);
        }
    }
    Ok(int_value(result))
}

/// The greatest common divisor of `a` and `b`, never negative. num-integer's binary gcd
/// takes time in proportion to the bigger number's size times the number of steps, which
/// is slow when one number is far bigger than the other (`gcd(10**20000 + 1, 7)`): Euclid's
/// remainder steps shrink the bigger one first, and two numbers of one machine word finish
/// in machine arithmetic.
fn gcd(a: BigInt, b: BigInt) -> BigInt {
    let (mut a, mut b) = (a.abs(), b.abs());
    loop {
        if a < b {
            std::mem::swap(&mut a, &mut b);
        }
        if b.is_zero() {
            return a;
        }
        if let (Some(x), Some(y)) = (a.to_u64(), b.to_u64()) {
            return BigInt::from(x.gcd(&y));
        }
        if a.bits() - b.bits() <= 64 {
            return a.gcd(&b);
        }
        a %= &b;
    }
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
                (&result / gcd(result.clone(), n.clone()) * &n).abs()
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

fn factorial(vm: &mut Vm, n: &Int) -> PyResult<Value> {
    match *n {
        _ if n.is_negative() => Err(vm.value_error("factorial() not defined for negative values")),
        Int::Big(_) => {
            Err(vm.overflow_error("factorial() argument should not exceed 9223372036854775807"))
        }
        Int::Small(n) => {
            let n = n as u64;
            let steps = product_tree_steps(n, n);
            Ok(int_value(
                vm.long_work(steps, move || range_product(1, n + 1))?,
            ))
        }
    }
}

/// The cost in steps of multiplying out `count` factors of up to `largest`, in a balanced
/// tree (about three times the last, biggest product).
fn product_tree_steps(count: u64, largest: u64) -> u64 {
    let bits = count as f64 * (largest.max(2) as f64).log2();
    product_steps(bits / 64.0).saturating_mul(3)
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

/// `comb(n, k)`: n! / (k! * (n - k)!), by [`perm_comb`] over min(k, n - k).
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
    // The products, then a division of about their size by C(k, k / 2) at each level.
    let largest = n.bits().max(1);
    let numerator = words(k.saturating_mul(largest));
    let steps = perm_comb_steps(&n, k)
        .saturating_add(division_steps(numerator, words(k)).saturating_mul(2));
    Ok(int_value(
        vm.long_work(steps, move || perm_comb(&n, k, true))?,
    ))
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
    let steps = perm_comb_steps(&n, k);
    Ok(int_value(
        vm.long_work(steps, move || perm_comb(&n, k, false))?,
    ))
}

/// The cost in steps of the products [`perm_comb`] makes for `n` and `k`.
fn perm_comb_steps(n: &BigInt, k: u64) -> u64 {
    let bits = k as f64 * n.bits().max(1) as f64;
    product_steps(bits / 64.0).saturating_mul(3)
}

/// `perm(n, k)`, or `comb(n, k)` when `comb`, as CPython computes them (`perm_comb` in
/// `Modules/mathmodule.c`): with j = k / 2, P(n, k) = P(n, j) * P(n - j, k - j) and
/// C(n, k) = C(n, j) * C(n - j, k - j) / C(k, j), so the big products are balanced and
/// every division is exact (a running product would make k ever longer multiplications).
fn perm_comb(n: &BigInt, k: u64, comb: bool) -> BigInt {
    if k <= 16 {
        let mut result = BigInt::one();
        for i in 0..k {
            result *= n - i;
            if comb {
                // Exact: the product of i + 1 consecutive ints is a multiple of (i + 1)!.
                result /= i + 1;
            }
        }
        return result;
    }
    let j = k / 2;
    let product = perm_comb(n, j, comb) * perm_comb(&(n - j), k - j, comb);
    match comb {
        true => product / perm_comb(&BigInt::from(k), j, true),
        false => product,
    }
}

/// `isqrt(n)`: the floor of the exact square root.
pub fn math_isqrt(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    Signature::one("math", "isqrt").check(vm, args, kw)?;
    let n = big(vm, &args[0])?;
    if n.is_negative() {
        return Err(vm.value_error("isqrt() argument must be nonnegative"));
    }
    // Newton's method: a long division (of twice the root's size by it) per bit of
    // precision doubled.
    let root_words = words(n.bits() / 2);
    let steps =
        division_steps(root_words * 2.0, root_words).saturating_mul(n.bits().max(2).ilog2().into());
    Ok(int_value(vm.long_work(steps, move || n.sqrt())?))
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

#[cfg(test)]
mod tests {
    use super::*;

    /// P(n, k) and C(n, k) the slow way: a running product, a running exact quotient.
    fn running(n: u64, k: u64) -> (BigInt, BigInt) {
        let (mut perm, mut comb) = (BigInt::one(), BigInt::one());
        for i in 0..k {
            perm *= n - i;
            comb = comb * (n - i) / (i + 1);
        }
        (perm, comb)
    }

    #[test]
    fn divide_and_conquer_agrees_with_the_running_product() {
        for n in [0, 1, 16, 17, 33, 64, 100, 257, 1000] {
            for k in (0..=n).step_by(7).chain([n / 2, n]) {
                let (perm, comb) = running(n, k);
                let big = BigInt::from(n);
                assert_eq!(perm_comb(&big, k, false), perm, "P({n}, {k})");
                assert_eq!(perm_comb(&big, k, true), comb, "C({n}, {k})");
            }
        }
    }
}
