"""Tables as a paper prints them (Markdown and LaTeX), and the raw numbers in CSV."""
import shutil
import subprocess

import numpy as np
import pandas as pd

from ltrrepro.report import display_frame, latex_table, markdown_table, write_table


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
