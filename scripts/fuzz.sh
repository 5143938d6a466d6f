#!/usr/bin/env bash
# Runs the libFuzzer targets of tests/fuzz (built by the asan preset: clang, ASan + UBSan).
#   scripts/fuzz.sh TARGET [SECONDS]   one target, 60 s by default (`expression`, `kafka_...`)
#   scripts/fuzz.sh all [SECONDS]      every target for SECONDS (60), CDCD_FUZZ_JOBS (2) at a time
#   scripts/fuzz.sh ci                 every target over its seed corpus plus fresh inputs for
#                                      CDCD_FUZZ_SECONDS (default 10) each (what CI runs)
#   scripts/fuzz.sh list               the targets
# A run starts from the seed corpus in tests/fuzz/corpus/TARGET (kept in the repository) and the
# inputs earlier runs found in .cache/fuzz/corpus/TARGET; new inputs go to the latter. A crash,
# leak, timeout (10 s) or memory blow-up (2 GB) stops the run, leaves the input in
# .cache/fuzz/artifacts/TARGET/ and fails the script. To keep a finding as a regression input,
# copy it to tests/fuzz/corpus/TARGET/ once fixed.
set -euo pipefail
cd "$(dirname "$0")/.."

targets() { sed -n 's/^cdcd_fuzz_target(\([^ ]*\)_fuzz\.cpp.*/\1/p' tests/fuzz/CMakeLists.txt | xargs -n1 basename; }

run() {  # run TARGET SECONDS
  local target=$1 seconds=$2
  local work=.cache/fuzz/corpus/$target artifacts=.cache/fuzz/artifacts/$target
  mkdir -p "$work" "$artifacts" "tests/fuzz/corpus/$target"
  local log=.cache/fuzz/$target.log
  echo "fuzz: $target for ${seconds}s" >&2
  if ! ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
      "build/asan/tests/fuzz/fuzz_$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
      -max_len=65536 -print_final_stats=1 -artifact_prefix="$artifacts/" \
      "$work" "tests/fuzz/corpus/$target" >"$log" 2>&1; then
    tail -n 60 "$log" >&2
    echo "fuzz: $target FAILED; the input is in $artifacts/ (log: $log)" >&2
    # A digest for the end of scripts/test.sh, whose output may be cut to its last part: the
    # finding's kind, its top frames and the input, base64 so that it can be replayed from a log.
    {
      echo "fuzz: $target FAILED"
      grep -m1 -E '^(==[0-9]+==ERROR|SUMMARY|.*runtime error|ALARM|==[0-9]+== ERROR: libFuzzer)' "$log" || true
      grep -m12 -E '^ +#[0-9]+ ' "$log" || true
      local input
      input=$(ls -t "$artifacts"/* 2>/dev/null | head -n 1)
      [[ -n $input ]] && echo "input $(basename "$input") ($(stat -c %s "$input") bytes, base64): $(head -c 4096 "$input" | base64 -w0)"
    } >>.cache/fuzz/failures.txt
    return 1
  fi
  # One line a target: executions, coverage (edges), features and the corpus size.
  awk -v t="$target" '/stat::number_of_executed_units/{e=$2} /^#[0-9]+.*(DONE|INITED)/{for(i=1;i<=NF;i++){if($i=="cov:")c=$(i+1);if($i=="ft:")f=$(i+1);if($i=="corp:")k=$(i+1)}}
    END{printf "fuzz: %-20s %10s execs  cov %6s  ft %6s  corpus %s\n", t, e, c, f, k}' "$log"
}

build() { scripts/build.sh asan "$@" >/dev/null; }

command=${1:-list}
case "$command" in
  list) targets ;;
  all | ci)
    build fuzz_targets
    rm -f .cache/fuzz/failures.txt
    seconds=${2:-60}
    [[ $command == ci ]] && seconds=${CDCD_FUZZ_SECONDS:-10}
    export -f run; export seconds
    targets | xargs -P "${CDCD_FUZZ_JOBS:-2}" -I{} bash -c 'run "$1" "$seconds"' _ {} ;;
  *)
    # grep without -q reads the whole list: -q stops at the match, and the SIGPIPE that gives
    # `targets` fails the pipeline under pipefail.
    targets | grep -x "$command" >/dev/null || { echo "fuzz: no target $command (scripts/fuzz.sh list)" >&2; exit 2; }
    build "fuzz_$command"
    run "$command" "${2:-60}" ;;
esac
