"""Plug-in objectives: a loss defined outside ltrrepro, named ``package.module:Name(k=v, ...)``.

``Name`` is an :class:`~ltrrepro.objectives.base.Objective` subclass, or a function returning
one that says so — decorated with :func:`~ltrrepro.objectives.objective_factory` or annotated
``-> Objective`` (or a subclass). That is checked before anything is called
(:func:`resolve_factory`): a spec, typed or read from a run's manifest, can name no other
callable (``os:system`` is refused). The keyword arguments (Python literals) are passed to it. A plug-in becomes a ranking
system like XE_NDCG MART: it runs through both library adapters with early stopping on
validation NDCG@5, draws from its own seeded generator (the unit's model stream), and appears
in every table next to the built-ins. Its unit name (the ``model`` field, file names, seeds)
is :func:`plugin_key` of the spec, e.g. ``mylosses.Focal@gamma=2``.

Identity: a plug-in's ``family`` is its unit name (the loss it computes), its ``variant``
``custom`` as a Bruch model (through the library adapters, like XE_NDCG MART) or the split
principle as a Xia arm: :func:`plugin_system` with ``principle`` (``se``, ``rwse``; ``ole``
only when the objective exposes the pair structure of its Hessian, ``grad_hess_pairs``, else
one :class:`PluginError`) grows it in ltrrepro's tree learner like Xia's LambdaMART arms;
:func:`ltrrepro.fit.system_for` resolves ``<key>-<principle>`` to that system. As a Zheng arm
the Bruch system serves as it is (it trains on whatever judgments the unit adds).

Before a run, :func:`load_plugin` imports it and checks it on two tiny lists — it must return
finite gradients and non-negative Hessians of the right length — so a broken plug-in is one
clear error naming it, before any data is loaded. A plug-in that fails later (NaN gradients
on real data) fails its own units with the adapter's message, and the other models finish.
"""
from __future__ import annotations

import ast
import functools
import importlib
import importlib.metadata
import re
import sys

import numpy as np

from dataclasses import dataclass
from typing import Callable

from ..objectives.base import Objective, check_grad_hess
from .base import System
from .ranking import RankingOptions, RankingTrainer
from .xia import PRINCIPLES, arm, needs_pairs, principle_system

__all__ = ["PluginError", "is_plugin_spec", "parse_spec", "plugin_key", "plugin_label", "load_plugin", "plugin_system",
           "resolve_factory", "split_models"]

_SPEC = re.compile(r"^(?P<module>[A-Za-z_][\w.]*):(?P<name>[A-Za-z_]\w*)\s*(\((?P<args>.*)\))?$", re.S)


class PluginError(ValueError):
    """A plug-in objective that cannot be used (the message names it and says why)."""


def is_plugin_spec(text: str) -> bool:
    return ":" in text


def split_models(text: str) -> list[str]:
    """``"lambdamart,mylosses:Focal(gamma=2, alpha=0.5)"`` -> the two names (commas inside
    parentheses do not split)."""
    out, depth, cur = [], 0, ""
    for ch in str(text):
        depth += ch == "("
        depth -= ch == ")"
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    out.append(cur.strip())
    return [x for x in out if x]


def parse_spec(spec: str) -> tuple[str, str, dict]:
    """``"pkg.mod:Name(gamma=2)"`` -> ``("pkg.mod", "Name", {"gamma": 2})`` (keyword literals only:
    one call, no ``*args``/``**kwargs``, no keyword twice)."""
    if not isinstance(spec, str):
        raise PluginError(f"plug-in {spec!r}: a spec is a string, package.module:Name(k=v, ...)")
    m = _SPEC.match(spec.strip())
    if not m:
        raise PluginError(f"plug-in {spec!r}: write it as package.module:Name or package.module:Name(k=v, ...)")
    kwargs: dict = {}
    if m.group("args") and m.group("args").strip():
        try:
            call = ast.parse(f"f({m.group('args')})", mode="eval").body
            if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == "f"):
                raise PluginError(f"plug-in {spec!r}: one argument list only, package.module:Name(k=v, ...)")
            if call.args:
                raise PluginError(f"plug-in {spec!r}: give its arguments by keyword (k=v)")
            if any(kw.arg is None for kw in call.keywords):
                raise PluginError(f"plug-in {spec!r}: no **mapping; give each argument as k=v")
            names = [kw.arg for kw in call.keywords]
            if len(set(names)) != len(names):
                raise PluginError(f"plug-in {spec!r}: an argument is given twice")
            kwargs = {kw.arg: ast.literal_eval(kw.value) for kw in call.keywords}
        except (SyntaxError, ValueError) as err:
            if isinstance(err, PluginError):
                raise
            raise PluginError(f"plug-in {spec!r}: its arguments must be Python literals by keyword ({err})") from None
    return m.group("module"), m.group("name"), kwargs


def _token(v) -> str:
    text = repr(v) if not isinstance(v, str) else v
    text = text.replace(" ", "").replace("'", "").replace('"', "")
    if not re.fullmatch(r"[\w.+\-@,=]*", text):
        raise PluginError(f"plug-in argument {v!r}: use numbers, booleans or plain words (it names files)")
    return text


def plugin_label(spec: str) -> str:
    """A plug-in's name in tables, ``Name(k=v)``, from its spec (nothing is imported).

    >>> plugin_label("mylosses:Focal(gamma=2)")
    'Focal(gamma=2)'
    """
    _, name, kwargs = parse_spec(spec)
    return name + (f"({', '.join(f'{k}={v!r}' for k, v in kwargs.items())})" if kwargs else "")


def plugin_key(spec: str) -> str:
    """The plug-in's unit name: ``pkg.mod.Name`` plus ``@k=v,...`` (sorted) when it has arguments."""
    module, name, kwargs = parse_spec(spec)
    args = ",".join(f"{k}={_token(v)}" for k, v in sorted(kwargs.items()))
    return f"{module}.{name}" + (f"@{args}" if args else "")


def _version(module) -> str | None:
    top = module.__name__.split(".")[0]
    try:
        return importlib.metadata.version(top)
    except importlib.metadata.PackageNotFoundError:
        return getattr(module, "__version__", None)


@functools.lru_cache(maxsize=None)
def load_plugin(spec: str) -> System:
    """Import, check and wrap the plug-in ``spec`` as a :class:`System` (cached per process)."""
    module_name, name, kwargs = parse_spec(spec)
    try:
        module = importlib.import_module(module_name)
    except Exception as err:  # noqa: BLE001 - whatever the import raised, named for the user
        raise PluginError(f"plug-in {spec!r}: cannot import {module_name!r} ({type(err).__name__}: {err}); is it "
                          f"on PYTHONPATH, or installed?") from None
    factory = resolve_factory(spec, module, name)
    try:
        objective = factory(**kwargs)
    except Exception as err:  # noqa: BLE001
        raise PluginError(f"plug-in {spec!r}: {name}(**{kwargs}) raised {type(err).__name__}: {err}") from None
    if not isinstance(objective, Objective):
        raise PluginError(f"plug-in {spec!r}: {name}(...) returned {type(objective).__name__}, not an "
                          f"ltrrepro.objectives.Objective (implement grad_hess(scores, labels, offsets, "
                          f"iteration, rng))")
    _smoke(spec, objective)
    key = plugin_key(spec)
    return System(key, plugin_label(spec),
                  RankingTrainer, options=RankingOptions(objective=factory, objective_kwargs=tuple(kwargs.items())),
                  paper=f"plug-in {spec} ({getattr(module, '__file__', '?')}, version {_version(module)})",
                  family=key, variant="custom")


@dataclass(frozen=True)
class PluginObjective:
    """A plug-in's objective factory as a Xia arm calls it: with the boosting, which a
    plug-in ignores (its keyword arguments are its own)."""

    factory: Callable
    kwargs: tuple = ()

    def __call__(self, boosting):
        return self.factory(**dict(self.kwargs))


def plugin_system(spec: str, principle: str | None = None) -> System:
    """The system of plug-in ``spec``: a ranking system (Bruch's protocol) without
    ``principle``; with one, the plug-in grown under that split principle in ltrrepro's tree
    learner (Xia's protocol), named ``<key>-<principle>``. OLE needs the objective's pair
    structure (``grad_hess_pairs``): a plug-in without it is one :class:`PluginError`."""
    base = load_plugin(spec)
    if principle is None:
        return base
    if principle not in PRINCIPLES:
        raise PluginError(f"plug-in {spec!r}: no split principle {principle!r}; the principles are "
                          f"{', '.join(PRINCIPLES)}")
    objective = PluginObjective(base.options.objective, base.options.objective_kwargs)
    check_arm(spec, objective(None), principle)
    return principle_system(arm(base.name, principle), f"{base.label} ({principle.upper()})", objective, principle,
                            family=base.family, paper=base.paper)


def resolve_factory(spec: str, module, name: str):
    """``module.name`` if it may be called as a plug-in, else :class:`PluginError` — decided
    from what it *is*, before it is called: an :class:`Objective` subclass, or a function
    marked with :func:`~ltrrepro.objectives.objective_factory` or annotated to return an
    :class:`Objective`. Anything else (``os:system``, a builtin, an unmarked function, a class
    that is not an objective) is refused, so a spec cannot run arbitrary code."""
    import inspect
    import typing

    obj = getattr(module, name, None)
    if obj is None:
        raise PluginError(f"plug-in {spec!r}: {module.__name__} has no {name!r}")
    if inspect.isclass(obj):
        if issubclass(obj, Objective):
            return obj
        raise PluginError(f"plug-in {spec!r}: {module.__name__}.{name} is a class but not an "
                          f"ltrrepro.objectives.Objective subclass; nothing was called")
    if inspect.isfunction(obj):
        if getattr(obj, "__ltrrepro_objective_factory__", False):
            return obj
        try:
            returns = typing.get_type_hints(obj).get("return")
        except Exception:  # noqa: BLE001 - an annotation that does not resolve is no promise
            returns = None
        if inspect.isclass(returns) and issubclass(returns, Objective):
            return obj
    raise PluginError(f"plug-in {spec!r}: {module.__name__}.{name} is not an ltrrepro.objectives.Objective "
                      f"subclass, nor a function decorated with @objective_factory or annotated '-> Objective'; "
                      f"nothing was called (a plug-in spec names an objective, never another callable)")


def _smoke(spec: str, objective: Objective) -> None:
    """Two lists (3 and 2 documents): finite gradients, non-negative Hessians, right length;
    and the same numbers from a second call with a generator in the same state — a plug-in
    that draws from anything but its ``rng`` (``np.random``'s global state, ``random``, the
    clock) would give other tables on every run and at every ``--jobs``."""
    scores = np.array([0.3, -0.1, 0.0, 0.5, 0.2])
    labels = np.array([2, 0, 1, 0, 1])
    offsets = np.array([0, 3, 5])
    outs = []
    for _ in range(2):                           # the same call twice, the generator in the same state
        try:
            out = objective.grad_hess(scores.copy(), labels.copy(), offsets.copy(), iteration=0,
                                      rng=np.random.default_rng(20261124))
            grad, hess = (np.array(a, dtype=np.float64) for a in out)
        except Exception as err:  # noqa: BLE001
            raise PluginError(f"plug-in {spec!r}: grad_hess on a two-list example raised {type(err).__name__}: "
                              f"{err}") from None
        if grad.shape != scores.shape or hess.shape != scores.shape:
            raise PluginError(f"plug-in {spec!r}: grad_hess returned shapes {grad.shape} and {hess.shape} for "
                              f"{scores.shape[0]} documents (one gradient and one Hessian per document)")
        try:
            check_grad_hess(grad, hess, f"plug-in {spec!r}", 0,
                            allow_negative=bool(getattr(objective, "negative_hessians", False)))
        except FloatingPointError as err:
            raise PluginError(str(err)) from None
        outs.append((grad, hess))
    (g0, h0), (g1, h1) = outs
    if not (np.array_equal(g0, g1) and np.array_equal(h0, h1)):
        raise PluginError(f"plug-in {spec!r}: two calls with the generator in the same state gave different "
                          f"gradients; draw every random number from the rng argument (not np.random's global "
                          f"state, random or the clock), or the run cannot be repeated")


def check_arm(spec: str, objective: Objective, principle: str, leaf_rule: str = "diagonal") -> None:
    """The plug-in ``objective`` can run under ``principle`` with ``leaf_rule``: where the arm
    needs the pair structure of its Hessian (OLE's gain; exact leaf values,
    :func:`~ltrrepro.fit.xia.needs_pairs`) and the objective is not derivative-additive, it has
    a working ``grad_hess_pairs`` (:func:`_smoke_pairs`) — else one :class:`PluginError` now,
    not a failure of every unit of the arm."""
    if not needs_pairs(principle, leaf_rule) or getattr(objective, "derivative_additive", False):
        return
    what = "the OLE principle" if principle == "ole" else f"--leaf-rule {leaf_rule} (exact leaf values)"
    if not callable(getattr(objective, "grad_hess_pairs", None)):
        raise PluginError(f"plug-in {spec!r}: {what} needs the pair structure of the objective's Hessian "
                          f"(a grad_hess_pairs method, as ltrrepro's pairwise and listwise objectives have) and "
                          f"{type(objective).__name__} has none; run it under se or rwse"
                          + (" with --leaf-rule diagonal or own" if principle != "ole" else ""))
    _smoke_pairs(spec, objective)


def _smoke_pairs(spec: str, objective: Objective) -> None:
    """An OLE arm's pair structure on the two-list example of :func:`_smoke`: ``grad_hess_pairs``
    returns ``(grad, hess, (i, j, rho))`` — one gradient and non-negative Hessian per document,
    pairs of documents of one list, finite non-negative terms ``rho`` — else one
    :class:`PluginError` now, rather than every unit of the arm failing later."""
    scores = np.array([0.3, -0.1, 0.0, 0.5, 0.2])
    labels = np.array([2, 0, 1, 0, 1])
    offsets = np.array([0, 3, 5])
    try:
        g, h, (i, j, rho) = objective.grad_hess_pairs(scores.copy(), labels.copy(), offsets.copy(), iteration=0,
                                                      rng=np.random.default_rng(20261124))
        g, h = np.asarray(g, dtype=np.float64), np.asarray(h, dtype=np.float64)
        i, j, rho = np.asarray(i), np.asarray(j), np.asarray(rho, dtype=np.float64)
    except Exception as err:  # noqa: BLE001 - whatever the plug-in raised or returned
        raise PluginError(f"plug-in {spec!r}: the OLE principle calls grad_hess_pairs, which on a two-list example "
                          f"failed ({type(err).__name__}: {err}); it must return (grad, hess, (i, j, rho)); run the "
                          f"plug-in under se or rwse") from None
    query = np.repeat(np.arange(2), np.diff(offsets))
    ok_pairs = (i.shape == j.shape == rho.shape and i.ndim == 1 and np.issubdtype(i.dtype, np.integer)
                and np.issubdtype(j.dtype, np.integer) and ((i >= 0) & (i < 5) & (j >= 0) & (j < 5)).all()
                and (query[i.clip(0, 4)] == query[j.clip(0, 4)]).all() and np.isfinite(rho).all() and (rho >= 0).all())
    if g.shape != scores.shape or h.shape != scores.shape or not ok_pairs:
        raise PluginError(f"plug-in {spec!r}: grad_hess_pairs on a two-list example returned no valid pair structure "
                          f"(one gradient and Hessian per document; integer pairs (i, j) within one list; finite "
                          f"non-negative terms rho); run the plug-in under se or rwse")
    try:
        check_grad_hess(g, h, f"plug-in {spec!r} (grad_hess_pairs)", 0)
    except FloatingPointError as err:
        raise PluginError(str(err)) from None


def source_files(module, obj) -> list[str]:
    """The source files a plug-in's numbers depend on, as far as they can be known without
    running it: its module's, and those of every class ``obj`` inherits from (a plug-in that
    subclasses another user's loss inherits its ``grad_hess``), ltrrepro's own excepted."""
    import inspect

    files = [getattr(module, "__file__", None)]
    for cls in (inspect.getmro(obj) if inspect.isclass(obj) else ()):
        mod = sys.modules.get(cls.__module__)
        if mod is None or cls.__module__.split(".")[0] in ("ltrrepro", "builtins"):
            continue
        files.append(getattr(mod, "__file__", None))
    return sorted({str(f) for f in files if f})


def _source_digest(module, obj) -> str | None:
    """SHA-256 over :func:`source_files` (an edit of any is a new configuration)."""
    import hashlib
    from pathlib import Path

    h = hashlib.sha256()
    try:
        for f in source_files(module, obj):
            h.update(f.encode() + b"\0" + Path(f).read_bytes())
    except OSError:
        return None
    return h.hexdigest()[:16]


def describe(spec: str) -> dict:
    """What the manifest records of a plug-in: its spec, unit name, file, version and the
    digest of its source file — part of the configuration, so editing the plug-in's source
    recomputes its units (and only a new version did before)."""
    system = load_plugin(spec)
    module_name, name, _ = parse_spec(spec)
    module = importlib.import_module(module_name)
    # the module as imported now (load_plugin's system is cached per process and may name another file)
    return {"spec": spec, "key": system.name,
            "source": f"plug-in {spec} ({getattr(module, '__file__', '?')}, version {_version(module)})",
            "source_files": source_files(module, getattr(module, name)),
            "source_sha256": _source_digest(module, getattr(module, name))}
