#!/usr/bin/env bash
# clang-format (check only) and clang-tidy over the C++ sources, using the release build's
# compile_commands.json. `scripts/lint.sh --fix-format` rewrites files in place instead.
set -euo pipefail
cd "$(dirname "$0")/.."
files=$(git ls-files '*.cpp' '*.h' | grep -v '^tests/emulators/')
if [[ "${1:-}" == --fix-format ]]; then
  clang-format -i $files
  exit 0
fi
status=0
clang-format --dry-run --Werror $files || status=1
[[ -f build/release/compile_commands.json ]] || cmake --preset release >/dev/null
sources=$(git ls-files '*.cpp' | grep -v '^tests/')
run-clang-tidy -quiet -p build/release -j "$(nproc)" -extra-arg=-Wno-unknown-warning-option $sources >/tmp/cdcd-clang-tidy.log 2>&1 || { status=1; grep -E "error:|warning:" /tmp/cdcd-clang-tidy.log | head -50; }
exit $status
