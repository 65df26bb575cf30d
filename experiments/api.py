"""The Python API's keyword convenience: a study's configuration fields as keywords.

``experiments.configure("robustness", queries=200, levels=[0, 50])`` is
``dataclasses.replace`` of the study's complete default configuration
(:attr:`~experiments.registry.Experiment.default`, called) with those fields — on another dataset
first with the fields whose default differs there (``data_defaults``: the paper's trials on
real data) — so no command line is built or parsed: the keywords are the configuration's
fields (lists become tuples; a model given as a plug-in spec ``package.module:Name(k=v)``, or
``SPEC-<principle>`` for Xia, is named by its key and listed in ``plugins``), checked by the
configuration itself. ``experiments.run(name, **keywords)`` splits the keywords into those
fields and an :class:`~experiments.execution.Execution`.
"""
from __future__ import annotations

import dataclasses
import typing

from experiments import registry
from experiments.config import _tuple, _typed as _typed_value
from experiments.errors import UsageError
from experiments.execution import Execution

__all__ = ["run_keywords", "configure"]

_EXECUTION = frozenset(f.name for f in dataclasses.fields(Execution))


def _plugins(models, given: tuple) -> dict:
    """``models`` with plug-in specs named by their keys, and ``plugins`` with the specs added:
    a spec ``package.module:Name(k=v)``, or an arm ``SPEC-<suffix>`` (Xia's principles), as
    ``--models`` reads them (:func:`experiments.values.parse_models`)."""
    from ltrrepro.fit.plugins import PluginError, is_plugin_spec, plugin_key
    from ltrrepro.fit.xia import arm, arm_of

    def key(spec):
        try:
            return plugin_key(spec)
        except PluginError:
            return None

    names, plugins = [], dict(given)
    for m in models:
        spec, principle = m, None
        parts = arm_of(m) if is_plugin_spec(m) and key(m) is None else None
        if parts is not None and key(parts[0]) is not None:
            spec, principle = parts
        if not is_plugin_spec(spec):
            names.append(m)
            continue
        plugins[plugin_key(spec)] = spec               # a malformed spec: its one-line PluginError
        names.append(plugin_key(spec) if principle is None else arm(plugin_key(spec), principle))
    return {"models": tuple(names), "plugins": tuple(plugins.items())}


def _typed(name: str, value, hint, caller: str):
    """``value`` of the declared type of field ``name`` (lists as tuples), else one
    :class:`UsageError` naming the field (a comma-separated string for a tuple of names says so)."""
    if isinstance(value, str) and hint is tuple:
        raise UsageError(f"{caller}: field {name!r} is a tuple (e.g. {name}=({value.split(',')[0]!r}, ...)), "
                         f"not the string {value!r}")
    return _typed_value(name, _tuple(value), hint, caller)


def configure(name: str, fields: dict):
    """The configuration of study ``name``: its default with ``fields`` replaced (see the
    module docstring); an unknown field, or an execution option, is one :class:`UsageError`."""
    exp = registry.get(name)
    caller = f"experiments.configure({name!r})"
    if "config" in fields:
        raise UsageError(f"{caller}: to re-run a stored configuration, read it with "
                         f"experiments.registry.get({name!r}).config_cls.from_manifest(PATH, {name!r})")
    given = sorted(set(fields) & (_EXECUTION | {"debug"}))
    if given:
        raise UsageError(f"{caller}: {', '.join(given)} belong(s) to the execution (Execution(...) or "
                         f"experiments.run(name, ...)), not the configuration")
    default = exp.default() if exp.default is not None else None
    if default is None:
        raise UsageError(f"{caller}: the study declares no default configuration; build its "
                         f"{exp.config_cls.__name__}(...) yourself")
    known = {f.name for f in dataclasses.fields(default)} - {"experiment"}
    hints = typing.get_type_hints(type(default))
    unknown = sorted(set(fields) - known)
    if unknown:
        raise UsageError(f"{caller}: unknown field(s) {', '.join(unknown)}; a {type(default).__name__} has "
                         f"{', '.join(sorted(known))}")
    values = {k: _typed(k, v, hints.get(k), caller) for k, v in fields.items()}
    if "models" in values and "plugins" in known:
        values.update(_plugins(values["models"], values.get("plugins", ())))
    base = exp.defaults_on(values.get("dataset", default.dataset))
    return dataclasses.replace(default, **{**base, **values})


def run_keywords(name: str, keywords: dict):
    """``(config, execution)`` of study ``name`` from keywords: the execution's options (quiet
    unless ``quiet=False``) and the configuration's fields."""
    keywords = {"quiet": True, **keywords}
    execution = {k: v for k, v in keywords.items() if k in _EXECUTION}
    if "out" in execution and execution["out"] is not None:
        execution["out"] = str(execution["out"])
    config = configure(name, {k: v for k, v in keywords.items() if k not in _EXECUTION})
    return config, Execution(**execution)
