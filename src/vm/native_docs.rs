//! The `__doc__` and `__text_signature__` of apy's natives: CPython 3.13's, for the
//! built-in functions, the functions of the modules apy writes natively under CPython's
//! name, and the methods of the built-in types (`cpython_data/builtin_docs.txt`, made by
//! `tests/gen_builtin_docs.py`). A native CPython has no match for answers None.

use std::collections::HashMap;
use std::sync::OnceLock;

use super::object::NativeFunction;

/// One record a function: `\x1e` key `\x1f` text signature `\x1f` doc (see the script).
const BUILTIN_DOCS: &str = include_str!("cpython_data/builtin_docs.txt");

/// A native's text signature and doc (either may be empty), read into a table at the
/// first ask.
fn record(key: &str) -> Option<(&'static str, &'static str)> {
    static TABLE: OnceLock<HashMap<&'static str, (&'static str, &'static str)>> = OnceLock::new();
    let table = TABLE.get_or_init(|| {
        BUILTIN_DOCS
            .split('\x1e')
            .filter_map(|record| {
                let mut fields = record.splitn(3, '\x1f');
                Some((fields.next()?, (fields.next()?, fields.next()?)))
            })
            .collect()
    });
    table.get(key).copied()
}

/// The key of `native` among the records: `Type.name` for a method (the type's name
/// without its module: `deque.append`), `module.name` for a function.
fn key(native: &NativeFunction) -> Option<String> {
    let home = match (&native.owner, native.is_method) {
        (Some(owner), true) => owner.rsplit('.').next().unwrap_or(owner),
        _ => native.module.get()?,
    };
    Some(format!("{home}.{}", native.name))
}

/// `native.__doc__`, as CPython's.
pub fn doc(native: &NativeFunction) -> Option<&'static str> {
    let (_, doc) = record(&key(native)?)?;
    (!doc.is_empty()).then_some(doc)
}

/// `native.__text_signature__`, as CPython's (`($module, x, /)`).
pub fn text_signature(native: &NativeFunction) -> Option<&'static str> {
    let (signature, _) = record(&key(native)?)?;
    (!signature.is_empty()).then_some(signature)
}
