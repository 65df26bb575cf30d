"""Bruch's reports under ``--tune N`` (docs/tuning.md): Table 1 at the paper's settings and tuned
(:func:`build_quality`), and every tuned study's table of tuned values (:func:`tuned_table`,
:func:`with_tuning`)."""
from __future__ import annotations

import dataclasses

import pandas as pd

from experiments import analysis as an
from ltrrepro.inference import Inference
from ltrrepro.report import Table

__all__ = ["build_quality", "with_tuning", "tuned_table"]


def _split(df: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    tuned = df["hp"].eq("tuned") if "hp" in df else pd.Series(False, index=df.index)
    return df[~tuned].drop(columns=["hp"], errors="ignore"), df[tuned].drop(columns=["hp"], errors="ignore")


def tuned_table(df: pd.DataFrame, cfg) -> Table | None:
    """Each system's tuned values (per search), the budget, the validation NDCG@5, the
    configurations pruned, and the space in the legend (:func:`experiments.analysis.tuned_table`)."""
    from experiments.bruch2021.report import model_name

    return an.tuned_table(df, cfg, name_of=lambda m: model_name(m, cfg), value="valid NDCG@5", searched=(
        "Each system's best configuration of its search (Optuna TPE, median pruning) on validation NDCG@5"))


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
    return an.with_table(rep, tuned_table(dt, cfg))


def with_tuning(build):
    """A study's ``build(frame, cfg, ...)`` with the tuned values' table added (``--tune``)."""
    def wrapped(df, cfg, *args, **kwargs):
        rep = build(df.drop(columns=["hp"], errors="ignore"), cfg, *args, **kwargs)
        return an.with_table(rep, tuned_table(df, cfg)) if getattr(cfg, "tune", 0) else rep
    wrapped.__doc__ = build.__doc__
    return wrapped
