//! The built-in functions (`print len repr isinstance sorted sum min max round …`), one
//! table of them ([`FUNCTIONS`]) that `builtins::install` puts into the `builtins`
//! namespace. Mirrors `Python/bltinmodule.c`. Works on the VM's value model through `Vm`
//! methods only; never touches frames or bytecode (`globals()` and `locals()` ask the VM
//! for its caller's scope).

use crate::common::int_ops;
use std::rc::Rc;

use super::list_type::sort_values;
use super::std_streams::{Stream, input_line, stream_of, write_stream};
use crate::compile::bytecode::{BinaryOperator, CompareOperator};
use crate::vm::args::{OrRaise, check_arity, check_kwargs, kwarg};
use crate::vm::complex::complex_of;
use crate::vm::dict::StrKeys;
use crate::vm::long_work::{division_steps, words};
use crate::vm::object::{IterState, KwArgs, NativeFn};
use crate::vm::ops::{builtin_value, from_int, to_int};
use crate::vm::value::{PyStr, Value};
use crate::vm::{PyResult, Vm};

/// The built-in functions, by name (`builtin_methods` in `Python/bltinmodule.c`); `next`
/// is the VM's (`vm/iter.rs`), part of the iterator protocol.
pub const FUNCTIONS: &[(&str, NativeFn)] = &[
    ("print", builtin_print),
    ("len", builtin_len),
    ("repr", |vm, args, kw| {
        let v = one_arg(vm, "repr", args, kw)?;
        Ok(Value::str(vm.repr(&v)?))
    }),
    ("ascii", |vm, args, kw| {
        let v = one_arg(vm, "ascii", args, kw)?;
        Ok(Value::str(vm.ascii(&v)?))
    }),
    ("isinstance", builtin_isinstance),
    ("issubclass", builtin_issubclass),
    ("iter", builtin_iter),
    ("next", crate::vm::iter::builtin_next),
    ("sorted", builtin_sorted),
    ("sum", builtin_sum),
    ("min", |vm, args, kw| {
        min_max(vm, args, kw, "min", CompareOperator::Lt)
    }),
    ("max", |vm, args, kw| {
        min_max(vm, args, kw, "max", CompareOperator::Gt)
    }),
    ("abs", builtin_abs),
    ("round", builtin_round),
    ("divmod", builtin_divmod),
    ("pow", builtin_pow),
    ("all", |vm, args, kw| any_all(vm, args, kw, false)),
    ("any", |vm, args, kw| any_all(vm, args, kw, true)),
    ("chr", builtin_chr),
    ("ord", builtin_ord),
    ("hex", |vm, args, kw| int_to_base(vm, args, kw, "hex", 16)),
    ("oct", |vm, args, kw| int_to_base(vm, args, kw, "oct", 8)),
    ("bin", |vm, args, kw| int_to_base(vm, args, kw, "bin", 2)),
    ("hash", |vm, args, kw| {
        let v = one_arg(vm, "hash", args, kw)?;
        Ok(Value::Int(vm.hash(&v)?))
    }),
    ("id", |vm, args, kw| {
        let v = one_arg(vm, "id", args, kw)?;
        Ok(Value::Int(v.address() as i64))
    }),
    ("callable", |vm, args, kw| {
        let v = one_arg(vm, "callable", args, kw)?;
        Ok(Value::Bool(vm.is_callable(&v)))
    }),
    ("getattr", builtin_getattr),
    ("setattr", builtin_setattr),
    ("hasattr", builtin_hasattr),
    ("delattr", builtin_delattr),
    ("format", builtin_format),
    ("input", builtin_input),
    ("breakpoint", super::breakpoint::builtin_breakpoint),
    ("vars", builtin_vars),
    ("globals", |vm, args, kw| {
        check_kwargs(vm, "globals", kw, &[])?;
        check_arity(vm, "globals", args, 0, 0)?;
        Ok(caller_scope(vm).0)
    }),
    ("locals", |vm, args, kw| {
        check_kwargs(vm, "locals", kw, &[])?;
        check_arity(vm, "locals", args, 0, 0)?;
        Ok(caller_scope(vm).1)
    }),
    ("dir", super::dir::builtin_dir),
    ("__build_class__", super::class_build::build_class),
    ("aiter", |vm, args, kw| {
        let v = one_arg(vm, "aiter", args, kw)?;
        vm.builtin_aiter(&v)
    }),
    ("anext", |vm, args, kw| {
        check_kwargs(vm, "anext", kw, &[])?;
        vm.builtin_anext(args)
    }),
];

fn one_arg(vm: &Vm, fname: &str, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    check_kwargs(vm, fname, kw, &[])?;
    check_arity(vm, fname, args, 1, 1)?;
    Ok(args[0].clone())
}

fn builtin_print(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    check_kwargs(vm, "print", kw, &["sep", "end", "file", "flush"])?;
    // No `file`: `sys.stdout`, which a program may have replaced (`redirect_stdout`) or set
    // to None (then print prints nothing, as CPython's does).
    let file = match kwarg(kw, "file").filter(|f| !f.is_none()) {
        Some(file) => file,
        // (`sys.stdout` is looked up once `sys` is imported: until then nothing replaced it.)
        None => match vm.sys_attr("stdout") {
            Some(Value::None) => return Ok(Value::None),
            Some(file) => file,
            None => Value::None,
        },
    };
    let text_arg = |vm: &mut Vm, name: &str, default: &str| -> PyResult<String> {
        match kwarg(kw, name) {
            None | Some(Value::None) => Ok(default.to_string()),
            Some(other) => match other.str_or_subclass() {
                Some(s) => Ok(s.as_str().to_string()),
                None => Err(vm.type_error(format!(
                    "{name} must be None or a string, not {}",
                    vm.type_name(&other)
                ))),
            },
        }
    };
    let sep = text_arg(vm, "sep", " ")?;
    let end = text_arg(vm, "end", "\n")?;
    let stream = match &file {
        Value::None => Some(Stream::Stdout {
            line_buffered: false,
        }),
        file => stream_of(file),
    };
    let mut text = String::new();
    let mut pieces = || -> PyResult<()> {
        for (i, a) in args.iter().enumerate() {
            if i > 0 {
                print_piece(vm, &stream, &file, &mut text, &sep)?;
            }
            match a {
                Value::Str(s) => print_piece(vm, &stream, &file, &mut text, s.as_str())?,
                other => {
                    let s = vm.str_of(other)?;
                    print_piece(vm, &stream, &file, &mut text, s.as_str())?;
                }
            }
        }
        print_piece(vm, &stream, &file, &mut text, &end)
    };
    let printed = pieces();
    // What came before an argument whose `str()` raised is written all the same, as
    // CPython's print writes piece by piece.
    if let Some(stream) = &stream
        && !text.is_empty()
    {
        write_stream(vm, stream, &text)?;
    }
    printed?;
    if let Some(flush) = kwarg(kw, "flush")
        && vm.truthy(&flush)?
    {
        match stream {
            Some(_) => vm.flush_stdout_for_program()?,
            None => {
                vm.call_method(&file, "flush", &[])?;
            }
        }
    }
    Ok(Value::None)
}

/// `sys.displayhook(value)` (and `sys.__displayhook__`): what an expression statement at the
/// REPL's top level, or in `compile(..., "single")` code, hands its value to: `repr(value)`
/// and a newline written to `sys.stdout` (replaced or not), the value kept as `builtins._`;
/// None shows nothing and leaves `_` alone (`Python/sysmodule.c`).
pub fn displayhook(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let value = one_arg(vm, "displayhook", args, kw)?;
    if value.is_none() {
        return Ok(Value::None);
    }
    // `_` is None while the repr runs, so that it cannot see itself.
    let underscore = vm.intern("_");
    vm.builtins
        .table
        .borrow_mut()
        .set_str(underscore.clone(), Value::None);
    let file = match vm.sys_attr("stdout") {
        None | Some(Value::None) => return Err(vm.runtime_error("lost sys.stdout")),
        Some(file) => file,
    };
    let text = vm.repr(&value)?;
    match stream_of(&file) {
        Some(stream) => write_stream(vm, &stream, &format!("{text}\n"))?,
        None => {
            vm.call_method(&file, "write", &[Value::str(text.as_str())])?;
            vm.call_method(&file, "write", &[Value::str("\n")])?;
        }
    }
    vm.builtins.table.borrow_mut().set_str(underscore, value);
    Ok(Value::None)
}

/// One argument, separator or end of a `print`: to a standard `stream`, gathered in `text`
/// and written whole; to a file object of the program's, a `write` of its own, as CPython
/// makes it (the file sees each piece).
fn print_piece(
    vm: &mut Vm,
    stream: &Option<Stream>,
    file: &Value,
    text: &mut String,
    piece: &str,
) -> PyResult<()> {
    match stream {
        Some(_) => text.push_str(piece),
        None => {
            vm.call_method(file, "write", &[Value::str(piece)])?;
        }
    }
    Ok(())
}

fn builtin_len(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let v = one_arg(vm, "len", args, kw)?;
    Ok(Value::Int(vm.len(&v)? as i64))
}

/// `isinstance(obj, info)` when `info` is a class or a tuple of classes without a
/// metaclass (so without an `__instancecheck__` to run); None for any other `info`.
fn plain_isinstance(vm: &Vm, obj: &Value, info: &Value) -> Option<bool> {
    let ty = vm.type_of(obj);
    let plain = |v: &Value| matches!(v, Value::Type(cls) if cls.meta.is_none());
    let is = |v: &Value| matches!(v, Value::Type(cls) if Rc::ptr_eq(ty, cls) || ty.is_subtype(cls));
    let found = match info {
        Value::Type(_) if plain(info) => is(info),
        Value::Tuple(t) if t.items.iter().all(plain) => t.items.iter().any(is),
        _ => return None,
    };
    // A class of the object's own that says another `__class__` asks the slow way.
    (found || !overrides_class(vm, obj)).then_some(found)
}

/// Whether `obj`'s class (a user class) defines `__class__` itself: a property saying the
/// object is of another class (a mock with a spec, a proxy).
fn overrides_class(vm: &Vm, obj: &Value) -> bool {
    let Value::Object(o) = obj else { return false };
    if o.class.builtin {
        return false;
    }
    let name = &vm.names.class;
    let object_class = crate::vm::types::lookup(&vm.types.object, name);
    match (crate::vm::types::lookup(&o.class, name), object_class) {
        (Some(own), Some(object_class)) => !own.is(&object_class),
        (own, _) => own.is_some(),
    }
}

/// The class `obj.__class__` says when it is another than `type(obj)`, which isinstance
/// checks too (`object_isinstance`): a mock's spec class, a proxy's target's class.
fn claimed_class(vm: &mut Vm, obj: &Value) -> PyResult<Option<Rc<crate::vm::object::PyType>>> {
    if !overrides_class(vm, obj) {
        return Ok(None);
    }
    let name = vm.names.class.clone();
    let attribute_error = vm.types.attribute_error.clone();
    match vm.get_attr_opt(obj, &name) {
        Ok(Some(Value::Type(cls))) if !Rc::ptr_eq(&cls, vm.type_of(obj)) => Ok(Some(cls)),
        Ok(_) => Ok(None),
        Err(e) if vm.exc_matches(&e, &attribute_error) => Ok(None),
        Err(e) => Err(e),
    }
}

/// Which of the two checks: its hook's name and its message for a second argument that is
/// no class.
#[derive(Clone, Copy)]
enum ClassCheck {
    Instance,
    Subclass,
}

impl ClassCheck {
    fn name(self) -> &'static str {
        match self {
            ClassCheck::Instance => "isinstance",
            ClassCheck::Subclass => "issubclass",
        }
    }

    fn hook(self) -> &'static str {
        match self {
            ClassCheck::Instance => "__instancecheck__",
            ClassCheck::Subclass => "__subclasscheck__",
        }
    }

    fn not_a_class(self) -> &'static str {
        match self {
            ClassCheck::Instance => {
                "isinstance() arg 2 must be a type, a tuple of types, or a union"
            }
            ClassCheck::Subclass => {
                "issubclass() arg 2 must be a class, a tuple of classes, or a union"
            }
        }
    }
}

/// `PyObject_IsInstance`/`PyObject_IsSubclass` of `subject` against one `info`: a tuple or a
/// union is each of its members in turn; a class or any other object with the hook
/// (`__instancecheck__`, `__subclasscheck__`) on its type answers through it (a metaclass's
/// own, `typing`'s aliases and protocols); a class without one, by its MRO.
fn check_class(vm: &mut Vm, check: ClassCheck, subject: &Value, info: &Value) -> PyResult<bool> {
    if let Some(members) = crate::vm::generics::check_classes(vm, check.name(), info) {
        return any_member(vm, check, subject, &members?);
    }
    if let Value::Tuple(items) = info {
        let items = items.items.to_vec();
        return any_member(vm, check, subject, &items);
    }
    let hook = PyStr::new(check.hook());
    let hook = match info {
        Value::Type(cls) => {
            // `type(obj) is cls` needs no hook (`PyObject_IsInstance`).
            if matches!(check, ClassCheck::Instance) && Rc::ptr_eq(vm.type_of(subject), cls) {
                return Ok(true);
            }
            vm.meta_method(cls, &hook)
        }
        other => vm.special_method(other, &Rc::new(hook)),
    };
    if let Some(hook) = hook {
        let r = vm.call(&hook, &[info.clone(), subject.clone()], &[])?;
        return vm.truthy(&r);
    }
    let Value::Type(cls) = info else {
        return Err(vm.type_error(check.not_a_class()));
    };
    match (check, subject) {
        (ClassCheck::Instance, obj) => {
            if vm.type_of(obj).is_subtype(cls) {
                return Ok(true);
            }
            Ok(claimed_class(vm, obj)?.is_some_and(|claimed| claimed.is_subtype(cls)))
        }
        (ClassCheck::Subclass, Value::Type(sub)) => Ok(sub.is_subtype(cls)),
        (ClassCheck::Subclass, _) => Err(vm.type_error("issubclass() arg 1 must be a class")),
    }
}

fn any_member(
    vm: &mut Vm,
    check: ClassCheck,
    subject: &Value,
    members: &[Value],
) -> PyResult<bool> {
    let while_doing = format!(" in {}", check.hook());
    vm.nested(&while_doing, |vm| {
        for member in members {
            if check_class(vm, check, subject, member)? {
                return Ok(true);
            }
        }
        Ok(false)
    })
}

fn builtin_isinstance(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    if let [obj, info] = args
        && kw.is_empty()
        && let Some(found) = plain_isinstance(vm, obj, info)
    {
        return Ok(Value::Bool(found));
    }
    check_kwargs(vm, "isinstance", kw, &[])?;
    check_arity(vm, "isinstance", args, 2, 2)?;
    let found = check_class(vm, ClassCheck::Instance, &args[0], &args[1])?;
    Ok(Value::Bool(found))
}

fn builtin_issubclass(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    check_kwargs(vm, "issubclass", kw, &[])?;
    check_arity(vm, "issubclass", args, 2, 2)?;
    let found = check_class(vm, ClassCheck::Subclass, &args[0], &args[1])?;
    Ok(Value::Bool(found))
}

fn builtin_iter(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    check_kwargs(vm, "iter", kw, &[])?;
    check_arity(vm, "iter", args, 1, 2)?;
    if args.len() == 2 {
        if !vm.is_callable(&args[0]) {
            return Err(vm.type_error("iter(v, w): v must be callable"));
        }
        return Ok(vm.new_iter(
            &vm.types.callable_iterator.clone(),
            IterState::Callable {
                func: args[0].clone(),
                sentinel: args[1].clone(),
            },
        ));
    }
    vm.get_iter(&args[0])
}

fn builtin_sorted(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    // CPython's sorted() hands its keywords to list.sort(), whose errors name sort().
    check_kwargs(vm, "sort", kw, &["key", "reverse"])?;
    if args.len() != 1 {
        return Err(vm.type_error(format!("sorted expected 1 argument, got {}", args.len())));
    }
    // A new list of the items, as `list(iterable)` makes it (`PySequence_List`).
    let mut items = vm.collect_for_list(&args[0])?.0;
    let key = kwarg(kw, "key").unwrap_or(Value::None);
    let reverse = match kwarg(kw, "reverse") {
        Some(r) => vm.truthy(&r)?,
        None => false,
    };
    sort_values(vm, &mut items, &key, reverse)?;
    Ok(Value::list(items))
}

/// `sum(iterable, start=0)` with CPython's int fast path and compensated float summation.
fn builtin_sum(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    check_kwargs(vm, "sum", kw, &["start"])?;
    check_arity(vm, "sum", args, 1, 2)?;
    let mut result = args
        .get(1)
        .cloned()
        .or_else(|| kwarg(kw, "start"))
        .unwrap_or(Value::Int(0));
    match &result {
        Value::Str(_) => {
            return Err(vm.type_error("sum() can't sum strings [use ''.join(seq) instead]"));
        }
        Value::List(_) | Value::Tuple(_) => {}
        _ => {}
    }
    let it = vm.get_iter(&args[0])?;
    let mut float_sum: Option<(f64, f64)> = None;
    loop {
        let Some(item) = vm.next(&it)? else { break };
        if let Some((f, c)) = &mut float_sum {
            let x = match &item {
                Value::Float(x) => Some(*x),
                Value::Int(n) => Some(*n as f64),
                Value::Bool(b) => Some(*b as i64 as f64),
                _ => None,
            };
            if let Some(x) = x {
                let t = *f + x;
                if f.abs() >= x.abs() {
                    *c += (*f - t) + x;
                } else {
                    *c += (x - t) + *f;
                }
                *f = t;
                continue;
            }
            let total = if *c != 0.0 && c.is_finite() {
                *f + *c
            } else {
                *f
            };
            result = Value::Float(total);
            float_sum = None;
        }
        result = vm.binary_op(BinaryOperator::Add, &result, &item)?;
        if let Value::Float(f) = result {
            float_sum = Some((f, 0.0));
        }
    }
    if let Some((f, c)) = float_sum {
        return Ok(Value::Float(if c != 0.0 && c.is_finite() {
            f + c
        } else {
            f
        }));
    }
    Ok(result)
}

fn min_max(
    vm: &mut Vm,
    args: &[Value],
    kw: &KwArgs,
    name: &str,
    op: CompareOperator,
) -> PyResult<Value> {
    check_kwargs(vm, name, kw, &["key", "default"])?;
    let key = kwarg(kw, "key").unwrap_or(Value::None);
    let default = kwarg(kw, "default");
    let items = match args.len() {
        0 => return Err(vm.type_error(format!("{name} expected at least 1 argument, got 0"))),
        1 => vm.collect_iterable(&args[0])?,
        _ => {
            if default.is_some() {
                return Err(vm.type_error(format!(
                    "Cannot specify a default for {name}() with multiple positional arguments"
                )));
            }
            args.to_vec()
        }
    };
    let mut best: Option<(Value, Value)> = None;
    for item in items {
        let k = if key.is_none() {
            item.clone()
        } else {
            vm.call(&key, std::slice::from_ref(&item), &[])?
        };
        let better = match &best {
            None => true,
            Some((_, bk)) => {
                let r = vm.compare(op, &k, bk)?;
                vm.truthy(&r)?
            }
        };
        if better {
            best = Some((item, k));
        }
    }
    match best {
        Some((v, _)) => Ok(v),
        None => {
            default.ok_or_else(|| vm.value_error(format!("{name}() iterable argument is empty")))
        }
    }
}

pub(super) fn builtin_abs(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let v = one_arg(vm, "abs", args, kw)?;
    Ok(match &v {
        Value::Int(_) | Value::Bool(_) | Value::BigInt(_) => {
            from_int(int_ops::abs(&to_int(&v).unwrap_or(int_ops::Int::Small(0))))
        }
        Value::Float(f) => Value::Float(f.abs()),
        v if let Some(z) = complex_of(v) => Value::Float(z.abs().or_raise(vm)?),
        _ => {
            let name = vm.names.abs.clone();
            match vm.special_method(&v, &name) {
                Some(f) => return vm.call(&f, std::slice::from_ref(&v), &[]),
                // A subclass of int or float that keeps the built-in `__abs__`.
                None if let Some(base) = vm.numeric_base(&v, &name) => {
                    return builtin_abs(vm, &[base], kw);
                }
                None => {
                    return Err(vm.type_error(format!(
                        "bad operand type for abs(): '{}'",
                        vm.type_name(&v)
                    )));
                }
            }
        }
    })
}

pub(super) fn builtin_round(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    check_kwargs(vm, "round", kw, &["number", "ndigits"])?;
    let number = args.first().cloned().or_else(|| kwarg(kw, "number"));
    let Some(number) = number else {
        return Err(vm.type_error("round() missing required argument 'number' (pos 1)"));
    };
    let ndigits = args
        .get(1)
        .cloned()
        .or_else(|| kwarg(kw, "ndigits"))
        .unwrap_or(Value::None);
    let nd = if ndigits.is_none() {
        None
    } else {
        Some(vm.expect_index(&ndigits)?)
    };
    match &number {
        Value::Float(f) => match nd {
            None => int_ops::round_float_to_int(*f)
                .map(from_int)
                .map_err(|e| vm.op_error(e)),
            Some(n) => int_ops::round_float(*f, n)
                .map(Value::Float)
                .map_err(|e| vm.op_error(e)),
        },
        Value::Int(_) | Value::Bool(_) | Value::BigInt(_) => {
            let n = to_int(&number).unwrap_or(int_ops::Int::Small(0));
            Ok(from_int(match nd {
                None => n,
                Some(digits) => int_ops::round_int(&n, &int_ops::Int::Small(digits)),
            }))
        }
        _ => {
            let name = vm.names.round.clone();
            match vm.special_method(&number, &name) {
                Some(f) => {
                    let mut call_args = vec![number.clone()];
                    if !ndigits.is_none() {
                        call_args.push(ndigits);
                    }
                    vm.call(&f, &call_args, &[])
                }
                // A subclass of int or float that keeps the built-in `__round__`.
                None if let Some(base) = vm.numeric_base(&number, &name) => {
                    builtin_round(vm, &[base, ndigits], &[])
                }
                None => Err(vm.type_error(format!(
                    "type {} doesn't define __round__ method",
                    vm.type_name(&number)
                ))),
            }
        }
    }
}

pub(super) fn builtin_divmod(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    check_kwargs(vm, "divmod", kw, &[])?;
    check_arity(vm, "divmod", args, 2, 2)?;
    let (lname, rname) = (vm.intern("__divmod__"), vm.intern("__rdivmod__"));
    let (x, y) = (&args[0], &args[1]);
    // Numbers (and instances of int and float subclasses that keep their `__divmod__`) are
    // divided here; anything else by its `__divmod__`/`__rdivmod__`.
    let (Some(a), Some(b)) = (number_value(vm, x, &lname), number_value(vm, y, &rname)) else {
        return match vm.dunder_binop(x, y, &lname, &rname)? {
            Some(r) => Ok(r),
            None => Err(vm.type_error(format!(
                "unsupported operand type(s) for divmod(): '{}' and '{}'",
                vm.object_type_name(x),
                vm.object_type_name(y)
            ))),
        };
    };
    let (a, b) = (&a, &b);
    if let (Value::Float(_), _) | (_, Value::Float(_)) = (a, b)
        && matches!(b, Value::Float(y) if *y == 0.0) | matches!(b, Value::Int(0))
    {
        return Err(vm.zero_division("float divmod()"));
    }
    let q = vm.binary_op(BinaryOperator::FloorDivide, a, b)?;
    let r = vm.binary_op(BinaryOperator::Remainder, a, b)?;
    Ok(Value::tuple(vec![q, r]))
}

/// `v` when it is an int or a float, or the int or float an instance of a subclass extends
/// when its class keeps the built-in `dunder`.
fn number_value(vm: &Vm, v: &Value, dunder: &Rc<PyStr>) -> Option<Value> {
    match v {
        Value::Int(_) | Value::Bool(_) | Value::BigInt(_) | Value::Float(_) => Some(v.clone()),
        _ => vm.numeric_base(v, dunder),
    }
}

pub(super) fn builtin_pow(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    check_kwargs(vm, "pow", kw, &["base", "exp", "mod"])?;
    let base = args
        .first()
        .cloned()
        .or_else(|| kwarg(kw, "base"))
        .unwrap_or(Value::None);
    let exp = args
        .get(1)
        .cloned()
        .or_else(|| kwarg(kw, "exp"))
        .unwrap_or(Value::None);
    let modulus = args
        .get(2)
        .cloned()
        .or_else(|| kwarg(kw, "mod"))
        .unwrap_or(Value::None);
    if modulus.is_none() {
        return vm.binary_op(BinaryOperator::Power, &base, &exp);
    }
    // As CPython's ternary power: only the base's own `__pow__` is asked (three-argument
    // power has no `__rpow__`), then int's, or float's refusal.
    let name = vm.intern("__pow__");
    if let Some(f @ Value::Function(_)) = vm.special_method(&base, &name) {
        let r = vm.call(&f, &[base.clone(), exp.clone(), modulus.clone()], &[])?;
        if !matches!(r, Value::NotImplemented) {
            return Ok(r);
        }
    }
    // complex's power takes a base and an exponent that are numbers, then refuses the modulus.
    let complex = |v: &Value| complex_of(&builtin_value(v).unwrap_or_else(|| v.clone())).is_some();
    let number = |v: &Value| complex(v) || number_value(vm, v, &name).is_some();
    if (complex(&base) || complex(&exp)) && number(&base) && number(&exp) {
        return Err(vm.value_error("complex modulo"));
    }
    let [b, e, m] = [&base, &exp, &modulus].map(|v| number_value(vm, v, &name));
    // float's power refuses a third argument before it looks at the operands.
    let is_float = |v: &Option<Value>| matches!(v, Some(Value::Float(_)));
    let (Some(b), Some(e), Some(m)) = (
        b.as_ref().and_then(to_int),
        e.as_ref().and_then(to_int),
        m.as_ref().and_then(to_int),
    ) else {
        if is_float(&b) || is_float(&e) || is_float(&m) {
            return Err(
                vm.type_error("pow() 3rd argument not allowed unless all arguments are integers")
            );
        }
        return Err(vm.type_error(format!(
            "unsupported operand type(s) for ** or pow(): '{}', '{}', '{}'",
            vm.object_type_name(&base),
            vm.object_type_name(&exp),
            vm.object_type_name(&modulus)
        )));
    };
    // The base reduced modulo m, then a squaring and a reduction per bit of the exponent.
    let reductions = e.bit_length().saturating_mul(2) as f64;
    let (m_words, b_words) = (words(m.bit_length()), words(b.bit_length()));
    let steps = division_steps(b_words, m_words)
        .saturating_add(division_steps(m_words * reductions, m_words));
    vm.long_work(steps, move || int_ops::pow_mod(&b, &e, &m))?
        .map(from_int)
        .map_err(|err| vm.op_error(err))
}

fn any_all(vm: &mut Vm, args: &[Value], kw: &KwArgs, any: bool) -> PyResult<Value> {
    let v = one_arg(vm, if any { "any" } else { "all" }, args, kw)?;
    let it = vm.get_iter(&v)?;
    while let Some(x) = vm.next(&it)? {
        if vm.truthy(&x)? == any {
            return Ok(Value::Bool(any));
        }
    }
    Ok(Value::Bool(!any))
}

fn builtin_chr(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let v = one_arg(vm, "chr", args, kw)?;
    let n = vm.expect_index(&v)?;
    match u32::try_from(n).ok().filter(|n| *n < 0x110000) {
        Some(n) => match char::from_u32(n) {
            Some(c) => Ok(Value::str(c.to_string())),
            None => Ok(Value::str("\u{fffd}")),
        },
        None => Err(vm.value_error("chr() arg not in range(0x110000)")),
    }
}

fn builtin_ord(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let v = one_arg(vm, "ord", args, kw)?;
    // A bytes or bytearray of one byte gives that byte (`ord(b"a")`), as in CPython.
    if let Some(b) = super::bytes_type::payload(&v) {
        let data = b.data();
        return match data.as_slice() {
            [byte] => Ok(Value::Int(i64::from(*byte))),
            _ => Err(vm.type_error(format!(
                "ord() expected a character, but string of length {} found",
                data.len()
            ))),
        };
    }
    let Some(s) = v.str_or_subclass() else {
        return Err(vm.type_error(format!(
            "ord() expected string of length 1, but {} found",
            vm.type_name(&v)
        )));
    };
    let mut chars = s.as_str().chars();
    match (chars.next(), chars.next()) {
        (Some(c), None) => Ok(Value::Int(c as i64)),
        _ => Err(vm.type_error(format!(
            "ord() expected a character, but string of length {} found",
            s.char_len()
        ))),
    }
}

fn int_to_base(
    vm: &mut Vm,
    args: &[Value],
    kw: &KwArgs,
    name: &str,
    radix: u32,
) -> PyResult<Value> {
    let v = one_arg(vm, name, args, kw)?;
    let n = match to_int(&v) {
        Some(n) => n,
        None => match vm.index_value(&v)? {
            Some(i) => int_ops::Int::Small(i),
            None => {
                return Err(vm.type_error(format!(
                    "'{}' object cannot be interpreted as an integer",
                    vm.type_name(&v)
                )));
            }
        },
    };
    Ok(Value::str(n.to_radix(radix, true)))
}

fn attr_name(vm: &mut Vm, v: &Value) -> PyResult<Rc<crate::vm::value::PyStr>> {
    match v.str_or_subclass() {
        Some(s) => Ok(vm.intern(s.as_str())),
        None => Err(vm.type_error(format!(
            "attribute name must be string, not '{}'",
            vm.type_name(v)
        ))),
    }
}

fn builtin_getattr(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    check_kwargs(vm, "getattr", kw, &[])?;
    check_arity(vm, "getattr", args, 2, 3)?;
    let name = attr_name(vm, &args[1])?;
    match args.get(2) {
        None => vm.get_attr(&args[0], &name),
        Some(default) => match vm.get_attr_opt(&args[0], &name) {
            Ok(Some(v)) => Ok(v),
            Ok(None) => Ok(default.clone()),
            Err(e) if vm.exc_matches(&e, &vm.types.attribute_error.clone()) => Ok(default.clone()),
            Err(e) => Err(e),
        },
    }
}

fn builtin_hasattr(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    check_kwargs(vm, "hasattr", kw, &[])?;
    check_arity(vm, "hasattr", args, 2, 2)?;
    let name = attr_name(vm, &args[1])?;
    match vm.get_attr_opt(&args[0], &name) {
        Ok(found) => Ok(Value::Bool(found.is_some())),
        Err(e) if vm.exc_matches(&e, &vm.types.attribute_error.clone()) => Ok(Value::Bool(false)),
        Err(e) => Err(e),
    }
}

fn builtin_setattr(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    check_kwargs(vm, "setattr", kw, &[])?;
    check_arity(vm, "setattr", args, 3, 3)?;
    let name = attr_name(vm, &args[1])?;
    vm.set_attr(&args[0], &name, args[2].clone())?;
    Ok(Value::None)
}

fn builtin_delattr(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    check_kwargs(vm, "delattr", kw, &[])?;
    check_arity(vm, "delattr", args, 2, 2)?;
    let name = attr_name(vm, &args[1])?;
    vm.del_attr(&args[0], &name)?;
    Ok(Value::None)
}

fn builtin_format(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    check_kwargs(vm, "format", kw, &[])?;
    check_arity(vm, "format", args, 1, 2)?;
    let spec = match args.get(1) {
        None => String::new(),
        Some(Value::Str(s)) => s.as_str().to_string(),
        Some(other) => {
            return Err(vm.type_error(format!(
                "format() argument 2 must be str, not {}",
                vm.arg_type_name(other)
            )));
        }
    };
    vm.format_value(&args[0], &spec)
}

fn builtin_input(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    check_kwargs(vm, "input", kw, &[])?;
    check_arity(vm, "input", args, 0, 1)?;
    if let Some(prompt) = args.first() {
        let p = vm.str_of(prompt)?;
        vm.write_stdout(p.as_str())?;
    }
    input_line(vm)
}

/// `globals()` and `locals()` of the Python code calling: empty dicts when there is none
/// (a callback the event loop runs natively still has its caller's frame below it).
pub(super) fn caller_scope(vm: &Vm) -> (Value, Value) {
    match vm.caller_scope() {
        Some((globals, locals)) => (Value::Dict(globals), locals),
        None => (
            Value::dict(Default::default()),
            Value::dict(Default::default()),
        ),
    }
}

fn builtin_vars(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    check_kwargs(vm, "vars", kw, &[])?;
    check_arity(vm, "vars", args, 0, 1)?;
    if args.is_empty() {
        return Ok(caller_scope(vm).1);
    }
    let key = vm.names.dict.clone();
    // As `PyObject_GetOptionalAttr`: an AttributeError (from `object`'s `__dict__` getter,
    // say) means there is none.
    let attribute_error = vm.types.attribute_error.clone();
    match vm.get_attr_opt(&args[0], &key) {
        Ok(Some(d)) => Ok(d),
        Err(e) if !vm.exc_matches(&e, &attribute_error) => Err(e),
        _ => Err(vm.type_error("vars() argument must have __dict__ attribute")),
    }
}
