//! The VM side of text formatting: `format(v, spec)` dispatching to the runtime library's
//! format-spec mini-language (`format_spec`), `str % args` through its `percent_format`,
//! and `str.format`'s field parsing (`Objects/stringlib/unicode_format.h`), which needs
//! attribute and item access on values.

use std::cell::RefCell;

use super::format_spec::{format_float, format_int, format_str};
use super::int_ops::Int;
use super::op_error::OpError;
use super::str_ops::{OperandKind, PercentArgs, PercentOperand, percent_format};
use crate::vm::object::KwArgs;
use crate::vm::ops::to_int;
use crate::vm::value::Value;
use crate::vm::{Exc, PyResult, Vm};

/// `format(v, spec)` for the built-in types.
pub fn format_spec(vm: &mut Vm, v: &Value, spec: &str) -> PyResult<String> {
    let result = match v {
        Value::Bool(_) if spec.is_empty() => return Ok(vm.str_of(v)?.as_str().to_string()),
        Value::Int(_) | Value::BigInt(_) | Value::Bool(_) => {
            format_int(&to_int(v).unwrap_or(Int::Small(0)), spec)
        }
        Value::Float(f) => format_float(*f, spec),
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

/// `str.format(*args, **kwargs)`.
pub fn str_format(vm: &mut Vm, template: &str, args: &[Value], kw: &KwArgs) -> PyResult<String> {
    let mut out = String::new();
    let chars: Vec<char> = template.chars().collect();
    let mut i = 0;
    let mut auto = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '}' {
            if chars.get(i + 1) == Some(&'}') {
                out.push('}');
                i += 2;
                continue;
            }
            return Err(vm.value_error("Single '}' encountered in format string"));
        }
        if c != '{' {
            out.push(c);
            i += 1;
            continue;
        }
        if chars.get(i + 1) == Some(&'{') {
            out.push('{');
            i += 2;
            continue;
        }
        let mut depth = 1;
        let mut j = i + 1;
        while j < chars.len() && depth > 0 {
            match chars[j] {
                '{' => depth += 1,
                '}' => depth -= 1,
                _ => {}
            }
            j += 1;
        }
        if depth > 0 {
            return Err(vm.value_error("expected '}' before end of string"));
        }
        let field: String = chars[i + 1..j - 1].iter().collect();
        i = j;
        let (field, spec) = match field.find(':') {
            Some(p) => (field[..p].to_string(), field[p + 1..].to_string()),
            None => (field, String::new()),
        };
        let (field, conversion) = match field.find('!') {
            Some(p) => (field[..p].to_string(), field[p + 1..].chars().next()),
            None => (field, None),
        };
        let name_end = field.find(['.', '[']).unwrap_or(field.len());
        let (head, mut rest) = (&field[..name_end], &field[name_end..]);
        let mut value = if head.is_empty() {
            let v = args.get(auto).cloned();
            auto += 1;
            v.ok_or_else(|| {
                vm.index_error(format!(
                    "Replacement index {} out of range for positional args tuple",
                    auto - 1
                ))
            })?
        } else if let Ok(n) = head.parse::<usize>() {
            args.get(n).cloned().ok_or_else(|| {
                vm.index_error(format!(
                    "Replacement index {n} out of range for positional args tuple"
                ))
            })?
        } else {
            super::kwarg(kw, head).ok_or_else(|| vm.key_error(Value::str(head)))?
        };
        while !rest.is_empty() {
            if let Some(r) = rest.strip_prefix('.') {
                let end = r.find(['.', '[']).unwrap_or(r.len());
                let name = vm.intern(&r[..end]);
                value = vm.get_attr(&value, &name)?;
                rest = &r[end..];
            } else if let Some(r) = rest.strip_prefix('[') {
                let end = r.find(']').unwrap_or(r.len());
                let key = &r[..end];
                let key = key
                    .parse::<i64>()
                    .map(Value::Int)
                    .unwrap_or_else(|_| Value::str(key));
                value = vm.get_item(&value, &key)?;
                rest = r.get(end + 1..).unwrap_or("");
            } else {
                break;
            }
        }
        let value = match conversion {
            Some('r') => Value::str(vm.repr(&value)?),
            Some('s') => Value::Str(vm.str_of(&value)?),
            Some('a') => Value::str(vm.ascii(&value)?),
            _ => value,
        };
        let spec = if spec.contains('{') {
            str_format(vm, &spec, args, kw)?
        } else {
            spec
        };
        let formatted = vm.format_value(&value, &spec)?;
        out.push_str(vm.str_of(&formatted)?.as_str());
    }
    Ok(out)
}

/// An error while formatting with `%`: the library's own, or one raised by user code.
enum PercentError {
    Op(OpError),
    Raised(Exc),
}

impl From<OpError> for PercentError {
    fn from(e: OpError) -> Self {
        PercentError::Op(e)
    }
}

/// A value as `percent_format` sees it, with the VM to call `__str__`/`__repr__` on.
#[derive(Clone)]
struct Operand<'a, 'vm> {
    vm: &'a RefCell<&'vm mut Vm>,
    value: Value,
}

impl PercentOperand for Operand<'_, '_> {
    type Error = PercentError;

    fn to_str(&self) -> Result<String, PercentError> {
        let mut vm = self.vm.borrow_mut();
        vm.str_of(&self.value)
            .map(|s| s.as_str().to_string())
            .map_err(PercentError::Raised)
    }

    fn to_repr(&self) -> Result<String, PercentError> {
        self.vm
            .borrow_mut()
            .repr(&self.value)
            .map_err(PercentError::Raised)
    }

    fn kind(&self) -> Result<OperandKind, PercentError> {
        let mut vm = self.vm.borrow_mut();
        Ok(match &self.value {
            Value::Float(f) => OperandKind::Float(*f),
            Value::Str(s) => OperandKind::Str(s.as_str().to_string()),
            v => match to_int(v) {
                Some(n) => OperandKind::Int(n),
                None => match vm.index_value(v).map_err(PercentError::Raised)? {
                    Some(n) => OperandKind::Int(Int::Small(n)),
                    None => {
                        let name = vm.names.float.clone();
                        match vm.special_method(v, &name) {
                            Some(f) => match vm
                                .call(&f, std::slice::from_ref(v), &[])
                                .map_err(PercentError::Raised)?
                            {
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

    fn type_name(&self) -> String {
        self.vm.borrow().type_name(&self.value).to_string()
    }

    fn get_item(&self, key: &str) -> Result<Self, PercentError> {
        let value = self
            .vm
            .borrow_mut()
            .get_item(&self.value, &Value::str(key))
            .map_err(PercentError::Raised)?;
        Ok(Operand { vm: self.vm, value })
    }
}

/// `text % args` (printf-style formatting, `PyUnicode_Format`).
pub fn printf_format(vm: &mut Vm, text: &Value, args: &Value) -> PyResult<Value> {
    let Value::Str(template) = text else {
        return Ok(Value::NotImplemented);
    };
    let is_mapping = match args {
        Value::Dict(_) => true,
        Value::Str(_) | Value::Tuple(_) => false,
        other => {
            let t = vm.type_of(other);
            !t.builtin && crate::vm::types::lookup(t, &vm.names.getitem).is_some()
        }
    };
    let cell = RefCell::new(vm);
    let result = match args {
        Value::Tuple(t) => {
            let items: Vec<Operand> = t
                .items
                .iter()
                .map(|v| Operand {
                    vm: &cell,
                    value: v.clone(),
                })
                .collect();
            percent_format(template.as_str(), PercentArgs::Tuple(&items))
        }
        other => {
            let value = Operand {
                vm: &cell,
                value: other.clone(),
            };
            percent_format(
                template.as_str(),
                PercentArgs::Single {
                    value: &value,
                    is_mapping,
                },
            )
        }
    };
    let vm = cell.into_inner();
    match result {
        Ok(s) => Ok(Value::str(s)),
        Err(PercentError::Op(e)) => Err(vm.op_error(e)),
        Err(PercentError::Raised(e)) => Err(e),
    }
}
