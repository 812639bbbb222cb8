//! The tree CPython's `ast.parse` gives, built from an apy [`Module`]: nodes named as
//! CPython's classes (`Parser/Python.asdl`), every field in CPython's `_fields` order (None
//! and empty lists included), leaves as typed [`Constant`]s and, when the source is given, each
//! node's `lineno`, `col_offset`, `end_lineno`, `end_col_offset` (columns in UTF-8 bytes, as
//! CPython counts them). `apy --ast` formats this tree (`ast_dump`); `ast.parse` turns it
//! into the `ast` module's node objects (`builtins/ast_module.rs`).
//!
//! `ctx` is not stored in the apy AST: it follows from where an expression stands (an
//! assignment's, `for`'s, `with`'s or walrus' target is `Store()`, `del`'s is `Del()`, passed
//! down through tuples, lists and starred items; everything else is `Load()`), so the walk
//! passes it down as CPython's parser does. Fields the apy AST does not keep are None
//! (`type_comment`, a `u'…'` string's `kind`); an f-string's parts have no spans of their
//! own, so they carry the whole f-string's position.

use num_bigint::BigInt;

use super::ast::{
    Alias, BinOp, BoolOp, ClassDef, CmpOp, Comprehension, Constant, ExceptHandler, Expr, ExprKind,
    FStringPart, FormattedValue, FunctionDef, Ident, Keyword, MatchCase, Module, Param, Parameters,
    Pattern, PatternKind, Span, Stmt, StmtKind, TypeParam, TypeParamKind, UnaryOp, WithItem,
};

/// A node: its class name, its fields in CPython's order, its position if it has one.
pub struct Node {
    pub class: &'static str,
    pub fields: Vec<(&'static str, Field)>,
    pub position: Option<Position>,
}

/// CPython's `_attributes` of a located node: lines from 1, columns in UTF-8 bytes from 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Position {
    pub lineno: u32,
    pub col_offset: u32,
    pub end_lineno: u32,
    pub end_col_offset: u32,
}

/// One field value.
pub enum Field {
    Node(Node),
    List(Vec<Field>),
    /// An identifier, a number, a flag or None: what Python's value would be.
    Leaf(Constant),
}

/// The tree of `module`; with positions when `source` (the text it was parsed from) is given.
pub fn module(module: &Module, source: Option<&str>) -> Node {
    let tree = Tree::new(source);
    Node::new("Module")
        .field("body", tree.body(&module.body))
        .field("type_ignores", Field::List(Vec::new()))
}

/// The tree of `mode='eval'`: an `Expression` around the one expression `module` holds
/// (its caller checked the shape).
pub fn expression(module: &Module, source: Option<&str>) -> Option<Node> {
    let tree = Tree::new(source);
    match module.body.as_slice() {
        [
            Stmt {
                kind: StmtKind::Expr(value),
                ..
            },
        ] => Some(Node::new("Expression").node("body", tree.expr(value))),
        _ => None,
    }
}

/// The tree of `mode='single'`: an `Interactive` with the statements.
pub fn interactive(module: &Module, source: Option<&str>) -> Node {
    let tree = Tree::new(source);
    Node::new("Interactive").field("body", tree.body(&module.body))
}

/// CPython's `expr_context`: how an expression is used.
#[derive(Clone, Copy)]
enum Ctx {
    Load,
    Store,
    Del,
}

impl Node {
    fn new(class: &'static str) -> Node {
        Node {
            class,
            fields: Vec::new(),
            position: None,
        }
    }

    fn field(mut self, name: &'static str, value: Field) -> Node {
        self.fields.push((name, value));
        self
    }

    fn node(self, name: &'static str, node: Node) -> Node {
        self.field(name, Field::Node(node))
    }

    fn opt(self, name: &'static str, node: Option<Node>) -> Node {
        self.field(name, node.map_or(NONE, Field::Node))
    }

    fn list(self, name: &'static str, items: impl IntoIterator<Item = Node>) -> Node {
        self.field(
            name,
            Field::List(items.into_iter().map(Field::Node).collect()),
        )
    }

    fn str(self, name: &'static str, text: &str) -> Node {
        self.field(name, Field::Leaf(Constant::Str(text.to_string())))
    }

    fn opt_str(self, name: &'static str, text: Option<&Ident>) -> Node {
        match text {
            Some(text) => self.str(name, &text.name),
            None => self.field(name, NONE),
        }
    }

    fn int(self, name: &'static str, value: i64) -> Node {
        self.field(name, Field::Leaf(Constant::Int(BigInt::from(value))))
    }

    /// A boolean stored as an int in CPython's AST (`simple=1`, `is_async=0`).
    fn flag(self, name: &'static str, flag: bool) -> Node {
        self.int(name, i64::from(flag))
    }

    /// The `ctx` field that ends `Name`, `Attribute`, `Subscript`, `Starred`, `List`, `Tuple`.
    fn ctx(self, ctx: Ctx) -> Node {
        let class = match ctx {
            Ctx::Load => "Load",
            Ctx::Store => "Store",
            Ctx::Del => "Del",
        };
        self.node("ctx", Node::new(class))
    }

    fn at(mut self, position: Option<Position>) -> Node {
        self.position = position;
        self
    }
}

const NONE: Field = Field::Leaf(Constant::None);

/// The walk, with the start of every line of the source to place nodes.
struct Tree<'a> {
    source: Option<&'a str>,
    line_starts: Vec<usize>,
}

impl Tree<'_> {
    fn new(source: Option<&str>) -> Tree<'_> {
        let line_starts = match source {
            Some(text) => std::iter::once(0)
                .chain(text.match_indices('\n').map(|(i, _)| i + 1))
                .collect(),
            None => Vec::new(),
        };
        Tree {
            source,
            line_starts,
        }
    }

    fn position(&self, span: Span) -> Option<Position> {
        let source = self.source?;
        let place = |offset: u32| {
            let offset = (offset as usize).min(source.len());
            let line = self.line_starts.partition_point(|&start| start <= offset);
            let start = self.line_starts[line.saturating_sub(1)];
            (line as u32, (offset - start) as u32)
        };
        let (lineno, col_offset) = place(span.start);
        let (end_lineno, end_col_offset) = place(span.end);
        Some(Position {
            lineno,
            col_offset,
            end_lineno,
            end_col_offset,
        })
    }

    fn body(&self, items: &[Stmt]) -> Field {
        Field::List(items.iter().map(|s| Field::Node(self.stmt(s))).collect())
    }

    fn exprs(&self, items: &[Expr]) -> Vec<Node> {
        items.iter().map(|e| self.expr(e)).collect()
    }

    fn targets(&self, items: &[Expr], ctx: Ctx) -> Vec<Node> {
        items.iter().map(|e| self.expr_in(e, ctx)).collect()
    }

    fn opt_expr(&self, value: Option<&Expr>) -> Option<Node> {
        value.map(|v| self.expr(v))
    }

    fn names(&self, names: &[Ident]) -> Field {
        let leaf = |n: &Ident| Field::Leaf(Constant::Str(n.name.clone()));
        Field::List(names.iter().map(leaf).collect())
    }

    fn stmt(&self, stmt: &Stmt) -> Node {
        self.stmt_kind(stmt).at(self.position(stmt.span))
    }

    fn stmt_kind(&self, stmt: &Stmt) -> Node {
        match &stmt.kind {
            StmtKind::Expr(value) => Node::new("Expr").node("value", self.expr(value)),
            StmtKind::Assign { targets, value } => Node::new("Assign")
                .list("targets", self.targets(targets, Ctx::Store))
                .node("value", self.expr(value))
                .field("type_comment", NONE),
            StmtKind::AugAssign { target, op, value } => Node::new("AugAssign")
                .node("target", self.expr_in(target, Ctx::Store))
                .node("op", Node::new(bin_op(*op)))
                .node("value", self.expr(value)),
            StmtKind::AnnAssign {
                target,
                annotation,
                value,
                simple,
            } => Node::new("AnnAssign")
                .node("target", self.expr_in(target, Ctx::Store))
                .node("annotation", self.expr(annotation))
                .opt("value", self.opt_expr(value.as_ref()))
                .flag("simple", *simple),
            StmtKind::Pass => Node::new("Pass"),
            StmtKind::Break => Node::new("Break"),
            StmtKind::Continue => Node::new("Continue"),
            StmtKind::Delete(targets) => {
                Node::new("Delete").list("targets", self.targets(targets, Ctx::Del))
            }
            StmtKind::Return(value) => {
                Node::new("Return").opt("value", self.opt_expr(value.as_ref()))
            }
            StmtKind::Raise { exc, cause } => Node::new("Raise")
                .opt("exc", self.opt_expr(exc.as_ref()))
                .opt("cause", self.opt_expr(cause.as_ref())),
            StmtKind::Global(names) => Node::new("Global").field("names", self.names(names)),
            StmtKind::Nonlocal(names) => Node::new("Nonlocal").field("names", self.names(names)),
            StmtKind::Assert { test, msg } => Node::new("Assert")
                .node("test", self.expr(test))
                .opt("msg", self.opt_expr(msg.as_ref())),
            StmtKind::If { test, body, orelse } => Node::new("If")
                .node("test", self.expr(test))
                .field("body", self.body(body))
                .field("orelse", self.body(orelse)),
            StmtKind::While { test, body, orelse } => Node::new("While")
                .node("test", self.expr(test))
                .field("body", self.body(body))
                .field("orelse", self.body(orelse)),
            StmtKind::For {
                is_async,
                target,
                iter,
                body,
                orelse,
            } => Node::new(if *is_async { "AsyncFor" } else { "For" })
                .node("target", self.expr_in(target, Ctx::Store))
                .node("iter", self.expr(iter))
                .field("body", self.body(body))
                .field("orelse", self.body(orelse))
                .field("type_comment", NONE),
            StmtKind::Try {
                body,
                handlers,
                orelse,
                finalbody,
                is_star,
            } => Node::new(if *is_star { "TryStar" } else { "Try" })
                .field("body", self.body(body))
                .list("handlers", handlers.iter().map(|h| self.except_handler(h)))
                .field("orelse", self.body(orelse))
                .field("finalbody", self.body(finalbody)),
            StmtKind::With {
                is_async,
                items,
                body,
            } => Node::new(if *is_async { "AsyncWith" } else { "With" })
                .list("items", items.iter().map(|i| self.with_item(i)))
                .field("body", self.body(body))
                .field("type_comment", NONE),
            StmtKind::Match { subject, cases } => Node::new("Match")
                .node("subject", self.expr(subject))
                .list("cases", cases.iter().map(|c| self.match_case(c))),
            StmtKind::FunctionDef(def) => self.function_def(def),
            StmtKind::ClassDef(class) => self.class_def(class),
            StmtKind::TypeAlias {
                name,
                type_params,
                value,
            } => Node::new("TypeAlias")
                .node(
                    "name",
                    Node::new("Name")
                        .str("id", &name.name)
                        .ctx(Ctx::Store)
                        .at(self.position(name.span)),
                )
                .list(
                    "type_params",
                    type_params.iter().map(|p| self.type_param(p)),
                )
                .node("value", self.expr(value)),
            StmtKind::Import(names) => {
                Node::new("Import").list("names", names.iter().map(|a| self.alias(a)))
            }
            StmtKind::ImportFrom {
                module,
                names,
                level,
            } => Node::new("ImportFrom")
                .opt_str("module", module.as_ref())
                .list("names", names.iter().map(|a| self.alias(a)))
                .int("level", i64::from(*level)),
        }
    }

    fn match_case(&self, case: &MatchCase) -> Node {
        Node::new("match_case")
            .node("pattern", self.pattern(&case.pattern))
            .opt("guard", self.opt_expr(case.guard.as_ref()))
            .field("body", self.body(&case.body))
    }

    fn patterns(&self, items: &[Pattern]) -> Vec<Node> {
        items.iter().map(|p| self.pattern(p)).collect()
    }

    fn pattern(&self, p: &Pattern) -> Node {
        let node = match &p.kind {
            PatternKind::MatchValue(value) => {
                Node::new("MatchValue").node("value", self.expr(value))
            }
            PatternKind::MatchSingleton(value) => {
                Node::new("MatchSingleton").field("value", Field::Leaf(value.clone()))
            }
            PatternKind::MatchSequence(items) => {
                Node::new("MatchSequence").list("patterns", self.patterns(items))
            }
            PatternKind::MatchMapping {
                keys,
                patterns,
                rest,
            } => Node::new("MatchMapping")
                .list("keys", self.exprs(keys))
                .list("patterns", self.patterns(patterns))
                .opt_str("rest", rest.as_ref()),
            PatternKind::MatchClass {
                cls,
                patterns,
                kwd_attrs,
                kwd_patterns,
            } => Node::new("MatchClass")
                .node("cls", self.expr(cls))
                .list("patterns", self.patterns(patterns))
                .field("kwd_attrs", self.names(kwd_attrs))
                .list("kwd_patterns", self.patterns(kwd_patterns)),
            PatternKind::MatchStar(name) => Node::new("MatchStar").opt_str("name", name.as_ref()),
            PatternKind::MatchAs { pattern, name } => Node::new("MatchAs")
                .opt("pattern", pattern.as_deref().map(|p| self.pattern(p)))
                .opt_str("name", name.as_ref()),
            PatternKind::MatchOr(items) => {
                Node::new("MatchOr").list("patterns", self.patterns(items))
            }
        };
        node.at(self.position(p.span))
    }

    fn type_params(&self, params: &[TypeParam]) -> Vec<Node> {
        params.iter().map(|p| self.type_param(p)).collect()
    }

    fn function_def(&self, def: &FunctionDef) -> Node {
        Node::new(if def.is_async {
            "AsyncFunctionDef"
        } else {
            "FunctionDef"
        })
        .str("name", &def.name.name)
        .node("args", self.arguments(&def.params))
        .field("body", self.body(&def.body))
        .list("decorator_list", self.exprs(&def.decorators))
        .opt("returns", self.opt_expr(def.returns.as_ref()))
        .field("type_comment", NONE)
        .list("type_params", self.type_params(&def.type_params))
    }

    fn class_def(&self, class: &ClassDef) -> Node {
        Node::new("ClassDef")
            .str("name", &class.name.name)
            .list("bases", self.exprs(&class.bases))
            .list("keywords", class.keywords.iter().map(|k| self.keyword(k)))
            .field("body", self.body(&class.body))
            .list("decorator_list", self.exprs(&class.decorators))
            .list("type_params", self.type_params(&class.type_params))
    }

    fn type_param(&self, param: &TypeParam) -> Node {
        let node = match &param.kind {
            TypeParamKind::TypeVar { bound } => Node::new("TypeVar")
                .str("name", &param.name.name)
                .opt("bound", self.opt_expr(bound.as_ref())),
            TypeParamKind::TypeVarTuple => Node::new("TypeVarTuple").str("name", &param.name.name),
            TypeParamKind::ParamSpec => Node::new("ParamSpec").str("name", &param.name.name),
        };
        node.opt("default_value", self.opt_expr(param.default.as_ref()))
            .at(self.position(param.span))
    }

    /// CPython's `arguments` keeps defaults apart from the parameters: `defaults` for the last
    /// positional ones, `kw_defaults` with one entry (maybe None) per keyword-only parameter.
    fn arguments(&self, params: &Parameters) -> Node {
        let positional = params.posonly.iter().chain(&params.args);
        let defaults = positional.filter_map(|p| p.default.as_ref());
        let kw_defaults = params.kwonly.iter().map(|p| match &p.default {
            Some(default) => Field::Node(self.expr(default)),
            None => NONE,
        });
        let args = |items: &[Param]| items.iter().map(|p| self.arg(p)).collect::<Vec<_>>();
        Node::new("arguments")
            .list("posonlyargs", args(&params.posonly))
            .list("args", args(&params.args))
            .opt("vararg", params.vararg.as_ref().map(|p| self.arg(p)))
            .list("kwonlyargs", args(&params.kwonly))
            .field("kw_defaults", Field::List(kw_defaults.collect()))
            .opt("kwarg", params.kwarg.as_ref().map(|p| self.arg(p)))
            .list("defaults", defaults.map(|d| self.expr(d)))
    }

    /// A parameter spans its name and annotation.
    fn arg(&self, param: &Param) -> Node {
        let span = match &param.annotation {
            Some(annotation) => param.name.span.cover(annotation.span),
            None => param.name.span,
        };
        Node::new("arg")
            .str("arg", &param.name.name)
            .opt("annotation", self.opt_expr(param.annotation.as_ref()))
            .field("type_comment", NONE)
            .at(self.position(span))
    }

    fn except_handler(&self, handler: &ExceptHandler) -> Node {
        Node::new("ExceptHandler")
            .opt("type", self.opt_expr(handler.typ.as_ref()))
            .opt_str("name", handler.name.as_ref())
            .field("body", self.body(&handler.body))
            .at(self.position(handler.span))
    }

    fn with_item(&self, item: &WithItem) -> Node {
        Node::new("withitem")
            .node("context_expr", self.expr(&item.context))
            .opt(
                "optional_vars",
                item.target.as_ref().map(|t| self.expr_in(t, Ctx::Store)),
            )
    }

    /// An import's name spans the dotted name and its `as` name.
    fn alias(&self, alias: &Alias) -> Node {
        let span = match &alias.asname {
            Some(asname) => alias.name.span.cover(asname.span),
            None => alias.name.span,
        };
        Node::new("alias")
            .str("name", &alias.name.name)
            .opt_str("asname", alias.asname.as_ref())
            .at(self.position(span))
    }

    fn keyword(&self, keyword: &Keyword) -> Node {
        Node::new("keyword")
            .opt_str("arg", keyword.arg.as_ref())
            .node("value", self.expr(&keyword.value))
            .at(self.position(keyword.span))
    }

    fn comprehension(&self, clause: &Comprehension) -> Node {
        Node::new("comprehension")
            .node("target", self.expr_in(&clause.target, Ctx::Store))
            .node("iter", self.expr(&clause.iter))
            .list("ifs", self.exprs(&clause.ifs))
            .flag("is_async", clause.is_async)
    }

    fn generators(&self, generators: &[Comprehension]) -> Vec<Node> {
        generators.iter().map(|c| self.comprehension(c)).collect()
    }

    /// A call's positional arguments. A generator expression that is the only argument,
    /// without parentheses of its own (`sum(x for x in xs)`), spans the call's parentheses
    /// in CPython.
    fn call_args(&self, call: Span, func: &Expr, args: &[Expr], keywords: &[Keyword]) -> Vec<Node> {
        if let ([arg], [], Some(source)) = (args, keywords, self.source)
            && matches!(arg.kind, ExprKind::GeneratorExp { .. })
            && source.as_bytes().get(arg.span.start as usize) != Some(&b'(')
            && let Some(open) = source
                .get(func.span.end as usize..arg.span.start as usize)
                .and_then(|between| between.find('('))
        {
            let span = Span::new(func.span.end as usize + open, call.end as usize);
            return vec![self.expr(arg).at(self.position(span))];
        }
        self.exprs(args)
    }

    fn expr(&self, expr: &Expr) -> Node {
        self.expr_in(expr, Ctx::Load)
    }

    /// `expr` used as `ctx` says; only the six kinds CPython gives a `ctx` use it.
    fn expr_in(&self, expr: &Expr, ctx: Ctx) -> Node {
        let position = self.position(expr.span);
        let node = match &expr.kind {
            ExprKind::BoolOp { op, values } => Node::new("BoolOp")
                .node("op", Node::new(bool_op(*op)))
                .list("values", self.exprs(values)),
            ExprKind::NamedExpr { target, value } => Node::new("NamedExpr")
                .node("target", self.expr_in(target, Ctx::Store))
                .node("value", self.expr(value)),
            ExprKind::BinOp { left, op, right } => Node::new("BinOp")
                .node("left", self.expr(left))
                .node("op", Node::new(bin_op(*op)))
                .node("right", self.expr(right)),
            ExprKind::UnaryOp { op, operand } => Node::new("UnaryOp")
                .node("op", Node::new(unary_op(*op)))
                .node("operand", self.expr(operand)),
            ExprKind::Lambda { params, body } => Node::new("Lambda")
                .node("args", self.arguments(params))
                .node("body", self.expr(body)),
            ExprKind::IfExp { test, body, orelse } => Node::new("IfExp")
                .node("test", self.expr(test))
                .node("body", self.expr(body))
                .node("orelse", self.expr(orelse)),
            ExprKind::Dict { keys, values } => {
                let keys = keys.iter().map(|key| match key {
                    Some(key) => Field::Node(self.expr(key)),
                    None => NONE,
                });
                Node::new("Dict")
                    .field("keys", Field::List(keys.collect()))
                    .list("values", self.exprs(values))
            }
            ExprKind::Set(elts) => Node::new("Set").list("elts", self.exprs(elts)),
            ExprKind::ListComp { elt, generators } => Node::new("ListComp")
                .node("elt", self.expr(elt))
                .list("generators", self.generators(generators)),
            ExprKind::SetComp { elt, generators } => Node::new("SetComp")
                .node("elt", self.expr(elt))
                .list("generators", self.generators(generators)),
            ExprKind::GeneratorExp { elt, generators } => Node::new("GeneratorExp")
                .node("elt", self.expr(elt))
                .list("generators", self.generators(generators)),
            ExprKind::DictComp {
                key,
                value,
                generators,
            } => Node::new("DictComp")
                .node("key", self.expr(key))
                .node("value", self.expr(value))
                .list("generators", self.generators(generators)),
            ExprKind::Await(value) => Node::new("Await").node("value", self.expr(value)),
            ExprKind::Yield(value) => {
                Node::new("Yield").opt("value", self.opt_expr(value.as_deref()))
            }
            ExprKind::YieldFrom(value) => Node::new("YieldFrom").node("value", self.expr(value)),
            ExprKind::Compare {
                left,
                ops,
                comparators,
            } => Node::new("Compare")
                .node("left", self.expr(left))
                .list("ops", ops.iter().map(|op| Node::new(cmp_op(*op))))
                .list("comparators", self.exprs(comparators)),
            ExprKind::Call {
                func,
                args,
                keywords,
            } => Node::new("Call")
                .node("func", self.expr(func))
                .list("args", self.call_args(expr.span, func, args, keywords))
                .list("keywords", keywords.iter().map(|k| self.keyword(k))),
            ExprKind::FString(parts) => self.joined_str(parts, position),
            ExprKind::Constant(value) => constant(value),
            ExprKind::Attribute { value, attr } => Node::new("Attribute")
                .node("value", self.expr(value))
                .str("attr", &attr.name)
                .ctx(ctx),
            ExprKind::Subscript { value, slice } => Node::new("Subscript")
                .node("value", self.expr(value))
                .node("slice", self.expr(slice))
                .ctx(ctx),
            ExprKind::Starred(value) => Node::new("Starred")
                .node("value", self.expr_in(value, ctx))
                .ctx(ctx),
            ExprKind::Name(id) => Node::new("Name").str("id", id).ctx(ctx),
            ExprKind::List(elts) => Node::new("List")
                .list("elts", self.targets(elts, ctx))
                .ctx(ctx),
            ExprKind::Tuple(elts) => Node::new("Tuple")
                .list("elts", self.targets(elts, ctx))
                .ctx(ctx),
            ExprKind::Slice { lower, upper, step } => Node::new("Slice")
                .opt("lower", self.opt_expr(lower.as_deref()))
                .opt("upper", self.opt_expr(upper.as_deref()))
                .opt("step", self.opt_expr(step.as_deref())),
        };
        node.at(position)
    }

    /// An f-string is a `JoinedStr` of `Constant` strings and `FormattedValue`s; the parts
    /// take the position of the f-string (`at`), having none of their own in apy's AST.
    fn joined_str(&self, parts: &[FStringPart], at: Option<Position>) -> Node {
        Node::new("JoinedStr").list(
            "values",
            parts.iter().map(|part| match part {
                FStringPart::Literal(text) => constant(&Constant::Str(text.clone())).at(at),
                FStringPart::Formatted(field) => self.formatted_value(field, at),
            }),
        )
    }

    /// `conversion` is the code point of `s`/`r`/`a`, or -1 when there is none, as in CPython.
    fn formatted_value(&self, field: &FormattedValue, at: Option<Position>) -> Node {
        let conversion = field.conversion.map_or(-1, |c| c as i64);
        Node::new("FormattedValue")
            .node("value", self.expr(&field.value))
            .int("conversion", conversion)
            .opt(
                "format_spec",
                field
                    .format_spec
                    .as_ref()
                    .map(|spec| self.joined_str(spec, at).at(at)),
            )
            .at(at)
    }
}

fn constant(value: &Constant) -> Node {
    Node::new("Constant")
        .field("value", Field::Leaf(value.clone()))
        .field("kind", NONE)
}

fn bool_op(op: BoolOp) -> &'static str {
    match op {
        BoolOp::And => "And",
        BoolOp::Or => "Or",
    }
}

fn bin_op(op: BinOp) -> &'static str {
    match op {
        BinOp::Add => "Add",
        BinOp::Sub => "Sub",
        BinOp::Mult => "Mult",
        BinOp::MatMult => "MatMult",
        BinOp::Div => "Div",
        BinOp::Mod => "Mod",
        BinOp::Pow => "Pow",
        BinOp::LShift => "LShift",
        BinOp::RShift => "RShift",
        BinOp::BitOr => "BitOr",
        BinOp::BitXor => "BitXor",
        BinOp::BitAnd => "BitAnd",
        BinOp::FloorDiv => "FloorDiv",
    }
}

fn unary_op(op: UnaryOp) -> &'static str {
    match op {
        UnaryOp::Invert => "Invert",
        UnaryOp::Not => "Not",
        UnaryOp::UAdd => "UAdd",
        UnaryOp::USub => "USub",
    }
}

fn cmp_op(op: CmpOp) -> &'static str {
    match op {
        CmpOp::Eq => "Eq",
        CmpOp::NotEq => "NotEq",
        CmpOp::Lt => "Lt",
        CmpOp::LtE => "LtE",
        CmpOp::Gt => "Gt",
        CmpOp::GtE => "GtE",
        CmpOp::Is => "Is",
        CmpOp::IsNot => "IsNot",
        CmpOp::In => "In",
        CmpOp::NotIn => "NotIn",
    }
}
