"""Hessian treatments as objective wrappers: the same gradient, another second-order term.

A GBDT library fits a leaf as −Σ grad / Σ hess (plus its L2 term), so the Hessian an objective
hands it decides the length of each leaf's step and, through the split gain G²/H, which splits
are taken. :class:`ConstantHessian` keeps the wrapped objective's gradient as it is (the same
scores, labels, iteration and random generator reach it, so a stochastic loss draws the same
sample) and replaces its Hessian by a constant: the first-order treatment against which Kang,
de Rijke and Oosterhuis (SIGIR 2024) compare PL-Rank's sampled Hessian ("without the Hessian":
their code hands XGBoost a Hessian of ones).

>>> from ltrrepro.objectives import XENDCG
>>> g, h = ConstantHessian(XENDCG(order=0)).grad_hess([0.0, 0.0], [1, 0], [0, 2], rng=np.random.default_rng(0))
>>> g0, _ = XENDCG(order=0).grad_hess([0.0, 0.0], [1, 0], [0, 2], rng=np.random.default_rng(0))
>>> bool((g == g0).all()), h.tolist()
(True, [1.0, 1.0])
"""
from __future__ import annotations

import numpy as np

from .base import Objective

__all__ = ["ConstantHessian", "constant_hessian", "RangeNewton"]


class ConstantHessian(Objective):
    """``objective``'s gradient with the Hessian ``value`` for every document (``value`` > 0).

    Stateless beyond the wrapped objective: ``grad_hess`` passes its arguments through and
    returns ``(grad, full(value))``; ``loss`` is the wrapped objective's. Lists of one document
    keep the wrapped objective's zero gradient (their constant Hessian does not move a leaf)."""

    def __init__(self, objective: Objective, value: float = 1.0):
        if not isinstance(objective, Objective):
            raise TypeError(f"ConstantHessian wraps an ltrrepro Objective, got {objective!r}")
        if not float(value) > 0:
            raise ValueError(f"a constant Hessian must be > 0, got {value}")
        self.objective = objective
        self.value = float(value)
        self.name = f"{objective.name}+hess={self.value:g}"
        self.stochastic = objective.stochastic

    def grad_hess(self, scores, labels, offsets, iteration=0, rng=None, **kwargs):
        grad, _ = self.objective.grad_hess(scores, labels, offsets, iteration=iteration, rng=rng, **kwargs)
        return grad, np.full(np.shape(grad), self.value, dtype=np.float64)

    def loss(self, scores, labels, offsets, **kwargs) -> float:
        return self.objective.loss(scores, labels, offsets, **kwargs)


class constant_hessian:                                   # noqa: N801 - a factory, named as a function
    """An objective factory (a system's ``RankingOptions.objective``): ``constant_hessian(cls)(**kw)``
    is ``ConstantHessian(cls(**kw))``; ``hessian`` among the keywords sets the constant (default 1).
    Picklable and comparable, so systems holding one stay equal across processes.

    >>> from ltrrepro.objectives import ListNet
    >>> constant_hessian(ListNet)(order=0, hessian=2.0).grad_hess([0.0, 1.0], [1, 0], [0, 2])[1].tolist()
    [2.0, 2.0]
    """

    def __init__(self, cls):
        self.cls = cls
        self.__name__ = f"constant_hessian({cls.__name__})"

    def __call__(self, hessian: float = 1.0, **kwargs) -> ConstantHessian:
        return ConstantHessian(self.cls(**kwargs), value=hessian)

    def __eq__(self, other):
        return isinstance(other, constant_hessian) and other.cls is self.cls

    def __hash__(self):
        return hash((constant_hessian, self.cls))

    def __repr__(self):
        return self.__name__


class RangeNewton(Objective):
    """The exact Newton step of a softmax cross entropy (XE_NDCG, ListNet with ``eps`` 0) on the
    range of its Hessian: the limit the Neumann series converges to (Bruch 2021 §4.4).

    With ε = 0 the list's Hessian H = diag(ρ(1 − ρ)) − ρρᵀ is singular (H·1 = 0), so the solve of
    ``order="exact"`` fails; the gradient ∇ = ρ − φ sums to 0, so it lies in H's range and the
    Newton step x with H x = ∇ and x ⊥ 1 exists: it solves (H + 11ᵀ) x = ∇. The library is handed
    ``grad = ρ(1 − ρ) x`` and ``hess = ρ(1 − ρ)``, as the Neumann orders are (their leaf step
    −Σ grad / Σ hess is then the Newton step's). Wraps an objective built with ``order=0``,
    whose gradient is ∇ (the same γ drawn from the same generator).

    >>> from ltrrepro.objectives import ListNet
    >>> g, h = RangeNewton(ListNet(order=0)).grad_hess([0.0, 0.0], [1, 0], [0, 2])
    >>> (g / h).round(4).tolist()          # x = ∇ / (2ρ(1 − ρ)) for two documents: (ρ − φ) / 0.5
    [-0.4621, 0.4621]
    """

    def __init__(self, objective: Objective):
        if getattr(objective, "order", None) != 0 or getattr(objective, "eps", 0.0) != 0:
            raise ValueError(f"RangeNewton wraps a cross entropy of order 0 and eps 0, got {objective!r}")
        self.objective = objective
        self.name = f"{objective.name}+newton=range"
        self.stochastic = objective.stochastic

    def grad_hess(self, scores, labels, offsets, iteration=0, rng=None, **kwargs):
        grad, hess = self.objective.grad_hess(scores, labels, offsets, iteration=iteration, rng=rng, **kwargs)
        scores = np.asarray(scores, dtype=np.float64).ravel()
        offsets = np.asarray(offsets, dtype=np.int64)
        out = grad.copy()
        for q in range(offsets.shape[0] - 1):
            a, b = int(offsets[q]), int(offsets[q + 1])
            if b - a <= 1:
                continue
            e = np.exp(scores[a:b] - scores[a:b].max())
            rho = e / e.sum()
            H = -np.outer(rho, rho)
            H[np.diag_indices(b - a)] = rho * (1.0 - rho)
            H += 1.0
            x = np.linalg.solve(H, grad[a:b])
            out[a:b] = rho * (1.0 - rho) * x
        return out, hess

    def loss(self, scores, labels, offsets, **kwargs) -> float:
        return self.objective.loss(scores, labels, offsets, **kwargs)


class range_newton(constant_hessian):                     # noqa: N801 - a factory, named as a function
    """An objective factory: ``range_newton(cls)(**kw)`` is ``RangeNewton(cls(**kw))``."""

    def __init__(self, cls):
        super().__init__(cls)
        self.__name__ = f"range_newton({cls.__name__})"

    def __call__(self, **kwargs) -> RangeNewton:
        return RangeNewton(self.cls(**kwargs))

    def __eq__(self, other):
        return isinstance(other, range_newton) and other.cls is self.cls

    def __hash__(self):
        return hash((range_newton, self.cls))
