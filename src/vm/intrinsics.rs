//! `CALL_INTRINSIC_1` and `CALL_INTRINSIC_2`: the operations too rare for an instruction of
//! their own (print an interactive result, `import *`, StopIteration leaving a generator,
//! the async generator wrap, unary `+`, list to tuple, and PEP 695's type parameters and
//! aliases, made by `typing`'s `_pep695_*` helpers). In: the operands, the running code
//! object and the namespace its names go to; out: the result. Mirrors `Python/intrinsics.c`.

use std::rc::Rc;

use crate::compile::bytecode::{Intrinsic1, Intrinsic2};

use super::object::CodeObj;
use super::value::{PyDict, Value};
use super::{PyResult, Vm};

impl Vm {
    pub(super) fn intrinsic1(
        &mut self,
        which: Intrinsic1,
        v: Value,
        code: &CodeObj,
        namespace: &Rc<PyDict>,
    ) -> PyResult<Value> {
        Ok(match which {
            // `PRINT_EXPR`: the value to `sys.displayhook` (`sys` is imported for it).
            Intrinsic1::Print => {
                self.import_module("sys")?;
                match self.sys_attr("displayhook") {
                    Some(hook) => self.call(&hook, &[v], &[])?,
                    None => return Err(self.runtime_error("lost sys.displayhook")),
                }
            }
            Intrinsic1::ImportStar => {
                self.import_star(&v, namespace)?;
                Value::None
            }
            Intrinsic1::StopIterationError => {
                let flags = code.head.flags;
                let Value::Object(e) = &v else { return Ok(v) };
                let (msg, matches) = if flags.async_generator {
                    if self.exc_matches(e, &self.types.stop_async_iteration.clone()) {
                        ("async generator raised StopAsyncIteration", true)
                    } else {
                        (
                            "async generator raised StopIteration",
                            self.exc_matches(e, &self.types.stop_iteration.clone()),
                        )
                    }
                } else if flags.coroutine {
                    (
                        "coroutine raised StopIteration",
                        self.exc_matches(e, &self.types.stop_iteration.clone()),
                    )
                } else {
                    (
                        "generator raised StopIteration",
                        self.exc_matches(e, &self.types.stop_iteration.clone()),
                    )
                };
                if !matches {
                    return Ok(v);
                }
                let new = self.runtime_error(msg);
                if let Some(d) = new.exc_data() {
                    let mut d = d.borrow_mut();
                    d.cause = v.clone();
                    d.context = v.clone();
                    d.suppress_context = true;
                }
                Value::Object(new)
            }
            Intrinsic1::AsyncGenWrap => self.async_gen_wrap(v),
            Intrinsic1::UnaryPositive => self.unary_op("+", &v)?,
            Intrinsic1::ListToTuple => match &v {
                Value::List(l) => Value::tuple(l.items.borrow().clone()),
                _ => v,
            },
            Intrinsic1::TypeVar => self.call_typing("_pep695_typevar", &[v])?,
            Intrinsic1::ParamSpec => self.call_typing("_pep695_paramspec", &[v])?,
            Intrinsic1::TypeVarTuple => self.call_typing("_pep695_typevartuple", &[v])?,
            Intrinsic1::SubscriptGeneric => self.call_typing("_pep695_generic", &[v])?,
            Intrinsic1::TypeAlias => match &v {
                Value::Tuple(parts) => self.call_typing("_pep695_alias", &parts.items)?,
                _ => return Err(self.runtime_error("INTRINSIC_TYPEALIAS needs a tuple")),
            },
        })
    }

    /// `CALL_INTRINSIC_2` of `a` (the deeper operand) and `b`.
    pub(super) fn intrinsic2(&mut self, which: Intrinsic2, a: Value, b: Value) -> PyResult<Value> {
        match which {
            Intrinsic2::TypeVarWithBound => self.call_typing("_pep695_typevar", &[a, b]),
            Intrinsic2::TypeVarWithConstraints => {
                self.call_typing("_pep695_typevar", &[a, Value::None, b])
            }
            Intrinsic2::SetTypeparamDefault => self.call_typing("_pep695_default", &[a, b]),
            Intrinsic2::SetFunctionTypeParams => {
                if let Value::Function(f) = &a {
                    f.type_params.set(b);
                }
                Ok(a)
            }
        }
    }

    /// `typing.<helper>(*args)`, importing `typing` the first time.
    fn call_typing(&mut self, helper: &str, args: &[Value]) -> PyResult<Value> {
        let typing = self.import_module("typing")?;
        let name = self.intern(helper);
        let f = self.get_attr(&typing, &name)?;
        self.call(&f, args, &[])
    }
}
