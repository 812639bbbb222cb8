//! Exception objects: making them (`vm.type_error(…)` and friends), `BaseException`'s
//! methods and attributes (`args`, `__cause__`, `__context__`, `__suppress_context__`,
//! `__traceback__`, `add_note`), `StopIteration.value`, `SystemExit.code`, and the
//! `except T:` match. Mirrors `Objects/exceptions.c`. Knows nothing of frames.

use std::cell::{OnceCell, RefCell};
use std::rc::Rc;

use super::args::check_kwargs;
use super::dict::StrKeys;
use super::object::{ExcData, KwArgs, Missing, Object, ObjectKind, PyType, TracebackEntry};
use super::value::{PyStr, Value};
use super::{Exc, PyResult, Vm};
use crate::syntax::ast::Span;
use crate::syntax::diagnostics::Diagnostic;

/// Where a SyntaxError made by [`Vm::syntax_error_at`] points: the source compiled, its
/// file name, and whether its columns are 0, as CPython's are for an error at the end of a
/// `single` input without a final newline (its parser's made-up NEWLINE has no column).
pub struct SyntaxErrorPlace<'a> {
    pub filename: &'a str,
    pub source: &'a str,
    pub column_zero: bool,
}

impl Vm {
    /// A new exception of type `ty` with `args`.
    pub fn new_exc_args(&self, ty: &Rc<PyType>, args: Vec<Value>) -> Exc {
        Rc::new(Object::new(
            ty.clone(),
            ObjectKind::Exception(Box::new(RefCell::new(ExcData {
                args: Value::tuple(args),
                cause: Value::None,
                context: Value::None,
                suppress_context: false,
                traceback: Vec::new(),
                suggestion: None,
                missing: None,
            }))),
        ))
    }

    pub fn new_exc(&self, ty: &Rc<PyType>, msg: impl Into<Box<str>>) -> Exc {
        self.new_exc_args(ty, vec![Value::str(msg)])
    }

    /// A new exception whose `__cause__` (and `__context__`) is `cause`, as CPython's
    /// `_PyErr_FormatFromCause` makes one.
    pub fn new_exc_from(&self, ty: &Rc<PyType>, msg: impl Into<Box<str>>, cause: Exc) -> Exc {
        caused_by(self.new_exc(ty, msg), cause)
    }

    pub fn type_error(&self, msg: impl Into<Box<str>>) -> Exc {
        self.new_exc(&self.types.type_error, msg)
    }

    pub fn value_error(&self, msg: impl Into<Box<str>>) -> Exc {
        self.new_exc(&self.types.value_error, msg)
    }

    pub fn attribute_error(&self, msg: impl Into<Box<str>>) -> Exc {
        self.new_exc(&self.types.attribute_error, msg)
    }

    pub fn index_error(&self, msg: impl Into<Box<str>>) -> Exc {
        self.new_exc(&self.types.index_error, msg)
    }

    pub fn runtime_error(&self, msg: impl Into<Box<str>>) -> Exc {
        self.new_exc(&self.types.runtime_error, msg)
    }

    pub fn overflow_error(&self, msg: impl Into<Box<str>>) -> Exc {
        self.new_exc(&self.types.overflow_error, msg)
    }

    pub fn zero_division(&self, msg: impl Into<Box<str>>) -> Exc {
        self.new_exc(&self.types.zero_division_error, msg)
    }

    /// `name 'x' is not defined`; for a built-in name CPython has and apy lacks (`memoryview`),
    /// followed by where apy stops.
    pub fn name_error(&self, name: &str) -> Exc {
        let message = match super::cpython_names::is_builtin_apy_lacks(name) {
            true => format!(
                "name '{name}' is not defined {}",
                super::cpython_names::OUTSIDE_THE_SUBSET
            ),
            false => format!("name '{name}' is not defined"),
        };
        let exc = self.new_exc(&self.types.name_error, message);
        set_missing(&exc, Value::str(name), Value::None, true);
        exc
    }

    pub fn key_error(&self, key: Value) -> Exc {
        self.new_exc_args(&self.types.key_error, vec![key])
    }

    pub fn stop_iteration(&self, value: Value) -> Exc {
        let args = if value.is_none() { vec![] } else { vec![value] };
        self.new_exc_args(&self.types.stop_iteration, args)
    }

    /// Is `exc` an instance of `ty`?
    pub fn exc_matches(&self, exc: &Exc, ty: &Rc<PyType>) -> bool {
        exc.class.is_subtype(ty)
    }

    /// Converts a raised value (`raise X` / `raise X()`) to an exception instance.
    pub fn make_raisable(&mut self, v: Value) -> PyResult<Exc> {
        match &v {
            Value::Type(t) if t.is_subtype(&self.types.base_exception) => {
                let instance = self.call(&v, &[], &[])?;
                match instance {
                    Value::Object(o) if o.exc_data().is_some() => Ok(o),
                    other => Err(self.type_error(format!(
                        "calling {} should have returned an instance of BaseException, not {}",
                        self.type_repr(t),
                        self.type_name(&other)
                    ))),
                }
            }
            Value::Object(o) if o.exc_data().is_some() => Ok(o.clone()),
            _ => Err(self.type_error("exceptions must derive from BaseException")),
        }
    }

    /// The `args` tuple's items.
    pub fn exc_args(&self, exc: &Exc) -> Vec<Value> {
        match exc.exc_data().map(|d| d.borrow().args.clone()) {
            Some(Value::Tuple(t)) => t.items.to_vec(),
            _ => vec![],
        }
    }

    /// A SyntaxError (IndentationError, TabError) for source compiled while the program
    /// runs (an imported module), as CPython makes one: `args` is `(msg, (filename, lineno,
    /// offset, text, end_lineno, end_offset))` and each is also an attribute. Offsets count
    /// characters from 1.
    pub fn syntax_error_from(
        &mut self,
        diagnostic: &Diagnostic,
        filename: &str,
        source: &str,
    ) -> Exc {
        let class = self.syntax_error_class(diagnostic);
        let place = SyntaxErrorPlace {
            filename,
            source,
            column_zero: false,
        };
        self.syntax_error_at(&class, &diagnostic.message, diagnostic.span, place)
    }

    /// The class of the SyntaxError `diagnostic` stands for (IndentationError, TabError).
    pub fn syntax_error_class(&self, diagnostic: &Diagnostic) -> Rc<PyType> {
        match diagnostic.class_name {
            "IndentationError" => self.types.indentation_error.clone(),
            "TabError" => self.types.tab_error.clone(),
            _ => self.types.syntax_error.clone(),
        }
    }

    /// A SyntaxError of `class` (or a subclass's) saying `message` at `span` of
    /// `place.source`, made as [`Vm::syntax_error_from`] makes one.
    pub fn syntax_error_at(
        &mut self,
        class: &Rc<PyType>,
        message: &str,
        span: Option<Span>,
        place: SyntaxErrorPlace,
    ) -> Exc {
        let SyntaxErrorPlace {
            filename,
            source,
            column_zero,
        } = place;
        let position = |at: u32| {
            let at = (at as usize).min(source.len());
            let before = source.get(..at).unwrap_or(source);
            let line_start = before.rfind('\n').map_or(0, |i| i + 1);
            let line = before.matches('\n').count() as i64 + 1;
            let column = source.get(line_start..at).map_or(0, |s| s.chars().count()) as i64 + 1;
            (line, column, line_start)
        };
        let details = match span {
            Some(span) => {
                let (lineno, mut offset, line_start) = position(span.start);
                let (mut end_lineno, mut end_offset, _) = position(span.end);
                let line_end = source[line_start..]
                    .find('\n')
                    .map_or(source.len(), |i| line_start + i + 1);
                let line = &source[line_start..line_end];
                // Where CPython's tokenizer reports these two: the last column of the
                // indentation, and the end of the line, each with no end.
                let indentation = match message {
                    "unexpected indent" => Some(offset - 1),
                    "unindent does not match any outer indentation level" => {
                        Some(line.trim_end_matches(['\n', '\r']).chars().count() as i64 + 1)
                    }
                    _ => None,
                };
                if let Some(at) = indentation {
                    (offset, end_lineno, end_offset) = (at, lineno, -1);
                }
                let text = Value::str(line);
                let column = |offset: i64| Value::Int(if column_zero { 0 } else { offset });
                [
                    Value::Int(lineno),
                    column(offset),
                    text,
                    Value::Int(end_lineno),
                    column(end_offset),
                ]
            }
            None => [
                Value::None,
                Value::None,
                Value::None,
                Value::None,
                Value::None,
            ],
        };
        let [lineno, offset, text, end_lineno, end_offset] = details;
        let msg = Value::str(message);
        let filename = Value::str(filename);
        let location = Value::tuple(vec![
            filename.clone(),
            lineno.clone(),
            offset.clone(),
            text.clone(),
            end_lineno.clone(),
            end_offset.clone(),
        ]);
        let exc = self.new_exc_args(class, vec![msg.clone(), location]);
        if let Some(attrs) = exc.attrs_to_write() {
            let mut attrs = attrs.borrow_mut();
            for (name, value) in [
                ("msg", msg),
                ("filename", filename),
                ("lineno", lineno),
                ("offset", offset),
                ("text", text),
                ("end_lineno", end_lineno),
                ("end_offset", end_offset),
            ] {
                attrs.set_str(self.interner.intern(name), value);
            }
        }
        exc
    }

    /// An attribute a SyntaxError keeps in its dict (`msg`, `filename`, `lineno`, …), if
    /// `exc` is a SyntaxError.
    pub fn syntax_error_attr(&self, exc: &Exc, name: &str) -> Option<Value> {
        if !exc.class.is_subtype(&self.types.syntax_error) {
            return None;
        }
        exc.attrs()?.borrow().get_str(&PyStr::new(name)).cloned()
    }

    /// `exc.__traceback__`: a traceback object with the frames `exc` has passed through so
    /// far, or None before it was raised. Also the third argument `__exit__` gets.
    pub fn traceback_of(&self, exc: &Exc) -> Value {
        match exc.exc_data().map(|d| d.borrow().traceback.clone()) {
            Some(frames) if !frames.is_empty() => self.traceback_object(frames, None),
            _ => Value::None,
        }
    }

    /// `str(exc)` as the last line of a traceback shows it.
    pub fn exc_str(&mut self, exc: &Exc) -> PyResult<String> {
        let v = self.str_of(&Value::Object(exc.clone()))?;
        Ok(v.as_str().to_owned())
    }
}

/// `error` with `cause` as its `__cause__` (and `__context__`), as `raise error from
/// cause` leaves it.
pub fn caused_by(error: Exc, cause: Exc) -> Exc {
    if let Some(data) = error.exc_data() {
        let mut data = data.borrow_mut();
        data.cause = Value::Object(cause.clone());
        data.context = Value::Object(cause);
        data.suppress_context = true;
    }
    error
}

fn exc_of(vm: &Vm, v: &Value) -> PyResult<Exc> {
    match v {
        Value::Object(o) if o.exc_data().is_some() => Ok(o.clone()),
        _ => Err(vm.type_error(format!(
            "descriptor requires a 'BaseException' object but received a '{}'",
            vm.type_name(v)
        ))),
    }
}

fn no_kwargs(vm: &Vm, cls: &Value, kw: &KwArgs) -> PyResult<()> {
    if kw.is_empty() {
        return Ok(());
    }
    let name = match cls {
        Value::Type(t) => t.name().to_string(),
        other => vm.type_name(other).to_string(),
    };
    Err(vm.type_error(format!("{name}() takes no keyword arguments")))
}

/// `BaseException.__new__(cls, *args)`.
pub fn exc_new(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let Some(Value::Type(cls)) = args.first() else {
        return Err(vm.type_error("BaseException.__new__(X): X is not a type object"));
    };
    let keyword_init = keyword_init(vm, cls);
    if cls.builtin && keyword_init.is_none() {
        no_kwargs(vm, &args[0], kw)?;
    }
    let exc = Value::Object(vm.new_exc_args(cls, args[1..].to_vec()));
    if let (true, Some(init)) = (cls.builtin, keyword_init) {
        // A built-in class's instance is made by `__new__` alone (`Vm::type_call`): the
        // keywords of an ImportError, NameError or AttributeError are taken here.
        let mut all = vec![exc.clone()];
        all.extend_from_slice(&args[1..]);
        init(vm, &all, kw)?;
    }
    Ok(exc)
}

/// The `__init__` of the built-in exceptions that take keywords, for `cls` and its
/// subclasses.
fn keyword_init(vm: &Vm, cls: &PyType) -> Option<crate::vm::object::NativeFn> {
    let types = &vm.types;
    if cls.is_subtype(&types.import_error) {
        Some(import_error_init)
    } else if cls.is_subtype(&types.attribute_error) {
        Some(attribute_error_init)
    } else if cls.is_subtype(&types.name_error) {
        Some(name_error_init)
    } else {
        None
    }
}

/// Records what `exc`, a NameError or AttributeError, did not find (`exc.name`, `exc.obj`),
/// and whether its near miss was looked for already ([`Missing::suggested`]).
pub fn set_missing(exc: &Exc, name: Value, obj: Value, suggested: bool) {
    if let Some(data) = exc.exc_data() {
        let missing = Missing {
            name,
            obj,
            suggested,
        };
        data.borrow_mut().missing = Some(Box::new(missing));
    }
}

/// What `v`, a NameError or AttributeError, did not find: its `name` and `obj`.
fn missing_of(vm: &Vm, v: &Value) -> PyResult<Missing> {
    let exc = exc_of(vm, v)?;
    let missing = exc.exc_data().and_then(|d| d.borrow().missing.clone());
    Ok(missing.map_or_else(Missing::default, |m| *m))
}

/// `AttributeError.__init__(self, *args, name=None, obj=None)` (`AttributeError_init`).
fn attribute_error_init(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    init_missing(vm, "AttributeError", &["name", "obj"], args, kw)
}

/// `NameError.__init__(self, *args, name=None)` (`NameError_init`).
fn name_error_init(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    init_missing(vm, "NameError", &["name"], args, kw)
}

/// The args of a NameError or AttributeError and the `name` and `obj` given by keyword,
/// of the `keywords` that `class` takes.
fn init_missing(
    vm: &mut Vm,
    class: &str,
    keywords: &[&str],
    args: &[Value],
    kw: &KwArgs,
) -> PyResult<Value> {
    // Counted first, as `PyArg_ParseTupleAndKeywords` does.
    if kw.len() > keywords.len() {
        let (most, s) = (keywords.len(), if keywords.len() == 1 { "" } else { "s" });
        return Err(vm.type_error(format!(
            "{class}() takes at most {most} keyword argument{s} ({} given)",
            kw.len()
        )));
    }
    check_kwargs(vm, class, kw, keywords)?;
    let exc = exc_of(vm, args.first().unwrap_or(&Value::None))?;
    if let Some(data) = exc.exc_data() {
        data.borrow_mut().args = Value::tuple(args[1..].to_vec());
    }
    let name = super::args::kwarg(kw, "name").unwrap_or(Value::None);
    let obj = super::args::kwarg(kw, "obj").unwrap_or(Value::None);
    set_missing(&exc, name, obj, false);
    Ok(Value::None)
}

/// `ImportError.__init__(self, *args, name=None, path=None, name_from=None)`
/// (`ImportError_init` in `Objects/exceptions.c`): `msg` is the one argument, if one.
fn import_error_init(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let exc = exc_of(vm, args.first().unwrap_or(&Value::None))?;
    let mut attrs = vec![
        ("name", Value::None),
        ("path", Value::None),
        ("name_from", Value::None),
    ];
    for (key, value) in kw {
        match attrs.iter_mut().find(|(name, _)| *name == key.as_str()) {
            Some(slot) => slot.1 = value.clone(),
            None => {
                return Err(vm.type_error(format!(
                    "ImportError() got an unexpected keyword argument '{}'",
                    key.as_str()
                )));
            }
        }
    }
    let msg = match &args[1..] {
        [one] => one.clone(),
        _ => Value::None,
    };
    attrs.push(("msg", msg));
    if let Some(data) = exc.exc_data() {
        data.borrow_mut().args = Value::tuple(args[1..].to_vec());
    }
    if let Some(dict) = exc.attrs_to_write() {
        let mut dict = dict.borrow_mut();
        for (name, value) in attrs {
            dict.set_str(vm.interner.intern(name), value);
        }
    }
    Ok(Value::None)
}

/// `BaseException.__init__(self, *args)`.
pub fn exc_init(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let exc = exc_of(vm, args.first().unwrap_or(&Value::None))?;
    no_kwargs(vm, &Value::Type(exc.class.clone()), kw)?;
    if let Some(data) = exc.exc_data() {
        data.borrow_mut().args = Value::tuple(args[1..].to_vec());
    }
    Ok(Value::None)
}

pub fn exc_str(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    let exc = exc_of(vm, args.first().unwrap_or(&Value::None))?;
    if let Some(msg) = vm.syntax_error_attr(&exc, "msg") {
        return syntax_error_str(vm, &exc, &msg);
    }
    let items = vm.exc_args(&exc);
    match items.as_slice() {
        [] => Ok(Value::str("")),
        [one] => Ok(Value::Str(vm.str_of(one)?)),
        _ => Ok(Value::str(vm.repr(&Value::tuple(items.clone()))?)),
    }
}

/// `SyntaxError.__str__`: `msg (file, line N)`, with the file's base name
/// (`SyntaxError_str` in `Objects/exceptions.c`).
fn syntax_error_str(vm: &mut Vm, exc: &Exc, msg: &Value) -> PyResult<Value> {
    let msg = vm.str_of(msg)?;
    let filename = match vm.syntax_error_attr(exc, "filename") {
        Some(Value::Str(f)) => Some(f.as_str().rsplit('/').next().unwrap_or("").to_string()),
        _ => None,
    };
    let lineno = match vm.syntax_error_attr(exc, "lineno") {
        Some(Value::Int(n)) => Some(n),
        _ => None,
    };
    let text = match (filename, lineno) {
        (Some(f), Some(n)) => format!("{} ({f}, line {n})", msg.as_str()),
        (Some(f), None) => format!("{} ({f})", msg.as_str()),
        (None, Some(n)) => format!("{} (line {n})", msg.as_str()),
        (None, None) => msg.as_str().to_string(),
    };
    Ok(Value::str(text))
}

fn key_error_str(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let exc = exc_of(vm, args.first().unwrap_or(&Value::None))?;
    match vm.exc_args(&exc).as_slice() {
        [one] => Ok(Value::str(vm.repr(one)?)),
        _ => exc_str(vm, args, kw),
    }
}

fn exc_repr(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    let exc = exc_of(vm, args.first().unwrap_or(&Value::None))?;
    let items = vm.exc_args(&exc);
    let name = exc.class.name();
    let inner = match items.as_slice() {
        [one] => vm.repr(one)?,
        _ => {
            let r = vm.repr(&Value::tuple(items.clone()))?;
            r[1..r.len() - 1].trim_end_matches(',').to_string()
        }
    };
    Ok(Value::str(format!("{name}({inner})")))
}

fn add_note(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    let exc = exc_of(vm, args.first().unwrap_or(&Value::None))?;
    let note = args.get(1).cloned().unwrap_or(Value::None);
    if !matches!(note, Value::Str(_)) {
        return Err(vm.type_error(format!("note must be a str, not '{}'", vm.type_name(&note))));
    }
    let key = vm.names.notes.clone();
    let Some(attrs) = exc.attrs_to_write() else {
        return Err(vm.runtime_error("an exception without a __dict__"));
    };
    let notes = attrs.borrow().get_str(&key).cloned();
    match notes {
        Some(Value::List(l)) => l.items.borrow_mut().push(note),
        Some(_) => return Err(vm.type_error("Cannot add note: __notes__ is not a list")),
        None => attrs.borrow_mut().set_str(key, Value::list(vec![note])),
    }
    Ok(Value::None)
}

fn with_traceback(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    let exc = exc_of(vm, args.first().unwrap_or(&Value::None))?;
    let tb = args.get(1).cloned().unwrap_or(Value::None);
    set_traceback(vm, &exc, &tb, "__traceback__ must be a traceback or None")?;
    Ok(Value::Object(exc))
}

/// What a traceback object holds in apy: the frames an exception had passed through when
/// it was taken, innermost first (the traceback object is the last of them, `tb_next` the
/// one before), and the `tb_frame` and `tb_next` objects once asked for, so that asking
/// again gives the same ones.
struct TracebackFrames {
    entries: Vec<TracebackEntry>,
    /// `f_back` of this entry's frame when it is known: the frame object of the entry
    /// outside it, for a traceback reached by `tb_next`.
    caller: Option<Value>,
    frame: OnceCell<Value>,
    next: OnceCell<Value>,
}

impl Vm {
    fn traceback_object(&self, entries: Vec<TracebackEntry>, caller: Option<Value>) -> Value {
        let frames = TracebackFrames {
            entries,
            caller,
            frame: OnceCell::new(),
            next: OnceCell::new(),
        };
        Value::object(Object::new(
            self.types.traceback.clone(),
            ObjectKind::Other(Box::new(frames)),
        ))
    }
}

fn this_traceback<'a>(vm: &Vm, v: &'a Value) -> PyResult<&'a TracebackFrames> {
    v.native::<TracebackFrames>()
        .ok_or_else(|| vm.type_error("descriptor requires a 'traceback' object"))
}

/// `tb_frame`: the frame of the traceback's outermost entry.
fn tb_frame(vm: &mut Vm, v: &Value) -> PyResult<Value> {
    let tb = this_traceback(vm, v)?;
    if let Some(frame) = tb.frame.get() {
        return Ok(frame.clone());
    }
    let Some(entry) = tb.entries.last() else {
        return Ok(Value::None);
    };
    let frame = vm.traceback_frame(entry, tb.caller.clone());
    Ok(tb.frame.get_or_init(|| frame).clone())
}

/// `tb_next`: the traceback of the entries inside this one's, None at the innermost.
fn tb_next(vm: &mut Vm, v: &Value) -> PyResult<Value> {
    let tb = this_traceback(vm, v)?;
    if let Some(next) = tb.next.get() {
        return Ok(next.clone());
    }
    let inner = &tb.entries[..tb.entries.len().saturating_sub(1)];
    let next = match inner {
        [] => Value::None,
        inner => {
            let caller = tb_frame(vm, v)?;
            vm.traceback_object(inner.to_vec(), Some(caller))
        }
    };
    Ok(tb.next.get_or_init(|| next).clone())
}

/// The entries of a traceback object, or of an exception's traceback, innermost first
/// (as an exception gathers them); None for anything else.
pub fn traceback_entries(v: &Value) -> Option<Vec<TracebackEntry>> {
    if let Some(frames) = v.native::<TracebackFrames>() {
        return Some(frames.entries.clone());
    }
    match v {
        Value::Object(o) => Some(o.exc_data()?.borrow().traceback.clone()),
        _ => None,
    }
}

/// `exc.__traceback__ = tb`: None clears it, a traceback object gives its frames.
fn set_traceback(vm: &Vm, exc: &Exc, tb: &Value, message: &str) -> PyResult<()> {
    let frames = match tb {
        Value::None => Vec::new(),
        other => match other.native::<TracebackFrames>() {
            Some(frames) => frames.entries.clone(),
            None => return Err(vm.type_error(message.to_string())),
        },
    };
    if let Some(data) = exc.exc_data() {
        data.borrow_mut().traceback = frames;
    }
    Ok(())
}

fn exception_or_none(vm: &Vm, v: Value, what: &str) -> PyResult<Value> {
    match &v {
        Value::None => Ok(v),
        Value::Object(o) if o.exc_data().is_some() => Ok(v),
        _ => Err(vm.type_error(format!(
            "exception {what} must be None or derive from BaseException"
        ))),
    }
}

/// `BaseExceptionGroup.__new__(cls, message, exceptions)`.
fn group_new(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let Some(Value::Type(cls)) = args.first() else {
        return Err(vm.type_error("BaseExceptionGroup.__new__(X): X is not a type object"));
    };
    no_kwargs(vm, &args[0], kw)?;
    if args.len() != 3 {
        return Err(vm.type_error(format!(
            "BaseExceptionGroup.__new__() takes exactly 2 arguments ({} given)",
            args.len() - 1
        )));
    }
    if !matches!(args[1], Value::Str(_)) {
        return Err(vm.type_error(format!(
            "BaseExceptionGroup.__new__() argument 1 must be str, not {}",
            vm.arg_type_name(&args[1])
        )));
    }
    if !matches!(args[2], Value::List(_) | Value::Tuple(_)) {
        return Err(vm.type_error("second argument (exceptions) must be a sequence"));
    }
    let items = vm.collect_iterable(&args[2])?;
    if items.is_empty() {
        return Err(vm.value_error("second argument (exceptions) must be a non-empty sequence"));
    }
    let exception = vm.types.exception.clone();
    let mut all_exceptions = true;
    for (i, item) in items.iter().enumerate() {
        match item {
            Value::Object(o) if o.exc_data().is_some() => {
                all_exceptions &= o.class.is_subtype(&exception);
            }
            _ => {
                return Err(vm.value_error(format!(
                    "Item {i} of second argument (exceptions) is not an exception"
                )));
            }
        }
    }
    let mut class = cls.clone();
    if Rc::ptr_eq(cls, &vm.types.base_exception_group) && all_exceptions {
        class = vm.types.exception_group.clone();
    } else if cls.is_subtype(&exception) && !all_exceptions {
        return Err(vm.type_error("Cannot nest BaseExceptions in an ExceptionGroup"));
    }
    Ok(Value::Object(vm.new_exc_args(&class, args[1..].to_vec())))
}

pub(super) fn group_parts(vm: &mut Vm, v: &Value) -> PyResult<(Value, Vec<Value>)> {
    let exc = exc_of(vm, v)?;
    let args = vm.exc_args(&exc);
    let message = args.first().cloned().unwrap_or(Value::str(""));
    let items = match args.get(1) {
        Some(items) => vm.collect_iterable(items)?,
        None => vec![],
    };
    Ok((message, items))
}

/// `exc` (a NameError or AttributeError for `name`) with the "Did you mean" of the
/// closest of `candidates` attached, when one is close enough.
pub(crate) fn with_suggestion(exc: Exc, name: &PyStr, candidates: &[Value]) -> Exc {
    let names = candidates.iter().filter_map(Value::as_str);
    let suggestion = crate::common::suggestions::suggest(name.as_str(), names).map(str::to_string);
    if let Some(d) = exc.exc_data() {
        d.borrow_mut().suggestion = suggestion;
    }
    exc
}

/// The sub-exceptions of an exception group, or None when `exc` is not a group (for the
/// traceback printer, which must not fail: a broken `args` reads as no members).
pub(crate) fn group_members(vm: &mut Vm, exc: &Exc) -> Option<Vec<Exc>> {
    if !exc.class.is_subtype(&vm.types.base_exception_group) {
        return None;
    }
    let items = group_parts(vm, &Value::Object(exc.clone())).map_or(vec![], |(_, items)| items);
    Some(
        items
            .into_iter()
            .filter_map(|item| match item {
                Value::Object(o) if o.exc_data().is_some() => Some(o),
                _ => None,
            })
            .collect(),
    )
}

pub fn init(vm: &mut Vm) {
    let base = vm.types.base_exception.clone();
    vm.add_static(&base, "__new__", exc_new);
    vm.add_method(&base, "__init__", exc_init);
    vm.add_method(&base, "__str__", exc_str);
    vm.add_method(&base, "__repr__", exc_repr);
    vm.add_method(&base, "add_note", add_note);
    vm.add_method(&base, "with_traceback", with_traceback);
    let import_error = vm.types.import_error.clone();
    vm.add_method(&import_error, "__init__", import_error_init);
    let attribute_error = vm.types.attribute_error.clone();
    vm.add_method(&attribute_error, "__init__", attribute_error_init);
    let name_error = vm.types.name_error.clone();
    vm.add_method(&name_error, "__init__", name_error_init);
    for ty in [&attribute_error, &name_error] {
        vm.add_getset(
            ty,
            "name",
            |vm, v| Ok(missing_of(vm, v)?.name),
            Some(|vm, v, name| {
                let Missing { obj, suggested, .. } = missing_of(vm, v)?;
                set_missing(&exc_of(vm, v)?, name, obj, suggested);
                Ok(())
            }),
        );
    }
    vm.add_getset(
        &attribute_error,
        "obj",
        |vm, v| Ok(missing_of(vm, v)?.obj),
        Some(|vm, v, obj| {
            let Missing {
                name, suggested, ..
            } = missing_of(vm, v)?;
            set_missing(&exc_of(vm, v)?, name, obj, suggested);
            Ok(())
        }),
    );
    vm.add_getset(
        &base,
        "args",
        |vm, v| {
            Ok(exc_of(vm, v)?
                .exc_data()
                .map_or(Value::None, |d| d.borrow().args.clone()))
        },
        Some(|vm, v, new| {
            let exc = exc_of(vm, v)?;
            let items = vm.collect_iterable(&new)?;
            if let Some(d) = exc.exc_data() {
                d.borrow_mut().args = Value::tuple(items);
            }
            Ok(())
        }),
    );
    vm.add_getset(
        &base,
        "__cause__",
        |vm, v| {
            Ok(exc_of(vm, v)?
                .exc_data()
                .map_or(Value::None, |d| d.borrow().cause.clone()))
        },
        Some(|vm, v, new| {
            let exc = exc_of(vm, v)?;
            let new = exception_or_none(vm, new, "cause")?;
            if let Some(d) = exc.exc_data() {
                let mut d = d.borrow_mut();
                d.cause = new;
                d.suppress_context = true;
            }
            Ok(())
        }),
    );
    vm.add_getset(
        &base,
        "__context__",
        |vm, v| {
            Ok(exc_of(vm, v)?
                .exc_data()
                .map_or(Value::None, |d| d.borrow().context.clone()))
        },
        Some(|vm, v, new| {
            let exc = exc_of(vm, v)?;
            let new = exception_or_none(vm, new, "context")?;
            if let Some(d) = exc.exc_data() {
                d.borrow_mut().context = new;
            }
            Ok(())
        }),
    );
    vm.add_getset(
        &base,
        "__suppress_context__",
        |vm, v| {
            Ok(Value::Bool(
                exc_of(vm, v)?
                    .exc_data()
                    .is_some_and(|d| d.borrow().suppress_context),
            ))
        },
        Some(|vm, v, new| {
            let exc = exc_of(vm, v)?;
            let flag = vm.truthy(&new)?;
            if let Some(d) = exc.exc_data() {
                d.borrow_mut().suppress_context = flag;
            }
            Ok(())
        }),
    );
    vm.add_getset(
        &base,
        "__traceback__",
        |vm, v| {
            let exc = exc_of(vm, v)?;
            Ok(vm.traceback_of(&exc))
        },
        Some(|vm, v, new| {
            let exc = exc_of(vm, v)?;
            set_traceback(vm, &exc, &new, "__traceback__ must be a traceback or None")
        }),
    );
    let traceback = vm.types.traceback.clone();
    vm.add_getset(
        &traceback,
        "tb_lineno",
        |_, v| {
            let line = v
                .native::<TracebackFrames>()
                .and_then(|t| t.entries.last())
                .map(|e| e.line);
            Ok(line.map_or(Value::None, |line| Value::Int(line.into())))
        },
        None,
    );
    vm.add_getset(&traceback, "tb_frame", tb_frame, None);
    vm.add_getset(&traceback, "tb_next", tb_next, None);
    let stop = vm.types.stop_iteration.clone();
    vm.add_getset(
        &stop,
        "value",
        |vm, v| {
            let exc = exc_of(vm, v)?;
            Ok(vm.exc_args(&exc).into_iter().next().unwrap_or(Value::None))
        },
        None,
    );
    let exit = vm.types.system_exit.clone();
    vm.add_getset(
        &exit,
        "code",
        |vm, v| {
            let exc = exc_of(vm, v)?;
            let args = vm.exc_args(&exc);
            Ok(match args.len() {
                0 => Value::None,
                1 => args[0].clone(),
                _ => Value::tuple(args),
            })
        },
        None,
    );
    let group = vm.types.base_exception_group.clone();
    vm.add_static(&group, "__new__", group_new);
    vm.add_method(&group, "__init__", |_, _, _| Ok(Value::None));
    vm.add_method(&group, "__str__", |vm, args, _| {
        let (message, items) = group_parts(vm, &args[0])?;
        let text = vm.str_of(&message)?;
        let s = if items.len() == 1 { "" } else { "s" };
        Ok(Value::str(format!(
            "{} ({} sub-exception{s})",
            text.as_str(),
            items.len()
        )))
    });
    vm.add_getset(&group, "message", |vm, v| Ok(group_parts(vm, v)?.0), None);
    vm.add_getset(
        &group,
        "exceptions",
        |vm, v| Ok(Value::tuple(group_parts(vm, v)?.1)),
        None,
    );
    vm.add_method(&group, "derive", |vm, args, _| {
        let (message, _) = group_parts(vm, &args[0])?;
        let items = args.get(1).cloned().unwrap_or(Value::None);
        let eg = Value::Type(vm.types.base_exception_group.clone());
        vm.call(&eg, &[message, items], &[])
    });
    vm.add_method(&group, "split", |vm, args, _| {
        let matcher = args.get(1).cloned().unwrap_or(Value::None);
        let (matched, rest) = vm.split_group_by(&args[0], &matcher, true)?;
        Ok(Value::tuple(vec![matched, rest]))
    });
    vm.add_method(&group, "subgroup", |vm, args, _| {
        let matcher = args.get(1).cloned().unwrap_or(Value::None);
        Ok(vm.split_group_by(&args[0], &matcher, false)?.0)
    });
    let key_error = vm.types.key_error.clone();
    vm.add_method(&key_error, "__str__", key_error_str);
}
