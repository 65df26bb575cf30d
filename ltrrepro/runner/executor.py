"""Where a run's tasks execute: one interface, :class:`Executor`, three ways behind it.

* :class:`SerialExecutor` — in this process, one task after the other (``jobs`` = 1);
* :class:`LocalExecutor` — ``jobs`` local worker processes (joblib's ``loky``, or another of
  its local backends), results as they finish (``return_as="generator_unordered"``); loky's
  workers watch this process (:func:`~ltrrepro.runner.worker._watch_parent`) and are killed
  when the run fails or is interrupted, so that no worker outlives its run;
* :class:`DaskExecutor` — the workers of a dask.distributed cluster, through joblib's ``dask``
  backend, after the import check and with the watch that ends a run whose cluster went away
  (:mod:`ltrrepro.runner.cluster`).

:func:`make_executor` picks one from ``--backend`` and ``--jobs``; :func:`default_jobs_threads`
sizes the jobs and their threads.
"""
from __future__ import annotations

import os
import threading
from typing import Callable, Iterable, Iterator

from .cluster import (ClusterError, _check_cluster_imports, _cluster_failure, _quiet_dask_logs, _unit_modules,
                      _watch_cluster)

__all__ = ["Executor", "SerialExecutor", "LocalExecutor", "DaskExecutor", "make_executor", "default_jobs_threads"]

#: joblib's local backends that ``backend=`` may name (``sequential`` and ``jobs`` = 1: serial)
LOCAL_BACKENDS = ("loky", "threading", "multiprocessing", "sequential")


def default_jobs_threads(jobs: int | None, threads: int | None, n_units: int | None = None) -> tuple[int, int]:
    """``jobs`` processes × ``threads`` threads with ``jobs × threads ≤ cores`` unless both given."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    if jobs is None or jobs <= 0:
        jobs = cores if threads is None else max(1, cores // threads)
    if n_units is not None:                  # never more workers than units to run
        jobs = max(1, min(jobs, n_units))
    if threads is None or threads <= 0:
        threads = max(1, cores // jobs)
    return int(jobs), int(threads)



def _shutdown_loky_workers() -> None:
    """Kill the local worker processes without waiting on them.

    The executor is taken as it is (``loky.reusable_executor._executor``), never through
    ``get_reusable_executor()``: that call may resize the pool, which joins the executor's
    manager thread — and that thread can be waiting on the very lock the resize holds (it is
    dispatching the next task from a result callback), a deadlock that used to hang a run
    whose store failed (a full disk) for ever.
    """
    try:
        from joblib.externals.loky import reusable_executor
        executor = getattr(reusable_executor, "_executor", None)
        if executor is not None:
            executor.shutdown(wait=False, kill_workers=True)
    except Exception:  # noqa: BLE001 - best effort on the way out
        pass


def _close_quietly(results) -> None:
    """Close joblib's result generator: it aborts the tasks not yet started."""
    import warnings

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            results.close()
    except BaseException:  # noqa: BLE001 - already failing; the first error is the one reported
        pass



def _joblib_map(backend: str, n_jobs: int, fn: Callable, tasks: Iterable[tuple]) -> Iterator:
    """``fn(*task)`` for each task through joblib's ``backend``, each result as it finishes;
    closing the generator closes joblib's, which aborts the tasks not yet started."""
    import joblib

    with joblib.parallel_config(backend=backend, n_jobs=n_jobs):
        yield from joblib.Parallel(return_as="generator_unordered")(joblib.delayed(fn)(*t) for t in tasks)


class Executor:
    """Runs a run's tasks. In order: :meth:`check` (before any task), :meth:`map` (the results,
    each as its task finishes, in any order), on a failure or an interruption of the run
    :meth:`abort` (the tasks not yet started dropped) and :meth:`failure` (the error the run
    raises instead, if any), and always :meth:`close`."""

    #: the processes that run tasks at once
    jobs: int = 1
    #: whether the tasks run in local worker processes that should watch this one (``ctx.parent_pid``)
    local_workers: bool = False

    def check(self, task: Callable, fn: Callable, units: list, ctx) -> None:
        """Refuse, before anything runs, what cannot run there (nothing, here)."""

    def map(self, fn: Callable, tasks: Iterable[tuple]) -> Iterator:
        """``fn(*task)`` for each of ``tasks``, each as it finishes."""
        raise NotImplementedError

    def abort(self, results) -> None:
        """The run failed or was interrupted while reading ``results`` (:meth:`map`'s, or None
        before it): drop what is queued."""
        if results is not None:
            _close_quietly(results)

    def failure(self, err: BaseException) -> BaseException | None:
        """The error to raise instead of ``err`` (None: ``err`` itself)."""
        return None

    def close(self) -> None:
        """Release what :meth:`map` or the constructor took."""


class SerialExecutor(Executor):
    """In this process, one task after the other. joblib's ``sequential`` configuration is in
    force meanwhile, so that a unit's own joblib calls run in this process too."""

    def map(self, fn: Callable, tasks: Iterable[tuple]) -> Iterator:
        return self._map(fn, tasks)

    @staticmethod
    def _map(fn, tasks):
        import joblib

        with joblib.parallel_config(backend="sequential", n_jobs=1):
            for t in tasks:
                yield fn(*t)


class LocalExecutor(Executor):
    """``jobs`` local processes (or threads) of joblib's ``backend``."""

    def __init__(self, backend: str, jobs: int):
        self.backend, self.jobs = backend, int(jobs)
        self.local_workers = backend == "loky"

    def map(self, fn: Callable, tasks: Iterable[tuple]) -> Iterator:
        return _joblib_map(self.backend, self.jobs, fn, tasks)

    def abort(self, results) -> None:
        super().abort(results)
        if self.backend == "loky":           # no worker outlives the run
            _shutdown_loky_workers()


class DaskExecutor(Executor):
    """The workers of the dask.distributed cluster at ``scheduler`` (an address, or a
    ``Client``, which stays open after the run); ``scheduler_timeout``: seconds to connect, and
    seconds without workers or scheduler before the run ends with :class:`ClusterError`."""

    def __init__(self, scheduler, scheduler_timeout: float = 30):
        try:
            from dask.distributed import Client
        except ImportError as err:
            raise ImportError("--backend dask needs dask.distributed: pip install 'ltrrepro[dask]'") from err
        self.scheduler, self.timeout, self.owned = scheduler, scheduler_timeout, not isinstance(scheduler, Client)
        self.client = (scheduler if isinstance(scheduler, Client)
                       else Client(scheduler, timeout=f"{scheduler_timeout}s") if scheduler else None)
        if self.client is None:
            raise ValueError("--backend dask needs --scheduler ADDRESS (a running dask.distributed scheduler)")
        self.lost, self.stop, self.quieted, self.cluster_failed = [], None, {}, False

    def check(self, task: Callable, fn: Callable, units: list, ctx) -> None:
        """The scheduler imports what the tasks name (:func:`~ltrrepro.runner.cluster._check_cluster_imports`)."""
        try:
            _check_cluster_imports(self.client, self.scheduler if isinstance(self.scheduler, str)
                                   else self.client.scheduler.address, _unit_modules(task, fn, units, ctx))
        except ClusterError:
            if self.owned:
                self.client.close()
            raise

    def map(self, fn: Callable, tasks: Iterable[tuple]) -> Iterator:
        self.quieted = _quiet_dask_logs()
        self.stop = threading.Event()
        client = self.client
        address = (self.scheduler if isinstance(self.scheduler, str)
                   else getattr(client, "scheduler", None) and client.scheduler.address)
        threading.Thread(target=_watch_cluster, args=(client, address, self.timeout, self.stop, self.lost),
                         name="ltrrepro-cluster-watch", daemon=True).start()
        return _joblib_map("dask", -1, fn, tasks)

    def failure(self, err: BaseException) -> BaseException | None:
        """:class:`ClusterError` where the cluster went away (the watch's reason, or the
        cluster's own error: a lost connection, a cancelled future)."""
        if self.lost and not isinstance(err, KeyboardInterrupt):
            self.cluster_failed = True
            return ClusterError(self.lost[0])
        if _cluster_failure(err):
            text = str(err).strip()
            why = ("the connection to the scheduler was lost" if "connection" in text.lower()
                   else f"{type(err).__name__}: {text.splitlines()[0] if text else ''}")
            self.cluster_failed = True
            return ClusterError(f"the dask cluster at {self.scheduler if isinstance(self.scheduler, str) else 'the scheduler'}: "
                                f"{why}; finished units are kept: restart the cluster and run the same command "
                                f"again to resume")
        self.cluster_failed = isinstance(err, ClusterError)
        return None

    def close(self) -> None:
        import logging

        if self.stop is not None:
            self.stop.set()
        if self.owned:
            try:
                self.client.close()
            except Exception:  # noqa: BLE001 - a cluster already gone: the run's own error is the one to say
                pass
        if not (self.lost or self.cluster_failed):
            for name, level in self.quieted.items():     # after a lost cluster they stay quiet: its futures and
                logging.getLogger(name).setLevel(level)  # comms are still collected (and logged) up to exit


def make_executor(backend: str, jobs: int, scheduler=None, scheduler_timeout: float = 30) -> Executor:
    """The executor of ``backend`` (``loky`` or another of :data:`LOCAL_BACKENDS`, ``dask``)
    with ``jobs`` processes: a :class:`SerialExecutor` for a local backend with one job."""
    if backend == "dask":
        return DaskExecutor(scheduler, scheduler_timeout)
    if backend in LOCAL_BACKENDS:
        return LocalExecutor(backend, jobs) if jobs > 1 else SerialExecutor()
    raise ValueError(f"unknown backend {backend!r}: loky or dask")
