#!/usr/bin/env bash
# The OTLP/HTTP receiver under load and bad input: `agenteval serve` (release
# build) on a fresh data folder, fed by the official OpenTelemetry Python
# SDK's exporter at SPANS_PER_SECOND GenAI spans a second for SECONDS, with
# 1 % as many malformed spans sent beside them and two bodies over the
# 32 MiB limit, while other API calls are timed and the server's memory is
# read (scripts/otlp_load.py says what is sent and checked).
#
#   bash scripts/bench-otlp.sh [seconds] [spans_per_second]     (default 60 10000)
#
# Prints the figures and RESULT lines; exits 1 when a valid conversation
# was lost (or a malformed one kept), a malformed body got another answer
# than expected, a body over the limit was not 413 in the error shape,
# other API calls' p99 was over 200 ms, the SDK dropped spans (the rate was
# not sustained) or the server logged an error. Environment: AGENTEVAL_BIN
# (a release binary already built; otherwise one is built when missing or
# older than the sources), OTLP_PROCESSES (SDK processes, 2), OTLP_P99_MS
# (200).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
rate="${2:-10000}"

if [ -n "${AGENTEVAL_BIN:-}" ]; then
  BIN="$AGENTEVAL_BIN"
else
  BIN="$(pwd)/${CARGO_TARGET_DIR:-target}/release/agenteval"
  newer=""
  # Stale: a source, manifest, migration or message newer than the binary.
  [ -x "$BIN" ] && newer="$(find crates Cargo.toml Cargo.lock -path '*/tests' -prune -o -newer "$BIN" -type f \( -name '*.rs' -o -name '*.toml' -o -name '*.lock' -o -name '*.sql' -o -name '*.ftl' \) -print -quit)"
  if [ ! -x "$BIN" ] || [ -n "$newer" ]; then
    cargo build --release --locked -p agenteval-cli
  fi
fi
PYTHON="$(bash scripts/python-venv.sh otel)"

source scripts/serve-lib.sh
dir="$(mktemp -d /tmp/agenteval-bench-otlp.XXXXXX)"
remove_at_exit "$dir"
port=$(free_port)
key=$(random_key bench-otlp)
base="http://127.0.0.1:$port"

serve_in_background "$dir/serve.log" env RUST_LOG=warn "$BIN" serve --no-patrol --api-key "$key" \
  --bind "127.0.0.1:$port" --data-dir "$dir/data" --ui-dir "$dir/no-ui"
wait_for_health "$base" "$dir/serve.log"

echo "load average at the start: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) cores"
status=0
"$PYTHON" scripts/otlp_load.py --base "$base" --key "$key" --pid "$SERVER" \
  --seconds "$seconds" --rate "$rate" --processes "${OTLP_PROCESSES:-2}" \
  --p99-ms "${OTLP_P99_MS:-200}" || status=$?
if grep -q "panicked\|ERROR" "$dir/serve.log"; then
  echo "the server's log holds errors:" >&2
  grep "panicked\|ERROR" "$dir/serve.log" | head -20 >&2
  status=1
fi
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
exit "$status"
