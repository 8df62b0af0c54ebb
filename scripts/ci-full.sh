#!/usr/bin/env bash
# The full CI that .ci/run runs, from a clean clone (docs/testing.md): the README's test command; the whole suite again under
# AddressSanitizer and UndefinedBehaviorSanitizer (scripts/sanitize.sh); each libFuzzer target
# for a bounded time on its corpus (scripts/fuzz.sh). A failed test, a sanitizer report or a
# fuzz crash fails the run. Prints each phase's duration.
set -euo pipefail
cd "$(dirname "$0")/.."
# The clone may be anywhere: ccache keys on paths relative to it, so runs share their entries.
export CCACHE_BASEDIR=$PWD CCACHE_NOHASHDIR=true
fuzz_seconds=${HYSIM_FUZZ_SECONDS:-60}

# timed NAME COMMAND...: runs COMMAND and prints how long it took; its exit status.
timed() {
  local name=$1 start=$SECONDS status=0
  shift
  "$@" || status=$?
  echo "ci: $name: $((SECONDS - start)) s$( ((status == 0)) || echo ", FAILED (exit $status)")"
  return $status
}
readme_tests() { scripts/setup.sh && ctest --test-dir build --output-on-failure -j2; }
# fuzz TARGET: the fuzzer's log in build-fuzz/TARGET.log; its statistics, or on failure its end.
fuzz() {
  mkdir -p build-fuzz
  if scripts/fuzz.sh "$fuzz_seconds" 1 "$1" > "build-fuzz/$1.log" 2>&1; then
    grep -E '^(building|stat::number_of_executed_units|stat::new_units_added|Done)' "build-fuzz/$1.log" || true
  else
    tail -n 80 "build-fuzz/$1.log"
    return 1
  fi
}

total=$SECONDS
timed "README tests" readme_tests
timed "sanitizer build and tests" scripts/sanitize.sh
timed "fuzz model_file ${fuzz_seconds} s" fuzz model_file
timed "fuzz rule_table ${fuzz_seconds} s" fuzz rule_table
timed "fuzz cache_loader ${fuzz_seconds} s" fuzz cache_loader
timed "fuzz cli_options ${fuzz_seconds} s" fuzz cli_options
echo "ci: total $((SECONDS - total)) s"
