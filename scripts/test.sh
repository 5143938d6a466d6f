#!/usr/bin/env bash
# Sets up, builds (release, ASan+UBSan and the clang fuzz targets) and runs the whole test suite:
# unit tests in both builds, each fuzz target briefly, then the integration tests of the real
# binary against a real Kafka broker and the emulators. Exits non-zero when anything fails.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh test

status=0
scripts/build.sh release
ctest --preset release -j2 || status=1

scripts/build.sh asan
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --preset asan -j2 || status=1

scripts/fuzz.sh ci || status=1

export CDCD_BIN="$PWD/build/release/cmd/cdcd"
python3 scripts/run_pytest_suites.py || status=1

((status)) && echo "test.sh: a suite failed (see above)" >&2
exit $status
