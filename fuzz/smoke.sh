#!/usr/bin/env bash
# A short run of every fuzz target from the seed corpus: fails on a crash (a panic, an
# abort, a native stack overflow) and on a limit overrun (an input slower than libFuzzer's
# -timeout or past its -rss_limit_mb: the run target's own limits, steps, wall time and
# --max-memory, must end every program well inside them). Skipped, saying why, when no
# nightly toolchain or cargo-fuzz can be had.
# Usage: bash fuzz/smoke.sh [SECONDS_PER_TARGET]   (default 60)
set -euo pipefail

seconds="${1:-60}"
cd "$(dirname "$0")"
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"

if ! rustup toolchain list 2>/dev/null | grep -q '^nightly'; then
    if ! rustup toolchain install nightly --profile minimal >/dev/null 2>&1; then
        echo "fuzz smoke run skipped: no nightly toolchain (rustup toolchain install nightly)"
        exit 0
    fi
fi
if ! cargo +nightly fuzz --version >/dev/null 2>&1; then
    if ! cargo +nightly install cargo-fuzz --locked >/dev/null 2>&1; then
        echo "fuzz smoke run skipped: cargo-fuzz could not be installed (cargo install cargo-fuzz)"
        exit 0
    fi
fi

# Its own build directory, beside the main one: other flags, other artifacts.
target_dir="$(cd .. && mkdir -p "${CARGO_TARGET_DIR:-target}" && cd "${CARGO_TARGET_DIR:-target}" && pwd)/fuzz"
bash seed.sh
cargo +nightly fuzz build -s none -a --target-dir "$target_dir"

host="$(rustc +nightly -vV | sed -n 's/^host: //p')"
for target in parse_compile run repl_input; do
    mkdir -p "artifacts/$target"
    echo "-- $target: $seconds s"
    # Stops at the first crash, timeout or out-of-memory, keeping the input. Runs leave
    # nothing behind in the one process (`vm::teardown` frees their reference cycles), so
    # the rss limit is what one input may use: the run target's 256 MB heap and more.
    # Absolute paths: whatever an input does, libFuzzer finds its folders.
    # libFuzzer's -timeout ends a slow input; `timeout` is the guard behind it, should an
    # input ever keep libFuzzer's timer from firing (its SIGALRM blocked or taken by
    # another thread), so that a hang fails here instead of running CI out of time.
    status=0
    timeout --kill-after=10 "$((seconds + 120))" \
        "$target_dir/$host/release/$target" "$PWD/corpus/$target" \
        -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -close_fd_mask=3 \
        -dict="$PWD/python.dict" -artifact_prefix="$PWD/artifacts/$target/" </dev/null \
        2>"artifacts/$target.smoke.log" || status=$?
    if [[ $status -ne 0 ]]; then
        tail -n 40 "artifacts/$target.smoke.log"
        if [[ $status -eq 124 || $status -eq 137 ]]; then
            echo "error: the fuzz target $target hung past libFuzzer's own timeout and was" \
                "killed (the log's last lines above); rerun it to find the input" >&2
        else
            echo "error: the fuzz target $target crashed or overran a limit (the log's last" \
                "lines above); the input is in fuzz/artifacts/$target/" >&2
        fi
        exit 1
    fi
    grep -aE '^(#[0-9]+: |Done [0-9]+ runs)' "artifacts/$target.smoke.log" | tail -n 1 || true
done
echo "fuzz smoke run passed: no crash, timeout or out-of-memory"
