"""Exports (issue #39): non-ASCII document ids round-trip through ``--save-runs`` (``café`` stays
``café``, a Latin-1 file's bytes stay its bytes); two runs of the same name exported to one
``--to`` go to two folders, and a folder holding another run's export is never overwritten;
an export to a read-only folder, of a damaged record or of a run with units missing is one
``error:`` line or says what is missing."""
from __future__ import annotations

import gzip
from pathlib import Path

import numpy as np
import pytest

from experiments import export, quality

pytestmark = pytest.mark.slow

FAST = ["--trials", "2", "--preset", "tiny", "--rounds", "2", "--jobs", "1", "--threads", "1", "--quiet",
        "--models", "lambdamart,xendcg"]


def _letor(path: Path, ids, n_queries=12, seed=0) -> Path:
    """A LETOR file whose documents carry ``#docid = ID`` comments, ``ids`` (text) in turn."""
    rng = np.random.default_rng(seed)
    lines, k = [], 0
    for q in range(n_queries):
        for d in range(6):
            feats = " ".join(f"{j + 1}:{rng.random():.4f}" for j in range(5))
            lines.append(f"{int(rng.integers(0, 3))} qid:{q + 1} {feats} #docid = {ids[k % len(ids)]}-{k}")
            k += 1
    path.write_bytes(("\n".join(lines) + "\n").encode("utf-8"))
    return path


def _gz(path: Path) -> bytes:
    with gzip.open(path, "rb") as fh:
        return fh.read()


@pytest.mark.slow
def test_cafe_round_trips_through_save_runs(tmp_path):
    data = _letor(tmp_path / "letor.txt", ["café", "東京", "plain"])
    out = tmp_path / "run"
    assert quality.main(FAST + ["--dataset", str(data), "--out", str(out), "--save-runs"]) == 0
    source = {line.split("#docid = ")[1] for line in data.read_text(encoding="utf-8").splitlines()}
    ids = {x.split()[2] for run in (out / "trec" / "runs").glob("*.run.gz") for x in _gz(run).decode().splitlines()}
    assert any(i.startswith("café-") for i in ids) and any(i.startswith("東京-") for i in ids) and ids <= source
    judged = {x.split()[2] for q in (out / "trec" / "qrels").glob("*.qrels.gz") for x in _gz(q).decode().splitlines()}
    assert judged == ids


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    """A finished quality run with stored test rankings (2 trials, 2 models)."""
    out = tmp_path_factory.mktemp("runs") / "web30k" / "q"
    assert quality.main(FAST + ["--queries", "40", "--out", str(out)]) == 0
    return out


def _copy(src: Path, dst: Path) -> Path:
    import shutil
    shutil.copytree(src, dst, ignore=shutil.ignore_patterns(".lock"))
    return dst


@pytest.mark.slow
def test_two_same_named_runs_export_to_two_folders(finished, tmp_path, capsys):
    other = _copy(finished, tmp_path / "yahoo" / "q")
    to = tmp_path / "trec"
    assert export.main([str(finished), str(other), "--to", str(to), "--quiet"]) == 0
    folders = sorted(p.name for p in to.iterdir())
    assert folders == ["web30k-q", "yahoo-q"]
    for f in folders:
        assert list((to / f / "runs").glob("*.run.gz")) and (to / f / "export.json").is_file()
    assert export.main([str(finished), str(finished), "--to", str(tmp_path / "x")]) == 2
    assert "given twice" in capsys.readouterr().err


@pytest.mark.slow
def test_an_export_never_overwrites_another_runs_files(finished, tmp_path, capsys):
    other = _copy(finished, tmp_path / "other" / "q")
    to = tmp_path / "trec"
    assert export.main([str(finished), "--to", str(to), "--quiet"]) == 0
    before = {p: p.read_bytes() for p in to.rglob("*") if p.is_file()}
    assert export.main([str(finished), "--to", str(to), "--quiet"]) == 0         # the same run again: fine
    assert export.main([str(other), "--to", str(to), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.count("error:") == 1 and "another run" in err and "Traceback" not in err
    assert {p: p.read_bytes() for p in to.rglob("*") if p.is_file()} == before
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("keep")
    assert export.main([str(other), "--to", str(mine), "--quiet"]) == 2
    assert "no export" in capsys.readouterr().err and (mine / "notes.txt").read_text() == "keep"


@pytest.mark.slow
def test_export_to_a_read_only_folder_names_to(finished, tmp_path, capsys, monkeypatch):
    import errno

    ro = tmp_path / "ro"
    real_mkdir = Path.mkdir

    def mkdir(self, *a, **kw):                     # a read-only mount (root ignores chmod)
        if str(self).startswith(str(ro)):
            raise OSError(errno.EROFS, "Read-only file system", str(self))
        return real_mkdir(self, *a, **kw)

    monkeypatch.setattr(Path, "mkdir", mkdir)
    assert export.main([str(finished), "--to", str(ro / "x"), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.count("error:") == 1 and "--to" in err and "--out" not in err and "Traceback" not in err


@pytest.mark.slow
def test_a_damaged_record_or_missing_units_are_said(finished, tmp_path, capsys):
    run = _copy(finished, tmp_path / "d" / "q")
    records = sorted((run / "units").glob("*.json"))
    records[0].unlink()                                            # a unit not stored
    capsys.readouterr()
    assert export.main([str(run), "--to", str(tmp_path / "t1")]) == 0
    err = capsys.readouterr().err
    assert "1 unit(s) of the configuration are not stored" in err and records[0].stem.split("__")[-1] in err
    records[1].write_text("{broken")                               # a damaged record
    assert export.main([str(run), "--to", str(tmp_path / "t2"), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.count("error:") == 1 and "damaged" in err and "will be recomputed" not in err