"""LightGBM callbacks that rewrite a tree's leaves after the library grew it, and the
objective wrapper they pair with — the machinery behind QBRank's line search (Zheng et al.
2007) and the SE split principle with Newton leaves (Xia et al.). The adapters stay thin
(:mod:`ltrrepro.objectives.adapters`); the learners that need these live in this package.
"""
from __future__ import annotations

import numpy as np

from ..objectives.adapters import LightGBMObjective, RoundState
from ..objectives.base import Objective, check_grad_hess

__all__ = ["LeafRescaleCallback", "UnitHessian", "NewtonLeafCallback", "ValidationCallback"]


class LeafRescaleCallback:
    """LightGBM callback: after each tree, rescale its leaves by ``shrinkage · step``, where
    ``step = step_fn(scores, tree_output)`` is a line search on the true objective (QBRank,
    Zheng et al. Algorithm 2: h <- h + η s_m g_m). Train with ``learning_rate=1`` so that the
    tree's raw output is the fitted g_m. The adapter (``track_scores=True``) receives the
    updated scores, so the next gradients are computed at the model's real scores: the
    backend's ``train`` binds this callback to the training run's
    :class:`~ltrrepro.objectives.RoundState` (:meth:`bind`), where the adapter reads them.
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
        self.state: RoundState | None = None

    def bind(self, state: RoundState) -> None:
        """Keep the scores in ``state``, the training run's (its adapter reads them)."""
        self.state = state
        if state.scores is None:
            state.scores = np.zeros(self.X.shape[0])

    def __call__(self, env) -> None:
        booster = env.model
        it = booster.num_trees() - 1
        g = booster.predict(self.X, start_iteration=it, num_iteration=1, raw_score=True,
                            num_threads=int(env.params.get("num_threads", 0)))
        h = self.state.scores
        step = float(self.step_fn(h, g))
        factor = self.shrinkage * step
        tree = booster.dump_model(start_iteration=it, num_iteration=1)["tree_info"][0]
        n_leaves = tree["num_leaves"]
        for leaf in range(n_leaves):
            booster.set_leaf_output(it, leaf, booster.get_leaf_output(it, leaf) * factor)
        self.state.scores = h + factor * g
        self.steps.append(step)


class ValidationCallback:
    """LightGBM callback: the validation curve of a run whose leaves a hook rewrites (LightGBM's
    own validation scores are stale then). After the rewriting hooks (``order`` 30 > their 20),
    the round's new tree's raw output on the validation features ``X`` is added to running
    scores — one ``Booster.predict`` of one tree per round, v_m = v_{m−1} + g_m(X) — and
    ``metric(v_m)`` is appended to ``curve`` (``metric`` may raise to stop training: Optuna's
    pruner). One output per row (QBRank)."""

    order = 30

    def __init__(self, X, metric):
        self.X = X
        self.metric = metric
        self.scores = np.zeros(X.shape[0])
        self.curve: list[float] = []

    def __call__(self, env) -> None:
        it = env.model.num_trees() - 1
        self.scores = self.scores + env.model.predict(self.X, start_iteration=it, num_iteration=1, raw_score=True,
                                                      num_threads=int(env.params.get("num_threads", 0)))
        self.curve.append(float(self.metric(self.scores)))


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

    def grad_hess(self, scores, labels, offsets, iteration=0, rng=None):
        grad, hess = self.objective.grad_hess(scores, labels, offsets, iteration=iteration, rng=rng)
        grad, hess = np.asarray(grad), np.asarray(hess)
        check_grad_hess(grad, hess, self.objective.name, iteration)   # the true Hessian: its leaves' Newton steps
        self.last = (grad, hess)
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

    def __init__(self, adapter: LightGBMObjective, X, learning_rate: float, n_outputs: int = 1,
                 min_hessian: float = 1e-12):
        if not adapter.track_scores or not isinstance(adapter.objective, UnitHessian):
            raise ValueError("the adapter must wrap a UnitHessian objective and track its scores")
        self.adapter = adapter
        self.X = X
        self.lr = float(learning_rate)
        self.K = int(n_outputs)
        self.min_hessian = float(min_hessian)
        self.state: RoundState | None = None

    def bind(self, state: RoundState) -> None:
        """Keep the scores in ``state``, the training run's (its adapter reads them)."""
        n = self.X.shape[0]
        state.scores = np.zeros((n, self.K)) if self.K > 1 else np.zeros(n)
        self.state = state

    def __call__(self, env) -> None:
        booster = env.model
        it = env.iteration - env.begin_iteration
        G, H = self.adapter.objective.last
        G = G.reshape(G.shape[0], -1)
        H = H.reshape(H.shape[0], -1)
        leaves = booster.predict(self.X, pred_leaf=True, start_iteration=it, num_iteration=1,
                                 num_threads=int(env.params.get("num_threads", 0)))
        leaves = np.asarray(leaves, dtype=np.int64).reshape(self.X.shape[0], -1)
        scores = self.state.scores.reshape(self.X.shape[0], -1)
        for k in range(self.K):
            tree = it * self.K + k
            nl = int(leaves[:, k].max()) + 1
            g = np.bincount(leaves[:, k], weights=G[:, k], minlength=nl)
            h = np.bincount(leaves[:, k], weights=H[:, k], minlength=nl)
            value = np.where(h > self.min_hessian, -g / np.where(h > self.min_hessian, h, 1.0), 0.0) * self.lr
            for leaf in range(nl):
                booster.set_leaf_output(tree, leaf, float(value[leaf]))
            scores[:, k] += value[leaves[:, k]]
