"""Zheng et al. (2007)'s systems: GBT on the grades, QBRank with its line search, and a linear
RankSVM (docs/protocols/zheng2007.md).

* ``gbt``: squared loss on the grades; η and the leaf count picked on the validation DCG-5
  over ``grid`` (fixed ``rounds``, no early stopping). Zheng's
  experiment (its protocol module) passes a grid of one pair — the (η, leaves) every tree run of
  a trial shares — so GBT does no tuning of its own there.
* ``qbrank``: Zheng's Algorithm 2 (:class:`~ltrrepro.objectives.QBRank`, τ = |grade
  difference|, ``w``), trees of ``num_leaves`` leaves; where the library lets a grown tree's
  leaves be rewritten (LightGBM) the per-round line search on the true objective rescales
  each tree's leaves (:class:`~.callbacks.LeafRescaleCallback`), elsewhere (XGBoost) there
  is no line search, only η (a stated deviation). Documents marked ``labeled`` (L1 in
  P2 ∪ L1) add the pointwise term.
* ``ranksvm``: a linear RankSVM with the squared hinge on standardized pair differences,
  solved in the primal (:func:`ranksvm_fit`); C tuned on the validation DCG-5, at most
  ``max_pairs`` pairs sampled uniformly (seeded).

Options: :class:`GBTOptions`, :class:`QBRankOptions`, :class:`RankSVMOptions` (the defaults
live there).

**Validation curve** (``--tune``, :mod:`ltrrepro.tuning`): a GBT or QBRank trainer given
``on_valid(round, value)`` scores its validation part after every round by DCG-5
(:data:`SELECT_METRIC`), tells ``on_valid`` (Optuna's pruner; it may raise to stop) and returns
the curve as ``Fitted.valid_curve``; every round is still kept. GBT and QBRank in XGBoost read
it from the library's evaluation of the validation set; QBRank in LightGBM, whose line search
rewrites each tree's leaves after LightGBM has scored it, adds the rescaled tree's raw output to
running validation scores in a callback after the rescaling
(:class:`~.callbacks.ValidationCallback`). Without ``on_valid`` training is as before.
Their search space (:meth:`GBTOptions.space`, :meth:`QBRankOptions.space`) is their library's. Library calls go through the trainer's backend (:mod:`ltrrepro.fit.backends`).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..data import RankingDataset
from ..metrics import evaluate
from ..objectives import QBRank, qbrank_step
from .backends import BACKENDS
from .base import SYSTEMS, Boosting, Fitted, Labels, System, Trainer, int_seed, register

__all__ = ["GBTTrainer", "QBRankTrainer", "RankSVMTrainer", "GBTOptions", "QBRankOptions", "RankSVMOptions",
           "ranksvm_fit", "preference_pairs", "n_pairs", "SELECT_METRIC"]

#: Zheng's validation and test measure: DCG-5 (gain 2^g − 1, the paper gives none)
SELECT_METRIC = "dcg@5[gain=exp2,norel=zero]"


def dcg5(pred, ds) -> np.ndarray:
    return next(iter(evaluate(pred, ds.y, ds.offsets, [SELECT_METRIC]).values())).per_query


def n_pairs(ds: RankingDataset) -> int:
    """Within-query pairs of different grades (ties excluded): (m² − Σ_g m_g²)/2 per query."""
    sizes = ds.query_sizes.astype(np.int64)
    counts = np.zeros((ds.n_queries, int(ds.y.max(initial=0)) + 1), np.int64)
    np.add.at(counts, (np.repeat(np.arange(ds.n_queries), sizes), ds.y), 1)
    return int(((sizes ** 2 - (counts ** 2).sum(1)) // 2).sum())


def preference_pairs(ds: RankingDataset) -> np.ndarray:
    """All within-query pairs of different grades as rows ``[preferred, other]`` (ties
    excluded), in query order. Vectorized per distinct list length, not per query."""
    sizes = ds.query_sizes
    out = []
    for m in np.unique(sizes):
        if m < 2:
            continue
        qs = np.flatnonzero(sizes == m)
        i, j = np.triu_indices(int(m), 1)
        a = (ds.offsets[qs][:, None] + i[None, :]).ravel()
        b = (ds.offsets[qs][:, None] + j[None, :]).ravel()
        out.append(np.stack([a, b], 1))
    if not out:
        return np.zeros((0, 2), np.int64)
    pairs = np.concatenate(out)
    pairs = pairs[np.argsort(pairs[:, 0], kind="stable")]
    ya, yb = ds.y[pairs[:, 0]], ds.y[pairs[:, 1]]
    pairs = pairs[ya != yb]
    swap = ds.y[pairs[:, 0]] < ds.y[pairs[:, 1]]
    pairs[swap] = pairs[swap][:, ::-1]
    return pairs


def _valid_dcg5(valid: Labels, on_valid):
    """``(name, metric)`` for a backend's validation: mean DCG-5 of the raw scores, each value
    told to ``on_valid(round, value)`` (rounds counted from 0)."""
    rounds = iter(range(1 << 62))

    def metric(preds):
        value = float(np.mean(dcg5(preds, valid)))
        on_valid(next(rounds), value)
        return value
    return "dcg@5", metric


class _KeepParts(Trainer):
    """These systems predict their training or validation rows while fitting (grid
    selection, line search), so they keep the parts' features. Their curves predict every
    prefix of rounds from round 0, as Zheng's Figure 1 is drawn."""

    #: ``on_valid(round, value)``: each round's validation DCG-5 (Optuna's pruner, ``--tune``); it may raise to stop
    on_valid = None

    def add_train(self, ds: RankingDataset, **side) -> None:
        self.train, self.side = ds, side

    def add_valid(self, ds: RankingDataset) -> None:
        self.valid = ds


@dataclass(frozen=True)
class GBTOptions:
    """``grid``: the (η, leaves) pairs GBT's validation DCG-5 chooses from (docs/protocols/zheng2007.md §3)."""

    grid: tuple | None = ((0.05, 10), (0.05, 20), (0.1, 10), (0.1, 20))

    def __post_init__(self):
        if self.grid is not None and not len(self.grid):
            raise ValueError("GBT's grid needs at least one (eta, leaves) pair, or None (the boosting's own)")

    def space(self, library: str) -> dict:
        """``--tune``'s search space: the library's (:data:`~ltrrepro.fit.space.TREE_SPACE`),
        searched with ``grid=None`` (each configuration's own η and leaves)."""
        return dict(BACKENDS[library].search_space)


@dataclass(frozen=True)
class QBRankOptions:
    """``w``: the weight of the pair term, 1 − w that of the regression on labeled documents
    (R(h) in docs/protocols/zheng2007.md §1; the paper's w = 0.5, §3); ``tune_grid``: when given, QBRank takes the η and leaf count that GBT's validation tuning
    picks over it on the same judgments, and needs :meth:`~QBRankTrainer.add_valid`; None: the
    boosting's own η and leaves. Zheng's harness leaves it None: every run of a trial shares one
    (η, leaves), as the paper ("we did not retune them for QBRank")."""

    w: float = 0.5
    tune_grid: tuple | None = None

    def space(self, library: str) -> dict:
        """``--tune``'s search space: the library's, the same as GBT's (η is the shrinkage of the line-searched step)."""
        return dict(BACKENDS[library].search_space)


@dataclass(frozen=True)
class RankSVMOptions:
    """``c_grid``: the C values the validation DCG-5 chooses from; ``max_pairs``: at most
    this many preference pairs, sampled uniformly (seeded)."""

    c_grid: tuple = (0.01, 0.1, 1.0)
    max_pairs: int = 200_000


class GBTTrainer(_KeepParts):
    """GBT (Friedman 2001) on the grades with squared loss, η and leaves chosen on the
    validation DCG-5 over :attr:`GBTOptions.grid`, ``rounds`` trees each."""

    uses_valid = True

    def _one(self, eta, leaves, valid=None):
        tr, be = self.train, self.backend
        # min_leaf_hessian 1e-3 (LightGBM's default): with squared loss every document weighs 1,
        # so it only forbids empty leaves
        b = self.boosting.replace(learning_rate=eta, num_leaves=leaves)
        params = be.params(be.objectives["squared_error"], b, threads=self.threads, seed=int_seed(self.seed),
                           min_leaf_hessian=1e-3, start=float(tr.y.mean()))
        dtrain = be.dataset(tr, params, threads=self.threads, grouped=False)
        if valid is None:
            run = be.train(params, dtrain, b.rounds)
        else:                                    # every round kept; its DCG-5 told to on_valid
            dvalid = be.dataset(valid, params, threads=self.threads, grouped=False, reference=dtrain)
            run = be.train(params, dtrain, b.rounds, valid=dvalid, metric=_valid_dcg5(Labels(valid), self.on_valid),
                           patience=b.rounds)
        return params, be.predictor(run.booster, self.threads), run.curve

    def _fit(self) -> Fitted:
        best = None
        rounds = self.boosting.rounds
        grid = self.options.grid or ((self.boosting.learning_rate, self.boosting.num_leaves),)
        if self.on_valid is not None and len(grid) > 1:
            raise ValueError("GBT: a per-round validation hook needs one (eta, leaves), not a grid to choose from")
        for eta, leaves in grid:
            params, raw, curve = self._one(eta, leaves, self.valid if self.on_valid is not None else None)
            v = float(np.mean(dcg5(raw(self.valid.X, 0, rounds), self.valid)))
            if best is None or v > best[0]:
                best = (v, eta, leaves, raw, params, curve)
        v, eta, leaves, raw, params, curve = best
        return Fitted(raw, rounds, rounds, params=params, info={"eta": eta, "leaves": leaves, "valid_dcg5": v},
                      ranges_add=False, valid_curve=list(curve))


class QBRankTrainer(_KeepParts):
    """QBRank (Zheng et al. 2007, Algorithm 2); options: :class:`QBRankOptions`.
    ``add_train(ds, labeled=mask)`` marks L1."""

    def _tuned(self):
        """(η, leaves) of GBT tuned on this run's training judgments and validation set."""
        gbt = SYSTEMS["gbt"].trainer(Boosting(rounds=self.boosting.rounds), library=self.library, seed=self.seed,
                                     threads=self.threads, grid=self.options.tune_grid)
        gbt.add_train(self.train)
        gbt.add_valid(self.valid)
        info = gbt.fit().info
        return float(info["eta"]), int(info["leaves"])

    def _fit(self) -> Fitted:
        tr, b, be = self.train, self.boosting, self.backend
        tuned = {}
        if self.options.tune_grid:
            eta, leaves = self._tuned()
            b = b.replace(learning_rate=eta, num_leaves=leaves)
            tuned = {"eta": eta, "leaves": leaves, "tuned_by": "GBT on the same judgments (validation DCG-5)"}
        obj = QBRank(w=self.options.w, tau=None, labeled=self.side.get("labeled"))
        # trees of b.num_leaves leaves with the boosting's leaf size and bins (Boosting's defaults: the libraries')
        if be.rewrites_leaves:
            # h <- h + η s_m g_m: the tree g_m is grown with learning rate 1, then its leaves
            # are rescaled by η times the line search's step s_m on the true objective
            adapter = be.adapter(obj, track_scores=True)
            step = lambda h, g: qbrank_step(obj, h, g, tr.y, tr.offsets)  # noqa: E731
            hooks = [be.rescale_leaves(adapter, tr.X, step, shrinkage=b.learning_rate)]
            grown = b.replace(learning_rate=1.0)
        else:                                    # no line search: h <- h + η g_m
            adapter, hooks = be.adapter(obj), []
            grown = b
        params = be.params(adapter, grown, threads=self.threads, seed=int_seed(self.seed), own_metric=True)
        dtrain = be.dataset(tr, params, threads=self.threads)
        checked, more = [], {}
        if self.on_valid is not None and hooks:  # after the line search has rescaled the tree
            checked = [be.validation_callback(self.valid.X, _valid_dcg5(Labels(self.valid), self.on_valid)[1])]
        elif self.on_valid is not None:
            more = {"valid": be.dataset(self.valid, params, threads=self.threads, reference=dtrain),
                    "metric": _valid_dcg5(Labels(self.valid), self.on_valid), "patience": b.rounds}
        run = be.train(params, dtrain, b.rounds, obj=adapter, callbacks=[*hooks, *checked], **more)
        curve = checked[0].curve if checked else run.curve
        if hooks:
            steps = np.asarray(hooks[0].steps)
            info = {"line_search_steps": {"mean": float(steps.mean()), "min": float(steps.min()),
                                          "max": float(steps.max())}, **tuned}
        else:
            info = {"line_search": f"none ({be.label}: η only)", **tuned}
        return Fitted(be.predictor(run.booster, self.threads), b.rounds, b.rounds, info=info, ranges_add=False,
                      valid_curve=list(curve))


def ranksvm_fit(D: np.ndarray, C: float) -> np.ndarray:
    """Linear RankSVM with the squared hinge, solved in the primal (Chapelle & Keerthi 2010):

        w* = argmin_w  ½‖w‖² + C Σ_p max(0, 1 − w·d_p)²,   d_p = x_preferred − x_other,

    by a trust-region Newton method (scipy ``trust-exact``) with the exact gradient
    w − 2C Σ_p max(0, 1 − w·d_p) d_p and the generalized Hessian I + 2C D_svᵀD_sv over the
    pairs inside the margin — Chapelle & Keerthi's primal Newton method. The objective is
    convex, so it reaches the minimum in a few d×d solves."""
    from scipy.optimize import minimize

    D = np.asarray(D, dtype=np.float64)

    def f(w):
        m = np.maximum(0.0, 1.0 - D @ w)
        return 0.5 * w @ w + C * m @ m, w - 2.0 * C * (D.T @ m)

    def hess(w):
        Ds = D[(D @ w) < 1.0]
        return np.eye(D.shape[1]) + 2.0 * C * (Ds.T @ Ds)

    res = minimize(f, np.zeros(D.shape[1]), jac=True, hess=hess, method="trust-exact",
                   options={"maxiter": 100, "gtol": 1e-6 * max(1.0, C * D.shape[0])})
    return res.x


class RankSVMTrainer(_KeepParts):
    """A linear RankSVM (:func:`ranksvm_fit`); options: :class:`RankSVMOptions`. Not a
    boosted model: one "round"."""

    uses_valid = True

    def _fit(self) -> Fitted:
        train, valid = self.train, self.valid
        rng = np.random.default_rng(self.seed)
        mu = train.X.mean(0, dtype=np.float64)
        sd = train.X.std(0, dtype=np.float64)
        sd[sd == 0] = 1.0
        pairs = preference_pairs(train)
        total = pairs.shape[0]
        if total > self.options.max_pairs:
            pairs = pairs[np.sort(rng.choice(total, self.options.max_pairs, replace=False))]
        Zt = (train.X - mu) / sd
        D = Zt[pairs[:, 0]] - Zt[pairs[:, 1]]
        Zv = (valid.X - mu) / sd
        best = None
        for C in self.options.c_grid:
            w = ranksvm_fit(D, C)
            v = float(np.mean(dcg5(Zv @ w, valid)))
            if best is None or v > best[0]:
                best = (v, C, w)
        w = best[2]
        raw = lambda X, a, k: ((X - mu) / sd) @ w if a == 0 else np.zeros(X.shape[0])  # noqa: E731
        return Fitted(raw, 1, 1, info={"C": best[1], "valid_dcg5": best[0], "pairs_used": int(pairs.shape[0]),
                                       "pairs_total": int(total)})


register(System("gbt", "GBT", GBTTrainer, paper="Zheng et al. 2007 (Friedman 2001)", options=GBTOptions(),
                family="gbt"))
register(System("qbrank", "QBRank", QBRankTrainer, paper="Zheng et al. 2007, Algorithm 2", options=QBRankOptions(),
                family="qbrank"))
register(System("ranksvm", "RankSVM", RankSVMTrainer, libraries=("scipy",), options=RankSVMOptions(),
                paper="Joachims 2002; Chapelle & Keerthi 2010", family="ranksvm"))
