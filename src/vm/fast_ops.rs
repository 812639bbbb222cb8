//! Fast paths of the operators: unboxed ints and floats computed in the dispatch loop with
//! no method lookup, and the quickened runs (`vm::quicken`) that do a few instructions at
//! once with their operands read where they are (locals, constants). In: the operands; out:
//! the result pushed, stored or branched on. Mirrors CPython's specialised instructions
//! (`BINARY_OP_ADD_INT`, `COMPARE_OP_INT`, `LOAD_FAST_LOAD_FAST` in `Python/bytecodes.c`).
//!
//! | instruction: fast path                  | short-cuts (the plain protocol, its file)                  | applies when                                                                    |
//! |-----------------------------------------|------------------------------------------------------------|---------------------------------------------------------------------------------|
//! | `BinaryOp`: [`unboxed_binary_op`]       | `Vm::binary_op` (`ops.rs`), then the operands' destructors | two small ints, result small, no error; two floats, `+ - * /`, no error         |
//! | quickened run: [`quickened_run!`]       | its instructions one at a time through the dispatch loop   | the limits are not due within the run ([`runs_whole`])                           |
//! | … operator run: [`binary_in_place`]     | `LoadFast`/`LoadConst` pushes, `BinaryOp`                  | as `unboxed_binary_op` (else `Vm::binary_op` on the operands in place)          |
//! | … comparison run: [`compare_in_place!`] | `LoadFast`/`LoadConst` pushes, `CompareOp` (`compare.rs`)  | two small ints (else `Vm::compare_values` in place)                             |
//! | … then [`push_or_branch`]               | push, then `PopJumpIfFalse`/`PopJumpIfTrue` and `truthy`   | the jump is next and its step is not where the limits are due                   |
//! | … then [`push_or_store!`]               | push, then `StoreFast`                                     | the store is next and its step is not where the limits are due                  |
//! | … left operand on the stack: [`pop_binary_in_place`] | `LoadFast`/`LoadConst` push, `BinaryOp`       | as `unboxed_binary_op` (else `Vm::binary_op`)                                   |
//! | `x[i] op= v`'s store: [`binary_op_store_item`] | `BinaryOp`, `Swap`s, `StoreSubscr` (`Vm::set_item`)  | an unboxed result, a plain list, an index in range, the limits not due          |
//! | `BinarySubscr` and its runs: [`subscript`] | `Vm::get_item` (`containers.rs`)                        | a plain list, an int index in range (from 0)                                    |
//!
//! (The attribute runs, `LoadFastLoadAttr` and friends, use `quickened_run!` with the
//! attribute caches of `attr_cache.rs`; `CompareOp` of two small ints is one line in
//! `execute`.) The three macros stay macros: they expand inside `execute`, returning from it
//! (`?`) and using its `load_bound_fast!`, which they name by path; and they borrow
//! operands from the frame's locals while writing `frame`, which a function taking both
//! could not.

use crate::compile::bytecode::{BinaryOperator, Instr};

use super::frame::Frame;
use super::object::Body;
use super::stack::pop;
use super::value::Value;
use super::{PyResult, Vm};

/// `BINARY_SUBSCR` (and the quickened runs ending in one): `container[key]`, with
/// [`list_item`]'s fast path first.
#[inline(always)]
pub(super) fn subscript(vm: &mut Vm, container: &Value, key: &Value) -> PyResult<Value> {
    match list_item(container, key) {
        Some(v) => Ok(v),
        None => vm.get_item(container, key),
    }
}

/// `STORE_SUBSCR`'s fast path: `list[i] = v` with an index in range (from 0), with no
/// method lookup: gives the item replaced (to drop once the list's borrow has ended), or
/// `v` back for anything else (a negative index, a list subclass, a list being iterated
/// over by a sort), which takes `Vm::set_item`.
#[inline(always)]
pub(super) fn store_list_item(container: &Value, key: &Value, v: Value) -> Result<Value, Value> {
    let (Value::List(list), Value::Int(i)) = (container, key) else {
        return Err(v);
    };
    let Ok(mut items) = list.items.try_borrow_mut() else {
        return Err(v);
    };
    match usize::try_from(*i).ok().and_then(|i| items.get_mut(i)) {
        Some(slot) => Ok(std::mem::replace(slot, v)),
        None => Err(v),
    }
}

/// `BINARY_SUBSCR`'s fast path: `list[i]` with an index in range (from 0): the item, with
/// no method lookup. None for anything else (a negative index, a list subclass), which
/// takes `Vm::get_item`.
#[inline(always)]
fn list_item(container: &Value, key: &Value) -> Option<Value> {
    match (container, key) {
        (Value::List(l), Value::Int(i)) => l.get_cloned(usize::try_from(*i).ok()?),
        _ => None,
    }
}

/// `x op y` for two small ints when the result is a small int and no error is possible
/// (overflow, zero divisors and negative shifts take the general path).
#[inline(always)]
fn small_int_op(op: BinaryOperator, x: i64, y: i64) -> Option<i64> {
    use BinaryOperator::*;
    match op.base() {
        Add => x.checked_add(y),
        Subtract => x.checked_sub(y),
        Multiply => x.checked_mul(y),
        FloorDivide if y != 0 && !(x == i64::MIN && y == -1) => {
            Some(x.div_euclid(y) - i64::from(y < 0 && x.rem_euclid(y) != 0))
        }
        Remainder if y != 0 && !(x == i64::MIN && y == -1) => {
            let r = x % y;
            Some(if r != 0 && ((r < 0) != (y < 0)) {
                r + y
            } else {
                r
            })
        }
        And => Some(x & y),
        Or => Some(x | y),
        Xor => Some(x ^ y),
        Rshift if (0..64).contains(&y) => Some(x >> y),
        Lshift if (0..63).contains(&y) && (x << y) >> y == x => Some(x << y),
        _ => None,
    }
}

/// `x op y` for two small ints or two floats when no error or method call is possible;
/// `None` for any other operands (which must then take the general path).
#[inline(always)]
pub(super) fn unboxed_binary_op(op: BinaryOperator, a: &Value, b: &Value) -> Option<Value> {
    use BinaryOperator::*;
    match (a, b) {
        (Value::Int(x), Value::Int(y)) => small_int_op(op, *x, *y).map(Value::Int),
        (Value::Float(x), Value::Float(y)) => match op.base() {
            Add => Some(Value::Float(x + y)),
            Subtract => Some(Value::Float(x - y)),
            Multiply => Some(Value::Float(x * y)),
            TrueDivide if *y != 0.0 => Some(Value::Float(x / y)),
            _ => None,
        },
        _ => None,
    }
}

/// `BINARY_OP`'s plain protocol on the top two items of the stack: pops them and gives the
/// result (not pushed).
#[inline(always)]
pub(super) fn pop_binary_op(vm: &mut Vm, frame: &mut Frame, op: BinaryOperator) -> PyResult<Value> {
    let b = pop!(frame);
    let a = pop!(frame);
    match unboxed_binary_op(op, &a, &b) {
        Some(r) => {
            forget_unboxed(a, b);
            Ok(r)
        }
        None => vm.binary_op(op, &a, &b),
    }
}

/// `top op b` for a quickened run whose right operand is read where it is (a local, a
/// constant): pops the left one from `stack` and gives the result (not pushed).
#[inline(always)]
pub(super) fn pop_binary_in_place(
    vm: &mut Vm,
    stack: &mut Vec<Value>,
    op: BinaryOperator,
    b: &Value,
) -> PyResult<Value> {
    // (A `match`, not `unwrap_or(Value::Null)`: that would drop the unused default through
    // the out-of-line destructor on every call.)
    let a = match stack.pop() {
        Some(a) => a,
        None => Value::Null,
    };
    match unboxed_binary_op(op, &a, b) {
        Some(r) => {
            a.discard();
            Ok(r)
        }
        None => vm.binary_op(op, &a, b),
    }
}

/// The run `BINARY_OP op; SWAP 3; SWAP 2; STORE_SUBSCR` (the end of `xs[i] op= v`) on
/// `(list index a b)`, whole, when `a op b` is unboxed ([`unboxed_binary_op`]), the list
/// is a plain list with `index` in range (from 0) and the limits are not due within the
/// run: stores the result, counts the run and says so; does nothing otherwise (then the
/// `BINARY_OP` runs alone, and the rest follows one by one, `list.__setitem__` and all).
#[inline(always)]
pub(super) fn binary_op_store_item(vm: &mut Vm, frame: &mut Frame, op: BinaryOperator) -> bool {
    let [.., list @ Value::List(_), index @ Value::Int(_), a, b] = &frame.stack[..] else {
        return false;
    };
    if vm.countdown <= 3 {
        return false;
    }
    let Some(r) = unboxed_binary_op(op, a, b) else {
        return false;
    };
    let Ok(old) = store_list_item(list, index, r) else {
        return false;
    };
    old.discard();
    vm.countdown -= 3;
    frame.ip += 3;
    take_unboxed_rest(&mut frame.stack, 4).release();
    true
}

/// The start of the run `BINARY_OP op; SWAP 2; STORE_ATTR name` (the end of `o.x op= v`)
/// on `(o a b)`: when `a op b` is unboxed ([`unboxed_binary_op`]) and the limits are not
/// due within the run, pops all three and gives the object and the result, `ip` on the
/// `STORE_ATTR` (which the caller then does, errors and all); does nothing otherwise (then
/// the `BINARY_OP` runs alone, and the rest follows one by one).
#[inline(always)]
pub(super) fn binary_op_for_attr(
    vm: &mut Vm,
    frame: &mut Frame,
    op: BinaryOperator,
) -> Option<(Value, Value)> {
    let [.., _, a, b] = &frame.stack[..] else {
        return None;
    };
    if vm.countdown <= 2 {
        return None;
    }
    let r = unboxed_binary_op(op, a, b)?;
    vm.countdown -= 2;
    frame.ip += 2;
    Some((take_unboxed_rest(&mut frame.stack, 3), r))
}

/// Removes the top `n` items of `stack`, of which all but the lowest are known to be
/// unboxed (ints, floats), and gives that lowest one: with no destructor call per item, as
/// a `truncate` would make.
#[inline(always)]
fn take_unboxed_rest(stack: &mut Vec<Value>, n: usize) -> Value {
    let len = stack.len();
    let lowest = std::mem::replace(&mut stack[len - n], Value::Null);
    debug_assert!(stack[len - n..].iter().all(Value::is_unboxed));
    // SAFETY: the items past the new length are `Null`, ints and floats now (the lowest
    // was moved out above), which own nothing: forgetting them leaks nothing.
    unsafe { stack.set_len(len - n) };
    lowest
}

/// Discards two operands already known to be unboxed (ints, floats) without calling the
/// generic `Value` destructor: they own nothing, so nothing leaks.
#[inline(always)]
pub(super) fn forget_unboxed(a: Value, b: Value) {
    std::mem::forget(a);
    std::mem::forget(b);
}

/// For a quickened instruction (`vm::quicken`) standing for a load of locals and the
/// `more` instructions after it: whether it runs them all now. It does when the steps left
/// before the limits are checked outlast the run; it then counts those steps and moves `ip`
/// to the run's last instruction. (Its loads are `LoadFast`s, of locals every path binds.)
#[inline(always)]
pub(super) fn runs_whole(vm: &mut Vm, frame: &mut Frame, more: u64) -> bool {
    if vm.countdown <= more {
        return false;
    }
    vm.countdown -= more;
    frame.ip += more as u32;
    true
}

/// `a op b` for a quickened run, its operands read where they are (a local, a constant).
#[inline(always)]
pub(super) fn binary_in_place(
    vm: &mut Vm,
    op: BinaryOperator,
    a: &Value,
    b: &Value,
) -> PyResult<Value> {
    match unboxed_binary_op(op, a, b) {
        Some(r) => Ok(r),
        None => vm.binary_op(op, a, b),
    }
}

/// The end of a comparison run whose result is the plain bool `b`: pushes it, or, when a
/// `POP_JUMP_IF_FALSE`/`POP_JUMP_IF_TRUE` is next whose step can be counted before the
/// limits are due, runs that branch now.
#[inline(always)]
pub(super) fn push_or_branch(vm: &mut Vm, frame: &mut Frame, body: &Body, b: bool) {
    let taken = match body.instruction(frame.ip) {
        Instr::PopJumpIfFalse(target) if vm.countdown > 1 => (!b).then_some(target),
        Instr::PopJumpIfTrue(target) if vm.countdown > 1 => b.then_some(target),
        _ => return frame.stack.push(Value::Bool(b)),
    };
    vm.countdown -= 1;
    frame.ip = match taken {
        Some(target) => target,
        None => frame.ip + 1,
    };
}

/// A quickened instruction (`vm::quicken`) standing for loads of `locals` and the `more`
/// instructions after them: when [`runs_whole`] says it may, runs `body` with the locals'
/// values bound to the pattern (borrowed where they are: `ip` is already at the run's
/// last instruction, so errors and tracebacks see that instruction running); otherwise
/// just the loads, and the rest of the run follows one by one.
/// A run whose first instruction is not a load of all its locals gives what that
/// instruction does alone after `else`.
macro_rules! quickened_run {
    ($vm:expr, $frame:expr, $locals:expr, $more:expr, |$values:pat_param| $body:block) => {{
        let locals = $locals;
        $crate::vm::fast_ops::quickened_run!($vm, $frame, locals, $more, |$values| $body else {
            for l in locals {
                $crate::vm::stack::load_bound_fast!($frame, l);
            }
        })
    }};
    ($vm:expr, $frame:expr, $locals:expr, $more:expr, |$values:pat_param| $body:block else $alone:block) => {{
        let locals = $locals;
        if $crate::vm::fast_ops::runs_whole($vm, $frame, $more) {
            let $values = locals.map(|l| $frame.local(l));
            $body
        } else $alone
    }};
}

/// `a op b` for a quickened comparison run, its operands read where they are (locals, a
/// constant): two ints are compared at once and may take the branch after the run
/// ([`push_or_branch`]); anything else goes the general way and is pushed.
macro_rules! compare_in_place {
    ($vm:expr, $frame:expr, $body:expr, $op:expr, $a:expr, $b:expr) => {
        if let ($crate::vm::value::Value::Int(x), $crate::vm::value::Value::Int(y)) = ($a, $b) {
            let r = $crate::vm::compare::compare_native($op, x, y);
            $crate::vm::fast_ops::push_or_branch($vm, $frame, $body, r);
        } else {
            let r = $vm.compare_values($op, $a, $b)?;
            $frame.stack.push(r);
        }
    };
}

/// The end of an operator run: pushes its result `r`, or, when a `STORE_FAST` is next and
/// its step can be counted before the limits are due, stores `r` there now.
macro_rules! push_or_store {
    ($vm:expr, $frame:expr, $body:expr, $r:expr) => {
        match $body.instruction($frame.ip) {
            $crate::compile::bytecode::Instr::StoreFast(i) if $vm.countdown > 1 => {
                $vm.countdown -= 1;
                $frame.ip += 1;
                std::mem::replace(&mut $frame.stack[i as usize], $r).discard();
            }
            _ => $frame.stack.push($r),
        }
    };
}

pub(super) use compare_in_place;
pub(super) use push_or_store;
pub(super) use quickened_run;
