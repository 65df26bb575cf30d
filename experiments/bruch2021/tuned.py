"""Bruch's studies under ``--tune N``: the search of a system (:func:`tune_unit_fn`, a unit of the
store), the tuned values a unit trains with (:func:`tuned_trainer_args`), the protocol notes
(:func:`notes`) and the report's additions (:func:`build_quality`, :func:`with_tuning`).

Table 1 is checked twice: at the paper's fixed settings (its family, as without ``--tune``) and
with every system tuned with the same budget (a second family, :data:`TUNED_FAMILY`, corrected
within it), which also holds "XE_NDCG MART > tuned λMART" — XE_NDCG MART at the paper's
settings against λMART tuned, the comparison Qin et al. (ICLR 2021) ask of a new loss. The
other studies train every unit with the tuned values and add their table.
"""
from __future__ import annotations

import dataclasses

import pandas as pd

from experiments import analysis as an
from experiments.tuning import TUNED, data_setting, storage_path, tuned_for
from ltrrepro.inference import Claim, Evidence, Expectation, Inference, correct, judge, smallest_effect
from ltrrepro.report import Table
from ltrrepro.runner import DataRef, Unit
from ltrrepro.splits import trial_split
from ltrrepro.tuning import apply, tune

__all__ = ["tune_unit_fn", "tuned_trainer_args", "notes", "build_quality", "with_tuning", "tuned_table", "tuned_units",
           "TUNED_FAMILY", "CROSS"]

TUNE_ON = ("first-split", "per-trial")
TUNED_FAMILY = "Table 1 tuned: the paper's three pairs and XE_NDCG MART against tuned λMART on NDCG@5 and @10"
#: XE_NDCG MART at the paper's settings beside the tuned frame (the cross claim)
CROSS = "xendcg@paper"


def tune_unit_fn(unit: Unit, ctx: dict):
    """One system's search: the tuning split's training and validation parts (transformed as the
    study's first setting: clicks, say), never its test part; :func:`ltrrepro.tuning.tune` with
    the configuration's budget, the unit's model seed, and its Optuna storage in the run."""
    from experiments.bruch2021.protocol import transform_train, transform_valid

    cfg = ctx["cfg"]
    ds = DataRef(**ctx["data"]).open()
    split = trial_split(ds.n_queries, unit.seed, unit.trial)
    probe = Unit(unit.experiment, unit.dataset, unit.trial, unit.model, data_setting(unit), unit.seed)
    train, _ = transform_train(probe, ds.subset(split.train), cfg)
    valid, _ = transform_valid(probe, ds.subset(split.valid), cfg)
    system = cfg.system(unit.model)
    res = tune(system, system.resolve_library(cfg.library), cfg.boosting, train, valid, budget=cfg.tune,
               seed=probe.model_seed(), storage=storage_path(ctx, unit), name=ctx["tuning_study"],
               threads=ctx["threads"], options={"device": cfg.device})
    tuned = {**res.to_dict(), "trial": unit.trial, "tune_on": cfg.tune_on}
    pruned = f", {res.n_pruned} pruned" if res.n_pruned else ""
    return {"kind": "tuning", "tuned": tuned, "log": f"validation ndcg@5={res.value:.4f} ({res.budget} configurations{pruned})"}, {}


def tuned_trainer_args(unit: Unit, ctx: dict, cfg, system):
    """``(boosting, option overrides, tuned record or None)`` a unit trains with."""
    tuned = tuned_for(unit, ctx, cfg.tune_on) if cfg.tune else None
    if tuned is None:
        return cfg.boosting, {}, None
    boosting, over = apply(tuned["params"], system, cfg.boosting)
    return boosting, over, {k: tuned[k] for k in ("params", "value", "budget", "n_pruned", "n_failed", "space",
                                                   "trial", "tune_on")}


def notes(cfg) -> dict:
    """The three protocol-note columns' sentences of a tuned run (empty without ``--tune``)."""
    if not cfg.tune:
        return {"as_paper": [], "choices": [], "deviations": []}
    where = ("trial 0's training and validation parts (one search per system, its best configuration frozen and "
             "shared by every trial)" if cfg.tune_on == "first-split" else
             "each trial's own training and validation parts (one search per system and trial)")
    dev = [f"hyperparameters tuned (--tune {cfg.tune}, Optuna TPE, median pruning), not the paper's fixed settings"
           + (": Table 1 is reported at both" if cfg.experiment == "quality" else "")]
    if cfg.tune_on == "first-split":
        dev.append("first-split tuning: with random query splits the search on trial 0 has seen queries that later "
                   "trials test on (--tune-on per-trial avoids it)")
    return {"as_paper": ["tuning selects on validation NDCG@5, the paper's model-selection metric; the test parts are "
                         "never read by a search"],
            "choices": [f"every system tuned with the same budget of {cfg.tune} configurations on {where}; the space "
                        "(ltrrepro.fit.space): learning rate log-uniform [0.01, 0.3], leaves [7, 255] and documents "
                        "per leaf [10, 200] log-uniform, feature and bagging fractions [0.5, 1], L2 [0.001, 10] "
                        "log-uniform, and a plug-in's own declared parameters; rounds and early stopping as the preset"],
            "deviations": dev}


def _split(df: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    tuned = df["hp"].eq("tuned") if "hp" in df else pd.Series(False, index=df.index)
    return df[~tuned].drop(columns=["hp"], errors="ignore"), df[tuned].drop(columns=["hp"], errors="ignore")


def tuned_table(df: pd.DataFrame, cfg) -> Table | None:
    """Each system's tuned values (per search), the budget, the validation value, the
    configurations pruned, and the space in the legend."""
    from experiments.bruch2021.report import model_name

    if "tuned" not in df:
        return None
    rows, space = [], {}
    searched = df[df.tuned.notna()]
    order = {m: i for i, m in enumerate(cfg.models)}
    keys = sorted({(m, t["trial"]) for m, t in zip(searched.model, searched.tuned)},
                  key=lambda k: (order.get(k[0], len(order)), k[0], k[1]))
    for model, trial in keys:
        t = next(t for m, t in zip(searched.model, searched.tuned) if m == model and t["trial"] == trial)
        space = t["space"]
        rows.append({"model": model_name(model, cfg), "tuned on": f"trial {trial}", "budget": t["budget"],
                     "pruned": t["n_pruned"], "failed": t["n_failed"], "valid NDCG@5": t["value"], **t["params"]})
    if not rows:
        return None
    frame = pd.DataFrame(rows)
    return Table("tuning", frame, caption=f"Tuned hyperparameters (--tune {cfg.tune}, --tune-on {cfg.tune_on})",
                 legend="Each system's best configuration of its search (Optuna TPE, median pruning) on validation "
                        "NDCG@5; budget: configurations tried; pruned: stopped early on the validation curve; "
                        "space: " + "; ".join(f"{k} {v}" for k, v in space.items()) + ".",
                 digits=4, formats={"num_leaves": 0, "min_data_in_leaf": 0, "budget": 0, "pruned": 0, "failed": 0})


def _untested(c: Claim) -> Claim:
    """A claim as :meth:`Claim.check` made it, before the correction (to be corrected again
    within the tuned family with the cross claim)."""
    if c.p_raw is None:
        return c
    return c.replace(p=c.p_raw, p_raw=None, correction=None)


def _relabel(c: Claim) -> Claim:
    """A claim of the tuned frame: both sides named tuned, in the tuned family (Table 1's pairs)
    or its family's tuned twin (plug-ins, other ranking systems)."""
    from experiments.bruch2021.claims import TABLE1_FAMILY

    head, _, metric = c.text.rpartition(" on ")
    a, _, b = head.partition(" > ")
    family = TUNED_FAMILY if c.family == TABLE1_FAMILY else f"{c.family} (tuned)"
    return c.replace(text=f"{a} (tuned) > {b} (tuned) on {metric}", family=family)


def _cross(dp: pd.DataFrame, dt: pd.DataFrame, cfg, inference: Inference) -> list[Claim]:
    """XE_NDCG MART at the paper's settings against tuned λMART, paired by trial; powered
    against the effect of interest (the paper has no number for it)."""
    from experiments.bruch2021.protocol import NDCG5, NDCG10
    from experiments.bruch2021.report import model_name

    both = pd.concat([dp[dp.model == "xendcg"].assign(model=CROSS), dt[dt.model == "lambdamart"]])
    out = []
    for k in (NDCG5, NDCG10):
        c = an.compare(both, k, CROSS, "lambdamart", test=inference.test)
        if c is None:
            continue
        interest, source = smallest_effect(k, inference)
        detail = (f"mean difference {c.diff:+.4f} (95% CI {c.ci_low:+.4f}..{c.ci_high:+.4f}); XE_NDCG MART at the "
                  f"paper's settings, λMART tuned")
        out.append(judge(f"{model_name('xendcg', cfg)} > {model_name('lambdamart', cfg)} (tuned) on {an.label(k)}",
                         Evidence(c.diff, c.p, c.n, detail, sd=c.std_diff),
                         Expectation(effect=interest, effect_source=source, family=TUNED_FAMILY), inference))
    return out


def build_quality(df: pd.DataFrame, cfg, deviations=(), choices=(), as_paper=(), *, inference: Inference):
    """Table 1's report; with ``--tune``, the tuned Table 1, its tests and the tuned family of
    claims beside the paper-settings ones, and the tuned values."""
    from experiments.bruch2021 import report_table1 as table1
    from experiments.bruch2021.claims import table1_claims

    dp, dt = _split(df)
    if dt.empty:
        return with_tuning(table1.build)(dp, cfg, deviations, choices, as_paper, inference=inference)
    rep = table1.build(dp, cfg, deviations, choices, as_paper, inference=inference)
    table_t, comp_t = table1.analyse(dt, cfg, inference=inference)
    claims_t = [_relabel(_untested(c)) for c in table1_claims(comp_t, cfg, dt, inference=inference)]
    tuned_claims = correct([*claims_t, *_cross(dp, dt, cfg, inference)], inference)
    tables = [dataclasses.replace(t, name=t.name.replace("table1", "table1_tuned") if t.name.startswith("table1")
                                  else f"{t.name}_tuned", caption=f"{t.caption} — every system tuned (--tune {cfg.tune})")
              for t in table1.tables(table_t, comp_t, cfg, inference=inference)]
    shown = table_t[["model", "trials", "ndcg@5[gain=exp2,norel=drop]", "ndcg@10[gain=exp2,norel=drop]", "trees"]]
    lines = ["Tuned (every system, the same budget):",
             shown.rename(columns={"ndcg@5[gain=exp2,norel=drop]": "NDCG@5", "ndcg@10[gain=exp2,norel=drop]": "NDCG@10"})
             .to_string(index=False, float_format=lambda v: f"{v:.4f}"), ""]
    rep = dataclasses.replace(rep, tables=[*rep.tables, *tables], claims=[*rep.claims, *tuned_claims],
                              lines=[*rep.lines, *lines])
    return _with_table(rep, tuned_table(dt, cfg))


def _with_table(rep, tt):
    """``rep`` with the tuned values' table (and its printed lines) added; as it is without one."""
    if tt is None:
        return rep
    return dataclasses.replace(rep, tables=[*rep.tables, tt], lines=[
        *rep.lines, tt.caption + ":", tt.frame.to_string(index=False, float_format=lambda v: f"{v:.4g}"), ""])


def with_tuning(build):
    """A study's ``build(frame, cfg, ...)`` with the tuned values' table added (``--tune``)."""
    def wrapped(df, cfg, *args, **kwargs):
        rep = build(df.drop(columns=["hp"], errors="ignore"), cfg, *args, **kwargs)
        return _with_table(rep, tuned_table(df, cfg)) if getattr(cfg, "tune", 0) else rep
    wrapped.__doc__ = build.__doc__
    return wrapped


def tuned_units(units, cfg, keep_paper: bool) -> list:
    """The study's units with ``--tune``: each also (``keep_paper``: Table 1) or only at tuned settings."""
    if not cfg.tune:
        return units
    tuned = [Unit(u.experiment, u.dataset, u.trial, u.model, (*u.setting, TUNED), u.seed) for u in units]
    return [*units, *tuned] if keep_paper else tuned
