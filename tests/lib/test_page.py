"""ltrrepro.page: a run's page and the gallery, read back with an HTML parser as a browser reads
them (every claim with its badge, every table, every figure inline; nothing fetched, no script),
and what makes them: the verdict's badge, the difference with its CI, the shipped templates."""
from __future__ import annotations

import json
import shutil
from html import unescape
from pathlib import Path

import pytest

from conftest import Page, check_run_page
from ltrrepro import migrations
from ltrrepro.page import PAGE, difference_ci, verdict_kind, write_gallery

ROOT = Path(__file__).resolve().parents[2]

# ------------------------------------------------------------------------------------ the parts
def test_verdicts_take_their_badge_from_their_first_words():
    assert [verdict_kind(v) for v in ("supported", "contradicted", "inconclusive (underpowered)", "not supported",
                                      "identical models", "direction only", "descriptive (no test)")] == \
        ["supported", "contradicted", "inconclusive", "not-supported", "identical", "direction", "other"]
    assert verdict_kind("contradicted (a change beyond ±0.01)") == "contradicted"


def test_the_difference_carries_the_t_interval_of_its_test():
    from scipy import stats

    half = stats.t.ppf(0.975, 4) * 0.01 / 5 ** 0.5            # 5 trials, SD 0.01
    assert difference_ci({"value": 0.02, "sd": 0.01, "trials": 5}) == \
        f"+0.0200 [+{0.02 - half:.4f}, +{0.02 + half:.4f}]"
    assert difference_ci({"value": -3.5, "sd": float("nan"), "trials": 5}) == "−3.50"


def test_the_templates_ship_as_package_data():
    """An installed (non-editable) package carries its templates: pyproject's package-data names them."""
    import re
    from fnmatch import fnmatch

    text = (ROOT / "pyproject.toml").read_text()
    section = text.split("[tool.setuptools.package-data]", 1)[1].split("\n[", 1)[0]     # (tomllib: Python 3.11+)
    data = re.findall(r'"([^"]+)"', re.search(r"^ltrrepro\s*=\s*\[(.*?)\]", section, re.M | re.S).group(1))
    shipped = {p.relative_to(ROOT / "ltrrepro").as_posix() for p in (ROOT / "ltrrepro" / "templates").iterdir()}
    assert shipped and all(any(fnmatch(f, pat) for pat in data) for f in shipped), shipped


# ------------------------------------------------------------------- a rebuilt run, as a reader sees it
@pytest.fixture(scope="module")
def rebuilt(tmp_path_factory):
    """A copy of results/zheng2007 with a schema-1 manifest (the script's path, an absolute --out,
    the user), rebuilt by ``python -m experiments.report`` in this process (about 4 s)."""
    from experiments.report import main

    run = tmp_path_factory.mktemp("page") / "zheng2007"
    shutil.copytree(ROOT / "results" / "zheng2007", run, ignore=shutil.ignore_patterns(PAGE, "notes.md"))
    man = json.loads((run / "manifest.json").read_text())
    man.update(schema=1, argv=["/home/someone/ltrrepro/experiments/qbrank.py", "--out", "/home/someone/runs/z"],
               machine={**man["machine"], "user": "someone"})
    (run / "manifest.json").write_text(json.dumps(man))
    assert main([str(run), "--quiet"]) == 0
    return run


def test_a_report_writes_the_page_and_the_manifest_at_the_schema(rebuilt):
    page = check_run_page(rebuilt)
    assert len(page.claims) == len(json.loads((rebuilt / "claims.json").read_text())["claims"]) > 0
    man = json.loads((rebuilt / "manifest.json").read_text())
    assert man["schema"] == migrations.SCHEMA and "user" not in man["machine"]
    assert man["argv"] == ["python", "-m", "experiments.qbrank", "--out", "…/z"]
    html = unescape((rebuilt / PAGE).read_text())
    assert "python -m experiments.qbrank --out '…/z'" in html and "someone" not in html
    assert html.index('id="claims"') < html.index('id="tables"') < html.index('id="figures"') \
        < html.index('id="notes"') < html.index('id="manifest"')         # the verdicts first, the facts last


def test_the_notes_are_written_once(rebuilt):
    """Every note of the manifest's three columns is in notes.md and on the page, once each, and
    in no table nor claims file."""
    notes = (rebuilt / "notes.md").read_text()
    html = (rebuilt / PAGE).read_text()
    stored = json.loads((rebuilt / "claims.json").read_text())
    entries = [e for k in ("as_paper", "choices", "deviations") for e in stored[k]]
    assert entries
    for e in entries:
        assert notes.count(e) == 1 and unescape(html).count(e) == 1, e[:60]
        for f in [*rebuilt.glob("tables/*.md"), *rebuilt.glob("tables/*.tex"), rebuilt / "claims.md",
                  rebuilt / "claims.tex"]:
            assert e not in f.read_text(), (f.name, e[:60])


def test_the_gallery_links_every_run_below_it(rebuilt, tmp_path):
    folder = tmp_path / "runs"
    shutil.copytree(rebuilt, folder / "paper" / "a")
    (folder / "paper" / "b").mkdir()
    shutil.copy(rebuilt / "claims.json", folder / "paper" / "b" / "claims.json")     # a run with no page yet
    page = Page(write_gallery(folder).read_text())
    assert not page.errors and page.scripts == 0
    assert sorted(page.links) == ["paper/a/index.html", "paper/b/claims.md"]
    assert len(page.images) == 1 and page.images[0].startswith("data:image/png;base64,")   # b: tables only
