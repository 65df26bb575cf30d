"""Isolated units: a unit (a plug-in's) run in a process of its own, so that one that kills
its process — ``os._exit``, a segfault, the out-of-memory killer — fails its own unit with the
reason (:class:`UnitProcessDied`), and the worker and the other units go on.
"""
from __future__ import annotations

import os
import sys
from typing import Callable

from .context import UnitContext
from .forkserver import _Zygote
from .timeouts import UnitTimeout, _timeout_text
from .units import Unit

__all__ = ["UnitProcessDied"]


class UnitProcessDied(RuntimeError):
    """The process running an isolated unit ended without a result (``os._exit``, a crash, the
    out-of-memory killer): the unit fails with this reason, the run goes on."""



def _run_isolated(fn: Callable, unit: Unit, ctx: UnitContext):
    """``fn(unit, ctx)`` in a process of its own; its result, its exception (as a failure
    carrying the child's traceback), or :class:`UnitProcessDied` naming how the child ended,
    or :class:`UnitTimeout` (the child killed) after ``ctx.unit_timeout`` seconds.

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

    timeout = ctx.unit_timeout
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
