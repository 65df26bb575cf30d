"""The CatBoost backend (:class:`CatBoostBackend`) and its parameter preset (:func:`catboost_params`).

CatBoost is a third family of library baselines: its own ranking losses only — YetiRank (its
default ranker; Gulin et al. 2011), LambdaMart, QuerySoftMax (a ListNet-like softmax cross
entropy) and PairLogit (RankNet's pairwise logistic loss). It takes no Python custom objective
for ranking (catboost/catboost's open request for a grouped custom objective), so an ltrrepro
objective is refused (:meth:`CatBoostBackend.adapter`): CatBoost is a baseline, never an arm.

How :class:`~ltrrepro.fit.boosting.Boosting` (LightGBM's vocabulary) maps onto CatBoost's:

* ``num_leaves`` → ``max_leaves`` with ``grow_policy="Lossguide"`` (leaf-wise growth to a
  fixed number of leaves). Chosen over a ``depth`` of CatBoost's default symmetric
  (oblivious) trees so that the three libraries fit the same kind of tree — LightGBM grows
  leaf-wise and XGBoost is set to ``lossguide`` with ``max_leaves`` — and a comparison of
  losses is not also one of tree shapes (a depth d symmetric tree has 2^d leaves, never 31 or
  400). The cost: Lossguide is CatBoost's slower growth (measured, 50 trees on 26k synthetic
  Web30K documents, 2 threads: YetiRank 7.6 s vs 3.8 s with ``depth=5``).
* ``min_data_in_leaf`` → ``min_data_in_leaf`` (honoured by Lossguide growth).
* ``max_bin`` → ``border_count = max_bin − 1`` (b borders make b + 1 bins, as LightGBM's
  ``max_bin`` counts bins).
* ``learning_rate`` → ``learning_rate``; ``rounds`` → ``iterations``.
* No L2 regularization (Bruch §5.2: ``l2_leaf_reg=0``; CatBoost stores it as 1e-20), no
  bagging (``bootstrap_type="No"``; CatBoost's default is MVS with subsample 0.8) and no
  random noise on split scores (``random_strength=0``; default 1): the other two libraries get
  neither in this protocol. YetiRank's random permutations stay (they are the loss), drawn
  from ``random_seed``.
* ``sigmoid`` and ``lambdarank_norm`` → ``LambdaMart:sigma=…;norm=…`` (σ = 1, ``norm=false``
  with Bruch's presets); its other settings are CatBoost's defaults (NDCG over the whole list,
  no top-k truncation, where LightGBM's ``lambdarank`` truncates at 30). YetiRank,
  QuerySoftMax and PairLogit keep CatBoost's defaults (PairLogit's pairs are generated from
  the grades within each query).
* ``random_seed`` the unit's model seed; ``thread_count`` from ``--threads`` in training and
  in every prediction; ``allow_writing_files=False`` (no ``catboost_info/``).

Model selection is the harness's own (as in the other libraries): the validation NDCG@5 of
:mod:`ltrrepro.fit.ranking` is CatBoost's ``eval_metric`` (a Python metric object), computed on
the validation pool's raw scores after every tree; training stops ``patience`` trees after the
best value (LightGBM's rule: the first maximum, improvements strictly greater) and the best
iteration is that first maximum — CatBoost's own ``use_best_model`` and overfitting detector
are off. A Python metric is also called on the training pool, which ltrrepro skips (it answers
0 there without computing): its calls are told apart by size, and by their order (the training
pool first, then the validation pool, per iteration) when both parts have as many documents.

CatBoost's own defaults (:data:`DEFAULTS`, read from CatBoost 1.2.10: ``get_all_params`` of a model
trained with the loss alone) depend on the loss. Every ranking loss here: ``learning_rate`` 0.03,
symmetric trees of ``depth`` 6 (Lossguide: ``max_leaves`` 31, ``min_data_in_leaf`` 1, depth 6),
``border_count`` 254, MVS bootstrap with ``subsample`` 0.8, ``random_strength`` 1, LambdaMart's
``sigma=1;norm=true`` (a model trained with them predicts as one trained with ``LambdaMart`` alone,
bit for bit), 1000 trees; ``l2_leaf_reg`` 0 (stored 1e-20) for YetiRank, YetiLoss and LambdaMart
but 3 for StochasticRank, QueryRMSE, QuerySoftMax and PairLogit; YetiRankPairwise ``border_count``
32, Bernoulli bootstrap with ``subsample`` 0.5 and ``random_strength`` 0
(:data:`LOSS_DEFAULTS`). At the library's defaults the harness keeps its seed, threads, no files,
its own selection (``use_best_model`` off, its ``eval_metric``) and the tree shape it is asked for.

CPU only (``--device cuda`` is refused by :func:`ltrrepro.device.check_device`). Raw scores
(``RawFormulaVal``) of a range of trees carry the model's bias, so prefixes are predicted from
tree 0 (``ranges_add`` False).
"""
from __future__ import annotations

import numpy as np

from .base import Backend, Trained

__all__ = ["CatBoostBackend", "catboost_params", "require_catboost", "LOSSES", "TARGETS"]

#: CatBoost's ranking losses this harness trains (system names are ``catboost_<key>``)
LOSSES = {"yetirank": "YetiRank", "lambdamart": "LambdaMart", "querysoftmax": "QuerySoftMax", "pairlogit": "PairLogit",
          "yetirank_pairwise": "YetiRankPairwise", "stochasticrank": "StochasticRank", "queryrmse": "QueryRMSE"}

#: the ranking quality functions CatBoost's metric-targeted losses take (Lyzhin et al. 2023 §4.1), the
#: harness's metric name -> CatBoost's: YetiLoss (``YetiRank:mode=``) and ``LambdaMart:metric=`` take all
#: four, ``StochasticRank:metric=`` all but MAP (CatBoost 1.2.1's release notes: ERR and MRR added)
TARGETS = {"ndcg": "NDCG", "mrr": "MRR", "err": "ERR", "map": "MAP"}
#: truncation of a metric-targeted loss: the paper's metrics are at 10
TOP = 10


def _targeted() -> dict:
    """The metric-targeted systems: ``catboost_yetiloss_<m>``, ``catboost_lambdamart_<m>`` (NDCG is
    ``catboost_lambdamart``'s default, its ``_ndcg`` twin truncated at 10), ``catboost_stochasticrank_<m>``."""
    out = {}
    for m, name in TARGETS.items():
        out[f"catboost_yetiloss_{m}"] = (f"CatBoost YetiLoss ({name}@{TOP})", "Lyzhin et al. 2023; CatBoost >= 1.2.1",
                                         "yetiloss", f"YetiRank:mode={name};top={TOP}")
        out[f"catboost_lambdamart_{m}"] = (f"CatBoost LambdaMart ({name}@{TOP})", "Burges 2010; CatBoost",
                                           "lambdamart", f"LambdaMart:metric={name};top={TOP}")
        if m != "map":
            out[f"catboost_stochasticrank_{m}"] = (f"CatBoost StochasticRank ({name}@{TOP})",
                                                   "Ustimenko & Prokhorenkova 2020; CatBoost", "stochasticrank",
                                                   f"StochasticRank:metric={name};top={TOP}")
    return out


#: YetiRank's (and YetiLoss's) smoothing knobs (the ablations of Lyzhin et al. 2023 §4.3), CatBoost's
#: names -> the values it takes (None: a number); CatBoost's defaults: noise Gumbel, noise_power 1 (Gauss
#: only), num_neighbors 1, dcg_type Base, dcg_denominator Position for the loss (LogPosition for the metric)
KNOBS = {"noise": ("Gumbel", "Gauss", "No"), "noise_power": None, "num_neighbors": None, "dcg_type": ("Base", "Exp"),
         "dcg_denominator": ("Position", "LogPosition")}
#: CatBoost's pairwise modes, which it grows with symmetric trees only on the CPU ("Pairwise mode is not
#: supported for nonsymmetric trees on CPU"): their systems take CatBoost's default trees whatever the shape
PAIRWISE_MODES = ("YetiRankPairwise",)
#: tree shapes: the harness's word -> CatBoost's grow policy
SHAPES = {"oblivious": "SymmetricTree", "leafwise": "Lossguide"}


def with_knobs(loss: str, knobs: dict) -> str:
    """``loss`` (``Name`` or ``Name:a=b;...``) with the smoothing ``knobs`` appended (each checked
    against :data:`KNOBS`; only YetiRank's family takes them).

    >>> with_knobs("YetiRank:mode=NDCG;top=10", {"noise": "Gauss", "num_neighbors": 3})
    'YetiRank:mode=NDCG;top=10;noise=Gauss;num_neighbors=3'
    """
    if not knobs:
        return loss
    if not loss.startswith("YetiRank"):
        raise ValueError(f"smoothing knobs {sorted(knobs)} are YetiRank's (and YetiLoss's), not {loss!r}'s")
    parts = []
    for k, v in knobs.items():
        allowed = KNOBS.get(k, ())
        if k not in KNOBS or (allowed is not None and v not in allowed) or (allowed is None and not float(v) >= 0):
            raise ValueError(f"YetiRank knob {k}={v!r}: known are " + ", ".join(
                f"{n} in {a}" if a else f"{n} >= 0" for n, a in KNOBS.items()))
        parts.append(f"{k}={int(v) if k == 'num_neighbors' else v:g}" if allowed is None else f"{k}={v}")
    return loss + (";" if ":" in loss else ":") + ";".join(parts)

#: how a run's protocol notes describe CatBoost's models (a choice: the paper used no CatBoost)
CHOICE = ("CatBoost's losses with the preset mapped to its vocabulary: leaf-wise trees to the preset's leaves "
          "(grow_policy Lossguide, max_leaves), min_data_in_leaf as given, border_count = max_bin − 1, no L2, no "
          "bagging, no split-score noise; LambdaMart σ and norm from the preset, its other settings and YetiRank's, "
          "QuerySoftMax's and PairLogit's CatBoost's defaults; selected on the same validation NDCG@5")

#: CatBoost's defaults for its ranking losses (1.2.10, read as the module docstring says), in
#: :class:`~ltrrepro.fit.boosting.Boosting`'s names: ``num_leaves`` Lossguide's ``max_leaves`` (a
#: symmetric tree's 2^6 leaves come from ``max_depth``), ``max_bin`` = ``border_count`` + 1
DEFAULTS = {"learning_rate": 0.03, "num_leaves": 31, "min_data_in_leaf": 1, "max_bin": 255, "sigmoid": 1.0,
            "lambdarank_norm": True, "feature_fraction": 1.0, "bagging_fraction": 1.0, "lambda_l2": 0.0,
            "max_depth": 6, "min_sum_hessian": 0.0, "min_split_gain": 0.0, "lambda_l1": 0.0}
#: CatBoost's own parameters beyond Boosting at its defaults (the harness otherwise grows Lossguide trees
#: and turns bagging and split-score noise off)
DEFAULT_PARAMS = {"grow_policy": "SymmetricTree", "bootstrap_type": "MVS", "subsample": 0.8, "random_strength": 1.0}
#: the losses whose defaults differ from :data:`DEFAULTS` / :data:`DEFAULT_PARAMS`: loss -> (fields, parameters)
LOSS_DEFAULTS = {**{loss: ({"lambda_l2": 3.0}, {}) for loss in ("StochasticRank", "QueryRMSE", "QuerySoftMax",
                                                                 "PairLogit")},
                 "YetiRankPairwise": ({"max_bin": 33}, {"bootstrap_type": "Bernoulli", "subsample": 0.5,
                                                        "random_strength": 0.0})}

INSTALL = "pip install 'ltrrepro[catboost]' (or pip install catboost)"


def require_catboost():
    """The ``catboost`` module, or an :class:`ImportError` whose message says how to install it."""
    try:
        import catboost
    except ImportError as err:
        raise ImportError(f"CatBoost is not installed ({err}): {INSTALL}") from None
    return catboost


def catboost_params(loss: str, *, max_leaves=31, learning_rate=0.1, min_data_in_leaf=20, max_bin=255,
                    thread_count=1, seed=0, **extra) -> dict:
    """CatBoost parameters for the ranking ``loss`` (see the module docstring for the mapping).

    ``grow_policy="SymmetricTree"`` (CatBoost's default oblivious trees, as Lyzhin et al. 2023 used
    them) in ``extra`` grows trees of ``depth`` (given, or ``round(log2(max_leaves))``: 31 leaves ->
    depth 5) with no leaf-size floor (CatBoost honours ``max_leaves``/``min_data_in_leaf`` with
    Lossguide only)."""
    shape = extra.get("grow_policy", "Lossguide")
    size = ({"max_leaves": int(max_leaves), "min_data_in_leaf": int(min_data_in_leaf)} if shape == "Lossguide" else
            {"depth": int(extra.pop("depth", max(1, round(np.log2(max(2, int(max_leaves))))))),
             **({"min_data_in_leaf": int(min_data_in_leaf)} if shape == "Depthwise" else {})})
    p = {"loss_function": loss, "grow_policy": "Lossguide", **size,
         "learning_rate": float(learning_rate),
         "border_count": int(max_bin) - 1, "l2_leaf_reg": 0.0, "bootstrap_type": "No", "random_strength": 0.0,
         "random_seed": int(seed), "thread_count": int(thread_count), "allow_writing_files": False,
         "verbose": False, "use_best_model": False}
    p.update(extra)
    return p


class _Selection:
    """CatBoost's ``eval_metric`` and stopping callback at once: the harness's validation
    metric on the validation pool after every tree (the training pool's calls skipped), the
    curve, the first best iteration, and the stop ``patience`` trees after it."""

    no_jit = True                      # CatBoost would try numba on ``evaluate``: it is plain Python

    def __init__(self, fn, n_train: int, n_valid: int, patience: int):
        self.fn, self.n_train, self.n_valid, self.patience = fn, int(n_train), int(n_valid), int(patience)
        self.calls, self.curve, self.best, self.best_value = 0, [], 0, -np.inf

    def __deepcopy__(self, memo):          # CatBoost copies its parameters: the copy must be this one
        return self

    def __copy__(self):
        return self

    def is_max_optimal(self):
        return True

    def get_final_error(self, error, weight):
        return error

    def _is_valid(self, n: int) -> bool:
        if self.n_train != self.n_valid:
            return n == self.n_valid
        return self.calls % 2 == 0         # equal sizes: the training pool's call comes first

    def evaluate(self, approxes, target, weight):
        self.calls += 1
        if not self._is_valid(len(target)):
            return 0.0, 1.0
        value = float(self.fn(np.asarray(approxes[0], dtype=np.float64)))
        if value > self.best_value:        # strictly greater: the first maximum (NaN never is)
            self.best, self.best_value = len(self.curve), value
        self.curve.append(value)
        return value, 1.0

    def after_iteration(self, info) -> bool:
        """Go on while fewer than ``patience`` trees came after the best one."""
        return len(self.curve) - 1 - self.best < self.patience


#: :meth:`~ltrrepro.fit.boosting.Boosting.regularization`'s fields CatBoost has no parameter for
_NO_CATBOOST = {"min_sum_hessian": "a least Σ Hessian of a leaf", "min_split_gain": "a least split gain",
                "lambda_l1": "an L1 penalty on leaf values"}


def _catboost_sampling(b) -> dict:
    """CatBoost's names for :meth:`~ltrrepro.fit.boosting.Boosting.regularization` (tuned runs;
    none when off): ``rsm`` (features per split), Bernoulli bagging with ``subsample``,
    ``l2_leaf_reg``, ``depth``; a field CatBoost has no parameter for is refused (ValueError)."""
    s = b.regularization()
    if lost := [f"{k} ({_NO_CATBOOST[k]})" for k in s if k in _NO_CATBOOST]:
        raise ValueError(f"CatBoost has no parameter for {', '.join(lost)}: leave it at 0 in a CatBoost system")
    out = {}
    if "max_depth" in s:
        out["depth"] = s["max_depth"]
    if "feature_fraction" in s:
        out["rsm"] = s["feature_fraction"]
    if "bagging_fraction" in s:
        out.update(bootstrap_type="Bernoulli", subsample=s["bagging_fraction"])
    if "lambda_l2" in s:
        out["l2_leaf_reg"] = s["lambda_l2"]
    return out


class CatBoostBackend(Backend):
    name = "catboost"
    tag = "cb"
    label = "CatBoost"
    ranges_add = False
    rewrites_leaves = False
    #: its ranking losses, and squared error (``RMSE`` from a zero score) for pointwise use
    objectives = {"squared_error": "RMSE", "lambdarank": "LambdaMart", **{k: v for k, v in LOSSES.items()
                                                                           if k != "lambdamart"}}
    custom_objectives = False
    baselines = {"catboost_yetirank": ("CatBoost YetiRank", "Gulin et al. 2011; CatBoost", "yetirank", "YetiRank"),
                 "catboost_lambdamart": ("CatBoost LambdaMart", "Burges 2010; CatBoost", "lambdamart", "LambdaMart"),
                 "catboost_querysoftmax": ("CatBoost QuerySoftMax", "CatBoost (ListNet-like softmax)", "querysoftmax",
                                           "QuerySoftMax"),
                 "catboost_pairlogit": ("CatBoost PairLogit", "Burges et al. 2005; CatBoost", "pairlogit",
                                        "PairLogit"),
                 "catboost_yetirank_pairwise": ("CatBoost YetiRankPairwise", "Gulin et al. 2011; CatBoost", "yetirank",
                                                "YetiRankPairwise"),
                 "catboost_queryrmse": ("CatBoost QueryRMSE", "CatBoost (per-query centred squared error)",
                                        "queryrmse", "QueryRMSE"),
                 **_targeted()}
    choice = CHOICE
    module = "catboost"
    defaults = DEFAULTS
    default_params = DEFAULT_PARAMS
    harness_params = ("random_seed", "thread_count", "allow_writing_files", "verbose", "use_best_model")
    default_rounds = 1000
    defaults_read = "1.2.10"

    def library_defaults(self, objective: str) -> tuple[dict, dict]:
        """CatBoost's defaults for the ranking loss ``objective`` (``Name`` or ``Name:k=v;...``):
        :data:`DEFAULTS` and :data:`DEFAULT_PARAMS` with the loss's own (:data:`LOSS_DEFAULTS`)."""
        name = objective.split(":")[0]
        if name not in LOSSES.values():
            raise ValueError(f"CatBoost's defaults were read for its ranking losses ({', '.join(LOSSES.values())}), "
                             f"not {objective!r}")
        fields, params = LOSS_DEFAULTS.get(name, ({}, {}))
        return {**DEFAULTS, **fields}, {**DEFAULT_PARAMS, **params}

    def missing(self) -> str | None:
        try:
            require_catboost()
        except ImportError as err:
            return str(err)
        return None

    def adapter(self, objective, *, track_scores: bool = False):
        raise ValueError(f"CatBoost takes no custom ranking objective from Python ({getattr(objective, 'name', objective)!r}): "
                         f"train it with --library lightgbm or xgboost; CatBoost's own losses are the systems "
                         f"{', '.join('catboost_' + k for k in LOSSES)}")

    def params(self, objective, boosting, *, threads, seed, device="cpu", own_metric=False, min_leaf_hessian=None,
               start=None, n_outputs=1, **extra) -> dict:
        if not isinstance(objective, str) or objective.split(":")[0] not in self.objectives.values():
            self.adapter(objective)
        if n_outputs != 1 or min_leaf_hessian is not None:
            raise ValueError("CatBoost: one output per document, no Hessian floor")
        if start not in (None, 0.0) or (start is not None and objective != "RMSE"):
            raise ValueError("CatBoost: a regression starts from a zero score here (boost_from_average off)")
        b = boosting
        loss = objective
        if objective == "RMSE":
            extra = {"boost_from_average": False, **extra}
        if objective.split(":")[0] == "LambdaMart" and "sigma=" not in objective:
            loss = (objective + (";" if ":" in objective else ":") +
                    f"sigma={b.sigmoid:g};norm={'true' if b.lambdarank_norm else 'false'}")
        if loss.split(":")[0] in PAIRWISE_MODES and extra.get("grow_policy", "SymmetricTree") != "SymmetricTree":
            raise ValueError(f"CatBoost trains {loss.split(':')[0]} with symmetric trees only (on the CPU)")
        if loss.split(":")[0] in PAIRWISE_MODES:        # its pairwise mode: symmetric trees only on the CPU
            extra = {"grow_policy": "SymmetricTree", **extra}
        extra = {**_catboost_sampling(b), **extra}
        p = catboost_params(loss, max_leaves=b.num_leaves, learning_rate=b.learning_rate,
                            min_data_in_leaf=b.min_data_in_leaf, max_bin=b.max_bin, thread_count=threads, seed=seed,
                            **extra)
        p.update(self.device_params(device))
        return p

    def record_params(self, params, adapter=None) -> dict:
        return dict(params)

    def smoothing(self, objective: str, knobs: dict) -> str:
        """YetiRank's (and YetiLoss's) ``objective`` with the smoothing ``knobs`` (:func:`with_knobs`)."""
        return with_knobs(objective, knobs)

    def tree_shape(self, shape: str) -> dict:
        """The parameters that grow ``shape`` trees (``oblivious``: CatBoost's default symmetric ones)."""
        if shape not in SHAPES:
            raise ValueError(f"tree shape {shape!r}: one of {', '.join(SHAPES)}")
        return {"grow_policy": SHAPES[shape]}

    def library_dump(self, booster) -> dict:
        """The model's own parameter dump (``get_all_params``): what CatBoost trained with."""
        return dict(booster.get_all_params())

    def dataset(self, ds, params, *, threads, reference=None, grouped=True):
        """A ``Pool`` with one group id per query (the query's number in ``ds``; none when not
        ``grouped``); CatBoost
        quantizes the training pool when training starts and the validation pool with its
        borders."""
        from ...data import query_index

        catboost = require_catboost()
        return catboost.Pool(ds.X, ds.y.astype(np.float64), group_id=query_index(ds.offsets) if grouped else None,
                             thread_count=int(threads))

    def train(self, params, dtrain, rounds, *, obj=None, valid=None, metric=None, patience=None,
              callbacks=(), seed=0) -> Trained:
        catboost = require_catboost()
        if obj is not None:
            self.adapter(obj)
        if callbacks:
            raise NotImplementedError("CatBoost: no per-round leaf rewriting")
        p = {**params, "iterations": int(rounds)}
        if valid is None:
            model = catboost.CatBoost(p)
            model.fit(dtrain)
            return Trained(model, rounds, rounds)
        _, fn = metric
        sel = _Selection(fn, dtrain.num_row(), valid.num_row(), patience or rounds)
        model = catboost.CatBoost({**p, "eval_metric": sel})
        model.fit(dtrain, eval_set=valid, callbacks=[sel])
        if model.tree_count_ != len(sel.curve):
            raise RuntimeError(f"CatBoost: {model.tree_count_} trees but {len(sel.curve)} validation values "
                               f"(the metric's calls were not told apart)")
        return Trained(model, sel.best + 1, len(sel.curve), list(sel.curve))

    def predictor(self, booster, threads):
        threads = int(threads)

        def raw(X, start, stop):
            return booster.predict(X, prediction_type="RawFormulaVal", ntree_start=start, ntree_end=stop,
                                   thread_count=threads)
        return raw
