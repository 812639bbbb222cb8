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
const MODULES: [(&str, &str, &str); 10] = [
    (
        "contextlib",
        "contextlib.py",
        include_str!("contextlib.apy"),
    ),
    ("typing", "typing.py", include_str!("typing.apy")),
    ("time", "time.py", include_str!("time.apy")),
    ("_strptime", "_strptime.py", include_str!("_strptime.apy")),
    ("datetime", "datetime.py", include_str!("datetime.apy")),
    (
        "logging",
        "logging/__init__.py",
        include_str!("logging.apy"),
    ),
    ("traceback", "traceback.py", include_str!("traceback.apy")),
    ("warnings", "warnings.py", include_str!("warnings.apy")),
    ("json", "json/__init__.py", include_str!("json.apy")),
    ("argparse", "argparse.py", include_str!("argparse.apy")),
];

/// Makes every library module importable in `vm`.
pub fn install(vm: &mut Vm) {
    for (name, file, text) in MODULES {
        vm.register_library_module(name, file, text);
    }
}
