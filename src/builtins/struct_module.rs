//! The `struct` module: `pack`, `unpack`, `pack_into`, `unpack_from`, `iter_unpack`,
//! `calcsize`, the `Struct` class and `struct.error`, as CPython's `_struct` (C) gives them,
//! with its messages. The formats and byte layouts are `common::struct_layout`; this file
//! turns Python values into field values and back, and reads and writes the buffers
//! (`bytes`, `bytearray`). Mirrors `Modules/_struct.c`.

use std::cell::RefCell;
use std::rc::Rc;

use num_bigint::BigInt;

use super::bytes_type::{buffer_arg as buffer, bytes_of};
use super::memoryview::WritableBuffer;
use super::module_args::as_double;
use crate::common::int_ops::Int;
use crate::common::struct_layout::{self, Layout, LayoutError};
use crate::vm::args::Signature;
use crate::vm::object::{KwArgs, Layout as TypeLayout, Object, ObjectKind, PyType};
use crate::vm::ops::from_int;
use crate::vm::types::make_type;
use crate::vm::value::Value;
use crate::vm::{Exc, PyResult, Vm};

thread_local! {
    /// The module's classes, made with it: `struct.Struct` and `struct.error`.
    static CLASSES: RefCell<Option<(Rc<PyType>, Rc<PyType>)>> = const { RefCell::new(None) };
}

/// `struct.error`, or Exception before the module is made.
fn error_class(vm: &Vm) -> Rc<PyType> {
    CLASSES
        .with(|c| c.borrow().as_ref().map(|(_, error)| error.clone()))
        .unwrap_or_else(|| vm.types.exception.clone())
}

/// A `struct.error` with `message`.
fn struct_error(vm: &Vm, message: impl Into<Box<str>>) -> Exc {
    vm.new_exc(&error_class(vm), message)
}

fn layout_error(vm: &Vm, error: LayoutError) -> Exc {
    match error {
        LayoutError::Struct(message) => struct_error(vm, message),
        LayoutError::Overflow(message) => vm.new_exc(&vm.types.overflow_error, message),
    }
}

/// A `Struct` object: its format as given and as parsed.
struct Compiled {
    format: String,
    layout: Layout,
}

/// The format argument (a str, or bytes read as ASCII) parsed.
fn compile(vm: &Vm, format: &Value) -> PyResult<Compiled> {
    let text = match format {
        Value::Str(s) => s.as_str().to_string(),
        other => match bytes_of(other) {
            Some(data) if vm.isinstance(other, &vm.types.bytes) => {
                data.iter().map(|&b| char::from(b)).collect()
            }
            _ => {
                return Err(vm.type_error(format!(
                    "Struct() argument 1 must be a str or bytes object, not {}",
                    vm.type_name(other)
                )));
            }
        },
    };
    let layout = struct_layout::parse(&text).map_err(|e| layout_error(vm, e))?;
    Ok(Compiled {
        format: text,
        layout,
    })
}

/// An int argument as `i128` (one too big for it is out of every field's range anyway).
fn int_field(vm: &mut Vm, v: &Value) -> PyResult<i128> {
    let Some(n) = vm.index_int(v)? else {
        return Err(struct_error(vm, "required argument is not an integer"));
    };
    Ok(match n {
        Int::Small(n) => n.into(),
        Int::Big(big) => i128::try_from(&big).unwrap_or(match big.sign() {
            num_bigint::Sign::Minus => i128::MIN,
            _ => i128::MAX,
        }),
    })
}

/// "pack expected 2 items for packing (got 1)" unless `given` is the format's number of
/// fields.
fn check_count(vm: &Vm, what: &str, layout: &Layout, given: usize) -> PyResult<()> {
    let wanted = layout.fields.len();
    match given == wanted {
        true => Ok(()),
        false => Err(struct_error(
            vm,
            format!("{what} expected {wanted} items for packing (got {given})"),
        )),
    }
}

/// Packs `values` into `out` (the layout's size, zeroed), after [`check_count`].
fn pack_values(
    vm: &mut Vm,
    what: &str,
    layout: &Layout,
    values: &[Value],
    out: &mut [u8],
) -> PyResult<()> {
    check_count(vm, what, layout, values.len())?;
    for (field, value) in layout.fields.iter().zip(values) {
        let slot = &mut out[field.offset..field.offset + field.size];
        match field.code {
            b's' | b'p' => {
                let Some(data) = bytes_of(value) else {
                    let code = char::from(field.code);
                    let message = format!("argument for '{code}' must be a bytes object");
                    return Err(struct_error(vm, message));
                };
                if field.code == b's' {
                    let n = data.len().min(slot.len());
                    slot[..n].copy_from_slice(&data[..n]);
                } else if let Some((length, rest)) = slot.split_first_mut() {
                    let n = data.len().min(rest.len()).min(255);
                    *length = n as u8;
                    rest[..n].copy_from_slice(&data[..n]);
                }
            }
            b'c' => match bytes_of(value) {
                Some(data) if data.len() == 1 => slot[0] = data[0],
                _ => {
                    let message = "char format requires a bytes object of length 1";
                    return Err(struct_error(vm, message));
                }
            },
            b'?' => slot[0] = u8::from(vm.truthy(value)?),
            b'e' | b'f' | b'd' => {
                let Ok(x) = as_double(vm, value) else {
                    return Err(struct_error(vm, "required argument is not a float"));
                };
                struct_layout::pack_float(x, layout.native, layout.order, slot)
                    .map_err(|e| layout_error(vm, e))?;
            }
            code => {
                let n = int_field(vm, value)?;
                struct_layout::pack_int(code, n, layout.order, slot)
                    .map_err(|e| layout_error(vm, e))?;
            }
        }
    }
    Ok(())
}

/// The values of the fields of `data` (exactly the layout's size), as a tuple.
fn unpack_values(vm: &mut Vm, layout: &Layout, data: &[u8]) -> Value {
    let items = layout
        .fields
        .iter()
        .map(|field| {
            let slot = &data[field.offset..field.offset + field.size];
            match field.code {
                b's' => vm.new_bytes(slot.to_vec()),
                b'p' => match slot.split_first() {
                    Some((&n, rest)) => {
                        vm.new_bytes(rest[..usize::from(n).min(rest.len())].to_vec())
                    }
                    None => vm.new_bytes(Vec::new()),
                },
                b'c' => vm.new_bytes(slot.to_vec()),
                b'?' => Value::Bool(slot[0] != 0),
                b'e' | b'f' | b'd' => Value::Float(struct_layout::unpack_float(slot, layout.order)),
                code => {
                    let n = struct_layout::unpack_int(code, slot, layout.order);
                    from_int(match i64::try_from(n) {
                        Ok(small) => Int::Small(small),
                        Err(_) => Int::from(BigInt::from(n)),
                    })
                }
            }
        })
        .collect();
    Value::tuple(items)
}

/// Where a field of `size` bytes starts in a buffer of `len` bytes, for `pack_into`
/// (`packing`) and `unpack_from`: a negative offset counts from the end.
fn buffer_offset(
    vm: &mut Vm,
    offset: &Value,
    size: usize,
    len: usize,
    packing: bool,
) -> PyResult<usize> {
    let offset = vm.expect_ssize(offset)?;
    let (size_i, len_i) = (size as i64, len as i64);
    let start = if offset < 0 {
        if offset + size_i > 0 {
            let message = match packing {
                true => format!("no space to pack {size} bytes at offset {offset}"),
                false => format!("not enough data to unpack {size} bytes at offset {offset}"),
            };
            return Err(struct_error(vm, message));
        }
        if offset + len_i < 0 {
            let message = format!("offset {offset} out of range for {len}-byte buffer");
            return Err(struct_error(vm, message));
        }
        offset + len_i
    } else {
        offset
    };
    if len_i - start < size_i {
        let message = match packing {
            true => format!(
                "pack_into requires a buffer of at least {} bytes for packing {size} bytes \
                 at offset {offset} (actual buffer size is {len})",
                size_i + start
            ),
            false => format!(
                "unpack_from requires a buffer of at least {} bytes for unpacking {size} \
                 bytes at offset {offset} (actual buffer size is {len})",
                size_i + start
            ),
        };
        return Err(struct_error(vm, message));
    }
    Ok(start as usize)
}

fn pack_with(vm: &mut Vm, compiled: &Compiled, values: &[Value]) -> PyResult<Value> {
    let mut out = vec![0; compiled.layout.size];
    pack_values(vm, "pack", &compiled.layout, values, &mut out)?;
    Ok(vm.new_bytes(out))
}

fn pack_into_with(vm: &mut Vm, compiled: &Compiled, args: &[Value]) -> PyResult<Value> {
    let layout = &compiled.layout;
    let [target, offset, values @ ..] = args else {
        let message = match args.len() {
            0 => "pack_into expected buffer argument",
            _ => "pack_into expected offset argument",
        };
        return Err(struct_error(vm, message));
    };
    check_count(vm, "pack_into", layout, values.len())?;
    let Some(len) = WritableBuffer::of(vm, target).map(|w| w.size()) else {
        return Err(vm.type_error(format!(
            "argument must be read-write bytes-like object, not {}",
            vm.type_name(target)
        )));
    };
    let start = buffer_offset(vm, offset, layout.size, len, true)?;
    let mut out = vec![0; layout.size];
    pack_values(vm, "pack_into", layout, values, &mut out)?;
    // The buffer may have shrunk while the values were converted (by their `__index__`).
    let written = WritableBuffer::of(vm, target).is_some_and(|w| w.write(start, &out));
    if !written {
        let message = format!("offset {start} out of range for the changed buffer");
        return Err(struct_error(vm, message));
    }
    Ok(Value::None)
}

fn unpack_with(vm: &mut Vm, compiled: &Compiled, data: &Value) -> PyResult<Value> {
    let data = buffer(vm, data)?;
    let size = compiled.layout.size;
    if data.len() != size {
        return Err(struct_error(
            vm,
            format!("unpack requires a buffer of {size} bytes"),
        ));
    }
    Ok(unpack_values(vm, &compiled.layout, &data))
}

fn unpack_from_with(
    vm: &mut Vm,
    compiled: &Compiled,
    data: &Value,
    offset: Option<&Value>,
) -> PyResult<Value> {
    let data = buffer(vm, data)?;
    let size = compiled.layout.size;
    let start = match offset {
        Some(offset) => buffer_offset(vm, offset, size, data.len(), false)?,
        None if data.len() < size => {
            return Err(struct_error(
                vm,
                format!(
                    "unpack_from requires a buffer of at least {size} bytes for unpacking \
                     {size} bytes at offset 0 (actual buffer size is {})",
                    data.len()
                ),
            ));
        }
        None => 0,
    };
    Ok(unpack_values(
        vm,
        &compiled.layout,
        &data[start..start + size],
    ))
}

fn iter_unpack_with(vm: &mut Vm, compiled: &Compiled, data: &Value) -> PyResult<Value> {
    let data = buffer(vm, data)?;
    let size = compiled.layout.size;
    if size == 0 {
        let message = "cannot iteratively unpack with a struct of length 0";
        return Err(struct_error(vm, message));
    }
    if data.len() % size != 0 {
        return Err(struct_error(
            vm,
            format!("iterative unpacking requires a buffer of a multiple of {size} bytes"),
        ));
    }
    let items = data
        .chunks(size)
        .map(|chunk| unpack_values(vm, &compiled.layout, chunk))
        .collect();
    vm.get_iter(&Value::list(items))
}

// ---- the module's functions --------------------------------------------------------------

/// The format, the first argument of `pack` and `pack_into`.
fn format_arg(vm: &Vm, args: &[Value]) -> PyResult<Compiled> {
    match args.first() {
        Some(format) => compile(vm, format),
        None => Err(vm.type_error("missing format argument")),
    }
}

fn pack(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    Signature::positional("struct", "pack", &[], 0).check(vm, &[], kw)?;
    let compiled = format_arg(vm, args)?;
    pack_with(vm, &compiled, &args[1..])
}

fn pack_into(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    Signature::positional("struct", "pack_into", &[], 0).check(vm, &[], kw)?;
    let compiled = format_arg(vm, args)?;
    pack_into_with(vm, &compiled, &args[1..])
}

fn unpack(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    Signature::positional("", "unpack", &["format", "buffer"], 2).check(vm, args, kw)?;
    let compiled = compile(vm, &args[0])?;
    unpack_with(vm, &compiled, &args[1])
}

fn unpack_from(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    const SIGNATURE: Signature =
        Signature::keywords("", "unpack_from", &["format", "buffer", "offset"], 2, 1);
    let bound = SIGNATURE.bind(vm, args, kw)?;
    let [Some(format), Some(data), offset] = &bound[..] else {
        return Err(vm.type_error("unpack_from() missing required argument 'buffer' (pos 2)"));
    };
    let compiled = compile(vm, format)?;
    unpack_from_with(vm, &compiled, data, offset.as_ref())
}

fn iter_unpack(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    Signature::positional("", "iter_unpack", &["format", "buffer"], 2).check(vm, args, kw)?;
    let compiled = compile(vm, &args[0])?;
    iter_unpack_with(vm, &compiled, &args[1])
}

fn calcsize(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    Signature::one("_struct", "calcsize").check(vm, args, kw)?;
    let compiled = compile(vm, &args[0])?;
    Ok(Value::Int(compiled.layout.size as i64))
}

// ---- the Struct class --------------------------------------------------------------------

/// The `Struct` a method is called on.
fn this<'a>(vm: &Vm, args: &'a [Value]) -> PyResult<&'a Compiled> {
    args.first()
        .and_then(Value::native::<Compiled>)
        .ok_or_else(|| vm.type_error("descriptor requires a '_struct.Struct' object"))
}

fn struct_new(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    const SIGNATURE: Signature = Signature::keywords("", "Struct", &["format"], 1, 0);
    let bound = SIGNATURE.bind(vm, args.get(1..).unwrap_or(&[]), kw)?;
    let format = bound[0].clone().unwrap_or(Value::None);
    let compiled = compile(vm, &format)?;
    let class = match args.first() {
        Some(Value::Type(class)) => class.clone(),
        _ => CLASSES
            .with(|c| c.borrow().as_ref().map(|(class, _)| class.clone()))
            .unwrap_or_else(|| vm.types.object.clone()),
    };
    Ok(Value::object(Object::new(
        class,
        ObjectKind::Other(Box::new(compiled)),
    )))
}

const METHODS: &[(&str, crate::vm::object::NativeFn)] = &[
    ("pack", |vm, args, kw| {
        Signature::positional("Struct", "pack", &[], 0).check(vm, &[], kw)?;
        pack_with(vm, this(vm, args)?, &args[1..])
    }),
    ("pack_into", |vm, args, kw| {
        Signature::positional("Struct", "pack_into", &[], 0).check(vm, &[], kw)?;
        pack_into_with(vm, this(vm, args)?, &args[1..])
    }),
    ("unpack", |vm, args, kw| {
        Signature::one("Struct", "unpack").check(vm, &args[1..], kw)?;
        unpack_with(vm, this(vm, args)?, &args[1])
    }),
    ("unpack_from", |vm, args, kw| {
        const SIGNATURE: Signature =
            Signature::keywords("", "unpack_from", &["buffer", "offset"], 1, 0);
        let bound = SIGNATURE.bind(vm, &args[1..], kw)?;
        let data = bound[0].clone().unwrap_or(Value::None);
        let compiled = this(vm, args)?;
        unpack_from_with(vm, compiled, &data, bound[1].as_ref())
    }),
    ("iter_unpack", |vm, args, kw| {
        Signature::one("Struct", "iter_unpack").check(vm, &args[1..], kw)?;
        iter_unpack_with(vm, this(vm, args)?, &args[1])
    }),
    ("__repr__", |vm, args, _| {
        let format = this(vm, args)?.format.clone();
        let repr = vm.repr(&Value::str(format))?;
        Ok(Value::str(format!("Struct({repr})")))
    }),
];

/// Builds the module on its first import.
pub fn module(vm: &mut Vm) -> Value {
    vm.ready_bytes();
    let class = make_type(
        "Struct",
        vec![vm.types.object.clone()],
        TypeLayout::Builtin,
        false,
    );
    vm.set_type_attr(&class, "__module__", Value::str("_struct"));
    vm.add_static(&class, "__new__", struct_new);
    vm.add_methods(&class, METHODS);
    vm.add_getset(
        &class,
        "format",
        |vm, v| {
            Ok(Value::str(
                this(vm, std::slice::from_ref(v))?.format.as_str(),
            ))
        },
        None,
    );
    vm.add_getset(
        &class,
        "size",
        |vm, v| {
            Ok(Value::Int(
                this(vm, std::slice::from_ref(v))?.layout.size as i64,
            ))
        },
        None,
    );
    let error = make_type(
        "error",
        vec![vm.types.exception.clone()],
        TypeLayout::Exception,
        false,
    );
    vm.set_type_attr(&error, "__module__", Value::str("struct"));
    CLASSES.with(|c| *c.borrow_mut() = Some((class.clone(), error.clone())));
    let attrs = vec![
        ("Struct", Value::Type(class)),
        ("error", Value::Type(error)),
        ("pack", vm.native("pack", pack)),
        ("pack_into", vm.native("pack_into", pack_into)),
        ("unpack", vm.native("unpack", unpack)),
        ("unpack_from", vm.native("unpack_from", unpack_from)),
        ("iter_unpack", vm.native("iter_unpack", iter_unpack)),
        ("calcsize", vm.native("calcsize", calcsize)),
    ];
    vm.new_module("struct", attrs)
}
