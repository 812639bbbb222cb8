//! The attributes of `type`, `object`, functions and bound methods that are computed
//! (`__name__`, `__qualname__`, `__mro__`, `__dict__`, `__defaults__`, …): their getters and
//! setters (`type_getsets`, `func_getsetlist`, `method_getset` in `Objects/`). Installed
//! once at start-up by [`init_type_methods`].

use std::rc::Rc;

use super::args::{Signature, check_arity};
use super::dict::StrKeys;
use super::native_docs::short_name;
use super::object::{Getter, KwArgs, ModuleOrigin, NativeFunction, Object, ObjectKind, PyType};
use super::value::{PyDict, PyStr, Value};
use super::{PyResult, Vm};

/// The getters of `type`, `object` and `function` attributes.
pub fn init_type_methods(vm: &mut Vm) {
    let module = vm.types.module.clone();
    vm.add_static(&module, "__new__", module_new);
    vm.add_method(&module, "__init__", module_init);
    let type_ = vm.types.type_.clone();
    vm.add_getset(
        &type_,
        "__name__",
        |vm, v| {
            let ty = as_type(vm, v)?;
            Ok(Value::str(shown_name(&ty, &ty.name())))
        },
        Some(|vm, v, new| {
            let ty = as_type(vm, v)?;
            set_type_name(vm, &ty, TypeName::Name, Some(new))
        }),
    );
    vm.add_getset(
        &type_,
        "__qualname__",
        |vm, v| {
            let ty = as_type(vm, v)?;
            Ok(Value::str(shown_name(&ty, &ty.qualname())))
        },
        Some(|vm, v, new| {
            let ty = as_type(vm, v)?;
            set_type_name(vm, &ty, TypeName::Qualname, Some(new))
        }),
    );
    vm.add_getset(
        &type_,
        "__module__",
        |vm, v| {
            let t = as_type(vm, v)?;
            // A class's own `__module__` is the object its namespace holds (the str its
            // functions' `__module__` is too: pickle memoizes a module's name by identity).
            let own = t.dict.borrow().get_str(&vm.names.module).cloned();
            // A built-in type named with its module (`functools.partial`) is in that
            // module, one its module placed (`_io.StringIO`) in that one, any other in
            // `builtins`: an interned str, the same each time (and the one `sys.modules`
            // is keyed by), as CPython's `type_module` gives.
            let module = match (t.name().rsplit_once('.'), own) {
                (Some((module, _)), _) if t.builtin => module.to_string(),
                (_, Some(module)) if !t.builtin => return Ok(module),
                (_, Some(Value::Str(module))) => return Ok(Value::Str(module)),
                _ => "builtins".to_string(),
            };
            Ok(Value::Str(vm.intern(&module)))
        },
        None,
    );
    vm.add_getset(
        &type_,
        "__mro__",
        |vm, v| {
            Ok(Value::tuple(
                as_type(vm, v)?.mro().into_iter().map(Value::Type).collect(),
            ))
        },
        None,
    );
    vm.add_getset(
        &type_,
        "__bases__",
        |vm, v| {
            Ok(Value::tuple(
                as_type(vm, v)?
                    .bases
                    .iter()
                    .cloned()
                    .map(Value::Type)
                    .collect(),
            ))
        },
        None,
    );
    vm.add_getset(
        &type_,
        "__base__",
        |vm, v| {
            Ok(as_type(vm, v)?
                .bases
                .first()
                .cloned()
                .map_or(Value::None, Value::Type))
        },
        None,
    );
    vm.add_getset(
        &type_,
        "__dict__",
        |vm, v| {
            let class = as_type(vm, v)?;
            Ok(vm.class_namespace_proxy(class))
        },
        None,
    );
    // A class's own `__type_params__` (a generic class's, from its body), else `()`.
    vm.add_getset(
        &type_,
        "__type_params__",
        |vm, v| {
            let t = as_type(vm, v)?;
            // `type`'s own dict holds this descriptor.
            if Rc::ptr_eq(&t, &vm.types.type_) {
                return Ok(Value::tuple(vec![]));
            }
            let own = t
                .dict
                .borrow()
                .get_str(&PyStr::new("__type_params__"))
                .cloned();
            Ok(own.unwrap_or_else(|| Value::tuple(vec![])))
        },
        // Any value, as in CPython 3.13.
        Some(|vm, v, new| {
            let t = as_type(vm, v)?;
            vm.set_type_attr(&t, "__type_params__", new);
            Ok(())
        }),
    );
    vm.add_method(&type_, "mro", |vm, args, kw| {
        let t = type_method_self(vm, "mro", args, kw)?;
        Ok(Value::list(t.mro().into_iter().map(Value::Type).collect()))
    });
    vm.add_method(&type_, "__subclasses__", |vm, args, kw| {
        let t = type_method_self(vm, "__subclasses__", args, kw)?;
        Ok(Value::list(
            t.live_subclasses().into_iter().map(Value::Type).collect(),
        ))
    });
    let object = vm.types.object.clone();
    vm.add_getset(
        &object,
        "__class__",
        |vm, v| Ok(Value::Type(vm.type_of(v).clone())),
        None,
    );
    // apy's fallback for every instance with attributes (CPython's `object` has none, so
    // `dir()` leaves it out); the built-in types whose instances have a dict also have
    // their own, as in CPython.
    vm.add_deletable_getset(&object, "__dict__", instance_dict, set_instance_dict);
    for ty in [vm.types.function.clone(), vm.types.module.clone()] {
        vm.add_getset(&ty, "__dict__", instance_dict, None);
    }
    let base_exception = vm.types.base_exception.clone();
    vm.add_deletable_getset(
        &base_exception,
        "__dict__",
        instance_dict,
        set_instance_dict,
    );
    let function = vm.types.function.clone();
    vm.add_getset(
        &function,
        "__name__",
        |_, v| match v {
            Value::Function(f) => Ok(Value::Str(f.name.borrow().clone())),
            _ => Ok(Value::None),
        },
        Some(|vm, v, new| match (v, new) {
            (Value::Function(f), Value::Str(s)) => {
                *f.name.borrow_mut() = s;
                f.renamed.set(true);
                Ok(())
            }
            _ => Err(vm.type_error("__name__ must be set to a string object")),
        }),
    );
    vm.add_getset(
        &function,
        "__qualname__",
        |_, v| match v {
            Value::Function(f) => Ok(Value::str(&**f.qualname.borrow())),
            _ => Ok(Value::None),
        },
        Some(|vm, v, new| match (v, new) {
            (Value::Function(f), Value::Str(s)) => {
                *f.qualname.borrow_mut() = s.as_str().into();
                f.renamed.set(true);
                Ok(())
            }
            _ => Err(vm.type_error("__qualname__ must be set to a string object")),
        }),
    );
    vm.add_getset(
        &function,
        "__module__",
        // Set by assignment (`functools.wraps`), else the `__name__` of its globals.
        |vm, v| match v {
            Value::Function(f) => {
                let assigned = f.dict.borrow().get_str(&vm.names.module).cloned();
                Ok(assigned.unwrap_or_else(|| {
                    f.globals
                        .table
                        .borrow()
                        .get_str(&vm.names.name)
                        .cloned()
                        .unwrap_or(Value::None)
                }))
            }
            _ => Ok(Value::None),
        },
        Some(|vm, v, new| {
            if let Value::Function(f) = v {
                f.dict.borrow_mut().set_str(vm.names.module.clone(), new);
            }
            Ok(())
        }),
    );
    vm.add_getset(
        &function,
        "__doc__",
        |vm, v| match v {
            // Set by assignment, else the code's first constant (its docstring or None).
            Value::Function(f) => {
                let assigned = f.dict.borrow().get_str(&vm.names.doc).cloned();
                // Read from the code, not its runnable body (the constant made a value is
                // the same interned string), so asking does not ready the function to run.
                Ok(
                    assigned.unwrap_or_else(|| match f.code.code().constants.first() {
                        Some(crate::compile::bytecode::Constant::Str(doc)) => {
                            Value::Str(vm.intern(doc))
                        }
                        _ => Value::None,
                    }),
                )
            }
            _ => Ok(Value::None),
        },
        Some(|vm, v, new| {
            if let Value::Function(f) = v {
                f.dict.borrow_mut().set_str(vm.names.doc.clone(), new);
            }
            Ok(())
        }),
    );
    vm.add_getset(
        &function,
        "__defaults__",
        |_, v| match v {
            Value::Function(f) => Ok(f
                .defaults
                .borrow()
                .as_ref()
                .map_or(Value::None, |d| Value::tuple(d.clone()))),
            _ => Ok(Value::None),
        },
        Some(|vm, v, new| {
            let Value::Function(f) = v else {
                return Ok(());
            };
            let defaults = match &new {
                Value::None => None,
                Value::Tuple(tuple) => Some(tuple.items.to_vec()),
                _ => {
                    let message = "__defaults__ must be set to a tuple object";
                    return Err(vm.type_error(message));
                }
            };
            drop(f.defaults.replace(defaults));
            Ok(())
        }),
    );
    // The cells of the function's free variables (None for a function without).
    vm.add_getset(
        &function,
        "__closure__",
        |_, v| match v {
            Value::Function(f) if !f.closure.is_empty() => Ok(Value::tuple(f.closure.clone())),
            _ => Ok(Value::None),
        },
        None,
    );
    // The builtins its globals use (`_PyEval_BuiltinsFromGlobals`): the `__builtins__`
    // module's dict, or that dict itself, or the VM's builtins.
    vm.add_getset(
        &function,
        "__builtins__",
        |vm, v| {
            let Value::Function(f) = v else {
                return Ok(Value::None);
            };
            let named = f
                .globals
                .table
                .borrow()
                .get_str(&vm.names.builtins)
                .cloned();
            Ok(match named {
                Some(Value::Object(o)) => match &o.kind {
                    ObjectKind::Module { dict, .. } => Value::Dict(dict.clone()),
                    _ => Value::Object(o),
                },
                Some(other) => other,
                None => Value::Dict(vm.builtins.clone()),
            })
        },
        None,
    );
    init_cell_type(vm);
    // The dict of the keyword-only defaults, None when there are none; what
    // `inspect.signature` reads for keyword-only parameters.
    vm.add_getset(
        &function,
        "__kwdefaults__",
        |_, v| match v {
            Value::Function(f) => Ok(f
                .kwdefaults
                .borrow()
                .clone()
                .map_or(Value::None, Value::Dict)),
            _ => Ok(Value::None),
        },
        Some(|vm, v, new| {
            let Value::Function(f) = v else {
                return Ok(());
            };
            let kwdefaults = match &new {
                Value::None => None,
                Value::Dict(d) => Some(d.clone()),
                _ => {
                    let message = "__kwdefaults__ must be set to a dict object";
                    return Err(vm.type_error(message));
                }
            };
            drop(f.kwdefaults.replace(kwdefaults));
            Ok(())
        }),
    );
    // PEP 695's type parameters: a generic function's, else the empty tuple.
    vm.add_getset(
        &function,
        "__type_params__",
        |_, v| match v {
            Value::Function(f) if !f.type_params.is_null() => Ok(f.type_params.get()),
            _ => Ok(Value::tuple(vec![])),
        },
        Some(|vm, v, new| match (v, &new) {
            (Value::Function(f), Value::Tuple(_)) => {
                f.type_params.set(new);
                Ok(())
            }
            _ => Err(vm.type_error("__type_params__ must be set to a tuple")),
        }),
    );
    // `f.__call__(…)`, and what `collections.abc.Callable` looks for.
    for ty in [
        function.clone(),
        vm.types.builtin_function.clone(),
        vm.types.method.clone(),
    ] {
        vm.add_method(&ty, "__call__", |vm, args, kw| match args.split_first() {
            Some((f, rest)) => vm.call(f, rest, kw),
            None => Err(vm.type_error("__call__ needs a callable")),
        });
    }
    // `f.__get__(instance, owner=None)`: functions are descriptors (`func_descr_get`).
    vm.add_method(&function, "__get__", |vm, args, _| {
        let (f, rest) = args.split_first().ok_or_else(|| vm.type_error("no self"))?;
        // CPython's own messages name no function here.
        check_arity(vm, "", rest, 1, 2)?;
        match rest {
            [Value::None] | [Value::None, Value::None] => {
                Err(vm.type_error("__get__(None, None) is invalid"))
            }
            [Value::None, _] => Ok(f.clone()),
            _ => Ok(vm.bound_method(f.clone(), rest[0].clone())),
        }
    });
    // `types.MethodType(function, instance)`.
    vm.add_static(&vm.types.method.clone(), "__new__", |vm, args, kw| {
        if !kw.is_empty() {
            return Err(vm.type_error("method() takes no keyword arguments"));
        }
        let rest = args.get(1..).unwrap_or_default();
        check_arity(vm, "method", rest, 2, 2)?;
        if !vm.is_callable(&rest[0]) {
            return Err(vm.type_error("first argument must be callable"));
        }
        if rest[1].is_none() {
            return Err(vm.type_error("instance must not be None"));
        }
        let method = vm.types.method.clone();
        Ok(vm.method_object(method, rest[0].clone(), rest[1].clone()))
    });
    // A computed attribute's descriptor: its name, and its doc as CPython's.
    let getset = vm.types.getset_descriptor.clone();
    let getset_attrs: [(&'static str, Getter); 3] = [
        ("__name__", |_, v| {
            Ok(getset_of(v).map_or(Value::None, |(name, _)| Value::str(name)))
        }),
        ("__qualname__", |_, v| {
            Ok(getset_of(v).map_or(Value::None, |(name, owner)| {
                Value::str(format!("{}.{name}", short_name(owner)))
            }))
        }),
        ("__doc__", |_, v| {
            let doc = layout_doc(v).or_else(|| {
                getset_of(v)
                    .and_then(|(name, owner)| super::native_docs::attribute_doc(owner, name))
            });
            Ok(doc.map_or(Value::None, Value::str))
        }),
    ];
    for (name, getter) in getset_attrs {
        vm.add_getset(&getset, name, getter, None);
    }
    // The descriptor protocol, called by hand (`int.real.__get__(5)`); also what makes
    // `inspect.isdatadescriptor` see one.
    vm.add_method(&getset, "__get__", |vm, args, _| {
        check_arity(vm, "__get__", args, 2, 3)?;
        match (&args[0], &args[1]) {
            (_, Value::None) => Ok(args[0].clone()),
            (Value::Object(o), obj) => match &o.kind {
                ObjectKind::GetSet { get, .. } => get(vm, obj),
                _ => Ok(Value::None),
            },
            _ => Ok(Value::None),
        }
    });
    vm.add_method(&getset, "__set__", |vm, args, _| {
        check_arity(vm, "__set__", args, 3, 3)?;
        getset_store(vm, args, Some(args[2].clone()))
    });
    vm.add_method(&getset, "__delete__", |vm, args, _| {
        check_arity(vm, "__delete__", args, 2, 2)?;
        getset_store(vm, args, None)
    });
    let builtin_function = vm.types.builtin_function.clone();
    vm.add_getset(
        &builtin_function,
        "__name__",
        |_, v| Ok(native_of(v).map_or(Value::None, |n| Value::str(n.name))),
        None,
    );
    vm.add_getset(
        &builtin_function,
        "__qualname__",
        |_, v| {
            Ok(match native_of(v) {
                Some(NativeFunction {
                    name,
                    owner: Some(owner),
                    ..
                }) => Value::str(format!("{}.{name}", short_name(owner))),
                Some(n) => Value::str(n.name),
                None => Value::None,
            })
        },
        None,
    );
    // CPython's doc and text signature of the function or method (`native_docs`), and a
    // function's module (a method has none).
    let documented: [(&'static str, Getter); 2] = [
        ("__doc__", |_, v| {
            Ok(super::native_docs::doc(v).map_or(Value::None, Value::str))
        }),
        ("__text_signature__", |_, v| {
            let signature = super::native_docs::text_signature(v);
            Ok(signature.map_or(Value::None, Value::str))
        }),
    ];
    for (name, getter) in documented {
        vm.add_getset(&builtin_function, name, getter, None);
    }
    vm.add_getset(
        &builtin_function,
        "__module__",
        |vm, v| {
            let module = native_of(v)
                .filter(|n| !n.is_method)
                .and_then(|n| n.module.get())
                .cloned();
            let Some(module) = module else {
                return Ok(Value::None);
            };
            // The module's own `__name__` (the same str each time, as CPython's function
            // keeps its module's name object), else an interned str.
            let loaded = match &*module {
                "builtins" => Some(vm.builtins_module()),
                _ => vm.loaded_module(&module),
            };
            if let Some(Value::Object(o)) = loaded
                && let ObjectKind::Module { dict, .. } = &o.kind
                && let Some(name @ Value::Str(_)) = dict.table.borrow().get_str(&vm.names.name)
            {
                return Ok(name.clone());
            }
            Ok(Value::Str(vm.intern(&module)))
        },
        None,
    );
    // A built-in method's instance; a module's built-in function, its module (when
    // loaded: a library helper's module may be private); none for a method taken from its
    // type (CPython's method descriptors have no `__self__`).
    vm.add_getset(
        &builtin_function,
        "__self__",
        |vm, v| match v {
            Value::Object(o) => match &o.kind {
                ObjectKind::BoundMethod { this, .. } => Ok(this.clone()),
                ObjectKind::Native(n) if !n.is_method => Ok(n
                    .module
                    .get()
                    .and_then(|m| vm.loaded_module(m))
                    .unwrap_or(Value::None)),
                _ => {
                    let name = vm.intern("__self__");
                    Err(vm.no_attribute(v, &name))
                }
            },
            _ => Ok(Value::None),
        },
        None,
    );
    let method = vm.types.method.clone();
    vm.add_getset(
        &method,
        "__self__",
        |_, v| match v {
            Value::Object(o) => match &o.kind {
                ObjectKind::BoundMethod { this, .. } => Ok(this.clone()),
                _ => Ok(Value::None),
            },
            _ => Ok(Value::None),
        },
        None,
    );
    vm.add_getset(
        &method,
        "__func__",
        |_, v| match v {
            Value::Object(o) => match &o.kind {
                ObjectKind::BoundMethod { func, .. } => Ok(func.clone()),
                _ => Ok(Value::None),
            },
            _ => Ok(Value::None),
        },
        None,
    );
    for name in ["__name__", "__qualname__"] {
        let getter: Getter = if name == "__name__" {
            |vm, v| {
                let f = bound_func(v);
                let key = vm.names.name.clone();
                vm.get_attr(&f, &key)
            }
        } else {
            |vm, v| {
                let f = bound_func(v);
                let key = vm.names.qualname.clone();
                vm.get_attr(&f, &key)
            }
        };
        vm.add_getset(&method, name, getter, None);
    }
}

/// A type's `__name__` or `__qualname__` from `name`: for a built-in type named with its
/// module (`functools.partial`, as CPython's `tp_name`), the part after the module; a
/// class's as it was given (`type('a.b', (), {})` keeps its dot).
fn shown_name<'a>(ty: &PyType, name: &'a str) -> &'a str {
    match ty.builtin {
        true => short_name(name),
        false => name,
    }
}

/// Which of a type's names an assignment is to.
#[derive(Clone, Copy)]
pub(super) enum TypeName {
    Name,
    Qualname,
}

impl TypeName {
    /// The name an attribute assignment on a type is to, if `attr` is one of them.
    pub(super) fn of(attr: &str) -> Option<TypeName> {
        match attr {
            "__name__" => Some(TypeName::Name),
            "__qualname__" => Some(TypeName::Qualname),
            _ => None,
        }
    }
}

/// `C.__name__ = value` / `C.__qualname__ = value` (`del` when `value` is None), checked as
/// `type_set_name` and `type_set_qualname` (`Objects/typeobject.c`) check them: a built-in
/// type's names are fixed, a class's cannot be deleted and are strs (a str subclass's
/// instance is kept as its text).
pub(super) fn set_type_name(
    vm: &mut Vm,
    ty: &PyType,
    which: TypeName,
    value: Option<Value>,
) -> PyResult<()> {
    let attr = match which {
        TypeName::Name => "__name__",
        TypeName::Qualname => "__qualname__",
    };
    let tp_name = vm.tp_name(ty);
    if ty.builtin {
        return Err(vm.type_error(format!(
            "cannot set '{attr}' attribute of immutable type '{tp_name}'"
        )));
    }
    let Some(value) = value else {
        return Err(vm.type_error(format!(
            "cannot delete '{attr}' attribute of immutable type '{tp_name}'"
        )));
    };
    let text: Rc<str> = match &value {
        Value::Str(s) => s.as_str().into(),
        Value::Object(o) if let Some(Value::Str(s)) = o.builtin_base() => s.as_str().into(),
        other => {
            return Err(vm.type_error(format!(
                "can only assign string to {tp_name}.{attr}, not '{}'",
                vm.object_type_name(other)
            )));
        }
    };
    match which {
        TypeName::Name if text.contains('\0') => {
            Err(vm.value_error("type name must not contain null characters"))
        }
        TypeName::Name => {
            *ty.name.borrow_mut() = text;
            Ok(())
        }
        TypeName::Qualname => {
            *ty.qualname.borrow_mut() = text;
            Ok(())
        }
    }
}

/// `types.ModuleType(name, doc=None)` (or a subclass): an empty module, its namespace
/// holding `__name__`, `__doc__`, `__package__`, `__loader__` and `__spec__`.
fn module_new(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let Some((Value::Type(cls), rest)) = args.split_first() else {
        return Err(vm.type_error("module.__new__(X): X is not a type object"));
    };
    let (name, doc) = module_arguments(vm, rest, kw)?;
    let dict = Rc::new(PyDict {
        table: Default::default(),
    });
    let unset = [
        vm.intern("__package__"),
        vm.intern("__loader__"),
        vm.intern("__spec__"),
    ];
    {
        let mut table = dict.table.borrow_mut();
        table.set_str(vm.names.name.clone(), Value::Str(name.clone()));
        table.set_str(vm.names.doc.clone(), doc);
        for key in unset {
            table.set_str(key, Value::None);
        }
    }
    super::teardown::watch_module(&dict);
    Ok(Value::object(Object::new(
        cls.clone(),
        ObjectKind::Module {
            name: name.as_str().into(),
            dict,
            origin: ModuleOrigin::Plain,
        },
    )))
}

/// `module.__init__(name, doc=None)`: names the module (again) and gives it its doc.
fn module_init(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let Some((this, rest)) = args.split_first() else {
        return Err(vm.type_error("unbound method module.__init__() needs an argument"));
    };
    let (name, doc) = module_arguments(vm, rest, kw)?;
    if let Value::Object(o) = this
        && let ObjectKind::Module { dict, .. } = &o.kind
    {
        let mut table = dict.table.borrow_mut();
        table.set_str(vm.names.name.clone(), Value::Str(name));
        table.set_str(vm.names.doc.clone(), doc);
    }
    Ok(Value::None)
}

/// The `name` (a str) and `doc` (None when not given) a module is made with.
fn module_arguments(vm: &Vm, args: &[Value], kw: &KwArgs) -> PyResult<(Rc<PyStr>, Value)> {
    const SIGNATURE: Signature = Signature::keywords("module", "module", &["name", "doc"], 1, 0);
    let bound = SIGNATURE.bind(vm, args, kw)?;
    let name = match &bound[0] {
        Some(Value::Str(s)) => s.clone(),
        Some(other) => {
            return Err(vm.type_error(format!(
                "module() argument 'name' must be str, not {}",
                vm.arg_type_name(other)
            )));
        }
        None => return Err(vm.type_error("module() missing required argument 'name' (pos 1)")),
    };
    Ok((name, bound[1].clone().unwrap_or(Value::None)))
}

/// `obj.__dict__`: an instance's namespace (made now for one whose attributes had none),
/// a function's attributes; none for an object whose dict is managed, unseen
/// ([`PyType::has_managed_dict`]). `object`'s descriptor, and a class's own (`slots`).
pub fn instance_dict(vm: &mut Vm, v: &Value) -> PyResult<Value> {
    match v {
        Value::Object(o)
            if (o.attrs().is_some() || matches!(o.kind, ObjectKind::Exception(_)))
                && !o.class.has_managed_dict() =>
        {
            Ok(o.dict_object().map_or(Value::None, Value::Dict))
        }
        Value::Function(f) => Ok(Value::dict(f.dict.borrow().clone())),
        // A bound method's is its function's.
        Value::Object(o) if matches!(o.kind, ObjectKind::BoundMethod { .. }) => {
            let key = vm.names.dict.clone();
            vm.get_attr(&bound_func(v), &key)
        }
        _ => Err(vm.no_attribute(v, &PyStr::new("__dict__"))),
    }
}

/// `obj.__dict__ = value` for an instance or an exception: `value` (a dict, or the dict
/// inside an instance of a dict subclass) becomes its namespace. apy cannot replace a
/// dict the object already has (made when `__dict__` was read or an attribute deleted):
/// that is named as outside the subset. `del obj.__dict__` (`value` Null) empties it
/// ([`Object::delete_dict`]).
pub fn set_instance_dict(vm: &mut Vm, obj: &Value, value: Value) -> PyResult<()> {
    if let Value::Null = value {
        return match obj {
            Value::Object(o) => match o.delete_dict() {
                Some(true) => Ok(()),
                Some(false) => Err(vm.type_error(format!(
                    "deleting the __dict__ of a '{}' object while it is held elsewhere is \
                     not supported by apy",
                    vm.type_name(obj)
                ))),
                // An exception's (`BaseException_set_dict`).
                None if matches!(o.kind, ObjectKind::Exception(_)) => {
                    Err(vm.type_error("cannot delete __dict__"))
                }
                None => Err(vm.attribute_error(format!(
                    "'{}' object has no attribute '__dict__' and no __dict__ for setting new \
                     attributes",
                    vm.type_name(obj)
                ))),
            },
            _ => Err(vm.type_error("cannot delete __dict__")),
        };
    }
    // A dict subclass's instance gives the dict it extends.
    let base = match &value {
        Value::Object(o) => o.builtin_base(),
        other => Some(other),
    };
    let Some(Value::Dict(dict)) = base.cloned() else {
        return Err(vm.type_error(format!(
            "__dict__ must be set to a dictionary, not a '{}'",
            vm.type_name(&value)
        )));
    };
    let Value::Object(o) = obj else {
        return Err(vm.no_attribute(obj, &PyStr::new("__dict__")));
    };
    if o.replace_dict(dict) {
        return Ok(());
    }
    Err(vm.type_error(format!(
        "replacing the __dict__ a '{}' object already has is not supported by apy \
         (assign __dict__ before its attributes are read through it or deleted)",
        vm.type_name(obj)
    )))
}

/// `descr.__set__(obj, value)` (`value` Some) or `descr.__delete__(obj)` of the getset
/// descriptor `args[0]` on `args[1]`.
fn getset_store(vm: &mut Vm, args: &[Value], value: Option<Value>) -> PyResult<Value> {
    let Some((name, _)) = getset_of(&args[0]) else {
        return Ok(Value::None);
    };
    let name = vm.intern(name);
    vm.set_through_descriptor(args[0].clone(), &args[1], &name, value)?;
    Ok(Value::None)
}

/// The docstring `type_new` gives a class's own `__dict__` and `__weakref__` descriptors
/// (`vm::slots`), known by their getters: a built-in type's descriptors of those names
/// have none.
fn layout_doc(v: &Value) -> Option<&'static str> {
    let Value::Object(o) = v else { return None };
    let ObjectKind::GetSet { get, .. } = &o.kind else {
        return None;
    };
    if std::ptr::fn_addr_eq(*get, instance_dict as Getter) {
        Some("dictionary for instance variables")
    } else if std::ptr::fn_addr_eq(*get, super::weakrefs::weakref_attribute as Getter) {
        Some("list of weak references to the object")
    } else {
        None
    }
}

/// The name and owner of a `getset_descriptor`.
fn getset_of(v: &Value) -> Option<(&'static str, &str)> {
    match v {
        Value::Object(o) => match &o.kind {
            ObjectKind::GetSet { name, owner, .. } => Some((name, owner)),
            _ => None,
        },
        _ => None,
    }
}

/// The built-in function behind a `builtin_function_or_method`, bound or not.
fn native_of(v: &Value) -> Option<&NativeFunction> {
    let Value::Object(o) = v else { return None };
    match &o.kind {
        ObjectKind::Native(n) => Some(n),
        ObjectKind::BoundMethod {
            func: Value::Object(f),
            ..
        } => match &f.kind {
            ObjectKind::Native(n) => Some(n),
            _ => None,
        },
        _ => None,
    }
}

fn bound_func(v: &Value) -> Value {
    match v {
        Value::Object(o) => match &o.kind {
            ObjectKind::BoundMethod { func, .. } => func.clone(),
            _ => Value::None,
        },
        _ => Value::None,
    }
}

/// The class a method of `type` taking no arguments is called on (`C.mro()`,
/// `type.__subclasses__(C)`), with CPython's errors for anything else.
fn type_method_self(
    vm: &mut Vm,
    name: &str,
    args: &[Value],
    kw: &crate::vm::object::KwArgs,
) -> PyResult<Rc<PyType>> {
    let t = match args.first() {
        Some(Value::Type(t)) => t.clone(),
        Some(other) => {
            return Err(vm.type_error(format!(
                "descriptor '{name}' for 'type' objects doesn't apply to a '{}' object",
                vm.type_name(other)
            )));
        }
        None => {
            return Err(vm.type_error(format!("unbound method type.{name}() needs an argument")));
        }
    };
    if !kw.is_empty() {
        return Err(vm.type_error(format!("{}.{name}() takes no keyword arguments", t.name())));
    }
    if args.len() > 1 {
        return Err(vm.type_error(format!(
            "{}.{name}() takes no arguments ({} given)",
            t.name(),
            args.len() - 1
        )));
    }
    Ok(t)
}

pub fn as_type(vm: &mut Vm, v: &Value) -> PyResult<Rc<PyType>> {
    match v {
        Value::Type(t) => Ok(t.clone()),
        _ => Err(vm.type_error(format!(
            "descriptor requires a 'type' object but received a '{}'",
            vm.type_name(v)
        ))),
    }
}

/// `types.CellType`: `cell([contents])` and its `cell_contents` (ValueError while empty).
fn init_cell_type(vm: &mut Vm) {
    let cell = vm.types.cell.clone();
    vm.add_static(&cell, "__new__", |vm, args, kw| {
        check_arity(vm, "cell", &args[1..], 0, 1)?;
        crate::vm::args::check_kwargs(vm, "cell", kw, &[])?;
        Ok(vm.new_cell(args.get(1).cloned().unwrap_or(Value::Null)))
    });
    vm.add_getset(
        &cell,
        "cell_contents",
        |vm, v| {
            let content = match v {
                Value::Object(o) => match &o.kind {
                    ObjectKind::Cell(c) => c.borrow().clone(),
                    _ => Value::Null,
                },
                _ => Value::Null,
            };
            match content.is_null() {
                true => Err(vm.value_error("Cell is empty")),
                false => Ok(content),
            }
        },
        Some(|_, v, new| {
            if let Value::Object(o) = v
                && let ObjectKind::Cell(c) = &o.kind
            {
                *c.borrow_mut() = new;
            }
            Ok(())
        }),
    );
}
