"""Nothing outside ``--out`` is written, moved or deleted (issue #39, high): ``OUT/figures`` and
``OUT/tables`` linked to folders of the user's files, a planted ``report.json`` naming them — a
study and ``python -m experiments.report`` refuse in one line naming the link, and every user
file keeps its name and bytes. Links inside the report's folders are left alone and said."""
from __future__ import annotations

import json
import os

import pytest

from experiments import quality
from experiments import report as report_cli
from ltrrepro.fileio import LinkError
from ltrrepro.report import Report, Table

TINY = ["--queries", "40", "--trials", "2", "--preset", "tiny", "--rounds", "2", "--models", "lambdamart,xendcg",
        "--jobs", "1", "--threads", "1", "--quiet"]


def _user_folder(path):
    """A folder of the user's files, named as a report would name its own (figures, tables)."""
    path.mkdir(parents=True)
    files = {"fig3_labels.png": b"\x89PNG user figure", "quality.md": b"my table\n", "paper.tex": b"\\section{}"}
    for name, data in files.items():
        (path / name).write_bytes(data)
    return files


def _snapshot(path):
    return {p.name: p.read_bytes() for p in sorted(path.iterdir())}


@pytest.mark.slow
def test_linked_figures_and_tables_refused_and_user_files_untouched(tmp_path, capsys):
    out = tmp_path / "run"
    assert quality.main([*TINY, "--out", str(out)]) == 0            # a finished run
    figs, tabs = tmp_path / "paper" / "figs", tmp_path / "paper" / "tabs"
    _user_folder(figs), _user_folder(tabs)
    before = {"figs": _snapshot(figs), "tabs": _snapshot(tabs)}
    for sub, target in (("figures", figs), ("tables", tabs)):
        import shutil
        shutil.rmtree(out / sub, ignore_errors=True)
        os.symlink(target, out / sub)
    # a planted record naming the user's files as an earlier report's
    (out / "report.json").write_text(json.dumps({"files": ["tables/quality.md", "figures/fig3_labels.png",
                                                            "tables/paper.tex"]}))
    capsys.readouterr()
    assert quality.main([*TINY, "--out", str(out)]) == 2              # the run resumes: refused before work
    err = capsys.readouterr().err
    assert err.count("error:") == 1 and "symbolic link" in err
    assert str(out / "figures") in err or str(out / "tables") in err
    assert "Traceback" not in err and "nothing was written" in err
    assert report_cli.main([str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("error:") == 1 and "symbolic link" in err and "Traceback" not in err
    assert {"figs": _snapshot(figs), "tabs": _snapshot(tabs)} == before
    assert not (out / "stale").exists()


def test_report_write_refuses_a_linked_folder_before_writing(tmp_path):
    import pandas as pd

    user = tmp_path / "mine"
    files = _user_folder(user)
    root = tmp_path / "run"
    root.mkdir()
    os.symlink(user, root / "tables")
    rep = Report("t", tables=[Table("quality", pd.DataFrame({"a": [1.0]}))])
    with pytest.raises(LinkError, match="symbolic link"):
        rep.write(root)
    assert _snapshot(user) == files and not (root / "report.json").exists()
    os.remove(root / "tables")
    (root / "report.json").symlink_to(user / "quality.md")       # a linked record: refused too
    with pytest.raises(LinkError):
        rep.write(root)
    assert _snapshot(user) == files


def test_links_inside_the_report_folders_are_left_alone_and_said(tmp_path):
    import pandas as pd

    user = tmp_path / "mine"
    files = _user_folder(user)
    root = tmp_path / "run"
    (root / "tables").mkdir(parents=True)
    os.symlink(user, root / "tables" / "linked")                    # a linked folder inside tables/
    os.symlink(user / "quality.md", root / "tables" / "old.md")     # a linked file
    (root / "tables" / "stray.csv").write_text("x\n")               # a real stray file: set aside
    (root / "report.json").write_text(json.dumps({"files": ["tables/old.md", "tables/linked/quality.md"]}))
    rep = Report("t", tables=[Table("quality", pd.DataFrame({"a": [1.0]}))]).write(root)
    assert _snapshot(user) == files
    assert os.path.islink(root / "tables" / "linked") and os.path.islink(root / "tables" / "old.md")
    assert (root / "stale" / "tables" / "stray.csv").exists()
    assert any("symbolic link" in n and "tables/linked" in n and "tables/old.md" in n for n in rep.write_notes)


def test_lock_is_never_opened_through_a_link(tmp_path):
    from ltrrepro.store import ResultStore, StoreError

    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    root = tmp_path / "run"
    root.mkdir()
    os.symlink(victim, root / ".lock")
    with pytest.raises(StoreError, match="symbolic link"):
        with ResultStore(root).lock():
            pass
    assert victim.read_text() == "precious"


def test_lock_is_reentrant_for_its_store_and_refused_to_another(tmp_path):
    import subprocess
    import sys

    from ltrrepro.store import ResultStore

    root = tmp_path / "run"
    store = ResultStore(root)
    with store.lock():
        with store.lock():                      # a report or export inside its run: the same store goes on
            pass
        code = ("import sys; from ltrrepro.store import ResultStore, StoreError\n"
                "try:\n    ResultStore(sys.argv[1]).lock().__enter__()\nexcept StoreError as e:\n"
                "    print(e); sys.exit(3)\n")
        res = subprocess.run([sys.executable, "-c", code, str(root)], capture_output=True, text=True,
                             env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
        assert res.returncode == 3 and "another run is using" in res.stdout


def test_a_dangling_symlink_out_is_one_line(tmp_path, capsys):
    out = tmp_path / "out"
    os.symlink(tmp_path / "nowhere", out)
    assert quality.main([*TINY, "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("error:") == 1 and "leads nowhere" in err and "File exists" not in err
    assert not (tmp_path / "nowhere").exists()
