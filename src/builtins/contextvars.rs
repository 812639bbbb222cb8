//! The `contextvars` module (PEP 567): `ContextVar`, `Token`, `Context`, `copy_context`,
//! and the current context that asyncio swaps in for every task step and loop callback.
//! Mirrors `Python/context.c`; a context's variables are an `Rc`'d copy-on-write list
//! instead of CPython's HAMT, so copies are O(1) snapshots just the same (iteration goes
//! in first-set order, where CPython's goes in hash order). Knows nothing of asyncio.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use crate::vm::args::{check_arity, check_kwargs, kwarg};
use crate::vm::object::{KwArgs, Layout, Object, ObjectKind, PyType};
use crate::vm::types::make_type;
use crate::vm::value::Value;
use crate::vm::{PyResult, Vm};

/// A context's mapping from `ContextVar` objects (compared by identity) to values.
type Vars = Rc<Vec<(Value, Value)>>;

/// A `Context`: its variables and whether some `run` has it entered.
struct ContextObj {
    vars: RefCell<Vars>,
    entered: Cell<bool>,
}

/// A `ContextVar`: its name and default (None when it has none).
struct VarObj {
    name: Value,
    default: Option<Value>,
}

/// A `Token` from `ContextVar.set`: what `reset` needs to undo that set.
struct TokenObj {
    context: Value,
    var: Value,
    /// The value before the set; None for `Token.MISSING`.
    old_value: Option<Value>,
    used: Cell<bool>,
}

struct Types {
    context: Rc<PyType>,
    var: Rc<PyType>,
    token: Rc<PyType>,
    /// `Token.MISSING`.
    missing: Value,
}

thread_local! {
    static TYPES: RefCell<Option<Rc<Types>>> = const { RefCell::new(None) };
    /// The current context (`tstate->context`); None until something needs it as an
    /// object, which stands for an empty one.
    static CURRENT: RefCell<Option<Value>> = const { RefCell::new(None) };
}

fn types(vm: &mut Vm) -> Rc<Types> {
    if let Some(t) = TYPES.with(|t| t.borrow().clone()) {
        return t;
    }
    let t = Rc::new(new_types(vm));
    TYPES.with(|slot| *slot.borrow_mut() = Some(t.clone()));
    t
}

fn descriptor_error(vm: &Vm, class: &str, v: &Value) -> crate::vm::Exc {
    vm.type_error(format!(
        "descriptor requires a '_contextvars.{class}' object but received a '{}'",
        vm.type_name(v)
    ))
}

fn context_of<'a>(vm: &Vm, v: &'a Value) -> PyResult<&'a ContextObj> {
    v.native().ok_or_else(|| descriptor_error(vm, "Context", v))
}

fn var_of<'a>(vm: &Vm, v: &'a Value) -> PyResult<&'a VarObj> {
    v.native()
        .ok_or_else(|| descriptor_error(vm, "ContextVar", v))
}

fn token_of<'a>(vm: &Vm, v: &'a Value) -> PyResult<&'a TokenObj> {
    v.native().ok_or_else(|| descriptor_error(vm, "Token", v))
}

fn new_context(vm: &mut Vm, vars: Vars) -> Value {
    let ty = types(vm).context.clone();
    Value::object(Object::new(
        ty,
        ObjectKind::Other(Box::new(ContextObj {
            vars: RefCell::new(vars),
            entered: Cell::new(false),
        })),
    ))
}

fn current_vars() -> Option<Vars> {
    CURRENT.with(|c| {
        c.borrow()
            .as_ref()
            .and_then(|v| v.native::<ContextObj>())
            .map(|ctx| ctx.vars.borrow().clone())
    })
}

/// The current context as an object, made (empty) on first need (`context_get`).
pub fn current_context(vm: &mut Vm) -> Value {
    if let Some(ctx) = CURRENT.with(|c| c.borrow().clone()) {
        return ctx;
    }
    let ctx = empty_context(vm);
    CURRENT.with(|c| *c.borrow_mut() = Some(ctx.clone()));
    ctx
}

/// Each thread has a current context of its own (`vm::threads`): installs the incoming
/// thread's (None: a new thread's, empty) and returns the one it replaces.
pub fn thread_hook(incoming: Value) -> Value {
    let incoming = (!incoming.is_none()).then_some(incoming);
    CURRENT.with(|c| c.replace(incoming)).unwrap_or(Value::None)
}

/// The current context if it exists as an object (None: a fresh empty one not made yet).
pub fn current_if_made() -> Option<Value> {
    CURRENT.with(|c| c.borrow().clone())
}

/// A new empty Context (`Context()`).
pub fn empty_context(vm: &mut Vm) -> Value {
    new_context(vm, Rc::default())
}

/// `copy_context()`: a new Context sharing the current variables.
pub fn copy_context(vm: &mut Vm) -> Value {
    let vars = current_vars().unwrap_or_default();
    new_context(vm, vars)
}

/// What a loop callback captures when it is scheduled: a copy of the current context, or
/// None when that is empty (the callback then runs in a fresh empty one, at no cost).
pub fn capture(vm: &mut Vm) -> Option<Value> {
    match current_vars() {
        Some(vars) if !vars.is_empty() => Some(new_context(vm, vars)),
        _ => None,
    }
}

/// A `context=` argument: None (or absent) is a copy of the current context; anything
/// else must be a Context.
pub fn context_arg(vm: &mut Vm, arg: Option<Value>) -> PyResult<Option<Value>> {
    match arg {
        None | Some(Value::None) => Ok(capture(vm)),
        Some(ctx) if ctx.native::<ContextObj>().is_some() => Ok(Some(ctx)),
        Some(other) => Err(vm.type_error(format!(
            "an instance of Context was expected, got {}",
            vm.type_name(&other)
        ))),
    }
}

/// A context entered by [`enter`]; dropping it makes the previous one current again
/// (`_PyContext_Exit`).
pub struct Entered {
    previous: Option<Value>,
}

impl Drop for Entered {
    fn drop(&mut self) {
        let previous = self.previous.take();
        let _ = CURRENT.try_with(|c| {
            let left = c.replace(previous);
            if let Some(ctx) = left.as_ref().and_then(|v| v.native::<ContextObj>()) {
                ctx.entered.set(false);
            }
        });
    }
}

/// Makes `ctx` current until the guard is dropped (`_PyContext_Enter`); None enters a fresh
/// empty context. A context can be entered only once at a time.
pub fn enter(vm: &mut Vm, ctx: Option<&Value>) -> PyResult<Entered> {
    if let Some(c) = ctx {
        let obj = context_of(vm, c)?;
        if obj.entered.get() {
            let shown = vm.repr(c)?;
            return Err(
                vm.runtime_error(format!("cannot enter context: {shown} is already entered"))
            );
        }
        obj.entered.set(true);
    }
    let previous = CURRENT.with(|c| c.replace(ctx.cloned()));
    Ok(Entered { previous })
}

fn lookup(vars: &[(Value, Value)], var: &Value) -> Option<Value> {
    vars.iter().find(|(k, _)| k.is(var)).map(|(_, v)| v.clone())
}

/// Sets (`Some`) or deletes (`None`) `var` in the context `ctx`, copying its variables
/// first if another context still shares them.
fn store(ctx: &ContextObj, var: &Value, value: Option<Value>) {
    let mut vars = ctx.vars.borrow_mut();
    let list = Rc::make_mut(&mut vars);
    let at = list.iter().position(|(k, _)| k.is(var));
    match (at, value) {
        (Some(i), Some(v)) => list[i].1 = v,
        (None, Some(v)) => list.push((var.clone(), v)),
        (Some(i), None) => {
            list.remove(i);
        }
        (None, None) => {}
    }
}

fn var_new(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let given = args.len().saturating_sub(1);
    if given != 1 {
        let text = if given == 0 {
            "ContextVar() takes exactly 1 positional argument (0 given)".to_string()
        } else {
            format!("ContextVar() takes at most 1 positional argument ({given} given)")
        };
        return Err(vm.type_error(text));
    }
    check_kwargs(vm, "ContextVar", kw, &["default"])?;
    if !matches!(args[1], Value::Str(_)) {
        return Err(vm.type_error("context variable name must be a str"));
    }
    let ty = types(vm).var.clone();
    Ok(Value::object(Object::new(
        ty,
        ObjectKind::Other(Box::new(VarObj {
            name: args[1].clone(),
            default: kwarg(kw, "default"),
        })),
    )))
}

/// `ContextVar.get([default])`: the value in the current context, else the argument, else
/// the variable's default, else LookupError.
fn var_get(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    check_kwargs(vm, "ContextVar.get", kw, &[])?;
    check_arity(vm, "get", &args[1..], 0, 1)?;
    let var = var_of(vm, &args[0])?;
    if let Some(v) = current_vars().and_then(|vars| lookup(&vars, &args[0])) {
        return Ok(v);
    }
    if let Some(default) = args.get(1).or(var.default.as_ref()) {
        return Ok(default.clone());
    }
    let ty = vm.types.lookup_error.clone();
    Err(vm.new_exc_args(&ty, vec![args[0].clone()]))
}

fn exactly_one(vm: &Vm, method: &str, args: &[Value]) -> PyResult<()> {
    let given = args.len() - 1;
    if given != 1 {
        return Err(vm.type_error(format!(
            "ContextVar.{method}() takes exactly one argument ({given} given)"
        )));
    }
    Ok(())
}

/// `ContextVar.set(value)`: a Token that remembers the old value.
fn var_set(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    check_kwargs(vm, "ContextVar.set", kw, &[])?;
    exactly_one(vm, "set", args)?;
    var_of(vm, &args[0])?;
    let ctx_value = current_context(vm);
    let ctx = context_of(vm, &ctx_value)?;
    let old_value = lookup(&ctx.vars.borrow(), &args[0]);
    store(ctx, &args[0], Some(args[1].clone()));
    let ty = types(vm).token.clone();
    Ok(Value::object(Object::new(
        ty,
        ObjectKind::Other(Box::new(TokenObj {
            context: ctx_value.clone(),
            var: args[0].clone(),
            old_value,
            used: Cell::new(false),
        })),
    )))
}

/// `ContextVar.reset(token)`: restores the value the token's `set` replaced.
fn var_reset(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    check_kwargs(vm, "ContextVar.reset", kw, &[])?;
    exactly_one(vm, "reset", args)?;
    var_of(vm, &args[0])?;
    let Some(token) = args[1].native::<TokenObj>() else {
        let shown = vm.repr(&args[1])?;
        return Err(vm.type_error(format!("expected an instance of Token, got {shown}")));
    };
    if token.used.get() {
        let shown = vm.repr(&args[1])?;
        return Err(vm.runtime_error(format!("{shown} has already been used once")));
    }
    if !token.var.is(&args[0]) {
        let shown = vm.repr(&args[1])?;
        return Err(vm.value_error(format!("{shown} was created by a different ContextVar")));
    }
    let ctx_value = current_context(vm);
    if !token.context.is(&ctx_value) {
        let shown = vm.repr(&args[1])?;
        return Err(vm.value_error(format!("{shown} was created in a different Context")));
    }
    token.used.set(true);
    store(
        context_of(vm, &ctx_value)?,
        &args[0],
        token.old_value.clone(),
    );
    Ok(Value::None)
}

fn var_repr(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    let var = var_of(vm, &args[0])?;
    let mut text = format!("<ContextVar name={}", vm.repr(&var.name)?);
    if let Some(default) = &var.default {
        text.push_str(&format!(" default={}", vm.repr(default)?));
    }
    text.push_str(&format!(" at {:#x}>", args[0].address()));
    Ok(Value::str(text))
}

fn token_repr(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    let token = token_of(vm, &args[0])?;
    let used = if token.used.get() { " used" } else { "" };
    let var = vm.repr(&token.var)?;
    Ok(Value::str(format!(
        "<Token{used} var={var} at {:#x}>",
        args[0].address()
    )))
}

/// The context's variable key: a ContextVar, else TypeError.
fn key_arg(vm: &mut Vm, key: Option<&Value>) -> PyResult<Value> {
    match key {
        Some(k) if k.native::<VarObj>().is_some() => Ok(k.clone()),
        Some(k) => {
            let shown = vm.repr(k)?;
            Err(vm.type_error(format!("a ContextVar key was expected, got {shown}")))
        }
        None => Err(vm.type_error("get expected at least 1 argument, got 0")),
    }
}

fn vars_of(vm: &Vm, v: &Value) -> PyResult<Vars> {
    Ok(context_of(vm, v)?.vars.borrow().clone())
}

fn context_new(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    if args.len() > 1 || !kw.is_empty() {
        return Err(vm.type_error("Context() does not accept any arguments"));
    }
    Ok(empty_context(vm))
}

/// `Context.run(callable, *args, **kwargs)`: calls it with this context current.
fn context_run(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    if args.len() < 2 {
        return Err(vm.type_error("run() missing 1 required positional argument"));
    }
    let _entered = enter(vm, Some(&args[0]))?;
    vm.call(&args[1], &args[2..], kw)
}

fn context_getitem(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    let key = key_arg(vm, args.get(1))?;
    match lookup(&vars_of(vm, &args[0])?, &key) {
        Some(v) => Ok(v),
        None => Err(vm.key_error(key)),
    }
}

fn context_get(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    check_kwargs(vm, "get", kw, &[])?;
    check_arity(vm, "get", &args[1..], 1, 2)?;
    let key = key_arg(vm, args.get(1))?;
    let found = lookup(&vars_of(vm, &args[0])?, &key);
    Ok(found.unwrap_or_else(|| args.get(2).cloned().unwrap_or(Value::None)))
}

fn context_contains(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    let key = key_arg(vm, args.get(1))?;
    Ok(Value::Bool(lookup(&vars_of(vm, &args[0])?, &key).is_some()))
}

/// The variables, their values, or `(variable, value)` pairs, as a list.
fn context_list(vm: &Vm, v: &Value, part: fn(&(Value, Value)) -> Value) -> PyResult<Value> {
    Ok(Value::list(vars_of(vm, v)?.iter().map(part).collect()))
}

fn context_eq(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    let mine = vars_of(vm, &args[0])?;
    let Some(other) = args.get(1).and_then(|v| v.native::<ContextObj>()) else {
        return Ok(Value::NotImplemented);
    };
    let theirs = other.vars.borrow().clone();
    if mine.len() != theirs.len() {
        return Ok(Value::Bool(false));
    }
    for (var, value) in mine.iter() {
        match lookup(&theirs, var) {
            Some(v) if vm.eq(value, &v)? => {}
            _ => return Ok(Value::Bool(false)),
        }
    }
    Ok(Value::Bool(true))
}

fn class_in(vm: &mut Vm, name: &str) -> Rc<PyType> {
    let ty = make_type(name, vec![vm.types.object.clone()], Layout::Builtin, false);
    vm.set_type_attr(&ty, "__module__", Value::str("_contextvars"));
    ty
}

fn new_types(vm: &mut Vm) -> Types {
    let context = class_in(vm, "Context");
    vm.add_static(&context, "__new__", context_new);
    vm.add_method(&context, "run", context_run);
    vm.add_method(&context, "copy", |vm, a, _| {
        let vars = vars_of(vm, &a[0])?;
        Ok(new_context(vm, vars))
    });
    vm.add_method(&context, "get", context_get);
    vm.add_method(&context, "__getitem__", context_getitem);
    vm.add_method(&context, "__contains__", context_contains);
    vm.add_method(&context, "__len__", |vm, a, _| {
        Ok(Value::Int(vars_of(vm, &a[0])?.len() as i64))
    });
    vm.add_method(&context, "__iter__", |vm, a, _| {
        let keys = context_list(vm, &a[0], |(k, _)| k.clone())?;
        vm.get_iter(&keys)
    });
    vm.add_method(&context, "keys", |vm, a, _| {
        context_list(vm, &a[0], |(k, _)| k.clone())
    });
    vm.add_method(&context, "values", |vm, a, _| {
        context_list(vm, &a[0], |(_, v)| v.clone())
    });
    vm.add_method(&context, "items", |vm, a, _| {
        context_list(vm, &a[0], |(k, v)| Value::tuple(vec![k.clone(), v.clone()]))
    });
    vm.add_method(&context, "__eq__", context_eq);
    vm.set_type_attr(&context, "__hash__", Value::None);

    let var = class_in(vm, "ContextVar");
    vm.add_static(&var, "__new__", var_new);
    vm.add_method(&var, "get", var_get);
    vm.add_method(&var, "set", var_set);
    vm.add_method(&var, "reset", var_reset);
    vm.add_method(&var, "__repr__", var_repr);
    // `ContextVar[str]` in an annotation: apy keeps the class itself.
    vm.add_method(&var, "__class_getitem__", |_, a, _| Ok(a[0].clone()));
    vm.add_getset(&var, "name", |vm, v| Ok(var_of(vm, v)?.name.clone()), None);

    let missing_type = class_in(vm, "Token.MISSING");
    vm.add_method(&missing_type, "__repr__", |_, _, _| {
        Ok(Value::str("<Token.MISSING>"))
    });
    let missing = Value::object(Object::new(missing_type, ObjectKind::Other(Box::new(()))));
    let token = class_in(vm, "Token");
    vm.add_static(&token, "__new__", |vm, _, _| {
        Err(vm.runtime_error("Tokens can only be created by ContextVars"))
    });
    vm.add_method(&token, "__repr__", token_repr);
    vm.set_type_attr(&token, "MISSING", missing.clone());
    vm.add_getset(
        &token,
        "var",
        |vm, v| Ok(token_of(vm, v)?.var.clone()),
        None,
    );
    vm.add_getset(
        &token,
        "old_value",
        |vm, v| {
            let old = token_of(vm, v)?.old_value.clone();
            Ok(old.unwrap_or_else(|| types(vm).missing.clone()))
        },
        None,
    );
    Types {
        context,
        var,
        token,
        missing,
    }
}

/// Builds the `contextvars` module.
pub fn module(vm: &mut Vm) -> Value {
    let t = types(vm);
    let attrs = vec![
        ("Context", Value::Type(t.context.clone())),
        ("ContextVar", Value::Type(t.var.clone())),
        ("Token", Value::Type(t.token.clone())),
        (
            "copy_context",
            vm.native("copy_context", |vm, a, kw| {
                if !a.is_empty() || !kw.is_empty() {
                    return Err(vm.type_error(format!(
                        "_contextvars.copy_context() takes no arguments ({} given)",
                        a.len() + kw.len()
                    )));
                }
                Ok(copy_context(vm))
            }),
        ),
    ];
    vm.new_module("contextvars", attrs)
}
