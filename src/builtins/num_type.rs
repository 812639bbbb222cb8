//! `int` (and so `bool`) and `float`: their constructors, and their methods and attributes
//! in one table each ([`INT_METHODS`]/[`INT_GETSETS`], [`FLOAT_METHODS`]/[`FLOAT_GETSETS`]):
//! `bit_length`, `bit_count`, `as_integer_ratio`, `is_integer`, `hex`, `conjugate`, `real`,
//! `imag`, `numerator`, `denominator`. Mirrors `Objects/longobject.c`, `Objects/boolobject.c`
//! and `Objects/floatobject.c`. Arithmetic, comparisons and hashing are the VM's operators
//! (`vm/ops.rs`) over `common::int_ops`; `repr`: `vm/repr.rs`; `format()`: `vm/format.rs`.
//! Installs itself with [`init`].

use num_traits::ToPrimitive;

use crate::builtins::bytes_type::payload;
use crate::common::chars::bytes_repr;
use crate::common::int_ops::{self, Int};
use crate::common::op_error::OpResult;
use crate::vm::args::{OrRaise, Signature, check_arity, check_kwargs, kwarg, split_cls};
use crate::vm::call::new_builtin_value;
use crate::vm::object::{Getter, KwArgs, NativeFn};
use crate::vm::ops::{builtin_value, from_int, int_or_subclass};
use crate::vm::value::Value;
use crate::vm::{PyResult, Vm};

/// The methods of `int`, by name.
const INT_METHODS: &[(&str, NativeFn)] = &[
    ("bit_length", |vm, args, _| {
        int_method(
            vm,
            args,
            "bit_length",
            |n| Value::Int(n.bit_length() as i64),
        )
    }),
    ("bit_count", |vm, args, _| {
        int_method(vm, args, "bit_count", |n| {
            let magnitude = int_ops::abs(n).to_radix(2, false);
            Value::Int(magnitude.bytes().filter(|b| *b == b'1').count() as i64)
        })
    }),
    ("conjugate", |vm, args, _| {
        int_method(vm, args, "conjugate", |n| from_int(n.clone()))
    }),
    ("is_integer", |vm, args, _| {
        int_method(vm, args, "is_integer", |_| Value::Bool(true))
    }),
    ("as_integer_ratio", |vm, args, _| {
        int_method(vm, args, "as_integer_ratio", |n| {
            Value::tuple(vec![from_int(n.clone()), Value::Int(1)])
        })
    }),
];

/// The attributes of `int`, by name.
const INT_GETSETS: &[(&str, Getter)] = &[
    ("real", |vm, v| Ok(from_int(this_int(vm, Some(v))?))),
    ("numerator", |vm, v| Ok(from_int(this_int(vm, Some(v))?))),
    ("imag", |_, _| Ok(Value::Int(0))),
    ("denominator", |_, _| Ok(Value::Int(1))),
];

/// The methods of `float`, by name.
const FLOAT_METHODS: &[(&str, NativeFn)] = &[
    ("is_integer", |vm, args, _| {
        let x = this_float(vm, args.first())?;
        Signature::no_args("float", "is_integer").check(vm, &args[1..], &[])?;
        Ok(Value::Bool(x.is_finite() && x.fract() == 0.0))
    }),
    ("as_integer_ratio", |vm, args, _| {
        let x = this_float(vm, args.first())?;
        Signature::no_args("float", "as_integer_ratio").check(vm, &args[1..], &[])?;
        let (numerator, denominator) = int_ops::float_as_integer_ratio(x).or_raise(vm)?;
        Ok(Value::tuple(vec![
            from_int(numerator),
            from_int(denominator),
        ]))
    }),
    ("hex", |vm, args, _| {
        let x = this_float(vm, args.first())?;
        Signature::no_args("float", "hex").check(vm, &args[1..], &[])?;
        Ok(Value::str(int_ops::float_hex(x)))
    }),
    ("conjugate", |vm, args, _| {
        let x = this_float(vm, args.first())?;
        Signature::no_args("float", "conjugate").check(vm, &args[1..], &[])?;
        Ok(Value::Float(x))
    }),
];

/// The attributes of `float`, by name.
const FLOAT_GETSETS: &[(&str, Getter)] = &[
    ("real", |vm, v| Ok(Value::Float(this_float(vm, Some(v))?))),
    ("imag", |_, _| Ok(Value::Float(0.0))),
];

/// Installs the constructors, methods and attributes of `int`, `bool` and `float`.
pub fn init(vm: &mut Vm) {
    let (int, bool_, float) = (
        vm.types.int.clone(),
        vm.types.bool.clone(),
        vm.types.float.clone(),
    );
    vm.add_static(&int, "__new__", int_new);
    vm.add_static(&float, "__new__", float_new);
    vm.add_static(&bool_, "__new__", bool_new);
    vm.add_methods(&int, INT_METHODS);
    for (name, get) in INT_GETSETS {
        vm.add_getset(&int, name, *get, None);
    }
    vm.add_methods(&float, FLOAT_METHODS);
    for (name, get) in FLOAT_GETSETS {
        vm.add_getset(&float, name, *get, None);
    }
    vm.add_class_method(&float, "fromhex", float_fromhex);
    super::int_bytes::init(vm);
}

/// The class method `float.fromhex(string, /)`: a subclass gets `cls(x)`.
fn float_fromhex(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let Some((cls, rest)) = args.split_first() else {
        return Err(vm.type_error("descriptor 'fromhex' needs a class"));
    };
    Signature::one("float", "fromhex").check(vm, rest, kw)?;
    let Value::Str(text) = &rest[0] else {
        return Err(vm.type_error("bad argument type for built-in operation"));
    };
    let x = Value::Float(int_ops::float_from_hex(text.as_str()).or_raise(vm)?);
    match cls {
        Value::Type(t) if std::rc::Rc::ptr_eq(t, &vm.types.float) => Ok(x),
        _ => vm.call(cls, &[x], &[]),
    }
}

/// The argument of a numeric conversion, seen through a subclass instance
/// (`float(Celsius(21.5))` converts the float it extends).
fn numeric_arg(v: &Value) -> Value {
    match v {
        Value::Object(o) => o.builtin_base().cloned().unwrap_or_else(|| v.clone()),
        _ => v.clone(),
    }
}

/// The text of a bytes or bytearray given to `int()` or `float()`, which CPython reads as
/// ASCII: None (an invalid literal) for any other byte, and for the separators `\x1c`–`\x1f`
/// that str counts as whitespace but bytes do not.
fn bytes_literal(data: &[u8]) -> Option<&str> {
    let usable = |b: &u8| b.is_ascii() && !(0x1c..=0x1f).contains(b);
    data.iter()
        .all(usable)
        .then(|| std::str::from_utf8(data).ok())?
}

/// Parses a bytes-like number with `parse`, naming the bytes' repr when it is no literal.
fn parse_bytes<T>(
    vm: &Vm,
    data: &[u8],
    parse: impl FnOnce(&str) -> OpResult<T>,
    invalid: &str,
) -> PyResult<T> {
    let no_literal = || vm.value_error(format!("{invalid}: {}", bytes_repr(data)));
    let text = bytes_literal(data).ok_or_else(no_literal)?;
    parse(text).map_err(|e| {
        if e.message.starts_with(invalid) {
            no_literal()
        } else {
            vm.op_error(e)
        }
    })
}

fn int_new(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    new_builtin_value(vm, &vm.types.int.clone(), args, kw, int_value)
}

/// What `int(*args, **kw)` makes.
fn int_value(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    check_kwargs(vm, "int", kw, &["base"])?;
    check_arity(vm, "int", args, 0, 2)?;
    let base = args.get(1).cloned().or_else(|| kwarg(kw, "base"));
    let Some(x) = args.first().map(numeric_arg) else {
        return Ok(Value::Int(0));
    };
    let x = &x;
    if let Some(data) = payload(x) {
        let b = match base {
            Some(base) => vm.expect_index(&base)?,
            None => 10,
        };
        let data = data.data().clone();
        let invalid = format!("invalid literal for int() with base {b}");
        return parse_bytes(vm, &data, |t| int_ops::parse_int(t, b as u32), &invalid).map(from_int);
    }
    if let Some(base) = base {
        let b = vm.expect_index(&base)?;
        let Value::Str(s) = x else {
            return Err(vm.type_error("int() can't convert non-string with explicit base"));
        };
        return int_ops::parse_int(s.as_str(), b as u32)
            .map(from_int)
            .map_err(|e| vm.op_error(e));
    }
    match x {
        Value::Int(_) | Value::BigInt(_) => Ok(x.clone()),
        Value::Bool(b) => Ok(Value::Int(*b as i64)),
        Value::Float(f) => {
            if f.is_nan() {
                return Err(vm.value_error("cannot convert float NaN to integer"));
            }
            if f.is_infinite() {
                return Err(vm.overflow_error("cannot convert float infinity to integer"));
            }
            Ok(float_to_int(f.trunc()))
        }
        Value::Str(s) => int_ops::parse_int(s.as_str(), 10)
            .map(from_int)
            .map_err(|e| vm.op_error(e)),
        other => {
            for name in ["__int__", "__index__"] {
                let key = vm.intern(name);
                if let Some(f) = vm.special_method(other, &key) {
                    return vm.call(&f, std::slice::from_ref(other), &[]);
                }
            }
            Err(vm.type_error(format!(
                "int() argument must be a string, a bytes-like object or a real number, not '{}'",
                vm.type_name(other)
            )))
        }
    }
}

fn float_new(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    new_builtin_value(vm, &vm.types.float.clone(), args, kw, float_value)
}

/// The float `float(*args)` makes.
fn float_value(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    check_kwargs(vm, "float", kw, &[])?;
    check_arity(vm, "float", args, 0, 1)?;
    let Some(x) = args.first().map(numeric_arg) else {
        return Ok(Value::Float(0.0));
    };
    let x = &x;
    if let Some(data) = payload(x) {
        let data = data.data().clone();
        let invalid = "could not convert string to float";
        return parse_bytes(vm, &data, int_ops::parse_float, invalid).map(Value::Float);
    }
    match x {
        Value::Float(_) => Ok(x.clone()),
        Value::Int(n) => Ok(Value::Float(*n as f64)),
        Value::Bool(b) => Ok(Value::Float(*b as i64 as f64)),
        Value::BigInt(b) => match b.to_f64().filter(|f| f.is_finite()) {
            Some(f) => Ok(Value::Float(f)),
            None => Err(vm.overflow_error("int too large to convert to float")),
        },
        Value::Str(s) => int_ops::parse_float(s.as_str())
            .map(Value::Float)
            .map_err(|e| vm.op_error(e)),
        other => {
            let key = vm.names.float.clone();
            if let Some(f) = vm.special_method(other, &key) {
                return vm.call(&f, std::slice::from_ref(other), &[]);
            }
            Err(vm.type_error(format!(
                "float() argument must be a string or a real number, not '{}'",
                vm.type_name(other)
            )))
        }
    }
}

fn bool_new(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let (_, args) = split_cls(vm, args)?;
    check_kwargs(vm, "bool", kw, &[])?;
    check_arity(vm, "bool", args, 0, 1)?;
    match args.first() {
        None => Ok(Value::Bool(false)),
        Some(v) => Ok(Value::Bool(vm.truthy(v)?)),
    }
}

/// An integral float as an int value.
fn float_to_int(f: f64) -> Value {
    int_ops::float_to_int(f).map_or(Value::Int(0), from_int)
}

/// The int `self` (bools are ints, and an int subclass's instance extends one), as a
/// plain int.
fn this_int(vm: &Vm, value: Option<&Value>) -> PyResult<Int> {
    value
        .and_then(int_or_subclass)
        .ok_or_else(|| vm.type_error("descriptor requires an 'int' object"))
}

/// The float `self` (or the one a float subclass's instance extends).
fn this_float(vm: &Vm, value: Option<&Value>) -> PyResult<f64> {
    let float = match value {
        Some(Value::Float(x)) => Some(*x),
        Some(v) => match builtin_value(v) {
            Some(Value::Float(x)) => Some(x),
            _ => None,
        },
        None => None,
    };
    float.ok_or_else(|| vm.type_error("descriptor requires a 'float' object"))
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
