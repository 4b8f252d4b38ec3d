#!/usr/bin/env bash
# Every benchmark suite on a release build, one after the other; the
# figures reported in BENCHMARKS.md come from this script on a quiet
# machine. Pass suite names to run only those, e.g.
#   bash scripts/bench.sh throughput ledger
# Suites: throughput concurrency report ledger run steps office-query startup.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh >/dev/null
suites=("$@")
[ ${#suites[@]} -gt 0 ] || suites=(throughput concurrency report ledger run steps office-query startup)
cargo build --release --locked -p agenteval-cli
BIN="${CARGO_TARGET_DIR:-target}/release/agenteval"
for suite in "${suites[@]}"; do
  echo
  echo "== bench $suite"
  case "$suite" in
    startup) bash scripts/bench-startup.sh ;;
    *) "$BIN" bench "$suite" ;;
  esac
done
