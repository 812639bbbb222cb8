//! The SyntaxWarnings CPython's compiler gives for code that runs but cannot be what was
//! meant (`Python/compile.c`: `check_compare`, `check_caller`, `check_subscripter`,
//! `check_index`, and an `assert` of a tuple): recorded with their line as the code is
//! generated, kept on the module's code (`Code::warnings`) and shown by the VM before
//! that code runs. Whether an operand is a literal is judged after constant folding, as
//! CPython's AST optimizer leaves it (a literal, a negated number, a tuple of constants).

use crate::compile::bytecode::Constant;
use crate::syntax::ast::{CmpOp, Expr, ExprKind, Span};

use super::Codegen;
use super::expr::folded_constant;

impl Codegen<'_> {
    /// Records a SyntaxWarning at `span`'s line.
    fn warn(&mut self, span: Span, message: String) {
        let line = self.lines.line_of(span.start);
        self.warnings.push((line, message));
    }

    /// `x is 1`, `x is not ()`: identity with a literal (`check_compare`).
    pub(super) fn check_compare(&mut self, compare: &Expr) {
        let ExprKind::Compare {
            left,
            ops,
            comparators,
        } = &compare.kind
        else {
            return;
        };
        let mut left = left.as_ref();
        for (op, right) in ops.iter().zip(comparators) {
            if matches!(op, CmpOp::Is | CmpOp::IsNot) {
                let literal = [left, right]
                    .into_iter()
                    .find_map(|e| folded_constant(e).filter(|c| !is_singleton(c)));
                if let Some(literal) = literal {
                    let message = match op {
                        CmpOp::Is => format!(
                            "\"is\" with '{}' literal. Did you mean \"==\"?",
                            constant_type(&literal)
                        ),
                        _ => format!(
                            "\"is not\" with '{}' literal. Did you mean \"!=\"?",
                            constant_type(&literal)
                        ),
                    };
                    return self.warn(compare.span, message);
                }
            }
            left = right;
        }
    }

    /// `assert (x, "message")`: a non-empty tuple is always true.
    pub(super) fn check_assert(&mut self, stmt_span: Span, test: &Expr) {
        if let ExprKind::Tuple(items) = &test.kind
            && !items.is_empty()
            && folded_constant(test).is_none()
        {
            let message = "assertion is always true, perhaps remove parentheses?";
            self.warn(stmt_span, message.to_string());
        }
    }

    /// `(1, 2) (3, 4)`: calling what cannot be called (`check_caller`).
    pub(super) fn check_caller(&mut self, func: &Expr) {
        let callable_kind = matches!(
            func.kind,
            ExprKind::Constant(_)
                | ExprKind::Tuple(_)
                | ExprKind::List(_)
                | ExprKind::ListComp { .. }
                | ExprKind::Dict { .. }
                | ExprKind::DictComp { .. }
                | ExprKind::Set(_)
                | ExprKind::SetComp { .. }
                | ExprKind::GeneratorExp { .. }
                | ExprKind::FString(_)
        );
        if let (true, Some(ty)) = (callable_kind, inferred_type(func)) {
            let message = format!("'{ty}' object is not callable; perhaps you missed a comma?");
            self.warn(func.span, message);
        }
    }

    /// `value[index]` loaded: subscripting what cannot be (`check_subscripter`), or
    /// indexing a sequence with what cannot index it (`check_index`).
    pub(super) fn check_subscript(&mut self, value: &Expr, index: &Expr) {
        let not_subscriptable = match folded_constant(value) {
            Some(c) => matches!(
                c,
                Constant::None
                    | Constant::Ellipsis
                    | Constant::Bool(_)
                    | Constant::Int(_)
                    | Constant::BigInt(_)
                    | Constant::Float(_)
                    | Constant::Complex(..)
                    | Constant::FrozenSet(_)
            ),
            None => matches!(
                value.kind,
                ExprKind::Set(_)
                    | ExprKind::SetComp { .. }
                    | ExprKind::GeneratorExp { .. }
                    | ExprKind::Lambda { .. }
            ),
        };
        if not_subscriptable && let Some(ty) = inferred_type(value) {
            let message =
                format!("'{ty}' object is not subscriptable; perhaps you missed a comma?");
            return self.warn(value.span, message);
        }
        let Some(index_type) = inferred_type(index) else {
            return;
        };
        if matches!(index_type, "int" | "bool") || matches!(index.kind, ExprKind::Slice { .. }) {
            return;
        }
        let sequence = match folded_constant(value) {
            Some(c) => matches!(
                c,
                Constant::Str(_) | Constant::Bytes(_) | Constant::Tuple(_)
            ),
            None => matches!(
                value.kind,
                ExprKind::Tuple(_)
                    | ExprKind::List(_)
                    | ExprKind::ListComp { .. }
                    | ExprKind::FString(_)
            ),
        };
        if sequence && let Some(ty) = inferred_type(value) {
            let message = format!(
                "{ty} indices must be integers or slices, not {index_type}; \
                 perhaps you missed a comma?"
            );
            self.warn(value.span, message);
        }
    }
}

/// None, True, False and `...`: the constants `is` may rightly compare with.
fn is_singleton(c: &Constant) -> bool {
    matches!(c, Constant::None | Constant::Bool(_) | Constant::Ellipsis)
}

/// The name of a constant's type.
fn constant_type(c: &Constant) -> &'static str {
    match c {
        Constant::None => "NoneType",
        Constant::Bool(_) => "bool",
        Constant::Ellipsis => "ellipsis",
        Constant::Int(_) | Constant::BigInt(_) => "int",
        Constant::Float(_) => "float",
        Constant::Complex(..) => "complex",
        Constant::Str(_) => "str",
        Constant::Bytes(_) => "bytes",
        Constant::Tuple(_) => "tuple",
        Constant::FrozenSet(_) => "frozenset",
        Constant::Code(_) | Constant::Frozen(_) => "code",
    }
}

/// The type `e` evaluates to when its syntax alone says (CPython's `infer_type`).
fn inferred_type(e: &Expr) -> Option<&'static str> {
    if let Some(c) = folded_constant(e) {
        return Some(constant_type(&c));
    }
    Some(match &e.kind {
        ExprKind::Tuple(_) => "tuple",
        ExprKind::List(_) | ExprKind::ListComp { .. } => "list",
        ExprKind::Dict { .. } | ExprKind::DictComp { .. } => "dict",
        ExprKind::Set(_) | ExprKind::SetComp { .. } => "set",
        ExprKind::GeneratorExp { .. } => "generator",
        ExprKind::Lambda { .. } => "function",
        ExprKind::FString(_) => "str",
        _ => return None,
    })
}
