//! What `eval` and `single` modes accept beyond the grammar of a file (CPython's start
//! symbols in `Grammar/python.gram`): apy parses every source as a file, then checks the
//! statements fit the mode. Used by `compile()`/`eval()` and by `ast.parse`.

use super::ast::{Module, Span, Stmt};
use super::diagnostics::Diagnostic;
use super::lexer::{is_ident_continue, is_ident_start};

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
                // Nothing yet: an expression could still come.
                [] => Err(Diagnostic {
                    incomplete: true,
                    ..Diagnostic::syntax_error("invalid syntax", end)
                }),
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
        StartSymbol::Single => match module.body.as_slice() {
            [] => invalid(end, "invalid syntax"),
            // Without a final newline, CPython's parser makes up the NEWLINE that ends
            // the statement's suite, and finds none for the compound statement itself.
            [stmt]
                if stmt.is_compound()
                    && !text.ends_with('\n')
                    && !super::indent::ends_inside_block(text) =>
            {
                Err(Diagnostic {
                    incomplete: true,
                    ..Diagnostic::syntax_error("invalid syntax", end)
                })
            }
            [first, rest @ ..] => {
                // The statements of the first logical line, then the next one, if any.
                let mut last_on_line = first;
                for next in rest {
                    let gap = &text[last_on_line.span.end as usize..next.span.start as usize];
                    if gap.replace("\\\r\n", "").replace("\\\n", "").contains('\n') {
                        return Err(more_than_one(text, first, last_on_line, next));
                    }
                    last_on_line = next;
                }
                Ok(())
            }
        },
        StartSymbol::File => Ok(()),
    }
}

/// What an `eval` input starting with a statement's keyword gets, before it is parsed:
/// CPython's parser stops at that keyword ("invalid syntax"), however the rest goes on.
pub fn check_start(text: &str, start: StartSymbol) -> Result<(), Diagnostic> {
    if start != StartSymbol::Eval {
        return Ok(());
    }
    let begin = text.len() - text.trim_start_matches([' ', '\t', '\x0c']).len();
    let rest = &text[begin..];
    let word = &rest[..rest
        .find(|c: char| !is_ident_continue(c))
        .unwrap_or(rest.len())];
    const KEYWORDS: &[&str] = &[
        "if", "while", "for", "try", "with", "def", "class", "async", "import", "from", "return",
        "raise", "del", "pass", "break", "continue", "global", "nonlocal", "assert",
    ];
    let length = match word {
        "" if rest.starts_with('@') => 1,
        word if KEYWORDS.contains(&word) => word.len(),
        _ => return Ok(()),
    };
    Err(Diagnostic::syntax_error(
        "invalid syntax",
        Span::new(begin, begin + length),
    ))
}

/// A `single` input holding more than its first logical line, `first` to `last_on_line`,
/// with `next` starting the next one. After a compound statement CPython's parser stops
/// at `next`'s first token ("invalid syntax"); after simple statements, at the NEWLINE
/// ending them, which starts at the comment if there is one ("multiple statements").
fn more_than_one(text: &str, first: &Stmt, last_on_line: &Stmt, next: &Stmt) -> Diagnostic {
    if first.is_compound() {
        let start = next.span.start as usize;
        let rest = &text[start..];
        let length = match rest.chars().next() {
            Some(c) if is_ident_start(c) || c.is_ascii_digit() => rest
                .find(|c: char| !is_ident_continue(c))
                .unwrap_or(rest.len()),
            Some(c) => c.len_utf8(),
            None => 0,
        };
        return Diagnostic::syntax_error("invalid syntax", Span::new(start, start + length));
    }
    let after = last_on_line.span.end as usize;
    let newline = text[after..].find('\n').map_or(text.len(), |i| after + i);
    let start = after
        + text[after..newline]
            .find(|c| !matches!(c, ' ' | '\t' | ';' | '\r'))
            .unwrap_or(newline - after);
    Diagnostic::syntax_error(
        "multiple statements found while compiling a single statement",
        Span::new(start, (newline + 1).min(text.len())),
    )
}
