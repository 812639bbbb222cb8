//! `apy --ast`: an [`ast::Module`](super::ast::Module) in, the text of Python's
//! `ast.dump(tree, indent=2)` out.
//!
//! The tree is `ast_tree`'s (the one `ast.parse` returns too); the layout rules are CPython
//! 3.13's (`Lib/ast.py`, `dump`, with `show_empty=False`), so the output reads beside
//! `python3.13 -c "import ast; print(ast.dump(ast.parse(src), indent=2))"`. Positions are not
//! shown, as `dump` leaves them out by default. Depends on the tree and on the pure `repr`
//! helpers of `common` (no VM values).

use crate::common::chars::{bytes_repr, str_repr};
use crate::common::complex_ops::{Complex, complex_repr};
use crate::common::float_repr::float_repr;

use super::ast::{Constant, Module};
use super::ast_tree::{self, Field, Node};

/// The dump of `module`, ending with a newline (what `print(ast.dump(…, indent=2))` prints).
pub fn dump_module(module: &Module) -> String {
    let tree = ast_tree::module(module, None);
    let mut text = format(&Field::Node(tree), 0).0;
    text.push('\n');
    text
}

/// Whether `dump` leaves the field out with `show_empty=False`: None and empty lists, but for
/// the value of a `Constant` or `MatchSingleton` (`Constant(value=None)`).
fn omitted(node: &Node, name: &str, value: &Field) -> bool {
    match value {
        Field::Leaf(Constant::None) => {
            name != "value" || !matches!(node.class, "Constant" | "MatchSingleton")
        }
        Field::List(items) => items.is_empty(),
        _ => false,
    }
}

/// `ast.dump`'s `_format`: returns the text and whether it is "simple" (a leaf, or a node
/// without fields), which decides if a parent fits on one line.
fn format(value: &Field, level: usize) -> (String, bool) {
    let level = level + 1;
    let prefix = format!("\n{}", "  ".repeat(level));
    let separator = format!(",{prefix}");
    match value {
        Field::Leaf(leaf) => (constant_repr(leaf), true),
        Field::List(items) => {
            let items: Vec<String> = items.iter().map(|item| format(item, level).0).collect();
            (format!("[{prefix}{}]", items.join(&separator)), false)
        }
        Field::Node(node) => {
            let mut all_simple = true;
            let mut args = Vec::new();
            for (name, value) in &node.fields {
                if omitted(node, name, value) {
                    continue;
                }
                let (text, simple) = format(value, level);
                all_simple &= simple;
                args.push(format!("{name}={text}"));
            }
            if all_simple && args.len() <= 3 {
                (
                    format!("{}({})", node.class, args.join(", ")),
                    args.is_empty(),
                )
            } else {
                let args = args.join(&separator);
                (format!("{}({prefix}{args})", node.class), false)
            }
        }
    }
}

/// Python's `repr` of a leaf.
fn constant_repr(value: &Constant) -> String {
    match value {
        Constant::None => "None".to_string(),
        Constant::Bool(true) => "True".to_string(),
        Constant::Bool(false) => "False".to_string(),
        Constant::Ellipsis => "Ellipsis".to_string(),
        Constant::Int(value) => value.to_string(),
        Constant::Float(value) => float_repr(*value),
        Constant::Imaginary(value) => complex_repr(Complex::new(0.0, *value)),
        Constant::Str(text) => str_repr(text),
        Constant::Bytes(bytes) => bytes_repr(bytes),
    }
}
