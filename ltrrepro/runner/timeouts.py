"""``--unit-timeout``: a unit that runs longer than its limit fails with :class:`UnitTimeout`.

In the main thread of the process that runs the unit, a timer signal (``SIGALRM``) stops
it at the next Python instruction (:func:`_time_limit`); where there is no such thread (a dask
worker's thread) or no timer (:func:`_can_alarm`), the unit runs in a process of its own,
killed at the limit (:mod:`ltrrepro.runner.isolate`).
"""
from __future__ import annotations

from contextlib import contextmanager

from .units import Unit

__all__ = ["UnitTimeout"]


class UnitTimeout(RuntimeError):
    """A unit that ran longer than ``--unit-timeout``: it fails with this reason (its process,
    where it had one of its own, killed), the run goes on."""



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
