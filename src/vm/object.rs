//! Heap objects other than the hot containers: types, functions, code, instances of user
//! classes and exceptions, and the small built-in objects (bound methods, cells, modules,
//! iterators, properties, generators …). Mirrors the struct layouts of CPython's
//! `Include/cpython/*object.h`. Every object knows its type; user instances and exceptions
//! carry a `__dict__`. Depends only on `value`, `dict` and the bytecode definitions.

use std::any::Any;
use std::cell::{Cell, OnceCell, RefCell};
use std::mem::ManuallyDrop;
use std::rc::{Rc, Weak};

use crate::common::complex_ops::Complex;
use crate::common::int_ops::Int;
use crate::compile::bytecode::{Code, Instr};
use crate::compile::frozen::FrozenCode;
use crate::syntax::ast::Span;

use super::range::Range;
use super::value::{PyDict, PyStr, Value, ValueCell};
use super::{PyResult, Vm};
use crate::vm::frame::Generator;
use crate::vm::value::DictTable;

/// Keyword arguments of a call, in call order.
pub type KwArgs = [(Rc<PyStr>, Value)];

/// A built-in function body. Methods receive `self` as `args[0]`.
pub type NativeFn = fn(&mut Vm, &[Value], &KwArgs) -> PyResult<Value>;

/// Whether `v` is the built-in function or method `f` itself (compared by address).
pub fn is_native_fn(v: &Value, f: NativeFn) -> bool {
    matches!(v, Value::Object(o) if matches!(&o.kind, ObjectKind::Native(n) if std::ptr::fn_addr_eq(n.func, f)))
}

/// A native type's length of an instance, read without calling `__len__` (CPython's
/// `sq_length` slot); None when the instance's class counts differently (it overrides
/// `__len__` or adds `__bool__`), so the caller takes the general path.
pub type LenSlot = fn(&mut Vm, &Value) -> Option<usize>;

/// Getter and setter of a computed attribute (`PyGetSetDef`).
pub type Getter = fn(&mut Vm, &Value) -> PyResult<Value>;
pub type Setter = fn(&mut Vm, &Value, Value) -> PyResult<()>;

/// What the instances of a type are made of: decides what `object.__new__` builds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// Plain instances with a `__dict__` (user classes, `object`).
    Object,
    /// Instances carry exception state (BaseException and its subclasses).
    Exception,
    /// A built-in type whose instances are made only by its own constructor.
    Builtin,
}

/// A `type`: built-in and user classes share this representation.
pub struct PyType {
    /// `__name__` and `__qualname__` ([`PyType::name`], [`PyType::qualname`]): a class's
    /// may be assigned (`C.__name__ = "D"`), a built-in type's never is.
    pub(super) name: RefCell<Rc<str>>,
    pub(super) qualname: RefCell<Rc<str>>,
    pub bases: Vec<Rc<PyType>>,
    /// The metaclass, when it is not `type` itself (`class C(metaclass=Meta)`): what
    /// `type(C)` answers, and where attribute lookup on the class falls back to.
    pub meta: Option<Rc<PyType>>,
    /// The C3 linearisation, starting with the type itself.
    pub mro: RefCell<Vec<Rc<PyType>>>,
    /// Attributes: methods, class variables, descriptors. Keys are interned strs.
    pub dict: RefCell<DictTable>,
    pub layout: Layout,
    /// Built-in types are immutable and print without a module prefix.
    pub builtin: bool,
    /// Results of MRO lookups (`types::lookup`), valid while no type dict changes.
    pub lookup_cache: RefCell<LookupCache>,
    /// The names its instances' attributes take, in order: each instance holds only the
    /// values ([`super::instance_values`]).
    pub shared_keys: SharedKeys,
    /// How the truth test reads an instance's length without a call, if the type (or a
    /// base) is a native container that set one ([`LenSlot`]; a deque).
    pub native_len: Cell<Option<LenSlot>>,
    /// How `match` sees instances ([`MATCH_SEQUENCE`], [`MATCH_MAPPING`], [`MATCH_SELF`]):
    /// CPython's `Py_TPFLAGS_SEQUENCE`, `Py_TPFLAGS_MAPPING` and `_Py_TPFLAGS_MATCH_SELF`,
    /// inherited by subclasses.
    pub match_flags: Cell<u8>,
    /// Instances have a `__del__` to call when their last reference goes: the class or a
    /// base defined one (or had one assigned). Checked by every object's `Drop`.
    pub has_del: Cell<bool>,
    /// Some instance has a weak reference with a callback (`vm::weakrefs`): its `Drop`
    /// looks there.
    pub weakly_watched: Cell<bool>,
    /// Instances have no `__dict__`, only `__slots__` (`vm::slots`).
    pub no_dict: bool,
    /// The class has abstract methods left (a non-empty `__abstractmethods__` was set on
    /// it, as `abc.ABCMeta` does): `object.__new__` refuses to make an instance
    /// (`Py_TPFLAGS_IS_ABSTRACT`).
    pub abstract_: Cell<bool>,
    /// The classes made with this one among their bases, oldest first, while they live
    /// (`type.__subclasses__`; [`PyType::note_in_bases`]).
    pub subclasses: RefCell<Vec<std::rc::Weak<PyType>>>,
    /// A native class whose instances, and its subclasses', keep attributes in a dict made
    /// when the first is set, which no `__dict__` attribute shows
    /// ([`PyType::has_managed_dict`]).
    pub managed_dict: Cell<bool>,
    /// A native class whose `__new__`, making an instance of exactly this class, does its
    /// `__init__`'s work too, so `type.__call__` calls no `__init__` after it (`Future`
    /// and `Task` of asyncio: a subclass's instance is left to `__init__`). Not inherited.
    pub init_in_new: Cell<bool>,
}

impl PyType {
    /// Notes `ty`, just made, among the subclasses of each of its bases.
    pub fn note_in_bases(ty: &Rc<PyType>) {
        for base in &ty.bases {
            let mut subclasses = base.subclasses.borrow_mut();
            // The dead are dropped now and then: amortised, for a base of many classes.
            if subclasses.len() >= 8 && subclasses.len().is_power_of_two() {
                subclasses.retain(|w| w.strong_count() > 0);
            }
            subclasses.push(Rc::downgrade(ty));
        }
    }

    /// The living subclasses noted by [`PyType::note_in_bases`], oldest first.
    pub fn live_subclasses(&self) -> Vec<Rc<PyType>> {
        self.subclasses
            .borrow()
            .iter()
            .filter_map(std::rc::Weak::upgrade)
            .collect()
    }
}

/// A sequence pattern matches instances ([`PyType::match_flags`]).
pub const MATCH_SEQUENCE: u8 = 1;
/// A mapping pattern matches instances.
pub const MATCH_MAPPING: u8 = 2;
/// `Cls(x)` without `__match_args__` matches the subject itself against `x`.
pub const MATCH_SELF: u8 = 4;

/// A type's memo of attribute lookups along its MRO (CPython's type attribute cache): a
/// table indexed by the address of the name string (which the entry keeps alive), two
/// entries per name. The table is allocated on the type's first lookup: most built-in types
/// are never asked, and a table each made at start-up was a fifth of its page faults.
#[derive(Default)]
pub struct LookupCache {
    pub version: u64,
    pub entries: Option<Box<[LookupEntry; LOOKUP_CACHE_SIZE]>>,
    /// Whether the type has a `__getattribute__` of its own, and the type version that
    /// was true at ([`super::types::has_own_getattribute`]).
    pub own_getattribute: Option<(u64, bool)>,
    /// The `__init__` a class call runs inline when the class is made by `object.__new__`
    /// and initialised by a Python `__init__` (None when it is not), and the type version
    /// that was true at ([`super::types::inline_init`]).
    pub inline_init: Option<(u64, Option<Rc<Function>>)>,
}

pub const LOOKUP_CACHE_SIZE: usize = 129;

/// A name and what the MRO lookup found for it (None: not found).
pub type LookupEntry = Option<(Rc<PyStr>, Option<Value>)>;

impl PyType {
    /// `__name__`: for a class, the name it was last given; the `tp_name` of messages.
    #[inline]
    pub fn name(&self) -> Rc<str> {
        self.name.borrow().clone()
    }

    /// `__qualname__`: for a class, the dotted path of its definition (or what was last
    /// assigned); what reprs show.
    #[inline]
    pub fn qualname(&self) -> Rc<str> {
        self.qualname.borrow().clone()
    }

    pub fn mro(&self) -> Vec<Rc<PyType>> {
        self.mro.borrow().clone()
    }

    /// Instances keep their attributes in a dict made when the first is set, which no
    /// `__dict__` attribute shows, as CPython 3.13's `_asyncio.Future` and `Task` (a
    /// managed dict and no `__dict__` descriptor): the class or a base is so marked
    /// ([`PyType::managed_dict`]).
    pub fn has_managed_dict(&self) -> bool {
        self.mro.borrow().iter().any(|t| t.managed_dict.get())
    }

    /// `issubclass(self, other)`.
    pub fn is_subtype(&self, other: &Rc<PyType>) -> bool {
        std::ptr::eq(self, Rc::as_ptr(other))
            || self.mro.borrow().iter().any(|t| Rc::ptr_eq(t, other))
    }
}

/// A code object (`PyCodeObject`): the compiler's [`Code`], made ready to run on its first
/// run ([`Body`]: the instructions quickened, the constants made values, the names
/// interned). A code object of the frozen library is read from the library image then too
/// ([`FrozenCode`]); until then only its head is there.
pub struct CodeObj {
    /// The code's head: name, flags, arguments, variables and stack size. Its body
    /// (instructions, locations, constants, names, exception table) is empty while a frozen
    /// code object has not been read: [`CodeObj::code`] has it whole.
    pub head: Rc<Code>,
    /// The whole code, once read (at once for code the compiler made).
    whole: OnceCell<Rc<Code>>,
    /// Where the whole code is read from, for a frozen code object.
    frozen: Option<Rc<FrozenCode>>,
    /// The runnable form, made on first run ([`Vm::body`]).
    body: OnceCell<Body>,
    pub varnames: Vec<Rc<PyStr>>,
    /// cellvars ++ freevars, interned.
    pub cellnames: Vec<Rc<PyStr>>,
    /// The number of positional arguments a call of a function with this code runs inline
    /// with ([`super::frame::inline_arity`]), `u32::MAX` when no call does: one compare
    /// on every Python-to-Python call instead of six flags and the count.
    pub inline_arity: u32,
    /// The `code` object a program sees (`f.__code__`, `frame.f_code`), held weakly, so
    /// that asking again gives the same one while it lives, as in CPython.
    pub shown: RefCell<Weak<Object>>,
}

/// What running a code object needs beyond its [`Code`]: made when it first runs.
pub struct Body {
    /// The whole code ([`CodeObj::code`]), at hand for a running frame's instruction.
    pub code: Rc<Code>,
    /// The instructions the VM runs: `code.instructions` quickened ([`super::quicken`]).
    pub quick: Box<[Instr]>,
    pub consts: Vec<Value>,
    pub names: Vec<Rc<PyStr>>,
    /// The inline caches, one per name (see [`NameCaches`]).
    pub(super) caches: NameCaches,
}

impl CodeObj {
    /// A code object for `head` (the whole code, or a frozen one's head), made ready to run
    /// on first need.
    pub fn new(
        head: Rc<Code>,
        frozen: Option<Rc<FrozenCode>>,
        varnames: Vec<Rc<PyStr>>,
        cellnames: Vec<Rc<PyStr>>,
    ) -> CodeObj {
        let whole = match frozen {
            Some(_) => OnceCell::new(),
            None => OnceCell::from(head.clone()),
        };
        CodeObj {
            inline_arity: super::frame::inline_arity(&head),
            head,
            whole,
            frozen,
            body: OnceCell::new(),
            varnames,
            cellnames,
            shown: RefCell::new(Weak::new()),
        }
    }

    /// The whole code, read from the library image on first need for a frozen code object.
    pub fn code(&self) -> &Rc<Code> {
        if let Some(whole) = self.whole.get() {
            return whole;
        }
        // Read outside the cell (not `get_or_init`): reading allocates, and the allocation
        // tracer looks at the running frames' lines (which, at its start, the frame about to
        // run this code answers from its head: [`CodeObj::line_before`]).
        let read = self.frozen.as_ref().and_then(|frozen| frozen.thaw());
        // Unreadable (never, for an image the build wrote): the head, whose empty body stops
        // with "bytecode ran off the end" when run.
        let _ = self.whole.set(read.unwrap_or_else(|| self.head.clone()));
        self.whole.get().unwrap_or(&self.head)
    }

    /// The line of the instruction before `ip` (`Code::line_before`). A frame that has not
    /// started is at its first line, read from the head: the allocation tracer asks this of
    /// every frame, the one whose code is being read for its first run among them.
    pub fn line_before(&self, ip: usize) -> u32 {
        match ip {
            0 => self.head.first_line,
            _ => self.code().line_before(ip),
        }
    }

    /// Keeps `body` as the runnable form (unless one was made meanwhile).
    pub(super) fn set_body(&self, body: Body) -> &Body {
        self.body.get_or_init(|| body)
    }

    /// The runnable form, if the code has run (or been asked for it by [`Vm::body`]). Every
    /// frame's code has it while the frame runs: `execute` makes it as a frame starts.
    #[inline]
    pub fn running(&self) -> Option<&Body> {
        self.body.get()
    }
}

/// A code object's inline caches per name: `LOAD_GLOBAL`'s ([`GlobalSlot`], one) and the
/// attribute instructions' ([`AttrSlot`], two: for receivers of two classes). Each table is
/// allocated when the running code first uses it ([`Body::global_caches`],
/// [`Body::attr_caches`]): most code uses one kind of name.
#[derive(Default)]
pub struct NameCaches {
    globals: std::cell::OnceCell<Box<[std::cell::Cell<GlobalSlot>]>>,
    attrs: std::cell::OnceCell<Box<[AttrSlot]>>,
}

impl Body {
    /// The constant at `i`, an index read from an instruction of `quick`.
    #[inline(always)]
    pub fn constant(&self, i: usize) -> &Value {
        debug_assert!(i < self.consts.len());
        // SAFETY: `quicken` made every constant index in `quick` one of the code's
        // constants (an instruction with another became `EndOfCode`), and `consts` holds
        // those one for one.
        unsafe { self.consts.get_unchecked(i) }
    }

    /// The instruction at `ip`, where a frame running this code is.
    #[inline(always)]
    pub fn instruction(&self, ip: u32) -> Instr {
        debug_assert!((ip as usize) < self.quick.len());
        // SAFETY: a running frame's `ip` is within `quick`: it starts at 0 (`quick` is never
        // empty: it ends with `EndOfCode`), steps past an instruction that falls through (at
        // most onto that `EndOfCode`, which raises), moves on past the instructions of a
        // quickened run (which `quicken` found in place), or jumps to an instruction's
        // target (`quicken` made every target within the code), an exception handler
        // (`Vm::unwind` checks it) or the instruction after a call or send it was at.
        unsafe { *self.quick.get_unchecked(ip as usize) }
    }

    /// `LOAD_GLOBAL`'s caches, one per name.
    #[inline]
    pub fn global_caches(&self) -> &[std::cell::Cell<GlobalSlot>] {
        let names = self.names.len();
        self.caches
            .globals
            .get_or_init(|| (0..names).map(|_| Default::default()).collect())
    }

    /// The attribute instructions' caches, two per name.
    #[inline]
    pub fn attr_caches(&self) -> &[AttrSlot] {
        let names = self.names.len();
        self.caches
            .attrs
            .get_or_init(|| (0..2 * names).map(|_| Default::default()).collect())
    }
}

/// Where `LOAD_GLOBAL` last found a name: an entry position in the globals or the builtins
/// dict, valid while both dicts keep the versions it was found at (CPython's LOAD_GLOBAL
/// inline cache). Holds no reference, so caching never keeps a value alive.
#[derive(Clone, Copy, Default)]
pub struct GlobalSlot {
    pub globals_version: u64,
    pub builtins_version: u64,
    pub in_builtins: bool,
    pub index: usize,
}

/// A Python function (`PyFunctionObject`).
pub struct Function {
    pub code: Rc<CodeObj>,
    pub globals: Rc<PyDict>,
    /// `__name__` and `__qualname__` (decorators may rename a function).
    pub name: RefCell<Rc<PyStr>>,
    pub qualname: RefCell<Rc<str>>,
    /// Set once `__name__` or `__qualname__` is assigned: until then they are the code's
    /// (which a first step whose generator is made later relies on,
    /// [`InlineFrames::pop_first_step_made`](super::frame::InlineFrames::pop_first_step_made)).
    pub renamed: Cell<bool>,
    /// `__defaults__`: None for none (CPython's NULL, shown as None), else the tuple's
    /// items; a program may replace them ([`Function::positional_defaults`] reads them).
    pub defaults: RefCell<Option<Vec<Value>>>,
    /// `__kwdefaults__`: None for none, else the dict itself (its str keys are read).
    pub kwdefaults: RefCell<Option<Rc<PyDict>>>,
    /// Cells for the code's free variables.
    pub closure: Vec<Value>,
    /// Attributes set on the function (`f.calls = 0`).
    pub dict: RefCell<DictTable>,
    /// `__type_params__` (PEP 695); Null for the empty tuple.
    pub type_params: ValueCell,
}

impl Function {
    /// The defaults of the positional parameters, the last of them having the last: at
    /// most one per parameter (of a longer `__defaults__`, as CPython, the last ones).
    pub fn positional_defaults(&self) -> std::cell::Ref<'_, [Value]> {
        let argcount = self.code.head.argcount as usize;
        std::cell::Ref::map(self.defaults.borrow(), |d| {
            let all = d.as_deref().unwrap_or(&[]);
            &all[all.len().saturating_sub(argcount)..]
        })
    }

    /// How many defaults there are (`len(__defaults__)`): enough for `missing` positional
    /// parameters when `missing` is at most this (and at most the parameters).
    #[inline]
    pub fn defaults_count(&self) -> usize {
        self.defaults.borrow().as_ref().map_or(0, Vec::len)
    }
}

impl Drop for Function {
    /// A closure's function frees what it holds in the order of CPython's `func_clear` (the
    /// defaults, keyword defaults, attributes, then the closure, each tuple last first), the
    /// closure through the trashcan, since a cell of it may hold the next function of a
    /// long chain (`f = (lambda f: lambda: f)(f)` in a loop). One without a closure keeps
    /// the plain drop (its fields in order), which nothing can chain through.
    fn drop(&mut self) {
        if self.closure.is_empty() {
            return;
        }
        if let Some(defaults) = self.defaults.get_mut() {
            super::trashcan::free_last_first(defaults);
        }
        drop(self.kwdefaults.get_mut().take());
        drop(self.dict.get_mut().take_entries());
        super::trashcan::free_last_first(&mut self.closure);
    }
}

pub struct NativeFunction {
    pub name: &'static str,
    pub func: NativeFn,
    /// A method of a built-in type: binds `self` when looked up through an instance.
    pub is_method: bool,
    /// The type a method belongs to (for reprs).
    pub owner: Option<Rc<str>>,
    /// The module a function was first put in (`__module__`; its docs are keyed by it):
    /// set by [`Vm::new_module`], `builtins` for the built-in functions.
    pub module: OnceCell<Rc<str>>,
}

impl NativeFunction {
    /// Records `module` as the module the built-in function `value` is in, if it is one (not
    /// a method) and has none yet: the first module it is put in.
    pub fn place_in(value: &Value, module: &Rc<str>) {
        if let Value::Object(o) = value
            && let ObjectKind::Native(native) = &o.kind
            && !native.is_method
        {
            let _ = native.module.set(module.clone());
        }
    }
}

/// The state of an exception instance beyond its `__dict__` (`PyBaseExceptionObject`).
pub struct ExcData {
    pub args: Value,
    pub cause: Value,
    pub context: Value,
    pub suppress_context: bool,
    /// Frames the exception passed through, innermost first.
    pub traceback: Vec<TracebackEntry>,
    /// "Did you mean: 'x'?" for a NameError or AttributeError, found when it was raised.
    pub suggestion: Option<String>,
    /// What a NameError or AttributeError did not find: None until it is set.
    pub missing: Option<Box<Missing>>,
}

impl Drop for ExcData {
    /// Frees the arguments and the traceback, then the cause and the context, as CPython's
    /// `BaseException_clear` does: those two through the trashcan, since an exception
    /// chained to the one before may end a chain of millions.
    fn drop(&mut self) {
        if self.cause.is_none() && self.context.is_none() {
            return;
        }
        drop(std::mem::replace(&mut self.args, Value::None));
        drop(std::mem::take(&mut self.traceback));
        let mut links = [
            std::mem::replace(&mut self.cause, Value::None),
            std::mem::replace(&mut self.context, Value::None),
        ];
        super::trashcan::nest(
            &mut links,
            |links| {
                for link in links {
                    drop(std::mem::replace(link, Value::None));
                }
            },
            |links| Box::new(std::mem::replace(links, [Value::None, Value::None])),
        );
    }
}

/// A NameError's or AttributeError's `name`, and an AttributeError's `obj` (the members of
/// CPython's `PyNameErrorObject` and `PyAttributeErrorObject`), None when not given.
#[derive(Clone)]
pub struct Missing {
    pub name: Value,
    pub obj: Value,
    /// The near miss was looked for as it was raised (`ExcData::suggestion`, which may be
    /// None): not again when it is printed.
    pub suggested: bool,
}

impl Default for Missing {
    fn default() -> Missing {
        Missing {
            name: Value::None,
            obj: Value::None,
            suggested: false,
        }
    }
}

#[derive(Clone)]
pub struct TracebackEntry {
    pub code: Rc<Code>,
    pub line: u32,
    /// Where in the source the instruction that failed is (None when the entry was made
    /// without one): a traceback shows every line of it, as CPython's does.
    pub span: Option<Span>,
    /// The frame the exception passed through, as `tb_frame` shows it once that frame has
    /// finished: its code object, globals and (module or class body) namespace. Its fast
    /// locals are not kept: they would often hold the exception itself (`self` of a future
    /// holding it, say), a reference cycle nothing in apy frees; unless a debugger asked
    /// for them (`Vm::keep_traceback_locals`), when `namespace` holds a copy of them.
    /// None for an entry made without a frame (an exception ignored in a finalizer).
    pub frame: Option<TracebackFrame>,
}

/// What a traceback entry keeps of its frame ([`TracebackEntry::frame`]).
#[derive(Clone)]
pub struct TracebackFrame {
    pub code: Rc<CodeObj>,
    pub globals: Rc<PyDict>,
    pub namespace: Option<Rc<PyDict>>,
}

/// Where a module came from, which its repr shows (`importlib._bootstrap._module_repr`).
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum ModuleOrigin {
    /// One of apy's own, native or from its library: `<module 'json' (built-in)>`.
    BuiltIn,
    /// A file the program imported, or the script: `<module 'm' from '/path/m.py'>`.
    File,
    /// Made by `types.ModuleType(name)`: `<module 'm'>` (or `from` a `__file__` given it).
    Plain,
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum DictViewKind {
    Keys,
    Values,
    Items,
}

/// The position of a built-in iterator (cloned only by `__reduce__`/`__setstate__`).
#[derive(Clone)]
pub enum IterState {
    /// Over a list, tuple or str (by index, so a growing list is seen).
    Seq {
        seq: Value,
        index: usize,
    },
    Range {
        next: i64,
        stop: i64,
        step: i64,
    },
    /// Over a range with big-int bounds (`longrangeiterobject`); boxed: this rare state,
    /// five ints, would size every iterator.
    LongRange(Box<LongRangeIter>),
    /// Over a dict or one of its views: entries from `pos` on, or when `reversed` (CPython's
    /// `dictreviter_iternext`) from `pos` back.
    Dict {
        dict: Rc<PyDict>,
        pos: usize,
        kind: DictViewKind,
        size: usize,
        reversed: bool,
        /// An `odict_iterator`: a change is "OrderedDict mutated during iteration".
        odict: bool,
    },
    Set {
        set: Value,
        pos: usize,
        size: usize,
    },
    Reversed {
        seq: Value,
        index: usize,
    },
    Enumerate {
        iter: Value,
        count: Value,
    },
    Zip {
        iters: Vec<Value>,
        strict: bool,
    },
    Map {
        func: Value,
        iters: Vec<Value>,
    },
    Filter {
        func: Value,
        iter: Value,
    },
    /// `iter(callable, sentinel)`.
    Callable {
        func: Value,
        sentinel: Value,
    },
    Exhausted,
}

/// The position of an iterator over a range with big-int bounds ([`IterState::LongRange`]).
#[derive(Clone)]
pub struct LongRangeIter {
    pub range: Range,
    pub index: Int,
    pub length: Int,
}

pub enum ObjectKind {
    /// An instance of a user class: the values of its attributes in the order of its
    /// class's shared keys ([`super::instance_values`]), until something asks for the
    /// `__dict__` object ([`Object::dict_object`]) or the attributes leave that order; the
    /// dict then holds them instead.
    Plain(RefCell<InstanceValues>),
    /// An instance of `object` itself, which has no attributes at all.
    Bare,
    /// Boxed: the exception state is large, and inline it would size every object.
    Exception(Box<RefCell<ExcData>>),
    Native(NativeFunction),
    BoundMethod {
        func: Value,
        this: Value,
    },
    /// A closure cell; `Null` when empty.
    Cell(RefCell<Value>),
    Code(Rc<CodeObj>),
    Module {
        name: Rc<str>,
        dict: Rc<PyDict>,
        origin: ModuleOrigin,
    },
    /// Boxed: three ints, which inline would size every object.
    Range(Box<Range>),
    /// A `complex` (`vm::complex`): its two floats, inline.
    Complex(Complex),
    Slice {
        start: Value,
        stop: Value,
        step: Value,
    },
    Iter(RefCell<IterState>),
    DictView {
        dict: Rc<PyDict>,
        kind: DictViewKind,
    },
    Property {
        fget: Value,
        fset: Value,
        fdel: Value,
    },
    ClassMethod(Value),
    StaticMethod(Value),
    /// `super(type, obj)`.
    Super {
        this_class: Rc<PyType>,
        obj: Value,
    },
    GetSet {
        name: &'static str,
        get: Getter,
        set: Option<Setter>,
        /// Whether `del obj.name` calls `set` with `Null` (else it is refused).
        deletable: bool,
        /// The name of the type it is an attribute of (`<attribute 'real' of 'int' objects>`).
        owner: Rc<str>,
    },
    Partial {
        func: Value,
        args: Vec<Value>,
        kwargs: Vec<(Rc<PyStr>, Value)>,
    },
    Generator(Generator),
    /// An instance of a user subclass of a built-in type (`class Stack(list)`): the
    /// built-in value it extends. Built-in methods and operators act on that value.
    Builtin(Value),
    /// Room for objects defined by other parts of apy (asyncio's loop, futures …).
    Other(Box<dyn Any>),
}

/// Values an instance holds inside the object; more go to a separate vector.
pub const INLINE_VALUES: usize = 4;

/// The most names a class's keys take (CPython's `SHARED_KEYS_MAX_SIZE`): an instance
/// setting a new name past them gets a dict.
pub const MAX_SHARED_KEYS: usize = 30;

/// The attribute names of a class's instances ([`super::instance_values`]), in the order they were first set.
#[derive(Default)]
pub struct SharedKeys {
    names: RefCell<Vec<Rc<PyStr>>>,
}

impl SharedKeys {
    /// Where `name` is among the keys (the same str, or one of equal hash and text).
    #[inline]
    pub fn index_of(&self, name: &PyStr) -> Option<usize> {
        let names = self.names.borrow();
        if let Some(at) = names.iter().position(|k| std::ptr::eq(Rc::as_ptr(k), name)) {
            return Some(at);
        }
        let hash = name.hash();
        names
            .iter()
            .position(|k| k.hash() == hash && k.as_str() == name.as_str())
    }

    pub fn len(&self) -> usize {
        self.names.borrow().len()
    }

    /// Where `name` is among the keys, trying `hint` first (where it is expected).
    #[inline(always)]
    pub fn index_of_at(&self, name: &Rc<PyStr>, hint: usize) -> Option<usize> {
        match self.names.borrow().get(hint) {
            Some(k) if Rc::ptr_eq(k, name) => Some(hint),
            _ => self.index_of(name),
        }
    }

    /// Whether the keys are exactly `names` (the same strs, in order), perhaps followed by
    /// `then`: no instance of the class has any other attribute.
    pub fn are(&self, names: &[&Rc<PyStr>], then: &Rc<PyStr>) -> bool {
        let keys = self.names.borrow();
        let (init, rest) = keys.split_at(names.len().min(keys.len()));
        init.len() == names.len()
            && init.iter().zip(names).all(|(k, n)| Rc::ptr_eq(k, n))
            && match rest {
                [] => true,
                [last] => Rc::ptr_eq(last, then),
                _ => false,
            }
    }

    /// Adds a name after the others.
    pub fn push(&self, name: Rc<PyStr>) {
        self.names.borrow_mut().push(name);
    }

    pub fn is_empty(&self) -> bool {
        self.names.borrow().is_empty()
    }

    pub fn name(&self, at: usize) -> Option<Rc<PyStr>> {
        self.names.borrow().get(at).cloned()
    }
}

/// An instance's values, in the order of its class's [`SharedKeys`]: the instance has the
/// first `len()` of those names. `Null` marks the end of the inline ones.
pub struct InstanceValues {
    /// Dropped by hand, in [`InstanceValues`]'s `Drop`, the only place that drops them.
    inline: ManuallyDrop<[Value; INLINE_VALUES]>,
    /// The values past the inline ones (boxed: rare, and inline it would size every object).
    #[allow(clippy::box_collection)]
    more: Option<Box<Vec<Value>>>,
}

impl Default for InstanceValues {
    fn default() -> Self {
        InstanceValues {
            inline: ManuallyDrop::new([const { Value::Null }; INLINE_VALUES]),
            more: None,
        }
    }
}

impl Drop for InstanceValues {
    /// Frees the values in order, as CPython's `_PyObject_FreeInstanceAttributes` does,
    /// through the trashcan: an attribute may hold the next node of a long chain.
    #[inline(always)]
    fn drop(&mut self) {
        super::trashcan::nest(
            self,
            |values| {
                // SAFETY: `inline` is dropped here or taken below, once, as its owner dies.
                unsafe { ManuallyDrop::drop(&mut values.inline) };
                drop(values.more.take());
            },
            |values| {
                Box::new(InstanceValues {
                    // SAFETY: as above; what is left behind is not used again.
                    inline: ManuallyDrop::new(unsafe { ManuallyDrop::take(&mut values.inline) }),
                    more: values.more.take(),
                })
            },
        );
    }
}

impl InstanceValues {
    /// How many attributes the instance has.
    #[inline]
    pub fn len(&self) -> usize {
        match &self.more {
            Some(more) => INLINE_VALUES + more.len(),
            None => self
                .inline
                .iter()
                .position(Value::is_null)
                .unwrap_or(INLINE_VALUES),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.inline[0].is_null()
    }

    /// The value of the attribute at `at` among the class's keys.
    #[inline]
    pub fn get(&self, at: usize) -> Option<&Value> {
        let v = match self.inline.get(at) {
            Some(v) => v,
            None => self.more.as_ref()?.get(at - INLINE_VALUES)?,
        };
        (!v.is_null()).then_some(v)
    }

    #[inline]
    pub fn get_mut(&mut self, at: usize) -> Option<&mut Value> {
        let v = match self.inline.get_mut(at) {
            Some(v) => v,
            None => self.more.as_mut()?.get_mut(at - INLINE_VALUES)?,
        };
        (!v.is_null()).then_some(v)
    }

    /// Adds the value of the next key.
    pub fn push(&mut self, value: Value) {
        let len = self.len();
        match self.inline.get_mut(len) {
            Some(slot) => *slot = value,
            None => self.more.get_or_insert_default().push(value),
        }
    }

    /// Adds `value` as the attribute at `at` when that is the next key (the instance has
    /// the `at` before it and not it); gives it back otherwise.
    #[inline]
    pub fn push_at(&mut self, at: usize, value: Value) -> Result<(), Value> {
        if at >= INLINE_VALUES {
            if self.len() != at {
                return Err(value);
            }
            self.push(value);
            return Ok(());
        }
        let follows = at == 0 || !self.inline[at - 1].is_null();
        match &mut self.inline[at] {
            slot if slot.is_null() && follows => {
                *slot = value;
                Ok(())
            }
            _ => Err(value),
        }
    }

    /// The values, in order, leaving none.
    fn take_all(&mut self) -> Vec<Value> {
        let mut all: Vec<Value> = self
            .inline
            .iter_mut()
            .map(|v| std::mem::replace(v, Value::Null))
            .take_while(|v| !v.is_null())
            .collect();
        if let Some(more) = self.more.take() {
            all.extend(*more);
        }
        all
    }
}

/// Every object of every kind is this size: big payloads are boxed (an exception's state,
/// an async generator's flags, a big-int range iterator's range), so that the common
/// objects (instances, generators, bound methods, tasks) take one 128-byte malloc chunk
/// with their reference counts, not 224.
pub struct Object {
    pub class: Rc<PyType>,
    /// `__dict__`: set when the object is made, for exceptions and the other objects with
    /// attributes; for a plain instance, made from its attributes when first asked for.
    pub(super) dict: OnceCell<Rc<PyDict>>,
    pub kind: ObjectKind,
}

const _: () = assert!(std::mem::size_of::<Object>() <= 104);

impl Object {
    pub fn new(class: Rc<PyType>, kind: ObjectKind) -> Object {
        Object {
            class,
            dict: OnceCell::new(),
            kind,
        }
    }

    /// An object with a `__dict__` of its own beside `kind`.
    pub fn with_dict(class: Rc<PyType>, kind: ObjectKind) -> Object {
        Object {
            class,
            dict: OnceCell::from(Rc::new(PyDict {
                table: RefCell::new(DictTable::new()),
            })),
            kind,
        }
    }

    /// This object's class, `__dict__` and contents moved into a new object (one being freed
    /// comes back to life for its `__del__`); this one is left bare.
    pub fn take_contents(&mut self) -> Object {
        Object {
            class: self.class.clone(),
            dict: std::mem::take(&mut self.dict),
            kind: std::mem::replace(&mut self.kind, ObjectKind::Bare),
        }
    }

    /// An instance of a user class, with no attributes yet.
    pub fn plain(class: Rc<PyType>) -> Object {
        Object::new(class, ObjectKind::Plain(RefCell::default()))
    }

    /// The table of the object's attributes (its `__dict__`), if it has one: made now for a
    /// plain instance whose attributes are still in shared-keys form (which then keeps it).
    /// The attribute paths read and write without making one ([`Object::attr_storage`]).
    #[inline(always)]
    pub fn attrs(&self) -> Option<&RefCell<DictTable>> {
        match (self.dict.get(), &self.kind) {
            (Some(dict), _) => Some(&dict.table),
            (None, ObjectKind::Plain(_)) => self.materialised_attrs(),
            _ => None,
        }
    }

    #[cold]
    #[inline(never)]
    fn materialised_attrs(&self) -> Option<&RefCell<DictTable>> {
        self.dict_object()?;
        self.dict.get().map(|dict| &dict.table)
    }

    /// Where an attribute being set or deleted goes: [`Object::attrs`], or for an object
    /// whose dict is made when first needed that has none yet, a new one: an exception's
    /// (as CPython's `BaseException` makes its `dict`), or a managed dict
    /// ([`PyType::has_managed_dict`]). (So an exception or a Future costs nothing for its
    /// dict until an attribute is set on it.)
    pub fn attrs_to_write(&self) -> Option<&RefCell<DictTable>> {
        self.attrs()
            .or_else(|| self.dict_made_on_demand().map(|dict| &dict.table))
    }

    /// The dict of an exception or of an object with a managed dict, made now if it has
    /// none yet; None for other objects.
    #[cold]
    #[inline(never)]
    fn dict_made_on_demand(&self) -> Option<&Rc<PyDict>> {
        if !matches!(self.kind, ObjectKind::Exception(_)) && !self.class.has_managed_dict() {
            return None;
        }
        Some(self.dict.get_or_init(|| {
            Rc::new(PyDict {
                table: RefCell::new(DictTable::new()),
            })
        }))
    }

    /// The `__dict__` object, made now for a plain instance that had none: its attributes
    /// move into it, and it is the same dict from then on.
    pub fn dict_object(&self) -> Option<Rc<PyDict>> {
        if let Some(dict) = self.dict.get() {
            return Some(dict.clone());
        }
        if let ObjectKind::Exception(_) = &self.kind {
            return self.dict_made_on_demand().cloned();
        }
        let ObjectKind::Plain(values) = &self.kind else {
            return None;
        };
        // (Never borrowed here in practice; if it were, there would be no dict to give.)
        let table = self.values_into_table(values)?;
        Some(
            self.dict
                .get_or_init(|| {
                    Rc::new(PyDict {
                        table: RefCell::new(table),
                    })
                })
                .clone(),
        )
    }

    /// `obj.__dict__ = dict`: the object's attributes become `dict` itself, shared with
    /// whoever else holds it (the Borg pattern), its old ones dropped. False when the object
    /// already has another dict of its own, which apy cannot swap while references into it
    /// may be live.
    pub fn replace_dict(&self, dict: Rc<PyDict>) -> bool {
        if let Some(own) = self.dict.get() {
            return Rc::ptr_eq(own, &dict);
        }
        let dropped = match &self.kind {
            ObjectKind::Plain(values) => match values.try_borrow_mut() {
                Ok(mut values) => values.take_all(),
                Err(_) => return false,
            },
            _ => Vec::new(),
        };
        drop(dropped);
        self.dict.set(dict).is_ok()
    }

    /// `del obj.__dict__` of a plain instance: its attributes dropped, so that it has an
    /// empty dict the next time it is asked (CPython gives it a new one). Some(false) when
    /// its dict is held elsewhere too (apy cannot give the object another while that one
    /// lives on), None for an object without a `__dict__` of this kind.
    pub fn delete_dict(&self) -> Option<bool> {
        if self.class.has_managed_dict() {
            return None;
        }
        let dropped = match (self.dict.get(), &self.kind) {
            (_, ObjectKind::Exception(_)) => return None,
            (Some(dict), _) if Rc::strong_count(dict) > 1 => return Some(false),
            (Some(dict), _) => match dict.table.try_borrow_mut() {
                Ok(mut table) => std::mem::take(&mut *table),
                Err(_) => return Some(false),
            },
            (None, ObjectKind::Plain(values)) => match values.try_borrow_mut() {
                Ok(mut values) => {
                    drop(values.take_all());
                    return Some(true);
                }
                Err(_) => return Some(false),
            },
            (None, _) => return None,
        };
        // (What the attributes held dies outside the borrow: a `__del__` may look.)
        drop(dropped);
        Some(true)
    }

    /// A plain instance's values moved into a table in their order (its `__dict__` to be).
    fn values_into_table(&self, values: &RefCell<InstanceValues>) -> Option<DictTable> {
        let taken = values.try_borrow_mut().ok()?.take_all();
        let mut table = DictTable::with_capacity(taken.len());
        for (at, value) in taken.into_iter().enumerate() {
            let name = self.class.shared_keys.name(at)?;
            let hash = name.hash();
            // (The keys are distinct: none is compared.)
            let fresh = table.insert(Value::Str(name), hash, value, |_, _| {
                Ok::<bool, std::convert::Infallible>(false)
            });
            drop(fresh);
        }
        Some(table)
    }

    /// Forgets the `__dict__` of an object about to be reused (a recycled generator).
    pub fn clear_dict(&mut self) {
        self.dict.take();
    }

    /// The built-in value a user subclass instance extends (`class Stack(list)`).
    pub fn builtin_base(&self) -> Option<&Value> {
        match &self.kind {
            ObjectKind::Builtin(v) => Some(v),
            _ => None,
        }
    }

    pub fn exc_data(&self) -> Option<&RefCell<ExcData>> {
        match &self.kind {
            ObjectKind::Exception(data) => Some(&**data),
            _ => None,
        }
    }
}

/// What a class had under a name.
#[derive(Default)]
pub(super) enum OnClass {
    /// Not looked up yet, or something the general path handles (a descriptor, a class
    /// variable, a class with its own `__setattr__`).
    #[default]
    General,
    /// Nothing: the attribute can only come from the instance's `__dict__` (or
    /// `__getattr__`), and storing it goes straight into the `__dict__`.
    Nothing,
    /// A method (a function or built-in method), unless the instance shadows it.
    Method(WeakMethod),
    /// The receiver is the class itself (held weakly beside this), whose own namespace
    /// holds the name at the slot's `hint`: read there as it is, or a staticmethod's
    /// callable (CPython's `LOAD_ATTR_CLASS`).
    ClassAttribute { unwrap_static: bool },
}

/// A method, held weakly.
pub(super) enum WeakMethod {
    Function(Weak<Function>),
    Native(Weak<Object>),
}

/// The memo for one name of a code object.
pub struct AttrSlot {
    /// The receiver's class and the type version the lookup was made at.
    pub(super) class: Cell<*const PyType>,
    pub(super) version: Cell<u64>,
    /// What the class had, and the class held weakly (so that its address cannot be reused
    /// by another class while remembered).
    pub(super) found: RefCell<(OnClass, Weak<PyType>)>,
    /// Where the receiver's `__dict__` last held the name: a hint, checked by key identity.
    pub(super) hint: Cell<usize>,
    /// Where the name is among the class's shared keys ([`super::instance_values`]);
    /// `u32::MAX` when not known. A class's keys only grow, so it stays true for the class.
    pub(super) index: Cell<u32>,
    /// For a method: the class's number of shared keys plus one when the name was found
    /// not to be among them (so no instance can shadow it while that number is the same); 0
    /// when not known.
    pub(super) absent_below: Cell<u32>,
    /// `found` is [`OnClass::Nothing`], readable without borrowing it (for
    /// [`instance_attr_hit`]).
    pub(super) nothing_on_class: Cell<bool>,
}

impl Default for AttrSlot {
    fn default() -> Self {
        AttrSlot {
            class: Cell::new(std::ptr::null()),
            version: Cell::new(0),
            found: RefCell::new((OnClass::General, Weak::new())),
            hint: Cell::new(0),
            index: Cell::new(u32::MAX),
            absent_below: Cell::new(0),
            nothing_on_class: Cell::new(false),
        }
    }
}

macro_rules! builtin_types {
    ($($field:ident),* $(,)?) => {
        /// Every built-in type, including the exception hierarchy.
        pub struct BuiltinTypes { $(pub $field: Rc<PyType>,)* }
    };
}

builtin_types! {
    object, type_, none, not_implemented, ellipsis, bool, int, float, complex, str, tuple, list, dict,
    set, frozenset, function, builtin_function, method, cell, code, module, range, slice,
    wrapper_descriptor, method_wrapper,
    property, classmethod, staticmethod, super_, getset_descriptor, member_descriptor, partial, generator, frame, mappingproxy,
    coroutine, coroutine_wrapper, async_generator, async_generator_asend,
    async_generator_athrow, anext_awaitable,
    asyncgen_hooks, list_iterator, tuple_iterator, str_ascii_iterator, str_iterator, range_iterator,
    longrange_iterator,
    bytes_iterator, bytearray_iterator,
    dict_keyiterator, dict_valueiterator, dict_itemiterator, set_iterator, reversed,
    list_reverseiterator, dict_reversekeyiterator, dict_reversevalueiterator,
    dict_reverseitemiterator,
    enumerate, zip, map, filter, callable_iterator, seq_iterator, dict_keys, dict_values, dict_items,
    odict_iterator, odict_keys, odict_values, odict_items,
    // exceptions
    base_exception, base_exception_group, generator_exit, keyboard_interrupt, system_exit,
    exception, arithmetic_error, floating_point_error, overflow_error, zero_division_error,
    assertion_error, attribute_error, eof_error, exception_group, import_error,
    module_not_found_error, lookup_error, index_error, key_error, memory_error, buffer_error, name_error,
    unbound_local_error, os_error, timeout_error, runtime_error, not_implemented_error,
    recursion_error, reference_error, stop_async_iteration, stop_iteration, syntax_error, indentation_error, tab_error, incomplete_input_error, type_error, traceback,
    generic_alias, union_type, bytes, bytearray, unicode_decode_error, unicode_encode_error,
    blocking_io_error, child_process_error, connection_error, broken_pipe_error, connection_aborted_error, connection_refused_error, connection_reset_error, file_exists_error, file_not_found_error, interrupted_error, is_a_directory_error, not_a_directory_error, permission_error, process_lookup_error,
    value_error, unicode_error, warning, runtime_warning, deprecation_warning, user_warning,
}
