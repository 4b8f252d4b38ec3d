#!/usr/bin/env bash
# No SQL outside the store layer: every read and write of the database goes
# through crates/store/src/, one function per query. This fails on
# sqlx queries, rusqlite and SQL text anywhere else in the Rust sources,
# tests and benches included. The store crate is excluded whole
# (crates/store/): its own tests hold SQL too, since they check the schema
# itself (the PostgreSQL schema against the SQLite one, tests/schema_parity/)
# below the functions.
set -euo pipefail
cd "$(dirname "$0")/.."
PATTERN='sqlx::query|sqlx::QueryBuilder|query_as[(:<]|query_scalar[(:<]|rusqlite|"\s*(SELECT|INSERT INTO|INSERT OR|UPDATE [a-z_]+ SET|DELETE FROM|CREATE (TABLE|INDEX|VIEW|TRIGGER)|PRAGMA|ANALYZE|BEGIN|WITH [a-z_]+ AS)\b'
status=0
while IFS= read -r f; do
  echo "$f: SQL or a database handle outside the store layer:"
  grep -nP "$PATTERN" "$f" | head -5 | sed 's/^/    /'
  echo "    move it into a function of crates/store/src/ named after what it does"
  status=1
done < <(grep -rlP "$PATTERN" --include='*.rs' crates src-tauri/src | grep -v '^crates/store/' | sort)
[ "$status" -eq 0 ] && echo "no SQL outside the store layer"
exit "$status"
