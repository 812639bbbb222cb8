//! How asyncio's native classes are made: each shown as of the module CPython defines it in
//! (`_asyncio.Future`, `asyncio.events.Handle`, …), and the loop's class with the classes
//! above it in CPython's order, `_UnixSelectorEventLoop` (`asyncio.unix_events`) →
//! `BaseSelectorEventLoop` (`asyncio.selector_events`) → `BaseEventLoop`
//! (`asyncio.base_events`) → `AbstractEventLoop` (`asyncio.events`) → `object`, so that
//! `isinstance(loop, asyncio.BaseEventLoop)` holds. The loop's methods are its own class's
//! (natively), but for those `lib/asyncio.apy` gives `BaseEventLoop`.

use std::rc::Rc;

use crate::vm::Vm;
use crate::vm::object::{Layout, PyType};
use crate::vm::types::make_type;
use crate::vm::value::Value;

/// A class of asyncio's natives named `name`, shown as of `module`.
pub fn class_in(vm: &mut Vm, name: &str, bases: Vec<Rc<PyType>>, module: &str) -> Rc<PyType> {
    let ty = make_type(name, bases, Layout::Builtin, false);
    vm.set_type_attr(&ty, "__module__", Value::str(module));
    ty
}

/// The loop's class and the two of its bases that asyncio names.
pub struct LoopClasses {
    /// `_UnixSelectorEventLoop` (`asyncio.EventLoop`), the class of every loop apy makes.
    pub event_loop: Rc<PyType>,
    pub base_event_loop: Rc<PyType>,
    pub abstract_event_loop: Rc<PyType>,
}

/// Makes the loop's class and the classes above it.
pub fn loop_classes(vm: &mut Vm) -> LoopClasses {
    let object = vm.types.object.clone();
    let abstract_event_loop = class_in(vm, "AbstractEventLoop", vec![object], "asyncio.events");
    let base_event_loop = class_in(
        vm,
        "BaseEventLoop",
        vec![abstract_event_loop.clone()],
        "asyncio.base_events",
    );
    let base_selector_event_loop = class_in(
        vm,
        "BaseSelectorEventLoop",
        vec![base_event_loop.clone()],
        "asyncio.selector_events",
    );
    let event_loop = class_in(
        vm,
        "_UnixSelectorEventLoop",
        vec![base_selector_event_loop],
        "asyncio.unix_events",
    );
    LoopClasses {
        event_loop,
        base_event_loop,
        abstract_event_loop,
    }
}
