#!/usr/bin/env bash
# Configures and builds one CMake preset: scripts/build.sh release|asan [targets...]
set -euo pipefail
cd "$(dirname "$0")/.."
preset="${1:-release}"; shift || true
# ccache hits across clones in other folders: paths relative to the checkout, cwd not hashed.
export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=true
export CCACHE_DIR="${CCACHE_DIR:-$HOME/.cache/ccache}"
# Precompiled headers (cmake/PrecompiledHeaders.cmake): ccache caches objects built with one only
# when it may ignore the PCH's macro and timestamp details.
export CCACHE_SLOPPINESS="${CCACHE_SLOPPINESS:+$CCACHE_SLOPPINESS,}pch_defines,time_macros,include_file_mtime,include_file_ctime"
cmake --preset "$preset" >/dev/null
if (($#)); then
  cmake --build "build/$preset" --target "$@"
else
  cmake --build "build/$preset"
fi
