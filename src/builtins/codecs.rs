//! Text encodings for `str.encode` and `bytes.decode`: UTF-8, ASCII and Latin-1 under
//! the `strict`, `ignore` and `replace` error handlers, and the `UnicodeDecodeError` /
//! `UnicodeEncodeError` they raise, with CPython's messages (`Objects/exceptions.c`'s
//! `UnicodeDecodeError_str`, `Objects/unicodeobject.c`'s codecs). Works through `Vm` methods.

use std::rc::Rc;

use crate::common::chars::{push_code_point_escape, str_repr};
use crate::vm::object::{KwArgs, Layout, PyType};
use crate::vm::types::make_type;
use crate::vm::value::Value;
use crate::vm::{Exc, PyResult, Vm};

/// The codecs apy has.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Codec {
    Utf8,
    Ascii,
    Latin1,
}

impl Codec {
    /// The codec an encoding name means, as `codecs.lookup` normalises it.
    fn named(name: &str) -> Option<Codec> {
        let name = name.to_ascii_lowercase().replace('_', "-");
        Some(match name.as_str() {
            "utf-8" | "utf8" | "u8" | "utf" => Codec::Utf8,
            "ascii" | "us-ascii" | "646" => Codec::Ascii,
            "latin-1" | "latin1" | "latin" | "iso-8859-1" | "iso8859-1" | "l1" | "8859" => {
                Codec::Latin1
            }
            _ => return None,
        })
    }

    /// The name in error messages.
    fn name(self) -> &'static str {
        match self {
            Codec::Utf8 => "utf-8",
            Codec::Ascii => "ascii",
            Codec::Latin1 => "latin-1",
        }
    }

    /// The highest code point it encodes, and the reason a higher one is refused.
    fn limit(self) -> (u32, &'static str) {
        match self {
            Codec::Utf8 => (u32::MAX, ""),
            Codec::Ascii => (0x7f, "ordinal not in range(128)"),
            Codec::Latin1 => (0xff, "ordinal not in range(256)"),
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Handler {
    Strict,
    Ignore,
    Replace,
    /// `\xNN` for a byte that does not decode, `\xNN`/`\uNNNN`/`\UNNNNNNNN` for a
    /// character that does not encode.
    BackslashReplace,
    /// `&#233;`: only for encoding.
    XmlCharRefReplace,
}

/// The text codec `encoding` names, for `encode` or `decode` (the `method` a bytes-to-bytes
/// codec's message points to).
fn codec(vm: &Vm, encoding: &str, method: &str) -> PyResult<Codec> {
    if let Some(codec) = Codec::named(encoding) {
        return Ok(codec);
    }
    let message = match is_binary_codec(encoding) {
        true => format!(
            "{} is not a text encoding; use codecs.{method}() to handle arbitrary codecs",
            str_repr(encoding)
        ),
        false => format!("unknown encoding: {encoding}"),
    };
    Err(vm.new_exc(&vm.types.lookup_error, message))
}

/// Whether `encoding` names one of CPython's bytes-to-bytes (or str-to-str) codecs, with
/// its aliases (`Lib/encodings/aliases.py`): apy has none of them, and `str.encode` refuses
/// them with a message of its own.
fn is_binary_codec(encoding: &str) -> bool {
    let name = encoding.to_ascii_lowercase().replace(['-', ' '], "_");
    matches!(
        name.as_str(),
        "base64"
            | "base_64"
            | "base64_codec"
            | "bz2"
            | "bz2_codec"
            | "hex"
            | "hex_codec"
            | "quopri"
            | "quoted_printable"
            | "quotedprintable"
            | "quopri_codec"
            | "rot13"
            | "rot_13"
            | "uu"
            | "uu_codec"
            | "zip"
            | "zlib"
            | "zlib_codec"
    )
}

fn handler(vm: &Vm, errors: &str) -> PyResult<Handler> {
    match errors {
        "strict" => Ok(Handler::Strict),
        "ignore" => Ok(Handler::Ignore),
        "replace" => Ok(Handler::Replace),
        "backslashreplace" => Ok(Handler::BackslashReplace),
        "xmlcharrefreplace" => Ok(Handler::XmlCharRefReplace),
        _ => Err(vm.new_exc(
            &vm.types.lookup_error,
            format!("unknown error handler name '{errors}'"),
        )),
    }
}

/// `UnicodeDecodeError(encoding, object, start, end, reason)` and its encode twin.
fn unicode_error(
    vm: &Vm,
    ty: &Rc<PyType>,
    codec: Codec,
    object: Value,
    span: (usize, usize),
    reason: &str,
) -> Exc {
    vm.new_exc_args(
        ty,
        vec![
            Value::str(codec.name()),
            object,
            Value::Int(span.0 as i64),
            Value::Int(span.1 as i64),
            Value::str(reason),
        ],
    )
}

/// `text.encode(encoding, errors)`.
pub fn encode(vm: &Vm, text: &str, encoding: &str, errors: &str) -> PyResult<Vec<u8>> {
    let codec = codec(vm, encoding, "encode")?;
    if codec == Codec::Utf8 {
        return Ok(text.as_bytes().to_vec());
    }
    let handler = handler(vm, errors)?;
    let (limit, reason) = codec.limit();
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::with_capacity(chars.len());
    let mut i = 0;
    while i < chars.len() {
        if chars[i] as u32 <= limit {
            out.push(chars[i] as u8);
            i += 1;
            continue;
        }
        match handler {
            Handler::Ignore => {}
            Handler::Replace => out.push(b'?'),
            Handler::BackslashReplace => {
                let escape = match chars[i] as u32 {
                    c @ 0..=0xff => format!("\\x{c:02x}"),
                    c @ 0..=0xffff => format!("\\u{c:04x}"),
                    c => format!("\\U{c:08x}"),
                };
                out.extend_from_slice(escape.as_bytes());
            }
            Handler::XmlCharRefReplace => {
                out.extend_from_slice(format!("&#{};", chars[i] as u32).as_bytes());
            }
            Handler::Strict => {
                // The error covers the whole run of characters the codec cannot encode.
                let end = (i..chars.len())
                    .find(|&j| chars[j] as u32 <= limit)
                    .unwrap_or(chars.len());
                let ty = vm.types.unicode_encode_error.clone();
                let object = Value::str(text);
                return Err(unicode_error(vm, &ty, codec, object, (i, end), reason));
            }
        }
        i += 1;
    }
    Ok(out)
}

/// `data.decode(encoding, errors)`.
pub fn decode(vm: &mut Vm, data: &[u8], encoding: &str, errors: &str) -> PyResult<String> {
    let codec = codec(vm, encoding, "decode")?;
    match codec {
        Codec::Latin1 => return Ok(data.iter().map(|&b| b as char).collect()),
        Codec::Utf8 => {
            if let Ok(text) = std::str::from_utf8(data) {
                return Ok(text.to_string());
            }
        }
        Codec::Ascii if data.is_ascii() => {
            return Ok(data.iter().map(|&b| b as char).collect());
        }
        Codec::Ascii => {}
    }
    let handler = handler(vm, errors)?;
    let mut out = String::with_capacity(data.len());
    let mut rest = data;
    let mut offset = 0;
    while !rest.is_empty() {
        // The valid prefix, and the length of the bad sequence after it (None: cut short).
        let (valid, bad) = match codec {
            Codec::Ascii => {
                let valid = rest
                    .iter()
                    .position(|b| !b.is_ascii())
                    .unwrap_or(rest.len());
                (valid, Some(1))
            }
            _ => match std::str::from_utf8(rest) {
                Ok(_) => (rest.len(), Some(0)),
                Err(e) => (e.valid_up_to(), e.error_len()),
            },
        };
        match codec {
            Codec::Utf8 => out.push_str(std::str::from_utf8(&rest[..valid]).unwrap_or_default()),
            _ => out.extend(rest[..valid].iter().map(|&b| b as char)),
        }
        if valid == rest.len() {
            break;
        }
        let bad_len = bad.unwrap_or(rest.len() - valid);
        match handler {
            Handler::Ignore => {}
            Handler::Replace => out.push('\u{FFFD}'),
            Handler::BackslashReplace => {
                for b in &rest[valid..valid + bad_len] {
                    out.push_str(&format!("\\x{b:02x}"));
                }
            }
            Handler::XmlCharRefReplace => {
                let message = "don't know how to handle UnicodeDecodeError in error callback";
                return Err(vm.type_error(message));
            }
            Handler::Strict => {
                let reason = match (codec, bad) {
                    (Codec::Ascii, _) => "ordinal not in range(128)",
                    (_, None) => "unexpected end of data",
                    _ if bad_len == 1 && !is_utf8_lead(rest[valid]) => "invalid start byte",
                    _ => "invalid continuation byte",
                };
                let start = offset + valid;
                let ty = vm.types.unicode_decode_error.clone();
                let object = vm.new_bytes(data.to_vec());
                let span = (start, start + bad_len);
                return Err(unicode_error(vm, &ty, codec, object, span, reason));
            }
        }
        offset += valid + bad_len;
        rest = &rest[valid + bad_len..];
    }
    Ok(out)
}

/// Whether `b` can start a UTF-8 sequence of more than one byte.
fn is_utf8_lead(b: u8) -> bool {
    (0xc2..=0xf4).contains(&b)
}

/// The `str()` of the two errors: "'utf-8' codec can't decode byte 0xff in position 0:
/// invalid start byte", "… can't encode characters in position 1-3: …".
fn unicode_error_str(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let this = args.first().cloned().unwrap_or(Value::None);
    let exc_args = match &this {
        Value::Object(o) => o.exc_data().map(|d| d.borrow().args.clone()),
        _ => None,
    };
    let Some(Value::Tuple(t)) = exc_args else {
        return crate::vm::exceptions::exc_str(vm, args, kw);
    };
    let (encoding, object, start, end, reason) = match &t.items[..] {
        [
            Value::Str(encoding),
            object,
            Value::Int(start),
            Value::Int(end),
            Value::Str(reason),
        ] => (
            Some(encoding.as_str()),
            object,
            *start,
            *end,
            reason.as_str(),
        ),
        [
            object,
            Value::Int(start),
            Value::Int(end),
            Value::Str(reason),
        ] => (None, object, *start, *end, reason.as_str()),
        _ => return crate::vm::exceptions::exc_str(vm, args, kw),
    };
    let text = match (encoding, object) {
        (None, Value::Str(s)) => match s.as_str().chars().nth(start as usize) {
            Some(c) if end == start + 1 => {
                let mut escaped = String::new();
                push_code_point_escape(&mut escaped, c);
                format!("can't translate character '{escaped}' in position {start}: {reason}")
            }
            _ => format!(
                "can't translate characters in position {start}-{}: {reason}",
                end - 1
            ),
        },
        (None, _) => return crate::vm::exceptions::exc_str(vm, args, kw),
        (Some(encoding), object) => match object {
            Value::Str(s) => {
                let at = |i: i64| s.as_str().chars().nth(i as usize);
                match at(start) {
                    Some(c) if end == start + 1 => {
                        let mut escaped = String::new();
                        push_code_point_escape(&mut escaped, c);
                        format!(
                            "'{encoding}' codec can't encode character '{escaped}' in position {start}: {reason}"
                        )
                    }
                    _ => format!(
                        "'{encoding}' codec can't encode characters in position {start}-{}: {reason}",
                        end - 1
                    ),
                }
            }
            _ => {
                let byte = object
                    .native::<crate::vm::bytes::PyBytes>()
                    .and_then(|b| b.data().get(start as usize).copied());
                match byte {
                    Some(b) if end == start + 1 => format!(
                        "'{encoding}' codec can't decode byte 0x{b:02x} in position {start}: {reason}"
                    ),
                    _ => format!(
                        "'{encoding}' codec can't decode bytes in position {start}-{}: {reason}",
                        end - 1
                    ),
                }
            }
        },
    };
    Ok(Value::str(text))
}

/// Gives the two error types their `str()`.
pub fn init(vm: &mut Vm) {
    for ty in [
        vm.types.unicode_decode_error.clone(),
        vm.types.unicode_encode_error.clone(),
    ] {
        vm.add_method(&ty, "__str__", unicode_error_str);
        vm.add_getset(&ty, "encoding", |_, e| Ok(error_field(e, 0, 5)), None);
        vm.add_getset(&ty, "object", |_, e| Ok(error_field(e, 1, 5)), None);
        vm.add_getset(&ty, "start", |_, e| Ok(error_field(e, 2, 5)), None);
        vm.add_getset(&ty, "end", |_, e| Ok(error_field(e, 3, 5)), None);
        vm.add_getset(&ty, "reason", |_, e| Ok(error_field(e, 4, 5)), None);
    }
}

/// `UnicodeTranslateError(object, start, end, reason)`, what `str.translate`'s codec
/// machinery would raise: a class with its fields and CPython's `str()`.
pub fn unicode_translate_error(vm: &mut Vm) -> Rc<PyType> {
    let base = vec![vm.types.unicode_error.clone()];
    let ty = make_type("UnicodeTranslateError", base, Layout::Exception, true);
    vm.add_method(&ty, "__str__", unicode_error_str);
    vm.add_getset(&ty, "object", |_, e| Ok(error_field(e, 0, 4)), None);
    vm.add_getset(&ty, "start", |_, e| Ok(error_field(e, 1, 4)), None);
    vm.add_getset(&ty, "end", |_, e| Ok(error_field(e, 2, 4)), None);
    vm.add_getset(&ty, "reason", |_, e| Ok(error_field(e, 3, 4)), None);
    ty
}

/// A field of a Unicode error: its `args[i]` when it was made with the `len` arguments its
/// type's constructor takes (`encoding, object, start, end, reason` for decoding and
/// encoding, no `encoding` for translating), else None.
fn error_field(exc: &Value, i: usize, len: usize) -> Value {
    let args = match exc {
        Value::Object(o) => o.exc_data().map(|d| d.borrow().args.clone()),
        _ => None,
    };
    match args {
        Some(Value::Tuple(t)) if t.items.len() == len => t.items[i].clone(),
        _ => Value::None,
    }
}
