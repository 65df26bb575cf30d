"""Xia et al.'s study under ``--tune N`` (docs/tuning.md): an arm's search (:func:`tune_unit_fn`,
a unit of the store), the units a tuned run trains (:func:`tuned_units`) and the boosting a
unit trains with (:func:`boosting`). The run's tuning phase is :mod:`experiments.tuning`; the
search itself :func:`ltrrepro.tuning.tune`.

Every arm (McRank and LambdaMART under each split principle, a plug-in arm) is searched with
the same budget in the tree learner's space (:data:`ltrrepro.fit.space.GBDT_SPACE`: learning
rate, leaves, documents per leaf, L2), with the run's growth, leaf rule and split rule and its
family's rounds, trained on the split's training part and scored on its validation part — a
fold layout's official ``vali`` file, else the random split's 20% — by NDCG@10 at the last
round (:data:`ltrrepro.fit.xia.SELECT_METRIC`); the test part is never read. A tuned run
replaces the grid ``leaves`` × ``rates`` by each arm at its own tuned values: one unit per
(trial, arm)."""
from __future__ import annotations

from experiments.errors import UsageError
from ltrrepro.fit import Boosting
from ltrrepro.runner import Unit
from ltrrepro.tuning import TUNED, apply, search_key, storage_file, tune

__all__ = ["TUNE_ON", "LIBRARY", "check", "tune_unit_fn", "tuned_units", "boosting"]

TUNE_ON = ("first-split", "per-trial")
#: every arm grows in ltrrepro's own tree learner
LIBRARY = "ltrrepro"


def check(cfg) -> None:
    """``--tune N`` (N >= 0; 0: the paper's grid) and ``--tune-on``."""
    if cfg.tune < 0 or cfg.tune_on not in TUNE_ON:
        raise UsageError(f"--tune N >= 1 configurations and --tune-on {' or '.join(TUNE_ON)}, got {cfg.tune} and "
                         f"{cfg.tune_on!r}")


def tuned_units(units, cfg) -> list:
    """The study's units with ``--tune``: one per (trial, arm) at its tuned values, in place of the grid."""
    if not cfg.tune:
        return units
    out = [Unit(u.experiment, u.dataset, u.trial, u.model, (TUNED,), u.seed) for u in units]
    return list(dict.fromkeys(out))


def _base(cfg, model: str) -> Boosting:
    """The boosting a search starts from: the grid's first cell, the run's leaf size, bins and the arm's rounds."""
    return Boosting(learning_rate=float(cfg.rates[0]), num_leaves=int(cfg.leaves[0]),
                    min_data_in_leaf=cfg.min_data_in_leaf, max_bin=cfg.max_bin, rounds=cfg.rounds_of(model))


def _options(cfg) -> dict:
    return {"growth": cfg.growth, "leaf_rule": cfg.leaf_rule, "split_rule": cfg.split_rule}


def tune_unit_fn(unit: Unit, ctx: dict, *, parts):
    """One arm's search: :func:`ltrrepro.tuning.tune` on the split's training and validation
    parts, with the configuration's budget, the arm's model seed (of its tuned unit) and its
    Optuna storage in the run. ``parts(unit, ctx)``: (train, validation) of the unit's fold, never
    its test part (the protocol's ``fold_parts`` with ``other="valid"``, handed in by the study's
    record)."""
    cfg = ctx.cfg
    train, valid = parts(unit, ctx)
    system = cfg.system(unit.model)
    probe = Unit(unit.experiment, unit.dataset, unit.trial, unit.model, (TUNED,), unit.seed)
    res = tune(system, LIBRARY, _base(cfg, unit.model), train, valid, budget=cfg.tune, seed=probe.model_seed(),
               storage=storage_file(ctx.tuning_dir, unit.key), name=ctx.tuning_study, threads=ctx.threads,
               options=_options(cfg))
    tuned = {**res.to_dict(), "trial": unit.trial, "tune_on": cfg.tune_on}
    pruned = f", {res.n_pruned} pruned" if res.n_pruned else ""
    return {"kind": "tuning", "tuned": tuned,
            "log": f"validation ndcg@10={res.value:.4f} ({res.budget} configurations{pruned})"}, {}


def boosting(unit: Unit, ctx: dict, cfg) -> tuple[Boosting, dict]:
    """``(boosting, record fields)`` of a unit: its grid cell's (:meth:`XiaConfig.boosting`,
    ``{}``), or its arm's search's values (``{"tuned": the search's record}``)."""
    if TUNED not in unit.setting:
        return cfg.boosting(unit), {}
    t = ctx.tuned[search_key(unit.model, unit.trial if cfg.tune_on == "per-trial" else 0)]
    b, _ = apply(t["params"], cfg.system(unit.model), _base(cfg, unit.model))
    keep = ("params", "value", "budget", "n_pruned", "n_failed", "space", "trial", "tune_on")
    return b, {"tuned": {k: t[k] for k in keep}}
