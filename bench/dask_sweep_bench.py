#!/usr/bin/env python3
"""What a sweep on a Dask cluster costs over the same sweep on threads (hysim.dask.sweep).

The README's sweep, `pwm-servo` over kp = 0.05:0.2:1000 to t_end = 10 s (about 1 ms a run),
on N cores two ways, in one process:
  threaded  hysim.Model.sweep(params, jobs=N)
  dask      hysim.dask.sweep(client, model, params) on a LocalCluster of N worker processes
            with one thread each (the cluster started beforehand and warmed by one small sweep:
            what is timed is the sweep itself, from the model to the joined columns)
The two take turns, round after round (--repeats), so that a slow spell of a shared machine
falls on both; each keeps its fastest time. Target: dask / threaded <= --target (1.2). Both
summaries must be the same but for the wall times (exit 1 otherwise, or when the target is
missed). A second row, the same sweep to t_end = 2 s (about 0.2 ms a run), is printed for
information: there the cluster's fixed cost of a sweep (sending the model, the tasks, the
columns back: a few tens of milliseconds) is a larger share.

Usage: PYTHONPATH=build/python dask_sweep_bench.py [--workers 2] [--repeats 5] [--target 1.2]
"""
import argparse
import sys
import time

import numpy as np

import hysim
import hysim.dask

PARAMS = {"kp": "0.05:0.2:1000"}


def same(a, b):
    """The summaries agree in every column but the wall time."""
    if list(a) != list(b):
        return False
    return all((np.array_equal(a[k], b[k], equal_nan=a[k].dtype.kind == "f") if isinstance(a[k], np.ndarray)
                else a[k] == b[k]) for k in a if k != "wall_s")


def measure(client, model, workers, t_end, repeats):
    best_threaded = best_dask = float("inf")
    agree = True
    for _ in range(repeats):
        start = time.perf_counter()
        threaded = model.sweep(PARAMS, jobs=workers, t_end=t_end)
        best_threaded = min(best_threaded, time.perf_counter() - start)
        start = time.perf_counter()
        spread = hysim.dask.sweep(client, model, PARAMS, t_end=t_end)
        best_dask = min(best_dask, time.perf_counter() - start)
        agree = agree and same(threaded, spread)
    return best_threaded, best_dask, agree


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--target", type=float, default=1.2)
    args = parser.parse_args()
    from dask.distributed import Client, LocalCluster
    cluster = LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True, dashboard_address=None)
    client = Client(cluster)
    model = hysim.Model("pwm-servo")
    hysim.dask.sweep(client, model, {"kp": "0.05:0.2:8"}, t_end=1.0)  # the workers import hysim
    ok = True
    print(f"1000 runs of pwm-servo on {args.workers} cores (best of {args.repeats})")
    print(f"{'t_end':>6} {'threaded s':>11} {'dask s':>8} {'ratio':>6} {'same':>5}  verdict")
    for t_end, judged in ((10.0, True), (2.0, False)):
        threaded, spread, agree = measure(client, model, args.workers, t_end, args.repeats)
        ratio = spread / threaded
        verdict = ("PASS" if ratio <= args.target else "FAIL") if judged else "(information)"
        ok = ok and agree and (ratio <= args.target or not judged)
        print(f"{t_end:6g} {threaded:11.3f} {spread:8.3f} {ratio:6.2f} {str(agree):>5}  {verdict}")
    client.close()
    cluster.close()
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
