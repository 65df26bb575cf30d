"""Bruch (2021) across its two datasets: the claims no single run can check, and the paper's
Table 1 / Figure 3 with Web30K and Yahoo side by side (``python -m experiments.report A B``
on two runs of one study, one per dataset profile).

The claims (§5.4, on Figure 3): λMART's faster degradation "is more pronounced on the Yahoo!
dataset" as documents are added (3a/b) and "more pronounced on Web30K" as labels are perturbed
(3c/d). Per run and noise type, each trial gives the least-squares slope of XE_NDCG − λMART
(NDCG@5) against the noise level — the statistic of the run's own "λMART degrades faster"
claim. Here the two runs' slopes are compared: the mean on the dataset the paper names minus
the mean on the other, by a two-sample test (the runs are independent: different data, no
pairing) — Welch's t-test with ``--test t``, Mann–Whitney's U with ``--test wilcoxon``, a
permutation of the two samples with ``--test permutation`` (:func:`two_sample_p`). The paper
gives no number: the claims are powered against the run's smallest effect of interest for
NDCG (0.01 by default, ``--effect``) over the level range, with Welch's power (noncentral t,
Welch–Satterthwaite degrees of freedom; :func:`welch_power`), and "trials for 80%" counts the
trials per run, equal in both. The two claims form one family, corrected by ``--correction``.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from experiments.bruch2021.paper import PAPER_TABLE1, paper_reference
from experiments.bruch2021.protocol import NDCG5, NDCG10, model_label
from experiments.errors import UsageError
from ltrrepro.inference import Claim, Evidence, Expectation, Inference, correct, judge, smallest_effect
from ltrrepro.inference.power import two_sample_power, trials_for_two_sample_power
from ltrrepro.inference.tests import two_sample_p
from ltrrepro.report import Figure, Report, Table

__all__ = ["STUDIES", "trial_slopes", "levels_of", "pronounced_claims", "build"]

STUDIES = ("quality", "robustness")
#: the paper's words per noise type: the dataset on which λMART's faster degradation is more pronounced
PRONOUNCED = {"documents": ("yahoo", "Figure 3a/b"), "labels": ("web30k", "Figure 3c/d")}
NAMES = {"web30k": "Web30K", "yahoo": "Yahoo"}
FAMILY = "Figure 3 across datasets: where λMART's faster degradation is more pronounced (one claim per noise type)"


def levels_of(df: pd.DataFrame, noise: str) -> list[float]:
    """The levels of ``noise`` in a run's frame, with 0 (the noise-free run) where it has one."""
    g = _levels(df, noise)
    return sorted(set(g.level.astype(float)))


def trial_slopes(df: pd.DataFrame, noise: str, metric: str = NDCG5, a: str = "xendcg",
                 b: str = "lambdamart", levels=None) -> np.ndarray:
    """Per trial, the least-squares slope of ``a − b`` on ``metric`` against the level, over
    the trials with both models at every one of ``levels`` (default: the run's levels of
    ``noise``; level 0 is the noise-free run, shared by the noise types)."""
    g = _levels(df[df.model.isin([a, b])], noise)
    levels = sorted(levels if levels is not None else set(g.level))
    wide = g.pivot_table(index=["trial", "level"], columns="model", values=metric, aggfunc="first")
    if a not in wide or b not in wide:
        return np.empty(0)
    d = (wide[a] - wide[b]).unstack("level").reindex(columns=[float(v) for v in levels]).dropna()
    if d.shape[1] < 2:
        return np.empty(0)
    x = np.asarray(d.columns, float)
    xc = x - x.mean()
    return (d.values - d.values.mean(axis=1, keepdims=True)) @ xc / float(xc @ xc)


def pronounced_claims(frames: dict, *, inference: Inference) -> list[Claim]:
    """The two "more pronounced" claims from ``frames`` {reference: (config, frame)}."""
    out = []
    test = inference.test
    for noise, (where, fig) in PRONOUNCED.items():
        other = next(r for r in frames if r != where)
        df_w, df_o = frames[where][1], frames[other][1]
        text = (f"λMART's faster degradation as {'documents are added' if noise == 'documents' else 'labels are perturbed'}"
                f" is more pronounced on {NAMES[where]} than on {NAMES[other]} ({fig})")
        lacking = [NAMES[r] for r, (cfg, _) in frames.items() if noise not in cfg.noise]
        if len(lacking) == len(frames):
            continue                                  # neither run has this noise type: nothing to claim
        levels = sorted(set(levels_of(df_w, noise)) & set(levels_of(df_o, noise))) if not lacking else []
        if lacking or len(levels) < 2:
            why = (f"the {', '.join(lacking)} run has no {noise} noise" if lacking else
                   f"the runs share fewer than two {noise} levels ({levels_of(df_w, noise)} vs {levels_of(df_o, noise)})")
            out.append(judge(text, Evidence.none(why), Expectation(), inference, noise=noise))
            continue
        x, y = trial_slopes(df_w, noise, levels=levels), trial_slopes(df_o, noise, levels=levels)
        span = float(levels[-1]) - float(levels[0])
        interest, source = smallest_effect(NDCG5, inference)
        effect = interest / span
        value = float(x.mean() - y.mean()) if x.size and y.size else float("nan")
        ok = x.size >= 2 and y.size >= 2 and (x.std(ddof=1) > 0 or y.std(ddof=1) > 0)
        p = two_sample_p(x, y, test) if ok else float("nan")
        s1, s2 = (float(x.std(ddof=1)) if x.size > 1 else float("nan"), float(y.std(ddof=1)) if y.size > 1 else float("nan"))
        shared = "" if levels == levels_of(df_w, noise) == levels_of(df_o, noise) else \
            f" (over the levels both runs have: {', '.join(f'{v:g}' for v in levels)})"
        detail = (f"mean per-trial slope of XE_NDCG − λMART (NDCG@5 per level point){shared}: {NAMES[where]} "
                  f"{x.mean():+.2e} (SD {s1:.2e}, {x.size} trials) − {NAMES[other]} {y.mean():+.2e} (SD {s2:.2e}, "
                  f"{y.size} trials) = {value:+.2e}; p: "
                  f"{'Welch t' if test == 't' else 'Mann–Whitney U' if test == 'wilcoxon' else 'permutation'} test of "
                  f"the two runs' slopes (independent samples); trials for 80%: per run, equal in both"
                  if x.size and y.size else "no trial with NDCG@5 at every level in one of the runs")
        power = {"power": two_sample_power(effect, s1, x.size, s2, y.size, test, inference.alpha),
                 "trials_80": trials_for_two_sample_power(effect, s1, s2, test, alpha=inference.alpha),
                 "trials_80_range": None} if ok else None          # the two-sample test's, per run
        evidence = Evidence(value, p, int(x.size + y.size), detail, power=power,
                            missing=None if ok else "fewer than two trials with every level in a run")
        expectation = Expectation(effect=effect, family=FAMILY,
                                  effect_source=f"{source} over levels {levels[0]:g}–{levels[-1]:g} (a slope "
                                                f"difference of {effect:.2e} per level point)")
        out.append(judge(text, evidence, expectation, inference, noise=noise))
    return correct(out, inference)


def _figure3(frames: dict) -> Figure | None:
    """Figure 3 with both datasets: rows the noise types both runs have (None: no such type),
    columns the datasets; mean test NDCG@5 of λMART and XE_NDCG per level, and their
    difference (right axis)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    noises = [n for n in PRONOUNCED if all(n in cfg.noise for cfg, _ in frames.values())]
    if not noises:
        return None
    fig, axes = plt.subplots(len(noises), len(frames), figsize=(4.2 * len(frames), 3.2 * len(noises)), squeeze=False)
    for i, noise in enumerate(noises):
        for j, (ref, (cfg, df)) in enumerate(frames.items()):
            ax, g = axes[i][j], _levels(df, noise)
            for m, style in (("lambdamart", "s-"), ("xendcg", "o-")):
                h = g[g.model == m].groupby("level")[NDCG5].mean()
                ax.plot(h.index, h.values, style, ms=4, label=model_label(m, cfg))
            d = g.pivot_table(index=["trial", "level"], columns="model", values=NDCG5, aggfunc="first")
            if {"xendcg", "lambdamart"} <= set(d):
                diff = (d["xendcg"] - d["lambdamart"]).groupby("level").mean()
                ax2 = ax.twinx()
                ax2.plot(diff.index, diff.values, "g--", lw=1)
                ax2.set_ylabel("XE_NDCG − λMART", color="g", fontsize=8)
            ax.set_title(f"{NAMES[ref]} ({cfg.dataset}): {noise}", fontsize=9)
            ax.set_xlabel("% more documents" if noise == "documents" else "% labels perturbed")
            ax.set_ylabel("test NDCG@5")
            if i == j == 0:
                ax.legend(fontsize=8)
    fig.tight_layout()
    return Figure("fig3_across_datasets", fig)


def _levels(df: pd.DataFrame, noise: str) -> pd.DataFrame:
    g = df[(df.noise == noise) | (df.noise == "none")].copy()
    g["level"] = np.where(g.noise == "none", 0.0, g.level.astype(float))
    return g


def robustness_table(frames: dict) -> pd.DataFrame:
    """Per noise type and level, each dataset's mean NDCG@5 of λMART and XE_NDCG and their
    difference (trials with both)."""
    rows = {}
    for ref, (cfg, df) in frames.items():
        for noise in PRONOUNCED:
            if noise not in cfg.noise:
                continue
            g = _levels(df, noise)
            d = g.pivot_table(index=["trial", "level"], columns="model", values=NDCG5, aggfunc="first")
            if not {"xendcg", "lambdamart"} <= set(d):
                continue
            d = d[["lambdamart", "xendcg"]].dropna()
            d["diff"] = d.xendcg - d.lambdamart
            for lv, h in d.groupby("level"):
                row = rows.setdefault((noise, lv), {"noise": noise, "level": lv})
                row.update({f"{NAMES[ref]} λMART": h.lambdamart.mean(), f"{NAMES[ref]} XE_NDCG": h.xendcg.mean(),
                            f"{NAMES[ref]} Δ": h["diff"].mean(), f"{NAMES[ref]} trials": len(h)})
    return pd.DataFrame(list(rows.values())).sort_values(["noise", "level"]).reset_index(drop=True) if rows else \
        pd.DataFrame()


def table1(frames: dict) -> pd.DataFrame:
    """Table 1 with both datasets: mean test NDCG@5 and @10 (×100) per model and dataset, with
    the paper's numbers beside them."""
    rows = {}
    for ref, (cfg, df) in frames.items():
        for m, g in df.groupby("model"):
            row = rows.setdefault(m, {"model": model_label(m, cfg)})
            for k, metric in ((5, NDCG5), (10, NDCG10)):
                row[f"{NAMES[ref]} NDCG@{k}"] = 100 * g[metric].mean()
                paper = PAPER_TABLE1[ref].get(m)
                row[f"{NAMES[ref]} paper @{k}"] = paper[k // 10] if paper else np.nan
    return pd.DataFrame(list(rows.values()))


def frames_by_reference(runs) -> dict:
    """``runs`` [(directory, config, frame, notes)] -> {paper reference: (config, frame)},
    Web30K first; one run per dataset profile of one study, else a :class:`UsageError`."""
    studies = {cfg.experiment for _, cfg, _, _ in runs}
    if len(studies) != 1 or next(iter(studies)) not in STUDIES:
        raise UsageError(f"a cross-dataset report takes runs of one Bruch study ({' or '.join(STUDIES)}), got "
                         f"{', '.join(sorted(studies))}")
    out = {}
    for d, cfg, df, _ in runs:
        ref = paper_reference(cfg.dataset)
        if ref is None:
            raise UsageError(f"{d}: dataset {cfg.dataset!r} is neither a Web30K nor a Yahoo profile: the paper's "
                             "cross-dataset claims compare those two")
        if ref in out:
            raise UsageError(f"{d}: a second {NAMES[ref]} run; give one Web30K and one Yahoo run")
        out[ref] = (cfg, df)
    if set(out) != {"web30k", "yahoo"}:
        raise UsageError("a cross-dataset report needs one Web30K and one Yahoo run (synthetic profiles count)")
    return {r: out[r] for r in ("web30k", "yahoo")}


def build(runs, inference: Inference) -> Report:
    """The cross-dataset report of ``runs`` [(directory, config, frame, notes)], ``notes``
    the run's protocol notes {as_paper, choices, deviations} (each prefixed here with its
    dataset)."""
    frames = frames_by_reference(runs)
    study = next(iter(frames.values()))[0].experiment
    notes = {paper_reference(cfg.dataset): n for _, cfg, _, n in runs}
    joined = {k: [f"{NAMES[r]}: {x}" for r in frames for x in notes[r][k]] for k in ("as_paper", "choices", "deviations")}
    if study == "quality":
        tab = table1(frames)
        tables = [Table("table1_across_datasets", tab, caption="Table 1 with both datasets: mean test NDCG ×100 over "
                        "each run's trials, the paper's numbers beside", digits=2, legend="", notes=True)]
        figures, claims = [], []
    else:
        tab = robustness_table(frames)
        tables = [Table("fig3_across_datasets", tab, caption="Figure 3 with both datasets: mean test NDCG@5 per level "
                        "and XE_NDCG − λMART (Δ)", digits=4, legend="", notes=True)]
        figures = [f for f in (_figure3(frames),) if f is not None]
        claims = pronounced_claims(frames, inference=inference)
    return Report(title=f"Bruch (2021) {study} across datasets: "
                        + " and ".join(f"{NAMES[r]} ({c.dataset}, {c.trials} trials)" for r, (c, _) in frames.items()),
                  tables=tables, figures=figures, claims=claims, lines=[tab.to_string(index=False)], inference=inference,
                  claims_caption="Claims check across datasets (Bruch 2021)", **joined)
