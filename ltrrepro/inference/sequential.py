"""Group-sequential tests of paired differences: α-spending bounds, a non-binding futility
bound, expected sample size, and stage-wise adjusted p-values and confidence intervals.

The model (Jennison & Turnbull 2000, *Group Sequential Methods with Applications to Clinical
Trials*, ch. 3 and 7; "JT"): at look k = 1..K, after n_k of at most N paired trials, the
statistic is Z_k = d̄_k / (σ/√n_k), with information fraction t_k = n_k / N. The vector
(Z_1, …, Z_K) is multivariate normal with E[Z_k] = η√t_k and Cov(Z_j, Z_k) = √(t_j / t_k)
(j ≤ k), where the *drift* η = δ√N/σ is the standardized effect at full information (δ the
true mean difference). On the score scale S_k = √t_k·Z_k the increments are independent,
S_k − S_{k−1} ~ N(η·Δ_k, Δ_k), Δ_k = t_k − t_{k−1} (a Brownian motion with drift observed at
t_1 < … < t_K).

Over 500 lines on purpose: the bounds, the power, the expected sample size and the stage-wise
inference all integrate the same recursion on that model; kept together, they share one
grid and one numerical rule.

Every probability here is computed by the recursive numerical integration of that law
(Armitage, McPherson & Rowe 1969, J. R. Stat. Soc. A 132:235; JT ch. 19): the sub-density of
S_k on the continuation region is carried from look to look on a grid with Simpson weights,
f_k(y) = ∫_{C_{k−1}} f_{k−1}(x)·φ((y − x − ηΔ_k)/√Δ_k)/√Δ_k dx, and the exit probability at
look k is the same integral against the normal tail. Vectorized numpy, no Monte Carlo.

* Spending functions (Lan & DeMets 1983, Biometrika 70:659): O'Brien–Fleming type
  α(t) = 2 − 2Φ(z_{1−a/2}/√t) for a one-sided level a (gsDesign ``sfLDOF``, rpact ``asOF``),
  Pocock type α(t) = a·ln(1 + (e − 1)t) (``sfLDPocock``, ``asP``).
* Efficacy bounds (:func:`efficacy_bounds`): two-sided symmetric, α/2 spent per side: c_k
  solves P_0(|Z_j| < c_j, j < k; Z_k ≥ c_k) = α(t_k) − α(t_{k−1}) with α(·) at level α/2.
  Classic O'Brien–Fleming (1979, Biometrics 35:549): c_k = C/√t_k, C such that the
  two-sided crossing probability is α (:func:`obrien_fleming_bounds`).
* Futility (:func:`futility_bounds`): non-binding β-spending (JT §4.2; gsDesign
  ``test.type=4``) against the drift η₁ of the effect the claim is powered against: b_k solves
  P_η₁(no exit before k; Z_k < b_k) = β(t_k) − β(t_{k−1}), β(t) the same spending shape at
  the total β = 1 − power of the efficacy bounds at η₁ (the fixed maximum fixes β: at the
  last look b_K = c_K). Non-binding: the efficacy bounds ignore it, so stopping for futility
  (or not) never raises the type I error.
* Stage-wise ordering (JT §8.4, Tsiatis, Rosner & Mehta 1984): the outcome (k*, z*) is
  exceeded by an upper exit at an earlier look or by Z_{k*} ≥ z* at the same look; the
  two-sided p-value is 2·min(P_0(≥), P_0(≤)) capped at 1 (:func:`stagewise_p`) and the CI
  for η the pair where P_η(≥) and P_η(≤) equal (1 − level)/2 (:func:`stagewise_ci`).
  Computed, as for non-binding designs, on the efficacy bounds alone.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from scipy import optimize, special
from scipy import stats as _st

from .spending import SPENDING, obf_spending, pocock_spending
from .tlaw import TLaw, futility_only, t_law

__all__ = ["obf_spending", "pocock_spending", "SPENDING", "exit_probabilities", "efficacy_bounds",
           "obrien_fleming_bounds", "drift_for_power", "futility_bounds", "expected_fraction", "stagewise_p",
           "stagewise_ci", "z_from_p", "look_sizes", "Design", "Monitor", "real_alpha", "alpha_warning", "ALPHA_TOLERANCE"]

_SQ2 = np.sqrt(2.0)
#: half-width of the grid in standard deviations of the score, and grid points per √Δ
_WIDTH, _PER_SD = 9.0, 12




def _check_t(t) -> np.ndarray:
    t = np.asarray(t, dtype=float)
    if t.ndim != 1 or t.size == 0 or np.any(t <= 0) or np.any(np.diff(t) <= 0):
        raise ValueError(f"information fractions must increase strictly from above 0, got {t.tolist()}")
    return t


def _simpson(lo: float, hi: float, step: float) -> tuple[np.ndarray, np.ndarray]:
    """Grid points on [lo, hi] (an odd number, spacing at most ``step``) and Simpson weights."""
    m = max(2, int(np.ceil((hi - lo) / step / 2.0)))
    x = np.linspace(lo, hi, 2 * m + 1)
    h = (hi - lo) / (2 * m)
    w = np.full(x.size, 2.0)
    w[1::2] = 4.0
    w[0] = w[-1] = 1.0
    return x, w * h / 3.0


def _norm_sf(x):
    return 0.5 * special.erfc(x / _SQ2)


def exit_probabilities(lower, upper, t, drift: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """``(P(exit up at look k), P(exit down at look k))`` for k = 1..K: the probability that
    Z_j stays in (lower_j, upper_j) for j < k and Z_k ≥ upper_k (resp. ≤ lower_k), when
    E[Z_k] = drift·√t_k (module docstring; ±inf bounds allowed). Recursive integration on
    Simpson grids (Armitage, McPherson & Rowe 1969; JT ch. 19).

    One look is the normal tail; two looks match the bivariate normal law:

    >>> up, down = exit_probabilities([-np.inf], [1.96], [1.0])
    >>> round(float(up[0]), 4), float(down[0])
    (0.025, 0.0)
    """
    t = _check_t(t)
    lo = np.broadcast_to(np.asarray(lower, dtype=float), t.shape)
    hi = np.broadcast_to(np.asarray(upper, dtype=float), t.shape)
    up, down = np.zeros(t.size), np.zeros(t.size)
    x = g = None                                     # grid on the score scale and its weighted density
    prev = 0.0
    for k, tk in enumerate(t):
        d = tk - prev
        sd = np.sqrt(d)
        a, b = lo[k] * np.sqrt(tk), hi[k] * np.sqrt(tk)       # the bounds on the score scale
        if g is None:
            mean = drift * tk
            up[k] = _norm_sf((b - mean) / sd) if np.isfinite(b) else 0.0
            down[k] = _norm_sf((mean - a) / sd) if np.isfinite(a) else 0.0
        else:
            mean = x + drift * d
            up[k] = float(g @ _norm_sf((b - mean) / sd)) if np.isfinite(b) else 0.0
            down[k] = float(g @ _norm_sf((mean - a) / sd)) if np.isfinite(a) else 0.0
        if k == t.size - 1:
            break
        centre, spread = drift * tk, np.sqrt(tk)
        ga, gb = max(a, centre - _WIDTH * spread), min(b, centre + _WIDTH * spread)
        if not gb > ga:                              # nothing continues
            up[k + 1:] = down[k + 1:] = 0.0
            break
        step = min(np.sqrt(t[k + 1] - tk), sd) / _PER_SD
        y, w = _simpson(ga, gb, step)
        if g is None:
            dens = np.exp(-0.5 * ((y - drift * tk) / sd) ** 2) / (sd * np.sqrt(2 * np.pi))
        else:
            dens = g @ (np.exp(-0.5 * ((y[None, :] - x[:, None] - drift * d) / sd) ** 2) / (sd * np.sqrt(2 * np.pi)))
        x, g, prev = y, dens * w, tk
    return up, down


def _solve(f, target: float, lo: float = 0.0, hi: float = 40.0) -> float:
    """The root of the decreasing ``f(c) = target`` on [lo, hi] (inf when ``target`` ≤ 0)."""
    if target <= 0:
        return np.inf
    if f(lo) <= target:
        return lo
    return float(optimize.brentq(lambda c: f(c) - target, lo, hi, xtol=1e-10, rtol=1e-12))


def efficacy_bounds(t, alpha: float, spending: str = "obf") -> np.ndarray:
    """Two-sided symmetric efficacy bounds c_k on the z scale at information fractions ``t``
    (t_K = 1 at the planned maximum), spending α/2 per side with a Lan–DeMets function
    (:data:`SPENDING`): c_k solves P_0(|Z_j| < c_j, j < k; |Z_k| ≥ c_k) = 2[α(t_k) − α(t_{k−1})].
    Bounds at a look depend only on the looks so far, so they can be computed as the trial goes.

    >>> np.round(efficacy_bounds([0.2, 0.4, 0.6, 0.8, 1.0], 0.05), 3).tolist()   # gsDesign sfLDOF
    [4.877, 3.357, 2.68, 2.29, 2.031]
    """
    t = _check_t(t)
    spend = SPENDING[spending](t, alpha / 2.0)
    inc = np.diff(np.concatenate([[0.0], spend]))
    c = np.empty(t.size)
    for k in range(t.size):
        def upper_exit(ck, k=k):
            cc = np.concatenate([c[:k], [ck]])
            return exit_probabilities(-cc, cc, t[:k + 1])[0][k]
        c[k] = _solve(upper_exit, inc[k])
    return c


def obrien_fleming_bounds(t, alpha: float) -> np.ndarray:
    """Classic O'Brien–Fleming (1979) bounds c_k = C/√t_k, two-sided, C such that
    P_0(|Z_k| ≥ c_k for some k) = α (JT table 2.3: C = 2.040 for K = 5, α = .05).

    >>> np.round(obrien_fleming_bounds([0.2, 0.4, 0.6, 0.8, 1.0], 0.05), 3).tolist()
    [4.562, 3.226, 2.634, 2.281, 2.04]
    """
    t = _check_t(t)

    def total(C):
        up, down = exit_probabilities(-C / np.sqrt(t), C / np.sqrt(t), t)
        return up.sum() + down.sum()
    C = _solve(total, alpha, 0.5, 20.0)
    return C / np.sqrt(t)


def drift_for_power(t, upper, power: float = 0.9, lower=None) -> float:
    """The drift η at which the bounds reach ``power`` (probability of an upper exit; lower
    bounds -``upper`` unless given)."""
    t, upper = _check_t(t), np.asarray(upper, dtype=float)
    lower = -upper if lower is None else np.asarray(lower, dtype=float)
    return float(optimize.brentq(lambda e: exit_probabilities(lower, upper, t, e)[0].sum() - power, 0.0, 40.0,
                                 xtol=1e-10))


def futility_bounds(t, upper, drift: float, spending: str = "obf", final: bool = True) -> tuple[np.ndarray, float]:
    """Non-binding futility bounds b_k (stop when Z_k < b_k, Z oriented so that the claim's
    expected direction is positive) by β-spending at ``drift`` η₁ (the drift of the effect
    the claim is powered against), and the total β spent.

    β = 1 − P_η₁(upper exit) of the efficacy bounds ``upper`` (lower −upper) at the looks'
    fractions ``t`` with t_K = 1; b_k solves P_η₁(b_j ≤ Z_j < c_j, j < k; Z_k < b_k) =
    β(t_k) − β(t_{k−1}), β(·) the spending shape at level β. With ``final`` the last look's
    bound is c_K (what does not cross is not significant). A bound above c_k is set to c_k.
    ``t`` is the planned design (t_K = 1); a run at look k reads b_k."""
    t, c = _check_t(t), np.asarray(upper, dtype=float)
    if abs(t[-1] - 1.0) > 1e-9:
        raise ValueError("futility_bounds needs the planned looks up to the maximum (t_K = 1): beta is the "
                         "power the maximum leaves")
    beta = float(np.clip(1.0 - exit_probabilities(-c, c, t, drift)[0].sum(), 0.0, 1.0))
    spend = SPENDING[spending](t, beta)
    inc = np.diff(np.concatenate([[0.0], spend]))
    b = np.empty(t.size)
    for k in range(t.size):
        if final and k == t.size - 1:
            b[k] = c[k]
            break

        def below(bk, k=k):
            lo = np.concatenate([b[:k], [bk]])
            return exit_probabilities(lo, c[:k + 1], t[:k + 1], drift)[1][k]
        if inc[k] <= 0:
            b[k] = -np.inf
            continue
        lo_c, hi_c = -40.0, float(c[k])
        if below(hi_c) <= inc[k]:
            b[k] = hi_c
        else:
            b[k] = float(optimize.brentq(lambda v: below(v) - inc[k], lo_c, hi_c, xtol=1e-10))
    return b, beta


def expected_fraction(t, upper, drift: float, futility=None) -> float:
    """E[n]/N: the expected fraction of the maximum at which the test stops, at ``drift``:
    Σ_k t_k·P(stop at k), stopping at an efficacy exit (±``upper``), at a futility exit
    (Z_k < ``futility_k``, when given: the futility bound is then acted on) or at the end.

    >>> t = np.arange(1, 6) / 5
    >>> round(expected_fraction(t, np.full(5, np.inf), 1.0), 3)
    1.0
    """
    t, c = _check_t(t), np.asarray(upper, dtype=float)
    lower = -c if futility is None else np.maximum(np.asarray(futility, dtype=float), -c)
    up, down = exit_probabilities(lower, c, t, drift)
    stop = up + down
    stop[-1] = 1.0 - stop[:-1].sum()
    return float(np.dot(t, stop))


def _upper_tail(t, upper, k: int, z: float, drift: float) -> float:
    """P_η(outcome ≥ (k, z)) under the stage-wise ordering: an upper exit at a look before k,
    or no exit before k and Z_k ≥ z. The ordering is total, so P_η(≤) = 1 − P_η(≥)."""
    c = np.asarray(upper, dtype=float)
    hi = np.concatenate([c[:k], [z]])
    up, _ = exit_probabilities(-hi, hi, t[:k + 1], drift)
    return float(up.sum())


def stagewise_p(t, upper, z: float) -> float:
    """Two-sided stage-wise adjusted p-value of stopping at the last look of ``t`` with
    statistic ``z``, the earlier looks' efficacy bounds ``upper`` (lower −upper): the
    outcomes more extreme upward are an upper exit at an earlier look and Z_k ≥ z at this one;
    p = min(1, 2·min(P_0(≥), P_0(≤))) (JT §8.4). At a single look it is the fixed test's p.

    >>> round(stagewise_p([1.0], [np.inf], 1.96), 4)
    0.05
    """
    t = _check_t(t)
    p_up = _upper_tail(t, upper, t.size - 1, float(z), 0.0)
    return float(min(1.0, 2.0 * min(p_up, 1.0 - p_up)))


def stagewise_ci(t, upper, z: float, level: float = 0.95) -> tuple[float, float, float]:
    """``(low, high, median-unbiased estimate)`` of the drift η at stopping at the last look
    of ``t`` with ``z`` (stage-wise ordering, JT §8.4): P_low(≥ outcome) = (1 − level)/2,
    P_high(≤ outcome) = (1 − level)/2, P_est(≥ outcome) = 1/2. In the units of a mean
    difference δ = η·σ/√N. At a single look it is the z interval z ± z_{1−a/2}.

    >>> [round(v, 3) for v in stagewise_ci([1.0], [np.inf], 2.0)]
    [0.04, 3.96, 2.0]
    """
    t = _check_t(t)
    k = t.size - 1
    a = (1.0 - level) / 2.0
    scale = np.sqrt(t[-1])
    span = (abs(z) + 12.0) / scale

    def root(target):
        return float(optimize.brentq(lambda e: _upper_tail(t, upper, k, z, e) - target, -span, span, xtol=1e-7))
    return root(a), root(1.0 - a), root(0.5)


def z_from_p(p, sign):
    """The z statistic of a two-sided p-value, signed: sign·Φ⁻¹(1 − p/2) (NaN p: NaN; arrays
    element-wise). A paired t-test's p over few trials becomes the z with the same p (its
    n − 1 degrees of freedom kept in the p-value); so does any test's.

    >>> round(z_from_p(0.05, -1), 3)
    -1.96
    """
    p = np.asarray(p, dtype=float)
    z = np.sign(sign) * _st.norm.isf(np.maximum(p, 1e-300) / 2.0)
    return float(z) if z.ndim == 0 else z


def look_sizes(max_trials: int, looks: int, first: int = 2) -> list[int]:
    """The trials at each of ``looks`` equally spaced looks of a run of at most
    ``max_trials``: round(N·k/K), at least ``first`` (a paired test needs two) and strictly
    increasing; fewer looks when the maximum cannot hold them.

    >>> look_sizes(100, 5), look_sizes(20, 4), look_sizes(5, 4)
    ([20, 40, 60, 80, 100], [5, 10, 15, 20], [2, 3, 4, 5])
    """
    out: list[int] = []
    for k in range(1, looks + 1):
        n = max(first, int(np.floor(max_trials * k / looks + 0.5)))
        if not out or n > out[-1]:
            out.append(min(n, max_trials))
    if out[-1] != max_trials:
        out.append(max_trials)
    return sorted(set(out))


@dataclass(frozen=True)
class Design:
    """A group-sequential design: ``looks`` equally spaced looks over at most ``max_trials``,
    two-sided level ``alpha`` spent with ``spending`` (α/2 per side), a non-binding futility
    bound by β-spending against the powered effect. :meth:`bounds` gives the efficacy bounds
    at the looks' fractions; :meth:`expected` the expected trials at a drift."""

    max_trials: int
    looks: int
    alpha: float
    spending: str = "obf"

    def sizes(self) -> list[int]:
        return look_sizes(self.max_trials, self.looks)

    def fractions(self) -> np.ndarray:
        return np.asarray(self.sizes(), dtype=float) / self.max_trials

    def bounds(self, alpha: float | None = None) -> np.ndarray:
        return efficacy_bounds(self.fractions(), self.alpha if alpha is None else alpha, self.spending)

    def expected(self, drift: float, alpha: float | None = None, futility: bool = True) -> float:
        """Expected trials at ``drift`` (the futility bound at that drift acted on)."""
        t = self.fractions()
        c = self.bounds(alpha)
        b = futility_bounds(t, c, drift, self.spending)[0] if futility and drift > 0 else None
        return self.max_trials * expected_fraction(t, c, drift, b)


#: what a claim's look decides (:class:`Monitor`)
CONTINUE, EFFICACY, CONTRADICTED, FUTILITY, MAXIMUM = "continue", "efficacy", "contradicted", "futility", "maximum"


@dataclass
class Monitor:
    """The group-sequential monitor of a run's claims: ``sizes`` (trials at each look, the last
    the maximum), two-sided level ``alpha`` per family, ``correction`` across the claims of a
    family, ``spending`` for the efficacy bounds (α/2 per side) and for β.

    At look k each open claim's statistic is z = s·Φ⁻¹(1 − p/2)·sign(value) (:func:`z_from_p`
    of its own test's two-sided p, oriented by its expected direction s), held to:

    * efficacy ±c_k(α_i): beyond +c_k it is settled ``efficacy`` (the expected direction),
      beyond −c_k ``contradicted``;
    * futility b_k (non-binding, :func:`futility_bounds` at the drift η₁ = |effect|·√N/SD of
      the effect the claim is powered against, SD that of its per-trial statistic at this
      look): z < b_k settles it ``futility``; at the last look b_K = c_K, and an open claim is
      settled ``maximum``. A claim without an effect has no futility bound.

    The correction (Holm; ``bh`` is run as Holm, whose family-wise control implies the false
    discovery rate's): a graphical sequentially rejective procedure for group-sequential
    designs (Maurer & Bretz 2013, Stat. Biopharm. Res. 5:311) — each open claim of a family of
    m is tested at α_i = α/(m − r), r the claims of the family rejected so far (efficacy or
    contradicted); a rejection at this look recycles its level to the others at this look and
    the next (re-examining only the current look: a subset of the procedure's rejections, so
    the family-wise error stays ≤ α). ``none``: each claim at α. A settled claim stays settled.

    Power and futility (``law``): by default under the law of the looks' t-tests
    (:class:`~ltrrepro.inference.tlaw.TLaw`, simulated: z from a t over n_k − 1 degrees of
    freedom falls below the normal drift at 5–20 trials), ``normal`` the known-σ model above;
    the design's power is given with its range over the 95% CI of the look's SD
    (``power_range``). A look whose efficacy bound a t over its trials cannot reach in practice
    is marked futility-only in its row (:func:`~ltrrepro.inference.tlaw.futility_only`).

    At settling: the stage-wise adjusted p (:func:`stagewise_p` under the claim's bounds at
    α_i), the stage-wise 95% CI and median-unbiased estimate (:func:`stagewise_ci`) in the
    claim's units (δ = η·√t_k·SE_k, SE_k from :meth:`standard_error`), and the design's power
    at the effect."""

    sizes: list
    alpha: float
    correction: str = "holm"
    spending: str = "obf"
    inference: bool = True                 # stage-wise p, CI and power at settling (off: decisions only)
    law: str = "t"                         # power and futility: "t" (the looks' t-tests, simulated) or "normal"
    decisions: dict = None                 # key -> the settling look's record
    rows: list = None                      # one per claim and look

    def __post_init__(self):
        self.sizes = [int(n) for n in self.sizes]
        self.t = np.asarray(self.sizes, dtype=float) / self.sizes[-1]
        self.decisions = {} if self.decisions is None else self.decisions
        self.rows = [] if self.rows is None else self.rows
        self._bounds: dict = {}

    @property
    def max_trials(self) -> int:
        return self.sizes[-1]

    def bounds(self, alpha: float) -> np.ndarray:
        key = round(float(alpha), 15)
        if key not in self._bounds:
            self._bounds[key] = efficacy_bounds(self.t, alpha, self.spending)
        return self._bounds[key]

    def _level(self, family_size: int, rejected: int) -> float:
        if self.correction == "none":
            return self.alpha
        return self.alpha / max(1, family_size - rejected)

    def look(self, k: int, claims: list) -> list:
        """Decide look ``k`` (0-based) for ``claims``: dicts with ``key``, ``p`` (its own
        test's two-sided p), ``value``, ``sign`` (expected direction), ``sd`` and ``n`` of the
        per-trial statistic, ``effect`` (NaN: none), ``family`` (None: a family of its own).
        Returns this look's rows."""
        last = k == len(self.sizes) - 1
        families: dict = {}
        for c in claims:
            families.setdefault(c["family"] if c.get("family") is not None else ("own", c["key"]), []).append(c)
        rows = []
        for members in families.values():
            m = len(members)
            rejected = sum(self.decisions.get(c["key"], {}).get("stop") in (EFFICACY, CONTRADICTED) for c in members)
            open_ = [c for c in members if c["key"] not in self.decisions]
            z = {c["key"]: float(c["sign"]) * z_from_p(c["p"], c["value"]) for c in members}
            changed = True
            while changed:                    # rejections recycle their level within the family
                changed = False
                for c in open_:
                    a = self._level(m, rejected)
                    zc, ck = z[c["key"]], self.bounds(a)[k]
                    if np.isfinite(zc) and abs(zc) >= ck:
                        self._settle(k, c, zc, EFFICACY if zc > 0 else CONTRADICTED, a, ck, np.nan)
                        rejected += 1
                        changed = True
                open_ = [c for c in open_ if c["key"] not in self.decisions]
            for c in open_:
                a = self._level(m, rejected)
                zc, c_all = z[c["key"]], self.bounds(a)
                b = self.futility(c, c_all)[k]
                if last:
                    self._settle(k, c, zc, MAXIMUM, a, c_all[k], b)
                elif np.isfinite(zc) and zc < b:
                    self._settle(k, c, zc, FUTILITY, a, c_all[k], b)
                else:
                    rows.append(self._row(k, c, zc, CONTINUE, a, c_all[k], b))
            rows += [self._row(k, c, z[c["key"]], self.decisions[c["key"]]["stop"], self.decisions[c["key"]]["alpha"],
                               self.decisions[c["key"]]["bound"], self.decisions[c["key"]]["futility_bound"])
                     for c in members if self.decisions.get(c["key"], {}).get("look") == k + 1]
        self.rows += rows
        return rows

    def futility(self, c, c_all) -> np.ndarray:
        """The claim's futility bounds at its drift (:meth:`drift`; −inf where it has none):
        under the t law (:meth:`~ltrrepro.inference.tlaw.TLaw.futility`, the default) or the
        normal model (:func:`futility_bounds`)."""
        eta1 = self.drift(c)
        if not np.isfinite(eta1):
            return np.full(len(self.sizes), -np.inf)
        if self.law == "t":
            return t_law(tuple(self.sizes)).futility(eta1 / np.sqrt(self.max_trials), c_all, self.spending)[0]
        return futility_bounds(self.t, c_all, eta1, self.spending)[0]

    def power(self, c, c_all, sd=None) -> float:
        """The design's power at the claim's effect (at its SD, or ``sd``): P(an upper efficacy
        exit) — under the t law (the default) with the futility bound acted on at each look's
        observed SD, as the run is monitored; under the normal model the efficacy bounds alone;
        NaN without an effect."""
        eta1 = self.drift(c if sd is None else {**c, "sd": sd})
        if not np.isfinite(eta1):
            return float("nan")
        if self.law == "t":
            return t_law(tuple(self.sizes)).power(eta1 / np.sqrt(self.max_trials), c_all, acted=True,
                                                  spending=self.spending)
        return float(exit_probabilities(-c_all, c_all, self.t, eta1)[0].sum())

    def drift(self, c) -> float:
        """η₁ = |effect|·√N/SD: the drift of the claim's powered effect at the maximum (NaN: none)."""
        eff, sd = float(c.get("effect", np.nan)), float(c.get("sd", np.nan))
        if not (np.isfinite(eff) and eff != 0 and np.isfinite(sd) and sd > 0):
            return float("nan")
        return abs(eff) * np.sqrt(self.max_trials) / sd

    @staticmethod
    def standard_error(c, z: float) -> float:
        """The standard error of the claim's mean on the z scale: |value|/|z| — the SE that
        gives its own test's p (for the t-test, SD/√n·t/z: the t's heavier tail over n − 1
        df kept, so the CI excludes 0 exactly when the test rejects); SD/√n·t_{.975,n−1}/z_{.975}
        where value or z is 0; NaN without an SD."""
        value, sd, n = float(c["value"]), float(c.get("sd", np.nan)), int(c.get("n", 0))
        if np.isfinite(z) and z != 0 and np.isfinite(value) and value != 0:
            return abs(value) / abs(z)
        if np.isfinite(sd) and sd > 0 and n >= 2:
            return sd / np.sqrt(n) * _st.t.ppf(0.975, n - 1) / _st.norm.ppf(0.975)
        return float("nan")

    def _row(self, k, c, z, stop, a, ck, b) -> dict:
        only, need = futility_only(self.sizes[k], ck)
        return {"claim": c["key"], "look": k + 1, "trials": self.sizes[k], "z": z, "efficacy_bound": ck,
                "futility_bound": b, "alpha": a, "decision": stop,
                "note": f"futility-only (efficacy needs d_z ≥ {need:.3g})" if only else ""}

    def _settle(self, k, c, z, stop, a, ck, b) -> None:
        t, c_all = self.t[:k + 1], self.bounds(a)
        rec = {"look": k + 1, "trials": self.sizes[k], "stop": stop, "z": z, "bound": float(ck),
               "futility_bound": float(b), "alpha": float(a), "p_stagewise": float("nan"), "ci": None,
               "estimate": float("nan"), "power": float("nan"), "power_range": None, "law": self.law}
        self.decisions[c["key"]] = rec
        if not self.inference:
            return
        se = self.standard_error(c, z)
        if np.isfinite(z):
            rec["p_stagewise"] = stagewise_p(t, c_all, z)
            if np.isfinite(se):
                low, high, est = stagewise_ci(t, c_all, z)
                s, scale = float(c["sign"]), se * np.sqrt(t[-1])
                ends = sorted((s * low * scale, s * high * scale))
                rec["ci"], rec["estimate"] = (float(ends[0]), float(ends[1])), float(s * est * scale)
        rec["power"] = self.power(c, self.bounds(a))
        sd, n = float(c.get("sd", np.nan)), int(c.get("n", 0))
        if np.isfinite(rec["power"]) and np.isfinite(sd) and sd > 0 and n >= 2:   # the SD's uncertainty
            from .power import sd_interval
            lo, hi = sd_interval(sd, n)
            rec["power_range"] = (self.power(c, self.bounds(a), hi), self.power(c, self.bounds(a), lo))

    def done(self, keys) -> bool:
        """Every claim of ``keys`` is settled."""
        return all(k in self.decisions for k in keys)


#: the relative excess of a design's real α over its nominal α beyond which a run is warned
ALPHA_TOLERANCE = 0.10


@lru_cache(maxsize=32)
def real_alpha(sizes: tuple, alpha: float, spending: str = "obf", runs: int = 200_000) -> float:
    """The two-sided type I error of a design whose looks are paired t-tests at ``sizes``,
    bounds at ``alpha`` (:meth:`TLaw.type_one`, ``runs`` null draws: SE √(α(1−α)/runs), 0.0002
    at α = 0.01). About 1.13α at a maximum of 5 trials (4 or 5 looks), 1.09α at 10 with 5 looks, 1.03α at 20
    (α = 0.01; at α = 0.05: 1.15α, 1.09α, 1.05α)."""
    n = np.asarray(sizes, dtype=float)
    return TLaw(sizes, runs=runs).type_one(efficacy_bounds(n / n[-1], alpha, spending))


def alpha_warning(sizes, alpha: float) -> str | None:
    """A warning when the design's real α (:func:`real_alpha`) exceeds α by more than
    :data:`ALPHA_TOLERANCE` (relative), with the measured figure; None when it keeps α.

    >>> alpha_warning([2, 3, 4, 5], 0.01).split(";")[0]
    '--max-trials 5 with 4 looks keeps α = 0.01 only to within 12% (its t-tests reject a true null 0.0112 of the time)'
    >>> alpha_warning([4, 8, 12, 16, 20], 0.01) is None
    True
    """
    real = real_alpha(tuple(int(n) for n in sizes), float(alpha))
    if real <= alpha * (1 + ALPHA_TOLERANCE):
        return None
    return (f"--max-trials {sizes[-1]} with {len(sizes)} looks keeps α = {alpha:g} only to within "
            f"{real / alpha - 1:.0%} (its t-tests reject a true null {real:.3g} of the time); a maximum of 10 "
            f"or more keeps it within {ALPHA_TOLERANCE:.0%}")
