#!/usr/bin/env bash
# The hysim command-line program end to end (apps/main.cpp, apps/recorder.cpp):
#   - `hysim list` names every model;
#   - `hysim options --markdown` prints the options table that docs/cli.md holds;
#   - `hysim run pwm-servo --out DIR` writes events.csv, trajectory.csv and stats.json with the
#     documented headers and keys; the first event is the PWM switch s1 -> s3 (guard p3) at the
#     closed-form time t = (sqrt(6) - 2)/10 = 0.0449489742783178... (004, Eqs. 4-9: in s1
#     omega = 100 t, phi = 50 t^2, saw = t, and p3 fires when kp (u - k omega - phi) = saw,
#     i.e. 5 t^2 + 2 t - 0.1 = 0), printed with 17 significant digits in double;
#   - every bad argument exits non-zero with one line on stderr naming the culprit, prints
#     nothing on stdout and creates no output directory;
#   - --scalar long-double and float128 runs agree with the closed form to 15 digits;
#   - -v logs transitions on stderr, the default logs nothing but warnings: dopri5 on Robertson's
#     kinetics says once that the problem is stiff (stderr and stats.json);
#   - `run` writes the step log steps.csv and names its strategy in stats.json; a bad strategy
#     name exits 2 naming it (run and compare);
#   - `compare pwm-servo --t-end 1` with two strategies writes compare.csv and compare.json with
#     the documented columns and keys, and bisection misses no event and finds none spurious;
#   - `reproduce pwm-table1` prints the four rows of 004, Table 1 and our rows;
#   - `workprecision` on a tiny sweep writes the CSV and the gnuplot script, and the PNG when
#     gnuplot is installed (without it: a note, exit 0); scripts/plot_steps.gp draws a step log;
#   - model files: `run`, `check` and `list` take a file; a bad file exits 2 with
#     file:line:column and a caret, and writes nothing.
# Usage: cli_test.sh PATH_TO_HYSIM. Exit status 1 when any check fails.
set -u

HYSIM=${1:?usage: cli_test.sh PATH_TO_HYSIM}
SCRIPTS=$(cd "$(dirname "$0")/../scripts" && pwd)
DOCS=$(cd "$(dirname "$0")/../docs" && pwd)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
source "$(dirname "$0")/checks.sh"  # check DESCRIPTION COMMAND...; $failures

# --- hysim list -------------------------------------------------------------------------
"$HYSIM" list >"$TMP/list.out" 2>"$TMP/list.err"
check "list exits 0" test $? -eq 0
for model in pwm-servo bouncing-ball exponential oscillator; do
  check "list names $model" grep -qx "$model" "$TMP/list.out"
done

# --- hysim options: the table of docs/cli.md is the program's ------------------------------
"$HYSIM" options --markdown >"$TMP/options.md" 2>"$TMP/options.err"
check "options --markdown exits 0" test $? -eq 0
check "options --markdown has a row for --t-end" grep -q '^| `--t-end` |' "$TMP/options.md"
check "docs/cli.md holds the table of 'hysim options --markdown' (paste it there)" python3 -c \
  'import sys; sys.exit(open(sys.argv[2]).read() not in open(sys.argv[1]).read())' "$DOCS/cli.md" "$TMP/options.md"
"$HYSIM" options >"$TMP/options.out" 2>&1
check "options lists --no-sliding" grep -q -- "--no-sliding" "$TMP/options.out"

# --- a good run ---------------------------------------------------------------------------
OUT="$TMP/run"
"$HYSIM" run pwm-servo --t-end 1 --out "$OUT" >"$TMP/run.out" 2>"$TMP/run.err"
check "run pwm-servo exits 0" test $? -eq 0
check "run pwm-servo logs nothing on stderr by default" test ! -s "$TMP/run.err"
check "events.csv written" test -f "$OUT/events.csv"
check "trajectory.csv written" test -f "$OUT/trajectory.csv"
check "stats.json written" test -f "$OUT/stats.json"

header=$(head -n 1 "$OUT/events.csv" 2>/dev/null)
check "events.csv header" test "$header" = "index,t,from,to,class,guard,one_sided,omega,phi,saw,omega+,phi+,saw+"
IFS=, read -r index t from to class guard _ <<<"$(sed -n 2p "$OUT/events.csv" 2>/dev/null)"
check "first event is number 1" test "${index:-}" = 1
check "first event time starts 0.0449489742783178 (got ${t:-})" test "${t:0:18}" = "0.0449489742783178"
check "first event s1 -> s3 interior by p3 (got ${from:-} ${to:-} ${class:-} ${guard:-})" \
  test "${from:-}/${to:-}/${class:-}/${guard:-}" = "s1/s3/interior/p3"

# Significant digits of a printed number: drop sign and exponent, the point, leading zeros.
significant_digits() {
  local mantissa=${1#-}
  mantissa=${mantissa%%[eE]*}
  mantissa=${mantissa/./}
  mantissa=$(sed 's/^0*//' <<<"$mantissa")
  echo "${#mantissa}"
}
check "first event time has 17 significant digits (${t:-})" test "$(significant_digits "${t:-}")" -eq 17
too_long=$(tail -n +2 "$OUT/events.csv" 2>/dev/null | tr ',' '\n' | grep -E '^-?[0-9]' | while read -r v; do
  if [ "$(significant_digits "$v")" -gt 17 ]; then echo "$v"; fi
done | head -n 1)
check "no number in events.csv has more than 17 significant digits (${too_long})" test -z "$too_long"

check "trajectory.csv header" test "$(head -n 1 "$OUT/trajectory.csv" 2>/dev/null)" = "t,mode,omega,phi,saw"
check "steps.csv header" test "$(head -n 1 "$OUT/steps.csv" 2>/dev/null)" = "t,h,limit"

python3 - "$OUT/stats.json" <<'EOF'
import json, sys
with open(sys.argv[1]) as f:
    report = json.load(f)
for key in ("model", "options", "stats"):
    assert key in report, f"missing top-level key {key}"
assert report["model"] == "pwm-servo", report["model"]
stats = report["stats"]
for key in ("steps_accepted", "steps_rejected", "rhs_evals", "guard_evals", "root_iterations", "events",
            "wall_seconds"):
    assert key in stats, f"missing stats key {key}"
assert stats["steps_accepted"] > 0 and stats["events"] > 0, stats
assert report["options"]["strategy"], report["options"]  # the engine's default strategy
by_guard = stats["transitions_by_guard"]  # the transitions by name add up to all of them
assert set(by_guard) == {"p3", "saw_reset"} and sum(by_guard.values()) == stats["transitions"], by_guard
EOF
check "stats.json parses and has model, options (with strategy), stats{...}" test $? -eq 0

"$HYSIM" run pwm-servo --t-end 0.2 --strategy gamma --gamma 0.5 --h-min 1e-7 --out "$TMP/gamma" >/dev/null 2>&1
check "run --strategy gamma exits 0" test $? -eq 0
check "run --strategy gamma: stats.json names it" grep -q '"strategy": "gamma"' "$TMP/gamma/stats.json"
check "run --strategy gamma: stats.json has gamma 0.5" grep -q '"gamma": 0.5' "$TMP/gamma/stats.json"
check "run --strategy gamma: the step log has rows" test "$(wc -l <"$TMP/gamma/steps.csv")" -gt 1
# --atol NAME=VALUE beside the scalar: both reach stats.json.
"$HYSIM" run bouncing-ball --t-end 1 --atol 1e-8 --atol v=1e-12 --out "$TMP/atol" >/dev/null 2>&1
check "run --atol v=1e-12 exits 0" test $? -eq 0
check "run --atol: stats.json has the scalar" grep -q '"atol": 1e-08' "$TMP/atol/stats.json"
check "run --atol: stats.json has the state's" grep -q '"v": "1e-12"' "$TMP/atol/stats.json"
# A crossing with stop ends the run with exit status 0 and says which stopped it.
printf 'model c\nstate x = 0\nmode a { der(x) = 1 }\ncrossing half (x - 0.5) up stop\n' >"$TMP/stop.hym"
"$HYSIM" run "$TMP/stop.hym" --t-end 2 >"$TMP/stop.out" 2>&1
check "a crossing with stop: exit 0" test $? -eq 0
check "a crossing with stop: the summary names it" grep -q "stopped at t = 0.5.*transition 'half' stops the run" "$TMP/stop.out"
# --- bad arguments: non-zero exit, one line on stderr naming the culprit, nothing written -----
n=0
# bad_case CULPRIT ARGS...: runs `hysim ARGS... --out DIR` and checks the failure contract.
bad_case() {
  local culprit=$1
  shift
  n=$((n + 1))
  local dir="$TMP/bad$n"
  "$HYSIM" "$@" --out "$dir" >"$TMP/bad.out" 2>"$TMP/bad.err"
  local status=$?
  local what="hysim $*"
  check "$what: exits non-zero" test "$status" -ne 0
  check "$what: one line on stderr" test "$(wc -l <"$TMP/bad.err")" -eq 1
  check "$what: stderr names '$culprit'" grep -qF -- "$culprit" "$TMP/bad.err"
  check "$what: nothing on stdout" test ! -s "$TMP/bad.out"
  check "$what: no output directory" test ! -e "$dir"
}
bad_case "model 'nope'" run nope
bad_case "solver 'nope'" run pwm-servo --solver nope
bad_case "parameter 'nope'" run pwm-servo --param nope=1
bad_case "'abc'" run pwm-servo --param kp=abc
bad_case "'kp'" run pwm-servo --param kp=abc
bad_case "rtol" run pwm-servo --rtol -1
bad_case "'quad'" run pwm-servo --scalar quad
bad_case "preset 'nope'" run pwm-servo --preset nope
bad_case "t_end" run pwm-servo --t-end 0
bad_case "strategy 'nope'" run pwm-servo --strategy nope
bad_case "strategy 'nope'" compare pwm-servo --strategies bisection,nope
bad_case "solver 'nope'" compare pwm-servo --solvers dopri5,nope
bad_case "rtol" compare pwm-servo --rtol 0
bad_case "strategy 'nope'" workprecision pwm-servo --strategies nope
bad_case "reproduction 'nope'" reproduce nope
bad_case "parameter 'nope'" sweep pwm-servo --param nope=1:2:3
bad_case "--initial z" run bouncing-ball --initial z=1
bad_case "its states: y, v" run bouncing-ball --initial z=1
bad_case "--initial y" run bouncing-ball --initial y=abc
bad_case "its modes: s1, s2, s3" run pwm-servo --initial-mode s9
bad_case "--t0" run bouncing-ball --t0 nan
bad_case "--initial z" sweep bouncing-ball --param e=0.5:0.9:3 --initial z=1
bad_case "needs a reference" workprecision bouncing-ball --initial y=3
bad_case "'z' is not a state of the model (its states: y, v)" run bouncing-ball --atol z=1e-9
bad_case "atol of v > 0" run bouncing-ball --atol v=0
bad_case "state 'v' is given twice" run bouncing-ball --atol v=1e-9 --atol v=1e-8
# Contradictory or hostile options, each refused before anything is written.
bad_case "is out of range" run pwm-servo --event-limit 99999999999999999999
bad_case "underflows" run pwm-servo --param kp=1e-400
bad_case "malformed value ' 1'" run pwm-servo --param "kp= 1"
bad_case "0 < rtol < 1" run pwm-servo --rtol 1e300
bad_case "event_tolerance = 10" run pwm-servo --event-tolerance 10 --t-end 1
bad_case "max_step = 1e-300 would take more than 1e12 steps" run pwm-servo --max-step 1e-300
bad_case "fixed_step = 1e-300 would take more than 1e12 steps" run pwm-servo --solver rk4 --fixed-step 1e-300
bad_case "fixed_step = 0.5 exceeds max_step" run pwm-servo --solver rk4 --fixed-step 0.5 --max-step 0.01
bad_case "is below min_step" run pwm-servo --solver rk4 --fixed-step 0.01 --min-step 0.1
bad_case "h_min = 1e-300 is below the time resolution" run pwm-servo --strategy gamma --h-min 1e-300
bad_case "need 0 < D < T (D = 0.3, T = 0.2)" run diode-inductor --param D=0.3
bad_case "i0 must be >= 0" run diode-inductor --param i0=-1
bad_case "v_b must be > 0" run stick-slip --param v_b=-1
bad_case "need 0 < mu_k <= mu_s" run stick-slip --param mu_s=0.1
bad_case "e must lie in (0, 1]" run bouncing-ball --param e=0
if [ -w /dev/full ]; then
  "$HYSIM" run pwm-servo --t-end 1 >/dev/full 2>"$TMP/full.err"
  check "run > /dev/full exits 1" test $? -eq 1
  check "... saying that writing failed" grep -q "writing to standard output failed" "$TMP/full.err"
fi
"$HYSIM" run pwm-servo --t-end 100 --out "$TMP/piped" 2>"$TMP/piped.err" | head -1 >/dev/null
# A full disk (a 256 kB tmpfs, where this machine lets us mount one): exit 1 naming the file,
# not "wrote ...".
mkdir -p "$TMP/tiny"
if mount -t tmpfs -o size=256k tmpfs "$TMP/tiny" 2>/dev/null; then
  "$HYSIM" run pwm-servo --t-end 1000 --quiet --out "$TMP/tiny/run" >"$TMP/tiny.out" 2>"$TMP/tiny.err"
  check "run --out on a full disk exits 1" test $? -eq 1
  check "... naming the file that could not be written" \
    grep -q "hysim: error: write failed: $TMP/tiny/run/[a-z]*.csv: No space left on device" "$TMP/tiny.err"
  check "... and not claiming to have written it, nor to have reached t_end" \
    bash -c "! grep -q '^wrote\|reached t_end' '$TMP/tiny.out'"
  check "... stats.json says why, in the space its marker held" python3 -c "
import json, sys
s = json.load(open('$TMP/tiny/run/stats.json'))
sys.exit(0 if s['status'] == 'finished' and s['error'].startswith('write failed: ') else 1)"
  umount "$TMP/tiny"
else
  echo "note: no tmpfs can be mounted here; the full-disk check did not run"
fi
check "run | head -1 still writes stats.json" grep -q '"reason": "reached t_end"' "$TMP/piped/stats.json"
bad_case "atol > 0" run pwm-servo --atol 0 --solver bs3
"$HYSIM" run pwm-servo --t-end 0.1 --out "" >/dev/null 2>"$TMP/empty-out.err"
check "run --out \"\" exits 2" test $? -eq 2
check "... saying the folder's name is empty" grep -q "the folder's name is empty" "$TMP/empty-out.err"
bad_case "needs --draws" sweep pwm-servo --param kp=uniform:0.1:0.2
bad_case "count of FROM:TO:COUNT" sweep pwm-servo --param kp=0.1:0.2:0
bad_case "rtol" sweep pwm-servo --param kp=0.1:0.2:3 --rtol -1
"$HYSIM" run pwm-servo --strategy nope >/dev/null 2>&1
check "run --strategy nope exits 2" test $? -eq 2
"$HYSIM" compare pwm-servo --strategies nope >/dev/null 2>&1
check "compare --strategies nope exits 2" test $? -eq 2

# --- compare --------------------------------------------------------------------------------
CMP="$TMP/compare"
"$HYSIM" compare pwm-servo --t-end 1 --strategies bisection,step --solvers dopri5 --out "$CMP" \
  >"$TMP/compare.out" 2>"$TMP/compare.err"
check "compare exits 0" test $? -eq 0
check "compare prints a bisection row" grep -q "^dopri5 *bisection" "$TMP/compare.out"
expected_header="solver,strategy,events,matched,missed,spurious,dt1,dt7,domega1,domega7,dphi1,dphi7,dsaw1,dsaw7"
expected_header+=",max_abs_dt,one_sided,steps_accepted,steps_rejected,rhs_evals,guard_evals,root_iterations"
expected_header+=",wall_seconds,note"
check "compare.csv header" test "$(head -n 1 "$CMP/compare.csv" 2>/dev/null)" = "$expected_header"
check "compare.csv has one row per strategy" test "$(wc -l <"$CMP/compare.csv" 2>/dev/null)" -eq 3
IFS=, read -r _ _ events matched missed spurious _ <<<"$(grep '^dopri5,bisection,' "$CMP/compare.csv")"
check "compare: bisection found events (${events:-})" test "${events:-0}" -gt 0
check "compare: bisection matched them all (${matched:-} of ${events:-})" test "${matched:-x}" = "${events:-y}"
check "compare: bisection missed 0 (${missed:-})" test "${missed:-x}" = 0
check "compare: bisection spurious 0 (${spurious:-})" test "${spurious:-x}" = 0
python3 - "$CMP/compare.json" <<'EOF'
import json, sys
with open(sys.argv[1]) as f:
    report = json.load(f)
for key in ("model", "options", "reference", "runs", "solvers", "strategies"):
    assert key in report, f"missing key {key}"
runs = report["runs"]
assert [r["strategy"] for r in runs] == ["bisection", "step"], runs
bisection = runs[0]
for key in ("solver", "outcome", "stats", "matching", "errors", "max_abs_dt", "one_sided_share"):
    assert key in bisection, f"missing run key {key}"
assert bisection["matching"]["missed"] == 0 and bisection["matching"]["spurious"] == 0, bisection["matching"]
assert abs(bisection["errors"]["dt1"]) < 1e-12, bisection["errors"]
assert bisection["max_abs_dt"] < 1e-12, bisection["max_abs_dt"]
EOF
check "compare.json parses, two runs, bisection exact to 1e-12 s" test $? -eq 0

# --- reproduce ------------------------------------------------------------------------------
"$HYSIM" reproduce pwm-table1 --strategies bisection,gamma --out "$TMP/table1" >"$TMP/table1.out" 2>"$TMP/table1.err"
check "reproduce pwm-table1 exits 0" test $? -eq 0
# paper_row PLATFORM VALUE...: the row "004, Table 1  PLATFORM  VALUE ... -" is printed.
paper_row() {
  local pattern="^004, Table 1 +$1"
  shift
  for value in "$@"; do pattern+=" +${value//./\\.}"; done
  grep -qE -- "$pattern +-\$" "$TMP/table1.out"
}
check "reproduce: ISMA row of 004" paper_row "ISMA" 1.5e-06 1.3e-05 1.5e-04 8.4e-05 6.5e-06 7.1e-05
check "reproduce: SimInTech row of 004" paper_row "SimInTech" 9.5e-06 7.4e-06 2.0e-04 2.7e-05 4.3e-05 1.7e-05
check "reproduce: MATLAB row of 004" paper_row "MATLAB" -2.2e-11 -1.6e-10 -2.2e-09 2.0e-10 -4.3e-10 -2.3e-09
check "reproduce: Ptolemy II row of 004" paper_row "Ptolemy II" 4.0e-05 2.1e-04 2.5e-04 3.5e-04 1.8e-04 1.4e-04
check "reproduce: our bisection row" grep -qE "^hysim +dopri5 bisection +-?[0-9]" "$TMP/table1.out"
# `reproduce shpakov` reads models/rules under the working directory: each published number of
# 000-002 beside the interpreter, the engine and the exact value.
(cd "$(dirname "$0")/.." && "$HYSIM" reproduce shpakov --out "$TMP/shpakov") >"$TMP/shpakov.out" 2>&1
check "reproduce shpakov exits 0" test $? -eq 0
check "reproduce shpakov: 002, Table 1 at 30 degrees" \
  grep -qE "^002, Table 1 +pendulum, L = 2 m, 30 deg: period \[s\] +2\.88 +2\.88639[0-9]* +2\.8863955824[0-9]* +2\.8863955824" "$TMP/shpakov.out"
check "reproduce shpakov: 002, Table 2's 2.100 called out" grep -q "2.100 is an outlier" "$TMP/shpakov.out"
check "reproduce shpakov: shpakov.csv" test "$(wc -l <"$TMP/shpakov/shpakov.csv")" -ge 16
check "reproduce: our gamma row" grep -qE "^hysim +dopri5 gamma +-?[0-9]" "$TMP/table1.out"
check "reproduce --out writes pwm-table1.csv (header + 6 rows)" \
  test "$(wc -l <"$TMP/table1/pwm-table1.csv" 2>/dev/null)" -eq 7

# --- workprecision --------------------------------------------------------------------------
WP="$TMP/wp"
"$HYSIM" workprecision pwm-servo --t-end 0.5 --solvers dopri5 --strategies bisection,step --rtol-from 1e-3 \
  --rtol-to 1e-5 --out "$WP" >"$TMP/wp.out" 2>"$TMP/wp.err"
check "workprecision exits 0" test $? -eq 0
check "workprecision.csv header" test "$(head -n 1 "$WP/workprecision.csv" 2>/dev/null)" = \
  "solver,strategy,rtol,atol,max_abs_dt,missed,spurious,rhs_evals,steps,wall_seconds,error_per_rtol,reversal,proportional,note"
check "workprecision.csv: 2 strategies x 3 tolerances" test "$(wc -l <"$WP/workprecision.csv" 2>/dev/null)" -eq 7
check "workprecision.gp written" test -f "$WP/workprecision.gp"
check "workprecision.gp: RHS evaluations by default" grep -q "set ylabel 'RHS evaluations'" "$WP/workprecision.gp"
"$HYSIM" workprecision pwm-servo --t-end 0.5 --solvers dopri5 --strategies bisection --rtol-from 1e-3 \
  --rtol-to 1e-4 --work time --jobs 1 --out "$TMP/wp-time" >/dev/null 2>&1
check "workprecision --work time draws the wall time (column 10)" grep -q "):10 with linespoints" \
  "$TMP/wp-time/workprecision.gp"
"$HYSIM" workprecision pwm-servo --t-end 0.5 --work watts --out "$TMP/wp-bad" >"$TMP/wp-bad.out" 2>&1
check "workprecision --work watts exits 2, naming the choices" \
  sh -c "test $? -eq 2 && grep -q 'not one of evaluations, time' '$TMP/wp-bad.out'"
if command -v gnuplot >/dev/null 2>&1; then
  check "workprecision.png written (gnuplot is installed)" test -s "$WP/workprecision.png"
  "$HYSIM" run pwm-servo --t-end 0.2 --strategy gamma --out "$TMP/steps" >/dev/null 2>&1
  gnuplot -e "dir='$TMP/steps'" "$SCRIPTS/plot_steps.gp" 2>"$TMP/plot.err"
  check "scripts/plot_steps.gp draws steps.png" test -s "$TMP/steps/steps.png"
else
  echo "skip gnuplot is not installed: no PNG checks"
fi
# Without gnuplot on PATH: the CSV and the script, a note, exit 0.
PATH=/nonexistent "$HYSIM" workprecision pwm-servo --t-end 0.5 --solvers dopri5 --strategies bisection \
  --rtol-from 1e-3 --rtol-to 1e-4 --out "$TMP/wp-nognuplot" >"$TMP/wp2.out" 2>&1
check "workprecision without gnuplot exits 0" test $? -eq 0
check "workprecision without gnuplot says so" grep -q "gnuplot is not installed" "$TMP/wp2.out"
check "workprecision without gnuplot writes the CSV" test -f "$TMP/wp-nognuplot/workprecision.csv"
check "workprecision without gnuplot draws nothing" test ! -e "$TMP/wp-nognuplot/workprecision.png"
# Without --strategies: every strategy and the CVODE peer that suits the model, BDF for a stiff
# one, Adams otherwise (when the build has CVODE: `hysim list` names the peers).
if "$HYSIM" list | grep -q "^  cvode-adams "; then
  for pair in "stiff-relay cvode/BDF cvode/Adams" "drag-ball cvode/Adams cvode/BDF"; do
    read -r model drawn absent <<<"$pair"
    "$HYSIM" workprecision "$model" --t-end 1 --solvers dopri5 --rtol-from 1e-4 --rtol-to 1e-4 \
      --out "$TMP/wp-$model" >/dev/null 2>&1
    check "workprecision $model: draws $drawn" grep -q "^$drawn," "$TMP/wp-$model/workprecision.csv"
    check "workprecision $model: does not draw $absent" \
      test "$(grep -c "^$absent," "$TMP/wp-$model/workprecision.csv")" -eq 0
  done
fi
# --- wider scalars ------------------------------------------------------------------------
# 15 significant digits of the closed form (sqrt(6) - 2)/10 and of each run's first event.
expected=$(python3 -c 'import math; print("%.14e" % ((math.sqrt(6) - 2) / 10))')
for scalar in double long-double float128; do
  dir="$TMP/$scalar"
  "$HYSIM" run pwm-servo --t-end 1 --scalar "$scalar" --out "$dir" >/dev/null 2>"$TMP/$scalar.err"
  check "--scalar $scalar exits 0" test $? -eq 0
  first=$(sed -n 2p "$dir/events.csv" 2>/dev/null | cut -d, -f2)
  got=$(python3 -c 'import sys; print("%.14e" % float(sys.argv[1]))' "${first:-nan}" 2>/dev/null)
  check "--scalar $scalar first event $first = $expected to 15 digits" test "$got" = "$expected"
done

# --- logging ----------------------------------------------------------------------------
"$HYSIM" run pwm-servo --t-end 1 -v >/dev/null 2>"$TMP/verbose.err"
check "-v exits 0" test $? -eq 0
check "-v logs transitions on stderr (event 1)" grep -q "event 1 " "$TMP/verbose.err"
check "-v logs the first transition s1 -> s3" grep -q "s1 -> s3" "$TMP/verbose.err"
# An explicit solver on a stiff model: one warning on stderr without -v, naming the stiff
# solvers, and the same line in stats.json; the run goes on to its end.
"$HYSIM" run "$(dirname "$0")/../models/robertson.hym" --t-end 100 --solver dopri5 --quiet --out "$TMP/stiff" \
  >"$TMP/stiff.out" 2>"$TMP/stiff.err"
check "dopri5 on Robertson exits 0" test $? -eq 0
check "... and reaches t_end" grep -q "reached t_end at t = 100" "$TMP/stiff.out"
check "... saying once on stderr that the problem is stiff" \
  test "$(grep -c '^\[warning\] .*dopri5 finds the problem stiff.*rosenbrock4 or ndf.*--strategy cvode' "$TMP/stiff.err")" = 1
check "... and in stats.json" python3 -c "
import json, sys
w = json.load(open('$TMP/stiff/stats.json')).get('warnings', [])
sys.exit(0 if len(w) == 1 and 'dopri5 finds the problem stiff' in w[0] else 1)"
"$HYSIM" run pwm-servo --t-end 1 --out "$TMP/calm" >/dev/null 2>"$TMP/calm.err"
check "a non-stiff run warns of nothing" test ! -s "$TMP/calm.err"
check "... and its stats.json has no warnings" python3 -c "
import json, sys
sys.exit('warnings' in json.load(open('$TMP/calm/stats.json')))"

# --- model files ----------------------------------------------------------------------------
# A model file runs like the built-in model it twins, to the same bits; a bad file exits 2 with
# file:line:column and a caret on stderr, writes nothing and creates no output directory.
MODELS=$(cd "$(dirname "$0")/../models" && pwd)
"$HYSIM" run "$MODELS/pwm-servo.hym" --t-end 1 --out "$TMP/file-pwm" >/dev/null 2>"$TMP/file.err"
check "run FILE.hym exits 0" test $? -eq 0
first_file=$(sed -n 2p "$TMP/file-pwm/events.csv" 2>/dev/null | cut -d, -f2-)
first_builtin=$(sed -n 2p "$TMP/double/events.csv" 2>/dev/null | cut -d, -f2-)
check "the file's first event equals the built-in model's ($first_builtin)" test "$first_file" = "$first_builtin"
check "check FILE.hym exits 0" "$HYSIM" check "$MODELS/pwm-servo.hym"
"$HYSIM" list "$MODELS/pwm-servo.hym" >"$TMP/list-file.out" 2>&1
check "list FILE.hym prints the transitions" grep -q "s1 -> s3  p3" "$TMP/list-file.out"
printf 'model m\nstate x = 1\nmode a { der(x) = y }\n' >"$TMP/bad.hym"
"$HYSIM" run "$TMP/bad.hym" --out "$TMP/bad-out" >"$TMP/bad.out" 2>"$TMP/bad.err"
check "a bad model file exits 2" test $? -eq 2
check "a bad model file names file:line:column" grep -q "bad.hym:3:19: error: unknown name 'y'" "$TMP/bad.err"
check "a bad model file shows a caret" grep -q "^ *\^$" "$TMP/bad.err"
check "a bad model file prints nothing on stdout" test ! -s "$TMP/bad.out"
check "a bad model file creates no output directory" test ! -e "$TMP/bad-out"
"$HYSIM" run "$TMP/missing.hym" >/dev/null 2>"$TMP/missing.err"
check "a missing model file exits 2" test $? -eq 2
check "a missing model file is named" grep -q "missing.hym" "$TMP/missing.err"

# --- rule tables (docs/rule-tables.md) ----------------------------------------------------------
"$HYSIM" run "$MODELS/rules/exponential.rules.tsv" --dt 1e-3 --out "$TMP/rules" >"$TMP/rules.out" 2>&1
check "run TABLE.rules.tsv exits 0" test $? -eq 0
check "run TABLE.rules.tsv reports the interpreter's cycles" grep -q "ran 3000 cycles of dt = 0.001" "$TMP/rules.out"
check "run TABLE.rules.tsv writes trajectory.csv with its variables" grep -q "^t,Y$" "$TMP/rules/trajectory.csv"
check "run TABLE.rules.tsv writes one row per cycle and t = 0" test "$(wc -l <"$TMP/rules/trajectory.csv")" -eq 3002
check "run TABLE.rules.tsv writes stats.json" grep -q '"cycles": 3000' "$TMP/rules/stats.json"
"$HYSIM" run "$MODELS/rules/exponential.rules.tsv" --strategy bisection >"$TMP/rules-engine.out" 2>&1
check "run TABLE.rules.tsv --strategy runs it on the engine to the table's t_end" grep -q "exponential: reached t_end at t = 3 in mode 'run'" "$TMP/rules-engine.out"
"$HYSIM" run "$MODELS/rules/exponential.rules.tsv" --strategy bisection --dt 1e-3 >/dev/null 2>"$TMP/rules-dt.err"
check "--dt with an engine strategy exits 2" test $? -eq 2
"$HYSIM" run "$MODELS/rules/exponential.rules.tsv" --param Y=2 --t-end 1 >"$TMP/rules-param.out" 2>&1
check "--param sets a table's initial value by its name: y(1) = 2 (1 + 1e-4)^1e4" grep -qE "^  Y = 5\.43(6|5)" "$TMP/rules-param.out"
"$HYSIM" run "$MODELS/rules/exponential.rules.tsv" --param Z=2 >/dev/null 2>"$TMP/rules-param.err"
check "--param naming no variable of the table exits 2" test $? -eq 2
check "... and names the table" grep -q "exponential.rules.tsv" "$TMP/rules-param.err"
# Six relays, each integrated by the next variable: more switches than the compiler splits into
# modes, and coupled (a surface's rate reads another relay), so no switch parts either; the
# engine's translation says so.
printf '[initial]\na\t1\nb\t2\nc\t3\nd\t4\ne\t5\nf\t6\n[rules]\nNo\tVariable\tProcedure\tArgument 1\n' >"$TMP/six.rules.tsv"
n=0
for pair in a:b b:c c:d d:e e:f f:a; do
  v=${pair%:*} w=${pair#*:}
  printf '%d\tr%s\trelay\t%s\n%d\t%s\tintegral\tr%s\n' $((n + 1)) "$v" "$v" $((n + 2)) "$w" "$v" >>"$TMP/six.rules.tsv"
  n=$((n + 2))
done
"$HYSIM" check "$TMP/six.rules.tsv" >"$TMP/six.out" 2>&1
check "check TABLE warns of switches the engine steps across" grep -q "switches on 6 conditions; more than 5 are stepped across" "$TMP/six.out"
"$HYSIM" check "$MODELS/rules/lorenz.rules.tsv" >"$TMP/rules-check.out" 2>&1
check "check TABLE.rules.tsv reads it and says where it runs" grep -q "9 rules" "$TMP/rules-check.out"
printf '[rules]\nNo\tVariable\tProcedure\tArgument 1\n1\tx\tintegrl\t1\n' >"$TMP/bad.rules.tsv"
"$HYSIM" run "$TMP/bad.rules.tsv" --out "$TMP/bad-rules" >"$TMP/bad-rules.out" 2>"$TMP/bad-rules.err"
check "a bad rule table exits 2" test $? -eq 2
check "a bad rule table names file:line:column and the procedure" grep -q "bad.rules.tsv:3:5: error: .*unknown procedure 'integrl'" "$TMP/bad-rules.err"
check "a bad rule table creates no output directory" test ! -e "$TMP/bad-rules"

# A model without an exact reference is measured against a float128 run of itself.
EXAMPLES=$(cd "$(dirname "$0")/../examples" && pwd)
"$HYSIM" run "$EXAMPLES/relay-feedback.hym" --scalar float128 --rtol 1e-22 --atol 1e-26 --t-end 10 \
  --out "$TMP/relay-ref" >/dev/null 2>&1
"$HYSIM" compare "$EXAMPLES/relay-feedback.hym" --t-end 10 --solvers dopri5 --strategies gamma-refine,bisection \
  --reference "$TMP/relay-ref/events.csv" --out "$TMP/relay-compare" >"$TMP/relay-compare.out" 2>&1
check "compare FILE --reference exits 0" test $? -eq 0
check "compare FILE --reference matches every event, none missed" \
  awk -F, 'NR > 1 && ($5 != 0 || $6 != 0 || $3 != $4) { bad = 1 } END { exit bad }' "$TMP/relay-compare/compare.csv"
"$HYSIM" compare "$EXAMPLES/relay-feedback.hym" --t-end 10 --reference "$TMP/file-pwm/events.csv" >/dev/null 2>"$TMP/badref.err"
check "--reference of another model exits 2" test $? -eq 2
check "--reference of another model says why" grep -q "is not the events.csv of a run of this model" "$TMP/badref.err"

# --- long runs: the table streams, memory does not grow with the horizon ----------------------
"$HYSIM" run pwm-servo --t-end 30 --table short >"$TMP/short.out" 2>&1
check "--table short abbreviates past 40 rows" grep -q "rows not shown; --table all prints every row" "$TMP/short.out"
# The last row is the event the summary counts (past 9 s the servo's events are rounding noise,
# so their number is read, not fixed).
last_event=$(sed -n 's/.* after \([0-9]*\) events$/\1/p' "$TMP/short.out")
check "--table short prints the last row (event $last_event)" grep -q "^${last_event:-none} " "$TMP/short.out"
"$HYSIM" run pwm-servo --t-end 30 --out "$TMP/all" >"$TMP/all.out" 2>&1
rows=$(($(wc -l <"$TMP/all/events.csv") - 1))
check "off a terminal the table has every row ($rows, as events.csv)" test "$(grep -c '^[0-9]' "$TMP/all.out")" -eq "$rows"
"$HYSIM" run pwm-servo --t-end 1 --quiet --out "$TMP/quiet" --files events,stats >"$TMP/quiet.out" 2>&1
check "--quiet prints no table" bash -c "! grep -q '^event' '$TMP/quiet.out'"
check "--files events,stats writes only those" bash -c "test -f '$TMP/quiet/events.csv' -a -f '$TMP/quiet/stats.json' -a ! -e '$TMP/quiet/trajectory.csv' -a ! -e '$TMP/quiet/steps.csv'"
"$HYSIM" run pwm-servo --t-end 1 --files events,bogus >/dev/null 2>"$TMP/files.err"
check "--files with an unknown name exits 2" test $? -eq 2
# peak_kb COMMAND...: the peak resident memory (kB) of a command, its output discarded. Under
# AddressSanitizer (scripts/sanitize.sh) freed blocks wait in a quarantine of up to 256 MB, which
# fills with the frees of a longer run: it is off for these measurements (ignored otherwise).
peak_kb() {
  ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=0:thread_local_quarantine_size_kb=0" python3 -c 'import resource, subprocess, sys
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)' "$@"
}
# Peak memory (kB) of a run to t_end, with every file written: 30 times the horizon, the same memory.
peak() { peak_kb "$HYSIM" run pwm-servo --t-end "$1" --out "$TMP/rss$1"; }
short=$(peak 100)
long=$(peak 3000)
check "peak memory at t_end 3000 ($long kB) within 1.2x of t_end 100 ($short kB)" \
  python3 -c "import sys; sys.exit(0 if $long <= 1.2 * $short else 1)"

# --- sweep -----------------------------------------------------------------------------------
# 1000 runs of the PWM servo over kp: the summary is the same on 1 and 2 threads (every column
# but the wall time, the last), and so are 50 random draws with one seed; another seed differs.
for j in 1 2; do
  "$HYSIM" sweep pwm-servo --param kp=0.05:0.2:1000 --t-end 2 --jobs $j --out "$TMP/sweep$j" 2>"$TMP/sweep$j.err"
  check "sweep --jobs $j exits 0" test $? -eq 0
  "$HYSIM" sweep pwm-servo --param kp=uniform:0.05:0.2 --param u=normal:1:0.1 --draws 50 --seed 7 --t-end 1 --jobs $j \
    >"$TMP/draws$j.csv" 2>/dev/null
done
check "sweep: 1001 lines" test "$(wc -l <"$TMP/sweep1/summary.csv")" -eq 1001
check "sweep: summary.json holds the same 1000 runs as summary.csv" python3 -c "
import csv, json, sys
rows = list(csv.DictReader(open('$TMP/sweep1/summary.csv')))
objs = json.load(open('$TMP/sweep1/summary.json'))
sys.exit(0 if len(objs) == len(rows) == 1000 and all(float(r['kp']) == o['kp'] and r['reason'] == o['reason'] and int(r['events']) == o['events'] for r, o in zip(rows, objs)) else 1)"
check "sweep: --jobs 1 and 2 give the same summary" \
  cmp <(rev "$TMP/sweep1/summary.csv" | cut -d, -f2- | rev) <(rev "$TMP/sweep2/summary.csv" | cut -d, -f2- | rev)
check "sweep --draws: --jobs 1 and 2 draw the same values" \
  cmp <(rev "$TMP/draws1.csv" | cut -d, -f2- | rev) <(rev "$TMP/draws2.csv" | cut -d, -f2- | rev)
"$HYSIM" sweep pwm-servo --param kp=uniform:0.05:0.2 --draws 5 --seed 8 --t-end 0.1 >"$TMP/draws8.csv" 2>/dev/null
check "sweep --draws: another seed draws other values" test "$(sed -n 2p "$TMP/draws8.csv" | cut -d, -f2)" != "$(sed -n 2p "$TMP/draws1.csv" | cut -d, -f2)"
# compare and workprecision run their combinations on every core: the same numbers as on one.
same_but_wall() {
  python3 - "$1" "$2" <<'PY'
import csv, sys
def rows(path):
    out = []
    for row in csv.DictReader(open(path)):
        row.pop("wall_seconds", None)
        out.append(row)
    return out
sys.exit(0 if rows(sys.argv[1]) == rows(sys.argv[2]) and rows(sys.argv[1]) else 1)
PY
}
for j in 1 2; do
  "$HYSIM" compare pwm-servo --t-end 2 --jobs $j --out "$TMP/cmp$j" >/dev/null 2>&1
  "$HYSIM" workprecision drag-ball --strategies gamma-refine,bisection --solvers dopri5,bs3 --rtol-from 1e-4 --rtol-to 1e-8 \
    --jobs $j --out "$TMP/wp$j" >/dev/null 2>&1
done
check "compare --jobs 1 and 2: the same table but the wall times" same_but_wall "$TMP/cmp1/compare.csv" "$TMP/cmp2/compare.csv"
check "workprecision --jobs 1 and 2: the same points but the wall times" \
  same_but_wall "$TMP/wp1/workprecision.csv" "$TMP/wp2/workprecision.csv"
# A sweep's memory does not grow with its runs: 200,000 runs within 1.2x of 2,000.
sweep_peak() { peak_kb "$HYSIM" sweep exponential --param "y0=0.5:2:$1" --t-end 0.01 --out "$TMP/sweep-rss$1"; }
few=$(sweep_peak 2000)
many=$(sweep_peak 200000)
check "sweep: peak memory of 200000 runs ($many kB) within 1.2x of 2000 runs ($few kB)" \
  python3 -c "import sys; sys.exit(0 if $many <= 1.2 * $few else 1)"
rm -rf "$TMP"/sweep-rss*
"$HYSIM" sweep pwm-servo --param kp=0.05:0.2:3 --t-end 0.5 --run-files --out "$TMP/sweep-files" 2>/dev/null
check "sweep --run-files: each run's events.csv ends at the summary's event count" python3 -c "
import csv, sys
rows = list(csv.DictReader(open('$TMP/sweep-files/summary.csv')))
ok = len(rows) == 3
for r in rows:
    events = list(csv.DictReader(open('$TMP/sweep-files/runs/' + r['run'] + '/events.csv')))
    ok = ok and int(events[-1]['index']) == int(r['events'])
sys.exit(0 if ok else 1)"
check "sweep: says how many runs per second" grep -q "sweep: 1000 runs of pwm-servo in .* runs/s) on 2 threads; 0 failed" "$TMP/sweep2.err"

# --check-tolerance: the run again ten times tighter, its events matched with the run's. The
# grazing crests at rtol 1e-3 (2e-4 above the threshold, below what the tolerance resolves)
# differ and exit 3, naming the first event without a partner; at rtol 1e-6 they agree, and
# the estimated error is printed and written to stats.json.
"$HYSIM" run grazing --t-end 20 --solver cashkarp54 --rtol 1e-3 --atol 1e-6 --check-tolerance --table none \
  >"$TMP/tolcheck.out" 2>&1
status=$?
check "--check-tolerance: grazing at rtol 1e-3 exits 3 (got $status)" test "$status" -eq 3
check "--check-tolerance: says the events are not resolved, naming an event" \
  grep -q "tolerance check: the run again at rtol 1e-04, atol 1e-07 finds 6 event(s).*has no partner.*tighten them" \
  "$TMP/tolcheck.out"
"$HYSIM" run grazing --t-end 20 --solver cashkarp54 --rtol 1e-6 --atol 1e-9 --check-tolerance --table none \
  --out "$TMP/tolcheck" >"$TMP/tolcheck.out" 2>&1
check "--check-tolerance: grazing at rtol 1e-6 exits 0" test $? -eq 0
check "--check-tolerance: prints the estimated error" grep -q "finds the same 6 event(s); estimated event-time error" \
  "$TMP/tolcheck.out"
check "--check-tolerance: stats.json holds the verdict" python3 -c "
import json, sys
c = json.load(open('$TMP/tolcheck/stats.json'))['tolerance_check']
sys.exit(0 if c['resolved'] and c['matched'] == 6 and 0 < c['max_dt'] < 1e-3 and c['rtol'] == 1e-7 else 1)"
"$HYSIM" run "$MODELS/rules/exponential.rules.tsv" --check-tolerance >"$TMP/tolcheck.out" 2>&1
check "--check-tolerance on the rule interpreter exits 2" test $? -eq 2

# SIGINT and SIGTERM: tests/stop_test.sh.
# On a terminal (a pseudo-terminal from script(1)) a long run shows its progress on stderr.
if command -v script >/dev/null; then
  timeout 30 script -qc "'$HYSIM' run pwm-servo --t-end 40000 --quiet" /dev/null >"$TMP/progress.out" 2>&1
  check "a run longer than a second shows its progress on a terminal" grep -q "% of t_end), [0-9]* events" "$TMP/progress.out"
fi

echo "$failures failure(s)"
[ "$failures" -eq 0 ] || exit 1
exit 0
