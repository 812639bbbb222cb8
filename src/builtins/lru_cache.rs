//! `functools._lru_cache_wrapper`, the object `@lru_cache` and `@cache` make
//! (`Modules/_functoolsmodule.c`): native, as CPython's is C, so that a cached function
//! costs one Python frame per call, not two — `@cache def fib(n)` recurses as deep as the
//! plain function does before RecursionError, and a traceback through it shows no
//! wrapper line, as in CPython. `functools.apy` decorates with it and copies the
//! function's name and docs onto it (`update_wrapper`).
//!
//! The cache is a dict whose order is the recency order (a hit moves its key to the
//! end, the oldest key is evicted first): CPython's keeps a linked list beside its dict,
//! with the same hits, misses and evictions.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use crate::vm::args::check_arity;
use crate::vm::object::{KwArgs, Layout, Object, ObjectKind, PyType};
use crate::vm::types::make_type;
use crate::vm::value::{DictTable, PyDict, Value};
use crate::vm::{PyResult, Vm};

/// What an `_lru_cache_wrapper` keeps.
struct LruCache {
    function: Value,
    /// None: unbounded (`maxsize=None`); `Some(0)`: nothing is cached.
    maxsize: Option<usize>,
    typed: bool,
    /// Calls `functools._cache_info_type()`, which makes the `CacheInfo` named tuple on
    /// first use (CPython passes the type itself; apy's functools makes it lazily, so
    /// that importing functools does not import collections).
    cache_info_type: Value,
    /// Separates the positional arguments from the keywords in a key (`kwd_mark`).
    keyword_mark: Value,
    cache: Rc<PyDict>,
    hits: Cell<u64>,
    misses: Cell<u64>,
}

/// The `_lru_cache_wrapper` type, for `_functools`.
pub fn wrapper_type(vm: &mut Vm) -> Rc<PyType> {
    let ty = make_type(
        "_lru_cache_wrapper",
        vec![vm.types.object.clone()],
        Layout::Builtin,
        false,
    );
    vm.set_type_attr(&ty, "__module__", Value::str("functools"));
    vm.add_static(&ty, "__new__", lru_new);
    vm.add_method(&ty, "__call__", lru_call);
    vm.add_method(&ty, "__get__", lru_get);
    vm.add_method(&ty, "cache_info", cache_info);
    vm.add_method(&ty, "cache_clear", cache_clear);
    vm.add_method(&ty, "__reduce__", |vm, args, _| {
        check_arity(vm, "__reduce__", args, 1, 1)?;
        let name = vm.intern("__qualname__");
        vm.get_attr(&args[0], &name)
    });
    vm.add_method(&ty, "__copy__", |vm, args, _| {
        check_arity(vm, "__copy__", args, 1, 1)?;
        Ok(args[0].clone())
    });
    vm.add_method(&ty, "__deepcopy__", |vm, args, _| {
        check_arity(vm, "__deepcopy__", args, 2, 2)?;
        Ok(args[0].clone())
    });
    ty
}

/// `_lru_cache_wrapper(user_function, maxsize, typed, cache_info_type)`.
fn lru_new(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    crate::vm::args::check_kwargs(vm, "_lru_cache_wrapper", kw, &[])?;
    let [Value::Type(cls), function, maxsize, typed, cache_info_type] = args else {
        return Err(vm.type_error(format!(
            "_lru_cache_wrapper() takes exactly 4 arguments ({} given)",
            args.len().saturating_sub(1)
        )));
    };
    if !vm.is_callable(function) {
        return Err(vm.type_error("the first argument must be callable"));
    }
    let maxsize = match maxsize {
        Value::None => None,
        other => match vm.index_value(other)? {
            Some(n) => Some(n.max(0) as usize),
            None => return Err(vm.type_error("maxsize should be integer or None")),
        },
    };
    let typed = vm.truthy(typed)?;
    let keyword_mark = vm.new_instance(&vm.types.object.clone());
    let cache = LruCache {
        function: function.clone(),
        maxsize,
        typed,
        cache_info_type: cache_info_type.clone(),
        keyword_mark,
        cache: Rc::new(PyDict {
            table: RefCell::new(DictTable::new()),
        }),
        hits: Cell::new(0),
        misses: Cell::new(0),
    };
    // A `__dict__` of its own: `update_wrapper` puts the function's name and docs there.
    Ok(Value::object(Object::with_dict(
        cls.clone(),
        ObjectKind::Other(Box::new(cache)),
    )))
}

fn this<'a>(vm: &Vm, args: &'a [Value], method: &str) -> PyResult<&'a LruCache> {
    match args.first().and_then(|v| v.native::<LruCache>()) {
        Some(cache) => Ok(cache),
        None => Err(vm.type_error(format!(
            "descriptor '{method}' requires a 'functools._lru_cache_wrapper' object"
        ))),
    }
}

/// Calling the wrapper: the cached result for these arguments, or the function's (then
/// cached, evicting the least recently used result when the cache is full).
fn lru_call(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let lru = this(vm, args, "__call__")?;
    let call_args = &args[1..];
    let (function, cache) = (lru.function.clone(), lru.cache.clone());
    if lru.maxsize == Some(0) {
        lru.misses.set(lru.misses.get() + 1);
        return vm.call(&function, call_args, kw);
    }
    let key = make_key(lru, call_args, kw, vm);
    if let Some(result) = vm.dict_get(&cache, &key)? {
        if lru.maxsize.is_some() {
            // Most recently used now: to the end of the order.
            vm.dict_del(&cache, &key)?;
            vm.dict_set(&cache, key, result.clone())?;
        }
        lru.hits.set(lru.hits.get() + 1);
        return Ok(result);
    }
    lru.misses.set(lru.misses.get() + 1);
    let maxsize = lru.maxsize;
    let result = vm.call(&function, call_args, kw)?;
    let Some(maxsize) = maxsize else {
        vm.dict_set(&cache, key, result.clone())?;
        return Ok(result);
    };
    // The call itself may have cached this key (a recursive call): that entry stays.
    if vm.dict_get(&cache, &key)?.is_some() {
        return Ok(result);
    }
    let oldest = {
        let table = cache.table.borrow();
        match table.len() >= maxsize {
            true => table.iter().next().map(|e| e.key.clone()),
            false => None,
        }
    };
    if let Some(oldest) = oldest {
        vm.dict_del(&cache, &oldest)?;
    }
    vm.dict_set(&cache, key, result.clone())?;
    Ok(result)
}

/// `lru_cache_make_key`: one str or int argument is its own key; otherwise a tuple of the
/// arguments, then the keyword mark and each keyword and value, then (`typed`) their
/// types.
fn make_key(lru: &LruCache, args: &[Value], kw: &KwArgs, vm: &Vm) -> Value {
    if !lru.typed && kw.is_empty() {
        if let [only @ (Value::Int(_) | Value::BigInt(_) | Value::Str(_))] = args {
            return only.clone();
        }
        return Value::tuple(args.to_vec());
    }
    let mut key = args.to_vec();
    if !kw.is_empty() {
        key.push(lru.keyword_mark.clone());
        for (name, value) in kw {
            key.push(Value::Str(name.clone()));
            key.push(value.clone());
        }
    }
    if lru.typed {
        let types = args.iter().chain(kw.iter().map(|(_, v)| v));
        key.extend(
            types
                .map(|v| Value::Type(vm.type_of(v).clone()))
                .collect::<Vec<_>>(),
        );
    }
    Value::tuple(key)
}

/// `__get__`: looked up through an instance, a cached method binds it, as a function does.
fn lru_get(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    check_arity(vm, "__get__", args, 2, 3)?;
    Ok(match &args[1] {
        Value::None => args[0].clone(),
        obj => {
            let method = vm.types.method.clone();
            vm.method_object(method, args[0].clone(), obj.clone())
        }
    })
}

/// `cache_info()`: `CacheInfo(hits, misses, maxsize, currsize)`.
fn cache_info(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    check_arity(vm, "cache_info", args, 1, 1)?;
    let lru = this(vm, args, "cache_info")?;
    let fields = [
        Value::Int(lru.hits.get() as i64),
        Value::Int(lru.misses.get() as i64),
        lru.maxsize.map_or(Value::None, |n| Value::Int(n as i64)),
        Value::Int(lru.cache.table.borrow().len() as i64),
    ];
    let make_type = lru.cache_info_type.clone();
    let info_type = vm.call(&make_type, &[], &[])?;
    vm.call(&info_type, &fields, &[])
}

/// `cache_clear()`: forgets every result and the statistics.
fn cache_clear(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    check_arity(vm, "cache_clear", args, 1, 1)?;
    let lru = this(vm, args, "cache_clear")?;
    lru.hits.set(0);
    lru.misses.set(0);
    // Taken out first: dropping the results may run code that uses the cache.
    let old = std::mem::take(&mut *lru.cache.table.borrow_mut());
    drop(old);
    Ok(Value::None)
}
