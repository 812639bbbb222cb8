//! The grammar's actions for `case` patterns (PEP 634): build [`Pattern`] nodes and check
//! what CPython's parser checks (`Grammar/python.gram`'s pattern rules and their `invalid_*`
//! forms). What CPython checks only while compiling (unreachable patterns, names bound
//! twice, duplicate keys…) is left to `compile::codegen::patterns`.

use super::helpers::PResult;
use crate::syntax::ast::{BinOp, Constant, Expr, ExprKind, Ident, Pattern, PatternKind, Span};
use crate::syntax::error::SyntaxError;
use lalrpop_util::ParseError;

/// One entry of a mapping pattern, before the place of `**rest` is checked.
pub enum MapItem {
    Key(Expr, Box<Pattern>),
    /// `**name`, with the span of the whole entry.
    Rest(Ident, Span),
}

/// One argument of a class pattern, before positional and keyword are split.
pub enum ClassArg {
    Positional(Box<Pattern>),
    Keyword(Ident, Box<Pattern>),
}

fn fail<T>(message: &str, span: Span) -> PResult<T> {
    Err(ParseError::User {
        error: SyntaxError::invalid(message, span),
    })
}

pub fn pattern(l: usize, kind: PatternKind, r: usize) -> Box<Pattern> {
    Box::new(Pattern {
        kind,
        span: Span::new(l, r),
    })
}

/// A complex literal of a pattern, `real ± imag` (`-1+2j`): a real number then an imaginary
/// one, as `complex_number` in CPython's grammar demands.
pub fn complex_literal(l: usize, real: Expr, op: BinOp, imag: Expr, r: usize) -> PResult<Expr> {
    let number = |e: &Expr| match &e.kind {
        ExprKind::UnaryOp { operand, .. } => match &operand.kind {
            ExprKind::Constant(c) => Some(c.clone()),
            _ => None,
        },
        ExprKind::Constant(c) => Some(c.clone()),
        _ => None,
    };
    if matches!(number(&real), Some(Constant::Imaginary(_))) {
        return fail("real number required in complex literal", real.span);
    }
    if !matches!(imag.kind, ExprKind::Constant(Constant::Imaginary(_))) {
        return fail("imaginary number required in complex literal", imag.span);
    }
    let kind = ExprKind::BinOp {
        left: Box::new(real),
        op,
        right: Box::new(imag),
    };
    Ok(super::helpers::expr(l, kind, r))
}

/// `None`, `True` and `False` are compared by identity, other literals by `==`.
pub fn literal(l: usize, value: Expr, r: usize) -> Box<Pattern> {
    let kind = match value.kind {
        ExprKind::Constant(c @ (Constant::None | Constant::Bool(_))) => {
            PatternKind::MatchSingleton(c)
        }
        _ => PatternKind::MatchValue(value),
    };
    pattern(l, kind, r)
}

fn ident(l: usize, name: String, r: usize) -> Option<Ident> {
    (name != "_").then(|| Ident {
        name,
        span: Span::new(l, r),
    })
}

/// A bare name captures the subject; `_` is the wildcard.
pub fn capture(l: usize, name: String, r: usize) -> Box<Pattern> {
    let name = ident(l, name, r);
    pattern(
        l,
        PatternKind::MatchAs {
            pattern: None,
            name,
        },
        r,
    )
}

/// `*name` (or `*_`) inside a sequence pattern.
pub fn star(l: usize, name: String, r: usize) -> Box<Pattern> {
    let name = ident(r - name.len(), name, r);
    pattern(l, PatternKind::MatchStar(name), r)
}

pub fn sequence(l: usize, items: Vec<Pattern>, r: usize) -> Box<Pattern> {
    pattern(l, PatternKind::MatchSequence(items), r)
}

pub fn as_pattern(l: usize, inner: Box<Pattern>, name: Ident, r: usize) -> PResult<Box<Pattern>> {
    if name.name == "_" {
        return fail("cannot use '_' as a target", name.span);
    }
    let kind = PatternKind::MatchAs {
        pattern: Some(inner),
        name: Some(name),
    };
    Ok(pattern(l, kind, r))
}

pub fn or_pattern(l: usize, first: Pattern, rest: Vec<Box<Pattern>>, r: usize) -> Box<Pattern> {
    let mut alternatives = vec![first];
    alternatives.extend(rest.into_iter().map(|p| *p));
    pattern(l, PatternKind::MatchOr(alternatives), r)
}

/// `{k: p, …, **rest}`: `**rest` may come only once, last, and not as `**_`.
pub fn mapping(l: usize, items: Vec<MapItem>, r: usize) -> PResult<Box<Pattern>> {
    let (mut keys, mut patterns, mut rest) = (Vec::new(), Vec::new(), None);
    for item in items {
        if rest.is_some() {
            let span = match &item {
                MapItem::Key(key, _) => key.span,
                MapItem::Rest(_, span) => Span::new(span.start as usize, span.start as usize + 2),
            };
            return fail("invalid syntax", span);
        }
        match item {
            MapItem::Key(key, value) => {
                keys.push(key);
                patterns.push(*value);
            }
            MapItem::Rest(name, _) if name.name == "_" => return fail("invalid syntax", name.span),
            MapItem::Rest(name, _) => rest = Some(name),
        }
    }
    let kind = PatternKind::MatchMapping {
        keys,
        patterns,
        rest,
    };
    Ok(pattern(l, kind, r))
}

/// `Cls(p, …, name=p, …)`: no positional pattern after a keyword one.
pub fn class(l: usize, cls: Expr, args: Vec<ClassArg>, r: usize) -> PResult<Box<Pattern>> {
    let (mut patterns, mut kwd_attrs, mut kwd_patterns) = (Vec::new(), Vec::new(), Vec::new());
    let mut late: Option<Span> = None;
    for arg in args {
        match arg {
            ClassArg::Positional(p) if !kwd_attrs.is_empty() => {
                late = Some(late.map_or(p.span, |span| span.cover(p.span)));
            }
            ClassArg::Positional(p) => patterns.push(*p),
            ClassArg::Keyword(name, p) => {
                kwd_attrs.push(name);
                kwd_patterns.push(*p);
            }
        }
    }
    if let Some(span) = late {
        return fail("positional patterns follow keyword patterns", span);
    }
    let kind = PatternKind::MatchClass {
        cls,
        patterns,
        kwd_attrs,
        kwd_patterns,
    };
    Ok(pattern(l, kind, r))
}
