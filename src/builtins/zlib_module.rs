//! `zlib`, native as CPython's `Modules/zlibmodule.c`: `compress`/`decompress` in one go,
//! the streaming `compressobj()`/`decompressobj()` (the `zlib.Compress` and
//! `zlib.Decompress` objects), `crc32`, `adler32`, the `Z_*` constants and `zlib.error`.
//! `wbits` picks the container as in C zlib: 9..15 zlib, -9..-15 raw deflate, 25..31
//! gzip, and 40..47 (decompression only) whichever the data starts with.
//!
//! The deflate itself is miniz_oxide's, under src/builtins/zlib_stream.rs, so the
//! compressed bytes may differ from CPython's (any valid deflate is); what either makes,
//! the other reads. Not here: `_ZlibDecompressor` (CPython's gzip module uses it; apy's
//! gzip does not).

use std::cell::RefCell;
use std::rc::Rc;

use super::bytes_type::{buffer_arg, bytes_of};
use super::module_args::bind_kwonly;
use super::zlib_stream::{
    DeflateInitError, Deflater, InflateError, Inflater, StreamError, adler32, crc32,
};
use crate::common::int_ops::Int;
use crate::vm::args::Signature;
use crate::vm::object::{Getter, KwArgs, Layout, NativeFn, Object, ObjectKind, PyType};
use crate::vm::types::make_type;
use crate::vm::value::Value;
use crate::vm::{Exc, PyResult, Vm};

/// The output buffer CPython starts with (`DEF_BUF_SIZE`), and `Decompress.flush`'s default.
const DEF_BUF_SIZE: i64 = 16 * 1024;

/// The version CPython 3.13 reports here (it links the system's zlib).
const ZLIB_VERSION: &str = "1.2.13";

/// The module's classes, made with it.
#[derive(Clone)]
struct Classes {
    error: Rc<PyType>,
    compress: Rc<PyType>,
    decompress: Rc<PyType>,
}

thread_local! {
    static CLASSES: RefCell<Option<Classes>> = const { RefCell::new(None) };
}

fn classes(vm: &Vm) -> PyResult<Classes> {
    CLASSES
        .with(|c| c.borrow().clone())
        .ok_or_else(|| vm.runtime_error("the zlib module is not initialised"))
}

/// A `zlib.Compress` object.
struct Compress(RefCell<Deflater>);

/// A `zlib.Decompress` object.
struct Decompress(RefCell<DecompressState>);

#[derive(Clone)]
struct DecompressState {
    inflater: Inflater,
    unused_data: Vec<u8>,
    unconsumed_tail: Vec<u8>,
    eof: bool,
    /// `flush()` at the end of the stream frees zlib's state: nothing works after it.
    ended: bool,
}

/// `(name, method)` for a stream's `copy`, `__copy__` (taking nothing) or `__deepcopy__`
/// (taking `memo`), checked with Argument Clinic's wording for zlib's methods, then
/// copied with `$copy`. (A macro: a native method is a plain function pointer, which
/// cannot capture the names.)
macro_rules! copy_method {
    ("__deepcopy__", $copy:ident) => {
        ("__deepcopy__", |vm, args, kw| {
            // `memo` is positional only: a keyword counts toward "at most", never for it.
            let positional = args.len().saturating_sub(1);
            let given = positional + kw.len();
            if given > 1 {
                let message = format!("__deepcopy__() takes at most 1 argument ({given} given)");
                return Err(vm.type_error(message));
            }
            if positional != 1 {
                let message = format!(
                    "__deepcopy__() takes exactly 1 positional argument ({positional} given)"
                );
                return Err(vm.type_error(message));
            }
            $copy(vm, args)
        })
    };
    ($name:literal, $copy:ident) => {
        ($name, |vm, args, kw| {
            if args.len() > 1 || !kw.is_empty() {
                return Err(vm.type_error(concat!($name, "() takes no arguments")));
            }
            $copy(vm, args)
        })
    };
}

pub fn module(vm: &mut Vm) -> Value {
    let error = make_type(
        "error",
        vec![vm.types.exception.clone()],
        Layout::Exception,
        false,
    );
    let compress = native_class(vm, "Compress");
    let decompress = native_class(vm, "Decompress");
    vm.set_type_attr(&error, "__module__", Value::str("zlib"));
    let compress_methods: [(&'static str, NativeFn); 5] = [
        ("compress", compress_compress),
        ("flush", compress_flush),
        copy_method!("copy", compress_copy),
        copy_method!("__copy__", compress_copy),
        copy_method!("__deepcopy__", compress_copy),
    ];
    vm.add_methods(&compress, &compress_methods);
    let decompress_methods: [(&'static str, NativeFn); 5] = [
        ("decompress", decompress_decompress),
        ("flush", decompress_flush),
        copy_method!("copy", decompress_copy),
        copy_method!("__copy__", decompress_copy),
        copy_method!("__deepcopy__", decompress_copy),
    ];
    vm.add_methods(&decompress, &decompress_methods);
    let members: [(&str, Getter); 3] = [
        ("unused_data", |vm, v| {
            member(vm, v, |vm, d| vm.new_bytes(d.unused_data.clone()))
        }),
        ("unconsumed_tail", |vm, v| {
            member(vm, v, |vm, d| vm.new_bytes(d.unconsumed_tail.clone()))
        }),
        ("eof", |vm, v| member(vm, v, |_, d| Value::Bool(d.eof))),
    ];
    for (name, get) in members {
        vm.add_getset(&decompress, name, get, Some(readonly));
    }
    CLASSES.with(|c| {
        *c.borrow_mut() = Some(Classes {
            error: error.clone(),
            compress,
            decompress,
        });
    });
    let functions: [(&'static str, NativeFn); 6] = [
        ("compress", compress_fn),
        ("decompress", decompress_fn),
        ("compressobj", compressobj),
        ("decompressobj", decompressobj),
        ("crc32", |vm, args, kw| {
            checksum(vm, "crc32", 0, crc32, args, kw)
        }),
        ("adler32", |vm, args, kw| {
            checksum(vm, "adler32", 1, adler32, args, kw)
        }),
    ];
    let mut attrs: Vec<(&str, Value)> = functions
        .iter()
        .map(|&(name, f)| (name, vm.native(name, f)))
        .collect();
    attrs.push(("error", Value::Type(error)));
    attrs.extend(
        [
            ("DEFLATED", 8),
            ("DEF_BUF_SIZE", DEF_BUF_SIZE),
            ("DEF_MEM_LEVEL", 8),
            ("MAX_WBITS", 15),
            ("Z_NO_COMPRESSION", 0),
            ("Z_BEST_SPEED", 1),
            ("Z_BEST_COMPRESSION", 9),
            ("Z_DEFAULT_COMPRESSION", -1),
            ("Z_DEFAULT_STRATEGY", 0),
            ("Z_FILTERED", 1),
            ("Z_HUFFMAN_ONLY", 2),
            ("Z_RLE", 3),
            ("Z_FIXED", 4),
            ("Z_NO_FLUSH", 0),
            ("Z_PARTIAL_FLUSH", 1),
            ("Z_SYNC_FLUSH", 2),
            ("Z_FULL_FLUSH", 3),
            ("Z_FINISH", 4),
            ("Z_BLOCK", 5),
            ("Z_TREES", 6),
        ]
        .map(|(name, n)| (name, Value::Int(n))),
    );
    attrs.extend([
        ("ZLIB_VERSION", Value::str(ZLIB_VERSION)),
        ("ZLIB_RUNTIME_VERSION", Value::str(ZLIB_VERSION)),
        ("__version__", Value::str("1.0")),
    ]);
    vm.new_module("zlib", attrs)
}

/// `zlib.Compress` or `zlib.Decompress`: made only by `compressobj()`/`decompressobj()`.
fn native_class(vm: &mut Vm, name: &str) -> Rc<PyType> {
    let class = make_type(name, vec![vm.types.object.clone()], Layout::Builtin, false);
    vm.set_type_attr(&class, "__module__", Value::str("zlib"));
    vm.add_static(&class, "__new__", |vm, args, _| {
        let name = match args.first() {
            Some(Value::Type(t)) => t.name(),
            _ => "Compress".into(),
        };
        Err(vm.type_error(format!("cannot create 'zlib.{name}' instances")))
    });
    class
}

/// The attributes of a `Decompress`, members that CPython marks `READONLY`.
fn readonly(vm: &mut Vm, _: &Value, _: Value) -> PyResult<()> {
    Err(vm.attribute_error("readonly attribute"))
}

/// Argument Clinic counts the positional-only arguments before it looks at keywords:
/// "compress() takes at least 1 positional argument (0 given)".
fn data_first(vm: &Vm, name: &str, args: &[Value]) -> PyResult<()> {
    if args.is_empty() {
        return Err(vm.type_error(format!(
            "{name}() takes at least 1 positional argument (0 given)"
        )));
    }
    Ok(())
}

fn new_object<T: 'static>(class: Rc<PyType>, state: T) -> Value {
    Value::object(Object::new(class, ObjectKind::Other(Box::new(state))))
}

/// `zlib.error(message)`.
fn error(vm: &Vm, message: impl Into<Box<str>>) -> Exc {
    match classes(vm) {
        Ok(classes) => vm.new_exc(&classes.error, message),
        Err(e) => e,
    }
}

/// `zlib_error`: "Error -3 while decompressing data: incorrect header check".
fn inflate_error(vm: &Vm, e: &InflateError, during: &str) -> Exc {
    match e {
        InflateError::Data(message) => error(vm, format!("Error -3 {during}: {message}")),
        InflateError::NeedDict => error(vm, format!("Error 2 {during}")),
        InflateError::WrongDict => error(vm, "Error -3 while setting zdict: invalid input data"),
    }
}

fn stream_error(vm: &Vm, during: &str) -> Exc {
    error(vm, format!("Error -2 {during}: inconsistent stream state"))
}

fn compressor<'a>(vm: &Vm, v: &'a Value) -> PyResult<&'a Compress> {
    v.native::<Compress>()
        .ok_or_else(|| vm.type_error("descriptor requires a 'zlib.Compress' object"))
}

fn decompressor<'a>(vm: &Vm, v: &'a Value) -> PyResult<&'a Decompress> {
    v.native::<Decompress>()
        .ok_or_else(|| vm.type_error("descriptor requires a 'zlib.Decompress' object"))
}

/// A getter of one of a `Decompress`'s members.
fn member(vm: &mut Vm, v: &Value, read: fn(&mut Vm, &DecompressState) -> Value) -> PyResult<Value> {
    let state = decompressor(vm, v)?.0.borrow();
    Ok(read(vm, &state))
}

/// An optional C `int` argument.
fn int_or(vm: &mut Vm, v: Option<&Value>, default: i32) -> PyResult<i32> {
    v.map_or(Ok(default), |v| vm.expect_c_int(v))
}

/// An optional `Py_ssize_t` argument.
fn ssize_or(vm: &mut Vm, v: Option<&Value>, default: i64) -> PyResult<i64> {
    v.map_or(Ok(default), |v| vm.expect_ssize(v))
}

/// `compress(data, /, level=-1, wbits=15)`.
fn compress_fn(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    const SIG: Signature =
        Signature::keywords("zlib", "compress", &["data", "level", "wbits"], 1, 1);
    data_first(vm, "compress", args)?;
    let a = SIG.bind(vm, args, kw)?;
    let data = buffer_arg(vm, a[0].as_ref().unwrap_or(&Value::None))?;
    let level = int_or(vm, a[1].as_ref(), -1)?;
    let wbits = int_or(vm, a[2].as_ref(), 15)?;
    let mut deflater = Deflater::new(level, 8, wbits, 8, 0, None)
        .map_err(|_| error(vm, "Bad compression level"))?;
    let mut out = deflater
        .compress(&data)
        .map_err(|StreamError| stream_error(vm, "while compressing data"))?;
    out.extend(
        deflater
            .flush(4)
            .map_err(|StreamError| stream_error(vm, "while compressing data"))?,
    );
    Ok(vm.new_bytes(out))
}

/// `decompress(data, /, wbits=15, bufsize=16384)`.
fn decompress_fn(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    const SIG: Signature =
        Signature::keywords("zlib", "decompress", &["data", "wbits", "bufsize"], 1, 1);
    data_first(vm, "decompress", args)?;
    let a = SIG.bind(vm, args, kw)?;
    let data = buffer_arg(vm, a[0].as_ref().unwrap_or(&Value::None))?;
    let wbits = int_or(vm, a[1].as_ref(), 15)?;
    if ssize_or(vm, a[2].as_ref(), DEF_BUF_SIZE)? < 0 {
        return Err(vm.value_error("bufsize must be non-negative"));
    }
    let Some(mut inflater) = Inflater::new(wbits, None) else {
        return Err(stream_error(vm, "while preparing to decompress data"));
    };
    let mut out = Vec::new();
    let during = "while decompressing data";
    inflater
        .inflate(&data, &mut out, usize::MAX)
        .map_err(|e| inflate_error(vm, &e, during))?;
    if !inflater.is_done() {
        return Err(error(
            vm,
            format!("Error -5 {during}: incomplete or truncated stream"),
        ));
    }
    Ok(vm.new_bytes(out))
}

/// `compressobj(level=-1, method=8, wbits=15, memLevel=8, strategy=0, zdict=None)`.
fn compressobj(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    const SIG: Signature = Signature::keywords(
        "zlib",
        "compressobj",
        &["level", "method", "wbits", "memLevel", "strategy", "zdict"],
        0,
        0,
    );
    let a = SIG.bind(vm, args, kw)?;
    let level = int_or(vm, a[0].as_ref(), -1)?;
    let method = int_or(vm, a[1].as_ref(), 8)?;
    let wbits = int_or(vm, a[2].as_ref(), 15)?;
    let mem_level = int_or(vm, a[3].as_ref(), 8)?;
    let strategy = int_or(vm, a[4].as_ref(), 0)?;
    // Omitted is no dictionary; an explicit None is not a buffer.
    let zdict = a[5].as_ref().map(|v| buffer_arg(vm, v)).transpose()?;
    let deflater = Deflater::new(level, method, wbits, mem_level, strategy, zdict.as_deref())
        .map_err(|e| match e {
            DeflateInitError::BadOption => vm.value_error("Invalid initialization option"),
            DeflateInitError::BadDictionary => vm.value_error("Invalid dictionary"),
        })?;
    let class = classes(vm)?.compress;
    Ok(new_object(class, Compress(RefCell::new(deflater))))
}

/// `decompressobj(wbits=15, zdict=b'')`.
fn decompressobj(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    const SIG: Signature = Signature::keywords("zlib", "decompressobj", &["wbits", "zdict"], 0, 0);
    let a = SIG.bind(vm, args, kw)?;
    let wbits = int_or(vm, a[0].as_ref(), 15)?;
    let zdict = match &a[1] {
        Some(v) => Some(
            bytes_of(v)
                .ok_or_else(|| vm.type_error("zdict argument must support the buffer protocol"))?,
        ),
        None => None,
    };
    let inflater = Inflater::new(wbits, zdict.as_deref())
        .ok_or_else(|| vm.value_error("Invalid initialization option"))?;
    let state = DecompressState {
        inflater,
        unused_data: Vec::new(),
        unconsumed_tail: Vec::new(),
        eof: false,
        ended: false,
    };
    let class = classes(vm)?.decompress;
    Ok(new_object(class, Decompress(RefCell::new(state))))
}

/// `crc32(data, value=0, /)` and `adler32(data, value=1, /)`: only the low 32 bits of
/// `value` count, as a C unsigned int takes them.
fn checksum(
    vm: &mut Vm,
    name: &'static str,
    start: u32,
    f: fn(&[u8], u32) -> u32,
    args: &[Value],
    kw: &KwArgs,
) -> PyResult<Value> {
    let sig = Signature::positional("zlib", name, &["data", "value"], 1);
    let a = sig.bind(vm, args, kw)?;
    let data = buffer_arg(vm, a[0].as_ref().unwrap_or(&Value::None))?;
    let value = match &a[1] {
        Some(v) => low_32_bits(vm, v)?,
        None => start,
    };
    Ok(Value::Int(i64::from(f(&data, value))))
}

/// `PyLong_AsUnsignedLongMask` to 32 bits, after `__index__`.
pub fn low_32_bits(vm: &mut Vm, v: &Value) -> PyResult<u32> {
    Ok(match super::module_args::index_int(vm, v)? {
        Int::Small(n) => n as u32,
        Int::Big(n) => {
            let low = n & num_bigint::BigInt::from(u32::MAX);
            u32::try_from(low).unwrap_or(0)
        }
    })
}

/// `Compress.compress(data, /)`.
fn compress_compress(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    const SIG: Signature = Signature::keywords("Compress", "compress", &["data"], 1, 1);
    let this = args.first().unwrap_or(&Value::None);
    let a = bind_kwonly(vm, &SIG, 1, args.get(1..).unwrap_or_default(), kw)?;
    let data = buffer_arg(vm, a[0].as_ref().unwrap_or(&Value::None))?;
    let out = compressor(vm, this)?
        .0
        .borrow_mut()
        .compress(&data)
        .map_err(|StreamError| stream_error(vm, "while compressing data"))?;
    Ok(vm.new_bytes(out))
}

/// `Compress.flush(mode=Z_FINISH, /)`.
fn compress_flush(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    const SIG: Signature = Signature::keywords("Compress", "flush", &["mode"], 0, 1);
    let this = args.first().unwrap_or(&Value::None);
    let a = SIG.bind(vm, args.get(1..).unwrap_or_default(), kw)?;
    let mode = int_or(vm, a[0].as_ref(), 4)?;
    let out = compressor(vm, this)?
        .0
        .borrow_mut()
        .flush(mode)
        .map_err(|StreamError| stream_error(vm, "while flushing"))?;
    Ok(vm.new_bytes(out))
}

/// `Compress.copy()`: refused once the stream is finished.
fn compress_copy(vm: &mut Vm, args: &[Value]) -> PyResult<Value> {
    let this = compressor(vm, args.first().unwrap_or(&Value::None))?;
    let deflater = this.0.borrow();
    if deflater.is_finished() {
        return Err(vm.value_error("Inconsistent stream state"));
    }
    let copy = Compress(RefCell::new(deflater.clone()));
    let class = classes(vm)?.compress;
    Ok(new_object(class, copy))
}

/// `Decompress.copy()`: refused once `flush()` has ended the stream.
fn decompress_copy(vm: &mut Vm, args: &[Value]) -> PyResult<Value> {
    let this = decompressor(vm, args.first().unwrap_or(&Value::None))?;
    let state = this.0.borrow();
    if state.ended {
        return Err(vm.value_error("Inconsistent stream state"));
    }
    let copy = Decompress(RefCell::new(state.clone()));
    let class = classes(vm)?.decompress;
    Ok(new_object(class, copy))
}

/// `Decompress.decompress(data, /, max_length=0)`: at most `max_length` bytes out (0: no
/// limit); input not yet used goes to `unconsumed_tail`, input after the end of the
/// stream to `unused_data`.
fn decompress_decompress(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    const SIG: Signature =
        Signature::keywords("Decompress", "decompress", &["data", "max_length"], 1, 1);
    let this = args.first().unwrap_or(&Value::None);
    let args = args.get(1..).unwrap_or_default();
    data_first(vm, "decompress", args)?;
    let a = SIG.bind(vm, args, kw)?;
    let data = buffer_arg(vm, a[0].as_ref().unwrap_or(&Value::None))?;
    let max_length = ssize_or(vm, a[1].as_ref(), 0)?;
    if max_length < 0 {
        return Err(vm.value_error("max_length must be non-negative"));
    }
    let limit = if max_length == 0 {
        usize::MAX
    } else {
        usize::try_from(max_length).unwrap_or(usize::MAX)
    };
    let mut state = decompressor(vm, this)?.0.borrow_mut();
    if state.ended {
        state.unconsumed_tail = data;
        return Err(stream_error(vm, "while decompressing data"));
    }
    let mut out = Vec::new();
    let had_tail = !state.unconsumed_tail.is_empty();
    match state.inflater.inflate(&data, &mut out, limit) {
        Ok(used) => {
            state.keep_unused(&data[used.min(data.len())..], had_tail);
            Ok(vm.new_bytes(out))
        }
        Err(e) => {
            state.unconsumed_tail.clear();
            Err(inflate_error(vm, &e, "while decompressing data"))
        }
    }
}

/// `Decompress.flush(length=DEF_BUF_SIZE, /)`: the rest of the output, from
/// `unconsumed_tail`. At the end of the stream it frees the state.
fn decompress_flush(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    const SIG: Signature = Signature::keywords("Decompress", "flush", &["length"], 0, 1);
    let this = args.first().unwrap_or(&Value::None);
    let a = SIG.bind(vm, args.get(1..).unwrap_or_default(), kw)?;
    if ssize_or(vm, a[0].as_ref(), DEF_BUF_SIZE)? <= 0 {
        return Err(vm.value_error("length must be greater than zero"));
    }
    let mut state = decompressor(vm, this)?.0.borrow_mut();
    if state.ended {
        return Ok(vm.new_bytes(Vec::new()));
    }
    let tail = std::mem::take(&mut state.unconsumed_tail);
    let mut out = Vec::new();
    // As zlib's, flush raises nothing: bad or truncated data just ends the output.
    match state.inflater.inflate(&tail, &mut out, usize::MAX) {
        Ok(used) => state.keep_unused(&tail[used.min(tail.len())..], !tail.is_empty()),
        Err(_) => state.unconsumed_tail = tail,
    }
    if state.eof {
        state.ended = true;
    }
    Ok(vm.new_bytes(out))
}

impl DecompressState {
    /// Files what `inflate` left of its input: after the end of the stream it is unused
    /// data, before it the unconsumed tail.
    ///
    /// As CPython's `save_unconsumed_input`: at the end of the stream a tail that was
    /// not empty before the call becomes the leftover too, not empty.
    fn keep_unused(&mut self, rest: &[u8], had_tail: bool) {
        if self.inflater.is_done() {
            self.eof = true;
            self.unused_data.extend_from_slice(rest);
            if !had_tail {
                return;
            }
        }
        self.unconsumed_tail = rest.to_vec();
    }
}
