//! The dunder methods CPython's built-in types expose as slot wrappers: `list.__len__`,
//! `int.__add__`, `str.__iter__`, `dict.__setitem__`, …. Each runs the VM's own operation
//! on the built-in value, so `hasattr([], '__iter__')`, `int.__add__(1, 2)` and
//! `super().__getitem__(i)` in a subclass of list work as in CPython. The VM's operators
//! never call these: they act on the values directly (`vm/ops.rs`, `vm/containers.rs`), and
//! an instance of a subclass reaches them through the value it extends
//! ([`Vm::base_value`]), which a wrapper found on the class does not hide (it is not a
//! Python function). Mirrors the `slotdefs` table of `Objects/typeobject.c`: a wrapper of a
//! binary operator answers `NotImplemented` for an operand its type does not handle
//! (`int.__add__(1, 2.5)`), a sequence's concatenation raises as the operator does.
//! [`init`] puts them on the types where a type's own table has not put a method of that
//! name already.

use std::rc::Rc;

use super::functions::{builtin_abs, builtin_divmod, builtin_pow, builtin_round};
use super::math::{math_ceil, math_floor, math_trunc};
use crate::compile::bytecode::{BinaryOperator, CompareOperator};
use crate::vm::dict::StrKeys;
use crate::vm::object::{KwArgs, NativeFn, PyType};
use crate::vm::ops::{builtin_value, from_int, to_int};
use crate::vm::value::Value;
use crate::vm::{PyResult, Vm};

/// The built-in type a wrapper belongs to, and so what it accepts as its other operand.
#[derive(Clone, Copy)]
enum Kind {
    Int,
    Float,
    Complex,
    Str,
    List,
    Tuple,
    Dict,
    Set,
    FrozenSet,
    Range,
    None,
    DictKeys,
    DictValues,
    DictItems,
}

impl Kind {
    fn owner(self, vm: &Vm) -> Rc<PyType> {
        let t = &vm.types;
        match self {
            Kind::Int => t.int.clone(),
            Kind::Float => t.float.clone(),
            Kind::Complex => t.complex.clone(),
            Kind::Str => t.str.clone(),
            Kind::List => t.list.clone(),
            Kind::Tuple => t.tuple.clone(),
            Kind::Dict => t.dict.clone(),
            Kind::Set => t.set.clone(),
            Kind::FrozenSet => t.frozenset.clone(),
            Kind::Range => t.range.clone(),
            Kind::None => t.none.clone(),
            Kind::DictKeys => t.dict_keys.clone(),
            Kind::DictValues => t.dict_values.clone(),
            Kind::DictItems => t.dict_items.clone(),
        }
    }

    /// The other operand as this type's operation takes it (the built-in value of an
    /// instance of a subclass), or None when the operation is not this type's to do.
    fn accept(self, vm: &Vm, other: &Value) -> Option<Value> {
        let t = &vm.types;
        let ty = vm.type_of(other);
        let takes = match self {
            Kind::Int => ty.is_subtype(&t.int),
            Kind::Float => ty.is_subtype(&t.int) || ty.is_subtype(&t.float),
            Kind::Complex => [&t.int, &t.float, &t.complex]
                .iter()
                .any(|number| ty.is_subtype(number)),
            Kind::Set | Kind::FrozenSet => ty.is_subtype(&t.set) || ty.is_subtype(&t.frozenset),
            // A view's set operators take any iterable (`_PyDictView_Intersect`, …).
            Kind::DictKeys | Kind::DictItems => true,
            _ => ty.is_subtype(&self.owner(vm)),
        };
        takes.then(|| plain(other))
    }
}

/// What a wrapper does with its instance (`this`) and arguments.
#[derive(Clone, Copy)]
enum How {
    Len,
    Iter,
    Reversed,
    GetItem,
    SetItem,
    DelItem,
    Contains,
    Bool,
    /// `-`, `+` or `~`.
    Unary(&'static str),
    /// A built-in function of the instance (and the optional argument): `abs`, `round`,
    /// `math.trunc`, ….
    Call(NativeFn, usize),
    /// `__int__`/`__index__`: the plain int.
    Int,
    /// `__float__`.
    Float,
    /// `this op other`, `NotImplemented` for an operand the type does not take.
    Binary(BinaryOperator),
    /// `other op this`.
    Reflected(BinaryOperator),
    /// A sequence's `+`/`*`: `this op other`, raising as the operator does.
    Sequence(BinaryOperator),
    /// `other * this` for a sequence.
    SequenceReflected(BinaryOperator),
    Divmod,
    RDivmod,
    Pow,
    RPow,
    Compare(CompareOperator),
    /// A dict view's comparison: `NotImplemented` unless the other is a set or a set-like
    /// view (`dictview_richcompare`).
    ViewCompare(CompareOperator),
    /// `repr(this)`.
    Repr,
}

impl How {
    /// How many arguments after the instance: at least, at most.
    fn arity(self) -> (usize, usize) {
        match self {
            How::Len | How::Iter | How::Reversed | How::Bool | How::Unary(_) | How::Repr => (0, 0),
            How::Int | How::Float => (0, 0),
            How::Call(_, optional) => (0, optional),
            How::SetItem => (2, 2),
            How::Pow | How::RPow => (1, 2),
            _ => (1, 1),
        }
    }
}

/// The built-in value `v` stands for: itself, or what an instance of a subclass extends.
fn plain(v: &Value) -> Value {
    builtin_value(v).unwrap_or_else(|| v.clone())
}

/// CPython's words for a wrapper given `given` arguments it does not take: a slot
/// wrapper's, the ternary ones' (which name no function), or a method's (`__round__`,
/// `__trunc__`, `__floor__` and `__ceil__` are methods there, not wrappers).
fn arity_message(name: &str, how: How, kind: Kind, given: usize) -> String {
    let (min, max) = how.arity();
    let s = |n: usize| if n == 1 { "" } else { "s" };
    match how {
        How::Call(_, 0) if name != "__abs__" => {
            let owner = if matches!(kind, Kind::Float) {
                "float"
            } else {
                "int"
            };
            format!("{owner}.{name}() takes no arguments ({given} given)")
        }
        _ if min == max => format!("expected {min} argument{}, got {given}", s(min)),
        _ => {
            let label = if matches!(how, How::Pow | How::RPow) {
                ""
            } else {
                name
            };
            let (bound, n) = if given < min {
                ("least", min)
            } else {
                ("most", max)
            };
            format!(
                "{label} expected at {bound} {n} argument{}, got {given}",
                s(n)
            )
        }
    }
}

/// Runs the wrapper `name` of `kind`'s type, doing `how`.
fn run(
    vm: &mut Vm,
    args: &[Value],
    kw: &KwArgs,
    kind: Kind,
    name: &str,
    how: How,
) -> PyResult<Value> {
    let owner = kind.owner(vm);
    let Some(receiver) = args.first() else {
        return Err(vm.type_error(format!(
            "descriptor '{name}' of '{}' object needs an argument",
            owner.name()
        )));
    };
    let this = plain(receiver);
    // (An instance of a subclass that holds no built-in value has nothing to act on; one
    // of the VM's own subclasses, an `odict_keys`, is the built-in value.)
    let stands_for_owner = match &this {
        Value::Object(o) => Rc::ptr_eq(&o.class, &owner) || o.class.builtin,
        v => vm.type_of(v).is_subtype(&owner),
    };
    if !vm.type_of(receiver).is_subtype(&owner) || !stands_for_owner {
        return Err(vm.type_error(format!(
            "descriptor '{name}' requires a '{}' object but received a '{}'",
            owner.name(),
            vm.type_name(receiver)
        )));
    }
    if !kw.is_empty() {
        return Err(vm.type_error(format!("wrapper {name}() takes no keyword arguments")));
    }
    let rest = &args[1..];
    let (min, max) = how.arity();
    if rest.len() < min || rest.len() > max {
        return Err(vm.type_error(arity_message(name, how, kind, rest.len())));
    }
    let accepted = |vm: &Vm| rest.first().and_then(|other| kind.accept(vm, other));
    Ok(match how {
        How::Len => Value::Int(vm.len(&this)? as i64),
        How::Iter => vm.get_iter(&this)?,
        How::Reversed => {
            let reversed = Value::Type(vm.types.reversed.clone());
            vm.call(&reversed, &[this], &[])?
        }
        How::GetItem => vm.get_item(&this, &rest[0])?,
        How::SetItem => {
            vm.set_item(&this, &rest[0], rest[1].clone())?;
            Value::None
        }
        How::DelItem => {
            vm.del_item(&this, &rest[0])?;
            Value::None
        }
        How::Contains => Value::Bool(vm.contains(&this, &rest[0])?),
        How::Bool => Value::Bool(vm.truthy(&this)?),
        How::Repr => Value::str(vm.builtin_object_repr(&this)?),
        How::ViewCompare(op) => {
            let t = &vm.types;
            let set_like = [&t.set, &t.frozenset, &t.dict_keys, &t.dict_items];
            let other_type = vm.type_of(&rest[0]).clone();
            let takes = set_like.into_iter().any(|ty| other_type.is_subtype(ty));
            match takes {
                true => vm.compare(op, &this, &rest[0])?,
                false => Value::NotImplemented,
            }
        }
        How::Unary(op) => vm.unary_op(op, &this)?,
        How::Call(f, _) => {
            let call_args: Vec<Value> = std::iter::once(this).chain(rest.iter().cloned()).collect();
            f(vm, &call_args, &[])?
        }
        How::Int => match &this {
            Value::Float(_) => math_trunc(vm, &[this], &[])?,
            _ => to_int(&this).map_or(this, from_int),
        },
        How::Float => {
            let float = Value::Type(vm.types.float.clone());
            vm.call(&float, &[this], &[])?
        }
        How::Sequence(op) => {
            if matches!(
                op,
                BinaryOperator::Multiply | BinaryOperator::InplaceMultiply
            ) {
                vm.expect_index(&rest[0])?;
            }
            vm.binary_op(op, &this, &rest[0])?
        }
        How::SequenceReflected(op) => {
            vm.expect_index(&rest[0])?;
            vm.binary_op(op, &rest[0], &this)?
        }
        How::Binary(_)
        | How::Reflected(_)
        | How::Compare(_)
        | How::Divmod
        | How::RDivmod
        | How::Pow
        | How::RPow
            if accepted(vm).is_none() =>
        {
            Value::NotImplemented
        }
        How::Binary(op) => vm.binary_op(op, &this, &accepted(vm).expect("checked"))?,
        How::Reflected(op) => vm.binary_op(op, &accepted(vm).expect("checked"), &this)?,
        How::Compare(op) => vm.compare(op, &this, &accepted(vm).expect("checked"))?,
        How::Divmod => builtin_divmod(vm, &[this, accepted(vm).expect("checked")], &[])?,
        How::RDivmod => builtin_divmod(vm, &[accepted(vm).expect("checked"), this], &[])?,
        How::Pow | How::RPow => {
            let other = accepted(vm).expect("checked");
            let (base, exp) = match how {
                How::Pow => (this, other),
                _ => (other, this),
            };
            match rest.get(1) {
                Some(modulus) if !modulus.is_none() => {
                    builtin_pow(vm, &[base, exp, modulus.clone()], &[])?
                }
                _ => vm.binary_op(BinaryOperator::Power, &base, &exp)?,
            }
        }
    })
}

/// A table of wrappers for one type: `name => how`, each made a [`NativeFn`] of its own.
macro_rules! wrappers {
    ($kind:ident: $($name:literal => $how:expr),* $(,)?) => {
        &[$(($name, {
            fn wrapper(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
                run(vm, args, kw, Kind::$kind, $name, $how)
            }
            wrapper as NativeFn
        })),*]
    };
}

/// `__add__`/`__radd__` and the rest of a number's binary operators, for `$kind`.
macro_rules! number_wrappers {
    ($kind:ident: $($name:literal $rname:literal => $op:ident),* ; $($more:tt)*) => {
        wrappers!($kind:
            $($name => How::Binary(BinaryOperator::$op), $rname => How::Reflected(BinaryOperator::$op),)*
            "__divmod__" => How::Divmod, "__rdivmod__" => How::RDivmod,
            "__pow__" => How::Pow, "__rpow__" => How::RPow,
            "__lt__" => How::Compare(CompareOperator::Lt), "__le__" => How::Compare(CompareOperator::Le),
            "__gt__" => How::Compare(CompareOperator::Gt), "__ge__" => How::Compare(CompareOperator::Ge),
            "__neg__" => How::Unary("-"), "__pos__" => How::Unary("+"),
            "__abs__" => How::Call(builtin_abs, 0), "__bool__" => How::Bool,
            "__int__" => How::Int, "__float__" => How::Float,
            "__trunc__" => How::Call(math_trunc, 0), "__floor__" => How::Call(math_floor, 0),
            "__ceil__" => How::Call(math_ceil, 0), "__round__" => How::Call(builtin_round, 1),
            $($more)*
        )
    };
}

const INT: &[(&str, NativeFn)] = number_wrappers!(Int:
    "__add__" "__radd__" => Add, "__sub__" "__rsub__" => Subtract,
    "__mul__" "__rmul__" => Multiply, "__truediv__" "__rtruediv__" => TrueDivide,
    "__floordiv__" "__rfloordiv__" => FloorDivide, "__mod__" "__rmod__" => Remainder,
    "__lshift__" "__rlshift__" => Lshift, "__rshift__" "__rrshift__" => Rshift,
    "__and__" "__rand__" => And, "__or__" "__ror__" => Or, "__xor__" "__rxor__" => Xor;
    "__invert__" => How::Unary("~"), "__index__" => How::Int,
);

const FLOAT: &[(&str, NativeFn)] = number_wrappers!(Float:
    "__add__" "__radd__" => Add, "__sub__" "__rsub__" => Subtract,
    "__mul__" "__rmul__" => Multiply, "__truediv__" "__rtruediv__" => TrueDivide,
    "__floordiv__" "__rfloordiv__" => FloorDivide, "__mod__" "__rmod__" => Remainder;
);

/// complex's: its arithmetic (no `//`, `%`, `divmod`, orderings or conversions to real).
const COMPLEX: &[(&str, NativeFn)] = wrappers!(Complex:
    "__add__" => How::Binary(BinaryOperator::Add), "__radd__" => How::Reflected(BinaryOperator::Add),
    "__sub__" => How::Binary(BinaryOperator::Subtract),
    "__rsub__" => How::Reflected(BinaryOperator::Subtract),
    "__mul__" => How::Binary(BinaryOperator::Multiply),
    "__rmul__" => How::Reflected(BinaryOperator::Multiply),
    "__truediv__" => How::Binary(BinaryOperator::TrueDivide),
    "__rtruediv__" => How::Reflected(BinaryOperator::TrueDivide),
    "__pow__" => How::Pow, "__rpow__" => How::RPow,
    "__neg__" => How::Unary("-"), "__pos__" => How::Unary("+"),
    "__abs__" => How::Call(builtin_abs, 0), "__bool__" => How::Bool,
);

/// A sequence's wrappers (str, list, tuple); `$($more)*` adds a list's own.
macro_rules! sequence_wrappers {
    ($kind:ident; $($more:tt)*) => {
        wrappers!($kind:
            "__len__" => How::Len, "__iter__" => How::Iter, "__getitem__" => How::GetItem,
            "__contains__" => How::Contains,
            "__add__" => How::Sequence(BinaryOperator::Add),
            "__mul__" => How::Sequence(BinaryOperator::Multiply),
            "__rmul__" => How::SequenceReflected(BinaryOperator::Multiply),
            "__lt__" => How::Compare(CompareOperator::Lt), "__le__" => How::Compare(CompareOperator::Le),
            "__gt__" => How::Compare(CompareOperator::Gt), "__ge__" => How::Compare(CompareOperator::Ge),
            $($more)*
        )
    };
}

const STR: &[(&str, NativeFn)] = sequence_wrappers!(Str;);

const LIST: &[(&str, NativeFn)] = sequence_wrappers!(List;
    "__reversed__" => How::Reversed, "__setitem__" => How::SetItem,
    "__delitem__" => How::DelItem,
    "__iadd__" => How::Sequence(BinaryOperator::InplaceAdd),
    "__imul__" => How::Sequence(BinaryOperator::InplaceMultiply),
);

const TUPLE: &[(&str, NativeFn)] = sequence_wrappers!(Tuple;);

const DICT: &[(&str, NativeFn)] = wrappers!(Dict:
    "__len__" => How::Len, "__iter__" => How::Iter, "__reversed__" => How::Reversed,
    "__getitem__" => How::GetItem, "__setitem__" => How::SetItem, "__delitem__" => How::DelItem,
    "__contains__" => How::Contains,
    "__or__" => How::Binary(BinaryOperator::Or), "__ror__" => How::Reflected(BinaryOperator::Or),
    "__ior__" => How::Sequence(BinaryOperator::InplaceOr),
);

/// A set's (and a frozenset's) wrappers; `$($more)*` adds the in-place ones of a set.
macro_rules! set_wrappers {
    ($kind:ident; $($more:tt)*) => {
        wrappers!($kind:
            "__len__" => How::Len, "__iter__" => How::Iter, "__contains__" => How::Contains,
            "__or__" => How::Binary(BinaryOperator::Or), "__ror__" => How::Reflected(BinaryOperator::Or),
            "__and__" => How::Binary(BinaryOperator::And), "__rand__" => How::Reflected(BinaryOperator::And),
            "__sub__" => How::Binary(BinaryOperator::Subtract),
            "__rsub__" => How::Reflected(BinaryOperator::Subtract),
            "__xor__" => How::Binary(BinaryOperator::Xor), "__rxor__" => How::Reflected(BinaryOperator::Xor),
            "__lt__" => How::Compare(CompareOperator::Lt), "__le__" => How::Compare(CompareOperator::Le),
            "__gt__" => How::Compare(CompareOperator::Gt), "__ge__" => How::Compare(CompareOperator::Ge),
            $($more)*
        )
    };
}

const SET: &[(&str, NativeFn)] = set_wrappers!(Set;
    "__ior__" => How::Binary(BinaryOperator::InplaceOr),
    "__iand__" => How::Binary(BinaryOperator::InplaceAnd),
    "__isub__" => How::Binary(BinaryOperator::InplaceSubtract),
    "__ixor__" => How::Binary(BinaryOperator::InplaceXor),
);

const FROZENSET: &[(&str, NativeFn)] = set_wrappers!(FrozenSet;);

const RANGE: &[(&str, NativeFn)] = wrappers!(Range:
    "__len__" => How::Len, "__iter__" => How::Iter, "__reversed__" => How::Reversed,
    "__getitem__" => How::GetItem, "__contains__" => How::Contains, "__bool__" => How::Bool,
);

const NONE: &[(&str, NativeFn)] = wrappers!(None: "__bool__" => How::Bool);

/// A set-like dict view's (`dict_keys`, `dict_items`): a set's operators, with any iterable.
macro_rules! view_wrappers {
    ($kind:ident) => {
        wrappers!($kind:
            "__len__" => How::Len, "__iter__" => How::Iter, "__contains__" => How::Contains,
            "__repr__" => How::Repr,
            "__or__" => How::Binary(BinaryOperator::Or), "__ror__" => How::Reflected(BinaryOperator::Or),
            "__and__" => How::Binary(BinaryOperator::And), "__rand__" => How::Reflected(BinaryOperator::And),
            "__sub__" => How::Binary(BinaryOperator::Subtract),
            "__rsub__" => How::Reflected(BinaryOperator::Subtract),
            "__xor__" => How::Binary(BinaryOperator::Xor), "__rxor__" => How::Reflected(BinaryOperator::Xor),
            "__eq__" => How::ViewCompare(CompareOperator::Eq), "__ne__" => How::ViewCompare(CompareOperator::Ne),
            "__lt__" => How::ViewCompare(CompareOperator::Lt), "__le__" => How::ViewCompare(CompareOperator::Le),
            "__gt__" => How::ViewCompare(CompareOperator::Gt), "__ge__" => How::ViewCompare(CompareOperator::Ge),
        )
    };
}

const DICT_KEYS: &[(&str, NativeFn)] = view_wrappers!(DictKeys);

const DICT_ITEMS: &[(&str, NativeFn)] = view_wrappers!(DictItems);

const DICT_VALUES: &[(&str, NativeFn)] = wrappers!(DictValues:
    "__len__" => How::Len, "__iter__" => How::Iter, "__repr__" => How::Repr,
);

/// Puts complex's wrappers on it, with its other methods on its first use
/// (`complex_type.rs`).
pub fn install_complex(vm: &mut Vm) {
    install(vm, Kind::Complex, COMPLEX);
}

/// Puts a type's wrappers on it, where its own table has no method of that name: as
/// `wrapper_descriptor`s, but for those CPython's types define as methods
/// (`list.__reversed__`, `int.__round__`, `list.__getitem__`, `set.__contains__`).
fn install(vm: &mut Vm, kind: Kind, table: &[(&'static str, NativeFn)]) {
    let ty = kind.owner(vm);
    for &(name, wrapper) in table {
        let key = vm.intern(name);
        if ty.dict.borrow().get_str(&key).is_some() {
            continue;
        }
        let method = matches!(
            (kind, name),
            (
                _,
                "__reversed__" | "__round__" | "__trunc__" | "__floor__" | "__ceil__"
            ) | (Kind::List, "__getitem__")
                | (Kind::Set | Kind::FrozenSet, "__contains__")
        );
        match method {
            true => vm.add_method(&ty, name, wrapper),
            false => vm.add_slot_wrapper(&ty, name, wrapper),
        }
    }
}

/// Puts each type's wrappers on it (complex's wait for its first use).
pub fn init(vm: &mut Vm) {
    let tables = [
        (Kind::Int, INT),
        (Kind::Float, FLOAT),
        (Kind::Str, STR),
        (Kind::List, LIST),
        (Kind::Tuple, TUPLE),
        (Kind::Dict, DICT),
        (Kind::Set, SET),
        (Kind::FrozenSet, FROZENSET),
        (Kind::Range, RANGE),
        (Kind::None, NONE),
        (Kind::DictKeys, DICT_KEYS),
        (Kind::DictValues, DICT_VALUES),
        (Kind::DictItems, DICT_ITEMS),
    ];
    for (kind, table) in tables {
        install(vm, kind, table);
    }
    // An OrderedDict's views have an `__iter__` of their own (`odictobject.c`).
    let t = &vm.types;
    let odict_views = [
        (t.odict_keys.clone(), DICT_KEYS),
        (t.odict_values.clone(), DICT_VALUES),
        (t.odict_items.clone(), DICT_ITEMS),
    ];
    for (ty, table) in odict_views {
        if let Some(&(name, iter)) = table.iter().find(|(name, _)| *name == "__iter__") {
            vm.add_slot_wrapper(&ty, name, iter);
        }
    }
}
