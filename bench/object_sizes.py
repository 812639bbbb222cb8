#!/usr/bin/env python3
"""What one object of each common kind costs, in apy and in CPython 3.13.

usage: bench/object_sizes.py [--n N] [--runs R] [--apy PATH]
  e.g. cargo build --release && python3 bench/object_sizes.py

Each kind is measured as the growth in peak memory (ru_maxrss, which includes the malloc
headers and rounding a real program pays) of a program that keeps N objects of that kind
alive in a list, over the same program keeping N Nones in the list: that difference,
divided by N, is the bytes one object costs beyond its slot in the list (a slot is 8 bytes
in CPython, 16 in apy, whose values are unboxed 16-byte enums). Best of R runs of each.
Beside them, CPython's own view: `sys.getsizeof` of one object, plus that of its `__dict__`
(made on demand in 3.13, whose instances keep their values inline) where it has one.
"""
import argparse, os, subprocess, sys

PRELUDE = """
import asyncio
class C0:
    pass
class C1:
    def __init__(self):
        self.a = 1
class C3:
    def __init__(self):
        self.a = 1
        self.b = 2
        self.c = 3
    def m(self):
        pass
class C8:
    def __init__(self):
        self.a = 1
        self.b = 2
        self.c = 3
        self.d = 4
        self.e = 5
        self.f = 6
        self.g = 7
        self.h = 8
def gen():
    x = 1
    yield x
class Suspend:
    def __await__(self):
        yield
async def coro():
    x = 1
    await Suspend()
    return x
async def waiter(fut):
    await fut
o = C3()
"""

# (label, expression making one object from the int i, CPython getsizeof expression)
KINDS = [
    ("instance, 0 attributes", "C0()", "sys.getsizeof(C0())"),
    ("instance, 1 attribute", "C1()", "sys.getsizeof(x := C1()) + sys.getsizeof(x.__dict__)"),
    ("instance, 3 attributes", "C3()", "sys.getsizeof(x := C3()) + sys.getsizeof(x.__dict__)"),
    ("instance, 8 attributes", "C8()", "sys.getsizeof(x := C8()) + sys.getsizeof(x.__dict__)"),
    ("bound method", "o.m", "sys.getsizeof(o.m)"),
    ("int (not cached)", "i + 1000", "sys.getsizeof(100000)"),
    ("float", "i + 0.5", "sys.getsizeof(0.5)"),
    ("dict, empty", "{}", "sys.getsizeof({})"),
    ("dict, 3 str keys", "{'a': i, 'b': 2, 'c': 3}", "sys.getsizeof({'a': 1, 'b': 2, 'c': 3})"),
    ("list, empty", "[]", "sys.getsizeof([])"),
    ("list, 3 items", "[i, 2, 3]", "sys.getsizeof([1, 2, 3])"),
    ("generator, not started", "gen()", "sys.getsizeof(gen())"),
    ("generator, suspended", "started(gen())", "sys.getsizeof(started(gen()))"),
    ("coroutine, suspended", "sent(coro())", "sys.getsizeof(sent(coro()))"),
    ("exception, 1 argument", "ValueError(i)",
     "sys.getsizeof(x := ValueError(1)) + sys.getsizeof(x.args)"),
]

# Made inside a running loop: (label, expression, getsizeof expression)
LOOP_KINDS = [
    ("Future", "loop.create_future()", "sys.getsizeof(loop.create_future())"),
    ("Task + its suspended coroutine", "asyncio.create_task(waiter(fut))",
     "sys.getsizeof(asyncio.create_task(waiter(fut)))"),
]

HELPERS = """
def started(g):
    next(g)
    return g
def sent(c):
    c.send(None)
    return c
"""


def program(expr, n, in_loop):
    body = f"    keep = []\n    i = 0\n    while i < {n}:\n        keep.append({expr})\n        i += 1\n"
    if not in_loop:
        return PRELUDE + HELPERS + "def main():\n" + body + "    print(len(keep))\nmain()\n"
    return (PRELUDE + HELPERS + "async def main():\n    loop = asyncio.get_running_loop()\n"
            "    fut = loop.create_future()\n" + body + "    await asyncio.sleep(0)\n"
            "    print(len(keep))\n    fut.set_result(None)\n    await asyncio.sleep(0)\n"
            "asyncio.run(main())\n")


def peak_kb(cmd, path):
    pid = os.fork()
    if pid == 0:
        devnull = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(devnull, fd)
        os.execvp(cmd[0], cmd + [path])
    _, status, usage = os.wait4(pid, 0)
    if status != 0:
        sys.exit(f"{' '.join(cmd)} {path} failed")
    return usage.ru_maxrss


def per_object(cmd, expr, n, runs, in_loop, tmp):
    best = []
    for e in (expr, "None"):
        path = os.path.join(tmp, "size_probe.py")
        with open(path, "w") as f:
            f.write(program(e, n, in_loop))
        best.append(min(peak_kb(cmd, path) for _ in range(runs)))
    return (best[0] - best[1]) * 1024 / n


def getsizeof(cpython, expr, in_loop):
    if in_loop:
        code = (PRELUDE + HELPERS + "import sys\nasync def main():\n"
                "    loop = asyncio.get_running_loop()\n    fut = loop.create_future()\n"
                f"    print({expr})\n    fut.set_result(None)\n    await asyncio.sleep(0)\n"
                "asyncio.run(main())\n")
    else:
        code = PRELUDE + HELPERS + f"import sys\nprint({expr})\n"
    out = subprocess.run(cpython + ["-c", code], capture_output=True, text=True)
    return out.stdout.strip()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=200000)
    ap.add_argument("--runs", type=int, default=3)
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--apy", default=os.path.join(here, "..", "target", "release", "apy"))
    a = ap.parse_args()
    sys.path.insert(0, os.path.join(here, "..", "..", "shared", "bench"))
    try:
        from compare import reference_cpython
        cpython = reference_cpython()
    except ImportError:
        cpython = ["env", "PYENV_VERSION=3.13.0", "python3.13", "-S"]
    tmp = os.environ.get("TMPDIR", "/tmp")
    print("| object | apy bytes | CPython bytes | CPython `sys.getsizeof` (+ `__dict__`) |")
    print("|---|---|---|---|")
    for kinds, in_loop in ((KINDS, False), (LOOP_KINDS, True)):
        for label, expr, size_expr in kinds:
            apy = per_object([a.apy], expr, a.n, a.runs, in_loop, tmp)
            cp = per_object(cpython, expr, a.n, a.runs, in_loop, tmp)
            print(f"| {label} | {apy:.0f} | {cp:.0f} | {getsizeof(cpython, size_expr, in_loop)} |",
                  flush=True)


if __name__ == "__main__":
    main()
