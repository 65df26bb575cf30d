"""Bruch (2021) across its two datasets (``python -m experiments.report A B`` on two runs of
one study, one per dataset profile: the study's :class:`~experiments.registry.Across`): the
paper's Table 1 / Figure 3 with Web30K and Yahoo side by side, and the claims no single run
can check — λMART's faster degradation "more pronounced on the Yahoo! dataset" as documents
are added and "on Web30K" as labels are perturbed (:func:`.claims_noise.pronounced_claims`).
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from experiments.bruch2021.paper import PAPER_TABLE1
from experiments.bruch2021.protocol import NDCG5, NDCG10, model_label, paper_reference
from experiments import analysis as an
from experiments import registry
from experiments.errors import UsageError
from experiments.bruch2021.claims_noise import NAMES, PRONOUNCED, noise_levels, pronounced_claims
from ltrrepro.inference import Inference
from ltrrepro.report import Figure, Report, Table

__all__ = ["build_table1", "build_figure3", "frames_by_reference", "table1", "robustness_table"]


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
            ax, g = axes[i][j], noise_levels(df, noise)
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


def robustness_table(frames: dict) -> pd.DataFrame:
    """Per noise type and level, each dataset's mean NDCG@5 of λMART and XE_NDCG and their
    difference (trials with both)."""
    rows = {}
    for ref, (cfg, df) in frames.items():
        for noise in PRONOUNCED:
            if noise not in cfg.noise:
                continue
            g = noise_levels(df, noise)
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
    across = [n for n, e in registry.experiments().items() if e.paper == "bruch2021" and e.across is not None]
    if len(studies) != 1 or next(iter(studies)) not in across:
        raise UsageError(f"a cross-dataset report takes runs of one Bruch study ({' or '.join(across)}), got "
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


def _build(runs, sources, parts, inference) -> Report:
    """The cross-dataset report of ``runs`` [(directory, config, frame, notes)], ``notes`` the
    run's protocol notes {as_paper, choices, deviations} (each prefixed here with its dataset):
    ``parts(frames, inference) -> (table frame, tables, figures, claims)``; ``sources`` (the runs
    it was built from) written as ``sources.json``; ``inference`` the report's statistics."""
    frames = frames_by_reference(runs)
    study = next(iter(frames.values()))[0].experiment
    notes = {paper_reference(cfg.dataset): n for _, cfg, _, n in runs}
    joined = {k: [f"{NAMES[r]}: {x}" for r in frames for x in notes[r][k]] for k in ("as_paper", "choices", "deviations")}
    tab, tables, figures, claims = parts(frames, inference)
    missing = [f"{NAMES[r]}: {an.absent_note(df.attrs['absent'])}" for r, (_, df) in frames.items()
               if df.attrs.get("absent")]
    return Report(title=f"Bruch (2021) {study} across datasets: "
                        + " and ".join(f"{NAMES[r]} ({c.dataset}, {stored_trials(c, df)})" for r, (c, df) in frames.items()),
                  tables=tables, figures=figures, claims=claims, lines=[tab.to_string(index=False)], inference=inference,
                  claims_caption="Claims check across datasets (Bruch 2021)", missing=missing,
                  json_files={"sources.json": sources} if sources is not None else {}, **joined)


def stored_trials(cfg, df) -> str:
    """The trials a run has stored, and of how many its configuration asks where they differ
    (a run cut short, or going on)."""
    n = int(df["trial"].nunique()) if "trial" in df and len(df) else 0
    return f"{n} trials" + (f" stored of {cfg.trials}" if n != cfg.trials else "")


def _table1_parts(frames, inference):
    tab = table1(frames)
    return tab, [Table("table1_across_datasets", tab, caption="Table 1 with both datasets: mean test NDCG ×100 over "
                       "each run's trials, the paper's numbers beside", digits=2, legend="", notes=True)], [], []


def _figure3_parts(frames, inference):
    tab = robustness_table(frames)
    return (tab, [Table("fig3_across_datasets", tab, caption="Figure 3 with both datasets: mean test NDCG@5 per level "
                        "and XE_NDCG − λMART (Δ)", digits=4, legend="", notes=True)],
            [f for f in (_figure3(frames),) if f is not None], pronounced_claims(frames, inference=inference))


def build_table1(runs, inference: Inference, sources=None) -> Report:
    """Table 1 across the datasets (``quality``): each run's means with the paper's beside."""
    return _build(runs, sources, _table1_parts, inference)


def build_figure3(runs, inference: Inference, sources=None) -> Report:
    """Figure 3 across the datasets (``robustness``): the table, the figure, and the claims
    "more pronounced on Yahoo / on Web30K"."""
    return _build(runs, sources, _figure3_parts, inference)
