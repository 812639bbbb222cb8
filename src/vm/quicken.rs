//! Quickening: the copy of a code object's instructions that the VM runs, with some common
//! runs of instructions replaced, at their first instruction, by one that does the whole run:
//! runs that start with `LOAD_FAST` or `LOAD_FAST_LOAD_FAST` ([`Instr::LoadFastLoadAttr`]
//! and its kin), an operand and its operator (`LOAD_CONST; BINARY_OP`), and both halves of
//! `xs[i] op= v` (`LOAD_FAST_LOAD_FAST; COPY 2; COPY 2; BINARY_SUBSCR` and `BINARY_OP;
//! SWAP 3; SWAP 2; STORE_SUBSCR`), and a return of a local or of an operator's result
//! (`LOAD_FAST; RETURN_VALUE`, `BINARY_OP; RETURN_VALUE`). A comparison run also takes the
//! `POP_JUMP_IF_FALSE`/`POP_JUMP_IF_TRUE` after it, if there is one, when its result is a
//! plain bool, and an operator run the `STORE_FAST` after it. A call whose result is
//! awaited (`CALL; GET_AWAITABLE; LOAD_CONST None; SEND`, or `GET_YIELD_FROM_ITER` for
//! `yield from`) becomes [`Instr::CallAwaited`], which tries the fused first step
//! (`vm::fast_calls`) before anything else.
//!
//! CPython specialises instructions in place as they run, where `dis` does not look; apy
//! does it once, when a code object is loaded, and `--dis` shows the compiler's
//! instructions, never these. Only the first instruction of a run is replaced: the ones
//! after it stay where they were, so a jump into the middle of a run, an exception table
//! or a line table sees the same instructions at the same places.
//!
//! The copy ends with one more instruction, [`Instr::EndOfCode`], and every jump target,
//! constant index and fast local's index in it is checked here, once: an instruction whose
//! operand points outside the code becomes an `EndOfCode` too. So the dispatch loop
//! fetches the next instruction and reads a constant or a local without a bounds check:
//! `ip` can only step onto the final `EndOfCode` or jump within the code, and a running
//! frame's buffer always holds its fast locals. The VM runs a quickened
//! instruction as the run only when it can account for it exactly (every instruction of
//! the run still counts as a step; its loads are `LOAD_FAST`s, of locals every path binds,
//! never `LOAD_FAST_CHECK`s); otherwise it runs just the first instruction, and the rest of
//! the run follows one by one.

use crate::compile::bytecode::{Constant, Instr};

/// The instructions to run for `instrs` (a code object's, with its `constants` and
/// `nlocals` fast locals): a run's first instruction replaced wherever a run starts, an
/// instruction whose jump target, constant or local is out of range replaced by
/// [`Instr::EndOfCode`], and one `EndOfCode` after the last.
pub fn quicken(instrs: &[Instr], constants: &[Constant], nlocals: usize) -> Box<[Instr]> {
    let mut quick = Vec::with_capacity(instrs.len() + 1);
    quick.extend_from_slice(instrs);
    for (at, slot) in quick.iter_mut().enumerate() {
        if let Some(run) = run_at(instrs, at) {
            *slot = run;
        } else if let Instr::Call(n) = instrs[at]
            && awaits_at(instrs, constants, at + 1)
        {
            *slot = Instr::CallAwaited(n);
        }
        if !in_range(slot, instrs.len(), constants.len()) || !locals_in_range(slot, nlocals) {
            *slot = Instr::EndOfCode;
        }
    }
    quick.push(Instr::EndOfCode);
    quick.into_boxed_slice()
}

/// Whether the fast locals `instr` reads or writes are among the frame's `nlocals`.
fn locals_in_range(instr: &Instr, nlocals: usize) -> bool {
    let pair = |pair: u32| nibbles(pair).into_iter().all(|l| l < nlocals);
    match *instr {
        Instr::LoadFast(l)
        | Instr::LoadFastCheck(l)
        | Instr::LoadFastAndClear(l)
        | Instr::StoreFast(l)
        | Instr::StoreFastMaybeNull(l)
        | Instr::DeleteFast(l)
        | Instr::LoadFastBinaryOp(_, l)
        | Instr::LoadFastSubscr(l)
        | Instr::BinaryOpStoreFast(_, l)
        | Instr::LoadFastReturn(l) => (l as usize) < nlocals,
        Instr::LoadFastLoadAttr(l, _)
        | Instr::LoadFastLoadMethod(l, _)
        | Instr::LoadFastCopyLoadAttr(l, _) => (l as usize) < nlocals,
        Instr::LoadFastLoadFast(p)
        | Instr::StoreFastLoadFast(p)
        | Instr::StoreFastStoreFast(p)
        | Instr::LoadFastLoadFastBinaryOp(_, p)
        | Instr::LoadFastLoadFastCompareOp(_, p)
        | Instr::LoadFastLoadFastSubscr(p)
        | Instr::LoadFastLoadFastSubscrKeep(p) => pair(p),
        Instr::LoadFastLoadFastStoreAttr(p, _) => pair(p.into()),
        Instr::LoadFastConstBinaryOp(_, operands) | Instr::LoadFastConstCompareOp(_, operands) => {
            unpack(operands).0 < nlocals
        }
        Instr::LoadFastPairBinaryOp(_, operands) => {
            let (a, b) = unpack(operands);
            a < nlocals && b < nlocals
        }
        _ => true,
    }
}

/// The two locals of a `LOAD_FAST_LOAD_FAST` pair (and of the runs that start with one).
#[inline(always)]
pub fn nibbles(pair: u32) -> [usize; 2] {
    [(pair >> 4) as usize, (pair & 15) as usize]
}

/// Whether `instr`'s jump target is within code of `len` instructions (or just past them,
/// on the final `EndOfCode`) and its constant, if any, among `nconsts`.
fn in_range(instr: &Instr, len: usize, nconsts: usize) -> bool {
    let constant = match *instr {
        Instr::LoadConst(i) | Instr::ReturnConst(i) | Instr::LoadConstBinaryOp(_, i) => i as usize,
        Instr::LoadFastConstBinaryOp(_, operands) | Instr::LoadFastConstCompareOp(_, operands) => {
            unpack(operands).1
        }
        _ => return instr.jump_target().is_none_or(|t| t as usize <= len),
    };
    constant < nconsts
}

/// Whether the instructions at `at` await (or delegate to) what is on top of the stack
/// with the send loop's first value None: `GET_AWAITABLE` (or `GET_YIELD_FROM_ITER`),
/// `LOAD_CONST None`, `SEND`.
fn awaits_at(instrs: &[Instr], constants: &[Constant], at: usize) -> bool {
    match instrs.get(at..at + 3) {
        Some(&[fetch, Instr::LoadConst(none), Instr::Send(_)]) => {
            matches!(fetch, Instr::GetAwaitable(_) | Instr::GetYieldFromIter)
                && matches!(constants.get(none as usize), Some(Constant::None))
        }
        _ => false,
    }
}

/// The quickened instruction for the run that starts at `at`, if one does. An operator
/// run stops short of a `BINARY_OP` that starts a store run (`xs[i] op= v`, `o.x op= v`),
/// which does more at once.
fn run_at(instrs: &[Instr], at: usize) -> Option<Instr> {
    let next = |n: usize| instrs.get(at + n).copied();
    let stores = |n: usize| {
        matches!(
            run_at(instrs, at + n),
            Some(Instr::BinaryOpStoreSubscr(_) | Instr::BinaryOpStoreAttr(..))
        )
    };
    match (instrs[at], next(1)) {
        (Instr::LoadFastLoadFast(pair), Some(second)) => match second {
            Instr::BinaryOp(op) if !stores(1) => Some(Instr::LoadFastLoadFastBinaryOp(op, pair)),
            Instr::CompareOp(op) => Some(Instr::LoadFastLoadFastCompareOp(op, pair)),
            Instr::BinarySubscr => Some(Instr::LoadFastLoadFastSubscr(pair)),
            Instr::StoreAttr(name) => u8::try_from(pair)
                .ok()
                .map(|pair| Instr::LoadFastLoadFastStoreAttr(pair, name)),
            Instr::Copy(2)
                if (next(2), next(3)) == (Some(Instr::Copy(2)), Some(Instr::BinarySubscr)) =>
            {
                Some(Instr::LoadFastLoadFastSubscrKeep(pair))
            }
            _ => None,
        },
        (Instr::LoadFast(local), Some(second)) => match (second, next(2)) {
            (Instr::LoadAttr(name), _) => u8::try_from(local)
                .ok()
                .map(|local| Instr::LoadFastLoadAttr(local, name)),
            (Instr::LoadMethod(name), _) => u8::try_from(local)
                .ok()
                .map(|local| Instr::LoadFastLoadMethod(local, name)),
            (Instr::Copy(1), Some(Instr::LoadAttr(name))) => u8::try_from(local)
                .ok()
                .map(|local| Instr::LoadFastCopyLoadAttr(local, name)),
            (Instr::LoadConst(constant), Some(Instr::BinaryOp(op))) if !stores(2) => {
                pack(local, constant).map(|operands| Instr::LoadFastConstBinaryOp(op, operands))
            }
            (Instr::LoadConst(constant), Some(Instr::CompareOp(op))) => {
                pack(local, constant).map(|operands| Instr::LoadFastConstCompareOp(op, operands))
            }
            (Instr::LoadFast(other), Some(Instr::BinaryOp(op))) if !stores(2) => {
                pack(local, other).map(|operands| Instr::LoadFastPairBinaryOp(op, operands))
            }
            (Instr::BinaryOp(op), _) if !stores(1) => Some(Instr::LoadFastBinaryOp(op, local)),
            (Instr::BinarySubscr, _) => Some(Instr::LoadFastSubscr(local)),
            (Instr::ReturnValue, _) => Some(Instr::LoadFastReturn(local)),
            _ => None,
        },
        (Instr::LoadConst(constant), Some(Instr::BinaryOp(op))) if !stores(1) => {
            Some(Instr::LoadConstBinaryOp(op, constant))
        }
        (Instr::BinaryOp(op), Some(Instr::StoreFast(local))) => {
            Some(Instr::BinaryOpStoreFast(op, local))
        }
        (Instr::BinaryOp(op), Some(Instr::ReturnValue)) => Some(Instr::BinaryOpReturn(op)),
        (Instr::BinaryOp(op), Some(Instr::Swap(3)))
            if (next(2), next(3)) == (Some(Instr::Swap(2)), Some(Instr::StoreSubscr)) =>
        {
            Some(Instr::BinaryOpStoreSubscr(op))
        }
        (Instr::BinaryOp(op), Some(Instr::Swap(2))) => match next(2) {
            Some(Instr::StoreAttr(name)) => Some(Instr::BinaryOpStoreAttr(op, name)),
            _ => None,
        },
        _ => None,
    }
}

/// A local's and a constant's indices in one word, when both fit in 16 bits.
fn pack(local: u32, constant: u32) -> Option<u32> {
    (local <= 0xffff && constant <= 0xffff).then_some(local | constant << 16)
}

/// The local's and the constant's indices packed by [`pack`].
pub fn unpack(operands: u32) -> (usize, usize) {
    ((operands & 0xffff) as usize, (operands >> 16) as usize)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compile::bytecode::{BinaryOperator, CompareOperator};
    use crate::compile::first_function as function;

    /// How many instructions after it a quickened instruction runs too.
    fn run_length(instr: &Instr) -> usize {
        match instr {
            Instr::LoadFastLoadAttr(..) | Instr::LoadFastLoadMethod(..) => 1,
            Instr::LoadFastConstBinaryOp(..) | Instr::LoadFastConstCompareOp(..) => 2,
            Instr::LoadFastLoadFastBinaryOp(..)
            | Instr::LoadFastLoadFastCompareOp(..)
            | Instr::LoadFastLoadFastStoreAttr(..)
            | Instr::LoadFastLoadFastSubscr(_) => 1,
            Instr::LoadFastBinaryOp(..)
            | Instr::LoadConstBinaryOp(..)
            | Instr::LoadFastSubscr(_)
            | Instr::BinaryOpStoreFast(..)
            | Instr::LoadFastReturn(_)
            | Instr::BinaryOpReturn(_) => 1,
            Instr::LoadFastPairBinaryOp(..)
            | Instr::LoadFastCopyLoadAttr(..)
            | Instr::BinaryOpStoreAttr(..) => 2,
            Instr::LoadFastLoadFastSubscrKeep(_) | Instr::BinaryOpStoreSubscr(_) => 3,
            _ => 0,
        }
    }

    #[test]
    fn runs_are_replaced_at_their_load_fast_and_the_rest_stays_in_place() {
        let f = function(
            "def f(n, node):\n    if n < 2:\n        return node.left\n    return n - 1\n",
        );
        let quick = quicken(&f.instructions, &f.constants, f.varnames.len());
        assert_eq!(quick.len(), f.instructions.len() + 1);
        assert_eq!(quick.last(), Some(&Instr::EndOfCode));
        let mut replaced = 0;
        for (at, (q, original)) in quick.iter().zip(&f.instructions).enumerate() {
            if q == original {
                continue;
            }
            replaced += 1;
            // What a run stood for is still where it was.
            let rest = &f.instructions[at + 1..at + 1 + run_length(q)];
            if let Instr::LoadConstBinaryOp(op, constant) = *q {
                assert_eq!(*original, Instr::LoadConst(constant));
                assert_eq!(rest, [Instr::BinaryOp(op)]);
                continue;
            }
            if let Instr::BinaryOpReturn(op) = *q {
                assert_eq!(*original, Instr::BinaryOp(op));
                assert_eq!(rest, [Instr::ReturnValue]);
                continue;
            }
            let &Instr::LoadFast(local) = original else {
                panic!("{original:?} at {at} was replaced by {q:?}");
            };
            match *q {
                Instr::LoadFastConstCompareOp(op, operands) => {
                    assert_eq!(
                        (op, unpack(operands).0),
                        (CompareOperator::Lt, local as usize)
                    );
                    assert!(matches!(rest, [Instr::LoadConst(_), Instr::CompareOp(_)]));
                }
                Instr::LoadFastLoadAttr(l, _) => {
                    assert_eq!(u32::from(l), local);
                    assert!(matches!(rest, [Instr::LoadAttr(_)]));
                }
                Instr::LoadFastConstBinaryOp(op, operands) => {
                    assert_eq!(
                        (op, unpack(operands).0),
                        (BinaryOperator::Subtract, local as usize)
                    );
                    assert!(matches!(rest, [Instr::LoadConst(_), Instr::BinaryOp(_)]));
                }
                other => panic!("unexpected {other:?}"),
            }
        }
        assert_eq!(replaced, 5);
    }

    /// Every quickened form, found in `source`, with the instructions it stands for.
    fn runs(source: &str) -> Vec<(Instr, Vec<Instr>)> {
        let f = function(source);
        let quick = quicken(&f.instructions, &f.constants, f.varnames.len());
        quick
            .iter()
            .zip(&f.instructions)
            .enumerate()
            .filter(|(_, (q, original))| q != original)
            .map(|(at, (q, _))| (*q, f.instructions[at..=at + run_length(q)].to_vec()))
            .collect()
    }

    #[test]
    fn augmented_subscripts_and_operand_chains_are_quickened_whole() {
        use BinaryOperator::*;
        let found = runs(
            "def f(xs, i, v, l3, l4, l5, l6, l7, l8, l9, l10, l11, l12, l13, l14, l15, w):\n    \
             xs[i] -= v * w\n    y = xs[i] * v\n    return y + 0.5\n",
        );
        let keep = Instr::LoadFastLoadFastSubscrKeep(1);
        assert!(found.contains(&(
            keep,
            vec![
                Instr::LoadFastLoadFast(1),
                Instr::Copy(2),
                Instr::Copy(2),
                Instr::BinarySubscr
            ]
        )));
        let pair = Instr::LoadFastPairBinaryOp(Multiply, 2 | 16 << 16);
        assert!(found.contains(&(
            pair,
            vec![
                Instr::LoadFast(2),
                Instr::LoadFast(16),
                Instr::BinaryOp(Multiply)
            ]
        )));
        let store = Instr::BinaryOpStoreSubscr(InplaceSubtract);
        assert!(found.contains(&(
            store,
            vec![
                Instr::BinaryOp(InplaceSubtract),
                Instr::Swap(3),
                Instr::Swap(2),
                Instr::StoreSubscr
            ]
        )));
        let operand = Instr::LoadFastBinaryOp(Multiply, 2);
        assert!(found.contains(&(operand, vec![Instr::LoadFast(2), Instr::BinaryOp(Multiply)])));
        let stored = Instr::BinaryOpStoreFast(Multiply, 17);
        assert!(found.contains(&(
            stored,
            vec![Instr::BinaryOp(Multiply), Instr::StoreFast(17)]
        )));
        let constant = found
            .iter()
            .find(|(q, _)| matches!(q, Instr::LoadConstBinaryOp(Add, _)));
        assert!(constant.is_some());
        let attr = runs("def f(o, v):\n    o.x += v\n    o.y *= 2\n");
        assert!(
            attr.iter()
                .any(|(q, _)| *q == Instr::LoadFastCopyLoadAttr(0, 0))
        );
        assert!(
            attr.iter()
                .any(|(q, _)| matches!(q, Instr::BinaryOpStoreAttr(InplaceAdd, _)))
        );
        assert!(
            attr.iter()
                .any(|(q, _)| matches!(q, Instr::BinaryOpStoreAttr(InplaceMultiply, _)))
        );
        // The operand loads before a store run are left to themselves.
        assert!(attr.iter().all(|(q, _)| !matches!(
            q,
            Instr::LoadFastBinaryOp(..) | Instr::LoadConstBinaryOp(..)
        )));
        let subscr = runs("def f(xs, i):\n    return xs.ys[i]\n");
        assert!(subscr.iter().any(|(q, _)| *q == Instr::LoadFastSubscr(1)));
    }

    #[test]
    fn a_pair_of_loads_takes_the_operator_after_it() {
        let f = function(
            "def f(a, b):\n    while a < b:\n        a = a * b\n        b.x = a\n    return a[b]\n",
        );
        let quick = quicken(&f.instructions, &f.constants, f.varnames.len());
        let ops: Vec<_> = quick
            .iter()
            .zip(&f.instructions)
            .filter(|(q, original)| q != original)
            .map(|(q, original)| (*q, *original))
            .collect();
        // (And the `BINARY_OP` before `STORE_FAST a`, a run of its own.)
        assert!(ops.iter().all(|(_, original)| matches!(
            original,
            Instr::LoadFastLoadFast(_) | Instr::BinaryOp(_)
        )));
        assert!(
            ops.iter().any(|(q, _)| matches!(
                q,
                Instr::LoadFastLoadFastCompareOp(CompareOperator::Lt, _)
            ))
        );
        assert!(ops.iter().any(|(q, _)| matches!(
            q,
            Instr::LoadFastLoadFastBinaryOp(BinaryOperator::Multiply, _)
        )));
        assert!(
            ops.iter()
                .any(|(q, _)| matches!(q, Instr::LoadFastLoadFastStoreAttr(..)))
        );
        assert!(
            ops.iter()
                .any(|(q, _)| matches!(q, Instr::LoadFastLoadFastSubscr(_)))
        );
    }

    #[test]
    fn returns_of_a_local_or_an_operator_result_are_runs() {
        let found = runs("def f(a, b):\n    if a:\n        return b\n    return g(a) % g(b)\n");
        let local = Instr::LoadFastReturn(1);
        assert!(found.contains(&(local, vec![Instr::LoadFast(1), Instr::ReturnValue])));
        let op = Instr::BinaryOpReturn(BinaryOperator::Remainder);
        let ran = vec![
            Instr::BinaryOp(BinaryOperator::Remainder),
            Instr::ReturnValue,
        ];
        assert!(found.contains(&(op, ran)));
    }

    #[test]
    fn awaited_calls_are_marked_and_other_calls_stay() {
        let found = runs(
            "async def f(a):\n    x = g(a)\n    await h(a)\n    await x\n    return await k()\n",
        );
        let awaited: Vec<_> = found
            .iter()
            .filter(|(q, _)| matches!(q, Instr::CallAwaited(_)))
            .collect();
        assert_eq!(
            awaited,
            [
                &(Instr::CallAwaited(1), vec![Instr::Call(1)]),
                &(Instr::CallAwaited(0), vec![Instr::Call(0)])
            ]
        );
        let delegated = runs("def f():\n    yield from g()\n    yield g()\n");
        assert_eq!(delegated, [(Instr::CallAwaited(0), vec![Instr::Call(0)])]);
    }

    #[test]
    fn a_lone_load_fast_and_large_indices_stay_as_they_are() {
        let lone = [Instr::LoadFast(0), Instr::PopTop];
        assert_eq!(quicken(&lone, &[], 1)[..2], lone);
        let far = [Instr::LoadFast(300), Instr::LoadAttr(0), Instr::ReturnValue];
        assert_eq!(quicken(&far, &[], 301)[..3], far);
        let big_const = [
            Instr::LoadFast(0),
            Instr::LoadConst(70_000),
            Instr::BinaryOp(BinaryOperator::Add),
        ];
        // (The constant's own run, `LOAD_CONST; BINARY_OP`, takes any index.)
        assert_eq!(quicken(&big_const, &[], 1)[0], big_const[0]);
    }

    #[test]
    fn operands_outside_the_code_become_end_of_code() {
        let code = [
            Instr::LoadConst(0),
            Instr::PopJumpIfFalse(4),
            Instr::LoadConst(1),
            Instr::Jump(5),
            Instr::ReturnConst(0),
        ];
        let quick = quicken(&code, &[Constant::None], 0);
        // The jump to 4 stays (4 is in the code); a jump to 5 would land on the final
        // `EndOfCode` (5), so it stays too; constant 1 does not exist.
        assert_eq!(
            *quick,
            [
                Instr::LoadConst(0),
                Instr::PopJumpIfFalse(4),
                Instr::EndOfCode,
                Instr::Jump(5),
                Instr::ReturnConst(0),
                Instr::EndOfCode,
            ]
        );
        assert_eq!(quicken(&[Instr::Jump(2)], &[], 0)[0], Instr::EndOfCode);
        assert_eq!(*quicken(&[], &[], 0), [Instr::EndOfCode]);
    }
}
