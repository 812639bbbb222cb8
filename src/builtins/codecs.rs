//! Text encodings for `str.encode` and `bytes.decode`: UTF-8 (and UTF-8 with a signature),
//! UTF-16 and UTF-32 (either byte order, or a byte order mark), ASCII and Latin-1 under the
//! `strict`, `ignore`, `replace` and `backslashreplace` error handlers, and the
//! `UnicodeDecodeError` / `UnicodeEncodeError` they raise, with CPython's messages
//! (`Objects/exceptions.c`'s `UnicodeDecodeError_str`, `Objects/unicodeobject.c`'s codecs).
//! Works through `Vm` methods.

use std::rc::Rc;

use crate::common::chars::{push_code_point_escape, str_repr};
use crate::vm::object::{KwArgs, Layout, PyType};
use crate::vm::types::make_type;
use crate::vm::value::Value;
use crate::vm::{Exc, PyResult, Vm};

/// The byte order of a UTF-16 or UTF-32 codec: a fixed one, or the one a byte order mark
/// at the start says (little-endian, as CPython on this machine, when there is none; a
/// mark is written when encoding).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Order {
    Mark,
    Little,
    Big,
}

/// The codecs apy has.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Codec {
    Utf8,
    /// UTF-8 after a byte order mark (EF BB BF): written when encoding, skipped when
    /// decoding.
    Utf8Sig,
    Ascii,
    Latin1,
    Utf16(Order),
    Utf32(Order),
}

impl Codec {
    /// The codec an encoding name means, as `codecs.lookup` normalises it.
    fn named(name: &str) -> Option<Codec> {
        let name = name.to_ascii_lowercase().replace(['_', ' '], "-");
        Some(match name.as_str() {
            "utf-8" | "utf8" | "u8" | "utf" | "cp65001" => Codec::Utf8,
            "utf-8-sig" => Codec::Utf8Sig,
            "ascii" | "us-ascii" | "646" => Codec::Ascii,
            "latin-1" | "latin1" | "latin" | "iso-8859-1" | "iso8859-1" | "l1" | "8859" => {
                Codec::Latin1
            }
            "utf-16" | "utf16" | "u16" => Codec::Utf16(Order::Mark),
            "utf-16-le" | "utf-16le" | "unicodelittleunmarked" => Codec::Utf16(Order::Little),
            "utf-16-be" | "utf-16be" | "unicodebigunmarked" => Codec::Utf16(Order::Big),
            "utf-32" | "utf32" | "u32" => Codec::Utf32(Order::Mark),
            "utf-32-le" | "utf-32le" => Codec::Utf32(Order::Little),
            "utf-32-be" | "utf-32be" => Codec::Utf32(Order::Big),
            _ => return None,
        })
    }

    /// The name in error messages (a marked UTF-16/32 names the order it found).
    fn name(self) -> &'static str {
        match self {
            Codec::Utf8 | Codec::Utf8Sig => "utf-8",
            Codec::Ascii => "ascii",
            Codec::Latin1 => "latin-1",
            Codec::Utf16(Order::Big) => "utf-16-be",
            Codec::Utf16(_) => "utf-16-le",
            Codec::Utf32(Order::Big) => "utf-32-be",
            Codec::Utf32(_) => "utf-32-le",
        }
    }

    /// The highest code point it encodes, and the reason a higher one is refused.
    fn limit(self) -> (u32, &'static str) {
        match self {
            Codec::Ascii => (0x7f, "ordinal not in range(128)"),
            Codec::Latin1 => (0xff, "ordinal not in range(256)"),
            _ => (u32::MAX, ""),
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
/// For a program's PEP 263 declaration: the codec apy decodes source in for `encoding`
/// ("utf-8", "latin-1" or "ascii"), if it is one of those.
pub fn source_codec(encoding: &str) -> Option<&'static str> {
    match Codec::named(encoding)? {
        Codec::Utf8 | Codec::Utf8Sig => Some("utf-8"),
        Codec::Latin1 => Some("latin-1"),
        Codec::Ascii => Some("ascii"),
        Codec::Utf16(_) | Codec::Utf32(_) => None,
    }
}

/// Whether `encoding` names one of CPython's codecs that extend ASCII (the Windows and
/// ISO 8859 code pages, KOI8, the Mac and East Asian ones), in which ASCII text reads as
/// itself.
pub fn extends_ascii(encoding: &str) -> bool {
    let name = encoding.to_ascii_lowercase().replace(['_', '.'], "-");
    let numbered = |prefix: &str| {
        name.strip_prefix(prefix)
            .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit() || b == b'-'))
    };
    numbered("cp")
        || numbered("windows-")
        || numbered("iso-8859-")
        || numbered("iso8859-")
        || numbered("latin-")
        || name.starts_with("koi8-")
        || name.starts_with("mac-")
        || name.starts_with("euc-")
        || matches!(
            name.as_str(),
            "shift-jis" | "sjis" | "cp932" | "gb2312" | "gbk" | "gb18030" | "big5" | "tis-620"
        )
}

fn codec(vm: &Vm, encoding: &str, method: &str) -> PyResult<Codec> {
    if let Some(codec) = Codec::named(encoding) {
        return Ok(codec);
    }
    let message = if is_binary_codec(encoding) {
        format!(
            "{} is not a text encoding; use codecs.{method}() to handle arbitrary codecs",
            str_repr(encoding)
        )
    } else if extends_ascii(encoding) {
        format!(
            "unknown encoding: {encoding} (a codec CPython has and apy does not provide yet: \
             apy's are UTF-8, UTF-16, UTF-32, ASCII and Latin-1)"
        )
    } else {
        format!("unknown encoding: {encoding}")
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
    match codec {
        Codec::Utf8 => return Ok(text.as_bytes().to_vec()),
        Codec::Utf8Sig => return Ok([BOM_UTF8, text.as_bytes()].concat()),
        Codec::Utf16(order) => return Ok(encode_units(text, order, 2)),
        Codec::Utf32(order) => return Ok(encode_units(text, order, 4)),
        Codec::Ascii | Codec::Latin1 => {}
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

pub const BOM_UTF8: &[u8] = b"\xef\xbb\xbf";

/// How a text stream (`open()`, `io.TextIOWrapper`) reads and writes an encoding: a chunk
/// at a time, with the codec named `chunk_codec` (a byte order mark is the stream's own
/// business, at its start only).
#[derive(Clone, Copy)]
pub struct StreamCoding {
    pub chunk_codec: &'static str,
    /// One byte makes one character (ascii, latin-1).
    pub single_byte: bool,
    /// `utf-8-sig`: a byte order mark starts the stream.
    pub signature: bool,
}

/// The stream coding of `encoding`: LookupError for a name no codec has, None for the
/// codecs whose state spans chunks (UTF-16, UTF-32), which apy's streams do not keep.
pub fn stream_coding(vm: &Vm, encoding: &str) -> PyResult<Option<StreamCoding>> {
    let coding = |chunk_codec, single_byte, signature| StreamCoding {
        chunk_codec,
        single_byte,
        signature,
    };
    Ok(match codec(vm, encoding, "decode")? {
        Codec::Utf8 => Some(coding("utf-8", false, false)),
        Codec::Utf8Sig => Some(coding("utf-8", false, true)),
        Codec::Ascii => Some(coding("ascii", true, false)),
        Codec::Latin1 => Some(coding("latin-1", true, false)),
        Codec::Utf16(_) | Codec::Utf32(_) => None,
    })
}

impl StreamCoding {
    /// How much of `data` decodes now: all of it but a UTF-8 sequence cut at its end,
    /// which waits for the next chunk's bytes.
    pub fn complete_len(self, data: &[u8]) -> usize {
        if self.single_byte {
            return data.len();
        }
        for back in 1..=data.len().min(3) {
            let byte = data[data.len() - back];
            if byte & 0xc0 == 0x80 {
                continue;
            }
            let needs = match byte {
                0xc2..=0xdf => 2,
                0xe0..=0xef => 3,
                0xf0..=0xf4 => 4,
                _ => 1,
            };
            return if needs > back {
                data.len() - back
            } else {
                data.len()
            };
        }
        data.len()
    }

    /// How many bytes of the stream `text` was read from (exact when no decoding error
    /// was replaced or ignored).
    pub fn raw_len(self, text: &str) -> u64 {
        match self.single_byte {
            true => text.chars().count() as u64,
            false => text.len() as u64,
        }
    }
}

/// UTF-16 (`width` 2: a character past U+FFFF as a surrogate pair) or UTF-32 (`width` 4)
/// in `order`, after a little-endian byte order mark when the order is marked. A str holds
/// no lone surrogates, so this never fails.
fn encode_units(text: &str, order: Order, width: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity((text.len() + 1) * width);
    let mut push = |unit: u32| match (width, order) {
        (2, Order::Big) => out.extend_from_slice(&(unit as u16).to_be_bytes()),
        (2, _) => out.extend_from_slice(&(unit as u16).to_le_bytes()),
        (_, Order::Big) => out.extend_from_slice(&unit.to_be_bytes()),
        _ => out.extend_from_slice(&unit.to_le_bytes()),
    };
    if order == Order::Mark {
        push(0xfeff);
    }
    let mut pair = [0u16; 2];
    for c in text.chars() {
        match width {
            2 => c
                .encode_utf16(&mut pair)
                .iter()
                .for_each(|&u| push(u32::from(u))),
            _ => push(c as u32),
        }
    }
    out
}

/// `data.decode(encoding, errors)`.
pub fn decode(vm: &mut Vm, data: &[u8], encoding: &str, errors: &str) -> PyResult<String> {
    let mut codec = codec(vm, encoding, "decode")?;
    let mut data = data;
    // Where decoding starts: past a UTF-16/32 byte order mark, which error positions count.
    let mut offset = 0;
    match codec {
        Codec::Latin1 => return Ok(data.iter().map(|&b| b as char).collect()),
        Codec::Utf8 | Codec::Utf8Sig => {
            if codec == Codec::Utf8Sig {
                // CPython decodes what follows the mark as a bytes object of its own.
                data = data.strip_prefix(BOM_UTF8).unwrap_or(data);
            }
            if let Ok(text) = std::str::from_utf8(data) {
                return Ok(text.to_string());
            }
        }
        Codec::Ascii if data.is_ascii() => {
            return Ok(data.iter().map(|&b| b as char).collect());
        }
        Codec::Ascii => {}
        Codec::Utf16(Order::Mark) => {
            (codec, offset) = match data {
                [0xff, 0xfe, ..] => (Codec::Utf16(Order::Little), 2),
                [0xfe, 0xff, ..] => (Codec::Utf16(Order::Big), 2),
                _ => (Codec::Utf16(Order::Little), 0),
            }
        }
        Codec::Utf32(Order::Mark) => {
            (codec, offset) = match data {
                [0xff, 0xfe, 0, 0, ..] => (Codec::Utf32(Order::Little), 4),
                [0, 0, 0xfe, 0xff, ..] => (Codec::Utf32(Order::Big), 4),
                _ => (Codec::Utf32(Order::Little), 0),
            }
        }
        Codec::Utf16(_) | Codec::Utf32(_) => {}
    }
    let mut out = String::with_capacity(data.len());
    while offset < data.len() {
        let rest = &data[offset..];
        let Some((valid, bad_len, reason)) = decode_prefix(codec, rest, &mut out) else {
            break;
        };
        match handler(vm, errors)? {
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
                let start = offset + valid;
                let ty = vm.types.unicode_decode_error.clone();
                let object = vm.new_bytes(data.to_vec());
                let span = (start, start + bad_len);
                return Err(unicode_error(vm, &ty, codec, object, span, reason));
            }
        }
        offset += valid + bad_len;
    }
    Ok(out)
}

/// Decodes the longest valid prefix of `rest` onto `out`. None when that is all of it;
/// else its length in bytes, the length of the bad sequence after it, and why it is bad.
fn decode_prefix(
    codec: Codec,
    rest: &[u8],
    out: &mut String,
) -> Option<(usize, usize, &'static str)> {
    match codec {
        Codec::Latin1 => {
            out.extend(rest.iter().map(|&b| b as char));
            None
        }
        Codec::Ascii => {
            let bad = rest.iter().position(|b| !b.is_ascii());
            let valid = bad.unwrap_or(rest.len());
            out.extend(rest[..valid].iter().map(|&b| b as char));
            bad.map(|at| (at, 1, "ordinal not in range(128)"))
        }
        Codec::Utf8 | Codec::Utf8Sig => match std::str::from_utf8(rest) {
            Ok(text) => {
                out.push_str(text);
                None
            }
            Err(e) => {
                let valid = e.valid_up_to();
                out.push_str(std::str::from_utf8(&rest[..valid]).unwrap_or_default());
                let reason = match e.error_len() {
                    None => "unexpected end of data",
                    Some(1) if !is_utf8_lead(rest[valid]) => "invalid start byte",
                    Some(_) => "invalid continuation byte",
                };
                Some((valid, e.error_len().unwrap_or(rest.len() - valid), reason))
            }
        },
        Codec::Utf16(order) => decode_utf16_prefix(rest, order == Order::Big, out),
        Codec::Utf32(order) => decode_utf32_prefix(rest, order == Order::Big, out),
    }
}

/// [`decode_prefix`] for UTF-16: a high surrogate must be followed by a low one.
fn decode_utf16_prefix(
    rest: &[u8],
    big: bool,
    out: &mut String,
) -> Option<(usize, usize, &'static str)> {
    let unit = |at: usize| {
        let pair = [rest[at], rest[at + 1]];
        u32::from(if big {
            u16::from_be_bytes(pair)
        } else {
            u16::from_le_bytes(pair)
        })
    };
    let mut i = 0;
    loop {
        let left = rest.len() - i;
        match left {
            0 => return None,
            1 => return Some((i, 1, "truncated data")),
            _ => {}
        }
        let first = unit(i);
        let code = match first {
            0xd800..=0xdbff if left < 4 => return Some((i, left, "unexpected end of data")),
            0xd800..=0xdbff => match unit(i + 2) {
                low @ 0xdc00..=0xdfff => 0x10000 + ((first - 0xd800) << 10) + (low - 0xdc00),
                _ => return Some((i, 2, "illegal UTF-16 surrogate")),
            },
            0xdc00..=0xdfff => return Some((i, 2, "illegal encoding")),
            code => code,
        };
        out.push(char::from_u32(code).unwrap_or('\u{FFFD}'));
        i += if code > 0xffff { 4 } else { 2 };
    }
}

/// [`decode_prefix`] for UTF-32: a code point in range and not a surrogate.
fn decode_utf32_prefix(
    rest: &[u8],
    big: bool,
    out: &mut String,
) -> Option<(usize, usize, &'static str)> {
    let mut i = 0;
    loop {
        let left = rest.len() - i;
        match left {
            0 => return None,
            1..=3 => return Some((i, left, "truncated data")),
            _ => {}
        }
        let quad = [rest[i], rest[i + 1], rest[i + 2], rest[i + 3]];
        let code = if big {
            u32::from_be_bytes(quad)
        } else {
            u32::from_le_bytes(quad)
        };
        match code {
            0xd800..=0xdfff => {
                let reason = "code point in surrogate code point range(0xd800, 0xe000)";
                return Some((i, 4, reason));
            }
            0x110000.. => return Some((i, 4, "code point not in range(0x110000)")),
            _ => out.push(char::from_u32(code).unwrap_or('\u{FFFD}')),
        }
        i += 4;
    }
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
