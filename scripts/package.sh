#!/usr/bin/env bash
# Builds the installable Linux packages of AgentEval Desktop into dist/:
# a .deb and an .rpm (the bundlers that need no download at build time),
# each holding the desktop app, the `agenteval` command, a desktop entry with
# the icons. The shipped scenario packs are built into both binaries.
#
#   bash scripts/package.sh           # release build (what users install)
#   bash scripts/package.sh --debug   # debug build: reuses the test build
#
# The Tauri CLI comes from ui/node_modules (pinned in ui/package.json).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"

profile=release
cargo_profile=(--release)
bundle_flags=()
for arg in "$@"; do
  case "$arg" in
    --debug) profile=debug; cargo_profile=(); bundle_flags=(--debug) ;;
    *) echo "package.sh: unknown argument '$arg' (use --debug or nothing)" >&2; exit 2 ;;
  esac
done

bash scripts/setup.sh
if [ ! -f ui/dist/index.html ] || [ -n "$(find ui/src ui/index.html crates/domain/locales -newer ui/dist/index.html -print -quit)" ]; then
  (cd ui && npm run build --silent)
fi

# One build of the whole workspace with the UI embedded: the same feature
# set as the desktop test, so that a debug package costs no second build.
cargo build "${cargo_profile[@]}" --workspace --features agenteval-desktop/custom-protocol

# The bundler reads src-tauri/tauri.conf.json; the `agenteval` command goes
# into the .deb and the .rpm as a plain file of the package.
files=$(printf '{"/usr/bin/agenteval": "%s"}' "$TARGET_DIR/$profile/agenteval")
config=$(printf '{"bundle": {"linux": {"deb": {"files": %s}, "rpm": {"files": %s}}}}' "$files" "$files")
rm -rf "$TARGET_DIR/$profile/bundle"
(cd src-tauri && CI=true ../ui/node_modules/.bin/tauri bundle "${bundle_flags[@]}" --bundles deb,rpm --config "$config")

# The bundler names the files after the product name ("AgentEval
# Desktop"); dist/ holds them under the command's name, without spaces.
version=$(sed -nE 's/^version = "(.*)"/\1/p' Cargo.toml | head -1)
mkdir -p dist
rm -f dist/*.deb dist/*.rpm
cp "$TARGET_DIR/$profile"/bundle/deb/*.deb "dist/agenteval-desktop_${version}_amd64.deb"
cp "$TARGET_DIR/$profile"/bundle/rpm/*.rpm "dist/agenteval-desktop-${version}-1.x86_64.rpm"
echo "packages ($profile build):"
ls -l dist/*.deb dist/*.rpm
