"""One fit layer for every paper's systems (see :mod:`ltrrepro.fit.base`), open to plug-in
objectives (:mod:`.plugins`).

``SYSTEMS[name]`` is the system a unit's ``model`` field names, in every experiment:
Bruch's ranking models and library baselines (:mod:`.ranking`), Zheng et al.'s GBT, QBRank
and RankSVM (:mod:`.zheng`), Xia et al.'s McRank and LambdaMART under each split principle
(:mod:`.xia`). The LightGBM leaf-rewriting callbacks live in :mod:`.callbacks`; every library
call goes through a backend of :mod:`.backends` (``BACKENDS[library]``). :class:`Boosting`
and the named :data:`PRESETS` live in :mod:`.boosting`.

:func:`system_for` is the one lookup of a unit's ``model``: a registered system, a plug-in,
or a plug-in under a split principle (``<key>-se``).
"""
from .boosting import PRESETS, Boosting, preset
from .base import SYSTEMS, Fitted, Labels, NoOptions, System, Trainer, int_seed, register
from .backends import BACKENDS, Backend
from . import ranking, xia, zheng  # noqa: F401  (register the systems)
from . import hessian  # noqa: F401,E402  (the Hessian study's systems)
from .callbacks import LeafRescaleCallback, NewtonLeafCallback, UnitHessian
from .plugins import PluginError, load_plugin, plugin_key, plugin_system
from .ranking import RankingOptions, hessian_floor
from .xia import GBDTOptions, LibraryMcRankOptions
from .zheng import GBTOptions, QBRankOptions, RankSVMOptions


def system_for(name: str, plugins=()) -> System:
    """The system a unit's ``model`` names: a registered one; a plug-in of ``plugins``
    ((unit name, spec) pairs; imported and checked once per process), as a ranking system;
    or ``<unit name>-<principle>`` (``se``, ``ole``, ``rwse``): that plug-in under a Xia
    split principle (:func:`~.plugins.plugin_system`; OLE needs its pair structure)."""
    if name in SYSTEMS:
        return SYSTEMS[name]
    specs = dict(plugins)
    if name in specs:
        return plugin_system(specs[name])
    key, principle = xia.arm_of(name) or (None, None)
    if key in specs:
        return plugin_system(specs[key], principle)
    raise KeyError(f"no system named {name!r}: registered ones are {', '.join(SYSTEMS)}; plug-ins are "
                   f"package.module:Name, under a split principle <plug-in>-<{'|'.join(xia.PRINCIPLES)}>")

__all__ = ["SYSTEMS", "Boosting", "PRESETS", "preset", "Fitted", "Labels", "System", "Trainer", "NoOptions",
           "int_seed", "register", "hessian_floor", "system_for", "BACKENDS", "Backend",
           "RankingOptions", "GBTOptions", "QBRankOptions", "RankSVMOptions", "GBDTOptions", "LibraryMcRankOptions",
           "PluginError", "load_plugin", "plugin_key", "plugin_system",
           "LeafRescaleCallback", "NewtonLeafCallback", "UnitHessian"]
