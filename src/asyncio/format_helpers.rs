//! How handles and futures show their callbacks (`Lib/asyncio/format_helpers.py`):
//! `name(args)` with the arguments shown only in debug mode, a `functools.partial` as its
//! function followed by each layer's arguments (`print()()`), and ` at file:line` only for
//! a plain function or a partial of one (a bound method shows no source).

use crate::vm::object::ObjectKind;
use crate::vm::value::{PyStr, Value};
use crate::vm::{PyResult, Vm};

/// `_format_callback_source(func, args, debug=debug)`.
pub fn format_callback(vm: &mut Vm, func: &Value, args: &[Value], debug: bool) -> PyResult<String> {
    // run_until_complete's callback (`event_loop::stop_callback`), where CPython defines it.
    if let Value::Object(o) = func
        && let ObjectKind::Native(n) = &o.kind
        && n.name == "_run_until_complete_cb"
    {
        return Ok("_run_until_complete_cb() at asyncio/base_events.py:182".into());
    }
    let mut text = format_layers(vm, func, args, &[], debug, String::new())?;
    if let Some((file, line)) = function_source(func) {
        text.push_str(&format!(" at {file}:{line}"));
    }
    Ok(text)
}

/// `_format_callback(func, args, kwargs, suffix=suffix)`: a partial's own arguments go
/// before the suffix of the layers outside it.
fn format_layers(
    vm: &mut Vm,
    func: &Value,
    args: &[Value],
    kwargs: &[(std::rc::Rc<PyStr>, Value)],
    debug: bool,
    suffix: String,
) -> PyResult<String> {
    if let Value::Object(o) = func
        && let ObjectKind::Partial {
            func: inner,
            args: inner_args,
            kwargs: inner_kwargs,
        } = &o.kind
    {
        let suffix = format_args(vm, args, kwargs, debug)? + &suffix;
        return format_layers(vm, inner, inner_args, inner_kwargs, debug, suffix);
    }
    let name = callable_name(vm, func)?;
    Ok(name + &format_args(vm, args, kwargs, debug)? + &suffix)
}

/// `_format_args_and_kwargs`: `()` unless in debug mode.
fn format_args(
    vm: &mut Vm,
    args: &[Value],
    kwargs: &[(std::rc::Rc<PyStr>, Value)],
    debug: bool,
) -> PyResult<String> {
    if !debug {
        return Ok("()".into());
    }
    let mut items = Vec::with_capacity(args.len() + kwargs.len());
    for a in args {
        items.push(vm.repr(a)?);
    }
    for (k, v) in kwargs {
        items.push(format!("{}={}", k.as_str(), vm.repr(v)?));
    }
    Ok(format!("({})", items.join(", ")))
}

/// Its `__qualname__`, else its repr: a method written in Rust as `Type.name`.
fn callable_name(vm: &mut Vm, func: &Value) -> PyResult<String> {
    let native_name = |v: &Value| match v {
        Value::Object(o) => match &o.kind {
            ObjectKind::Native(n) => Some(n.name),
            _ => None,
        },
        _ => None,
    };
    Ok(match func {
        Value::Function(f) => f.qualname.borrow().to_string(),
        Value::Object(o) => match &o.kind {
            ObjectKind::BoundMethod {
                func: Value::Function(f),
                ..
            } => f.qualname.borrow().to_string(),
            ObjectKind::BoundMethod { func, this } => match native_name(func) {
                Some(name) => format!("{}.{name}", vm.type_name(this)),
                None => vm.repr(func)?,
            },
            ObjectKind::Native(n) => n.name.to_string(),
            _ => vm.repr(func)?,
        },
        _ => vm.repr(func)?,
    })
}

/// `_get_function_source`: where a function (or the function of a partial) is defined.
fn function_source(func: &Value) -> Option<(std::rc::Rc<str>, u32)> {
    match func {
        Value::Function(f) => Some((f.code.head.filename.clone(), f.code.head.first_line)),
        Value::Object(o) => match &o.kind {
            ObjectKind::Partial { func, .. } => function_source(func),
            _ => None,
        },
        _ => None,
    }
}
