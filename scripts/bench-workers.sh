#!/usr/bin/env bash
# Workers that add up: one, two and three workers on one PostgreSQL test
# server (scripts/postgres.sh) against a demo target that answers each
# request after LATENCY_MS (100 by default), on a release build.
#
#   bash scripts/bench-workers.sh [repeats]
#
# For each number of workers it runs `bench throughput --workers N` (runs
# per second, runs in error) and `bench ledger --workers N` (budget
# overruns), each on a database of its own, and ends with one RESULT line
# per figure and the ratios to one worker. Environment: LATENCY_MS,
# CONCURRENCY (requests in flight per worker, 16), ROUNDS (times each
# shipped scenario runs, 60: 2,100 runs), AGENTEVAL_BIN (a release binary
# already built; otherwise one is built).
set -euo pipefail
cd "$(dirname "$0")/.."
repeats="${1:-1}"
latency="${LATENCY_MS:-100}"
concurrency="${CONCURRENCY:-16}"
rounds="${ROUNDS:-60}"

# AGENTEVAL_BIN: a release binary already built.
if [ -n "${AGENTEVAL_BIN:-}" ]; then
  BIN="$AGENTEVAL_BIN"
else
  bash scripts/setup.sh >/dev/null
  cargo build --release --locked -p agenteval-cli
  BIN="$(pwd)/${CARGO_TARGET_DIR:-target}/release/agenteval"
fi

# As root, the cluster belongs to the `postgres` user, who must reach it.
server="$(mktemp -d /tmp/agenteval-bench-workers.XXXXXX)"
chmod 755 "$server"
url="$(bash scripts/postgres.sh start "$server" --stop-after $$)"
trap 'bash scripts/postgres.sh stop "$server" --remove >/dev/null 2>&1 || true' EXIT

# A new database on the server, by name; prints its URL.
database() {
  psql "$url" -qc "CREATE DATABASE $1" >/dev/null
  echo "${url%/*}/$1"
}

# The figure NAME of a suite's output.
figure() { awk -v name="$2" '$1 == "RESULT" && $2 == name { print $3 }' <<<"$1"; }

declare -A runs overruns errors
for r in $(seq "$repeats"); do
  for n in 1 2 3; do
    echo
    echo "== $n worker(s), repeat $r"
    out="$("$BIN" --database-url "$(database "runs_${n}_$r")" bench throughput --workers "$n" \
      --target-latency-ms "$latency" --concurrency "$concurrency" \
      --rounds "$rounds" --ceiling-seconds 1)"
    echo "$out"
    runs[$n]="${runs[$n]:-} $(figure "$out" throughput_runs_per_s)"
    errors[$n]="${errors[$n]:-} $(figure "$out" throughput_errors)"
    out="$("$BIN" --database-url "$(database "ledger_${n}_$r")" bench ledger --workers "$n")"
    echo "$out"
    overruns[$n]="${overruns[$n]:-} $(figure "$out" ledger_overruns)"
  done
done

echo
echo "== workers on PostgreSQL, target latency ${latency} ms, ${concurrency} in flight per worker"
mean() { tr ' ' '\n' | awk 'NF { s += $1; n++ } END { printf "%.1f", s / n }'; }
one="$(mean <<<"${runs[1]}")"
for n in 1 2 3; do
  m="$(mean <<<"${runs[$n]}")"
  ratio="$(awk -v a="$m" -v b="$one" 'BEGIN { printf "%.2f", a / b }')"
  echo "  $n worker(s): runs/s${runs[$n]} (mean $m, ${ratio}x one worker); runs in error${errors[$n]}; budget overruns${overruns[$n]}"
  echo "RESULT workers_${n}_runs_per_s $m runs/s"
  echo "RESULT workers_${n}_ratio $ratio x"
  echo "RESULT workers_${n}_overruns $(tr ' ' '\n' | awk 'NF { s += $1 } END { print s + 0 }' <<<"${overruns[$n]}") overruns"
done
