//! `from __future__ import …`: the statements that change how the rest of a file compiles
//! (CPython's `Python/future.c`). They must come first, after the docstring only; the one
//! feature that changes anything in 3.13 is `annotations`, which keeps annotations as the
//! text they were written in instead of evaluating them. The others were made the
//! default long ago and are accepted as no-ops. The statement still runs as an import too:
//! it binds the feature's `_Feature` record from the `__future__` module.

use crate::syntax::ast::Span;
use crate::syntax::ast::{Constant, ExprKind, Module, Stmt, StmtKind};

use super::error::CompileError;

/// The features a module turned on, and where its future statements end.
#[derive(Clone, Copy, Debug, Default)]
pub struct Features {
    /// `annotations`: annotations are stored as strings and never evaluated.
    pub annotations: bool,
    /// Where the last allowed future statement starts; one found after it is an error.
    last_allowed: Option<usize>,
}

impl Features {
    /// Checks a `from __future__ import …` met anywhere while compiling: only those at the
    /// top of the file are allowed.
    pub fn check_placement(&self, span: Span) -> Result<(), CompileError> {
        match self.last_allowed {
            Some(last) if span.start as usize <= last => Ok(()),
            _ => Err(CompileError::new(
                "from __future__ imports must occur at the beginning of the file",
                span,
            )),
        }
    }
}

/// Every feature `__future__` defines; all but `annotations` are always on in 3.13.
const KNOWN: [&str; 10] = [
    "nested_scopes",
    "generators",
    "division",
    "absolute_import",
    "with_statement",
    "print_function",
    "unicode_literals",
    "barry_as_FLUFL",
    "generator_stop",
    "annotations",
];

/// Reads the future statements at the top of `module`.
pub fn features(module: &Module) -> Result<Features, CompileError> {
    let mut features = Features::default();
    let mut body = module.body.iter().peekable();
    body.next_if(|stmt| is_docstring(stmt));
    for stmt in body {
        let StmtKind::ImportFrom {
            module: Some(from),
            names,
            level: 0,
        } = &stmt.kind
        else {
            break;
        };
        if from.name != "__future__" {
            break;
        }
        for alias in names {
            match alias.name.name.as_str() {
                "annotations" => features.annotations = true,
                "braces" => return Err(CompileError::new("not a chance", stmt.span)),
                name if KNOWN.contains(&name) => {}
                name => {
                    return Err(CompileError::new(
                        format!("future feature {name} is not defined"),
                        stmt.span,
                    ));
                }
            }
        }
        features.last_allowed = Some(stmt.span.start as usize);
    }
    Ok(features)
}

fn is_docstring(stmt: &Stmt) -> bool {
    matches!(&stmt.kind, StmtKind::Expr(e) if matches!(e.kind, ExprKind::Constant(Constant::Str(_))))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::parse_module;

    fn read(source: &str) -> Result<Features, String> {
        features(&parse_module(source).unwrap()).map_err(|e| e.message)
    }

    #[test]
    fn future_statements_come_first_after_the_docstring() {
        let f = read("'''doc'''\nfrom __future__ import annotations\nx = 1\n").unwrap();
        assert!(f.annotations);
        let f = read("x = 1\nfrom __future__ import annotations\n").unwrap();
        assert!(!f.annotations);
        assert!(f.check_placement(Span::new(6, 40)).is_err());
        let f = read("'a'\n'b'\nfrom __future__ import annotations\n").unwrap();
        assert!(
            !f.annotations,
            "a second string ends the docstring position"
        );
        let f = read("from __future__ import division, generator_stop\n").unwrap();
        assert!(!f.annotations);
        assert!(f.check_placement(Span::new(0, 10)).is_ok());
    }

    #[test]
    fn unknown_features_are_errors() {
        assert_eq!(
            read("from __future__ import spam\n").unwrap_err(),
            "future feature spam is not defined"
        );
        assert_eq!(
            read("from __future__ import braces\n").unwrap_err(),
            "not a chance"
        );
    }
}
