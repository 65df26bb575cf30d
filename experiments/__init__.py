"""The studies of three papers, run from typed configurations.

One package per paper (:mod:`.bruch2021`, :mod:`.zheng2007`, :mod:`.xia`), each with
``paper.py`` (the paper's numbers), ``protocol.py`` (configuration and unit), its report, and
``studies.py`` (its :class:`~experiments.registry.Experiment` records). Below them: the
user errors (:mod:`.errors`), configurations (:mod:`.config`), the execution
(:mod:`.execution`), the registry (:mod:`.registry`) and running (:mod:`.study`); on top, the
command line (:mod:`.cli`; ``python -m experiments.<name>``) and this Python API::

    >>> import experiments
    >>> from experiments.execution import Execution
    >>> cfg = experiments.configure("robustness", queries=200, trials=3, levels=[0, 50])   # doctest: +SKIP
    >>> res = experiments.run(cfg, Execution(out="runs/mine", quiet=True))                # doctest: +SKIP
    >>> res = experiments.run("robustness", out="runs/mine", queries=200, trials=3)      # doctest: +SKIP
    >>> res.tables["robustness"], res.claims, res.figures                                 # doctest: +SKIP
"""
from __future__ import annotations

__all__ = ["run", "configure", "load"]


def run(config, execution=None, **keywords):
    """Run (or resume) a study and return what it wrote (:class:`experiments.results.StudyResult`).

    ``config``: a configuration object (:class:`experiments.config.RunConfig`, e.g. from
    :func:`configure` or ``BruchConfig(...)``) with ``execution`` an
    :class:`~experiments.execution.Execution` (default: one); or, as a convenience, a study's
    name with keywords — the execution's options (``out``, ``jobs``, ...) and the
    configuration's fields (:func:`configure`). A user error raises (:class:`experiments.errors.UsageError`
    and the other ``USER_ERRORS``); nothing exits."""
    from experiments.api import run_keywords
    from experiments.config import RunConfig
    from experiments.execution import Execution
    from experiments.study import run as run_config

    if isinstance(config, str):
        if execution is not None:
            raise TypeError("experiments.run(name, ...): give the execution as keywords (out=, jobs=, ...)")
        config, execution = run_keywords(config, keywords)
    elif keywords:
        raise TypeError(f"experiments.run(config, execution): unexpected keywords {sorted(keywords)}; "
                        f"execution options go into Execution(...)")
    elif not isinstance(config, RunConfig):
        raise TypeError(f"experiments.run: the first argument is a configuration (experiments.configure(name, "
                        f"...)) or a study's name, not a {type(config).__name__}")
    if execution is not None and not isinstance(execution, Execution):
        raise TypeError(f"experiments.run: the execution is an experiments.execution.Execution(out=..., ...), not "
                        f"a {type(execution).__name__}")
    return run_config(config, execution or Execution())


def configure(name: str, **fields):
    """The configuration of study ``name``: ``dataclasses.replace`` of its complete default
    with ``fields`` (``configure("quality", trials=3)``; :mod:`experiments.api`)."""
    from experiments.api import configure as _configure

    return _configure(name, fields)


def load(out):
    """The results of a run directory, without running anything (:func:`experiments.results.load`)."""
    from experiments.results import load as _load

    return _load(out)
