//! `apy --ast`: an [`ast::Module`] in, the text of Python's `ast.dump(tree, indent=2)` out.
//!
//! Node and field names, field order and the layout rules are CPython 3.13's (`Lib/ast.py`,
//! `dump`, with `show_empty=False`), so the output reads beside
//! `python3.13 -c "import ast; print(ast.dump(ast.parse(src), indent=2))"`. Fields the apy AST
//! does not keep (`type_comment`, a `u'…'` string's `kind`, positions) are left out. `ctx` is not stored in the
//! AST either: it follows from where an expression stands (an assignment's, `for`'s, `with`'s
//! or walrus' target is `Store()`, `del`'s is `Del()`, passed down through tuples, lists and
//! starred items; everything else is `Load()`), so the dump passes it down as CPython's parser
//! does. Depends on the AST and on the pure `repr` helpers of `common` (no VM values).

use crate::common::chars::{bytes_repr, str_repr};
use crate::common::complex_ops::{Complex, complex_repr};
use crate::common::float_repr::float_repr;

use super::ast::{
    Alias, BinOp, BoolOp, ClassDef, CmpOp, Comprehension, Constant, ExceptHandler, Expr, ExprKind,
    FStringPart, FormattedValue, FunctionDef, Keyword, MatchCase, Module, Param, Parameters,
    Pattern, PatternKind, Stmt, StmtKind, TypeParam, TypeParamKind, UnaryOp, WithItem,
};

/// The dump of `module`, ending with a newline (what `print(ast.dump(…, indent=2))` prints).
pub fn dump_module(module: &Module) -> String {
    let tree = Node::new("Module").list("body", module.body.iter().map(stmt));
    let mut text = format(&Value::Node(tree), 0).0;
    text.push('\n');
    text
}

/// CPython's `expr_context`: how an expression is used.
#[derive(Clone, Copy)]
enum Ctx {
    Load,
    Store,
    Del,
}

/// One field value of a node, in the shape `ast.dump` formats.
enum Value {
    Node(Node),
    List(Vec<Value>),
    /// A leaf printed as Python's `repr` of it: `'x'`, `1`, `None`, `1.5`.
    Repr(String),
}

/// A node with its fields in CPython's order. Fields that are None or an empty list are not
/// added at all: that is what `show_empty=False` prints.
struct Node {
    class: &'static str,
    fields: Vec<(&'static str, Value)>,
}

impl Node {
    fn new(class: &'static str) -> Node {
        Node {
            class,
            fields: Vec::new(),
        }
    }

    fn field(mut self, name: &'static str, value: Value) -> Node {
        self.fields.push((name, value));
        self
    }

    fn node(self, name: &'static str, node: Node) -> Node {
        self.field(name, Value::Node(node))
    }

    fn expr(self, name: &'static str, value: &Expr) -> Node {
        self.node(name, expr(value))
    }

    /// An expression that is assigned to (`Store()`) or deleted (`Del()`).
    fn target(self, name: &'static str, value: &Expr, ctx: Ctx) -> Node {
        self.node(name, expr_in(value, ctx))
    }

    fn opt_expr(self, name: &'static str, value: Option<&Expr>) -> Node {
        self.opt_target(name, value, Ctx::Load)
    }

    fn opt_target(self, name: &'static str, value: Option<&Expr>, ctx: Ctx) -> Node {
        match value {
            Some(value) => self.target(name, value, ctx),
            None => self,
        }
    }

    fn repr(self, name: &'static str, repr: String) -> Node {
        self.field(name, Value::Repr(repr))
    }

    fn str(self, name: &'static str, text: &str) -> Node {
        self.repr(name, str_repr(text))
    }

    fn opt_str(self, name: &'static str, text: Option<&str>) -> Node {
        match text {
            Some(text) => self.str(name, text),
            None => self,
        }
    }

    /// A boolean stored as an int in CPython's AST (`simple=1`, `is_async=0`).
    fn flag(self, name: &'static str, flag: bool) -> Node {
        self.repr(name, u8::from(flag).to_string())
    }

    fn list(self, name: &'static str, items: impl IntoIterator<Item = Node>) -> Node {
        self.values(name, items.into_iter().map(Value::Node).collect())
    }

    fn exprs(self, name: &'static str, items: &[Expr]) -> Node {
        self.list(name, items.iter().map(expr))
    }

    fn targets(self, name: &'static str, items: &[Expr], ctx: Ctx) -> Node {
        self.list(name, items.iter().map(|item| expr_in(item, ctx)))
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

    fn body(self, name: &'static str, items: &[Stmt]) -> Node {
        self.list(name, items.iter().map(stmt))
    }

    fn values(self, name: &'static str, values: Vec<Value>) -> Node {
        if values.is_empty() {
            self
        } else {
            self.field(name, Value::List(values))
        }
    }
}

/// `ast.dump`'s `_format`: returns the text and whether it is "simple" (a leaf, or a node
/// without fields), which decides if a parent fits on one line.
fn format(value: &Value, level: usize) -> (String, bool) {
    let level = level + 1;
    let prefix = format!("\n{}", "  ".repeat(level));
    let separator = format!(",{prefix}");
    match value {
        Value::Repr(repr) => (repr.clone(), true),
        Value::List(items) => {
            let items: Vec<String> = items.iter().map(|item| format(item, level).0).collect();
            (format!("[{prefix}{}]", items.join(&separator)), false)
        }
        Value::Node(node) => {
            let mut all_simple = true;
            let mut args = Vec::new();
            for (name, value) in &node.fields {
                let (text, simple) = format(value, level);
                all_simple &= simple;
                args.push(format!("{name}={text}"));
            }
            if all_simple && args.len() <= 3 {
                (
                    format!("{}({})", node.class, args.join(", ")),
                    args.is_empty(),
                )
            } else {
                let args = args.join(&separator);
                (format!("{}({prefix}{args})", node.class), false)
            }
        }
    }
}

fn stmt(stmt: &Stmt) -> Node {
    match &stmt.kind {
        StmtKind::Expr(value) => Node::new("Expr").expr("value", value),
        StmtKind::Assign { targets, value } => Node::new("Assign")
            .targets("targets", targets, Ctx::Store)
            .expr("value", value),
        StmtKind::AugAssign { target, op, value } => Node::new("AugAssign")
            .target("target", target, Ctx::Store)
            .node("op", Node::new(bin_op(*op)))
            .expr("value", value),
        StmtKind::AnnAssign {
            target,
            annotation,
            value,
            simple,
        } => Node::new("AnnAssign")
            .target("target", target, Ctx::Store)
            .expr("annotation", annotation)
            .opt_expr("value", value.as_ref())
            .flag("simple", *simple),
        StmtKind::Pass => Node::new("Pass"),
        StmtKind::Break => Node::new("Break"),
        StmtKind::Continue => Node::new("Continue"),
        StmtKind::Delete(targets) => Node::new("Delete").targets("targets", targets, Ctx::Del),
        StmtKind::Return(value) => Node::new("Return").opt_expr("value", value.as_ref()),
        StmtKind::Raise { exc, cause } => Node::new("Raise")
            .opt_expr("exc", exc.as_ref())
            .opt_expr("cause", cause.as_ref()),
        StmtKind::Global(names) => Node::new("Global").values("names", name_reprs(names)),
        StmtKind::Nonlocal(names) => Node::new("Nonlocal").values("names", name_reprs(names)),
        StmtKind::Assert { test, msg } => Node::new("Assert")
            .expr("test", test)
            .opt_expr("msg", msg.as_ref()),
        StmtKind::If { test, body, orelse } => Node::new("If")
            .expr("test", test)
            .body("body", body)
            .body("orelse", orelse),
        StmtKind::While { test, body, orelse } => Node::new("While")
            .expr("test", test)
            .body("body", body)
            .body("orelse", orelse),
        StmtKind::For {
            is_async,
            target,
            iter,
            body,
            orelse,
        } => Node::new(if *is_async { "AsyncFor" } else { "For" })
            .target("target", target, Ctx::Store)
            .expr("iter", iter)
            .body("body", body)
            .body("orelse", orelse),
        StmtKind::Try {
            body,
            handlers,
            orelse,
            finalbody,
            is_star,
        } => Node::new(if *is_star { "TryStar" } else { "Try" })
            .body("body", body)
            .list("handlers", handlers.iter().map(except_handler))
            .body("orelse", orelse)
            .body("finalbody", finalbody),
        StmtKind::With {
            is_async,
            items,
            body,
        } => Node::new(if *is_async { "AsyncWith" } else { "With" })
            .list("items", items.iter().map(with_item))
            .body("body", body),
        StmtKind::Match { subject, cases } => Node::new("Match")
            .expr("subject", subject)
            .list("cases", cases.iter().map(match_case)),
        StmtKind::FunctionDef(def) => function_def(def),
        StmtKind::ClassDef(class) => class_def(class),
        StmtKind::TypeAlias {
            name,
            type_params,
            value,
        } => Node::new("TypeAlias")
            .node(
                "name",
                Node::new("Name").str("id", &name.name).ctx(Ctx::Store),
            )
            .list("type_params", type_params.iter().map(type_param))
            .expr("value", value),
        StmtKind::Import(names) => Node::new("Import").list("names", names.iter().map(alias)),
        StmtKind::ImportFrom {
            module,
            names,
            level,
        } => Node::new("ImportFrom")
            .opt_str("module", module.as_ref().map(|m| m.name.as_str()))
            .list("names", names.iter().map(alias))
            .repr("level", level.to_string()),
    }
}

fn match_case(case: &MatchCase) -> Node {
    Node::new("match_case")
        .node("pattern", pattern(&case.pattern))
        .opt_expr("guard", case.guard.as_ref())
        .body("body", &case.body)
}

fn pattern(p: &Pattern) -> Node {
    let patterns = |items: &[Pattern]| items.iter().map(pattern).collect::<Vec<_>>();
    match &p.kind {
        PatternKind::MatchValue(value) => Node::new("MatchValue").expr("value", value),
        PatternKind::MatchSingleton(value) => {
            Node::new("MatchSingleton").repr("value", constant_repr(value))
        }
        PatternKind::MatchSequence(items) => {
            Node::new("MatchSequence").list("patterns", patterns(items))
        }
        PatternKind::MatchMapping {
            keys,
            patterns: items,
            rest,
        } => Node::new("MatchMapping")
            .exprs("keys", keys)
            .list("patterns", patterns(items))
            .opt_str("rest", rest.as_ref().map(|n| n.name.as_str())),
        PatternKind::MatchClass {
            cls,
            patterns: items,
            kwd_attrs,
            kwd_patterns,
        } => Node::new("MatchClass")
            .expr("cls", cls)
            .list("patterns", patterns(items))
            .values("kwd_attrs", name_reprs(kwd_attrs))
            .list("kwd_patterns", patterns(kwd_patterns)),
        PatternKind::MatchStar(name) => {
            Node::new("MatchStar").opt_str("name", name.as_ref().map(|n| n.name.as_str()))
        }
        PatternKind::MatchAs {
            pattern: inner,
            name,
        } => {
            let node = match inner {
                Some(inner) => Node::new("MatchAs").node("pattern", pattern(inner)),
                None => Node::new("MatchAs"),
            };
            node.opt_str("name", name.as_ref().map(|n| n.name.as_str()))
        }
        PatternKind::MatchOr(items) => Node::new("MatchOr").list("patterns", patterns(items)),
    }
}

fn function_def(def: &FunctionDef) -> Node {
    Node::new(if def.is_async {
        "AsyncFunctionDef"
    } else {
        "FunctionDef"
    })
    .str("name", &def.name.name)
    .node("args", arguments(&def.params))
    .body("body", &def.body)
    .exprs("decorator_list", &def.decorators)
    .opt_expr("returns", def.returns.as_ref())
    .list("type_params", def.type_params.iter().map(type_param))
}

fn class_def(class: &ClassDef) -> Node {
    Node::new("ClassDef")
        .str("name", &class.name.name)
        .exprs("bases", &class.bases)
        .list("keywords", class.keywords.iter().map(keyword))
        .body("body", &class.body)
        .exprs("decorator_list", &class.decorators)
        .list("type_params", class.type_params.iter().map(type_param))
}

fn type_param(param: &TypeParam) -> Node {
    let node = match &param.kind {
        TypeParamKind::TypeVar { bound } => Node::new("TypeVar")
            .str("name", &param.name.name)
            .opt_expr("bound", bound.as_ref()),
        TypeParamKind::TypeVarTuple => Node::new("TypeVarTuple").str("name", &param.name.name),
        TypeParamKind::ParamSpec => Node::new("ParamSpec").str("name", &param.name.name),
    };
    node.opt_expr("default_value", param.default.as_ref())
}

/// CPython's `arguments` keeps defaults apart from the parameters: `defaults` for the last
/// positional ones, `kw_defaults` with one entry (maybe None) per keyword-only parameter.
fn arguments(params: &Parameters) -> Node {
    let positional = params.posonly.iter().chain(&params.args);
    let defaults = positional.filter_map(|p| p.default.as_ref()).map(expr);
    let kw_defaults = params.kwonly.iter().map(|p| match &p.default {
        Some(default) => Value::Node(expr(default)),
        None => Value::Repr("None".to_string()),
    });
    let node = Node::new("arguments")
        .list("posonlyargs", params.posonly.iter().map(arg))
        .list("args", params.args.iter().map(arg));
    let node = match &params.vararg {
        Some(vararg) => node.node("vararg", arg(vararg)),
        None => node,
    };
    let node = node
        .list("kwonlyargs", params.kwonly.iter().map(arg))
        .values("kw_defaults", kw_defaults.collect());
    let node = match &params.kwarg {
        Some(kwarg) => node.node("kwarg", arg(kwarg)),
        None => node,
    };
    node.list("defaults", defaults)
}

fn arg(param: &Param) -> Node {
    Node::new("arg")
        .str("arg", &param.name.name)
        .opt_expr("annotation", param.annotation.as_ref())
}

fn except_handler(handler: &ExceptHandler) -> Node {
    Node::new("ExceptHandler")
        .opt_expr("type", handler.typ.as_ref())
        .opt_str("name", handler.name.as_ref().map(|n| n.name.as_str()))
        .body("body", &handler.body)
}

fn with_item(item: &WithItem) -> Node {
    Node::new("withitem")
        .expr("context_expr", &item.context)
        .opt_target("optional_vars", item.target.as_ref(), Ctx::Store)
}

fn alias(alias: &Alias) -> Node {
    Node::new("alias")
        .str("name", &alias.name.name)
        .opt_str("asname", alias.asname.as_ref().map(|n| n.name.as_str()))
}

fn keyword(keyword: &Keyword) -> Node {
    Node::new("keyword")
        .opt_str("arg", keyword.arg.as_ref().map(|n| n.name.as_str()))
        .expr("value", &keyword.value)
}

fn comprehension(clause: &Comprehension) -> Node {
    Node::new("comprehension")
        .target("target", &clause.target, Ctx::Store)
        .expr("iter", &clause.iter)
        .exprs("ifs", &clause.ifs)
        .flag("is_async", clause.is_async)
}

fn name_reprs(names: &[super::ast::Ident]) -> Vec<Value> {
    names
        .iter()
        .map(|name| Value::Repr(str_repr(&name.name)))
        .collect()
}

fn expr(expr: &Expr) -> Node {
    expr_in(expr, Ctx::Load)
}

/// `expr` used as `ctx` says; only the six kinds CPython gives a `ctx` use it.
fn expr_in(expr: &Expr, ctx: Ctx) -> Node {
    match &expr.kind {
        ExprKind::BoolOp { op, values } => Node::new("BoolOp")
            .node("op", Node::new(bool_op(*op)))
            .exprs("values", values),
        ExprKind::NamedExpr { target, value } => Node::new("NamedExpr")
            .target("target", target, Ctx::Store)
            .expr("value", value),
        ExprKind::BinOp { left, op, right } => Node::new("BinOp")
            .expr("left", left)
            .node("op", Node::new(bin_op(*op)))
            .expr("right", right),
        ExprKind::UnaryOp { op, operand } => Node::new("UnaryOp")
            .node("op", Node::new(unary_op(*op)))
            .expr("operand", operand),
        ExprKind::Lambda { params, body } => Node::new("Lambda")
            .node("args", arguments(params))
            .expr("body", body),
        ExprKind::IfExp { test, body, orelse } => Node::new("IfExp")
            .expr("test", test)
            .expr("body", body)
            .expr("orelse", orelse),
        ExprKind::Dict { keys, values } => {
            let keys = keys.iter().map(|key| match key {
                Some(key) => Value::Node(self::expr(key)),
                None => Value::Repr("None".to_string()),
            });
            Node::new("Dict")
                .values("keys", keys.collect())
                .exprs("values", values)
        }
        ExprKind::Set(elts) => Node::new("Set").exprs("elts", elts),
        ExprKind::ListComp { elt, generators } => comprehension_node("ListComp", elt, generators),
        ExprKind::SetComp { elt, generators } => comprehension_node("SetComp", elt, generators),
        ExprKind::GeneratorExp { elt, generators } => {
            comprehension_node("GeneratorExp", elt, generators)
        }
        ExprKind::DictComp {
            key,
            value,
            generators,
        } => Node::new("DictComp")
            .expr("key", key)
            .expr("value", value)
            .list("generators", generators.iter().map(comprehension)),
        ExprKind::Await(value) => Node::new("Await").expr("value", value),
        ExprKind::Yield(value) => Node::new("Yield").opt_expr("value", value.as_deref()),
        ExprKind::YieldFrom(value) => Node::new("YieldFrom").expr("value", value),
        ExprKind::Compare {
            left,
            ops,
            comparators,
        } => Node::new("Compare")
            .expr("left", left)
            .list("ops", ops.iter().map(|op| Node::new(cmp_op(*op))))
            .exprs("comparators", comparators),
        ExprKind::Call {
            func,
            args,
            keywords,
        } => Node::new("Call")
            .expr("func", func)
            .exprs("args", args)
            .list("keywords", keywords.iter().map(keyword)),
        ExprKind::FString(parts) => joined_str(parts),
        ExprKind::Constant(value) => constant(value),
        ExprKind::Attribute { value, attr } => Node::new("Attribute")
            .expr("value", value)
            .str("attr", &attr.name)
            .ctx(ctx),
        ExprKind::Subscript { value, slice } => Node::new("Subscript")
            .expr("value", value)
            .expr("slice", slice)
            .ctx(ctx),
        ExprKind::Starred(value) => Node::new("Starred").target("value", value, ctx).ctx(ctx),
        ExprKind::Name(id) => Node::new("Name").str("id", id).ctx(ctx),
        ExprKind::List(elts) => Node::new("List").targets("elts", elts, ctx).ctx(ctx),
        ExprKind::Tuple(elts) => Node::new("Tuple").targets("elts", elts, ctx).ctx(ctx),
        ExprKind::Slice { lower, upper, step } => Node::new("Slice")
            .opt_expr("lower", lower.as_deref())
            .opt_expr("upper", upper.as_deref())
            .opt_expr("step", step.as_deref()),
    }
}

fn comprehension_node(class: &'static str, elt: &Expr, generators: &[Comprehension]) -> Node {
    Node::new(class)
        .expr("elt", elt)
        .list("generators", generators.iter().map(comprehension))
}

fn constant(value: &Constant) -> Node {
    Node::new("Constant").repr("value", constant_repr(value))
}

fn constant_repr(value: &Constant) -> String {
    match value {
        Constant::None => "None".to_string(),
        Constant::Bool(true) => "True".to_string(),
        Constant::Bool(false) => "False".to_string(),
        Constant::Ellipsis => "Ellipsis".to_string(),
        Constant::Int(value) => value.to_string(),
        Constant::Float(value) => float_repr(*value),
        Constant::Imaginary(value) => complex_repr(Complex::new(0.0, *value)),
        Constant::Str(text) => str_repr(text),
        Constant::Bytes(bytes) => bytes_repr(bytes),
    }
}

/// An f-string is a `JoinedStr` of `Constant` strings and `FormattedValue`s.
fn joined_str(parts: &[FStringPart]) -> Node {
    Node::new("JoinedStr").list(
        "values",
        parts.iter().map(|part| match part {
            FStringPart::Literal(text) => constant(&Constant::Str(text.clone())),
            FStringPart::Formatted(field) => formatted_value(field),
        }),
    )
}

/// `conversion` is the code point of `s`/`r`/`a`, or -1 when there is none, as in CPython.
fn formatted_value(field: &FormattedValue) -> Node {
    let conversion = field.conversion.map_or(-1, |c| c as i64);
    let node = Node::new("FormattedValue")
        .expr("value", &field.value)
        .repr("conversion", conversion.to_string());
    match &field.format_spec {
        Some(spec) => node.node("format_spec", joined_str(spec)),
        None => node,
    }
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
