//! `_json`, the native half of `json` (written in apy: `src/stdlib/json.apy`), as CPython's
//! `Modules/_json.c` is the C half of `Lib/json`: the scanner that turns a JSON document
//! into values (`scan_once`, CPython's `c_make_scanner`), the encoder that turns values
//! into a document (`encode`, CPython's `c_make_encoder`, here with `indent` too), and the
//! string escapers (`encode_basestring_ascii`, `encode_basestring`). In Python, a loop over
//! each character of a document costs a dispatch per character; here it is a pass over
//! bytes.
//!
//! `encode(encoder, o, indent)` reads the encoder's options (`skipkeys`, `ensure_ascii`,
//! `check_circular`, `allow_nan`, `sort_keys`, `item_separator`, `key_separator`) and
//! calls its `default` for any other object; `indent` is None or the string of one level.
//!
//! `scan_once(decoder, s, idx)` reads the decoder's options (`strict`, `object_hook`,
//! `object_pairs_hook`, `parse_float`, `parse_int`, `parse_constant`) and gives `(value,
//! end)`; where no value starts it raises `StopIteration(idx)`, which
//! `JSONDecoder.raw_decode` turns into "Expecting value", and any other error is a
//! `json.JSONDecodeError` with CPython's message and position (in code points).

use std::rc::Rc;

use crate::common::op_error::OpResult;
use crate::common::sizes::{grow_text, no_memory, text_with_capacity};
use crate::vm::args::{OrRaise, check_arity};
use crate::vm::dict::StrKeys;
use crate::vm::object::KwArgs;
use crate::vm::value::{DictTable, PyStr, Value};
use crate::vm::{Exc, PyResult, Vm};

pub fn module(vm: &mut Vm) -> Value {
    let functions: [(&'static str, crate::vm::object::NativeFn); 4] = [
        ("scan_once", scan_once),
        ("encode", encode),
        ("encode_basestring_ascii", |vm, args, _| {
            encode_basestring(vm, "encode_basestring_ascii", args, true)
        }),
        ("encode_basestring", |vm, args, _| {
            encode_basestring(vm, "encode_basestring", args, false)
        }),
    ];
    let attrs: Vec<(&str, Value)> = functions
        .iter()
        .map(|&(name, f)| (name, vm.native(name, f)))
        .collect();
    vm.new_module("_json", attrs)
}

// ---- Encoding ------------------------------------------------------------------------------

/// `encode_basestring_ascii(s)` / `encode_basestring(s)`: `s` as a JSON string in double
/// quotes: `"`, `\` and the controls escaped, and with `ascii` everything beyond `~` as
/// `\uXXXX` (a surrogate pair beyond the Basic Multilingual Plane).
fn encode_basestring(vm: &mut Vm, name: &str, args: &[Value], ascii: bool) -> PyResult<Value> {
    check_arity(vm, name, args, 1, 1)?;
    let base = crate::vm::ops::builtin_value(&args[0]);
    let Some(text) = base.as_ref().unwrap_or(&args[0]).as_str() else {
        return Err(vm.type_error(format!(
            "first argument must be a string, not {}",
            vm.type_name(&args[0])
        )));
    };
    let mut out = String::new();
    push_string(&mut out, text, ascii).or_raise(vm)?;
    Ok(Value::str(out))
}

/// The most bytes one character's escape takes: a surrogate pair, `\ud83d\ude00`.
const LONGEST_ESCAPE: usize = 12;

/// `text` as a JSON string, added to `out`; `MemoryError` when `out` cannot grow to hold it.
fn push_string(out: &mut String, text: &str, ascii: bool) -> OpResult<()> {
    grow_text(out, text.len() + 2)?;
    out.push('"');
    for c in text.chars() {
        // Escapes make the text longer than its bytes: room is checked as it goes.
        if out.capacity() - out.len() < LONGEST_ESCAPE + 1 {
            grow_text(out, LONGEST_ESCAPE + 1)?;
        }
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if c < ' ' => out.push_str(&format!("\\u{:04x}", c as u32)),
            c if ascii && c > '~' => {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    out.push_str(&format!("\\u{unit:04x}"));
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
    Ok(())
}

/// Adds `text` to the document `out`, or raises `MemoryError` when `out` cannot grow to
/// hold it (past `--max-memory`: CPython's encoder raises it too, where apy would end).
fn put(vm: &Vm, out: &mut String, text: &str) -> PyResult<()> {
    grow_text(out, text.len()).or_raise(vm)?;
    out.push_str(text);
    Ok(())
}

/// A newline and `level` indents (nothing when not indenting), or `MemoryError` when it
/// cannot be allocated.
fn line_break(indent: Option<&str>, level: usize) -> OpResult<String> {
    let Some(indent) = indent else {
        return Ok(String::new());
    };
    let bytes = indent
        .len()
        .checked_mul(level)
        .and_then(|n| n.checked_add(1));
    let bytes = bytes.ok_or_else(no_memory)?;
    let mut text = text_with_capacity(bytes, || 1 + indent.chars().count() * level)?;
    text.push('\n');
    for _ in 0..level {
        text.push_str(indent);
    }
    Ok(text)
}

/// An encoder's options, read once per document.
struct Encoding<'a> {
    encoder: &'a Value,
    skipkeys: bool,
    ascii: bool,
    allow_nan: bool,
    sort_keys: bool,
    /// The containers (and objects given to `default`) being encoded, by address, when
    /// `check_circular`.
    markers: Option<Vec<usize>>,
    item_separator: String,
    key_separator: String,
    indent: Option<String>,
    out: String,
}

/// `encode(encoder, o, indent)`: the JSON text of `o`.
fn encode(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    check_arity(vm, "encode", args, 3, 3)?;
    let encoder = &args[0];
    let flag = |vm: &mut Vm, name: &str| -> PyResult<bool> {
        let name = vm.intern(name);
        let v = vm.get_attr(encoder, &name)?;
        vm.truthy(&v)
    };
    let (skipkeys, ascii) = (flag(vm, "skipkeys")?, flag(vm, "ensure_ascii")?);
    let (check_circular, allow_nan) = (flag(vm, "check_circular")?, flag(vm, "allow_nan")?);
    let sort_keys = flag(vm, "sort_keys")?;
    let text = |vm: &mut Vm, name: &str| -> PyResult<String> {
        let key = vm.intern(name);
        let v = vm.get_attr(encoder, &key)?;
        match v.as_str() {
            Some(s) => Ok(s.to_string()),
            None => Err(vm.type_error(format!(
                "make_encoder() argument {name} must be str, not {}",
                vm.type_name(&v)
            ))),
        }
    };
    let item_separator = text(vm, "item_separator")?;
    let key_separator = text(vm, "key_separator")?;
    let indent = match &args[2] {
        Value::None => None,
        v => Some(v.as_str().map(str::to_string).ok_or_else(|| {
            vm.type_error(format!(
                "make_encoder() argument 4 must be str or None, not {}",
                vm.type_name(v)
            ))
        })?),
    };
    let mut encoding = Encoding {
        encoder,
        skipkeys,
        ascii,
        allow_nan,
        sort_keys,
        markers: check_circular.then(Vec::new),
        item_separator,
        key_separator,
        indent,
        out: String::new(),
    };
    encoding.value(vm, &args[1], 0)?;
    Ok(Value::str(encoding.out))
}

/// What JSON makes of a value: a scalar (already written), or the container to encode.
enum Kind {
    Written,
    Array(Vec<Value>),
    Object(Vec<(Value, Value)>),
    Other,
}

impl Encoding<'_> {
    fn value(&mut self, vm: &mut Vm, o: &Value, level: usize) -> PyResult<()> {
        match self.kind(vm, o)? {
            Kind::Written => {}
            Kind::Array(items) => self.array(vm, o, &items, level)?,
            Kind::Object(items) => self.object(vm, o, items, level)?,
            Kind::Other => {
                self.enter(vm, o)?;
                let default = vm.call_method(self.encoder, "default", std::slice::from_ref(o));
                let result = default.and_then(|v| self.nested(vm, |e, vm| e.value(vm, &v, level)));
                self.leave(o);
                result?;
            }
        }
        Ok(())
    }

    /// Sorts `o` (an instance of a subclass of a built-in type counts as its value, as
    /// `isinstance` has it): str, None, bool, int and float are written at once.
    fn kind(&mut self, vm: &mut Vm, o: &Value) -> PyResult<Kind> {
        let base = crate::vm::ops::builtin_value(o);
        let v = base.as_ref().unwrap_or(o);
        let text = match v {
            Value::Str(s) => {
                push_string(&mut self.out, s.as_str(), self.ascii).or_raise(vm)?;
                return Ok(Kind::Written);
            }
            Value::None => "null".to_string(),
            Value::Bool(b) => if *b { "true" } else { "false" }.to_string(),
            Value::Int(n) => n.to_string(),
            // Through repr: its limit on digits (sys.set_int_max_str_digits) holds.
            Value::BigInt(_) => vm.repr(v)?,
            Value::Float(x) => self.float(vm, *x)?,
            _ => return container_kind(vm, o, v, base.is_some()),
        };
        put(vm, &mut self.out, &text)?;
        Ok(Kind::Written)
    }

    /// A float's text: its repr, or NaN/Infinity/-Infinity when `allow_nan`.
    fn float(&self, vm: &mut Vm, x: f64) -> PyResult<String> {
        let text = if x.is_nan() {
            "NaN"
        } else if x == f64::INFINITY {
            "Infinity"
        } else if x == f64::NEG_INFINITY {
            "-Infinity"
        } else {
            return Ok(crate::common::float_repr::float_repr(x));
        };
        if !self.allow_nan {
            return Err(vm.value_error(format!(
                "Out of range float values are not JSON compliant: {}",
                crate::common::float_repr::float_repr(x)
            )));
        }
        Ok(text.into())
    }

    fn enter(&mut self, vm: &mut Vm, o: &Value) -> PyResult<()> {
        if let Some(markers) = &mut self.markers {
            let id = o.address();
            if markers.contains(&id) {
                return Err(vm.value_error("Circular reference detected"));
            }
            markers.push(id);
        }
        Ok(())
    }

    fn leave(&mut self, o: &Value) {
        if let Some(markers) = &mut self.markers {
            let id = o.address();
            if let Some(at) = markers.iter().rposition(|&m| m == id) {
                markers.remove(at);
            }
        }
    }

    /// `encode` one level deeper in native recursion (CPython's C encoder counts its depth
    /// against the C recursion limit, not `sys.getrecursionlimit()`), with the
    /// RecursionError it words.
    fn nested(
        &mut self,
        vm: &mut Vm,
        encode: impl FnOnce(&mut Self, &mut Vm) -> PyResult<()>,
    ) -> PyResult<()> {
        vm.nested(" while encoding a JSON object", |vm| encode(self, vm))
    }

    /// A non-empty array or object `o` at `level`: marked for the circular check, one
    /// level deeper in the recursion limit, between `open` and `close` (with the newlines
    /// and indents when indenting); `items` writes the items, given the separator to put
    /// between two of them.
    fn container(
        &mut self,
        vm: &mut Vm,
        o: &Value,
        (open, close): (&str, &str),
        level: usize,
        items: impl FnOnce(&mut Self, &mut Vm, &str) -> PyResult<()>,
    ) -> PyResult<()> {
        self.enter(vm, o)?;
        let result = self.nested(vm, |e, vm| {
            let indent = e.indent.as_deref();
            let inner = line_break(indent, level + 1).or_raise(vm)?;
            let outer = line_break(indent, level).or_raise(vm)?;
            let mut separator = String::new();
            grow_text(&mut separator, e.item_separator.len() + inner.len()).or_raise(vm)?;
            separator.push_str(&e.item_separator);
            separator.push_str(&inner);
            put(vm, &mut e.out, open)?;
            put(vm, &mut e.out, &inner)?;
            items(e, vm, &separator)?;
            put(vm, &mut e.out, &outer)?;
            put(vm, &mut e.out, close)
        });
        self.leave(o);
        result
    }

    fn array(&mut self, vm: &mut Vm, o: &Value, items: &[Value], level: usize) -> PyResult<()> {
        if items.is_empty() {
            // An empty one takes its level of the recursion limit too, as in CPython.
            return self.nested(vm, |e, vm| put(vm, &mut e.out, "[]"));
        }
        self.container(vm, o, ("[", "]"), level, |e, vm, separator| {
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    put(vm, &mut e.out, separator)?;
                }
                e.value(vm, item, level + 1)?;
            }
            Ok(())
        })
    }

    /// A dict key as JSON's object keys must be: a string's text; None to skip it.
    fn key(&self, vm: &mut Vm, key: &Value) -> PyResult<Option<String>> {
        let base = crate::vm::ops::builtin_value(key);
        Ok(Some(match base.as_ref().unwrap_or(key) {
            Value::Str(s) => s.as_str().to_string(),
            Value::Float(x) => self.float(vm, *x)?,
            Value::Bool(b) => if *b { "true" } else { "false" }.into(),
            Value::None => "null".into(),
            Value::Int(n) => n.to_string(),
            big @ Value::BigInt(_) => vm.repr(big)?,
            _ if self.skipkeys => return Ok(None),
            _ => {
                return Err(vm.type_error(format!(
                    "keys must be str, int, float, bool or None, not {}",
                    vm.type_name(key)
                )));
            }
        }))
    }

    fn object(
        &mut self,
        vm: &mut Vm,
        o: &Value,
        items: Vec<(Value, Value)>,
        level: usize,
    ) -> PyResult<()> {
        if items.is_empty() {
            // An empty one takes its level of the recursion limit too, as in CPython.
            return self.nested(vm, |e, vm| put(vm, &mut e.out, "{}"));
        }
        self.container(vm, o, ("{", "}"), level, |e, vm, separator| {
            let items = match e.sort_keys {
                true => sorted_items(vm, items)?,
                false => items,
            };
            let mut first = true;
            for (key, value) in &items {
                let Some(key) = e.key(vm, key)? else {
                    continue;
                };
                if !first {
                    put(vm, &mut e.out, separator)?;
                }
                first = false;
                push_string(&mut e.out, &key, e.ascii).or_raise(vm)?;
                put(vm, &mut e.out, &e.key_separator)?;
                e.value(vm, value, level + 1)?;
            }
            Ok(())
        })
    }
}

/// The items of a list, tuple or dict `o` (whose built-in value is `v`: `o` itself, or
/// the value a `subclass` instance extends), or Other for anything else.
fn container_kind(vm: &mut Vm, o: &Value, v: &Value, subclass: bool) -> PyResult<Kind> {
    Ok(match v {
        Value::List(list) => Kind::Array(list.items.borrow().clone()),
        Value::Tuple(tuple) => Kind::Array(tuple.items.to_vec()),
        // A dict subclass's items are what its items() gives (an OrderedDict's order).
        Value::Dict(_) if subclass => {
            let items = vm.call_method(o, "items", &[])?;
            let items = vm.collect_iterable(&items)?;
            let mut pairs = Vec::with_capacity(items.len());
            for item in items {
                let pair = vm.collect_iterable(&item)?;
                let [key, value]: [Value; 2] = pair
                    .try_into()
                    .map_err(|_| vm.value_error("items() must give (key, value) pairs"))?;
                pairs.push((key, value));
            }
            Kind::Object(pairs)
        }
        Value::Dict(dict) => Kind::Object(dict.table.borrow().snapshot()),
        _ => Kind::Other,
    })
}

/// `sorted(items)` of (key, value) pairs, by Python's ordering (a TypeError for keys that
/// do not compare).
fn sorted_items(vm: &mut Vm, items: Vec<(Value, Value)>) -> PyResult<Vec<(Value, Value)>> {
    let pairs = items
        .into_iter()
        .map(|(k, v)| Value::tuple(vec![k, v]))
        .collect();
    let sorted = {
        let name = vm.intern("sorted");
        let builtins = Value::Dict(vm.builtins.clone());
        let sorted = vm.get_item(&builtins, &Value::Str(name))?;
        vm.call(&sorted, &[Value::list(pairs)], &[])?
    };
    let mut out = Vec::new();
    for pair in vm.collect_iterable(&sorted)? {
        if let Value::Tuple(t) = pair
            && let [k, v] = &*t.items
        {
            out.push((k.clone(), v.clone()));
        }
    }
    Ok(out)
}

// ---- Decoding ------------------------------------------------------------------------------

/// The decoder's options, read once per document.
struct Options {
    strict: bool,
    object_hook: Option<Value>,
    object_pairs_hook: Option<Value>,
    /// None: the built-in `float` (or `int`), converted here.
    parse_float: Option<Value>,
    parse_int: Option<Value>,
    parse_constant: Value,
}

/// A document being scanned: its text, and the value behind it (for the errors).
struct Scanner<'a> {
    text: &'a str,
    bytes: &'a [u8],
    doc: &'a Value,
    ascii: bool,
    options: Options,
}

/// Why scanning stopped: no value where one was expected (at this byte offset), or an
/// exception to raise.
enum Stop {
    NoValue(usize),
    Raise(Exc),
}

impl From<Exc> for Stop {
    fn from(exc: Exc) -> Stop {
        Stop::Raise(exc)
    }
}

type Scan<T> = Result<T, Stop>;

/// No value at byte offset `at`. CPython's scanner says so with a StopIteration it makes
/// there, a call one level deeper: at the deepest level allowed, a RecursionError.
fn no_value(vm: &mut Vm, at: usize) -> Stop {
    match vm.nested(" while calling a Python object", |_| Ok(())) {
        Ok(()) => Stop::NoValue(at),
        Err(e) => Stop::Raise(e),
    }
}

/// Where an object or array goes on after one of its items.
enum After {
    /// It ended: the offset after its closing bracket.
    Closed(usize),
    /// A comma: the next item's offset.
    Next(usize),
}

/// `scan_once(decoder, s, idx)`: the value that starts at code point `idx` of `s`, and the
/// index after it.
fn scan_once(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    check_arity(vm, "scan_once", args, 3, 3)?;
    let (decoder, doc) = (&args[0], &args[1]);
    let Value::Str(s) = doc else {
        return Err(vm.type_error(format!(
            "first argument must be a string, not {}",
            vm.type_name(doc)
        )));
    };
    let idx = vm.expect_ssize(&args[2])?;
    if idx < 0 {
        return Err(vm.value_error("idx cannot be negative"));
    }
    let options = read_options(vm, decoder)?;
    let scanner = Scanner {
        text: s.as_str(),
        bytes: s.as_str().as_bytes(),
        doc,
        ascii: s.is_ascii(),
        options,
    };
    let start = scanner.byte_offset(idx as usize);
    let outcome = match start {
        Some(at) => scanner.value(vm, at),
        None => Err(Stop::NoValue(s.as_str().len())),
    };
    match outcome {
        Ok((value, end)) => Ok(Value::tuple(vec![
            value,
            Value::Int(scanner.char_index(end) as i64),
        ])),
        Err(Stop::NoValue(at)) => {
            let at = match start {
                Some(_) => scanner.char_index(at) as i64,
                None => idx,
            };
            let class = vm.types.stop_iteration.clone();
            Err(vm.new_exc_args(&class, vec![Value::Int(at)]))
        }
        Err(Stop::Raise(exc)) => Err(exc),
    }
}

fn read_options(vm: &mut Vm, decoder: &Value) -> PyResult<Options> {
    let attr = |vm: &mut Vm, name: &str| -> PyResult<Value> {
        let name = vm.intern(name);
        vm.get_attr(decoder, &name)
    };
    let strict = attr(vm, "strict")?;
    let strict = vm.truthy(&strict)?;
    let hook = |v: Value| (!v.is_none()).then_some(v);
    let object_hook = hook(attr(vm, "object_hook")?);
    let object_pairs_hook = hook(attr(vm, "object_pairs_hook")?);
    let parse_float = attr(vm, "parse_float")?;
    let parse_int = attr(vm, "parse_int")?;
    let parse_constant = attr(vm, "parse_constant")?;
    let is_type = |v: &Value, t: &Rc<crate::vm::object::PyType>| matches!(v, Value::Type(c) if Rc::ptr_eq(c, t));
    Ok(Options {
        strict,
        object_hook,
        object_pairs_hook,
        parse_float: (!is_type(&parse_float, &vm.types.float)).then_some(parse_float),
        parse_int: (!is_type(&parse_int, &vm.types.int)).then_some(parse_int),
        parse_constant,
    })
}

fn is_whitespace(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

impl Scanner<'_> {
    /// The byte offset of code point `idx`; None past the end.
    fn byte_offset(&self, idx: usize) -> Option<usize> {
        if self.ascii {
            return (idx < self.bytes.len()).then_some(idx);
        }
        self.text.char_indices().nth(idx).map(|(at, _)| at)
    }

    /// The code point index of byte offset `at`.
    fn char_index(&self, at: usize) -> usize {
        match self.ascii {
            true => at,
            false => self.text[..at].chars().count(),
        }
    }

    /// `json.JSONDecodeError(message, doc, pos)` at byte offset `at`.
    fn error(&self, vm: &mut Vm, message: &str, at: usize) -> Stop {
        let pos = Value::Int(self.char_index(at) as i64);
        let class = vm.import_module("json").and_then(|json| {
            let name = vm.intern("JSONDecodeError");
            vm.get_attr(&json, &name)
        });
        // A call from native code, one level deeper (CPython's `_PyObject_MakeTpCall`): an
        // error at the deepest level allowed is a RecursionError instead.
        let args = [Value::str(message), self.doc.clone(), pos];
        let exc = class.and_then(|class| {
            vm.nested(" while calling a Python object", |vm| {
                vm.call(&class, &args, &[])
            })
        });
        Stop::Raise(match exc {
            Ok(Value::Object(exc)) => exc,
            Ok(_) => vm.type_error("JSONDecodeError() did not make an exception"),
            Err(e) => e,
        })
    }

    fn skip_whitespace(&self, mut at: usize) -> usize {
        while at < self.bytes.len() && is_whitespace(self.bytes[at]) {
            at += 1;
        }
        at
    }

    fn starts_with(&self, at: usize, word: &str) -> bool {
        self.bytes[at..].starts_with(word.as_bytes())
    }

    /// The value at byte offset `at` and the offset after it.
    fn value(&self, vm: &mut Vm, at: usize) -> Scan<(Value, usize)> {
        let Some(&b) = self.bytes.get(at) else {
            return Err(no_value(vm, at));
        };
        match b {
            b'"' => {
                let (text, end) = self.string(vm, at + 1)?;
                Ok((Value::str(text), end))
            }
            b'{' => self.nested(vm, "object", |s, vm| s.object(vm, at + 1)),
            b'[' => self.nested(vm, "array", |s, vm| s.array(vm, at + 1)),
            b'n' if self.starts_with(at, "null") => Ok((Value::None, at + 4)),
            b't' if self.starts_with(at, "true") => Ok((Value::Bool(true), at + 4)),
            b'f' if self.starts_with(at, "false") => Ok((Value::Bool(false), at + 5)),
            b'N' if self.starts_with(at, "NaN") => self.constant(vm, "NaN", at),
            b'I' if self.starts_with(at, "Infinity") => self.constant(vm, "Infinity", at),
            b'-' if self.starts_with(at, "-Infinity") => self.constant(vm, "-Infinity", at),
            _ => self.number(vm, at),
        }
    }

    /// An object or array, one level deeper in native recursion (as CPython's C scanner
    /// counts it: `json.loads("[" * 5000 + "]" * 5000)` parses under the default recursion
    /// limit), with the RecursionError the scanner words.
    fn nested(
        &self,
        vm: &mut Vm,
        kind: &str,
        scan: impl FnOnce(&Self, &mut Vm) -> Scan<(Value, usize)>,
    ) -> Scan<(Value, usize)> {
        let doing = match kind {
            "array" => " while decoding a JSON array from a unicode string",
            _ => " while decoding a JSON object from a unicode string",
        };
        vm.nested(doing, |vm| Ok(scan(self, vm)))?
    }

    fn constant(&self, vm: &mut Vm, name: &str, at: usize) -> Scan<(Value, usize)> {
        let value = vm.call(&self.options.parse_constant, &[Value::str(name)], &[])?;
        Ok((value, at + name.len()))
    }

    /// `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?` at `at`.
    fn number(&self, vm: &mut Vm, start: usize) -> Scan<(Value, usize)> {
        let bytes = self.bytes;
        let digit = |i: usize| bytes.get(i).is_some_and(u8::is_ascii_digit);
        let mut at = start;
        if bytes.get(at) == Some(&b'-') {
            at += 1;
        }
        match bytes.get(at) {
            Some(b'0') => at += 1,
            Some(b'1'..=b'9') => {
                while digit(at) {
                    at += 1;
                }
            }
            _ => return Err(no_value(vm, start)),
        }
        let integer_end = at;
        if bytes.get(at) == Some(&b'.') && digit(at + 1) {
            at += 2;
            while digit(at) {
                at += 1;
            }
        }
        if matches!(bytes.get(at), Some(b'e' | b'E')) {
            let mut exponent = at + 1;
            if matches!(bytes.get(exponent), Some(b'-' | b'+')) {
                exponent += 1;
            }
            if digit(exponent) {
                while digit(exponent) {
                    exponent += 1;
                }
                at = exponent;
            }
        }
        let text = &self.text[start..at];
        let value = if at == integer_end {
            match &self.options.parse_int {
                Some(hook) => vm.call(hook, &[Value::str(text)], &[])?,
                None => match text.parse::<i64>() {
                    Ok(n) => Value::Int(n),
                    Err(_) => {
                        let int = Value::Type(vm.types.int.clone());
                        vm.call(&int, &[Value::str(text)], &[])?
                    }
                },
            }
        } else {
            match &self.options.parse_float {
                Some(hook) => vm.call(hook, &[Value::str(text)], &[])?,
                None => Value::Float(text.parse::<f64>().unwrap_or(f64::NAN)),
            }
        };
        Ok((value, at))
    }

    /// The string whose opening quote is just before byte offset `at`, and the offset after
    /// its closing quote.
    fn string(&self, vm: &mut Vm, mut at: usize) -> Scan<(String, usize)> {
        let begin = at - 1;
        let bytes = self.bytes;
        let mut out = String::new();
        loop {
            let start = at;
            while at < bytes.len() && bytes[at] != b'"' && bytes[at] != b'\\' && bytes[at] >= b' ' {
                at += 1;
            }
            out.push_str(&self.text[start..at]);
            let Some(&b) = bytes.get(at) else {
                return Err(self.error(vm, "Unterminated string starting at", begin));
            };
            match b {
                b'"' => return Ok((out, at + 1)),
                b'\\' => {}
                control => {
                    if self.options.strict {
                        return Err(self.error(vm, "Invalid control character at", at));
                    }
                    out.push(control as char);
                    at += 1;
                    continue;
                }
            }
            let Some(&escape) = bytes.get(at + 1) else {
                return Err(self.error(vm, "Unterminated string starting at", begin));
            };
            let plain = match escape {
                b'"' => Some('"'),
                b'\\' => Some('\\'),
                b'/' => Some('/'),
                b'b' => Some('\u{8}'),
                b'f' => Some('\u{c}'),
                b'n' => Some('\n'),
                b'r' => Some('\r'),
                b't' => Some('\t'),
                b'u' => None,
                _ => return Err(self.error(vm, "Invalid \\escape", at)),
            };
            if let Some(c) = plain {
                out.push(c);
                at += 2;
                continue;
            }
            let mut unit = self.hex4(vm, at + 1)?;
            at += 6;
            if (0xd800..=0xdbff).contains(&unit) && self.starts_with(at, "\\u") {
                let low = self.hex4(vm, at + 1)?;
                if (0xdc00..=0xdfff).contains(&low) {
                    unit = 0x10000 + (((unit - 0xd800) << 10) | (low - 0xdc00));
                    at += 6;
                }
            }
            // apy's str holds no lone surrogate: it becomes U+FFFD, as chr() makes it.
            out.push(char::from_u32(unit).unwrap_or('\u{fffd}'));
        }
    }

    /// The four hex digits after the `u` at byte offset `at`.
    fn hex4(&self, vm: &mut Vm, at: usize) -> Scan<u32> {
        let digits = self
            .bytes
            .get(at + 1..at + 5)
            .filter(|d| d.iter().all(u8::is_ascii_hexdigit));
        match digits.and_then(|d| u32::from_str_radix(std::str::from_utf8(d).ok()?, 16).ok()) {
            Some(unit) => Ok(unit),
            None => Err(self.error(vm, "Invalid \\uXXXX escape", at)),
        }
    }

    /// After an item of an object or array ending at `end`: its `close` bracket (the
    /// offset after it), or a comma and the next item's offset; CPython's errors for
    /// anything else and for a comma just before `close`.
    fn after_item(&self, vm: &mut Vm, end: usize, close: u8, kind: &str) -> Scan<After> {
        let at = self.skip_whitespace(end);
        match self.bytes.get(at) {
            Some(&b) if b == close => return Ok(After::Closed(at + 1)),
            Some(b',') => {}
            _ => return Err(self.error(vm, "Expecting ',' delimiter", at)),
        }
        let next = self.skip_whitespace(at + 1);
        if self.bytes.get(next) == Some(&close) {
            let message = format!("Illegal trailing comma before end of {kind}");
            return Err(self.error(vm, &message, at));
        }
        Ok(After::Next(next))
    }

    fn object(&self, vm: &mut Vm, at: usize) -> Scan<(Value, usize)> {
        let mut pairs: Vec<(Rc<PyStr>, Value)> = Vec::new();
        let mut at = self.skip_whitespace(at);
        if self.bytes.get(at) == Some(&b'}') {
            return Ok((self.make_object(vm, pairs)?, at + 1));
        }
        loop {
            if self.bytes.get(at) != Some(&b'"') {
                let message = "Expecting property name enclosed in double quotes";
                return Err(self.error(vm, message, at));
            }
            let (key, end) = self.string(vm, at + 1)?;
            at = self.skip_whitespace(end);
            if self.bytes.get(at) != Some(&b':') {
                return Err(self.error(vm, "Expecting ':' delimiter", at));
            }
            at = self.skip_whitespace(at + 1);
            let (value, end) = self.value(vm, at)?;
            pairs.push((Rc::new(PyStr::new(key)), value));
            match self.after_item(vm, end, b'}', "object")? {
                After::Closed(end) => return Ok((self.make_object(vm, pairs)?, end)),
                After::Next(next) => at = next,
            }
        }
    }

    fn make_object(&self, vm: &mut Vm, pairs: Vec<(Rc<PyStr>, Value)>) -> Scan<Value> {
        if let Some(hook) = &self.options.object_pairs_hook {
            let pairs = pairs
                .into_iter()
                .map(|(k, v)| Value::tuple(vec![Value::Str(k), v]))
                .collect();
            return Ok(vm.call(hook, &[Value::list(pairs)], &[])?);
        }
        let mut table = DictTable::with_capacity(pairs.len());
        for (key, value) in pairs {
            table.set_str(key, value);
        }
        let dict = Value::dict(table);
        match &self.options.object_hook {
            Some(hook) => Ok(vm.call(hook, &[dict], &[])?),
            None => Ok(dict),
        }
    }

    fn array(&self, vm: &mut Vm, at: usize) -> Scan<(Value, usize)> {
        let mut values = Vec::new();
        let mut at = self.skip_whitespace(at);
        if self.bytes.get(at) == Some(&b']') {
            return Ok((Value::list(values), at + 1));
        }
        loop {
            let (value, end) = self.value(vm, at)?;
            values.push(value);
            match self.after_item(vm, end, b']', "array")? {
                After::Closed(end) => return Ok((Value::list(values), end)),
                After::Next(next) => at = next,
            }
        }
    }
}
