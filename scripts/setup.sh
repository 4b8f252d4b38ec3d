#!/usr/bin/env bash
# Idempotent set-up shared by scripts/run.sh and scripts/test.sh: Debian
# packages, Rust components, npm packages. Safe to run again and again.
set -euo pipefail
cd "$(dirname "$0")/.."

need_apt=()
for pkg in libwebkit2gtk-4.1-dev libdbus-1-dev pkg-config build-essential xvfb xauth chromium imagemagick fonts-wqy-microhei webkit2gtk-driver; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || need_apt+=("$pkg")
done
if [ ${#need_apt[@]} -gt 0 ]; then
  echo "setup: installing Debian packages: ${need_apt[*]}"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${need_apt[@]}" >/dev/null
fi

# PostgreSQL for the store's schema tests (initdb and pg_ctl; Debian's
# `postgresql` package when missing, without its default cluster): the
# tests start their own server on 127.0.0.1 (scripts/postgres.sh).
bash scripts/postgres.sh install

if command -v rustup >/dev/null 2>&1; then
  rustup component list --installed 2>/dev/null | grep -q '^rustfmt' || rustup component add rustfmt
  rustup component list --installed 2>/dev/null | grep -q '^clippy' || rustup component add clippy
fi

if [ -f ui/package.json ]; then
  if [ ! -d ui/node_modules ] || [ ui/package-lock.json -nt ui/node_modules/.package-lock.json ]; then
    echo "setup: installing npm packages for ui/"
    (cd ui && npm ci --no-audit --no-fund --loglevel=error)
  fi
fi
