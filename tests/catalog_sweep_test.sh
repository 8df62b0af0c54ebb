#!/usr/bin/env bash
# Every run ends, and says why: every built-in model, at t_end = 10 and at each of
# its presets' ends, under every solver x strategy (cvode and cvode-adams once: they have their own integrator),
# ends within LIMIT seconds (default 60) either normally (exit 0) or with one error line that
# names the model (exit 1), or a refusal of cvode where a sliding motion begins (exit 2): never
# a timeout, a signal or a silent failure. Prints the slowest
# runs and every failed run with its reason.
# SCOPE `all` (the default) runs the whole product solver x strategy; `each` runs every
# strategy with the default solver (dopri5) and every solver with the default strategy
# (gamma-refine): each solver and each strategy still meets every model and preset, in a
# quarter of the runs (the sanitizers' build, where the product takes nine minutes).
# Usage: catalog_sweep_test.sh PATH_TO_HYSIM [LIMIT] [JOBS] [SCOPE]
set -u
HYSIM=${1:?usage: catalog_sweep_test.sh PATH_TO_HYSIM [LIMIT] [JOBS] [SCOPE]}
LIMIT=${2:-60}
JOBS=${3:-2}
SCOPE=${4:-all}
case $SCOPE in all | each) ;; *) echo "FAIL: SCOPE is all or each, not '$SCOPE'"; exit 1 ;; esac
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

models=$("$HYSIM" list | sed -n '/^solvers:/q;/^[a-z]/p')
solvers=$("$HYSIM" list | sed -n '/^solvers:/,/^strategies:/p' | sed -n 's/^  \([a-z0-9-]*\) .*/\1/p')
strategies=$("$HYSIM" list | sed -n '/^strategies:/,$p' | sed -n 's/^  \([a-z0-9-]*\) .*/\1/p')
[ -n "$models" ] && [ -n "$solvers" ] && [ -n "$strategies" ] || { echo "FAIL: cannot read hysim list"; exit 1; }
default_solver=dopri5
default_strategy=gamma-refine
if [ "$SCOPE" = each ]; then
  grep -qx "$default_solver" <<<"$solvers" && grep -qx "$default_strategy" <<<"$strategies" ||
    { echo "FAIL: hysim list names no $default_solver or no $default_strategy"; exit 1; }
fi

# One line per run: the arguments after `hysim run`.
for m in $models; do
  ends=("--t-end 10")
  for p in $("$HYSIM" list "$m" | sed -n 's/^    preset \([a-z0-9-]*\):.*/\1/p'); do ends+=("--preset $p"); done
  for end in "${ends[@]}"; do
    for st in $strategies; do
      case $st in cvode*) echo "$m $end --strategy $st"; continue ;; certified) continue ;; esac  # certified: model files
      for so in $solvers; do
        if [ "$SCOPE" = each ] && [ "$so" != "$default_solver" ] && [ "$st" != "$default_strategy" ]; then continue; fi
        echo "$m $end --solver $so --strategy $st"
      done
    done
  done
done >"$TMP/runs"

# Each run: "seconds exit_code arguments | last stderr line".
cat >"$TMP/one.sh" <<ONE
#!/usr/bin/env bash
start=\$(date +%s%N)
timeout -s KILL $LIMIT "$HYSIM" run "\$@" >/dev/null 2>"$TMP/err.\$\$"
code=\$?
end=\$(date +%s%N)
echo "\$(( (end - start) / 1000000 )) \$code \$* | \$(tail -n 1 "$TMP/err.\$\$" | cut -c1-240)"
rm -f "$TMP/err.\$\$"
ONE
chmod +x "$TMP/one.sh"
xargs -P "$JOBS" -L 1 "$TMP/one.sh" <"$TMP/runs" >"$TMP/results"

runs=$(wc -l <"$TMP/runs")
done_runs=$(wc -l <"$TMP/results")
echo "$done_runs of $runs runs; the slowest [ms]:"
sort -n -r "$TMP/results" | head -n 5
failures=0
while read -r ms code rest; do
  case $code in
    0) ;;
    1) case $rest in
         *"| hysim: error: model '"*) echo "ended with an error ($ms ms): $rest" ;;
         *) echo "FAIL: exit 1 without a message naming the model: $rest"; failures=$((failures + 1)) ;;
       esac ;;
    2) case $rest in
         *"--strategy cvode"*"| hysim: error: model '"*"the run slides on a surface"*) echo "refused ($ms ms): $rest" ;;
         *) echo "FAIL: exit 2 other than cvode's refusal of a sliding motion: $rest"; failures=$((failures + 1)) ;;
       esac ;;
    *) echo "FAIL: exit $code after $ms ms (over ${LIMIT} s or killed): $rest"; failures=$((failures + 1)) ;;
  esac
done <"$TMP/results"
[ "$done_runs" -eq "$runs" ] || { echo "FAIL: $((runs - done_runs)) runs left no result"; failures=$((failures + 1)); }
echo "$failures failure(s); total $(awk '{s += $1} END {printf "%.1f", s / 1000}' "$TMP/results") s of runs"
[ "$failures" -eq 0 ]
