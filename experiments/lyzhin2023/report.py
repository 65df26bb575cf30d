"""The tricks study's report: pure builders (frame, config) -> tables and claims (:mod:`.claims`),
composed by :func:`build` (the registry's ``Experiment.report`` reads the store and writes it).

Tables: ``main`` (each family's variant trained for each target metric: mean test value with its
95% CI; † where the family has no variant for the metric and its one system stands in),
``systems`` (every system as declared on all four metrics), ``ablations`` (each ablation of
YetiLoss minus the system as declared, paired over trials: Δ NDCG@10 with its CI and p, and the
Δ of the train–test gap), ``gap`` (training and test NDCG@10 and their gap by tree shape). Under
``--tune`` the tuning stage adds the tuned twin of each table and the tuning table.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from experiments import analysis as an
from experiments.lyzhin2023.claims import GAP, ablation_frame, build_claims, main_frame
from experiments.lyzhin2023.notes import hp_words
from experiments.lyzhin2023.protocol import AS_DECLARED, FAMILIES, METRICS, TRAIN_METRIC, system_for
from ltrrepro.fit import SYSTEMS
from ltrrepro.inference import TEST_NAMES, Inference
from ltrrepro.report import Report, Table

TEST_METRICS = tuple(METRICS.values())


def model_name(model: str, cfg) -> str:
    return SYSTEMS[model].label if model in SYSTEMS else model


def _ci(values):
    s = an.summary(values)
    return s.mean, s.ci_low, s.ci_high


def main_table(df: pd.DataFrame, cfg) -> pd.DataFrame:
    g = main_frame(df)
    rows = []
    for fam in cfg.families:
        row = {"family": fam}
        for m in cfg.targets:
            s = system_for(fam, m)
            h = g[g.model == s] if s else g.iloc[0:0]
            col = an.label(METRICS[m])
            row[col], row[f"{col}_lo"], row[f"{col}_hi"] = _ci(h[METRICS[m]]) if len(h) else (np.nan,) * 3
            row[f"{col} system"] = (s or "–") + ("" if m in FAMILIES[fam] else " †")
        rows.append(row)
    return pd.DataFrame(rows)


def systems_table(df: pd.DataFrame, cfg) -> pd.DataFrame:
    g = main_frame(df)
    rows = []
    for s in [m for m in cfg.models if m in set(g.model)]:
        h = g[g.model == s]
        row = {"system": model_name(s, cfg), "key": s, "trials": len(h)}
        for m in TEST_METRICS:
            row[an.label(m)], row[f"{an.label(m)}_lo"], row[f"{an.label(m)}_hi"] = _ci(h[m])
        rows.append(row)
    return pd.DataFrame(rows)


def ablation_table(df: pd.DataFrame, cfg, inference: Inference) -> pd.DataFrame:
    ab = ablation_frame(df)
    rows = []
    for a in cfg.ablations:
        if not {a, AS_DECLARED} <= set(ab.model):
            continue
        c = an.compare(ab, TRAIN_METRIC, a, AS_DECLARED, test=inference.test)
        gap = an.compare(ab, GAP, a, AS_DECLARED, test=inference.test)
        rows.append({"ablation": a, "trials": c.n, "Δ NDCG@10": c.diff, "Δ_lo": c.ci_low, "Δ_hi": c.ci_high,
                     "p": c.p, "Δ gap": gap.diff, "gap_lo": gap.ci_low, "gap_hi": gap.ci_high})
    return pd.DataFrame(rows)


def gap_table(df: pd.DataFrame, cfg) -> pd.DataFrame:
    ab = ablation_frame(df)
    rows = []
    for a, shape in ((AS_DECLARED, "as --grow-policy " + cfg.grow_policy), ("trees-leafwise", "leaf-wise")):
        h = ab[ab.model == a]
        if len(h):
            rows.append({"trees": shape, "train NDCG@10": h[f"train:{TRAIN_METRIC}"].mean(),
                         "test NDCG@10": h[TRAIN_METRIC].mean(), "gap": h[GAP].mean(),
                         "gap_lo": _ci(h[GAP])[1], "gap_hi": _ci(h[GAP])[2]})
    return pd.DataFrame(rows)


def build(df: pd.DataFrame, cfg, deviations=(), choices=(), as_paper=(), *, inference: Inference) -> Report:
    """The report of the fixed units (or, under ``--tune``, of either half: each table's caption ends with
    the fixed units' hyper-parameters, :func:`~experiments.lyzhin2023.notes.hp_words`, which the tuned
    twin's captions replace)."""
    at = f" — {hp_words(cfg)}"
    main = main_table(df, cfg) if len(df) else pd.DataFrame()
    cis = {an.label(METRICS[m]): (f"{an.label(METRICS[m])}_lo", f"{an.label(METRICS[m])}_hi") for m in cfg.targets}
    tables = [Table("main", main, caption="Each family's variant trained for each target metric (test, @10)" + at,
                    notes=True, legend="Mean test value over trials, 95% CI; the system column names the variant "
                                       "(† the family has no variant for this metric: its one system — trained for "
                                       "NDCG or for no metric in particular — stands in).",
                    ci_cols=cis)]
    if len(df):
        tables += [Table("systems", systems_table(df, cfg), caption="Every system as declared on the four metrics" + at,
                         notes=True, legend="Mean test value over trials, 95% CI.",
                         ci_cols={an.label(m): (f"{an.label(m)}_lo", f"{an.label(m)}_hi") for m in TEST_METRICS}),
                   Table("ablations", ablation_table(df, cfg, inference),
                         caption="The tricks of YetiLoss (NDCG): each ablation minus the system as declared" + at, notes=True,
                         legend=f"Paired over trials (same split and seed): Δ test NDCG@10 with its 95% CI, p: "
                                f"{TEST_NAMES[inference.test]}; Δ gap: the change of training minus test NDCG@10.",
                         formats={"p": "p"}, ci_cols={"Δ NDCG@10": ("Δ_lo", "Δ_hi"), "Δ gap": ("gap_lo", "gap_hi")}),
                   Table("gap", gap_table(df, cfg), caption="Train–test gap of NDCG@10 by tree shape (YetiLoss, NDCG)" + at,
                         notes=True, legend="Means over trials; gap with its 95% CI.", ci_cols={"gap": ("gap_lo", "gap_hi")})]
    lines = ["Each family on its target metrics (test @10):"]
    hp = "each library's defaults" if cfg.hp == "defaults" else f"preset {cfg.preset}"
    tuned = f", tuned from preset {cfg.preset}" if cfg.tune else ""
    for _, r in main.iterrows():
        lines.append(f"  {r.family:<20} " + "  ".join(f"{an.label(METRICS[m])} {r[an.label(METRICS[m])]:.4f}"
                                                       for m in cfg.targets))
    return Report(title=f"Which tricks matter for GBDT ranking — Lyzhin et al. 2023's protocol ({cfg.dataset}, "
                        f"{hp}{tuned}, {cfg.trials} trial(s))",
                  tables=tables, claims=build_claims(df, cfg, inference=inference), deviations=list(deviations),
                  choices=list(choices), as_paper=list(as_paper), missing=an.missing_notes(df, TEST_METRICS),
                  lines=lines, inference=inference, claims_caption="Claims check (tricks)",
                  json_files={"summary.json": {"main": main.to_dict(orient="records")}})
