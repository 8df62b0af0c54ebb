#!/usr/bin/env bash
# Fuzzes the model-file compiler (src/hysim/lang), the rule-table reader and interpreter
# (src/hysim/rules), the loader of cached model objects (src/hysim/lang/native_cache.hpp) or the
# command line's option parser (apps/command_line.hpp) with libFuzzer under AddressSanitizer and
# UndefinedBehaviorSanitizer, built with clang into build-fuzz/ (tests/fuzz/CMakeLists.txt;
# Debian's clang and libclang-rt-N-dev are installed when missing; CXX_FUZZ names another
# compiler and installs nothing).
#
#   scripts/fuzz.sh [SECONDS=600] [JOBS=1] [TARGET=model_file|rule_table|cache_loader|cli_options]
#
# Exits non-zero on a crash, a sanitizer report, a leak, an input that takes over 10 s or 2 GB.
# Seeds: the shipped models (models/*.hym, models/rules/*.rules.tsv) and the regression corpus
# (tests/fuzz/corpus, tests/fuzz/rules-corpus, tests/fuzz/cli-corpus: command lines, one word a
# line). New interesting inputs go to build-fuzz/corpus (model_file) or
# build-fuzz/TARGET-corpus; crashes to build-fuzz/crash-*. Copy a crash into the regression
# corpus once fixed: tests/model_file_fuzz_test.cpp, tests/rule_table_fuzz_test.cpp and
# tests/cli_options_fuzz_test.cpp replay those folders.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-600}
jobs=${2:-1}
target=${3:-model_file}
out=build-fuzz
case $target in
  model_file) seeds=(models/*.hym tests/fuzz/corpus/*) corpus=$out/corpus ;;
  rule_table) seeds=(models/rules/*.rules.tsv tests/fuzz/rules-corpus/*) corpus=$out/rule_table-corpus ;;
  cache_loader) seeds=(tests/fuzz/cache-corpus/*) corpus=$out/cache_loader-corpus ;;
  cli_options) seeds=(tests/fuzz/cli-corpus/*) corpus=$out/cli_options-corpus ;;
  *) echo "fuzz.sh: unknown target '$target' (model_file, rule_table, cache_loader, cli_options)" >&2; exit 2 ;;
esac
mkdir -p "$corpus"
if [[ -z ${CXX_FUZZ:-} ]]; then
  # clang and its libFuzzer runtime: libclang-rt-N-dev for clang N, which clang only recommends
  scripts/install-packages.sh clang
  version=$(clang++ -dumpversion)
  scripts/install-packages.sh "libclang-rt-${version%%.*}-dev"
fi
# tests/fuzz/CMakeLists.txt: the fuzzers, their shared sources compiled once, through ccache.
fuzzer=$out/${target}_fuzzer
cmake -S tests/fuzz -B "$out" -DCMAKE_CXX_COMPILER="${CXX_FUZZ:-clang++}" > "$out/build.log" 2>&1 ||
  { cat "$out/build.log"; exit 1; }
echo "building $fuzzer (log: $out/build.log)"
nice cmake --build "$out" --target "${target}_fuzzer" -j "${HYSIM_JOBS:-2}" >> "$out/build.log" 2>&1 ||
  { tail -n 60 "$out/build.log"; exit 1; }
cp -n "${seeds[@]}" "$corpus/" 2>/dev/null || true
parallel=()
if (( jobs > 1 )); then parallel=(-jobs="$jobs" -workers="$jobs"); fi  # each job logs to fuzz-N.log
exec "$fuzzer" "$corpus" -max_total_time="$seconds" -max_len=4096 -timeout=10 \
  -rss_limit_mb=2048 "${parallel[@]}" -artifact_prefix="$out/" -print_final_stats=1
