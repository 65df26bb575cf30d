"""The XGBoost backend (:class:`XGBoostBackend`) and its parameter preset (:func:`xgboost_params`).

* ``min_child_weight=0``, ``lambda=0``, ``alpha=0`` (as LightGBM's preset, see
  :mod:`ltrrepro.fit.backends.base`), explicit ``nthread`` in training and in every
  ``DMatrix`` (prediction included), a fixed ``seed``; ``hist`` is deterministic on the CPU.
* Custom objectives start from a zero score: ``base_score=0``; the objective is ``obj=`` of
  ``xgb.train``, not a parameter.
* XGBoost grows trees leaf-wise to a fixed leaf count (``grow_policy="lossguide"``,
  ``max_depth=0``, ``max_leaves``) so that both libraries fit the same kind of tree.
* XGBoost has no ``min_data_in_leaf``: with the listwise objectives, whose Hessians ρ(1 − ρ)
  are tiny, it then fits leaves of a few documents with large Newton steps. Measured
  (synthetic Web30K, 600 queries, preset ``fast``, early stopping, paired splits, XGBoost −
  LightGBM test NDCG@5): with ``min_child_weight=0`` XE_NDCG −0.019 (10 splits), ListNet
  −0.033; with ``min_child_weight=1`` (5 splits) XE_NDCG −0.005, ListNet +0.013. So for a
  custom objective :class:`ltrrepro.fit.ranking.RankingTrainer` gives XGBoost the Hessian of a
  leaf of ``min_data_in_leaf`` average documents (:meth:`XGBoostBackend.leaf_floor`):
  ``min_child_weight = min_data_in_leaf × mean Hessian at zero scores``
  (:func:`ltrrepro.fit.hessian_floor`; 0.42 for XE_NDCG and ListNet, 3.1 for the LambdaMART
  lambdas here). Then (10 paired splits): XE_NDCG −0.0073 (p = .08), ListNet +0.0061
  (p = .23), LambdaMART (ltrrepro's lambdas) −0.0036 (p = .36). Built-in objectives keep 0.
* No leaf rewriting after a tree is grown (QBRank runs without its line search: η only).
* Every prediction adds the base margin, so every prefix of rounds is predicted from round 0.
* XGBoost's own defaults (:attr:`XGBoostBackend.defaults`, read from XGBoost 3.2.0: ``save_config``
  of a model trained with ``objective="rank:ndcg"`` alone): ``eta`` 0.3, depth-wise growth
  (``grow_policy="depthwise"``, ``max_leaves`` 0) to ``max_depth`` 6 (at most 2^6 = 64 leaves:
  ``num_leaves`` 64), ``min_child_weight`` 1, ``lambda`` 1, ``alpha`` 0, ``gamma`` 0,
  ``max_bin`` 256, no subsampling, ``lambdarank_normalization`` true, 10 trees (``xgb.train``).
  At the library's defaults the harness restores the growth and leaf bound
  (:attr:`XGBoostBackend.default_params`) and keeps ``tree_method="hist"`` (3.x's ``auto`` is
  ``hist``), its threads and seed, ``base_score=0`` (``rank:ndcg``'s own intercept estimate is 0
  up to rounding, and a constant does not change a ranking) and its own validation metric
  (``disable_default_eval_metric``). XGBoost has no ``min_data_in_leaf`` (1 stands for none).
"""
from __future__ import annotations

from ...objectives.adapters import XGBoostObjective
from .base import Backend, Trained, round_state

__all__ = ["XGBoostBackend", "xgboost_params", "MAP_RELEVANT"]

#: ``rank:map`` takes binary labels only (XGBoost refuses graded ones): a training document is
#: relevant when its grade is at least this (the binarisation of the MAP and MRR metrics here)
MAP_RELEVANT = 1


def xgboost_params(*, max_leaves=31, eta=0.1, min_data_in_leaf=None, max_bin=255, nthread=1, seed=0,
                   objective=None, **extra) -> dict:
    """XGBoost parameters mirroring :func:`~ltrrepro.fit.backends.lightgbm.lightgbm_params`
    (``objective`` for built-ins such as ``rank:ndcg``; leave None with ``obj=`` custom
    objectives)."""
    p = {"tree_method": "hist", "grow_policy": "lossguide", "max_depth": 0, "max_leaves": max_leaves,
         "eta": eta, "min_child_weight": 0.0, "max_bin": max_bin, "nthread": int(nthread), "seed": seed,
         "lambda": 0.0, "alpha": 0.0, "base_score": 0.0}
    if objective is not None:
        p["objective"] = objective
    p.update(extra)
    return p


#: XGBoost's names for :meth:`~ltrrepro.fit.boosting.Boosting.sampling` (tuned runs; none when off)
_XGB_NAMES = {"feature_fraction": "colsample_bytree", "bagging_fraction": "subsample", "lambda_l2": "lambda",
              "lambda_l1": "alpha", "max_depth": "max_depth", "min_sum_hessian": "min_child_weight",
              "min_split_gain": "gamma"}


class XGBoostBackend(Backend):
    name = "xgboost"
    label = "XGBoost"
    ranges_add = False
    rewrites_leaves = False
    negative_hessians = True
    objectives = {"squared_error": "reg:squarederror", "lambdarank": "rank:ndcg"}
    baselines = {"xgb_rank_ndcg": ("XGBoost rank:ndcg", "XGBoost", "lambdamart", "rank:ndcg"),
                 "xgb_rank_pairwise": ("XGBoost rank:pairwise", "Burges et al. 2005; XGBoost", "ranknet",
                                       "rank:pairwise"),
                 "xgb_rank_map": ("XGBoost rank:map", "XGBoost (LambdaMART weighted by ΔMAP)", "lambdamart",
                                  "rank:map")}
    module = "xgboost"
    gpu_probe = ("import json, numpy as np, xgboost as xgb\n"
                 "X = np.random.default_rng(0).random((64, 3)); y = X[:, 0]\n"
                 "with xgb.config_context(verbosity=0):\n"
                 "    b = xgb.train({'device': 'cuda', 'tree_method': 'hist'}, xgb.DMatrix(X, label=y), 1)\n"
                 "dev = json.loads(b.save_config())['learner']['generic_param']['device']\n"
                 "raise SystemExit(0 if dev.startswith('cuda') else 3)\n")
    gpu_missing = "XGBoost finds no visible CUDA GPU on this machine (it would silently train on the CPU)"

    def tree_learner(self, leaves: int, boosting) -> str:
        return (f"XGBoost's histogram trees ({boosting.max_bin} bins) grown loss-guided (largest gain first) up to "
                f"{leaves} leaves, with no minimum leaf size and no L2 penalty")

    def adapter(self, objective, *, track_scores: bool = False):
        if track_scores:
            raise ValueError("XGBoost: no leaf rewriting, so an adapter has no scores of its own to track")
        return XGBoostObjective(objective)

    def params(self, objective, boosting, *, threads, seed, device="cpu", own_metric=False, min_leaf_hessian=None,
               start=None, n_outputs=1, **extra) -> dict:
        b = boosting
        name = objective if isinstance(objective, str) else None       # a custom objective is obj=
        more: dict = {}
        if own_metric:
            more["disable_default_eval_metric"] = 1
        if name == "rank:ndcg":
            more["lambdarank_normalization"] = bool(b.lambdarank_norm)
        if min_leaf_hessian is not None:
            more["min_child_weight"] = float(min_leaf_hessian)
        if start is not None:
            more["base_score"] = float(start)
        if n_outputs > 1:
            more["num_class"] = int(n_outputs)
        more.update({_XGB_NAMES[k]: v for k, v in b.regularization().items()})
        p = xgboost_params(**{"max_leaves": b.num_leaves, "eta": b.learning_rate, "max_bin": b.max_bin, **more, **extra},
                           nthread=threads, seed=seed, objective=name)
        p.update(self.device_params(device))
        return p

    def device_params(self, device: str) -> dict:
        """CUDA through ``device`` (the wheels carry it; checked by :func:`ltrrepro.device.check_device`)."""
        return {} if device == "cpu" else {"device": device}

    def check_labels(self, params, ds) -> None:
        """``rank:ndcg`` (exponential gain) takes labels 0..31: beyond, one clear error."""
        top = int(ds.y.max(initial=0))
        if params.get("objective") == "rank:ndcg" and top > 31:
            raise ValueError(f"{ds.name}: labels reach {top}; XGBoost's rank:ndcg (exponential gain) takes labels "
                             f"0..31: relabel the grades or use LightGBM")

    debiasing = {"xgb_unbiased_lambdamart": ("XGBoost lambdarank_unbiased", "Hu et al. 2019; XGBoost >= 2.0",
                                             "unbiased_lambdamart", "rank:ndcg", (("lambdarank_unbiased", True),), "")}
    tag = "xgb"
    defaults = {"learning_rate": 0.3, "num_leaves": 64, "min_data_in_leaf": 1, "max_bin": 256, "sigmoid": 1.0,
                "lambdarank_norm": True, "feature_fraction": 1.0, "bagging_fraction": 1.0, "lambda_l2": 1.0,
                "max_depth": 6, "min_sum_hessian": 1.0, "min_split_gain": 0.0, "lambda_l1": 0.0}
    default_params = {"grow_policy": "depthwise", "max_leaves": 0}
    harness_params = ("tree_method", "nthread", "seed", "base_score", "disable_default_eval_metric")
    default_rounds = 10
    defaults_read = "3.2.0"

    def position_biases(self, booster, params) -> dict:
        """``lambdarank_unbiased``'s t⁺ (``ti+``) and t⁻ (``tj-``) from the model's configuration,
        and t⁺^{1+p} with p its ``lambdarank_bias_norm``."""
        if not params.get("lambdarank_unbiased"):
            return {}
        import json

        import numpy as np
        obj = json.loads(booster.save_config())["learner"]["objective"]
        p = float(obj["lambdarank_param"]["lambdarank_bias_norm"])
        tp = np.asarray(obj["ti+"], dtype=float)
        return {"t_plus": tp.tolist(), "t_minus": [float(v) for v in obj["tj-"]], "propensity": (tp ** (1.0 + p)).tolist()}

    def leaf_floor(self, params, hessian_floor) -> None:
        params["min_child_weight"] = hessian_floor()

    def library_dump(self, booster) -> dict:
        """The learner's configuration as XGBoost saves it (``save_config``): its objective and parameters."""
        import json
        return json.loads(booster.save_config())["learner"]

    def record_params(self, params, adapter=None) -> dict:
        return {**params, "objective": params.get("objective") or repr(adapter.objective)}

    def dataset(self, ds, params, *, threads, reference=None, grouped=True, position=None):
        """``position`` is refused: XGBoost's ``lambdarank_unbiased`` reads a row's position as its
        index inside its query group (the rows must be in displayed order)."""
        import xgboost as xgb
        if position is not None:
            raise ValueError("XGBoost takes no position field: order each group's rows by displayed position")
        y = ds.y
        if params.get("objective") == "rank:map":      # binary labels only: grade >= MAP_RELEVANT is relevant
            y = (ds.y >= MAP_RELEVANT).astype(ds.y.dtype)
        d = xgb.DMatrix(ds.X, y, nthread=int(threads))
        if grouped:
            d.set_group(ds.query_sizes)
        return d

    def train(self, params, dtrain, rounds, *, obj=None, valid=None, metric=None, patience=None,
              callbacks=(), seed=0) -> Trained:
        import xgboost as xgb
        if callbacks:
            raise NotImplementedError("XGBoost: no per-round leaf rewriting")
        state = round_state(obj, callbacks, seed)
        obj = obj.bind(state) if state is not None else None
        if valid is None:
            bst = xgb.train(params, dtrain, rounds, obj=obj)
            return Trained(bst, rounds, rounds)
        name, fn = metric
        evals: dict = {}

        def custom(preds, dmat):
            return name, fn(preds)

        bst = xgb.train(params, dtrain, rounds, evals=[(valid, "valid")], obj=obj, custom_metric=custom,
                        maximize=True, early_stopping_rounds=patience or rounds, evals_result=evals,
                        verbose_eval=False)
        return Trained(bst, int(bst.best_iteration) + 1, bst.num_boosted_rounds(), list(evals["valid"][name]))

    def predictor(self, booster, threads):
        import xgboost as xgb
        threads = int(threads)

        def raw(X, start, stop):
            return booster.predict(xgb.DMatrix(X, nthread=threads), iteration_range=(start, stop), output_margin=True)
        return raw
