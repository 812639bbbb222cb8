//! The pattern parser: a pattern's code points (a `bytes` pattern decoded as Latin-1) in,
//! the tree of [`Node`]s out, with CPython's errors at CPython's positions. A port of
//! `Lib/re/_parser.py` (its tokenizer, `_escape`, `_class_escape`, `_parse_sub`, `_parse`,
//! `_parse_flags`), minus the optimisations that change nothing a program can see.

use super::{Error, Flags, flag};

/// `_sre.MAXREPEAT`: a repeat count at or above it is "too large"; as a maximum it means
/// "no limit".
pub const MAXREPEAT: u64 = 4_294_967_295;
/// `_sre.MAXGROUPS`.
pub const MAXGROUPS: usize = 1_073_741_823;
/// Nesting deeper than this is a RecursionError, as CPython's recursive parser gives.
const MAX_NESTING: usize = 300;

/// A piece of a pattern (`_parser.SubPattern`'s `(op, av)` items).
#[derive(Debug, Clone)]
pub enum Node {
    Literal(u32),
    NotLiteral(u32),
    Any,
    /// A character set: negated or not, its items.
    In(bool, Vec<SetItem>),
    At(At),
    Branch(Vec<Vec<Node>>),
    Repeat {
        min: u64,
        max: u64,
        kind: RepeatKind,
        body: Vec<Node>,
    },
    /// A group: its number if it captures, the flags it turns on and off.
    Group {
        group: Option<usize>,
        add: Flags,
        del: Flags,
        body: Vec<Node>,
    },
    Atomic(Vec<Node>),
    Assert {
        behind: bool,
        negate: bool,
        body: Vec<Node>,
    },
    GroupRef(usize),
    GroupRefExists {
        group: usize,
        yes: Vec<Node>,
        no: Option<Vec<Node>>,
    },
    /// `(?!)`: never matches.
    Failure,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RepeatKind {
    Greedy,
    Lazy,
    Possessive,
}

/// An item of a character set.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SetItem {
    Literal(u32),
    Range(u32, u32),
    Category(Category),
}

/// `\d \D \s \S \w \W`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Category {
    Digit,
    NotDigit,
    Space,
    NotSpace,
    Word,
    NotWord,
}

/// The zero-width anchors.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum At {
    Beginning,
    BeginningString,
    Boundary,
    NonBoundary,
    End,
    EndString,
}

/// What `parse` hands the compiler.
pub struct Parsed {
    pub nodes: Vec<Node>,
    /// The pattern's flags with the global inline ones (`(?i)` at the start) added.
    pub flags: Flags,
    /// Groups, counting group 0.
    pub groups: usize,
    /// Named groups in the order they were defined.
    pub names: Vec<(String, usize)>,
    /// The width of each group (`getwidth` of its contents), for look-behind checks.
    pub widths: Vec<(u64, u64)>,
}

/// One token: a character, or a backslash and the character after it.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Tok {
    c: u32,
    escaped: bool,
}

impl Tok {
    fn len(self) -> usize {
        1 + self.escaped as usize
    }

    fn is(self, c: char) -> bool {
        !self.escaped && self.c == c as u32
    }

    fn text(self) -> String {
        let c = char::from_u32(self.c).unwrap_or('\u{fffd}');
        if self.escaped {
            format!("\\{c}")
        } else {
            c.to_string()
        }
    }
}

/// `_parser.Tokenizer`.
struct Source<'a> {
    text: &'a [u32],
    is_str: bool,
    index: usize,
    next: Option<Tok>,
}

fn in_set(t: Option<Tok>, set: &str) -> bool {
    t.is_some_and(|t| !t.escaped && char::from_u32(t.c).is_some_and(|c| set.contains(c)))
}

const DIGITS: &str = "0123456789";
const OCTDIGITS: &str = "01234567";
const HEXDIGITS: &str = "0123456789abcdefABCDEF";

impl<'a> Source<'a> {
    fn new(text: &'a [u32], is_str: bool) -> Result<Source<'a>, Error> {
        let mut source = Source {
            text,
            is_str,
            index: 0,
            next: None,
        };
        source.advance()?;
        Ok(source)
    }

    fn advance(&mut self) -> Result<(), Error> {
        let Some(&c) = self.text.get(self.index) else {
            self.next = None;
            return Ok(());
        };
        if c == '\\' as u32 {
            let Some(&e) = self.text.get(self.index + 1) else {
                return Err(Error::at(
                    "bad escape (end of pattern)",
                    self.text.len() - 1,
                ));
            };
            self.index += 2;
            self.next = Some(Tok {
                c: e,
                escaped: true,
            });
        } else {
            self.index += 1;
            self.next = Some(Tok { c, escaped: false });
        }
        Ok(())
    }

    fn matches(&mut self, c: char) -> Result<bool, Error> {
        if self.next.is_some_and(|t| t.is(c)) {
            self.advance()?;
            return Ok(true);
        }
        Ok(false)
    }

    fn get(&mut self) -> Result<Option<Tok>, Error> {
        let this = self.next;
        self.advance()?;
        Ok(this)
    }

    /// Up to `n` plain characters from `set`.
    fn get_while(&mut self, n: usize, set: &str) -> Result<String, Error> {
        let mut out = String::new();
        for _ in 0..n {
            if !in_set(self.next, set) {
                break;
            }
            out.push_str(&self.get()?.map(Tok::text).unwrap_or_default());
        }
        Ok(out)
    }

    fn get_until(&mut self, terminator: char, name: &str) -> Result<String, Error> {
        let mut out = String::new();
        loop {
            let c = self.get()?;
            match c {
                None if out.is_empty() => return Err(self.error(format!("missing {name}"), 0)),
                None => {
                    let len = out.chars().count();
                    return Err(self.error(format!("missing {terminator}, unterminated name"), len));
                }
                Some(t) if t.is(terminator) => {
                    if out.is_empty() {
                        return Err(self.error(format!("missing {name}"), 1));
                    }
                    return Ok(out);
                }
                Some(t) => out.push_str(&t.text()),
            }
        }
    }

    fn tell(&self) -> usize {
        self.index - self.next.map_or(0, Tok::len)
    }

    fn seek(&mut self, index: usize) -> Result<(), Error> {
        self.index = index;
        self.advance()
    }

    fn error(&self, msg: impl Into<String>, offset: usize) -> Error {
        let mut msg = msg.into();
        if !self.is_str {
            msg = ascii_backslashreplace(&msg);
        }
        Error::at(msg, self.tell() - offset)
    }

    fn check_group_name(&self, name: &str, offset: usize) -> Result<(), Error> {
        let len = name.chars().count();
        if !self.is_str && !name.is_ascii() {
            let msg = format!("bad character in group name {}", py_ascii(name));
            return Err(self.error(msg, len + offset));
        }
        if !crate::common::chars::is_identifier(name) {
            let msg = format!(
                "bad character in group name {}",
                crate::common::chars::str_repr(name)
            );
            return Err(self.error(msg, len + offset));
        }
        Ok(())
    }
}

fn ascii_backslashreplace(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars() {
        match c as u32 {
            0..=0x7f => out.push(c),
            n @ 0x80..=0xff => out.push_str(&format!("\\x{n:02x}")),
            n @ 0x100..=0xffff => out.push_str(&format!("\\u{n:04x}")),
            n => out.push_str(&format!("\\U{n:08x}")),
        }
    }
    out
}

fn py_ascii(s: &str) -> String {
    ascii_backslashreplace(&crate::common::chars::str_repr(s))
}

fn is_ascii_decimal(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())
}

/// Parser state (`_parser.State`).
struct State {
    flags: Flags,
    names: Vec<(String, usize)>,
    /// The width of each closed group; None while open.
    widths: Vec<Option<(u64, u64)>>,
    lookbehind_groups: Option<usize>,
    /// Group references in conditionals, with where they were made, checked at the end.
    groupref_pos: Vec<(usize, usize)>,
}

impl State {
    fn groups(&self) -> usize {
        self.widths.len()
    }

    fn group_named(&self, name: &str) -> Option<usize> {
        self.names.iter().find(|(n, _)| n == name).map(|&(_, g)| g)
    }

    fn open_group(&mut self, name: Option<&str>) -> Result<usize, String> {
        let gid = self.groups();
        self.widths.push(None);
        if self.groups() > MAXGROUPS {
            return Err("too many groups".into());
        }
        if let Some(name) = name {
            if let Some(old) = self.group_named(name) {
                return Err(format!(
                    "redefinition of group name {} as group {gid}; was group {old}",
                    crate::common::chars::str_repr(name)
                ));
            }
            self.names.push((name.to_string(), gid));
        }
        Ok(gid)
    }

    fn check_group(&self, gid: usize) -> bool {
        gid < self.groups() && self.widths[gid].is_some()
    }

    fn check_lookbehind_group(&self, gid: usize, source: &Source) -> Result<(), Error> {
        if let Some(lb) = self.lookbehind_groups {
            if !self.check_group(gid) {
                return Err(source.error("cannot refer to an open group", 0));
            }
            if gid >= lb {
                return Err(source.error(
                    "cannot refer to group defined in the same lookbehind subpattern",
                    0,
                ));
            }
        }
        Ok(())
    }
}

/// The smallest and largest number of characters `nodes` can match (`getwidth`), with
/// `u64::MAX` for "no limit".
pub fn width(nodes: &[Node], group_widths: &dyn Fn(usize) -> (u64, u64)) -> (u64, u64) {
    let (mut lo, mut hi) = (0u64, 0u64);
    for node in nodes {
        let (i, j) = match node {
            Node::Branch(items) => items.iter().fold((u64::MAX, 0), |(i, j), item| {
                let (l, h) = width(item, group_widths);
                (i.min(l), j.max(h))
            }),
            Node::Atomic(body) | Node::Group { body, .. } => width(body, group_widths),
            Node::Repeat { min, max, body, .. } => {
                let (i, j) = width(body, group_widths);
                let hi = if *max == MAXREPEAT && j > 0 {
                    u64::MAX
                } else {
                    j.saturating_mul(*max)
                };
                (i.saturating_mul(*min), hi)
            }
            Node::Literal(_) | Node::NotLiteral(_) | Node::Any | Node::In(..) => (1, 1),
            Node::GroupRef(g) => group_widths(*g),
            Node::GroupRefExists { yes, no, .. } => {
                let (i, j) = width(yes, group_widths);
                match no {
                    Some(no) => {
                        let (l, h) = width(no, group_widths);
                        (i.min(l), j.max(h))
                    }
                    None => (0, j),
                }
            }
            Node::Failure => break,
            Node::At(_) | Node::Assert { .. } => (0, 0),
        };
        lo = lo.saturating_add(i);
        hi = hi.saturating_add(j);
    }
    (lo, hi)
}

/// `_parser.parse`: the tree of `pattern`, or CPython's error.
pub fn parse(pattern: &[u32], is_str: bool, flags: Flags) -> Result<Parsed, Error> {
    let mut source = Source::new(pattern, is_str)?;
    let mut state = State {
        flags,
        names: Vec::new(),
        widths: vec![None],
        lookbehind_groups: None,
        groupref_pos: Vec::new(),
    };
    let verbose = flags & flag::VERBOSE != 0;
    let nodes = parse_sub(&mut source, &mut state, verbose, 0)?;
    state.flags = fix_flags(is_str, state.flags)?;
    if source.next.is_some() {
        return Err(source.error("unbalanced parenthesis", 0));
    }
    for &(g, pos) in &state.groupref_pos {
        if g >= state.groups() {
            return Err(Error::at(format!("invalid group reference {g}"), pos));
        }
    }
    Ok(Parsed {
        nodes,
        flags: state.flags,
        groups: state.groups(),
        widths: state.widths.iter().map(|w| w.unwrap_or((0, 0))).collect(),
        names: state.names,
    })
}

/// `_parser.fix_flags`: checks the flags against the pattern's type; a str pattern gets
/// UNICODE unless ASCII is asked for.
pub fn fix_flags(is_str: bool, mut flags: Flags) -> Result<Flags, Error> {
    if is_str {
        if flags & flag::LOCALE != 0 {
            return Err(Error::value("cannot use LOCALE flag with a str pattern"));
        }
        if flags & flag::ASCII == 0 {
            flags |= flag::UNICODE;
        } else if flags & flag::UNICODE != 0 {
            return Err(Error::value("ASCII and UNICODE flags are incompatible"));
        }
    } else {
        if flags & flag::UNICODE != 0 {
            return Err(Error::value("cannot use UNICODE flag with a bytes pattern"));
        }
        if flags & flag::LOCALE != 0 && flags & flag::ASCII != 0 {
            return Err(Error::value("ASCII and LOCALE flags are incompatible"));
        }
    }
    Ok(flags)
}

fn parse_sub(
    source: &mut Source,
    state: &mut State,
    mut verbose: bool,
    nested: usize,
) -> Result<Vec<Node>, Error> {
    if nested > MAX_NESTING {
        return Err(Error::recursion());
    }
    let mut items = Vec::new();
    loop {
        let first = nested == 0 && items.is_empty();
        items.push(parse_seq(source, state, verbose, nested + 1, first)?);
        if !source.matches('|')? {
            break;
        }
        if nested == 0 {
            verbose = state.flags & flag::VERBOSE != 0;
        }
    }
    if items.len() == 1 {
        return Ok(items.pop().unwrap_or_default());
    }
    Ok(vec![Node::Branch(items)])
}

/// `_class_escape` and `_escape`: what an escape stands for (in a set or outside one).
fn escape(source: &mut Source, tok: Tok, state: Option<&State>) -> Result<Escaped, Error> {
    let c = char::from_u32(tok.c).unwrap_or('\u{fffd}');
    let in_class = state.is_none();
    let literal = |v: char| Ok(Escaped::Node(Node::Literal(v as u32)));
    match c {
        'a' => return literal('\x07'),
        'f' => return literal('\x0c'),
        'n' => return literal('\n'),
        'r' => return literal('\r'),
        't' => return literal('\t'),
        'v' => return literal('\x0b'),
        '\\' => return literal('\\'),
        'b' if in_class => return literal('\x08'),
        'd' => return Ok(Escaped::Category(Category::Digit)),
        'D' => return Ok(Escaped::Category(Category::NotDigit)),
        's' => return Ok(Escaped::Category(Category::Space)),
        'S' => return Ok(Escaped::Category(Category::NotSpace)),
        'w' => return Ok(Escaped::Category(Category::Word)),
        'W' => return Ok(Escaped::Category(Category::NotWord)),
        'A' if !in_class => return Ok(Escaped::Node(Node::At(At::BeginningString))),
        'b' => return Ok(Escaped::Node(Node::At(At::Boundary))),
        'B' if !in_class => return Ok(Escaped::Node(Node::At(At::NonBoundary))),
        'Z' if !in_class => return Ok(Escaped::Node(Node::At(At::EndString))),
        _ => {}
    }
    let mut text = tok.text();
    let hex = |source: &mut Source, text: &mut String, n: usize| -> Result<u32, Error> {
        text.push_str(&source.get_while(n, HEXDIGITS)?);
        if text.len() != n + 2 {
            return Err(source.error(format!("incomplete escape {text}"), text.len()));
        }
        Ok(u32::from_str_radix(&text[2..], 16).unwrap_or(0))
    };
    match c {
        'x' => return Ok(Escaped::Node(Node::Literal(hex(source, &mut text, 2)?))),
        'u' if source.is_str => {
            return Ok(Escaped::Node(Node::Literal(hex(source, &mut text, 4)?)));
        }
        'U' if source.is_str => {
            let v = hex(source, &mut text, 8)?;
            if char::from_u32(v).is_none() && v > 0x10ffff {
                return Err(source.error(format!("bad escape {text}"), text.len()));
            }
            return Ok(Escaped::Node(Node::Literal(v)));
        }
        // `\N{EM DASH}`: the character of that name, as `unicodedata.lookup` finds it
        // (one character: a named sequence is not one).
        'N' if source.is_str => {
            if !source.matches('{')? {
                return Err(source.error("missing {", 0));
            }
            let name = source.get_until('}', "character name")?;
            return match crate::common::unicode_data::ucd().lookup_char(&name) {
                Some(c) => Ok(Escaped::Node(Node::Literal(c as u32))),
                None => Err(source.error(
                    format!(
                        "undefined character name {}",
                        crate::common::chars::str_repr(&name)
                    ),
                    name.chars().count() + 4,
                )),
            };
        }
        _ => {}
    }
    if in_class {
        if OCTDIGITS.contains(c) {
            text.push_str(&source.get_while(2, OCTDIGITS)?);
            return octal(source, &text);
        }
    } else if c == '0' {
        text.push_str(&source.get_while(2, OCTDIGITS)?);
        return Ok(Escaped::Node(Node::Literal(
            u32::from_str_radix(&text[1..], 8).unwrap_or(0),
        )));
    } else if let (Some(state), true) = (state, c.is_ascii_digit()) {
        if in_set(source.next, DIGITS) {
            let d2 = source.get()?.map_or(0, |t| t.c);
            text.push(char::from_u32(d2).unwrap_or('0'));
            if OCTDIGITS.contains(c)
                && (d2 as u8 as char).is_digit(8)
                && in_set(source.next, OCTDIGITS)
            {
                let d3 = source.get()?.map_or(0, |t| t.c);
                text.push(char::from_u32(d3).unwrap_or('0'));
                return octal(source, &text);
            }
        }
        let group: usize = text[1..].parse().unwrap_or(usize::MAX);
        if group < state.groups() {
            if !state.check_group(group) {
                return Err(source.error("cannot refer to an open group", text.len()));
            }
            state.check_lookbehind_group(group, source)?;
            return Ok(Escaped::Node(Node::GroupRef(group)));
        }
        return Err(source.error(format!("invalid group reference {group}"), text.len() - 1));
    }
    if !c.is_ascii_digit() && !c.is_ascii_alphabetic() {
        return Ok(Escaped::Node(Node::Literal(tok.c)));
    }
    Err(source.error(format!("bad escape {text}"), text.len()))
}

/// The character of an octal escape (`text` is the backslash and its digits).
fn octal(source: &Source, text: &str) -> Result<Escaped, Error> {
    let v = u32::from_str_radix(&text[1..], 8).unwrap_or(0);
    if v > 0o377 {
        return Err(source.error(
            format!("octal escape value {text} outside of range 0-0o377"),
            text.len(),
        ));
    }
    Ok(Escaped::Node(Node::Literal(v)))
}

enum Escaped {
    Node(Node),
    Category(Category),
}

fn parse_seq(
    source: &mut Source,
    state: &mut State,
    mut verbose: bool,
    nested: usize,
    first: bool,
) -> Result<Vec<Node>, Error> {
    let mut sub: Vec<Node> = Vec::new();
    while let Some(this) = source.next {
        if this.is('|') || this.is(')') {
            break;
        }
        source.get()?;
        if verbose && !this.escaped {
            if in_set(Some(this), " \t\n\r\x0b\x0c") {
                continue;
            }
            if this.is('#') {
                loop {
                    match source.get()? {
                        None => break,
                        Some(t) if t.is('\n') => break,
                        _ => {}
                    }
                }
                continue;
            }
        }
        if this.escaped {
            match escape(source, this, Some(state))? {
                Escaped::Node(node) => sub.push(node),
                Escaped::Category(cat) => sub.push(Node::In(false, vec![SetItem::Category(cat)])),
            }
            continue;
        }
        let Some(ch) = char::from_u32(this.c).filter(|c| ".\\[{()*+?^$|".contains(*c)) else {
            sub.push(Node::Literal(this.c));
            continue;
        };
        match ch {
            '[' => sub.push(parse_set(source)?),
            '*' | '+' | '?' | '{' => {
                let here = source.tell();
                let (min, max) = match ch {
                    '?' => (0, 1),
                    '*' => (0, MAXREPEAT),
                    '+' => (1, MAXREPEAT),
                    _ => {
                        if source.next.is_some_and(|t| t.is('}')) {
                            sub.push(Node::Literal('{' as u32));
                            continue;
                        }
                        let lo = source.get_while(usize::MAX, DIGITS)?;
                        let hi = if source.matches(',')? {
                            Some(source.get_while(usize::MAX, DIGITS)?)
                        } else {
                            None
                        };
                        if !source.matches('}')? {
                            sub.push(Node::Literal('{' as u32));
                            source.seek(here)?;
                            continue;
                        }
                        let hi = hi.unwrap_or_else(|| lo.clone());
                        let count = |s: &str| -> Result<u64, Error> {
                            match s.parse::<u64>() {
                                Ok(n) if n < MAXREPEAT => Ok(n),
                                _ => Err(Error::overflow("the repetition number is too large")),
                            }
                        };
                        let min = if lo.is_empty() { 0 } else { count(&lo)? };
                        let max = if hi.is_empty() {
                            MAXREPEAT
                        } else {
                            count(&hi)?
                        };
                        if max < min {
                            return Err(source.error(
                                "min repeat greater than max repeat",
                                source.tell() - here,
                            ));
                        }
                        (min, max)
                    }
                };
                let offset = source.tell() - here + 1;
                let item = match sub.pop() {
                    None | Some(Node::At(_)) => {
                        return Err(source.error("nothing to repeat", offset));
                    }
                    Some(Node::Repeat { .. }) => {
                        return Err(source.error("multiple repeat", offset));
                    }
                    Some(Node::Group {
                        group: None,
                        add: 0,
                        del: 0,
                        body,
                    }) => body,
                    Some(node) => vec![node],
                };
                let kind = if source.matches('?')? {
                    RepeatKind::Lazy
                } else if source.matches('+')? {
                    RepeatKind::Possessive
                } else {
                    RepeatKind::Greedy
                };
                sub.push(Node::Repeat {
                    min,
                    max,
                    kind,
                    body: item,
                });
            }
            '.' => sub.push(Node::Any),
            '(' => {
                if let Some(node) =
                    parse_group(source, state, &mut verbose, nested, first, sub.is_empty())?
                {
                    sub.push(node);
                }
            }
            '^' => sub.push(Node::At(At::Beginning)),
            '$' => sub.push(Node::At(At::End)),
            _ => sub.push(Node::Literal(this.c)),
        }
    }
    // Unpack non-capturing groups without flags.
    let mut out = Vec::with_capacity(sub.len());
    for node in sub {
        match node {
            Node::Group {
                group: None,
                add: 0,
                del: 0,
                body,
            } => out.extend(body),
            node => out.push(node),
        }
    }
    Ok(out)
}

/// After `[`: a character set.
fn parse_set(source: &mut Source) -> Result<Node, Error> {
    let here = source.tell() - 1;
    let mut set: Vec<SetItem> = Vec::new();
    let negate = source.matches('^')?;
    let unterminated =
        |source: &Source| source.error("unterminated character set", source.tell() - here);
    let item = |source: &mut Source, tok: Tok| -> Result<SetItem, Error> {
        if tok.escaped {
            Ok(match escape(source, tok, None)? {
                Escaped::Node(Node::Literal(c)) => SetItem::Literal(c),
                Escaped::Category(cat) => SetItem::Category(cat),
                Escaped::Node(_) => SetItem::Literal(tok.c),
            })
        } else {
            Ok(SetItem::Literal(tok.c))
        }
    };
    loop {
        let Some(this) = source.get()? else {
            return Err(unterminated(source));
        };
        if this.is(']') && !set.is_empty() {
            break;
        }
        let code1 = item(source, this)?;
        if source.matches('-')? {
            let Some(that) = source.get()? else {
                return Err(unterminated(source));
            };
            if that.is(']') {
                set.push(code1);
                set.push(SetItem::Literal('-' as u32));
                break;
            }
            let code2 = item(source, that)?;
            let bad = || format!("bad character range {}-{}", this.text(), that.text());
            let (SetItem::Literal(lo), SetItem::Literal(hi)) = (code1, code2) else {
                return Err(source.error(bad(), this.len() + 1 + that.len()));
            };
            if hi < lo {
                return Err(source.error(bad(), this.len() + 1 + that.len()));
            }
            set.push(SetItem::Range(lo, hi));
        } else {
            set.push(code1);
        }
    }
    Ok(match (set.as_slice(), negate) {
        ([SetItem::Literal(c)], false) => Node::Literal(*c),
        ([SetItem::Literal(c)], true) => Node::NotLiteral(*c),
        _ => Node::In(negate, set),
    })
}

/// After `(`: a group, an extension, or (for comments and global flags) nothing.
fn parse_group(
    source: &mut Source,
    state: &mut State,
    verbose: &mut bool,
    nested: usize,
    first: bool,
    at_start: bool,
) -> Result<Option<Node>, Error> {
    let start = source.tell() - 1;
    let unterminated =
        |source: &Source| source.error("missing ), unterminated subpattern", source.tell() - start);
    let mut capture = true;
    let mut atomic = false;
    let mut name: Option<String> = None;
    let (mut add, mut del) = (0, 0);
    if source.matches('?')? {
        let Some(c) = source.get()? else {
            return Err(source.error("unexpected end of pattern", 0));
        };
        let ch = tok_char(c);
        match ch {
            'P' => {
                if source.matches('<')? {
                    let n = source.get_until('>', "group name")?;
                    source.check_group_name(&n, 1)?;
                    name = Some(n);
                } else if source.matches('=')? {
                    let n = source.get_until(')', "group name")?;
                    source.check_group_name(&n, 1)?;
                    let len = n.chars().count();
                    let Some(gid) = state.group_named(&n) else {
                        let msg =
                            format!("unknown group name {}", crate::common::chars::str_repr(&n));
                        return Err(source.error(msg, len + 1));
                    };
                    if !state.check_group(gid) {
                        return Err(source.error("cannot refer to an open group", len + 1));
                    }
                    state.check_lookbehind_group(gid, source)?;
                    return Ok(Some(Node::GroupRef(gid)));
                } else {
                    let Some(c) = source.get()? else {
                        return Err(source.error("unexpected end of pattern", 0));
                    };
                    return Err(
                        source.error(format!("unknown extension ?P{}", c.text()), c.len() + 2)
                    );
                }
            }
            ':' => capture = false,
            '#' => {
                loop {
                    if source.next.is_none() {
                        return Err(
                            source.error("missing ), unterminated comment", source.tell() - start)
                        );
                    }
                    if source.get()?.is_some_and(|t| t.is(')')) {
                        break;
                    }
                }
                return Ok(None);
            }
            '=' | '!' | '<' => {
                let mut kind = ch;
                let mut behind = false;
                let mut outer_lookbehind = None;
                if ch == '<' {
                    let Some(c) = source.get()? else {
                        return Err(source.error("unexpected end of pattern", 0));
                    };
                    if !(c.is('=') || c.is('!')) {
                        return Err(
                            source.error(format!("unknown extension ?<{}", c.text()), c.len() + 2)
                        );
                    }
                    kind = if c.is('=') { '=' } else { '!' };
                    behind = true;
                    outer_lookbehind = Some(state.lookbehind_groups);
                    if state.lookbehind_groups.is_none() {
                        state.lookbehind_groups = Some(state.groups());
                    }
                }
                let body = parse_sub(source, state, *verbose, nested + 1)?;
                if let Some(None) = outer_lookbehind {
                    state.lookbehind_groups = None;
                }
                if !source.matches(')')? {
                    return Err(unterminated(source));
                }
                return Ok(Some(if kind == '=' {
                    Node::Assert {
                        behind,
                        negate: false,
                        body,
                    }
                } else if !body.is_empty() {
                    Node::Assert {
                        behind,
                        negate: true,
                        body,
                    }
                } else {
                    Node::Failure
                }));
            }
            '(' => {
                let condname = source.get_until(')', "group name")?;
                let len = condname.chars().count();
                let group = if !is_ascii_decimal(&condname) {
                    source.check_group_name(&condname, 1)?;
                    match state.group_named(&condname) {
                        Some(g) => g,
                        None => {
                            let msg = format!(
                                "unknown group name {}",
                                crate::common::chars::str_repr(&condname)
                            );
                            return Err(source.error(msg, len + 1));
                        }
                    }
                } else {
                    let g: usize = condname.parse().unwrap_or(usize::MAX);
                    if g == 0 {
                        return Err(source.error("bad group number", len + 1));
                    }
                    if g >= MAXGROUPS {
                        return Err(
                            source.error(format!("invalid group reference {condname}"), len + 1)
                        );
                    }
                    if !state.groupref_pos.iter().any(|&(x, _)| x == g) {
                        state.groupref_pos.push((g, source.tell() - len - 1));
                    }
                    g
                };
                state.check_lookbehind_group(group, source)?;
                let yes = parse_seq(source, state, *verbose, nested + 1, false)?;
                let no = if source.matches('|')? {
                    let no = parse_seq(source, state, *verbose, nested + 1, false)?;
                    if source.next.is_some_and(|t| t.is('|')) {
                        return Err(
                            source.error("conditional backref with more than two branches", 0)
                        );
                    }
                    Some(no)
                } else {
                    None
                };
                if !source.matches(')')? {
                    return Err(unterminated(source));
                }
                return Ok(Some(Node::GroupRefExists { group, yes, no }));
            }
            '>' => {
                capture = false;
                atomic = true;
            }
            c if "iLmsxau-".contains(c) => match parse_flags(source, state, ch)? {
                None => {
                    if !first || !at_start {
                        return Err(source.error(
                            "global flags not at the start of the expression",
                            source.tell() - start,
                        ));
                    }
                    *verbose = state.flags & flag::VERBOSE != 0;
                    return Ok(None);
                }
                Some((a, d)) => {
                    add = a;
                    del = d;
                    capture = false;
                }
            },
            _ => {
                return Err(source.error(format!("unknown extension ?{}", c.text()), c.len() + 1));
            }
        }
    }
    let group = if capture {
        match state.open_group(name.as_deref()) {
            Ok(g) => Some(g),
            Err(msg) => {
                let len = name.as_deref().map_or(0, |n| n.chars().count());
                return Err(source.error(msg, len + 1));
            }
        }
    } else {
        None
    };
    let sub_verbose = (*verbose || add & flag::VERBOSE != 0) && del & flag::VERBOSE == 0;
    let body = parse_sub(source, state, sub_verbose, nested + 1)?;
    if !source.matches(')')? {
        return Err(unterminated(source));
    }
    if let Some(g) = group {
        let widths = &state.widths;
        let w = width(&body, &|g| {
            widths.get(g).copied().flatten().unwrap_or((0, 0))
        });
        state.widths[g] = Some(w);
    }
    Ok(Some(if atomic {
        Node::Atomic(body)
    } else {
        Node::Group {
            group,
            add,
            del,
            body,
        }
    }))
}

fn flag_of(c: char) -> Option<Flags> {
    Some(match c {
        'i' => flag::IGNORECASE,
        'L' => flag::LOCALE,
        'm' => flag::MULTILINE,
        's' => flag::DOTALL,
        'x' => flag::VERBOSE,
        'a' => flag::ASCII,
        'u' => flag::UNICODE,
        _ => return None,
    })
}

const TYPE_FLAGS: Flags = flag::ASCII | flag::LOCALE | flag::UNICODE;

/// `_parse_flags`: `(?aiLmsux)` (None: global) or `(?flags-flags:...)`.
fn parse_flags(
    source: &mut Source,
    state: &mut State,
    first: char,
) -> Result<Option<(Flags, Flags)>, Error> {
    let (mut add, mut del) = (0, 0);
    let mut ch = first;
    if ch != '-' {
        loop {
            let flag = flag_of(ch).unwrap_or(0);
            if source.is_str && ch == 'L' {
                return Err(source.error(
                    "bad inline flags: cannot use 'L' flag with a str pattern",
                    0,
                ));
            }
            if !source.is_str && ch == 'u' {
                return Err(source.error(
                    "bad inline flags: cannot use 'u' flag with a bytes pattern",
                    0,
                ));
            }
            add |= flag;
            if flag & TYPE_FLAGS != 0 && add & TYPE_FLAGS != flag {
                return Err(source.error(
                    "bad inline flags: flags 'a', 'u' and 'L' are incompatible",
                    0,
                ));
            }
            let t;
            (t, ch) = next_flag_char(source, "missing -, : or )")?;
            if !t.escaped && ")-:".contains(ch) {
                break;
            }
            if t.escaped || flag_of(ch).is_none() {
                return Err(not_a_flag(source, t, ch, "missing -, : or )"));
            }
        }
    }
    if ch == ')' {
        state.flags |= add;
        return Ok(None);
    }
    if add & flag::DEBUG != 0 {
        return Err(source.error("bad inline flags: cannot turn on global flag", 1));
    }
    if ch == '-' {
        let t;
        (t, ch) = next_flag_char(source, "missing flag")?;
        if t.escaped || flag_of(ch).is_none() {
            return Err(not_a_flag(source, t, ch, "missing flag"));
        }
        loop {
            let flag = flag_of(ch).unwrap_or(0);
            if flag & TYPE_FLAGS != 0 {
                return Err(source.error(
                    "bad inline flags: cannot turn off flags 'a', 'u' and 'L'",
                    0,
                ));
            }
            del |= flag;
            let t;
            (t, ch) = next_flag_char(source, "missing :")?;
            if !t.escaped && ch == ':' {
                break;
            }
            if t.escaped || flag_of(ch).is_none() {
                return Err(not_a_flag(source, t, ch, "missing :"));
            }
        }
    }
    if add & del != 0 {
        return Err(source.error("bad inline flags: flag turned on and off", 1));
    }
    Ok(Some((add, del)))
}

/// The next character of a flags group, or `missing` at the end of the pattern.
fn next_flag_char(source: &mut Source, missing: &str) -> Result<(Tok, char), Error> {
    let Some(t) = source.get()? else {
        return Err(source.error(missing, 0));
    };
    Ok((t, tok_char(t)))
}

/// A character where a flag should be: "unknown flag" for a letter, else `missing`.
fn not_a_flag(source: &Source, t: Tok, ch: char, missing: &str) -> Error {
    let msg = if !t.escaped && ch.is_alphabetic() {
        "unknown flag"
    } else {
        missing
    };
    source.error(msg, t.len())
}

/// A token as the character it is (`\\` for any escape).
fn tok_char(t: Tok) -> char {
    if t.escaped {
        '\\'
    } else {
        char::from_u32(t.c).unwrap_or('\u{fffd}')
    }
}
