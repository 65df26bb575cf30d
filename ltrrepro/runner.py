"""Experiment runner: units of work, their seeds, parallel execution and resumption.

A **unit** is one (experiment, dataset, trial, model, setting) — one trained model and its
evaluation. Its random streams all descend from one ``SeedSequence(seed)`` through fixed
spawn keys, so a unit's numbers depend only on the seed and on what the unit is, never on
the order, the number of workers or which units ran before:

* ``(trial, 0)``           — the trial's query split (:func:`ltrrepro.splits.trial_split`);
* ``(trial, 1, h(setting))`` — the training-data transform of a setting (noise, clicks),
  shared by every model of the trial: the comparison is paired;
* ``(trial, 2, h(setting), h(model))`` — the model's own randomness (XE_NDCG's γ, library seeds);
* ``(trial, 3, h(setting), h(model))`` — ``np.random``'s and ``random``'s global state, seeded
  in the process that runs the unit just before it runs (:func:`seed_globals`), so that code
  that draws from them anyway (a plug-in) gives the same numbers at every ``--jobs``;

``h`` is CRC-32 of the canonical text of the setting or model name.

:func:`run_units` runs the units that are not already stored (see :mod:`ltrrepro.store`)
with joblib (``return_as="generator_unordered"``): ``backend="loky"`` with ``jobs``
processes, or ``backend="dask"`` on a dask.distributed cluster. Each job gets ``threads``
threads (LightGBM/XGBoost ``num_threads`` and numba kernels), ``jobs × threads ≤ cores`` by
default. Results come back to the calling process, which writes each record as soon as it
arrives; a unit that raises is stored with its traceback and the others go on.

Workers read the data by path: :func:`materialize` writes a dataset once as ``.npy`` files
(content-addressed), and :meth:`DataRef.open` memory-maps them, once per process.
"""
from __future__ import annotations

import logging
import os
import sys
import threading
import time
import traceback
import zlib
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Callable, Iterable

import numpy as np

from .data import RankingDataset, content_hash, load_npy_dir, npy_dir_ok, save_npy_dir
from .store import ResultStore

__all__ = ["Unit", "UnitRecord", "unit_seed", "DataRef", "materialize", "run_units", "RunSummary",
           "default_jobs_threads", "UnitProcessDied", "UnitTimeout", "ClusterError", "seed_globals",
           "STREAM_SPLIT", "STREAM_TRANSFORM", "STREAM_MODEL", "STREAM_GLOBAL"]

STREAM_SPLIT, STREAM_TRANSFORM, STREAM_MODEL, STREAM_GLOBAL = 0, 1, 2, 3


def _h(text: str) -> int:
    return zlib.crc32(text.encode("utf-8"))


@dataclass(frozen=True)
class Unit:
    """One model trained and evaluated in one trial under one setting."""

    experiment: str
    dataset: str
    trial: int
    model: str
    setting: tuple = ()           # ((name, value), ...), in a fixed order
    seed: int = 0

    @property
    def setting_text(self) -> str:
        return ",".join(f"{k}={v}" for k, v in self.setting) or "base"

    @property
    def key(self) -> str:
        return f"{self.dataset}/t{self.trial:03d}/{self.setting_text}/{self.model}"

    @property
    def settings(self) -> dict:
        return dict(self.setting)

    def transform_seed(self) -> np.random.SeedSequence:
        """Seed of the training-data transform: shared by all models of this trial and setting."""
        return unit_seed(self.seed, self.trial, STREAM_TRANSFORM, self.setting_text)

    def model_seed(self) -> np.random.SeedSequence:
        return unit_seed(self.seed, self.trial, STREAM_MODEL, self.setting_text, self.model)

    def global_seed(self) -> np.random.SeedSequence:
        """Seed of ``np.random``'s and ``random``'s global state while the unit runs."""
        return unit_seed(self.seed, self.trial, STREAM_GLOBAL, self.setting_text, self.model)

    def describe(self) -> dict:
        return {"experiment": self.experiment, "dataset": self.dataset, "trial": self.trial, "model": self.model,
                "setting": dict(self.setting), "seed": self.seed}


def unit_seed(seed: int, trial: int, stream: int, *labels: str) -> np.random.SeedSequence:
    """``SeedSequence(seed, spawn_key=(trial, stream, h(label)...))`` (see module docstring).

    ``(trial, 0)`` equals ``SeedSequence(seed).spawn(trial + 1)[trial].spawn(1)[0]``, the
    stream of :func:`ltrrepro.splits.trial_split`.
    """
    return np.random.SeedSequence(seed, spawn_key=(int(trial), int(stream), *(_h(x) for x in labels)))


@contextmanager
def seed_globals(unit: Unit):
    """Within the block, ``np.random``'s and ``random``'s global state are seeded from the
    unit's own stream (:meth:`Unit.global_seed`), whatever ran in this process before; the
    process's previous states are restored after it. Units must draw from their generators;
    this makes one that draws from the global state anyway (a plug-in calling
    ``np.random.rand`` after iteration 0, on long lists only) repeatable at any ``--jobs``."""
    import random

    state = unit.global_seed().generate_state(4)              # 128 bits, uint32
    before = np.random.get_state(), random.getstate()
    np.random.seed(state)
    random.seed(int.from_bytes(state.tobytes(), "little"))
    try:
        yield
    finally:
        np.random.set_state(before[0])
        random.setstate(before[1])


# --------------------------------------------------------------------------- what a unit returns
@dataclass(frozen=True)
class UnitRecord:
    """What one unit's work gives back, the same shape for every study's unit function
    (``fn(unit, ctx) -> (UnitRecord, arrays)``), stored as its record (:meth:`to_dict`; the
    runner adds the unit, its seeds, status and timing).

    ``means``: metric (canonical name) -> its mean over the test queries (or the unit's own
    measures, e.g. a simulated gap); ``log``: one line for the progress output; ``family`` and
    ``variant``: the identity of the system that was trained (:class:`ltrrepro.fit.System`), as
    fields, never a name to split; ``library``: the GBDT library it ran in; ``fit``: the fit's
    scalars (``best_iteration``, ``n_trees``, ``train_loss``); ``timings``: seconds
    (``train_s``, ...); ``info``: what the fit and the data design report (sizes, realized
    parameters); ``fields``: the study's own fields, stored beside these under their names
    (curves, transforms, per-example values) — what its report's frame reads."""

    means: dict
    log: str = ""
    family: str | None = None
    variant: str | None = None
    library: str | None = None
    fit: dict | None = None
    timings: dict | None = None
    info: dict | None = None
    fields: dict = field(default_factory=dict)

    @classmethod
    def of(cls, system, means: dict, **kw) -> "UnitRecord":
        """The record of a unit that trained ``system`` (its ``family`` and ``variant`` taken as fields)."""
        return cls(means=means, family=system.family, variant=system.variant, **kw)

    def to_dict(self) -> dict:
        """The stored record: ``means``, ``log``, ``system`` ({family, variant}) and the other
        fields that are set, then the study's own fields."""
        clash = set(self.fields) & {"means", "log", "system", "library", "fit", "timings", "info"}
        if clash:
            raise ValueError(f"a study's own record fields may not reuse the common names: {sorted(clash)}")
        out = {"means": dict(self.means), "log": self.log}
        if self.family is not None:
            out["system"] = {"family": self.family, "variant": self.variant}
        for name in ("library", "fit", "timings", "info"):
            if getattr(self, name) is not None:
                out[name] = getattr(self, name)
        return {**out, **self.fields}


# --------------------------------------------------------------------------- data by path
@dataclass(frozen=True)
class DataRef:
    """A dataset stored as ``.npy`` files; workers open it memory-mapped, once per process."""

    path: str
    name: str = "dataset"

    def open(self) -> RankingDataset:
        return _open_cached(self.path, self.name)


@lru_cache(maxsize=4)
def _open_cached(path: str, name: str) -> RankingDataset:
    return load_npy_dir(path, name=name)


def materialize(ds: RankingDataset, cache_dir=None, fallback_dir=None) -> DataRef:
    """Store ``ds`` under ``cache_dir/datasets/<content hash>`` (once) and return its reference.

    ``cache_dir`` defaults to ``$LTRREPRO_CACHE`` or ``~/.cache/ltrrepro``. A complete entry
    is not written again; a damaged one (a file missing or truncated) is rewritten. When the
    cache cannot be written (read-only, full), ``fallback_dir`` (a run-local directory) is
    used instead, with a warning. Several processes may materialize the same data at once.
    """
    from .fileio import default_cache_dir

    root = Path(cache_dir) if cache_dir is not None else default_cache_dir()
    name = content_hash(ds)
    entry = root / "datasets" / name
    if ds.meta.get("cache") == str(entry) and npy_dir_ok(entry):
        return DataRef(str(entry), ds.name)      # ds maps this entry: its hash was just computed from its bytes
    if npy_dir_ok(entry, verify=True):           # bytes changed in place are rewritten
        return DataRef(str(entry), ds.name)
    try:
        save_npy_dir(ds, entry, {"name": ds.name})
    except OSError as err:
        if fallback_dir is None:
            raise
        entry = Path(fallback_dir) / "datasets" / name
        print(f"warning: the cache {root} cannot be written ({err.strerror or err}); using {entry.parent}",
              file=sys.stderr)
        if not npy_dir_ok(entry, verify=True):
            save_npy_dir(ds, entry, {"name": ds.name})
    return DataRef(str(entry), ds.name)


# --------------------------------------------------------------------------- execution
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


def _set_threads(threads: int) -> None:
    try:
        import numba
        numba.set_num_threads(max(1, min(threads, numba.config.NUMBA_NUM_THREADS)))
    except (ImportError, ValueError):
        pass


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


_WATCHDOG: list = []


def _watch_parent(parent_pid: int, every_s: float = 1.0) -> None:
    """In a local worker process: exit when the run's main process is gone (killed with
    SIGKILL, it cannot shut its workers down), so that no worker outlives its run."""
    import threading

    if _WATCHDOG or os.getpid() == parent_pid:
        return

    def watch():
        while True:
            time.sleep(every_s)
            try:
                os.kill(parent_pid, 0)
            except ProcessLookupError:
                os._exit(1)
            except PermissionError:          # pid reused by another user's process: ours is gone
                os._exit(1)

    _WATCHDOG.append(threading.Thread(target=watch, name="ltrrepro-parent-watch", daemon=True))
    _WATCHDOG[0].start()


class ClusterError(RuntimeError):
    """The dask cluster went away mid-run (every worker lost, or the scheduler): the run ends
    with this message after ``scheduler_timeout`` seconds; finished units are kept."""


def _watch_cluster(client, address, timeout: float, stop, lost: list, every_s: float = 1.0) -> None:
    """In a thread beside a dask run: when the cluster had workers and then has none, or the
    scheduler stops answering, for ``timeout`` seconds, say why in ``lost`` and close the
    client — which ends the run's wait for results (it would otherwise wait for ever)."""
    seen, since = False, None
    while not stop.wait(every_s):
        try:
            n = len(client.scheduler_info()["workers"])
            why = "every worker was lost" if (n == 0 and seen) else None
            seen = seen or n > 0
        except Exception as err:  # noqa: BLE001 - a scheduler that does not answer, however it fails
            why = f"the scheduler stopped answering ({type(err).__name__})"
        if why is None:
            since = None
            continue
        since = since or time.monotonic()
        if time.monotonic() - since >= timeout:
            lost.append(f"the dask cluster at {address}: {why} for {timeout:g} s (--scheduler-timeout); finished "
                        f"units are kept: restart the cluster and run the same command again to resume")
            try:
                client.close(timeout=5)
            except Exception:  # noqa: BLE001 - closing is what ends the wait; errors do not matter
                pass
            return


# The probe is compiled outside every installed module so that cloudpickle sends it by value:
# it runs on a scheduler or worker that cannot import ltrrepro itself, and says so.
_PROBE_SRC = """
def probe(modules):
    import importlib
    bad = {}
    for name in modules:
        try:
            importlib.import_module(name)
        except BaseException as err:
            bad[name] = type(err).__name__ + ': ' + str(err)
    return bad
"""


def _import_probe() -> Callable[[list], dict]:
    ns = {"__name__": "ltrrepro_cluster_probe"}
    exec(_PROBE_SRC, ns)                      # noqa: S102 - a constant source, for pickling by value
    return ns["probe"]


def _unit_modules(fn, units: list, ctx: dict) -> list[str]:
    """The modules a unit's task names by reference when pickled: the unit function's, the
    units' classes' and the context values' classes' (builtins excluded)."""
    mods = {__name__, getattr(fn, "__module__", None), *(type(u).__module__ for u in units[:1]),
            *(type(v).__module__ for v in ctx.values())}
    return sorted(m for m in mods if m and m != "builtins")


def _check_cluster_imports(client, address, modules: list[str]) -> None:
    """Before any unit is sent: the scheduler imports ``modules``. A scheduler whose environment
    lacks them would otherwise fail to unpickle the task graph, log it there, and leave this run
    waiting for ever (dask's client is never told). A worker that lacks them fails its units,
    each with its error, as any failing unit. (Probing the workers too, with ``client.run``, made
    a later loss of every worker end the run on a comm error that then hung the process at
    exit, in about half the runs of tests/e2e/test_cluster.py.) Raises :class:`ClusterError`
    naming the module and the fix."""
    probe = _import_probe()
    where = {}
    try:
        where["the scheduler"] = client.run_on_scheduler(probe, modules)
    except Exception as err:  # noqa: BLE001 - a cluster that cannot run the probe cannot run the units
        raise ClusterError(f"the dask cluster at {address} could not run an import check "
                           f"({type(err).__name__}: {str(err).strip().splitlines()[0] if str(err).strip() else ''}); "
                           f"check that its scheduler and workers run the same Python environment as this one")
    for machine, bad in where.items():
        if bad:
            name, why = next(iter(bad.items()))
            raise ClusterError(f"the dask cluster at {address}: {machine} cannot import {name} ({why}); install "
                               f"ltrrepro and the study's package in the environment of the scheduler and of every "
                               f"worker (the same versions as here), then run the same command again")


def _quiet_dask_logs() -> dict:
    """dask's client logs a lost scheduler as ERROR records with tracebacks on stderr (and
    asyncio its never-retrieved futures); the run says it once, as :class:`ClusterError` — so
    during a run those loggers keep CRITICAL only, and after a lost cluster until the process
    ends. Returns the levels to restore."""
    names = ("distributed.client", "distributed.core", "distributed.comm", "distributed.batched",
             "distributed.utils", "asyncio", "tornado.application")
    old = {n: logging.getLogger(n).level for n in names}
    for n in names:
        logging.getLogger(n).setLevel(logging.CRITICAL)
    return old


def _cluster_failure(err: BaseException) -> bool:
    """An error that comes from the cluster, not from a unit (units never raise out of
    :func:`_execute`): a future cancelled because the scheduler connection was lost, a
    closed comm."""
    import asyncio
    import concurrent.futures

    return (isinstance(err, (concurrent.futures.CancelledError, asyncio.CancelledError))
            or type(err).__module__.split(".")[0] == "distributed")


class UnitProcessDied(RuntimeError):
    """The process running an isolated unit ended without a result (``os._exit``, a crash, the
    out-of-memory killer): the unit fails with this reason, the run goes on."""


class UnitTimeout(RuntimeError):
    """A unit that ran longer than ``--unit-timeout``: it fails with this reason (its process,
    where it had one of its own, killed), the run goes on."""


def _execute(fn: Callable, unit: Unit, ctx: dict):
    """Run one unit in a worker; never raises (a failure comes back as a record).

    A unit whose model is in ``ctx["isolated"]`` (plug-in objectives: code the harness does
    not know) runs in a child process of its own (:func:`_run_isolated`), so that a plug-in
    that kills its process — ``os._exit``, a segfault, the out-of-memory killer — fails its
    own unit with the reason, and the worker and the other units go on. ``SystemExit`` raised
    by a unit (``sys.exit`` in a plug-in) is a failure too, never the end of the run.
    ``ctx["unit_timeout"]`` (seconds): a unit that runs longer fails with
    :class:`UnitTimeout` — an isolated unit's process is killed; another is stopped by a
    timer signal in this process's main thread (at the next Python instruction: a round of
    the library, a kernel call), or, where there is none (a dask worker's thread), it runs
    isolated. ``np.random`` and ``random`` are seeded for the unit (:func:`seed_globals`)."""
    if ctx.get("_parent_pid"):
        _watch_parent(int(ctx["_parent_pid"]))
    _set_threads(ctx.get("threads", 1))
    limit = ctx.get("unit_timeout")
    t0 = time.perf_counter()
    try:
        if unit.model in ctx.get("isolated", ()) or (limit and not _can_alarm()):
            record, arrays = _run_isolated(fn, unit, ctx)
        else:
            with seed_globals(unit), _time_limit(limit, unit):
                record, arrays = fn(unit, ctx)
        if isinstance(record, UnitRecord):
            record = record.to_dict()
        return "ok", unit, record, arrays, time.perf_counter() - t0, os.getpid()
    except (Exception, SystemExit) as err:  # noqa: BLE001 - every failure is recorded, the run goes on
        tb = getattr(err, "child_traceback", None) or traceback.format_exc()
        text = f"{type(err).__name__}: {err}" if not isinstance(err, SystemExit) else \
            f"SystemExit: the unit called sys.exit({err.code!r}); a unit must return or raise"
        return "failed", unit, {"error": getattr(err, "child_error", None) or text, "traceback": tb}, None, \
            time.perf_counter() - t0, os.getpid()


def _can_alarm() -> bool:
    import signal
    import threading

    return hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()


def _timeout_text(unit: Unit, limit: float) -> str:
    return (f"the unit ran longer than --unit-timeout {limit:g} s and was stopped (a model stuck in a loop, or a "
            f"limit too short for it); the other units go on")


@contextmanager
def _time_limit(limit, unit: Unit):
    """Raise :class:`UnitTimeout` in this (main) thread when the block runs longer than
    ``limit`` seconds (None: no limit)."""
    if not limit:
        yield
        return
    import signal

    armed = [True]

    def alarm(signum, frame):
        if armed[0]:
            raise UnitTimeout(_timeout_text(unit, limit))

    previous = signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, float(limit))
    try:
        yield
    finally:
        armed[0] = False
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _run_isolated(fn: Callable, unit: Unit, ctx: dict):
    """``fn(unit, ctx)`` in a process of its own; its result, its exception (as a failure
    carrying the child's traceback), or :class:`UnitProcessDied` naming how the child ended,
    or :class:`UnitTimeout` (the child killed) after ``ctx["unit_timeout"]`` seconds.

    The process is forked from this process's zygote (:class:`_Zygote`, Linux), which has
    imported numpy, LightGBM, XGBoost and the harness once: a unit starts in milliseconds
    instead of paying about 2.5 s of imports. Elsewhere, or while another thread of this
    process has the zygote, or if it cannot be started, it is a fresh interpreter
    (``python -m ltrrepro.isolated``). Either is a plain process, not ``multiprocessing``: it
    works from a loky worker and from a daemonic dask worker alike. The child gets this
    process's ``sys.path``, working directory, environment and standard output and error,
    and watches it: it exits when this process is gone; it seeds its global random state
    for the unit (:func:`seed_globals`)."""
    import pickle
    import shutil
    import signal
    import subprocess
    import tempfile

    timeout = ctx.get("unit_timeout")
    tmp = tempfile.mkdtemp(prefix="ltrrepro-unit-")
    try:
        result = os.path.join(tmp, "result.pickle")
        job_path = os.path.join(tmp, "job.pickle")
        with open(job_path, "wb") as fh:          # the path first: see ltrrepro.isolated
            pickle.dump(list(sys.path), fh, protocol=pickle.HIGHEST_PROTOCOL)
            pickle.dump({"cwd": os.getcwd(), "environ": dict(os.environ)}, fh, protocol=pickle.HIGHEST_PROTOCOL)
            pickle.dump({"parent_pid": os.getpid(), "fn": fn, "unit": unit, "ctx": ctx, "result": result}, fh, protocol=pickle.HIGHEST_PROTOCOL)
        try:
            code = _Zygote.run(fn, job_path, timeout)
            if code is None:
                code = subprocess.run([sys.executable, "-m", "ltrrepro.isolated", job_path],
                                      stdin=subprocess.DEVNULL, timeout=timeout or None).returncode
        except subprocess.TimeoutExpired:          # the child has been killed
            raise UnitTimeout(_timeout_text(unit, timeout)) from None
        if os.path.exists(result):
            with open(result, "rb") as fh:
                status, value = pickle.load(fh)
            if status == "ok":
                return value
            err = RuntimeError(value[0])
            err.child_error, err.child_traceback = value
            raise err
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if isinstance(code, str):
        why = code
    elif code < 0:
        try:
            why = f"killed by signal {signal.Signals(-code).name}"
        except ValueError:
            why = f"killed by signal {-code}"
        if -code == signal.SIGKILL:
            why += " (the out-of-memory killer?)"
    else:
        why = f"exited with code {code} (os._exit?)"
    raise UnitProcessDied(f"the process of unit {unit.key} ({unit.model}) ended without a result: {why}")


#: the packages whose modules the zygote may import because a child did: the harness and the
#: libraries it is built on — never a plug-in's own module, which is imported afresh by every
#: child (an edited plug-in is the edited one, a plug-in that breaks on import breaks its unit)
LEARN = frozenset({"numpy", "scipy", "pandas", "sklearn", "numba", "llvmlite", "joblib", "ltrrepro", "experiments"})


def _learnable(name: str) -> bool:
    """A module of :data:`LEARN`'s packages or of a library backend (``ltrrepro.fit.BACKENDS``)."""
    from .fit.backends import BACKENDS

    return name.partition(".")[0] in LEARN or name.partition(".")[0] in BACKENDS


class _Zygote:
    """This process's zygote: ``python -m ltrrepro.isolated --serve`` on one end of a socket
    pair, started at this process's first isolated unit and kept for the next ones (see
    :mod:`ltrrepro.isolated` for what it is and its protocol). One per process (a loky or dask
    worker, the main process); a process that forked from this one starts its own. A zygote
    is replaced when the environment variables that libraries read as they load
    (:data:`LOAD_TIME_ENV`) have changed since it started: its modules were loaded under the old
    values, and a fresh process would see the new ones."""

    _mine: dict = {}            # os.getpid() -> _Zygote
    _starting = threading.Lock()
    _at_exit: list = []         # the exit handler that closes this process's zygote, once registered
    #: prefixes of the environment variables read when a library loads (numba's configuration,
    #: the OpenMP and BLAS thread pools, the interpreter's own), not when it is called
    LOAD_TIME_ENV = ("NUMBA_", "OMP_", "GOMP_", "KMP_", "OPENBLAS_", "GOTO_", "MKL_", "BLIS_", "NUMEXPR_",
                     "VECLIB_", "PYTHON", "LD_", "MALLOC_")
    #: seconds to wait for the zygote's ``ready`` (its imports) and ``pid`` (its fork): past
    #: them it is killed; a unit it was not yet given runs in a fresh interpreter instead
    ANSWER_TIMEOUT = 120.0

    def __init__(self, modules: list):
        import json
        import socket
        import subprocess

        ours, theirs = socket.socketpair()
        try:
            self.proc = subprocess.Popen([sys.executable, "-m", "ltrrepro.isolated", "--serve", str(theirs.fileno())],
                                         pass_fds=(theirs.fileno(),), stdin=subprocess.DEVNULL)
        except BaseException:
            ours.close()
            raise
        finally:
            theirs.close()
        self.sock, self.buf, self.lock = ours, b"", threading.Lock()
        self.started_under = self._load_time_env()
        self.sock.sendall(f"preload {json.dumps({'path': list(sys.path), 'modules': modules})}\n".encode())

    @classmethod
    def _load_time_env(cls) -> dict:
        return {k: v for k, v in os.environ.items() if k.startswith(cls.LOAD_TIME_ENV)}

    @classmethod
    def run(cls, fn: Callable, job_path: str, timeout: float | None):
        """The exit code of the zygote's child that ran ``job_path`` (negative: the signal
        that killed it), a sentence where the zygote went away under it, or None where no
        zygote can take the job (run it in a fresh process). Raises
        :class:`subprocess.TimeoutExpired` after killing a child that ran over ``timeout``."""
        import socket

        if not (sys.platform.startswith("linux") and hasattr(socket, "send_fds")):
            return None
        with cls._starting:                                  # threads of one process start one zygote
            zygote = cls._mine.get(os.getpid())
            if zygote is not None and (zygote.proc.poll() is not None or zygote.started_under != cls._load_time_env()):
                if not zygote.lock.acquire(blocking=False):  # another thread's unit has it
                    return None
                try:
                    zygote.close()
                finally:
                    zygote.lock.release()
                zygote = None
            if zygote is None:
                try:
                    zygote = cls._mine[os.getpid()] = cls([fn.__module__] if _learnable(fn.__module__) else [])
                except OSError:
                    return None
                if not cls._at_exit:
                    import atexit

                    atexit.register(cls._close_mine)
                    cls._at_exit.append(True)
            if not zygote.lock.acquire(blocking=False):     # another thread's unit has it
                return None
        try:
            return zygote._run(job_path, timeout)
        finally:
            zygote.lock.release()

    @classmethod
    def _close_mine(cls) -> None:
        zygote = cls._mine.get(os.getpid())
        if zygote is not None:
            zygote.close()

    def _run(self, job_path: str, timeout: float | None):
        import json
        import signal
        import socket
        import subprocess

        try:
            self._line("ready", self.ANSWER_TIMEOUT)          # its imports done (they could hang: a plug-in's library)
            # the child's standard output and error: this process's, as a fresh process started now inherits
            socket.send_fds(self.sock, [f"job {json.dumps(job_path)}\n".encode()], [1, 2])
        except (OSError, ValueError):                        # the zygote never got the job: run it fresh
            self.close(kill=True)
            return None
        try:
            pid = int(self._line("pid", self.ANSWER_TIMEOUT))
        except ConnectionError:                              # it ended before it forked: run it fresh
            self.close()
            return None
        except (OSError, ValueError) as err:                 # it may have forked: never run the unit twice
            self.close(kill=True)
            return f"its zygote process did not answer ({type(err).__name__}: {err})"
        except BaseException:        # Ctrl-C, SIGTERM as it forks: the child goes with it, as below
            self._abandon()
            raise
        try:
            return int(self._line("exit", timeout))
        except TimeoutError:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:       # it ended just now: its "exit" line is read below all the same
                pass
            try:
                self._line("exit", self.ANSWER_TIMEOUT)
            except (OSError, ValueError):
                self.close(kill=True)
            raise subprocess.TimeoutExpired(job_path, timeout) from None
        except (OSError, ValueError):
            self._kill(pid)
            return "its zygote process ended while it ran (killed?)"
        except BaseException:        # Ctrl-C, SIGTERM in this process: the child goes with it, as under subprocess.run
            self._kill(pid)
            raise

    def _abandon(self) -> None:
        """Interrupted between a job and its ``pid`` line: the child (its ``pid`` comes at once
        after the fork) and the zygote killed, so no unit runs on unseen."""
        import signal

        try:
            os.kill(int(self._line("pid", 5.0)), signal.SIGKILL)
        except BaseException:  # noqa: BLE001 - no child, or one already gone
            pass
        self.close(kill=True)

    def _kill(self, pid: int) -> None:
        import signal

        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
        self.close()

    def _line(self, kind: str, timeout: float | None = None) -> str:
        import select

        deadline = None if timeout is None else time.monotonic() + timeout
        poll = select.poll()                  # not select.select: this socket's descriptor may be past 1024
        poll.register(self.sock, select.POLLIN)
        while b"\n" not in self.buf:
            wait = None if deadline is None else max(0.0, deadline - time.monotonic()) * 1000
            if not poll.poll(wait):
                raise TimeoutError(f"no {kind!r} line within {timeout:g} s")
            data = self.sock.recv(4096)
            if not data:
                raise ConnectionError("the zygote closed its socket")
            self.buf += data
        line, self.buf = self.buf.split(b"\n", 1)
        got, _, value = line.decode().partition(" ")
        if got != kind:
            raise ValueError(f"zygote said {line!r}, expected {kind!r}")
        return value

    def close(self, kill: bool = False) -> None:
        """Close the socket (the zygote exits) and reap it; ``kill``: SIGKILL it first (it may
        not be reading the socket)."""
        if kill:
            self.proc.kill()
        try:
            self.sock.close()
            self.proc.wait(timeout=5)
        except Exception:  # noqa: BLE001 - best effort
            self.proc.kill()
            try:
                self.proc.wait(timeout=5)                   # reaped: no zombie
            except Exception:  # noqa: BLE001 - best effort
                pass
        if self._mine.get(os.getpid()) is self:
            del self._mine[os.getpid()]


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


def run_units(units: Iterable[Unit], fn: Callable, ctx: dict, store: ResultStore, *, jobs: int | None = None,
              threads: int | None = None, backend: str = "loky", scheduler=None, force: bool = False,
              quiet: bool = False, log=None, scheduler_timeout: float = 30,
              unit_timeout: float | None = None) -> RunSummary:
    """Run every unit not already in ``store`` (all of them with ``force``); a unit running
    longer than ``unit_timeout`` seconds fails with :class:`UnitTimeout` (see :func:`_execute`).

    ``fn(unit, ctx) -> (record: UnitRecord | dict, arrays: dict)`` must be importable by the workers
    (a module-level function). ``ctx`` is passed to every call with ``threads`` added;
    keep it small (paths and settings, not arrays). ``scheduler`` is a dask.distributed
    address or ``Client`` for ``backend="dask"``.
    """
    import joblib
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
    ctx = {**ctx, "threads": threads, **({"unit_timeout": float(unit_timeout)} if unit_timeout else {})}
    if backend == "loky" and jobs > 1:       # local workers watch this process (see _watch_parent)
        ctx["_parent_pid"] = os.getpid()
    t0 = time.perf_counter()
    client = None
    if backend == "dask":
        try:
            from dask.distributed import Client
        except ImportError as err:
            raise ImportError("--backend dask needs dask.distributed: pip install 'ltrrepro[dask]'") from err
        client = (scheduler if isinstance(scheduler, Client)
                  else Client(scheduler, timeout=f"{scheduler_timeout}s") if scheduler else None)
        if client is None:
            raise ValueError("--backend dask needs --scheduler ADDRESS (a running dask.distributed scheduler)")
        try:
            _check_cluster_imports(client, scheduler if isinstance(scheduler, str) else client.scheduler.address,
                                   _unit_modules(fn, pending, ctx))
        except ClusterError:
            if not isinstance(scheduler, Client):
                client.close()
            raise
        cfg = joblib.parallel_config(backend="dask", n_jobs=-1)
    elif backend in ("loky", "threading", "multiprocessing", "sequential"):
        cfg = joblib.parallel_config(backend=backend if jobs > 1 else "sequential", n_jobs=jobs)
    else:
        raise ValueError(f"unknown backend {backend!r}: loky or dask")
    bar = tqdm(total=len(pending), disable=quiet, unit="unit", dynamic_ncols=True, file=sys.stderr)
    results, lost, stop = None, [], None
    quieted = _quiet_dask_logs() if client is not None else {}
    if client is not None:
        import threading
        stop = threading.Event()
        threading.Thread(target=_watch_cluster, args=(client, scheduler if isinstance(scheduler, str) else
                                                      getattr(client, "scheduler", None) and client.scheduler.address,
                                                      scheduler_timeout, stop, lost),
                         name="ltrrepro-cluster-watch", daemon=True).start()
    try:
        with cfg:
            results = joblib.Parallel(return_as="generator_unordered")(
                joblib.delayed(_execute)(fn, u, ctx) for u in pending)
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
        if results is not None:              # interrupted or failed: abort what is queued
            _close_quietly(results)
        if backend == "loky" and jobs > 1:   # no worker outlives the run
            _shutdown_loky_workers()
        if lost and not isinstance(err, KeyboardInterrupt):
            raise ClusterError(lost[0]) from None
        if client is not None and _cluster_failure(err):
            text = str(err).strip()
            why = ("the connection to the scheduler was lost" if "connection" in text.lower()
                   else f"{type(err).__name__}: {text.splitlines()[0] if text else ''}")
            raise ClusterError(f"the dask cluster at {scheduler if isinstance(scheduler, str) else 'the scheduler'}: "
                               f"{why}; finished units are kept: restart the cluster and run the same command "
                               f"again to resume") from None
        raise
    finally:
        if stop is not None:
            stop.set()
        bar.close()
        if client is not None and not isinstance(scheduler, Client):
            try:
                client.close()
            except Exception:  # noqa: BLE001 - a cluster already gone: the run's own error is the one to say
                pass
        if not (lost or (client is not None and sys.exc_info()[0] is ClusterError)):
            for name, level in quieted.items():      # after a lost cluster they stay quiet: its futures and
                logging.getLogger(name).setLevel(level)  # comms are still collected (and logged) up to exit
    summary.wall_s = time.perf_counter() - t0
    if summary.failed:
        log(f"{len(summary.failed)} of {len(pending)} unit(s) failed; tracebacks in {store.failures_dir}:")
        for k in summary.failed:
            log(f"  {k}")
    return summary
