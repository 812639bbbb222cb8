//! Assignment targets: what `=`, `op=`, `del`, `for`, `as` and `:=` bind in (a name, an
//! attribute, a subscript or slice, a tuple or list to unpack), the store or delete
//! bytecode out. Mirrors the `Store`/`Del` contexts of CPython 3.13's `compiler_visit_expr1`,
//! with `unpack_helper`/`assignment_helper` and `compiler_augassign` (`Python/compile.c`).

use super::expr::two_part_slice;
use super::{Codegen, Ctx, err};
use crate::compile::bytecode::{BinaryOperator, Instr};
use crate::compile::error::CompileResult;
use crate::compile::scope::ScopeKind;
use crate::syntax::ast::{self, Expr, ExprKind, Span};

impl<'a> Codegen<'a> {
    pub(super) fn store(&mut self, target: &'a Expr) -> CompileResult<()> {
        self.note_anchors(target);
        self.at(target.span, |c| c.store_inner(target))
    }

    fn store_inner(&mut self, target: &'a Expr) -> CompileResult<()> {
        match &target.kind {
            ExprKind::Name(name) => self.name_op(name, Ctx::Store, target.span),
            ExprKind::Attribute { value, attr } => {
                self.note_static_attribute(value, &attr.name);
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

    /// `self.<attr> = …` anywhere inside a class (in a method, or in what a method holds)
    /// counts `attr` among the innermost enclosing class's `__static_attributes__`, as
    /// CPython 3.13's `compiler_maybe_add_static_attribute_to_class` does: the name
    /// `self` exactly, whatever the method's first parameter is called; not in the class
    /// body itself, nor by `op=`, `del` or an annotation without a value.
    fn note_static_attribute(&mut self, object: &Expr, attr: &str) {
        if !matches!(&object.kind, ExprKind::Name(name) if name.as_str() == "self") {
            return;
        }
        let mut enclosing = self.units.iter_mut().rev().skip(1);
        if let Some(class) = enclosing.find(|u| u.kind == ScopeKind::Class) {
            class.static_attributes.insert(attr.into());
        }
    }

    pub(super) fn delete(&mut self, target: &'a Expr) -> CompileResult<()> {
        self.note_anchors(target);
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
    /// `target op= value`. The in-place operation carries the whole statement's location,
    /// as in CPython's `compiler_augassign`, so a traceback draws no carets under it.
    pub(super) fn aug_assign(
        &mut self,
        statement: Span,
        target: &'a Expr,
        op: ast::BinOp,
        value: &'a Expr,
    ) -> CompileResult<()> {
        let op = inplace_operator(op);
        self.at(target.span, |c| match &target.kind {
            ExprKind::Name(name) => {
                c.name_op(name, Ctx::Load, target.span)?;
                c.expr(value)?;
                c.at(statement, |c| c.emit(Instr::BinaryOp(op)));
                c.name_op(name, Ctx::Store, target.span)
            }
            ExprKind::Attribute { value: obj, attr } => {
                c.expr(obj)?;
                c.emit(Instr::Copy(1));
                let i = c.attr_index(&attr.name);
                c.emit(Instr::LoadAttr(i));
                c.expr(value)?;
                c.at(statement, |c| c.emit(Instr::BinaryOp(op)));
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
                    c.at(statement, |c| c.emit(Instr::BinaryOp(op)));
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
                    c.at(statement, |c| c.emit(Instr::BinaryOp(op)));
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
