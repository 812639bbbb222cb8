#!/usr/bin/env python3
"""Regenerate tests/syntax_errors/NAME.expected: the last line CPython 3.13 prints for NAME.apy.

Usage (from anywhere):
    PYENV_VERSION=3.13.0 python3.13 tests/regen_syntax_errors.py [NAME...]

Runs this interpreter on each fixture (or only the NAMEs given) and writes the last line of its
stderr to NAME.expected. Every fixture must fail to compile with SyntaxError, IndentationError
or TabError; anything else is reported and nothing is written for it.

Fixtures in APY_OWN use constructs that are valid Python but outside apy's subset: CPython
accepts them, so their .expected holds apy's own message, written by hand and never
overwritten here.
"""

import pathlib
import subprocess
import sys

FIXTURES = pathlib.Path(__file__).resolve().parent / "syntax_errors"

# Valid Python that apy rejects on purpose (see SUBSET.md): the expectation is apy's message.
APY_OWN: set[str] = set()

ERROR_CLASSES = ("SyntaxError: ", "IndentationError: ", "TabError: ")


def main(names):
    if sys.version_info[:2] != (3, 13):
        sys.exit(f"run me with CPython 3.13 (this is {sys.version.split()[0]})")
    fixtures = sorted(FIXTURES.glob("*.apy"))
    if names:
        fixtures = [f for f in fixtures if f.stem in names]
    failed = False
    for fixture in fixtures:
        if fixture.stem in APY_OWN:
            print(f"keep  {fixture.stem} (apy's own message)")
            continue
        # Compile only: a fixture that happened to be valid must not run.
        code = "import sys; compile(open(sys.argv[1], 'rb').read(), sys.argv[1], 'exec')"
        result = subprocess.run(
            [sys.executable, "-c", code, str(fixture)],
            capture_output=True,
            text=True,
            cwd=FIXTURES,
        )
        lines = result.stderr.splitlines()
        last = lines[-1] if lines else ""
        if result.returncode != 1 or not last.startswith(ERROR_CLASSES):
            print(f"ERROR {fixture.stem}: exit {result.returncode}, last line {last!r}")
            failed = True
            continue
        fixture.with_suffix(".expected").write_text(last + "\n")
        print(f"wrote {fixture.stem}: {last}")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main(sys.argv[1:])
