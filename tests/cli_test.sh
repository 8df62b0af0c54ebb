#!/usr/bin/env bash
# The hysim command-line program end to end (apps/main.cpp, apps/recorder.cpp):
#   - `hysim list` names every model;
#   - `hysim run pwm-servo --out DIR` writes events.csv, trajectory.csv and stats.json with the
#     documented headers and keys; the first event is the PWM switch s1 -> s3 (guard p3) at the
#     closed-form time t = (sqrt(6) - 2)/10 = 0.0449489742783178... (004, Eqs. 4-9: in s1
#     omega = 100 t, phi = 50 t^2, saw = t, and p3 fires when kp (u - k omega - phi) = saw,
#     i.e. 5 t^2 + 2 t - 0.1 = 0), printed with 17 significant digits in double;
#   - every bad argument exits non-zero with one line on stderr naming the culprit, prints
#     nothing on stdout and creates no output directory;
#   - --scalar long-double and float128 runs agree with the closed form to 15 digits;
#   - -v logs transitions on stderr, the default logs nothing.
# Usage: cli_test.sh PATH_TO_HYSIM. Exit status 1 when any check fails.
set -u

HYSIM=${1:?usage: cli_test.sh PATH_TO_HYSIM}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
failures=0

pass() { echo "ok   $1"; }
fail() {
  echo "FAIL $1"
  failures=$((failures + 1))
}
# check DESCRIPTION COMMAND...: passes when COMMAND succeeds.
check() {
  local what=$1
  shift
  if "$@"; then pass "$what"; else fail "$what"; fi
}

# --- hysim list -------------------------------------------------------------------------
"$HYSIM" list >"$TMP/list.out" 2>"$TMP/list.err"
check "list exits 0" test $? -eq 0
for model in pwm-servo bouncing-ball exponential oscillator; do
  check "list names $model" grep -qx "$model" "$TMP/list.out"
done

# --- a good run ---------------------------------------------------------------------------
OUT="$TMP/run"
"$HYSIM" run pwm-servo --t-end 1 --out "$OUT" >"$TMP/run.out" 2>"$TMP/run.err"
check "run pwm-servo exits 0" test $? -eq 0
check "run pwm-servo logs nothing on stderr by default" test ! -s "$TMP/run.err"
check "events.csv written" test -f "$OUT/events.csv"
check "trajectory.csv written" test -f "$OUT/trajectory.csv"
check "stats.json written" test -f "$OUT/stats.json"

header=$(head -n 1 "$OUT/events.csv" 2>/dev/null)
check "events.csv header" test "$header" = "index,t,from,to,class,guard,omega,phi,saw,omega+,phi+,saw+"
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
EOF
check "stats.json parses and has model, options, stats{...}" test $? -eq 0

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

echo "$failures failure(s)"
[ "$failures" -eq 0 ] || exit 1
exit 0
