#!/usr/bin/env bash
# What hostile text in paths, model files and options does to the hysim program:
#   - `workprecision` with an --out folder and a model path holding backquotes, $(...), quotes,
#     a newline and ';' runs no command (a marker file stays absent) and draws the PNG;
#   - control bytes from a model file (an ESC in its description, names, a path) reach neither
#     stdout nor stderr: they are shown as \x1b escapes; Cyrillic names stay as they are;
#   - unclear messages made clear: --time-limit 1.8e308 in shortest form, h_min blamed only
#     under gamma, hexadecimal numbers and out-of-range seeds refused, a --param given twice,
#     an output folder that cannot be made, a literal out of range at file:line:column, a byte
#     order mark accepted, a directory given as a model.
# Usage: cli_text_test.sh PATH_TO_HYSIM SOURCE_DIR. Exit status 1 when any check fails.
set -u

HYSIM=$(realpath "${1:?usage: cli_text_test.sh PATH_TO_HYSIM SOURCE_DIR}")
SOURCE=$(realpath "${2:?usage: cli_text_test.sh PATH_TO_HYSIM SOURCE_DIR}")
TMP=$(mktemp -d)
trap 'chmod -R u+w "$TMP" 2>/dev/null; rm -rf "$TMP"' EXIT
source "$(dirname "$0")/checks.sh"  # check DESCRIPTION COMMAND...; $failures
has_byte() { LC_ALL=C grep -q "$(printf "$1")" "$2"; }  # has_byte '\033' FILE
# bad WHAT CULPRIT ARGS...: exits 2, one line on stderr holding CULPRIT, nothing on stdout.
bad() {
  local what=$1 culprit=$2
  shift 2
  "$HYSIM" "$@" >"$TMP/bad.out" 2>"$TMP/bad.err"
  local status=$?
  check "$what: exits 2" test "$status" -eq 2
  check "$what: one line on stderr" test "$(wc -l <"$TMP/bad.err")" -eq 1
  check "$what: stderr says: $culprit" grep -qF -- "$culprit" "$TMP/bad.err"
  check "$what: nothing on stdout" test ! -s "$TMP/bad.out"
}

# --- gnuplot: paths and labels are data, never commands ----------------------------------------
# The markers are relative: a shell that ran a backquoted command would create them in the
# working directory ($TMP) or in the out folder; the search covers both.
cd "$TMP" || exit 1
hostile="wp\`touch marker.1\`\$(touch marker.2)'\"q;touch marker.3;
x"
WP=$TMP/$hostile
model_dir="$TMP/m\`touch marker.4\`\$(touch marker.5)'\"
;touch marker.6"
mkdir -p "$model_dir"
cp "$SOURCE/models/drag-ball.hym" "$model_dir/drag\`touch marker.7\`.hym"
"$HYSIM" run drag-ball --t-end 5 --out "$TMP/ref" --files events --quiet >/dev/null 2>&1
"$HYSIM" workprecision "$model_dir/drag\`touch marker.7\`.hym" --reference "$TMP/ref/events.csv" --t-end 5 \
  --solvers dopri5 --strategies bisection --rtol-from 1e-3 --rtol-to 1e-4 --out "$WP" >"$TMP/wp.out" 2>"$TMP/wp.err"
check "workprecision with hostile paths exits 0" test $? -eq 0
# Backquotes alone (the script then has no other error that would stop gnuplot first).
mkdir -p "$TMP/m\`touch marker.8\`"
cp "$SOURCE/models/drag-ball.hym" "$TMP/m\`touch marker.8\`/drag.hym"
"$HYSIM" workprecision "$TMP/m\`touch marker.8\`/drag.hym" --reference "$TMP/ref/events.csv" --t-end 5 \
  --solvers dopri5 --strategies bisection --rtol-from 1e-3 --rtol-to 1e-4 --out "$TMP/wp\`touch marker.9\`x" \
  >"$TMP/wp2.out" 2>"$TMP/wp2.err"
check "workprecision with backquoted paths exits 0" test $? -eq 0
if command -v gnuplot >/dev/null; then
  check "workprecision with backquoted paths draws the PNG" test -s "$TMP/wp\`touch marker.9\`x/workprecision.png"
fi
check "workprecision with hostile paths ran no command (no marker file)" \
  test -z "$(find "$TMP" -type f -name 'marker.*' -print -quit)"
check "workprecision with hostile paths writes the CSV" test -s "$WP/workprecision.csv"
if command -v gnuplot >/dev/null; then
  check "workprecision with hostile paths draws the PNG" test -s "$WP/workprecision.png"
fi
check "the gnuplot script names no path but the model's, in its title" \
  test "$(grep -v '^figure_title = ' "$WP/workprecision.gp" | grep -c "$TMP")" -eq 0
check "the gnuplot script has no double-quoted string (gnuplot runs backquotes in them)" \
  test "$(grep -v -e '^#' -e '^figure_title = ' "$WP/workprecision.gp" | grep -c '"')" -eq 0
check "the title is one single-quoted string" grep -q "^figure_title = '/.*rtol'\$" "$WP/workprecision.gp"
check "the title's newline is shown as an escape, not a line break" grep -qF '\x0a;touch marker.6' "$WP/workprecision.gp"
check "the title's quote is doubled" grep -qF "''" "$WP/workprecision.gp"
check "workprecision prints the newline of a path as \\x0a" grep -qF 'q;touch marker.3;\x0ax/workprecision.csv' "$TMP/wp.out"
check "workprecision's stdout has no raw newline inside a path" test "$(grep -c '^x/workprecision' "$TMP/wp.out")" -eq 0

# --- control bytes from files ------------------------------------------------------------------
ESC=$(printf '\033')
sed -e "s/^model bouncing_ball \"ball dropped/model bouncing_ball \"ball${ESC}[31m dropped${ESC}]0;owned\a/" \
  "$SOURCE/models/bouncing-ball.hym" >"$TMP/esc.hym"
check "the test model holds an ESC" has_byte '\033' "$TMP/esc.hym"
for command in list check; do
  "$HYSIM" $command "$TMP/esc.hym" >"$TMP/esc.out" 2>"$TMP/esc.err"
  check "$command esc.hym exits 0" test $? -eq 0
  check "$command esc.hym: no ESC or BEL on stdout or stderr" \
    bash -c "! LC_ALL=C grep -q \"\$(printf '[\033\a]')\" '$TMP/esc.out' '$TMP/esc.err'"
done
"$HYSIM" list "$TMP/esc.hym" >"$TMP/esc.out" 2>&1
check "list esc.hym shows the ESC as \\x1b" grep -qF 'ball\x1b[31m dropped\x1b]0;owned\x07' "$TMP/esc.out"
# An ESC in a mode name is a syntax error; the message quotes the line, escaped, caret aligned.
printf 'model m "x"\nstate x = 0\nmode a\033[2J { der(x) = 1 }\n' >"$TMP/esc-mode.hym"
"$HYSIM" check "$TMP/esc-mode.hym" >/dev/null 2>"$TMP/esc-mode.err"
check "check esc-mode.hym exits 2" test $? -eq 2
check "check esc-mode.hym: no ESC on stderr" bash -c "! LC_ALL=C grep -q \"\$(printf '\033')\" '$TMP/esc-mode.err'"
check "check esc-mode.hym: the line shown with \\x1b" grep -qF 'mode a\x1b[2J { der(x) = 1 }' "$TMP/esc-mode.err"
check "check esc-mode.hym: the caret under the escape" grep -qx '  \{7\}^' "$TMP/esc-mode.err"
# A path with an ESC in an error message.
bad "a missing model file with an ESC in its path" 'no\x1b[31m.hym' run "$TMP/no${ESC}[31m.hym"
# A rule table's variable with an ESC: the interpreter's switch lines show it escaped; the
# engine's log (-v) names the translated modes.
sed "s/нагрев/на${ESC}[31mгрев/g" "$SOURCE/models/rules/thermostat.rules.tsv" >"$TMP/esc.rules.tsv"
"$HYSIM" run "$TMP/esc.rules.tsv" --t-end 1 >"$TMP/rules.out" 2>"$TMP/rules.err"
check "run esc.rules.tsv exits 0" test $? -eq 0
check "run esc.rules.tsv: the switch shown as на\\x1b[31mгрев" grep -qF 'на\x1b[31mгрев -> True' "$TMP/rules.out"
"$HYSIM" -v run "$TMP/esc.rules.tsv" --t-end 1 --strategy bisection >>"$TMP/rules.out" 2>>"$TMP/rules.err"
check "run esc.rules.tsv on the engine with -v exits 0" test $? -eq 0
check "run esc.rules.tsv: no ESC on stdout or stderr" \
  bash -c "! LC_ALL=C grep -q \"\$(printf '\033')\" '$TMP/rules.out' '$TMP/rules.err'"
check "run esc.rules.tsv: -v logged the transitions" grep -q '^\[info\] event 1 ' "$TMP/rules.err"
# Cyrillic names stay readable.
if [[ -f "$SOURCE/models/rules/000-ball.rules.tsv" ]]; then :; fi
cyr=$(ls "$SOURCE"/models/rules/*.rules.tsv 2>/dev/null | head -n 1)
if [[ -n $cyr ]] && LC_ALL=C grep -q "$(printf '\320')" "$cyr"; then
  "$HYSIM" check "$cyr" >"$TMP/cyr.out" 2>&1
  check "check of a rule table with Cyrillic names shows no escape" test "$(grep -c '\\x' "$TMP/cyr.out")" -eq 0
fi

# --- unclear messages ----------------------------------------------------------------------------
bad "--time-limit 1.8e308" "--time-limit: 1.7976931348623157e+308 is not" run bouncing-ball --time-limit 1.7976931348623157e308
check "--time-limit 1.8e308: a short message" test "$(wc -c <"$TMP/bad.err")" -lt 200
bad "--atol-factor -1.8e308 in full" "option atol-factor = -1.7976931348623157e+308 violates atol-factor > 0" \
  workprecision drag-ball --atol-factor -1.7976931348623157e308 --out "$TMP/wp-atol"
bad "--t-end 1e9 under gamma blames h_min and t_end" "raise --h-min or shorten --t-end" \
  run bouncing-ball --strategy gamma --t-end 1e9 --quiet
printf 'model ramp "x grows at 1/s"\nstate x = 0\nmode a { der(x) = 1 }\n' >"$TMP/ramp.hym"
"$HYSIM" run "$TMP/ramp.hym" --strategy bisection --t-end 1e9 --quiet >"$TMP/long.out" 2>"$TMP/long.err"
check "--t-end 1e9 under bisection runs (it does not use h_min)" test $? -eq 0
bad "--t-end 1e9 under gamma with that model" "option h_min = 1e-06 is below the time resolution" \
  run "$TMP/ramp.hym" --strategy gamma --t-end 1e9 --quiet
bad "hexadecimal --t-end" "'0x1p3' for option t_end: a hexadecimal number" run bouncing-ball --t-end 0x1p3
bad "hexadecimal --rtol" "'0x1p-20' for option rtol: a hexadecimal number" run bouncing-ball --rtol 0x1p-20
bad "hexadecimal --rtol-from" "'0x1p-10' is a hexadecimal number" \
  workprecision drag-ball --rtol-from 0x1p-10 --out "$TMP/wp-hex"
check "hexadecimal --rtol-from creates no folder" test ! -e "$TMP/wp-hex"
bad "hexadecimal --param" "'0X10' for parameter 'y0'" run bouncing-ball --param y0=0X10
bad "hexadecimal --time-limit" "'-0x1' is a hexadecimal number" run bouncing-ball --time-limit -0x1
bad "a seed out of range" "'18446744073709551616' is out of range" \
  sweep bouncing-ball --param y0=uniform:1:2 --draws 2 --seed 18446744073709551616 --out "$TMP/sw1"
bad "a negative seed" "'-1' is not a whole number >= 0" \
  sweep bouncing-ball --param y0=uniform:1:2 --draws 2 --seed -1 --out "$TMP/sw2"
check "a bad seed creates no folder" test ! -e "$TMP/sw1" -a ! -e "$TMP/sw2"
bad "--param given twice" "parameter 'y0' is given twice ('y0=1', then 'y0=2')" \
  run bouncing-ball --param y0=1 --param y0=2
bad "--param given twice to sweep" "parameter 'y0' is given twice" \
  sweep bouncing-ball --param y0=1:2:3 --param y0=4 --out "$TMP/sw3"
mkdir -p "$TMP/locked" && chmod a-w "$TMP/locked"
if ! touch "$TMP/locked/probe" 2>/dev/null; then  # root writes anywhere: then this case says nothing
  bad "compare into a folder that cannot be made" "cannot create the output folder '$TMP/locked/out': Permission denied" \
    compare bouncing-ball --strategies bisection --out "$TMP/locked/out"
  bad "workprecision into a folder that cannot be made" "cannot create the output folder '$TMP/locked/out'" \
    workprecision drag-ball --solvers dopri5 --strategies bisection --rtol-from 1e-3 --rtol-to 1e-3 --out "$TMP/locked/out"
fi
touch "$TMP/afile"
# compare runs first, then writes: its table is on stdout when the folder fails.
"$HYSIM" compare bouncing-ball --strategies bisection --out "$TMP/afile/out" >/dev/null 2>"$TMP/compare.err"
check "compare into a path below a file exits 2" test $? -eq 2
check "compare into a path below a file names the folder and why" \
  grep -qxF "hysim: error: cannot create the output folder '$TMP/afile/out': Not a directory" "$TMP/compare.err"
"$HYSIM" reproduce pwm-table1 --out "$TMP/afile/out" >/dev/null 2>"$TMP/reproduce.err"
check "reproduce into a path below a file exits 2" test $? -eq 2
check "reproduce into a path below a file names the folder and why" \
  grep -qxF "hysim: error: cannot create the output folder '$TMP/afile/out': Not a directory" "$TMP/reproduce.err"
"$HYSIM" sweep bouncing-ball --param y0=1:2:2 --out "$TMP/afile/out" >/dev/null 2>"$TMP/sweep.err"
check "sweep into a path below a file exits non-zero" test $? -ne 0
check "sweep into a path below a file: no raw 'filesystem error'" bash -c "! grep -q 'filesystem error' '$TMP/sweep.err'"
check "sweep into a path below a file: names the path" grep -qF "$TMP/afile" "$TMP/sweep.err"
printf 'model m "x"\nstate x = 0\nmode a { der(x) = 1e999 * x }\n' >"$TMP/big.hym"
"$HYSIM" check "$TMP/big.hym" >/dev/null 2>"$TMP/big.err"
check "a literal out of range exits 2" test $? -eq 2
check "a literal out of range: at file:line:column" \
  grep -qF "big.hym:3:19: error: value '1e999' for a literal is out of range: it overflows the double range" "$TMP/big.err"
printf '\357\273\277model m "x"\nstate x = 1\nmode a { der(x) = -x }\n' >"$TMP/bom.hym"
"$HYSIM" check "$TMP/bom.hym" >"$TMP/bom.out" 2>&1
check "a model file with a byte order mark is accepted" test $? -eq 0
check "a model file with a byte order mark: well formed" grep -q "model 'm' is well formed" "$TMP/bom.out"
bad "a directory as a model" "'$TMP' is a directory, not a model file" run "$TMP"

if ((failures > 0)); then
  echo "$failures check(s) failed"
  exit 1
fi
echo "all checks passed"
