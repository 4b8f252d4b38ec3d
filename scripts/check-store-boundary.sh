#!/usr/bin/env bash
# No SQL outside the store layer: every read and write of the database goes
# through crates/engine/src/store/, one function per query. This fails on
# sqlx queries, rusqlite and SQL text anywhere else in the Rust sources,
# tests and benches included. The engine's error may name the database's
# error type (`rusqlite::Error`), to convert it: that is no handle.
#
# scripts/store-boundary.todo lists the files still to move (one path a
# line): the list may only shrink, and a listed file with nothing left to
# move fails too, so that the list never goes stale.
set -euo pipefail
cd "$(dirname "$0")/.."
PATTERN='sqlx::query|sqlx::QueryBuilder|query_as[(:<]|query_scalar[(:<]|rusqlite(?!::Error\b)|"\s*(SELECT|INSERT INTO|INSERT OR|UPDATE [a-z_]+ SET|DELETE FROM|CREATE (TABLE|INDEX|VIEW|TRIGGER)|PRAGMA|ANALYZE|BEGIN|WITH [a-z_]+ AS)\b'
todo=scripts/store-boundary.todo
status=0
mapfile -t hits < <(grep -rlP "$PATTERN" --include='*.rs' crates src-tauri/src \
                      | grep -v '^crates/engine/src/store/' | sort)
for f in "${hits[@]}"; do
  if ! grep -qxF "$f" "$todo" 2>/dev/null; then
    echo "$f: SQL or a database handle outside the store layer:"
    grep -nP "$PATTERN" "$f" | head -5 | sed 's/^/    /'
    echo "    move it into a function of crates/engine/src/store/ named after what it does"
    status=1
  fi
done
if [ -f "$todo" ]; then
  while IFS= read -r f; do
    [ -z "$f" ] && continue
    if ! printf '%s\n' "${hits[@]}" | grep -qxF "$f"; then
      echo "$todo: $f has no SQL left: remove it from the list"
      status=1
    fi
  done < "$todo"
fi
[ "$status" -eq 0 ] && echo "no SQL outside the store layer ($(grep -c . "$todo" 2>/dev/null || echo 0) files still to move)"
exit "$status"
