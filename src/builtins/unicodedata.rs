//! `unicodedata`, native as CPython's `Modules/unicodedata.c`, over the database in
//! `common::unicode_data` (Unicode 15.1.0, CPython 3.13's): `lookup`, `name`, `decimal`,
//! `digit`, `numeric`, `category`, `bidirectional`, `combining`, `east_asian_width`,
//! `mirrored`, `decomposition`, `normalize`, `is_normalized` and `unidata_version`. Not
//! here: `ucd_3_2_0` and the `UCD` class (Unicode 3.2, for the idna codec).

use super::bytes_type::buffer_arg;
use crate::common::unicode_data::{Numeric, ucd};
use crate::vm::args::{check_arity, check_kwargs};
use crate::vm::object::{KwArgs, NativeFn};
use crate::vm::value::Value;
use crate::vm::{PyResult, Vm};

pub fn module(vm: &mut Vm) -> Value {
    let functions: [(&'static str, NativeFn); 13] = [
        ("lookup", lookup),
        ("name", name),
        ("decimal", |vm, args, kw| {
            numeric_value(vm, "decimal", args, kw)
        }),
        ("digit", |vm, args, kw| numeric_value(vm, "digit", args, kw)),
        ("numeric", |vm, args, kw| {
            numeric_value(vm, "numeric", args, kw)
        }),
        ("category", |vm, args, kw| {
            let c = one_char(vm, "category", args, kw)?;
            Ok(Value::str(ucd().category(c)))
        }),
        ("bidirectional", |vm, args, kw| {
            let c = one_char(vm, "bidirectional", args, kw)?;
            Ok(Value::str(ucd().bidirectional(c)))
        }),
        ("combining", |vm, args, kw| {
            let c = one_char(vm, "combining", args, kw)?;
            Ok(Value::Int(ucd().combining(c).into()))
        }),
        ("east_asian_width", |vm, args, kw| {
            let c = one_char(vm, "east_asian_width", args, kw)?;
            Ok(Value::str(ucd().east_asian_width(c)))
        }),
        ("mirrored", |vm, args, kw| {
            let c = one_char(vm, "mirrored", args, kw)?;
            Ok(Value::Int(i64::from(ucd().mirrored(c))))
        }),
        ("decomposition", |vm, args, kw| {
            let c = one_char(vm, "decomposition", args, kw)?;
            Ok(Value::str(ucd().decomposition(c)))
        }),
        ("normalize", |vm, args, kw| {
            let (form, text) = form_and_text(vm, "normalize", args, kw)?;
            let normal = normal_form(vm, &form, &text)?;
            // The same str back when nothing changed, as CPython's quick check gives it.
            Ok(match normal == text.as_str() {
                true => args[1].clone(),
                false => Value::str(normal),
            })
        }),
        ("is_normalized", |vm, args, kw| {
            let (form, text) = form_and_text(vm, "is_normalized", args, kw)?;
            let normal = normal_form(vm, &form, &text)?;
            Ok(Value::Bool(normal == text.as_str()))
        }),
    ];
    let mut attrs: Vec<(&str, Value)> = functions
        .into_iter()
        .map(|(name, f)| (name, vm.native(name, f)))
        .collect();
    attrs.push(("unidata_version", Value::str(ucd().version)));
    vm.new_module("unicodedata", attrs)
}

/// The one character argument of `unicodedata.NAME(chr, /)`.
fn one_char(vm: &mut Vm, fname: &str, args: &[Value], kw: &KwArgs) -> PyResult<char> {
    let qualified = format!("unicodedata.{fname}");
    check_kwargs(vm, &qualified, kw, &[])?;
    check_arity(vm, &qualified, args, 1, 1)?;
    char_arg(vm, fname, &args[0])
}

/// A str of exactly one character, as `unicodedata`'s functions take.
fn char_arg(vm: &Vm, fname: &str, v: &Value) -> PyResult<char> {
    if let Value::Str(s) = v {
        let mut chars = s.as_str().chars();
        if let (Some(c), None) = (chars.next(), chars.next()) {
            return Ok(c);
        }
    }
    Err(vm.type_error(format!(
        "{fname}() argument must be a unicode character, not {}",
        vm.type_name(v)
    )))
}

/// `lookup(name, /)`: the character (or named sequence) called `name`.
fn lookup(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    check_kwargs(vm, "unicodedata.lookup", kw, &[])?;
    check_arity(vm, "unicodedata.lookup", args, 1, 1)?;
    let name = match &args[0] {
        Value::Str(s) => s.as_str().to_string(),
        other => String::from_utf8_lossy(&buffer_arg(vm, other)?).into_owned(),
    };
    // CPython's longest name buffer (`NAME_MAXLEN`).
    if name.len() > 256 {
        return Err(vm.key_error(Value::str("name too long")));
    }
    match ucd().lookup(&name) {
        Some(text) => Ok(Value::str(text)),
        None => {
            let message = format!("undefined character name '{name}'");
            Err(vm.key_error(Value::str(message)))
        }
    }
}

/// `name(chr, default=<none>, /)`.
fn name(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    check_kwargs(vm, "unicodedata.name", kw, &[])?;
    check_arity(vm, "name", args, 1, 2)?;
    let c = char_arg(vm, "name", &args[0])?;
    match (ucd().name(c), args.get(1)) {
        (Some(name), _) => Ok(Value::str(name)),
        (None, Some(default)) => Ok(default.clone()),
        (None, None) => Err(vm.value_error("no such name")),
    }
}

/// `decimal`, `digit` and `numeric` (`chr, default=<none>, /`).
fn numeric_value(vm: &mut Vm, fname: &str, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    check_kwargs(vm, &format!("unicodedata.{fname}"), kw, &[])?;
    check_arity(vm, fname, args, 1, 2)?;
    let c = char_arg(vm, fname, &args[0])?;
    let values = ucd().numeric(c);
    let (value, missing) = match fname {
        "decimal" => (int_value(values, |n| n.decimal), "not a decimal"),
        "digit" => (int_value(values, |n| n.digit), "not a digit"),
        _ => (
            values.map(|n| Value::Float(n.numeric)),
            "not a numeric character",
        ),
    };
    match (value, args.get(1)) {
        (Some(value), _) => Ok(value),
        (None, Some(default)) => Ok(default.clone()),
        (None, None) => Err(vm.value_error(missing)),
    }
}

fn int_value(values: Option<Numeric>, which: fn(&Numeric) -> i8) -> Option<Value> {
    let n = which(&values?);
    (n >= 0).then(|| Value::Int(i64::from(n)))
}

/// The `(form, unistr, /)` arguments of `normalize` and `is_normalized`.
fn form_and_text(
    vm: &mut Vm,
    fname: &str,
    args: &[Value],
    kw: &KwArgs,
) -> PyResult<(String, String)> {
    check_kwargs(vm, &format!("unicodedata.{fname}"), kw, &[])?;
    check_arity(vm, fname, args, 2, 2)?;
    let text_of = |vm: &Vm, at: usize| match &args[at] {
        Value::Str(s) => Ok(s.as_str().to_string()),
        other => Err(vm.type_error(format!(
            "{fname}() argument {} must be str, not {}",
            at + 1,
            vm.type_name(other)
        ))),
    };
    Ok((text_of(vm, 0)?, text_of(vm, 1)?))
}

fn normal_form(vm: &Vm, form: &str, text: &str) -> PyResult<String> {
    ucd()
        .normalize(form, text)
        .ok_or_else(|| vm.value_error("invalid normalization form"))
}
