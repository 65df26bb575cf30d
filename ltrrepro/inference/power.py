"""Power and the trials it takes, at a report's α (:attr:`~ltrrepro.inference.choices.Inference.alpha`,
passed, never assumed): the paired t-test's (noncentral t), Welch's for two independent
samples, TOST's at no change, the search for the fewest trials that reach a power, and a
claim's power fields (:func:`power_block`).

* paired: P(|T| > t_{1−α/2, n−1}), T ~ noncentral t(n − 1, effect / (sd/√n)) (:func:`paired_power`);
* Welch (1947): the same with the Welch–Satterthwaite degrees of freedom (:func:`welch_power`);
* TOST at a true difference of 0: P(|T| < m/se − t_{1−α, n−1}), T ~ t(n − 1) (:func:`tost_power`).
"""
from __future__ import annotations

import numpy as np
from scipy import special as _sp
from scipy import stats as _st

from .tests import min_p, min_two_sample_p

try:                                        # what scipy.stats.nct.sf computes, without its per-call checks
    from scipy.special._ufuncs import _nct_sf as _NCT_SF
except ImportError:                         # another scipy: through scipy.stats
    _NCT_SF = None

__all__ = ["POWER_TARGET", "paired_power", "fewest_trials", "trials_for_power", "sd_interval", "trials_for_power_range",
           "welch_power", "trials_for_welch_power", "two_sample_power", "trials_for_two_sample_power", "tost_power",
           "trials_for_tost_power",
           "power_block"]

#: the power below which a non-significant result cannot tell "no effect" from "too few trials"
POWER_TARGET = 0.8


def paired_power(effect: float, sd: float, n: int, alpha: float, test: str = "t") -> float:
    """Power of the two-sided paired t-test at ``alpha`` to detect a true mean difference
    ``effect`` when the per-trial differences have standard deviation ``sd``, over ``n``
    trials: P(|T| > t_{1−α/2, n−1}) with T ~ noncentral t(n − 1, effect / (sd / √n)).

    G*Power's textbook case (d = 1, n = 10, α = .05) is 0.803:

    >>> round(paired_power(1.0, 1.0, 10, alpha=0.05), 3)
    0.803

    For ``test`` = ``wilcoxon`` or ``permutation`` the same noncentral t stands in (both are
    asymptotically as efficient as the t-test under normal differences: Wilcoxon's relative
    efficiency is 3/π ≈ 0.955, the permutation test's 1), except that a power of 0 is returned
    where the test cannot reach ``alpha`` at all (:func:`min_p` ≥ α: n ≤ 7 at α = 0.01).
    ``benchmarks/bench_tests.py`` measures the real power of each test.
    """
    if n < 2 or not np.isfinite(sd) or sd <= 0:
        return float("nan")
    if min_p(n, test) >= alpha:
        return 0.0
    return _two_sided(1.0 - alpha / 2.0, n - 1, abs(effect / (sd / np.sqrt(n))))


def _two_sided(q: float, df: float, nc: float) -> float:
    """P(T > c) + P(T < −c), c = t_{q, df}, T ~ noncentral t(df, nc ≥ 0): scipy's ``t.ppf``,
    ``nct.sf`` and ``nct.cdf``, called as the special functions they evaluate
    (``stdtrit``, ``_nct_sf``, ``nctdtr``: the same numbers, ``tests/lib/test_power_level.py``;
    scipy.stats' argument handling was 95% of a search for the fewest trials). The tail away
    from the effect is 0 where scipy returns NaN for it (a large ``nc``)."""
    crit = _sp.stdtrit(df, q)
    far = _sp.nctdtr(df, nc, -crit)
    if _NCT_SF is None:
        near = _st.nct.sf(crit, df, nc)
    else:
        with np.errstate(over="ignore"):
            near = np.clip(_NCT_SF(crit, df, nc), 0.0, 1.0)
    return float(min(1.0, near + (far if np.isfinite(far) else 0.0)))


def fewest_trials(reaches, max_trials: int = 100_000, start: int = 2) -> int | None:
    """The smallest n in [``start``, ``max_trials``] with ``reaches(n)`` true, for a ``reaches``
    that stays true once it is (a power that grows with n): doubling, then bisection; None
    when ``max_trials`` does not reach.

    >>> fewest_trials(lambda n: n * n >= 50), fewest_trials(lambda n: False, max_trials=64)
    (8, None)
    """
    lo, hi = start, start
    while not reaches(hi):
        if hi >= max_trials:
            return None
        lo, hi = hi, min(2 * hi, max_trials)
    while lo < hi:                          # the smallest n in (lo, hi] that reaches
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if reaches(mid) else (mid + 1, hi)
    return hi


def trials_for_power(effect: float, sd: float, power: float = POWER_TARGET, *, alpha: float,
                     max_trials: int = 100_000, test: str = "t") -> int | None:
    """The fewest trials (>= 2) whose paired t-test reaches ``power`` for ``effect`` (see
    :func:`paired_power`); None when ``max_trials`` do not.

    >>> trials_for_power(0.5, 1.0, alpha=0.05)      # G*Power: d = 0.5, power .8, two-sided
    34
    """
    if not np.isfinite(sd) or sd <= 0 or effect == 0:
        return None
    return fewest_trials(lambda n: paired_power(effect, sd, n, alpha, test) >= power, max_trials)


def sd_interval(sd: float, n: int, level: float = 0.95) -> tuple[float, float]:
    """The ``level`` confidence interval of a normal SD estimated from ``n`` values:
    ``sd·√((n−1)/χ²_{1−a/2}) … sd·√((n−1)/χ²_{a/2})`` with n − 1 degrees of freedom (a = 1 − level).

    >>> [round(v, 4) for v in sd_interval(1.0, 5)]
    [0.5991, 2.8736]
    """
    a = 1.0 - level
    df = int(n) - 1
    return (float(sd * np.sqrt(df / _st.chi2.ppf(1 - a / 2, df))),
            float(sd * np.sqrt(df / _st.chi2.ppf(a / 2, df))))


def trials_for_power_range(effect: float, sd: float, n: int, power: float = POWER_TARGET, *, alpha: float,
                           level: float = 0.95, max_trials: int = 100_000,
                           test: str = "t") -> tuple[int | None, int | None]:
    """The trials for ``power`` (:func:`trials_for_power`) at the two ends of the SD's ``level``
    confidence interval (:func:`sd_interval`, from ``n`` paired differences): how uncertain
    "the trials that would settle it" is when the SD comes from few trials. None at an end
    beyond ``max_trials`` (or below n = 2: no interval).

    >>> trials_for_power_range(0.0015, 0.010664, 5, alpha=0.01)     # Bruch Table 1, XE_NDCG − λMART, 5 trials
    (216, 4878)
    """
    if int(n) < 2 or not np.isfinite(sd) or sd <= 0 or effect == 0:
        return None, None
    lo, hi = sd_interval(sd, n, level)
    return (trials_for_power(effect, lo, power, alpha=alpha, max_trials=max_trials, test=test),
            trials_for_power(effect, hi, power, alpha=alpha, max_trials=max_trials, test=test))


def welch_power(effect: float, s1: float, n1: int, s2: float, n2: int, alpha: float) -> float:
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
    return _two_sided(1 - alpha / 2, df, abs(effect) / np.sqrt(v1 + v2))


def trials_for_welch_power(effect: float, s1: float, s2: float, power: float = POWER_TARGET, *, alpha: float,
                           max_trials: int = 100_000) -> int | None:
    """The fewest trials per run (equal in both) whose Welch test reaches ``power``; None beyond ``max_trials``."""
    if effect == 0 or not (s1 > 0 or s2 > 0):
        return None
    return fewest_trials(lambda n: welch_power(effect, s1, n, s2, n, alpha) >= power, max_trials)


def two_sample_power(effect, s1, n1, s2, n2, test: str, alpha: float) -> float:
    """The power of the two-sample test in force: Welch's (:func:`welch_power`) — for the rank
    and permutation tests an approximation (their asymptotic efficiency against the t-test is
    0.95 or more for normal data), and 0 where they cannot reach ``alpha`` at these sizes
    (:func:`min_two_sample_p`)."""
    if min_two_sample_p(n1, n2, test) >= alpha:
        return 0.0
    return welch_power(effect, s1, n1, s2, n2, alpha)


def trials_for_two_sample_power(effect, s1, s2, test: str, power: float = POWER_TARGET, *, alpha: float):
    """Trials per run (equal in both) for ``power`` with the test in force: Welch's, and no fewer
    than a rank or permutation test needs to reach ``alpha`` at all."""
    n = trials_for_welch_power(effect, s1, s2, power, alpha=alpha)
    floor = 2
    while min_two_sample_p(floor, floor, test) >= alpha:
        floor += 1
    return None if n is None else max(n, floor)


def tost_power(margin: float, sd: float, n: int, alpha: float) -> float:
    """TOST's power at a true difference of 0: P(|T| < m/se − t_{1−α, n−1}), T ~ t(n − 1)
    (:func:`~ltrrepro.inference.tests.tost` with margin m, se = sd/√n).

    >>> round(tost_power(0.01, 0.01, 30, 0.05), 3) > 0.9, tost_power(0.01, 0.01, 1, 0.05)
    (True, nan)
    """
    if n < 2 or not sd > 0:
        return float("nan")
    df, q = n - 1, margin / (sd / np.sqrt(n)) - _st.t.ppf(1 - alpha, n - 1)
    return float(max(0.0, 2 * _st.t.cdf(q, df) - 1))




def power_block(paper_effect, sd, trials: int, alpha: float, test: str = "t") -> dict:
    """A claim's power fields: the paper's effect (in the claim's units), the observed SD of
    the paired differences, the power of the paired test ``test`` over ``trials`` at ``alpha``
    to detect the paper's effect and the trials that would give 80% (:func:`trials_for_power`),
    with their range over the SD's 95% confidence interval (``trials_80_range``,
    :func:`trials_for_power_range`: an SD from a few trials settles little; None at an end
    beyond 100,000). No paper effect (or no SD), no power (NaN) and no range.

    >>> power_block(None, 0.01, 5, 0.01)
    {'paper_effect': nan, 'sd': 0.01, 'power': nan, 'trials_80': None, 'trials_80_range': None}
    >>> power_block(0.0015, 0.010664, 5, 0.01)["trials_80_range"]          # Bruch Table 1: 594 trials for 80%
    (216, 4878)
    """
    eff = float("nan") if paper_effect is None else float(paper_effect)
    sd = float("nan") if sd is None else float(sd)
    ok = np.isfinite(eff) and eff != 0 and np.isfinite(sd) and sd > 0
    return {"paper_effect": eff, "sd": sd,
            "power": paired_power(abs(eff), sd, int(trials), alpha, test) if ok else float("nan"),
            "trials_80": trials_for_power(abs(eff), sd, POWER_TARGET, alpha=alpha, test=test) if ok else None,
            "trials_80_range": (trials_for_power_range(abs(eff), sd, int(trials), POWER_TARGET, alpha=alpha, test=test)
                                if ok and int(trials) >= 2 else None)}


def trials_for_tost_power(margin: float, sd: float, alpha: float, power: float = POWER_TARGET) -> int | None:
    """The fewest trials whose TOST reaches ``power`` at no change (:func:`tost_power`); None
    beyond 100,000.

    >>> trials_for_tost_power(0.01, 0.01, 0.05) <= 30
    True
    """
    return fewest_trials(lambda k: tost_power(margin, sd, k, alpha) >= power)
