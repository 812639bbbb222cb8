#!/usr/bin/env bash
# A long fuzzing campaign of one target: repeated bounded libFuzzer runs, each resuming from
# the corpus the last one grew (so what an input leaves behind in the process, and the rss
# limit, start afresh every run), counting the executions of all of them, until the total
# reaches the goal. Stops at the first crash, timeout or out-of-memory, keeping the input in
# fuzz/artifacts/<target>/ and the run's log beside it. One line a run, and the totals, go to
# fuzz/artifacts/<target>.campaign (tab-separated: time, runs, seconds, corpus files,
# total runs, total seconds). Builds nothing: run `bash fuzz/smoke.sh` (or
# `cargo +nightly fuzz build -s none -a`) first; it uses the binaries that build made.
# Usage: nice -n 19 bash fuzz/campaign.sh TARGET [TOTAL_RUNS] [RUNS_PER_RUN] [MAX_LEN]
#   TARGET: parse_compile, run or repl_input; TOTAL_RUNS: 10000000 unless given;
#   RUNS_PER_RUN: 200000 unless given; MAX_LEN: libFuzzer's -max_len, 4096 unless given
#   (1024 for repl_input, whose inputs cost the square of their length).
# Two campaigns of one target may run at once (one a core), sharing its corpus: give the
# second `CAMPAIGN_JOB=2` in its environment, so each keeps a log of its own
# (fuzz/artifacts/<target>.2.log); both add their run lines to the one record.
# To measure something on a quiet machine mid-campaign, `touch fuzz/artifacts/pause`: the
# campaign waits between runs until the file is gone. (Never SIGSTOP a fuzzer: libFuzzer counts
# the stopped wall time against the input it was running and reports a false timeout.)
set -euo pipefail

target="${1:?usage: campaign.sh TARGET [TOTAL_RUNS] [RUNS_PER_RUN] [MAX_LEN]}"
goal="${2:-10000000}"
chunk="${3:-200000}"
default_len=4096
[[ "$target" == repl_input ]] && default_len=1024
max_len="${4:-$default_len}"
cd "$(dirname "$0")"

target_dir="$(cd .. && cd "${CARGO_TARGET_DIR:-target}" && pwd)/fuzz"
host="$(rustc +nightly -vV | sed -n 's/^host: //p')"
binary="$target_dir/$host/release/$target"
[[ -x "$binary" ]] || { echo "error: no $binary: build the fuzz targets first" >&2; exit 2; }
[[ -d "corpus/$target" ]] || bash seed.sh

mkdir -p "artifacts/$target"
record="$PWD/artifacts/$target.campaign"
log="$PWD/artifacts/$target${CAMPAIGN_JOB:+.$CAMPAIGN_JOB}.log"
total=0
seconds=0
started=$(date +%s)
while ((total < goal)); do
    while [[ -e "$PWD/artifacts/pause" ]]; do sleep 5; done
    # Absolute paths: whatever an input does, libFuzzer finds its folders.
    if ! "$binary" "$PWD/corpus/$target" -runs="$chunk" -max_len="$max_len" -timeout=10 \
        -rss_limit_mb=2048 -close_fd_mask=3 -dict="$PWD/python.dict" \
        -artifact_prefix="$PWD/artifacts/$target/" </dev/null 2>"$log"; then
        tail -n 40 "$log"
        echo "error: $target crashed or overran a limit after $total runs (the log's last" \
            "lines above, all of it in $log); the input is in fuzz/artifacts/$target/" >&2
        exit 1
    fi
    done_line=$(grep -aE '^Done [0-9]+ runs in [0-9]+ second' "$log" | tail -n 1)
    runs=$(echo "$done_line" | awk '{print $2}')
    secs=$(echo "$done_line" | awk '{print $5}')
    total=$((total + runs))
    seconds=$((seconds + secs))
    corpus=$(find "corpus/$target" -type f | wc -l)
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$(date -u +%FT%TZ)" "$runs" "$secs" "$corpus" \
        "$total" "$seconds" >>"$record"
done
wall=$(($(date +%s) - started))
echo "$target: $total runs in $wall s of wall time ($seconds s fuzzing)," \
    "$(find "corpus/$target" -type f | wc -l) corpus files, no crash, timeout or out-of-memory" |
    tee -a "$record"
