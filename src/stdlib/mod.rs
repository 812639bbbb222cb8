//! apy's library modules written in apy itself: those CPython writes in Python
//! (`Lib/contextlib.py`, …), kept readable here as `*.apy` files so a learner can open
//! them, embedded in the binary and compiled on their first `import` only, so start-up does
//! not grow. [`install`] registers them with a VM (`Vm::register_library_module`); the
//! import system does the rest. Tracebacks show a library frame as `NAME.py`, the file
//! CPython's frame would name.
//!
//! Native modules (those CPython writes in C, or that speed needs) live in `builtins/`;
//! asyncio has its own folder.

use crate::vm::Vm;

/// The library modules: name, the file tracebacks show, the source.
const MODULES: [(&str, &str, &str); 6] = [
    ("abc", "abc.py", include_str!("abc.apy")),
    (
        "_collections_abc",
        "_collections_abc.py",
        include_str!("_collections_abc.apy"),
    ),
    (
        "collections.abc",
        "collections/abc.py",
        include_str!("collections_abc.apy"),
    ),
    (
        "contextlib",
        "contextlib.py",
        include_str!("contextlib.apy"),
    ),
    ("enum", "enum.py", include_str!("enum.apy")),
    ("typing", "typing.py", include_str!("typing.apy")),
];

/// Makes every library module importable in `vm`.
pub fn install(vm: &mut Vm) {
    for (name, file, text) in MODULES {
        vm.register_library_module(name, file, text);
    }
}
