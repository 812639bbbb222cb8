//! `range`: its constructor, its attributes ([`GETSETS`]) and its methods ([`METHODS`]):
//! `index` and `count`, by arithmetic for ints (and bools) and by `==` over the elements for
//! anything else, as `Objects/rangeobject.c` does. Operators (`in`, `[i]`, `==`), `len` and
//! iteration: the VM's protocol in `vm/ops.rs` and `vm/iter.rs`; `repr`: `vm/repr.rs`.
//! Installs itself with [`init`].

use crate::common::int_ops::{self, Int};
use crate::vm::args::{Signature, check_kwargs, split_cls};
use crate::vm::object::{Getter, KwArgs, NativeFn, ObjectKind};
use crate::vm::ops::{from_int, to_int};
use crate::vm::range::Range;
use crate::vm::value::Value;
use crate::vm::{PyResult, Vm};

/// `range(stop)`, `range(start, stop[, step])`.
fn range_new(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let (_, args) = split_cls(vm, args)?;
    check_kwargs(vm, "range", kw, &[])?;
    let (start, stop, step) = match args {
        [stop] => (Int::Small(0), bound(vm, stop)?, Int::Small(1)),
        [start, stop] => (bound(vm, start)?, bound(vm, stop)?, Int::Small(1)),
        [start, stop, step] => (bound(vm, start)?, bound(vm, stop)?, bound(vm, step)?),
        [] => return Err(vm.type_error("range expected at least 1 argument, got 0")),
        _ => {
            return Err(vm.type_error(format!(
                "range expected at most 3 arguments, got {}",
                args.len()
            )));
        }
    };
    if step.is_zero() {
        return Err(vm.value_error("range() arg 3 must not be zero"));
    }
    Ok(vm.new_range(Range { start, stop, step }))
}

/// A bound of a range: an int, or an object with `__index__`, kept whole however big.
fn bound(vm: &mut Vm, value: &Value) -> PyResult<Int> {
    match vm.index_int(value)? {
        Some(n) => Ok(n),
        None => Err(vm.type_error(format!(
            "'{}' object cannot be interpreted as an integer",
            vm.type_name(value)
        ))),
    }
}

fn range_field(v: &Value, f: fn(&Range) -> &Int) -> Value {
    match v {
        Value::Object(o) => match &o.kind {
            ObjectKind::Range(r) => from_int(f(r).clone()),
            _ => Value::None,
        },
        _ => Value::None,
    }
}

/// The range `self`.
fn this<'a>(vm: &Vm, args: &'a [Value]) -> PyResult<&'a Range> {
    if let Some(Value::Object(o)) = args.first()
        && let ObjectKind::Range(range) = &o.kind
    {
        return Ok(range);
    }
    Err(vm.type_error("descriptor requires a 'range' object"))
}

/// The position of `target` in the range, if it is there: by arithmetic for an int, by
/// `==` over the items for anything else.
fn position(vm: &mut Vm, range: &Range, target: &Value) -> PyResult<Option<Int>> {
    if let Some(n) = to_int(target) {
        return Ok(range.position(&n));
    }
    let mut found = None;
    scan(vm, range, target, |index| {
        found = Some(index);
        false
    })?;
    Ok(found)
}

/// Hands `found` the index of each item `==` to `target`, in order, while it returns true.
fn scan(
    vm: &mut Vm,
    range: &Range,
    target: &Value,
    mut found: impl FnMut(Int) -> bool,
) -> PyResult<()> {
    let (mut index, length) = (Int::Small(0), range.length());
    while index < length {
        // Metered: `range(2**64).index(1.5)` compares for ever, within the limits.
        vm.charge(1)?;
        if vm.eq(&from_int(range.item(&index)), target)? && !found(index.clone()) {
            break;
        }
        index = int_ops::add(&index, &Int::Small(1));
    }
    Ok(())
}

/// The attributes of `range`, by name.
const GETSETS: &[(&str, Getter)] = &[
    ("start", |_, v| Ok(range_field(v, |r| &r.start))),
    ("stop", |_, v| Ok(range_field(v, |r| &r.stop))),
    ("step", |_, v| Ok(range_field(v, |r| &r.step))),
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
    vm.add_methods(&range, METHODS);
}

fn index(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    let range = this(vm, args)?;
    Signature::one("range", "index").check(vm, &args[1..], &[])?;
    match position(vm, range, &args[1])? {
        Some(index) => Ok(from_int(index)),
        None => {
            let shown = vm.repr(&args[1])?;
            Err(vm.value_error(format!("{shown} is not in range")))
        }
    }
}

fn count(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    let range = this(vm, args)?;
    Signature::one("range", "count").check(vm, &args[1..], &[])?;
    if let Some(n) = to_int(&args[1]) {
        return Ok(Value::Int(i64::from(range.position(&n).is_some())));
    }
    let mut count = 0;
    scan(vm, range, &args[1], |_| {
        count += 1;
        true
    })?;
    Ok(Value::Int(count))
}
