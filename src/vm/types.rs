//! Type objects and attribute access: the built-in types, user classes with their C3 MRO,
//! and `getattr`/`setattr`/method lookup with descriptors (functions bind, `property`,
//! `classmethod`, `staticmethod`, computed attributes). Mirrors `Objects/typeobject.c` and
//! `PyObject_GenericGetAttr` in `Objects/object.c`. Knows nothing of frames or bytecode.

use std::cell::{Cell, OnceCell, RefCell};
use std::rc::Rc;

use super::dict::StrKeys;
use super::object::{
    Function, Getter, LOOKUP_CACHE_SIZE, Layout, NativeFn, NativeFunction, Object, ObjectKind,
    PyType, Setter,
};
use super::value::{PyStr, Value};
use super::{Interner, PyResult, Vm};
use crate::vm::object::BuiltinTypes;
use crate::vm::value::DictTable;

/// Creates a type with an empty dict and the MRO of single-or-multiple `bases`.
pub fn make_type(name: &str, bases: Vec<Rc<PyType>>, layout: Layout, builtin: bool) -> Rc<PyType> {
    let mut mro_tail = Vec::new();
    if let Ok(linear) = c3_merge(&bases, &mut 0) {
        mro_tail = linear;
    }
    let ty = Rc::new(PyType {
        name: RefCell::new(name.into()),
        qualname: RefCell::new(name.into()),
        bases,
        meta: None,
        mro: RefCell::new(Vec::new()),
        dict: RefCell::new(DictTable::new()),
        layout,
        builtin,
        lookup_cache: Default::default(),
        shared_keys: Default::default(),
        native_len: Cell::new(mro_tail.iter().find_map(|base| base.native_len.get())),
        match_flags: Cell::new(super::patterns::inherited_match_flags(&mro_tail)),
        has_del: Cell::new(false),
        weakly_watched: Cell::new(false),
        no_dict: false,
        abstract_: Cell::new(false),
        subclasses: RefCell::new(Vec::new()),
        managed_dict: Cell::new(false),
        init_in_new: Cell::new(false),
    });
    PyType::note_in_bases(&ty);
    let mut mro = vec![ty.clone()];
    mro.extend(mro_tail);
    *ty.mro.borrow_mut() = mro;
    super::teardown::watch_type(&ty);
    ty
}

/// C3 linearisation of `bases` (without the new class itself). On failure, the names of the
/// classes that could not be ordered, as CPython lists them. Adds to `work` the classes the
/// merge went through (class creation charges them as steps, so `--max-steps` bounds it).
pub fn c3_merge(bases: &[Rc<PyType>], work: &mut u64) -> Result<Vec<Rc<PyType>>, Vec<Rc<str>>> {
    // One base: its MRO, as `mro_implementation`'s fast path has it (the merge below is
    // cubic in the depth of a chain of subclasses); a copy, charged nothing.
    if let [base] = bases {
        return Ok(base.mro());
    }
    let mut seqs: Vec<Vec<Rc<PyType>>> = bases.iter().map(|b| b.mro()).collect();
    seqs.push(bases.to_vec());
    let mut result: Vec<Rc<PyType>> = Vec::new();
    loop {
        seqs.retain(|s| !s.is_empty());
        if seqs.is_empty() {
            return Ok(result);
        }
        let candidate = seqs.iter().map(|s| s[0].clone()).find(|head| {
            *work += seqs.iter().map(|s| s.len() as u64).sum::<u64>();
            !seqs
                .iter()
                .any(|s| s[1..].iter().any(|t| Rc::ptr_eq(t, head)))
        });
        let Some(head) = candidate else {
            let mut names: Vec<Rc<str>> = Vec::new();
            let mut seen: Vec<*const PyType> = Vec::new();
            for s in &seqs {
                if !seen.contains(&Rc::as_ptr(&s[0])) {
                    seen.push(Rc::as_ptr(&s[0]));
                    names.push(s[0].name());
                }
            }
            return Err(names);
        };
        for s in seqs.iter_mut() {
            if Rc::ptr_eq(&s[0], &head) {
                s.remove(0);
            }
        }
        result.push(head);
    }
}

impl BuiltinTypes {
    pub fn new(_interner: &mut Interner) -> BuiltinTypes {
        use Layout::*;
        let object = make_type("object", vec![], Object, true);
        let t = |name: &str, bases: &[&Rc<PyType>], layout: Layout| {
            make_type(
                name,
                bases.iter().map(|b| (*b).clone()).collect(),
                layout,
                true,
            )
        };
        let b = |name: &str| t(name, &[&object], Builtin);
        let int = b("int");
        let base_exception = t("BaseException", &[&object], Exception);
        let exception = t("Exception", &[&base_exception], Exception);
        let e = |name: &str, base: &Rc<PyType>| t(name, &[base], Exception);
        let arithmetic_error = e("ArithmeticError", &exception);
        let lookup_error = e("LookupError", &exception);
        let name_error = e("NameError", &exception);
        let runtime_error = e("RuntimeError", &exception);
        let import_error = e("ImportError", &exception);
        let os_error = e("OSError", &exception);
        let value_error = e("ValueError", &exception);
        let warning = e("Warning", &exception);
        let base_exception_group = e("BaseExceptionGroup", &base_exception);
        let tuple = b("tuple");
        let connection_error = e("ConnectionError", &os_error);
        let syntax_error = e("SyntaxError", &exception);
        let indentation_error = e("IndentationError", &syntax_error);
        let unicode_error = e("UnicodeError", &value_error);
        let (dict_keys, dict_values) = (b("dict_keys"), b("dict_values"));
        let dict_items = b("dict_items");
        let builtin_function = b("builtin_function_or_method");
        let types = BuiltinTypes {
            asyncgen_hooks: t("asyncgen_hooks", &[&tuple], Builtin),
            tuple,
            type_: b("type"),
            none: b("NoneType"),
            not_implemented: b("NotImplementedType"),
            ellipsis: b("ellipsis"),
            bool: t("bool", &[&int], Builtin),
            float: b("float"),
            complex: b("complex"),
            str: b("str"),
            list: b("list"),
            dict: b("dict"),
            set: b("set"),
            frozenset: b("frozenset"),
            function: b("function"),
            // (apy's slot wrappers are built-in methods of a type of their own, for their
            // name and repr: `<slot wrapper '__len__' of 'list' objects>`.)
            wrapper_descriptor: t("wrapper_descriptor", &[&builtin_function], Builtin),
            method_wrapper: t("method-wrapper", &[&builtin_function], Builtin),
            builtin_function,
            method: b("method"),
            cell: b("cell"),
            code: b("code"),
            frame: b("frame"),
            // Its protocol (`len`, `|`, `in`) is its methods', as a class's is (`mapping_proxy`).
            mappingproxy: make_type("mappingproxy", vec![object.clone()], Builtin, false),
            module: b("module"),
            range: b("range"),
            slice: b("slice"),
            property: b("property"),
            classmethod: b("classmethod"),
            staticmethod: b("staticmethod"),
            super_: b("super"),
            getset_descriptor: b("getset_descriptor"),
            partial: b("functools.partial"),
            generator: b("generator"),
            coroutine: b("coroutine"),
            coroutine_wrapper: b("coroutine_wrapper"),
            async_generator: b("async_generator"),
            async_generator_asend: b("async_generator_asend"),
            async_generator_athrow: b("async_generator_athrow"),
            anext_awaitable: b("anext_awaitable"),
            list_iterator: b("list_iterator"),
            tuple_iterator: b("tuple_iterator"),
            str_ascii_iterator: b("str_ascii_iterator"),
            str_iterator: b("str_iterator"),
            bytes_iterator: b("bytes_iterator"),
            bytearray_iterator: b("bytearray_iterator"),
            range_iterator: b("range_iterator"),
            longrange_iterator: b("longrange_iterator"),
            dict_keyiterator: b("dict_keyiterator"),
            dict_valueiterator: b("dict_valueiterator"),
            dict_itemiterator: b("dict_itemiterator"),
            set_iterator: b("set_iterator"),
            reversed: b("reversed"),
            list_reverseiterator: b("list_reverseiterator"),
            dict_reversekeyiterator: b("dict_reversekeyiterator"),
            dict_reversevalueiterator: b("dict_reversevalueiterator"),
            dict_reverseitemiterator: b("dict_reverseitemiterator"),
            enumerate: b("enumerate"),
            zip: b("zip"),
            map: b("map"),
            filter: b("filter"),
            callable_iterator: b("callable_iterator"),
            seq_iterator: b("iterator"),
            odict_iterator: b("odict_iterator"),
            odict_keys: t("odict_keys", &[&dict_keys], Builtin),
            odict_values: t("odict_values", &[&dict_values], Builtin),
            odict_items: t("odict_items", &[&dict_items], Builtin),
            dict_keys,
            dict_values,
            dict_items,
            generator_exit: e("GeneratorExit", &base_exception),
            keyboard_interrupt: e("KeyboardInterrupt", &base_exception),
            system_exit: e("SystemExit", &base_exception),
            floating_point_error: e("FloatingPointError", &arithmetic_error),
            overflow_error: e("OverflowError", &arithmetic_error),
            zero_division_error: e("ZeroDivisionError", &arithmetic_error),
            assertion_error: e("AssertionError", &exception),
            attribute_error: e("AttributeError", &exception),
            eof_error: e("EOFError", &exception),
            exception_group: t(
                "ExceptionGroup",
                &[&base_exception_group, &exception],
                Exception,
            ),
            module_not_found_error: e("ModuleNotFoundError", &import_error),
            index_error: e("IndexError", &lookup_error),
            key_error: e("KeyError", &lookup_error),
            memory_error: e("MemoryError", &exception),
            buffer_error: e("BufferError", &exception),
            unbound_local_error: e("UnboundLocalError", &name_error),
            timeout_error: e("TimeoutError", &os_error),
            blocking_io_error: e("BlockingIOError", &os_error),
            child_process_error: e("ChildProcessError", &os_error),
            broken_pipe_error: e("BrokenPipeError", &connection_error),
            connection_aborted_error: e("ConnectionAbortedError", &connection_error),
            connection_refused_error: e("ConnectionRefusedError", &connection_error),
            connection_reset_error: e("ConnectionResetError", &connection_error),
            file_exists_error: e("FileExistsError", &os_error),
            file_not_found_error: e("FileNotFoundError", &os_error),
            interrupted_error: e("InterruptedError", &os_error),
            is_a_directory_error: e("IsADirectoryError", &os_error),
            not_a_directory_error: e("NotADirectoryError", &os_error),
            permission_error: e("PermissionError", &os_error),
            process_lookup_error: e("ProcessLookupError", &os_error),
            connection_error,
            not_implemented_error: e("NotImplementedError", &runtime_error),
            recursion_error: e("RecursionError", &runtime_error),
            reference_error: e("ReferenceError", &exception),
            stop_async_iteration: e("StopAsyncIteration", &exception),
            stop_iteration: e("StopIteration", &exception),
            tab_error: e("TabError", &indentation_error),
            incomplete_input_error: e("_IncompleteInputError", &syntax_error),
            traceback: b("traceback"),
            // Not flagged built-in, so that the VM looks up their `__eq__`, `__hash__`,
            // `__call__`, `__or__` and `__set__` as it does a class's.
            member_descriptor: make_type("member_descriptor", vec![object.clone()], Builtin, false),
            generic_alias: make_type("GenericAlias", vec![object.clone()], Builtin, false),
            union_type: make_type("UnionType", vec![object.clone()], Builtin, false),
            // Not built-in either: their operators are in their dicts (`bytes_type.rs`).
            bytes: make_type("bytes", vec![object.clone()], Builtin, false),
            bytearray: make_type("bytearray", vec![object.clone()], Builtin, false),
            unicode_decode_error: e("UnicodeDecodeError", &unicode_error),
            unicode_encode_error: e("UnicodeEncodeError", &unicode_error),
            indentation_error,
            syntax_error,
            type_error: e("TypeError", &exception),
            unicode_error,
            runtime_warning: e("RuntimeWarning", &warning),
            deprecation_warning: e("DeprecationWarning", &warning),
            user_warning: e("UserWarning", &warning),
            int,
            object,
            base_exception,
            base_exception_group,
            exception,
            arithmetic_error,
            lookup_error,
            name_error,
            runtime_error,
            import_error,
            os_error,
            value_error,
            warning,
        };
        super::patterns::set_builtin_match_flags(&types);
        types
    }

    /// A built-in type no class may derive from (CPython's types without
    /// `Py_TPFLAGS_BASETYPE`): its instances exist only as the VM makes them, so an instance
    /// of a subclass would have none of the state its methods work on.
    pub fn is_final(&self, ty: &Rc<PyType>) -> bool {
        [
            &self.none,
            &self.not_implemented,
            &self.ellipsis,
            &self.bool,
            &self.function,
            &self.builtin_function,
            &self.wrapper_descriptor,
            &self.method_wrapper,
            &self.method,
            &self.cell,
            &self.code,
            &self.frame,
            &self.mappingproxy,
            &self.range,
            &self.slice,
            &self.getset_descriptor,
            &self.generator,
            &self.coroutine,
            &self.coroutine_wrapper,
            &self.async_generator,
            &self.async_generator_asend,
            &self.async_generator_athrow,
            &self.anext_awaitable,
            &self.asyncgen_hooks,
            &self.list_iterator,
            &self.tuple_iterator,
            &self.str_ascii_iterator,
            &self.str_iterator,
            &self.bytes_iterator,
            &self.bytearray_iterator,
            &self.range_iterator,
            &self.longrange_iterator,
            &self.dict_keyiterator,
            &self.dict_valueiterator,
            &self.dict_itemiterator,
            &self.dict_reversekeyiterator,
            &self.dict_reversevalueiterator,
            &self.dict_reverseitemiterator,
            &self.list_reverseiterator,
            &self.set_iterator,
            &self.callable_iterator,
            &self.seq_iterator,
            &self.dict_keys,
            &self.dict_values,
            &self.dict_items,
            &self.odict_iterator,
            &self.odict_keys,
            &self.odict_values,
            &self.odict_items,
        ]
        .into_iter()
        .any(|final_type| Rc::ptr_eq(final_type, ty))
    }

    /// The exception classes that `builtins` exposes by name.
    pub fn exception_types(&self) -> Vec<Rc<PyType>> {
        vec![
            self.base_exception.clone(),
            self.base_exception_group.clone(),
            self.generator_exit.clone(),
            self.keyboard_interrupt.clone(),
            self.system_exit.clone(),
            self.exception.clone(),
            self.arithmetic_error.clone(),
            self.floating_point_error.clone(),
            self.overflow_error.clone(),
            self.zero_division_error.clone(),
            self.assertion_error.clone(),
            self.attribute_error.clone(),
            self.eof_error.clone(),
            self.exception_group.clone(),
            self.import_error.clone(),
            self.module_not_found_error.clone(),
            self.lookup_error.clone(),
            self.index_error.clone(),
            self.key_error.clone(),
            self.memory_error.clone(),
            self.buffer_error.clone(),
            self.name_error.clone(),
            self.unbound_local_error.clone(),
            self.os_error.clone(),
            self.timeout_error.clone(),
            self.blocking_io_error.clone(),
            self.child_process_error.clone(),
            self.connection_error.clone(),
            self.broken_pipe_error.clone(),
            self.connection_aborted_error.clone(),
            self.connection_refused_error.clone(),
            self.connection_reset_error.clone(),
            self.file_exists_error.clone(),
            self.file_not_found_error.clone(),
            self.interrupted_error.clone(),
            self.is_a_directory_error.clone(),
            self.not_a_directory_error.clone(),
            self.permission_error.clone(),
            self.process_lookup_error.clone(),
            self.runtime_error.clone(),
            self.not_implemented_error.clone(),
            self.recursion_error.clone(),
            self.reference_error.clone(),
            self.stop_async_iteration.clone(),
            self.stop_iteration.clone(),
            self.syntax_error.clone(),
            self.indentation_error.clone(),
            self.tab_error.clone(),
            self.incomplete_input_error.clone(),
            self.type_error.clone(),
            self.value_error.clone(),
            self.unicode_error.clone(),
            self.unicode_decode_error.clone(),
            self.unicode_encode_error.clone(),
            self.warning.clone(),
            self.runtime_warning.clone(),
            self.deprecation_warning.clone(),
            self.user_warning.clone(),
        ]
    }
}

thread_local! {
    /// Bumped whenever any type's dict changes: every lookup cache is then stale.
    static TYPE_VERSION: Cell<u64> = const { Cell::new(1) };
}

/// The current type version: equal versions mean no type dict changed in between.
#[inline]
pub fn type_version() -> u64 {
    TYPE_VERSION.with(Cell::get)
}

/// Marks every type's lookup cache stale (after a type dict changed).
pub fn invalidate_lookup_caches() {
    TYPE_VERSION.with(|v| v.set(v.get() + 1));
}

/// Looks `name` up along `ty`'s MRO (`_PyType_Lookup`), through the type's cache.
#[inline]
pub fn lookup(ty: &PyType, name: &Rc<PyStr>) -> Option<Value> {
    let version = TYPE_VERSION.with(Cell::get);
    let slot = cache_slot(name);
    {
        let cache = ty.lookup_cache.borrow();
        if cache.version == version
            && let Some(entries) = &cache.entries
        {
            for entry in &entries[slot..slot + 2] {
                if let Some((key, hit)) = entry
                    && Rc::ptr_eq(key, name)
                {
                    return hit.clone();
                }
            }
        }
    }
    lookup_and_remember(ty, name, version, slot)
}

/// Whether `ty` is a user class with a `__getattribute__` written in Python (`name`),
/// remembered per type until a type dict changes: asked on every general attribute lookup.
pub fn has_own_getattribute(ty: &PyType, name: &Rc<PyStr>) -> bool {
    if ty.builtin {
        return false;
    }
    let version = TYPE_VERSION.with(Cell::get);
    if let Some((at, own)) = ty.lookup_cache.borrow().own_getattribute
        && at == version
    {
        return own;
    }
    let own = matches!(lookup(ty, name), Some(Value::Function(_)));
    ty.lookup_cache.borrow_mut().own_getattribute = Some((version, own));
    own
}

/// For a call of user class `ty`: its `__init__`, when instances are made by
/// `object.__new__` and initialised by a function written in Python (what a class call can
/// run inline, as CPython's `CALL_ALLOC_AND_ENTER_INIT` does). Remembered per type until a
/// type dict changes: asked on every such call.
pub fn inline_init(vm: &Vm, ty: &PyType) -> Option<Rc<Function>> {
    let version = TYPE_VERSION.with(Cell::get);
    if let Some((at, init)) = &ty.lookup_cache.borrow().inline_init
        && *at == version
    {
        return init.clone();
    }
    if vm.meta_call(ty).is_some() || ty.abstract_.get() {
        ty.lookup_cache.borrow_mut().inline_init = Some((version, None));
        return None;
    }
    let made_by_object_new =
        lookup(ty, &vm.names.new).is_some_and(|new| vm.is_native(&new, super::call::object_new));
    let init = match lookup(ty, &vm.names.init) {
        Some(Value::Function(init)) if made_by_object_new => Some(init),
        _ => None,
    };
    ty.lookup_cache.borrow_mut().inline_init = Some((version, init.clone()));
    init
}

/// The cache miss: the MRO walk. Its result goes first in the name's pair of entries,
/// and the entry that was first moves second (so two names sharing a slot both stay).
#[cold]
#[inline(never)]
fn lookup_and_remember(ty: &PyType, name: &Rc<PyStr>, version: u64, slot: usize) -> Option<Value> {
    let found = lookup_uncached(ty, name);
    let mut cache = ty.lookup_cache.borrow_mut();
    if cache.version != version {
        cache.version = version;
        if let Some(entries) = &mut cache.entries {
            entries.iter_mut().for_each(|e| *e = None);
        }
    }
    let entries = cache
        .entries
        .get_or_insert_with(|| Box::new(std::array::from_fn(|_| None)));
    entries[slot + 1] = entries[slot].take();
    entries[slot] = Some((name.clone(), found.clone()));
    found
}

/// The first of the two cache entries a name may occupy: its address, scrambled by one
/// multiplication (the table has one spare entry at the end for the last pair).
#[inline]
fn cache_slot(name: &Rc<PyStr>) -> usize {
    let addr = Rc::as_ptr(name) as usize as u64;
    (addr.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 57) as usize % (LOOKUP_CACHE_SIZE - 1)
}

/// Whether `class.name` is still the built-in method `func` (found along the MRO, not
/// overridden by a subclass or replaced): a native caller may then do its work directly.
pub fn resolves_to_native(class: &PyType, name: &Rc<PyStr>, func: NativeFn) -> bool {
    lookup(class, name).is_some_and(|m| super::object::is_native_fn(&m, func))
}

/// The last class a (costly) check of its attributes was run on, and its outcome,
/// remembered while no type dict changes: e.g. "this queue class still has the native
/// `_put`, `_get`, …". Holds a weak reference, so the class's address cannot be reused by
/// another while remembered.
pub struct ClassMemo {
    class: Cell<*const PyType>,
    version: Cell<u64>,
    passed: Cell<bool>,
    keep: RefCell<std::rc::Weak<PyType>>,
}

impl ClassMemo {
    pub const fn new() -> ClassMemo {
        ClassMemo {
            class: Cell::new(std::ptr::null()),
            version: Cell::new(0),
            passed: Cell::new(false),
            keep: RefCell::new(std::rc::Weak::new()),
        }
    }

    /// Whether `class` passes `check`, run only when `class` is not the one remembered.
    #[inline]
    pub fn passes(&self, class: &Rc<PyType>, check: impl FnOnce(&PyType) -> bool) -> bool {
        let version = TYPE_VERSION.with(Cell::get);
        if self.version.get() == version && std::ptr::eq(self.class.get(), Rc::as_ptr(class)) {
            return self.passed.get();
        }
        self.check_and_remember(class, version, check)
    }

    #[inline(never)]
    fn check_and_remember(
        &self,
        class: &Rc<PyType>,
        version: u64,
        check: impl FnOnce(&PyType) -> bool,
    ) -> bool {
        let passed = check(class);
        *self.keep.borrow_mut() = Rc::downgrade(class);
        self.class.set(Rc::as_ptr(class));
        self.version.set(version);
        self.passed.set(passed);
        passed
    }
}

impl Default for ClassMemo {
    fn default() -> Self {
        Self::new()
    }
}

/// [`lookup`] without the cache (for a name that is not interned, looked up once).
pub fn lookup_uncached(ty: &PyType, name: &PyStr) -> Option<Value> {
    if let Some(v) = ty.dict.borrow().get_str(name) {
        return Some(v.clone());
    }
    let mro = ty.mro.borrow();
    for base in mro.iter().skip(1) {
        if let Some(v) = base.dict.borrow().get_str(name) {
            return Some(v.clone());
        }
    }
    None
}

/// A function or a built-in method: found on a type, it binds the instance as `self`.
pub fn is_plain_method(v: &Value) -> bool {
    match v {
        Value::Function(_) => true,
        Value::Object(o) => matches!(&o.kind, ObjectKind::Native(n) if n.is_method),
        _ => false,
    }
}

/// A descriptor that takes precedence over the instance's `__dict__`: a property, a
/// getset, or an instance of a class with `__set__` or `__delete__` (`PyDescr_IsData`).
pub(super) fn is_data_descriptor(v: &Value, names: &super::Names) -> bool {
    let Value::Object(o) = v else {
        return false;
    };
    match o.kind {
        ObjectKind::Property { .. } | ObjectKind::GetSet { .. } => true,
        _ if o.class.builtin => false,
        _ => lookup(&o.class, &names.set).is_some() || lookup(&o.class, &names.delete).is_some(),
    }
}

/// The method `dunder` (`__get__`, `__set__`, `__delete__`) of `attr`'s class when `attr` is
/// an instance of a user class: the descriptor protocol as a class written in Python has it.
fn user_descriptor_method(attr: &Value, dunder: &Rc<PyStr>) -> Option<Value> {
    match attr {
        Value::Object(o) if !o.class.builtin => lookup(&o.class, dunder),
        _ => None,
    }
}

impl Vm {
    /// `type(v)`.
    #[inline]
    pub fn type_of<'a>(&'a self, v: &'a Value) -> &'a Rc<PyType> {
        let t = &self.types;
        match v {
            Value::Null | Value::None => &t.none,
            Value::NotImplemented => &t.not_implemented,
            Value::Ellipsis => &t.ellipsis,
            Value::Bool(_) => &t.bool,
            Value::Int(_) | Value::BigInt(_) => &t.int,
            Value::Float(_) => &t.float,
            Value::Str(_) => &t.str,
            Value::Tuple(_) => &t.tuple,
            Value::List(_) => &t.list,
            Value::Dict(_) => &t.dict,
            Value::Set(s) => {
                if s.frozen {
                    &t.frozenset
                } else {
                    &t.set
                }
            }
            Value::Type(ty) => ty.meta.as_ref().unwrap_or(&t.type_),
            Value::Function(_) => &t.function,
            Value::Object(o) => &o.class,
        }
    }

    pub fn type_name(&self, v: &Value) -> Rc<str> {
        self.type_of(v).name()
    }

    /// What an argument-checking message ("f() argument 'x' must be str, not …") calls
    /// `v`'s type: `None` for None, as CPython's `_PyArg_BadArgument` does, else its name.
    pub fn arg_type_name(&self, v: &Value) -> Rc<str> {
        match v {
            Value::None => "None".into(),
            other => self.type_name(other),
        }
    }

    pub fn isinstance(&self, v: &Value, ty: &Rc<PyType>) -> bool {
        self.type_of(v).is_subtype(ty)
    }

    /// The value of a name in the builtins module (`memoryview`, `iter`), as a program
    /// that has not replaced it sees it.
    pub fn builtin(&mut self, name: &str) -> PyResult<Value> {
        let key = self.intern(name);
        let value = self.builtins.table.borrow().get_str(&key).cloned();
        value.ok_or_else(|| self.runtime_error(format!("lost builtins.{name}")))
    }

    /// Creates a built-in function value.
    pub fn native(&self, name: &'static str, func: NativeFn) -> Value {
        self.native_function(name, func, false, None)
    }

    /// A method written in Rust of the type named `owner`, binding `self` like a `def`.
    pub fn native_method(&self, owner: Rc<str>, name: &'static str, func: NativeFn) -> Value {
        self.native_function(name, func, true, Some(owner))
    }

    /// A class or static method's native (no `self` to bind): named with its type, as
    /// `dict.fromkeys` is.
    fn native_of_type(&self, ty: &PyType, name: &'static str, func: NativeFn) -> Value {
        self.native_function(name, func, false, Some(ty.name()))
    }

    fn native_function(
        &self,
        name: &'static str,
        func: NativeFn,
        is_method: bool,
        owner: Option<Rc<str>>,
    ) -> Value {
        let class = self.types.builtin_function.clone();
        self.native_function_of(class, name, func, is_method, owner)
    }

    /// A native function or method of the given class (a `wrapper_descriptor` or a
    /// `builtin_function_or_method`).
    fn native_function_of(
        &self,
        class: Rc<PyType>,
        name: &'static str,
        func: NativeFn,
        is_method: bool,
        owner: Option<Rc<str>>,
    ) -> Value {
        Value::object(Object::new(
            class,
            ObjectKind::Native(NativeFunction {
                name,
                func,
                is_method,
                owner,
                module: OnceCell::new(),
            }),
        ))
    }

    /// Adds a method written in Rust to a type (`PyMethodDef`).
    pub fn add_method(&mut self, ty: &Rc<PyType>, name: &'static str, func: NativeFn) {
        let method = self.native_method(ty.name(), name, func);
        let key = self.intern(name);
        ty.dict.borrow_mut().set_str(key, method);
        invalidate_lookup_caches();
    }

    /// Adds a slot wrapper (`list.__len__`: a `wrapper_descriptor`), a method that names
    /// itself so (`vm::repr`) and says "descriptor '__len__' of 'list' object needs an
    /// argument" when called without one (`vm::call`).
    pub fn add_slot_wrapper(&mut self, ty: &Rc<PyType>, name: &'static str, func: NativeFn) {
        let class = self.types.wrapper_descriptor.clone();
        let method = self.native_function_of(class, name, func, true, Some(ty.name()));
        let key = self.intern(name);
        ty.dict.borrow_mut().set_str(key, method);
        invalidate_lookup_caches();
    }

    /// [`Vm::add_method`] for each of a type's `(name, function)` pairs.
    pub fn add_methods(&mut self, ty: &Rc<PyType>, methods: &[(&'static str, NativeFn)]) {
        for &(name, func) in methods {
            self.add_method(ty, name, func);
        }
    }

    /// Adds a class method (`dict.fromkeys`, `int.from_bytes`): the native gets the class
    /// it was looked up on first, so that a subclass can make its own instances.
    pub fn add_class_method(&mut self, ty: &Rc<PyType>, name: &'static str, func: NativeFn) {
        let f = self.native_of_type(ty, name, func);
        let method = Object::new(self.types.classmethod.clone(), ObjectKind::ClassMethod(f));
        self.set_type_attr(ty, name, Value::object(method));
    }

    /// Adds a static method (`int.__new__`, `str.maketrans`) that does not bind an
    /// instance.
    pub fn add_static(&mut self, ty: &Rc<PyType>, name: &'static str, func: NativeFn) {
        let f = self.native_of_type(ty, name, func);
        let method = Object::new(self.types.staticmethod.clone(), ObjectKind::StaticMethod(f));
        self.set_type_attr(ty, name, Value::object(method));
    }

    /// Adds a computed attribute (`PyGetSetDef`) to a type.
    pub fn add_getset(
        &mut self,
        ty: &Rc<PyType>,
        name: &'static str,
        get: Getter,
        set: Option<Setter>,
    ) {
        self.add_getset_with(ty, name, get, set, false);
    }

    /// [`Vm::add_getset`] of an attribute `del` may clear: its setter gets `Null` then.
    pub fn add_deletable_getset(
        &mut self,
        ty: &Rc<PyType>,
        name: &'static str,
        get: Getter,
        set: Setter,
    ) {
        self.add_getset_with(ty, name, get, Some(set), true);
    }

    fn add_getset_with(
        &mut self,
        ty: &Rc<PyType>,
        name: &'static str,
        get: Getter,
        set: Option<Setter>,
        deletable: bool,
    ) {
        let descr = Value::object(Object::new(
            self.types.getset_descriptor.clone(),
            ObjectKind::GetSet {
                name,
                get,
                set,
                deletable,
                owner: ty.name(),
            },
        ));
        let key = self.intern(name);
        ty.dict.borrow_mut().set_str(key, descr);
        invalidate_lookup_caches();
    }

    /// Sets a plain attribute in a type's dict.
    pub fn set_type_attr(&mut self, ty: &Rc<PyType>, name: &str, value: Value) {
        let key = self.intern(name);
        ty.dict.borrow_mut().set_str(key, value);
        invalidate_lookup_caches();
    }

    /// `func` bound to `this`: a `method`, or for a built-in method (`[].append`) a
    /// `builtin_function_or_method` with a `__self__`, as CPython's `PyCFunction` is.
    pub fn bound_method(&self, func: Value, this: Value) -> Value {
        let class = match &func {
            Value::Object(f) if Rc::ptr_eq(&f.class, &self.types.wrapper_descriptor) => {
                &self.types.method_wrapper
            }
            Value::Object(f) if matches!(f.kind, ObjectKind::Native(_)) => {
                &self.types.builtin_function
            }
            _ => &self.types.method,
        };
        self.method_object(class.clone(), func, this)
    }

    /// A bound method object of the given class (`types.MethodType(len, x)` is a `method`).
    pub fn method_object(&self, class: Rc<PyType>, func: Value, this: Value) -> Value {
        Value::object(Object::new(class, ObjectKind::BoundMethod { func, this }))
    }

    /// Binds a class attribute found through an instance (`tp_descr_get`).
    pub(super) fn bind_to_instance(&mut self, attr: Value, obj: &Value) -> PyResult<Value> {
        match &attr {
            Value::Function(_) => Ok(self.bound_method(attr, obj.clone())),
            Value::Object(o) => match &o.kind {
                ObjectKind::Native(n) if n.is_method => {
                    Ok(self.bound_method(attr.clone(), obj.clone()))
                }
                ObjectKind::ClassMethod(f) => {
                    let cls = Value::Type(self.type_of(obj).clone());
                    Ok(self.bound_method(f.clone(), cls))
                }
                ObjectKind::StaticMethod(f) => Ok(f.clone()),
                ObjectKind::Property { fget, .. } => {
                    if fget.is_none() {
                        return Err(self.attribute_error(format!(
                            "property of '{}' object has no getter",
                            self.type_name(obj)
                        )));
                    }
                    let fget = fget.clone();
                    self.call(&fget, std::slice::from_ref(obj), &[])
                }
                ObjectKind::GetSet { get, .. } => get(self, obj),
                _ => match user_descriptor_method(&attr, &self.names.get) {
                    Some(get) => {
                        let owner = Value::Type(self.type_of(obj).clone());
                        self.call(&get, &[attr, obj.clone(), owner], &[])
                    }
                    None => Ok(attr),
                },
            },
            _ => Ok(attr),
        }
    }

    /// A special method that `t`'s metaclass (or a base of it short of `type`) defines
    /// (`len(Color)` is `EnumType.__len__(Color)`); None for a class made by `type`.
    pub fn meta_method(&self, t: &PyType, name: &PyStr) -> Option<Value> {
        let meta = t.meta.as_ref()?;
        let mro = meta.mro.borrow();
        mro.iter()
            .filter(|m| !m.builtin)
            .find_map(|m| m.dict.borrow().get_str(name).cloned())
    }

    /// `obj.name` (`PyObject_GetAttr`).
    pub fn get_attr(&mut self, obj: &Value, name: &Rc<PyStr>) -> PyResult<Value> {
        match self.get_attr_opt(obj, name) {
            Ok(Some(v)) => Ok(v),
            Ok(None) => Err(self.no_attribute(obj, name)),
            Err(exc) => Err(self.attribute_error_context(exc, obj, name)),
        }
    }

    /// `obj.name`, or `None` when the attribute does not exist (no AttributeError built;
    /// a class's own `__getattribute__` raises its own).
    pub fn get_attr_opt(&mut self, obj: &Value, name: &Rc<PyStr>) -> PyResult<Option<Value>> {
        if let Some(getattribute) = self.custom_getattribute(obj) {
            return self.call_getattribute(&getattribute, obj, name).map(Some);
        }
        match self.generic_get_attr(obj, name, true)? {
            None if matches!(obj, Value::Type(t) if self.ready_methods(&t.clone())) => {
                self.generic_get_attr(obj, name, true)
            }
            found => Ok(found),
        }
    }

    /// `object.__getattribute__(obj, name)` (`PyObject_GenericGetAttr`): the instance, its
    /// type and their descriptors, without the class's `__getattr__`.
    pub fn object_get_attr(&mut self, obj: &Value, name: &Rc<PyStr>) -> PyResult<Value> {
        match self.generic_get_attr(obj, name, false)? {
            Some(v) => Ok(v),
            None => Err(self.no_attribute(obj, name)),
        }
    }

    /// The lookup `object.__getattribute__` makes, then (with `use_getattr`) the class's
    /// `__getattr__` for a name it does not find.
    fn generic_get_attr(
        &mut self,
        obj: &Value,
        name: &Rc<PyStr>,
        use_getattr: bool,
    ) -> PyResult<Option<Value>> {
        // The common case first: an instance with a `__dict__`, its type cached.
        if let Value::Object(o) = obj
            && let Some(attrs) = o.attr_storage()
            && !matches!(o.kind, ObjectKind::Module { .. } | ObjectKind::Super { .. })
        {
            let descr = lookup(&o.class, name);
            if let Some(d) = &descr
                && is_data_descriptor(d, &self.names)
            {
                return self.bind_or_getattr(d.clone(), obj, name, use_getattr);
            }
            if let Some(v) = attrs.get(name) {
                return Ok(Some(v));
            }
            return match descr {
                Some(d) => self.bind_or_getattr(d, obj, name, use_getattr),
                None if use_getattr => self.missing_attr(obj, name),
                None => Ok(None),
            };
        }
        match obj {
            Value::Type(t) => {
                return match self.type_get_attr(t, name)? {
                    None if use_getattr => self.metaclass_getattr(t, name),
                    found => Ok(found),
                };
            }
            Value::Object(o) => match &o.kind {
                // The namespace first, unless a subclass of ModuleType has a data
                // descriptor (a property) under the name, which comes before it.
                ObjectKind::Module { dict, .. }
                    if Rc::ptr_eq(&o.class, &self.types.module)
                        || name.as_str() == "__dict__"
                        || !lookup(&o.class, name)
                            .is_some_and(|d| is_data_descriptor(&d, &self.names)) =>
                {
                    if let Some(v) = dict.table.borrow().get_str(name) {
                        return Ok(Some(v.clone()));
                    }
                    // The module type's `__dict__` descriptor: the namespace itself.
                    if name.as_str() == "__dict__" {
                        return Ok(Some(Value::Dict(dict.clone())));
                    }
                }
                ObjectKind::Super {
                    this_class,
                    obj: this,
                } => {
                    if let Some(v) = self.super_lookup(this_class, this, name)? {
                        return Ok(Some(v));
                    }
                }
                _ => {}
            },
            _ => {}
        }
        let ty = self.type_of(obj).clone();
        let descr = lookup(&ty, name);
        if let Some(d) = &descr
            && is_data_descriptor(d, &self.names)
        {
            return self.bind_or_getattr(d.clone(), obj, name, use_getattr);
        }
        let instance_value = match obj {
            Value::Object(o) => o.attr_storage().and_then(|t| t.get(name)),
            Value::Function(f) => f.dict.borrow().get_str(name).cloned(),
            _ => None,
        };
        if let Some(v) = instance_value {
            return Ok(Some(v));
        }
        if let Some(d) = descr {
            return self.bind_or_getattr(d, obj, name, use_getattr);
        }
        if !use_getattr {
            return Ok(None);
        }
        self.missing_attr(obj, name)
    }

    fn type_get_attr(&mut self, t: &Rc<PyType>, name: &Rc<PyStr>) -> PyResult<Option<Value>> {
        let meta = t.meta.clone().unwrap_or_else(|| self.types.type_.clone());
        let meta_attr = lookup(&meta, name);
        if let Some(d) = &meta_attr
            && is_data_descriptor(d, &self.names)
        {
            return self
                .bind_to_instance(d.clone(), &Value::Type(t.clone()))
                .map(Some);
        }
        if let Some(attr) = lookup(t, name) {
            return self.bind_to_class(attr, t).map(Some);
        }
        match meta_attr {
            Some(d) => self.bind_to_instance(d, &Value::Type(t.clone())).map(Some),
            None => Ok(None),
        }
    }

    /// Binds a class attribute found through the class itself (`C.attr`).
    fn bind_to_class(&mut self, attr: Value, cls: &Rc<PyType>) -> PyResult<Value> {
        if let Value::Object(o) = &attr {
            match &o.kind {
                ObjectKind::ClassMethod(f) => {
                    return Ok(self.bound_method(f.clone(), Value::Type(cls.clone())));
                }
                ObjectKind::StaticMethod(f) => return Ok(f.clone()),
                _ => {}
            }
        }
        match user_descriptor_method(&attr, &self.names.get) {
            Some(get) => self.call(&get, &[attr, Value::None, Value::Type(cls.clone())], &[]),
            None => Ok(attr),
        }
    }

    /// `super(this_class, obj).name`: look along obj's MRO after `this_class`.
    pub fn super_lookup(
        &mut self,
        this_class: &Rc<PyType>,
        obj: &Value,
        name: &Rc<PyStr>,
    ) -> PyResult<Option<Value>> {
        let start_type = match obj {
            Value::Type(t) if t.is_subtype(this_class) => t.clone(),
            _ => self.type_of(obj).clone(),
        };
        let mro = start_type.mro();
        let pos = mro
            .iter()
            .position(|t| Rc::ptr_eq(t, this_class))
            .map_or(mro.len(), |p| p + 1);
        for base in &mro[pos..] {
            let found = base.dict.borrow().get_str(name).cloned();
            if let Some(attr) = found {
                return match obj {
                    Value::Type(t) if t.is_subtype(this_class) => {
                        self.bind_to_class(attr, t).map(Some)
                    }
                    _ => self.bind_to_instance(attr, obj).map(Some),
                };
            }
        }
        Ok(None)
    }

    /// For `obj.name(...)`: the callable and the `self` to pass, without allocating a bound
    /// method when the attribute is a plain method on the type (`LOAD_ATTR` method form).
    pub fn load_method(&mut self, obj: &Value, name: &Rc<PyStr>) -> PyResult<(Value, Value)> {
        let ty = self.type_of(obj);
        if !matches!(obj, Value::Type(_)) && self.custom_getattribute(obj).is_none() {
            let descr = lookup(ty, name);
            if let Some(d) = &descr
                && is_plain_method(d)
            {
                // (A `super` object looks past its own type: never in this fast path.)
                let shadowed = match obj {
                    Value::Object(o) => {
                        o.attr_storage().is_some_and(|t| t.get(name).is_some())
                            || matches!(o.kind, ObjectKind::Super { .. })
                    }
                    _ => false,
                };
                if !shadowed {
                    return Ok((d.clone(), obj.clone()));
                }
            }
        }
        let attr = self.get_attr(obj, name)?;
        Ok((attr, Value::Null))
    }

    /// `obj.name = value` (`PyObject_SetAttr`).
    pub fn set_attr(&mut self, obj: &Value, name: &Rc<PyStr>, value: Value) -> PyResult<()> {
        let ty = self.type_of(obj).clone();
        if !ty.builtin
            && let Some(setattr) = lookup(&ty, &self.names.setattr.clone())
            && matches!(setattr, Value::Function(_))
        {
            self.call(
                &setattr,
                &[obj.clone(), Value::Str(name.clone()), value],
                &[],
            )?;
            return Ok(());
        }
        self.generic_set_attr(obj, name, Some(value))
    }

    pub fn del_attr(&mut self, obj: &Value, name: &Rc<PyStr>) -> PyResult<()> {
        let ty = self.type_of(obj).clone();
        if !ty.builtin
            && let Some(delattr) = lookup(&ty, &self.names.delattr.clone())
            && matches!(delattr, Value::Function(_))
        {
            self.call(&delattr, &[obj.clone(), Value::Str(name.clone())], &[])?;
            return Ok(());
        }
        self.generic_set_attr(obj, name, None)
    }

    /// `object.__setattr__` / `object.__delattr__` (value None deletes).
    pub fn generic_set_attr(
        &mut self,
        obj: &Value,
        name: &Rc<PyStr>,
        value: Option<Value>,
    ) -> PyResult<()> {
        if let Value::Type(t) = obj
            && let Some(descr) = self.meta_method(t, name)
            && is_data_descriptor(&descr, &self.names)
        {
            return self.set_through_descriptor(descr, obj, name, value);
        }
        if let Value::Type(t) = obj {
            if let Some(which) = super::type_attrs::TypeName::of(name.as_str()) {
                return super::type_attrs::set_type_name(self, t, which, value);
            }
            if t.builtin {
                return Err(self.type_error(format!(
                    "cannot set '{}' attribute of immutable type '{}'",
                    name.as_str(),
                    t.name()
                )));
            }
            invalidate_lookup_caches();
            if name.as_str() == "__del__" {
                t.has_del.set(true);
            }
            if name.as_str() == "__abstractmethods__" {
                let abstract_ = match &value {
                    Some(v) => self.truthy(v)?,
                    None => false,
                };
                t.abstract_.set(abstract_);
            }
            let mut dict = t.dict.borrow_mut();
            match value {
                Some(v) => dict.set_str(name.clone(), v),
                None => {
                    if dict.remove_str(name).is_none() {
                        drop(dict);
                        return Err(self.no_attribute(obj, name));
                    }
                }
            }
            return Ok(());
        }
        let ty = self.type_of(obj).clone();
        if let Some(descr) = lookup(&ty, name)
            && is_data_descriptor(&descr, &self.names)
        {
            return self.set_through_descriptor(descr, obj, name, value);
        }
        let value = match (obj, value) {
            (Value::Object(o), Some(v)) if !matches!(o.kind, ObjectKind::Module { .. }) => {
                match o.set_instance_attr(name, v) {
                    Ok(()) => return Ok(()),
                    Err(v) => Some(v),
                }
            }
            (_, value) => value,
        };
        let dict = match obj {
            Value::Object(o) => match &o.kind {
                ObjectKind::Module { dict, .. } => Some(&dict.table),
                _ => o.attrs_to_write(),
            },
            Value::Function(f) => Some(&f.dict),
            _ => None,
        };
        let Some(dict) = dict else {
            // What the class has (a method) cannot be set or deleted on such an instance.
            if lookup(&ty, name).is_some() {
                return Err(self.attribute_error(format!(
                    "'{}' object attribute '{}' is read-only",
                    self.tp_name(&ty),
                    name.as_str()
                )));
            }
            let exc = self.attribute_error(format!(
                "'{}' object has no attribute '{}' and no __dict__ for setting new attributes",
                self.tp_name(&ty),
                name.as_str()
            ));
            super::exceptions::set_missing(&exc, Value::str(name.as_str()), obj.clone(), false);
            return Err(exc);
        };
        match value {
            Some(v) => dict.borrow_mut().set_str(name.clone(), v),
            None => {
                let removed = dict.borrow_mut().remove_str(name);
                if removed.is_none() {
                    return Err(self.no_attribute(obj, name));
                }
            }
        }
        Ok(())
    }

    /// `obj.name = value` or `del obj.name` (value None) through `descr`, a data descriptor
    /// that `type(obj)` has under `name`: a property, a getset or a user descriptor.
    pub(super) fn set_through_descriptor(
        &mut self,
        descr: Value,
        obj: &Value,
        name: &Rc<PyStr>,
        value: Option<Value>,
    ) -> PyResult<()> {
        let Value::Object(d) = &descr else {
            return Ok(());
        };
        match &d.kind {
            ObjectKind::Property { fset, fdel, .. } => {
                let (func, what) = if value.is_some() {
                    (fset, "setter")
                } else {
                    (fdel, "deleter")
                };
                if func.is_none() {
                    return Err(self.attribute_error(format!(
                        "property '{}' of '{}' object has no {what}",
                        name.as_str(),
                        self.type_name(obj)
                    )));
                }
                let mut args = vec![obj.clone()];
                args.extend(value);
                self.call(&func.clone(), &args, &[])?;
                Ok(())
            }
            ObjectKind::GetSet { set, deletable, .. } => match (set, value) {
                (Some(set), Some(v)) => set(self, obj, v),
                (Some(set), None) if *deletable => set(self, obj, Value::Null),
                _ => Err(self.attribute_error(format!(
                    "attribute '{}' of '{}' objects is not writable",
                    name.as_str(),
                    self.type_name(obj)
                ))),
            },
            _ => self.call_descriptor_set(descr.clone(), obj, value),
        }
    }

    /// `obj.name = value` or `del obj.name` through a user data descriptor's `__set__` or
    /// `__delete__` (AttributeError naming the missing method, as CPython's slot does).
    fn call_descriptor_set(
        &mut self,
        descr: Value,
        obj: &Value,
        value: Option<Value>,
    ) -> PyResult<()> {
        let dunder = match value {
            Some(_) => self.names.set.clone(),
            None => self.names.delete.clone(),
        };
        let Some(method) = user_descriptor_method(&descr, &dunder) else {
            return Err(self.attribute_error(dunder.as_str()));
        };
        let mut args = vec![descr, obj.clone()];
        args.extend(value);
        self.call(&method, &args, &[])?;
        Ok(())
    }

    /// A new user class (`type.__new__(meta, name, bases, ns)`); `meta` None is `type`.
    pub fn new_class(
        &mut self,
        meta: Option<Rc<PyType>>,
        name: &str,
        bases: Vec<Rc<PyType>>,
        ns: DictTable,
    ) -> PyResult<Rc<PyType>> {
        let bases = if bases.is_empty() {
            vec![self.types.object.clone()]
        } else {
            bases
        };
        for (i, b) in bases.iter().enumerate() {
            if bases[..i].iter().any(|o| Rc::ptr_eq(o, b)) {
                return Err(self.type_error(format!("duplicate base class {}", b.name())));
            }
            if self.types.is_final(b) {
                let name = b.name();
                return Err(
                    self.type_error(format!("type '{name}' is not an acceptable base type"))
                );
            }
        }
        let mut work = 0;
        let merged = c3_merge(&bases, &mut work);
        self.charge(work)?;
        let tail = match merged {
            Ok(tail) => tail,
            Err(names) => {
                return Err(self.type_error(format!(
                    "Cannot create a consistent method resolution order (MRO) for bases {}",
                    names.join(", ")
                )));
            }
        };
        let layout = if bases.iter().any(|b| b.layout == Layout::Exception) {
            Layout::Exception
        } else if bases.iter().any(|b| b.layout == Layout::Builtin) {
            Layout::Builtin
        } else {
            Layout::Object
        };
        let qualname = match ns.get_str(&self.names.qualname.clone()) {
            Some(Value::Str(q)) => q.as_str().into(),
            _ => name.into(),
        };
        let has_del = ns.get_str(&self.names.del).is_some() || tail.iter().any(|b| b.has_del.get());
        let no_dict = super::slots::no_dict(self, &ns, &bases)?;
        let ty = Rc::new(PyType {
            name: RefCell::new(name.into()),
            qualname: RefCell::new(qualname),
            bases,
            meta,
            mro: RefCell::new(Vec::new()),
            dict: RefCell::new(ns),
            layout,
            builtin: false,
            lookup_cache: Default::default(),
            shared_keys: Default::default(),
            native_len: Cell::new(tail.iter().find_map(|base| base.native_len.get())),
            match_flags: Cell::new(super::patterns::inherited_match_flags(&tail)),
            has_del: Cell::new(has_del),
            weakly_watched: Cell::new(false),
            no_dict,
            abstract_: Cell::new(false),
            subclasses: RefCell::new(Vec::new()),
            managed_dict: Cell::new(false),
            init_in_new: Cell::new(false),
        });
        PyType::note_in_bases(&ty);
        let mut mro = vec![ty.clone()];
        mro.extend(tail);
        *ty.mro.borrow_mut() = mro;
        super::teardown::watch_type(&ty);
        let qualname_key = self.names.qualname.clone();
        ty.dict.borrow_mut().remove_str(&qualname_key);
        super::slots::install(self, &ty)?;
        // Every class has its own `__doc__` (None without a docstring), as `PyType_Ready`
        // gives it, after the slots' descriptors: a subclass's instances do not show a
        // base's docstring.
        let doc_key = self.names.doc.clone();
        if ty.dict.borrow().get_str(&doc_key).is_none() {
            ty.dict.borrow_mut().set_str(doc_key, Value::None);
        }
        Ok(ty)
    }

    /// The module a type belongs to, for reprs: `builtins` or its `__module__`.
    pub fn type_module(&self, ty: &PyType) -> Option<Rc<str>> {
        // A built-in type is in `builtins` unless its module says otherwise (`_io.StringIO`).
        if ty.builtin && ty.dict.borrow().get_str(&self.names.module).is_none() {
            return None;
        }
        match ty.dict.borrow().get_str(&self.names.module) {
            Some(Value::Str(m)) => Some(m.as_str().into()),
            _ => None,
        }
    }

    /// CPython's `tp_name` for `ty`, which its messages about an object's type use: a
    /// type CPython defines in C outside builtins is named with its module
    /// (`collections.deque`, `_asyncio.Future`), anything else (`int`, a class) by its name.
    pub fn tp_name(&self, ty: &PyType) -> Rc<str> {
        if let Some(module) = self.type_module(ty) {
            let qualified = format!("{module}.{}", ty.name());
            if super::cpython_names::is_c_type_outside_builtins(&qualified) {
                return qualified.into();
            }
        }
        ty.name()
    }

    /// The `tp_name` of `v`'s type ([`Vm::tp_name`]).
    pub fn object_type_name(&self, v: &Value) -> Rc<str> {
        self.tp_name(self.type_of(v))
    }

    /// `<class '__main__.C'>` / `<class 'int'>`.
    pub fn type_repr(&self, ty: &PyType) -> String {
        match self.type_module(ty) {
            Some(m) if &*m != "builtins" => format!("<class '{m}.{}'>", ty.qualname()),
            _ => format!("<class '{}'>", ty.qualname()),
        }
    }
}

/// The string a module's `__dict__` holds under `key` (read in place: no `__getattr__`).
pub(super) fn module_dict_str(dict: &super::PyDict, key: &str) -> Option<String> {
    match dict.table.borrow().get_str(&PyStr::new(key)) {
        Some(Value::Str(s)) => Some(s.as_str().to_string()),
        _ => None,
    }
}
