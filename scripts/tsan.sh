#!/usr/bin/env bash
# ThreadSanitizer over the runtime's threads: the source readers, the transform's lanes, the sink
# writers' loops, the taps and checkpoints (the tsan preset: clang, -fsanitize=thread).
#   scripts/tsan.sh              the unit tests of pipeline/runtime (what CI runs; seconds)
#   scripts/tsan.sh pipelines    also cdcd itself under TSan, through the integration tests that
#                                run it on several threads (lanes, readers, writers, kill -9,
#                                SIGTERM, bad records, backpressure; a few minutes)
# A data race fails the run (exit 66) and is printed with both stacks.
#
# RocksDB and snappy are Debian's, not instrumented: TSan cannot see the locks inside them and
# reports their own background threads' accesses as races, so those two libraries are
# suppressed (tsan_suppressions.txt). The Kafka connectors cannot run under TSan: the static
# librdkafka is not instrumented either, and its broker threads' getaddrinfo crashes TSan's
# allocator (SIGSEGV in __sanitizer::CombinedAllocator::Allocate), so `pipelines` leaves them out.
set -euo pipefail
cd "$(dirname "$0")/.."

export TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 suppressions=$PWD/scripts/tsan_suppressions.txt"

# Catch2 tags each test with its file's name: every test of tests/unit/pipeline/runtime, and of
# the other classes sources share between threads (split readers' schema changes, row buffers on
# their way back).
tags=$(find tests/unit/pipeline/runtime tests/unit/pipeline/connector/schema_change_gate_test.cpp \
         tests/unit/pipeline/data/row_buffer_return_test.cpp -name '*_test.cpp' -printf '[#%f],' |
       sed 's/\.cpp\]/]/g; s/,$//')
scripts/build.sh tsan test_pipeline >/dev/null
build/tsan/tests/unit/test_pipeline -# "$tags"

if [[ "${1:-}" == pipelines ]]; then
  scripts/build.sh tsan cdcd >/dev/null
  cd tests/integration
  CDCD_BIN="$PWD/../../build/tsan/cmd/cdcd" python3 -m pytest -q -p no:cacheprovider \
    core/test_transform_lanes.py core/test_source_readers.py core/test_crash_safety.py \
    core/test_parallel_writers.py core/test_parallelism.py core/test_shutdown.py \
    core/test_bad_records.py core/test_backpressure.py
fi
