"""TREC ids (issue #39): non-ASCII document ids keep their bytes through the run and qrels files,
the SVMlight writer and ``from_frame``; the exported qids and doc ids follow docs/export.md; an
export's write errors name ``--to``. Inputs built here."""
from __future__ import annotations

import gzip
from pathlib import Path

import numpy as np

from ltrrepro.data import RankingDataset
from ltrrepro.trec import DOCID, LABEL, QID, SCORE, SIZE, decode_id, qrels_lines, run_lines, write_gz


def _gz(path: Path) -> bytes:
    with gzip.open(path, "rb") as fh:
        return fh.read()


def test_decode_id_keeps_utf8_text_and_other_bytes():
    assert decode_id("café".encode()) == "café"
    raw = b"caf\xe9"                                           # a Latin-1 file's bytes
    assert decode_id(raw).encode("utf-8", "surrogateescape") == raw


def test_run_and_qrels_lines_carry_the_ids_bytes(tmp_path):
    arrays = {SCORE: np.array([0.3, 0.9, 0.1]), SIZE: np.array([3]), QID: np.array([7]),
              LABEL: np.array([1, 0, 2], np.int8), DOCID: np.array(["café".encode(), b"na\xefve", b"d3"], dtype="S")}
    write_gz(tmp_path / "r.gz", run_lines(arrays, "m"))
    write_gz(tmp_path / "q.gz", qrels_lines(arrays))
    run, qrels = _gz(tmp_path / "r.gz"), _gz(tmp_path / "q.gz")
    assert run.split(b"\n")[0].split()[2] == b"na\xefve" and "café".encode() in run
    assert [x.split()[2] for x in qrels.splitlines()] == ["café".encode(), b"na\xefve", b"d3"]


def test_from_frame_and_writer_keep_non_ascii_ids(tmp_path):
    import pandas as pd

    from ltrrepro.svmlight import read_svmlight, write_svmlight

    ds = RankingDataset.from_frame(pd.DataFrame({"qid": [1, 1], "label": [0, 1], "f": [0.5, 1.0],
                                                 "doc": ["café", "東京"]}), docid="doc")
    write_svmlight(ds, tmp_path / "d.txt")
    assert "#docid = café" in (tmp_path / "d.txt").read_text(encoding="utf-8")
    back = read_svmlight(tmp_path / "d.txt")
    assert [decode_id(x) for x in back.docid] == ["café", "東京"]


def test_write_errors_in_an_export_name_to(tmp_path):
    import errno

    from ltrrepro.fileio import WriteError

    err = WriteError.of(tmp_path / "f", OSError(errno.ENOSPC, "No space left on device"))
    assert "choose another --out" in str(err)
    again = err.for_flag("--to")
    assert "choose another --to" in str(again) and again.errno == errno.ENOSPC and again.filename == err.filename


def test_exported_qids_and_doc_ids_follow_docs_export_md():
    """docs/export.md: qid the data's query id, ``.1``, ``.2``, … on a repeat; doc id the file's
    ``#docid``, else ``<qid>-<i>`` (position i from 0 in its query); ids repeated within a query
    or with white space become ``<docid>-<i>`` for the whole run."""
    base = {SCORE: np.array([0.1, 0.2, 0.3, 0.4, 0.5]), SIZE: np.array([2, 3]), QID: np.array([7, 7]),
            LABEL: np.zeros(5, np.int8)}
    qrels = [x.split() for x in qrels_lines(base).splitlines()]
    assert [(q, d) for q, _, d, _ in qrels] == [("7", "7-0"), ("7", "7-1"), ("7.1", "7.1-0"), ("7.1", "7.1-1"),
                                                ("7.1", "7.1-2")]
    ids = {**base, DOCID: np.array([b"a", b"b", b"c", b"d", b"e"], dtype="S")}
    assert [x.split()[2] for x in qrels_lines(ids).splitlines()] == ["a", "b", "c", "d", "e"]
    repeated = {**base, DOCID: np.array([b"a", b"a", b"c", b"d", b"e"], dtype="S")}
    assert [x.split()[2] for x in qrels_lines(repeated).splitlines()] == ["a-0", "a-1", "c-0", "d-1", "e-2"]
    run = [x.split() for x in run_lines(ids, "m").splitlines()]
    assert [r[2] for r in run] == ["b", "a", "e", "d", "c"] and [r[3] for r in run] == ["1", "2", "1", "2", "3"]

