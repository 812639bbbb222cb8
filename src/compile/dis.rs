//! The disassembler: a [`Code`] in, text laid out like `python3.13 -m dis` out.
//!
//! Mirrors `Lib/dis.py` (3.13): a line-number column, `L1:` labels for jump and handler
//! targets, opnames in CPython's spelling, the numeric argument and its meaning in
//! parentheses, then `ExceptionTable:`; nested code objects follow, depth first, each under
//! CPython's `Disassembly of <code object f at 0x…, file "x.py", line 3>:` heading. Instead of
//! a memory address each code object gets its position in that listing (the module is
//! `0x0000`, the first nested one `0x0001`, …), so the output is stable. Knows nothing of the
//! VM; constants are shown with the same pure `repr` helpers the built-in types use.

use std::collections::BTreeSet;
use std::fmt::Write;
use std::rc::Rc;

use super::bytecode::{Code, CompareOperator, Constant, Instr};
use super::constant_set::frozenset_order;
use crate::common::chars::{bytes_repr, str_repr};
use crate::common::complex_ops::{Complex, complex_repr};
use crate::common::float_repr::float_repr;

/// The first line `apy --dis` prints: the listing is apy's bytecode, which differs from
/// CPython's on purpose in places the book's chapter "Reading the machinery" lists.
pub const HEADER: &str = "# apy bytecode in python3.13 -m dis layout; where the instruction set differs on purpose: book, \"Reading the machinery\"";

/// Every opname `--dis` shows, in alphabetical order: `dis.opname`, whose positions are
/// apy's opcode numbers (not CPython's).
pub const OPNAMES: &[&str] = &[
    "BEFORE_ASYNC_WITH",
    "BEFORE_WITH",
    "BINARY_OP",
    "BINARY_SLICE",
    "BINARY_SUBSCR",
    "BUILD_LIST",
    "BUILD_MAP",
    "BUILD_SET",
    "BUILD_SLICE",
    "BUILD_STRING",
    "BUILD_TUPLE",
    "CALL",
    "CALL_FUNCTION_EX",
    "CALL_INTRINSIC_1",
    "CALL_INTRINSIC_2",
    "CALL_KW",
    "CHECK_EG_MATCH",
    "CHECK_EXC_MATCH",
    "CLEANUP_THROW",
    "COMPARE_OP",
    "CONTAINS_OP",
    "CONVERT_VALUE",
    "COPY",
    "DELETE_ATTR",
    "DELETE_DEREF",
    "DELETE_FAST",
    "DELETE_GLOBAL",
    "DELETE_NAME",
    "DELETE_SUBSCR",
    "DICT_MERGE",
    "DICT_UPDATE",
    "END_ASYNC_FOR",
    "END_SEND",
    "FORMAT_SIMPLE",
    "FORMAT_WITH_SPEC",
    "FOR_ITER",
    "GET_AITER",
    "GET_ANEXT",
    "GET_AWAITABLE",
    "GET_ITER",
    "GET_LEN",
    "GET_YIELD_FROM_ITER",
    "IMPORT_FROM",
    "IMPORT_NAME",
    "IS_OP",
    "JUMP_BACKWARD",
    "JUMP_BACKWARD_NO_INTERRUPT",
    "JUMP_FORWARD",
    "LIST_APPEND",
    "LIST_EXTEND",
    "LOAD_ASSERTION_ERROR",
    "LOAD_ATTR",
    "LOAD_BUILD_CLASS",
    "LOAD_CONST",
    "LOAD_DEREF",
    "LOAD_FAST",
    "LOAD_FAST_AND_CLEAR",
    "LOAD_FAST_LOAD_FAST",
    "LOAD_FROM_DICT_OR_DEREF",
    "LOAD_GLOBAL",
    "LOAD_LOCALS",
    "LOAD_NAME",
    "LOAD_SUPER_ATTR",
    "MAKE_FUNCTION",
    "MAP_ADD",
    "MATCH_CLASS",
    "MATCH_KEYS",
    "MATCH_MAPPING",
    "MATCH_SEQUENCE",
    "NOP",
    "POP_EXCEPT",
    "POP_JUMP_IF_FALSE",
    "POP_JUMP_IF_NONE",
    "POP_JUMP_IF_NOT_NONE",
    "POP_JUMP_IF_TRUE",
    "POP_TOP",
    "PUSH_EXC_INFO",
    "PUSH_NULL",
    "RAISE_VARARGS",
    "RERAISE",
    "RETURN_CONST",
    "RETURN_VALUE",
    "SEND",
    "SETUP_ANNOTATIONS",
    "SET_ADD",
    "SET_FUNCTION_ATTRIBUTE",
    "SET_UPDATE",
    "STORE_ATTR",
    "STORE_DEREF",
    "STORE_FAST",
    "STORE_FAST_LOAD_FAST",
    "STORE_FAST_STORE_FAST",
    "STORE_GLOBAL",
    "STORE_NAME",
    "STORE_SLICE",
    "STORE_SUBSCR",
    "SWAP",
    "UNARY_INVERT",
    "UNARY_NEGATIVE",
    "UNARY_NOT",
    "UNPACK_EX",
    "UNPACK_SEQUENCE",
    "WITH_EXCEPT_START",
    "YIELD_VALUE",
];

const OPNAME_WIDTH: usize = 20;
const OPARG_WIDTH: usize = 5;

/// Disassemble `code` and every code object among its constants (`dis.dis(module)`).
pub fn disassemble(code: &Code) -> String {
    let addresses = Addresses::of(code);
    let mut out = String::new();
    disassemble_recursive(code, &addresses, &mut out);
    out
}

/// `dis.dis(f)` for each function, class body, lambda or comprehension of `module` whose
/// qualified name is `name` (`main`, `Outer.method`, `f.<locals>.<lambda>`), or failing
/// that whose plain name is `name`. None when there is no such code object.
pub fn disassemble_function(module: &Code, name: &str) -> Option<String> {
    let addresses = Addresses::of(module);
    let nested = || addresses.order.iter().skip(1).copied();
    let mut found: Vec<&Code> = nested().filter(|c| &*c.qualname == name).collect();
    if found.is_empty() {
        found = nested().filter(|c| &*c.name == name).collect();
    }
    let mut out = String::new();
    for (k, code) in found.iter().enumerate() {
        if k > 0 {
            let _ = write!(out, "\nDisassembly of {}:\n", addresses.code_repr(code));
        }
        disassemble_recursive(code, &addresses, &mut out);
    }
    (!found.is_empty()).then_some(out)
}

/// The qualified names of every code object nested in `module`, in listing order: what
/// `--dis=NAME` accepts.
pub fn function_names(module: &Code) -> Vec<String> {
    let addresses = Addresses::of(module);
    addresses.order[1..]
        .iter()
        .map(|c| c.qualname.to_string())
        .collect()
}

/// `dis._disassemble_recursive`: this code object, then each nested one under its heading.
fn disassemble_recursive(code: &Code, addresses: &Addresses, out: &mut String) {
    disassemble_one(code, addresses, out);
    for c in &code.constants {
        if let Constant::Code(inner) = c {
            let _ = write!(out, "\nDisassembly of {}:\n", addresses.code_repr(inner));
            disassemble_recursive(inner, addresses, out);
        }
    }
}

/// The stand-in addresses: every code object of a module in listing order (depth first),
/// numbered from the module's 0.
struct Addresses<'a> {
    order: Vec<&'a Code>,
}

impl<'a> Addresses<'a> {
    fn of(module: &'a Code) -> Addresses<'a> {
        fn walk<'a>(code: &'a Code, order: &mut Vec<&'a Code>) {
            order.push(code);
            for c in &code.constants {
                if let Constant::Code(inner) = c {
                    walk(inner, order);
                }
            }
        }
        let mut order = Vec::new();
        walk(module, &mut order);
        Addresses { order }
    }

    /// `<code object f at 0x0003, file "x.py", line 3>`: CPython's repr, numbered.
    fn code_repr(&self, code: &Code) -> String {
        let number = self
            .order
            .iter()
            .position(|c| std::ptr::eq(*c, code))
            .unwrap_or(0);
        format!(
            "<code object {} at 0x{number:04x}, file \"{}\", line {}>",
            code.name, code.filename, code.first_line
        )
    }
}

/// One instruction as `dis` describes it (what `dis.Instruction` holds).
pub struct Row {
    /// Its index among the code's instructions (apy's offset).
    pub index: u32,
    pub opname: String,
    /// The argument as CPython 3.13 encodes it, for instructions that take one.
    pub arg: Option<u32>,
    /// What the argument stands for, and how `dis` shows it in parentheses (`x`, `to L2`).
    pub argval: Option<ArgVal>,
    pub argrepr: Option<String>,
    /// Its line, and whether it is the first instruction of that line.
    pub line: Option<u32>,
    pub starts_line: bool,
    /// `L1`, `L2`, …: the label of a jump or exception handler target.
    pub label: Option<usize>,
}

/// Every instruction of `code` (not of the code objects nested in it), described.
pub fn rows(code: &Code) -> Vec<Row> {
    rows_with(code, &Addresses::of(code)).0
}

/// The rows, and the instructions that get a label (`L1` is the first of them).
fn rows_with(code: &Code, addresses: &Addresses) -> (Vec<Row>, Vec<u32>) {
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
    let mut prev_line = None;
    let rows = code
        .instructions
        .iter()
        .enumerate()
        .map(|(i, instr)| {
            let line = code.locations.get(i).map(|l| l.line);
            let starts_line = line != prev_line;
            prev_line = line;
            let to_bool = matches!(
                code.instructions.get(i + 1),
                Some(Instr::PopJumpIfFalse(_) | Instr::PopJumpIfTrue(_) | Instr::UnaryNot)
            );
            let arg = oparg(code, instr, to_bool);
            Row {
                index: i as u32,
                opname: opname(instr, i as u32),
                arg,
                argval: arg.map(|arg| argval(code, instr, arg)),
                argrepr: arg.and_then(|_| argrepr(code, instr, to_bool, addresses, &label_of)),
                line,
                starts_line,
                label: label_of(i as u32),
            }
        })
        .collect();
    (rows, labels)
}

fn disassemble_one(code: &Code, addresses: &Addresses, out: &mut String) {
    let (rows, labels) = rows_with(code, addresses);
    let label_width = 4 + labels.len().to_string().len();
    let max_line = code.locations.iter().map(|l| l.line).max().unwrap_or(0);
    let line_width = max_line.to_string().len().max(3);
    for row in &rows {
        if row.starts_line && row.index > 0 {
            out.push('\n');
        }
        let mut fields: Vec<String> = Vec::new();
        fields.push(match (row.starts_line, row.line) {
            (true, Some(l)) => format!("{l:>line_width$}"),
            _ => " ".repeat(line_width),
        });
        fields.push(match row.label {
            Some(k) => format!("{:>label_width$}", format!("L{k}:")),
            None => " ".repeat(label_width),
        });
        fields.push("   ".to_string());
        fields.push(format!("{:<OPNAME_WIDTH$}", row.opname));
        if let Some(arg) = row.arg {
            let excess = row.opname.len().saturating_sub(OPNAME_WIDTH);
            fields.push(format!(
                "{:>w$}",
                arg,
                w = OPARG_WIDTH.saturating_sub(excess)
            ));
            if let Some(detail) = &row.argrepr {
                fields.push(format!("({detail})"));
            }
        }
        out.push_str(fields.join(" ").trim_end());
        out.push('\n');
    }
    if !code.exception_table.is_empty() {
        let label_of = |i: u32| labels.binary_search(&i).ok().map(|k| k + 1);
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

/// CPython's name for the instruction (`LoadFastAndClear` → `LOAD_FAST_AND_CLEAR`).
fn opname(instr: &Instr, index: u32) -> String {
    match instr {
        Instr::Jump(t) if *t <= index => return "JUMP_BACKWARD".into(),
        Instr::JumpNoInterrupt(t) if *t <= index => return "JUMP_BACKWARD_NO_INTERRUPT".into(),
        Instr::Jump(_) | Instr::JumpNoInterrupt(_) => return "JUMP_FORWARD".into(),
        Instr::LoadMethod(_) => return "LOAD_ATTR".into(),
        Instr::LoadGlobalNull(_) => return "LOAD_GLOBAL".into(),
        Instr::LoadSuperMethod(_) => return "LOAD_SUPER_ATTR".into(),
        Instr::CallIntrinsic1(_) => return "CALL_INTRINSIC_1".into(),
        Instr::CallIntrinsic2(_) => return "CALL_INTRINSIC_2".into(),
        // CPython 3.13 assembles its LOAD_CLOSURE pseudo-instruction as LOAD_FAST.
        Instr::LoadClosure(_) => return "LOAD_FAST".into(),
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

/// An instruction's argument as CPython 3.13 encodes it. `to_bool`: the next instruction
/// takes the value as a truth value (a branch or `not`), which CPython marks in COMPARE_OP.
fn oparg(code: &Code, instr: &Instr, to_bool: bool) -> Option<u32> {
    use Instr::*;
    Some(match *instr {
        LoadDeref(n) | StoreDeref(n) | DeleteDeref(n) | LoadClosure(n) | LoadFromDictOrDeref(n) => {
            fast_index(code, n)
        }
        Copy(n)
        | Swap(n)
        | LoadConst(n)
        | LoadFast(n)
        | LoadFastCheck(n)
        | LoadFastAndClear(n)
        | StoreFast(n)
        | DeleteFast(n)
        | LoadName(n)
        | StoreName(n)
        | DeleteName(n)
        | LoadFastLoadFast(n)
        | StoreFastLoadFast(n)
        | StoreFastStoreFast(n)
        | StoreGlobal(n)
        | DeleteGlobal(n)
        | StoreAttr(n)
        | DeleteAttr(n)
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
        | MatchClass(n)
        | UnpackEx(n)
        | ConvertValue(n)
        | Jump(n)
        | JumpNoInterrupt(n)
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
        | ImportName(n)
        | ImportFrom(n)
        | LoadFromDictOrGlobals(n) => n,
        GetAwaitable(site) => site as u32,
        // CPython keeps a flag in the low bit: push NULL (LOAD_GLOBAL), load a method
        // (LOAD_ATTR).
        LoadGlobal(n) | LoadAttr(n) => n << 1,
        LoadGlobalNull(n) | LoadMethod(n) => n << 1 | 1,
        // Two flags for LOAD_SUPER_ATTR: load a method, and super() with two arguments
        // (apy compiles only the zero-argument form to it).
        LoadSuperAttr(n) => n << 2,
        LoadSuperMethod(n) => n << 2 | 1,
        BinaryOp(op) => op as u32,
        CompareOp(op) => compare_oparg(op, to_bool),
        // CPython numbers intrinsics from 1 (0 is INTRINSIC_1_INVALID).
        CallIntrinsic1(f) => f as u32 + 1,
        CallIntrinsic2(f) => f as u32 + 2,
        PrepReraiseStar => 1,
        _ => return None,
    })
}

/// Where CPython 3.13 keeps cell or free variable `n` (apy's index into cells then free
/// variables): among all the frame's variables, the locals first, then the cells that are
/// not parameters (a parameter's cell shares its slot), then the free variables.
fn fast_index(code: &Code, n: u32) -> u32 {
    let own_cell = |k: usize| code.cell2arg.get(k).copied().flatten();
    let cells_before = |end: usize| (0..end).filter(|&k| own_cell(k).is_none()).count();
    let locals = code.varnames.len();
    let n = n as usize;
    let index = match own_cell(n) {
        Some(arg) => arg as usize,
        None if n < code.cellvars.len() => locals + cells_before(n),
        None => locals + cells_before(code.cellvars.len()) + n - code.cellvars.len(),
    };
    index as u32
}

/// COMPARE_OP's argument in CPython 3.13: the operator's place in `dis.cmp_op` shifted
/// left by 5, the outcomes it accepts (2 less, 4 greater, 8 equal, and 1 unordered for
/// `!=`), and 16 when its result goes straight to a branch or `not` (CPython's TO_BOOL
/// folded into it, shown as `bool(<)`).
fn compare_oparg(op: CompareOperator, to_bool: bool) -> u32 {
    use CompareOperator::*;
    let accepts = match op {
        Lt => 2,
        Le => 2 | 8,
        Eq => 8,
        Ne => 1 | 2 | 4,
        Gt => 4,
        Ge => 4 | 8,
    };
    (op as u32) << 5 | accepts | u32::from(to_bool) << 4
}

fn argrepr(
    code: &Code,
    instr: &Instr,
    to_bool: bool,
    addresses: &Addresses,
    label_of: &dyn Fn(u32) -> Option<usize>,
) -> Option<String> {
    use Instr::*;
    let var = |i: u32| code.varnames.get(i as usize).map(|s| s.to_string());
    match *instr {
        LoadConst(i) | ReturnConst(i) => code
            .constants
            .get(i as usize)
            .map(|c| constant_repr(c, addresses)),
        LoadFastLoadFast(i) | StoreFastLoadFast(i) | StoreFastStoreFast(i) => {
            Some(format!("{}, {}", var(i >> 4)?, var(i & 15)?))
        }
        LoadGlobalNull(_) => name_of(code, instr).map(|n| format!("{n} + NULL")),
        LoadMethod(_) | LoadSuperMethod(_) => {
            name_of(code, instr).map(|n| format!("{n} + NULL|self"))
        }
        Jump(t) | JumpNoInterrupt(t) | PopJumpIfFalse(t) | PopJumpIfTrue(t) | PopJumpIfNone(t)
        | PopJumpIfNotNone(t) | ForIter(t) | Send(t) => label_of(t).map(|k| format!("to L{k}")),
        BinaryOp(op) => Some(op.symbol().to_string()),
        CompareOp(op) if to_bool => Some(format!("bool({})", op.symbol())),
        CompareOp(op) => Some(op.symbol().to_string()),
        IsOp(n) => Some(if n == 0 { "is" } else { "is not" }.to_string()),
        ContainsOp(n) => Some(if n == 0 { "in" } else { "not in" }.to_string()),
        CallIntrinsic1(f) => Some(f.name().to_string()),
        CallIntrinsic2(f) => Some(f.name().to_string()),
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
        _ => name_of(code, instr),
    }
}

/// The name an instruction's argument stands for: a local, a global or attribute name,
/// a cell or free variable.
fn name_of(code: &Code, instr: &Instr) -> Option<String> {
    use Instr::*;
    let text = |names: &[Rc<str>], i: u32| names.get(i as usize).map(|s| s.to_string());
    match *instr {
        LoadFast(i) | LoadFastCheck(i) | LoadFastAndClear(i) | StoreFast(i) | DeleteFast(i) => {
            text(&code.varnames, i)
        }
        LoadName(i)
        | StoreName(i)
        | DeleteName(i)
        | LoadGlobal(i)
        | LoadGlobalNull(i)
        | StoreGlobal(i)
        | DeleteGlobal(i)
        | LoadAttr(i)
        | LoadMethod(i)
        | StoreAttr(i)
        | DeleteAttr(i)
        | LoadSuperAttr(i)
        | LoadSuperMethod(i)
        | ImportName(i)
        | ImportFrom(i)
        | LoadFromDictOrGlobals(i) => text(&code.names, i),
        LoadDeref(i) | StoreDeref(i) | DeleteDeref(i) | LoadClosure(i) | LoadFromDictOrDeref(i) => {
            code.cellvars
                .iter()
                .chain(&code.freevars)
                .nth(i as usize)
                .map(|s| s.to_string())
        }
        _ => None,
    }
}

/// What `dis.Instruction.argval` holds: the constant, the name, the jump's target, or the
/// plain argument.
pub enum ArgVal {
    /// An index into the code's constants.
    Const(u32),
    Name(String),
    /// The index of the instruction a jump goes to.
    Target(u32),
    Int(u32),
}

fn argval(code: &Code, instr: &Instr, arg: u32) -> ArgVal {
    match *instr {
        Instr::LoadConst(i) | Instr::ReturnConst(i) => ArgVal::Const(i),
        _ => match (instr.jump_target(), name_of(code, instr)) {
            (Some(target), _) => ArgVal::Target(target),
            (None, Some(name)) => ArgVal::Name(name),
            (None, None) => ArgVal::Int(arg),
        },
    }
}

/// A constant (no code object) as Python's `repr` shows it, for compiler messages.
pub fn literal_repr(c: &Constant) -> String {
    constant_repr(c, &Addresses { order: Vec::new() })
}

/// A constant as Python's `repr` shows it.
fn constant_repr(c: &Constant, addresses: &Addresses) -> String {
    match c {
        Constant::None => "None".into(),
        Constant::Bool(true) => "True".into(),
        Constant::Bool(false) => "False".into(),
        Constant::Ellipsis => "Ellipsis".into(),
        Constant::Int(i) => i.to_string(),
        Constant::BigInt(i) => i.to_string(),
        Constant::Float(f) => float_repr(*f),
        Constant::Complex(re, im) => complex_repr(Complex::new(*re, *im)),
        Constant::Str(s) => str_repr(s),
        Constant::Bytes(b) => bytes_repr(b),
        Constant::Tuple(items) => {
            let parts: Vec<String> = items.iter().map(|c| constant_repr(c, addresses)).collect();
            if parts.len() == 1 {
                format!("({},)", parts[0])
            } else {
                format!("({})", parts.join(", "))
            }
        }
        Constant::FrozenSet(items) => {
            let parts: Vec<String> = frozenset_order(items)
                .iter()
                .map(|c| constant_repr(c, addresses))
                .collect();
            format!("frozenset({{{}}})", parts.join(", "))
        }
        Constant::Code(code) => addresses.code_repr(code),
        Constant::Frozen(code) => addresses.code_repr(&code.head),
    }
}
