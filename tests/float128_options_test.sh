#!/usr/bin/env bash
# Options in the run's precision, through the program (run/decimal.hpp): with --scalar float128,
#   - `--t-end 0.1000000000000000000000000001` (double: 0.1) ends the run, trajectory.csv's last
#     row, at the binary128 number nearest to that decimal;
#   - `--output-step 0.0010000000000000000000000001` writes the rows between t0 and t_end at
#     fl(k fl(step)), the binary128 multiples of the typed step;
#   - a model file's preset `t_end = 0.1000000000000000000000000001` ends the run there too;
#   - stats.json's options write those values as typed (strings), the others as numbers.
# The expected times are computed here with exact rationals (Python's fractions), rounded to
# binary128 (113-bit significand, ties to even), independently of the program.
# Usage: float128_options_test.sh PATH_TO_HYSIM. Exit status 1 when any check fails.
set -u

HYSIM=${1:?usage: float128_options_test.sh PATH_TO_HYSIM}
PYTHON=/usr/bin/python3
[ -x "$PYTHON" ] || PYTHON=python3
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

TENTH=0.1000000000000000000000000001
MILLI=0.0010000000000000000000000001

"$HYSIM" run exponential --scalar float128 --t-end "$TENTH" --output-step "$MILLI" --table none \
  --out "$TMP/grid" >"$TMP/grid.out" 2>"$TMP/grid.err" || { echo "FAIL run: $(cat "$TMP/grid.err")"; exit 1; }
cat >"$TMP/preset.hym" <<EOF
model grow "dy/dt = y"
parameter rate = 1 "growth rate"
state y = 1
mode grow "growth" { der(y) = rate*y }
preset short "to just past 1/10" { t_end = $TENTH }
EOF
"$HYSIM" run "$TMP/preset.hym" --preset short --scalar float128 --table none \
  --out "$TMP/preset" >"$TMP/preset.out" 2>"$TMP/preset.err" || { echo "FAIL preset run: $(cat "$TMP/preset.err")"; exit 1; }

"$PYTHON" - "$TMP" "$TENTH" "$MILLI" <<'EOF'
import csv, json, sys
from fractions import Fraction

tmp, tenth, milli = sys.argv[1], sys.argv[2], sys.argv[3]
failures = 0

def check(what, ok, detail=""):
    global failures
    print(("ok   " if ok else "FAIL ") + what + ("" if ok else ": " + detail))
    failures += 0 if ok else 1

def binary128(x):
    """The binary128 number nearest to the rational x (normal range; ties to even)."""
    x = Fraction(x)
    if x == 0:
        return x
    sign, x = (-1 if x < 0 else 1), abs(x)
    e = x.numerator.bit_length() - x.denominator.bit_length()
    if Fraction(2) ** e > x:
        e -= 1  # 2^e <= x < 2^(e+1)
    scale = Fraction(2) ** (112 - e)  # x scale in [2^112, 2^113)
    q, r = divmod((x * scale).numerator, (x * scale).denominator)
    den = (x * scale).denominator
    if 2 * r > den or (2 * r == den and q % 2):
        q += 1
    return sign * Fraction(q) / scale

def times(run):
    with open(f"{tmp}/{run}/trajectory.csv") as f:
        return [Fraction(row["t"]) for row in csv.DictReader(f)]

t_end, step = binary128(Fraction(tenth)), binary128(Fraction(milli))
check("the decimals are beyond double", t_end != Fraction(0.1) and step != Fraction(0.001))

rows = times("grid")
print(f"     last row t = {float(rows[-1])!r}... exactly {rows[-1]}")
check("--t-end: the last row is the binary128 nearest to " + tenth, binary128(rows[-1]) == t_end,
      f"{rows[-1]} != {t_end}")
check("--output-step: 99 rows between t0 and t_end", len(rows) == 101, f"{len(rows)} rows")
off = [(k, t) for k, t in enumerate(rows[1:-1], start=1) if binary128(t) != binary128(k * step)]
check("--output-step: row k at fl(k fl(" + milli + "))", not off, f"first off: {off[:1]}")
check("... not at k times the double 0.001", binary128(rows[50]) != binary128(50 * binary128(Fraction(0.001))))

preset_rows = times("preset")
check("preset t_end: the last row is the binary128 nearest to " + tenth, binary128(preset_rows[-1]) == t_end,
      f"{preset_rows[-1]} != {t_end}")

for run in ("grid", "preset"):
    with open(f"{tmp}/{run}/stats.json") as f:
        options = json.load(f)["options"]
    check(f"{run}: stats.json options.t_end is the text as typed", options["t_end"] == tenth, repr(options["t_end"]))
    check(f"{run}: other options stay numbers", options["rtol"] == 1e-6 and options["h_min"] == 1e-6, repr(options))
with open(f"{tmp}/grid/stats.json") as f:
    check("stats.json options.output_step is the text as typed", json.load(f)["options"]["output_step"] == milli)

sys.exit(1 if failures else 0)
EOF
