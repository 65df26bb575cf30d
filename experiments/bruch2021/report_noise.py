"""Bruch Figures 3 (``robustness``: extra negatives, label noise) and 4 (``clicks``, appendix E):
per noise type and level, both models' mean test NDCG@5 and the paired difference, one table
and figure set per comparison (the paper's pair, then each plug-in against the baseline), and
the claims "λMART degrades faster than XE_NDCG" (per-trial slope of the difference against the
level) and, for clicks, "XE_NDCG MART beats λMART at every click level".
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from experiments import analysis as an
from experiments.bruch2021.protocol import NDCG5
from experiments.bruch2021.report import NOISE_MARK, model_name
from experiments.bruch2021.claims import remark_claims
from experiments.bruch2021.claims_noise import SHORT, expand_level0, level_claims, noise_claims
from ltrrepro.inference import CORRECTION_NAMES, TEST_NAMES, Inference
from ltrrepro.inference.tests import paired_test, summarize
from ltrrepro.report import Figure, Report, Table, band, file_stem

#: the paper's pair, and how its tables name the two models
PAPER_PAIR = ("xendcg", "lambdamart")
XLABELS = {"documents": "% increase in list length (extra negatives)", "labels": "% of labels perturbed",
           "clicks": "click probability of non-relevant documents"}


@dataclass(frozen=True)
class Outputs:
    """Where a noise-level study's outputs go: ``tables/<table>``, ``figures/<figure>_<noise>``."""

    table: str
    figure: str
    title: str


FIGURE3 = Outputs("robustness", "fig3", "Bruch Figure 3 — robustness")
FIGURE4 = Outputs("clicks", "fig4", "Bruch Figure 4 — click noise")


def names_of(model: str, cfg) -> tuple[str, str]:
    """(column name, short name) of a model in the tables."""
    if model in SHORT:
        return SHORT[model]
    label = model_name(model, cfg)
    return label, label


def pairs_of(cfg, models) -> list[tuple[str, str, str]]:
    """(a, b, file suffix) of every comparison: the paper's pair (XE_NDCG vs λMART) when both
    ran, then each plug-in against the baseline, then XE_NDCG against each other ranking
    system of ``--models`` (library rankers such as CatBoost's losses)."""
    out = [(*PAPER_PAIR, "")] if set(PAPER_PAIR) <= set(models) else []
    base = cfg.baseline
    for key, _ in cfg.plugins:
        if key != base and key in models and base in models:       # never a plug-in against itself
            out.append((key, base, "_" + file_stem(key)))      # file names: no dots, one per plug-in
    others = sorted(set(models) - {*PAPER_PAIR, *dict(cfg.plugins), base}) if "xendcg" in models else []
    return out + [("xendcg", m, "_" + file_stem(m)) for m in others]


def analyse(df: pd.DataFrame, metric: str = NDCG5, a: str = "xendcg", b: str = "lambdamart", *,
            inference: Inference) -> pd.DataFrame:
    """Per noise type and level: both models' means and CIs, the paired difference ``a − b``
    and its tests (the chosen ``--test``), d_z with its CI, the p adjusted over the levels of a
    noise type by the chosen ``--correction`` (``p_adj``; columns named by the models' keys)."""
    rows = []
    df = expand_level0(df)
    for noise, g in df.groupby("noise"):
        for level, h in g.groupby("level"):
            if len(an.paired(h, metric, a, b, dropna=False)) == 0:
                continue
            pr = an.paired(h, metric, a, b)          # the trials where both are defined (maybe none)
            c = paired_test(pr.a.values, pr.b.values, test=inference.test)
            sa, sb = summarize(pr.a.values), summarize(pr.b.values)
            rows.append({"noise": noise, "level": float(level), "trials": c.n, b: sb.mean,
                         f"{b}_lo": sb.ci_low, f"{b}_hi": sb.ci_high, a: sa.mean,
                         f"{a}_lo": sa.ci_low, f"{a}_hi": sa.ci_high, "diff": c.diff, "diff_lo": c.ci_low,
                         "diff_hi": c.ci_high, "sd": c.std_diff, "dz": c.dz, "dz_lo": c.dz_low, "dz_hi": c.dz_high,
                         "p": c.p, "wins": c.wins, "ties": c.ties, "losses": c.losses,
                         "identical": an.identical(h, a, b)})          # the two trained one model (their fingerprints)
    out = pd.DataFrame(rows, columns=["noise", "level", "trials", b, f"{b}_lo", f"{b}_hi", a, f"{a}_lo", f"{a}_hi",
                                      "diff", "diff_lo", "diff_hi", "sd", "dz", "dz_lo", "dz_hi", "p", "wins", "ties",
                                      "losses", "identical"])
    if out.identical.isna().all():            # a column only where two arms trained one model (the guard)
        out = out.drop(columns="identical")
    out = out.sort_values(["noise", "level"]).reset_index(drop=True)
    out["p_adj"] = an.adjust_within(out, "noise", inference.correction) if len(out) else []
    return out


def pair_table(res: pd.DataFrame, cfg, a: str, b: str, names, name: str, *, inference: Inference) -> Table:
    """The table of one comparison: means, Δ with its CI, d_z with its CI, p, the adjusted p,
    W/T/L, ``*`` where :data:`~experiments.bruch2021.report.NOISE_MARK` < α."""
    (na, sa), (nb, sb) = names
    d = f"Δ ({sa}−{sb})"
    table = res[["noise", "level", "trials", b, a, "diff", "diff_lo", "diff_hi", "dz", "dz_lo", "dz_hi", "p", "p_adj",
                 "wins", "ties", "losses"]].copy()
    table["sig"] = np.where(table[NOISE_MARK] < inference.alpha, "*", "")
    table = table.rename(columns={b: nb, a: na, "diff": d, "diff_lo": "Δ 95% lo", "diff_hi": "Δ 95% hi"})
    return Table(name, table, notes=True,
                 caption=f"Robustness to training noise ({cfg.dataset}, library {cfg.library})",
                 legend=f"Mean test NDCG@5 over trials. Δ = {na} − {nb} (paired by trial), 95% CI; d_z = mean/SD of "
                        f"the per-trial Δ, 95% CI (noncentral t); p: {TEST_NAMES[inference.test]}; p (adj.): "
                        f"{CORRECTION_NAMES[inference.correction]} over the levels of a noise type, the p of the "
                        f"per-level claims; * p (adj.) < {inference.alpha}. W/T/L = trials where {na} wins/ties/loses.",
                 formats={"level": "g", "p": "p", "p_adj": "p", "dz": 2}, ci_cols={d: ("Δ 95% lo", "Δ 95% hi"),
                                                                               "dz": ("dz_lo", "dz_hi")},
                 marks={d: "sig"}, rename={d: f"{d} [95% CI]", "p_adj": "p (adj.)", "dz": "d_z [95% CI]"})


def pair_figures(res: pd.DataFrame, cfg, a: str, b: str, names, figure: str, suffix: str) -> list[Figure]:
    """One figure per noise type: both models' NDCG@5 against the level, and Δ on a second axis."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    (na, _), (nb, _) = names
    long_a = "XE_NDCG MART" if a == "xendcg" else na
    trials = int(res.trials.max()) if len(res) else 0
    out = []
    for noise, g in res.groupby("noise"):
        fig, ax = plt.subplots(figsize=(5, 3.6))
        band(ax, g.level, g[b], g[f"{b}_lo"], g[f"{b}_hi"], nb, color="tab:blue")
        band(ax, g.level, g[a], g[f"{a}_lo"], g[f"{a}_hi"], long_a, color="tab:orange", marker="s")
        ax.set_xlabel(XLABELS[noise])
        ax.set_ylabel("test NDCG@5")
        ax2 = ax.twinx()
        band(ax2, g.level, g["diff"], g.diff_lo, g.diff_hi, f"Δ ({long_a.replace(' MART', '')} − {nb})",
             color="tab:green", marker="^")
        ax2.axhline(0, color="tab:green", lw=0.5, ls=":")
        ax2.set_ylabel("Δ NDCG@5", color="tab:green")
        lines = ax.get_lines()[:2] + ax2.get_lines()[:1]
        ax.legend(lines, [ln.get_label() for ln in lines], fontsize=7, loc="best")
        ax.set_title(f"{cfg.dataset}: {noise} noise ({trials} trials, 95% CI)", fontsize=9)
        out.append(Figure(f"{figure}_{noise}{suffix}", fig))
    return out


def build(df: pd.DataFrame, cfg, deviations=(), choices=(), as_paper=(), outputs: Outputs = FIGURE3, *,
          inference: Inference) -> Report:
    """The report of a noise-level run (``robustness``: :data:`FIGURE3`; ``clicks``:
    :data:`FIGURE4`): one table and figure set per comparison (:func:`pairs_of`), one claims
    check for all, and ``summary.json`` (every comparison's rows)."""
    tables, figures, cl, lines, summary = [], [], [], [], {}
    for a, b, suffix in pairs_of(cfg, set(df.model) if len(df) else set()):
        names = (names_of(a, cfg), names_of(b, cfg))
        res = analyse(df, a=a, b=b, inference=inference)
        cl += noise_claims(df, a=a, b=b, names=names, inference=inference)
        if "clicks" in set(res.noise):
            cl += level_claims(res, names, inference=inference)
        t = pair_table(res, cfg, a, b, names, outputs.table + suffix, inference=inference)
        tables.append(t)
        figures += pair_figures(res, cfg, a, b, names, outputs.figure, suffix)
        lines += [t.frame.to_string(index=False, float_format=lambda v: f"{v:.4f}"), ""]
        summary[a + "-" + b] = res.to_dict(orient="records")
    cl += remark_claims(df, cfg, inference=inference)                   # Figure 3a's 40% → 60% remark (Web30K profiles)
    return Report(title=f"{outputs.title} ({cfg.dataset}, {cfg.library}, preset {cfg.preset})", tables=tables,
                  figures=figures, claims=cl, deviations=list(deviations), choices=list(choices), as_paper=list(as_paper),
                  missing=an.missing_notes(df, [NDCG5]), lines=lines, inference=inference,
                  claims_caption=f"Claims check ({outputs.title})",
                  json_files={"summary.json": {"table": summary.get("xendcg-lambdamart", []), "comparisons": summary}})
