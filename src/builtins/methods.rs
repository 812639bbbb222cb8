//! The core methods of the built-in containers that the VM and its tests need
//! (`list.append/sort/…`, `dict.get/items/…`, `set.add/…`), and `sorted()`/`list.sort()`
//! over the runtime library's timsort (`list_sort`). `str` methods live in `str_type`, the
//! set algebra in `set_type`, numbers' methods in `num_type`, `range`'s in `range_type`.

use std::rc::Rc;

use crate::compile::bytecode::CompareOperator;
use crate::vm::args::Signature;
use crate::vm::args::{check_kwargs, kwarg};
use crate::vm::dict::StrKeys;
use crate::vm::object::{DictViewKind, Object, ObjectKind};
use crate::vm::value::{PyDict, PyList, PySet, Value};
use crate::vm::{PyResult, Vm};

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

fn this_list<'a>(vm: &Vm, args: &'a [Value]) -> PyResult<&'a Rc<PyList>> {
    match args.first() {
        Some(Value::List(l)) => Ok(l),
        _ => Err(vm.type_error("descriptor requires a 'list' object")),
    }
}

fn this_dict<'a>(vm: &Vm, args: &'a [Value]) -> PyResult<&'a Rc<PyDict>> {
    match args.first() {
        Some(Value::Dict(d)) => Ok(d),
        _ => Err(vm.type_error("descriptor requires a 'dict' object")),
    }
}

fn this_set<'a>(vm: &Vm, args: &'a [Value]) -> PyResult<&'a Rc<PySet>> {
    match args.first() {
        Some(Value::Set(s)) => Ok(s),
        _ => Err(vm.type_error("descriptor requires a 'set' object")),
    }
}

fn list_methods(vm: &mut Vm) {
    let list = vm.types.list.clone();
    vm.add_method(&list, "append", |vm, args, kw| {
        Signature::one("list", "append").check(vm, &args[1..], kw)?;
        this_list(vm, args)?
            .items
            .borrow_mut()
            .push(args[1].clone());
        Ok(Value::None)
    });
    vm.add_method(&list, "extend", |vm, args, kw| {
        Signature::one("list", "extend").check(vm, &args[1..], kw)?;
        let l = this_list(vm, args)?.clone();
        let items = vm.collect_iterable(args.get(1).unwrap_or(&Value::None))?;
        l.items.borrow_mut().extend(items);
        Ok(Value::None)
    });
    vm.add_method(&list, "pop", |vm, args, kw| {
        Signature::positional("list", "pop", &["index"], 0).check(vm, &args[1..], kw)?;
        let l = this_list(vm, args)?;
        let index = match args.get(1) {
            Some(i) => vm.expect_index(i)?,
            None => -1,
        };
        let mut items = l.items.borrow_mut();
        if items.is_empty() {
            drop(items);
            return Err(vm.index_error("pop from empty list"));
        }
        let n = items.len() as i64;
        let i = if index < 0 { index + n } else { index };
        if i < 0 || i >= n {
            drop(items);
            return Err(vm.index_error("pop index out of range"));
        }
        Ok(items.remove(i as usize))
    });
    vm.add_method(&list, "insert", |vm, args, kw| {
        Signature::positional("list", "insert", &["index", "object"], 2).bind(
            vm,
            &args[1..],
            kw,
        )?;
        let l = this_list(vm, args)?;
        let index = vm.expect_index(&args[1])?;
        let mut items = l.items.borrow_mut();
        let n = items.len() as i64;
        let i = if index < 0 {
            (index + n).max(0)
        } else {
            index.min(n)
        };
        items.insert(i as usize, args[2].clone());
        Ok(Value::None)
    });
    vm.add_method(&list, "remove", |vm, args, kw| {
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
                l.items.borrow_mut().remove(i);
                return Ok(Value::None);
            }
            i += 1;
        }
    });
    vm.add_method(&list, "index", |vm, args, kw| {
        Signature::positional("list", "index", &["value", "start", "stop"], 1).bind(
            vm,
            &args[1..],
            kw,
        )?;
        let l = this_list(vm, args)?.clone();
        let items = l.items.borrow().clone();
        seq_index(vm, &items, args, "list")
    });
    vm.add_method(&list, "count", |vm, args, kw| {
        Signature::one("list", "count").check(vm, &args[1..], kw)?;
        let items = this_list(vm, args)?.items.borrow().clone();
        seq_count(vm, &items, args)
    });
    vm.add_method(&list, "sort", |vm, args, kw| {
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
    });
    vm.add_method(&list, "reverse", |vm, args, kw| {
        Signature::no_args("list", "reverse").check(vm, &args[1..], kw)?;
        this_list(vm, args)?.items.borrow_mut().reverse();
        Ok(Value::None)
    });
    vm.add_method(&list, "copy", |vm, args, kw| {
        Signature::no_args("list", "copy").check(vm, &args[1..], kw)?;
        Ok(Value::list(this_list(vm, args)?.items.borrow().clone()))
    });
    vm.add_method(&list, "clear", |vm, args, kw| {
        Signature::no_args("list", "clear").check(vm, &args[1..], kw)?;
        let old = std::mem::take(&mut *this_list(vm, args)?.items.borrow_mut());
        drop(old);
        Ok(Value::None)
    });
    let tuple = vm.types.tuple.clone();
    vm.add_method(&tuple, "index", |vm, args, kw| {
        Signature::positional("tuple", "index", &["value", "start", "stop"], 1).bind(
            vm,
            &args[1..],
            kw,
        )?;
        let Some(Value::Tuple(t)) = args.first() else {
            return Err(vm.type_error("descriptor requires a 'tuple' object"));
        };
        let items = t.items.to_vec();
        seq_index(vm, &items, args, "tuple")
    });
    vm.add_method(&tuple, "count", |vm, args, kw| {
        Signature::one("tuple", "count").check(vm, &args[1..], kw)?;
        let Some(Value::Tuple(t)) = args.first() else {
            return Err(vm.type_error("descriptor requires a 'tuple' object"));
        };
        let items = t.items.to_vec();
        seq_count(vm, &items, args)
    });
}

fn seq_index(vm: &mut Vm, items: &[Value], args: &[Value], what: &str) -> PyResult<Value> {
    let target = args.get(1).cloned().unwrap_or(Value::None);
    let n = items.len() as i64;
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
        let item = &items[i as usize];
        if item.is(&target) || vm.eq(item, &target)? {
            return Ok(Value::Int(i));
        }
    }
    if what == "list" {
        let r = vm.repr(&target)?;
        return Err(vm.value_error(format!("{r} is not in list")));
    }
    Err(vm.value_error("tuple.index(x): x not in tuple"))
}

fn seq_count(vm: &mut Vm, items: &[Value], args: &[Value]) -> PyResult<Value> {
    let target = args.get(1).cloned().unwrap_or(Value::None);
    let mut count = 0;
    for item in items {
        if item.is(&target) || vm.eq(item, &target)? {
            count += 1;
        }
    }
    Ok(Value::Int(count))
}

fn dict_view(vm: &Vm, d: &Rc<PyDict>, kind: DictViewKind) -> Value {
    let class = match kind {
        DictViewKind::Keys => vm.types.dict_keys.clone(),
        DictViewKind::Values => vm.types.dict_values.clone(),
        DictViewKind::Items => vm.types.dict_items.clone(),
    };
    Value::object(Object::new(
        class,
        ObjectKind::DictView {
            dict: d.clone(),
            kind,
        },
    ))
}

fn dict_methods(vm: &mut Vm) {
    let dict = vm.types.dict.clone();
    vm.add_method(&dict, "get", |vm, args, kw| {
        Signature::positional("dict", "get", &["key", "default"], 1).check(vm, &args[1..], kw)?;
        let d = this_dict(vm, args)?.clone();
        Ok(vm
            .dict_get(&d, &args[1])?
            .unwrap_or_else(|| args.get(2).cloned().unwrap_or(Value::None)))
    });
    vm.add_method(&dict, "keys", |vm, args, kw| {
        Signature::no_args("dict", "keys").check(vm, &args[1..], kw)?;
        Ok(dict_view(vm, this_dict(vm, args)?, DictViewKind::Keys))
    });
    vm.add_method(&dict, "values", |vm, args, kw| {
        Signature::no_args("dict", "values").check(vm, &args[1..], kw)?;
        Ok(dict_view(vm, this_dict(vm, args)?, DictViewKind::Values))
    });
    vm.add_method(&dict, "items", |vm, args, kw| {
        Signature::no_args("dict", "items").check(vm, &args[1..], kw)?;
        Ok(dict_view(vm, this_dict(vm, args)?, DictViewKind::Items))
    });
    vm.add_method(&dict, "setdefault", |vm, args, kw| {
        Signature::positional("dict", "setdefault", &["key", "default"], 1).bind(
            vm,
            &args[1..],
            kw,
        )?;
        let d = this_dict(vm, args)?.clone();
        if let Some(v) = vm.dict_get(&d, &args[1])? {
            return Ok(v);
        }
        let default = args.get(2).cloned().unwrap_or(Value::None);
        vm.dict_set(&d, args[1].clone(), default.clone())?;
        Ok(default)
    });
    vm.add_method(&dict, "update", |vm, args, kw| {
        let d = this_dict(vm, args)?.clone();
        if let Some(other) = args.get(1) {
            vm.dict_update(&d, other)?;
        }
        for (k, v) in kw {
            vm.table_mut(&d.table)?.set_str(k.clone(), v.clone());
        }
        Ok(Value::None)
    });
    vm.add_method(&dict, "pop", |vm, args, kw| {
        Signature::positional("dict", "pop", &["key", "default"], 1).check(vm, &args[1..], kw)?;
        let d = this_dict(vm, args)?.clone();
        match vm.dict_del(&d, &args[1])? {
            Some(v) => Ok(v),
            None => match args.get(2) {
                Some(default) => Ok(default.clone()),
                None => Err(vm.key_error(args[1].clone())),
            },
        }
    });
    vm.add_method(&dict, "popitem", |vm, args, kw| {
        Signature::no_args("dict", "popitem").check(vm, &args[1..], kw)?;
        let d = this_dict(vm, args)?.clone();
        let last = vm.table_mut(&d.table)?.pop_last();
        match last {
            Some((k, v)) => Ok(Value::tuple(vec![k, v])),
            None => Err(vm.key_error(Value::str("popitem(): dictionary is empty"))),
        }
    });
    vm.add_method(&dict, "copy", |vm, args, kw| {
        Signature::no_args("dict", "copy").check(vm, &args[1..], kw)?;
        Ok(Value::dict(this_dict(vm, args)?.table.borrow().clone()))
    });
    vm.add_method(&dict, "clear", |vm, args, kw| {
        Signature::no_args("dict", "clear").check(vm, &args[1..], kw)?;
        let d = this_dict(vm, args)?;
        let old = std::mem::take(&mut *vm.table_mut(&d.table)?);
        drop(old);
        Ok(Value::None)
    });
    vm.add_static(&dict, "fromkeys", |vm, args, kw| {
        Signature::positional("dict", "fromkeys", &["iterable", "value"], 1).check(vm, args, kw)?;
        let keys = vm.collect_iterable(args.first().unwrap_or(&Value::None))?;
        let value = args.get(1).cloned().unwrap_or(Value::None);
        let d = Rc::new(PyDict {
            table: Default::default(),
        });
        for k in keys {
            vm.dict_set(&d, k, value.clone())?;
        }
        Ok(Value::Dict(d))
    });
}

fn set_methods(vm: &mut Vm) {
    let set = vm.types.set.clone();
    vm.add_method(&set, "add", |vm, args, kw| {
        Signature::one("set", "add").check(vm, &args[1..], kw)?;
        let s = this_set(vm, args)?.clone();
        vm.set_add(&s, args[1].clone())?;
        Ok(Value::None)
    });
    vm.add_method(&set, "discard", |vm, args, kw| {
        Signature::one("set", "discard").check(vm, &args[1..], kw)?;
        set_remove(vm, args, false)?;
        Ok(Value::None)
    });
    vm.add_method(&set, "remove", |vm, args, kw| {
        Signature::one("set", "remove").check(vm, &args[1..], kw)?;
        set_remove(vm, args, true)?;
        Ok(Value::None)
    });
    vm.add_method(&set, "pop", |vm, args, kw| {
        Signature::no_args("set", "pop").check(vm, &args[1..], kw)?;
        let s = this_set(vm, args)?;
        let popped = vm.table_mut(&s.table)?.pop();
        match popped {
            Some(key) => Ok(key),
            None => Err(vm.key_error(Value::str("pop from an empty set"))),
        }
    });
    vm.add_method(&set, "clear", |vm, args, kw| {
        Signature::no_args("set", "clear").check(vm, &args[1..], kw)?;
        let set = this_set(vm, args)?;
        let old = std::mem::take(&mut *vm.table_mut(&set.table)?);
        drop(old);
        Ok(Value::None)
    });
}

fn set_remove(vm: &mut Vm, args: &[Value], must_exist: bool) -> PyResult<()> {
    let s = this_set(vm, args)?.clone();
    if !vm.set_discard(&s, &args[1])? && must_exist {
        return Err(vm.key_error(args[1].clone()));
    }
    Ok(())
}

pub fn init(vm: &mut Vm) {
    list_methods(vm);
    dict_methods(vm);
    set_methods(vm);
}
