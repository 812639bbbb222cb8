//! `_dis`, the native core of the `dis` module (`stdlib/dis.apy`): apy's own bytecode of a
//! code object, as `apy --dis` lists it (`compile::dis`), not CPython's.
//! `_dis.listing(code)` is the text, `_dis.instructions(code)` one tuple per instruction for
//! `dis.Instruction`, `_dis.opname` the opnames, whose positions are apy's opcode numbers.

use std::rc::Rc;

use crate::compile::dis::{self, ArgVal};
use crate::vm::args::{check_arity, check_kwargs};
use crate::vm::object::{CodeObj, KwArgs, ObjectKind};
use crate::vm::value::Value;
use crate::vm::{PyResult, Vm};

/// The one argument, a code object.
fn code_arg(vm: &Vm, name: &str, args: &[Value], kw: &KwArgs) -> PyResult<Rc<CodeObj>> {
    check_arity(vm, name, args, 1, 1)?;
    check_kwargs(vm, name, kw, &[])?;
    match &args[0] {
        Value::Object(o) => match &o.kind {
            ObjectKind::Code(code) => Ok(code.clone()),
            _ => Err(vm.type_error(format!("{name}() argument must be a code object"))),
        },
        _ => Err(vm.type_error(format!("{name}() argument must be a code object"))),
    }
}

/// `listing(code)`: the text `apy --dis` prints for the code object and those nested in it.
fn listing(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let code = code_arg(vm, "listing", args, kw)?;
    Ok(Value::str(dis::disassemble(
        &crate::compile::frozen::thaw_all(code.code()),
    )))
}

/// `instructions(code)`: for each instruction `(opname, opcode, arg, argval, argrepr,
/// offset, line, starts_line, is_jump_target)`; the offset is the instruction's index.
fn instructions(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let code = code_arg(vm, "instructions", args, kw)?;
    let optional = |n: Option<u32>| n.map_or(Value::None, |n| Value::Int(n.into()));
    let consts = vm.body(&code).consts.clone();
    let rows = dis::rows(&crate::compile::frozen::thaw_all(code.code()))
        .into_iter()
        .map(|row| {
            let opcode = dis::OPNAMES
                .binary_search(&row.opname.as_str())
                .map_or(Value::None, |k| Value::Int(k as i64));
            let argval = match row.argval {
                Some(ArgVal::Const(i)) => consts.get(i as usize).cloned().unwrap_or(Value::None),
                Some(ArgVal::Name(name)) => Value::str(name),
                Some(ArgVal::Target(target)) | Some(ArgVal::Int(target)) => {
                    Value::Int(target.into())
                }
                None => Value::None,
            };
            Value::tuple(vec![
                Value::str(row.opname),
                opcode,
                optional(row.arg),
                argval,
                Value::str(row.argrepr.unwrap_or_default()),
                Value::Int(row.index.into()),
                optional(row.line),
                Value::Bool(row.starts_line),
                Value::Bool(row.label.is_some()),
            ])
        })
        .collect();
    Ok(Value::list(rows))
}

pub fn module(vm: &mut Vm) -> Value {
    let opnames = dis::OPNAMES.iter().map(|n| Value::str(*n)).collect();
    let attrs = vec![
        ("listing", vm.native("listing", listing)),
        ("instructions", vm.native("instructions", instructions)),
        ("opname", Value::list(opnames)),
    ];
    vm.new_module("_dis", attrs)
}
