//! Parser tests: shapes of tricky constructs, CPython's error messages, robustness.

use super::parse_module;
use crate::syntax::ast::{ExprKind, StmtKind};
use crate::syntax::error::SyntaxErrorKind;

fn ok(src: &str) -> Vec<crate::syntax::ast::Stmt> {
    match parse_module(src) {
        Ok(m) => m.body,
        Err(e) => panic!("{src:?}: {e:?}"),
    }
}

fn err(src: &str) -> (SyntaxErrorKind, String) {
    match parse_module(src) {
        Ok(m) => panic!("{src:?} parsed: {m:?}"),
        Err(e) => (e.kind, e.message),
    }
}

fn message(src: &str) -> String {
    err(src).1
}

/// Every `.apy` file under the directories in `APY_PARSE_DIRS` (colon-separated) parses.
/// `APY_PARSE_DIRS=/work/shared/conformance:/work/shared/bench cargo test parses_corpus -- --ignored`
#[test]
#[ignore]
fn parses_corpus() {
    let dirs = std::env::var("APY_PARSE_DIRS").unwrap_or_default();
    let mut stack: Vec<std::path::PathBuf> = dirs
        .split(':')
        .filter(|d| !d.is_empty())
        .map(Into::into)
        .collect();
    let (mut count, mut failures) = (0, Vec::new());
    while let Some(path) = stack.pop() {
        if path.is_dir() {
            stack.extend(std::fs::read_dir(&path).unwrap().map(|e| e.unwrap().path()));
        } else if path.extension().is_some_and(|e| e == "apy") {
            count += 1;
            let src = std::fs::read_to_string(&path).unwrap();
            if let Err(e) = parse_module(&src) {
                failures.push(format!(
                    "{}: {} at {:?} {:?}",
                    path.display(),
                    e.message,
                    e.span,
                    &src[e.span.range()]
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {count} failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
    eprintln!("{count} files parsed");
}

#[test]
fn simple_program() {
    let body = ok(
        "import asyncio\n\nasync def main():\n    await asyncio.sleep(1)\n    print(f\"done {1+2!r:>5}\")\n\nasyncio.run(main())\n",
    );
    assert_eq!(body.len(), 3);
}

fn only_expr(src: &str) -> ExprKind {
    match ok(src).pop().map(|s| s.kind) {
        Some(StmtKind::Expr(e)) => e.kind,
        other => panic!("not an expression statement: {other:?}"),
    }
}

#[test]
fn precedence() {
    // -2**2 is -(2**2); 2**-1 parses; await binds tighter than **.
    assert!(matches!(only_expr("-2**2"), ExprKind::UnaryOp { .. }));
    assert!(matches!(only_expr("2**-1"), ExprKind::BinOp { .. }));
    assert!(matches!(only_expr("not a == b"), ExprKind::UnaryOp { .. }));
    match only_expr("await x ** 2") {
        ExprKind::BinOp { left, .. } => assert!(matches!(left.kind, ExprKind::Await(_))),
        other => panic!("{other:?}"),
    }
    match only_expr("a < b <= c") {
        ExprKind::Compare { ops, .. } => assert_eq!(ops.len(), 2),
        other => panic!("{other:?}"),
    }
    match only_expr("lambda: a if b else c") {
        ExprKind::Lambda { body, .. } => assert!(matches!(body.kind, ExprKind::IfExp { .. })),
        other => panic!("{other:?}"),
    }
}

#[test]
fn crlf_and_byte_order_mark() {
    let body = ok("\u{FEFF}if x:\r\n    s = '''a\r\nb'''\r\n");
    let StmtKind::If { body, .. } = &body[0].kind else {
        panic!("{body:?}")
    };
    let StmtKind::Assign { value, .. } = &body[0].kind else {
        panic!("{body:?}")
    };
    assert_eq!(
        value.kind,
        ExprKind::Constant(crate::syntax::ast::Constant::Str("a\nb".into()))
    );
}

#[test]
fn soft_keywords_stay_names() {
    ok("match = 1\ntype(x)\nmatch(x)\ntype = 2\n_ = match\ncase = match.case\n");
    let body = ok("match x:\n    case 1:\n        pass\n");
    assert!(matches!(body[0].kind, StmtKind::Match { .. }), "{body:?}");
    let body = ok("type X = int\nif 1: type Y[T] = list[T]\ntype(X)\n");
    assert!(
        matches!(body[0].kind, StmtKind::TypeAlias { .. }),
        "{body:?}"
    );
    let StmtKind::If { body: inner, .. } = &body[1].kind else {
        panic!("{body:?}")
    };
    assert!(
        matches!(inner[0].kind, StmtKind::TypeAlias { .. }),
        "{inner:?}"
    );
    assert!(matches!(body[2].kind, StmtKind::Expr(_)), "{body:?}");
}

#[test]
fn type_parameter_lists() {
    let body = ok("def f[T: int, *Ts, **P = [int]](x: T) -> T: pass\nclass C[T](B): pass\n");
    let StmtKind::FunctionDef(def) = &body[0].kind else {
        panic!("{body:?}")
    };
    assert_eq!(def.type_params.len(), 3);
    assert!(def.type_params[2].default.is_some());
    let StmtKind::ClassDef(class) = &body[1].kind else {
        panic!("{body:?}")
    };
    assert_eq!((class.type_params.len(), class.bases.len()), (1, 1));
    assert_eq!(
        message("def f[T = int, U](): pass"),
        "non-default type parameter 'U' follows default type parameter"
    );
    assert_eq!(
        message("def f[*Ts: int](): pass"),
        "cannot use bound with TypeVarTuple"
    );
    assert_eq!(
        message("class C[**P: int]: pass"),
        "cannot use bound with ParamSpec"
    );
    assert_eq!(
        message("def f[](): pass"),
        "Type parameter list cannot be empty"
    );
    assert_eq!(message("def f[T]: pass"), "expected '('");
}

#[test]
fn cpython_messages() {
    assert_eq!(message("if x\n  pass"), "expected ':'");
    assert_eq!(message("x = (1"), "'(' was never closed");
    assert_eq!(message("x = 1)"), "unmatched ')'");
    assert_eq!(message("x = 1 +"), "invalid syntax");
    assert_eq!(
        message("1 = x"),
        "cannot assign to literal here. Maybe you meant '==' instead of '='?"
    );
    assert_eq!(message("x = f() = 1"), "cannot assign to function call");
    assert_eq!(message("del f()"), "cannot delete function call");
    assert_eq!(message("for 1 in x: pass"), "cannot assign to literal");
    assert_eq!(
        message("f(a=1, b)"),
        "positional argument follows keyword argument"
    );
    assert_eq!(
        message("f(x for x in y, 1)"),
        "Generator expression must be parenthesized"
    );
    assert_eq!(
        message("def f(a=1, b): pass"),
        "parameter without a default follows parameter with a default"
    );
    assert_eq!(
        message("def f(*): pass"),
        "named arguments must follow bare *"
    );
    assert_eq!(
        message("x = 1 if 2"),
        "expected 'else' after 'if' expression"
    );
    // Before a block's `:`, CPython does not guess at a missing `else`.
    assert_eq!(message("for x in y if z: pass"), "invalid syntax");
    assert_eq!(message("while x if y:\n    pass\n"), "invalid syntax");
    assert_eq!(
        message("try:\n    pass\nx = 1\n"),
        "expected 'except' or 'finally' block"
    );
    assert_eq!(message("  x = 1\n"), "unexpected indent");
    assert_eq!(message("def main:\n    pass\n"), "expected '('");
    assert_eq!(
        message("print(1 2)"),
        "invalid syntax. Perhaps you forgot a comma?"
    );
    assert_eq!(
        message("if x = 1:\n    pass\n"),
        "invalid syntax. Maybe you meant '==' or ':=' instead of '='?"
    );
    assert_eq!(
        message("f(a.b=1)"),
        "expression cannot contain assignment, perhaps you meant \"==\"?"
    );
    assert_eq!(
        message("print \"hello\"\n"),
        "Missing parentheses in call to 'print'. Did you mean print(...)?"
    );
    assert_eq!(
        message("[*a for a in b]"),
        "iterable unpacking cannot be used in comprehension"
    );
    assert_eq!(
        message("{**a for a in b}"),
        "dict unpacking cannot be used in dict comprehension"
    );
    assert_eq!(message("f(a=1, a=2)"), "keyword argument repeated: a");
    assert_eq!(
        message("(a.b := 1)"),
        "cannot use assignment expressions with attribute"
    );
    assert_eq!(message("x = 0o8"), "invalid digit '8' in octal literal");
    assert_eq!(
        message("x = {'a': 1, 'b'}"),
        "':' expected after dictionary key"
    );
    assert_eq!(
        message("from m import a,"),
        "trailing comma not allowed without surrounding parentheses"
    );
    assert_eq!(message("f(*)"), "Invalid star expression");
    assert_eq!(
        message("x = 1\nprint(f\"value: {x\")\n"),
        "f-string: expecting '}'"
    );
    assert_eq!(
        message("doc = \"\"\"An unfinished\ndocstring\n\nx = 1\n"),
        "unterminated triple-quoted string literal (detected at line 4)"
    );
}

#[test]
fn indented_block_expected() {
    assert_eq!(
        err("if x:\npass\n"),
        (
            SyntaxErrorKind::Indentation,
            "expected an indented block after 'if' statement on line 1".into()
        )
    );
    assert_eq!(
        err("x = 1\nasync def f():\n"),
        (
            SyntaxErrorKind::IncompleteBlock,
            "expected an indented block after function definition on line 2".into()
        )
    );
}

#[test]
fn incomplete_input() {
    for src in [
        "f(1,",
        "if x:",
        "s = '''abc",
        "x = 1 + \\",
        "x = 1 \\\n",
        "class C:\n  def f(self):",
    ] {
        assert!(parse_module(src).unwrap_err().is_incomplete(), "{src:?}");
    }
    assert!(!parse_module("x = 'abc").unwrap_err().is_incomplete());
    // A bracket still open, but the parser failed before the end: no input can fix it.
    for src in ["def f(:", "print(1 2", "if (x:\n"] {
        assert!(!parse_module(src).unwrap_err().is_incomplete(), "{src:?}");
    }
}

#[test]
fn deep_nesting_is_an_error_not_a_crash() {
    let deep = [
        "(".repeat(10_000),
        "[".repeat(10_000),
        format!("{}1", "-".repeat(10_000)),
        format!("x = 1{}", "+1".repeat(100_000)),
        format!("x = a{}", ".b".repeat(100_000)),
        format!("x = {}1", "lambda: ".repeat(100_000)),
        format!("x = f{}", "(1)".repeat(100_000)),
        // Brackets add up: neither run alone is too deep.
        format!("x = ({}({}1))", "-".repeat(3000), "-".repeat(3500)),
    ];
    let elifs = |n: usize| {
        let chain: String = (1..n)
            .map(|i| format!("elif x == {i}:\n    pass\n"))
            .collect();
        format!("if x:\n    pass\n{chain}")
    };
    ok(&elifs(4000));
    assert!(
        parse_module(&elifs(20_000))
            .unwrap_err()
            .message
            .contains("too complex")
    );
    let nested_fstrings = |n: usize| format!("x = {}1{}", "f\"{".repeat(n), "}\"".repeat(n));
    ok(&nested_fstrings(15));
    assert_eq!(
        parse_module(&nested_fstrings(1000)).unwrap_err().message,
        "f-string: expressions nested too deeply"
    );
    for src in deep {
        let error = parse_module(&src).unwrap_err().message;
        assert!(error.contains("too"), "{}: {error}", &src[..20]);
    }
    // As deep as CPython goes still parses.
    ok(&format!("x = 1{}", "+1".repeat(5_000)));
    ok(&format!("x = {}1", "-".repeat(1_000)));
    ok(&format!("x = [{}]", "f(1) + 2, ".repeat(20_000)));
}

/// A program touching most of the grammar, cut at every character and fed in whole.
const SAMPLE: &str = r#"import asyncio
from .m import (a, b as c,)

@dec(1)
class Queue(Base, metaclass=Meta):
    """Doc."""
    size: int = 0

    async def get(self, /, n=1, *args, key=None, **kw) -> "Item":
        async with self.lock as held, (yield) as y:
            while not (item := self.items[n:-1:2]):
                await asyncio.sleep(0.5e-3)
            else:
                pass
        try:
            x = [i ** -2 async for i in agen() if i if not i]
        except* (ValueError, TypeError) as group:
            raise RuntimeError(f"{x!r:>{width}} {x=} {'}'}") from None
        finally:
            del self.items[0], self.x
        return {**kw, 'k': lambda *a, k=1: (yield from a)}, *args

for i, *rest in zip(range(0x_ff), "a" 'b' """c"""):  # comment
    print(i, *rest, sep='', end="\n"); continue
"#;

/// Parses `src`; an error's span must be a valid range of `src` (renderers slice it).
fn parse_checking_span(src: &str) {
    if let Err(e) = parse_module(src) {
        let (start, end) = (e.span.start as usize, e.span.end as usize);
        assert!(
            start <= end && src.get(start..end).is_some(),
            "{src:?}: {e:?}"
        );
    }
}

#[test]
fn sample_parses_and_every_prefix_is_handled() {
    ok(SAMPLE);
    for (i, _) in SAMPLE.char_indices() {
        parse_checking_span(&SAMPLE[..i]);
    }
}

#[test]
fn random_input_never_panics() {
    // A small xorshift generator: reproducible, no dependency.
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let alphabet: Vec<char> = "()[]{}:;,.=+-*/%<>!'\"\\#@ \t\n\r\x0cfbrxj0123456789_aZé€\u{1F600}"
        .chars()
        .chain(SAMPLE.chars())
        .collect();
    for _ in 0..3000 {
        let len = (next() % 60) as usize;
        let text: String = (0..len)
            .map(|_| alphabet[(next() % alphabet.len() as u64) as usize])
            .collect();
        parse_checking_span(&text);
    }
    for _ in 0..500 {
        let bytes: Vec<u8> = (0..(next() % 80)).map(|_| next() as u8).collect();
        parse_checking_span(&String::from_utf8_lossy(&bytes));
    }
}

#[test]
fn tokenizer_errors_win_like_cpython() {
    // CPython tokenizes the rest of the source after a syntax error.
    assert_eq!(
        message("x = a b\ny = 'abc"),
        "unterminated string literal (detected at line 2)"
    );
    assert_eq!(message("print(\"hello\"\nx = 1\n"), "'(' was never closed");
    // A bracket opened after the error does not hide it.
    assert_eq!(message("x = a b\ny = (1"), "invalid syntax");
}
