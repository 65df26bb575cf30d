from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
DATA = Path(__file__).resolve().parent / "data"
#: 50 real LETOR 4.0 MQ2008 queries (Fold 1 vali/test heads), shipped with the tests: see data/README.md
MQ2008 = DATA / "mq2008"


def _cores() -> int:
    """The cores this process may use: its CPU affinity, lowered by a cgroup CPU quota (a
    container limited to 2 cores of a 64-core host sees 64 in its affinity)."""
    import math
    import os
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    for quota_file, period_file in (("/sys/fs/cgroup/cpu.max", None),
                                    ("/sys/fs/cgroup/cpu/cpu.cfs_quota_us", "/sys/fs/cgroup/cpu/cpu.cfs_period_us")):
        try:
            fields = Path(quota_file).read_text().split()
            quota, period = fields[0], (fields[1] if period_file is None else Path(period_file).read_text().strip())
            if quota not in ("max", "-1"):
                cores = min(cores, max(1, math.ceil(int(quota) / int(period))))
        except (OSError, ValueError, IndexError):
            pass
    return cores


def pytest_xdist_auto_num_workers(config):
    """``-n auto`` (pyproject's addopts): one worker per usable core, at most 8 (each worker
    compiles the numba kernels once and holds the libraries in memory);
    ``PYTEST_XDIST_AUTO_NUM_WORKERS=N`` still sets N (pytest-xdist's own reading)."""
    import os
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return None
    return min(_cores(), 8)


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "allowed_skip(reason): this test may skip, for the stated reason (any other skip fails the run)")


def pytest_collection_modifyitems(session, config, items):
    """Files with the most ``slow`` tests first, each file's tests in their order: xdist's
    ``--dist loadfile`` hands files out in this order, so the last to run are short ones and the
    workers finish together (longest first) instead of one waiting on the other's end-to-end file."""
    from collections import Counter

    slow = Counter(item.path for item in items if item.get_closest_marker("slow"))
    items.sort(key=lambda item: -slow[item.path])


_UNJUSTIFIED_SKIPS: list[str] = []


def pytest_runtest_logreport(report):
    """Record every skip of a test that does not carry ``@pytest.mark.allowed_skip(reason=...)``."""
    if report.skipped and "allowed_skip" not in report.keywords:
        _UNJUSTIFIED_SKIPS.append(f"{report.nodeid}: {report.longrepr[-1] if isinstance(report.longrepr, tuple) else report.longrepr}")


def pytest_sessionfinish(session, exitstatus):
    """A skip is a test that did not run: the run fails unless the test says why it may skip."""
    if _UNJUSTIFIED_SKIPS and exitstatus == 0:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter):
    if _UNJUSTIFIED_SKIPS:
        terminalreporter.section("skipped tests without an allowed_skip marker (the run fails)")
        for line in _UNJUSTIFIED_SKIPS:
            terminalreporter.write_line(line)


@pytest.fixture(autouse=True)
def _isolated_cache(tmp_path, monkeypatch):
    """Never write the user's cache from tests."""
    monkeypatch.setenv("LTRREPRO_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("LTRREPRO_DATA_DIR", raising=False)


@pytest.fixture
def rng():
    return np.random.default_rng(20261122)


@pytest.fixture
def mq2008_dir():
    """The in-repository MQ2008 sample (``vali.txt``, ``test.txt``, compressed copies of ``vali.txt``)."""
    return MQ2008


def random_lists(rng, n_queries=40, max_size=25, max_label=4, distinct=True):
    """Flat scores/labels/offsets of random lists (sizes 1..max_size)."""
    sizes = rng.integers(1, max_size + 1, size=n_queries)
    n = int(sizes.sum())
    labels = rng.integers(0, max_label + 1, size=n)
    scores = rng.permutation(n).astype(float) / n if distinct else rng.integers(0, 4, n).astype(float)
    offsets = np.r_[0, np.cumsum(sizes)]
    return scores, labels, offsets


def execute_notebook(name: str, results) -> str:
    """Run ``notebooks/NAME`` on the results directory ``results`` (through
    ``LTRREPRO_RESULTS``), in memory (the file is not rewritten), and return the text of all
    its outputs; an error in any cell raises."""
    import os
    from unittest import mock

    import nbclient
    import nbformat

    nb = nbformat.read(ROOT / "notebooks" / name, as_version=4)
    with mock.patch.dict(os.environ, {"LTRREPRO_RESULTS": str(results)}):
        nbclient.NotebookClient(nb, timeout=300, kernel_name="python3",
                                resources={"metadata": {"path": str(ROOT / "notebooks")}}).execute()
    texts = []
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            texts.append(out.get("text", "") + str(out.get("data", {}).get("text/plain", "")))
    return "\n".join(texts)


def tree_digest(root) -> dict:
    """{relative path: bytes} of every file under ``root`` (to prove that nothing was written)."""
    root = Path(root)
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


#: committed runs that are being regenerated on a changed protocol and that therefore predate the
#: run page (``index.html``, ``notes.md``) and the schema-2 manifest. The tests of committed
#: results hold every other run to them, and fail for an entry here once it no longer needs to
#: be: then remove it. Empty: every committed run has its page.
AWAITING_REGENERATION: frozenset = frozenset()


# ------------------------------------------------------------------------------ a run's page, parsed
#: elements a page may leave unclosed (HTML's void elements)
VOID = {"meta", "img", "br", "hr", "link", "input", "col", "source", "wbr"}


class Page(HTMLParser):
    """What a reader sees of a page: its claims (text, verdict, badge class), its tables and
    figures by id, every image source and link, and whether the elements nest (each one closed,
    in order)."""

    def __init__(self, text: str):
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []
        self.errors: list[str] = []
        self.claims: list[dict] = []
        self.ids: list[str] = []
        self.images: list[str] = []
        self.links: list[str] = []
        self.attributes: list[str] = []
        self.scripts = 0
        self._text_of: dict | None = None
        self.feed(text)
        self.close()
        if self.stack:
            self.errors.append(f"unclosed: {self.stack}")

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.attributes += [v for v in a.values() if v]
        if tag == "script":
            self.scripts += 1
        if "id" in a:
            self.ids.append(a["id"])
        if tag == "img":
            self.images.append(a.get("src", ""))
        if tag == "a":
            self.links.append(a.get("href", ""))
        if tag == "li" and "claim" in a.get("class", "").split():
            self.claims.append({"verdict": a.get("data-verdict"), "badge": None, "text": ""})
        classes = a.get("class", "").split()
        if self.claims and tag == "span" and "badge" in classes and self.claims[-1]["badge"] is None \
                and "li" in self.stack:
            self.claims[-1]["badge"] = next(c[2:] for c in classes if c.startswith("v-"))
            self._text_of = {"key": "badge_text", "depth": len(self.stack)}
        if self.claims and tag == "span" and "claim-text" in classes:
            self._text_of = {"key": "text", "depth": len(self.stack)}
        if tag not in VOID:
            self.stack.append(tag)

    def handle_endtag(self, tag):
        if tag in VOID:
            return
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"</{tag}> closes {self.stack[-1] if self.stack else 'nothing'}")
            return
        self.stack.pop()
        if self._text_of and len(self.stack) == self._text_of["depth"]:
            self._text_of = None

    def handle_data(self, data):
        if self._text_of:
            key = self._text_of["key"]
            self.claims[-1][key] = self.claims[-1].get(key, "") + data


def check_run_page(run) -> Page:
    """Everything a reader must find on ``run``'s page, against the files the report wrote:
    the elements nest, no script, every claim of ``claims.json`` in order with its verdict and
    badge, every table and figure of ``report.json`` (each figure an inline PNG), nothing that
    points outside the page."""
    import json

    from ltrrepro.page import PAGE, verdict_kind

    run = Path(run)
    page = Page((run / PAGE).read_text(encoding="utf-8"))
    assert not page.errors, f"{run}: {page.errors[:3]}"
    assert page.scripts == 0, f"{run}: a page needs no JavaScript"
    stored = json.loads((run / "claims.json").read_text(encoding="utf-8"))["claims"]
    assert [c["text"] for c in page.claims] == [c["claim"] for c in stored], run
    for shown, claim in zip(page.claims, stored):
        assert shown["verdict"] == shown["badge_text"] == claim["verdict"], (run, claim["claim"])
        assert shown["badge"] == verdict_kind(claim["verdict"]), (run, claim["claim"])
    written = json.loads((run / "report.json").read_text(encoding="utf-8"))["files"]
    tables = {Path(f).stem for f in written if f.startswith("tables/") and f.endswith(".md")}
    figures = {Path(f).stem for f in written if f.startswith("figures/") and f.endswith(".png")}
    assert {i[len("table-"):] for i in page.ids if i.startswith("table-")} == tables, run
    assert {i[len("figure-"):] for i in page.ids if i.startswith("figure-")} == figures, run
    assert len(page.images) == len(figures) and all(s.startswith("data:image/png;base64,") for s in page.images)
    assert not [v for v in page.attributes if v.startswith(("http:", "https:", "//", "/"))], \
        f"{run}: the page would fetch or point outside itself"
    assert {"claims", "notes", "manifest"} <= set(page.ids)
    return page
