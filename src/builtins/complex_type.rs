//! `complex`: its constructor with CPython's rules (`complex_new`: a string, numbers, or
//! objects with `__complex__`, `__float__` or `__index__`) and its methods and attributes
//! (`conjugate`, `__complex__`, `__getnewargs__`, `__format__`, `real`, `imag`), installed on
//! the first use of the type, as most programs make no complex. Mirrors
//! `Objects/complexobject.c`; the operators are `vm/complex.rs`, the arithmetic, `repr` and
//! string parsing `common::complex_ops`.

use std::rc::Rc;

use crate::common::complex_ops::{Complex, parse_complex};
use crate::common::format_spec::format_complex;
use crate::vm::args::{OrRaise, Signature, split_cls_of};
use crate::vm::call::instance_of_subclass;
use crate::vm::complex::complex_of;
use crate::vm::object::{Getter, KwArgs, NativeFn, PyType, Setter};
use crate::vm::ops::to_int;
use crate::vm::value::Value;
use crate::vm::{PyResult, Vm};

use super::module_args::as_double;

/// The methods of `complex`, by name.
const METHODS: &[(&str, NativeFn)] = &[
    ("conjugate", |vm, args, _| {
        let z = this_complex(vm, args, "conjugate")?;
        Ok(vm.new_complex(Complex::new(z.re, -z.im)))
    }),
    ("__complex__", |vm, args, _| {
        let z = this_complex(vm, args, "__complex__")?;
        // The object itself when it is a complex, a plain one for an instance of a subclass.
        Ok(match complex_of(&args[0]) {
            Some(_) => args[0].clone(),
            None => vm.new_complex(z),
        })
    }),
    ("__getnewargs__", |vm, args, _| {
        let z = this_complex(vm, args, "__getnewargs__")?;
        Ok(Value::tuple(vec![Value::Float(z.re), Value::Float(z.im)]))
    }),
    ("__format__", |vm, args, kw| {
        let z = this_complex(vm, &args[..args.len().min(1)], "__format__")?;
        Signature::one("complex", "__format__").check(vm, &args[1..], kw)?;
        let Value::Str(spec) = &args[1] else {
            return Err(vm.type_error(format!(
                "__format__() argument must be str, not {}",
                vm.type_name(&args[1])
            )));
        };
        if spec.as_str().is_empty() {
            return Ok(Value::Str(vm.str_of(&args[0])?));
        }
        let text = format_complex(z.re, z.im, spec.as_str()).or_raise(vm)?;
        Ok(Value::str(text))
    }),
];

/// The attributes of `complex`, by name.
const GETSETS: &[(&str, Getter)] = &[
    ("real", |vm, v| {
        Ok(Value::Float(
            this_complex(vm, std::slice::from_ref(v), "real")?.re,
        ))
    }),
    ("imag", |vm, v| {
        Ok(Value::Float(
            this_complex(vm, std::slice::from_ref(v), "imag")?.im,
        ))
    }),
];

/// Installs the constructor of `complex`; its methods wait for the type's first use.
pub fn init(vm: &mut Vm) {
    let complex = vm.types.complex.clone();
    vm.add_static(&complex, "__new__", complex_new);
    vm.lazy_methods.push((complex, install_methods));
}

/// Installs the methods, attributes and operator wrappers of `complex`.
fn install_methods(vm: &mut Vm, ty: &Rc<PyType>) {
    vm.add_methods(ty, METHODS);
    // CPython's are read-only members, whose assignment says so in its own words.
    let readonly: Setter = |vm, _, _| Err(vm.attribute_error("readonly attribute"));
    for (name, get) in GETSETS {
        vm.add_getset(ty, name, *get, Some(readonly));
    }
    super::slot_wrappers::install_complex(vm);
}

/// The complex `v` is or extends (an instance of a subclass).
fn complex_or_base(v: &Value) -> Option<Complex> {
    complex_of(v).or_else(|| match v {
        Value::Object(o) => o.builtin_base().and_then(complex_of),
        _ => None,
    })
}

/// `PyComplex_AsCComplex`: the complex `v` is or extends, what its `__complex__` returns,
/// or a real number as `float()` reads it ("must be real number, not str").
pub(super) fn as_complex(vm: &mut Vm, v: &Value) -> PyResult<Complex> {
    if let Some(z) = complex_or_base(v) {
        return Ok(z);
    }
    if let Some(z) = from_dunder_complex(vm, v)? {
        return Ok(z);
    }
    Ok(Complex::new(as_double(vm, v)?, 0.0))
}

/// The complex `args[0]` is or extends, and no other argument (`name` takes none).
fn this_complex(vm: &Vm, args: &[Value], name: &'static str) -> PyResult<Complex> {
    let Some(z) = args.first().and_then(complex_or_base) else {
        let other = args.first().map_or("nothing".into(), |v| vm.type_name(v));
        return Err(vm.type_error(format!(
            "descriptor '{name}' for 'complex' objects doesn't apply to a '{other}' object"
        )));
    };
    if !matches!(name, "real" | "imag" | "__format__") {
        Signature::no_args("complex", name).check(vm, &args[1..], &[])?;
    }
    Ok(z)
}

/// `complex(real=0, imag=0)` (`complex_new`).
fn complex_new(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let complex = vm.types.complex.clone();
    let (cls, args) = split_cls_of(vm, &complex, args)?;
    let bound =
        Signature::keywords("complex", "complex", &["real", "imag"], 0, 0).bind(vm, args, kw)?;
    vm.ready_methods(&complex);
    let (real, imag) = (&bound[0], &bound[1]);
    let is_complex = Rc::ptr_eq(&cls, &complex);
    // `complex(z)` is `z` itself.
    if let (Some(r), None, true) = (real, imag, is_complex)
        && complex_of(r).is_some()
    {
        return Ok(r.clone());
    }
    let z = complex_value(vm, real.as_ref(), imag.as_ref())?;
    let value = vm.new_complex(z);
    Ok(if is_complex {
        value
    } else {
        instance_of_subclass(&cls, value)
    })
}

/// The number `complex(real, imag)` makes: `real + imag*1j`, each part a complex of its
/// own when it is one (`complex(1j, 1j)` is `(-1+1j)`).
fn complex_value(vm: &mut Vm, real: Option<&Value>, imag: Option<&Value>) -> PyResult<Complex> {
    let is_str = |vm: &Vm, v: &Value| vm.isinstance(v, &vm.types.str);
    if let Some(r) = real.filter(|r| is_str(vm, r)) {
        if imag.is_some() {
            return Err(vm.type_error("complex() can't take second arg if first is a string"));
        }
        let text = vm.str_of(r)?;
        return parse_complex(text.as_str()).or_raise(vm);
    }
    if imag.is_some_and(|i| is_str(vm, i)) {
        return Err(vm.type_error("complex() second arg can't be a string"));
    }
    let r = match real {
        Some(r) => match from_dunder_complex(vm, r)? {
            Some(z) => Part::Complex(z),
            None => number_part(vm, r, "first argument must be a string or a number")?,
        },
        None => Part::Real(0.0),
    };
    let i = match imag {
        Some(i) => Some(number_part(vm, i, "second argument must be a number")?),
        None => None,
    };
    let (r, r_is_complex) = r.resolve(vm)?;
    let Some((i, i_is_complex)) = i.map(|i| i.resolve(vm)).transpose()? else {
        return Ok(r);
    };
    // Only a complex part adds to the other direction (`complex(1, -0.0)` keeps its -0.0).
    let re = if i_is_complex { r.re - i.im } else { r.re };
    let im = if r_is_complex { i.re + r.im } else { i.re };
    Ok(Complex::new(re, im))
}

/// An argument of `complex()` before it is read: a complex as it is, anything else as a
/// float, read only once both arguments are known to be numbers (as CPython checks them).
enum Part {
    Complex(Complex),
    Real(f64),
    Number(Value),
}

impl Part {
    /// The part's number, and whether it was a complex.
    fn resolve(self, vm: &mut Vm) -> PyResult<(Complex, bool)> {
        Ok(match self {
            Part::Complex(z) => (z, true),
            Part::Real(x) => (Complex::new(x, 0.0), false),
            Part::Number(v) => (Complex::new(as_double(vm, &v)?, 0.0), false),
        })
    }
}

/// `v` as a part of `complex()`: a complex (of a subclass too), or a number `float()`
/// reads (it has `__float__` or `__index__`); else the TypeError `what` describes.
fn number_part(vm: &Vm, v: &Value, what: &str) -> PyResult<Part> {
    if let Some(z) = complex_or_base(v) {
        return Ok(Part::Complex(z));
    }
    let base = match v {
        Value::Object(o) => o.builtin_base().cloned(),
        _ => None,
    };
    let plain = base.as_ref().unwrap_or(v);
    let numeric = to_int(plain).is_some()
        || matches!(plain, Value::Float(_))
        || [&vm.names.float, &vm.names.index]
            .iter()
            .any(|name| vm.special_method(v, name).is_some());
    if !numeric {
        return Err(vm.type_error(format!("complex() {what}, not '{}'", vm.type_name(v))));
    }
    Ok(Part::Number(v.clone()))
}

/// What `v.__complex__()` returns, when `v`'s class has the method and is not `complex`
/// itself (`try_complex_special_method`): a complex, or, deprecated, an instance of a
/// subclass of complex.
fn from_dunder_complex(vm: &mut Vm, v: &Value) -> PyResult<Option<Complex>> {
    if complex_of(v).is_some() {
        return Ok(None);
    }
    let name = vm.intern("__complex__");
    let Some(method) = vm.special_method(v, &name) else {
        return Ok(None);
    };
    let result = vm.call(&method, std::slice::from_ref(v), &[])?;
    if let Some(z) = complex_of(&result) {
        return Ok(Some(z));
    }
    if let Value::Object(o) = &result
        && let Some(z) = o.builtin_base().and_then(complex_of)
    {
        vm.deprecation_in_main(&format!(
            "__complex__ returned non-complex (type {}).  The ability to return an instance \
             of a strict subclass of complex is deprecated, and may be removed in a future \
             version of Python.",
            o.class.name()
        ));
        return Ok(Some(z));
    }
    Err(vm.type_error(format!(
        "__complex__ returned non-complex (type {})",
        vm.type_name(&result)
    )))
}
