#!/usr/bin/env bash
# Crash recovery under SIGKILL: `agenteval serve` (with `agenteval
# demo-target` as the target) is killed at random moments and restarted
# KILLS times (default 20) while an accelerated campaign runs and a client
# explores through the API; then nothing seen may be lost, no run counted
# twice, cut runs must be `interrupted`, the ledger must match the rows and
# SQLite's integrity check must pass. The test command runs the same test
# with 4 kills.
#
#   bash scripts/crash-test.sh [KILLS]
set -euo pipefail
cd "$(dirname "$0")/.."
KILLS="${1:-20}"
case "$KILLS" in ''|*[!0-9]*) echo "usage: $0 [KILLS]" >&2; exit 2;; esac
AGENTEVAL_CRASH_KILLS="$KILLS" cargo test --locked -p agenteval-cli --test crash -- --nocapture
