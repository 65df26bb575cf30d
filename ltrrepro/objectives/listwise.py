"""Listwise cross-entropy losses with Bruch's Neumann-series Newton step: XE_NDCG and ListNet.

Per list (Bruch 2021 §4 and §4.4; docs/protocols/bruch2021.md §1)::

    ρ_i = e^{f_i} / (Σ_j e^{f_j} + ε)                 score distribution
    φ_i = (2^{y_i} − γ_i) / Σ_j (2^{y_j} − γ_j)        XE_NDCG label distribution, γ ~ U[0,1]^m
    φ_i = e^{y_i} / Σ_j e^{y_j}                        ListNet (Cao et al. 2007)
    ℓ = −Σ_i φ_i log ρ_i,   ∂ℓ/∂f_r = ρ_r − φ_r
    H = D (I − S),  D_ii = ρ_i (1 − ρ_i),  S_ij = ρ_j / (1 − ρ_i) (i ≠ j), S_ii = 0
    H⁻¹∇ ≈ (I + S + … + S^K) D⁻¹ ∇                    Neumann series, K = ``order`` (paper: 2)

A GBDT library fits leaves as −Σ grad / Σ hess, so the library is handed
``grad = D · (Σ_k S^k) D⁻¹ ∇`` (the numerator of the last equation of §4.4) and
``hess = ρ(1 − ρ)``. ``order=0`` is the diagonal Newton step; ``order="exact"`` solves
H x = ∇ per list (O(m³), for tests). The recursion avoids dividing by ρ: with
u⁽⁰⁾ = ∇ / (1 − ρ) and u⁽ᵏ⁺¹⁾_i = ρ_i (Σ_j u⁽ᵏ⁾_j − u⁽ᵏ⁾_i) / (1 − ρ_i), the output is
(1 − ρ) Σ_k u⁽ᵏ⁾.

LightGBM's built-in ``rank_xendcg`` is this with ε = 0 and K = 2 (and its own random
generator for γ), which is why ε defaults to 0 here. With ε = 0 the Hessian is singular
(H·1 = 0) and the Neumann series only converges on the gradient's component orthogonal
to that direction; ε > 0 (Bruch Eq. 14) makes S a contraction. Lists of one document get
zero gradient and Hessian (as LightGBM). Hessians are floored at
:data:`~ltrrepro.objectives.base.HESS_FLOOR` for float32 libraries.
"""
from __future__ import annotations

import math

import numba
import numpy as np

from .base import HESS_FLOOR, Objective, as_arrays
from .pairwise import pair_arrays

__all__ = ["XENDCG", "ListNet", "listwise_xe_kernel"]


@numba.njit(cache=True, nogil=True)
def _max(x):
    """``x.max()`` of a 1-D array as numba computes it (the first NaN if there is one; a
    ValueError if empty), without numba's generic ``nditer`` version: that one compiles for
    1–2 s on a cold cache, per dtype."""
    if x.shape[0] == 0:
        raise ValueError("zero-size array to reduction operation maximum which has no identity")
    c = x[0]
    if c != c:
        return c
    for i in range(1, x.shape[0]):
        v = x[i]
        if v != v:
            return v
        if v > c:
            c = v
    return c


@numba.njit(cache=True, nogil=True)
def _softmax_eps(s, eps):
    c = _max(s)
    e = np.exp(s - c)
    tot = e.sum() + eps * math.exp(-c) if eps > 0 else e.sum()
    rho = e / tot
    one_minus = (tot - e) / tot
    return rho, one_minus


@numba.njit(cache=True, nogil=True)
def _label_distribution(y, gamma, listnet):
    """φ of one list: softmax(y) (ListNet) or (2^y − γ) / Σ (2^y − γ) (XE_NDCG); the
    denominator is floored at 1e-15 as in LightGBM."""
    m = y.shape[0]
    phi = np.empty(m)
    if listnet:
        ymax = _max(y)
        for i in range(m):
            phi[i] = math.exp(y[i] - ymax)
    else:
        for i in range(m):
            phi[i] = 2.0 ** y[i] - gamma[i]
    return phi / max(phi.sum(), 1e-15)


@numba.njit(parallel=True, cache=True)
def listwise_xe_kernel(scores, labels, offsets, gamma, eps, order, listnet, hess_floor, grad, hess, work, pow2):
    """Fill grad/hess of the cross entropy −Σ φ log ρ with a Neumann Newton step of ``order``
    (>= 0) terms beyond the identity. ``gamma`` is used only when ``listnet`` is False.

    Allocation-free: each list works in its own rows of ``work`` (3 × n) and writes its output
    in place; ``pow2[y]`` = 2^y is looked up, not raised (the same values, exactly). The
    arithmetic is :func:`_softmax_eps` and :func:`_label_distribution`'s, operation for
    operation (the tests hold the two equal bit for bit)."""
    nq = offsets.shape[0] - 1
    for q in numba.prange(nq):
        a, b = offsets[q], offsets[q + 1]
        m = b - a
        if m <= 1:
            for i in range(a, b):
                grad[i] = 0.0
                hess[i] = 0.0
            continue
        rho = work[0, a:b]
        om = work[1, a:b]
        u = work[2, a:b]
        # softmax with eps, as _softmax_eps
        c = scores[a]
        for i in range(a + 1, b):
            if scores[i] > c:
                c = scores[i]
        tot = 0.0
        for i in range(m):
            rho[i] = math.exp(scores[a + i] - c)
            tot += rho[i]
        if eps > 0:
            tot = tot + eps * math.exp(-c)
        for i in range(m):
            e = rho[i]
            rho[i] = e / tot
            om[i] = (tot - e) / tot
        # label distribution
        ps = 0.0
        if listnet:
            ymax = labels[a]
            for i in range(a + 1, b):
                if labels[i] > ymax:
                    ymax = labels[i]
            for i in range(m):
                u[i] = math.exp(labels[a + i] - ymax)
                ps += u[i]
        else:
            for i in range(m):
                u[i] = pow2[labels[a + i]] - gamma[a + i]
                ps += u[i]
        ps = max(ps, 1e-15)
        for i in range(m):
            g = rho[i] - u[i] / ps
            grad[a + i] = g
            om[i] = max(om[i], 1e-300)
            u[i] = g / om[i]
        for _k in range(order):
            U = 0.0
            for i in range(m):
                U += u[i]
            for i in range(m):
                t = rho[i] * (U - u[i])
                grad[a + i] += t
                u[i] = t / om[i]
        for i in range(m):
            hess[a + i] = max(rho[i] * om[i], hess_floor)


def _xe_exact(scores, labels, offsets, gamma, eps, listnet, hess_floor, grad, hess):
    """The exact Newton step (``order`` = -1): H x = ∇ solved per list by LAPACK's ``dgesv``
    (scipy's, the routine numba's ``np.linalg.solve`` calls), O(m³), with
    H = diag(ρ(1 − ρ)) − ρρᵀ. A reference for tests, so a loop over lists in Python: compiled
    by numba, the solve alone cost 5–9 s on every fresh clone's first test run."""
    from scipy.linalg.lapack import dgesv

    for q in range(offsets.shape[0] - 1):
        a, b = int(offsets[q]), int(offsets[q + 1])
        if b - a <= 1:
            grad[a:b] = 0.0
            hess[a:b] = 0.0
            continue
        rho, om = _softmax_eps(scores[a:b], eps)
        g = rho - _label_distribution(labels[a:b], gamma[a:b], listnet)
        om = np.maximum(om, 1e-300)
        H = -np.outer(rho, rho)
        H[np.diag_indices(b - a)] = rho * om
        if not (np.isfinite(H).all() and np.isfinite(g).all()):     # as np.linalg.solve in numba
            raise np.linalg.LinAlgError("Array must not contain infs or NaNs.")
        _, _, x, info = dgesv(H, g)
        if info > 0:
            raise np.linalg.LinAlgError("Matrix is singular to machine precision.")
        grad[a:b] = rho * om * x
        hess[a:b] = np.maximum(rho * om, hess_floor)


@numba.njit(parallel=True, cache=True)
def _xe_loss(scores, labels, offsets, gamma, eps, listnet):
    nq = offsets.shape[0] - 1
    out = np.zeros(nq)
    for q in numba.prange(nq):
        a, b = offsets[q], offsets[q + 1]
        m = b - a
        if m <= 1:
            continue
        s = scores[a:b]
        c = _max(s)
        tot = 0.0                   # the sums np.exp(s - c).sum() and (φ · log ρ).sum() add in this order
        for i in range(m):
            tot += math.exp(s[i] - c)
        tot += eps * math.exp(-c) if eps > 0 else 0.0
        lse = math.log(tot)
        phi = _label_distribution(labels[a:b], gamma[a:b], listnet)
        acc = 0.0
        for i in range(m):
            acc += phi[i] * (s[i] - c - lse)
        out[q] = -acc
    return out


@numba.njit(parallel=True, cache=True)
def _softmax_pairs(scores, offsets, pair_start, pi, pj, prho):
    """All pairs i < j of every list with the off-diagonal Hessian term ρ_i ρ_j of
    −Σ φ log ρ (Σ φ = 1, ε = 0): ∂²ℓ/∂f_i∂f_j = −ρ_i ρ_j, so ∂²ℓ/∂f_i² = Σ_{j≠i} ρ_i ρ_j."""
    nq = offsets.shape[0] - 1
    for q in numba.prange(nq):
        a, b = offsets[q], offsets[q + 1]
        if b - a <= 1:
            continue
        rho, _ = _softmax_eps(scores[a:b], 0.0)
        c = pair_start[q]
        for i in range(b - a):
            for j in range(i + 1, b - a):
                pi[c] = a + i
                pj[c] = a + j
                prho[c] = rho[i] * rho[j]
                c += 1


class _CrossEntropy(Objective):
    _listnet = False

    def __init__(self, order: int | str = 2, eps: float = 0.0, hess_floor: float = HESS_FLOOR):
        if order == "exact":
            order = -1
        if not isinstance(order, (int, np.integer)) or order < -1:
            raise ValueError("order must be an integer >= 0 or 'exact'")
        if eps < 0:
            raise ValueError("eps must be >= 0")
        self.order = int(order)
        self.eps = float(eps)
        self.hess_floor = float(hess_floor)

    def _gamma(self, n, rng):
        return np.zeros(n)

    def grad_hess(self, scores, labels, offsets, iteration=0, rng=None, gamma=None):
        scores, labels, offsets = as_arrays(scores, labels, offsets)
        if gamma is None:
            gamma = self._gamma(scores.shape[0], rng)
        grad = np.empty_like(scores)
        hess = np.empty_like(scores)
        gamma = np.asarray(gamma, np.float64)
        if self.order < 0:
            _xe_exact(scores, labels, offsets, gamma, self.eps, self._listnet, self.hess_floor, grad, hess)
        else:
            pow2 = 2.0 ** np.arange(int(labels.max(initial=0)) + 1, dtype=np.float64)
            listwise_xe_kernel(scores, labels, offsets, gamma, self.eps, self.order, self._listnet, self.hess_floor,
                               grad, hess, np.empty((3, scores.shape[0])), pow2)
        return grad, hess

    def grad_hess_pairs(self, scores, labels, offsets, iteration=0, rng=None, gamma=None):
        """(grad, hess, (i, j, rho)) of the plain cross entropy for the exact-OLE tree learner:
        every pair of a list with its Hessian term ρ_i ρ_j (O(m²) pairs per list). Only for
        ``order=0`` and ``eps=0``, where (grad, hess) are the loss's own gradient and Hessian
        diagonal; a Neumann-corrected gradient (order > 0) is no loss's derivative."""
        if self.order != 0 or self.eps != 0:
            raise ValueError(f"{self.name}: the pair structure of the Hessian is defined for order=0 and eps=0 "
                             f"(got order={self.order}, eps={self.eps})")
        scores, labels, offsets = as_arrays(scores, labels, offsets)
        grad, hess = self.grad_hess(scores, labels, offsets, iteration=iteration, rng=rng, gamma=gamma)
        m = np.diff(offsets)
        start, pi, pj, prho = pair_arrays(m * (m - 1) // 2)
        _softmax_pairs(scores, offsets, start, pi, pj, prho)
        return grad, hess, (pi, pj, prho)

    def loss(self, scores, labels, offsets, gamma=None, per_query=False):
        """Mean over lists of −Σ φ log ρ (XE_NDCG needs the γ used; default γ = 0)."""
        scores, labels, offsets = as_arrays(scores, labels, offsets)
        gamma = np.zeros(scores.shape[0]) if gamma is None else np.asarray(gamma, np.float64)
        v = _xe_loss(scores, labels, offsets, gamma, self.eps, self._listnet)
        return v if per_query else float(v.mean())


class XENDCG(_CrossEntropy):
    """XE_NDCG (Bruch 2021): cross entropy to φ = (2^y − γ)/Σ(2^y − γ), γ ~ U[0,1]^m drawn
    afresh at every iteration for every list from the generator passed in; Newton step by
    the Neumann series of ``order`` terms (paper: 2). See the module docstring.

    At ``order=0`` the gradient is ρ − φ. Two documents, labels (1, 0), equal scores and
    γ = (0, 0): ρ = (½, ½) and φ ∝ 2^y = (2/3, 1/3), so grad = (−1/6, 1/6), hess ρ(1 − ρ):

    >>> g, h = XENDCG(order=0).grad_hess([0.0, 0.0], [1, 0], [0, 2], gamma=[0.0, 0.0])
    >>> g.round(4).tolist(), h.tolist()
    ([-0.1667, 0.1667], [0.25, 0.25])
    """

    name = "xe_ndcg"
    stochastic = True

    def _gamma(self, n, rng):
        if rng is None:
            raise ValueError("XE_NDCG draws γ at every iteration: pass a seeded np.random.Generator")
        return rng.random(n)


class ListNet(_CrossEntropy):
    """ListNet (Cao et al. 2007) with φ = softmax(y), optimized with the same second-order
    machinery as XE_NDCG (Bruch §5.2).

    Labels (1, 0), equal scores: φ = softmax(1, 0) = (0.7311, 0.2689), ρ = (½, ½), grad ρ − φ:

    >>> g, h = ListNet(order=0).grad_hess([0.0, 0.0], [1, 0], [0, 2])
    >>> g.round(4).tolist(), h.tolist()
    ([-0.2311, 0.2311], [0.25, 0.25])
    """

    name = "listnet"
    _listnet = True
