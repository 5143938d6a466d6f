#!/usr/bin/env bash
# Configures and builds one CMake preset: scripts/build.sh release|asan [targets...]
set -euo pipefail
cd "$(dirname "$0")/.."
preset="${1:-release}"; shift || true
# ccache hits across clones in other folders: paths relative to the checkout, cwd not hashed.
export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=true
export CCACHE_DIR="${CCACHE_DIR:-$HOME/.cache/ccache}"
cmake --preset "$preset" >/dev/null
if (($#)); then
  cmake --build "build/$preset" --target "$@"
else
  cmake --build "build/$preset"
fi
