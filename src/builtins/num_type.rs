//! The methods and attributes of `int` (and so `bool`) and `float`: `bit_length`,
//! `bit_count`, `as_integer_ratio`, `is_integer`, `hex`, `conjugate`, `real`, `imag`,
//! `numerator`, `denominator`. Arithmetic itself is the VM's operators over `int_ops`.
//! Mirrors the method tables of `Objects/longobject.c` and `Objects/floatobject.c`.
//! Installs itself with [`init`].

use crate::common::int_ops::{self, Int};
use crate::vm::args::{OrRaise, Signature};
use crate::vm::ops::{from_int, to_int};
use crate::vm::value::Value;
use crate::vm::{PyResult, Vm};

/// An integral float as an int value.
pub fn float_to_int(f: f64) -> Value {
    int_ops::float_to_int(f).map_or(Value::Int(0), from_int)
}

/// The int `self` (bools are ints), as a plain int.
fn this_int(vm: &Vm, value: Option<&Value>) -> PyResult<Int> {
    value
        .and_then(to_int)
        .ok_or_else(|| vm.type_error("descriptor requires an 'int' object"))
}

fn this_float(vm: &Vm, value: Option<&Value>) -> PyResult<f64> {
    match value {
        Some(Value::Float(x)) => Ok(*x),
        _ => Err(vm.type_error("descriptor requires a 'float' object")),
    }
}

/// A no-argument int method computing a value from the int.
fn int_method(
    vm: &mut Vm,
    args: &[Value],
    name: &'static str,
    f: fn(&Int) -> Value,
) -> PyResult<Value> {
    let n = this_int(vm, args.first())?;
    Signature::no_args("int", name).check(vm, &args[1..], &[])?;
    Ok(f(&n))
}

/// Installs the methods of `int` and `float`.
pub fn init(vm: &mut Vm) {
    let int = vm.types.int.clone();
    vm.add_method(&int, "bit_length", |vm, args, _| {
        int_method(
            vm,
            args,
            "bit_length",
            |n| Value::Int(n.bit_length() as i64),
        )
    });
    vm.add_method(&int, "bit_count", |vm, args, _| {
        int_method(vm, args, "bit_count", |n| {
            let magnitude = int_ops::abs(n).to_radix(2, false);
            Value::Int(magnitude.bytes().filter(|b| *b == b'1').count() as i64)
        })
    });
    vm.add_method(&int, "conjugate", |vm, args, _| {
        int_method(vm, args, "conjugate", |n| from_int(n.clone()))
    });
    vm.add_method(&int, "is_integer", |vm, args, _| {
        int_method(vm, args, "is_integer", |_| Value::Bool(true))
    });
    vm.add_method(&int, "as_integer_ratio", |vm, args, _| {
        int_method(vm, args, "as_integer_ratio", |n| {
            Value::tuple(vec![from_int(n.clone()), Value::Int(1)])
        })
    });
    vm.add_getset(
        &int,
        "real",
        |vm, v| Ok(from_int(this_int(vm, Some(v))?)),
        None,
    );
    vm.add_getset(
        &int,
        "numerator",
        |vm, v| Ok(from_int(this_int(vm, Some(v))?)),
        None,
    );
    vm.add_getset(&int, "imag", |_, _| Ok(Value::Int(0)), None);
    vm.add_getset(&int, "denominator", |_, _| Ok(Value::Int(1)), None);

    let float = vm.types.float.clone();
    vm.add_method(&float, "is_integer", |vm, args, _| {
        let x = this_float(vm, args.first())?;
        Signature::no_args("float", "is_integer").check(vm, &args[1..], &[])?;
        Ok(Value::Bool(x.is_finite() && x.fract() == 0.0))
    });
    vm.add_method(&float, "as_integer_ratio", |vm, args, _| {
        let x = this_float(vm, args.first())?;
        Signature::no_args("float", "as_integer_ratio").check(vm, &args[1..], &[])?;
        let (numerator, denominator) = int_ops::float_as_integer_ratio(x).or_raise(vm)?;
        Ok(Value::tuple(vec![
            from_int(numerator),
            from_int(denominator),
        ]))
    });
    vm.add_method(&float, "hex", |vm, args, _| {
        let x = this_float(vm, args.first())?;
        Signature::no_args("float", "hex").check(vm, &args[1..], &[])?;
        Ok(Value::str(int_ops::float_hex(x)))
    });
    vm.add_method(&float, "conjugate", |vm, args, _| {
        let x = this_float(vm, args.first())?;
        Signature::no_args("float", "conjugate").check(vm, &args[1..], &[])?;
        Ok(Value::Float(x))
    });
    vm.add_getset(
        &float,
        "real",
        |vm, v| Ok(Value::Float(this_float(vm, Some(v))?)),
        None,
    );
    vm.add_getset(&float, "imag", |_, _| Ok(Value::Float(0.0)), None);
}
