"""Zheng et al.'s study under ``--tune N`` (docs/tuning.md): a tree system's search
(:func:`tune_unit_fn`, a unit of the store), the units a tuned run trains (:func:`tuned_units`)
and the settings a tuned unit trains with (:func:`tuned_settings`). The run's tuning phase is
:mod:`experiments.tuning`; the search itself :func:`ltrrepro.tuning.tune`.

Every tree system (GBT, QBRank, a plug-in) is searched once (per trial with ``per-trial``) with
the same budget, in its library's space, on the trial's L2 training part (QBRank on its pairs,
P2) and scored on the validation part V by its own selection metric (DCG-5; a plug-in's
NDCG@5); L3 is never read. Its tuned values replace the trial's shared η and leaves in every
run of that system (GBT(L1), GBT(L1 ∪ L2) take GBT's). RankSVM keeps its own C grid on V."""
from __future__ import annotations

from experiments.errors import UsageError
from ltrrepro.fit import Boosting
from ltrrepro.runner import DataRef, Unit
from ltrrepro.tuning import TUNED, apply, search_key, storage_file, tune

__all__ = ["TUNE_ON", "check", "tune_unit_fn", "tuned_units", "tuned_settings"]

TUNE_ON = ("first-split", "per-trial")
#: the one system that is not boosted: its C grid stays its tuning
UNTUNED = ("ranksvm",)


def check(cfg) -> None:
    """``--tune N`` (N >= 0; 0: the paper's shared η and leaves) and ``--tune-on``."""
    if cfg.tune < 0 or cfg.tune_on not in TUNE_ON:
        raise UsageError(f"--tune N >= 1 configurations and --tune-on {' or '.join(TUNE_ON)}, got {cfg.tune} and "
                         f"{cfg.tune_on!r}")
    if cfg.tune and cfg.shared_params == "tuned":
        raise UsageError("--tune searches every tree system's own configuration: drop --shared-params tuned "
                         "(GBT(L2)'s grid shared by every run)")


def _search_options(cfg, model: str) -> dict:
    """A search's fixed options: GBT's grid follows each configuration (None), QBRank keeps ``w``."""
    return {"grid": None} if model == "gbt" else cfg.options(model)


def tune_unit_fn(unit: Unit, ctx: dict, *, split):
    """One tree system's search on the trial's L2 training part and its validation part V
    (never L3): :func:`ltrrepro.tuning.tune` with the configuration's budget and rounds, the
    unit's model seed, and its Optuna storage in the run. ``split``: the protocol's
    ``zheng_split`` (handed in by the study's record)."""
    cfg = ctx.cfg
    ds = DataRef(**ctx.data).open()
    parts = split(ds, unit.seed, unit.trial)
    train, valid = ds.subset(parts["L2"]), ds.subset(parts["V"])
    del ds
    system = cfg.system(unit.model)
    probe = Unit(unit.experiment, unit.dataset, unit.trial, unit.model, (("train", "L2"),), unit.seed)
    res = tune(system, system.resolve_library(cfg.library), cfg.boosting(unit.model), train, valid, budget=cfg.tune,
               seed=probe.model_seed(), storage=storage_file(ctx.tuning_dir, unit.key), name=ctx.tuning_study,
               threads=ctx.threads, options=_search_options(cfg, unit.model))
    tuned = {**res.to_dict(), "trial": unit.trial, "tune_on": cfg.tune_on}
    pruned = f", {res.n_pruned} pruned" if res.n_pruned else ""
    return {"kind": "tuning", "tuned": tuned, "log": f"validation value={res.value:.4f} ({res.budget} configurations"
                                                      f"{pruned})"}, {}


def tuned_units(units, cfg) -> list:
    """The study's units with ``--tune``: every tree run at tuned settings (RankSVM as it is)."""
    if not cfg.tune:
        return units
    return [u if u.model in UNTUNED else Unit(u.experiment, u.dataset, u.trial, u.model, (*u.setting, TUNED), u.seed)
            for u in units]


def tuned_settings(unit: Unit, ctx: dict, cfg, system) -> tuple[Boosting, dict, dict] | None:
    """``(boosting, options, record fields)`` of a tuned unit: its system's search's values
    applied to the configuration's boosting (GBT's grid their one η and leaves); None for a
    unit at the fixed settings."""
    if TUNED not in unit.setting:
        return None
    t = ctx.tuned[search_key(unit.model, unit.trial if cfg.tune_on == "per-trial" else 0)]
    boosting, over = apply(t["params"], system, cfg.boosting(unit.model))
    options = {**cfg.options(unit.model, (boosting.learning_rate, boosting.num_leaves)), **over}
    keep = ("params", "value", "budget", "n_pruned", "n_failed", "space", "trial", "tune_on")
    return boosting, options, {"tuned": {k: t[k] for k in keep}}
