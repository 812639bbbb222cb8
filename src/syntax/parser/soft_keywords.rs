//! The soft keywords `match` and `case` (PEP 634): names everywhere but where CPython's
//! grammar takes them as keywords. CPython's PEG parser tries the `match` statement first
//! and backtracks; an LR(1) grammar cannot, so this pass over the token list decides
//! beforehand and turns those names into [`Tok::Match`] and [`Tok::Case`].
//!
//! `match` is a keyword at the start of a statement whose logical line ends in `:` (with
//! something between), or is followed by an indented `case`: so `match = 1`, `match(x)`
//! and `match.group()` stay names, and `match x` with a forgotten `:` still reads as a
//! `match` statement ("expected ':'"). `case` is a keyword at the start of each statement
//! directly inside that statement's block.
//!
//! `type` (PEP 695) is a keyword at the start of a simple statement followed by a name and
//! `=` or `[`: `type X = int`, `type L[T] = list[T]`; `type = 5` and `type(x)` stay names.

use crate::syntax::indent::Spanned;
use crate::syntax::token::Tok;

fn is_name(tok: &Tok, word: &str) -> bool {
    matches!(tok, Tok::Name(name) if name == word)
}

/// True when `tokens[i]` starts a statement that may be a compound statement.
fn at_statement_start(tokens: &[Spanned], i: usize) -> bool {
    i > 0
        && matches!(
            tokens[i - 1].1,
            Tok::Newline | Tok::Indent | Tok::Dedent | Tok::StartModule
        )
}

/// Marks every `match` statement's `match` and `case` keywords in `tokens`.
pub fn mark_match_statements(tokens: &mut [Spanned]) {
    for i in 0..tokens.len() {
        if !is_name(&tokens[i].1, "match") || !at_statement_start(tokens, i) {
            continue;
        }
        // Newlines inside brackets are gone already: the next one ends the logical line.
        let Some(newline) = tokens[i..].iter().position(|t| t.1 == Tok::Newline) else {
            continue;
        };
        let newline = i + newline;
        let colon = newline > i + 2 && tokens[newline - 1].1 == Tok::Colon;
        let block = tokens.get(newline + 1).is_some_and(|t| t.1 == Tok::Indent);
        let case_follows = block
            && tokens
                .get(newline + 2)
                .is_some_and(|t| is_name(&t.1, "case"));
        if newline == i + 1 || !(colon || case_follows) {
            continue;
        }
        tokens[i].1 = Tok::Match;
        if block {
            mark_cases(tokens, newline + 2);
        }
    }
}

/// Marks the `type` of every `type X = …` statement.
pub fn mark_type_aliases(tokens: &mut [Spanned]) {
    for i in 1..tokens.len() {
        let starts_simple_statement =
            at_statement_start(tokens, i) || matches!(tokens[i - 1].1, Tok::Semi | Tok::Colon);
        if is_name(&tokens[i].1, "type")
            && starts_simple_statement
            && matches!(tokens.get(i + 1).map(|t| &t.1), Some(Tok::Name(_)))
            && matches!(
                tokens.get(i + 2).map(|t| &t.1),
                Some(Tok::Equal | Tok::LSqb)
            )
        {
            tokens[i].1 = Tok::TypeAlias;
        }
    }
}

/// Marks `case` at the statement starts of the block that begins at `tokens[start]`.
fn mark_cases(tokens: &mut [Spanned], start: usize) {
    let mut depth = 0usize;
    let mut statement_start = true;
    for (_, tok, _) in &mut tokens[start..] {
        match tok {
            Tok::Indent => depth += 1,
            Tok::Dedent if depth == 0 => return,
            Tok::Dedent => depth -= 1,
            Tok::Newline => {}
            _ => {
                if statement_start && depth == 0 && is_name(tok, "case") {
                    *tok = Tok::Case;
                }
            }
        }
        statement_start = matches!(tok, Tok::Newline | Tok::Dedent);
    }
}

#[cfg(test)]
mod tests {
    use super::super::tokenize;
    use crate::syntax::ast::Span;
    use crate::syntax::indent::Mode;
    use crate::syntax::token::Tok;

    /// The source's tokens, soft keywords shown as `MATCH`/`CASE`, names as themselves.
    fn marked(src: &str) -> Vec<String> {
        let (tokens, _) = tokenize(src, Span::new(0, src.len()), Mode::Module);
        tokens
            .iter()
            .filter_map(|t| match &t.1 {
                Tok::Match => Some("MATCH".to_string()),
                Tok::Case => Some("CASE".to_string()),
                Tok::Name(n) if n == "match" || n == "case" => Some(n.clone()),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn a_match_statement_marks_match_and_its_cases() {
        let src = "match x:\n    case 1:\n        pass\n    case _:\n        case = 2\n";
        assert_eq!(marked(src), ["MATCH", "CASE", "CASE", "case"]);
    }

    #[test]
    fn names_called_match_and_case_stay_names() {
        let src = "match = 1\nmatch(x)\nmatch.group()\ncase = [match]\nx = match\n";
        assert_eq!(
            marked(src),
            ["match", "match", "match", "case", "match", "match"]
        );
        assert_eq!(marked("match[1]: int\n"), ["match"]);
        assert_eq!(marked("if match:\n    case(1)\n"), ["match", "case"]);
    }

    #[test]
    fn a_parenthesised_subject_and_nested_matches() {
        let src = "match(x):\n    case 1:\n        match y:\n            case 2: pass\n    case 3: pass\n";
        assert_eq!(marked(src), ["MATCH", "CASE", "MATCH", "CASE", "CASE"]);
    }

    #[test]
    fn a_forgotten_colon_still_reads_as_match() {
        assert_eq!(marked("match x\n    case 1: pass\n"), ["MATCH", "CASE"]);
        assert_eq!(marked("match x\n    y = 1\n"), ["match"]);
    }
}
