"""A run's page (``OUT/index.html``) shows the run as its closed manifest does: written by the
last report while the run was still open, it is written again once the manifest is closed, so a
fresh run's page says ``ok`` with its finish time and wall time, not ``running``."""
from __future__ import annotations

import experiments


def test_a_fresh_runs_page_shows_the_closed_manifest(tmp_path):
    res = experiments.run("jensen_gap", out=str(tmp_path / "j"), trials=2, draws=50, docs=20, quiet=True)
    assert res.exit_code == 0
    page = (tmp_path / "j" / "index.html").read_text(encoding="utf-8")
    assert "<dd>ok</dd>" in page and "<dd>running</dd>" not in page and "wall time" in page
