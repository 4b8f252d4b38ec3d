#!/usr/bin/env bash
# A throwaway PostgreSQL server for tests, in a folder of its own.
#
#   scripts/postgres.sh start DIR [--stop-after PID]
#       creates a cluster in DIR (once), starts it on a free port of
#       127.0.0.1 and prints its URL (postgres://postgres:PASSWORD@127.0.0.1:PORT/postgres).
#       With --stop-after, a watcher stops the server and removes DIR once
#       process PID has exited (how a test binary gets its server stopped).
#   scripts/postgres.sh stop DIR [--remove]
#       stops it (nothing to do when it is not running); --remove then
#       deletes DIR.
#   scripts/postgres.sh install
#       only makes sure initdb and pg_ctl are present.
#
# Idempotent: a second `start` on a running DIR prints the same URL. It
# installs Debian's `postgresql` package when initdb/pg_ctl are found
# neither on PATH nor under /usr/lib/postgresql/*/bin, without letting the
# package create or start its default cluster. The server is a test
# server: TCP on 127.0.0.1 only (no Unix socket, no other address), a
# random password (scram-sha-256), fsync and synchronous commit off, UTF-8
# with the C locale. initdb refuses to run as root: as root, the cluster
# belongs to the `postgres` user, who must be able to reach DIR (a folder
# under /tmp will do).
set -euo pipefail

SCRIPT="$(cd "$(dirname "$0")" && pwd)/$(basename "$0")"
die() { echo "postgres.sh: $*" >&2; exit 1; }

# The folder holding initdb and pg_ctl, or nothing.
bin_dir() {
  local d
  if command -v pg_ctl >/dev/null 2>&1 && command -v initdb >/dev/null 2>&1; then
    dirname "$(readlink -f "$(command -v pg_ctl)")"
    return
  fi
  for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
    if [ -x "$d/pg_ctl" ] && [ -x "$d/initdb" ]; then echo "$d"; return; fi
  done
}

install() {
  [ -n "$(bin_dir)" ] && return
  command -v apt-get >/dev/null 2>&1 || die "initdb and pg_ctl not found and no apt-get to install PostgreSQL"
  echo "postgres.sh: installing Debian's postgresql package" >&2
  local sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  # The package would create (and try to start) a default cluster on port
  # 5432; the tests need none.
  $sudo mkdir -p /etc/postgresql-common/createcluster.d
  echo "create_main_cluster = false" | $sudo tee /etc/postgresql-common/createcluster.d/agenteval-no-main.conf >/dev/null
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends postgresql >/dev/null
  [ -n "$(bin_dir)" ] || die "postgresql installed, but initdb and pg_ctl are still not found"
}

# Runs a command as the owner of the cluster: `postgres` when root.
as_owner() {
  if [ "$(id -u)" -eq 0 ]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

prepare_dir() {
  local dir="$1"
  mkdir -p "$dir"
  if [ "$(id -u)" -eq 0 ]; then
    id postgres >/dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin postgres
    chown postgres: "$dir"
    chmod 700 "$dir"
    if ! runuser -u postgres -- test -w "$dir"; then
      rmdir "$dir" 2>/dev/null || true
      die "the postgres user cannot write $dir (a parent folder is closed to it): use a folder under /tmp"
    fi
  fi
}

running() { as_owner "$BIN/pg_ctl" -D "$1/data" status >/dev/null 2>&1; }

init_cluster() {
  local dir="$1"
  [ -f "$dir/data/PG_VERSION" ] && return
  # A password, so that other local users reach nothing on the port.
  as_owner bash -c 'umask 077; head -c 32 /dev/urandom | od -An -tx1 | tr -d " \n" > "$1/password"' _ "$dir"
  as_owner "$BIN/initdb" -D "$dir/data" -U postgres --pwfile="$dir/password" \
    --auth=scram-sha-256 --encoding=UTF8 --locale=C >"$dir/initdb.log" 2>&1 \
    || { cat "$dir/initdb.log" >&2; die "initdb failed in $dir/data"; }
  as_owner tee -a "$dir/data/postgresql.conf" >/dev/null <<'EOF'

# scripts/postgres.sh: a throwaway test server.
listen_addresses = '127.0.0.1'
unix_socket_directories = ''
fsync = off
synchronous_commit = off
full_page_writes = off
max_connections = 200
EOF
}

# A port nothing listens on now (the start retries if one takes it first).
free_port() {
  local port
  while :; do
    port=$((20000 + RANDOM % 40000))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
      echo "$port"
      return
    fi
  done
}

start() {
  local dir="$1" stop_after="${2:-}"
  install
  BIN="$(bin_dir)"
  prepare_dir "$dir"
  dir="$(cd "$dir" && pwd)"
  init_cluster "$dir"
  if ! running "$dir"; then
    local port
    for _ in 1 2 3 4 5; do
      port="$(free_port)"
      if as_owner "$BIN/pg_ctl" -D "$dir/data" -l "$dir/server.log" -o "-p $port" -w -t 60 start >/dev/null 2>&1; then
        echo "postgres://postgres:$(as_owner cat "$dir/password")@127.0.0.1:$port/postgres?sslmode=disable" \
          | as_owner bash -c 'umask 077; cat > "$1"' _ "$dir/url"
        break
      fi
      port=""
    done
    if [ -z "$port" ]; then
      tail -n 20 "$dir/server.log" >&2 || true
      die "the server in $dir did not start (log: $dir/server.log)"
    fi
  fi
  if [ -n "$stop_after" ]; then
    # Its own session, so that a Ctrl-C to the tests does not stop the
    # cleanup; no inherited output, so that nobody waits on it.
    setsid bash -c 'while [ -e "/proc/$1" ]; do sleep 1; done; exec bash "$0" stop "$2" --remove' \
      "$SCRIPT" "$stop_after" "$dir" </dev/null >/dev/null 2>&1 &
  fi
  as_owner cat "$dir/url"
}

stop() {
  local dir="$1" remove="${2:-}"
  [ -d "$dir" ] || return 0
  BIN="$(bin_dir)"
  if [ -n "$BIN" ] && [ -f "$dir/data/PG_VERSION" ] && running "$dir"; then
    as_owner "$BIN/pg_ctl" -D "$dir/data" -m fast -w -t 60 stop >/dev/null
  fi
  if [ "$remove" = "--remove" ]; then
    # Only a folder this script made: a cluster and nothing unexpected.
    [ -f "$dir/password" ] || [ -z "$(ls -A "$dir")" ] || die "$dir holds no cluster of this script: not removed"
    rm -rf "$dir"
  fi
}

case "${1:-}" in
  start)
    [ $# -ge 2 ] || die "usage: postgres.sh start DIR [--stop-after PID]"
    if [ $# -ge 4 ] && [ "$3" = "--stop-after" ]; then start "$2" "$4"; else start "$2"; fi
    ;;
  stop)
    [ $# -ge 2 ] || die "usage: postgres.sh stop DIR [--remove]"
    stop "$2" "${3:-}"
    ;;
  install) install ;;
  *) die "usage: postgres.sh start DIR [--stop-after PID] | stop DIR [--remove] | install" ;;
esac
