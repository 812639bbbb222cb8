//! The tokens of apy source, as the logos lexer recognises them and the parser consumes them.
//!
//! In: nothing (this is a vocabulary). Out: [`Tok`], fed through `indent` to the lalrpop grammar.
//! Mirrors CPython's `Grammar/Tokens` and `Lib/keyword.py`. Callbacks live in `lexer.rs`.
//! Logos yields every physical `Newline`; `indent.rs` drops those inside brackets or on blank
//! lines and adds `Indent`/`Dedent`; `parser.rs` adds the entry markers, `WithLPar`/`WithRPar`
//! and the soft keywords `Match`/`Case`.

use logos::Logos;
use num_bigint::BigInt;

use super::fstring::FStringToken;
use super::lexer::{self, LexError};

#[derive(Logos, Clone, Debug, PartialEq)]
#[logos(error(LexError, LexError::from_lexer))]
#[logos(skip r"[ \t\x0C]+")]
#[logos(skip(r"#[^\r\n]*", allow_greedy = true))]
#[logos(skip r"\\(\r\n|\r|\n)")]
pub enum Tok {
    /// An identifier (soft keywords `match`, `case`, `type`, `_` are names too).
    #[regex(
        r"[a-zA-Z_\u{80}-\u{10FFFF}][a-zA-Z0-9_\u{80}-\u{10FFFF}]*",
        lexer::name
    )]
    Name(String),
    #[regex(r"[0-9](_?[0-9])*", lexer::decimal_int)]
    #[regex(r"0[xX](_?[0-9a-fA-F])+", |lex| lexer::radix_int(lex, 16))]
    #[regex(r"0[oO](_?[0-7])+", |lex| lexer::radix_int(lex, 8))]
    #[regex(r"0[bB](_?[01])+", |lex| lexer::radix_int(lex, 2))]
    Int(BigInt),
    #[regex(
        r"[0-9](_?[0-9])*\.([0-9](_?[0-9])*)?([eE][+-]?[0-9](_?[0-9])*)?",
        lexer::float
    )]
    #[regex(r"\.[0-9](_?[0-9])*([eE][+-]?[0-9](_?[0-9])*)?", lexer::float)]
    #[regex(r"[0-9](_?[0-9])*[eE][+-]?[0-9](_?[0-9])*", lexer::float)]
    Float(f64),
    /// An imaginary literal (`1j`, `2.5J`, `1e3j`, `00j`): its imaginary part.
    #[regex(r"[0-9](_?[0-9])*[jJ]", lexer::imaginary)]
    #[regex(
        r"[0-9](_?[0-9])*\.([0-9](_?[0-9])*)?([eE][+-]?[0-9](_?[0-9])*)?[jJ]",
        lexer::imaginary
    )]
    #[regex(r"\.[0-9](_?[0-9])*([eE][+-]?[0-9](_?[0-9])*)?[jJ]", lexer::imaginary)]
    #[regex(r"[0-9](_?[0-9])*[eE][+-]?[0-9](_?[0-9])*[jJ]", lexer::imaginary)]
    Imaginary(f64),
    /// A string literal with escapes decoded (`'…'`, `"""…"""`, `r'…'`).
    #[regex(
        r#"([rRuUfFbB]|[fF][rR]|[rR][fF]|[bB][rR]|[rR][bB])?["']"#,
        lexer::string
    )]
    Str(StrToken),
    /// `\` not followed by a newline; `\` at the very end of the input.
    #[token("\\", lexer::stray_backslash)]
    Backslash,

    #[regex(r"\r\n|\r|\n")]
    Newline,
    Indent,
    Dedent,
    /// First token of a whole-module parse (see `parser.rs`: one grammar, two entries).
    StartModule,
    /// First token of a single-expression parse (f-string replacement fields).
    StartExpr,

    #[token("False")]
    False,
    #[token("None")]
    None,
    #[token("True")]
    True,
    #[token("and")]
    And,
    #[token("as")]
    As,
    #[token("assert")]
    Assert,
    #[token("async")]
    Async,
    #[token("await")]
    Await,
    #[token("break")]
    Break,
    #[token("class")]
    Class,
    #[token("continue")]
    Continue,
    #[token("def")]
    Def,
    #[token("del")]
    Del,
    #[token("elif")]
    Elif,
    #[token("else")]
    Else,
    #[token("except")]
    Except,
    #[token("finally")]
    Finally,
    #[token("for")]
    For,
    #[token("from")]
    From,
    #[token("global")]
    Global,
    #[token("if")]
    If,
    #[token("import")]
    Import,
    #[token("in")]
    In,
    #[token("is")]
    Is,
    #[token("lambda")]
    Lambda,
    #[token("nonlocal")]
    Nonlocal,
    #[token("not")]
    Not,
    #[token("or")]
    Or,
    #[token("pass")]
    Pass,
    #[token("raise")]
    Raise,
    #[token("return")]
    Return,
    #[token("try")]
    Try,
    #[token("while")]
    While,
    #[token("with")]
    With,
    #[token("yield")]
    Yield,

    #[token("(")]
    LPar,
    #[token(")")]
    RPar,
    #[token("[")]
    LSqb,
    #[token("]")]
    RSqb,
    #[token("{")]
    LBrace,
    #[token("}")]
    RBrace,
    /// The `(` of `with (a as b, c as d):`, told apart from a parenthesised expression by
    /// `parser.rs` before parsing (LR(1) cannot see that far ahead).
    WithLPar,
    /// The `)` matching a [`Tok::WithLPar`].
    WithRPar,
    /// The soft keyword `match` where it starts a `match` statement (`parser.rs` turns the
    /// name into this token; everywhere else `match` is a name).
    Match,
    /// The soft keyword `case` at the start of a `case` block of a `match` statement.
    Case,
    /// The soft keyword `type` where it starts a `type X = …` statement (PEP 695).
    TypeAlias,
    #[token(":")]
    Colon,
    #[token(",")]
    Comma,
    #[token(";")]
    Semi,
    #[token("+")]
    Plus,
    #[token("-")]
    Minus,
    #[token("*")]
    Star,
    #[token("/")]
    Slash,
    #[token("|")]
    VBar,
    #[token("&")]
    Amper,
    #[token("<")]
    Less,
    #[token(">")]
    Greater,
    #[token("=")]
    Equal,
    #[token(".")]
    Dot,
    #[token("%")]
    Percent,
    #[token("==")]
    EqEqual,
    #[token("!=")]
    NotEqual,
    #[token("<=")]
    LessEqual,
    #[token(">=")]
    GreaterEqual,
    #[token("~")]
    Tilde,
    #[token("^")]
    Circumflex,
    #[token("<<")]
    LeftShift,
    #[token(">>")]
    RightShift,
    #[token("**")]
    DoubleStar,
    #[token("+=")]
    PlusEqual,
    #[token("-=")]
    MinEqual,
    #[token("*=")]
    StarEqual,
    #[token("/=")]
    SlashEqual,
    #[token("%=")]
    PercentEqual,
    #[token("&=")]
    AmperEqual,
    #[token("|=")]
    VBarEqual,
    #[token("^=")]
    CircumflexEqual,
    #[token("<<=")]
    LeftShiftEqual,
    #[token(">>=")]
    RightShiftEqual,
    #[token("**=")]
    DoubleStarEqual,
    #[token("//")]
    DoubleSlash,
    #[token("//=")]
    DoubleSlashEqual,
    #[token("@")]
    At,
    #[token("@=")]
    AtEqual,
    #[token("->")]
    RArrow,
    #[token("...")]
    Ellipsis,
    #[token(":=")]
    ColonEqual,
    #[token("!")]
    Exclamation,
}

/// A string literal token: either plain text (escapes decoded) or an f-string split into parts.
#[derive(Clone, Debug, PartialEq)]
pub enum StrToken {
    Plain(String),
    /// A bytes literal (`b'…'`, `rb'…'`), escapes decoded.
    Bytes(Vec<u8>),
    Format(Box<FStringToken>),
}

impl Tok {
    /// A bracket's text, as messages quote it ("unmatched ')'"); None for other tokens.
    pub fn bracket_text(&self) -> Option<&'static str> {
        Some(match self {
            Tok::LPar | Tok::WithLPar => "(",
            Tok::RPar | Tok::WithRPar => ")",
            Tok::LSqb => "[",
            Tok::RSqb => "]",
            Tok::LBrace => "{",
            Tok::RBrace => "}",
            _ => return None,
        })
    }
}
