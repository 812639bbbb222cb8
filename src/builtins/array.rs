//! The `array` module (CPython's `Modules/arraymodule.c`): `array.array`, a sequence of
//! machine values of one C type named by a typecode (`'b'` signed char … `'d'` double,
//! `'u'`/`'w'` characters), kept as the raw bytes C would hold (native byte order), so
//! `tobytes`, `frombytes`, `byteswap` and `buffer_info` are what they are in CPython.
//! Items are encoded when stored, with CPython's OverflowError and TypeError texts for a
//! value the C type cannot hold, and decoded to ints, floats or one-character strings
//! when read. `bytes(a)` and the other takers of a bytes-like object read an array
//! through `bytes_type::bytes_of`.
//!
//! Where apy differs: an iterator is the sequence protocol's (`iterator`, not
//! `array.arrayiterator`), `memoryview(a)` is refused, and a `'w'` item that
//! is no code point reads as ValueError where CPython's `tounicode` raises
//! UnicodeDecodeError.

use std::cell::RefCell;
use std::rc::Rc;

use num_bigint::BigInt;

use super::bytes_type::{buffer_arg, payload};
use super::deque::{other_may_answer, repeat_count};
use super::module_args::as_double;
use crate::common::int_ops::Int;
use crate::common::sizes::repeat_items;
use crate::compile::bytecode::CompareOperator;
use crate::vm::args::check_arity;
use crate::vm::object::{IterState, KwArgs, Layout, Object, ObjectKind, PyType};
use crate::vm::types::make_type;
use crate::vm::value::Value;
use crate::vm::{PyResult, Vm};

/// The typecodes, in CPython's order (`array.typecodes`).
const TYPECODES: &str = "bBuwhHiIlLqQfd";

/// One array: its typecode and its items' bytes, `code.size()` bytes an item.
pub struct Array {
    code: TypeCode,
    data: RefCell<Vec<u8>>,
}

impl Array {
    /// A copy of the items' bytes (`tobytes()`, and `bytes(a)` through `bytes_of`).
    pub fn to_bytes(&self) -> Vec<u8> {
        self.data.borrow().clone()
    }

    fn len(&self) -> usize {
        self.data.borrow().len() / self.code.size()
    }

    /// The item at `i` (< len).
    fn item(&self, vm: &Vm, i: usize) -> PyResult<Value> {
        let size = self.code.size();
        decode(vm, self.code, &self.data.borrow()[i * size..(i + 1) * size])
    }

    fn items(&self, vm: &Vm) -> PyResult<Vec<Value>> {
        (0..self.len()).map(|i| self.item(vm, i)).collect()
    }

    /// The byte range of items `start..stop`.
    fn span(&self, start: usize, stop: usize) -> std::ops::Range<usize> {
        start * self.code.size()..stop * self.code.size()
    }
}

/// A typecode: which C type the items are.
#[derive(Clone, Copy, PartialEq, Eq)]
struct TypeCode(u8);

impl TypeCode {
    fn parse(c: &str) -> Option<TypeCode> {
        match c.as_bytes() {
            [b] if TYPECODES.as_bytes().contains(b) => Some(TypeCode(*b)),
            _ => None,
        }
    }

    /// The C type's size in bytes (as on a 64-bit Linux: `long` is 8, `wchar_t` 4).
    fn size(self) -> usize {
        match self.0 {
            b'b' | b'B' => 1,
            b'h' | b'H' => 2,
            b'i' | b'I' | b'u' | b'w' | b'f' => 4,
            _ => 8,
        }
    }

    fn is_char(self) -> bool {
        matches!(self.0, b'u' | b'w')
    }

    fn is_float(self) -> bool {
        matches!(self.0, b'f' | b'd')
    }

    fn as_char(self) -> char {
        char::from(self.0)
    }
}

/// Why an int does not fit the C type of `code`: CPython's OverflowError text, which
/// follows the conversion its `*_setitem` makes (`b` goes through a C short first, `H`
/// through a C int, `I` and `L` through an unsigned long, `q` and `Q` through long long).
fn int_misfit(code: TypeCode, n: i128) -> Option<&'static str> {
    const C_LONG: &str = "Python int too large to convert to C long";
    const C_ULONG: &str = "Python int too large to convert to C unsigned long";
    let fits_long = i64::try_from(n).is_ok();
    let range = |lo: i128, hi: i128, low: &'static str, high: &'static str| {
        if n < lo {
            Some(low)
        } else if n > hi {
            Some(high)
        } else {
            None
        }
    };
    let short = || {
        range(
            i16::MIN.into(),
            i16::MAX.into(),
            "signed short integer is less than minimum",
            "signed short integer is greater than maximum",
        )
    };
    let int = || {
        range(
            i32::MIN.into(),
            i32::MAX.into(),
            "signed integer is less than minimum",
            "signed integer is greater than maximum",
        )
    };
    let unsigned_long = || {
        if n < 0 {
            Some("can't convert negative value to unsigned int")
        } else if n > u64::MAX.into() {
            Some(C_ULONG)
        } else {
            None
        }
    };
    if !fits_long && matches!(code.0, b'b' | b'B' | b'h' | b'H' | b'i' | b'l') {
        return Some(C_LONG);
    }
    match code.0 {
        b'b' => short().or_else(|| {
            range(
                i8::MIN.into(),
                i8::MAX.into(),
                "signed char is less than minimum",
                "signed char is greater than maximum",
            )
        }),
        b'B' => range(
            0,
            u8::MAX.into(),
            "unsigned byte integer is less than minimum",
            "unsigned byte integer is greater than maximum",
        ),
        b'h' => short(),
        b'H' => int().or_else(|| {
            range(
                0,
                u16::MAX.into(),
                "unsigned short is less than minimum",
                "unsigned short is greater than maximum",
            )
        }),
        b'i' => int(),
        b'I' => unsigned_long().or_else(|| {
            range(
                0,
                u32::MAX.into(),
                "",
                "unsigned int is greater than maximum",
            )
        }),
        b'L' => unsigned_long(),
        b'q' => (!fits_long).then_some("int too big to convert"),
        b'Q' if n < 0 => Some("can't convert negative int to unsigned"),
        b'Q' => (n > u64::MAX.into()).then_some("int too big to convert"),
        _ => None,
    }
}

/// `v` as an item of `code`, appended to `out` in native byte order.
fn encode(vm: &mut Vm, code: TypeCode, v: &Value, out: &mut Vec<u8>) -> PyResult<()> {
    if code.is_char() {
        let c = match v {
            Value::Str(s) => {
                let mut chars = s.as_str().chars();
                match (chars.next(), chars.next()) {
                    (Some(c), None) => Some(c),
                    _ => None,
                }
            }
            _ => None,
        };
        let c = c.ok_or_else(|| vm.type_error("array item must be unicode character"))?;
        out.extend_from_slice(&u32::from(c).to_ne_bytes());
        return Ok(());
    }
    if code.is_float() {
        let x = as_double(vm, v)?;
        match code.0 {
            b'f' => out.extend_from_slice(&(x as f32).to_ne_bytes()),
            _ => out.extend_from_slice(&x.to_ne_bytes()),
        }
        return Ok(());
    }
    let n: i128 = match super::module_args::index_int(vm, v)? {
        Int::Small(n) => n.into(),
        // Beyond i128 every check fails as it does for i128's end on that side.
        Int::Big(b) => i128::try_from(&b).unwrap_or(if b.sign() == num_bigint::Sign::Minus {
            i128::MIN
        } else {
            i128::MAX
        }),
    };
    if let Some(message) = int_misfit(code, n) {
        return Err(vm.overflow_error(message));
    }
    // In range: the value in the C type's width (two's complement for a negative one).
    match code.size() {
        1 => out.push(n as u8),
        2 => out.extend_from_slice(&(n as u16).to_ne_bytes()),
        4 => out.extend_from_slice(&(n as u32).to_ne_bytes()),
        _ => out.extend_from_slice(&(n as u64).to_ne_bytes()),
    }
    Ok(())
}

/// The item of `code` held in `bytes` (exactly its size).
fn decode(vm: &Vm, code: TypeCode, bytes: &[u8]) -> PyResult<Value> {
    // The bits of the item, zero-extended.
    let bits = match *bytes {
        [a] => u64::from(a),
        [a, b] => u16::from_ne_bytes([a, b]).into(),
        [a, b, c, d] => u32::from_ne_bytes([a, b, c, d]).into(),
        [a, b, c, d, e, f, g, h] => u64::from_ne_bytes([a, b, c, d, e, f, g, h]),
        _ => 0,
    };
    Ok(match code.0 {
        b'b' => Value::Int((bits as u8 as i8).into()),
        b'h' => Value::Int((bits as u16 as i16).into()),
        b'i' => Value::Int((bits as u32 as i32).into()),
        b'l' | b'q' => Value::Int(bits as i64),
        b'f' => Value::Float(f32::from_bits(bits as u32).into()),
        b'd' => Value::Float(f64::from_bits(bits)),
        b'u' | b'w' => {
            let c = char::from_u32(bits as u32)
                .ok_or_else(|| vm.value_error("chr() arg not in range(0x110000)"))?;
            Value::str(c.to_string())
        }
        // B, H, I, L, Q
        _ => Value::from_bigint(BigInt::from(bits)),
    })
}

fn array_of<'a>(vm: &Vm, v: &'a Value) -> PyResult<&'a Array> {
    v.native::<Array>()
        .ok_or_else(|| vm.type_error("descriptor requires a 'array.array' object"))
}

thread_local! {
    /// The `array.array` type, made with the module.
    static ARRAY_TYPE: RefCell<Option<Rc<PyType>>> = const { RefCell::new(None) };
}

fn array_type() -> Option<Rc<PyType>> {
    ARRAY_TYPE.with(|t| t.borrow().clone())
}

/// A new array of class `cls` (`array.array` when None); an instance of a subclass has a
/// `__dict__` too.
fn new_array(cls: Option<&Rc<PyType>>, code: TypeCode, data: Vec<u8>) -> Value {
    let plain = array_type().expect("the array module is made before an array");
    let cls = cls.unwrap_or(&plain);
    let kind = ObjectKind::Other(Box::new(Array {
        code,
        data: RefCell::new(data),
    }));
    if Rc::ptr_eq(cls, &plain) {
        Value::object(Object::new(cls.clone(), kind))
    } else {
        Value::object(Object::with_dict(cls.clone(), kind))
    }
}

/// `array(typecode[, initializer])`.
fn array_new(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let Some(Value::Type(cls)) = args.first() else {
        return Err(vm.type_error("array.__new__(X): X is not a type object"));
    };
    if !kw.is_empty() {
        return Err(vm.type_error("array.array() takes no keyword arguments"));
    }
    let n = args.len() - 1;
    if n == 0 {
        return Err(vm.type_error("array() takes at least 1 argument (0 given)"));
    }
    if n > 2 {
        return Err(vm.type_error(format!("array() takes at most 2 arguments ({n} given)")));
    }
    let code = match &args[1] {
        Value::Str(s) if s.as_str().chars().count() == 1 => TypeCode::parse(s.as_str())
            .ok_or_else(|| {
                vm.value_error("bad typecode (must be b, B, u, h, H, i, I, l, L, q, Q, f or d)")
            })?,
        other => {
            return Err(vm.type_error(format!(
                "array() argument 1 must be a unicode character, not {}",
                vm.arg_type_name(other)
            )));
        }
    };
    if code.0 == b'u' {
        vm.deprecation_in_main(
            "The 'u' type code is deprecated and will be removed in Python 3.16",
        );
    }
    let this = new_array(Some(cls), code, Vec::new());
    let Some(init) = args.get(2) else {
        return Ok(this);
    };
    if let Value::Str(s) = init {
        if !code.is_char() {
            return Err(vm.type_error(format!(
                "cannot use a str to initialize an array with typecode '{}'",
                code.as_char()
            )));
        }
        append_text(array_of(vm, &this)?, s.as_str());
        return Ok(this);
    }
    if let Some(other) = init.native::<Array>()
        && other.code.is_char()
        && !code.is_char()
    {
        return Err(vm.type_error(format!(
            "cannot use a unicode array to initialize an array with typecode '{}'",
            code.as_char()
        )));
    }
    if let Some(bytes) = payload(init) {
        let data = bytes.data().clone();
        from_bytes(vm, &this, &data)?;
        return Ok(this);
    }
    extend_from_iterable(vm, &this, init)?;
    Ok(this)
}

fn append_text(a: &Array, text: &str) {
    let mut data = a.data.borrow_mut();
    for c in text.chars() {
        data.extend_from_slice(&u32::from(c).to_ne_bytes());
    }
}

/// `frombytes`: the bytes appended as items; ValueError unless they are whole items.
fn from_bytes(vm: &Vm, this: &Value, bytes: &[u8]) -> PyResult<()> {
    let a = array_of(vm, this)?;
    if !bytes.len().is_multiple_of(a.code.size()) {
        return Err(vm.value_error("bytes length not a multiple of item size"));
    }
    a.data.borrow_mut().extend_from_slice(bytes);
    Ok(())
}

/// Every item of `iterable` appended, each encoded as it comes (so a bad item leaves the
/// ones before it in place, as CPython's `array_iter_extend` does).
fn extend_from_iterable(vm: &mut Vm, this: &Value, iterable: &Value) -> PyResult<()> {
    let code = array_of(vm, this)?.code;
    let it = vm.get_iter(iterable)?;
    let mut item = Vec::with_capacity(8);
    while let Some(v) = vm.next(&it)? {
        vm.charge(1)?;
        item.clear();
        encode(vm, code, &v, &mut item)?;
        array_of(vm, this)?
            .data
            .borrow_mut()
            .extend_from_slice(&item);
    }
    Ok(())
}

/// `extend`, `+=`: an array must be of the same typecode; any other iterable is walked.
fn extend(vm: &mut Vm, this: &Value, other: &Value) -> PyResult<()> {
    if let Some(b) = other.native::<Array>() {
        let a = array_of(vm, this)?;
        if a.code != b.code {
            return Err(vm.type_error("can only extend with array of same kind"));
        }
        let more = b.to_bytes();
        a.data.borrow_mut().extend_from_slice(&more);
        return Ok(());
    }
    extend_from_iterable(vm, this, other)
}

fn array_repr(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    let this = &args[0];
    let a = array_of(vm, this)?;
    let name = vm.type_of(this).name();
    let code = a.code.as_char();
    if a.len() == 0 {
        return Ok(Value::str(format!("{name}('{code}')")));
    }
    let inner = if a.code.is_char() {
        Value::str(to_text(vm, a)?)
    } else {
        Value::list(a.items(vm)?)
    };
    let inner = vm.repr(&inner)?;
    Ok(Value::str(format!("{name}('{code}', {inner})")))
}

/// The characters of a `'u'`/`'w'` array as a string.
fn to_text(vm: &Vm, a: &Array) -> PyResult<String> {
    let mut text = String::new();
    for v in a.items(vm)? {
        if let Value::Str(s) = v {
            text.push_str(s.as_str());
        }
    }
    Ok(text)
}

/// A position given to `a[i]`, counted from the end when negative; `message` when out of
/// range.
fn item_position(vm: &mut Vm, a_len: usize, key: &Value, message: &str) -> PyResult<usize> {
    let Some(i) = vm.sequence_index(key)? else {
        return Err(vm.type_error("array indices must be integers"));
    };
    let n = a_len as i64;
    let j = if i < 0 { i + n } else { i };
    if !(0..n).contains(&j) {
        return Err(vm.index_error(message.to_string()));
    }
    Ok(j as usize)
}

/// The slice `key` stands for over `len` items: (start, step, count), or None for a
/// key that is no slice.
fn slice_of(vm: &mut Vm, key: &Value, len: usize) -> PyResult<Option<(i64, i64, usize)>> {
    if let Value::Object(o) = key
        && let ObjectKind::Slice { start, stop, step } = &o.kind
    {
        let (start, _, step, count) = vm.slice_indices(len, start, stop, step)?;
        return Ok(Some((start, step, count)));
    }
    Ok(None)
}

/// The item positions of a slice, in order.
fn positions(start: i64, step: i64, count: usize) -> impl Iterator<Item = usize> {
    (0..count).map(move |k| (start + k as i64 * step) as usize)
}

fn array_getitem(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    arity(vm, "__getitem__", args, 1, 1)?;
    let len = array_of(vm, &args[0])?.len();
    if let Some((start, step, count)) = slice_of(vm, &args[1], len)? {
        let a = array_of(vm, &args[0])?;
        let size = a.code.size();
        let data = a.data.borrow();
        let mut picked = Vec::with_capacity(count * size);
        for i in positions(start, step, count) {
            picked.extend_from_slice(&data[i * size..(i + 1) * size]);
        }
        return Ok(new_array(None, a.code, picked));
    }
    let i = item_position(vm, len, &args[1], "array index out of range")?;
    array_of(vm, &args[0])?.item(vm, i)
}

fn array_setitem(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    arity(vm, "__setitem__", args, 2, 2)?;
    let (this, key, value) = (&args[0], &args[1], &args[2]);
    let a = array_of(vm, this)?;
    let len = a.len();
    if let Some((start, step, count)) = slice_of(vm, key, len)? {
        let Some(b) = value.native::<Array>() else {
            return Err(vm.type_error(format!(
                "can only assign array (not \"{}\") to array slice",
                vm.type_name(value)
            )));
        };
        if a.code != b.code {
            return Err(vm.type_error("bad argument type for built-in operation"));
        }
        let new = b.to_bytes();
        let size = a.code.size();
        if step == 1 {
            let span = a.span(start as usize, start as usize + count);
            a.data.borrow_mut().splice(span, new);
            return Ok(Value::None);
        }
        if new.len() / size != count {
            return Err(vm.value_error(format!(
                "attempt to assign array of size {} to extended slice of size {count}",
                new.len() / size
            )));
        }
        let mut data = a.data.borrow_mut();
        for (k, i) in positions(start, step, count).enumerate() {
            data[i * size..(i + 1) * size].copy_from_slice(&new[k * size..(k + 1) * size]);
        }
        return Ok(Value::None);
    }
    let i = item_position(vm, len, key, "array assignment index out of range")?;
    let code = a.code;
    let mut item = Vec::with_capacity(8);
    encode(vm, code, value, &mut item)?;
    let a = array_of(vm, this)?;
    let span = a.span(i, i + 1);
    // `encode` may have run user code (`__index__`) that shrank the array.
    if let Some(slot) = a.data.borrow_mut().get_mut(span) {
        slot.copy_from_slice(&item);
    }
    Ok(Value::None)
}

fn array_delitem(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    arity(vm, "__delitem__", args, 1, 1)?;
    let len = array_of(vm, &args[0])?.len();
    if let Some((start, step, count)) = slice_of(vm, &args[1], len)? {
        let a = array_of(vm, &args[0])?;
        let size = a.code.size();
        let mut doomed = vec![false; len];
        for i in positions(start, step, count) {
            doomed[i] = true;
        }
        let old = a.to_bytes();
        let kept = old
            .chunks(size)
            .zip(doomed)
            .filter(|(_, gone)| !gone)
            .flat_map(|(item, _)| item.iter().copied());
        *a.data.borrow_mut() = kept.collect();
        return Ok(Value::None);
    }
    let i = item_position(vm, len, &args[1], "array assignment index out of range")?;
    let a = array_of(vm, &args[0])?;
    let span = a.span(i, i + 1);
    a.data.borrow_mut().drain(span);
    Ok(Value::None)
}

/// The first position in `start..stop` whose item equals `target`.
fn find(
    vm: &mut Vm,
    this: &Value,
    target: &Value,
    start: usize,
    stop: usize,
) -> PyResult<Option<usize>> {
    let mut i = start;
    loop {
        let a = array_of(vm, this)?;
        // An `__eq__` may have shortened the array meanwhile.
        if i >= stop.min(a.len()) {
            return Ok(None);
        }
        let item = a.item(vm, i)?;
        vm.charge(1)?;
        if vm.eq(&item, target)? {
            return Ok(Some(i));
        }
        i += 1;
    }
}

/// `index(x[, start[, stop]])`'s bounds, clamped as slice bounds are.
fn index_bounds(vm: &mut Vm, args: &[Value], len: usize) -> PyResult<(usize, usize)> {
    let bound = |vm: &mut Vm, v: Option<&Value>, default: usize| -> PyResult<usize> {
        let Some(v) = v else {
            return Ok(default);
        };
        let Some(i) = vm.index_value(v)? else {
            return Err(vm.type_error("slice indices must be integers or have an __index__ method"));
        };
        let n = len as i64;
        Ok((if i < 0 { (i + n).max(0) } else { i.min(n) }) as usize)
    };
    Ok((bound(vm, args.get(2), 0)?, bound(vm, args.get(3), len)?))
}

/// `a < b` and the others between two arrays, as CPython's `array_richcompare`: the
/// first pair of items that are not equal decides (compared afresh each time, so NaN is
/// not equal to itself), or else the lengths do; arrays of different lengths are never
/// equal. Anything else than two arrays is NotImplemented.
fn array_compare(vm: &mut Vm, args: &[Value], op: CompareOperator) -> PyResult<Value> {
    let (Some(a), Some(b)) = (
        args[0].native::<Array>(),
        args.get(1).and_then(|v| v.native::<Array>()),
    ) else {
        return Ok(Value::NotImplemented);
    };
    let (xs, ys) = (a.items(vm)?, b.items(vm)?);
    let equality = matches!(op, CompareOperator::Eq | CompareOperator::Ne);
    if equality && xs.len() != ys.len() {
        return Ok(Value::Bool(op == CompareOperator::Ne));
    }
    for (x, y) in xs.iter().zip(&ys) {
        vm.charge(1)?;
        if !vm.eq(x, y)? {
            return match op {
                CompareOperator::Eq => Ok(Value::Bool(false)),
                CompareOperator::Ne => Ok(Value::Bool(true)),
                _ => vm.compare(op, x, y),
            };
        }
    }
    let (m, n) = (Value::Int(xs.len() as i64), Value::Int(ys.len() as i64));
    vm.compare(op, &m, &n)
}

fn array_add(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    arity(vm, "__add__", args, 1, 1)?;
    let (this, other) = (&args[0], &args[1]);
    let Some(b) = other.native::<Array>() else {
        if other_may_answer(vm, other, "__radd__") {
            return Ok(Value::NotImplemented);
        }
        return Err(vm.type_error(format!(
            "can only append array (not \"{}\") to array",
            vm.type_name(other)
        )));
    };
    let a = array_of(vm, this)?;
    if a.code != b.code {
        return Err(vm.type_error("bad argument type for built-in operation"));
    }
    let mut data = a.to_bytes();
    data.extend_from_slice(&b.data.borrow());
    Ok(new_array(None, a.code, data))
}

/// `a * n`'s bytes: the items `n` times over (none for `n <= 0`); None when `n` is no int.
fn repeated(vm: &mut Vm, this: &Value, n: &Value) -> PyResult<Option<Vec<u8>>> {
    let Some(count) = repeat_count(vm, n)? else {
        return Ok(None);
    };
    let data = array_of(vm, this)?.to_bytes();
    let count = usize::try_from(count).unwrap_or(0);
    repeat_items(&data, count)
        .map(Some)
        .map_err(|e| vm.op_error(e))
}

fn array_mul(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    arity(vm, "__mul__", args, 1, 1)?;
    let (this, n) = (&args[0], &args[1]);
    match repeated(vm, this, n)? {
        Some(data) => Ok(new_array(None, array_of(vm, this)?.code, data)),
        None if other_may_answer(vm, n, "__rmul__") => Ok(Value::NotImplemented),
        None => Err(vm.type_error(format!(
            "can't multiply sequence by non-int of type '{}'",
            vm.type_name(n)
        ))),
    }
}

fn array_imul(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    arity(vm, "__imul__", args, 1, 1)?;
    let (this, n) = (&args[0], &args[1]);
    match repeated(vm, this, n)? {
        Some(data) => {
            *array_of(vm, this)?.data.borrow_mut() = data;
            Ok(this.clone())
        }
        None => Err(vm.type_error(format!(
            "can't multiply sequence by non-int of type '{}'",
            vm.type_name(n)
        ))),
    }
}

/// `fromfile(f, n)`: `n` items read from the binary file `f`; EOFError (after appending
/// what came) when it had fewer.
fn array_fromfile(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    arity(vm, "fromfile", args, 2, 2)?;
    let this = &args[0];
    let n = vm.expect_ssize(&args[2])?;
    if n < 0 {
        return Err(vm.value_error("negative count"));
    }
    let size = array_of(vm, this)?.code.size() as i64;
    let wanted = n
        .checked_mul(size)
        .ok_or_else(|| vm.op_error(crate::common::sizes::no_memory()))?;
    let got = vm.call_method(&args[1], "read", &[Value::Int(wanted)])?;
    let Some(bytes) = payload(&got).map(|b| b.data().clone()) else {
        return Err(vm.type_error("read() didn't return bytes"));
    };
    from_bytes(vm, this, &bytes)?;
    if bytes.len() as i64 != wanted {
        return Err(vm.new_exc(&vm.types.eof_error, "read() didn't return enough bytes"));
    }
    Ok(Value::None)
}

/// CPython's argument-count check of a method: `args` without `self`, so the messages
/// read as its ("array.append() takes exactly one argument (0 given)").
fn arity(vm: &Vm, name: &str, args: &[Value], min: usize, max: usize) -> PyResult<()> {
    check_arity(vm, name, &args[1..], min, max)
}

const METHODS: &[(&str, crate::vm::object::NativeFn)] = &[
    ("__repr__", array_repr),
    ("__getitem__", array_getitem),
    ("__setitem__", array_setitem),
    ("__delitem__", array_delitem),
    ("__add__", array_add),
    ("__mul__", array_mul),
    ("__rmul__", array_mul),
    ("__imul__", array_imul),
    ("fromfile", array_fromfile),
    ("__len__", |vm, args, _| {
        Ok(Value::Int(array_of(vm, &args[0])?.len() as i64))
    }),
    ("__eq__", |vm, args, _| {
        array_compare(vm, args, CompareOperator::Eq)
    }),
    ("__ne__", |vm, args, _| {
        array_compare(vm, args, CompareOperator::Ne)
    }),
    ("__lt__", |vm, args, _| {
        array_compare(vm, args, CompareOperator::Lt)
    }),
    ("__le__", |vm, args, _| {
        array_compare(vm, args, CompareOperator::Le)
    }),
    ("__gt__", |vm, args, _| {
        array_compare(vm, args, CompareOperator::Gt)
    }),
    ("__ge__", |vm, args, _| {
        array_compare(vm, args, CompareOperator::Ge)
    }),
    ("__contains__", |vm, args, _| {
        arity(vm, "__contains__", args, 1, 1)?;
        let len = array_of(vm, &args[0])?.len();
        Ok(Value::Bool(find(vm, &args[0], &args[1], 0, len)?.is_some()))
    }),
    ("__iadd__", |vm, args, _| {
        arity(vm, "__iadd__", args, 1, 1)?;
        if args[1].native::<Array>().is_none() {
            return Err(vm.type_error(format!(
                "can only extend array with array (not \"{}\")",
                vm.type_name(&args[1])
            )));
        }
        extend(vm, &args[0], &args[1])?;
        Ok(args[0].clone())
    }),
    ("__iter__", |vm, args, _| {
        arity(vm, "__iter__", args, 0, 0)?;
        let state = IterState::Seq {
            seq: args[0].clone(),
            index: 0,
        };
        Ok(vm.new_iter(&vm.types.seq_iterator, state))
    }),
    ("__copy__", |vm, args, _| {
        let a = array_of(vm, &args[0])?;
        Ok(new_array(None, a.code, a.to_bytes()))
    }),
    ("__deepcopy__", |vm, args, _| {
        let a = array_of(vm, &args[0])?;
        Ok(new_array(None, a.code, a.to_bytes()))
    }),
    ("append", |vm, args, _| {
        arity(vm, "array.append", args, 1, 1)?;
        let code = array_of(vm, &args[0])?.code;
        let mut item = Vec::with_capacity(8);
        encode(vm, code, &args[1], &mut item)?;
        array_of(vm, &args[0])?
            .data
            .borrow_mut()
            .extend_from_slice(&item);
        Ok(Value::None)
    }),
    ("extend", |vm, args, _| {
        arity(vm, "array.extend", args, 1, 1)?;
        extend(vm, &args[0], &args[1])?;
        Ok(Value::None)
    }),
    ("insert", |vm, args, _| {
        arity(vm, "insert", args, 2, 2)?;
        let i = vm.expect_ssize(&args[1])?;
        let code = array_of(vm, &args[0])?.code;
        let mut item = Vec::with_capacity(8);
        encode(vm, code, &args[2], &mut item)?;
        let a = array_of(vm, &args[0])?;
        let n = a.len() as i64;
        let at = if i < 0 { (i + n).max(0) } else { i.min(n) } as usize;
        let span = a.span(at, at);
        a.data.borrow_mut().splice(span, item);
        Ok(Value::None)
    }),
    ("pop", |vm, args, _| {
        arity(vm, "pop", args, 0, 1)?;
        let i = match args.get(1) {
            Some(v) => vm.expect_ssize(v)?,
            None => -1,
        };
        let a = array_of(vm, &args[0])?;
        let n = a.len() as i64;
        if n == 0 {
            return Err(vm.index_error("pop from empty array"));
        }
        let j = if i < 0 { i + n } else { i };
        if !(0..n).contains(&j) {
            return Err(vm.index_error("pop index out of range"));
        }
        let item = a.item(vm, j as usize)?;
        let span = a.span(j as usize, j as usize + 1);
        a.data.borrow_mut().drain(span);
        Ok(item)
    }),
    ("remove", |vm, args, _| {
        arity(vm, "array.remove", args, 1, 1)?;
        let len = array_of(vm, &args[0])?.len();
        let Some(i) = find(vm, &args[0], &args[1], 0, len)? else {
            return Err(vm.value_error("array.remove(x): x not in array"));
        };
        let a = array_of(vm, &args[0])?;
        let span = a.span(i, i + 1);
        a.data.borrow_mut().drain(span);
        Ok(Value::None)
    }),
    ("index", |vm, args, _| {
        arity(vm, "index", args, 1, 3)?;
        let len = array_of(vm, &args[0])?.len();
        let (start, stop) = index_bounds(vm, args, len)?;
        match find(vm, &args[0], &args[1], start, stop)? {
            Some(i) => Ok(Value::Int(i as i64)),
            None => Err(vm.value_error("array.index(x): x not in array")),
        }
    }),
    ("count", |vm, args, _| {
        arity(vm, "array.count", args, 1, 1)?;
        let mut count = 0;
        let mut i = 0;
        while let Some(item) = {
            let a = array_of(vm, &args[0])?;
            match i < a.len() {
                true => Some(a.item(vm, i)?),
                false => None,
            }
        } {
            vm.charge(1)?;
            count += i64::from(vm.eq(&item, &args[1])?);
            i += 1;
        }
        Ok(Value::Int(count))
    }),
    ("reverse", |vm, args, _| {
        arity(vm, "array.reverse", args, 0, 0)?;
        let a = array_of(vm, &args[0])?;
        let size = a.code.size();
        let mut data = a.data.borrow_mut();
        data.reverse();
        // Reversing the bytes reversed each item's bytes too: put those back.
        for item in data.chunks_mut(size) {
            item.reverse();
        }
        Ok(Value::None)
    }),
    ("byteswap", |vm, args, _| {
        arity(vm, "array.byteswap", args, 0, 0)?;
        let a = array_of(vm, &args[0])?;
        let size = a.code.size();
        for item in a.data.borrow_mut().chunks_mut(size) {
            item.reverse();
        }
        Ok(Value::None)
    }),
    ("buffer_info", |vm, args, _| {
        arity(vm, "array.buffer_info", args, 0, 0)?;
        let a = array_of(vm, &args[0])?;
        let address = a.data.borrow().as_ptr() as usize as i64;
        Ok(Value::tuple(vec![
            Value::Int(address),
            Value::Int(a.len() as i64),
        ]))
    }),
    ("tobytes", |vm, args, _| {
        arity(vm, "array.tobytes", args, 0, 0)?;
        let data = array_of(vm, &args[0])?.to_bytes();
        Ok(vm.new_bytes(data))
    }),
    ("frombytes", |vm, args, _| {
        arity(vm, "array.frombytes", args, 1, 1)?;
        let data = buffer_arg(vm, &args[1])?;
        from_bytes(vm, &args[0], &data)?;
        Ok(Value::None)
    }),
    ("tolist", |vm, args, _| {
        arity(vm, "array.tolist", args, 0, 0)?;
        Ok(Value::list(array_of(vm, &args[0])?.items(vm)?))
    }),
    ("fromlist", |vm, args, _| {
        arity(vm, "array.fromlist", args, 1, 1)?;
        let Value::List(_) = &args[1] else {
            return Err(vm.type_error("arg must be list"));
        };
        // All or nothing: a bad item leaves the array as it was.
        let before = array_of(vm, &args[0])?.to_bytes();
        let result = extend_from_iterable(vm, &args[0], &args[1]);
        if result.is_err() {
            *array_of(vm, &args[0])?.data.borrow_mut() = before;
        }
        result.map(|()| Value::None)
    }),
    ("tofile", |vm, args, _| {
        arity(vm, "array.tofile", args, 1, 1)?;
        let data = array_of(vm, &args[0])?.to_bytes();
        let bytes = vm.new_bytes(data);
        vm.call_method(&args[1], "write", &[bytes])?;
        Ok(Value::None)
    }),
    ("tounicode", |vm, args, _| {
        arity(vm, "array.tounicode", args, 0, 0)?;
        let a = array_of(vm, &args[0])?;
        if !a.code.is_char() {
            return Err(vm.value_error(
                "tounicode() may only be called on unicode type arrays ('u' or 'w')",
            ));
        }
        Ok(Value::str(to_text(vm, a)?))
    }),
    ("fromunicode", |vm, args, _| {
        arity(vm, "array.fromunicode", args, 1, 1)?;
        let Value::Str(s) = &args[1] else {
            return Err(vm.type_error(format!(
                "fromunicode() argument must be str, not {}",
                vm.arg_type_name(&args[1])
            )));
        };
        let a = array_of(vm, &args[0])?;
        if !a.code.is_char() {
            return Err(vm.value_error(
                "fromunicode() may only be called on unicode type arrays ('u' or 'w')",
            ));
        }
        append_text(a, s.as_str());
        Ok(Value::None)
    }),
];

/// The `array` module: `array` (also `ArrayType`) and `typecodes`.
pub fn module(vm: &mut Vm) -> Value {
    vm.ready_bytes();
    let object = vm.types.object.clone();
    // Not `builtin` in apy's sense: its dunders are found by lookup, like a class's.
    let ty = make_type("array", vec![object], Layout::Builtin, false);
    vm.set_type_attr(&ty, "__module__", Value::str("array"));
    vm.set_type_attr(&ty, "__hash__", Value::None);
    ty.match_flags.set(crate::vm::object::MATCH_SEQUENCE);
    vm.add_static(&ty, "__new__", array_new);
    vm.add_method(&ty, "__class_getitem__", crate::vm::generics::class_getitem);
    vm.add_methods(&ty, METHODS);
    vm.add_getset(
        &ty,
        "typecode",
        |vm, v| Ok(Value::str(array_of(vm, v)?.code.as_char().to_string())),
        None,
    );
    vm.add_getset(
        &ty,
        "itemsize",
        |vm, v| Ok(Value::Int(array_of(vm, v)?.code.size() as i64)),
        None,
    );
    ARRAY_TYPE.with(|t| *t.borrow_mut() = Some(ty.clone()));
    let attrs = vec![
        ("array", Value::Type(ty.clone())),
        ("ArrayType", Value::Type(ty)),
        ("typecodes", Value::str(TYPECODES)),
    ];
    vm.new_module("array", attrs)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code(c: &str) -> TypeCode {
        TypeCode::parse(c).unwrap()
    }

    #[test]
    fn misfits_follow_cpythons_conversion_chain() {
        assert_eq!(int_misfit(code("b"), 127), None);
        assert_eq!(
            int_misfit(code("b"), 128),
            Some("signed char is greater than maximum")
        );
        assert_eq!(
            int_misfit(code("b"), -40000),
            Some("signed short integer is less than minimum")
        );
        assert_eq!(
            int_misfit(code("H"), -1),
            Some("unsigned short is less than minimum")
        );
        assert_eq!(
            int_misfit(code("H"), 1 << 31),
            Some("signed integer is greater than maximum")
        );
        assert_eq!(
            int_misfit(code("I"), 1 << 32),
            Some("unsigned int is greater than maximum")
        );
        assert_eq!(
            int_misfit(code("I"), -1),
            Some("can't convert negative value to unsigned int")
        );
        assert_eq!(int_misfit(code("Q"), u64::MAX.into()), None);
        assert_eq!(
            int_misfit(code("Q"), -1),
            Some("can't convert negative int to unsigned")
        );
        assert_eq!(
            int_misfit(code("q"), 1 << 63),
            Some("int too big to convert")
        );
        assert_eq!(
            int_misfit(code("i"), 1 << 63),
            Some("Python int too large to convert to C long")
        );
    }

    #[test]
    fn typecodes_have_cs_sizes() {
        let sizes: Vec<usize> = TYPECODES
            .chars()
            .map(|c| code(&c.to_string()).size())
            .collect();
        assert_eq!(sizes, [1, 1, 4, 4, 2, 2, 4, 4, 8, 8, 8, 8, 4, 8]);
        assert!(TypeCode::parse("x").is_none() && TypeCode::parse("ii").is_none());
    }
}
