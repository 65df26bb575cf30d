"""Bruch's reports under ``--tune N`` (docs/tuning.md): Table 1 at the paper's settings and tuned
(:func:`build_quality`), and every tuned study's table of tuned values (:func:`tuned_table`,
:func:`with_tuning`)."""
from __future__ import annotations

import dataclasses

import pandas as pd

from ltrrepro.inference import Inference
from ltrrepro.report import Table

__all__ = ["build_quality", "with_tuning", "tuned_table"]


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


def build_quality(df: pd.DataFrame, cfg, deviations=(), choices=(), as_paper=(), *, inference: Inference):
    """Table 1's report; with ``--tune``, the tuned Table 1, its tests and the tuned family of
    claims beside the paper-settings ones, and the tuned values."""
    from experiments.bruch2021 import report_table1 as table1
    from experiments.bruch2021.claims_tuning import tuned_claims

    dp, dt = _split(df)
    if dt.empty:
        return with_tuning(table1.build)(dp, cfg, deviations, choices, as_paper, inference=inference)
    rep = table1.build(dp, cfg, deviations, choices, as_paper, inference=inference)
    table_t, comp_t = table1.analyse(dt, cfg, inference=inference)
    claims = tuned_claims(comp_t, dp, dt, cfg, inference)
    tables = [dataclasses.replace(t, name=t.name.replace("table1", "table1_tuned") if t.name.startswith("table1")
                                  else f"{t.name}_tuned", caption=f"{t.caption} — every system tuned (--tune {cfg.tune})")
              for t in table1.tables(table_t, comp_t, cfg, inference=inference)]
    shown = table_t[["model", "trials", "ndcg@5[gain=exp2,norel=drop]", "ndcg@10[gain=exp2,norel=drop]", "trees"]]
    lines = ["Tuned (every system, the same budget):",
             shown.rename(columns={"ndcg@5[gain=exp2,norel=drop]": "NDCG@5", "ndcg@10[gain=exp2,norel=drop]": "NDCG@10"})
             .to_string(index=False, float_format=lambda v: f"{v:.4f}"), ""]
    rep = dataclasses.replace(rep, tables=[*rep.tables, *tables], claims=[*rep.claims, *claims],
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
