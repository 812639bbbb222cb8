//! `range`: its constructor, its attributes ([`GETSETS`]) and its methods ([`METHODS`]):
//! `index` and `count`, by arithmetic for ints (and bools) and by `==` over the elements for
//! anything else, as `Objects/rangeobject.c` does. Operators (`in`, `[i]`, `==`), `len` and
//! iteration: the VM's protocol in `vm/ops.rs` and `vm/iter.rs`; `repr`: `vm/repr.rs`.
//! Installs itself with [`init`].

use crate::vm::args::{Signature, check_kwargs, split_cls};
use crate::vm::object::{Getter, KwArgs, NativeFn, ObjectKind, Range};
use crate::vm::ops::to_int;
use crate::vm::value::Value;
use crate::vm::{PyResult, Vm};

/// `range(stop)`, `range(start, stop[, step])`.
fn range_new(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let (_, args) = split_cls(vm, args)?;
    check_kwargs(vm, "range", kw, &[])?;
    let mut ints = Vec::with_capacity(3);
    for a in args {
        ints.push(vm.expect_index(a)?);
    }
    let (start, stop, step) = match ints.as_slice() {
        [stop] => (0, *stop, 1),
        [start, stop] => (*start, *stop, 1),
        [start, stop, step] => (*start, *stop, *step),
        [] => return Err(vm.type_error("range expected at least 1 argument, got 0")),
        _ => {
            return Err(vm.type_error(format!(
                "range expected at most 3 arguments, got {}",
                args.len()
            )));
        }
    };
    if step == 0 {
        return Err(vm.value_error("range() arg 3 must not be zero"));
    }
    Ok(vm.new_range(start, stop, step))
}

fn range_field(v: &Value, f: fn(&Range) -> i64) -> Value {
    match v {
        Value::Object(o) => match &o.kind {
            ObjectKind::Range(r) => Value::Int(f(r)),
            _ => Value::None,
        },
        _ => Value::None,
    }
}

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

/// The attributes of `range`, by name.
const GETSETS: &[(&str, Getter)] = &[
    ("start", |_, v| Ok(range_field(v, |r| r.start))),
    ("stop", |_, v| Ok(range_field(v, |r| r.stop))),
    ("step", |_, v| Ok(range_field(v, |r| r.step))),
];

/// The methods of `range`, by name.
const METHODS: &[(&str, NativeFn)] = &[("index", index), ("count", count)];

/// Installs the constructor, attributes and methods of `range`.
pub fn init(vm: &mut Vm) {
    let range = vm.types.range.clone();
    vm.add_static(&range, "__new__", range_new);
    for (name, get) in GETSETS {
        vm.add_getset(&range, name, *get, None);
    }
    for (name, f) in METHODS {
        vm.add_method(&range, name, *f);
    }
}

fn index(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    let bounds = this(vm, args)?;
    Signature::one("range", "index").check(vm, &args[1..], &[])?;
    match position(vm, bounds, &args[1])? {
        Some(index) => Ok(Value::Int(index)),
        None => {
            let shown = vm.repr(&args[1])?;
            Err(vm.value_error(format!("{shown} is not in range")))
        }
    }
}

fn count(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
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
}
