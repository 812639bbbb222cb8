//! `collections.deque` and its two iterators, natively, as CPython writes them in
//! `Modules/_collectionsmodule.c`: the same methods, the same `maxlen` rules (an append past
//! it drops from the other end), the same messages, and the same guard against a deque that
//! changes while it is walked. Like CPython's, a deque counts the changes of its length
//! (`state`): an iterator, `in`, `count`, `index` and `remove` compare one item at a time,
//! in place, and stop with "deque mutated during iteration" when an `__eq__` (or the loop's
//! body) appended or popped meanwhile.
//!
//! The items live in a `VecDeque`, borrowed only between calls into user code.

use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::rc::Rc;

use crate::common::sizes::repeat_items;
use crate::compile::bytecode::CompareOperator;
use crate::vm::args::{check_arity, kwarg};
use crate::vm::object::{KwArgs, Layout, Object, ObjectKind, PyType};
use crate::vm::types::{ClassMemo, lookup, make_type, resolves_to_native};
use crate::vm::value::Value;
use crate::vm::{Exc, PyResult, Vm};

pub struct Deque {
    items: RefCell<VecDeque<Value>>,
    maxlen: Cell<Option<usize>>,
    /// Bumped by every change of length (and every rotation), as CPython's `state`: what
    /// an iterator or a comparing loop started with tells it whether the deque changed.
    state: Cell<u64>,
}

impl Deque {
    fn new() -> Deque {
        Deque {
            items: RefCell::new(VecDeque::new()),
            maxlen: Cell::new(None),
            state: Cell::new(0),
        }
    }

    fn changed(&self) {
        self.state.set(self.state.get().wrapping_add(1));
    }

    pub fn len(&self) -> usize {
        self.items.borrow().len()
    }

    pub fn is_empty(&self) -> bool {
        self.items.borrow().is_empty()
    }

    pub fn pop_front(&self) -> Option<Value> {
        let popped = self.items.borrow_mut().pop_front();
        if popped.is_some() {
            self.changed();
        }
        popped
    }

    fn pop_back(&self) -> Option<Value> {
        let popped = self.items.borrow_mut().pop_back();
        if popped.is_some() {
            self.changed();
        }
        popped
    }

    /// `append`: at the right end, dropping from the left beyond `maxlen`. What is dropped
    /// is released after the borrow ends (its `__del__` may look at the deque).
    pub fn push_back(&self, v: Value) {
        let dropped = {
            let mut items = self.items.borrow_mut();
            items.push_back(v);
            match self.maxlen.get() {
                Some(m) if items.len() > m => items.pop_front(),
                _ => None,
            }
        };
        self.changed();
        drop(dropped);
    }

    /// `appendleft`: at the left end, dropping from the right beyond `maxlen`.
    fn push_front(&self, v: Value) {
        let dropped = {
            let mut items = self.items.borrow_mut();
            items.push_front(v);
            match self.maxlen.get() {
                Some(m) if items.len() > m => items.pop_back(),
                _ => None,
            }
        };
        self.changed();
        drop(dropped);
    }

    /// The item at `i` from the left, if there is one.
    pub fn get(&self, i: usize) -> Option<Value> {
        self.items.borrow().get(i).cloned()
    }

    /// Reads the items in place; `read` must not run Python code (which could change them).
    pub fn with_items<R>(&self, read: impl FnOnce(&VecDeque<Value>) -> R) -> R {
        read(&self.items.borrow())
    }

    fn snapshot(&self) -> Vec<Value> {
        self.items.borrow().iter().cloned().collect()
    }

    fn clear(&self) {
        let old = std::mem::take(&mut *self.items.borrow_mut());
        self.changed();
        drop(old);
    }

    /// `rotate(n)`: `n` steps to the right (left when negative).
    fn rotate(&self, n: i64) {
        let mut items = self.items.borrow_mut();
        let len = items.len() as i64;
        if len > 1 {
            items.rotate_right(n.rem_euclid(len) as usize);
            drop(items);
            self.changed();
        }
    }

    /// Removes the item at `i` (in range), as `del d[i]` does.
    fn remove_at(&self, i: usize) {
        let mut items = self.items.borrow_mut();
        let removed = match i {
            0 => items.pop_front(),
            _ => items.remove(i),
        };
        drop(items);
        self.changed();
        drop(removed);
    }
}

fn deque_of<'a>(vm: &Vm, v: &'a Value) -> PyResult<&'a Deque> {
    v.native::<Deque>()
        .ok_or_else(|| vm.type_error("descriptor requires a 'collections.deque' object"))
}

fn mutated(vm: &Vm) -> Exc {
    vm.runtime_error("deque mutated during iteration")
}

/// `item == target` as `PyObject_RichCompareBool` sees it: the same object is equal.
fn same_or_equal(vm: &mut Vm, item: &Value, target: &Value) -> PyResult<bool> {
    Ok(item.is(target) || vm.eq(item, target)?)
}

/// A subscript's index (`d[i]`), counted from the end when negative: CPython's
/// "sequence index must be integer" for a non-integer, IndexError out of range.
fn item_index(vm: &mut Vm, d: &Deque, key: &Value) -> PyResult<usize> {
    let Some(i) = vm.index_value(key)? else {
        return Err(vm.type_error(format!(
            "sequence index must be integer, not '{}'",
            vm.type_name(key)
        )));
    };
    let n = d.len() as i64;
    let j = if i < 0 { i + n } else { i };
    if !(0..n).contains(&j) {
        return Err(vm.index_error("deque index out of range"));
    }
    Ok(j as usize)
}

/// `maxlen` as `deque()` takes it: None, or a non-negative int.
fn parse_maxlen(vm: &mut Vm, v: Option<Value>) -> PyResult<Option<usize>> {
    match v {
        None | Some(Value::None) => Ok(None),
        Some(m) => {
            let Some(n) = vm.index_value(&m)? else {
                return Err(vm.type_error("an integer is required"));
            };
            if n < 0 {
                return Err(vm.value_error("maxlen must be non-negative"));
            }
            Ok(Some(n as usize))
        }
    }
}

/// A new deque of `cls`; an instance of a subclass has a `__dict__` too.
fn new_deque(cls: &Rc<PyType>, deque: Deque) -> Value {
    let kind = ObjectKind::Other(Box::new(deque));
    match is_plain_deque_type(cls) {
        true => Value::object(Object::new(cls.clone(), kind)),
        false => Value::object(Object::with_dict(cls.clone(), kind)),
    }
}

fn is_plain_deque_type(class: &Rc<PyType>) -> bool {
    TYPES.with(|t| {
        t.borrow()
            .as_ref()
            .is_some_and(|t| Rc::ptr_eq(&t.deque, class))
    })
}

fn deque_new(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    let Some(Value::Type(cls)) = args.first() else {
        return Err(vm.type_error("deque.__new__(X): X is not a type object"));
    };
    Ok(new_deque(cls, Deque::new()))
}

/// `deque.__init__(iterable=(), maxlen=None)`: sets `maxlen`, empties the deque and
/// extends it (so calling it again starts afresh).
fn deque_init(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    for (k, _) in kw {
        if !matches!(k.as_str(), "iterable" | "maxlen") {
            return Err(vm.type_error(format!(
                "deque() got an unexpected keyword argument '{}'",
                k.as_str()
            )));
        }
    }
    if args.len() - 1 + kw.len() > 2 {
        return Err(vm.type_error(format!(
            "deque() takes at most 2 arguments ({} given)",
            args.len() - 1 + kw.len()
        )));
    }
    let iterable = args.get(1).cloned().or_else(|| kwarg(kw, "iterable"));
    let maxlen = parse_maxlen(vm, args.get(2).cloned().or_else(|| kwarg(kw, "maxlen")))?;
    let d = deque_of(vm, &args[0])?;
    d.maxlen.set(maxlen);
    if !d.is_empty() {
        d.clear();
    }
    if let Some(iterable) = iterable {
        extend_with(vm, &args[0], &iterable, Deque::push_back)?;
    }
    Ok(Value::None)
}

/// `extend`/`extendleft`: every item of `iterable`, each added by `push` as it comes. A
/// deque extended by itself takes a copy of its items first.
fn extend_with(
    vm: &mut Vm,
    this: &Value,
    iterable: &Value,
    push: fn(&Deque, Value),
) -> PyResult<()> {
    if iterable.is(this) {
        let d = deque_of(vm, this)?;
        for v in d.snapshot() {
            push(d, v);
        }
        return Ok(());
    }
    let it = vm.get_iter(iterable)?;
    while let Some(v) = vm.next(&it)? {
        vm.charge(1)?;
        push(deque_of(vm, this)?, v);
    }
    Ok(())
}

/// The first index in `start..stop` whose item equals `target`, comparing in place
/// (CPython's `deque_index`, `deque_contains` and `deque_remove` loops): `Err` from a
/// comparison or when the deque changed during one (`on_change` decides the error and
/// whether a match found in the changed deque still counts).
fn find(
    vm: &mut Vm,
    d: &Deque,
    target: &Value,
    range: (usize, usize),
    on_change: fn(&Vm) -> Exc,
    match_first: bool,
) -> PyResult<Option<usize>> {
    let start_state = d.state.get();
    for i in range.0..range.1 {
        let Some(item) = d.get(i) else {
            break;
        };
        // The same object is equal without a call: no user code runs, nothing can change.
        if item.is(target) {
            return Ok(Some(i));
        }
        vm.charge(1)?;
        let equal = vm.eq(&item, target)?;
        if equal && match_first {
            return Ok(Some(i));
        }
        if d.state.get() != start_state {
            return Err(on_change(vm));
        }
        if equal {
            return Ok(Some(i));
        }
    }
    Ok(None)
}

fn not_in_deque(vm: &mut Vm, target: &Value) -> PyResult<Exc> {
    let shown = vm.repr(target)?;
    Ok(vm.value_error(format!("{shown} is not in deque")))
}

fn deque_repr(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    let this = &args[0];
    let d = deque_of(vm, this)?;
    let (items, maxlen) = (d.snapshot(), d.maxlen.get());
    let name = vm.type_of(this).name();
    let name = name.rsplit('.').next().unwrap_or(&name).to_string();
    let Some(inner) = vm.guarded_repr(this, |vm| vm.repr(&Value::list(items)))? else {
        return Ok(Value::str("[...]"));
    };
    Ok(Value::str(match maxlen {
        Some(m) => format!("{name}({inner}, maxlen={m})"),
        None => format!("{name}({inner})"),
    }))
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
    check_arity(vm, "popleft", args, 1, 1)?;
    let popped = deque_of(vm, &args[0])?.pop_front();
    popped.ok_or_else(|| vm.index_error("pop from an empty deque"))
}

/// A copy of `this` of the same class: `deque(d, maxlen)` for a plain deque, else the
/// class called as CPython's `deque_copy` calls it.
fn copy_of(vm: &mut Vm, this: &Value) -> PyResult<Value> {
    let d = deque_of(vm, this)?;
    let class = vm.type_of(this).clone();
    if is_plain_deque_type(&class) {
        let copy = Deque::new();
        copy.maxlen.set(d.maxlen.get());
        *copy.items.borrow_mut() = d.items.borrow().clone();
        return Ok(new_deque(&class, copy));
    }
    let args = match d.maxlen.get() {
        Some(m) => vec![this.clone(), Value::Int(m as i64)],
        None => vec![this.clone()],
    };
    vm.call(&Value::Type(class), &args, &[])
}

/// Whether `other` might answer a binary operator itself (`__r*__` on a class of its
/// own): then `deque op other` is NotImplemented, so that it is asked.
pub(crate) fn other_may_answer(vm: &mut Vm, other: &Value, reflected: &str) -> bool {
    let class = vm.type_of(other).clone();
    let name = vm.intern(reflected);
    !class.builtin && lookup(&class, &name).is_some()
}

fn deque_add(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    check_arity(vm, "__add__", args, 2, 2)?;
    let (this, other) = (&args[0], &args[1]);
    if other.native::<Deque>().is_none() {
        if other_may_answer(vm, other, "__radd__") {
            return Ok(Value::NotImplemented);
        }
        return Err(vm.type_error(format!(
            "can only concatenate deque (not \"{}\") to deque",
            vm.type_name(other)
        )));
    }
    let result = copy_of(vm, this)?;
    extend_with(vm, &result, other, Deque::push_back)?;
    Ok(result)
}

/// How many times `d * n` repeats: `None` when `n` is no integer.
pub(crate) fn repeat_count(vm: &mut Vm, n: &Value) -> PyResult<Option<i64>> {
    match n {
        Value::Int(_) | Value::Bool(_) | Value::BigInt(_) => vm.index_value(n),
        _ if vm.type_of(n).builtin => vm.index_value(n),
        _ => Ok(None),
    }
}

/// `d *= n` in place: the items `n` times over, keeping the last `maxlen` of them.
fn repeat_in_place(vm: &mut Vm, this: &Value, n: i64) -> PyResult<()> {
    let d = deque_of(vm, this)?;
    if n <= 0 || d.is_empty() {
        if !d.is_empty() {
            d.clear();
        }
        return Ok(());
    }
    let items = d.snapshot();
    let count = n as usize;
    let repeated = match d.maxlen.get() {
        // Only the last `maxlen` survive: no more copies than fill it once over.
        Some(m) => {
            let copies = count.min(m / items.len() + 1);
            let mut all = repeat_items(&items, copies).map_err(|e| vm.op_error(e))?;
            let keep = all.len().saturating_sub(m);
            all.drain(..keep);
            all
        }
        None => repeat_items(&items, count).map_err(|e| vm.op_error(e))?,
    };
    vm.charge(repeated.len() as u64)?;
    let d = deque_of(vm, this)?;
    let old = std::mem::replace(&mut *d.items.borrow_mut(), repeated.into());
    d.changed();
    drop(old);
    Ok(())
}

fn deque_mul(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    check_arity(vm, "__mul__", args, 2, 2)?;
    let (this, other) = (&args[0], &args[1]);
    let Some(n) = repeat_count(vm, other)? else {
        if other_may_answer(vm, other, "__rmul__") {
            return Ok(Value::NotImplemented);
        }
        return Err(vm.type_error(format!(
            "can't multiply sequence by non-int of type '{}'",
            vm.type_name(other)
        )));
    };
    let result = copy_of(vm, this)?;
    repeat_in_place(vm, &result, n)?;
    Ok(result)
}

fn deque_imul(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    check_arity(vm, "__imul__", args, 2, 2)?;
    let (this, other) = (&args[0], &args[1]);
    let Some(n) = repeat_count(vm, other)? else {
        return Err(vm.type_error(format!(
            "can't multiply sequence by non-int of type '{}'",
            vm.type_name(other)
        )));
    };
    repeat_in_place(vm, this, n)?;
    Ok(this.clone())
}

/// `==`, `<`, …: item by item as two lists compare; NotImplemented unless both are deques.
fn compare(vm: &mut Vm, args: &[Value], op: CompareOperator) -> PyResult<Value> {
    let (Some(a), Some(b)) = (
        args[0].native::<Deque>(),
        args.get(1).and_then(|v| v.native()),
    ) else {
        return Ok(Value::NotImplemented);
    };
    let b: &Deque = b;
    let (xs, ys) = (Value::list(a.snapshot()), Value::list(b.snapshot()));
    vm.compare(op, &xs, &ys)
}

fn deque_iter(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    make_iterator(vm, &args[0], false)
}

fn deque_reversed(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    make_iterator(vm, &args[0], true)
}

/// `_collections._deque_iterator` (or `_deque_reverse_iterator`): walks its deque by
/// position, `counter` items to go, while the deque's `state` is the one it began with.
struct DequeIter {
    deque: Value,
    index: Cell<usize>,
    counter: Cell<usize>,
    state: u64,
    reverse: bool,
}

/// The deque type and its two iterator types, made once per interpreter thread.
struct Types {
    deque: Rc<PyType>,
    iterators: [Rc<PyType>; 2],
}

thread_local! {
    static TYPES: RefCell<Option<Types>> = const { RefCell::new(None) };
}

fn make_iterator(vm: &mut Vm, this: &Value, reverse: bool) -> PyResult<Value> {
    let d = deque_of(vm, this)?;
    let len = d.len();
    let iter = DequeIter {
        deque: this.clone(),
        index: Cell::new(if reverse { len.wrapping_sub(1) } else { 0 }),
        counter: Cell::new(len),
        state: d.state.get(),
        reverse,
    };
    let ty = TYPES.with(|t| {
        t.borrow()
            .as_ref()
            .map(|t| t.iterators[reverse as usize].clone())
    });
    let ty = ty.ok_or_else(|| vm.runtime_error("deque iterators are not set up"))?;
    Ok(Value::object(Object::new(
        ty,
        ObjectKind::Other(Box::new(iter)),
    )))
}

fn iter_of<'a>(vm: &Vm, v: &'a Value) -> PyResult<&'a DequeIter> {
    v.native::<DequeIter>()
        .ok_or_else(|| vm.type_error("descriptor requires a '_collections._deque_iterator'"))
}

fn iter_next(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    let it = iter_of(vm, &args[0])?;
    let d = deque_of(vm, &it.deque)?;
    if d.state.get() != it.state {
        it.counter.set(0);
        return Err(mutated(vm));
    }
    if it.counter.get() == 0 {
        return Err(vm.stop_iteration(Value::None));
    }
    let i = it.index.get();
    let item = d.get(i).unwrap_or(Value::None);
    it.index.set(match it.reverse {
        true => i.wrapping_sub(1),
        false => i + 1,
    });
    it.counter.set(it.counter.get() - 1);
    Ok(item)
}

fn iter_self(_: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    Ok(args[0].clone())
}

fn iter_length_hint(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    Ok(Value::Int(iter_of(vm, &args[0])?.counter.get() as i64))
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

/// The start and stop of `index(x, start, stop)`, clamped into the deque as slices are.
fn index_range(vm: &mut Vm, args: &[Value], n: usize) -> PyResult<(usize, usize)> {
    let n = n as i64;
    let mut bound = |v: Option<&Value>, default: i64| -> PyResult<i64> {
        let Some(v) = v else {
            return Ok(default);
        };
        let i = vm.expect_index(v)?;
        Ok(if i < 0 { (i + n).max(0) } else { i })
    };
    let start = bound(args.get(2), 0)?;
    let stop = bound(args.get(3), n)?.min(n);
    Ok((start.min(stop) as usize, stop as usize))
}

/// `remove(x)`: the first item equal to `x` leaves. (A change made by the comparison that
/// matched is an IndexError here, as in CPython.)
fn deque_remove(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    check_arity(vm, "remove", args, 2, 2)?;
    let d = deque_of(vm, &args[0])?;
    let changed = |vm: &Vm| vm.index_error("deque mutated during iteration");
    match find(vm, d, &args[1], (0, d.len()), changed, false)? {
        Some(i) => {
            d.remove_at(i);
            Ok(Value::None)
        }
        None => Err(not_in_deque(vm, &args[1])?),
    }
}

const METHODS: &[(&str, crate::vm::object::NativeFn)] = &[
    ("__init__", deque_init),
    ("__repr__", deque_repr),
    ("__len__", deque_len),
    ("__iter__", deque_iter),
    ("__reversed__", deque_reversed),
    ("append", deque_append),
    ("popleft", deque_popleft),
    ("__add__", deque_add),
    ("__mul__", deque_mul),
    ("__rmul__", deque_mul),
    ("__imul__", deque_imul),
    ("__eq__", |vm, args, _| {
        compare(vm, args, CompareOperator::Eq)
    }),
    ("__ne__", |vm, args, _| {
        compare(vm, args, CompareOperator::Ne)
    }),
    ("__lt__", |vm, args, _| {
        compare(vm, args, CompareOperator::Lt)
    }),
    ("__le__", |vm, args, _| {
        compare(vm, args, CompareOperator::Le)
    }),
    ("__gt__", |vm, args, _| {
        compare(vm, args, CompareOperator::Gt)
    }),
    ("__ge__", |vm, args, _| {
        compare(vm, args, CompareOperator::Ge)
    }),
    ("copy", |vm, args, _| copy_of(vm, &args[0])),
    ("__copy__", |vm, args, _| copy_of(vm, &args[0])),
    ("__contains__", |vm, args, _| {
        check_arity(vm, "__contains__", args, 2, 2)?;
        let d = deque_of(vm, &args[0])?;
        let found = find(vm, d, &args[1], (0, d.len()), mutated, true)?;
        Ok(Value::Bool(found.is_some()))
    }),
    ("count", |vm, args, _| {
        check_arity(vm, "count", args, 2, 2)?;
        let d = deque_of(vm, &args[0])?;
        let start_state = d.state.get();
        let mut count = 0;
        for i in 0..d.len() {
            vm.charge(1)?;
            let Some(item) = d.get(i) else {
                break;
            };
            count += same_or_equal(vm, &item, &args[1])? as i64;
            if d.state.get() != start_state {
                return Err(mutated(vm));
            }
        }
        Ok(Value::Int(count))
    }),
    ("index", |vm, args, _| {
        check_arity(vm, "index", args, 2, 4)?;
        let d = deque_of(vm, &args[0])?;
        let range = index_range(vm, args, d.len())?;
        match find(vm, d, &args[1], range, mutated, true)? {
            Some(i) => Ok(Value::Int(i as i64)),
            None => Err(not_in_deque(vm, &args[1])?),
        }
    }),
    ("remove", deque_remove),
    ("__getitem__", |vm, args, _| {
        check_arity(vm, "__getitem__", args, 2, 2)?;
        let d = deque_of(vm, &args[0])?;
        let i = item_index(vm, d, &args[1])?;
        Ok(d.get(i).unwrap_or(Value::None))
    }),
    ("__setitem__", |vm, args, _| {
        check_arity(vm, "__setitem__", args, 3, 3)?;
        let d = deque_of(vm, &args[0])?;
        let i = item_index(vm, d, &args[1])?;
        let old = std::mem::replace(&mut d.items.borrow_mut()[i], args[2].clone());
        drop(old);
        Ok(Value::None)
    }),
    ("__delitem__", |vm, args, _| {
        check_arity(vm, "__delitem__", args, 2, 2)?;
        let d = deque_of(vm, &args[0])?;
        let i = item_index(vm, d, &args[1])?;
        d.remove_at(i);
        Ok(Value::None)
    }),
    ("insert", |vm, args, _| {
        check_arity(vm, "insert", args, 3, 3)?;
        let d = deque_of(vm, &args[0])?;
        let n = d.len() as i64;
        if d.maxlen.get() == Some(n as usize) {
            return Err(vm.index_error("deque already at its maximum size"));
        }
        let i = vm.expect_index(&args[1])?;
        let at = if i < 0 { (i + n).max(0) } else { i.min(n) };
        d.items.borrow_mut().insert(at as usize, args[2].clone());
        d.changed();
        Ok(Value::None)
    }),
    ("appendleft", |vm, args, _| {
        check_arity(vm, "appendleft", args, 2, 2)?;
        deque_of(vm, &args[0])?.push_front(args[1].clone());
        Ok(Value::None)
    }),
    ("extend", |vm, args, _| {
        check_arity(vm, "extend", args, 2, 2)?;
        extend_with(vm, &args[0], &args[1], Deque::push_back)?;
        Ok(Value::None)
    }),
    ("__iadd__", |vm, args, _| {
        check_arity(vm, "__iadd__", args, 2, 2)?;
        extend_with(vm, &args[0], &args[1], Deque::push_back)?;
        Ok(args[0].clone())
    }),
    ("extendleft", |vm, args, _| {
        check_arity(vm, "extendleft", args, 2, 2)?;
        extend_with(vm, &args[0], &args[1], Deque::push_front)?;
        Ok(Value::None)
    }),
    ("pop", |vm, args, _| {
        check_arity(vm, "pop", args, 1, 1)?;
        let popped = deque_of(vm, &args[0])?.pop_back();
        popped.ok_or_else(|| vm.index_error("pop from an empty deque"))
    }),
    ("clear", |vm, args, _| {
        check_arity(vm, "clear", args, 1, 1)?;
        deque_of(vm, &args[0])?.clear();
        Ok(Value::None)
    }),
    ("rotate", |vm, args, _| {
        check_arity(vm, "rotate", args, 1, 2)?;
        let n = match args.get(1) {
            Some(v) => vm.expect_index(v)?,
            None => 1,
        };
        deque_of(vm, &args[0])?.rotate(n);
        Ok(Value::None)
    }),
    ("reverse", |vm, args, _| {
        check_arity(vm, "reverse", args, 1, 1)?;
        deque_of(vm, &args[0])?
            .items
            .borrow_mut()
            .make_contiguous()
            .reverse();
        Ok(Value::None)
    }),
    ("__reduce__", |vm, args, _| {
        // (class, ((), maxlen) or (), __dict__ or None, an iterator over the items), as
        // CPython's `deque.__reduce__`: what `copy` rebuilds a deque from.
        let this = &args[0];
        let d = deque_of(vm, this)?;
        let ctor_args = match d.maxlen.get() {
            Some(m) => Value::tuple(vec![Value::tuple(vec![]), Value::Int(m as i64)]),
            None => Value::tuple(vec![]),
        };
        let dict = vm.intern("__dict__");
        let state = match vm.get_attr(this, &dict) {
            Ok(v) if vm.truthy(&v)? => v,
            _ => Value::None,
        };
        let items = make_iterator(vm, this, false)?;
        let class = Value::Type(vm.type_of(this).clone());
        Ok(Value::tuple(vec![class, ctor_args, state, items]))
    }),
];

pub fn deque_type(vm: &mut Vm) -> Rc<PyType> {
    let object = vm.types.object.clone();
    // Not `builtin` in apy's sense: its dunders are found by lookup, like a class's. (So
    // errors name it 'deque' where CPython's `tp_name` says 'collections.deque'.)
    let ty = make_type("deque", vec![object.clone()], Layout::Builtin, false);
    vm.set_type_attr(&ty, "__module__", Value::str("collections"));
    vm.set_type_attr(&ty, "__hash__", Value::None);
    ty.native_len.set(Some(plain_deque_len));
    ty.match_flags.set(crate::vm::object::MATCH_SEQUENCE);
    vm.add_static(&ty, "__new__", deque_new);
    vm.add_method(&ty, "__class_getitem__", crate::vm::generics::class_getitem);
    vm.add_methods(&ty, METHODS);
    vm.add_getset(
        &ty,
        "maxlen",
        |vm, v| {
            Ok(deque_of(vm, v)?
                .maxlen
                .get()
                .map_or(Value::None, |m| Value::Int(m as i64)))
        },
        None,
    );
    let iterators = ["_deque_iterator", "_deque_reverse_iterator"].map(|name| {
        let ty = make_type(
            &format!("_collections.{name}"),
            vec![object.clone()],
            Layout::Builtin,
            true,
        );
        vm.set_type_attr(&ty, "__module__", Value::str("_collections"));
        vm.add_method(&ty, "__iter__", iter_self);
        vm.add_method(&ty, "__next__", iter_next);
        vm.add_method(&ty, "__length_hint__", iter_length_hint);
        ty
    });
    let deque = ty.clone();
    TYPES.with(|t| *t.borrow_mut() = Some(Types { deque, iterators }));
    ty
}
