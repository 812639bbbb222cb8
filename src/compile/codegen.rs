//! Bytecode generation: the AST and its [`SymbolTable`] in, one [`Code`] per scope out.
//!
//! Mirrors CPython 3.13's `Python/compile.c` (statement and expression visitors, the
//! frame-block stack that `return`/`break`/`continue` unwind through) plus the parts of
//! `flowgraph.c`/`assemble.c` we need: labels resolved at the end, exception-table rows
//! flattened from a handler stack, and the maximum stack depth found by walking the flow.
//! Knows nothing of runtime values or the VM.

use std::collections::HashMap;
use std::rc::Rc;

use num_traits::ToPrimitive;

use super::Mode;
use super::bytecode::*;
use super::error::{CompileError, CompileResult};
use super::peephole::{self, Listing};
use super::scope::{Binding, ScopeId, ScopeKind, SymbolTable, mangle};
use crate::syntax::ast::{
    self, Alias, ClassDef, CmpOp, Comprehension, ExceptHandler, Expr, ExprKind, FStringPart,
    FunctionDef, Ident, Keyword, Param, Parameters, Span, Stmt, StmtKind, UnaryOp, WithItem,
};

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
    names: Vec<Rc<str>>,
    name_index: HashMap<Rc<str>, u32>,
    varnames: Vec<Rc<str>>,
    cellvars: Vec<Rc<str>>,
    freevars: Vec<Rc<str>>,
    fblocks: Vec<FBlock<'a>>,
    /// Inlined comprehensions being compiled, innermost last.
    comp_chain: Vec<ScopeId>,
    loc: Location,
    /// The innermost enclosing class name, which mangles `__private` names.
    private: Option<Rc<str>>,
}

impl Unit<'_> {
    fn is_async(&self) -> bool {
        self.flags.coroutine || self.flags.async_generator
    }
}

pub struct Codegen<'a> {
    table: &'a SymbolTable,
    lines: LineIndex,
    filename: Rc<str>,
    mode: Mode,
    units: Vec<Unit<'a>>,
}

fn err<T>(message: impl Into<String>, span: Span) -> CompileResult<T> {
    Err(CompileError::new(message, span))
}

fn internal(what: &str, span: Span) -> CompileError {
    CompileError::new(format!("internal compiler error: {what}"), span)
}

impl<'a> Codegen<'a> {
    pub fn new(table: &'a SymbolTable, source: &str, filename: &str, mode: Mode) -> Codegen<'a> {
        Codegen {
            table,
            lines: LineIndex::new(source),
            filename: filename.into(),
            mode,
            units: Vec::new(),
        }
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
        }
    }

    fn push_unit(&mut self, scope: ScopeId, name: &str, span: Span) {
        let sc = &self.table.scopes[scope];
        let qualname: Rc<str> = match self.units.last() {
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
            cellvars.sort();
        }
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
            ScopeKind::Class => {}
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
            names: Vec::new(),
            name_index: HashMap::new(),
            varnames,
            cellvars,
            freevars,
            fblocks: Vec::new(),
            comp_chain: Vec::new(),
            loc,
            private,
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
        let found = u.consts.iter().position(|k| same_constant(k, &c));
        match found {
            Some(i) => i as u32,
            None => {
                u.consts.push(c);
                u.consts.len() as u32 - 1
            }
        }
    }

    fn load_const(&mut self, c: Constant) {
        let i = self.const_index(c);
        self.emit(Instr::LoadConst(i));
    }

    fn load_none(&mut self) {
        self.load_const(Constant::None);
    }

    fn name_index(&mut self, name: &str) -> u32 {
        let u = self.u();
        if let Some(&i) = u.name_index.get(name) {
            return i;
        }
        let rc: Rc<str> = name.into();
        u.names.push(rc.clone());
        let i = u.names.len() as u32 - 1;
        u.name_index.insert(rc, i);
        i
    }

    fn varname_index(&mut self, name: &str) -> u32 {
        let u = self.u();
        match u.varnames.iter().position(|v| &**v == name) {
            Some(i) => i as u32,
            None => {
                u.varnames.push(name.into());
                u.varnames.len() as u32 - 1
            }
        }
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
        match scope.lookup(name).map(|s| s.binding) {
            Some(Binding::Local) if u.kind.is_function_like() => Access::Fast,
            Some(Binding::Cell) => Access::Deref,
            Some(Binding::Free) if u.kind == ScopeKind::Class => Access::ClassDeref,
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
        let instr = match self.resolve(name) {
            Access::Fast => {
                let i = self.varname_index(name);
                match ctx {
                    Ctx::Load => Instr::LoadFast(i),
                    Ctx::Store => Instr::StoreFast(i),
                    Ctx::Del => Instr::DeleteFast(i),
                }
            }
            access @ (Access::Deref | Access::ClassDeref) => {
                let i = self
                    .cell_index(name)
                    .ok_or_else(|| internal(&format!("no cell for '{name}'"), span))?;
                match (ctx, access) {
                    (Ctx::Load, Access::ClassDeref) => {
                        self.emit(Instr::LoadLocals);
                        Instr::LoadFromDictOrDeref(i)
                    }
                    (Ctx::Load, _) => Instr::LoadDeref(i),
                    (Ctx::Store, _) => Instr::StoreDeref(i),
                    (Ctx::Del, _) => Instr::DeleteDeref(i),
                }
            }
            Access::Global => {
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

    // ---- modules, functions, classes -------------------------------------------------------

    pub fn compile_module(mut self, module: &'a ast::Module) -> CompileResult<Rc<Code>> {
        let span = Span::new(0, 0);
        self.push_unit(0, "<module>", span);
        self.u().first_line = 1;
        let body = match (self.mode, docstring(&module.body)) {
            (Mode::Exec, Some(doc)) => {
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
        self.body(body)?;
        self.return_none_if_reachable();
        self.assemble()
    }

    fn body(&mut self, stmts: &'a [Stmt]) -> CompileResult<()> {
        stmts.iter().try_for_each(|s| self.stmt(s))
    }

    /// The implicit `return None` at the end of a body, unless the body cannot get there.
    fn return_none_if_reachable(&mut self) {
        let u = self.unit();
        let end = u.instrs.len() as u32;
        let label_at_end = u.labels.contains(&Some(end));
        if label_at_end || !u.instrs.last().is_some_and(Instr::is_terminator) {
            let i = self.const_index(Constant::None);
            self.emit(Instr::ReturnConst(i));
        }
    }

    /// Push the values `MakeFunction` needs for a closure, then make the function.
    /// `attrs` holds the `SetFunctionAttribute` flags of values already pushed.
    fn make_function(&mut self, code: Rc<Code>, mut attrs: u32, span: Span) -> CompileResult<()> {
        if !code.freevars.is_empty() {
            for name in code.freevars.iter() {
                let i = self
                    .cell_index(name)
                    .ok_or_else(|| internal(&format!("no cell for free '{name}'"), span))?;
                self.emit(Instr::LoadClosure(i));
            }
            self.emit(Instr::BuildTuple(code.freevars.len() as u32));
            attrs |= 0x08;
        }
        self.load_const(Constant::Code(code));
        self.emit(Instr::MakeFunction);
        for flag in [0x08, 0x04, 0x02, 0x01] {
            if attrs & flag != 0 {
                self.emit(Instr::SetFunctionAttribute(flag));
            }
        }
        Ok(())
    }

    /// Evaluate defaults (a tuple) and keyword-only defaults (a dict) at def time.
    fn defaults(&mut self, params: &'a Parameters) -> CompileResult<u32> {
        let mut attrs = 0;
        let positional: Vec<&Expr> = params
            .posonly
            .iter()
            .chain(&params.args)
            .filter_map(|p| p.default.as_ref())
            .collect();
        if !positional.is_empty() {
            for d in &positional {
                self.expr(d)?;
            }
            self.emit(Instr::BuildTuple(positional.len() as u32));
            attrs |= 0x01;
        }
        let kw: Vec<&Param> = params
            .kwonly
            .iter()
            .filter(|p| p.default.is_some())
            .collect();
        if !kw.is_empty() {
            for p in &kw {
                let name = mangle(self.unit().private.as_deref(), &p.name.name).into_owned();
                self.load_const(Constant::Str(name.into()));
                if let Some(d) = &p.default {
                    self.expr(d)?;
                }
            }
            self.emit(Instr::BuildMap(kw.len() as u32));
            attrs |= 0x02;
        }
        Ok(attrs)
    }

    /// Evaluate parameter and return annotations at def time into a flat
    /// `(name, value, …)` tuple, in CPython's order (`compiler_visit_annotations`).
    fn annotations(
        &mut self,
        params: &'a Parameters,
        returns: Option<&'a Expr>,
    ) -> CompileResult<u32> {
        let all = params
            .args
            .iter()
            .chain(&params.posonly)
            .chain(&params.vararg)
            .chain(&params.kwonly)
            .chain(&params.kwarg)
            .filter_map(|p| Some((p.name.name.as_str(), p.annotation.as_ref()?)))
            .chain(returns.map(|r| ("return", r)));
        let mut n = 0;
        for (name, annotation) in all {
            let name = mangle(self.unit().private.as_deref(), name).into_owned();
            self.load_const(Constant::Str(name.into()));
            self.expr(annotation)?;
            n += 1;
        }
        if n == 0 {
            return Ok(0);
        }
        self.emit(Instr::BuildTuple(2 * n));
        Ok(0x04)
    }

    fn scope_of<T>(&self, node: &T, span: Span) -> CompileResult<ScopeId> {
        self.table
            .scope_of(node)
            .ok_or_else(|| internal("scope not found", span))
    }

    fn function_def(&mut self, def: &'a FunctionDef, span: Span) -> CompileResult<()> {
        for d in &def.decorators {
            self.expr(d)?;
        }
        let first = def.decorators.first().map_or(span, |d| d.span);
        let scope = self.scope_of(def, span)?;
        let attrs =
            self.defaults(&def.params)? | self.annotations(&def.params, def.returns.as_ref())?;
        self.push_unit(scope, &def.name.name, def.name.span);
        self.u().first_line = self.lines.line_of(first.start);
        self.set_arg_counts(&def.params);
        // The first constant of a function is its docstring (or None), as in CPython 3.13.
        let doc = docstring(&def.body).map_or(Constant::None, |d| Constant::Str(d.into()));
        self.const_index(doc);
        self.function_body(|c| c.body(&def.body))?;
        let code = self.assemble()?;
        self.make_function(code, attrs, span)?;
        for _ in &def.decorators {
            self.emit(Instr::Call(0));
        }
        self.name_op(&def.name.name, Ctx::Store, span)
    }

    fn set_arg_counts(&mut self, params: &'a Parameters) {
        let u = self.u();
        u.posonlyargcount = params.posonly.len() as u32;
        u.argcount = (params.posonly.len() + params.args.len()) as u32;
        u.kwonlyargcount = params.kwonly.len() as u32;
        u.flags.varargs = params.vararg.is_some();
        u.flags.varkeywords = params.kwarg.is_some();
    }

    /// Compile a function-like body, wrapped in the PEP 479 handler for generators and
    /// coroutines (CPython's `compiler_wrap_in_stopiteration_handler`), then `return None`.
    fn function_body(
        &mut self,
        body: impl FnOnce(&mut Self) -> CompileResult<()>,
    ) -> CompileResult<()> {
        let f = self.unit().flags;
        let wrap = f.generator || f.coroutine || f.async_generator;
        let handler = self.new_label();
        if wrap {
            self.push_handler(handler, true, 0);
        }
        body(self)?;
        self.return_none_if_reachable();
        if wrap {
            self.pop_handler();
            self.bind(handler);
            self.u().cold += 1;
            self.emit(Instr::CallIntrinsic1(Intrinsic1::StopIterationError));
            self.emit(Instr::Reraise(1));
            self.u().cold -= 1;
        }
        Ok(())
    }

    fn class_def(&mut self, class: &'a ClassDef, span: Span) -> CompileResult<()> {
        for d in &class.decorators {
            self.expr(d)?;
        }
        let first = class.decorators.first().map_or(span, |d| d.span);
        let scope = self.scope_of(class, span)?;
        self.emit(Instr::LoadBuildClass);
        self.emit(Instr::PushNull);
        self.push_unit(scope, &class.name.name, class.name.span);
        let first_line = self.lines.line_of(first.start);
        self.u().first_line = first_line;
        self.at(class.name.span, |c| -> CompileResult<()> {
            c.name_op("__name__", Ctx::Load, span)?;
            c.name_op("__module__", Ctx::Store, span)?;
            let qualname = c.unit().qualname.clone();
            c.load_const(Constant::Str(qualname));
            c.name_op("__qualname__", Ctx::Store, span)?;
            c.load_const(Constant::Int(first_line as i64));
            c.name_op("__firstlineno__", Ctx::Store, span)
        })?;
        let body = match docstring(&class.body) {
            Some(doc) => {
                self.at(class.body[0].span, |c| {
                    c.load_const(Constant::Str(doc.into()));
                    c.name_op("__doc__", Ctx::Store, span)
                })?;
                &class.body[1..]
            }
            None => &class.body[..],
        };
        if has_annotations(&class.body) {
            self.emit(Instr::SetupAnnotations);
        }
        self.body(body)?;
        self.u().loc = self.location(class.name.span);
        if self.table.scopes[scope].needs_class_closure {
            let i = self
                .cell_index("__class__")
                .ok_or_else(|| internal("no __class__ cell", span))?;
            self.emit(Instr::LoadClosure(i));
            self.emit(Instr::Copy(1));
            self.name_op("__classcell__", Ctx::Store, span)?;
            self.emit(Instr::ReturnValue);
        } else {
            self.return_none_if_reachable();
        }
        let code = self.assemble()?;
        self.make_function(code, 0, span)?;
        self.load_const(Constant::Str(class.name.name.as_str().into()));
        self.call_args(2, &class.bases, &class.keywords, span)?;
        for _ in &class.decorators {
            self.emit(Instr::Call(0));
        }
        self.name_op(&class.name.name, Ctx::Store, span)
    }

    fn lambda(
        &mut self,
        expr: &'a Expr,
        params: &'a Parameters,
        body: &'a Expr,
    ) -> CompileResult<()> {
        let scope = self.scope_of(expr, expr.span)?;
        let attrs = self.defaults(params)?;
        self.push_unit(scope, "<lambda>", expr.span);
        self.set_arg_counts(params);
        // None first, so a lambda never has a docstring.
        self.const_index(Constant::None);
        self.function_body(|c| {
            c.expr(body)?;
            c.emit(Instr::ReturnValue);
            Ok(())
        })?;
        let code = self.assemble()?;
        self.make_function(code, attrs, expr.span)
    }

    // ---- statements --------------------------------------------------------------------------

    fn stmt(&mut self, stmt: &'a Stmt) -> CompileResult<()> {
        let loc = self.location(stmt.span);
        self.u().loc = loc;
        let span = stmt.span;
        match &stmt.kind {
            StmtKind::Expr(e) => {
                let interactive = self.mode == Mode::Interactive
                    && self.unit().kind == ScopeKind::Module
                    && self.units.len() == 1;
                if interactive {
                    self.expr(e)?;
                    self.emit(Instr::CallIntrinsic1(Intrinsic1::Print));
                    self.emit(Instr::PopTop);
                } else if let ExprKind::Constant(_) = e.kind {
                    // A docstring-like constant statement does nothing.
                } else {
                    self.expr(e)?;
                    self.emit(Instr::PopTop);
                }
                Ok(())
            }
            StmtKind::Assign { targets, value } => {
                self.expr(value)?;
                for (i, t) in targets.iter().enumerate() {
                    if i + 1 < targets.len() {
                        self.emit(Instr::Copy(1));
                    }
                    self.store(t)?;
                }
                Ok(())
            }
            StmtKind::AugAssign { target, op, value } => self.aug_assign(target, *op, value),
            StmtKind::AnnAssign {
                target,
                annotation,
                value,
                simple,
            } => {
                // Module and class bodies evaluate annotations; simple names are recorded
                // in `__annotations__` (CPython's `compiler_annassign`).
                let annotate = !self.unit().kind.is_function_like();
                if let Some(v) = value {
                    self.expr(v)?;
                    self.store(target)?;
                }
                if let (ExprKind::Name(name), true) = (&target.kind, *simple) {
                    if annotate {
                        self.expr(annotation)?;
                        self.name_op("__annotations__", Ctx::Load, span)?;
                        let name = mangle(self.unit().private.as_deref(), name).into_owned();
                        self.load_const(Constant::Str(name.into()));
                        self.emit(Instr::StoreSubscr);
                    }
                    return Ok(());
                }
                if value.is_none() {
                    // `a.b: int` evaluates `a`; `a[i]: int` evaluates `a` and `i`.
                    match &target.kind {
                        ExprKind::Attribute { value, .. } => {
                            self.expr(value)?;
                            self.emit(Instr::PopTop);
                        }
                        ExprKind::Subscript { value, slice } => {
                            self.expr(value)?;
                            self.emit(Instr::PopTop);
                            self.expr(slice)?;
                            self.emit(Instr::PopTop);
                        }
                        _ => {}
                    }
                }
                if annotate {
                    self.expr(annotation)?;
                    self.emit(Instr::PopTop);
                }
                Ok(())
            }
            StmtKind::Pass | StmtKind::Global(_) | StmtKind::Nonlocal(_) => Ok(()),
            StmtKind::Break | StmtKind::Continue => {
                let is_break = matches!(stmt.kind, StmtKind::Break);
                let (found, saved) = self.unwind_fblock_stack(false, true, span)?;
                let target = match found {
                    Some(block) => {
                        let (start, exit) = match block.kind {
                            FBlockKind::WhileLoop { start, exit }
                            | FBlockKind::ForLoop { start, exit } => (start, exit),
                            _ => return Err(internal("loop block", span)),
                        };
                        if is_break {
                            self.unwind_fblock(&block, false)?;
                            exit
                        } else {
                            start
                        }
                    }
                    None if is_break => return err("'break' outside loop", span),
                    None => return err("'continue' not properly in loop", span),
                };
                self.jump(Instr::Jump, target);
                self.end_unwind(saved);
                Ok(())
            }
            StmtKind::Delete(targets) => targets.iter().try_for_each(|t| self.delete(t)),
            StmtKind::Return(value) => self.return_stmt(value.as_ref(), span),
            StmtKind::Raise { exc, cause } => {
                let mut n = 0;
                if let Some(e) = exc {
                    self.expr(e)?;
                    n = 1;
                    if let Some(c) = cause {
                        self.expr(c)?;
                        n = 2;
                    }
                }
                self.emit(Instr::RaiseVarargs(n));
                Ok(())
            }
            StmtKind::Assert { test, msg } => {
                let end = self.new_label();
                self.jump_if(test, true, end)?;
                self.emit(Instr::LoadAssertionError);
                if let Some(m) = msg {
                    self.expr(m)?;
                    self.emit(Instr::Call(0));
                }
                self.emit(Instr::RaiseVarargs(1));
                self.bind(end);
                Ok(())
            }
            StmtKind::If { test, body, orelse } => {
                let next = self.new_label();
                self.jump_if(test, false, next)?;
                self.body(body)?;
                if orelse.is_empty() {
                    self.bind(next);
                } else {
                    let end = self.new_label();
                    self.jump(Instr::Jump, end);
                    self.bind(next);
                    self.body(orelse)?;
                    self.bind(end);
                }
                Ok(())
            }
            StmtKind::While { test, body, orelse } => self.while_stmt(test, body, orelse),
            StmtKind::For {
                is_async: false,
                target,
                iter,
                body,
                orelse,
            } => self.for_stmt(target, iter, body, orelse),
            StmtKind::For {
                is_async: true,
                target,
                iter,
                body,
                orelse,
            } => self.async_for_stmt(target, iter, body, orelse, span),
            StmtKind::Try {
                body,
                handlers,
                orelse,
                finalbody,
                is_star,
            } => {
                if finalbody.is_empty() {
                    self.try_except(body, handlers, orelse, *is_star)
                } else {
                    self.try_finally(body, handlers, orelse, finalbody, *is_star)
                }
            }
            StmtKind::With {
                is_async,
                items,
                body,
            } => self.with_stmt(*is_async, items, body, span),
            StmtKind::FunctionDef(def) => self.function_def(def, span),
            StmtKind::ClassDef(class) => self.class_def(class, span),
            StmtKind::Import(aliases) => {
                for alias in aliases {
                    self.import(alias, span)?;
                }
                Ok(())
            }
            StmtKind::ImportFrom {
                module,
                names,
                level,
            } => self.import_from(module.as_ref(), names, *level, span),
        }
    }

    fn return_stmt(&mut self, value: Option<&'a Expr>, span: Span) -> CompileResult<()> {
        let u = self.unit();
        if !u.kind.is_function_like() {
            return err("'return' outside function", span);
        }
        if value.is_some() && u.flags.async_generator {
            return err("'return' with value in async generator", span);
        }
        let constant = match value {
            None => Some(Constant::None),
            Some(v) => folded_constant(v),
        };
        if let (None, Some(v)) = (&constant, value) {
            self.expr(v)?;
        }
        let (_, saved) = self.unwind_fblock_stack(constant.is_none(), false, span)?;
        match constant {
            Some(c) => {
                let i = self.const_index(c);
                self.emit(Instr::ReturnConst(i));
            }
            None => self.emit(Instr::ReturnValue),
        }
        self.end_unwind(saved);
        Ok(())
    }

    fn while_stmt(
        &mut self,
        test: &'a Expr,
        body: &'a [Stmt],
        orelse: &'a [Stmt],
    ) -> CompileResult<()> {
        // The test is compiled twice, at the top and at the bottom, so that each iteration
        // costs one conditional jump (CPython's `compiler_while`).
        let start = self.new_label();
        let body_start = self.new_label();
        let anchor = self.new_label();
        let exit = self.new_label();
        let forever = is_true_constant(test);
        self.bind(start);
        self.push_fblock(FBlockKind::WhileLoop { start, exit });
        if !forever {
            self.jump_if(test, false, anchor)?;
        }
        self.bind(body_start);
        self.body(body)?;
        if forever {
            self.jump(Instr::Jump, body_start);
        } else {
            self.jump_if(test, true, body_start)?;
        }
        self.u().fblocks.pop();
        self.bind(anchor);
        self.body(orelse)?;
        self.bind(exit);
        Ok(())
    }

    fn for_stmt(
        &mut self,
        target: &'a Expr,
        iter: &'a Expr,
        body: &'a [Stmt],
        orelse: &'a [Stmt],
    ) -> CompileResult<()> {
        let start = self.new_label();
        let cleanup = self.new_label();
        let exit = self.new_label();
        self.expr(iter)?;
        self.at(iter.span, |c| c.emit(Instr::GetIter));
        self.bind(start);
        self.at(iter.span, |c| c.jump(Instr::ForIter, cleanup));
        self.push_fblock(FBlockKind::ForLoop { start, exit });
        self.store(target)?;
        self.body(body)?;
        self.jump(Instr::Jump, start);
        self.u().fblocks.pop();
        self.bind(cleanup);
        self.body(orelse)?;
        self.bind(exit);
        Ok(())
    }

    fn async_for_stmt(
        &mut self,
        target: &'a Expr,
        iter: &'a Expr,
        body: &'a [Stmt],
        orelse: &'a [Stmt],
        span: Span,
    ) -> CompileResult<()> {
        self.check_async_allowed("'async for' outside async function", span)?;
        let start = self.new_label();
        let except = self.new_label();
        let exit = self.new_label();
        self.expr(iter)?;
        self.at(iter.span, |c| c.emit(Instr::GetAiter));
        self.bind(start);
        self.push_handler(except, false, 0);
        self.at(iter.span, |c| {
            c.emit(Instr::GetAnext);
            c.load_none();
            c.yield_from_loop();
        });
        self.pop_handler();
        self.push_fblock(FBlockKind::ForLoop { start, exit });
        self.store(target)?;
        self.body(body)?;
        self.jump(Instr::Jump, start);
        self.u().fblocks.pop();
        self.bind(except);
        self.at(iter.span, |c| c.emit(Instr::EndAsyncFor));
        self.body(orelse)?;
        self.bind(exit);
        Ok(())
    }

    fn check_async_allowed(&self, message: &str, span: Span) -> CompileResult<()> {
        let u = self.unit();
        let top_level = self.mode == Mode::Interactive && u.kind == ScopeKind::Module;
        if u.is_async() || top_level {
            Ok(())
        } else {
            err(message, span)
        }
    }

    /// `try: body except ...: ... else: orelse` (CPython's `compiler_try_except`).
    fn try_except(
        &mut self,
        body: &'a [Stmt],
        handlers: &'a [ExceptHandler],
        orelse: &'a [Stmt],
        is_star: bool,
    ) -> CompileResult<()> {
        if is_star {
            return self.try_star_except(body, handlers, orelse);
        }
        let except = self.new_label();
        let cleanup = self.new_label();
        let end = self.new_label();
        let outer = self.unit().handler_stack.len();
        self.push_handler(except, false, 0);
        self.push_fblock_at(FBlockKind::TryExcept, outer);
        self.body(body)?;
        self.u().fblocks.pop();
        self.pop_handler();
        self.body(orelse)?;
        self.jump(Instr::Jump, end);

        self.bind(except);
        self.u().cold += 1;
        let outer = self.unit().handler_stack.len();
        let cleanup_handler = self.push_handler(cleanup, true, 0);
        self.emit(Instr::PushExcInfo);
        self.push_fblock_at(FBlockKind::ExceptionHandler, outer);
        for handler in handlers {
            self.u().loc = self.location(handler.span);
            let next = self.new_label();
            if let Some(typ) = &handler.typ {
                self.expr(typ)?;
                self.emit(Instr::CheckExcMatch);
                self.jump(Instr::PopJumpIfFalse, next);
            }
            match &handler.name {
                Some(name) => {
                    let cleanup_end = self.new_label();
                    self.name_op(&name.name, Ctx::Store, name.span)?;
                    self.push_handler(cleanup_end, true, 0);
                    self.push_fblock_at(
                        FBlockKind::HandlerCleanup {
                            name: Some(name.name.clone()),
                        },
                        outer,
                    );
                    self.body(&handler.body)?;
                    self.u().fblocks.pop();
                    self.pop_handler();
                    self.pop_handler();
                    self.emit(Instr::PopExcept);
                    self.clear_name(&name.name, name.span)?;
                    self.jump(Instr::Jump, end);
                    // An exception inside the handler body: clear the name, re-raise.
                    self.u().handler_stack.push(cleanup_handler);
                    self.bind(cleanup_end);
                    self.clear_name(&name.name, name.span)?;
                    self.emit(Instr::Reraise(1));
                }
                None => {
                    self.emit(Instr::PopTop);
                    self.push_fblock_at(FBlockKind::HandlerCleanup { name: None }, outer);
                    self.body(&handler.body)?;
                    self.u().fblocks.pop();
                    self.pop_handler();
                    self.emit(Instr::PopExcept);
                    self.jump(Instr::Jump, end);
                    self.u().handler_stack.push(cleanup_handler);
                }
            }
            self.bind(next);
        }
        self.u().fblocks.pop();
        // No handler matched: re-raise.
        self.emit(Instr::Reraise(0));
        self.pop_handler();
        self.bind(cleanup);
        self.pop_except_and_reraise();
        self.u().cold -= 1;
        self.bind(end);
        Ok(())
    }

    /// `try: body except* T as name: ...` (CPython's `compiler_try_star_except`): each
    /// handler takes its part of the group with `CheckEgMatch`; what the handlers raise and
    /// what none matched are collected in a list and re-raised together.
    fn try_star_except(
        &mut self,
        body: &'a [Stmt],
        handlers: &'a [ExceptHandler],
        orelse: &'a [Stmt],
    ) -> CompileResult<()> {
        let except = self.new_label();
        let cleanup = self.new_label();
        let reraise_star = self.new_label();
        let reraise = self.new_label();
        let end = self.new_label();
        let outer = self.unit().handler_stack.len();
        self.push_handler(except, false, 0);
        self.push_fblock_at(FBlockKind::TryExcept, outer);
        self.body(body)?;
        self.u().fblocks.pop();
        self.pop_handler();
        self.body(orelse)?;
        self.jump(Instr::Jump, end);

        // Stack: prev_exc orig excs rest
        self.bind(except);
        self.u().cold += 1;
        let outer = self.unit().handler_stack.len();
        self.push_handler(cleanup, true, 0);
        self.emit(Instr::PushExcInfo);
        self.push_fblock_at(FBlockKind::ExceptionGroupHandler, outer);
        for (i, handler) in handlers.iter().enumerate() {
            self.u().loc = self.location(handler.span);
            let next = self.new_label();
            let no_match = self.new_label();
            let with_error = self.new_label();
            let cleanup_end = self.new_label();
            if i == 0 {
                self.emit(Instr::BuildList(0));
                self.emit(Instr::Copy(2));
            }
            if let Some(typ) = &handler.typ {
                self.expr(typ)?;
                self.emit(Instr::CheckEgMatch);
                self.emit(Instr::Copy(1));
                self.jump(Instr::PopJumpIfNone, no_match);
            }
            match &handler.name {
                Some(name) => self.name_op(&name.name, Ctx::Store, name.span)?,
                None => self.emit(Instr::PopTop),
            }
            self.push_handler(cleanup_end, true, 0);
            self.push_fblock(FBlockKind::HandlerCleanup {
                name: handler.name.as_ref().map(|n| n.name.clone()),
            });
            self.body(&handler.body)?;
            self.u().fblocks.pop();
            self.pop_handler();
            if let Some(name) = &handler.name {
                self.clear_name(&name.name, name.span)?;
            }
            self.jump(Instr::Jump, next);
            // The handler raised: keep its exception for the final group.
            self.bind(cleanup_end);
            if let Some(name) = &handler.name {
                self.clear_name(&name.name, name.span)?;
            }
            self.emit(Instr::ListAppend(3));
            self.emit(Instr::PopTop);
            self.jump(Instr::Jump, with_error);
            self.bind(next);
            self.emit(Instr::Nop);
            self.jump(Instr::Jump, with_error);
            self.bind(no_match);
            self.emit(Instr::PopTop);
            self.bind(with_error);
            if i + 1 == handlers.len() {
                self.emit(Instr::ListAppend(1));
                self.jump(Instr::Jump, reraise_star);
            }
        }
        self.u().fblocks.pop();
        self.bind(reraise_star);
        self.emit(Instr::PrepReraiseStar);
        self.emit(Instr::Copy(1));
        self.jump(Instr::PopJumpIfNotNone, reraise);
        self.emit(Instr::PopTop);
        self.pop_handler();
        self.emit(Instr::PopExcept);
        self.jump(Instr::Jump, end);
        self.bind(reraise);
        self.emit(Instr::Swap(2));
        self.emit(Instr::PopExcept);
        self.emit(Instr::Reraise(0));
        self.bind(cleanup);
        self.pop_except_and_reraise();
        self.u().cold -= 1;
        self.bind(end);
        Ok(())
    }

    /// `COPY 3; POP_EXCEPT; RERAISE 1`: restore the previously handled exception and
    /// re-raise the new one with its original `lasti`.
    fn pop_except_and_reraise(&mut self) {
        self.emit(Instr::Copy(3));
        self.emit(Instr::PopExcept);
        self.emit(Instr::Reraise(1));
    }

    /// `name = None; del name` at the end of `except E as name`.
    fn clear_name(&mut self, name: &str, span: Span) -> CompileResult<()> {
        self.load_none();
        self.name_op(name, Ctx::Store, span)?;
        self.name_op(name, Ctx::Del, span)
    }

    /// `try: ... finally: finalbody` (CPython's `compiler_try_finally`).
    fn try_finally(
        &mut self,
        body: &'a [Stmt],
        handlers: &'a [ExceptHandler],
        orelse: &'a [Stmt],
        finalbody: &'a [Stmt],
        is_star: bool,
    ) -> CompileResult<()> {
        let end = self.new_label();
        let exit = self.new_label();
        let cleanup = self.new_label();
        let outer = self.unit().handler_stack.len();
        self.push_handler(end, false, 0);
        self.push_fblock_at(FBlockKind::FinallyTry { body: finalbody }, outer);
        if handlers.is_empty() {
            self.body(body)?;
        } else {
            self.try_except(body, handlers, orelse, is_star)?;
        }
        self.u().fblocks.pop();
        self.pop_handler();
        self.body(finalbody)?;
        self.jump(Instr::Jump, exit);

        // The exceptional path: run the finally body with the exception saved, re-raise.
        self.bind(end);
        self.u().cold += 1;
        let outer = self.unit().handler_stack.len();
        self.push_handler(cleanup, true, 0);
        self.emit(Instr::PushExcInfo);
        self.push_fblock_at(FBlockKind::FinallyEnd, outer);
        self.body(finalbody)?;
        self.u().fblocks.pop();
        self.emit(Instr::Reraise(0));
        self.pop_handler();
        self.bind(cleanup);
        self.pop_except_and_reraise();
        self.u().cold -= 1;
        self.bind(exit);
        Ok(())
    }

    /// `with a as x, b as y: body` (CPython's `compiler_with` / `compiler_async_with`).
    fn with_stmt(
        &mut self,
        is_async: bool,
        items: &'a [WithItem],
        body: &'a [Stmt],
        span: Span,
    ) -> CompileResult<()> {
        if is_async {
            self.check_async_allowed("'async with' outside async function", span)?;
        }
        let Some((item, rest)) = items.split_first() else {
            return self.body(body);
        };
        let final_ = self.new_label();
        let exit = self.new_label();
        let cleanup = self.new_label();
        self.expr(&item.context)?;
        let with_span = item.context.span;
        self.at(with_span, |c| {
            if is_async {
                c.emit(Instr::BeforeAsyncWith);
                c.emit(Instr::GetAwaitable(1));
                c.load_none();
                c.yield_from_loop();
            } else {
                c.emit(Instr::BeforeWith);
            }
        });
        let outer = self.unit().handler_stack.len();
        // The handler keeps `exit` (the enter result is stored or popped first).
        self.push_handler(final_, true, -1);
        self.push_fblock_at(
            FBlockKind::With {
                is_async,
                span: with_span,
            },
            outer,
        );
        match &item.target {
            Some(t) => self.store(t)?,
            None => self.emit(Instr::PopTop),
        }
        if rest.is_empty() {
            self.body(body)?;
        } else {
            self.with_stmt(is_async, rest, body, span)?;
        }
        self.u().fblocks.pop();
        self.pop_handler();
        self.at(with_span, |c| {
            c.call_exit_with_nones();
            if is_async {
                c.emit(Instr::GetAwaitable(2));
                c.load_none();
                c.yield_from_loop();
            }
            c.emit(Instr::PopTop);
        });
        self.jump(Instr::Jump, exit);

        // An exception in the body: `exit(type, exc, tb)`; a true result suppresses it.
        self.bind(final_);
        self.u().cold += 1;
        self.u().loc = self.location(with_span);
        self.push_handler(cleanup, true, 0);
        self.emit(Instr::PushExcInfo);
        self.emit(Instr::WithExceptStart);
        if is_async {
            self.emit(Instr::GetAwaitable(2));
            self.load_none();
            self.yield_from_loop();
        }
        let suppress = self.new_label();
        self.jump(Instr::PopJumpIfTrue, suppress);
        self.emit(Instr::Reraise(2));
        self.bind(suppress);
        self.emit(Instr::PopTop);
        self.pop_handler();
        self.emit(Instr::PopExcept);
        self.emit(Instr::PopTop);
        self.emit(Instr::PopTop);
        self.jump(Instr::Jump, exit);
        self.bind(cleanup);
        self.pop_except_and_reraise();
        self.u().cold -= 1;
        self.bind(exit);
        Ok(())
    }

    /// `exit(None, None, None)`: the first None takes the `self_or_null` slot of `Call`.
    fn call_exit_with_nones(&mut self) {
        self.load_none();
        self.load_none();
        self.load_none();
        self.emit(Instr::Call(2));
    }

    // ---- frame blocks and unwinding ----------------------------------------------------------

    fn push_fblock(&mut self, kind: FBlockKind<'a>) {
        let handlers = self.unit().handler_stack.len();
        self.push_fblock_at(kind, handlers);
    }

    fn push_fblock_at(&mut self, kind: FBlockKind<'a>, handlers: usize) {
        self.u().fblocks.push(FBlock { kind, handlers });
    }

    /// Emit the cleanup of every block up to the innermost loop (`to_loop`) or all of them
    /// (for `return`). Returns the loop block. `preserve_tos` keeps a return value on top.
    /// The caller emits its jump or return, then calls [`Self::end_unwind`] with `saved`.
    fn unwind_fblock_stack(
        &mut self,
        preserve_tos: bool,
        to_loop: bool,
        span: Span,
    ) -> CompileResult<(Option<FBlock<'a>>, Unwound<'a>)> {
        let saved = Unwound {
            fblocks: self.unit().fblocks.clone(),
            handlers: self.unit().handler_stack.clone(),
        };
        let mut found = None;
        while let Some(block) = self.u().fblocks.pop() {
            if to_loop
                && matches!(
                    block.kind,
                    FBlockKind::WhileLoop { .. } | FBlockKind::ForLoop { .. }
                )
            {
                self.u().handler_stack.truncate(block.handlers);
                found = Some(block);
                break;
            }
            if let FBlockKind::ExceptionGroupHandler = block.kind {
                return err(
                    "'break', 'continue' and 'return' cannot appear in an except* block",
                    span,
                );
            }
            self.unwind_fblock(&block, preserve_tos)?;
        }
        self.u().loc = self.location(span);
        Ok((found, saved))
    }

    fn end_unwind(&mut self, saved: Unwound<'a>) {
        let u = self.u();
        u.fblocks = saved.fblocks;
        u.handler_stack = saved.handlers;
    }

    /// CPython's `compiler_unwind_fblock`: the cleanup one block needs when a jump leaves it.
    fn unwind_fblock(&mut self, block: &FBlock<'a>, preserve_tos: bool) -> CompileResult<()> {
        self.u().handler_stack.truncate(block.handlers);
        match &block.kind {
            FBlockKind::WhileLoop { .. }
            | FBlockKind::TryExcept
            | FBlockKind::ExceptionHandler
            | FBlockKind::ExceptionGroupHandler => {}
            FBlockKind::ForLoop { .. } | FBlockKind::PopValue => {
                if preserve_tos {
                    self.emit(Instr::Swap(2));
                }
                self.emit(Instr::PopTop);
            }
            FBlockKind::FinallyTry { body } => {
                let body = *body;
                if preserve_tos {
                    self.push_fblock(FBlockKind::PopValue);
                }
                self.body(body)?;
                if preserve_tos {
                    self.u().fblocks.pop();
                }
            }
            FBlockKind::FinallyEnd => {
                if preserve_tos {
                    self.emit(Instr::Swap(2));
                }
                self.emit(Instr::PopTop);
                if preserve_tos {
                    self.emit(Instr::Swap(2));
                }
                self.emit(Instr::PopExcept);
            }
            FBlockKind::With { is_async, span } => {
                let (is_async, span) = (*is_async, *span);
                self.at(span, |c| {
                    if preserve_tos {
                        c.emit(Instr::Swap(2));
                    }
                    c.call_exit_with_nones();
                    if is_async {
                        c.emit(Instr::GetAwaitable(2));
                        c.load_none();
                        c.yield_from_loop();
                    }
                    c.emit(Instr::PopTop);
                });
            }
            FBlockKind::HandlerCleanup { name } => {
                if preserve_tos {
                    self.emit(Instr::Swap(2));
                }
                self.emit(Instr::PopExcept);
                if let Some(name) = name {
                    let span = self.unit().loc.span;
                    self.clear_name(name, span)?;
                }
            }
        }
        Ok(())
    }

    // ---- assignment targets --------------------------------------------------------------------

    fn store(&mut self, target: &'a Expr) -> CompileResult<()> {
        self.at(target.span, |c| c.store_inner(target))
    }

    fn store_inner(&mut self, target: &'a Expr) -> CompileResult<()> {
        match &target.kind {
            ExprKind::Name(name) => self.name_op(name, Ctx::Store, target.span),
            ExprKind::Attribute { value, attr } => {
                self.expr(value)?;
                let i = self.attr_index(&attr.name);
                self.emit(Instr::StoreAttr(i));
                Ok(())
            }
            ExprKind::Subscript { value, slice } => {
                self.expr(value)?;
                if let Some((lower, upper)) = two_part_slice(slice) {
                    self.slice_bound(lower)?;
                    self.slice_bound(upper)?;
                    self.emit(Instr::StoreSlice);
                } else {
                    self.expr(slice)?;
                    self.emit(Instr::StoreSubscr);
                }
                Ok(())
            }
            ExprKind::Tuple(elts) | ExprKind::List(elts) => {
                self.unpack(elts, target.span)?;
                for e in elts {
                    match &e.kind {
                        ExprKind::Starred(inner) => self.store(inner)?,
                        _ => self.store(e)?,
                    }
                }
                Ok(())
            }
            ExprKind::Starred(_) => err(
                "starred assignment target must be in a list or tuple",
                target.span,
            ),
            _ => err("cannot assign to expression", target.span),
        }
    }

    /// `UnpackSequence` or `UnpackEx` for a tuple/list target (CPython's `unpack_helper`).
    fn unpack(&mut self, elts: &'a [Expr], span: Span) -> CompileResult<()> {
        let mut star = None;
        for (i, e) in elts.iter().enumerate() {
            if let ExprKind::Starred(_) = e.kind {
                if star.is_some() {
                    return err("multiple starred expressions in assignment", span);
                }
                star = Some(i);
            }
        }
        match star {
            Some(before) => {
                let after = elts.len() - before - 1;
                if before >= 1 << 8 || after >= (i32::MAX >> 8) as usize {
                    return err("too many expressions in star-unpacking assignment", span);
                }
                self.emit(Instr::UnpackEx((before | (after << 8)) as u32));
            }
            None => self.emit(Instr::UnpackSequence(elts.len() as u32)),
        }
        Ok(())
    }

    fn delete(&mut self, target: &'a Expr) -> CompileResult<()> {
        self.at(target.span, |c| match &target.kind {
            ExprKind::Name(name) => c.name_op(name, Ctx::Del, target.span),
            ExprKind::Attribute { value, attr } => {
                c.expr(value)?;
                let i = c.attr_index(&attr.name);
                c.emit(Instr::DeleteAttr(i));
                Ok(())
            }
            ExprKind::Subscript { value, slice } => {
                c.expr(value)?;
                c.expr(slice)?;
                c.emit(Instr::DeleteSubscr);
                Ok(())
            }
            ExprKind::Tuple(elts) | ExprKind::List(elts) => {
                elts.iter().try_for_each(|e| c.delete(e))
            }
            _ => err("cannot delete expression", target.span),
        })
    }

    /// `target op= value`, evaluating the target's container (and key) once.
    fn aug_assign(
        &mut self,
        target: &'a Expr,
        op: ast::BinOp,
        value: &'a Expr,
    ) -> CompileResult<()> {
        let op = inplace_operator(op);
        self.at(target.span, |c| match &target.kind {
            ExprKind::Name(name) => {
                c.name_op(name, Ctx::Load, target.span)?;
                c.expr(value)?;
                c.emit(Instr::BinaryOp(op));
                c.name_op(name, Ctx::Store, target.span)
            }
            ExprKind::Attribute { value: obj, attr } => {
                c.expr(obj)?;
                c.emit(Instr::Copy(1));
                let i = c.attr_index(&attr.name);
                c.emit(Instr::LoadAttr(i));
                c.expr(value)?;
                c.emit(Instr::BinaryOp(op));
                c.emit(Instr::Swap(2));
                c.emit(Instr::StoreAttr(i));
                Ok(())
            }
            ExprKind::Subscript { value: obj, slice } => {
                c.expr(obj)?;
                if let Some((lower, upper)) = two_part_slice(slice) {
                    c.slice_bound(lower)?;
                    c.slice_bound(upper)?;
                    c.emit(Instr::Copy(3));
                    c.emit(Instr::Copy(3));
                    c.emit(Instr::Copy(3));
                    c.emit(Instr::BinarySlice);
                    c.expr(value)?;
                    c.emit(Instr::BinaryOp(op));
                    c.emit(Instr::Swap(4));
                    c.emit(Instr::Swap(3));
                    c.emit(Instr::Swap(2));
                    c.emit(Instr::StoreSlice);
                } else {
                    c.expr(slice)?;
                    c.emit(Instr::Copy(2));
                    c.emit(Instr::Copy(2));
                    c.emit(Instr::BinarySubscr);
                    c.expr(value)?;
                    c.emit(Instr::BinaryOp(op));
                    c.emit(Instr::Swap(3));
                    c.emit(Instr::Swap(2));
                    c.emit(Instr::StoreSubscr);
                }
                Ok(())
            }
            ExprKind::Starred(_) => err(
                "'starred' is an illegal expression for augmented assignment",
                target.span,
            ),
            _ => err("illegal expression for augmented assignment", target.span),
        })
    }

    // ---- imports ---------------------------------------------------------------------------------

    fn import(&mut self, alias: &'a Alias, span: Span) -> CompileResult<()> {
        self.load_const(Constant::Int(0));
        self.load_none();
        let i = self.name_index(&alias.name.name);
        self.emit(Instr::ImportName(i));
        match &alias.asname {
            Some(asname) => {
                let parts: Vec<&str> = alias.name.name.split('.').collect();
                for (k, part) in parts.iter().enumerate().skip(1) {
                    let i = self.name_index(part);
                    self.emit(Instr::ImportFrom(i));
                    if k + 1 == parts.len() {
                        break;
                    }
                    self.emit(Instr::Swap(2));
                    self.emit(Instr::PopTop);
                }
                self.name_op(&asname.name, Ctx::Store, span)?;
                if parts.len() > 1 {
                    self.emit(Instr::PopTop);
                }
                Ok(())
            }
            None => {
                let first = alias.name.name.split('.').next().unwrap_or("");
                self.name_op(first, Ctx::Store, span)
            }
        }
    }

    fn import_from(
        &mut self,
        module: Option<&'a Ident>,
        names: &'a [Alias],
        level: u32,
        span: Span,
    ) -> CompileResult<()> {
        self.load_const(Constant::Int(level as i64));
        let fromlist: Rc<[Constant]> = names
            .iter()
            .map(|a| Constant::Str(a.name.name.as_str().into()))
            .collect();
        self.load_const(Constant::Tuple(fromlist));
        let i = self.name_index(module.map_or("", |m| m.name.as_str()));
        self.emit(Instr::ImportName(i));
        if names.first().is_some_and(|a| a.name.name == "*") {
            self.emit(Instr::CallIntrinsic1(Intrinsic1::ImportStar));
            self.emit(Instr::PopTop);
            return Ok(());
        }
        for alias in names {
            let i = self.name_index(&alias.name.name);
            self.emit(Instr::ImportFrom(i));
            let bound = alias.asname.as_ref().unwrap_or(&alias.name);
            self.name_op(&bound.name, Ctx::Store, span)?;
        }
        self.emit(Instr::PopTop);
        Ok(())
    }

    // ---- expressions -------------------------------------------------------------------------------

    fn expr(&mut self, expr: &'a Expr) -> CompileResult<()> {
        self.at(expr.span, |c| c.expr_inner(expr))
    }

    fn expr_inner(&mut self, expr: &'a Expr) -> CompileResult<()> {
        let span = expr.span;
        match &expr.kind {
            ExprKind::BoolOp { op, values } => {
                let end = self.new_label();
                let jump = match op {
                    ast::BoolOp::And => Instr::PopJumpIfFalse,
                    ast::BoolOp::Or => Instr::PopJumpIfTrue,
                };
                let (last, init) = values
                    .split_last()
                    .ok_or_else(|| internal("empty bool op", span))?;
                for v in init {
                    self.expr(v)?;
                    self.emit(Instr::Copy(1));
                    self.jump(jump, end);
                    self.emit(Instr::PopTop);
                }
                self.expr(last)?;
                self.bind(end);
                Ok(())
            }
            ExprKind::NamedExpr { target, value } => {
                self.expr(value)?;
                self.emit(Instr::Copy(1));
                self.store(target)
            }
            ExprKind::BinOp { left, op, right } => {
                self.expr(left)?;
                self.expr(right)?;
                self.emit(Instr::BinaryOp(binary_operator(*op)));
                Ok(())
            }
            ExprKind::UnaryOp { op, operand } => {
                if *op == UnaryOp::USub
                    && let ExprKind::Constant(c) = &operand.kind
                    && let Some(folded) = negate_constant(c)
                {
                    self.load_const(folded);
                    return Ok(());
                }
                self.expr(operand)?;
                self.emit(match op {
                    UnaryOp::Invert => Instr::UnaryInvert,
                    UnaryOp::Not => Instr::UnaryNot,
                    UnaryOp::USub => Instr::UnaryNegative,
                    UnaryOp::UAdd => Instr::CallIntrinsic1(Intrinsic1::UnaryPositive),
                });
                Ok(())
            }
            ExprKind::Lambda { params, body } => self.lambda(expr, params, body),
            ExprKind::IfExp { test, body, orelse } => {
                let next = self.new_label();
                let end = self.new_label();
                self.jump_if(test, false, next)?;
                self.expr(body)?;
                self.jump(Instr::Jump, end);
                self.bind(next);
                self.expr(orelse)?;
                self.bind(end);
                Ok(())
            }
            ExprKind::Dict { keys, values } => self.dict(keys, values),
            ExprKind::Set(elts) => self.starunpack(elts, 0, Collection::Set),
            ExprKind::List(elts) => self.starunpack(elts, 0, Collection::List),
            ExprKind::Tuple(elts) => {
                if let Some(c) = constant_tuple(elts) {
                    self.load_const(c);
                    Ok(())
                } else {
                    self.starunpack(elts, 0, Collection::Tuple)
                }
            }
            ExprKind::ListComp { elt, generators } => {
                self.comprehension(expr, CompKind::List, generators, elt, None)
            }
            ExprKind::SetComp { elt, generators } => {
                self.comprehension(expr, CompKind::Set, generators, elt, None)
            }
            ExprKind::DictComp {
                key,
                value,
                generators,
            } => self.comprehension(expr, CompKind::Dict, generators, key, Some(value)),
            ExprKind::GeneratorExp { elt, generators } => {
                self.comprehension(expr, CompKind::Generator, generators, elt, None)
            }
            ExprKind::Await(value) => {
                let u = self.unit();
                let top_level = self.mode == Mode::Interactive && u.kind == ScopeKind::Module;
                if !top_level {
                    if !u.kind.is_function_like() {
                        return err("'await' outside function", span);
                    }
                    if matches!(u.kind, ScopeKind::Function | ScopeKind::Lambda) && !u.is_async() {
                        return err("'await' outside async function", span);
                    }
                }
                self.expr(value)?;
                self.emit(Instr::GetAwaitable(0));
                self.load_none();
                self.yield_from_loop();
                Ok(())
            }
            ExprKind::Yield(value) => {
                if !self.unit().kind.is_function_like() {
                    return err("'yield' outside function", span);
                }
                match value {
                    Some(v) => self.expr(v)?,
                    None => self.load_none(),
                }
                if self.unit().flags.async_generator {
                    self.emit(Instr::CallIntrinsic1(Intrinsic1::AsyncGenWrap));
                }
                self.emit(Instr::YieldValue(0));
                Ok(())
            }
            ExprKind::YieldFrom(value) => {
                if !self.unit().kind.is_function_like() {
                    return err("'yield' outside function", span);
                }
                if self.unit().is_async() {
                    return err("'yield from' inside async function", span);
                }
                self.expr(value)?;
                self.emit(Instr::GetYieldFromIter);
                self.load_none();
                self.yield_from_loop();
                Ok(())
            }
            ExprKind::Compare {
                left,
                ops,
                comparators,
            } => self.compare(left, ops, comparators),
            ExprKind::Call {
                func,
                args,
                keywords,
            } => self.call(func, args, keywords, span),
            ExprKind::FString(parts) => self.fstring(parts),
            ExprKind::Constant(c) => {
                self.load_const(constant(c));
                Ok(())
            }
            ExprKind::Attribute { value, attr } => {
                if let Some(first_arg) = self.zero_arg_super(value) {
                    self.load_super_args(&first_arg, value.span)?;
                    let i = self.attr_index(&attr.name);
                    self.on_attr_line(attr);
                    self.emit(Instr::LoadSuperAttr(i));
                    return Ok(());
                }
                self.expr(value)?;
                let i = self.attr_index(&attr.name);
                self.on_attr_line(attr);
                self.emit(Instr::LoadAttr(i));
                Ok(())
            }
            ExprKind::Subscript { value, slice } => {
                self.expr(value)?;
                if let Some((lower, upper)) = two_part_slice(slice) {
                    self.slice_bound(lower)?;
                    self.slice_bound(upper)?;
                    self.emit(Instr::BinarySlice);
                } else {
                    self.expr(slice)?;
                    self.emit(Instr::BinarySubscr);
                }
                Ok(())
            }
            ExprKind::Starred(_) => err("can't use starred expression here", span),
            ExprKind::Name(name) => self.name_op(name, Ctx::Load, span),
            ExprKind::Slice { lower, upper, step } => {
                self.slice_bound(lower.as_deref())?;
                self.slice_bound(upper.as_deref())?;
                match step {
                    Some(s) => {
                        self.expr(s)?;
                        self.emit(Instr::BuildSlice(3));
                    }
                    None => self.emit(Instr::BuildSlice(2)),
                }
                Ok(())
            }
        }
    }

    fn slice_bound(&mut self, bound: Option<&'a Expr>) -> CompileResult<()> {
        match bound {
            Some(e) => self.expr(e),
            None => {
                self.load_none();
                Ok(())
            }
        }
    }

    /// The `SEND`/`YIELD_VALUE` loop of `await` and `yield from` (CPython's
    /// `compiler_add_yield_from`): `(receiver value -- result)`.
    fn yield_from_loop(&mut self) {
        let send = self.new_label();
        let fail = self.new_label();
        let exit = self.new_label();
        self.bind(send);
        self.jump(Instr::Send, exit);
        self.push_handler(fail, false, 0);
        self.emit(Instr::YieldValue(1));
        self.pop_handler();
        self.jump(Instr::Jump, send);
        self.bind(fail);
        self.emit(Instr::CleanupThrow);
        self.bind(exit);
        self.emit(Instr::EndSend);
    }

    /// Jump to `target` when `expr`'s truth equals `cond` (CPython's `compiler_jump_if`).
    fn jump_if(&mut self, expr: &'a Expr, cond: bool, target: LabelId) -> CompileResult<()> {
        match &expr.kind {
            // `x is None` / `x is not None`: PopJumpIfNone / PopJumpIfNotNone.
            ExprKind::Compare {
                left,
                ops,
                comparators,
            } if ops.len() == 1
                && matches!(ops[0], CmpOp::Is | CmpOp::IsNot)
                && matches!(comparators[0].kind, ExprKind::Constant(ast::Constant::None)) =>
            {
                self.expr(left)?;
                let jump_if_none = (ops[0] == CmpOp::Is) == cond;
                self.at(expr.span, |c| {
                    c.jump(
                        if jump_if_none {
                            Instr::PopJumpIfNone
                        } else {
                            Instr::PopJumpIfNotNone
                        },
                        target,
                    )
                });
                Ok(())
            }
            ExprKind::UnaryOp {
                op: UnaryOp::Not,
                operand,
            } => self.jump_if(operand, !cond, target),
            ExprKind::BoolOp { op, values } => {
                let is_or = *op == ast::BoolOp::Or;
                let (last, init) = values
                    .split_last()
                    .ok_or_else(|| internal("empty bool op", expr.span))?;
                let next = if cond != is_or {
                    Some(self.new_label())
                } else {
                    None
                };
                for v in init {
                    self.jump_if(v, is_or, next.unwrap_or(target))?;
                }
                self.jump_if(last, cond, target)?;
                if let Some(n) = next {
                    self.bind(n);
                }
                Ok(())
            }
            ExprKind::Compare {
                left,
                ops,
                comparators,
            } if ops.len() > 1 => self.at(expr.span, |c| {
                let cleanup = c.new_label();
                c.expr(left)?;
                let n = ops.len();
                for i in 0..n - 1 {
                    c.expr(&comparators[i])?;
                    c.emit(Instr::Swap(2));
                    c.emit(Instr::Copy(2));
                    c.compare_op(ops[i]);
                    c.jump(Instr::PopJumpIfFalse, cleanup);
                }
                c.expr(&comparators[n - 1])?;
                c.compare_op(ops[n - 1]);
                c.jump(
                    if cond {
                        Instr::PopJumpIfTrue
                    } else {
                        Instr::PopJumpIfFalse
                    },
                    target,
                );
                let end = c.new_label();
                c.jump(Instr::Jump, end);
                c.bind(cleanup);
                c.emit(Instr::PopTop);
                if !cond {
                    c.jump(Instr::Jump, target);
                }
                c.bind(end);
                Ok(())
            }),
            _ => {
                self.expr(expr)?;
                self.at(expr.span, |c| {
                    c.jump(
                        if cond {
                            Instr::PopJumpIfTrue
                        } else {
                            Instr::PopJumpIfFalse
                        },
                        target,
                    )
                });
                Ok(())
            }
        }
    }

    fn compare_op(&mut self, op: CmpOp) {
        self.emit(match op {
            CmpOp::Eq => Instr::CompareOp(CompareOperator::Eq),
            CmpOp::NotEq => Instr::CompareOp(CompareOperator::Ne),
            CmpOp::Lt => Instr::CompareOp(CompareOperator::Lt),
            CmpOp::LtE => Instr::CompareOp(CompareOperator::Le),
            CmpOp::Gt => Instr::CompareOp(CompareOperator::Gt),
            CmpOp::GtE => Instr::CompareOp(CompareOperator::Ge),
            CmpOp::Is => Instr::IsOp(0),
            CmpOp::IsNot => Instr::IsOp(1),
            CmpOp::In => Instr::ContainsOp(0),
            CmpOp::NotIn => Instr::ContainsOp(1),
        });
    }

    /// `a < b < c`: each operand evaluated once; the chain stops at the first false.
    fn compare(
        &mut self,
        left: &'a Expr,
        ops: &[CmpOp],
        comparators: &'a [Expr],
    ) -> CompileResult<()> {
        self.expr(left)?;
        let n = ops.len();
        if n == 0 {
            return Ok(());
        }
        let cleanup = self.new_label();
        for i in 0..n - 1 {
            self.expr(&comparators[i])?;
            self.emit(Instr::Swap(2));
            self.emit(Instr::Copy(2));
            self.compare_op(ops[i]);
            self.emit(Instr::Copy(1));
            self.jump(Instr::PopJumpIfFalse, cleanup);
            self.emit(Instr::PopTop);
        }
        self.expr(&comparators[n - 1])?;
        self.compare_op(ops[n - 1]);
        if n > 1 {
            let end = self.new_label();
            self.jump(Instr::Jump, end);
            self.bind(cleanup);
            self.emit(Instr::Swap(2));
            self.emit(Instr::PopTop);
            self.bind(end);
        }
        Ok(())
    }

    /// `[a, *b, c]`, `(a, *b)`, `{a, *b}`; `pushed` items are already on the stack.
    fn starunpack(&mut self, elts: &'a [Expr], pushed: u32, kind: Collection) -> CompileResult<()> {
        let has_star = elts.iter().any(|e| matches!(e.kind, ExprKind::Starred(_)));
        if !has_star {
            for e in elts {
                self.expr(e)?;
            }
            let n = elts.len() as u32 + pushed;
            self.emit(match kind {
                Collection::Tuple => Instr::BuildTuple(n),
                Collection::List => Instr::BuildList(n),
                Collection::Set => Instr::BuildSet(n),
            });
            return Ok(());
        }
        let mut built = false;
        for (i, e) in elts.iter().enumerate() {
            if let ExprKind::Starred(inner) = &e.kind {
                if !built {
                    let n = i as u32 + pushed;
                    self.emit(match kind {
                        Collection::Set => Instr::BuildSet(n),
                        _ => Instr::BuildList(n),
                    });
                    built = true;
                }
                self.expr(inner)?;
                self.emit(match kind {
                    Collection::Set => Instr::SetUpdate(1),
                    _ => Instr::ListExtend(1),
                });
            } else {
                self.expr(e)?;
                if built {
                    self.emit(match kind {
                        Collection::Set => Instr::SetAdd(1),
                        _ => Instr::ListAppend(1),
                    });
                }
            }
        }
        if kind == Collection::Tuple {
            self.emit(Instr::CallIntrinsic1(Intrinsic1::ListToTuple));
        }
        Ok(())
    }

    fn dict(&mut self, keys: &'a [Option<Expr>], values: &'a [Expr]) -> CompileResult<()> {
        let mut have_dict = false;
        let mut pending = 0;
        for (key, value) in keys.iter().zip(values) {
            match key {
                Some(k) => {
                    self.expr(k)?;
                    self.expr(value)?;
                    pending += 1;
                }
                None => {
                    if pending > 0 {
                        self.emit(Instr::BuildMap(pending));
                        if have_dict {
                            self.emit(Instr::DictUpdate(1));
                        }
                        have_dict = true;
                        pending = 0;
                    }
                    if !have_dict {
                        self.emit(Instr::BuildMap(0));
                        have_dict = true;
                    }
                    self.expr(value)?;
                    self.emit(Instr::DictUpdate(1));
                }
            }
        }
        if pending > 0 || !have_dict {
            self.emit(Instr::BuildMap(pending));
            if have_dict {
                self.emit(Instr::DictUpdate(1));
            }
        }
        Ok(())
    }

    fn fstring(&mut self, parts: &'a [FStringPart]) -> CompileResult<()> {
        let mut n = 0;
        for part in parts {
            match part {
                FStringPart::Literal(s) if s.is_empty() => {}
                FStringPart::Literal(s) => {
                    self.load_const(Constant::Str(s.as_str().into()));
                    n += 1;
                }
                FStringPart::Formatted(f) => {
                    self.expr(&f.value)?;
                    if let Some(conv) = f.conversion {
                        self.emit(Instr::ConvertValue(match conv {
                            'r' => 2,
                            'a' => 3,
                            _ => 1,
                        }));
                    }
                    match &f.format_spec {
                        Some(spec) => {
                            self.fstring(spec)?;
                            self.emit(Instr::FormatWithSpec);
                        }
                        None => self.emit(Instr::FormatSimple),
                    }
                    n += 1;
                }
            }
        }
        match n {
            0 => self.load_const(Constant::Str("".into())),
            1 => {}
            _ => self.emit(Instr::BuildString(n)),
        }
        Ok(())
    }

    // ---- calls -----------------------------------------------------------------------------------------

    /// For `super()` written with no arguments in a method, the method's first parameter.
    fn zero_arg_super(&self, expr: &Expr) -> Option<String> {
        match &expr.kind {
            ExprKind::Call {
                func,
                args,
                keywords,
            } => self.zero_arg_super_call(func, args, keywords),
            _ => None,
        }
    }

    /// The same, given the parts of the call.
    fn zero_arg_super_call(
        &self,
        func: &Expr,
        args: &[Expr],
        keywords: &[Keyword],
    ) -> Option<String> {
        let ExprKind::Name(name) = &func.kind else {
            return None;
        };
        if name != "super" || !args.is_empty() || !keywords.is_empty() {
            return None;
        }
        let u = self.unit();
        if u.kind != ScopeKind::Function && u.kind != ScopeKind::Lambda {
            return None;
        }
        if !matches!(self.resolve("super"), Access::Global)
            || !matches!(self.resolve("__class__"), Access::Deref)
            || u.argcount == 0
        {
            return None;
        }
        u.varnames.first().map(|v| v.to_string())
    }

    /// `LoadGlobal super; LoadDeref __class__; load first_arg`.
    fn load_super_args(&mut self, first_arg: &str, span: Span) -> CompileResult<()> {
        self.at(span, |c| {
            c.name_op("super", Ctx::Load, span)?;
            c.name_op("__class__", Ctx::Load, span)?;
            c.name_op(first_arg, Ctx::Load, span)
        })
    }

    fn call(
        &mut self,
        func: &'a Expr,
        args: &'a [Expr],
        keywords: &'a [Keyword],
        span: Span,
    ) -> CompileResult<()> {
        let simple = !args.iter().any(|a| matches!(a.kind, ExprKind::Starred(_)))
            && !keywords.iter().any(|k| k.arg.is_none());
        if let (ExprKind::Attribute { value, attr }, true) = (&func.kind, simple) {
            self.at(func.span, |c| -> CompileResult<()> {
                // The receiver's names come first in `co_names`, as in CPython.
                if let Some(first_arg) = c.zero_arg_super(value) {
                    c.load_super_args(&first_arg, value.span)?;
                    let i = c.attr_index(&attr.name);
                    c.on_attr_line(attr);
                    c.emit(Instr::LoadSuperMethod(i));
                } else {
                    c.expr(value)?;
                    let i = c.attr_index(&attr.name);
                    c.on_attr_line(attr);
                    c.emit(Instr::LoadMethod(i));
                }
                Ok(())
            })?;
            self.on_attr_line(attr);
        } else if let Some(first_arg) = self.zero_arg_super_call(func, args, keywords) {
            // A bare `super()`: `super(__class__, first_arg)`.
            self.name_op("super", Ctx::Load, func.span)?;
            self.emit(Instr::PushNull);
            self.name_op("__class__", Ctx::Load, span)?;
            self.name_op(&first_arg, Ctx::Load, span)?;
            self.emit(Instr::Call(2));
            return Ok(());
        } else {
            self.expr(func)?;
            self.emit(Instr::PushNull);
        }
        self.call_args(0, args, keywords, span)
    }

    /// Push the arguments and emit the call; `pushed` positional arguments are already on
    /// the stack (CPython's `compiler_call_helper`).
    fn call_args(
        &mut self,
        pushed: u32,
        args: &'a [Expr],
        keywords: &'a [Keyword],
        span: Span,
    ) -> CompileResult<()> {
        check_keywords(keywords)?;
        let starred = args.iter().any(|a| matches!(a.kind, ExprKind::Starred(_)))
            || keywords.iter().any(|k| k.arg.is_none());
        if !starred {
            for a in args {
                self.expr(a)?;
            }
            let n = pushed + args.len() as u32;
            if keywords.is_empty() {
                self.emit(Instr::Call(n));
            } else {
                for k in keywords {
                    self.expr(&k.value)?;
                }
                let names: Rc<[Constant]> = keywords
                    .iter()
                    .filter_map(|k| k.arg.as_ref())
                    .map(|a| Constant::Str(a.name.as_str().into()))
                    .collect();
                self.load_const(Constant::Tuple(names));
                self.emit(Instr::CallKw(n + keywords.len() as u32));
            }
            return Ok(());
        }
        // The general form: a tuple of positional arguments and a dict of keywords.
        self.starunpack(args, pushed, Collection::Tuple)?;
        let has_kwargs = !keywords.is_empty();
        if has_kwargs {
            let mut have_dict = false;
            let mut pending = 0;
            for k in keywords {
                match &k.arg {
                    Some(name) => {
                        self.load_const(Constant::Str(name.name.as_str().into()));
                        self.expr(&k.value)?;
                        pending += 1;
                    }
                    None => {
                        if pending > 0 {
                            self.emit(Instr::BuildMap(pending));
                            if have_dict {
                                self.emit(Instr::DictMerge(1));
                            }
                            have_dict = true;
                            pending = 0;
                        }
                        if !have_dict {
                            self.emit(Instr::BuildMap(0));
                            have_dict = true;
                        }
                        self.expr(&k.value)?;
                        self.emit(Instr::DictMerge(1));
                    }
                }
            }
            if pending > 0 {
                self.emit(Instr::BuildMap(pending));
                if have_dict {
                    self.emit(Instr::DictMerge(1));
                }
            }
        }
        self.at(span, |c| c.emit(Instr::CallFunctionEx(has_kwargs as u32)));
        Ok(())
    }

    // ---- comprehensions -----------------------------------------------------------------------------

    fn comprehension(
        &mut self,
        expr: &'a Expr,
        kind: CompKind,
        generators: &'a [Comprehension],
        elt: &'a Expr,
        value: Option<&'a Expr>,
    ) -> CompileResult<()> {
        let span = expr.span;
        let scope_id = self.scope_of(expr, span)?;
        let scope = &self.table.scopes[scope_id];
        let is_async = scope.is_coroutine;
        let Some(first) = generators.first() else {
            return Err(internal("comprehension without generators", span));
        };
        {
            let u = self.unit();
            let allowed = u.is_async()
                || matches!(
                    u.kind,
                    ScopeKind::Comprehension | ScopeKind::GeneratorExpression
                )
                || (self.mode == Mode::Interactive && u.kind == ScopeKind::Module);
            if is_async && kind != CompKind::Generator && !allowed {
                return err(
                    "asynchronous comprehension outside of an asynchronous function",
                    span,
                );
            }
        }
        if scope.inlined {
            return self.inlined_comprehension(scope_id, kind, generators, elt, value);
        }
        let name = match kind {
            CompKind::List => "<listcomp>",
            CompKind::Set => "<setcomp>",
            CompKind::Dict => "<dictcomp>",
            CompKind::Generator => "<genexpr>",
        };
        self.push_unit(scope_id, name, span);
        self.u().argcount = 1;
        self.function_body(|c| {
            if kind != CompKind::Generator {
                c.emit(kind.build_empty());
            }
            c.emit(Instr::LoadFast(0));
            c.comp_generator(generators, 0, 0, kind, elt, value)?;
            if kind != CompKind::Generator {
                c.emit(Instr::ReturnValue);
            }
            Ok(())
        })?;
        let code = self.assemble()?;
        self.make_function(code, 0, span)?;
        self.expr(&first.iter)?;
        self.emit(if first.is_async {
            Instr::GetAiter
        } else {
            Instr::GetIter
        });
        self.emit(Instr::Call(0));
        if is_async && kind != CompKind::Generator {
            self.emit(Instr::GetAwaitable(0));
            self.load_none();
            self.yield_from_loop();
        }
        Ok(())
    }

    /// PEP 709: run the comprehension in the current frame, saving and restoring the outer
    /// values of its variables with `LoadFastAndClear` / `StoreFast`.
    fn inlined_comprehension(
        &mut self,
        scope_id: ScopeId,
        kind: CompKind,
        generators: &'a [Comprehension],
        elt: &'a Expr,
        value: Option<&'a Expr>,
    ) -> CompileResult<()> {
        let first = &generators[0];
        self.expr(&first.iter)?;
        self.emit(if first.is_async {
            Instr::GetAiter
        } else {
            Instr::GetIter
        });
        let saved = super::scope::comp_bound_names(self.table, scope_id);
        let slots: Vec<u32> = saved.iter().map(|n| self.varname_index(n)).collect();
        for &slot in &slots {
            self.emit(Instr::LoadFastAndClear(slot));
        }
        let n = slots.len() as u32;
        let cleanup = self.new_label();
        let end = self.new_label();
        if n > 0 {
            self.emit(Instr::Swap(n + 1));
            self.push_handler(cleanup, false, 0);
        }
        self.emit(kind.build_empty());
        self.emit(Instr::Swap(2));
        self.u().comp_chain.push(scope_id);
        let result = self.comp_generator(generators, 0, 0, kind, elt, value);
        self.u().comp_chain.pop();
        result?;
        if n > 0 {
            self.pop_handler();
            let restore = |c: &mut Self| {
                c.emit(Instr::Swap(n + 1));
                for &slot in slots.iter().rev() {
                    c.emit(Instr::StoreFast(slot));
                }
            };
            restore(self);
            self.jump(Instr::Jump, end);
            self.bind(cleanup);
            self.u().cold += 1;
            self.emit(Instr::Swap(2));
            self.emit(Instr::PopTop);
            restore(self);
            self.emit(Instr::Reraise(0));
            self.u().cold -= 1;
            self.bind(end);
        }
        Ok(())
    }

    /// One `for` clause and everything inside it. The iterator of clause 0 is already on
    /// the stack; `depth` counts the iterators between the collection and the top.
    fn comp_generator(
        &mut self,
        generators: &'a [Comprehension],
        index: usize,
        depth: u32,
        kind: CompKind,
        elt: &'a Expr,
        value: Option<&'a Expr>,
    ) -> CompileResult<()> {
        let generator = &generators[index];
        if index > 0 {
            self.expr(&generator.iter)?;
            self.emit(if generator.is_async {
                Instr::GetAiter
            } else {
                Instr::GetIter
            });
        }
        let start = self.new_label();
        let if_cleanup = self.new_label();
        let anchor = self.new_label();
        self.bind(start);
        if generator.is_async {
            self.push_handler(anchor, false, 0);
            self.at(generator.iter.span, |c| {
                c.emit(Instr::GetAnext);
                c.load_none();
                c.yield_from_loop();
            });
            self.pop_handler();
        } else {
            self.at(generator.iter.span, |c| c.jump(Instr::ForIter, anchor));
        }
        self.store(&generator.target)?;
        for cond in &generator.ifs {
            self.jump_if(cond, false, if_cleanup)?;
        }
        let depth = depth + 1;
        if index + 1 < generators.len() {
            self.comp_generator(generators, index + 1, depth, kind, elt, value)?;
        } else {
            self.at(elt.span, |c| -> CompileResult<()> {
                match kind {
                    CompKind::Generator => {
                        c.expr(elt)?;
                        if c.unit().flags.async_generator {
                            c.emit(Instr::CallIntrinsic1(Intrinsic1::AsyncGenWrap));
                        }
                        c.emit(Instr::YieldValue(0));
                        c.emit(Instr::PopTop);
                    }
                    CompKind::List => {
                        c.expr(elt)?;
                        c.emit(Instr::ListAppend(depth + 1));
                    }
                    CompKind::Set => {
                        c.expr(elt)?;
                        c.emit(Instr::SetAdd(depth + 1));
                    }
                    CompKind::Dict => {
                        c.expr(elt)?;
                        if let Some(v) = value {
                            c.expr(v)?;
                        }
                        c.emit(Instr::MapAdd(depth + 1));
                    }
                }
                Ok(())
            })?;
        }
        self.bind(if_cleanup);
        self.jump(Instr::Jump, start);
        self.bind(anchor);
        if generator.is_async {
            self.at(generator.iter.span, |c| c.emit(Instr::EndAsyncFor));
        }
        Ok(())
    }

    // ---- assembly ---------------------------------------------------------------------------------------

    /// Resolve labels, compute the stack depth and the exception table, and finish the
    /// current unit as a [`Code`].
    fn assemble(&mut self) -> CompileResult<Rc<Code>> {
        let mut u = self
            .units
            .pop()
            .ok_or_else(|| internal("no unit", Span::default()))?;
        // Exception-handling code goes last, as CPython's `push_cold_blocks_to_end` does:
        // the normal path then falls through where it jumped over the handlers.
        let moved = move_cold_code_to_end(&mut u);
        // Labels that nothing jumps to may stay unbound.
        let labels: Vec<u32> = u
            .labels
            .iter()
            .map(|l| l.map_or(u32::MAX, |p| moved[p as usize]))
            .collect();
        let unbound = || internal("jump to an unbound label", u.loc.span);
        for instr in &mut u.instrs {
            if let Some(t) = instr.jump_target() {
                let target = labels[t as usize];
                if target == u32::MAX {
                    return Err(unbound());
                }
                *instr = instr.with_jump_target(target);
            }
        }
        if u.handlers
            .iter()
            .any(|h| labels[h.target.0 as usize] == u32::MAX)
        {
            return Err(unbound());
        }
        let (stack_size, reachable) = stack_depth(&mut u, &labels)
            .ok_or_else(|| internal("inconsistent stack depth", u.loc.span))?;
        let handler_entries: Vec<usize> = u
            .handlers
            .iter()
            .map(|h| labels[h.target.0 as usize] as usize)
            .collect();
        let listing = Listing {
            instrs: &mut u.instrs,
            locs: &mut u.locs,
            handler_at: &mut u.handler_at,
        };
        let new_index = peephole::optimize(listing, reachable, &handler_entries);
        let n = u.instrs.len();
        let mut exception_table: Vec<ExceptionTableEntry> = Vec::new();
        let mut i = 0;
        while i < n {
            let Some(h) = u.handler_at[i] else {
                i += 1;
                continue;
            };
            let start = i;
            while i < n && u.handler_at[i] == Some(h) {
                i += 1;
            }
            let handler = &u.handlers[h];
            let depth = handler
                .depth
                .ok_or_else(|| internal("handler set up on no path", u.loc.span))?;
            exception_table.push(ExceptionTableEntry {
                start: start as u32,
                end: i as u32,
                target: new_index[labels[handler.target.0 as usize] as usize],
                depth,
                push_lasti: handler.lasti,
            });
        }
        let cell2arg = u
            .cellvars
            .iter()
            .map(|c| {
                let sc = &self.table.scopes[u.scope];
                sc.params.iter().position(|p| **p == **c).map(|i| i as u32)
            })
            .collect();
        Ok(Rc::new(Code {
            name: u.name,
            qualname: u.qualname,
            filename: self.filename.clone(),
            first_line: u.first_line,
            flags: u.flags,
            argcount: u.argcount,
            posonlyargcount: u.posonlyargcount,
            kwonlyargcount: u.kwonlyargcount,
            instructions: u.instrs,
            locations: u.locs,
            constants: u.consts,
            names: u.names,
            varnames: u.varnames,
            cellvars: u.cellvars,
            cell2arg,
            freevars: u.freevars,
            exception_table,
            stack_size,
        }))
    }
}

/// Reorder the instructions of `u`: those emitted outside exception handlers first, then the
/// handlers, each group in emission order. Every cold range starts after and ends with an
/// unconditional jump, raise or return, so no fall-through crosses the move. Returns, for
/// each old position (and the end), its new one; setups are moved with their instruction.
fn move_cold_code_to_end(u: &mut Unit<'_>) -> Vec<u32> {
    let n = u.instrs.len();
    let order: Vec<usize> = (0..n)
        .filter(|&i| !u.is_cold[i])
        .chain((0..n).filter(|&i| u.is_cold[i]))
        .collect();
    let mut moved = vec![0u32; n + 1];
    for (new, &old) in order.iter().enumerate() {
        moved[old] = new as u32;
    }
    moved[n] = n as u32;
    u.instrs = order.iter().map(|&i| u.instrs[i]).collect();
    u.locs = order.iter().map(|&i| u.locs[i]).collect();
    u.handler_at = order.iter().map(|&i| u.handler_at[i]).collect();
    for setup in &mut u.setups {
        setup.at = moved[setup.at as usize];
    }
    moved
}

/// Walk every path through the code (CPython's `calculate_stackdepth`), giving each handler
/// its depth. Returns the maximum depth and which instructions some path reaches, or None if
/// two paths disagree (a compiler bug).
fn stack_depth(u: &mut Unit<'_>, labels: &[u32]) -> Option<(u32, Vec<bool>)> {
    let n = u.instrs.len();
    let mut depth_at: Vec<Option<i32>> = vec![None; n + 1];
    let mut setups_at: HashMap<u32, Vec<usize>> = HashMap::new();
    for (k, s) in u.setups.iter().enumerate() {
        setups_at.entry(s.at).or_default().push(k);
    }
    let mut max = 0i32;
    let mut work: Vec<(usize, i32)> = vec![(0, 0)];
    while let Some((start, depth)) = work.pop() {
        let mut i = start;
        let mut d = depth;
        loop {
            match depth_at.get(i).copied().flatten() {
                Some(seen) => {
                    if seen != d {
                        return None;
                    }
                    break;
                }
                None if i <= n => depth_at[i] = Some(d),
                None => break,
            }
            if i == n {
                break;
            }
            if let Some(ks) = setups_at.get(&(i as u32)) {
                for &k in ks {
                    let s = &u.setups[k];
                    let hd = d + s.adjust;
                    let handler = &mut u.handlers[s.handler];
                    handler.depth = Some(hd.max(0) as u32);
                    let target = labels[handler.target.0 as usize] as usize;
                    let entry = hd + handler.lasti as i32 + 1;
                    max = max.max(entry);
                    work.push((target, entry));
                }
            }
            let instr = u.instrs[i];
            if let Some(t) = instr.jump_target() {
                let jd = d + instr.stack_effect(true);
                if jd < 0 {
                    return None;
                }
                max = max.max(jd);
                work.push((t as usize, jd));
            }
            if instr.is_terminator() {
                break;
            }
            d += instr.stack_effect(false);
            if d < 0 {
                return None;
            }
            max = max.max(d);
            i += 1;
        }
    }
    depth_at.truncate(n);
    Some((max as u32, depth_at.iter().map(Option::is_some).collect()))
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Collection {
    Tuple,
    List,
    Set,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum CompKind {
    List,
    Set,
    Dict,
    Generator,
}

impl CompKind {
    fn build_empty(self) -> Instr {
        match self {
            CompKind::List => Instr::BuildList(0),
            CompKind::Set => Instr::BuildSet(0),
            CompKind::Dict => Instr::BuildMap(0),
            CompKind::Generator => Instr::Nop,
        }
    }
}

/// The `BinaryOp` operator of `a op b`.
fn binary_operator(op: ast::BinOp) -> BinaryOperator {
    use BinaryOperator as B;
    match op {
        ast::BinOp::Add => B::Add,
        ast::BinOp::Sub => B::Subtract,
        ast::BinOp::Mult => B::Multiply,
        ast::BinOp::MatMult => B::MatrixMultiply,
        ast::BinOp::Div => B::TrueDivide,
        ast::BinOp::Mod => B::Remainder,
        ast::BinOp::Pow => B::Power,
        ast::BinOp::LShift => B::Lshift,
        ast::BinOp::RShift => B::Rshift,
        ast::BinOp::BitOr => B::Or,
        ast::BinOp::BitXor => B::Xor,
        ast::BinOp::BitAnd => B::And,
        ast::BinOp::FloorDiv => B::FloorDivide,
    }
}

/// The `BinaryOp` operator of `a op= b`.
fn inplace_operator(op: ast::BinOp) -> BinaryOperator {
    use BinaryOperator as B;
    match op {
        ast::BinOp::Add => B::InplaceAdd,
        ast::BinOp::Sub => B::InplaceSubtract,
        ast::BinOp::Mult => B::InplaceMultiply,
        ast::BinOp::MatMult => B::InplaceMatrixMultiply,
        ast::BinOp::Div => B::InplaceTrueDivide,
        ast::BinOp::Mod => B::InplaceRemainder,
        ast::BinOp::Pow => B::InplacePower,
        ast::BinOp::LShift => B::InplaceLshift,
        ast::BinOp::RShift => B::InplaceRshift,
        ast::BinOp::BitOr => B::InplaceOr,
        ast::BinOp::BitXor => B::InplaceXor,
        ast::BinOp::BitAnd => B::InplaceAnd,
        ast::BinOp::FloorDiv => B::InplaceFloorDivide,
    }
}

/// `a[lo:hi]` without a step compiles to `BinarySlice`/`StoreSlice`.
fn two_part_slice(slice: &Expr) -> Option<(Option<&Expr>, Option<&Expr>)> {
    match &slice.kind {
        ExprKind::Slice {
            lower,
            upper,
            step: None,
        } => Some((lower.as_deref(), upper.as_deref())),
        _ => None,
    }
}

/// Does a module or class body annotate anything (outside nested defs and classes)?
/// CPython's `find_ann`.
fn has_annotations(body: &[Stmt]) -> bool {
    body.iter().any(|s| match &s.kind {
        StmtKind::AnnAssign { .. } => true,
        StmtKind::If { body, orelse, .. }
        | StmtKind::While { body, orelse, .. }
        | StmtKind::For { body, orelse, .. } => has_annotations(body) || has_annotations(orelse),
        StmtKind::With { body, .. } => has_annotations(body),
        StmtKind::Try {
            body,
            handlers,
            orelse,
            finalbody,
            ..
        } => {
            has_annotations(body)
                || handlers.iter().any(|h| has_annotations(&h.body))
                || has_annotations(orelse)
                || has_annotations(finalbody)
        }
        _ => false,
    })
}

fn docstring(body: &[Stmt]) -> Option<&str> {
    match body.first().map(|s| &s.kind) {
        Some(StmtKind::Expr(Expr {
            kind: ExprKind::Constant(ast::Constant::Str(s)),
            ..
        })) => Some(s),
        _ => None,
    }
}

fn is_true_constant(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Constant(ast::Constant::Bool(b)) => *b,
        ExprKind::Constant(ast::Constant::Int(i)) => i.sign() != num_bigint::Sign::NoSign,
        _ => false,
    }
}

fn constant(c: &ast::Constant) -> Constant {
    match c {
        ast::Constant::None => Constant::None,
        ast::Constant::Bool(b) => Constant::Bool(*b),
        ast::Constant::Ellipsis => Constant::Ellipsis,
        ast::Constant::Int(i) => match i.to_i64() {
            Some(v) => Constant::Int(v),
            None => Constant::BigInt(Rc::new(i.clone())),
        },
        ast::Constant::Float(f) => Constant::Float(*f),
        ast::Constant::Str(s) => Constant::Str(s.as_str().into()),
    }
}

/// A literal, or a negated number literal, as one constant.
fn folded_constant(e: &Expr) -> Option<Constant> {
    match &e.kind {
        ExprKind::Constant(c) => Some(constant(c)),
        ExprKind::UnaryOp {
            op: UnaryOp::USub,
            operand,
        } => match &operand.kind {
            ExprKind::Constant(c) => negate_constant(c),
            _ => None,
        },
        _ => None,
    }
}

/// `-1`, `-2.5`: CPython folds the sign into the constant.
fn negate_constant(c: &ast::Constant) -> Option<Constant> {
    match c {
        ast::Constant::Int(i) => Some(constant(&ast::Constant::Int(-i))),
        ast::Constant::Float(f) => Some(Constant::Float(-f)),
        _ => None,
    }
}

/// `(1, 'a', None)` is one constant, as in CPython.
fn constant_tuple(elts: &[Expr]) -> Option<Constant> {
    let items: Option<Vec<Constant>> = elts.iter().map(folded_constant).collect();
    items.map(|v| Constant::Tuple(v.into()))
}

/// Constants are shared when they are the same value of the same type (`1`, `1.0` and
/// `True` stay apart; `0.0` and `-0.0` too).
fn same_constant(a: &Constant, b: &Constant) -> bool {
    match (a, b) {
        (Constant::Float(x), Constant::Float(y)) => x.to_bits() == y.to_bits(),
        (Constant::Tuple(x), Constant::Tuple(y)) => {
            x.len() == y.len() && x.iter().zip(y.iter()).all(|(p, q)| same_constant(p, q))
        }
        (Constant::Code(x), Constant::Code(y)) => Rc::ptr_eq(x, y),
        _ => std::mem::discriminant(a) == std::mem::discriminant(b) && a == b,
    }
}

/// "keyword argument repeated: x".
fn check_keywords(keywords: &[Keyword]) -> CompileResult<()> {
    for (i, k) in keywords.iter().enumerate() {
        if let Some(name) = &k.arg
            && keywords[..i]
                .iter()
                .any(|o| o.arg.as_ref().is_some_and(|a| a.name == name.name))
        {
            return err(format!("keyword argument repeated: {}", name.name), k.span);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compile::compile_module;
    use crate::compile::first_function as function;
    use crate::syntax::parse_module;

    /// The handler row covering instruction `i`, if any.
    fn handler_of(code: &Code, i: usize) -> Option<ExceptionTableEntry> {
        let i = i as u32;
        code.exception_table
            .iter()
            .find(|e| e.start <= i && i < e.end)
            .copied()
    }

    fn positions(code: &Code, pred: impl Fn(&Instr) -> bool) -> Vec<usize> {
        (0..code.instructions.len())
            .filter(|&i| pred(&code.instructions[i]))
            .collect()
    }

    fn global_loads(code: &Code, name: &str) -> Vec<usize> {
        positions(
            code,
            |i| matches!(i, Instr::LoadGlobal(n) | Instr::LoadGlobalNull(n) if &*code.names[*n as usize] == name),
        )
    }

    #[test]
    fn try_body_is_covered_by_its_handler_and_handlers_by_cleanup() {
        let f = function("def f():\n    try:\n        g()\n    except E as e:\n        h()\n");
        let g = global_loads(&f, "g")[0];
        let row = handler_of(&f, g).expect("g() is covered");
        assert_eq!(f.instructions[row.target as usize], Instr::PushExcInfo);
        assert_eq!((row.depth, row.push_lasti), (0, false));
        // Inside the handler body: a cleanup that clears `e`, keeping prev_exc (depth 1).
        let h = global_loads(&f, "h")[0];
        let row = handler_of(&f, h).expect("h() is covered");
        assert_eq!((row.depth, row.push_lasti), (1, true));
        assert!(matches!(
            f.instructions[row.target as usize],
            Instr::LoadConst(_)
        ));
        // No rows overlap.
        for pair in f.exception_table.windows(2) {
            assert!(pair[0].end <= pair[1].start);
        }
    }

    #[test]
    fn return_through_finally_runs_the_finally_body_outside_its_handler() {
        let f = function("def f():\n    try:\n        return g()\n    finally:\n        h()\n");
        let hs = global_loads(&f, "h");
        // The return path's copy, then the exceptional path's copy (plus the normal path's).
        assert!(hs.len() >= 2);
        let return_copy = hs[0];
        assert!(handler_of(&f, return_copy).is_none());
        let ret = positions(&f, |i| *i == Instr::ReturnValue)[0];
        assert!(ret > return_copy);
        // The returned value waits under the finally body: g, NULL... then h, NULL.
        assert!(f.stack_size >= 3);
        let g = global_loads(&f, "g")[0];
        let row = handler_of(&f, g).expect("the try body is covered");
        assert_eq!(f.instructions[row.target as usize], Instr::PushExcInfo);
    }

    #[test]
    fn break_and_continue_through_finally() {
        let f = function(
            "def f():\n    for x in y:\n        try:\n            break\n        finally:\n            h()\n    for x in y:\n        try:\n            continue\n        finally:\n            k()\n",
        );
        // break: the finally body (h+NULL, CALL, POP_TOP), pop the iterator, go past the
        // loop (here the next loop).
        let h = global_loads(&f, "h")[0];
        assert_eq!(f.instructions[h + 3], Instr::PopTop);
        assert_eq!(global_loads(&f, "y")[1], h + 4);
        // continue: the finally body, then jump back to FOR_ITER (the iterator stays).
        let k = global_loads(&f, "k")[0];
        let Instr::Jump(t) = f.instructions[k + 3] else {
            panic!("expected a jump after the finally body");
        };
        assert!(matches!(f.instructions[t as usize], Instr::ForIter(_)));
    }

    #[test]
    fn handler_depth_counts_the_loop_iterator_and_with_exit() {
        let f = function(
            "def f():\n    for x in y:\n        try:\n            g()\n        except:\n            pass\n",
        );
        let g = global_loads(&f, "g")[0];
        assert_eq!(handler_of(&f, g).expect("covered").depth, 1);
        let f = function("def f():\n    with m() as v:\n        g()\n");
        let g = global_loads(&f, "g")[0];
        let row = handler_of(&f, g).expect("covered");
        assert_eq!((row.depth, row.push_lasti), (1, true));
        assert_eq!(f.instructions[row.target as usize], Instr::PushExcInfo);
        assert_eq!(
            f.instructions[row.target as usize + 1],
            Instr::WithExceptStart
        );
    }

    #[test]
    fn stack_size_is_the_deepest_point() {
        assert_eq!(function("def f():\n    return a + b * c\n").stack_size, 3);
        // f, NULL, a, b
        assert_eq!(function("def f():\n    return g(a, b)\n").stack_size, 4);
        // An exception handler entry: prev_exc + lasti + exc under a call inside it.
        let f = function("def f():\n    try:\n        pass\n    finally:\n        g(1)\n");
        assert!(f.stack_size >= 5);
    }

    #[test]
    fn generators_get_the_stop_iteration_handler_around_the_body() {
        let f = function("def f():\n    yield 1\n");
        assert!(f.flags.generator);
        let row = handler_of(&f, 0).expect("covered from the start");
        assert!(row.push_lasti);
        assert_eq!(
            f.instructions[row.target as usize],
            Instr::CallIntrinsic1(Intrinsic1::StopIterationError)
        );
        let plain = function("def f():\n    return 1\n");
        assert!(plain.exception_table.is_empty());
    }

    #[test]
    fn await_is_a_send_loop_whose_yield_is_covered_by_cleanup_throw() {
        let f = function("async def f():\n    await x\n");
        assert!(f.flags.coroutine);
        let y = positions(&f, |i| matches!(i, Instr::YieldValue(1)))[0];
        assert!(matches!(f.instructions[y - 1], Instr::Send(_)));
        let row = handler_of(&f, y).expect("covered");
        assert_eq!(f.instructions[row.target as usize], Instr::CleanupThrow);
        assert_eq!((row.depth, row.push_lasti), (2, false));
    }

    #[test]
    fn chained_comparison_evaluates_each_operand_once() {
        let f = function("def f():\n    return a < b() < c\n");
        assert_eq!(global_loads(&f, "b").len(), 1);
        assert_eq!(
            positions(&f, |i| matches!(i, Instr::CompareOp(CompareOperator::Lt))).len(),
            2
        );
    }

    #[test]
    fn annotations_are_evaluated_at_def_time_and_in_module_bodies() {
        let source = "def f(x: int, *, y: str = 'a') -> list:\n    z: int = 1\nv: int = 5\n";
        let module = parse_module(source).expect("parses");
        let code = compile_module(&module, source, "t.py", Mode::Exec).expect("compiles");
        let ins = &code.instructions;
        assert_eq!(ins[0], Instr::SetupAnnotations);
        assert!(ins.contains(&Instr::BuildTuple(6)));
        let make = ins
            .iter()
            .position(|i| *i == Instr::MakeFunction)
            .expect("def");
        assert_eq!(ins[make + 1], Instr::SetFunctionAttribute(0x04));
        assert_eq!(ins[make + 2], Instr::SetFunctionAttribute(0x02));
        assert!(ins.ends_with(&[
            Instr::StoreSubscr,
            Instr::ReturnConst(code.constants.len() as u32 - 1)
        ]));
        // Inside the function the annotation of `z` is not evaluated.
        let f = function(source);
        assert!(global_loads(&f, "int").is_empty());
    }

    #[test]
    fn the_repl_prints_expression_statements_at_top_level_only() {
        let source = "x\nif x:\n    x\ndef f():\n    x\n";
        let module = parse_module(source).expect("parses");
        let repl = compile_module(&module, source, "t.py", Mode::Interactive).expect("compiles");
        let prints = |code: &Code| {
            code.instructions
                .iter()
                .filter(|i| **i == Instr::CallIntrinsic1(Intrinsic1::Print))
                .count()
        };
        assert_eq!(prints(&repl), 2);
        assert_eq!(prints(&function(source)), 0);
        let file = compile_module(&module, source, "t.py", Mode::Exec).expect("compiles");
        assert_eq!(prints(&file), 0);
    }

    #[test]
    fn is_none_tests_jump_on_none_directly() {
        let f = function(
            "def f(x):\n    if x is None:\n        return 1\n    while x is not None:\n        x = g()\n",
        );
        let has = |want: fn(&Instr) -> bool| f.instructions.iter().any(want);
        assert!(has(|i| matches!(i, Instr::PopJumpIfNotNone(_))));
        assert!(has(|i| matches!(i, Instr::PopJumpIfNone(_))));
        assert!(!has(|i| matches!(i, Instr::IsOp(_))));
    }

    /// Lines as python3.13 -m dis shows them for a call chain split over lines.
    #[test]
    fn multi_line_attribute_chains_report_the_attribute_line() {
        let source = "x = (obj\n     .attr\n     .meth(1,\n           2))\n";
        let module = parse_module(source).expect("parses");
        let code = compile_module(&module, source, "t.py", Mode::Exec).expect("compiles");
        let lines: Vec<u32> = code.locations.iter().map(|l| l.line).collect();
        assert_eq!(lines, [1, 2, 3, 3, 4, 3, 1, 1]);
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
