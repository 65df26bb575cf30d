"""Train one ranking model with early stopping and evaluate it: the body of most units.

Models are named (:data:`MODELS`); each is either a library objective (LightGBM
``lambdarank``/``rank_xendcg``, XGBoost ``rank:ndcg``) or one of ltrrepro's objectives
through its adapter. Hyperparameters come as a *preset* in LightGBM's vocabulary
(``learning_rate``, ``num_leaves``, ``min_data_in_leaf``, ``max_bin``, ``sigmoid``,
``lambdarank_norm``, ``max_trees``, ``early_stopping``) and are mapped to XGBoost's
(``eta``, ``max_leaves``, ``max_bin``; XGBoost has no ``min_data_in_leaf``).

Model selection follows Bruch §5.2: validation NDCG@5 (gain 2^y − 1, queries without a
relevant document dropped) after every tree, stop after ``early_stopping`` rounds without
improvement, keep the best iteration, at most ``max_trees`` trees. The validation metric is
ltrrepro's own (:func:`ltrrepro.metrics.evaluate`) in both libraries, so the selection and
the recorded learning curve use one definition.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from .data import RankingDataset
from .metrics import evaluate
from .objectives import LambdaMART, LightGBMObjective, ListNet, RankNet, XENDCG, XGBoostObjective
from .presets import lightgbm_params, xgboost_params

__all__ = ["ModelSpec", "MODELS", "PRESETS", "FitResult", "fit_predict", "preset", "TEST_METRICS"]

TEST_METRICS = ("ndcg@1", "ndcg@3", "ndcg@5", "ndcg@10")


@dataclass(frozen=True)
class ModelSpec:
    """``builtin`` maps a library to its objective name; ``factory`` builds an ltrrepro objective.
    ``library`` pins the model to one library (a library baseline)."""

    label: str
    builtin: dict = field(default_factory=dict)
    factory: type | None = None
    kwargs: tuple = ()
    library: str | None = None

    def objective(self):
        return self.factory(**dict(self.kwargs))


MODELS: dict[str, ModelSpec] = {
    "xendcg": ModelSpec("XE_NDCG MART", factory=XENDCG, kwargs=(("order", 2),)),
    "listnet": ModelSpec("ListNet", factory=ListNet, kwargs=(("order", 2),)),
    "lambdamart": ModelSpec("λMART", builtin={"lightgbm": "lambdarank", "xgboost": "rank:ndcg"}),
    "lambdamart_custom": ModelSpec("λMART (ltrrepro lambdas)", factory=LambdaMART,
                                   kwargs=(("sigma", 1.0), ("norm", False))),
    "ranknet": ModelSpec("RankNet", factory=RankNet),
    "lgb_rank_xendcg": ModelSpec("LightGBM rank_xendcg", builtin={"lightgbm": "rank_xendcg"}, library="lightgbm"),
    "xgb_rank_ndcg": ModelSpec("XGBoost rank:ndcg", builtin={"xgboost": "rank:ndcg"}, library="xgboost"),
}

#: Named hyperparameter sets. ``bruch-*`` are the paper's (docs/protocols/bruch2021.md §3); ``fast`` is a
#: scaled-down setting for the synthetic default runs (a documented deviation).
PRESETS: dict[str, dict] = {
    "bruch-web30k": {"learning_rate": 0.02, "num_leaves": 400, "min_data_in_leaf": 50, "max_bin": 255,
                     "sigmoid": 1.0, "lambdarank_norm": False, "max_trees": 500, "early_stopping": 50},
    "bruch-yahoo": {"learning_rate": 0.02, "num_leaves": 200, "min_data_in_leaf": 100, "max_bin": 255,
                    "sigmoid": 1.0, "lambdarank_norm": False, "max_trees": 500, "early_stopping": 50},
    "fast": {"learning_rate": 0.1, "num_leaves": 31, "min_data_in_leaf": 50, "max_bin": 63,
             "sigmoid": 1.0, "lambdarank_norm": False, "max_trees": 150, "early_stopping": 25},
    "tiny": {"learning_rate": 0.2, "num_leaves": 7, "min_data_in_leaf": 20, "max_bin": 31,
             "sigmoid": 1.0, "lambdarank_norm": False, "max_trees": 12, "early_stopping": 5},
}


def preset(name: str, **overrides) -> dict:
    if name not in PRESETS:
        raise ValueError(f"unknown preset {name!r}; known: {', '.join(PRESETS)}")
    return {**PRESETS[name], **{k: v for k, v in overrides.items() if v is not None}}


@dataclass
class FitResult:
    test_scores: np.ndarray
    per_query: dict            # metric name -> per-query values on test (NaN = dropped)
    means: dict                # metric name -> mean over evaluated queries
    n_dropped: int
    best_iteration: int        # number of trees kept (1-based)
    n_trees: int               # trees trained
    valid_curve: list          # validation NDCG@5 after each tree
    train_s: float
    params: dict
    data: dict = field(default_factory=dict)    # test query ids and the parts' sizes


class _Labels:
    """What validation needs of a dataset once its features are binned: labels and offsets."""

    def __init__(self, ds: RankingDataset):
        self.y, self.offsets = ds.y, ds.offsets


def _sizes(part: str, ds: RankingDataset) -> dict:
    return {f"n_{part}_docs": int(ds.n_docs), f"n_{part}_queries": int(ds.n_queries)}


def _valid_ndcg5(pred, ds) -> float:
    r = evaluate(pred, ds.y, ds.offsets, ["ndcg@5"])
    return next(iter(r.values())).mean


def _int_seed(ss: np.random.SeedSequence) -> int:
    return int(ss.generate_state(1)[0] & 0x7FFFFFFF)


def _get(part):
    return part() if callable(part) else part


def fit_predict(model: str, library: str, train, valid, test, params: dict, seed: np.random.SeedSequence,
                threads: int = 1, metrics=TEST_METRICS) -> FitResult:
    """Train ``model`` with ``library`` on ``train``, select on ``valid``, score ``test``.

    Each part is a :class:`RankingDataset` or a zero-argument callable returning one. With
    callables, the features of a part exist only while the library bins them (train,
    valid) or scores them (test, made after training): a worker's peak memory is then one
    part's features plus the library's binned copy, not all three parts at once.
    """
    spec = MODELS[model]
    lib = spec.library or library
    if lib not in ("lightgbm", "xgboost"):
        raise ValueError(f"library must be lightgbm or xgboost, got {library!r}")
    if spec.builtin and lib not in spec.builtin:
        raise ValueError(f"model {model!r} exists only in {', '.join(spec.builtin)}")
    p = dict(params)
    max_trees = int(p.pop("max_trees"))
    patience = int(p.pop("early_stopping"))
    t0 = time.perf_counter()
    if lib == "lightgbm":
        pred, best, n_trees, curve, used = _fit_lightgbm(spec, train, valid, test, p, max_trees, patience, seed,
                                                         threads)
    else:
        pred, best, n_trees, curve, used = _fit_xgboost(spec, train, valid, test, p, max_trees, patience, seed,
                                                        threads)
    train_s = time.perf_counter() - t0
    pred, test = pred
    res = evaluate(pred, test.y, test.offsets, list(metrics))
    per_query = {m.split("[")[0]: r.per_query for m, r in res.items()}
    means = {m.split("[")[0]: r.mean for m, r in res.items()}
    n_dropped = max(r.n_dropped for r in res.values())
    return FitResult(pred, per_query, means, n_dropped, best, n_trees, curve, train_s, used,
                     {"test_qid": test.query_ids, **used.pop("_sizes")})


def _fit_lightgbm(spec, train, valid, test, p, max_trees, patience, seed, threads):
    import lightgbm as lgb

    if spec.builtin:
        objective = spec.builtin["lightgbm"]
    else:
        objective = LightGBMObjective(spec.objective(), seed=seed.spawn(1)[0])
    sigmoid = p.pop("sigmoid", 1.0)
    norm = p.pop("lambdarank_norm", False)
    extra = {"sigmoid": sigmoid, "lambdarank_norm": norm} if objective == "lambdarank" else {}
    prm = lightgbm_params(objective, num_threads=threads, seed=_int_seed(seed), metric="None", **p, **extra)
    ds_params = {k: v for k, v in prm.items() if k != "objective"}
    tr = _get(train)
    sizes = _sizes("train", tr)
    dtr = lgb.Dataset(tr.X, tr.y, group=tr.query_sizes, params=ds_params).construct()
    del tr                                      # the binned copy is all LightGBM needs
    va = _get(valid)
    sizes.update(_sizes("valid", va))
    dva = lgb.Dataset(va.X, va.y, group=va.query_sizes, reference=dtr, params=ds_params).construct()
    va = _Labels(va)
    evals: dict = {}

    def feval(preds, data):
        return "ndcg@5", _valid_ndcg5(preds, va), True

    bst = lgb.train(prm, dtr, max_trees, valid_sets=[dva], valid_names=["valid"], feval=feval,
                    callbacks=[lgb.early_stopping(patience, verbose=False), lgb.record_evaluation(evals)])
    best = int(bst.best_iteration) or bst.current_iteration()
    te = _get(test)
    pred = bst.predict(te.X, num_iteration=best, num_threads=threads)
    used = {k: (v if not callable(v) else repr(getattr(v, "objective", v))) for k, v in prm.items()}
    used["_sizes"] = sizes
    curve = list(evals["valid"]["ndcg@5"])
    return (pred, te), best, len(curve), curve, used     # the returned booster holds only the best trees


def hessian_floor(objective, train: RankingDataset, min_data_in_leaf: int) -> float:
    """XGBoost's stand-in for LightGBM's ``min_data_in_leaf`` with a custom objective: a
    ``min_child_weight`` of ``min_data_in_leaf`` times the mean Hessian of the objective at
    the initial (zero) scores, i.e. the Hessian of a leaf of ``min_data_in_leaf`` average
    documents. XGBoost has no document floor; without one it fits leaves of a few
    documents with tiny listwise Hessians and large Newton steps (see
    :mod:`ltrrepro.presets`). The objective's own generator is not touched."""
    _, h = objective.grad_hess(np.zeros(train.n_docs), train.y, train.offsets, iteration=0,
                               rng=np.random.default_rng(0))
    return float(min_data_in_leaf * np.mean(h))


def _fit_xgboost(spec, train, valid, test, p, max_trees, patience, seed, threads):
    import xgboost as xgb

    obj = None
    objective = None
    if spec.builtin:
        objective = spec.builtin["xgboost"]
    else:
        obj = XGBoostObjective(spec.objective(), seed=seed.spawn(1)[0])
    p.pop("sigmoid", None)
    norm = p.pop("lambdarank_norm", False)
    min_data = p.pop("min_data_in_leaf", None)      # XGBoost has no minimum leaf size in documents
    extra = {"lambdarank_normalization": bool(norm)} if objective == "rank:ndcg" else {}
    prm = xgboost_params(max_leaves=p.pop("num_leaves"), eta=p.pop("learning_rate"), max_bin=p.pop("max_bin"),
                         nthread=threads, seed=_int_seed(seed), objective=objective,
                         disable_default_eval_metric=1, **p, **extra)
    tr = _get(train)
    if obj is not None and min_data and "min_child_weight" not in p:
        prm["min_child_weight"] = hessian_floor(spec.objective(), tr, min_data)
    sizes = _sizes("train", tr)
    dtr = xgb.DMatrix(tr.X, tr.y, nthread=threads)
    dtr.set_group(tr.query_sizes)
    del tr
    va = _get(valid)
    sizes.update(_sizes("valid", va))
    dva = xgb.DMatrix(va.X, va.y, nthread=threads)
    dva.set_group(va.query_sizes)
    va = _Labels(va)
    evals: dict = {}

    def metric(preds, dmat):
        return "ndcg@5", _valid_ndcg5(preds, va)

    bst = xgb.train(prm, dtr, max_trees, evals=[(dva, "valid")], obj=obj, custom_metric=metric, maximize=True,
                    early_stopping_rounds=patience, evals_result=evals, verbose_eval=False)
    best = int(bst.best_iteration) + 1
    te = _get(test)
    pred = bst.predict(xgb.DMatrix(te.X, nthread=threads), iteration_range=(0, best), output_margin=True)
    used = {**prm, "objective": objective or repr(obj.objective), "_sizes": sizes}
    return (pred, te), best, bst.num_boosted_rounds(), list(evals["valid"]["ndcg@5"]), used
