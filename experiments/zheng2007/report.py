"""Zheng et al. (2007) Table 1 and Figure 1 from a run's records: precision at K% on P3 side by
side with the paper's, DCG-5 per run, DCG-5 against iterations, and the claims check
(:mod:`.claims`). Pure functions of (frame, configuration) composed by :func:`build`; the
registry's one report function reads the store (:func:`frame`) and writes the report.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from experiments import analysis as an
from experiments.zheng2007.claims import TABLE1_PAIRS, claims, table1_p, trend_claims
from experiments.zheng2007.paper import PAPER_ETA, PAPER_L1_SHARE, PAPER_LEAVES, PAPER_RANKSVM_DCG5, PAPER_TABLE1
from experiments.zheng2007.protocol import DCG5, LABELS, PERCENTS, RUNS, plugin_runs, run_label, run_name
from ltrrepro.inference import CORRECTION_NAMES, TEST_NAMES, Inference
from ltrrepro.report import Figure, Report, Table, band

MODELS = tuple(RUNS)
#: the record fields the report reads beside the means
FIELDS = ("curve_points", "test_curve_dcg5", "info")


def frame(store) -> pd.DataFrame:
    """The analysis frame with ``model`` = the run (system and training data, e.g. ``gbt_L2``)
    and the curves and sizes of each record (:data:`FIELDS`)."""
    df = an.frame(store, fields=(*FIELDS, "tuned"))          # "tuned": a --tune unit's search record
    if len(df):
        df["model"] = [run_name(m, t) for m, t in zip(df.model, df.train)]
    return df


def precision_table(df: pd.DataFrame, cfg, *, inference: Inference) -> pd.DataFrame:
    """Table 1: precision at K% of QBRank(P2), GBT(L2), RankSVM(P2), QBRank's paired tests
    against each (p, the p adjusted over Table 1's family of 20 — the claims' — and d_z), and
    the paper's numbers; a plug-in's run in a column after them."""
    rows = []
    tests = table1_p(df, inference=inference) if len(df) else {}
    for k in PERCENTS:
        m = f"prec@{k}%"
        row = {"K%": k}
        for key in ("qbrank_P2", "gbt_L2", "ranksvm_P2"):
            row[LABELS[key]] = float(df[df.model == key][m].mean()) if (df.model == key).any() else float("nan")
        for base, short in TABLE1_PAIRS:
            p, p_adj, c = tests.get((k, base), (np.nan, np.nan, None))
            row[f"p(QB vs {short})"], row[f"p_adj(QB vs {short})"] = p, p_adj
            row[f"d_z(QB vs {short})"] = c.dz if c is not None else np.nan
        row["paper QBRank"], row["paper GBT"], row["paper RankSVM"] = PAPER_TABLE1[k]
        for run in plugin_runs(cfg):
            row[run_label(run, cfg)] = float(df[df.model == run][m].mean()) if (df.model == run).any() else np.nan
        rows.append(row)
    return pd.DataFrame(rows)


def dcg_table(df: pd.DataFrame, cfg) -> pd.DataFrame:
    """DCG-5 on L3 at the last iteration per run: mean and CI half-width over trials."""
    rows = []
    for key in (*MODELS, *plugin_runs(cfg)):
        g = df[df.model == key]
        if len(g):
            s = an.summary(g[DCG5].values)              # the trials where it is defined
            rows.append({"run": run_label(key, cfg), "trials": s.n, "DCG-5": s.mean, "± (95% CI)": (s.ci_high - s.ci_low) / 2})
    return pd.DataFrame(rows)


def sizes_of(df: pd.DataFrame) -> dict:
    """The data design's sizes (trial 0's record: the first in the store's order)."""
    return df["info"].iloc[0]["sizes"] if len(df) else {}


def realized_params(df: pd.DataFrame) -> dict:
    """Trial -> the (η, leaves) its tree runs used (``info["shared_params"]``; older records
    gain it from their own ``eta``/``leaves`` in :mod:`ltrrepro.migrations`); a trial whose runs
    disagree maps to a set."""
    out: dict = {}
    for t, info in zip(df.trial, df["info"]) if len(df) else ():
        if not isinstance(info, dict):
            continue
        sp = info.get("shared_params")
        if sp:
            out.setdefault(int(t), set()).add((float(sp["eta"]), int(sp["leaves"])))
    return out


def params_text(realized: dict) -> str:
    """The realized (η, leaves) in words: one pair for all trials, or per trial."""
    pairs = {p for v in realized.values() for p in v}
    if not pairs:
        return "η and leaves: not recorded"
    if len(pairs) == 1:
        (eta, leaves), = pairs
        return f"every tree run of every trial at η {eta:g} and {leaves} leaves"
    return "η/leaves per trial: " + "; ".join(
        f"trial {t}: " + ", ".join(f"{e:g}/{n}" for e, n in sorted(v)) + ("" if len(v) == 1 else " (not shared)")
        for t, v in sorted(realized.items()))


def run_deviations(trials: int, sizes: dict, realized: dict | None = None) -> list[str]:
    """What this run's results add to the configuration's deviations: a single trial; an L1
    share far from the paper's; realized (η, leaves) other than the paper's 0.05 and 20."""
    out = []
    pairs = {p for v in (realized or {}).values() for p in v}
    if pairs and pairs != {(PAPER_ETA, PAPER_LEAVES)}:        # the paper's: an "as the paper" note of the config
        out.append(f"realized {params_text(realized)}, not the paper's η {PAPER_ETA:g} and {PAPER_LEAVES} leaves "
                   "for all six runs")
    if trials < 2:
        out.append("a single trial: no significance test")
    if sizes:
        n_q = sizes["L1_queries"] + sizes["L2_queries"] + sizes["V_queries"] + sizes["L3_queries"]
        share = sizes["L1_queries"] / n_q
        if abs(share - PAPER_L1_SHARE) > 0.1:
            out.append(f"L1 (single-grade queries) is {100 * share:.0f}% of the queries, the paper's "
                       f"≈{100 * PAPER_L1_SHARE:.0f}%")
    return out


def figure(df: pd.DataFrame, cfg, trials: int) -> Figure:
    """Figure 1: DCG-5 on L3 against iterations of the five tree runs (mean, 95% band), RankSVM flat."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 3.8))
    for key in (*MODELS[:-1], *plugin_runs(cfg)):         # the tree runs (RankSVM: a line)
        cs = df[(df.model == key) & df.test_curve_dcg5.map(bool)] if len(df) else df
        if not len(cs):
            continue
        pts = np.asarray(cs.curve_points.iloc[0])
        arr = np.array(list(cs.test_curve_dcg5))
        mean = arr.mean(0)
        half = 1.96 * arr.std(0, ddof=1) / np.sqrt(len(cs)) if len(cs) > 1 else np.zeros_like(mean)
        band(ax, pts, mean, mean - half, mean + half, run_label(key, cfg), marker=None)
    svm = df[df.model == "ranksvm_P2"][DCG5] if len(df) else []
    if len(svm):
        ax.axhline(svm.mean(), color="k", ls="--", lw=1, label="RankSVM(P2)")
    ax.set_xlabel("boosting iterations")
    ax.set_ylabel("DCG-5 on L3")
    ax.set_title(f"{cfg.dataset}: DCG-5 vs iterations ({trials} trials, 95% band)", fontsize=9)
    ax.legend(fontsize=7)
    return Figure("fig1_dcg_iterations", fig)


def build(df: pd.DataFrame, cfg, deviations=(), choices=(), as_paper=(), *, inference: Inference) -> Report:
    """The report of a Zheng run: its :func:`frame` and configuration; the deviations and
    choices stored with it, to which :func:`run_deviations` adds."""
    trials = int(df.groupby("model").size().max()) if len(df) else 0
    sizes = sizes_of(df)
    realized = realized_params(df)
    how = "tuned once per trial on GBT(L2)'s validation DCG-5" if cfg.shared_params == "tuned" else "fixed"
    table, dcg = precision_table(df, cfg, inference=inference), dcg_table(df, cfg)
    fmt = lambda v: f"{v:.4f}"  # noqa: E731
    return Report(
        title=f"Zheng et al. Table 1 — precision at K% on P3 ({cfg.dataset}, {cfg.library})",
        tables=[Table("table1_precision", table, caption=f"Precision at K% ({cfg.dataset})", notes=True,
                      legend=f"Precision at K% on P3, mean over {trials} trial(s); p: {TEST_NAMES[inference.test]}s "
                             f"of QBRank(P2) against each baseline, paired by trial; p_adj: "
                             f"{CORRECTION_NAMES[inference.correction]} over Table 1's {2 * len(PERCENTS)} tests (the "
                             f"per-K claims' family and p: the second reading). The paper's claim, QBRank outperforms "
                             f"both baselines at every K, is judged as an intersection–union test: every K "
                             f"significant at α = {inference.alpha:g}, no correction (its p: the largest). d_z: mean/SD of the per-trial differences (its CI in the "
                             f"claims). {params_text(realized)} ({how}; the paper: η "
                             f"{PAPER_ETA:g}, {PAPER_LEAVES} leaves for all six runs), {cfg.rounds} iterations (the "
                             f"harness's choice; the paper gives none). Paper: Zheng et al. Table 1 (proprietary "
                             f"data). Sizes (trial 0): {sizes}.",
                      formats={**{c: "p" for c in table.columns if c.startswith("p(") or c.startswith("p_adj(")},
                               **{c: 2 for c in table.columns if c.startswith("d_z(")}}),
                Table("dcg5", dcg, caption="DCG-5 on L3 at the last iteration", pm_cols={"DCG-5": "± (95% CI)"},
                      legend=f"Mean ± half-width of the 95% CI over trials; {params_text(realized)}. Gain 2^g − 1 "
                             f"(the paper gives none); "
                             f"RankSVM DCG-5 in the paper: {PAPER_RANKSVM_DCG5:g} (different data and gains).")],
        figures=[figure(df, cfg, trials)], claims=claims(df, cfg, inference=inference) + trend_claims(df, inference=inference),
        deviations=[*deviations, *run_deviations(trials, sizes, realized)], choices=list(choices),
        as_paper=list(as_paper),
        missing=an.missing_notes(df, [f"prec@{k}%" for k in PERCENTS] + [DCG5]),
        lines=[table.to_string(index=False, float_format=fmt), "", dcg.to_string(index=False, float_format=fmt),
               params_text(realized), f"sizes: {sizes}"],
        inference=inference, claims_caption="Claims check (Zheng et al.)", claims_extra={"sizes": sizes})


