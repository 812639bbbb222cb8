//! Calls: `f(a, *b, k=c, **d)` in, `Call`, `CallKw` or `CallFunctionEx` with its arguments
//! out; `obj.meth(...)` loads a method, and a bare `super()` in a method becomes
//! `LoadSuperAttr`/`LoadSuperMethod`. Mirrors CPython 3.13's `compiler_call`,
//! `maybe_optimize_method_call`, `compiler_call_helper`, `can_optimize_super_call`,
//! `load_args_for_super` and `validate_keywords` (`Python/compile.c`).

use std::rc::Rc;

use super::expr::Collection;
use super::{Access, Codegen, Ctx, err};
use crate::compile::bytecode::{Constant, Instr, Intrinsic1};
use crate::compile::error::CompileResult;
use crate::compile::scope::{ScopeKind, flags};
use crate::syntax::ast::{Expr, ExprKind, Keyword, Span};

impl<'a> Codegen<'a> {
    /// For `super()` written with no arguments in a method, the method's first parameter.
    pub(super) fn zero_arg_super(&self, expr: &Expr) -> Option<String> {
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
        u.varnames.names.first().map(|v| v.to_string())
    }

    /// `LoadGlobal super; LoadDeref __class__; load first_arg`.
    pub(super) fn load_super_args(&mut self, first_arg: &str, span: Span) -> CompileResult<()> {
        self.at(span, |c| {
            c.name_op("super", Ctx::Load, span)?;
            c.name_op("__class__", Ctx::Load, span)?;
            c.name_op(first_arg, Ctx::Load, span)
        })
    }

    /// A name the module binds by `import` (CPython's `is_import_originated`, which looks
    /// at the module's scope only, wherever the call is): its attribute is called as a
    /// plain attribute (`LOAD_ATTR` + `PUSH_NULL`), a module holding no methods.
    fn is_import_originated(&self, value: &Expr) -> bool {
        let ExprKind::Name(id) = &value.kind else {
            return false;
        };
        let module = &self.table.scopes[0];
        module
            .symbols
            .get(id.as_str())
            .is_some_and(|symbol| symbol.flags & flags::DEF_IMPORT != 0)
    }

    pub(super) fn call(
        &mut self,
        func: &'a Expr,
        args: &'a [Expr],
        keywords: &'a [Keyword],
        span: Span,
    ) -> CompileResult<()> {
        self.check_caller(func);
        let simple = !args.iter().any(|a| matches!(a.kind, ExprKind::Starred(_)))
            && !keywords.iter().any(|k| k.arg.is_none());
        let method_call = match &func.kind {
            ExprKind::Attribute { value, attr } if simple && !self.is_import_originated(value) => {
                Some((value, attr))
            }
            _ => None,
        };
        if let Some((value, attr)) = method_call {
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
    pub(super) fn call_args(
        &mut self,
        pushed: u32,
        args: &'a [Expr],
        keywords: &'a [Keyword],
        span: Span,
    ) -> CompileResult<()> {
        self.call_args_and(pushed, args, None, keywords, span)
    }

    /// [`Codegen::call_args`] with one more positional argument after `args`, pushed by
    /// `last` (a generic class's `.generic_base`).
    pub(super) fn call_args_and(
        &mut self,
        pushed: u32,
        args: &'a [Expr],
        last: Option<Instr>,
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
            let mut n = pushed + args.len() as u32;
            if let Some(last) = last {
                self.emit(last);
                n += 1;
            }
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
        // The general form: a tuple of positional arguments and a dict of keywords; a lone
        // `*a` goes as it is (`CallFunctionEx` makes the tuple, and names the function if
        // `a` is not iterable), as CPython compiles it.
        match args {
            [
                Expr {
                    kind: ExprKind::Starred(inner),
                    ..
                },
            ] if pushed == 0 && last.is_none() => self.expr(inner)?,
            _ => match last {
                Some(last) => {
                    self.starunpack(args, pushed, Collection::List)?;
                    self.emit(last);
                    self.emit(Instr::ListAppend(1));
                    self.emit(Instr::CallIntrinsic1(Intrinsic1::ListToTuple));
                }
                None => self.starunpack(args, pushed, Collection::Tuple)?,
            },
        }
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
    use crate::compile::Mode;
    use crate::compile::compile_module;
    use crate::syntax::parse_module;

    /// Lines as python3.13 -m dis shows them for a call chain split over lines.
    #[test]
    fn multi_line_attribute_chains_report_the_attribute_line() {
        let source = "x = (obj\n     .attr\n     .meth(1,\n           2))\n";
        let module = parse_module(source).expect("parses");
        let code = compile_module(&module, source, "t.py", Mode::Exec).expect("compiles");
        let lines: Vec<u32> = code.locations.iter().map(|l| l.line).collect();
        assert_eq!(lines, [1, 2, 3, 3, 4, 3, 1, 1]);
    }
}
