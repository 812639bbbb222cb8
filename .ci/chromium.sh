#!/usr/bin/env bash
# Installs Debian's chromium when it is missing: the headless browser the tests render
# pictures with (tests/timeline.rs). Idempotent; run as root (CI), as .ci/run does.
set -euo pipefail
if [[ ! -x /usr/bin/chromium ]]; then
    apt-get update
    apt-get install -y chromium
fi
