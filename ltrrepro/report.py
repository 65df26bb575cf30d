"""A run's report: one :class:`Report` object holding its tables, figures and claims, which it
writes in every format once (tables as Markdown, LaTeX and CSV, figures as PNG and PDF,
``claims.{json,md,tex,csv}``, ``report.json``), atomically; the writers it uses.

A paper's report is a set of pure functions (frame, configuration) -> :class:`Table`,
:class:`Figure`, :class:`~ltrrepro.inference.claim.Claim`, composed into one :class:`Report`
that carries the report's :class:`~ltrrepro.inference.choices.Inference` (its test, correction,
effects and α, as ranx's ``Report`` carries its test and ``max_p``); the experiment's
``report(store, inference)`` builds it from the stored units and calls :meth:`Report.write`.

Significance markers in tables: ``*`` after a value means the report's test against the
table's reference column rejected equality at its α (corrected where the table says so); the
legend under each table states the test, α and the reference.

Over 500 lines on purpose: the :class:`Report` and its writers are one contract (each format
written once, atomically, every stale file taken away); split, a format could be written
outside it.
"""
from __future__ import annotations

import io
import json
import re
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
import pandas as pd

from .fileio import atomic_write_bytes, atomic_write_text, check_no_links, write_json
from .inference.choices import Inference
from .inference.claim import Claim
from .inference.rendering import CLAIM_FORMATS, CLAIM_RENAME, claims_frame, claims_legend, claims_lines
from .page import PAGE, difference_ci, write_page

__all__ = ["Report", "Table", "Figure", "Claim", "write_table", "markdown_table", "latex_table", "display_frame",
           "fmt_value", "pm", "ci", "save_figure", "band", "write_json", "write_claims", "claims_text",
           "protocol_notes", "notes_markdown", "claims_summary", "NOTES_FILE", "file_stem", "read_report_index",
           "report_paths", "REPORT_INDEX", "OUTPUT_DIRS"]


def fmt_value(v, spec=4) -> str:
    """One cell as Markdown and LaTeX show it (the CSV keeps the raw number). ``spec``: an int
    (decimals), ``"int"``, ``"g"`` (a level as given: 20, 0.05), ``"p"`` (a p-value: three
    decimals, ``<0.001`` below), ``"+"`` (signed, four decimals) or a callable. NaN or None
    gives an en dash; strings and integers pass through.

    >>> fmt_value(0.48698, 4), fmt_value(20.0, "g"), fmt_value(62.0, "int"), fmt_value(0.0004, "p")
    ('0.4870', '20', '62', '<0.001')
    >>> fmt_value(-0.0066, "+"), fmt_value(float("nan"))
    ('−0.0066', '–')
    """
    if callable(spec):
        return spec(v)
    if v is None or (isinstance(v, (float, np.floating)) and not np.isfinite(v)):
        return "–"
    if isinstance(v, (bool, np.bool_)):
        return "yes" if v else "no"
    if isinstance(v, (int, np.integer)):
        return str(int(v))
    if not isinstance(v, (float, np.floating)):
        return str(v)
    if spec == "int":
        return str(int(round(float(v))))
    if spec == "g":
        return f"{float(v):g}"
    if spec == "p":
        return "<0.001" if v < 0.001 else f"{v:.3f}"
    if spec == "+":
        return f"{v:+.4f}".replace("-", "−")
    text = f"{v:.{int(spec)}f}"
    return text.replace("-", "−") if text.startswith("-") else text


def pm(mean, half, digits: int = 4) -> str:
    """``mean ± half`` in one cell (a mean and the half-width of its confidence interval).

    >>> pm(0.48698, 0.02241)
    '0.4870 ± 0.0224'
    """
    if half is None or not np.isfinite(half):
        return fmt_value(mean, digits)
    return f"{fmt_value(mean, digits)} ± {half:.{digits}f}"


def ci(value, low, high, digits: int = 4) -> str:
    """A signed difference and its confidence interval in one cell.

    >>> ci(0.0334, 0.0018, 0.0650)
    '+0.0334 [+0.0018, +0.0650]'
    """
    if not np.isfinite(value):
        return "–"
    f = [f"{x:+.{digits}f}".replace("-", "−") if np.isfinite(x) else "–" for x in (value, low, high)]
    return f"{f[0]} [{f[1]}, {f[2]}]"


def display_frame(df: pd.DataFrame, digits: int = 4, formats: dict | None = None, pm_cols: dict | None = None,
                  marks: dict | None = None, rename: dict | None = None, ci_cols: dict | None = None) -> pd.DataFrame:
    """The table as strings for a paper: ``pm_cols`` {column: half-width column} merges a mean
    and its CI half-width into ``mean ± half``; ``ci_cols`` {column: (low column, high column)}
    writes a difference as ``+d [lo, hi]``; ``marks`` {column: marker column} appends a
    significance marker to a value; the merged-in columns are dropped. ``formats`` {column:
    spec} as :func:`fmt_value`; integer columns print as integers, other numbers with
    ``digits`` decimals; ``rename`` then renames columns."""
    formats, pm_cols, marks, ci_cols = dict(formats or {}), dict(pm_cols or {}), dict(marks or {}), dict(ci_cols or {})
    out = {}
    hidden = set(pm_cols.values()) | set(marks.values()) | {c for pair in ci_cols.values() for c in pair}
    for col in df.columns:
        if col in hidden:
            continue
        vals = df[col].tolist()
        spec = formats.get(col, "int" if pd.api.types.is_integer_dtype(df[col]) else digits)
        if col in pm_cols:
            cells = [pm(m, h, spec if isinstance(spec, int) else digits) for m, h in zip(vals, df[pm_cols[col]])]
        elif col in ci_cols:
            lo, hi = ci_cols[col]
            cells = [ci(v, a, b, spec if isinstance(spec, int) else digits) for v, a, b in zip(vals, df[lo], df[hi])]
        else:
            cells = [fmt_value(v, spec) for v in vals]
        if col in marks:
            cells = [c + (str(m) if isinstance(m, str) else "") for c, m in zip(cells, df[marks[col]])]
        out[col] = cells
    shown = pd.DataFrame(out, columns=[c for c in df.columns if c not in hidden])
    return shown.rename(columns=rename or {})


def markdown_table(df: pd.DataFrame, digits: int = 4) -> str:
    """A Markdown table; cells of a numeric frame are written by :func:`fmt_value`."""
    cols = [str(c) for c in df.columns]
    right = [_numeric_column(df[c]) for c in df.columns]
    lines = ["| " + " | ".join(cols) + " |", "|" + "|".join("--:" if r else "---" for r in right) + "|"]
    for row in df.itertuples(index=False):          # itertuples keeps each column's type
        lines.append("| " + " | ".join(fmt_value(v, digits) for v in row) + " |")
    return "\n".join(lines) + "\n"


def _numeric_column(col: pd.Series) -> bool:
    """Right-align numbers, and cells that are formatted numbers (``0.49 ± 0.01``, ``<0.001``)."""
    if pd.api.types.is_numeric_dtype(col):
        return True
    return len(col) > 0 and all(isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool)
                                or isinstance(v, str) and _NUMERIC_CELL.match(v) for v in col)


_NUMERIC_CELL = re.compile(r"^[−+\-<]?[\d.]+(e[−+\-]?\d+)?( ± [\d.]+)?( \[[−+\d.]+, [−+\d.]+\])?\*?$|^–$"
                           r"|^\d+/\d+/\d+$|^[\d.–]+/[\d.–]+$")

#: What pdflatex cannot take from a plain table, as LaTeX (the output is pure ASCII).
_TEX = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
        "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
        "λ": r"$\lambda$", "γ": r"$\gamma$", "±": r"$\pm$", "Δ": r"$\Delta$", "≥": r"$\geq$", "≤": r"$\leq$",
        "−": "-", "→": r"$\rightarrow$", "∪": r"$\cup$", "×": r"$\times$", "–": "--", "—": "---", "…": r"\ldots{}",
        "≈": r"$\approx$", "ε": r"$\varepsilon$", "ρ": r"$\rho$", "φ": r"$\varphi$", "τ": r"$\tau$",
        "η": r"$\eta$", "σ": r"$\sigma$", "Σ": r"$\Sigma$", "α": r"$\alpha$", "²": r"$^2$", "≠": r"$\neq$",
        "’": "'", "‘": "`", "“": "``", "”": "''", "·": r"$\cdot$", "<": r"$<$", ">": r"$>$", "|": r"$|$",
        "′": r"$'$", "″": r"$''$", "∞": r"$\infty$", "√": r"$\surd$", "≻": r"$\succ$", "∑": r"$\sum$"}


def _tex_escape(s: str) -> str:
    r"""LaTeX for a cell or caption: special characters escaped, known Unicode mapped to
    macros, anything else outside ASCII written as ``?`` so that the table always compiles.

    >>> print(_tex_escape("λMART − 0.5 ± 0.1 (50%)"))
    $\lambda$MART - 0.5 $\pm$ 0.1 (50\%)
    """
    out = []
    for c in str(s):
        r = _TEX.get(c, c)
        out.append(r if r.isascii() else "?")
    return "".join(out)


def latex_table(df: pd.DataFrame, digits: int = 4, caption: str = "", legend: str = "", label: str = "") -> str:
    """A booktabs table: caption above, numbers right-aligned, the legend in small type under
    the rule; a table wider than the text is scaled to the text width. Pure ASCII, so it
    compiles with pdflatex (preamble: ``\\usepackage{booktabs,graphicx}``)."""
    def align(c):
        if _numeric_column(df[c]):
            return "r"
        long = len(df) and max(len(str(v)) for v in df[c]) > 40      # prose (a claim, its detail) wraps
        return r"p{0.3\linewidth}" if long else "l"

    spec = "".join(align(c) for c in df.columns)
    # a table wider than the text (estimated in characters of the small font) is scaled to fit
    width = sum((34 if a.startswith("p{") else max([len(str(c))] + [len(str(v)) for v in df[c]])) + 3
                for a, c in zip(map(align, df.columns), df.columns))
    wide = width > 105
    out = [r"% ltrrepro table: \usepackage{booktabs,graphicx}", r"\begin{table}[t]", r"\centering", r"\small"]
    if caption:
        out.append(r"\caption{" + _tex_escape(caption) + "}")
    if label:
        out.append(r"\label{" + label + "}")
    if wide:
        out.append(r"\resizebox{\linewidth}{!}{%")
    out += [r"\begin{tabular}{" + spec + "}", r"\toprule",
            " & ".join(_tex_escape(c) for c in df.columns) + r" \\", r"\midrule"]
    for row in df.itertuples(index=False):
        out.append(" & ".join(_tex_escape(fmt_value(v, digits)) for v in row) + r" \\")
    out += [r"\bottomrule", r"\end{tabular}" + ("}" if wide else "")]
    if legend:
        out += [r"\par\smallskip", r"\parbox{\linewidth}{\footnotesize " + _tex_escape(legend) + "}"]
    out.append(r"\end{table}")
    return "\n".join(out) + "\n"


def write_table(df: pd.DataFrame, stem, caption: str = "", legend: str = "", digits: int = 4,
                formats: dict | None = None, pm_cols: dict | None = None, marks: dict | None = None,
                rename: dict | None = None, ci_cols: dict | None = None, shown: pd.DataFrame | None = None,
                md_lead: str = "") -> list[Path]:
    """``stem.md`` (caption, ``md_lead``, table, legend) and ``stem.tex`` as a paper shows them
    (:func:`display_frame`, or the ready ``shown`` frame of strings), and ``stem.csv`` with the
    raw numbers, every column kept."""
    stem = Path(stem)
    if shown is None:
        shown = display_frame(df, digits, formats, pm_cols, marks, rename, ci_cols)
    md = ((f"**{caption}**\n\n" if caption else "") + md_lead + markdown_table(shown, digits)
          + (f"\n{legend}\n" if legend else ""))
    atomic_write_text(stem.with_suffix(".md"), md)
    atomic_write_text(stem.with_suffix(".tex"), latex_table(shown, digits, caption=caption, legend=legend,
                                                            label=f"tab:{stem.name}"))
    buf = io.StringIO()
    df.to_csv(buf, index=False)
    atomic_write_text(stem.with_suffix(".csv"), buf.getvalue())
    return [stem.with_suffix(s) for s in (".md", ".tex", ".csv")]


def save_figure(fig, stem) -> list[Path]:
    """``stem.png`` (150 dpi) and ``stem.pdf`` (no creation date, so a rebuild from the same
    results gives the same bytes), both cropped to the figure's tight bounding box, measured
    once (``bbox_inches="tight"`` would lay the figure out again for each file: a third of
    the time)."""
    import matplotlib.pyplot as plt

    from matplotlib.backends.backend_agg import FigureCanvasAgg

    stem = Path(stem)
    out = []
    if not hasattr(fig.canvas, "get_renderer"):     # a Figure made without pyplot has a plain canvas
        FigureCanvasAgg(fig)
    fig.draw_without_rendering()
    tight = fig.get_tightbbox(fig.canvas.get_renderer()).padded(plt.rcParams["savefig.pad_inches"])
    for ext, kw in ((".png", {"dpi": 150}), (".pdf", {"metadata": {"CreationDate": None}})):
        buf = io.BytesIO()
        fig.savefig(buf, format=ext[1:], bbox_inches=tight, **kw)
        atomic_write_bytes(stem.with_suffix(ext), buf.getvalue())
        out.append(stem.with_suffix(ext))
    plt.close(fig)
    return out


def band(ax, x, mean, lo, hi, label: str, color=None, marker="o"):
    """A mean line with a shaded confidence band."""
    line, = ax.plot(x, mean, marker=marker, label=label, color=color, ms=4)
    ax.fill_between(x, lo, hi, color=line.get_color(), alpha=0.2, lw=0)
    return line


#: the three columns of a run's protocol notes, in the order legends and printed reports give them
NOTE_HEADINGS = {"as_paper": "As the paper", "choices": "The paper is silent; we chose",
                 "deviations": "Deviations from the paper"}


def protocol_notes(deviations, choices=(), as_paper=()) -> str:
    """The sentence every table legend ends with, in three columns: the settings that follow
    the paper where a reader could doubt it (``as_paper``), the choices the harness made where
    the paper is silent, and the deviations from the paper ("none" when there is none).

    >>> protocol_notes(["few trials"], ["ties in input order"], ["γ per iteration"])
    'As the paper: γ per iteration. The paper is silent; we chose: ties in input order. Deviations from the paper: few trials.'
    """
    out = [f"{NOTE_HEADINGS['as_paper']}: {'; '.join(as_paper)}." if as_paper else "",
           f"{NOTE_HEADINGS['choices']}: {'; '.join(choices)}." if choices else "",
           f"{NOTE_HEADINGS['deviations']}: {'; '.join(deviations) or 'none'}."]
    return " ".join(x for x in out if x)


NOTES_FILE = "notes.md"


def notes_markdown(deviations, choices=(), as_paper=(), missing=(), warnings=()) -> str:
    """``notes.md``: a run's protocol notes, written once per run (tables and claims name the
    file rather than repeat them), in the three columns of :data:`NOTE_HEADINGS`, each a list,
    then the missing values and the warnings (two arms that trained one model).

    >>> print(notes_markdown(["few trials"], [], ["γ per iteration"]), end="")
    # Protocol notes
    <BLANKLINE>
    ## As the paper
    <BLANKLINE>
    - γ per iteration
    <BLANKLINE>
    ## The paper is silent; we chose
    <BLANKLINE>
    - none
    <BLANKLINE>
    ## Deviations from the paper
    <BLANKLINE>
    - few trials
    """
    out = ["# Protocol notes", ""]
    for key, items in (("as_paper", as_paper), ("choices", choices), ("deviations", deviations)):
        out += [f"## {NOTE_HEADINGS[key]}", "", *(f"- {x}" for x in (list(items) or ["none"])), ""]
    if missing:
        out += ["## Missing values", "", *(f"- {m}" for m in missing), ""]
    if warnings:
        out += ["## Warnings", "", *(f"- {w}" for w in warnings), ""]
    return "\n".join(out)


#: what a table's legend says of the run's notes, in place of repeating them
NOTES_POINTER = f"Protocol notes (as the paper, the paper is silent, deviations): {NOTES_FILE}."


def write_claims(root, claims, deviations: list[str], caption: str, inference: Inference,
                 extra: dict | None = None, choices=(), as_paper=()) -> list[Path]:
    """``claims.json`` (claims, the protocol notes' three columns — ``as_paper``, ``choices``,
    ``deviations`` — and ``extra``) and ``claims.{md,tex,csv}`` of a list of
    :class:`~ltrrepro.inference.claim.Claim`, their legend stating ``inference``
    (:func:`~ltrrepro.inference.rendering.claims_legend`) and pointing to the run's notes
    (:data:`NOTES_FILE`). ``claims.md`` leads with the compact table (claim, difference with its
    95% CI, verdict: :func:`claims_summary`) and keeps the full one below."""
    root = Path(root)
    files = [write_json(root / "claims.json", {"claims": [c.to_dict() for c in claims], "as_paper": list(as_paper),
                                               "choices": list(choices), "deviations": list(deviations),
                                               **(extra or {})})]
    df = claims_frame(claims)                  # the columns, with d_z, ER, ΔRI and their CIs as text
    if len(df):
        legend = claims_legend(inference) + " " + NOTES_POINTER
        lead = markdown_table(claims_summary(claims)) + "\n**Full statistics**\n\n"
        files += write_table(df, root / "claims", caption=caption, digits=4, formats=CLAIM_FORMATS,
                             rename=CLAIM_RENAME, legend=legend, md_lead=lead)
    return files


def claims_summary(claims) -> pd.DataFrame:
    """The compact claims table: the claim, its observed statistic with the 95% CI of its
    per-trial mean (:func:`~ltrrepro.page.difference_ci`) and the verdict."""
    return pd.DataFrame({"claim": [c.text for c in claims],
                         "difference [95% CI]": [difference_ci(c.to_dict()) for c in claims],
                         "verdict": [c.verdict for c in claims]})


def claims_text(claims, deviations: list[str], inference: Inference, choices=(), as_paper=()) -> list[str]:
    """The claims check (a list of :class:`~ltrrepro.inference.claim.Claim`,
    :func:`~ltrrepro.inference.rendering.claims_lines`) and the protocol notes' three columns
    (:data:`NOTE_HEADINGS`) as printed lines."""
    lines = claims_lines(claims, inference)
    for key, items in (("as_paper", as_paper), ("choices", choices), ("deviations", deviations)):
        if items:
            lines.append(f"{NOTE_HEADINGS[key]}: " + "; ".join(items))
    return lines


def file_stem(name: str) -> str:
    """A unit name (a plug-in's ``pkg.mod.Name@k=v``) as part of a file name, one file name per
    unit name: dots (read as suffixes) become ``-``, and a ``-`` of the name's own is written
    ``~`` first (no unit name has a ``~``), so that ``x=0.5`` and ``x=0-5`` never share a file.

    >>> file_stem("mylosses.SoftmaxXE@temperature=0.5"), file_stem("mylosses.F@x=0-5")
    ('mylosses-SoftmaxXE@temperature=0-5', 'mylosses-F@x=0~5')
    """
    return name.replace("-", "~").replace(".", "-")


# --------------------------------------------------------------------------- what a report wrote
#: the record of the last report of a results directory: the files it wrote, relative to it
REPORT_INDEX = "report.json"
#: the directories a report owns: a file there that the last report did not write is stale
OUTPUT_DIRS = ("tables", "figures")
#: where files of unknown origin found in OUTPUT_DIRS are set aside
STALE_DIR = "stale"


def read_report_index(root) -> list[str] | None:
    """The files (relative paths) the last report of ``root`` wrote, from ``report.json``; None
    when no report recorded them (a directory from before the record, or never reported).
    A damaged record raises ``ValueError`` naming it."""
    path = Path(root) / REPORT_INDEX
    if not path.exists():
        return None
    try:
        files = json.loads(path.read_text(encoding="utf-8"))["files"]
        if not (isinstance(files, list) and all(isinstance(f, str) for f in files)):
            raise ValueError("'files' is not a list of paths")
        return files
    except (ValueError, KeyError, TypeError, UnicodeDecodeError) as err:
        raise ValueError(f"{path}: the record of the last report is damaged ({type(err).__name__}: {err})") from None


def report_paths(json_files=()) -> tuple:
    """What a report owns under its directory (relative paths): checked for symbolic links
    before anything is written (:func:`~ltrrepro.fileio.check_no_links`)."""
    return (*OUTPUT_DIRS, STALE_DIR, REPORT_INDEX, *(f"claims.{x}" for x in ("json", "md", "tex", "csv")),
            NOTES_FILE, PAGE, *json_files)


def _owned_files(root: Path):
    """The regular files under ``root``'s :data:`OUTPUT_DIRS`, as relative paths, without
    following a link: a linked file or folder found there is left alone (and listed second)."""
    import os

    files, links = [], []
    for sub in OUTPUT_DIRS:
        top = root / sub
        if os.path.islink(top) or not top.is_dir():
            continue
        for here, dirs, names in os.walk(top, followlinks=False):
            for d in list(dirs):
                if os.path.islink(os.path.join(here, d)):
                    links.append(Path(here, d).relative_to(root).as_posix())
                    dirs.remove(d)
            for n in names:
                p = Path(here, n)
                (links if os.path.islink(p) else files).append(p.relative_to(root).as_posix())
    return sorted(files), sorted(links)


def _record_report(root: Path, written) -> dict:
    """Write ``root/report.json`` (the files of this report) and take away the stale files of
    :data:`OUTPUT_DIRS` (see :meth:`Report.write`). Only regular files whose real path lies
    under ``root`` are moved or deleted: a symbolic link found there (made by someone else) and
    whatever it points to are left as they are, and listed."""
    import os

    from .fileio import inside

    root_abs = Path(os.path.realpath(root))
    rel = set()
    for f in written:
        real = Path(os.path.realpath(f))
        if os.path.commonpath([real, root_abs]) == str(root_abs):
            rel.add(real.relative_to(root_abs).as_posix())
    try:
        before = set(read_report_index(root) or ())
    except ValueError:
        before = set()                   # a damaged record is rewritten below
    removed, set_aside = [], []
    files, links = _owned_files(root)
    for name in files:
        f = root / name
        if Path(name).name.startswith(".") or name in rel or not inside(root, f):
            continue                     # (dot files: another writer's temporary file)
        if name in before:
            f.unlink(missing_ok=True)
            removed.append(name)
        else:
            target = root / STALE_DIR / name
            check_no_links(root, [Path(STALE_DIR, name).parent.as_posix()])
            target.parent.mkdir(parents=True, exist_ok=True)
            os.replace(f, target)
            set_aside.append(name)
    atomic_write_text(root / REPORT_INDEX, json.dumps({"files": sorted(rel)}, indent=1) + "\n")
    return {"files": sorted(rel), "removed": removed, "set_aside": set_aside, "links": links}


# --------------------------------------------------------------------------- the report object
@dataclass(frozen=True)
class Table:
    """One result table: the raw numbers ``frame`` (written as CSV, every column kept) and how
    a paper shows it (Markdown and LaTeX: :func:`display_frame` with ``digits``, ``formats``,
    ``pm_cols``, ``marks``, ``rename``, ``ci_cols``, or the ready frame of strings ``shown``),
    under ``tables/<name>``. The legend is ``legend``, then, with ``notes``, the run's notes
    (its deviations, choices and missing values: :attr:`Report.notes`), then ``legend_end``."""

    name: str
    frame: pd.DataFrame
    caption: str = ""
    legend: str = ""
    notes: bool = False
    legend_end: str = ""
    digits: int = 4
    formats: dict | None = None
    pm_cols: dict | None = None
    marks: dict | None = None
    rename: dict | None = None
    ci_cols: dict | None = None
    shown: pd.DataFrame | None = None

    def full_legend(self, notes: str = "") -> str:
        """The legend as written: the table's own, then (``notes``) what the run's notes add
        (:attr:`Report.notes`: where the protocol notes are, and the missing values), then
        ``legend_end``."""
        return self.legend + (f" {notes}" if self.notes else "") + self.legend_end

    def cells(self) -> tuple[list[str], list[list[str]]]:
        """The table as Markdown and LaTeX show it: its column names and rows of cells."""
        shown = self.shown if self.shown is not None else display_frame(
            self.frame, self.digits, self.formats, self.pm_cols, self.marks, self.rename, self.ci_cols)
        return [str(c) for c in shown.columns], [[fmt_value(v, self.digits) for v in row]
                                                 for row in shown.itertuples(index=False)]

    def write(self, directory, notes: str = "") -> list[Path]:
        """``<directory>/<name>.{md,tex,csv}`` (:func:`write_table`); ``notes``: the run's notes."""
        return write_table(self.frame, Path(directory) / self.name, caption=self.caption,
                           legend=self.full_legend(notes), digits=self.digits, formats=self.formats,
                           pm_cols=self.pm_cols, marks=self.marks, rename=self.rename, ci_cols=self.ci_cols,
                           shown=self.shown)


@dataclass(frozen=True)
class Figure:
    """A matplotlib figure, written as ``figures/<name>.{png,pdf}`` (:func:`save_figure`, which
    closes it)."""

    name: str
    figure: object


@dataclass(frozen=True)
class Report:
    """A run's report: its ``tables``, ``figures`` and ``claims`` (:class:`~ltrrepro.inference.claim.Claim`),
    the ``deviations`` from the paper and the ``choices`` where it is silent (from the stored
    manifest, plus any the report adds), the ``missing``-value notes, the ``warnings`` a reader
    must see first (two arms that trained the same model), and the printed text.

    The text is ``title``, one ``Missing: ...`` line per missing-value note, the report's own
    ``lines`` (its tables as printed), then the claims check (:func:`claims_text`); after
    :meth:`write`, a note per stale file taken away. Every table with ``notes`` ends its
    legend with :attr:`notes`. ``claims_extra`` goes into ``claims.json`` beside the claims
    (Jensen's sanity checks, Zheng's sizes); ``json_files`` {file name: object} are written
    under the run directory (``summary.json``). Frozen: everything is given when it is built;
    :meth:`write` returns the written report (with :attr:`files`, :attr:`stale` and the notes
    on them)."""

    title: str
    tables: list = field(default_factory=list)
    figures: list = field(default_factory=list)
    claims: list = field(default_factory=list)
    deviations: list = field(default_factory=list)
    choices: list = field(default_factory=list)
    as_paper: list = field(default_factory=list)
    missing: list = field(default_factory=list)
    lines: list = field(default_factory=list)
    inference: Inference = field(kw_only=True)         # the report's test, correction, effects and α
    claims_caption: str = "Claims check"
    claims_extra: dict = field(default_factory=dict)
    json_files: dict = field(default_factory=dict)
    files: list = field(default_factory=list)           # the written report's (write()): the paths written
    stale: list = field(default_factory=list)           # the written report's: the stale files taken away
    write_notes: list = field(default_factory=list)     # the written report's: what it says about them
    warnings: list = field(default_factory=list)        # what a reader must see first (two arms, one model)

    @property
    def notes(self) -> str:
        """What every table with ``notes`` ends its legend with: where the run's protocol notes
        are (:data:`NOTES_FILE`, written once per run, never repeated in a legend) and the
        missing values."""
        return NOTES_POINTER + "".join(f" Missing: {m}." for m in self.missing)

    def note_columns(self) -> list[tuple[str, list[str]]]:
        """The protocol notes' three columns, each (heading, entries), as :data:`NOTE_HEADINGS` orders them."""
        return [(NOTE_HEADINGS[k], list(v)) for k, v in
                (("as_paper", self.as_paper), ("choices", self.choices), ("deviations", self.deviations))]

    @property
    def text(self) -> str:
        """The printed report (see the class)."""
        body = "\n".join([self.title, *(f"Warning: {w}" for w in self.warnings), *(f"Missing: {m}" for m in self.missing),
                          *self.lines,
                           *claims_text(self.claims, self.deviations, self.inference, self.choices, self.as_paper)])
        return "\n".join([body, *(f"note: {ln}" for ln in self.write_notes)]).lstrip("\n")

    def table(self, name: str) -> Table:
        """The table written as ``tables/<name>``."""
        for t in self.tables:
            if t.name == name:
                return t
        raise KeyError(f"no table {name!r}; the report has {', '.join(t.name for t in self.tables) or 'none'}")

    def write(self, root) -> "Report":
        """Write every table, figure and the claims under ``root``, record the files in
        ``root/report.json`` (written atomically when all are written) and take away the files
        under ``root/tables`` and ``root/figures`` that this report did not write: removed where
        the previous ``report.json`` lists them (an earlier report wrote them: the tables of a
        noise type or plug-in the run no longer has), moved to ``root/stale/`` otherwise (their
        origin is unknown: a directory from before the record). Nothing is written through a
        symbolic link: a link at ``tables``, ``figures``, ``stale``, ``report.json`` or a
        claims file is a :class:`~ltrrepro.fileio.LinkError` before anything is written, and a
        link inside them is left alone (said in the notes). Returns the report with
        :attr:`files`, :attr:`stale` and the notes the text ends with. :func:`ltrrepro.study.load` returns
        exactly the files of ``report.json``."""
        root = Path(root)
        check_no_links(root, report_paths(self.json_files))     # nothing written through a link
        files: list[Path] = []
        for t in self.tables:
            files += t.write(root / "tables", self.notes)
        for f in self.figures:
            files += save_figure(f.figure, root / "figures" / f.name)
        files += write_claims(root, self.claims, self.deviations, self.claims_caption, self.inference,
                              extra=self.claims_extra, choices=self.choices, as_paper=self.as_paper)
        files += [write_json(root / name, obj) for name, obj in self.json_files.items()]
        files.append(root / NOTES_FILE)
        atomic_write_text(files[-1], notes_markdown(self.deviations, self.choices, self.as_paper, self.missing,
                                                    self.warnings))
        files.append(write_page(self, root))            # last: it embeds the figures written above
        rec = _record_report(root, files)
        notes = []
        if rec["removed"]:
            notes.append(f"removed {len(rec['removed'])} file(s) of an earlier report that this one did "
                         f"not write: {', '.join(rec['removed'])}")
        if rec["set_aside"]:
            notes.append(f"moved {len(rec['set_aside'])} file(s) that no report of {root} recorded to "
                         f"{root / STALE_DIR}: {', '.join(rec['set_aside'])}")
        if rec["links"]:
            notes.append(f"left {len(rec['links'])} symbolic link(s) that no report made, and what they point to, "
                         f"untouched: {', '.join(rec['links'])}")
        return replace(self, files=files, stale=rec["removed"] + rec["set_aside"], write_notes=notes)

    # transitional: ``info["text"]`` / ``info.get("text")`` of the report dicts this object replaces
    _KEYS = ("text", "files", "claims", "stale")

    def __getitem__(self, key: str):
        if key not in self._KEYS:
            raise KeyError(key)
        return getattr(self, key)

    def get(self, key: str, default=None):
        """``report.get("text")`` as for the dict reports returned before (read ``.text``)."""
        return getattr(self, key) if key in self._KEYS else default
