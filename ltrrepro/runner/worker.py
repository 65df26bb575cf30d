"""What runs in a worker process: one unit (:func:`_execute`), its threads, and the watch
on the run's main process."""
from __future__ import annotations

import os
import time
import traceback
from typing import Callable

from .context import UnitContext
from .isolate import _run_isolated
from .record import UnitRecord
from .timeouts import _can_alarm, _time_limit
from .units import Unit, seed_globals

__all__: list = []


def _set_threads(threads: int) -> None:
    try:
        import numba
        numba.set_num_threads(max(1, min(threads, numba.config.NUMBA_NUM_THREADS)))
    except (ImportError, ValueError):
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


def _execute(fn: Callable, unit: Unit, ctx: UnitContext):
    """Run one unit in a worker; never raises (a failure comes back as a record).

    A unit whose model is in ``ctx.isolated`` (plug-in objectives: code the harness does
    not know) runs in a child process of its own (:func:`_run_isolated`), so that a plug-in
    that kills its process — ``os._exit``, a segfault, the out-of-memory killer — fails its
    own unit with the reason, and the worker and the other units go on. ``SystemExit`` raised
    by a unit (``sys.exit`` in a plug-in) is a failure too, never the end of the run.
    ``ctx.unit_timeout`` (seconds): a unit that runs longer fails with
    :class:`UnitTimeout` — an isolated unit's process is killed; another is stopped by a
    timer signal in this process's main thread (at the next Python instruction: a round of
    the library, a kernel call), or, where there is none (a dask worker's thread), it runs
    isolated. ``np.random`` and ``random`` are seeded for the unit (:func:`seed_globals`)."""
    if ctx.parent_pid:
        _watch_parent(int(ctx.parent_pid))
    _set_threads(ctx.threads)
    limit = ctx.unit_timeout
    t0 = time.perf_counter()
    try:
        if unit.model in ctx.isolated or (limit and not _can_alarm()):
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
