"""Thin adapters from an :class:`~ltrrepro.objectives.base.Objective` to the libraries.

An adapter holds only the function — the objective and whether to check its output — as
LightGBM's own objective wrapper does. What changes from round to round of one training run
(the boosting iteration, the objective's generator, the scores a leaf-rewriting callback
keeps) is a :class:`RoundState`, made by the backend's ``train`` call
(:meth:`ltrrepro.fit.backends.Backend.train`) and handed to the adapter with :meth:`bind`,
which returns the plain function the library calls (a function: the library's deep copy of
its parameters keeps it, and with it the state the callbacks share). One adapter may train
any number of models; each training run starts from its own state.

* LightGBM: ``lgb.train({"objective": LightGBMObjective(obj).bind(RoundState.start(seed)), ...},
  dataset)``; ``LGBMRanker(objective=LightGBMObjective(obj).sklearn(RoundState.start(seed)))``
  (the 4-argument form ``(y_true, y_pred, weight, group)``).
* XGBoost: ``xgb.train(params, dtrain, obj=XGBoostObjective(obj).bind(RoundState.start(seed)))``;
  the query boundaries come from the DMatrix's ``group_ptr``.

The objective draws from the state's one ``np.random.Generator`` (XE_NDCG's γ), so a run is
reproducible from its seed. Gradients are checked for NaN/inf and Hessians for negative values
before they reach the library; an objective that declares ``negative_hessians`` (PL-Rank's sampled
Hessian, ``hessian_policy="none"``) has its Hessians checked for NaN/inf only, and runs in XGBoost,
which trains on them; LightGBM's adapter refuses it when made. Custom objectives start from a zero score in both libraries, as
the built-in ranking objectives do.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from .base import Objective, check_grad_hess

__all__ = ["LightGBMObjective", "XGBoostObjective", "RoundState", "offsets_from_group_sizes"]


def offsets_from_group_sizes(group) -> np.ndarray:
    return np.r_[0, np.cumsum(np.asarray(group, dtype=np.int64))].astype(np.int64)


@dataclass
class RoundState:
    """The state of one training run that the objective's calls share: the boosting
    ``iteration`` (0 at the first call), the generator ``rng`` the objective draws from, and
    ``scores``: the model's training scores when a callback rewrites leaves and keeps them
    (:mod:`ltrrepro.fit.callbacks`), else None. ``offsets``: the query offsets of the last
    dataset seen, by its identity (a cache)."""

    rng: np.random.Generator
    iteration: int = 0
    scores: np.ndarray | None = None
    offsets: tuple | None = None

    @classmethod
    def start(cls, seed: int | np.random.SeedSequence = 0) -> "RoundState":
        """The state before the first round: iteration 0, a generator seeded with ``seed``."""
        return cls(np.random.default_rng(seed))


class _Adapter:
    """The function only: ``objective`` and ``check`` (its output checked each round)."""

    def __init__(self, objective: Objective, check: bool = True):
        self.objective = objective
        self.check = check

    def compute(self, state: RoundState, preds, labels, offsets):
        """``(grad, hess)`` of the objective at ``preds`` in the round of ``state``, which then
        moves to the next round."""
        grad, hess = self.objective.grad_hess(preds, labels, offsets, iteration=state.iteration, rng=state.rng)
        if self.check:
            grad, hess = np.asarray(grad), np.asarray(hess)
            n = np.asarray(preds).size
            if grad.size != n or hess.size != n:
                raise ValueError(f"{self.label}: grad_hess returned {grad.size} gradients and {hess.size} Hessians "
                                 f"for {n} scores at iteration {state.iteration} (one each per document and output)")
            check_grad_hess(grad, hess, self.label, state.iteration,
                            allow_negative=bool(getattr(self.objective, "negative_hessians", False)))
        state.iteration += 1
        return grad, hess

    def __call__(self, *args):
        raise TypeError(f"{type(self).__name__} holds only the objective: hand the library "
                        f"adapter.bind(RoundState.start(seed)) (a backend's train does), one state per training run")

    @property
    def label(self) -> str:
        """How errors name the objective: its name, and where it is defined when outside ltrrepro."""
        cls = type(self.objective)
        if cls.__module__.startswith("ltrrepro."):
            return self.objective.name
        return f"{self.objective.name} ({cls.__module__}:{cls.__qualname__})"

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.objective!r})"


def _bound(adapter, fn):
    """``fn`` as the library's objective, carrying its adapter (``.objective``, ``.adapter``)
    for what records the parameters."""
    fn.adapter, fn.objective = adapter, adapter.objective
    return fn


class LightGBMObjective(_Adapter):
    """``objective=`` for ``lgb.train``: :meth:`bind` gives ``(preds, train_data) -> (grad, hess)``.

    With ``track_scores=True`` the objective ignores LightGBM's cached training scores and
    uses the state's ``scores`` (kept up to date by a leaf-rewriting callback of
    :mod:`ltrrepro.fit.callbacks`, bound to the same state): once a tree's leaves are rescaled
    after it was added, LightGBM's cache no longer matches the model.
    """

    def __init__(self, objective: Objective, check: bool = True, track_scores: bool = False):
        super().__init__(objective, check=check)
        self.track_scores = bool(track_scores)
        if getattr(objective, "negative_hessians", False):
            raise ValueError(f"{self.label}: its Hessians may be negative ({objective!r}), which LightGBM cannot take "
                             f"(its histograms count a bin's documents from the bin's Hessian sum); keep them positive "
                             f"(PL-Rank: hessian_policy='clip' or 'abs') or train it in XGBoost")

    @staticmethod
    def _offsets_for(state: RoundState, dataset):
        key = id(dataset)
        if state.offsets is None or state.offsets[0] != key:
            group = dataset.get_group()
            if group is None:      # pointwise objectives (McRank) need no groups
                offsets = np.array([0, dataset.num_data()], dtype=np.int64)
            else:
                offsets = offsets_from_group_sizes(group)
            state.offsets = (key, offsets)
        return state.offsets[1]

    def bind(self, state: RoundState):
        """The function ``lgb.train`` calls, over ``state``."""
        def objective(preds, train_data):
            labels = np.asarray(train_data.get_label())
            if self.track_scores:
                if state.scores is None:
                    state.scores = np.zeros(labels.shape[0])
                preds = state.scores
            return self.compute(state, preds, labels, self._offsets_for(state, train_data))
        return _bound(self, objective)

    def sklearn(self, state: RoundState):
        """The 4-argument form used by ``LGBMRanker(objective=...)``, over ``state``."""
        def objective(y_true, y_pred, weight, group):
            if weight is not None:
                raise ValueError("sample weights are not supported by ltrrepro objectives")
            return self.compute(state, y_pred, np.asarray(y_true), offsets_from_group_sizes(group))
        return _bound(self, objective)


class XGBoostObjective(_Adapter):
    """``obj=`` for ``xgb.train``: :meth:`bind` gives ``(preds, dtrain) -> (grad, hess)``.

    A multi-output objective (McRank) returns (n, K) arrays; XGBoost before 2.1 takes them
    only flattened row by row, so they are handed over that way there."""

    def bind(self, state: RoundState):
        """The function ``xgb.train`` calls, over ``state``."""
        def objective(preds, dtrain):
            ptr = dtrain.get_uint_info("group_ptr")
            labels = dtrain.get_label()
            if ptr is None or len(ptr) < 2:      # pointwise objectives (McRank) need no groups
                ptr = np.array([0, labels.shape[0]])
            grad, hess = self.compute(state, preds, labels, np.asarray(ptr, dtype=np.int64))
            if grad.ndim == 2 and _xgboost_wants_flat_gradients():
                return grad.reshape(-1), hess.reshape(-1)
            return grad, hess
        return _bound(self, objective)


@functools.lru_cache(maxsize=1)
def _xgboost_wants_flat_gradients() -> bool:
    """XGBoost < 2.1 reads a custom objective's gradient as one flat array."""
    import xgboost

    major, minor = (int(x) for x in xgboost.__version__.split(".")[:2])
    return (major, minor) < (2, 1)
