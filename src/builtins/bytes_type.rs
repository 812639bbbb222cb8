//! `bytes` and `bytearray`: their constructors, operators and methods in one table each
//! ([`init`]), on top of the algorithms in `common::bytes_ops` and the codecs in
//! `codecs.rs`. Both types share every read-only method; `bytearray` adds the mutating
//! ones. A method of a `bytearray` returns a `bytearray` where CPython's does.
//!
//! In: `self` (a value holding a [`PyBytes`]) and the call's arguments. Out: values or VM
//! exceptions with CPython's messages. Mirrors `Objects/bytesobject.c` and
//! `Objects/bytearrayobject.c`. The operators are methods in the type dicts (`__add__`,
//! `__getitem__`, …), which the VM finds as it finds a class's; the hash of `bytes` is read
//! directly by `vm/compare.rs`.

use std::rc::Rc;

use super::codecs;
use super::memoryview::MemoryView;
use super::module_args::index_isize;
use super::str_type::slice_bound;
use crate::common::bytes_ops::{self, is_space};
use crate::common::chars::bytes_repr;
use crate::common::sizes::{check_text_len, repeat_items};
use crate::common::str_ops::StripSide;
use crate::compile::bytecode::CompareOperator;
use crate::vm::args::{OrRaise, Signature, check_kwargs, kwarg};
use crate::vm::bytes::{PyBytes, pick_bytes};
use crate::vm::call::instance_of_subclass;
use crate::vm::compare::compare_native;
use crate::vm::object::{KwArgs, NativeFn, ObjectKind, PyType};
use crate::vm::value::Value;
use crate::vm::{PyResult, Vm};

/// The buffer of `v` when it is a bytes or bytearray.
pub fn payload(v: &Value) -> Option<&PyBytes> {
    v.native::<PyBytes>().or_else(|| match v {
        // An instance of a subclass of bytes (or bytearray) holds one.
        Value::Object(o) => o.builtin_base()?.native::<PyBytes>(),
        _ => None,
    })
}

/// A copy of the bytes of a bytes-like argument (a bytes, bytearray, memoryview or array), or None
/// for any other value.
pub fn bytes_of(v: &Value) -> Option<Vec<u8>> {
    match payload(v) {
        Some(b) => Some(b.data().clone()),
        None => v
            .native::<MemoryView>()
            .map(MemoryView::to_vec)
            .or_else(|| {
                v.native::<super::array::Array>()
                    .map(super::array::Array::to_bytes)
            }),
    }
}

/// The name of `self`'s type, for messages that name it.
fn kind(vm: &Vm, this: &Value) -> &'static str {
    if vm.isinstance(this, &vm.types.bytearray) {
        "bytearray"
    } else {
        "bytes"
    }
}

/// The buffer of a method's `self`.
fn this<'a>(vm: &Vm, args: &'a [Value]) -> PyResult<&'a PyBytes> {
    args.first().and_then(payload).ok_or_else(|| {
        vm.type_error(format!(
            "descriptor requires a 'bytes' object but received a '{}'",
            vm.type_name(args.first().unwrap_or(&Value::None))
        ))
    })
}

/// A result of the same type as `self`.
fn like(vm: &mut Vm, this: &Value, data: Vec<u8>) -> Value {
    if vm.isinstance(this, &vm.types.bytearray) {
        vm.new_bytearray(data)
    } else {
        vm.new_bytes(data)
    }
}

/// A bytes-like argument, or "a bytes-like object is required, not 'str'".
/// `hex(sep=<none>, bytes_per_sep=1)` of `bytes`, `bytearray` and `memoryview` over `data`.
pub fn hex_method(vm: &mut Vm, data: &[u8], args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let sig = Signature::keywords("bytes", "hex", &["sep", "bytes_per_sep"], 0, 0);
    let [sep, per] = <[_; 2]>::try_from(sig.bind(vm, args, kw)?).unwrap_or_else(|_| [None, None]);
    let (sep, per) = hex_separator(vm, sep.as_ref(), per.as_ref(), false)?;
    let digits = bytes_ops::hex(data, sep, per).or_raise(vm)?;
    Ok(Value::str(String::from_utf8(digits).expect("ASCII")))
}

/// The `sep` and `bytes_per_sep` arguments of a hex conversion, checked as
/// `_Py_strhex_impl` checks them: one str character or one byte of bytes, ASCII unless
/// the result is bytes (`binascii.hexlify`'s).
pub fn hex_separator(
    vm: &mut Vm,
    sep: Option<&Value>,
    per: Option<&Value>,
    bytes_result: bool,
) -> PyResult<(Option<u8>, i64)> {
    let per = match per {
        Some(v) => index_isize(vm, v)?,
        None => 1,
    };
    let Some(sep) = sep else {
        return Ok((None, per));
    };
    if vm.len(sep)? != 1 {
        return Err(vm.value_error("sep must be length 1."));
    }
    let not_ascii = || vm.value_error("sep must be ASCII.");
    let byte = match sep {
        Value::Str(s) => {
            let c = s.as_str().chars().next().map_or(0, u32::from);
            u8::try_from(c).map_err(|_| not_ascii())?
        }
        v if let Some(b) = v.native::<PyBytes>()
            && vm.isinstance(v, &vm.types.bytes) =>
        {
            b.data()[0]
        }
        _ => return Err(vm.type_error("sep must be str or bytes.")),
    };
    if byte > 127 && !bytes_result {
        return Err(not_ascii());
    }
    Ok((Some(byte), per))
}

pub fn buffer_arg(vm: &Vm, v: &Value) -> PyResult<Vec<u8>> {
    bytes_of(v).ok_or_else(|| {
        vm.type_error(format!(
            "a bytes-like object is required, not '{}'",
            vm.type_name(v)
        ))
    })
}

/// A byte value from an int (`append`, item assignment, `in`).
fn byte_value(vm: &mut Vm, v: &Value) -> PyResult<u8> {
    let n = vm.expect_index(v)?;
    u8::try_from(n).map_err(|_| vm.value_error("byte must be in range(0, 256)"))
}

/// The bytes of `bytes(iterable_of_ints)`.
fn bytes_from_ints(vm: &mut Vm, items: Vec<Value>) -> PyResult<Vec<u8>> {
    let mut out = Vec::with_capacity(items.len());
    for item in &items {
        let n = vm.expect_index(item)?;
        out.push(u8::try_from(n).map_err(|_| vm.value_error("bytes must be in range(0, 256)"))?);
    }
    Ok(out)
}

/// The contents `bytes(source, encoding, errors)` and `bytearray(…)` start with.
fn initial_bytes(vm: &mut Vm, name: &str, args: &[Value], kw: &KwArgs) -> PyResult<Vec<u8>> {
    check_kwargs(vm, name, kw, &["source", "encoding", "errors"])?;
    let arg = |i: usize, key: &str| args.get(i).cloned().or_else(|| kwarg(kw, key));
    let (source, encoding, errors) = (arg(0, "source"), arg(1, "encoding"), arg(2, "errors"));
    let text_arg = |vm: &Vm, v: Option<Value>, what: &str| -> PyResult<Option<String>> {
        match v {
            None => Ok(None),
            Some(Value::Str(s)) => Ok(Some(s.as_str().to_string())),
            Some(other) => Err(vm.type_error(format!(
                "{name}() argument '{what}' must be str, not {}",
                vm.type_name(&other)
            ))),
        }
    };
    let encoding = text_arg(vm, encoding, "encoding")?;
    let errors = text_arg(vm, errors, "errors")?;
    let Some(source) = source else {
        if encoding.is_some() || errors.is_some() {
            let what = if encoding.is_some() {
                "encoding"
            } else {
                "errors"
            };
            return Err(vm.type_error(format!("{what} without a string argument")));
        }
        return Ok(Vec::new());
    };
    if let Value::Str(s) = &source {
        let Some(encoding) = encoding else {
            return Err(vm.type_error("string argument without an encoding"));
        };
        let errors = errors.unwrap_or_else(|| "strict".into());
        return codecs::encode(vm, s.as_str(), &encoding, &errors);
    }
    if encoding.is_some() || errors.is_some() {
        let what = if encoding.is_some() {
            "encoding"
        } else {
            "errors"
        };
        return Err(vm.type_error(format!("{what} without a string argument")));
    }
    if let Some(data) = bytes_of(&source) {
        return Ok(data);
    }
    // `bytes(x)` asks `x.__bytes__()` first; `bytearray(x)` does not.
    if name == "bytes"
        && let Some(data) = vm.bytes_of_object(&source)?
    {
        return Ok(data);
    }
    // An int, or anything with `__index__` that is no iterable (an int subclass's
    // instance, an IntEnum member): that many zero bytes.
    let count = match source {
        Value::Int(_) | Value::BigInt(_) | Value::Bool(_) => true,
        Value::Object(_) => !vm.is_iterable(&source) && vm.index_value(&source)?.is_some(),
        _ => false,
    };
    if count {
        let n = vm.expect_ssize(&source)?;
        if n < 0 {
            return Err(vm.value_error("negative count"));
        }
        check_text_len(n as usize).or_raise(vm)?;
        return Ok(vec![0; n as usize]);
    }
    if !vm.is_iterable(&source) || matches!(source, Value::Str(_)) {
        return Err(vm.type_error(format!(
            "cannot convert '{}' object to {name}",
            vm.type_name(&source)
        )));
    }
    let items = vm.collect_iterable(&source)?;
    bytes_from_ints(vm, items)
}

fn bytes_new(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let owner = vm.types.bytes.clone();
    let (cls, args) = split_new_args(vm, &owner, args)?;
    let data = initial_bytes(vm, "bytes", args, kw)?;
    // `bytes.__new__(cls, v)` in a subclass's own `__new__` (an Enum mixing in bytes)
    // makes the subclass's instance, as `int.__new__` does.
    Ok(subclass_instance(&owner, &cls, vm.new_bytes(data)))
}

fn bytearray_new(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let owner = vm.types.bytearray.clone();
    let (cls, args) = split_new_args(vm, &owner, args)?;
    let data = initial_bytes(vm, "bytearray", args, kw)?;
    Ok(subclass_instance(&owner, &cls, vm.new_bytearray(data)))
}

/// `(cls, *args)` of `owner.__new__`, `cls` checked to be `owner` or a subclass of it
/// (bytes and bytearray are not flagged built-in, so `split_cls_of` does not fit them).
fn split_new_args<'a>(
    vm: &Vm,
    owner: &Rc<PyType>,
    args: &'a [Value],
) -> PyResult<(Rc<PyType>, &'a [Value])> {
    match args.split_first() {
        Some((Value::Type(cls), rest)) if cls.is_subtype(owner) => Ok((cls.clone(), rest)),
        Some((Value::Type(cls), _)) => {
            let (o, c) = (owner.name(), cls.name());
            Err(vm.type_error(format!("{o}.__new__({c}): {c} is not a subtype of {o}")))
        }
        Some((other, _)) => Err(vm.type_error(format!(
            "{}.__new__(X): X is not a type object ({})",
            owner.name(),
            vm.type_name(other)
        ))),
        None => Err(vm.type_error(format!("{}.__new__(): not enough arguments", owner.name()))),
    }
}

/// `value` itself when `cls` is `owner`, else an instance of the subclass `cls` extending it.
fn subclass_instance(owner: &Rc<PyType>, cls: &Rc<PyType>, value: Value) -> Value {
    match Rc::ptr_eq(owner, cls) {
        true => value,
        false => instance_of_subclass(cls, value),
    }
}

fn repr(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    let text = bytes_repr(&this(vm, args)?.data());
    Ok(Value::str(if kind(vm, &args[0]) == "bytearray" {
        format!("bytearray({text})")
    } else {
        text
    }))
}

/// `b[i]` (an int) and `b[i:j:k]` (of the same type).
fn getitem(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    let key = args.get(1).cloned().unwrap_or(Value::None);
    if let Value::Object(o) = &key
        && let ObjectKind::Slice { start, stop, step } = &o.kind
    {
        let len = this(vm, args)?.data().len();
        let (start, _, step, count) = vm.slice_indices(len, start, stop, step)?;
        // The indices are computed (which may run `__index__`) before the buffer is read.
        let picked = pick_bytes(&this(vm, args)?.data(), start, step, count);
        return Ok(like(vm, &args[0], picked));
    }
    let name = kind(vm, &args[0]);
    let Some(i) = vm.sequence_index(&key)? else {
        let what = if name == "bytes" { "byte" } else { name };
        return Err(vm.type_error(format!(
            "{what} indices must be integers or slices, not {}",
            vm.type_name(&key)
        )));
    };
    let data = this(vm, args)?.data();
    let j = if i < 0 { i + data.len() as i64 } else { i };
    match usize::try_from(j).ok().and_then(|j| data.get(j)) {
        Some(&b) => Ok(Value::Int(b.into())),
        None if name == "bytes" => Err(vm.index_error("index out of range")),
        None => Err(vm.index_error("bytearray index out of range")),
    }
}

fn contains(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    let data = this(vm, args)?.data().clone();
    let item = args.get(1).cloned().unwrap_or(Value::None);
    if let Some(sub) = bytes_of(&item) {
        return Ok(Value::Bool(
            bytes_ops::find_sub(&data, &sub, false).is_some(),
        ));
    }
    if vm.index_value(&item)?.is_none() {
        return Err(vm.type_error(format!(
            "a bytes-like object is required, not '{}'",
            vm.type_name(&item)
        )));
    }
    let b = byte_value(vm, &item)?;
    Ok(Value::Bool(data.contains(&b)))
}

fn concat(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    let mut data = this(vm, args)?.data().clone();
    let other = args.get(1).cloned().unwrap_or(Value::None);
    let Some(more) = bytes_of(&other) else {
        return Err(vm.type_error(format!(
            "can't concat {} to {}",
            vm.type_name(&other),
            kind(vm, &args[0])
        )));
    };
    check_text_len(data.len() + more.len()).or_raise(vm)?;
    data.extend(more);
    Ok(like(vm, &args[0], data))
}

/// `b * n` and `n * b`, limited as `'x' * n` is.
fn repeat(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    let data = this(vm, args)?.data().clone();
    let count = args.get(1).cloned().unwrap_or(Value::None);
    if vm.index_value(&count)?.is_none() {
        return Err(vm.type_error(format!(
            "can't multiply sequence by non-int of type '{}'",
            vm.type_name(&count)
        )));
    }
    let n = match &count {
        Value::BigInt(b) if b.sign() == num_bigint::Sign::Minus => 0,
        Value::BigInt(_) => {
            return Err(vm.overflow_error("cannot fit 'int' into an index-sized integer"));
        }
        _ => vm.expect_ssize(&count)?.max(0) as usize,
    };
    let too_long = data
        .len()
        .checked_mul(n)
        .is_none_or(|total| total > isize::MAX as usize);
    if too_long && kind(vm, &args[0]) == "bytes" {
        return Err(vm.overflow_error("repeated bytes are too long"));
    }
    check_text_len(data.len().saturating_mul(n)).or_raise(vm)?;
    let out = repeat_items(&data, n).or_raise(vm)?;
    Ok(like(vm, &args[0], out))
}

fn compare(vm: &mut Vm, args: &[Value], op: CompareOperator) -> PyResult<Value> {
    let data = this(vm, args)?.data().clone();
    match args.get(1).and_then(bytes_of) {
        Some(other) => Ok(Value::Bool(compare_native(op, &data[..], &other[..]))),
        None => Ok(Value::NotImplemented),
    }
}

fn iter(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    this(vm, args)?;
    Ok(super::bytes_iter::new(vm, &args[0]))
}

/// `find`, `rfind`, `index`, `rindex`, `count`: `(sub[, start[, end]])`, `sub` bytes or
/// an int.
fn search(vm: &mut Vm, args: &[Value], kw: &KwArgs, name: &'static str) -> PyResult<Value> {
    this(vm, args)?;
    // `find(sub)` and `find(sub, start)` (readuntil's) need no binding by name.
    let bound = match &args[1..] {
        [sub] if kw.is_empty() => [Some(sub.clone()), None, None],
        [sub, start] if kw.is_empty() => [Some(sub.clone()), Some(start.clone()), None],
        rest => {
            let owner = kind(vm, &args[0]);
            let signature = Signature::positional(owner, name, &["sub", "start", "end"], 1);
            let bound = signature.bind(vm, rest, kw)?;
            [bound[0].clone(), bound[1].clone(), bound[2].clone()]
        }
    };
    let sub = bound[0].clone().unwrap_or(Value::None);
    let sub_bytes = bytes_of(&sub);
    let byte = match &sub_bytes {
        Some(_) => None,
        None if vm.index_value(&sub)?.is_some() => Some(byte_value(vm, &sub)?),
        None => {
            return Err(vm.type_error(format!(
                "argument should be integer or bytes-like object, not '{}'",
                vm.type_name(&sub)
            )));
        }
    };
    let start = slice_bound(vm, bound[1].as_ref())?;
    let end = slice_bound(vm, bound[2].as_ref())?;
    // Read in place: nothing runs Python code from here on.
    let data = this(vm, args)?.data();
    let sub: &[u8] = match (&sub_bytes, &byte) {
        (Some(buffer), _) => buffer,
        (None, Some(b)) => std::slice::from_ref(b),
        (None, None) => &[],
    };
    let found = |reverse| bytes_ops::find(&data, sub, start, end, reverse);
    let at = match name {
        "find" => found(false),
        "rfind" => found(true),
        "index" | "rindex" => found(name == "rindex"),
        _ => bytes_ops::count(&data, sub, start, end) as i64,
    };
    drop(data);
    if at == -1 && matches!(name, "index" | "rindex") {
        return Err(vm.value_error("subsection not found"));
    }
    Ok(Value::Int(at))
}

/// `startswith` / `endswith`: bytes or a tuple of bytes, with an optional range.
fn affix(vm: &mut Vm, args: &[Value], kw: &KwArgs, at_end: bool) -> PyResult<Value> {
    let name = if at_end { "endswith" } else { "startswith" };
    let signature = Signature::positional("bytes", name, &["prefix", "start", "end"], 1);
    let data = this(vm, args)?.data().clone();
    let bound = signature.bind(vm, &args[1..], kw)?;
    let start = slice_bound(vm, bound[1].as_ref())?;
    let end = slice_bound(vm, bound[2].as_ref())?;
    let first = bound[0].clone().unwrap_or(Value::None);
    let candidates: Vec<Value> = match &first {
        Value::Tuple(t) => t.items.to_vec(),
        other => vec![other.clone()],
    };
    let mut hit = false;
    for candidate in &candidates {
        let Some(affix) = bytes_of(candidate) else {
            let what = if matches!(first, Value::Tuple(_)) {
                format!(
                    "a bytes-like object is required, not '{}'",
                    vm.type_name(candidate)
                )
            } else {
                format!(
                    "{name} first arg must be bytes or a tuple of bytes, not {}",
                    vm.type_name(candidate)
                )
            };
            return Err(vm.type_error(what));
        };
        hit = hit || bytes_ops::starts_or_ends_with(&data, &affix, start, end, at_end);
    }
    Ok(Value::Bool(hit))
}

fn split(vm: &mut Vm, args: &[Value], kw: &KwArgs, reverse: bool) -> PyResult<Value> {
    let name = if reverse { "rsplit" } else { "split" };
    let signature = Signature::keywords("bytes", name, &["sep", "maxsplit"], 0, 0);
    let data = this(vm, args)?.data().clone();
    let bound = signature.bind(vm, &args[1..], kw)?;
    let sep = match &bound[0] {
        None | Some(Value::None) => None,
        Some(v) => Some(buffer_arg(vm, v)?),
    };
    let maxsplit = match &bound[1] {
        Some(v) => vm.expect_ssize(v)?,
        None => -1,
    };
    let parts = bytes_ops::split(&data, sep.as_deref(), maxsplit, reverse).or_raise(vm)?;
    let parts = parts.into_iter().map(|p| like(vm, &args[0], p.to_vec()));
    Ok(Value::list(parts.collect()))
}

fn strip(vm: &mut Vm, args: &[Value], side: StripSide) -> PyResult<Value> {
    let name = match side {
        StripSide::Both => "strip",
        StripSide::Left => "lstrip",
        StripSide::Right => "rstrip",
    };
    let data = this(vm, args)?.data().clone();
    let bound = Signature::positional("bytes", name, &["bytes"], 0).bind(vm, &args[1..], &[])?;
    let chars = match &bound[0] {
        None | Some(Value::None) => None,
        Some(v) => Some(buffer_arg(vm, v)?),
    };
    let stripped = bytes_ops::strip(&data, chars.as_deref(), side).to_vec();
    Ok(like(vm, &args[0], stripped))
}

fn join(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    let sep = this(vm, args)?.data().clone();
    Signature::one("bytes", "join").check(vm, &args[1..], &[])?;
    let items = vm.collect_iterable(&args[1])?;
    let mut out = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let Some(part) = bytes_of(item) else {
            return Err(vm.type_error(format!(
                "sequence item {i}: expected a bytes-like object, {} found",
                vm.type_name(item)
            )));
        };
        if i > 0 {
            out.extend_from_slice(&sep);
        }
        out.extend(part);
        check_text_len(out.len()).or_raise(vm)?;
    }
    Ok(like(vm, &args[0], out))
}

fn replace(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let signature = Signature::positional("bytes", "replace", &["old", "new", "count"], 2);
    let data = this(vm, args)?.data().clone();
    let bound = signature.bind(vm, &args[1..], kw)?;
    let old = buffer_arg(vm, bound[0].as_ref().unwrap_or(&Value::None))?;
    let new = buffer_arg(vm, bound[1].as_ref().unwrap_or(&Value::None))?;
    let count = match &bound[2] {
        Some(v) => vm.expect_ssize(v)?,
        None => -1,
    };
    let out = bytes_ops::replace(&data, &old, &new, count).or_raise(vm)?;
    Ok(like(vm, &args[0], out))
}

fn partition(vm: &mut Vm, args: &[Value], reverse: bool) -> PyResult<Value> {
    let name = if reverse { "rpartition" } else { "partition" };
    let data = this(vm, args)?.data().clone();
    Signature::one("bytes", name).check(vm, &args[1..], &[])?;
    let sep = buffer_arg(vm, &args[1])?;
    let (head, middle, tail) = bytes_ops::partition(&data, &sep, reverse).or_raise(vm)?;
    let parts = [head, middle, tail].map(|p| like(vm, &args[0], p.to_vec()));
    Ok(Value::tuple(parts.into()))
}

/// The `encoding` and `errors` arguments of `decode` and `encode`, with their defaults.
pub(super) fn codec_args(vm: &Vm, method: &str, bound: &[Option<Value>]) -> PyResult<[String; 2]> {
    let mut texts = ["utf-8".to_string(), "strict".to_string()];
    for (i, what) in ["encoding", "errors"].into_iter().enumerate() {
        match &bound[i] {
            None => {}
            Some(Value::Str(s)) => texts[i] = s.as_str().to_string(),
            Some(other) => {
                return Err(vm.type_error(format!(
                    "{method}() argument '{what}' must be str, not {}",
                    vm.type_name(other)
                )));
            }
        }
    }
    Ok(texts)
}

fn decode(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    // `b.decode()` of valid UTF-8: the text, with no codec to look up.
    if let [this] = args
        && kw.is_empty()
        && let Some(buffer) = payload(this)
        && let Ok(text) = std::str::from_utf8(&buffer.data())
    {
        return Ok(Value::str(text));
    }
    let signature = Signature::keywords("bytes", "decode", &["encoding", "errors"], 0, 0);
    let data = this(vm, args)?.data().clone();
    let bound = signature.bind(vm, &args[1..], kw)?;
    let [encoding, errors] = codec_args(vm, "decode", &bound)?;
    codecs::decode(vm, &data, &encoding, &errors).map(Value::str)
}

/// `str.encode(encoding='utf-8', errors='strict')`, installed on `str`.
fn encode(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let signature = Signature::keywords("str", "encode", &["encoding", "errors"], 0, 0);
    let Some(Value::Str(text)) = args.first() else {
        return Err(vm.type_error("descriptor 'encode' requires a 'str' object"));
    };
    let data = if args.len() == 1 && kw.is_empty() {
        // `s.encode()`: UTF-8, which every str encodes to, with no codec to look up.
        text.as_str().as_bytes().to_vec()
    } else {
        let bound = signature.bind(vm, &args[1..], kw)?;
        let [encoding, errors] = codec_args(vm, "encode", &bound)?;
        codecs::encode(vm, text.as_str(), &encoding, &errors)?
    };
    Ok(vm.new_bytes(data))
}

/// The class methods `bytes.fromhex(string)` and `bytearray.fromhex(string)`: a
/// subclass gets `cls(result)`.
fn fromhex(vm: &mut Vm, args: &[Value], make: fn(&mut Vm, Vec<u8>) -> Value) -> PyResult<Value> {
    let (cls, args) = args.split_first().unwrap_or((&Value::None, &[]));
    Signature::one("bytes", "fromhex").check(vm, args, &[])?;
    let Value::Str(text) = &args[0] else {
        return Err(vm.type_error(format!(
            "fromhex() argument must be str, not {}",
            vm.type_name(&args[0])
        )));
    };
    let data = bytes_ops::fromhex(text.as_str()).or_raise(vm)?;
    let result = make(vm, data);
    match cls {
        Value::Type(t) if !Rc::ptr_eq(t, vm.type_of(&result)) => vm.call(cls, &[result], &[]),
        _ => Ok(result),
    }
}

fn splitlines(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let signature = Signature::keywords("bytes", "splitlines", &["keepends"], 0, 0);
    let data = this(vm, args)?.data().clone();
    let bound = signature.bind(vm, &args[1..], kw)?;
    let keepends = match &bound[0] {
        Some(v) => vm.truthy(v)?,
        None => false,
    };
    let lines = bytes_ops::splitlines(&data, keepends);
    let lines = lines.into_iter().map(|l| like(vm, &args[0], l.to_vec()));
    Ok(Value::list(lines.collect()))
}

fn remove_affix(vm: &mut Vm, args: &[Value], at_end: bool) -> PyResult<Value> {
    let name = if at_end {
        "removesuffix"
    } else {
        "removeprefix"
    };
    let data = this(vm, args)?.data().clone();
    Signature::one("bytes", name).check(vm, &args[1..], &[])?;
    let affix = buffer_arg(vm, &args[1])?;
    let kept = match at_end {
        true => data.strip_suffix(&affix[..]),
        false => data.strip_prefix(&affix[..]),
    };
    let kept = kept.unwrap_or(&data).to_vec();
    Ok(like(vm, &args[0], kept))
}

/// A method that maps the bytes to new ones (`upper`, `lower`).
fn mapped(
    vm: &mut Vm,
    args: &[Value],
    name: &'static str,
    f: fn(&[u8]) -> Vec<u8>,
) -> PyResult<Value> {
    let data = this(vm, args)?.data().clone();
    Signature::no_args("bytes", name).check(vm, &args[1..], &[])?;
    Ok(like(vm, &args[0], f(&data)))
}

/// `bytes.maketrans(frm, to, /)`: the 256-byte table mapping each byte of `frm` to the
/// byte of `to` at the same place, and every other byte to itself.
fn maketrans(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    Signature::positional("bytes", "maketrans", &["frm", "to"], 2).check(vm, args, kw)?;
    let from = buffer_arg(vm, &args[0])?;
    let to = buffer_arg(vm, &args[1])?;
    if from.len() != to.len() {
        return Err(vm.value_error("maketrans arguments must have same length"));
    }
    let mut table: Vec<u8> = (0..=255).collect();
    for (&f, &t) in from.iter().zip(&to) {
        table[usize::from(f)] = t;
    }
    Ok(vm.new_bytes(table))
}

/// `translate(table, /, delete=b'')`: each byte through `table` (None: unchanged), the
/// bytes in `delete` dropped first.
fn translate(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let data = this(vm, args)?.data().clone();
    let sig = Signature::keywords("bytes", "translate", &["table", "delete"], 1, 1);
    let bound = sig.bind(vm, &args[1..], kw)?;
    let table = match bound.first().cloned().flatten() {
        None | Some(Value::None) => None,
        Some(table) => {
            let table = buffer_arg(vm, &table)?;
            if table.len() != 256 {
                return Err(vm.value_error("translation table must be 256 characters long"));
            }
            Some(table)
        }
    };
    let delete = match bound.get(1).cloned().flatten() {
        Some(delete) => buffer_arg(vm, &delete)?,
        None => Vec::new(),
    };
    let out = data
        .iter()
        .filter(|b| !delete.contains(b))
        .map(|&b| table.as_ref().map_or(b, |t| t[usize::from(b)]))
        .collect();
    Ok(like(vm, &args[0], out))
}

/// A predicate over the bytes (`isdigit`, …): false for empty bytes.
fn predicate(
    vm: &mut Vm,
    args: &[Value],
    name: &'static str,
    f: fn(&u8) -> bool,
) -> PyResult<Value> {
    let data = this(vm, args)?.data().clone();
    Signature::no_args("bytes", name).check(vm, &args[1..], &[])?;
    Ok(Value::Bool(!data.is_empty() && data.iter().all(f)))
}

// ---- padding and ASCII case ---------------------------------------------------------

/// `ljust`, `rjust` and `center(width, fillbyte=b' ', /)`: at least `width` bytes, padded
/// with `fillbyte` (CPython's `pad`: `center` puts the odd byte left when `width` is odd).
fn justify(vm: &mut Vm, args: &[Value], kw: &KwArgs, name: &'static str) -> PyResult<Value> {
    let data = this(vm, args)?.data().clone();
    let owner = kind(vm, &args[0]);
    Signature::positional(owner, name, &["width", "fillchar"], 1).check(vm, &args[1..], kw)?;
    let width = vm.expect_index(&args[1])?;
    let fill = match args.get(2) {
        None => b' ',
        Some(v) => match payload(v).map(|b| b.data().clone()).as_deref() {
            Some(&[byte]) => byte,
            _ => {
                let message = format!(
                    "{name}() argument 2 must be a byte string of length 1, not {}",
                    vm.type_name(v)
                );
                return Err(vm.type_error(message));
            }
        },
    };
    let margin = width.saturating_sub(data.len() as i64).max(0);
    let left = match name {
        "ljust" => 0,
        "rjust" => margin,
        _ => margin / 2 + (margin & width & 1),
    };
    let mut out = vec![fill; left as usize];
    out.extend_from_slice(&data);
    out.resize(data.len() + margin as usize, fill);
    Ok(like(vm, &args[0], out))
}

/// `zfill(width, /)`: zeros on the left to `width` bytes, after a leading sign.
fn zfill(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let data = this(vm, args)?.data().clone();
    Signature::one(kind(vm, &args[0]), "zfill").check(vm, &args[1..], kw)?;
    let width = vm.expect_index(&args[1])?;
    let margin = width.saturating_sub(data.len() as i64).max(0) as usize;
    let mut out = vec![b'0'; margin];
    out.extend_from_slice(&data);
    if margin > 0 && matches!(data.first(), Some(b'+' | b'-')) {
        out.swap(0, margin);
    }
    Ok(like(vm, &args[0], out))
}

/// `expandtabs(tabsize=8)`: each tab as spaces to the next multiple of `tabsize` columns,
/// counted from the last `\n` or `\r`.
fn expandtabs(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let data = this(vm, args)?.data().clone();
    let owner = kind(vm, &args[0]);
    let bound =
        Signature::keywords(owner, "expandtabs", &["tabsize"], 0, 0).bind(vm, &args[1..], kw)?;
    let tabsize = match &bound[0] {
        Some(v) => vm.expect_index(v)?,
        None => 8,
    };
    let mut out = Vec::with_capacity(data.len());
    let mut column: i64 = 0;
    for &byte in &data {
        match byte {
            b'\t' if tabsize > 0 => {
                let spaces = tabsize - column % tabsize;
                out.resize(out.len() + spaces as usize, b' ');
                column += spaces;
            }
            b'\t' => {}
            b'\n' | b'\r' => {
                out.push(byte);
                column = 0;
            }
            _ => {
                out.push(byte);
                column += 1;
            }
        }
    }
    Ok(like(vm, &args[0], out))
}

/// `capitalize()`: the first byte in ASCII upper case, the rest in lower.
fn capitalize(data: &[u8]) -> Vec<u8> {
    let mut out = data.to_ascii_lowercase();
    if let Some(first) = out.first_mut() {
        first.make_ascii_uppercase();
    }
    out
}

/// `swapcase()`: ASCII letters to the other case.
fn swapcase(data: &[u8]) -> Vec<u8> {
    data.iter()
        .map(|&b| match b {
            b'a'..=b'z' => b.to_ascii_uppercase(),
            b'A'..=b'Z' => b.to_ascii_lowercase(),
            _ => b,
        })
        .collect()
}

/// `title()`: an ASCII letter after a non-letter in upper case, after a letter in lower.
fn title(data: &[u8]) -> Vec<u8> {
    let mut after_letter = false;
    data.iter()
        .map(|&b| {
            let out = match after_letter {
                true => b.to_ascii_lowercase(),
                false => b.to_ascii_uppercase(),
            };
            after_letter = b.is_ascii_alphabetic();
            out
        })
        .collect()
}

/// `istitle()`: some letter, each upper-case one after a non-letter and each lower-case
/// one after a letter.
fn istitle(data: &[u8]) -> bool {
    let mut after_letter = false;
    let mut cased = false;
    for &b in data {
        match b {
            b'A'..=b'Z' if after_letter => return false,
            b'a'..=b'z' if !after_letter => return false,
            b'A'..=b'Z' | b'a'..=b'z' => {
                after_letter = true;
                cased = true;
            }
            _ => after_letter = false,
        }
    }
    cased
}

// ---- bytearray's mutations ----------------------------------------------------------

/// Changes a bytearray's buffer in place (no borrow of it is ever held across a call).
/// While a memoryview shows it, a change of size is refused with CPython's BufferError,
/// leaving the buffer as it was.
fn mutate<R>(vm: &Vm, args: &[Value], f: impl FnOnce(&mut Vec<u8>) -> R) -> PyResult<R> {
    let buffer = this(vm, args)?;
    let mut data = buffer
        .data_mut()
        .ok_or_else(|| vm.value_error("bytearray changed while in use"))?;
    if buffer.exports.get() == 0 {
        return Ok(f(&mut data));
    }
    let mut changed = data.clone();
    let result = f(&mut changed);
    if changed.len() != data.len() {
        let error = vm.types.buffer_error.clone();
        return Err(vm.new_exc(
            &error,
            "Existing exports of data: object cannot be re-sized",
        ));
    }
    *data = changed;
    Ok(result)
}

/// The bytes a slice assignment or `extend` takes: bytes-like, or an iterable of ints.
fn new_contents(vm: &mut Vm, v: &Value) -> PyResult<Vec<u8>> {
    if let Some(data) = bytes_of(v) {
        return Ok(data);
    }
    if matches!(v, Value::Str(_)) || !vm.is_iterable(v) {
        return Err(vm.type_error(format!("can't extend bytearray with {}", vm.type_name(v))));
    }
    let items = vm.collect_iterable(v)?;
    bytes_from_ints(vm, items)
}

/// `ba[i] = n`, `ba[i:j] = b` (`value` None: `del ba[…]`).
fn store(vm: &mut Vm, args: &[Value], value: Option<&Value>) -> PyResult<Value> {
    let len = this(vm, args)?.data().len();
    let key = args.get(1).cloned().unwrap_or(Value::None);
    if let Value::Object(o) = &key
        && let ObjectKind::Slice { start, stop, step } = &o.kind
    {
        let (start, stop, step, count) = vm.slice_indices(len, start, stop, step)?;
        let new = match value {
            Some(v) if bytes_of(v).is_none() && vm.index_value(v)?.is_some() => {
                return Err(vm.type_error(
                    "can assign only bytes, buffers, or iterables of ints in range(0, 256)",
                ));
            }
            Some(v) => Some(new_contents(vm, v)?),
            None => None,
        };
        let positions: Vec<usize> = (0..count)
            .map(|k| (start + k as i64 * step) as usize)
            .collect();
        if step == 1 || (new.is_none() && step > 0 && count == 0) {
            let (from, to) = (start as usize, (stop.max(start)) as usize);
            return mutate(vm, args, |data| {
                data.splice(from..to, new.unwrap_or_default());
            })
            .map(|()| Value::None);
        }
        return match new {
            Some(new) if new.len() != count => Err(vm.value_error(format!(
                "attempt to assign bytes of size {} to extended slice of size {count}",
                new.len()
            ))),
            Some(new) => mutate(vm, args, |data| {
                for (at, b) in positions.into_iter().zip(new) {
                    data[at] = b;
                }
            })
            .map(|()| Value::None),
            None => mutate(vm, args, |data| {
                let mut sorted = positions;
                sorted.sort_unstable();
                for at in sorted.into_iter().rev() {
                    data.remove(at);
                }
            })
            .map(|()| Value::None),
        };
    }
    let Some(i) = vm.sequence_index(&key)? else {
        return Err(vm.type_error(format!(
            "bytearray indices must be integers or slices, not {}",
            vm.type_name(&key)
        )));
    };
    let byte = match value {
        Some(v) => Some(byte_value(vm, v)?),
        None => None,
    };
    let j = if i < 0 { i + len as i64 } else { i };
    let Some(j) = usize::try_from(j).ok().filter(|&j| j < len) else {
        return Err(vm.index_error(match value {
            Some(_) => "bytearray index out of range",
            None => "bytearray index out of range",
        }));
    };
    mutate(vm, args, |data| match byte {
        Some(b) => data[j] = b,
        None => {
            data.remove(j);
        }
    })
    .map(|()| Value::None)
}

fn extend(vm: &mut Vm, args: &[Value]) -> PyResult<Value> {
    Signature::one("bytearray", "extend").check(vm, &args[1..], &[])?;
    let more = new_contents(vm, &args[1])?;
    check_text_len(this(vm, args)?.data().len() + more.len()).or_raise(vm)?;
    mutate(vm, args, |data| data.extend(more)).map(|()| Value::None)
}

fn pop(vm: &mut Vm, args: &[Value]) -> PyResult<Value> {
    let bound =
        Signature::positional("bytearray", "pop", &["index"], 0).bind(vm, &args[1..], &[])?;
    let len = this(vm, args)?.data().len() as i64;
    if len == 0 {
        return Err(vm.index_error("pop from empty bytearray"));
    }
    let i = match &bound[0] {
        Some(v) => vm.expect_ssize(v)?,
        None => -1,
    };
    let j = if i < 0 { i + len } else { i };
    if j < 0 || j >= len {
        return Err(vm.index_error("pop index out of range"));
    }
    mutate(vm, args, |data| Value::Int(data.remove(j as usize).into()))
}

fn insert(vm: &mut Vm, args: &[Value]) -> PyResult<Value> {
    Signature::positional("bytearray", "insert", &["index", "item"], 2).check(
        vm,
        &args[1..],
        &[],
    )?;
    let len = this(vm, args)?.data().len() as i64;
    let i = vm.expect_ssize(&args[1])?;
    let b = byte_value(vm, &args[2])?;
    let at = if i < 0 { (i + len).max(0) } else { i.min(len) };
    mutate(vm, args, |data| data.insert(at as usize, b)).map(|()| Value::None)
}

fn remove(vm: &mut Vm, args: &[Value]) -> PyResult<Value> {
    Signature::one("bytearray", "remove").check(vm, &args[1..], &[])?;
    let b = byte_value(vm, &args[1])?;
    let found = this(vm, args)?.data().iter().position(|&x| x == b);
    let Some(at) = found else {
        return Err(vm.value_error("value not found in bytearray"));
    };
    mutate(vm, args, |data| data.remove(at)).map(|_| Value::None)
}

/// The methods both types have.
const SHARED: &[(&str, NativeFn)] = &[
    ("__repr__", repr),
    ("__len__", |vm, args, _| {
        Ok(Value::Int(this(vm, args)?.data().len() as i64))
    }),
    ("__iter__", iter),
    ("__getitem__", getitem),
    ("__contains__", contains),
    ("__add__", concat),
    ("__mul__", repeat),
    ("__rmul__", repeat),
    ("__mod__", |vm, args, _| {
        this(vm, args)?;
        Signature::one("bytes", "__mod__").check(vm, &args[1..], &[])?;
        crate::vm::format::printf_format(vm, &args[0], &args[1])
    }),
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
    ("decode", decode),
    ("hex", |vm, args, kw| {
        let data = this(vm, args)?.data().clone();
        hex_method(vm, &data, &args[1..], kw)
    }),
    ("find", |vm, args, kw| search(vm, args, kw, "find")),
    ("rfind", |vm, args, kw| search(vm, args, kw, "rfind")),
    ("index", |vm, args, kw| search(vm, args, kw, "index")),
    ("rindex", |vm, args, kw| search(vm, args, kw, "rindex")),
    ("count", |vm, args, kw| search(vm, args, kw, "count")),
    ("startswith", |vm, args, kw| affix(vm, args, kw, false)),
    ("endswith", |vm, args, kw| affix(vm, args, kw, true)),
    ("split", |vm, args, kw| split(vm, args, kw, false)),
    ("rsplit", |vm, args, kw| split(vm, args, kw, true)),
    ("strip", |vm, args, _| strip(vm, args, StripSide::Both)),
    ("lstrip", |vm, args, _| strip(vm, args, StripSide::Left)),
    ("rstrip", |vm, args, _| strip(vm, args, StripSide::Right)),
    ("join", join),
    ("replace", replace),
    ("splitlines", splitlines),
    ("partition", |vm, args, _| partition(vm, args, false)),
    ("rpartition", |vm, args, _| partition(vm, args, true)),
    ("removeprefix", |vm, args, _| remove_affix(vm, args, false)),
    ("removesuffix", |vm, args, _| remove_affix(vm, args, true)),
    ("upper", |vm, args, _| {
        mapped(vm, args, "upper", <[u8]>::to_ascii_uppercase)
    }),
    ("lower", |vm, args, _| {
        mapped(vm, args, "lower", <[u8]>::to_ascii_lowercase)
    }),
    ("isdigit", |vm, args, _| {
        predicate(vm, args, "isdigit", u8::is_ascii_digit)
    }),
    ("isalpha", |vm, args, _| {
        predicate(vm, args, "isalpha", u8::is_ascii_alphabetic)
    }),
    ("isalnum", |vm, args, _| {
        predicate(vm, args, "isalnum", u8::is_ascii_alphanumeric)
    }),
    ("isspace", |vm, args, _| {
        predicate(vm, args, "isspace", |b| is_space(*b))
    }),
    ("isascii", |vm, args, _| {
        let data = this(vm, args)?.data().clone();
        Ok(Value::Bool(data.is_ascii()))
    }),
    ("translate", translate),
    ("ljust", |vm, args, kw| justify(vm, args, kw, "ljust")),
    ("rjust", |vm, args, kw| justify(vm, args, kw, "rjust")),
    ("center", |vm, args, kw| justify(vm, args, kw, "center")),
    ("zfill", zfill),
    ("expandtabs", expandtabs),
    ("capitalize", |vm, args, _| {
        mapped(vm, args, "capitalize", capitalize)
    }),
    ("swapcase", |vm, args, _| {
        mapped(vm, args, "swapcase", swapcase)
    }),
    ("title", |vm, args, _| mapped(vm, args, "title", title)),
    ("istitle", |vm, args, _| {
        let data = this(vm, args)?.data().clone();
        Signature::no_args("bytes", "istitle").check(vm, &args[1..], &[])?;
        Ok(Value::Bool(istitle(&data)))
    }),
    ("islower", |vm, args, _| {
        case_test(
            vm,
            args,
            "islower",
            u8::is_ascii_lowercase,
            u8::is_ascii_uppercase,
        )
    }),
    ("isupper", |vm, args, _| {
        case_test(
            vm,
            args,
            "isupper",
            u8::is_ascii_uppercase,
            u8::is_ascii_lowercase,
        )
    }),
];

/// `islower()`/`isupper()`: a byte of the case, and none of the other
/// (`_Py_bytes_islower`, `_Py_bytes_isupper`).
fn case_test(
    vm: &mut Vm,
    args: &[Value],
    name: &'static str,
    case: fn(&u8) -> bool,
    other: fn(&u8) -> bool,
) -> PyResult<Value> {
    let data = this(vm, args)?.data().clone();
    Signature::no_args("bytes", name).check(vm, &args[1..], &[])?;
    Ok(Value::Bool(
        data.iter().any(case) && !data.iter().any(other),
    ))
}

/// The methods only `bytearray` has.
const BYTEARRAY: &[(&str, NativeFn)] = &[
    ("__setitem__", |vm, args, _| {
        let value = args.get(2).cloned().unwrap_or(Value::None);
        store(vm, args, Some(&value))
    }),
    ("__delitem__", |vm, args, _| store(vm, args, None)),
    ("__iadd__", |vm, args, _| {
        let other = args.get(1).cloned().unwrap_or(Value::None);
        let Some(more) = bytes_of(&other) else {
            return Err(vm.type_error(format!(
                "can't concat {} to bytearray",
                vm.type_name(&other)
            )));
        };
        mutate(vm, args, |data| data.extend(more))?;
        Ok(args[0].clone())
    }),
    ("append", |vm, args, _| {
        Signature::one("bytearray", "append").check(vm, &args[1..], &[])?;
        let b = byte_value(vm, &args[1])?;
        mutate(vm, args, |data| data.push(b)).map(|()| Value::None)
    }),
    ("extend", |vm, args, _| extend(vm, args)),
    ("clear", |vm, args, _| {
        mutate(vm, args, Vec::clear).map(|()| Value::None)
    }),
    ("pop", |vm, args, _| pop(vm, args)),
    ("insert", |vm, args, _| insert(vm, args)),
    ("remove", |vm, args, _| remove(vm, args)),
    ("reverse", |vm, args, _| {
        mutate(vm, args, |data| data.reverse()).map(|()| Value::None)
    }),
    ("copy", |vm, args, _| {
        let data = this(vm, args)?.data().clone();
        Ok(vm.new_bytearray(data))
    }),
];

fn install(vm: &mut Vm, ty: &Rc<PyType>, table: &[(&'static str, NativeFn)]) {
    for (name, f) in table {
        vm.add_method(ty, name, *f);
    }
}

/// Installs the constructors of `bytes` and `bytearray`, `fromhex` and `str.encode`; the
/// other methods wait for [`Vm::ready_bytes`].
pub fn init(vm: &mut Vm) {
    let bytes = vm.types.bytes.clone();
    let bytearray = vm.types.bytearray.clone();
    vm.add_static(&bytes, "__new__", bytes_new);
    vm.add_class_method(&bytes, "fromhex", |vm, args, _| {
        fromhex(vm, args, Vm::new_bytes)
    });
    vm.add_static(&bytes, "maketrans", maketrans);
    vm.add_static(&bytearray, "__new__", bytearray_new);
    vm.add_static(&bytearray, "maketrans", maketrans);
    vm.add_class_method(&bytearray, "fromhex", |vm, args, _| {
        fromhex(vm, args, Vm::new_bytearray)
    });
    vm.bytes_methods = Some(install_methods);
    let str_type = vm.types.str.clone();
    vm.add_method(&str_type, "encode", encode);
    codecs::init(vm);
}

/// The types' length slot (`PyType::native_len`): a bytes' or bytearray's, read in place
/// (a subclass, which may define `__len__` or `__bool__`, is asked).
fn plain_len(vm: &mut Vm, v: &Value) -> Option<usize> {
    let Value::Object(o) = v else { return None };
    let exact = Rc::ptr_eq(&o.class, &vm.types.bytes) || Rc::ptr_eq(&o.class, &vm.types.bytearray);
    exact.then(|| payload(v).map(|b| b.data().len()))?
}

/// The methods of both types, installed on their first use.
fn install_methods(vm: &mut Vm) {
    let bytes = vm.types.bytes.clone();
    let bytearray = vm.types.bytearray.clone();
    for ty in [&bytes, &bytearray] {
        ty.native_len.set(Some(plain_len));
        vm.set_type_attr(ty, "__module__", Value::str("builtins"));
        install(vm, ty, SHARED);
    }
    vm.add_method(&bytes, "__hash__", |vm, args, _| {
        Ok(Value::Int(this(vm, args)?.hash()))
    });
    // `bytes(x)` of an object with `__bytes__`; bytes has its own since 3.11.
    vm.add_method(&bytes, "__bytes__", |vm, args, _| {
        let data = this(vm, args)?.data().clone();
        Signature::no_args("bytes", "__bytes__").check(vm, &args[1..], &[])?;
        Ok(vm.new_bytes(data))
    });
    vm.set_type_attr(&bytearray, "__hash__", Value::None);
    install(vm, &bytearray, BYTEARRAY);
}
