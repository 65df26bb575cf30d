"""One fit layer for every paper's systems (see :mod:`ltrrepro.fit.base`), open to plug-in
objectives (:mod:`.plugins`).

``SYSTEMS[name]`` is the system a unit's ``model`` field names, in every experiment:
Bruch's ranking models and library baselines (:mod:`.ranking`), Zheng et al.'s GBT, QBRank
and RankSVM (:mod:`.zheng`), Xia et al.'s McRank and LambdaMART under each split principle
(:mod:`.xia`). The LightGBM leaf-rewriting callbacks live in :mod:`.callbacks`.
"""
from .base import SYSTEMS, Boosting, Fitted, Labels, System, Trainer, int_seed, register
from . import ranking, xia, zheng  # noqa: F401  (register the systems)
from .callbacks import LeafRescaleCallback, NewtonLeafCallback, UnitHessian
from .plugins import PluginError, load_plugin, plugin_key
from .ranking import hessian_floor


def system_for(name: str, plugins=()) -> System:
    """The system a unit's ``model`` names: a registered one, or a plug-in of ``plugins``
    ((unit name, spec) pairs; imported and checked once per process)."""
    if name in SYSTEMS:
        return SYSTEMS[name]
    specs = dict(plugins)
    if name in specs:
        return load_plugin(specs[name])
    raise KeyError(f"no system named {name!r}: registered ones are {', '.join(SYSTEMS)}; plug-ins are "
                   f"package.module:Name")

__all__ = ["SYSTEMS", "Boosting", "Fitted", "Labels", "System", "Trainer", "int_seed", "register", "hessian_floor",
           "system_for", "PluginError", "load_plugin", "plugin_key",
           "LeafRescaleCallback", "NewtonLeafCallback", "UnitHessian"]
