#!/usr/bin/env bash
# Builds hysim with GCC under AddressSanitizer and UndefinedBehaviorSanitizer into build-asan/
# (-DHYSIM_SANITIZE=ON, -O1 -g1, no benchmarks) and runs the whole test suite there. CI runs it
# after the README's test command (.ci/run, docs/testing.md); on a fresh machine run
# scripts/setup.sh first (packages).
#
#   scripts/sanitize.sh [CTEST_ARGS...]      e.g. scripts/sanitize.sh -R model_file
#
# HYSIM_JOBS sets the build's jobs (default 2); the build log is build-asan.log. A sanitizer
# report aborts the process that made it, so its test fails; a leak is a report too.
set -euo pipefail
cd "$(dirname "$0")/.."
out=build-asan
# ccache keys on paths relative to the clone, so clones elsewhere (CI's) share the entries.
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$PWD} CCACHE_NOHASHDIR=${CCACHE_NOHASHDIR:-true}
start=$SECONDS
cmake -S . -B "$out" -DHYSIM_SANITIZE=ON -DHYSIM_BUILD_BENCH=OFF -DCMAKE_CXX_COMPILER=g++ \
  -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g1" > "$out.log" 2>&1 || { cat "$out.log"; exit 1; }
nice cmake --build "$out" -j "${HYSIM_JOBS:-2}" >> "$out.log" 2>&1 || { tail -n 60 "$out.log"; exit 1; }
echo "sanitize: built $out in $((SECONDS - start)) s (log: $out.log)"
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1:strict_string_checks=1:detect_stack_use_after_return=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
start=$SECONDS
status=0
nice ctest --test-dir "$out" --output-on-failure -j2 "$@" || status=$?
echo "sanitize: tests in $((SECONDS - start)) s"
exit $status
