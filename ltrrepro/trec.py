"""TREC run files and qrels of a run's test rankings, for ranx, ir_measures, trec_eval, pyterrier.

A unit of Bruch's studies stores its test part's scores (:data:`SCORE`, one per document, as
the harness evaluated them: float32 where that keeps the harness's ranking of every query
exactly, float64 otherwise), grades (:data:`LABEL`), documents per query (:data:`SIZE`) and,
where the data file carries ``#docid = …`` comments, the document ids (:data:`DOCID`); the
query ids are ``test:qid``. About 5 bytes per test document (``benchmarks/bench_runner.py``).
:func:`export_store` writes, gzip-compressed (mtime 0: the bytes depend on the content only):

* ``runs/<unit record's name>.run.gz`` — one per unit, ``qid Q0 docid rank score run_name``
  per line (the run name is the unit's model), documents in the harness's ranking order;
* ``qrels/<dataset>__t<trial>.qrels.gz`` — one per trial (every unit of a trial is tested on
  the same queries), ``qid 0 docid grade`` per line, every test document (grade 0 included).

**Document ids**: the file's ``#docid`` where it has one (its bytes as they are: UTF-8 ids
such as ``café`` written as UTF-8, never re-encoded), else ``<qid>-<i>``, the document's
position ``i`` (from 0) in its query as the data file lists it (stable: the harness never
reorders a query's documents). Ids with white space, or repeated within a query, are made
unique as ``<docid>-<i>`` for the whole run.

**Ties.** The harness ranks equal scores in input order (a stable sort on the descending
score, :mod:`ltrrepro.metrics`); trec_eval (and ir_measures through pytrec_eval) breaks score
ties by document id, in reverse order, and ranx its own way. So the score column is not the
model's score but its rank turned into one: ``m − rank + 1`` for the document at ``rank``
(1-based) of a query with ``m`` documents — distinct integers decreasing with the harness's
rank, so every tool ranks exactly as the harness did, ties included. ``raw=True`` writes the
model's scores instead (``%.17g``, exact); tied documents are then ordered by each tool's own
rule. Scores stored as float32 are written as float32 values (exact, ``%.17g``).

**Gains**: the qrels hold the grades. The harness's NDCG uses the gain 2^y − 1 and drops
queries without a relevant document: ranx's ``ndcg_burges@k``, ir_measures'
``nDCG(gains={y: 2**y - 1})@k``, trec_eval with the qrels' grades mapped to 2^y − 1; see
docs/export.md.
"""
from __future__ import annotations

import gzip
import io
from pathlib import Path

import numpy as np

__all__ = ["SCORE", "LABEL", "SIZE", "DOCID", "QID", "test_arrays", "harness_order", "run_lines",
           "qrels_lines", "write_gz", "export_store", "ExportError", "decode_id", "EXPORT_INDEX"]

SCORE, LABEL, SIZE, DOCID, QID = "test:score", "test:label", "test:size", "test:docid", "test:qid"


class ExportError(ValueError):
    """A store that cannot be exported (units without stored scores, a damaged record): one line."""


def test_arrays(scores, test) -> dict:
    """The arrays a unit stores for its TREC run: ``scores`` of the ``test`` part (a
    :class:`~ltrrepro.data.RankingDataset`) as evaluated — as float32 when the harness's
    ranking of every query is the same in float32 (ties included), else as they are — its
    grades, query sizes and, where the data has them, its doc ids."""
    scores = np.asarray(scores)
    sizes = np.diff(test.offsets).astype(np.int32)
    small = scores.astype(np.float32)
    if scores.dtype != np.float32 and np.array_equal(harness_order(small, sizes), harness_order(scores, sizes)):
        scores = small
    out = {SCORE: scores, LABEL: test.y.astype(np.int8 if test.y.max(initial=0) < 128 else np.int32), SIZE: sizes}
    if test.docid is not None:
        out[DOCID] = np.asarray(test.docid)
    return out


def harness_order(scores, sizes) -> np.ndarray:
    """Row positions in the harness's ranking order: query by query, descending score, ties in
    input order (the stable sort of :mod:`ltrrepro.metrics`)."""
    scores = np.asarray(scores)
    sizes = np.asarray(sizes, dtype=np.int64)
    qindex = np.repeat(np.arange(sizes.size), sizes)
    return np.lexsort((np.arange(scores.size), -scores, qindex))


def _qids(qid, sizes) -> np.ndarray:
    """The TREC qid of every document: the dataset's query id, with ``.<k>`` added to the k-th
    repeat of an id that names more than one test query (pooled files may reuse an id)."""
    q = np.asarray(qid).astype(str).astype(object)
    seen: dict = {}
    for i, v in enumerate(q):
        k = seen.get(v, 0)
        seen[v] = k + 1
        if k:
            q[i] = f"{v}.{k}"
    return np.repeat(q, np.asarray(sizes, dtype=np.int64))


def decode_id(raw: bytes) -> str:
    """A document id as the data file's bytes spell it: UTF-8 (``café`` stays ``café``); bytes
    that are not UTF-8 (a Latin-1 file) are kept byte for byte (``surrogateescape``), so the
    run files carry the very bytes the user's qrels have."""
    return raw.decode("utf-8", "surrogateescape")


def _docids(arrays) -> np.ndarray:
    sizes = np.asarray(arrays[SIZE], dtype=np.int64)
    pos = (np.arange(sizes.sum()) - np.repeat(np.cumsum(sizes) - sizes, sizes)).astype(str)
    if DOCID not in arrays:
        return np.char.add(np.char.add(_qids(arrays[QID], sizes).astype(str), "-"), pos).astype(object)
    d = np.array([decode_id(x) for x in np.asarray(arrays[DOCID], dtype="S").tolist()], dtype=object)
    qindex = np.repeat(np.arange(sizes.size), sizes)
    if len(set(zip(qindex.tolist(), d.tolist()))) != d.size or any((not x) or any(c.isspace() for c in x) for x in d):
        d = np.char.add(np.char.add(d.astype(str), "-"), pos).astype(object)
    return d


def run_lines(arrays, run_name: str, raw: bool = False) -> str:
    """The TREC run of a unit's stored arrays, in the harness's ranking order (see the module
    docstring: rank-derived scores unless ``raw``)."""
    sizes = np.asarray(arrays[SIZE], dtype=np.int64)
    scores = np.asarray(arrays[SCORE])
    order = harness_order(scores, sizes)
    starts = np.repeat(np.cumsum(sizes) - sizes, sizes)
    rank = np.arange(scores.size) - starts + 1                    # rank of the order's i-th entry
    qid = _qids(arrays[QID], sizes)[order]
    doc = _docids(arrays)[order]
    score = ([f"{float(s):.17g}" for s in scores[order]] if raw
             else (np.repeat(sizes, sizes) - rank + 1).astype(str))
    name = str(run_name)
    return "".join(f"{q} Q0 {d} {r} {s} {name}\n" for q, d, r, s in zip(qid, doc, rank, score))


def qrels_lines(arrays) -> str:
    """The qrels of a unit's test part: ``qid 0 docid grade``, in input order."""
    sizes = np.asarray(arrays[SIZE], dtype=np.int64)
    return "".join(f"{q} 0 {d} {int(y)}\n" for q, d, y in zip(_qids(arrays[QID], sizes), _docids(arrays),
                                                              np.asarray(arrays[LABEL])))


def write_gz(path: Path, text: str) -> int:
    """``text`` gzip-compressed to ``path`` (mtime 0; atomically); returns the bytes written."""
    from .fileio import atomic_write_bytes

    buf = io.BytesIO()
    with gzip.GzipFile(fileobj=buf, mode="wb", mtime=0, compresslevel=6) as fh:
        fh.write(text.encode("utf-8", "surrogateescape"))     # ids: the data file's bytes (decode_id)
    atomic_write_bytes(Path(path), buf.getvalue())
    return len(buf.getvalue())


#: the record an export leaves in its folder: which run's files these are
EXPORT_INDEX = "export.json"


def _claim_folder(store, dest: Path) -> None:
    """``dest`` may take ``store``'s export: new, empty, under the run, or holding an export of
    this very run (:data:`EXPORT_INDEX`); another run's export, or a folder of other files, is
    an :class:`ExportError` — an export never overwrites another run's files."""
    import json
    import os

    from .fileio import LinkError, check_no_links

    run = os.path.realpath(store.root)
    try:
        check_no_links(dest, ["runs", "qrels", EXPORT_INDEX], flag="--to")
    except LinkError as err:
        raise ExportError(str(err)) from None
    if os.path.commonpath([os.path.realpath(dest), run]) == run:
        return                                  # OUT/trec (or another folder of the run itself)
    index = dest / EXPORT_INDEX
    if index.is_file():
        try:
            other = json.loads(index.read_text(encoding="utf-8")).get("run")
        except (ValueError, OSError, AttributeError):
            other = None
        if other != run:
            raise ExportError(f"{dest} holds the export of another run ({other or 'unreadable ' + str(index)}): "
                              f"export {store.root} to another --to folder (nothing was overwritten)")
        return
    if dest.is_dir() and any(dest.iterdir()):
        raise ExportError(f"{dest} holds files that are no export of {store.root}: give a new or empty --to "
                          f"folder (nothing was overwritten)")


def export_store(store, dest=None, raw: bool = False) -> dict:
    """Write the TREC runs of every current unit of ``store`` (a
    :class:`~ltrrepro.store.ResultStore`) and each trial's qrels under ``dest`` (default
    ``<store>/trec``), holding the run's lock (a run still going is refused; a run directory
    that cannot be written is read without it). Returns ``{"runs": [paths], "qrels": [paths],
    "bytes": total, "absent": [unit keys]}`` — ``absent``: units the store expects
    (:meth:`~ltrrepro.store.ResultStore.expect`) that have no record, so none in the export.
    A unit stored without test scores (an older run, or a study that keeps none), a damaged
    record, or a ``dest`` holding another run's export (:func:`_claim_folder`) is an
    :class:`ExportError` naming it and what to do. ``dest/export.json`` names the run."""
    import json
    import os

    from .fileio import WriteError, atomic_write_text
    from .store import StoreError, safe_key

    flag = "--out" if dest is None else "--to"               # what chose the folder: named in write errors
    dest = Path(dest) if dest is not None else Path(store.root) / "trec"
    try:
        with store.lock(create=False):
            records = store.records(strict=True)
            if not records:
                raise ExportError(f"{store.root}: no finished unit to export")
            _claim_folder(store, dest)
            out = _export(store, records, dest, raw, safe_key)
            atomic_write_text(dest / EXPORT_INDEX, json.dumps({"run": os.path.realpath(store.root),
                                                               "config_hash": store.config_hash}, indent=1) + "\n")
            out["absent"] = store.absent()
            return out
    except StoreError as err:
        raise ExportError(str(err)) from None
    except WriteError as err:
        raise err.for_flag(flag) from None


def _export(store, records, dest: Path, raw: bool, safe_key) -> dict:
    from .fileio import WriteError
    from .store import StoreError

    try:
        (dest / "runs").mkdir(parents=True, exist_ok=True)
        (dest / "qrels").mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise WriteError.of(dest, err) from None
    out: dict = {"runs": [], "qrels": [], "bytes": 0}
    qrels: dict = {}
    for rec in records:
        key = rec["key"]
        try:
            arrays = store.arrays(key) if rec.get("has_arrays") else {}
        except StoreError as err:
            raise ExportError(str(err)) from None
        missing = [a for a in (SCORE, LABEL, SIZE, QID) if a not in arrays]
        if missing:
            raise ExportError(f"{store.root}: unit {key} has no stored test scores ({', '.join(missing)} missing): it "
                              f"was computed before units kept them, or its study keeps none; re-run it with --force "
                              f"(or into a new --out) to export its rankings")
        path = dest / "runs" / f"{safe_key(key)}.run.gz"
        out["bytes"] += write_gz(path, run_lines(arrays, rec["unit"]["model"], raw=raw))
        out["runs"].append(path)
        u = rec["unit"]
        qname = f"{safe_key(u['dataset'])}__t{int(u['trial']):03d}.qrels.gz"
        rows = (np.asarray(arrays[QID]), np.asarray(arrays[SIZE]), np.asarray(arrays[LABEL]))
        if qname in qrels:
            if not all(np.array_equal(x, y) for x, y in zip(qrels[qname], rows)):
                raise ExportError(f"{store.root}: units of trial {u['trial']} were tested on different documents "
                                  f"({key}); one qrels file per trial cannot hold them")
            continue
        qrels[qname] = rows
        path = dest / "qrels" / qname
        out["bytes"] += write_gz(path, qrels_lines(arrays))
        out["qrels"].append(path)
    return out
