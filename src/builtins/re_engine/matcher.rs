//! The matcher: runs a [`Program`] over a subject's code points (or bytes) with sre's
//! semantics (`Modules/_sre/sre_lib.h`): alternatives and repeats are tried in pattern
//! order and undone on failure. Backtracking lives on an explicit stack of [`Frame`]s —
//! choice points to come back to and the captures and counters to restore on the way — so
//! a pathological pattern is slow (and counted against the step budget), never a native
//! stack overflow.

use super::compiler::{Anchor, Inst, Program, Unit, is_word, same_ignoring_case};
use super::parser::RepeatKind;

/// What kind of match the caller asks for.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// At the start position only (`match`).
    Match,
    /// At the start position, to the end (`fullmatch`).
    Full,
    /// At the first position where one is found (`search`).
    Search,
}

/// A match: capture slots (start and end of each group, `usize::MAX` when unset) and the
/// last group that closed (`lastindex`), 0 for none.
pub struct Found {
    pub slots: Vec<usize>,
    pub lastindex: usize,
}

const UNSET: usize = usize::MAX;

/// What the backtracking stack holds.
enum Frame {
    /// A choice point: resume at `pc` with `pos`.
    Alt {
        pc: usize,
        pos: usize,
    },
    /// Undo: capture slot `slot` was `old`.
    Slot {
        slot: usize,
        old: usize,
    },
    LastIndex(usize),
    /// Undo: counted repeat `r` was at `count`, its last round starting at `last`.
    Counter {
        r: usize,
        count: u64,
        last: usize,
    },
    /// A greedy single-character repeat at `pos` that can give back down to `min_pos`.
    Greedy {
        pc: usize,
        min_pos: usize,
        pos: usize,
    },
    /// A lazy single-character repeat at `pos` that can take more up to `max_pos`.
    Lazy {
        pc: usize,
        unit: Unit,
        pos: usize,
        max_pos: usize,
    },
    /// The start of an atomic group or a look-around; `look` holds where the look started,
    /// whether it is negative, and where a negative look goes on after its body fails.
    Barrier {
        look: Option<(usize, bool, usize)>,
    },
}

/// How many steps are counted at once against the budget.
const STEP_CHUNK: u64 = 4096;

struct Machine<'a> {
    prog: &'a Program,
    s: &'a [u32],
    stack: Vec<Frame>,
    slots: Vec<usize>,
    lastindex: usize,
    counts: Vec<u64>,
    lasts: Vec<usize>,
}

/// Runs `prog` over `s` from `start` (the subject already cut at `endpos`). With
/// `must_advance`, an empty match at `start` does not count (the next match of an
/// iteration after an empty one). `charge` is called every few thousand steps and may stop
/// the run.
pub fn run<E>(
    prog: &Program,
    s: &[u32],
    start: usize,
    mode: Mode,
    must_advance: bool,
    charge: &mut dyn FnMut(u64) -> Result<(), E>,
) -> Result<Option<Found>, E> {
    let mut m = Machine {
        prog,
        s,
        // Room for a few choice points and undos at once: growing 4, 8, 16 cost more.
        stack: Vec::with_capacity(16),
        slots: vec![UNSET; 2 * prog.groups],
        lastindex: 0,
        counts: vec![0; prog.repeats],
        lasts: vec![UNSET; prog.repeats],
    };
    let mut budget = STEP_CHUNK;
    let mut at = start;
    while at <= s.len() {
        if mode == Mode::Search
            && let Some(first) = prog.first
        {
            match s[at..].iter().position(|&c| first.matches(c, &prog.sets)) {
                Some(skip) => at += skip,
                None => return Ok(None),
            }
        }
        if let Some(end) = m.try_at(at, mode, must_advance && at == start, &mut budget, charge)? {
            m.slots[0] = at;
            m.slots[1] = end;
            return Ok(Some(Found {
                slots: m.slots,
                lastindex: m.lastindex,
            }));
        }
        if mode != Mode::Search {
            break;
        }
        at += 1;
    }
    Ok(None)
}

impl Machine<'_> {
    fn try_at<E>(
        &mut self,
        start: usize,
        mode: Mode,
        must_advance: bool,
        budget: &mut u64,
        charge: &mut dyn FnMut(u64) -> Result<(), E>,
    ) -> Result<Option<usize>, E> {
        self.stack.clear();
        self.slots.fill(UNSET);
        self.lastindex = 0;
        let (s, insts, sets) = (self.s, &self.prog.insts, &self.prog.sets);
        let end = s.len();
        let mut pc = 0;
        let mut pos = start;
        loop {
            if *budget == 0 {
                charge(STEP_CHUNK)?;
                *budget = STEP_CHUNK;
            }
            *budget -= 1;
            let ok = match insts[pc] {
                Inst::One(unit) => {
                    let ok = pos < end && unit.matches(s[pos], sets);
                    pos += 1;
                    pc += 1;
                    ok
                }
                Inst::At(anchor) => {
                    pc += 1;
                    self.at(anchor, pos)
                }
                Inst::Split { prefer, other } => {
                    self.stack.push(Frame::Alt { pc: other, pos });
                    pc = prefer;
                    true
                }
                Inst::Jmp(to) => {
                    pc = to;
                    true
                }
                Inst::Save(slot) => {
                    self.stack.push(Frame::Slot {
                        slot,
                        old: self.slots[slot],
                    });
                    self.slots[slot] = pos;
                    if slot % 2 == 1 {
                        self.stack.push(Frame::LastIndex(self.lastindex));
                        self.lastindex = slot / 2;
                    }
                    pc += 1;
                    true
                }
                Inst::RepeatOne {
                    unit,
                    min,
                    max,
                    kind,
                } => {
                    let limit = end.min(pos.saturating_add(max.min(usize::MAX as u64) as usize));
                    let want = match kind {
                        RepeatKind::Lazy => pos.saturating_add(min as usize).min(limit),
                        _ => limit,
                    };
                    let mut p = pos;
                    while p < want && unit.matches(s[p], sets) {
                        p += 1;
                    }
                    charge_many(budget, (p - pos) as u64 / 8, charge)?;
                    if ((p - pos) as u64) < min {
                        false
                    } else {
                        let min_pos = pos + min as usize;
                        if kind == RepeatKind::Greedy {
                            p = self.give_back_to_literal(pc + 1, p, min_pos);
                        }
                        match kind {
                            RepeatKind::Greedy if p > min_pos => self.stack.push(Frame::Greedy {
                                pc: pc + 1,
                                min_pos,
                                pos: p,
                            }),
                            RepeatKind::Lazy if p < limit => self.stack.push(Frame::Lazy {
                                pc: pc + 1,
                                unit,
                                pos: p,
                                max_pos: limit,
                            }),
                            _ => {}
                        }
                        pos = p;
                        pc += 1;
                        true
                    }
                }
                Inst::RepeatInit(r) => {
                    self.save_counter(r);
                    self.counts[r] = 0;
                    self.lasts[r] = UNSET;
                    pc += 1;
                    true
                }
                Inst::RepeatLoop {
                    r,
                    min,
                    max,
                    lazy,
                    exit,
                } => {
                    let count = self.counts[r];
                    if count < min {
                        pc += 1;
                    } else if count >= max || self.lasts[r] == pos {
                        pc = exit;
                    } else if lazy {
                        self.stack.push(Frame::Alt { pc: pc + 1, pos });
                        pc = exit;
                    } else {
                        self.stack.push(Frame::Alt { pc: exit, pos });
                        pc += 1;
                    }
                    true
                }
                Inst::RepeatBody(r) => {
                    self.save_counter(r);
                    self.counts[r] += 1;
                    self.lasts[r] = pos;
                    pc += 1;
                    true
                }
                Inst::AtomicStart => {
                    self.stack.push(Frame::Barrier { look: None });
                    pc += 1;
                    true
                }
                Inst::AtomicEnd => {
                    self.cut();
                    pc += 1;
                    true
                }
                Inst::LookStart {
                    behind,
                    negate,
                    end: after,
                } => {
                    let from = match behind {
                        Some(width) => pos.checked_sub(width),
                        None => Some(pos),
                    };
                    match from {
                        Some(from) => {
                            self.stack.push(Frame::Barrier {
                                look: Some((pos, negate, after)),
                            });
                            pos = from;
                            pc += 1;
                            true
                        }
                        None if negate => {
                            pc = after;
                            true
                        }
                        None => false,
                    }
                }
                Inst::LookEnd => match self.cut() {
                    Some((at, false, _)) => {
                        pos = at;
                        pc += 1;
                        true
                    }
                    _ => {
                        // A negative look whose body matched: undo what the body did, fail.
                        self.unwind_to_barrier();
                        false
                    }
                },
                Inst::GroupRef { group, ignore } => {
                    let (a, b) = (self.slots[2 * group], self.slots[2 * group + 1]);
                    if a == UNSET || b == UNSET || b < a {
                        false
                    } else {
                        let len = b - a;
                        let ok = pos + len <= end
                            && (0..len).all(|i| match ignore {
                                None => s[a + i] == s[pos + i],
                                Some(u) => same_ignoring_case(s[pos + i], s[a + i], u),
                            });
                        pos += len;
                        pc += 1;
                        ok
                    }
                }
                Inst::GroupExists { group, no } => {
                    let (a, b) = (self.slots[2 * group], self.slots[2 * group + 1]);
                    pc = if a != UNSET && b != UNSET { pc + 1 } else { no };
                    true
                }
                Inst::Fail => false,
                Inst::Match => {
                    if !(mode == Mode::Full && pos != end || must_advance && pos == start) {
                        return Ok(Some(pos));
                    }
                    // The match is refused: backtrack for another.
                    false
                }
            };
            if ok {
                continue;
            }
            match self.backtrack() {
                Some((to, at)) => {
                    pc = to;
                    pos = at;
                }
                None => return Ok(None),
            }
        }
    }

    /// Where a greedy repeat that reached `p` tries its tail (at `pc`) first: when the
    /// tail starts with a literal (after group starts and ends, which consume nothing), the
    /// last position from `p` down to `min_pos` holding it, or `min_pos`; as sre gives back
    /// to the next literal (`SRE(match)`'s REPEAT_ONE), but past the group marks too.
    /// Positions skipped would fail at the literal anyway.
    fn give_back_to_literal(&self, pc: usize, mut p: usize, min_pos: usize) -> usize {
        let tail = self.prog.insts.get(pc..).unwrap_or_default();
        if let Some(Inst::One(Unit::Lit(next))) = tail.iter().find(|i| !matches!(i, Inst::Save(_)))
        {
            while p > min_pos && self.s.get(p) != Some(next) {
                p -= 1;
            }
        }
        p
    }

    fn save_counter(&mut self, r: usize) {
        self.stack.push(Frame::Counter {
            r,
            count: self.counts[r],
            last: self.lasts[r],
        });
    }

    fn at(&self, anchor: Anchor, pos: usize) -> bool {
        let s = self.s;
        let end = s.len();
        let nl = '\n' as u32;
        match anchor {
            Anchor::Beginning | Anchor::BeginningString => pos == 0,
            Anchor::BeginningLine => pos == 0 || s[pos - 1] == nl,
            Anchor::End => pos == end || (pos + 1 == end && s[pos] == nl),
            Anchor::EndLine => pos == end || s[pos] == nl,
            Anchor::EndString => pos == end,
            Anchor::Boundary(u) | Anchor::NonBoundary(u) => {
                if end == 0 {
                    return false;
                }
                let before = pos > 0 && is_word(s[pos - 1], u);
                let after = pos < end && is_word(s[pos], u);
                (before != after) == matches!(anchor, Anchor::Boundary(_))
            }
        }
    }

    /// Pops to the last choice point, undoing captures and counters on the way; None when
    /// there is none left.
    fn backtrack(&mut self) -> Option<(usize, usize)> {
        while let Some(frame) = self.stack.pop() {
            match frame {
                Frame::Alt { pc, pos } => return Some((pc, pos)),
                Frame::Slot { slot, old } => self.slots[slot] = old,
                Frame::LastIndex(old) => self.lastindex = old,
                Frame::Counter { r, count, last } => {
                    self.counts[r] = count;
                    self.lasts[r] = last;
                }
                Frame::Greedy { pc, min_pos, pos } => {
                    let p = self.give_back_to_literal(pc, pos - 1, min_pos);
                    if p > min_pos {
                        self.stack.push(Frame::Greedy {
                            pc,
                            min_pos,
                            pos: p,
                        });
                    }
                    return Some((pc, p));
                }
                Frame::Lazy {
                    pc,
                    unit,
                    pos,
                    max_pos,
                } => {
                    if unit.matches(self.s[pos], &self.prog.sets) {
                        if pos + 1 < max_pos {
                            self.stack.push(Frame::Lazy {
                                pc,
                                unit,
                                pos: pos + 1,
                                max_pos,
                            });
                        }
                        return Some((pc, pos + 1));
                    }
                }
                Frame::Barrier { look: None }
                | Frame::Barrier {
                    look: Some((_, false, _)),
                } => {}
                Frame::Barrier {
                    look: Some((pos, true, after)),
                } => return Some((after, pos)),
            }
        }
        None
    }

    /// The end of an atomic group or a look: drops the choice points made since its
    /// barrier (keeping what undoes captures and counters) and the barrier; returns the
    /// barrier's look.
    fn cut(&mut self) -> Option<(usize, bool, usize)> {
        let at = self
            .stack
            .iter()
            .rposition(|f| matches!(f, Frame::Barrier { .. }))?;
        let look = match self.stack[at] {
            Frame::Barrier { look } => look,
            _ => None,
        };
        if let Some((_, true, _)) = look {
            return look;
        }
        let mut kept = at;
        for i in at + 1..self.stack.len() {
            if matches!(
                self.stack[i],
                Frame::Slot { .. } | Frame::LastIndex(_) | Frame::Counter { .. }
            ) {
                self.stack.swap(kept, i);
                kept += 1;
            }
        }
        self.stack.truncate(kept);
        look
    }

    /// Undoes everything down to the last barrier and drops it (a negative look matched).
    fn unwind_to_barrier(&mut self) {
        while let Some(frame) = self.stack.pop() {
            match frame {
                Frame::Slot { slot, old } => self.slots[slot] = old,
                Frame::LastIndex(old) => self.lastindex = old,
                Frame::Counter { r, count, last } => {
                    self.counts[r] = count;
                    self.lasts[r] = last;
                }
                Frame::Barrier { .. } => return,
                _ => {}
            }
        }
    }
}

fn charge_many<E>(
    budget: &mut u64,
    n: u64,
    charge: &mut dyn FnMut(u64) -> Result<(), E>,
) -> Result<(), E> {
    if n >= *budget {
        charge(STEP_CHUNK + n)?;
        *budget = STEP_CHUNK;
    } else {
        *budget -= n;
    }
    Ok(())
}
