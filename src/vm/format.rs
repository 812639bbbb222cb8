//! The glue between values and the runtime library's text formatting: `format(v, spec)` for
//! the built-in types over the format-spec mini-language (`common::format_spec`), `str % args`
//! and `bytes % args` ([`printf_format`] over `common::percent`) and `str.format` over
//! `common::str_format`, and the value operations (str, repr, items, attributes) those call
//! back into. Used by the VM's `%` operator and `format()`, and by `str`'s methods.

use crate::common::format_spec::{format_complex, format_float, format_int, format_str};
use crate::common::int_ops::Int;
use crate::common::op_error::{ErrorKind, OpError};
use crate::common::percent::{
    Flavor, OperandKind, PercentArgs, PercentOperand, latin1_bytes, latin1_text, percent_format,
};
use crate::common::str_format::{FormatArgs, FormatValue, format_str_method};

use super::bytes::PyBytes;
use super::complex::complex_of;
use super::dict::StrKeys;
use super::object::{KwArgs, ObjectKind};
use super::ops::to_int;
use super::value::Value;
use super::{Exc, PyResult, Vm};

/// `format(v, spec)` for the built-in types.
pub fn format_spec(vm: &mut Vm, v: &Value, spec: &str) -> PyResult<String> {
    let result = match v {
        Value::Bool(_) if spec.is_empty() => return Ok(vm.str_of(v)?.as_str().to_string()),
        Value::Int(_) | Value::BigInt(_) | Value::Bool(_) => {
            format_int(&to_int(v).unwrap_or(Int::Small(0)), spec)
        }
        Value::Float(f) => format_float(*f, spec),
        v if let Some(z) = complex_of(v) => format_complex(z.re, z.im, spec),
        Value::Str(s) => format_str(s.as_str(), spec),
        other => {
            let text = vm.str_of(other)?;
            if !spec.is_empty() {
                return Err(vm.type_error(format!(
                    "unsupported format string passed to {}.__format__",
                    vm.type_name(other)
                )));
            }
            return Ok(text.as_str().to_string());
        }
    };
    result.map_err(|e| vm.op_error(e))
}

/// `str % args` and `str.format` call back into the VM for conversions and lookups.
impl PercentOperand for Value {
    type Context = Vm;
    type Error = Exc;

    fn error(vm: &mut Vm, error: OpError) -> Exc {
        vm.op_error(error)
    }

    fn to_str(&self, vm: &mut Vm) -> PyResult<String> {
        vm.str_of(self).map(|s| s.as_str().to_string())
    }

    fn to_repr(&self, vm: &mut Vm) -> PyResult<String> {
        vm.repr(self)
    }

    fn to_bytes(&self, vm: &mut Vm) -> PyResult<Option<Vec<u8>>> {
        vm.bytes_of_object(self)
    }

    fn kind(&self, vm: &mut Vm) -> PyResult<OperandKind> {
        if let Some(b) = self.native::<PyBytes>() {
            return Ok(OperandKind::Bytes(b.data().clone()));
        }
        Ok(match self {
            Value::Float(f) => OperandKind::Float(*f),
            Value::Str(s) => OperandKind::Str(s.as_str().to_string()),
            v => match to_int(v) {
                Some(n) => OperandKind::Int(n),
                None => match vm.index_value(v)? {
                    Some(n) => OperandKind::Int(Int::Small(n)),
                    None => {
                        let name = vm.names.float.clone();
                        match vm.special_method(v, &name) {
                            Some(f) => match vm.call(&f, std::slice::from_ref(v), &[])? {
                                Value::Float(f) => OperandKind::Float(f),
                                _ => OperandKind::Other,
                            },
                            None => OperandKind::Other,
                        }
                    }
                },
            },
        })
    }

    fn type_name(&self, vm: &mut Vm) -> String {
        vm.type_name(self).to_string()
    }

    fn get_item(&self, vm: &mut Vm, key: &str, flavor: Flavor) -> PyResult<Value> {
        let key = match flavor {
            Flavor::Text => Value::str(key),
            Flavor::Bytes => vm.new_bytes(latin1_bytes(key)),
        };
        vm.get_item(self, &key)
    }
}

impl FormatValue for Value {
    type Context = Vm;
    type Error = Exc;

    fn error(vm: &mut Vm, error: OpError) -> Exc {
        match error.kind {
            // A missing keyword's KeyError carries the name itself.
            ErrorKind::KeyError => vm.key_error(Value::str(error.message)),
            _ => vm.op_error(error),
        }
    }

    fn attribute(&self, vm: &mut Vm, name: &str) -> PyResult<Value> {
        let name = vm.intern(name);
        vm.get_attr(self, &name)
    }

    fn item_index(&self, vm: &mut Vm, index: usize) -> PyResult<Value> {
        vm.get_item(self, &Value::Int(index as i64))
    }

    fn item_key(&self, vm: &mut Vm, key: &str) -> PyResult<Value> {
        vm.get_item(self, &Value::str(key))
    }

    fn to_str(&self, vm: &mut Vm) -> PyResult<String> {
        vm.str_of(self).map(|s| s.as_str().to_string())
    }

    fn to_repr(&self, vm: &mut Vm) -> PyResult<String> {
        vm.repr(self)
    }

    fn from_text(_: &mut Vm, text: String) -> Value {
        Value::str(text)
    }

    fn format(&self, vm: &mut Vm, spec: &str) -> PyResult<String> {
        let formatted = vm.format_value(self, spec)?;
        vm.str_of(&formatted).map(|s| s.as_str().to_string())
    }

    fn keyword(vm: &mut Vm, keywords: &Value, name: &str) -> PyResult<Option<Value>> {
        match keywords {
            Value::Dict(d) => vm.dict_get(d, &Value::str(name)),
            // `format_map` with any mapping: its own `__getitem__` errors propagate.
            mapping => vm.get_item(mapping, &Value::str(name)).map(Some),
        }
    }
}

/// `text.format(*args, **kw)`.
pub fn str_format(vm: &mut Vm, text: &str, args: &[Value], kw: &KwArgs) -> PyResult<String> {
    let keywords = if kw.is_empty() {
        None
    } else {
        let d = Value::dict(Default::default());
        if let Value::Dict(dict) = &d {
            for (k, v) in kw {
                dict.table.borrow_mut().set_str(k.clone(), v.clone());
            }
        }
        Some(d)
    };
    format_str_method(
        vm,
        text,
        &FormatArgs {
            positional: Some(args),
            keywords: keywords.as_ref(),
        },
    )
}

/// `text.format_map(mapping)`.
pub fn str_format_map(vm: &mut Vm, text: &str, mapping: &Value) -> PyResult<String> {
    let args = FormatArgs {
        positional: None,
        keywords: Some(mapping),
    };
    format_str_method(vm, text, &args)
}

/// `text % args` (printf-style formatting): `PyUnicode_Format` for a str, `_PyBytes_FormatEx`
/// for a bytes or bytearray (whose result is of its type); NotImplemented for anything else.
pub fn printf_format(vm: &mut Vm, text: &Value, args: &Value) -> PyResult<Value> {
    let (template, flavor) = match text {
        Value::Str(s) => (s.as_str().to_string(), Flavor::Text),
        other => match other.native::<PyBytes>() {
            Some(b) => (latin1_text(&b.data()), Flavor::Bytes),
            None => return Ok(Value::NotImplemented),
        },
    };
    // A tuple subclass (a namedtuple, say) is a tuple of arguments too.
    let tuple_base = match args {
        Value::Object(o) => o
            .builtin_base()
            .filter(|b| matches!(b, Value::Tuple(_)))
            .cloned(),
        _ => None,
    };
    let args = tuple_base.as_ref().unwrap_or(args);
    let args = match args {
        Value::Tuple(t) => PercentArgs::Tuple(&t.items),
        other => PercentArgs::Single {
            value: other,
            is_mapping: is_format_mapping(vm, other, flavor),
        },
    };
    let result = percent_format(vm, &template, args, flavor)?;
    Ok(match flavor {
        Flavor::Text => Value::str(result),
        Flavor::Bytes if vm.isinstance(text, &vm.types.bytearray) => {
            vm.new_bytearray(latin1_bytes(&result))
        }
        Flavor::Bytes => vm.new_bytes(latin1_bytes(&result)),
    })
}

/// Whether `%`'s single operand is the mapping `%(key)s` reads: any value whose type
/// supports `[]` (CPython's `tp_as_mapping->mp_subscript`, which lists and ranges have
/// too), but a str and, when bytes are formatted, a bytes or bytearray (a tuple never
/// gets here).
fn is_format_mapping(vm: &Vm, value: &Value, flavor: Flavor) -> bool {
    match value {
        Value::Str(_) => false,
        Value::Dict(_) | Value::List(_) => true,
        Value::Object(o) if matches!(o.kind, ObjectKind::Range(_)) => true,
        v if v.native::<PyBytes>().is_some() => flavor == Flavor::Text,
        v => super::types::lookup(vm.type_of(v), &vm.names.getitem).is_some(),
    }
}
