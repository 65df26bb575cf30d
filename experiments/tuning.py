"""``--tune N``: the tuning phase of a run, before its units (:func:`phase`), and what ``--estimate`` adds.

Each system of the run is tuned with the same budget of N configurations (:func:`ltrrepro.tuning.tune`:
Optuna TPE, seeded, pruned on the validation curve) on a tuning split that the configuration
names (``tune_on``): ``first-split`` — trial 0's training and validation parts, one search per
system, its best configuration frozen and shared by every trial — or ``per-trial`` — each
trial's own parts, one search per (system, trial). A search is a unit of the store (a record
under ``units/``, key ``<dataset>/t<trial>/tune=N,on=<where>/<model>``), run by the run's
backend like any unit (on the dask backend the systems tune in parallel), and its Optuna
storage is ``OUT/tuning/<unit>.sqlite3``: a run killed mid-search resumes it with no finished
configuration repeated. The study supplies the search itself as its configuration's
:class:`~experiments.registry.Experiment`'s ``tune_fn(unit, ctx)``, which reads only the
split's training and validation parts.

The units then read the frozen configurations from ``ctx.tuned``, keyed by
:func:`ltrrepro.tuning.search_key` (the study's unit function looks them up).
"""
from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

from ltrrepro.runner import Unit, UnitContext, run_units
from ltrrepro.tuning import TUNED, data_setting, search_key, storage_file

__all__ = ["tuning_units", "phase", "before_units", "untuned", "estimate_lines", "manifest_summary"]


def tuning_units(cfg, units) -> list[Unit]:
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


def phase(tune_fn, cfg, execution, store, units, ctx: UnitContext) -> dict:
    """Run (or resume) the searches of ``units`` into ``store``; ``{"<model>@<trial>": tuned
    params}`` (trial 0 stands for every trial with ``first-split``)."""
    todo = tuning_units(cfg, units)
    if not todo:
        return {}
    ctx = replace(ctx, tuning_dir=str(Path(store.root) / "tuning"), tuning_study=store.config_hash)
    Path(ctx.tuning_dir).mkdir(parents=True, exist_ok=True)
    if execution.force:                  # recompute: the searches start afresh too
        for u in todo:
            storage_file(ctx.tuning_dir, u.key).unlink(missing_ok=True)
    if not execution.quiet:
        print(f"tuning: {len(todo)} search(es) of {cfg.tune} configuration(s) ({cfg.tune_on})", file=sys.stderr)
    with store.lock():
        summary = run_units(todo, tune_fn, ctx, store, jobs=execution.jobs, threads=execution.threads,
                            backend=execution.backend, scheduler=execution.scheduler, force=execution.force,
                            quiet=execution.quiet, scheduler_timeout=execution.scheduler_timeout)
    if summary.failed:
        from experiments.errors import UsageError
        first = store.failure(summary.failed[0])
        raise UsageError(f"tuning {summary.failed[0]} failed: {first.get('error', '?')} (the units need its "
                         f"configuration; tracebacks in {store.failures_dir})")
    return {search_key(u.model, u.trial): store.record(u.key)["tuned"] for u in todo}


def before_units(exp, cfg, execution, store, units, ctx: UnitContext) -> tuple[dict, UnitContext]:
    """With ``--tune`` (not ``--estimate``): :func:`phase` with the study's ``tune_fn``, what the
    manifest records of it (``{"tuning": ...}``) and the units' context with its values in
    ``ctx.tuned``; ``({}, ctx)`` otherwise."""
    if not getattr(cfg, "tune", 0) or execution.estimate:
        return {}, ctx
    ctx = replace(ctx, tuned=phase(exp.tune_fn, cfg, execution, store, units, ctx))
    return {"tuning": manifest_summary(ctx.tuned)}, ctx


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
    todo = tuning_units(cfg, units)
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
