"""Report writers: tables (Markdown, LaTeX, CSV) and figures (PNG and PDF), written atomically.

Significance markers in tables: ``*`` after a value means a paired t-test against the
table's reference column rejected equality at the table's α (Holm-corrected where the
table says so); the legend under each table states the test, α and the reference.
"""
from __future__ import annotations

import contextvars
import functools
import io
import json
import re
from pathlib import Path

import numpy as np
import pandas as pd

from .fileio import atomic_write_bytes, atomic_write_text, write_json

__all__ = ["write_table", "markdown_table", "latex_table", "display_frame", "fmt_value", "pm", "ci", "save_figure", "band",
           "write_json", "verdict", "write_claims", "claims_text", "protocol_notes", "UNDERPOWERED", "file_stem",
           "report_outputs", "REPORT_INDEX", "OUTPUT_DIRS"]


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
                rename: dict | None = None, ci_cols: dict | None = None, shown: pd.DataFrame | None = None) -> list[Path]:
    """``stem.md`` (caption, table, legend) and ``stem.tex`` as a paper shows them
    (:func:`display_frame`, or the ready ``shown`` frame of strings), and ``stem.csv`` with the
    raw numbers, every column kept."""
    stem = Path(stem)
    if shown is None:
        shown = display_frame(df, digits, formats, pm_cols, marks, rename, ci_cols)
    md = (f"**{caption}**\n\n" if caption else "") + markdown_table(shown, digits) + (f"\n{legend}\n" if legend else "")
    atomic_write_text(stem.with_suffix(".md"), md)
    atomic_write_text(stem.with_suffix(".tex"), latex_table(shown, digits, caption=caption, legend=legend,
                                                            label=f"tab:{stem.name}"))
    buf = io.StringIO()
    df.to_csv(buf, index=False)
    atomic_write_text(stem.with_suffix(".csv"), buf.getvalue())
    return _written([stem.with_suffix(s) for s in (".md", ".tex", ".csv")])


def save_figure(fig, stem) -> list[Path]:
    """``stem.png`` (150 dpi) and ``stem.pdf`` (no creation date, so a rebuild from the same
    results gives the same bytes)."""
    import matplotlib.pyplot as plt

    stem = Path(stem)
    out = []
    for ext, kw in ((".png", {"dpi": 150}), (".pdf", {"metadata": {"CreationDate": None}})):
        buf = io.BytesIO()
        fig.savefig(buf, format=ext[1:], bbox_inches="tight", **kw)
        atomic_write_bytes(stem.with_suffix(ext), buf.getvalue())
        out.append(stem.with_suffix(ext))
    plt.close(fig)
    return _written(out)


def band(ax, x, mean, lo, hi, label: str, color=None, marker="o"):
    """A mean line with a shaded confidence band."""
    line, = ax.plot(x, mean, marker=marker, label=label, color=color, ms=4)
    ax.fill_between(x, lo, hi, color=line.get_color(), alpha=0.2, lw=0)
    return line


#: the power below which a non-significant result cannot tell "no effect" from "too few trials"
POWER_TARGET = 0.8
UNDERPOWERED = "inconclusive (underpowered)"


def verdict(diff: float, p: float, expected_sign: int, alpha: float = 0.01, power: float = float("nan")) -> str:
    """``supported`` (right direction, p < α), ``contradicted`` (wrong direction, p < α);
    when p ≥ α: ``inconclusive (underpowered)`` if the run's ``power`` to detect the paper's
    effect is below 0.8, else ``direction only`` (right direction) or ``not supported``.
    With no power (the paper gives no number to power against) the last two stand.

    >>> verdict(0.01, 0.001, +1), verdict(0.01, 0.2, +1, power=0.3), verdict(-0.01, 0.2, +1, power=0.95)
    ('supported', 'inconclusive (underpowered)', 'not supported')
    """
    sig = bool(np.isfinite(p) and p < alpha)
    if not np.isfinite(diff) or diff == 0:
        return UNDERPOWERED if np.isfinite(power) and power < POWER_TARGET else "not supported"
    right = np.sign(diff) == expected_sign
    if sig:
        return "supported" if right else "contradicted"
    if np.isfinite(power) and power < POWER_TARGET:
        return UNDERPOWERED
    return "direction only" if right else "not supported"


def protocol_notes(deviations, choices=()) -> str:
    """The sentence every table legend ends with: the deviations from the paper and the
    choices the harness made where the paper is silent."""
    out = f"Deviations: {'; '.join(deviations) or 'none'}."
    if choices:
        out += f" Choices where the paper is silent: {'; '.join(choices)}."
    return out


_CLAIM_COLUMNS = ("claim", "value", "paper_effect", "p", "trials", "power", "trials_80", "verdict", "detail")


def write_claims(root, claims: list[dict], deviations: list[str], caption: str, alpha: float = 0.01,
                 extra: dict | None = None, choices=()) -> list[Path]:
    """``claims.json`` (claims, deviations, choices, ``extra``) and ``claims.{md,tex,csv}``."""
    root = Path(root)
    files = _written([write_json(root / "claims.json", {"claims": claims, "deviations": deviations,
                                                        "choices": list(choices), **(extra or {})})])
    if claims:
        df = pd.DataFrame(claims)
        cols = [c for c in _CLAIM_COLUMNS if c in df]
        files += write_table(df[cols], root / "claims", caption=caption, digits=4,
                             formats={"p": "p", "trials": "int", "power": 2, "trials_80": "int"},
                             rename={"paper_effect": "paper effect", "trials_80": "trials for 80% power"},
                             legend=f"value: the observed statistic (its definition in detail); paper effect: the "
                                    f"paper's number for it (– where the paper gives none); power: of this run's "
                                    f"paired t-test at α = {alpha:g} to detect the paper's effect, given the observed "
                                    f"SD of the paired differences (noncentral t); trials for 80% power: the trials "
                                    f"that would give 80%. verdict: supported = expected direction and p < "
                                    f"{alpha:g}; contradicted = opposite direction, p < {alpha:g}; when p ≥ "
                                    f"{alpha:g}: inconclusive (underpowered) if power < {POWER_TARGET:g}, else "
                                    f"direction only (expected direction) or not supported. "
                                    + protocol_notes(deviations, choices))
    return files


def claims_text(claims: list[dict], deviations: list[str], alpha: float = 0.01, choices=()) -> list[str]:
    """The claims check, the deviations and the choices as printed lines."""
    lines = [f"Claims check (α = {alpha:g}):"]
    for c in claims:
        p = c.get("p")
        ptxt = f", p = {p:.3g}" if p is not None and np.isfinite(p) else ""
        pw = c.get("power")
        if pw is not None and np.isfinite(pw):
            need = c.get("trials_80")
            ptxt += f", power {pw:.2f} for the paper's effect ({need if need else '> 100,000'} trials for 80%)"
        lines.append(f"  [{c['verdict']}] {c['claim']}: {c['detail']}{ptxt}")
    if deviations:
        lines.append("Deviations from the paper: " + "; ".join(deviations))
    if choices:
        lines.append("Choices where the paper is silent: " + "; ".join(choices))
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
_WRITING: contextvars.ContextVar = contextvars.ContextVar("ltrrepro_report_files", default=None)


def _written(paths: list) -> list:
    """Note ``paths`` as written by the report in progress (see :func:`report_outputs`)."""
    seen = _WRITING.get()
    if seen is not None:
        seen.extend(Path(p) for p in paths)
    return paths


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


def report_outputs(report):
    """Wrap an experiment's ``report(store, ...) -> dict`` (the one path every report of a run
    directory takes, from a run or from ``python -m experiments.report``): the files it writes
    (through :func:`write_table`, :func:`save_figure`, :func:`write_claims`, and those it
    returns in ``"files"``) are recorded in ``OUT/report.json``, written atomically when the
    report has finished, and files under ``OUT/tables`` and ``OUT/figures`` that it did not
    write are taken away: removed where the previous ``report.json`` lists them (an earlier
    report wrote them: the tables of a noise type or plug-in the command no longer has), moved
    to ``OUT/stale/`` otherwise (their origin is unknown: a directory from before the record).
    :func:`ltrrepro.study.load` returns exactly the files of ``report.json``. A report called
    inside another (``clicks`` through ``robustness``) is recorded by the outer one."""
    @functools.wraps(report)
    def wrapper(store, *args, **kwargs):
        if _WRITING.get() is not None:
            return report(store, *args, **kwargs)
        token = _WRITING.set([])
        try:
            info = report(store, *args, **kwargs)
            written = list(_WRITING.get())
        finally:
            _WRITING.reset(token)
        root = Path(store.root)
        files = _record_report(root, [*written, *info.get("files", [])])
        gone = info.setdefault("stale", files["removed"] + files["set_aside"])
        if gone:
            lines = []
            if files["removed"]:
                lines.append(f"removed {len(files['removed'])} file(s) of an earlier report that this one did not "
                             f"write: {', '.join(files['removed'])}")
            if files["set_aside"]:
                lines.append(f"moved {len(files['set_aside'])} file(s) that no report of {root} recorded to "
                             f"{root / STALE_DIR}: {', '.join(files['set_aside'])}")
            info["text"] = "\n".join([info.get("text", ""), *(f"note: {ln}" for ln in lines)]).lstrip("\n")
        return info
    return wrapper


def _record_report(root: Path, written) -> dict:
    """Write ``root/report.json`` (the files of this report) and take away the stale files of
    :data:`OUTPUT_DIRS` (see :func:`report_outputs`)."""
    import os

    root_abs = root.resolve()
    rel = set()
    for f in written:
        try:
            rel.add(Path(f).resolve().relative_to(root_abs).as_posix())
        except ValueError:
            continue                     # written outside the directory: not its output
    try:
        before = set(read_report_index(root) or ())
    except ValueError:
        before = set()                   # a damaged record is rewritten below
    removed, set_aside = [], []
    for sub in OUTPUT_DIRS:
        d = root / sub
        for f in sorted(d.rglob("*")) if d.is_dir() else []:
            name = f.relative_to(root).as_posix()
            if not f.is_file() or f.name.startswith(".") or name in rel:
                continue                 # (dot files: another writer's temporary file)
            if name in before:
                f.unlink(missing_ok=True)
                removed.append(name)
            else:
                target = root / STALE_DIR / name
                target.parent.mkdir(parents=True, exist_ok=True)
                os.replace(f, target)
                set_aside.append(name)
    atomic_write_text(root / REPORT_INDEX, json.dumps({"files": sorted(rel)}, indent=1) + "\n")
    return {"files": sorted(rel), "removed": removed, "set_aside": set_aside}
