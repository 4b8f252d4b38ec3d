#!/usr/bin/env bash
# No source file over 700 lines: a file that long holds several jobs and
# is split along its seams. Counted: Rust under crates/*/src and
# src-tauri/src up to its `#[cfg(test)]` module (tests do not count),
# TypeScript under ui/src except the generated bindings and the two
# dictionaries (ui/src/i18n/en.ts, zh.ts: data, one phrase a line, checked
# key by key by tests/ui/). Tests folders and generated code are not
# counted.
set -euo pipefail
cd "$(dirname "$0")/.."
MAX=700
status=0
while IFS= read -r f; do
  case "$f" in
    *.rs) n=$(awk '/^#\[cfg\(test\)\]/{exit} {c++} END{print c+0}' "$f") ;;
    *) n=$(wc -l < "$f") ;;
  esac
  if [ "$n" -gt "$MAX" ]; then
    echo "$f: $n lines (at most $MAX outside tests): split it along its seams"
    status=1
  fi
done < <(find crates/*/src src-tauri/src ui/src \( -name '*.rs' -o -name '*.ts' -o -name '*.tsx' \) \
           -not -path '*/tests/*' -not -name 'bindings.ts' \
           -not -path 'ui/src/i18n/en.ts' -not -path 'ui/src/i18n/zh.ts' | sort)
[ "$status" -eq 0 ] && echo "no source file over $MAX lines"
exit "$status"
