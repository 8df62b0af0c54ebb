#!/usr/bin/env python3
"""A hysim sweep on a Dask cluster with hysim.dask.sweep (docs/sweeps.md, "Across machines").

    PYTHONPATH=build/python python3 examples/python/dask_sweep.py                       # LocalCluster, 2 processes
    PYTHONPATH=build/python python3 examples/python/dask_sweep.py tcp://scheduler:8786  # a cluster

On a cluster of several machines, start `dask scheduler` on one and `dask worker
tcp://scheduler:8786` on each (with hysim importable there), then pass the scheduler's address.
"""
import sys

from dask.distributed import Client, LocalCluster

import hysim
import hysim.dask


def main():
    if len(sys.argv) > 1:
        client = Client(sys.argv[1])
    else:
        client = Client(LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None))
    # The README's sweep: 1000 runs of the PWM servo, kp from 0.05 to 0.2, to t = 10 s.
    summary = hysim.dask.sweep(client, hysim.Model("pwm-servo"), {"kp": "0.05:0.2:1000"}, t_end=10.0)
    events = summary["events"]
    print(f"{len(summary['run'])} runs; events from {events.min()} to {events.max()}; "
          f"reasons {sorted(set(summary['reason']))}")
    client.close()


if __name__ == "__main__":
    main()
