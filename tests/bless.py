#!/usr/bin/env python3
"""Regenerates the expected output of every tests/programs/**/*.apy and examples/*.apy
with CPython 3.13.

For each program: NAME.out (beside a test program; in tests/examples/ for an example) gets
CPython's exact stdout (with paths relative to the program's folder, as everywhere); NAME.rc the exit status when it
is not 0; NAME.err the last line of stderr when stderr is not empty (that is what
tests/programs.rs compares). A program with NAME.stdin beside it reads that file on stdin
(the others read nothing). Programs under tests/programs/tracebacks/ and
tests/programs/warnings/ also get NAME.stderr, the whole of CPython's stderr, caret
lines (`~~^^`) included, with paths relative to the program's folder, for tests of how
tracebacks are laid out and warnings worded. Each program's CPython ast.dump is blessed
too (tests/bless_ast.py, for tests/ast_dump.rs). Run from anywhere:  tests/bless.py [PATH...]
Expected files are never written by hand.
"""
import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bless_ast  # noqa: E402

TESTS = Path(__file__).resolve().parent
ROOT = TESTS / "programs"
EXAMPLES = TESTS.parent / "examples"
WHOLE_STDERR = [ROOT / "tracebacks", ROOT / "warnings"]
PYTHON = ["env", "PYENV_VERSION=3.13.0", "python3.13"]


def bless(program: Path) -> None:
    env = dict(os.environ, PYTHONIOENCODING="utf-8", PYTHONHASHSEED="0")
    # What the program reads on stdin: NAME.stdin beside it, or nothing.
    stdin_file = program.with_suffix(".stdin")
    with open(stdin_file if stdin_file.exists() else os.devnull, "rb") as stdin:
        result = subprocess.run(
            PYTHON + [program.name], cwd=program.parent, capture_output=True, text=True,
            stdin=stdin, env=env, timeout=60,
        )
    if program.parent == EXAMPLES:
        stem = TESTS / "examples" / program.stem
        stem.parent.mkdir(exist_ok=True)
    else:
        stem = program.with_suffix("")
    # Paths are kept relative to the program's folder, so a clone anywhere compares.
    Path(f"{stem}.out").write_text(result.stdout.replace(f"{program.parent}/", ""))
    rc, err = Path(f"{stem}.rc"), Path(f"{stem}.err")
    if result.returncode:
        rc.write_text(f"{result.returncode}\n")
    elif rc.exists():
        rc.unlink()
    # Only the newlines go: a last line may end in a space ("KeyboardInterrupt: ").
    lines = result.stderr.rstrip("\n").splitlines()
    if lines:
        # Paths are kept relative to the program's folder, so a clone anywhere compares.
        err.write_text(lines[-1].replace(f"{program.parent}/", "") + "\n")
    elif err.exists():
        err.unlink()
    if any(folder in program.parents for folder in WHOLE_STDERR):
        # Paths are kept relative to the program's folder, so a clone anywhere compares.
        Path(f"{stem}.stderr").write_text(result.stderr.replace(f"{program.parent}/", ""))
    print(f"blessed {program.relative_to(TESTS.parent)} (exit {result.returncode})")
    bless_ast.bless(program)


def main() -> None:
    targets = [Path(p).resolve() for p in sys.argv[1:]] or [ROOT, EXAMPLES]
    for target in targets:
        programs = [target] if target.is_file() else sorted(target.rglob("*.apy"))
        for program in programs:
            bless(program)


if __name__ == "__main__":
    main()
