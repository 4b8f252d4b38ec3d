#!/usr/bin/env bash
# Real-window check: builds the desktop app with the UI embedded, starts it
# under Xvfb on a fresh data folder, and writes a screenshot of the screen to
# target/screenshot-desktop.png. The data folder is first filled by
# `agenteval demo` when it can run, so that the list shows a campaign.
# Fails when the app exits early.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"
SHOT="$ROOT/target/screenshot-desktop.png"
WAIT="${AGENTEVAL_SCREENSHOT_WAIT:-8}"

if [ ! -x ui/node_modules/.bin/vite ]; then (cd ui && npm ci --no-audit --no-fund --loglevel=error); fi
if [ ! -f ui/dist/index.html ] || [ -n "$(find ui/src ui/index.html -newer ui/dist/index.html -print -quit)" ]; then
  (cd ui && npm run build --silent)
fi
cargo build --workspace --features agenteval-desktop/custom-protocol
BIN="$TARGET_DIR/debug/agenteval-desktop"

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
mkdir -p "$ROOT/target"
rm -f "$SHOT"

if "$TARGET_DIR/debug/agenteval" demo --seconds 3 --data-dir "$TMP/data" --out "$TMP/demo.md" > "$TMP/demo.log" 2>&1; then
  echo "data folder seeded with the demo campaign"
else
  echo "no demo data (agenteval demo failed; see below); the app starts empty"; tail -n 3 "$TMP/demo.log"
fi
export AGENTEVAL_DATA_DIR="$TMP/data" XDG_DATA_HOME="$TMP/xdg" XDG_CONFIG_HOME="$TMP/xdg"
# The app is started as a user starts it: with no rendering variables. On a
# machine without a GPU render node (Xvfb here) it sets up software rendering
# itself, so its own process must not have loaded a GL driver.
unset WEBKIT_DISABLE_COMPOSITING_MODE WEBKIT_DISABLE_DMABUF_RENDERER LIBGL_ALWAYS_SOFTWARE GDK_GL WEBKIT_WEB_RENDER_DEVICE_FILE
xvfb-run -a -s "-screen 0 1280x800x24 -nolisten tcp" bash -c '
  "$0" > "$1/app.log" 2>&1 & app=$!
  sleep "$2"
  if ! kill -0 "$app" 2>/dev/null; then echo "the app exited early:"; cat "$1/app.log"; exit 1; fi
  import -window root "$3"
  grep -oE "[^/]*(LLVM|_dri)[^/]*\.so[.0-9]*" "/proc/$app/maps" | sort -u > "$1/gl-libraries" || true
  kill "$app"; wait "$app" 2>/dev/null || true
' "$BIN" "$TMP" "$WAIT" "$SHOT"
if ! compgen -G "/dev/dri/renderD*" > /dev/null && [ -s "$TMP/gl-libraries" ]; then
  echo "no GPU render node here, yet the app process loaded a GL driver:"; cat "$TMP/gl-libraries"; exit 1
fi
# A blank screen or a bare page (a few hundred anti-aliased text colours)
# means the UI did not render; the campaign list has over a thousand.
colours=$(convert "$SHOT" -format %k info:)
if [ "${colours:-0}" -lt 500 ]; then
  echo "the screenshot has only $colours colours: the window did not render"; exit 1
fi
echo "screenshot: $SHOT ($colours colours)"
