#!/usr/bin/env bash
# Fuzzes the model-file compiler (src/hysim/lang) with libFuzzer under AddressSanitizer and
# UndefinedBehaviorSanitizer (Debian: clang, libfuzzer-14-dev).
#
#   scripts/fuzz.sh [SECONDS=600] [JOBS=1]
#
# Seeds: the shipped models (models/*.hym) and the regression corpus (tests/fuzz/corpus). New
# interesting inputs go to build-fuzz/corpus; crashes to build-fuzz/crash-*. Copy a crash into
# tests/fuzz/corpus once fixed: tests/model_file_fuzz_test.cpp replays that folder.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-600}
jobs=${2:-1}
out=build-fuzz
mkdir -p "$out/corpus"
CXX=${CXX_FUZZ:-clang++}
sources=(src/hysim/lang/*.cpp src/hysim/core/model.cpp src/hysim/core/parameters.cpp src/hysim/core/scalar.cpp)
if [[ ! -x $out/model_file_fuzzer || -n $(find "${sources[@]}" tests/fuzz -newer "$out/model_file_fuzzer" | head -1) ]]; then
  echo "building $out/model_file_fuzzer with $CXX"
  # quadmath.h ships with GCC, not clang: give clang that one header.
  mkdir -p "$out/include"
  ln -sf "$(gcc -print-file-name=include)/quadmath.h" "$out/include/quadmath.h"
  "$CXX" -std=gnu++20 -O1 -g -isystem "$out/include" -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
    -Isrc -Itests tests/fuzz/model_file_fuzzer.cpp "${sources[@]}" -lquadmath -ldl -o "$out/model_file_fuzzer"
fi
cp -n models/*.hym tests/fuzz/corpus/* "$out/corpus/" 2>/dev/null || true
parallel=()
if (( jobs > 1 )); then parallel=(-jobs="$jobs" -workers="$jobs"); fi  # each job logs to fuzz-N.log
exec "$out/model_file_fuzzer" "$out/corpus" -max_total_time="$seconds" -max_len=4096 -timeout=10 \
  -rss_limit_mb=2048 "${parallel[@]}" -artifact_prefix="$out/" -print_final_stats=1
