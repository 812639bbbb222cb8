//! The methods of `range`: `index` and `count`, by arithmetic for ints (and bools) and by
//! `==` over the elements for anything else, as `Objects/rangeobject.c` does.
//! Installs itself with [`init`].

use crate::vm::args::Signature;
use crate::vm::object::{ObjectKind, Range};
use crate::vm::ops::to_int;
use crate::vm::value::Value;
use crate::vm::{PyResult, Vm};

/// `(start, stop, step)` of the range `self`.
fn this(vm: &Vm, args: &[Value]) -> PyResult<(i64, i64, i64)> {
    if let Some(Value::Object(o)) = args.first()
        && let ObjectKind::Range(Range { start, stop, step }) = &o.kind
    {
        return Ok((*start, *stop, *step));
    }
    Err(vm.type_error("descriptor requires a 'range' object"))
}

/// The position of `target` in the range, if it is there.
fn position(
    vm: &mut Vm,
    (start, stop, step): (i64, i64, i64),
    target: &Value,
) -> PyResult<Option<i64>> {
    let length = Range { start, stop, step }.length();
    if let Some(n) = to_int(target) {
        let Some(n) = n.as_i64() else { return Ok(None) };
        let offset = i128::from(n) - i128::from(start);
        let step = i128::from(step);
        if offset % step != 0 {
            return Ok(None);
        }
        let index = offset / step;
        return Ok((0..i128::from(length))
            .contains(&index)
            .then_some(index as i64));
    }
    for index in 0..length {
        let item = Value::Int(start + index * step);
        if vm.eq(&item, target)? {
            return Ok(Some(index));
        }
    }
    Ok(None)
}

/// Installs the methods of `range`.
pub fn init(vm: &mut Vm) {
    let range = vm.types.range.clone();
    vm.add_method(&range, "index", |vm, args, _| {
        let bounds = this(vm, args)?;
        Signature::one("range", "index").check(vm, &args[1..], &[])?;
        match position(vm, bounds, &args[1])? {
            Some(index) => Ok(Value::Int(index)),
            None => {
                let shown = vm.repr(&args[1])?;
                Err(vm.value_error(format!("{shown} is not in range")))
            }
        }
    });
    vm.add_method(&range, "count", |vm, args, _| {
        let bounds = this(vm, args)?;
        Signature::one("range", "count").check(vm, &args[1..], &[])?;
        if to_int(&args[1]).is_some() {
            return Ok(Value::Int(i64::from(
                position(vm, bounds, &args[1])?.is_some(),
            )));
        }
        let (start, stop, step) = bounds;
        let length = Range { start, stop, step }.length();
        let mut count = 0;
        for index in 0..length {
            if vm.eq(&Value::Int(start + index * step), &args[1])? {
                count += 1;
            }
        }
        Ok(Value::Int(count))
    });
}
