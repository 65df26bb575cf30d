"""A run on a dask.distributed cluster: the import check before any unit is sent, the watch
that ends a run whose cluster went away (:class:`ClusterError`), and the client's logs kept
quiet meanwhile."""
from __future__ import annotations

import logging
import time
from typing import Callable

__all__ = ["ClusterError"]


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


def _unit_modules(task, fn, units: list, ctx) -> list[str]:
    """The modules a unit's task names by reference when pickled: the task's (the runner's
    :func:`~ltrrepro.runner.worker._execute`), the unit function's, the units' classes', the
    context's class and its values' classes' (builtins excluded)."""
    mods = {getattr(task, "__module__", None), getattr(fn, "__module__", None), *(type(u).__module__ for u in units[:1]),
            type(ctx).__module__, *(type(v).__module__ for v in ctx.values())}
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
