"""``--tune N``: the search stage of a run, declared by a study as data (:class:`Search`).

A study that tunes declares only what its search needs — the split it tunes on (``parts``),
the boosting a search starts from (``base``), its library and fixed options, and the words of
its notes and tuning table (:class:`~experiments.tuning_report.Words`) — in its
:class:`~experiments.registry.Experiment` record (``tuning=Search(...)``). Everything else is
written here once for every study:

* **the units** (:func:`tuned_units`): each unit of the study at tuned settings (its setting
  with :data:`~ltrrepro.tuning.TUNED`), in place of the fixed ones or, with ``keep_fixed``
  (Bruch's Table 1), beside them; the models in ``untuned`` keep their own tuning;
* **the searches** (:func:`search_units`, :func:`search_fn`): each system of the run is tuned
  with the same budget of N configurations (:func:`ltrrepro.tuning.tune`: Optuna TPE, seeded,
  pruned on the validation curve) on the tuning split that ``tune_on`` names —
  ``first-split``: trial 0's training and validation parts, one search per system, its best
  configuration frozen and shared by every trial; ``per-trial``: each trial's own parts, one
  search per (system, trial). A search is a unit of the store (key
  ``<dataset>/t<trial>/tune=N,on=<where>/<model>``) and its Optuna storage is
  ``OUT/tuning/<unit>.sqlite3``: a run killed mid-search resumes it with no finished
  configuration repeated;
* **the stage** (:func:`stage`): the searches run inside the run's one lifecycle
  (:func:`experiments.study.run_and_report`: its lock, manifest, backend, ``--unit-timeout``
  and failure records), before the design's waves; their values reach the units as
  ``ctx.tuned`` (keyed by :func:`ltrrepro.tuning.search_key`) and a unit reads its own with
  :func:`tuned_boosting`;
* the notes, the tuning table and the tuned claim family: :mod:`experiments.tuning_report`.
"""
from __future__ import annotations

import dataclasses
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from experiments.errors import UsageError
from ltrrepro.runner import Unit, UnitContext
from ltrrepro.tuning import TUNED, apply, data_setting, search_key, storage_file, tune

__all__ = ["TUNE_ON", "Search", "Stage", "check", "tuned_units", "search_units", "search_fn", "tuned_for",
           "tuned_boosting", "stage", "untuned", "estimate_lines", "manifest_summary"]

#: where a search tunes: trial 0's parts for every trial, or each trial's own
TUNE_ON = ("first-split", "per-trial")
#: what a tuned unit's record keeps of its search (the configurations themselves stay in the search's record)
KEPT = ("params", "value", "budget", "n_pruned", "n_failed", "space", "trial", "tune_on")


@dataclass(frozen=True)
class Search:
    """What a study's ``--tune`` needs, declared in its :class:`~experiments.registry.Experiment`.

    ``parts(unit, ctx) -> (train, valid)``: the search unit's training and validation parts (its
    data setting applied: clicks, say), never its test part; ``base(cfg, model) -> Boosting``:
    the boosting a search starts from and a tuned unit applies its values to (rounds, early
    stopping and bins kept); ``library(cfg, system)``: the library a search trains in (default
    the system's under ``cfg.library``); ``options(cfg, model)``: a search's fixed options
    (``device``, a growth rule); ``check(cfg)``: what the study refuses under ``--tune``;
    ``setting(setting)``: a tuned unit's setting from its fixed one (default: the setting with
    :data:`~ltrrepro.tuning.TUNED` added); ``keep_fixed``: the fixed units run too (Table 1 is
    reported at both: :func:`experiments.tuning_report.with_tuning` builds the tuned twin);
    ``untuned``: models that keep their own tuning (a grid of their own); ``seed_setting(setting)``:
    the setting whose unit's model seed every configuration of a search trains with (default the
    search's data setting: the fixed unit's seed); ``metric``: the
    validation value's name in the progress line; ``words``: the notes' and tuning table's
    words (:class:`~experiments.tuning_report.Words`); ``twin(fixed, tuned, cfg, inference)``: with
    ``keep_fixed``, the tuned frame's claims (each named tuned, in its family's tuned twin,
    corrected within it); ``prune``: the median pruner on (a study that relies on its tuning may
    search every configuration to its end: the pruner can stop the one that would have been best)."""

    parts: Callable
    base: Callable
    library: Callable | None = None
    options: Callable | None = None
    check: Callable | None = None
    setting: Callable | None = None
    keep_fixed: bool = False
    untuned: tuple = ()
    seed_setting: Callable | None = None
    metric: str = "ndcg@5"
    words: object = None
    twin: Callable | None = None
    prune: bool = True


def _search(cfg) -> Search | None:
    study = cfg.study
    return getattr(study, "tuning", None) if study is not None else None


def check(cfg) -> None:
    """``--tune N`` (N >= 0; 0: the paper's settings) and ``--tune-on``, then the study's own refusals."""
    if cfg.tune < 0 or cfg.tune_on not in TUNE_ON:
        raise UsageError(f"--tune N >= 1 configurations and --tune-on {' or '.join(TUNE_ON)}, got {cfg.tune} and "
                         f"{cfg.tune_on!r}")
    search = _search(cfg)
    if cfg.tune and search is not None and search.check is not None:
        search.check(cfg)


def tuned_units(units, cfg, search: Search) -> list[Unit]:
    """The study's ``units`` under ``--tune``: each (but the ``untuned`` models') at tuned
    settings, in place of the fixed ones or, with ``keep_fixed``, after them (duplicates, e.g.
    a grid's cells that tuning replaces by one unit, once). ``units`` itself without ``--tune``."""
    if not getattr(cfg, "tune", 0):
        return list(units)
    setting = search.setting or (lambda s: (*s, TUNED))
    tuned = [u if u.model in search.untuned else dataclasses.replace(u, setting=tuple(setting(u.setting)))
             for u in units]
    tuned = list(dict.fromkeys(tuned))
    return [*units, *(u for u in tuned if TUNED in u.setting)] if search.keep_fixed else tuned


def search_units(cfg, units) -> list[Unit]:
    """One search per system (``first-split``: on trial 0) or per (system, trial)
    (``per-trial``) of the units that train with tuned hyperparameters; each carries the data
    setting of the first such unit (the study's first setting: its transform, e.g. clicks)."""
    tuned = [u for u in units if TUNED in u.setting]
    if not tuned:
        return []
    data = data_setting(tuned[0].setting)
    trials = sorted({u.trial for u in tuned}) if cfg.tune_on == "per-trial" else [0]
    models = list(dict.fromkeys(u.model for u in tuned))
    return [Unit(cfg.experiment, cfg.unit_dataset, t, m, (("tune", cfg.tune), ("on", cfg.tune_on), *data), seed=cfg.seed)
            for t in trials for m in models]


def _library(search: Search, cfg, system) -> str:
    return search.library(cfg, system) if search.library is not None else system.resolve_library(cfg.library)


def search_fn(unit: Unit, ctx: UnitContext):
    """One system's search, a unit of the store: :func:`ltrrepro.tuning.tune` on the study's
    ``parts`` of the search unit (its data setting, never a test part) with the configuration's
    budget, the model seed of the system's tuned unit, and its Optuna storage in the run."""
    cfg = ctx.cfg
    search = _search(cfg)
    probe = Unit(unit.experiment, unit.dataset, unit.trial, unit.model, data_setting(unit.setting), unit.seed)
    train, valid = search.parts(probe, ctx)
    seeded = probe if search.seed_setting is None else dataclasses.replace(probe, setting=tuple(
        search.seed_setting(probe.setting)))
    system = cfg.system(unit.model)
    res = tune(system, _library(search, cfg, system), search.base(cfg, unit.model), train, valid, budget=cfg.tune,
               seed=seeded.model_seed(), storage=storage_file(ctx.tuning_dir, unit.key), name=ctx.tuning_study,
               threads=ctx.threads, options=search.options(cfg, unit.model) if search.options else {},
               prune=search.prune)
    tuned = {**res.to_dict(), "trial": unit.trial, "tune_on": cfg.tune_on}
    pruned = f", {res.n_pruned} pruned" if res.n_pruned else ""
    return {"kind": "tuning", "tuned": tuned,
            "log": f"validation {search.metric}={res.value:.4f} ({res.budget} configurations{pruned})"}, {}


def tuned_for(unit: Unit, ctx: UnitContext) -> dict | None:
    """The search record (``params``, ``value``, budget, pruned, space) a unit trains with, or
    None for a unit at the fixed settings."""
    if TUNED not in unit.setting:
        return None
    return ctx.tuned[search_key(unit.model, unit.trial if ctx.cfg.tune_on == "per-trial" else 0)]


def tuned_boosting(unit: Unit, ctx: UnitContext, system, boosting):
    """``(boosting, option overrides, record fields)`` a unit trains with: ``boosting`` as given
    for a unit at the fixed settings (``{}``, ``{}``); its search's values applied to it
    (:func:`ltrrepro.tuning.apply`) for a tuned one, with ``{"tuned": what the record keeps}``."""
    t = tuned_for(unit, ctx)
    if t is None:
        return boosting, {}, {}
    b, over = apply(t["params"], system, boosting)
    return b, over, {"tuned": {k: t[k] for k in KEPT}}


@dataclass
class Stage:
    """A stage of a run before its waves (:func:`experiments.study.run_and_report`): its
    ``units`` run by ``fn`` in the run's lifecycle; ``begin(ctx)`` prepares it (its files,
    a line on stderr), ``done(store, ctx) -> ctx`` hands its results to the units, and
    ``summary`` is what the manifest records of it (set by ``done``)."""

    name: str
    units: list
    fn: Callable
    begin: Callable
    done: Callable
    summary: dict = dataclasses.field(default_factory=dict)


def stage(cfg, execution, store, units) -> Stage | None:
    """The search stage of a run under ``--tune`` (None without one, or with ``--estimate``)."""
    todo = search_units(cfg, units) if getattr(cfg, "tune", 0) and not execution.estimate else []
    if not todo:
        return None
    directory = Path(store.root) / "tuning"

    def begin(ctx: UnitContext) -> UnitContext:
        directory.mkdir(parents=True, exist_ok=True)
        if execution.force:                  # recompute: the searches start afresh too
            for u in todo:
                storage_file(directory, u.key).unlink(missing_ok=True)
        if not execution.quiet:
            print(f"tuning: {len(todo)} search(es) of {cfg.tune} configuration(s) ({cfg.tune_on})", file=sys.stderr)
        return dataclasses.replace(ctx, tuning_dir=str(directory), tuning_study=store.config_hash)

    def done(st, ctx: UnitContext) -> UnitContext:
        tuned = {search_key(u.model, u.trial): st.record(u.key)["tuned"] for u in todo}
        out.summary = {"tuning": manifest_summary(tuned)}
        return dataclasses.replace(ctx, tuned=tuned)

    out = Stage("tuning", todo, search_fn, begin, done)
    return out


def manifest_summary(tuned: dict) -> dict:
    """What the manifest records of the searches: each system's tuned values, value, budget,
    space and configurations pruned and failed (the configurations themselves are in the
    units' records and the Optuna storage)."""
    return {k: {f: v[f] for f in ("params", "value", "budget", "space", "n_pruned", "n_failed", "best_trial")}
            for k, v in tuned.items()}


def untuned(units) -> list[Unit]:
    """The units at fixed settings that ``--estimate`` calibrates on (a tuned unit needs its
    search first): each tuned unit's setting without :data:`TUNED`, once."""
    out = [Unit(u.experiment, u.dataset, u.trial, u.model, tuple(kv for kv in u.setting if kv != TUNED), u.seed)
           for u in units]
    return list(dict.fromkeys(out))


def estimate_lines(cfg, units, store) -> list[str]:
    """``--estimate``'s count of the tuning: ``budget`` configurations per search, each about
    as costly as a calibrated unit of its model (the calibration's records in ``store``;
    pruning only makes it cheaper), and the tuned units beside the fixed ones (Table 1 runs
    both)."""
    todo = search_units(cfg, units) if getattr(cfg, "tune", 0) else []
    if not todo:
        return []
    seconds: dict = {}
    for u in untuned(units):
        rec = store.record(u.key) if u.model not in seconds else None
        if rec and store.current(rec):
            seconds[u.model] = float(rec["timings"]["unit_s"])
    search = sum(cfg.tune * seconds.get(u.model, 0.0) for u in todo)
    extra = len(units) - len(untuned(units))
    more = sum(seconds.get(u.model, 0.0) for u in units if TUNED in u.setting) if extra else 0.0
    return [f"  tuning (--tune {cfg.tune}, {cfg.tune_on}): {len(todo)} search(es) of {cfg.tune} configuration(s), "
            f"at most about {search:.0f} s of compute before the units (pruning stops some early)"
            + (f"; then {extra} tuned unit(s) beside the fixed ones, about {more:.0f} s" if extra else "")]
