//! `--dis` snapshots: the disassembly of representative functions, each checked by hand
//! against `python3.13 -m dis` of the same source when it was written.

use apy::compile::{Mode, compile_module, disassemble};
use apy::syntax::parse_module;

fn dis(source: &str) -> String {
    let module = parse_module(source).expect("parses");
    let code = compile_module(&module, source, "t.py", Mode::Exec).expect("compiles");
    disassemble(&code)
}

/// `APY_DIS=file.py cargo test --test dis print_file -- --nocapture` prints a file's
/// disassembly, to compare with `python3.13 -m dis file.py` while working on codegen.
#[test]
fn print_file() {
    if let Ok(path) = std::env::var("APY_DIS") {
        let source = std::fs::read_to_string(path).expect("readable");
        println!("{}", dis(&source));
    }
}

/// `APY_CORPUS=dir cargo test --test dis compile_corpus -- --nocapture` compiles every
/// `.apy` file under `dir` (e.g. the conformance corpus) and fails if any does not compile.
#[test]
fn compile_corpus() {
    let Ok(dir) = std::env::var("APY_CORPUS") else {
        return;
    };
    let mut failures = 0;
    let mut stack = vec![std::path::PathBuf::from(dir)];
    while let Some(path) = stack.pop() {
        if path.is_dir() {
            for entry in std::fs::read_dir(&path).expect("readable dir") {
                stack.push(entry.expect("entry").path());
            }
            continue;
        }
        if path.extension().is_none_or(|e| e != "apy") {
            continue;
        }
        let source = std::fs::read_to_string(&path).expect("readable");
        let result = parse_module(&source)
            .map_err(|e| format!("syntax: {}", e.message))
            .and_then(|m| {
                compile_module(&m, &source, "t.py", Mode::Exec)
                    .map(|_| ())
                    .map_err(|e| format!("{} {:?}", e.message, e.span))
            });
        if let Err(e) = result {
            println!("{}: {e}", path.display());
            failures += 1;
        }
    }
    assert_eq!(failures, 0);
}

#[test]
fn loop_with_break_and_else() {
    insta::assert_snapshot!(dis(
        "def f(xs):\n    total = 0\n    for x in xs:\n        if x < 0:\n            break\n        total += x\n    else:\n        return total\n    while total:\n        total -= 1\n    return -1\n"
    ));
}

#[test]
fn comparisons_tuple_stores_and_paired_locals() {
    insta::assert_snapshot!(dis(
        "def f(a, b):\n    x = a < b; x = a <= b; x = a == b; x = a != b; x = a > b; x = a >= b\n    if a < b: pass\n    y = not (a >= b)\n    while a != b:\n        a, b = b, a + b\n    return a < b and b\n"
    ));
}

#[test]
fn match_statement() {
    insta::assert_snapshot!(dis(
        "def f(s):\n    match s:\n        case 1 | -2 if s:\n            pass\n        case None:\n            pass\n        case [a, *r]:\n            pass\n        case {'k': v, **rest}:\n            pass\n        case P(a, y=0) as q:\n            pass\n        case (x, _, *_):\n            pass\n        case _:\n            pass\n"
    ));
}

/// Complex constants: a pattern's complex literal folded, `-0j` apart from `0j`, the sign
/// of `-1j` folded into `(-0-1j)`.
#[test]
fn complex_constants() {
    insta::assert_snapshot!(dis(
        "def f(z):\n    match z:\n        case -1+2j:\n            return (0j, -0j, -1j, 1e300j)\n    return 2j * z\n"
    ));
}

#[test]
fn try_except_finally() {
    insta::assert_snapshot!(dis(
        "def f():\n    try:\n        g()\n    except ValueError as e:\n        print(e)\n    else:\n        return 1\n    finally:\n        print('done')\n"
    ));
}

#[test]
fn closure_and_inlined_comprehension() {
    insta::assert_snapshot!(dis(
        "def outer(n):\n    count = 0\n    def inc():\n        nonlocal count\n        count += n\n        return count\n    return inc, [i * n for i in range(3) if i]\n"
    ));
}

#[test]
fn class_with_super() {
    insta::assert_snapshot!(dis(
        "class B(A):\n    def __init__(self, x):\n        super().__init__(x)\n        self.x = super().x\n"
    ));
}

#[test]
fn generator_with_yield_from() {
    insta::assert_snapshot!(dis(
        "def gen(xs):\n    yield 0\n    result = yield from xs\n    return result\n"
    ));
}

#[test]
fn await_and_async_for_and_async_with() {
    insta::assert_snapshot!(dis(
        "async def main(ait, lock):\n    await sleep(1)\n    async for x in ait:\n        print(x)\n    async with lock as held:\n        return held\n"
    ));
}

/// PEP 695: the annotation scopes around a generic function, class and `type` alias, the
/// intrinsics that make the parameters, and the lazy bound (checked against `python3.13 -m
/// dis`: the same but for RESUME, MAKE_CELL and the defaults tuple's constant index).
#[test]
fn generic_function_class_and_alias() {
    insta::assert_snapshot!(dis(
        "def f[T: int, *Ts, **P](x: T = 1) -> T:\n    return x\n\nclass Box[T](Base, metaclass=M):\n    x = 1\n\ntype L[T] = list[T]\n"
    ));
}

/// Where apy's instructions differ from CPython's only in name, `--dis` shows CPython's:
/// an imported module's function called with `LOAD_ATTR` + `PUSH_NULL`, handler exits and
/// the `SEND` loop as `JUMP_BACKWARD_NO_INTERRUPT` (a handler exit onto a loop's back edge
/// threaded into it), `CLEANUP_THROW` out of line, cells as `LOAD_FAST` with CPython's slot
/// numbers. Checked against `python3.13 -m dis` of the same source (RESUME, TO_BOOL,
/// END_FOR, MAKE_CELL and COPY_FREE_VARS aside).
#[test]
fn naming_as_in_cpython() {
    insta::assert_snapshot!(dis(
        "import asyncio\n\ndef f(a, b):\n    x = 1\n    def g(c):\n        nonlocal x\n        x = a + c\n        return x + b\n    for i in a:\n        try:\n            asyncio.run(g)\n        except E as e:\n            b()\n        with q:\n            pass\n    return g\n\nasync def main():\n    try:\n        await asyncio.sleep(0)\n    except E:\n        pass\n    return 1\n"
    ));
}

/// Every kind of code object, in `dis.dis` order, under headings with stable addresses.
const NESTED: &str = "class Outer:\n    def method(self, xs):\n        return (x for x in xs)\n\nf = lambda y: y + 1\n\nasync def agen():\n    yield 1\n\nasync def main():\n    return [x async for x in agen()]\n";

#[test]
fn every_code_object_in_dis_order() {
    let listing = dis(NESTED);
    let headings: Vec<&str> = listing
        .lines()
        .filter(|l| l.starts_with("Disassembly of"))
        .collect();
    insta::assert_snapshot!(headings.join("\n"));
}

fn dis_function(source: &str, name: &str) -> Option<String> {
    let module = parse_module(source).expect("parses");
    let code = compile_module(&module, source, "t.py", Mode::Exec).expect("compiles");
    apy::compile::dis::disassemble_function(&code, name)
}

#[test]
fn dis_of_one_method_by_qualified_name() {
    insta::assert_snapshot!(dis_function(NESTED, "Outer.method").expect("found"));
}

#[test]
fn dis_of_one_function_by_plain_name() {
    let by_name = dis_function(NESTED, "method").expect("found");
    assert_eq!(Some(by_name), dis_function(NESTED, "Outer.method"));
}

#[test]
fn dis_of_a_missing_function_is_none() {
    assert_eq!(dis_function(NESTED, "nope"), None);
    let module = parse_module(NESTED).expect("parses");
    let code = compile_module(&module, NESTED, "t.py", Mode::Exec).expect("compiles");
    assert_eq!(
        apy::compile::dis::function_names(&code),
        vec![
            "Outer",
            "Outer.method",
            "Outer.method.<locals>.<genexpr>",
            "<lambda>",
            "agen",
            "main"
        ]
    );
}

/// `apy --dis=NAME` on the command line: one function, or a usage error naming the choices.
#[test]
fn dis_switch_targets_one_function_or_says_what_there_is() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"));
    let path = dir.join("dis_switch.apy");
    std::fs::write(&path, NESTED).expect("writable");
    let run = |switch: &str| {
        std::process::Command::new(env!("CARGO_BIN_EXE_apy"))
            .arg(switch)
            .arg(&path)
            .output()
            .expect("apy runs")
    };
    let found = run("--dis=main");
    assert_eq!(found.status.code(), Some(0));
    let listing = String::from_utf8_lossy(&found.stdout);
    assert!(listing.starts_with(apy::compile::dis::HEADER), "{listing}");
    assert!(
        listing.contains("LOAD_GLOBAL") && listing.contains("(agen + NULL)"),
        "{listing}"
    );
    let missing = run("--dis=nope");
    assert_eq!(missing.status.code(), Some(2));
    let err = String::from_utf8_lossy(&missing.stderr);
    assert!(
        err.contains("no function or class named 'nope'")
            && err.contains(
                "it has: Outer, Outer.method, Outer.method.<locals>.<genexpr>, <lambda>, agen, main"
            ),
        "{err}"
    );
}

/// `dis.opname` (`OPNAMES`) names every instruction the compiler emits: checked over the
/// programs that cover every statement and expression kind.
#[test]
fn opnames_cover_every_instruction() {
    fn check(code: &apy::compile::bytecode::Code, missing: &mut Vec<String>) {
        for row in apy::compile::dis::rows(code) {
            if apy::compile::dis::OPNAMES
                .binary_search(&row.opname.as_str())
                .is_err()
            {
                missing.push(row.opname);
            }
        }
        for constant in &code.constants {
            if let apy::compile::bytecode::Constant::Code(inner) = constant {
                check(inner, missing);
            }
        }
    }
    let mut missing = Vec::new();
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/ast_dump");
    for entry in std::fs::read_dir(dir).expect("tests/ast_dump").flatten() {
        let path = entry.path();
        if path.extension().is_some_and(|e| e == "apy") {
            let source = std::fs::read_to_string(&path).expect("readable");
            let module = parse_module(&source).expect("parses");
            let code = compile_module(&module, &source, "t.py", Mode::Exec).expect("compiles");
            check(&code, &mut missing);
        }
    }
    assert!(missing.is_empty(), "not in OPNAMES: {missing:?}");
}

/// The `dis` module prints and describes apy's bytecode (the listing of `--dis`), so its
/// output is a snapshot rather than CPython's: `dis.dis` of a function, a source string, a
/// class and a bound method, `Bytecode` iteration, `opname`/`opmap`, the TypeError.
#[test]
fn dis_module_describes_apys_bytecode() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/dis_module");
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_apy"))
        .arg("dis_module.apy")
        .current_dir(dir)
        .output()
        .expect("apy runs");
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    insta::assert_snapshot!(String::from_utf8_lossy(&output.stdout));
}
