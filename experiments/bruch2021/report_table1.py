"""Bruch Table 1 (``quality``): mean test NDCG@1/3/5/10 per model with the paper's numbers, the
paired t-tests of the paper's models (and each plug-in against the baseline) with per-query
wins/ties/losses, the timings, and the claims "XE_NDCG MART > λMART > ListNet on NDCG@5 and
@10" powered against Table 1.
"""
from __future__ import annotations

from itertools import combinations

import pandas as pd

from experiments import analysis as an
from experiments.bruch2021.claims import (OTHERS_FAMILY, PLUGIN_FAMILY, TABLE1_FAMILY, XE_OTHERS_FAMILY, cross_claims,
                                         table1_claims)
from experiments.bruch2021.paper import PAPER_TABLE1
from experiments.bruch2021.protocol import NDCG5, NDCG10, TEST_METRICS
from experiments.bruch2021.report import TABLE1_MARK, model_name
from ltrrepro.inference import CORRECTION_NAMES, TEST_NAMES, Inference
from ltrrepro.report import Report, Table

PAPER_MODELS = ("listnet", "lambdamart", "xendcg")
BASELINES = ("lgb_rank_xendcg", "xgb_rank_ndcg")
METRICS = TEST_METRICS
#: the stored per-query arrays the tests' wins/ties/losses read (:func:`experiments.analysis.frame`)
ARRAYS = tuple(f"test:{k}" for k in (NDCG5, NDCG10))


def analyse(df: pd.DataFrame, cfg, *, inference: Inference) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The Table 1 rows (mean ± CI per metric, trees, paper numbers) and the paired tests of
    the paper's models (later minus earlier of the paper's order, then plug-in minus
    baseline); with the per-query arrays in ``df`` (:data:`ARRAYS`), per-query
    wins/ties/losses beside each test (``inference``: the report's test and correction)."""
    models = [m for m in (*PAPER_MODELS, *BASELINES, *sorted(set(df.model) - set(PAPER_MODELS) - set(BASELINES)))
              if m in set(df.model)]
    rows = []
    paper = PAPER_TABLE1.get(cfg.dataset)       # the paper's numbers, for the datasets it used
    for m in models:
        g = df[df.model == m]
        row = {"model": model_name(m, cfg), "key": m, "trials": len(g)}
        for k in METRICS:
            s = an.summary(g[k].values)             # trials where the metric is defined
            row[k] = s.mean
            row[f"{k}_ci"] = (s.ci_high - s.ci_low) / 2
        row["trees"] = float(g.best_iteration.mean())
        row["train_s"] = float(g.train_s.mean())
        if paper and m in paper:
            row["paper@5"], row["paper@10"] = paper[m][0] / 100, paper[m][1] / 100
        rows.append(row)
    table = pd.DataFrame(rows)
    comps = []
    base = cfg.baseline
    plug = [(base, key) for key, _ in cfg.plugins
            if key != base and key in set(df.model) and base in set(df.model)]        # never a plug-in against itself
    others = [m for m in models if m not in (*PAPER_MODELS, *BASELINES, *dict(cfg.plugins), base)]
    other = {p: OTHERS_FAMILY for m in others for p in [(base, m)] if base in models}
    other.update({(m, "xendcg"): XE_OTHERS_FAMILY for m in others if "xendcg" in models})
    for k in (NDCG5, NDCG10):
        # (earlier, later) of the paper's ordering, then (baseline, plug-in), then the other systems: later − earlier
        for x, y in [*combinations([m for m in PAPER_MODELS if m in set(df.model)], 2), *plug, *other]:
            c = an.compare(df, k, y, x, test=inference.test)
            if c is not None:
                comps.append({"metric": an.label(k), "a": y, "b": x,
                              "family": other.get((x, y), TABLE1_FAMILY if (x, y) not in plug else PLUGIN_FAMILY),
                              **c.as_dict(),
                              **(an.query_wtl(df, k, y, x) if f"test:{k}" in df else {})})
    comp = pd.DataFrame(comps)
    if len(comp):
        comp["p_adj"] = an.adjust_within(comp, "family", inference.correction)       # the claims' p: one rule (--correction)
    return table, comp


def tables(table: pd.DataFrame, comp: pd.DataFrame, cfg, *, inference: Inference) -> list[Table]:
    """Table 1 as the paper shows it (``*``: differs from λMART, see
    :data:`~experiments.bruch2021.report.TABLE1_MARK`), the timings, the paired tests."""
    trials = int(table.trials.max()) if len(table) else 0
    shown = table.drop(columns=["key", "train_s"]).copy()    # timings go to their own file
    for k in ("NDCG@5", "NDCG@10"):
        marks = []
        for m in table.key:
            r = comp[(comp.metric == k) & (((comp.a == m) & (comp.b == "lambdamart"))
                                           | ((comp.b == m) & (comp.a == "lambdamart")))] if len(comp) else []
            marks.append("*" if len(r) and float(r.iloc[0][TABLE1_MARK]) < inference.alpha else "")
        shown[f"sig@{k[5:]}"] = marks
    paper_note = " paper@5/@10: Bruch Table 1." if "paper@5" in table else ""
    out = [Table("table1", shown, notes=True,
                 caption=f"Ranking quality, Bruch Table 1 ({cfg.dataset}, library {cfg.library}, preset {cfg.preset})",
                 legend=f"Mean test NDCG over {trials} trial(s) (± = half-width of the 95% CI). * = differs from "
                        f"λMART: {TEST_NAMES[inference.test]} p, {CORRECTION_NAMES[inference.correction]}-adjusted "
                        f"within Table 1's family (the claims'), < {inference.alpha}.{paper_note}",
                 pm_cols={k: f"{k}_ci" for k in METRICS}, marks={NDCG5: "sig@5", NDCG10: "sig@10"},
                 formats={"trees": 1}, rename={k: an.label(k) for k in METRICS}),
           Table("timings", table[["model", "trials", "train_s"]], caption="Mean training time per model (s)",
                 digits=2, legend="Wall-clock seconds per model and trial on this machine (boosting with early "
                                  "stopping; the training data's transform and binning not counted): not "
                                  "reproducible byte for byte, so kept out of the result tables.")]
    if len(comp):
        out.append(Table("table1_tests", comp, caption="Paired tests (a − b)",
                         legend=f"diff: mean of a − b with its 95% CI (t); d_z: mean / SD of the per-trial "
                                f"differences, its 95% CI (noncentral t); p: {TEST_NAMES[inference.test]}; p_adj: "
                                f"{CORRECTION_NAMES[inference.correction]} within the family (the claims' p); "
                                "q_wins/q_ties/q_losses: test queries where a beats, ties, loses to b, pooled "
                                "over trials (per-query NDCG).",
                         digits=4, formats={"t": 2, "p": "p", "p_adj": "p", "dz": 2},
                         ci_cols={"diff": ("ci_low", "ci_high"), "dz": ("dz_low", "dz_high")}))
    return out


def build(df: pd.DataFrame, cfg, deviations=(), choices=(), as_paper=(), *, inference: Inference) -> Report:
    """The report of a ``quality`` run: its frame (with :data:`ARRAYS` for the per-query
    wins/ties/losses), configuration and statistics."""
    table, comp = analyse(df, cfg, inference=inference)
    cols = ["model", "trials", *METRICS, "trees", "train_s"] + [c for c in ("paper@5", "paper@10") if c in table]
    printed = table[cols].rename(columns={k: an.label(k) for k in METRICS}).to_string(
        index=False, float_format=lambda v: f"{v:.4f}")
    return Report(title=f"Bruch Table 1 ({cfg.dataset}, {cfg.library}, preset {cfg.preset})",
                  tables=tables(table, comp, cfg, inference=inference),
                  claims=table1_claims(comp, cfg, df, inference=inference), deviations=list(deviations),
                  choices=list(choices), as_paper=list(as_paper), missing=an.missing_notes(df, METRICS),
                  lines=[printed, ""], inference=inference,
                  claims_caption="Claims check (Bruch Table 1)")

def tuned_claims(fixed: pd.DataFrame, tuned: pd.DataFrame, cfg, inference: Inference) -> list:
    """Table 1's claims under ``--tune`` (the study's declared twin, :class:`experiments.tuning.Search`):
    those of the ``tuned`` frame (:func:`~.claims.table1_claims` with ``tuned``) and the cross claims
    (:func:`~.claims.cross_claims`), corrected together within their families."""
    _, comp = analyse(tuned, cfg, inference=inference)
    return table1_claims(comp, cfg, tuned, inference=inference, tuned=True, also=cross_claims(fixed, tuned, cfg, inference))

