//! `list`: its constructor and its methods, in one table ([`METHODS`]), and `sorted()`'s and
//! `list.sort()`'s sort over the runtime library's timsort (`common::list_sort`). Mirrors
//! `Objects/listobject.c` (`list_methods`). Operators (`+`, `*`, `==`, `in`, `[i]`): the
//! VM's protocol in `vm/ops.rs`; `repr`: `vm/repr.rs`. Installs itself with [`init`].

use std::rc::Rc;

use crate::common::sizes::grow_for;
use crate::compile::bytecode::CompareOperator;
use crate::vm::args::{OrRaise, Signature, check_arity, check_kwargs, kwarg, split_cls};
use crate::vm::call::instance_of_subclass;
use crate::vm::object::{KwArgs, NativeFn};
use crate::vm::value::{PyList, Value};
use crate::vm::{PyResult, Vm};

/// The methods of `list`, by name.
const METHODS: &[(&str, NativeFn)] = &[
    ("append", append),
    ("extend", extend),
    ("pop", pop),
    ("insert", insert),
    ("remove", remove),
    ("index", index),
    ("count", count),
    ("sort", sort),
    ("reverse", reverse),
    ("copy", copy),
    ("clear", clear),
];

/// Installs `list`'s constructor and methods.
pub fn init(vm: &mut Vm) {
    let list = vm.types.list.clone();
    vm.add_static(&list, "__new__", list_new);
    // Mutable containers fill subclass instances in `__init__`, as CPython does.
    vm.add_method(&list, "__init__", list_init);
    vm.add_methods(&list, METHODS);
    // Unhashable, as `collections.abc.Hashable` sees it.
    vm.set_type_attr(&list, "__hash__", Value::None);
}

fn list_new(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let (cls, args) = split_cls(vm, args)?;
    if !cls.builtin {
        // A subclass instance starts empty; `list.__init__` fills it.
        return Ok(instance_of_subclass(&cls, Value::list(vec![])));
    }
    check_kwargs(vm, "list", kw, &[])?;
    check_arity(vm, "list", args, 0, 1)?;
    let list = Rc::new(PyList::new(vec![]));
    if let Some(v) = args.first() {
        let (items, hint) = vm.collect_for_list(v)?;
        list.extend(items, hint).or_raise(vm)?;
    }
    Ok(Value::List(list))
}

fn list_init(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    check_kwargs(vm, "list", kw, &[])?;
    check_arity(vm, "list", &args[1..], 0, 1)?;
    let Some(Value::List(l)) = args.first() else {
        return Ok(Value::None);
    };
    let (items, hint) = match args.get(1) {
        Some(v) => vm.collect_for_list(v)?,
        None => (vec![], 0),
    };
    drop(l.take_all());
    l.extend(items, hint).or_raise(vm)?;
    Ok(Value::None)
}

fn this_list<'a>(vm: &Vm, args: &'a [Value]) -> PyResult<&'a Rc<PyList>> {
    match args.first() {
        Some(Value::List(l)) => Ok(l),
        _ => Err(vm.type_error("descriptor requires a 'list' object")),
    }
}

fn append(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    Signature::one("list", "append").check(vm, &args[1..], kw)?;
    this_list(vm, args)?.append(args[1].clone()).or_raise(vm)?;
    Ok(Value::None)
}

fn extend(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    Signature::one("list", "extend").check(vm, &args[1..], kw)?;
    let l = this_list(vm, args)?.clone();
    let (items, hint) = vm.collect_for_list(args.get(1).unwrap_or(&Value::None))?;
    l.extend(items, hint).or_raise(vm)?;
    Ok(Value::None)
}

fn pop(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    Signature::positional("list", "pop", &["index"], 0).check(vm, &args[1..], kw)?;
    let l = this_list(vm, args)?;
    let index = match args.get(1) {
        Some(i) => vm.expect_ssize(i)?,
        None => -1,
    };
    let n = l.items.borrow().len() as i64;
    if n == 0 {
        return Err(vm.index_error("pop from empty list"));
    }
    let i = if index < 0 { index + n } else { index };
    if i < 0 || i >= n {
        return Err(vm.index_error("pop index out of range"));
    }
    Ok(l.remove_at(i as usize))
}

fn insert(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    Signature::positional("list", "insert", &["index", "object"], 2).bind(vm, &args[1..], kw)?;
    let l = this_list(vm, args)?;
    let index = vm.expect_ssize(&args[1])?;
    let mut items = l.items.borrow_mut();
    let n = items.len() as i64;
    let i = if index < 0 {
        (index + n).max(0)
    } else {
        index.min(n)
    };
    grow_for(&mut items, 1).or_raise(vm)?;
    items.insert(i as usize, args[2].clone());
    l.note_growth(n as usize, n as usize + 1);
    Ok(Value::None)
}

fn remove(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    Signature::one("list", "remove").check(vm, &args[1..], kw)?;
    let l = this_list(vm, args)?.clone();
    let target = args.get(1).cloned().unwrap_or(Value::None);
    let mut i = 0;
    loop {
        let item = l.items.borrow().get(i).cloned();
        let Some(item) = item else {
            return Err(vm.value_error("list.remove(x): x not in list"));
        };
        if item.is(&target) || vm.eq(&item, &target)? {
            drop(l.remove_at(i));
            return Ok(Value::None);
        }
        i += 1;
    }
}

fn index(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    Signature::positional("list", "index", &["value", "start", "stop"], 1).bind(
        vm,
        &args[1..],
        kw,
    )?;
    let l = this_list(vm, args)?.clone();
    let len = l.items.borrow().len();
    seq_index(vm, &|i| l.items.borrow().get(i).cloned(), len, args, "list")
}

fn count(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    Signature::one("list", "count").check(vm, &args[1..], kw)?;
    let l = this_list(vm, args)?.clone();
    seq_count(vm, &|i| l.items.borrow().get(i).cloned(), args)
}

fn sort(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    check_kwargs(vm, "sort", kw, &["key", "reverse"])?;
    if args.len() > 1 {
        return Err(vm.type_error("sort() takes no positional arguments"));
    }
    let l = this_list(vm, args)?.clone();
    let key = kwarg(kw, "key").unwrap_or(Value::None);
    let reverse = match kwarg(kw, "reverse") {
        Some(r) => vm.truthy(&r)?,
        None => false,
    };
    let mut items = std::mem::take(&mut *l.items.borrow_mut());
    let result = sort_values(vm, &mut items, &key, reverse);
    let modified = !l.items.borrow().is_empty();
    *l.items.borrow_mut() = items;
    result?;
    if modified {
        return Err(vm.value_error("list modified during sort"));
    }
    Ok(Value::None)
}

fn reverse(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    Signature::no_args("list", "reverse").check(vm, &args[1..], kw)?;
    this_list(vm, args)?.items.borrow_mut().reverse();
    Ok(Value::None)
}

fn copy(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    Signature::no_args("list", "copy").check(vm, &args[1..], kw)?;
    Ok(Value::list(this_list(vm, args)?.items.borrow().clone()))
}

fn clear(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    Signature::no_args("list", "clear").check(vm, &args[1..], kw)?;
    drop(this_list(vm, args)?.take_all());
    Ok(Value::None)
}

/// `seq.index(value[, start[, stop]])` for `list`, `tuple` and `deque`: `item(i)` reads the
/// i-th item as it is now (a list an `__eq__` shortens stops the search, as in CPython);
/// `len` is the length when the call began, which the bounds are taken against.
pub fn seq_index(
    vm: &mut Vm,
    item: &dyn Fn(usize) -> Option<Value>,
    len: usize,
    args: &[Value],
    what: &str,
) -> PyResult<Value> {
    let target = args.get(1).cloned().unwrap_or(Value::None);
    let n = len as i64;
    let bound = |vm: &mut Vm, v: Option<&Value>, default: i64| -> PyResult<i64> {
        match v {
            None => Ok(default),
            Some(v) => {
                let i = vm.expect_index(v)?;
                Ok(if i < 0 { (i + n).max(0) } else { i.min(n) })
            }
        }
    };
    let start = bound(vm, args.get(2), 0)?;
    let stop = bound(vm, args.get(3), n)?;
    for i in start..stop {
        let Some(found) = item(i as usize) else {
            break;
        };
        if found.is(&target) || vm.eq(&found, &target)? {
            return Ok(Value::Int(i));
        }
    }
    if what == "tuple" {
        return Err(vm.value_error("tuple.index(x): x not in tuple"));
    }
    let r = vm.repr(&target)?;
    Err(vm.value_error(format!("{r} is not in {what}")))
}

/// `seq.count(value)` for `list`, `tuple` and `deque`, reading items as [`seq_index`] does.
pub fn seq_count(
    vm: &mut Vm,
    item: &dyn Fn(usize) -> Option<Value>,
    args: &[Value],
) -> PyResult<Value> {
    let target = args.get(1).cloned().unwrap_or(Value::None);
    let mut count = 0;
    let mut i = 0;
    while let Some(found) = item(i) {
        if found.is(&target) || vm.eq(&found, &target)? {
            count += 1;
        }
        i += 1;
    }
    Ok(Value::Int(count))
}

/// Sorts `items` stably by `key` with `<` only, as `list.sort` does (the runtime library's
/// timsort, so a printing `__lt__` prints what CPython prints); errors propagate.
pub fn sort_values(
    vm: &mut Vm,
    items: &mut Vec<Value>,
    key: &Value,
    reverse: bool,
) -> PyResult<()> {
    let keys = if key.is_none() {
        items.clone()
    } else {
        let mut keys = Vec::with_capacity(items.len());
        for item in items.iter() {
            keys.push(vm.call(key, std::slice::from_ref(item), &[])?);
        }
        keys
    };
    let mut pairs: Vec<(Value, Value)> = keys.into_iter().zip(items.drain(..)).collect();
    if reverse {
        pairs.reverse();
    }
    crate::common::list_sort::timsort(&mut pairs, |a, b| less(vm, &a.0, &b.0))?;
    if reverse {
        pairs.reverse();
    }
    items.extend(pairs.into_iter().map(|(_, v)| v));
    Ok(())
}

fn less(vm: &mut Vm, a: &Value, b: &Value) -> PyResult<bool> {
    // A long sort stops at the limits too (one step per comparison).
    vm.charge(1)?;
    match (a, b) {
        (Value::Int(x), Value::Int(y)) => Ok(x < y),
        (Value::Float(x), Value::Float(y)) => Ok(x < y),
        (Value::Str(x), Value::Str(y)) => Ok(x.as_str() < y.as_str()),
        _ => {
            let r = vm.compare(CompareOperator::Lt, a, b)?;
            vm.truthy(&r)
        }
    }
}
