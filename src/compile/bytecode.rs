//! The instruction set and code objects: what the compiler emits and the VM runs.
//!
//! Modelled on CPython 3.13's bytecode (`Include/opcode.h`, `Python/bytecodes.c`, the `dis`
//! docs) so that `apy --dis` reads beside `python3.13 -m dis`. Each instruction is one
//! fixed-size enum value with at most one `u32` argument. Jump targets are absolute
//! instruction indices (shown by `--dis` as CPython byte offsets, `index * 2`). Exceptions use
//! a zero-cost exception table, as in CPython 3.11+. Nothing here knows about runtime values:
//! constants are [`Constant`]s, which the VM turns into values when it loads a code object.
//!
//! Stack notation in the doc lines: `(before -- after)`, top of stack on the right.
//! `NULL` is the VM's "no value" marker used by the call protocol.

use std::rc::Rc;

use num_bigint::BigInt;
use serde::{Deserialize, Serialize};

use crate::syntax::ast::Span;

/// An index into `Code::instructions`.
pub type Label = u32;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Instr {
    // ---- stack manipulation -------------------------------------------------------------
    /// Do nothing (keeps a line number alive for tracing).
    Nop,
    /// `(x -- )`
    PopTop,
    /// `( -- NULL)` pushed below a callable's arguments when there is no `self`.
    PushNull,
    /// `(x1 ... xn -- x1 ... xn x1)`: push a copy of the n-th item (1 = top).
    Copy(u32),
    /// Swap the top of stack with the n-th item (n >= 2).
    Swap(u32),

    // ---- constants and names -------------------------------------------------------------
    /// `( -- constants[i])`
    LoadConst(u32),
    /// `( -- locals[i])` where every path to it binds locals[i] (`compile::peephole`'s
    /// analysis, as CPython's `add_checks_for_loads_of_uninitialized_variables`): no check.
    LoadFast(u32),
    /// `( -- locals[i])`; UnboundLocalError if unbound: a load some path reaches with the
    /// local unbound.
    LoadFastCheck(u32),
    /// `( -- locals[i])` and leave the slot unbound (PEP 709 inlined comprehensions save an
    /// outer variable of the same name this way). Pushes NULL if it was unbound.
    LoadFastAndClear(u32),
    /// `(v -- )` locals[i] = v. Storing NULL (from LoadFastAndClear) unbinds the slot.
    StoreFast(u32),
    /// `(v -- )` a `StoreFast` whose value may be NULL (an inlined comprehension putting back
    /// what `LoadFastAndClear` saved): the compiler's until the analysis of unbound locals has
    /// seen it, then a `StoreFast` (CPython's `STORE_FAST_MAYBE_NULL` pseudo-instruction).
    StoreFastMaybeNull(u32),
    /// `( -- locals[i >> 4] locals[i & 15])`: CPython 3.13's superinstruction for two
    /// `LoadFast`s in a row on one line (see `compile::peephole`).
    LoadFastLoadFast(u32),
    /// `(v -- locals[i & 15])` with locals[i >> 4] = v: `StoreFast` then `LoadFast`.
    StoreFastLoadFast(u32),
    /// `(v2 v1 -- )` locals[i >> 4] = v1, then locals[i & 15] = v2: two `StoreFast`s.
    StoreFastStoreFast(u32),
    /// Unbind locals[i]; UnboundLocalError if already unbound.
    DeleteFast(u32),
    /// `( -- v)` look names[i] up in locals dict, then globals, then builtins (module and
    /// class bodies). NameError if absent.
    LoadName(u32),
    /// `(v -- )` store into the locals dict.
    StoreName(u32),
    DeleteName(u32),
    /// `( -- v)` look names[i] up in globals then builtins. NameError if absent.
    LoadGlobal(u32),
    /// `( -- v NULL)`: `LoadGlobal` then `PushNull`, for calling a global. CPython 3.13
    /// has one LOAD_GLOBAL with the low bit of its argument set, and `--dis` shows it so.
    LoadGlobalNull(u32),
    StoreGlobal(u32),
    DeleteGlobal(u32),
    /// `( -- v)` the contents of cell i (cells = cellvars ++ freevars). Raises
    /// UnboundLocalError for an empty cellvar, NameError ("cannot access free variable …")
    /// for an empty freevar.
    LoadDeref(u32),
    StoreDeref(u32),
    DeleteDeref(u32),
    /// `( -- cell)` push the cell object i itself, to build a closure tuple.
    LoadClosure(u32),
    /// `(mapping -- v)` class bodies: look the name of cell i up in `mapping` (the class
    /// namespace, pushed by `LoadLocals`) first, then load the contents of cell i (a free
    /// variable of an enclosing function that the class body reads).
    LoadFromDictOrDeref(u32),
    /// `(mapping -- v)` annotation scopes inside a class: look `names[i]` up in `mapping`
    /// (the class namespace, from the `__classdict__` cell) first, then in the globals and
    /// the builtins.
    LoadFromDictOrGlobals(u32),
    /// `( -- locals)` push the frame's locals mapping (the class namespace in a class body).
    LoadLocals,

    // ---- attributes and subscripts -------------------------------------------------------
    /// `(obj -- obj.names[i])`
    LoadAttr(u32),
    /// `(obj -- meth self)` when the attribute is a plain function found on the type,
    /// `(obj -- attr NULL)` otherwise. Followed by a `Call`.
    LoadMethod(u32),
    /// `(v obj -- )` obj.names[i] = v
    StoreAttr(u32),
    /// `(obj -- )` del obj.names[i]
    DeleteAttr(u32),
    /// `(global_super class self -- attr)`: `super().names[i]`. The compiler emits this for
    /// a zero-argument `super()` followed by an attribute.
    LoadSuperAttr(u32),
    /// `(global_super class self -- meth self_or_null)`: `super().names[i](…)`.
    LoadSuperMethod(u32),
    /// `(container key -- container[key])`
    BinarySubscr,
    /// `(v container key -- )` container[key] = v
    StoreSubscr,
    /// `(container key -- )` del container[key]
    DeleteSubscr,
    /// `(container start stop -- container[start:stop])`
    BinarySlice,
    /// `(v container start stop -- )` container[start:stop] = v
    StoreSlice,
    /// `(start stop -- slice)` when the argument is 2, `(start stop step -- slice)` when 3.
    BuildSlice(u32),

    // ---- operators -----------------------------------------------------------------------
    /// `(a -- -a)`
    UnaryNegative,
    /// `(a -- not a)`
    UnaryNot,
    /// `(a -- ~a)`
    UnaryInvert,
    /// `(a b -- a op b)`, dispatching to `__op__`/`__rop__` (or `__iop__` for in-place).
    BinaryOp(BinaryOperator),
    /// `(a b -- a op b)` for `< <= == != > >=`.
    CompareOp(CompareOperator),
    /// `(a b -- a is b)`; `a is not b` when the argument is 1.
    IsOp(u32),
    /// `(a b -- a in b)`; `a not in b` when the argument is 1.
    ContainsOp(u32),
    /// `(v -- intrinsic(v))`
    CallIntrinsic1(Intrinsic1),
    /// `(a b -- intrinsic(a, b))`
    CallIntrinsic2(Intrinsic2),

    // ---- building containers -------------------------------------------------------------
    /// `(x1 ... xn -- (x1, ..., xn))`
    BuildTuple(u32),
    BuildList(u32),
    BuildSet(u32),
    /// `(k1 v1 ... kn vn -- {k1: v1, ...})`
    BuildMap(u32),
    /// `(s1 ... sn -- s1 + ... + sn)` concatenate n strings (f-strings).
    BuildString(u32),
    /// `(list ... item -- list ...)`: append to the list n items below (after popping item).
    ListAppend(u32),
    SetAdd(u32),
    /// `(map ... key value -- map ...)`
    MapAdd(u32),
    /// `(list ... iterable -- list ...)` list.extend(iterable), for `[*a, *b]`.
    ListExtend(u32),
    SetUpdate(u32),
    /// `(map ... mapping -- map ...)` for `{**a}`.
    DictUpdate(u32),
    /// Like DictUpdate but raises TypeError on duplicate keys (`f(**a, **b)`).
    DictMerge(u32),
    /// `(obj -- obj len(obj))` for sequence and mapping patterns.
    GetLen,
    /// `(subject -- subject bool)`: is the subject a mapping (dict, its subclasses, a
    /// registered `collections.abc.Mapping`)?
    MatchMapping,
    /// `(subject -- subject bool)`: is it a sequence (list, tuple, range, deque, their
    /// subclasses, a registered `collections.abc.Sequence`; never str, bytes, bytearray)?
    MatchSequence,
    /// `(subject keys -- subject keys values)`: the tuple of `subject.get(key)` for each key,
    /// or None when one is missing.
    MatchKeys,
    /// `(subject cls names -- attrs)`: when the subject is an instance of `cls`, the tuple of
    /// its attributes for n positional sub-patterns (through `__match_args__`) and the
    /// keyword `names`; None when it is not or an attribute is missing.
    MatchClass(u32),
    /// `(seq -- xn ... x1)` unpack exactly n items ("not enough values to unpack", "too many …").
    UnpackSequence(u32),
    /// `(seq -- ...)` starred unpacking: low byte = items before the star, high byte = after.
    UnpackEx(u32),

    // ---- f-strings ------------------------------------------------------------------------
    /// `(v -- conv(v))`: 1 = str, 2 = repr, 3 = ascii.
    ConvertValue(u32),
    /// `(v -- format(v, ''))`
    FormatSimple,
    /// `(v spec -- format(v, spec))`
    FormatWithSpec,

    // ---- control flow ----------------------------------------------------------------------
    /// Unconditional jump (shown as JUMP_FORWARD / JUMP_BACKWARD).
    Jump(Label),
    /// The same jump where CPython checks for no interrupt on the way back: the return to
    /// `SEND` in an `await`/`yield from` loop and the exit of an exception handler (shown as
    /// JUMP_FORWARD / JUMP_BACKWARD_NO_INTERRUPT). apy checks no interrupt at any jump.
    JumpNoInterrupt(Label),
    /// `(v -- )` jump if v is false (truthiness via `__bool__`/`__len__`).
    PopJumpIfFalse(Label),
    PopJumpIfTrue(Label),
    PopJumpIfNone(Label),
    PopJumpIfNotNone(Label),
    /// `(iterable -- iterator)`
    GetIter,
    /// `(iterator -- iterator next)`, or when exhausted `(iterator -- )` and jump.
    ForIter(Label),
    /// `(v -- )` return v to the caller.
    ReturnValue,
    /// Return constants[i].
    ReturnConst(u32),

    // ---- functions and classes -------------------------------------------------------------
    /// `(code -- function)` the code is a constant; the function's globals are the frame's.
    MakeFunction,
    /// `(value function -- function)`: set an attribute of a new function; the argument
    /// says which: 0x01 defaults tuple, 0x02 kw-only defaults dict, 0x04 annotations as a
    /// flat tuple `(name1, value1, name2, value2, ...)` (`__annotations__` is the dict of
    /// those pairs, in that order), 0x08 closure tuple.
    SetFunctionAttribute(u32),
    /// `(callable self_or_null arg1 ... argn -- result)`; a non-NULL self is the first argument.
    Call(u32),
    /// `(callable self_or_null arg1 ... argn kwnames -- result)`: the last len(kwnames)
    /// arguments are keyword arguments named by the tuple `kwnames`.
    CallKw(u32),
    /// `(callable NULL args_tuple [kwargs_dict] -- result)`; kwargs present when arg & 1.
    CallFunctionEx(u32),
    /// `( -- __build_class__)`
    LoadBuildClass,
    /// `( -- )` module and class bodies with annotated names: if the locals mapping has no
    /// `__annotations__`, set it to a new empty dict.
    SetupAnnotations,

    // ---- exceptions -------------------------------------------------------------------------
    /// `raise` (0 args: re-raise the handled exception), `raise exc` (1), `raise exc from
    /// cause` (2).
    RaiseVarargs(u32),
    /// `(... exc -- )` re-raise exc. If the argument is non-zero, the item that many below the
    /// exception is the `lasti` to restore (the traceback keeps the original line).
    Reraise(u32),
    /// `(exc -- prev_exc exc)`: save the currently handled exception and make exc current.
    PushExcInfo,
    /// `(prev_exc -- )` restore the previously handled exception.
    PopExcept,
    /// `(exc type -- exc bool)` isinstance check for `except type:` (tuple allowed);
    /// TypeError "catching classes that do not inherit from BaseException is not allowed".
    CheckExcMatch,
    /// `(exc type -- rest match)` for `except* type:`: split `exc` by `type` (CPython's
    /// `_PyEval_ExceptionGroupMatch`). No match: `rest` is exc, `match` None. A naked exception
    /// that matches is wrapped: `match` = `ExceptionGroup('', [exc])`, `rest` None. A group is
    /// split with `exc.split(type)`; the matched part becomes the handled exception.
    /// TypeError "catching ExceptionGroup with except* is not allowed. Use except instead."
    /// when `type` is (or contains) a BaseExceptionGroup subclass.
    CheckEgMatch,
    /// `(orig excs -- result)` at the end of `try/except*` (CPython's
    /// `CALL_INTRINSIC_2 INTRINSIC_PREP_RERAISE_STAR`): `excs` is a list of the exceptions
    /// raised in handlers plus the unmatched rest (None entries skipped). Push None if there is
    /// nothing to re-raise, else the exception group to re-raise (`_PyExc_PrepReraiseStar`).
    PrepReraiseStar,
    /// `( -- AssertionError)`
    LoadAssertionError,
    /// `(mgr -- exit enter_result)` for `with`: look up `__exit__`, call `__enter__`.
    BeforeWith,
    /// `(exit lasti prev_exc exc -- exit lasti prev_exc exc res)`: call
    /// `exit(type(exc), exc, exc.__traceback__)`.
    WithExceptStart,

    // ---- generators and coroutines -------------------------------------------------------
    /// `(v -- sent)` suspend the frame, handing v to the caller of send/next; resumes with the
    /// sent value on the stack. The argument is the exception-depth (CPython's oparg), unused.
    YieldValue(u32),
    /// `(receiver v -- receiver result)`: send v into receiver (`next`/`send`/`__next__`).
    /// If the receiver returns, replace v by its return value and jump to the label.
    Send(Label),
    /// `(receiver value -- value)`
    EndSend,
    /// `(iterable -- iterator)` for `yield from`: a coroutine is only accepted inside a
    /// coroutine (types.coroutine generators), otherwise like `iter()`.
    GetYieldFromIter,
    /// `(obj -- awaitable)` for `await`: `obj.__await__()` or obj itself for a coroutine;
    /// TypeError "object int can't be used in 'await' expression". The argument tells where
    /// the await is, for the error message (CPython's oparg: 0, 1, 2).
    GetAwaitable(AwaitSite),
    /// `(aiterable -- aiterator)` for `async for`: `__aiter__()`.
    GetAiter,
    /// `(aiterator -- aiterator awaitable)`: `__anext__()` made awaitable.
    GetAnext,
    /// `(aiterator exc -- )` at the end of `async for`: swallow StopAsyncIteration, re-raise
    /// anything else.
    EndAsyncFor,
    /// `(mgr -- aexit awaitable)` for `async with`: look up `__aexit__`, call `__aenter__`.
    BeforeAsyncWith,
    /// `(sub_iter last_sent_val exc -- none value)` when a throw() into a delegated
    /// sub-iterator ends with StopIteration, take its value; otherwise re-raise.
    CleanupThrow,

    // ---- modules ---------------------------------------------------------------------------
    /// `(level fromlist -- module)` import names[i].
    ImportName(u32),
    /// `(module -- module attr)` `from module import names[i]`.
    ImportFrom(u32),

    // ---- quickened forms -------------------------------------------------------------------
    // Never made by the compiler, so never in `Code::instructions` or `--dis`: the VM makes
    // them in the copy of a code object's instructions it runs (`vm::quicken`), as CPython
    // specialises instructions in place where `dis` does not look. Each stands in for the
    // instruction it replaces (most often a `LOAD_FAST`) and runs the instructions after it
    // too, which stay in place for any jump into them.
    /// `LOAD_FAST local; LOAD_ATTR name`, as `(local, name)`.
    LoadFastLoadAttr(u8, u32),
    /// `LOAD_FAST local; LOAD_ATTR name` in its method form (`LoadMethod`).
    LoadFastLoadMethod(u8, u32),
    /// `LOAD_FAST local; LOAD_CONST constant; BINARY_OP op`, as `(op, local | constant << 16)`.
    LoadFastConstBinaryOp(BinaryOperator, u32),
    /// `LOAD_FAST local; LOAD_CONST constant; COMPARE_OP op`, as `(op, local | constant << 16)`.
    LoadFastConstCompareOp(CompareOperator, u32),
    /// `LOAD_FAST_LOAD_FAST pair; BINARY_OP op`, as `(op, pair)`.
    LoadFastLoadFastBinaryOp(BinaryOperator, u32),
    /// `LOAD_FAST_LOAD_FAST pair; COMPARE_OP op`, as `(op, pair)`.
    LoadFastLoadFastCompareOp(CompareOperator, u32),
    /// `LOAD_FAST_LOAD_FAST pair; STORE_ATTR name` (`self.x = x`), as `(pair, name)`.
    LoadFastLoadFastStoreAttr(u8, u32),
    /// `LOAD_FAST_LOAD_FAST pair; BINARY_SUBSCR` (`xs[i]`), as `(pair)`.
    LoadFastLoadFastSubscr(u32),
    /// `LOAD_FAST_LOAD_FAST pair; COPY 2; COPY 2; BINARY_SUBSCR` (the load of `xs[i] += v`),
    /// as `(pair)`.
    LoadFastLoadFastSubscrKeep(u32),
    /// `LOAD_FAST a; LOAD_FAST b; BINARY_OP op` (locals no pair can hold), as
    /// `(op, a | b << 16)`.
    LoadFastPairBinaryOp(BinaryOperator, u32),
    /// `LOAD_FAST local; BINARY_OP op` (`… * m`), as `(op, local)`.
    LoadFastBinaryOp(BinaryOperator, u32),
    /// `LOAD_CONST constant; BINARY_OP op` (`… + 1`), as `(op, constant)`.
    LoadConstBinaryOp(BinaryOperator, u32),
    /// `LOAD_FAST local; BINARY_SUBSCR` (`…[i]`), as `(local)`.
    LoadFastSubscr(u32),
    /// `BINARY_OP op; STORE_FAST local`, as `(op, local)`.
    BinaryOpStoreFast(BinaryOperator, u32),
    /// `BINARY_OP op; SWAP 3; SWAP 2; STORE_SUBSCR` (the store of `xs[i] += v`), as `(op)`.
    BinaryOpStoreSubscr(BinaryOperator),
    /// `LOAD_FAST local; COPY 1; LOAD_ATTR name` (the load of `o.x += v`), as
    /// `(local, name)`.
    LoadFastCopyLoadAttr(u8, u32),
    /// `BINARY_OP op; SWAP 2; STORE_ATTR name` (the store of `o.x += v`), as `(op, name)`.
    BinaryOpStoreAttr(BinaryOperator, u32),
    /// `LOAD_FAST local; RETURN_VALUE` (`return x`), as `(local)`.
    LoadFastReturn(u32),
    /// `BINARY_OP op; RETURN_VALUE` (`return f(a) + f(b)`), as `(op)`.
    BinaryOpReturn(BinaryOperator),
    /// `CALL n` whose result is awaited: `GET_AWAITABLE` (or `GET_YIELD_FROM_ITER`),
    /// `LOAD_CONST None` and `SEND` follow. Runs as `CALL n`, trying first to start the
    /// callee's first step fused (`vm::fast_calls::awaited_call`).
    CallAwaited(u32),
    /// Past the last instruction (and in place of an instruction whose operand points
    /// outside its code): raises RuntimeError "bytecode ran off the end of the code object".
    /// The compiler's code never gets here (it ends in a return, a raise or a jump back);
    /// it is there so that fetching the next instruction needs no bounds check.
    EndOfCode,
}

// Instructions are copied on every dispatch: they must stay one word. (The quickened forms
// keep their operands where the others do, a byte after the tag and a word at offset 4, so
// the dispatch loop decodes no more fields than before.)
const _: () = assert!(std::mem::size_of::<Instr>() == 8);

/// Where a `GetAwaitable` is, which words its TypeError: CPython's oparg values, so
/// `--dis` shows the same number as `python3.13 -m dis`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[repr(u8)]
pub enum AwaitSite {
    /// `await x`, and the awaits of `async for` and async comprehensions.
    Await = 0,
    /// The `await` of `async with`'s `__aenter__()`.
    AsyncWithEnter = 1,
    /// The `await` of `async with`'s `__aexit__()`.
    AsyncWithExit = 2,
}

impl Instr {
    /// The jump target of a jumping instruction.
    pub fn jump_target(&self) -> Option<Label> {
        match *self {
            Instr::Jump(t)
            | Instr::JumpNoInterrupt(t)
            | Instr::PopJumpIfFalse(t)
            | Instr::PopJumpIfTrue(t)
            | Instr::PopJumpIfNone(t)
            | Instr::PopJumpIfNotNone(t)
            | Instr::ForIter(t)
            | Instr::Send(t) => Some(t),
            _ => None,
        }
    }

    /// The same instruction jumping to `target` instead (no-op for non-jumps).
    pub fn with_jump_target(self, target: Label) -> Instr {
        match self {
            Instr::Jump(_) => Instr::Jump(target),
            Instr::JumpNoInterrupt(_) => Instr::JumpNoInterrupt(target),
            Instr::PopJumpIfFalse(_) => Instr::PopJumpIfFalse(target),
            Instr::PopJumpIfTrue(_) => Instr::PopJumpIfTrue(target),
            Instr::PopJumpIfNone(_) => Instr::PopJumpIfNone(target),
            Instr::PopJumpIfNotNone(_) => Instr::PopJumpIfNotNone(target),
            Instr::ForIter(_) => Instr::ForIter(target),
            Instr::Send(_) => Instr::Send(target),
            other => other,
        }
    }

    /// True when execution never continues with the next instruction.
    pub fn is_terminator(&self) -> bool {
        matches!(
            self,
            Instr::Jump(_)
                | Instr::JumpNoInterrupt(_)
                | Instr::ReturnValue
                | Instr::ReturnConst(_)
                | Instr::RaiseVarargs(_)
                | Instr::Reraise(_)
        )
    }

    /// The change in stack depth, when the instruction falls through (`jump == false`) or
    /// jumps (`jump == true`). Matches the `(before -- after)` doc lines above.
    pub fn stack_effect(&self, jump: bool) -> i32 {
        use Instr::*;
        match *self {
            Nop
            | EndOfCode
            | SetupAnnotations
            | Swap(_)
            | Jump(_)
            | JumpNoInterrupt(_)
            | LoadAttr(_)
            | UnaryNegative
            | UnaryNot
            | UnaryInvert
            | CallIntrinsic1(_)
            | ConvertValue(_)
            | FormatSimple
            | GetIter
            | ReturnConst(_)
            | MakeFunction
            | CheckExcMatch
            | CheckEgMatch
            | YieldValue(_)
            | Send(_)
            | GetYieldFromIter
            | GetAwaitable(_)
            | GetAiter
            | LoadFromDictOrDeref(_)
            | LoadFromDictOrGlobals(_)
            | DeleteFast(_)
            | DeleteName(_)
            | DeleteGlobal(_)
            | DeleteDeref(_)
            | StoreFastLoadFast(_)
            | LoadFastLoadFastStoreAttr(..)
            | LoadFastBinaryOp(..)
            | LoadConstBinaryOp(..)
            | LoadFastSubscr(_) => 0,
            PushNull
            | Copy(_)
            | LoadConst(_)
            | LoadFast(_)
            | LoadFastCheck(_)
            | LoadFastAndClear(_)
            | LoadName(_)
            | LoadGlobal(_)
            | LoadDeref(_)
            | LoadClosure(_)
            | LoadLocals
            | LoadMethod(_)
            | LoadBuildClass
            | PushExcInfo
            | LoadAssertionError
            | BeforeWith
            | WithExceptStart
            | GetAnext
            | BeforeAsyncWith
            | GetLen
            | MatchMapping
            | MatchSequence
            | MatchKeys
            | ImportFrom(_)
            | LoadFastLoadAttr(..)
            | LoadFastConstBinaryOp(..)
            | LoadFastConstCompareOp(..)
            | LoadFastLoadFastBinaryOp(..)
            | LoadFastLoadFastCompareOp(..)
            | LoadFastLoadFastSubscr(_)
            | LoadFastPairBinaryOp(..) => 1,
            LoadFastLoadFast(_) | LoadGlobalNull(_) | LoadFastLoadMethod(..) => 2,
            PopTop
            | StoreFast(_)
            | StoreFastMaybeNull(_)
            | StoreName(_)
            | StoreGlobal(_)
            | StoreDeref(_)
            | DeleteAttr(_)
            | LoadSuperMethod(_)
            | BinarySubscr
            | BinaryOp(_)
            | CompareOp(_)
            | IsOp(_)
            | ContainsOp(_)
            | ListAppend(_)
            | SetAdd(_)
            | ListExtend(_)
            | SetUpdate(_)
            | DictUpdate(_)
            | DictMerge(_)
            | FormatWithSpec
            | PopJumpIfFalse(_)
            | PopJumpIfTrue(_)
            | PopJumpIfNone(_)
            | PopJumpIfNotNone(_)
            | ReturnValue
            | SetFunctionAttribute(_)
            | Reraise(_)
            | PopExcept
            | EndSend
            | ImportName(_)
            | CleanupThrow
            | CallIntrinsic2(_)
            | PrepReraiseStar => -1,
            StoreAttr(_)
            | DeleteSubscr
            | LoadSuperAttr(_)
            | BinarySlice
            | MapAdd(_)
            | MatchClass(_)
            | EndAsyncFor
            | StoreFastStoreFast(_) => -2,
            StoreSubscr => -3,
            LoadFastLoadFastSubscrKeep(_) => 3,
            LoadFastCopyLoadAttr(..) => 2,
            BinaryOpStoreAttr(..) => -3,
            BinaryOpStoreFast(..) => -2,
            LoadFastReturn(_) => 0,
            BinaryOpReturn(_) => -2,
            BinaryOpStoreSubscr(_) => -4,
            StoreSlice => -4,
            BuildSlice(n) | BuildTuple(n) | BuildList(n) | BuildSet(n) | BuildString(n) => {
                1 - n as i32
            }
            BuildMap(n) => 1 - 2 * n as i32,
            UnpackSequence(n) => n as i32 - 1,
            UnpackEx(n) => ((n & 0xff) + (n >> 8)) as i32,
            ForIter(_) => {
                if jump {
                    -1
                } else {
                    1
                }
            }
            Call(n) | CallAwaited(n) => -(n as i32 + 1),
            CallKw(n) => -(n as i32 + 2),
            CallFunctionEx(flags) => -2 - (flags & 1) as i32,
            RaiseVarargs(n) => -(n as i32),
        }
    }
}

/// The operators of `BinaryOp`, numbered as CPython's `NB_*` constants (`Include/opcode.h`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[repr(u8)]
pub enum BinaryOperator {
    Add,
    And,
    FloorDivide,
    Lshift,
    MatrixMultiply,
    Multiply,
    Remainder,
    Or,
    Power,
    Rshift,
    Subtract,
    TrueDivide,
    Xor,
    InplaceAdd,
    InplaceAnd,
    InplaceFloorDivide,
    InplaceLshift,
    InplaceMatrixMultiply,
    InplaceMultiply,
    InplaceRemainder,
    InplaceOr,
    InplacePower,
    InplaceRshift,
    InplaceSubtract,
    InplaceTrueDivide,
    InplaceXor,
}

impl BinaryOperator {
    /// The operator as `dis` shows it and as TypeError messages name it: `+`, `+=`, `//`, …
    pub fn symbol(self) -> &'static str {
        use BinaryOperator::*;
        match self {
            Add => "+",
            And => "&",
            FloorDivide => "//",
            Lshift => "<<",
            MatrixMultiply => "@",
            Multiply => "*",
            Remainder => "%",
            Or => "|",
            Power => "**",
            Rshift => ">>",
            Subtract => "-",
            TrueDivide => "/",
            Xor => "^",
            InplaceAdd => "+=",
            InplaceAnd => "&=",
            InplaceFloorDivide => "//=",
            InplaceLshift => "<<=",
            InplaceMatrixMultiply => "@=",
            InplaceMultiply => "*=",
            InplaceRemainder => "%=",
            InplaceOr => "|=",
            InplacePower => "**=",
            InplaceRshift => ">>=",
            InplaceSubtract => "-=",
            InplaceTrueDivide => "/=",
            InplaceXor => "^=",
        }
    }

    /// The non-in-place operator this one falls back to (`+=` → `+`).
    pub fn base(self) -> BinaryOperator {
        use BinaryOperator::*;
        match self {
            InplaceAdd => Add,
            InplaceAnd => And,
            InplaceFloorDivide => FloorDivide,
            InplaceLshift => Lshift,
            InplaceMatrixMultiply => MatrixMultiply,
            InplaceMultiply => Multiply,
            InplaceRemainder => Remainder,
            InplaceOr => Or,
            InplacePower => Power,
            InplaceRshift => Rshift,
            InplaceSubtract => Subtract,
            InplaceTrueDivide => TrueDivide,
            InplaceXor => Xor,
            other => other,
        }
    }

    pub fn is_inplace(self) -> bool {
        self.base() != self
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[repr(u8)]
pub enum CompareOperator {
    Lt,
    Le,
    Eq,
    Ne,
    Gt,
    Ge,
}

impl CompareOperator {
    pub fn symbol(self) -> &'static str {
        match self {
            CompareOperator::Lt => "<",
            CompareOperator::Le => "<=",
            CompareOperator::Eq => "==",
            CompareOperator::Ne => "!=",
            CompareOperator::Gt => ">",
            CompareOperator::Ge => ">=",
        }
    }

    /// The operator the right operand's reflected method answers (`_Py_SwappedOp`).
    pub fn swapped(self) -> CompareOperator {
        match self {
            CompareOperator::Lt => CompareOperator::Gt,
            CompareOperator::Le => CompareOperator::Ge,
            CompareOperator::Gt => CompareOperator::Lt,
            CompareOperator::Ge => CompareOperator::Le,
            same => same,
        }
    }
}

/// The one-argument intrinsics (`Include/internal/pycore_intrinsics.h`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[repr(u8)]
pub enum Intrinsic1 {
    /// REPL: print the repr of a non-None expression statement value and set `_`.
    Print,
    /// `from m import *`.
    ImportStar,
    /// PEP 479: turn a StopIteration escaping a generator into RuntimeError.
    StopIterationError,
    /// Wrap a value yielded by an async generator so the driver can tell it from a value an
    /// inner `await` passes through.
    AsyncGenWrap,
    /// `+x`.
    UnaryPositive,
    /// `list -> tuple` (for `(*a, *b)` and `f(*a, *b)`).
    ListToTuple,
    /// A type parameter `T` (PEP 695): `typing.TypeVar` of the name.
    TypeVar,
    /// `**P`: `typing.ParamSpec` of the name.
    ParamSpec,
    /// `*Ts`: `typing.TypeVarTuple` of the name.
    TypeVarTuple,
    /// A generic class's implicit base: `Generic[*type_params]`.
    SubscriptGeneric,
    /// `type X = v`: a `typing.TypeAliasType` of `(name, type_params, evaluate_value)`.
    TypeAlias,
}

/// `CALL_INTRINSIC_2`'s functions, numbered from CPython's second (its first,
/// `INTRINSIC_PREP_RERAISE_STAR`, is apy's own `PrepReraiseStar` instruction).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[repr(u8)]
pub enum Intrinsic2 {
    /// `(name, evaluate_bound)`: a TypeVar whose bound is computed on first use.
    TypeVarWithBound,
    /// `(name, evaluate_constraints)`: a TypeVar whose constraints are computed on first use.
    TypeVarWithConstraints,
    /// `(type_params, function)`: sets the function's `__type_params__`.
    SetFunctionTypeParams,
    /// `(type_param, evaluate_default)`: gives a type parameter its lazy default.
    SetTypeparamDefault,
}

impl Intrinsic2 {
    pub fn name(self) -> &'static str {
        match self {
            Intrinsic2::TypeVarWithBound => "INTRINSIC_TYPEVAR_WITH_BOUND",
            Intrinsic2::TypeVarWithConstraints => "INTRINSIC_TYPEVAR_WITH_CONSTRAINTS",
            Intrinsic2::SetFunctionTypeParams => "INTRINSIC_SET_FUNCTION_TYPE_PARAMS",
            Intrinsic2::SetTypeparamDefault => "INTRINSIC_SET_TYPEPARAM_DEFAULT",
        }
    }
}

impl Intrinsic1 {
    pub fn name(self) -> &'static str {
        match self {
            Intrinsic1::Print => "INTRINSIC_PRINT",
            Intrinsic1::ImportStar => "INTRINSIC_IMPORT_STAR",
            Intrinsic1::StopIterationError => "INTRINSIC_STOPITERATION_ERROR",
            Intrinsic1::AsyncGenWrap => "INTRINSIC_ASYNC_GEN_WRAP",
            Intrinsic1::UnaryPositive => "INTRINSIC_UNARY_POSITIVE",
            Intrinsic1::ListToTuple => "INTRINSIC_LIST_TO_TUPLE",
            Intrinsic1::TypeVar => "INTRINSIC_TYPEVAR",
            Intrinsic1::ParamSpec => "INTRINSIC_PARAMSPEC",
            Intrinsic1::TypeVarTuple => "INTRINSIC_TYPEVARTUPLE",
            Intrinsic1::SubscriptGeneric => "INTRINSIC_SUBSCRIPT_GENERIC",
            Intrinsic1::TypeAlias => "INTRINSIC_TYPEALIAS",
        }
    }
}

/// A compile-time constant. The VM converts these to values once per code object.
/// (Read only from the binary's library image, which lives as long as the program: a frozen
/// code object's bytes stay in it, [`super::frozen::FrozenCode`].)
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(bound(deserialize = "'de: 'static"))]
pub enum Constant {
    None,
    Bool(bool),
    Ellipsis,
    Int(i64),
    BigInt(Rc<BigInt>),
    Float(f64),
    /// A complex: its real and imaginary parts.
    Complex(f64, f64),
    Str(Rc<str>),
    Bytes(Rc<[u8]>),
    Tuple(Rc<[Constant]>),
    /// A set display of three or more constants (`{1, 2, 3}`), as CPython folds it
    /// (`compile::constant_set`): made a frozenset by adding the items in this order.
    FrozenSet(Rc<[Constant]>),
    Code(Rc<Code>),
    /// A code object of the frozen library whose body is read from the library image on
    /// first use ([`super::frozen`]); the compiler never makes one.
    Frozen(Rc<super::frozen::FrozenCode>),
}

/// One row of the exception table: an exception raised by an instruction in
/// `start..end` pops the value stack down to `depth` items, pushes the raising
/// instruction's index if `push_lasti`, pushes the exception, and jumps to `target`.
/// Rows never overlap; an instruction in no row lets the exception leave the frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExceptionTableEntry {
    pub start: Label,
    pub end: Label,
    pub target: Label,
    pub depth: u32,
    pub push_lasti: bool,
}

/// Where an instruction came from: its line (1-based) and the span of the expression or
/// statement it belongs to (tracebacks print the line; `--dis` shows it).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Location {
    pub line: u32,
    pub span: Span,
    /// A jump the compiler adds that CPython gives no line of its own (`NO_LOCATION`: the
    /// way back of a loop, the way out of an `if` or `try` branch): tracing sees none there
    /// (`vm::tracing`); everything else shows `line`.
    pub lineless: bool,
}

/// Properties of a code object (`co_flags`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CodeFlags {
    /// A function scope: locals live in fast slots, not in a dict.
    pub optimized: bool,
    pub varargs: bool,
    pub varkeywords: bool,
    /// Contains `yield`: calling it makes a generator.
    pub generator: bool,
    /// `async def` without `yield`: calling it makes a coroutine.
    pub coroutine: bool,
    /// `async def` with `yield`: calling it makes an async generator.
    pub async_generator: bool,
    /// Set by `types.coroutine` on a generator function: its generators can be awaited
    /// (`CO_ITERABLE_COROUTINE`).
    pub iterable_coroutine: bool,
    /// Compiled with `from __future__ import annotations` in force (`CO_FUTURE_ANNOTATIONS`).
    pub future_annotations: bool,
}

/// A compiled function body, class body, comprehension or module (`PyCodeObject`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(bound(deserialize = "'de: 'static"))]
pub struct Code {
    /// `co_name`: `f`, `<module>`, `<lambda>`, `<genexpr>`, `<listcomp>`…
    pub name: Rc<str>,
    /// `co_qualname`: `C.method.<locals>.inner`.
    pub qualname: Rc<str>,
    pub filename: Rc<str>,
    pub first_line: u32,
    pub flags: CodeFlags,
    /// Positional parameters (including positional-only ones).
    pub argcount: u32,
    pub posonlyargcount: u32,
    pub kwonlyargcount: u32,
    pub instructions: Vec<Instr>,
    /// One per instruction.
    pub locations: Vec<Location>,
    pub constants: Vec<Constant>,
    /// Global, attribute and import names (`co_names`).
    pub names: Vec<Rc<str>>,
    /// Fast locals; parameters first, in order: positional, kw-only, `*args`, `**kwargs`.
    pub varnames: Vec<Rc<str>>,
    /// Variables of this scope captured by inner scopes (`co_cellvars`).
    pub cellvars: Vec<Rc<str>>,
    /// For each cellvar, the parameter (index into `varnames`) whose value it starts with.
    pub cell2arg: Vec<Option<u32>>,
    /// Variables of enclosing scopes used here (`co_freevars`); cell slots
    /// `cellvars.len()..` hold them, copied from the function's closure.
    pub freevars: Vec<Rc<str>>,
    pub exception_table: Vec<ExceptionTableEntry>,
    /// Maximum depth of the value stack.
    pub stack_size: u32,
    /// The caret anchors of this code's binary operations, calls and subscripts, by the
    /// expression's span, for tracebacks.
    pub anchors: Vec<(Span, Anchors)>,
    /// A module's SyntaxWarnings (`compile::codegen::warnings`, and the lexer's invalid
    /// escape sequences before them), with their lines: shown by the VM before the code
    /// runs. Empty for every other code object, and for the frozen library.
    #[serde(skip)]
    pub warnings: Vec<(u32, String)>,
}

/// Where `traceback.py` anchors its carets under a failed expression: for `a + b` the
/// operator (`left..right`), for `f(x)` and `x[i]` the opening bracket (`left`) and the
/// expression's end (`right`). Byte offsets in the source. CPython finds them by parsing the
/// failed segment again (`_extract_caret_anchors_from_line_segment`); apy's compiler, which
/// has the syntax tree at hand, records them, so that tracebacks need no parser.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Anchors {
    pub left: u32,
    pub right: u32,
    /// A call that is the whole value of `return name(…)` or `name = f(…)`: `traceback.py`
    /// draws no carets under it (`_should_show_carets`).
    pub quiet: bool,
}

impl Code {
    /// How many slots a frame of this code has below its value stack: the fast locals,
    /// then the cells (CPython's `co_nlocalsplus`).
    #[inline]
    pub fn nlocalsplus(&self) -> usize {
        self.varnames.len() + self.cellvars.len() + self.freevars.len()
    }

    /// How many slots a frame of this code needs in all: [`Code::nlocalsplus`] and the
    /// deepest value stack (CPython's `co_framesize`, less the frame's header).
    #[inline]
    pub fn frame_size(&self) -> usize {
        self.nlocalsplus() + self.stack_size as usize
    }

    /// The caret anchors of the expression at `span`, if it is a binary operation, a call
    /// or a subscript.
    pub fn anchors_at(&self, span: Span) -> Option<Anchors> {
        self.anchors
            .iter()
            .find(|(at, _)| *at == span)
            .map(|&(_, anchors)| anchors)
    }

    /// The line of the instruction before `ip`, the one running or last run (a frame's
    /// `f_lineno`); the first line when `ip` is 0, a frame that has not started.
    pub fn line_before(&self, ip: usize) -> u32 {
        match ip.checked_sub(1) {
            Some(at) => self.locations.get(at).map_or(self.first_line, |l| l.line),
            None => self.first_line,
        }
    }
}
