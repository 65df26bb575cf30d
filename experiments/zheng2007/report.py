"""Zheng et al. (2007) Table 1 and Figure 1 from a run's records: precision at K% on P3 side by
side with the paper's, DCG-5 per run, DCG-5 against iterations, and the claims check
(QBRank ≥ GBT > RankSVM on precision at K%; adding L1 helps GBT and QBRank; QBRank(P2 ∪ L1)
is best on DCG-5).
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from experiments import analysis as an
from experiments.zheng2007.protocol import DCG5, LABELS, PERCENTS, RUNS, run_name
from ltrrepro.report import (band, claims_text, protocol_notes, report_outputs, save_figure, write_claims,
                             write_table)

MODELS = tuple(RUNS)
PAPER_TABLE1 = {  # Zheng et al. 2007 Table 1 (docs/protocols/zheng2007.md §6): precision at K% on P3
    10: (.9446, .9328, .8524), 20: (.903, .8939, .8152), 30: (.8611, .8557, .7839), 40: (.8246, .8199, .7578),
    50: (.7938, .7899, .7357), 60: (.7673, .7637, .7151), 70: (.7435, .7399, .6957), 80: (.7218, .7176, .6779),
    90: (.7015, .6977, .6615), 100: (.6834, .6803, .6465)}
ALPHA = 0.01


# --------------------------------------------------------------------------- report
def frame(store) -> pd.DataFrame:
    """The analysis frame with ``model`` = the run (system and training data, e.g. ``gbt_L2``)."""
    df = an.frame(store)
    if len(df):
        df["model"] = [run_name(m, t) for m, t in zip(df.model, df.train)]
    return df


def _records(store) -> list[dict]:
    recs = store.records()
    for r in recs:
        r["run"] = run_name(r["unit"]["model"], r["unit"]["setting"]["train"])
    return recs


_paired = an.compare


@report_outputs
def report(store) -> dict:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    cfg = store.read_manifest()["config"]
    recs = _records(store)
    df = frame(store)
    root = store.root
    files = []
    trials = int(df.groupby("model").size().max()) if len(df) else 0
    # Table 1
    rows = []
    for k in PERCENTS:
        m = f"prec@{k}%"
        row = {"K%": k}
        for key in ("qbrank_P2", "gbt_L2", "ranksvm_P2"):
            row[LABELS[key]] = float(df[df.model == key][m].mean()) if (df.model == key).any() else float("nan")
        c1, c2 = _paired(df, m, "qbrank_P2", "gbt_L2"), _paired(df, m, "gbt_L2", "ranksvm_P2")
        row["p(QB vs GBT)"] = c1.p if c1 else float("nan")
        row["p(GBT vs SVM)"] = c2.p if c2 else float("nan")
        row["paper QBRank"], row["paper GBT"], row["paper RankSVM"] = PAPER_TABLE1[k]
        rows.append(row)
    table = pd.DataFrame(rows)
    sizes = recs[0]["info"]["sizes"] if recs else {}
    devs = list(cfg.get("deviations", []))
    choices = list(cfg.get("choices", []))
    if trials < 2:
        devs.append("a single trial: no significance test")
    if sizes:
        n_q = sizes["L1_queries"] + sizes["L2_queries"] + sizes["V_queries"] + sizes["L3_queries"]
        share = sizes["L1_queries"] / n_q
        if abs(share - 2000 / 4898) > 0.1:
            devs.append(f"L1 (single-grade queries) is {100 * share:.0f}% of the queries, the paper's ≈41%")
    missing = an.missing_notes(df, [f"prec@{k}%" for k in PERCENTS] + [DCG5])     # none in a normal run
    legend = (f"Precision at K% on P3, mean over {trials} trial(s); p: paired t-tests. Paper: Zheng et al. Table 1 "
              f"(proprietary data). Sizes (trial 0): {sizes}. {protocol_notes(devs, choices)}"
              + "".join(f" Missing: {m}." for m in missing))
    files += write_table(table, root / "tables" / "table1_precision", caption=f"Precision at K% ({cfg['dataset']})",
                         legend=legend, formats={"p(QB vs GBT)": "p", "p(GBT vs SVM)": "p"})
    # DCG-5 summary and Figure 1
    dcg_rows = []
    for key in MODELS:
        g = df[df.model == key]
        if len(g):
            s = an.summary(g[DCG5].values)              # the trials where it is defined
            dcg_rows.append({"run": LABELS[key], "trials": s.n, "DCG-5": s.mean, "± (95% CI)": (s.ci_high - s.ci_low) / 2})
    dcg_table = pd.DataFrame(dcg_rows)
    files += write_table(dcg_table, root / "tables" / "dcg5", caption="DCG-5 on L3 at the last iteration",
                         legend="Mean ± half-width of the 95% CI over trials. Gain 2^g − 1 (the paper gives none); "
                                "RankSVM DCG-5 in the paper: 6.181 (different data and gains).",
                         pm_cols={"DCG-5": "± (95% CI)"})
    fig, ax = plt.subplots(figsize=(6, 3.8))
    for key in MODELS[:-1]:
        cs = [r for r in recs if r["run"] == key and r["test_curve_dcg5"]]
        if not cs:
            continue
        pts = np.asarray(cs[0]["curve_points"])
        arr = np.array([r["test_curve_dcg5"] for r in cs])
        mean = arr.mean(0)
        half = 1.96 * arr.std(0, ddof=1) / np.sqrt(len(cs)) if len(cs) > 1 else np.zeros_like(mean)
        band(ax, pts, mean, mean - half, mean + half, LABELS[key], marker=None)
    svm = df[df.model == "ranksvm_P2"][DCG5]
    if len(svm):
        ax.axhline(svm.mean(), color="k", ls="--", lw=1, label="RankSVM(P2)")
    ax.set_xlabel("boosting iterations")
    ax.set_ylabel("DCG-5 on L3")
    ax.set_title(f"{cfg['dataset']}: DCG-5 vs iterations ({trials} trials, 95% band)", fontsize=9)
    ax.legend(fontsize=7)
    files += save_figure(fig, root / "figures" / "fig1_dcg_iterations")
    # claims
    cl = []

    def claim(text, metric, a, b, paper_effect=None):
        c = an.comparison_claim(text, _paired(df, metric, a, b), (LABELS[a], LABELS[b]), metric, ALPHA,
                                paper_effect=paper_effect)
        if c is not None:
            cl.append(c)

    for k in (10, 100):                   # Table 1: QBRank, GBT, RankSVM
        qb, gbt, svm = PAPER_TABLE1[k]
        claim(f"QBRank ≥ GBT on precision at {k}%", f"prec@{k}%", "qbrank_P2", "gbt_L2", qb - gbt)
        claim(f"GBT > RankSVM on precision at {k}%", f"prec@{k}%", "gbt_L2", "ranksvm_P2", gbt - svm)
    claim("adding L1 helps GBT (DCG-5)", DCG5, "gbt_L1L2", "gbt_L2")
    claim("adding L1 helps QBRank (DCG-5)", DCG5, "qbrank_P2L1", "qbrank_P2")
    claim("QBRank(P2) beats GBT(L2) trained on the same judgments (DCG-5)", DCG5, "qbrank_P2", "gbt_L2")
    for other in ("qbrank_P2", "gbt_L1L2", "gbt_L2", "gbt_L1", "ranksvm_P2"):
        claim(f"QBRank(P2∪L1) best on DCG-5: beats {LABELS[other]}", DCG5, "qbrank_P2L1", other)
    files += write_claims(root, cl, devs, "Claims check (Zheng et al.)", ALPHA, extra={"sizes": sizes},
                          choices=choices)
    text = [f"Zheng et al. Table 1 — precision at K% on P3 ({cfg['dataset']}, {cfg['library']})",
            *(f"Missing: {m}" for m in missing),
            table.to_string(index=False, float_format=lambda v: f"{v:.4f}"), "",
            dcg_table.to_string(index=False, float_format=lambda v: f"{v:.4f}"), f"sizes: {sizes}",
            *claims_text(cl, devs, ALPHA, choices)]
    return {"text": "\n".join(text), "files": files, "claims": cl, "table": table}


