//! Functions, lambdas and classes: a `def`, `lambda` or `class` node in; its body compiled
//! as a nested code object in a unit of its own, then the bytecode that builds the function
//! (defaults, annotations, closure) or calls `__build_class__`, out. Mirrors CPython 3.13's
//! `compiler_function`, `compiler_lambda`, `compiler_class`, `compiler_make_closure`,
//! `compiler_default_arguments` and `compiler_visit_annotations` (`Python/compile.c`).

use std::rc::Rc;

use super::{Codegen, Ctx, internal};
use crate::compile::bytecode::{Code, Constant, Instr, Intrinsic1, Intrinsic2};
use crate::compile::error::CompileResult;
use crate::compile::scope::{ScopeId, mangle};
use crate::syntax::ast::{
    self, ClassDef, Expr, ExprKind, FunctionDef, Ident, Param, Parameters, Span, Stmt, StmtKind,
    TypeParam, TypeParamKind,
};
use crate::syntax::unparse::unparse;

impl<'a> Codegen<'a> {
    /// The implicit `return None` at the end of a body, unless the body cannot get there.
    pub(super) fn return_none_if_reachable(&mut self) {
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
    pub(super) fn make_function(
        &mut self,
        code: Rc<Code>,
        mut attrs: u32,
        span: Span,
    ) -> CompileResult<()> {
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
            if !self.load_constant_tuple(&positional) {
                for d in &positional {
                    self.expr(d)?;
                }
                self.emit(Instr::BuildTuple(positional.len() as u32));
            }
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

    /// An annotation's value: the expression evaluated, or under
    /// `from __future__ import annotations` its text.
    pub(super) fn annotation(&mut self, annotation: &'a Expr) -> CompileResult<()> {
        if self.features.annotations {
            self.load_const(Constant::Str(unparse(annotation).into()));
            return Ok(());
        }
        self.expr(annotation)
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
            match &annotation.kind {
                // `*args: *Ts` (PEP 646): the one item the annotation unpacks to.
                ExprKind::Starred(inner) if !self.features.annotations => {
                    self.expr(inner)?;
                    self.emit(Instr::UnpackSequence(1));
                }
                _ => self.annotation(annotation)?,
            }
            n += 1;
        }
        if n == 0 {
            return Ok(0);
        }
        self.emit(Instr::BuildTuple(2 * n));
        Ok(0x04)
    }

    pub(super) fn scope_of<T>(&self, node: &T, span: Span) -> CompileResult<ScopeId> {
        self.table
            .scope_of(node)
            .ok_or_else(|| internal("scope not found", span))
    }

    pub(super) fn function_def(&mut self, def: &'a FunctionDef, span: Span) -> CompileResult<()> {
        for d in &def.decorators {
            self.expr(d)?;
        }
        let first = def.decorators.first().map_or(span, |d| d.span);
        let first_line = self.lines.line_of(first.start);
        let defaults = self.defaults(&def.params)?;
        if def.type_params.is_empty() {
            let attrs = defaults | self.annotations(&def.params, def.returns.as_ref())?;
            self.function_code(def, attrs, first_line, span)?;
        } else {
            // PEP 695: the function is made inside an annotation scope that holds its type
            // parameters, called with the defaults evaluated out here (CPython's
            // `compiler_function` with `is_generic`).
            let hidden = defaults.count_ones();
            if hidden == 2 {
                self.emit(Instr::Swap(2));
            }
            let scope = self.scope_of(&def.type_params, span)?;
            let name = format!("<generic parameters of {}>", def.name.name);
            self.push_unit(scope, &name, def.name.span);
            self.u().first_line = first_line;
            self.u().argcount = hidden;
            self.type_params(&def.type_params)?;
            for i in 0..hidden {
                self.emit(Instr::LoadFast(i));
            }
            let attrs = defaults | self.annotations(&def.params, def.returns.as_ref())?;
            self.function_code(def, attrs, first_line, span)?;
            self.emit(Instr::Swap(2));
            self.emit(Instr::CallIntrinsic2(Intrinsic2::SetFunctionTypeParams));
            self.emit(Instr::ReturnValue);
            self.call_annotation_scope(hidden, span)?;
        }
        self.apply_decorators(&def.decorators);
        self.name_op(&def.name.name, Ctx::Store, span)
    }

    /// The function's own code object, made into a function with the values `attrs` says
    /// are on the stack.
    fn function_code(
        &mut self,
        def: &'a FunctionDef,
        attrs: u32,
        first_line: u32,
        span: Span,
    ) -> CompileResult<()> {
        let scope = self.scope_of(def, span)?;
        self.push_unit(scope, &def.name.name, def.name.span);
        self.u().first_line = first_line;
        self.set_arg_counts(&def.params);
        // The first constant of a function is its docstring (or None), as in CPython 3.13.
        let doc = docstring(&def.body);
        // The docstring is no statement of the body (it would mark its line).
        let body = match doc {
            Some(_) => &def.body[1..],
            None => &def.body[..],
        };
        self.const_index(doc.map_or(Constant::None, |d| Constant::Str(d.into())));
        self.function_body(|c| c.body(body))?;
        let code = self.assemble()?;
        self.make_function(code, attrs, span)
    }

    /// Ends the annotation scope being compiled and calls it where it is defined, with the
    /// `args` values under it on the stack as its parameters.
    fn call_annotation_scope(&mut self, args: u32, span: Span) -> CompileResult<()> {
        let code = self.assemble()?;
        self.make_function(code, 0, span)?;
        if args > 0 {
            self.emit(Instr::Swap(args + 1));
            self.emit(Instr::Call(args - 1));
        } else {
            self.emit(Instr::PushNull);
            self.emit(Instr::Call(0));
        }
        Ok(())
    }

    /// CPython's `compiler_type_params`: each parameter made and stored in its local, then
    /// all of them in a tuple.
    fn type_params(&mut self, params: &'a [TypeParam]) -> CompileResult<()> {
        for p in params {
            self.at(p.span, |c| -> CompileResult<()> {
                let name = &p.name;
                c.load_const(Constant::Str(name.name.as_str().into()));
                match &p.kind {
                    TypeParamKind::TypeVar { bound: Some(bound) } => {
                        c.lazy_value(bound, &p.name, name, false)?;
                        c.emit(Instr::CallIntrinsic2(match bound.kind {
                            ExprKind::Tuple(_) => Intrinsic2::TypeVarWithConstraints,
                            _ => Intrinsic2::TypeVarWithBound,
                        }));
                    }
                    TypeParamKind::TypeVar { bound: None } => {
                        c.emit(Instr::CallIntrinsic1(Intrinsic1::TypeVar))
                    }
                    TypeParamKind::TypeVarTuple => {
                        c.emit(Instr::CallIntrinsic1(Intrinsic1::TypeVarTuple))
                    }
                    TypeParamKind::ParamSpec => {
                        c.emit(Instr::CallIntrinsic1(Intrinsic1::ParamSpec))
                    }
                }
                if let Some(default) = &p.default {
                    let starred = matches!(p.kind, TypeParamKind::TypeVarTuple);
                    c.lazy_value(default, &p.span, name, starred)?;
                    c.emit(Instr::CallIntrinsic2(Intrinsic2::SetTypeparamDefault));
                }
                c.emit(Instr::Copy(1));
                c.name_op(&name.name, Ctx::Store, p.span)
            })?;
        }
        self.emit(Instr::BuildTuple(params.len() as u32));
        Ok(())
    }

    /// A function of no arguments, named after the type parameter, that evaluates `value`
    /// (a bound, constraints or default) when the parameter is first asked for it, in the
    /// scope keyed by `key`. A `*Ts` default may be starred: its one item is the default.
    fn lazy_value<K>(
        &mut self,
        value: &'a Expr,
        key: &K,
        name: &Ident,
        starred: bool,
    ) -> CompileResult<()> {
        let scope = self.scope_of(key, value.span)?;
        self.push_unit(scope, &name.name, value.span);
        match &value.kind {
            ExprKind::Starred(inner) if starred => {
                self.expr(inner)?;
                self.emit(Instr::UnpackSequence(1));
            }
            _ => self.expr(value)?,
        }
        self.emit(Instr::ReturnValue);
        let code = self.assemble()?;
        self.make_function(code, 0, value.span)
    }

    /// `type Name[params] = value` (CPython's `compiler_typealias`): a
    /// `typing.TypeAliasType` whose value is evaluated on first use. (The parameters come
    /// as the `Vec` whose address keys their annotation scope.)
    #[allow(clippy::ptr_arg)]
    pub(super) fn type_alias(
        &mut self,
        name: &'a Ident,
        type_params: &'a Vec<TypeParam>,
        value: &'a Expr,
        span: Span,
    ) -> CompileResult<()> {
        let generic = !type_params.is_empty();
        if generic {
            let scope = self.scope_of(type_params, span)?;
            self.push_unit(
                scope,
                &format!("<generic parameters of {}>", name.name),
                span,
            );
            self.load_const(Constant::Str(name.name.as_str().into()));
            self.type_params(type_params)?;
        } else {
            self.load_const(Constant::Str(name.name.as_str().into()));
            self.load_const(Constant::None);
        }
        let scope = self.scope_of(name, span)?;
        self.push_unit(scope, &name.name, span);
        // None first, so the function that evaluates the value has no docstring.
        self.const_index(Constant::None);
        self.expr(value)?;
        self.emit(Instr::ReturnValue);
        let code = self.assemble()?;
        self.make_function(code, 0, span)?;
        self.emit(Instr::BuildTuple(3));
        self.emit(Instr::CallIntrinsic1(Intrinsic1::TypeAlias));
        if generic {
            self.emit(Instr::ReturnValue);
            self.call_annotation_scope(0, span)?;
        }
        self.name_op(&name.name, Ctx::Store, span)
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
    pub(super) fn function_body(
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

    pub(super) fn class_def(&mut self, class: &'a ClassDef, span: Span) -> CompileResult<()> {
        for d in &class.decorators {
            self.expr(d)?;
        }
        let first = class.decorators.first().map_or(span, |d| d.span);
        let first_line = self.lines.line_of(first.start);
        let generic = !class.type_params.is_empty();
        if generic {
            // PEP 695: the class is made inside an annotation scope holding its type
            // parameters, with `Generic[*params]` added to its bases.
            let scope = self.scope_of(&class.type_params, span)?;
            let name = format!("<generic parameters of {}>", class.name.name);
            self.push_unit(scope, &name, class.name.span);
            self.u().first_line = first_line;
            self.u().private = Some(class.name.name.as_str().into());
            self.type_params(&class.type_params)?;
            self.name_op(".type_params", Ctx::Store, span)?;
        }
        let scope = self.scope_of(class, span)?;
        self.emit(Instr::LoadBuildClass);
        self.emit(Instr::PushNull);
        self.push_unit(scope, &class.name.name, class.name.span);
        self.u().first_line = first_line;
        self.at(class.name.span, |c| -> CompileResult<()> {
            c.name_op("__name__", Ctx::Load, span)?;
            c.name_op("__module__", Ctx::Store, span)?;
            let qualname = c.unit().qualname.clone();
            c.load_const(Constant::Str(qualname));
            c.name_op("__qualname__", Ctx::Store, span)?;
            c.load_const(Constant::Int(first_line as i64));
            c.name_op("__firstlineno__", Ctx::Store, span)?;
            if generic {
                c.name_op(".type_params", Ctx::Load, span)?;
                c.name_op("__type_params__", Ctx::Store, span)?;
            }
            if c.table.scopes[scope].needs_classdict {
                let i = c
                    .cell_index("__classdict__")
                    .ok_or_else(|| internal("no __classdict__ cell", span))?;
                c.emit(Instr::LoadLocals);
                c.emit(Instr::StoreDeref(i));
            }
            Ok(())
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
        let static_attributes = std::mem::take(&mut self.u().static_attributes);
        let names = static_attributes.into_iter().map(Constant::Str).collect();
        self.load_const(Constant::Tuple(names));
        self.name_op("__static_attributes__", Ctx::Store, span)?;
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
        if generic {
            self.name_op(".type_params", Ctx::Load, span)?;
            self.emit(Instr::CallIntrinsic1(Intrinsic1::SubscriptGeneric));
            self.name_op(".generic_base", Ctx::Store, span)?;
            let base = self.varname_index(".generic_base");
            self.call_args_and(
                2,
                &class.bases,
                Some(Instr::LoadFast(base)),
                &class.keywords,
                span,
            )?;
            self.emit(Instr::ReturnValue);
            self.call_annotation_scope(0, span)?;
        } else {
            self.call_args(2, &class.bases, &class.keywords, span)?;
        }
        self.apply_decorators(&class.decorators);
        self.name_op(&class.name.name, Ctx::Store, span)
    }

    /// Calls the decorators (on the stack under the function or class), innermost first,
    /// each call at its decorator's place: a decorator that raises is shown at its `@`
    /// line, as CPython's `compiler_apply_decorators` has it.
    fn apply_decorators(&mut self, decorators: &'a [Expr]) {
        for d in decorators.iter().rev() {
            self.at(d.span, |c| c.emit(Instr::Call(0)));
        }
    }

    pub(super) fn lambda(
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
}

/// Does a module or class body annotate anything (outside nested defs and classes)?
/// CPython's `find_ann`.
pub(super) fn has_annotations(body: &[Stmt]) -> bool {
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

/// The docstring of a module, class or function body: its first statement, when that is a
/// string, cleaned as CPython 3.13's compiler cleans it ([`clean_doc`]).
pub(super) fn docstring(body: &[Stmt]) -> Option<String> {
    match body.first().map(|s| &s.kind) {
        Some(StmtKind::Expr(Expr {
            kind: ExprKind::Constant(ast::Constant::Str(s)),
            ..
        })) => Some(clean_doc(s)),
        _ => None,
    }
}

/// `_PyCompile_CleanDoc` (new in 3.13): tabs expanded (to columns of 8), the first line's
/// leading spaces removed, and from every later line the indentation they share (the
/// fewest leading spaces of the lines that are not blank), so that `f.__doc__` no longer
/// carries the source's indentation.
fn clean_doc(doc: &str) -> String {
    let doc = expand_tabs(doc);
    let mut lines = doc.split('\n');
    let first = lines.next().unwrap_or_default();
    let rest: Vec<&str> = lines.collect();
    let margin = rest
        .iter()
        .filter_map(|line| {
            let indent = line.len() - line.trim_start_matches(' ').len();
            (indent < line.len()).then_some(indent)
        })
        .min()
        .unwrap_or(0);
    let mut out = first.trim_start_matches(' ').to_string();
    for line in rest {
        out.push('\n');
        let indent = line.len() - line.trim_start_matches(' ').len();
        out.push_str(&line[indent.min(margin)..]);
    }
    out
}

/// `str.expandtabs()`: each tab to the next column that is a multiple of 8.
fn expand_tabs(s: &str) -> std::borrow::Cow<'_, str> {
    if !s.contains('\t') {
        return s.into();
    }
    let mut out = String::with_capacity(s.len());
    let mut column = 0;
    for c in s.chars() {
        match c {
            '\t' => {
                let spaces = 8 - column % 8;
                out.extend(std::iter::repeat_n(' ', spaces));
                column += spaces;
            }
            '\n' | '\r' => {
                out.push(c);
                column = 0;
            }
            c => {
                out.push(c);
                column += 1;
            }
        }
    }
    out.into()
}

#[cfg(test)]
mod tests {
    use crate::compile::Mode;
    use crate::compile::bytecode::{Instr, Intrinsic1};
    use crate::compile::codegen::tests::{global_loads, handler_of};
    use crate::compile::compile_module;
    use crate::compile::first_function as function;
    use crate::syntax::parse_module;

    #[test]
    fn docstrings_lose_their_shared_indentation_as_in_cpython_3_13() {
        use super::clean_doc;
        assert_eq!(clean_doc("a\n      b\n    c\n    "), "a\n  b\nc\n");
        assert_eq!(clean_doc("  first\n\n        y\n    "), "first\n\ny\n");
        assert_eq!(clean_doc("a\n      b\n   \n    c\n"), "a\n  b\n\nc\n");
        assert_eq!(clean_doc("\tTab\n\tt2"), "Tab\nt2");
        assert_eq!(clean_doc("one line"), "one line");
        assert_eq!(clean_doc("x\n  \n   "), "x\n  \n   ");
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
}
