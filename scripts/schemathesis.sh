#!/usr/bin/env bash
# Property-based API testing: schemathesis (pinned, in a venv under
# target/) generates requests for every route of GET /api/openapi.json,
# valid and invalid, against a fresh `agenteval serve`, with every check it
# has (--checks all) and in every phase, the stateful one included (it
# follows the document's links from what a create returns to the routes
# that take it). It fails on any 5xx, any status or body the document does
# not declare, a valid request refused or an invalid one accepted, a
# deleted resource still there, a route that ignores its key.
#
#   bash scripts/schemathesis.sh [MAX_EXAMPLES]   # per operation, default 25
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"
MAX_EXAMPLES="${1:-25}"
SCHEMATHESIS_VERSION=4.32.5
VENV="$TARGET_DIR/schemathesis-venv"

if [ ! -x "$VENV/bin/st" ] || ! "$VENV/bin/pip" show schemathesis 2>/dev/null | grep -q "^Version: $SCHEMATHESIS_VERSION$"; then
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install --quiet --disable-pip-version-check "schemathesis==$SCHEMATHESIS_VERSION"
fi
# AGENTEVAL_BIN: an already built binary (skips the build).
BIN="${AGENTEVAL_BIN:-}"
if [ -z "$BIN" ]; then
  cargo build --quiet --locked -p agenteval-cli
  BIN="$TARGET_DIR/debug/agenteval"
fi

source scripts/serve-lib.sh
TMP=$(mktemp -d)
remove_at_exit "$TMP"
PORT=$(free_port)
KEY=$(random_key schemathesis)

# Offline (--offline): the targets schemathesis invents are refused unless
# they are on this machine, so nothing here reaches the network. The demo
# first: a finished campaign with runs, judged sessions and judge queues to
# label, on the demo target.
"$BIN" demo --offline --seconds 3 --data-dir "$TMP/data" --out "$TMP/demo.md" > "$TMP/demo.log" 2>&1 \
  || { echo "the demo failed:"; cat "$TMP/demo.log"; exit 1; }
serve_in_background "$TMP/server.log" "$BIN" serve --offline --data-dir "$TMP/data" \
  --bind "127.0.0.1:$PORT" --api-key "$KEY" --no-patrol --ui-dir "$TMP/no-ui"
wait_for_health "http://127.0.0.1:$PORT" "$TMP/server.log"

# Some real data, so that generated ids sometimes name something and the
# routes get past their 404s: besides the demo's, a target and a running
# campaign with scenarios, seeds, room for many sessions and one session
# (the stateful phase also starts from the lists).
api() { curl -fsS -H "X-API-Key: $KEY" -H 'content-type: application/json' "$@"; }
TARGET_ID=$(api -d '{"name":"demo","channel":{"kind":"builtin","agent":"demo"}}' "http://127.0.0.1:$PORT/api/targets" | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')
SCENARIO_ID=$(api "http://127.0.0.1:$PORT/api/scenarios" | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["id"])')
SEEDS='{"personas":[{"id":"p","name":"Pat"}],"goals":[{"id":"g","title":"Change an address"}]}'
CAMPAIGN_ID=$(api -d "{\"name\":\"schemathesis\",\"target_id\":\"$TARGET_ID\",\"scenario_ids\":[\"$SCENARIO_ID\"],\"duration_hours\":24,\"seed_set\":$SEEDS,\"budget\":{\"max_sessions\":1000,\"max_turns\":100,\"min_interval_minutes\":0}}" \
  "http://127.0.0.1:$PORT/api/campaigns" | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')
api -d "{\"campaign_id\":\"$CAMPAIGN_ID\",\"persona\":{\"name\":\"Pat\"},\"goal\":{\"title\":\"Change an address\"},\"trigger\":\"manual\"}" \
  "http://127.0.0.1:$PORT/api/exploration/sessions" > /dev/null
# A production conversation imported from a trace of the GenAI
# conventions, so that the trace routes have one to answer about.
MESSAGES='[{\"role\":\"user\",\"parts\":[{\"type\":\"text\",\"content\":\"Where is order A1024?\"}]}]'
TRACE="{\"resourceSpans\":[{\"scopeSpans\":[{\"spans\":[{\"traceId\":\"5b8efff798038103d269b633813fc60c\",\"spanId\":\"eee19b7ec3c1b174\",\"name\":\"chat\",\"startTimeUnixNano\":\"1733000000000000000\",\"attributes\":[{\"key\":\"gen_ai.operation.name\",\"value\":{\"stringValue\":\"chat\"}},{\"key\":\"gen_ai.input.messages\",\"value\":{\"stringValue\":\"$MESSAGES\"}}]}]}]}]}"
api --data-binary "$TRACE" "http://127.0.0.1:$PORT/api/traces/import?target_id=$TARGET_ID" \
  | python3 -c 'import json,sys; s=json.load(sys.stdin); assert s["conversations"]==1, s'

# One schemathesis run: its name, then the options of `st run`. Its
# verdict comes from its report: any failed check fails it. An error inside
# schemathesis or hypothesis themselves (a Python traceback in their own
# code, no response involved) is shown but is not the API's fault; any
# other error (e.g. the connection dropped) fails it.
run_st() {
  local name="$1"; shift
  local report="$TMP/junit-$name.xml" status=0 verdict=0
  # Run from the temp folder: schemathesis keeps a cache in its working
  # folder. GET /api/events is a stream that never ends (Server-Sent
  # Events); the API tests read it with a real client instead.
  (cd "$TMP" && "$VENV/bin/st" --config-file "$ROOT/scripts/schemathesis.toml" run "http://127.0.0.1:$PORT/api/openapi.json" \
    --header "X-API-Key: $KEY" \
    --exclude-path /api/events \
    --max-examples "$MAX_EXAMPLES" \
    --generation-database none \
    --seed 20261130 \
    --workers 2 \
    --request-timeout 30 \
    --report junit --report-junit-path "$report" \
    --no-color "$@") || status=$?
  mkdir -p "$TARGET_DIR/schemathesis-report" && cp "$report" "$TARGET_DIR/schemathesis-report/junit-$name.xml" 2>/dev/null || true
  python3 - "$report" "$name" <<'PY' || verdict=$?
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
tests = failures = api_errors = tool_errors = 0
for case in root.iter("testcase"):
    tests += 1
    for child in case:
        text = (child.attrib.get("message") or "") + (child.text or "")
        if child.tag == "failure":
            failures += 1
            print(f"FAILED {case.attrib.get('name')}: {text[:2000]}")
        elif child.tag == "error":
            internal = "Runtime Error" in text and ("site-packages/hypothesis" in text or "site-packages/schemathesis" in text)
            if internal:
                tool_errors += 1
                print(f"tool error (not counted) {case.attrib.get('name')}: {text.splitlines()[2] if len(text.splitlines()) > 2 else text[:200]}")
            else:
                api_errors += 1
                print(f"ERROR {case.attrib.get('name')}: {text[:2000]}")
print(f"schemathesis ({sys.argv[2]}): {tests} operations, {failures} failed checks, {api_errors} errors, {tool_errors} tool-internal errors")
sys.exit(1 if failures or api_errors or tests == 0 else 0)
PY
  if [ "$verdict" -ne 0 ]; then
    cp "$TMP/server.log" "$TARGET_DIR/schemathesis-report/server.log"
    echo "--- server log: the first panic, then the last 40 lines (all of it in $TARGET_DIR/schemathesis-report/server.log)"
    grep -m1 -A12 "panicked at" "$TMP/server.log" || true
    echo "..."; tail -n 40 "$TMP/server.log"
    exit 1
  fi
  echo "schemathesis ($name) passed (exit status of st: $status)"
}

# Every check (schemathesis.toml enables them all), every phase. The
# stateful phase goes first, on the fixture above as it is (the other
# phases finalize campaigns and delete targets); then examples, coverage
# and fuzzing. One exception, in schemathesis.toml: a campaign's window
# must end after it starts, which JSON Schema cannot say, so a request
# valid by the document may still be refused with 400 there, and
# positive_data_acceptance is not asked of create_campaign (its every
# other check is).
run_st stateful --phases stateful --continue-on-failure --max-examples 300
run_st generated --phases examples,coverage,fuzzing --continue-on-failure
