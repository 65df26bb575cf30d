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

import numpy as np
import pandas as pd
from scipy import stats as st

from experiments.bruch2021.paper import paper_reference
from experiments.bruch2021.protocol import NDCG5
from ltrrepro.claims import POWER_TARGET, Claim, smallest_effect
from ltrrepro.stats import fewest_trials

__all__ = ["remark_claims", "tost", "tost_power"]

ALPHA = 0.01
LEVELS = (40.0, 60.0)


def tost(d: np.ndarray, margin: float) -> tuple[float, float]:
    """``(p_equivalent, p_beyond)`` for differences ``d``: TOST's p (the larger of the two
    one-sided p's of H0: μ ≤ −m and H0: μ ≥ m) and the p of the one-sided test that the mean
    lies beyond the margin on its side (H0: |μ| ≤ m, tested on the side of the mean).

    >>> p_eq, p_beyond = tost(np.array([0.001, -0.001, 0.002, 0.0, -0.002]), 0.01)
    >>> bool(p_eq < 0.001), bool(p_beyond > 0.999)
    (True, True)
    """
    n, m = d.size, float(d.mean())
    se = float(d.std(ddof=1)) / np.sqrt(n)
    df = n - 1
    p_low, p_high = st.t.sf((m + margin) / se, df), st.t.cdf((m - margin) / se, df)
    beyond = st.t.sf((abs(m) - margin) / se, df)
    return float(max(p_low, p_high)), float(beyond)


def tost_power(margin: float, sd: float, n: int, alpha: float = ALPHA) -> float:
    """TOST's power at a true difference of 0: P(|T| < m/se − t_{1−α, n−1}), T ~ t(n − 1)."""
    if n < 2 or not sd > 0:
        return float("nan")
    df, q = n - 1, margin / (sd / np.sqrt(n)) - st.t.ppf(1 - alpha, n - 1)
    return float(max(0.0, 2 * st.t.cdf(q, df) - 1))


def remark_claims(df: pd.DataFrame, cfg, model: str = "xendcg") -> list[Claim]:
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
        return [Claim.check(text, float("nan"), float("nan"), 0, why, +1, ALPHA, missing=why, noise="documents")]
    d = (wide[LEVELS[1]] - wide[LEVELS[0]]).dropna().to_numpy()
    n, margin = d.size, smallest_effect(NDCG5)[0]
    mean = float(d.mean()) if n else float("nan")
    sd = float(d.std(ddof=1)) if n > 1 else float("nan")
    detail = (f"mean over trials of XE_NDCG's NDCG@5 at 60% − at 40% more documents: {mean:+.4f} (SD {sd:.4f}); "
              f"p: TOST with margin ±{margin:g} (two one-sided t-tests; the paper found the change not significant "
              f"over 100 trials)")
    if n < 2 or not sd > 0:
        why = "fewer than two trials with both marks" if n < 2 else "zero variance of the differences"
        return [Claim.check(text, mean, float("nan"), n, detail, +1, ALPHA, missing=why, noise="documents")]
    p_eq, p_beyond = tost(d, margin)
    power = tost_power(margin, sd, n)
    verdict = ("supported (equivalent within ±%g)" % margin if p_eq < ALPHA else
               "contradicted (a change beyond ±%g)" % margin if p_beyond < ALPHA else
               "inconclusive (underpowered)" if power < POWER_TARGET else "not supported (no equivalence shown)")
    c = Claim.check(text, mean, p_eq, n, detail, +1, ALPHA, verdict_text=verdict, sd=sd, effect=margin,
                    effect_source=f"the equivalence margin: {smallest_effect(NDCG5)[1]}", noise="documents")
    return [c.replace(verdict=verdict, power=power, trials_80=fewest_trials(lambda k: tost_power(margin, sd, k) >= POWER_TARGET), trials_80_range=None)]
