#!/usr/bin/env bash
# Checks `agenteval demo-target` with the official openai Python SDK:
# builds the CLI, starts the demo target on a free loopback port, runs
# openai_sdk_check.py against it and stops the server. Exits non-zero on
# any failure.
#
#   tests/sdk/run.sh               # build with cargo, pick a port
#   AGENTEVAL_BIN=path/to/agenteval PORT=8788 tests/sdk/run.sh
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
python="${PYTHON:-python3}"

if ! "$python" -c 'import openai' 2>/dev/null; then
  echo "installing the openai Python package" >&2
  "$python" -m pip install --quiet --disable-pip-version-check openai
fi

bin="${AGENTEVAL_BIN:-}"
if [[ -z "$bin" ]]; then
  # Take the executable cargo reports (honours CARGO_TARGET_DIR).
  bin="$(cd "$root" && cargo build --quiet --bin agenteval --message-format=json \
    | "$python" -c 'import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("executable"):
        print(m["executable"])' | tail -n 1)"
fi
[[ -x "$bin" ]] || { echo "agenteval binary not found: '$bin'" >&2; exit 1; }

port="${PORT:-$("$python" -c 'import socket
s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')}"
base_url="http://127.0.0.1:$port/v1"
log="$(mktemp)"

"$bin" demo-target --bind "127.0.0.1:$port" >"$log" 2>&1 &
server_pid=$!
cleanup() {
  kill "$server_pid" 2>/dev/null || true
  wait "$server_pid" 2>/dev/null || true
  rm -f "$log"
}
trap cleanup EXIT

# Wait (up to 10 s) until the server answers, or fail if it died.
for _ in $(seq 1 100); do
  if ! kill -0 "$server_pid" 2>/dev/null; then
    echo "demo-target exited early:" >&2
    cat "$log" >&2
    exit 1
  fi
  if "$python" -c 'import sys, urllib.request
urllib.request.urlopen(sys.argv[1] + "/models", timeout=1)' "$base_url" 2>/dev/null; then
    break
  fi
  sleep 0.1
done

"$python" "$here/openai_sdk_check.py" "$base_url"
