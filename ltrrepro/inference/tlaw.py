"""The law of a group-sequential run's look statistics when each look is a paired t-test over
the trials so far (the harness's ``--trials auto``), simulated: what
:mod:`~ltrrepro.inference.sequential`'s normal model (known σ) does not see.

At look k the monitor converts the t-test's two-sided p over n_k trials (n_k − 1 degrees of
freedom, the SD estimated from those trials) into z = sign(d̄)·Φ⁻¹(1 − p/2)
(:func:`~ltrrepro.inference.sequential.z_from_p`). Under no effect each z_k is exactly
standard normal, but under an effect δ the t's noncentral law (its SD estimated from 5–20
trials) puts z below the drift η√t_k the normal model assumes — at ``--max-trials 20 --looks
4`` a stated normal-law power of 0.80 is really about 0.67 — and the looks' joint law is not
the Brownian one, so the type I error drifts above α at small maxima.

:class:`TLaw` draws that law exactly, from the sufficient statistics of normal differences with
standardized mean d = δ/σ (the law depends on nothing else): per segment j between looks (m_j
trials), the segment mean d + Z_j/√m_j (Z_j standard normal) and the within-segment sum of
squares χ²_{m_j − 1}; the look's mean, SD and t follow by pooling. ``runs`` draws from a fixed
``seed`` (20,000 by default: a Monte Carlo SE of 0.003 on a power of 0.8), the same draws at
every d, so power is a smooth function of d and a report is reproducible. From it:

* :meth:`TLaw.power` — P(an upper efficacy exit) of bounds ±c at d: the design power;
* :meth:`TLaw.futility` — the non-binding futility bounds by β-spending at d (as
  :func:`~ltrrepro.inference.sequential.futility_bounds`, the spent probabilities counted on
  the draws): b_k is the β(t_k) − β(t_{k−1}) quantile of z_k among the draws still open;
* :meth:`TLaw.type_one` — P(any |z_k| ≥ c_k) at d = 0: the run's real α.

The rank and permutation tests are held to the same law (an approximation: see
:func:`~ltrrepro.inference.power.paired_power`).
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np
from scipy import special
from scipy import stats as _st

from .spending import SPENDING

__all__ = ["TLaw", "RUNS", "SEED", "futility_only", "FUTILITY_ONLY_DZ", "t_law"]

RUNS, SEED = 20_000, 20_201
#: the standardized effects (δ/SD observed) of the futility tables; beyond the last the bound is the last's
GRID = np.linspace(0.0, 4.0, 41)
#: an efficacy stop that needs an observed d_z (mean / SD of the differences) beyond this is
#: out of reach: the look is futility-only
FUTILITY_ONLY_DZ = 5.0


class TLaw:
    """The simulated law of the looks' z statistics of paired t-tests at cumulative ``sizes``
    (see the module docstring)."""

    def __init__(self, sizes, runs: int = RUNS, seed: int = SEED):
        self.sizes = np.asarray([int(n) for n in sizes])
        if self.sizes.size == 0 or self.sizes[0] < 2 or np.any(np.diff(self.sizes) <= 0):
            raise ValueError(f"look sizes must increase strictly from 2, got {self.sizes.tolist()}")
        self.m = np.diff(np.concatenate([[0], self.sizes]))
        rng = np.random.default_rng(seed)
        self.z_seg = rng.standard_normal((runs, self.m.size))
        self.chi = np.stack([rng.chisquare(m - 1, runs) if m > 1 else np.zeros(runs) for m in self.m], axis=1)
        self.runs = runs
        self._tables: dict = {}

    def z(self, d: float) -> np.ndarray:
        """(runs, looks): z = sign(t)·Φ⁻¹(1 − p/2) of each look's paired t-test at standardized effect ``d``."""
        return self._stats(d)[0]

    def _stats(self, d: float) -> tuple[np.ndarray, np.ndarray]:
        """(z, the look's SD in units of σ), each (runs, looks), at standardized effect ``d``."""
        seg_mean = d + self.z_seg / np.sqrt(self.m)
        n = self.sizes.astype(float)
        mean = np.cumsum(self.m * seg_mean, axis=1) / n
        ss = np.cumsum(self.chi, axis=1) + np.cumsum(self.m * seg_mean ** 2, axis=1) - n * mean ** 2
        sd = np.sqrt(np.maximum(ss, 1e-300) / (n - 1))
        t = mean / (sd / np.sqrt(n))
        tail = special.stdtr(n - 1, -np.abs(t))
        return np.sign(t) * -special.ndtri(np.maximum(tail, 1e-300)), sd

    def futility_table(self, upper, spending: str = "obf") -> tuple[np.ndarray, np.ndarray]:
        """(grid of standardized effects, futility bounds at each: rows) for bounds ±``upper``,
        computed once per bounds (:data:`GRID`)."""
        key = (tuple(np.round(np.asarray(upper, dtype=float), 12)), spending)
        if key not in self._tables:
            rows = [self.futility(d, upper, spending)[0] if d > 0 else np.full(self.sizes.size, -np.inf)
                    for d in GRID]
            self._tables[key] = GRID, np.array(rows)
        return self._tables[key]

    def _first_exit(self, z, upper, lower=None):
        """Per draw: the look of the first exit (K: none) and whether it is an upper efficacy exit."""
        c = np.asarray(upper, dtype=float)
        lo = -c if lower is None else np.maximum(np.asarray(lower, dtype=float), -c)
        out = (z >= c) | (z < lo) | (z <= -c)
        first = np.where(out.any(1), out.argmax(1), z.shape[1])
        up = np.zeros(z.shape[0], bool)
        hit = first < z.shape[1]
        up[hit] = z[hit, first[hit]] >= c[first[hit]]
        return first, up

    def power(self, d: float, upper, lower=None, acted: bool = False, spending: str = "obf") -> float:
        """P(an upper efficacy exit) at standardized effect ``d`` with bounds ±``upper``:
        ``lower`` a futility bound acted on; ``acted``: the claim's futility bound acted on as
        the monitor does — at each look at the effect over the SD observed then
        (:meth:`futility_table`, interpolated) — the power of the protocol as run."""
        if not acted:
            return float(self._first_exit(self.z(abs(d)), upper, lower)[1].mean())
        return float(self.exits(d, upper, spending=spending)[1].mean())

    def exits(self, d: float, upper, powered: float | None = None, spending: str = "obf"):
        """Per draw at standardized effect ``d``: (the look of its first exit, K where none;
        whether it is an upper efficacy exit), the futility bound of a claim powered against
        ``powered`` (default ``d``) acted on at each look's observed SD, as the monitor does
        (:meth:`futility_table`, interpolated at ``powered`` / the look's SD)."""
        z, sd = self._stats(abs(d))
        grid, table = self.futility_table(upper, spending)
        obs = np.clip(abs(d if powered is None else powered) / sd, grid[0], grid[-1])
        low = np.stack([np.interp(obs[:, k], grid, table[:, k]) for k in range(z.shape[1])], axis=1)
        c = np.asarray(upper, dtype=float)
        out = (z >= c) | (z <= -c) | (z < low)
        first = np.where(out.any(1), out.argmax(1), z.shape[1])
        hit = first < z.shape[1]
        up = np.zeros(z.shape[0], bool)
        up[hit] = z[hit, first[hit]] >= c[first[hit]]
        return first, up

    def expected(self, d: float, upper, powered: float, spending: str = "obf") -> float:
        """Expected trials at standardized effect ``d`` of a claim powered against ``powered``
        (its futility bound acted on, :meth:`exits`): the mean over the draws of the look size
        at which it stops, the maximum where it runs to the end — the t law's counterpart of
        :func:`~ltrrepro.inference.sequential.expected_fraction` × the maximum."""
        first = self.exits(d, upper, powered, spending)[0]
        return float(self.sizes[np.minimum(first, self.sizes.size - 1)].mean())

    def effect_for_power(self, upper, power: float = 0.9, spending: str = "obf") -> float:
        """The standardized effect d at which :meth:`power` (futility acted on) is ``power``:
        the design effect of a claim powered ``power`` at the maximum under the t law."""
        from scipy import optimize
        f = lambda d: self.power(d, upper, acted=True, spending=spending) - power  # noqa: E731
        hi = float(GRID[-1])
        return float(optimize.brentq(f, 1e-6, hi, xtol=1e-6)) if f(hi) > 0 else hi

    def type_one(self, upper) -> float:
        """P(|z_k| ≥ c_k at some look) under no effect: the run's real two-sided α."""
        c = np.asarray(upper, dtype=float)
        return float((np.abs(self.z(0.0)) >= c).any(1).mean())

    def futility(self, d: float, upper, spending: str = "obf") -> tuple[np.ndarray, float]:
        """Non-binding futility bounds b_k at standardized effect ``d`` by β-spending on the
        draws, with β = 1 − :meth:`power` (the efficacy bounds alone) and b_K = c_K; the
        total β. As :func:`~ltrrepro.inference.sequential.futility_bounds` under the t law."""
        c = np.asarray(upper, dtype=float)
        z = self.z(abs(d))
        beta = 1.0 - float(self._first_exit(z, c)[1].mean())
        t = self.sizes / self.sizes[-1]
        inc = np.diff(np.concatenate([[0.0], SPENDING[spending](t, beta)]))
        b = np.full(c.size, -np.inf)
        open_ = np.ones(self.runs, bool)
        for k in range(c.size):
            if k == c.size - 1:
                b[k] = c[k]
                break
            open_ &= np.abs(z[:, k]) < c[k]           # efficacy exits at this look leave first
            want = int(round(inc[k] * self.runs))
            zs = np.sort(z[open_, k])
            if want > 0 and zs.size:
                b[k] = min(float(zs[min(want, zs.size) - 1]) + 1e-12, float(c[k]))
            open_ &= ~(z[:, k] < b[k])
        return b, float(beta)


@lru_cache(maxsize=32)
def t_law(sizes: tuple) -> TLaw:
    """The :class:`TLaw` of ``sizes`` (a tuple), built once per process (its draws are fixed)."""
    return TLaw(sizes)


def futility_only(n: int, bound: float, test: str = "t") -> tuple[bool, float]:
    """Whether a look over ``n`` trials cannot stop for efficacy at z bound ``bound``, and the
    observed d_z such a stop needs: the t over n − 1 df with the bound's two-sided p
    (t = t_{n−1}^{-1}(1 − Φ(−c))) divided by √n; futility-only when that d_z exceeds
    :data:`FUTILITY_ONLY_DZ` or (rank and permutation tests) the test's smallest p over n trials
    is above the bound's.

    Look 1 of ``--max-trials 20 --looks 4`` (5 trials) at α/6, a family of six claims at α = 0.01:
    the bound 6.58 needs t₄ ≥ 598, d_z ≥ 268:

    >>> from ltrrepro.inference.sequential import efficacy_bounds
    >>> c = efficacy_bounds([0.25, 0.5, 0.75, 1.0], 0.01 / 6)
    >>> ok, need = futility_only(5, c[0])
    >>> ok, round(need), futility_only(10, c[1])[0]
    (True, 268, False)
    """
    from .tests import min_p
    p = 2.0 * _st.norm.sf(bound)
    if not np.isfinite(bound):
        return True, float("inf")
    need = float(_st.t.isf(p / 2.0, n - 1) / np.sqrt(n))
    return bool(need > FUTILITY_ONLY_DZ or min_p(n, test) > p), need
