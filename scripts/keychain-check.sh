#!/usr/bin/env bash
# Exercises the OS-keychain path of the desktop app's key storage on Linux:
# starts a private D-Bus session with GNOME Keyring's Secret Service
# (unlocked with a throw-away password) and runs the test that is ignored
# where no keychain exists. Needs the Debian packages dbus and
# gnome-keyring (installed when missing).
set -euo pipefail
cd "$(dirname "$0")/.."

need=()
for pkg in dbus gnome-keyring libdbus-1-dev; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || need+=("$pkg")
done
if [ ${#need[@]} -gt 0 ]; then
  SUDO=$([ "$(id -u)" -eq 0 ] && echo "" || echo sudo)
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

# Build outside the D-Bus session, so that only the test runs inside it.
cargo test --workspace --lib --no-run --quiet

# The keyring lives in a throw-away home; cargo and rustup keep theirs.
export RUSTUP_HOME="${RUSTUP_HOME:-$HOME/.rustup}" CARGO_HOME="${CARGO_HOME:-$HOME/.cargo}"
HOME_DIR=$(mktemp -d)
trap 'rm -rf "$HOME_DIR"' EXIT
mkdir -m 700 "$HOME_DIR/run"
HOME="$HOME_DIR" XDG_DATA_HOME="$HOME_DIR/.local/share" XDG_RUNTIME_DIR="$HOME_DIR/run" \
  dbus-run-session -- bash -c '
    set -euo pipefail
    # A login keyring created and unlocked with a throw-away password.
    eval "$(printf "throwaway\n" | gnome-keyring-daemon --unlock --components=secrets)"
    cargo test --workspace --lib --quiet -- --ignored keys_go_to_the_os_keychain
  '
