//! `_ast_tree`, the native half of `ast` (`stdlib/ast.apy`): `parse(source, filename, mode)`
//! parses with apy's own parser and hands back the tree of `syntax::ast_tree` as plain
//! values, which `ast.apy` turns into its node objects. A node is a tuple
//! `(class_name, ((field, value), …), position)`, position being
//! `(lineno, col_offset, end_lineno, end_col_offset)` or None; a list field is a list; a leaf
//! is the Python value (str, int, float, complex, bytes, bool, None, Ellipsis). A syntax error
//! is raised as `compile()` raises it, naming `filename`; the lexer's SyntaxWarnings are shown.

use crate::common::complex_ops::Complex;
use crate::syntax::ast::Constant;
use crate::syntax::ast_tree::{self, Field, Node};
use crate::syntax::diagnostics::Diagnostic;
use crate::syntax::parse_module_warned;
use crate::syntax::shape::{StartSymbol, check_shape, check_start};
use crate::vm::args::{check_arity, check_kwargs};
use crate::vm::object::KwArgs;
use crate::vm::value::Value;
use crate::vm::{PyResult, Vm};

pub fn module(vm: &mut Vm) -> Value {
    let parse = vm.native("parse", parse);
    vm.new_module("_ast_tree", vec![("parse", parse)])
}

/// `parse(source, filename, mode)`: `ast.parse` checked the arguments' types.
fn parse(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    check_kwargs(vm, "parse", kw, &[])?;
    check_arity(vm, "parse", args, 3, 3)?;
    let (Some(source), Some(filename), Some(mode)) =
        (args[0].as_str(), args[1].as_str(), args[2].as_str())
    else {
        return Err(vm.type_error("parse() takes three str arguments"));
    };
    let start = match mode {
        "exec" => StartSymbol::File,
        "eval" => StartSymbol::Eval,
        "single" => StartSymbol::Single,
        _ => {
            return Err(
                vm.value_error(format!("mode {mode:?} is not supported by apy's ast.parse"))
            );
        }
    };
    let parsed = check_start(source, start)
        .and_then(|()| parse_module_warned(source).map_err(Diagnostic::from))
        .and_then(|parsed| check_shape(&parsed.0, source, start).map(|()| parsed));
    let (module, warnings) = match parsed {
        Ok(parsed) => parsed,
        Err(diagnostic) => return Err(vm.syntax_error_from(&diagnostic, filename, source)),
    };
    // The lexer's SyntaxWarnings (invalid escapes…), as CPython's parser gives them.
    for (line, message) in warnings {
        vm.warn_at("SyntaxWarning", &message, filename.into(), line, "");
    }
    let tree = match start {
        StartSymbol::File => ast_tree::module(&module, Some(source)),
        StartSymbol::Single => ast_tree::interactive(&module, Some(source)),
        StartSymbol::Eval => match ast_tree::expression(&module, Some(source)) {
            Some(tree) => tree,
            None => return Err(vm.value_error("not an expression")),
        },
    };
    Ok(node_value(vm, tree))
}

fn node_value(vm: &mut Vm, node: Node) -> Value {
    let fields = node
        .fields
        .into_iter()
        .map(|(name, field)| {
            let name = Value::Str(vm.intern(name));
            Value::tuple(vec![name, field_value(vm, field)])
        })
        .collect();
    let position = match node.position {
        Some(at) => Value::tuple(
            [at.lineno, at.col_offset, at.end_lineno, at.end_col_offset]
                .into_iter()
                .map(|n| Value::Int(i64::from(n)))
                .collect(),
        ),
        None => Value::None,
    };
    Value::tuple(vec![
        Value::Str(vm.intern(node.class)),
        Value::tuple(fields),
        position,
    ])
}

fn field_value(vm: &mut Vm, field: Field) -> Value {
    match field {
        Field::Node(node) => node_value(vm, node),
        Field::List(items) => Value::list(items.into_iter().map(|f| field_value(vm, f)).collect()),
        Field::Leaf(leaf) => leaf_value(vm, leaf),
    }
}

fn leaf_value(vm: &mut Vm, leaf: Constant) -> Value {
    match leaf {
        Constant::None => Value::None,
        Constant::Bool(b) => Value::Bool(b),
        Constant::Ellipsis => Value::Ellipsis,
        Constant::Int(n) => Value::from_bigint(n),
        Constant::Float(f) => Value::Float(f),
        Constant::Imaginary(im) => {
            vm.ready_methods(&vm.types.complex.clone());
            vm.new_complex(Complex::new(0.0, im))
        }
        Constant::Str(text) => Value::str(text),
        Constant::Bytes(bytes) => vm.new_bytes(bytes),
    }
}
