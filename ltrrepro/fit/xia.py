"""Xia et al.'s systems: McRank and LambdaMART under the SE, OLE and RWSE split principles
(docs/protocols/xia.md), all in ltrrepro's tree learner (:mod:`ltrrepro.gbdt`) so that every
arm grows its trees the same way. Every run boosts exactly ``rounds`` rounds from zero scores.

Trainer options (the same for every arm):

* ``growth``: ``"width-first"`` (default; Xia §4, breadth-first to the leaf limit) or
  ``"best-first"`` (LightGBM's leaf-wise order);
* ``leaf_rule``: ``"diagonal"`` (default; Xia Eq. 8, −ΣL′/ΣL″ with per-document second
  derivatives — the standard LambdaMART leaf, the paper's SE baseline) or ``"exact"``
  (−L′/L″ of the whole objective in the leaf's output: the pairs inside the leaf removed
  from L″, footnote 2). The paper does not say which rule its OLE arm used. McRank's loss is
  derivative additive, so both rules give the same leaves there.

Systems:

* ``mcrank-se`` / ``mcrank-ole``: McRank (5-class softmax, one tree per class per round;
  ranked by Σ k·p_k). OLE = RWSE = the Newton gain (the loss is derivative additive,
  Theorem 1); SE = the squared error of the pseudo-responses −L′ with unit weights. Both
  arms share one feasible set: at least ``min_data_in_leaf`` documents and Σ L″ ≥ 1e-3 per
  child.
* ``lambdamart-se`` / ``-ole`` / ``-rwse``: LambdaMART (LightGBM's lambdas, σ = 1,
  truncation 30): OLE exact (the pairs inside each child removed from its second
  derivative), RWSE the libraries' Newton gain.
* ``mcrank-se-lgb`` / ``mcrank-ole-lgb``: the McRank arms in LightGBM, a cross-check of the
  first two under best-first growth (OLE = LightGBM's own Newton gain; SE = LightGBM
  handed Hessian 1, every leaf then reset to the Newton step by
  :class:`~.callbacks.NewtonLeafCallback`). Not part of the study: LightGBM cannot grow
  width-first, and its SE arm's leaf rewriting is work only that host library needs.

``Fitted.info["boost_s"]``: the seconds spent in the boosting rounds (objective + trees),
without binning or the final loss — the time the report compares between arms.

Deviation (all systems): histogram splits (``max_bin`` bins) instead of every distinct value.
"""
from __future__ import annotations

from ..objectives import LambdaMART, LightGBMObjective, McRank, mcrank_scores
from .base import Fitted, System, Trainer, int_seed, register
from .callbacks import NewtonLeafCallback, UnitHessian

__all__ = ["GBDTTrainer", "LightGBMMcRankTrainer", "N_CLASSES", "GROWTH", "LEAF_RULES"]

N_CLASSES = 5
GROWTH = ("width-first", "best-first")
LEAF_RULES = ("diagonal", "exact")
MIN_SUM_HESSIAN = 1e-3


class GBDTTrainer(Trainer):
    """Options: ``objective`` (a factory), ``principle`` (``se``, ``ole``, ``rwse``),
    ``growth``, ``leaf_rule``."""

    def add_train(self, ds, **side) -> None:
        self.train = ds

    def _fit(self) -> Fitted:
        from ..gbdt import train as gbdt_train

        tr, b, o = self.train, self.boosting, self.options
        growth, leaf_rule = o.get("growth", "width-first"), o.get("leaf_rule", "diagonal")
        if growth not in GROWTH or leaf_rule not in LEAF_RULES:
            raise ValueError(f"growth must be one of {GROWTH} and leaf_rule one of {LEAF_RULES}, "
                             f"got {growth!r}, {leaf_rule!r}")
        obj = o["objective"](b)
        model, log = gbdt_train(obj, tr, criterion=o["principle"], num_rounds=b.rounds,
                                learning_rate=b.learning_rate, num_leaves=b.num_leaves, max_bin=b.max_bin,
                                min_data_in_leaf=b.min_data_in_leaf, min_sum_hessian_in_leaf=MIN_SUM_HESSIAN,
                                leaf_hessian=leaf_rule, growth=growth, seed=int_seed(self.seed),
                                threads=self.threads)
        loss = float(obj.loss(model.train_scores, tr.y, tr.offsets))
        ranking = {"to_rank": mcrank_scores} if model.n_outputs > 1 else {}     # McRank: the expected grade
        raw = lambda X, a, k: model.predict(X, num_rounds=k, start_round=a)  # noqa: E731
        return Fitted(raw, b.rounds, b.rounds, train_loss=loss, params=dict(model.meta), **ranking,
                      info={"n_train_docs": int(tr.n_docs), "n_train_queries": int(tr.n_queries),
                            "boost_s": float(sum(log.objective_s) + sum(log.tree_s)),
                            "tree_s": float(sum(log.tree_s))})


class LightGBMMcRankTrainer(Trainer):
    """McRank in LightGBM (best-first growth), the cross-check of the gbdt arms. Options:
    ``principle`` (``se`` or ``ole``), ``max_depth`` (LightGBM's; with ``num_leaves`` =
    2^max_depth and every node splittable its trees are the complete trees width-first
    growth makes)."""

    def add_train(self, ds, **side) -> None:
        self.train = ds

    def _fit(self) -> Fitted:
        import lightgbm as lgb

        tr, b, principle = self.train, self.boosting, self.options["principle"]
        seed = int_seed(self.seed)
        obj = McRank(n_classes=N_CLASSES)
        callbacks = []
        if principle == "se":
            adapter = LightGBMObjective(UnitHessian(obj), seed=seed, track_scores=True)
            callbacks.append(NewtonLeafCallback(adapter, tr.X, b.learning_rate, N_CLASSES))
        elif principle == "ole":
            adapter = LightGBMObjective(obj, seed=seed)
        else:
            raise ValueError(f"McRank has principles se and ole, not {principle!r}")
        params = {"objective": adapter, "num_class": N_CLASSES, "num_leaves": b.num_leaves,
                  "learning_rate": b.learning_rate, "min_data_in_leaf": b.min_data_in_leaf,
                  "min_sum_hessian_in_leaf": MIN_SUM_HESSIAN, "lambda_l2": 0.0, "max_bin": b.max_bin,
                  "min_data_in_bin": 1, "feature_pre_filter": False, "max_depth": int(self.options.get("max_depth", -1)),
                  "num_threads": self.threads, "seed": seed, "deterministic": True, "force_row_wise": True,
                  "verbose": -1}
        # McRank raises on a label >= N_CLASSES
        bst = lgb.train(params, lgb.Dataset(tr.X, tr.y.astype(float)), b.rounds, callbacks=callbacks)
        threads = self.threads
        loss = float(obj.loss(bst.predict(tr.X, raw_score=True, num_threads=threads), tr.y))
        raw = lambda X, a, k: bst.predict(X, raw_score=True, start_iteration=a, num_iteration=k - a,  # noqa: E731
                                          num_threads=threads)
        used = {k: v for k, v in params.items() if k != "objective"}
        return Fitted(raw, b.rounds, b.rounds, train_loss=loss, params=used, to_rank=mcrank_scores,
                      info={"n_train_docs": int(tr.n_docs), "n_train_queries": int(tr.n_queries)})


def _mcrank(b):
    return McRank(n_classes=N_CLASSES)


def _lambdamart(b):
    return LambdaMART(sigma=b.sigmoid, truncation_level=30)


for _p in ("se", "ole"):
    register(System(f"mcrank-{_p}", f"McRank ({_p.upper()})", GBDTTrainer, libraries=("ltrrepro",),
                    options=(("objective", _mcrank), ("principle", _p)), paper="Li et al. 2007; Xia et al."))
    register(System(f"mcrank-{_p}-lgb", f"McRank ({_p.upper()}, LightGBM)", LightGBMMcRankTrainer,
                    libraries=("lightgbm",), options=(("principle", _p),), paper="Li et al. 2007; Xia et al."))
for _p in ("se", "ole", "rwse"):
    register(System(f"lambdamart-{_p}", f"LambdaMART ({_p.upper()})", GBDTTrainer, libraries=("ltrrepro",),
                    options=(("objective", _lambdamart), ("principle", _p)), paper="Burges 2010; Xia et al."))
