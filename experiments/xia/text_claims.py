"""Xia et al.'s claims from the text around Tables 2–3 and Figure 2 (§5), beside the report's
main ones (OLE beats SE; the final loss): pure functions of the analysis frame.

* "the NDCG@1 and ERR have relatively smaller improvements" — per fold, the mean over the
  configurations of OLE − SE on NDCG@3 and @10 minus that on NDCG@1 and ERR (points ×100),
  tested > 0 over the folds;
* "Improvements of NDCG@3 and NDCG@10 … are more robust in a variety of configurations" — per
  fold, the share of configurations with OLE > SE on NDCG@3 and @10 minus that on NDCG@1 and
  ERR, tested > 0 over the folds;
* "most of them are 0.3 to 0.4" (of the improvements by ≥ 0.1 point) — descriptive: the median
  improvement of the run's comparisons that gain ≥ 0.1 point, beside the paper tables' own;
* Figure 2: "improved consistently with OLE" — descriptive: the share of checkpoints at which
  the mean OLE − SE (over folds, configurations and metrics) is positive.

The first two form one family per system, corrected by ``--correction``; each is powered
against the paper's number where the run's dataset has a paper table (Table 2 for Yahoo,
Table 3 for MSLR-WEB10K), else against the smallest effect of interest for NDCG (1 point,
0.01; ``--effect``) or, for the shares, a tenth of the configurations.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from experiments.xia.paper import paper_table
from experiments.xia.protocol import METRICS
from ltrrepro.claims import Claim, correct, smallest_effect
from ltrrepro.stats import one_sample_p

__all__ = ["text_claims"]

ALPHA = 0.01
HIGH, LOW = (METRICS[1], METRICS[2]), (METRICS[0], METRICS[3])      # NDCG@3, @10 | NDCG@1, ERR
NAMES = {"mcrank": "McRank", "lambdamart": "LambdaMART"}


def _differences(df: pd.DataFrame, system: str) -> pd.DataFrame:
    """OLE − SE (points ×100) per fold, configuration and metric of ``system``."""
    g = df[df.system == system]
    key = ["fold", "leaves", "lr"]
    ole = g[g.principle == "ole"].set_index(key)[list(METRICS)]
    se = g[g.principle == "se"].set_index(key)[list(METRICS)]
    idx = ole.index.intersection(se.index)
    return 100 * (ole.loc[idx] - se.loc[idx])


def _paper(dataset: str, system: str) -> pd.DataFrame | None:
    """The paper's OLE − SE per configuration (rows) and metric (columns), or None."""
    _, table = paper_table(dataset)
    rows = {k[1:]: [ole - se for se, ole in v] for k, v in table.items() if k[0] == system}
    return pd.DataFrame.from_dict(rows, orient="index", columns=list(METRICS)) if rows else None


def _contrast(d: pd.DataFrame, share: bool) -> pd.Series:
    """Per fold (or, with no fold level, overall): the mean — or the share of configurations
    with OLE > SE — on NDCG@3/@10 minus that on NDCG@1/ERR."""
    x = (d > 0).astype(float) if share else d
    high, low = x[list(HIGH)].mean(axis=1), x[list(LOW)].mean(axis=1)
    diff = high - low
    return diff.groupby(level="fold").mean() if "fold" in (d.index.names or []) else pd.Series([diff.mean()])


def _tested(text, per_fold: np.ndarray, paper, interest, source, unit, family) -> Claim:
    n = per_fold.size
    sd = float(per_fold.std(ddof=1)) if n > 1 else None
    p = one_sample_p(per_fold) if n > 1 and sd and sd > 0 else float("nan")
    mean = float(per_fold.mean()) if n else float("nan")
    return Claim.check(text, mean, p, n, f"mean over {n} fold(s) {mean:+.3f} {unit}" +
                       (f"; the paper's tables: {paper:+.3f}" if paper is not None else "") +
                       "; p: the test in force over the folds", +1, ALPHA, paper_effect=paper, sd=sd,
                       effect=None if paper is not None else interest, effect_source=source, on="fold", family=family)


def text_claims(df: pd.DataFrame, dataset: str) -> list[Claim]:
    """The four text claims for each paper system with both an SE and an OLE arm."""
    out = []
    ndcg_effect, ndcg_source = smallest_effect(METRICS[1])
    for system in ("mcrank", "lambdamart"):
        d = _differences(df, system) if len(df) else pd.DataFrame()
        if d.empty:
            continue
        name, paper = NAMES[system], _paper(dataset, system)
        family = f"{name}: Xia's per-metric remarks (2 claims)"
        # the paper's contrast where its table gives one (a share of 0: every configuration improves on every
        # metric, nothing to power against: the effect of interest instead)
        pe = float(_contrast(paper, share=False).iloc[0]) if paper is not None else None
        ps = float(_contrast(paper, share=True).iloc[0]) if paper is not None else None
        pe, ps = (v if v else None for v in (pe, ps))
        n_cfg = d.groupby(level=["leaves", "lr"]).ngroups
        claims = [
            _tested(f"{name}: NDCG@1 and ERR improve less with OLE than NDCG@3 and @10 (§5)",
                    _contrast(d, share=False).to_numpy(), pe, 100 * ndcg_effect, f"{ndcg_source} (1 point)",
                    "points: OLE − SE on NDCG@3/@10 minus on NDCG@1/ERR, mean over configurations", family),
            _tested(f"{name}: NDCG@3 and @10 improve in more configurations than NDCG@1 and ERR (§5, 'more robust')",
                    _contrast(d, share=True).to_numpy(), ps, 0.1, "a tenth of the configurations (the harness's "
                    "effect of interest for a share)", f"share of the {n_cfg} configurations with OLE > SE on "
                    "NDCG@3/@10 minus on NDCG@1/ERR", family)]
        out += correct(claims, ALPHA)
        per_cell = d.groupby(level=["leaves", "lr"]).mean().to_numpy().ravel()    # configuration × metric
        gains = per_cell[np.isfinite(per_cell) & (per_cell >= 0.1)]
        pg = paper.to_numpy().ravel() if paper is not None else np.empty(0)
        pg = pg[pg >= 0.1]
        med = float(np.median(gains)) if gains.size else float("nan")
        ref = (f"the paper's table for this dataset: median {np.median(pg):.3f} over {pg.size} of {paper.size}"
               if pg.size else "no paper table for this dataset")
        out.append(Claim.check(
            f"{name}: most improvements of at least 0.1 point are 0.3 to 0.4 points (§5)", med, float("nan"),
            int(d.index.get_level_values("fold").nunique()),
            f"median OLE − SE (mean over folds) of the comparisons (configuration × metric) gaining ≥ 0.1 point: "
            f"{med:.3f} over {gains.size} of {per_cell.size}; {ref}; the text: mostly 0.3–0.4",
            verdict_text="descriptive (a magnitude, no test)", on="fold"))
        out.append(_consistency(df, system, name))
    return out


def _consistency(df: pd.DataFrame, system: str, name: str) -> Claim:
    """Figure 2: the share of checkpoints with mean OLE − SE > 0 (descriptive)."""
    g = df[df.system == system]
    curves = {}
    for pr in ("se", "ole"):
        rows = g[g.principle == pr]
        for (fold, leaves, lr), r in rows.groupby(["fold", "leaves", "lr"]):
            c = r.curves.iloc[0]
            if isinstance(c, dict):
                curves[(pr, fold, leaves, lr)] = np.mean([np.asarray(c[m], float) for m in METRICS if m in c], axis=0)
    keys = {k[1:] for k in curves if ("se", *k[1:]) in curves and ("ole", *k[1:]) in curves}
    if not keys:
        return Claim.check(f"{name}: OLE improves on SE consistently along the iterations (Figure 2)", float("nan"),
                           float("nan"), 0, "no curves stored", missing="no curves stored")
    diff = np.mean([curves[("ole", *k)] - curves[("se", *k)] for k in sorted(keys)], axis=0)
    share = float((diff > 0).mean())
    return Claim.check(f"{name}: OLE improves on SE consistently along the iterations (Figure 2)", share,
                       float("nan"), len({k[0] for k in keys}),
                       f"share of the {diff.size} checkpoints at which OLE − SE, averaged over folds, configurations "
                       f"and the four metrics, is positive: {share:.2f} (Figure 2 draws the curves; no number to test)",
                       verdict_text="descriptive (a share of checkpoints, no test)", on="fold")
