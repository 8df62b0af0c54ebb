"""The Python module `hysim` (python/module.cpp): the same runs as the program, to the bit, with
the results as numpy arrays. Run by ctest (`python` test) with PYTHONPATH=build/python and the
paths below in the environment."""
import csv
import json
import math
import os
import subprocess
import time

import numpy as np
import pytest

import hysim

SOURCE = os.environ["HYSIM_SOURCE_DIR"]
PROGRAM = os.environ["HYSIM_PROGRAM"]


def program_events(tmp_path, *args):
    """The rows of events.csv from `hysim run ARGS --out DIR`, and the program's own simulation time."""
    out = tmp_path / "out"
    done = subprocess.run([PROGRAM, "run", *args, "--quiet", "--out", str(out), "--files", "events,stats"],
                          check=True, capture_output=True, text=True)
    seconds = float(done.stdout.split("root iterations; ")[1].split(" s")[0])
    with open(out / "events.csv", newline="") as f:
        return list(csv.DictReader(f)), seconds


def test_pwm_servo_over_1000_seconds_gives_the_programs_events_bit_for_bit(tmp_path):
    rows, program_seconds = program_events(tmp_path, "pwm-servo", "--t-end", "1000")
    model = hysim.Model("pwm-servo")
    start = time.perf_counter()
    result = model.run(t_end=1000, trajectory=False)
    python_seconds = time.perf_counter() - start
    events = result["events"]
    assert result["reason"] == "reached t_end"
    assert len(events["t"]) == len(rows) > 10000
    assert np.array_equal(events["t"], np.array([float(r["t"]) for r in rows]))
    for k, name in enumerate(result["states"]):
        assert np.array_equal(events["x_pre"][:, k], np.array([float(r[name]) for r in rows]))
    assert events["from"][:3] == [r["from"] for r in rows[:3]]
    assert events["guard"][-1] == rows[-1]["guard"]
    print(f"pwm-servo [0, 1000] s: program {program_seconds:.4f} s of simulation, "
          f"Python run with conversion {python_seconds:.4f} s")


def test_a_model_file_with_a_preset_and_parameters(tmp_path):
    model = hysim.Model(os.path.join(SOURCE, "examples/thermostat.hym"), params={"q": "4", "T0": 20})
    assert model.parameters["q"] == "4"
    assert model.presets == ["cold_night"]
    result = model.run(t_end=5, rtol=1e-12, atol=1e-12)
    # off: T = T_a + (T0 - T_a) exp(-k t) reaches T_low = 19 at t = 10 ln(15/14)
    assert result["events"]["t"][0] == pytest.approx(10 * math.log(15 / 14), abs=1e-9)
    assert result["events"]["to"][0] == "on"
    cold = hysim.Model(os.path.join(SOURCE, "examples/thermostat.hym"), preset="cold_night")
    assert cold.parameters["T_a"] == "-5"


def test_a_model_files_warnings_are_python_warnings(tmp_path):
    path = tmp_path / "warn.hym"
    path.write_text("model m\nstate x = 1\ninitial a\n"
                    "mode a { der(x) = -x }\nmode b { der(x) = 0 }\n")
    with pytest.warns(UserWarning, match="mode 'b' is unreachable from the initial mode"):
        model = hysim.Model(str(path))
    assert model.run(t_end=1)["reason"] == "reached t_end"


def test_an_explicit_solver_on_a_stiff_model_warns_once_in_the_result():
    robertson = hysim.Model(os.path.join(SOURCE, "models/robertson.hym"))
    stiff = robertson.run(t_end=100, solver="dopri5", trajectory=False)
    assert stiff["reason"] == "reached t_end"
    assert len(stiff["warnings"]) == 1 and "dopri5 finds the problem stiff" in stiff["warnings"][0]
    assert robertson.run(t_end=100, solver="ndf", trajectory=False)["warnings"] == []
    assert hysim.Model("pwm-servo").run(t_end=1, trajectory=False)["warnings"] == []


def test_float128_comes_with_its_exact_text_and_long_double_as_longdouble(tmp_path):
    rows, _ = program_events(tmp_path, "pwm-servo", "--t-end", "1", "--scalar", "float128")
    result = hysim.Model("pwm-servo").run(scalar="float128", t_end=1)
    assert result["events"]["t_exact"] == [r["t"] for r in rows]
    assert result["events"]["t"].dtype == np.float64
    ld = hysim.Model("pwm-servo").run(scalar="long-double", t_end=1)
    assert ld["events"]["t"].dtype == np.longdouble
    assert ld["events"]["t_exact"] is None


def test_options_trajectory_and_output_grid():
    result = hysim.Model("exponential").run(t_end=1, output_step=0.25, rtol=1e-10, atol=1e-12)
    trajectory = result["trajectory"]
    assert list(trajectory["t"]) == [0, 0.25, 0.5, 0.75, 1]
    assert trajectory["x"][:, 0] == pytest.approx(np.exp(trajectory["t"]), rel=1e-8)
    for strategy in ("bisection", "illinois"):
        r = hysim.Model("bouncing-ball").run(t_end=3, strategy=strategy, solver="bs3")
        assert r["events"]["t"][0] == pytest.approx(math.sqrt(2 * 10 / 9.81), rel=1e-12)


def test_errors_are_python_exceptions_with_the_programs_messages():
    with pytest.raises(ValueError, match="unknown model 'nope'"):
        hysim.Model("nope")
    with pytest.raises(ValueError, match="unknown option 'bogus'"):
        hysim.Model("pwm-servo").run(bogus=1)
    with pytest.raises(ValueError, match="0 < rtol < 1"):
        hysim.Model("pwm-servo").run(rtol=0)
    bad = os.path.join(SOURCE, "tests/fuzz/corpus/let-named-like-a-function.hym")
    with pytest.raises(ValueError, match="error:"):
        hysim.Model(bad)
    assert "pwm-servo" in hysim.models() and "gamma-refine" in hysim.strategies()


def test_the_python_example_runs_and_draws_its_figure(tmp_path):
    out = tmp_path / "pwm_strategies.png"
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(hysim.__file__)))  # the package's folder
    done = subprocess.run([os.sys.executable, os.path.join(SOURCE, "examples/python/pwm_strategies.py"), str(out)],
                          check=True, capture_output=True, text=True, env=env)
    assert "gamma-refine  t = 0.0449489742783178" in done.stdout  # (sqrt(6) - 2)/10 to 16 digits
    assert out.stat().st_size > 10000


def without_wall_time(runs):
    for run in runs:
        run.get("stats", {}).pop("wall_seconds", None)
    return runs


def test_compare_as_data_is_the_programs_compare_json(tmp_path):
    out = tmp_path / "compare"
    done = subprocess.run([PROGRAM, "compare", "pwm-servo", "--t-end", "2", "--strategies", "gamma-refine,bisection,gamma",
                           "--solvers", "dopri5,bs3", "--out", str(out)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    with open(out / "compare.json") as f:
        program = json.load(f)
    data = hysim.Model("pwm-servo").compare(strategies=["gamma-refine", "bisection", "gamma"], solvers=["dopri5", "bs3"],
                                            t_end=2.0)
    assert data["reference"] == program["reference"]
    assert data["options"] == program["options"]
    assert without_wall_time(data["runs"]) == without_wall_time(program["runs"])
    # Against the exact events (100-digit reference): one-sided location lands within a few ulp
    # of t, gamma alone (ISMA's rule) within its h_min.
    by_strategy = {(r["solver"], r["strategy"]): r for r in data["runs"]}
    assert abs(by_strategy[("dopri5", "gamma-refine")]["errors"]["dt7"]) < 1e-14
    assert by_strategy[("dopri5", "gamma-refine")]["matching"]["missed"] == 0
    assert 1e-12 < abs(by_strategy[("dopri5", "gamma")]["errors"]["dt7"]) < 1e-5


def test_reproduce_table_one_as_data(tmp_path):
    names = hysim.reproductions()
    assert "pwm-table1" in names
    data = hysim.reproduce("pwm-table1", strategies=["gamma-refine", "gamma"])
    assert data["columns"] == ["dt1", "dt7", "domega1", "domega7", "dphi1", "dphi7"]
    # The paper's rows, as printed in 004, Table 1.
    assert [row["platform"] for row in data["paper"]] == ["ISMA", "SimInTech", "MATLAB", "Ptolemy II"]
    assert data["paper"][0]["dt1"] == 1.5e-06 and data["paper"][2]["dt7"] == -1.6e-10
    # Our rows are the program's pwm-table1.csv, cell for cell.
    out = tmp_path / "table1"
    done = subprocess.run([PROGRAM, "reproduce", "pwm-table1", "--strategies", "gamma-refine,gamma", "--out", str(out)],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    with open(out / "pwm-table1.csv") as f:
        rows = [row for row in csv.DictReader(f) if row["source"] == "hysim"]
    assert len(rows) == len(data["hysim"]) == 2
    for row, ours in zip(rows, data["hysim"]):
        assert row["method"] == ours["solver"] + " " + ours["strategy"]
        for column in data["columns"]:
            assert float(row[column]) == ours["errors"][column]
    # Located one-sided to a few ulp, the first event beats every platform of the paper.
    refine = data["hysim"][0]
    assert all(abs(refine["errors"]["dt1"]) < abs(row["dt1"]) for row in data["paper"])
    with pytest.raises(ValueError, match="unknown reproduction 'nope'"):
        hysim.reproduce("nope")


def test_a_rule_table_runs_on_the_engine_from_python():
    # 001's ball on the incline as a rule table (docs/rule-tables.md): the end of slipping is
    # the instant the catalog's C++ model locates.
    table = hysim.Model(os.path.join(SOURCE, "models/rules/ball-incline.rules.tsv"))
    r = table.run(t_end=10.0, trajectory=False)
    c = hysim.Model("ball-incline").run(t_end=10.0, trajectory=False)
    assert r["reason"] == "reached t_end", r["message"]
    assert abs(r["events"]["t"][0] - c["events"]["t"][0]) < 1e-12
    assert "sliding" in r["events"]["class"]


def test_reproduce_shpakov_as_data(monkeypatch):
    # 000-002's published numbers beside the shipped tables (models/rules, found from the
    # working directory): 002's Table 1 is the exact pendulum period cut to two decimals.
    monkeypatch.chdir(SOURCE)
    data = hysim.reproduce("shpakov")
    rows = {row["quantity"]: row for row in data["rows"]}
    thirty = rows["pendulum, L = 2 m, 30 deg: period [s]"]
    assert thirty["published"] == "2.88"
    assert abs(thirty["engine"] - thirty["exact"]) < 1e-9
    assert int(thirty["exact"] * 100) / 100 == 2.88
    outlier = rows["1 kg cart, 1 kg bob: period modelled at 5 deg [s]"]
    assert 0.04 < outlier["published_deviation"] < 0.05


def test_sweep_returns_the_programs_summary_as_columns(tmp_path):
    # The same grid from Python and from `hysim sweep`: every number of every run agrees, and
    # the columns are arrays.
    pwm = hysim.Model("pwm-servo")
    s = pwm.sweep({"kp": "0.05:0.2:20", "u": [0.5, 1]}, t_end=1.0, jobs=2)
    assert len(s["run"]) == 40 and s["reason"][0] == "reached t_end"
    assert s["kp"][0] == 0.05 and s["kp"][-1] == 0.2 and s["u"][1] == 1.0
    out = tmp_path / "sweep"
    done = subprocess.run([PROGRAM, "sweep", "pwm-servo", "--param", "kp=0.05:0.2:20", "--param", "u=0.5,1",
                           "--t-end", "1", "--jobs", "1", "--out", str(out)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    with open(out / "summary.csv") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 40
    for i, row in enumerate(rows):
        for column in ("kp", "u", "t", "events", "t_event1", "omega", "phi", "saw", "guard_evals"):
            assert float(row[column]) == s[column][i], (i, column)
    # Draws: the same seed, the same values; a distribution without draws is an error.
    a = pwm.sweep({"kp": "uniform:0.05:0.2"}, draws=10, seed=3, t_end=0.1, jobs=1)
    b = pwm.sweep({"kp": "uniform:0.05:0.2"}, draws=10, seed=3, t_end=0.1, jobs=2)
    assert list(a["kp"]) == list(b["kp"]) and 0.05 <= min(a["kp"]) and max(a["kp"]) < 0.2
    with pytest.raises(ValueError, match="needs --draws"):
        pwm.sweep({"kp": "uniform:0.05:0.2"})
    # hysim.sweep takes a name (or a Model): y(1) = y0 e^(rate) for a Model with rate 2.
    e = hysim.sweep(hysim.Model("exponential", params={"rate": 2}), {"y0": [1, 2]}, t_end=1.0)
    assert abs(e["y"][1] - 2 * math.exp(2)) < 1e-5 * 2 * math.exp(2)
    assert list(hysim.sweep("exponential", {"y0": "1:2:3"}, t_end=0.5)["y0"]) == [1.0, 1.5, 2.0]


def test_a_sweep_on_a_dask_local_cluster_gives_the_programs_summary(tmp_path):
    # hysim.dask.sweep: 2 worker processes run parts of 25 runs; the joined summary is
    # `hysim sweep`'s, run for run (all columns but the wall time). The same cluster runs a
    # model made from text (its text travels in the pickle) and a sample of draws, each equal
    # to Model.sweep in this process, and refuses a bad input before sending anything.
    import distributed  # Debian python3-distributed (scripts/setup.sh)
    import hysim.dask
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)
    client = distributed.Client(cluster)
    try:
        assert len(client.scheduler_info()["workers"]) == 2
        params = {"kp": "0.05:0.2:100", "u": "0.5,1"}
        summary = hysim.dask.sweep(client, "pwm-servo", params, chunk=25, t_end=1.0)
        text = "model decay\nparameter k = 1\nstate x = 1\nmode m { der(x) = -k*x }\n"
        decay = hysim.Model.from_string(text)
        spread = hysim.dask.sweep(client, decay, {"k": "uniform:0.5:2"}, draws=30, seed=7, t_end=1.0)
        here = decay.sweep({"k": "uniform:0.5:2"}, draws=30, seed=7, t_end=1.0)
        assert list(spread) == list(here)
        for column in here:
            if column != "wall_s":
                ours, theirs = np.asarray(spread[column]), np.asarray(here[column])
                assert np.array_equal(ours, theirs, equal_nan=ours.dtype.kind == "f"), column
        assert np.allclose(spread["x"], np.exp(-spread["k"]), rtol=1e-5)  # x(1) = e^(-k)
        held = set(client.who_has())
        with pytest.raises(ValueError, match="kq"):
            hysim.dask.sweep(client, "pwm-servo", {"kq": "0.05:0.2:10"}, t_end=1.0)
        with pytest.raises(ValueError, match="chunk"):
            hysim.dask.sweep(client, "pwm-servo", {"kp": "0.05:0.2:10"}, chunk=-1)
        assert set(client.who_has()) <= held, "a refused sweep sent work to the cluster"
    finally:
        client.close()
        cluster.close()
    out = tmp_path / "sweep"
    done = subprocess.run([PROGRAM, "sweep", "pwm-servo", "--param", "kp=0.05:0.2:100", "--param", "u=0.5,1",
                           "--t-end", "1", "--out", str(out)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    with open(out / "summary.csv") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == len(summary["run"]) == 200
    for i, row in enumerate(rows):
        for column, text in row.items():
            if column == "wall_s":
                continue
            ours = summary[column][i]
            if column in ("reason", "message", "mode"):
                assert ours == text, (i, column)
            elif column in ("run", "events", "steps", "rejected", "field_evals", "guard_evals"):
                assert summary[column].dtype == np.int64, column
                assert (ours == -1 and text == "") or ours == int(text), (i, column)
            else:
                assert (math.isnan(ours) and text == "") or ours == float(text), (i, column)


def test_a_run_continues_from_another_runs_final_state():
    # The bouncing ball (g = 9.81, e = 0.8, from y = 10 at rest): impacts at t1 = sqrt(2 y0 / g)
    # and t2 = t1 + 2 e v1 / g with v1 = g t1. A run to t = 2 (after the first impact, in flight)
    # continued with t0=, x0= and mode= from its final state meets the second impact as the
    # closed form gives it, and the program's --t0 / --initial / --initial-mode do the same.
    model = hysim.Model("bouncing-ball")
    first = model.run(t_end=2, rtol=1e-12, atol=1e-12, trajectory=False)
    assert first["reason"] == "reached t_end" and first["mode"] == "flight"
    state = dict(zip(first["states"], first["x"]))
    rest = model.run(t0=first["t"], x0=state, mode=first["mode"], t_end=4, rtol=1e-12, atol=1e-12,
                     trajectory=False)
    t1 = math.sqrt(2 * 10 / 9.81)
    t2 = t1 + 2 * 0.8 * 9.81 * t1 / 9.81
    assert rest["events"]["t"][0] == pytest.approx(t2, abs=1e-9)
    with pytest.raises(ValueError, match="no state of that name"):
        model.run(x0={"z": 1})
    with pytest.raises(ValueError, match="no mode of that name"):
        model.run(mode="hover")


def test_a_model_says_what_it_is_before_a_run():
    model = hysim.Model("bouncing-ball")
    assert model.states == ["y", "v"]
    assert model.modes == ["flight", "impact", "rest"]  # rest: after the Zeno accumulation
    assert repr(model) == "<hysim.Model 'bouncing-ball': states y, v; modes flight, impact, rest; 4 parameters>"
    assert "dopri5" in hysim.solvers() and "Dormand-Prince" in hysim.solvers()["dopri5"]
    assert "gamma-refine" in hysim.strategies()
    assert hysim.__version__.count(".") == 2


def test_a_model_from_text_runs_and_pickles_without_its_file(tmp_path):
    import pickle
    text = ("model cooling\nparameter k = 0.5\nstate T = 10\n"
            "mode cool { der(T) = -k*T }\nmode done { der(T) = 0 }\ncool -> done reach [T <= 5]\n")
    model = hysim.Model.from_string(text, params={"k": 0.25})
    assert model.parameters["k"] == "0.25"
    # T = 10 exp(-k t) reaches 5 at t = ln 2 / k
    result = model.run(t_end=5, rtol=1e-12, atol=1e-12, trajectory=False)
    assert result["events"]["t"][0] == pytest.approx(math.log(2) / 0.25, abs=1e-9)
    again = pickle.loads(pickle.dumps(model))
    assert again.parameters["k"] == "0.25"
    assert again.run(t_end=5, rtol=1e-12, atol=1e-12, trajectory=False)["events"]["t"][0] == result["events"]["t"][0]
    # A model file travels as its text: it unpickles after the file is gone.
    path = tmp_path / "cooling.hym"
    path.write_text(text)
    from_file = hysim.Model(str(path), params={"k": "0.5"})
    blob = pickle.dumps(from_file)
    path.unlink()
    assert pickle.loads(blob).run(t_end=5, trajectory=False)["events"]["t"][0] == pytest.approx(math.log(2) / 0.5, abs=1e-6)
    catalog = pickle.loads(pickle.dumps(hysim.Model("pwm-servo", preset="tracking")))
    assert catalog.name == "pwm-servo" and catalog.parameters["u_amp"] == "1"
    with pytest.raises(ValueError, match="<string>.hym:4"):
        hysim.Model.from_string("model m\nstate x = 0\nmode a { der(x) = 1 }\nmode b { der(x) = y }\n")


def test_crossings_record_where_a_function_crosses_zero_and_stop_ends_the_run():
    # x = cos t, v = -sin t: x falls through 0 at pi/2 + 2 k pi, rises at 3 pi/2 + 2 k pi; the
    # crossings keep the mode and carry their names in the guard column.
    text = ("model circle\nstate x = 1, v = 0\nmode turn { der(x) = v; der(v) = -x }\n"
            "crossing x_zero (x) both\ncrossing v_up (v) up\n")
    model = hysim.Model.from_string(text)
    result = model.run(t_end=7, rtol=1e-12, atol=1e-12, trajectory=False)
    events = result["events"]
    assert list(events["guard"]) == ["x_zero", "v_up", "x_zero"]  # v rises through 0 at pi (and 3 pi)
    expected = [math.pi / 2, math.pi, 3 * math.pi / 2]
    assert list(events["t"]) == pytest.approx(expected, abs=1e-9)
    assert result["reason"] == "reached t_end"
    stopping = hysim.Model.from_string(text.replace("(x) both", "(x) down stop"))
    stopped = stopping.run(t_end=7, rtol=1e-12, atol=1e-12, trajectory=False)
    assert stopped["reason"] == "stopped" and "x_zero" in stopped["message"]
    assert stopped["t"] == pytest.approx(math.pi / 2, abs=1e-9)


def test_certified_strategy_finds_a_crest_between_samples_and_reports_its_proof():
    # x = t; sin(10 x) >= 1 - 1e-8 holds for 2.83e-5 s around each crest (pi/2 + 2 pi k) / 10
    # (docs/certified.md): the first one is entered at (pi/2 - acos(1 - 1e-8)) / 10.
    text = ("model crests\nstate x = 0\nmode low { der(x) = 1 }\nmode high { der(x) = 1 }\n"
            "low -> high up [sin(10*x) >= 0.99999999]\nhigh -> low down [sin(10*x) < 0.99999999]\n")
    model = hysim.Model.from_string(text)
    result = model.run(t_end=0.5, strategy="certified", rtol=1e-10, atol=1e-12, trajectory=False)
    first = (math.pi / 2 - math.acos(0.99999999)) / 10
    assert list(result["events"]["t"])[:2] == pytest.approx([first, first + 2 * math.acos(0.99999999) / 10], abs=1e-9)
    certified = result["stats"]["certified"]
    assert certified["level"] == 1 and certified["steps_unproved"] == 0
    assert certified["events_unique"] == len(result["events"]["t"])
    assert "certified" not in model.run(t_end=0.5, trajectory=False)["stats"]  # the default proves nothing
    exact = model.run(t_end=0.5, strategy="certified", certified_level=2, rtol=1e-10, atol=1e-12, trajectory=False)
    assert list(exact["events"]["t"]) == list(result["events"]["t"])  # x = t: the flow is the dense output's
    flow = exact["stats"]["certified"]
    assert flow["level"] == 2 and flow["steps_unproved"] == 0 and 0 < flow["flow_error_max"] < 1e-9
    with pytest.raises(ValueError, match="double only"):
        model.run(t_end=0.5, strategy="certified", scalar="long-double")


def test_check_tolerance_flags_the_grazing_crests_at_a_loose_tolerance_and_estimates_the_error():
    # Each crest of x = sin t lies 2e-4 above the threshold cos 0.02: at rtol 1e-3 the state's
    # error is larger, the rerun at 1e-4 pairs the crossings differently; at 1e-6 they agree,
    # and the estimate max |t - t_tight| is near the true error against the closed form
    # pi/2 -+ 0.02 + 2 pi k.
    model = hysim.Model("grazing")
    loose = model.run(t_end=20, solver="cashkarp54", rtol=1e-3, atol=1e-6, check_tolerance=True, trajectory=False)
    check = loose["tolerance_check"]
    assert not check["resolved"] and check["rtol"] == 1e-4 and "has no partner" in check["note"]
    tight = model.run(t_end=20, solver="cashkarp54", rtol=1e-6, atol=1e-9, check_tolerance=True, trajectory=False)
    check = tight["tolerance_check"]
    assert check["resolved"] and check["matched"] == 6 and not check["same_steps"]
    exact = [math.pi / 2 + s * 0.02 + 2 * math.pi * k for k in range(3) for s in (-1, 1)]
    error = max(abs(t - e) for t, e in zip(tight["events"]["t"], exact))
    assert 0.1 < error / check["max_dt"] < 10
    assert "tolerance_check" not in model.run(t_end=1, trajectory=False)


def test_absolute_tolerances_per_state():
    # small = 1e-6 exp(-10 t) falls to 5e-7 at ln 2 / 10; with one atol of 1e-3 the error control
    # cannot see it (its values are far below atol), with its own atol it is resolved.
    text = ("model decay\nstate big = 1e6, small = 1e-6\nmode a { der(big) = -big; der(small) = -10*small }\n"
            "crossing tiny (small - 5e-7) down\n")
    model = hysim.Model.from_string(text)
    exact = math.log(2) / 10
    blind = model.run(t_end=1, rtol=1e-6, atol=1e-3, trajectory=False)["events"]["t"][0]
    seen = model.run(t_end=1, rtol=1e-6, atol={"*": 1e-3, "small": 1e-15}, trajectory=False)["events"]["t"][0]
    assert abs(blind - exact) > 1e-7
    assert abs(seen - exact) < 1e-7
    with pytest.raises(ValueError, match="'q' is not a state of the model"):
        model.run(t_end=1, atol={"q": 1e-9})


def test_a_long_run_streams_its_rows_in_chunks():
    model = hysim.Model("pwm-servo", preset="tracking")
    whole = model.run(t_end=5)
    chunks = []
    streamed = model.run(t_end=5, on_chunk=chunks.append, chunk=50)
    assert len(chunks) > 2
    assert all(len(c["trajectory"]["t"]) <= 50 and len(c["events"]["t"]) <= 50 for c in chunks)
    import numpy
    for part in ("events", "trajectory"):
        joined = numpy.concatenate([c[part]["t"] for c in chunks])
        assert numpy.array_equal(joined, whole[part]["t"])
    assert [g for c in chunks for g in c["events"]["guard"]] == list(whole["events"]["guard"])
    assert len(streamed["events"]["t"]) == 0 and len(streamed["trajectory"]["t"]) == 0
    assert streamed["stats"] == whole["stats"]

    def refuse(chunk):
        raise RuntimeError("enough")
    with pytest.raises(RuntimeError, match="enough"):
        model.run(t_end=5, on_chunk=refuse, chunk=10)
    with pytest.raises(ValueError, match="chunk"):
        model.run(t_end=5, on_chunk=chunks.append, chunk=0)


def test_event_names_come_as_codes_too():
    result = hysim.Model("bouncing-ball").run(t_end=3, trajectory=False)
    events = result["events"]
    assert events["from_code"].dtype.kind == "i" and events["guard_code"].dtype.kind == "i"
    assert [result["modes"][c] for c in events["from_code"]] == list(events["from"])
    assert [result["modes"][c] for c in events["to_code"]] == list(events["to"])
    assert [hysim.classes()[c] for c in events["class_code"]] == list(events["class"])
    assert [events["guards"][c] for c in events["guard_code"]] == list(events["guard"])
    assert len(set(events["guards"])) == len(events["guards"])


def test_type_stubs_declare_every_name_the_module_binds():
    # The package re-exports every public name of its compiled core, and the core's stubs
    # (hysim/_core.pyi, beside it with py.typed) declare each of them.
    import ast
    import hysim._core as core
    package = os.path.dirname(hysim.__file__)
    stub_path = os.path.join(package, "_core.pyi")
    assert os.path.exists(stub_path), "_core.pyi is not beside the compiled core"
    assert os.path.exists(os.path.join(package, "py.typed"))
    with open(stub_path) as f:
        tree = ast.parse(f.read())
    top = set()
    model_members = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            top.add(node.name)
        elif isinstance(node, ast.AnnAssign):
            top.add(node.target.id)
        if isinstance(node, ast.ClassDef) and node.name == "Model":
            model_members = {n.name for n in node.body if isinstance(n, ast.FunctionDef)}
    bound = {name for name in dir(core) if not name.startswith("_")} | {"__version__"}
    assert bound <= top, f"not in _core.pyi: {sorted(bound - top)}"
    assert bound <= set(dir(hysim)), f"not re-exported by hysim: {sorted(bound - set(dir(hysim)))}"
    assert set(hysim.__all__) <= set(dir(hysim))
    public = {name for name in dir(hysim.Model) if not name.startswith("_")}
    assert public <= model_members, f"Model members not in _core.pyi: {sorted(public - model_members)}"
    assert hysim.Model.__module__ == "hysim" and hysim.Error.__module__ == "hysim"


def test_t_eval_gives_the_state_at_exactly_those_times():
    # The ball falls from 10 m: y = 10 - g t^2 / 2 until the impact at sqrt(20 / g) = 1.4278 s;
    # after it, y = v1 e (t - t1) - g (t - t1)^2 / 2 with v1 = g t1.
    model = hysim.Model("bouncing-ball")
    times = [0.0, 0.25, 0.5, 1.0, 1.4, 2.0, 2.5]
    result = model.run(t_end=3, t_eval=times, rtol=1e-12, atol=1e-12)
    traj = result["trajectory"]
    assert list(traj["t"]) == times
    g, t1 = 9.81, math.sqrt(20 / 9.81)
    for t, y in zip(traj["t"], traj["x"][:, 0]):
        exact = 10 - g * t * t / 2 if t < t1 else 0.8 * g * t1 * (t - t1) - g * (t - t1) ** 2 / 2
        assert y == pytest.approx(exact, abs=1e-9), t
    assert len(result["events"]["t"]) >= 1  # events stay separate
    with pytest.raises(ValueError, match="increase"):
        model.run(t_end=3, t_eval=[1.0, 0.5])
    with pytest.raises(ValueError, match=r"\[t0, t_end\]"):
        model.run(t_end=3, t_eval=[1.0, 4.0])
    with pytest.raises(ValueError, match="exclude each other"):
        model.run(t_end=3, t_eval=[1.0], output_step=0.1)
    with pytest.raises(ValueError, match="not available with strategy cvode"):
        model.run(t_end=3, t_eval=[1.0], strategy="cvode")


def test_a_float_option_is_read_as_its_decimal_text_like_a_parameter():
    # t_end=0.1 means the decimal 0.1, as params={"k": 0.1} does: in float128 the run ends at the
    # binary128 number nearest to 1/10, not at the double 0.1 widened.
    model = hysim.Model.from_string("model m\nparameter k = 1\nstate x = 0\nmode a { der(x) = k }\n",
                                    params={"k": 0.1})
    as_float = model.run(t_end=0.1, scalar="float128", trajectory=False)
    as_text = model.run(t_end="0.1", scalar="float128", trajectory=False)
    assert as_float["t_exact"] == as_text["t_exact"] == "0.100000000000000000000000000000000005"
    assert model.parameters["k"] == "0.1"
    assert as_float["x"][0] == pytest.approx(0.01, abs=1e-18)
    with pytest.raises(TypeError, match="must be a number"):
        model.run(t_end=True)


def test_the_examples_of_scipy_and_cvode_written_with_crossings():
    # scipy's solve_ivp documentation: a cannon fired upward, y' = v, v' = -0.5 from (0, 10),
    # with the terminal event hit_ground (y, direction -1) and the event apex (v): y = 10 t - t^2/4
    # has its apex at t = 20 (y = 100) and hits the ground at t = 40, where the run stops. The
    # start on the ground (y = 0 at t = 0) is no crossing.
    cannon = hysim.Model.from_string(
        "model cannon\nstate y = 0, v = 10\nmode fly { der(y) = v; der(v) = -0.5 }\n"
        "crossing apex (v) down\ncrossing hit_ground (y) down stop\n")
    r = cannon.run(t_end=100, rtol=1e-12, atol=1e-12)
    assert r["reason"] == "stopped" and "hit_ground" in r["message"]
    assert list(r["events"]["guard"]) == ["apex", "hit_ground"]
    assert list(r["events"]["t"]) == pytest.approx([20, 40], abs=1e-9)
    assert r["t"] == pytest.approx(40, abs=1e-9)
    assert r["events"]["x_pre"][0][0] == pytest.approx(100, abs=1e-9)
    # SUNDIALS's cvRoberts_dns: Robertson's kinetics with the root functions g1 = y1 - 1e-4 and
    # g2 = y3 - 0.01, two declarations in one mode (the catalog's robertson needs three modes).
    # Its printed roots, 2.6391e-01 and 2.0790e+07, carry its rtol 1e-4; the references are
    # those of tests/robertson_test.cpp (ndf and rosenbrock4 in float128, CVODE at 1e-12).
    roberts = hysim.Model.from_string(
        "model roberts\nstate y1 = 1, y2 = 0, y3 = 0\n"
        "mode m { der(y1) = -0.04*y1 + 1e4*y2*y3; der(y2) = 0.04*y1 - 1e4*y2*y3 - 3e7*y2^2; der(y3) = 3e7*y2^2 }\n"
        "crossing g1 (y1 - 1e-4) both\ncrossing g2 (y3 - 0.01) both\n")
    r = roberts.run(t_end=4e10, solver="ndf", rtol=1e-8, atol={"*": 1e-14}, trajectory=False)
    assert list(r["events"]["guard"]) == ["g2", "g1"]
    assert r["events"]["t"][0] == pytest.approx(0.26401907818763, rel=1e-6)
    assert r["events"]["t"][1] == pytest.approx(20795496.883027, rel=1e-6)
    assert r["events"]["t"][0] == pytest.approx(2.6391e-01, rel=1e-3)  # CVODE's, to its rtol
    assert r["events"]["t"][1] == pytest.approx(2.0790e+07, rel=1e-3)


def test_float128_columns_have_their_exact_text():
    # Every float128 value comes with its exact decimal text: parsed back in binary128 it is the
    # value the run computed, and the float64 array is that value rounded.
    result = hysim.Model("bouncing-ball").run(t_end=3, scalar="float128", output_step=0.5)
    n = len(result["states"])
    for name in ("x_pre", "x_post"):
        rows = result["events"][name + "_exact"]
        assert len(rows) == len(result["events"]["t"]) and all(len(r) == n for r in rows)
        for row, values in zip(rows, result["events"][name]):
            assert [float(text) for text in row] == list(values)
    traj = result["trajectory"]
    assert len(traj["t_exact"]) == len(traj["t"]) and len(traj["x_exact"]) == len(traj["t"])
    assert [float(t) for t in traj["t_exact"]] == list(traj["t"])
    assert [float(x) for x in result["x_exact"]] == list(result["x"])
    assert "0.5" in traj["t_exact"]  # a grid time, exact
    assert hysim.Model("bouncing-ball").run(t_end=3)["x_exact"] is None
