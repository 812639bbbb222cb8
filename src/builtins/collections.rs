//! The native cores of `collections` and `heapq`: `_collections` (deque) and `_heapq` (the
//! heap operations on a list), as CPython writes them in C; `collections.apy` and
//! `heapq.apy` build the rest of each module on them. asyncio's queues import these cores
//! directly, so `import asyncio` compiles neither library file. Mirrors
//! `Modules/_collectionsmodule.c` and `Modules/_heapqmodule.c` (same comparisons, in the same
//! order, so a printing `__lt__` prints what CPython prints). Works through `Vm` methods.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;

use super::list_type::{seq_count, seq_index};
use crate::compile::bytecode::CompareOperator;
use crate::vm::args::{check_arity, check_kwargs, kwarg};
use crate::vm::object::{KwArgs, Layout, Object, ObjectKind, PyType};
use crate::vm::types::{ClassMemo, lookup, make_type, resolves_to_native};
use crate::vm::value::{PyList, Value};
use crate::vm::{PyResult, Vm};

pub struct Deque {
    items: RefCell<VecDeque<Value>>,
    maxlen: Option<usize>,
}

/// `extend`/`extendleft`: every item of the iterable, each added by `push`.
fn extend(vm: &mut Vm, args: &[Value], push: fn(&Deque, Value)) -> PyResult<Value> {
    let items = vm.collect_iterable(args.get(1).unwrap_or(&Value::None))?;
    let d = deque_of(vm, &args[0])?;
    for v in items {
        push(d, v);
    }
    Ok(Value::None)
}

/// A copy of the items of the deque `args[0]`, to compare with user code running (CPython
/// raises "deque mutated during iteration" when an `__eq__` changes it; apy compares the
/// items it had).
fn deque_items(vm: &Vm, args: &[Value]) -> PyResult<Vec<Value>> {
    Ok(deque_of(vm, &args[0])?
        .items
        .borrow()
        .iter()
        .cloned()
        .collect())
}

fn deque_of<'a>(vm: &Vm, v: &'a Value) -> PyResult<&'a Deque> {
    v.native::<Deque>()
        .ok_or_else(|| vm.type_error("descriptor requires a 'collections.deque' object"))
}

impl Deque {
    pub fn len(&self) -> usize {
        self.items.borrow().len()
    }

    pub fn is_empty(&self) -> bool {
        self.items.borrow().is_empty()
    }

    pub fn pop_front(&self) -> Option<Value> {
        self.items.borrow_mut().pop_front()
    }

    /// `append`: at the right end, dropping from the left beyond `maxlen`.
    pub fn push_back(&self, v: Value) {
        let mut items = self.items.borrow_mut();
        if self.maxlen == Some(0) {
            return;
        }
        items.push_back(v);
        if self.maxlen.is_some_and(|m| items.len() > m) {
            items.pop_front();
        }
    }

    fn push_front(&self, v: Value) {
        let mut items = self.items.borrow_mut();
        if self.maxlen == Some(0) {
            return;
        }
        items.push_front(v);
        if self.maxlen.is_some_and(|m| items.len() > m) {
            items.pop_back();
        }
    }
}

fn deque_new(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    check_kwargs(vm, "deque", kw, &["iterable", "maxlen"])?;
    let Some(Value::Type(cls)) = args.first() else {
        return Err(vm.type_error("deque.__new__(X): X is not a type object"));
    };
    let iterable = args.get(1).cloned().or_else(|| kwarg(kw, "iterable"));
    let maxlen = match args.get(2).cloned().or_else(|| kwarg(kw, "maxlen")) {
        None | Some(Value::None) => None,
        Some(m) => {
            let n = vm.expect_index(&m)?;
            if n < 0 {
                return Err(vm.value_error("maxlen must be non-negative"));
            }
            Some(n as usize)
        }
    };
    let deque = Deque {
        items: RefCell::new(VecDeque::new()),
        maxlen,
    };
    if let Some(it) = iterable {
        for v in vm.collect_iterable(&it)? {
            deque.push_back(v);
        }
    }
    Ok(Value::object(Object::new(
        cls.clone(),
        ObjectKind::Other(Box::new(deque)),
    )))
}

fn deque_repr(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    let d = deque_of(vm, &args[0])?;
    let items: Vec<Value> = d.items.borrow().iter().cloned().collect();
    let maxlen = d.maxlen;
    let inner = vm.repr(&Value::list(items))?;
    Ok(Value::str(match maxlen {
        Some(m) => format!("deque({inner}, maxlen={m})"),
        None => format!("deque({inner})"),
    }))
}

fn empty_error(vm: &Vm, what: &str) -> crate::vm::Exc {
    vm.index_error(format!("{what} from an empty deque"))
}

fn deque_len(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    Ok(Value::Int(deque_of(vm, &args[0])?.len() as i64))
}

fn deque_append(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    check_arity(vm, "append", args, 2, 2)?;
    deque_of(vm, &args[0])?.push_back(args[1].clone());
    Ok(Value::None)
}

fn deque_popleft(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    let popped = deque_of(vm, &args[0])?.pop_front();
    popped.ok_or_else(|| empty_error(vm, "pop"))
}

thread_local! {
    static PLAIN_DEQUE: ClassMemo = const { ClassMemo::new() };
}

/// The deque `v` when its class still has the native `__len__`, `append` and `popleft` and
/// no `__bool__` (a plain `collections.deque`, or a subclass that changes none of them):
/// native callers (asyncio's Queue) may then use it directly, as those methods would.
pub fn plain_deque<'a>(vm: &mut Vm, v: &'a Value) -> Option<&'a Deque> {
    let Value::Object(o) = v else {
        return None;
    };
    let deque = v.native::<Deque>()?;
    let plain = PLAIN_DEQUE.with(|memo| {
        memo.passes(&o.class, |class| {
            let (len, bool_) = (vm.names.len.clone(), vm.names.bool_.clone());
            let (append, popleft) = (vm.intern("append"), vm.intern("popleft"));
            lookup(class, &bool_).is_none()
                && resolves_to_native(class, &len, deque_len)
                && resolves_to_native(class, &append, deque_append)
                && resolves_to_native(class, &popleft, deque_popleft)
        })
    });
    plain.then_some(deque)
}

/// The deque type's length slot (`PyType::native_len`): a plain deque's, read in place.
fn plain_deque_len(vm: &mut Vm, v: &Value) -> Option<usize> {
    plain_deque(vm, v).map(Deque::len)
}

fn deque_type(vm: &mut Vm) -> Rc<PyType> {
    let ty = make_type(
        "deque",
        vec![vm.types.object.clone()],
        Layout::Builtin,
        false,
    );
    vm.set_type_attr(&ty, "__module__", Value::str("collections"));
    ty.native_len.set(Some(plain_deque_len));
    ty.match_flags.set(crate::vm::object::MATCH_SEQUENCE);
    vm.add_static(&ty, "__new__", deque_new);
    vm.add_method(&ty, "__repr__", deque_repr);
    vm.add_method(&ty, "__class_getitem__", crate::vm::generics::class_getitem);
    vm.add_method(&ty, "__len__", deque_len);
    vm.add_method(&ty, "__iter__", |vm, args, _| {
        let items: Vec<Value> = deque_of(vm, &args[0])?
            .items
            .borrow()
            .iter()
            .cloned()
            .collect();
        vm.get_iter(&Value::list(items))
    });
    vm.add_method(&ty, "__contains__", |vm, args, _| {
        let items: Vec<Value> = deque_of(vm, &args[0])?
            .items
            .borrow()
            .iter()
            .cloned()
            .collect();
        let item = args.get(1).cloned().unwrap_or(Value::None);
        Ok(Value::Bool(vm.contains(&Value::list(items), &item)?))
    });
    vm.add_method(&ty, "__getitem__", |vm, args, _| {
        let d = deque_of(vm, &args[0])?;
        let i = vm.expect_index(args.get(1).unwrap_or(&Value::None))?;
        let items = d.items.borrow();
        let n = items.len() as i64;
        let j = if i < 0 { i + n } else { i };
        match items.get(j as usize).filter(|_| j >= 0) {
            Some(v) => Ok(v.clone()),
            None => {
                drop(items);
                Err(vm.index_error("deque index out of range"))
            }
        }
    });
    vm.add_method(&ty, "count", |vm, args, _| {
        check_arity(vm, "deque.count", args, 2, 2)?;
        let items = deque_items(vm, args)?;
        seq_count(vm, &|i| items.get(i).cloned(), args)
    });
    vm.add_method(&ty, "index", |vm, args, _| {
        check_arity(vm, "index", args, 2, 4)?;
        let items = deque_items(vm, args)?;
        seq_index(vm, &|i| items.get(i).cloned(), items.len(), args, "deque")
    });
    vm.add_method(&ty, "remove", |vm, args, _| {
        check_arity(vm, "remove", args, 2, 2)?;
        let items = deque_items(vm, args)?;
        let found = seq_index(vm, &|i| items.get(i).cloned(), items.len(), args, "deque")?;
        let Value::Int(at) = found else {
            return Ok(Value::None);
        };
        let mut items = deque_of(vm, &args[0])?.items.borrow_mut();
        let removed = items.remove(at as usize);
        drop(items);
        drop(removed);
        Ok(Value::None)
    });
    vm.add_method(&ty, "append", deque_append);
    vm.add_method(&ty, "appendleft", |vm, args, _| {
        check_arity(vm, "appendleft", args, 2, 2)?;
        deque_of(vm, &args[0])?.push_front(args[1].clone());
        Ok(Value::None)
    });
    vm.add_method(&ty, "extend", |vm, args, _| {
        extend(vm, args, Deque::push_back)
    });
    vm.add_method(&ty, "extendleft", |vm, args, _| {
        extend(vm, args, Deque::push_front)
    });
    vm.add_method(&ty, "pop", |vm, args, _| {
        let popped = deque_of(vm, &args[0])?.items.borrow_mut().pop_back();
        popped.ok_or_else(|| empty_error(vm, "pop"))
    });
    vm.add_method(&ty, "popleft", deque_popleft);
    vm.add_method(&ty, "clear", |vm, args, _| {
        let old = std::mem::take(&mut *deque_of(vm, &args[0])?.items.borrow_mut());
        drop(old);
        Ok(Value::None)
    });
    vm.add_method(&ty, "rotate", |vm, args, _| {
        let n = match args.get(1) {
            Some(v) => vm.expect_index(v)?,
            None => 1,
        };
        let d = deque_of(vm, &args[0])?;
        let mut items = d.items.borrow_mut();
        let len = items.len() as i64;
        if len > 0 {
            let k = n.rem_euclid(len) as usize;
            items.rotate_right(k);
        }
        Ok(Value::None)
    });
    vm.add_getset(
        &ty,
        "maxlen",
        |vm, v| {
            Ok(deque_of(vm, v)?
                .maxlen
                .map_or(Value::None, |m| Value::Int(m as i64)))
        },
        None,
    );
    ty
}

pub fn collections_module(vm: &mut Vm) -> Value {
    let deque = deque_type(vm);
    vm.new_module("_collections", vec![("deque", Value::Type(deque))])
}

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

/// `heapq._siftdown`.
fn sift_down(vm: &mut Vm, heap: &mut [Value], start: usize, mut pos: usize) -> PyResult<()> {
    let item = heap[pos].clone();
    while pos > start {
        let parent = (pos - 1) >> 1;
        if less(vm, &item, &heap[parent])? {
            heap[pos] = heap[parent].clone();
            pos = parent;
            continue;
        }
        break;
    }
    heap[pos] = item;
    Ok(())
}

/// `heapq._siftup`.
fn sift_up(vm: &mut Vm, heap: &mut [Value], mut pos: usize) -> PyResult<()> {
    let end = heap.len();
    let start = pos;
    let item = heap[pos].clone();
    let mut child = 2 * pos + 1;
    while child < end {
        let right = child + 1;
        if right < end && !less(vm, &heap[child], &heap[right])? {
            child = right;
        }
        heap[pos] = heap[child].clone();
        pos = child;
        child = 2 * pos + 1;
    }
    heap[pos] = item;
    sift_down(vm, heap, start, pos)
}

/// Runs `f` on a copy of the list's items and stores the result back.
fn with_heap<T>(
    vm: &mut Vm,
    fname: &str,
    list: &Value,
    f: impl FnOnce(&mut Vm, &mut Vec<Value>) -> PyResult<T>,
) -> PyResult<T> {
    let l = heap_list(vm, fname, list)?.clone();
    let mut items = l.items.borrow().clone();
    let result = f(vm, &mut items);
    *l.items.borrow_mut() = items;
    result
}

pub fn heapq_module(vm: &mut Vm) -> Value {
    let attrs = vec![
        (
            "heappush",
            vm.native("heappush", |vm, args, _| {
                check_arity(vm, "heappush", args, 2, 2)?;
                let item = args[1].clone();
                with_heap(vm, "heappush", &args[0], |vm, heap| {
                    heap.push(item);
                    let last = heap.len() - 1;
                    sift_down(vm, heap, 0, last)
                })?;
                Ok(Value::None)
            }),
        ),
        (
            "heappop",
            vm.native("heappop", |vm, args, _| {
                check_arity(vm, "heappop", args, 1, 1)?;
                with_heap(vm, "heappop", &args[0], |vm, heap| {
                    let Some(last) = heap.pop() else {
                        return Err(vm.index_error("index out of range"));
                    };
                    if heap.is_empty() {
                        return Ok(last);
                    }
                    let top = std::mem::replace(&mut heap[0], last);
                    sift_up(vm, heap, 0)?;
                    Ok(top)
                })
            }),
        ),
        (
            "heapify",
            vm.native("heapify", |vm, args, _| {
                check_arity(vm, "heapify", args, 1, 1)?;
                with_heap(vm, "heapify", &args[0], |vm, heap| {
                    for i in (0..heap.len() / 2).rev() {
                        sift_up(vm, heap, i)?;
                    }
                    Ok(())
                })?;
                Ok(Value::None)
            }),
        ),
        (
            "heappushpop",
            vm.native("heappushpop", |vm, args, _| {
                check_arity(vm, "heappushpop", args, 2, 2)?;
                let item = args[1].clone();
                with_heap(vm, "heappushpop", &args[0], |vm, heap| {
                    if !heap.is_empty() && less(vm, &heap[0], &item)? {
                        let top = std::mem::replace(&mut heap[0], item);
                        sift_up(vm, heap, 0)?;
                        return Ok(top);
                    }
                    Ok(item)
                })
            }),
        ),
        (
            "heapreplace",
            vm.native("heapreplace", |vm, args, _| {
                check_arity(vm, "heapreplace", args, 2, 2)?;
                let item = args[1].clone();
                with_heap(vm, "heapreplace", &args[0], |vm, heap| {
                    if heap.is_empty() {
                        return Err(vm.index_error("index out of range"));
                    }
                    let top = std::mem::replace(&mut heap[0], item);
                    sift_up(vm, heap, 0)?;
                    Ok(top)
                })
            }),
        ),
    ];
    vm.new_module("_heapq", attrs)
}
