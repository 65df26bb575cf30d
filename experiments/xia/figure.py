"""Xia et al.'s Figure 2 from a run's frame: OLE − SE against the rounds (a pure function of
(frame, configuration), part of :mod:`experiments.xia.report`)."""
from __future__ import annotations

import numpy as np

from experiments import analysis as an
from experiments.xia.protocol import METRICS
from ltrrepro.report import Figure

METRIC_LABELS = {m: an.label(m) for m in METRICS}


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
