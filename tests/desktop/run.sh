#!/usr/bin/env bash
# The package as a user gets it, and the real window: builds the .deb (a
# debug build, the one the other tests use), unpacks it into a temporary
# folder (dpkg-deb -x, no system install), checks what it holds, and from an
# unrelated folder runs the unpacked `agenteval demo` to a Markdown report
# and starts the unpacked desktop app under Xvfb on that demo's data folder.
# Passes when the app renders the campaign list (screenshot in
# target/screenshot-desktop.png) with the shipped scenario packs loaded.
# Then the same window is driven as a client of a team server: the unpacked
# `agenteval serve` on a folder of its own, the app through tauri-driver and
# WebKitWebDriver (tests/desktop/team-server.test.mjs).
# The window is photographed every two seconds until it has rendered, for
# at most AGENTEVAL_SCREENSHOT_WAIT seconds (default 90): a loaded machine
# takes longer to start WebKit's processes, a broken UI never renders.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
SHOT="$ROOT/target/screenshot-desktop.png"
WAIT="${AGENTEVAL_SCREENSHOT_WAIT:-90}"
# A blank screen or a bare page (a few hundred anti-aliased text colours)
# means the UI did not render; the campaign list has over a thousand.
MIN_COLOURS=500

bash scripts/package.sh --debug
deb=$(ls dist/*.deb)

source scripts/serve-lib.sh
TMP=$(mktemp -d)
remove_at_exit "$TMP"
mkdir -p "$ROOT/target"
rm -f "$SHOT"

dpkg-deb -x "$deb" "$TMP/pkg"
fail() { echo "package check failed: $*"; dpkg-deb -c "$deb"; exit 1; }
APP="$TMP/pkg/usr/bin/agenteval-desktop"
CLI="$TMP/pkg/usr/bin/agenteval"
[ -x "$APP" ] || fail "no desktop app at /usr/bin/agenteval-desktop"
[ -x "$CLI" ] || fail "no agenteval command at /usr/bin/agenteval"
entry=$(ls "$TMP"/pkg/usr/share/applications/*.desktop 2>/dev/null | head -1)
[ -n "$entry" ] || fail "no desktop entry"
grep -q '^Exec=agenteval-desktop' "$entry" || fail "the desktop entry does not start the app: $(cat "$entry")"
icon=$(sed -n 's/^Icon=//p' "$entry")
compgen -G "$TMP/pkg/usr/share/icons/hicolor/*/apps/$icon.png" > /dev/null || fail "no icon named $icon"
dpkg-deb -f "$deb" Depends | grep -q libwebkit2gtk-4.1 || fail "the package does not depend on WebKitGTK"
echo "package: $(basename "$deb") holds the app, agenteval, $(basename "$entry") and the $icon icons"

# From a folder that has nothing of the repository: the packs must come
# from the binaries themselves.
mkdir -p "$TMP/elsewhere"
cd "$TMP/elsewhere"
"$CLI" --version
"$CLI" demo --seconds 3 --data-dir "$TMP/data" --out "$TMP/demo.md" > "$TMP/demo.log" 2>&1 \
  || { echo "the unpacked agenteval demo failed:"; cat "$TMP/demo.log"; exit 1; }
grep -q "pass rate" "$TMP/demo.md" || { echo "the demo report has no pass rate:"; head -30 "$TMP/demo.md"; exit 1; }
echo "unpacked agenteval demo wrote $(wc -l < "$TMP/demo.md") lines of Markdown"

export AGENTEVAL_DATA_DIR="$TMP/data" XDG_DATA_HOME="$TMP/xdg" XDG_CONFIG_HOME="$TMP/xdg"
# The app is started as a user starts it: with no rendering variables. On a
# machine without a GPU render node (Xvfb here) it sets up software rendering
# itself, so its own process must not have loaded a GL driver.
unset WEBKIT_DISABLE_COMPOSITING_MODE WEBKIT_DISABLE_DMABUF_RENDERER LIBGL_ALWAYS_SOFTWARE GDK_GL WEBKIT_WEB_RENDER_DEVICE_FILE
xvfb-run -a -s "-screen 0 1280x800x24 -nolisten tcp" bash -c '
  "$0" > "$1/app.log" 2>&1 & app=$!
  start=$SECONDS
  while :; do
    sleep 2
    if ! kill -0 "$app" 2>/dev/null; then echo "the app exited early:"; cat "$1/app.log"; exit 1; fi
    import -window root "$3"
    colours=$(convert "$3" -format %k info:)
    [ "${colours:-0}" -ge "$4" ] && break
    [ $((SECONDS - start)) -ge "$2" ] && break
  done
  echo "the window had ${colours:-0} colours after $((SECONDS - start)) s"
  grep -oE "[^/]*(LLVM|_dri)[^/]*\.so[.0-9]*" "/proc/$app/maps" | sort -u > "$1/gl-libraries" || true
  kill "$app"; wait "$app" 2>/dev/null || true
' "$APP" "$TMP" "$WAIT" "$SHOT" "$MIN_COLOURS"
cd "$ROOT"
if ! compgen -G "/dev/dri/renderD*" > /dev/null && [ -s "$TMP/gl-libraries" ]; then
  echo "no GPU render node here, yet the app process loaded a GL driver:"; cat "$TMP/gl-libraries"; exit 1
fi
# The app's log names what it loaded: the shipped packs, from the binary.
log=$(find "$TMP/xdg" -name 'agenteval-desktop.log' | head -1)
loaded=$(grep -h "scenarios loaded" "$log" 2>/dev/null | tail -1)
shipped=$(sed -nE 's/.*shipped=([0-9]+).*/\1/p' <<< "$loaded")
if [ "${shipped:-0}" -lt 1 ]; then echo "the app loaded no shipped scenario packs: ${loaded:-no log line}"; cat "$TMP/app.log"; exit 1; fi
colours=$(convert "$SHOT" -format %k info:)
if [ "${colours:-0}" -lt "$MIN_COLOURS" ]; then
  echo "the screenshot has only $colours colours: the window did not render; the app said:"
  tail -40 "$TMP/app.log"; exit 1
fi
echo "unpacked app: $shipped shipped scenarios loaded; screenshot $SHOT ($colours colours)"

# The app as a team server's client, in its real window. The server runs the
# unpacked `agenteval` on its own folder; keys stay out of any keychain.
"$CLI" demo --seconds 3 --data-dir "$TMP/server" --out "$TMP/server-demo.md" > "$TMP/server-demo.log" 2>&1 \
  || { echo "the team server's demo failed:"; cat "$TMP/server-demo.log"; exit 1; }
PORT=$(free_port)
SERVER_KEY=$(random_key desktop-test)
serve_in_background "$TMP/server.log" "$CLI" serve --data-dir "$TMP/server" --bind "127.0.0.1:$PORT" \
  --api-key "$SERVER_KEY"
wait_for_health "http://127.0.0.1:$PORT" "$TMP/server.log"
# tauri-driver and a WebDriver client, pinned, kept apart from the UI's
# packages: its npm package lists platform builds the registry does not have,
# which a lock file would then require.
DRIVER_DIR="${CARGO_TARGET_DIR:-$ROOT/target}/tauri-driver"
if [ ! -x "$DRIVER_DIR/node_modules/.bin/tauri-driver" ] || [ ! -d "$DRIVER_DIR/node_modules/selenium-webdriver" ]; then
  mkdir -p "$DRIVER_DIR"
  npm install --prefix "$DRIVER_DIR" --no-audit --no-fund --loglevel=error \
    @crabnebula/tauri-driver@2.0.9 selenium-webdriver@4.46.0
fi
DRIVER_PORT=$(free_port)
NATIVE_PORT=$(free_port)
export AGENTEVAL_KEYCHAIN=off AGENTEVAL_APP="$APP" AGENTEVAL_SERVER_URL="http://127.0.0.1:$PORT" \
  AGENTEVAL_SERVER_KEY="$SERVER_KEY" AGENTEVAL_DRIVER_URL="http://127.0.0.1:$DRIVER_PORT/" \
  AGENTEVAL_DRIVER_MODULES="$DRIVER_DIR"
status=0
xvfb-run -a -s "-screen 0 1280x800x24 -nolisten tcp" bash -c '
  "$0" --port "$1" --native-port "$2" > "$3/driver.log" 2>&1 & driver=$!
  for _ in $(seq 1 50); do curl -fsS "http://127.0.0.1:$1/status" > /dev/null 2>&1 && break; sleep 0.2; done
  node --test tests/desktop/team-server.test.mjs; s=$?
  kill "$driver" 2>/dev/null; wait "$driver" 2>/dev/null
  exit $s
' "$DRIVER_DIR/node_modules/.bin/tauri-driver" "$DRIVER_PORT" "$NATIVE_PORT" "$TMP" || status=$?
if [ "$status" -ne 0 ]; then
  echo "--- tauri-driver"; tail -20 "$TMP/driver.log"
  echo "--- team server"; tail -20 "$TMP/server.log"
  exit "$status"
fi
