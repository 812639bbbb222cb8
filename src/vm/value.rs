//! The runtime value: a 16-byte enum with small ints, floats, bools and singletons unboxed,
//! and an `Rc` for everything on the heap (`Include/object.h`'s `PyObject *`, minus the
//! boxing). Reference counting frees objects deterministically, as CPython does.
//! The heap payloads of the hot built-in types (str, tuple, list, dict, set) live here; all
//! other objects are [`Object`]s. Depends on nothing but `object` and `dict`.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use crate::common::op_error::OpResult;
use crate::common::sizes::{grow_for, list_room};
use num_bigint::BigInt;

use super::object::{Function, Object, PyType};

/// Laid out as two words, a full-word tag then the payload (`repr(C, u64)`), so that every
/// variant writes and reads both words whole. With Rust's default layout a `bool` payload
/// sits in byte 1, and a move of a value of unknown variant copies bytes 1..16 as two
/// overlapping words, loads that straddle the stores that just wrote the value (most
/// likely a store-forwarding stall each time). The VM moves values on and off its stacks
/// all the time: the default layout made coro_fib and coro_suspend about a fifth slower.
#[repr(C, u64)]
pub enum Value {
    /// The call protocol's "no value" marker (`NULL`); never visible to Python code.
    Null,
    None,
    NotImplemented,
    Ellipsis,
    Bool(bool),
    Int(i64),
    Float(f64),
    /// An int outside `i64`; always normalised (never fits in `Int`).
    BigInt(Rc<BigInt>),
    Str(Rc<PyStr>),
    Tuple(Rc<PyTuple>),
    List(Rc<PyList>),
    Dict(Rc<PyDict>),
    /// `set` and `frozenset`.
    Set(Rc<PySet>),
    Type(Rc<PyType>),
    Function(Rc<Function>),
    Object(Rc<Object>),
}

const _: () = assert!(std::mem::size_of::<Value>() == 16);
const _: () = assert!(std::mem::size_of::<Option<Value>>() == 16);

/// A `Value` that shared code replaces and reads: a `Cell`, so it carries no borrow flag
/// beside the value (a `RefCell<Value>` is 24 bytes, this 16; a task keeps three). Reading
/// clones it, which only counts a reference, so no code can run while it is taken out.
pub struct ValueCell(Cell<Value>);

impl ValueCell {
    pub fn new(v: Value) -> ValueCell {
        ValueCell(Cell::new(v))
    }

    pub fn get(&self) -> Value {
        self.look(Value::clone)
    }

    pub fn is_null(&self) -> bool {
        self.look(Value::is_null)
    }

    /// Stores `v`; the value it replaces is dropped once `v` is in place.
    pub fn set(&self, v: Value) {
        drop(self.0.replace(v));
    }

    /// `look` at the value, taken out for the while (`look` sees the cell itself as Null).
    fn look<R>(&self, look: impl FnOnce(&Value) -> R) -> R {
        let v = self.0.replace(Value::Null);
        let seen = look(&v);
        self.0.set(v);
        seen
    }
}

impl Clone for Value {
    /// Unboxed values are copied inline (the VM clones a local or constant on almost every
    /// instruction); only reference-counted ones take the out-of-line path.
    #[inline(always)]
    fn clone(&self) -> Value {
        if self.is_unboxed() {
            // SAFETY: an unboxed value owns nothing, so a copy of its two words is a clone
            // (one compare of the tag, where a match on the variants was a jump table).
            unsafe { std::ptr::read(self) }
        } else {
            self.clone_any()
        }
    }
}

impl Value {
    #[inline(never)]
    fn clone_any(&self) -> Value {
        match self {
            Value::Null => Value::Null,
            Value::None => Value::None,
            Value::NotImplemented => Value::NotImplemented,
            Value::Ellipsis => Value::Ellipsis,
            Value::Bool(b) => Value::Bool(*b),
            Value::Int(i) => Value::Int(*i),
            Value::Float(f) => Value::Float(*f),
            Value::BigInt(r) => Value::BigInt(r.clone()),
            Value::Str(r) => Value::Str(r.clone()),
            Value::Tuple(r) => Value::Tuple(r.clone()),
            Value::List(r) => Value::List(r.clone()),
            Value::Dict(r) => Value::Dict(r.clone()),
            Value::Set(r) => Value::Set(r.clone()),
            Value::Type(r) => Value::Type(r.clone()),
            Value::Function(r) => Value::Function(r.clone()),
            Value::Object(r) => Value::Object(r.clone()),
        }
    }
}

/// A `str`: UTF-8 text with its hash computed on first use.
pub struct PyStr {
    text: Box<str>,
    hash: Cell<i64>,
    /// Whether the text is all ASCII (a code point index is then a byte offset), worked
    /// out on first need: `UNKNOWN`, `ASCII` or `WIDE`.
    ascii: Cell<u8>,
}

impl PyStr {
    const UNKNOWN: u8 = 0;
    const ASCII: u8 = 1;
    const WIDE: u8 = 2;

    pub fn new(text: impl Into<Box<str>>) -> PyStr {
        PyStr {
            text: text.into(),
            hash: Cell::new(-1),
            ascii: Cell::new(PyStr::UNKNOWN),
        }
    }

    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// Whether the text is all ASCII, scanned once and remembered.
    pub fn is_ascii(&self) -> bool {
        match self.ascii.get() {
            PyStr::UNKNOWN => {
                let ascii = self.text.is_ascii();
                self.ascii
                    .set(if ascii { PyStr::ASCII } else { PyStr::WIDE });
                ascii
            }
            known => known == PyStr::ASCII,
        }
    }

    /// The text, with whether it is all ASCII, for indexing by code point.
    pub fn text(&self) -> crate::common::str_ops::Text<'_> {
        crate::common::str_ops::Text {
            text: &self.text,
            ascii: self.is_ascii(),
        }
    }

    pub fn hash(&self) -> i64 {
        let cached = self.hash.get();
        if cached != -1 {
            return cached;
        }
        let h = text_hash(self.text.as_bytes());
        self.hash.set(h);
        h
    }

    /// Number of code points (`len(s)`).
    pub fn char_len(&self) -> usize {
        self.text().char_len()
    }
}

pub use crate::common::set_table::text_hash;

pub struct PyTuple {
    pub items: Box<[Value]>,
}

pub struct PyList {
    pub items: RefCell<Vec<Value>>,
    /// The room CPython's list would have after the same changes (`allocated` in
    /// `Objects/listobject.c`: a list made whole has exactly its items, and one that grows
    /// gets about an eighth more), which `sys.getsizeof` reports. apy's own vector grows
    /// by doubling, which copies less. Kept by the changes that resize in CPython (append,
    /// insert, extend, pop, remove, clear); never less than the length when read.
    room: Cell<usize>,
}

impl PyList {
    pub fn new(items: Vec<Value>) -> PyList {
        PyList {
            room: Cell::new(items.len()),
            items: RefCell::new(items),
        }
    }

    /// Item `i` (from 0), cloned, or None out of range or while the list is being
    /// changed (mutably borrowed). Reads without taking a borrow: nothing can run between
    /// the look and the clone (a clone copies or counts a reference), so no change can
    /// interleave; the read fast paths (`x[i]`) skip the borrow flag's increment and
    /// decrement.
    #[inline(always)]
    pub fn get_cloned(&self, i: usize) -> Option<Value> {
        // SAFETY: the reference lives only for `get` and `clone`, which run no code that
        // could borrow the list mutably; `try_borrow_unguarded` fails if it is borrowed so now.
        let items = unsafe { self.items.try_borrow_unguarded() }.ok()?;
        items.get(i).cloned()
    }

    /// Appends `v` (`append`, a comprehension's `LIST_APPEND`), or `MemoryError`.
    #[inline(always)]
    pub fn append(&self, v: Value) -> OpResult<()> {
        let mut items = self.items.borrow_mut();
        let len = items.len();
        grow_for(&mut items, 1)?;
        items.push(v);
        self.note_growth(len, len + 1);
        Ok(())
    }

    /// Appends `more` (`extend`, `+=`, `[*a, *b]`, `list(iterable)`), or `MemoryError`.
    /// `hint` is the count CPython's `list_extend` makes room for first: the length of a
    /// sized iterable, else its length hint (8 when it has none).
    pub fn extend(&self, more: Vec<Value>, hint: usize) -> OpResult<()> {
        let mut items = self.items.borrow_mut();
        let len = items.len();
        grow_for(&mut items, more.len())?;
        items.extend(more);
        self.note_extend(len, items.len(), hint);
        Ok(())
    }

    /// CPython's room after `list_extend` from `len` to `new_len` items: room for the hint
    /// (exactly, rounded up to even, in a list with none yet), then what appending the items
    /// past it gives, then the cut back of a guess that was too large.
    fn note_extend(&self, len: usize, new_len: usize, hint: usize) {
        let mut room = self.room.get();
        if room == 0 {
            room = hint.saturating_add(1) & !1;
        } else if len.saturating_add(hint) > room {
            room = list_room(len.saturating_add(hint), len);
        }
        while room < new_len {
            room = list_room(room + 1, room);
        }
        self.room.set(room);
        self.note_shrink(new_len);
    }

    /// CPython's `allocated` for this list, now `len` items long.
    pub fn cpython_room(&self, len: usize) -> usize {
        self.room.get().max(len)
    }

    /// The list grew from `len` to `new_len` items: CPython's `list_resize` gives it more
    /// room when it has too little.
    #[inline(always)]
    pub fn note_growth(&self, len: usize, new_len: usize) {
        if new_len > self.room.get() {
            self.room.set(list_room(new_len, len));
        }
    }

    /// The list shrank to `new_len` items: `list_resize` gives back room when less than
    /// half of it is used.
    pub fn note_shrink(&self, new_len: usize) {
        if new_len < self.room.get() / 2 {
            self.room.set(list_room(new_len, new_len));
        }
    }

    /// Removes and gives back item `i` (`pop`, `remove`, `del l[i]`), giving back room as
    /// CPython does; the caller drops it, after this list is no longer borrowed.
    pub fn remove_at(&self, i: usize) -> Value {
        let mut items = self.items.borrow_mut();
        let item = items.remove(i);
        self.note_shrink(items.len());
        item
    }

    /// Empties the list (`clear()`, `list.__init__`), freeing its array as CPython does,
    /// and gives back the items for the caller to drop once the list is not borrowed.
    pub fn take_all(&self) -> Vec<Value> {
        self.room.set(0);
        std::mem::take(&mut *self.items.borrow_mut())
    }
}

impl Drop for PyList {
    /// Frees the items last first, as CPython's `list_dealloc` does: what freeing them
    /// reports ("coroutine '…' was never awaited") comes in CPython's order.
    fn drop(&mut self) {
        super::trashcan::free_last_first(self.items.get_mut());
    }
}

impl Drop for PyTuple {
    /// Frees the items last first, as CPython's `tupledealloc` does.
    fn drop(&mut self) {
        if !self.items.is_empty() {
            super::trashcan::free_last_first(&mut std::mem::take(&mut self.items).into_vec());
        }
    }
}

impl Drop for PyDict {
    /// Frees the entries in order, as CPython's `dict_dealloc` does.
    fn drop(&mut self) {
        let table = self.table.get_mut();
        if !table.is_empty() {
            super::trashcan::nest(
                table,
                |table| drop(table.take_entries()),
                |table| Box::new(table.take_entries()),
            );
        }
    }
}

pub struct PyDict {
    pub table: RefCell<DictTable>,
}

pub struct PySet {
    pub table: RefCell<SetTable>,
    pub frozen: bool,
}

impl Value {
    /// The native payload of type `T` of an object made by a library in Rust
    /// (`ObjectKind::Other`): a future, a loop, a deque, …
    pub fn native<T: 'static>(&self) -> Option<&T> {
        match self {
            Value::Object(o) => match &o.kind {
                super::object::ObjectKind::Other(any) => any.downcast_ref::<T>(),
                _ => None,
            },
            _ => None,
        }
    }

    pub fn str(text: impl Into<Box<str>>) -> Value {
        Value::Str(Rc::new(PyStr::new(text)))
    }

    pub fn tuple(items: Vec<Value>) -> Value {
        Value::Tuple(Rc::new(PyTuple {
            items: items.into_boxed_slice(),
        }))
    }

    pub fn list(items: Vec<Value>) -> Value {
        Value::List(Rc::new(PyList::new(items)))
    }

    pub fn dict(table: DictTable) -> Value {
        Value::Dict(Rc::new(PyDict {
            table: RefCell::new(table),
        }))
    }

    pub fn set(table: SetTable, frozen: bool) -> Value {
        Value::Set(Rc::new(PySet {
            table: RefCell::new(table),
            frozen,
        }))
    }

    pub fn object(object: Object) -> Value {
        Value::Object(Rc::new(object))
    }

    pub fn from_bigint(n: BigInt) -> Value {
        match i64::try_from(&n) {
            Ok(small) => Value::Int(small),
            Err(_) => Value::BigInt(Rc::new(n)),
        }
    }

    pub fn is_null(&self) -> bool {
        matches!(self, Value::Null)
    }

    /// Whether this value owns nothing on the heap (no destructor to run).
    #[inline(always)]
    pub fn is_unboxed(&self) -> bool {
        matches!(
            self,
            Value::Null
                | Value::None
                | Value::NotImplemented
                | Value::Ellipsis
                | Value::Bool(_)
                | Value::Int(_)
                | Value::Float(_)
        )
    }

    /// Empties `values` front to back, as a frame's locals are cleared, calling the
    /// out-of-line destructor only for the reference-counted ones.
    #[inline(always)]
    pub fn clear_all(values: &mut Vec<Value>) {
        for v in values.iter_mut() {
            if !v.is_unboxed() {
                drop(std::mem::replace(v, Value::Null));
            }
        }
        // SAFETY: all unboxed now (the loop above took out every other one): forgetting
        // them leaks nothing.
        unsafe { values.set_len(0) };
    }

    /// Drops `self`, deciding inline whether there is anything to free: only a
    /// reference-counted value takes the out-of-line drop (for the hot paths that discard
    /// mostly small ints and singletons, such as a finished frame's locals).
    #[inline(always)]
    pub fn discard(self) {
        if self.is_unboxed() {
            std::mem::forget(self);
        } else {
            drop(self);
        }
    }

    /// Drops this value, the counts of the kinds the hot paths drop most (objects, lists)
    /// inline, nothing for an unboxed one, the rest through the out-of-line destructor:
    /// what an instruction pops and is done with.
    #[inline(always)]
    pub fn release(self) {
        match self {
            Value::Object(o) => drop(o),
            Value::List(l) => drop(l),
            other => other.discard(),
        }
    }

    pub fn is_none(&self) -> bool {
        matches!(self, Value::None)
    }

    /// `a is b`.
    pub fn is(&self, other: &Value) -> bool {
        use Value::*;
        match (self, other) {
            (Null, Null) | (None, None) | (NotImplemented, NotImplemented) => true,
            (Ellipsis, Ellipsis) => true,
            (Bool(a), Bool(b)) => a == b,
            // Small ints are cached in CPython; all unboxed ints compare by value here.
            (Int(a), Int(b)) => a == b,
            (Float(a), Float(b)) => a.to_bits() == b.to_bits(),
            (BigInt(a), BigInt(b)) => Rc::ptr_eq(a, b),
            (Str(a), Str(b)) => Rc::ptr_eq(a, b),
            (Tuple(a), Tuple(b)) => Rc::ptr_eq(a, b),
            (List(a), List(b)) => Rc::ptr_eq(a, b),
            (Dict(a), Dict(b)) => Rc::ptr_eq(a, b),
            (Set(a), Set(b)) => Rc::ptr_eq(a, b),
            (Type(a), Type(b)) => Rc::ptr_eq(a, b),
            (Function(a), Function(b)) => Rc::ptr_eq(a, b),
            (Object(a), Object(b)) => Rc::ptr_eq(a, b),
            _ => false,
        }
    }

    /// A stable address for `id()` and default reprs.
    pub fn address(&self) -> usize {
        match self {
            Value::BigInt(r) => Rc::as_ptr(r) as usize,
            Value::Str(r) => Rc::as_ptr(r) as usize,
            Value::Tuple(r) => Rc::as_ptr(r) as usize,
            Value::List(r) => Rc::as_ptr(r) as usize,
            Value::Dict(r) => Rc::as_ptr(r) as usize,
            Value::Set(r) => Rc::as_ptr(r) as usize,
            Value::Type(r) => Rc::as_ptr(r) as usize,
            Value::Function(r) => Rc::as_ptr(r) as usize,
            Value::Object(r) => Rc::as_ptr(r) as usize,
            // Made up, as these values have no box: wrapping, as a negative int or a float's
            // bits times 32 may pass the top of the address space.
            Value::Int(n) => (*n as usize).wrapping_mul(32).wrapping_add(0x1000_0000),
            Value::Float(f) => (f.to_bits() as usize)
                .wrapping_mul(32)
                .wrapping_add(0x2000_0000),
            Value::Bool(b) => 0x3000_0000 + *b as usize * 32,
            Value::None => 0x3000_0100,
            Value::NotImplemented => 0x3000_0200,
            Value::Ellipsis => 0x3000_0300,
            Value::Null => 0,
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::Str(s) => Some(s.as_str()),
            _ => None,
        }
    }

    /// The str this is, or the one an instance of a subclass of `str` extends (a
    /// `StrEnum` member): what a native taking a str argument reads, as CPython's
    /// `PyUnicode_Check` accepts subclasses.
    pub fn str_or_subclass(&self) -> Option<&Rc<PyStr>> {
        match self {
            Value::Str(s) => Some(s),
            Value::Object(o) => match o.builtin_base() {
                Some(Value::Str(s)) => Some(s),
                _ => None,
            },
            _ => None,
        }
    }
}

pub type DictTable = crate::common::set_table::DictTable<Value, Value>;

pub type SetTable = crate::common::set_table::SetTable<Value>;
