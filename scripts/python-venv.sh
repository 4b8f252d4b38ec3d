#!/usr/bin/env bash
# An official Python SDK that tests drive, pinned, in a venv under the build
# folder (made once, then reused). Prints the venv's python.
#   python-venv.sh openai   the OpenAI SDK: the tool-loop tests send every
#                           request the engine made through it
#                           (tests/openai/replay.py)
#   python-venv.sh otel     the OpenTelemetry SDK and its OTLP/HTTP exporter:
#                           the trace import tests produce real OTLP with it
set -euo pipefail
cd "$(dirname "$0")/.."
case "${1:-}" in
  openai) PACKAGES=("openai==3.63.0") ;;
  otel) PACKAGES=("opentelemetry-sdk==1.45.2" "opentelemetry-exporter-otlp-proto-http==1.45.2") ;;
  *) echo "usage: $0 openai|otel" >&2; exit 2 ;;
esac
VENV="${CARGO_TARGET_DIR:-$PWD/target}/$1-venv"
# Tests run in parallel: one makes the venv while the others wait for it.
mkdir -p "$(dirname "$VENV")"
exec 9>"$VENV.lock"
flock 9
installed=$("$VENV/bin/pip" freeze --disable-pip-version-check 2>/dev/null || true)
for p in "${PACKAGES[@]}"; do
  if ! grep -qixF "$p" <<<"$installed"; then
    python3 -m venv --clear "$VENV" >&2 # --clear: a venv moved from elsewhere is made anew
    "$VENV/bin/pip" install --quiet --disable-pip-version-check "${PACKAGES[@]}" >&2
    break
  fi
done
echo "$VENV/bin/python"
