"""A run as a person reads it: ``OUT/index.html``, one self-contained page per run (the
claims' verdicts first, as coloured badges; the tables, with the paper's numbers beside the
run's where the table has them; the figures inline; the protocol notes once; the manifest's
facts last), and :func:`write_gallery`, one page linking every run under a folder.

Both are rendered from Jinja2 templates shipped in the package (``ltrrepro/templates``,
package data) with every value escaped. A page fetches nothing: its styles are inline, its
figures and thumbnails are ``data:`` URIs, and it needs no JavaScript (the full statistics of a
claim open in a ``<details>`` element). Nothing of the machine goes into a page: the command is
the manifest's (as typed), the paths are relative to the page.
"""
from __future__ import annotations

import base64
import io
import json
import math
import shlex
from pathlib import Path

from jinja2 import Environment, PackageLoader, StrictUndefined

__all__ = ["PAGE", "GALLERY", "verdict_kind", "difference_ci", "run_page", "write_page", "write_gallery",
           "gallery_entries", "VERDICT_KINDS"]

#: a run's page and a folder's gallery, beside the run's other outputs
PAGE = "index.html"
GALLERY = "index.html"

#: a verdict's badge: its kind by the verdict's first words (a verdict with its own wording,
#: "inconclusive (underpowered: 0 of 6 ...)", "supported (equivalent within ±0.01)", takes its
#: kind from them), in the order the page and the gallery count them
VERDICT_KINDS = (("supported", "supported"), ("contradicted", "contradicted"),
                 ("inconclusive", "inconclusive"), ("not supported", "not-supported"),
                 ("identical models", "identical"), ("direction only", "direction"))


def verdict_kind(verdict: str) -> str:
    """The badge class of a verdict (``other`` for a descriptive one).

    >>> verdict_kind("inconclusive (underpowered)"), verdict_kind("supported (equivalent within ±0.01)")
    ('inconclusive', 'supported')
    >>> verdict_kind("descriptive (a magnitude, no test)"), verdict_kind("not supported")
    ('other', 'not-supported')
    """
    v = str(verdict).strip().lower()
    for prefix, kind in VERDICT_KINDS:
        if v.startswith(prefix):
            return kind
    return "other"


def _num(x) -> float:
    try:
        return float(x)
    except (TypeError, ValueError):
        return math.nan


def difference_ci(claim: dict, level: float = 0.95) -> str:
    """A claim's observed statistic with the ``level`` t interval of its per-trial mean
    (``value ± t·sd/√trials``, the interval of the test the claim's p comes from), or the value
    alone where the claim rests on no per-trial SD (a count, one trial, a composite claim).

    >>> difference_ci({"value": 0.0041, "sd": 0.0132, "trials": 5})
    '+0.0041 [−0.0123, +0.0205]'
    >>> difference_ci({"value": 12.0, "sd": None, "trials": 1}), difference_ci({"value": None})
    ('+12.00', '–')
    >>> difference_ci({"value": -2.65e-05, "sd": 3.11e-04, "trials": 6})
    '−0.000027 [−0.000353, +0.000300]'
    """
    from scipy import stats

    v, sd, n = _num(claim.get("value")), _num(claim.get("sd")), _num(claim.get("trials"))
    if not math.isfinite(v):
        return "–"
    ok = math.isfinite(sd) and sd > 0 and math.isfinite(n) and n >= 2
    half = stats.t.ppf(0.5 + level / 2, n - 1) * sd / math.sqrt(n) if ok else 0.0
    scale = max(abs(v), half)
    # two significant digits of the larger of the value and the half-width (a slope per level point
    # of 3e-5 is not written +0.0000), two decimals at least
    digits = min(8, max(2, 2 - math.floor(math.log10(scale)))) if scale > 0 else 2
    fmt = lambda x: f"{x:+.{digits}f}".replace("-", "−")      # noqa: E731 - one format, three uses
    if not ok:
        return fmt(v)
    return f"{fmt(v)} [{fmt(v - half)}, {fmt(v + half)}]"


def _power(claim: dict) -> str:
    p = _num(claim.get("power"))
    return f"{p:.2f}" if math.isfinite(p) else "–"


def _trials_80(claim: dict) -> str:
    n = claim.get("trials_80")
    if isinstance(n, (int, float)) and math.isfinite(n):
        return f"{int(n):,}"
    return "> 100,000" if math.isfinite(_num(claim.get("power"))) else "–"


def _env() -> Environment:
    return Environment(loader=PackageLoader("ltrrepro", "templates"), autoescape=True, undefined=StrictUndefined,
                       trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True)


def _data_uri(png: bytes) -> str:
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")


def command_text(argv) -> str:
    """A manifest's ``argv`` as one command line; a run through the Python API has none.

    >>> command_text(["python", "-m", "mystudy", "--out", "runs/a b"])
    "python -m mystudy --out 'runs/a b'"
    """
    if not argv:
        return "run through the Python API: no command line"
    return shlex.join(str(a) for a in argv)


def _manifest_facts(root: Path) -> list[tuple[str, str]]:
    """The facts of ``root``'s manifest a reader wants at the bottom of the page (or those of
    a cross-dataset report's ``sources.json``)."""
    from . import migrations

    facts: list[tuple[str, str]] = []
    path = root / "manifest.json"
    if path.exists():
        try:
            man = migrations.manifest(json.loads(path.read_text(encoding="utf-8")))
        except (ValueError, UnicodeDecodeError):
            return [("manifest", "manifest.json is damaged")]
        cfg = man.get("config") or {}
        facts += [("study", str(man.get("experiment"))), ("command", command_text(man.get("argv"))),
                  ("dataset", str(cfg.get("dataset"))), ("trials", str(cfg.get("trials"))),
                  ("seed", str(cfg.get("seed"))), ("git commit", str(man.get("git_commit"))),
                  ("status", str(man.get("status"))), ("started", str(man.get("started"))),
                  ("finished", str(man.get("finished")))]
        if isinstance(man.get("wall_s"), (int, float)):
            facts.append(("wall time", f"{man['wall_s']:.0f} s"))
        stats = man.get("statistics")
        if isinstance(stats, dict):
            facts.append(("report statistics", ", ".join(f"{k} {v}" for k, v in stats.items())))
        versions = man.get("versions")
        if isinstance(versions, dict):
            facts.append(("versions", ", ".join(f"{k} {v}" for k, v in versions.items())))
        machine = man.get("machine")
        if isinstance(machine, dict):
            facts.append(("machine", ", ".join(f"{k} {machine[k]}" for k in ("platform", "cpus") if k in machine)))
        shown = {k: v for k, v in cfg.items() if k not in migrations.UNHASHED}
        facts.append(("configuration", json.dumps(shown, ensure_ascii=False, sort_keys=True)))
        return facts
    sources = root / "sources.json"
    if sources.exists():
        runs = json.loads(sources.read_text(encoding="utf-8")).get("runs", [])
        facts.append(("runs", "; ".join(f"{r.get('dir')} ({r.get('dataset')}, {r.get('trials')} trials)"
                                        for r in runs)))
    return facts


def run_page(report, root) -> str:
    """The HTML of ``root``'s page for the written ``report`` (:class:`ltrrepro.report.Report`,
    its figures already saved as ``figures/<name>.png``): its tables as they print
    (``Table.cells()``), its notes' three columns (``Report.note_columns()``). A column whose
    name says ``paper`` is the paper's number, shaded beside the run's."""
    from .inference.rendering import claims_legend

    root = Path(root)
    claims = []
    for c in report.claims:
        d = c.to_dict()
        stats = [(k, "–" if v is None else (f"{v:.4g}" if isinstance(v, float) else str(v)))
                 for k, v in d.items() if k not in ("claim", "detail", "verdict")]
        diff = difference_ci(d)
        claims.append({"text": c.text, "verdict": c.verdict, "kind": verdict_kind(c.verdict),
                       "difference": diff, "with_ci": "[" in diff, "power": _power(d), "trials_80": _trials_80(d),
                       "detail": c.detail, "stats": stats})
    tables = []
    for t in report.tables:
        cols, rows = t.cells()
        tables.append({"name": t.name, "caption": t.caption or t.name, "legend": t.legend + t.legend_end,
                       "columns": cols, "rows": rows, "paper": ["paper" in c.lower() for c in cols]})
    figures = [{"name": f.name, "uri": _data_uri((root / "figures" / f"{f.name}.png").read_bytes())}
               for f in report.figures]
    notes = report.note_columns()
    counts = _counts([c["verdict"] for c in claims])
    return _env().get_template("run.html.j2").render(
        title=report.title.strip() or root.name, claims=claims, counts=counts,
        claims_legend=claims_legend(report.inference) if claims else "", tables=tables, figures=figures,
        notes=notes, missing=list(report.missing), warnings=list(getattr(report, "warnings", ())),
        facts=_manifest_facts(root))


def write_page(report, root) -> Path:
    """Write ``root/index.html`` (:func:`run_page`), atomically."""
    from .fileio import atomic_write_text

    path = Path(root) / PAGE
    atomic_write_text(path, run_page(report, root))
    return path


def _counts(verdicts) -> list[dict]:
    """How many claims of each badge kind, in :data:`VERDICT_KINDS` order (``other`` last)."""
    kinds = [verdict_kind(v) for v in verdicts]
    order = [k for _, k in VERDICT_KINDS] + ["other"]
    label = dict((k, p) for p, k in VERDICT_KINDS) | {"other": "descriptive"}
    return [{"kind": k, "label": label[k], "n": kinds.count(k)} for k in order if kinds.count(k)]


# ------------------------------------------------------------------------------------ the gallery
def _thumbnail(png: Path, width: int = 320) -> str:
    """A figure as a small PNG data URI (``width`` pixels wide at most, 64 colours: a plot's
    thumbnail in a few kilobytes)."""
    from PIL import Image

    with Image.open(png) as im:
        im = im.convert("RGB")
        if im.width > width:
            im = im.resize((width, max(1, round(im.height * width / im.width))), Image.LANCZOS)
        buf = io.BytesIO()
        im.quantize(colors=64).save(buf, format="PNG", optimize=True)
    return _data_uri(buf.getvalue())


def gallery_entries(folder) -> list[dict]:
    """One entry per run under ``folder`` (a folder with ``claims.json``): its relative link
    (its page, or its ``claims.md`` while it has no page: ``page`` False), study, dataset,
    trials, verdict counts and a thumbnail of its first figure (None: a run of tables only)."""
    folder = Path(folder)
    out = []
    for claims_path in sorted(folder.rglob("claims.json")):
        run = claims_path.parent
        claims = json.loads(claims_path.read_text(encoding="utf-8")).get("claims", [])
        study, dataset, trials = "", "", ""
        if (run / "manifest.json").exists():
            man = json.loads((run / "manifest.json").read_text(encoding="utf-8"))
            cfg = man.get("config") or {}
            study, dataset, trials = str(man.get("experiment")), str(cfg.get("dataset")), str(cfg.get("trials"))
        elif (run / "sources.json").exists():
            runs = json.loads((run / "sources.json").read_text(encoding="utf-8")).get("runs", [])
            study = "across datasets"
            dataset = " + ".join(str(r.get("dataset")) for r in runs)
            trials = " + ".join(str(r.get("trials")) for r in runs)
        figures = sorted((run / "figures").glob("*.png")) if (run / "figures").is_dir() else []
        rel = run.relative_to(folder).as_posix()
        page = (run / PAGE).exists()
        out.append({"dir": rel, "href": f"{rel}/{PAGE if page else 'claims.md'}", "page": page, "study": study,
                    "dataset": dataset, "trials": trials,
                    "n_claims": len(claims), "counts": _counts([c.get("verdict", "") for c in claims]),
                    "thumbnail": _thumbnail(figures[0]) if figures else None})
    return out


def write_gallery(folder, title: str = "Reproductions") -> Path:
    """Write ``folder/index.html``: a card per run with a page under ``folder``
    (:func:`gallery_entries`), each linking to it. Returns the path."""
    from .fileio import atomic_write_text

    folder = Path(folder)
    entries = gallery_entries(folder)
    html = _env().get_template("gallery.html.j2").render(title=title, runs=entries)
    path = folder / GALLERY
    atomic_write_text(path, html)
    return path
