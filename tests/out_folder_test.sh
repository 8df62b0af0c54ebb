#!/usr/bin/env bash
# Nothing computed is lost, and an --out folder never mixes two runs (docs/cli.md, "Output
# folders" and "Exit codes"; docs/sweeps.md):
#   - a write that fails (trajectory.csv a link to /dev/full; a file size limit) stops `run`
#     at once, exit 1 "write failed: FILE: REASON", no "reached t_end", stats.json says why;
#   - a reused folder loses the files of hysim's names that the new run does not write, never
#     a user's; a killed run leaves stats.json saying "running", a finished one "finished";
#   - a sweep across a model's `require` gives failed rows with their message, not an abort;
#     SIGINT marks the runs not started not_run and the closing line counts the runs done;
#     summary.json stays valid JSON; a sweep's stale runs/<run>/ folders go.
# Usage: out_folder_test.sh PATH_TO_HYSIM. Exit status 1 when any check fails.
set -u
HYSIM=${1:?usage: out_folder_test.sh PATH_TO_HYSIM}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
source "$(dirname "$0")/checks.sh"  # check DESCRIPTION COMMAND...; $failures
json_ok() { python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$1"; }

# --- write errors --------------------------------------------------------------------------
# pwm-servo to t = 1e5 takes about 10 s: a run that stops at its first failed write takes far less.
if [ -w /dev/full ]; then
  mkdir -p "$TMP/full"
  ln -s /dev/full "$TMP/full/trajectory.csv"
  start=$(date +%s%N)
  timeout 60 "$HYSIM" run pwm-servo --t-end 1e5 --quiet --out "$TMP/full" >"$TMP/full.out" 2>"$TMP/full.err"
  code=$?
  ms=$((($(date +%s%N) - start) / 1000000))
  check "run, trajectory.csv -> /dev/full: exit 1 (not 2)" test $code -eq 1
  check "... 'write failed: FILE: No space left on device'" \
    grep -q "hysim: error: write failed: $TMP/full/trajectory.csv: No space left on device" "$TMP/full.err"
  check "... stops at once ($ms ms), not at t_end" test $ms -lt 3000
  check "... the summary does not say reached t_end" bash -c "! grep -q 'reached t_end' '$TMP/full.out'"
  check "... stats.json has the error" python3 -c "
import json, sys
s = json.load(open('$TMP/full/stats.json'))
sys.exit(0 if 'write failed' in s['error'] and s['status'] == 'finished' and s['stats']['steps_accepted'] < 10000 else 1)"
  check "... events.csv is complete rows" python3 -c "
import csv, sys
rows = list(csv.reader(open('$TMP/full/events.csv')))
sys.exit(0 if len(rows) >= 1 and all(len(r) == len(rows[0]) for r in rows) else 1)"
else
  echo "note: /dev/full is not writable here; its checks did not run"
fi

# A file size limit (ulimit -f, with SIGXFSZ ignored as a shell that traps it leaves it): the
# write fails with EFBIG.
start=$(date +%s%N)
(trap '' XFSZ; ulimit -f 64; exec timeout 60 "$HYSIM" run pwm-servo --t-end 1e5 --quiet --out "$TMP/fsize") \
  >/dev/null 2>"$TMP/fsize.err"
code=$?
ms=$((($(date +%s%N) - start) / 1000000))
check "run under ulimit -f 64: exit 1" test $code -eq 1
check "... 'write failed: FILE: File too large' ($ms ms)" \
  grep -q "write failed: $TMP/fsize/[a-z]*.csv: File too large" "$TMP/fsize.err"
check "... stops at once" test $ms -lt 3000

# --- a reused folder -----------------------------------------------------------------------
"$HYSIM" run pwm-servo --t-end 0.1 --quiet --out "$TMP/reuse" >/dev/null 2>&1
echo "mine" >"$TMP/reuse/notes.txt"
echo "mine" >"$TMP/reuse/my.csv"
"$HYSIM" run pwm-servo --t-end 0.2 --quiet --files events --out "$TMP/reuse" >/dev/null 2>&1
check "run --files events in a used folder: exit 0" test $? -eq 0
check "... the earlier trajectory.csv, steps.csv and stats.json are gone" \
  bash -c "test ! -e '$TMP/reuse/trajectory.csv' -a ! -e '$TMP/reuse/steps.csv' -a ! -e '$TMP/reuse/stats.json'"
check "... the user's files stay" bash -c "test -f '$TMP/reuse/notes.txt' -a -f '$TMP/reuse/my.csv'"
check "... events.csv is this run's (t <= 0.2, past 0.1)" python3 -c "
import csv, sys
t = [float(r['t']) for r in csv.DictReader(open('$TMP/reuse/events.csv'))]
sys.exit(0 if t and max(t) <= 0.2 and max(t) > 0.1 else 1)"

# A killed run: stats.json says running, never an earlier run's end.
"$HYSIM" run pwm-servo --t-end 0.1 --quiet --out "$TMP/killed" >/dev/null 2>&1
check "a finished run's stats.json says finished" grep -q '"status": "finished"' "$TMP/killed/stats.json"
"$HYSIM" run pwm-servo --t-end 1e6 --quiet --out "$TMP/killed" >/dev/null 2>&1 &
pid=$!
sleep 1
kill -KILL $pid
wait $pid 2>/dev/null
check "a killed run's stats.json says running, valid JSON" python3 -c "
import json, sys
s = json.load(open('$TMP/killed/stats.json'))
sys.exit(0 if s['status'] == 'running' and 'result' not in s and 'stats' not in s else 1)"

# --- sweeps --------------------------------------------------------------------------------
# two-tank requires v1 < w < v1 + v2 = 0.9: w from 0.4 to 1.2 breaks it below 0.5 and above 0.9.
timeout 60 "$HYSIM" sweep "$ROOT/models/two-tank.hym" --param w=0.4:1.2:9 --t-end 1 --jobs 2 --out "$TMP/req" \
  >/dev/null 2>"$TMP/req.err"
check "sweep across a require: exit 0" test $? -eq 0
check "... summary.json is valid JSON with 9 rows" python3 -c "
import json, sys
sys.exit(0 if len(json.load(open('$TMP/req/summary.json'))) == 9 else 1)"
check "... the runs that break it failed, with the model's message; the others ran" python3 -c "
import csv, json, sys
rows = list(csv.DictReader(open('$TMP/req/summary.csv')))
objs = json.load(open('$TMP/req/summary.json'))
bad = [r for r in rows if not 0.5 < float(r['w']) < 0.9]
good = [r for r in rows if 0.5 < float(r['w']) < 0.9]
ok = len(rows) == 9 and len(bad) == 5 and len(good) == 4
ok = ok and all(r['reason'] == 'failed' and 'requires' in r['message'] for r in bad)
ok = ok and all(r['reason'] != 'failed' and r['message'] == '' and r['events'] != '' for r in good)
ok = ok and all(o['message'] == r['message'] or (o['message'] is None and r['message'] == '') for o, r in zip(objs, rows))
sys.exit(0 if ok else 1)"
check "... the closing line counts 5 failed" grep -q "sweep: 9 runs of two_tank .* 5 failed" "$TMP/req.err"

# SIGINT: the runs not started are not_run; the closing line counts the runs done.
"$HYSIM" sweep pwm-servo --param kp=0.05:0.2:400 --t-end 200 --jobs 1 --out "$TMP/int" >/dev/null 2>"$TMP/int.err" &
pid=$!
sleep 1
kill -INT $pid
timeout 20 tail --pid=$pid -f /dev/null
wait $pid
code=$?
check "sweep, SIGINT: exit 130" test $code -eq 130
check "... every run has its row; those not started say not_run" python3 -c "
import csv, json, sys
rows = list(csv.DictReader(open('$TMP/int/summary.csv')))
objs = json.load(open('$TMP/int/summary.json'))
reasons = [r['reason'] for r in rows]
done = [x for x in reasons if x != 'not_run']
ok = len(rows) == 400 and len(objs) == 400 and 0 < len(done) < 400 and reasons[-1] == 'not_run'
ok = ok and reasons.count('interrupted') <= 1 and all(r['t'] == '' for r in rows if r['reason'] == 'not_run')
print(len(done), 'runs done', file=sys.stderr)
sys.exit(0 if ok else 1)"
done_runs=$(python3 -c "
import csv
print(sum(r['reason'] != 'not_run' for r in csv.DictReader(open('$TMP/int/summary.csv'))))")
check "... the closing line counts the $done_runs runs done and the rest not run" \
  grep -q "sweep: $done_runs runs of pwm-servo .*; $((400 - done_runs)) not run" "$TMP/int.err"

# A sweep's summary on a full disk: exit 1 naming it, summary.json valid.
if [ -w /dev/full ]; then
  mkdir -p "$TMP/sfull"
  ln -s /dev/full "$TMP/sfull/summary.csv"
  timeout 60 "$HYSIM" sweep exponential --param y0=0.5:2:20000 --t-end 0.01 --out "$TMP/sfull" >/dev/null 2>"$TMP/sfull.err"
  check "sweep, summary.csv -> /dev/full: exit 1 naming it" \
    bash -c "test $? -eq 1 && grep -q 'write failed: $TMP/sfull/summary.csv: No space left on device' '$TMP/sfull.err'"
  check "... summary.json is valid JSON" json_ok "$TMP/sfull/summary.json"
fi

# A sweep's per-run folders of an earlier, larger sweep go; a user's file keeps its folder.
"$HYSIM" sweep pwm-servo --param kp=0.05:0.2:5 --t-end 0.05 --run-files --out "$TMP/runs" >/dev/null 2>&1
echo "mine" >"$TMP/runs/runs/4/notes.txt"
"$HYSIM" sweep pwm-servo --param kp=0.05:0.2:3 --t-end 0.05 --run-files --out "$TMP/runs" >/dev/null 2>&1
check "sweep --run-files over a larger one: runs/0..2 stay, runs/3 goes, runs/4 keeps only the user's file" \
  bash -c "test -f '$TMP/runs/runs/2/events.csv' -a ! -e '$TMP/runs/runs/3' -a ! -e '$TMP/runs/runs/4/events.csv' -a -f '$TMP/runs/runs/4/notes.txt'"
rm "$TMP/runs/runs/4/notes.txt"
"$HYSIM" sweep pwm-servo --param kp=0.05:0.2:3 --t-end 0.05 --out "$TMP/runs" >/dev/null 2>&1
check "a sweep without --run-files removes the earlier runs/" test ! -e "$TMP/runs/runs"

# A rule table on the interpreter: the engine's steps.csv of an earlier run goes, a user's file
# stays, and stats.json says "running" until the run ends (killed: it still says so).
mkdir -p "$TMP/rules"
touch "$TMP/rules/steps.csv" "$TMP/rules/notes.txt"
"$HYSIM" run "$ROOT/models/rules/lorenz.rules.tsv" --paced --t-end 100 --quiet --out "$TMP/rules" >/dev/null 2>&1 &
pid=$!
sleep 1
kill -KILL $pid
wait $pid 2>/dev/null
check "rule table killed: stats.json says running" grep -q '"status": "running"' "$TMP/rules/stats.json"
check "... the engine's steps.csv went, the user's file stayed" \
  bash -c "test ! -e '$TMP/rules/steps.csv' -a -f '$TMP/rules/notes.txt' -a -f '$TMP/rules/trajectory.csv'"
"$HYSIM" run "$ROOT/models/rules/lorenz.rules.tsv" --t-end 0.01 --quiet --out "$TMP/rules" >/dev/null 2>&1
check "rule table finished: stats.json says finished" grep -q '"status": "finished"' "$TMP/rules/stats.json"

# workprecision without gnuplot on PATH draws no figure: an earlier workprecision.png goes.
mkdir -p "$TMP/wp"
touch "$TMP/wp/workprecision.png" "$TMP/wp/notes.txt"
PATH=/nonexistent "$HYSIM" workprecision drag-ball --t-end 2 --out "$TMP/wp" >/dev/null 2>&1
check "workprecision without gnuplot: the old figure goes, the CSV and script are written, the user's file stays" \
  bash -c "test ! -e '$TMP/wp/workprecision.png' -a -f '$TMP/wp/workprecision.csv' -a -f '$TMP/wp/workprecision.gp' -a -f '$TMP/wp/notes.txt'"

if [ $failures -ne 0 ]; then
  echo "$failures check(s) failed"
  exit 1
fi
echo "all checks passed"
