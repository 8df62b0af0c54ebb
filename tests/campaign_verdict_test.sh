#!/usr/bin/env bash
# The campaign's verdict (bench/campaign.py, docs/testing.md) can fail: a new failure, a refusal
# not listed, a listed case that no longer fails, a malformed list of known failures.
# Usage: campaign_verdict_test.sh PATH_TO_HYSIM SOURCE_DIR
set -u
HYSIM=${1:?usage: campaign_verdict_test.sh PATH_TO_HYSIM SOURCE_DIR}
SOURCE=${2:?usage: campaign_verdict_test.sh PATH_TO_HYSIM SOURCE_DIR}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
failures=0
campaign() { python3 "$SOURCE/bench/campaign.py" "$HYSIM" "$SOURCE" --draws 2 --jobs 2 "$@" >"$TMP/out" 2>&1; }
expect() {  # expect EXIT TEXT DESCRIPTION
  local code=$?
  if [ "$code" -ne "$1" ] || ! grep -qF -- "$2" "$TMP/out"; then
    echo "FAIL: $3: exit $code (expected $1), output:"; cat "$TMP/out"; failures=$((failures + 1))
  fi
}

campaign --models exponential.rules --strategies itp,cvode
expect 0 "	itp	2	0	0	0	" "a model that runs under every strategy"

printf 'models/rules/exponential.rules.tsv\titp\tfails\tlisted for the test\n' >"$TMP/stale"
campaign --models exponential.rules --strategies itp --known "$TMP/stale"
expect 1 "STALE: listed as failing, but every run reached its end" "a listed case that runs"

printf 'models/rules/exponential.rules.tsv\t*\trefused\tlisted for the test\n' >"$TMP/refused"
campaign --models exponential.rules --strategies itp --known "$TMP/refused"
expect 1 "STALE: listed as refused, but every run reached its end" "a listed refusal that runs"

campaign --models /pendulum-thread --strategies gamma
expect 1 "NEW REFUSAL	refused: " "a refusal not listed"

printf 'models/rules/pendulum-thread.rules.tsv\t*\trefused\tan algebraic loop\n' >"$TMP/known"
campaign --models /pendulum-thread --strategies gamma --known "$TMP/known"
expect 0 "known (refused)" "a listed refusal"

printf 'pwm-servo\tgamma\tbroken\n' >"$TMP/bad"
campaign --models pwm-servo --strategies gamma --known "$TMP/bad"
expect 1 "$TMP/bad:1: expected MODEL<TAB>STRATEGY<TAB>fails|refused<TAB>REASON" "a malformed list"

campaign --strategies step
expect 2 "unknown strategy step" "step locates nothing: not a campaign strategy"

[ "$failures" -eq 0 ] && echo "campaign_verdict: every verdict as expected"
exit $((failures > 0))
