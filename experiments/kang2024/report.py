"""The Hessian study's report: pure builders (frame, config) -> tables, figures and claims
(:mod:`.claims`), composed by :func:`build` (the registry's ``Experiment.report`` reads the store
and writes it).

Tables: ``hessian`` (every arm of the ``arms`` part: loss × Hessian treatment, test NDCG@10 with its
95% CI over trials, Kang et al.'s metric, the paired difference against the loss's Hessian-1 arm,
time per round), ``paper_settings`` (the paper's column: PL-Rank at Kang et al.'s settings, with the
sampled Hessian and with Hessian 1, beside the arms' library λMART), ``learning_rate`` (validation NDCG@10 of the two PL-Rank arms along the grid) and
``samples`` (the sampled arm's test NDCG@10 and time per round along N); a figure for each of the
last two.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from experiments import analysis as an
from experiments.kang2024.claims import build_claims
from experiments.kang2024 import paper
from experiments.kang2024.protocol import KANG, NDCG10, PLRANK_ARMS, TEST_METRICS, HessianConfig, paper_boosting
from ltrrepro.fit import BACKENDS, SYSTEMS
from ltrrepro.fit.hessian import LOSSES, PAPER_SYSTEMS
from ltrrepro.inference import TEST_NAMES, Inference
from ltrrepro.report import Figure, Report, Table, band

FIELDS = (KANG, "valid_ndcg10", "round_s", "hessian", "learning_rate", "tuned", "start_hess_sum", "diverged")


def frame(store) -> pd.DataFrame:
    return an.frame(store, fields=FIELDS)


def _part(df: pd.DataFrame, part: str) -> pd.DataFrame:
    return df[df.part == part] if "part" in df and len(df) else df.iloc[:0]


def _ci(values) -> tuple[float, float, float]:
    s = an.summary(values)
    return s.mean, s.ci_low, s.ci_high


def hessian_table(df: pd.DataFrame, cfg: HessianConfig, inference: Inference) -> Table:
    g = _part(df, "arms")
    rows = []
    for loss, arms in LOSSES.items():
        const = next((m for m in arms if SYSTEMS[m].options.hessian == "constant"), None)
        for arm in (a for a in arms if a in set(g.model)):
            h = g[g.model == arm]
            row = {"loss": loss, "Hessian": SYSTEMS[arm].options.hessian, "arm": SYSTEMS[arm].label, "trials": len(h)}
            row["NDCG@10"], row["lo"], row["hi"] = _ci(h[NDCG10])
            row["Kang NDCG@10"] = float(h[KANG].astype(float).mean())
            row["valid NDCG@10"] = float(h.valid_ndcg10.astype(float).mean())
            c = (an.compare(g, cfg.column, arm, const, test=inference.test)
                 if const and arm != const and const in set(g.model) else None)
            row.update({"Δ vs Hessian 1": c.diff if c else np.nan, "Δ_lo": c.ci_low if c else np.nan,
                        "Δ_hi": c.ci_high if c else np.nan, "p": c.p if c else np.nan,
                        "s/round": float(h.round_s.astype(float).mean())})
            rows.append(row)
    metric = "per-query NDCG@10" if cfg.column == NDCG10 else "Kang et al.'s NDCG@10 (mean DCG / mean IDCG)"
    return Table("hessian", pd.DataFrame(rows), caption=f"Each loss under each Hessian treatment ({cfg.dataset}, "
                                                        f"{cfg.library}, {cfg.trials} trial(s))", notes=True,
                 legend="Mean test NDCG@10 over trials (per-query NDCG, queries without a relevant document dropped), "
                        "95% CI; Kang NDCG@10: mean DCG@10 / mean IDCG@10 over every test query; valid: the "
                        f"validation part's NDCG@10. Δ vs Hessian 1: the paired difference of {metric} against the "
                        f"loss's constant-Hessian arm, 95% CI, p: {TEST_NAMES[inference.test]}. s/round: training "
                        "seconds per boosting round.",
                 formats={"p": "p"}, ci_cols={"NDCG@10": ("lo", "hi"), "Δ vs Hessian 1": ("Δ_lo", "Δ_hi")})


def paper_frame(df: pd.DataFrame) -> pd.DataFrame:
    """The paper's column (PL-Rank at Kang et al.'s settings) and the ``arms`` part's library λMART
    (the same trials' splits): the frame its table and its claims read."""
    paper_part = _part(df, "paper")
    if not len(paper_part):
        return paper_part
    arms = _part(df, "arms")
    return pd.concat([paper_part, arms[arms.model == LOSSES["library"][0]]])


def _settings(model: str, cfg) -> str:
    b = paper_boosting(model, cfg.paper_rounds)
    return (f"lr {b.learning_rate:.3g}, depth {b.max_depth}, Σh/leaf ≥ {b.min_sum_hessian:g}, gain ≥ "
            f"{b.min_split_gain:.3g}, L2 {b.lambda_l2:.3g}, L1 {b.lambda_l1:.3g}, {b.rounds} rounds")


def paper_table(df: pd.DataFrame, cfg: HessianConfig, inference: Inference) -> Table:
    g = paper_frame(df)
    rows = []
    sampled, constant = PAPER_SYSTEMS
    for arm in (m for m in (*PAPER_SYSTEMS, LOSSES["library"][0]) if m in set(g.model)):
        h = g[g.model == arm]
        ours = arm not in PAPER_SYSTEMS
        lib = BACKENDS[SYSTEMS[arm].resolve_library(cfg.library)].label
        row = {"arm": f"{SYSTEMS[arm].label}, {lib}", "settings": "the arms' (tuned)" if ours and cfg.tune else
               "the arms'" if ours else ("tuned in the authors' space" if cfg.tune else _settings(arm, cfg)),
               "trials": len(h)}
        row["NDCG@10"], row["lo"], row["hi"] = _ci(h[NDCG10])
        row["Kang NDCG@10"] = float(h[KANG].astype(float).mean())
        row["best round"] = float(h.best_iteration.astype(float).mean()) if "best_iteration" in h else np.nan
        row["Σh at start"] = float(h.start_hess_sum.astype(float).mean()) if not ours else np.nan
        row["diverged"] = int(h.diverged.notna().sum()) if "diverged" in h else 0
        c = an.compare(g, cfg.column, sampled, arm, test=inference.test) if arm != sampled else None
        row.update({"Δ sampled −": c.diff if c else np.nan, "Δ_lo": c.ci_low if c else np.nan,
                    "Δ_hi": c.ci_high if c else np.nan, "p": c.p if c else np.nan})
        rows.append(row)
    return Table("paper_settings", pd.DataFrame(rows),
                 caption=f"The paper's column: PL-Rank at Kang et al.'s settings ({cfg.dataset}, "
                         f"{'/'.join(BACKENDS[n].label for n in SYSTEMS[PAPER_SYSTEMS[0]].libraries)})", notes=True,
                 legend="Mean test NDCG@10 over trials, 95% CI; Kang NDCG@10: mean DCG@10 / mean IDCG@10. settings: "
                        f"the authors' reported values (XGBoost's min_child_weight is Σh/leaf, gamma the gain, lambda L2, "
                        f"alpha L1; {paper.MAX_BIN} bins), the best round kept on validation. best round: the mean "
                        "round early stopping kept (1: the model never improved on its first tree). Σh at start: the "
                        "objective's Hessian at the first round's scores, summed over the training documents (a draw of "
                        "its own; a split needs Σh/leaf in both children: below twice it the first tree is one leaf, a "
                        "constant). trials: the units; NDCG and Δ over those that did not diverge. diverged: "
                        "the trials whose scores became NaN in training (no test value; the authors' raw Hessian makes "
                        "a leaf's Σh + L2 near 0 possible). "
                        f"Δ sampled −: the paired difference of the sampled arm against the row's, 95% CI, p: "
                        f"{TEST_NAMES[inference.test]}.",
                 formats={"p": "p"}, ci_cols={"NDCG@10": ("lo", "hi"), "Δ sampled −": ("Δ_lo", "Δ_hi")})


def lr_frame(df: pd.DataFrame) -> pd.DataFrame:
    """Validation NDCG@10 of the PL-Rank arms at each learning rate of the grid (mean, 95% CI)."""
    g = _part(df, "lr")
    rows = []
    for (lr, arm), h in (g.groupby(["lr", "model"]) if len(g) else ()):
        mean, lo, hi = _ci(h.valid_ndcg10)
        rows.append({"learning rate": float(lr), "arm": arm, "Hessian": SYSTEMS[arm].options.hessian, "trials": len(h),
                     "valid NDCG@10": mean, "lo": lo, "hi": hi, "test NDCG@10": float(h[NDCG10].mean())})
    return pd.DataFrame(rows, columns=["learning rate", "arm", "Hessian", "trials", "valid NDCG@10", "lo", "hi",
                                       "test NDCG@10"])


def samples_frame(df: pd.DataFrame, cfg: HessianConfig) -> pd.DataFrame:
    """The sampled arm's test NDCG@10 and seconds per round at each N (the ``arms`` part at the run's N)."""
    sampled = PLRANK_ARMS[0]
    main = _part(df, "arms")
    swept = _part(df, "samples")
    g = pd.concat([swept.assign(n=swept.samples.astype(float)) if len(swept) else swept.assign(n=0.0),
                   main[main.model == sampled].assign(n=float(cfg.samples))])
    rows = []
    for n, h in g[g.model == sampled].groupby("n"):
        mean, lo, hi = _ci(h[NDCG10])
        rt, rlo, rhi = _ci(h.round_s)
        rows.append({"N": int(n), "trials": len(h), "NDCG@10": mean, "lo": lo, "hi": hi, "s/round": rt,
                     "s_lo": rlo, "s_hi": rhi})
    return pd.DataFrame(rows, columns=["N", "trials", "NDCG@10", "lo", "hi", "s/round", "s_lo", "s_hi"])


def _plt():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def lr_figure(res: pd.DataFrame, cfg) -> Figure:
    fig, ax = _plt().subplots(figsize=(5.2, 3.6))
    for arm, h in res.groupby("arm"):
        h = h.sort_values("learning rate")
        band(ax, h["learning rate"], h["valid NDCG@10"], h.lo, h.hi, SYSTEMS[arm].label)
    ax.set_xscale("log")
    ax.set_xlabel("learning rate (log scale)")
    ax.set_ylabel("validation NDCG@10")
    ax.set_title(f"{cfg.dataset}: PL-Rank, sampled Hessian vs Hessian 1 (95% CI)", fontsize=9)
    ax.legend(fontsize=7, loc="best")
    return Figure("learning_rate", fig)


def samples_figure(res: pd.DataFrame, cfg) -> Figure:
    fig, (ax, ax2) = _plt().subplots(1, 2, figsize=(9, 3.6))
    band(ax, res.N, res["NDCG@10"], res.lo, res.hi, "PL-Rank, sampled Hessian")
    band(ax2, res.N, res["s/round"], res.s_lo, res.s_hi, "training s per round")
    for a, y in ((ax, "test NDCG@10"), (ax2, "seconds per boosting round")):
        a.set_xscale("log")
        a.set_xlabel("sampled rankings per query N (log scale)")
        a.set_ylabel(y)
    ax.set_title(f"{cfg.dataset}: quality against N (95% CI)", fontsize=9)
    ax2.set_title("cost against N", fontsize=9)
    return Figure("samples", fig)


def build(df: pd.DataFrame, cfg: HessianConfig, deviations=(), choices=(), as_paper=(), *,
          inference: Inference) -> Report:
    main = hessian_table(df, cfg, inference)
    lr, ns = lr_frame(df), samples_frame(df, cfg)
    paper_col = paper_table(df, cfg, inference) if len(_part(df, "paper")) else None
    tables = [main, *([paper_col] if paper_col is not None else []),
              Table("learning_rate", lr, caption="PL-Rank along the learning rate: validation NDCG@10", notes=True,
                    legend="Mean validation NDCG@10 over trials at each learning rate of the grid (the other settings "
                           "the run's), 95% CI; the test value beside it, not used for any choice.",
                    ci_cols={"valid NDCG@10": ("lo", "hi")}),
              Table("samples", ns, caption="PL-Rank with the sampled Hessian along N: test NDCG@10 and time per round",
                    notes=True, legend="Mean over trials, 95% CI; s/round: training seconds per boosting round "
                                       "(the objective's sampling and the library's tree).",
                    ci_cols={"NDCG@10": ("lo", "hi"), "s/round": ("s_lo", "s_hi")})]
    figures = [make(res, cfg) for make, res in ((lr_figure, lr), (samples_figure, ns)) if len(res)]
    t = main.frame
    lines = ["Each loss under each Hessian treatment (test NDCG@10):",
             *(f"  {r.arm:<44} {r['NDCG@10']:.4f} [{r.lo:.4f}, {r.hi:.4f}]  Δ vs Hessian 1 "
               f"{r['Δ vs Hessian 1']:+.4f}" for _, r in t.iterrows()), ""]
    return Report(title=f"Does second-order information matter for ranking GBDTs? Kang et al. 2024, Bruch 2021 "
                        f"({cfg.dataset}, {cfg.library}, preset {cfg.preset}, {cfg.trials} trial(s))",
                  tables=tables, figures=figures, claims=build_claims(df, cfg, inference=inference),
                  deviations=list(deviations), choices=list(choices), as_paper=list(as_paper),
                  missing=an.missing_notes(df, TEST_METRICS), lines=lines, inference=inference,
                  claims_caption="Claims check (Hessian treatments)",
                  json_files={"summary.json": {"hessian": t.to_dict(orient="records"),
                                               "paper_settings": (paper_col.frame.to_dict(orient="records")
                                                                  if paper_col is not None else []),
                                               "learning_rate": lr.to_dict(orient="records"),
                                               "samples": ns.to_dict(orient="records")}})
