#!/usr/bin/env bash
# The official OpenAI Python SDK, pinned, in a venv under the build folder
# (made once, then reused): the tool-loop tests send every request the
# engine made through it (tests/openai/replay.py). Prints the venv's python.
set -euo pipefail
cd "$(dirname "$0")/.."
OPENAI_VERSION=3.63.0
VENV="${CARGO_TARGET_DIR:-$PWD/target}/openai-venv"
# Tests run in parallel: one makes the venv while the others wait for it.
mkdir -p "$(dirname "$VENV")"
exec 9>"$VENV.lock"
flock 9
if ! "$VENV/bin/pip" show openai 2>/dev/null | grep -q "^Version: $OPENAI_VERSION$"; then
  python3 -m venv --clear "$VENV" >&2 # --clear: a venv moved from elsewhere is made anew
  "$VENV/bin/pip" install --quiet --disable-pip-version-check "openai==$OPENAI_VERSION" >&2
fi
echo "$VENV/bin/python"
