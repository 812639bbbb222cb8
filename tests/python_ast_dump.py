#!/usr/bin/env python3
"""Print CPython's ast.dump(tree, indent=2) of a file without the fields apy's AST does not keep.

    PYENV_VERSION=3.13.0 python3.13 tests/python_ast_dump.py FILE | diff - <(apy --ast FILE)

`ctx`, `type_comment` and `kind` are deleted from every node first, so the output is what
`apy --ast FILE` prints; use it to check a tests/ast_dump snapshot against CPython.
"""

import ast
import sys

OMITTED = ("ctx", "type_comment", "kind")


def main(path):
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read(), path)
    for node in ast.walk(tree):
        for field in OMITTED:
            if hasattr(node, field):
                delattr(node, field)
    print(ast.dump(tree, indent=2))


if __name__ == "__main__":
    main(sys.argv[1])
