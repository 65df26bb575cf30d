"""Nothing outside a results directory is written, moved or deleted (issue #39): a report's
clean-up never follows a symbolic link (a linked folder or file is refused up front, or left
alone inside its folders and said), and the run lock is never opened through a link and is
re-entrant for its own store only. Inputs built here."""
from __future__ import annotations

import json
import os

import pytest

from ltrrepro.fileio import LinkError
from ltrrepro.inference import Inference
from ltrrepro.report import Report, Table


def _user_folder(path):
    """A folder of the user's files, named as a report would name its own (figures, tables)."""
    path.mkdir(parents=True)
    files = {"fig3_labels.png": b"\x89PNG user figure", "quality.md": b"my table\n", "paper.tex": b"\\section{}"}
    for name, data in files.items():
        (path / name).write_bytes(data)
    return files


def _snapshot(path):
    return {p.name: p.read_bytes() for p in sorted(path.iterdir())}


def test_report_write_refuses_a_linked_folder_before_writing(tmp_path):
    import pandas as pd

    user = tmp_path / "mine"
    files = _user_folder(user)
    root = tmp_path / "run"
    root.mkdir()
    os.symlink(user, root / "tables")
    rep = Report("t", tables=[Table("quality", pd.DataFrame({"a": [1.0]}))], inference=Inference())
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
    rep = Report("t", tables=[Table("quality", pd.DataFrame({"a": [1.0]}))], inference=Inference()).write(root)
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
