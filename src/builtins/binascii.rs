//! `binascii`, native as CPython's `Modules/binascii.c`: base64 lines (`b2a_base64`,
//! `a2b_base64` with its lenient and strict modes), hex (`hexlify`/`b2a_hex` with a
//! separator, `unhexlify`/`a2b_hex`), `crc32`, and the `Error` and `Incomplete` classes.
//! What `base64` (written in apy) stands on.

use super::bytes_type::{buffer_arg, hex_separator};
use super::module_args::bind_kwonly;
use super::zlib_stream;
use crate::common::bytes_ops;
use crate::vm::args::{OrRaise, Signature};
use crate::vm::object::{KwArgs, Layout};
use crate::vm::types::make_type;
use crate::vm::value::Value;
use crate::vm::{Exc, PyResult, Vm};

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

pub fn module(vm: &mut Vm) -> Value {
    let error = make_type(
        "Error",
        vec![vm.types.value_error.clone()],
        Layout::Exception,
        false,
    );
    let incomplete = make_type(
        "Incomplete",
        vec![vm.types.exception.clone()],
        Layout::Exception,
        false,
    );
    for class in [&error, &incomplete] {
        vm.set_type_attr(class, "__module__", Value::str("binascii"));
    }
    let functions: [(&'static str, crate::vm::object::NativeFn); 7] = [
        ("b2a_base64", b2a_base64),
        ("a2b_base64", a2b_base64),
        ("hexlify", |vm, args, kw| hexlify(vm, "hexlify", args, kw)),
        ("b2a_hex", |vm, args, kw| hexlify(vm, "b2a_hex", args, kw)),
        ("unhexlify", |vm, args, kw| {
            unhexlify(vm, "unhexlify", args, kw)
        }),
        ("a2b_hex", |vm, args, kw| unhexlify(vm, "a2b_hex", args, kw)),
        ("crc32", crc32),
    ];
    let mut attrs: Vec<(&str, Value)> = functions
        .iter()
        .map(|&(name, f)| (name, vm.native(name, f)))
        .collect();
    attrs.push(("Error", Value::Type(error)));
    attrs.push(("Incomplete", Value::Type(incomplete)));
    vm.new_module("binascii", attrs)
}

/// `binascii.Error(message)`.
fn error(vm: &mut Vm, message: impl Into<Box<str>>) -> Exc {
    let class = vm.import_module("binascii").and_then(|module| {
        let key = vm.intern("Error");
        vm.get_attr(&module, &key)
    });
    match class {
        Ok(Value::Type(class)) => vm.new_exc(&class, message),
        Ok(_) => vm.runtime_error("binascii.Error is not a class"),
        Err(e) => e,
    }
}

/// The data an `a2b_*` function decodes: a bytes-like object, or a str of ASCII only.
fn ascii_arg(vm: &Vm, v: &Value) -> PyResult<Vec<u8>> {
    match v {
        Value::Str(s) if s.is_ascii() => Ok(s.as_str().as_bytes().to_vec()),
        Value::Str(_) => {
            Err(vm.value_error("string argument should contain only ASCII characters"))
        }
        _ => buffer_arg(vm, v).map_err(|_| {
            vm.type_error(format!(
                "argument should be bytes, buffer or ASCII string, not '{}'",
                vm.type_name(v)
            ))
        }),
    }
}

fn truth(vm: &mut Vm, v: Option<Value>, default: bool) -> PyResult<bool> {
    match v {
        Some(v) => vm.truthy(&v),
        None => Ok(default),
    }
}

/// `b2a_base64(data, /, *, newline=True)`.
fn b2a_base64(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    const SIG: Signature =
        Signature::keywords("binascii", "b2a_base64", &["data", "newline"], 1, 1);
    let [data, newline] =
        <[_; 2]>::try_from(bind_kwonly(vm, &SIG, 1, args, kw)?).unwrap_or_else(|_| [None, None]);
    let data = buffer_arg(vm, data.as_ref().unwrap_or(&Value::None))?;
    let mut out = encode_base64(&data);
    if truth(vm, newline, true)? {
        out.push(b'\n');
    }
    Ok(vm.new_bytes(out))
}

fn encode_base64(data: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(data.len().div_ceil(3) * 4 + 1);
    for chunk in data.chunks(3) {
        let bits = chunk
            .iter()
            .enumerate()
            .fold(0u32, |acc, (i, &b)| acc | u32::from(b) << (16 - 8 * i));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[(bits >> (18 - 6 * i) & 0x3f) as usize]);
            } else {
                out.push(b'=');
            }
        }
    }
    out
}

/// `a2b_base64(data, /, *, strict_mode=False)`.
fn a2b_base64(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    const SIG: Signature =
        Signature::keywords("binascii", "a2b_base64", &["data", "strict_mode"], 1, 1);
    let [data, strict] =
        <[_; 2]>::try_from(bind_kwonly(vm, &SIG, 1, args, kw)?).unwrap_or_else(|_| [None, None]);
    let data = ascii_arg(vm, data.as_ref().unwrap_or(&Value::None))?;
    let strict = truth(vm, strict, false)?;
    match decode_base64(&data, strict) {
        Ok(bytes) => Ok(vm.new_bytes(bytes)),
        Err(message) => Err(error(vm, message)),
    }
}

/// Decodes base64 as CPython does: leniently, skipping what is not in the alphabet and
/// stopping at the padding that completes a group; strictly, refusing anything else.
fn decode_base64(data: &[u8], strict: bool) -> Result<Vec<u8>, String> {
    if strict && data.first() == Some(&b'=') {
        return Err("Leading padding not allowed".into());
    }
    let mut out = Vec::with_capacity(data.len() / 4 * 3 + 3);
    let (mut quad, mut pads, mut padding_started) = (0, 0, false);
    let mut left: u32 = 0;
    for (i, &c) in data.iter().enumerate() {
        if c == b'=' {
            padding_started = true;
            if quad >= 2 {
                pads += 1;
                if quad + pads >= 4 {
                    if strict && i + 1 < data.len() {
                        return Err("Excess data after padding".into());
                    }
                    return Ok(out);
                }
            }
            continue;
        }
        let Some(value) = ALPHABET.iter().position(|&a| a == c) else {
            if strict {
                return Err("Only base64 data is allowed".into());
            }
            continue;
        };
        if strict && padding_started {
            return Err("Discontinuous padding not allowed".into());
        }
        pads = 0;
        let value = value as u32;
        match quad {
            0 => left = value,
            1 => {
                out.push((left << 2 | value >> 4) as u8);
                left = value & 0x0f;
            }
            2 => {
                out.push((left << 4 | value >> 2) as u8);
                left = value & 0x03;
            }
            _ => out.push((left << 6 | value) as u8),
        }
        quad = (quad + 1) % 4;
    }
    match quad {
        0 => Ok(out),
        1 => Err(format!(
            "Invalid base64-encoded string: number of data characters ({}) cannot be 1 more \
             than a multiple of 4",
            out.len() / 3 * 4 + 1
        )),
        _ => Err("Incorrect padding".into()),
    }
}

/// `hexlify(data, sep=<none>, bytes_per_sep=1)`: a separator every `bytes_per_sep` bytes,
/// counted from the right (from the left when negative).
fn hexlify(vm: &mut Vm, name: &'static str, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let sig = Signature::keywords("binascii", name, &["data", "sep", "bytes_per_sep"], 1, 0);
    let [data, sep, per] =
        <[_; 3]>::try_from(sig.bind(vm, args, kw)?).unwrap_or_else(|_| [None, None, None]);
    let data = buffer_arg(vm, data.as_ref().unwrap_or(&Value::None))?;
    let (sep, per) = hex_separator(vm, sep.as_ref(), per.as_ref(), true)?;
    let digits = bytes_ops::hex(&data, sep, per).or_raise(vm)?;
    Ok(vm.new_bytes(digits))
}

/// `unhexlify(hexstr, /)`.
fn unhexlify(vm: &mut Vm, name: &'static str, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let sig = Signature::positional("binascii", name, &["hexstr"], 1);
    let [data] = <[_; 1]>::try_from(sig.bind(vm, args, kw)?).unwrap_or_else(|_| [None]);
    let data = ascii_arg(vm, data.as_ref().unwrap_or(&Value::None))?;
    if data.len() % 2 == 1 {
        return Err(error(vm, "Odd-length string"));
    }
    let digit = |c: u8| (c as char).to_digit(16);
    let mut out = Vec::with_capacity(data.len() / 2);
    for pair in data.chunks(2) {
        match (digit(pair[0]), digit(pair[1])) {
            (Some(high), Some(low)) => out.push((high << 4 | low) as u8),
            _ => return Err(error(vm, "Non-hexadecimal digit found")),
        }
    }
    Ok(vm.new_bytes(out))
}

/// `crc32(data, crc=0, /)`: the CRC-32 of zlib and PNG, continuing from `crc`.
fn crc32(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    const SIG: Signature = Signature::positional("binascii", "crc32", &["data", "crc"], 1);
    let [data, start] =
        <[_; 2]>::try_from(SIG.bind(vm, args, kw)?).unwrap_or_else(|_| [None, None]);
    let data = buffer_arg(vm, data.as_ref().unwrap_or(&Value::None))?;
    let start = match start {
        Some(v) => super::zlib_module::low_32_bits(vm, &v)?,
        None => 0,
    };
    Ok(Value::Int(i64::from(zlib_stream::crc32(&data, start))))
}

#[cfg(test)]
mod tests {
    use super::{decode_base64, encode_base64, zlib_stream::crc32};

    #[test]
    fn base64_round_trips_and_crc32_matches_zlib() {
        for data in [&b""[..], b"h", b"he", b"hel", b"hello, world"] {
            assert_eq!(decode_base64(&encode_base64(data), true).unwrap(), data);
        }
        assert_eq!(encode_base64(b"hello"), b"aGVsbG8=");
        assert_eq!(decode_base64(b"ab==cd==", false).unwrap(), b"i");
        assert_eq!(crc32(b"hello", 0), 907_060_870);
    }
}
