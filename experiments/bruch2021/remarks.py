"""Bruch (2021)'s remarks on Figure 3 that a single run can check beside its main claims.

§5.4 on Figure 3a (Web30K, more documents): "the increase in NDCG@5 of XE_NDCG MART from the
40% mark to 60% on Web30K is not statistically significant" (100 trials). A claim of no change
is decided by an equivalence test, not by a test that fails to reject: TOST (two one-sided
t-tests, Schuirmann 1987) with the margin ±m, m the smallest effect of interest for NDCG (0.01
by default, ``--effect``). ``supported (equivalent within ±m)`` when both one-sided tests
reject at α (the change lies inside the margin); ``contradicted (a change beyond ±m)`` when a
one-sided test shows the change outside it; ``inconclusive (underpowered)`` otherwise, with the
power of TOST at no change, P(|T| < m/se − t_{1−α, n−1}), and the trials it would take.
"""
from __future__ import annotations

import pandas as pd

from experiments.bruch2021.paper import paper_reference
from experiments.bruch2021.protocol import NDCG5
from ltrrepro.inference import Claim, Evidence, Expectation, Inference, judge, smallest_effect
from ltrrepro.inference.power import tost_power, trials_for_tost_power
from ltrrepro.inference.tests import tost

__all__ = ["remark_claims"]

LEVELS = (40.0, 60.0)


def remark_claims(df: pd.DataFrame, cfg, model: str = "xendcg", *, inference: Inference) -> list[Claim]:
    """The 40% → 60% remark, on a Web30K-profile robustness run with documents added: per
    trial, ``model``'s test NDCG@5 at 60% minus at 40% (the same split, paired). A run without
    both marks gets the claim as inconclusive, saying so."""
    if cfg.experiment != "robustness" or paper_reference(cfg.dataset) != "web30k" or "documents" not in cfg.noise:
        return []
    text = ("XE_NDCG MART's NDCG@5 does not change from the 40% to the 60% mark on Web30K (Figure 3a remark: "
            "'not statistically significant')")
    g = df[(df.noise == "documents") & (df.model == model)]
    wide = g.pivot_table(index="trial", columns="level", values=NDCG5, aggfunc="first")
    wide.columns = wide.columns.astype(float)
    if not set(LEVELS) <= set(wide.columns):
        why = "the run has no 40% and 60% levels (--levels)"
        return [judge(text, Evidence.none(why), Expectation(), inference, noise="documents")]
    d = (wide[LEVELS[1]] - wide[LEVELS[0]]).dropna().to_numpy()
    margin, source = smallest_effect(NDCG5, inference)
    n = d.size
    mean = float(d.mean()) if n else float("nan")
    sd = float(d.std(ddof=1)) if n > 1 else float("nan")
    detail = (f"mean over trials of XE_NDCG's NDCG@5 at 60% − at 40% more documents: {mean:+.4f} (SD {sd:.4f}); "
              f"p: TOST with margin ±{margin:g} (two one-sided t-tests; the paper found the change not significant "
              f"over 100 trials)")
    if n < 2 or not sd > 0:
        why = "fewer than two trials with both marks" if n < 2 else "zero variance of the differences"
        return [judge(text, Evidence(mean, float("nan"), n, detail, missing=why), Expectation(), inference,
                      noise="documents")]
    p_eq, p_beyond = tost(d, margin)
    alpha = inference.alpha
    power = {"power": tost_power(margin, sd, n, alpha), "trials_80": trials_for_tost_power(margin, sd, alpha),
             "trials_80_range": None}
    return [judge(text, Evidence(mean, p_eq, n, detail, sd=sd, p_beyond=p_beyond, power=power),
                  Expectation(effect=margin, effect_source=f"the equivalence margin: {source}", margin=margin),
                  inference, noise="documents")]
