#!/usr/bin/env python3
"""Writes src/vm/cpython_data/builtin_docs.txt: the `__doc__` and `__text_signature__` of
CPython 3.13's built-in functions and of the methods of its built-in types, which apy's
natives answer with (`src/vm/native_docs.rs`), and src/vm/cpython_data/module_docs.txt:
the `__doc__` of the modules apy makes natively under CPython's name:

    PYENV_VERSION=3.13.0 python3.13 tests/gen_builtin_docs.py

One record a function, type or module: `\\x1e` KEY `\\x1f` TEXT-SIGNATURE `\\x1f` DOC,
where KEY is `module.name` for a module's function (`builtins.len`, `math.sqrt`),
`Type.name` for a method (`str.upper`, `deque.append`), as apy names its natives, `Type`
for a type (`enumerate`); a missing doc or signature is empty. Sorted by key. Also
asyncio's natives (`_asyncio`'s, and those apy writes natively where CPython writes
Python). A module's docstring is a record `\\x1e` MODULE `\\x1f` DOC of the second file,
which is small, so that giving a module its doc at import does not read the big table.
"""
import builtins
import collections
import importlib
import inspect
import types
from pathlib import Path

# The modules apy writes natively under CPython's name (their functions are stamped with
# it): their functions, and the methods of the types they define.
MODULES = ["builtins", "math", "cmath", "itertools", "gc", "atexit", "struct", "array",
           "errno", "binascii", "sys", "_thread", "select"]
# The modules apy makes natively under CPython's name (`builtins/modules.rs`), whose
# docstrings it gives them.
NATIVE_MODULES = MODULES + ["random", "types", "contextvars", "io", "posix",
                            "posixpath", "hashlib", "socket", "selectors", "_functools",
                            "_collections", "_heapq", "_abc", "_sre", "_weakref",
                            "_tracemalloc", "_signal", "_json", "_imp"]
NATIVE = (types.BuiltinFunctionType, types.MethodDescriptorType,
          types.ClassMethodDescriptorType, types.WrapperDescriptorType,
          types.BuiltinMethodType, types.GetSetDescriptorType)

records = {}


def add(key, f):
    doc = getattr(f, "__doc__", None)
    sig = getattr(f, "__text_signature__", None)
    if not isinstance(doc, str) and not isinstance(sig, str):
        return
    records[key] = (sig or "", doc if isinstance(doc, str) else "")


def same_as_inherited(cls, name, f):
    """Whether a base class has `name` with the same doc and signature (an exception
    class's `__init__`): apy finds the base's native there, keyed by the base."""
    for base in cls.__mro__[1:]:
        inherited = vars(base).get(name)
        if inherited is not None:
            return (getattr(inherited, "__doc__", None) == f.__doc__
                    and getattr(inherited, "__text_signature__", None)
                    == getattr(f, "__text_signature__", None))
    return False


def add_type(cls):
    add(cls.__name__, cls)
    for name, attr in vars(cls).items():
        if isinstance(attr, (classmethod, staticmethod)):
            attr = attr.__func__
        if isinstance(attr, NATIVE) and not same_as_inherited(cls, name, attr):
            # (A getset descriptor as it is in the dict: through the class, it would run.)
            native = attr if isinstance(attr, types.GetSetDescriptorType) else getattr(cls, name)
            add(f"{cls.__name__}.{name}", native)


for module_name in MODULES:
    module = importlib.import_module(module_name)
    for name, value in vars(module).items():
        if isinstance(value, types.BuiltinFunctionType):
            add(f"{module_name}.{name}", value)
        elif isinstance(value, type) and value.__module__ in (module_name, "builtins"):
            add_type(value)
add_type(collections.deque)
add_type(type(None))
add_type(type(Ellipsis))
add_type(type(NotImplemented))
add_type(types.GeneratorType)
add_type(types.CoroutineType)
add_type(types.AsyncGeneratorType)


class _Sequence:
    def __getitem__(self, i):
        raise IndexError


# The built-in iterators and dict views (and OrderedDict's), whose types no module names.
_od = collections.OrderedDict()
for _sample in [iter([]), reversed([]), iter(()), iter(""), iter("\u00e9"), iter(b""),
                iter(bytearray()), iter(range(0)), iter(range(2**64)), iter(set()),
                iter({}), iter({}.values()), iter({}.items()), reversed({}),
                reversed({}.values()), reversed({}.items()), {}.keys(), {}.values(),
                {}.items(), iter(_od), _od.keys(), _od.values(), _od.items(), iter(int, 0),
                iter(_Sequence())]:
    add_type(type(_sample))

# asyncio's native core, as CPython's: `_asyncio`'s functions, its Future and Task.
import _asyncio  # noqa: E402
import asyncio  # noqa: E402
for name, value in vars(_asyncio).items():
    if isinstance(value, types.BuiltinFunctionType):
        add(f"_asyncio.{name}", value)
add_type(_asyncio.Future)
add_type(_asyncio.Task)

# The functions and methods CPython writes in Python that apy writes natively (in the
# module CPython's are in, `src/asyncio/mod.rs`): their doc, and for text signature the
# one inspect reads off CPython's (which has none), so that help() shows it.
PYTHON_WRITTEN = [
    asyncio.gather, asyncio.create_task, asyncio.ensure_future, asyncio.all_tasks,
    asyncio.iscoroutine, asyncio.isfuture, asyncio.to_thread, asyncio.wrap_future,
    asyncio.run_coroutine_threadsafe,
    asyncio.Queue.qsize, asyncio.Queue.empty, asyncio.Queue.full,
    asyncio.Queue.put_nowait, asyncio.Queue.get_nowait,
    asyncio.Event.is_set, asyncio.Event.set, asyncio.Event.clear,
    asyncio.Lock.locked, asyncio.Lock.release,
    asyncio.Semaphore.locked, asyncio.Semaphore.release,
]
for f in PYTHON_WRITTEN:
    owner, _, name = f.__qualname__.rpartition(".")
    key = f"{owner or f.__module__}.{name}"
    assert key not in records, key
    records[key] = (str(inspect.signature(f)), f.__doc__ or "")

module_docs = {}
for module_name in NATIVE_MODULES:
    doc = importlib.import_module(module_name).__doc__
    if isinstance(doc, str):
        module_docs[module_name] = (doc,)


def write(name, table):
    out = Path(__file__).resolve().parent.parent / "src/vm/cpython_data" / name
    with open(out, "w", encoding="utf-8", newline="") as f:
        for key in sorted(table):
            fields = (key,) + table[key]
            assert not any(c in s for s in fields for c in "\x1e\x1f")
            f.write("\x1e" + "\x1f".join(fields))
    print(f"{len(table)} records, {out.stat().st_size} bytes")


write("builtin_docs.txt", records)
write("module_docs.txt", module_docs)
