//! The compiler: a parsed pattern in, a [`Program`] out — instructions for the backtracking
//! matcher, with the flags resolved into each instruction (case-insensitive literals and
//! sets, `.` with DOTALL, the MULTILINE anchors, Unicode or ASCII `\w \d \s \b`). Mirrors
//! `Lib/re/_compiler.py`, including its one error: "look-behind requires fixed-width
//! pattern".

use super::parser::{At, Category, MAXREPEAT, Node, Parsed, RepeatKind, SetItem};
use super::{Error, Flags, flag};
use crate::common::chars::{decimal_digit_value, is_python_whitespace};

/// A compiled pattern.
pub struct Program {
    pub insts: Vec<Inst>,
    pub sets: Vec<CharSet>,
    /// Groups, counting group 0.
    pub groups: usize,
    /// Counted repeats (registers the matcher keeps).
    pub repeats: usize,
    /// The flags, with the global inline ones and UNICODE (for str patterns) added.
    pub flags: Flags,
    pub names: Vec<(String, usize)>,
    /// The test every match's first character passes, when the program starts with one
    /// (after any group starts): the search skips the positions that fail it.
    pub first: Option<Unit>,
}

/// A test of one character.
#[derive(Clone, Copy, Debug)]
pub enum Unit {
    Lit(u32),
    NotLit(u32),
    /// Case-insensitive (the flag's Unicode or ASCII meaning).
    LitIgnore(u32, bool),
    NotLitIgnore(u32, bool),
    /// `.` without DOTALL.
    Any,
    AnyAll,
    Set(usize),
}

/// The anchors, with the flags applied.
#[derive(Clone, Copy, Debug)]
pub enum Anchor {
    Beginning,
    BeginningLine,
    BeginningString,
    /// `\b`, `\B`, Unicode (true) or ASCII.
    Boundary(bool),
    NonBoundary(bool),
    End,
    EndLine,
    EndString,
}

/// A character set, ready to test.
pub struct CharSet {
    pub negate: bool,
    pub items: Vec<SetItem>,
    /// Case-insensitive: also true when the character's other case is in the set.
    pub ignore: bool,
    pub unicode: bool,
    /// Bit `c` says whether ASCII character `c` matches, worked out once by the general
    /// test ([`CharSet::matches_slowly`]): most subjects are ASCII, and `\w+` over one
    /// tests every character it passes.
    ascii: u128,
}

#[derive(Clone, Copy, Debug)]
pub enum Inst {
    One(Unit),
    At(Anchor),
    /// Try `prefer`; on failure come back and try `other`.
    Split {
        prefer: usize,
        other: usize,
    },
    Jmp(usize),
    /// Record the position in capture slot N (group N/2's start or end).
    Save(usize),
    /// A repeat of one character test, then on to the next instruction.
    RepeatOne {
        unit: Unit,
        min: u64,
        max: u64,
        kind: RepeatKind,
    },
    /// Starts counted repeat R.
    RepeatInit(usize),
    /// Decides whether counted repeat R goes round again or leaves to `exit`.
    RepeatLoop {
        r: usize,
        min: u64,
        max: u64,
        lazy: bool,
        exit: usize,
    },
    /// Starts one more round of counted repeat R.
    RepeatBody(usize),
    /// Atomic group: what backtracking may come back into ends at `AtomicEnd`.
    AtomicStart,
    AtomicEnd,
    /// A look-ahead (`behind` None) or look-behind of that width; on for `end` when it
    /// succeeds without matching (a negative look).
    LookStart {
        behind: Option<usize>,
        negate: bool,
        end: usize,
    },
    LookEnd,
    GroupRef {
        group: usize,
        ignore: Option<bool>,
    },
    /// `(?(g)yes|no)`: on to `no` when group g did not match.
    GroupExists {
        group: usize,
        no: usize,
    },
    Fail,
    Match,
}

/// `_compiler.compile`: the program of a parsed pattern.
pub fn compile(parsed: &Parsed) -> Result<Program, Error> {
    let mut c = Compiler {
        insts: Vec::new(),
        sets: Vec::new(),
        repeats: 0,
        widths: &parsed.widths,
    };
    c.nodes(&parsed.nodes, parsed.flags)?;
    c.insts.push(Inst::Match);
    let first = match c.insts.iter().find(|inst| !matches!(inst, Inst::Save(_))) {
        Some(Inst::One(unit)) => Some(*unit),
        Some(Inst::RepeatOne { unit, min, .. }) if *min > 0 => Some(*unit),
        _ => None,
    };
    Ok(Program {
        insts: c.insts,
        sets: c.sets,
        groups: parsed.groups,
        repeats: c.repeats,
        flags: parsed.flags,
        names: parsed.names.clone(),
        first,
    })
}

struct Compiler<'a> {
    insts: Vec<Inst>,
    sets: Vec<CharSet>,
    repeats: usize,
    widths: &'a [(u64, u64)],
}

const TYPE_FLAGS: Flags = flag::ASCII | flag::LOCALE | flag::UNICODE;

impl Compiler<'_> {
    fn here(&self) -> usize {
        self.insts.len()
    }

    fn unit(&mut self, node: &Node, flags: Flags) -> Option<Unit> {
        let ignore = flags & flag::IGNORECASE != 0;
        let unicode = flags & flag::UNICODE != 0;
        Some(match node {
            Node::Literal(c) if ignore && is_cased(*c, unicode) => Unit::LitIgnore(*c, unicode),
            Node::NotLiteral(c) if ignore && is_cased(*c, unicode) => {
                Unit::NotLitIgnore(*c, unicode)
            }
            Node::Literal(c) => Unit::Lit(*c),
            Node::NotLiteral(c) => Unit::NotLit(*c),
            Node::Any if flags & flag::DOTALL != 0 => Unit::AnyAll,
            Node::Any => Unit::Any,
            Node::In(negate, items) => {
                self.sets
                    .push(CharSet::new(*negate, items.clone(), ignore, unicode));
                Unit::Set(self.sets.len() - 1)
            }
            _ => return None,
        })
    }

    fn nodes(&mut self, nodes: &[Node], flags: Flags) -> Result<(), Error> {
        for node in nodes {
            self.node(node, flags)?;
        }
        Ok(())
    }

    fn width(&self, nodes: &[Node]) -> (u64, u64) {
        super::parser::width(nodes, &|g| self.widths.get(g).copied().unwrap_or((0, 0)))
    }

    fn node(&mut self, node: &Node, flags: Flags) -> Result<(), Error> {
        if let Some(unit) = self.unit(node, flags) {
            self.insts.push(Inst::One(unit));
            return Ok(());
        }
        let multiline = flags & flag::MULTILINE != 0;
        let unicode = flags & flag::UNICODE != 0;
        match node {
            Node::At(at) => self.insts.push(Inst::At(match at {
                At::Beginning if multiline => Anchor::BeginningLine,
                At::Beginning => Anchor::Beginning,
                At::BeginningString => Anchor::BeginningString,
                At::Boundary => Anchor::Boundary(unicode),
                At::NonBoundary => Anchor::NonBoundary(unicode),
                At::End if multiline => Anchor::EndLine,
                At::End => Anchor::End,
                At::EndString => Anchor::EndString,
            })),
            Node::Branch(items) => {
                let mut jumps = Vec::new();
                for (i, item) in items.iter().enumerate() {
                    if i + 1 < items.len() {
                        let split = self.here();
                        self.insts.push(Inst::Split {
                            prefer: split + 1,
                            other: 0,
                        });
                        self.nodes(item, flags)?;
                        jumps.push(self.here());
                        self.insts.push(Inst::Jmp(0));
                        let next = self.here();
                        self.insts[split] = Inst::Split {
                            prefer: split + 1,
                            other: next,
                        };
                    } else {
                        self.nodes(item, flags)?;
                    }
                }
                let end = self.here();
                for j in jumps {
                    self.insts[j] = Inst::Jmp(end);
                }
            }
            Node::Repeat {
                min,
                max,
                kind,
                body,
            } => self.repeat(*min, *max, *kind, body, flags)?,
            Node::Group {
                group,
                add,
                del,
                body,
            } => {
                let mut inner = flags;
                if add & TYPE_FLAGS != 0 {
                    inner &= !TYPE_FLAGS;
                }
                inner = (inner | add) & !del;
                if let Some(g) = group {
                    self.insts.push(Inst::Save(2 * g));
                }
                self.nodes(body, inner)?;
                if let Some(g) = group {
                    self.insts.push(Inst::Save(2 * g + 1));
                }
            }
            Node::Atomic(body) => {
                self.insts.push(Inst::AtomicStart);
                self.nodes(body, flags)?;
                self.insts.push(Inst::AtomicEnd);
            }
            Node::Assert {
                behind,
                negate,
                body,
            } => {
                let behind = if *behind {
                    let (lo, hi) = self.width(body);
                    if lo > u32::MAX as u64 {
                        return Err(Error::pattern("looks too much behind"));
                    }
                    if lo != hi {
                        return Err(Error::pattern("look-behind requires fixed-width pattern"));
                    }
                    Some(lo as usize)
                } else {
                    None
                };
                let start = self.here();
                self.insts.push(Inst::Fail);
                self.nodes(body, flags)?;
                self.insts.push(Inst::LookEnd);
                self.insts[start] = Inst::LookStart {
                    behind,
                    negate: *negate,
                    end: self.here(),
                };
            }
            Node::GroupRef(g) => self.insts.push(Inst::GroupRef {
                group: *g,
                ignore: (flags & flag::IGNORECASE != 0).then_some(unicode),
            }),
            Node::GroupRefExists { group, yes, no } => {
                let test = self.here();
                self.insts.push(Inst::Fail);
                self.nodes(yes, flags)?;
                let no_start = match no {
                    Some(no) => {
                        let jump = self.here();
                        self.insts.push(Inst::Jmp(0));
                        let no_start = self.here();
                        self.nodes(no, flags)?;
                        self.insts[jump] = Inst::Jmp(self.here());
                        no_start
                    }
                    None => self.here(),
                };
                self.insts[test] = Inst::GroupExists {
                    group: *group,
                    no: no_start,
                };
            }
            Node::Failure => self.insts.push(Inst::Fail),
            Node::Literal(_) | Node::NotLiteral(_) | Node::Any | Node::In(..) => {}
        }
        Ok(())
    }

    fn repeat(
        &mut self,
        min: u64,
        max: u64,
        kind: RepeatKind,
        body: &[Node],
        flags: Flags,
    ) -> Result<(), Error> {
        if let [single] = body
            && let Some(unit) = self.unit(single, flags)
        {
            self.insts.push(Inst::RepeatOne {
                unit,
                min,
                max,
                kind,
            });
            return Ok(());
        }
        if kind == RepeatKind::Possessive {
            self.insts.push(Inst::AtomicStart);
            self.repeat(min, max, RepeatKind::Greedy, body, flags)?;
            self.insts.push(Inst::AtomicEnd);
            return Ok(());
        }
        let lazy = kind == RepeatKind::Lazy;
        let never_empty = self.width(body).0 > 0;
        if max == MAXREPEAT && min == 0 && never_empty {
            // L: split(body, E); body; jmp L; E:
            let top = self.here();
            self.insts.push(Inst::Fail);
            self.nodes(body, flags)?;
            self.insts.push(Inst::Jmp(top));
            let exit = self.here();
            self.insts[top] = split(lazy, top + 1, exit);
            return Ok(());
        }
        if max == MAXREPEAT && min == 1 && never_empty {
            // L: body; split(L, E); E:
            let top = self.here();
            self.nodes(body, flags)?;
            let here = self.here();
            self.insts.push(split(lazy, top, here + 1));
            return Ok(());
        }
        let r = self.repeats;
        self.repeats += 1;
        self.insts.push(Inst::RepeatInit(r));
        let top = self.here();
        self.insts.push(Inst::Fail);
        self.insts.push(Inst::RepeatBody(r));
        self.nodes(body, flags)?;
        self.insts.push(Inst::Jmp(top));
        self.insts[top] = Inst::RepeatLoop {
            r,
            min,
            max,
            lazy,
            exit: self.here(),
        };
        Ok(())
    }
}

/// Greedy: try `body` first; lazy: try `exit` first.
fn split(lazy: bool, body: usize, exit: usize) -> Inst {
    if lazy {
        Inst::Split {
            prefer: exit,
            other: body,
        }
    } else {
        Inst::Split {
            prefer: body,
            other: exit,
        }
    }
}

// ---- characters ---------------------------------------------------------------------------

/// The simple lower case of `c` (one code point), ASCII-only when not `unicode`.
pub fn lower(c: u32, unicode: bool) -> u32 {
    simple_case(c, unicode, false)
}

/// The simple upper case of `c`.
pub fn upper(c: u32, unicode: bool) -> u32 {
    simple_case(c, unicode, true)
}

fn simple_case(c: u32, unicode: bool, to_upper: bool) -> u32 {
    if c < 128 || !unicode {
        let b = c as u8;
        return match (to_upper, c < 128) {
            (false, true) => b.to_ascii_lowercase() as u32,
            (true, true) => b.to_ascii_uppercase() as u32,
            _ => c,
        };
    }
    let Some(ch) = char::from_u32(c) else {
        return c;
    };
    let mut mapped: Box<dyn Iterator<Item = char>> = if to_upper {
        Box::new(ch.to_uppercase())
    } else {
        Box::new(ch.to_lowercase())
    };
    match (mapped.next(), mapped.next()) {
        (Some(one), None) => one as u32,
        _ => c,
    }
}

fn is_cased(c: u32, unicode: bool) -> bool {
    lower(c, unicode) != c || upper(c, unicode) != c
}

/// `ch` and `p` are equal ignoring case (sre's `char_loc_ignore` with the extra cases such
/// as `ſ`/`s` and the Kelvin sign, which share an upper or a lower case).
#[inline(never)]
pub fn same_ignoring_case(ch: u32, p: u32, unicode: bool) -> bool {
    ch == p || lower(ch, unicode) == lower(p, unicode) || upper(ch, unicode) == upper(p, unicode)
}

pub fn is_word(c: u32, unicode: bool) -> bool {
    if c < 128 || !unicode {
        return c < 128 && (c as u8 == b'_' || (c as u8).is_ascii_alphanumeric());
    }
    char::from_u32(c).is_some_and(crate::common::chars::is_alnum)
}

fn is_digit(c: u32, unicode: bool) -> bool {
    if c < 128 || !unicode {
        return c < 128 && (c as u8).is_ascii_digit();
    }
    char::from_u32(c).is_some_and(|ch| decimal_digit_value(ch).is_some())
}

fn is_space(c: u32, unicode: bool) -> bool {
    if c < 128 || !unicode {
        return matches!(c, 9..=13 | 32);
    }
    char::from_u32(c).is_some_and(is_python_whitespace)
}

impl CharSet {
    fn new(negate: bool, items: Vec<SetItem>, ignore: bool, unicode: bool) -> CharSet {
        let mut set = CharSet {
            negate,
            items,
            ignore,
            unicode,
            ascii: 0,
        };
        set.ascii = (0..128u32)
            .filter(|&c| set.matches_slowly(c))
            .fold(0, |bits, c| bits | 1 << c);
        set
    }

    fn contains(&self, c: u32) -> bool {
        let u = self.unicode;
        self.items.iter().any(|item| match *item {
            SetItem::Literal(l) => l == c,
            SetItem::Range(lo, hi) => (lo..=hi).contains(&c),
            SetItem::Category(cat) => match cat {
                Category::Digit => is_digit(c, u),
                Category::NotDigit => !is_digit(c, u),
                Category::Space => is_space(c, u),
                Category::NotSpace => !is_space(c, u),
                Category::Word => is_word(c, u),
                Category::NotWord => !is_word(c, u),
            },
        })
    }

    #[inline]
    pub fn matches(&self, c: u32) -> bool {
        match c {
            0..128 => self.ascii >> c & 1 != 0,
            _ => self.matches_slowly(c),
        }
    }

    #[inline(never)]
    fn matches_slowly(&self, c: u32) -> bool {
        let found = self.contains(c)
            || (self.ignore
                && (self.contains(lower(c, self.unicode))
                    || self.contains(upper(c, self.unicode))));
        found != self.negate
    }
}

impl Unit {
    /// Inline in the matcher's loops: a repeat's test of each character is then the one
    /// arm it needs (an ASCII set's bit, a compare), the rare tests being calls.
    #[inline(always)]
    pub fn matches(self, c: u32, sets: &[CharSet]) -> bool {
        match self {
            Unit::Lit(l) => c == l,
            Unit::NotLit(l) => c != l,
            Unit::LitIgnore(l, u) => same_ignoring_case(c, l, u),
            Unit::NotLitIgnore(l, u) => !same_ignoring_case(c, l, u),
            Unit::Any => c != '\n' as u32,
            Unit::AnyAll => true,
            Unit::Set(i) => sets[i].matches(c),
        }
    }
}
