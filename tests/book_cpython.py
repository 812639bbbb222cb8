#!/usr/bin/env python3
"""Checks the book against CPython 3.13, and fills in its output blocks.

    tests/book_cpython.py                 check: every deterministic example of book/src/*.md
                                          prints under CPython 3.13 what its chapter shows
    tests/book_cpython.py --bless [MD...] rewrite the output blocks after each example

The conventions (tags, output blocks) are described at the top of tests/book.rs.
Checking compares stdout and the exit status exactly, and the last line of stderr (the
`TypeError: ...` line apy promises to match; --verbose lists examples whose stderr differs
above it, as where CPython's traceback shows its own library files); examples tagged
`nondeterministic` or `args=...` are skipped. Blessing writes CPython's stdout (apy's, run
with --clock virtual, for skipped examples) and apy's stderr; apy is `--apy PATH`, by
default the debug build in $CARGO_TARGET_DIR (or target/). Run from anywhere, with any
Python 3; CPython 3.13 is found as `PYENV_VERSION=3.13.0 python3.13`.
"""
import argparse
import concurrent.futures
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CHAPTERS = ROOT / "book" / "src"
PYTHON = ["env", "PYENV_VERSION=3.13.0", "python3.13"]
LEARNER_DIR = "/home/learner"
LESSON_FILE = "lesson.apy"
FENCE = re.compile(r"^```(.*)$")


class Example:
    def __init__(self, chapter, number, line, info, source, outputs):
        self.chapter, self.number, self.line = chapter, number, line
        tags = info.split(",")[1:]
        self.tags = [t for t in tags if not t.startswith("args=")]
        self.switches = [t[len("args="):] for t in tags if t.startswith("args=")]
        self.source = source
        self.stdout = outputs.get("text", "")
        self.stderr = outputs.get("text,stderr", "")

    @property
    def name(self):
        return f"{self.chapter.stem}-{self.number:02}"

    @property
    def checked_by_cpython(self):
        return not self.switches and "nondeterministic" not in self.tags


INCLUDE = re.compile(r"^\s*\{\{#include (.+)\}\}\s*$")


def program(body, chapter):
    """The example's program: `{{#include PATH}}` lines (mdBook's) replaced by that file."""
    parts = []
    for line in body.splitlines(keepends=True):
        match = INCLUDE.match(line)
        parts.append((chapter.parent / match.group(1).strip()).read_text() if match else line)
    return "".join(parts)


def fenced_blocks(lines):
    """(info, first body line index, end line index) of every fenced block."""
    blocks, start, info = [], None, None
    for i, line in enumerate(lines):
        match = FENCE.match(line)
        if not match:
            continue
        if start is None:
            start, info = i, match.group(1).strip()
        elif not match.group(1).strip():
            blocks.append((info, start + 1, i))
            start = None
    return blocks


def examples(chapter):
    """The lines of a chapter and its examples, each with where its output blocks are: the
    (start, end) line span they occupy, or the line to insert them at when it has none."""
    lines = chapter.read_text().splitlines(keepends=True)
    blocks = fenced_blocks(lines)
    found = []
    i = 0
    while i < len(blocks):
        info, start, end = blocks[i]
        i += 1
        if info.split(",")[0] != "python":
            continue
        outputs, span, previous_end = {}, None, end
        for kind in ("text", "text,stderr"):
            if (i < len(blocks) and blocks[i][0] == kind
                    and not "".join(lines[previous_end + 1:blocks[i][1] - 1]).strip()):
                _, out_start, out_end = blocks[i]
                outputs[kind] = "".join(lines[out_start:out_end])
                span = (span[0] if span else out_start - 1, out_end + 1)
                previous_end = out_end
                i += 1
        source = program("".join(lines[start:end]), chapter)
        example = Example(chapter, len(found) + 1, start, info, source, outputs)
        found.append((example, span or end + 1))
    return lines, found


def run(command, example):
    """Runs `command + [lesson.apy]` on the example in a scratch folder shown as /home/learner."""
    with tempfile.TemporaryDirectory() as scratch:
        scratch = os.path.realpath(scratch)
        Path(scratch, LESSON_FILE).write_text(example.source)
        env = dict(os.environ, PYTHONHASHSEED="0", PYTHONIOENCODING="utf-8")
        result = subprocess.run(
            command + [LESSON_FILE], cwd=scratch, capture_output=True, text=True,
            stdin=subprocess.DEVNULL, env=env, timeout=60,
        )
    shown = lambda text: text.replace(scratch, LEARNER_DIR)
    return shown(result.stdout), shown(result.stderr), result.returncode


def run_cpython(example):
    return run(PYTHON, example)


def run_apy(apy, example):
    return run([apy, "--clock", "virtual", *example.switches], example)


WARNING_PLACE = re.compile(r"^\S+:\d+: (?=\w*Warning: )")


def last_line(text):
    """The last line of stderr, without the `file:line: ` a warning starts with: apy's
    library files and their line numbers are not CPython's."""
    lines = text.strip().splitlines()
    return WARNING_PLACE.sub("", lines[-1]) if lines else ""


def disagreements(example, result):
    """What differs between the chapter and one CPython run of its example."""
    stdout, stderr, status = result
    problems = []
    if stdout != example.stdout:
        problems.append(f"stdout:\n--- book\n{example.stdout}--- CPython\n{stdout}")
    if last_line(stderr) != last_line(example.stderr):
        problems.append(f"stderr:\n--- book\n{example.stderr}--- CPython\n{stderr}")
    if (status != 0) != ("should_fail" in example.tags):
        problems.append(f"CPython exits with {status}")
    return problems


# CPython runs the examples on its real clock: on a loaded machine a timer can fire late
# enough to reorder output, so a disagreement is confirmed by this many runs in a row.
TRIES = 3


def check(all_examples, verbose):
    checked = [e for e in all_examples if e.checked_by_cpython]
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(run_cpython, checked))
    failures, notes = 0, []
    for example, result in zip(checked, results):
        problems = disagreements(example, result)
        for _ in range(TRIES - 1):
            if not problems:
                break
            result = run_cpython(example)
            problems = disagreements(example, result)
        stderr = result[1]
        if not problems and stderr != example.stderr:
            notes.append(f"{example.name}: stderr agrees on its last line only:\n"
                         f"--- book\n{example.stderr}--- CPython\n{stderr}")
        if problems:
            failures += 1
            print(f"{example.chapter.name} example {example.name} (line {example.line}):")
            print("\n".join(problems))
    if notes and verbose:
        print("\n".join(notes))
    skipped = len(all_examples) - len(checked)
    print(f"{len(checked) - failures} of {len(checked)} deterministic examples print what "
          f"CPython 3.13 prints ({skipped} apy-only or nondeterministic examples skipped; "
          f"{len(notes)} agree on the last line of stderr only, --verbose shows them)")
    return failures == 0


def output_blocks(stdout, stderr):
    text = ""
    if stdout:
        text += f"```text\n{stdout}```\n"
    if stderr:
        text += ("\n" if stdout else "") + f"```text,stderr\n{stderr}```\n"
    return text


def bless(chapters, apy):
    for chapter in chapters:
        lines, found = examples(chapter)
        # Rewrite from the end so earlier line numbers stay valid.
        for example, where in reversed(found):
            stdout, stderr, status = run_apy(apy, example)
            if "apy_differs" in example.tags:
                stdout, stderr, status = run_cpython(example)
            elif example.checked_by_cpython:
                stdout, _, status = run_cpython(example)
            if (status != 0) != ("should_fail" in example.tags):
                print(f"warning: {example.name} exits with {status}", file=sys.stderr)
            blocks = output_blocks(stdout, stderr)
            if isinstance(where, tuple):
                lines[where[0]:where[1]] = [blocks]
            elif blocks:  # no output blocks yet: insert them after the example
                lines[where:where] = ["\n" + blocks]
        chapter.write_text("".join(lines))
        print(f"blessed {chapter.relative_to(ROOT)} ({len(found)} examples)")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bless", action="store_true")
    parser.add_argument("--verbose", action="store_true")
    target = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
    parser.add_argument("--apy", default=str(target / "debug" / "apy"))
    parser.add_argument("chapters", nargs="*", type=Path)
    args = parser.parse_args()
    chapters = [p.resolve() for p in args.chapters] or sorted(CHAPTERS.glob("*.md"))
    if args.bless:
        bless(chapters, args.apy)
        return
    all_examples = [e for chapter in chapters for e, _ in examples(chapter)[1]]
    sys.exit(0 if check(all_examples, args.verbose) else 1)


if __name__ == "__main__":
    main()
