#!/usr/bin/env python3
"""Time apy against CPython 3.13 on the benchmark programs in this folder.

usage: bench/compare.py [--runs N] [--filter SUBSTR] [--apy PATH]

Each `*.apy` here prints a checksum. Every program runs RUNS times under each interpreter,
alternately (apy, CPython, apy, ...) so both see the same machine; apy's stdout must equal
CPython's or the program is reported WRONG and not timed. Prints the median wall time of
each side and the median of the per-run ratios apy/CPython (below 1.0: apy is faster), then
the geometric mean. Wall times include start-up. Quote ratios from one run, never absolute
times from different runs: the machines are shared and noisy.
"""
import argparse
import glob
import math
import os
import statistics
import subprocess
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def cpython():
    """CPython 3.13's binary itself, found through pyenv once (as ../shared/bench/compare.py
    finds it): pyenv's shim would add its own start-up, about 0.4 s, to every run."""
    try:
        out = subprocess.run(["pyenv", "which", "python3.13"], capture_output=True, text=True,
                             env={**os.environ, "PYENV_VERSION": "3.13.0"}, check=True)
        return [out.stdout.strip(), "-S"]
    except (OSError, subprocess.CalledProcessError):
        return ["env", "PYENV_VERSION=3.13.0", "python3.13", "-S"]


def run(cmd, path):
    start = time.perf_counter()
    proc = subprocess.run(cmd + [path], capture_output=True, stdin=subprocess.DEVNULL, cwd=HERE)
    return time.perf_counter() - start, proc.returncode, proc.stdout


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--filter", default="")
    ap.add_argument("--apy", default=os.path.join(HERE, "..", "target", "release", "apy"))
    args = ap.parse_args()
    apy = [os.path.abspath(args.apy)]
    reference = cpython()
    ratios = []
    print(f"{'benchmark':16} {'apy s':>8} {'cpython s':>10} {'ratio':>7}")
    for path in sorted(glob.glob(os.path.join(HERE, "*.apy"))):
        name = os.path.basename(path)[:-4]
        if args.filter not in name:
            continue
        pairs, wrong = [], None
        for _ in range(args.runs):
            ta, rca, outa = run(apy, path)
            tb, rcb, outb = run(reference, path)
            if rca != rcb or outa != outb:
                wrong = f"apy exit {rca} printed {outa[:60]!r}, CPython exit {rcb} printed {outb[:60]!r}"
                break
            pairs.append((ta, tb))
        if wrong:
            print(f"{name:16} WRONG: {wrong}")
            continue
        ratio = statistics.median(a / b for a, b in pairs)
        ratios.append(ratio)
        print(f"{name:16} {statistics.median(a for a, _ in pairs):8.3f} "
              f"{statistics.median(b for _, b in pairs):10.3f} {ratio:7.2f}")
    if ratios:
        geomean = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
        print(f"{'geometric mean':16} {'':8} {'':10} {geomean:7.2f}")


if __name__ == "__main__":
    main()
