"""Ranking systems with early stopping in LightGBM and XGBoost: the library objectives and
ltrrepro's objectives through their adapters (Bruch 2021's models and baselines).

Model selection follows Bruch §5.2: validation NDCG@5 (gain 2^y − 1, queries without a
relevant document dropped) after every tree, stop after ``early_stopping`` rounds without
improvement, keep the best iteration, at most ``rounds`` trees. The validation metric is
ltrrepro's own (:func:`ltrrepro.metrics.evaluate`) in both libraries, so the selection and the
recorded learning curve use one definition. With ``early_stopping=None`` every round is
trained and the last one kept (full curves).

XGBoost has no minimum leaf size in documents: a custom objective gets ``min_child_weight =
min_data_in_leaf × its mean Hessian at zero scores`` (:func:`hessian_floor`; the measured
effect is in :mod:`ltrrepro.presets`).
"""
from __future__ import annotations

import numpy as np

from ..data import RankingDataset
from ..device import library_device_params
from ..metrics import evaluate
from ..objectives import LambdaMART, LightGBMObjective, ListNet, RankNet, XENDCG, XGBoostObjective
from ..presets import lightgbm_params, xgboost_params
from .base import Fitted, Labels, System, Trainer, int_seed, register

__all__ = ["RankingTrainer", "hessian_floor", "SELECT_METRIC"]

#: the validation metric of model selection (Bruch §5.2)
SELECT_METRIC = "ndcg@5[gain=exp2,norel=drop]"


def _valid_metric(pred, labels: Labels) -> float:
    return next(iter(evaluate(pred, labels.y, labels.offsets, [SELECT_METRIC]).values())).mean


def hessian_floor(objective, train: RankingDataset, min_data_in_leaf: int) -> float:
    """XGBoost's stand-in for LightGBM's ``min_data_in_leaf`` with a custom objective: a
    ``min_child_weight`` of ``min_data_in_leaf`` times the mean Hessian of the objective at
    the initial (zero) scores, i.e. the Hessian of a leaf of ``min_data_in_leaf`` average
    documents. The objective's own generator is not touched."""
    _, h = objective.grad_hess(np.zeros(train.n_docs), train.y, train.offsets, iteration=0,
                               rng=np.random.default_rng(0))
    return float(min_data_in_leaf * np.mean(h))


class RankingTrainer(Trainer):
    """Options: ``builtin`` (library -> objective name) or ``objective`` (a factory of an
    ltrrepro objective, ``objective_kwargs``); ``device`` (``cpu`` or ``cuda``: where the
    library grows the trees; custom gradients stay on the CPU, see :mod:`ltrrepro.device`)."""

    uses_valid = True

    def __init__(self, system, boosting, library, seed, threads=1, **options):
        super().__init__(system, boosting, library, seed, threads, **options)
        builtin = dict(self.options.get("builtin", ()))
        self.builtin = builtin.get(library)
        if builtin and self.builtin is None:
            raise ValueError(f"system {system.name!r} exists only in {', '.join(builtin)}")
        self.adapter = None
        if self.builtin is None:           # the adapter's generator first, then the library seed
            adapter_cls = LightGBMObjective if library == "lightgbm" else XGBoostObjective
            self.adapter = adapter_cls(self.make_objective(), seed=seed.spawn(1)[0])
        self.lib_seed = int_seed(seed)
        self.params = {**self._params(), **library_device_params(self.options.get("device", "cpu"), library)}
        self.sizes: dict = {}

    def make_objective(self):
        return self.options["objective"](**dict(self.options.get("objective_kwargs", ())))

    def _params(self) -> dict:
        b = self.boosting
        if self.library == "lightgbm":
            objective = self.builtin or self.adapter
            extra = {"sigmoid": b.sigmoid, "lambdarank_norm": b.lambdarank_norm} if objective == "lambdarank" else {}
            return lightgbm_params(objective, num_threads=self.threads, seed=self.lib_seed, metric="None",
                                   learning_rate=b.learning_rate, num_leaves=b.num_leaves,
                                   min_data_in_leaf=b.min_data_in_leaf, max_bin=b.max_bin, **extra)
        extra = {"lambdarank_normalization": bool(b.lambdarank_norm)} if self.builtin == "rank:ndcg" else {}
        return xgboost_params(max_leaves=b.num_leaves, eta=b.learning_rate, max_bin=b.max_bin, nthread=self.threads,
                              seed=self.lib_seed, objective=self.builtin, disable_default_eval_metric=1, **extra)

    def _size(self, part, ds):
        self.sizes.update({f"n_{part}_docs": int(ds.n_docs), f"n_{part}_queries": int(ds.n_queries)})

    def _label_gain(self, ds: RankingDataset) -> None:
        """Labels beyond the libraries' defaults. LightGBM's ``lambdarank`` has a default
        ``label_gain`` of 31 entries, 2^y − 1 for labels 0..30, and refuses label 31 (which
        the reader accepts, :data:`ltrrepro.svmlight.MAX_LABEL`) deep inside; for training
        labels above 30 it gets an explicit ``label_gain`` of 2^y − 1 up to the largest label
        (equal to the default where both have entries; with labels <= 30 nothing is passed, so
        parameters and results are unchanged). ``rank_xendcg`` needs none (its gain is 2^y
        internally). Labels beyond 1023 (2^y − 1 overflows float64) and, for XGBoost's
        ``rank:ndcg`` (exponential gain), beyond 31 are refused here in one line."""
        top = int(ds.y.max(initial=0))
        if self.builtin == "lambdarank" and top > 30:
            if top > 1023:
                raise ValueError(f"{ds.name}: labels reach {top}; LightGBM lambdarank's gain 2^y − 1 overflows "
                                 f"float64 beyond label 1023: relabel the grades (0, 1, 2, ...)")
            self.params["label_gain"] = [2.0 ** i - 1 for i in range(top + 1)]
        if self.builtin == "rank:ndcg" and top > 31:
            raise ValueError(f"{ds.name}: labels reach {top}; XGBoost's rank:ndcg (exponential gain) takes labels "
                             f"0..31: relabel the grades or use LightGBM")

    def add_train(self, ds: RankingDataset, **side) -> None:
        self._size("train", ds)
        self._label_gain(ds)
        if self.library == "lightgbm":
            import lightgbm as lgb
            dparams = {k: v for k, v in self.params.items() if k not in ("objective", "label_gain")}
            self.dtrain = lgb.Dataset(ds.X, ds.y, group=ds.query_sizes, params=dparams).construct()
        else:
            import xgboost as xgb
            if self.adapter is not None:
                self.params["min_child_weight"] = hessian_floor(self.make_objective(), ds,
                                                                self.boosting.min_data_in_leaf)
            self.dtrain = xgb.DMatrix(ds.X, ds.y, nthread=self.threads)
            self.dtrain.set_group(ds.query_sizes)

    def add_valid(self, ds: RankingDataset) -> None:
        self._size("valid", ds)
        if self.library == "lightgbm":
            import lightgbm as lgb
            dparams = {k: v for k, v in self.params.items() if k not in ("objective", "label_gain")}
            self.dvalid = lgb.Dataset(ds.X, ds.y, group=ds.query_sizes, reference=self.dtrain,
                                      params=dparams).construct()
        else:
            import xgboost as xgb
            self.dvalid = xgb.DMatrix(ds.X, ds.y, nthread=self.threads)
            self.dvalid.set_group(ds.query_sizes)
        self.valid_labels = Labels(ds)

    def _fit(self) -> Fitted:
        b = self.boosting
        patience = b.early_stopping if b.early_stopping is not None else b.rounds
        va = self.valid_labels
        evals: dict = {}
        if self.library == "lightgbm":
            import lightgbm as lgb

            def feval(preds, data):
                return "ndcg@5", _valid_metric(preds, va), True

            bst = lgb.train(self.params, self.dtrain, b.rounds, valid_sets=[self.dvalid], valid_names=["valid"],
                            feval=feval, callbacks=[lgb.early_stopping(patience, verbose=False),
                                                    lgb.record_evaluation(evals)])
            best = int(bst.best_iteration) or bst.current_iteration()
            curve = list(evals["valid"]["ndcg@5"])
            threads = self.threads
            raw = lambda X, a, k: bst.predict(X, start_iteration=a, num_iteration=k - a,  # noqa: E731
                                              num_threads=threads)
            used = {k: (v if not callable(v) else repr(getattr(v, "objective", v))) for k, v in self.params.items()}
            return Fitted(raw, best, len(curve), valid_curve=curve, params=used, info=dict(self.sizes))
        import xgboost as xgb

        def metric(preds, dmat):
            return "ndcg@5", _valid_metric(preds, va)

        bst = xgb.train(self.params, self.dtrain, b.rounds, evals=[(self.dvalid, "valid")], obj=self.adapter,
                        custom_metric=metric, maximize=True, early_stopping_rounds=patience, evals_result=evals,
                        verbose_eval=False)
        best = int(bst.best_iteration) + 1
        threads = self.threads
        raw = lambda X, a, k: bst.predict(xgb.DMatrix(X, nthread=threads), iteration_range=(a, k),  # noqa: E731
                                          output_margin=True)
        used = {**self.params, "objective": self.builtin or repr(self.adapter.objective)}
        return Fitted(raw, best, bst.num_boosted_rounds(), valid_curve=list(evals["valid"]["ndcg@5"]), params=used,
                      info=dict(self.sizes), ranges_add=False)


def _ranking(name, label, paper, **options):
    opts = tuple((k, tuple(v.items()) if isinstance(v, dict) else v) for k, v in options.items())
    libs = tuple(dict(options.get("builtin", {}))) if options.get("library_only") else ("lightgbm", "xgboost")
    opts = tuple(o for o in opts if o[0] != "library_only")
    return register(System(name, label, RankingTrainer, libraries=libs, options=opts, paper=paper))


_ranking("xendcg", "XE_NDCG MART", "Bruch 2021", objective=XENDCG, objective_kwargs=(("order", 2),))
_ranking("listnet", "ListNet", "Cao et al. 2007; Bruch 2021", objective=ListNet, objective_kwargs=(("order", 2),))
_ranking("lambdamart", "λMART", "Burges 2010; LightGBM lambdarank / XGBoost rank:ndcg",
         builtin={"lightgbm": "lambdarank", "xgboost": "rank:ndcg"})
_ranking("lambdamart_custom", "λMART (ltrrepro lambdas)", "Burges 2010", objective=LambdaMART,
         objective_kwargs=(("sigma", 1.0), ("norm", False)))
_ranking("ranknet", "RankNet", "Burges et al. 2005", objective=RankNet)
_ranking("lgb_rank_xendcg", "LightGBM rank_xendcg", "LightGBM", builtin={"lightgbm": "rank_xendcg"},
         library_only=True)
_ranking("xgb_rank_ndcg", "XGBoost rank:ndcg", "XGBoost", builtin={"xgboost": "rank:ndcg"}, library_only=True)
