"""Bruch (2021)'s remarks on Figure 3 that a single run can check beside its main claims.

§5.4 on Figure 3a (Web30K, more documents): "the increase in NDCG@5 of XE_NDCG MART from the
40% mark to 60% on Web30K is not statistically significant". A claim of no significance is
supported only where the run could have seen an effect: the verdict is ``contradicted
(significant)`` when the test in force rejects at α, ``supported (not significant)`` when it
does not and the run had 80% power to see the smallest effect of interest for NDCG (0.01 by
default, ``--effect``), else ``inconclusive (underpowered)``.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from experiments.bruch2021.paper import paper_reference
from experiments.bruch2021.protocol import NDCG5
from ltrrepro.claims import POWER_TARGET, Claim, smallest_effect
from ltrrepro.stats import current, one_sample_p, paired_power, trials_for_power

__all__ = ["remark_claims"]

ALPHA = 0.01
LEVELS = (40.0, 60.0)


def remark_claims(df: pd.DataFrame, cfg, model: str = "xendcg") -> list[Claim]:
    """The 40% → 60% remark, on a Web30K-profile robustness run with documents added at both
    marks (none otherwise): per trial, ``model``'s test NDCG@5 at 60% minus at 40% (the same
    split, paired)."""
    if cfg.experiment != "robustness" or paper_reference(cfg.dataset) != "web30k" or "documents" not in cfg.noise:
        return []
    g = df[(df.noise == "documents") & (df.model == model)]
    wide = g.pivot_table(index="trial", columns="level", values=NDCG5, aggfunc="first")
    wide.columns = wide.columns.astype(float)
    if not set(LEVELS) <= set(wide.columns):
        return []
    d = (wide[LEVELS[1]] - wide[LEVELS[0]]).dropna().to_numpy()
    n = d.size
    sd = float(d.std(ddof=1)) if n > 1 else float("nan")
    p = one_sample_p(d) if n > 1 and sd > 0 else float("nan")
    effect, source = smallest_effect(NDCG5)
    test = current().test
    power = paired_power(effect, sd, n, ALPHA, test=test) if n > 1 and sd > 0 else float("nan")
    if not np.isfinite(p):
        text = None
    elif p < ALPHA:
        text = "contradicted (significant)"
    elif power >= POWER_TARGET:
        text = "supported (not significant, with the power to see the effect of interest)"
    else:
        text = "inconclusive (underpowered)"
    mean = float(d.mean()) if n else float("nan")
    c = Claim.check("XE_NDCG MART's NDCG@5 does not change significantly from the 40% to the 60% mark on Web30K "
                    "(Figure 3a remark)", mean, p, n,
                    f"mean over trials of XE_NDCG's NDCG@5 at 60% − at 40% more documents: {mean:+.4f}; the paper "
                    f"finds it not significant (100 trials); the claim is supported only with {POWER_TARGET:.0%} power "
                    f"to see the effect of interest", +1, ALPHA, verdict_text=text, sd=sd if n > 1 else None,
                    effect=effect, effect_source=source, noise="documents")
    if text is not None:                     # Claim.check lets an underpowered result stay inconclusive: keep ours
        c = c.replace(verdict=text, power=power, trials_80=trials_for_power(effect, sd, POWER_TARGET, ALPHA))
    return [c]
