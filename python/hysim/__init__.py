"""hysim: simulation of hybrid dynamic systems (docs/python.md).

Models from hysim's catalog, model files, model text or rule tables; runs in double, long double
or float128 with every option of `hysim run`; sweeps on every core, or on a Dask cluster with
hysim.dask.sweep. The engine is compiled (hysim._core); this package re-exports it.
"""
from ._core import (Error, InvalidArgument, Model, __version__, classes, models, reproduce, reproductions,
                    solvers, strategies, sweep)
from . import dask

# The classes print and pickle as hysim.X, the name users import them by.
for _type in (Error, InvalidArgument, Model):
    _type.__module__ = __name__
del _type

__all__ = ["Error", "InvalidArgument", "Model", "__version__", "classes", "dask", "models", "reproduce",
           "reproductions", "solvers", "strategies", "sweep"]
