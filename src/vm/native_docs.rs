//! The `__doc__` and `__text_signature__` of apy's natives: CPython 3.13's, for the
//! built-in functions, the modules apy writes natively under CPython's name and their
//! functions, the built-in types and their methods (`cpython_data/builtin_docs.txt`, made
//! by `tests/gen_builtin_docs.py`; the modules' in `cpython_data/module_docs.txt`). A
//! native CPython has no match for answers None.

use std::collections::HashMap;
use std::sync::OnceLock;

use super::object::{ObjectKind, PyType};
use super::value::Value;

/// One record a function or type: `\x1e` key `\x1f` text signature `\x1f` doc (see the
/// script); an empty field is one CPython has none of.
const BUILTIN_DOCS: &str = include_str!("cpython_data/builtin_docs.txt");

/// A record's text signature and doc, each None where CPython has none.
type Record = (Option<&'static str>, Option<&'static str>);

/// The record under `key`, the table read at the first ask.
fn record(key: &str) -> Option<Record> {
    static TABLE: OnceLock<HashMap<&'static str, Record>> = OnceLock::new();
    let given = |field: &'static str| (!field.is_empty()).then_some(field);
    let table = TABLE.get_or_init(|| {
        BUILTIN_DOCS
            .split('\x1e')
            .filter_map(|record| {
                let mut fields = record.splitn(3, '\x1f');
                let key = fields.next()?;
                Some((key, (given(fields.next()?), given(fields.next()?))))
            })
            .collect()
    });
    table.get(key).copied()
}

/// The record of a native function or method (bound or not): keyed `Type.name` for one
/// of a type (the type's name without its module: `deque.append`, `dict.fromkeys`),
/// `module.name` for a function.
fn record_of(v: &Value) -> Option<Record> {
    let Value::Object(o) = v else { return None };
    let native = match &o.kind {
        ObjectKind::Native(n) => n,
        ObjectKind::BoundMethod {
            func: Value::Object(f),
            ..
        } => match &f.kind {
            ObjectKind::Native(n) => n,
            _ => return None,
        },
        _ => return None,
    };
    let home = match &native.owner {
        Some(owner) => short_name(owner),
        None => native.module.get()?,
    };
    record(&format!("{home}.{}", native.name))
}

/// A built-in type's name without its module (`collections.deque`: `deque`).
pub fn short_name(name: &str) -> &str {
    name.rsplit('.').next().unwrap_or(name)
}

/// `__doc__` of the computed attribute `owner.name` of a built-in type (`int.real`).
pub fn attribute_doc(owner: &str, name: &str) -> Option<&'static str> {
    record(&format!("{}.{name}", short_name(owner)))?.1
}

/// `__doc__` of a native function or method, as CPython's.
pub fn doc(v: &Value) -> Option<&'static str> {
    record_of(v)?.1
}

/// `__text_signature__` of a native function or method, as CPython's (`($module, x, /)`).
pub fn text_signature(v: &Value) -> Option<&'static str> {
    record_of(v)?.0
}

/// `__doc__` of the module apy makes natively under CPython's name `module`, as CPython's:
/// from the small table of modules (each record `\x1e` module `\x1f` doc), read into an
/// index at the first native module's import, which leaves the big table unread until a
/// program asks for a function's or type's doc.
pub fn module_doc(module: &str) -> Option<&'static str> {
    static MODULES: OnceLock<HashMap<&'static str, &'static str>> = OnceLock::new();
    let modules = MODULES.get_or_init(|| {
        include_str!("cpython_data/module_docs.txt")
            .split('\x1e')
            .filter_map(|record| record.split_once('\x1f'))
            .collect()
    });
    modules.get(module).copied()
}

/// `__doc__` of a built-in type, as CPython's (without the signature it starts with).
pub fn type_doc(class: &PyType) -> Option<&'static str> {
    record(short_name(&class.name()))?.1
}

/// `__text_signature__` of a built-in type (`enumerate`: `(iterable, start=0)`).
pub fn type_text_signature(class: &PyType) -> Option<&'static str> {
    record(short_name(&class.name()))?.0
}
