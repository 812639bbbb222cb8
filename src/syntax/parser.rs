//! The parser driver: tokens through the lalrpop grammar, lalrpop errors into CPython's words.
//!
//! In: source text. Out: [`ast::Module`] (or one expression, for f-string fields) or a
//! [`SyntaxError`]. Before parsing, the token list gets the two looks ahead an LR(1) grammar
//! cannot take (parenthesised `with` items, `match`/`type` soft-keyword statements). Mirrors
//! CPython's `Parser/pegen_errors.c` and the `invalid_*` rules of `Grammar/python.gram`.
//! The grammar's helpers live in [`helpers`]; nothing here knows the compiler or the VM.

use lalrpop_util::ParseError;

use super::ast::{self, Span};
use super::error::{SyntaxError, SyntaxErrorKind};
use super::indent::{Layout, Mode, Spanned};
use super::lexer::{char_end, line_of};
use super::token::Tok;

pub mod helpers;
pub mod patterns;
mod soft_keywords;

use helpers::Top;

lalrpop_util::lalrpop_mod!(
    #[allow(clippy::all, clippy::pedantic, unused)]
    grammar,
    "/apy.rs"
);

/// Deepest expression nesting accepted. CPython parses and compiles a chain of 5,000
/// operators but not one of 10,000.
const MAX_EXPR_DEPTH: usize = 6000;

/// Longest `elif` chain accepted (see [`check_elif_chains`]).
const MAX_ELIF_DEPTH: usize = 5000;

/// Parses a whole module.
pub fn parse_module(src: &str) -> Result<ast::Module, SyntaxError> {
    if src.len() > u32::MAX as usize / 2 {
        return Err(SyntaxError::invalid("source too large", Span::new(0, 0)));
    }
    // A UTF-8 byte order mark is skipped, as CPython does.
    let start = if src.starts_with('\u{FEFF}') { 3 } else { 0 };
    match parse(src, Span::new(start, src.len()), Mode::Module)? {
        Top::Module(body) => Ok(ast::Module { body }),
        Top::Expr(expr) => Err(SyntaxError::invalid("invalid syntax", expr.span)),
    }
}

/// Parses the expression of an f-string replacement field, `src[range]`.
pub fn parse_field_expression(src: &str, range: Span) -> Result<ast::Expr, SyntaxError> {
    match parse(src, range, Mode::Expression).map_err(field_error)? {
        Top::Expr(expr) => Ok(expr),
        Top::Module(_) => Err(SyntaxError::invalid("f-string: invalid syntax", range)),
    }
}

/// Tokenizes and parses `src[range]`. The tokens move into the parser; only when it fails
/// are they made again, to explain the failure.
fn parse(src: &str, range: Span, mode: Mode) -> Result<Top, SyntaxError> {
    let (tokens, lex_error) = tokenize(src, range, mode);
    let failure = match check_nesting(&tokens).or_else(|| check_elif_chains(&tokens)) {
        Some(error) => Failure::Error(error),
        None => match grammar::TopParser::new().parse(src, tokens.into_iter().map(Ok)) {
            Ok(top) => return lex_error.map_or(Ok(top), Err),
            Err(error) => Failure::Parse(error),
        },
    };
    let (tokens, _) = tokenize(src, range, mode);
    Err(choose(src, &tokens, failure, lex_error))
}

/// Errors inside a replacement field are never "incomplete": the field is closed.
fn field_error(mut error: SyntaxError) -> SyntaxError {
    if error.is_incomplete() {
        error.kind = SyntaxErrorKind::Invalid;
    }
    if error.message == "invalid syntax" {
        error.message = "f-string: invalid syntax".to_string();
    }
    error
}

/// All tokens of `src[range]` led by the entry marker, and the lexical error that stopped
/// them early, if any (the parser still runs over the tokens before it: an earlier syntax
/// error wins, as in CPython, whose parser pulls tokens lazily).
fn tokenize(src: &str, range: Span, mode: Mode) -> (Vec<Spanned>, Option<SyntaxError>) {
    let lead = match mode {
        Mode::Module => Tok::StartModule,
        Mode::Expression => Tok::StartExpr,
    };
    let start = range.start as usize;
    // Room for about one token per 3 bytes, if the allocator has it: a reservation that
    // big for a huge source could fail where the tokens themselves fit.
    let mut tokens = Vec::new();
    let _ = crate::common::memory::fallible(|| tokens.try_reserve(range.range().len() / 3));
    tokens.push((start, lead, start));
    let mut lex_error = None;
    for item in Layout::over_range(src, range, mode) {
        match item {
            Ok(token) => tokens.push(token),
            Err(error) => {
                lex_error = Some(error);
                break;
            }
        }
    }
    mark_parenthesized_with_items(&mut tokens);
    soft_keywords::mark_match_statements(&mut tokens);
    soft_keywords::mark_type_aliases(&mut tokens);
    (tokens, lex_error)
}

/// Why the grammar stopped: a lalrpop error, or an error found before parsing.
enum Failure {
    Parse(ParseError<usize, Tok, SyntaxError>),
    Error(SyntaxError),
}

/// Picks the error CPython would report: the parser's or a tokenizer error.
fn choose(
    src: &str,
    tokens: &[Spanned],
    failure: Failure,
    lex_error: Option<SyntaxError>,
) -> SyntaxError {
    let at_eof = matches!(failure, Failure::Parse(ParseError::UnrecognizedEof { .. }));
    // The token the parser stopped at, where it stopped at one, and whether CPython's
    // parser reads an expression from there (looking at the token after it).
    let failed_at = match &failure {
        Failure::Parse(ParseError::UnrecognizedToken { token, .. }) => {
            Some((token.0, token.2, starts_operand(&token.1)))
        }
        _ => None,
    };
    let mut parse_error = match failure {
        Failure::Parse(error) => explain(src, error, tokens),
        Failure::Error(error) => error,
    };
    // An error at a layout token (a NEWLINE sits where its line's last token ends) covers
    // one character, as CPython's caret does.
    if parse_error.span.start == parse_error.span.end {
        let start = parse_error.span.start as usize;
        parse_error.span = Span::new(start, char_end(src, start));
    }
    // CPython tokenizes the whole source after a syntax error and reports a tokenizer error
    // found anywhere instead (`_PyPegen_tokenize_full_source_to_check_for_errors`); a
    // bracket left open at the end wins only over errors inside it. apy's own "unsupported"
    // errors are no tokenizer errors: the earlier error wins.
    match lex_error {
        Some(lex_error) if lex_error.kind == SyntaxErrorKind::Unsupported => {
            if at_eof || lex_error.span.start <= parse_error.span.start {
                lex_error
            } else {
                parse_error
            }
        }
        Some(lex_error) if lex_error.message.ends_with("was never closed") => {
            // CPython reports the open bracket when its parser reads on to the end of the
            // input, or stops on a later line than the bracket's; it keeps its own error for
            // a token on the bracket's line with more after it (`def f(:` is "invalid
            // syntax"). It reads on past an operand where lalrpop stopped (`print(1 2`).
            let line = |offset: usize| {
                let offset = offset.min(src.len());
                src.as_bytes()[..offset]
                    .iter()
                    .filter(|&&b| b == b'\n')
                    .count()
            };
            let stopped = failed_at.unwrap_or((
                parse_error.span.start as usize,
                parse_error.span.end as usize,
                false,
            ));
            let tokens_follow = tokens.iter().any(|t| {
                t.0 >= stopped.1 && !matches!(t.1, Tok::Newline | Tok::Indent | Tok::Dedent)
            });
            let reads_to_end = stopped.2 && !tokens_follow;
            if at_eof {
                lex_error
            } else if reads_to_end || line(lex_error.span.start as usize) < line(stopped.0) {
                // The parser failed before the end: no more input can close the bracket
                // into valid code (`print(1 2`), so the REPL reports it at once.
                SyntaxError {
                    kind: SyntaxErrorKind::Invalid,
                    ..lex_error
                }
            } else {
                parse_error
            }
        }
        Some(lex_error) => lex_error,
        None => parse_error,
    }
}

/// Turns a lalrpop error into CPython's message.
fn explain(
    src: &str,
    error: ParseError<usize, Tok, SyntaxError>,
    tokens: &[Spanned],
) -> SyntaxError {
    let expects = |expected: &[String], what: &str| expected.iter().any(|e| e == what);
    match error {
        ParseError::User { error } => starred_assignment_target(tokens, error),
        ParseError::InvalidToken { location } => {
            SyntaxError::invalid("invalid syntax", Span::new(location, location))
        }
        ParseError::ExtraToken { token: (l, _, r) } => {
            SyntaxError::invalid("invalid syntax", Span::new(l, r))
        }
        ParseError::UnrecognizedEof { location, expected } => {
            explain_eof(src, tokens, tokens.len(), &expected, location)
        }
        ParseError::UnrecognizedToken {
            token: (l, tok, r),
            expected,
        } => {
            let span = Span::new(l, r);
            let index = tokens
                .iter()
                .position(|t| t.0 == l && t.2 == r && t.1 == tok)
                .unwrap_or(tokens.len());
            if tokens[index..].iter().all(|t| t.1 == Tok::Dedent) {
                // Only the DEDENTs flushed at end of input are left: the input ended early.
                explain_eof(src, tokens, index, &expected, l)
            } else if tok == Tok::Indent {
                SyntaxError::new(SyntaxErrorKind::Indentation, "unexpected indent", span)
            } else if expects(&expected, "Indent") {
                SyntaxError::new(
                    SyntaxErrorKind::Indentation,
                    expected_block(src, tokens, index),
                    span,
                )
            } else if expects(&expected, "\"except\"") && expects(&expected, "\"finally\"") {
                SyntaxError::invalid("expected 'except' or 'finally' block", span)
            } else if tok == Tok::Newline
                && expects(&expected, "\":\"")
                && starts_block_header(&tokens[line_start(tokens, index)].1)
            {
                SyntaxError::invalid("expected ':'", span)
            } else if expects(&expected, "\"else\"")
                // CPython's rule is `disjunction 'if' disjunction !('else'|':')`: before a
                // `:` (`for x in y if z:`) it is plain "invalid syntax".
                && tok != Tok::Colon
                && let Some(start) = open_if_expression(tokens, index)
            {
                SyntaxError::invalid(
                    "expected 'else' after 'if' expression",
                    Span::new(start, tokens[index.saturating_sub(1)].2),
                )
            } else if let Some(error) = explain_invalid(tokens, index, &expected) {
                error
            } else {
                SyntaxError::invalid("invalid syntax", span)
            }
        }
    }
}

/// CPython's more helpful "invalid syntax" variants (`invalid_*` rules of the grammar) for
/// the unexpected token at `index`.
fn explain_invalid(tokens: &[Spanned], index: usize, expected: &[String]) -> Option<SyntaxError> {
    let (l, tok, r) = &tokens[index];
    let span = Span::new(*l, *r);
    let previous = index.checked_sub(1).map(|i| &tokens[i]);
    let start = line_start(tokens, index);
    let open = open_brackets(tokens, start, index);
    let innermost = open.last().map(|&i| &tokens[i].1);
    // `def f(x y)`: a parameter list is no expression, CPython suggests no comma there.
    let in_parameters = open
        .last()
        .is_some_and(|&i| i >= 2 && tokens[i - 2].1 == Tok::Def);
    // After a `def` name: `(`, or a type parameter list's `[` (CPython names only `(`).
    let after_def_name = match expected {
        [one] => one == "\"(\"",
        [a, b] => a == "\"(\"" && b == "\"[\"",
        _ => false,
    };
    if after_def_name {
        return Some(SyntaxError::invalid("expected '('", span));
    }
    if let Some(error) = comprehension_target_without_parentheses(tokens, &open, index) {
        return Some(error);
    }
    let (p_start, p_tok, p_end) = previous?;
    let line_end = tokens[index..]
        .iter()
        .find(|t| t.1 == Tok::Newline)
        .map_or(*r, |t| t.0);
    match (p_tok, tok) {
        // `else if x:`, `try except:`: the block's `:` is what must come (`&&':'`).
        (Tok::Else | Tok::Try | Tok::Finally, _) if expected.iter().any(|e| e == "\":\"") => {
            Some(SyntaxError::invalid("expected ':'", span))
        }
        // `def f(x) -> :`: the annotation is optional, so the `:` was due at the arrow.
        (Tok::RArrow, Tok::Colon) => Some(SyntaxError::invalid(
            "expected ':'",
            Span::new(*p_start, *p_end),
        )),
        (_, Tok::From) if tokens[start].1 == Tok::Import => Some(SyntaxError::invalid(
            "Did you mean to use 'from ... import ...' instead?",
            Span::new(tokens[start].0, line_end),
        )),
        (Tok::Yield, Tok::Equal) if index - 1 == start => Some(SyntaxError::invalid(
            "assignment to yield expression not possible",
            Span::new(*p_start, *p_end),
        )),
        // `x = = 3`: CPython has no better guess than its first `=`.
        (Tok::Name(_), Tok::Equal) if tokens.get(index + 1).is_some_and(|t| t.1 == Tok::Equal) => {
            Some(SyntaxError::invalid("invalid syntax", span))
        }
        (Tok::Comma, Tok::Newline) if innermost.is_none() && tokens[start].1 == Tok::From => {
            Some(SyntaxError::invalid(
                "trailing comma not allowed without surrounding parentheses",
                span,
            ))
        }
        (Tok::Star, Tok::RPar | Tok::RSqb | Tok::RBrace | Tok::Comma) if innermost.is_some() => {
            Some(SyntaxError::invalid("Invalid star expression", span))
        }
        (_, Tok::Comma | Tok::RBrace | Tok::For)
            if innermost == Some(&Tok::LBrace) && expected.iter().any(|e| e == "\":\"") =>
        {
            Some(SyntaxError::invalid(
                "':' expected after dictionary key",
                Span::new(*p_start, *p_end),
            ))
        }
        (Tok::Import, Tok::Newline) => Some(SyntaxError::invalid(
            "Expected one or more names after 'import'",
            span,
        )),
        (Tok::Name(name), _) if name == "print" && index - 1 == start && starts_operand(tok) => {
            Some(SyntaxError::invalid(
                "Missing parentheses in call to 'print'. Did you mean print(...)?",
                Span::new(*p_start, line_end),
            ))
        }
        (Tok::Equal, Tok::RPar | Tok::Comma) if innermost == Some(&Tok::LPar) => {
            Some(SyntaxError::invalid(
                "expected argument value expression",
                Span::new(*p_start, *r),
            ))
        }
        (_, Tok::Equal) if innermost == Some(&Tok::LPar) && *p_tok != Tok::Equal => {
            Some(SyntaxError::invalid(
                "expression cannot contain assignment, perhaps you meant \"==\"?",
                Span::new(*p_start, *r),
            ))
        }
        (Tok::Name(_) | Tok::RSqb, Tok::ColonEqual) => {
            let what = if *p_tok == Tok::RSqb {
                "subscript"
            } else if index >= 2 && tokens[index - 2].1 == Tok::Dot {
                "attribute"
            } else {
                return None;
            };
            let target_start = start
                + 1
                + tokens[start + 1..index]
                    .iter()
                    .rposition(|t| matches!(t.1, Tok::LPar | Tok::Comma | Tok::LSqb))
                    .unwrap_or(0);
            Some(SyntaxError::invalid(
                format!("cannot use assignment expressions with {what}"),
                Span::new(tokens[target_start.min(index - 1)].0, *p_end),
            ))
        }
        (Tok::Name(_), Tok::Equal) => Some(SyntaxError::invalid(
            "invalid syntax. Maybe you meant '==' or ':=' instead of '='?",
            Span::new(*p_start, tokens.get(index + 1).map_or(*r, |t| t.2.max(*r))),
        )),
        _ if innermost.is_some()
            && !in_parameters
            && ends_operand(p_tok)
            && starts_operand(tok) =>
        {
            Some(SyntaxError::invalid(
                "invalid syntax. Perhaps you forgot a comma?",
                Span::new(*p_start, *r.max(p_end)),
            ))
        }
        _ => None,
    }
}

/// A bare `*a` before `=` is an assignment target, which CPython's `invalid_assignment`
/// words so; elsewhere the grammar's own error stands.
fn starred_assignment_target(tokens: &[Spanned], error: SyntaxError) -> SyntaxError {
    let before_equal = tokens
        .iter()
        .position(|t| t.0 >= error.span.end as usize)
        .is_some_and(|i| tokens[i].1 == Tok::Equal);
    if error.message == "can't use starred expression here" && before_equal {
        return SyntaxError::invalid(
            "starred assignment target must be in a list or tuple",
            error.span,
        );
    }
    error
}

/// `[x, x**2 for x in ...]` (`invalid_comprehension`): a `for` after a comma-separated list
/// right inside `[` or `{` (not a dict display) is a tuple target that lacks its
/// parentheses; CPython underlines the elements.
fn comprehension_target_without_parentheses(
    tokens: &[Spanned],
    open: &[usize],
    index: usize,
) -> Option<SyntaxError> {
    let bracket = *open.last()?;
    let is_for = match &tokens[index].1 {
        Tok::For => true,
        Tok::Async => tokens.get(index + 1).is_some_and(|t| t.1 == Tok::For),
        _ => false,
    };
    if !is_for || !matches!(tokens[bracket].1, Tok::LSqb | Tok::LBrace) || index < bracket + 3 {
        return None;
    }
    let mut depth = 0usize;
    let mut comma = false;
    for (_, tok, _) in &tokens[bracket + 1..index] {
        match tok {
            Tok::LPar | Tok::LSqb | Tok::LBrace => depth += 1,
            Tok::RPar | Tok::RSqb | Tok::RBrace => depth = depth.saturating_sub(1),
            Tok::Comma if depth == 0 => comma = true,
            Tok::Colon if depth == 0 && tokens[bracket].1 == Tok::LBrace => return None,
            _ => {}
        }
    }
    comma.then(|| {
        SyntaxError::invalid(
            "did you forget parentheses around the comprehension target?",
            Span::new(tokens[bracket + 1].0, tokens[index - 1].2),
        )
    })
}

/// The brackets still open after `tokens` (one logical line's worth).
/// True for the first token of a compound statement's header (`if`, `def`, `async`…).
fn starts_block_header(tok: &Tok) -> bool {
    matches!(tok, Tok::Def | Tok::Class | Tok::Async) || keyword_text(tok).is_some()
}

/// Indices of the brackets still open just before `tokens[index]`, from `tokens[start]` on.
fn open_brackets(tokens: &[Spanned], start: usize, index: usize) -> Vec<usize> {
    let mut open = Vec::new();
    for (i, (_, tok, _)) in tokens.iter().enumerate().take(index).skip(start) {
        match tok {
            Tok::LPar | Tok::LSqb | Tok::LBrace => open.push(i),
            Tok::RPar | Tok::RSqb | Tok::RBrace => {
                open.pop();
            }
            _ => {}
        }
    }
    open
}

/// True when `tok` can begin an operand (so two operands in a row lack an operator or comma).
fn starts_operand(tok: &Tok) -> bool {
    matches!(
        tok,
        Tok::Name(_)
            | Tok::Int(_)
            | Tok::Float(_)
            | Tok::Imaginary(_)
            | Tok::Str(_)
            | Tok::LPar
            | Tok::LSqb
            | Tok::LBrace
            | Tok::True
            | Tok::False
            | Tok::None
            | Tok::Ellipsis
            | Tok::Lambda
            | Tok::Await
            | Tok::Tilde
    )
}

/// The input ended (before token `index`) where `expected` tokens could still come: more
/// lines could complete it (the REPL reads on).
fn explain_eof(
    src: &str,
    tokens: &[Spanned],
    index: usize,
    expected: &[String],
    location: usize,
) -> SyntaxError {
    let span = Span::new(location, location);
    let expects = |what: &str| expected.iter().any(|e| e == what);
    if expects("Indent") {
        let message = expected_block(src, tokens, index);
        SyntaxError::new(SyntaxErrorKind::IncompleteBlock, message, span)
    } else if expects("\"except\"") && expects("\"finally\"") {
        SyntaxError::new(
            SyntaxErrorKind::Incomplete,
            "expected 'except' or 'finally' block",
            span,
        )
    } else {
        SyntaxError::new(SyntaxErrorKind::Incomplete, "invalid syntax", span)
    }
}

/// Index of the first token of the logical line holding token `index`.
fn line_start(tokens: &[Spanned], index: usize) -> usize {
    tokens[..index.min(tokens.len())]
        .iter()
        .rposition(|t| {
            matches!(
                t.1,
                Tok::Newline | Tok::Indent | Tok::Dedent | Tok::StartModule | Tok::StartExpr
            )
        })
        .map_or(0, |i| i + 1)
}

/// "expected an indented block after 'if' statement on line 1": names the block header
/// that ends just before token `index` (with its `:` and NEWLINE).
fn expected_block(src: &str, tokens: &[Spanned], index: usize) -> String {
    let newline = index.saturating_sub(1);
    let start = line_start(tokens, newline);
    let Some(&(pos, ref first, _)) = tokens.get(start) else {
        return "expected an indented block".to_string();
    };
    let second = tokens.get(start + 1).map(|t| &t.1);
    let what = match (first, second) {
        (Tok::Def, _) | (Tok::Async, Some(Tok::Def)) => "function definition".to_string(),
        (Tok::Class, _) => "class definition".to_string(),
        (Tok::Async, Some(Tok::For)) => "'for' statement".to_string(),
        (Tok::Async, Some(Tok::With)) => "'with' statement".to_string(),
        (Tok::Except, Some(Tok::Star)) => "'except*' statement".to_string(),
        (tok, _) => match keyword_text(tok) {
            Some(word) => format!("'{word}' statement"),
            None => return "expected an indented block".to_string(),
        },
    };
    let src_line = line_of(src, pos);
    format!("expected an indented block after {what} on line {src_line}")
}

fn keyword_text(tok: &Tok) -> Option<&'static str> {
    Some(match tok {
        Tok::If => "if",
        Tok::Elif => "elif",
        Tok::Else => "else",
        Tok::While => "while",
        Tok::For => "for",
        Tok::Try => "try",
        Tok::Except => "except",
        Tok::Finally => "finally",
        Tok::With => "with",
        Tok::Match => "match",
        Tok::Case => "case",
        Tok::TypeAlias => "type",
        _ => return None,
    })
}

/// The start of an `if` inside an expression on this logical line (`x = 1 if 2`), if any.
fn open_if_expression(tokens: &[Spanned], index: usize) -> Option<usize> {
    let start = line_start(tokens, index);
    tokens[start..index]
        .iter()
        .enumerate()
        .rev()
        .find(|(i, t)| t.1 == Tok::If && *i > 0)
        .and_then(|(i, _)| tokens.get(start + i - 1).map(|t| t.0))
}

/// `with (a as b, c):` — LR(1) cannot tell these parentheses from a parenthesised
/// expression, so mark them when the `)` is followed by `:` and a top-level `,` or `as`
/// sits inside (CPython tries the item-list reading first, too).
fn mark_parenthesized_with_items(tokens: &mut [Spanned]) {
    for i in 0..tokens.len() {
        if tokens[i].1 != Tok::With || tokens.get(i + 1).map(|t| &t.1) != Some(&Tok::LPar) {
            continue;
        }
        let mut depth = 0usize;
        let mut items = false;
        for j in i + 1..tokens.len() {
            match tokens[j].1 {
                Tok::LPar | Tok::LSqb | Tok::LBrace => depth += 1,
                Tok::RPar | Tok::RSqb | Tok::RBrace => depth -= 1,
                Tok::Comma | Tok::As if depth == 1 => items = true,
                _ => {}
            }
            if depth == 0 {
                if items && tokens.get(j + 1).map(|t| &t.1) == Some(&Tok::Colon) {
                    tokens[i + 1].1 = Tok::WithLPar;
                    tokens[j].1 = Tok::WithRPar;
                }
                break;
            }
        }
    }
}

/// Rejects statements whose expression trees would nest deeper than [`MAX_EXPR_DEPTH`].
///
/// The depth is bounded from the tokens: within one comma-separated item, every operator,
/// keyword operator and trailer may add a level, and an item's brackets add the deepest of
/// their own items. CPython gives up at a similar depth ("too complex to parse", or a
/// RecursionError while compiling); apy must never overflow its stack instead.
fn check_nesting(tokens: &[Spanned]) -> Option<SyntaxError> {
    /// One bracket level: levels added by the current item so far, and the deepest item.
    #[derive(Default)]
    struct Level {
        item: usize,
        deepest: usize,
    }
    let mut levels = vec![Level::default()];
    for (start, tok, end) in tokens {
        let top = levels.len() - 1;
        match tok {
            Tok::LPar | Tok::LSqb | Tok::LBrace => levels.push(Level::default()),
            Tok::RPar | Tok::RSqb | Tok::RBrace if top > 0 => {
                let closed = levels.pop().unwrap_or_default();
                let inner = closed.item.max(closed.deepest) + 1;
                levels[top - 1].item += inner;
            }
            Tok::Comma | Tok::Newline | Tok::Semi => {
                let level = &mut levels[top];
                level.deepest = level.deepest.max(level.item);
                level.item = 0;
            }
            Tok::Name(_) | Tok::Int(_) | Tok::Float(_) | Tok::Imaginary(_) | Tok::Str(_) => {}
            Tok::Indent | Tok::Dedent | Tok::StartModule | Tok::StartExpr => {}
            _ => levels[top].item += 1,
        }
        if levels[levels.len() - 1].item > MAX_EXPR_DEPTH {
            return Some(SyntaxError::invalid(
                "expression nested too deeply: source too complex to parse",
                Span::new(*start, *end),
            ));
        }
    }
    None
}

/// Each `elif` nests an `If` in the `orelse` of the one before: a chain of thousands is a
/// tree that deep. CPython parses 5,000 but not 20,000; apy stops at [`MAX_ELIF_DEPTH`]
/// (counting chains nested inside chains together).
fn check_elif_chains(tokens: &[Spanned]) -> Option<SyntaxError> {
    // Length of the current chain at each indentation level.
    let mut chains = vec![0usize];
    let mut total = 0usize;
    let mut at_statement_start = true;
    for (start, tok, end) in tokens {
        match tok {
            Tok::Indent => chains.push(0),
            Tok::Dedent => total -= chains.pop().unwrap_or(0),
            Tok::If | Tok::Elif if at_statement_start => {
                let chain = chains.last_mut()?;
                if *tok == Tok::If {
                    total -= *chain;
                    *chain = 0;
                } else {
                    *chain += 1;
                    total += 1;
                }
                if total > MAX_ELIF_DEPTH {
                    return Some(SyntaxError::invalid(
                        "too many nested 'elif' clauses: source too complex to parse",
                        Span::new(*start, *end),
                    ));
                }
            }
            _ => {}
        }
        at_statement_start = matches!(
            tok,
            Tok::Newline | Tok::Indent | Tok::Dedent | Tok::StartModule
        );
    }
    None
}

/// True when `tok` can end an operand, so a following `-` is binary.
fn ends_operand(tok: &Tok) -> bool {
    matches!(
        tok,
        Tok::Name(_)
            | Tok::Int(_)
            | Tok::Float(_)
            | Tok::Imaginary(_)
            | Tok::Str(_)
            | Tok::RPar
            | Tok::RSqb
            | Tok::RBrace
            | Tok::True
            | Tok::False
            | Tok::None
            | Tok::Ellipsis
    )
}

#[cfg(test)]
mod tests;
