#!/usr/bin/env bash
# Every test: formatting, lints, Rust tests, UI type check and build,
# generated bindings up to date, browser tests, API fuzzing (schemathesis).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh

# A test run builds each crate once: incremental caches and full debug
# info would only cost gigabytes of disk (line numbers stay in backtraces).
export CARGO_INCREMENTAL="${CARGO_INCREMENTAL:-0}"
export CARGO_PROFILE_DEV_DEBUG="${CARGO_PROFILE_DEV_DEBUG:-line-tables-only}"

# Each step says when it starts (minutes since the start), so that a slow
# step shows in the log.
step() { printf '\n== [%dm%02ds] %s\n' $((SECONDS / 60)) $((SECONDS % 60)) "$*"; }

if [ -f ui/package.json ]; then
  step "ui: build (needed by the desktop crate)"
  (cd ui && npm run build --silent)
else
  mkdir -p ui/dist && [ -f ui/dist/index.html ] || echo '<!doctype html><title>AgentEval</title>' > ui/dist/index.html
fi

step "no source file over 700 lines, no function over 150 (tests apart)"
python3 scripts/check-sizes.py

step "no SQL outside the store layer"
bash scripts/check-store-boundary.sh

step "no name from a higher layer of the engine in a lower one"
python3 scripts/check-layers.py

step "cargo fmt --check"
cargo fmt --all -- --check

step "cargo clippy -D warnings"
cargo clippy --workspace --all-targets --locked -- -D warnings

step "cargo test"
cargo test --workspace --locked

# The same binaries (--workspace: the features of the build above, nothing
# compiled again), each test on a fresh database of a PostgreSQL server
# that the test binary starts (scripts/postgres.sh) and stops.
step "the engine and API suites again, on PostgreSQL"
server_suites=()
for f in crates/server/tests/*.rs; do server_suites+=(--test "$(basename "$f" .rs)"); done
AGENTEVAL_TEST_BACKEND=postgres cargo test --workspace --locked --test it "${server_suites[@]}"

if [ -f ui/package.json ]; then
  step "bindings up to date"
  git diff --exit-code -- ui/src/bindings.ts ui/src/api/operations.generated.ts
  step "ui: tsc --noEmit"
  (cd ui && npx tsc --noEmit)
  step "ui: both languages complete, no hard-coded text"; node --test tests/ui/
fi

step "browser tests (Chromium against agenteval serve)"
bash tests/browser/run.sh

step "API fuzzing: schemathesis on every route of the OpenAPI document"
# The browser step built the workspace: fuzz that binary instead of
# building the CLI alone (another feature set, dozens of crates again).
AGENTEVAL_BIN="${CARGO_TARGET_DIR:-target}/debug/agenteval" bash scripts/schemathesis.sh 50

step "package: the .deb built, unpacked, its demo and its desktop window run under Xvfb"
bash tests/desktop/run.sh

step "all tests passed (build output: $(du -sh target | cut -f1))"
