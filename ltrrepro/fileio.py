"""The ground floor of every file ltrrepro writes: the cache directory and atomic writes.

Every module that writes (the results store, the reader's cache, the runner's dataset
entries, saved models, report tables) goes through these helpers, so one rule holds
everywhere: a file is written to a temporary name in its own directory and moved into place
with ``os.replace`` — a process killed at any moment leaves the old file or the new one,
never half of one — and it gets the permissions the user's umask gives (``mkstemp`` and
``mkdtemp`` would make 0600/0700).
"""
from __future__ import annotations

import json
import os
import tempfile
from contextlib import contextmanager
from pathlib import Path

import numpy as np

__all__ = ["default_cache_dir", "file_mode", "atomic_path", "atomic_write_bytes", "atomic_write_text",
           "write_json", "to_jsonable", "WriteError"]


class WriteError(OSError):
    """A file that could not be written (a full disk, a quota, a read-only or unwritable
    directory): an :class:`OSError` with the same ``errno`` whose message names the file and
    what to do. Nothing partial is left behind (see :func:`atomic_path`)."""

    @classmethod
    def of(cls, path, err: OSError) -> "WriteError":
        import errno as _errno

        code = err.errno
        what = {_errno.ENOSPC: "free space on that filesystem or choose another --out",
                _errno.EDQUOT: "free space within your quota or choose another --out",
                _errno.EROFS: "the filesystem is read-only: choose another --out",
                _errno.EACCES: "make the directory writable or choose another --out",
                _errno.EPERM: "make the directory writable or choose another --out"}.get(
                    code, "check the path, then re-run: finished units are kept")
        name = _errno.errorcode.get(code, "") if code is not None else ""
        reason = err.strerror or str(err)
        out = cls(code, f"cannot write {path}: {reason}{f' ({name})' if name else ''}; {what}")
        out.filename = str(path)
        return out

    def __str__(self) -> str:
        return self.strerror or super().__str__()


def default_cache_dir() -> Path:
    """``$LTRREPRO_CACHE`` or ``~/.cache/ltrrepro``: the reader's parsed files and the
    runner's dataset entries live there."""
    return Path(os.environ.get("LTRREPRO_CACHE", Path.home() / ".cache" / "ltrrepro"))


def file_mode(directory: bool = False) -> int:
    """The mode a new file (0666 & ~umask) or directory (0777 & ~umask) gets under the user's umask."""
    mask = os.umask(0o022)
    os.umask(mask)
    return (0o777 if directory else 0o666) & ~mask


@contextmanager
def atomic_path(path, fsync: bool = True):
    """Yield a temporary path beside ``path``; when the block ends without an exception the
    temporary file becomes ``path`` in one ``os.replace`` (umask permissions), else it is
    removed. For writers that need a file name (gzip, numpy, matplotlib)."""
    path = Path(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix="." + path.name + ".", suffix=".tmp", dir=path.parent)
        os.close(fd)
    except WriteError:
        raise
    except OSError as err:
        raise WriteError.of(path, err) from err
    try:
        yield Path(tmp)
        if fsync:
            with open(tmp, "rb") as fh:
                os.fsync(fh.fileno())
        os.chmod(tmp, file_mode())
        os.replace(tmp, path)
    except BaseException as err:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        if isinstance(err, OSError) and not isinstance(err, WriteError):
            raise WriteError.of(path, err) from err
        raise


def atomic_write_bytes(path, data: bytes) -> None:
    with atomic_path(path) as tmp:
        with open(tmp, "wb") as fh:
            fh.write(data)


def atomic_write_text(path, text: str) -> None:
    atomic_write_bytes(path, text.encode("utf-8"))


def to_jsonable(obj):
    """numpy scalars/arrays, tuples and paths to plain JSON types (NaN kept as NaN)."""
    if isinstance(obj, dict):
        return {str(k): to_jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [to_jsonable(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return to_jsonable(obj.tolist())
    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, Path):
        return str(obj)
    return obj


def write_json(path, obj, indent: int | None = 1) -> Path:
    """``obj`` as JSON at ``path``, atomically."""
    atomic_write_text(Path(path), json.dumps(to_jsonable(obj), indent=indent, allow_nan=True))
    return Path(path)
