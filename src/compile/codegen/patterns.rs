//! `match` statements (PEP 634): the subject and each `case` in, bytecode out, laid out as
//! CPython 3.13's `compiler_match` and `compiler_pattern_*` (`Python/compile.c`) lay it out.
//!
//! The subject is evaluated once; each case but the last tests a copy of it. A pattern
//! consumes the value it tests and leaves what it captured on the stack: the captures are
//! stored only once the whole pattern matched, then the guard runs. A failing test jumps to
//! one of the `fail_pop` labels, which pop what the pattern pushed so far. Also here: the
//! compile-time errors CPython reports for patterns (unreachable cases, names bound twice,
//! alternatives binding different names, duplicate keys…).

use super::expr::pattern_constant;
use super::{Codegen, Ctx, LabelId, err};
use crate::compile::bytecode::{BinaryOperator, CompareOperator, Constant, Instr, Label};
use crate::compile::constant_set::constants_equal;
use crate::compile::dis::literal_repr;
use crate::compile::error::CompileResult;
use crate::syntax::ast::{Expr, ExprKind, Ident, MatchCase, Pattern, PatternKind, Span};

/// CPython's `pattern_context`: what a pattern being compiled has left on the stack.
struct PatternContext<'a> {
    /// Names captured so far; the first one's value is nearest the top of the stack (under
    /// the `on_top` items), the last one's deepest.
    stores: Vec<&'a str>,
    /// Whether an irrefutable pattern (a capture, `_`) is allowed here.
    allow_irrefutable: bool,
    /// `fail_pop[n]` pops `n` items, then goes on to the next case.
    fail_pop: Vec<LabelId>,
    /// Items above the captures that a failure must pop too.
    on_top: usize,
}

impl PatternContext<'_> {
    fn new(allow_irrefutable: bool) -> Self {
        PatternContext {
            stores: Vec::new(),
            allow_irrefutable,
            fail_pop: Vec::new(),
            on_top: 0,
        }
    }
}

/// `_`: a wildcard (CPython's `WILDCARD_CHECK`).
fn is_wildcard(p: &Pattern) -> bool {
    matches!(
        p.kind,
        PatternKind::MatchAs {
            pattern: None,
            name: None
        }
    )
}

impl<'a> Codegen<'a> {
    /// `match subject:` with its cases (CPython's `compiler_match_inner`).
    pub(super) fn match_stmt(
        &mut self,
        subject: &'a Expr,
        cases: &'a [MatchCase],
    ) -> CompileResult<()> {
        self.expr(subject)?;
        let end = self.new_label();
        let n = cases.len();
        // A trailing `case _:` needs no copy of the subject and no test.
        let has_default = n > 1 && is_wildcard(&cases[n - 1].pattern);
        let tested = n - usize::from(has_default);
        for (i, case) in cases[..tested].iter().enumerate() {
            let span = case.pattern.span;
            let mut pc = PatternContext::new(case.guard.is_some() || i == n - 1);
            // Only copy the subject if this is not the last case tested.
            let copy = i != tested - 1;
            if copy {
                self.at(span, |c| c.emit(Instr::Copy(1)));
            }
            self.pattern(&case.pattern, &mut pc)?;
            // It matched: store the captures, whose values are on the stack.
            for name in pc.stores.clone() {
                self.at(span, |c| c.name_op(name, Ctx::Store, span))?;
            }
            if let Some(guard) = &case.guard {
                self.ensure_fail_pop(&mut pc, 0);
                let fail = pc.fail_pop[0];
                self.at(span, |c| c.jump_if(guard, false, fail))?;
            }
            if copy {
                self.at(span, |c| c.emit(Instr::PopTop));
            }
            self.body(&case.body)?;
            self.jump_without_line(Instr::Jump, end);
            // A failed pattern's clean-up belongs to the pattern's line, not the body's.
            self.at(span, |c| c.emit_and_reset_fail_pop(&mut pc));
        }
        if has_default {
            let case = &cases[n - 1];
            // Shows the line of `case _:` (it makes no other instruction).
            self.at(case.pattern.span, |c| c.emit(Instr::Nop));
            if let Some(guard) = &case.guard {
                self.at(case.pattern.span, |c| c.jump_if(guard, false, end))?;
            }
            self.body(&case.body)?;
        }
        self.bind(end);
        Ok(())
    }

    fn ensure_fail_pop(&mut self, pc: &mut PatternContext<'a>, n: usize) {
        while pc.fail_pop.len() <= n {
            let label = self.new_label();
            pc.fail_pop.push(label);
        }
    }

    /// Jump with `make` to the label that pops everything the pattern pushed so far.
    fn jump_to_fail_pop(&mut self, pc: &mut PatternContext<'a>, make: fn(Label) -> Instr) {
        let pops = pc.on_top + pc.stores.len();
        self.ensure_fail_pop(pc, pops);
        self.jump(make, pc.fail_pop[pops]);
    }

    /// The chain of `POP_TOP`s the failure labels land on.
    fn emit_and_reset_fail_pop(&mut self, pc: &mut PatternContext<'a>) {
        let Some((&first, rest)) = pc.fail_pop.split_first() else {
            return;
        };
        for &label in rest.iter().rev() {
            self.bind(label);
            self.emit(Instr::PopTop);
        }
        self.bind(first);
        pc.fail_pop.clear();
    }

    /// Move the top of the stack `count - 1` places down.
    fn rotate(&mut self, count: usize) {
        for n in (2..=count).rev() {
            self.emit(Instr::Swap(n as u32));
        }
    }

    /// Keep the value on top for storing once the whole pattern matched (`_` pops it).
    fn store_capture(
        &mut self,
        name: Option<&'a Ident>,
        pc: &mut PatternContext<'a>,
        span: Span,
    ) -> CompileResult<()> {
        let Some(name) = name else {
            self.emit(Instr::PopTop);
            return Ok(());
        };
        if name.name == "__debug__" {
            return err("cannot assign to __debug__", span);
        }
        if pc.stores.contains(&name.name.as_str()) {
            return err(duplicate_store(&name.name), span);
        }
        // Under anything to keep on top and under the captures so far.
        self.rotate(pc.on_top + pc.stores.len() + 1);
        pc.stores.push(&name.name);
        Ok(())
    }

    /// Compile `p`, which consumes the value on top of the stack.
    fn pattern(&mut self, p: &'a Pattern, pc: &mut PatternContext<'a>) -> CompileResult<()> {
        self.at(p.span, |c| c.pattern_at(p, pc))
    }

    /// A pattern inside another: irrefutable is fine there (`[x]`, `P(x)`).
    fn subpattern(&mut self, p: &'a Pattern, pc: &mut PatternContext<'a>) -> CompileResult<()> {
        let allow = std::mem::replace(&mut pc.allow_irrefutable, true);
        let result = self.pattern(p, pc);
        pc.allow_irrefutable = allow;
        result
    }

    fn pattern_at(&mut self, p: &'a Pattern, pc: &mut PatternContext<'a>) -> CompileResult<()> {
        match &p.kind {
            PatternKind::MatchValue(value) => {
                match pattern_constant(value) {
                    Some(constant) => self.load_const(constant),
                    None if matches!(value.kind, ExprKind::Attribute { .. }) => self.expr(value)?,
                    None => {
                        return err(
                            "patterns may only match literals and attribute lookups",
                            p.span,
                        );
                    }
                }
                self.emit(Instr::CompareOp(CompareOperator::Eq));
                self.jump_to_fail_pop(pc, Instr::PopJumpIfFalse);
                Ok(())
            }
            PatternKind::MatchSingleton(value) => {
                if *value == crate::syntax::ast::Constant::None {
                    self.jump_to_fail_pop(pc, Instr::PopJumpIfNotNone);
                } else {
                    let b = matches!(value, crate::syntax::ast::Constant::Bool(true));
                    self.load_const(Constant::Bool(b));
                    self.emit(Instr::IsOp(0));
                    self.jump_to_fail_pop(pc, Instr::PopJumpIfFalse);
                }
                Ok(())
            }
            PatternKind::MatchAs { pattern, name } => {
                let Some(pattern) = pattern else {
                    if !pc.allow_irrefutable {
                        return match name {
                            Some(name) => err(
                                format!(
                                    "name capture '{}' makes remaining patterns unreachable",
                                    name.name
                                ),
                                p.span,
                            ),
                            None => err("wildcard makes remaining patterns unreachable", p.span),
                        };
                    }
                    return self.store_capture(name.as_ref(), pc, p.span);
                };
                // A copy to store once the inner pattern matched.
                pc.on_top += 1;
                self.emit(Instr::Copy(1));
                self.pattern(pattern, pc)?;
                pc.on_top -= 1;
                self.store_capture(name.as_ref(), pc, p.span)
            }
            PatternKind::MatchStar(name) => self.store_capture(name.as_ref(), pc, p.span),
            PatternKind::MatchSequence(items) => self.sequence_pattern(items, pc, p.span),
            PatternKind::MatchMapping {
                keys,
                patterns,
                rest,
            } => self.mapping_pattern(keys, patterns, rest.as_ref(), pc, p.span),
            PatternKind::MatchClass {
                cls,
                patterns,
                kwd_attrs,
                kwd_patterns,
            } => {
                self.note_call_anchors(p.span, cls.span.end);
                self.class_pattern(cls, patterns, kwd_attrs, kwd_patterns, pc)
            }
            PatternKind::MatchOr(alternatives) => self.or_pattern(alternatives, pc, p.span),
        }
    }

    /// `[a, *rest, b]`: a sequence of the right length, then each item's pattern.
    fn sequence_pattern(
        &mut self,
        items: &'a [Pattern],
        pc: &mut PatternContext<'a>,
        span: Span,
    ) -> CompileResult<()> {
        let size = items.len();
        let mut star = None;
        let mut only_wildcard = true;
        let mut star_wildcard = false;
        for (i, item) in items.iter().enumerate() {
            if let PatternKind::MatchStar(name) = &item.kind {
                if star.is_some() {
                    return err("multiple starred names in sequence pattern", span);
                }
                star_wildcard = name.is_none();
                only_wildcard &= star_wildcard;
                star = Some(i);
            } else {
                only_wildcard &= is_wildcard(item);
            }
        }
        // The subject stays on top through the type and length checks.
        pc.on_top += 1;
        self.emit(Instr::MatchSequence);
        self.jump_to_fail_pop(pc, Instr::PopJumpIfFalse);
        let (min_len, compare) = match star {
            None => (size, CompareOperator::Eq),
            Some(_) => (size - 1, CompareOperator::Ge),
        };
        if star.is_none() || size > 1 {
            self.emit(Instr::GetLen);
            self.load_int(min_len);
            self.emit(Instr::CompareOp(compare));
            self.jump_to_fail_pop(pc, Instr::PopJumpIfFalse);
        }
        pc.on_top -= 1;
        if only_wildcard {
            // `[_, _, *_]`: nothing to take out.
            self.emit(Instr::PopTop);
            return Ok(());
        }
        match star {
            Some(star) if star_wildcard => self.sequence_subscripts(items, star, pc),
            _ => {
                match star {
                    Some(before) => {
                        let after = size - before - 1;
                        if before >= 1 << 8 {
                            return err(
                                "too many expressions in star-unpacking sequence pattern",
                                span,
                            );
                        }
                        self.emit(Instr::UnpackEx((before | (after << 8)) as u32));
                    }
                    None => self.emit(Instr::UnpackSequence(size as u32)),
                }
                // The items stay on the stack while each is matched in turn.
                pc.on_top += size;
                for item in items {
                    pc.on_top -= 1;
                    self.subpattern(item, pc)?;
                }
                Ok(())
            }
        }
    }

    /// `[a, *_, b]`: index the items the patterns need instead of unpacking them all.
    fn sequence_subscripts(
        &mut self,
        items: &'a [Pattern],
        star: usize,
        pc: &mut PatternContext<'a>,
    ) -> CompileResult<()> {
        pc.on_top += 1;
        for (i, item) in items.iter().enumerate() {
            if i == star || is_wildcard(item) {
                continue;
            }
            self.emit(Instr::Copy(1));
            if i < star {
                self.load_int(i);
            } else {
                // The subject may not support negative indexes: `len(subject) - k`.
                self.emit(Instr::GetLen);
                self.load_int(items.len() - i);
                self.emit(Instr::BinaryOp(BinaryOperator::Subtract));
            }
            self.emit(Instr::BinarySubscr);
            self.subpattern(item, pc)?;
        }
        pc.on_top -= 1;
        self.emit(Instr::PopTop);
        Ok(())
    }

    fn load_int(&mut self, n: usize) {
        self.load_const(Constant::Int(n as i64));
    }

    /// `{"k": p, **rest}`: a mapping with every key, then each value's pattern.
    fn mapping_pattern(
        &mut self,
        keys: &'a [Expr],
        patterns: &'a [Pattern],
        rest: Option<&'a Ident>,
        pc: &mut PatternContext<'a>,
        span: Span,
    ) -> CompileResult<()> {
        let size = keys.len();
        pc.on_top += 1;
        self.emit(Instr::MatchMapping);
        self.jump_to_fail_pop(pc, Instr::PopJumpIfFalse);
        if size == 0 && rest.is_none() {
            // `{}` matches any mapping.
            pc.on_top -= 1;
            self.emit(Instr::PopTop);
            return Ok(());
        }
        if size > 0 {
            self.emit(Instr::GetLen);
            self.load_int(size);
            self.emit(Instr::CompareOp(CompareOperator::Ge));
            self.jump_to_fail_pop(pc, Instr::PopJumpIfFalse);
        }
        let mut seen: Vec<Constant> = Vec::new();
        for key in keys {
            match pattern_constant(key) {
                Some(constant) => {
                    if seen.iter().any(|c| constants_equal(c, &constant)) {
                        let repr = literal_repr(&constant);
                        return err(
                            format!("mapping pattern checks duplicate key ({repr})"),
                            span,
                        );
                    }
                    seen.push(constant);
                }
                None if matches!(key.kind, ExprKind::Attribute { .. }) => {}
                None => {
                    return err(
                        "mapping pattern keys may only match literals and attribute lookups",
                        span,
                    );
                }
            }
        }
        if seen.len() == size {
            // Literal keys only: one constant tuple, as CPython folds it.
            self.load_const(Constant::Tuple(seen.into()));
        } else {
            keys.iter().try_for_each(|key| self.expr(key))?;
            self.emit(Instr::BuildTuple(size as u32));
        }
        self.emit(Instr::MatchKeys);
        // The keys and the values (or None) are now on top of the subject.
        pc.on_top += 2;
        self.emit(Instr::Copy(1));
        self.jump_to_fail_pop(pc, Instr::PopJumpIfNone);
        self.emit(Instr::UnpackSequence(size as u32));
        pc.on_top += size;
        pc.on_top -= 1;
        for pattern in patterns {
            pc.on_top -= 1;
            self.subpattern(pattern, pc)?;
        }
        // It matched: what comes next consumes the keys and the subject.
        pc.on_top -= 2;
        match rest {
            Some(rest) => {
                // rest = dict(subject); del rest[key] for each key
                self.emit(Instr::BuildMap(0));
                self.emit(Instr::Swap(3));
                self.emit(Instr::DictUpdate(2));
                self.emit(Instr::UnpackSequence(size as u32));
                for left in (1..=size).rev() {
                    self.emit(Instr::Copy(1 + left as u32));
                    self.emit(Instr::Swap(2));
                    self.emit(Instr::DeleteSubscr);
                }
                self.store_capture(Some(rest), pc, span)
            }
            None => {
                self.emit(Instr::PopTop);
                self.emit(Instr::PopTop);
                Ok(())
            }
        }
    }

    /// `Cls(p, name=p)`: an instance of `Cls` whose attributes match.
    fn class_pattern(
        &mut self,
        cls: &'a Expr,
        patterns: &'a [Pattern],
        kwd_attrs: &'a [Ident],
        kwd_patterns: &'a [Pattern],
        pc: &mut PatternContext<'a>,
    ) -> CompileResult<()> {
        for (i, attr) in kwd_attrs.iter().enumerate() {
            let span = kwd_patterns[i].span;
            if attr.name == "__debug__" {
                return err("cannot assign to __debug__", span);
            }
            if let Some(j) = (i + 1..kwd_attrs.len()).find(|&j| kwd_attrs[j].name == attr.name) {
                return err(
                    format!("attribute name repeated in class pattern: {}", attr.name),
                    kwd_patterns[j].span,
                );
            }
        }
        self.expr(cls)?;
        let names = kwd_attrs
            .iter()
            .map(|a| Constant::Str(a.name.as_str().into()))
            .collect();
        self.load_const(Constant::Tuple(names));
        self.emit(Instr::MatchClass(patterns.len() as u32));
        // A tuple of the attributes, or None.
        self.emit(Instr::Copy(1));
        pc.on_top += 1;
        self.jump_to_fail_pop(pc, Instr::PopJumpIfNone);
        let count = patterns.len() + kwd_patterns.len();
        self.emit(Instr::UnpackSequence(count as u32));
        pc.on_top += count;
        pc.on_top -= 1;
        for pattern in patterns.iter().chain(kwd_patterns) {
            pc.on_top -= 1;
            if is_wildcard(pattern) {
                self.emit(Instr::PopTop);
            } else {
                self.subpattern(pattern, pc)?;
            }
        }
        Ok(())
    }

    /// `p1 | p2`: each alternative on a copy of the subject; all must bind the same names,
    /// which end up on the stack in the first alternative's order.
    fn or_pattern(
        &mut self,
        alternatives: &'a [Pattern],
        pc: &mut PatternContext<'a>,
        span: Span,
    ) -> CompileResult<()> {
        let end = self.new_label();
        let outer = std::mem::replace(pc, PatternContext::new(false));
        let mut control: Option<Vec<&'a str>> = None;
        for (i, alt) in alternatives.iter().enumerate() {
            *pc = PatternContext::new(i == alternatives.len() - 1 && outer.allow_irrefutable);
            self.at(alt.span, |c| c.emit(Instr::Copy(1)));
            self.pattern(alt, pc)?;
            match &control {
                None => control = Some(pc.stores.clone()),
                Some(control) => {
                    if pc.stores.len() != control.len() {
                        return err("alternative patterns bind different names", span);
                    }
                    self.at(alt.span, |c| c.reorder_stores(control, pc, span))?;
                }
            }
            self.at(alt.span, |c| {
                c.jump(Instr::Jump, end);
                c.emit_and_reset_fail_pop(pc);
            });
        }
        *pc = outer;
        // No alternative matched: pop the subject and fail.
        self.emit(Instr::PopTop);
        self.jump_to_fail_pop(pc, Instr::Jump);
        self.bind(end);
        let control = control.unwrap_or_default();
        // Under the new captures: the copy of the subject, the items kept on top and the
        // captures made before this pattern.
        let rotations = control.len() + 1 + pc.on_top + pc.stores.len();
        for name in control {
            self.rotate(rotations);
            if pc.stores.contains(&name) {
                return err(duplicate_store(name), span);
            }
            pc.stores.push(name);
        }
        self.emit(Instr::PopTop);
        Ok(())
    }

    /// Reorder an alternative's captures on the stack (and in `pc.stores`) into the order
    /// of the first alternative's, `control`.
    fn reorder_stores(
        &mut self,
        control: &[&'a str],
        pc: &mut PatternContext<'a>,
        span: Span,
    ) -> CompileResult<()> {
        for icontrol in (0..control.len()).rev() {
            let Some(istores) = pc.stores.iter().position(|s| *s == control[icontrol]) else {
                return err("alternative patterns bind different names", span);
            };
            if icontrol != istores {
                let rotations = istores + 1;
                let rotated: Vec<&str> = pc.stores.drain(..rotations).collect();
                let at = icontrol - istores;
                pc.stores.splice(at..at, rotated);
                for _ in 0..rotations {
                    self.rotate(icontrol + 1);
                }
            }
        }
        Ok(())
    }
}

fn duplicate_store(name: &str) -> String {
    format!("multiple assignments to name '{name}' in pattern")
}
