"""Library parameter presets that make LightGBM and XGBoost behave with custom objectives.

* Hessians of listwise/pairwise losses are small (ρ(1 − ρ), σ²p(1 − p)|ΔNDCG|): the default
  ``min_sum_hessian_in_leaf=1e-3`` (LightGBM) / ``min_child_weight=1`` (XGBoost) would refuse
  most splits, so both are 0 (Bruch §5.2 sets ``min_sum_hessian_in_leaf`` to 0).
* Thread counts are explicit (jobs × threads ≤ cores is the runner's business).
* ``deterministic=True`` / ``force_row_wise`` (LightGBM) and a fixed ``seed`` make a run
  repeatable bit for bit; XGBoost's ``hist`` is deterministic on the CPU.
* Custom objectives start from a zero score: ``base_score=0`` (XGBoost) and no
  ``init_score`` (LightGBM), as the built-in ranking objectives do.
* XGBoost grows trees leaf-wise to a fixed leaf count (``grow_policy="lossguide"``,
  ``max_depth=0``, ``max_leaves``) so that both libraries fit the same kind of tree.

* Small ``min_data_in_leaf`` with ``min_sum_hessian_in_leaf=0`` can make LightGBM 4.7 abort
  with "Check failed: (best_split_info.left_count) > (0)" (an open LightGBM bug,
  lightgbm-org/LightGBM#4739): seen here with 1 and with 2 on synthetic Web30K data,
  15 leaves, custom LambdaMART/XE_NDCG, and with 3 and 5 (preset ``fast``: 31 leaves,
  63 bins, 600 queries, custom XE_NDCG/LambdaMART). The defaults here (20; the paper's 50
  and 100) have not hit it in any run so far.

* XGBoost has no ``min_data_in_leaf``: with the listwise objectives, whose Hessians ρ(1 − ρ)
  are tiny, it then fits leaves of a few documents with large Newton steps. Measured
  (synthetic Web30K, 600 queries, preset ``fast``, early stopping, paired splits, XGBoost −
  LightGBM test NDCG@5): with ``min_child_weight=0`` XE_NDCG −0.019 (10 splits), ListNet
  −0.033; with ``min_child_weight=1`` (5 splits) XE_NDCG −0.005, ListNet +0.013. So
  :class:`ltrrepro.fit.ranking.RankingTrainer` gives XGBoost, for a custom objective, the Hessian of a
  leaf of ``min_data_in_leaf`` average documents: ``min_child_weight = min_data_in_leaf ×
  mean Hessian at zero scores`` (:func:`ltrrepro.fit.hessian_floor`; 0.42 for XE_NDCG and
  ListNet, 3.1 for the LambdaMART lambdas here). Then (10 paired splits): XE_NDCG −0.0073
  (p = .08), ListNet +0.0061 (p = .23), LambdaMART (ltrrepro's lambdas) −0.0036 (p = .36).
  A ``min_child_weight`` in the parameters overrides it; built-in objectives keep 0.

``PRESETS`` holds the paper's hyperparameters per dataset and the scaled-down ones.
"""
from __future__ import annotations

__all__ = ["lightgbm_params", "xgboost_params", "PRESETS", "preset"]

#: Named hyperparameter sets (:class:`ltrrepro.fit.Boosting` fields). ``bruch-*`` are the
#: paper's (Bruch 2021 §5.1; docs/protocols/bruch2021.md §3: ``min_sum_hessian_in_leaf`` 0 and no
#: L1/L2 regularization, as :func:`lightgbm_params` sets them); ``fast`` and ``tiny`` are scaled
#: down for the synthetic default runs and the tests (a documented deviation).
PRESETS: dict[str, dict] = {
    "bruch-web30k": {"learning_rate": 0.02, "num_leaves": 400, "min_data_in_leaf": 50, "max_bin": 255,
                     "sigmoid": 1.0, "lambdarank_norm": False, "rounds": 500, "early_stopping": 50},
    "bruch-yahoo": {"learning_rate": 0.02, "num_leaves": 200, "min_data_in_leaf": 100, "max_bin": 255,
                    "sigmoid": 1.0, "lambdarank_norm": False, "rounds": 500, "early_stopping": 50},
    "fast": {"learning_rate": 0.1, "num_leaves": 31, "min_data_in_leaf": 50, "max_bin": 63,
             "sigmoid": 1.0, "lambdarank_norm": False, "rounds": 150, "early_stopping": 25},
    "tiny": {"learning_rate": 0.2, "num_leaves": 7, "min_data_in_leaf": 20, "max_bin": 31,
             "sigmoid": 1.0, "lambdarank_norm": False, "rounds": 12, "early_stopping": 5},
}


def preset(name: str, **overrides):
    """The :class:`ltrrepro.fit.Boosting` of a named preset, with ``overrides`` (None ignored)."""
    from .fit.base import Boosting

    if name not in PRESETS:
        raise ValueError(f"unknown preset {name!r}; known: {', '.join(PRESETS)}")
    return Boosting(**{**PRESETS[name], **{k: v for k, v in overrides.items() if v is not None}})


def lightgbm_params(objective, *, num_leaves=31, learning_rate=0.1, min_data_in_leaf=20, max_bin=255,
                    num_threads=1, seed=0, **extra) -> dict:
    """LightGBM parameters for ``objective`` (a name or an adapter callable)."""
    p = {"objective": objective, "num_leaves": num_leaves, "learning_rate": learning_rate,
         "min_data_in_leaf": min_data_in_leaf, "min_sum_hessian_in_leaf": 0.0, "max_bin": max_bin,
         "num_threads": int(num_threads), "seed": seed, "objective_seed": seed, "deterministic": True,
         "force_row_wise": True, "verbose": -1, "lambda_l1": 0.0, "lambda_l2": 0.0}
    p.update(extra)
    return p


def xgboost_params(*, max_leaves=31, eta=0.1, min_data_in_leaf=None, max_bin=255, nthread=1, seed=0,
                   objective=None, **extra) -> dict:
    """XGBoost parameters mirroring :func:`lightgbm_params` (``objective`` for built-ins such
    as ``rank:ndcg``; leave None with ``obj=`` custom objectives)."""
    p = {"tree_method": "hist", "grow_policy": "lossguide", "max_depth": 0, "max_leaves": max_leaves,
         "eta": eta, "min_child_weight": 0.0, "max_bin": max_bin, "nthread": int(nthread), "seed": seed,
         "lambda": 0.0, "alpha": 0.0, "base_score": 0.0}
    if objective is not None:
        p["objective"] = objective
    p.update(extra)
    return p
