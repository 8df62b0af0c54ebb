#!/usr/bin/env bash
# The repository stands alone: no text in it points at files outside it (a design note, a style
# guide or a folder of papers that only its authors have) or at an internal issue tracker. Papers
# are cited by title (docs/papers/README.md). Run as a CTest and by hand:
#   scripts/standalone_check.sh [REPOSITORY]
set -euo pipefail
root=${1:-$(dirname "$0")/..}
cd "$root"

# What a reader of the repository cannot open: the authors' design and style notes, their
# machine's paths, and the numbers of an issue tracker. The pattern is put together from
# pieces so that this file does not match itself.
notes='(DESIGN|STYLE)[.]md'
paths='[.][.]/shared|/wo''rk/|shared/se''eds'
tracker='[Ii]ssue''s? #?[0-9]'
pattern="$notes|$paths|$tracker"
folders=(README.md docs src apps python examples bench tests models scripts cmake CMakeLists.txt .ci)
# The fuzzers' corpus is generated input, mutated from the model files, not text to read.
hits=$(grep -rnIE "$pattern" "${folders[@]}" --exclude-dir=corpus 2>/dev/null || true)
if [[ -n $hits ]]; then
  echo "$hits"
  echo "standalone_check: $(wc -l <<< "$hits") line(s) point outside the repository; say it in place or cite the paper by title"
  exit 1
fi
echo "standalone_check: no text points outside the repository"
