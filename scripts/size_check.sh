#!/usr/bin/env bash
# Size limits on the code, read with Universal Ctags (its end lines): no class or struct over
# 300 lines and no function over 80 lines, in every folder of code except the C++ models
# (src/hysim/models/, where one function declares a whole model, mode by mode) and the tests.
# Run as a CTest (tests/CMakeLists.txt) and by hand: scripts/size_check.sh [REPOSITORY]
set -euo pipefail
root=${1:-$(dirname "$0")/..}
cd "$root"
max_class=300
max_function=80

if ! ctags --version 2>/dev/null | grep -q 'Universal Ctags'; then
  echo "size_check: Universal Ctags not found (Debian package universal-ctags)" >&2
  exit 2
fi

folders=(src apps python bench examples)
# Tab-separated: kind, name, file, first line, end line. Kinds as ctags names them for C++.
ctags -R --languages=C++ --fields=+ne --exclude=src/hysim/models -x \
    --_xformat='%{kind}	%{name}	%{input}	%{line}	%{end}' "${folders[@]}" |
  awk -F'\t' -v max_class="$max_class" -v max_function="$max_function" '
    $5 == "" { next }
    { lines = $5 - $4 + 1 }
    ($1 == "class" || $1 == "struct") && lines > max_class {
      printf "%s:%s: %s %s is %d lines (limit %d)\n", $3, $4, $1, $2, lines, max_class; bad++ }
    $1 == "function" && lines > max_function {
      printf "%s:%s: function %s is %d lines (limit %d)\n", $3, $4, $2, lines, max_function; bad++ }
    END {
      if (bad) { printf "size_check: %d over the limits\n", bad; exit 1 }
      print "size_check: every class <= " max_class " lines, every function <= " max_function " lines"
    }'
