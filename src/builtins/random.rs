//! The `random` module: the `Random` class and the module functions bound to its hidden
//! instance, as CPython 3.13 has them. The generator is `random_core.rs` (the C half,
//! `Modules/_randommodule.c`); every other method follows `Lib/random.py` line by line —
//! its text is quoted above each — drawing the same words in the same order, so a seeded
//! program prints the very numbers CPython prints. Arithmetic on the caller's values goes
//! through the VM's operators, as the Python code's does. Not here: `SystemRandom`, and a subclass's own `random()` or
//! `getrandbits()` being used by the other methods (they draw from the generator directly).

use std::cell::RefCell;
use std::rc::Rc;

use crate::common::int_ops::{self, Int};
use crate::compile::bytecode::{BinaryOperator as Op, CompareOperator};
use crate::vm::args::{OrRaise, Signature};
use crate::vm::object::{KwArgs, Layout, Object, ObjectKind, PyType};
use crate::vm::ops::{from_int, to_int};
use crate::vm::types::make_type;
use crate::vm::value::Value;
use crate::vm::{PyResult, Vm};

use super::module_args::{as_double, index_int};
use super::random_core::{STATE_WORDS, Twister, bytes_seed_v2, str_seed_v1};

/// A `Random` instance's state: the generator and `self.gauss_next`.
struct RandomObj {
    twister: RefCell<Twister>,
    gauss_next: RefCell<Value>,
}

const TWOPI: f64 = std::f64::consts::TAU;
/// `NV_MAGICCONST = 4 * _exp(-0.5) / _sqrt(2.0)`.
fn nv_magicconst() -> f64 {
    4.0 * (-0.5f64).exp() / 2.0f64.sqrt()
}

fn this<'a>(vm: &Vm, args: &'a [Value], name: &str) -> PyResult<&'a RandomObj> {
    match args.first() {
        Some(v) => v.native::<RandomObj>().ok_or_else(|| {
            vm.type_error(format!(
                "descriptor '{name}' for '_random.Random' objects doesn't apply to a '{}' object",
                vm.type_name(v)
            ))
        }),
        None => Err(vm.type_error(format!("unbound method Random.{name}() needs an argument"))),
    }
}

/// A method written in Python in `Lib/random.py`: its parameters after `self`, how many
/// are required, and its keyword-only ones; arguments are bound as a `def` binds them.
struct PyDef {
    name: &'static str,
    params: &'static [&'static str],
    required: usize,
    kwonly: &'static [&'static str],
}

fn names_list(names: &[&str]) -> String {
    let quoted: Vec<String> = names.iter().map(|n| format!("'{n}'")).collect();
    match quoted.len() {
        1 => quoted[0].clone(),
        2 => format!("{} and {}", quoted[0], quoted[1]),
        n => format!("{}, and {}", quoted[..n - 1].join(", "), quoted[n - 1]),
    }
}

impl PyDef {
    /// The arguments after `self` (`args[0]`), one slot per parameter then per keyword-only
    /// parameter; CPython's `def` errors, counting `self` as it does.
    fn bind(&self, vm: &Vm, args: &[Value], kw: &KwArgs) -> PyResult<Vec<Option<Value>>> {
        let qual = format!("Random.{}", self.name);
        let given = args.len().saturating_sub(1);
        let total = self.params.len();
        if given > total {
            let plural = |n: usize| if n == 1 { "" } else { "s" };
            let takes = if self.required == total {
                format!("{} positional argument{}", total + 1, plural(total + 1))
            } else {
                format!(
                    "from {} to {} positional arguments",
                    self.required + 1,
                    total + 1
                )
            };
            return Err(vm.type_error(format!(
                "{qual}() takes {takes} but {} {} given",
                given + 1,
                if given + 1 == 1 { "was" } else { "were" }
            )));
        }
        let mut slots: Vec<Option<Value>> = vec![None; total + self.kwonly.len()];
        for (slot, v) in slots.iter_mut().zip(&args[1.min(args.len())..]) {
            *slot = Some(v.clone());
        }
        for (key, value) in kw {
            let all = self.params.iter().chain(self.kwonly);
            let Some(i) = all.clone().position(|p| *p == key.as_str()) else {
                return Err(vm.type_error(format!(
                    "{qual}() got an unexpected keyword argument '{}'",
                    key.as_str()
                )));
            };
            if slots[i].is_some() {
                return Err(vm.type_error(format!(
                    "{qual}() got multiple values for argument '{}'",
                    key.as_str()
                )));
            }
            slots[i] = Some(value.clone());
        }
        let missing: Vec<&str> = (0..self.required)
            .filter(|&i| slots[i].is_none())
            .map(|i| self.params[i])
            .collect();
        if !missing.is_empty() {
            return Err(vm.type_error(format!(
                "{qual}() missing {} required positional argument{}: {}",
                missing.len(),
                if missing.len() == 1 { "" } else { "s" },
                names_list(&missing)
            )));
        }
        Ok(slots)
    }
}

fn arg(slots: &[Option<Value>], i: usize, default: Value) -> Value {
    slots[i].clone().unwrap_or(default)
}

fn binop(vm: &mut Vm, op: Op, a: &Value, b: &Value) -> PyResult<Value> {
    vm.binary_op(op, a, b)
}

fn less(vm: &mut Vm, a: &Value, b: &Value) -> PyResult<bool> {
    let r = vm.compare(CompareOperator::Lt, a, b)?;
    vm.truthy(&r)
}

fn compare(vm: &mut Vm, op: CompareOperator, a: &Value, b: f64) -> PyResult<bool> {
    let r = vm.compare(op, a, &Value::Float(b))?;
    vm.truthy(&r)
}

fn math_domain(vm: &Vm) -> crate::vm::Exc {
    vm.value_error("math domain error")
}

/// `_sqrt(x)` on a value (`math.sqrt`).
fn sqrt_of(vm: &mut Vm, v: &Value) -> PyResult<f64> {
    let x = as_double(vm, v)?;
    if x < 0.0 {
        return Err(math_domain(vm));
    }
    Ok(x.sqrt())
}

/// `_log(x)` for a float (`math.log`).
fn log(vm: &Vm, x: f64) -> PyResult<f64> {
    if x > 0.0 || x.is_nan() {
        return Ok(x.ln());
    }
    Err(math_domain(vm))
}

// ---- the C half: `_random.Random` -----------------------------------------------------

fn random_new(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    let (cls, _) = crate::vm::args::split_cls(vm, args)?;
    Ok(Value::object(Object::with_dict(
        cls,
        ObjectKind::Other(Box::new(RandomObj {
            twister: RefCell::new(Twister::zeroed()),
            gauss_next: RefCell::new(Value::None),
        })),
    )))
}

/// `__init__(self, x=None)`: `self.seed(x); self.gauss_next = None`.
fn random_init(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    const DEF: PyDef = PyDef {
        name: "__init__",
        params: &["x"],
        required: 0,
        kwonly: &[],
    };
    let slots = DEF.bind(vm, args, kw)?;
    seed_with(vm, &args[0], &arg(&slots, 0, Value::None), &Value::Int(2))?;
    Ok(Value::None)
}

/// `random()`: the next float in [0, 1).
fn random_random(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let r = this(vm, args, "random")?;
    Signature::no_args("Random", "random").check(vm, &args[1..], kw)?;
    Ok(Value::Float(r.twister.borrow_mut().random()))
}

fn draw(r: &RandomObj) -> f64 {
    r.twister.borrow_mut().random()
}

/// Whether `v` is a bytes or a bytearray (or an instance of a subclass).
fn is_bytes_like(vm: &Vm, v: &Value) -> bool {
    let t = vm.type_of(v);
    t.is_subtype(&vm.types.bytes) || t.is_subtype(&vm.types.bytearray)
}

/// `randbytes(n)`, `getrandbits(n * 8).to_bytes(n, 'little')` in `Lib/random.py`: `n`
/// bytes from successive 32-bit words, each in little-endian order; of a last partial
/// word, its most significant bytes (as `getrandbits` keeps its top bits).
fn random_randbytes(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let r = this(vm, args, "randbytes")?;
    Signature::one("Random", "randbytes").check(vm, &args[1..], kw)?;
    let n = vm.expect_ssize(&args[1])?;
    if n < 0 {
        return Err(vm.value_error("number of bits must be non-negative"));
    }
    let n = n as usize;
    let mut data = crate::common::sizes::vec_with_capacity(n).or_raise(vm)?;
    let mut twister = r.twister.borrow_mut();
    while data.len() < n {
        let word = twister.next_u32().to_le_bytes();
        let left = n - data.len();
        match left < 4 {
            true => data.extend_from_slice(&word[4 - left..]),
            false => data.extend_from_slice(&word),
        }
    }
    drop(twister);
    Ok(vm.new_bytes(data))
}

/// `getrandbits(k)`.
fn random_getrandbits(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let r = this(vm, args, "getrandbits")?;
    Signature::one("Random", "getrandbits").check(vm, &args[1..], kw)?;
    let k = i64::from(vm.expect_c_int(&args[1])?);
    if k < 0 {
        return Err(vm.value_error("number of bits must be non-negative"));
    }
    Ok(from_int(r.twister.borrow_mut().getrandbits(k as u64)))
}

/// `seed(self, a=None, version=2)` of `Lib/random.py`, then `_random.Random.seed`.
fn seed_with(vm: &mut Vm, this_v: &Value, a: &Value, version: &Value) -> PyResult<()> {
    let r = this(vm, std::slice::from_ref(this_v), "seed")?;
    let is_version = |vm: &mut Vm, n: i64| vm.eq(version, &Value::Int(n));
    let n: Option<Int> = match a {
        Value::None => None,
        // if version == 1 and isinstance(a, (str, bytes)): the old string hash
        Value::Str(s) if is_version(vm, 1)? => Some(str_seed_v1(s.as_str())),
        // elif version == 2 and isinstance(a, (str, bytes, bytearray)):
        //     a = int.from_bytes(a + _sha512(a).digest())
        Value::Str(s) if is_version(vm, 2)? => Some(bytes_seed_v2(s.as_str().as_bytes())),
        // bytes and bytearray: version 1 decodes bytes as latin-1 for the string hash
        // (a bytearray falls through to hash(), which refuses it); version 2 as for str.
        Value::Object(_) if is_bytes_like(vm, a) => {
            let data = vm.bytes_of_object(a)?.unwrap_or_default();
            let is_bytes = vm.type_of(a).is_subtype(&vm.types.bytes);
            if is_bytes && is_version(vm, 1)? {
                let text: String = data.iter().map(|&b| char::from(b)).collect();
                Some(str_seed_v1(&text))
            } else if is_version(vm, 2)? {
                Some(bytes_seed_v2(&data))
            } else {
                let h = vm.hash(a)?;
                Some(Int::from(num_bigint::BigInt::from(h as u64)))
            }
        }
        // if PyLong_Check(arg): n = abs(arg)
        Value::Int(_) | Value::Bool(_) | Value::BigInt(_) => to_int(a),
        // else: n = (size_t) hash(arg)
        Value::Float(_) | Value::Str(_) => {
            let h = vm.hash(a)?;
            Some(Int::from(num_bigint::BigInt::from(h as u64)))
        }
        // an int subclass: int.__abs__(arg)
        Value::Object(o) if o.builtin_base().and_then(to_int).is_some() => {
            o.builtin_base().and_then(to_int)
        }
        _ => {
            return Err(vm.type_error(
                "The only supported seed types are:\nNone, int, float, str, bytes, and bytearray.",
            ));
        }
    };
    let mut twister = r.twister.borrow_mut();
    match n {
        None => twister.seed_from_os(),
        Some(n) => twister.seed_int(&n),
    }
    drop(twister);
    *r.gauss_next.borrow_mut() = Value::None;
    Ok(())
}

fn random_seed(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    const DEF: PyDef = PyDef {
        name: "seed",
        params: &["a", "version"],
        required: 0,
        kwonly: &[],
    };
    this(vm, args, "seed")?;
    let slots = DEF.bind(vm, args, kw)?;
    seed_with(
        vm,
        &args[0],
        &arg(&slots, 0, Value::None),
        &arg(&slots, 1, Value::Int(2)),
    )?;
    Ok(Value::None)
}

/// `getstate()`: `(self.VERSION, super().getstate(), self.gauss_next)`.
fn random_getstate(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let r = this(vm, args, "getstate")?;
    Signature::no_args("Random", "getstate").check(vm, &args[1..], kw)?;
    let (words, index) = r.twister.borrow().state();
    let mut inner: Vec<Value> = words.into_iter().map(|w| Value::Int(w.into())).collect();
    inner.push(Value::Int(index as i64));
    let gauss_next = r.gauss_next.borrow().clone();
    Ok(Value::tuple(vec![
        Value::Int(3),
        Value::tuple(inner),
        gauss_next,
    ]))
}

/// `version, internalstate, self.gauss_next = state`.
fn unpack3(vm: &mut Vm, state: &Value) -> PyResult<Vec<Value>> {
    if !vm.is_iterable(state) {
        return Err(vm.type_error(format!(
            "cannot unpack non-iterable {} object",
            vm.type_name(state)
        )));
    }
    let items = vm.collect_iterable(state)?;
    match items.len() {
        3 => Ok(items),
        n if n < 3 => {
            Err(vm.value_error(format!("not enough values to unpack (expected 3, got {n})")))
        }
        _ => Err(vm.value_error("too many values to unpack (expected 3)")),
    }
}

/// `setstate(state)` of `Lib/random.py`, then `_random_Random_setstate`.
fn random_setstate(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let r = this(vm, args, "setstate")?;
    const DEF: PyDef = PyDef {
        name: "setstate",
        params: &["state"],
        required: 1,
        kwonly: &[],
    };
    let slots = DEF.bind(vm, args, kw)?;
    let state = arg(&slots, 0, Value::None);
    let version = vm.get_item(&state, &Value::Int(0))?;
    let old = vm.eq(&version, &Value::Int(2))?;
    if !old && !vm.eq(&version, &Value::Int(3))? {
        let version = vm.str_of(&version)?;
        return Err(vm.value_error(format!(
            "state with version {} passed to Random.setstate() of version 3",
            version.as_str()
        )));
    }
    let parts = unpack3(vm, &state)?;
    *r.gauss_next.borrow_mut() = parts[2].clone();
    let Value::Tuple(inner) = &parts[1] else {
        if old {
            // internalstate = tuple(x % (2 ** 32) for x in internalstate)
            vm.collect_iterable(&parts[1])?;
        }
        return Err(vm.type_error("state vector must be a tuple"));
    };
    if inner.items.len() != STATE_WORDS + 1 {
        return Err(vm.value_error("state vector is the wrong size"));
    }
    let mut words = Vec::with_capacity(STATE_WORDS);
    for item in &inner.items[..STATE_WORDS] {
        let mut n = to_int(item).ok_or_else(|| vm.type_error("an integer is required"))?;
        if old {
            n = int_ops::modulo(&n, &Int::Small(1 << 32)).map_err(|e| vm.op_error(e))?;
        }
        if n.is_negative() {
            return Err(vm.overflow_error("can't convert negative int to unsigned"));
        }
        match n {
            Int::Small(w) => words.push(w as u32),
            Int::Big(_) => {
                return Err(vm.overflow_error("Python int too large to convert to C unsigned long"));
            }
        }
    }
    let index = match index_int(vm, &inner.items[STATE_WORDS])? {
        Int::Small(i) if (0..=STATE_WORDS as i64).contains(&i) => i as usize,
        Int::Small(_) => return Err(vm.value_error("invalid state")),
        Int::Big(_) => return Err(vm.overflow_error("Python int too large to convert to C long")),
    };
    r.twister.borrow_mut().set_state(&words, index);
    Ok(Value::None)
}

// ---- the Python half: `Lib/random.py`'s `Random` --------------------------------------

/// `_randbelow_with_getrandbits(n)` for `n > 0`:
/// ```python
/// k = n.bit_length()
/// r = getrandbits(k)  # 0 <= r < 2**k
/// while r >= n:
///     r = getrandbits(k)
/// return r
/// ```
fn randbelow(r: &RandomObj, n: &Int) -> Int {
    let mut twister = r.twister.borrow_mut();
    match n {
        Int::Small(n) => {
            let n = *n as u64;
            let k = 64 - n.leading_zeros();
            loop {
                let r = twister.bits_u64(k);
                if r < n {
                    return Int::Small(r as i64);
                }
            }
        }
        Int::Big(_) => {
            let k = n.bit_length();
            loop {
                let r = twister.getrandbits(k);
                if r < *n {
                    return r;
                }
            }
        }
    }
}

fn randbelow_usize(r: &RandomObj, n: usize) -> usize {
    match randbelow(r, &Int::Small(n as i64)) {
        Int::Small(i) => i as usize,
        Int::Big(_) => 0,
    }
}

fn random_randbelow(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    const DEF: PyDef = PyDef {
        name: "_randbelow_with_getrandbits",
        params: &["n"],
        required: 1,
        kwonly: &[],
    };
    let r = this(vm, args, "_randbelow")?;
    let slots = DEF.bind(vm, args, kw)?;
    let n = index_int(vm, &arg(&slots, 0, Value::None))?;
    if n.is_negative() || n.is_zero() {
        return Err(vm.value_error("number of bits must be non-negative"));
    }
    Ok(from_int(randbelow(r, &n)))
}

/// `randrange(self, start, stop=None, step=_ONE)`.
fn random_randrange(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    const DEF: PyDef = PyDef {
        name: "randrange",
        params: &["start", "stop", "step"],
        required: 1,
        kwonly: &[],
    };
    this(vm, args, "randrange")?;
    let slots = DEF.bind(vm, args, kw)?;
    let start = arg(&slots, 0, Value::None);
    let stop = arg(&slots, 1, Value::None);
    let step = arg(&slots, 2, Value::Int(1));
    randrange(vm, &args[0], &start, &stop, &step)
}

fn randrange(
    vm: &mut Vm,
    this_v: &Value,
    start: &Value,
    stop: &Value,
    step: &Value,
) -> PyResult<Value> {
    let r = this(vm, std::slice::from_ref(this_v), "randrange")?;
    // istart = _index(start)
    let istart = index_int(vm, start)?;
    if stop.is_none() {
        // if step is not _ONE: raise TypeError("Missing a non-None stop argument")
        if !matches!(step, Value::Int(1)) {
            return Err(vm.type_error("Missing a non-None stop argument"));
        }
        if !istart.is_negative() && !istart.is_zero() {
            return Ok(from_int(randbelow(r, &istart)));
        }
        return Err(vm.value_error("empty range for randrange()"));
    }
    // istop = _index(stop); width = istop - istart; istep = _index(step)
    let istop = index_int(vm, stop)?;
    let width = int_ops::sub(&istop, &istart);
    let istep = index_int(vm, step)?;
    let text = |vm: &mut Vm, v: &Value| vm.str_of(v).map(|s| s.as_str().to_string());
    if istep == Int::Small(1) {
        if !width.is_negative() && !width.is_zero() {
            return Ok(from_int(int_ops::add(&istart, &randbelow(r, &width))));
        }
        let (a, b) = (text(vm, start)?, text(vm, stop)?);
        return Err(vm.value_error(format!("empty range in randrange({a}, {b})")));
    }
    // n = (width + istep - 1) // istep  or  (width + istep + 1) // istep
    let one = Int::Small(if istep.is_negative() { -1 } else { 1 });
    if istep.is_zero() {
        return Err(vm.value_error("zero step for randrange()"));
    }
    let numerator = int_ops::sub(&int_ops::add(&width, &istep), &one);
    let n = int_ops::floor_div(&numerator, &istep).map_err(|e| vm.op_error(e))?;
    if n.is_negative() || n.is_zero() {
        let (a, b, c) = (text(vm, start)?, text(vm, stop)?, text(vm, step)?);
        return Err(vm.value_error(format!("empty range in randrange({a}, {b}, {c})")));
    }
    let offset = int_ops::mul(&istep, &randbelow(r, &n));
    Ok(from_int(int_ops::add(&istart, &offset)))
}

/// `randint(self, a, b)`: `return self.randrange(a, b+1)`.
fn random_randint(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    const DEF: PyDef = PyDef {
        name: "randint",
        params: &["a", "b"],
        required: 2,
        kwonly: &[],
    };
    this(vm, args, "randint")?;
    let slots = DEF.bind(vm, args, kw)?;
    let (a, b) = (arg(&slots, 0, Value::None), arg(&slots, 1, Value::None));
    let stop = binop(vm, Op::Add, &b, &Value::Int(1))?;
    randrange(vm, &args[0], &a, &stop, &Value::Int(1))
}

/// `choice(self, seq)`:
/// ```python
/// if not len(seq):
///     raise IndexError('Cannot choose from an empty sequence')
/// return seq[self._randbelow(len(seq))]
/// ```
fn random_choice(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    const DEF: PyDef = PyDef {
        name: "choice",
        params: &["seq"],
        required: 1,
        kwonly: &[],
    };
    let r = this(vm, args, "choice")?;
    let slots = DEF.bind(vm, args, kw)?;
    let seq = arg(&slots, 0, Value::None);
    let n = vm.len(&seq)?;
    if n == 0 {
        return Err(vm.index_error("Cannot choose from an empty sequence"));
    }
    let i = randbelow_usize(r, n);
    vm.get_item(&seq, &Value::Int(i as i64))
}

/// `shuffle(self, x)`:
/// ```python
/// for i in reversed(range(1, len(x))):
///     j = randbelow(i + 1)
///     x[i], x[j] = x[j], x[i]
/// ```
fn random_shuffle(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    const DEF: PyDef = PyDef {
        name: "shuffle",
        params: &["x"],
        required: 1,
        kwonly: &[],
    };
    let r = this(vm, args, "shuffle")?;
    let slots = DEF.bind(vm, args, kw)?;
    let x = arg(&slots, 0, Value::None);
    let n = vm.len(&x)?;
    if let Value::List(l) = &x {
        for i in (1..n).rev() {
            vm.charge(1)?;
            let j = randbelow_usize(r, i + 1);
            let mut items = l.items.borrow_mut();
            if i < items.len() {
                items.swap(i, j);
            }
        }
        return Ok(Value::None);
    }
    for i in (1..n).rev() {
        vm.charge(1)?;
        let j = randbelow_usize(r, i + 1);
        let (iv, jv) = (Value::Int(i as i64), Value::Int(j as i64));
        let (at_j, at_i) = (vm.get_item(&x, &jv)?, vm.get_item(&x, &iv)?);
        vm.set_item(&x, &iv, at_j)?;
        vm.set_item(&x, &jv, at_i)?;
    }
    Ok(Value::None)
}

/// `isinstance(population, _Sequence)` for the sequences apy has.
fn is_sequence(v: &Value) -> bool {
    match v {
        Value::List(_) | Value::Tuple(_) | Value::Str(_) => true,
        Value::Object(o) => {
            matches!(o.kind, ObjectKind::Range(_))
                || v.native::<super::deque::Deque>().is_some()
                || o.builtin_base().is_some_and(is_sequence)
        }
        _ => false,
    }
}

/// `bisect.bisect_right(a, x, lo, hi)` over values, with `<` as the comparison.
fn bisect_right(vm: &mut Vm, a: &[Value], x: &Value, hi: usize) -> PyResult<usize> {
    let (mut lo, mut hi) = (0, hi);
    while lo < hi {
        let mid = (lo + hi) / 2;
        if less(vm, x, &a[mid])? {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    Ok(lo)
}

/// `list(_accumulate(iterable))`: running sums with `+`.
fn accumulate(vm: &mut Vm, iterable: &Value) -> PyResult<Vec<Value>> {
    let it = vm.get_iter(iterable)?;
    let mut out: Vec<Value> = Vec::new();
    while let Some(v) = vm.next(&it)? {
        let total = match out.last() {
            Some(last) => {
                let last = last.clone();
                binop(vm, Op::Add, &last, &v)?
            }
            None => v,
        };
        out.push(total);
    }
    Ok(out)
}

/// `sample(self, population, k, *, counts=None)`.
fn random_sample(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    const DEF: PyDef = PyDef {
        name: "sample",
        params: &["population", "k"],
        required: 2,
        kwonly: &["counts"],
    };
    this(vm, args, "sample")?;
    let slots = DEF.bind(vm, args, kw)?;
    let population = arg(&slots, 0, Value::None);
    let k = arg(&slots, 1, Value::None);
    let counts = arg(&slots, 2, Value::None);
    sample(vm, &args[0], &population, &k, &counts).map(Value::list)
}

fn sample(
    vm: &mut Vm,
    this_v: &Value,
    population: &Value,
    k: &Value,
    counts: &Value,
) -> PyResult<Vec<Value>> {
    let r = this(vm, std::slice::from_ref(this_v), "sample")?;
    if !is_sequence(population) {
        return Err(
            vm.type_error("Population must be a sequence.  For dicts or sets, use sorted(d).")
        );
    }
    let n = vm.len(population)?;
    if !counts.is_none() {
        // cum_counts = list(_accumulate(counts)); total = cum_counts.pop()
        let mut cum_counts = accumulate(vm, counts)?;
        if cum_counts.len() != n {
            return Err(vm.value_error("The number of counts does not match the population"));
        }
        let total = cum_counts.pop().unwrap_or(Value::Int(0));
        let Some(total) = to_int(&total) else {
            return Err(vm.type_error("Counts must be integers"));
        };
        let total = match total {
            Int::Small(t) if t > 0 => t,
            Int::Small(_) => {
                return Err(vm.value_error("Total of counts must be greater than zero"));
            }
            Int::Big(_) => {
                return Err(vm.overflow_error("Python int too large to convert to C ssize_t"));
            }
        };
        // selections = self.sample(range(total), k=k)
        let range = vm.new_range(crate::vm::range::Range {
            start: Int::Small(0),
            stop: Int::Small(total),
            step: Int::Small(1),
        });
        let selections = sample(vm, this_v, &range, k, &Value::None)?;
        // return [population[bisect(cum_counts, s)] for s in selections]
        let mut out = Vec::with_capacity(selections.len());
        for s in selections {
            vm.charge(1)?;
            let i = bisect_right(vm, &cum_counts, &s, cum_counts.len())?;
            out.push(vm.get_item(population, &Value::Int(i as i64))?);
        }
        return Ok(out);
    }
    // if not 0 <= k <= n: raise ValueError("Sample larger than population or is negative")
    let in_range =
        compare(vm, CompareOperator::Ge, k, 0.0)? && compare(vm, CompareOperator::Le, k, n as f64)?;
    if !in_range {
        return Err(vm.value_error("Sample larger than population or is negative"));
    }
    let Some(Int::Small(k)) = to_int(k) else {
        return Err(vm.type_error(format!(
            "can't multiply sequence by non-int of type '{}'",
            vm.type_name(k)
        )));
    };
    let k = k as usize;
    let mut result = Vec::with_capacity(k);
    // setsize = 21; if k > 5: setsize += 4 ** _ceil(_log(k * 3, 4))
    let mut setsize: u128 = 21;
    if k > 5 {
        let exponent = ((k as f64 * 3.0).ln() / 4.0f64.ln()).ceil() as u32;
        setsize += 4u128.saturating_pow(exponent);
    }
    if (n as u128) <= setsize {
        // pool = list(population); result[i] = pool[j]; pool[j] = pool[n - i - 1]
        let mut pool = vm.collect_iterable(population)?;
        for i in 0..k {
            vm.charge(1)?;
            let j = randbelow_usize(r, n - i);
            result.push(pool[j].clone());
            pool[j] = pool[n - i - 1].clone();
        }
    } else {
        let mut selected = std::collections::HashSet::new();
        for _ in 0..k {
            vm.charge(1)?;
            let mut j = randbelow_usize(r, n);
            while selected.contains(&j) {
                j = randbelow_usize(r, n);
            }
            selected.insert(j);
            result.push(vm.get_item(population, &Value::Int(j as i64))?);
        }
    }
    Ok(result)
}

/// `_repeat(None, k)`'s count: an int, none when negative.
fn repeat_count(vm: &mut Vm, k: &Value) -> PyResult<usize> {
    let k = super::module_args::index_isize(vm, k)?;
    Ok(k.max(0) as usize)
}

/// `choices(self, population, weights=None, *, cum_weights=None, k=1)`.
fn random_choices(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    const DEF: PyDef = PyDef {
        name: "choices",
        params: &["population", "weights"],
        required: 1,
        kwonly: &["cum_weights", "k"],
    };
    let r = this(vm, args, "choices")?;
    let slots = DEF.bind(vm, args, kw)?;
    let population = arg(&slots, 0, Value::None);
    let weights = arg(&slots, 1, Value::None);
    let cum_weights = arg(&slots, 2, Value::None);
    let k = arg(&slots, 3, Value::Int(1));
    let n = vm.len(&population)?;
    let cum_weights = if cum_weights.is_none() {
        if weights.is_none() {
            // return [population[floor(random() * n)] for i in _repeat(None, k)]
            let count = repeat_count(vm, &k)?;
            let mut out = Vec::with_capacity(count);
            for _ in 0..count {
                vm.charge(1)?;
                let i = (draw(r) * n as f64).floor() as i64;
                out.push(vm.get_item(&population, &Value::Int(i))?);
            }
            return Ok(Value::list(out));
        }
        match accumulate(vm, &weights) {
            Ok(cum) => cum,
            Err(e) if vm.exc_matches(&e, &vm.types.type_error.clone()) => {
                if to_int(&weights).is_none() {
                    return Err(e);
                }
                let k = vm.repr(&weights)?;
                return Err(vm.type_error(format!(
                    "The number of choices must be a keyword argument: k={k}"
                )));
            }
            Err(e) => return Err(e),
        }
    } else if !weights.is_none() {
        return Err(vm.type_error("Cannot specify both weights and cumulative weights"));
    } else {
        if vm.len(&cum_weights)? != n {
            return Err(vm.value_error("The number of weights does not match the population"));
        }
        vm.collect_iterable(&cum_weights)?
    };
    if cum_weights.len() != n {
        return Err(vm.value_error("The number of weights does not match the population"));
    }
    // total = cum_weights[-1] + 0.0   # convert to float
    let last = cum_weights.last().cloned().unwrap_or(Value::None);
    if cum_weights.is_empty() {
        return Err(vm.index_error("list index out of range"));
    }
    let total = binop(vm, Op::Add, &last, &Value::Float(0.0))?;
    if compare(vm, CompareOperator::Le, &total, 0.0)? {
        return Err(vm.value_error("Total of weights must be greater than zero"));
    }
    let total = as_double(vm, &total)?;
    if !total.is_finite() {
        return Err(vm.value_error("Total of weights must be finite"));
    }
    // hi = n - 1
    // return [population[bisect(cum_weights, random() * total, 0, hi)] for i in _repeat(None, k)]
    let count = repeat_count(vm, &k)?;
    let mut out = Vec::with_capacity(count);
    for _ in 0..count {
        vm.charge(1)?;
        let x = Value::Float(draw(r) * total);
        let i = bisect_right(vm, &cum_weights, &x, n - 1)?;
        out.push(vm.get_item(&population, &Value::Int(i as i64))?);
    }
    Ok(Value::list(out))
}

/// `uniform(self, a, b)`: `return a + (b - a) * self.random()`.
fn random_uniform(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    const DEF: PyDef = PyDef {
        name: "uniform",
        params: &["a", "b"],
        required: 2,
        kwonly: &[],
    };
    let r = this(vm, args, "uniform")?;
    let slots = DEF.bind(vm, args, kw)?;
    let (a, b) = (arg(&slots, 0, Value::None), arg(&slots, 1, Value::None));
    let width = binop(vm, Op::Subtract, &b, &a)?;
    let u = Value::Float(draw(r));
    let step = binop(vm, Op::Multiply, &width, &u)?;
    binop(vm, Op::Add, &a, &step)
}

/// `triangular(self, low=0.0, high=1.0, mode=None)`:
/// ```python
/// u = self.random()
/// try:
///     c = 0.5 if mode is None else (mode - low) / (high - low)
/// except ZeroDivisionError:
///     return low
/// if u > c:
///     u = 1.0 - u
///     c = 1.0 - c
///     low, high = high, low
/// return low + (high - low) * _sqrt(u * c)
/// ```
fn random_triangular(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    const DEF: PyDef = PyDef {
        name: "triangular",
        params: &["low", "high", "mode"],
        required: 0,
        kwonly: &[],
    };
    let r = this(vm, args, "triangular")?;
    let slots = DEF.bind(vm, args, kw)?;
    let mut low = arg(&slots, 0, Value::Float(0.0));
    let mut high = arg(&slots, 1, Value::Float(1.0));
    let mode = arg(&slots, 2, Value::None);
    let mut u = Value::Float(draw(r));
    let mut c = if mode.is_none() {
        Value::Float(0.5)
    } else {
        let num = binop(vm, Op::Subtract, &mode, &low)?;
        let den = binop(vm, Op::Subtract, &high, &low)?;
        match binop(vm, Op::TrueDivide, &num, &den) {
            Ok(c) => c,
            Err(e) if vm.exc_matches(&e, &vm.types.zero_division_error.clone()) => {
                return Ok(low);
            }
            Err(e) => return Err(e),
        }
    };
    let above = vm.compare(CompareOperator::Gt, &u, &c)?;
    if vm.truthy(&above)? {
        u = binop(vm, Op::Subtract, &Value::Float(1.0), &u)?;
        c = binop(vm, Op::Subtract, &Value::Float(1.0), &c)?;
        std::mem::swap(&mut low, &mut high);
    }
    let uc = binop(vm, Op::Multiply, &u, &c)?;
    let root = Value::Float(sqrt_of(vm, &uc)?);
    let width = binop(vm, Op::Subtract, &high, &low)?;
    let step = binop(vm, Op::Multiply, &width, &root)?;
    binop(vm, Op::Add, &low, &step)
}

/// `mu + z * sigma`.
fn shift_scale(vm: &mut Vm, mu: &Value, z: &Value, sigma: &Value) -> PyResult<Value> {
    let scaled = binop(vm, Op::Multiply, z, sigma)?;
    binop(vm, Op::Add, mu, &scaled)
}

/// The Kinderman and Monahan loop of `normalvariate`:
/// ```python
/// while True:
///     u1 = random()
///     u2 = 1.0 - random()
///     z = NV_MAGICCONST * (u1 - 0.5) / u2
///     zz = z * z / 4.0
///     if zz <= -_log(u2):
///         break
/// ```
fn normal_z(r: &RandomObj) -> f64 {
    loop {
        let u1 = draw(r);
        let u2 = 1.0 - draw(r);
        let z = nv_magicconst() * (u1 - 0.5) / u2;
        let zz = z * z / 4.0;
        if zz <= -u2.ln() {
            return z;
        }
    }
}

const MU_SIGMA: PyDef = PyDef {
    name: "normalvariate",
    params: &["mu", "sigma"],
    required: 0,
    kwonly: &[],
};

/// `normalvariate(self, mu=0.0, sigma=1.0)`: `return mu + z * sigma`.
fn random_normalvariate(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let r = this(vm, args, "normalvariate")?;
    let slots = MU_SIGMA.bind(vm, args, kw)?;
    let z = Value::Float(normal_z(r));
    let (mu, sigma) = (
        arg(&slots, 0, Value::Float(0.0)),
        arg(&slots, 1, Value::Float(1.0)),
    );
    shift_scale(vm, &mu, &z, &sigma)
}

/// `gauss(self, mu=0.0, sigma=1.0)`:
/// ```python
/// z = self.gauss_next
/// self.gauss_next = None
/// if z is None:
///     x2pi = random() * TWOPI
///     g2rad = _sqrt(-2.0 * _log(1.0 - random()))
///     z = _cos(x2pi) * g2rad
///     self.gauss_next = _sin(x2pi) * g2rad
/// return mu + z * sigma
/// ```
fn random_gauss(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    const DEF: PyDef = PyDef {
        name: "gauss",
        ..MU_SIGMA
    };
    let r = this(vm, args, "gauss")?;
    let slots = DEF.bind(vm, args, kw)?;
    let mut z = std::mem::replace(&mut *r.gauss_next.borrow_mut(), Value::None);
    if z.is_none() {
        let x2pi = draw(r) * TWOPI;
        let g2rad = (-2.0 * log(vm, 1.0 - draw(r))?).sqrt();
        z = Value::Float(x2pi.cos() * g2rad);
        *r.gauss_next.borrow_mut() = Value::Float(x2pi.sin() * g2rad);
    }
    let (mu, sigma) = (
        arg(&slots, 0, Value::Float(0.0)),
        arg(&slots, 1, Value::Float(1.0)),
    );
    shift_scale(vm, &mu, &z, &sigma)
}

/// `lognormvariate(self, mu, sigma)`: `return _exp(self.normalvariate(mu, sigma))`.
fn random_lognormvariate(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    const DEF: PyDef = PyDef {
        name: "lognormvariate",
        params: &["mu", "sigma"],
        required: 2,
        kwonly: &[],
    };
    let r = this(vm, args, "lognormvariate")?;
    let slots = DEF.bind(vm, args, kw)?;
    let z = Value::Float(normal_z(r));
    let (mu, sigma) = (arg(&slots, 0, Value::None), arg(&slots, 1, Value::None));
    let x = shift_scale(vm, &mu, &z, &sigma)?;
    let x = as_double(vm, &x)?;
    let e = x.exp();
    if e.is_infinite() && x.is_finite() {
        return Err(vm.overflow_error("math range error"));
    }
    Ok(Value::Float(e))
}

/// `expovariate(self, lambd=1.0)`: `return -_log(1.0 - self.random()) / lambd`.
fn random_expovariate(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    const DEF: PyDef = PyDef {
        name: "expovariate",
        params: &["lambd"],
        required: 0,
        kwonly: &[],
    };
    let r = this(vm, args, "expovariate")?;
    let slots = DEF.bind(vm, args, kw)?;
    let x = Value::Float(-log(vm, 1.0 - draw(r))?);
    binop(vm, Op::TrueDivide, &x, &arg(&slots, 0, Value::Float(1.0)))
}

/// `vonmisesvariate(self, mu, kappa)`.
fn random_vonmisesvariate(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    const DEF: PyDef = PyDef {
        name: "vonmisesvariate",
        params: &["mu", "kappa"],
        required: 2,
        kwonly: &[],
    };
    let r = this(vm, args, "vonmisesvariate")?;
    let slots = DEF.bind(vm, args, kw)?;
    let (mu, kappa) = (arg(&slots, 0, Value::None), arg(&slots, 1, Value::None));
    // if kappa <= 1e-6: return TWOPI * random()
    if compare(vm, CompareOperator::Le, &kappa, 1e-6)? {
        return Ok(Value::Float(TWOPI * draw(r)));
    }
    let kappa = as_double(vm, &kappa)?;
    let s = 0.5 / kappa;
    let rr = s + (1.0 + s * s).sqrt();
    let z = loop {
        let u1 = draw(r);
        let z = (std::f64::consts::PI * u1).cos();
        let d = z / (rr + z);
        let u2 = draw(r);
        if u2 < 1.0 - d * d || u2 <= (1.0 - d) * d.exp() {
            break z;
        }
    };
    let q = 1.0 / rr;
    let f = (q + z) / (1.0 + q * z);
    let u3 = draw(r);
    if !(-1.0..=1.0).contains(&f) {
        return Err(math_domain(vm));
    }
    // theta = (mu + _acos(f)) % TWOPI  or  (mu - _acos(f)) % TWOPI
    let op = if u3 > 0.5 { Op::Add } else { Op::Subtract };
    let angle = binop(vm, op, &mu, &Value::Float(f.acos()))?;
    binop(vm, Op::Remainder, &angle, &Value::Float(TWOPI))
}

/// `gammavariate(alpha, beta)` with `beta` applied by the caller: the three methods of
/// `Lib/random.py` (Cheng for alpha > 1, the exponential for 1, algorithm GS below 1).
fn gamma_unit(vm: &Vm, r: &RandomObj, alpha: f64) -> PyResult<f64> {
    const LOG4: f64 = 1.3862943611198906; // _log(4.0)
    let sg_magicconst = 1.0 + 4.5f64.ln();
    if alpha > 1.0 {
        let ainv = (2.0 * alpha - 1.0).sqrt();
        let bbb = alpha - LOG4;
        let ccc = alpha + ainv;
        loop {
            let u1 = draw(r);
            if !(1e-7 < u1 && u1 < 0.9999999) {
                continue;
            }
            let u2 = 1.0 - draw(r);
            let v = (u1 / (1.0 - u1)).ln() / ainv;
            let x = alpha * v.exp();
            let z = u1 * u1 * u2;
            let rr = bbb + ccc * v - x;
            if rr + sg_magicconst - 4.5 * z >= 0.0 || rr >= log(vm, z)? {
                return Ok(x);
            }
        }
    } else if alpha == 1.0 {
        Ok(-log(vm, 1.0 - draw(r))?)
    } else {
        let e = std::f64::consts::E;
        loop {
            let u = draw(r);
            let b = (e + alpha) / e;
            let p = b * u;
            let x = if p <= 1.0 {
                p.powf(1.0 / alpha)
            } else {
                -log(vm, (b - p) / alpha)?
            };
            let u1 = draw(r);
            if p > 1.0 {
                if u1 <= x.powf(alpha - 1.0) {
                    return Ok(x);
                }
            } else if u1 <= (-x).exp() {
                return Ok(x);
            }
        }
    }
}

/// `gammavariate(self, alpha, beta)`.
fn random_gammavariate(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    const DEF: PyDef = PyDef {
        name: "gammavariate",
        params: &["alpha", "beta"],
        required: 2,
        kwonly: &[],
    };
    let r = this(vm, args, "gammavariate")?;
    let slots = DEF.bind(vm, args, kw)?;
    let (alpha, beta) = (arg(&slots, 0, Value::None), arg(&slots, 1, Value::None));
    // if alpha <= 0.0 or beta <= 0.0: raise ValueError(...)
    if compare(vm, CompareOperator::Le, &alpha, 0.0)?
        || compare(vm, CompareOperator::Le, &beta, 0.0)?
    {
        return Err(vm.value_error("gammavariate: alpha and beta must be > 0.0"));
    }
    let alpha = as_double(vm, &alpha)?;
    let x = gamma_unit(vm, r, alpha)?;
    binop(vm, Op::Multiply, &Value::Float(x), &beta)
}

/// `betavariate(self, alpha, beta)`:
/// ```python
/// y = self.gammavariate(alpha, 1.0)
/// if y:
///     return y / (y + self.gammavariate(beta, 1.0))
/// return 0.0
/// ```
fn random_betavariate(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    const DEF: PyDef = PyDef {
        name: "betavariate",
        params: &["alpha", "beta"],
        required: 2,
        kwonly: &[],
    };
    this(vm, args, "betavariate")?;
    let slots = DEF.bind(vm, args, kw)?;
    let (alpha, beta) = (arg(&slots, 0, Value::None), arg(&slots, 1, Value::None));
    let gamma = |vm: &mut Vm, shape: Value| {
        random_gammavariate(vm, &[args[0].clone(), shape, Value::Float(1.0)], &[])
    };
    let y = gamma(vm, alpha)?;
    if vm.truthy(&y)? {
        let other = gamma(vm, beta)?;
        let sum = binop(vm, Op::Add, &y, &other)?;
        return binop(vm, Op::TrueDivide, &y, &sum);
    }
    Ok(Value::Float(0.0))
}

/// `paretovariate(self, alpha)`: `u = 1.0 - self.random(); return u ** (-1.0 / alpha)`.
fn random_paretovariate(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    const DEF: PyDef = PyDef {
        name: "paretovariate",
        params: &["alpha"],
        required: 1,
        kwonly: &[],
    };
    let r = this(vm, args, "paretovariate")?;
    let slots = DEF.bind(vm, args, kw)?;
    let u = Value::Float(1.0 - draw(r));
    let exponent = binop(
        vm,
        Op::TrueDivide,
        &Value::Float(-1.0),
        &arg(&slots, 0, Value::None),
    )?;
    binop(vm, Op::Power, &u, &exponent)
}

/// `weibullvariate(self, alpha, beta)`:
/// `u = 1.0 - self.random(); return alpha * (-_log(u)) ** (1.0 / beta)`.
fn random_weibullvariate(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    const DEF: PyDef = PyDef {
        name: "weibullvariate",
        params: &["alpha", "beta"],
        required: 2,
        kwonly: &[],
    };
    let r = this(vm, args, "weibullvariate")?;
    let slots = DEF.bind(vm, args, kw)?;
    let u = 1.0 - draw(r);
    let minus_log = Value::Float(-log(vm, u)?);
    let exponent = binop(
        vm,
        Op::TrueDivide,
        &Value::Float(1.0),
        &arg(&slots, 1, Value::None),
    )?;
    let p = binop(vm, Op::Power, &minus_log, &exponent)?;
    binop(vm, Op::Multiply, &arg(&slots, 0, Value::None), &p)
}

/// `binomialvariate(self, n=1, p=0.5)`: the geometric method for `n * p < 10`, else BTRS.
fn random_binomialvariate(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    const DEF: PyDef = PyDef {
        name: "binomialvariate",
        params: &["n", "p"],
        required: 0,
        kwonly: &[],
    };
    let r = this(vm, args, "binomialvariate")?;
    let slots = DEF.bind(vm, args, kw)?;
    let n_value = arg(&slots, 0, Value::Int(1));
    let p_value = arg(&slots, 1, Value::Float(0.5));
    if compare(vm, CompareOperator::Lt, &n_value, 0.0)? {
        return Err(vm.value_error("n must be non-negative"));
    }
    let p = as_double(vm, &p_value)?;
    if p <= 0.0 || p >= 1.0 {
        if p == 0.0 {
            return Ok(Value::Int(0));
        }
        if p == 1.0 {
            return Ok(n_value);
        }
        return Err(vm.value_error("p must be in the range 0.0 <= p <= 1.0"));
    }
    let n = super::module_args::index_isize(vm, &n_value)?;
    Ok(Value::Int(binomial(vm, r, n, p)?))
}

fn binomial(vm: &Vm, r: &RandomObj, n: i64, p: f64) -> PyResult<i64> {
    if n == 1 {
        return Ok(i64::from(draw(r) < p));
    }
    if p > 0.5 {
        return Ok(n - binomial(vm, r, n, 1.0 - p)?);
    }
    if n as f64 * p < 10.0 {
        // BG: Geometric method by Devroye with running time of O(np).
        let (mut x, mut y) = (0i64, 0i64);
        let c = (1.0 - p).log2();
        if c == 0.0 {
            return Ok(x);
        }
        loop {
            let u = draw(r);
            if u <= 0.0 {
                return Err(math_domain(vm));
            }
            y += (u.log2() / c).floor() as i64 + 1;
            if y > n {
                return Ok(x);
            }
            x += 1;
        }
    }
    // BTRS: Transformed rejection with squeeze method by Wolfgang Hörmann.
    let nf = n as f64;
    let spq = (nf * p * (1.0 - p)).sqrt();
    let b = 1.15 + 2.53 * spq;
    let a = -0.0873 + 0.0248 * b + 0.01 * p;
    let c = nf * p + 0.5;
    let vr = 0.92 - 4.2 / b;
    let mut setup: Option<(f64, f64, f64, f64)> = None;
    loop {
        let u = draw(r) - 0.5;
        let us = 0.5 - u.abs();
        let k = ((2.0 * a / us + b) * u + c).floor();
        if k < 0.0 || k > nf {
            continue;
        }
        let mut v = draw(r);
        if us >= 0.07 && v <= vr {
            return Ok(k as i64);
        }
        let (alpha, lpq, m, h) = *setup.get_or_insert_with(|| {
            let alpha = (2.83 + 5.1 / b) * spq;
            let lpq = (p / (1.0 - p)).ln();
            let m = ((nf + 1.0) * p).floor();
            let h = super::math::lgamma(m + 1.0) + super::math::lgamma(nf - m + 1.0);
            (alpha, lpq, m, h)
        });
        v *= alpha / (a / (us * us) + b);
        let bound =
            h - super::math::lgamma(k + 1.0) - super::math::lgamma(nf - k + 1.0) + (k - m) * lpq;
        if log(vm, v)? <= bound {
            return Ok(k as i64);
        }
    }
}

fn random_type(vm: &mut Vm) -> Rc<PyType> {
    let ty = make_type(
        "Random",
        vec![vm.types.object.clone()],
        Layout::Builtin,
        false,
    );
    vm.set_type_attr(&ty, "__module__", Value::str("random"));
    vm.set_type_attr(&ty, "VERSION", Value::Int(3));
    vm.add_static(&ty, "__new__", random_new);
    let methods: [(&'static str, crate::vm::object::NativeFn); 26] = [
        ("__init__", random_init),
        ("random", random_random),
        ("seed", random_seed),
        ("getstate", random_getstate),
        ("setstate", random_setstate),
        ("getrandbits", random_getrandbits),
        ("randbytes", random_randbytes),
        ("_randbelow", random_randbelow),
        ("randrange", random_randrange),
        ("randint", random_randint),
        ("choice", random_choice),
        ("shuffle", random_shuffle),
        ("sample", random_sample),
        ("choices", random_choices),
        ("uniform", random_uniform),
        ("triangular", random_triangular),
        ("normalvariate", random_normalvariate),
        ("gauss", random_gauss),
        ("lognormvariate", random_lognormvariate),
        ("expovariate", random_expovariate),
        ("vonmisesvariate", random_vonmisesvariate),
        ("gammavariate", random_gammavariate),
        ("betavariate", random_betavariate),
        ("paretovariate", random_paretovariate),
        ("weibullvariate", random_weibullvariate),
        ("binomialvariate", random_binomialvariate),
    ];
    vm.add_methods(&ty, &methods);
    vm.add_getset(
        &ty,
        "gauss_next",
        |vm, v| {
            let r = this(vm, std::slice::from_ref(v), "gauss_next")?;
            Ok(r.gauss_next.borrow().clone())
        },
        Some(|vm, v, value| {
            let r = this(vm, std::slice::from_ref(v), "gauss_next")?;
            *r.gauss_next.borrow_mut() = value;
            Ok(())
        }),
    );
    ty
}

/// The module: the `Random` class, and `_inst = Random()` seeded from the OS with its
/// methods exported as the module's functions (`seed = _inst.seed`, …).
pub fn module(vm: &mut Vm) -> Value {
    let ty = random_type(vm);
    let inst = Value::object(Object::with_dict(
        ty.clone(),
        ObjectKind::Other(Box::new(RandomObj {
            twister: RefCell::new(Twister::zeroed()),
            gauss_next: RefCell::new(Value::None),
        })),
    ));
    if let Some(r) = inst.native::<RandomObj>() {
        r.twister.borrow_mut().seed_from_os();
    }
    let mut attrs = vec![("Random", Value::Type(ty.clone())), ("_inst", inst.clone())];
    const EXPORTED: [&str; 24] = [
        "seed",
        "random",
        "uniform",
        "triangular",
        "randint",
        "choice",
        "randrange",
        "sample",
        "shuffle",
        "choices",
        "normalvariate",
        "lognormvariate",
        "expovariate",
        "vonmisesvariate",
        "gammavariate",
        "gauss",
        "betavariate",
        "binomialvariate",
        "paretovariate",
        "weibullvariate",
        "getstate",
        "setstate",
        "getrandbits",
        "randbytes",
    ];
    for name in EXPORTED {
        let key = vm.intern(name);
        if let Some(f) = crate::vm::types::lookup(&ty, &key) {
            attrs.push((name, vm.bound_method(f, inst.clone())));
        }
    }
    // A child that os.fork() made draws numbers of its own, as CPython's random module
    // registers `os.register_at_fork(after_in_child=_inst.seed)`.
    if let Some((_, seed)) = attrs.iter().find(|(name, _)| *name == "seed") {
        vm.fork_hooks.after_in_child.push(seed.clone());
    }
    vm.new_module("random", attrs)
}
