"""Options in the run's precision from Python (python/module.cpp, run/decimal.hpp): a real option
given as a str keeps its text and reaches a float128 run exactly; a float is that double."""
import csv
import os
import subprocess
from fractions import Fraction

import hysim

PROGRAM = os.environ["HYSIM_PROGRAM"]
TENTH = "0.1000000000000000000000000001"  # double: 0.1
MILLI = "0.0010000000000000000000000001"


def binary128(x):
    """The binary128 number nearest to the rational x (normal range; ties to even)."""
    x = Fraction(x)
    sign, x = (-1 if x < 0 else 1), abs(x)
    e = x.numerator.bit_length() - x.denominator.bit_length()
    if Fraction(2) ** e > x:
        e -= 1
    m = x * Fraction(2) ** (112 - e)
    q, r = divmod(m.numerator, m.denominator)
    if 2 * r > m.denominator or (2 * r == m.denominator and q % 2):
        q += 1
    return sign * Fraction(q) / Fraction(2) ** (112 - e)


def test_a_str_t_end_ends_a_float128_run_at_its_binary128():
    result = hysim.Model("exponential").run(scalar="float128", t_end=TENTH, output_step=MILLI)
    assert result["reason"] == "reached t_end"
    assert binary128(Fraction(result["t_exact"])) == binary128(Fraction(TENTH)) != Fraction(0.1)
    as_float = hysim.Model("exponential").run(scalar="float128", t_end=0.1)
    # A float is read as its decimal text (str(0.1) is "0.1"), as a parameter's value is.
    assert binary128(Fraction(as_float["t_exact"])) == binary128(Fraction("0.1")) != Fraction(0.1)


def test_python_and_the_program_sample_the_same_float128_grid(tmp_path):
    subprocess.run([PROGRAM, "run", "exponential", "--scalar", "float128", "--t-end", TENTH, "--output-step", MILLI,
                    "--quiet", "--out", str(tmp_path)], check=True, capture_output=True)
    with open(tmp_path / "trajectory.csv", newline="") as f:
        program = [Fraction(row["t"]) for row in csv.DictReader(f)]
    result = hysim.Model("exponential").run(scalar="float128", t_end=TENTH, output_step=MILLI)
    assert len(result["trajectory"]["t"]) == len(program) == 101
    step = binary128(Fraction(MILLI))
    assert all(binary128(t) == binary128(k * step) for k, t in enumerate(program[1:-1], start=1))
