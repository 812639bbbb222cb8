//! The abstract syntax tree: what the parser produces and the compiler consumes.
//!
//! Shaped like CPython's `ast` module (`Lib/ast.py`, `Parser/Python.asdl`) so a learner can
//! compare `apy --ast` with `python3.13 -m ast`. Every node carries the byte [`Span`] of the
//! source it came from. Expression context (Load/Store/Del) is not stored: the compiler knows
//! it from the position of the node. This module depends on nothing else in apy.

use num_bigint::BigInt;

/// A half-open byte range `start..end` into the source text.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
pub struct Span {
    pub start: u32,
    pub end: u32,
}

impl Span {
    pub fn new(start: usize, end: usize) -> Span {
        Span {
            start: start as u32,
            end: end as u32,
        }
    }

    /// The smallest span covering both `self` and `other`.
    pub fn cover(self, other: Span) -> Span {
        Span {
            start: self.start.min(other.start),
            end: self.end.max(other.end),
        }
    }

    pub fn range(self) -> std::ops::Range<usize> {
        self.start as usize..self.end as usize
    }
}

/// A whole source file (or one REPL entry).
#[derive(Clone, Debug, PartialEq)]
pub struct Module {
    pub body: Vec<Stmt>,
}

/// A name as written in the source, with its span (function names, attributes, parameters…).
#[derive(Clone, Debug, PartialEq)]
pub struct Ident {
    pub name: String,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Stmt {
    pub kind: StmtKind,
    pub span: Span,
}

impl Stmt {
    /// Whether the statement has a block (`if`, `def`, `class`, …), which only an empty
    /// line (or a dedent) ends at an interactive prompt.
    pub fn is_compound(&self) -> bool {
        matches!(
            self.kind,
            StmtKind::If { .. }
                | StmtKind::While { .. }
                | StmtKind::For { .. }
                | StmtKind::With { .. }
                | StmtKind::Match { .. }
                | StmtKind::Try { .. }
                | StmtKind::FunctionDef(_)
                | StmtKind::ClassDef(_)
        )
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum StmtKind {
    /// An expression evaluated for its effect: `f(x)`, `await g()`, a docstring.
    Expr(Expr),
    /// `a = b = value`: one or more targets (Name, Attribute, Subscript, Tuple, List, Starred).
    Assign {
        targets: Vec<Expr>,
        value: Expr,
    },
    /// `target op= value`.
    AugAssign {
        target: Expr,
        op: BinOp,
        value: Expr,
    },
    /// `target: annotation [= value]`. `simple` is true for a plain name not in parentheses.
    AnnAssign {
        target: Expr,
        annotation: Expr,
        value: Option<Expr>,
        simple: bool,
    },
    Pass,
    Break,
    Continue,
    /// `del a, b[0], c.d`.
    Delete(Vec<Expr>),
    Return(Option<Expr>),
    /// `raise`, `raise exc`, `raise exc from cause`.
    Raise {
        exc: Option<Expr>,
        cause: Option<Expr>,
    },
    Global(Vec<Ident>),
    Nonlocal(Vec<Ident>),
    Assert {
        test: Expr,
        msg: Option<Expr>,
    },
    /// `if`/`elif`/`else`: an `elif` is an `If` alone in `orelse`, as in CPython's AST.
    If {
        test: Expr,
        body: Vec<Stmt>,
        orelse: Vec<Stmt>,
    },
    While {
        test: Expr,
        body: Vec<Stmt>,
        orelse: Vec<Stmt>,
    },
    /// `for` and `async for`.
    For {
        is_async: bool,
        target: Expr,
        iter: Expr,
        body: Vec<Stmt>,
        orelse: Vec<Stmt>,
    },
    /// `try` with `except` (or `except*` when `is_star`), `else` and `finally`.
    Try {
        body: Vec<Stmt>,
        handlers: Vec<ExceptHandler>,
        orelse: Vec<Stmt>,
        finalbody: Vec<Stmt>,
        is_star: bool,
    },
    /// `with` and `async with`, with one or more items.
    With {
        is_async: bool,
        items: Vec<WithItem>,
        body: Vec<Stmt>,
    },
    /// `match subject:` and its `case` blocks (PEP 634).
    Match {
        subject: Expr,
        cases: Vec<MatchCase>,
    },
    FunctionDef(Box<FunctionDef>),
    ClassDef(Box<ClassDef>),
    /// `type Name[params] = value` (PEP 695): the value is evaluated lazily.
    TypeAlias {
        name: Ident,
        type_params: Vec<TypeParam>,
        value: Expr,
    },
    /// `import a.b as c, d`.
    Import(Vec<Alias>),
    /// `from .module import a as b, c` (`module` is None for `from . import x`).
    ImportFrom {
        module: Option<Ident>,
        names: Vec<Alias>,
        level: u32,
    },
}

/// `def` and `async def` share one node, told apart by `is_async` (as in ruff's AST).
#[derive(Clone, Debug, PartialEq)]
pub struct FunctionDef {
    pub name: Ident,
    pub params: Parameters,
    pub body: Vec<Stmt>,
    pub decorators: Vec<Expr>,
    pub returns: Option<Expr>,
    pub is_async: bool,
    /// PEP 695's `def f[T](…)`.
    pub type_params: Vec<TypeParam>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct ClassDef {
    pub name: Ident,
    pub bases: Vec<Expr>,
    pub keywords: Vec<Keyword>,
    pub body: Vec<Stmt>,
    pub decorators: Vec<Expr>,
    /// PEP 695's `class C[T]`.
    pub type_params: Vec<TypeParam>,
}

/// One type parameter of a generic `def`, `class` or `type` alias (PEP 695, with PEP
/// 696's default).
#[derive(Clone, Debug, PartialEq)]
pub struct TypeParam {
    pub kind: TypeParamKind,
    pub name: Ident,
    pub default: Option<Expr>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum TypeParamKind {
    /// `T` or `T: bound` (a tuple bound lists the constraints).
    TypeVar { bound: Option<Expr> },
    /// `*Ts`.
    TypeVarTuple,
    /// `**P`.
    ParamSpec,
}

/// The parameter list of a `def` or `lambda`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Parameters {
    /// Parameters before `/`.
    pub posonly: Vec<Param>,
    pub args: Vec<Param>,
    /// `*args`.
    pub vararg: Option<Param>,
    /// Parameters after `*` or `*args`.
    pub kwonly: Vec<Param>,
    /// `**kwargs`.
    pub kwarg: Option<Param>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    pub name: Ident,
    pub annotation: Option<Expr>,
    pub default: Option<Expr>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct ExceptHandler {
    /// The exception type expression; None for a bare `except:`.
    pub typ: Option<Expr>,
    pub name: Option<Ident>,
    pub body: Vec<Stmt>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct WithItem {
    pub context: Expr,
    pub target: Option<Expr>,
}

/// One `case pattern if guard:` block of a `match` (CPython's `match_case`).
#[derive(Clone, Debug, PartialEq)]
pub struct MatchCase {
    pub pattern: Pattern,
    pub guard: Option<Expr>,
    pub body: Vec<Stmt>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Pattern {
    pub kind: PatternKind,
    pub span: Span,
}

/// The patterns of `case` (CPython's `pattern` nodes).
#[derive(Clone, Debug, PartialEq)]
pub enum PatternKind {
    /// A literal compared with `==`, or a dotted name: `1`, `-2`, `"s"`, `Color.RED`.
    MatchValue(Expr),
    /// `None`, `True`, `False`, compared with `is`.
    MatchSingleton(Constant),
    /// `[a, *rest]`, `(a, b)`, `a, b`.
    MatchSequence(Vec<Pattern>),
    /// `{"k": p, **rest}`: `keys` are literals or dotted names.
    MatchMapping {
        keys: Vec<Expr>,
        patterns: Vec<Pattern>,
        rest: Option<Ident>,
    },
    /// `Point(x, y=0)`.
    MatchClass {
        cls: Expr,
        patterns: Vec<Pattern>,
        kwd_attrs: Vec<Ident>,
        kwd_patterns: Vec<Pattern>,
    },
    /// `*rest` in a sequence pattern (`*_` has no name).
    MatchStar(Option<Ident>),
    /// `p as name`, a capture `name` (no pattern) or the wildcard `_` (neither).
    MatchAs {
        pattern: Option<Box<Pattern>>,
        name: Option<Ident>,
    },
    /// `p1 | p2 | …`.
    MatchOr(Vec<Pattern>),
}

/// One name in an import: `a.b.c as d` has `name` "a.b.c".
#[derive(Clone, Debug, PartialEq)]
pub struct Alias {
    pub name: Ident,
    pub asname: Option<Ident>,
}

/// A keyword argument `arg=value`, or `**value` when `arg` is None.
#[derive(Clone, Debug, PartialEq)]
pub struct Keyword {
    pub arg: Option<Ident>,
    pub value: Expr,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    pub kind: ExprKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    /// `a and b and c`, `a or b`: a flat list of two or more operands.
    BoolOp {
        op: BoolOp,
        values: Vec<Expr>,
    },
    /// `target := value`; the target is always a Name.
    NamedExpr {
        target: Box<Expr>,
        value: Box<Expr>,
    },
    BinOp {
        left: Box<Expr>,
        op: BinOp,
        right: Box<Expr>,
    },
    UnaryOp {
        op: UnaryOp,
        operand: Box<Expr>,
    },
    Lambda {
        params: Box<Parameters>,
        body: Box<Expr>,
    },
    /// `body if test else orelse`.
    IfExp {
        test: Box<Expr>,
        body: Box<Expr>,
        orelse: Box<Expr>,
    },
    /// `{k: v, **m}`: a None key marks a `**m` entry whose mapping is in `values`.
    Dict {
        keys: Vec<Option<Expr>>,
        values: Vec<Expr>,
    },
    Set(Vec<Expr>),
    ListComp {
        elt: Box<Expr>,
        generators: Vec<Comprehension>,
    },
    SetComp {
        elt: Box<Expr>,
        generators: Vec<Comprehension>,
    },
    DictComp {
        key: Box<Expr>,
        value: Box<Expr>,
        generators: Vec<Comprehension>,
    },
    GeneratorExp {
        elt: Box<Expr>,
        generators: Vec<Comprehension>,
    },
    Await(Box<Expr>),
    Yield(Option<Box<Expr>>),
    YieldFrom(Box<Expr>),
    /// `a < b <= c`: `ops.len() == comparators.len()`.
    Compare {
        left: Box<Expr>,
        ops: Vec<CmpOp>,
        comparators: Vec<Expr>,
    },
    /// A call; positional `args` may contain `Starred`, `keywords` may contain `**` entries.
    Call {
        func: Box<Expr>,
        args: Vec<Expr>,
        keywords: Vec<Keyword>,
    },
    /// An f-string (CPython's `JoinedStr`), after adjacent literals are merged.
    /// `{x=}` is already expanded into the literal text `x=` and a `!r` conversion.
    FString(Vec<FStringPart>),
    Constant(Constant),
    Attribute {
        value: Box<Expr>,
        attr: Ident,
    },
    /// `value[slice]`; a `x[a:b]` has an `ExprKind::Slice` as its slice, `x[a, b]` a Tuple.
    Subscript {
        value: Box<Expr>,
        slice: Box<Expr>,
    },
    /// `*value` in a call, a display or an assignment target.
    Starred(Box<Expr>),
    Name(String),
    List(Vec<Expr>),
    Tuple(Vec<Expr>),
    /// `lower:upper:step` inside a subscript.
    Slice {
        lower: Option<Box<Expr>>,
        upper: Option<Box<Expr>>,
        step: Option<Box<Expr>>,
    },
}

/// A literal value. Adjacent string literals are already concatenated.
#[derive(Clone, Debug, PartialEq)]
pub enum Constant {
    None,
    Bool(bool),
    Ellipsis,
    Int(BigInt),
    Float(f64),
    /// An imaginary literal (`2.5j`): its imaginary part, of a complex whose real part is +0.0.
    Imaginary(f64),
    Str(String),
    Bytes(Vec<u8>),
}

#[derive(Clone, Debug, PartialEq)]
pub enum FStringPart {
    Literal(String),
    Formatted(FormattedValue),
}

/// One `{value!conversion:format_spec}` replacement field.
#[derive(Clone, Debug, PartialEq)]
pub struct FormattedValue {
    pub value: Box<Expr>,
    /// `'s'`, `'r'` or `'a'`.
    pub conversion: Option<char>,
    /// The spec after `:`, itself an f-string (it may contain `{width}` fields).
    pub format_spec: Option<Vec<FStringPart>>,
}

/// One `for target in iter if cond…` clause of a comprehension.
#[derive(Clone, Debug, PartialEq)]
pub struct Comprehension {
    pub target: Expr,
    pub iter: Expr,
    pub ifs: Vec<Expr>,
    pub is_async: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BoolOp {
    And,
    Or,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    Add,
    Sub,
    Mult,
    MatMult,
    Div,
    Mod,
    Pow,
    LShift,
    RShift,
    BitOr,
    BitXor,
    BitAnd,
    FloorDiv,
}

impl BinOp {
    /// The operator as written (`+`, `//`, …), used in messages like
    /// "unsupported operand type(s) for +: 'int' and 'str'".
    pub fn symbol(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mult => "*",
            BinOp::MatMult => "@",
            BinOp::Div => "/",
            BinOp::Mod => "%",
            BinOp::Pow => "**",
            BinOp::LShift => "<<",
            BinOp::RShift => ">>",
            BinOp::BitOr => "|",
            BinOp::BitXor => "^",
            BinOp::BitAnd => "&",
            BinOp::FloorDiv => "//",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnaryOp {
    Invert,
    Not,
    UAdd,
    USub,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CmpOp {
    Eq,
    NotEq,
    Lt,
    LtE,
    Gt,
    GtE,
    Is,
    IsNot,
    In,
    NotIn,
}

impl CmpOp {
    pub fn symbol(self) -> &'static str {
        match self {
            CmpOp::Eq => "==",
            CmpOp::NotEq => "!=",
            CmpOp::Lt => "<",
            CmpOp::LtE => "<=",
            CmpOp::Gt => ">",
            CmpOp::GtE => ">=",
            CmpOp::Is => "is",
            CmpOp::IsNot => "is not",
            CmpOp::In => "in",
            CmpOp::NotIn => "not in",
        }
    }
}
