//! The built-in modules apy can import: `sys` (argv, exit, stdout/stderr, recursion
//! limit), `_functools` (partial, reduce: the native core of `functools.apy`); `_inspect`
//! (under `stdlib/inspect.apy`) and `types` live in `inspect.rs`; `_time` (under
//! `stdlib/time.apy`), `random`, `math`, `itertools` and the others named in `register`
//! have files of their own; `_imp` answers `importlib.util.find_spec` (where a module
//! would be imported from). Mirrors
//! `Python/sysmodule.c`, `Modules/_functoolsmodule.c`.

use std::rc::Rc;

use crate::vm::args::{Signature, check_arity, check_kwargs};
use crate::vm::dict::StrKeys;
use crate::vm::object::{KwArgs, Object, ObjectKind};
use crate::vm::value::Value;
use crate::vm::{ModuleMaker, PyResult, Vm};

/// Registers the native modules of this folder with `vm`, each made on its first import.
pub fn register(vm: &mut Vm) {
    let modules: &[(&str, ModuleMaker)] = &[
        ("builtins", Vm::builtins_module),
        ("sys", sys_module),
        ("_time", super::time::module),
        ("_functools", functools_module),
        ("_collections", super::collections::collections_module),
        ("_heapq", super::collections::heapq_module),
        ("_bind", super::bind::module),
        ("_frames", super::frames::module),
        ("_inspect", super::inspect::inspect_module),
        ("types", super::inspect::types_module),
        ("contextvars", super::contextvars::module),
        ("math", super::math::module),
        ("cmath", super::cmath::module),
        ("random", super::random::module),
        ("itertools", super::itertools::module),
        ("gc", super::gc::module),
        ("atexit", super::atexit::module),
        ("_abc", super::abc_flags::module),
        ("io", super::io::module),
        ("posix", super::os::module),
        ("posixpath", super::os::path_module),
        ("_thread", super::thread::module),
        ("_dis", super::dis::module),
        ("_sre", super::sre::module),
        ("_weakref", super::weakref::module),
        ("_tracemalloc", super::tracemalloc::module),
        ("struct", super::struct_module::module),
        ("array", super::array::module),
        ("errno", super::errno_module::module),
        ("_signal", super::signal_module::module),
        ("binascii", super::binascii::module),
        ("unicodedata", super::unicodedata::module),
        ("_json", super::json_native::module),
        ("hashlib", super::hashlib::module),
        ("zlib", super::zlib_module::module),
        ("_imp", imp_module),
        ("_ast_tree", super::ast_module::module),
        ("faulthandler", super::faulthandler::module),
    ];
    for &(name, make) in modules {
        vm.register_module(name, make);
    }
    // Sockets, processes, users, limits and terminals, which a page in a browser does not
    // have (src/web.rs).
    #[cfg(not(target_arch = "wasm32"))]
    {
        vm.register_module("socket", super::socket::module);
        vm.register_module("select", super::select_module::module);
        vm.register_module("selectors", super::selectors::module);
        vm.register_module("_spawn", super::process::spawn_module);
        vm.register_module("pwd", super::pwd_grp::pwd_module);
        vm.register_module("grp", super::pwd_grp::grp_module);
        vm.register_module("resource", super::resource_module::module);
        vm.register_module("fcntl", super::fcntl_module::module);
        vm.register_module("termios", super::termios_module::module);
        vm.register_module("_sqlite3", super::sqlite::module);
    }
    // A page has them in name only: every socket or process is refused.
    #[cfg(target_arch = "wasm32")]
    {
        vm.register_module("socket", super::page_os::socket_module);
        vm.register_module("select", super::page_os::select_module);
        vm.register_module("selectors", super::page_os::selectors_module);
        vm.register_module("_spawn", super::page_os::spawn_module);
        vm.register_module("pwd", super::page_os::pwd_module);
        vm.register_module("grp", super::page_os::grp_module);
        vm.register_module("resource", super::page_os::resource_module);
        vm.register_module("fcntl", super::page_os::fcntl_module);
        vm.register_module("termios", super::page_os::termios_module);
    }
}

fn sys_module(vm: &mut Vm) -> Value {
    let displayhook = vm.native("displayhook", super::functions::displayhook);
    let excepthook = vm.native("excepthook", sys_excepthook);
    let breakpointhook = vm.native("breakpointhook", super::breakpoint::sys_breakpointhook);
    let [stdin, stdout, stderr] = super::std_streams::make(vm);
    let argv = Value::list(
        vm.config
            .argv
            .iter()
            .map(|a| Value::str(a.as_str()))
            .collect(),
    );
    let attrs = vec![
        ("argv", argv),
        ("path", vm.sys_path.clone()),
        ("modules", Value::Dict(vm.modules.clone())),
        // The originals stay in `__stdin__`…, for a program that replaced them to go back.
        ("__stdin__", stdin.clone()),
        ("__stdout__", stdout.clone()),
        ("__stderr__", stderr.clone()),
        ("stdin", stdin),
        ("stdout", stdout),
        ("stderr", stderr),
        ("maxsize", Value::Int(i64::MAX)),
        ("platform", Value::str("linux")),
        ("version", Value::str("3.13.0 (apy)")),
        // 3.13.0 final, as `version_info`.
        ("hexversion", Value::Int(0x030d_00f0)),
        ("api_version", Value::Int(1013)),
        ("byteorder", Value::str(byte_order())),
        ("maxunicode", Value::Int(0x10ffff)),
        ("float_repr_style", Value::str("short")),
        // The interpreter running the program: `subprocess.run([sys.executable, ...])`
        // starts another apy.
        ("executable", Value::str(executable().as_str())),
        (
            "getdefaultencoding",
            vm.native("getdefaultencoding", |vm, args, _| {
                check_arity(vm, "getdefaultencoding", args, 0, 0)?;
                Ok(Value::str("utf-8"))
            }),
        ),
        (
            "getfilesystemencoding",
            vm.native("getfilesystemencoding", |vm, args, _| {
                check_arity(vm, "getfilesystemencoding", args, 0, 0)?;
                Ok(Value::str("utf-8"))
            }),
        ),
        ("__getattr__", vm.native("__getattr__", sys_lazy_attribute)),
        ("exit", vm.native("exit", sys_exit)),
        ("displayhook", displayhook.clone()),
        ("__displayhook__", displayhook),
        ("excepthook", excepthook.clone()),
        ("breakpointhook", breakpointhook.clone()),
        ("__breakpointhook__", breakpointhook),
        ("__excepthook__", excepthook),
        (
            "set_asyncgen_hooks",
            vm.native(
                "set_asyncgen_hooks",
                crate::vm::async_gen::sys_set_asyncgen_hooks,
            ),
        ),
        (
            "get_asyncgen_hooks",
            vm.native(
                "get_asyncgen_hooks",
                crate::vm::async_gen::sys_get_asyncgen_hooks,
            ),
        ),
        (
            "get_int_max_str_digits",
            vm.native("get_int_max_str_digits", |vm, args, kw| {
                Signature::no_args("sys", "get_int_max_str_digits").check(vm, args, kw)?;
                Ok(Value::Int(crate::common::int_ops::max_str_digits() as i64))
            }),
        ),
        (
            "set_int_max_str_digits",
            vm.native("set_int_max_str_digits", sys_set_int_max_str_digits),
        ),
        (
            "getrecursionlimit",
            vm.native("getrecursionlimit", |vm, _, _| {
                Ok(Value::Int(vm.recursion_limit as i64))
            }),
        ),
        (
            "setrecursionlimit",
            vm.native("setrecursionlimit", sys_setrecursionlimit),
        ),
        (
            "getswitchinterval",
            vm.native("getswitchinterval", super::thread::getswitchinterval),
        ),
        (
            "setswitchinterval",
            vm.native("setswitchinterval", super::thread::setswitchinterval),
        ),
        (
            "exception",
            vm.native("exception", |vm, _, _| Ok(vm.current_exception())),
        ),
        ("_getframe", vm.native("_getframe", sys_getframe)),
        (
            "settrace",
            vm.native("settrace", |vm, args, kw| {
                let function = hook_arg(vm, "settrace", args, kw)?;
                vm.set_trace(function);
                Ok(Value::None)
            }),
        ),
        (
            "gettrace",
            vm.native("gettrace", |vm, args, kw| {
                Signature::no_args("sys", "gettrace").check(vm, args, kw)?;
                Ok(vm.get_trace())
            }),
        ),
        (
            "call_tracing",
            vm.native("call_tracing", |vm, args, kw| {
                check_kwargs(vm, "call_tracing", kw, &[])?;
                check_arity(vm, "call_tracing", args, 2, 2)?;
                let Value::Tuple(call_args) = &args[1] else {
                    return Err(vm.type_error(format!(
                        "call_tracing() argument 2 must be tuple, not {}",
                        vm.type_name(&args[1])
                    )));
                };
                let call_args = call_args.items.to_vec();
                vm.call_tracing(&args[0], &call_args)
            }),
        ),
        (
            "setprofile",
            vm.native("setprofile", |vm, args, kw| {
                let function = hook_arg(vm, "setprofile", args, kw)?;
                vm.set_profile(function);
                Ok(Value::None)
            }),
        ),
        (
            "getprofile",
            vm.native("getprofile", |vm, args, kw| {
                Signature::no_args("sys", "getprofile").check(vm, args, kw)?;
                Ok(vm.get_profile())
            }),
        ),
        (
            "getsizeof",
            vm.native("getsizeof", super::sizeof::getsizeof),
        ),
        (
            "_getframemodulename",
            vm.native("_getframemodulename", sys_getframemodulename),
        ),
        (
            "intern",
            vm.native("intern", |vm, args, kw| {
                check_kwargs(vm, "intern", kw, &[])?;
                check_arity(vm, "intern", args, 1, 1)?;
                match &args[0] {
                    Value::Str(s) => Ok(Value::Str(vm.intern(s.as_str()))),
                    other => Err(vm.type_error(format!(
                        "intern() argument must be str, not {}",
                        vm.type_name(other)
                    ))),
                }
            }),
        ),
        ("implementation", implementation(vm)),
        (
            "exc_info",
            vm.native("exc_info", |vm, _, _| {
                Ok(match vm.current_exception() {
                    Value::Object(e) => Value::tuple(vec![
                        Value::Type(e.class.clone()),
                        Value::Object(e.clone()),
                        vm.traceback_of(&e),
                    ]),
                    _ => Value::tuple(vec![Value::None, Value::None, Value::None]),
                })
            }),
        ),
    ];
    vm.new_module("sys", attrs)
}

/// `sys.excepthook(type, value, traceback)` (and `sys.__excepthook__`): what an exception
/// nothing caught is handed to; this default prints its traceback to `sys.stderr`.
/// (Its messages in `run.rs`'s `report_through_excepthook`, which calls a program's own.)
fn sys_excepthook(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    check_kwargs(vm, "excepthook", kw, &[])?;
    if args.len() != 3 {
        return Err(vm.type_error(format!(
            "excepthook expected 3 arguments, got {}",
            args.len()
        )));
    }
    match &args[1] {
        Value::Object(exc) if exc.exc_data().is_some() => {
            vm.print_exception_report(exc);
            Ok(Value::None)
        }
        // CPython's hook reports this on stderr, and returns.
        other => {
            let text = format!(
                "TypeError: print_exception(): Exception expected for value, {} found\n",
                vm.type_name(other)
            );
            vm.write_report(&[&text]);
            Ok(Value::None)
        }
    }
}

/// `_imp`, the import system's hook for `importlib` (`src/stdlib/importlib_util.apy`):
/// `locate(name, path=None)`, where `import` would find the module `name` without running
/// it (`Vm::locate_module`): None, or (kind, origin, the package's folder or None);
/// `get_frozen_object(name)`, the code of apy's library module `name`, and
/// `is_frozen_script(name)`, whether it has a script's part (a top-level
/// `if __name__ == "__main__":`, or it is a package's `__main__`), for `runpy`; and the
/// loader classes modules' `__loader__`s are of (`vm::loaders`), for `importlib.machinery`.
fn imp_module(vm: &mut Vm) -> Value {
    let locate = vm.native("locate", |vm, args, kw| {
        let name = module_name_arg(vm, "locate", args, kw, 2)?;
        let path = args.get(1).filter(|p| !matches!(p, Value::None));
        Ok(match vm.locate_module(name.as_str(), path) {
            None => Value::None,
            Some((kind, origin, folder)) => Value::tuple(vec![
                Value::str(kind),
                Value::str(origin),
                folder.map_or(Value::None, Value::str),
            ]),
        })
    });
    let get_frozen_object = vm.native("get_frozen_object", |vm, args, kw| {
        let name = module_name_arg(vm, "get_frozen_object", args, kw, 1)?;
        let Some(&(file, text)) = vm.library_modules.get(name.as_str()) else {
            let message = format!("No such frozen object named '{}'", name.as_str());
            let class = vm.types.import_error.clone();
            return Err(vm.import_error(&class, message, args[0].clone(), Value::None));
        };
        let code = vm.compile_module(file, text)?;
        let code = vm.load_code(&code);
        Ok(crate::vm::frames::code_value(vm, &code))
    });
    let is_frozen_script = vm.native("is_frozen_script", |vm, args, kw| {
        let name = module_name_arg(vm, "is_frozen_script", args, kw, 1)?;
        let text = vm.library_modules.get(name.as_str()).map(|&(_, text)| text);
        Ok(Value::Bool(text.is_some_and(|text| {
            name.as_str().ends_with(".__main__")
                || [
                    "\nif __name__ == \"__main__\":",
                    "\nif __name__ == '__main__':",
                ]
                .iter()
                .any(|test| text.contains(test))
        })))
    });
    let builtin_importer = Value::Type(vm.builtin_importer());
    let source_file_loader = Value::Type(vm.source_file_loader_type());
    vm.new_module(
        "_imp",
        vec![
            ("locate", locate),
            ("get_frozen_object", get_frozen_object),
            ("is_frozen_script", is_frozen_script),
            ("BuiltinImporter", builtin_importer),
            ("SourceFileLoader", source_file_loader),
        ],
    )
}

/// The module name an `_imp` function `func` takes first, of at most `most` positional
/// arguments.
fn module_name_arg<'a>(
    vm: &Vm,
    func: &str,
    args: &'a [Value],
    kw: &KwArgs,
    most: usize,
) -> PyResult<&'a Rc<crate::vm::value::PyStr>> {
    check_kwargs(vm, func, kw, &[])?;
    check_arity(vm, func, args, 1, most)?;
    match &args[0] {
        Value::Str(name) => Ok(name),
        _ => Err(vm.type_error("module name must be str")),
    }
}

/// `sys.set_int_max_str_digits(maxdigits)`: 0 (no limit) or more than 640 digits.
fn sys_set_int_max_str_digits(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    const SIGNATURE: Signature =
        Signature::keywords("sys", "set_int_max_str_digits", &["maxdigits"], 1, 0);
    let bound = SIGNATURE.bind(vm, args, kw)?;
    let limit = vm.expect_ssize(bound[0].as_ref().unwrap_or(&Value::None))?;
    if limit != 0 && !(641..).contains(&limit) {
        return Err(vm.value_error("maxdigits must be 0 or larger than 640"));
    }
    crate::common::int_ops::set_max_str_digits(limit as usize);
    Ok(Value::None)
}

/// The struct sequences of `sys` (`version_info`, `float_info`, `int_info`, `hash_info`,
/// `flags`, `thread_info`) and its tables of module names, answered by the `sys` module's own `__getattr__` on first use
/// from `_sysinfo.apy` and then kept in its namespace: made at start-up they would cost
/// every run the compiling of their classes.
fn sys_lazy_attribute(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    check_arity(vm, "__getattr__", args, 1, 1)?;
    let Value::Str(name) = &args[0] else {
        return Err(vm.type_error("attribute name must be string"));
    };
    const MADE_ON_FIRST_USE: [&str; 8] = [
        "builtin_module_names",
        "flags",
        "float_info",
        "hash_info",
        "int_info",
        "stdlib_module_names",
        "thread_info",
        "version_info",
    ];
    if !MADE_ON_FIRST_USE.contains(&name.as_str()) {
        // The generic error: its near miss, or that apy lacks what CPython's sys has.
        return match vm.loaded_module("sys") {
            Some(sys) => Err(vm.no_attribute(&sys, name)),
            None => {
                Err(vm
                    .attribute_error(format!("module 'sys' has no attribute '{}'", name.as_str())))
            }
        };
    }
    let name = vm.intern(name.as_str());
    let info = vm.import_module("_sysinfo")?;
    let value = vm.get_attr(&info, &name)?;
    if let Some(sys) = vm.loaded_module("sys") {
        vm.set_attr(&sys, &name, value.clone())?;
    }
    Ok(value)
}

/// `sys.byteorder`.
fn byte_order() -> &'static str {
    match cfg!(target_endian = "little") {
        true => "little",
        false => "big",
    }
}

/// `sys.executable`: this apy's path ('' where there is none, as in a browser).
fn executable() -> String {
    std::env::current_exe()
        .map(|path| path.to_string_lossy().into_owned())
        .unwrap_or_default()
}

fn sys_exit(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    check_kwargs(vm, "exit", kw, &[])?;
    check_arity(vm, "exit", args, 0, 1)?;
    Err(vm.new_exc_args(&vm.types.system_exit.clone(), args.to_vec()))
}

/// `sys.implementation` (PEP 421), saying honestly which interpreter runs: `name` is
/// `'apy'` and `version` apy's own, as PyPy gives its own; `cache_tag` is None, as for an
/// implementation that writes no bytecode caches. A `types.SimpleNamespace`, as CPython's.
fn implementation(vm: &mut Vm) -> Value {
    let namespace = super::namespace_type::make(vm);
    let numbers: Vec<i64> = env!("CARGO_PKG_VERSION")
        .split('.')
        .map(|n| n.parse().unwrap_or(0))
        .collect();
    let [major, minor, micro] = [0, 1, 2].map(|i| numbers.get(i).copied().unwrap_or(0));
    let version = Value::tuple(vec![
        Value::Int(major),
        Value::Int(minor),
        Value::Int(micro),
        Value::str("final"),
        Value::Int(0),
    ]);
    let hexversion = Value::Int(major << 24 | minor << 16 | micro << 8 | 0xf0);
    let attrs = [
        ("name", Value::str("apy")),
        ("cache_tag", Value::None),
        ("version", version),
        ("hexversion", hexversion),
    ];
    let kwargs: Vec<_> = attrs
        .into_iter()
        .map(|(name, value)| (vm.intern(name), value))
        .collect();
    vm.call(&Value::Type(namespace), &[], &kwargs)
        .unwrap_or(Value::None)
}

/// `sys._getframe(depth=0)`: a snapshot of the calling frame, or of one of its callers.
/// The one argument of `sys.settrace` and `sys.setprofile` (`name`): the function, or
/// None to turn the hook off.
fn hook_arg(vm: &Vm, name: &'static str, args: &[Value], kw: &KwArgs) -> PyResult<Option<Value>> {
    Signature::one("sys", name).check(vm, args, kw)?;
    Ok(Some(args[0].clone()).filter(|f| !f.is_none()))
}

fn sys_getframe(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    check_kwargs(vm, "_getframe", kw, &[])?;
    check_arity(vm, "_getframe", args, 0, 1)?;
    let depth = match args.first() {
        None => 0,
        Some(v) => vm.expect_index(v)?.max(0) as usize,
    };
    match vm.frame_object(depth) {
        Some(frame) => Ok(frame),
        None => Err(vm.value_error("call stack is not deep enough")),
    }
}

/// `sys._getframemodulename(depth=0)`: the name of the module whose code the calling frame
/// (or one of its callers) runs, as its globals name it; None past the outermost frame.
/// (`collections.namedtuple` sets a new class's `__module__` with it.)
fn sys_getframemodulename(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let depth = match (args.first(), kw.first()) {
        (Some(v), None) => v,
        (None, Some((name, v))) if name.as_str() == "depth" => v,
        (None, None) => &Value::Int(0),
        _ => {
            check_kwargs(vm, "_getframemodulename", kw, &["depth"])?;
            check_arity(vm, "_getframemodulename", args, 0, 1)?;
            &Value::Int(0)
        }
    };
    let depth = vm.expect_index(depth)?.max(0) as usize;
    let Some(frame) = vm.frame_object(depth) else {
        return Ok(Value::None);
    };
    let globals = vm.intern("f_globals");
    let globals = vm.get_attr(&frame, &globals)?;
    let name = Value::Str(vm.intern("__name__"));
    // (A module's globals without a `__name__` give None, as CPython's frame does.)
    Ok(vm.get_item(&globals, &name).unwrap_or(Value::None))
}

fn sys_setrecursionlimit(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    check_kwargs(vm, "setrecursionlimit", kw, &[])?;
    check_arity(vm, "setrecursionlimit", args, 1, 1)?;
    let n = vm.expect_c_int(&args[0])?;
    if n < 1 {
        return Err(vm.value_error("recursion limit must be greater or equal than 1"));
    }
    if (n as usize) <= vm.depth {
        return Err(vm.new_exc(
            &vm.types.recursion_error.clone(),
            format!(
                "cannot set the recursion limit to {n} at the recursion depth {}: the limit is too low",
                vm.depth
            ),
        ));
    }
    vm.recursion_limit = (n as usize).min(vm.max_recursion_limit);
    Ok(Value::None)
}

fn partial_new(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    if args.len() < 2 {
        return Err(vm.type_error("type 'partial' takes at least one argument"));
    }
    if !vm.is_callable(&args[1]) {
        return Err(vm.type_error("the first argument must be callable"));
    }
    // A partial of a partial is flattened, as CPython's `partial_new` does: one call, one
    // level of repr, however many times it was wrapped.
    let (func, mut bound, mut keywords) = match partial_parts(&args[1]) {
        Some(parts) => parts,
        None => (args[1].clone(), Vec::new(), Vec::new()),
    };
    bound.extend_from_slice(&args[2..]);
    for (name, value) in kw {
        match keywords
            .iter_mut()
            .find(|(k, _)| k.as_str() == name.as_str())
        {
            Some(slot) => slot.1 = value.clone(),
            None => keywords.push((name.clone(), value.clone())),
        }
    }
    // A partial has a `__dict__`, as CPython's does: `basetwo.__doc__ = '...'` is the
    // functools documentation's own example.
    Ok(Value::object(Object::with_dict(
        vm.types.partial.clone(),
        ObjectKind::Partial {
            func,
            args: bound,
            kwargs: keywords,
        },
    )))
}

/// `partial.__reduce__()`, so that a partial pickles (a process pool sends them to its
/// workers): `(type(p), (func, *args))`, or with keywords
/// `(_functools._partial_from_parts, (type(p), func, args, keywords))`, and the instance's
/// `__dict__` as the state when it has one. (CPython's stream sets the parts in
/// `__setstate__`; apy's partials are immutable, so they are made whole at once.)
fn partial_reduce(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    check_arity(vm, "__reduce__", args, 1, 1)?;
    let this = &args[0];
    let Some((func, bound, keywords)) = partial_parts(this) else {
        return Err(vm.type_error("__reduce__ needs a functools.partial"));
    };
    let class = Value::Type(vm.type_of(this).clone());
    let (rebuild, rebuild_args) = if keywords.is_empty() {
        let mut parts = vec![func];
        parts.extend(bound);
        (class, parts)
    } else {
        let mut table = crate::vm::value::DictTable::new();
        for (k, v) in keywords {
            table.set_str(k, v);
        }
        let module = vm.import_module("_functools")?;
        let name = vm.intern("_partial_from_parts");
        let rebuild = vm.get_attr(&module, &name)?;
        let parts = vec![class, func, Value::tuple(bound), Value::dict(table)];
        (rebuild, parts)
    };
    let mut reduced = vec![rebuild, Value::tuple(rebuild_args)];
    if let Value::Object(o) = this
        && let Some(dict) = o.dict_object()
        && !dict.table.borrow().is_empty()
    {
        reduced.push(Value::Dict(dict));
    }
    Ok(Value::tuple(reduced))
}

/// `_functools._partial_from_parts(cls, func, args, keywords)`: `cls(func, *args,
/// **keywords)`, what a pickled partial with keywords is rebuilt with.
fn partial_from_parts(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    check_arity(vm, "_partial_from_parts", args, 4, 4)?;
    let mut call_args = vec![args[1].clone()];
    call_args.extend(vm.collect_iterable(&args[2])?);
    let Value::Dict(keywords) = &args[3] else {
        return Err(vm.type_error("_partial_from_parts() needs a dict of keywords"));
    };
    let mut kw = Vec::new();
    for entry in keywords.table.borrow().iter() {
        match &entry.key {
            Value::Str(name) => kw.push((name.clone(), entry.value.clone())),
            _ => return Err(vm.type_error("keywords must be strings")),
        }
    }
    vm.call(&args[0], &call_args, &kw)
}

/// A partial's function, positional arguments and keyword arguments.
type PartialParts = (Value, Vec<Value>, Vec<(Rc<crate::vm::value::PyStr>, Value)>);

fn partial_parts(v: &Value) -> Option<PartialParts> {
    match v {
        Value::Object(o) => match &o.kind {
            ObjectKind::Partial { func, args, kwargs } => {
                Some((func.clone(), args.clone(), kwargs.clone()))
            }
            _ => None,
        },
        _ => None,
    }
}

fn functools_reduce(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    check_kwargs(vm, "reduce", kw, &[])?;
    check_arity(vm, "reduce", args, 2, 3)?;
    let it = vm.get_iter(&args[1])?;
    let mut acc = match args.get(2) {
        Some(initial) => initial.clone(),
        None => match vm.next(&it)? {
            Some(v) => v,
            None => return Err(vm.type_error("reduce() of empty iterable with no initial value")),
        },
    };
    while let Some(v) = vm.next(&it)? {
        acc = vm.call(&args[0], &[acc, v], &[])?;
    }
    Ok(acc)
}

fn functools_module(vm: &mut Vm) -> Value {
    let partial = vm.types.partial.clone();
    if partial.dict.borrow().is_empty() {
        vm.add_static(&partial, "__new__", partial_new);
        // Calls go to the object's kind directly; the attribute is for `p.__call__(…)`,
        // `hasattr(p, '__call__')` and `inspect`.
        vm.add_method(&partial, "__call__", |vm, args, kw| {
            let (this, rest) = args.split_first().unwrap_or((&Value::None, &[]));
            vm.call(this, rest, kw)
        });
        vm.add_method(&partial, "__reduce__", partial_reduce);
        vm.add_getset(
            &partial,
            "func",
            |_, v| Ok(partial_parts(v).map_or(Value::None, |p| p.0)),
            None,
        );
        vm.add_getset(
            &partial,
            "args",
            |_, v| Ok(partial_parts(v).map_or(Value::None, |p| Value::tuple(p.1))),
            None,
        );
        vm.add_getset(
            &partial,
            "keywords",
            |_, v| {
                let table = crate::vm::value::DictTable::new();
                let d = Value::dict(table);
                if let (Some((_, _, kwargs)), Value::Dict(dict)) = (partial_parts(v), &d) {
                    for (k, val) in kwargs {
                        dict.table.borrow_mut().set_str(k, val);
                    }
                }
                Ok(d)
            },
            None,
        );
    }
    let attrs = vec![
        ("partial", Value::Type(partial)),
        ("reduce", vm.native("reduce", functools_reduce)),
        (
            "_partial_from_parts",
            vm.native("_partial_from_parts", partial_from_parts),
        ),
        (
            "_lru_cache_wrapper",
            Value::Type(super::lru_cache::wrapper_type(vm)),
        ),
    ];
    vm.new_module("_functools", attrs)
}
