#!/usr/bin/env python3
"""Time start-up to first output: a hello-asyncio program, apy against CPython 3.13.

usage: bench/startup.py [--runs N] [--apy PATH]

The program imports asyncio, runs one coroutine that prints a line, and ends. Each side
runs RUNS times, alternately, and the median wall time of each is printed, with `-c pass`
beside it (the interpreter alone). CPython runs as it does for a learner (no -S, no -I),
with its bytecode caches warm.
"""
import argparse
import os
import statistics
import subprocess
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
CPYTHON = ["env", "PYENV_VERSION=3.13.0", "python3.13"]
HELLO = '''import asyncio


async def main():
    print("hello from a task")


asyncio.run(main())
'''


def wall(cmd):
    start = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, stdin=subprocess.DEVNULL)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"{cmd} failed: {proc.stderr.decode()}")
    return elapsed


def cpython_binary():
    """CPython's own binary, not pyenv's shim (whose start-up would be counted)."""
    out = subprocess.run(CPYTHON + ["-c", "import sys; print(sys.executable)"],
                         capture_output=True, text=True, check=True)
    return [out.stdout.strip()]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=21)
    ap.add_argument("--apy", default=os.path.join(HERE, "..", "target", "release", "apy"))
    args = ap.parse_args()
    apy = [os.path.abspath(args.apy)]
    cpython = cpython_binary()
    with tempfile.TemporaryDirectory() as folder:
        hello = os.path.join(folder, "hello.py")
        with open(hello, "w") as f:
            f.write(HELLO)
        wall(cpython + [hello])  # writes asyncio's bytecode caches if they are missing
        print(f"{'program':22} {'apy ms':>8} {'cpython ms':>11}")
        for name, tail in [("-c pass", ["-c", "pass"]), ("hello asyncio", [hello])]:
            times = {"apy": [], "cpython": []}
            for _ in range(args.runs):
                times["apy"].append(wall(apy + tail))
                times["cpython"].append(wall(cpython + tail))
            print(f"{name:22} {statistics.median(times['apy']) * 1000:8.1f} "
                  f"{statistics.median(times['cpython']) * 1000:11.1f}")


if __name__ == "__main__":
    main()
