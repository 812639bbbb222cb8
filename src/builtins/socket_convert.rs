//! The `socket` module's functions that need no socket (`Modules/socketmodule.c`, with its
//! messages): the address conversions `inet_aton`, `inet_ntoa`, `inet_pton` and
//! `inet_ntop`, the byte-order swaps `htons`, `ntohs`, `htonl` and `ntohl`, and the host
//! names `gethostname` and `gethostbyname`. The system's calls are in `common/net.rs`.

use std::net::Ipv4Addr;

use crate::common::net::{self, SockAddr};
use crate::vm::args::check_arity;
use crate::vm::object::KwArgs;
use crate::vm::value::Value;
use crate::vm::{Exc, PyResult, Vm};

use super::bytes_type::bytes_of;
use super::socket::{gai_error, os_error};

type Function = fn(&mut Vm, &[Value], &KwArgs) -> PyResult<Value>;

/// The functions, for the module's namespace.
pub const FUNCTIONS: &[(&str, Function)] = &[
    ("inet_aton", inet_aton),
    ("inet_ntoa", inet_ntoa),
    ("inet_pton", inet_pton),
    ("inet_ntop", inet_ntop),
    ("htons", |vm, args, _| swap16(vm, args, "htons")),
    ("ntohs", |vm, args, _| swap16(vm, args, "ntohs")),
    ("htonl", |vm, args, _| swap32(vm, args, "htonl")),
    ("ntohl", |vm, args, _| swap32(vm, args, "ntohl")),
    ("gethostname", gethostname),
    ("gethostbyname", gethostbyname),
];

/// A str argument (`PyArg_Parse`'s "s": no NUL inside).
fn text_arg<'a>(vm: &Vm, v: &'a Value, what: &str) -> PyResult<&'a str> {
    let Value::Str(s) = v else {
        return Err(vm.type_error(format!("{what} must be str, not {}", vm.type_name(v))));
    };
    if s.as_str().contains('\0') {
        return Err(vm.value_error("embedded null character"));
    }
    Ok(s.as_str())
}

/// A bytes-like argument.
fn packed_arg(vm: &Vm, v: &Value) -> PyResult<Vec<u8>> {
    bytes_of(v).ok_or_else(|| {
        vm.type_error(format!(
            "a bytes-like object is required, not '{}'",
            vm.type_name(v)
        ))
    })
}

/// An OSError with only a message, as `PyErr_SetString(PyExc_OSError, …)` makes it.
fn plain_os_error(vm: &Vm, message: &str) -> Exc {
    vm.new_exc(&vm.types.os_error, message)
}

fn inet_aton(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    check_arity(vm, "inet_aton", args, 1, 1)?;
    let text = text_arg(vm, &args[0], "inet_aton() argument")?;
    match net::inet_aton(text) {
        Some(packed) => Ok(vm.new_bytes(packed.to_vec())),
        None => Err(plain_os_error(
            vm,
            "illegal IP address string passed to inet_aton",
        )),
    }
}

fn inet_ntoa(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    check_arity(vm, "inet_ntoa", args, 1, 1)?;
    let packed = packed_arg(vm, &args[0])?;
    let Ok(octets) = <[u8; 4]>::try_from(packed.as_slice()) else {
        return Err(plain_os_error(vm, "packed IP wrong length for inet_ntoa"));
    };
    Ok(Value::str(Ipv4Addr::from(octets).to_string()))
}

/// The packed length of an address of `family` (AF_INET or AF_INET6).
fn packed_len(family: i32) -> Option<usize> {
    match family {
        libc::AF_INET => Some(4),
        libc::AF_INET6 => Some(16),
        _ => None,
    }
}

fn inet_pton(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    check_arity(vm, "inet_pton", args, 2, 2)?;
    let family = vm.expect_index(&args[0])? as i32;
    let text = text_arg(vm, &args[1], "inet_pton() argument 2")?;
    if packed_len(family).is_none() {
        let error = std::io::Error::from_raw_os_error(libc::EAFNOSUPPORT);
        return Err(os_error(vm, &error));
    }
    match net::inet_pton(family, text) {
        Some(packed) => Ok(vm.new_bytes(packed)),
        None => Err(plain_os_error(
            vm,
            "illegal IP address string passed to inet_pton",
        )),
    }
}

fn inet_ntop(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    check_arity(vm, "inet_ntop", args, 2, 2)?;
    let family = vm.expect_index(&args[0])? as i32;
    let packed = packed_arg(vm, &args[1])?;
    match packed_len(family) {
        None => Err(vm.value_error(format!("unknown address family {family}"))),
        Some(len) if len != packed.len() => {
            Err(vm.value_error("invalid length of packed IP address string"))
        }
        Some(_) => match net::inet_ntop(family, &packed) {
            Ok(text) => Ok(Value::str(text)),
            Err(e) => Err(os_error(vm, &e)),
        },
    }
}

/// `htons(x)`/`ntohs(x)`: the 16-bit `x` in network byte order (big-endian: its bytes
/// swapped on a little-endian machine).
fn swap16(vm: &mut Vm, args: &[Value], name: &str) -> PyResult<Value> {
    check_arity(vm, name, args, 1, 1)?;
    let x = vm.expect_index(&args[0])?;
    if x < 0 {
        return Err(vm.overflow_error(format!(
            "{name}: can't convert negative Python int to C 16-bit unsigned integer"
        )));
    }
    let Ok(x) = u16::try_from(x) else {
        return Err(vm.overflow_error(format!(
            "{name}: Python int too large to convert to C 16-bit unsigned integer"
        )));
    };
    Ok(Value::Int(x.to_be().into()))
}

/// `htonl(x)`/`ntohl(x)`: the 32-bit `x` with its bytes swapped.
fn swap32(vm: &mut Vm, args: &[Value], name: &str) -> PyResult<Value> {
    check_arity(vm, name, args, 1, 1)?;
    let x = vm.expect_index(&args[0])?;
    if x < 0 {
        return Err(vm.overflow_error("can't convert negative value to unsigned int"));
    }
    let Ok(x) = u32::try_from(x) else {
        return Err(vm.overflow_error("int larger than 32 bits"));
    };
    Ok(Value::Int(x.to_be().into()))
}

fn gethostname(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    check_arity(vm, "gethostname", args, 0, 0)?;
    match net::hostname() {
        Ok(name) => Ok(Value::str(name)),
        Err(e) => Err(os_error(vm, &e)),
    }
}

/// `gethostbyname(name)`: the first IPv4 address `name` resolves to, as text.
fn gethostbyname(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    check_arity(vm, "gethostbyname", args, 1, 1)?;
    let name = match &args[0] {
        Value::Str(s) => s.as_str().to_string(),
        other => match bytes_of(other) {
            Some(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
            None => {
                return Err(vm.type_error(format!(
                    "gethostbyname() argument 1 must be str, bytes or bytearray, not {}",
                    vm.type_name(other)
                )));
            }
        },
    };
    let addrs = net::resolve(&name, 0).map_err(|e| gai_error(vm, e))?;
    let first = addrs.iter().find_map(|addr| match addr {
        SockAddr::Inet(ip, _) => Some(*ip),
        _ => None,
    });
    match first {
        Some(ip) => Ok(Value::str(ip.to_string())),
        None => Err(gai_error(
            vm,
            (
                libc::EAI_NODATA,
                "No address associated with hostname".into(),
            ),
        )),
    }
}
