"""The ranking dataset: rows sorted by query, each query contiguous, carried with offsets.

Every kernel in ltrrepro walks ``offsets`` (length ``n_queries + 1``): the documents of
query ``q`` are rows ``offsets[q]:offsets[q + 1]``. Rows are never reordered: the order
of documents inside a query is the order of the input file, which is also the tie-break
order of every metric (LightGBM and XGBoost break tied scores the same way).
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator, Sequence

import numpy as np

from .fileio import file_mode

__all__ = ["RankingDataset", "offsets_from_qids", "query_index", "QueryOrderError", "save_npy_dir",
           "load_npy_dir", "MAX_LABEL"]

#: the largest relevance label a dataset takes by default (graded relevance; the exp2 gain
#: table of the metrics goes to 31): a larger one is an error unless ``max_label`` is raised.
#: The svmlight reader's default too (:data:`ltrrepro.svmlight.MAX_LABEL`, this value): it is
#: defined here, in the lower layer, which the reader's package imports
MAX_LABEL = 31


class QueryOrderError(ValueError):
    """Raised when the rows of a query are not contiguous."""


def offsets_from_qids(qid: np.ndarray) -> np.ndarray:
    """Query offsets of a qid vector whose queries are contiguous.

    >>> offsets_from_qids(np.array([7, 7, 3, 3, 3, 9]))
    array([0, 2, 5, 6])

    Raises :class:`QueryOrderError` when a qid reappears after another query
    (the message gives the row of the reappearance, 0-based).
    """
    qid = np.asarray(qid)
    n = qid.shape[0]
    if n == 0:
        return np.zeros(1, dtype=np.int64)
    starts = np.flatnonzero(np.r_[True, qid[1:] != qid[:-1]])
    run_q = qid[starts]
    order = np.argsort(run_q, kind="stable")
    dup = np.flatnonzero(run_q[order][1:] == run_q[order][:-1])
    if dup.size:
        # the later run of the repeated qid, in file order
        bad_runs = np.maximum(order[dup], order[dup + 1])
        row = int(starts[bad_runs.min()])
        first = int(starts[np.flatnonzero(run_q == qid[row])[0]])
        raise QueryOrderError(
            f"query {qid[row].item()!r} is not contiguous: it starts at row {first} and appears "
            f"again at row {row} after other queries; sort the rows by query "
            "(stable, to keep the document order) before loading"
        )
    return np.r_[starts, n].astype(np.int64)


def query_index(offsets: np.ndarray) -> np.ndarray:
    """Query number of every row: ``query_index([0, 2, 5]) -> [0, 0, 1, 1, 1]``."""
    sizes = np.diff(offsets)
    return np.repeat(np.arange(sizes.size, dtype=np.int64), sizes)


@dataclass(eq=False)
class RankingDataset:
    """Features, labels and query structure of a learning-to-rank dataset.

    Attributes
    ----------
    X : float32 array (n_docs, n_features), C-contiguous (may be a read-only memory map).
    y : int32 array (n_docs,), graded relevance labels >= 0.
    qid : int64 array (n_docs,), the query id of each row, as in the source file.
    offsets : int64 array (n_queries + 1,), query boundaries.
    docid : optional array of bytes (n_docs,), from ``#docid = ...`` comments.
    name : a label used in reports.

    Operations that select or combine queries (:meth:`subset`, :meth:`concat`) copy ``X``;
    :meth:`query` and :meth:`iter_queries` return views.
    """

    X: np.ndarray
    y: np.ndarray
    qid: np.ndarray
    offsets: np.ndarray = None  # type: ignore[assignment]
    docid: np.ndarray | None = None
    name: str = "dataset"
    meta: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        X = self.X
        if X.ndim != 2:
            raise ValueError(f"X must be 2-D (n_docs, n_features), got shape {X.shape}")
        if X.dtype != np.float32 or not X.flags.c_contiguous:
            X = np.ascontiguousarray(X, dtype=np.float32)
        self.X = X
        n = X.shape[0]
        self.y = np.asarray(self.y)
        if self.y.shape != (n,):
            raise ValueError(f"y has shape {self.y.shape}, expected ({n},)")
        if self.y.dtype.kind == "f":
            if not np.all(np.isfinite(self.y)) or np.any(self.y != np.round(self.y)):
                raise ValueError("labels must be non-negative integers")
        self.y = self.y.astype(np.int32, copy=False)
        if n and self.y.min() < 0:
            raise ValueError("labels must be non-negative integers")
        self.qid = np.asarray(self.qid)
        if self.qid.shape != (n,):
            raise ValueError(f"qid has shape {self.qid.shape}, expected ({n},)")
        if self.offsets is None:
            self.offsets = offsets_from_qids(self.qid)
        else:
            self.offsets = np.asarray(self.offsets, dtype=np.int64)
            if self.offsets[0] != 0 or self.offsets[-1] != n or np.any(np.diff(self.offsets) <= 0):
                raise ValueError("offsets must start at 0, end at n_docs and increase strictly")
        if self.docid is not None and len(self.docid) != n:
            raise ValueError("docid must have one entry per row")

    # ------------------------------------------------------------------ shape
    @property
    def n_docs(self) -> int:
        return int(self.X.shape[0])

    @property
    def n_features(self) -> int:
        return int(self.X.shape[1])

    @property
    def n_queries(self) -> int:
        return int(self.offsets.shape[0] - 1)

    @property
    def query_sizes(self) -> np.ndarray:
        return np.diff(self.offsets)

    @property
    def query_ids(self) -> np.ndarray:
        """The qid of each query, in order."""
        return self.qid[self.offsets[:-1]]

    def __len__(self) -> int:
        return self.n_queries

    def __repr__(self) -> str:
        return (f"RankingDataset(name={self.name!r}, queries={self.n_queries}, "
                f"docs={self.n_docs}, features={self.n_features})")

    # ------------------------------------------------------------- query ops
    def query(self, q: int) -> tuple[np.ndarray, np.ndarray]:
        """Views ``(X, y)`` of query number ``q`` (no copy)."""
        a, b = self.offsets[q], self.offsets[q + 1]
        return self.X[a:b], self.y[a:b]

    def iter_queries(self) -> Iterator[tuple[int, np.ndarray, np.ndarray]]:
        """Yield ``(qid, X_view, y_view)`` per query, in order (no copy)."""
        for q in range(self.n_queries):
            a, b = self.offsets[q], self.offsets[q + 1]
            yield int(self.qid[a]), self.X[a:b], self.y[a:b]

    def row_index(self, queries: np.ndarray) -> np.ndarray:
        """Row numbers of the given query numbers, in the given query order."""
        queries = np.asarray(queries, dtype=np.int64)
        sizes = self.offsets[queries + 1] - self.offsets[queries]
        starts = np.repeat(self.offsets[queries] - np.cumsum(sizes) + sizes, sizes)
        return starts + np.arange(sizes.sum(), dtype=np.int64)

    def subset(self, queries: Sequence[int] | np.ndarray, name: str | None = None) -> "RankingDataset":
        """A new dataset with the given query numbers, in that order (copies ``X``).

        The order of documents inside each query is kept.
        """
        queries = np.asarray(queries, dtype=np.int64)
        if queries.size and (queries.min() < 0 or queries.max() >= self.n_queries):
            raise IndexError("query number out of range")
        if np.unique(queries).size != queries.size:
            raise ValueError("a query is selected twice; its qid would not be contiguous-unique")
        rows = self.row_index(queries)
        sizes = self.offsets[queries + 1] - self.offsets[queries]
        return RankingDataset(
            X=self.X[rows], y=self.y[rows], qid=self.qid[rows],
            offsets=np.r_[0, np.cumsum(sizes)].astype(np.int64),
            docid=None if self.docid is None else self.docid[rows],
            name=name or self.name, meta=dict(self.meta),
        )

    @classmethod
    def from_frame(cls, df, qid: str = "qid", label: str = "label", features=None, docid: str | None = None,
                   name: str = "frame", max_label: int | None = None) -> "RankingDataset":
        """A dataset from a pandas DataFrame (Parquet, CSV, … through pandas): one row per
        document, in the frame's order; ``features`` the feature columns in order (default:
        every other numeric column, in frame order). Queries must be contiguous, as in a file
        (:class:`QueryOrderError` names the first offender otherwise); nothing is reordered.

        Nothing is converted silently; a :class:`ValueError` names the column and the first
        offending row. Labels are integers in ``0..max_label`` (default
        :data:`MAX_LABEL`, 31, the reader's too; integer-valued floats such as ``2.0`` are
        fine; never wrapped to int32). Query ids are integers (integer-valued finite floats
        within ±2^53 too, e.g. ``7.0``; never rounded, so ``1.2`` and ``1.7`` are not merged);
        a missing value (NaN/NA) in either is an error.

        >>> import pandas as pd
        >>> ds = RankingDataset.from_frame(pd.DataFrame({"qid": [7, 7, 9], "label": [1, 0, 2],
        ...                                              "f1": [0.5, 0.1, 0.3], "f2": [1, 2, 3]}))
        >>> ds.n_queries, ds.n_features, ds.X[2].tolist()
        (2, 2, [0.30000001192092896, 3.0])
        >>> RankingDataset.from_frame(pd.DataFrame({"qid": [1.2, 1.7], "label": [0, 1], "f": [0, 1]}))
        Traceback (most recent call last):
        ...
        ValueError: from_frame: column 'qid', row 0 (index 0): 1.2 is not an integer query id; ...
        """
        max_label = MAX_LABEL if max_label is None else int(max_label)
        for col in (qid, label, *([docid] if docid else [])):
            if col not in df.columns:
                raise KeyError(f"from_frame: no column {col!r}; columns are {', '.join(map(str, df.columns))}")
        if features is None:
            skip = {qid, label, docid}
            features = [c for c in df.columns if c not in skip and np.issubdtype(df[c].dtype, np.number)]
        missing = [c for c in features if c not in df.columns]
        if missing or not len(features):
            raise KeyError(f"from_frame: feature column(s) {missing or '(none)'} not in the frame")
        y = _frame_integers(df, label, 0, max_label, "label",
                            f"labels are relevance grades 0..{max_label}: check the column, or pass "
                            f"max_label=N if the labels are meant")
        q = _frame_integers(df, qid, -2**63, 2**63 - 1, "query id",
                            "query ids must be integers: map other ids to integers, e.g. "
                            "df[qid] = pd.factorize(df[qid])[0] (keeps the order)")
        with np.errstate(over="ignore"):         # beyond float32 becomes inf, refused below by name
            X = df[list(features)].to_numpy(dtype=np.float32)
        inf = np.isinf(X)
        if inf.any():                             # the reader refuses them too; NaN stays "missing"
            r, c = (int(v[0]) for v in np.nonzero(inf))
            raise ValueError(f"from_frame: column {features[c]!r}, row {r}: {float(X[r, c])} is infinite (or beyond "
                             f"float32); features must be finite numbers or NaN for missing")
        return cls(X=X, y=y.astype(np.int32), qid=q,
                   docid=None if docid is None else df[docid].astype(str).str.encode("utf-8").to_numpy(dtype="S"),
                   name=name)

    @staticmethod
    def concat(parts: Sequence["RankingDataset"], name: str | None = None) -> "RankingDataset":
        """Concatenate datasets query-wise (copies ``X``).

        Feature counts must agree. A qid present in two parts is an error, since the
        result would then hold two separate runs of one query.
        """
        if not parts:
            raise ValueError("nothing to concatenate")
        d = {p.n_features for p in parts}
        if len(d) != 1:
            raise ValueError(f"feature counts differ: {sorted(d)}; load with a shared n_features")
        qids = np.concatenate([p.query_ids for p in parts])
        if np.unique(qids).size != qids.size:
            raise ValueError("a qid appears in more than one part; rename queries before concatenating")
        offs = [np.asarray([0], dtype=np.int64)]
        base = 0
        for p in parts:
            offs.append(p.offsets[1:] + base)
            base += p.n_docs
        docid = None
        if all(p.docid is not None for p in parts):
            docid = np.concatenate([p.docid for p in parts])
        return RankingDataset(
            X=np.concatenate([p.X for p in parts]), y=np.concatenate([p.y for p in parts]),
            qid=np.concatenate([p.qid for p in parts]), offsets=np.concatenate(offs),
            docid=docid, name=name or "+".join(p.name for p in parts), meta=dict(parts[0].meta),
        )

    def with_labels(self, y: np.ndarray, name: str | None = None) -> "RankingDataset":
        """Same rows with new labels; ``X`` is shared, not copied."""
        return RankingDataset(X=self.X, y=y, qid=self.qid, offsets=self.offsets,
                              docid=self.docid, name=name or self.name, meta=dict(self.meta))

    def label_counts(self) -> np.ndarray:
        return np.bincount(self.y, minlength=int(self.y.max(initial=0)) + 1)

    def queries_without_relevant(self) -> np.ndarray:
        """Boolean mask over queries: True where every label is 0."""
        return np.maximum.reduceat(self.y, self.offsets[:-1]) == 0 if self.n_docs else np.zeros(0, bool)


_FLOAT_EXACT = 2.0 ** 53      # floats beyond this are not distinct integers


def _frame_integers(df, col, lo: int, hi: int, what: str, hint: str) -> np.ndarray:
    """Column ``col`` of ``df`` as int64 if every value is an integer in ``lo..hi`` (integer
    dtypes, bool, or integer-valued finite floats within ±2^53), else a :class:`ValueError`
    naming the column and the first offending row (position and index label)."""
    s = df[col]

    def fail(bad: np.ndarray, why: str):
        r = int(np.flatnonzero(bad)[0])
        val, at = s.iloc[r], df.index[r]
        val, at = (x.item() if isinstance(x, np.generic) else x for x in (val, at))
        raise ValueError(f"from_frame: column {col!r}, row {r} (index {at!r}): {val!r} {why}; {hint}")

    na = np.asarray(s.isna(), dtype=bool)
    if na.any():
        fail(na, f"is missing (NaN/NA): every row needs a {what}")
    kind = getattr(s.dtype, "kind", "O")
    if kind == "b":
        v = s.to_numpy(dtype=np.int64)
    elif kind in "iu":
        v = s.to_numpy(dtype=np.uint64 if kind == "u" else np.int64)
        out = (v > np.uint64(hi)) if kind == "u" else (v < lo) | (v > hi)
        if out.any():
            fail(out, f"is outside {lo}..{hi}")
        v = v.astype(np.int64)
    elif kind == "f":
        f = s.to_numpy(dtype=np.float64)
        bad = ~np.isfinite(f)
        if bad.any():
            fail(bad, f"is not a finite {what}")
        bad = f != np.floor(f)
        if bad.any():
            fail(bad, f"is not an integer {what}")
        out = (f < max(lo, -_FLOAT_EXACT)) | (f > min(hi, _FLOAT_EXACT))
        if out.any():
            fail(out, f"is outside {max(lo, -_FLOAT_EXACT):g}..{min(hi, _FLOAT_EXACT):g}"
                      + (" (beyond 2^53 floats are not distinct integers: store the column as int64)"
                         if hi > _FLOAT_EXACT else ""))
        v = f.astype(np.int64)
    else:
        raise ValueError(f"from_frame: column {col!r} holds {s.dtype} values, not numbers; {hint}")
    return v


def content_hash(ds: RankingDataset) -> str:
    """BLAKE2b-128 of the arrays (dtype, shape and bytes of X, y, qid, offsets): the name of
    the dataset's content-addressed entry (see :func:`ltrrepro.runner.materialize`)."""
    h = hashlib.blake2b(digest_size=16)
    for a in (ds.X, ds.y, ds.qid, ds.offsets):
        a = np.ascontiguousarray(a)
        h.update(str((a.dtype.str, a.shape)).encode())
        step = 1 << 24
        flat = a.reshape(-1).view(np.uint8) if a.size else np.zeros(0, np.uint8)
        for i in range(0, flat.size, step):
            h.update(flat[i:i + step])
    return h.hexdigest()


def array_digest(ds: RankingDataset) -> str:
    """:func:`content_hash` plus the document ids: what ``meta.json`` records of an entry's
    arrays, so that bytes changed in place (labels edited in ``y.npy``, same shapes) are seen."""
    h = content_hash(ds)
    if ds.docid is None:
        return h
    d = np.ascontiguousarray(ds.docid)
    return h + "-" + hashlib.blake2b(str((d.dtype.str, d.shape)).encode() + d.reshape(-1).view(np.uint8).tobytes(),
                                     digest_size=8).hexdigest()


def save_npy_dir(ds: RankingDataset, entry, meta: dict) -> None:
    """Write ``ds`` as ``.npy`` files plus ``meta.json`` into the directory ``entry``.

    The files go to a temporary sibling directory that becomes ``entry`` in one
    ``os.replace``; ``meta.json`` is written last. A failure leaves no partial entry. Safe
    when several processes write the same entry at once: a complete entry that is already
    there with the same metadata is kept (ours is discarded); a damaged or different one is
    first moved aside atomically, then replaced.
    """
    entry = Path(entry)
    entry.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(dir=entry.parent, prefix=".tmp-"))
    try:
        np.save(tmp / "X.npy", ds.X)
        np.save(tmp / "y.npy", ds.y)
        np.save(tmp / "qid.npy", ds.qid)
        np.save(tmp / "offsets.npy", ds.offsets)
        if ds.docid is not None:
            np.save(tmp / "docid.npy", ds.docid)
        full_meta = json.loads(json.dumps({**meta, "n_rows": ds.n_docs, "has_docid": ds.docid is not None,
                                           "digest": array_digest(ds)}))
        (tmp / "meta.json").write_text(json.dumps(full_meta))
        os.chmod(tmp, file_mode(directory=True))      # mkdtemp makes 0700: the umask decides
        for _ in range(3):
            if entry.exists():
                if _meta_of(entry) == full_meta and npy_dir_ok(entry, verify=True):
                    return                              # another process wrote the same entry first
                aside = entry.with_name(f".stale-{entry.name}-{os.getpid()}-{time.monotonic_ns()}")
                try:
                    os.replace(entry, aside)
                    shutil.rmtree(aside, ignore_errors=True)
                except OSError:
                    continue
            try:
                os.replace(tmp, entry)
                return
            except OSError:                             # someone placed an entry in between
                continue
        if not npy_dir_ok(entry):
            raise OSError(f"{entry}: could not be written (other processes kept replacing it)")
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)


def _meta_of(entry: Path):
    try:
        return json.loads((entry / "meta.json").read_text())
    except (OSError, ValueError):
        return None


def npy_dir_ok(entry, verify: bool = False) -> bool:
    """Whether ``entry`` holds a complete dataset written by :func:`save_npy_dir`: the
    metadata loads and every array loads with the row count it records. ``verify`` also
    recomputes the arrays' digest against the one ``meta.json`` recorded (a pass over the
    bytes, about 1 s per GB): an entry whose bytes were changed in place is not ok."""
    entry = Path(entry)
    if verify:
        try:
            meta = json.loads((entry / "meta.json").read_text())
            return npy_dir_ok(entry) and meta.get("digest") == array_digest(load_npy_dir(entry, meta=meta))
        except (OSError, ValueError, KeyError, TypeError, IndexError, EOFError):
            return False
    try:
        meta = json.loads((entry / "meta.json").read_text())
        n = int(meta["n_rows"])
        X = np.load(entry / "X.npy", mmap_mode="r")
        y, qid = np.load(entry / "y.npy", mmap_mode="r"), np.load(entry / "qid.npy", mmap_mode="r")
        offsets = np.load(entry / "offsets.npy", mmap_mode="r")
        ok = X.ndim == 2 and X.shape[0] == y.shape[0] == qid.shape[0] == n and int(offsets[-1]) == n
        if meta.get("has_docid"):
            ok = ok and np.load(entry / "docid.npy", mmap_mode="r").shape[0] == n
        return bool(ok)
    except (OSError, ValueError, KeyError, TypeError, IndexError, EOFError):
        return False


def load_npy_dir(entry, name: str | None = None, meta: dict | None = None) -> RankingDataset:
    """A dataset written by :func:`save_npy_dir`, with ``X`` memory-mapped read-only."""
    entry = Path(entry)
    if meta is None:
        meta = json.loads((entry / "meta.json").read_text())
    X = np.load(entry / "X.npy", mmap_mode="r")
    docid = np.load(entry / "docid.npy") if meta.get("has_docid") else None
    return RankingDataset(X=X, y=np.load(entry / "y.npy"), qid=np.load(entry / "qid.npy"),
                          offsets=np.load(entry / "offsets.npy"), docid=docid,
                          name=name or meta.get("name", entry.name), meta={"cache": str(entry)})
