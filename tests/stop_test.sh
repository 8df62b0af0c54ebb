#!/usr/bin/env bash
# Every run ends and says why, and keeps what it computed (hysim/study/stop.hpp, apps/main.cpp):
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
#   - every run ends (the checks after the hostile-user list): SIGHUP and SIGXFSZ stop the engine,
#     and SIGINT, SIGTERM, SIGHUP, SIGXFSZ and --time-limit the rule interpreter, CVODE's loop, a
#     step of 1e9 samples and --refine-gamma 1e-300, each within 2 s: exit 128 + N (124),
#     stats.json interrupted; the rule interpreter writing to /dev/full or past ulimit -f exits 1
#     naming the file and why, stats.json failed; an accepted step below the minimum step (der(x) = 1e200 with
#     each adaptive solver, --atol 1e-300, --param k_w=1e300, float128 --atol 1e-4000) exits 1
#     naming mode and t within 10 s; --chain-limit and --zeno-events 1e9 allocate nothing up front; --jobs 50000
#     and threads the system refuses give every row; 100,000 lets last-first are refused with
#     their place under a 2 MiB stack; 40,000 modes build in well under 20 s;
#   - under `ulimit -v` a long run (400 MB of rows before the outputs were streamed) ends
#     normally in 100 MB with every row; a model too large for the limit ends with
#     "out of memory", exit 1 and no files (skipped under AddressSanitizer, whose shadow memory
#     needs terabytes of address space).
# Usage: stop_test.sh PATH_TO_HYSIM. Exit status 1 when any check fails.
set -u
HYSIM=${1:?usage: stop_test.sh PATH_TO_HYSIM}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
source "$(dirname "$0")/checks.sh"  # check DESCRIPTION COMMAND...; $failures

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

# The rest of a hostile user's list: each exits 2 with one line naming the
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

# Every run ends: signals reach every loop that runs long, and each ends with its reason.
# SIGINT, SIGTERM, SIGHUP and SIGXFSZ stop the engine, CVODE's loop, a step of 1e9 samples and
# the rule interpreter at their next step or cycle: exit 128 + the signal's number, stats.json
# interrupted. The runs start together and are signalled after 1 s, to keep the test short.
RULES=$(dirname "$0")/../models/rules
declare -A pids=()
watchdogs=()
start_stopped() {  # NAME ARGS...: `hysim ARGS... --out $TMP/NAME` in the background (no timeout(1):
  local name=$1   # it would take the signals itself); killed after 20 s if it is still running
  shift
  "$HYSIM" "$@" --out "$TMP/$name" >/dev/null 2>"$TMP/$name.err" &
  pids[$name]=$!
  (sleep 20 && kill -KILL "${pids[$name]}") >/dev/null 2>&1 &
  watchdogs+=($!)
}
for signal in HUP XFSZ; do
  start_stopped "engine-$signal" run pwm-servo --t-end 1e6 --quiet
done
for signal in INT TERM HUP XFSZ; do
  start_stopped "rules-$signal" run "$RULES/thermostat.rules.tsv" --t-end 1e5 --output-step 1 --quiet
done
start_stopped cvode-TERM run pwm-servo --strategy cvode --t-end 1e6 --quiet
start_stopped sampled-TERM run pwm-servo --strategy sampled --samples 1000000000 --t-end 10 --quiet
start_stopped refine-TERM run pwm-servo --refine-gamma 1e-300 --t-end 10 --quiet
# Signal each run only once it has made its output folder, which it does after installing its
# signal handlers: a signal before them ends it unheard (or, SIGINT in a background job, is
# ignored), and nine runs starting at once under the sanitizers on two cores take seconds.
for _ in $(seq 150); do
  ready=1
  for name in "${!pids[@]}"; do [ -d "$TMP/$name" ] || ready=0; done
  [ "$ready" = 1 ] && break
  sleep 0.1
done
sleep 1
start=$(date +%s%N)
for name in "${!pids[@]}"; do kill -"${name##*-}" "${pids[$name]}"; done
for name in $(printf '%s\n' "${!pids[@]}" | sort); do
  wait "${pids[$name]}"
  code=$?
  signal=${name##*-}
  number=$(kill -l "$signal")
  check "$name: SIG$signal exits 128 + $number ($code)" test $code -eq $((128 + number))
  check "... says where it stopped" grep -q "SIG$signal: the .* stopped at t = " "$TMP/$name.err"
  check "... stats.json says interrupted" grep -q '"reason": "interrupted"' "$TMP/$name/stats.json"
done
ms=$((($(date +%s%N) - start) / 1000000))
kill "${watchdogs[@]}" 2>/dev/null
check "... every one within 2 s of its signal ($ms ms)" test $ms -lt 2000
check "the rule interpreter keeps the rows of the cycles it ran" test "$(wc -l <"$TMP/rules-TERM/trajectory.csv")" -gt 2

start=$(date +%s%N)
timeout 20 "$HYSIM" run "$RULES/thermostat.rules.tsv" --t-end 1e5 --output-step 1 --time-limit 1 --quiet \
  --out "$TMP/rules-limit" >/dev/null 2>"$TMP/rules-limit.err"
code=$?
ms=$((($(date +%s%N) - start) / 1000000))
check "rule interpreter --time-limit 1 exits 124 ($code)" test $code -eq 124
check "... within 3 s ($ms ms), not after the 5 s of grace" test $ms -lt 3000
check "... stats.json says interrupted" grep -q '"reason": "interrupted"' "$TMP/rules-limit/stats.json"

# A failed write ends the rule interpreter at once: exit 1 naming the file and why, and
# stats.json (in a folder that can still be written) says so.
if [ -w /dev/full ]; then
  mkdir -p "$TMP/rules-full"
  ln -s /dev/full "$TMP/rules-full/trajectory.csv"
  timeout 20 "$HYSIM" run "$RULES/thermostat.rules.tsv" --t-end 1e4 --quiet --out "$TMP/rules-full" \
    >/dev/null 2>"$TMP/rules-full.err"
  check "rule interpreter writing its trajectory to /dev/full exits 1 ($?)" test $? -eq 1
  check "... saying write failed, the file and why" \
    grep -q "hysim: error: write failed: $TMP/rules-full/trajectory.csv: No space left on device" "$TMP/rules-full.err"
  check "... stats.json says failed, with the reason" python3 -c "
import json, sys
r = json.load(open('$TMP/rules-full/stats.json'))['result']
sys.exit(0 if r['reason'] == 'failed' and 'No space left on device' in r['message'] and r['cycles'] < 100000 else 1)"
fi
# The same at a file size limit: SIGXFSZ stays caught (it comes with every write past the
# limit; a second one killed the process before it said anything), the write fails with EFBIG.
(ulimit -f 100 && exec timeout 20 "$HYSIM" run "$RULES/thermostat.rules.tsv" --t-end 100 --quiet --out "$TMP/rules-fsize") \
  >/dev/null 2>"$TMP/rules-fsize.err"
code=$?
check "rule interpreter at ulimit -f 100 exits 1 ($code)" test $code -eq 1
check "... saying write failed: File too large" \
  grep -q "hysim: error: write failed: $TMP/rules-fsize/trajectory.csv: File too large" "$TMP/rules-fsize.err"
check "... stats.json says failed" grep -q '"reason": "failed"' "$TMP/rules-fsize/stats.json"

# An accepted step shorter than the minimum step fails the run, naming the mode and t, for
# every adaptive solver: a field huge against the tolerances (explicit solvers accepted steps of
# length 0 there: 13 million of them in 5 s, 50 MB/s of output).
printf 'model huge\nstate x = 0\nmode climb { der(x) = 1e200 }\n' >"$TMP/huge.hym"
for solver in dopri5 bs3 cashkarp54 rkf78 dop853 rosenbrock4 ndf; do
  timeout 10 "$HYSIM" run "$TMP/huge.hym" --solver "$solver" --quiet >/dev/null 2>"$TMP/huge.err"
  code=$?
  check "der(x) = 1e200 with $solver exits 1 ($code)" test $code -eq 1
  check "... naming the mode and t" grep -q "mode 'climb', t = 0: .*minimum" "$TMP/huge.err"
done
too_small() {  # WHAT ARGS...: `hysim ARGS...` ends within 10 s with exit 1 and the minimum step named
  local what=$1
  shift
  timeout 10 "$HYSIM" "$@" --quiet >/dev/null 2>"$TMP/small.err"
  local code=$?
  check "$what exits 1 ($code)" test $code -eq 1
  check "... naming the mode, t and the minimum step" grep -q "mode '.*', t = .*minimum" "$TMP/small.err"
}
too_small "--atol 1e-300" run pwm-servo --atol 1e-300
too_small "--param k_w=1e300" run pwm-servo --param k_w=1e300
too_small "float128 with --atol 1e-4000" run pwm-servo --scalar float128 --atol 1e-4000

# Limits that bound work do not allocate it: --chain-limit 1e9 reserved its chain record (tens
# of GB) before the first step. (AddressSanitizer reserves terabytes of address space: no
# ulimit -v under it; ulimit -s is raised there, its frames being larger.)
asan=false
if ldd "$HYSIM" | grep -q libasan; then asan=true; fi
vlimit() { if $asan; then echo unlimited; else echo "$1"; fi; }
(ulimit -v "$(vlimit 300000)" && exec timeout 20 "$HYSIM" run pwm-servo --chain-limit 1000000000 --t-end 1 --quiet) \
  >/dev/null 2>"$TMP/chain.err"
check "--chain-limit 1000000000 runs in 300 MB of address space" test $? -eq 0
(ulimit -v "$(vlimit 300000)" && exec timeout 20 "$HYSIM" run pwm-servo --zeno-events 1000000000 --t-end 1 --quiet) \
  >/dev/null 2>"$TMP/zeno.err"
check "--zeno-events 1000000000 runs in 300 MB of address space" test $? -eq 0

# --jobs beyond the machine is capped (4 threads per hardware thread), not thousands of threads.
timeout 20 "$HYSIM" sweep pwm-servo --param kp=0.05:0.2:4 --t-end 1 --jobs 50000 >"$TMP/jobs.csv" 2>"$TMP/jobs.err"
check "sweep --jobs 50000 exits 0 ($?)" test $? -eq 0
check "... with every row" test "$(wc -l <"$TMP/jobs.csv")" -eq 5
# Threads the system refuses (60 MB stacks in 340 MB of address space: 3 or 4 of 8 fit) leave
# the runs to the threads made; before, std::thread threw and the pool's destructor aborted (134).
# (In 200 MB, since the program maps Eigen's code and SuiteSparse's libraries, the threads that
# fit sometimes left too little for the runs' own memory: "out of memory", exit 1, 2 runs in 5.)
(ulimit -s 60000 && ulimit -v "$(vlimit 340000)" && exec timeout 20 "$HYSIM" sweep pwm-servo --param kp=0.05:0.2:8 --t-end 1 --jobs 8) \
  >"$TMP/refused.csv" 2>"$TMP/refused-threads.err"
check "sweep whose threads the system refuses exits 0 ($?)" test $? -eq 0
check "... with every row" test "$(wc -l <"$TMP/refused.csv")" -eq 9
if ! $asan; then  # the closing line counts the threads that ran, not the 8 asked for
  check "... and says how many threads ran, fewer than 8" \
    bash -c "grep -Eq 'on [1-7] threads?;' '$TMP/refused-threads.err'"
fi

# The model language: a chain of 100,000 lets, each reading the one declared after it, is
# refused with its place under a 2 MiB stack (it overflowed the stack: exit 139); a model of
# 40,000 modes builds in linear time (70 s before, 1.3 s after, tape backend).
python3 -c "
n = 100000
print('model lets')
print('state x = 0')
for i in range(n - 1): print(f'let a{i} = a{i + 1} + 1')
print(f'let a{n - 1} = 1')
print('mode m { der(x) = a0 }')" >"$TMP/lets.hym"
(ulimit -s "$($asan && echo 16384 || echo 2048)" && HYSIM_MODEL_BACKEND=tape exec timeout 20 "$HYSIM" check "$TMP/lets.hym") >/dev/null 2>"$TMP/lets.err"
code=$?
check "100,000 lets last-first under a 2 MiB stack exit 2 ($code)" test $code -eq 2
check "... naming file:line:column" grep -q "lets.hym:[0-9]*:[0-9]*: error: expression nested more than 1000 levels" "$TMP/lets.err"
python3 -c "
n = 40000
print('model many')
print('state x = 0')
for i in range(n): print(f'mode m{i} {{ der(x) = 1 }}')
for i in range(n): print(f'm{i} -> m{(i + 1) % n} go{i} [x >= {i + 1}]')" >"$TMP/modes.hym"
start=$(date +%s%N)
HYSIM_MODEL_BACKEND=tape timeout 60 "$HYSIM" check "$TMP/modes.hym" >/dev/null 2>&1
code=$?
ms=$((($(date +%s%N) - start) / 1000000))
check "a model of 40,000 modes builds ($code)" test $code -eq 0
check "... in under 20 s ($ms ms)" test $ms -lt 20000

if $asan; then
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
