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

pytestmark = pytest.mark.slow

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


def test_a_dangling_symlink_out_is_one_line(tmp_path, capsys):
    out = tmp_path / "out"
    os.symlink(tmp_path / "nowhere", out)
    assert quality.main([*TINY, "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("error:") == 1 and "leads nowhere" in err and "File exists" not in err
    assert not (tmp_path / "nowhere").exists()
