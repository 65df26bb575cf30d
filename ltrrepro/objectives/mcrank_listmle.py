"""McRank (K-class softmax boosting) and ListMLE / p-ListMLE.

McRank (Li, Burges, Wu 2007; Xia et al. §3): one tree per class per round on the
multinomial log-likelihood, p_k = softmax(F)_k; grad_k = p_k − 1[y = k],
hess_k = p_k (1 − p_k) (the diagonal; LightGBM's built-in multiclass scales it by
K / (K − 1), which here is the ``hess_factor`` option). Documents are ranked by the
expected relevance Σ_k k · p_k (:func:`mcrank_scores`).

ListMLE (Xia et al. 2008; Stratos §3.1): with the list sorted by label (descending),
ℓ = −Σ_k α(k) log( e^{t_k} / Σ_{k' ≥ k} e^{t_{k'}} ); α ≡ 1 (ListMLE) or the
position-aware α(k) = 2^{K−k} − 1 (p-ListMLE), here divided by α(1) to stay finite on
long lists (a constant factor leaves the Newton step −g/h unchanged). Documents with equal
labels are ordered by a random permutation drawn from the generator at every iteration
(``ties="random"``) or by input order (``ties="input"``). Gradient of document j (at sorted
position j): −α(j) + e^{t_j} Σ_{k ≤ j} α(k)/Z_k with Z_k = Σ_{k' ≥ k} e^{t_{k'}}; Hessian
diagonal e^{t_j} Σ_{k≤j} α(k)/Z_k − e^{2t_j} Σ_{k≤j} α(k)/Z_k².
"""
from __future__ import annotations

import math

import numba
import numpy as np

from .base import HESS_FLOOR, Objective, as_arrays
from .listwise import _max

__all__ = ["McRank", "mcrank_scores", "ListMLE"]


def _softmax_rows(F):
    F = F - F.max(axis=1, keepdims=True)
    E = np.exp(F)
    return E / E.sum(axis=1, keepdims=True)


def mcrank_scores(raw: np.ndarray) -> np.ndarray:
    """Expected relevance Σ_k k · p_k from raw class scores (n, K)."""
    P = _softmax_rows(np.asarray(raw, dtype=np.float64))
    return P @ np.arange(P.shape[1], dtype=np.float64)


class McRank(Objective):
    """K-class softmax objective; ``grad_hess`` takes and returns (n, K) arrays.

    At zero scores p_k = 1/K: grad p_k − [y = k], hess p_k (1 − p_k) = 0.16 for K = 5:

    >>> g, h = McRank().grad_hess([[0.0] * 5], [2], [0, 1])
    >>> g[0].round(4).tolist(), h[0].round(4).tolist()
    ([0.2, 0.2, -0.8, 0.2, 0.2], [0.16, 0.16, 0.16, 0.16, 0.16])
    """

    name = "mcrank"
    derivative_additive = True

    def __init__(self, n_classes: int = 5, hess_factor: float = 1.0, hess_floor: float = HESS_FLOOR):
        self.n_classes = int(n_classes)
        self.n_outputs = self.n_classes
        self.hess_factor = float(hess_factor)
        self.hess_floor = float(hess_floor)

    def grad_hess(self, scores, labels, offsets, iteration=0, rng=None):
        F = np.asarray(scores, dtype=np.float64).reshape(-1, self.n_classes)
        y = np.asarray(labels).astype(np.int64).ravel()
        if y.max(initial=0) >= self.n_classes:
            raise ValueError(f"label {y.max()} >= n_classes={self.n_classes}")
        P = _softmax_rows(F)
        G = P.copy()
        G[np.arange(y.size), y] -= 1.0
        H = np.maximum(self.hess_factor * P * (1.0 - P), self.hess_floor)
        return G, H

    def loss(self, scores, labels, offsets=None, **kw):
        F = np.asarray(scores, dtype=np.float64).reshape(-1, self.n_classes)
        y = np.asarray(labels).astype(np.int64).ravel()
        F = F - F.max(axis=1, keepdims=True)
        return float(-np.sum(F[np.arange(y.size), y] - np.log(np.exp(F).sum(axis=1))))


@numba.njit(parallel=True, cache=True)
def _listmle_kernel(scores, labels, offsets, tiebreak, position_aware, grad, hess, loss_out):
    nq = offsets.shape[0] - 1
    for q in numba.prange(nq):
        a, b = offsets[q], offsets[q + 1]
        m = b - a
        # sort by label descending, ties by tiebreak ascending
        key = np.empty(m)
        for i in range(m):
            key[i] = -labels[a + i] * (m + 1.0) + tiebreak[a + i]
        order = np.argsort(key, kind="mergesort")
        t = np.empty(m)
        for k in range(m):
            t[k] = scores[a + order[k]]
        c = _max(t)
        e = np.empty(m)
        for k in range(m):
            e[k] = math.exp(t[k] - c)
        Z = np.empty(m)
        acc = 0.0
        for k in range(m - 1, -1, -1):
            acc += e[k]
            Z[k] = acc
        alpha = np.ones(m)
        if position_aware:
            for k in range(m):
                # (2^{m-1-k} - 1) / (2^{m-1} - 1), k 0-based, computed without overflow
                if m == 1:
                    alpha[k] = 1.0
                else:
                    alpha[k] = (2.0 ** (-k) - 2.0 ** (1 - m)) / (1.0 - 2.0 ** (1 - m))
        s1 = 0.0
        s2 = 0.0
        lq = 0.0
        for k in range(m):
            s1 += alpha[k] / Z[k]
            s2 += alpha[k] / (Z[k] * Z[k])
            d = a + order[k]
            grad[d] = -alpha[k] + e[k] * s1
            hess[d] = e[k] * s1 - e[k] * e[k] * s2
            lq -= alpha[k] * (t[k] - c - math.log(Z[k]))
        loss_out[q] = lq


class ListMLE(Objective):
    """ListMLE / p-ListMLE (see module docstring); Hessian diagonal floored at HESS_FLOOR.

    Labels (1, 0), equal scores: the loss −log(e^0 / (e^0 + e^0)) = log 2, grad (−½, ½):

    >>> obj = ListMLE(ties="input")
    >>> round(obj.loss([0.0, 0.0], [1, 0], [0, 2]), 6), obj.grad_hess([0.0, 0.0], [1, 0], [0, 2])[0].tolist()
    (0.693147, [-0.5, 0.5])
    """

    name = "listmle"

    def __init__(self, position_aware: bool = False, ties: str = "random", hess_floor: float = HESS_FLOOR):
        if ties not in ("random", "input"):
            raise ValueError("ties must be 'random' or 'input'")
        self.position_aware = bool(position_aware)
        self.ties = ties
        self.hess_floor = float(hess_floor)
        self.stochastic = ties == "random"

    def _run(self, scores, labels, offsets, rng):
        scores, labels, offsets = as_arrays(scores, labels, offsets)
        n = scores.shape[0]
        if self.ties == "random":
            if rng is None:
                raise ValueError("ties='random' needs a seeded np.random.Generator")
            tiebreak = rng.random(n)
        else:
            tiebreak = np.arange(n, dtype=np.float64) / max(n, 1)
        grad = np.empty(n)
        hess = np.empty(n)
        loss = np.empty(offsets.shape[0] - 1)
        _listmle_kernel(scores, labels, offsets, tiebreak, self.position_aware, grad, hess, loss)
        return grad, np.maximum(hess, self.hess_floor), loss

    def grad_hess(self, scores, labels, offsets, iteration=0, rng=None):
        g, h, _ = self._run(scores, labels, offsets, rng)
        return g, h

    def loss(self, scores, labels, offsets, rng=None, **kw):
        return float(self._run(scores, labels, offsets, rng)[2].sum())
