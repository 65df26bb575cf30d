"""Writing SVMlight/LETOR text (plain, ``.gz``, ``.bz2``), atomically."""
from __future__ import annotations

import bz2
import gzip
from pathlib import Path

import numpy as np

from ..data import RankingDataset
from ..fileio import atomic_path

def write_svmlight(ds: RankingDataset, path, comment_docid: bool = True) -> None:
    """Write a dataset as SVMlight/LETOR text, 1-based indices, ``%.9g`` values.

    Zeros (and NaNs) are left out, so reading back with the matching ``missing`` rule
    gives the same float32 array bit for bit. ``.gz``/``.bz2`` suffixes compress.
    The file is written to a temporary name and renamed when complete.
    """
    path = Path(path)
    X = np.asarray(ds.X)
    ids = comment_docid and ds.docid is not None
    with atomic_path(path) as tmp, _open_write(tmp, path.name) as fh:
        for start in range(0, ds.n_docs, 4096):
            stop = min(start + 4096, ds.n_docs)
            block = X[start:stop]
            keep = (block != 0) & ~np.isnan(block)
            rows, cols = np.nonzero(keep)                    # row-major: each row's features in order
            values = block[rows, cols].astype(np.float64).tolist()
            tokens = [f"{j}:{v:.9g}" for j, v in zip((cols + 1).tolist(), values)]
            ends = np.cumsum(keep.sum(axis=1)).tolist()
            heads = [f"{y} qid:{q}" for y, q in zip(np.asarray(ds.y[start:stop]).astype(np.int64).tolist(),
                                                    np.asarray(ds.qid[start:stop]).astype(np.int64).tolist())]
            lines, a = [], 0
            for r, b in enumerate(ends):
                line = heads[r] + (" " + " ".join(tokens[a:b]) if b > a else "")
                if ids:
                    line += " #docid = " + ds.docid[start + r].decode("utf-8", "surrogateescape")
                lines.append(line)
                a = b
            fh.write(("\n".join(lines) + "\n").encode("utf-8", "surrogateescape"))   # ids: their bytes as read


def _open_write(path: Path, name: str):
    """``path`` opened for writing, compressed as the suffix of ``name`` says."""
    name = name.lower()
    if name.endswith(".gz"):
        return gzip.open(path, "wb", compresslevel=3)
    if name.endswith(".bz2"):
        return bz2.open(path, "wb")
    return open(path, "wb")

