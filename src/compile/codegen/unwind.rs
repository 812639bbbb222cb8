//! Frame blocks: what `break`, `continue` and `return` must clean up on their way out of
//! loops, `try`, `except` and `with` (pop the iterator, run the `finally` body, call
//! `__exit__`, clear the `except` name). The block stack in, the cleanup bytecode out.
//! Mirrors CPython 3.13's `compiler_push_fblock`, `compiler_unwind_fblock` and
//! `compiler_unwind_fblock_stack` (`Python/compile.c`).

use super::{Codegen, FBlock, FBlockKind, Unwound, err};
use crate::compile::bytecode::{AwaitSite, Instr};
use crate::compile::error::CompileResult;
use crate::syntax::ast::Span;

impl<'a> Codegen<'a> {
    pub(super) fn push_fblock(&mut self, kind: FBlockKind<'a>) {
        let handlers = self.unit().handler_stack.len();
        self.push_fblock_at(kind, handlers);
    }

    pub(super) fn push_fblock_at(&mut self, kind: FBlockKind<'a>, handlers: usize) {
        self.u().fblocks.push(FBlock { kind, handlers });
    }

    /// Emit the cleanup of every block up to the innermost loop (`to_loop`) or all of them
    /// (for `return`). Returns the loop block. `preserve_tos` keeps a return value on top.
    /// The caller emits its jump or return, then calls [`Self::end_unwind`] with `saved`.
    pub(super) fn unwind_fblock_stack(
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
        let mut through_finally = false;
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
            through_finally |= matches!(block.kind, FBlockKind::FinallyTry { .. });
        }
        // After a `finally` body, CPython's jump or return has no line of its own: it is
        // on the last line run (`propagate_line_numbers`).
        self.u().loc = match self.unit().locs.last() {
            Some(&last) if through_finally => last,
            _ => self.location(span),
        };
        Ok((found, saved))
    }

    pub(super) fn end_unwind(&mut self, saved: Unwound<'a>) {
        let u = self.u();
        u.fblocks = saved.fblocks;
        u.handler_stack = saved.handlers;
    }

    /// CPython's `compiler_unwind_fblock`: the cleanup one block needs when a jump leaves it.
    pub(super) fn unwind_fblock(
        &mut self,
        block: &FBlock<'a>,
        preserve_tos: bool,
    ) -> CompileResult<()> {
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
                        c.emit(Instr::GetAwaitable(AwaitSite::AsyncWithExit));
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
}

#[cfg(test)]
mod tests {
    use crate::compile::bytecode::Instr;
    use crate::compile::codegen::tests::{global_loads, handler_of, positions};
    use crate::compile::first_function as function;

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
}
