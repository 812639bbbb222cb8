//! Expressions: an [`Expr`] in, the bytecode that leaves its value on the stack out; also
//! jumps on an expression's truth, comparison chains, displays, f-strings, the `await` loop
//! and literal folding. Mirrors CPython 3.13's `compiler_visit_expr1`, `compiler_jump_if`,
//! `compiler_compare`, `starunpack_helper`, `compiler_dict`, `compiler_joined_str` and
//! `compiler_add_yield_from` (`Python/compile.c`).

use std::rc::Rc;

use num_traits::ToPrimitive;

use super::compr::CompKind;
use super::{Codegen, Ctx, LabelId, err, internal};
use crate::common::complex_ops::Complex;
use crate::compile::bytecode::{
    Anchors, AwaitSite, BinaryOperator, CompareOperator, Constant, Instr, Intrinsic1,
};
use crate::compile::constant_set::fold_set_display;
use crate::compile::error::CompileResult;
use crate::compile::scope::ScopeKind;
use crate::syntax::ast::{self, CmpOp, Expr, ExprKind, FStringPart, Span, UnaryOp};

impl<'a> Codegen<'a> {
    pub(super) fn expr(&mut self, expr: &'a Expr) -> CompileResult<()> {
        self.note_anchors(expr);
        self.at(expr.span, |c| c.expr_inner(expr))
    }

    /// Records where a traceback's carets go under `expr`, a binary operation, a call or a
    /// subscript, as `traceback.py`'s `_extract_caret_anchors_from_line_segment` finds them.
    pub(super) fn note_anchors(&mut self, expr: &Expr) {
        let source = self.source;
        let end = expr.span.end;
        let anchors = match &expr.kind {
            ExprKind::BinOp { left, right, .. } => {
                // The first character past `left` that is not space or `)`; the operator
                // is one or two characters long, never reaching into `right`.
                let at = char_after(source, left.span.end, |c| !c.is_whitespace() && c != ')');
                at.map(|left| {
                    let next = source
                        .get(left as usize + 1..)
                        .and_then(|s| s.chars().next());
                    let two = left + 1 < right.span.start
                        && next.is_some_and(|c| !c.is_whitespace() && c != '\\' && c != '#');
                    Anchors {
                        left,
                        right: left + 1 + two as u32,
                        quiet: false,
                    }
                })
            }
            ExprKind::Subscript { value, .. } => char_after(source, value.span.end, |c| c == '[')
                .map(|left| Anchors {
                    left,
                    right: end,
                    quiet: false,
                }),
            ExprKind::Call { func, .. } => {
                return self.note_call_anchors(expr.span, func.span.end);
            }
            _ => None,
        };
        if let Some(anchors) = anchors {
            self.u().anchors.push((expr.span, anchors));
        }
    }

    /// Records the anchors of a call at `span` whose callee ends at `callee_end`, or of
    /// a class pattern (`case Point(x=0)`), which `traceback.py` parses as a call.
    pub(super) fn note_call_anchors(&mut self, span: Span, callee_end: u32) {
        if let Some(left) = char_after(self.source, callee_end, |c| c == '(') {
            let anchors = Anchors {
                left,
                right: span.end,
                quiet: false,
            };
            self.u().anchors.push((span, anchors));
        }
    }

    /// Marks the call `value` of a `return` or an assignment statement starting at
    /// `statement_start` as one `traceback.py` draws no carets under, when that statement
    /// is the first on the call's line (`traceback.py` parses the line to find it).
    pub(super) fn quiet_carets(&mut self, statement_start: u32, value: &Expr) {
        let before = self.source.get(..statement_start as usize).unwrap_or("");
        let first_on_line = before[before.rfind('\n').map_or(0, |i| i + 1)..]
            .trim()
            .is_empty();
        if !first_on_line
            || self.lines.line_of(statement_start) != self.lines.line_of(value.span.start)
        {
            return;
        }
        let unit = self.u();
        if let Some((_, anchors)) = unit
            .anchors
            .iter_mut()
            .rev()
            .find(|(at, _)| *at == value.span)
        {
            anchors.quiet = true;
        }
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
                self.jump_without_line(Instr::Jump, end);
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
                let top_level = self.mode.allows_top_level_await() && u.kind == ScopeKind::Module;
                if !top_level {
                    if !u.kind.is_function_like() {
                        return err("'await' outside function", span);
                    }
                    if matches!(u.kind, ScopeKind::Function | ScopeKind::Lambda) && !u.is_async() {
                        return err("'await' outside async function", span);
                    }
                }
                self.expr(value)?;
                self.emit(Instr::GetAwaitable(AwaitSite::Await));
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
            } => {
                self.check_compare(expr);
                self.compare(left, ops, comparators)
            }
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
                self.check_subscript(value, slice);
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

    pub(super) fn slice_bound(&mut self, bound: Option<&'a Expr>) -> CompileResult<()> {
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
    pub(super) fn yield_from_loop(&mut self) {
        let send = self.new_label();
        let fail = self.new_label();
        let exit = self.new_label();
        self.bind(send);
        self.jump(Instr::Send, exit);
        self.push_handler(fail, false, 0);
        self.emit(Instr::YieldValue(1));
        self.pop_handler();
        self.jump(Instr::JumpNoInterrupt, send);
        // Out of line, as in CPython: reached only when a throw() ends the delegation.
        self.bind(fail);
        self.u().cold += 1;
        self.emit(Instr::CleanupThrow);
        self.jump(Instr::JumpNoInterrupt, exit);
        self.u().cold -= 1;
        self.bind(exit);
        self.emit(Instr::EndSend);
    }

    /// Jump to `target` when `expr`'s truth equals `cond` (CPython's `compiler_jump_if`).
    pub(super) fn jump_if(
        &mut self,
        expr: &'a Expr,
        cond: bool,
        target: LabelId,
    ) -> CompileResult<()> {
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
                self.check_compare(expr);
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
                c.check_compare(expr);
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
        let last = &comparators[n - 1];
        if matches!(ops[n - 1], CmpOp::In | CmpOp::NotIn) {
            self.folded_iterable(last)?;
        } else {
            self.expr(last)?;
        }
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

    /// An expression CPython's AST optimizer folds as an iterable (`fold_iter`): what a
    /// `for` or a comprehension iterates, and the right operand of `in`/`not in`. A list
    /// display becomes a tuple (one constant when every item is one), a set display of
    /// constants one frozenset constant (whose order a loop then follows).
    pub(super) fn folded_iterable(&mut self, e: &'a Expr) -> CompileResult<()> {
        let has_star = |elts: &[Expr]| elts.iter().any(|e| matches!(e.kind, ExprKind::Starred(_)));
        match &e.kind {
            ExprKind::List(elts) if !has_star(elts) => match constant_tuple(elts) {
                Some(folded) => {
                    self.at(e.span, |c| c.load_const(folded));
                    Ok(())
                }
                None => self.at(e.span, |c| c.starunpack(elts, 0, Collection::Tuple)),
            },
            ExprKind::Set(elts) => match constant_tuple(elts) {
                Some(Constant::Tuple(items)) => {
                    self.at(e.span, |c| c.load_const(fold_set_display(&items)));
                    Ok(())
                }
                _ => self.expr(e),
            },
            _ => self.expr(e),
        }
    }

    /// `[a, *b, c]`, `(a, *b)`, `{a, *b}`; `pushed` items are already on the stack.
    pub(super) fn starunpack(
        &mut self,
        elts: &'a [Expr],
        pushed: u32,
        kind: Collection,
    ) -> CompileResult<()> {
        let has_star = elts.iter().any(|e| matches!(e.kind, ExprKind::Starred(_)));
        // Three or more constants are one constant the new collection is extended with, as
        // CPython's `starunpack_helper` folds them (a set's is a frozenset: merged into
        // the new set, it gives CPython's table, and so its order).
        if elts.len() > 2
            && let Some(Constant::Tuple(folded)) = constant_tuple(elts)
        {
            if kind == Collection::Tuple && pushed == 0 {
                self.load_const(Constant::Tuple(folded));
                return Ok(());
            }
            let (build, folded, extend) = match kind {
                Collection::Set => (
                    Instr::BuildSet(pushed),
                    fold_set_display(&folded),
                    Instr::SetUpdate(1),
                ),
                _ => (
                    Instr::BuildList(pushed),
                    Constant::Tuple(folded),
                    Instr::ListExtend(1),
                ),
            };
            self.emit(build);
            self.load_const(folded);
            self.emit(extend);
            if kind == Collection::Tuple {
                self.emit(Instr::CallIntrinsic1(Intrinsic1::ListToTuple));
            }
            return Ok(());
        }
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
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Collection {
    Tuple,
    List,
    Set,
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

/// `a[lo:hi]` without a step compiles to `BinarySlice`/`StoreSlice`.
pub(super) fn two_part_slice(slice: &Expr) -> Option<(Option<&Expr>, Option<&Expr>)> {
    match &slice.kind {
        ExprKind::Slice {
            lower,
            upper,
            step: None,
        } => Some((lower.as_deref(), upper.as_deref())),
        _ => None,
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
        ast::Constant::Imaginary(im) => Constant::Complex(0.0, *im),
        ast::Constant::Str(s) => Constant::Str(s.as_str().into()),
        ast::Constant::Bytes(b) => Constant::Bytes(b.as_slice().into()),
    }
}

/// A literal, a negated number literal or a tuple of constants, as one constant.
pub(super) fn folded_constant(e: &Expr) -> Option<Constant> {
    match &e.kind {
        ExprKind::Constant(c) => Some(constant(c)),
        // A tuple of constants, nested ones too, as CPython's AST optimizer folds it.
        ExprKind::Tuple(items) => constant_tuple(items),
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

/// `-1`, `-2.5`, `-1j`: CPython folds the sign into the constant (`-1j` is `(-0-1j)`).
fn negate_constant(c: &ast::Constant) -> Option<Constant> {
    match c {
        ast::Constant::Int(i) => Some(constant(&ast::Constant::Int(-i))),
        ast::Constant::Float(f) => Some(Constant::Float(-f)),
        ast::Constant::Imaginary(im) => Some(Constant::Complex(-0.0, -im)),
        _ => None,
    }
}

/// A literal of a `case` pattern as one constant: [`folded_constant`]'s, or a complex
/// literal (`-1+2j`, which only a pattern lets stand for a constant: apy folds no other
/// operator), as CPython's AST optimizer folds it.
pub(super) fn pattern_constant(e: &Expr) -> Option<Constant> {
    if let ExprKind::BinOp { left, op, right } = &e.kind
        && let Some(real) = folded_constant(left)
        && let ExprKind::Constant(ast::Constant::Imaginary(im)) = right.kind
    {
        let re = match real {
            Constant::Int(i) => i as f64,
            Constant::BigInt(i) => i.to_f64().unwrap_or(f64::INFINITY),
            Constant::Float(f) => f,
            _ => return None,
        };
        // As the operator computes it, on complexes (`1 - 0j` is `(1+0j)`, `-0.0+1j` is `1j`).
        let (real, imag) = (Complex::new(re, 0.0), Complex::new(0.0, im));
        let z = match op {
            ast::BinOp::Sub => real - imag,
            _ => real + imag,
        };
        return Some(Constant::Complex(z.re, z.im));
    }
    folded_constant(e)
}

/// `(1, 'a', None)` is one constant, as in CPython.
fn constant_tuple(elts: &[Expr]) -> Option<Constant> {
    constant_tuple_of(elts)
}

/// The tuple of `elts` as one constant, when every one of them is a constant.
fn constant_tuple_of<'e>(elts: impl IntoIterator<Item = &'e Expr>) -> Option<Constant> {
    let items: Option<Vec<Constant>> = elts.into_iter().map(folded_constant).collect();
    items.map(|v| Constant::Tuple(v.into()))
}

impl Codegen<'_> {
    /// Loads `elts` as one constant tuple when they all are constants (what CPython's
    /// optimizer folds them into); false, having emitted nothing, when one is not.
    pub(super) fn load_constant_tuple(&mut self, elts: &[&Expr]) -> bool {
        match constant_tuple_of(elts.iter().copied()) {
            Some(folded) => {
                self.load_const(folded);
                true
            }
            None => false,
        }
    }
}

/// The offset of the first character from `from` on that `stop` accepts, past comments and
/// line continuations (`traceback.py`'s `increment_until`).
fn char_after(source: &str, from: u32, stop: fn(char) -> bool) -> Option<u32> {
    let mut at = from as usize;
    while let Some(c) = source.get(at..)?.chars().next() {
        if c == '#' || c == '\\' {
            at += source.get(at..)?.find('\n')? + 1;
        } else if stop(c) {
            return u32::try_from(at).ok();
        } else {
            at += c.len_utf8();
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use crate::compile::bytecode::{CompareOperator, Instr};
    use crate::compile::codegen::tests::{global_loads, handler_of, positions};
    use crate::compile::first_function as function;

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
    fn is_none_tests_jump_on_none_directly() {
        let f = function(
            "def f(x):\n    if x is None:\n        return 1\n    while x is not None:\n        x = g()\n",
        );
        let has = |want: fn(&Instr) -> bool| f.instructions.iter().any(want);
        assert!(has(|i| matches!(i, Instr::PopJumpIfNotNone(_))));
        assert!(has(|i| matches!(i, Instr::PopJumpIfNone(_))));
        assert!(!has(|i| matches!(i, Instr::IsOp(_))));
    }
}
