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
           "write_json", "to_jsonable"]


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
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix="." + path.name + ".", suffix=".tmp", dir=path.parent)
    os.close(fd)
    try:
        yield Path(tmp)
        if fsync:
            with open(tmp, "rb") as fh:
                os.fsync(fh.fileno())
        os.chmod(tmp, file_mode())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
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
