//! Quickening: the copy of a code object's instructions that the VM runs, with some common
//! runs of instructions that start with `LOAD_FAST` (or `LOAD_FAST_LOAD_FAST`) replaced, at
//! that first instruction, by one that does the whole run ([`Instr::LoadFastLoadAttr`] and
//! its kin). A comparison run also takes the `POP_JUMP_IF_FALSE`/`POP_JUMP_IF_TRUE` after
//! it, if there is one, when its result is a plain bool, and an operator run the
//! `STORE_FAST` after it.
//!
//! CPython specialises instructions in place as they run, where `dis` does not look; apy
//! does it once, when a code object is loaded, and `--dis` shows the compiler's
//! instructions, never these. Only the first instruction of a run is replaced: the ones
//! after it stay where they were, so a jump into the middle of a run, an exception table
//! or a line table sees the same instructions at the same places. The VM runs a quickened
//! instruction as the run only when it can account for it exactly (every instruction of
//! the run still counts as a step, and a local that is unbound raises at the `LOAD_FAST`);
//! otherwise it runs just the first instruction, and the rest of the run follows one by one.

use crate::compile::bytecode::Instr;

/// The instructions to run for `instrs`: the same length, a run's first instruction
/// replaced wherever a run starts.
pub fn quicken(instrs: &[Instr]) -> Box<[Instr]> {
    let mut quick: Box<[Instr]> = instrs.into();
    for (at, slot) in quick.iter_mut().enumerate() {
        let next = instrs.get(at + 1).copied();
        if let Instr::LoadFastLoadFast(pair) = *slot {
            *slot = match next {
                Some(Instr::BinaryOp(op)) => Instr::LoadFastLoadFastBinaryOp(op, pair),
                Some(Instr::CompareOp(op)) => Instr::LoadFastLoadFastCompareOp(op, pair),
                Some(Instr::BinarySubscr) => Instr::LoadFastLoadFastSubscr(pair),
                Some(Instr::StoreAttr(name)) => match u8::try_from(pair) {
                    Ok(pair) => Instr::LoadFastLoadFastStoreAttr(pair, name),
                    Err(_) => continue,
                },
                _ => continue,
            };
            continue;
        }
        let Instr::LoadFast(local) = *slot else {
            continue;
        };
        let after = instrs.get(at + 2).copied();
        let run = match (next, after) {
            (Some(Instr::LoadAttr(name)), _) => u8::try_from(local)
                .ok()
                .map(|local| Instr::LoadFastLoadAttr(local, name)),
            (Some(Instr::LoadMethod(name)), _) => u8::try_from(local)
                .ok()
                .map(|local| Instr::LoadFastLoadMethod(local, name)),
            (Some(Instr::LoadConst(constant)), Some(Instr::BinaryOp(op))) => {
                pack(local, constant).map(|operands| Instr::LoadFastConstBinaryOp(op, operands))
            }
            (Some(Instr::LoadConst(constant)), Some(Instr::CompareOp(op))) => {
                pack(local, constant).map(|operands| Instr::LoadFastConstCompareOp(op, operands))
            }
            _ => None,
        };
        if let Some(run) = run {
            *slot = run;
        }
    }
    quick
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
            _ => 0,
        }
    }

    #[test]
    fn runs_are_replaced_at_their_load_fast_and_the_rest_stays_in_place() {
        let f = function(
            "def f(n, node):\n    if n < 2:\n        return node.left\n    return n - 1\n",
        );
        let quick = quicken(&f.instructions);
        assert_eq!(quick.len(), f.instructions.len());
        let mut replaced = 0;
        for (at, (q, original)) in quick.iter().zip(&f.instructions).enumerate() {
            if q == original {
                continue;
            }
            replaced += 1;
            // Only a LOAD_FAST is ever replaced, and what it stood for is still after it.
            let &Instr::LoadFast(local) = original else {
                panic!("{original:?} at {at} was replaced by {q:?}");
            };
            let rest = &f.instructions[at + 1..at + 1 + run_length(q)];
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
        assert_eq!(replaced, 3);
    }

    #[test]
    fn a_pair_of_loads_takes_the_operator_after_it() {
        let f = function(
            "def f(a, b):\n    while a < b:\n        a = a * b\n        b.x = a\n    return a[b]\n",
        );
        let quick = quicken(&f.instructions);
        let ops: Vec<_> = quick
            .iter()
            .zip(&f.instructions)
            .filter(|(q, original)| q != original)
            .map(|(q, original)| (*q, *original))
            .collect();
        assert!(
            ops.iter()
                .all(|(_, original)| matches!(original, Instr::LoadFastLoadFast(_)))
        );
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
    fn a_lone_load_fast_and_large_indices_stay_as_they_are() {
        let lone = [Instr::LoadFast(0), Instr::ReturnValue];
        assert_eq!(*quicken(&lone), lone);
        let far = [Instr::LoadFast(300), Instr::LoadAttr(0), Instr::ReturnValue];
        assert_eq!(*quicken(&far), far);
        let big_const = [
            Instr::LoadFast(0),
            Instr::LoadConst(70_000),
            Instr::BinaryOp(BinaryOperator::Add),
        ];
        assert_eq!(*quicken(&big_const), big_const);
    }
}
