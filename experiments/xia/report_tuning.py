"""Xia et al.'s report under ``--tune N`` (docs/tuning.md): the frame of a tuned run — each arm
at its own tuned values, put in one cell of the tables, leaves 0 and lr 0 (:func:`frame`) —
and the report with the table of tuned values (:func:`build`); without ``--tune`` both are
:mod:`.report`'s."""
from __future__ import annotations

import pandas as pd

from experiments import analysis as an
from experiments.xia import report
from ltrrepro.inference import Inference
from ltrrepro.report import Table

__all__ = ["frame", "build", "tuned_table", "TUNED_CELL"]

#: the (leaves, lr) cell a tuned unit stands in: each arm at its own values (the table "tuning")
TUNED_CELL = (0, 0.0)


def frame(store) -> pd.DataFrame:
    """:func:`.report.frame`, with the ``tuned`` field; a tuned unit (no grid cell) in :data:`TUNED_CELL`."""
    df = an.frame(store, pair_on="fold", fields=(*report.FIELDS, "tuned"))
    if not len(df) or "hp" not in df:
        return report.frame(store).assign(tuned=None) if len(df) else df
    tuned = df.hp.eq("tuned")
    for col, v in zip(("leaves", "lr"), TUNED_CELL):
        df[col] = df[col].where(~tuned, v) if col in df else v
    df["system"], df["principle"], df["loss"] = df.family, df.variant, df.train_loss
    df["leaves"], df["lr"] = df.leaves.astype(int), df.lr.astype(float)
    return df.drop(columns=["hp"])


def tuned_table(df: pd.DataFrame, cfg) -> Table | None:
    """Each arm's tuned values (per search), budget, validation NDCG@10 and configurations pruned,
    the space in the legend (:func:`experiments.analysis.tuned_table`); None without tuned units."""
    return an.tuned_table(df, cfg, name_of=lambda m: m, searched=(
        "Each arm's best configuration of its search (Optuna TPE, median pruning) by validation NDCG@10 at its "
        "last round; the other tables show it as leaves 0, lr 0 (each arm at its own values)"))


def build(df, cfg, deviations=(), choices=(), as_paper=(), *, inference: Inference):
    """:func:`.report.build` of the frame, with the tuned values' table (and its printed lines) under ``--tune``."""
    rep = report.build(df.drop(columns=["tuned"], errors="ignore"), cfg, deviations, choices, as_paper,
                       inference=inference)
    return an.with_table(rep, tuned_table(df, cfg) if cfg.tune else None)
