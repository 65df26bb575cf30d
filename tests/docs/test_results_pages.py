"""The committed results as a person meets them (issue 49): every run has its page, the gallery
links them all, the protocol notes are in one file per run, and nothing under ``results/``
holds a machine's absolute path. The runs of ``AWAITING_REGENERATION`` (conftest) are held to
still need it, so that an entry is dropped once its run is regenerated. Reads files only: about
two seconds."""
from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from conftest import AWAITING_REGENERATION, Page, check_run_page
from ltrrepro.report import NOTE_HEADINGS

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "results"
#: every committed run: a folder with its claims check
RUNS = sorted(p.parent.relative_to(ROOT).as_posix() for p in RESULTS.rglob("claims.json"))


def _held(run: str, check) -> None:
    """``check()`` passes for a run, and fails for a run awaiting its regeneration."""
    if run not in AWAITING_REGENERATION:
        check()
        return
    try:
        check()
    except (AssertionError, OSError):            # (OSError: a file it does not have yet)
        return
    pytest.fail(f"{run} passes now: take it out of AWAITING_REGENERATION (tests/conftest.py)")


def _absolute_strings(obj, where=""):
    """Every string of a JSON document that starts with ``/``, with where it is."""
    if isinstance(obj, str):
        return [(where, obj)] if obj.startswith("/") else []
    if isinstance(obj, dict):
        return [hit for k, v in obj.items() for hit in _absolute_strings(v, f"{where}.{k}")]
    if isinstance(obj, list):
        return [hit for i, v in enumerate(obj) for hit in _absolute_strings(v, f"{where}[{i}]")]
    return []


class _Strings(HTMLParser):
    """A page's attribute values and the words of its text."""

    def __init__(self, text):
        super().__init__(convert_charrefs=True)
        self.found: list[str] = []
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        self.found += [v for _, v in attrs if v]

    def handle_data(self, data):
        self.found += data.split()


def _absolute_in(path: Path) -> list:
    if path.suffix == ".json":
        return _absolute_strings(json.loads(path.read_text(encoding="utf-8")))
    strings = _Strings(path.read_text(encoding="utf-8")).found
    return [("", s) for s in strings if re.match(r"^['\"(]?/\w", s)]


def test_the_scan_sees_an_absolute_path(tmp_path):
    (tmp_path / "m.json").write_text(json.dumps({"argv": ["python", "-m", "x", "--out", "/home/me/run"]}))
    (tmp_path / "p.html").write_text('<p>run in <code>/tmp/x</code>, 1/2 done</p><img src="/etc/a.png">')
    assert _absolute_in(tmp_path / "m.json") == [(".argv[4]", "/home/me/run")]
    assert sorted(s for _, s in _absolute_in(tmp_path / "p.html")) == ["/etc/a.png", "/tmp/x"]


@pytest.mark.parametrize("run", RUNS)
def test_no_committed_file_of_a_run_holds_an_absolute_path(run):
    """Every manifest, unit record, claims and report record and page of the run."""
    files = [p for p in (ROOT / run).rglob("*") if p.is_file() and p.suffix in (".json", ".html")]
    assert any(p.name == "claims.json" for p in files)

    def check():
        hits = [(p.relative_to(ROOT).as_posix(), w, s) for p in files for w, s in _absolute_in(p)]
        assert not hits, f"{len(hits)} absolute path(s), the first: {hits[:3]}"
    _held(run, check)


def test_the_gallery_holds_no_absolute_path():
    assert not _absolute_in(RESULTS / "index.html")


@pytest.mark.parametrize("run", RUNS)
def test_every_committed_run_has_its_page(run):
    _held(run, lambda: check_run_page(ROOT / run))


@pytest.mark.parametrize("run", RUNS)
def test_a_runs_notes_are_in_one_file(run):
    """Each entry of the three columns (claims.json keeps them) is in ``notes.md`` under its
    heading, and in no table, no claims file and no other Markdown or LaTeX file of the run."""
    path = ROOT / run

    def check():
        notes = (path / "notes.md").read_text(encoding="utf-8")
        sections = dict(re.findall(r"^## (.+)\n\n((?:- .*\n)+)", notes, re.M))
        stored = json.loads((path / "claims.json").read_text(encoding="utf-8"))
        entries = 0
        for key in ("as_paper", "choices", "deviations"):
            listed = [ln[2:] for ln in sections[NOTE_HEADINGS[key]].splitlines()]
            assert listed == (stored[key] or ["none"]), (key, run)
            entries += len(stored[key])
        assert entries, f"{run}: no protocol notes at all"
        others = [p for p in path.rglob("*") if p.suffix in (".md", ".tex") and p.name not in ("notes.md", "README.md")
                  and "units" not in p.parts]
        for p in others:
            text = p.read_text(encoding="utf-8")
            repeated = [e for k in ("as_paper", "choices", "deviations") for e in stored[k]
                        if len(e) > 25 and e in text]
            assert not repeated, f"{p.relative_to(ROOT)} repeats the notes: {repeated[0][:60]!r}"
    _held(run, check)


def test_the_gallery_links_every_committed_run():
    page = Page((RESULTS / "index.html").read_text(encoding="utf-8"))
    assert not page.errors and page.scripts == 0
    linked = {Path(h).parent.as_posix() for h in page.links}
    assert linked == {Path(r).relative_to("results").as_posix() for r in RUNS}
    for h in page.links:
        assert (RESULTS / h).is_file(), h
        run = f"results/{Path(h).parent.as_posix()}"
        assert h.endswith("/index.html") or run in AWAITING_REGENERATION, h
    assert all(s.startswith("data:image/png;base64,") for s in page.images)
