"""Xia et al.'s systems: McRank and LambdaMART under the SE, OLE and RWSE split principles
(docs/protocols/xia.md). Every run grows trees to ``num_leaves`` leaves from zero scores for
exactly ``rounds`` rounds and sets each leaf to one Newton step −ΣL′/ΣL″ (Eq. 8).

* ``mcrank-ole`` / ``mcrank-se``: McRank (5-class softmax, one tree per class per round;
  ranked by Σ k·p_k) in LightGBM. OLE = LightGBM's own Newton gain on the true gradients and
  Hessians (McRank's loss is derivative additive, so OLE = RWSE = that gain, Theorem 1); SE =
  LightGBM handed Hessian 1 (its gain is then the SE reduction of the pseudo-responses) with
  every leaf reset to the Newton step of the true loss (:class:`~.callbacks.UnitHessian`,
  :class:`~.callbacks.NewtonLeafCallback`).
* ``lambdamart-se`` / ``-ole`` / ``-rwse``: LambdaMART (LightGBM's lambdas, σ = 1,
  truncation 30) in ltrrepro's tree learner (:mod:`ltrrepro.gbdt`): OLE exact (the pairs
  inside each child removed from its second derivative), RWSE the libraries' Newton gain.

Deviation (all systems): histogram splits (``max_bin`` bins) instead of every distinct value.
"""
from __future__ import annotations

from ..objectives import LambdaMART, LightGBMObjective, McRank, mcrank_scores
from .base import Fitted, System, Trainer, int_seed, register
from .callbacks import NewtonLeafCallback, UnitHessian

__all__ = ["McRankTrainer", "GBDTLambdaMARTTrainer", "N_CLASSES"]

N_CLASSES = 5


class McRankTrainer(Trainer):
    """Options: ``principle`` (``se`` or ``ole``). Keeps the training features (the SE
    callback finds each row's leaf)."""

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
                  "min_sum_hessian_in_leaf": 1e-3, "lambda_l2": 0.0, "max_bin": b.max_bin,
                  "num_threads": self.threads, "seed": seed, "deterministic": True, "force_row_wise": True,
                  "verbose": -1}
        # McRank raises on a label >= N_CLASSES
        bst = lgb.train(params, lgb.Dataset(tr.X, tr.y.astype(float)), b.rounds, callbacks=callbacks)
        loss = float(obj.loss(bst.predict(tr.X, raw_score=True), tr.y))
        raw = lambda X, a, k: bst.predict(X, raw_score=True, start_iteration=a, num_iteration=k - a)  # noqa: E731
        used = {k: v for k, v in params.items() if k != "objective"}
        return Fitted(raw, b.rounds, b.rounds, train_loss=loss, params=used, to_rank=mcrank_scores,
                      info={"n_train_docs": int(tr.n_docs), "n_train_queries": int(tr.n_queries)})


class GBDTLambdaMARTTrainer(Trainer):
    """Options: ``principle`` (``se``, ``ole``, ``rwse``)."""

    def add_train(self, ds, **side) -> None:
        self.train = ds

    def _fit(self) -> Fitted:
        from ..gbdt import train as gbdt_train

        tr, b = self.train, self.boosting
        obj = LambdaMART(sigma=b.sigmoid, truncation_level=30)
        model, _ = gbdt_train(obj, tr, criterion=self.options["principle"], num_rounds=b.rounds,
                              learning_rate=b.learning_rate, num_leaves=b.num_leaves, max_bin=b.max_bin,
                              min_data_in_leaf=b.min_data_in_leaf, min_sum_hessian_in_leaf=1e-3,
                              leaf_hessian="exact", seed=int_seed(self.seed), threads=self.threads)
        loss = float(obj.loss(model.train_scores, tr.y, tr.offsets))
        raw = lambda X, a, k: model.predict(X, num_rounds=k, start_round=a)  # noqa: E731
        return Fitted(raw, b.rounds, b.rounds, train_loss=loss, params=dict(model.meta),
                      info={"n_train_docs": int(tr.n_docs), "n_train_queries": int(tr.n_queries)})


for _p in ("se", "ole"):
    register(System(f"mcrank-{_p}", f"McRank ({_p.upper()})", McRankTrainer, libraries=("lightgbm",),
                    options=(("principle", _p),), paper="Li et al. 2007; Xia et al."))
for _p in ("se", "ole", "rwse"):
    register(System(f"lambdamart-{_p}", f"LambdaMART ({_p.upper()}, ltrrepro.gbdt)", GBDTLambdaMARTTrainer,
                    libraries=("ltrrepro",), options=(("principle", _p),), paper="Burges 2010; Xia et al."))
