"""Every claim Xia, Zhai and Wang make, as pure functions of a run's frame and what the report
computed: OLE beats SE in most comparisons and OLE's final loss is 0.32%–1% lower
(:func:`claims`; a plug-in's arms against its SE arm, an extension), and the claims of the
text around Tables 2–3 and Figure 2 (§5; :func:`text_claims`):
* "the NDCG@1 and ERR have relatively smaller improvements" — per fold, the mean over the
  configurations of OLE − SE on NDCG@3 and @10 minus that on NDCG@1 and ERR (points ×100),
  tested > 0 over the folds;
* "Improvements of NDCG@3 and NDCG@10 … are more robust in a variety of configurations" — per
  fold and metric, the improvement's mean over the configurations minus its SD across them (a
  gain that holds in every configuration scores high, one that comes and goes low); NDCG@3 and
  @10's minus NDCG@1 and ERR's, tested > 0 over the folds. (A share of configurations with
  OLE > SE would not do: on Table 2 every cell improves, so the paper's own share contrast is
  0; the mean − SD contrast is positive on both of its tables for both systems.)
* "most of them are 0.3 to 0.4" (of the improvements by ≥ 0.1 point) — descriptive: the median
  improvement of the run's comparisons that gain ≥ 0.1 point and the share of them in
  [0.3, 0.4], beside the paper table's own;
* Figure 2: "improved consistently with OLE" — descriptive: the share of checkpoints at which
  the mean OLE − SE (over folds, configurations and metrics) is positive.

The first two form one family per system, corrected by ``--correction``; each is powered
against the paper's number where the run's dataset has a paper table (Table 2 for Yahoo,
Table 3 for MSLR-WEB10K), else against the mean of the two tables' numbers for the system —
the size the paper reports for this contrast (a point of NDCG, the default effect of interest,
is 4–15 times larger and would make "not supported" too easy).
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from experiments import analysis as an
from experiments.xia.paper import (PAPER_LOSS_RANGE, PAPER_TABLE_NAMES, PAPER_TEXT_COUNTS, paper_counts,
                                   in_grid, paper_differences, paper_means, paper_table)
from experiments.xia.claims_leaf import OWN_VERDICT, RULE_EFFECT, RULE_WORDS, decomposition_claims, loss_claim
from experiments.xia.protocol import LEAF_ARM_SYSTEM, METRICS, PRINCIPLES
from ltrrepro.inference import TEST_NAMES, Claim, Evidence, Expectation, Inference, correct, judge, reproduction, \
    smallest_effect
from ltrrepro.inference.tests import dz_fields, one_sample_p

__all__ = ["claims", "text_claims", "systems", "OWN_VERDICT", "RULE_EFFECT", "RULE_WORDS"]

#: the paper's systems and their principles; a plug-in arm's family joins them (:func:`systems`)
SYSTEMS = PRINCIPLES
HIGH, LOW = (METRICS[1], METRICS[2]), (METRICS[0], METRICS[3])      # NDCG@3, @10 | NDCG@1, ERR
NAMES = {"mcrank": "McRank", "lambdamart": "LambdaMART"}


def _differences(df: pd.DataFrame, system: str) -> pd.DataFrame:
    """OLE − SE (points ×100) per fold, configuration and metric of ``system``."""
    g = df[df.system == system]
    key = ["fold", "leaves", "lr"]
    ole = g[g.principle == "ole"].set_index(key)[list(METRICS)]
    se = g[g.principle == "se"].set_index(key)[list(METRICS)]
    idx = ole.index.intersection(se.index)
    return 100 * (ole.loc[idx] - se.loc[idx])


def _paper(dataset: str, system: str, grid=None) -> pd.DataFrame | None:
    """The paper's OLE − SE per configuration (rows) and metric (columns), or None; ``grid``:
    only the run's configurations (leaves, learning rate), where the paper has any of them."""
    _, table = paper_table(dataset)
    rows = {k[1:]: [ole - se for se, ole in v] for k, v in table.items() if k[0] == system}
    kept = {k: v for k, v in rows.items() if grid is None or in_grid(k, grid)}
    rows = kept or rows
    return pd.DataFrame.from_dict(rows, orient="index", columns=list(METRICS)) if rows else None


def _contrast(d: pd.DataFrame, robust: bool) -> pd.Series:
    """Per fold (or, with no fold level, overall): NDCG@3/@10's mean OLE − SE over the
    configurations minus NDCG@1/ERR's; ``robust``: each metric's mean minus its SD across the
    configurations instead of its mean."""
    groups = d.groupby(level="fold") if "fold" in (d.index.names or []) else [(0, d)]
    out = {}
    for fold, g in groups:
        score = g.mean() - (g.std(ddof=1) if robust else 0.0)
        out[fold] = float(score[list(HIGH)].mean() - score[list(LOW)].mean())
    return pd.Series(out)


def _tested(text, per_fold: np.ndarray, paper, interest, source, unit, family, inference: Inference) -> Claim:
    n = per_fold.size
    sd = float(per_fold.std(ddof=1)) if n > 1 else float("nan")
    p = one_sample_p(per_fold, inference.test) if n > 1 and sd > 0 else float("nan")
    mean = float(per_fold.mean()) if n else float("nan")
    detail = (f"mean over {n} fold(s) {mean:+.3f} {unit}" + (f"; the paper's tables: {paper:+.3f}" if paper is not None
                                                             else "") + "; p: the test in force over the folds")
    return judge(text, Evidence(mean, p, n, detail, sd=sd, on="fold"),
                 Expectation(paper_effect=paper, effect=None if paper is not None else interest, effect_source=source,
                             family=family), inference)


def text_claims(df: pd.DataFrame, dataset: str, *, inference: Inference) -> list[Claim]:
    """The four text claims for each paper system with both an SE and an OLE arm."""
    out = []
    ndcg_effect, ndcg_source = smallest_effect(METRICS[1], inference)
    for system in ("mcrank", "lambdamart"):
        d = _differences(df, system) if len(df) else pd.DataFrame()
        if d.empty:
            continue
        grid = sorted({(int(lv), float(lr)) for lv, lr in d.index.droplevel("fold").unique()})
        name, paper = NAMES[system], _paper(dataset, system, grid)      # the paper's means over the run's grid
        family = f"{name}: Xia's per-metric remarks (2 claims)"
        both = [_paper(ds, system, grid) for ds in ("yahoo", "web10k")]
        pe, ps = ((float(_contrast(paper, robust=r).iloc[0]) if paper is not None else None) for r in (False, True))
        me, ms = (float(np.mean([_contrast(t, robust=r).iloc[0] for t in both])) for r in (False, True))
        source = "the mean of the paper's contrasts for {} on Tables 2 and 3, {:.3f} points (no table for this data)"
        n_cfg = d.groupby(level=["leaves", "lr"]).ngroups
        claims = [
            _tested(f"{name}: NDCG@1 and ERR improve less with OLE than NDCG@3 and @10 (§5)",
                    _contrast(d, robust=False).to_numpy(), pe, me, source.format(name, me),
                    "points: OLE − SE on NDCG@3/@10 minus on NDCG@1/ERR, mean over configurations", family, inference),
            _tested(f"{name}: NDCG@3 and @10 improve more robustly across configurations than NDCG@1 and ERR (§5)",
                    _contrast(d, robust=True).to_numpy(), ps, ms, source.format(name, ms),
                    f"points: OLE − SE's mean − SD across the {n_cfg} configurations, NDCG@3/@10 minus NDCG@1/ERR",
                    family, inference)]
        out += correct(claims, inference)
        per_cell = d.groupby(level=["leaves", "lr"]).mean().to_numpy().ravel()    # configuration × metric
        gains = per_cell[np.isfinite(per_cell) & (per_cell >= 0.1)]
        pg = paper.to_numpy().ravel() if paper is not None else np.empty(0)
        pg = pg[pg >= 0.1]
        med = float(np.median(gains)) if gains.size else float("nan")
        in_band = lambda v: float(np.mean((v >= 0.3) & (v <= 0.4))) if v.size else float("nan")  # noqa: E731
        ref = (f"the paper's table for this dataset: median {np.median(pg):.3f} over {pg.size} of {paper.size}, "
               f"{in_band(pg):.0%} of them in [0.3, 0.4]" if pg.size else "no paper table for this dataset")
        detail = (f"median OLE − SE (mean over folds) of the comparisons (configuration × metric) gaining ≥ 0.1 "
                  f"point: {med:.3f} over {gains.size} of {per_cell.size}, {in_band(gains):.0%} of them in [0.3, "
                  f"0.4]; {ref}; the text: mostly 0.3–0.4")
        out.append(judge(f"{name}: most improvements of at least 0.1 point are 0.3 to 0.4 points (§5)",
                         Evidence(med, float("nan"), int(d.index.get_level_values("fold").nunique()), detail, on="fold"),
                         Expectation(verdict_text="descriptive (a magnitude, no test)"), inference))
        out.append(_consistency(df, system, name, inference))
    return out


def _consistency(df: pd.DataFrame, system: str, name: str, inference: Inference) -> Claim:
    """Figure 2: the share of checkpoints with mean OLE − SE > 0 (descriptive)."""
    g = df[df.system == system]
    curves = {}
    for pr in ("se", "ole"):
        rows = g[g.principle == pr]
        for (fold, leaves, lr), r in rows.groupby(["fold", "leaves", "lr"]):
            c = r.curves.iloc[0]
            if isinstance(c, dict):
                curves[(pr, fold, leaves, lr)] = np.mean([np.asarray(c[m], float) for m in METRICS if m in c], axis=0)
    keys = {k[1:] for k in curves if ("se", *k[1:]) in curves and ("ole", *k[1:]) in curves}
    if not keys:
        return judge(f"{name}: OLE improves on SE consistently along the iterations (Figure 2)",
                     Evidence.none("no curves stored"), Expectation(), inference)
    diff = np.mean([curves[("ole", *k)] - curves[("se", *k)] for k in sorted(keys)], axis=0)
    share = float((diff > 0).mean())
    detail = (f"share of the {diff.size} checkpoints at which OLE − SE, averaged over folds, configurations and the "
              f"four metrics, is positive: {share:.2f} (Figure 2 draws the curves; no number to test)")
    return judge(f"{name}: OLE improves on SE consistently along the iterations (Figure 2)",
                 Evidence(share, float("nan"), len({k[0] for k in keys}), detail, on="fold"),
                 Expectation(verdict_text="descriptive (a share of checkpoints, no test)"), inference)


def systems(df) -> dict:
    """System -> the principles it ran under, in table order: the paper's systems (McRank,
    LambdaMART) first, then each plug-in family of the run; a system the run has not is left out."""
    present = set(df.system) if len(df) else set()
    order = [*(s for s in SYSTEMS if s in present), *sorted(present - set(SYSTEMS))]
    return {fam: tuple(p for p in ("se", "ole", "rwse") if p in set(df[df.system == fam].principle))
            for fam in order}


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


def claims(df, diffs, losses, key, folds, leaf_rule: str | None = None, *, inference: Inference,
           decomposed: pd.DataFrame | None = None) -> list[Claim]:
    """The paper's claims per system: OLE beats SE in most comparisons (count, and a paired
    t-test over folds of the mean over configurations and metrics, powered against the
    paper's mean OLE − SE); OLE's final loss is 0.32%–1% lower (magnitude checked; the line
    names the run's ``leaf_rule``, which decides it; with the leaf arm's ``decomposed`` frame
    (:func:`.claims_leaf.decomposition`) LambdaMART's is the split-principle effect, beside the
    leaf-rule effect and ``own``, :func:`.claims_leaf.decomposition_claims`). OLE's time overhead is a timing of this
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
            grid = sorted({(int(r.leaves), float(r.lr)) for r in df[df.system == system][["leaves", "lr"]].itertuples()})
            paper = paper_differences(system, key, grid)
            p_se, p_ole = paper_means(system, key, grid)
            ok = np.isfinite(a_f) & np.isfinite(b_f)
            more = {**dz_fields(c), **reproduction(100 * (a_f[ok] - b_f[ok]), 100 * b_f[ok], p_ole, p_se, float(paper.mean()))}
            detail = (f"OLE > SE in {pos}/{n} comparisons, by ≥ 0.1 point in {better}/{n}, SE better by ≥ 0.1 in "
                      f"{worse}/{n}; mean OLE − SE {delta.mean():+.3f} points (paper {paper.mean():+.3f} over "
                      f"{'its ' + PAPER_TABLE_NAMES[key] if key else 'both its tables'}, the run's {len(grid)} "
                      f"configuration(s)); p: {TEST_NAMES[inference.test]} over "
                      f"the folds of the mean over configurations and metrics")
            evidence = Evidence(float(delta.mean()), c.p if c else np.nan, folds, detail, missing=missing,
                                sd=float(np.std(per_fold, ddof=1)) if len(per_fold) > 1 else np.nan, effect_sizes=more)
            expectation = Expectation(paper_effect=float(paper.mean()), verdict_text=(
                "not supported (OLE ahead by ≥ 0.1 point in too few comparisons)"
                if better <= n / 2 and delta.mean() > 0 else None))
            cl.append(judge(f"{system}: OLE beats SE in most comparisons (paper text: {PAPER_TEXT_COUNTS[system]} of "
                            f"72; its Tables 2–3: {k} of {m} by ≥ 0.1 point)", evidence, expectation, inference))
        if system == LEAF_ARM_SYSTEM and decomposed is not None and len(decomposed):
            cl += decomposition_claims(decomposed, folds, inference=inference)   # split, leaf, own (claims_leaf)
            continue
        lo = losses[losses.system == system] if len(losses) else losses
        if len(lo) and "OLE vs SE (%)" in lo:
            a_f, _ = _fold_means(df, system, ["loss"], relative=True)
            head = (f"leaf rule {leaf_rule}{RULE_WORDS.get(leaf_rule, '')}, so the value is "
                    f"{RULE_EFFECT.get(leaf_rule, 'as the rule sets it')}; OLE vs SE loss" if leaf_rule else
                    "OLE vs SE loss")
            c = loss_claim(f"{system}: OLE's final objective loss is lower than SE's by {PAPER_LOSS_RANGE[0]:g}%–"
                           f"{PAPER_LOSS_RANGE[1]:g}% (paper)", 100 * a_f, lo["OLE vs SE (%)"].values, folds, head,
                           inference=inference, verdict_text=OWN_VERDICT if leaf_rule == "own" else None)
            cl.append(c)
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
        evidence = Evidence(value, c.p if c else np.nan, folds, detail, missing=missing, effect_sizes=dz_fields(c),
                            sd=float(np.std(per_fold, ddof=1)) if len(per_fold) > 1 else np.nan)
        out.append(judge(f"{system}: {principle.upper()} beats SE (extension: a plug-in loss; no paper number)",
                         evidence, Expectation(effect=100 * interest,
                                               effect_source=f"{source} (×100: {100 * interest:g} points)"), inference))
    return out
