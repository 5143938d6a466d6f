#!/usr/bin/env bash
# clang-format (check only) and clang-tidy over the C++ sources.
#   scripts/lint.sh               both
#   scripts/lint.sh format        clang-format, and the unit tests' layout (seconds)
#   scripts/lint.sh tidy [JOBS]   clang-tidy only, JOBS files at a time (default: the cores)
#   scripts/lint.sh --fix-format  rewrites files in place instead of checking
# clang-tidy reads build/lint/compile_commands.json (the lint preset): the release flags without
# precompiled headers (clang cannot read GCC's, and each file must compile from its own
# includes). Files unchanged since a clean run are not checked again (scripts/clang_tidy_cached.py).
set -euo pipefail
cd "$(dirname "$0")/.."
what="${1:-all}"
files=$(git ls-files '*.cpp' '*.h' | grep -v '^tests/emulators/')
if [[ "$what" == --fix-format ]]; then
  clang-format -i $files
  exit 0
fi
status=0
if [[ "$what" == all || "$what" == format ]]; then
  clang-format --dry-run --Werror $files || status=1
  scripts/check_test_layout.py || status=1  # tests/unit mirrors the sources, file for file
fi
if [[ "$what" == all || "$what" == tidy ]]; then
  cmake --preset lint >/dev/null
  # Not tests/ (Catch2 macros), nor cmake/ (the PCH targets' empty source, not compiled here).
  sources=$(git ls-files '*.cpp' | grep -v -e '^tests/' -e '^cmake/')
  scripts/clang_tidy_cached.py -p build/lint -j "${2:-$(nproc)}" $sources || status=1
fi
exit $status
