"""A report rebuilt in a fresh process from its stored choices is byte-identical (issue 37): the
report's statistics travel in the manifest, never in the process."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
RUN = ROOT / "results" / "bruch2021" / "quality"


def _rebuild(run: Path, *flags: str) -> dict:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    subprocess.run([sys.executable, "-m", "experiments.report", str(run), "--quiet", *flags], check=True, env=env,
                   cwd=ROOT, capture_output=True, text=True)
    return {p.relative_to(run).as_posix(): p.read_bytes() for p in sorted(run.rglob("*"))
            if p.is_file() and (p.name.startswith("claims.") or p.parent.name == "tables")}


@pytest.mark.slow
def test_a_report_rebuilt_in_fresh_processes_is_byte_identical(tmp_path):
    if not (RUN / "manifest.json").exists():
        pytest.fail(f"{RUN} is committed with the repository")
    run = tmp_path / "quality"
    shutil.copytree(RUN, run)
    chosen = _rebuild(run, "--test", "wilcoxon", "--correction", "bh", "--effect", "ndcg=0.005")
    again = _rebuild(run)                       # a fresh process: the choices come from the manifest
    assert chosen == again and "claims.json" in again and any(k.startswith("tables/") for k in again)
    text = again["claims.md"].decode()
    assert "Wilcoxon signed-rank test (--test wilcoxon)" in text and "Benjamini–Hochberg" in text
    default = _rebuild(run, "--test", "t", "--correction", "holm", "--effect", "ndcg=0.01")
    assert default["claims.json"] == (RUN / "claims.json").read_bytes()        # the committed report, as it was


#: every committed run (its manifest): the reports the repository shows
COMMITTED = sorted(p.parent for p in (ROOT / "results").rglob("manifest.json"))


@pytest.mark.slow
@pytest.mark.parametrize("run", COMMITTED, ids=lambda p: p.relative_to(ROOT / "results").as_posix())
def test_every_committed_report_rebuilds_to_the_same_bytes(run, tmp_path):
    """``python -m experiments.report`` on a committed run writes every file of its report as
    committed (claims, tables, notes, page): the tuning stage, its notes, tuning table and
    tuned claim family written once for every study give the tuned runs' reports unchanged."""
    from experiments.report import rebuild

    copy = tmp_path / run.name
    shutil.copytree(run, copy)
    rebuild(copy, quiet=True)
    files = [p.relative_to(run) for p in sorted(run.rglob("*")) if p.is_file() and p.suffix not in (".png", ".pdf") and p.name != ".lock"]
    assert files and "claims.json" in {p.as_posix() for p in files}
    changed = [p.as_posix() for p in files if (copy / p).read_bytes() != (run / p).read_bytes()]
    assert not changed, f"{run.relative_to(ROOT)}: rebuilt differently: {changed[:5]}"
