#!/usr/bin/env bash
# Configures and builds one CMake preset: scripts/build.sh release|asan [targets...]
set -euo pipefail
cd "$(dirname "$0")/.."
preset="${1:-release}"; shift || true
cmake --preset "$preset" >/dev/null
if (($#)); then
  cmake --build "build/$preset" --target "$@"
else
  cmake --build "build/$preset"
fi
