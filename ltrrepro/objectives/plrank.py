"""PL-Rank-3 with Kang et al.'s sampled Hessian: the expected DCG@K of a Plackett–Luce policy.

The policy ranks a list of m documents with scores f by drawing without replacement, each
step in proportion to e^{f}. For one sampled ranking y (y_k the document at 0-based rank k,
K' = min(K, m)), with rank weights θ_k = 1 / log2(k + 2), gains r_d = 2^{label_d} − 1
(Oosterhuis 2022; Kang et al. 2024)::

    D_k  = Σ_{d ∉ y_{<k}} e^{f_d}                  the mass left at rank k
    G_k  = Σ_{x ≥ k} θ_x r_{y_x}   (G_{K'} = 0)     the reward from rank k on
    DR_k = Σ_{j ≤ k} θ_j / D_j,    RI_k = Σ_{j ≤ k} G_j / D_j
    DS_k = Σ_{j ≤ k} θ_j / D_j²,   RS_k = Σ_{j ≤ k} G_j / D_j²,   C_k = Σ_{j ≤ k} 1 / D_j

and for each document d, κ = its rank if it is in the top K', else K' − 1 (PR = G_{κ+1} if
it is ranked, else 0; 1[d ∈ y] whether it is)::

    g_d   = 1[d ∈ y] − e^{f_d} C_κ                   ∂ log π(y_{<K'}) / ∂f_d
    Φ_d   = PR + e^{f_d} (r_d DR_κ − RI_κ)            PL-Rank-3's one-sample gradient
    Ψ_d   = PR · g_d + (Φ_d − PR)(1 + g_d) − e^{2 f_d} (r_d DS_κ − RS_κ)

R(f) = E_y[Σ_k θ_k r_{y_k}] is the expected DCG@K. E[Φ_d] = ∂R/∂f_d (Oosterhuis 2022, PL-Rank-3),
and, differentiating that identity once more (∂/∂f_d E[Φ] = E[Φ g_d] + E[∂Φ/∂f_d]),
E[Ψ_d] = ∂²R/∂f_d² (Kang et al. 2024's diagonal Hessian estimator). Both are averaged over the
same ``n_samples`` rankings and returned negated — objectives here minimise, −R — as
``grad = −mean Φ`` and ``hess = −mean Ψ`` (what the authors' ``plrank3obj`` hands XGBoost).

The Hessian of −R is not sign-constrained; ``hessian_policy`` says what the library gets:
``"none"`` (the authors': the estimate as it is, negative entries included — XGBoost accepts
it; LightGBM's adapter refuses it, see :class:`PLRank`), ``"clip"`` (max(h, ``hess_floor``)) or
``"abs"`` (max(|h|, ``hess_floor``)).

Sampling is the Gumbel trick in its exponential-race form: d's key is E_d e^{−f_d} with
E_d = −log U_d ~ Exp(1), and the ranking sorts keys ascending — the order of f_d + G_d with
G_d = −log E_d Gumbel, one logarithm per draw instead of two. The uniforms come from
SplitMix64 (Vigna's 64-bit mixer) keyed per list by one integer the round's generator
draws, so a list's rankings depend only on that key, never on threads or the other lists.
Scores more than 300 below a list's maximum are raised to it (their probability, < e^{−300},
is below any sample's resolution) so that 1/D_k² stays finite. Lists of one document get 0.
References: [Oosterhuis 2022] (arXiv 2204.10872, PL-Rank-3), [Kang et al. 2024] (arXiv
2404.12190; code ``jkang98/2024-SIGIR-XGBoost-PL-Rank``, read, not copied), in docs/references.md.
"""
from __future__ import annotations

import math

import numba
import numpy as np

from .base import HESS_FLOOR, Objective, as_arrays

__all__ = ["PLRank", "plrank3_kernel", "HESSIAN_POLICIES"]

#: what the library receives of the sampled Hessian (see the module docstring)
HESSIAN_POLICIES = ("none", "clip", "abs")

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_S30, _S27, _S31, _S11 = np.uint64(30), np.uint64(27), np.uint64(31), np.uint64(11)
_FLOOR_GAP = 300.0


@numba.njit(cache=True, nogil=True, inline="always")
def _uniform(z):
    """SplitMix64: the next state and a uniform in (0, 1) (53 bits, never 0 or 1)."""
    z = z + _GOLDEN
    x = z
    x = (x ^ (x >> _S30)) * _M1
    x = (x ^ (x >> _S27)) * _M2
    x = x ^ (x >> _S31)
    return z, ((x >> _S11) + 0.5) * (1.0 / 9007199254740992.0)


@numba.njit(parallel=True, cache=True)
def plrank3_kernel(scores, gains, offsets, theta, n_samples, keys, grad, hess, ex, inv_ex, rk):
    """Fill ``grad``/``hess`` with the sample means of Φ and Ψ (the module docstring: ∂R and
    ∂²R, not yet negated) over ``n_samples`` rankings per list; ``keys[q]`` seeds list q.
    ``ex``, ``inv_ex`` and ``rk`` (float, n) are work arrays; ``theta`` the K rank weights."""
    nq = offsets.shape[0] - 1
    for q in numba.prange(nq):
        a, b = offsets[q], offsets[q + 1]
        m = b - a
        for i in range(a, b):
            grad[i] = 0.0
            hess[i] = 0.0
        if m <= 1:
            continue
        K = min(theta.shape[0], m)
        c = scores[a]
        for i in range(a + 1, b):
            if scores[i] > c:
                c = scores[i]
        total = 0.0
        for i in range(a, b):
            ex[i] = math.exp(max(scores[i] - c, -_FLOOR_GAP))
            inv_ex[i] = 1.0 / ex[i]
            total += ex[i]
        top = np.empty(K, np.int64)
        tkey = np.empty(K)
        D = np.empty(K)
        G = np.empty(K + 1)
        sdr = sri = sdrc = sric = sds = srs = 0.0
        z = keys[q]
        for s in range(n_samples):
            # race keys E/e^f, the K smallest kept sorted by insertion as they come (a key at or
            # above the K-th so far is passed over). Sampling and selection alone on Yahoo-sized
            # lists, quickselect, K argmin passes and a branch-free count of ranks took 1.2-2.3x as
            # long; in the whole kernel the choice was within a loaded host's noise
            cnt = 0
            for i in range(a, b):
                z, u = _uniform(z)
                key = -math.log(u) * inv_ex[i]
                rk[i] = key
                if cnt < K:
                    j = cnt
                    cnt += 1
                elif key < tkey[K - 1]:
                    j = K - 1
                else:
                    continue
                while j > 0 and tkey[j - 1] > key:
                    tkey[j] = tkey[j - 1]
                    top[j] = top[j - 1]
                    j -= 1
                tkey[j] = key
                top[j] = i
            # the mass left after the top K: by difference, or summed afresh where that loses
            # more than three digits
            tail = total
            for k in range(K):
                tail -= ex[top[k]]
            if tail < 1e-3 * total:
                for k in range(K):
                    rk[top[k]] = np.inf
                tail = 0.0
                for i in range(a, b):
                    tail += ex[i] if rk[i] != np.inf else 0.0
            acc = tail
            G[K] = 0.0
            for k in range(K - 1, -1, -1):
                acc += ex[top[k]]
                D[k] = acc
                G[k] = G[k + 1] + theta[k] * gains[top[k]]
            dr = ri = ds = rs = cc = 0.0
            for k in range(K):
                inv = 1.0 / D[k]
                inv2 = inv * inv
                dr += theta[k] * inv
                ri += G[k] * inv
                ds += theta[k] * inv2
                rs += G[k] * inv2
                cc += inv
                d = top[k]
                e = ex[d]
                r = gains[d]
                g = 1.0 - e * cc
                sp = e * (r * dr - ri)
                grad[d] += G[k + 1] + sp
                hess[d] += G[k + 1] * g + sp * (1.0 + g) - e * e * (r * ds - rs)
            # the documents left out: the same terms at κ = K − 1, added for every document below
            # from the sums over samples, so a ranked document's share of those is taken off here
            for k in range(K):
                d = top[k]
                e = ex[d]
                r = gains[d]
                sp = e * (r * dr - ri)
                grad[d] -= sp
                hess[d] -= sp * (1.0 - e * cc) - e * e * (r * ds - rs)
            sdr += dr
            sri += ri
            sdrc += dr * cc
            sric += ri * cc
            sds += ds
            srs += rs
        inv_n = 1.0 / n_samples
        for i in range(a, b):
            e = ex[i]
            r = gains[i]
            sp = e * (r * sdr - sri)
            grad[i] = (grad[i] + sp) * inv_n
            hess[i] = (hess[i] + sp - e * e * (r * sdrc - sric) - e * e * (r * sds - srs)) * inv_n


class PLRank(Objective):
    """PL-Rank-3 (Oosterhuis 2022) with Kang et al. 2024's sampled diagonal Hessian: gradient
    and Hessian of −E[DCG@``cutoff``] under the Plackett–Luce policy of the scores, from
    ``n_samples`` rankings per list per round (the same rankings for both), the rankings drawn
    from the round's ``rng`` (one key per list). See the module docstring for the formulas.

    ``hessian_policy``: ``"none"`` (default, the authors' — XGBoost receives the raw estimate,
    negative entries included), ``"clip"`` or ``"abs"`` (floored at ``hess_floor``).
    :attr:`negative_hessians` tells the adapters that ``"none"`` may hand negative values:
    XGBoost takes them (its leaves with a Hessian sum ≤ 0 or below ``min_child_weight`` are not
    split / get weight 0); LightGBM's adapter refuses them with one error line.

    Two documents, labels (1, 0), equal scores, K = 2: the policy puts either first with
    probability ½, R = ½ (1 + 1/log2 3); ∂R/∂f_1 = ½ · ½ · (1 − 1/log2 3) = 0.0923, so
    ``grad`` ≈ (−0.092, +0.092) (a sampled estimate: exact only as N grows):

    >>> g, h = PLRank(n_samples=100000, cutoff=2).grad_hess([0.0, 0.0], [1, 0], [0, 2],
    ...                                                     rng=np.random.default_rng(0))
    >>> g.round(2).tolist()
    [-0.09, 0.09]
    """

    name = "plrank"
    stochastic = True

    def __init__(self, n_samples: int = 200, cutoff: int = 10, hessian_policy: str = "none",
                 hess_floor: float = HESS_FLOOR):
        if not isinstance(n_samples, (int, np.integer)) or n_samples < 1:
            raise ValueError("n_samples must be an integer >= 1")
        if not isinstance(cutoff, (int, np.integer)) or cutoff < 1:
            raise ValueError("cutoff must be an integer >= 1")
        if hessian_policy not in HESSIAN_POLICIES:
            raise ValueError(f"hessian_policy: one of {', '.join(HESSIAN_POLICIES)}, not {hessian_policy!r}")
        if not hess_floor > 0:
            raise ValueError("hess_floor must be > 0")
        self.n_samples = int(n_samples)
        self.cutoff = int(cutoff)
        self.hessian_policy = hessian_policy
        self.hess_floor = float(hess_floor)

    @property
    def negative_hessians(self) -> bool:
        """Whether :meth:`grad_hess` may return negative Hessians (``hessian_policy="none"``)."""
        return self.hessian_policy == "none"

    def expected(self, scores, labels, offsets, rng, keys=None):
        """(∂R, ∂²R): the sample means of Φ and Ψ, not negated and with no policy applied."""
        scores, labels, offsets = as_arrays(scores, labels, offsets)
        nq = offsets.shape[0] - 1
        if keys is None:
            if rng is None:
                raise ValueError("PL-Rank samples rankings at every iteration: pass a seeded np.random.Generator")
            keys = rng.integers(0, np.iinfo(np.int64).max, size=nq, dtype=np.int64)
        keys = np.asarray(keys, np.int64).view(np.uint64)
        gains = 2.0 ** np.arange(int(labels.max(initial=0)) + 1, dtype=np.float64) - 1.0
        theta = 1.0 / np.log2(np.arange(self.cutoff, dtype=np.float64) + 2.0)
        n = scores.shape[0]
        grad, hess = np.empty(n), np.empty(n)
        plrank3_kernel(scores, gains[labels], offsets, theta, self.n_samples, keys, grad, hess,
                       np.empty(n), np.empty(n), np.empty(n))
        return grad, hess

    def grad_hess(self, scores, labels, offsets, iteration=0, rng=None, keys=None):
        """(−∂R, policy(−∂²R)) from the rankings of this round; ``keys`` (one int64 per list)
        replaces the draw from ``rng`` (tests, benchmarks)."""
        d1, d2 = self.expected(scores, labels, offsets, rng, keys)
        grad, hess = -d1, -d2
        if self.hessian_policy == "clip":
            np.maximum(hess, self.hess_floor, out=hess)
        elif self.hessian_policy == "abs":
            np.maximum(np.abs(hess, out=hess), self.hess_floor, out=hess)
        return grad, hess
