"""Pointwise squared loss (GBT / MART): ℓ = ½ Σ (y − f)², grad = f − y, hess = 1."""
from __future__ import annotations

import numpy as np

from .base import Objective, as_arrays

__all__ = ["SquaredLoss"]


class SquaredLoss(Objective):
    """½ Σ_i (y_i − f_i)² (Friedman's least-squares boosting; Zheng's GBT): grad f − y, hess 1.

    >>> g, h = SquaredLoss().grad_hess([0.5, 2.0], [1, 0], [0, 2])
    >>> g.tolist(), h.tolist()
    ([-0.5, 2.0], [1.0, 1.0])
    """

    name = "squared"
    derivative_additive = True

    def grad_hess(self, scores, labels, offsets, iteration=0, rng=None):
        scores, labels, offsets = as_arrays(scores, labels, offsets)
        return scores - labels, np.ones_like(scores)

    def loss(self, scores, labels, offsets, **kw):
        scores, labels, offsets = as_arrays(scores, labels, offsets)
        return float(0.5 * np.sum((labels - scores) ** 2))
