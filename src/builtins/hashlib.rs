//! `hashlib`, native over RustCrypto's digests where CPython's is OpenSSL's (`_hashlib`):
//! `md5`, `sha1`, the SHA-2 family and SHA-3, each a constructor as `hashlib.sha256` is, and
//! `new(name)`. A hash object (`_hashlib.HASH`) has `update`, `digest`, `hexdigest`,
//! `copy`, `name`, `digest_size` and `block_size`. Not here: BLAKE2 and SHAKE, `pbkdf2_hmac`,
//! `file_digest`.

use std::cell::RefCell;
use std::rc::Rc;

use sha2::Digest;

use super::bytes_type::bytes_of;
use crate::vm::args::{Signature, kwarg};
use crate::vm::object::{KwArgs, Layout, NativeFn, Object, ObjectKind, PyType};
use crate::vm::types::make_type;
use crate::vm::value::Value;
use crate::vm::{PyResult, Vm};

/// A running hash of one of the algorithms.
#[derive(Clone)]
enum Hasher {
    Md5(md5::Md5),
    Sha1(sha1::Sha1),
    Sha224(sha2::Sha224),
    Sha256(sha2::Sha256),
    Sha384(sha2::Sha384),
    Sha512(sha2::Sha512),
    Sha3_224(sha3::Sha3_224),
    Sha3_256(sha3::Sha3_256),
    Sha3_384(sha3::Sha3_384),
    Sha3_512(sha3::Sha3_512),
}

/// Runs `$body` with `$h` bound to the hasher inside, whichever algorithm it is.
macro_rules! each_hasher {
    ($hasher:expr, $h:ident => $body:expr) => {
        match $hasher {
            Hasher::Md5($h) => $body,
            Hasher::Sha1($h) => $body,
            Hasher::Sha224($h) => $body,
            Hasher::Sha256($h) => $body,
            Hasher::Sha384($h) => $body,
            Hasher::Sha512($h) => $body,
            Hasher::Sha3_224($h) => $body,
            Hasher::Sha3_256($h) => $body,
            Hasher::Sha3_384($h) => $body,
            Hasher::Sha3_512($h) => $body,
        }
    };
}

/// An algorithm: its name, the block size CPython reports for it, and a fresh hasher.
type Algorithm = (&'static str, usize, fn() -> Hasher);

/// `hashlib.md5` and the others: for each algorithm, a native function named as CPython's
/// (`openssl_md5`) that makes a hash object of it.
macro_rules! constructors {
    ($($name:literal),*) => {
        [$((
            concat!("openssl_", $name),
            (|vm, args, kw| construct(vm, $name, args, kw)) as NativeFn,
        )),*]
    };
}

/// The algorithms by name.
const ALGORITHMS: &[Algorithm] = &[
    ("md5", 64, || Hasher::Md5(Default::default())),
    ("sha1", 64, || Hasher::Sha1(Default::default())),
    ("sha224", 64, || Hasher::Sha224(Default::default())),
    ("sha256", 64, || Hasher::Sha256(Default::default())),
    ("sha384", 128, || Hasher::Sha384(Default::default())),
    ("sha512", 128, || Hasher::Sha512(Default::default())),
    ("sha3_224", 144, || Hasher::Sha3_224(Default::default())),
    ("sha3_256", 136, || Hasher::Sha3_256(Default::default())),
    ("sha3_384", 104, || Hasher::Sha3_384(Default::default())),
    ("sha3_512", 72, || Hasher::Sha3_512(Default::default())),
];

/// A `_hashlib.HASH` object's state.
struct Hash {
    name: &'static str,
    block_size: usize,
    hasher: RefCell<Hasher>,
}

impl Hasher {
    fn update(&mut self, data: &[u8]) {
        each_hasher!(self, h => Digest::update(h, data))
    }

    fn digest(&self) -> Vec<u8> {
        each_hasher!(self, h => h.clone().finalize().to_vec())
    }

    fn digest_size(&self) -> usize {
        each_hasher!(self, h => output_size(h))
    }
}

fn output_size<D: Digest>(_: &D) -> usize {
    <D as Digest>::output_size()
}

pub fn module(vm: &mut Vm) -> Value {
    let class = make_type(
        "HASH",
        vec![vm.types.object.clone()],
        Layout::Builtin,
        false,
    );
    vm.set_type_attr(&class, "__module__", Value::str("_hashlib"));
    let methods: [(&'static str, NativeFn); 5] = [
        ("update", |vm, args, kw| {
            Signature::one("HASH", "update").check(vm, &args[1..], kw)?;
            let data = data_arg(vm, &args[1])?;
            this(vm, args)?.hasher.borrow_mut().update(&data);
            Ok(Value::None)
        }),
        ("digest", |vm, args, kw| {
            Signature::no_args("HASH", "digest").check(vm, &args[1..], kw)?;
            let digest = this(vm, args)?.hasher.borrow().digest();
            Ok(vm.new_bytes(digest))
        }),
        ("hexdigest", |vm, args, kw| {
            Signature::no_args("HASH", "hexdigest").check(vm, &args[1..], kw)?;
            let digest = this(vm, args)?.hasher.borrow().digest();
            Ok(Value::str(
                digest
                    .iter()
                    .map(|b| format!("{b:02x}"))
                    .collect::<String>(),
            ))
        }),
        ("copy", |vm, args, kw| {
            Signature::no_args("HASH", "copy").check(vm, &args[1..], kw)?;
            let hash = this(vm, args)?;
            let copy = Hash {
                name: hash.name,
                block_size: hash.block_size,
                hasher: RefCell::new(hash.hasher.borrow().clone()),
            };
            let Value::Object(o) = &args[0] else {
                unreachable!("this() checked it")
            };
            Ok(new_hash(o.class.clone(), copy))
        }),
        ("__repr__", |vm, args, _| {
            let name = this(vm, args)?.name;
            let Value::Object(o) = &args[0] else {
                unreachable!("this() checked it")
            };
            Ok(Value::str(format!(
                "<{name} _hashlib.HASH object @ {:#x}>",
                Rc::as_ptr(o) as usize
            )))
        }),
    ];
    vm.add_methods(&class, &methods);
    vm.add_getset(
        &class,
        "name",
        |vm, v| Ok(Value::str(hash_of(vm, v)?.name)),
        None,
    );
    vm.add_getset(
        &class,
        "digest_size",
        |vm, v| {
            Ok(Value::Int(
                hash_of(vm, v)?.hasher.borrow().digest_size() as i64
            ))
        },
        None,
    );
    vm.add_getset(
        &class,
        "block_size",
        |vm, v| Ok(Value::Int(hash_of(vm, v)?.block_size as i64)),
        None,
    );
    let constructors = constructors!(
        "md5", "sha1", "sha224", "sha256", "sha384", "sha512", "sha3_224", "sha3_256", "sha3_384",
        "sha3_512"
    );
    let mut attrs: Vec<(&str, Value)> = constructors
        .iter()
        .map(|&(name, f)| (&name["openssl_".len()..], vm.native(name, f)))
        .collect();
    let names = Value::list(ALGORITHMS.iter().map(|(n, _, _)| Value::str(*n)).collect());
    let set = Value::Type(vm.types.set.clone());
    for attr in ["algorithms_guaranteed", "algorithms_available"] {
        // Cannot fail: a set of strs.
        if let Ok(names) = vm.call(&set, std::slice::from_ref(&names), &[]) {
            attrs.push((attr, names));
        }
    }
    attrs.extend([
        ("new", vm.native("__hash_new", hash_new)),
        ("HASH", Value::Type(class)),
    ]);
    vm.new_module("hashlib", attrs)
}

fn new_hash(class: Rc<PyType>, hash: Hash) -> Value {
    Value::object(Object::new(class, ObjectKind::Other(Box::new(hash))))
}

fn hash_of<'a>(vm: &Vm, v: &'a Value) -> PyResult<&'a Hash> {
    match v {
        Value::Object(o) => match &o.kind {
            ObjectKind::Other(any) => any.downcast_ref::<Hash>(),
            _ => None,
        },
        _ => None,
    }
    .ok_or_else(|| vm.type_error("descriptor requires a '_hashlib.HASH' object"))
}

fn this<'a>(vm: &Vm, args: &'a [Value]) -> PyResult<&'a Hash> {
    hash_of(vm, args.first().unwrap_or(&Value::None))
}

/// What a hash takes in: a bytes-like object; a str must be encoded first.
fn data_arg(vm: &Vm, v: &Value) -> PyResult<Vec<u8>> {
    match bytes_of(v) {
        Some(bytes) => Ok(bytes),
        None if matches!(v, Value::Str(_)) => {
            Err(vm.type_error("Strings must be encoded before hashing"))
        }
        None => Err(vm.type_error("object supporting the buffer API required")),
    }
}

/// `hashlib.sha256(string=b'', *, usedforsecurity=True)` and the others.
fn construct(vm: &mut Vm, name: &str, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    if args.len() > 1 {
        return Err(vm.type_error(format!(
            "openssl_{name}() takes at most 1 positional argument ({} given)",
            args.len()
        )));
    }
    if let Some((key, _)) = kw
        .iter()
        .find(|(k, _)| !matches!(k.as_str(), "string" | "usedforsecurity"))
    {
        return Err(vm.type_error(format!(
            "openssl_{name}() got an unexpected keyword argument '{}'",
            key.as_str()
        )));
    }
    let data = args.first().cloned().or_else(|| kwarg(kw, "string"));
    start(vm, name, data.as_ref())
}

/// `hashlib.new(name, data=b'', **kwargs)`.
fn hash_new(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    let name = match args.first().cloned().or_else(|| kwarg(kw, "name")) {
        Some(Value::Str(s)) => s.as_str().to_string(),
        Some(_) => return Err(vm.type_error("name must be a string")),
        None => {
            return Err(
                vm.type_error("__hash_new() missing 1 required positional argument: 'name'")
            );
        }
    };
    let data = args
        .get(1)
        .cloned()
        .or_else(|| kwarg(kw, "data"))
        .or_else(|| kwarg(kw, "string"));
    start(vm, &name, data.as_ref())
}

/// A new hash object of the algorithm `name`, fed `data` when given.
fn start(vm: &mut Vm, name: &str, data: Option<&Value>) -> PyResult<Value> {
    // Any case, as OpenSSL's names; the error repeats the name as given.
    let (name, block_size, make) = *ALGORITHMS
        .iter()
        .find(|(n, _, _)| n.eq_ignore_ascii_case(name))
        .ok_or_else(|| vm.value_error(format!("unsupported hash type {name}")))?;
    let mut hasher = make();
    if let Some(data) = data {
        hasher.update(&data_arg(vm, data)?);
    }
    let module = vm.import_module("hashlib")?;
    let key = vm.intern("HASH");
    let Value::Type(class) = vm.get_attr(&module, &key)? else {
        return Err(vm.runtime_error("hashlib.HASH is not a class"));
    };
    let hash = Hash {
        name,
        block_size,
        hasher: RefCell::new(hasher),
    };
    Ok(new_hash(class, hash))
}
