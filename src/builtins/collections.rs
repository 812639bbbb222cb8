//! The native cores of `collections` and `heapq`: `_collections` (deque, in `deque.rs`;
//! OrderedDict's views and iterators, as `odictobject.c` names them; a named tuple's
//! field descriptor, `_tuplegetter`) and `_heapq` (the heap operations on a list), as CPython writes them in C;
//! `collections.apy` and `heapq.apy` build the rest of each module on them. asyncio's queues
//! import these cores directly, so `import asyncio` compiles neither library file. The heap
//! functions mirror `Modules/_heapqmodule.c`: they work on the list in place, compare in
//! the same order (so a printing `__lt__` prints what CPython prints) and stop with
//! "list changed size during iteration" when a comparison grew or shrank the list.

use std::rc::Rc;

use crate::compile::bytecode::BinaryOperator;
use crate::compile::bytecode::CompareOperator;
use crate::vm::args::check_arity;
use crate::vm::object::{DictViewKind, KwArgs, Layout, Object, ObjectKind, PyType};
use crate::vm::types::make_type;
use crate::vm::value::{PyDict, PyList, Value};
use crate::vm::{PyResult, Vm};

pub fn collections_module(vm: &mut Vm) -> Value {
    let deque = super::deque::deque_type(vm);
    let tuplegetter = tuplegetter_type(vm);
    let count_elements = vm.native("_count_elements", count_elements);
    let odict_view = vm.native("_odict_view", odict_view);
    let odict_iter = vm.native("_odict_iter", odict_iter);
    vm.new_module(
        "_collections",
        vec![
            ("deque", Value::Type(deque)),
            ("_count_elements", count_elements),
            ("_odict_view", odict_view),
            ("_odict_iter", odict_iter),
            ("_tuplegetter", Value::Type(tuplegetter)),
        ],
    )
}

/// A named tuple's field (`_tuplegetter`, `Modules/_collectionsmodule.c`): a read-only
/// data descriptor giving item `index` of the tuple, natively (a field is read often).
struct TupleGetter {
    index: usize,
    /// `__doc__`, which a program may replace (urllib.parse documents its fields).
    doc: std::cell::RefCell<Value>,
}

fn tuplegetter_type(vm: &mut Vm) -> Rc<PyType> {
    let object = vm.types.object.clone();
    // Not `builtin` in apy's sense: its `__get__` is found by lookup, like a class's.
    let ty = make_type("_tuplegetter", vec![object], Layout::Builtin, false);
    vm.set_type_attr(&ty, "__module__", Value::str("collections"));
    vm.add_static(&ty, "__new__", |vm, args, _| {
        check_arity(vm, "_tuplegetter", args, 3, 3)?;
        let Value::Type(class) = &args[0] else {
            return Err(vm.type_error("_tuplegetter.__new__(X): X is not a type object"));
        };
        let index = vm.expect_ssize(&args[1])?.max(0) as usize;
        let getter = TupleGetter {
            index,
            doc: std::cell::RefCell::new(args[2].clone()),
        };
        Ok(Value::object(Object::new(
            class.clone(),
            ObjectKind::Other(Box::new(getter)),
        )))
    });
    vm.add_method(&ty, "__get__", |vm, args, _| {
        let getter = this_getter(vm, args)?;
        let obj = args.get(1).unwrap_or(&Value::None);
        let tuple = match obj {
            Value::Tuple(t) => t.clone(),
            _ => match crate::vm::ops::builtin_value(obj) {
                Some(Value::Tuple(t)) => t,
                _ if obj.is_none() => return Ok(args[0].clone()),
                _ => {
                    return Err(vm.type_error(format!(
                        "descriptor for index '{}' for tuple subclasses doesn't apply to '{}' \
                         object",
                        getter.index,
                        vm.type_name(obj)
                    )));
                }
            },
        };
        (tuple.items.get(getter.index).cloned())
            .ok_or_else(|| vm.index_error("tuple index out of range"))
    });
    vm.add_method(&ty, "__set__", |vm, args, _| {
        this_getter(vm, args)?;
        Err(vm.attribute_error("can't set attribute"))
    });
    vm.add_method(&ty, "__delete__", |vm, args, _| {
        this_getter(vm, args)?;
        Err(vm.attribute_error("can't delete attribute"))
    });
    vm.add_method(&ty, "__reduce__", |vm, args, _| {
        let getter = this_getter(vm, args)?;
        let state = vec![Value::Int(getter.index as i64), getter.doc.borrow().clone()];
        let class = Value::Type(vm.type_of(&args[0]).clone());
        Ok(Value::tuple(vec![class, Value::tuple(state)]))
    });
    vm.add_method(&ty, "__repr__", |vm, args, _| {
        let getter = this_getter(vm, args)?;
        let doc = getter.doc.borrow().clone();
        let doc = vm.repr(&doc)?;
        Ok(Value::str(format!("_tuplegetter({}, {doc})", getter.index)))
    });
    vm.add_getset(
        &ty,
        "__doc__",
        |vm, v| {
            Ok(this_getter(vm, std::slice::from_ref(v))?
                .doc
                .borrow()
                .clone())
        },
        Some(|vm, v, doc| {
            *this_getter(vm, std::slice::from_ref(v))?.doc.borrow_mut() = doc;
            Ok(())
        }),
    );
    ty
}

fn this_getter<'a>(vm: &Vm, args: &'a [Value]) -> PyResult<&'a TupleGetter> {
    args.first()
        .and_then(|v| v.native::<TupleGetter>())
        .ok_or_else(|| vm.type_error("descriptor requires a '_tuplegetter' object"))
}

/// The dict an OrderedDict (`args[0]`, an instance of a dict subclass) extends.
fn odict_dict(vm: &Vm, args: &[Value], name: &str) -> PyResult<Rc<PyDict>> {
    check_arity(vm, name, args, 2, 2)?;
    match crate::vm::ops::builtin_value(&args[0]) {
        Some(Value::Dict(d)) => Ok(d),
        _ => Err(vm.type_error(format!("{name}() needs an OrderedDict"))),
    }
}

/// `_odict_view(od, n)`: what an OrderedDict's `keys()` (n 0), `values()` (1) or `items()`
/// (2) give, a view of class `odict_keys`, `odict_values` or `odict_items`
/// (`odictobject.c`), subclasses of the dict views whose iterators are `odict_iterator`s.
fn odict_view(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    let dict = odict_dict(vm, args, "_odict_view")?;
    let t = &vm.types;
    let (class, kind) = match args[1] {
        Value::Int(1) => (t.odict_values.clone(), DictViewKind::Values),
        Value::Int(2) => (t.odict_items.clone(), DictViewKind::Items),
        _ => (t.odict_keys.clone(), DictViewKind::Keys),
    };
    Ok(Value::object(Object::new(
        class,
        ObjectKind::DictView { dict, kind },
    )))
}

/// `_odict_iter(od, reverse)`: `iter(od)` or `reversed(od)`, an `odict_iterator` over its
/// keys.
fn odict_iter(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let dict = odict_dict(vm, args, "_odict_iter")?;
    if vm.truthy(&args[1])? {
        return Ok(super::classes::reversed_dict(
            vm,
            dict,
            DictViewKind::Keys,
            true,
        ));
    }
    let keys = odict_view(vm, &[args[0].clone(), Value::Int(0)], kw)?;
    vm.get_iter(&keys)
}

/// `_count_elements(mapping, iterable)`: `mapping[elem] = mapping.get(elem, 0) + 1` for
/// each element, what `Counter.update` counts with (CPython's C helper in
/// `_collectionsmodule.c`). On a dict, or a subclass that keeps dict's `__setitem__` and
/// `get` (a Counter), the dict is updated directly; otherwise through those methods.
fn count_elements(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    check_arity(vm, "_count_elements", args, 2, 2)?;
    let (mapping, iterable) = (&args[0], &args[1]);
    let base = crate::vm::ops::builtin_value(mapping);
    let dict = match base.as_ref().unwrap_or(mapping) {
        Value::Dict(d) if base.is_none() || keeps_dict_methods(vm, mapping) => Some(d.clone()),
        _ => None,
    };
    let iterator = vm.get_iter(iterable)?;
    let one = Value::Int(1);
    while let Some(elem) = vm.next(&iterator)? {
        match &dict {
            Some(d) => {
                let count = match vm.dict_get(d, &elem)? {
                    Some(n) => vm.binary_op(BinaryOperator::Add, &n, &one)?,
                    None => one.clone(),
                };
                vm.dict_set(d, elem, count)?;
            }
            None => {
                let n = vm.call_method(mapping, "get", &[elem.clone(), Value::Int(0)])?;
                let count = vm.binary_op(BinaryOperator::Add, &n, &one)?;
                vm.set_item(mapping, &elem, count)?;
            }
        }
    }
    Ok(Value::None)
}

/// Whether the class of `mapping` (a dict subclass instance) takes `__setitem__` and `get`
/// from dict, so that updating its dict directly is what calling them would do.
fn keeps_dict_methods(vm: &mut Vm, mapping: &Value) -> bool {
    let dict_type = vm.types.dict.clone();
    ["__setitem__", "get"].iter().all(|name| {
        let name = vm.intern(name);
        let mine = crate::vm::types::lookup(vm.type_of(mapping), &name);
        let dicts = crate::vm::types::lookup(&dict_type, &name);
        match (mine, dicts) {
            (Some(a), Some(b)) => a.is(&b),
            _ => false,
        }
    })
}

/// `a < b`, as `PyObject_RichCompareBool(a, b, Py_LT)`.
fn less(vm: &mut Vm, a: &Value, b: &Value) -> PyResult<bool> {
    let r = vm.compare(CompareOperator::Lt, a, b)?;
    vm.truthy(&r)
}

fn heap_list<'a>(vm: &Vm, fname: &str, v: &'a Value) -> PyResult<&'a Rc<PyList>> {
    match v {
        Value::List(l) => Ok(l),
        other => Err(vm.type_error(format!(
            "{fname}() argument 1 must be list, not {}",
            vm.type_name(other)
        ))),
    }
}

fn item_at(heap: &PyList, i: usize) -> Value {
    heap.items.borrow().get(i).cloned().unwrap_or(Value::None)
}

fn len(heap: &PyList) -> usize {
    heap.items.borrow().len()
}

/// `a < b` for the items at `i` and `j`, then the check that the comparison left the
/// list's length at `size`.
fn less_at(vm: &mut Vm, heap: &PyList, i: usize, j: usize, size: usize) -> PyResult<bool> {
    let (a, b) = (item_at(heap, i), item_at(heap, j));
    let r = less(vm, &a, &b)?;
    if len(heap) != size {
        return Err(vm.runtime_error("list changed size during iteration"));
    }
    Ok(r)
}

/// `_siftdown`: the item at `pos` moves towards `start` past every parent greater than it.
fn sift_down(vm: &mut Vm, heap: &PyList, start: usize, mut pos: usize) -> PyResult<()> {
    let size = len(heap);
    if pos >= size {
        return Err(vm.index_error("list index out of range"));
    }
    while pos > start {
        let parent = (pos - 1) >> 1;
        if !less_at(vm, heap, pos, parent, size)? {
            break;
        }
        heap.items.borrow_mut().swap(parent, pos);
        pos = parent;
    }
    Ok(())
}

/// `_siftup`: the smaller child moves up into `pos` until a leaf is reached, then the item
/// sifts down into place.
fn sift_up(vm: &mut Vm, heap: &PyList, mut pos: usize) -> PyResult<()> {
    let end = len(heap);
    let start = pos;
    if pos >= end {
        return Err(vm.index_error("list index out of range"));
    }
    let limit = end >> 1;
    while pos < limit {
        vm.charge(1)?;
        let mut child = 2 * pos + 1;
        if child + 1 < end && !less_at(vm, heap, child, child + 1, end)? {
            child += 1;
        }
        heap.items.borrow_mut().swap(child, pos);
        pos = child;
    }
    sift_down(vm, heap, start, pos)
}

/// Replaces the heap's top with `item` and restores the heap: the old top.
fn replace_top(vm: &mut Vm, heap: &PyList, item: Value) -> PyResult<Value> {
    let top = {
        let mut items = heap.items.borrow_mut();
        let Some(first) = items.first_mut() else {
            drop(items);
            return Err(vm.index_error("index out of range"));
        };
        std::mem::replace(first, item)
    };
    sift_up(vm, heap, 0)?;
    Ok(top)
}

pub fn heapq_module(vm: &mut Vm) -> Value {
    let attrs = vec![
        (
            "heappush",
            vm.native("heappush", |vm, args, _| {
                check_arity(vm, "heappush", args, 2, 2)?;
                let heap = heap_list(vm, "heappush", &args[0])?;
                heap.items.borrow_mut().push(args[1].clone());
                sift_down(vm, heap, 0, len(heap) - 1)?;
                Ok(Value::None)
            }),
        ),
        (
            "heappop",
            vm.native("heappop", |vm, args, _| {
                check_arity(vm, "heappop", args, 1, 1)?;
                let heap = heap_list(vm, "heappop", &args[0])?;
                let Some(last) = heap.items.borrow_mut().pop() else {
                    return Err(vm.index_error("index out of range"));
                };
                if len(heap) == 0 {
                    return Ok(last);
                }
                replace_top(vm, heap, last)
            }),
        ),
        (
            "heapify",
            vm.native("heapify", |vm, args, _| {
                check_arity(vm, "heapify", args, 1, 1)?;
                let heap = heap_list(vm, "heapify", &args[0])?;
                for i in (0..len(heap) / 2).rev() {
                    sift_up(vm, heap, i)?;
                }
                Ok(Value::None)
            }),
        ),
        (
            "heappushpop",
            vm.native("heappushpop", |vm, args, _| {
                check_arity(vm, "heappushpop", args, 2, 2)?;
                let heap = heap_list(vm, "heappushpop", &args[0])?;
                let item = args[1].clone();
                if len(heap) == 0 || !less(vm, &item_at(heap, 0), &item)? {
                    return Ok(item);
                }
                replace_top(vm, heap, item)
            }),
        ),
        (
            "heapreplace",
            vm.native("heapreplace", |vm, args, _| {
                check_arity(vm, "heapreplace", args, 2, 2)?;
                let heap = heap_list(vm, "heapreplace", &args[0])?;
                replace_top(vm, heap, args[1].clone())
            }),
        ),
    ];
    vm.new_module("_heapq", attrs)
}
