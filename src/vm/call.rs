//! The call protocol: calling any value with positional and keyword arguments, binding
//! arguments to a Python function's parameters with CPython's exact TypeError messages
//! (`Python/ceval.c`'s `initialize_locals`), and instantiating classes (`type.__call__`,
//! `object.__new__`/`__init__` in `Objects/typeobject.c`).

use std::rc::Rc;

use super::dict::StrKeys;
use super::frame::Frame;

use super::object::{Function, KwArgs, Layout, NativeFn, Object, ObjectKind, PyType};
use super::types::{is_plain_method, lookup};
use super::value::{PyStr, Value};
use super::{PyResult, Vm};
use crate::vm::frame::FrameResult;
use crate::vm::frame::GenKind;

/// The native function a call of `callable` with `args` runs as [`Vm::call`] would, on
/// `args` as they are: a built-in function, or a built-in method given a `self` that is not
/// an instance (which could be of a subclass of a built-in type, whose base value the
/// method would get). None for anything else.
#[inline]
pub(super) fn plain_native(callable: &Value, args: &[Value]) -> Option<NativeFn> {
    let Value::Object(o) = callable else {
        return None;
    };
    let ObjectKind::Native(n) = &o.kind else {
        return None;
    };
    match args.first() {
        Some(Value::Object(_)) | None if n.is_method => None,
        _ => Some(n.func),
    }
}

impl Vm {
    /// `f(*args, **kw)`.
    pub fn call(&mut self, f: &Value, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
        match f {
            Value::Function(func) => {
                let locals = self.bind_args(func, args, kw)?;
                self.call_function_with_locals(func, locals)
            }
            Value::Type(t) => self.call_type(t, args, kw),
            Value::Object(o) => match &o.kind {
                ObjectKind::Native(n) => match args.first() {
                    // A built-in method called on a subclass instance works on its base value
                    // (`object`'s own methods work on the instance: its attributes, its
                    // class). One that gives back the mutable container it changed
                    // (`list.__iadd__`, `set.__ior__`) gives back the instance.
                    Some(Value::Object(this))
                        if n.is_method
                            && this.builtin_base().is_some()
                            && n.owner.as_deref() != Some("object") =>
                    {
                        let base = this.builtin_base().cloned().unwrap_or(Value::None);
                        // `super().__getitem__(k)` in a dict subclass still asks its
                        // `__missing__`: dict's method sees the instance, not just its dict.
                        if let (Value::Dict(d), "__getitem__", Some("dict"), [_, key]) =
                            (&base, n.name, n.owner.as_deref(), args)
                        {
                            return self.dict_subscript(this, d, key);
                        }
                        let mut unwrapped = args.to_vec();
                        unwrapped[0] = base.clone();
                        let result = (n.func)(self, &unwrapped, kw)?;
                        let mutable =
                            matches!(base, Value::List(_) | Value::Dict(_) | Value::Set(_));
                        Ok(if mutable && result.is(&base) {
                            args[0].clone()
                        } else {
                            result
                        })
                    }
                    // `list.append()`: a method taken from its type and called without `self`.
                    None if Rc::ptr_eq(&o.class, &self.types.wrapper_descriptor) => Err(self
                        .type_error(format!(
                            "descriptor '{}' of '{}' object needs an argument",
                            n.name,
                            n.owner.as_deref().unwrap_or("object")
                        ))),
                    None if n.is_method => Err(self.type_error(format!(
                        "unbound method {}.{}() needs an argument",
                        n.owner.as_deref().unwrap_or("object"),
                        n.name
                    ))),
                    _ => (n.func)(self, args, kw),
                },
                ObjectKind::BoundMethod { func, this } => {
                    let mut all = Vec::with_capacity(args.len() + 1);
                    all.push(this.clone());
                    all.extend_from_slice(args);
                    self.call(func, &all, kw)
                }
                ObjectKind::Partial {
                    func,
                    args: pargs,
                    kwargs,
                } => {
                    let mut all = pargs.clone();
                    all.extend_from_slice(args);
                    let mut allkw = kwargs.clone();
                    for (k, v) in kw {
                        match allkw.iter_mut().find(|(n, _)| n.as_str() == k.as_str()) {
                            Some(slot) => slot.1 = v.clone(),
                            None => allkw.push((k.clone(), v.clone())),
                        }
                    }
                    self.call(func, &all, &allkw)
                }
                // A staticmethod object is callable (3.10+): its function is called.
                ObjectKind::StaticMethod(func) => self.call(func, args, kw),
                _ => self.call_dunder_call(f, args, kw),
            },
            _ => self.call_dunder_call(f, args, kw),
        }
    }

    fn call_dunder_call(&mut self, f: &Value, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
        let ty = self.type_of(f);
        let call = if ty.builtin {
            None
        } else {
            lookup(ty, &self.names.call)
        };
        match call {
            Some(call) => self.call_slot(call, f.clone(), args, kw),
            None => {
                let name = self.object_type_name(f);
                Err(self.type_error(format!("'{name}' object is not callable")))
            }
        }
    }

    /// Runs a Python function whose fast locals are already bound: a generator function
    /// returns its generator, anything else runs to completion.
    pub fn call_function_with_locals(
        &mut self,
        func: &Rc<Function>,
        locals: Vec<Value>,
    ) -> PyResult<Value> {
        if let Some(kind) = generator_kind(func) {
            let frame = self.boxed_frame(func, locals);
            return Ok(self.new_generator(kind, frame, func));
        }
        // Built in place: a frame is too big to move around on every call.
        let mut frame = Frame::for_function(self, func, locals);
        let result = self.run_frame(&mut frame, None);
        self.recycle_frame(frame);
        match result {
            FrameResult::Returned(v) => Ok(v),
            FrameResult::Err(e) => Err(e),
            FrameResult::Yielded(_) => Err(self.runtime_error("plain function yielded")),
        }
    }

    /// Binds call arguments to `func`'s parameters: the frame's fast locals.
    pub fn bind_args(
        &mut self,
        func: &Function,
        args: &[Value],
        kw: &KwArgs,
    ) -> PyResult<Vec<Value>> {
        if kw.is_empty()
            && let Some(missing) = defaults_missing(func, args.len())
        {
            // The frame pads the rest of its locals ([`Frame::for_function`]).
            let mut locals = self.take_vec(func.code.head.frame_size());
            locals.extend_from_slice(args);
            let defaults = func.positional_defaults();
            locals.extend_from_slice(&defaults[defaults.len() - missing..]);
            return Ok(locals);
        }
        let code = &func.code.head;
        let argcount = code.argcount as usize;
        let kwonly = code.kwonlyargcount as usize;
        let posonly = code.posonlyargcount as usize;
        let mut locals = self.take_vec(code.frame_size());
        locals.resize(code.varnames.len(), Value::Null);
        let npos = args.len().min(argcount);
        locals[..npos].clone_from_slice(&args[..npos]);
        let mut slot = argcount + kwonly;
        if code.flags.varargs {
            locals[slot] = Value::tuple(args[npos..].to_vec());
            slot += 1;
        }
        let mut kwdict = None;
        if code.flags.varkeywords {
            let d = Rc::new(super::value::PyDict {
                table: Default::default(),
            });
            locals[slot] = Value::Dict(d.clone());
            kwdict = Some(d);
        }
        for (name, value) in kw {
            let found = func.code.varnames[posonly..argcount + kwonly]
                .iter()
                .position(|v| Rc::ptr_eq(v, name) || v.as_str() == name.as_str())
                .map(|i| i + posonly);
            match found {
                Some(j) => {
                    if !locals[j].is_null() {
                        return Err(self.type_error(format!(
                            "{}() got multiple values for argument '{}'",
                            func.qualname.borrow(),
                            name.as_str()
                        )));
                    }
                    locals[j] = value.clone();
                }
                None => match &kwdict {
                    Some(d) => {
                        if d.table.borrow().get_str(name).is_some() {
                            return Err(self.type_error(format!(
                                "{}() got multiple values for keyword argument '{}'",
                                func.qualname.borrow(),
                                name.as_str()
                            )));
                        }
                        d.table.borrow_mut().set_str(name.clone(), value.clone());
                    }
                    None => {
                        if func.code.varnames[..posonly]
                            .iter()
                            .any(|v| v.as_str() == name.as_str())
                        {
                            // All of them named, in the parameters' order.
                            let passed: Vec<&str> = func.code.varnames[..posonly]
                                .iter()
                                .map(|v| v.as_str())
                                .filter(|v| kw.iter().any(|(name, _)| name.as_str() == *v))
                                .collect();
                            return Err(self.type_error(format!(
                                "{}() got some positional-only arguments passed as keyword arguments: '{}'",
                                func.qualname.borrow(),
                                passed.join(", ")
                            )));
                        }
                        let candidates = func.code.varnames[posonly..argcount + kwonly]
                            .iter()
                            .map(|v| v.as_str());
                        let hint =
                            match crate::common::suggestions::suggest(name.as_str(), candidates) {
                                Some(close) => format!(". Did you mean '{close}'?"),
                                None => String::new(),
                            };
                        return Err(self.type_error(format!(
                            "{}() got an unexpected keyword argument '{}'{hint}",
                            func.qualname.borrow(),
                            name.as_str()
                        )));
                    }
                },
            }
        }
        // Checked after the keywords, as `initialize_locals` does.
        if args.len() > argcount && !code.flags.varargs {
            return Err(self.too_many_positional(func, args.len(), kw));
        }
        // Defaults for missing positional parameters.
        if npos < argcount {
            let defaults = func.positional_defaults();
            let first_default = argcount - defaults.len();
            let mut missing = Vec::new();
            for (i, slot) in locals.iter_mut().enumerate().take(argcount).skip(npos) {
                if slot.is_null() {
                    if i >= first_default {
                        *slot = defaults[i - first_default].clone();
                    } else {
                        missing.push(func.code.varnames[i].clone());
                    }
                }
            }
            if !missing.is_empty() {
                return Err(self.missing_args(func, &missing, "positional"));
            }
        }
        if kwonly > 0 {
            let mut missing = Vec::new();
            for (i, slot) in locals
                .iter_mut()
                .enumerate()
                .take(argcount + kwonly)
                .skip(argcount)
            {
                if slot.is_null() {
                    let name = &func.code.varnames[i];
                    match kwdefault(func, name) {
                        Some(v) => *slot = v,
                        None => missing.push(name.clone()),
                    }
                }
            }
            if !missing.is_empty() {
                return Err(self.missing_args(func, &missing, "keyword-only"));
            }
        }
        Ok(locals)
    }

    fn missing_args(&self, func: &Function, missing: &[Rc<PyStr>], kind: &str) -> super::Exc {
        let names: Vec<&str> = missing.iter().map(|n| n.as_str()).collect();
        self.type_error(missing_arguments_text(
            &func.qualname.borrow(),
            &names,
            kind,
        ))
    }

    fn too_many_positional(&self, func: &Function, given: usize, kw: &KwArgs) -> super::Exc {
        let code = &func.code.head;
        let argcount = code.argcount as usize;
        let kwonly = &func.code.varnames[argcount..argcount + code.kwonlyargcount as usize];
        let kwonly_given = kw
            .iter()
            .filter(|(name, _)| kwonly.iter().any(|v| v.as_str() == name.as_str()))
            .count();
        self.type_error(too_many_positional_text(
            &func.qualname.borrow(),
            argcount,
            func.positional_defaults().len(),
            given,
            kwonly_given,
        ))
    }

    /// `cls(*args, **kw)`: its metaclass's `__call__` when that is not `type.__call__`,
    /// else [`Vm::type_call`].
    pub fn call_type(&mut self, cls: &Rc<PyType>, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
        if let Some(call) = self.meta_call(cls) {
            return self.call_slot(call, Value::Type(cls.clone()), args, kw);
        }
        self.type_call(cls, args, kw)
    }

    /// Calls `call`, the `__call__` (or `__hash__`) found on `obj`'s type, as
    /// `slot_tp_call` does: a function (or native method) with `obj` first; anything else
    /// bound as a descriptor (`__call__ = dict` on a metaclass is called as it is).
    pub(super) fn call_slot(
        &mut self,
        call: Value,
        obj: Value,
        args: &[Value],
        kw: &KwArgs,
    ) -> PyResult<Value> {
        if is_plain_method(&call) {
            let mut all = Vec::with_capacity(args.len() + 1);
            all.push(obj);
            all.extend_from_slice(args);
            return self.call(&call, &all, kw);
        }
        let bound = self.bind_to_instance(call, &obj)?;
        self.call(&bound, args, kw)
    }

    /// The `__call__` of `cls`'s metaclass when it overrides `type.__call__` (which makes
    /// the instance with `__new__` and `__init__`).
    pub fn meta_call(&self, cls: &PyType) -> Option<Value> {
        let meta = cls.meta.as_ref()?;
        lookup(meta, &self.names.call).filter(|call| !self.is_native(call, type_dunder_call))
    }

    /// `type.__call__(cls, *args, **kw)`: `__new__` then `__init__`.
    pub fn type_call(&mut self, cls: &Rc<PyType>, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
        if Rc::ptr_eq(cls, &self.types.type_) && args.len() == 1 && kw.is_empty() {
            return Ok(Value::Type(self.type_of(&args[0]).clone()));
        }
        let new = lookup(cls, &self.names.new).unwrap_or(Value::None);
        let obj = if self.is_native(&new, object_new) {
            if cls.builtin && !Rc::ptr_eq(cls, &self.types.object) {
                // A built-in type with no constructor (`tp_new` NULL): an iterator, a frame.
                let name = cls.name();
                return Err(self.type_error(format!("cannot create '{name}' instances")));
            }
            if cls.abstract_.get() {
                return Err(self.abstract_instance_error(cls));
            }
            self.new_instance(cls)
        } else if self.is_native(&new, super::exceptions::exc_new) && !cls.builtin {
            Value::Object(self.new_exc_args(cls, args.to_vec()))
        } else {
            let new = match &new {
                Value::Object(o) => match &o.kind {
                    ObjectKind::StaticMethod(f) => f.clone(),
                    _ => new.clone(),
                },
                _ => new.clone(),
            };
            let mut all = Vec::with_capacity(args.len() + 1);
            all.push(Value::Type(cls.clone()));
            all.extend_from_slice(args);
            self.call(&new, &all, kw)?
        };
        if cls.builtin || cls.init_in_new.get() {
            // Built-in constructors do all their work in `__new__`.
            return Ok(obj);
        }
        let obj = if !self.type_of(&obj).is_subtype(cls) {
            let base = self.type_of(&obj).clone();
            if !(base.builtin && cls.is_subtype(&base)) {
                return Ok(obj);
            }
            instance_of_subclass(cls, obj)
        } else {
            obj
        };
        let obj_type = self.type_of(&obj).clone();
        let init = lookup(&obj_type, &self.names.init).unwrap_or(Value::None);
        if self.is_native(&init, object_init) {
            if (!args.is_empty() || !kw.is_empty()) && self.is_native(&new, object_new) {
                return Err(self.type_error(format!("{}() takes no arguments", cls.name())));
            }
            return Ok(obj);
        }
        if self.is_native(&init, super::exceptions::exc_init) && !cls.builtin {
            return Ok(obj);
        }
        let result = match &init {
            Value::Function(f) => {
                let mut all = Vec::with_capacity(args.len() + 1);
                all.push(obj.clone());
                all.extend_from_slice(args);
                let locals = self.bind_args(f, &all, kw)?;
                self.call_function_with_locals(f, locals)?
            }
            _ => {
                let mut all = Vec::with_capacity(args.len() + 1);
                all.push(obj.clone());
                all.extend_from_slice(args);
                self.call(&init, &all, kw)?
            }
        };
        self.init_result(result, obj)
    }

    /// "Can't instantiate abstract class Shape without an implementation for abstract
    /// method 'area'" (`object_new`), naming the class's `__abstractmethods__` in order.
    #[cold]
    fn abstract_instance_error(&mut self, cls: &Rc<PyType>) -> super::Exc {
        let key = self.intern("__abstractmethods__");
        let names = match lookup(cls, &key) {
            Some(v) => self.collect_iterable(&v),
            None => Ok(Vec::new()),
        };
        let mut names: Vec<String> = match names {
            Ok(names) => names
                .iter()
                .filter_map(|n| n.as_str().map(str::to_string))
                .collect(),
            Err(e) => return e,
        };
        names.sort();
        let method = if names.len() == 1 {
            "method"
        } else {
            "methods"
        };
        self.type_error(format!(
            "Can't instantiate abstract class {} without an implementation for abstract {method} '{}'",
            cls.name(),
            names.join("', '")
        ))
    }

    /// What a class call evaluates to once `__init__` returned `returned` on `instance`.
    pub fn init_result(&self, returned: Value, instance: Value) -> PyResult<Value> {
        if !returned.is_none() {
            return Err(self.type_error(format!(
                "__init__() should return None, not '{}'",
                self.type_name(&returned)
            )));
        }
        Ok(instance)
    }

    pub fn is_native(&self, v: &Value, f: super::object::NativeFn) -> bool {
        match v {
            Value::Object(o) => match &o.kind {
                ObjectKind::StaticMethod(inner) => self.is_native(inner, f),
                _ => super::object::is_native_fn(v, f),
            },
            _ => false,
        }
    }

    /// `callable(v)` (`PyCallable_Check`): a function, a class, a built-in, a bound method,
    /// a partial, or an instance whose class has `__call__`.
    pub fn is_callable(&self, v: &Value) -> bool {
        match v {
            Value::Function(_) | Value::Type(_) => true,
            Value::Object(o) => {
                matches!(
                    o.kind,
                    ObjectKind::Native(_)
                        | ObjectKind::BoundMethod { .. }
                        | ObjectKind::Partial { .. }
                        | ObjectKind::StaticMethod(_)
                ) || lookup(&o.class, &self.names.call).is_some()
            }
            _ => false,
        }
    }

    /// A fresh instance of a user class (`object.__new__(cls)`).
    pub fn new_instance(&self, cls: &Rc<PyType>) -> Value {
        match cls.layout {
            Layout::Exception => Value::Object(self.new_exc_args(cls, vec![])),
            _ if Rc::ptr_eq(cls, &self.types.object) => {
                Value::object(Object::new(cls.clone(), ObjectKind::Bare))
            }
            _ if cls.no_dict => Value::object(Object::new(
                cls.clone(),
                ObjectKind::Other(Box::<super::slots::SlotValues>::default()),
            )),
            _ => Value::object(Object::plain(cls.clone())),
        }
    }
}

/// `type.__call__(cls, *args, **kw)`, which a metaclass's `__call__` reaches with
/// `super().__call__(*args)`.
pub fn type_dunder_call(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    match args.first() {
        Some(Value::Type(cls)) => vm.type_call(&cls.clone(), &args[1..], kw),
        Some(other) => Err(vm.type_error(format!(
            "descriptor '__call__' requires a 'type' object but received a '{}'",
            vm.type_name(other)
        ))),
        None => Err(vm.type_error("unbound method type.__call__() needs an argument")),
    }
}

/// `object.__new__(cls, *args)`.
pub fn object_new(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let Some(Value::Type(cls)) = args.first() else {
        return Err(vm.type_error("object.__new__(X): X is not a type object"));
    };
    if cls.layout == Layout::Builtin {
        return Err(vm.type_error(format!(
            "object.__new__({}) is not safe, use {}.__new__()",
            cls.name(),
            cls.name()
        )));
    }
    if args.len() > 1 || !kw.is_empty() {
        let init = lookup(cls, &vm.names.init).unwrap_or(Value::None);
        if vm.is_native(&init, object_init) {
            return Err(vm.type_error(format!("{}() takes no arguments", cls.name())));
        }
    }
    if cls.abstract_.get() {
        return Err(vm.abstract_instance_error(cls));
    }
    Ok(vm.new_instance(cls))
}

/// `object.__init__(self, *args)`.
pub fn object_init(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    if args.len() > 1 || !kw.is_empty() {
        let ty = vm.type_of(&args[0]).clone();
        let init = lookup(&ty, &vm.names.init).unwrap_or(Value::None);
        let new = lookup(&ty, &vm.names.new).unwrap_or(Value::None);
        if !vm.is_native(&init, object_init) {
            return Err(vm.type_error(
                "object.__init__() takes exactly one argument (the instance to initialize)",
            ));
        }
        if vm.is_native(&new, object_new) {
            return Err(vm.type_error(format!("{}() takes no arguments", ty.name())));
        }
    }
    Ok(Value::None)
}

/// The default of `func`'s keyword-only parameter `name`, if it has one.
fn kwdefault(func: &Function, name: &PyStr) -> Option<Value> {
    let kwdefaults = func.kwdefaults.borrow().clone()?;
    // (A dict being changed right now has no defaults to give, rather than a panic.)
    let table = kwdefaults.table.try_borrow().ok()?;
    table.get_str(name).cloned()
}

/// For `nargs` positional arguments and no keywords to `f`, which has only positional
/// parameters: how many of its last parameters take their defaults (None when the
/// arguments do not fit that way, and the general binding must say why).
#[inline]
fn defaults_missing(f: &Function, nargs: usize) -> Option<usize> {
    let c = &f.code.head;
    let simple = c.kwonlyargcount == 0 && !c.flags.varargs && !c.flags.varkeywords;
    let missing = (c.argcount as usize).checked_sub(nargs)?;
    (simple && missing <= f.defaults_count()).then_some(missing)
}

/// Whether a call of `f` with `nargs` positional arguments binds them as they are to its
/// first fast locals, the positional parameters after them taking their defaults (which
/// `Frame::make_cells` fills in): `f` has no keyword-only parameters, `*args` or
/// `**kwargs`, and no more positional ones than `nargs` and its defaults.
#[inline]
pub(super) fn binds_positionally(f: &Function, nargs: usize) -> bool {
    defaults_missing(f, nargs).is_some()
}

/// What calling `f` makes instead of running it: a generator, coroutine or async generator.
#[inline]
pub(super) fn generator_kind(f: &Function) -> Option<GenKind> {
    let flags = &f.code.head.flags;
    if flags.async_generator {
        Some(GenKind::AsyncGenerator)
    } else if flags.coroutine {
        Some(GenKind::Coroutine)
    } else if flags.generator {
        Some(GenKind::Generator)
    } else {
        None
    }
}

/// CPython's `missing_arguments` text: "f() missing 2 required positional arguments: 'a'
/// and 'b'" (`kind` is `positional` or `keyword-only`).
pub fn missing_arguments_text(qualname: &str, missing: &[&str], kind: &str) -> String {
    let names: Vec<String> = missing.iter().map(|n| format!("'{n}'")).collect();
    let list = match names.len() {
        1 => names[0].clone(),
        2 => format!("{} and {}", names[0], names[1]),
        n => format!("{}, and {}", names[..n - 1].join(", "), names[n - 1]),
    };
    let plural = if names.len() == 1 { "" } else { "s" };
    format!(
        "{qualname}() missing {} required {kind} argument{plural}: {list}",
        names.len()
    )
}

/// CPython's `too_many_positional` text, for a function of `argcount` positional
/// parameters (`defaults` of them with defaults) given `given` positional arguments and
/// `kwonly_given` keyword-only ones.
pub fn too_many_positional_text(
    qualname: &str,
    argcount: usize,
    defaults: usize,
    given: usize,
    kwonly_given: usize,
) -> String {
    let takes = if defaults > 0 {
        format!(
            "from {} to {argcount} positional arguments",
            argcount - defaults
        )
    } else {
        format!(
            "{argcount} positional argument{}",
            if argcount == 1 { "" } else { "s" }
        )
    };
    let given_text = if kwonly_given > 0 {
        format!(
            "{given} positional argument{} (and {kwonly_given} keyword-only argument{}) were",
            if given == 1 { "" } else { "s" },
            if kwonly_given == 1 { "" } else { "s" }
        )
    } else if given == 1 {
        format!("{given} was")
    } else {
        format!("{given} were")
    };
    format!("{qualname}() takes {takes} but {given_text} given")
}

/// An instance of `cls`, a user subclass of a built-in type, extending the built-in `value`
/// (what `list.__new__(Stack)` or `tuple.__new__(Point, values)` returns).
pub fn instance_of_subclass(cls: &Rc<PyType>, value: Value) -> Value {
    Value::object(Object::with_dict(cls.clone(), ObjectKind::Builtin(value)))
}

/// `T.__new__(cls, *args)` of a built-in value type `T` (`int`, `float`, `str`): the value
/// `make` gives for the arguments, as an instance of `cls` when `cls` is a subclass (a
/// subclass's own `__new__` calling `T.__new__(cls, v)`, as the members of an IntEnum or a
/// StrEnum with extra attributes are made).
pub fn new_builtin_value(
    vm: &mut Vm,
    base: &Rc<PyType>,
    args: &[Value],
    kw: &KwArgs,
    make: fn(&mut Vm, &[Value], &KwArgs) -> PyResult<Value>,
) -> PyResult<Value> {
    let (cls, args) = super::args::split_cls_of(vm, base, args)?;
    let value = make(vm, args, kw)?;
    if cls.builtin {
        return Ok(value);
    }
    Ok(instance_of_subclass(&cls, value))
}
