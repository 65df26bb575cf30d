"""Running a run's units: :func:`run_units` and its :class:`RunSummary`.

:func:`run_units` runs the units that are not already stored (see :mod:`ltrrepro.store`)
through an executor (:mod:`ltrrepro.runner.executor`): ``backend="loky"`` with ``jobs``
processes, or ``backend="dask"`` on a dask.distributed cluster. Each job gets ``threads``
threads (the libraries' ``num_threads`` and numba kernels), ``jobs × threads ≤ cores`` by
default. Results come back to the calling process, which writes each record as soon as it
arrives; a unit that raises is stored with its traceback and the others go on.
"""
from __future__ import annotations

import os
import sys
import time
from dataclasses import dataclass, field, replace
from typing import Callable, Iterable

from ..store import ResultStore
from .context import UnitContext
from .executor import default_jobs_threads, make_executor
from .units import Unit
from .worker import _execute

__all__ = ["RunSummary", "run_units"]


@dataclass
class RunSummary:
    n_units: int
    n_skipped: int
    n_done: int = 0
    failed: list = field(default_factory=list)       # keys
    wall_s: float = 0.0

    @property
    def ok(self) -> bool:
        return not self.failed

    @property
    def exit_code(self) -> int:
        return 0 if self.ok else 1


def run_units(units: Iterable[Unit], fn: Callable, ctx: UnitContext, store: ResultStore, *, jobs: int | None = None,
              threads: int | None = None, backend: str = "loky", scheduler=None, force: bool = False,
              quiet: bool = False, log=None, scheduler_timeout: float = 30,
              unit_timeout: float | None = None) -> RunSummary:
    """Run every unit not already in ``store`` (all of them with ``force``); a unit running
    longer than ``unit_timeout`` seconds fails with :class:`~ltrrepro.runner.UnitTimeout` (see
    :func:`~ltrrepro.runner.worker._execute`).

    ``fn(unit, ctx) -> (record: UnitRecord | dict, arrays: dict)`` must be importable by the workers
    (a module-level function). ``ctx`` (:class:`~ltrrepro.runner.UnitContext`) is passed to
    every call with ``threads`` (and ``unit_timeout``, ``parent_pid``) set; keep it small
    (paths and settings, not arrays). ``scheduler`` is a dask.distributed address or
    ``Client`` for ``backend="dask"``.
    """
    from tqdm.auto import tqdm

    log = log or (lambda msg: print(msg, file=sys.stderr))
    units = list(units)
    keys = [u.key for u in units]
    if len(set(keys)) != len(keys):
        raise ValueError("two units share a key")
    pending = units if force else [u for u in units if not store.is_done(u.key)]
    stale = [] if force else store.stale([u.key for u in pending])
    summary = RunSummary(n_units=len(units), n_skipped=len(units) - len(pending))
    if stale and not quiet:
        log(f"{len(stale)} stored unit(s) were computed under another configuration and will be recomputed")
    if summary.n_skipped and not quiet:
        log(f"resuming: {summary.n_skipped} of {len(units)} unit(s) already done in {store.root}")
    if not pending:
        return summary
    jobs, threads = default_jobs_threads(jobs, threads, len(pending))
    ctx = replace(ctx, threads=threads, unit_timeout=float(unit_timeout) if unit_timeout else ctx.unit_timeout)
    t0 = time.perf_counter()
    executor = make_executor(backend, jobs, scheduler, scheduler_timeout)
    if executor.local_workers:               # local workers watch this process (see _watch_parent)
        ctx = replace(ctx, parent_pid=os.getpid())
    executor.check(_execute, fn, pending, ctx)
    bar = tqdm(total=len(pending), disable=quiet, unit="unit", dynamic_ncols=True, file=sys.stderr)
    results = None
    try:
        results = executor.map(_execute, ((fn, u, ctx) for u in pending))
        for status, unit, record, arrays, elapsed, pid in results:
            if status == "ok":
                record = {**record, "unit": unit.describe(), "status": "ok",
                          "timings": {**record.get("timings", {}), "unit_s": elapsed},
                          "worker_pid": pid, "threads": threads,
                          "seeds": {"entropy": unit.seed, "transform_spawn_key": unit.transform_seed().spawn_key,
                                    "model_spawn_key": unit.model_seed().spawn_key}}
                store.write(unit.key, record, arrays)
                summary.n_done += 1
                line = f"done   {unit.key}  {elapsed:6.1f}s  {record.get('log', '')}"
            else:
                store.write_failure(unit.key, {**record, "unit": unit.describe(), "status": "failed",
                                               "elapsed_s": elapsed})
                summary.failed.append(unit.key)
                line = f"FAILED {unit.key}  {record['error']}"
            if not quiet:
                bar.write(line, file=sys.stderr)
            bar.update(1)
    except BaseException as err:
        executor.abort(results)              # interrupted or failed: abort what is queued
        instead = executor.failure(err)
        if instead is not None:
            raise instead from None
        raise
    finally:
        bar.close()
        executor.close()
    summary.wall_s = time.perf_counter() - t0
    if summary.failed:
        log(f"{len(summary.failed)} of {len(pending)} unit(s) failed; tracebacks in {store.failures_dir}:")
        for k in summary.failed:
            log(f"  {k}")
    return summary
