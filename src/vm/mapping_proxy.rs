//! `mappingproxy` (`types.MappingProxyType`, `Objects/descrobject.c`): a read-only view of
//! a mapping. A class's `__dict__` is one, over the class's namespace, so that a program
//! cannot change a class behind the back of its attribute caches (`A.__dict__['x'] = 1`
//! is a TypeError, as in CPython; `setattr(A, 'x', 1)` is the way).
//!
//! Each method reads the mapping as it is now and asks it the same question: the
//! mapping itself for `MappingProxyType(m)`, a dict of the class's namespace as it stands
//! for a class's proxy. The type's methods are installed when the first proxy is made.

use std::rc::Rc;

use super::args::check_kwargs;
use super::dict::StrKeys;
use super::object::{KwArgs, Object, ObjectKind, PyType};
use super::value::Value;
use super::{PyResult, Vm};
use crate::compile::bytecode::{BinaryOperator, CompareOperator};

/// What a proxy shows.
#[derive(Clone)]
enum Viewed {
    /// A class's namespace (`A.__dict__`).
    Class(Rc<PyType>),
    /// Any other mapping (`MappingProxyType(m)`).
    Mapping(Value),
}

struct MappingProxy(Viewed);

impl Vm {
    /// `cls.__dict__`: a read-only view of the class's namespace.
    pub fn class_namespace_proxy(&mut self, class: Rc<PyType>) -> Value {
        self.mapping_proxy(Viewed::Class(class))
    }

    /// The `mappingproxy` type, with its methods (for `types.MappingProxyType`).
    pub fn mapping_proxy_type(&mut self) -> Value {
        ready(self);
        Value::Type(self.types.mappingproxy.clone())
    }

    fn mapping_proxy(&mut self, viewed: Viewed) -> Value {
        ready(self);
        Value::object(Object::new(
            self.types.mappingproxy.clone(),
            ObjectKind::Other(Box::new(MappingProxy(viewed))),
        ))
    }
}

/// Installs the type's methods the first time a proxy (or the type) is asked for, so a
/// program that never looks at one does not pay for them at start-up.
fn ready(vm: &mut Vm) {
    let ty = vm.types.mappingproxy.clone();
    if !ty.dict.borrow().is_empty() {
        return;
    }
    vm.add_static(&ty, "__new__", new);
    // Each asks the mapping the same question (`__getitem__`, `get`, `keys`, ...).
    macro_rules! forward {
        ($($name:literal),+) => {
            $(vm.add_method(&ty, $name, |vm, args, kw| forward(vm, $name, args, kw));)+
        };
    }
    forward!(
        "__getitem__",
        "__contains__",
        "__iter__",
        "__len__",
        "__reversed__",
        "get",
        "keys",
        "values",
        "items",
        "copy"
    );
    vm.add_method(&ty, "__repr__", repr);
    vm.add_method(&ty, "__str__", |vm, args, _| {
        let mapping = viewed(vm, &args[0])?;
        Ok(Value::Str(vm.str_of(&mapping)?))
    });
    // Compared and hashed as the mapping is (`mappingproxy_richcompare`, `mappingproxy_hash`).
    macro_rules! compare {
        ($($name:literal => $op:ident),+) => {
            $(vm.add_method(&ty, $name, |vm, args, _| compare(vm, args, CompareOperator::$op));)+
        };
    }
    compare!("__eq__" => Eq, "__ne__" => Ne, "__lt__" => Lt, "__le__" => Le, "__gt__" => Gt, "__ge__" => Ge);
    vm.add_method(&ty, "__hash__", |vm, args, _| {
        let mapping = viewed(vm, &args[0])?;
        Ok(Value::Int(vm.hash(&mapping)?))
    });
    vm.add_method(&ty, "__or__", |vm, args, _| or(vm, args, false));
    vm.add_method(&ty, "__ror__", |vm, args, _| or(vm, args, true));
    let module = vm.names.module.clone();
    ty.dict.borrow_mut().set_str(module, Value::str("builtins"));
}

/// `mappingproxy(mapping)`: any mapping but a list or tuple (which have `__getitem__` too).
fn new(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let mapping = match (args.get(1..).unwrap_or_default(), kw) {
        ([mapping], []) => mapping.clone(),
        ([], [(name, mapping)]) if name.as_str() == "mapping" => mapping.clone(),
        ([], []) => {
            return Err(vm.type_error("mappingproxy() missing required argument 'mapping' (pos 1)"));
        }
        _ => {
            check_kwargs(vm, "mappingproxy", kw, &["mapping"])?;
            return Err(vm.type_error(format!(
                "mappingproxy() takes at most 1 argument ({} given)",
                args.len() - 1 + kw.len()
            )));
        }
    };
    let getitem = vm.names.getitem.clone();
    let sequence =
        vm.isinstance(&mapping, &vm.types.list) || vm.isinstance(&mapping, &vm.types.tuple);
    if sequence || super::types::lookup(vm.type_of(&mapping), &getitem).is_none() {
        return Err(vm.type_error(format!(
            "mappingproxy() argument must be a mapping, not {}",
            vm.type_name(&mapping)
        )));
    }
    // A proxy of a proxy shows what the inner one shows.
    if let Some(MappingProxy(inner)) = mapping.native::<MappingProxy>() {
        return Ok(vm.mapping_proxy(inner.clone()));
    }
    Ok(vm.mapping_proxy(Viewed::Mapping(mapping)))
}

/// The mapping a proxy shows, as it is now.
fn viewed(vm: &Vm, proxy: &Value) -> PyResult<Value> {
    match proxy.native::<MappingProxy>() {
        Some(MappingProxy(Viewed::Mapping(m))) => Ok(m.clone()),
        Some(MappingProxy(Viewed::Class(class))) => Ok(Value::dict(class.dict.borrow().clone())),
        None => Err(vm.type_error("descriptor requires a 'mappingproxy' object")),
    }
}

/// `proxy.name(*args)` as `mapping.name(*args)`.
fn forward(vm: &mut Vm, name: &str, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let (proxy, rest) = args.split_first().ok_or_else(|| vm.type_error("no self"))?;
    let mapping = viewed(vm, proxy)?;
    let name = vm.intern(name);
    let method = vm.get_attr(&mapping, &name)?;
    vm.call(&method, rest, kw)
}

/// `proxy op other`: `mapping op other`.
fn compare(vm: &mut Vm, args: &[Value], op: CompareOperator) -> PyResult<Value> {
    let [proxy, other] = args else {
        return Ok(Value::NotImplemented);
    };
    let mapping = viewed(vm, proxy)?;
    vm.compare(op, &mapping, other)
}

/// `mappingproxy({...})`.
fn repr(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    let mapping = viewed(vm, &args[0])?;
    let inner = vm.repr(&mapping)?;
    Ok(Value::str(format!("mappingproxy({inner})")))
}

/// `proxy | other` and `other | proxy`: the mapping's `|`, a new dict.
fn or(vm: &mut Vm, args: &[Value], reflected: bool) -> PyResult<Value> {
    let [proxy, other] = args else {
        return Ok(Value::NotImplemented);
    };
    let mapping = viewed(vm, proxy)?;
    let (a, b) = if reflected {
        (other, &mapping)
    } else {
        (&mapping, other)
    };
    vm.binary_op(BinaryOperator::Or, a, b)
}
