"""Learning from biased clicks: Unbiased LambdaMART and inverse-propensity-weighted λMART and XE_NDCG.

The data are click sessions: one list per session, its documents in displayed order, label 1 if
clicked; each row carries its 0-based ``position`` (and, for IPS, a ``propensity``: the
probability that its position was examined). The objectives here are configuration; training
binds them to the training rows (:meth:`bind`), which gives an :class:`Objective` holding the
per-train state — Unbiased LambdaMART's position biases, updated after every round.

**Unbiased LambdaMART** (Hu, Wang, Peng, Li, WWW 2019; docs/protocols/debiasing.md). For a pair
of a session with h clicked and l not (y_h > y_l), δ = f_h − f_l, ranks by the current scores::

    λ-pair loss      L_hl = |ΔNDCG_hl| · log(1 + e^{−σδ})                 (LambdaMART's pair cost)
    debiased         L_hl / (t⁺_{pos h} · t⁻_{pos l})                      (the ranker's loss, Eq. 18)
    gradient         ∂/∂f_h = −σ p |ΔNDCG| / (t⁺ t⁻),  p = 1/(1 + e^{σδ}),  ∂/∂f_l = −∂/∂f_h
    Hessian          s · σ² p (1 − p) |ΔNDCG| / (t⁺ t⁻)   (s = ``hess_scale``: 1 LightGBM's, 2 XGBoost's)
    biases (after each round, from that round's costs; Eqs. 30–31 in XGBoost's numbering)
                     t⁺_i = [ Σ_{pairs with h at i} L_hl / t⁻_{pos l}  /  (the same at position 1) ]^{1/(1+p)}
                     t⁻_j = [ Σ_{pairs with l at j} L_hl / t⁺_{pos h}  /  (the same at position 1) ]^{1/(1+p)}

t⁺ and t⁻ start at 1 and are normalized to 1 at position 1; ``p`` is the regularization
(Hu et al.'s table: none, p = 0; their released code: p = 0.5; XGBoost's default: p = 1). With
``score_norm`` |ΔNDCG| is divided by 0.01 + |δ| (LightGBM's ``lambdarank_norm``, XGBoost's
``lambdarank_score_normalization``), with ``list_norm`` a list's lambdas and Hessians are scaled
by log2(1 + S)/S, S = Σ 2|λ| (both libraries' lambda normalization). XGBoost's
``lambdarank_unbiased`` is this with ``hess_scale=2`` and its own normalization switches.

**IPS λMART** (Wang et al. 2016; Joachims et al. 2017): the same pair cost weighted 1/θ_{h} by the
clicked document's propensity (t⁺ = θ, t⁻ = 1, fixed). **IPS XE_NDCG**: Bruch's φ with the
gain 2^y − 1 replaced by its IPS estimate (2^y − 1)/θ: φ_i ∝ (2^{y_i} − 1)/θ_i + 1 − γ_i, i.e.
XE_NDCG exactly when every θ = 1. φ is normalized per list, so this weights the gains, not the
risk: the loss is not an unbiased estimate of a relevance risk (a deviation, stated).
"""
from __future__ import annotations

import math

import numba
import numpy as np

from .base import HESS_FLOOR, Objective, as_arrays
from .listwise import XENDCG

__all__ = ["UnbiasedLambdaMART", "IPSLambdaMART", "IPSXENDCG", "debiased_lambdas", "update_biases", "VARIANTS",
           "ALL_PAIRS"]


@numba.njit(parallel=True, cache=True)
def _kernel(scores, labels, offsets, w_high, w_low, tracked, sigma, truncation, score_norm, list_norm, hess_scale,
            cost_sign, grad, hess, cost_high, cost_low):
    nq = offsets.shape[0] - 1
    for q in numba.prange(nq):
        a, b = offsets[q], offsets[q + 1]
        m = b - a
        for i in range(a, b):
            grad[i] = 0.0
            hess[i] = 0.0
            cost_high[i] = 0.0
            cost_low[i] = 0.0
        if m <= 1:
            continue
        order = np.argsort(-scores[a:b], kind="mergesort")
        ys = np.sort(labels[a:b])[::-1]
        idcg = 0.0
        for r in range(min(truncation, m)):
            idcg += (2.0 ** ys[r] - 1.0) / math.log2(2.0 + r)
        if idcg <= 0:
            continue
        best, worst = scores[a + order[0]], scores[a + order[m - 1]]
        total = 0.0
        for i in range(min(m - 1, truncation)):
            for j in range(i + 1, m):
                di, dj = a + order[i], a + order[j]
                if labels[di] == labels[dj]:
                    continue
                if labels[di] > labels[dj]:
                    h, l, rh, rl = di, dj, i, j
                else:
                    h, l, rh, rl = dj, di, j, i
                delta = scores[h] - scores[l]
                dndcg = ((2.0 ** labels[h] - 2.0 ** labels[l]) * abs(1.0 / math.log2(2.0 + rh) - 1.0 / math.log2(2.0 + rl))
                         / idcg)
                if score_norm and best != worst:
                    dndcg /= 0.01 + abs(delta)
                p = 1.0 / (1.0 + math.exp(min(sigma * delta, 700.0)))
                z = -cost_sign * sigma * delta                  # the pair loss log(1 + e^{z})
                cost = dndcg * (math.log1p(math.exp(z)) if z < 30 else z)
                both = tracked[h] and tracked[l]
                w = w_high[h] * w_low[l] if both else 1.0
                g = -sigma * p * dndcg * w
                hh = hess_scale * sigma * sigma * max(p * (1.0 - p), 1e-16) * dndcg * w
                grad[h] += g
                grad[l] -= g
                hess[h] += hh
                hess[l] += hh
                if both:
                    cost_high[h] += cost * w_low[l]
                    cost_low[l] += cost * w_high[h]
                total += -2.0 * g
        if list_norm and total > 0:
            f = math.log2(1.0 + total) / total
            for i in range(a, b):
                grad[i] *= f
                hess[i] *= f


def debiased_lambdas(scores, labels, offsets, w_high, w_low, *, sigma=1.0, truncation=30, score_norm=False,
                     list_norm=False, hess_scale=1.0, cost: str = "paper", tracked=None):
    """``(grad, hess, cost_high, cost_low)`` of the debiased λ-pair loss (module docstring): every
    pair's gradient and Hessian weighted by ``w_high[h] · w_low[l]`` (1/t⁺ of the clicked row,
    1/t⁻ of the unclicked one); ``cost_high[r]`` sums L_hl · w_low[l] over the pairs where row r
    is the clicked document, ``cost_low[r]`` sums L_hl · w_high[h] where it is the unclicked one
    (the numerators of the bias update). Hessians are not floored here. ``cost``: ``"paper"``
    L_hl = |ΔNDCG| log(1 + e^{−σδ}) (Hu et al.; their released code), or ``"reversed"``
    |ΔNDCG| log(1 + e^{+σδ}) — XGBoost's ``lambdarank_unbiased`` accumulates log(1/(1 − sigmoid(δ))),
    the cost of the pair in the wrong order; the two agree while the scores tie (the first round).
    ``tracked`` (default: every row): a pair with a row not tracked is neither weighted nor
    counted in the costs (XGBoost's treatment of positions past the ones it tracks).

    One session, clicks (1, 0), equal scores, no biases: |ΔNDCG| = 1 − 1/log2 3 = 0.3691,
    p = ½, so grad = ∓½ |ΔNDCG| and cost = log 2 · |ΔNDCG|:

    >>> g, h, ch, cl = debiased_lambdas([0.0, 0.0], [1, 0], [0, 2], np.ones(2), np.ones(2))
    >>> g.round(4).tolist(), h.round(4).tolist(), ch.round(4).tolist(), cl.round(4).tolist()
    ([-0.1845, 0.1845], [0.0923, 0.0923], [0.2558, 0.0], [0.0, 0.2558])
    """
    scores, labels, offsets = as_arrays(scores, labels, offsets)
    n = scores.shape[0]
    out = [np.empty(n) for _ in range(4)]
    tracked = np.ones(n, np.bool_) if tracked is None else np.asarray(tracked, np.bool_)
    _kernel(scores, labels, offsets, np.asarray(w_high, np.float64), np.asarray(w_low, np.float64), tracked, float(sigma),
            int(truncation), bool(score_norm), bool(list_norm), float(hess_scale), {"paper": 1.0, "reversed": -1.0}[cost],
            *out)
    return tuple(out)


def update_biases(cost_high, cost_low, position, n_positions: int, p: float = 0.0):
    """``(t⁺, t⁻)`` of one round's costs (Hu et al.'s bias update): per position the summed costs,
    divided by position 1's, to the power 1/(1 + p); a position with no cost (or position 1
    with none) keeps the ratio 1 there is no evidence against.

    >>> update_biases(np.array([4.0, 1.0, 0.0]), np.array([0.0, 2.0, 1.0]), np.array([0, 1, 0]), 2)
    (array([1.  , 0.25]), array([1., 2.]))
    """
    li = np.bincount(position, weights=cost_high, minlength=n_positions)[:n_positions]
    lj = np.bincount(position, weights=cost_low, minlength=n_positions)[:n_positions]
    expo = 1.0 / (1.0 + p)
    tp = np.where(li > 0, (li / li[0]) ** expo, 1.0) if li[0] > 1e-16 else np.ones(n_positions)
    tm = np.where(lj > 0, (lj / lj[0]) ** expo, 1.0) if lj[0] > 1e-16 else np.ones(n_positions)
    return tp, tm


class _PairOptions(Objective):
    def __init__(self, sigma: float = 1.0, truncation: int = 30, score_norm: bool = False, list_norm: bool = False,
                 hess_scale: float = 1.0, cost: str = "paper"):
        if not sigma > 0 or truncation < 1 or hess_scale <= 0 or cost not in ("paper", "reversed"):
            raise ValueError("sigma > 0, truncation >= 1, hess_scale > 0, cost 'paper' or 'reversed'")
        self.cost = cost
        self.sigma, self.truncation = float(sigma), int(truncation)
        self.score_norm, self.list_norm, self.hess_scale = bool(score_norm), bool(list_norm), float(hess_scale)

    def _lambdas(self, scores, labels, offsets, w_high, w_low, tracked=None):
        return debiased_lambdas(scores, labels, offsets, w_high, w_low, sigma=self.sigma, truncation=self.truncation,
                                score_norm=self.score_norm, list_norm=self.list_norm, hess_scale=self.hess_scale,
                                cost=self.cost, tracked=tracked)

    def grad_hess(self, scores, labels, offsets, iteration=0, rng=None):
        raise ValueError(f"{self.name} learns from click sessions: bind it to the training rows' positions first "
                         f"(objective.bind(position=..., propensity=...))")


class UnbiasedLambdaMART(_PairOptions):
    """Unbiased LambdaMART (Hu et al. 2019): λMART on click sessions with the position biases at
    clicked (t⁺) and unclicked (t⁻) positions estimated jointly, once per round (module
    docstring). ``p``: the bias regularization (exponent 1/(1 + p)); ``n_positions``: the
    positions tracked, and ``beyond`` what becomes of rows below them: ``"last"`` they share the
    last tracked position's bias (Hu et al.'s released code, its ``position_bins``), or
    ``"untracked"`` a pair with such a row is neither debiased nor counted in the update
    (XGBoost); ``cost="reversed"``: the pair cost as XGBoost's ``lambdarank_unbiased``
    accumulates it (:func:`debiased_lambdas`); ``update=False`` keeps every bias at 1 (the same
    lambdas without the debiasing: λMART on the clicks). :data:`VARIANTS` names the settings of
    the paper's equations, the authors' released code and XGBoost (:meth:`variant`).

    Before the first update every bias is 1, so the first round's gradient is λMART's:

    >>> obj = UnbiasedLambdaMART().bind(position=np.array([0, 1]))
    >>> obj.grad_hess(np.zeros(2), np.array([1, 0]), np.array([0, 2]))[0].round(4).tolist()
    [-0.1845, 0.1845]
    """

    name = "unbiased_lambdamart"

    def __init__(self, sigma=1.0, p: float = 0.0, truncation=30, score_norm=False, list_norm=False, hess_scale=1.0,
                 n_positions: int = 32, cost: str = "paper", update: bool = True, beyond: str = "last"):
        super().__init__(sigma, truncation, score_norm, list_norm, hess_scale, cost)
        if p < 0 or n_positions < 1 or beyond not in ("last", "untracked"):
            raise ValueError("p >= 0, n_positions >= 1, beyond 'last' or 'untracked'")
        self.p, self.n_positions, self.update, self.beyond = float(p), int(n_positions), bool(update), beyond

    @classmethod
    def variant(cls, name: str, **overrides) -> "UnbiasedLambdaMART":
        """The objective as :data:`VARIANTS` ``name`` sets it, ``overrides`` on top.

        >>> UnbiasedLambdaMART.variant("lambdarank_unbiased", p=2.0).p, UnbiasedLambdaMART.variant("authors").sigma
        (2.0, 2.0)
        """
        if name not in VARIANTS:
            raise ValueError(f"Unbiased LambdaMART variant: one of {', '.join(VARIANTS)}, not {name!r}")
        return cls(**{**VARIANTS[name][1], **overrides})

    def bind(self, position, propensity=None) -> "_BoundULM":
        position = np.asarray(position, np.int64)
        tracked = position < self.n_positions if self.beyond == "untracked" else None
        return _BoundULM(self, np.minimum(position, self.n_positions - 1), tracked)


#: "every pair": a truncation no list reaches (all pairs, as Hu et al.'s released code)
ALL_PAIRS = 1 << 30

#: the settings of Unbiased LambdaMART by source: (what it is, the objective's keyword arguments)
VARIANTS = {
    "authors": ("Hu et al.'s released LightGBM fork (acbull/Unbiased_LambdaMart, rank_objective.hpp and "
                "config.cpp): its sigmoid table 2/(1 + e^{2δ}) (σ = 2) and Hessian 2·σ²p(1 − p), |ΔNDCG| divided "
                "by 0.01 + |δ|, every pair of a session, no list normalization, eta = 0.5 read as the exponent "
                "1/(1 + 0.5) (p = 0.5), 12 position bins (rows below share the 12th), the paper's pair cost",
                dict(sigma=2.0, p=0.5, truncation=ALL_PAIRS, score_norm=True, list_norm=False, hess_scale=2.0,
                     n_positions=12, cost="paper", beyond="last")),
    "lambdarank_unbiased": ("XGBoost's lambdarank_unbiased at its defaults (src/objective/lambdarank_obj.{h,cc}): σ = 1, "
                "Hessian 2·p(1 − p), |ΔNDCG| divided by 0.01 + |δ|, the top 32 by score paired with every "
                "document, list normalization log2(1 + S)/S, lambdarank_bias_norm 1 (p = 1), 32 positions "
                "tracked (pairs with a row below neither debiased nor counted), the cost of the reversed pair",
                dict(sigma=1.0, p=1.0, truncation=32, score_norm=True, list_norm=True, hess_scale=2.0,
                     n_positions=32, cost="reversed", beyond="untracked")),
    "equations": ("the paper's equations: σ = 1, Hessian σ²p(1 − p), no score or list normalization, no bias "
                  "regularization (p = 0, the paper's table); where it is silent, LightGBM's truncation 30 and 32 "
                  "positions",
                  dict(sigma=1.0, p=0.0, truncation=30, score_norm=False, list_norm=False, hess_scale=1.0,
                       n_positions=32, cost="paper", beyond="last")),
}


class _BoundULM(Objective):
    """Unbiased LambdaMART bound to a training set: its positions and the biases of the rounds so far."""

    name = "unbiased_lambdamart"

    def __init__(self, config: UnbiasedLambdaMART, position: np.ndarray, tracked=None):
        self.config, self._position, self._tracked = config, position, tracked
        self.t_plus, self.t_minus = np.ones(config.n_positions), np.ones(config.n_positions)
        self.rounds = 0

    def grad_hess(self, scores, labels, offsets, iteration=0, rng=None):
        c, pos = self.config, self._position
        g, h, ch, cl = c._lambdas(scores, labels, offsets, 1.0 / self.t_plus[pos], 1.0 / self.t_minus[pos],
                                  self._tracked)
        if c.update:
            self.t_plus, self.t_minus = update_biases(ch, cl, pos, c.n_positions, c.p)
        self.rounds += 1
        return g, np.maximum(h, HESS_FLOOR)

    def biases(self) -> dict:
        """The last round's t⁺ and t⁻, and t⁺^{1+p} (the unregularized ratio: the estimate of θ_i/θ_1)."""
        return {"t_plus": self.t_plus.tolist(), "t_minus": self.t_minus.tolist(),
                "propensity": (self.t_plus ** (1.0 + self.config.p)).tolist(), "rounds": self.rounds}

    def __repr__(self) -> str:
        return f"{self.config!r}.bind(...)"


class IPSLambdaMART(_PairOptions):
    """λMART on click sessions with each pair weighted by 1/θ of its clicked document's position
    (inverse propensity scoring; θ clipped below at ``clip``). With every θ = 1 it is λMART.

    >>> obj = IPSLambdaMART().bind(position=np.array([0, 1]), propensity=np.array([0.5, 1.0]))
    >>> obj.grad_hess(np.zeros(2), np.array([1, 0]), np.array([0, 2]))[0].round(4).tolist()
    [-0.3691, 0.3691]
    """

    name = "ips_lambdamart"

    def __init__(self, sigma=1.0, truncation=30, score_norm=False, list_norm=False, hess_scale=1.0, clip: float = 0.01):
        super().__init__(sigma, truncation, score_norm, list_norm, hess_scale)
        if not 0 < clip <= 1:
            raise ValueError("clip in (0, 1]")
        self.clip = float(clip)

    def bind(self, position=None, propensity=None) -> "_BoundIPS":
        if propensity is None:
            raise ValueError(f"{self.name}: needs the training rows' propensities")
        return _BoundIPS(self, 1.0 / np.maximum(np.asarray(propensity, np.float64), self.clip))


class _BoundIPS(Objective):
    name = "ips_lambdamart"

    def __init__(self, config: IPSLambdaMART, weight: np.ndarray):
        self.config, self._weight = config, weight

    def grad_hess(self, scores, labels, offsets, iteration=0, rng=None):
        g, h, _, _ = self.config._lambdas(scores, labels, offsets, self._weight, np.ones_like(self._weight))
        return g, np.maximum(h, HESS_FLOOR)

    def __repr__(self) -> str:
        return f"{self.config!r}.bind(...)"


class IPSXENDCG(XENDCG):
    """XE_NDCG (Bruch 2021) on click sessions with IPS-weighted gains: φ_i ∝ (2^{y_i} − 1)/θ_i + 1 − γ_i
    (θ clipped below at ``clip``). Bound to propensities all 1 it is XE_NDCG, draw for draw."""

    name = "ips_xe_ndcg"

    def __init__(self, order=2, eps=0.0, hess_floor=HESS_FLOOR, clip: float = 0.01):
        super().__init__(order=order, eps=eps, hess_floor=hess_floor)
        if not 0 < clip <= 1:
            raise ValueError("clip in (0, 1]")
        self.clip = float(clip)
        self._inv = None

    def bind(self, position=None, propensity=None) -> "IPSXENDCG":
        if propensity is None:
            raise ValueError(f"{self.name}: needs the training rows' propensities")
        out = IPSXENDCG(order=self.order, eps=self.eps, hess_floor=self.hess_floor, clip=self.clip)
        out._inv = 1.0 / np.maximum(np.asarray(propensity, np.float64), self.clip)
        return out

    def grad_hess(self, scores, labels, offsets, iteration=0, rng=None, gamma=None):
        if self._inv is None:
            raise ValueError(f"{self.name}: bind it to the training rows' propensities first")
        n = np.asarray(scores).shape[0]
        gamma = self._gamma(n, rng) if gamma is None else np.asarray(gamma, np.float64)
        gain = 2.0 ** np.asarray(labels, np.float64) - 1.0
        # 2^y − γ' = (2^y − 1)/θ + 1 − γ  with  γ' = γ + (2^y − 1)(1 − 1/θ)
        return super().grad_hess(scores, labels, offsets, iteration, rng, gamma=gamma + gain * (1.0 - self._inv))
