#!/usr/bin/env python3
"""Time bench/echo.apy (10,000 echo round trips over loopback streams, 100 clients) under
apy, CPython 3.13 and, when it is installed, CPython 3.13 with uvloop's loop.

usage: bench/echo_compare.py [--runs N] [--apy PATH]

The three run alternately (apy, CPython, uvloop, apy, ...), so all see the same machine;
each run's stdout must equal CPython's. For each it prints the median wall time and the
median CPU time (user + system, of the process and what it waited for), and the medians
of the per-run ratios to CPython. On a shared machine the wall time of a program that
waits on sockets includes waiting for a core; the CPU time is the work each side did.
CPython is its own binary found through pyenv (as compare.py finds it), with -S.
"""
import argparse
import os
import resource
import statistics
import subprocess
import time

from compare import HERE, cpython

UVLOOP = ("import asyncio, runpy, uvloop; "
          "asyncio.set_event_loop_policy(uvloop.EventLoopPolicy()); "
          "runpy.run_path({path!r}, run_name='__main__')")


def run(cmd):
    """Wall time, CPU time, exit status and stdout of one run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, stdin=subprocess.DEVNULL, cwd=HERE)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, proc.returncode, proc.stdout


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--apy", default=os.path.join(HERE, "..", "target", "release", "apy"))
    args = ap.parse_args()
    path = os.path.join(HERE, "echo.apy")
    reference = cpython()
    sides = {"apy": [os.path.abspath(args.apy), path], "cpython": reference + [path]}
    has_uvloop = subprocess.run(reference[:1] + ["-c", "import uvloop"],
                                capture_output=True).returncode == 0
    if has_uvloop:
        sides["cpython+uvloop"] = reference[:1] + ["-c", UVLOOP.format(path=path)]
    times = {name: [] for name in sides}
    for _ in range(args.runs):
        outputs = {}
        for name, cmd in sides.items():
            wall, cpu, rc, out = run(cmd)
            times[name].append((wall, cpu))
            outputs[name] = (rc, out)
        if len(set(outputs.values())) != 1:
            raise SystemExit(f"outputs differ: {outputs}")
    print(f"{'interpreter':16} {'wall s':>8} {'cpu s':>8} {'wall ratio':>11} {'cpu ratio':>10}")
    for name, runs in times.items():
        wall_ratio = statistics.median(w / c[0] for (w, _), c in zip(runs, times["cpython"]))
        cpu_ratio = statistics.median(u / c[1] for (_, u), c in zip(runs, times["cpython"]))
        print(f"{name:16} {statistics.median(w for w, _ in runs):8.3f} "
              f"{statistics.median(u for _, u in runs):8.3f} {wall_ratio:11.2f} {cpu_ratio:10.2f}")
    if not has_uvloop:
        print("uvloop: not installed for CPython 3.13 (pip install uvloop)")


if __name__ == "__main__":
    main()
