//! Expressions back to source text, as CPython's `Python/ast_unparse.c` writes them: the
//! strings that `from __future__ import annotations` stores in `__annotations__`
//! (`def f(x: list[int] | None)` keeps `'list[int] | None'`).
//!
//! Spacing is normalised (`1+2` becomes `1 + 2`) and parentheses are written only where
//! the operators' priorities need them, with the same priority levels as CPython, so the
//! text is the one CPython's `__annotations__` holds.

use crate::common::chars::{bytes_repr, str_repr};
use crate::common::complex_ops::{Complex, complex_repr};
use crate::common::float_repr::float_repr;

use super::ast::{
    BinOp, BoolOp, Comprehension, Constant, Expr, ExprKind, FStringPart, FormattedValue, Param,
    Parameters, UnaryOp,
};

/// How tightly an operator binds, lowest first (CPython's `PR_*` levels). An expression
/// printed where a higher level is expected is put in parentheses.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Level {
    Tuple,
    Test,
    Or,
    And,
    Not,
    Cmp,
    BitOr,
    BitXor,
    BitAnd,
    Shift,
    Arith,
    Term,
    Factor,
    Power,
    Await,
    Atom,
}

impl Level {
    /// The next level up: where an operand of a left-associative operator is printed.
    fn above(self) -> Level {
        match self {
            Level::Tuple => Level::Test,
            Level::Test => Level::Or,
            Level::Or => Level::And,
            Level::And => Level::Not,
            Level::Not => Level::Cmp,
            Level::Cmp => Level::BitOr,
            Level::BitOr => Level::BitXor,
            Level::BitXor => Level::BitAnd,
            Level::BitAnd => Level::Shift,
            Level::Shift => Level::Arith,
            Level::Arith => Level::Term,
            Level::Term => Level::Factor,
            Level::Factor => Level::Power,
            Level::Power => Level::Await,
            Level::Await | Level::Atom => Level::Atom,
        }
    }
}

/// The text of an annotation, as `from __future__ import annotations` keeps it.
pub fn unparse(expr: &Expr) -> String {
    let mut out = String::new();
    write_expr(&mut out, expr, Level::Test);
    out
}

fn write_expr(out: &mut String, expr: &Expr, level: Level) {
    match &expr.kind {
        ExprKind::BoolOp { op, values } => {
            let (text, own) = match op {
                BoolOp::And => (" and ", Level::And),
                BoolOp::Or => (" or ", Level::Or),
            };
            parenthesized(out, level > own, |out| {
                write_joined(out, values, text, own.above())
            });
        }
        ExprKind::BinOp { left, op, right } => {
            let own = binop_level(*op);
            let right_assoc = *op == BinOp::Pow;
            parenthesized(out, level > own, |out| {
                write_expr(out, left, if right_assoc { own.above() } else { own });
                out.push(' ');
                out.push_str(op.symbol());
                out.push(' ');
                write_expr(out, right, if right_assoc { own } else { own.above() });
            });
        }
        ExprKind::UnaryOp { op, operand } => {
            let (text, own) = match op {
                UnaryOp::Invert => ("~", Level::Factor),
                UnaryOp::Not => ("not ", Level::Not),
                UnaryOp::UAdd => ("+", Level::Factor),
                UnaryOp::USub => ("-", Level::Factor),
            };
            parenthesized(out, level > own, |out| {
                out.push_str(text);
                write_expr(out, operand, own);
            });
        }
        ExprKind::Lambda { params, body } => parenthesized(out, level > Level::Test, |out| {
            let positional = params.posonly.len() + params.args.len();
            out.push_str(if positional > 0 { "lambda " } else { "lambda" });
            write_params(out, params);
            out.push_str(": ");
            write_expr(out, body, Level::Test);
        }),
        ExprKind::IfExp { test, body, orelse } => parenthesized(out, level > Level::Test, |out| {
            write_expr(out, body, Level::Or);
            out.push_str(" if ");
            write_expr(out, test, Level::Or);
            out.push_str(" else ");
            write_expr(out, orelse, Level::Test);
        }),
        ExprKind::Dict { keys, values } => {
            out.push('{');
            for (i, (key, value)) in keys.iter().zip(values).enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                match key {
                    Some(key) => {
                        write_expr(out, key, Level::Test);
                        out.push_str(": ");
                        write_expr(out, value, Level::Test);
                    }
                    None => {
                        out.push_str("**");
                        write_expr(out, value, Level::BitOr);
                    }
                }
            }
            out.push('}');
        }
        ExprKind::Set(items) => write_display(out, '{', items, '}'),
        ExprKind::List(items) => write_display(out, '[', items, ']'),
        ExprKind::ListComp { elt, generators } => {
            write_comprehension(out, '[', elt, generators, ']')
        }
        ExprKind::SetComp { elt, generators } => {
            write_comprehension(out, '{', elt, generators, '}')
        }
        ExprKind::GeneratorExp { elt, generators } => {
            write_comprehension(out, '(', elt, generators, ')')
        }
        ExprKind::DictComp {
            key,
            value,
            generators,
        } => {
            out.push('{');
            write_expr(out, key, Level::Test);
            out.push_str(": ");
            write_expr(out, value, Level::Test);
            write_generators(out, generators);
            out.push('}');
        }
        ExprKind::Yield(value) => {
            out.push_str("(yield");
            if let Some(value) = value {
                out.push(' ');
                write_expr(out, value, Level::Test);
            }
            out.push(')');
        }
        ExprKind::YieldFrom(value) => {
            out.push_str("(yield from ");
            write_expr(out, value, Level::Test);
            out.push(')');
        }
        ExprKind::Await(value) => parenthesized(out, level > Level::Await, |out| {
            out.push_str("await ");
            write_expr(out, value, Level::Atom);
        }),
        ExprKind::Compare {
            left,
            ops,
            comparators,
        } => parenthesized(out, level > Level::Cmp, |out| {
            write_expr(out, left, Level::BitOr);
            for (op, right) in ops.iter().zip(comparators) {
                out.push(' ');
                out.push_str(op.symbol());
                out.push(' ');
                write_expr(out, right, Level::BitOr);
            }
        }),
        ExprKind::Call {
            func,
            args,
            keywords,
        } => {
            write_expr(out, func, Level::Atom);
            if let ([arg], []) = (args.as_slice(), keywords.as_slice())
                && matches!(arg.kind, ExprKind::GeneratorExp { .. })
            {
                // A lone generator expression brings its own parentheses.
                return write_expr(out, arg, Level::Test);
            }
            out.push('(');
            let mut first = true;
            for arg in args {
                separate(out, &mut first);
                write_expr(out, arg, Level::Test);
            }
            for keyword in keywords {
                separate(out, &mut first);
                match &keyword.arg {
                    Some(name) => {
                        out.push_str(&name.name);
                        out.push('=');
                    }
                    None => out.push_str("**"),
                }
                write_expr(out, &keyword.value, Level::Test);
            }
            out.push(')');
        }
        ExprKind::FString(parts) => {
            out.push('f');
            out.push_str(&str_repr(&fstring_body(parts)));
        }
        ExprKind::Constant(constant) => write_constant(out, constant),
        ExprKind::Attribute { value, attr } => {
            write_expr(out, value, Level::Atom);
            // `1 .real`: an int needs the space, or the dot would start a float.
            let after_int = matches!(value.kind, ExprKind::Constant(Constant::Int(_)));
            out.push_str(if after_int { " ." } else { "." });
            out.push_str(&attr.name);
        }
        ExprKind::Subscript { value, slice } => {
            write_expr(out, value, Level::Atom);
            out.push('[');
            write_expr(out, slice, Level::Tuple);
            out.push(']');
        }
        ExprKind::Starred(value) => {
            out.push('*');
            write_expr(out, value, Level::BitOr);
        }
        ExprKind::Name(name) => out.push_str(name),
        ExprKind::Tuple(items) => {
            if items.is_empty() {
                return out.push_str("()");
            }
            parenthesized(out, level > Level::Tuple, |out| {
                write_joined(out, items, ", ", Level::Test);
                if items.len() == 1 {
                    out.push(',');
                }
            });
        }
        ExprKind::Slice { lower, upper, step } => {
            if let Some(lower) = lower {
                write_expr(out, lower, Level::Test);
            }
            out.push(':');
            if let Some(upper) = upper {
                write_expr(out, upper, Level::Test);
            }
            if let Some(step) = step {
                out.push(':');
                write_expr(out, step, Level::Test);
            }
        }
        ExprKind::NamedExpr { target, value } => parenthesized(out, level > Level::Tuple, |out| {
            write_expr(out, target, Level::Atom);
            out.push_str(":=");
            write_expr(out, value, Level::Atom);
        }),
    }
}

fn binop_level(op: BinOp) -> Level {
    match op {
        BinOp::Add | BinOp::Sub => Level::Arith,
        BinOp::Mult | BinOp::MatMult | BinOp::Div | BinOp::Mod | BinOp::FloorDiv => Level::Term,
        BinOp::LShift | BinOp::RShift => Level::Shift,
        BinOp::BitOr => Level::BitOr,
        BinOp::BitXor => Level::BitXor,
        BinOp::BitAnd => Level::BitAnd,
        BinOp::Pow => Level::Power,
    }
}

fn parenthesized(out: &mut String, parens: bool, body: impl FnOnce(&mut String)) {
    if parens {
        out.push('(');
    }
    body(out);
    if parens {
        out.push(')');
    }
}

fn separate(out: &mut String, first: &mut bool) {
    if !*first {
        out.push_str(", ");
    }
    *first = false;
}

fn write_joined(out: &mut String, items: &[Expr], separator: &str, level: Level) {
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push_str(separator);
        }
        write_expr(out, item, level);
    }
}

fn write_display(out: &mut String, open: char, items: &[Expr], close: char) {
    out.push(open);
    write_joined(out, items, ", ", Level::Test);
    out.push(close);
}

fn write_comprehension(
    out: &mut String,
    open: char,
    elt: &Expr,
    generators: &[Comprehension],
    close: char,
) {
    out.push(open);
    write_expr(out, elt, Level::Test);
    write_generators(out, generators);
    out.push(close);
}

fn write_generators(out: &mut String, generators: &[Comprehension]) {
    for generator in generators {
        out.push_str(if generator.is_async {
            " async for "
        } else {
            " for "
        });
        write_expr(out, &generator.target, Level::Tuple);
        out.push_str(" in ");
        write_expr(out, &generator.iter, Level::Or);
        for condition in &generator.ifs {
            out.push_str(" if ");
            write_expr(out, condition, Level::Or);
        }
    }
}

fn write_params(out: &mut String, params: &Parameters) {
    let mut first = true;
    let write_param = |out: &mut String, param: &Param| {
        out.push_str(&param.name.name);
        if let Some(annotation) = &param.annotation {
            out.push_str(": ");
            write_expr(out, annotation, Level::Test);
        }
        if let Some(default) = &param.default {
            out.push('=');
            write_expr(out, default, Level::Test);
        }
    };
    for param in &params.posonly {
        separate(out, &mut first);
        write_param(out, param);
    }
    if !params.posonly.is_empty() {
        out.push_str(", /");
    }
    for param in &params.args {
        separate(out, &mut first);
        write_param(out, param);
    }
    if params.vararg.is_some() || !params.kwonly.is_empty() {
        separate(out, &mut first);
        out.push('*');
        if let Some(vararg) = &params.vararg {
            write_param(out, vararg);
        }
    }
    for param in &params.kwonly {
        separate(out, &mut first);
        write_param(out, param);
    }
    if let Some(kwarg) = &params.kwarg {
        separate(out, &mut first);
        out.push_str("**");
        write_param(out, kwarg);
    }
}

fn write_constant(out: &mut String, constant: &Constant) {
    match constant {
        Constant::None => out.push_str("None"),
        Constant::Bool(true) => out.push_str("True"),
        Constant::Bool(false) => out.push_str("False"),
        Constant::Ellipsis => out.push_str("..."),
        Constant::Int(value) => out.push_str(&value.to_string()),
        // An infinite literal (`1e400`) is written as one that still overflows.
        Constant::Float(value) => out.push_str(&float_repr(*value).replace("inf", "1e309")),
        Constant::Imaginary(value) => {
            let repr = complex_repr(Complex::new(0.0, *value));
            out.push_str(&repr.replace("inf", "1e309"));
        }
        Constant::Str(text) => out.push_str(&str_repr(text)),
        Constant::Bytes(bytes) => out.push_str(&bytes_repr(bytes)),
    }
}

/// The inside of an f-string's quotes: literal text with its braces doubled, and each
/// replacement field as written.
fn fstring_body(parts: &[FStringPart]) -> String {
    let mut body = String::new();
    for part in parts {
        match part {
            FStringPart::Literal(text) => {
                body.push_str(&text.replace('{', "{{").replace('}', "}}"))
            }
            FStringPart::Formatted(field) => write_field(&mut body, field),
        }
    }
    body
}

fn write_field(out: &mut String, field: &FormattedValue) {
    let mut value = String::new();
    // Above Test, so that a lambda's `:` cannot be read as the start of a format spec.
    write_expr(&mut value, &field.value, Level::Or);
    out.push_str(if value.starts_with('{') { "{ " } else { "{" });
    out.push_str(&value);
    if let Some(conversion) = field.conversion {
        out.push('!');
        out.push(conversion);
    }
    if let Some(spec) = &field.format_spec {
        out.push(':');
        out.push_str(&fstring_body(spec));
    }
    out.push('}');
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::ast::StmtKind;
    use crate::syntax::parser::parse_module;

    fn parse(source: &str) -> Expr {
        let mut module = parse_module(source).unwrap();
        match module.body.remove(0).kind {
            StmtKind::Expr(expr) => expr,
            other => panic!("not an expression: {other:?}"),
        }
    }

    /// Each pair was checked against CPython 3.13's `__annotations__` under
    /// `from __future__ import annotations`.
    #[test]
    fn annotations_read_as_cpython_writes_them() {
        for (source, expected) in [
            ("1+2", "1 + 2"),
            ("-1", "-1"),
            ("(int, str)", "(int, str)"),
            ("list[int, ...]", "list[int, ...]"),
            ("\"x\"", "'x'"),
            ("lambda x, *, y=1: x", "lambda x, *, y=1: x"),
            ("{1: 2, **d}", "{1: 2, **d}"),
            ("x if y else z", "x if y else z"),
            ("f\"a{b!r:>{w}}c\"", "f'a{b!r:>{w}}c'"),
            ("a.b.c(1, *x, k=2, **z)", "a.b.c(1, *x, k=2, **z)"),
            ("1 .real", "1 .real"),
            ("a[1:2, ::3]", "a[1:2, ::3]"),
            ("1e400", "1e309"),
            ("-(1+2)*3**-2**2", "-(1 + 2) * 3 ** (-2 ** 2)"),
            ("a < b < c", "a < b < c"),
            ("{1,2}", "{1, 2}"),
            ("(1,)", "(1,)"),
            ("a or b and c", "a or b and c"),
            ("(a or b) and c", "(a or b) and c"),
            ("f(x for x in y)", "f(x for x in y)"),
            ("None | int", "None | int"),
            ("b'a\\n' + x", "b'a\\n' + x"),
        ] {
            assert_eq!(unparse(&parse(source)), expected, "for {source}");
        }
    }
}
