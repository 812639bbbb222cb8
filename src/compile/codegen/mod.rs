//! Bytecode generation: the AST and its [`SymbolTable`] in, one [`Code`] per scope out, as
//! CPython 3.13's `Python/compile.c` with what we need of `flowgraph.c` and `assemble.c`.
//! Here: the state (a `Unit` per code object, CPython's `compiler_unit`), the entry points,
//! emitting and name ops (`compiler_addop_*`, `compiler_nameop`). Knows nothing of the VM.
//! Files: def (defs, classes), stmt, patterns (`match`), unwind (frame blocks), target, expr,
//! call, compr, assemble.

mod assemble;
mod call;
mod compr;
mod def;
mod expr;
mod patterns;
mod stmt;
mod target;
mod unwind;
mod warnings;

use std::collections::{BTreeSet, HashMap};
use std::hash::{Hash, Hasher};
use std::rc::Rc;

use super::Mode;
use super::bytecode::*;
use super::error::{CompileError, CompileResult};
use super::future::Features;
use super::scope::{Binding, ScopeId, ScopeKind, SymbolTable, mangle};
use crate::syntax::ast::{self, Ident, Span, Stmt};
use def::{docstring, has_annotations};

/// Byte offset → 1-based line number.
pub struct LineIndex {
    starts: Vec<u32>,
}

impl LineIndex {
    pub fn new(source: &str) -> LineIndex {
        let mut starts = vec![0];
        starts.extend(
            source
                .bytes()
                .enumerate()
                .filter(|&(_, b)| b == b'\n')
                .map(|(i, _)| i as u32 + 1),
        );
        LineIndex { starts }
    }

    pub fn line_of(&self, offset: u32) -> u32 {
        self.starts.partition_point(|&s| s <= offset) as u32
    }
}

/// A jump target inside the unit being compiled, resolved when the unit is assembled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct LabelId(u32);

/// An exception handler: where to go, and whether to push the raising instruction's index.
struct Handler {
    target: LabelId,
    lasti: bool,
    /// Stack depth kept under the exception; found by the stack-depth walk.
    depth: Option<u32>,
}

/// "From instruction `at` on, `handler` is active; its depth is the stack depth there
/// plus `adjust`" (CPython's `SETUP_FINALLY`/`SETUP_CLEANUP`/`SETUP_WITH` pseudo-ops).
struct Setup {
    at: u32,
    handler: usize,
    adjust: i32,
}

/// What `return`, `break` and `continue` must clean up on their way out (CPython's
/// `fblockinfo`). `handlers` is the handler-stack height before the block's own handler.
#[derive(Clone)]
struct FBlock<'a> {
    kind: FBlockKind<'a>,
    handlers: usize,
}

#[derive(Clone)]
enum FBlockKind<'a> {
    WhileLoop {
        start: LabelId,
        exit: LabelId,
    },
    /// The iterator is on the stack.
    ForLoop {
        start: LabelId,
        exit: LabelId,
    },
    TryExcept,
    /// Inside `try` of a `try/finally`: unwinding runs the finally body.
    FinallyTry {
        body: &'a [Stmt],
    },
    /// Inside the finally body run for an exception: `prev_exc exc` are on the stack.
    FinallyEnd,
    With {
        is_async: bool,
        span: Span,
    },
    /// Inside an `except` body: `prev_exc` is on the stack; the name is cleared on exit.
    HandlerCleanup {
        name: Option<String>,
    },
    /// A value that unwinding must pop (the return value while a finally body runs).
    PopValue,
    /// The dispatching part of an except block (nothing to clean).
    ExceptionHandler,
    /// The handlers of an `except*`: no `break`, `continue` or `return` may leave them.
    ExceptionGroupHandler,
}

/// The frame blocks and handlers as they were before an unwinding jump.
struct Unwound<'a> {
    fblocks: Vec<FBlock<'a>>,
    handlers: Vec<usize>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Ctx {
    Load,
    Store,
    Del,
}

enum Access {
    Fast,
    Deref,
    Global,
    Name,
    /// A free variable read in a class body: the class namespace first, then the cell.
    ClassDeref,
    /// A free variable read in an annotation scope inside a class: the class namespace
    /// (the `__classdict__` cell) first, then the cell.
    ClassDictDeref,
    /// A global read in an annotation scope inside a class: the class namespace first.
    ClassDictGlobal,
}

/// One code object being compiled (CPython's `compiler_unit`).
struct Unit<'a> {
    scope: ScopeId,
    kind: ScopeKind,
    name: Rc<str>,
    qualname: Rc<str>,
    first_line: u32,
    flags: CodeFlags,
    argcount: u32,
    posonlyargcount: u32,
    kwonlyargcount: u32,
    instrs: Vec<Instr>,
    locs: Vec<Location>,
    handler_at: Vec<Option<usize>>,
    /// Per instruction: exception-handling code, placed after the rest at assembly.
    is_cold: Vec<bool>,
    /// Inside how many exception-handling ranges code is being emitted.
    cold: u32,
    labels: Vec<Option<u32>>,
    handlers: Vec<Handler>,
    handler_stack: Vec<usize>,
    setups: Vec<Setup>,
    consts: Vec<Constant>,
    /// Where each constant is in `consts`, so that sharing one costs no search.
    const_index: HashMap<ConstKey, u32>,
    names: NameTable,
    varnames: NameTable,
    cellvars: Vec<Rc<str>>,
    freevars: Vec<Rc<str>>,
    fblocks: Vec<FBlock<'a>>,
    /// Inlined comprehensions being compiled, innermost last.
    comp_chain: Vec<ScopeId>,
    /// Caret anchors of the expressions compiled so far ([`Code::anchors`]).
    anchors: Vec<(Span, Anchors)>,
    loc: Location,
    /// The innermost enclosing class name, which mangles `__private` names.
    private: Option<Rc<str>>,
    /// A class's `__static_attributes__`: the attributes its methods (and what they
    /// hold) assign to `self.<name>`, sorted ([`Codegen::note_static_attribute`]).
    static_attributes: BTreeSet<Rc<str>>,
}

impl Unit<'_> {
    fn is_async(&self) -> bool {
        self.flags.coroutine || self.flags.async_generator
    }
}

pub struct Codegen<'a> {
    table: &'a SymbolTable,
    /// The source text, where caret anchors are looked for.
    source: &'a str,
    lines: LineIndex,
    filename: Rc<str>,
    mode: Mode,
    /// The module's `from __future__` imports.
    features: Features,
    units: Vec<Unit<'a>>,
    /// The SyntaxWarnings found so far (`warnings.rs`), with their lines.
    warnings: Vec<(u32, String)>,
}

fn err<T>(message: impl Into<String>, span: Span) -> CompileResult<T> {
    Err(CompileError::new(message, span))
}

fn internal(what: &str, span: Span) -> CompileError {
    CompileError::new(format!("internal compiler error: {what}"), span)
}

impl<'a> Codegen<'a> {
    pub fn new(
        table: &'a SymbolTable,
        source: &'a str,
        filename: &str,
        mode: Mode,
        features: Features,
    ) -> Codegen<'a> {
        Codegen {
            table,
            source,
            lines: LineIndex::new(source),
            filename: filename.into(),
            mode,
            features,
            units: Vec::new(),
            warnings: Vec::new(),
        }
    }

    /// The module's code, carrying the SyntaxWarnings its compilation found.
    pub fn compile_module(mut self, module: &'a ast::Module) -> CompileResult<Rc<Code>> {
        let mut code = self.compile_module_body(module)?;
        if !self.warnings.is_empty()
            && let Some(code) = Rc::get_mut(&mut code)
        {
            code.warnings = std::mem::take(&mut self.warnings);
        }
        Ok(code)
    }

    fn compile_module_body(&mut self, module: &'a ast::Module) -> CompileResult<Rc<Code>> {
        let span = Span::new(0, 0);
        self.push_unit(0, "<module>", span);
        self.u().first_line = 1;
        let body = match (self.mode, docstring(&module.body)) {
            (Mode::Exec | Mode::InteractiveQuiet, Some(doc)) => {
                self.at(module.body[0].span, |c| {
                    c.load_const(Constant::Str(doc.into()));
                    c.name_op("__doc__", Ctx::Store, span)
                })?;
                &module.body[1..]
            }
            _ => &module.body[..],
        };
        if has_annotations(&module.body) {
            self.emit(Instr::SetupAnnotations);
        }
        if let (Mode::Eval, [stmt]) = (self.mode, body) {
            let ast::StmtKind::Expr(expr) = &stmt.kind else {
                return Err(CompileError::new("invalid syntax", stmt.span));
            };
            self.u().loc = self.location(stmt.span);
            self.expr(expr)?;
            self.emit(Instr::ReturnValue);
            return self.assemble();
        }
        self.body(body)?;
        self.return_none_if_reachable();
        self.assemble()
    }

    // ---- units ---------------------------------------------------------------------------

    fn u(&mut self) -> &mut Unit<'a> {
        self.units.last_mut().expect("a unit is being compiled")
    }

    fn unit(&self) -> &Unit<'a> {
        self.units.last().expect("a unit is being compiled")
    }

    fn location(&self, span: Span) -> Location {
        Location {
            line: self.lines.line_of(span.start),
            span,
            lineless: false,
        }
    }

    fn push_unit(&mut self, scope: ScopeId, name: &str, span: Span) {
        let sc = &self.table.scopes[scope];
        // An annotation scope (`<generic parameters of f>`) is left out of the qualnames of
        // what it holds, as in CPython's `compiler_set_qualname`.
        let mut parents = self.units.iter().rev();
        let parent = match parents.next() {
            Some(p) if p.kind == ScopeKind::TypeParams => parents.next(),
            other => other,
        };
        let qualname: Rc<str> = match parent {
            Some(parent) if parent.kind != ScopeKind::Module => {
                if parent.kind == ScopeKind::Class {
                    format!("{}.{}", parent.qualname, name).into()
                } else {
                    format!("{}.<locals>.{}", parent.qualname, name).into()
                }
            }
            _ => name.into(),
        };
        let mut varnames: Vec<Rc<str>> = sc.params.iter().map(|p| p.as_str().into()).collect();
        if sc.kind.is_function_like() {
            for n in &sc.names {
                let sym = sc.symbols[n.as_str()];
                if sym.binding == Binding::Local && !sc.params.contains(n) {
                    varnames.push(n.as_str().into());
                }
            }
        }
        let mut cellvars: Vec<Rc<str>> = sc
            .sorted_names(|s| s.binding == Binding::Cell)
            .into_iter()
            .map(Into::into)
            .collect();
        if sc.needs_class_closure {
            cellvars.push("__class__".into());
        }
        if sc.needs_classdict {
            cellvars.push("__classdict__".into());
        }
        cellvars.sort();
        let freevars = sc
            .sorted_names(|s| {
                s.binding == Binding::Free
                    || (sc.kind == ScopeKind::Class
                        && s.flags & super::scope::flags::DEF_FREE_CLASS != 0)
            })
            .into_iter()
            .map(Into::into)
            .collect();
        let mut flags = CodeFlags {
            optimized: sc.kind.is_function_like(),
            future_annotations: self.features.annotations,
            ..CodeFlags::default()
        };
        match sc.kind {
            ScopeKind::Function | ScopeKind::Lambda | ScopeKind::GeneratorExpression => {
                flags.generator = sc.is_generator && !sc.is_coroutine;
                flags.coroutine = sc.is_coroutine && !sc.is_generator;
                flags.async_generator = sc.is_coroutine && sc.is_generator;
            }
            ScopeKind::Comprehension => flags.coroutine = sc.is_coroutine,
            ScopeKind::Module => flags.coroutine = sc.is_coroutine,
            ScopeKind::Class
            | ScopeKind::TypeParams
            | ScopeKind::TypeAlias
            | ScopeKind::TypeVariable => {}
        }
        let loc = self.location(span);
        let private = match sc.kind {
            ScopeKind::Class => Some(name.into()),
            _ => self.units.last().and_then(|u| u.private.clone()),
        };
        self.units.push(Unit {
            scope,
            kind: sc.kind,
            name: name.into(),
            qualname,
            first_line: loc.line,
            flags,
            argcount: 0,
            posonlyargcount: 0,
            kwonlyargcount: 0,
            instrs: Vec::new(),
            locs: Vec::new(),
            handler_at: Vec::new(),
            is_cold: Vec::new(),
            cold: 0,
            labels: Vec::new(),
            handlers: Vec::new(),
            handler_stack: Vec::new(),
            setups: Vec::new(),
            consts: Vec::new(),
            const_index: HashMap::new(),
            names: NameTable::default(),
            varnames: NameTable::new(varnames),
            cellvars,
            freevars,
            fblocks: Vec::new(),
            comp_chain: Vec::new(),
            anchors: Vec::new(),
            loc,
            private,
            static_attributes: BTreeSet::new(),
        });
    }

    // ---- emitting ------------------------------------------------------------------------

    fn emit(&mut self, instr: Instr) {
        let u = self.u();
        u.instrs.push(instr);
        u.locs.push(u.loc);
        u.handler_at.push(u.handler_stack.last().copied());
        u.is_cold.push(u.cold > 0);
    }

    fn new_label(&mut self) -> LabelId {
        let u = self.u();
        u.labels.push(None);
        LabelId(u.labels.len() as u32 - 1)
    }

    fn bind(&mut self, label: LabelId) {
        let u = self.u();
        u.labels[label.0 as usize] = Some(u.instrs.len() as u32);
    }

    /// Emit a jump instruction; `make` receives the label id, patched at assembly.
    fn jump(&mut self, make: fn(Label) -> Instr, label: LabelId) {
        self.emit(make(label.0));
    }

    /// [`Self::jump`] where CPython's has no line of its own ([`Location::lineless`]).
    fn jump_without_line(&mut self, make: fn(Label) -> Instr, label: LabelId) {
        let loc = self.unit().loc;
        self.u().loc.lineless = true;
        self.jump(make, label);
        self.u().loc = loc;
    }

    /// Start an exception handler at the current position (CPython's `SETUP_*`).
    fn push_handler(&mut self, target: LabelId, lasti: bool, adjust: i32) -> usize {
        let u = self.u();
        let id = u.handlers.len();
        u.handlers.push(Handler {
            target,
            lasti,
            depth: None,
        });
        u.setups.push(Setup {
            at: u.instrs.len() as u32,
            handler: id,
            adjust,
        });
        u.handler_stack.push(id);
        id
    }

    /// End the innermost handler (CPython's `POP_BLOCK`).
    fn pop_handler(&mut self) {
        self.u().handler_stack.pop();
    }

    fn const_index(&mut self, c: Constant) -> u32 {
        let u = self.u();
        let next = u.consts.len() as u32;
        let i = *u.const_index.entry(ConstKey(c.clone())).or_insert(next);
        if i == next {
            u.consts.push(c);
        }
        i
    }

    fn load_const(&mut self, c: Constant) {
        let i = self.const_index(c);
        self.emit(Instr::LoadConst(i));
    }

    fn load_none(&mut self) {
        self.load_const(Constant::None);
    }

    fn name_index(&mut self, name: &str) -> u32 {
        self.u().names.index(name)
    }

    fn varname_index(&mut self, name: &str) -> u32 {
        self.u().varnames.index(name)
    }

    fn cell_index(&self, name: &str) -> Option<u32> {
        let u = self.unit();
        u.cellvars
            .iter()
            .chain(&u.freevars)
            .position(|v| &**v == name)
            .map(|i| i as u32)
    }

    /// In `obj\n    .attr`, the attribute access (and a method call) reports the line of
    /// `attr`, as CPython's `update_start_location_to_match_attr` does.
    fn on_attr_line(&mut self, attr: &Ident) {
        let line = self.lines.line_of(attr.span.start);
        self.u().loc.line = line;
    }

    /// Run `f` with the current location set to `span`, then restore it.
    fn at<T>(&mut self, span: Span, f: impl FnOnce(&mut Self) -> T) -> T {
        let saved = self.unit().loc;
        let loc = self.location(span);
        self.u().loc = loc;
        let out = f(self);
        self.u().loc = saved;
        out
    }

    // ---- names ---------------------------------------------------------------------------

    /// CPython's `compiler_nameop` scope decision, looking through inlined comprehensions.
    fn resolve(&self, name: &str) -> Access {
        let u = self.unit();
        for &comp in u.comp_chain.iter().rev() {
            match self.table.scopes[comp].lookup(name).map(|s| s.binding) {
                Some(Binding::Local | Binding::Cell) => return Access::Fast,
                Some(Binding::GlobalExplicit) => return Access::Global,
                Some(Binding::GlobalImplicit) => {
                    return if u.kind.is_function_like() {
                        Access::Global
                    } else {
                        Access::Name
                    };
                }
                Some(Binding::Free) | None => {}
            }
        }
        let scope = &self.table.scopes[u.scope];
        let sees_class = scope.can_see_class_scope;
        match scope.lookup(name).map(|s| s.binding) {
            Some(Binding::Local) if u.kind.is_function_like() => Access::Fast,
            Some(Binding::Cell) => Access::Deref,
            Some(Binding::Free) if u.kind == ScopeKind::Class => Access::ClassDeref,
            Some(Binding::Free) if sees_class => Access::ClassDictDeref,
            Some(Binding::GlobalImplicit) if sees_class => Access::ClassDictGlobal,
            Some(Binding::Free) => Access::Deref,
            Some(Binding::GlobalExplicit) => Access::Global,
            Some(Binding::GlobalImplicit) | None if u.kind.is_function_like() => Access::Global,
            _ => Access::Name,
        }
    }

    /// The index of an attribute name, mangled like a variable name.
    fn attr_index(&mut self, attr: &str) -> u32 {
        let name = mangle(self.unit().private.as_deref(), attr).into_owned();
        self.name_index(&name)
    }

    fn name_op(&mut self, name: &str, ctx: Ctx, span: Span) -> CompileResult<()> {
        let mangled = mangle(self.unit().private.as_deref(), name).into_owned();
        let name = mangled.as_str();
        if name == "__debug__" && ctx != Ctx::Load {
            let verb = if ctx == Ctx::Store {
                "assign to"
            } else {
                "delete"
            };
            return err(format!("cannot {verb} __debug__"), span);
        }
        if name == "__debug__" {
            // A constant, as CPython compiles it (no `-O`: True).
            self.load_const(Constant::Bool(true));
            return Ok(());
        }
        let instr = match self.resolve(name) {
            Access::Fast => {
                let i = self.varname_index(name);
                match ctx {
                    Ctx::Load => Instr::LoadFast(i),
                    Ctx::Store => Instr::StoreFast(i),
                    Ctx::Del => Instr::DeleteFast(i),
                }
            }
            access @ (Access::Deref | Access::ClassDeref | Access::ClassDictDeref) => {
                let i = self
                    .cell_index(name)
                    .ok_or_else(|| internal(&format!("no cell for '{name}'"), span))?;
                match (ctx, access) {
                    (Ctx::Load, Access::ClassDeref) => {
                        self.emit(Instr::LoadLocals);
                        Instr::LoadFromDictOrDeref(i)
                    }
                    (Ctx::Load, Access::ClassDictDeref) => {
                        self.load_classdict(span)?;
                        Instr::LoadFromDictOrDeref(i)
                    }
                    (Ctx::Load, _) => Instr::LoadDeref(i),
                    (Ctx::Store, _) => Instr::StoreDeref(i),
                    (Ctx::Del, _) => Instr::DeleteDeref(i),
                }
            }
            Access::ClassDictGlobal if ctx == Ctx::Load => {
                self.load_classdict(span)?;
                Instr::LoadFromDictOrGlobals(self.name_index(name))
            }
            Access::Global | Access::ClassDictGlobal => {
                let i = self.name_index(name);
                match ctx {
                    Ctx::Load => Instr::LoadGlobal(i),
                    Ctx::Store => Instr::StoreGlobal(i),
                    Ctx::Del => Instr::DeleteGlobal(i),
                }
            }
            Access::Name => {
                let i = self.name_index(name);
                match ctx {
                    Ctx::Load => Instr::LoadName(i),
                    Ctx::Store => Instr::StoreName(i),
                    Ctx::Del => Instr::DeleteName(i),
                }
            }
        };
        self.emit(instr);
        Ok(())
    }
}

impl Codegen<'_> {
    /// Push the namespace of the class an annotation scope is in (its `__classdict__`).
    fn load_classdict(&mut self, span: Span) -> CompileResult<()> {
        let i = self
            .cell_index("__classdict__")
            .ok_or_else(|| internal("no __classdict__ cell", span))?;
        self.emit(Instr::LoadDeref(i));
        Ok(())
    }
}

/// `co_names` or `co_varnames` as it is built: each name once, found by hashing.
#[derive(Default)]
struct NameTable {
    names: Vec<Rc<str>>,
    index: HashMap<Rc<str>, u32>,
}

impl NameTable {
    fn new(names: Vec<Rc<str>>) -> Self {
        let mut table = NameTable::default();
        for name in &names {
            table.index(name);
        }
        table
    }

    /// The position of `name`, added at the end if it is not there yet.
    fn index(&mut self, name: &str) -> u32 {
        if let Some(&i) = self.index.get(name) {
            return i;
        }
        let name: Rc<str> = name.into();
        self.names.push(name.clone());
        let i = self.names.len() as u32 - 1;
        self.index.insert(name, i);
        i
    }
}

/// A constant as a key of a code object's constant table: two keys are equal exactly when
/// [`same_constant`] says the constants are shared.
struct ConstKey(Constant);

impl PartialEq for ConstKey {
    fn eq(&self, other: &Self) -> bool {
        same_constant(&self.0, &other.0)
    }
}

impl Eq for ConstKey {}

impl Hash for ConstKey {
    fn hash<H: Hasher>(&self, state: &mut H) {
        hash_constant(&self.0, state);
    }
}

/// Hashes what [`same_constant`] compares: the type, then the value (a float by its bits,
/// a code object by its address).
fn hash_constant<H: Hasher>(c: &Constant, state: &mut H) {
    std::mem::discriminant(c).hash(state);
    match c {
        Constant::None | Constant::Ellipsis => {}
        Constant::Bool(b) => b.hash(state),
        Constant::Int(n) => n.hash(state),
        Constant::BigInt(n) => n.hash(state),
        Constant::Float(x) => x.to_bits().hash(state),
        Constant::Complex(re, im) => (re.to_bits(), im.to_bits()).hash(state),
        Constant::Str(s) => s.hash(state),
        Constant::Bytes(b) => b.hash(state),
        Constant::Tuple(items) | Constant::FrozenSet(items) => {
            items.iter().for_each(|item| hash_constant(item, state))
        }
        Constant::Code(code) => Rc::as_ptr(code).hash(state),
        Constant::Frozen(code) => Rc::as_ptr(code).hash(state),
    }
}

/// Constants are shared when they are the same value of the same type (`1`, `1.0` and
/// `True` stay apart; `0.0` and `-0.0` too, and `0j` and `-0j`).
fn same_constant(a: &Constant, b: &Constant) -> bool {
    match (a, b) {
        (Constant::Float(x), Constant::Float(y)) => x.to_bits() == y.to_bits(),
        (Constant::Complex(a, b), Constant::Complex(c, d)) => {
            (a.to_bits(), b.to_bits()) == (c.to_bits(), d.to_bits())
        }
        (Constant::Tuple(x), Constant::Tuple(y))
        | (Constant::FrozenSet(x), Constant::FrozenSet(y)) => {
            x.len() == y.len() && x.iter().zip(y.iter()).all(|(p, q)| same_constant(p, q))
        }
        (Constant::Code(x), Constant::Code(y)) => Rc::ptr_eq(x, y),
        (Constant::Frozen(x), Constant::Frozen(y)) => Rc::ptr_eq(x, y),
        _ => std::mem::discriminant(a) == std::mem::discriminant(b) && a == b,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The handler row covering instruction `i`, if any.
    pub(super) fn handler_of(code: &Code, i: usize) -> Option<ExceptionTableEntry> {
        let i = i as u32;
        code.exception_table
            .iter()
            .find(|e| e.start <= i && i < e.end)
            .copied()
    }

    pub(super) fn positions(code: &Code, pred: impl Fn(&Instr) -> bool) -> Vec<usize> {
        (0..code.instructions.len())
            .filter(|&i| pred(&code.instructions[i]))
            .collect()
    }

    pub(super) fn global_loads(code: &Code, name: &str) -> Vec<usize> {
        positions(
            code,
            |i| matches!(i, Instr::LoadGlobal(n) | Instr::LoadGlobalNull(n) if &*code.names[*n as usize] == name),
        )
    }

    #[test]
    fn line_index() {
        let lines = LineIndex::new("a\nbc\n\nd");
        assert_eq!(lines.line_of(0), 1);
        assert_eq!(lines.line_of(2), 2);
        assert_eq!(lines.line_of(5), 3);
        assert_eq!(lines.line_of(6), 4);
    }
}
