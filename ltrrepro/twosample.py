"""Two independent samples — two runs on different data, which share no split: Welch's
t-test, its power and the trials it needs, and the rank and permutation tests beside it.
Used where the harness compares runs rather than models within a run (Bruch's claims across
datasets)."""
from __future__ import annotations

import numpy as np
from scipy import stats as st

from .claims import POWER_TARGET
from .stats import fewest_trials

__all__ = ["welch_power", "trials_for_welch_power", "min_two_sample_p", "two_sample_power", "trials_for_two_sample_power",
           "two_sample_p"]


def welch_power(effect: float, s1: float, n1: int, s2: float, n2: int, alpha: float = 0.01) -> float:
    """Power of Welch's two-sided two-sample t-test at ``alpha`` to detect a true mean
    difference ``effect`` between samples of SDs ``s1``, ``s2`` and sizes ``n1``, ``n2``:
    P(|T| > t_{1−α/2, ν}) with T ~ noncentral t(ν, effect / √(s1²/n1 + s2²/n2)) and ν the
    Welch–Satterthwaite degrees of freedom (Welch 1947).

    With equal SDs and sizes it is the pooled test's power (G*Power: d = 0.5, n = 64 per
    group, α = .05 two-sided: 0.80):

    >>> round(welch_power(0.5, 1.0, 64, 1.0, 64, alpha=0.05), 2)
    0.8
    """
    if min(n1, n2) < 2 or not (s1 > 0 or s2 > 0):
        return float("nan")
    v1, v2 = s1 * s1 / n1, s2 * s2 / n2
    df = (v1 + v2) ** 2 / (v1 * v1 / (n1 - 1) + v2 * v2 / (n2 - 1))
    nc = abs(effect) / np.sqrt(v1 + v2)
    crit = st.t.ppf(1 - alpha / 2, df)
    far = st.nct.cdf(-crit, df, nc)
    return float(min(1.0, st.nct.sf(crit, df, nc) + (far if np.isfinite(far) else 0.0)))


def trials_for_welch_power(effect: float, s1: float, s2: float, power: float = POWER_TARGET, alpha: float = 0.01,
                           max_trials: int = 100_000) -> int | None:
    """The fewest trials per run (equal in both) whose Welch test reaches ``power``; None beyond ``max_trials``."""
    if effect == 0 or not (s1 > 0 or s2 > 0):
        return None
    return fewest_trials(lambda n: welch_power(effect, s1, n, s2, n, alpha) >= power, max_trials)


def min_two_sample_p(n1: int, n2: int, test: str) -> float:
    """The smallest two-sided p a rank or permutation test of two samples of sizes ``n1``,
    ``n2`` can give, 2 / C(n1 + n2, n1) (every value of one sample above every value of the
    other); 0 for Welch's t."""
    from math import comb
    return 0.0 if test == "t" else min(1.0, 2.0 / comb(int(n1) + int(n2), int(n1)))


def two_sample_power(effect, s1, n1, s2, n2, test: str, alpha: float = 0.01) -> float:
    """The power of the two-sample test in force: Welch's (:func:`welch_power`) — for the rank
    and permutation tests an approximation (their asymptotic efficiency against the t-test is
    0.95 or more for normal data), and 0 where they cannot reach ``alpha`` at these sizes
    (:func:`min_two_sample_p`)."""
    if min_two_sample_p(n1, n2, test) >= alpha:
        return 0.0
    return welch_power(effect, s1, n1, s2, n2, alpha)


def trials_for_two_sample_power(effect, s1, s2, test: str, power: float = POWER_TARGET, alpha: float = 0.01):
    """Trials per run (equal in both) for ``power`` with the test in force: Welch's, and no fewer
    than a rank or permutation test needs to reach ``alpha`` at all."""
    n = trials_for_welch_power(effect, s1, s2, power, alpha)
    floor = 2
    while min_two_sample_p(floor, floor, test) >= alpha:
        floor += 1
    return None if n is None else max(n, floor)


def two_sample_p(x: np.ndarray, y: np.ndarray, test: str, seed: int = 0) -> float:
    """Two-sided p of mean(x) − mean(y) under the test in force: Welch's t (``t``),
    Mann–Whitney's U (``wilcoxon``: the rank test for two independent samples), or a
    permutation of the pooled values (``permutation``: exact up to 10⁵ splittings, else
    9,999 seeded resamples)."""
    if test == "wilcoxon":
        return float(st.mannwhitneyu(x, y, alternative="two-sided").pvalue)
    if test == "permutation":
        res = st.permutation_test((x, y), lambda a, b: a.mean() - b.mean(), permutation_type="independent",
                                  n_resamples=9_999, rng=np.random.default_rng(seed))
        return float(res.pvalue)
    return float(st.ttest_ind(x, y, equal_var=False).pvalue)
