"""One record per study: :class:`Experiment`, and the registry every entry point reads.

A study is named once, in its :class:`Experiment` record, declared by its paper package
(``experiments/<paper>/studies.py``). The command line (``python -m experiments.<name>``,
whose module is a two-line stub named after the study), ``python -m experiments.report``,
the Python API (:func:`experiments.run`) and a manifest (its ``experiment`` field) all find
the study here, and everything a run needs of it comes from the record: the configuration
class, the flags it honours, the units, the unit function, the report and the cost model of
``--estimate``.
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Any, Callable

from experiments.errors import UsageError

__all__ = ["Experiment", "register", "get", "experiments", "PAPERS"]

#: the paper packages, each declaring its studies in ``experiments/<paper>/studies.py``
PAPERS = ("bruch2021", "zheng2007", "xia")


def _always(cfg) -> bool:
    return True


@dataclass(frozen=True)
class Experiment:
    """A study of a paper.

    ``name``: the study's one name (the command ``python -m experiments.<name>``, the
    manifest's ``experiment``, unit keys); ``paper``: its paper package; ``title``: one line;
    ``doc``: the command's description; ``config_cls``: its :class:`~experiments.config.RunConfig`;
    ``flags``: the shared flags it honours (:mod:`experiments.cli`, besides the execution flags
    every study takes), ``defaults`` their defaults by dest, ``own_flags(parser)`` adds its
    own; ``from_args(args)`` builds the configuration of a parsed command line;
    ``units(cfg)``: its units; ``unit_fn(unit, ctx) -> (record, arrays)``: one unit's work;
    ``report(store, inference)``: its tables, figures and claims under the report's statistics
    (:class:`ltrrepro.inference.Inference`), written; ``size_of(unit, ctx)``: a unit's
    training size, which ``--estimate`` scales its calibration by; ``reads_data(cfg)``: the
    run prepares the pooled dataset (else the units read their own, e.g. Xia's folds);
    ``before(cfg)``: checks before any work (files the units will read)."""

    name: str
    paper: str
    title: str
    doc: str
    config_cls: type
    from_args: Callable[[Any], Any]
    units: Callable[[Any], list]
    unit_fn: Callable
    report: Callable
    flags: tuple = ()
    defaults: dict = field(default_factory=dict)
    own_flags: Callable | None = None
    size_of: Callable | None = None
    reads_data: Callable[[Any], bool] = _always
    before: Callable[[Any], None] | None = None


_REGISTRY: dict[str, Experiment] = {}


def register(exp: Experiment) -> Experiment:
    """Add a study (from its paper package's ``studies.py``); a name is taken once."""
    if exp.name in _REGISTRY and _REGISTRY[exp.name] is not exp:
        raise ValueError(f"two studies named {exp.name!r}: {_REGISTRY[exp.name].paper} and {exp.paper}")
    _REGISTRY[exp.name] = exp
    return exp


def experiments() -> dict[str, Experiment]:
    """Every study, by name (the paper packages' ``studies`` modules imported once)."""
    for paper in PAPERS:
        importlib.import_module(f"experiments.{paper}.studies")
    return dict(_REGISTRY)


def get(name: str) -> Experiment:
    """The study named ``name``; a :class:`UsageError` naming the known ones otherwise."""
    known = experiments()
    if name not in known:
        raise UsageError(f"unknown experiment {name!r}; known: {', '.join(known)}")
    return known[name]
