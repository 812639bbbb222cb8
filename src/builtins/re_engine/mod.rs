//! apy's regular-expression engine, the native core of `re` as `_sre` is CPython's: a
//! pattern's code points go through [`parser`] (a port of `Lib/re/_parser.py`, with its
//! errors) to a tree, [`compiler`] turns the tree into a [`Program`] of instructions, and
//! [`matcher`] runs a program over a subject with sre's semantics — leftmost match,
//! backtracking in pattern order, greedy/lazy/possessive repeats, groups, backreferences,
//! look-around, atomic groups, conditionals — on an explicit stack, so no pattern can
//! overflow the native stack. Value-free: `builtins/sre.rs` is the bridge to the VM.

pub mod compiler;
pub mod matcher;
pub mod parser;

pub use compiler::Program;

/// The `re` flags as ints (`re.RegexFlag`'s values).
pub type Flags = u32;

pub mod flag {
    pub const IGNORECASE: u32 = 2;
    pub const LOCALE: u32 = 4;
    pub const MULTILINE: u32 = 8;
    pub const DOTALL: u32 = 16;
    pub const UNICODE: u32 = 32;
    pub const VERBOSE: u32 = 64;
    pub const DEBUG: u32 = 128;
    pub const ASCII: u32 = 256;
}

/// Which Python exception a failure to compile becomes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// `re.error` (`PatternError`), with a position when `pos` is set.
    Pattern,
    Value,
    Overflow,
    Recursion,
}

/// Why a pattern does not compile: CPython's message, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    pub kind: ErrorKind,
    pub msg: String,
    pub pos: Option<usize>,
}

impl Error {
    pub fn at(msg: impl Into<String>, pos: usize) -> Error {
        Error {
            kind: ErrorKind::Pattern,
            msg: msg.into(),
            pos: Some(pos),
        }
    }

    pub fn pattern(msg: impl Into<String>) -> Error {
        Error {
            kind: ErrorKind::Pattern,
            msg: msg.into(),
            pos: None,
        }
    }

    pub fn value(msg: impl Into<String>) -> Error {
        Error {
            kind: ErrorKind::Value,
            msg: msg.into(),
            pos: None,
        }
    }

    pub fn overflow(msg: impl Into<String>) -> Error {
        Error {
            kind: ErrorKind::Overflow,
            msg: msg.into(),
            pos: None,
        }
    }

    pub fn recursion() -> Error {
        Error {
            kind: ErrorKind::Recursion,
            msg: "maximum recursion depth exceeded".into(),
            pos: None,
        }
    }
}

/// Parses and compiles `pattern` (a bytes pattern's bytes as code points 0..=255).
pub fn compile(pattern: &[u32], is_str: bool, flags: Flags) -> Result<Program, Error> {
    let parsed = parser::parse(pattern, is_str, flags)?;
    compiler::compile(&parsed)
}

#[cfg(test)]
mod tests {
    use super::matcher::{Mode, run};
    use super::*;

    fn run_mode(pattern: &str, subject: &str, mode: Mode) -> Option<(usize, usize)> {
        let p: Vec<u32> = pattern.chars().map(|c| c as u32).collect();
        let s: Vec<u32> = subject.chars().map(|c| c as u32).collect();
        let program = compile(&p, true, 0).expect("compiles");
        let found = run(&program, &s, 0, mode, false, &mut |_| Ok::<(), ()>(()));
        found.ok().flatten().map(|m| (m.slots[0], m.slots[1]))
    }

    fn find(pattern: &str, subject: &str) -> Option<(usize, usize)> {
        run_mode(pattern, subject, Mode::Search)
    }

    #[test]
    fn leftmost_and_backtracking() {
        assert_eq!(find("a+b", "xaab"), Some((1, 4)));
        assert_eq!(find("(a|ab)c", "abc"), Some((0, 3)));
        assert_eq!(find("a*?b", "aab"), Some((0, 3)));
        assert_eq!(find("(?>a+)ab", "aaab"), None);
        assert_eq!(find(r"(?<=a)b", "ab"), Some((1, 2)));
        assert_eq!(find(r"(a)\1", "xaa"), Some((1, 3)));
    }

    #[test]
    fn deep_backtracking_does_not_recurse() {
        let subject = "a".repeat(200_000);
        assert_eq!(run_mode("(?:a|b)*c", &subject, Mode::Match), None);
        assert_eq!(run_mode("(a)*", &subject, Mode::Match), Some((0, 200_000)));
    }

    #[test]
    fn errors_at_cpython_positions() {
        let err = |p: &str| {
            let p: Vec<u32> = p.chars().map(|c| c as u32).collect();
            compile(&p, true, 0).err().map(|e| (e.msg, e.pos))
        };
        assert_eq!(err("*"), Some(("nothing to repeat".into(), Some(0))));
        assert_eq!(err("a**"), Some(("multiple repeat".into(), Some(2))));
        assert_eq!(
            err("(a"),
            Some(("missing ), unterminated subpattern".into(), Some(0)))
        );
        assert_eq!(
            err("[a"),
            Some(("unterminated character set".into(), Some(0)))
        );
    }
}
