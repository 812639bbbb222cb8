//! `sys.getsizeof` and `object.__sizeof__`: the sizes CPython 3.13 reports for the same
//! objects on a 64-bit build, worked out from what the object holds, not from apy's own
//! layout (a lesson comparing a list with a generator prints CPython's figures).
//!
//! In: a value. Out: CPython's `__sizeof__` for it (its struct, plus the items, digits,
//! characters or table it owns), and for `getsizeof` the header CPython puts in front of
//! it (`_PyType_PreHeaderSize`: 16 bytes of GC links for a container type, 16 more for an
//! instance whose class keeps a `__dict__`). Exact for numbers, strings, bytes, tuples,
//! sets, plain instances, functions and generators; a list's room is CPython's
//! (`PyList::cpython_room`); a dict's table is the one CPython grows to by inserting its
//! keys one by one (a dict that lost keys reports less than CPython's, which never
//! shrinks). Native objects CPython writes in C have their struct size from a table;
//! others are Python classes in CPython, reported as a plain instance.

use std::rc::Rc;

use crate::vm::args::check_arity;
use crate::vm::bytes::PyBytes;
use crate::vm::object::{KwArgs, ObjectKind, PyType};
use crate::vm::slots::SlotValues;
use crate::vm::types::lookup;
use crate::vm::value::{DictTable, PyStr, Value};
use crate::vm::{PyResult, Vm};

/// `PyGC_Head`: in front of every object of a container type.
const GC_HEADER: usize = 16;
/// The managed `__dict__` and weakref pointers in front of a Python class's instance.
const DICT_HEADER: usize = 16;

/// `sys.getsizeof(object[, default])`: `type(object).__sizeof__(object)` plus the header,
/// or `default` when that raises TypeError.
pub fn getsizeof(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    crate::vm::args::check_kwargs(vm, "getsizeof", kw, &["default"])?;
    check_arity(vm, "getsizeof", args, 1, 2)?;
    let default = args
        .get(1)
        .cloned()
        .or_else(|| crate::vm::args::kwarg(kw, "default"));
    match size_with_header(vm, &args[0]) {
        Ok(size) => Ok(Value::Int(size as i64)),
        Err(e) if default.is_some() && vm.exc_matches(&e, &vm.types.type_error.clone()) => {
            Ok(default.unwrap_or(Value::None))
        }
        Err(e) => Err(e),
    }
}

/// `object.__sizeof__(self)`: the size of the object itself, without the header.
pub fn object_sizeof(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    let Some(this) = args.first() else {
        return Err(vm.type_error("unbound method object.__sizeof__() needs an argument"));
    };
    check_arity(vm, "__sizeof__", &args[1..], 0, 0)?;
    Ok(Value::Int(own_size(vm, this) as i64))
}

/// `_PySys_GetSizeOf`: the type's `__sizeof__` (a Python override is called and checked),
/// plus the header.
fn size_with_header(vm: &mut Vm, v: &Value) -> PyResult<usize> {
    let name = vm.intern("__sizeof__");
    let own = match lookup(vm.type_of(v), &name) {
        Some(found) if !is_native_sizeof(vm, &found, &name) => {
            let r = vm.call_method(v, "__sizeof__", &[])?;
            let size = match r {
                Value::Int(n) => n,
                Value::Bool(b) => i64::from(b),
                Value::BigInt(_) => {
                    return Err(vm.overflow_error("Python int too large to convert to C ssize_t"));
                }
                _ => return Err(vm.type_error("an integer is required")),
            };
            if size < 0 {
                return Err(vm.value_error("__sizeof__() should return >= 0"));
            }
            size as usize
        }
        _ => own_size(vm, v),
    };
    Ok(own + header(vm, v))
}

/// Whether `found` is `object.__sizeof__` itself (not overridden).
fn is_native_sizeof(vm: &Vm, found: &Value, name: &Rc<PyStr>) -> bool {
    lookup(&vm.types.object, name).is_some_and(|native| native.is(found))
}

/// What CPython puts in front of the object: GC links for a container, and the managed
/// dict and weakref pointers for an instance of a Python class that keeps a `__dict__`.
fn header(vm: &Vm, v: &Value) -> usize {
    let ty = vm.type_of(v);
    let python_class = GC_HEADER + if ty.no_dict { 0 } else { DICT_HEADER };
    match v {
        Value::List(_) | Value::Tuple(_) | Value::Dict(_) | Value::Set(_) | Value::Function(_) => {
            GC_HEADER
        }
        // A class made by a class statement; the built-in ones are static in CPython.
        Value::Type(t) if !t.builtin => GC_HEADER,
        Value::Object(o) => match &o.kind {
            ObjectKind::Bare
            | ObjectKind::Range(_)
            | ObjectKind::Code(_)
            | ObjectKind::Complex(_) => 0,
            ObjectKind::Plain(_) | ObjectKind::Builtin(_) => python_class,
            ObjectKind::Exception(_) if !ty.builtin => python_class,
            ObjectKind::Other(any) if any.is::<SlotValues>() => python_class,
            ObjectKind::Iter(_) | ObjectKind::Other(_) => match native_of(ty) {
                Some((native, (_, header))) if Rc::ptr_eq(&native, ty) => header,
                // A Python subclass of a native type.
                Some((_, (_, header))) => header.max(GC_HEADER) + DICT_HEADER,
                // In CPython, an instance of a class written in Python.
                None => python_class,
            },
            _ => GC_HEADER,
        },
        _ => 0,
    }
}

/// `type(v).__sizeof__(v)` as CPython's built-in types compute it; an instance of a
/// Python class is its built-in base's struct and a pointer per slot.
fn own_size(vm: &Vm, v: &Value) -> usize {
    let ty = vm.type_of(v);
    match v {
        Value::Null | Value::None | Value::NotImplemented | Value::Ellipsis => 16,
        Value::Bool(_) => int_size(1),
        Value::Int(i) => int_size(64 - i.unsigned_abs().leading_zeros() as u64),
        Value::BigInt(b) => int_size(b.bits()),
        Value::Float(_) => 24,
        Value::Str(s) => str_size(s),
        Value::Tuple(t) => 24 + 8 * t.items.len(),
        Value::List(l) => 40 + 8 * l.cpython_room(l.items.borrow().len()),
        Value::Dict(d) => dict_size(&d.table.borrow()),
        Value::Set(s) => match s.table.borrow().table_size() {
            // The eight slots inside the set object itself.
            8 => 200,
            slots => 200 + 16 * slots,
        },
        Value::Type(t) if t.builtin => 416,
        Value::Type(_) => 1696,
        Value::Function(_) => 144,
        Value::Object(o) => match &o.kind {
            ObjectKind::Bare => 16,
            ObjectKind::Plain(_) => 16 + 8 * slot_count(ty),
            ObjectKind::Other(any) if any.is::<SlotValues>() => 16 + 8 * slot_count(ty),
            ObjectKind::Builtin(inner) => own_size(vm, inner) + 8 * slot_count(ty),
            ObjectKind::Exception(_) => exception_size(ty) + 8 * slot_count(ty),
            ObjectKind::Native(_) => 56,
            ObjectKind::BoundMethod { func, .. } => match func {
                Value::Function(_) => 48,
                _ => 56,
            },
            ObjectKind::Cell(_) => 24,
            ObjectKind::Module { .. } => 56,
            ObjectKind::Range(_) => 48,
            ObjectKind::Complex(_) => 32,
            ObjectKind::Slice { .. } => 40,
            ObjectKind::Property { .. } => 64,
            ObjectKind::ClassMethod(_) | ObjectKind::StaticMethod(_) => 32,
            ObjectKind::Super { .. } => 40,
            ObjectKind::Partial { .. } => 64,
            ObjectKind::DictView { .. } => 24,
            ObjectKind::Generator(g) => 144 + 8 * g.code.head.frame_size(),
            ObjectKind::Other(any) if let Some(bytes) = any.downcast_ref::<PyBytes>() => {
                let len = bytes.data().len();
                match &*ty.name() {
                    // The buffer of a bytearray that has one ends in a NUL.
                    "bytearray" => 56 + if len == 0 { 0 } else { len + 1 },
                    _ => 33 + len,
                }
            }
            // In CPython, an instance of a class written in Python.
            _ => native_of(ty).map_or(16, |(_, (size, _))| size),
        },
    }
}

/// The slots the classes of `ty`'s MRO declare (`__dict__` and `__weakref__` are headers).
fn slot_count(ty: &PyType) -> usize {
    let mro = ty.mro.borrow();
    mro.iter()
        .filter(|c| !c.builtin)
        .filter_map(|c| {
            let dict = c.dict.borrow();
            let slots = crate::vm::dict::StrKeys::get_str(&*dict, &PyStr::new("__slots__"))?;
            Some(match slots {
                Value::Str(s) => usize::from(!is_header_slot(s.as_str())),
                Value::Tuple(t) => count_slots(&t.items),
                Value::List(l) => count_slots(&l.items.borrow()),
                _ => 0,
            })
        })
        .sum()
}

fn count_slots(names: &[Value]) -> usize {
    names
        .iter()
        .filter(|n| n.as_str().is_some_and(|n| !is_header_slot(n)))
        .count()
}

fn is_header_slot(name: &str) -> bool {
    name == "__dict__" || name == "__weakref__"
}

/// `int.__sizeof__`: the header and one 30-bit digit per 30 bits (at least one).
fn int_size(bits: u64) -> usize {
    24 + 4 * bits.div_ceil(30).max(1) as usize
}

/// `str.__sizeof__` of a compact string: ASCII in one byte a character after a short
/// header; otherwise one, two or four bytes a character (by the widest) after a longer one;
/// plus the terminating NUL.
fn str_size(s: &PyStr) -> usize {
    let text = s.as_str();
    if s.is_ascii() {
        return 40 + text.len() + 1;
    }
    let widest = text.chars().map(u32::from).max().unwrap_or(0);
    if widest < 0x100 && text.chars().nth(1).is_none() {
        // One Latin-1 character: CPython's shared one-character string, which carries its
        // UTF-8 form (two bytes and a NUL) too.
        return 61;
    }
    let width = match widest {
        0..=0xff => 1,
        0x100..=0xffff => 2,
        _ => 4,
    };
    56 + width * (text.chars().count() + 1)
}

/// `dict.__sizeof__`: the dict, and its keys table as inserting the keys one by one grows
/// it in CPython (8 slots, then `calculate_log2_keysize(used * 3)` each time the usable
/// two thirds are full), with 16-byte entries when every key is a str, else 24.
fn dict_size(table: &DictTable) -> usize {
    let len = table.len();
    if len == 0 {
        return 48;
    }
    let usable = |log2: u32| (2usize << log2) / 3;
    let mut log2 = 3;
    while len > usable(log2) {
        log2 = keys_log2_size(usable(log2) * 3);
    }
    let index_bytes = match log2 {
        0..8 => 1,
        8..16 => 2,
        16..32 => 4,
        _ => 8,
    };
    let all_str = table.iter().all(|e| matches!(e.key, Value::Str(_)));
    let entry = if all_str { 16 } else { 24 };
    48 + 32 + (index_bytes << log2) + usable(log2) * entry
}

/// CPython's `calculate_log2_keysize`: the table for at least `minsize` slots.
fn keys_log2_size(minsize: usize) -> u32 {
    usize::BITS - (((minsize | 8) - 1) | 7).leading_zeros()
}

/// `BaseException.__sizeof__` for the built-in exception class behind `ty`: the exceptions
/// with fields of their own are larger.
fn exception_size(ty: &PyType) -> usize {
    let mro = ty.mro.borrow();
    let Some(builtin) = mro.iter().find(|c| c.builtin) else {
        return 72;
    };
    let is = |name: &str| builtin.mro.borrow().iter().any(|c| &*c.name() == name);
    if is("SyntaxError") {
        136
    } else if is("OSError") || is("UnicodeError") {
        112
    } else if is("ImportError") {
        104
    } else if is("AttributeError") || is("BaseExceptionGroup") {
        88
    } else if is("StopIteration") || is("SystemExit") || is("NameError") {
        80
    } else {
        72
    }
}

/// The first class of `ty`'s MRO whose size CPython's C code gives ([`native_size_of`]),
/// and that size.
fn native_of(ty: &Rc<PyType>) -> Option<(Rc<PyType>, (usize, usize))> {
    let mro = ty.mro.borrow();
    mro.iter()
        .find_map(|c| native_size_of(&c.name()).map(|size| (c.clone(), size)))
}

/// CPython's struct size of a native object written in C, by its type's name, and the
/// header in front of it (GC links, and a dict for the asyncio ones); None for a type
/// CPython writes in Python.
fn native_size_of(name: &str) -> Option<(usize, usize)> {
    const GC: usize = GC_HEADER;
    Some(match name {
        "list_iterator"
        | "tuple_iterator"
        | "str_ascii_iterator"
        | "str_iterator"
        | "bytes_iterator"
        | "list_reverseiterator"
        | "reversed"
        | "map"
        | "filter"
        | "callable_iterator"
        | "chain"
        | "repeat"
        | "method-wrapper" => (32, GC),
        "range_iterator" | "longrange_iterator" => (40, 0),
        "dict_keyiterator"
        | "dict_valueiterator"
        | "dict_itemiterator"
        | "dict_reversekeyiterator"
        | "dict_reversevalueiterator"
        | "dict_reverseitemiterator"
        | "enumerate"
        | "islice"
        | "accumulate" => (56, GC),
        "set_iterator" | "zip" => (48, GC),
        "count" => (40, GC),
        "cycle" | "product" => (64, GC),
        "bytes" | "bytearray" => (0, 0),
        "Future" => (104, GC + DICT_HEADER),
        "Task" => (144, GC + DICT_HEADER),
        _ => return None,
    })
}
