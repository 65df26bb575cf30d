"""Experiment runner: units of work, their seeds, parallel execution and resumption.

A **unit** is one (experiment, dataset, trial, model, setting) — one trained model and its
evaluation, its random streams fixed by its seed and what it is (:mod:`.units`). A study's unit
function ``fn(unit, ctx) -> (UnitRecord, arrays)`` gets the run's :class:`UnitContext`
(:mod:`.context`) and returns a :class:`UnitRecord` (:mod:`.record`); :func:`run_units`
(:mod:`.run`) runs the units not already stored, through one executor (:mod:`.executor`:
serial, local processes, or a dask cluster — :mod:`.cluster`), each in a worker
(:mod:`.worker`) under ``--unit-timeout`` (:mod:`.timeouts`), a plug-in's in a process of its own
(:mod:`.isolate`) forked from the process's zygote (:mod:`.forkserver`). Workers read the data
by path (:mod:`.dataref`: :func:`materialize`, :class:`DataRef`).

Layers, each importing only those before it: ``units``, ``record``, ``context`` · ``dataref``,
``timeouts``, ``forkserver``, ``cluster`` · ``isolate`` · ``worker``, ``executor`` · ``run``
(``tests/experiments/test_import_graph.py`` holds them).
"""
from __future__ import annotations

from .cluster import ClusterError
from .context import UnitContext
from .dataref import DataRef, materialize
from .executor import DaskExecutor, Executor, LocalExecutor, SerialExecutor, default_jobs_threads, make_executor
from .isolate import UnitProcessDied
from .record import FINGERPRINT, UnitRecord, fingerprint
from .run import RunSummary, run_units
from .timeouts import UnitTimeout
from .units import STREAM_GLOBAL, STREAM_MODEL, STREAM_SPLIT, STREAM_TRANSFORM, Unit, seed_globals, unit_seed

__all__ = ["Unit", "UnitRecord", "UnitContext", "fingerprint", "FINGERPRINT", "unit_seed", "DataRef", "materialize", "run_units", "RunSummary",
           "default_jobs_threads", "UnitProcessDied", "UnitTimeout", "ClusterError", "seed_globals",
           "Executor", "SerialExecutor", "LocalExecutor", "DaskExecutor", "make_executor",
           "STREAM_SPLIT", "STREAM_TRANSFORM", "STREAM_MODEL", "STREAM_GLOBAL"]
