"""The LightGBM backend (:class:`LightGBMBackend`) and its parameter preset (:func:`lightgbm_params`).

* ``min_sum_hessian_in_leaf=0`` and no L1/L2 regularization (Bruch §5.2; see
  :mod:`ltrrepro.fit.backends.base`), ``deterministic=True`` / ``force_row_wise`` and a fixed
  ``seed`` (also ``objective_seed``, for ``rank_xendcg``'s γ), explicit ``num_threads``.
* A custom objective (:class:`~ltrrepro.objectives.LightGBMObjective`) is the ``objective``
  parameter itself; LightGBM then starts from a zero score (no ``init_score``).
* Small ``min_data_in_leaf`` with ``min_sum_hessian_in_leaf=0`` can make LightGBM 4.7 abort
  with "Check failed: (best_split_info.left_count) > (0)" (an open LightGBM bug,
  lightgbm-org/LightGBM#4739): seen here with 1 and with 2 on synthetic Web30K data,
  15 leaves, custom LambdaMART/XE_NDCG, and with 3 and 5 (preset ``fast``: 31 leaves,
  63 bins, 600 queries, custom XE_NDCG/LambdaMART). The defaults here (20; the paper's 50
  and 100) have not hit it in any run so far.
* LightGBM lets a callback rewrite a grown tree's leaves (``Booster.set_leaf_output``): the
  hooks of :mod:`ltrrepro.fit.callbacks` (QBRank's line search, Newton leaves).
* Raw scores of consecutive round ranges add up (no base margin), so curves are built up
  range by range.
* LightGBM's own defaults (:attr:`LightGBMBackend.defaults`, read from LightGBM 4.7.0: the
  ``parameters:`` block of a model trained with ``objective="lambdarank"`` alone):
  ``learning_rate`` 0.1, ``num_leaves`` 31, ``min_data_in_leaf`` 20,
  ``min_sum_hessian_in_leaf`` 1e-3, ``max_bin`` 255, ``max_depth`` -1 (none), no L1/L2, no
  bagging or feature subsampling, ``min_gain_to_split`` 0, ``sigmoid`` 1, ``lambdarank_norm``
  true (the harness's presets set it false, Bruch's), 100 trees (``lgb.train``). Nothing beyond
  :class:`~ltrrepro.fit.boosting.Boosting` is restored; the harness keeps its threads, seeds,
  ``deterministic``/``force_row_wise`` and its own validation metric (``metric="None"``).
"""
from __future__ import annotations

from ...objectives.adapters import LightGBMObjective
from .base import Backend, Trained, round_state

__all__ = ["LightGBMBackend", "lightgbm_params", "sampling_params"]


def lightgbm_params(objective, *, num_leaves=31, learning_rate=0.1, min_data_in_leaf=20, max_bin=255,
                    num_threads=1, seed=0, **extra) -> dict:
    """LightGBM parameters for ``objective`` (a name or an adapter callable)."""
    p = {"objective": objective, "num_leaves": num_leaves, "learning_rate": learning_rate,
         "min_data_in_leaf": min_data_in_leaf, "min_sum_hessian_in_leaf": 0.0, "max_bin": max_bin,
         "num_threads": int(num_threads), "seed": seed, "objective_seed": seed, "deterministic": True,
         "force_row_wise": True, "verbose": -1, "lambda_l1": 0.0, "lambda_l2": 0.0}
    p.update(extra)
    return p


#: :meth:`~ltrrepro.fit.boosting.Boosting.regularization`'s fields by LightGBM's names (the others keep theirs)
_LGB_NAMES = {"min_sum_hessian": "min_sum_hessian_in_leaf", "min_split_gain": "min_gain_to_split"}


def sampling_params(b) -> dict:
    """LightGBM's names for a :class:`~ltrrepro.fit.boosting.Boosting`'s subsampling,
    regularization and depth (tuned runs, Kang et al.'s settings; none when off):
    ``feature_fraction`` per tree, ``bagging_fraction`` redrawn every tree (``bagging_freq=1``),
    ``lambda_l2``, ``lambda_l1``, ``max_depth``, ``min_sum_hessian_in_leaf`` (in place of a system's
    own Hessian floor) and ``min_gain_to_split``; their seeds derive from ``seed``."""
    s = {_LGB_NAMES.get(k, k): v for k, v in b.regularization().items()}
    if "bagging_fraction" in s:
        s["bagging_freq"] = 1
    return s


#: parameters that describe the objective, not the data: kept out of a Dataset's own parameters
_NOT_DATASET = ("objective", "label_gain", "num_class")


class LightGBMBackend(Backend):
    name = "lightgbm"
    label = "LightGBM"
    ranges_add = True
    rewrites_leaves = True
    objectives = {"squared_error": "regression", "lambdarank": "lambdarank", "xendcg": "rank_xendcg"}
    position_field = True           # Dataset(position=...), LightGBM >= 4.1; its biases stay inside the objective
    debiasing = {"lgb_position_lambdamart": ("LightGBM position-debiased λMART", "LightGBM >= 4.1", "lambdamart",
                                             "lambdarank", (), "dataset")}
    tag = "lgb"
    defaults = {"learning_rate": 0.1, "num_leaves": 31, "min_data_in_leaf": 20, "max_bin": 255, "sigmoid": 1.0,
                "lambdarank_norm": True, "feature_fraction": 1.0, "bagging_fraction": 1.0, "lambda_l2": 0.0,
                "max_depth": 0, "min_sum_hessian": 1e-3, "min_split_gain": 0.0, "lambda_l1": 0.0}
    default_params: dict = {}
    harness_params = ("num_threads", "seed", "objective_seed", "deterministic", "force_row_wise", "verbose", "metric")
    default_rounds = 100
    defaults_read = "4.7.0"

    def position_missing(self) -> str | None:
        import lightgbm
        if tuple(int(x) for x in lightgbm.__version__.split(".")[:2]) < (4, 1):
            return f"LightGBM {lightgbm.__version__} has no Dataset position (4.1 added it): upgrade LightGBM"
        return None
    baselines = {"lgb_rank_xendcg": ("LightGBM rank_xendcg", "LightGBM", "xendcg", "rank_xendcg"),
                 "lgb_lambdarank": ("LightGBM lambdarank", "Burges 2010; LightGBM", "lambdamart", "lambdarank")}
    module = "lightgbm"
    gpu_probe = ("import numpy as np, lightgbm as lgb\n"
                 "X = np.random.default_rng(0).random((64, 3)); y = X[:, 0]\n"
                 "lgb.train({'device_type': 'cuda', 'verbose': -1}, lgb.Dataset(X, y), 1)\n")
    gpu_missing = ("this LightGBM was built without CUDA (the PyPI wheels are CPU-only: build it with "
                   "cmake -DUSE_CUDA=1, or use --library xgboost, whose wheels train on CUDA)")

    def tree_learner(self, leaves: int, boosting) -> str:
        return (f"LightGBM's histogram trees ({boosting.max_bin} bins) grown leaf-wise (largest gain first) up to "
                f"{leaves} leaves, at least {boosting.min_data_in_leaf} documents per leaf")

    def adapter(self, objective, *, track_scores: bool = False):
        return LightGBMObjective(objective, track_scores=track_scores)

    def params(self, objective, boosting, *, threads, seed, device="cpu", own_metric=False, min_leaf_hessian=None,
               start=None, n_outputs=1, **extra) -> dict:
        if start is not None and objective != self.objectives["squared_error"]:
            raise ValueError("LightGBM: a starting score is its regression objective's own (boost_from_average)")
        b = boosting
        more: dict = {}
        if own_metric:
            more["metric"] = "None"
        if objective == "lambdarank":
            more.update(sigmoid=b.sigmoid, lambdarank_norm=b.lambdarank_norm)
        if min_leaf_hessian is not None:
            more["min_sum_hessian_in_leaf"] = float(min_leaf_hessian)
        if n_outputs > 1:
            more["num_class"] = int(n_outputs)
        more.update(sampling_params(b))
        p = lightgbm_params(objective, num_leaves=b.num_leaves, learning_rate=b.learning_rate,
                            min_data_in_leaf=b.min_data_in_leaf, max_bin=b.max_bin, num_threads=threads, seed=seed,
                            **more, **extra)
        p.update(self.device_params(device))
        return p

    def device_params(self, device: str) -> dict:
        """CUDA through ``device_type`` (a LightGBM built with ``-DUSE_CUDA=1``; checked by
        :func:`ltrrepro.device.check_device`)."""
        return {} if device == "cpu" else {"device_type": device}

    def check_labels(self, params, ds) -> None:
        """Labels beyond the libraries' defaults. LightGBM's ``lambdarank`` has a default
        ``label_gain`` of 31 entries, 2^y − 1 for labels 0..30, and refuses label 31 (which
        the reader accepts, :data:`ltrrepro.svmlight.MAX_LABEL`) deep inside; for training
        labels above 30 it gets an explicit ``label_gain`` of 2^y − 1 up to the largest label
        (equal to the default where both have entries; with labels <= 30 nothing is passed, so
        parameters and results are unchanged). ``rank_xendcg`` needs none (its gain is 2^y
        internally). Labels beyond 1023 (2^y − 1 overflows float64) are refused in one line."""
        top = int(ds.y.max(initial=0))
        if params.get("objective") == "lambdarank" and top > 30:
            if top > 1023:
                raise ValueError(f"{ds.name}: labels reach {top}; LightGBM lambdarank's gain 2^y − 1 overflows "
                                 f"float64 beyond label 1023: relabel the grades (0, 1, 2, ...)")
            params["label_gain"] = [2.0 ** i - 1 for i in range(top + 1)]

    def library_dump(self, booster) -> dict:
        """The ``parameters:`` block of the model file LightGBM writes (``[objective: lambdarank]``, ...)."""
        text = booster.model_to_string()
        block = text[text.find("parameters:"):text.find("end of parameters")]
        out = {}
        for line in block.splitlines():
            if line.startswith("[") and ": " in line:
                key, _, value = line[1:].rstrip("]").partition(": ")
                out[key] = value
        return out

    def record_params(self, params, adapter=None) -> dict:
        return {k: (v if not callable(v) else repr(getattr(v, "objective", v))) for k, v in params.items()}

    def dataset(self, ds, params, *, threads, reference=None, grouped=True, position=None):
        """Binned once here (``construct``), with the training parameters that bin (the
        objective's own left out), so the caller may drop its features. ``position``: each
        row's displayed position, for ``lambdarank``'s position-bias term (LightGBM >= 4.1)."""
        import lightgbm as lgb
        dparams = {k: v for k, v in params.items() if k not in _NOT_DATASET}
        more = {} if position is None else {"position": position}
        return lgb.Dataset(ds.X, ds.y, group=ds.query_sizes if grouped else None, reference=reference,
                           params=dparams, **more).construct()

    def train(self, params, dtrain, rounds, *, obj=None, valid=None, metric=None, patience=None,
              callbacks=(), seed=0) -> Trained:
        import lightgbm as lgb
        if obj is not None and params.get("objective") is not obj:
            raise ValueError("LightGBM: a custom objective is the 'objective' parameter (Backend.params)")
        state = round_state(obj, callbacks, seed)
        if state is not None:
            params = {**params, "objective": obj.bind(state)}
        if valid is None:
            bst = lgb.train(params, dtrain, rounds, callbacks=list(callbacks))
            return Trained(bst, rounds, rounds)
        name, fn = metric
        evals: dict = {}

        def feval(preds, data):
            return name, fn(preds), True

        bst = lgb.train(params, dtrain, rounds, valid_sets=[valid], valid_names=["valid"], feval=feval,
                        callbacks=[lgb.early_stopping(patience or rounds, verbose=False),
                                   lgb.record_evaluation(evals), *callbacks])
        curve = list(evals["valid"][name])
        return Trained(bst, int(bst.best_iteration) or bst.current_iteration(), len(curve), curve)

    def predictor(self, booster, threads):
        threads = int(threads)

        def raw(X, start, stop):
            return booster.predict(X, raw_score=True, start_iteration=start, num_iteration=stop - start,
                                   num_threads=threads)
        return raw

    def rescale_leaves(self, adapter, X, step_fn, shrinkage):
        from ..callbacks import LeafRescaleCallback
        return LeafRescaleCallback(adapter, X, step_fn, shrinkage=shrinkage)

    def validation_callback(self, X, metric):
        from ..callbacks import ValidationCallback
        return ValidationCallback(X, metric)

    def newton_leaves(self, adapter, X, learning_rate, n_outputs=1):
        from ..callbacks import NewtonLeafCallback
        return NewtonLeafCallback(adapter, X, learning_rate, n_outputs)
