//! The loaders a module's `__loader__` names: `BuiltinImporter` (`Lib/importlib/_bootstrap.py`),
//! `__main__`'s for `-c`, standard input and the prompt, and `SourceFileLoader`
//! (`_bootstrap_external.py`), a script's and every module's imported from a file. Native,
//! and each class made on its first use, so that a start-up compiles nothing for them;
//! `importlib.machinery` takes them from `_imp`. They say where a module came from: apy's
//! import system (`vm::import`) does not load through them.

use std::rc::Rc;

use super::args::Signature;
use super::object::{KwArgs, Layout, NativeFn, Object, PyType};
use super::types::make_type;
use super::value::Value;
use super::{PyResult, Vm};

/// `SourceFileLoader`'s methods (those of `FileLoader` and `SourceLoader` a program reads).
const SOURCE_FILE_METHODS: &[(&str, NativeFn)] = &[
    ("__init__", init),
    ("__eq__", eq),
    ("__hash__", hash),
    ("get_filename", get_filename),
    ("get_data", get_data),
    ("get_source", get_source),
    ("get_code", get_code),
    ("is_package", is_package),
];

impl Vm {
    /// `SourceFileLoader(name, path)`: the `__loader__` of the module `name` run from the
    /// file `path`.
    pub fn source_file_loader(&mut self, name: &str, path: &str) -> Value {
        let loader = Object::plain(self.source_file_loader_type());
        for (attr, value) in [("name", name), ("path", path)] {
            let attr = self.intern(attr);
            // (A plain instance of a class without `__slots__` takes any attribute.)
            let _ = loader.set_instance_attr(&attr, Value::str(value));
        }
        Value::object(loader)
    }

    /// The class `_frozen_importlib_external.SourceFileLoader`.
    pub fn source_file_loader_type(&mut self) -> Rc<PyType> {
        if let Some(class) = &self.loaders.source_file {
            return class.clone();
        }
        let doc = "Concrete implementation of SourceLoader using the file system.";
        let class = self.loader_class("SourceFileLoader", "_frozen_importlib_external", doc);
        self.add_methods(&class, SOURCE_FILE_METHODS);
        self.loaders.source_file = Some(class.clone());
        class
    }

    /// The class `_frozen_importlib.BuiltinImporter`, whose methods are class and static
    /// methods: the class itself is the loader.
    pub fn builtin_importer(&mut self) -> Rc<PyType> {
        if let Some(class) = &self.loaders.builtin_importer {
            return class.clone();
        }
        let doc = "Meta path import for built-in modules.\n\nAll methods are either class or \
                   static methods to avoid the need to\ninstantiate the class.\n\n";
        let class = self.loader_class("BuiltinImporter", "_frozen_importlib", doc);
        self.set_type_attr(&class, "_ORIGIN", Value::str(BUILT_IN));
        self.add_class_method(&class, "find_spec", find_spec);
        // No built-in module is a package, nor has source.
        self.add_class_method(&class, "is_package", |vm, args, kw| {
            const SIGNATURE: Signature =
                Signature::keywords("BuiltinImporter", "is_package", &["fullname"], 1, 0);
            SIGNATURE.bind(vm, args.get(1..).unwrap_or_default(), kw)?;
            Ok(Value::Bool(false))
        });
        self.add_class_method(&class, "get_source", |vm, args, kw| {
            const SIGNATURE: Signature =
                Signature::keywords("BuiltinImporter", "get_source", &["fullname"], 1, 0);
            SIGNATURE.bind(vm, args.get(1..).unwrap_or_default(), kw)?;
            Ok(Value::None)
        });
        self.loaders.builtin_importer = Some(class.clone());
        class
    }

    /// A class of `module` named `name`, with its docstring, that programs may subclass.
    fn loader_class(&mut self, name: &str, module: &str, doc: &str) -> Rc<PyType> {
        let class = make_type(name, vec![self.types.object.clone()], Layout::Object, false);
        self.set_type_attr(&class, "__module__", Value::str(module));
        self.set_type_attr(&class, "__doc__", Value::str(doc));
        class
    }
}

/// A built-in module's origin (`BuiltinImporter._ORIGIN`).
const BUILT_IN: &str = "built-in";

/// `BuiltinImporter.find_spec(fullname, path=None, target=None)`: a `ModuleSpec` for a
/// module built into apy, else None.
fn find_spec(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    const SIGNATURE: Signature = Signature::keywords(
        "BuiltinImporter",
        "find_spec",
        &["fullname", "path", "target"],
        1,
        0,
    );
    let Some((class, rest)) = args.split_first() else {
        return Ok(Value::None);
    };
    let bound = SIGNATURE.bind(vm, rest, kw)?;
    let name = match &bound[0] {
        Some(Value::Str(name)) => name.clone(),
        _ => return Err(vm.type_error("find_spec() argument 'fullname' must be str")),
    };
    let path = bound[1].as_ref().filter(|p| !p.is_none());
    if !matches!(vm.locate_module(name.as_str(), path), Some(("builtin", ..))) {
        return Ok(Value::None);
    }
    let machinery = vm.import_module("importlib.machinery")?;
    let spec_class = vm.intern("ModuleSpec");
    let spec_class = vm.get_attr(&machinery, &spec_class)?;
    let origin = vm.intern("origin");
    let args = [Value::Str(name), class.clone()];
    vm.call(&spec_class, &args, &[(origin, Value::str(BUILT_IN))])
}

/// `self` and the arguments after it, bound to `signature` (`SourceFileLoader.method`).
fn bind_method(
    vm: &mut Vm,
    signature: &Signature,
    args: &[Value],
    kw: &KwArgs,
) -> PyResult<(Value, Vec<Option<Value>>)> {
    let Some((this, rest)) = args.split_first() else {
        let message = format!("{}.{}() needs an argument", signature.owner, signature.name);
        return Err(vm.type_error(message));
    };
    Ok((this.clone(), signature.bind(vm, rest, kw)?))
}

/// `self` and the `fullname` of `SourceFileLoader.method(fullname)`.
fn bind_fullname(
    vm: &mut Vm,
    method: &'static str,
    args: &[Value],
    kw: &KwArgs,
) -> PyResult<(Value, Value)> {
    let signature = Signature::keywords("SourceFileLoader", method, &["fullname"], 1, 0);
    let (this, bound) = bind_method(vm, &signature, args, kw)?;
    Ok((this, bound[0].clone().unwrap_or(Value::None)))
}

/// `self.name`, `self.path`.
fn attr(vm: &mut Vm, this: &Value, name: &str) -> PyResult<Value> {
    let name = vm.intern(name);
    vm.get_attr(this, &name)
}

/// `FileLoader.__init__(self, fullname, path)`.
fn init(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    const SIGNATURE: Signature =
        Signature::keywords("SourceFileLoader", "__init__", &["fullname", "path"], 2, 0);
    let (this, bound) = bind_method(vm, &SIGNATURE, args, kw)?;
    for (attr, value) in ["name", "path"].into_iter().zip(bound) {
        let attr = vm.intern(attr);
        vm.set_attr(&this, &attr, value.unwrap_or(Value::None))?;
    }
    Ok(Value::None)
}

/// `FileLoader.__eq__`: loaders of one class with the same attributes are equal.
fn eq(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    let [this, other] = args else {
        return Ok(Value::NotImplemented);
    };
    if !Rc::ptr_eq(vm.type_of(this), vm.type_of(other)) {
        return Ok(Value::Bool(false));
    }
    let dict = vm.names.dict.clone();
    let (mine, theirs) = (vm.get_attr(this, &dict)?, vm.get_attr(other, &dict)?);
    Ok(Value::Bool(vm.eq(&mine, &theirs)?))
}

/// `FileLoader.__hash__`: `hash(self.name) ^ hash(self.path)`.
fn hash(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    let Some(this) = args.first() else {
        return Err(vm.type_error("FileLoader.__hash__() needs an argument"));
    };
    let (name, path) = (attr(vm, this, "name")?, attr(vm, this, "path")?);
    Ok(Value::Int(vm.hash(&name)? ^ vm.hash(&path)?))
}

/// `FileLoader.get_filename(name=None)`: the file's path, for the loader's own module only
/// (`_check_name`).
fn get_filename(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    const SIGNATURE: Signature =
        Signature::keywords("SourceFileLoader", "get_filename", &["name"], 0, 0);
    let (this, bound) = bind_method(vm, &SIGNATURE, args, kw)?;
    let own = attr(vm, &this, "name")?;
    if let Some(name) = bound[0].as_ref().filter(|n| !n.is_none())
        && !vm.eq(&own, name)?
    {
        let message = format!(
            "loader for {} cannot handle {}",
            vm.str_of(&own)?.as_str(),
            vm.str_of(name)?.as_str()
        );
        let class = vm.types.import_error.clone();
        return Err(vm.import_error(&class, message, name.clone(), Value::None));
    }
    attr(vm, &this, "path")
}

/// `FileLoader.get_data(path)`: the file's bytes, read as `open(path, 'rb')` reads them.
fn get_data(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    const SIGNATURE: Signature =
        Signature::keywords("SourceFileLoader", "get_data", &["path"], 1, 0);
    let (_, bound) = bind_method(vm, &SIGNATURE, args, kw)?;
    let path = bound[0].clone().unwrap_or(Value::None);
    let io = vm.import_module("io")?;
    let open = attr(vm, &io, "open")?;
    let file = vm.call(&open, &[path, Value::str("rb")], &[])?;
    let data = vm.call_method(&file, "read", &[]);
    vm.call_method(&file, "close", &[])?;
    data
}

/// `SourceLoader.get_source(fullname)`: the module's source as text, its newlines made
/// `\n` (`decode_source`); ImportError when the file cannot be read.
fn get_source(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let (this, fullname) = bind_fullname(vm, "get_source", args, kw)?;
    let path = vm.call_method(&this, "get_filename", std::slice::from_ref(&fullname))?;
    let data = match vm.call_method(&this, "get_data", &[path]) {
        Ok(data) => data,
        Err(exc) if vm.exc_matches(&exc, &vm.types.os_error.clone()) => {
            let message = "source not available through get_data()";
            let class = vm.types.import_error.clone();
            let error = vm.import_error(&class, message.into(), fullname, Value::None);
            return Err(super::exceptions::caused_by(error, exc));
        }
        Err(exc) => return Err(exc),
    };
    let text = vm.call_method(&data, "decode", &[])?;
    let text = vm.str_of(&text)?;
    Ok(Value::str(
        text.as_str().replace("\r\n", "\n").replace('\r', "\n"),
    ))
}

/// `SourceLoader.get_code(fullname)`: the module's code object, compiled from
/// `get_source(fullname)` with the file's name (`runpy` runs it).
fn get_code(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let (this, fullname) = bind_fullname(vm, "get_code", args, kw)?;
    let path = vm.call_method(&this, "get_filename", std::slice::from_ref(&fullname))?;
    let source = vm.call_method(&this, "get_source", &[fullname])?;
    let (path, source) = (vm.str_of(&path)?, vm.str_of(&source)?);
    let code = vm.compile_module(path.as_str(), source.as_str())?;
    let code = vm.load_code(&code);
    Ok(super::frames::code_value(vm, &code))
}

/// `_LoaderBasics.is_package(fullname)`: the module's file is a package's `__init__`.
fn is_package(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let (this, fullname) = bind_fullname(vm, "is_package", args, kw)?;
    let filename = vm.call_method(&this, "get_filename", std::slice::from_ref(&fullname))?;
    let filename = vm.str_of(&filename)?;
    let file = filename.as_str().rsplit('/').next().unwrap_or_default();
    let base = file.rsplit_once('.').map_or(file, |(base, _)| base);
    let fullname = vm.str_of(&fullname)?;
    let tail = fullname.as_str().rsplit('.').next().unwrap_or_default();
    Ok(Value::Bool(base == "__init__" && tail != "__init__"))
}
