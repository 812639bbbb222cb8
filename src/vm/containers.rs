//! Container operators: `c[k]`, `c[k] = v`, `del c[k]` and slices of the built-in
//! sequences, user classes (`__getitem__`, `__missing__`) and `range`, index operands
//! (`__index__`), and the dict and set tables looked up by hash and `==`. In: the container
//! and key values; out: items, or CPython's IndexError/KeyError/TypeError. Mirrors
//! `PyObject_GetItem`/`PyObject_SetItem`/`PyNumber_Index` (`Objects/abstract.c`),
//! `PySlice_GetIndicesEx` (`Objects/sliceobject.c`) and `Objects/dictobject.c`'s lookups.

use std::cell::{RefCell, RefMut};
use std::convert::Infallible;
use std::rc::Rc;

use num_traits::Signed;

use crate::common::int_ops::{self, Int};
use crate::common::sizes::check_room;

use super::args::OrRaise;
use super::compare::simple_eq;
use super::dict::StrKeys;
use super::object::{Object, ObjectKind};
use super::ops::{from_int, int_or_subclass};
use super::range::Range;
use super::types::lookup;
use super::value::{PyDict, PySet, Value};
use super::{PyResult, Vm};

impl Vm {
    pub fn dict_get(&mut self, d: &PyDict, key: &Value) -> PyResult<Option<Value>> {
        if let Value::Str(s) = key {
            return Ok(d.table.borrow().get_str(s).cloned());
        }
        let hash = self.hash(key)?;
        let table = d.table.borrow();
        Ok(table.get(key, hash, |a, b| self.keys_equal(a, b))?.cloned())
    }

    pub fn dict_set(&mut self, d: &PyDict, key: Value, value: Value) -> PyResult<()> {
        // A big table about to double is checked first (`DictTable::growth_bytes`).
        let growth = d.table.borrow().growth_bytes();
        if growth >= 1 << 20 {
            check_room(growth).or_raise(self)?;
        }
        if let Value::Str(s) = &key {
            let mut table = self.table_mut(&d.table)?;
            table.set_str(s.clone(), value);
            return Ok(());
        }
        let hash = self.hash(&key)?;
        let position = d
            .table
            .borrow()
            .position(&key, hash, |a, b| self.keys_equal(a, b))?;
        let mut table = self.table_mut(&d.table)?;
        let old = match position.and_then(|at| table.value_mut(at)) {
            Some(slot) => Some(std::mem::replace(slot, value)),
            // Known absent: identity comparison is enough to place it.
            None => table
                .insert(key, hash, value, |a, b| Ok::<_, Infallible>(a.is(b)))
                .unwrap_or(None),
        };
        drop(table);
        drop(old);
        Ok(())
    }

    pub fn dict_del(&mut self, d: &PyDict, key: &Value) -> PyResult<Option<Value>> {
        let hash = self.hash(key)?;
        let position = d
            .table
            .borrow()
            .position(key, hash, |a, b| self.keys_equal(a, b))?;
        if position.is_none() {
            return Ok(None);
        }
        let mut table = self.table_mut(&d.table)?;
        let removed = table.remove(key, hash, |a, b| {
            Ok::<_, Infallible>(a.is(b) || simple_eq(a, b) == Some(true))
        });
        drop(table);
        match removed {
            Ok(Some((_, v))) => Ok(Some(v)),
            _ => {
                // A key equal only through __eq__: remove the entry found above by its key.
                let stored =
                    position.and_then(|at| d.table.borrow().entry(at).map(|e| e.key.clone()));
                let Some(stored) = stored else {
                    return Ok(None);
                };
                let mut table = self.table_mut(&d.table)?;
                let removed = table
                    .remove(&stored, hash, |a, b| Ok::<_, Infallible>(a.is(b)))
                    .unwrap_or(None);
                Ok(removed.map(|(_, v)| v))
            }
        }
    }

    pub fn set_contains(&mut self, set: &PySet, key: &Value) -> PyResult<bool> {
        let hash = self.hash(key)?;
        let table = set.table.borrow();
        table.contains(key, hash, |a, b| self.keys_equal(a, b))
    }

    pub fn set_add(&mut self, set: &PySet, key: Value) -> PyResult<()> {
        let hash = self.hash(&key)?;
        if set
            .table
            .borrow()
            .contains(&key, hash, |a, b| self.keys_equal(a, b))?
        {
            return Ok(());
        }
        let mut table = self.table_mut(&set.table)?;
        let _ = table.insert(key, hash, |a, b| Ok::<_, Infallible>(a.is(b)));
        Ok(())
    }

    /// Removes `key` from a set: whether it was there.
    pub fn set_discard(&mut self, set: &PySet, key: &Value) -> PyResult<bool> {
        let hash = self.hash(key)?;
        let stored = set
            .table
            .borrow()
            .get(key, hash, |a, b| self.keys_equal(a, b))?
            .cloned();
        let Some(stored) = stored else {
            return Ok(false);
        };
        let mut table = self.table_mut(&set.table)?;
        let removed = table
            .remove(&stored, hash, |a, b| Ok::<_, Infallible>(a.is(b)))
            .unwrap_or(None);
        Ok(removed.is_some())
    }

    /// Borrows a table for mutation; a table already in use (mutated from inside a key's
    /// `__eq__` or `__hash__`) is a RuntimeError, not a crash.
    pub fn table_mut<'a, T>(&self, cell: &'a RefCell<T>) -> PyResult<RefMut<'a, T>> {
        cell.try_borrow_mut()
            .map_err(|_| self.runtime_error("dictionary or set changed during a lookup"))
    }

    /// `dict.update(other)`: a mapping or an iterable of pairs.
    pub fn dict_update(&mut self, d: &PyDict, other: &Value) -> PyResult<()> {
        if let Value::Dict(o) = other {
            let entries: Vec<(Value, Value)> = o.table.borrow().snapshot();
            for (k, v) in entries {
                self.dict_set(d, k, v)?;
            }
            return Ok(());
        }
        let keys_name = self.intern("keys");
        if !matches!(other, Value::List(_) | Value::Tuple(_))
            && self.get_attr_opt(other, &keys_name)?.is_some()
        {
            let keys = self.call_method(other, "keys", &[])?;
            for k in self.collect_iterable(&keys)? {
                let v = self.get_item(other, &k)?;
                self.dict_set(d, k, v)?;
            }
            return Ok(());
        }
        for (i, item) in self.collect_iterable(other)?.into_iter().enumerate() {
            let pair = self.collect_iterable(&item).map_err(|_| {
                self.type_error(format!(
                    "cannot convert dictionary update sequence element #{i} to a sequence"
                ))
            })?;
            if pair.len() != 2 {
                return Err(self.value_error(format!(
                    "dictionary update sequence element #{i} has length {}; 2 is required",
                    pair.len()
                )));
            }
            let mut it = pair.into_iter();
            let (k, v) = (
                it.next().unwrap_or(Value::None),
                it.next().unwrap_or(Value::None),
            );
            self.dict_set(d, k, v)?;
        }
        Ok(())
    }

    pub fn new_set(&mut self, items: Vec<Value>, frozen: bool) -> PyResult<Value> {
        let set = Value::set(Default::default(), frozen);
        if let Value::Set(s) = &set {
            for item in items {
                self.set_add(s, item)?;
            }
        }
        Ok(set)
    }

    /// An index operand as i64 (`__index__`).
    pub fn index_value(&mut self, v: &Value) -> PyResult<Option<i64>> {
        Ok(match v {
            Value::Int(n) => Some(*n),
            Value::Bool(b) => Some(*b as i64),
            _ => self.index_int(v)?.map(|n| match n {
                Int::Small(n) => n,
                Int::Big(b) if b.is_negative() => i64::MIN,
                Int::Big(_) => i64::MAX,
            }),
        })
    }

    /// A sequence's index (`PyNumber_AsSsize_t(key, PyExc_IndexError)`): as
    /// [`Vm::index_value`], but an int too big for an index is CPython's IndexError rather
    /// than an index clamped to the end (and so "out of range").
    pub fn sequence_index(&mut self, v: &Value) -> PyResult<Option<i64>> {
        if let Value::Int(n) = v {
            return Ok(Some(*n));
        }
        match self.index_int(v)? {
            Some(Int::Small(n)) => Ok(Some(n)),
            Some(Int::Big(_)) => Err(self.index_error(format!(
                "cannot fit '{}' into an index-sized integer",
                self.type_name(v)
            ))),
            None => Ok(None),
        }
    }

    /// `operator.index(v)` kept whole however big (range bounds and indices), or None when
    /// `v` is not an int and has no `__index__`.
    pub fn index_int(&mut self, v: &Value) -> PyResult<Option<Int>> {
        // An int, or an instance of an int subclass (an IntEnum member): its int.
        if let Some(n) = int_or_subclass(v) {
            return Ok(Some(n));
        }
        Ok(match v {
            Value::Object(o) if !o.class.builtin => {
                match lookup(&o.class, &self.names.index.clone()) {
                    Some(f) => {
                        let r = self.call(&f, std::slice::from_ref(v), &[])?;
                        // `__index__` must give an int (or an instance of a subclass).
                        match int_or_subclass(&r) {
                            Some(n) => Some(n),
                            None => {
                                return Err(self.type_error(format!(
                                    "__index__ returned non-int (type {})",
                                    self.type_name(&r)
                                )));
                            }
                        }
                    }
                    None => None,
                }
            }
            _ => None,
        })
    }

    /// An int argument (`'str' object cannot be interpreted as an integer`).
    pub fn expect_index(&mut self, v: &Value) -> PyResult<i64> {
        match self.index_value(v)? {
            Some(n) => Ok(n),
            None => Err(self.type_error(format!(
                "'{}' object cannot be interpreted as an integer",
                self.type_name(v)
            ))),
        }
    }

    /// An int argument that must fit a C `Py_ssize_t` (widths, counts, `list.insert`'s
    /// index): CPython's OverflowError for a bigger one, where [`Vm::expect_index`] clamps.
    pub fn expect_ssize(&mut self, v: &Value) -> PyResult<i64> {
        if let Value::BigInt(_) = v {
            return Err(self.overflow_error("Python int too large to convert to C ssize_t"));
        }
        self.expect_index(v)
    }

    /// An int argument that must fit a C `int` (`PyLong_AsInt`: a recursion limit, a tab
    /// size, a bit count): CPython's OverflowError for a bigger one, either way.
    pub fn expect_c_int(&mut self, v: &Value) -> PyResult<i32> {
        let n = match v {
            Value::BigInt(_) => None,
            _ => i32::try_from(self.expect_index(v)?).ok(),
        };
        n.ok_or_else(|| self.overflow_error("Python int too large to convert to C int"))
    }

    /// `dict.__getitem__` on an instance of a dict subclass (`dict_subscript`): a key
    /// it lacks goes to the subclass's `__missing__`, if it has one.
    pub fn dict_subscript(
        &mut self,
        instance: &Rc<Object>,
        d: &Rc<PyDict>,
        key: &Value,
    ) -> PyResult<Value> {
        if let Some(v) = self.dict_get(d, key)? {
            return Ok(v);
        }
        match lookup(&instance.class, &self.names.missing.clone()) {
            Some(missing) => self.call(
                &missing,
                &[Value::Object(instance.clone()), key.clone()],
                &[],
            ),
            None => Err(self.key_error(key.clone())),
        }
    }

    /// `container[key]`.
    pub fn get_item(&mut self, container: &Value, key: &Value) -> PyResult<Value> {
        if let Some(base) = self.base_value(container, &self.names.getitem.clone()) {
            if let (Value::Dict(d), Value::Object(o)) = (&base, container) {
                return self.dict_subscript(o, d, key);
            }
            return self.get_item(&base, key);
        }
        match (container, key) {
            (Value::List(l), Value::Int(i)) => {
                let items = l.items.borrow();
                let n = items.len() as i64;
                let j = if *i < 0 { i + n } else { *i };
                if j < 0 || j >= n {
                    drop(items);
                    return Err(self.index_error("list index out of range"));
                }
                return Ok(items[j as usize].clone());
            }
            (Value::Tuple(t), Value::Int(i)) => {
                let n = t.items.len() as i64;
                let j = if *i < 0 { i + n } else { *i };
                if j < 0 || j >= n {
                    return Err(self.index_error("tuple index out of range"));
                }
                return Ok(t.items[j as usize].clone());
            }
            (Value::Dict(d), _) => {
                return match self.dict_get(d, key)? {
                    Some(v) => Ok(v),
                    None => Err(self.key_error(key.clone())),
                };
            }
            _ => {}
        }
        // The built-in sequences slice here; any other container gets the slice object
        // (`get_slice` hands it back to this function for them).
        if let Value::Object(s) = key
            && let ObjectKind::Slice { start, stop, step } = &s.kind
            && (matches!(container, Value::List(_) | Value::Tuple(_) | Value::Str(_))
                || matches!(container, Value::Object(o) if matches!(o.kind, ObjectKind::Range(_))))
        {
            let (start, stop, step) = (start.clone(), stop.clone(), step.clone());
            return self.get_slice(container, &start, &stop, &step);
        }
        match container {
            Value::List(_) | Value::Tuple(_) | Value::Str(_) => {
                let Some(i) = self.sequence_index(key)? else {
                    let key_type = self.type_name(key);
                    return Err(self.type_error(match container {
                        Value::List(_) => {
                            format!("list indices must be integers or slices, not {key_type}")
                        }
                        Value::Tuple(_) => {
                            format!("tuple indices must be integers or slices, not {key_type}")
                        }
                        // (`unicode_subscript`'s own wording.)
                        _ => format!("string indices must be integers, not '{key_type}'"),
                    }));
                };
                match container {
                    Value::Str(s) => {
                        let text = s.as_str();
                        let n = s.char_len() as i64;
                        let j = if i < 0 { i + n } else { i };
                        if j < 0 || j >= n {
                            return Err(self.index_error("string index out of range"));
                        }
                        let c = if s.is_ascii() {
                            text[j as usize..j as usize + 1].to_string()
                        } else {
                            text.chars()
                                .nth(j as usize)
                                .map(String::from)
                                .unwrap_or_default()
                        };
                        Ok(Value::str(c))
                    }
                    _ => self.get_item(container, &Value::Int(i)),
                }
            }
            Value::Object(o) => {
                if let ObjectKind::Range(r) = &o.kind {
                    let Some(i) = self.index_int(key)? else {
                        return Err(self.type_error(format!(
                            "range indices must be integers or slices, not {}",
                            self.type_name(key)
                        )));
                    };
                    let n = r.length();
                    let j = if i.is_negative() {
                        int_ops::add(&i, &n)
                    } else {
                        i
                    };
                    if j.is_negative() || j >= n {
                        return Err(self.index_error("range object index out of range"));
                    }
                    return Ok(from_int(r.item(&j)));
                }
                if !o.class.builtin
                    && let Some(f) = lookup(&o.class, &self.names.getitem.clone())
                {
                    return self.call(&f, &[container.clone(), key.clone()], &[]);
                }
                let name = self.tp_name(&o.class);
                Err(self.type_error(format!("'{name}' object is not subscriptable")))
            }
            Value::Type(t) => {
                // `Color['RED']`: the metaclass's `__getitem__` comes first.
                if let Some(f) = self.meta_method(t, &self.names.getitem.clone()) {
                    return self.call(&f, &[container.clone(), key.clone()], &[]);
                }
                // `list[int]`, `Queue[str]`: the class's `__class_getitem__`, a class
                // method whether or not it is declared one.
                let name = self.intern("__class_getitem__");
                if let Some(f) = lookup(t, &name) {
                    let f = match &f {
                        Value::Object(o) => match &o.kind {
                            ObjectKind::ClassMethod(inner) => inner.clone(),
                            _ => f.clone(),
                        },
                        _ => f.clone(),
                    };
                    return self.call(&f, &[container.clone(), key.clone()], &[]);
                }
                Err(self.type_error(format!("type '{}' is not subscriptable", t.name())))
            }
            _ => Err(self.type_error(format!(
                "'{}' object is not subscriptable",
                self.object_type_name(container)
            ))),
        }
    }

    /// `container[key] = value`.
    pub fn set_item(&mut self, container: &Value, key: &Value, value: Value) -> PyResult<()> {
        if let Some(base) = self.base_value(container, &self.names.setitem.clone()) {
            return self.set_item(&base, key, value);
        }
        match container {
            Value::List(l) => match self.list_target(l, key)? {
                ListTarget::Slice(start, stop, step) => {
                    self.set_list_slice(l, &start, &stop, &step, Some(value))
                }
                ListTarget::Index(j) => {
                    // The old item is dropped after the list's borrow ends, so nothing its
                    // drop sets off can find the list borrowed.
                    let old = std::mem::replace(&mut l.items.borrow_mut()[j], value);
                    drop(old);
                    Ok(())
                }
            },
            Value::Dict(d) => self.dict_set(d, key.clone(), value),
            Value::Object(o) if !o.class.builtin => {
                match lookup(&o.class, &self.names.setitem.clone()) {
                    Some(f) => self
                        .call(&f, &[container.clone(), key.clone(), value], &[])
                        .map(drop),
                    None => {
                        Err(self.no_item_support(container, "does not support item assignment"))
                    }
                }
            }
            _ => Err(self.no_item_support(container, "does not support item assignment")),
        }
    }

    /// What `list[key] = v` and `del list[key]` act on: an in-range position, or the parts
    /// of a slice. Raises CPython's TypeError for other keys and IndexError out of range.
    fn list_target(&mut self, l: &super::value::PyList, key: &Value) -> PyResult<ListTarget> {
        if let Value::Object(s) = key
            && let ObjectKind::Slice { start, stop, step } = &s.kind
        {
            return Ok(ListTarget::Slice(start.clone(), stop.clone(), step.clone()));
        }
        let Some(i) = self.sequence_index(key)? else {
            return Err(self.type_error(format!(
                "list indices must be integers or slices, not {}",
                self.type_name(key)
            )));
        };
        let n = l.items.borrow().len() as i64;
        let j = if i < 0 { i + n } else { i };
        if j < 0 || j >= n {
            return Err(self.index_error("list assignment index out of range"));
        }
        Ok(ListTarget::Index(j as usize))
    }

    /// The TypeError for `container[k] = v` / `del container[k]` on a type without them, in
    /// CPython's words (which differ: "does not support item assignment", "doesn't support
    /// item deletion"), for built-in and user classes alike.
    fn no_item_support(&self, container: &Value, what: &str) -> super::Exc {
        self.type_error(format!("'{}' object {what}", self.type_name(container)))
    }

    /// `del container[key]`.
    pub fn del_item(&mut self, container: &Value, key: &Value) -> PyResult<()> {
        if let Some(base) = self.base_value(container, &self.names.delitem.clone()) {
            return self.del_item(&base, key);
        }
        match container {
            Value::List(l) => match self.list_target(l, key)? {
                ListTarget::Slice(start, stop, step) => {
                    self.set_list_slice(l, &start, &stop, &step, None)
                }
                ListTarget::Index(j) => {
                    drop(l.remove_at(j));
                    Ok(())
                }
            },
            Value::Dict(d) => match self.dict_del(d, key)? {
                Some(_) => Ok(()),
                None => Err(self.key_error(key.clone())),
            },
            Value::Object(o) if !o.class.builtin => {
                match lookup(&o.class, &self.names.delitem.clone()) {
                    Some(f) => self
                        .call(&f, &[container.clone(), key.clone()], &[])
                        .map(drop),
                    None => Err(self.no_deletion(container, key)),
                }
            }
            _ => Err(self.no_deletion(container, key)),
        }
    }

    /// The TypeError of `del container[key]` on an object that cannot delete items, worded
    /// as CPython's: "doesn't" from `PySequence_DelItem`, reached with an index (a value
    /// with `__index__`) on a type with a sequence protocol (every class has one, and the
    /// built-in containers), "does not" otherwise (`PyObject_DelItem`).
    fn no_deletion(&self, container: &Value, key: &Value) -> super::Exc {
        let class = self.type_of(container);
        let is_index = lookup(self.type_of(key), &self.names.index).is_some();
        let sequence = !class.builtin
            || [&self.names.len, &self.names.contains, &self.names.getitem]
                .iter()
                .any(|name| lookup(class, name).is_some());
        let what = match is_index && sequence {
            true => "doesn't support item deletion",
            false => "does not support item deletion",
        };
        self.no_item_support(container, what)
    }

    /// Resolves slice bounds against a length (`PySlice_GetIndicesEx`): start, stop, step and
    /// the number of items.
    pub fn slice_indices(
        &mut self,
        len: usize,
        start: &Value,
        stop: &Value,
        step: &Value,
    ) -> PyResult<(i64, i64, i64, usize)> {
        let len = len as i64;
        let step = if step.is_none() {
            1
        } else {
            match self.index_value(step)? {
                Some(0) => return Err(self.value_error("slice step cannot be zero")),
                Some(s) => s,
                None => {
                    return Err(self.type_error(
                        "slice indices must be integers or None or have an __index__ method",
                    ));
                }
            }
        };
        let bound = |vm: &mut Vm, v: &Value, default: i64| -> PyResult<i64> {
            if v.is_none() {
                return Ok(default);
            }
            let Some(mut i) = vm.index_value(v)? else {
                return Err(vm.type_error(
                    "slice indices must be integers or None or have an __index__ method",
                ));
            };
            if i < 0 {
                i = i.saturating_add(len);
                if i < 0 {
                    i = if step < 0 { -1 } else { 0 };
                }
            } else if i >= len {
                i = if step < 0 { len - 1 } else { len };
            }
            Ok(i)
        };
        let (start, stop) = if step > 0 {
            (bound(self, start, 0)?, bound(self, stop, len)?)
        } else {
            (bound(self, start, len - 1)?, bound(self, stop, -1)?)
        };
        let count = if step > 0 {
            if stop > start {
                ((stop - start - 1) / step + 1) as usize
            } else {
                0
            }
        } else if start > stop {
            ((start - stop - 1) / (-step) + 1) as usize
        } else {
            0
        };
        Ok((start, stop, step, count))
    }

    /// `container[start:stop:step]`.
    pub fn get_slice(
        &mut self,
        container: &Value,
        start: &Value,
        stop: &Value,
        step: &Value,
    ) -> PyResult<Value> {
        let pick = |items: &[Value], s: i64, st: i64, n: usize| -> Vec<Value> {
            (0..n)
                .map(|k| items[(s + k as i64 * st) as usize].clone())
                .collect()
        };
        match container {
            Value::List(l) => {
                let len = l.items.borrow().len();
                let (s, _, st, n) = self.slice_indices(len, start, stop, step)?;
                let items = l.items.borrow();
                Ok(Value::list(pick(&items, s, st, n)))
            }
            Value::Tuple(t) => {
                let (s, _, st, n) = self.slice_indices(t.items.len(), start, stop, step)?;
                Ok(Value::tuple(pick(&t.items, s, st, n)))
            }
            Value::Str(text) => {
                let (s, _, st, n) = self.slice_indices(text.char_len(), start, stop, step)?;
                let picked = match (text.is_ascii(), st) {
                    // A run of an ASCII text is its bytes.
                    (true, 1) => text.as_str()[s as usize..s as usize + n].to_string(),
                    (true, _) => {
                        let bytes = text.as_str().as_bytes();
                        (0..n)
                            .map(|k| bytes[(s + k as i64 * st) as usize] as char)
                            .collect()
                    }
                    (false, 1) => text.as_str().chars().skip(s as usize).take(n).collect(),
                    (false, _) => {
                        let chars: Vec<char> = text.as_str().chars().collect();
                        (0..n)
                            .map(|k| chars[(s + k as i64 * st) as usize])
                            .collect()
                    }
                };
                Ok(Value::str(picked))
            }
            Value::Object(o) if matches!(o.kind, ObjectKind::Range(_)) => {
                let ObjectKind::Range(r) = &o.kind else {
                    unreachable!()
                };
                let bound = |vm: &mut Vm, v: &Value| -> PyResult<Option<Int>> {
                    if v.is_none() {
                        return Ok(None);
                    }
                    match vm.index_int(v)? {
                        Some(n) => Ok(Some(n)),
                        None => Err(vm.type_error(
                            "slice indices must be integers or None or have an __index__ method",
                        )),
                    }
                };
                let (start, stop, step) =
                    (bound(self, start)?, bound(self, stop)?, bound(self, step)?);
                match r.slice(start, stop, step) {
                    Some(range) => Ok(self.new_range(range)),
                    None => Err(self.value_error("slice step cannot be zero")),
                }
            }
            Value::Object(o)
                if (Rc::ptr_eq(&o.class, &self.types.bytes)
                    || Rc::ptr_eq(&o.class, &self.types.bytearray))
                    && let Some(buffer) = container.native::<super::bytes::PyBytes>() =>
            {
                let bytearray = Rc::ptr_eq(&o.class, &self.types.bytearray);
                self.slice_bytes(buffer, bytearray, [start, stop, step])
            }
            _ => {
                let slice = self.new_slice(start.clone(), stop.clone(), step.clone());
                self.get_item(container, &slice)
            }
        }
    }

    /// `b[start:stop:step]` of a bytes or bytearray (not a subclass's, which may define
    /// `__getitem__`): what their `__getitem__` gives, without a slice object or a call.
    fn slice_bytes(
        &mut self,
        buffer: &super::bytes::PyBytes,
        bytearray: bool,
        [start, stop, step]: [&Value; 3],
    ) -> PyResult<Value> {
        let len = buffer.data().len();
        let (s, _, st, n) = self.slice_indices(len, start, stop, step)?;
        // Read after the indices (whose `__index__` may change a bytearray): past its end
        // nothing is taken.
        let picked = super::bytes::pick_bytes(&buffer.data(), s, st, n);
        Ok(if bytearray {
            self.new_bytearray(picked)
        } else {
            self.new_bytes(picked)
        })
    }

    pub fn new_slice(&self, start: Value, stop: Value, step: Value) -> Value {
        Value::object(super::object::Object::new(
            self.types.slice.clone(),
            ObjectKind::Slice { start, stop, step },
        ))
    }

    pub fn new_range(&self, range: Range) -> Value {
        Value::object(super::object::Object::new(
            self.types.range.clone(),
            ObjectKind::Range(Box::new(range)),
        ))
    }

    /// `l[a:b:c] = value` (value None: `del l[a:b:c]`).
    pub fn set_list_slice(
        &mut self,
        l: &super::value::PyList,
        start: &Value,
        stop: &Value,
        step: &Value,
        value: Option<Value>,
    ) -> PyResult<()> {
        let len = l.items.borrow().len();
        let (s, e, st, n) = self.slice_indices(len, start, stop, step)?;
        let new_items = match &value {
            Some(v) => Some(self.collect_iterable(v)?),
            None => None,
        };
        if st == 1 {
            let e = e.max(s);
            let mut items = l.items.borrow_mut();
            let len = items.len();
            let removed: Vec<Value> = items
                .splice(s as usize..e as usize, new_items.unwrap_or_default())
                .collect();
            match items.len() {
                grown if grown > len => l.note_growth(len, grown),
                shrunk => l.note_shrink(shrunk),
            }
            drop(items);
            drop(removed);
            return Ok(());
        }
        match new_items {
            Some(new_items) => {
                if new_items.len() != n {
                    return Err(self.value_error(format!(
                        "attempt to assign sequence of size {} to extended slice of size {n}",
                        new_items.len()
                    )));
                }
                let mut items = l.items.borrow_mut();
                for (k, v) in new_items.into_iter().enumerate() {
                    items[(s + k as i64 * st) as usize] = v;
                }
            }
            None => {
                let mut indices: Vec<usize> =
                    (0..n).map(|k| (s + k as i64 * st) as usize).collect();
                indices.sort_unstable();
                let mut items = l.items.borrow_mut();
                for i in indices.into_iter().rev() {
                    items.remove(i);
                }
                l.note_shrink(items.len());
            }
        }
        Ok(())
    }
}

/// The target of an item assignment or deletion in a list (see `Vm::list_target`).
enum ListTarget {
    Index(usize),
    Slice(Value, Value, Value),
}
