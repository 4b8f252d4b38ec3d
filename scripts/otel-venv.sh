#!/usr/bin/env bash
# The official OpenTelemetry Python SDK and its OTLP/HTTP exporter, pinned,
# in a venv under the build folder (made once, then reused): the trace
# import tests drive it to produce real OTLP. Prints the venv's python.
set -euo pipefail
cd "$(dirname "$0")/.."
OTEL_VERSION=1.45.2
VENV="${CARGO_TARGET_DIR:-$PWD/target}/otel-venv"
# Tests run in parallel: one makes the venv while the others wait for it.
mkdir -p "$(dirname "$VENV")"
exec 9>"$VENV.lock"
flock 9
if ! "$VENV/bin/pip" show opentelemetry-sdk 2>/dev/null | grep -q "^Version: $OTEL_VERSION$" \
  || ! "$VENV/bin/pip" show opentelemetry-exporter-otlp-proto-http >/dev/null 2>&1; then
  python3 -m venv --clear "$VENV" >&2 # --clear: a venv moved from elsewhere is made anew
  "$VENV/bin/pip" install --quiet --disable-pip-version-check \
    "opentelemetry-sdk==$OTEL_VERSION" "opentelemetry-exporter-otlp-proto-http==$OTEL_VERSION" >&2
fi
echo "$VENV/bin/python"
