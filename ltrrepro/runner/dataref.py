"""Data by path: workers read a dataset as memory-mapped ``.npy`` files.

:func:`materialize` writes a dataset once as ``.npy`` files (content-addressed), and
:meth:`DataRef.open` memory-maps them, once per process — so a unit's task carries a path,
never the arrays.
"""
from __future__ import annotations

import sys
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from ..data import RankingDataset, content_hash, load_npy_dir, npy_dir_ok, save_npy_dir

__all__ = ["DataRef", "materialize"]


@dataclass(frozen=True)
class DataRef:
    """A dataset stored as ``.npy`` files; workers open it memory-mapped, once per process."""

    path: str
    name: str = "dataset"

    def open(self) -> RankingDataset:
        return _open_cached(self.path, self.name)


@lru_cache(maxsize=4)
def _open_cached(path: str, name: str) -> RankingDataset:
    return load_npy_dir(path, name=name)


def materialize(ds: RankingDataset, cache_dir=None, fallback_dir=None) -> DataRef:
    """Store ``ds`` under ``cache_dir/datasets/<content hash>`` (once) and return its reference.

    ``cache_dir`` defaults to ``$LTRREPRO_CACHE`` or ``~/.cache/ltrrepro``. A complete entry
    is not written again; a damaged one (a file missing or truncated) is rewritten. When the
    cache cannot be written (read-only, full), ``fallback_dir`` (a run-local directory) is
    used instead, with a warning. Several processes may materialize the same data at once.
    """
    from ..fileio import default_cache_dir

    root = Path(cache_dir) if cache_dir is not None else default_cache_dir()
    name = content_hash(ds)
    entry = root / "datasets" / name
    if ds.meta.get("cache") == str(entry) and npy_dir_ok(entry):
        return DataRef(str(entry), ds.name)      # ds maps this entry: its hash was just computed from its bytes
    if npy_dir_ok(entry, verify=True):           # bytes changed in place are rewritten
        return DataRef(str(entry), ds.name)
    try:
        save_npy_dir(ds, entry, {"name": ds.name})
    except OSError as err:
        if fallback_dir is None:
            raise
        entry = Path(fallback_dir) / "datasets" / name
        print(f"warning: the cache {root} cannot be written ({err.strerror or err}); using {entry.parent}",
              file=sys.stderr)
        if not npy_dir_ok(entry, verify=True):
            save_npy_dir(ds, entry, {"name": ds.name})
    return DataRef(str(entry), ds.name)
