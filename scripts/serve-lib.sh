# Shared by the scripts that run `agenteval serve` for a while on a free
# port of this machine: source it, then
#
#   PORT=$(free_port)
#   serve_in_background "$TMP/server.log" "$BIN" serve --bind "127.0.0.1:$PORT" ...
#   wait_for_health "http://127.0.0.1:$PORT" "$TMP/server.log"
#
# The server is stopped, and the folders given to `remove_at_exit` removed,
# however the script ends.

# A free TCP port on 127.0.0.1.
free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

# A random key for a server of this run, prefixed with $1.
random_key() {
  echo "$1-$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')"
}

SERVER=""
_REMOVE_AT_EXIT=()

_serve_lib_exit() {
  if [ -n "$SERVER" ]; then kill "$SERVER" 2>/dev/null || true; wait "$SERVER" 2>/dev/null || true; fi
  if [ "${#_REMOVE_AT_EXIT[@]}" -gt 0 ]; then rm -rf "${_REMOVE_AT_EXIT[@]}"; fi
}
trap _serve_lib_exit EXIT

# Removes the paths given when the script ends.
remove_at_exit() {
  _REMOVE_AT_EXIT+=("$@")
}

# Starts the command $2... in the background, its output to the file $1;
# its pid is SERVER.
serve_in_background() {
  local log="$1"
  shift
  "$@" > "$log" 2>&1 &
  SERVER=$!
}

# Waits up to 60 s for $1/api/health to answer; fails with the log $2 if
# the server exits first or never answers.
wait_for_health() {
  local base="$1" log="$2"
  for _ in $(seq 1 300); do
    if curl -fsS "$base/api/health" > /dev/null 2>&1; then return 0; fi
    if ! kill -0 "$SERVER" 2>/dev/null; then
      echo "the server exited:" >&2; cat "$log" >&2; exit 1
    fi
    sleep 0.2
  done
  echo "the server did not answer $base/api/health within 60 s:" >&2; cat "$log" >&2; exit 1
}
