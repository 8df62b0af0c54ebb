#!/usr/bin/env bash
# Every run ends and says why, and keeps what it computed (issue 15; apps/stop.hpp, apps/main.cpp):
#   - --time-limit stops run, compare (workprecision: the same runs) and sweep at their next step: exit 124, one
#     line on stderr, stats.json (run) or the rows (sweep) say interrupted, files complete;
#   - a command stuck where it does not poll for a stop (compare reading its --reference from a
#     FIFO nobody writes) is ended 5 s after its time limit with a message, exit 124;
#   - a bad --time-limit exits 2 naming it; SIGINT and SIGTERM exit 130 and 143, stats.json
#     interrupted, the events computed so far written;
#   - the rest of the hostile-user list (--t-end 1e308, an event tolerance below the time
#     resolution at t_end, cvode in float128, --t-end "",
#     --out naming a file): exit 2, one line naming the culprit, no folder; --min-step holds
#     for the steps the solver chooses;
#   - under `ulimit -v` a long run (400 MB of rows before the outputs were streamed) ends
#     normally in 100 MB with every row; a model too large for the limit ends with
#     "out of memory", exit 1 and no files (skipped under AddressSanitizer, whose shadow memory
#     needs terabytes of address space).
# Usage: stop_test.sh PATH_TO_HYSIM. Exit status 1 when any check fails.
set -u
HYSIM=${1:?usage: stop_test.sh PATH_TO_HYSIM}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
failures=0
check() {
  local what=$1
  shift
  if "$@"; then echo "ok   $what"; else echo "FAIL $what"; failures=$((failures + 1)); fi
}

start=$(date +%s%N)
"$HYSIM" run pwm-servo --t-end 1e6 --time-limit 1 --quiet --out "$TMP/limited" >/dev/null 2>"$TMP/limited.err"
code=$?
ms=$((($(date +%s%N) - start) / 1000000))
check "run --time-limit 1 exits 124" test $code -eq 124
check "run --time-limit 1 ends within 3 s ($ms ms)" test $ms -lt 3000
check "run --time-limit says where the run stopped" grep -q "time limit (1 s): the run stopped at t = " "$TMP/limited.err"
check "run --time-limit leaves stats.json with reason interrupted" grep -q '"reason": "interrupted"' "$TMP/limited/stats.json"
check "run --time-limit leaves events.csv with complete rows" python3 -c "
import csv, sys
rows = list(csv.reader(open('$TMP/limited/events.csv')))
sys.exit(0 if len(rows) > 100 and all(len(r) == len(rows[0]) for r in rows) else 1)"

"$HYSIM" sweep pwm-servo --param kp=0.05:0.2:4 --t-end 1e5 --jobs 2 --time-limit 1 >"$TMP/sweep.csv" 2>"$TMP/sweep.err"
check "sweep --time-limit exits 124" test $? -eq 124
check "sweep --time-limit: every run has its row, interrupted or (not started) not_run" python3 -c "
import csv, sys
rows = list(csv.DictReader(open('$TMP/sweep.csv')))
reasons = [r['reason'] for r in rows]
sys.exit(0 if len(rows) == 4 and reasons[:2] == ['interrupted'] * 2 and reasons[2:] == ['not_run'] * 2 else 1)"
check "sweep --time-limit says so" grep -q "time limit (1 s): the command stopped early" "$TMP/sweep.err"

"$HYSIM" compare pwm-servo --t-end 1e6 --solvers dopri5 --strategies bisection --time-limit 1 --out "$TMP/compare" \
  >/dev/null 2>"$TMP/compare.err"
check "compare --time-limit exits 124" test $? -eq 124
check "compare --time-limit: the run's row says interrupted" grep -q "interrupted" "$TMP/compare/compare.csv"

mkfifo "$TMP/fifo"
start=$(date +%s%N)
"$HYSIM" compare pwm-servo --t-end 1 --reference "$TMP/fifo" --time-limit 1 >/dev/null 2>"$TMP/fifo.err"
code=$?
ms=$((($(date +%s%N) - start) / 1000000))
check "compare stuck on a reference that never comes: exit 124" test $code -eq 124
check "... after the time limit and its 5 s of grace ($ms ms)" test $ms -ge 5900 -a $ms -lt 9000
check "... saying why" grep -q "time limit (1 s) reached, and the command did not stop within 5 s" "$TMP/fifo.err"

"$HYSIM" run pwm-servo --time-limit -1 >"$TMP/bad.out" 2>"$TMP/bad.err"
check "--time-limit -1 exits 2" test $? -eq 2
check "--time-limit -1 names the option" grep -q -- "--time-limit" "$TMP/bad.err"

# SIGINT and SIGTERM stop a run cleanly at its next step: files flushed, stats.json says so,
# exit 128 + the signal's number.
for signal in INT TERM; do
  "$HYSIM" run pwm-servo --t-end 1e6 --quiet --out "$TMP/sig$signal" >/dev/null 2>"$TMP/sig$signal.err" &
  pid=$!
  sleep 1
  kill -"$signal" "$pid"
  wait "$pid"
  code=$?
  number=$(kill -l "$signal")
  check "SIG$signal exits 128 + $number" test $code -eq $((128 + number))
  check "SIG$signal says where the run stopped" grep -q "SIG$signal: the run stopped at t = " "$TMP/sig$signal.err"
  check "SIG$signal leaves stats.json with reason interrupted" grep -q '"reason": "interrupted"' "$TMP/sig$signal/stats.json"
  check "SIG$signal leaves the events computed so far" test "$(wc -l <"$TMP/sig$signal/events.csv")" -gt 100
done

# The rest of the hostile-user list of issue 15: each exits 2 with one line naming the
# culprit, before any file is written.
# refused CULPRIT ARGS...: `hysim ARGS... --out DIR` exits 2, says CULPRIT, creates no DIR.
refused() {
  local culprit=$1
  shift
  rm -rf "$TMP/refused"
  "$HYSIM" "$@" --out "$TMP/refused" >"$TMP/refused.out" 2>"$TMP/refused.err"
  local code=$?
  check "$* exits 2 ($code)" test $code -eq 2
  check "... in one line naming $culprit" bash -c "test \$(wc -l <'$TMP/refused.err') -eq 1 && grep -qF -- \"$culprit\" '$TMP/refused.err'"
  check "... and writes no folder" test ! -e "$TMP/refused"
}
# Under gamma a horizon this long leaves its least step h_min below 16 ulps of t: refused,
# naming both options. The other strategies do not read h_min (their runs end by --time-limit).
refused "h_min = 1e-06 is below the time resolution" run pwm-servo --strategy gamma --t-end 1e308
refused "raise --h-min or shorten --t-end" run cam-follower --strategy gamma --t-end 1e308
refused "event_tolerance = 1e-12 is below the time resolution" run pwm-servo --event-tolerance 1e-12 --t-end 1e5
refused "strategy cvode runs in double only" run pwm-servo --strategy cvode --scalar float128
refused "t-end" run pwm-servo --t-end ""
refused "time-limit" run pwm-servo --time-limit nan
# --min-step holds for the steps the solver chooses, not only after a rejection: with
# --min-step 0.01 no step limited by the integrator is shorter (before, the starting-step
# estimate took 1e-4 s and the proposals grew from there).
"$HYSIM" run pwm-servo --min-step 0.01 --t-end 2 --quiet --out "$TMP/min-step" >/dev/null 2>&1
check "--min-step 0.01: no step the integrator chose is shorter" python3 -c "
import csv, sys
rows = [r for r in csv.DictReader(open('$TMP/min-step/steps.csv')) if r['limit'] == 'integrator']
sys.exit(0 if rows and all(float(r['h']) >= 0.01 for r in rows) else 1)"
touch "$TMP/a-file"
"$HYSIM" run pwm-servo --t-end 1 --out "$TMP/a-file" >/dev/null 2>"$TMP/a-file.err"
check "--out naming a file exits 2" test $? -eq 2
check "... saying it is not a folder" grep -q "a-file" "$TMP/a-file.err"

if ldd "$HYSIM" | grep -q libasan; then
  echo "skip ulimit -v checks: AddressSanitizer reserves terabytes of address space"
else
  (ulimit -v 100000 && exec "$HYSIM" run pwm-servo --t-end 20000 --quiet --out "$TMP/long") >/dev/null 2>"$TMP/long.err"
  check "under ulimit -v 100000 a run of 20000 s (about 400,000 events) ends normally" test $? -eq 0
  check "... with every row: stats.json's event count is events.csv's last index" python3 -c "
import csv, json, sys
rows = list(csv.DictReader(open('$TMP/long/events.csv')))
stats = json.load(open('$TMP/long/stats.json'))
sys.exit(0 if stats['result']['reason'] == 'reached t_end' and int(rows[-1]['index']) == stats['stats']['events'] > 300000 else 1)"
  python3 -c "
n = 200000
print('model big')
print('state ' + ', '.join(f'x{i} = 1' for i in range(n)))
print('mode a { ' + '; '.join(f'der(x{i}) = -x{i}' for i in range(n)) + ' }')" >"$TMP/big.hym"
  (ulimit -v 100000 && exec "$HYSIM" run "$TMP/big.hym" --t-end 1 --out "$TMP/big") >/dev/null 2>"$TMP/big.err"
  check "a model too large for ulimit -v 100000 exits 1" test $? -eq 1
  check "... saying out of memory" grep -q "hysim: error: out of memory" "$TMP/big.err"
  check "... with no output folder" test ! -e "$TMP/big"
fi

echo "$failures failure(s)"
[ "$failures" -eq 0 ]
