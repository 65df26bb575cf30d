"""The child process of an isolated unit (:func:`ltrrepro.runner.isolate._run_isolated`).

    python -m ltrrepro.isolated JOB.pickle            # one unit in a fresh interpreter
    python -m ltrrepro.isolated --serve FD            # a zygote: one forked child per unit

The job file holds three pickles: the parent's ``sys.path`` (read first, because the unit
function and the plug-in are unpickled by reference and only that path finds them), the
parent's working directory and environment (set before the job is unpickled: unpickling
imports the plug-in's module, which must see them as a fresh process would), then the job
(parent pid, unit function, unit, context, result path). The child runs the unit and writes ``("ok", (record, arrays))``
or ``("failed", (error, traceback))`` to the result path, atomically; a process that dies (a
segfault, ``os._exit``) writes nothing, and the parent names how it ended. The child exits
when its parent is gone.

**The zygote** (Linux). A fresh interpreter pays its imports — about 2.5 s of CPU for
numpy, scipy, pandas, LightGBM, XGBoost and the harness — before the unit starts, and every
plug-in unit of a run used to pay them. The zygote is one long-lived process per worker
(:class:`ltrrepro.runner.forkserver._Zygote`) that imports those modules once — :data:`PRELOAD` at its
start, then whatever its children imported from the packages in
:data:`ltrrepro.runner.forkserver.LEARN` and the library backends — never trains or runs a
kernel (so no OpenMP or numba thread pool exists in it: forking after one started can hang
the child), and forks a child per unit. The child is a process of its own exactly as before
— its crash, ``os._exit`` or kill is its own — and it takes, from the job, the parent's
``sys.path``, working directory and environment, and, over the socket (``SCM_RIGHTS``), the
parent's standard output and error at the time of the unit, so it sees what a fresh process
started then would see. The protocol on the socket is lines: the parent sends ``preload {"path": sys.path,
"modules": [...]}`` once, then ``job "JOB.pickle"`` (JSON) with its two descriptors per unit;
the zygote answers ``ready`` when its imports are done (after the preload, and again after each
child's modules), ``pid N`` when the child is forked and ``exit C`` when it has ended (``C`` as
:attr:`subprocess.Popen.returncode`: negative for a signal). The parent sends a job only after
``ready``, so a zygote whose imports hang is replaced by a fresh interpreter for that unit,
which then cannot have run twice. The zygote exits when its parent closes the socket or is gone.
"""
from __future__ import annotations

import importlib
import json
import os
import pickle
import signal
import sys
import traceback

#: what the zygote imports before its first fork (with the unit function's module, when it is
#: :func:`ltrrepro.runner.forkserver._learnable`); after each child it also imports what the child
#: imported from those packages
PRELOAD = ("numpy", "pandas", "ltrrepro.runner", "ltrrepro.fit", "ltrrepro.objectives", "ltrrepro.metrics")


def _learned(job_path: str) -> str:
    """Where a forked child lists the modules it imported: beside its job file."""
    return os.path.join(os.path.dirname(job_path), "modules")


def main(job_path: str) -> int:
    with open(job_path, "rb") as fh:
        sys.path[:] = pickle.load(fh)
        at = pickle.load(fh)         # the parent's, as at this unit (a forked child has the zygote's) ...
        os.chdir(at["cwd"])
        os.environ.clear()
        os.environ.update(at["environ"])
        job = pickle.load(fh)        # ... before this imports the plug-in's module
    from ltrrepro.runner.units import seed_globals
    from ltrrepro.runner.worker import _set_threads, _watch_parent

    _watch_parent(int(job["parent_pid"]))
    _set_threads(int(job["ctx"].threads))
    try:
        with seed_globals(job["unit"]):          # the unit's global random state, whatever --jobs
            out = ("ok", job["fn"](job["unit"], job["ctx"]))
    except SystemExit as err:
        out = ("failed", (f"SystemExit: the unit called sys.exit({err.code!r}); a unit must return or raise",
                          traceback.format_exc()))
    except BaseException as err:  # noqa: BLE001 - sent to the parent, which records it
        out = ("failed", (f"{type(err).__name__}: {err}", traceback.format_exc()))
    tmp = job["result"] + ".tmp"
    with open(tmp, "wb") as fh:
        pickle.dump(out, fh, protocol=pickle.HIGHEST_PROTOCOL)
    os.replace(tmp, job["result"])
    return 0


#: never imported by the zygote: numba's thread pools (a pool's library loaded before a fork)
NEVER = ("numba.np.ufunc.omppool", "numba.np.ufunc.tbbpool", "numba.np.ufunc.workqueue")


def _import(names) -> None:
    for name in names:
        if name not in sys.modules and not name.startswith(NEVER):
            try:
                importlib.import_module(name)
            except BaseException:  # noqa: BLE001 - a child imports it again and reports its own error
                pass


def _child(sock, job_path: str, fds: list, sigint) -> None:
    """In the forked child: the parent's standard output and error, then the unit; never
    returns (``os._exit``: the zygote's exit handlers and buffers are not the child's)."""
    code = 1
    try:
        signal.signal(signal.SIGINT, sigint)
        sock.close()
        for fd, target in zip(fds, (1, 2)):
            os.dup2(fd, target)
            os.close(fd)
        devnull = os.open(os.devnull, os.O_RDONLY)
        os.dup2(devnull, 0)
        os.close(devnull)
        code = main(job_path)
        from ltrrepro.runner.forkserver import _learnable

        with open(_learned(job_path), "w") as fh:         # what it imported, for the zygote's next children
            fh.write("\n".join(n for n in list(sys.modules) if _learnable(n)))
    except BaseException:  # noqa: BLE001 - main records the unit's own failures; this is the child's set-up
        traceback.print_exc()
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except Exception:  # noqa: BLE001 - the process ends either way
                pass
        os._exit(code)


def serve(fd: int) -> int:
    """The zygote's loop on the socket ``fd`` (see the module's docstring)."""
    import socket
    import warnings

    sock = socket.socket(fileno=fd)
    # Ctrl-C reaches the whole process group: the run and its children end it; the zygote
    # ends when its parent does, quietly (its children get Ctrl-C as a fresh process would)
    sigint = signal.signal(signal.SIGINT, signal.SIG_IGN)
    buf = b""
    while True:
        while b"\n" not in buf:
            try:
                msg, fds, _flags, _addr = socket.recv_fds(sock, 65536, 2)
            except OSError:
                return 0
            if not msg:
                return 0                                    # the parent closed the socket, or is gone
            buf += msg
        line, buf = buf.split(b"\n", 1)
        kind, _, arg = line.decode().partition(" ")
        arg = json.loads(arg)
        if kind == "preload":                               # {"path": the parent's sys.path, "modules": [...]}
            sys.path[:] = arg["path"]
            _import(PRELOAD + tuple(arg["modules"]))
            try:
                sock.sendall(b"ready\n")
            except OSError:
                return 0
            continue
        with warnings.catch_warnings():                     # 3.12+: fork in a process with (BLAS) threads
            warnings.simplefilter("ignore", DeprecationWarning)
            pid = os.fork()
        if pid == 0:
            _child(sock, arg, list(fds), sigint)
        for f in fds:
            os.close(f)
        try:
            sock.sendall(f"pid {pid}\n".encode())
            _, status = os.waitpid(pid, 0)
            names = []
            if os.path.exists(_learned(arg)):               # read before the parent removes the job's folder
                with open(_learned(arg)) as fh:
                    names = fh.read().split()
            sock.sendall(f"exit {os.waitstatus_to_exitcode(status)}\n".encode())
        except OSError:
            return 0
        _import(names)
        try:
            sock.sendall(b"ready\n")
        except OSError:
            return 0


if __name__ == "__main__":
    if sys.argv[1] == "--serve":
        sys.exit(serve(int(sys.argv[2])))
    sys.exit(main(sys.argv[1]))
