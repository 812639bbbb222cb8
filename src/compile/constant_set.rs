//! Set displays of constants, folded as CPython's compiler folds them: `{3, 1, 2}` becomes
//! `BUILD_SET 0; LOAD_CONST frozenset(...); SET_UPDATE 1`, and the frozenset constant is
//! built twice (`starunpack_helper` adds the items in the source's order, then
//! `merge_consts_recursive` makes a new one from the first one's iteration order). The
//! set a program gets is then merged from that frozenset, so the order it prints in is
//! CPython's only if every step is: this module works the orders out at compile time,
//! with the hash functions the VM uses (`common::set_table`).

use std::convert::Infallible;

use super::bytecode::Constant;
use crate::common::complex_ops::Complex;
use crate::common::int_ops::Int;
use crate::common::set_table::{
    HASH_NONE, SetTable, hash_bool, hash_float, hash_int, hash_tuple, text_hash,
};

/// A set display's constants (source order) as the frozenset constant CPython's compiler
/// ends with: its items in the order they are added to make it.
pub fn fold_set_display(items: &[Constant]) -> Constant {
    Constant::FrozenSet(frozenset_order(items).into())
}

/// The items of a frozenset made by adding `items` in order, in the order it iterates
/// them: a table like CPython's, by their hashes, the first of equal ones kept
/// (`{1, 1.0}` holds 1).
pub fn frozenset_order(items: &[Constant]) -> Vec<Constant> {
    let mut table: SetTable<usize> = SetTable::new();
    for (i, item) in items.iter().enumerate() {
        let same =
            |a: &usize, b: &usize| Ok::<_, Infallible>(constants_equal(&items[*a], &items[*b]));
        let Ok(_) = table.insert(i, constant_hash(item), same);
    }
    table.iter().map(|(i, _)| items[*i].clone()).collect()
}

/// `hash(c)` of a constant that can be a set item.
fn constant_hash(c: &Constant) -> i64 {
    match c {
        Constant::None => HASH_NONE,
        Constant::Bool(b) => hash_bool(*b),
        Constant::Int(i) => hash_int(&Int::Small(*i)),
        Constant::BigInt(i) => hash_int(&Int::Big((**i).clone())),
        Constant::Float(f) => hash_float(*f).unwrap_or(0),
        Constant::Complex(re, im) => Complex::new(*re, *im).hash(0),
        Constant::Str(s) => text_hash(s.as_bytes()),
        Constant::Bytes(b) => text_hash(b),
        Constant::Tuple(items) => hash_tuple(items.iter().map(constant_hash)),
        Constant::Ellipsis | Constant::FrozenSet(_) | Constant::Code(_) | Constant::Frozen(_) => 0,
    }
}

/// `a == b` for two constants, as set members compare: numbers by value whatever their
/// type (`1`, `1.0`, `1+0j` and `True` are one item; also a mapping pattern's duplicate keys).
pub fn constants_equal(a: &Constant, b: &Constant) -> bool {
    let number = |c: &Constant| match c {
        Constant::Bool(b) => Some((f64::from(u8::from(*b)), 0.0)),
        Constant::Int(i) => Some((*i as f64, 0.0)),
        Constant::Float(f) => Some((*f, 0.0)),
        Constant::Complex(re, im) => Some((*re, *im)),
        _ => None,
    };
    match (a, b) {
        (Constant::Int(x), Constant::Int(y)) => x == y,
        (Constant::BigInt(x), Constant::BigInt(y)) => x == y,
        (Constant::Str(x), Constant::Str(y)) => x == y,
        (Constant::Bytes(x), Constant::Bytes(y)) => x == y,
        (Constant::Tuple(x), Constant::Tuple(y)) => {
            x.len() == y.len() && x.iter().zip(y.iter()).all(|(p, q)| constants_equal(p, q))
        }
        (Constant::None, Constant::None) | (Constant::Ellipsis, Constant::Ellipsis) => true,
        // An int and a float compare as floats: exact for the ints a literal writes
        // below 2**53.
        _ => matches!((number(a), number(b)), (Some(x), Some(y)) if x == y),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ints(items: &[i64]) -> Vec<Constant> {
        items.iter().map(|&i| Constant::Int(i)).collect()
    }

    /// Colliding hashes: the order the table gives, not the source's (CPython:
    /// `list(frozenset([64, 32, 16, 8, 4, 2, 1]))` is `[64, 32, 2, 1, 4, 8, 16]`).
    #[test]
    fn the_order_is_the_tables() {
        let order = frozenset_order(&ints(&[64, 32, 16, 8, 4, 2, 1]));
        assert_eq!(order, ints(&[64, 32, 2, 1, 4, 8, 16]));
    }

    /// Equal constants of different types are one item, the first.
    #[test]
    fn the_first_of_equal_items_stays() {
        let items = [Constant::Int(1), Constant::Float(1.0), Constant::Bool(true)];
        assert_eq!(frozenset_order(&items), [Constant::Int(1)]);
    }
}
