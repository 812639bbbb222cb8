//! `import`: `IMPORT_NAME` and `IMPORT_FROM` in, module objects out, as
//! `importlib._bootstrap` does it (`__import__`, `_gcd_import`, `_handle_fromlist`,
//! `_calc___package__`) and `Python/ceval.c`'s `import_from`.
//!
//! A module is found in `sys.modules`; else made by the native module the embedder
//! registered under its name ([`Vm::register_module`]: `sys`, `asyncio`, …), or compiled
//! from the library module written in apy registered under it
//! ([`Vm::register_library_module`]: `contextlib`, …); else searched
//! for as a file: `NAME.apy`, `NAME.py`, or a package `NAME/__init__.apy`/`__init__.py`, in
//! each folder of `sys.path` (a package's submodules in its `__path__`). A file is compiled
//! through the embedder's compile hook and run once in a new module namespace, entered in
//! `sys.modules` before it runs, so that a circular import sees it partially initialised.

use std::path::PathBuf;
use std::rc::Rc;

use super::cpython_names::{OUTSIDE_THE_SUBSET, is_cpython_module, is_found_before_path};
use super::dict::StrKeys;
use super::native_docs::module_doc;
use super::object::{ModuleOrigin, NativeFunction, Object, ObjectKind};
use super::value::{PyDict, PyStr, Value};
use super::{Exc, PyResult, Vm};

/// The file names a module may have in a folder, tried in this order: apy's own extension
/// first, then Python's, then a package.
const MODULE_FILES: [&str; 4] = ["{}.apy", "{}.py", "{}/__init__.apy", "{}/__init__.py"];

impl Vm {
    /// `sys.<name>`, once the program imported `sys` (None before).
    pub fn sys_attr(&mut self, name: &str) -> Option<Value> {
        let key = self.intern("sys");
        let sys = self.modules.table.borrow().get_str(&key).cloned()?;
        let Value::Object(o) = &sys else {
            return None;
        };
        let ObjectKind::Module { dict, .. } = &o.kind else {
            return None;
        };
        let key = self.intern(name);
        dict.table.borrow().get_str(&key).cloned()
    }

    /// `IMPORT_NAME`: `__import__(name, globals, None, fromlist, level)`. Without a
    /// `fromlist` the top-level package of `name` is returned (`import a.b` binds `a`);
    /// with one, the module itself, its listed submodules imported too.
    pub fn import_name(
        &mut self,
        name: &str,
        fromlist: &Value,
        level: i64,
        globals: &PyDict,
    ) -> PyResult<Value> {
        let absolute = if level > 0 {
            let package = self.calc_package(globals)?;
            self.resolve_name(name, &package, level)?
        } else {
            if name.is_empty() {
                return Err(self.value_error("Empty module name"));
            }
            name.to_string()
        };
        let module = self.import_absolute(&absolute)?;
        let wants_names = match fromlist {
            Value::Tuple(t) => !t.items.is_empty(),
            Value::List(l) => !l.items.borrow().is_empty(),
            _ => false,
        };
        if !wants_names {
            // `import a.b.c` binds `a`: the module `name`'s first part names, relative to
            // where `absolute` starts.
            let first = name.split('.').next().unwrap_or("");
            if level == 0 || !name.is_empty() {
                let cut = name.len() - first.len();
                let top = &absolute[..absolute.len() - cut];
                return Ok(self.loaded_module(top).unwrap_or(module));
            }
            return Ok(module);
        }
        self.handle_fromlist(&module, &absolute, fromlist)?;
        Ok(module)
    }

    /// `IMPORT_FROM`: `from module import name`, as `import_from` in `Python/ceval.c`: the
    /// attribute, else the submodule `module.name` already in `sys.modules` (a circular
    /// import of a package's submodule), else ImportError.
    pub fn import_from(&mut self, module: &Value, name: &Rc<PyStr>) -> PyResult<Value> {
        // An AttributeError (from a module's `__getattr__`) becomes the ImportError below.
        if let Some(v) = self.module_attr_if_any(module, name)? {
            return Ok(v);
        }
        let module_name = self.module_attr_str(module, "__name__");
        if let Some(full) = &module_name
            && let Some(v) = self.loaded_module(&format!("{full}.{}", name.as_str()))
        {
            return Ok(v);
        }
        let shown = module_name
            .clone()
            .unwrap_or_else(|| "<unknown module name>".into());
        let path = self.module_attr_str(module, "__file__");
        let place = path.clone().unwrap_or_else(|| "unknown location".into());
        let lacking = super::attr_errors::lacked_module_name(module, name).is_some();
        let initializing = module_name
            .as_ref()
            .is_some_and(|n| self.importing.iter().any(|m| **m == **n));
        let message = if initializing {
            format!(
                "cannot import name '{}' from partially initialized module '{shown}' \
                 (most likely due to a circular import) ({place})",
                name.as_str()
            )
        } else if lacking {
            format!(
                "cannot import name '{}' from '{shown}' {}",
                name.as_str(),
                super::cpython_names::OUTSIDE_THE_SUBSET
            )
        } else {
            format!(
                "cannot import name '{}' from '{shown}' ({place})",
                name.as_str()
            )
        };
        let name_value = module_name.map_or(Value::None, Value::str);
        let path_value = path.map_or(Value::None, Value::str);
        let exc = self.import_error(
            &self.types.import_error.clone(),
            message,
            name_value,
            path_value,
        );
        if lacking {
            return Err(exc);
        }
        // traceback's "Did you mean": the closest of the module's names in sorted order,
        // the ones starting with `_` only for a name that does (`_compute_suggestion_error`).
        // That looks in `__import__(exc.name)`, which for a dotted name is the top-level
        // package (`from collections.abc import Mappin` suggests nothing in CPython).
        let top_level = shown
            .split_once('.')
            .map(|(first, _)| self.loaded_module(first));
        let searched = match &top_level {
            Some(package) => package.as_ref(),
            None => Some(module),
        };
        let mut candidates: Vec<Value> = match searched {
            Some(Value::Object(o)) => match &o.kind {
                ObjectKind::Module { dict, .. } => dict.table.borrow().keys(),
                _ => Vec::new(),
            },
            _ => Vec::new(),
        };
        let private = name.as_str().starts_with('_');
        candidates.retain(|c| private || c.as_str().is_some_and(|c| !c.starts_with('_')));
        candidates.sort_by(|a, b| a.as_str().cmp(&b.as_str()));
        Err(super::exceptions::with_suggestion(exc, name, &candidates))
    }

    /// `PyObject_GetOptionalAttr`: the attribute, or None when it is missing, also when a
    /// module's `__getattr__` says so with an AttributeError (`from m import *` where `m`
    /// has a `__getattr__` and no `__all__`).
    fn get_optional_attr(&mut self, module: &Value, name: &Rc<PyStr>) -> PyResult<Option<Value>> {
        let attribute_error = self.types.attribute_error.clone();
        match self.get_attr_opt(module, name) {
            Err(e) if self.exc_matches(&e, &attribute_error) => Ok(None),
            other => other,
        }
    }

    /// `from module import *` into `namespace` (`import_all_from` in `Python/ceval.c`): the
    /// names in `module.__all__`, or else every name of its `__dict__` not starting with `_`.
    pub(super) fn import_star(&mut self, module: &Value, namespace: &Rc<PyDict>) -> PyResult<()> {
        let all_key = self.intern("__all__");
        let (names, from_all) = match self.get_optional_attr(module, &all_key)? {
            Some(all) => (self.collect_iterable(&all)?, true),
            None => {
                let dict_key = self.names.dict.clone();
                let Some(dict) = self.get_attr_opt(module, &dict_key)? else {
                    return Err(self.import_error(
                        &self.types.import_error.clone(),
                        "from-import-* object has no __dict__ and no __all__".into(),
                        Value::None,
                        Value::None,
                    ));
                };
                (self.collect_iterable(&dict)?, false)
            }
        };
        for name in names {
            let Value::Str(name) = name else {
                let module_name = self.module_attr_str(module, "__name__").unwrap_or_default();
                let (what, place) = if from_all {
                    ("Item", "__all__")
                } else {
                    ("Key", "__dict__")
                };
                let type_name = self.type_name(&name);
                return Err(self.type_error(format!(
                    "{what} in {module_name}.{place} must be str, not {type_name}"
                )));
            };
            if !from_all && name.as_str().starts_with('_') {
                continue;
            }
            let name = self.intern(name.as_str());
            let value = self.get_attr(module, &name)?;
            match self.namespace_mapping(namespace) {
                Some(mapping) => self.mapping_store(&mapping, name, value)?,
                None => namespace.table.borrow_mut().set_str(name, value),
            }
        }
        Ok(())
    }

    /// `import name` with an absolute, possibly dotted, name (`_gcd_import`): each parent
    /// package first, then the module itself, which becomes an attribute of its parent.
    pub fn import_module(&mut self, name: &str) -> PyResult<Value> {
        self.import_absolute(name)
    }

    fn import_absolute(&mut self, name: &str) -> PyResult<Value> {
        if let Some(m) = self.loaded_module(name) {
            return self.unless_halted(name, m);
        }
        let (parent, search) = match name.rsplit_once('.') {
            Some((parent_name, _)) => {
                let parent = match self.loaded_module(parent_name) {
                    // A parent made None in sys.modules is no package (no `__path__`).
                    Some(Value::None) => {
                        let message =
                            format!("No module named '{name}'; '{parent_name}' is not a package");
                        return Err(self.module_not_found(message, name));
                    }
                    _ => self.import_absolute(parent_name)?,
                };
                // The parent's import may have imported this module already.
                if let Some(m) = self.loaded_module(name) {
                    return self.unless_halted(name, m);
                }
                match self.package_path(&parent)? {
                    Some(path) => (Some(parent), path),
                    // A library module registered under a dotted name (`collections.abc`)
                    // is a submodule even of a parent that is not a package.
                    None if self.library_modules.contains_key(name) => (Some(parent), Vec::new()),
                    None => {
                        let message = not_a_package(name, parent_name);
                        return Err(self.module_not_found(message, name));
                    }
                }
            }
            None => (None, self.search_path()),
        };
        let module = match self.locate(name, &search, parent.is_some()) {
            Some(Located::File(found)) => self.load_module_file(name, found)?,
            Some(Located::Native(make)) => {
                let module = make(self);
                // CPython's docstring, unless the module has its own.
                if let Value::Object(o) = &module
                    && let ObjectKind::Module { dict, .. } = &o.kind
                    && dict.table.borrow().get_str(&self.names.doc).is_none()
                {
                    let doc = module_doc(name).map_or(Value::None, Value::str);
                    dict.table.borrow_mut().set_str(self.names.doc.clone(), doc);
                }
                let key = self.intern(name);
                self.modules.table.borrow_mut().set_str(key, module.clone());
                module
            }
            Some(Located::Library(file, text)) => {
                self.run_module_source(name, file, text, None, ModuleOrigin::BuiltIn)?
            }
            None => {
                // A submodule of a package apy has: as CPython's package has it or not.
                let cpython_has = match name.contains('.') {
                    true => super::cpython_names::is_cpython_submodule(name),
                    false => is_cpython_module(name),
                };
                let message = match cpython_has {
                    // CPython has it: say where apy stops, after CPython's words.
                    true => format!("No module named '{name}' {OUTSIDE_THE_SUBSET}"),
                    false => format!("No module named '{name}'"),
                };
                return Err(self.module_not_found(message, name));
            }
        };
        self.bind_submodule(parent, name, module)
    }

    /// Where the module `name` comes from, found as `import` finds it but not run: a
    /// file in one of the folders of `search`, a native module (never a submodule's), or a
    /// library module. A program's own `random.py` is the `random` it imports, as on
    /// CPython's `sys.path`, unless CPython has that module built in or frozen.
    fn locate(&self, name: &str, search: &[PathBuf], submodule: bool) -> Option<Located> {
        let top = name.split('.').next().unwrap_or(name);
        let before_path = is_found_before_path(top);
        if !before_path && let Some(found) = find_module_file(name, search) {
            return Some(Located::File(found));
        }
        if let Some(&make) = self.native_modules.get(name).filter(|_| !submodule) {
            return Some(Located::Native(make));
        }
        if let Some(&(file, text)) = self.library_modules.get(name) {
            return Some(Located::Library(file, text));
        }
        match before_path {
            true => find_module_file(name, search).map(Located::File),
            false => None,
        }
    }

    /// `importlib.util.find_spec`'s question, for the `_imp` module: where the module
    /// `name` would be imported from (its package's `__path__` as `path`, else
    /// `sys.path`), as (kind, origin, the package's folder): kind `'builtin'` (origin
    /// `'built-in'`), `'frozen'` (a library module: the file tracebacks show) or `'file'`.
    pub fn locate_module(
        &self,
        name: &str,
        path: Option<&Value>,
    ) -> Option<(&'static str, String, Option<String>)> {
        let search = match path {
            Some(path) => str_items(path),
            None => self.search_path(),
        };
        let text = |p: &std::path::Path| p.to_string_lossy().into_owned();
        Some(match self.locate(name, &search, name.contains('.'))? {
            Located::File(found) => (
                "file",
                text(&found.file),
                found.package_dir.map(|d| text(&d)),
            ),
            Located::Native(_) => ("builtin", "built-in".into(), None),
            Located::Library(file, _) => ("frozen", file.into(), None),
        })
    }

    /// A submodule just imported becomes an attribute of its package (`parent`).
    fn bind_submodule(
        &mut self,
        parent: Option<Value>,
        name: &str,
        module: Value,
    ) -> PyResult<Value> {
        if let (Some(parent), Some((_, child))) = (parent, name.rsplit_once('.')) {
            let child = self.intern(child);
            self.set_attr(&parent, &child, module.clone())?;
        }
        Ok(module)
    }

    /// `module`, found in `sys.modules` as `name`, unless it is None there: a program's way
    /// of making an import fail (`_find_and_load`'s "halted").
    fn unless_halted(&mut self, name: &str, module: Value) -> PyResult<Value> {
        match module {
            Value::None => {
                let message = format!("import of {name} halted; None in sys.modules");
                Err(self.module_not_found(message, name))
            }
            module => Ok(module),
        }
    }

    /// The module `name` from `sys.modules`, if it is there.
    pub fn loaded_module(&self, name: &str) -> Option<Value> {
        self.modules
            .table
            .borrow()
            .get_str(&PyStr::new(name))
            .cloned()
    }

    /// Reads the module file `found` and runs it as module `name`.
    fn load_module_file(&mut self, name: &str, found: FoundModule) -> PyResult<Value> {
        let filename = found.file.to_string_lossy().into_owned();
        let text = match std::fs::read(&found.file) {
            Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
            Err(error) => {
                let message = format!("{error}: '{filename}'");
                return Err(self.new_exc(&self.types.os_error.clone(), message));
            }
        };
        let package_dir = found.package_dir.as_deref();
        self.run_module_source(name, &filename, &text, package_dir, ModuleOrigin::File)
    }

    /// Compiles `text` and runs it as module `name` (a package when it has a
    /// `package_dir`): entered in `sys.modules` first, taken out again if running it fails.
    fn run_module_source(
        &mut self,
        name: &str,
        filename: &str,
        text: &str,
        package_dir: Option<&std::path::Path>,
        origin: ModuleOrigin,
    ) -> PyResult<Value> {
        let code = self.compile_module(filename, text)?;
        let globals = Rc::new(PyDict {
            table: Default::default(),
        });
        // A package is its own `__package__`: a folder's `__init__`, or a library module
        // standing for one (`concurrent/futures/__init__.py`, whose `from .process import`
        // is relative to `concurrent.futures`).
        let package = match package_dir.is_some() || filename.ends_with("/__init__.py") {
            true => name.to_string(),
            false => name.rsplit_once('.').map_or("", |(p, _)| p).to_string(),
        };
        {
            let mut g = globals.table.borrow_mut();
            g.set_str(self.names.name.clone(), Value::str(name));
            g.set_str(self.names.doc.clone(), Value::None);
            g.set_str(self.intern("__package__"), Value::str(package.as_str()));
            // A library module is compiled into apy: only a file has a loader to name it.
            if origin == ModuleOrigin::File {
                let loader = self.source_file_loader(name, filename);
                g.set_str(self.intern("__loader__"), loader);
            }
            g.set_str(self.intern("__file__"), Value::str(filename));
            if let Some(dir) = package_dir {
                let dir = Value::str(dir.to_string_lossy().as_ref());
                g.set_str(self.intern("__path__"), Value::list(vec![dir]));
            } else if package == name {
                // A library package has no folder, but is a package all the same: its
                // `__path__` lets `from package import submodule` import the submodule.
                g.set_str(self.intern("__path__"), Value::list(vec![]));
            }
            // An imported module's globals name the built-ins' namespace itself.
            g.set_str(
                self.names.builtins.clone(),
                Value::Dict(self.builtins.clone()),
            );
        }
        super::teardown::watch_module(&globals);
        let module = Value::object(Object::new(
            self.types.module.clone(),
            ObjectKind::Module {
                name: name.into(),
                dict: globals.clone(),
                origin,
            },
        ));
        let key = self.intern(name);
        self.modules
            .table
            .borrow_mut()
            .set_str(key.clone(), module.clone());
        let code = self.load_code(&code);
        let mut frame = super::frame::Frame::for_module(self, code, globals);
        self.importing.push(name.into());
        let result = self.run_frame(&mut frame, None);
        self.importing.pop();
        drop(frame);
        if let super::frame::FrameResult::Err(e) = result {
            self.modules.table.borrow_mut().remove_str(&key);
            return Err(e);
        }
        // The module's code may have replaced its own entry (`sys.modules[__name__] = …`).
        Ok(self.loaded_module(name).unwrap_or(module))
    }

    /// Compiles a module's source `text`, whose file is `filename`, and keeps the text to
    /// show its lines in tracebacks: all but a frozen module's (`<frozen runpy>`), whose
    /// frames CPython shows without a line.
    pub fn compile_module(
        &mut self,
        filename: &str,
        text: &str,
    ) -> PyResult<Rc<crate::compile::Code>> {
        let mode = crate::compile::Mode::Exec;
        let code = match (self.compile)(filename, text, mode, Default::default()) {
            Ok(code) => code,
            Err(diagnostic) => return Err(self.syntax_error_from(&diagnostic, filename, text)),
        };
        if !filename.starts_with("<frozen ") {
            self.sources.insert(code.filename.clone(), text.into());
        }
        Ok(code)
    }

    /// `_handle_fromlist`: for a package, each name of `fromlist` that is not an attribute
    /// yet is imported as a submodule (a missing one is left for `IMPORT_FROM` to report).
    fn handle_fromlist(&mut self, module: &Value, name: &str, fromlist: &Value) -> PyResult<()> {
        if self.package_path(module)?.is_none() {
            return Ok(());
        }
        let items = match fromlist {
            Value::Tuple(t) => t.items.to_vec(),
            Value::List(l) => l.items.borrow().clone(),
            _ => Vec::new(),
        };
        self.import_fromlist_items(module, name, items, false)
    }

    /// The loop of `_handle_fromlist`: each name of `items` the package lacks is imported as
    /// its submodule; `*` does the same for the package's `__all__` (once: not `recursive`),
    /// so `from package import *` loads the submodules `__all__` lists.
    fn import_fromlist_items(
        &mut self,
        module: &Value,
        name: &str,
        items: Vec<Value>,
        recursive: bool,
    ) -> PyResult<()> {
        for item in items {
            let Value::Str(attr) = item else {
                let place = match recursive {
                    true => format!("{name}.__all__"),
                    false => "``from list''".to_string(),
                };
                let type_name = self.type_name(&item);
                return Err(
                    self.type_error(format!("Item in {place} must be str, not {type_name}"))
                );
            };
            if attr.as_str() == "*" {
                let all_key = self.intern("__all__");
                if !recursive && let Some(all) = self.get_optional_attr(module, &all_key)? {
                    let names = self.collect_iterable(&all)?;
                    self.import_fromlist_items(module, name, names, true)?;
                }
                continue;
            }
            // `hasattr`: an AttributeError from a module's `__getattr__` means it lacks it.
            let attribute_error = self.types.attribute_error.clone();
            match self.get_attr_opt(module, &attr) {
                Ok(Some(_)) => continue,
                Ok(None) => {}
                Err(e) if self.exc_matches(&e, &attribute_error) => {}
                Err(e) => return Err(e),
            }
            let sub = format!("{name}.{}", attr.as_str());
            if let Err(e) = self.import_absolute(&sub) {
                // Only the submodule itself being missing is left for IMPORT_FROM.
                let missing = e.class.is_subtype(&self.types.module_not_found_error)
                    && self.exc_attr_str(&e, "name").as_deref() == Some(sub.as_str());
                if !missing {
                    return Err(e);
                }
            }
        }
        Ok(())
    }

    /// `_calc___package__`: the package a relative import is relative to.
    fn calc_package(&mut self, globals: &PyDict) -> PyResult<String> {
        let table = globals.table.borrow();
        if let Some(Value::Str(p)) = table.get_str(&PyStr::new("__package__")) {
            return Ok(p.as_str().to_string());
        }
        let Some(Value::Str(name)) = table.get_str(&PyStr::new("__name__")) else {
            drop(table);
            return Err(self.new_exc(&self.types.key_error.clone(), "'__name__' not in globals"));
        };
        if table.get_str(&PyStr::new("__path__")).is_some() {
            return Ok(name.as_str().to_string());
        }
        Ok(name
            .as_str()
            .rsplit_once('.')
            .map_or("", |(p, _)| p)
            .to_string())
    }

    /// `_resolve_name`: a relative module name made absolute (`level` dots up from
    /// `package`).
    fn resolve_name(&mut self, name: &str, package: &str, level: i64) -> PyResult<String> {
        if package.is_empty() {
            return Err(self.import_error(
                &self.types.import_error.clone(),
                "attempted relative import with no known parent package".into(),
                Value::None,
                Value::None,
            ));
        }
        let parts: Vec<&str> = package.split('.').collect();
        let keep = parts.len() as i64 - (level - 1);
        if keep < 1 {
            return Err(self.import_error(
                &self.types.import_error.clone(),
                "attempted relative import beyond top-level package".into(),
                Value::None,
                Value::None,
            ));
        }
        let base = parts[..keep as usize].join(".");
        Ok(if name.is_empty() {
            base
        } else {
            format!("{base}.{name}")
        })
    }

    /// The folders a package's submodules are searched in (its `__path__`), or None for a
    /// module that is not a package.
    fn package_path(&mut self, module: &Value) -> PyResult<Option<Vec<PathBuf>>> {
        let key = self.intern("__path__");
        let path = self.module_attr_if_any(module, &key)?;
        Ok(path.map(|path| str_items(&path)))
    }

    /// `module.name` as `hasattr` sees it: None when it is missing, also when the module's
    /// own `__getattr__` refuses the name with an AttributeError.
    fn module_attr_if_any(&mut self, module: &Value, name: &Rc<PyStr>) -> PyResult<Option<Value>> {
        match self.get_attr_opt(module, name) {
            Err(e) if self.exc_matches(&e, &self.types.attribute_error) => Ok(None),
            found => found,
        }
    }

    /// The folders of `sys.path`, in order (`''` is the current directory).
    fn search_path(&self) -> Vec<PathBuf> {
        str_items(&self.sys_path)
    }

    /// A module attribute that is a string (`__name__`, `__file__`), if it is one.
    fn module_attr_str(&mut self, module: &Value, name: &str) -> Option<String> {
        let key = self.intern(name);
        match self.get_attr_opt(module, &key) {
            Ok(Some(Value::Str(s))) => Some(s.as_str().to_string()),
            _ => None,
        }
    }

    /// An exception's attribute that is a string (`name` of an ImportError).
    fn exc_attr_str(&mut self, exc: &Exc, name: &str) -> Option<String> {
        self.module_attr_str(&Value::Object(exc.clone()), name)
    }

    /// The message of the AttributeError for a module `name` lacking `attr`, as CPython's
    /// `module_getattro` words it: a module that may be the program's own file shadowing one
    /// of the standard library (its folder is `sys.path[0]`) says "consider renaming";
    /// one whose code is still running says "partially initialized … circular import", as
    /// does a package whose submodule `attr` is still running.
    pub fn module_no_attribute(&mut self, name: &str, dict: &PyDict, attr: &str) -> String {
        let file = super::types::module_dict_str(dict, "__file__");
        let plain = format!("module '{name}' has no attribute '{attr}'");
        // Only a module imported from a file has an origin (`__main__`'s spec is None).
        let origin = file.filter(|_| name != "__main__");
        let shadowing = origin
            .as_deref()
            .is_some_and(|o| self.is_possibly_shadowing(o));
        if let Some(origin) = origin
            .as_deref()
            .filter(|_| shadowing && is_cpython_module(name))
        {
            return format!(
                "{plain} (consider renaming '{origin}' since it has the same name as the \
                 standard library module named '{name}' and the import system gives it precedence)"
            );
        }
        if !self.importing.iter().any(|m| **m == *name) {
            // A package's submodule whose code is running is not its attribute yet.
            let submodule = format!("{name}.{attr}");
            if self.importing.iter().any(|m| **m == *submodule) {
                return format!(
                    "cannot access submodule '{attr}' of module '{name}' (most likely due to a \
                     circular import)"
                );
            }
            return plain;
        }
        match origin {
            Some(origin) if shadowing => format!(
                "{plain} (consider renaming '{origin}' if it has the same name as a third-party \
                 module you intended to import)"
            ),
            Some(origin) => format!(
                "partially initialized module '{name}' from '{origin}' has no attribute \
                 '{attr}' (most likely due to a circular import)"
            ),
            None => format!(
                "partially initialized module '{name}' has no attribute '{attr}' (most likely \
                 due to a circular import)"
            ),
        }
    }

    /// `_PyModule_IsPossiblyShadowing`: whether the module file `origin` (a package's
    /// `__init__.py` standing for its folder) is in `sys.path[0]`, the program's folder.
    fn is_possibly_shadowing(&self, origin: &str) -> bool {
        let origin = origin.strip_suffix("/__init__.py").unwrap_or(origin);
        let root = std::path::Path::new(origin).parent();
        let first = match &self.sys_path {
            Value::List(l) => l.items.borrow().first().cloned(),
            _ => None,
        };
        let Some(Value::Str(first)) = first else {
            return false;
        };
        let first = match first.as_str() {
            "" => std::env::current_dir().unwrap_or_default(),
            dir => PathBuf::from(dir),
        };
        root.is_some_and(|root| root == first)
    }

    fn module_not_found(&mut self, message: String, name: &str) -> Exc {
        let class = self.types.module_not_found_error.clone();
        self.import_error(&class, message, Value::str(name), Value::None)
    }

    /// An ImportError (or subclass) with its `name`, `path` and `msg` attributes set, as
    /// `ImportError(message, name=…, path=…)` makes one.
    pub fn import_error(
        &mut self,
        class: &Rc<crate::vm::object::PyType>,
        message: String,
        name: Value,
        path: Value,
    ) -> Exc {
        let exc = self.new_exc(class, message.clone());
        if let Some(attrs) = exc.attrs_to_write() {
            let mut attrs = attrs.borrow_mut();
            attrs.set_str(self.intern("name"), name);
            attrs.set_str(self.intern("path"), path);
            attrs.set_str(self.intern("msg"), Value::str(message));
            attrs.set_str(self.intern("name_from"), Value::None);
        }
        exc
    }

    /// A new module object with the given attributes.
    pub fn new_module(&mut self, name: &str, attrs: Vec<(&str, Value)>) -> Value {
        let dict = Rc::new(PyDict {
            table: Default::default(),
        });
        dict.table
            .borrow_mut()
            .set_str(self.names.name.clone(), Value::str(name));
        let module: Rc<str> = name.into();
        for (k, v) in attrs {
            NativeFunction::place_in(&v, &module);
            let key = self.intern(k);
            dict.table.borrow_mut().set_str(key, v);
        }
        super::teardown::watch_module(&dict);
        Value::object(Object::new(
            self.types.module.clone(),
            ObjectKind::Module {
                name: module,
                dict,
                origin: ModuleOrigin::BuiltIn,
            },
        ))
    }
}

/// Where a module comes from ([`Vm::locate`]).
enum Located {
    File(FoundModule),
    Native(super::ModuleMaker),
    /// The file tracebacks show and the source.
    Library(&'static str, &'static str),
}

/// A module file found on the search path.
struct FoundModule {
    file: PathBuf,
    /// The package's folder, when the file is a package's `__init__`.
    package_dir: Option<PathBuf>,
}

/// Looks for the module `name` (its last part) in each folder of `search`.
fn find_module_file(name: &str, search: &[PathBuf]) -> Option<FoundModule> {
    let last = name.rsplit('.').next().unwrap_or(name);
    for dir in search {
        // `''` is the current directory, whose modules get absolute paths, as importlib's
        // FileFinder gives them.
        let dir = match dir.as_os_str().is_empty() {
            true => &std::env::current_dir().unwrap_or_default(),
            false => dir,
        };
        for pattern in MODULE_FILES {
            let file = dir.join(pattern.replace("{}", last));
            if file.is_file() {
                let package_dir = pattern.contains('/').then(|| dir.join(last));
                return Some(FoundModule { file, package_dir });
            }
        }
    }
    None
}

/// The strings of a list or tuple (`sys.path`, a package's `__path__`), as paths.
fn str_items(v: &Value) -> Vec<PathBuf> {
    let items = match v {
        Value::List(l) => l.items.borrow().clone(),
        Value::Tuple(t) => t.items.to_vec(),
        _ => Vec::new(),
    };
    items
        .iter()
        .filter_map(|item| match item {
            Value::Str(s) => Some(PathBuf::from(s.as_str())),
            _ => None,
        })
        .collect()
}

/// The message for `import parent.name` where apy's `parent` is a plain module: CPython's
/// "not a package", unless CPython's `parent` is a package, whose submodule apy lacks (or
/// which CPython lacks too).
fn not_a_package(name: &str, parent_name: &str) -> String {
    if !super::cpython_names::is_cpython_package(parent_name) {
        return format!("No module named '{name}'; '{parent_name}' is not a package");
    }
    match super::cpython_names::is_cpython_submodule(name) {
        true => format!("No module named '{name}' {OUTSIDE_THE_SUBSET}"),
        false => format!("No module named '{name}'"),
    }
}
