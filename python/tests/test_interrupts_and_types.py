"""Stopping a run from Python (Ctrl-C, time_limit) keeps what it computed, and a value of the
wrong type for an argument is a TypeError naming it (python/module.cpp, docs/python.md)."""
import os
import signal
import subprocess
import sys
import time

import pytest

import hysim

# A child that runs the PWM servo far past what a second computes, and prints how it ended.
CHILD = r"""
import sys, time, numpy, hysim  # numpy loaded, as in a session that uses the arrays
kind = sys.argv[1]
model = hysim.Model("pwm-servo")
print("started", flush=True)
try:
    if kind == "run":
        model.run(t_end=1e7, trajectory=False)
    else:
        model.sweep({"kp": "0.05:0.2:2000"}, t_end=200, jobs=1)
    print("finished", flush=True)
except KeyboardInterrupt as e:
    r = e.result
    if kind == "run":
        print("KeyboardInterrupt", time.monotonic(), r["reason"], r["t"], len(r["events"]["t"]), flush=True)
    else:
        print("KeyboardInterrupt", time.monotonic(), r["reason"].count("not_run"), len(r["reason"]), flush=True)
"""


def interrupt_child(kind):
    """Starts the child, sends SIGINT 1 s into its work; the child's closing line and the delay."""
    child = subprocess.Popen([sys.executable, "-c", CHILD, kind], stdout=subprocess.PIPE, text=True,
                             env=dict(os.environ))
    try:
        assert child.stdout.readline().strip() == "started"
        time.sleep(1.0)
        sent = time.monotonic()
        child.send_signal(signal.SIGINT)
        out, _ = child.communicate(timeout=20)
    finally:
        child.kill()
    words = out.split()
    assert words and words[0] == "KeyboardInterrupt", out
    return words, float(words[1]) - sent


def test_ctrl_c_raises_keyboard_interrupt_with_the_partial_result():
    words, delay = interrupt_child("run")
    print(f"run: KeyboardInterrupt {delay * 1000:.0f} ms after SIGINT")
    assert delay < 0.5  # polled every 50 ms; generous for a loaded machine
    reason, t, events = words[2], float(words[3]), int(words[4])
    assert reason == "interrupted" and 0 < t < 1e7 and events > 100


def test_ctrl_c_stops_a_sweep_with_its_rows_so_far():
    words, delay = interrupt_child("sweep")
    print(f"sweep: KeyboardInterrupt {delay * 1000:.0f} ms after SIGINT")
    assert delay < 2.0  # polled at each row: a run of t_end 200 takes a few tens of ms
    not_run, rows = int(words[2]), int(words[3])
    assert rows == 2000 and 0 < not_run < 2000


def test_time_limit_returns_the_partial_result():
    start = time.monotonic()
    r = hysim.Model("pwm-servo").run(t_end=1e7, trajectory=False, time_limit=0.5)
    seconds = time.monotonic() - start
    print(f"time_limit=0.5: returned after {seconds:.3f} s")
    assert 0.5 <= seconds < 2.0
    assert r["reason"] == "interrupted" and r["message"].startswith("time limit (0.5 s): interrupted at t = ")
    assert 0 < r["t"] < 1e7 and len(r["events"]["t"]) > 100
    # A run that ends first is untouched by its limit.
    assert hysim.Model("pwm-servo").run(t_end=0.1, time_limit=10)["reason"] == "reached t_end"
    with pytest.raises(ValueError, match="time_limit"):
        hysim.Model("pwm-servo").run(t_end=0.1, time_limit=-1)


# Each argument with a value of the wrong type: TypeError naming it and the type it takes.
pwm = hysim.Model("pwm-servo")
WRONG_TYPES = [
    (lambda: pwm.run(t_end=None), "option t_end must be a number, not NoneType"),
    (lambda: pwm.run(t_end=[1]), "option t_end must be a number, not list"),
    (lambda: pwm.run(rtol=b"x"), "option rtol must be a number, not bytes"),
    (lambda: pwm.run(t_end=0.1, solver=3), "option solver must be a str, not int"),
    (lambda: pwm.run(t_end=0.1, event_limit=2.5), "option event_limit must be an int, not float"),
    (lambda: pwm.run(t_end=0.1, event_limit="9"), "option event_limit must be an int, not str"),
    (lambda: pwm.run(t_end=0.1, sliding="yes"), "option sliding must be a bool, not str"),
    (lambda: pwm.run(t_end=0.1, scalar=3), "scalar must be a str, not int"),
    (lambda: pwm.run(t_end=0.1, trajectory="no"), "trajectory must be a bool, not str"),
    (lambda: pwm.run(t_end=0.1, time_limit="1"), "time_limit must be a number, not str"),
    (lambda: hysim.Model(3), "name must be a str, not int"),
    (lambda: hysim.Model("pwm-servo", preset=None), "preset must be a str, not NoneType"),
    (lambda: hysim.Model("pwm-servo", params=[("kp", 1)]), "params must be a dict of names to values, not list"),
    (lambda: hysim.Model("pwm-servo", params={"kp": None}), r"params\['kp'\] must be a number or its decimal text"),
    (lambda: hysim.Model("pwm-servo", params={"kp": [1]}), r"params\['kp'\] must be a number or its decimal text"),
    (lambda: hysim.Model("pwm-servo", params={1: "2"}), "params: a parameter's name must be a str, not int"),
    (lambda: pwm.sweep(["kp"]), "params must be a dict"),
    (lambda: pwm.sweep({"kp": None}), r"params\['kp'\]"),
    (lambda: pwm.sweep({"kp": [0.1, None]}), r"params\['kp'\]'s values must be a number"),
    (lambda: pwm.sweep({"kp": "0.1:0.2:3"}, draws="3"), "draws must be an int, not str"),
    (lambda: pwm.sweep({"kp": "0.1:0.2:3"}, seed=1.5), "seed must be an int, not float"),
    (lambda: pwm.sweep({"kp": "0.1:0.2:3"}, jobs=None), "jobs must be an int, not NoneType"),
    (lambda: pwm.sweep({"kp": "0.1:0.2:3"}, events="3"), "events must be an int, not str"),
    (lambda: pwm.sweep({"kp": "0.1:0.2:3"}, first=0.0), "first must be an int, not float"),
    (lambda: pwm.sweep({"kp": "0.1:0.2:3"}, runs=True), "runs must be an int, not bool"),
    (lambda: pwm.sweep({"kp": "0.1:0.2:3"}, scalar=None), "scalar must be a str, not NoneType"),
    (lambda: pwm.sweep({"kp": "0.1:0.2:3"}, rtol=None), "option rtol must be a number, not NoneType"),
    (lambda: hysim.sweep(3, {"kp": "0.1:0.2:3"}), "model must be a hysim.Model, a name or a path"),
    (lambda: pwm.compare(strategies=3), "strategies must be None, a str or a list of str, not int"),
    (lambda: pwm.compare(solvers=["dopri5", 3]), "solvers must be None, a str or a list of str, not list"),
    (lambda: pwm.compare(scalar=1), "scalar must be a str, not int"),
    (lambda: pwm.compare(t_end=None), "option t_end must be a number, not NoneType"),
    (lambda: hysim.reproduce(1), "name must be a str, not int"),
    (lambda: hysim.reproduce("pwm-table1", strategies=1), "strategies must be None, a str or a list of str"),
    (lambda: hysim.reproduce("pwm-table1", solver=None), "solver must be a str, not NoneType"),
    (lambda: hysim.reproduce("pwm-table1", rtol="1e-4"), "rtol must be a number, not str"),
    (lambda: hysim.reproduce("pwm-table1", atol=None), "atol must be a number, not NoneType"),
]


@pytest.mark.parametrize("call,message", WRONG_TYPES, ids=[m[:40] for _, m in WRONG_TYPES])
def test_a_wrong_type_is_a_type_error_naming_the_argument(call, message):
    with pytest.raises(TypeError, match=message):
        call()


def test_right_types_still_work():
    # Numbers as str (exact decimal text), numpy numbers, and tuples as lists.
    import numpy as np
    r = pwm.run(t_end="0.1", rtol=np.float64(1e-6), event_limit=np.int64(1000), trajectory=False)
    assert r["reason"] == "reached t_end"
    s = pwm.sweep({"kp": (0.1, np.float64(0.2))}, jobs=np.int64(1), t_end=0.05)
    assert list(s["kp"]) == [0.1, 0.2] and s["message"] == ["", ""]
    assert hysim.Model("pwm-servo", params={"kp": np.float64(0.1)}).parameters["kp"] == "0.1"
