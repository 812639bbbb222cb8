//! What `eval` and `single` modes accept beyond the grammar of a file (CPython's start
//! symbols in `Grammar/python.gram`): apy parses every source as a file, then checks the
//! statements fit the mode. Used by `compile()`/`eval()` and by `ast.parse`.

use super::ast::{Module, Span};
use super::diagnostics::Diagnostic;

/// What a source is parsed as.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StartSymbol {
    /// A file's statements (`exec`).
    File,
    /// One expression (`eval`).
    Eval,
    /// The statements of one line (`single`).
    Single,
}

/// What `eval` and `single` modes accept beyond the grammar of a file: one expression, or
/// the statements of one line (`Python/pythonrun.c`'s start symbols).
pub fn check_shape(module: &Module, text: &str, start: StartSymbol) -> Result<(), Diagnostic> {
    let invalid = |span: Span, message: &str| Err(Diagnostic::syntax_error(message, span));
    let end = Span::new(text.len(), text.len());
    match start {
        StartSymbol::Eval => {
            use crate::syntax::ast::StmtKind;
            let at = |offset: usize| Span::new(offset, offset + 1);
            let after = |offset: u32| {
                at(offset as usize
                    + (text[offset as usize..].len()
                        - text[offset as usize..]
                            .trim_start_matches([' ', '\t'])
                            .len()))
            };
            match module.body.as_slice() {
                [] => invalid(end, "invalid syntax"),
                [stmt] if matches!(stmt.kind, StmtKind::Expr(_)) => Ok(()),
                // Where CPython's parser stops: the `=` of an assignment, the `;` or the
                // line after an expression.
                [first, next, ..] if matches!(first.kind, StmtKind::Expr(_)) => {
                    let same_line =
                        !text[first.span.end as usize..next.span.start as usize].contains('\n');
                    invalid(
                        if same_line {
                            after(first.span.end)
                        } else {
                            next.span
                        },
                        "invalid syntax",
                    )
                }
                [stmt, ..] => match &stmt.kind {
                    StmtKind::Assign { targets, .. } => {
                        invalid(after(targets[0].span.end), "invalid syntax")
                    }
                    _ => invalid(stmt.span, "invalid syntax"),
                },
            }
        }
        StartSymbol::Single => {
            let line_of = |span: Span| {
                text[..(span.start as usize).min(text.len())]
                    .matches('\n')
                    .count()
            };
            match module.body.as_slice() {
                [] => invalid(end, "invalid syntax"),
                [first, rest @ ..] => {
                    match rest.iter().find(|s| line_of(s.span) != line_of(first.span)) {
                        Some(_) => invalid(
                            first.span,
                            "multiple statements found while compiling a single statement",
                        ),
                        None => Ok(()),
                    }
                }
            }
        }
        StartSymbol::File => Ok(()),
    }
}
