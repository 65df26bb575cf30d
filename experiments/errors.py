"""The ground floor of the experiments: what a user can cause and fix, and the one-line contract.

A user error (a bad option, a missing or malformed data file, an unusable ``--out`` or
scheduler, a broken plug-in) is reported as one line ``error: …`` with exit code 2 by every
command (:func:`cli` wraps its ``main``; :class:`ArgumentParser` reports a bad flag the same
way), and raised as the exception by the Python API; ``--debug`` shows the traceback instead.
Everything above this module (configurations, execution, the run, the command line) raises
these; nothing here imports the rest of the package.
"""
from __future__ import annotations

import argparse
import functools
import sys

from ltrrepro.data import QueryOrderError
from ltrrepro.datasets import DatasetNotFoundError
from ltrrepro.device import DeviceError
from ltrrepro.fileio import WriteError
from ltrrepro.fit.plugins import PluginError
from ltrrepro.runner import ClusterError
from ltrrepro.store import StoreError
from ltrrepro.svmlight import SVMLightFormatError

__all__ = ["UsageError", "USER_ERRORS", "cli", "ArgumentParser"]


class UsageError(Exception):
    """A user error: reported as one ``error: …`` line with exit code 2."""


#: what a user can cause and fix: reported as one line, never a traceback (unless --debug)
USER_ERRORS = (UsageError, WriteError, ClusterError, DeviceError, PluginError, SVMLightFormatError,
               DatasetNotFoundError, QueryOrderError, StoreError, MemoryError,
               FileNotFoundError, NotADirectoryError, IsADirectoryError, PermissionError)


def cli(main):
    """Wrap an entry point ``main(argv) -> int``: a user error is printed as ``error: …`` and
    returns 2; ``--debug`` in argv re-raises it with its traceback. SIGTERM unwinds like Ctrl-C
    (exit 130: the manifest ends ``interrupted``, finished units are kept)."""
    @functools.wraps(main)
    def wrapper(argv=None) -> int:
        argv = list(sys.argv[1:] if argv is None else argv)
        _terminate_as_interrupt()
        try:
            return main(argv)
        except USER_ERRORS as err:
            if "--debug" in argv:
                raise
            print(f"error: {error_text(err)}", file=sys.stderr)
            return 2
        except KeyboardInterrupt as err:
            if "--debug" in argv:
                raise
            print(f"interrupted ({str(err) or 'Ctrl-C'}): finished units are kept; the same command resumes",
                  file=sys.stderr)
            return 130
    return wrapper


def _terminate_as_interrupt() -> None:
    """SIGTERM (a cluster's job killer, ``kill``) unwinds like Ctrl-C: the manifest ends
    ``interrupted`` and the worker processes are shut down with the run."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        return

    def handler(signum, frame):
        raise KeyboardInterrupt(f"signal {signum}")

    if signal.getsignal(signal.SIGTERM) in (signal.SIG_DFL, None):
        signal.signal(signal.SIGTERM, handler)


class ArgumentParser(argparse.ArgumentParser):
    """argparse with one-line errors: ``error: …`` and exit code 2, and no abbreviated flags
    (``--conf`` is refused as unknown rather than read as ``--config``: a flag added later
    could otherwise change what an abbreviation in a user's script means)."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)

    def error(self, message):
        self.exit(2, f"error: {message} (see --help)\n")


def error_text(err: BaseException) -> str:
    """The one line of a user error; never empty (a ``MemoryError`` carries no message)."""
    text = str(err).strip()
    if text:
        return text
    if isinstance(err, MemoryError):
        return ("out of memory: the design is too large for this machine (give fewer trials, levels, models or "
                "queries; --estimate prints its cost first)")
    return type(err).__name__
