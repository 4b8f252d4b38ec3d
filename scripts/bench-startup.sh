#!/usr/bin/env bash
# Desktop start-up benchmark: the release desktop binary under Xvfb on a
# data folder holding the demo campaign. Prints the time from launch to the
# first screenshot showing the rendered campaign list (screenshots are taken
# back to back, so the figure is accurate to one screenshot, about 0.1 s)
# and the resident memory after 10 s idle: the app process alone and with
# its WebKit helper processes.
#
#   bash scripts/bench-startup.sh [runs]     (default 3; the best and the median are printed)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
RUNS="${1:-3}"
TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"

if [ ! -x ui/node_modules/.bin/vite ]; then (cd ui && npm ci --no-audit --no-fund --loglevel=error); fi
(cd ui && npm run build --silent)
cargo build --release -p agenteval-cli -p agenteval-desktop --features agenteval-desktop/custom-protocol
BIN="$TARGET_DIR/release/agenteval-desktop"

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
"$TARGET_DIR/release/agenteval" demo --seconds 3 --data-dir "$TMP/data" --out "$TMP/demo.md" > "$TMP/demo.log" 2>&1
export AGENTEVAL_DATA_DIR="$TMP/data" XDG_DATA_HOME="$TMP/xdg" XDG_CONFIG_HOME="$TMP/xdg"
# Started as a user starts it: the app sets up software rendering itself
# when the machine has no GPU render node (see src-tauri/src/rendering.rs).
unset WEBKIT_DISABLE_COMPOSITING_MODE WEBKIT_DISABLE_DMABUF_RENDERER LIBGL_ALWAYS_SOFTWARE GDK_GL WEBKIT_WEB_RENDER_DEVICE_FILE

# One run: prints "<first paint ms> <app rss MB> <total rss MB> <app anonymous rss MB>".
one_run() {
  xvfb-run -a -s "-screen 0 1280x800x24 -nolisten tcp" bash -c '
    bin=$0; tmp=$1
    start=$(date +%s%N)
    "$bin" > "$tmp/app.log" 2>&1 & app=$!
    paint=""
    for _ in $(seq 1 300); do
      if ! kill -0 "$app" 2>/dev/null; then echo "the app exited early" >&2; cat "$tmp/app.log" >&2; exit 1; fi
      import -window root "$tmp/shot.png" 2>/dev/null || continue
      now=$(date +%s%N)
      colours=$(convert "$tmp/shot.png" -format %k info: 2>/dev/null || echo 0)
      # The rendered campaign list has well over a thousand colours; a blank
      # or half-built window a few hundred at most.
      if [ "${colours:-0}" -ge 500 ]; then paint=$(( (now - start) / 1000000 )); break; fi
    done
    [ -n "$paint" ] || { echo "the campaign list never rendered" >&2; exit 1; }
    sleep 10
    rss() { awk "/^VmRSS/ {print \$2}" "/proc/$1/status" 2>/dev/null || echo 0; }
    anon_kb=$(awk "/^RssAnon/ {print \$2}" "/proc/$app/status" 2>/dev/null || echo 0)
    descendants() { for c in $(pgrep -P "$1" 2>/dev/null); do echo "$c"; descendants "$c"; done; }
    app_kb=$(rss "$app")
    total_kb=$app_kb
    for child in $(descendants "$app"); do
      total_kb=$(( total_kb + $(rss "$child") ))
    done
    kill "$app"; wait "$app" 2>/dev/null || true
    echo "$paint $(( app_kb / 1024 )) $(( total_kb / 1024 )) $(( anon_kb / 1024 ))"
  ' "$BIN" "$TMP"
}

results=()
for i in $(seq 1 "$RUNS"); do
  r=$(one_run)
  echo "run $i: first paint $(echo "$r" | cut -d" " -f1) ms, idle RSS $(echo "$r" | cut -d" " -f2) MB (app; $(echo "$r" | cut -d" " -f4) MB of it anonymous memory), $(echo "$r" | cut -d" " -f3) MB (with WebKit processes)"
  results+=("$r")
done

sorted_paint=$(printf '%s\n' "${results[@]}" | cut -d" " -f1 | sort -n)
best=$(echo "$sorted_paint" | head -1)
median=$(echo "$sorted_paint" | sed -n "$(( (RUNS + 1) / 2 ))p")
app_rss=$(printf '%s\n' "${results[@]}" | cut -d" " -f2 | sort -n | tail -1)
total_rss=$(printf '%s\n' "${results[@]}" | cut -d" " -f3 | sort -n | tail -1)
anon_rss=$(printf '%s\n' "${results[@]}" | cut -d" " -f4 | sort -n | tail -1)
echo
echo "startup ($RUNS runs)"
echo "  first paint of the campaign list, best      $best ms"
echo "  first paint of the campaign list, median    $median ms"
echo "  idle RSS after 10 s, app process (max)      $app_rss MB"
echo "    of which anonymous memory (max)           $anon_rss MB"
echo "  idle RSS after 10 s, with WebKit (max)      $total_rss MB"
echo
echo "RESULT startup_first_paint_best_ms $best ms"
echo "RESULT startup_first_paint_median_ms $median ms"
echo "RESULT startup_idle_rss_app_mb $app_rss MB"
echo "RESULT startup_idle_rss_app_anon_mb $anon_rss MB"
echo "RESULT startup_idle_rss_total_mb $total_rss MB"
