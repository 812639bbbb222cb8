#!/usr/bin/env python3
"""Regenerates the expected output of every tests/programs/**/*.apy with CPython 3.13.

For each program: NAME.out gets CPython's exact stdout; NAME.rc the exit status when it
is not 0; NAME.err the last line of stderr when stderr is not empty (that is what
tests/programs.rs compares). Run from anywhere:  tests/bless.py [PATH...]
Expected files are never written by hand.
"""
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent / "programs"
PYTHON = ["env", "PYENV_VERSION=3.13.0", "python3.13"]


def bless(program: Path) -> None:
    env = dict(os.environ, PYTHONIOENCODING="utf-8", PYTHONHASHSEED="0")
    result = subprocess.run(
        PYTHON + [program.name], cwd=program.parent, capture_output=True, text=True,
        stdin=subprocess.DEVNULL, env=env, timeout=60,
    )
    stem = program.with_suffix("")
    Path(f"{stem}.out").write_text(result.stdout)
    rc, err = Path(f"{stem}.rc"), Path(f"{stem}.err")
    if result.returncode:
        rc.write_text(f"{result.returncode}\n")
    elif rc.exists():
        rc.unlink()
    lines = result.stderr.strip().splitlines()
    if lines:
        err.write_text(lines[-1] + "\n")
    elif err.exists():
        err.unlink()
    print(f"blessed {program.relative_to(ROOT)} (exit {result.returncode})")


def main() -> None:
    targets = [Path(p).resolve() for p in sys.argv[1:]] or [ROOT]
    for target in targets:
        programs = [target] if target.is_file() else sorted(target.rglob("*.apy"))
        for program in programs:
            bless(program)


if __name__ == "__main__":
    main()
