"""The objective interface: float64 (grad, hess) from flat scores, labels and query offsets.

An objective is a small object holding its hyperparameters. ``grad_hess`` takes the
current scores, integer labels and query offsets, plus the boosting ``iteration`` and a
seeded ``np.random.Generator`` for stochastic losses, and returns float64 arrays of the
same length. ``loss`` returns the objective's value where one exists. Nothing here knows
LightGBM or XGBoost: see :mod:`ltrrepro.objectives.adapters`.
"""
from __future__ import annotations

import numpy as np

__all__ = ["Objective", "objective_factory", "check_grad_hess", "HESS_FLOOR"]

#: Smallest Hessian handed to a GBDT library. LightGBM stores grad/hess as float32, whose
#: smallest normal number is ~1.2e-38; a Hessian that rounds to 0 makes a leaf's Newton step
#: -G/H blow up or be skipped. 1e-16 keeps every Hessian representable and positive.
HESS_FLOOR = 1e-16


class Objective:
    """Base class. Subclasses implement :meth:`grad_hess` and, where defined, :meth:`loss`."""

    name = "objective"
    stochastic = False
    #: True when the loss is a sum of per-document terms, so that a tree leaf's exact first
    #: and second derivatives are the sums of the documents' (Xia et al. Definition 1).
    derivative_additive = False
    #: raw scores per document (McRank: one per class, ranked by :func:`mcrank_scores`)
    n_outputs = 1
    #: True when :meth:`grad_hess` may return negative Hessians on purpose (PL-Rank's sampled
    #: Hessian under ``hessian_policy="none"``): the adapters then check them for finiteness
    #: only, and a library that cannot take them refuses the objective (LightGBM's adapter)
    negative_hessians = False

    def grad_hess(self, scores, labels, offsets, iteration: int = 0, rng: np.random.Generator | None = None):
        raise NotImplementedError

    def loss(self, scores, labels, offsets, **kwargs) -> float:
        raise NotImplementedError(f"{self.name} has no closed-form loss")

    def __repr__(self) -> str:
        params = ", ".join(f"{k}={v!r}" for k, v in vars(self).items() if not k.startswith("_"))
        return f"{type(self).__name__}({params})"


def objective_factory(fn):
    """Mark ``fn`` (a function returning an :class:`Objective`) as a plug-in factory.

    A plug-in spec ``package.module:Name`` must name an :class:`Objective` subclass, a function
    marked with this decorator, or a function annotated ``-> Objective`` (or a subclass): that is
    checked *before* anything is called, so a spec — typed by a user, or read from a manifest —
    can never call an arbitrary function (``os:system``).
    """
    fn.__ltrrepro_objective_factory__ = True
    return fn


def as_arrays(scores, labels, offsets):
    scores = np.ascontiguousarray(scores, dtype=np.float64).ravel()
    labels = np.ascontiguousarray(labels)
    if labels.dtype.kind == "f":
        labels = labels.astype(np.int64)
    labels = labels.astype(np.int64, copy=False).ravel()
    offsets = np.ascontiguousarray(offsets, dtype=np.int64)
    if scores.shape != labels.shape:
        raise ValueError(f"scores {scores.shape} and labels {labels.shape} differ")
    if offsets[0] != 0 or offsets[-1] != scores.shape[0]:
        raise ValueError("offsets must start at 0 and end at the number of documents")
    return scores, labels, offsets


def check_grad_hess(grad: np.ndarray, hess: np.ndarray, name: str, iteration: int,
                    allow_negative: bool = False) -> None:
    """Raise on NaN/inf gradients or negative/NaN Hessians (libraries would skip or stall);
    with ``allow_negative`` (an objective's :attr:`Objective.negative_hessians`) a negative
    Hessian passes, a non-finite one still raises."""
    if not np.all(np.isfinite(grad)):
        bad = int(np.flatnonzero(~np.isfinite(grad))[0])
        raise FloatingPointError(f"{name}: non-finite gradient at document {bad}, iteration {iteration}")
    if allow_negative:
        if not np.all(np.isfinite(hess)):
            bad = int(np.flatnonzero(~np.isfinite(hess))[0])
            raise FloatingPointError(f"{name}: non-finite Hessian {float(np.ravel(hess)[bad])!r} at document {bad}, "
                                     f"iteration {iteration}")
        return
    if not np.all(np.isfinite(hess)) or np.any(hess < 0):
        bad = int(np.flatnonzero(~(np.isfinite(hess) & (hess >= 0)))[0])
        raise FloatingPointError(f"{name}: negative or non-finite Hessian {float(np.ravel(hess)[bad])!r} at document {bad}, "
                                 f"iteration {iteration}")
