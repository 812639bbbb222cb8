//! `str`: its constructor and its methods, listed in order in [`init`], on top of the
//! algorithms in `common::str_ops` and the formatting in `vm/format.rs`: argument binding
//! and conversion with CPython's messages, results as values.
//!
//! In: `self` (a str value) and the call's arguments. Out: values or VM exceptions.
//! Mirrors the method table of `Objects/unicodeobject.c` (`unicode_methods`). Operators
//! (`+`, `*`, `%`, `==`, `in`, `[i]`): the VM's protocol in `vm/ops.rs`; `repr`:
//! `vm/repr.rs`. Installs itself with [`init`]; knows the VM only through `Vm` methods.

use std::rc::Rc;

use crate::builtins::bytes_type::{bytes_of, codec_args};
use crate::builtins::codecs;
use crate::common::chars::{self, CharClass};
use crate::common::sizes::{check_text_len, text_with_capacity};
use crate::common::str_ops::{self, StripSide};
use crate::vm::args::{OrRaise, Signature, check_arity};
use crate::vm::call::new_builtin_value;
use crate::vm::format;
use crate::vm::object::KwArgs;
use crate::vm::value::{PyStr, Value};
use crate::vm::{PyResult, Vm};

/// `str(object='')`, or `str(object=b'', encoding='utf-8', errors='strict')`, which decodes.
fn str_new(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    new_builtin_value(vm, &vm.types.str.clone(), args, kw, str_value)
}

/// What `str(*args, **kw)` makes.
fn str_value(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    check_arity(vm, "str", args, 0, 3)?;
    let signature = Signature::keywords("str", "str", &["object", "encoding", "errors"], 0, 0);
    let mut bound = signature.bind(vm, args, kw)?.into_iter();
    let [object, encoding, errors] = [(); 3].map(|()| bound.next().flatten());
    let Some(object) = object else {
        return Ok(Value::str(""));
    };
    if encoding.is_none() && errors.is_none() {
        return Ok(Value::Str(vm.str_of(&object)?));
    }
    let [encoding, errors] = codec_args(vm, "str", &[encoding, errors])?;
    let Some(data) = bytes_of(&object) else {
        return Err(vm.type_error(match object {
            Value::Str(_) => "decoding str is not supported".to_string(),
            other => format!(
                "decoding to str: need a bytes-like object, {} found",
                vm.type_name(&other)
            ),
        }));
    };
    codecs::decode(vm, &data, &encoding, &errors).map(Value::str)
}

/// The str `self` of a method call.
fn this(vm: &Vm, args: &[Value]) -> PyResult<Rc<PyStr>> {
    match args.first() {
        Some(Value::Str(s)) => Ok(s.clone()),
        Some(other) => Err(vm.type_error(format!(
            "descriptor requires a 'str' object but received a '{}'",
            vm.type_name(other)
        ))),
        None => Err(vm.type_error("descriptor requires a 'str' object but received nothing")),
    }
}

/// A required str argument; `message` words the error from the offending type's name.
fn str_arg(vm: &Vm, value: &Value, message: impl Fn(&str) -> String) -> PyResult<Rc<PyStr>> {
    match value.str_or_subclass() {
        Some(s) => Ok(s.clone()),
        None => Err(vm.type_error(message(&vm.type_name(value)))),
    }
}

/// `find()`-style argument errors: "find() argument 1 must be str, not int".
fn nth_str_arg(vm: &Vm, value: &Value, method: &str, position: usize) -> PyResult<Rc<PyStr>> {
    str_arg(vm, value, |t| {
        format!("{method}() argument {position} must be str, not {t}")
    })
}

/// An optional slice bound (`start`/`end` of find, count, startswith): None or `__index__`.
pub(super) fn slice_bound(vm: &mut Vm, value: Option<&Value>) -> PyResult<Option<i64>> {
    match value {
        None | Some(Value::None) => Ok(None),
        Some(v) => match vm.index_value(v)? {
            Some(n) => Ok(Some(n)),
            None => Err(
                vm.type_error("slice indices must be integers or None or have an __index__ method")
            ),
        },
    }
}

/// A result width: `MemoryError` rather than an allocation that cannot succeed.
fn width_arg(vm: &mut Vm, value: &Value) -> PyResult<i64> {
    let width = vm.expect_ssize(value)?;
    check_text_len(width.max(0) as usize).or_raise(vm)?;
    Ok(width)
}

/// The fill character of `center`/`ljust`/`rjust`.
fn fill_char(vm: &Vm, value: Option<&Value>) -> PyResult<char> {
    match value.map(|v| (v, v.str_or_subclass())) {
        None => Ok(' '),
        Some((_, Some(s))) => {
            let mut chars = s.as_str().chars();
            match (chars.next(), chars.next()) {
                (Some(c), None) => Ok(c),
                _ => Err(vm.type_error("The fill character must be exactly one character long")),
            }
        }
        Some((other, None)) => Err(vm.type_error(format!(
            "The fill character must be a unicode character, not {}",
            vm.type_name(other)
        ))),
    }
}

/// Strip characters: None or a str (`strip arg must be None or str`).
fn strip_chars(vm: &Vm, value: Option<&Value>, method: &str) -> PyResult<Option<Rc<PyStr>>> {
    match value {
        None | Some(Value::None) => Ok(None),
        Some(v) => match v.str_or_subclass() {
            Some(s) => Ok(Some(s.clone())),
            None => Err(vm.type_error(format!("{method} arg must be None or str"))),
        },
    }
}

/// A `split`/`rsplit` separator: None or a non-empty str.
fn separator(vm: &Vm, value: Option<&Value>) -> PyResult<Option<Rc<PyStr>>> {
    match value {
        None | Some(Value::None) => Ok(None),
        Some(other) => match other.str_or_subclass() {
            Some(s) => Ok(Some(s.clone())),
            None => Err(vm.type_error(format!("must be str or None, not {}", vm.type_name(other)))),
        },
    }
}

fn str_list(parts: Vec<&str>) -> Value {
    Value::list(parts.into_iter().map(Value::str).collect())
}

/// Returns `self` itself when a method leaves the text unchanged (CPython returns the same
/// object for exact strs), otherwise a new str.
fn same_or_new(original: &Rc<PyStr>, text: &str) -> Value {
    if text.len() == original.as_str().len() && text == original.as_str() {
        Value::Str(original.clone())
    } else {
        Value::str(text)
    }
}

fn split_method(vm: &mut Vm, args: &[Value], kw: &KwArgs, reverse: bool) -> PyResult<Value> {
    const SPLIT: Signature = Signature::keywords("str", "split", &["sep", "maxsplit"], 0, 0);
    const RSPLIT: Signature = Signature::keywords("str", "rsplit", &["sep", "maxsplit"], 0, 0);
    let s = this(vm, args)?;
    let bound = if reverse { &RSPLIT } else { &SPLIT }.bind(vm, &args[1..], kw)?;
    let sep = separator(vm, bound[0].as_ref())?;
    let maxsplit = match &bound[1] {
        Some(v) => vm.expect_ssize(v)?,
        None => -1,
    };
    let sep = sep.as_ref().map(|s| s.as_str());
    let parts = if reverse {
        str_ops::rsplit(s.as_str(), sep, maxsplit)
    } else {
        str_ops::split(s.as_str(), sep, maxsplit)
    };
    Ok(str_list(parts.or_raise(vm)?))
}

fn strip_method(vm: &mut Vm, args: &[Value], kw: &KwArgs, side: StripSide) -> PyResult<Value> {
    let name = match side {
        StripSide::Both => "strip",
        StripSide::Left => "lstrip",
        StripSide::Right => "rstrip",
    };
    let signature = Signature::positional("str", name, &["chars"], 0);
    let s = this(vm, args)?;
    let bound = signature.bind(vm, &args[1..], kw)?;
    let chars = strip_chars(vm, bound[0].as_ref(), name)?;
    let stripped = str_ops::strip(s.as_str(), chars.as_ref().map(|c| c.as_str()), side);
    Ok(same_or_new(&s, stripped))
}

/// `find`, `rfind`, `index`, `rindex`, `count`: `(sub[, start[, end]])`.
fn search_method(vm: &mut Vm, args: &[Value], kw: &KwArgs, name: &'static str) -> PyResult<Value> {
    let signature = Signature::positional("str", name, &["sub", "start", "end"], 1);
    let s = this(vm, args)?;
    let bound = signature.bind(vm, &args[1..], kw)?;
    let sub = nth_str_arg(vm, bound[0].as_ref().unwrap_or(&Value::None), name, 1)?;
    let start = slice_bound(vm, bound[1].as_ref())?;
    let end = slice_bound(vm, bound[2].as_ref())?;
    let (text, sub) = (s.text(), sub.as_str());
    Ok(Value::Int(match name {
        "find" => str_ops::find(text, sub, start, end, false),
        "rfind" => str_ops::find(text, sub, start, end, true),
        "index" => str_ops::index(text, sub, start, end, false).or_raise(vm)?,
        "rindex" => str_ops::index(text, sub, start, end, true).or_raise(vm)?,
        _ => str_ops::count(text, sub, start, end) as i64,
    }))
}

/// `startswith` / `endswith`: a str or a tuple of strs, with an optional range.
fn affix_method(vm: &mut Vm, args: &[Value], kw: &KwArgs, at_end: bool) -> PyResult<Value> {
    let name = if at_end { "endswith" } else { "startswith" };
    let signature = Signature::positional("str", name, &["prefix", "start", "end"], 1);
    let s = this(vm, args)?;
    let bound = signature.bind(vm, &args[1..], kw)?;
    let start = slice_bound(vm, bound[1].as_ref())?;
    let end = slice_bound(vm, bound[2].as_ref())?;
    let candidates: Vec<Value> = match bound[0].as_ref() {
        Some(Value::Tuple(t)) => {
            let mut items = Vec::with_capacity(t.items.len());
            for item in t.items.iter() {
                if item.str_or_subclass().is_none() {
                    return Err(vm.type_error(format!(
                        "tuple for {name} must only contain str, not {}",
                        vm.type_name(item)
                    )));
                }
                items.push(item.clone());
            }
            items
        }
        Some(v) if v.str_or_subclass().is_some() => vec![v.clone()],
        other => {
            let type_name = vm.type_name(other.unwrap_or(&Value::None));
            return Err(vm.type_error(format!(
                "{name} first arg must be str or a tuple of str, not {type_name}"
            )));
        }
    };
    let hit = candidates.iter().any(|candidate| {
        candidate.str_or_subclass().is_some_and(|affix| {
            str_ops::starts_or_ends_with(s.text(), affix.as_str(), start, end, at_end)
        })
    });
    Ok(Value::Bool(hit))
}

/// `center`, `ljust`, `rjust`: `(width[, fillchar])`.
fn justify_method(vm: &mut Vm, args: &[Value], kw: &KwArgs, name: &'static str) -> PyResult<Value> {
    let signature = Signature::positional("str", name, &["width", "fillchar"], 1);
    let s = this(vm, args)?;
    let bound = signature.bind(vm, &args[1..], kw)?;
    let width = width_arg(vm, bound[0].as_ref().unwrap_or(&Value::None))?;
    let fill = fill_char(vm, bound[1].as_ref())?;
    let text = match name {
        "center" => str_ops::center(s.as_str(), width, fill),
        "ljust" => str_ops::ljust(s.as_str(), width, fill),
        _ => str_ops::rjust(s.as_str(), width, fill),
    };
    Ok(same_or_new(&s, &text))
}

fn partition_method(vm: &mut Vm, args: &[Value], reverse: bool) -> PyResult<Value> {
    let name = if reverse { "rpartition" } else { "partition" };
    let s = this(vm, args)?;
    Signature::one("str", name).check(vm, &args[1..], &[])?;
    let sep = str_arg(vm, &args[1], |t| format!("must be str, not {t}"))?;
    let (head, middle, tail) =
        str_ops::partition(s.as_str(), sep.as_str(), reverse).or_raise(vm)?;
    Ok(Value::tuple(vec![
        Value::str(head),
        Value::str(middle),
        Value::str(tail),
    ]))
}

/// `removeprefix` / `removesuffix`.
fn remove_affix(vm: &mut Vm, args: &[Value], at_end: bool) -> PyResult<Value> {
    let name = if at_end {
        "removesuffix"
    } else {
        "removeprefix"
    };
    let s = this(vm, args)?;
    Signature::one("str", name).check(vm, &args[1..], &[])?;
    let affix = str_arg(vm, &args[1], |t| {
        format!("{name}() argument must be str, not {t}")
    })?;
    let text = s.as_str();
    let rest = if at_end {
        text.strip_suffix(affix.as_str())
    } else {
        text.strip_prefix(affix.as_str())
    };
    Ok(same_or_new(&s, rest.unwrap_or(text)))
}

fn join_method(vm: &mut Vm, args: &[Value]) -> PyResult<Value> {
    let s = this(vm, args)?;
    Signature::one("str", "join").check(vm, &args[1..], &[])?;
    if !vm.is_iterable(&args[1]) {
        return Err(vm.type_error("can only join an iterable"));
    }
    let items = vm.collect_iterable(&args[1])?;
    let mut pieces = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let Some(piece) = item.str_or_subclass() else {
            return Err(vm.type_error(format!(
                "sequence item {i}: expected str instance, {} found",
                vm.type_name(item)
            )));
        };
        pieces.push(piece.as_str());
    }
    // Sized before it is built: a result too long to hold is a MemoryError.
    let separators = s
        .as_str()
        .len()
        .saturating_mul(pieces.len().saturating_sub(1));
    let bytes = pieces
        .iter()
        .fold(separators, |n, piece| n.saturating_add(piece.len()));
    let chars = || {
        let separators = s.char_len().saturating_mul(pieces.len().saturating_sub(1));
        pieces
            .iter()
            .fold(separators, |n, p| n.saturating_add(str_ops::char_len(p)))
    };
    let mut out = text_with_capacity(bytes, chars).or_raise(vm)?;
    for (i, piece) in pieces.iter().enumerate() {
        if i > 0 {
            out.push_str(s.as_str());
        }
        out.push_str(piece);
    }
    Ok(Value::str(out))
}

fn replace_method(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    const SIGNATURE: Signature =
        Signature::keywords("str", "replace", &["old", "new", "count"], 2, 2);
    let s = this(vm, args)?;
    let bound = SIGNATURE.bind(vm, &args[1..], kw)?;
    let old = nth_str_arg(vm, bound[0].as_ref().unwrap_or(&Value::None), "replace", 1)?;
    let new = nth_str_arg(vm, bound[1].as_ref().unwrap_or(&Value::None), "replace", 2)?;
    let count = match &bound[2] {
        Some(v) => vm.expect_ssize(v)?,
        None => -1,
    };
    let replaced = str_ops::replace(s.as_str(), old.as_str(), new.as_str(), count).or_raise(vm)?;
    Ok(same_or_new(&s, &replaced))
}

/// A method without arguments that maps the text to new text (always a new str).
fn text_method(
    vm: &mut Vm,
    args: &[Value],
    name: &'static str,
    f: fn(&str) -> String,
) -> PyResult<Value> {
    let s = this(vm, args)?;
    Signature::no_args("str", name).check(vm, &args[1..], &[])?;
    Ok(Value::str(f(s.as_str())))
}

/// A predicate method without arguments (`isdigit`, `isupper`, …).
fn predicate(
    vm: &mut Vm,
    args: &[Value],
    name: &'static str,
    f: fn(&str) -> bool,
) -> PyResult<Value> {
    let s = this(vm, args)?;
    Signature::no_args("str", name).check(vm, &args[1..], &[])?;
    Ok(Value::Bool(f(s.as_str())))
}

/// `str.maketrans(x[, y[, z]])`: a dict from code points to code points, strs or None.
fn maketrans(vm: &mut Vm, args: &[Value]) -> PyResult<Value> {
    Signature::positional("str", "maketrans", &["x", "y", "z"], 1).check(vm, args, &[])?;
    let table = Rc::new(crate::vm::value::PyDict {
        table: Default::default(),
    });
    if args.len() == 1 {
        let Value::Dict(mapping) = &args[0] else {
            return Err(
                vm.type_error("if you give only one argument to maketrans it must be a dict")
            );
        };
        let entries: Vec<(Value, Value)> = mapping.table.borrow().snapshot();
        for (key, value) in entries {
            let key = match &key {
                Value::Str(k) => {
                    let mut chars = k.as_str().chars();
                    match (chars.next(), chars.next()) {
                        (Some(c), None) => Value::Int(i64::from(u32::from(c))),
                        _ => {
                            return Err(vm.value_error(
                                "string keys in translate table must be of length 1",
                            ));
                        }
                    }
                }
                Value::Int(_) | Value::Bool(_) => key.clone(),
                _ => {
                    return Err(
                        vm.type_error("keys in translate table must be strings or integers")
                    );
                }
            };
            vm.dict_set(&table, key, value)?;
        }
        return Ok(Value::Dict(table));
    }
    let from = nth_str_arg(vm, &args[0], "maketrans", 1)?;
    let to = nth_str_arg(vm, &args[1], "maketrans", 2)?;
    if str_ops::char_len(from.as_str()) != str_ops::char_len(to.as_str()) {
        return Err(vm.value_error("the first two maketrans arguments must have equal length"));
    }
    let code = |c: char| Value::Int(i64::from(u32::from(c)));
    for (a, b) in from.as_str().chars().zip(to.as_str().chars()) {
        vm.dict_set(&table, code(a), code(b))?;
    }
    if let Some(delete) = args.get(2) {
        let delete = nth_str_arg(vm, delete, "maketrans", 3)?;
        for c in delete.as_str().chars() {
            vm.dict_set(&table, code(c), Value::None)?;
        }
    }
    Ok(Value::Dict(table))
}

/// `s.translate(table)`: each character looked up by code point; a missing key
/// (`LookupError`) keeps it, None deletes it, an int or str replaces it.
fn translate(vm: &mut Vm, args: &[Value]) -> PyResult<Value> {
    let s = this(vm, args)?;
    Signature::one("str", "translate").check(vm, &args[1..], &[])?;
    let mut out = String::with_capacity(s.as_str().len());
    for c in s.as_str().chars() {
        let replacement = match vm.get_item(&args[1], &Value::Int(i64::from(u32::from(c)))) {
            Ok(value) => value,
            Err(e) if vm.exc_matches(&e, &vm.types.lookup_error.clone()) => {
                out.push(c);
                continue;
            }
            Err(e) => return Err(e),
        };
        match replacement {
            Value::None => {}
            Value::Str(text) => out.push_str(text.as_str()),
            Value::Int(n) => match u32::try_from(n).ok().and_then(char::from_u32) {
                Some(mapped) => out.push(mapped),
                None => return Err(vm.value_error("character mapping must be in range(0x110000)")),
            },
            _ => return Err(vm.type_error("character mapping must return integer, None or str")),
        }
    }
    Ok(same_or_new(&s, &out))
}

macro_rules! text_methods {
    ($vm:expr, $ty:expr, $($name:literal => $f:expr),* $(,)?) => {
        $( $vm.add_method($ty, $name, |vm, args, _| text_method(vm, args, $name, $f)); )*
    };
}

macro_rules! predicates {
    ($vm:expr, $ty:expr, $($name:literal => $f:expr),* $(,)?) => {
        $( $vm.add_method($ty, $name, |vm, args, _| predicate(vm, args, $name, $f)); )*
    };
}

/// Installs the constructor and methods of `str`.
pub fn init(vm: &mut Vm) {
    let ty = vm.types.str.clone();
    vm.add_static(&ty, "__new__", str_new);
    // The str itself (of a subclass instance, the str it extends), where `object.__str__`
    // would give its repr.
    vm.add_method(&ty, "__str__", |vm, args, _| match args.first() {
        Some(Value::Object(o)) if matches!(o.builtin_base(), Some(Value::Str(_))) => {
            Ok(o.builtin_base().cloned().unwrap_or(Value::None))
        }
        Some(Value::Str(s)) => Ok(Value::Str(s.clone())),
        other => Err(vm.type_error(format!(
            "descriptor '__str__' requires a 'str' object but received a '{}'",
            other.map_or("nothing".into(), |v| vm.type_name(v))
        ))),
    });
    vm.add_method(&ty, "split", |vm, args, kw| {
        split_method(vm, args, kw, false)
    });
    vm.add_method(&ty, "rsplit", |vm, args, kw| {
        split_method(vm, args, kw, true)
    });
    vm.add_method(&ty, "splitlines", |vm, args, kw| {
        const SIGNATURE: Signature = Signature::keywords("str", "splitlines", &["keepends"], 0, 0);
        let s = this(vm, args)?;
        let bound = SIGNATURE.bind(vm, &args[1..], kw)?;
        let keepends = match &bound[0] {
            Some(v) => vm.truthy(v)?,
            None => false,
        };
        Ok(str_list(str_ops::splitlines(s.as_str(), keepends)))
    });
    vm.add_method(&ty, "strip", |vm, args, kw| {
        strip_method(vm, args, kw, StripSide::Both)
    });
    vm.add_method(&ty, "lstrip", |vm, args, kw| {
        strip_method(vm, args, kw, StripSide::Left)
    });
    vm.add_method(&ty, "rstrip", |vm, args, kw| {
        strip_method(vm, args, kw, StripSide::Right)
    });
    for name in ["find", "rfind", "index", "rindex", "count"] {
        let f: crate::vm::object::NativeFn = match name {
            "find" => |vm, args, kw| search_method(vm, args, kw, "find"),
            "rfind" => |vm, args, kw| search_method(vm, args, kw, "rfind"),
            "index" => |vm, args, kw| search_method(vm, args, kw, "index"),
            "rindex" => |vm, args, kw| search_method(vm, args, kw, "rindex"),
            _ => |vm, args, kw| search_method(vm, args, kw, "count"),
        };
        vm.add_method(&ty, name, f);
    }
    vm.add_method(&ty, "startswith", |vm, args, kw| {
        affix_method(vm, args, kw, false)
    });
    vm.add_method(&ty, "endswith", |vm, args, kw| {
        affix_method(vm, args, kw, true)
    });
    vm.add_method(&ty, "center", |vm, args, kw| {
        justify_method(vm, args, kw, "center")
    });
    vm.add_method(&ty, "ljust", |vm, args, kw| {
        justify_method(vm, args, kw, "ljust")
    });
    vm.add_method(&ty, "rjust", |vm, args, kw| {
        justify_method(vm, args, kw, "rjust")
    });
    vm.add_method(&ty, "zfill", |vm, args, _| {
        let s = this(vm, args)?;
        Signature::one("str", "zfill").check(vm, &args[1..], &[])?;
        let width = width_arg(vm, &args[1])?;
        Ok(same_or_new(&s, &str_ops::zfill(s.as_str(), width)))
    });
    vm.add_method(&ty, "expandtabs", |vm, args, kw| {
        const SIGNATURE: Signature = Signature::keywords("str", "expandtabs", &["tabsize"], 0, 0);
        let s = this(vm, args)?;
        let bound = SIGNATURE.bind(vm, &args[1..], kw)?;
        let tabsize = match &bound[0] {
            Some(v) => i64::from(vm.expect_c_int(v)?),
            None => 8,
        };
        let tabs = s.as_str().matches('\t').count();
        check_text_len(tabs.saturating_mul(tabsize.max(0) as usize)).or_raise(vm)?;
        Ok(same_or_new(&s, &str_ops::expandtabs(s.as_str(), tabsize)))
    });
    vm.add_method(&ty, "partition", |vm, args, _| {
        partition_method(vm, args, false)
    });
    vm.add_method(&ty, "rpartition", |vm, args, _| {
        partition_method(vm, args, true)
    });
    vm.add_method(&ty, "removeprefix", |vm, args, _| {
        remove_affix(vm, args, false)
    });
    vm.add_method(&ty, "removesuffix", |vm, args, _| {
        remove_affix(vm, args, true)
    });
    vm.add_method(&ty, "join", |vm, args, _| join_method(vm, args));
    vm.add_static(&ty, "maketrans", |vm, args, _| maketrans(vm, args));
    vm.add_method(&ty, "translate", |vm, args, _| translate(vm, args));
    vm.add_method(&ty, "replace", replace_method);
    vm.add_method(&ty, "format", |vm, args, kw| {
        let s = this(vm, args)?;
        format::str_format(vm, s.as_str(), &args[1..], kw).map(Value::str)
    });
    vm.add_method(&ty, "format_map", |vm, args, _| {
        let s = this(vm, args)?;
        Signature::one("str", "format_map").check(vm, &args[1..], &[])?;
        format::str_format_map(vm, s.as_str(), &args[1]).map(Value::str)
    });
    vm.add_method(&ty, "__format__", |vm, args, _| {
        let s = this(vm, args)?;
        Signature::one("str", "__format__").check(vm, &args[1..], &[])?;
        let Value::Str(spec) = &args[1] else {
            return Err(vm.type_error(format!(
                "__format__() argument must be str, not {}",
                vm.arg_type_name(&args[1])
            )));
        };
        format::format_spec(vm, &Value::Str(s), spec.as_str()).map(Value::str)
    });
    vm.add_method(&ty, "__mod__", |vm, args, _| {
        let s = this(vm, args)?;
        Signature::one("str", "__mod__").check(vm, &args[1..], &[])?;
        format::printf_format(vm, &Value::Str(s), &args[1])
    });
    text_methods!(vm, &ty,
        "upper" => |s| s.to_uppercase(),
        "lower" => |s| s.to_lowercase(),
        "title" => str_ops::title,
        "capitalize" => str_ops::capitalize,
        "swapcase" => str_ops::swapcase,
        "casefold" => str_ops::casefold,
    );
    predicates!(vm, &ty,
        "isdigit" => |s| chars::is_all(s, CharClass::Digit),
        "isdecimal" => |s| chars::is_all(s, CharClass::Decimal),
        "isnumeric" => |s| chars::is_all(s, CharClass::Numeric),
        "isalpha" => |s| chars::is_all(s, CharClass::Alpha),
        "isalnum" => |s| chars::is_all(s, CharClass::Alnum),
        "isspace" => |s| chars::is_all(s, CharClass::Space),
        "isascii" => |s| chars::is_all(s, CharClass::Ascii),
        "isprintable" => |s| chars::is_all(s, CharClass::Printable),
        "isupper" => chars::is_upper,
        "islower" => chars::is_lower,
        "istitle" => chars::is_title,
        "isidentifier" => chars::is_identifier,
    );
}
