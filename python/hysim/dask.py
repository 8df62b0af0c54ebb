"""A sweep on a Dask cluster: the runs of Model.sweep cut into parts that the workers run.

    from dask.distributed import Client, LocalCluster
    import hysim, hysim.dask
    client = Client(LocalCluster(n_workers=4, threads_per_worker=1))
    summary = hysim.dask.sweep(client, "pwm-servo", {"kp": "0.05:0.2:1000"}, t_end=2.0)

The result has the columns of Model.sweep (docs/sweeps.md), in the order of the runs, with the
same values but the wall times: runs are numbered over the whole sweep and draws are seeded
by run, so which worker runs a part does not change it. The model travels with each part in its
pickle (a model file's text goes with it: nothing but hysim has to be installed on the workers)
and is made once per worker process. Dask itself is only used through `client`: this module does not import it.
"""
import math
import pickle

import numpy as np

from . import _core


# On a worker: the models of the parts it ran, by their pickles, so that a model (a model file's
# text is compiled) is made once per worker process, not once per part.
_models = {}


def _run_part(pickled, params, first, runs, arguments, options):
    """Runs [first, first + runs) of the sweep, on a worker."""
    model = _models.get(pickled)
    if model is None:
        if len(_models) >= 8:
            _models.clear()
        model = _models[pickled] = pickle.loads(pickled)
    return model.sweep(params, first=first, runs=runs, **arguments, **options)


def _join(parts):
    """The columns of consecutive parts, end to end (numpy arrays keep their dtype)."""
    joined = {}
    for name, first in parts[0].items():
        values = [part[name] for part in parts]
        joined[name] = np.concatenate(values) if isinstance(first, np.ndarray) else [v for part in values for v in part]
    return joined


def part_size(total, threads, parts_per_thread=4):
    """Runs per part: about `parts_per_thread` parts for each thread of the cluster, so that runs
    of unequal cost even out over the threads while each part's own cost (a task: about 3 ms of
    Dask's on a LocalCluster, and its columns sent back) stays small against its runs."""
    return max(1, math.ceil(total / (max(1, threads) * parts_per_thread)))


def sweep(client, model, params, draws=0, seed=1, events=3, scalar="double", chunk=0, jobs=1, **options):
    """Model.sweep(params, draws, seed, events=events, scalar=scalar, **options) on the workers of
    `client` (a dask.distributed.Client).

    model: a hysim.Model, or a catalog name or model file path (read here, sent as text).
    chunk: runs per task (0: about four tasks per thread of the cluster, `part_size`).
    jobs: threads of each task (1: one task per worker thread; a worker with N threads runs N
    tasks at once, each in its own thread, since a sweep releases the GIL).
    Every input is checked here, before anything is sent (ValueError naming the culprit, as
    Model.sweep). The number of runs is the sweep's own (Model.sweep_size). A worker's error is
    raised here; an interrupt cancels the parts not yet done.
    """
    if not isinstance(model, _core.Model):
        model = _core.Model(model)
    arguments = {"draws": draws, "seed": seed, "events": events, "scalar": scalar, "jobs": jobs}
    total = model.sweep_size(params, draws=draws, scalar=scalar, **options)
    if not isinstance(chunk, int) or chunk < 0:
        raise ValueError(f"hysim.dask.sweep: chunk must be an int >= 0, not {chunk!r}")
    if not isinstance(jobs, int) or jobs < 1:
        raise ValueError(f"hysim.dask.sweep: jobs must be an int >= 1, not {jobs!r}")
    size = chunk or part_size(total, sum(client.nthreads().values()))
    pickled = pickle.dumps(model)  # small: the model's name, preset, parameters and text
    futures = [client.submit(_run_part, pickled, params, first, min(size, total - first), arguments, options,
                             pure=False)
               for first in range(0, total, size)]
    try:
        return _join(client.gather(futures))
    except BaseException:
        client.cancel(futures)
        raise
