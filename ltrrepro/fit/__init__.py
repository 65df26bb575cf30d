"""One fit layer for every paper's systems (see :mod:`ltrrepro.fit.base`).

``SYSTEMS[name]`` is the system a unit's ``model`` field names, in every experiment:
Bruch's ranking models and library baselines (:mod:`.ranking`), Zheng et al.'s GBT, QBRank
and RankSVM (:mod:`.zheng`), Xia et al.'s McRank and LambdaMART under each split principle
(:mod:`.xia`). The LightGBM leaf-rewriting callbacks live in :mod:`.callbacks`.
"""
from .base import SYSTEMS, Boosting, Fitted, Labels, System, Trainer, int_seed, register
from . import ranking, xia, zheng  # noqa: F401  (register the systems)
from .callbacks import LeafRescaleCallback, NewtonLeafCallback, UnitHessian
from .ranking import hessian_floor

__all__ = ["SYSTEMS", "Boosting", "Fitted", "Labels", "System", "Trainer", "int_seed", "register", "hessian_floor",
           "LeafRescaleCallback", "NewtonLeafCallback", "UnitHessian"]
