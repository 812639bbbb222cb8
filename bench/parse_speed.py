#!/usr/bin/env python3
"""Measure how fast apy's front end is: generate a 10,000-line program and time
`apy --check` on it (parse + compile, start-up included; best of N runs).

usage: bench/parse_speed.py [--lines N] [--runs N] [--apy PATH]
"""
import argparse
import os
import subprocess
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))

BLOCK = '''
class Shape{i}(Base):
    """A generated class."""
    def __init__(self, w, h=2, *rest, scale=1.0, **extra):
        self.w, self.h = w, h
        self.items = [x * scale for x in rest if x % 2 == 0]

    async def area(self, unit="cm"):
        try:
            value = await compute(self.w * self.h ** 2 - (self.w // 3))
        except (ValueError, KeyError) as err:
            raise RuntimeError(f"bad {{unit!r}}: {{err}}") from err
        finally:
            done = {{k: v for k, v in extra.items()}}
        return value if value > 0 else -value

    def walk(self, n):
        total = 0
        while n > 0:
            n -= 1
            if n % 3 == 0 and not n & 1 or n in (1, 2, 3):
                total += sum(i for i in range(n)) + len("abc" "def")
            elif n < -1:
                continue
            else:
                total <<= 1
        return lambda x, *a, k=0: (x, a[1:-1:2], k, total)
'''


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lines", type=int, default=10000)
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--apy", default=os.path.join(HERE, "..", "target", "release", "apy"))
    args = ap.parse_args()
    lines = BLOCK.count("\n")
    source = "".join(BLOCK.format(i=i) for i in range(args.lines // lines + 1))
    with tempfile.NamedTemporaryFile("w", suffix=".apy", delete=False) as f:
        f.write(source)
    best = None
    for _ in range(args.runs):
        start = time.perf_counter()
        proc = subprocess.run([args.apy, "--check", f.name], capture_output=True)
        elapsed = time.perf_counter() - start
        if proc.returncode != 0:
            raise SystemExit(f"apy --check failed: {proc.stderr.decode()[-400:]}")
        best = elapsed if best is None else min(best, elapsed)
    os.unlink(f.name)
    print(f"{source.count(chr(10))} lines: apy --check best of {args.runs}: {best * 1000:.1f} ms")


if __name__ == "__main__":
    main()
