"""Statistics over paired trials: paired tests (t, Wilcoxon, sign-flip permutation), confidence
intervals, win/tie/loss, the paired effect size d_z, Holm and Benjamini–Hochberg.

The papers compare models trained on the same split of each trial (paired design), so
every comparison here is on per-trial differences d_t = a_t − b_t:

* paired t-test: t = mean(d) / (sd(d)/√n), two-sided, via :func:`scipy.stats.ttest_rel`
  (Bruch §5.1 uses α = 0.01);
* 95% CI of a mean: mean ± t_{0.975, n−1} · sd/√n (:meth:`scipy.stats.t.interval`);
* win/tie/loss: trials where a > b, |a − b| ≤ ``tie``, a < b;
* Holm's step-down correction across several comparisons (family-wise error), or
  Benjamini–Hochberg's (false discovery rate; :func:`scipy.stats.false_discovery_control`);
* the test of the mean difference (:data:`TESTS`, :func:`one_sample_p`): the paired t-test
  (default), the Wilcoxon signed-rank test (:func:`scipy.stats.wilcoxon`, exact for small n
  without ties or zeros) or the sign-flip permutation test of the mean
  (:func:`scipy.stats.permutation_test` with ``permutation_type="samples"``: exact — every one
  of the 2^n sign patterns — up to n = 13, else 9,999 seeded resamples). Urbano et al. (SIGIR
  2019, "Statistical significance testing in information retrieval: an empirical analysis of
  type I, type II and type III errors") and Parapar et al. (2020) compare them;
  ``benchmarks/bench_tests.py`` measures them on the harness's own differences;
* d_z = mean(d) / sd(d), the standardized mean of paired differences (Lakens 2013, "Calculating
  and reporting effect sizes", Front. Psychol. 4:863, eq. 7), its CI by inverting the noncentral
  t of t = d_z·√n (Steiger & Fouladi 1997; Cumming & Finch 2001).

The report's choices (the test, the correction, the effects of interest) are one
:class:`Inference`, set for a report with :func:`using` and read with :func:`current`: they
decide the p-values and verdicts a report writes, never the units a run computes.
"""
from __future__ import annotations

import contextlib
import contextvars
from dataclasses import asdict, dataclass, field

import numpy as np
from scipy import stats as _st

__all__ = ["Summary", "Comparison", "summarize", "paired_test", "holm", "adjust", "paired_power", "trials_for_power", "fewest_trials",
           "sd_interval", "trials_for_power_range", "one_sample_p", "dz", "dz_interval", "Inference", "current",
           "using", "TESTS", "CORRECTIONS", "min_p"]

#: the tests of a mean paired difference a report may use (``--test``)
TESTS = ("t", "wilcoxon", "permutation")
#: the multiple-comparison corrections within a claim family (``--correction``)
CORRECTIONS = ("holm", "bh", "none")
TEST_NAMES = {"t": "paired t-test", "wilcoxon": "Wilcoxon signed-rank test",
              "permutation": "sign-flip permutation test of the mean"}
CORRECTION_NAMES = {"holm": "Holm", "bh": "Benjamini–Hochberg", "none": "no correction"}


@dataclass(frozen=True)
class Inference:
    """A report's statistical choices: ``test`` (:data:`TESTS`), ``correction`` within a claim
    family (:data:`CORRECTIONS`), and ``effects``: the smallest effects of interest by metric
    family, ``((family, value, relative), ...)`` — ``relative``: a share of the baseline's
    mean — overriding the defaults where the paper gives no number. None of them enters a
    run's configuration (its hash): they change what a report says, not what a run computes."""

    test: str = "t"
    correction: str = "holm"
    effects: tuple = field(default=())

    def __post_init__(self):
        if self.test not in TESTS:
            raise ValueError(f"--test {self.test!r}: choose one of {', '.join(TESTS)}")
        if self.correction not in CORRECTIONS:
            raise ValueError(f"--correction {self.correction!r}: choose one of {', '.join(CORRECTIONS)}")
        object.__setattr__(self, "effects", tuple((str(f), float(v), bool(r)) for f, v, r in self.effects))

    def effect_for(self, family: str):
        """``(value, relative)`` set for a metric family, or None."""
        for f, v, r in self.effects:
            if f == family:
                return v, r
        return None

    def to_dict(self) -> dict:
        return {"test": self.test, "correction": self.correction,
                "effects": {f: (f"{100 * v:g}%" if r else v) for f, v, r in self.effects}}

    @classmethod
    def from_dict(cls, d) -> "Inference":
        """From :meth:`to_dict` (a manifest's ``statistics``); missing keys at their defaults.
        Checked as the flags are (a bad test or correction, effects that are not a mapping of
        families to positive values: one ``ValueError`` naming them)."""
        from .claims import parse_effects

        d = d or {}
        if not isinstance(d, dict):
            raise ValueError(f"the stored statistics {d!r} are not a mapping of test, correction and effects")
        effects = d.get("effects") or {}
        if not isinstance(effects, dict):
            raise ValueError(f"the stored effects {effects!r} are not a mapping FAMILY: VALUE (as --effect "
                             f"FAMILY=VALUE,... stores them)")
        for key in ("test", "correction"):
            if key in d and not isinstance(d[key], str):
                raise ValueError(f"the stored {key} {d[key]!r} is not a name (--{key})")
        return cls(test=d.get("test", "t"), correction=d.get("correction", "holm"),
                   effects=parse_effects(",".join(f"{f}={v}" for f, v in effects.items())))


_INFERENCE: contextvars.ContextVar = contextvars.ContextVar("ltrrepro_inference", default=Inference())


def current() -> Inference:
    """The statistical choices in force (:func:`using`; the defaults otherwise)."""
    return _INFERENCE.get()


@contextlib.contextmanager
def using(inference: Inference | None):
    """Make ``inference`` the choices in force within the block (None: leave them)."""
    if inference is None:
        yield current()
        return
    token = _INFERENCE.set(inference)
    try:
        yield inference
    finally:
        _INFERENCE.reset(token)


def min_p(n: int, test: str) -> float:
    """The smallest two-sided p-value a rank or sign-flip test over ``n`` differences can give,
    ``2 / 2^n`` (all signs alike; exact null); 0 for the t-test. With n = 5 it is 0.0625: such a
    test can never reach α = 0.01, whatever the data.

    >>> min_p(5, "permutation"), min_p(8, "wilcoxon"), min_p(5, "t")
    (0.0625, 0.0078125, 0.0)
    """
    return 0.0 if test == "t" else float(min(1.0, 2.0 ** (1 - min(int(n), 1100))))


def one_sample_p(d, test: str | None = None) -> float:
    """Two-sided p-value of "mean of ``d`` = 0" by ``test`` (default: :func:`current`'s):
    ``t`` — :func:`scipy.stats.ttest_1samp`; ``wilcoxon`` — :func:`scipy.stats.wilcoxon`
    (zeros dropped, Wilcoxon's convention; exact null when scipy can); ``permutation`` — the
    sign-flip test of the mean, :func:`scipy.stats.permutation_test` (``samples``: each d_i or
    −d_i), exact over all 2^n sign patterns for n ≤ 13, else 9,999 resamples from a fixed seed.
    NaN with fewer than two values or all differences equal (t) / all zero.

    >>> round(one_sample_p([1.0, 2.0, 3.0, 4.0, 5.0], "permutation"), 4)      # 2 of 32 patterns
    0.0625
    """
    d = np.asarray(d, dtype=float)
    test = test or current().test
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
        res = _st.permutation_test((d, np.zeros_like(d)), lambda x, y, axis=-1: np.mean(x - y, axis=axis),
                                   permutation_type="samples", vectorized=True, n_resamples=9999,
                                   random_state=np.random.default_rng(0))
        return float(min(1.0, res.pvalue))
    raise ValueError(f"unknown test {test!r}: choose one of {', '.join(TESTS)}")


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


def paired_test(a, b, tie: float = 0.0, level: float = 0.95, test: str | None = None) -> Comparison:
    """Paired two-sided test of ``a`` against ``b`` (same trials, same order): p by ``test``
    (:data:`TESTS`; default :func:`current`'s, the t-test unless a report chose another,
    :func:`one_sample_p` of a − b), t the paired t statistic whatever the test, the 95% CI of
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
    test = test or current().test
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


def adjust(pvalues, method: str | None = None) -> np.ndarray:
    """p-values adjusted within one family by ``method`` (:data:`CORRECTIONS`; default
    :func:`current`'s): ``holm`` (:func:`holm`), ``bh`` (Benjamini–Hochberg,
    :func:`scipy.stats.false_discovery_control`), ``none`` (as they are). NaNs stay NaN and do
    not count.

    >>> adjust([0.01, 0.04, 0.03], "bh").round(3).tolist()
    [0.03, 0.04, 0.04]
    """
    method = method or current().correction
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


def paired_power(effect: float, sd: float, n: int, alpha: float = 0.01, test: str = "t") -> float:
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
    df = n - 1
    nc = effect / (sd / np.sqrt(n))
    crit = _st.t.ppf(1.0 - alpha / 2.0, df)
    # the tail away from the effect: scipy's nct returns NaN there for a large |nc|, where it is ~0
    far, near = (_st.nct.cdf(-crit, df, abs(nc)), _st.nct.sf(crit, df, abs(nc)))
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


def trials_for_power(effect: float, sd: float, power: float = 0.8, alpha: float = 0.01,
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


def trials_for_power_range(effect: float, sd: float, n: int, power: float = 0.8, alpha: float = 0.01,
                           level: float = 0.95, max_trials: int = 100_000,
                           test: str = "t") -> tuple[int | None, int | None]:
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
    return (trials_for_power(effect, lo, power, alpha, max_trials, test),
            trials_for_power(effect, hi, power, alpha, max_trials, test))
