#!/usr/bin/env bash
# Fuzzes the model-file compiler (src/hysim/lang) or the rule-table reader and interpreter
# (src/hysim/rules) with libFuzzer under AddressSanitizer and UndefinedBehaviorSanitizer
# (Debian: clang, libfuzzer-14-dev).
#
#   scripts/fuzz.sh [SECONDS=600] [JOBS=1] [TARGET=model_file|rule_table]
#
# Seeds: the shipped models (models/*.hym, models/rules/*.rules.tsv) and the regression corpus
# (tests/fuzz/corpus, tests/fuzz/rules-corpus). New interesting inputs go to
# build-fuzz/TARGET-corpus; crashes to build-fuzz/crash-*. Copy a crash into the regression
# corpus once fixed: tests/model_file_fuzz_test.cpp and tests/rule_table_fuzz_test.cpp replay
# those folders.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-600}
jobs=${2:-1}
target=${3:-model_file}
out=build-fuzz
case $target in
  model_file) seeds=(models/*.hym tests/fuzz/corpus/*) corpus=$out/corpus ;;
  rule_table) seeds=(models/rules/*.rules.tsv tests/fuzz/rules-corpus/*) corpus=$out/rule_table-corpus ;;
  *) echo "fuzz.sh: unknown target '$target' (model_file, rule_table)" >&2; exit 2 ;;
esac
mkdir -p "$corpus"
CXX=${CXX_FUZZ:-clang++}
sources=(src/hysim/lang/*.cpp src/hysim/rules/*.cpp src/hysim/core/model.cpp src/hysim/core/parameters.cpp
         src/hysim/core/scalar.cpp)
fuzzer=$out/${target}_fuzzer
if [[ ! -x $fuzzer || -n $(find "${sources[@]}" tests/fuzz -newer "$fuzzer" | head -1) ]]; then
  echo "building $fuzzer with $CXX"
  # quadmath.h ships with GCC, not clang: give clang that one header.
  mkdir -p "$out/include"
  ln -sf "$(gcc -print-file-name=include)/quadmath.h" "$out/include/quadmath.h"
  "$CXX" -std=gnu++20 -O1 -g -isystem "$out/include" -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
    -Isrc -Itests "tests/fuzz/${target}_fuzzer.cpp" "${sources[@]}" -lquadmath -ldl -o "$fuzzer"
fi
cp -n "${seeds[@]}" "$corpus/" 2>/dev/null || true
parallel=()
if (( jobs > 1 )); then parallel=(-jobs="$jobs" -workers="$jobs"); fi  # each job logs to fuzz-N.log
exec "$fuzzer" "$corpus" -max_total_time="$seconds" -max_len=4096 -timeout=10 \
  -rss_limit_mb=2048 "${parallel[@]}" -artifact_prefix="$out/" -print_final_stats=1
