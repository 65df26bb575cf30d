"""Boosting hyperparameters (:class:`Boosting`) and the named sets of them (:data:`PRESETS`).

``PRESETS`` holds the paper's hyperparameters per dataset and the scaled-down ones. How each
library is configured around them (zero ``min_sum_hessian_in_leaf``, deterministic threads,
XGBoost's leaf-wise growth and its stand-in for ``min_data_in_leaf``, the LightGBM bug with
small leaves) is documented beside that code, in :mod:`ltrrepro.fit.backends`.

CatBoost reads every preset too (:mod:`ltrrepro.fit.backends.catboost`): ``num_leaves`` becomes
``max_leaves`` with ``grow_policy="Lossguide"`` — leaf-wise growth to the same number of leaves
as LightGBM and XGBoost (set to ``lossguide``) fit, rather than a ``depth`` of CatBoost's
default symmetric trees, whose 2^depth leaves cannot be 31, 200 or 400, so that the three
libraries compare losses on one kind of tree; ``min_data_in_leaf`` stays, ``max_bin`` becomes
``border_count = max_bin − 1``, and L2, bagging and split-score noise are off as in the others.

This module sits at the bottom of the fit layer: it imports nothing of ltrrepro, so
:mod:`ltrrepro.fit.base`, the backends and the experiments' configurations all read it
without importing upward.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, replace

__all__ = ["Boosting", "PRESETS", "OFF", "preset"]


#: the fields a preset leaves off, at their off values (:meth:`Boosting.regularization`)
OFF = {"feature_fraction": 1.0, "bagging_fraction": 1.0, "lambda_l2": 0.0, "max_depth": 0, "min_sum_hessian": 0.0,
       "min_split_gain": 0.0, "lambda_l1": 0.0}


@dataclass(frozen=True)
class Boosting:
    """Boosting hyperparameters in LightGBM's vocabulary (mapped to each library's by its
    backend, :mod:`ltrrepro.fit.backends`). ``rounds`` is the boosting length (at most, with
    ``early_stopping`` rounds of patience on the validation metric; exactly, when
    ``early_stopping`` is None)."""

    learning_rate: float = 0.1
    num_leaves: int = 31
    min_data_in_leaf: int = 20
    max_bin: int = 255
    rounds: int = 100
    early_stopping: int | None = None
    sigmoid: float = 1.0
    lambdarank_norm: bool = False
    #: column and row subsampling per tree and L2 on leaf values: off (1, 1, 0) in every preset
    #: (Bruch §5.2: no regularization, no bagging); tuned by :mod:`ltrrepro.tuning`
    feature_fraction: float = 1.0
    bagging_fraction: float = 1.0
    lambda_l2: float = 0.0
    #: the tree's depth limit (0: none, the leaves bound it; CatBoost keeps its own default depth),
    #: the least Σ Hessian of a leaf (declared, it replaces the XGBoost floor a custom objective gets
    #: from ``min_data_in_leaf``, :mod:`ltrrepro.fit.ranking`), the
    #: least gain of a split and L1 on leaf values: off (0, 0, 0, 0) in every preset; XGBoost's
    #: ``max_depth``, ``min_child_weight``, ``gamma`` and ``alpha`` (Kang et al. 2024's search
    #: space, :mod:`ltrrepro.fit.hessian`), LightGBM's ``max_depth``, ``min_sum_hessian_in_leaf``,
    #: ``min_gain_to_split`` and ``lambda_l1``
    max_depth: int = 0
    min_sum_hessian: float = 0.0
    min_split_gain: float = 0.0
    lambda_l1: float = 0.0

    def __post_init__(self):
        if not 0 < self.learning_rate <= 1:
            raise ValueError(f"learning_rate must be in (0, 1], got {self.learning_rate}")
        if self.num_leaves < 2 or self.min_data_in_leaf < 1 or self.max_bin < 2 or self.rounds < 1:
            raise ValueError(f"num_leaves >= 2, min_data_in_leaf >= 1, max_bin >= 2, rounds >= 1: {self}")
        if not (0 < self.feature_fraction <= 1 and 0 < self.bagging_fraction <= 1 and self.lambda_l2 >= 0):
            raise ValueError(f"feature_fraction and bagging_fraction in (0, 1], lambda_l2 >= 0: {self}")
        if not (self.max_depth >= 0 and self.min_sum_hessian >= 0 and self.min_split_gain >= 0 and self.lambda_l1 >= 0):
            raise ValueError(f"max_depth (0: no limit), min_sum_hessian, min_split_gain and lambda_l1 >= 0: {self}")
        if self.early_stopping is not None and self.early_stopping < 1:
            raise ValueError("early_stopping is a number of rounds >= 1, or None (no early stopping)")

    def replace(self, **changes) -> "Boosting":
        return replace(self, **changes)

    def regularization(self) -> dict:
        """The subsampling, regularization and depth fields that differ from off
        (:data:`OFF`): what a backend adds to the preset's parameters, in its own names (none
        for every preset, so their parameters are unchanged).

        >>> Boosting().regularization(), Boosting(max_depth=8, lambda_l1=0.5).regularization()
        ({}, {'max_depth': 8, 'lambda_l1': 0.5})
        """
        return {k: getattr(self, k) for k, v in OFF.items() if getattr(self, k) != v}

    def as_dict(self) -> dict:
        return asdict(self)


#: Named hyperparameter sets (:class:`Boosting` fields). ``bruch-*`` are the paper's (Bruch
#: 2021 §5.1; docs/protocols/bruch2021.md §3: ``min_sum_hessian_in_leaf`` 0 and no L1/L2
#: regularization, as :func:`ltrrepro.fit.backends.lightgbm.lightgbm_params` sets them);
#: ``fast`` and ``tiny`` are scaled down for the synthetic default runs and the tests (a
#: documented deviation).
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


def preset(name: str, **overrides) -> Boosting:
    """The :class:`Boosting` of a named preset, with ``overrides`` (None ignored)."""
    if name not in PRESETS:
        raise ValueError(f"unknown preset {name!r}; known: {', '.join(PRESETS)}")
    return Boosting(**{**PRESETS[name], **{k: v for k, v in overrides.items() if v is not None}})
