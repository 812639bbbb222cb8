//! Source compiled and run while the program runs: `exec`, `eval` and `compile()`
//! (`builtin_exec_impl`, `builtin_eval_impl` and `builtin_compile_impl` in
//! `Python/bltinmodule.c`). Text goes through the VM's compile hook (`Vm::compile`), named
//! `<string>` in tracebacks and syntax errors as CPython names it; a code object runs in a
//! frame of its own with the given globals and locals, by default the caller's
//! (`Vm::caller_scope`: in a function, `locals()`'s snapshot, so what `exec` assigns there
//! stays in that snapshot, as in CPython 3.13). Text compiled here inherits the caller's
//! `__future__` features, and `compile()` reads its flags: those features, and the two
//! `codeop` asks for to tell incomplete input from invalid. And `__import__`, the function
//! an `import` statement calls, for programs that call it themselves.

use std::rc::Rc;

use crate::compile::Mode;
use crate::syntax::ast::Span;
use crate::vm::args::Signature;
use crate::vm::dict::StrKeys;
use crate::vm::exceptions::SyntaxErrorPlace;
use crate::vm::frame::{Frame, FrameResult};
use crate::vm::frames::code_value;
use crate::vm::object::{CodeObj, KwArgs, NativeFn, ObjectKind};
use crate::vm::value::{PyDict, Value};
use crate::vm::{Exc, PyResult, Vm};

pub const FUNCTIONS: &[(&str, NativeFn)] = &[
    ("exec", builtin_exec),
    ("eval", builtin_eval),
    ("compile", builtin_compile),
    ("__import__", builtin_import),
];

const IMPORT: Signature = Signature::keywords(
    "builtins",
    "__import__",
    &["name", "globals", "locals", "fromlist", "level"],
    1,
    0,
);

/// `__import__(name, globals=None, locals=None, fromlist=(), level=0)`: the import the
/// `IMPORT_NAME` instruction makes (`Vm::import_name`); `globals` places a relative import.
fn builtin_import(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let slots = IMPORT.bind(vm, args, kw)?;
    let arg = |i: usize| slots[i].clone().unwrap_or(Value::None);
    let name = match arg(0) {
        Value::Str(s) => s,
        _ => return Err(vm.type_error("module name must be a string")),
    };
    let level = match slots[4].clone() {
        Some(level) => vm.expect_index(&level)?,
        None => 0,
    };
    if level < 0 {
        return Err(vm.value_error("level must be >= 0"));
    }
    let globals = match arg(1) {
        Value::Dict(d) => d,
        _ => Rc::new(PyDict {
            table: Default::default(),
        }),
    };
    vm.import_name(name.as_str(), &arg(3), level, &globals)
}

const EXEC: Signature =
    Signature::keywords("builtins", "exec", &["source", "globals", "locals"], 1, 1);
const EVAL: Signature =
    Signature::keywords("builtins", "eval", &["source", "globals", "locals"], 1, 1);
const COMPILE: Signature = Signature::keywords(
    "builtins",
    "compile",
    &[
        "source",
        "filename",
        "mode",
        "flags",
        "dont_inherit",
        "optimize",
    ],
    3,
    0,
);

fn builtin_exec(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let [source, globals, locals] = bound3(vm, &EXEC, args, kw)?;
    let (globals, locals) = namespaces(vm, "exec", globals, locals)?;
    let code = code_of(vm, "exec", &source, Mode::Exec)?;
    run(vm, code, globals, locals)?;
    Ok(Value::None)
}

fn builtin_eval(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let [source, globals, locals] = bound3(vm, &EVAL, args, kw)?;
    let (globals, locals) = namespaces(vm, "eval", globals, locals)?;
    let code = code_of(vm, "eval", &source, Mode::Eval)?;
    run(vm, code, globals, locals)
}

fn builtin_compile(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let slots = COMPILE.bind(vm, args, kw)?;
    let arg = |i: usize| slots[i].clone().unwrap_or(Value::None);
    let mode = match arg(2).as_str() {
        Some("exec") => Mode::Exec,
        Some("eval") => Mode::Eval,
        Some("single") => Mode::Single,
        Some(_) => {
            return Err(vm.value_error("compile() mode must be 'exec', 'eval' or 'single'"));
        }
        None => {
            return Err(vm.type_error(format!(
                "compile() argument 'mode' must be str, not {}",
                vm.arg_type_name(&arg(2))
            )));
        }
    };
    let filename = match arg(1) {
        Value::Str(s) => s,
        other => {
            return Err(vm.type_error(format!(
                "compile() argument 'filename' must be str, not {}",
                vm.type_name(&other)
            )));
        }
    };
    let Value::Str(text) = arg(0) else {
        return Err(vm.type_error("compile() arg 1 must be a string, bytes or AST object"));
    };
    let flags = match &slots[3] {
        Some(flags) => vm.expect_index(flags)?,
        None => 0,
    };
    if flags & !KNOWN_FLAGS != 0 {
        return Err(vm.value_error("compile(): unrecognised flags"));
    }
    if flags & PYCF_ONLY_AST != 0 {
        // The tree, as `ast.parse` (written in apy) makes it.
        let ast = vm.import_module("ast")?;
        let parse = vm.intern("parse");
        let parse = vm.get_attr(&ast, &parse)?;
        let (source, name) = (Value::Str(text), Value::Str(filename));
        return vm.call(&parse, &[source, name, arg(2)], &[]);
    }
    let (filename, text) = (filename.as_str(), text.as_str());
    let incomplete_allowed = flags & PYCF_ALLOW_INCOMPLETE_INPUT != 0;
    // `single` or `eval` input without its final newline: CPython's parser makes up the
    // NEWLINE, and the DEDENTs only without PyCF_DONT_IMPLY_DEDENT, so that a block left
    // open is incomplete.
    let open_ended = matches!(mode, Mode::Single | Mode::Eval) && !text.ends_with('\n');
    let dont_inherit = match &slots[4] {
        Some(v) => vm.truthy(v)?,
        None => false,
    };
    let caller = match dont_inherit {
        true => Default::default(),
        false => vm.caller_future(),
    };
    let inherited = crate::compile::Inherited {
        annotations: flags & CO_FUTURE_ANNOTATIONS != 0 || caller.annotations,
    };
    match (vm.compile)(filename, text, mode, inherited) {
        Ok(_)
            if incomplete_allowed
                && open_ended
                && flags & PYCF_DONT_IMPLY_DEDENT != 0
                && crate::syntax::indent::ends_inside_block(text) =>
        {
            Err(incomplete_input(vm, filename, text, None))
        }
        Ok(code) => {
            let code = vm.load_code(&code);
            Ok(code_value(vm, &code))
        }
        Err(diagnostic) if incomplete_allowed && diagnostic.incomplete => {
            Err(incomplete_input(vm, filename, text, diagnostic.span))
        }
        Err(diagnostic) => {
            let class = vm.syntax_error_class(&diagnostic);
            // That made-up NEWLINE has no column in CPython.
            let column_zero = open_ended
                && diagnostic.class_name == "SyntaxError"
                && diagnostic.span.is_some_and(|span| {
                    let rest = text.get(span.start as usize..).unwrap_or("").trim_start();
                    rest.is_empty() || rest.starts_with('#')
                });
            let place = SyntaxErrorPlace {
                filename,
                source: text,
                column_zero,
            };
            Err(vm.syntax_error_at(&class, &diagnostic.message, diagnostic.span, place))
        }
    }
}

/// `compile()`'s flags (`Include/cpython/compile.h`) that apy acts on: codeop's, which ask
/// for `_IncompleteInputError` rather than a SyntaxError when more lines could complete the
/// input, and for a `single` input's open block to count as such; and `ast.parse`'s, for
/// the tree rather than the code.
const PYCF_DONT_IMPLY_DEDENT: i64 = 0x200;
const PYCF_ONLY_AST: i64 = 0x400;
const PYCF_ALLOW_INCOMPLETE_INPUT: i64 = 0x4000;

/// The `__future__` feature apy acts on (`annotations`), as a `compile()` flag and in
/// `co_flags`; codeop's `Compile` passes it on from the input that imported it.
const CO_FUTURE_ANNOTATIONS: i64 = 0x100_0000;

/// Every flag `compile()` accepts (CPython's `PyCF_MASK | PyCF_MASK_OBSOLETE |
/// PyCF_COMPILE_MASK`): the `__future__` features, `CO_NESTED` and the `PyCF_*` ones.
const KNOWN_FLAGS: i64 = 0x1fe_0000 | 0x10 | 0x200 | 0x400 | 0x1000 | 0x2000 | 0x4000 | 0x8000;

/// CPython's `_IncompleteInputError("incomplete input")`, which codeop takes for "more
/// lines could complete this".
fn incomplete_input(vm: &mut Vm, filename: &str, source: &str, span: Option<Span>) -> Exc {
    let class = vm.types.incomplete_input_error.clone();
    let place = SyntaxErrorPlace {
        filename,
        source,
        column_zero: false,
    };
    vm.syntax_error_at(&class, "incomplete input", span, place)
}

fn bound3(vm: &Vm, signature: &Signature, args: &[Value], kw: &KwArgs) -> PyResult<[Value; 3]> {
    let slots = signature.bind(vm, args, kw)?;
    Ok(std::array::from_fn(|i| {
        slots[i].clone().unwrap_or(Value::None)
    }))
}

/// The globals and locals to run in: the caller's when no globals are given, the globals
/// as locals when only they are.
fn namespaces(
    vm: &mut Vm,
    fname: &str,
    globals: Value,
    locals: Value,
) -> PyResult<(Rc<PyDict>, Rc<PyDict>)> {
    let globals = match globals {
        Value::None => None,
        Value::Dict(d) => Some(d),
        other if fname == "exec" => {
            return Err(vm.type_error(format!(
                "exec() globals must be a dict, not {}",
                vm.type_name(&other)
            )));
        }
        _ => return Err(vm.type_error("globals must be a dict")),
    };
    let locals = match locals {
        Value::None => None,
        Value::Dict(d) => Some(d),
        other if fname == "exec" && !vm.is_mapping(&other) => {
            return Err(vm.type_error(format!(
                "locals must be a mapping or None, not {}",
                vm.type_name(&other)
            )));
        }
        other if !vm.is_mapping(&other) => {
            return Err(vm.type_error("locals must be a mapping"));
        }
        _ => {
            return Err(vm.type_error(format!(
                "{fname}() locals other than a dict are outside apy's subset"
            )));
        }
    };
    let (globals, locals) = match (globals, locals) {
        (Some(g), l) => (g.clone(), l.unwrap_or(g)),
        (None, l) => {
            let (caller_globals, caller_locals) = match vm.caller_scope() {
                Some(scope) => scope,
                None => (
                    Rc::new(PyDict {
                        table: Default::default(),
                    }),
                    Value::None,
                ),
            };
            let caller_locals = match caller_locals {
                Value::Dict(d) => d,
                _ => caller_globals.clone(),
            };
            (caller_globals, l.unwrap_or(caller_locals))
        }
    };
    // As `PyEval_EvalCode` needs: the namespace names the builtins it falls back on.
    let key = vm.names.builtins.clone();
    if globals.table.borrow().get_str(&key).is_none() {
        let builtins = Value::Dict(vm.builtins.clone());
        globals.table.borrow_mut().set_str(key, builtins);
    }
    Ok((globals, locals))
}

/// The code `exec`/`eval` runs: a code object as it is, a string compiled as `<string>`
/// (`eval` first drops the spaces and tabs it starts with, as CPython does).
fn code_of(vm: &mut Vm, fname: &str, source: &Value, mode: Mode) -> PyResult<Rc<CodeObj>> {
    match source {
        Value::Str(text) => {
            let text = match mode {
                Mode::Eval => text.as_str().trim_start_matches([' ', '\t']),
                _ => text.as_str(),
            };
            compile_text(vm, "<string>", text, mode)
        }
        Value::Object(o) if matches!(o.kind, ObjectKind::Code(_)) => match &o.kind {
            ObjectKind::Code(code) => Ok(code.clone()),
            _ => unreachable!("matched a code object"),
        },
        _ => Err(vm.type_error(format!(
            "{fname}() arg 1 must be a string, bytes or code object"
        ))),
    }
}

/// `text` compiled for `exec` or `eval`, with the caller's `__future__` features.
fn compile_text(vm: &mut Vm, filename: &str, text: &str, mode: Mode) -> PyResult<Rc<CodeObj>> {
    let inherited = vm.caller_future();
    match (vm.compile)(filename, text, mode, inherited) {
        Ok(code) => Ok(vm.load_code(&code)),
        Err(diagnostic) => Err(vm.syntax_error_from(&diagnostic, filename, text)),
    }
}

/// Runs `code` with `globals` and `locals` as its namespaces; what it returned (an
/// `eval`'s value).
fn run(vm: &mut Vm, code: Rc<CodeObj>, globals: Rc<PyDict>, locals: Rc<PyDict>) -> PyResult<Value> {
    let mut frame = Frame::for_module(vm, code, globals);
    frame.locals_dict = Some(locals);
    match vm.run_frame(&mut frame, None) {
        FrameResult::Returned(v) => Ok(v),
        FrameResult::Yielded(_) => Err(vm.runtime_error("top-level await in exec() or eval()")),
        FrameResult::Err(e) => Err(e),
    }
}
