#!/usr/bin/env bash
# Fuzzes the scenario loader, the experience-record normaliser and the
# Markdown renderer with cargo-fuzz (libFuzzer), SECONDS each (default 60).
# cargo-fuzz needs nightly compiler flags; on a stable toolchain
# RUSTC_BOOTSTRAP=1 unlocks them. A crash leaves its input under
# fuzz/artifacts/<target>/ and fails the script.
#
#   bash scripts/fuzz.sh [SECONDS] [TARGET...]
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_EACH="${1:-60}"
shift || true
TARGETS=("$@")
[ ${#TARGETS[@]} -gt 0 ] || TARGETS=(scenario_loader experience_record markdown_export)

if ! cargo fuzz --version > /dev/null 2>&1; then
  cargo install --locked cargo-fuzz
fi
export RUSTC_BOOTSTRAP=1

# Seed corpora from the repository's own files, so that fuzzing starts
# from valid inputs.
mkdir -p fuzz/corpus/scenario_loader fuzz/corpus/experience_record fuzz/corpus/markdown_export
find scenarios -name '*.yaml' -exec cp {} fuzz/corpus/scenario_loader/ \;
printf '%s' '{"goal_achieved": true, "blockers": ["slow", "slow", " "], "misled": [], "emotion": "Happy", "notes": "ok"}' \
  > fuzz/corpus/experience_record/seed.json
printf '%s' 'Issue | with pipe\u0001## heading\n```\u0001plain' > fuzz/corpus/markdown_export/seed.txt

for t in "${TARGETS[@]}"; do
  echo "== fuzz $t for ${SECONDS_EACH}s"
  cargo fuzz run --fuzz-dir fuzz "$t" "fuzz/corpus/$t" -- \
    -max_total_time="$SECONDS_EACH" -max_len=65536 -rss_limit_mb=3072 -print_final_stats=1
done
echo "== fuzzing found no crash"
