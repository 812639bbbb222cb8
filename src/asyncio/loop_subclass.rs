//! Subclasses of the event loop written in apy (`class MyLoop(asyncio.SelectorEventLoop)`):
//! an instance is a native loop (`event_loop::LoopObj`) of the subclass, with a `__dict__`.
//! CPython's loop is written in Python and calls some of its own methods through `self`
//! (`call_later` calls `self.call_at(...)`, `run_until_complete` calls `self.run_forever()`,
//! `call_exception_handler` calls `self.default_exception_handler(...)`), and its futures
//! and tasks go through the loop's methods too (every done callback and every step of a
//! task is scheduled with `loop.call_soon`, `ensure_future` and `asyncio.create_task` ask
//! `loop.create_task`). Where a subclass, or the instance itself, replaces one of those
//! methods ([`Method`]), the native code calls the replacement in their place. Which ones
//! its class replaces a loop works out once, and again only after a type dict changed
//! ([`Overrides`]); a loop of the plain class has no `__dict__` and checks nothing
//! ([`checks`]). Not
//! followed: `_run_once` (the loop's iteration) and `time` (the loop's clock, which its
//! timers and its waits read natively).
//!
//! Below the loop: knows the loop's natives only as `mod.rs` hands them over
//! ([`know_natives`]), and calls the methods through the VM.

use std::cell::Cell;
use std::sync::OnceLock;

use crate::vm::args::{check_kwargs, kwarg};
use crate::vm::object::{KwArgs, NativeFn, Object, PyType};
use crate::vm::types::{lookup, type_version};
use crate::vm::value::Value;
use crate::vm::{PyResult, Vm};

/// A method of the loop that CPython's asyncio calls through the loop, and the native code
/// therefore through a subclass's replacement of it.
#[derive(Clone, Copy)]
pub enum Method {
    CallSoon,
    CallAt,
    CreateTask,
    RunForever,
    Stop,
    CallExceptionHandler,
    DefaultExceptionHandler,
}

/// How many [`Method`]s there are.
pub const METHODS: usize = 7;

/// Each [`Method`]'s name, in the enum's order.
const NAMES: [&str; METHODS] = [
    "call_soon",
    "call_at",
    "create_task",
    "run_forever",
    "stop",
    "call_exception_handler",
    "default_exception_handler",
];

/// Each [`Method`]'s native on the loop's own class, in the enum's order.
static NATIVES: OnceLock<&'static [NativeFn; METHODS]> = OnceLock::new();

/// Tells this file the natives of the loop's [`Method`]s, in the enum's order (`mod.rs`,
/// as it gives the loop's class its methods).
pub fn know_natives(natives: &'static [NativeFn; METHODS]) {
    let _ = NATIVES.set(natives);
}

/// Whether `class` has a `method` other than the loop's native (and has one at all).
fn class_replaces(vm: &mut Vm, class: &PyType, method: usize) -> bool {
    let name = vm.intern(NAMES[method]);
    let native = NATIVES.get().map(|natives| natives[method]);
    lookup(class, &name).is_some_and(|found| {
        !native.is_some_and(|native| crate::vm::object::is_native_fn(&found, native))
    })
}

/// What a loop remembers of its class: which [`Method`]s the class replaces (a bit for
/// each), as of type version `version` (0: not worked out yet); a type dict changing (a
/// method assigned to the class later) makes it work them out again.
#[derive(Default)]
pub struct Overrides {
    version: Cell<u64>,
    replaced: Cell<u8>,
}

impl Overrides {
    /// Whether a new loop of `class` (`plain`: the loop's own class) is to check for
    /// methods of its own: not when it is of the plain class and that replaces none of
    /// them now. Such a loop gets no `__dict__` ([`checks`]) and checks nothing more: a
    /// method assigned to the loop's class after it was made is not followed for it.
    pub fn to_check(&self, vm: &mut Vm, class: &PyType, plain: bool) -> bool {
        !plain || self.of(vm, class) != 0
    }

    /// The [`Method`]s `class` replaces, a bit for each.
    #[inline]
    fn of(&self, vm: &mut Vm, class: &PyType) -> u8 {
        let version = type_version();
        if self.version.get() == version {
            return self.replaced.get();
        }
        let mut replaced = 0;
        for method in 0..METHODS {
            if class_replaces(vm, class, method) {
                replaced |= 1 << method;
            }
        }
        self.version.set(version);
        self.replaced.set(replaced);
        replaced
    }

    /// Whether the loop `this`, which [`checks`] and remembers this of its class, has its
    /// own `method`: its class replaces it, or an attribute of the instance does.
    #[inline(never)]
    pub fn replaced(&self, vm: &mut Vm, this: &Value, method: Method) -> bool {
        let Value::Object(o) = this else {
            return false;
        };
        self.of(vm, &o.class) & (1 << method as u8) != 0
            || (o.attr_storage().is_some_and(|attrs| !attrs.is_empty())
                && on_instance(vm, o, method))
    }
}

/// Whether the loop `loop_value` may have methods of its own: it has a `__dict__`, which
/// every loop has but one of the plain class made when that replaced none
/// ([`Overrides::to_check`]). Asked first, from the object alone.
#[inline]
pub fn checks(loop_value: &Value) -> bool {
    matches!(loop_value, Value::Object(o) if o.attr_storage().is_some())
}

/// Whether the loop `o`'s own attributes (not empty) replace `method`.
#[cold]
fn on_instance(vm: &mut Vm, o: &Object, method: Method) -> bool {
    let name = vm.intern(NAMES[method as usize]);
    o.attr_storage()
        .is_some_and(|attrs| attrs.get(&name).is_some())
}

/// Whether the loop `loop_value` has its own `method`, worked out afresh (for the rare
/// paths: the loop's reports of errors).
fn replaces(vm: &mut Vm, loop_value: &Value, method: Method) -> bool {
    checks(loop_value) && Overrides::default().replaced(vm, loop_value, method)
}

/// `_UnixSelectorEventLoop.__init__(self, selector=None)`, which a subclass's `__init__`
/// calls as `super().__init__()`: `__new__` made the loop whole, so only the arguments are
/// checked.
pub fn loop_init(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let qualname = "_UnixSelectorEventLoop.__init__";
    check_kwargs(vm, qualname, kw, &["selector"])?;
    let given = args.len() + usize::from(kwarg(kw, "selector").is_some());
    if given > 2 {
        let text = match kw.is_empty() {
            true => crate::vm::call::too_many_positional_text(qualname, 2, 1, args.len(), 0),
            false => format!("{qualname}() got multiple values for argument 'selector'"),
        };
        return Err(vm.type_error(text));
    }
    Ok(Value::None)
}

/// `loop.call_soon(callback, *args, context=context)` through the loop's replacement of
/// `call_soon` (what a future or a task asks of the loop, `task::call_soon_of_loop`).
pub fn call_soon(
    vm: &mut Vm,
    loop_value: &Value,
    callback: Value,
    arg: Option<Value>,
    context: Value,
) -> PyResult<()> {
    let name = vm.intern("call_soon");
    let method = vm.get_attr(loop_value, &name)?;
    let args: Vec<Value> = std::iter::once(callback).chain(arg).collect();
    let kw = [(vm.intern("context"), context)];
    vm.call(&method, &args, &kw).map(drop)
}

/// `loop.create_task(coro, name=name, context=context)` for a loop that replaces
/// `create_task` (as `asyncio.create_task` and `ensure_future` call it), with the keywords
/// given: `name` when Some, `context` when Some and not None.
#[inline(never)]
pub fn create_task(
    vm: &mut Vm,
    loop_value: &Value,
    coro: Value,
    name: Option<Value>,
    context: Option<Value>,
) -> PyResult<Value> {
    let mut kw = Vec::new();
    if let Some(name) = name {
        kw.push((vm.intern("name"), name));
    }
    if let Some(context) = context.filter(|c| !c.is_none()) {
        kw.push((vm.intern("context"), context));
    }
    let key = vm.intern("create_task");
    let method = vm.get_attr(loop_value, &key)?;
    vm.call(&method, &[coro], &kw)
}

/// `call_later`'s `self.call_at(when, callback, *args, context=context)` for a loop that
/// replaces `call_at`. `args` are `call_later`'s (self, delay, callback, *args).
#[inline(never)]
pub fn call_at(vm: &mut Vm, args: &[Value], kw: &KwArgs, when: f64) -> PyResult<Value> {
    let key = vm.intern("call_at");
    let method = vm.get_attr(&args[0], &key)?;
    let mut all = vec![Value::Float(when)];
    all.extend_from_slice(&args[2..]);
    let context = kwarg(kw, "context").unwrap_or(Value::None);
    let kw = [(vm.intern("context"), context)];
    vm.call(&method, &all, &kw)
}

/// `self.call_exception_handler(context)` or `self.default_exception_handler(context)`
/// (`handler`) through the loop's replacement, when it has one (then Some, with what it
/// did).
pub fn call_handler(
    vm: &mut Vm,
    loop_value: &Value,
    handler: Method,
    context: &Value,
) -> Option<PyResult<()>> {
    replaces(vm, loop_value, handler).then(|| {
        let args = std::slice::from_ref(context);
        vm.call_method(loop_value, NAMES[handler as usize], args)
            .map(drop)
    })
}

/// Whether the loop `loop_value` replaces either of its exception handler's methods, so
/// that a report goes through `call_exception_handler` as if a handler were set.
pub fn replaces_exception_handling(vm: &mut Vm, loop_value: &Value) -> bool {
    replaces(vm, loop_value, Method::CallExceptionHandler)
        || replaces(vm, loop_value, Method::DefaultExceptionHandler)
}
