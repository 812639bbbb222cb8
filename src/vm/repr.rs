//! `repr()`, `str()`, `ascii()` and `format()` of values: the built-in reprs, dispatch to
//! `__repr__`/`__str__`/`__format__` on user classes, default `<__main__.C object at 0x…>`,
//! and `[...]` for self-containing containers. Recursion through nested containers counts
//! against the recursion limit. Mirrors `Objects/object.c` (`PyObject_Repr`, `PyObject_Str`).

use std::rc::Rc;

use crate::common::chars::{escape_non_ascii, str_repr};
use crate::common::complex_ops::complex_repr;
use crate::common::float_repr::float_repr;
use crate::common::int_ops::Int;

use super::dict::StrKeys;
use super::object::{DictViewKind, KwArgs, ModuleOrigin, ObjectKind, is_native_fn};
use super::types::{lookup, module_dict_str};
use super::value::{PyStr, Value};
use super::{PyResult, Vm};
use crate::vm::frame::GenKind;

/// What a RecursionError in a repr says CPython was doing (`PyObject_Repr`).
const REPR_DEPTH: &str = " while getting the repr of an object";

impl Vm {
    /// A module's repr from its `__spec__` (`_module_repr_from_spec`): `runpy` gives
    /// `__main__` the spec of the module it runs, whose name it shows.
    fn module_repr_from_spec(&mut self, spec: &Value) -> PyResult<String> {
        let attr = |vm: &mut Vm, name: &str| {
            let name = vm.intern(name);
            vm.get_attr(spec, &name)
        };
        let name = attr(self, "name")?;
        let name = match name.is_none() {
            true => "'?'".to_string(),
            false => self.repr(&name)?,
        };
        let origin = attr(self, "origin")?;
        if origin.is_none() {
            let loader = attr(self, "loader")?;
            return Ok(match loader.is_none() {
                true => format!("<module {name}>"),
                false => format!("<module {name} ({})>", self.repr(&loader)?),
            });
        }
        let has_location = attr(self, "has_location")?;
        Ok(match self.truthy(&has_location)? {
            true => format!("<module {name} from {}>", self.repr(&origin)?),
            false => format!("<module {name} ({})>", self.str_of(&origin)?.as_str()),
        })
    }

    /// `repr(v)`.
    pub fn repr(&mut self, v: &Value) -> PyResult<String> {
        Ok(match v {
            Value::Null => "<NULL>".into(),
            Value::None => "None".into(),
            Value::NotImplemented => "NotImplemented".into(),
            Value::Ellipsis => "Ellipsis".into(),
            Value::Bool(b) => if *b { "True" } else { "False" }.into(),
            Value::Int(n) => n.to_string(),
            Value::BigInt(n) => {
                crate::common::int_ops::bigint_to_decimal(n).map_err(|e| self.op_error(e))?
            }
            Value::Float(f) => float_repr(*f),
            Value::Str(s) => str_repr(s.as_str()),
            Value::Tuple(t) => {
                if t.items.is_empty() {
                    return Ok("()".into());
                }
                let inner = self.repr_items(v, &t.items)?;
                match inner {
                    None => "(...)".into(),
                    Some(s) if t.items.len() == 1 => format!("({s},)"),
                    Some(s) => format!("({s})"),
                }
            }
            Value::List(l) => {
                let items = l.items.borrow().clone();
                match self.repr_items(v, &items)? {
                    None => "[...]".into(),
                    Some(s) => format!("[{s}]"),
                }
            }
            Value::Dict(d) => {
                let entries: Vec<(Value, Value)> = d.table.borrow().snapshot();
                if entries.is_empty() {
                    return Ok("{}".into());
                }
                match self.guarded_repr(v, |vm| {
                    let mut parts = Vec::with_capacity(entries.len());
                    for (k, val) in &entries {
                        parts.push(format!("{}: {}", vm.repr(k)?, vm.repr(val)?));
                    }
                    Ok(parts.join(", "))
                })? {
                    None => "{...}".into(),
                    Some(s) => format!("{{{s}}}"),
                }
            }
            Value::Set(s) => {
                let keys = super::dict::set_keys(&s.table.borrow());
                let name = if s.frozen { "frozenset" } else { "set" };
                if keys.is_empty() {
                    return Ok(format!("{name}()"));
                }
                let inner = match self.repr_items(v, &keys)? {
                    None => return Ok(format!("{name}(...)")),
                    Some(inner) => inner,
                };
                if s.frozen {
                    format!("frozenset({{{inner}}})")
                } else {
                    format!("{{{inner}}}")
                }
            }
            Value::Type(t) => match self.meta_method(t, &self.names.repr.clone()) {
                Some(f) => self
                    .call_text_method(&f, v, "__repr__")?
                    .as_str()
                    .to_owned(),
                None => self.type_repr(t),
            },
            Value::Function(f) => {
                format!("<function {} at {:#x}>", f.qualname.borrow(), v.address())
            }
            Value::Object(o) => {
                let f = lookup(&o.class, &self.names.repr.clone());
                match f {
                    Some(f) if !self.is_object_repr(&f) => self
                        .call_text_method(&f, v, "__repr__")?
                        .as_str()
                        .to_owned(),
                    _ => self.builtin_object_repr(v)?,
                }
            }
        })
    }

    /// `f(v)` for a `__repr__` or `__str__` (`dunder`), which must return a str (an
    /// instance of a subclass of str is one: its text is taken).
    fn call_text_method(&mut self, f: &Value, v: &Value, dunder: &str) -> PyResult<Rc<PyStr>> {
        let doing = match dunder {
            "__str__" => " while getting the str of an object",
            _ => REPR_DEPTH,
        };
        let text = self.nested(doing, |vm| vm.call(f, std::slice::from_ref(v), &[]))?;
        let base = match &text {
            Value::Object(o) => o.builtin_base().cloned(),
            _ => None,
        };
        match (text, base) {
            (Value::Str(s), _) | (_, Some(Value::Str(s))) => Ok(s),
            (other, _) => Err(self.type_error(format!(
                "{dunder} returned non-string (type {})",
                self.type_name(&other)
            ))),
        }
    }

    fn is_object_repr(&self, f: &Value) -> bool {
        is_native_fn(f, object_repr)
    }

    /// Runs `f` unless `v` is already being repr'd further up (then `None`): the guard of
    /// `Py_ReprEnter`, for reprs that show what they contain.
    pub fn guarded_repr(
        &mut self,
        v: &Value,
        f: impl FnOnce(&mut Vm) -> PyResult<String>,
    ) -> PyResult<Option<String>> {
        let addr = v.address();
        if self.repr_stack.contains(&addr) {
            return Ok(None);
        }
        self.repr_stack.push(addr);
        let r = self.nested(REPR_DEPTH, f);
        self.repr_stack.pop();
        r.map(Some)
    }

    fn repr_items(&mut self, container: &Value, items: &[Value]) -> PyResult<Option<String>> {
        self.guarded_repr(container, |vm| {
            let mut parts = Vec::with_capacity(items.len());
            for item in items {
                parts.push(vm.repr(item)?);
            }
            Ok(parts.join(", "))
        })
    }

    /// The default repr of an object, by kind (`object.__repr__` and the built-ins' own,
    /// such as a dict view's `__repr__` slot wrapper).
    pub(crate) fn builtin_object_repr(&mut self, v: &Value) -> PyResult<String> {
        let Value::Object(o) = v else {
            return self.repr(v);
        };
        let addr = v.address();
        Ok(match &o.kind {
            ObjectKind::Native(n) => match &n.owner {
                Some(owner) if Rc::ptr_eq(&o.class, &self.types.wrapper_descriptor) => {
                    format!("<slot wrapper '{}' of '{owner}' objects>", n.name)
                }
                Some(owner) if n.is_method => format!("<method '{}' of '{owner}' objects>", n.name),
                _ => format!("<built-in function {}>", n.name),
            },
            ObjectKind::GetSet { name, owner, .. } => {
                format!("<attribute '{name}' of '{owner}' objects>")
            }
            ObjectKind::BoundMethod { func, this } => {
                let (func, this) = (func.clone(), this.clone());
                match &func {
                    Value::Object(f) if matches!(f.kind, ObjectKind::Native(_)) => {
                        let ObjectKind::Native(n) = &f.kind else {
                            unreachable!()
                        };
                        let tname = self.object_type_name(&this);
                        let what = match Rc::ptr_eq(&o.class, &self.types.method_wrapper) {
                            true => "method-wrapper",
                            false => "built-in method",
                        };
                        // (CPython quotes a method-wrapper's name.)
                        let name = match what {
                            "method-wrapper" => format!("'{}'", n.name),
                            _ => n.name.to_string(),
                        };
                        format!("<{what} {name} of {tname} object at {:#x}>", this.address())
                    }
                    _ => {
                        let qualname = self.callable_name(&func);
                        let this_repr = self.repr(&this)?;
                        format!("<bound method {qualname} of {this_repr}>")
                    }
                }
            }
            ObjectKind::Module { name, dict, origin } => {
                let spec = dict
                    .table
                    .borrow()
                    .get_str(&PyStr::new("__spec__"))
                    .cloned();
                if let Some(spec) = spec.filter(|spec| !spec.is_none()) {
                    return self.module_repr_from_spec(&spec);
                }
                let name = module_dict_str(dict, "__name__").unwrap_or_else(|| name.to_string());
                let name = self.repr(&Value::str(name))?;
                let file = dict
                    .table
                    .borrow()
                    .get_str(&PyStr::new("__file__"))
                    .cloned();
                match (origin, file) {
                    (ModuleOrigin::BuiltIn, _) => format!("<module {name} (built-in)>"),
                    (_, Some(file)) => format!("<module {name} from {}>", self.repr(&file)?),
                    (_, None) => format!("<module {name}>"),
                }
            }
            ObjectKind::Complex(z) => complex_repr(*z),
            ObjectKind::Range(r) => {
                if r.step == Int::Small(1) {
                    format!("range({}, {})", r.start, r.stop)
                } else {
                    format!("range({}, {}, {})", r.start, r.stop, r.step)
                }
            }
            ObjectKind::Slice { start, stop, step } => {
                let (a, b, c) = (start.clone(), stop.clone(), step.clone());
                format!(
                    "slice({}, {}, {})",
                    self.repr(&a)?,
                    self.repr(&b)?,
                    self.repr(&c)?
                )
            }
            ObjectKind::DictView { dict, kind } => {
                // (`dict_keys`, or an OrderedDict's `odict_keys`, …)
                let name = o.class.name();
                let items: Vec<Value> = dict
                    .table
                    .borrow()
                    .iter()
                    .map(|e| match kind {
                        DictViewKind::Keys => e.key.clone(),
                        DictViewKind::Values => e.value.clone(),
                        DictViewKind::Items => Value::tuple(vec![e.key.clone(), e.value.clone()]),
                    })
                    .collect();
                let inner = self.repr_items(v, &items)?.unwrap_or_else(|| "...".into());
                format!("{name}([{inner}])")
            }
            ObjectKind::Generator(g) => {
                let noun = match g.kind {
                    GenKind::Generator => "generator",
                    GenKind::Coroutine => "coroutine",
                    GenKind::AsyncGenerator => "async_generator",
                };
                format!("<{noun} object {} at {addr:#x}>", g.qualname)
            }
            ObjectKind::Partial { func, args, kwargs } => {
                let mut parts = vec![self.repr(&func.clone())?];
                for a in args.clone() {
                    parts.push(self.repr(&a)?);
                }
                for (k, val) in kwargs.clone() {
                    parts.push(format!("{}={}", k.as_str(), self.repr(&val)?));
                }
                format!("functools.partial({})", parts.join(", "))
            }
            ObjectKind::Super { this_class, obj } => {
                let (cls, obj) = (this_class.clone(), obj.clone());
                let obj_repr = self.repr(&obj)?;
                format!("<super: {}, {obj_repr}>", self.type_repr(&cls))
            }
            ObjectKind::Cell(c) => {
                let content = c.borrow().clone();
                if content.is_null() {
                    format!("<cell at {addr:#x}: empty>")
                } else {
                    format!(
                        "<cell at {addr:#x}: {} object at {:#x}>",
                        self.type_name(&content),
                        content.address()
                    )
                }
            }
            ObjectKind::Builtin(base) => {
                let base = base.clone();
                self.repr(&base)?
            }
            // `sm_repr` / `cm_repr`: the wrapped callable's repr inside the type's name
            // (written out, so a subclass shows it too).
            ObjectKind::StaticMethod(func) => {
                let func = func.clone();
                format!("<staticmethod({})>", self.repr(&func)?)
            }
            ObjectKind::ClassMethod(func) => {
                let func = func.clone();
                format!("<classmethod({})>", self.repr(&func)?)
            }
            ObjectKind::Code(c) => format!(
                "<code object {} at {addr:#x}, file \"{}\", line {}>",
                c.head.name, c.head.filename, c.head.first_line
            ),
            _ => {
                let module = self.type_module(&o.class);
                match module {
                    Some(m) if &*m != "builtins" => {
                        format!("<{m}.{} object at {addr:#x}>", o.class.qualname())
                    }
                    _ => format!("<{} object at {addr:#x}>", o.class.qualname()),
                }
            }
        })
    }

    /// `str(v)`.
    pub fn str_of(&mut self, v: &Value) -> PyResult<Rc<PyStr>> {
        // `str.__str__` returns the str a subclass instance extends; other built-ins
        // inherit `object.__str__`, which is `repr()` (and so any `__repr__` override).
        if let Some(base @ Value::Str(_)) = self.base_value(v, &self.names.str.clone()) {
            return self.str_of(&base);
        }
        match v {
            Value::Str(s) => Ok(s.clone()),
            Value::Object(o) => {
                let f = lookup(&o.class, &self.names.str.clone());
                match f {
                    Some(f) if !is_native_fn(&f, object_str) => {
                        self.call_text_method(&f, v, "__str__")
                    }
                    _ => Ok(Rc::new(PyStr::new(self.repr(v)?))),
                }
            }
            Value::Type(t) => match self.meta_method(t, &self.names.str.clone()) {
                Some(f) => self.call_text_method(&f, v, "__str__"),
                None => Ok(Rc::new(PyStr::new(self.repr(v)?))),
            },
            _ => Ok(Rc::new(PyStr::new(self.repr(v)?))),
        }
    }

    /// `ascii(v)`: the repr with non-ASCII characters escaped.
    pub fn ascii(&mut self, v: &Value) -> PyResult<String> {
        let r = self.repr(v)?;
        Ok(escape_non_ascii(&r))
    }

    /// `format(v, spec)`.
    pub fn format_value(&mut self, v: &Value, spec: &str) -> PyResult<Value> {
        if let Value::Object(o) = v
            && !o.class.builtin
            && let Some(f) = lookup(&o.class, &self.names.format.clone())
            && matches!(f, Value::Function(_))
        {
            return self.call(&f, &[v.clone(), Value::str(spec)], &[]);
        }
        // An empty spec is `str(v)`, of an instance of a subclass of a built-in type too
        // (its own `__str__` or `__repr__`: `format_obj` in CPython's formatters).
        if spec.is_empty() {
            return Ok(Value::Str(self.str_of(v)?));
        }
        if let Some(base) = self.base_value(v, &self.names.format.clone()) {
            return self.format_value(&base, spec);
        }
        super::format::format_spec(self, v, spec).map(Value::str)
    }
}

/// `object.__repr__`.
pub fn object_repr(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    let v = args.first().cloned().unwrap_or(Value::None);
    Ok(Value::str(vm.builtin_object_repr(&v)?))
}

/// `object.__str__`: `repr(self)`.
pub fn object_str(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    let v = args.first().cloned().unwrap_or(Value::None);
    Ok(Value::str(vm.repr(&v)?))
}
