//! The grammar's actions: build AST nodes and check what CPython checks while parsing.
//!
//! In: pieces the lalrpop rules matched. Out: [`ast`] nodes, or CPython's message for an
//! invalid target, parameter list or argument list (`Grammar/python.gram`'s `invalid_*`
//! rules, `Parser/action_helpers.c`). Each grammar action is one call into this module.
//!
//! Nonterminals whose values are large (statements, parameters, handlers…) are boxed while
//! on the parser's stack: every shift and reduce moves the stack's symbol enum, whose size
//! is that of its largest variant, so small symbols make parsing several times faster.

use lalrpop_util::ParseError;

use crate::syntax::ast::{
    self, Alias, BinOp, BoolOp, CmpOp, Constant, Expr, ExprKind, FStringPart, Ident, Keyword,
    Param, Parameters, Span, Stmt, StmtKind, UnaryOp,
};
use crate::syntax::error::SyntaxError;
use crate::syntax::fstring;
use crate::syntax::token::{StrToken, Tok};

/// What the grammar's single entry produced.
pub enum Top {
    Module(Vec<Stmt>),
    Expr(Expr),
}

pub type PResult<T> = Result<T, ParseError<usize, Tok, SyntaxError>>;

fn fail<T>(message: impl Into<String>, span: Span) -> PResult<T> {
    Err(ParseError::User {
        error: SyntaxError::invalid(message, span),
    })
}

/// One argument of a call or class header, before positional and keyword are split.
pub enum ArgItem {
    Positional(Expr),
    /// A bare generator expression `f(x for x in y)`: valid only as the sole argument.
    Generator(Expr),
    Keyword(Box<Keyword>),
}

/// One entry of a parameter list, before the order is checked.
pub enum ParamItem {
    /// A parameter, with its default already in place.
    Plain(Box<Param>),
    Slash(Span),
    Star(Span, Option<Box<Param>>),
    DoubleStar(Box<Param>),
}

/// An `except` clause and whether it was `except*`.
pub struct Handler {
    pub handler: ast::ExceptHandler,
    pub is_star: bool,
}

pub fn push<T>(mut v: Vec<T>, item: T) -> Vec<T> {
    v.push(item);
    v
}

pub fn push_front<T>(first: T, rest: Vec<T>) -> Vec<T> {
    let mut v = Vec::with_capacity(rest.len() + 1);
    v.push(first);
    v.extend(rest);
    v
}

pub fn push_opt<T>(mut v: Vec<T>, item: Option<T>) -> Vec<T> {
    v.extend(item);
    v
}

pub fn unbox<T>(v: Vec<Box<T>>) -> Vec<T> {
    v.into_iter().map(|b| *b).collect()
}

pub fn flatten(v: Vec<Vec<Stmt>>) -> Vec<Stmt> {
    v.into_iter().flatten().collect()
}

pub fn expr(l: usize, kind: ExprKind, r: usize) -> Expr {
    Expr {
        kind,
        span: Span::new(l, r),
    }
}

pub fn constant(l: usize, value: Constant, r: usize) -> Expr {
    expr(l, ExprKind::Constant(value), r)
}

pub fn stmt(l: usize, kind: StmtKind, r: usize) -> Box<Stmt> {
    Box::new(Stmt {
        kind,
        span: Span::new(l, r),
    })
}

pub fn bin(l: usize, left: Expr, op: BinOp, right: Expr, r: usize) -> Expr {
    expr(
        l,
        ExprKind::BinOp {
            left: Box::new(left),
            op,
            right: Box::new(right),
        },
        r,
    )
}

pub fn unary(l: usize, op: UnaryOp, operand: Expr, r: usize) -> Expr {
    expr(
        l,
        ExprKind::UnaryOp {
            op,
            operand: Box::new(operand),
        },
        r,
    )
}

pub fn bool_op(l: usize, op: BoolOp, first: Expr, rest: Vec<Expr>, r: usize) -> Expr {
    let mut values = vec![first];
    values.extend(rest);
    expr(l, ExprKind::BoolOp { op, values }, r)
}

pub fn compare(l: usize, left: Expr, rest: Vec<(CmpOp, Expr)>, r: usize) -> Expr {
    let (ops, comparators) = rest.into_iter().unzip();
    expr(
        l,
        ExprKind::Compare {
            left: Box::new(left),
            ops,
            comparators,
        },
        r,
    )
}

pub fn named(l: usize, target: Ident, value: Expr, r: usize) -> Expr {
    let target = expr(
        target.span.start as usize,
        ExprKind::Name(target.name),
        target.span.end as usize,
    );
    expr(
        l,
        ExprKind::NamedExpr {
            target: Box::new(target),
            value: Box::new(value),
        },
        r,
    )
}

pub fn slice(
    l: usize,
    lower: Option<Expr>,
    upper: Option<Expr>,
    step: Option<Option<Expr>>,
    r: usize,
) -> Expr {
    expr(
        l,
        ExprKind::Slice {
            lower: lower.map(Box::new),
            upper: upper.map(Box::new),
            step: step.flatten().map(Box::new),
        },
        r,
    )
}

pub fn dict(l: usize, entries: Vec<Box<(Option<Expr>, Expr)>>, r: usize) -> Expr {
    let (keys, values) = entries.into_iter().map(|entry| *entry).unzip();
    expr(l, ExprKind::Dict { keys, values }, r)
}

/// `a, b` is a tuple; `a` alone is itself, unless it is a bare `*a`.
pub fn tuple_or_single(l: usize, (items, trailing): (Vec<Expr>, bool), r: usize) -> PResult<Expr> {
    if items.len() == 1 && !trailing {
        let item = items.into_iter().next().expect("one item");
        if matches!(item.kind, ExprKind::Starred(_)) {
            return fail("can't use starred expression here", item.span);
        }
        return Ok(item);
    }
    Ok(expr(l, ExprKind::Tuple(items), r))
}

/// `(a)` is `a` (its span without the parentheses, as CPython's AST); `(a,)` a tuple.
pub fn parenthesized(l: usize, (items, trailing): (Vec<Expr>, bool), r: usize) -> PResult<Expr> {
    if items.len() == 1 && !trailing {
        let item = items.into_iter().next().expect("one item");
        if matches!(item.kind, ExprKind::Starred(_)) {
            return fail("cannot use starred expression here", item.span);
        }
        return Ok(item);
    }
    Ok(expr(l, ExprKind::Tuple(items), r))
}

/// `x[a]`, `x[a, b]`, `x[*a]` (a starred subscript is a one-element tuple).
pub fn subscript_list(l: usize, (items, trailing): (Vec<Expr>, bool), r: usize) -> Expr {
    if items.len() == 1 && !trailing && !matches!(items[0].kind, ExprKind::Starred(_)) {
        return items.into_iter().next().expect("one item");
    }
    expr(l, ExprKind::Tuple(items), r)
}

/// Adjacent string literals, concatenated; any f-string among them makes an f-string.
pub fn strings(
    src: &str,
    l: usize,
    pieces: Vec<(usize, StrToken, usize)>,
    r: usize,
) -> PResult<Expr> {
    let is_bytes = |p: &(usize, StrToken, usize)| matches!(p.1, StrToken::Bytes(_));
    if pieces.iter().any(is_bytes) {
        if let Some(other) = pieces.iter().find(|p| !is_bytes(p)) {
            return fail(
                "cannot mix bytes and nonbytes literals",
                Span::new(other.0, other.2),
            );
        }
        let mut value = Vec::new();
        for piece in pieces {
            if let StrToken::Bytes(bytes) = piece.1 {
                value.extend(bytes);
            }
        }
        return Ok(constant(l, Constant::Bytes(value), r));
    }
    if pieces.iter().all(|p| matches!(p.1, StrToken::Plain(_))) {
        let text: String = pieces
            .into_iter()
            .map(|p| match p.1 {
                StrToken::Plain(s) => s,
                StrToken::Bytes(_) | StrToken::Format(_) => String::new(),
            })
            .collect();
        return Ok(constant(l, Constant::Str(text), r));
    }
    let mut parts: Vec<FStringPart> = Vec::new();
    let mut parse = |span: Span| crate::syntax::parser::parse_field_expression(src, span);
    for (_, piece, _) in pieces {
        match piece {
            StrToken::Plain(text) => fstring::push_literal(&mut parts, &text),
            StrToken::Bytes(_) => {}
            StrToken::Format(token) => fstring::build_parts(&token.parts, &mut parse, &mut parts)
                .map_err(|error| ParseError::User { error })?,
        }
    }
    Ok(expr(l, ExprKind::FString(parts), r))
}

/// `[*a for a in b]`.
pub fn unpacking_in_comprehension<T>(starred: Expr) -> PResult<T> {
    fail(
        "iterable unpacking cannot be used in comprehension",
        starred.span,
    )
}

/// `{**a for a in b}`.
pub fn unpacking_in_dict_comprehension<T>(l: usize, r: usize) -> PResult<T> {
    fail(
        "dict unpacking cannot be used in dict comprehension",
        Span::new(l, r),
    )
}

pub fn dotted(l: usize, first: String, rest: Vec<String>, r: usize) -> Ident {
    let mut name = first;
    for part in rest {
        name.push('.');
        name.push_str(&part);
    }
    Ident {
        name,
        span: Span::new(l, r),
    }
}

pub fn import_star(l: usize, r: usize) -> Vec<Alias> {
    vec![Alias {
        name: Ident {
            name: "*".to_string(),
            span: Span::new(l, r),
        },
        asname: None,
    }]
}

pub fn import_module(
    l: usize,
    dots: Vec<u32>,
    module: Option<Ident>,
) -> PResult<(u32, Option<Ident>)> {
    if dots.is_empty() && module.is_none() {
        return fail("invalid syntax", Span::new(l, l + 1));
    }
    Ok((dots.iter().sum(), module))
}

pub fn import_from((level, module): (u32, Option<Ident>), names: Vec<Alias>) -> Box<StmtKind> {
    Box::new(StmtKind::ImportFrom {
        module,
        names,
        level,
    })
}

// ---------- targets ----------

/// How CPython names an expression in "cannot assign to …" (`_PyPegen_get_expr_name`).
fn expr_name(e: &Expr) -> &'static str {
    match &e.kind {
        ExprKind::Constant(Constant::None) => "None",
        ExprKind::Constant(Constant::Bool(true)) => "True",
        ExprKind::Constant(Constant::Bool(false)) => "False",
        ExprKind::Constant(Constant::Ellipsis) => "ellipsis",
        ExprKind::Constant(_) => "literal",
        ExprKind::Call { .. } => "function call",
        ExprKind::BoolOp { .. } | ExprKind::BinOp { .. } | ExprKind::UnaryOp { .. } => "expression",
        ExprKind::Compare { .. } => "comparison",
        ExprKind::Lambda { .. } => "lambda",
        ExprKind::IfExp { .. } => "conditional expression",
        ExprKind::NamedExpr { .. } => "named expression",
        ExprKind::Dict { .. } => "dict literal",
        ExprKind::Set(_) => "set display",
        ExprKind::ListComp { .. } => "list comprehension",
        ExprKind::SetComp { .. } => "set comprehension",
        ExprKind::DictComp { .. } => "dict comprehension",
        ExprKind::GeneratorExp { .. } => "generator expression",
        ExprKind::Await(_) => "await expression",
        ExprKind::Yield(_) | ExprKind::YieldFrom(_) => "yield expression",
        ExprKind::FString(_) => "f-string expression",
        ExprKind::Starred(_) => "starred",
        ExprKind::Slice { .. } => "slice",
        ExprKind::Attribute { .. } => "attribute",
        ExprKind::Subscript { .. } => "subscript",
        ExprKind::Name(_) => "name",
        ExprKind::List(_) => "list",
        ExprKind::Tuple(_) => "tuple",
    }
}

/// The first part of `e` that cannot be assigned to (or deleted, when `delete`).
fn invalid_target(e: &Expr, delete: bool) -> Option<&Expr> {
    match &e.kind {
        ExprKind::Name(_) | ExprKind::Attribute { .. } | ExprKind::Subscript { .. } => None,
        ExprKind::Starred(inner) if !delete => invalid_target(inner, delete),
        ExprKind::Tuple(items) | ExprKind::List(items) => {
            items.iter().find_map(|item| invalid_target(item, delete))
        }
        _ => Some(e),
    }
}

fn check_target(e: &Expr, verb: &str) -> PResult<()> {
    match invalid_target(e, verb == "delete") {
        Some(bad) => fail(format!("cannot {verb} {}", expr_name(bad)), bad.span),
        None => Ok(()),
    }
}

pub fn checked_target(e: Expr) -> PResult<Expr> {
    check_target(&e, "assign to")?;
    Ok(e)
}

/// The target of `for` or a comprehension: `a`, `a, b`, `*a, b` (but not `*a` alone).
pub fn target_list(l: usize, (items, trailing): (Vec<Expr>, bool), r: usize) -> PResult<Expr> {
    if items.len() == 1 && !trailing {
        let item = items.into_iter().next().expect("one item");
        if matches!(item.kind, ExprKind::Starred(_)) {
            return fail(
                "starred assignment target must be in a list or tuple",
                item.span,
            );
        }
        return checked_target(item);
    }
    checked_target(expr(l, ExprKind::Tuple(items), r))
}

pub fn delete((items, _trailing): (Vec<Expr>, bool)) -> PResult<Box<StmtKind>> {
    for item in &items {
        check_target(item, "delete")?;
    }
    Ok(Box::new(StmtKind::Delete(items)))
}

// ---------- statements ----------

pub fn assign(first: Expr, mut rest: Vec<Expr>) -> PResult<Box<StmtKind>> {
    let value = rest.pop().expect("at least one value");
    let mut targets = vec![first];
    targets.extend(rest);
    let single = targets.len() == 1;
    for target in &targets {
        if matches!(target.kind, ExprKind::Yield(_) | ExprKind::YieldFrom(_)) {
            return fail("assignment to yield expression not possible", target.span);
        }
        if let Some(bad) = invalid_target(target, false) {
            let name = expr_name(bad);
            // CPython's `invalid_named_expression`: `1 = x` reads as a mistyped `==`.
            let hint = single
                && bad.span.end == target.span.end
                && !matches!(name, "True" | "False" | "None");
            let message = if hint {
                format!("cannot assign to {name} here. Maybe you meant '==' instead of '='?")
            } else {
                format!("cannot assign to {name}")
            };
            return fail(message, bad.span);
        }
    }
    Ok(Box::new(StmtKind::Assign { targets, value }))
}

pub fn aug_assign(target: Expr, op: BinOp, value: Expr) -> PResult<Box<StmtKind>> {
    if !matches!(
        target.kind,
        ExprKind::Name(_) | ExprKind::Attribute { .. } | ExprKind::Subscript { .. }
    ) {
        return fail(
            format!(
                "'{}' is an illegal expression for augmented assignment",
                expr_name(&target)
            ),
            target.span,
        );
    }
    Ok(Box::new(StmtKind::AugAssign { target, op, value }))
}

pub fn ann_assign(
    l: usize,
    target: Expr,
    annotation: Expr,
    value: Option<Expr>,
) -> PResult<Box<StmtKind>> {
    match target.kind {
        ExprKind::Name(_) | ExprKind::Attribute { .. } | ExprKind::Subscript { .. } => {}
        ExprKind::Tuple(_) => {
            return fail(
                "only single target (not tuple) can be annotated",
                target.span,
            );
        }
        ExprKind::List(_) => {
            return fail(
                "only single target (not list) can be annotated",
                target.span,
            );
        }
        _ => return fail("illegal target for annotation", target.span),
    }
    // A name in parentheses, `(x): int`, is not "simple": the statement starts before it.
    let simple = matches!(target.kind, ExprKind::Name(_)) && target.span.start as usize == l;
    Ok(Box::new(StmtKind::AnnAssign {
        target,
        annotation,
        value,
        simple,
    }))
}

/// `if`/`elif`/`else`: each `elif` becomes an `If` alone in the `orelse` of the one before.
pub fn if_stmt(
    l: usize,
    test: Expr,
    body: Vec<Stmt>,
    elifs: Vec<Box<(usize, Expr, Vec<Stmt>)>>,
    orelse: Option<Vec<Stmt>>,
    r: usize,
) -> Box<Stmt> {
    let mut orelse = orelse.unwrap_or_default();
    for elif in elifs.into_iter().rev() {
        let (start, test, body) = *elif;
        orelse = vec![*stmt(start, StmtKind::If { test, body, orelse }, r)];
    }
    stmt(l, StmtKind::If { test, body, orelse }, r)
}

pub fn handler(
    l: usize,
    is_star: bool,
    typ: Option<Box<(Expr, Option<Ident>)>>,
    body: Vec<Stmt>,
    r: usize,
) -> PResult<Box<Handler>> {
    if is_star && typ.is_none() {
        return fail("expected one or more exception types", Span::new(l, l + 6));
    }
    let (typ, name) = match typ.map(|t| *t) {
        Some((typ, name)) => (Some(typ), name),
        None => (None, None),
    };
    Ok(Box::new(Handler {
        handler: ast::ExceptHandler {
            typ,
            name,
            body,
            span: Span::new(l, r),
        },
        is_star,
    }))
}

pub fn unparenthesized_except<T>(l: usize, r: usize) -> PResult<T> {
    fail(
        "multiple exception types must be parenthesized",
        Span::new(l, r),
    )
}

pub fn try_stmt(
    l: usize,
    body: Vec<Stmt>,
    handlers: Vec<Box<Handler>>,
    orelse: Option<Vec<Stmt>>,
    finalbody: Option<Vec<Stmt>>,
    r: usize,
) -> PResult<Box<Stmt>> {
    let is_star = handlers.first().is_some_and(|h| h.is_star);
    if handlers.iter().any(|h| h.is_star != is_star) {
        return fail(
            "cannot have both 'except' and 'except*' on the same 'try'",
            Span::new(l, r),
        );
    }
    let count = handlers.len();
    if let Some(bare) = handlers[..count.saturating_sub(1)]
        .iter()
        .find(|h| h.handler.typ.is_none())
    {
        return fail("default 'except:' must be last", bare.handler.span);
    }
    Ok(stmt(
        l,
        StmtKind::Try {
            body,
            handlers: handlers.into_iter().map(|h| h.handler).collect(),
            orelse: orelse.unwrap_or_default(),
            finalbody: finalbody.unwrap_or_default(),
            is_star,
        },
        r,
    ))
}

/// `name=default` in a parameter list.
pub fn with_default(mut param: Box<Param>, default: Expr) -> Box<Param> {
    param.default = Some(default);
    param
}

/// Checks the order of a parameter list and sorts it into [`Parameters`].
fn parameters(items: Vec<ParamItem>) -> PResult<Parameters> {
    let mut params = Parameters::default();
    let mut seen_star: Option<Span> = None;
    let mut seen_default = false;
    let mut bare_star_needs_name = None;
    let mut after_kwarg = false;
    let mut seen_slash = false;
    for item in items {
        if after_kwarg {
            let span = match &item {
                ParamItem::Plain(p) | ParamItem::Star(_, Some(p)) | ParamItem::DoubleStar(p) => {
                    p.name.span
                }
                ParamItem::Slash(s) | ParamItem::Star(s, None) => *s,
            };
            return fail("arguments cannot follow var-keyword argument", span);
        }
        match item {
            ParamItem::Plain(param) => {
                let span = param.name.span;
                let param = *param;
                if seen_star.is_some() {
                    bare_star_needs_name = None;
                    params.kwonly.push(param);
                } else {
                    if param.default.is_some() {
                        seen_default = true;
                    } else if seen_default {
                        return fail(
                            "parameter without a default follows parameter with a default",
                            span,
                        );
                    }
                    params.args.push(param);
                }
            }
            ParamItem::Slash(span) => {
                if seen_slash {
                    return fail("/ may appear only once", span);
                }
                if seen_star.is_some() {
                    return fail("/ must be ahead of *", span);
                }
                if params.args.is_empty() {
                    return fail("at least one argument must precede /", span);
                }
                seen_slash = true;
                params.posonly = std::mem::take(&mut params.args);
            }
            ParamItem::Star(span, param) => {
                if seen_star.is_some() {
                    return fail("* argument may appear only once", span);
                }
                seen_star = Some(span);
                if param.is_none() {
                    bare_star_needs_name = Some(span);
                }
                params.vararg = param.map(|p| *p);
            }
            ParamItem::DoubleStar(param) => {
                if let Some(star) = bare_star_needs_name {
                    return fail("named arguments must follow bare *", star);
                }
                params.kwarg = Some(*param);
                after_kwarg = true;
            }
        }
    }
    if let Some(star) = bare_star_needs_name {
        return fail("named arguments must follow bare *", star);
    }
    Ok(params)
}

pub fn lambda(l: usize, items: Vec<ParamItem>, body: Expr, r: usize) -> PResult<Expr> {
    let params = parameters(items)?;
    Ok(expr(
        l,
        ExprKind::Lambda {
            params: Box::new(params),
            body: Box::new(body),
        },
        r,
    ))
}

#[allow(clippy::too_many_arguments)]
pub fn func_def(
    l: usize,
    is_async: bool,
    name: Ident,
    type_params: Option<Vec<ast::TypeParam>>,
    items: Vec<ParamItem>,
    returns: Option<Expr>,
    body: Vec<Stmt>,
    r: usize,
) -> PResult<Box<Stmt>> {
    let params = parameters(items)?;
    Ok(stmt(
        l,
        StmtKind::FunctionDef(Box::new(ast::FunctionDef {
            name,
            params,
            body,
            decorators: vec![],
            returns,
            is_async,
            type_params: type_params.unwrap_or_default(),
        })),
        r,
    ))
}

/// Splits call arguments, checking CPython's ordering rules.
fn arguments(items: Vec<ArgItem>) -> PResult<(Vec<Expr>, Vec<Keyword>)> {
    let count = items.len();
    let mut args = Vec::new();
    let mut keywords: Vec<Keyword> = Vec::new();
    for item in items {
        match item {
            ArgItem::Generator(e) if count > 1 => {
                return fail("Generator expression must be parenthesized", e.span);
            }
            ArgItem::Positional(e) | ArgItem::Generator(e) => {
                let starred = matches!(e.kind, ExprKind::Starred(_));
                if keywords.iter().any(|k| k.arg.is_none()) {
                    let message = if starred {
                        "iterable argument unpacking follows keyword argument unpacking"
                    } else {
                        "positional argument follows keyword argument unpacking"
                    };
                    return fail(message, e.span);
                }
                if !starred && !keywords.is_empty() {
                    return fail("positional argument follows keyword argument", e.span);
                }
                args.push(e);
            }
            ArgItem::Keyword(k) => {
                let k = *k;
                if let Some(name) = &k.arg
                    && keywords
                        .iter()
                        .any(|other| other.arg.as_ref().is_some_and(|o| o.name == name.name))
                {
                    return fail(format!("keyword argument repeated: {}", name.name), k.span);
                }
                keywords.push(k);
            }
        }
    }
    Ok((args, keywords))
}

pub fn call(l: usize, func: Expr, items: Vec<ArgItem>, r: usize) -> PResult<Expr> {
    let (args, keywords) = arguments(items)?;
    Ok(expr(
        l,
        ExprKind::Call {
            func: Box::new(func),
            args,
            keywords,
        },
        r,
    ))
}

pub fn class_def(
    l: usize,
    name: Ident,
    type_params: Option<Vec<ast::TypeParam>>,
    items: Option<Vec<ArgItem>>,
    body: Vec<Stmt>,
    r: usize,
) -> PResult<Box<Stmt>> {
    let items = items.unwrap_or_default();
    if let Some(ArgItem::Generator(e)) = items.first() {
        return fail("invalid syntax", e.span);
    }
    let (bases, keywords) = arguments(items)?;
    Ok(stmt(
        l,
        StmtKind::ClassDef(Box::new(ast::ClassDef {
            name,
            bases,
            keywords,
            body,
            decorators: vec![],
            type_params: type_params.unwrap_or_default(),
        })),
        r,
    ))
}

pub fn type_param(
    l: usize,
    kind: ast::TypeParamKind,
    name: Ident,
    default: Option<Expr>,
    r: usize,
) -> ast::TypeParam {
    ast::TypeParam {
        kind,
        name,
        default,
        span: Span::new(l, r),
    }
}

/// A type parameter list: once one parameter has a default, every later one needs one
/// (PEP 696), as CPython's parser checks.
pub fn type_params(params: Vec<ast::TypeParam>) -> PResult<Vec<ast::TypeParam>> {
    let mut defaulted = false;
    for p in &params {
        if p.default.is_some() {
            defaulted = true;
        } else if defaulted {
            return fail(
                format!(
                    "non-default type parameter '{}' follows default type parameter",
                    p.name.name
                ),
                p.span,
            );
        }
    }
    Ok(params)
}

/// A syntax error over `l..r`.
pub fn fail_at<T>(message: &str, l: usize, r: usize) -> PResult<T> {
    fail(message, Span::new(l, r))
}

/// `*Ts: bound` or `**P: bound`: only a TypeVar takes a bound.
pub fn bound_not_allowed<T>(kind: &str, l: usize, r: usize) -> PResult<T> {
    fail(format!("cannot use bound with {kind}"), Span::new(l, r))
}

/// Attaches decorators to the `def` or `class` after them (its span stays the `def` line's,
/// as in CPython's AST; each decorator keeps its own span).
pub fn decorate(decorators: Vec<Expr>, mut target: Box<Stmt>) -> Box<Stmt> {
    match &mut target.kind {
        StmtKind::FunctionDef(def) => def.decorators = decorators,
        StmtKind::ClassDef(class) => class.decorators = decorators,
        _ => {}
    }
    target
}
