"""Thin adapters from an :class:`~ltrrepro.objectives.base.Objective` to the libraries.

* LightGBM: ``lgb.train({"objective": LightGBMObjective(obj, seed=...) , ...}, dataset)`` and
  ``LGBMRanker(objective=LightGBMObjective(obj).sklearn)`` (the 4-argument form
  ``(y_true, y_pred, weight, group)``).
* XGBoost: ``xgb.train(params, dtrain, obj=XGBoostObjective(obj, seed=...))``; the query
  boundaries come from the DMatrix's ``group_ptr``.

Each adapter counts boosting iterations and owns one ``np.random.Generator`` seeded once,
which the objective draws from (XE_NDCG's γ), so a run is reproducible from its seed.
Gradients are checked for NaN/inf and Hessians for negative values before they reach the
library. Custom objectives start from a zero score in both libraries, as the built-in
ranking objectives do.
"""
from __future__ import annotations

import functools

import numpy as np

from .base import Objective, check_grad_hess

__all__ = ["LightGBMObjective", "XGBoostObjective", "offsets_from_group_sizes"]


def offsets_from_group_sizes(group) -> np.ndarray:
    return np.r_[0, np.cumsum(np.asarray(group, dtype=np.int64))].astype(np.int64)


class _Adapter:
    def __init__(self, objective: Objective, seed: int | np.random.SeedSequence = 0, check: bool = True):
        self.objective = objective
        self.rng = np.random.default_rng(seed)
        self.iteration = 0
        self.check = check
        self._offsets_key = None
        self._offsets = None

    def __deepcopy__(self, memo):
        # lgb.train deep-copies its params: keep one adapter, so that its state (iteration,
        # generator, tracked scores) is the caller's. Use a fresh adapter per training run.
        return self

    def __copy__(self):
        return self

    def _compute(self, preds, labels, offsets):
        grad, hess = self.objective.grad_hess(preds, labels, offsets, iteration=self.iteration, rng=self.rng)
        if self.check:
            grad, hess = np.asarray(grad), np.asarray(hess)
            n = np.asarray(preds).size
            if grad.size != n or hess.size != n:
                raise ValueError(f"{self.label}: grad_hess returned {grad.size} gradients and {hess.size} Hessians "
                                 f"for {n} scores at iteration {self.iteration} (one each per document and output)")
            check_grad_hess(grad, hess, self.label, self.iteration)
        self.iteration += 1
        return grad, hess

    @property
    def label(self) -> str:
        """How errors name the objective: its name, and where it is defined when outside ltrrepro."""
        cls = type(self.objective)
        if cls.__module__.startswith("ltrrepro."):
            return self.objective.name
        return f"{self.objective.name} ({cls.__module__}:{cls.__qualname__})"


class LightGBMObjective(_Adapter):
    """``objective=`` callable for ``lgb.train``: ``(preds, train_data) -> (grad, hess)``.

    With ``track_scores=True`` the adapter ignores LightGBM's cached training scores and
    uses its own ``scores`` (kept up to date by a leaf-rewriting callback of
    :mod:`ltrrepro.fit.callbacks`): once a tree's
    leaves are rescaled after it was added, LightGBM's cache no longer matches the model.
    """

    def __init__(self, objective: Objective, seed=0, check: bool = True, track_scores: bool = False):
        super().__init__(objective, seed=seed, check=check)
        self.track_scores = bool(track_scores)
        self.scores = None

    def _offsets_for(self, dataset):
        key = id(dataset)
        if key != self._offsets_key:
            group = dataset.get_group()
            if group is None:      # pointwise objectives (McRank) need no groups
                self._offsets = np.array([0, dataset.num_data()], dtype=np.int64)
            else:
                self._offsets = offsets_from_group_sizes(group)
            self._offsets_key = key
        return self._offsets

    def __call__(self, preds, train_data):
        labels = np.asarray(train_data.get_label())
        if self.track_scores:
            if self.scores is None:
                self.scores = np.zeros(labels.shape[0])
            preds = self.scores
        return self._compute(preds, labels, self._offsets_for(train_data))

    def sklearn(self, y_true, y_pred, weight, group):
        """The 4-argument form used by ``LGBMRanker(objective=...)``."""
        if weight is not None:
            raise ValueError("sample weights are not supported by ltrrepro objectives")
        return self._compute(y_pred, np.asarray(y_true), offsets_from_group_sizes(group))


class XGBoostObjective(_Adapter):
    """``obj=`` callable for ``xgb.train``: ``(preds, dtrain) -> (grad, hess)``.

    A multi-output objective (McRank) returns (n, K) arrays; XGBoost before 2.1 takes them
    only flattened row by row, so they are handed over that way there."""

    def __call__(self, preds, dtrain):
        ptr = dtrain.get_uint_info("group_ptr")
        labels = dtrain.get_label()
        if ptr is None or len(ptr) < 2:      # pointwise objectives (McRank) need no groups
            ptr = np.array([0, labels.shape[0]])
        grad, hess = self._compute(preds, labels, np.asarray(ptr, dtype=np.int64))
        if grad.ndim == 2 and _xgboost_wants_flat_gradients():
            return grad.reshape(-1), hess.reshape(-1)
        return grad, hess


@functools.lru_cache(maxsize=1)
def _xgboost_wants_flat_gradients() -> bool:
    """XGBoost < 2.1 reads a custom objective's gradient as one flat array."""
    import xgboost

    major, minor = (int(x) for x in xgboost.__version__.split(".")[:2])
    return (major, minor) < (2, 1)
