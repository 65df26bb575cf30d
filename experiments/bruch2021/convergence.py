"""Bruch Figure 2: validation NDCG@5 against the number of trees, λMART vs XE_NDCG MART.

    python -m experiments.convergence [--dataset web30k --data-dir DIR] [--trials N]

Each model is trained to the preset's maximum number of trees with early stopping switched
off, so every curve covers the whole range (the curve of a model selected by early
stopping is the prefix of this one). The figure shows one representative trial (the trial
whose final difference is the median one) and the mean over trials with a 95% band.
Claim checked: XE_NDCG's lead is larger when the ensemble is small — the per-trial lead at
10% of the trees minus the lead at the end, paired t-test.
"""
from __future__ import annotations

import sys

import numpy as np
import pandas as pd

from experiments import analysis as an
from experiments.bruch2021.protocol import NDCG5, BruchConfig, config_from_args, train_size, unit_fn
from experiments.cli import cli, make_parser
from experiments.study import config_or_manifest, execute
from ltrrepro.report import (band, claims_text, protocol_notes, report_outputs, save_figure, write_claims,
                             write_table)
from ltrrepro.runner import Unit

EXPERIMENT = "convergence"
MODELS = ("lambdamart", "xendcg")
ALPHA = 0.01


def curves(store) -> dict[str, np.ndarray]:
    """model -> (trials, trees) validation NDCG@5, trials sorted, curves cut to the shortest."""
    recs = sorted(store.records(), key=lambda r: (r["unit"]["model"], r["unit"]["trial"]))
    out = {}
    for m in MODELS:
        cs = {r["unit"]["trial"]: r["valid_curve"] for r in recs if r["unit"]["model"] == m}
        out[m] = cs
    trials = sorted(set(out[MODELS[0]]) & set(out[MODELS[1]]))
    n = min((len(out[m][t]) for m in MODELS for t in trials), default=0)
    return {"trials": np.asarray(trials), **{m: np.array([out[m][t][:n] for t in trials]).reshape(len(trials), n)
                                             for m in MODELS}}


@report_outputs
def report(store) -> dict:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    cfg = store.read_manifest()["config"]
    c = curves(store)
    lam, xe = c["lambdamart"], c["xendcg"]
    n_trials, n_trees = lam.shape
    have = n_trials > 0 and n_trees > 0          # else no trial has both curves: the claim says so
    root = store.root
    files = []
    diff = xe - lam
    rep = int(np.argsort(diff[:, -1])[n_trials // 2]) if have else 0
    trees = np.arange(1, n_trees + 1)
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.4))
    if have:
        axes[0].plot(trees, lam[rep], label="λMART")
        axes[0].plot(trees, xe[rep], label="XE_NDCG MART")
        axes[0].set_title(f"trial {int(c['trials'][rep])} (representative)", fontsize=9)
    for m, arr in (("λMART", lam), ("XE_NDCG MART", xe)):
        mean = arr.mean(0) if n_trials else np.full(n_trees, np.nan)
        half = 1.96 * arr.std(0, ddof=1) / np.sqrt(n_trials) if n_trials > 1 else np.zeros(n_trees)
        band(axes[1], trees, mean, mean - half, mean + half, m, marker=None)
    axes[1].set_title(f"mean over {n_trials} trials (95% band)", fontsize=9)
    for ax in axes:
        ax.set_xlabel("number of trees")
        ax.set_ylabel("validation NDCG@5")
        ax.legend(fontsize=7)
    files += save_figure(fig, root / "figures" / "fig2_convergence")
    early = max(1, int(round(0.1 * n_trees)))
    points = sorted({1, early, n_trees // 4 or 1, n_trees // 2 or 1, n_trees}) if have else []
    rows = []
    for p in points:
        t = an.finite_test(xe[:, p - 1], lam[:, p - 1])        # the trials where both are defined
        rows.append({"trees": p, "λMART": t.mean_b, "XE_NDCG": t.mean_a, "Δ": t.diff, "Δ 95% lo": t.ci_low,
                     "Δ 95% hi": t.ci_high, "p": t.p})
    table = pd.DataFrame(rows, columns=["trees", "λMART", "XE_NDCG", "Δ", "Δ 95% lo", "Δ 95% hi", "p"])
    devs = cfg["deviations"]
    choices = cfg.get("choices", [])
    why = an.undefined_reason(NDCG5, "validation")
    missing = [f"validation NDCG@5 of {m}: no value in {k} of {n_trials} trial(s) ({why}); shown as –, left out "
               f"of the means and tests" for m, arr in (("λMART", lam), ("XE_NDCG MART", xe))
               if (k := int(np.isnan(arr).any(1).sum()))] if have else []
    files += write_table(table, root / "tables" / "fig2_convergence",
                         caption=f"Validation NDCG@5 by ensemble size ({cfg['dataset']})",
                         legend=f"Δ = XE_NDCG − λMART, paired over {n_trials} trial(s), with its 95% CI; p: paired "
                                f"t-test. {protocol_notes(devs, choices)}" + "".join(f" Missing: {m}." for m in missing),
                         ci_cols={"Δ": ("Δ 95% lo", "Δ 95% hi")}, formats={"p": "p"}, rename={"Δ": "Δ [95% CI]"})
    t = an.finite_test(diff[:, early - 1], diff[:, -1]) if have else None
    if t is None:
        reason, detail = "no trial with both models' curves", "no trials"
    else:
        reason = an.no_test_reason(t.n, t.std_diff, NDCG5, "validation") if not np.isfinite(t.p) else None
        detail = (f"lead at {early} trees {t.mean_a:+.4f} vs at {n_trees} trees {t.mean_b:+.4f}"
                  + (f" ({t.n} of {n_trials} trials defined)" if t.n < n_trials else "")) if t.n else f"no lead: {why}"
    cl = [an.claim("XE_NDCG's lead over λMART is larger with fewer trees", t.diff if t else float("nan"),
                   t.p if t else float("nan"), t.n if t else 0, detail, alpha=ALPHA, missing=reason)]
    files += write_claims(root, cl, devs, "Claims check (Bruch Figure 2)", ALPHA, choices=choices)
    text = [f"Bruch Figure 2 — convergence ({cfg['dataset']}, {cfg['library']}, preset {cfg['preset']})",
            *(f"Missing: {m}" for m in missing),
            table.to_string(index=False, float_format=lambda v: f"{v:.4f}"), *claims_text(cl, devs, ALPHA, choices)]
    return {"text": "\n".join(text), "files": files, "claims": cl}


def build_units(cfg: BruchConfig) -> list[Unit]:
    return [Unit(EXPERIMENT, cfg.unit_dataset, t, m, (("noise", "none"),), seed=cfg.seed)
            for t in range(cfg.trials) for m in MODELS]


@cli
def main(argv=None) -> int:
    ap = make_parser(__doc__, "dataset", "data-dir", "queries", "trials", "library", "preset", "rounds", "device")
    args = ap.parse_args(argv)
    cfg = config_or_manifest(args, argv, lambda a: config_from_args(
        a, EXPERIMENT, synthetic_trials=4, synthetic_queries=400, real_trials=100, default_models=MODELS,
        early_stopping=False), BruchConfig, EXPERIMENT)
    return execute(cfg, args, build_units(cfg), unit_fn, report, size_of=train_size)


if __name__ == "__main__":
    sys.exit(main())
