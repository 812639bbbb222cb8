//! `PyObject_AsFileDescriptor`, as `fcntl` and `termios` take a descriptor: an int (a C
//! int), or an object whose `fileno()` returns one; never negative.

use crate::vm::value::Value;
use crate::vm::{PyResult, Vm};

/// Whether `v` is an int (or of a subclass of int), as `PyLong_Check` asks.
fn is_int(v: &Value) -> bool {
    match v {
        Value::Int(_) | Value::Bool(_) | Value::BigInt(_) => true,
        Value::Object(o) => matches!(o.builtin_base(), Some(Value::Int(_) | Value::BigInt(_))),
        _ => false,
    }
}

/// The descriptor `obj` stands for.
pub fn descriptor(vm: &mut Vm, obj: &Value) -> PyResult<i32> {
    let fd = if is_int(obj) {
        if matches!(obj, Value::Bool(_)) {
            vm.warn_caller("RuntimeWarning", "bool is used as a file descriptor");
        }
        vm.expect_c_int(obj)?
    } else {
        let fileno = vm.intern("fileno");
        let Some(method) = vm.get_attr_opt(obj, &fileno)? else {
            return Err(vm.type_error("argument must be an int, or have a fileno() method."));
        };
        let n = vm.call(&method, &[], &[])?;
        if !is_int(&n) {
            return Err(vm.type_error("fileno() returned a non-integer"));
        }
        vm.expect_c_int(&n)?
    };
    if fd < 0 {
        return Err(vm.value_error(format!(
            "file descriptor cannot be a negative integer ({fd})"
        )));
    }
    Ok(fd)
}
