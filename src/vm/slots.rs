//! `__slots__`: a class whose every class defines `__slots__` (without `"__dict__"`) gives
//! its instances no `__dict__`, only the named slots, each a `member_descriptor` on the
//! class (`<member 'x' of 'P' objects>`). In: a new class's namespace and bases. Out: whether
//! its instances have no dict ([`no_dict`]), the descriptors ([`install`]), and the storage
//! of such an instance ([`SlotValues`]). Mirrors `type_new`'s slot handling and
//! `Objects/descrobject.c`'s member descriptors. An instance that has a `__dict__` too (a
//! subclass without `__slots__`) keeps its slots' values in its `__dict__`.

use std::cell::RefCell;
use std::rc::Rc;

use super::dict::StrKeys;
use super::object::{KwArgs, Object, ObjectKind, PyType};
use super::value::{DictTable, PyStr, Value};
use super::{PyResult, Vm};

/// What a dict-less instance holds: its slots' values by name.
#[derive(Default)]
pub struct SlotValues(pub RefCell<DictTable>);

/// A slot's descriptor on its class.
struct Member {
    name: Rc<PyStr>,
    owner: Rc<str>,
}

/// The names a class namespace's `__slots__` lists (a str is one name), if it has one.
fn slot_names(vm: &mut Vm, ns: &DictTable) -> PyResult<Option<Vec<Rc<PyStr>>>> {
    let key = vm.intern("__slots__");
    match ns.get_str(&key).cloned() {
        Some(slots) => names_in(vm, &slots).map(Some),
        None => Ok(None),
    }
}

/// The names a `__slots__` value lists (a str is one name).
fn names_in(vm: &mut Vm, slots: &Value) -> PyResult<Vec<Rc<PyStr>>> {
    let items = match slots {
        Value::Str(s) => vec![Value::Str(s.clone())],
        other => vm.collect_iterable(other)?,
    };
    let mut names = Vec::new();
    for item in items {
        match item {
            Value::Str(s) => names.push(vm.intern(s.as_str())),
            other => {
                return Err(vm.type_error(format!(
                    "__slots__ items must be strings, not '{}'",
                    vm.type_name(&other)
                )));
            }
        }
    }
    Ok(names)
}

/// Whether instances of a class with namespace `ns` and these bases have no `__dict__`.
pub fn no_dict(vm: &mut Vm, ns: &DictTable, bases: &[Rc<PyType>]) -> PyResult<bool> {
    let Some(names) = slot_names(vm, ns)? else {
        return Ok(false);
    };
    let bases_too = bases
        .iter()
        .all(|b| b.no_dict || Rc::ptr_eq(b, &vm.types.object));
    Ok(bases_too && !names.iter().any(|n| n.as_str() == "__dict__"))
}

/// Puts on a new `class` a member descriptor for each name its `__slots__` lists, then
/// the `__dict__` and `__weakref__` descriptors its instances need ([`install_layout`]).
pub fn install(vm: &mut Vm, class: &Rc<PyType>) -> PyResult<()> {
    let ns = class.dict.borrow().clone();
    let names = slot_names(vm, &ns)?;
    if let Some(names) = &names {
        install_members(vm, class, &ns, names)?;
    }
    install_layout(vm, class, names.as_deref());
    Ok(())
}

fn install_members(
    vm: &mut Vm,
    class: &Rc<PyType>,
    ns: &DictTable,
    names: &[Rc<PyStr>],
) -> PyResult<()> {
    // The descriptors' type gets its methods with the first class that has slots.
    if vm.types.member_descriptor.dict.borrow().is_empty() {
        init(vm);
    }
    for name in names {
        if matches!(name.as_str(), "__dict__" | "__weakref__") {
            continue;
        }
        if ns.get_str(name).is_some() {
            return Err(vm.value_error(format!(
                "'{}' in __slots__ conflicts with class variable",
                name.as_str()
            )));
        }
        let member = Member {
            name: name.clone(),
            owner: class.name(),
        };
        let descriptor = Object::new(
            vm.types.member_descriptor.clone(),
            ObjectKind::Other(Box::new(member)),
        );
        class
            .dict
            .borrow_mut()
            .set_str(name.clone(), Value::object(descriptor));
    }
    Ok(())
}

/// The C types outside builtins (by `tp_name`) whose instances have a `__dict__` of their
/// own (a `tp_dictoffset`), and those whose instances can be referred to weakly already
/// (a `tp_weaklistoffset`).
const C_TYPES_WITH_DICT: &[&str] = &["_asyncio.Future", "_asyncio.Task", "functools.partial"];
const C_TYPES_WITH_WEAKREFS: &[&str] = &[
    "_asyncio.Future",
    "_asyncio.Task",
    "functools.partial",
    "collections.deque",
    "collections.OrderedDict",
];

/// `type_new`'s `__dict__` and `__weakref__` getset descriptors (`subtype_dict`,
/// `subtype_getweakref`): a class gets each one its bases do not already give its
/// instances, unless its own `__slots__` (listed as `slots`) leaves that name out, so
/// `A.__dict__` lists them as CPython's does and `help(A)` shows them as A's own.
fn install_layout(vm: &mut Vm, class: &Rc<PyType>, slots: Option<&[Rc<PyStr>]>) {
    let lists = |name: &str| slots.is_none_or(|names| names.iter().any(|n| n.as_str() == name));
    let mro = class.mro();
    // `object`'s `__dict__` descriptor is apy's fallback for every instance; CPython's
    // `object` has none.
    let bases = mro.get(1..mro.len().saturating_sub(1)).unwrap_or_default();
    let (dict_key, weakref_key) = (vm.names.dict.clone(), vm.intern("__weakref__"));
    let own = |base: &PyType, key: &PyStr| base.dict.borrow().get_str(key).is_some();
    let is = |base: &Rc<PyType>, types: &[&Rc<PyType>]| types.iter().any(|t| Rc::ptr_eq(base, t));
    // By name first: a class's qualified name is only made for one named like those.
    let c_type = |base: &PyType, names: &[&str]| {
        names.iter().any(|n| n.ends_with(&*base.name()))
            && names.contains(&vm.tp_name(base).as_ref())
    };
    let t = &vm.types;
    let has_dict = bases.iter().any(|b| {
        b.layout == super::object::Layout::Exception
            || own(b, &dict_key)
            || is(b, &[&t.type_, &t.function, &t.module])
            || c_type(b, C_TYPES_WITH_DICT)
    });
    // Nor does a subclass of a type of variable size (`tp_itemsize`) get `__weakref__`.
    let has_weakrefs = bases.iter().any(|b| {
        own(b, &weakref_key)
            || is(b, &[&t.type_, &t.function, &t.module, &t.set, &t.frozenset])
            || is(b, &[&t.int, &t.tuple, &t.bytes])
            || c_type(b, C_TYPES_WITH_WEAKREFS)
    });
    if lists("__dict__") && !has_dict {
        let (get, set) = (
            super::type_attrs::instance_dict,
            super::type_attrs::set_instance_dict,
        );
        vm.add_deletable_getset(class, "__dict__", get, set);
    }
    if lists("__weakref__") && !has_weakrefs {
        let getter = super::weakrefs::weakref_attribute;
        vm.add_getset(class, "__weakref__", getter, None);
    }
}

/// Where `obj` keeps its slots' values.
fn storage<'a>(vm: &Vm, obj: &'a Value, member: &Member) -> PyResult<&'a RefCell<DictTable>> {
    let Value::Object(o) = obj else {
        return Err(vm.type_error(format!(
            "descriptor '{}' for '{}' objects doesn't apply to a '{}' object",
            member.name.as_str(),
            member.owner,
            vm.type_name(obj)
        )));
    };
    match (&o.kind, o.attrs_to_write()) {
        (ObjectKind::Other(any), _) if any.is::<SlotValues>() => {
            Ok(&any.downcast_ref::<SlotValues>().expect("checked").0)
        }
        (_, Some(table)) => Ok(table),
        _ => Err(vm.type_error(format!(
            "descriptor '{}' for '{}' objects doesn't apply to a '{}' object",
            member.name.as_str(),
            member.owner,
            vm.type_name(obj)
        ))),
    }
}

fn this_member<'a>(vm: &Vm, args: &'a [Value]) -> PyResult<&'a Member> {
    args.first()
        .and_then(|v| v.native::<Member>())
        .ok_or_else(|| vm.type_error("descriptor requires a 'member_descriptor' object"))
}

fn member_get(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    let member = this_member(vm, args)?;
    let obj = args.get(1).cloned().unwrap_or(Value::None);
    if obj.is_none() {
        return Ok(args[0].clone());
    }
    let value = storage(vm, &obj, member)?
        .borrow()
        .get_str(&member.name)
        .cloned();
    value.ok_or_else(|| vm.no_attribute(&obj, &member.name))
}

fn member_set(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    let member = this_member(vm, args)?;
    let (obj, value) = (args.get(1), args.get(2));
    let (Some(obj), Some(value)) = (obj, value) else {
        return Err(vm.type_error("__set__ expected 2 arguments"));
    };
    storage(vm, obj, member)?
        .borrow_mut()
        .set_str(member.name.clone(), value.clone());
    Ok(Value::None)
}

fn member_delete(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    let member = this_member(vm, args)?;
    let obj = args.get(1).cloned().unwrap_or(Value::None);
    let removed = storage(vm, &obj, member)?
        .borrow_mut()
        .remove_str(&member.name);
    match removed {
        Some(_) => Ok(Value::None),
        None => Err(vm.attribute_error(member.name.as_str())),
    }
}

fn init(vm: &mut Vm) {
    let member = vm.types.member_descriptor.clone();
    vm.add_method(&member, "__get__", member_get);
    vm.add_method(&member, "__set__", member_set);
    vm.add_method(&member, "__delete__", member_delete);
    vm.add_method(&member, "__repr__", |vm, args, _| {
        let member = this_member(vm, args)?;
        Ok(Value::str(format!(
            "<member '{}' of '{}' objects>",
            member.name.as_str(),
            member.owner
        )))
    });
}

/// `object.__getstate__()`, CPython's `object_getstate_default`: what `copy` and `pickle`
/// save of an instance. Its `__dict__` (None when it has none or an empty one), paired
/// with a dict of the values of its slots that are set, when there are any: the slots of
/// every class of its MRO (`copyreg._slotnames`), `__dict__` and `__weakref__` aside.
pub fn object_getstate(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    crate::vm::args::check_arity(vm, "__getstate__", args, 1, 1)?;
    let obj = &args[0];
    let class = vm.type_of(obj).clone();
    let mut names: Vec<Rc<PyStr>> = Vec::new();
    let key = vm.intern("__slots__");
    for cls in class.mro() {
        // Only `__slots__` is copied out of the class's namespace, not the namespace.
        let Some(slots) = cls.dict.borrow().get_str(&key).cloned() else {
            continue;
        };
        for name in names_in(vm, &slots)? {
            if !matches!(name.as_str(), "__dict__" | "__weakref__")
                && !names.iter().any(|n| n.as_str() == name.as_str())
            {
                names.push(name);
            }
        }
    }
    let mut slots = DictTable::new();
    for name in &names {
        // A slot never set is left out (its descriptor's AttributeError).
        match vm.get_attr(obj, name) {
            Ok(value) => slots.set_str(name.clone(), value),
            Err(e) if vm.exc_matches(&e, &vm.types.attribute_error) => {}
            Err(e) => return Err(e),
        }
    }
    let dict = match obj {
        Value::Object(o) => o.dict_object(),
        _ => None,
    };
    let state = match dict {
        Some(dict) if !dict.table.borrow().is_empty() => {
            // apy keeps the slots of an instance that also has a dict in that dict: they
            // are the slots' part of the state, not the dict's.
            if names
                .iter()
                .any(|n| dict.table.borrow().get_str(n).is_some())
            {
                let mut own = dict.table.borrow().clone();
                for name in &names {
                    drop(own.remove_str(name));
                }
                Value::dict(own)
            } else {
                Value::Dict(dict)
            }
        }
        _ => Value::None,
    };
    if slots.is_empty() {
        return Ok(state);
    }
    Ok(Value::tuple(vec![state, Value::dict(slots)]))
}
