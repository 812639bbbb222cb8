//! The compiler: [`crate::syntax::ast::Module`] in, [`bytecode::Code`] out.
//!
//! `scope` builds symbol tables (CPython's `Python/symtable.c`), `codegen` emits bytecode
//! (`Python/compile.c`, `Python/flowgraph.c`), `peephole` does flowgraph.c's last
//! rewrites (with `local_checks`, which loads of locals need a check), `dis` prints it like
//! `python3.13 -m dis`.
//! Nothing here knows about runtime values or the VM.

pub mod bytecode;
pub mod codegen;
pub(crate) mod constant_set;
pub mod dis;
pub mod error;
pub mod frozen;
pub mod future;
mod local_checks;
pub mod peephole;
pub mod scope;

use std::rc::Rc;

pub use bytecode::Code;
pub use codegen::LineIndex;
pub use dis::disassemble;
pub use error::CompileError;

use crate::syntax::ast;

/// How a module is compiled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// A file.
    Exec,
    /// One REPL entry: expression statements print their value, and top-level `await`
    /// (with `async for` / `async with`) is allowed, making the module code a coroutine.
    Interactive,
    /// `compile(…, 'eval')`: one expression, whose value the code returns.
    Eval,
    /// `compile(…, 'single')`: one statement, an expression statement printing its value.
    Single,
    /// A statement of a REPL entry before its last: top-level `await` allowed, expression
    /// values not printed, a leading string the namespace's `__doc__` (CPython's REPL
    /// compiles those statements in `exec` mode, with `PyCF_ALLOW_TOP_LEVEL_AWAIT`).
    InteractiveQuiet,
}

impl Mode {
    /// Whether `await`, `async for` and `async with` may appear at the top level, which
    /// makes the module code a coroutine.
    pub fn allows_top_level_await(self) -> bool {
        matches!(self, Mode::Interactive | Mode::InteractiveQuiet)
    }

    /// Whether an expression statement at the top level prints its value.
    pub fn prints_expressions(self) -> bool {
        matches!(self, Mode::Interactive | Mode::Single)
    }
}

/// Compile a parsed module into its code object (which holds every nested code object).
pub fn compile_module(
    module: &ast::Module,
    source: &str,
    filename: &str,
    mode: Mode,
) -> Result<Rc<Code>, CompileError> {
    compile_module_inheriting(module, source, filename, mode, Inherited::default())
}

/// The `__future__` features a compilation starts with, besides its own future statements
/// (`compile()`'s flags: codeop's `Compile` passes on those a former input turned on).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Inherited {
    /// `annotations` (`CO_FUTURE_ANNOTATIONS`).
    pub annotations: bool,
}

/// [`compile_module`], with the features `inherited` in force from the start.
pub fn compile_module_inheriting(
    module: &ast::Module,
    source: &str,
    filename: &str,
    mode: Mode,
    inherited: Inherited,
) -> Result<Rc<Code>, CompileError> {
    let mut features = future::features(module)?;
    features.annotations |= inherited.annotations;
    let table = scope::build(module, mode.allows_top_level_await(), features)?;
    codegen::Codegen::new(&table, source, filename, mode, features).compile_module(module)
}

/// The code object of the first function defined in `source` (for the compiler's tests).
#[cfg(test)]
pub(crate) fn first_function(source: &str) -> Rc<Code> {
    let module = crate::syntax::parse_module(source).expect("parses");
    let code = compile_module(&module, source, "t.py", Mode::Exec).expect("compiles");
    code.constants
        .iter()
        .find_map(|c| match c {
            bytecode::Constant::Code(f) => Some(f.clone()),
            _ => None,
        })
        .expect("a function")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::parse_module;

    fn compile(source: &str, mode: Mode) -> Result<Rc<Code>, CompileError> {
        let module = parse_module(source).expect("parses");
        compile_module(&module, source, "t.py", mode)
    }

    /// Messages and start offsets from python3.13's `compile()` (`SyntaxError.msg`,
    /// `lineno`/`offset` turned into a byte offset).
    #[test]
    fn compile_errors_match_cpython() {
        let cases = [
            ("return 1", "'return' outside function", 0),
            ("await x", "'await' outside function", 0),
            (
                "def f():\n    await x",
                "'await' outside async function",
                13,
            ),
            ("lambda: await x", "'await' outside async function", 8),
            (
                "def f():\n    return [await x for x in y]",
                "asynchronous comprehension outside of an asynchronous function",
                20,
            ),
            (
                "def f():\n    return [x async for x in y]",
                "asynchronous comprehension outside of an asynchronous function",
                20,
            ),
            (
                "[x async for x in y]",
                "asynchronous comprehension outside of an asynchronous function",
                0,
            ),
            ("yield 1", "'yield' outside function", 0),
            (
                "from __future__ import spam",
                "future feature spam is not defined",
                0,
            ),
            ("from __future__ import braces", "not a chance", 0),
            (
                "x = 1\nfrom __future__ import annotations",
                "from __future__ imports must occur at the beginning of the file",
                6,
            ),
            (
                "def f():\n    from __future__ import annotations",
                "from __future__ imports must occur at the beginning of the file",
                13,
            ),
            ("class C:\n    yield 1", "'yield' outside function", 13),
            (
                "def f():\n    return [(yield x) for x in y]",
                "'yield' inside list comprehension",
                22,
            ),
            (
                "def f():\n    return ((yield x) for x in y)",
                "'yield' inside generator expression",
                22,
            ),
            (
                "async def f():\n    yield from x",
                "'yield from' inside async function",
                19,
            ),
            (
                "async def f():\n    yield 1\n    return 2",
                "'return' with value in async generator",
                31,
            ),
            ("break", "'break' outside loop", 0),
            ("continue", "'continue' not properly in loop", 0),
            (
                "for x in y:\n    def f():\n        break",
                "'break' outside loop",
                33,
            ),
            (
                "nonlocal x",
                "nonlocal declaration not allowed at module level",
                0,
            ),
            (
                "def f():\n    nonlocal x",
                "no binding for nonlocal 'x' found",
                13,
            ),
            (
                "def f():\n    print(x)\n    global x",
                "name 'x' is used prior to global declaration",
                26,
            ),
            (
                "def f():\n    x = 1\n    global x",
                "name 'x' is assigned to before global declaration",
                23,
            ),
            (
                "def g():\n    x=1\n    def f():\n        x = 1\n        nonlocal x",
                "name 'x' is assigned to before nonlocal declaration",
                52,
            ),
            (
                "def g():\n    x=1\n    def f():\n        print(x)\n        nonlocal x",
                "name 'x' is used prior to nonlocal declaration",
                55,
            ),
            (
                "def f(a, a): pass",
                "duplicate argument 'a' in function definition",
                9,
            ),
            (
                "lambda a, a: 1",
                "duplicate argument 'a' in function definition",
                10,
            ),
            (
                "a, *b, *c = d",
                "multiple starred expressions in assignment",
                0,
            ),
            (
                "def f(a):\n    global a",
                "name 'a' is parameter and global",
                14,
            ),
            (
                "def f(a):\n    nonlocal a",
                "name 'a' is parameter and nonlocal",
                14,
            ),
            (
                "def f():\n    global x\n    nonlocal x",
                "name 'x' is nonlocal and global",
                13,
            ),
            (
                "class C:\n    [y := 1 for x in z]",
                "assignment expression within a comprehension cannot be used in a class body",
                14,
            ),
            (
                "def f():\n    [x := 1 for x in z]",
                "assignment expression cannot rebind comprehension iteration variable 'x'",
                14,
            ),
            ("__debug__ = 1", "cannot assign to __debug__", 0),
            ("def f(a=(yield)): pass", "'yield' outside function", 9),
            (
                "def f():\n    x: int\n    global x",
                "annotated name 'x' can't be global",
                24,
            ),
            (
                "def f():\n    async with x: pass",
                "'async with' outside async function",
                13,
            ),
            (
                "def f():\n    async for x in y: pass",
                "'async for' outside async function",
                13,
            ),
            (
                "async with x: pass",
                "'async with' outside async function",
                0,
            ),
            (
                "class C:\n    nonlocal x",
                "no binding for nonlocal 'x' found",
                13,
            ),
            (
                "[x for x in (lambda: (y := 1))()]",
                "assignment expression cannot be used in a comprehension iterable expression",
                22,
            ),
            (
                "[x for x in [1] for z in (y := [2])]",
                "assignment expression cannot be used in a comprehension iterable expression",
                26,
            ),
            (
                "def f():\n    [x for x in (y := [1])]",
                "assignment expression cannot be used in a comprehension iterable expression",
                26,
            ),
            (
                "for x in y:\n    try:\n        pass\n    except* E:\n        break",
                "'break', 'continue' and 'return' cannot appear in an except* block",
                57,
            ),
        ];
        for (source, message, start) in cases {
            let e = compile(source, Mode::Exec).expect_err(source);
            assert_eq!(
                (e.message.as_str(), e.span.start),
                (message, start),
                "{source}"
            );
        }
    }

    /// What CPython accepts: async generator expressions in plain functions, `continue` in
    /// `finally`, and top-level `await` in the REPL (which makes the module a coroutine).
    #[test]
    fn accepted_like_cpython() {
        for source in [
            "def f():\n    return (x async for x in y)",
            "def f():\n    return (await x for x in y)",
            "for x in y:\n    try:\n        pass\n    finally:\n        continue",
            "class C:\n    def m(self):\n        return [super().m() for _ in ()]",
            "def f():\n    return [(lambda: (y := 1)) for x in z]",
        ] {
            compile(source, Mode::Exec).expect(source);
        }
        let code = compile("await x\nasync for a in b: pass", Mode::Interactive).expect("repl");
        assert!(code.flags.coroutine);
        assert!(
            !compile("x = 1", Mode::Interactive)
                .expect("repl")
                .flags
                .coroutine
        );
        assert!(compile("await x", Mode::Exec).is_err());
    }

    /// A REPL entry's statements before its last: `await` allowed, no value printed, a
    /// leading string is `__doc__` (CPython compiles them in `exec` mode).
    #[test]
    fn quiet_interactive_statements() {
        let prints = |code: &Code| {
            code.instructions.iter().any(|i| {
                matches!(
                    i,
                    bytecode::Instr::CallIntrinsic1(bytecode::Intrinsic1::Print)
                )
            })
        };
        let quiet = compile("await x", Mode::InteractiveQuiet).expect("quiet");
        assert!(quiet.flags.coroutine && !prints(&quiet));
        assert!(prints(&compile("x", Mode::Interactive).expect("echo")));
        let doc = compile("'text'", Mode::InteractiveQuiet).expect("doc");
        assert!(doc.names.iter().any(|n| &**n == "__doc__"));
        let echoed = compile("'text'", Mode::Interactive).expect("echo");
        assert!(!echoed.names.iter().any(|n| &**n == "__doc__"));
    }
}
