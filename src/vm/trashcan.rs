//! Freeing deeply nested objects without deep Rust recursion (CPython's "trashcan",
//! `Py_TRASHCAN_BEGIN` in `Include/cpython/object.h`). Freeing a container frees what it
//! holds, so a linked list of 3,000,000 nodes (`x = Node(x)` in a loop, or `x = [x]`) freed
//! at once was 3,000,000 nested `Drop` calls, and overflowed the interpreter thread's stack.
//!
//! The containers that can nest without bound (lists, tuples, dicts, instances' attribute
//! values) free their contents through [`nest`]. It counts how deeply frees are nested on
//! this thread; past [`UNWIND_LEVEL`] the contents are set aside instead, and the outermost
//! free drops what was set aside, one piece at a time, once its own contents are gone.
//! Below that depth nothing changes: contents die at once, in their container's order, so
//! `__del__`s and weakref callbacks run in CPython's order (CPython, too, defers only near
//! its C stack's limit).

use std::any::Any;
use std::cell::{Cell, RefCell};

/// How many frees may nest before the contents of the next are set aside. Each level is a
/// few hundred bytes of stack; the interpreter's stack holds far more, even when freeing
/// starts deep in a recursion.
const UNWIND_LEVEL: u32 = 5_000;

thread_local! {
    /// How many calls of [`nest`] are under way on this thread.
    static DEPTH: Cell<u32> = const { Cell::new(0) };
    /// Whether [`SET_ASIDE`] may hold something (read on every outermost free, so a plain
    /// flag rather than the list itself).
    static PENDING: Cell<bool> = const { Cell::new(false) };
    /// Contents set aside at [`UNWIND_LEVEL`], for the outermost [`nest`] to drop.
    static SET_ASIDE: RefCell<Vec<Box<dyn Any>>> = const { RefCell::new(Vec::new()) };
}

/// Frees the contents of a container being freed, `free` dropping them in the container's
/// order, as one level of nesting; past [`UNWIND_LEVEL`], `take` takes them out instead,
/// as a box whose drop frees them, for the outermost level to drop.
#[inline]
pub fn nest<T>(
    contents: &mut T,
    free: impl FnOnce(&mut T),
    take: impl FnOnce(&mut T) -> Box<dyn Any>,
) {
    let depth = DEPTH.get();
    if depth >= UNWIND_LEVEL {
        set_aside(take(contents));
        return;
    }
    DEPTH.set(depth + 1);
    free(contents);
    DEPTH.set(depth);
    if depth == 0 && PENDING.get() {
        drop_set_aside();
    }
}

/// Drops `items` from the last to the first, as CPython's `list_dealloc` and
/// `tupledealloc` do, as one level of [`nest`].
#[inline]
pub fn free_last_first<T: 'static>(items: &mut Vec<T>) {
    free_in_order(items, Order::LastFirst);
}

/// Drops `items` from the first to the last, as CPython's `_PyFrame_ClearLocals` does a
/// frame's slots, as one level of [`nest`].
#[inline]
pub fn free_first_last<T: 'static>(items: &mut Vec<T>) {
    free_in_order(items, Order::FirstLast);
}

/// Which end of a container's items goes first when they are freed.
#[derive(Clone, Copy)]
enum Order {
    LastFirst,
    FirstLast,
}

#[inline]
fn free_in_order<T: 'static>(items: &mut Vec<T>, order: Order) {
    if items.is_empty() {
        return;
    }
    nest(
        items,
        |items| match order {
            Order::LastFirst => {
                while let Some(item) = items.pop() {
                    drop(item);
                }
            }
            Order::FirstLast => items.clear(),
        },
        |items| {
            Box::new(SetAside {
                items: std::mem::take(items),
                order,
            })
        },
    );
}

/// Items set aside, freed in their container's order when dropped.
struct SetAside<T: 'static> {
    items: Vec<T>,
    order: Order,
}

impl<T> Drop for SetAside<T> {
    fn drop(&mut self) {
        free_in_order(&mut self.items, self.order);
    }
}

#[cold]
#[inline(never)]
fn set_aside(contents: Box<dyn Any>) {
    PENDING.set(true);
    // A thread being torn down may have dropped the list already: the closure, not run,
    // then drops the contents at once.
    let _ = SET_ASIDE.try_with(|aside| aside.borrow_mut().push(contents));
}

/// At the outermost free: drops what deeper frees set aside, each piece as a fresh level
/// (which may set aside more, until nothing is left).
#[cold]
#[inline(never)]
fn drop_set_aside() {
    loop {
        let next = SET_ASIDE
            .try_with(|aside| aside.borrow_mut().pop())
            .ok()
            .flatten();
        let Some(next) = next else {
            PENDING.set(false);
            return;
        };
        DEPTH.set(1);
        drop(next);
        DEPTH.set(0);
    }
}

#[cfg(test)]
mod tests {
    use std::rc::Rc;

    use super::*;

    /// A list that frees its items as `PyList` does.
    struct List(Vec<List>);

    impl Drop for List {
        fn drop(&mut self) {
            free_last_first(&mut self.0);
        }
    }

    #[test]
    fn a_chain_deeper_than_the_stack_frees() {
        // A stack as large as a level needs in a debug build times `UNWIND_LEVEL`, and
        // far smaller than a million levels would need.
        let freed = std::thread::Builder::new()
            .stack_size(32 << 20)
            .spawn(|| {
                let mut chain = List(Vec::new());
                for _ in 0..1_000_000 {
                    chain = List(vec![chain]);
                }
                drop(chain);
                DEPTH.get() == 0 && SET_ASIDE.with_borrow(Vec::is_empty)
            })
            .unwrap()
            .join();
        assert!(matches!(freed, Ok(true)));
    }

    #[test]
    fn shallow_contents_die_at_once_in_order() {
        let log = Rc::new(RefCell::new(Vec::new()));
        struct Noisy(u32, Rc<RefCell<Vec<u32>>>);
        impl Drop for Noisy {
            fn drop(&mut self) {
                self.1.borrow_mut().push(self.0);
            }
        }
        let mut contents = vec![Noisy(1, log.clone()), Noisy(2, log.clone())];
        nest(&mut contents, |c| c.clear(), |_| unreachable!());
        assert_eq!(*log.borrow(), [1, 2]);
    }
}
