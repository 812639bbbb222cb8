//! The disassembler: a [`Code`] in, text laid out like `python3.13 -m dis` out.
//!
//! Mirrors `Lib/dis.py` (3.13): a line-number column, `L1:` labels for jump and handler
//! targets, opnames in CPython's spelling, the numeric argument and its meaning in
//! parentheses, then `ExceptionTable:`; nested code objects follow, depth first. Code
//! objects are shown without an address so the output is stable. Knows nothing of the VM.

use std::collections::BTreeSet;
use std::fmt::Write;

use super::bytecode::{Code, Constant, Instr};

const OPNAME_WIDTH: usize = 20;
const OPARG_WIDTH: usize = 5;

/// Disassemble `code` and every code object among its constants.
pub fn disassemble(code: &Code) -> String {
    let mut out = String::new();
    disassemble_one(code, &mut out);
    for c in &code.constants {
        if let Constant::Code(inner) = c {
            let _ = write!(out, "\nDisassembly of {}:\n", code_repr(inner));
            out.push_str(&disassemble(inner));
        }
    }
    out
}

fn disassemble_one(code: &Code, out: &mut String) {
    let mut targets = BTreeSet::new();
    for instr in &code.instructions {
        if let Some(t) = instr.jump_target() {
            targets.insert(t);
        }
    }
    for e in &code.exception_table {
        targets.extend([e.start, e.end, e.target]);
    }
    let labels: Vec<u32> = targets.into_iter().collect();
    let label_of = |i: u32| labels.binary_search(&i).ok().map(|k| k + 1);
    let label_width = 4 + labels.len().to_string().len();
    let max_line = code.locations.iter().map(|l| l.line).max().unwrap_or(0);
    let line_width = max_line.to_string().len().max(3);

    let mut prev_line = None;
    for (i, instr) in code.instructions.iter().enumerate() {
        let line = code.locations.get(i).map(|l| l.line);
        let starts_line = line != prev_line;
        prev_line = line;
        if starts_line && i > 0 {
            out.push('\n');
        }
        let mut fields: Vec<String> = Vec::new();
        fields.push(match (starts_line, line) {
            (true, Some(l)) => format!("{l:>line_width$}"),
            _ => " ".repeat(line_width),
        });
        fields.push(match label_of(i as u32) {
            Some(k) => format!("{:>label_width$}", format!("L{k}:")),
            None => " ".repeat(label_width),
        });
        fields.push("   ".to_string());
        let name = opname(instr, i as u32);
        fields.push(format!("{name:<OPNAME_WIDTH$}"));
        if let Some(arg) = oparg(instr) {
            let excess = name.len().saturating_sub(OPNAME_WIDTH);
            fields.push(format!(
                "{:>w$}",
                arg,
                w = OPARG_WIDTH.saturating_sub(excess)
            ));
            if let Some(detail) = argrepr(code, instr, &label_of) {
                fields.push(format!("({detail})"));
            }
        }
        out.push_str(fields.join(" ").trim_end());
        out.push('\n');
    }
    if !code.exception_table.is_empty() {
        out.push_str("ExceptionTable:\n");
        for e in &code.exception_table {
            let l = |i: u32| label_of(i).map_or(String::from("?"), |k| format!("L{k}"));
            let _ = writeln!(
                out,
                "  {} to {} -> {} [{}]{}",
                l(e.start),
                l(e.end),
                l(e.target),
                e.depth,
                if e.push_lasti { " lasti" } else { "" }
            );
        }
    }
}

/// `<code object f, file "x.py", line 3>`: CPython's repr without the address.
pub fn code_repr(code: &Code) -> String {
    format!(
        "<code object {}, file \"{}\", line {}>",
        code.name, code.filename, code.first_line
    )
}

/// CPython's name for the instruction (`LoadFastAndClear` → `LOAD_FAST_AND_CLEAR`).
fn opname(instr: &Instr, index: u32) -> String {
    match instr {
        Instr::Jump(t) if *t <= index => return "JUMP_BACKWARD".into(),
        Instr::Jump(_) => return "JUMP_FORWARD".into(),
        Instr::LoadMethod(_) => return "LOAD_ATTR".into(),
        Instr::LoadSuperMethod(_) => return "LOAD_SUPER_ATTR".into(),
        Instr::CallIntrinsic1(_) => return "CALL_INTRINSIC_1".into(),
        Instr::PrepReraiseStar => return "CALL_INTRINSIC_2".into(),
        _ => {}
    }
    let debug = format!("{instr:?}");
    let camel = debug.split('(').next().unwrap_or("");
    let mut out = String::new();
    for (k, ch) in camel.chars().enumerate() {
        if ch.is_ascii_uppercase() && k > 0 {
            out.push('_');
        }
        out.push(ch.to_ascii_uppercase());
    }
    out
}

fn oparg(instr: &Instr) -> Option<u32> {
    use Instr::*;
    Some(match *instr {
        Copy(n)
        | Swap(n)
        | LoadConst(n)
        | LoadFast(n)
        | LoadFastAndClear(n)
        | StoreFast(n)
        | DeleteFast(n)
        | LoadName(n)
        | StoreName(n)
        | DeleteName(n)
        | LoadGlobal(n)
        | StoreGlobal(n)
        | DeleteGlobal(n)
        | LoadDeref(n)
        | StoreDeref(n)
        | DeleteDeref(n)
        | LoadClosure(n)
        | LoadFromDictOrDeref(n)
        | LoadAttr(n)
        | LoadMethod(n)
        | StoreAttr(n)
        | DeleteAttr(n)
        | LoadSuperAttr(n)
        | LoadSuperMethod(n)
        | BuildSlice(n)
        | IsOp(n)
        | ContainsOp(n)
        | BuildTuple(n)
        | BuildList(n)
        | BuildSet(n)
        | BuildMap(n)
        | BuildString(n)
        | ListAppend(n)
        | SetAdd(n)
        | MapAdd(n)
        | ListExtend(n)
        | SetUpdate(n)
        | DictUpdate(n)
        | DictMerge(n)
        | UnpackSequence(n)
        | UnpackEx(n)
        | ConvertValue(n)
        | Jump(n)
        | PopJumpIfFalse(n)
        | PopJumpIfTrue(n)
        | PopJumpIfNone(n)
        | PopJumpIfNotNone(n)
        | ForIter(n)
        | ReturnConst(n)
        | SetFunctionAttribute(n)
        | Call(n)
        | CallKw(n)
        | CallFunctionEx(n)
        | RaiseVarargs(n)
        | Reraise(n)
        | YieldValue(n)
        | Send(n)
        | GetAwaitable(n)
        | ImportName(n)
        | ImportFrom(n) => n,
        BinaryOp(op) => op as u32,
        CompareOp(op) => op as u32,
        // CPython numbers intrinsics from 1 (0 is INTRINSIC_1_INVALID).
        CallIntrinsic1(f) => f as u32 + 1,
        PrepReraiseStar => 1,
        _ => return None,
    })
}

fn argrepr(code: &Code, instr: &Instr, label_of: &dyn Fn(u32) -> Option<usize>) -> Option<String> {
    use Instr::*;
    let name = |i: u32| code.names.get(i as usize).map(|s| s.to_string());
    let var = |i: u32| code.varnames.get(i as usize).map(|s| s.to_string());
    let cell = |i: u32| {
        code.cellvars
            .iter()
            .chain(&code.freevars)
            .nth(i as usize)
            .map(|s| s.to_string())
    };
    match *instr {
        LoadConst(i) | ReturnConst(i) => code.constants.get(i as usize).map(constant_repr),
        LoadFast(i) | LoadFastAndClear(i) | StoreFast(i) | DeleteFast(i) => var(i),
        LoadName(i) | StoreName(i) | DeleteName(i) | LoadGlobal(i) | StoreGlobal(i)
        | DeleteGlobal(i) | LoadAttr(i) | StoreAttr(i) | DeleteAttr(i) | LoadSuperAttr(i)
        | ImportName(i) | ImportFrom(i) => name(i),
        LoadMethod(i) | LoadSuperMethod(i) => name(i).map(|n| format!("{n} + NULL|self")),
        LoadDeref(i) | StoreDeref(i) | DeleteDeref(i) | LoadClosure(i) | LoadFromDictOrDeref(i) => {
            cell(i)
        }
        Jump(t) | PopJumpIfFalse(t) | PopJumpIfTrue(t) | PopJumpIfNone(t) | PopJumpIfNotNone(t)
        | ForIter(t) | Send(t) => label_of(t).map(|k| format!("to L{k}")),
        BinaryOp(op) => Some(op.symbol().to_string()),
        CompareOp(op) => Some(op.symbol().to_string()),
        IsOp(n) => Some(if n == 0 { "is" } else { "is not" }.to_string()),
        ContainsOp(n) => Some(if n == 0 { "in" } else { "not in" }.to_string()),
        CallIntrinsic1(f) => Some(f.name().to_string()),
        PrepReraiseStar => Some("INTRINSIC_PREP_RERAISE_STAR".to_string()),
        ConvertValue(n) => Some(
            match n {
                1 => "str",
                2 => "repr",
                _ => "ascii",
            }
            .to_string(),
        ),
        SetFunctionAttribute(flag) => Some(
            match flag {
                0x01 => "defaults",
                0x02 => "kwdefaults",
                0x04 => "annotations",
                _ => "closure",
            }
            .to_string(),
        ),
        _ => None,
    }
}

/// A constant as Python's `repr` shows it.
pub fn constant_repr(c: &Constant) -> String {
    match c {
        Constant::None => "None".into(),
        Constant::Bool(true) => "True".into(),
        Constant::Bool(false) => "False".into(),
        Constant::Ellipsis => "Ellipsis".into(),
        Constant::Int(i) => i.to_string(),
        Constant::BigInt(i) => i.to_string(),
        Constant::Float(f) => float_repr(*f),
        Constant::Str(s) => str_repr(s),
        Constant::Tuple(items) => {
            let parts: Vec<String> = items.iter().map(constant_repr).collect();
            if parts.len() == 1 {
                format!("({},)", parts[0])
            } else {
                format!("({})", parts.join(", "))
            }
        }
        Constant::Code(code) => code_repr(code),
    }
}

/// Python's `repr(str)`: single quotes unless the text has `'` and no `"`.
pub fn str_repr(s: &str) -> String {
    let quote = if s.contains('\'') && !s.contains('"') {
        '"'
    } else {
        '\''
    };
    let mut out = String::with_capacity(s.len() + 2);
    out.push(quote);
    for ch in s.chars() {
        match ch {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push(quote);
    out
}

/// Python's `repr(float)`: the shortest round-tripping digits, in exponent form when the
/// exponent is below -4 or at least 16.
pub fn float_repr(f: f64) -> String {
    if f.is_nan() {
        return "nan".into();
    }
    if f.is_infinite() {
        return if f > 0.0 { "inf" } else { "-inf" }.into();
    }
    let sci = format!("{f:e}");
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let negative = mantissa.starts_with('-');
    let digits: String = mantissa.chars().filter(|c| c.is_ascii_digit()).collect();
    let sign = if negative { "-" } else { "" };
    if (-4..16).contains(&exp) {
        if exp >= 0 {
            let e = exp as usize;
            let (int, frac) = if digits.len() > e + 1 {
                (digits[..e + 1].to_string(), digits[e + 1..].to_string())
            } else {
                (format!("{digits:0<width$}", width = e + 1), "0".to_string())
            };
            format!("{sign}{int}.{frac}")
        } else {
            let zeros = "0".repeat((-exp - 1) as usize);
            format!("{sign}0.{zeros}{digits}")
        }
    } else {
        let m = if digits.len() > 1 {
            format!("{}.{}", &digits[..1], &digits[1..])
        } else {
            digits.clone()
        };
        let esign = if exp < 0 { '-' } else { '+' };
        format!("{sign}{m}e{esign}{:02}", exp.abs())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn float_reprs_match_python() {
        // Expected values from python3.13: repr(x).
        let cases = [
            (1.0, "1.0"),
            (0.1, "0.1"),
            (-2.5, "-2.5"),
            (1e16, "1e+16"),
            (1e15, "1000000000000000.0"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
            (1.5e-7, "1.5e-07"),
            (123456.789, "123456.789"),
            (f64::INFINITY, "inf"),
            (-0.0, "-0.0"),
            (1.7976931348623157e308, "1.7976931348623157e+308"),
        ];
        for (f, want) in cases {
            assert_eq!(float_repr(f), want, "{f}");
        }
    }

    #[test]
    fn str_reprs_match_python() {
        assert_eq!(str_repr("a"), "'a'");
        assert_eq!(str_repr("it's"), "\"it's\"");
        assert_eq!(str_repr("'\""), "'\\'\"'");
        assert_eq!(str_repr("a\nb\\"), "'a\\nb\\\\'");
        assert_eq!(str_repr("\x01é"), "'\\x01é'");
    }
}
