//! The value-stack and fast-local steps every instruction handler is made of (`pop!`,
//! `top!`, `load_bound_fast!`, `load_fast!`, `store_fast!`, `pop_truth!`) and
//! `finalize_point!`, where queued finalizers run before a jump or an unwinding moves the
//! frame elsewhere. Macros, not functions: they `return` from the handler that uses them
//! (an unbound local), and they keep the dispatch loop's code exactly as it was inline.
//! Used by `eval.rs` and its fast paths (`fast_calls.rs`, `fast_ops.rs`).

/// Runs the finalizers queued by what this instruction dropped (close, "never awaited",
/// `__del__`), blamed on this instruction: for the handlers that leave the code's order
/// (the end of a `for` loop jumping away, an exception leaving the frame). Otherwise they
/// run at the next instruction's dispatch, which is blamed on the same place
/// ([`Vm::finalize_before`](super::Vm::finalize_before)).
macro_rules! finalize_point {
    ($vm:expr, $frame:expr) => {
        if $crate::vm::generator::FINALIZERS_PENDING.load(std::sync::atomic::Ordering::Relaxed) {
            $vm.run_finalizers(Some((&*$frame.code, $frame.ip as usize)));
        }
    };
}

/// `LoadFast(i)`: push local i (slot i of the frame), which every path to the load binds
/// (the compiler's analysis, `compile::peephole`), so it is not checked ([`Frame::local`]).
///
/// [`Frame::local`]: super::frame::Frame::local
macro_rules! load_bound_fast {
    ($frame:expr, $i:expr) => {{
        let v = $frame.local($i as usize).clone();
        $frame.stack.push(v);
    }};
}

/// `LoadFastCheck(i)`: push local i, or raise UnboundLocalError.
macro_rules! load_fast {
    ($vm:expr, $frame:expr, $i:expr) => {{
        let i = $i as usize;
        let v = &$frame.stack[i];
        if v.is_null() {
            return Err($vm.unbound_local(&$frame.code.varnames[i]));
        }
        $frame.stack.push(v.clone());
    }};
}

/// `StoreFast(i)`: pop into local i (slot i).
macro_rules! store_fast {
    ($frame:expr, $i:expr) => {{
        let v = $crate::vm::stack::pop!($frame);
        std::mem::replace(&mut $frame.stack[$i as usize], v).discard();
    }};
}

/// Pops the top of the stack as a truth value (`bool(v)`), without the generic destructor
/// when it is a bool.
macro_rules! pop_truth {
    ($vm:expr, $frame:expr) => {{
        let v = $crate::vm::stack::pop!($frame);
        let b = match v {
            $crate::vm::value::Value::Bool(b) => b,
            ref other => $vm.truthy(other)?,
        };
        v.discard();
        b
    }};
}

/// Pops the top of the value stack (Null on an empty stack, which valid bytecode never has).
macro_rules! pop {
    ($frame:expr) => {
        match $frame.stack.pop() {
            Some(v) => v,
            None => $crate::vm::value::Value::Null,
        }
    };
}

/// The top of the value stack, borrowed.
macro_rules! top {
    ($frame:expr) => {
        match $frame.stack.last() {
            Some(v) => v,
            None => &$crate::vm::value::Value::Null,
        }
    };
}

pub(super) use {finalize_point, load_bound_fast, load_fast, pop, pop_truth, store_fast, top};
