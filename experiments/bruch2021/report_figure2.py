"""Bruch Figure 2 (``convergence``): validation NDCG@5 against the number of trees, λMART vs
XE_NDCG MART — one representative trial (the median final difference) and the mean over
trials with a 95% band; the table of the difference at a few ensemble sizes; the claim
"XE_NDCG's lead is larger with fewer trees" (the per-trial lead at 10% of the trees minus the
lead at the end, paired t-test).
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from experiments import analysis as an
from experiments.bruch2021.protocol import NDCG5
from experiments.bruch2021.claims import early_trees, figure2_claims
from ltrrepro.inference import TEST_NAMES, Inference
from ltrrepro.report import Figure, Report, Table, band

MODELS = ("lambdamart", "xendcg")
#: the record fields the report reads (:func:`experiments.analysis.frame`)
FIELDS = ("valid_curve",)


def curves(df: pd.DataFrame) -> dict[str, np.ndarray]:
    """model -> (trials, trees) validation NDCG@5 of the trials both models finished, trials
    sorted, curves cut to the shortest; ``"trials"``: those trials."""
    out = {}
    rows = df.sort_values(["model", "trial"], kind="stable") if len(df) else df
    for m in MODELS:
        out[m] = {t: c for t, mm, c in zip(rows.trial, rows.model, rows.valid_curve) if mm == m} if len(df) else {}
    trials = sorted(set(out[MODELS[0]]) & set(out[MODELS[1]]))
    n = min((len(out[m][t]) for m in MODELS for t in trials), default=0)
    others = {}                                    # --models beyond the pair: (their trials, trees)
    for m in sorted(set(rows.model) - set(MODELS)) if len(df) else []:
        cs = [list(c) for mm, c in zip(rows.model, rows.valid_curve) if mm == m]
        k = min(len(c) for c in cs)
        others[m] = np.array([c[:k] for c in cs]).reshape(len(cs), k)
    return {"trials": np.asarray(trials), "others": others,
            **{m: np.array([out[m][t][:n] for t in trials]).reshape(len(trials), n) for m in MODELS}}


def figure(c: dict) -> Figure:
    """The representative trial (left) and the mean over trials with its 95% band (right)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    lam, xe = c["lambdamart"], c["xendcg"]
    n_trials, n_trees = lam.shape
    trees = np.arange(1, n_trees + 1)
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.4))
    if n_trials > 0 and n_trees > 0:
        rep = int(np.argsort((xe - lam)[:, -1])[n_trials // 2])
        axes[0].plot(trees, lam[rep], label="λMART")
        axes[0].plot(trees, xe[rep], label="XE_NDCG MART")
        axes[0].set_title(f"trial {int(c['trials'][rep])} (representative)", fontsize=9)
    for m, arr in (("λMART", lam), ("XE_NDCG MART", xe), *c.get("others", {}).items()):
        n_trials, n_trees = arr.shape
        trees = np.arange(1, n_trees + 1)
        mean = arr.mean(0) if n_trials else np.full(n_trees, np.nan)
        half = 1.96 * arr.std(0, ddof=1) / np.sqrt(n_trials) if n_trials > 1 else np.zeros(n_trees)
        band(axes[1], trees, mean, mean - half, mean + half, m, marker=None)
    axes[1].set_title(f"mean over {lam.shape[0]} trials (95% band)", fontsize=9)
    for ax in axes:
        ax.set_xlabel("number of trees")
        ax.set_ylabel("validation NDCG@5")
        ax.legend(fontsize=7)
    return Figure("fig2_convergence", fig)


def table(c: dict, *, inference: Inference) -> pd.DataFrame:
    """XE_NDCG − λMART at 1 tree, 10%, 25%, 50% and all of the trees (paired over trials)."""
    lam, xe = c["lambdamart"], c["xendcg"]
    n_trials, n_trees = lam.shape
    have = n_trials > 0 and n_trees > 0
    points = sorted({1, early_trees(n_trees), n_trees // 4 or 1, n_trees // 2 or 1, n_trees}) if have else []
    rows = []
    for p in points:
        t = an.finite_test(xe[:, p - 1], lam[:, p - 1], test=inference.test)    # the trials where both are defined
        rows.append({"trees": p, "λMART": t.mean_b, "XE_NDCG": t.mean_a, "Δ": t.diff, "Δ 95% lo": t.ci_low,
                     "Δ 95% hi": t.ci_high, "p": t.p,
                     **{m: float(np.nanmean(a[:, p - 1])) if p <= a.shape[1] and len(a) else np.nan
                        for m, a in c.get("others", {}).items()}})      # other --models: their mean
    return pd.DataFrame(rows, columns=["trees", "λMART", "XE_NDCG", "Δ", "Δ 95% lo", "Δ 95% hi", "p",
                                       *c.get("others", {})])


def missing(c: dict) -> list[str]:
    """The trials whose validation curve has no value (no relevant validation document)."""
    lam, xe = c["lambdamart"], c["xendcg"]
    n_trials, n_trees = lam.shape
    if not (n_trials > 0 and n_trees > 0):
        return []
    why = an.undefined_reason(NDCG5, "validation")
    return [f"validation NDCG@5 of {m}: no value in {k} of {n_trials} trial(s) ({why}); shown as –, left out "
            f"of the means and tests" for m, arr in (("λMART", lam), ("XE_NDCG MART", xe))
            if (k := int(np.isnan(arr).any(1).sum()))]


def build(df: pd.DataFrame, cfg, deviations=(), choices=(), as_paper=(), *, inference: Inference) -> Report:
    """The report of a ``convergence`` run: its frame (with :data:`FIELDS`) and configuration."""
    c = curves(df)
    tab = table(c, inference=inference)
    return Report(title=f"Bruch Figure 2 — convergence ({cfg.dataset}, {cfg.library}, preset {cfg.preset})",
                  tables=[Table("fig2_convergence", tab, notes=True,
                                caption=f"Validation NDCG@5 by ensemble size ({cfg.dataset})",
                                legend=f"Δ = XE_NDCG − λMART, paired over {len(c['trials'])} trial(s), with its 95% "
                                       f"CI; p: {TEST_NAMES[inference.test]}." + (" Other models (--models): their mean over their "
                                                                   "trials." if c["others"] else ""),
                                ci_cols={"Δ": ("Δ 95% lo", "Δ 95% hi")}, formats={"p": "p"},
                                rename={"Δ": "Δ [95% CI]"})],
                  figures=[figure(c)], claims=figure2_claims(c, inference=inference), deviations=list(deviations),
                  choices=list(choices), as_paper=list(as_paper),
                  missing=an.missing_notes(df, []) + missing(c), lines=[tab.to_string(index=False, float_format=lambda v: f"{v:.4f}")],
                  inference=inference, claims_caption="Claims check (Bruch Figure 2)")
