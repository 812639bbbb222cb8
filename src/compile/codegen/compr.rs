//! Comprehensions and generator expressions: `[x for x in xs if p]` and its kin in; out, a
//! nested function called on the first iterator or, for list/set/dict comprehensions
//! (PEP 709), the loops inlined into the current frame. Mirrors CPython 3.13's
//! `compiler_comprehension`, `compiler_{sync,async}_comprehension_generator` and
//! `push_inlined_comprehension_state` (`Python/compile.c`).

use super::{Codegen, err, internal};
use crate::compile::bytecode::{AwaitSite, Instr, Intrinsic1};
use crate::compile::error::CompileResult;
use crate::compile::scope::{ScopeId, ScopeKind};
use crate::syntax::ast::{Comprehension, Expr};

impl<'a> Codegen<'a> {
    pub(super) fn comprehension(
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
                || (self.mode.allows_top_level_await() && u.kind == ScopeKind::Module);
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
        self.folded_iterable(&first.iter)?;
        self.emit(if first.is_async {
            Instr::GetAiter
        } else {
            Instr::GetIter
        });
        self.emit(Instr::Call(0));
        if is_async && kind != CompKind::Generator {
            self.emit(Instr::GetAwaitable(AwaitSite::Await));
            self.load_none();
            self.yield_from_loop();
        }
        Ok(())
    }

    /// PEP 709: run the comprehension in the current frame, saving and restoring the outer
    /// values of its variables with `LoadFastAndClear` / `StoreFastMaybeNull`.
    fn inlined_comprehension(
        &mut self,
        scope_id: ScopeId,
        kind: CompKind,
        generators: &'a [Comprehension],
        elt: &'a Expr,
        value: Option<&'a Expr>,
    ) -> CompileResult<()> {
        let first = &generators[0];
        self.folded_iterable(&first.iter)?;
        self.emit(if first.is_async {
            Instr::GetAiter
        } else {
            Instr::GetIter
        });
        let saved = crate::compile::scope::comp_bound_names(self.table, scope_id);
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
                    c.emit(Instr::StoreFastMaybeNull(slot));
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
            self.folded_iterable(&generator.iter)?;
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
        self.jump_without_line(Instr::Jump, start);
        self.bind(anchor);
        if generator.is_async {
            self.at(generator.iter.span, |c| c.emit(Instr::EndAsyncFor));
        }
        Ok(())
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum CompKind {
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
