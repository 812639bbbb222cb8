//! Statements and imports: a [`Stmt`] in, its bytecode appended to the current unit out.
//!
//! How `if`, `while`, `for`, `async for`, `try`/`except`/`except*`/`finally`, `with`,
//! `return` and `import` lay out their jumps and handlers. Mirrors CPython 3.13's
//! `compiler_visit_stmt` and the `compiler_for`, `compiler_try_except`, … it calls (`compile.c`).

use std::rc::Rc;

use super::expr::folded_constant;
use super::{Codegen, Ctx, FBlockKind, err, internal};
use crate::compile::bytecode::{AwaitSite, Constant, Instr, Intrinsic1};
use crate::compile::error::CompileResult;
use crate::compile::scope::{ScopeKind, mangle};
use crate::syntax::ast::{
    self, Alias, ExceptHandler, Expr, ExprKind, Ident, Span, Stmt, StmtKind, WithItem,
};

impl<'a> Codegen<'a> {
    pub(super) fn body(&mut self, stmts: &'a [Stmt]) -> CompileResult<()> {
        stmts.iter().try_for_each(|s| self.stmt(s))
    }

    fn stmt(&mut self, stmt: &'a Stmt) -> CompileResult<()> {
        let loc = self.location(stmt.span);
        self.u().loc = loc;
        let span = stmt.span;
        match &stmt.kind {
            StmtKind::Expr(e) => {
                let interactive = self.mode.prints_expressions()
                    && self.unit().kind == ScopeKind::Module
                    && self.units.len() == 1;
                if interactive {
                    self.expr(e)?;
                    self.emit(Instr::CallIntrinsic1(Intrinsic1::Print));
                    self.emit(Instr::PopTop);
                } else if let ExprKind::Constant(_) = e.kind {
                    // A constant statement does nothing but mark its line (for tracing).
                    self.emit(Instr::Nop);
                } else {
                    self.expr(e)?;
                    self.emit(Instr::PopTop);
                }
                Ok(())
            }
            StmtKind::Assign { targets, value } => {
                self.expr(value)?;
                if let ([target], ExprKind::Call { .. }) = (targets.as_slice(), &value.kind)
                    && matches!(target.kind, ExprKind::Name(_))
                {
                    self.quiet_carets(span.start, value);
                }
                for (i, t) in targets.iter().enumerate() {
                    if i + 1 < targets.len() {
                        self.emit(Instr::Copy(1));
                    }
                    self.store(t)?;
                }
                Ok(())
            }
            StmtKind::AugAssign { target, op, value } => self.aug_assign(span, target, *op, value),
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
                        self.annotation(annotation)?;
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
                if annotate && !self.features.annotations {
                    self.expr(annotation)?;
                    self.emit(Instr::PopTop);
                }
                Ok(())
            }
            // `pass` marks its line (for tracing), as in CPython; the peephole drops the
            // mark where another instruction of the line does.
            StmtKind::Pass => {
                self.emit(Instr::Nop);
                Ok(())
            }
            StmtKind::Global(_) | StmtKind::Nonlocal(_) => Ok(()),
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
                self.check_assert(stmt.span, test);
                let end = self.new_label();
                self.jump_if(test, true, end)?;
                self.emit(Instr::LoadAssertionError);
                if let Some(m) = msg {
                    self.expr(m)?;
                    self.emit(Instr::Call(0));
                }
                // Raised at the test, which the traceback underlines (as CPython's).
                self.at(test.span, |s| s.emit(Instr::RaiseVarargs(1)));
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
                    self.jump_without_line(Instr::Jump, end);
                    self.bind(next);
                    self.body(orelse)?;
                    self.bind(end);
                }
                Ok(())
            }
            StmtKind::While { test, body, orelse } => self.while_stmt(test, body, orelse),
            StmtKind::Match { subject, cases } => self.match_stmt(subject, cases),
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
                // The `try:` line (for tracing), outside every handler: CPython's
                // SETUP_FINALLY, which becomes a NOP.
                self.emit(Instr::Nop);
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
            StmtKind::TypeAlias {
                name,
                type_params,
                value,
            } => self.type_alias(name, type_params, value, span),
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
            if let ExprKind::Call { func, .. } = &v.kind
                && matches!(func.kind, ExprKind::Name(_))
            {
                self.quiet_carets(span.start, v);
            }
        } else if let Some(v) = value {
            // The line of a constant's return (for tracing), as CPython's `compiler_return`
            // marks it before any `finally` runs.
            self.at(v.span, |c| c.emit(Instr::Nop));
        }
        if value.is_none_or(|v| self.location(v.span).line != self.location(span).line) {
            self.emit(Instr::Nop);
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
        let while_line = self.u().loc;
        self.bind(start);
        if forever {
            // The line of `while True:` (for tracing), as CPython's folded test leaves it.
            self.emit(Instr::Nop);
        }
        self.push_fblock(FBlockKind::WhileLoop { start, exit });
        if !forever {
            self.jump_if(test, false, anchor)?;
        }
        self.bind(body_start);
        self.body(body)?;
        if forever {
            // On the `while` line, as CPython has it.
            self.u().loc = while_line;
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
        self.folded_iterable(iter)?;
        self.at(iter.span, |c| c.emit(Instr::GetIter));
        self.bind(start);
        self.at(iter.span, |c| c.jump(Instr::ForIter, cleanup));
        self.push_fblock(FBlockKind::ForLoop { start, exit });
        self.store(target)?;
        self.body(body)?;
        self.jump_without_line(Instr::Jump, start);
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
        self.jump_without_line(Instr::Jump, start);
        self.u().fblocks.pop();
        self.bind(except);
        self.at(iter.span, |c| c.emit(Instr::EndAsyncFor));
        self.body(orelse)?;
        self.bind(exit);
        Ok(())
    }

    fn check_async_allowed(&self, message: &str, span: Span) -> CompileResult<()> {
        let u = self.unit();
        let top_level = self.mode.allows_top_level_await() && u.kind == ScopeKind::Module;
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
        self.jump_without_line(Instr::Jump, end);

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
                    self.jump_without_line(Instr::JumpNoInterrupt, end);
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
                    self.jump_without_line(Instr::JumpNoInterrupt, end);
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
        self.jump_without_line(Instr::Jump, end);

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
        self.jump_without_line(Instr::JumpNoInterrupt, end);
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
    pub(super) fn clear_name(&mut self, name: &str, span: Span) -> CompileResult<()> {
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
        self.jump_without_line(Instr::Jump, exit);

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
                c.emit(Instr::GetAwaitable(AwaitSite::AsyncWithEnter));
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
                c.emit(Instr::GetAwaitable(AwaitSite::AsyncWithExit));
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
            self.emit(Instr::GetAwaitable(AwaitSite::AsyncWithExit));
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
        self.jump(Instr::JumpNoInterrupt, exit);
        self.bind(cleanup);
        self.pop_except_and_reraise();
        self.u().cold -= 1;
        self.bind(exit);
        Ok(())
    }

    /// `exit(None, None, None)`: the first None takes the `self_or_null` slot of `Call`.
    pub(super) fn call_exit_with_nones(&mut self) {
        self.load_none();
        self.load_none();
        self.load_none();
        self.emit(Instr::Call(2));
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
        if level == 0 && module.is_some_and(|m| m.name == "__future__") {
            self.features.check_placement(span)?;
        }
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
}

fn is_true_constant(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Constant(ast::Constant::Bool(b)) => *b,
        ExprKind::Constant(ast::Constant::Int(i)) => i.sign() != num_bigint::Sign::NoSign,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use crate::compile::Mode;
    use crate::compile::bytecode::{Code, Instr, Intrinsic1};
    use crate::compile::codegen::tests::{global_loads, handler_of};
    use crate::compile::compile_module;
    use crate::compile::first_function as function;
    use crate::syntax::parse_module;

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
}
