//! `int.to_bytes` and the class method `int.from_bytes`: an int as so many bytes, big- or
//! little-endian, unsigned or two's complement, and back (`Objects/longobject.c`,
//! `int_to_bytes_impl` and `int_from_bytes_impl`).

use num_bigint::{BigInt, Sign};

use super::bytes_type::bytes_of;
use super::module_args::{bind_kwonly, index_isize};
use crate::common::int_ops::Int;
use crate::common::sizes::grow_for;
use crate::vm::args::{OrRaise, Signature};
use crate::vm::object::KwArgs;
use crate::vm::ops::{from_int, to_int};
use crate::vm::value::Value;
use crate::vm::{PyResult, Vm};

/// Adds the two to `int` (and so to `bool` and every subclass).
pub fn init(vm: &mut Vm) {
    let int = vm.types.int.clone();
    vm.add_method(&int, "to_bytes", to_bytes);
    vm.add_class_method(&int, "from_bytes", from_bytes);
}

/// `byteorder`: true for big-endian.
fn big_endian(vm: &Vm, byteorder: Option<&Value>) -> PyResult<bool> {
    match byteorder {
        None => Ok(true),
        Some(Value::Str(s)) if s.as_str() == "big" => Ok(true),
        Some(Value::Str(s)) if s.as_str() == "little" => Ok(false),
        Some(Value::Str(_)) => Err(vm.value_error("byteorder must be either 'little' or 'big'")),
        Some(other) => Err(vm.type_error(format!(
            "to_bytes() argument 'byteorder' must be str, not {}",
            vm.arg_type_name(other)
        ))),
    }
}

fn signed(vm: &mut Vm, v: Option<&Value>) -> PyResult<bool> {
    v.map_or(Ok(false), |v| vm.truthy(v))
}

/// `int.to_bytes(length=1, byteorder='big', *, signed=False)`.
fn to_bytes(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let n = args
        .first()
        .and_then(to_int)
        .ok_or_else(|| vm.type_error("descriptor 'to_bytes' requires an 'int' object"))?;
    const SIG: Signature =
        Signature::keywords("int", "to_bytes", &["length", "byteorder", "signed"], 0, 0);
    let bound = bind_kwonly(vm, &SIG, 2, &args[1..], kw)?;
    let length = match bound[0].as_ref() {
        Some(v) => index_isize(vm, v)?,
        None => 1,
    };
    let length = usize::try_from(length)
        .map_err(|_| vm.value_error("length argument must be non-negative"))?;
    let big = big_endian(vm, bound[1].as_ref())?;
    let signed = signed(vm, bound[2].as_ref())?;
    let n = n.to_bigint();
    if !signed && n.sign() == Sign::Minus {
        return Err(vm.overflow_error("can't convert negative int to unsigned"));
    }
    // The fewest bytes that hold it, little-endian.
    let mut bytes = match (n.sign(), signed) {
        (Sign::NoSign, _) => Vec::new(),
        (_, true) => n.to_signed_bytes_le(),
        (_, false) => n.to_bytes_le().1,
    };
    if bytes.len() > length {
        return Err(vm.overflow_error("int too big to convert"));
    }
    let more = length - bytes.len();
    grow_for(&mut bytes, more).or_raise(vm)?;
    let fill = if n.sign() == Sign::Minus { 0xff } else { 0 };
    bytes.resize(length, fill);
    if big {
        bytes.reverse();
    }
    Ok(vm.new_bytes(bytes))
}

/// `int.from_bytes(bytes, byteorder='big', *, signed=False)`, a class method: a subclass
/// gets `cls(n)`.
fn from_bytes(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let Some((cls, args)) = args.split_first() else {
        return Err(vm.type_error("from_bytes() needs a class"));
    };
    const SIG: Signature =
        Signature::keywords("int", "from_bytes", &["bytes", "byteorder", "signed"], 1, 0);
    let bound = bind_kwonly(vm, &SIG, 2, args, kw)?;
    let data = byte_values(vm, bound[0].as_ref().unwrap_or(&Value::None))?;
    let big = big_endian(vm, bound[1].as_ref())?;
    let signed = signed(vm, bound[2].as_ref())?;
    let n = match (big, signed) {
        (true, true) => BigInt::from_signed_bytes_be(&data),
        (false, true) => BigInt::from_signed_bytes_le(&data),
        (true, false) => BigInt::from_bytes_be(Sign::Plus, &data),
        (false, false) => BigInt::from_bytes_le(Sign::Plus, &data),
    };
    let n = from_int(Int::from(n));
    match cls {
        Value::Type(t) if std::rc::Rc::ptr_eq(t, &vm.types.int) => Ok(n),
        _ => vm.call(cls, &[n], &[]),
    }
}

/// The bytes `PyObject_Bytes` takes from `v`: a bytes-like object's, what `__bytes__`
/// returns, or an iterable's ints.
fn byte_values(vm: &mut Vm, v: &Value) -> PyResult<Vec<u8>> {
    if let Some(data) = bytes_of(v) {
        return Ok(data);
    }
    if let Some(data) = vm.bytes_of_object(v)? {
        return Ok(data);
    }
    let not_bytes = |vm: &Vm| {
        vm.type_error(format!(
            "cannot convert '{}' object to bytes",
            vm.type_name(v)
        ))
    };
    if matches!(v, Value::Str(_)) {
        return Err(not_bytes(vm));
    }
    let items = match vm.collect_iterable(v) {
        Ok(items) => items,
        Err(e) if vm.exc_matches(&e, &vm.types.type_error) => return Err(not_bytes(vm)),
        Err(e) => return Err(e),
    };
    items
        .iter()
        .map(|item| {
            let n = vm.expect_index(item)?;
            u8::try_from(n).map_err(|_| vm.value_error("bytes must be in range(0, 256)"))
        })
        .collect()
}
