"""Xia et al. Tables 2/3 and Figure 2 from a run's records: SE/OLE (and RWSE) test metrics side
by side with the paper's, OLE − SE per comparison, final training losses, wall times, the
OLE − SE curves against rounds, and the claims check. Pure functions of (frame, configuration)
composed by :func:`build`; :func:`report` reads the store and writes the report.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from experiments import analysis as an
from experiments.xia.paper import (PAPER_LOSS_RANGE, PAPER_TABLE_NAMES, PAPER_TEXT_COUNTS, paper_counts,
                                   paper_differences, paper_table)
from experiments.xia.protocol import METRICS, PRINCIPLES, XiaConfig
from experiments.xia.figure import figure
from experiments.xia.text_claims import text_claims
from experiments.xia.tables import LEAVES_LEGEND, leaves_table, paper_means, time_legend, time_table
from ltrrepro.inference import TEST_NAMES, Claim, Evidence, Expectation, Inference, judge, reproduction, smallest_effect
from ltrrepro.inference.tests import dz_fields as _dz, paired_test
from ltrrepro.report import Report, Table

#: the paper's systems and their principles; a plug-in arm's family joins them (:func:`systems`)
SYSTEMS = PRINCIPLES
METRIC_LABELS = {m: an.label(m) for m in METRICS}
#: what each leaf rule puts in the leaves (the loss claim's line names the rule in use)
RULE_WORDS = {"diagonal": " (Eq. 8 in every arm)", "exact": " (exact −L′/L″ in every arm)",
              "own": " (Eq. 8 for SE/RWSE, Eq. 11's exact step for OLE)"}
#: the record fields the report reads beside the means (Figure 2's curves, leaves per tree)
FIELDS = ("curve_points", "curves", "leaves_per_tree")


def frame(store) -> pd.DataFrame:
    """The analysis frame by fold, with the system (its ``family``) and principle (its
    ``variant``) of each model and its curves."""
    df = an.frame(store, pair_on="fold", fields=FIELDS)
    if len(df):
        df["system"] = df.family
        df["principle"] = df.variant
        df["leaves"] = df.leaves.astype(int)
        df["lr"] = df.lr.astype(float)
        df["loss"] = df.train_loss
    return df


def systems(df) -> dict:
    """System -> the principles it ran under, in table order: the paper's systems (McRank,
    LambdaMART) first, then each plug-in family of the run; a system the run has not is left out."""
    present = set(df.system) if len(df) else set()
    order = [*(s for s in SYSTEMS if s in present), *sorted(present - set(SYSTEMS))]
    return {fam: tuple(p for p in ("se", "ole", "rwse") if p in set(df[df.system == fam].principle))
            for fam in order}


def _pair(df, system, leaves, lr, metric, a="ole", b="se"):
    g = df[(df.system == system) & (df.leaves == leaves) & (df.lr == lr)]
    pa = g[g.principle == a].set_index("fold")[metric]
    pb = g[g.principle == b].set_index("fold")[metric]
    idx = pa.index.intersection(pb.index)
    return pa.loc[idx].values, pb.loc[idx].values


def _grid(df):
    """The leaf counts and learning rates present in the results."""
    if df.empty:
        return [], []
    return sorted(int(v) for v in df.leaves.unique()), sorted(float(v) for v in df.lr.unique())


def _fold_means(df, system, columns, relative=False, principle="ole"):
    """Per fold, the mean over configurations (and ``columns``) of OLE's (``principle``'s) and
    SE's values — one independent pair per fold for the claims' t-tests. ``relative``: OLE/SE − 1
    against 0."""
    g = df[df.system == system]
    ole = g[g.principle == principle].set_index(["fold", "leaves", "lr"])[columns]
    se = g[g.principle == "se"].set_index(["fold", "leaves", "lr"])[columns]
    idx = ole.index.intersection(se.index)
    ole, se = ole.loc[idx], se.loc[idx]
    if relative:
        ole, se = ole / se - 1.0, se * 0.0
    a = ole.mean(axis=1).groupby(level="fold").mean()
    b = se.mean(axis=1).groupby(level="fold").mean()
    return a.values, b.values


def tables(df, dataset, *, inference: Inference):
    """Tables 2/3 (ours vs the paper), the per-comparison differences and the loss table."""
    key, paper = paper_table(dataset)
    rows, diffs, losses = [], [], []
    leaves_grid, rates = _grid(df)
    for system, principles in systems(df).items():
        for leaves in leaves_grid:
            for lr in rates:
                g = df[(df.system == system) & (df.leaves == leaves) & (df.lr == lr)]
                if g.empty:
                    continue
                row = {"system": system, "leaves": leaves, "lr": lr, "folds": int(g.fold.nunique())}
                for mi, m in enumerate(METRICS):
                    for pr in principles:
                        v = g[g.principle == pr][m]
                        row[f"{METRIC_LABELS[m]} {pr.upper()}"] = 100 * float(v.mean()) if len(v) else np.nan
                    ps = paper.get((system, leaves, round(lr, 2)))
                    row[f"{METRIC_LABELS[m]} paper SE/OLE"] = f"{ps[mi][0]:.2f}/{ps[mi][1]:.2f}" if ps else ""
                    a, b = _pair(df, system, leaves, lr, m)
                    if len(a):
                        ok = np.isfinite(a) & np.isfinite(b)        # folds where the metric is defined
                        c = an.finite_test(a, b, test=inference.test) if ok.sum() > 1 else None
                        diffs.append({"system": system, "leaves": leaves, "lr": lr, "metric": METRIC_LABELS[m],
                                      "OLE − SE (×100)": 100 * float(np.mean(a[ok] - b[ok])) if ok.any() else np.nan,
                                      "d_z": c.dz if c else np.nan, "p": c.p if c else np.nan, "folds": int(ok.sum()),
                                      "paper OLE − SE": (ps[mi][1] - ps[mi][0]) if ps else np.nan})
                rows.append(row)
                lrow = {"system": system, "leaves": leaves, "lr": lr}
                for pr in principles:
                    lrow[f"loss {pr.upper()}"] = float(g[g.principle == pr]["loss"].mean())
                if {"se", "ole"} <= set(principles):      # (no ratio to a loss of 0: no pair to order)
                    lrow["OLE vs SE (%)"] = 100 * (lrow["loss OLE"] / lrow["loss SE"] - 1) if lrow["loss SE"] else np.nan
                losses.append(lrow)
    return key, pd.DataFrame(rows), pd.DataFrame(diffs), pd.DataFrame(losses)


def _paper_layout(table: pd.DataFrame) -> pd.DataFrame:
    """Tables 2/3 as the paper prints them: one ``SE/OLE`` cell per metric, the paper's beside
    it, RWSE (LambdaMART only) last."""
    if table.empty:
        return table
    out = table[["system", "leaves", "lr", "folds"]].astype(object).copy()
    out["lr"] = [f"{v:g}" for v in table.lr]
    two = lambda v: "–" if not np.isfinite(v) else f"{v:.2f}"  # noqa: E731
    nan = pd.Series(np.nan, index=table.index)
    for m in METRIC_LABELS.values():
        se, ole = table.get(f"{m} SE", nan), table.get(f"{m} OLE", nan)     # (a run without an SE or OLE arm)
        out[f"{m} SE/OLE"] = [f"{two(a)}/{two(b)}" for a, b in zip(se, ole)]
        out[f"{m} paper"] = table[f"{m} paper SE/OLE"].replace("", "–")
    for m in METRIC_LABELS.values():
        if f"{m} RWSE" in table:
            out[f"{m} RWSE"] = [two(v) for v in table[f"{m} RWSE"]]
    return out


def _loss_verdict(value: float, p: float, alpha: float) -> str | None:
    """A significant loss reduction is ``supported`` only within the paper's 0.32%–1%
    magnitude; outside it the verdict says which way the magnitude differs (significance at ``alpha``)."""
    lo, hi = PAPER_LOSS_RANGE
    if not (np.isfinite(p) and p < alpha and value < 0):
        return None                      # the generic verdict (direction, power) stands
    if lo <= -value <= hi:
        return "supported"
    return (f"lower, by more than the paper's {lo:g}–{hi:g}%" if -value > hi
            else f"lower, by less than the paper's {lo:g}–{hi:g}%")


def claims(df, diffs, losses, key, folds, leaf_rule: str | None = None, *, inference: Inference) -> list[Claim]:
    """The paper's claims per system: OLE beats SE in most comparisons (count, and a paired
    t-test over folds of the mean over configurations and metrics, powered against the
    paper's mean OLE − SE); OLE's final loss is 0.32%–1% lower (magnitude checked; the line
    names the run's ``leaf_rule``, which decides it). OLE's time overhead is a timing of this
    implementation, not a claim: the wall-time table (:func:`.tables.time_table`)."""
    cl = []
    for system, principles in systems(df).items():
        if system not in SYSTEMS:                   # a plug-in arm: no paper number
            cl += _extension_claims(df, system, principles, folds, inference=inference)
            continue
        d = diffs[(diffs.system == system)] if len(diffs) else diffs
        if len(d):
            n = len(d)
            delta = d["OLE − SE (×100)"]
            better, worse, pos = int((delta >= 0.1).sum()), int((delta <= -0.1).sum()), int((delta > 0).sum())
            a_f, b_f = _fold_means(df, system, list(METRICS))
            per_fold = 100 * (a_f - b_f)
            per_fold = per_fold[np.isfinite(per_fold)]               # folds where the metrics are defined
            c = an.finite_test(a_f, b_f, test=inference.test) if len(per_fold) > 1 else None
            missing = (an.no_test_reason(len(per_fold), c.std_diff if c else None, "ndcg", on="fold")
                       if not (c and np.isfinite(c.p)) else None)
            k, m = paper_counts(system)
            paper = paper_differences(system, key)
            p_se, p_ole = paper_means(system, key)
            ok = np.isfinite(a_f) & np.isfinite(b_f)
            more = {**_dz(c), **reproduction(100 * (a_f[ok] - b_f[ok]), 100 * b_f[ok], p_ole, p_se, float(paper.mean()))}
            detail = (f"OLE > SE in {pos}/{n} comparisons, by ≥ 0.1 point in {better}/{n}, SE better by ≥ 0.1 in "
                      f"{worse}/{n}; mean OLE − SE {delta.mean():+.3f} points (paper {paper.mean():+.3f} over "
                      f"{'its ' + PAPER_TABLE_NAMES[key] if key else 'both its tables'}); p: {TEST_NAMES[inference.test]} over "
                      f"the folds of the mean over configurations and metrics")
            evidence = Evidence(float(delta.mean()), c.p if c else np.nan, folds, detail, missing=missing,
                                sd=float(np.std(per_fold, ddof=1)) if len(per_fold) > 1 else np.nan, effect_sizes=more)
            expectation = Expectation(paper_effect=float(paper.mean()), verdict_text=(
                "not supported (OLE ahead by ≥ 0.1 point in too few comparisons)"
                if better <= n / 2 and delta.mean() > 0 else None))
            cl.append(judge(f"{system}: OLE beats SE in most comparisons (paper text: {PAPER_TEXT_COUNTS[system]} of "
                            f"72; its Tables 2–3: {k} of {m} by ≥ 0.1 point)", evidence, expectation, inference))
        lo = losses[losses.system == system] if len(losses) else losses
        if len(lo) and "OLE vs SE (%)" in lo:
            rel = lo["OLE vs SE (%)"].values
            a_f, _ = _fold_means(df, system, ["loss"], relative=True)
            per_fold = 100 * a_f[np.isfinite(a_f)]            # (no ratio to a loss of 0)
            c = paired_test(per_fold, np.zeros_like(per_fold), test=inference.test) if len(per_fold) > 1 else None
            value = float(per_fold.mean()) if len(per_fold) else float("nan")
            p = c.p if c else np.nan
            missing = None if np.isfinite(p) else (
                an.no_test_reason(len(per_fold), c.std_diff if c else None, on="fold") if len(per_fold)
                else "no fold with a finite loss ratio (a final loss of 0: no pair to order)")
            detail = ((f"leaf rule {leaf_rule}{RULE_WORDS.get(leaf_rule, '')}; " if leaf_rule else "")
                      + f"OLE vs SE loss {np.min(rel):+.2f}% … {np.max(rel):+.2f}% over the {len(rel)} "
                        f"configuration(s); mean over folds {value:+.2f}% (negative: OLE lower); supported only "
                        f"within the paper's magnitude; power against its smallest reduction ({PAPER_LOSS_RANGE[0]:g}%)")
            evidence = Evidence(value, p, folds, detail, missing=missing,
                                sd=float(np.std(per_fold, ddof=1)) if len(per_fold) > 1 else np.nan,
                                effect_sizes={**_dz(c), **reproduction(per_fold, None, None, None, -PAPER_LOSS_RANGE[0])})
            expectation = Expectation(sign=-1, paper_effect=-PAPER_LOSS_RANGE[0],
                                      verdict_text=_loss_verdict(value, p, inference.alpha))
            cl.append(judge(f"{system}: OLE's final objective loss is lower than SE's by {PAPER_LOSS_RANGE[0]:g}%–"
                            f"{PAPER_LOSS_RANGE[1]:g}% (paper)", evidence, expectation, inference))
    return cl



def _extension_claims(df, system, principles, folds, *, inference: Inference) -> list[Claim]:
    """A plug-in's arms against its SE arm: each other principle beats SE on the test metrics
    (the chosen test over folds of the mean over configurations and metrics, as the paper's
    claim; no paper number: powered against the NDCG effect of interest, ×100)."""
    out = []
    for principle in principles:
        if principle == "se" or "se" not in principles:
            continue
        a_f, b_f = _fold_means(df, system, list(METRICS), principle=principle)
        if len(a_f) and np.array_equal(a_f, b_f):
            detail = (f"the {principle.upper()} and SE arms grew the same trees (equal test metrics in every fold: "
                      f"for this loss the two split principles coincide, e.g. a constant second derivative)")
            out.append(judge(f"{system}: {principle.upper()} beats SE (extension: a plug-in loss; no paper number)",
                             Evidence(0.0, np.nan, folds, detail, missing="identical arms"), Expectation(), inference))
            continue
        per_fold = 100 * (a_f - b_f)
        per_fold = per_fold[np.isfinite(per_fold)]
        c = an.finite_test(a_f, b_f, test=inference.test) if len(per_fold) > 1 else None
        missing = (an.no_test_reason(len(per_fold), c.std_diff if c else None, "ndcg", on="fold")
                   if not (c and np.isfinite(c.p)) else None)
        value = float(per_fold.mean()) if len(per_fold) else float("nan")
        interest, source = smallest_effect("ndcg@10[gain=exp2,norel=drop]", inference)
        detail = (f"mean {principle.upper()} − SE {value:+.3f} points over the folds (mean over configurations and "
                  f"metrics); p: {TEST_NAMES[inference.test]} over the folds")
        evidence = Evidence(value, c.p if c else np.nan, folds, detail, missing=missing, effect_sizes=_dz(c),
                            sd=float(np.std(per_fold, ddof=1)) if len(per_fold) > 1 else np.nan)
        out.append(judge(f"{system}: {principle.upper()} beats SE (extension: a plug-in loss; no paper number)",
                         evidence, Expectation(effect=100 * interest,
                                               effect_source=f"{source} (×100: {100 * interest:g} points)"), inference))
    return out


def build(df, cfg, deviations=(), choices=(), *, inference: Inference) -> Report:
    """The report of a Xia run: its :func:`frame` and configuration (the trees' growth and leaf
    rule named in the legend are the configuration's)."""
    key, table, diffs, losses = tables(df, cfg.dataset, inference=inference)
    folds = int(df.fold.nunique()) if len(df) else 0
    learner = (f"Every arm in ltrrepro.gbdt: trees grown {cfg.growth}, leaf rule {cfg.leaf_rule}; McRank OLE = RWSE "
               f"= the Newton gain (Theorem 1), LambdaMART OLE exact, RWSE = the libraries' gain.")
    paper_note = (f"'paper SE/OLE': Xia et al. {PAPER_TABLE_NAMES[key]}." if key else
                  "No paper table: the paper reports Yahoo Set 1 and MSLR-WEB10K only.")
    times, tcol = time_table(df)
    rates = _grid(df)[1]
    figures = [f for f in (figure(df, system, cfg, rates) for system in systems(df)) if f is not None]
    out = [Table("table_se_ole", table, caption=f"SE vs OLE ({cfg.dataset})", digits=2, shown=_paper_layout(table),
                 legend=f"Test metrics ×100 at the last round, mean over {folds} fold(s) ({cfg.dataset}); "
                        f"{paper_note} {learner}", notes=True, legend_end=" Cells: SE/OLE, as the paper's tables."),
           Table("ole_minus_se", diffs, caption="OLE − SE per comparison",
                 legend=f"×100; d_z: mean/SD of the per-fold differences; p: {TEST_NAMES[inference.test]} over folds "
                        f"(descriptive, per comparison: the claims test the mean over comparisons).",
                 digits=3, formats={"lr": "g", "p": "p", "paper OLE − SE": 2, "d_z": 2}),
           Table("final_loss", losses, caption="Final training objective loss", digits=1,
                 legend="McRank: multinomial NLL; LambdaMART: |ΔNDCG|-weighted pairwise logistic loss at the final "
                        "ranking; a plug-in: its own loss (– where it defines none). Paper: OLE 0.32%–1% lower than "
                        "SE.", formats={"lr": "g", "OLE vs SE (%)": 2}),
           Table("wall_time", times, caption="Mean training time per model (s)", digits=2,
                  legend=time_legend(tcol), formats={"paper OLE / SE": 1})]
    leaves = leaves_table(df)
    if len(leaves):
        out.append(Table("leaves_per_tree", leaves, caption="Leaves per tree", digits=2, legend=LEAVES_LEGEND))
    return Report(
        title=f"Xia et al. Tables 2/3 — SE vs OLE ({cfg.dataset}; paper table: {key or 'none'}), ×100, {folds} "
              f"fold(s); trees {cfg.growth}, leaf rule {cfg.leaf_rule}",
        tables=out, figures=figures, claims=(claims(df, diffs, losses, key, folds, cfg.leaf_rule, inference=inference)
                                              + text_claims(df, cfg.dataset, inference=inference)),
        deviations=list(deviations), choices=list(choices), missing=an.missing_notes(df, METRICS),
        lines=[table.to_string(index=False, float_format=lambda v: f"{v:.2f}"), "",
               "Final training loss:", losses.to_string(index=False, float_format=lambda v: f"{v:.5g}"), "",
               "Wall time:", times.to_string(index=False, float_format=lambda v: f"{v:.3f}"), "",
               *(["Leaves per tree:", leaves.to_string(index=False, float_format=lambda v: f"{v:.2f}"), ""]
                 if len(leaves) else [])],
        inference=inference, claims_caption="Claims check (Xia et al.)")


def report(store, inference: Inference) -> Report:
    """The report of the run in ``store`` (:func:`build`) under the report's statistics, written."""
    cfg, deviations, choices = an.stored_config(store, XiaConfig)
    rep = build(frame(store), cfg, deviations, choices, inference=inference)
    rep.as_paper = an.stored_as_paper(store, cfg)
    return rep.write(store.root)
