"""Ranking systems with early stopping in LightGBM, XGBoost and CatBoost: the library objectives
and ltrrepro's objectives through their adapters (Bruch 2021's models and baselines), and
CatBoost's own ranking losses (``catboost_yetirank``, ``catboost_lambdamart``,
``catboost_querysoftmax``, ``catboost_pairlogit``: baselines only, CatBoost takes no custom
ranking objective; hyperparameter mapping in :mod:`ltrrepro.fit.backends.catboost`).

Model selection follows Bruch §5.2: validation NDCG@5 (gain 2^y − 1, queries without a
relevant document dropped) after every tree, stop after ``early_stopping`` rounds without
improvement, keep the best iteration, at most ``rounds`` trees. The validation metric is
ltrrepro's own (:func:`ltrrepro.metrics.evaluate`) in every library, so the selection and the
recorded learning curve use one definition. With ``early_stopping=None`` every round is
trained and the last one kept (full curves).

XGBoost has no minimum leaf size in documents: a custom objective gets ``min_child_weight =
min_data_in_leaf × its mean Hessian at zero scores`` (:func:`hessian_floor`, handed to the
backend's :meth:`~ltrrepro.fit.backends.Backend.leaf_floor`; the measured effect is in
:mod:`ltrrepro.fit.backends.xgboost`), unless the boosting declares its own least leaf Hessian
(:attr:`~ltrrepro.fit.boosting.Boosting.min_sum_hessian`, Kang et al.'s ``min_child_weight``),
which then stands as declared. Every library call goes through the trainer's backend.

Click systems (the debiasing study, docs/protocols/debiasing.md): :class:`ClickTrainer` trains on
click sessions for the preset's rounds with no model selection, the rows' displayed positions
entering as LightGBM's position field, as a feature, or bound to the objective (Unbiased
LambdaMART, IPS); :func:`on_clicks` turns a plug-in into one.

Identity: ``family`` is the loss (``xendcg``, ``listnet``, ``lambdamart``, ``ranknet``);
``variant`` is ``custom`` (ltrrepro's objective through the library's adapter), ``builtin``
(each library's own objective) or a library's name (that library's own objective only).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from ..data import RankingDataset
from ..device import DEVICES
from ..metrics import evaluate
from ..objectives import LambdaMART, ListNet, RankNet, XENDCG
from ..objectives.debiasing import IPSLambdaMART, IPSXENDCG, UnbiasedLambdaMART
from .backends import BACKENDS, custom_objective_libraries
from .base import Fitted, Labels, System, Trainer, int_seed, register
from .space import OBJECTIVE_PREFIX

__all__ = ["RankingTrainer", "RankingOptions", "ClickTrainer", "ClickOptions", "on_clicks", "hessian_floor", "SELECT_METRIC",
           "POSITION_MODES"]

#: the validation metric of model selection (Bruch §5.2)
SELECT_METRIC = "ndcg@5[gain=exp2,norel=drop]"


@dataclass(frozen=True)
class RankingOptions:
    """Options of a ranking system (Bruch's models and baselines, plug-ins).

    ``builtin``: ((library, objective name), ...), the libraries' own objective, or
    ``objective``: a factory of an ltrrepro objective called with ``objective_kwargs``
    (((name, value), ...)); exactly one of the two. ``device``: ``cpu`` or ``cuda``, where the
    library grows the trees (custom gradients stay on the CPU, see :mod:`ltrrepro.device`).
    ``library_params``: ((library, ((name, value), ...)), ...), the library's own parameters
    (a tree shape, say: :meth:`~ltrrepro.fit.backends.Backend.tree_shape`). ``select``: the
    validation metric of early stopping (default :data:`SELECT_METRIC`, Bruch §5.2; a system
    trained for another metric may be selected on it)."""

    builtin: tuple = ()
    objective: Callable | None = None
    objective_kwargs: tuple = ()
    device: str = "cpu"
    library_params: tuple = ()
    select: str = SELECT_METRIC

    def __post_init__(self):
        if bool(self.builtin) == (self.objective is not None):
            raise ValueError("a ranking system has a built-in objective per library or an objective factory, "
                             "exactly one")
        if self.device not in DEVICES:
            raise ValueError(f"device: one of {', '.join(DEVICES)}, not {self.device!r}")

    def space(self, library: str) -> dict:
        """The search space of ``--tune`` (:mod:`ltrrepro.fit.space`): the library's, shared by
        every system of it, and the objective factory's own ``search_space`` (a plug-in's
        temperature, say) as ``objective.<keyword>``."""
        own = getattr(self.objective, "search_space", None) or {}
        if not isinstance(own, dict) or not all(hasattr(d, "suggest") for d in own.values()):
            raise ValueError(f"{getattr(self.objective, '__name__', self.objective)}.search_space: a dict of "
                             f"keyword -> LogUniform/Uniform/IntRange (ltrrepro.fit.space), got {own!r}")
        return {**BACKENDS[library].search_space, **{OBJECTIVE_PREFIX + k: d for k, d in own.items()}}


def _builtin_in(system: System, options, library: str) -> str | None:
    """The library's own objective that ``system`` is in ``library`` (``options.builtin``:
    library -> objective), None when it trains ltrrepro's objective; a system that exists only
    as some libraries' own objectives raises ValueError in any other."""
    builtin = dict(options.builtin)
    if builtin and library not in builtin:
        raise ValueError(f"system {system.name!r} exists only in {', '.join(builtin)}")
    return builtin.get(library)


def _valid_metric(pred, labels: Labels, metric: str = SELECT_METRIC) -> float:
    """The validation value early stopping reads; non-finite scores (a model that diverged: a leaf's
    Σh + λ near 0 under a Hessian that may be negative) raise FloatingPointError, as a non-finite
    gradient does in the adapters (:func:`ltrrepro.objectives.check_grad_hess`)."""
    if not np.isfinite(pred).all():
        raise FloatingPointError(f"the model diverged: {int((~np.isfinite(pred)).sum())} non-finite validation scores")
    return next(iter(evaluate(pred, labels.y, labels.offsets, [metric]).values())).mean


def _observed(fn, on_valid):
    """``fn`` (the validation metric), telling ``on_valid(round, value)`` each value it computes."""
    if on_valid is None:
        return fn
    rounds = iter(range(1 << 62))

    def metric(preds):
        value = fn(preds)
        on_valid(next(rounds), value)
        return value
    return metric


def hessian_floor(objective, train: RankingDataset, min_data_in_leaf: int) -> float:
    """XGBoost's stand-in for LightGBM's ``min_data_in_leaf`` with a custom objective: a
    ``min_child_weight`` of ``min_data_in_leaf`` times the mean Hessian of the objective at
    the initial (zero) scores, i.e. the Hessian of a leaf of ``min_data_in_leaf`` average
    documents, or 0 where that mean is negative (an objective with ``negative_hessians``). The
    objective's own generator is not touched."""
    _, h = objective.grad_hess(np.zeros(train.n_docs), train.y, train.offsets, iteration=0,
                               rng=np.random.default_rng(0))
    return max(0.0, float(min_data_in_leaf * np.mean(h)))


class RankingTrainer(Trainer):
    """Boosting on one objective with early stopping on validation NDCG@5 (Bruch §5.2);
    options: :class:`RankingOptions`."""

    uses_valid = True
    #: ``on_valid(round, value)``, called with each round's validation value in every library
    #: (Optuna's pruner: :mod:`ltrrepro.tuning`); it may raise to stop training
    on_valid: Callable | None = None

    def __init__(self, system, boosting, library, seed, threads=1, **options):
        super().__init__(system, boosting, library, seed, threads, **options)
        self.builtin = _builtin_in(system, self.options, library)
        self.adapter = self.objective_seed = None
        if self.builtin is None:           # the objective's generator first, then the library seed
            self.adapter = self.backend.adapter(self.make_objective())
            self.objective_seed = seed.spawn(1)[0]
        self.lib_seed = int_seed(seed)
        extra = dict(dict(self.options.library_params).get(library, ()))
        self.params = self.backend.params(self.builtin or self.adapter, self.boosting, threads=self.threads,
                                          seed=self.lib_seed, device=self.options.device, own_metric=True, **extra)
        self.sizes: dict = {}

    def make_objective(self):
        return self.options.objective(**dict(self.options.objective_kwargs))

    def _size(self, part, ds):
        self.sizes.update({f"n_{part}_docs": int(ds.n_docs), f"n_{part}_queries": int(ds.n_queries)})

    def add_train(self, ds: RankingDataset, **side) -> None:
        self._size("train", ds)
        self.backend.check_labels(self.params, ds)
        if self.adapter is not None and not self.boosting.min_sum_hessian:     # a declared floor stands
            self.backend.leaf_floor(self.params, lambda: hessian_floor(self.make_objective(), ds,
                                                                       self.boosting.min_data_in_leaf))
        self.dtrain = self.backend.dataset(ds, self.params, threads=self.threads)

    def add_valid(self, ds: RankingDataset) -> None:
        self._size("valid", ds)
        self.dvalid = self.backend.dataset(ds, self.params, threads=self.threads, reference=self.dtrain)
        self.valid_labels = Labels(ds)

    def _fit(self) -> Fitted:
        b, va = self.boosting, self.valid_labels
        patience = b.early_stopping if b.early_stopping is not None else b.rounds
        run = self.backend.train(self.params, self.dtrain, b.rounds, obj=self.adapter, valid=self.dvalid,
                                 metric=(self.options.select.split("[")[0],
                                         _observed(lambda preds: _valid_metric(preds, va, self.options.select),
                                                   self.on_valid)),
                                 patience=patience, seed=self.objective_seed if self.objective_seed is not None else 0)
        return Fitted(self.backend.predictor(run.booster, self.threads), run.best_iteration, run.n_rounds,
                      valid_curve=run.curve, params=self.backend.record_params(self.params, self.adapter),
                      info=dict(self.sizes), ranges_add=self.backend.ranges_add)


def _ranking(name, label, paper, family, variant, libraries=None, **options):
    return register(System(name, label, RankingTrainer, libraries=libraries or custom_objective_libraries(),
                           options=RankingOptions(**options), paper=paper, family=family, variant=variant))


#: the libraries with a built-in LambdaMART (their ``lambdarank`` objective), where λMART runs as the library's own
_LAMBDARANK = {name: b.objectives["lambdarank"] for name, b in BACKENDS.items() if "lambdarank" in b.objectives}

_ranking("xendcg", "XE_NDCG MART", "Bruch 2021", "xendcg", "custom", objective=XENDCG,
         objective_kwargs=(("order", 2),))
_ranking("listnet", "ListNet", "Cao et al. 2007; Bruch 2021", "listnet", "custom", objective=ListNet,
         objective_kwargs=(("order", 2),))
_ranking("lambdamart", "λMART", "Burges 2010; " + " / ".join(f"{BACKENDS[k].label} {v}" for k, v in _LAMBDARANK.items()),
         "lambdamart", "builtin", libraries=tuple(_LAMBDARANK), builtin=tuple(_LAMBDARANK.items()))
_ranking("lambdamart_custom", "λMART (ltrrepro lambdas)", "Burges 2010", "lambdamart", "custom", objective=LambdaMART,
         objective_kwargs=(("sigma", 1.0), ("norm", False)))
_ranking("ranknet", "RankNet", "Burges et al. 2005", "ranknet", "custom", objective=RankNet)

# each library's own ranking losses: library baselines pinned to it (its backend declares them), variant the library
for _lib, _b in BACKENDS.items():
    for _name, (_label, _source, _family, _objective) in _b.baselines.items():
        _ranking(_name, _label, _source, _family, _lib, libraries=(_lib,), builtin=((_lib, _objective),))


# ---------------------------------------------------------------------------------------------- clicks
#: how a click system reads the training rows' displayed positions (:class:`ClickOptions`)
POSITION_MODES = ("", "dataset", "feature", "bound")


@dataclass(frozen=True)
class ClickOptions(RankingOptions):
    """Options of a system trained on click sessions (:class:`ClickTrainer`; Hu et al. 2019's
    protocol, docs/protocols/debiasing.md). ``position``: how the rows' displayed positions
    enter — ``""`` not at all, ``"dataset"`` LightGBM's ``Dataset(position=...)`` (its
    ``lambdarank`` learns a position-bias term beside the ranker), ``"feature"`` one more feature
    column, set to position 1 at inference, ``"bound"`` the objective is bound to them
    (``objective(...).bind(position=..., propensity=...)``: Unbiased LambdaMART, IPS);
    ``library_params``: ((library, ((name, value), ...)), ...), a built-in's own parameters."""

    position: str = ""

    def __post_init__(self):
        super().__post_init__()
        if self.position not in POSITION_MODES:
            raise ValueError(f"position: one of {POSITION_MODES}, not {self.position!r}")


class ClickTrainer(Trainer):
    """Boosting on click sessions for the preset's rounds, with no model selection (clicks give no
    unbiased validation metric without the debiasing under study). ``add_train(ds, position=,
    propensity=)``: the session lists (rows in displayed order) and each row's 0-based position
    and examination propensity. The fitted model's ``info`` holds the position biases a method
    learned, where the library shows them (ltrrepro's Unbiased LambdaMART, XGBoost's
    ``lambdarank_unbiased``; LightGBM keeps its position-bias term inside the objective)."""

    uses_valid = False

    def __init__(self, system, boosting, library, seed, threads=1, **options):
        super().__init__(system, boosting, library, seed, threads, **options)
        self.builtin = _builtin_in(system, self.options, library)
        if self.options.position == "dataset" and not self.backend.position_field:
            raise ValueError(f"system {system.name!r}: {self.backend.label} has no position field")
        self.adapter_seed = seed.spawn(1)[0] if self.builtin is None else None
        self.lib_seed = int_seed(seed)
        self.adapter = self.bound = None
        self.sizes = {}

    make_objective = RankingTrainer.make_objective
    _size = RankingTrainer._size

    def add_train(self, ds: RankingDataset, position=None, propensity=None, **side) -> None:
        opts = self.options
        self._size("train", ds)
        if opts.position and position is None:
            raise ValueError(f"system {self.system.name!r} trains on click sessions: pass the rows' positions")
        if opts.position == "feature":
            ds = RankingDataset(X=np.hstack([ds.X, np.asarray(position, np.float32)[:, None]]), y=ds.y, qid=ds.qid,
                                offsets=ds.offsets, name=ds.name, meta=dict(ds.meta))
        if self.builtin is None:
            self.bound = self._objective(position, propensity)
            self.adapter = self.backend.adapter(self.bound)
        extra = dict(dict(opts.library_params).get(self.library, ()))
        self.params = self.backend.params(self.builtin or self.adapter, self.boosting, threads=self.threads,
                                          seed=self.lib_seed, device=opts.device, own_metric=True, **extra)
        self.backend.check_labels(self.params, ds)
        if self.adapter is not None and not self.boosting.min_sum_hessian:     # a declared floor stands
            self.backend.leaf_floor(self.params, lambda: hessian_floor(self._objective(position, propensity), ds,
                                                                       self.boosting.min_data_in_leaf))
        more = {"position": np.asarray(position, np.int32)} if opts.position == "dataset" else {}
        self.dtrain = self.backend.dataset(ds, self.params, threads=self.threads, **more)

    def _objective(self, position, propensity):
        """A fresh objective, bound to the rows' positions and propensities where it learns from them."""
        obj = self.make_objective()
        return obj.bind(position=position, propensity=propensity) if self.options.position == "bound" else obj

    def add_valid(self, ds: RankingDataset) -> None:
        """Nothing: no model selection on clicks (see the class docstring)."""

    def _fit(self) -> Fitted:
        run = self.backend.train(self.params, self.dtrain, self.boosting.rounds, obj=self.adapter,
                                 seed=self.adapter_seed if self.adapter_seed is not None else 0)
        raw = self.backend.predictor(run.booster, self.threads)
        if self.options.position == "feature":
            raw = _at_first_position(raw)
        info = dict(self.sizes)
        biases = self.learned_biases(run.booster)
        if biases:
            info["biases"] = biases
        return Fitted(raw, run.best_iteration, run.n_rounds, params=self.backend.record_params(self.params, self.adapter),
                      info=info, ranges_add=self.backend.ranges_add)

    def learned_biases(self, booster) -> dict:
        """t⁺, t⁻ and the propensity estimate t⁺^{1+p} of the last round, where a method learns
        them and the library shows them; {} otherwise."""
        if self.bound is not None and hasattr(self.bound, "biases"):
            return self.bound.biases()
        return self.backend.position_biases(booster, self.params)


def on_clicks(system: System) -> System:
    """A custom-objective ranking system (a plug-in) trained on click sessions by a
    :class:`ClickTrainer`: its objective bound to the rows' positions and propensities when it
    has a ``bind`` method (as :class:`~ltrrepro.objectives.UnbiasedLambdaMART`), else as it is."""
    o = system.options
    binds = callable(getattr(o.objective(**dict(o.objective_kwargs)), "bind", None))
    return System(system.name, system.label, ClickTrainer, libraries=system.libraries, paper=system.paper,
                  options=ClickOptions(objective=o.objective, objective_kwargs=o.objective_kwargs,
                                       position="bound" if binds else ""), family=system.family, variant="clicks")


def _at_first_position(raw):
    """``raw`` of a model with the position as its last feature, at position 1 (0-based 0)."""
    def at_top(X, start, stop):
        X = np.asarray(X, dtype=np.float32)
        return raw(np.hstack([X, np.zeros((X.shape[0], 1), np.float32)]), start, stop)
    return at_top


def _click(name, label, paper, family, variant, libraries=None, **options):
    return register(System(name, label, ClickTrainer, libraries=libraries or custom_objective_libraries(),
                           options=ClickOptions(**options),
                           paper=paper, family=family, variant=variant))


_LAMBDA = tuple((k, v) for k, v in _LAMBDARANK.items() if BACKENDS[k].custom_objectives)
_click("click_lambdamart", "λMART", "Burges 2010", "lambdamart", "builtin", libraries=tuple(dict(_LAMBDA)),
       builtin=_LAMBDA)
_click("position_feature_lambdamart", "λMART, position as a feature", "Hu et al. 2019 (baseline)", "lambdamart",
       "position-feature", libraries=tuple(dict(_LAMBDA)), builtin=_LAMBDA, position="feature")
_click("unbiased_lambdamart", "Unbiased LambdaMART (ltrrepro)", "Hu et al. 2019", "unbiased_lambdamart", "custom",
       objective=UnbiasedLambdaMART, objective_kwargs=(("p", 0.0),), position="bound")
_click("ips_lambdamart", "IPS λMART", "Wang et al. 2016; Joachims et al. 2017", "ips_lambdamart", "custom",
       objective=IPSLambdaMART, position="bound")
_click("ips_xendcg", "IPS XE_NDCG MART", "Bruch 2021 with IPS gains", "ips_xendcg", "custom", objective=IPSXENDCG,
       objective_kwargs=(("order", 2),), position="bound")
# each library's own debiasing (its backend declares it): pinned to the library, variant the library
for _lib, _b in BACKENDS.items():
    for _name, (_label, _source, _family, _objective, _params, _position) in _b.debiasing.items():
        _click(_name, _label, _source, _family, _lib, libraries=(_lib,), builtin=((_lib, _objective),),
               position=_position, library_params=((_lib, _params),))
