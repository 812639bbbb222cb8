#!/usr/bin/env bash
# Builds apy for the browser and then the book: every example gets Run and Edit, and the
# playground page works (README.md, "apy in the browser"). Compiles the crate for
# wasm32-unknown-unknown (src/web.rs is its entry point), makes the JavaScript glue with
# wasm-bindgen into book/src/web/ (apy.js, apy_bg.wasm, and apy-worker-source.js, the
# workers' script; generated, not committed) and runs
# `mdbook build book`, which copies them with the page scripts into target/book/web/.
# Installs what it needs itself: the rustup target, and wasm-bindgen-cli of exactly the
# wasm-bindgen version in Cargo.lock, into $CARGO_TARGET_DIR/tools (nothing outside it).
# Usage: bash book/web.sh [--no-book]
set -euo pipefail

cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-target}"
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"

if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
    rustup target add wasm32-unknown-unknown
fi

version=$(grep -A1 '^name = "wasm-bindgen"$' Cargo.lock | sed -n 's/^version = "\(.*\)"$/\1/p')
tools="$CARGO_TARGET_DIR/tools"
bindgen="$tools/bin/wasm-bindgen"
if ! "$bindgen" --version 2>/dev/null | grep -qx "wasm-bindgen $version"; then
    cargo install wasm-bindgen-cli --version "$version" --root "$tools"
fi

# The interpreter's recursion needs a deeper stack than wasm's default of 1 MiB; the cap on
# sys.setrecursionlimit follows it (interp::WASM_STACK_BYTES, which must match).
stack=$((64 << 20))
# The profile `wasm` (Cargo.toml): the release build at opt-level "s", smaller and no slower
# in the page (README.md, "apy in the browser").
cargo rustc --lib --profile wasm --target wasm32-unknown-unknown --crate-type cdylib -- \
    -C link-arg=-zstack-size=$stack
# Without the name section (260 KB of function names, for stack traces only).
"$bindgen" --target no-modules --no-typescript --remove-name-section --out-dir book/src/web \
    --out-name apy "$CARGO_TARGET_DIR/wasm32-unknown-unknown/wasm/apy.wasm"
echo "apy.wasm: $(stat -c %s book/src/web/apy_bg.wasm) bytes"

# The workers' script, for the page to start them without a request (apy-load.js): the
# glue and apy-worker.js, as one string. The glue is wrapped in `apyGlue()`, which makes a
# copy of it (apy-worker.js warms the module up on a second instance).
node -e '
const fs = require("fs");
const web = process.argv[1];
const glue = fs.readFileSync(`${web}/apy.js`, "utf8");
const source = `const apyGlue = () => {\n${glue}\nreturn wasm_bindgen;\n};\nconst wasm_bindgen = apyGlue();\n` +
    fs.readFileSync(`${web}/apy-worker.js`, "utf8");
fs.writeFileSync(`${web}/apy-worker-source.js`, "// Made by book/web.sh from apy.js and apy-worker.js: the script of the workers apy-load.js starts.\n" +
    `window.apyWorkerSource = ${JSON.stringify(source)};\n`);
' book/src/web

if [[ "${1:-}" != "--no-book" ]]; then
    mdbook build book
fi
