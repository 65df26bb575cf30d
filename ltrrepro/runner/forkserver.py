"""The fork server ("zygote") of isolated units: one per process, started at its first
isolated unit, that has imported the harness and the libraries once and forks a child per
unit, so a plug-in unit starts in milliseconds instead of paying its imports (see
:mod:`ltrrepro.isolated` for the zygote's side and its protocol).
"""
from __future__ import annotations

import os
import sys
import threading
import time
from typing import Callable

__all__ = ["LEARN"]


#: the packages whose modules the zygote may import because a child did: the harness and the
#: libraries it is built on — never a plug-in's own module, which is imported afresh by every
#: child (an edited plug-in is the edited one, a plug-in that breaks on import breaks its unit)
LEARN = frozenset({"numpy", "scipy", "pandas", "sklearn", "numba", "llvmlite", "joblib", "ltrrepro", "experiments"})


def _learnable(name: str) -> bool:
    """A module of :data:`LEARN`'s packages or of a library backend (``ltrrepro.fit.BACKENDS``)."""
    from ..fit.backends import BACKENDS

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
