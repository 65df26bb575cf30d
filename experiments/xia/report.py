"""Xia et al. Tables 2/3 and Figure 2 from a run's records: SE/OLE (and RWSE) test metrics side
by side with the paper's, OLE − SE per comparison, final training losses, the OLE − SE curves
against rounds, the claims check (:mod:`.claims`), and the tables of the implementation rather
than of the paper's claims — wall times with OLE's overhead beside the paper's ratio (a timing
of this implementation, never a claim: it depends on the machine and ``--jobs``), and the leaves
per tree of every arm (exact OLE can stop short of the leaf limit under ``--split-rule
positive-gain``). Pure functions of (frame, configuration) composed by :func:`build`; the
registry's one report function reads the store (:func:`frame`) and writes the report.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from experiments import analysis as an
from experiments.xia.claims import claims, systems, text_claims
from experiments.xia.claims_leaf import DECOMPOSITION_LEGEND, decomposition, decomposition_table, split_leaf_arm
from experiments.xia.paper import PAPER_TABLE_NAMES, PAPER_TIME_RATIO, paper_table
from experiments.xia.protocol import METRICS
from ltrrepro.inference import TEST_NAMES, Inference
from ltrrepro.report import Figure, Report, Table

METRIC_LABELS = {m: an.label(m) for m in METRICS}
#: the record fields the report reads beside the means (Figure 2's curves, leaves per tree)
FIELDS = ("curve_points", "curves", "leaves_per_tree")
#: the (leaves, lr) cell a tuned unit (``--tune``) stands in: each arm at its own values (the table "tuning")
TUNED_CELL = (0, 0.0)


def frame(store) -> pd.DataFrame:
    """The analysis frame by fold, with the system (its ``family``) and principle (its
    ``variant``) of each model, its curves and its search's record (``tuned``); a tuned unit,
    which has no grid cell, in :data:`TUNED_CELL`."""
    df = an.frame(store, pair_on="fold", fields=(*FIELDS, "tuned"))
    if len(df):
        if "hp" in df:
            tuned = df.hp.eq("tuned")
            for col, v in zip(("leaves", "lr"), TUNED_CELL):
                df[col] = df[col].where(~tuned, v) if col in df else v
        df["system"] = df.family
        df["principle"] = df.variant
        df["leaves"] = df.leaves.astype(int)
        df["lr"] = df.lr.astype(float)
        df["loss"] = df.train_loss
    return df


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


def time_table(df) -> tuple[pd.DataFrame, str]:
    """Mean seconds per system and principle, OLE / SE and the paper's ratio beside it; the
    seconds of the boosting rounds (``boost_s``) where every record has them, else of the whole
    training (``train_s``)."""
    tcol = "boost_s" if "boost_s" in df and df.boost_s.notna().all() else "train_s"
    times = (df.groupby(["system", "principle"])[tcol].mean().unstack() if len(df) else pd.DataFrame())
    rows = []
    for system in times.index:
        r = {"system": system, **{f"{p.upper()} s": float(times.loc[system, p]) for p in times.columns
                                  if np.isfinite(times.loc[system, p])}}
        if "SE s" in r and "OLE s" in r:
            r["OLE / SE"] = r["OLE s"] / r["SE s"]
            if system in PAPER_TIME_RATIO:              # the paper's systems only (not a plug-in arm)
                r["paper OLE / SE"] = PAPER_TIME_RATIO[system]
        rows.append(r)
    return pd.DataFrame(rows), tcol


def time_legend(tcol: str) -> str:
    """What the wall-time table measures, and why its ratio is no claim."""
    what = ("Seconds in the boosting rounds (objective and trees; binning and the final loss excluded), every arm "
            "in the same learner. " if tcol == "boost_s" else "Seconds per training run. ")
    return (what + "OLE / SE: the ratio of those means — a timing of this implementation (ltrrepro.gbdt's "
            "kernels on this machine, with the run's --jobs sharing its cores), not of the method, so it is reported, "
            "not checked as a claim. Paper OLE / SE: Xia et al.'s own implementation, ≈1.3× for LambdaMART (pairwise: "
            "OLE's pair histograms) and ≈1× for McRank (pointwise: OLE = RWSE).")


LEAVES_LEGEND = ("Leaves per tree over every tree of the arm's runs (all folds and learning rates): mean, "
                 "minimum, and trees below the leaf limit of all trees. Exact-OLE gains can be negative (the pairs "
                 "crossing the children); under the paper's rule (--split-rule leaf-limit, the default) such a split "
                 "is still taken, so trees stop short only where no feasible split is left (min documents per "
                 "leaf); under --split-rule positive-gain a node without a positive gain stays a leaf and the search moves on, "
                 "so a tree can keep the leaf limit with another shape, or stop short when no node is left.")


def leaves_table(df) -> pd.DataFrame:
    """Per system, principle and leaf limit: mean and minimum leaves per tree and trees below
    the limit, from each unit's ``leaves_per_tree`` record (a run made before it was recorded:
    an empty table)."""
    if not len(df) or "leaves_per_tree" not in df:
        return pd.DataFrame()
    rows = []
    order = {p: i for i, p in enumerate(("se", "ole", "rwse"))}
    groups = sorted(df.groupby(["system", "principle", "leaves"]),
                    key=lambda kv: (list(dict.fromkeys(df.system)).index(kv[0][0]), kv[0][2],
                                    order.get(kv[0][1], len(order)), kv[0][1]))
    for (system, principle, limit), g in groups:
        recs = [r for r in g.leaves_per_tree if isinstance(r, dict) and r.get("trees")]
        if not recs:
            continue
        trees = sum(r["trees"] for r in recs)
        rows.append({"system": system, "principle": principle.upper(), "leaves": int(limit),
                     "mean leaves": sum(r["mean"] * r["trees"] for r in recs) / trees,
                     "min leaves": min(r["min"] for r in recs), "trees short": int(sum(r["short"] for r in recs)),
                     "trees": int(trees)})
    return pd.DataFrame(rows)


def figure(df, system, cfg, rates) -> Figure | None:
    """Figure 2 for ``system``: OLE − SE (×100) of each metric against the rounds, one panel per
    learning rate, the mean over the (fold, leaf count) pairs both finished; None without a pair."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(rates), figsize=(3.7 * len(rates), 3.4), sharey=True, squeeze=False)
    axes = axes[0]
    have = False
    rows = df[(df.system == system) & df.principle.isin(("se", "ole"))] if len(df) else df
    for ax, lr in zip(axes, rates):
        by = {}
        for _, r in rows[rows.lr == lr].iterrows() if len(rows) else ():
            by.setdefault((r.fold, r.leaves), {})[r.principle] = r
        pairs = [v for v in by.values() if len(v) == 2]
        for m in METRICS if pairs else ():
            pts = np.asarray(pairs[0]["ole"].curve_points)
            d = np.mean([100 * (np.asarray(v["ole"].curves[m]) - np.asarray(v["se"].curves[m])) for v in pairs], 0)
            ax.plot(pts, d, label=METRIC_LABELS[m])
            have = True
        ax.axhline(0, color="k", lw=0.6)
        ax.set_title(f"{system}, learning rate {lr:g}", fontsize=9)
        ax.set_xlabel("iterations")
    axes[0].set_ylabel("OLE − SE (absolute %)")
    if have:
        axes[0].legend(fontsize=7)
    fig.suptitle(f"Figure 2 ({cfg.dataset}): OLE − SE on the test folds, mean over folds and leaf counts",
                 fontsize=9)
    if not have:
        plt.close(fig)
        return None
    return Figure(f"fig2_{system}", fig)


def build(df, cfg, deviations=(), choices=(), as_paper=(), *, inference: Inference) -> Report:
    """The report of a Xia run: its :func:`frame` and configuration (the trees' growth and leaf
    rule named in the legend are the configuration's). The leaf arm's rows (LambdaMART OLE
    under the other leaf rule) feed only the loss decomposition (:mod:`.claims_leaf`)."""
    df, leaf_arm = split_leaf_arm(df)
    dec = decomposition(df, leaf_arm, cfg.leaf_rule)
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
    dec_table = decomposition_table(dec)
    if len(dec_table):
        out.append(Table("loss_decomposition", dec_table, caption="LambdaMART's final loss: split principle, leaf "
                         "rule and own", digits=3, legend=DECOMPOSITION_LEGEND,
                         formats={"lr": "g", **{c: 1 for c in dec_table if c.startswith("loss ")}}))
    leaves = leaves_table(df)
    if len(leaves):
        out.append(Table("leaves_per_tree", leaves, caption="Leaves per tree", digits=2, legend=LEAVES_LEGEND))
    return Report(
        title=f"Xia et al. Tables 2/3 — SE vs OLE ({cfg.dataset}; paper table: {key or 'none'}), ×100, {folds} "
              f"fold(s); trees {cfg.growth}, leaf rule {cfg.leaf_rule}",
        tables=out, figures=figures, claims=(claims(df, diffs, losses, key, folds, cfg.leaf_rule, inference=inference, decomposed=dec)
                                              + text_claims(df, cfg.dataset, inference=inference)),
        deviations=list(deviations), choices=list(choices), as_paper=list(as_paper),
        missing=an.missing_notes(df, METRICS),
        lines=[table.to_string(index=False, float_format=lambda v: f"{v:.2f}"), "",
               "Final training loss:", losses.to_string(index=False, float_format=lambda v: f"{v:.5g}"), "",
               *(["Loss decomposition (% of SE₈'s loss; test: ×100 points):",
                  dec_table.to_string(index=False, float_format=lambda v: f"{v:.4g}"), ""] if len(dec_table) else []),
               "Wall time:", times.to_string(index=False, float_format=lambda v: f"{v:.3f}"), "",
               *(["Leaves per tree:", leaves.to_string(index=False, float_format=lambda v: f"{v:.2f}"), ""]
                 if len(leaves) else [])],
        inference=inference, claims_caption="Claims check (Xia et al.)")
