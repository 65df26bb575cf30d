"""Tables as a paper prints them (Markdown and LaTeX), the raw numbers in CSV, and the Report
object (ltrrepro.report): every format written once, stale files taken away."""
from __future__ import annotations

import dataclasses
import json
import shutil
import subprocess

import numpy as np
import pandas as pd

from ltrrepro.inference import Evidence, Expectation, Inference, judge
from ltrrepro.report import Figure, Report, Table, display_frame, latex_table, markdown_table, write_table


def _frame():
    return pd.DataFrame({"model": ["λMART", "XE_NDCG MART"], "level": [20.0, 2.5], "trials": [6, 6],
                         "ndcg@5": [0.48698, 0.4911], "ndcg@5_ci": [0.02241, 0.0122],
                         "diff": [0.0104, -0.0066], "lo": [-0.002, -0.0199], "hi": [0.0228, 0.0066],
                         "p": [0.0004, 0.2372], "sig": ["*", ""], "trees": [62.4, np.nan]})


def test_display_frame_merges_and_formats_cells():
    shown = display_frame(_frame(), pm_cols={"ndcg@5": "ndcg@5_ci"}, ci_cols={"diff": ("lo", "hi")},
                          marks={"ndcg@5": "sig"}, formats={"level": "g", "p": "p", "trees": 1},
                          rename={"ndcg@5": "NDCG@5"})
    assert list(shown.columns) == ["model", "level", "trials", "NDCG@5", "diff", "p", "trees"]
    assert shown.iloc[0].tolist() == ["λMART", "20", "6", "0.4870 ± 0.0224*", "+0.0104 [−0.0020, +0.0228]",
                                      "<0.001", "62.4"]
    assert shown.iloc[1].tolist() == ["XE_NDCG MART", "2.5", "6", "0.4911 ± 0.0122", "−0.0066 [−0.0199, +0.0066]",
                                      "0.237", "–"]
    md = markdown_table(shown)
    assert md.splitlines()[1] == "|---|--:|--:|--:|--:|--:|--:|"        # numbers right-aligned


def _check_latex(tex: str, n_cols: int):
    assert tex.isascii()
    assert r"\toprule" in tex and r"\midrule" in tex and r"\bottomrule" in tex
    assert tex.count("{") == tex.count("}")
    body = tex[tex.index(r"\toprule") + 8:tex.index(r"\bottomrule")]
    rows = [r for r in body.split(r"\\") if r.strip() and r.strip() != r"\midrule"]
    assert all(r.replace(r"\&", "").count("&") == n_cols - 1 for r in rows), rows


def test_latex_is_ascii_booktabs_and_compiles(tmp_path):
    files = write_table(_frame(), tmp_path / "t", caption="Robustness ≥ 95% — λ, γ, ε & ∪ #1",
                        legend="Δ = XE − λ; p < 0.01 ~ 50%", pm_cols={"ndcg@5": "ndcg@5_ci"},
                        ci_cols={"diff": ("lo", "hi")}, marks={"ndcg@5": "sig"}, formats={"level": "g", "p": "p"})
    tex = files[1].read_text(encoding="utf-8")
    _check_latex(tex, 7)
    assert r"$\lambda$MART" in tex and r"$\pm$" in tex and r"\&" in tex and r"\%" in tex
    # the CSV keeps every raw column and number
    csv = pd.read_csv(files[2])
    assert list(csv.columns) == list(_frame().columns) and csv["ndcg@5_ci"].iloc[0] == 0.02241
    if shutil.which("pdflatex"):        # compiled where TeX is installed (a developer's machine), checked above anyway
        doc = tmp_path / "doc.tex"
        doc.write_text("\\documentclass{article}\\usepackage{booktabs,graphicx}\\begin{document}\n" + tex
                       + "\\end{document}\n")
        res = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", doc.name], cwd=tmp_path,
                             capture_output=True, text=True, timeout=120)
        assert res.returncode == 0, res.stdout[-2000:]


def test_wide_latex_table_is_scaled_and_prose_wraps():
    wide = pd.DataFrame({f"column {i}": [f"{i}.000/{i}.000"] for i in range(12)})
    assert r"\resizebox{\linewidth}{!}{%" in latex_table(wide)
    prose = pd.DataFrame({"claim": ["λMART degrades faster than XE_NDCG as labels are perturbed, says the paper"],
                          "p": [0.5]})
    tex = latex_table(prose)
    assert r"\begin{tabular}{p{0.3\linewidth}r}" in tex and "resizebox" not in tex
    _check_latex(tex, 2)


def test_report_writes_every_format_once(tmp_path):
    rep = _report(json_files={"summary.json": {"k": 1}}).write(tmp_path)
    listed = json.loads((tmp_path / "report.json").read_text())["files"]
    assert listed == sorted(p.relative_to(tmp_path).as_posix() for p in rep.files)
    assert set(listed) == {f"tables/{t}.{e}" for t in ("main", "plain") for e in ("md", "tex", "csv")} | \
        {"figures/fig.png", "figures/fig.pdf", "summary.json", "notes.md", "index.html"} | \
        {f"claims.{e}" for e in ("json", "md", "tex", "csv")}
    md = (tmp_path / "tables" / "main.md").read_text()
    # the legend: the table's own, where the run's notes are, the missing values, its end; the notes
    # themselves once, in notes.md, and in no table or claims file
    assert md.endswith("Legend. Protocol notes (as the paper, the paper is silent, deviations): notes.md. "
                       "Missing: v: no value in 1 unit. End.\n")
    notes = (tmp_path / "notes.md").read_text()
    assert "- ties in input order" in notes and "- few trials" in notes and "- v: no value in 1 unit" in notes
    for f in listed:
        if f.endswith((".md", ".tex")) and f != "notes.md":
            text = (tmp_path / f).read_text()
            assert "ties in input order" not in text and "few trials" not in text, f
    claims = (tmp_path / "claims.md").read_text()
    compact, full = claims.split("**Full statistics**")
    assert "| claim | difference [95% CI] | verdict |" in compact and "| A > B | +0.250 | supported |" in compact
    assert "p_raw" not in compact and "α applied" in full
    assert "0.5000 ± 0.0100" in md and (tmp_path / "tables" / "plain.md").read_text().endswith("\nPlain.\n")
    assert list(pd.read_csv(tmp_path / "tables" / "main.csv").columns) == ["model", "v", "v_ci"]
    stored = json.loads((tmp_path / "claims.json").read_text())
    assert stored["claims"][0]["claim"] == "A > B" and stored["deviations"] == ["few trials"]
    assert stored["choices"] == ["ties in input order"] and stored["sizes"] == {"n": 3}
    assert (tmp_path / "claims.md").read_text().startswith("**Claims (test)**")
    assert rep.text.splitlines()[:4] == ["Title", "Missing: v: no value in 1 unit", "body", "Claims check (α = 0.01):"]
    assert rep.text.splitlines()[4].startswith("  [supported] A > B: d, p = 0.001")
    assert rep["text"] == rep.get("text") == rep.text and rep.get("table") is None      # the old dict's keys
    assert rep.table("main").caption == "Cap"

def test_report_takes_away_what_an_earlier_report_wrote(tmp_path):
    _report().write(tmp_path)
    (tmp_path / "tables" / "mine.csv").write_text("a\n1\n")          # no report wrote it: set aside
    rep = _report()
    rep = dataclasses.replace(rep, tables=rep.tables[:1]).write(tmp_path)
    assert not (tmp_path / "tables" / "plain.md").exists() and (tmp_path / "stale" / "tables" / "mine.csv").exists()
    assert set(rep.stale) == {"tables/plain.md", "tables/plain.tex", "tables/plain.csv", "tables/mine.csv"}
    assert rep.text.splitlines()[-2].startswith("note: removed 3 file(s) of an earlier report")
    assert rep.text.splitlines()[-1].startswith("note: moved 1 file(s)")


# ----------------------------------------------------------------------------- one Report
def _report(**kw) -> Report:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    ax.plot([0, 1], [0, 1])
    df = pd.DataFrame({"model": ["A", "B"], "v": [0.5, 0.25], "v_ci": [0.01, 0.02]})
    return Report(title="Title", tables=[Table("main", df, caption="Cap", legend="Legend.", notes=True,
                                               legend_end=" End.", pm_cols={"v": "v_ci"}),
                                         Table("plain", df[["model"]], legend="Plain.")],
                  figures=[Figure("fig", fig)], claims=[judge("A > B", Evidence(0.25, 0.001, 5, "d"), Expectation(), Inference())],
                  deviations=["few trials"], choices=["ties in input order"], missing=["v: no value in 1 unit"],
                  lines=["body"], claims_caption="Claims (test)", claims_extra={"sizes": {"n": 3}}, inference=Inference(), **kw)


def test_save_figure_takes_a_figure_made_without_pyplot(tmp_path):
    """A ``matplotlib.figure.Figure()`` has a plain ``FigureCanvasBase``, which has no
    renderer: ``save_figure`` measured the tight box through it and crashed the report of every
    ``--trials auto`` run whose study draws figures (issue 48)."""
    from matplotlib.figure import Figure

    from ltrrepro.report import save_figure

    fig = Figure(figsize=(3, 2))
    fig.add_subplot().plot([0, 1], [1, 0])
    files = save_figure(fig, tmp_path / "plain")
    assert [f.name for f in files] == ["plain.png", "plain.pdf"]
    assert files[0].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and files[1].read_bytes()[:5] == b"%PDF-"
