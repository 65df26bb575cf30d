"""Zheng et al.'s report under ``--tune N`` (docs/tuning.md): the frame with each tuned unit's
search record (:func:`frame`) and the report with the table of tuned values (:func:`build`);
without ``--tune`` both are :mod:`.report`'s."""
from __future__ import annotations

import pandas as pd

from experiments import analysis as an
from experiments.zheng2007 import report
from ltrrepro.inference import Inference
from ltrrepro.report import Table

__all__ = ["frame", "build", "tuned_table"]

NAMES = {"gbt": "GBT", "qbrank": "QBRank"}


def frame(store) -> pd.DataFrame:
    """:func:`.report.frame` with the ``tuned`` field of the tuned units (None elsewhere)."""
    df = report.frame(store)
    if len(df):
        df["tuned"] = [r.get("tuned") for r in store.records() if r.get("kind") != "tuning"]
    return df


def tuned_table(df: pd.DataFrame, cfg) -> Table | None:
    """Each tree system's tuned values (per search), budget, validation value (DCG-5; a plug-in's
    NDCG@5) and configurations pruned, the space in the legend
    (:func:`experiments.analysis.tuned_table`); None without tuned units."""
    systems = df.assign(model=[m[:-len(t) - 1] for m, t in zip(df.model, df.train)]) if len(df) else df
    return an.tuned_table(systems, cfg, name_of=lambda m: NAMES.get(m, m), searched=(
        "Each tree system's best configuration of its search (Optuna TPE, median pruning) on the validation part "
        "of L2 (valid value: DCG-5 at the last round; a plug-in: NDCG@5), used by every run of the system"))


def build(df, cfg, deviations=(), choices=(), as_paper=(), *, inference: Inference):
    """:func:`.report.build` of the frame, with the tuned values' table (and its printed lines) under ``--tune``."""
    rep = report.build(df.drop(columns=["hp", "tuned"], errors="ignore"), cfg, deviations, choices, as_paper,
                       inference=inference)
    return an.with_table(rep, tuned_table(df, cfg) if cfg.tune else None)
