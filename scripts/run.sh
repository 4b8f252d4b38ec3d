#!/usr/bin/env bash
# The main job. With a display: the desktop app. Without one (or with
# AGENTEVAL_HEADLESS=1): the offline demo, on the embedded SQLite and the
# built-in demo agent, with no API key. Extra arguments go to `agenteval demo`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh

if [ -n "${DISPLAY:-}" ] && [ -z "${AGENTEVAL_HEADLESS:-}" ] && [ -z "${CI:-}" ]; then
  if [ -f ui/package.json ]; then (cd ui && npm run build --silent); fi
  cargo build --release --workspace --features agenteval-desktop/custom-protocol
  exec target/release/agenteval-desktop
fi

cargo build --profile demo -p agenteval-cli
exec target/demo/agenteval demo "$@"
