"""Xia et al.: the report's tables of the implementation rather than of the paper's claims —
wall times with OLE's overhead beside the paper's ratio (a timing of this implementation, never
a claim: it depends on the machine and ``--jobs``), and the leaves per tree of every arm (exact
OLE can stop short of the leaf limit under ``--split-rule positive-gain``) — and the claims'
helpers: d_z fields of a comparison, the paper's SE and OLE means (for ΔRI)."""
from __future__ import annotations

import numpy as np
import pandas as pd

from experiments.xia.paper import PAPER_TABLE_NAMES, PAPER_TIME_RATIO, paper_table

__all__ = ["time_table", "time_legend", "leaves_table", "LEAVES_LEGEND", "paper_means"]


def time_table(df) -> tuple[pd.DataFrame, str]:
    """Mean seconds per system and principle, OLE / SE and the paper's ratio beside it; the
    seconds of the boosting rounds (``boost_s``) where every record has them, else of the whole
    training (``train_s``)."""
    tcol = "boost_s" if "boost_s" in df and df.boost_s.notna().all() else "train_s"
    times = (df.groupby(["system", "principle"])[tcol].mean().unstack() if len(df) else pd.DataFrame())
    rows = []
    for system in times.index:
        r = {"system": system, **{f"{p.upper()} s": float(times.loc[system, p]) for p in times.columns
                                  if np.isfinite(times.loc[system, p])}}
        if "SE s" in r and "OLE s" in r:
            r["OLE / SE"] = r["OLE s"] / r["SE s"]
            if system in PAPER_TIME_RATIO:              # the paper's systems only (not a plug-in arm)
                r["paper OLE / SE"] = PAPER_TIME_RATIO[system]
        rows.append(r)
    return pd.DataFrame(rows), tcol


def time_legend(tcol: str) -> str:
    """What the wall-time table measures, and why its ratio is no claim."""
    what = ("Seconds in the boosting rounds (objective and trees; binning and the final loss excluded), every arm "
            "in the same learner. " if tcol == "boost_s" else "Seconds per training run. ")
    return (what + "OLE / SE: the ratio of those means — a timing of this implementation (ltrrepro.gbdt's "
            "kernels on this machine, with the run's --jobs sharing its cores), not of the method, so it is reported, "
            "not checked as a claim. Paper OLE / SE: Xia et al.'s own implementation, ≈1.3× for LambdaMART (pairwise: "
            "OLE's pair histograms) and ≈1× for McRank (pointwise: OLE = RWSE).")


LEAVES_LEGEND = ("Leaves per tree over every tree of the arm's runs (all folds and learning rates): mean, "
                 "minimum, and trees below the leaf limit of all trees. Exact-OLE gains can be negative (the pairs "
                 "crossing the children); under the paper's rule (--split-rule leaf-limit, the default) such a split "
                 "is still taken, so trees stop short only where no feasible split is left (min documents per "
                 "leaf); under --split-rule positive-gain a node without a positive gain stays a leaf and the search moves on, "
                 "so a tree can keep the leaf limit with another shape, or stop short when no node is left.")


def leaves_table(df) -> pd.DataFrame:
    """Per system, principle and leaf limit: mean and minimum leaves per tree and trees below
    the limit, from each unit's ``leaves_per_tree`` record (a run made before it was recorded:
    an empty table)."""
    if not len(df) or "leaves_per_tree" not in df:
        return pd.DataFrame()
    rows = []
    order = {p: i for i, p in enumerate(("se", "ole", "rwse"))}
    groups = sorted(df.groupby(["system", "principle", "leaves"]),
                    key=lambda kv: (list(dict.fromkeys(df.system)).index(kv[0][0]), kv[0][2],
                                    order.get(kv[0][1], len(order)), kv[0][1]))
    for (system, principle, limit), g in groups:
        recs = [r for r in g.leaves_per_tree if isinstance(r, dict) and r.get("trees")]
        if not recs:
            continue
        trees = sum(r["trees"] for r in recs)
        rows.append({"system": system, "principle": principle.upper(), "leaves": int(limit),
                     "mean leaves": sum(r["mean"] * r["trees"] for r in recs) / trees,
                     "min leaves": min(r["min"] for r in recs), "trees short": int(sum(r["short"] for r in recs)),
                     "trees": int(trees)})
    return pd.DataFrame(rows)


def paper_means(system: str, key: str | None) -> tuple[float | None, float | None]:
    """The paper's mean SE and OLE (points ×100) over the cells of table ``key`` (both when
    None) for ``system``: the two means ΔRI compares (Breuer et al. 2020)."""
    cells = [c for k in ((key,) if key else tuple(PAPER_TABLE_NAMES)) for (sy, *_), v in paper_table(k)[1].items()
             if sy == system for c in v]
    if not cells:
        return None, None
    return float(np.mean([c[0] for c in cells])), float(np.mean([c[1] for c in cells]))
