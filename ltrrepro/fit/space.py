"""Search spaces as data: the distributions a hyperparameter is tuned over (:class:`LogUniform`,
:class:`Uniform`, :class:`IntRange`) and the boosted trees' space (:data:`TREE_SPACE`).

A space maps a parameter's name to its distribution; each GBDT library's backend declares the
one its systems search (:attr:`ltrrepro.fit.backends.Backend.search_space`: :data:`TREE_SPACE` in
all three, so the cross-library row compares equal searches). Names are :class:`~ltrrepro.fit.boosting.Boosting`
fields (``learning_rate``, ``num_leaves``, ...), or ``objective.<keyword>`` for a keyword argument
of a system's objective factory — a plug-in declares its own as a class attribute::

    class SoftmaxXE(Objective):
        search_space = {"temperature": LogUniform(0.1, 10.0)}

and :meth:`ltrrepro.fit.ranking.RankingOptions.space` puts them beside its library's. Systems
that share a library share its space, so a tuned comparison gives every arm the same search.
The driver is :mod:`ltrrepro.tuning` (Optuna); this module imports nothing of it.

The ranges (a choice; no paper fixes them): learning rate log-uniform on [0.01, 0.3]; leaves
log-uniform on the integers [7, 255] (the paper's 400 leaves are for 19k training queries);
minimum documents per leaf log-uniform on [10, 200] (LightGBM's "left_count > 0" abort was
seen at 5 and below, :mod:`ltrrepro.fit.backends.lightgbm`); feature and bagging fractions
uniform on [0.5, 1]; L2 on leaf values log-uniform on [1e-3, 10]. CatBoost grows leaf-wise
(``Lossguide``) to ``num_leaves`` here, so its depth does not apply and it tunes the same leaves
(:mod:`ltrrepro.fit.backends.catboost`); ``rsm`` is its feature fraction. ltrrepro's own tree
learner (Xia's arms) searches :data:`GBDT_SPACE`: the same ranges less the two fractions, which
it does not sample. Zheng's GBT and QBRank search their library's :data:`TREE_SPACE`.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

__all__ = ["LogUniform", "Uniform", "IntRange", "TREE_SPACE", "GBDT_SPACE", "OBJECTIVE_PREFIX", "describe"]

#: the prefix of an objective's own parameter in a space (``objective.temperature``)
OBJECTIVE_PREFIX = "objective."


@dataclass(frozen=True)
class LogUniform:
    """A real parameter, log-uniform on ``[low, high]`` (``0 < low < high``)."""

    low: float
    high: float

    def __post_init__(self):
        if not 0 < self.low < self.high or not math.isfinite(self.high):
            raise ValueError(f"LogUniform needs 0 < low < high (finite), got {self.low}, {self.high}")

    def suggest(self, trial, name: str) -> float:
        return trial.suggest_float(name, self.low, self.high, log=True)

    def text(self) -> str:
        return f"log-uniform [{self.low:g}, {self.high:g}]"


@dataclass(frozen=True)
class Uniform:
    """A real parameter, uniform on ``[low, high]``."""

    low: float
    high: float

    def __post_init__(self):
        if not self.low < self.high or not (math.isfinite(self.low) and math.isfinite(self.high)):
            raise ValueError(f"Uniform needs low < high (finite), got {self.low}, {self.high}")

    def suggest(self, trial, name: str) -> float:
        return trial.suggest_float(name, self.low, self.high)

    def text(self) -> str:
        return f"uniform [{self.low:g}, {self.high:g}]"


@dataclass(frozen=True)
class IntRange:
    """An integer parameter on ``[low, high]``, log-uniform with ``log``."""

    low: int
    high: int
    log: bool = False

    def __post_init__(self):
        if not int(self.low) < int(self.high) or (self.log and self.low < 1):
            raise ValueError(f"IntRange needs low < high (low >= 1 with log), got {self.low}, {self.high}")

    def suggest(self, trial, name: str) -> int:
        return trial.suggest_int(name, int(self.low), int(self.high), log=self.log)

    def text(self) -> str:
        return f"{'log-uniform ' if self.log else ''}integers [{self.low}, {self.high}]"


#: the boosted trees' space, in :class:`~ltrrepro.fit.boosting.Boosting`'s names (each library
#: maps them: :mod:`ltrrepro.fit.backends`)
TREE_SPACE = {
    "learning_rate": LogUniform(0.01, 0.3),
    "num_leaves": IntRange(7, 255, log=True),
    "min_data_in_leaf": IntRange(10, 200, log=True),
    "feature_fraction": Uniform(0.5, 1.0),
    "bagging_fraction": Uniform(0.5, 1.0),
    "lambda_l2": LogUniform(1e-3, 10.0),
}


#: the space of ltrrepro's own tree learner (:mod:`ltrrepro.gbdt`, Xia et al.'s arms): :data:`TREE_SPACE`
#: without the feature and bagging fractions, which that learner does not sample (same ranges)
GBDT_SPACE = {k: v for k, v in TREE_SPACE.items() if k not in ("feature_fraction", "bagging_fraction")}


def describe(space: dict) -> dict:
    """``{name: "log-uniform [0.01, 0.3]", ...}``: a space as a report and a manifest print it."""
    return {name: dist.text() for name, dist in space.items()}
