"""Statistics over paired trials: paired t-test, confidence intervals, win/tie/loss, Holm.

The papers compare models trained on the same split of each trial (paired design), so
every comparison here is on per-trial differences d_t = a_t − b_t:

* paired t-test: t = mean(d) / (sd(d)/√n), two-sided, via :func:`scipy.stats.ttest_rel`
  (Bruch §5.1 uses α = 0.01);
* 95% CI of a mean: mean ± t_{0.975, n−1} · sd/√n (:meth:`scipy.stats.t.interval`);
* win/tie/loss: trials where a > b, |a − b| ≤ ``tie``, a < b;
* Holm's step-down correction across several comparisons (family-wise error).
"""
from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np
from scipy import stats as _st

__all__ = ["Summary", "Comparison", "summarize", "paired_test", "holm", "paired_power", "trials_for_power",
           "sd_interval", "trials_for_power_range"]


@dataclass(frozen=True)
class Summary:
    n: int
    mean: float
    std: float
    ci_low: float
    ci_high: float

    def as_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class Comparison:
    """``a`` versus ``b`` over ``n`` paired trials."""

    n: int
    mean_a: float
    mean_b: float
    diff: float          # mean(a − b)
    std_diff: float
    ci_low: float        # 95% CI of the mean difference
    ci_high: float
    t: float
    p: float
    wins: int
    ties: int
    losses: int

    def significant(self, alpha: float = 0.01) -> bool:
        return bool(np.isfinite(self.p) and self.p < alpha)

    def as_dict(self) -> dict:
        return asdict(self)


def _ci(x: np.ndarray, level: float) -> tuple[float, float]:
    n = x.size
    m = float(x.mean()) if n else float("nan")
    if n < 2:
        return m, m
    se = float(x.std(ddof=1)) / np.sqrt(n)
    if se == 0:
        return m, m
    lo, hi = _st.t.interval(level, n - 1, loc=m, scale=se)
    return float(lo), float(hi)


def summarize(values, level: float = 0.95) -> Summary:
    """Mean, sample standard deviation and ``level`` CI of the mean (NaNs are an error)."""
    x = np.asarray(values, dtype=float)
    if np.isnan(x).any():
        raise ValueError("summarize: NaN among the values")
    lo, hi = _ci(x, level)
    return Summary(n=int(x.size), mean=float(x.mean()) if x.size else float("nan"),
                   std=float(x.std(ddof=1)) if x.size > 1 else 0.0, ci_low=lo, ci_high=hi)


def paired_test(a, b, tie: float = 0.0, level: float = 0.95) -> Comparison:
    """Paired two-sided t-test of ``a`` against ``b`` (same trials, same order).

    With fewer than two trials, or differences of zero variance, t and p are NaN: no
    significance is claimed.
    """
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    if a.shape != b.shape or a.ndim != 1:
        raise ValueError(f"paired_test needs two 1-d arrays of equal length, got {a.shape} and {b.shape}")
    if np.isnan(a).any() or np.isnan(b).any():
        raise ValueError("paired_test: NaN among the values")
    d = a - b
    n = d.size
    if n >= 2 and d.std(ddof=1) > 0:
        res = _st.ttest_rel(a, b)
        t, p = float(res.statistic), float(res.pvalue)
    else:
        t, p = float("nan"), float("nan")
    lo, hi = _ci(d, level)
    return Comparison(n=n, mean_a=float(a.mean()) if n else float("nan"),
                      mean_b=float(b.mean()) if n else float("nan"),
                      diff=float(d.mean()) if n else float("nan"),
                      std_diff=float(d.std(ddof=1)) if n > 1 else 0.0, ci_low=lo, ci_high=hi, t=t, p=p,
                      wins=int((d > tie).sum()), ties=int((np.abs(d) <= tie).sum()),
                      losses=int((d < -tie).sum()))


def holm(pvalues) -> np.ndarray:
    """Holm's step-down adjusted p-values (NaNs stay NaN and do not count).

    Sorted p_(1) ≤ … ≤ p_(m): adjusted p_(i) = max_{j ≤ i} min(1, (m − j + 1) p_(j)).
    """
    p = np.asarray(pvalues, dtype=float)
    out = np.full(p.shape, np.nan)
    ok = np.isfinite(p)
    m = int(ok.sum())
    if m == 0:
        return out
    idx = np.flatnonzero(ok)
    order = np.argsort(p[ok], kind="stable")
    adj = np.minimum(1.0, (m - np.arange(m)) * p[ok][order])
    adj = np.maximum.accumulate(adj)
    out[idx[order]] = adj
    return out


def paired_power(effect: float, sd: float, n: int, alpha: float = 0.01) -> float:
    """Power of the two-sided paired t-test at ``alpha`` to detect a true mean difference
    ``effect`` when the per-trial differences have standard deviation ``sd``, over ``n``
    trials: P(|T| > t_{1−α/2, n−1}) with T ~ noncentral t(n − 1, effect / (sd / √n)).

    G*Power's textbook case (d = 1, n = 10, α = .05) is 0.803:

    >>> round(paired_power(1.0, 1.0, 10, alpha=0.05), 3)
    0.803
    """
    if n < 2 or not np.isfinite(sd) or sd <= 0:
        return float("nan")
    df = n - 1
    nc = effect / (sd / np.sqrt(n))
    crit = _st.t.ppf(1.0 - alpha / 2.0, df)
    # the tail away from the effect: scipy's nct returns NaN there for a large |nc|, where it is ~0
    far, near = (_st.nct.cdf(-crit, df, abs(nc)), _st.nct.sf(crit, df, abs(nc)))
    return float(min(1.0, near + (far if np.isfinite(far) else 0.0)))


def trials_for_power(effect: float, sd: float, power: float = 0.8, alpha: float = 0.01,
                     max_trials: int = 100_000) -> int | None:
    """The fewest trials (>= 2) whose paired t-test reaches ``power`` for ``effect`` (see
    :func:`paired_power`); None when ``max_trials`` do not.

    >>> trials_for_power(0.5, 1.0, alpha=0.05)      # G*Power: d = 0.5, power .8, two-sided
    34
    """
    if not np.isfinite(sd) or sd <= 0 or effect == 0:
        return None
    lo, hi = 2, 2
    while paired_power(effect, sd, hi, alpha) < power:
        if hi >= max_trials:
            return None
        lo, hi = hi, min(2 * hi, max_trials)
    while lo < hi:                          # the smallest n in (lo, hi] reaching the power
        mid = (lo + hi) // 2
        if paired_power(effect, sd, mid, alpha) >= power:
            hi = mid
        else:
            lo = mid + 1
    return hi


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


def trials_for_power_range(effect: float, sd: float, n: int, power: float = 0.8, alpha: float = 0.01,
                           level: float = 0.95, max_trials: int = 100_000) -> tuple[int | None, int | None]:
    """The trials for ``power`` (:func:`trials_for_power`) at the two ends of the SD's ``level``
    confidence interval (:func:`sd_interval`, from ``n`` paired differences): how uncertain
    "the trials that would settle it" is when the SD comes from few trials. None at an end
    beyond ``max_trials`` (or below n = 2: no interval).

    >>> trials_for_power_range(0.0015, 0.010664, 5)          # Bruch Table 1, XE_NDCG − λMART, 5 trials
    (216, 4878)
    """
    if int(n) < 2 or not np.isfinite(sd) or sd <= 0 or effect == 0:
        return None, None
    lo, hi = sd_interval(sd, n, level)
    return (trials_for_power(effect, lo, power, alpha, max_trials),
            trials_for_power(effect, hi, power, alpha, max_trials))
