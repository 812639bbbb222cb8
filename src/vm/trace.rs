//! The `frames` events of the `--trace` log (each send/throw into a coroutine or
//! async-generator frame, and how it left), and the helpers every event uses to describe
//! values, exceptions and callables without running Python code. The log's format, its
//! categories and its writer are in `common/trace.rs` (its module doc is the reference);
//! the event loop's, tasks', futures' and hooks' events are in `asyncio/trace.rs`.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::{Rc, Weak};

use super::frame::{Frame, FrameResult, GenKind, Generator};

use super::object::{Object, ObjectKind};
use super::value::Value;
use super::{Exc, Vm};
use crate::common::trace::{Category, on};
use crate::vm::frame::as_generator;

/// A layer's names for objects of its own native types, or None for other objects.
pub type Namer = fn(&Value) -> Option<String>;

#[derive(Default)]
struct State {
    /// Numbers given to objects on first mention. The weak reference keeps the allocation,
    /// so no later object can take the same address while its number is remembered.
    ids: HashMap<usize, (Weak<Object>, u32)>,
    next_id: u32,
    /// How many coroutine frames are resuming one another (`frames` indentation).
    frame_depth: usize,
}

thread_local! {
    static STATE: RefCell<State> = RefCell::new(State::default());
    static NAMER: Cell<Option<Namer>> = const { Cell::new(None) };
}

/// Names objects of a higher layer's native types (asyncio's `Task-2`, `Future#1`) when
/// they are described, instead of `<Foo object>`; set by that layer when it makes the types.
pub fn name_objects_with(namer: Namer) {
    NAMER.with(|n| n.set(Some(namer)));
}

/// Writes one line of the log, indented by two spaces inside a loop iteration plus `extra`;
/// the program's output written so far comes first when the log goes to stderr.
pub fn emit(vm: &mut Vm, extra: usize, text: &str) {
    crate::common::trace::emit(extra, text, || vm.flush_stdout());
}

// ---- threads --------------------------------------------------------------------------

/// Thread `to` runs now, because thread `from` stopped for `why` (`vm::threads`).
#[inline]
pub fn thread_switch(vm: &mut Vm, to: &str, from: &str, why: &str) {
    if on(Category::Threads) {
        cold_thread_switch(vm, to, from, why);
    }
}

#[cold]
fn cold_thread_switch(vm: &mut Vm, to: &str, from: &str, why: &str) {
    emit(vm, 0, &format!("thread {to} takes over: {from} {why}"));
}

// ---- frames ---------------------------------------------------------------------------

/// `send`/`throw` into a coroutine or async-generator frame, suspended at `frame`'s line
/// (or not started yet), with `sent` (None on a throw).
#[inline]
pub fn frame_enter(vm: &mut Vm, g: &Generator, frame: &Frame, sent: &Value, throw: Option<&Exc>) {
    if on(Category::Frames) && g.kind != GenKind::Generator {
        cold_frame_enter(vm, g, frame, sent, throw);
    }
}

#[cold]
fn cold_frame_enter(vm: &mut Vm, g: &Generator, frame: &Frame, sent: &Value, throw: Option<&Exc>) {
    let what = match throw {
        Some(e) => format!("throw {}", describe_exc(e)),
        None => format!("send {}", describe(sent)),
    };
    let depth = STATE.with(|s| {
        let mut s = s.borrow_mut();
        s.frame_depth += 1;
        s.frame_depth
    });
    let at = if frame.ip == 0 {
        "at its start".to_string()
    } else {
        format!("line {}", frame.line())
    };
    let text = format!("> {what} into {}() {at}", g.qualname);
    emit(vm, 2 * depth, &text);
}

/// The frame entered by [`frame_enter`] suspended, returned or raised (`outcome`, made
/// only when the category is on), at `frame`'s line.
#[inline]
pub fn frame_leave(
    vm: &mut Vm,
    g: &Generator,
    frame: &Frame,
    outcome: impl FnOnce() -> FrameResult,
) {
    if on(Category::Frames) && g.kind != GenKind::Generator {
        cold_frame_leave(vm, g, frame, &outcome());
    }
}

#[cold]
fn cold_frame_leave(vm: &mut Vm, g: &Generator, frame: &Frame, result: &FrameResult) {
    let depth = STATE.with(|s| {
        let mut s = s.borrow_mut();
        let depth = s.frame_depth;
        s.frame_depth = depth.saturating_sub(1);
        depth
    });
    let at = format!(" line {}", frame.line());
    let what = match result {
        FrameResult::Yielded(v) => format!("yielded {}", describe(v)),
        FrameResult::Returned(v) => format!("returned {}", describe(v)),
        FrameResult::Err(e) => format!("raised {}", describe_exc(e)),
    };
    emit(vm, 2 * depth, &format!("< {}(){at} {what}", g.qualname));
}

// ---- describing values without running Python code ------------------------------------

/// A number for `v`, given on first mention (1, 2, …): a stable stand-in for its address.
pub fn object_number(v: &Value) -> u32 {
    let Value::Object(o) = v else {
        return 0;
    };
    STATE.with(|s| {
        let mut s = s.borrow_mut();
        let key = Rc::as_ptr(o) as usize;
        if let Some((_, id)) = s.ids.get(&key) {
            return *id;
        }
        s.next_id += 1;
        let id = s.next_id;
        s.ids.insert(key, (Rc::downgrade(o), id));
        id
    })
}

/// The name the layer that made `v`'s native type gives it ([`name_objects_with`]).
fn object_name(v: &Value) -> Option<String> {
    NAMER.with(Cell::get).and_then(|namer| namer(v))
}

/// `main()` for a generator or coroutine, else `v` described.
pub fn generator_call(v: &Value) -> String {
    as_generator(v).map_or_else(|| describe(v), |g| format!("{}()", g.qualname))
}

/// `f(1, Future#2)`: a callback and its arguments.
pub fn describe_call(callback: &Value, args: &[Value]) -> String {
    let (func, mut all) = match callback {
        Value::Object(o) => match &o.kind {
            ObjectKind::Partial { func, args, .. } => (func.clone(), args.clone()),
            _ => (callback.clone(), vec![]),
        },
        _ => (callback.clone(), vec![]),
    };
    all.extend_from_slice(args);
    let shown: Vec<String> = all.iter().map(describe).collect();
    format!("{}({})", callable_name(&func), shown.join(", "))
}

/// A callable by name, or a `functools.partial` with its arguments.
pub fn describe_callable(func: &Value) -> String {
    match func {
        Value::Object(o) if matches!(o.kind, ObjectKind::Partial { .. }) => {
            describe_call(func, &[])
        }
        _ => callable_name(func),
    }
}

fn callable_name(func: &Value) -> String {
    match func {
        Value::Function(f) => f.qualname.borrow().to_string(),
        Value::Type(t) => t.name().to_string(),
        Value::Object(o) => match &o.kind {
            ObjectKind::BoundMethod { func, this } => {
                let owner = object_name(this).unwrap_or_else(|| this_type_name(this));
                match func {
                    Value::Function(f) => format!("{owner}.{}", f.name.borrow().as_str()),
                    other => format!("{owner}.{}", callable_name(other)),
                }
            }
            ObjectKind::Native(n) => n.name.to_string(),
            _ => describe(func),
        },
        other => describe(other),
    }
}

fn this_type_name(v: &Value) -> String {
    match v {
        Value::Object(o) => o.class.name().to_string(),
        Value::Type(t) => t.name().to_string(),
        _ => describe(v),
    }
}

/// `ValueError('boom')`.
pub fn describe_exc(e: &Exc) -> String {
    let args = match e.exc_data().map(|d| d.borrow().args.clone()) {
        Some(Value::Tuple(t)) => t.items.iter().map(describe).collect::<Vec<_>>(),
        _ => vec![],
    };
    format!("{}({})", e.class.name(), args.join(", "))
}

/// A value as `repr` shows it for built-in types, without running any Python code.
pub fn describe(v: &Value) -> String {
    let text = describe_full(v);
    if text.chars().count() <= 60 {
        return text;
    }
    let cut: String = text.chars().take(56).collect();
    format!("{cut}...")
}

fn describe_full(v: &Value) -> String {
    let items = |items: &[Value], open: &str, close: &str| {
        let mut shown: Vec<String> = items.iter().take(5).map(describe).collect();
        if items.len() > 5 {
            shown.push("...".into());
        }
        let comma = if open == "(" && items.len() == 1 {
            ","
        } else {
            ""
        };
        format!("{open}{}{comma}{close}", shown.join(", "))
    };
    match v {
        Value::Null => "<NULL>".into(),
        Value::None => "None".into(),
        Value::NotImplemented => "NotImplemented".into(),
        Value::Ellipsis => "Ellipsis".into(),
        Value::Bool(true) => "True".into(),
        Value::Bool(false) => "False".into(),
        Value::Int(i) => i.to_string(),
        Value::Float(f) => crate::common::float_repr::float_repr(*f),
        Value::BigInt(i) => i.to_string(),
        Value::Str(s) => {
            // Long strings keep their two ends, as `reprlib.repr` shows them.
            let shown: Vec<char> = crate::common::chars::str_repr(s.as_str()).chars().collect();
            if shown.len() <= 40 {
                shown.into_iter().collect()
            } else {
                let head: String = shown[..18].iter().collect();
                let tail: String = shown[shown.len() - 18..].iter().collect();
                format!("{head}...{tail}")
            }
        }
        Value::Tuple(t) => items(&t.items, "(", ")"),
        Value::List(l) => items(&l.items.borrow(), "[", "]"),
        Value::Dict(_) => "<dict>".into(),
        Value::Set(_) => "<set>".into(),
        Value::Type(t) => format!("<class '{}'>", t.name()),
        Value::Function(f) => format!("<function {}>", f.qualname.borrow()),
        Value::Object(o) => match &o.kind {
            ObjectKind::Exception(_) => describe_exc(o),
            ObjectKind::Generator(g) => {
                let noun = match g.kind {
                    GenKind::Generator => "generator",
                    GenKind::Coroutine => "coroutine",
                    GenKind::AsyncGenerator => "async_generator",
                };
                format!("<{noun} {}()>", g.qualname)
            }
            _ => object_name(v).unwrap_or_else(|| format!("<{} object>", o.class.name())),
        },
    }
}
