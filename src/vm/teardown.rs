//! What an interpreter leaves behind once it is dropped: the reference cycles `Rc` never
//! frees, since apy has no cycle collector. Every class is first in its own MRO; a module's
//! functions hold its namespace, which holds them; a method holds its module's namespace,
//! which holds its class. Left alone, a whole interpreter (some 500 KB with no import at
//! all) stayed behind after each run, which mattered to embedders running many programs in
//! one process (the `run` fuzz target) and to the page's worker.
//!
//! So the interpreter thread, after dropping its `Vm`, calls [`collect_cycles`] (unless the
//! process ends with the run: `interp::Config::exiting`, the command line), which
//! breaks them where CPython's `finalize_modules` breaks them, every module's namespace
//! cleared, and in every class still alive (its dict, MRO and lookup cache), freeing what
//! they held. Module namespaces and classes are noted ([`watch_module`], [`watch_type`]) as
//! they are made, by weak reference. Nothing of the program runs as they go, and nothing is
//! reported ([`tearing_down`]): what those cycles held was never freed before, so no
//! `__del__`, weakref callback, "never awaited" warning or asyncio report comes of it, and
//! what a program prints is what it printed without this. One interpreter lives on a
//! thread at a time, as the thread's other state (its output buffer, its event loop)
//! already assumes.

use std::cell::{Cell, RefCell};
use std::rc::{Rc, Weak};

use super::object::PyType;
use super::value::PyDict;

/// Weak references to the objects of one kind made on this thread, pruned of the dead
/// ones whenever their number doubles (a program making classes in a loop keeps no more
/// than twice its live classes' worth).
struct Registry<T> {
    items: Vec<Weak<T>>,
    prune_at: usize,
}

impl<T> Registry<T> {
    const fn new() -> Registry<T> {
        Registry {
            items: Vec::new(),
            prune_at: 64,
        }
    }

    fn add(&mut self, item: &Rc<T>) {
        if self.items.len() >= self.prune_at {
            self.items.retain(|weak| weak.strong_count() > 0);
            self.prune_at = (self.items.len() * 2).max(64);
        }
        self.items.push(Rc::downgrade(item));
    }

    fn take_alive(&self) -> Vec<Rc<T>> {
        self.items.iter().filter_map(Weak::upgrade).collect()
    }
}

thread_local! {
    static TYPES: RefCell<Registry<PyType>> = const { RefCell::new(Registry::new()) };
    static MODULES: RefCell<Registry<PyDict>> = const { RefCell::new(Registry::new()) };
    static TEARING_DOWN: Cell<bool> = const { Cell::new(false) };
}

/// Notes a class (built-in or not) for [`collect_cycles`].
pub fn watch_type(ty: &Rc<PyType>) {
    let _ = TYPES.try_with(|types| types.borrow_mut().add(ty));
}

/// Notes a module's namespace for [`collect_cycles`].
pub fn watch_module(namespace: &Rc<PyDict>) {
    let _ = MODULES.try_with(|modules| modules.borrow_mut().add(namespace));
}

/// Whether [`collect_cycles`] is freeing what the cycles held: finalizers and reports
/// queued now are dropped instead.
pub fn tearing_down() -> bool {
    TEARING_DOWN.try_with(Cell::get).unwrap_or(true)
}

/// Breaks the cycles left on this thread by the interpreter just dropped: runs
/// `discard_queued` (`vm::generator::discard_finalizers`, which this module may not
/// import: the generator's module asks it [`tearing_down`]) to drop what the interpreter's
/// drop queued, then clears every module namespace and every class still alive (all of
/// them garbage now). Nothing is queued meanwhile. Call it with no `Vm` alive on the
/// thread.
pub fn collect_cycles(discard_queued: fn()) {
    // Set first: what the interpreter's own drop queued is dropped unrun, and dropping it
    // must queue nothing more (a generator freed with its queued close would queue that
    // close again, reviving it, forever).
    TEARING_DOWN.set(true);
    discard_queued();
    let modules = MODULES.replace(Registry::new()).take_alive();
    for namespace in modules {
        // Taken out first: freeing the values may reach this dict again.
        let contents = std::mem::take(&mut *namespace.table.borrow_mut());
        drop(contents);
    }
    let types = TYPES.replace(Registry::new()).take_alive();
    for ty in types {
        let dict = std::mem::take(&mut *ty.dict.borrow_mut());
        let mro = std::mem::take(&mut *ty.mro.borrow_mut());
        let cache = std::mem::take(&mut *ty.lookup_cache.borrow_mut());
        drop((dict, mro, cache));
    }
    TEARING_DOWN.set(false);
}
