#!/usr/bin/env bash
# Browser end-to-end test: builds the UI and the `agenteval` binary, starts
# `agenteval serve` on a fresh data folder and a free port (its own binary,
# so that the pid held is the server's), drives the UI in headless Chromium
# (playwright-core, /usr/bin/chromium) and always stops the server.
# Arguments pick test files by name: `run.sh calibration flow` runs
# calibration.test.mjs and flow.test.mjs; none runs them all.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"

if [ ! -x ui/node_modules/.bin/vite ]; then (cd ui && npm ci --no-audit --no-fund --loglevel=error); fi
if [ ! -f ui/dist/index.html ] || [ -n "$(find ui/src ui/index.html crates/domain/locales -newer ui/dist/index.html -print -quit)" ]; then
  (cd ui && npm run build --silent)
fi
# AGENTEVAL_BIN: a binary already built (the UI is still rebuilt when it changed).
if [ -n "${AGENTEVAL_BIN:-}" ]; then
  BIN="$AGENTEVAL_BIN"
else
  cargo build --workspace --quiet
  BIN="$TARGET_DIR/debug/agenteval"
fi


source scripts/serve-lib.sh
TMP=$(mktemp -d)
remove_at_exit "$TMP"
PORT=$(free_port)
KEY=$(random_key browser-test)

# Real findings to follow: a finished demo campaign (fixed runs, virtual-user
# sessions with issues and judge findings) in the folder the server serves.
# 61 s: the demo's one-week window at the largest time scale allowed (10000).
"$BIN" demo --data-dir "$TMP/data" --seconds 20 --out "$TMP/demo.md" > "$TMP/demo.log" 2>&1 || { cat "$TMP/demo.log"; exit 1; }

# A pack of the user's own in the data folder, listed apart from the shipped ones.
mkdir -p "$TMP/data/scenarios/my_pack"
cat > "$TMP/data/scenarios/my_pack/greeting.yaml" <<'YAML'
scenarios:
  - id: mine.greeting
    title: Greets the customer by name
    tags: [en]
    turns:
      - user: Hello, I am Ada.
        checks:
          - type: contains
            value: Ada
YAML

serve_in_background "$TMP/server.log" "$BIN" serve --data-dir "$TMP/data" --bind "127.0.0.1:$PORT" --api-key "$KEY"
wait_for_health "http://127.0.0.1:$PORT" "$TMP/server.log"

TESTS=(tests/browser/)
if [ "$#" -gt 0 ]; then
  TESTS=()
  for name in "$@"; do
    f="tests/browser/$name.test.mjs"
    [ -f "$f" ] || { echo "no browser test $f"; exit 2; }
    TESTS+=("$f")
  done
fi

status=0
AGENTEVAL_URL="http://127.0.0.1:$PORT" AGENTEVAL_KEY="$KEY" AGENTEVAL_TMP="$TMP" AGENTEVAL_BIN="$BIN" \
  node --test --test-concurrency=1 "${TESTS[@]}" || status=$?
if [ "$status" -ne 0 ]; then
  echo "--- server log (last 60 lines)"; tail -n 60 "$TMP/server.log"
fi
exit "$status"
