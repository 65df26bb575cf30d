"""One pairwise kernel with a pluggable pair loss and pair weight.

For every pair (h, l) of a list with y_h > y_l and score difference δ = f_h − f_l, the
kernel adds w_hl · ℓ(δ) to the objective, with (rax's ``pairwise_loss`` design):

pair losses
    ``logistic``  ℓ = log(1 + e^{−σδ}); ∂ℓ/∂f_h = −σ p, ∂²ℓ/∂f_h² = σ² p (1 − p),
                  p = 1 / (1 + e^{σδ})  (RankNet; Stratos §2.2 λ and ρ)
    ``sq_hinge``  ℓ = ½ max(0, τ − δ)²; ∂ℓ/∂f_h = −max(0, τ − δ), Hessian 1 per pair
                  (QBRank, Zheng et al. Algorithm 2; τ = |y_h − y_l| or a constant)
pair weights
    ``unit``      w = 1 over all pairs with different labels
    ``ndcg``      w = |ΔNDCG| of swapping the pair in the current ranking (LambdaMART,
                  Stratos eq. 10), computed as LightGBM's ``lambdarank`` does: pairs with at
                  least one document ranked above ``truncation_level``, ideal DCG truncated
                  at that level, discount 1/log2(2 + rank), label gain table, optional
                  normalisation (``lambdarank_norm``), and LightGBM's sigmoid lookup table
                  (1,048,576 bins over [−25/σ, 25/σ]) unless ``exact_sigmoid``.

The gradient of f_l is the negative of f_h's; both receive the pair's Hessian. The kernel
is numba, parallel over lists, O(m²) per list with no pair materialized.
"""
from __future__ import annotations

import math

import numba
import numpy as np

from .base import Objective, as_arrays

__all__ = ["LambdaMART", "RankNet", "pairwise_kernel"]

_SIGMOID_BINS = 1024 * 1024
LOSS_LOGISTIC, LOSS_SQ_HINGE = 0, 1
WEIGHT_UNIT, WEIGHT_NDCG = 0, 1


def sigmoid_table(sigma: float) -> np.ndarray:
    """LightGBM's lookup table of p(δ) = 1 / (1 + exp(σ δ)): 1,048,576 bins over
    [−25/σ, 25/σ], bin i holding p at its left edge."""
    lo = -50.0 / sigma / 2.0
    factor = _SIGMOID_BINS / (-2.0 * lo)
    x = np.arange(_SIGMOID_BINS, dtype=np.float64) / factor + lo
    return 1.0 / (1.0 + np.exp(x * sigma))


@numba.njit(cache=True, nogil=True, inline="always")
def _sigmoid(delta, sigma, table, lo, factor):
    """p = 1 / (1 + exp(σ δ)); with a non-empty ``table``, LightGBM's lookup of it
    (``lo`` = −25/σ its left edge, ``factor`` = bins / (50/σ), computed once per call)."""
    nb = table.shape[0]
    if nb == 0:
        return 1.0 / (1.0 + math.exp(min(sigma * delta, 700.0)))
    if delta <= lo:
        return table[0]
    if delta >= -lo:
        return table[nb - 1]
    return table[int((delta - lo) * factor)]


@numba.njit(parallel=True, cache=True)
def pairwise_kernel(scores, labels, offsets, loss_kind, weight_kind, sigma, tau, truncation,
                    gain, norm, table, grad, hess, pair_weight, pair_start, pi, pj, prho, pw):
    """Fill grad/hess. ``tau`` < 0 means τ = |y_h − y_l|. ``pair_weight`` multiplies every
    pair (QBRank's w). ``table``: LightGBM's sigmoid table, or empty for the exact sigmoid.

    With a non-empty ``pair_start`` (from :func:`pairwise_counts`), the pairs are also
    recorded: pair ``pair_start[q] + c`` of list ``q`` gets its two row indices (``pi`` the
    preferred document), its Hessian ``prho`` (the term it adds to both documents'
    ``hess``, so that Σ over pairs containing a document of ``prho`` equals its ``hess``) and
    its weight ``pw`` (|ΔNDCG| for LambdaMART, after normalisation)."""
    record = pair_start.shape[0] > 0
    nq = offsets.shape[0] - 1
    maxm = 1
    for q in range(nq):
        maxm = max(maxm, offsets[q + 1] - offsets[q])
    discount = np.empty(maxm)
    for r in range(maxm):
        discount[r] = 1.0 / math.log2(2.0 + r)
    lo = -50.0 / sigma / 2.0
    factor = table.shape[0] / (-2.0 * lo)
    for q in numba.prange(nq):
        a, b = offsets[q], offsets[q + 1]
        m = b - a
        for i in range(a, b):
            grad[i] = 0.0
            hess[i] = 0.0
        if m <= 1:
            continue
        s = scores[a:b]
        y = labels[a:b]
        order = np.argsort(-s, kind="mergesort")
        # the list in rank order, contiguous: the pair loop reads no index twice removed
        sr = np.empty(m)
        yr = np.empty(m, dtype=np.int64)
        gr = np.empty(m)
        for r in range(m):
            d = order[r]
            sr[r] = s[d]
            yr[r] = y[d]
            gr[r] = gain[y[d]]
        lam = np.zeros(m)            # per rank; the same additions in the same order as per document
        hes = np.zeros(m)
        inv_max_dcg = 0.0
        best = sr[0]
        worst = sr[m - 1]
        if weight_kind == WEIGHT_NDCG:
            ys = np.sort(y)[::-1]
            mx = 0.0
            for r in range(min(truncation, m)):
                mx += gain[ys[r]] * discount[r]
            inv_max_dcg = 1.0 / mx if mx > 0 else 0.0
        imax = min(m - 1, truncation) if weight_kind == WEIGHT_NDCG else m - 1
        sum_lambdas = 0.0
        c = pair_start[q] if record else 0
        for i in range(imax):
            yi = yr[i]
            for j in range(i + 1, m):
                yj = yr[j]
                if yi == yj:
                    continue
                if yi > yj:
                    h, l = i, j
                else:
                    h, l = j, i
                delta = sr[h] - sr[l]
                w = pair_weight
                if weight_kind == WEIGHT_NDCG:
                    w = (gr[h] - gr[l]) * abs(discount[h] - discount[l]) * inv_max_dcg
                    if norm and best != worst:
                        w /= 0.01 + abs(delta)
                if loss_kind == LOSS_LOGISTIC:
                    p = _sigmoid(delta, sigma, table, lo, factor)
                    g = -sigma * p * w
                    hh = sigma * sigma * p * (1.0 - p) * w
                else:
                    t = tau if tau >= 0 else float(abs(yr[h] - yr[l]))
                    g = -max(0.0, t - delta) * w
                    hh = w
                lam[h] += g
                lam[l] -= g
                hes[h] += hh
                hes[l] += hh
                sum_lambdas -= 2.0 * g
                if record:
                    pi[c] = a + order[h]
                    pj[c] = a + order[l]
                    prho[c] = hh
                    pw[c] = w
                    c += 1
        if weight_kind == WEIGHT_NDCG and norm and sum_lambdas > 0:
            f = math.log2(1.0 + sum_lambdas) / sum_lambdas
            for r in range(m):
                lam[r] *= f
                hes[r] *= f
            if record:
                for k in range(pair_start[q], c):
                    prho[k] *= f
                    pw[k] *= f
        for r in range(m):
            grad[a + order[r]] = lam[r]
            hess[a + order[r]] = hes[r]


@numba.njit(parallel=True, cache=True)
def pairwise_counts(scores, labels, offsets, weight_kind, truncation):
    """Number of pairs :func:`pairwise_kernel` visits in each list (the same ranking and
    truncation rule), so that its pairs can be recorded into preallocated arrays."""
    nq = offsets.shape[0] - 1
    counts = np.zeros(nq, dtype=np.int64)
    for q in numba.prange(nq):
        a, b = offsets[q], offsets[q + 1]
        m = b - a
        if m <= 1:
            continue
        y = labels[a:b]
        order = np.argsort(-scores[a:b], kind="mergesort")
        imax = min(m - 1, truncation) if weight_kind == WEIGHT_NDCG else m - 1
        c = 0
        for i in range(imax):
            for j in range(i + 1, m):
                if y[order[i]] != y[order[j]]:
                    c += 1
        counts[q] = c
    return counts


def pair_arrays(counts):
    """Storage for recorded pairs given the pair count of each list: ``(start, i, j, rho)``,
    ``start[q]`` the first slot of list ``q`` (length n_lists + 1)."""
    start = np.zeros(counts.shape[0] + 1, dtype=np.int64)
    np.cumsum(counts, out=start[1:])
    npairs = int(start[-1])
    return start, np.empty(npairs, dtype=np.int64), np.empty(npairs, dtype=np.int64), np.empty(npairs)


def _run_pairwise(scores, labels, offsets, loss_kind, weight_kind, sigma, tau, truncation, gain, norm, table,
                  pair_weight, record: bool):
    """Run :func:`pairwise_kernel`; with ``record``, also return the pairs as
    ``(i, j, rho, weight)`` (int64, int64, float64, float64 arrays), else None."""
    grad = np.empty_like(scores)
    hess = np.empty_like(scores)
    if record:
        start, pi, pj, prho = pair_arrays(pairwise_counts(scores, labels, offsets, weight_kind, truncation))
        pw = np.empty_like(prho)
    else:
        start = pi = pj = np.zeros(0, dtype=np.int64)
        prho = pw = np.zeros(0)
    pairwise_kernel(scores, labels, offsets, loss_kind, weight_kind, sigma, tau, truncation, gain, norm, table,
                    grad, hess, pair_weight, start, pi, pj, prho, pw)
    return grad, hess, ((pi, pj, prho, pw) if record else None)


def _gain_table(label_gain, max_label):
    if label_gain is None:
        return np.exp2(np.arange(max(max_label, 31) + 1, dtype=np.float64)) - 1.0
    g = np.asarray(label_gain, dtype=np.float64)
    if g.shape[0] <= max_label:
        raise ValueError(f"label_gain has {g.shape[0]} entries, labels reach {max_label}")
    return g


class _RecordedPairs(Objective):
    """A pairwise loss run by :func:`_run_pairwise` (subclasses define ``_run(scores, labels,
    offsets, record)``), with its pairs available to the exact-OLE tree learner."""

    def grad_hess(self, scores, labels, offsets, iteration=0, rng=None):
        return self._run(scores, labels, offsets, record=False)[:2]

    def grad_hess_pairs(self, scores, labels, offsets, iteration=0, rng=None):
        """(grad, hess, (i, j, rho)): also the pairs and each pair's Hessian term rho (the
        term it adds to both documents' ``hess``), for :mod:`ltrrepro.gbdt`."""
        g, h, pairs = self._run(scores, labels, offsets, record=True)
        return g, h, pairs[:3]


class LambdaMART(_RecordedPairs):
    """LambdaMART lambdas built to equal LightGBM's ``lambdarank`` (see module docstring).

    Parameters mirror LightGBM: ``sigma`` (``sigmoid``), ``truncation_level``
    (``lambdarank_truncation_level``, default 30), ``norm`` (``lambdarank_norm``; Bruch:
    False), ``label_gain`` (default 2^y − 1), and ``exact_sigmoid`` to use the exact
    logistic instead of LightGBM's lookup table.

    Two documents, labels (1, 0), equal scores: the pair's RankNet gradient −σ/2 and Hessian
    σ²/4, each weighted by |ΔNDCG| of swapping them, 1 − 1/log2(3) = 0.36907:

    >>> g, h = LambdaMART().grad_hess([0.0, 0.0], [1, 0], [0, 2])
    >>> g.round(4).tolist(), h.round(4).tolist()
    ([-0.1845, 0.1845], [0.0923, 0.0923])
    """

    name = "lambdamart"

    def __init__(self, sigma: float = 1.0, truncation_level: int = 30, norm: bool = False,
                 label_gain=None, exact_sigmoid: bool = False):
        if sigma <= 0:
            raise ValueError("sigma must be > 0")
        self.sigma = float(sigma)
        self.truncation_level = int(truncation_level)
        self.norm = bool(norm)
        self.label_gain = None if label_gain is None else tuple(label_gain)
        self.exact_sigmoid = bool(exact_sigmoid)
        self._table = np.zeros(0) if exact_sigmoid else sigmoid_table(self.sigma)

    def loss(self, scores, labels, offsets, **kw):
        """LambdaMART has no loss of its own; this is the one whose gradient its lambdas are
        when the pair weights are held fixed at the current ranking:
        Σ_pairs |ΔNDCG_hl| · log(1 + e^{−σ(f_h − f_l)}) (Burges 2010 §6; the pairs and
        truncation of ``grad_hess``). Used to compare final objective losses (Xia §4)."""
        scores, labels, offsets = as_arrays(scores, labels, offsets)
        _, _, (pi, pj, _, pw) = self._run(scores, labels, offsets, record=True)
        z = -self.sigma * (scores[pi] - scores[pj])
        return float(np.sum(pw * (np.maximum(z, 0.0) + np.log1p(np.exp(-np.abs(z))))))

    def _run(self, scores, labels, offsets, record):
        scores, labels, offsets = as_arrays(scores, labels, offsets)
        gain = _gain_table(self.label_gain, int(labels.max(initial=0)))
        return _run_pairwise(scores, labels, offsets, LOSS_LOGISTIC, WEIGHT_NDCG, self.sigma, 0.0,
                             self.truncation_level, gain, self.norm, self._table, 1.0, record)


class RankNet(_RecordedPairs):
    """Pairwise logistic loss Σ_{y_h > y_l} log(1 + e^{−σ(f_h − f_l)}) (RankNet; Stratos §2.2)
    with its Newton Hessian σ² p (1 − p) per pair (the diagonal of the pair's block).

    Labels (1, 0), equal scores: p = σ(0) = ½, so grad ∓σ/2 and hess σ²/4:

    >>> g, h = RankNet().grad_hess([0.0, 0.0], [1, 0], [0, 2])
    >>> g.tolist(), h.tolist()
    ([-0.5, 0.5], [0.25, 0.25])
    """

    name = "ranknet"

    def __init__(self, sigma: float = 1.0):
        self.sigma = float(sigma)

    def _run(self, scores, labels, offsets, record):
        scores, labels, offsets = as_arrays(scores, labels, offsets)
        return _run_pairwise(scores, labels, offsets, LOSS_LOGISTIC, WEIGHT_UNIT, self.sigma, 0.0, 0,
                             np.zeros(1), False, np.zeros(0), 1.0, record)

    def loss(self, scores, labels, offsets, **kw):
        """Σ over lists and pairs of log(1 + e^{−σδ}) (numerically stable)."""
        scores, labels, offsets = as_arrays(scores, labels, offsets)
        return float(pair_loss_sum(scores, labels, offsets, LOSS_LOGISTIC, self.sigma, 0.0))


@numba.njit(cache=True)
def pair_loss_sum(scores, labels, offsets, loss_kind, sigma, tau):
    """Σ over lists and pairs y_h > y_l of the pair loss (unit weights): the loss that
    :func:`pairwise_kernel` differentiates, for tests and line searches. ``logistic``:
    log(1 + e^{−σδ}) (stable form); ``sq_hinge``: max(0, τ − δ)² without the ½."""
    tot = 0.0
    for q in range(offsets.shape[0] - 1):
        a, b = offsets[q], offsets[q + 1]
        for i in range(a, b):
            for j in range(a, b):
                if labels[i] > labels[j]:
                    delta = scores[i] - scores[j]
                    if loss_kind == LOSS_LOGISTIC:
                        z = -sigma * delta
                        tot += max(z, 0.0) + math.log1p(math.exp(-abs(z)))
                    else:
                        t = tau if tau >= 0 else float(labels[i] - labels[j])
                        v = max(0.0, t - delta)
                        tot += v * v
    return tot


@numba.njit(cache=True)
def _explicit_pairs(scores, pairs, tau, w, grad, hess):
    for p in range(pairs.shape[0]):
        x, y = pairs[p, 0], pairs[p, 1]          # x preferred to y
        t = max(0.0, scores[y] - scores[x] + tau[p])
        grad[x] -= w * t
        grad[y] += w * t
        hess[x] += w
        hess[y] += w


class QBRank(Objective):
    """QBRank (Zheng et al. 2007, Algorithm 2; docs/protocols/zheng2007.md §1–§2)::

        R(h) = (w/2) Σ_{x ≻ y} max{0, h(y) − h(x) + τ}² + ((1 − w)/2) Σ_{z labeled} (l_z − h(z))²

    Gradients are those of R. Each pair adds ``w`` and each labeled document ``1 − w`` to
    the Hessian, active or not, so that a document's Newton target −g/h is the (weighted)
    average of its regression targets in Algorithm 2 — "a document in several pairs gets the
    average of its targets" — rather than the exact diagonal w·#active pairs.

    Preferences: all within-query pairs of different grades derived from the labels
    (default; ties excluded, single-grade queries then contribute only the labeled term),
    or an explicit ``pairs`` array of row indices ``[preferred, other]`` with ``pair_tau``.
    ``tau=None`` uses τ = |grade difference| (the paper's setting). ``labeled``: boolean
    mask of the documents that carry the squared-loss term (default none).

    Zheng's per-round line search for the step and the shrinkage η are not part of the
    gradient: see :func:`qbrank_step` (the experiment applies it to each tree).

    Labels 2, 1, 0, scores (0, ½, 0), w = ½: Algorithm 2's pair targets are d0 +1.5, +2;
    d1 −1.5, +½; d2 −2, −½, whose averages are the Newton targets −grad/hess:

    >>> g, h = QBRank(w=0.5).grad_hess([0.0, 0.5, 0.0], [2, 1, 0], [0, 3])
    >>> (-g / h).tolist()
    [1.75, -0.5, -1.25]
    """

    name = "qbrank"

    def __init__(self, w: float = 0.5, tau: float | None = None, labeled=None, pairs=None, pair_tau=None,
                 use_label_pairs: bool = True):
        if not 0 <= w <= 1:
            raise ValueError("w must be in [0, 1]")
        self.w = float(w)
        self.tau = tau
        self.labeled = None if labeled is None else np.asarray(labeled, dtype=bool)
        self.pairs = None if pairs is None else np.ascontiguousarray(pairs, dtype=np.int64).reshape(-1, 2)
        self.pair_tau = pair_tau
        self.use_label_pairs = bool(use_label_pairs) and pairs is None

    def _pair_tau(self, labels):
        if self.pair_tau is not None:
            return np.asarray(self.pair_tau, dtype=np.float64)
        if self.tau is not None:
            return np.full(self.pairs.shape[0], float(self.tau))
        return np.abs(labels[self.pairs[:, 0]] - labels[self.pairs[:, 1]]).astype(np.float64)

    def grad_hess(self, scores, labels, offsets, iteration=0, rng=None):
        scores, labels, offsets = as_arrays(scores, labels, offsets)
        grad = np.zeros_like(scores)
        hess = np.zeros_like(scores)
        if self.use_label_pairs:
            tau = -1.0 if self.tau is None else float(self.tau)
            grad, hess, _ = _run_pairwise(scores, labels, offsets, LOSS_SQ_HINGE, WEIGHT_UNIT, 1.0, tau, 0,
                                          np.zeros(1), False, np.zeros(0), self.w, False)
        elif self.pairs is not None:
            _explicit_pairs(scores, self.pairs, self._pair_tau(labels), self.w, grad, hess)
        if self.labeled is not None:
            lab = self.labeled
            grad[lab] -= (1.0 - self.w) * (labels[lab] - scores[lab])
            hess[lab] += 1.0 - self.w
        return grad, hess

    def loss(self, scores, labels, offsets, **kw):
        """R(h) as above."""
        scores, labels, offsets = as_arrays(scores, labels, offsets)
        tot = 0.0
        if self.use_label_pairs:
            tau = -1.0 if self.tau is None else float(self.tau)
            tot += pair_loss_sum(scores, labels, offsets, LOSS_SQ_HINGE, 1.0, tau)
        elif self.pairs is not None:
            d = np.maximum(0.0, scores[self.pairs[:, 1]] - scores[self.pairs[:, 0]] + self._pair_tau(labels))
            tot += float(np.sum(d * d))
        out = 0.5 * self.w * tot
        if self.labeled is not None:
            out += 0.5 * (1.0 - self.w) * float(np.sum((labels[self.labeled] - scores[self.labeled]) ** 2))
        return out


def qbrank_step(objective: QBRank, scores, direction, labels, offsets, max_step: float = 10.0) -> float:
    """Zheng's line search: the step s >= 0 minimizing R(h + s·g) for the new tree's output g.

    R along the line is convex and piecewise quadratic, so a bounded scalar minimization
    (scipy) finds it; s = 0 is returned when no step decreases R, so R never increases.
    """
    from scipy.optimize import minimize_scalar

    scores = np.asarray(scores, dtype=np.float64)
    direction = np.asarray(direction, dtype=np.float64)
    f = lambda s: objective.loss(scores + s * direction, labels, offsets)
    res = minimize_scalar(f, bounds=(0.0, max_step), method="bounded", options={"xatol": 1e-6})
    return float(res.x) if res.fun < f(0.0) else 0.0
