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

__all__ = ["LightGBMObjective", "XGBoostObjective", "LeafRescaleCallback", "UnitHessian", "NewtonLeafCallback",
           "offsets_from_group_sizes"]


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
            check_grad_hess(grad, hess, self.objective.name, self.iteration)
        self.iteration += 1
        return grad, hess


class LightGBMObjective(_Adapter):
    """``objective=`` callable for ``lgb.train``: ``(preds, train_data) -> (grad, hess)``.

    With ``track_scores=True`` the adapter ignores LightGBM's cached training scores and
    uses its own ``scores`` (kept up to date by :class:`LeafRescaleCallback`): once a tree's
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


class LeafRescaleCallback:
    """LightGBM callback: after each tree, rescale its leaves by ``shrinkage · step``, where
    ``step = step_fn(scores, tree_output)`` is a line search on the true objective (QBRank,
    Zheng et al. Algorithm 2: h <- h + η s_m g_m). Train with ``learning_rate=1`` so that the
    tree's raw output is the fitted g_m. The adapter (``track_scores=True``) receives the
    updated scores, so the next gradients are computed at the model's real scores.
    LightGBM's own cached training/validation scores are stale afterwards: evaluate with
    ``Booster.predict``. The applied steps are kept in ``steps``.
    """

    order = 20

    def __init__(self, adapter: LightGBMObjective, X, step_fn, shrinkage: float = 1.0):
        if not adapter.track_scores:
            raise ValueError("the adapter must track its own scores (track_scores=True)")
        self.adapter = adapter
        self.X = X
        self.step_fn = step_fn
        self.shrinkage = float(shrinkage)
        self.steps: list[float] = []

    def __call__(self, env) -> None:
        booster = env.model
        it = booster.num_trees() - 1
        g = booster.predict(self.X, start_iteration=it, num_iteration=1, raw_score=True)
        h = self.adapter.scores
        step = float(self.step_fn(h, g))
        factor = self.shrinkage * step
        tree = booster.dump_model(start_iteration=it, num_iteration=1)["tree_info"][0]
        n_leaves = tree["num_leaves"]
        for leaf in range(n_leaves):
            booster.set_leaf_output(it, leaf, booster.get_leaf_output(it, leaf) * factor)
        self.adapter.scores = h + factor * g
        self.steps.append(step)


class UnitHessian(Objective):
    """The SE split principle inside a GBDT library (Xia et al. Eq. 3): the library is
    handed ``(grad, 1)``, so its Newton gain G_l²/n_l + G_r²/n_r − G²/n is the squared-error
    reduction of fitting the pseudo-responses −grad with unit weights. The true
    ``(grad, hess)`` of the wrapped objective at the same scores are kept in ``last`` for
    :class:`NewtonLeafCallback`, which replaces the library's leaf values (−G/n) by the
    Newton step of the true loss (Eq. 8)."""

    def __init__(self, objective: Objective):
        self.objective = objective
        self.name = f"se[{objective.name}]"
        self.derivative_additive = objective.derivative_additive
        self.last = None
        self.calls: list[np.ndarray] = []
        self.keep_calls = False

    def grad_hess(self, scores, labels, offsets, iteration=0, rng=None):
        grad, hess = self.objective.grad_hess(scores, labels, offsets, iteration=iteration, rng=rng)
        self.last = (np.asarray(grad), np.asarray(hess))
        if self.keep_calls:
            self.calls.append(np.array(scores, dtype=np.float64, copy=True))
        return grad, np.ones_like(hess)

    def loss(self, scores, labels, offsets, **kw):
        return self.objective.loss(scores, labels, offsets, **kw)


class NewtonLeafCallback:
    """LightGBM callback: after each round, set every leaf of the round's trees (one per
    output: K for McRank) to ``learning_rate · (−Σ_leaf grad / Σ_leaf hess)`` of the true
    loss (the gradients ``UnitHessian.last`` computed at the model's real scores), and move
    the adapter's tracked scores by the same values, so that the next gradients are taken at
    the model's scores (LightGBM's own training-score cache is stale afterwards: predict with
    ``Booster.predict``). ``X``: the training features, to find each row's leaf.
    ``min_hessian``: a leaf whose Σ hess is below it gets 0."""

    order = 20

    def __init__(self, adapter: "LightGBMObjective", X, learning_rate: float, n_outputs: int = 1,
                 min_hessian: float = 1e-12):
        if not adapter.track_scores or not isinstance(adapter.objective, UnitHessian):
            raise ValueError("the adapter must wrap a UnitHessian objective and track its scores")
        self.adapter = adapter
        self.X = X
        self.lr = float(learning_rate)
        self.K = int(n_outputs)
        self.min_hessian = float(min_hessian)
        n = X.shape[0]
        adapter.scores = np.zeros((n, self.K)) if self.K > 1 else np.zeros(n)

    def __call__(self, env) -> None:
        booster = env.model
        it = env.iteration - env.begin_iteration
        G, H = self.adapter.objective.last
        G = G.reshape(G.shape[0], -1)
        H = H.reshape(H.shape[0], -1)
        leaves = booster.predict(self.X, pred_leaf=True, start_iteration=it, num_iteration=1)
        leaves = np.asarray(leaves, dtype=np.int64).reshape(self.X.shape[0], -1)
        scores = self.adapter.scores.reshape(self.X.shape[0], -1)
        for k in range(self.K):
            tree = it * self.K + k
            nl = int(leaves[:, k].max()) + 1
            g = np.bincount(leaves[:, k], weights=G[:, k], minlength=nl)
            h = np.bincount(leaves[:, k], weights=H[:, k], minlength=nl)
            value = np.where(h > self.min_hessian, -g / np.where(h > self.min_hessian, h, 1.0), 0.0) * self.lr
            for leaf in range(nl):
                booster.set_leaf_output(tree, leaf, float(value[leaf]))
            scores[:, k] += value[leaves[:, k]]
