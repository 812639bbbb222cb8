#!/usr/bin/env python3
"""Regenerates CPython 3.13's `ast.dump(ast.parse(src), indent=2)` of every program apy's
tests run, for tests/ast_dump.rs to compare with `apy --ast`.

The programs: tests/programs/**/*.apy, examples/*.apy and tests/ast_dump/*.apy (these cover
every statement and expression kind). The dump of REL/NAME.apy (REL relative to the
repository) goes to tests/ast_dump/cpython/REL/NAME.ast. A program CPython cannot parse
(apy-only syntax) is listed in APY_ONLY with the reason; it gets NAME.skip holding the reason
instead, and the test skips it. Run from anywhere:  tests/bless_ast.py [PATH...]
Expected files are never written by hand.
"""
import subprocess
import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parent
REPO = TESTS.parent
OUT = TESTS / "ast_dump" / "cpython"
SOURCES = [TESTS / "programs", REPO / "examples", TESTS / "ast_dump"]
PYTHON = ["env", "PYENV_VERSION=3.13.0", "python3.13"]
DUMP = "import ast, sys; print(ast.dump(ast.parse(open(sys.argv[1], encoding='utf-8').read()), indent=2))"

# Programs CPython cannot parse, relative to the repository, with the reason.
APY_ONLY: dict[str, str] = {}


def bless(program: Path) -> None:
    rel = program.relative_to(REPO)
    stem = OUT / rel.with_suffix("")
    stem.parent.mkdir(parents=True, exist_ok=True)
    ast_file, skip_file = stem.with_suffix(".ast"), stem.with_suffix(".skip")
    reason = APY_ONLY.get(str(rel))
    if reason is not None:
        skip_file.write_text(reason + "\n")
        ast_file.unlink(missing_ok=True)
        print(f"skipped {rel}: {reason}")
        return
    result = subprocess.run(
        PYTHON + ["-c", DUMP, str(program)], capture_output=True, text=True, timeout=60
    )
    if result.returncode:
        sys.exit(f"CPython cannot parse {rel} (list it in APY_ONLY):\n{result.stderr}")
    ast_file.write_text(result.stdout)
    skip_file.unlink(missing_ok=True)
    print(f"blessed {rel}")


def main() -> None:
    targets = [Path(p).resolve() for p in sys.argv[1:]] or SOURCES
    for target in targets:
        if target.is_file():
            programs = [target]
        elif target == TESTS / "ast_dump":
            programs = sorted(target.glob("*.apy"))
        else:
            programs = sorted(target.rglob("*.apy"))
        for program in programs:
            bless(program)


if __name__ == "__main__":
    main()
