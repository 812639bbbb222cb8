#!/usr/bin/env bash
# Fills fuzz/corpus/<target>/ with the seed programs: every test program and example of
# the repository (copied at run time, never committed). Run from anywhere: bash fuzz/seed.sh
set -euo pipefail

cd "$(dirname "$0")"
for target in parse_compile run repl_input; do
    mkdir -p "corpus/$target"
    find ../tests/programs ../tests/syntax_errors ../examples -name '*.apy' -print0 |
        while IFS= read -r -d '' program; do
            # One file per program, named by its path so a re-run overwrites it.
            name=$(echo "${program#../}" | tr '/' '_')
            cp "$program" "corpus/$target/$name"
        done
done
seeds=$(find ../tests/programs ../tests/syntax_errors ../examples -name '*.apy' | wc -l)
echo "seeded $seeds programs into fuzz/corpus/{parse_compile,run,repl_input}"
