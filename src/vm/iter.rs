//! The iterator protocol: `iter()`, `next()` and the built-in iterators (over lists, tuples,
//! strs, ranges, dicts, sets, and `enumerate`/`zip`/`map`/`filter`/`reversed`), plus
//! `__iter__`/`__next__` on user classes. Exhaustion is `Ok(None)` internally; StopIteration
//! appears only where Python code can see it. Mirrors `Objects/iterobject.c`, `abstract.c`.

use std::cell::RefCell;
use std::rc::Rc;

use crate::common::int_ops::{self, Int};
use crate::common::set_table::DictEntry;

use crate::common::sizes::{grow_for, vec_with_capacity};

use super::args::{OrRaise, check_arity, check_kwargs};
use super::bytes::PyBytes;
use super::dict::StrKeys;
use super::object::{DictViewKind, IterState, KwArgs, LongRangeIter, Object, ObjectKind, PyType};
use super::range::Range;
use super::types::lookup;
use super::value::Value;
use super::{PyResult, Vm};
use crate::vm::frame::FrameResult;

impl Vm {
    pub fn new_iter(&self, class: &Rc<PyType>, state: IterState) -> Value {
        Value::object(Object::new(
            class.clone(),
            ObjectKind::Iter(RefCell::new(state)),
        ))
    }

    /// `iter(v)`.
    pub fn get_iter(&mut self, v: &Value) -> PyResult<Value> {
        let t = &self.types;
        Ok(match v {
            Value::List(_) => self.new_iter(
                &t.list_iterator.clone(),
                IterState::Seq {
                    seq: v.clone(),
                    index: 0,
                },
            ),
            Value::Tuple(_) => self.new_iter(
                &t.tuple_iterator.clone(),
                IterState::Seq {
                    seq: v.clone(),
                    index: 0,
                },
            ),
            Value::Str(text) => self.new_iter(
                // (The text's kind names the type, as `unicode_iter` picks it.)
                &match text.is_ascii() {
                    true => t.str_ascii_iterator.clone(),
                    false => t.str_iterator.clone(),
                },
                IterState::Seq {
                    seq: v.clone(),
                    index: 0,
                },
            ),
            Value::Dict(d) => self.new_iter(
                &t.dict_keyiterator.clone(),
                IterState::Dict {
                    dict: d.clone(),
                    pos: 0,
                    kind: DictViewKind::Keys,
                    size: d.table.borrow().len(),
                    reversed: false,
                    odict: false,
                },
            ),
            Value::Set(s) => {
                let size = s.table.borrow().len();
                self.new_iter(
                    &t.set_iterator.clone(),
                    IterState::Set {
                        set: v.clone(),
                        pos: 0,
                        size,
                    },
                )
            }
            Value::Object(o) => match &o.kind {
                ObjectKind::Range(r) => {
                    let length = r.length();
                    // `range_iter`: the C-long iterator when the bounds and length fit.
                    let (class, state) = match r.small() {
                        Some((next, stop, step)) if length.as_i64().is_some() => (
                            t.range_iterator.clone(),
                            IterState::Range { next, stop, step },
                        ),
                        _ => (
                            t.longrange_iterator.clone(),
                            IterState::LongRange(Box::new(LongRangeIter {
                                range: (**r).clone(),
                                index: Int::Small(0),
                                length,
                            })),
                        ),
                    };
                    self.new_iter(&class, state)
                }
                ObjectKind::Iter(_) => v.clone(),
                ObjectKind::Generator(g) if g.kind == crate::vm::frame::GenKind::Generator => {
                    v.clone()
                }
                ObjectKind::DictView { dict, kind } => {
                    let odict = self.is_odict_view(&o.class);
                    let class = match kind {
                        _ if odict => t.odict_iterator.clone(),
                        DictViewKind::Keys => t.dict_keyiterator.clone(),
                        DictViewKind::Values => t.dict_valueiterator.clone(),
                        DictViewKind::Items => t.dict_itemiterator.clone(),
                    };
                    let size = dict.table.borrow().len();
                    self.new_iter(
                        &class,
                        IterState::Dict {
                            dict: dict.clone(),
                            pos: 0,
                            kind: *kind,
                            size,
                            reversed: false,
                            odict,
                        },
                    )
                }
                _ => return self.user_iter(v),
            },
            _ => return self.user_iter(v),
        })
    }

    /// Whether a dict view of class `class` is an OrderedDict's (`odict_keys`, …), whose
    /// iterators are `odict_iterator`s.
    pub fn is_odict_view(&self, class: &Rc<PyType>) -> bool {
        let t = &self.types;
        [&t.odict_keys, &t.odict_values, &t.odict_items]
            .into_iter()
            .any(|view| Rc::ptr_eq(class, view))
    }

    fn user_iter(&mut self, v: &Value) -> PyResult<Value> {
        if let Some(base) = self.base_value(v, &self.names.iter.clone()) {
            return self.get_iter(&base);
        }
        let ty = self.type_of(v).clone();
        if let Some(f) = lookup(&ty, &self.names.iter.clone()) {
            if f.is_none() {
                let name = self.tp_name(&ty);
                return Err(self.type_error(format!("'{name}' object is not iterable")));
            }
            let it = self.call(&f, std::slice::from_ref(v), &[])?;
            if !self.is_iterator(&it) {
                return Err(self.type_error(format!(
                    "iter() returned non-iterator of type '{}'",
                    self.type_name(&it)
                )));
            }
            return Ok(it);
        }
        if !ty.builtin && lookup(&ty, &self.names.getitem.clone()).is_some() {
            // The old sequence protocol: index from 0 until IndexError.
            return Ok(self.new_iter(
                &self.types.seq_iterator.clone(),
                IterState::Seq {
                    seq: v.clone(),
                    index: 0,
                },
            ));
        }
        let name = self.tp_name(&ty);
        Err(self.type_error(format!("'{name}' object is not iterable")))
    }

    pub fn is_iterable(&self, v: &Value) -> bool {
        match v {
            Value::List(_) | Value::Tuple(_) | Value::Str(_) | Value::Dict(_) | Value::Set(_) => {
                true
            }
            Value::Object(o) => {
                matches!(
                    o.kind,
                    ObjectKind::Range(_)
                        | ObjectKind::Iter(_)
                        | ObjectKind::DictView { .. }
                        | ObjectKind::Generator(_)
                ) || lookup(&o.class, &self.names.iter).is_some()
                    || (!o.class.builtin && lookup(&o.class, &self.names.getitem).is_some())
                    || o.builtin_base().is_some_and(|base| self.is_iterable(base))
            }
            _ => false,
        }
    }

    pub fn is_iterator(&self, v: &Value) -> bool {
        match v {
            Value::Object(o) => match &o.kind {
                ObjectKind::Iter(_) => true,
                ObjectKind::Generator(g) => g.kind == crate::vm::frame::GenKind::Generator,
                _ => lookup(&o.class, &self.names.next).is_some(),
            },
            _ => false,
        }
    }

    /// `next(it)` for native code: `Ok(None)` when exhausted. Each item counts as a step
    /// ([`Vm::charge`]), so a built-in consuming a long iterator stops at the limits.
    pub fn next(&mut self, it: &Value) -> PyResult<Option<Value>> {
        self.charge(1)?;
        self.next_uncharged(it)
    }

    /// `next(it)` for `FOR_ITER`, whose instruction is already counted.
    pub(super) fn next_uncharged(&mut self, it: &Value) -> PyResult<Option<Value>> {
        if let Value::Object(o) = it {
            match &o.kind {
                ObjectKind::Iter(state) => return self.builtin_next(state),
                ObjectKind::Generator(g) => {
                    return match self.resume(g, Value::None, None) {
                        FrameResult::Yielded(v) => Ok(Some(v)),
                        FrameResult::Returned(_) => Ok(None),
                        FrameResult::Err(e) => Err(e),
                    };
                }
                _ => {}
            }
        }
        match self.call_next_method(it) {
            Ok(v) => Ok(Some(v)),
            Err(e) if self.exc_matches(&e, &self.types.stop_iteration.clone()) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// `type(it).__next__(it)`, its StopIteration raised: the protocol of an iterator that
    /// is not one of the VM's own ([`Vm::next_uncharged`] has those).
    pub(super) fn call_next_method(&mut self, it: &Value) -> PyResult<Value> {
        let Some(f) = lookup(self.type_of(it), &self.names.next.clone()) else {
            return Err(self.type_error(format!(
                "'{}' object is not an iterator",
                self.type_name(it)
            )));
        };
        self.call(&f, std::slice::from_ref(it), &[])
    }

    /// The next item of the iterator a built-in iterator wraps (`map`, `filter`, `zip`,
    /// `enumerate`), one recursion level deeper: three million nested `map`s are a
    /// RecursionError rather than a native stack overflow.
    fn next_wrapped(&mut self, it: &Value) -> PyResult<Option<Value>> {
        self.nested("", |vm| vm.next(it))
    }

    /// A sequence iterator's next item from `seq[i]` (`__getitem__`, which may run any
    /// code: `state` is not borrowed meanwhile); an IndexError or StopIteration ends it.
    fn next_by_getitem(
        &mut self,
        state: &RefCell<IterState>,
        seq: &Value,
        i: usize,
    ) -> PyResult<Option<Value>> {
        match self.get_item(seq, &Value::Int(i as i64)) {
            Ok(v) => {
                if let IterState::Seq { index, .. } = &mut *state.borrow_mut() {
                    *index += 1;
                }
                Ok(Some(v))
            }
            Err(e)
                if self.exc_matches(&e, &self.types.index_error.clone())
                    || self.exc_matches(&e, &self.types.stop_iteration.clone()) =>
            {
                *state.borrow_mut() = IterState::Exhausted;
                Ok(None)
            }
            Err(e) => Err(e),
        }
    }

    fn builtin_next(&mut self, state: &RefCell<IterState>) -> PyResult<Option<Value>> {
        let mut st = state.borrow_mut();
        match &mut *st {
            IterState::Seq { seq, index } => {
                let i = *index;
                let item = match seq {
                    Value::List(l) => l.items.borrow().get(i).cloned(),
                    Value::Tuple(t) => t.items.get(i).cloned(),
                    Value::Str(s) => {
                        let text = s.as_str();
                        if s.is_ascii() {
                            text.get(i..i + 1).map(Value::str)
                        } else {
                            // `index` counts bytes for non-ASCII text.
                            let c = text[i.min(text.len())..].chars().next();
                            if let Some(c) = c {
                                *index += c.len_utf8() - 1;
                            }
                            c.map(|c| Value::str(c.to_string()))
                        }
                    }
                    other => match other.native::<PyBytes>() {
                        // A bytes or bytearray iterator's, read live (not through a
                        // subclass's `__getitem__`).
                        Some(b) => b.data().get(i).map(|&x| Value::Int(x.into())),
                        None => {
                            let seq = other.clone();
                            drop(st);
                            return self.next_by_getitem(state, &seq, i);
                        }
                    },
                };
                match item {
                    Some(v) => {
                        *index += 1;
                        Ok(Some(v))
                    }
                    None => {
                        *st = IterState::Exhausted;
                        Ok(None)
                    }
                }
            }
            IterState::Range { next, stop, step } => {
                let n = *next;
                if (*step > 0 && n < *stop) || (*step < 0 && n > *stop) {
                    *next = n.saturating_add(*step);
                    Ok(Some(Value::Int(n)))
                } else {
                    Ok(None)
                }
            }
            IterState::LongRange(long) => {
                let LongRangeIter {
                    range,
                    index,
                    length,
                } = &mut **long;
                if *index >= *length {
                    return Ok(None);
                }
                let item = range.item(index);
                *index = int_ops::add(index, &Int::Small(1));
                Ok(Some(super::ops::from_int(item)))
            }
            IterState::Dict {
                dict,
                pos,
                kind,
                size,
                reversed,
                odict,
            } => {
                let table = dict.table.borrow();
                if table.len() != *size {
                    drop(table);
                    *size = usize::MAX;
                    return Err(self.runtime_error(match odict {
                        true => "OrderedDict mutated during iteration",
                        false => "dictionary changed size during iteration",
                    }));
                }
                // `pos` is where the next entry is looked for: after the one given, or
                // (reversed) at it, so that one before it comes next.
                let Some((next, e)) = table.step(*pos, *reversed) else {
                    // Exhausted, it lets the dict go (`dictiter_iternextkey`): a dict that
                    // grows after is no error.
                    drop(table);
                    *st = IterState::Exhausted;
                    return Ok(None);
                };
                *pos = next;
                Ok(Some(view_item(*kind, e)))
            }
            IterState::Set { set, pos, size } => {
                let Value::Set(s) = set else { return Ok(None) };
                let table = s.table.borrow();
                if table.len() != *size {
                    drop(table);
                    return Err(self.runtime_error("Set changed size during iteration"));
                }
                match table.next_from(*pos) {
                    Some((next, key)) => {
                        let v = key.clone();
                        *pos = next;
                        Ok(Some(v))
                    }
                    None => {
                        drop(table);
                        *st = IterState::Exhausted;
                        Ok(None)
                    }
                }
            }
            IterState::Reversed { seq, index } => {
                if *index == 0 {
                    *st = IterState::Exhausted;
                    return Ok(None);
                }
                *index -= 1;
                let i = *index;
                let seq = seq.clone();
                drop(st);
                let len = self.len(&seq)?;
                if i >= len {
                    // Past a shrunk sequence's end it is done, and lets go of it.
                    *state.borrow_mut() = IterState::Exhausted;
                    return Ok(None);
                }
                self.get_item(&seq, &Value::Int(i as i64)).map(Some)
            }
            IterState::Enumerate { iter, count } => {
                let (iter, n) = (iter.clone(), count.clone());
                drop(st);
                match self.next_wrapped(&iter)? {
                    Some(v) => {
                        let next_count = self.binary_op(
                            crate::compile::bytecode::BinaryOperator::Add,
                            &n,
                            &Value::Int(1),
                        )?;
                        if let IterState::Enumerate { count, .. } = &mut *state.borrow_mut() {
                            *count = next_count;
                        }
                        Ok(Some(Value::tuple(vec![n, v])))
                    }
                    None => Ok(None),
                }
            }
            IterState::Zip { iters, strict } => {
                let (iters, strict) = (iters.clone(), *strict);
                drop(st);
                if iters.is_empty() {
                    return Ok(None);
                }
                let mut items = Vec::with_capacity(iters.len());
                for (i, it) in iters.iter().enumerate() {
                    match self.next_wrapped(it)? {
                        Some(v) => items.push(v),
                        None => {
                            // (A zip keeps its iterators when one ends, as CPython's does:
                            // the next call asks them again.)
                            if strict {
                                if i > 0 {
                                    let plural = if i == 1 { " " } else { "s 1-" };
                                    return Err(self.value_error(format!(
                                        "zip() argument {} is shorter than argument{plural}{i}",
                                        i + 1
                                    )));
                                }
                                for (j, other) in iters.iter().enumerate().skip(1) {
                                    if self.next_wrapped(other)?.is_some() {
                                        let plural = if j == 1 { " " } else { "s 1-" };
                                        return Err(self.value_error(format!(
                                            "zip() argument {} is longer than argument{plural}{j}",
                                            j + 1
                                        )));
                                    }
                                }
                            }
                            return Ok(None);
                        }
                    }
                }
                Ok(Some(Value::tuple(items)))
            }
            IterState::Map { func, iters } => {
                let (func, iters) = (func.clone(), iters.clone());
                drop(st);
                let mut args = Vec::with_capacity(iters.len());
                for it in &iters {
                    match self.next_wrapped(it)? {
                        Some(v) => args.push(v),
                        None => return Ok(None),
                    }
                }
                self.call(&func, &args, &[]).map(Some)
            }
            IterState::Filter { func, iter } => {
                let (func, iter) = (func.clone(), iter.clone());
                drop(st);
                while let Some(v) = self.next_wrapped(&iter)? {
                    let keep = if func.is_none() {
                        self.truthy(&v)?
                    } else {
                        let r = self.call(&func, std::slice::from_ref(&v), &[])?;
                        self.truthy(&r)?
                    };
                    if keep {
                        return Ok(Some(v));
                    }
                }
                Ok(None)
            }
            IterState::Callable { func, sentinel } => {
                let (func, sentinel) = (func.clone(), sentinel.clone());
                drop(st);
                let v = self.call(&func, &[], &[])?;
                if self.eq(&v, &sentinel)? {
                    *state.borrow_mut() = IterState::Exhausted;
                    return Ok(None);
                }
                Ok(Some(v))
            }
            IterState::Exhausted => Ok(None),
        }
    }

    /// How many items collecting `v` reserves room for up front (`PyObject_LengthHint`):
    /// a range's or a range iterator's length, OverflowError when that does not fit a
    /// `Py_ssize_t`; 0 for anything else.
    fn length_hint(&mut self, v: &Value) -> PyResult<usize> {
        let Value::Object(o) = v else {
            return Ok(0);
        };
        let left = match &o.kind {
            ObjectKind::Range(r) => r.length(),
            ObjectKind::Iter(state) => match state.try_borrow().as_deref() {
                Ok(IterState::Range { next, stop, step }) => {
                    let (start, stop, step) =
                        (Int::Small(*next), Int::Small(*stop), Int::Small(*step));
                    Range { start, stop, step }.length()
                }
                Ok(IterState::LongRange(long)) => int_ops::sub(&long.length, &long.index),
                _ => return Ok(0),
            },
            _ => return Ok(0),
        };
        match left.as_i64() {
            Some(n) => Ok(n.max(0) as usize),
            None => Err(self.overflow_error("Python int too large to convert to C ssize_t")),
        }
    }

    /// [`Vm::collect_for_list`] of an instance of a user class, as `list_extend` takes it:
    /// its iterator first, then its length hint (`PyObject_LengthHint`: its `__len__`, else
    /// its `__length_hint__`, else 8), which a class of the program's sees being asked.
    fn collect_user_iterable(&mut self, v: &Value) -> PyResult<(Vec<Value>, usize)> {
        let it = self.get_iter(v)?;
        let hint = self.user_length_hint(v)?.unwrap_or(8);
        let mut out = Vec::new();
        while let Some(x) = self.next(&it)? {
            grow_for(&mut out, 1).or_raise(self)?;
            out.push(x);
        }
        Ok((out, hint))
    }

    /// `PyObject_LengthHint` of an instance of a user class: what its `__len__` says (a
    /// TypeError from it passes over to the next), else its `__length_hint__` (None for
    /// NotImplemented or a TypeError), else None.
    fn user_length_hint(&mut self, v: &Value) -> PyResult<Option<usize>> {
        let ty = self.type_of(v).clone();
        let type_error = self.types.type_error.clone();
        if lookup(&ty, &self.names.len).is_some() {
            match self.len(v) {
                Ok(n) => return Ok(Some(n)),
                Err(e) if self.exc_matches(&e, &type_error) => {}
                Err(e) => return Err(e),
            }
        }
        let name = self.intern("__length_hint__");
        let Some(hint) = lookup(&ty, &name) else {
            return Ok(None);
        };
        let result = match self.call(&hint, std::slice::from_ref(v), &[]) {
            Ok(r) => r,
            Err(e) if self.exc_matches(&e, &type_error) => return Ok(None),
            Err(e) => return Err(e),
        };
        match result {
            Value::NotImplemented => Ok(None),
            Value::Int(n) if n >= 0 => Ok(Some(n as usize)),
            Value::Bool(b) => Ok(Some(b as usize)),
            Value::Int(_) => Err(self.value_error("__length_hint__() should return >= 0")),
            other => Err(self.type_error(format!(
                "__length_hint__ must be an integer, not {}",
                self.type_name(&other)
            ))),
        }
    }

    /// All items of an iterable a list is extended with (`list(x)`, `extend`, `+=`), and
    /// the count CPython's `list_extend` makes room for before it takes them: the length of
    /// a sized iterable, else the length hint, or 8 (`PyList::extend`).
    pub fn collect_for_list(&mut self, v: &Value) -> PyResult<(Vec<Value>, usize)> {
        if let Value::Object(o) = v
            && !o.class.builtin
        {
            return self.collect_user_iterable(v);
        }
        let hint = match v {
            Value::List(_) | Value::Tuple(_) | Value::Dict(_) | Value::Set(_) | Value::Str(_) => {
                None
            }
            _ => Some(match self.length_hint(v)? {
                0 => 8,
                n => n,
            }),
        };
        let items = self.collect_iterable(v)?;
        let hint = hint.unwrap_or(items.len());
        Ok((items, hint))
    }

    /// All items of an iterable.
    pub fn collect_iterable(&mut self, v: &Value) -> PyResult<Vec<Value>> {
        if let Value::List(_) | Value::Tuple(_) | Value::Dict(_) | Value::Set(_) = v {
            let len = self.len(v)?;
            self.charge(len as u64)?;
        }
        match v {
            Value::List(l) => return Ok(l.items.borrow().clone()),
            Value::Tuple(t) => return Ok(t.items.to_vec()),
            Value::Dict(d) => return Ok(d.table.borrow().keys()),
            Value::Set(s) => return Ok(super::dict::set_keys(&s.table.borrow())),
            _ => {}
        }
        // As `list(range(n))` does in CPython, a range's length is reserved up front, so
        // one too long to fit is a MemoryError at once; any list grows by fallible steps.
        let expected = self.length_hint(v)?;
        self.charge(expected as u64)?;
        let mut out = vec_with_capacity(expected).or_raise(self)?;
        let it = self.get_iter(v)?;
        while let Some(x) = self.next(&it)? {
            grow_for(&mut out, 1).or_raise(self)?;
            out.push(x);
        }
        Ok(out)
    }
}

fn iter_next(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    match vm.next(&args[0])? {
        Some(v) => Ok(v),
        None => Err(vm.stop_iteration(Value::None)),
    }
}

/// What a dict iterator of `kind` gives for the entry `e`.
pub(crate) fn view_item(kind: DictViewKind, e: &DictEntry<Value, Value>) -> Value {
    match kind {
        DictViewKind::Keys => e.key.clone(),
        DictViewKind::Values => e.value.clone(),
        DictViewKind::Items => Value::tuple(vec![e.key.clone(), e.value.clone()]),
    }
}

fn iter_self(_: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    Ok(args[0].clone())
}

pub fn init(vm: &mut Vm) {
    let t = &vm.types;
    let iterators = [
        t.list_iterator.clone(),
        t.tuple_iterator.clone(),
        t.str_ascii_iterator.clone(),
        t.str_iterator.clone(),
        t.bytes_iterator.clone(),
        t.bytearray_iterator.clone(),
        t.range_iterator.clone(),
        t.longrange_iterator.clone(),
        t.dict_keyiterator.clone(),
        t.dict_valueiterator.clone(),
        t.dict_itemiterator.clone(),
        t.set_iterator.clone(),
        t.reversed.clone(),
        t.list_reverseiterator.clone(),
        t.dict_reversekeyiterator.clone(),
        t.dict_reversevalueiterator.clone(),
        t.dict_reverseitemiterator.clone(),
        t.enumerate.clone(),
        t.zip.clone(),
        t.map.clone(),
        t.filter.clone(),
        t.callable_iterator.clone(),
        t.seq_iterator.clone(),
        t.odict_iterator.clone(),
    ];
    for ty in &iterators {
        vm.add_slot_wrapper(ty, "__next__", iter_next);
        vm.add_slot_wrapper(ty, "__iter__", iter_self);
    }
}

/// Whether `f` is the built-in `next`, whose call on a generator the eval loop runs inline.
pub fn is_builtin_next(f: &Value) -> bool {
    super::object::is_native_fn(f, builtin_next)
}

/// `next(iterator[, default])` (`builtin_next`), installed by `builtins`.
pub fn builtin_next(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    check_kwargs(vm, "next", kw, &[])?;
    check_arity(vm, "next", args, 1, 2)?;
    let it = &args[0];
    if !vm.is_iterator(it) {
        return Err(vm.type_error(format!("'{}' object is not an iterator", vm.type_name(it))));
    }
    // Generators and user iterators: keep StopIteration's value when there is no default.
    if args.len() == 1
        && let Value::Object(o) = it
    {
        match &o.kind {
            ObjectKind::Generator(g) => return vm.gen_send(g, Value::None),
            ObjectKind::Iter(_) => {}
            _ => return vm.call_method(it, "__next__", &[]),
        }
    }
    match vm.next(it)? {
        Some(v) => Ok(v),
        None => match args.get(1) {
            Some(default) => Ok(default.clone()),
            None => Err(vm.stop_iteration(Value::None)),
        },
    }
}
