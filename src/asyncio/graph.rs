//! The natives behind `asyncio.capture_call_graph()` / `print_call_graph()` (CPython 3.14's
//! `Lib/asyncio/graph.py`, which `lib/graph.apy` follows): a future in, its coroutine call
//! stack, the tasks awaiting it, and an id out. The task running right now is not asked
//! here: `lib/graph.apy` reads its stack from `sys._getframe()`.
//! Under `--clock virtual` ids are small numbers in order of first mention (stable output).

use super::future::{Callback, as_future};
use super::task;
use crate::vm::frame::GenKind;

use crate::vm::frame::as_generator;
use crate::vm::object::KwArgs;
use crate::vm::value::Value;
use crate::vm::{PyResult, Vm};

/// `_call_stack(future)`: `(filename, line, qualname, tag)` for each coroutine the task's
/// await chain goes through, innermost first; tag is `async` or `async generator`.
fn call_stack(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    crate::vm::args::check_arity(vm, "_call_stack", args, 1, 1)?;
    let mut entries = Vec::new();
    let mut current = task::task_coro(&args[0]);
    while let Some(g) = current.as_ref().and_then(as_generator) {
        let tag = match g.kind {
            GenKind::AsyncGenerator => "async generator",
            GenKind::Coroutine => "async",
            GenKind::Generator => "generator",
        };
        let line = g
            .state
            .borrow()
            .frame
            .as_ref()
            .map_or(g.code.head.first_line, |f| f.line());
        entries.push(Value::tuple(vec![
            Value::str(&*g.code.head.filename),
            Value::Int(line.into()),
            Value::str(&*g.qualname),
            Value::str(tag),
        ]));
        if entries.len() == 1000 {
            break;
        }
        current = g.yield_from();
    }
    entries.reverse();
    Ok(Value::list(entries))
}

/// `_awaited_by(future)`: the tasks whose wakeup waits on `future` (3.14's
/// `_asyncio_awaited_by`), in the order they started waiting.
fn awaited_by(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    crate::vm::args::check_arity(vm, "_awaited_by", args, 1, 1)?;
    let tasks = as_future(&args[0]).map_or(Vec::new(), |f| {
        f.state
            .borrow()
            .callbacks
            .iter()
            .filter_map(|cb| match cb {
                Callback::Wakeup(t) => Some(t.clone()),
                Callback::Py(..) => None,
            })
            .collect()
    });
    Ok(Value::list(tasks))
}

/// `_graph_id(future)`: `id(future)`, or under the virtual clock its number in order of
/// first mention (the numbering `--trace` gives futures).
fn graph_id(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    crate::vm::args::check_arity(vm, "_graph_id", args, 1, 1)?;
    if vm.config.clock == crate::common::clock::ClockKind::Virtual {
        return Ok(Value::Int(crate::vm::trace::object_number(&args[0]).into()));
    }
    Ok(Value::Int(args[0].address() as i64))
}

/// The natives, as `(name, value)` pairs for the module.
pub fn natives(vm: &Vm) -> Vec<(&'static str, Value)> {
    vec![
        ("_call_stack", vm.native("_call_stack", call_stack)),
        ("_awaited_by", vm.native("_awaited_by", awaited_by)),
        ("_graph_id", vm.native("_graph_id", graph_id)),
    ]
}
