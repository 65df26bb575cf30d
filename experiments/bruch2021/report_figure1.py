"""Bruch Figure 1 (``jensen_gap``): the Jensen gap of XE_NDCG's bound per draw of γ, one cloud
per simulated example with the gap at γ = 0 marked; the table per example; the clouds' spread
across γ against the spread across examples (descriptive: the paper gives no number), and
Jensen's inequality and γ's reach as sanity checks of the implementation.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from experiments import analysis as an
from experiments.bruch2021.claims import figure1_claims
from ltrrepro.inference import Inference
from ltrrepro.report import Figure, Report, Table

#: the record fields and stored arrays the report reads (:func:`experiments.analysis.frame`)
FIELDS = ("gap_gamma0",)
ARRAYS = ("gaps",)


def examples(df: pd.DataFrame) -> pd.DataFrame:
    """The units in example (trial) order."""
    return df.sort_values("trial", kind="stable").reset_index(drop=True) if len(df) else df


def table(ex: pd.DataFrame) -> pd.DataFrame:
    """Per example: the draws, the gap's mean, SD, min, max, the gap at γ = 0, max/min."""
    rows = []
    for i, (g, g0) in enumerate(zip(ex.gaps, ex.gap_gamma0) if len(ex) else ()):
        rows.append({"example": i, "draws": g.size, "mean": g.mean(), "std": g.std(), "min": g.min(),
                     "max": g.max(), "γ=0": g0, "max/min": g.max() / g.min()})
    return pd.DataFrame(rows)


def figure(ex: pd.DataFrame, cfg) -> Figure:
    """One cloud of gaps per example (jittered), the gap at γ = 0 in black."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig = plt.figure(figsize=(7, 3.4))
    ax = fig.gca()
    jit = np.random.default_rng(0)
    for i, (g, g0) in enumerate(zip(ex.gaps, ex.gap_gamma0) if len(ex) else ()):
        ax.scatter(i + jit.uniform(-0.25, 0.25, g.size), g, s=2, alpha=0.3)
        ax.plot([i], [g0], "k_", ms=12)
    ax.set_xlabel("simulated training example (m = %d)" % cfg.docs)
    ax.set_ylabel("Jensen gap")
    ax.set_title("Jensen gap per draw of γ ~ U[0,1]^m (black: γ = 0)", fontsize=9)
    return Figure("fig1_jensen_gap", fig)


def sanity_checks(ex: pd.DataFrame) -> list[dict]:
    """Properties of the formula, checked as tests of the implementation (not paper claims):
    Jensen's inequality (gap ≥ 0 for every draw), and that γ reaches the gap at all (the gap
    varies across the draws of every example: an implementation that dropped γ fails)."""
    all_min = min((float(g.min()) for g in ex.gaps), default=np.inf) if len(ex) else np.inf
    flat = sum(int(np.ptp(g) == 0) for g in ex.gaps) if len(ex) else 0
    return [{"check": "the Jensen gap is non-negative for every draw (Jensen's inequality: a property of the "
                      "formula, checked as a test of the implementation)", "value": all_min,
             "detail": f"smallest gap {all_min:.3e} over {len(ex)} example(s)",
             "result": "passed" if len(ex) and all_min >= -1e-12 else "FAILED"},
            {"check": "γ reaches the gap: it varies across the draws of every example (a property of the formula, "
                      "checked as a test of the implementation)", "value": flat,
             "detail": f"{flat} of {len(ex)} example(s) with one gap for every draw",
             "result": "passed" if len(ex) and flat == 0 else "FAILED"}]


def build(df: pd.DataFrame, cfg, deviations=(), choices=(), as_paper=(), *, inference: Inference) -> Report:
    """The report of a ``jensen_gap`` run: its frame (with :data:`FIELDS` and :data:`ARRAYS`)
    and configuration."""
    ex = examples(df)
    tab = table(ex)
    checks = sanity_checks(ex)
    return Report(title="Bruch Figure 1 — Jensen gap",
                  tables=[Table("fig1_jensen_gap", tab, caption="Jensen gap per example", digits=6,
                                legend=f"label probabilities {list(cfg.probs)}; scores U[0,1]; {cfg.draws} draws "
                                       f"of γ.")],
                  figures=[figure(ex, cfg)], claims=figure1_claims(ex, inference=inference), deviations=list(deviations),
                  choices=list(choices), as_paper=list(as_paper), missing=an.missing_notes(df, []),
                  lines=[tab.to_string(index=False, float_format=lambda v: f"{v:.3e}"),
                         *(f"Sanity check [{c['result']}]: {c['check']}: {c['detail']}" for c in checks)],
                  inference=inference, claims_caption="Claims check (Bruch Figure 1)", claims_extra={"sanity_checks": checks})
