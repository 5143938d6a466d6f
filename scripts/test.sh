#!/usr/bin/env bash
# Sets up, builds (release with g++; ASan+UBSan with clang, which also builds the libFuzzer
# targets) and runs the whole test suite: unit tests in both builds, each fuzz target briefly,
# then the integration tests of the real binary against a real Kafka broker and the emulators.
# Exits non-zero when anything fails.
set -euo pipefail
cd "$(dirname "$0")/.."
# Each phase prints how long it took (CI keeps the whole run under 25 minutes on 2 cores).
phase() {
  local name="$1" started=$SECONDS rc=0
  shift
  "$@" || rc=$?
  echo "test.sh: $name took $((SECONDS - started)) s (exit $rc)" >&2
  return $rc
}
phase setup scripts/setup.sh test

status=0
phase "release build" scripts/build.sh release
phase "release ctest" ctest --preset release -j2 || status=1

phase "asan build" scripts/build.sh asan
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  phase "asan ctest" ctest --preset asan -j2 || status=1

phase "fuzz" scripts/fuzz.sh ci || status=1

export CDCD_BIN="$PWD/build/release/cmd/cdcd"
phase pytest python3 scripts/run_pytest_suites.py || status=1

((status)) && echo "test.sh: a suite failed (see above)" >&2
exit $status
