//! Which loads of fast locals need a check: a `LoadFast` that some path reaches with its
//! local unbound becomes `LoadFastCheck` (UnboundLocalError when it is), and every other
//! `LoadFast` runs without looking (CPython 3.13's
//! `add_checks_for_loads_of_uninitialized_variables` in `Python/flowgraph.c`, which `dis`
//! shows as `LOAD_FAST_CHECK`). A forward data-flow over the instructions: the locals
//! that may be unbound on entry to each, merged over the paths that reach it (the next
//! instruction, a jump's target, the exception handler, which sees the state before the
//! instruction that raised). Parameters start bound, the other locals unbound; a store
//! binds, and so does a load (it raised otherwise); `DeleteFast`, `LoadFastAndClear` and
//! `StoreFastMaybeNull` may unbind. As in CPython, the first 64 locals are followed across
//! jumps; the others only within a straight run of code, so their first load in each is
//! checked.

use super::bytecode::Instr;
use super::peephole::Listing;

/// The locals followed across jumps: one bit each.
const TRACKED: u32 = 64;

/// Turns the `LoadFast`s of `listing` that may find their local unbound into
/// `LoadFastCheck`s. `keep` marks the reachable instructions, `handler_entries[h]` is where
/// handler `h` starts, and the first `nparams` locals are the parameters.
pub fn add_checks(listing: &mut Listing, keep: &[bool], handler_entries: &[usize], nparams: u32) {
    let n = keep.len();
    // next_kept[i]: the first kept instruction at or after i (a jump may name a dropped one).
    let mut next_kept = vec![n; n + 1];
    for i in (0..n).rev() {
        next_kept[i] = if keep[i] { i } else { next_kept[i + 1] };
    }
    let Some(entry) = next_kept.first().copied().filter(|&e| e < n) else {
        return;
    };
    let unbound_at_start = (nparams..TRACKED).fold(0u64, |mask, i| mask | 1 << i);
    // unbound[i]: the locals that may be unbound when instruction i starts.
    let mut unbound = vec![0u64; n];
    unbound[entry] = unbound_at_start;
    // Every instruction is looked at once (a `DeleteFast` reached by no path still counts),
    // then again whenever what reaches it grows.
    let mut queued = keep.to_vec();
    let mut work: Vec<usize> = (0..n).filter(|&i| keep[i]).rev().collect();
    while let Some(i) = work.pop() {
        queued[i] = false;
        let before = unbound[i];
        let instr = listing.instrs[i];
        let mut reach = |to: usize, mask: u64| {
            let to = next_kept[to];
            if to < n && unbound[to] | mask != unbound[to] {
                unbound[to] |= mask;
                if !queued[to] {
                    queued[to] = true;
                    work.push(to);
                }
            }
        };
        if let Some(h) = listing.handler_at[i] {
            reach(handler_entries[h], before);
        }
        let after = transfer(instr, before);
        if let Some(target) = instr.jump_target() {
            reach(target as usize, after);
        }
        if !instr.is_terminator() {
            reach(i + 1, after);
        }
    }
    for i in (0..n).filter(|&i| keep[i]) {
        if let Instr::LoadFast(local) = listing.instrs[i]
            && local < TRACKED
            && unbound[i] & 1 << local != 0
        {
            listing.instrs[i] = Instr::LoadFastCheck(local);
        }
    }
    check_untracked_locals(listing, keep, handler_entries);
}

/// The locals that may be unbound after `instr`, given those before it.
fn transfer(instr: Instr, unbound: u64) -> u64 {
    let bit = |local: u32| if local < TRACKED { 1u64 << local } else { 0 };
    match instr {
        Instr::DeleteFast(local)
        | Instr::LoadFastAndClear(local)
        | Instr::StoreFastMaybeNull(local) => unbound | bit(local),
        Instr::StoreFast(local) | Instr::LoadFast(local) => unbound & !bit(local),
        _ => unbound,
    }
}

/// Locals past the first 64 (CPython's `fast_scan_many_locals`): a load is left unchecked
/// only after a store or load of the same local earlier in the same straight run of code
/// (no jump into it, no jump or exit before it), with no unbinding between.
fn check_untracked_locals(listing: &mut Listing, keep: &[bool], handler_entries: &[usize]) {
    let n = keep.len();
    let mut run_starts = vec![false; n + 1];
    for (i, instr) in listing.instrs.iter().enumerate() {
        if !keep[i] {
            continue;
        }
        if let Some(target) = instr.jump_target() {
            run_starts[target as usize] = true;
        }
        if instr.jump_target().is_some() || instr.is_terminator() {
            run_starts[i + 1] = true;
        }
    }
    for &entry in handler_entries {
        run_starts[entry] = true;
    }
    // bound_in_run[local - 64] == run: bound since the current run began.
    let mut bound_in_run: Vec<usize> = Vec::new();
    let mut run = 1;
    for i in 0..n {
        if run_starts[i] {
            run += 1;
        }
        if !keep[i] {
            continue;
        }
        let (local, binds) = match listing.instrs[i] {
            Instr::StoreFast(l) | Instr::LoadFast(l) | Instr::LoadFastCheck(l) => (l, true),
            Instr::DeleteFast(l) | Instr::LoadFastAndClear(l) | Instr::StoreFastMaybeNull(l) => {
                (l, false)
            }
            _ => continue,
        };
        let Some(slot) = local.checked_sub(TRACKED).map(|s| s as usize) else {
            continue;
        };
        if bound_in_run.len() <= slot {
            bound_in_run.resize(slot + 1, 0);
        }
        if listing.instrs[i] == Instr::LoadFast(local) && bound_in_run[slot] != run {
            listing.instrs[i] = Instr::LoadFastCheck(local);
        }
        bound_in_run[slot] = if binds { run } else { 0 };
    }
}

#[cfg(test)]
mod tests {
    use crate::compile::bytecode::Instr;
    use crate::compile::first_function as function;

    fn loads(source: &str) -> Vec<Instr> {
        function(source)
            .instructions
            .iter()
            .copied()
            .filter(|i| {
                matches!(
                    i,
                    Instr::LoadFast(_) | Instr::LoadFastCheck(_) | Instr::LoadFastLoadFast(_)
                )
            })
            .collect()
    }

    #[test]
    fn a_local_bound_on_one_branch_only_is_checked() {
        let f = "def f(c):\n    if c:\n        x = 1\n    return x\n";
        assert_eq!(loads(f), [Instr::LoadFast(0), Instr::LoadFastCheck(1)]);
        let f = "def f(c):\n    if c:\n        x = 1\n    else:\n        x = 2\n    return x\n";
        assert_eq!(loads(f), [Instr::LoadFast(0), Instr::LoadFast(1)]);
    }

    #[test]
    fn a_loop_body_may_not_have_run_and_a_del_unbinds() {
        let f = "def f(c):\n    for q in c:\n        w = q\n    return w\n";
        assert_eq!(
            loads(f),
            [
                Instr::LoadFast(0),
                Instr::LoadFast(1),
                Instr::LoadFastCheck(2)
            ]
        );
        let f = "def f(x):\n    del x\n    return x\n";
        assert_eq!(loads(f), [Instr::LoadFastCheck(0)]);
    }

    #[test]
    fn a_handler_sees_the_locals_before_what_raised() {
        let f =
            "def f():\n    try:\n        x = g()\n    except E:\n        return x\n    return x\n";
        let found = loads(f);
        // The normal path has bound x; the handler may come from `g()`, before the store.
        assert_eq!(found, [Instr::LoadFast(0), Instr::LoadFastCheck(0)]);
    }

    #[test]
    fn a_checked_load_is_not_fused_and_binds_what_follows() {
        let f = "def f(c):\n    if c:\n        x = 1\n    return (x, x, c)\n";
        assert_eq!(
            loads(f),
            [
                Instr::LoadFast(0),
                Instr::LoadFastCheck(1),
                Instr::LoadFastLoadFast(1 << 4),
            ]
        );
    }

    #[test]
    fn a_comprehension_puts_back_a_maybe_unbound_outer_variable() {
        // After the comprehension, `a` is whatever was put back, which may have been
        // NULL as far as the analysis knows (CPython checks it too).
        let f = "def f(y):\n    a = 1\n    z = [a for a in y]\n    return a\n";
        assert_eq!(loads(f).last(), Some(&Instr::LoadFastCheck(1)));
        let code = function(f);
        assert!(
            !code
                .instructions
                .iter()
                .any(|i| matches!(i, Instr::StoreFastMaybeNull(_)))
        );
        // Put back one by one, as CPython does: its pseudo-stores are not paired.
        let code = function("def f(y):\n    return [a + b for a, b in y]\n");
        let stores = code
            .instructions
            .iter()
            .filter(|i| matches!(i, Instr::StoreFast(_)));
        assert_eq!(stores.count(), 4);
    }

    #[test]
    fn locals_past_64_are_followed_only_within_a_run() {
        let names: Vec<String> = (0..70).map(|i| format!("v{i}")).collect();
        let mut f = format!("def f():\n    {} = 0\n", names.join(" = "));
        f.push_str("    if v0:\n        pass\n    return v69 + v69\n");
        let found = loads(&f);
        // v69 (slot 69) was stored before the branch: unchecked for slot 0, but slot 69's
        // first load after the jump target is checked, the second not.
        assert_eq!(
            &found[found.len() - 2..],
            [Instr::LoadFastCheck(69), Instr::LoadFast(69)]
        );
    }
}
