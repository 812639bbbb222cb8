//! Arguments of the native modules' functions as CPython's C API takes them, with its error
//! texts: numbers converted by `PyFloat_AsDouble` ([`as_double`]), `PyNumber_Index`
//! ([`index_int`]) and `PyLong_AsSsize_t` ([`index_isize`]), and Argument Clinic's binding
//! of positional then keyword-only parameters ([`bind_kwonly`]). Shared by `math`, `random`
//! and `itertools`.

use crate::common::int_ops::Int;
use crate::vm::args::Signature;
use crate::vm::object::KwArgs;
use crate::vm::ops::{from_int, to_int};
use crate::vm::value::Value;
use crate::vm::{PyResult, Vm};

/// `PyFloat_AsDouble`: a float, an int (OverflowError when too large), or an object with
/// `__float__` or `__index__`; anything else is "must be real number, not str".
pub fn as_double(vm: &mut Vm, v: &Value) -> PyResult<f64> {
    match v {
        Value::Float(f) => Ok(*f),
        Value::Int(n) => Ok(*n as f64),
        Value::Bool(b) => Ok(f64::from(u8::from(*b))),
        Value::BigInt(_) => int_to_double(vm, v),
        Value::Object(o) if o.builtin_base().is_some() => {
            let base = o.builtin_base().cloned().unwrap_or(Value::None);
            as_double(vm, &base)
        }
        _ => {
            let float = vm.names.float.clone();
            if let Some(f) = vm.special_method(v, &float) {
                let r = vm.call(&f, std::slice::from_ref(v), &[])?;
                return match r {
                    Value::Float(f) => Ok(f),
                    other => Err(vm.type_error(format!(
                        "{}.__float__ returned non-float (type {})",
                        vm.type_name(v),
                        vm.type_name(&other)
                    ))),
                };
            }
            let index = vm.names.index.clone();
            if vm.special_method(v, &index).is_some() {
                let n = index_int(vm, v)?;
                return int_to_double(vm, &from_int(n));
            }
            Err(vm.type_error(format!("must be real number, not {}", vm.type_name(v))))
        }
    }
}

/// `PyLong_AsDouble` for an int value.
fn int_to_double(vm: &Vm, v: &Value) -> PyResult<f64> {
    let n = to_int(v).unwrap_or(Int::Small(0));
    n.to_f64().map_err(|e| vm.op_error(e))
}

/// `operator.index(v)` (`PyNumber_Index`): an int, or what `__index__` returns; otherwise
/// "'float' object cannot be interpreted as an integer".
pub fn index_int(vm: &mut Vm, v: &Value) -> PyResult<Int> {
    if let Some(n) = to_int(v) {
        return Ok(n);
    }
    if let Value::Object(o) = v
        && let Some(base) = o.builtin_base()
        && let Some(n) = to_int(base)
    {
        return Ok(n);
    }
    let index = vm.names.index.clone();
    if let Some(f) = vm.special_method(v, &index) {
        let r = vm.call(&f, std::slice::from_ref(v), &[])?;
        return to_int(&r).ok_or_else(|| {
            vm.type_error(format!(
                "__index__ returned non-int (type {})",
                vm.type_name(&r)
            ))
        });
    }
    Err(vm.type_error(format!(
        "'{}' object cannot be interpreted as an integer",
        vm.type_name(v)
    )))
}

/// `PyLong_AsSsize_t` after `__index__`: OverflowError "Python int too large to convert to
/// C ssize_t" past `i64`.
pub fn index_isize(vm: &mut Vm, v: &Value) -> PyResult<i64> {
    match index_int(vm, v)? {
        Int::Small(n) => Ok(n),
        Int::Big(_) => Err(vm.overflow_error("Python int too large to convert to C ssize_t")),
    }
}

/// Binds `sig` whose parameters past the first `positional` are keyword-only (Argument
/// Clinic with a `*`): "prod() takes exactly 1 positional argument (2 given)".
pub fn bind_kwonly(
    vm: &Vm,
    sig: &Signature,
    positional: usize,
    args: &[Value],
    kw: &KwArgs,
) -> PyResult<Vec<Option<Value>>> {
    let too_few = sig.positional_only >= sig.required && args.len() < sig.required;
    if args.len() > positional || too_few {
        return Err(vm.type_error(format!(
            "{}() takes {} {positional} positional argument{} ({} given)",
            sig.name,
            if sig.required >= positional {
                "exactly"
            } else {
                "at most"
            },
            if positional == 1 { "" } else { "s" },
            args.len()
        )));
    }
    sig.bind(vm, args, kw)
}

/// `PyLong_AsLong`: an int (or `__index__`) that fits a C long (`resource`, `fcntl`,
/// `termios`, which a page does not have).
#[cfg(not(target_arch = "wasm32"))]
pub fn as_c_long(vm: &mut Vm, v: &Value) -> PyResult<i64> {
    let n = match v {
        Value::BigInt(_) => None,
        _ => match vm.index_int(v)? {
            Some(Int::Small(n)) => Some(n),
            Some(_) => None,
            None => {
                return Err(vm.type_error(format!(
                    "'{}' object cannot be interpreted as an integer",
                    vm.type_name(v)
                )));
            }
        },
    };
    n.ok_or_else(|| vm.overflow_error("Python int too large to convert to C long"))
}
