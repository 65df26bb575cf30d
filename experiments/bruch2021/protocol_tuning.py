"""Bruch's studies under ``--tune N`` (docs/tuning.md), the protocol's part: a system's search
(:func:`tune_unit_fn`, a unit of the store), the units a tuned run trains (:func:`tuned_units`)
and the trainer each trains with (:func:`trainer`). The run's tuning phase is
:mod:`experiments.tuning`; the search itself :func:`ltrrepro.tuning.tune`."""
from __future__ import annotations

from experiments.errors import UsageError
from ltrrepro.runner import DataRef, Unit
from ltrrepro.splits import trial_split
from ltrrepro.tuning import TUNED, apply, data_setting, search_key, storage_file, tune

__all__ = ["TUNE_ON", "check", "tune_unit_fn", "tuned_for", "trainer", "tuned_units"]

TUNE_ON = ("first-split", "per-trial")


def check(cfg) -> None:
    """``--tune N`` (N >= 0; 0: the paper's fixed settings) and ``--tune-on``."""
    if cfg.tune < 0 or cfg.tune_on not in TUNE_ON:
        raise UsageError(f"--tune N >= 1 configurations and --tune-on {' or '.join(TUNE_ON)}, got {cfg.tune} and "
                         f"{cfg.tune_on!r}")


def tune_unit_fn(unit: Unit, ctx: dict, *, transforms):
    """One system's search: the tuning split's training and validation parts (transformed as the
    study's first setting: clicks, say, by ``transforms``, the protocol's ``(transform_train,
    transform_valid)``, handed in by the study's record), never its test part;
    :func:`ltrrepro.tuning.tune` with the configuration's budget, the unit's model seed, and its
    Optuna storage in the run."""
    transform_train, transform_valid = transforms
    cfg = ctx.cfg
    ds = DataRef(**ctx.data).open()
    split = trial_split(ds.n_queries, unit.seed, unit.trial)
    probe = Unit(unit.experiment, unit.dataset, unit.trial, unit.model, data_setting(unit.setting), unit.seed)
    train, _ = transform_train(probe, ds.subset(split.train), cfg)
    valid, _ = transform_valid(probe, ds.subset(split.valid), cfg)
    system = cfg.system(unit.model)
    res = tune(system, system.resolve_library(cfg.library), cfg.boosting, train, valid, budget=cfg.tune,
               seed=probe.model_seed(), storage=storage_file(ctx.tuning_dir, unit.key), name=ctx.tuning_study,
               threads=ctx.threads, options={"device": cfg.device})
    tuned = {**res.to_dict(), "trial": unit.trial, "tune_on": cfg.tune_on}
    pruned = f", {res.n_pruned} pruned" if res.n_pruned else ""
    return {"kind": "tuning", "tuned": tuned, "log": f"validation ndcg@5={res.value:.4f} ({res.budget} configurations{pruned})"}, {}


def tuned_for(unit: Unit, ctx: dict, tune_on: str) -> dict | None:
    """The search's record (``params``, ``value``, budget, pruned, space) a unit trains with,
    or None for a unit at the fixed settings."""
    if TUNED not in unit.setting:
        return None
    return ctx.tuned[search_key(unit.model, unit.trial if tune_on == "per-trial" else 0)]


def trainer(unit: Unit, ctx: dict, cfg, system):
    """``(trainer, record fields)`` of a unit: ``system``'s trainer with the configuration's
    boosting, or with the values of the unit's search (``--tune``: then ``{"tuned": its search's
    record}``, else ``{}``)."""
    tuned = tuned_for(unit, ctx, cfg.tune_on) if cfg.tune else None
    boosting, over = (cfg.boosting, {}) if tuned is None else apply(tuned["params"], system, cfg.boosting)
    made = system.trainer(boosting, library=cfg.library, seed=unit.model_seed(), threads=ctx.threads,
                          device=cfg.device, **over)
    if tuned is None:
        return made, {}
    return made, {"tuned": {k: tuned[k] for k in ("params", "value", "budget", "n_pruned", "n_failed", "space",
                                                   "trial", "tune_on")}}


def tuned_units(units, cfg, keep_paper: bool) -> list:
    """The study's units with ``--tune``: each also (``keep_paper``: Table 1) or only at tuned settings."""
    if not cfg.tune:
        return units
    tuned = [Unit(u.experiment, u.dataset, u.trial, u.model, (*u.setting, TUNED), u.seed) for u in units]
    return [*units, *tuned] if keep_paper else tuned
