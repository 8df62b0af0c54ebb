#!/usr/bin/env python3
"""A hysim sweep spread over a Dask cluster (docs/sweeps.md, "Across machines").

The sweep is cut into chunks of consecutive runs; each chunk runs in a Dask worker with
hysim.Model.sweep(..., first=, runs=), on every core of that worker's machine, and the
summaries are gathered and joined in the order of the runs. Runs are numbered and draws are
seeded by run, so the joined summary is the one `hysim sweep` writes on one machine.

    PYTHONPATH=build/python python3 examples/python/dask_sweep.py   # a LocalCluster of 2 processes
    PYTHONPATH=build/python python3 examples/python/dask_sweep.py tcp://scheduler:8786

On a cluster of several machines, start `dask scheduler` on one and `dask worker
tcp://scheduler:8786` on each (with hysim importable there), then pass the scheduler's address.
"""
import sys

import numpy as np


def run_chunk(model, params, first, runs, options):
    import hysim  # imported in the worker's process
    return hysim.Model(model).sweep(params, first=first, runs=runs, **options)


def dask_sweep(client, model, params, total, chunk, **options):
    """The summary of `total` runs (the whole sweep), computed in chunks of `chunk` runs."""
    futures = [client.submit(run_chunk, model, params, first, min(chunk, total - first), options, pure=False)
               for first in range(0, total, chunk)]
    parts = client.gather(futures)
    joined = {}
    for name in parts[0]:
        values = [part[name] for part in parts]
        joined[name] = np.concatenate(values) if isinstance(values[0], np.ndarray) else sum(values, [])
    return joined


def main():
    from dask.distributed import Client, LocalCluster
    params = {"kp": "0.05:0.2:200"}
    if len(sys.argv) > 1:
        client = Client(sys.argv[1])
    else:
        client = Client(LocalCluster(n_workers=2, threads_per_worker=1, processes=True))
    summary = dask_sweep(client, "pwm-servo", params, total=200, chunk=25, t_end=2.0, jobs=1)
    print(f"{len(summary['run'])} runs; events from {int(summary['events'].min())} to {int(summary['events'].max())}")
    client.close()


if __name__ == "__main__":
    main()
