//! The last optimisations of an assembled code unit, those of CPython 3.13's
//! `Python/flowgraph.c` that change what `--dis` shows: unreachable code and jumps to the
//! next instruction go, `x, y = a, b` stores without building a tuple (`BUILD_TUPLE` +
//! `UNPACK_SEQUENCE` become a `SWAP`, which becomes a reordering of the stores), and pairs
//! of instructions become superinstructions. Works on a unit's parallel arrays
//! (instructions, locations, handlers) and a mask of the instructions kept; knows nothing
//! of the AST or of runtime values.

use super::bytecode::{Instr, Location};
use super::local_checks;

/// The instructions of a unit, with the location and the exception handler of each.
pub struct Listing<'u> {
    pub instrs: &'u mut Vec<Instr>,
    pub locs: &'u mut Vec<Location>,
    pub handler_at: &'u mut Vec<Option<usize>>,
}

impl Listing<'_> {
    /// Exchanges the instructions at `a` and `b`, with their locations and handlers.
    fn exchange(&mut self, a: usize, b: usize) {
        self.instrs.swap(a, b);
        self.locs.swap(a, b);
        self.handler_at.swap(a, b);
    }
}

/// Drops what no path reaches (`keep` is false there) and each jump to the instruction that
/// follows it anyway (CPython's `remove_unreachable` and `remove_redundant_jumps`), applies
/// the optimisations above, marks the loads of locals that may be unbound
/// (`compile::local_checks`; the first `nparams` locals are the parameters) and renumbers
/// the jumps. `handler_entries` are where exception handlers start. Returns, for each old
/// position (and the end), the new position of the first instruction kept from there on.
pub fn optimize(
    mut listing: Listing,
    mut keep: Vec<bool>,
    handler_entries: &[usize],
    nparams: u32,
) -> Vec<u32> {
    let n = listing.instrs.len();
    thread_jumps(listing.instrs);
    loop {
        // next_kept[i]: the first kept instruction at or after i.
        let mut next_kept = vec![n; n + 1];
        for i in (0..n).rev() {
            next_kept[i] = if keep[i] { i } else { next_kept[i + 1] };
        }
        let mut changed = false;
        for i in 0..n {
            if let (true, Instr::Jump(t) | Instr::JumpNoInterrupt(t)) = (keep[i], listing.instrs[i])
                && next_kept[i + 1] == next_kept[t as usize]
            {
                keep[i] = false;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    let blocks = BlockStarts::new(&listing, &keep, handler_entries);
    remove_redundant_nops(&listing, &mut keep, &blocks);
    pop_overwritten_stores(&mut listing, &keep, &blocks);
    unpack_without_tuples(&mut listing, &mut keep, &blocks);
    swaptimize(&mut listing, &mut keep, &blocks);
    local_checks::add_checks(&mut listing, &keep, handler_entries, nparams);
    fuse_superinstructions(&mut listing, &mut keep, &blocks);
    // Seen by the checks and not fused (as in CPython), the pseudo-instruction is a store.
    for instr in listing.instrs.iter_mut() {
        if let Instr::StoreFastMaybeNull(local) = *instr {
            *instr = Instr::StoreFast(local);
        }
    }
    let mut new_index = Vec::with_capacity(n + 1);
    let mut count = 0u32;
    for &k in &keep {
        new_index.push(count);
        count += k as u32;
    }
    new_index.push(count);
    retain_kept(listing.instrs, &keep);
    retain_kept(listing.locs, &keep);
    retain_kept(listing.handler_at, &keep);
    for instr in listing.instrs.iter_mut() {
        if let Some(t) = instr.jump_target() {
            *instr = instr.with_jump_target(new_index[t as usize]);
        }
    }
    new_index
}

/// Drops each `NOP` that marks no line of its own (CPython's `remove_redundant_nops`): one
/// after an instruction of its line in its block, or before an instruction of its line.
/// The `NOP`s left each mark a line that has no other instruction there, for tracing.
fn remove_redundant_nops(listing: &Listing, keep: &mut [bool], blocks: &BlockStarts) {
    let n = listing.instrs.len();
    let mut previous_line = None;
    for i in 0..n {
        if blocks.0[i] {
            previous_line = None;
        }
        if !keep[i] {
            continue;
        }
        let line = listing.locs[i].line;
        if listing.instrs[i] == Instr::Nop {
            let next_line = (i + 1..n).find(|&j| keep[j]).map(|j| listing.locs[j].line);
            if previous_line == Some(line) || next_line == Some(line) {
                keep[i] = false;
                continue;
            }
        }
        previous_line = Some(line);
    }
}

/// A handler's exit that lands on an unconditional jump goes straight to where that one
/// goes (CPython's `jump_thread`), as the interrupting kind when it passes a plain jump: an
/// exit that lands on a loop's `JUMP_BACKWARD` becomes that `JUMP_BACKWARD`.
fn thread_jumps(instrs: &mut [Instr]) {
    for i in 0..instrs.len() {
        let Instr::JumpNoInterrupt(mut target) = instrs[i] else {
            continue;
        };
        let mut threaded = instrs[i];
        for _ in 0..instrs.len() {
            threaded = match instrs.get(target as usize) {
                Some(&Instr::Jump(next)) if next != target => Instr::Jump(next),
                Some(&Instr::JumpNoInterrupt(next)) if next != target => {
                    threaded.with_jump_target(next)
                }
                _ => break,
            };
            target = threaded.jump_target().unwrap_or(target);
        }
        instrs[i] = threaded;
    }
}

/// Keeps the elements of `items` whose `keep` is true.
fn retain_kept<T>(items: &mut Vec<T>, keep: &[bool]) {
    let mut k = keep.iter();
    items.retain(|_| *k.next().unwrap_or(&false));
}

/// Where control can arrive other than from the previous instruction: jump targets and
/// handler entries. An optimisation never reaches across one (CPython works on basic
/// blocks).
struct BlockStarts(Vec<bool>);

impl BlockStarts {
    fn new(listing: &Listing, keep: &[bool], handler_entries: &[usize]) -> BlockStarts {
        let mut starts = vec![false; listing.instrs.len() + 1];
        for (i, instr) in listing.instrs.iter().enumerate() {
            if let (true, Some(t)) = (keep[i], instr.jump_target()) {
                starts[t as usize] = true;
            }
        }
        for &entry in handler_entries {
            starts[entry] = true;
        }
        BlockStarts(starts)
    }

    /// True when control can arrive anywhere after `first` up to `last`: a jump may name a
    /// dropped instruction, and then lands on the next kept one.
    fn any_after(&self, first: usize, last: usize) -> bool {
        self.0[first + 1..=last].iter().any(|&s| s)
    }
}

/// The kept instructions after `at`, in order.
fn kept_after(keep: &[bool], at: usize) -> impl Iterator<Item = usize> + '_ {
    (at + 1..keep.len()).filter(|&i| keep[i])
}

/// A store to a fast local that the next instruction, on the same line, overwrites
/// becomes a `POP_TOP` (`a, a = x, y`; `optimize_basic_block` in flowgraph.c).
fn pop_overwritten_stores(listing: &mut Listing, keep: &[bool], blocks: &BlockStarts) {
    for store in 0..keep.len() {
        let (true, Instr::StoreFast(slot)) = (keep[store], listing.instrs[store]) else {
            continue;
        };
        let Some(next) = kept_after(keep, store).next() else {
            continue;
        };
        if listing.instrs[next] == Instr::StoreFast(slot)
            && listing.locs[next].line == listing.locs[store].line
            && !blocks.any_after(store, next)
        {
            listing.instrs[store] = Instr::PopTop;
        }
    }
}

/// `BUILD_TUPLE n` straight into `UNPACK_SEQUENCE n`: for one item both go, for two or
/// three the tuple's reversal is a `SWAP n`, which [`store_in_swapped_order`] then often
/// removes too (`optimize_basic_block` in flowgraph.c).
fn unpack_without_tuples(listing: &mut Listing, keep: &mut [bool], blocks: &BlockStarts) {
    for build in 0..keep.len() {
        if !keep[build] {
            continue;
        }
        let Instr::BuildTuple(n) = listing.instrs[build] else {
            continue;
        };
        let Some(unpack) = kept_after(keep, build).next() else {
            continue;
        };
        if listing.instrs[unpack] != Instr::UnpackSequence(n) || blocks.any_after(build, unpack) {
            continue;
        }
        match n {
            1 => {
                keep[build] = false;
                keep[unpack] = false;
            }
            2 | 3 => {
                keep[build] = false;
                listing.instrs[unpack] = Instr::Swap(n);
                store_in_swapped_order(listing, keep, blocks, unpack);
            }
            _ => {}
        }
    }
}

/// A run of `SWAP`s (a `match` statement's captures make them) becomes the fewest swaps
/// with the same effect, which then trade places with the stores after them where they
/// can (CPython's `swaptimize` and `apply_static_swaps`).
fn swaptimize(listing: &mut Listing, keep: &mut [bool], blocks: &BlockStarts) {
    let mut i = 0;
    while i < keep.len() {
        if !keep[i] || !matches!(listing.instrs[i], Instr::Swap(_)) {
            i += 1;
            continue;
        }
        let mut run = vec![i];
        while let Some(next) = kept_after(keep, run[run.len() - 1]).next() {
            if blocks.any_after(run[run.len() - 1], next)
                || !matches!(listing.instrs[next], Instr::Swap(_))
            {
                break;
            }
            run.push(next);
        }
        i = run[run.len() - 1] + 1;
        if run.len() > 1 {
            shortest_swaps(listing, keep, &run);
        }
        // From the last swap back, until one cannot be applied statically.
        for &swap in run.iter().rev() {
            if keep[swap] && !store_in_swapped_order(listing, keep, blocks, swap) {
                break;
            }
        }
    }
}

/// Rewrites the swaps at `run` as the fewest that permute the stack the same way: each
/// cycle of the permutation, undone through the top item, placed from the run's end; the
/// slots left over are dropped.
fn shortest_swaps(listing: &mut Listing, keep: &mut [bool], run: &[usize]) {
    const VISITED: usize = usize::MAX;
    let depth = run
        .iter()
        .map(|&k| match listing.instrs[k] {
            Instr::Swap(n) => n as usize,
            _ => 1,
        })
        .max()
        .unwrap_or(1);
    let mut stack: Vec<usize> = (0..depth).collect();
    for &k in run {
        if let Instr::Swap(n) = listing.instrs[k] {
            stack.swap(0, n as usize - 1);
        }
    }
    let mut current = run.len();
    for start in 0..depth {
        if stack[start] == VISITED || stack[start] == start {
            continue;
        }
        let mut j = start;
        loop {
            if j != 0 {
                current -= 1;
                listing.instrs[run[current]] = Instr::Swap(j as u32 + 1);
            }
            if stack[j] == VISITED {
                break;
            }
            let next = stack[j];
            stack[j] = VISITED;
            j = next;
        }
    }
    for &k in &run[..current] {
        keep[k] = false;
    }
}

/// The slot a `StoreFast` (or `StoreFastMaybeNull`) stores to.
fn stores_to(instr: Instr) -> Option<u32> {
    match instr {
        Instr::StoreFast(i) | Instr::StoreFastMaybeNull(i) => Some(i),
        _ => None,
    }
}

/// The next kept instruction after `at` when it can trade places with another (a store to
/// a fast local, or a `PopTop`) and, when `line` is given, is on that line.
fn next_swappable(
    listing: &Listing,
    keep: &[bool],
    blocks: &BlockStarts,
    at: usize,
    line: Option<u32>,
) -> Option<usize> {
    let next = kept_after(keep, at).next()?;
    if blocks.any_after(at, next) || line.is_some_and(|l| listing.locs[next].line != l) {
        return None;
    }
    let swappable = matches!(
        listing.instrs[next],
        Instr::StoreFast(_) | Instr::StoreFastMaybeNull(_) | Instr::PopTop
    );
    swappable.then_some(next)
}

/// A `SWAP n` followed by stores that take the swapped items: exchange the stores instead
/// and drop the `SWAP` (`apply_static_swaps` in flowgraph.c), unless the two stores, or a
/// store between them, write the same local (the last write must stay the last).
fn store_in_swapped_order(
    listing: &mut Listing,
    keep: &mut [bool],
    blocks: &BlockStarts,
    swap: usize,
) -> bool {
    let Instr::Swap(n) = listing.instrs[swap] else {
        return false;
    };
    let Some(first) = next_swappable(listing, keep, blocks, swap, None) else {
        return false;
    };
    let line = Some(listing.locs[first].line);
    let mut last = first;
    for _ in 1..n {
        match next_swappable(listing, keep, blocks, last, line) {
            Some(next) => last = next,
            None => return false,
        }
    }
    let (a, b) = (
        stores_to(listing.instrs[first]),
        stores_to(listing.instrs[last]),
    );
    if a.is_some() || b.is_some() {
        if a == b {
            return false;
        }
        let between = kept_after(keep, first).take_while(|&i| i < last);
        if between
            .filter_map(|i| stores_to(listing.instrs[i]))
            .any(|s| Some(s) == a || Some(s) == b)
        {
            return false;
        }
    }
    keep[swap] = false;
    listing.exchange(first, last);
    true
}

/// CPython 3.13's superinstructions (`insert_superinstructions`), plus its LOAD_GLOBAL that
/// pushes the call's NULL: two kept instructions in a row become one when control cannot
/// arrive at the second. Fast-local pairs must also share a line and an exception handler
/// (a `LoadFast` can raise), and both slots must fit in four bits.
fn fuse_superinstructions(listing: &mut Listing, keep: &mut [bool], blocks: &BlockStarts) {
    let kept: Vec<usize> = (0..keep.len()).filter(|&i| keep[i]).collect();
    let mut pairs = kept.windows(2);
    while let Some(&[first, second]) = pairs.next() {
        if blocks.any_after(first, second) {
            continue;
        }
        let same_place = listing.locs[first].line == listing.locs[second].line
            && listing.handler_at[first] == listing.handler_at[second];
        let nibbles = |a: u32, b: u32| (a < 16 && b < 16).then_some(a << 4 | b);
        let fused = match (listing.instrs[first], listing.instrs[second]) {
            (Instr::LoadGlobal(i), Instr::PushNull) => Some(Instr::LoadGlobalNull(i)),
            (Instr::LoadFast(a), Instr::LoadFast(b)) if same_place => {
                nibbles(a, b).map(Instr::LoadFastLoadFast)
            }
            (Instr::StoreFast(a), Instr::LoadFast(b)) if same_place => {
                nibbles(a, b).map(Instr::StoreFastLoadFast)
            }
            (Instr::StoreFast(a), Instr::StoreFast(b)) if same_place => {
                nibbles(a, b).map(Instr::StoreFastStoreFast)
            }
            _ => None,
        };
        if let Some(fused) = fused {
            listing.instrs[first] = fused;
            keep[second] = false;
            // The second instruction is used up: it cannot start another pair.
            pairs.next();
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::compile::bytecode::{BinaryOperator, Instr};
    use crate::compile::first_function as function;

    #[test]
    fn superinstructions_pair_fast_locals_on_one_line_and_globals_with_their_null() {
        let f = function("def f(a, b):\n    c = a + b\n    return c, g(c)\n");
        assert_eq!(
            f.instructions[..3],
            [
                Instr::LoadFastLoadFast(1),
                Instr::BinaryOp(BinaryOperator::Add),
                Instr::StoreFast(2),
            ]
        );
        // The store ends line 2; line 3's load starts on its own.
        assert_eq!(f.instructions[3], Instr::LoadFast(2));
        assert!(f.instructions.contains(&Instr::LoadGlobalNull(0)));
        assert!(!f.instructions.contains(&Instr::PushNull));
        // `x = y = v`: one store after the other.
        let f = function("def f(v):\n    x = y = v\n");
        assert!(
            f.instructions
                .contains(&Instr::StoreFastStoreFast(1 << 4 | 2))
        );
    }

    #[test]
    fn superinstructions_leave_jump_targets_and_wide_slots_alone() {
        // `b` after the conditional expression is where its first branch jumps to.
        let f = function("def f(a, b, c):\n    return (a if c else b), a\n");
        assert!(
            !f.instructions
                .iter()
                .any(|i| matches!(i, Instr::LoadFastLoadFast(_)))
        );
        // Slot 16 does not fit in four bits.
        let params: Vec<String> = (0..17).map(|i| format!("p{i}")).collect();
        let f = function(&format!(
            "def f({}):\n    return p15 + p16\n",
            params.join(", ")
        ));
        assert_eq!(
            f.instructions[..2],
            [Instr::LoadFast(15), Instr::LoadFast(16)]
        );
    }

    #[test]
    fn runs_of_swaps_become_the_fewest_then_reordered_stores() {
        // `[a, *r, b]` rotates each capture under the others: SWAP 3, SWAP 2 three
        // times, which is no permutation at all.
        let f =
            function("def f(s):\n    match s:\n        case [a, *r, b]:\n            return r\n");
        assert!(!f.instructions.iter().any(|i| matches!(i, Instr::Swap(_))));
        // `P(a) as q`: one SWAP 2 left after the run, applied to the stores instead.
        let f = function(
            "def f(s):\n    match s:\n        case P(a, y=0) as q:\n            return q\n",
        );
        let swaps = f
            .instructions
            .iter()
            .filter(|i| matches!(i, Instr::Swap(_)));
        assert_eq!(swaps.count(), 2, "{:?}", f.instructions);
    }

    #[test]
    fn tuple_assignments_store_in_swapped_order() {
        // LOAD b, LOAD a, then b's store first: no tuple, no SWAP.
        let f = function("def f(a, b):\n    a, b = b, a\n");
        assert_eq!(
            f.instructions[..2],
            [
                Instr::LoadFastLoadFast(1 << 4),
                Instr::StoreFastStoreFast(1 << 4)
            ]
        );
        // Three names: the outer two stores trade places.
        let f = function("def f(a, b, c):\n    a, b, c = c, b, a\n");
        assert_eq!(
            f.instructions[2..4],
            [Instr::StoreFastStoreFast(2 << 4 | 1), Instr::StoreFast(0)]
        );
        // One name: nothing at all between the load and the store.
        let f = function("def f(a):\n    x, = a,\n");
        assert_eq!(
            f.instructions[..2],
            [Instr::LoadFast(0), Instr::StoreFast(1)]
        );
    }

    #[test]
    fn swaps_stay_where_stores_cannot_trade_places() {
        // Attribute targets: the SWAP stays.
        let f = function("def f(o, a, b):\n    o.x, o.y = a, b\n");
        assert!(f.instructions.contains(&Instr::Swap(2)));
        assert!(
            !f.instructions
                .iter()
                .any(|i| matches!(i, Instr::BuildTuple(_)))
        );
        // Two stores to one name: the first becomes a POP_TOP and trades places instead.
        let f = function("def f(b, c):\n    a, a = b, c\n");
        assert_eq!(f.instructions[1..3], [Instr::StoreFast(2), Instr::PopTop]);
        // Four items still build and unpack a tuple.
        let f = function("def f(a, b, c, d):\n    a, b, c, d = d, c, b, a\n");
        assert!(f.instructions.contains(&Instr::BuildTuple(4)));
        // `a, b = b, a + b`: the stores of fib's loop.
        let f = function("def f(a, b):\n    a, b = b, a + b\n");
        assert_eq!(
            f.instructions[..4],
            [
                Instr::LoadFastLoadFast(1 << 4),
                Instr::LoadFast(1),
                Instr::BinaryOp(BinaryOperator::Add),
                Instr::StoreFastStoreFast(1 << 4),
            ]
        );
    }
}
