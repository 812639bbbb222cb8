//! Symbol tables: which names are local, global, free or cell in each scope.
//!
//! The AST in, a [`SymbolTable`] out: one [`Scope`] per module, class, function, lambda,
//! comprehension and generator expression, found again by codegen through the address of
//! its AST node. Mirrors CPython 3.13's `Python/symtable.c` (`symtable_visit_*`, then
//! `analyze_block`), including PEP 709: list/set/dict comprehensions are marked `inlined`
//! when codegen can compile them into the enclosing code. Knows nothing of bytecode.

use std::collections::{HashMap, HashSet};

use super::error::{CompileError, CompileResult};
use super::future::Features;
use crate::syntax::ast::*;

pub type ScopeId = usize;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScopeKind {
    Module,
    Class,
    Function,
    Lambda,
    /// A list, set or dict comprehension.
    Comprehension,
    GeneratorExpression,
    /// PEP 695's annotation scope around a generic `def`, `class` or `type` alias
    /// (`<generic parameters of f>`): its locals are the type parameters.
    TypeParams,
    /// The lazily evaluated value of a `type` alias.
    TypeAlias,
    /// The lazily evaluated bound, constraints or default of one type parameter.
    TypeVariable,
}

impl ScopeKind {
    /// Scopes whose locals live in fast slots (CPython's `_PyST_IsFunctionLike`).
    pub fn is_function_like(self) -> bool {
        !matches!(self, ScopeKind::Module | ScopeKind::Class)
    }

    /// PEP 695's annotation scopes.
    pub fn is_annotation_scope(self) -> bool {
        matches!(
            self,
            ScopeKind::TypeParams | ScopeKind::TypeAlias | ScopeKind::TypeVariable
        )
    }
}

/// Where a name lives, once the whole program has been analysed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Binding {
    Local,
    /// A local of this scope captured by an inner scope.
    Cell,
    /// A variable of an enclosing function scope.
    Free,
    /// Declared `global` here.
    GlobalExplicit,
    /// Never bound in an enclosing function: a global or a builtin.
    GlobalImplicit,
}

/// How a name is used in its scope (CPython's `DEF_*` flags).
pub mod flags {
    pub const DEF_LOCAL: u16 = 1;
    pub const DEF_PARAM: u16 = 2;
    pub const DEF_GLOBAL: u16 = 4;
    pub const DEF_NONLOCAL: u16 = 8;
    pub const USE: u16 = 16;
    /// A class-body name that a method also uses as a free variable of an outer function.
    pub const DEF_FREE_CLASS: u16 = 32;
    pub const DEF_IMPORT: u16 = 64;
    pub const DEF_ANNOT: u16 = 128;
    /// A comprehension's iteration variable.
    pub const DEF_COMP_ITER: u16 = 256;
    pub const DEF_BOUND: u16 = DEF_LOCAL | DEF_PARAM | DEF_IMPORT;
}
use flags::*;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Symbol {
    pub flags: u16,
    pub binding: Binding,
}

#[derive(Clone, Debug)]
pub struct Scope {
    pub kind: ScopeKind,
    pub name: String,
    pub parent: Option<ScopeId>,
    /// Symbols in order of first appearance (parameters first).
    pub names: Vec<String>,
    pub symbols: HashMap<String, Symbol>,
    pub params: Vec<String>,
    pub children: Vec<ScopeId>,
    /// `async def`, or a comprehension that awaits or has an `async for`.
    pub is_coroutine: bool,
    /// Contains `yield` (a genexp always does).
    pub is_generator: bool,
    /// A class body whose methods use `__class__` (or `super`): it creates the cell.
    pub needs_class_closure: bool,
    /// A comprehension compiled into its parent's code (PEP 709).
    pub inlined: bool,
    /// An annotation scope directly inside a class body: the names it does not bind are
    /// looked up in the class namespace first, through the class's `__classdict__` cell.
    pub can_see_class_scope: bool,
    /// A class body with such an annotation scope inside: it makes the `__classdict__` cell.
    pub needs_classdict: bool,
    /// What a [`ScopeKind::TypeVariable`] evaluates, for errors ("a TypeVar bound").
    pub scope_info: &'static str,
    /// Free names needed by scopes nested in this one (not by this scope's own code).
    child_free: HashSet<String>,
    /// Where each `global`/`nonlocal` name was declared, for errors found in analysis.
    directives: HashMap<String, Span>,
    /// Names bound by this comprehension's `for` targets.
    comp_iter_names: HashSet<String>,
}

impl Scope {
    fn new(kind: ScopeKind, name: &str, parent: Option<ScopeId>) -> Scope {
        Scope {
            kind,
            name: name.to_string(),
            parent,
            names: Vec::new(),
            symbols: HashMap::new(),
            params: Vec::new(),
            children: Vec::new(),
            is_coroutine: false,
            is_generator: kind == ScopeKind::GeneratorExpression,
            needs_class_closure: false,
            inlined: false,
            can_see_class_scope: false,
            needs_classdict: false,
            scope_info: "",
            child_free: HashSet::new(),
            directives: HashMap::new(),
            comp_iter_names: HashSet::new(),
        }
    }

    pub fn lookup(&self, name: &str) -> Option<Symbol> {
        self.symbols.get(name).copied()
    }

    /// Names with the given binding, sorted as CPython sorts `co_cellvars`/`co_freevars`.
    pub fn sorted_names(&self, pred: impl Fn(&Symbol) -> bool) -> Vec<String> {
        let mut out: Vec<String> = self
            .names
            .iter()
            .filter(|n| pred(&self.symbols[n.as_str()]))
            .cloned()
            .collect();
        out.sort();
        out
    }
}

/// All scopes of a module; `scopes[0]` is the module.
#[derive(Debug)]
pub struct SymbolTable {
    pub scopes: Vec<Scope>,
    by_node: HashMap<usize, ScopeId>,
}

impl SymbolTable {
    /// The scope opened by an AST node (a `FunctionDef`, `ClassDef`, or a lambda /
    /// comprehension / generator expression `Expr`).
    pub fn scope_of<T>(&self, node: &T) -> Option<ScopeId> {
        self.by_node.get(&node_key(node)).copied()
    }
}

/// CPython's `_Py_Mangle`: inside class `_C`, `__x` becomes `_C__x`; dunder names, dotted
/// names and classes named only with underscores are left alone.
pub fn mangle<'n>(private: Option<&str>, name: &'n str) -> std::borrow::Cow<'n, str> {
    let class = private.map(|p| p.trim_start_matches('_')).unwrap_or("");
    if !name.starts_with("__") || name.ends_with("__") || name.contains('.') || class.is_empty() {
        return std::borrow::Cow::Borrowed(name);
    }
    std::borrow::Cow::Owned(format!("_{class}{name}"))
}

fn node_key<T>(node: &T) -> usize {
    node as *const T as usize
}

/// Build and analyse the symbol table of a module. `top_level_await` allows `await`,
/// `async for` and `async with` in the module body (the REPL); `features` are the
/// module's `from __future__` imports.
pub fn build(
    module: &Module,
    top_level_await: bool,
    features: Features,
) -> CompileResult<SymbolTable> {
    let mut builder = Builder {
        table: SymbolTable {
            scopes: vec![Scope::new(ScopeKind::Module, "top", None)],
            by_node: HashMap::new(),
        },
        current: 0,
        top_level_await,
        annotations_are_text: features.annotations,
        in_comprehension_target: false,
        private: None,
        in_comp_iter: 0,
    };
    for stmt in &module.body {
        builder.visit_stmt(stmt)?;
    }
    let mut table = builder.table;
    let mut free = HashSet::new();
    analyze_block(&mut table, 0, None, &HashSet::new(), &mut free)?;
    Ok(table)
}

struct Builder {
    table: SymbolTable,
    current: ScopeId,
    top_level_await: bool,
    /// `from __future__ import annotations`: annotations are never evaluated, so their
    /// names are no uses.
    annotations_are_text: bool,
    /// Visiting the `for` target of a comprehension (its names are iteration variables).
    in_comprehension_target: bool,
    /// The innermost enclosing class, whose name mangles `__private` names.
    private: Option<String>,
    /// Inside the iterable of a comprehension's `for` (nested scopes included), where `:=`
    /// is not allowed.
    in_comp_iter: u32,
}

impl Builder {
    fn lookup_flags(&self, name: &str) -> u16 {
        let scope = &self.table.scopes[self.current];
        scope.lookup(&self.mangled(name)).map_or(0, |s| s.flags)
    }
}

impl Builder {
    fn scope(&mut self) -> &mut Scope {
        &mut self.table.scopes[self.current]
    }

    fn enter<T>(&mut self, kind: ScopeKind, name: &str, node: &T) -> ScopeId {
        let id = self.table.scopes.len();
        self.table
            .scopes
            .push(Scope::new(kind, name, Some(self.current)));
        self.table.scopes[self.current].children.push(id);
        self.table.by_node.insert(node_key(node), id);
        self.current = id;
        id
    }

    fn leave(&mut self) {
        self.current = self.table.scopes[self.current].parent.unwrap_or(0);
    }

    /// Visit the iterable of a comprehension's `for` clause.
    fn visit_comp_iter(&mut self, iter: &Expr) -> CompileResult<()> {
        self.in_comp_iter += 1;
        let result = self.visit_expr(iter);
        self.in_comp_iter -= 1;
        result
    }

    /// `name` as it is stored: `__x` in class `C` (and in its methods) is `_C__x`.
    fn mangled(&self, name: &str) -> String {
        mangle(self.private.as_deref(), name).into_owned()
    }

    fn add_def_in(&mut self, scope: ScopeId, name: &str, flag: u16) {
        let name = &self.mangled(name);
        let s = &mut self.table.scopes[scope];
        match s.symbols.get_mut(name) {
            Some(sym) => sym.flags |= flag,
            None => {
                s.names.push(name.to_string());
                s.symbols.insert(
                    name.to_string(),
                    Symbol {
                        flags: flag,
                        binding: Binding::GlobalImplicit,
                    },
                );
            }
        }
    }

    fn add_def(&mut self, name: &str, flag: u16) {
        self.add_def_in(self.current, name, flag);
    }

    fn add_param(&mut self, param: &Ident) -> CompileResult<()> {
        let name = self.mangled(&param.name);
        if self.scope().symbols.contains_key(&name) {
            return Err(CompileError::new(
                format!("duplicate argument '{}' in function definition", param.name),
                param.span,
            ));
        }
        self.add_def(&param.name, DEF_PARAM);
        self.scope().params.push(name);
        Ok(())
    }

    fn visit_body(&mut self, body: &[Stmt]) -> CompileResult<()> {
        body.iter().try_for_each(|s| self.visit_stmt(s))
    }

    fn visit_stmt(&mut self, stmt: &Stmt) -> CompileResult<()> {
        match &stmt.kind {
            StmtKind::Expr(e) => self.visit_expr(e),
            StmtKind::Assign { targets, value } => {
                self.visit_expr(value)?;
                targets.iter().try_for_each(|t| self.visit_target(t))
            }
            StmtKind::AugAssign { target, value, .. } => {
                self.visit_target(target)?;
                self.visit_expr(value)
            }
            StmtKind::AnnAssign {
                target,
                annotation,
                value,
                simple,
            } => {
                if let (ExprKind::Name(name), true) = (&target.kind, *simple) {
                    let cur = self.lookup_flags(name);
                    if cur & (DEF_GLOBAL | DEF_NONLOCAL) != 0 && cur & DEF_ANNOT == 0 {
                        let which = if cur & DEF_GLOBAL != 0 {
                            "global"
                        } else {
                            "nonlocal"
                        };
                        return Err(CompileError::new(
                            format!("annotated name '{name}' can't be {which}"),
                            target.span,
                        ));
                    }
                    self.add_def(name, DEF_LOCAL | DEF_ANNOT);
                } else {
                    self.visit_target(target)?;
                }
                // Annotations are evaluated in module and class bodies only.
                if !self.scope().kind.is_function_like() && !self.annotations_are_text {
                    self.visit_expr(annotation)?;
                }
                value.iter().try_for_each(|v| self.visit_expr(v))
            }
            StmtKind::Pass | StmtKind::Break | StmtKind::Continue => Ok(()),
            StmtKind::Delete(targets) => targets.iter().try_for_each(|t| self.visit_target(t)),
            StmtKind::Return(value) => {
                if !self.scope().kind.is_function_like() {
                    return Err(CompileError::new("'return' outside function", stmt.span));
                }
                value.iter().try_for_each(|v| self.visit_expr(v))
            }
            StmtKind::Raise { exc, cause } => {
                exc.iter().try_for_each(|v| self.visit_expr(v))?;
                cause.iter().try_for_each(|v| self.visit_expr(v))
            }
            StmtKind::Global(names) => {
                for ident in names {
                    let cur = self.lookup_flags(&ident.name);
                    if cur & (DEF_PARAM | DEF_LOCAL | USE | DEF_ANNOT) != 0 {
                        let name = &ident.name;
                        let message = if cur & DEF_PARAM != 0 {
                            format!("name '{name}' is parameter and global")
                        } else if cur & USE != 0 {
                            format!("name '{name}' is used prior to global declaration")
                        } else if cur & DEF_ANNOT != 0 {
                            format!("annotated name '{name}' can't be global")
                        } else {
                            format!("name '{name}' is assigned to before global declaration")
                        };
                        return Err(CompileError::new(message, stmt.span));
                    }
                    self.add_def(&ident.name, DEF_GLOBAL);
                    let key = self.mangled(&ident.name);
                    self.scope().directives.entry(key).or_insert(stmt.span);
                }
                Ok(())
            }
            StmtKind::Nonlocal(names) => {
                if self.scope().kind == ScopeKind::Module {
                    return Err(CompileError::new(
                        "nonlocal declaration not allowed at module level",
                        stmt.span,
                    ));
                }
                for ident in names {
                    let cur = self.lookup_flags(&ident.name);
                    if cur & (DEF_PARAM | DEF_LOCAL | USE | DEF_ANNOT) != 0 {
                        let name = &ident.name;
                        let message = if cur & DEF_PARAM != 0 {
                            format!("name '{name}' is parameter and nonlocal")
                        } else if cur & USE != 0 {
                            format!("name '{name}' is used prior to nonlocal declaration")
                        } else if cur & DEF_ANNOT != 0 {
                            format!("annotated name '{name}' can't be nonlocal")
                        } else {
                            format!("name '{name}' is assigned to before nonlocal declaration")
                        };
                        return Err(CompileError::new(message, stmt.span));
                    }
                    self.add_def(&ident.name, DEF_NONLOCAL);
                    let key = self.mangled(&ident.name);
                    self.scope().directives.entry(key).or_insert(stmt.span);
                }
                Ok(())
            }
            StmtKind::Assert { test, msg } => {
                self.visit_expr(test)?;
                msg.iter().try_for_each(|v| self.visit_expr(v))
            }
            StmtKind::If { test, body, orelse } | StmtKind::While { test, body, orelse } => {
                self.visit_expr(test)?;
                self.visit_body(body)?;
                self.visit_body(orelse)
            }
            StmtKind::For {
                is_async,
                target,
                iter,
                body,
                orelse,
            } => {
                if *is_async {
                    self.check_async(stmt.span, "'async for' outside async function")?;
                }
                self.visit_target(target)?;
                self.visit_expr(iter)?;
                self.visit_body(body)?;
                self.visit_body(orelse)
            }
            StmtKind::Try {
                body,
                handlers,
                orelse,
                finalbody,
                ..
            } => {
                self.visit_body(body)?;
                for h in handlers {
                    h.typ.iter().try_for_each(|t| self.visit_expr(t))?;
                    if let Some(name) = &h.name {
                        self.add_def(&name.name, DEF_LOCAL);
                    }
                    self.visit_body(&h.body)?;
                }
                self.visit_body(orelse)?;
                self.visit_body(finalbody)
            }
            StmtKind::With {
                is_async,
                items,
                body,
            } => {
                if *is_async {
                    self.check_async(stmt.span, "'async with' outside async function")?;
                }
                for item in items {
                    self.visit_expr(&item.context)?;
                    if let Some(t) = &item.target {
                        self.visit_target(t)?;
                    }
                }
                self.visit_body(body)
            }
            StmtKind::Match { subject, cases } => {
                self.visit_expr(subject)?;
                for case in cases {
                    self.visit_pattern(&case.pattern)?;
                    case.guard.iter().try_for_each(|g| self.visit_expr(g))?;
                    self.visit_body(&case.body)?;
                }
                Ok(())
            }
            StmtKind::FunctionDef(def) => {
                self.add_def(&def.name.name, DEF_LOCAL);
                self.visit_defaults(&def.params)?;
                def.decorators.iter().try_for_each(|d| self.visit_expr(d))?;
                let generic = !def.type_params.is_empty();
                if generic {
                    let (defaults, kwdefaults) = has_defaults(&def.params);
                    self.enter_type_params(&def.name.name, &def.type_params)?;
                    if defaults {
                        self.add_param_named(".defaults");
                    }
                    if kwdefaults {
                        self.add_param_named(".kwdefaults");
                    }
                    self.visit_type_params(&def.type_params)?;
                }
                self.visit_annotations(&def.params, def.returns.as_ref())?;
                self.enter(ScopeKind::Function, &def.name.name, &**def);
                self.scope().is_coroutine = def.is_async;
                self.visit_params(&def.params)?;
                self.visit_body(&def.body)?;
                self.leave();
                if generic {
                    self.leave();
                }
                Ok(())
            }
            StmtKind::TypeAlias {
                name,
                type_params,
                value,
            } => {
                self.add_def(&name.name, DEF_LOCAL);
                let generic = !type_params.is_empty();
                if generic {
                    self.enter_type_params(&name.name, type_params)?;
                    self.visit_type_params(type_params)?;
                }
                // Keyed by the name: the value may itself open a scope (`type F = lambda: 0`).
                self.enter_annotation(ScopeKind::TypeAlias, &name.name, name, "");
                self.visit_expr(value)?;
                self.leave();
                if generic {
                    self.leave();
                }
                Ok(())
            }
            StmtKind::ClassDef(class) => {
                self.add_def(&class.name.name, DEF_LOCAL);
                class
                    .decorators
                    .iter()
                    .try_for_each(|d| self.visit_expr(d))?;
                let generic = !class.type_params.is_empty();
                let outer_private = self.private.clone();
                if generic {
                    self.enter_type_params(&class.name.name, &class.type_params)?;
                    self.private = Some(class.name.name.clone());
                    self.visit_type_params(&class.type_params)?;
                    // The parameter tuple and the `Generic[...]` base added to the bases,
                    // after the parameters (the order CPython's code numbers them in).
                    for hidden in [".type_params", ".generic_base"] {
                        self.add_def(hidden, DEF_LOCAL);
                        self.add_def(hidden, USE);
                    }
                }
                class.bases.iter().try_for_each(|b| self.visit_expr(b))?;
                class
                    .keywords
                    .iter()
                    .try_for_each(|k| self.visit_expr(&k.value))?;
                self.enter(ScopeKind::Class, &class.name.name, &**class);
                self.private = Some(class.name.name.clone());
                if generic {
                    self.add_def("__type_params__", DEF_LOCAL);
                    self.add_def(".type_params", USE);
                }
                let result = self.visit_body(&class.body);
                self.private = outer_private;
                result?;
                self.leave();
                if generic {
                    self.leave();
                }
                Ok(())
            }
            StmtKind::Import(aliases) => {
                for alias in aliases {
                    let bound = match &alias.asname {
                        Some(asname) => asname.name.as_str(),
                        None => alias.name.name.split('.').next().unwrap_or(""),
                    };
                    self.add_def(bound, DEF_IMPORT);
                }
                Ok(())
            }
            StmtKind::ImportFrom { names, .. } => {
                for alias in names {
                    if alias.name.name == "*" {
                        if self.scope().kind != ScopeKind::Module {
                            return Err(CompileError::new(
                                "import * only allowed at module level",
                                stmt.span,
                            ));
                        }
                        continue;
                    }
                    let bound = alias.asname.as_ref().unwrap_or(&alias.name);
                    self.add_def(&bound.name, DEF_IMPORT);
                }
                Ok(())
            }
        }
    }

    /// `async for` / `async with` need an async function (or the REPL's top level).
    fn check_async(&mut self, span: Span, message: &str) -> CompileResult<()> {
        let top_level_await = self.top_level_await;
        let scope = self.scope();
        let allowed = match scope.kind {
            ScopeKind::Function => scope.is_coroutine,
            ScopeKind::Module => top_level_await,
            _ => false,
        };
        if !allowed {
            return Err(CompileError::new(message, span));
        }
        if scope.kind == ScopeKind::Module {
            scope.is_coroutine = true;
        }
        Ok(())
    }

    fn visit_defaults(&mut self, params: &Parameters) -> CompileResult<()> {
        for p in params
            .posonly
            .iter()
            .chain(&params.args)
            .chain(&params.kwonly)
        {
            if let Some(d) = &p.default {
                self.visit_expr(d)?;
            }
        }
        Ok(())
    }

    /// Parameter and return annotations, evaluated where the `def` runs.
    fn visit_annotations(
        &mut self,
        params: &Parameters,
        returns: Option<&Expr>,
    ) -> CompileResult<()> {
        if self.annotations_are_text {
            return Ok(());
        }
        let all = params
            .posonly
            .iter()
            .chain(&params.args)
            .chain(&params.vararg)
            .chain(&params.kwonly)
            .chain(&params.kwarg);
        for p in all {
            if let Some(a) = &p.annotation {
                self.visit_expr(a)?;
            }
        }
        returns.iter().try_for_each(|r| self.visit_expr(r))
    }

    fn visit_params(&mut self, params: &Parameters) -> CompileResult<()> {
        for p in params.posonly.iter().chain(&params.args) {
            self.add_param(&p.name)?;
        }
        for p in &params.kwonly {
            self.add_param(&p.name)?;
        }
        if let Some(p) = &params.vararg {
            self.add_param(&p.name)?;
        }
        if let Some(p) = &params.kwarg {
            self.add_param(&p.name)?;
        }
        Ok(())
    }

    /// A `case` pattern: captures are stores, values and class names are loads.
    fn visit_pattern(&mut self, pattern: &Pattern) -> CompileResult<()> {
        let capture = |this: &mut Self, name: &Option<Ident>| {
            if let Some(name) = name {
                this.add_def(&name.name, DEF_LOCAL);
            }
        };
        match &pattern.kind {
            PatternKind::MatchValue(value) => self.visit_expr(value),
            PatternKind::MatchSingleton(_) => Ok(()),
            PatternKind::MatchSequence(items) | PatternKind::MatchOr(items) => {
                items.iter().try_for_each(|p| self.visit_pattern(p))
            }
            PatternKind::MatchStar(name) => {
                capture(self, name);
                Ok(())
            }
            PatternKind::MatchMapping {
                keys,
                patterns,
                rest,
            } => {
                keys.iter().try_for_each(|k| self.visit_expr(k))?;
                patterns.iter().try_for_each(|p| self.visit_pattern(p))?;
                capture(self, rest);
                Ok(())
            }
            PatternKind::MatchClass {
                cls,
                patterns,
                kwd_patterns,
                ..
            } => {
                self.visit_expr(cls)?;
                patterns
                    .iter()
                    .chain(kwd_patterns)
                    .try_for_each(|p| self.visit_pattern(p))
            }
            PatternKind::MatchAs { pattern, name } => {
                pattern.iter().try_for_each(|p| self.visit_pattern(p))?;
                capture(self, name);
                Ok(())
            }
        }
    }

    /// An assignment / deletion target.
    fn visit_target(&mut self, target: &Expr) -> CompileResult<()> {
        match &target.kind {
            ExprKind::Name(name) => {
                self.add_def(name, DEF_LOCAL);
                if self.in_comprehension_target {
                    let key = self.mangled(name);
                    self.scope().comp_iter_names.insert(key);
                    self.add_def(name, DEF_COMP_ITER);
                }
                Ok(())
            }
            ExprKind::Tuple(elts) | ExprKind::List(elts) => {
                elts.iter().try_for_each(|e| self.visit_target(e))
            }
            ExprKind::Starred(inner) => self.visit_target(inner),
            ExprKind::Attribute { value, .. } => self.visit_expr(value),
            ExprKind::Subscript { value, slice } => {
                self.visit_expr(value)?;
                self.visit_expr(slice)
            }
            _ => self.visit_expr(target),
        }
    }

    fn visit_expr(&mut self, expr: &Expr) -> CompileResult<()> {
        match &expr.kind {
            ExprKind::Name(name) => {
                self.add_def(name, USE);
                if name == "super" && self.scope().kind.is_function_like() {
                    self.add_def("__class__", USE);
                }
                Ok(())
            }
            ExprKind::BoolOp { values, .. } => values.iter().try_for_each(|v| self.visit_expr(v)),
            ExprKind::NamedExpr { target, value } => {
                if self.in_comp_iter > 0 {
                    return Err(CompileError::new(
                        "assignment expression cannot be used in a comprehension iterable expression",
                        target.span,
                    ));
                }
                self.refuse_in_annotation_scope("named expression", expr.span)?;
                self.visit_expr(value)?;
                self.visit_named_target(target)
            }
            ExprKind::BinOp { left, right, .. } => {
                self.visit_expr(left)?;
                self.visit_expr(right)
            }
            ExprKind::UnaryOp { operand, .. } => self.visit_expr(operand),
            ExprKind::Lambda { params, body } => {
                self.visit_defaults(params)?;
                self.enter(ScopeKind::Lambda, "lambda", expr);
                self.visit_params(params)?;
                self.visit_expr(body)?;
                self.leave();
                Ok(())
            }
            ExprKind::IfExp { test, body, orelse } => {
                self.visit_expr(test)?;
                self.visit_expr(body)?;
                self.visit_expr(orelse)
            }
            ExprKind::Dict { keys, values } => {
                keys.iter().flatten().try_for_each(|k| self.visit_expr(k))?;
                values.iter().try_for_each(|v| self.visit_expr(v))
            }
            ExprKind::Set(elts) | ExprKind::List(elts) | ExprKind::Tuple(elts) => {
                elts.iter().try_for_each(|e| self.visit_expr(e))
            }
            ExprKind::ListComp { elt, generators } | ExprKind::SetComp { elt, generators } => {
                self.visit_comprehension(expr, ScopeKind::Comprehension, generators, &[elt])
            }
            ExprKind::DictComp {
                key,
                value,
                generators,
            } => {
                self.visit_comprehension(expr, ScopeKind::Comprehension, generators, &[key, value])
            }
            ExprKind::GeneratorExp { elt, generators } => {
                self.visit_comprehension(expr, ScopeKind::GeneratorExpression, generators, &[elt])
            }
            ExprKind::Await(value) => {
                self.refuse_in_annotation_scope("await expression", expr.span)?;
                let top_level_await = self.top_level_await;
                let scope = self.scope();
                match scope.kind {
                    ScopeKind::Comprehension | ScopeKind::GeneratorExpression => {
                        scope.is_coroutine = true
                    }
                    ScopeKind::Module if top_level_await => scope.is_coroutine = true,
                    _ => {}
                }
                self.visit_expr(value)
            }
            ExprKind::Yield(value) => {
                self.refuse_in_annotation_scope("yield expression", expr.span)?;
                self.note_yield(expr.span)?;
                value.iter().try_for_each(|v| self.visit_expr(v))
            }
            ExprKind::YieldFrom(value) => {
                self.refuse_in_annotation_scope("yield expression", expr.span)?;
                self.note_yield(expr.span)?;
                self.visit_expr(value)
            }
            ExprKind::Compare {
                left, comparators, ..
            } => {
                self.visit_expr(left)?;
                comparators.iter().try_for_each(|c| self.visit_expr(c))
            }
            ExprKind::Call {
                func,
                args,
                keywords,
            } => {
                self.visit_expr(func)?;
                args.iter().try_for_each(|a| self.visit_expr(a))?;
                keywords.iter().try_for_each(|k| self.visit_expr(&k.value))
            }
            ExprKind::FString(parts) => self.visit_fstring(parts),
            ExprKind::Constant(_) => Ok(()),
            ExprKind::Attribute { value, .. } => self.visit_expr(value),
            ExprKind::Subscript { value, slice } => {
                self.visit_expr(value)?;
                self.visit_expr(slice)
            }
            ExprKind::Starred(value) => self.visit_expr(value),
            ExprKind::Slice { lower, upper, step } => {
                for part in [lower, upper, step].into_iter().flatten() {
                    self.visit_expr(part)?;
                }
                Ok(())
            }
        }
    }

    fn visit_fstring(&mut self, parts: &[FStringPart]) -> CompileResult<()> {
        for part in parts {
            if let FStringPart::Formatted(f) = part {
                self.visit_expr(&f.value)?;
                if let Some(spec) = &f.format_spec {
                    self.visit_fstring(spec)?;
                }
            }
        }
        Ok(())
    }

    fn note_yield(&mut self, span: Span) -> CompileResult<()> {
        let scope = self.scope();
        match scope.kind {
            ScopeKind::Module | ScopeKind::Class => {
                Err(CompileError::new("'yield' outside function", span))
            }
            ScopeKind::Comprehension => Err(CompileError::new(
                format!("'yield' inside {} comprehension", scope.name),
                span,
            )),
            ScopeKind::GeneratorExpression => Err(CompileError::new(
                "'yield' inside generator expression",
                span,
            )),
            ScopeKind::Function | ScopeKind::Lambda => {
                scope.is_generator = true;
                Ok(())
            }
            // Refused before: `refuse_in_annotation_scope`.
            ScopeKind::TypeParams | ScopeKind::TypeAlias | ScopeKind::TypeVariable => Ok(()),
        }
    }

    /// CPython's `symtable_enter_type_param_block`: the annotation scope of a generic `def`,
    /// `class` or `type` alias, keyed by its parameter list. (The parameters come as the
    /// `Vec` whose address is the key.)
    #[allow(clippy::ptr_arg)]
    fn enter_type_params(&mut self, name: &str, params: &Vec<TypeParam>) -> CompileResult<()> {
        let in_class = self.scope().kind == ScopeKind::Class;
        self.enter(
            ScopeKind::TypeParams,
            &format!("<generic parameters of {name}>"),
            params,
        );
        if in_class {
            self.scope().can_see_class_scope = true;
            self.add_def("__classdict__", USE);
        }
        let mut seen = HashSet::new();
        for p in params {
            if !seen.insert(p.name.name.as_str()) {
                return Err(CompileError::new(
                    format!("duplicate type parameter '{}'", p.name.name),
                    p.name.span,
                ));
            }
        }
        Ok(())
    }

    /// A hidden parameter of an annotation scope (`.defaults`, `.kwdefaults`).
    fn add_param_named(&mut self, name: &str) {
        self.add_def(name, DEF_PARAM);
        self.scope().params.push(name.to_string());
    }

    /// An annotation scope that evaluates `node` lazily (a `type` alias's value, a type
    /// parameter's bound or default), seeing the class body it is in as its parent does.
    fn enter_annotation<T>(&mut self, kind: ScopeKind, name: &str, node: &T, info: &'static str) {
        let in_class = match self.scope().kind {
            ScopeKind::Class => true,
            ScopeKind::TypeParams => self.scope().can_see_class_scope,
            _ => false,
        };
        self.enter(kind, name, node);
        self.scope().scope_info = info;
        if in_class {
            self.scope().can_see_class_scope = true;
            self.add_def("__classdict__", USE);
        }
    }

    /// The type parameters: each a local of the annotation scope, its bound, constraints
    /// and default each evaluated lazily in a scope of its own, keyed by the parameter's
    /// name and span (the expression may open a scope of its own, a lambda's).
    fn visit_type_params(&mut self, params: &[TypeParam]) -> CompileResult<()> {
        for p in params {
            self.add_def(&p.name.name, DEF_LOCAL);
            let kind = match &p.kind {
                TypeParamKind::TypeVar { bound } => {
                    if let Some(bound) = bound {
                        let info = match bound.kind {
                            ExprKind::Tuple(_) => "a TypeVar constraint",
                            _ => "a TypeVar bound",
                        };
                        self.enter_annotation(ScopeKind::TypeVariable, &p.name.name, &p.name, info);
                        self.visit_expr(bound)?;
                        self.leave();
                    }
                    "TypeVar"
                }
                TypeParamKind::TypeVarTuple => "TypeVarTuple",
                TypeParamKind::ParamSpec => "ParamSpec",
            };
            if let Some(default) = &p.default {
                let info = match kind {
                    "TypeVar" => "a TypeVar default",
                    "TypeVarTuple" => "a TypeVarTuple default",
                    _ => "a ParamSpec default",
                };
                self.enter_annotation(ScopeKind::TypeVariable, &p.name.name, &p.span, info);
                self.visit_expr(default)?;
                self.leave();
            }
        }
        Ok(())
    }

    /// CPython's `symtable_raise_if_annotation_block`.
    fn refuse_in_annotation_scope(&mut self, what: &str, span: Span) -> CompileResult<()> {
        let scope = self.scope();
        let within = match scope.kind {
            ScopeKind::TypeVariable => scope.scope_info,
            ScopeKind::TypeAlias => "a type alias",
            ScopeKind::TypeParams => "the definition of a generic",
            _ => return Ok(()),
        };
        Err(CompileError::new(
            format!("{what} cannot be used within {within}"),
            span,
        ))
    }

    /// `name := value`: inside comprehensions the name binds in the nearest enclosing
    /// scope that is not a comprehension (CPython's `symtable_extend_namedexpr_scope`).
    fn visit_named_target(&mut self, target: &Expr) -> CompileResult<()> {
        let ExprKind::Name(name) = &target.kind else {
            return self.visit_target(target);
        };
        let key = self.mangled(name);
        let mut id = self.current;
        let mut comps = Vec::new();
        loop {
            let scope = &self.table.scopes[id];
            match scope.kind {
                ScopeKind::Comprehension | ScopeKind::GeneratorExpression => {
                    if scope.comp_iter_names.contains(&key) {
                        return Err(CompileError::new(
                            format!(
                                "assignment expression cannot rebind comprehension iteration variable '{name}'"
                            ),
                            target.span,
                        ));
                    }
                    comps.push(id);
                    id = scope.parent.unwrap_or(0);
                }
                ScopeKind::Class if !comps.is_empty() => {
                    return Err(CompileError::new(
                        "assignment expression within a comprehension cannot be used in a class body",
                        target.span,
                    ));
                }
                kind => {
                    if comps.is_empty() {
                        self.add_def(name, DEF_LOCAL);
                        return Ok(());
                    }
                    let (outer, inner) = if kind == ScopeKind::Module {
                        (DEF_GLOBAL, DEF_GLOBAL)
                    } else {
                        (DEF_LOCAL, DEF_NONLOCAL)
                    };
                    self.add_def_in(id, name, outer);
                    for comp in comps {
                        self.add_def_in(comp, name, inner | USE);
                    }
                    return Ok(());
                }
            }
        }
    }

    /// The first iterable is evaluated in the enclosing scope; everything else inside the
    /// comprehension's own scope, whose `.0` parameter is that iterator.
    fn visit_comprehension(
        &mut self,
        expr: &Expr,
        kind: ScopeKind,
        generators: &[Comprehension],
        elts: &[&Expr],
    ) -> CompileResult<()> {
        let Some(first) = generators.first() else {
            return Ok(());
        };
        self.visit_comp_iter(&first.iter)?;
        let name = match &expr.kind {
            ExprKind::ListComp { .. } => "list",
            ExprKind::SetComp { .. } => "set",
            ExprKind::DictComp { .. } => "dict",
            _ => "genexpr",
        };
        let id = self.enter(kind, name, expr);
        self.add_def(".0", DEF_PARAM);
        self.scope().params.push(".0".to_string());
        for (i, generator) in generators.iter().enumerate() {
            if generator.is_async {
                self.scope().is_coroutine = true;
            }
            if i > 0 {
                self.visit_comp_iter(&generator.iter)?;
            }
            self.in_comprehension_target = true;
            let result = self.visit_target(&generator.target);
            self.in_comprehension_target = false;
            result?;
            generator.ifs.iter().try_for_each(|c| self.visit_expr(c))?;
        }
        elts.iter().try_for_each(|e| self.visit_expr(e))?;
        self.leave();
        // An async list comprehension makes an enclosing comprehension async too (and the
        // REPL's top level, which awaits it).
        let child = &self.table.scopes[id];
        if child.is_coroutine && kind == ScopeKind::Comprehension {
            let top_level_await = self.top_level_await;
            let parent = self.scope();
            match parent.kind {
                ScopeKind::Comprehension | ScopeKind::GeneratorExpression => {
                    parent.is_coroutine = true
                }
                ScopeKind::Module if top_level_await => parent.is_coroutine = true,
                _ => {}
            }
        }
        Ok(())
    }
}

/// Whether a `def` has positional defaults and keyword-only defaults.
fn has_defaults(params: &Parameters) -> (bool, bool) {
    let positional = params
        .posonly
        .iter()
        .chain(&params.args)
        .any(|p| p.default.is_some());
    (
        positional,
        params.kwonly.iter().any(|p| p.default.is_some()),
    )
}

/// CPython's `analyze_block`: resolve every name of `id` and its children. `bound` holds
/// the names bound in enclosing function scopes (None at module level), `global` the names
/// known to be global. Free names this block needs from outside are added to `free`.
fn analyze_block(
    table: &mut SymbolTable,
    id: ScopeId,
    bound: Option<&HashSet<String>>,
    global: &HashSet<String>,
    free: &mut HashSet<String>,
) -> CompileResult<()> {
    let kind = table.scopes[id].kind;
    let mut local = HashSet::new();
    let mut bindings: HashMap<String, Binding> = HashMap::new();
    let mut bound_here: Option<HashSet<String>> = bound.cloned();
    let mut global_here = global.clone();
    let mut new_bound = HashSet::new();
    let mut new_global = HashSet::new();
    if kind == ScopeKind::Class {
        new_global.extend(global.iter().cloned());
        if let Some(b) = bound {
            new_bound.extend(b.iter().cloned());
        }
    }
    let mut own_free = HashSet::new();
    {
        let scope = &table.scopes[id];
        for name in &scope.names {
            let fl = scope.symbols[name].flags;
            let directive = || scope.directives.get(name).copied().unwrap_or_default();
            let binding = if fl & DEF_GLOBAL != 0 {
                if fl & DEF_NONLOCAL != 0 {
                    return Err(CompileError::new(
                        format!("name '{name}' is nonlocal and global"),
                        directive(),
                    ));
                }
                global_here.insert(name.clone());
                if let Some(b) = bound_here.as_mut() {
                    b.remove(name);
                }
                Binding::GlobalExplicit
            } else if fl & DEF_NONLOCAL != 0 {
                if !bound_here.as_ref().is_some_and(|b| b.contains(name)) {
                    return Err(CompileError::new(
                        format!("no binding for nonlocal '{name}' found"),
                        directive(),
                    ));
                }
                own_free.insert(name.clone());
                Binding::Free
            } else if fl & DEF_BOUND != 0 {
                local.insert(name.clone());
                global_here.remove(name);
                Binding::Local
            } else if bound_here.as_ref().is_some_and(|b| b.contains(name)) {
                own_free.insert(name.clone());
                Binding::Free
            } else {
                Binding::GlobalImplicit
            };
            bindings.insert(name.clone(), binding);
        }
    }
    if kind == ScopeKind::Class {
        new_bound.insert("__class__".to_string());
        new_bound.insert("__classdict__".to_string());
    } else {
        if kind.is_function_like() {
            new_bound.extend(local.iter().cloned());
        }
        if let Some(b) = &bound_here {
            new_bound.extend(b.iter().cloned());
        }
        new_global.extend(global_here.iter().cloned());
    }

    // Children: each reports the free names it needs.
    let children = table.scopes[id].children.clone();
    let mut child_frees = Vec::with_capacity(children.len());
    for &child in &children {
        let mut child_free = HashSet::new();
        analyze_block(table, child, Some(&new_bound), &new_global, &mut child_free)?;
        child_frees.push(child_free);
    }

    // PEP 709: decide which comprehensions compile inline, then gather the free names.
    let can_inline_here = kind != ScopeKind::Class;
    let candidates: Vec<bool> = children
        .iter()
        .map(|&c| {
            let child = &table.scopes[c];
            can_inline_here
                && child.kind == ScopeKind::Comprehension
                && !child.symbols.values().any(|s| s.binding == Binding::Cell)
        })
        .collect();
    let mut inlined = candidates.clone();
    let mut new_free;
    loop {
        new_free = HashSet::new();
        for (i, &child) in children.iter().enumerate() {
            if inlined[i] {
                // Names the comprehension's own code uses are accessed directly in our code;
                // only what its nested scopes capture must come through a cell.
                let child_scope = &table.scopes[child];
                for name in &child_frees[i] {
                    let ours_local = bindings.get(name) == Some(&Binding::Local);
                    if !ours_local || child_scope.child_free.contains(name) {
                        new_free.insert(name.clone());
                    }
                }
            } else {
                new_free.extend(child_frees[i].iter().cloned());
            }
        }
        // A comprehension cannot be inlined when one of its variables is, in our scope,
        // anything but a plain fast local (a cell, a free or a global variable).
        let mut changed = false;
        for (i, &child) in children.iter().enumerate() {
            if !inlined[i] {
                continue;
            }
            let conflict = comp_bound_names(table, child).iter().any(|name| {
                let ours = bindings.get(name);
                let becomes_cell = ours == Some(&Binding::Local) && new_free.contains(name);
                becomes_cell
                    || (kind.is_function_like()
                        && matches!(
                            ours,
                            Some(Binding::Free | Binding::GlobalExplicit | Binding::Cell)
                        ))
            });
            if conflict {
                inlined[i] = false;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    for (i, &child) in children.iter().enumerate() {
        table.scopes[child].inlined = inlined[i];
    }

    // Locals captured by children become cells; a class hands `__class__` to its methods.
    if kind.is_function_like() {
        for name in new_free.clone() {
            if bindings.get(&name) == Some(&Binding::Local) {
                bindings.insert(name.clone(), Binding::Cell);
                new_free.remove(&name);
            }
        }
    } else if kind == ScopeKind::Class {
        if new_free.remove("__class__") {
            table.scopes[id].needs_class_closure = true;
        }
        if new_free.remove("__classdict__") {
            table.scopes[id].needs_classdict = true;
        }
    }

    // CPython's `update_symbols`.
    let scope = &mut table.scopes[id];
    scope.child_free = new_free.clone();
    for (name, binding) in &bindings {
        if let Some(sym) = scope.symbols.get_mut(name) {
            sym.binding = *binding;
        }
    }
    for name in &new_free {
        if let Some(sym) = scope.symbols.get_mut(name) {
            if kind == ScopeKind::Class {
                sym.flags |= DEF_FREE_CLASS;
            }
            continue;
        }
        if bound_here.as_ref().is_some_and(|b| !b.contains(name)) || bound_here.is_none() {
            continue;
        }
        scope.names.push(name.clone());
        scope.symbols.insert(
            name.clone(),
            Symbol {
                flags: 0,
                binding: Binding::Free,
            },
        );
    }
    free.extend(own_free);
    free.extend(new_free);
    Ok(())
}

/// The names a comprehension binds, including those of comprehensions inlined into it.
pub fn comp_bound_names(table: &SymbolTable, id: ScopeId) -> Vec<String> {
    let scope = &table.scopes[id];
    let mut out: Vec<String> = scope
        .names
        .iter()
        .filter(|n| {
            let s = &scope.symbols[n.as_str()];
            s.flags & DEF_PARAM == 0 && s.binding == Binding::Local
        })
        .cloned()
        .collect();
    for &child in &scope.children {
        if table.scopes[child].inlined {
            out.extend(comp_bound_names(table, child));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::parse_module;

    fn table(source: &str) -> SymbolTable {
        build(
            &parse_module(source).expect("parses"),
            false,
            Features::default(),
        )
        .expect("analyses")
    }

    /// The first scope called `scope` (in creation order).
    fn scope<'t>(t: &'t SymbolTable, scope: &str) -> &'t Scope {
        t.scopes
            .iter()
            .find(|s| s.name == scope)
            .unwrap_or_else(|| panic!("no scope {scope}"))
    }

    fn binding(t: &SymbolTable, in_scope: &str, name: &str) -> Option<Binding> {
        scope(t, in_scope).lookup(name).map(|s| s.binding)
    }

    #[test]
    fn captured_locals_become_cells_and_free_in_the_inner_function() {
        let t = table("def f(a):\n    x = 1\n    def g():\n        return x + a + len\n");
        assert_eq!(binding(&t, "f", "x"), Some(Binding::Cell));
        assert_eq!(binding(&t, "f", "a"), Some(Binding::Cell));
        assert_eq!(binding(&t, "g", "x"), Some(Binding::Free));
        assert_eq!(binding(&t, "g", "len"), Some(Binding::GlobalImplicit));
    }

    #[test]
    fn global_and_nonlocal_declarations() {
        let t = table(
            "def f():\n    global y\n    y = 1\n    z = 2\n    def g():\n        nonlocal z\n        z = 3\n",
        );
        assert_eq!(binding(&t, "f", "y"), Some(Binding::GlobalExplicit));
        assert_eq!(binding(&t, "f", "z"), Some(Binding::Cell));
        assert_eq!(binding(&t, "g", "z"), Some(Binding::Free));
    }

    #[test]
    fn class_names_are_invisible_to_methods() {
        let t = table("class C:\n    x = 1\n    def m(self):\n        return x\n");
        assert_eq!(binding(&t, "C", "x"), Some(Binding::Local));
        assert_eq!(binding(&t, "m", "x"), Some(Binding::GlobalImplicit));
    }

    #[test]
    fn type_parameters_live_in_an_annotation_scope() {
        let t = table("class Box[T]:\n    def get(self) -> T:\n        return T\n");
        let params = scope(&t, "<generic parameters of Box>");
        assert_eq!(params.kind, ScopeKind::TypeParams);
        assert_eq!(
            binding(&t, "<generic parameters of Box>", "T"),
            Some(Binding::Cell)
        );
        // The class body passes T through to its method (its annotation reads it there).
        assert_eq!(binding(&t, "get", "T"), Some(Binding::Free));
        assert_eq!(
            binding(&t, "<generic parameters of Box>", ".type_params"),
            Some(Binding::Cell)
        );
        assert_eq!(binding(&t, "Box", "__type_params__"), Some(Binding::Local));
    }

    #[test]
    fn an_annotation_scope_in_a_class_sees_the_class_names() {
        let t = table("class C:\n    X = int\n    def m[T: X](self, a: X): pass\n    type A = X\n");
        assert!(scope(&t, "C").needs_classdict);
        let generic = scope(&t, "<generic parameters of m>");
        assert!(generic.can_see_class_scope);
        assert_eq!(
            binding(&t, "<generic parameters of m>", "X"),
            Some(Binding::GlobalImplicit)
        );
        assert_eq!(binding(&t, "A", "__classdict__"), Some(Binding::Free));
        assert_eq!(scope(&t, "T").scope_info, "a TypeVar bound");
    }

    #[test]
    fn super_gives_the_class_a_class_cell() {
        let t = table("class C:\n    def m(self):\n        return super().m()\n");
        assert!(scope(&t, "C").needs_class_closure);
        assert_eq!(binding(&t, "m", "__class__"), Some(Binding::Free));
        let t = table("class C:\n    def m(self):\n        return 1\n");
        assert!(!scope(&t, "C").needs_class_closure);
    }

    #[test]
    fn a_class_passes_an_outer_variable_through_to_its_methods() {
        let t = table(
            "def f():\n    b = 1\n    class C:\n        b = 2\n        def m(self):\n            return b\n",
        );
        assert_eq!(binding(&t, "f", "b"), Some(Binding::Cell));
        let c = scope(&t, "C").lookup("b").expect("b in C");
        assert_eq!(c.binding, Binding::Local);
        assert_ne!(c.flags & DEF_FREE_CLASS, 0);
        assert_eq!(binding(&t, "m", "b"), Some(Binding::Free));
    }

    #[test]
    fn comprehensions_inline_in_functions_but_not_in_classes_or_when_captured() {
        let t = table("def f(n):\n    return [i * n for i in range(n)]\n");
        assert!(scope(&t, "list").inlined);
        // The comprehension reads `n` directly from f's frame: no cell.
        assert_eq!(binding(&t, "f", "n"), Some(Binding::Local));
        let t = table("class C:\n    xs = [i for i in range(3)]\n");
        assert!(!scope(&t, "list").inlined);
        let t = table("def f():\n    return [lambda: i for i in range(3)]\n");
        assert!(!scope(&t, "list").inlined);
        assert_eq!(binding(&t, "list", "i"), Some(Binding::Cell));
        let t = table("def f():\n    return (i for i in range(3))\n");
        assert!(!scope(&t, "genexpr").inlined);
    }

    #[test]
    fn walrus_in_a_comprehension_binds_in_the_enclosing_function() {
        let t = table("def f(z):\n    [y := x for x in z]\n    return y\n");
        assert_eq!(binding(&t, "f", "y"), Some(Binding::Local));
        assert_eq!(binding(&t, "list", "y"), Some(Binding::Free));
        let t = table("[y := x for x in z]\n");
        assert_eq!(binding(&t, "list", "y"), Some(Binding::GlobalExplicit));
    }

    #[test]
    fn generators_and_coroutines_are_marked() {
        let t = table(
            "def g():\n    yield 1\nasync def c():\n    await x\nasync def a():\n    yield 1\n",
        );
        assert!(scope(&t, "g").is_generator && !scope(&t, "g").is_coroutine);
        assert!(!scope(&t, "c").is_generator && scope(&t, "c").is_coroutine);
        assert!(scope(&t, "a").is_generator && scope(&t, "a").is_coroutine);
    }
}

#[cfg(test)]
mod mangling_tests {
    use super::*;

    #[test]
    fn private_names_are_mangled_like_cpython() {
        assert_eq!(mangle(Some("_Acct"), "__balance"), "_Acct__balance");
        assert_eq!(mangle(Some("C"), "__init__"), "__init__");
        assert_eq!(mangle(Some("C"), "_single"), "_single");
        assert_eq!(mangle(Some("___"), "__x"), "__x");
        assert_eq!(mangle(None, "__x"), "__x");
        assert_eq!(mangle(Some("C"), "__a.b"), "__a.b");
    }

    #[test]
    fn methods_see_mangled_names() {
        let module = crate::syntax::parse_module(
            "class C:\n    def m(self, __p):\n        __local = __p\n        return __local\n",
        )
        .expect("parses");
        let t = build(&module, false, Features::default()).expect("analyses");
        let m = t.scopes.iter().find(|s| s.name == "m").expect("m");
        assert_eq!(m.params, ["self", "_C__p"]);
        assert_eq!(
            m.lookup("_C__local").map(|s| s.binding),
            Some(Binding::Local)
        );
    }
}
