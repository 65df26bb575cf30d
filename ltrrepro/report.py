"""Report writers: tables (Markdown, LaTeX, CSV) and figures (PNG and PDF), written atomically.

Significance markers in tables: ``*`` after a value means a paired t-test against the
table's reference column rejected equality at the table's α (Holm-corrected where the
table says so); the legend under each table states the test, α and the reference.
"""
from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np
import pandas as pd

from .store import atomic_write_bytes, atomic_write_text, to_jsonable

__all__ = ["write_table", "markdown_table", "latex_table", "save_figure", "band", "write_json", "verdict",
           "write_claims", "claims_text"]


def _fmt(v, digits: int) -> str:
    if isinstance(v, (float, np.floating)):
        return "nan" if not np.isfinite(v) else f"{v:.{digits}f}"
    return str(v)


def markdown_table(df: pd.DataFrame, digits: int = 4) -> str:
    cols = [str(c) for c in df.columns]
    lines = ["| " + " | ".join(cols) + " |", "|" + "|".join("---" for _ in cols) + "|"]
    for row in df.itertuples(index=False):          # itertuples keeps each column's type
        lines.append("| " + " | ".join(_fmt(v, digits) for v in row) + " |")
    return "\n".join(lines) + "\n"


def _tex_escape(s: str) -> str:
    rep = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
           "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
           "λ": r"$\lambda$", "γ": r"$\gamma$", "±": r"$\pm$", "Δ": r"$\Delta$", "≥": r"$\geq$", "≤": r"$\leq$",
           "−": "-", "→": r"$\rightarrow$"}
    return "".join(rep.get(c, c) for c in str(s))


def latex_table(df: pd.DataFrame, digits: int = 4, caption: str = "") -> str:
    cols = [_tex_escape(c) for c in df.columns]
    out = [r"\begin{table}[t]", r"\centering", r"\begin{tabular}{" + "l" * len(cols) + "}", r"\toprule",
           " & ".join(cols) + r" \\", r"\midrule"]
    for row in df.itertuples(index=False):
        out.append(" & ".join(_tex_escape(_fmt(v, digits)) for v in row) + r" \\")
    out += [r"\bottomrule", r"\end{tabular}"]
    if caption:
        out.append(r"\caption{" + _tex_escape(caption) + "}")
    out.append(r"\end{table}")
    return "\n".join(out) + "\n"


def write_table(df: pd.DataFrame, stem, caption: str = "", legend: str = "", digits: int = 4) -> list[Path]:
    """``stem.md`` (caption, table, legend), ``stem.tex`` and ``stem.csv``."""
    stem = Path(stem)
    md = (f"**{caption}**\n\n" if caption else "") + markdown_table(df, digits) + (f"\n{legend}\n" if legend else "")
    atomic_write_text(stem.with_suffix(".md"), md)
    atomic_write_text(stem.with_suffix(".tex"), latex_table(df, digits, caption=(caption + " " + legend).strip()))
    buf = io.StringIO()
    df.to_csv(buf, index=False)
    atomic_write_text(stem.with_suffix(".csv"), buf.getvalue())
    return [stem.with_suffix(s) for s in (".md", ".tex", ".csv")]


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
    return out


def band(ax, x, mean, lo, hi, label: str, color=None, marker="o"):
    """A mean line with a shaded confidence band."""
    line, = ax.plot(x, mean, marker=marker, label=label, color=color, ms=4)
    ax.fill_between(x, lo, hi, color=line.get_color(), alpha=0.2, lw=0)
    return line


def write_json(path, obj) -> Path:
    atomic_write_text(Path(path), json.dumps(to_jsonable(obj), indent=1, allow_nan=True))
    return Path(path)


def verdict(diff: float, p: float, expected_sign: int, alpha: float = 0.01) -> str:
    """``supported`` (right direction, p < α), ``direction only`` (right direction, p ≥ α),
    ``contradicted`` (wrong direction, p < α), ``not supported`` otherwise."""
    if not np.isfinite(diff) or diff == 0:
        return "not supported"
    right = np.sign(diff) == expected_sign
    sig = bool(np.isfinite(p) and p < alpha)
    if right:
        return "supported" if sig else "direction only"
    return "contradicted" if sig else "not supported"


def write_claims(root, claims: list[dict], deviations: list[str], caption: str, alpha: float = 0.01,
                 extra: dict | None = None) -> list[Path]:
    """``claims.json`` (claims, deviations, ``extra``) and ``claims.{md,tex,csv}``."""
    root = Path(root)
    files = [write_json(root / "claims.json", {"claims": claims, "deviations": deviations, **(extra or {})})]
    if claims:
        cols = [c for c in ("claim", "value", "p", "trials", "verdict", "detail") if c in claims[0]]
        files += write_table(pd.DataFrame(claims)[cols], root / "claims", caption=caption, digits=5,
                             legend=f"verdict: supported = expected direction and p < {alpha:g}; direction only = "
                                    f"expected direction, p ≥ {alpha:g}; contradicted = opposite direction, "
                                    f"p < {alpha:g}; not supported otherwise.")
    return files


def claims_text(claims: list[dict], deviations: list[str], alpha: float = 0.01) -> list[str]:
    """The claims check and the deviations as printed lines."""
    lines = [f"Claims check (α = {alpha:g}):"]
    for c in claims:
        p = c.get("p")
        ptxt = f", p = {p:.3g}" if p is not None and np.isfinite(p) else ""
        lines.append(f"  [{c['verdict']}] {c['claim']}: {c['detail']}{ptxt}")
    if deviations:
        lines.append("Deviations from the paper: " + "; ".join(deviations))
    return lines
