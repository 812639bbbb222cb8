//! Name lookup for the load, store and delete instructions that are not fast locals:
//! globals through their cache and then builtins (`LOAD_GLOBAL`, `LOAD_NAME`), cells
//! (`LOAD_DEREF`), `super().name` (`LOAD_SUPER_ATTR`), and the NameError/UnboundLocalError
//! they raise, with "Did you mean" suggestions. In: a frame's code and dicts; out: values.
//! Mirrors those instructions in `Python/bytecodes.c` and `super_getattro`
//! (`Objects/typeobject.c`).

use std::rc::Rc;

use super::dict::StrKeys;
use super::frame::Frame;
use super::object::{Body, CodeObj, GlobalSlot, ObjectKind};
use super::value::{PyDict, PyStr, Value};
use super::{Exc, PyResult, Vm};

impl Vm {
    /// The mapping a class body's names go to when its metaclass's `__prepare__` gave one
    /// that is not a plain dict: the body's frame has the placeholder `dict` as its
    /// `locals_dict`, and [`Vm::class_namespaces`] pairs it with the mapping. None for any
    /// other frame (and at once when no such class body runs).
    #[inline]
    pub(super) fn namespace_mapping(&self, dict: &Rc<PyDict>) -> Option<Value> {
        if self.class_namespaces.is_empty() {
            return None;
        }
        self.class_namespaces
            .iter()
            .rev()
            .find(|(placeholder, _)| Rc::ptr_eq(placeholder, dict))
            .map(|(_, mapping)| mapping.clone())
    }

    /// `LOAD_NAME` from such a mapping: its `__getitem__`, None on KeyError.
    #[cold]
    #[inline(never)]
    pub(super) fn mapping_load(
        &mut self,
        mapping: &Value,
        name: &Rc<PyStr>,
    ) -> PyResult<Option<Value>> {
        match self.get_item(mapping, &Value::Str(name.clone())) {
            Ok(v) => Ok(Some(v)),
            Err(e) if self.exc_matches(&e, &self.types.key_error.clone()) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// `STORE_NAME` into such a mapping: its `__setitem__`.
    #[cold]
    #[inline(never)]
    pub(super) fn mapping_store(
        &mut self,
        mapping: &Value,
        name: Rc<PyStr>,
        v: Value,
    ) -> PyResult<()> {
        self.set_item(mapping, &Value::Str(name), v)
    }

    /// `SETUP_ANNOTATIONS` in such a mapping: `__annotations__` made unless it is there.
    #[cold]
    #[inline(never)]
    pub(super) fn mapping_setup_annotations(
        &mut self,
        mapping: &Value,
        key: Rc<PyStr>,
    ) -> PyResult<()> {
        if self.mapping_load(mapping, &key)?.is_none() {
            let empty = Value::dict(Default::default());
            self.set_item(mapping, &Value::Str(key), empty)?;
        }
        Ok(())
    }

    /// `DELETE_NAME` from such a mapping: its `__delitem__`, a KeyError becoming the
    /// NameError.
    #[cold]
    #[inline(never)]
    pub(super) fn mapping_delete(&mut self, mapping: &Value, name: &Rc<PyStr>) -> PyResult<()> {
        match self.del_item(mapping, &Value::Str(name.clone())) {
            Err(e) if self.exc_matches(&e, &self.types.key_error.clone()) => {
                Err(self.name_error(name.as_str()))
            }
            result => result,
        }
    }

    /// `LOAD_GLOBAL` of `body.names[i]` through its cache: the value, found again at the
    /// remembered entry position when the globals did not change since (nor, for a name
    /// found in the builtins, the builtins), or looked up and remembered. None when the
    /// name is in neither dict.
    #[inline]
    pub(super) fn cached_global(&self, body: &Body, globals: &PyDict, i: usize) -> Option<Value> {
        let slot = body.global_caches().get(i)?;
        let cached = slot.get();
        // A name found in the globals shadows the builtins whatever they hold: only the
        // globals' version matters then, and the builtins dict is not even looked at.
        // SAFETY: the dicts are only read here, and the value is cloned out before
        // anything else runs (no borrow of a table outlives this block). Unguarded: the
        // hit, on every LOAD_GLOBAL, costs no update of a borrow flag.
        if let Ok(table) = unsafe { globals.table.try_borrow_unguarded() }
            && cached.globals_version == table.version()
        {
            let found = if cached.in_builtins {
                match unsafe { self.builtins.table.try_borrow_unguarded() } {
                    Ok(builtins) if cached.builtins_version == builtins.version() => {
                        builtins.entry(cached.index)
                    }
                    _ => None,
                }
            } else {
                table.entry(cached.index)
            };
            // A function (the callee of most calls, a global's or a built-in's) is cloned
            // inline, not through `Value::clone`'s out-of-line path for counted values.
            match found.map(|entry| &entry.value) {
                Some(Value::Function(f)) => return Some(Value::Function(f.clone())),
                Some(Value::Object(o)) => return Some(Value::Object(o.clone())),
                Some(v) => return Some(v.clone()),
                None => {}
            }
        }
        let globals = globals.table.borrow();
        let builtins = self.builtins.table.borrow();
        let name = body.names.get(i)?;
        let (table, in_builtins, index) = match globals.position_str(name) {
            Some(index) => (&globals, false, index),
            None => (&builtins, true, builtins.position_str(name)?),
        };
        slot.set(GlobalSlot {
            globals_version: globals.version(),
            builtins_version: builtins.version(),
            in_builtins,
            index,
        });
        table.entry(index).map(|entry| entry.value.clone())
    }

    #[inline]
    pub(super) fn load_global(&mut self, globals: &PyDict, name: &Rc<PyStr>) -> PyResult<Value> {
        if let Some(v) = globals.table.borrow().get_str(name) {
            return Ok(v.clone());
        }
        if let Some(v) = self.builtins.table.borrow().get_str(name) {
            return Ok(v.clone());
        }
        Err(self.name_error(name.as_str()))
    }

    /// Adds "Did you mean …?" to a NameError: the closest of the frame's local, global and
    /// built-in names.
    #[cold]
    /// A name no namespace mapping had: the global, else the builtin, else the NameError
    /// with its suggestion (`LOAD_NAME`, `LOAD_FROM_DICT_OR_GLOBALS`).
    pub(super) fn global_or_name_error(
        &mut self,
        frame: &Frame,
        name: &Rc<PyStr>,
    ) -> PyResult<Value> {
        match self.load_global(&frame.globals, name) {
            Ok(v) => Ok(v),
            Err(e) => Err(self.suggest_name(e, frame, name)),
        }
    }

    pub(super) fn suggest_name(&self, exc: Exc, frame: &Frame, name: &PyStr) -> Exc {
        // A built-in apy lacks is named as such, not answered with a near miss.
        if super::cpython_names::is_builtin_apy_lacks(name.as_str()) {
            return exc;
        }
        // In a method, CPython first tries the instance: `self.<name>`.
        if self.self_has_attribute(frame, name)
            && let Some(d) = exc.exc_data()
        {
            d.borrow_mut().suggestion = Some(format!("self.{}", name.as_str()));
            return exc;
        }
        let mut candidates: Vec<Value> = Vec::new();
        for (slot, var) in frame.locals().iter().zip(frame.code.varnames.iter()) {
            if !slot.is_null() {
                candidates.push(Value::Str(var.clone()));
            }
        }
        if let Some(d) = &frame.locals_dict {
            candidates.extend(d.table.borrow().keys());
        }
        candidates.extend(frame.globals.table.borrow().keys());
        candidates.extend(self.builtins.table.borrow().keys());
        super::exceptions::with_suggestion(exc, name, &candidates)
    }

    /// Whether `frame` has a local `self` with an attribute `name`, found without running
    /// any code (its own attributes, then its class's): CPython asks `hasattr` as it prints
    /// the error, which apy answers as it raises it.
    fn self_has_attribute(&self, frame: &Frame, name: &PyStr) -> bool {
        let varnames = frame.code.varnames.iter();
        let Some(at) = varnames
            .take(frame.locals().len())
            .position(|v| v.as_str() == "self")
        else {
            return false;
        };
        let this = &frame.locals()[at];
        if this.is_null() {
            return false;
        }
        if let Value::Object(o) = this
            && o.attr_storage()
                .is_some_and(|attrs| attrs.get(name).is_some())
        {
            return true;
        }
        let class = self.type_of(this);
        class
            .mro()
            .iter()
            .any(|t| t.dict.borrow().get_str(name).is_some())
    }

    pub(super) fn unbound_local(&self, name: &PyStr) -> Exc {
        self.new_exc(
            &self.types.unbound_local_error,
            format!(
                "cannot access local variable '{}' where it is not associated with a value",
                name.as_str()
            ),
        )
    }

    /// The value in cell `i` of `frame`, or the NameError for an unbound one.
    pub(super) fn load_deref(&self, frame: &Frame, i: usize) -> PyResult<Value> {
        let v = self.cell_get(frame.cell(i));
        if v.is_null() {
            return Err(self.unbound_deref(&frame.code, i));
        }
        Ok(v)
    }

    pub(super) fn unbound_deref(&self, code: &CodeObj, i: usize) -> Exc {
        let name = code.cellnames[i].as_str();
        if i < code.head.cellvars.len() {
            self.unbound_local(&code.cellnames[i])
        } else {
            self.new_exc(
                &self.types.name_error,
                format!("cannot access free variable '{name}' where it is not associated with a value in enclosing scope"),
            )
        }
    }

    pub fn cell_get(&self, cell: &Value) -> Value {
        match cell {
            Value::Object(o) => match &o.kind {
                ObjectKind::Cell(c) => c.borrow().clone(),
                _ => Value::Null,
            },
            _ => Value::Null,
        }
    }

    pub fn cell_set(&self, cell: &Value, v: Value) {
        if let Value::Object(o) = cell
            && let ObjectKind::Cell(c) = &o.kind
        {
            let old = c.replace(v);
            drop(old);
        }
    }

    pub(super) fn load_super(
        &mut self,
        global_super: Value,
        class: Value,
        this: Value,
        name: &Rc<PyStr>,
        is_method: bool,
    ) -> PyResult<(Value, Value)> {
        let is_builtin_super =
            matches!(&global_super, Value::Type(t) if Rc::ptr_eq(t, &self.types.super_));
        if !is_builtin_super {
            let sup = self.call(&global_super, &[class, this], &[])?;
            let attr = self.get_attr(&sup, name)?;
            return Ok((attr, Value::Null));
        }
        let Value::Type(cls) = &class else {
            return Err(
                self.type_error("super(type, obj): obj must be an instance or subtype of type")
            );
        };
        self.check_super_args(cls, &this)?;
        if is_method && !matches!(this, Value::Type(_)) {
            // Plain functions found along the MRO are returned unbound with self separately.
            let start = self.type_of(&this).mro();
            let pos = start
                .iter()
                .position(|t| Rc::ptr_eq(t, cls))
                .map_or(start.len(), |p| p + 1);
            for base in &start[pos..] {
                let found = base.dict.borrow().get_str(name).cloned();
                if let Some(attr) = found {
                    if matches!(attr, Value::Function(_)) {
                        return Ok((attr, this));
                    }
                    break;
                }
            }
        }
        match self.super_lookup(cls, &this, name)? {
            Some(v) => Ok((v, Value::Null)),
            None => Err(self.attribute_error(format!(
                "'super' object has no attribute '{}'",
                name.as_str()
            ))),
        }
    }

    pub fn check_super_args(
        &mut self,
        cls: &Rc<super::object::PyType>,
        this: &Value,
    ) -> PyResult<()> {
        let ok = match this {
            Value::Type(t) => t.is_subtype(cls) || self.type_of(this).is_subtype(cls),
            other => self.type_of(other).is_subtype(cls),
        };
        if ok {
            return Ok(());
        }
        // CPython's `supercheck` words it with the types' tp_names.
        let (what, name) = match this {
            Value::Type(t) => ("type", self.tp_name(t)),
            other => ("instance of", self.object_type_name(other)),
        };
        Err(self.type_error(format!(
            "super(type, obj): obj ({what} {name}) is not an instance or subtype of type ({}).",
            self.tp_name(cls)
        )))
    }
}
