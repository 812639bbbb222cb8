//! The loop's exception handler (`Lib/asyncio/base_events.py`'s `call_exception_handler`
//! and `default_exception_handler`): an exception escaping a callback, or a report a
//! future or task makes, goes to the handler the program set with
//! `loop.set_exception_handler`, run in the context of what it is about, or to the default
//! handler, which logs the message, the other keys of the context in sorted order and the
//! exception's traceback (through the `asyncio` logger once the program imported logging).
//! The loop (`event_loop.rs`) passes its handler in.

use super::loop_subclass::Method::{CallExceptionHandler, DefaultExceptionHandler};
use crate::vm::value::Value;
use crate::vm::{Exc, PyResult, Vm};

/// `call_exception_handler` for an exception escaping a callback.
pub fn report_callback_error(
    vm: &mut Vm,
    handler: &Value,
    loop_value: &Value,
    message: String,
    handle: Option<Value>,
    exc: Exc,
) -> PyResult<()> {
    if is_exit(vm, &exc) {
        return Err(exc);
    }
    let mut context = vec![
        ("message", Value::str(message)),
        ("exception", Value::Object(exc)),
    ];
    if let Some(h) = handle {
        context.push(("handle", h));
    }
    let dict = context_dict(vm, context);
    // `self._loop.call_exception_handler(context)`: a subclass's, if it has its own.
    if let Some(called) =
        super::loop_subclass::call_handler(vm, loop_value, CallExceptionHandler, &dict)
    {
        return called;
    }
    call_dict(vm, handler, loop_value, &dict)
}

/// How "Exception in callback …" names a task's wakeup.
pub const WAKEUP_NAME: &str = "Task.task_wakeup()";

/// [`report_callback_error`] for a task's wakeup (`task::report_step_error`'s kin).
#[cold]
pub fn wakeup_error(vm: &mut Vm, handler: &Value, loop_value: &Value, exc: Exc) -> PyResult<()> {
    if vm.abort.is_some() {
        return Err(exc);
    }
    let message = format!("Exception in callback {WAKEUP_NAME}");
    report_callback_error(vm, handler, loop_value, message, None, exc)
}

/// A new dict of `context`'s items.
fn context_dict(vm: &mut Vm, context: Vec<(&str, Value)>) -> Value {
    let dict = Value::dict(crate::vm::value::DictTable::new());
    if let Value::Dict(d) = &dict {
        for (k, v) in context {
            let key = vm.intern(k);
            crate::vm::dict::StrKeys::set_str(&mut *d.table.borrow_mut(), key, v);
        }
    }
    dict
}

fn is_exit(vm: &Vm, exc: &Exc) -> bool {
    vm.exc_matches(exc, &vm.types.system_exit.clone())
        || vm.exc_matches(exc, &vm.types.keyboard_interrupt.clone())
}

/// `BaseEventLoop.call_exception_handler` (base_events.py) of `loop_value`, whose handler
/// from `set_exception_handler` is `handler` (None: the default one): the custom handler is
/// run in the context of the task, future or handle the report is about; an error escaping
/// it is reported through the default handler, and one escaping the default handler is
/// logged.
pub fn call_dict(
    vm: &mut Vm,
    handler: &Value,
    loop_value: &Value,
    context: &Value,
) -> PyResult<()> {
    if handler.is_none() {
        return match default_of(vm, loop_value, context) {
            Err(exc) if !is_exit(vm, &exc) => {
                log_error(vm, "Exception in default exception handler", exc)
            }
            other => other,
        };
    }
    let exc = match call_custom_handler(vm, handler, loop_value, context) {
        Ok(()) => return Ok(()),
        Err(exc) if is_exit(vm, &exc) => return Err(exc),
        Err(exc) => exc,
    };
    let report = context_dict(
        vm,
        vec![
            (
                "message",
                Value::str("Unhandled error in exception handler"),
            ),
            ("exception", Value::Object(exc)),
            ("context", context.clone()),
        ],
    );
    match default_of(vm, loop_value, &report) {
        Err(exc) if !is_exit(vm, &exc) => log_error(
            vm,
            "Exception in default exception handler while handling an unexpected error \
             in custom exception handler",
            exc,
        ),
        other => other,
    }
}

/// `self.default_exception_handler(context)`: a subclass's, if it has its own.
fn default_of(vm: &mut Vm, loop_value: &Value, context: &Value) -> PyResult<()> {
    match super::loop_subclass::call_handler(vm, loop_value, DefaultExceptionHandler, context) {
        Some(called) => called,
        None => default_handler(vm, context),
    }
}

/// `self._exception_handler(self, context)`, through `ctx.run` when the context's task,
/// future or handle has a `get_context()`.
fn call_custom_handler(
    vm: &mut Vm,
    handler: &Value,
    loop_value: &Value,
    context: &Value,
) -> PyResult<()> {
    let get = |vm: &mut Vm, key: &str| -> PyResult<Value> {
        vm.call_method(context, "get", &[Value::str(key)])
    };
    let mut thing = get(vm, "task")?;
    if thing.is_none() {
        thing = get(vm, "future")?;
    }
    if thing.is_none() {
        thing = get(vm, "handle")?;
    }
    let mut ctx = Value::None;
    if !thing.is_none() {
        let name = vm.intern("get_context");
        if let Some(get_context) = vm.get_attr_opt(&thing, &name)? {
            ctx = vm.call(&get_context, &[], &[])?;
        }
    }
    let args = [loop_value.clone(), context.clone()];
    if !ctx.is_none() {
        let run = vm.intern("run");
        if let Some(run) = vm.get_attr_opt(&ctx, &run)? {
            let mut all = vec![handler.clone()];
            all.extend(args);
            return vm.call(&run, &all, &[]).map(drop);
        }
    }
    vm.call(handler, &args, &[]).map(drop)
}

/// `logger.error(message, exc_info=True)` for an exception caught by the loop.
fn log_error(vm: &mut Vm, message: &str, exc: Exc) -> PyResult<()> {
    vm.flush_stdout();
    let exc_info = vm.intern("exc_info");
    let kw = [(exc_info, Value::Object(exc.clone()))];
    if super::log::log_to_asyncio_logger(vm, "error", &[Value::str(message)], &kw)? {
        return Ok(());
    }
    let text = format!("{message}\n{}", vm.format_exception(&exc));
    crate::common::console::eprint(&text);
    Ok(())
}

/// `BaseEventLoop.default_exception_handler(context)`: logs the message (or "Unhandled
/// exception in event loop") and the other keys in sorted order, with the exception's
/// traceback.
pub fn default_handler(vm: &mut Vm, context: &Value) -> PyResult<()> {
    let message = vm.call_method(context, "get", &[Value::str("message")])?;
    let mut text = if vm.truthy(&message)? {
        vm.str_of(&message)?.as_str().to_string()
    } else {
        "Unhandled exception in event loop".to_string()
    };
    let exception = vm.call_method(context, "get", &[Value::str("exception")])?;
    let builtins = vm.builtins_module();
    let sorted = vm.intern("sorted");
    let sorted = vm.get_attr(&builtins, &sorted)?;
    let keys = vm.call(&sorted, std::slice::from_ref(context), &[])?;
    for key in vm.collect_iterable(&keys)? {
        let name = vm.str_of(&key)?.as_str().to_string();
        if name == "message" || name == "exception" {
            continue;
        }
        let value = vm.get_item(context, &key)?;
        text.push_str(&format!("\n{name}: {}", vm.repr(&value)?));
    }
    vm.flush_stdout();
    // `logger.error('\n'.join(log_lines), exc_info=exc_info)`.
    let exc_info = vm.intern("exc_info");
    if !exception.is_none() {
        // `exc_info = (type(exception), exception, exception.__traceback__)`.
        let traceback = vm.intern("__traceback__");
        vm.get_attr(&exception, &traceback)?;
    }
    let base_exception = vm.types.base_exception.clone();
    let exception = match exception {
        Value::Object(e) if vm.isinstance(&exception, &base_exception) => Some(e),
        _ => None,
    };
    let kw = [(
        exc_info,
        exception.clone().map_or(Value::Bool(false), Value::Object),
    )];
    if super::log::log_to_asyncio_logger(vm, "error", &[Value::str(text.as_str())], &kw)? {
        return Ok(());
    }
    text.push('\n');
    if let Some(e) = exception {
        text.push_str(&vm.format_exception(&e));
    }
    crate::common::console::eprint(&text);
    Ok(())
}
