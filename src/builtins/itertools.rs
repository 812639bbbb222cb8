//! The `itertools` module (`Modules/itertoolsmodule.c`): lazy iterators, one type each
//! (`count`, `cycle`, `repeat`, `chain`, `islice`, `zip_longest`, `product`,
//! `permutations`, `combinations`, `combinations_with_replacement`, `accumulate`,
//! `groupby` with its `_grouper`, `pairwise`, `batched`, `takewhile`, `dropwhile`,
//! `filterfalse`, `starmap`, `compress`, `_tee`) and `tee()`. Each `__next__` takes one
//! step of the C code's, pulls from the iterators it wraps only when CPython does, and
//! counts as a step for `--max-steps` (`Vm::charge`), so an endless one can be stopped.
//! The combinatoric index machines are in `itertools_comb.rs`.

use std::cell::{OnceCell, RefCell};
use std::rc::Rc;

use crate::compile::bytecode::BinaryOperator;
use crate::vm::args::{Signature, check_arity, check_kwargs, kwarg};
use crate::vm::object::{KwArgs, Layout, NativeFn, Object, ObjectKind, PyType};
use crate::vm::ops::to_int;
use crate::vm::types::make_type;
use crate::vm::value::Value;
use crate::vm::{PyResult, Vm};

use super::itertools_comb::{Indices, Kind};
use super::module_args::{bind_kwonly, index_int, index_isize};

/// An itertools object: its state, changed by each `__next__`.
struct Tool(RefCell<State>);

enum State {
    Count {
        cnt: Value,
        step: Value,
    },
    Cycle {
        it: Option<Value>,
        saved: Vec<Value>,
        index: usize,
    },
    Repeat {
        element: Value,
        /// Left to give; `None` for ever.
        cnt: Option<i64>,
    },
    Chain {
        source: Option<Value>,
        active: Option<Value>,
    },
    Islice {
        it: Option<Value>,
        next: i64,
        /// -1 for no stop.
        stop: i64,
        step: i64,
        cnt: i64,
    },
    ZipLongest {
        its: Vec<Option<Value>>,
        active: usize,
        fillvalue: Value,
    },
    Combinatoric {
        pools: Vec<Rc<[Value]>>,
        indices: Indices,
    },
    Accumulate {
        it: Value,
        func: Value,
        total: Option<Value>,
        initial: Option<Value>,
    },
    GroupBy(GroupBy),
    Grouper {
        parent: Value,
        tgtkey: Value,
        id: u64,
    },
    Pairwise {
        it: Option<Value>,
        old: Option<Value>,
    },
    Batched {
        it: Option<Value>,
        n: usize,
        strict: bool,
    },
    TakeWhile {
        func: Value,
        it: Value,
        stopped: bool,
    },
    DropWhile {
        func: Value,
        it: Value,
        started: bool,
    },
    FilterFalse {
        func: Value,
        it: Value,
    },
    StarMap {
        func: Value,
        it: Value,
    },
    Compress {
        data: Value,
        selectors: Value,
    },
    Tee {
        source: Rc<Value>,
        node: Rc<TeeNode>,
    },
}

/// `groupbyobject`: the key of the group being handed out (`tgtkey`), the key and value
/// read last (`currkey`, `currvalue`), and which `_grouper` may still read (`currgrouper`).
struct GroupBy {
    it: Value,
    keyfunc: Value,
    tgtkey: Option<Value>,
    currkey: Option<Value>,
    currvalue: Option<Value>,
    currgrouper: u64,
    groupers: u64,
}

/// One item of a tee's shared buffer: read from the source once, by whichever tee gets
/// there first; dropped when every tee has moved past it.
#[derive(Default)]
struct TeeNode {
    value: OnceCell<Value>,
    next: OnceCell<Rc<TeeNode>>,
}

impl Drop for TeeNode {
    /// Frees a long chain of read items one by one, not by recursion.
    fn drop(&mut self) {
        let mut next = self.next.take();
        while let Some(node) = next {
            next = match Rc::try_unwrap(node) {
                Ok(mut node) => node.next.take(),
                Err(_) => None,
            };
        }
    }
}

fn tool_of<'a>(vm: &Vm, v: &'a Value) -> PyResult<&'a Tool> {
    v.native::<Tool>()
        .ok_or_else(|| vm.type_error("descriptor '__next__' requires an itertools object"))
}

fn new_tool(cls: &Rc<PyType>, state: State) -> Value {
    Value::object(Object::new(
        cls.clone(),
        ObjectKind::Other(Box::new(Tool(RefCell::new(state)))),
    ))
}

fn state_mut(tool: &Tool) -> std::cell::RefMut<'_, State> {
    tool.0.borrow_mut()
}

/// `__next__` of every itertools type.
fn tool_next(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    vm.charge(1)?;
    let this = args.first().cloned().unwrap_or(Value::None);
    match step(vm, &this)? {
        Some(v) => Ok(v),
        None => Err(vm.stop_iteration(Value::None)),
    }
}

fn tool_iter(_: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    Ok(args[0].clone())
}

/// One item of `this`, or `None` when it is exhausted.
fn step(vm: &mut Vm, this: &Value) -> PyResult<Option<Value>> {
    let tool = tool_of(vm, this)?;
    let mut st = state_mut(tool);
    match &mut *st {
        State::Count { cnt, step } => {
            let (current, step) = (cnt.clone(), step.clone());
            drop(st);
            let next = vm.binary_op(BinaryOperator::Add, &current, &step)?;
            if let State::Count { cnt, .. } = &mut *state_mut(tool) {
                *cnt = next;
            }
            Ok(Some(current))
        }
        State::Cycle { it, .. } => {
            let Some(source) = it.clone() else {
                return Ok(next_saved(&mut st));
            };
            drop(st);
            let item = vm.next(&source)?;
            let mut st = state_mut(tool);
            let State::Cycle { it, saved, .. } = &mut *st else {
                return Ok(None);
            };
            if let Some(item) = item {
                saved.push(item.clone());
                return Ok(Some(item));
            }
            *it = None;
            Ok(next_saved(&mut st))
        }
        State::Repeat { element, cnt } => match cnt {
            None => Ok(Some(element.clone())),
            Some(0) => Ok(None),
            Some(n) => {
                *n -= 1;
                Ok(Some(element.clone()))
            }
        },
        State::Chain { .. } => {
            drop(st);
            chain_next(vm, tool)
        }
        State::Islice { .. } => {
            drop(st);
            islice_next(vm, tool)
        }
        State::ZipLongest { .. } => {
            drop(st);
            zip_longest_next(vm, tool)
        }
        State::Combinatoric { pools, indices } => {
            if !indices.advance() {
                return Ok(None);
            }
            let items: Vec<Value> = match indices.kind {
                Kind::Product => (indices.indices.iter().zip(pools.iter()))
                    .map(|(&i, pool)| pool[i].clone())
                    .collect(),
                _ => indices.indices[..indices.r]
                    .iter()
                    .map(|&i| pools[0][i].clone())
                    .collect(),
            };
            Ok(Some(Value::tuple(items)))
        }
        State::Accumulate {
            it,
            func,
            total,
            initial,
        } => {
            if let Some(first) = initial.take() {
                *total = Some(first.clone());
                return Ok(Some(first));
            }
            let (it, func, running) = (it.clone(), func.clone(), total.clone());
            drop(st);
            let Some(value) = vm.next(&it)? else {
                return Ok(None);
            };
            let next = match running {
                None => value,
                Some(running) if func.is_none() => {
                    vm.binary_op(BinaryOperator::Add, &running, &value)?
                }
                Some(running) => vm.call(&func, &[running, value], &[])?,
            };
            if let State::Accumulate { total, .. } = &mut *state_mut(tool) {
                *total = Some(next.clone());
            }
            Ok(Some(next))
        }
        State::GroupBy(_) => {
            drop(st);
            groupby_next(vm, this)
        }
        State::Grouper { .. } => {
            drop(st);
            grouper_next(vm, tool)
        }
        State::Pairwise { .. } => {
            drop(st);
            pairwise_next(vm, tool)
        }
        State::Batched { it, n, strict } => {
            let Some(source) = it.clone() else {
                return Ok(None);
            };
            let (n, strict) = (*n, *strict);
            drop(st);
            let mut items = Vec::with_capacity(n.min(1024));
            while items.len() < n {
                match vm.next(&source)? {
                    Some(v) => items.push(v),
                    None => break,
                }
            }
            if items.len() < n {
                if let State::Batched { it, .. } = &mut *state_mut(tool) {
                    *it = None;
                }
                if items.is_empty() {
                    return Ok(None);
                }
                if strict {
                    return Err(vm.value_error("batched(): incomplete batch"));
                }
            }
            Ok(Some(Value::tuple(items)))
        }
        State::TakeWhile { func, it, stopped } => {
            if *stopped {
                return Ok(None);
            }
            let (func, it) = (func.clone(), it.clone());
            drop(st);
            let Some(item) = vm.next(&it)? else {
                return Ok(None);
            };
            let good = vm.call(&func, std::slice::from_ref(&item), &[])?;
            if vm.truthy(&good)? {
                return Ok(Some(item));
            }
            if let State::TakeWhile { stopped, .. } = &mut *state_mut(tool) {
                *stopped = true;
            }
            Ok(None)
        }
        State::DropWhile { func, it, started } => {
            let (func, it, started) = (func.clone(), it.clone(), *started);
            drop(st);
            loop {
                let Some(item) = vm.next(&it)? else {
                    return Ok(None);
                };
                if started {
                    return Ok(Some(item));
                }
                let good = vm.call(&func, std::slice::from_ref(&item), &[])?;
                if !vm.truthy(&good)? {
                    if let State::DropWhile { started, .. } = &mut *state_mut(tool) {
                        *started = true;
                    }
                    return Ok(Some(item));
                }
            }
        }
        State::FilterFalse { func, it } => {
            let (func, it) = (func.clone(), it.clone());
            drop(st);
            while let Some(item) = vm.next(&it)? {
                let verdict = if func.is_none() {
                    item.clone()
                } else {
                    vm.call(&func, std::slice::from_ref(&item), &[])?
                };
                if !vm.truthy(&verdict)? {
                    return Ok(Some(item));
                }
            }
            Ok(None)
        }
        State::StarMap { func, it } => {
            let (func, it) = (func.clone(), it.clone());
            drop(st);
            let Some(args) = vm.next(&it)? else {
                return Ok(None);
            };
            let args = match &args {
                Value::Tuple(t) => t.items.to_vec(),
                other => vm.collect_iterable(other)?,
            };
            vm.call(&func, &args, &[]).map(Some)
        }
        State::Compress { data, selectors } => {
            let (data, selectors) = (data.clone(), selectors.clone());
            drop(st);
            loop {
                let Some(datum) = vm.next(&data)? else {
                    return Ok(None);
                };
                let Some(selector) = vm.next(&selectors)? else {
                    return Ok(None);
                };
                if vm.truthy(&selector)? {
                    return Ok(Some(datum));
                }
            }
        }
        State::Tee { source, node } => {
            let (source, node) = (source.clone(), node.clone());
            drop(st);
            if node.value.get().is_none() {
                let Some(v) = vm.next(&source)? else {
                    return Ok(None);
                };
                let _ = node.value.set(v);
                let _ = node.next.set(Rc::new(TeeNode::default()));
            }
            let value = node.value.get().cloned();
            if let (State::Tee { node: at, .. }, Some(next)) =
                (&mut *state_mut(tool), node.next.get())
            {
                *at = next.clone();
            }
            Ok(value)
        }
    }
}

/// `cycle`'s second pass: the saved items round and round.
fn next_saved(st: &mut State) -> Option<Value> {
    let State::Cycle { saved, index, .. } = st else {
        return None;
    };
    let item = saved.get(*index)?.clone();
    *index = (*index + 1) % saved.len();
    Some(item)
}

/// `chain_next`: the active iterable's items, then the next iterable's.
fn chain_next(vm: &mut Vm, tool: &Tool) -> PyResult<Option<Value>> {
    loop {
        let (source, active) = match &*tool.0.borrow() {
            State::Chain { source, active } => (source.clone(), active.clone()),
            _ => return Ok(None),
        };
        let Some(source) = source else {
            return Ok(None);
        };
        let active = match active {
            Some(active) => active,
            None => {
                let Some(iterable) = vm.next(&source)? else {
                    if let State::Chain { source, .. } = &mut *state_mut(tool) {
                        *source = None;
                    }
                    return Ok(None);
                };
                let it = vm.get_iter(&iterable)?;
                if let State::Chain { active, .. } = &mut *state_mut(tool) {
                    *active = Some(it.clone());
                }
                it
            }
        };
        if let Some(item) = vm.next(&active)? {
            return Ok(Some(item));
        }
        if let State::Chain { active, .. } = &mut *state_mut(tool) {
            *active = None;
        }
    }
}

/// `islice_next`: skip to `next`, give one item, move `next` on by `step`.
fn islice_next(vm: &mut Vm, tool: &Tool) -> PyResult<Option<Value>> {
    let (it, stop) = match &*tool.0.borrow() {
        State::Islice { it, stop, .. } => (it.clone(), *stop),
        _ => return Ok(None),
    };
    let Some(it) = it else {
        return Ok(None);
    };
    let clear = |tool: &Tool| {
        if let State::Islice { it, .. } = &mut *state_mut(tool) {
            *it = None;
        }
    };
    loop {
        let (cnt, next) = match &*tool.0.borrow() {
            State::Islice { cnt, next, .. } => (*cnt, *next),
            _ => return Ok(None),
        };
        if cnt >= next {
            break;
        }
        if vm.next(&it)?.is_none() {
            clear(tool);
            return Ok(None);
        }
        if let State::Islice { cnt, .. } = &mut *state_mut(tool) {
            *cnt += 1;
        }
    }
    let cnt = match &*tool.0.borrow() {
        State::Islice { cnt, .. } => *cnt,
        _ => return Ok(None),
    };
    if stop != -1 && cnt >= stop {
        clear(tool);
        return Ok(None);
    }
    let Some(item) = vm.next(&it)? else {
        clear(tool);
        return Ok(None);
    };
    if let State::Islice {
        cnt, next, step, ..
    } = &mut *state_mut(tool)
    {
        *cnt += 1;
        let old = *next;
        *next = next.saturating_add(*step);
        if *next < old || (stop != -1 && *next > stop) {
            *next = stop;
        }
    }
    Ok(Some(item))
}

/// `zip_longest_next`: an exhausted iterator gives the fill value until all are.
fn zip_longest_next(vm: &mut Vm, tool: &Tool) -> PyResult<Option<Value>> {
    let (its, fillvalue) = match &*tool.0.borrow() {
        State::ZipLongest {
            its,
            active,
            fillvalue,
        } if *active > 0 && !its.is_empty() => (its.clone(), fillvalue.clone()),
        _ => return Ok(None),
    };
    let mut items = Vec::with_capacity(its.len());
    for (i, it) in its.iter().enumerate() {
        let item = match it {
            None => None,
            Some(it) => vm.next(it)?,
        };
        match item {
            Some(v) => items.push(v),
            None => {
                let mut st = state_mut(tool);
                let State::ZipLongest { its, active, .. } = &mut *st else {
                    return Ok(None);
                };
                if it.is_some() {
                    *active -= 1;
                    its[i] = None;
                }
                if *active == 0 {
                    return Ok(None);
                }
                items.push(fillvalue.clone());
            }
        }
    }
    Ok(Some(Value::tuple(items)))
}

/// `groupby_step`: read the next value and its key.
fn groupby_step(vm: &mut Vm, tool: &Tool) -> PyResult<bool> {
    let (it, keyfunc) = match &*tool.0.borrow() {
        State::GroupBy(g) => (g.it.clone(), g.keyfunc.clone()),
        _ => return Ok(false),
    };
    let Some(value) = vm.next(&it)? else {
        return Ok(false);
    };
    let key = if keyfunc.is_none() {
        value.clone()
    } else {
        vm.call(&keyfunc, std::slice::from_ref(&value), &[])?
    };
    if let State::GroupBy(g) = &mut *state_mut(tool) {
        g.currvalue = Some(value);
        g.currkey = Some(key);
    }
    Ok(true)
}

/// `groupby_next`: skip what is left of the current group, then hand out
/// `(key, _grouper)` for the next.
fn groupby_next(vm: &mut Vm, this: &Value) -> PyResult<Option<Value>> {
    let tool = tool_of(vm, this)?;
    loop {
        let (tgtkey, currkey) = match &mut *state_mut(tool) {
            State::GroupBy(g) => {
                g.currgrouper = 0;
                (g.tgtkey.clone(), g.currkey.clone())
            }
            _ => return Ok(None),
        };
        match (&tgtkey, &currkey) {
            (_, None) => {}
            (None, Some(_)) => break,
            (Some(tgt), Some(curr)) => {
                if !vm.eq(tgt, curr)? {
                    break;
                }
            }
        }
        if !groupby_step(vm, tool)? {
            return Ok(None);
        }
    }
    let (key, id) = match &mut *state_mut(tool) {
        State::GroupBy(g) => {
            g.tgtkey = g.currkey.clone();
            g.groupers += 1;
            g.currgrouper = g.groupers;
            (g.currkey.clone().unwrap_or(Value::None), g.groupers)
        }
        _ => return Ok(None),
    };
    let grouper_type = class_named(vm, "_grouper");
    let grouper = new_tool(
        &grouper_type,
        State::Grouper {
            parent: this.clone(),
            tgtkey: key.clone(),
            id,
        },
    );
    Ok(Some(Value::tuple(vec![key, grouper])))
}

/// `_grouper_next`: the parent's values while their key equals this group's.
fn grouper_next(vm: &mut Vm, tool: &Tool) -> PyResult<Option<Value>> {
    let (parent, tgtkey, id) = match &*tool.0.borrow() {
        State::Grouper { parent, tgtkey, id } => (parent.clone(), tgtkey.clone(), *id),
        _ => return Ok(None),
    };
    let gb = tool_of(vm, &parent)?;
    let (current, has_value) = match &*gb.0.borrow() {
        State::GroupBy(g) => (g.currgrouper == id, g.currvalue.is_some()),
        _ => (false, false),
    };
    if !current {
        return Ok(None);
    }
    if !has_value && !groupby_step(vm, gb)? {
        return Ok(None);
    }
    let currkey = match &*gb.0.borrow() {
        State::GroupBy(g) => g.currkey.clone().unwrap_or(Value::None),
        _ => return Ok(None),
    };
    if !vm.eq(&tgtkey, &currkey)? {
        return Ok(None);
    }
    let mut st = state_mut(gb);
    let State::GroupBy(g) = &mut *st else {
        return Ok(None);
    };
    g.currkey = None;
    Ok(g.currvalue.take())
}

/// `pairwise_next`: the previous item with the next.
fn pairwise_next(vm: &mut Vm, tool: &Tool) -> PyResult<Option<Value>> {
    let (it, old) = match &*tool.0.borrow() {
        State::Pairwise { it, old } => (it.clone(), old.clone()),
        _ => return Ok(None),
    };
    let Some(it) = it else {
        return Ok(None);
    };
    let finish = |tool: &Tool| {
        if let State::Pairwise { it, old } = &mut *state_mut(tool) {
            *it = None;
            *old = None;
        }
    };
    let old = match old {
        Some(old) => old,
        None => match vm.next(&it)? {
            Some(first) => first,
            None => {
                finish(tool);
                return Ok(None);
            }
        },
    };
    let Some(new) = vm.next(&it)? else {
        finish(tool);
        return Ok(None);
    };
    if let State::Pairwise { old: at, .. } = &mut *state_mut(tool) {
        *at = Some(new.clone());
    }
    Ok(Some(Value::tuple(vec![old, new])))
}

// ---- constructors ----------------------------------------------------------------------

/// `name expected 1 argument, got 0` (`_PyArg_CheckPositional`) and no keywords.
fn exact_args(vm: &Vm, name: &str, args: &[Value], kw: &KwArgs, n: usize) -> PyResult<()> {
    check_kwargs(vm, name, kw, &[])?;
    if args.len() != n {
        return Err(vm.type_error(format!(
            "{name} expected {n} argument{}, got {}",
            if n == 1 { "" } else { "s" },
            args.len()
        )));
    }
    Ok(())
}

fn is_number(vm: &Vm, v: &Value) -> bool {
    match v {
        Value::Int(_) | Value::Bool(_) | Value::BigInt(_) | Value::Float(_) => true,
        _ => ["__index__", "__int__", "__float__"].iter().any(|name| {
            let key = crate::vm::value::PyStr::new(*name);
            crate::vm::types::lookup_uncached(vm.type_of(v), &key).is_some()
        }),
    }
}

fn count_new(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let (cls, args) = crate::vm::args::split_cls(vm, args)?;
    const SIG: Signature = Signature::keywords("", "count", &["start", "step"], 0, 0);
    let slots = SIG.bind(vm, args, kw)?;
    let cnt = slots[0].clone().unwrap_or(Value::Int(0));
    let step = slots[1].clone().unwrap_or(Value::Int(1));
    if !is_number(vm, &cnt) || !is_number(vm, &step) {
        return Err(vm.type_error("a number is required"));
    }
    Ok(new_tool(&cls, State::Count { cnt, step }))
}

fn count_repr(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    let name = vm.type_name(&args[0]);
    let (cnt, step) = match &*tool_of(vm, &args[0])?.0.borrow() {
        State::Count { cnt, step } => (cnt.clone(), step.clone()),
        _ => return Ok(Value::str(format!("{name}()"))),
    };
    let cnt = vm.repr(&cnt)?;
    if to_int(&step).is_some_and(|s| s == crate::common::int_ops::Int::Small(1)) {
        return Ok(Value::str(format!("{name}({cnt})")));
    }
    let step = vm.repr(&step)?;
    Ok(Value::str(format!("{name}({cnt}, {step})")))
}

fn cycle_new(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let (cls, args) = crate::vm::args::split_cls(vm, args)?;
    exact_args(vm, "cycle", args, kw, 1)?;
    let it = vm.get_iter(&args[0])?;
    Ok(new_tool(
        &cls,
        State::Cycle {
            it: Some(it),
            saved: Vec::new(),
            index: 0,
        },
    ))
}

fn repeat_new(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let (cls, args) = crate::vm::args::split_cls(vm, args)?;
    const SIG: Signature = Signature::keywords("", "repeat", &["object", "times"], 1, 0);
    let slots = SIG.bind(vm, args, kw)?;
    let element = slots[0].clone().unwrap_or(Value::None);
    let cnt = match &slots[1] {
        None => None,
        Some(times) => Some(index_isize(vm, times)?.max(0)),
    };
    Ok(new_tool(&cls, State::Repeat { element, cnt }))
}

fn repeat_repr(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    let name = vm.type_name(&args[0]);
    let (element, cnt) = match &*tool_of(vm, &args[0])?.0.borrow() {
        State::Repeat { element, cnt } => (element.clone(), *cnt),
        _ => return Ok(Value::str(format!("{name}()"))),
    };
    let element = vm.repr(&element)?;
    Ok(Value::str(match cnt {
        None => format!("{name}({element})"),
        Some(n) => format!("{name}({element}, {n})"),
    }))
}

fn repeat_length_hint(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    match &*tool_of(vm, &args[0])?.0.borrow() {
        State::Repeat { cnt: Some(n), .. } => Ok(Value::Int(*n)),
        _ => Err(vm.type_error("len() of unsized object")),
    }
}

fn chain_new(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let (cls, args) = crate::vm::args::split_cls(vm, args)?;
    check_kwargs(vm, "chain", kw, &[])?;
    let source = vm.get_iter(&Value::tuple(args.to_vec()))?;
    Ok(new_tool(
        &cls,
        State::Chain {
            source: Some(source),
            active: None,
        },
    ))
}

fn chain_from_iterable(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    Signature::one("chain", "from_iterable").check(vm, args, kw)?;
    let source = vm.get_iter(&args[0])?;
    let cls = class_named(vm, "chain");
    Ok(new_tool(
        &cls,
        State::Chain {
            source: Some(source),
            active: None,
        },
    ))
}

/// `PyNumber_AsSsize_t(v, NULL)` with the error cleared, as islice reads its indices:
/// `None` when `v` is no int, clipped to `i64` when it is a big one.
fn clipped_index(vm: &mut Vm, v: &Value) -> Option<i64> {
    match index_int(vm, v) {
        Ok(n) => Some(
            n.as_i64()
                .unwrap_or(if n.is_negative() { i64::MIN } else { i64::MAX }),
        ),
        Err(_) => None,
    }
}

fn islice_new(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let (cls, args) = crate::vm::args::split_cls(vm, args)?;
    check_kwargs(vm, "islice", kw, &[])?;
    check_arity(vm, "islice", args, 2, 4)?;
    const STOP: &str =
        "Stop argument for islice() must be None or an integer: 0 <= x <= sys.maxsize.";
    let (mut start, mut stop, mut step) = (0i64, -1i64, 1i64);
    let stop_arg = if args.len() == 2 { &args[1] } else { &args[2] };
    if args.len() > 2 && !args[1].is_none() {
        start = clipped_index(vm, &args[1]).unwrap_or(-1);
    }
    if !stop_arg.is_none() {
        stop = clipped_index(vm, stop_arg).unwrap_or(-1);
        if stop == -1 {
            return Err(vm.value_error(STOP));
        }
    }
    if start < 0 || stop < -1 {
        return Err(vm.value_error(
            "Indices for islice() must be None or an integer: 0 <= x <= sys.maxsize.",
        ));
    }
    if let Some(a3) = args.get(3)
        && !a3.is_none()
    {
        step = clipped_index(vm, a3).unwrap_or(-1);
    }
    if step < 1 {
        return Err(vm.value_error("Step for islice() must be a positive integer or None."));
    }
    let it = vm.get_iter(&args[0])?;
    Ok(new_tool(
        &cls,
        State::Islice {
            it: Some(it),
            next: start,
            stop,
            step,
            cnt: 0,
        },
    ))
}

fn zip_longest_new(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let (cls, args) = crate::vm::args::split_cls(vm, args)?;
    if kw.iter().any(|(k, _)| k.as_str() != "fillvalue") {
        return Err(vm.type_error("zip_longest() got an unexpected keyword argument"));
    }
    let fillvalue = kwarg(kw, "fillvalue").unwrap_or(Value::None);
    let mut its = Vec::with_capacity(args.len());
    for v in args {
        its.push(Some(vm.get_iter(v)?));
    }
    let active = its.len();
    Ok(new_tool(
        &cls,
        State::ZipLongest {
            its,
            active,
            fillvalue,
        },
    ))
}

fn combinatoric(cls: &Rc<PyType>, kind: Kind, pools: Vec<Rc<[Value]>>, r: usize) -> Value {
    let sizes = pools.iter().map(|p| p.len()).collect();
    new_tool(
        cls,
        State::Combinatoric {
            indices: Indices::new(kind, sizes, r),
            pools,
        },
    )
}

fn product_new(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let (cls, args) = crate::vm::args::split_cls(vm, args)?;
    check_kwargs(vm, "product", kw, &["repeat"])?;
    let repeat = match kwarg(kw, "repeat") {
        None => 1,
        Some(r) => index_isize(vm, &r)?,
    };
    if repeat < 0 {
        return Err(vm.value_error("repeat argument cannot be negative"));
    }
    let mut pools: Vec<Rc<[Value]>> = Vec::with_capacity(args.len());
    for v in args {
        pools.push(vm.collect_iterable(v)?.into());
    }
    let all: Vec<Rc<[Value]>> = (0..repeat).flat_map(|_| pools.iter().cloned()).collect();
    let r = all.len();
    Ok(combinatoric(&cls, Kind::Product, all, r))
}

fn non_negative_r(vm: &Vm, r: i64) -> PyResult<usize> {
    if r < 0 {
        return Err(vm.value_error("r must be non-negative"));
    }
    Ok(r as usize)
}

fn permutations_new(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let (cls, args) = crate::vm::args::split_cls(vm, args)?;
    const SIG: Signature = Signature::keywords("", "permutations", &["iterable", "r"], 1, 0);
    let slots = SIG.bind(vm, args, kw)?;
    let pool: Rc<[Value]> = vm
        .collect_iterable(slots[0].as_ref().unwrap_or(&Value::None))?
        .into();
    let r = match slots[1].as_ref().filter(|r| !r.is_none()) {
        None => pool.len(),
        Some(r) => {
            let Some(r) = to_int(r) else {
                return Err(vm.type_error("Expected int as r"));
            };
            let r = r.as_i64().unwrap_or(i64::MAX);
            non_negative_r(vm, r)?
        }
    };
    Ok(combinatoric(&cls, Kind::Permutations, vec![pool], r))
}

/// `combinations(iterable, r)` and `combinations_with_replacement(iterable, r)`.
fn combinations_of(
    vm: &mut Vm,
    args: &[Value],
    kw: &KwArgs,
    sig: &Signature,
    kind: Kind,
) -> PyResult<Value> {
    let (cls, args) = crate::vm::args::split_cls(vm, args)?;
    let slots = sig.bind(vm, args, kw)?;
    let r = index_isize(vm, slots[1].as_ref().unwrap_or(&Value::None))?;
    let pool: Rc<[Value]> = vm
        .collect_iterable(slots[0].as_ref().unwrap_or(&Value::None))?
        .into();
    let r = non_negative_r(vm, r)?;
    Ok(combinatoric(&cls, kind, vec![pool], r))
}

fn combinations_new(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    const SIG: Signature = Signature::keywords("", "combinations", &["iterable", "r"], 2, 0);
    combinations_of(vm, args, kw, &SIG, Kind::Combinations)
}

fn cwr_new(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    const SIG: Signature = Signature::keywords(
        "",
        "combinations_with_replacement",
        &["iterable", "r"],
        2,
        0,
    );
    combinations_of(vm, args, kw, &SIG, Kind::CombinationsWithReplacement)
}

fn accumulate_new(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let (cls, args) = crate::vm::args::split_cls(vm, args)?;
    const SIG: Signature =
        Signature::keywords("", "accumulate", &["iterable", "func", "initial"], 1, 0);
    let slots = bind_kwonly(vm, &SIG, 2, args, kw)?;
    let it = vm.get_iter(slots[0].as_ref().unwrap_or(&Value::None))?;
    Ok(new_tool(
        &cls,
        State::Accumulate {
            it,
            func: slots[1].clone().unwrap_or(Value::None),
            total: None,
            initial: slots[2].clone().filter(|v| !v.is_none()),
        },
    ))
}

fn groupby_new(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let (cls, args) = crate::vm::args::split_cls(vm, args)?;
    const SIG: Signature = Signature::keywords("", "groupby", &["iterable", "key"], 1, 0);
    let slots = SIG.bind(vm, args, kw)?;
    let it = vm.get_iter(slots[0].as_ref().unwrap_or(&Value::None))?;
    Ok(new_tool(
        &cls,
        State::GroupBy(GroupBy {
            it,
            keyfunc: slots[1].clone().unwrap_or(Value::None),
            tgtkey: None,
            currkey: None,
            currvalue: None,
            currgrouper: 0,
            groupers: 0,
        }),
    ))
}

fn pairwise_new(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let (cls, args) = crate::vm::args::split_cls(vm, args)?;
    exact_args(vm, "pairwise", args, kw, 1)?;
    let it = vm.get_iter(&args[0])?;
    Ok(new_tool(
        &cls,
        State::Pairwise {
            it: Some(it),
            old: None,
        },
    ))
}

fn batched_new(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let (cls, args) = crate::vm::args::split_cls(vm, args)?;
    const SIG: Signature = Signature::keywords("", "batched", &["iterable", "n", "strict"], 2, 0);
    let slots = bind_kwonly(vm, &SIG, 2, args, kw)?;
    let n = index_isize(vm, slots[1].as_ref().unwrap_or(&Value::None))?;
    let strict = match &slots[2] {
        Some(v) => vm.truthy(v)?,
        None => false,
    };
    if n < 1 {
        return Err(vm.value_error("n must be at least one"));
    }
    let it = vm.get_iter(slots[0].as_ref().unwrap_or(&Value::None))?;
    Ok(new_tool(
        &cls,
        State::Batched {
            it: Some(it),
            n: n as usize,
            strict,
        },
    ))
}

/// The `(function, iterable)` constructors: takewhile, dropwhile, filterfalse, starmap.
fn func_and_iter(
    vm: &mut Vm,
    args: &[Value],
    kw: &KwArgs,
    name: &str,
) -> PyResult<(Rc<PyType>, Value, Value)> {
    let (cls, args) = crate::vm::args::split_cls(vm, args)?;
    exact_args(vm, name, args, kw, 2)?;
    let it = vm.get_iter(&args[1])?;
    Ok((cls, args[0].clone(), it))
}

fn takewhile_new(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let (cls, func, it) = func_and_iter(vm, args, kw, "takewhile")?;
    Ok(new_tool(
        &cls,
        State::TakeWhile {
            func,
            it,
            stopped: false,
        },
    ))
}

fn dropwhile_new(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let (cls, func, it) = func_and_iter(vm, args, kw, "dropwhile")?;
    Ok(new_tool(
        &cls,
        State::DropWhile {
            func,
            it,
            started: false,
        },
    ))
}

fn filterfalse_new(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let (cls, func, it) = func_and_iter(vm, args, kw, "filterfalse")?;
    Ok(new_tool(&cls, State::FilterFalse { func, it }))
}

fn starmap_new(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let (cls, func, it) = func_and_iter(vm, args, kw, "starmap")?;
    Ok(new_tool(&cls, State::StarMap { func, it }))
}

fn compress_new(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let (cls, args) = crate::vm::args::split_cls(vm, args)?;
    const SIG: Signature = Signature::keywords("", "compress", &["data", "selectors"], 2, 0);
    let slots = SIG.bind(vm, args, kw)?;
    let data = vm.get_iter(slots[0].as_ref().unwrap_or(&Value::None))?;
    let selectors = vm.get_iter(slots[1].as_ref().unwrap_or(&Value::None))?;
    Ok(new_tool(&cls, State::Compress { data, selectors }))
}

/// `_tee.__copy__`: a tee at the same place in the same buffer.
fn tee_copy(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    let (source, node) = match &*tool_of(vm, &args[0])?.0.borrow() {
        State::Tee { source, node } => (source.clone(), node.clone()),
        _ => return Err(vm.type_error("__copy__ requires a _tee object")),
    };
    let cls = vm.type_of(&args[0]).clone();
    Ok(new_tool(&cls, State::Tee { source, node }))
}

/// `tee(iterable, n=2)`: n iterators over one buffer (the first a copy of `iterable`'s
/// own tee when it is one).
fn tee(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    check_kwargs(vm, "tee", kw, &[])?;
    check_arity(vm, "tee", args, 1, 2)?;
    let n = match args.get(1) {
        Some(n) => index_isize(vm, n)?,
        None => 2,
    };
    if n < 0 {
        return Err(vm.value_error("n must be >= 0"));
    }
    let it = vm.get_iter(&args[0])?;
    if n == 0 {
        return Ok(Value::tuple(vec![]));
    }
    let is_tee = matches!(
        it.native::<Tool>()
            .map(|t| matches!(&*t.0.borrow(), State::Tee { .. })),
        Some(true)
    );
    let first = if is_tee {
        it
    } else {
        let cls = class_named(vm, "_tee");
        new_tool(
            &cls,
            State::Tee {
                source: Rc::new(it),
                node: Rc::new(TeeNode::default()),
            },
        )
    };
    let mut result = vec![first.clone()];
    for _ in 1..n {
        result.push(tee_copy(vm, std::slice::from_ref(&first), &[])?);
    }
    Ok(Value::tuple(result))
}

thread_local! {
    /// The module's types by name, for what makes an instance of another type
    /// (`chain.from_iterable`, `tee`, groupby's `_grouper`s).
    static CLASSES: RefCell<Vec<(&'static str, Rc<PyType>)>> = const { RefCell::new(Vec::new()) };
}

fn class_named(vm: &Vm, name: &str) -> Rc<PyType> {
    CLASSES.with(|c| {
        c.borrow()
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, t)| t.clone())
            .unwrap_or_else(|| vm.types.object.clone())
    })
}

pub fn module(vm: &mut Vm) -> Value {
    let types: [(&'static str, Option<NativeFn>); 21] = [
        ("count", Some(count_new)),
        ("cycle", Some(cycle_new)),
        ("repeat", Some(repeat_new)),
        ("chain", Some(chain_new)),
        ("islice", Some(islice_new)),
        ("zip_longest", Some(zip_longest_new)),
        ("product", Some(product_new)),
        ("permutations", Some(permutations_new)),
        ("combinations", Some(combinations_new)),
        ("combinations_with_replacement", Some(cwr_new)),
        ("accumulate", Some(accumulate_new)),
        ("groupby", Some(groupby_new)),
        ("_grouper", None),
        ("pairwise", Some(pairwise_new)),
        ("batched", Some(batched_new)),
        ("takewhile", Some(takewhile_new)),
        ("dropwhile", Some(dropwhile_new)),
        ("filterfalse", Some(filterfalse_new)),
        ("starmap", Some(starmap_new)),
        ("compress", Some(compress_new)),
        ("_tee", None),
    ];
    let mut attrs: Vec<(&str, Value)> = Vec::new();
    let mut classes = Vec::new();
    for (name, new) in types {
        let ty = make_type(name, vec![vm.types.object.clone()], Layout::Builtin, false);
        vm.set_type_attr(&ty, "__module__", Value::str("itertools"));
        if let Some(new) = new {
            vm.add_static(&ty, "__new__", new);
        }
        vm.add_method(&ty, "__iter__", tool_iter);
        vm.add_method(&ty, "__next__", tool_next);
        classes.push((name, ty.clone()));
        attrs.push((name, Value::Type(ty)));
    }
    let class = |name: &str| {
        classes
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, t)| t.clone())
    };
    if let (Some(count), Some(repeat), Some(chain), Some(tee_type)) = (
        class("count"),
        class("repeat"),
        class("chain"),
        class("_tee"),
    ) {
        vm.add_method(&count, "__repr__", count_repr);
        vm.add_method(&repeat, "__repr__", repeat_repr);
        vm.add_method(&repeat, "__length_hint__", repeat_length_hint);
        vm.add_static(&chain, "from_iterable", chain_from_iterable);
        vm.add_method(&tee_type, "__copy__", tee_copy);
    }
    CLASSES.with(|c| *c.borrow_mut() = classes);
    attrs.push(("tee", vm.native("tee", tee)));
    vm.new_module("itertools", attrs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_tee_buffer_is_freed_without_recursion() {
        let head = Rc::new(TeeNode::default());
        let mut at = head.clone();
        for i in 0..200_000 {
            let _ = at.value.set(Value::Int(i));
            let next = Rc::new(TeeNode::default());
            let _ = at.next.set(next.clone());
            at = next;
        }
        drop(at);
        drop(head);
    }
}
