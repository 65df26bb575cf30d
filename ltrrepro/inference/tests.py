"""The tests of the harness: paired tests of a mean difference (t, Wilcoxon, sign-flip
permutation), confidence intervals, win/tie/loss, the paired effect size d_z, Holm and
Benjamini–Hochberg; two-sample tests (two runs on different data); TOST (equivalence).

The papers compare models trained on the same split of each trial (paired design), so
every paired comparison here is on per-trial differences d_t = a_t − b_t:

* paired t-test: t = mean(d) / (sd(d)/√n), two-sided, via :func:`scipy.stats.ttest_rel`
  (Bruch §5.1; α is the report's, :attr:`~ltrrepro.inference.choices.Inference.alpha`);
* 95% CI of a mean: mean ± t_{0.975, n−1} · sd/√n (:meth:`scipy.stats.t.interval`);
* win/tie/loss: trials where a > b, |a − b| ≤ ``tie``, a < b;
* Holm's step-down correction across several comparisons (family-wise error), or
  Benjamini–Hochberg's (false discovery rate; :func:`scipy.stats.false_discovery_control`);
* the test of the mean difference (:data:`~ltrrepro.inference.choices.TESTS`,
  :func:`one_sample_p`): the paired t-test, the Wilcoxon signed-rank test
  (:func:`scipy.stats.wilcoxon`, exact for small n without ties or zeros) or the sign-flip
  permutation test of the mean (:func:`scipy.stats.permutation_test` with
  ``permutation_type="samples"``: exact — every one of the 2^n sign patterns, enumerated by
  :func:`sign_flip_exact_p` — up to n = 20, else 9,999 seeded resamples). Urbano et al. (SIGIR 2019, "Statistical significance testing
  in information retrieval: an empirical analysis of type I, type II and type III errors") and
  Parapar et al. (2020) compare them; ``benchmarks/bench_tests.py`` measures them on the
  harness's own differences;
* d_z = mean(d) / sd(d), the standardized mean of paired differences (Lakens 2013, "Calculating
  and reporting effect sizes", Front. Psychol. 4:863, eq. 7), its CI by inverting the noncentral
  t of t = d_z·√n (Steiger & Fouladi 1997; Cumming & Finch 2001);
* two independent samples (:func:`two_sample_p`): Welch's t, Mann–Whitney's U or a permutation
  of the pooled values;
* TOST (:func:`tost`): two one-sided t-tests of equivalence within a margin (Schuirmann 1987).

Every function takes the test or correction it uses as an argument (a report passes its
:class:`~ltrrepro.inference.choices.Inference`'s); the defaults are the t-test and Holm.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np
from scipy import stats as _st

from .choices import CORRECTIONS, TESTS

__all__ = ["Summary", "Comparison", "summarize", "paired_test", "holm", "adjust", "applied_levels", "sign_flip_exact_p",
           "EXACT_MAX", "one_sample_p", "dz", "dz_interval",
           "dz_fields",
           "min_p", "min_two_sample_p", "two_sample_p", "tost"]


def min_p(n: int, test: str) -> float:
    """The smallest two-sided p-value a rank or sign-flip test over ``n`` differences can give,
    ``2 / 2^n`` (all signs alike; exact null); 0 for the t-test. With n = 5 it is 0.0625: such a
    test can never reach α = 0.01, whatever the data.

    >>> min_p(5, "permutation"), min_p(8, "wilcoxon"), min_p(5, "t")
    (0.0625, 0.0078125, 0.0)
    """
    return 0.0 if test == "t" else float(min(1.0, 2.0 ** (1 - min(int(n), 1100))))


def one_sample_p(d, test: str = "t") -> float:
    """Two-sided p-value of "mean of ``d`` = 0" by ``test`` (:data:`~ltrrepro.inference.choices.TESTS`):
    ``t`` — :func:`scipy.stats.ttest_1samp`; ``wilcoxon`` — :func:`scipy.stats.wilcoxon`
    (zeros dropped, Wilcoxon's convention; exact null when scipy can); ``permutation`` — the
    sign-flip test of the mean, :func:`scipy.stats.permutation_test` (``samples``: each d_i or
    −d_i), exact over all 2^n sign patterns for n ≤ :data:`EXACT_MAX` (:func:`sign_flip_exact_p`),
    else 9,999 resamples from a fixed seed.
    NaN with fewer than two values or all differences equal (t) / all zero.

    >>> round(one_sample_p([1.0, 2.0, 3.0, 4.0, 5.0], "permutation"), 4)      # 2 of 32 patterns
    0.0625
    """
    d = np.asarray(d, dtype=float)
    if d.size < 2 or not np.all(np.isfinite(d)):
        return float("nan")
    if test == "t":
        if d.std(ddof=1) == 0:
            return float("nan")
        return float(_st.ttest_1samp(d, 0.0).pvalue)
    if not np.any(d != 0):
        return float("nan")
    if test == "wilcoxon":
        return float(_st.wilcoxon(d).pvalue)
    if test == "permutation":
        if d.size <= EXACT_MAX:
            return sign_flip_exact_p(d)
        res = _st.permutation_test((d, np.zeros_like(d)), lambda x, y, axis=-1: np.mean(x - y, axis=axis),
                                   permutation_type="samples", vectorized=True, n_resamples=9999,
                                   random_state=np.random.default_rng(0))
        return float(min(1.0, res.pvalue))
    raise ValueError(f"unknown test {test!r}: choose one of {', '.join(TESTS)}")


#: the permutation test enumerates every sign pattern up to this many differences (2^20 ≈ 10⁶ means)
EXACT_MAX = 20


def sign_flip_exact_p(d) -> float:
    """The sign-flip test of the mean over all 2^n sign patterns of ``d``, enumerated in chunks
    of 2^16: p = min(1, 2·min(#{T ≥ t}, #{T ≤ t}) / 2^n) with T the mean of the flipped
    differences and t the observed one, compared with scipy's relative tolerance (100 ulp) —
    :func:`scipy.stats.permutation_test`'s exact two-sided p, for n up to :data:`EXACT_MAX` where
    scipy would resample from 14 on.

    >>> sign_flip_exact_p([1.0, 2.0, 3.0, 4.0, 5.0])
    0.0625
    """
    d = np.asarray(d, dtype=float)
    n = d.size
    obs = float(d.mean())
    gamma = abs(np.finfo(float).eps * 100 * obs)
    ge = le = 0
    bits = np.arange(n)
    total = 1 << n
    for start in range(0, total, 1 << 16):
        idx = np.arange(start, min(total, start + (1 << 16)))
        signs = 1.0 - 2.0 * ((idx[:, None] >> bits) & 1)
        means = signs @ d / n
        ge += int(np.count_nonzero(means >= obs - gamma))
        le += int(np.count_nonzero(means <= obs + gamma))
    return float(min(1.0, 2.0 * min(ge, le) / total))


def dz(d) -> float:
    """d_z = mean(d) / sd(d) (ddof = 1) of paired differences (Lakens 2013, eq. 7); NaN with
    fewer than two values or no spread.

    >>> round(dz([1.0, 2.0, 3.0]), 4)
    2.0
    """
    d = np.asarray(d, dtype=float)
    if d.size < 2 or d.std(ddof=1) == 0:
        return float("nan")
    return float(d.mean() / d.std(ddof=1))


def dz_interval(value: float, n: int, level: float = 0.95) -> tuple[float, float]:
    """The ``level`` CI of d_z from ``n`` pairs: the noncentrality δ√n whose noncentral t
    (n − 1 df) puts t = d_z·√n at the (1 ± level)/2 quantiles, divided by √n (Steiger & Fouladi
    1997; Cumming & Finch 2001); where scipy's noncentral t fails (a very large t), the normal
    approximation d_z ± z·√(1/n + d_z²/(2(n − 1))) (Hedges & Olkin 1985). NaN without a d_z.

    >>> [round(v, 3) for v in dz_interval(0.5, 20)]
    [0.028, 0.96]
    """
    from scipy.optimize import brentq

    if not np.isfinite(value) or int(n) < 2:
        return float("nan"), float("nan")
    df, t = int(n) - 1, value * np.sqrt(n)
    a = (1.0 - level) / 2.0

    def bound(q):
        f = lambda nc: _st.nct.cdf(t, df, nc) - q  # noqa: E731
        lo, hi = t - 10 - abs(t), t + 10 + abs(t)
        while f(lo) < 0:
            lo -= 10 + abs(lo)
        while f(hi) > 0:
            hi += 10 + abs(hi)
        return brentq(f, lo, hi, xtol=1e-10)

    try:
        with np.errstate(all="ignore"):
            return float(bound(1.0 - a) / np.sqrt(n)), float(bound(a) / np.sqrt(n))
    except (ValueError, RuntimeError):       # scipy's nct gives NaN far out (|t| large): the normal approximation
        half = _st.norm.ppf(1.0 - a) * np.sqrt(1.0 / n + value * value / (2.0 * df))
        return float(value - half), float(value + half)


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
    dz: float = float("nan")          # mean / sd of the differences (Lakens 2013), with its 95% CI
    dz_low: float = float("nan")
    dz_high: float = float("nan")
    test: str = "t"                   # the test p comes from (:data:`TESTS`)
    identical: str | None = None      # a and b trained the same model (their test scores' fingerprints): why

    def significant(self, alpha: float) -> bool:
        return bool(np.isfinite(self.p) and self.p < alpha)

    def as_dict(self) -> dict:
        """The comparison's fields (``identical`` only where set: the tables of other runs do not change)."""
        out = asdict(self)
        if out["identical"] is None:
            del out["identical"]
        return out


def dz_fields(c: Comparison | None) -> dict:
    """d_z with its 95% CI of a comparison, as a claim's fields (``dz``, ``dz_low``,
    ``dz_high``); none without a comparison of at least two pairs."""
    return {"dz": c.dz, "dz_low": c.dz_low, "dz_high": c.dz_high} if c is not None and c.n > 1 else {}


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


def paired_test(a, b, tie: float = 0.0, level: float = 0.95, test: str = "t") -> Comparison:
    """Paired two-sided test of ``a`` against ``b`` (same trials, same order): p by ``test``
    (:data:`~ltrrepro.inference.choices.TESTS`: the report's choice, :func:`one_sample_p` of a − b), t the paired t statistic whatever the test, the 95% CI of
    the mean difference (t), d_z with its CI (:func:`dz`, :func:`dz_interval`).

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
        t = float(res.statistic)
        p = float(res.pvalue) if test == "t" else one_sample_p(d, test)
    else:
        t, p = float("nan"), float("nan")
    lo, hi = _ci(d, level)
    z = dz(d)
    zlo, zhi = dz_interval(z, n, level)
    return Comparison(n=n, mean_a=float(a.mean()) if n else float("nan"),
                      mean_b=float(b.mean()) if n else float("nan"),
                      diff=float(d.mean()) if n else float("nan"),
                      std_diff=float(d.std(ddof=1)) if n > 1 else 0.0, ci_low=lo, ci_high=hi, t=t, p=p,
                      wins=int((d > tie).sum()), ties=int((np.abs(d) <= tie).sum()),
                      losses=int((d < -tie).sum()), dz=z, dz_low=zlo, dz_high=zhi, test=test)


def adjust(pvalues, method: str = "holm") -> np.ndarray:
    """p-values adjusted within one family by ``method`` (:data:`~ltrrepro.inference.choices.CORRECTIONS`,
    the report's choice): ``holm`` (:func:`holm`), ``bh`` (Benjamini–Hochberg,
    :func:`scipy.stats.false_discovery_control`), ``none`` (as they are). NaNs stay NaN and do
    not count.

    >>> adjust([0.01, 0.04, 0.03], "bh").round(3).tolist()
    [0.03, 0.04, 0.04]
    """
    p = np.asarray(pvalues, dtype=float)
    if method == "holm":
        return holm(p)
    out = p.copy()
    if method == "none":
        return out
    if method == "bh":
        ok = np.isfinite(p)
        if ok.any():
            out[ok] = _st.false_discovery_control(p[ok], method="bh")
        return out
    raise ValueError(f"unknown correction {method!r}: choose one of {', '.join(CORRECTIONS)}")


def applied_levels(pvalues, method: str, alpha: float) -> np.ndarray:
    """The level each p of one family is compared with after the correction ``method`` at
    ``alpha`` — the level its power is computed at (NaNs stay NaN and do not count; m tested):

    * ``holm``: sorted p_(1) ≤ … ≤ p_(m), the step-down rejects while p_(i) < α/(m − i + 1);
      a rejected claim at step i was compared with α/(m − i + 1), every other with the level of
      the step where Holm stopped, α/(m − r) (r: the family's rejections): a smaller p than
      that would have been rejected at that step;
    * ``bh``: R rejections (the largest i with p_(i) ≤ iα/m); a rejected claim's threshold is
      Rα/m, every other's (R + 1)α/m — the rank it would need to join them;
    * ``none``: α.

    >>> applied_levels([0.001, 0.2, 0.3, 0.004], "holm", 0.01).round(5).tolist()
    [0.0025, 0.00333, 0.00333, 0.00333]
    >>> applied_levels([0.001, 0.2], "bh", 0.01).tolist(), applied_levels([0.3], "none", 0.05).tolist()
    ([0.005, 0.01], [0.05])
    """
    p = np.asarray(pvalues, dtype=float)
    out = np.full(p.shape, np.nan)
    ok = np.isfinite(p)
    m = int(ok.sum())
    if m == 0:
        return out
    if method == "none":
        out[ok] = alpha
        return out
    idx = np.flatnonzero(ok)
    order = np.argsort(p[ok], kind="stable")
    ps = p[ok][order]
    if method == "holm":
        steps = alpha / (m - np.arange(m))
        passed = np.cumprod(ps < steps).astype(bool)
        r = int(passed.sum())
        levels = np.where(passed, steps, alpha / (m - r) if r < m else alpha)
    elif method == "bh":
        below = np.flatnonzero(ps <= np.arange(1, m + 1) * alpha / m)
        r = int(below[-1]) + 1 if below.size else 0
        levels = np.where(np.arange(m) < r, r * alpha / m, min(r + 1, m) * alpha / m)
    else:
        raise ValueError(f"unknown correction {method!r}: choose one of {', '.join(CORRECTIONS)}")
    out[idx[order]] = levels
    return out


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




def min_two_sample_p(n1: int, n2: int, test: str) -> float:
    """The smallest two-sided p a rank or permutation test of two samples of sizes ``n1``,
    ``n2`` can give, 2 / C(n1 + n2, n1) (every value of one sample above every value of the
    other); 0 for Welch's t.

    >>> min_two_sample_p(3, 3, "wilcoxon"), min_two_sample_p(3, 3, "t")
    (0.1, 0.0)
    """
    from math import comb
    return 0.0 if test == "t" else min(1.0, 2.0 / comb(int(n1) + int(n2), int(n1)))


def two_sample_p(x: np.ndarray, y: np.ndarray, test: str, seed: int = 0) -> float:
    """Two-sided p of mean(x) − mean(y) by ``test`` for two independent samples: Welch's t
    (``t``), Mann–Whitney's U (``wilcoxon``: the rank test for two independent samples), or a
    permutation of the pooled values (``permutation``: exact up to 10⁵ splittings, else
    9,999 seeded resamples)."""
    if test == "wilcoxon":
        return float(_st.mannwhitneyu(x, y, alternative="two-sided").pvalue)
    if test == "permutation":
        res = _st.permutation_test((x, y), lambda a, b: a.mean() - b.mean(), permutation_type="independent",
                                   n_resamples=9_999, rng=np.random.default_rng(seed))
        return float(res.pvalue)
    return float(_st.ttest_ind(x, y, equal_var=False).pvalue)


def tost(d: np.ndarray, margin: float) -> tuple[float, float]:
    """``(p_equivalent, p_beyond)`` for differences ``d`` (two one-sided t-tests, Schuirmann
    1987, with the margin ±m): TOST's p (the larger of the two one-sided p's of H0: μ ≤ −m and
    H0: μ ≥ m) and the p of the one-sided test that the mean lies beyond the margin on its side
    (H0: |μ| ≤ m, tested on the side of the mean).

    >>> p_eq, p_beyond = tost(np.array([0.001, -0.001, 0.002, 0.0, -0.002]), 0.01)
    >>> bool(p_eq < 0.001), bool(p_beyond > 0.999)
    (True, True)
    """
    d = np.asarray(d, dtype=float)
    n, m = d.size, float(d.mean())
    se = float(d.std(ddof=1)) / np.sqrt(n)
    df = n - 1
    p_low, p_high = _st.t.sf((m + margin) / se, df), _st.t.cdf((m - margin) / se, df)
    beyond = _st.t.sf((abs(m) - margin) / se, df)
    return float(max(p_low, p_high)), float(beyond)
