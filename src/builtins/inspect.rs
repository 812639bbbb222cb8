//! `_inspect`, the native core of `inspect` (`stdlib/inspect.apy` re-exports it): the
//! generator and coroutine helpers (state, `is…` predicates), which read the VM's own
//! objects; and the `types` module (`coroutine`, `GeneratorType`, `CoroutineType`, …).
//! Values in, bools/strings/functions out; mirrors `Lib/inspect.py` and `Lib/types.py`.
//! Reads generator state only through `vm::generator`; knows nothing of asyncio.

use std::rc::Rc;

use crate::compile::bytecode::CodeFlags;
use crate::vm::args::check_arity;
use crate::vm::dict::StrKeys;
use crate::vm::frame::GenKind;

use crate::vm::frame::as_generator;
use crate::vm::object::{CodeObj, Function, KwArgs, ObjectKind};
use crate::vm::types::lookup;
use crate::vm::value::{Value, ValueCell};
use crate::vm::{PyResult, Vm};

pub fn inspect_module(vm: &mut Vm) -> Value {
    let mut attrs: Vec<(&str, Value)> = vec![
        (
            "getgeneratorstate",
            vm.native("getgeneratorstate", getgeneratorstate),
        ),
        (
            "getcoroutinestate",
            vm.native("getcoroutinestate", getcoroutinestate),
        ),
        (
            "getasyncgenstate",
            vm.native("getasyncgenstate", |vm, a, _| {
                frame_state(vm, a, "getasyncgenstate", "ag")
            }),
        ),
        ("ismethod", vm.native("ismethod", ismethod)),
        (
            "currentframe",
            vm.native("currentframe", |vm, a, _| {
                check_arity(vm, "currentframe", a, 0, 0)?;
                Ok(vm.frame_object(0).unwrap_or(Value::None))
            }),
        ),
        (
            "isclass",
            vm.native("isclass", |vm, a, _| {
                check_arity(vm, "isclass", a, 1, 1)?;
                Ok(Value::Bool(matches!(a[0], Value::Type(_))))
            }),
        ),
        ("isbuiltin", vm.native("isbuiltin", isbuiltin)),
        (
            "isroutine",
            vm.native("isroutine", |vm, a, kw| {
                let method = ismethod(vm, a, kw)?;
                let builtin = isbuiltin(vm, a, kw)?;
                let function = matches!(a.first(), Some(Value::Function(_)));
                Ok(Value::Bool(
                    function || method.is(&Value::Bool(true)) || builtin.is(&Value::Bool(true)),
                ))
            }),
        ),
        (
            "markcoroutinefunction",
            vm.native("markcoroutinefunction", markcoroutinefunction),
        ),
        (
            "iscoroutine",
            vm.native("iscoroutine", |vm, a, _| {
                gen_kind_is(vm, a, GenKind::Coroutine)
            }),
        ),
        (
            "isgenerator",
            vm.native("isgenerator", |vm, a, _| {
                gen_kind_is(vm, a, GenKind::Generator)
            }),
        ),
        (
            "isasyncgen",
            vm.native("isasyncgen", |vm, a, _| {
                gen_kind_is(vm, a, GenKind::AsyncGenerator)
            }),
        ),
        ("isawaitable", vm.native("isawaitable", isawaitable)),
        (
            "iscoroutinefunction",
            vm.native("iscoroutinefunction", iscoroutinefunction),
        ),
        (
            "isgeneratorfunction",
            vm.native("isgeneratorfunction", |vm, a, _| {
                has_code_flag(vm, a, |f| f.generator, CO_GENERATOR)
            }),
        ),
        (
            "isasyncgenfunction",
            vm.native("isasyncgenfunction", |vm, a, _| {
                has_code_flag(vm, a, |f| f.async_generator, CO_ASYNC_GENERATOR)
            }),
        ),
        (
            "isfunction",
            vm.native("isfunction", |vm, a, _| {
                check_arity(vm, "isfunction", a, 1, 1)?;
                Ok(Value::Bool(matches!(a[0], Value::Function(_))))
            }),
        ),
    ];
    for state in [
        "GEN_CREATED",
        "GEN_RUNNING",
        "GEN_SUSPENDED",
        "GEN_CLOSED",
        "CORO_CREATED",
        "CORO_RUNNING",
        "CORO_SUSPENDED",
        "CORO_CLOSED",
        "AGEN_CREATED",
        "AGEN_RUNNING",
        "AGEN_SUSPENDED",
        "AGEN_CLOSED",
    ] {
        attrs.push((state, Value::str(state)));
    }
    vm.new_module("_inspect", attrs)
}

pub fn types_module(vm: &mut Vm) -> Value {
    let builtin_function = Value::Type(vm.types.builtin_function.clone());
    let attrs = vec![
        ("coroutine", vm.native("coroutine", types_coroutine)),
        ("GeneratorType", Value::Type(vm.types.generator.clone())),
        ("CoroutineType", Value::Type(vm.types.coroutine.clone())),
        (
            "AsyncGeneratorType",
            Value::Type(vm.types.async_generator.clone()),
        ),
        ("FunctionType", Value::Type(vm.types.function.clone())),
        ("CodeType", Value::Type(vm.types.code.clone())),
        ("ModuleType", Value::Type(vm.types.module.clone())),
        ("GenericAlias", Value::Type(vm.types.generic_alias.clone())),
        ("UnionType", Value::Type(vm.types.union_type.clone())),
        ("NoneType", Value::Type(vm.types.none.clone())),
        ("TracebackType", Value::Type(vm.types.traceback.clone())),
        ("LambdaType", Value::Type(vm.types.function.clone())),
        ("MethodType", Value::Type(vm.types.method.clone())),
        ("BuiltinFunctionType", builtin_function.clone()),
        ("BuiltinMethodType", builtin_function),
        (
            "WrapperDescriptorType",
            Value::Type(vm.types.wrapper_descriptor.clone()),
        ),
        (
            "MethodWrapperType",
            Value::Type(vm.types.method_wrapper.clone()),
        ),
        ("CellType", Value::Type(vm.types.cell.clone())),
        ("FrameType", Value::Type(vm.types.frame.clone())),
        ("EllipsisType", Value::Type(vm.types.ellipsis.clone())),
        (
            "NotImplementedType",
            Value::Type(vm.types.not_implemented.clone()),
        ),
        (
            "GetSetDescriptorType",
            Value::Type(vm.types.getset_descriptor.clone()),
        ),
        (
            "MemberDescriptorType",
            Value::Type(vm.types.member_descriptor.clone()),
        ),
        ("SimpleNamespace", simple_namespace(vm)),
        ("MappingProxyType", vm.mapping_proxy_type()),
    ];
    vm.new_module("types", attrs)
}

/// `type(sys.implementation)`, as `Lib/types.py` finds `SimpleNamespace`.
fn simple_namespace(vm: &mut Vm) -> Value {
    let implementation = vm.intern("implementation");
    match vm.import_module("sys") {
        Ok(sys) => match vm.get_attr(&sys, &implementation) {
            Ok(namespace) => Value::Type(vm.type_of(&namespace).clone()),
            Err(_) => Value::None,
        },
        Err(_) => Value::None,
    }
}

/// `getgeneratorstate` / `getcoroutinestate`: read through the `gi_`/`cr_` attributes,
/// as `Lib/inspect.py` does, so a wrong argument fails with the same AttributeError.
fn frame_state(vm: &mut Vm, args: &[Value], fname: &str, prefix: &str) -> PyResult<Value> {
    check_arity(vm, fname, args, 1, 1)?;
    let label = match prefix {
        "cr" => "CORO",
        "ag" => "AGEN",
        _ => "GEN",
    };
    let attr = |vm: &mut Vm, name: &str| -> PyResult<Value> {
        let name = vm.intern(&format!("{prefix}_{name}"));
        vm.get_attr(&args[0], &name)
    };
    let running = attr(vm, "running")?;
    let suspended = attr(vm, "suspended")?;
    let state = if vm.truthy(&running)? {
        "RUNNING"
    } else if vm.truthy(&suspended)? {
        "SUSPENDED"
    } else if attr(vm, "frame")?.is_none() {
        "CLOSED"
    } else {
        "CREATED"
    };
    Ok(Value::str(format!("{label}_{state}")))
}

fn getgeneratorstate(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    frame_state(vm, args, "getgeneratorstate", "gi")
}

fn getcoroutinestate(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    frame_state(vm, args, "getcoroutinestate", "cr")
}

fn gen_kind_is(vm: &mut Vm, args: &[Value], kind: GenKind) -> PyResult<Value> {
    check_arity(vm, "inspect function", args, 1, 1)?;
    Ok(Value::Bool(
        as_generator(&args[0]).is_some_and(|g| g.kind == kind),
    ))
}

/// A coroutine, a `types.coroutine` generator, or anything whose type has `__await__`.
fn isawaitable(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    check_arity(vm, "isawaitable", args, 1, 1)?;
    let v = &args[0];
    if let Some(g) = as_generator(v) {
        return Ok(Value::Bool(g.is_awaitable()));
    }
    let name = vm.names.await_.clone();
    Ok(Value::Bool(lookup(vm.type_of(v), &name).is_some()))
}

/// The Python function behind `v`, looking through bound methods and `functools.partial`
/// (`inspect._has_code_flag`).
fn underlying_function(v: &Value) -> Option<Rc<Function>> {
    match v {
        Value::Function(f) => Some(f.clone()),
        Value::Object(o) => match &o.kind {
            ObjectKind::BoundMethod { func, .. } => underlying_function(func),
            ObjectKind::Partial { func, .. } => underlying_function(func),
            _ => None,
        },
        _ => None,
    }
}

/// `isinstance(v, types.MethodType)`: a Python function bound to an object.
fn ismethod(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    check_arity(vm, "ismethod", args, 1, 1)?;
    Ok(Value::Bool(match &args[0] {
        Value::Object(o) => match &o.kind {
            ObjectKind::BoundMethod { func, .. } => matches!(func, Value::Function(_)),
            _ => false,
        },
        _ => false,
    }))
}

/// `isinstance(v, types.BuiltinFunctionType)`: a native function or method.
fn isbuiltin(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    check_arity(vm, "isbuiltin", args, 1, 1)?;
    Ok(Value::Bool(match &args[0] {
        Value::Object(o) => match &o.kind {
            ObjectKind::Native(_) => true,
            ObjectKind::BoundMethod { func, .. } => !matches!(func, Value::Function(_)),
            _ => false,
        },
        _ => false,
    }))
}

/// The attribute `markcoroutinefunction` sets (`inspect._is_coroutine_mark`'s place).
const COROUTINE_MARK: &str = "_is_coroutine_marker";

/// `inspect.iscoroutinefunction` (3.12+): an `async def` function, or one marked by
/// `markcoroutinefunction`, looking through bound methods and partials.
fn iscoroutinefunction(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    let flagged = has_code_flag(vm, args, |f| f.coroutine, CO_COROUTINE)?;
    if flagged.is(&Value::Bool(true)) {
        return Ok(flagged);
    }
    let marked = underlying_function(&args[0]).is_some_and(|f| {
        let key = vm.intern(COROUTINE_MARK);
        f.dict.borrow().get_str(&key).is_some()
    });
    Ok(Value::Bool(marked))
}

/// `inspect.markcoroutinefunction(func)`: marks `func` so that `iscoroutinefunction` says
/// True of it; gives it back.
fn markcoroutinefunction(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    check_arity(vm, "markcoroutinefunction", args, 1, 1)?;
    let key = vm.intern(COROUTINE_MARK);
    match underlying_function(&args[0]) {
        Some(f) => {
            f.dict.borrow_mut().set_str(key, Value::Bool(true));
            Ok(args[0].clone())
        }
        None => Err(vm.type_error("markcoroutinefunction() expects a Python function")),
    }
}

/// `co_flags` bits (`Include/cpython/code.h`).
const CO_GENERATOR: i64 = 0x20;
const CO_COROUTINE: i64 = 0x80;
const CO_ASYNC_GENERATOR: i64 = 0x200;

/// `inspect._has_code_flag`: the flag of a Python function's code, or of the `__code__` of
/// an object that looks like a function (`bit` of its `co_flags`: an `AsyncMock`).
fn has_code_flag(
    vm: &mut Vm,
    args: &[Value],
    flag: fn(&CodeFlags) -> bool,
    bit: i64,
) -> PyResult<Value> {
    check_arity(vm, "inspect function", args, 1, 1)?;
    if let Some(f) = underlying_function(&args[0]) {
        return Ok(Value::Bool(flag(&f.code.head.flags)));
    }
    Ok(Value::Bool(functionlike_flags(vm, &args[0])? & bit != 0))
}

/// `inspect._signature_is_functionlike`: a callable, not a class, with a `__code__` that is
/// a code object (by its `__class__`, as `isinstance` sees it), a str `__name__`,
/// `__defaults__` and `__kwdefaults__` of a function's types and `__annotations__` a dict,
/// None or missing: then its code's `co_flags`, else 0.
fn functionlike_flags(vm: &mut Vm, obj: &Value) -> PyResult<i64> {
    if !vm.is_callable(obj) || matches!(obj, Value::Type(_)) {
        return Ok(0);
    }
    let attr = |vm: &mut Vm, name: &str| {
        let name = vm.intern(name);
        vm.get_attr_or_none(obj, &name)
    };
    let Some(code) = attr(vm, "__code__")? else {
        return Ok(0);
    };
    let name = attr(vm, "__name__")?;
    let defaults = attr(vm, "__defaults__")?;
    let kwdefaults = attr(vm, "__kwdefaults__")?;
    let annotations = attr(vm, "__annotations__")?;
    let class_name = vm.intern("__class__");
    let code_class = vm.get_attr_or_none(&code, &class_name)?;
    let is_code = matches!(&code_class, Some(Value::Type(t)) if t.is_subtype(&vm.types.code));
    let functionlike = is_code
        && matches!(name, Some(Value::Str(_)))
        && matches!(defaults, Some(Value::None | Value::Tuple(_)))
        && matches!(kwdefaults, Some(Value::None | Value::Dict(_)))
        && matches!(annotations, None | Some(Value::None | Value::Dict(_)));
    if !functionlike {
        return Ok(0);
    }
    let flags_name = vm.intern("co_flags");
    Ok(match vm.get_attr_or_none(&code, &flags_name)? {
        Some(Value::Int(flags)) => flags,
        _ => 0,
    })
}

/// `types.coroutine(func)`: a generator function comes back with its code marked
/// `CO_ITERABLE_COROUTINE`, so the generators it makes can be awaited. CPython swaps
/// `func.__code__` in place; apy's functions are immutable, so this returns a copy.
fn types_coroutine(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    check_arity(vm, "coroutine", args, 1, 1)?;
    let func = match &args[0] {
        Value::Function(f) => f.clone(),
        other if vm.is_callable(other) => return Ok(other.clone()),
        _ => return Err(vm.type_error("types.coroutine() expects a callable")),
    };
    let flags = func.code.head.flags;
    if !flags.generator || flags.iterable_coroutine {
        return Ok(args[0].clone());
    }
    let mut code = (**func.code.code()).clone();
    code.flags.iterable_coroutine = true;
    let code_obj = CodeObj::new(
        Rc::new(code),
        None,
        func.code.varnames.clone(),
        func.code.cellnames.clone(),
    );
    Ok(Value::Function(Rc::new(Function {
        code: Rc::new(code_obj),
        globals: func.globals.clone(),
        name: func.name.clone(),
        qualname: func.qualname.clone(),
        renamed: func.renamed.clone(),
        defaults: func.defaults.clone(),
        kwdefaults: func.kwdefaults.clone(),
        closure: func.closure.clone(),
        dict: func.dict.clone(),
        type_params: ValueCell::new(func.type_params.get()),
    })))
}
