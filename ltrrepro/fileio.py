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
           "write_json", "to_jsonable", "WriteError", "LinkError", "check_no_links", "inside"]


class WriteError(OSError):
    """A file that could not be written (a full disk, a quota, a read-only or unwritable
    directory): an :class:`OSError` with the same ``errno`` whose message names the file and
    what to do. Nothing partial is left behind (see :func:`atomic_path`)."""

    @classmethod
    def of(cls, path, err: OSError, flag: str = "--out") -> "WriteError":
        """The error of writing ``path`` that failed with ``err``; its advice names ``flag``,
        the option that chose the folder (``--out``; an export's ``--to``)."""
        import errno as _errno

        code = err.errno
        what = {_errno.ENOSPC: f"free space on that filesystem or choose another {flag}",
                _errno.EDQUOT: f"free space within your quota or choose another {flag}",
                _errno.EROFS: f"the filesystem is read-only: choose another {flag}",
                _errno.EACCES: f"make the directory writable or choose another {flag}",
                _errno.EPERM: f"make the directory writable or choose another {flag}"}.get(
                    code, "check the path, then re-run: finished units are kept")
        name = _errno.errorcode.get(code, "") if code is not None else ""
        reason = err.strerror or str(err)
        out = cls(code, f"cannot write {path}: {reason}{f' ({name})' if name else ''}; {what}")
        out.filename, out.cause = str(path), err
        return out

    def for_flag(self, flag: str) -> "WriteError":
        """The same error advising another ``flag`` (an export re-words the store's ``--out``)."""
        cause = getattr(self, "cause", None)
        return WriteError.of(self.filename, cause, flag) if cause is not None else self

    def __str__(self) -> str:
        return self.strerror or super().__str__()


class LinkError(WriteError):
    """A path under a results directory that is a symbolic link ltrrepro did not make (a
    ``figures`` folder pointing at a paper's folder, a directory received with links in it):
    nothing is written through it, moved or deleted; the message names the link and its target."""

    @classmethod
    def at(cls, root, link: Path, flag: str = "--out") -> "LinkError":
        import errno as _errno

        try:
            target = os.readlink(link)
        except OSError:
            target = "?"
        out = cls(_errno.ELOOP, f"{link} is a symbolic link (to {target}); ltrrepro writes under {root} only through "
                                f"folders it made, and never moves or deletes a file outside it: nothing was written, "
                                f"moved or deleted; remove the link (the files it points to are yours and stay) or "
                                f"choose another {flag}")
        out.filename = str(link)
        return out


def check_no_links(root, names=None, flag: str = "--out") -> None:
    """Refuse (:class:`LinkError`) when one of ``names`` under ``root`` — relative paths of the
    files and folders a writer owns there, or with None every entry of ``root`` — or a folder
    on the way to it is a symbolic link. ``root`` itself may be a link (the user named it).
    Absent paths are fine: the writer makes them. ``flag``: the option that chose ``root``."""
    root = Path(root)
    if names is None:
        try:
            names = [e.name for e in os.scandir(root)]
        except OSError:
            return
    for name in names:
        here = root
        for part in Path(name).parts:
            here = here / part
            if os.path.islink(here):
                raise LinkError.at(root, here, flag)
            if not os.path.lexists(here):
                break


def inside(root, path) -> bool:
    """``path`` is no link itself and its real location lies under ``root``'s: the only files
    a clean-up may move or delete."""
    if os.path.islink(path):
        return False
    real, base = os.path.realpath(path), os.path.realpath(root)
    return os.path.commonpath([real, base]) == base and real != base


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
