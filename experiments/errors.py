"""The ground floor of the experiments: what a user can cause and fix.

A user error (a bad option, a missing or malformed data file, an unusable ``--out`` or
scheduler, a broken plug-in) is reported as one line ``error: …`` with exit code 2 by the
command line, and raised as the exception by the Python API. Everything above this module
(configurations, execution, the run, the command line) raises these; nothing here imports
the rest of the package.
"""
from __future__ import annotations

from ltrrepro.data import QueryOrderError
from ltrrepro.datasets import DatasetNotFoundError
from ltrrepro.device import DeviceError
from ltrrepro.fileio import WriteError
from ltrrepro.fit.plugins import PluginError
from ltrrepro.runner import ClusterError
from ltrrepro.store import StoreError
from ltrrepro.svmlight import SVMLightFormatError

__all__ = ["UsageError", "USER_ERRORS"]


class UsageError(Exception):
    """A user error: reported as one ``error: …`` line with exit code 2."""


#: what a user can cause and fix: reported as one line, never a traceback (unless --debug)
USER_ERRORS = (UsageError, WriteError, ClusterError, DeviceError, PluginError, SVMLightFormatError,
               DatasetNotFoundError, QueryOrderError, StoreError, MemoryError,
               FileNotFoundError, NotADirectoryError, IsADirectoryError, PermissionError)
