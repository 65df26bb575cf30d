"""The debiasing study's report: pure builders (frame, config) -> tables, figures and claims
(:mod:`.claims`), composed by :func:`build` (the registry's ``Experiment.report`` reads the store and writes it).

Tables: ``main`` (every arm at the default point: NDCG@1/3/5/10 with 95% CIs, Δ NDCG@10 against
naive λMART), ``sweep_<field>`` (NDCG@10 of the sweep arms along sessions, η, the logger's share,
the click model), ``propensity`` (each method's estimated examination curve against the truth,
RMSE), ``clicks`` (the click logs' statistics); a figure per sweep and the recovery figure.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from experiments import analysis as an
from experiments.hu2019.claims import build_claims
from experiments.hu2019.protocol import ARMS, CURVE_POSITIONS, NDCG10, SETTING, TEST_METRICS, DebiasingConfig
from ltrrepro.inference import TEST_NAMES, Inference
from ltrrepro.report import Figure, Report, Table, band

FIELDS = ("clicks", "true_curve", "biases", "logger")
XLABEL = {"sessions": "sessions per query (log scale)", "eta": "position-bias severity η",
          "share": "logging ranker's labelled share of training queries", "click": "click model"}


def frame(store) -> pd.DataFrame:
    df = an.frame(store, fields=FIELDS)
    if len(df):
        df["sessions"] = df.sessions.astype(int)
        df["eta"] = df.eta.astype(float)
        df["share"] = df.share.astype(float)
    return df


def at(df: pd.DataFrame, cfg: DebiasingConfig, **free) -> pd.DataFrame:
    """The rows at the default point, except the fields named in ``free`` (True: any value)."""
    base = dict(cfg.default_setting)
    mask = np.ones(len(df), bool)
    for f in SETTING:
        if not free.get(f):
            mask &= (df[f] == base[f]).to_numpy()
    return df[mask]


def _mean_ci(values) -> tuple[float, float, float]:
    s = an.summary(values)
    return s.mean, s.ci_low, s.ci_high


def main_table(df: pd.DataFrame, cfg, inference: Inference) -> Table:
    g = at(df, cfg)
    rows = []
    for arm in [a for a in (*ARMS, *dict(cfg.plugins)) if a in set(g.model)]:
        h = g[g.model == arm]
        row = {"arm": cfg.arm(arm).label, "key": arm, "trials": len(h)}
        for m in TEST_METRICS:
            row[an.label(m)], row[f"{an.label(m)}_lo"], row[f"{an.label(m)}_hi"] = _mean_ci(h[m])
        c = an.compare(g, NDCG10, arm, "naive", test=inference.test) if arm != "naive" and "naive" in set(g.model) \
            else None
        row.update({"Δ vs naive": c.diff if c else np.nan, "Δ_lo": c.ci_low if c else np.nan,
                    "Δ_hi": c.ci_high if c else np.nan, "p": c.p if c else np.nan})
        rows.append(row)
    t = pd.DataFrame(rows)
    labels = [an.label(m) for m in TEST_METRICS]
    return Table("main", t, caption=f"Learning from biased clicks at the default point ({cfg.dataset}, "
                                    f"{cfg.sessions} sessions/query, η {cfg.eta:g}, logger share {cfg.share:g}, "
                                    f"{cfg.click_model})", notes=True,
                 legend="Mean test NDCG over trials on the test queries' expert labels, 95% CI. Δ vs naive: paired "
                        f"difference of NDCG@10 against λMART on raw clicks, 95% CI, p: {TEST_NAMES[inference.test]}.",
                 formats={"p": "p"}, ci_cols={**{lb: (f"{lb}_lo", f"{lb}_hi") for lb in labels},
                                              "Δ vs naive": ("Δ_lo", "Δ_hi")})


def sweep(df: pd.DataFrame, cfg, field: str, inference: Inference) -> pd.DataFrame:
    """NDCG@10 of the sweep arms along ``field`` (the other fields at the default point)."""
    g = at(df, cfg, **{field: True})
    g = g[g.model.isin(cfg.sweep_models) | (g.model == "naive")]
    rows = []
    for (value, arm), h in g.groupby([field, "model"]):
        mean, lo, hi = _mean_ci(h[NDCG10])
        c = an.compare(g[g[field] == value], NDCG10, arm, "naive", test=inference.test) if arm != "naive" else None
        rows.append({field: value, "arm": arm, "trials": len(h), "logger NDCG@10": _logger_ndcg(g[g[field] == value]),
                     "NDCG@10": mean, "lo": lo, "hi": hi,
                     "Δ vs naive": c.diff if c else np.nan, "p": c.p if c else np.nan})
    return pd.DataFrame(rows, columns=[field, "arm", "trials", "logger NDCG@10", "NDCG@10", "lo", "hi", "Δ vs naive",
                                       "p"])


def sweep_figure(res: pd.DataFrame, cfg, field: str) -> Figure:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5.2, 3.6))
    values = sorted(res[field].unique(), key=str)
    xs = {v: i for i, v in enumerate(values)} if field == "click" else None
    for arm, h in res.groupby("arm"):
        h = h.sort_values(field)
        x = [xs[v] for v in h[field]] if xs else h[field].astype(float)
        band(ax, x, h["NDCG@10"], h.lo, h.hi, cfg.arm(arm).label)
    if xs:
        ax.set_xticks(range(len(values)), values)
    elif field == "sessions":
        ax.set_xscale("log")
    ax.set_xlabel(XLABEL[field])
    ax.set_ylabel("test NDCG@10 (expert labels)")
    ax.set_title(f"{cfg.dataset}: {field} sweep ({int(res.trials.max()) if len(res) else 0} trials, 95% CI)",
                 fontsize=9)
    ax.legend(fontsize=6, loc="best")
    return Figure(f"sweep_{field}", fig)


def propensity(df: pd.DataFrame, cfg) -> tuple[pd.DataFrame, pd.DataFrame]:
    """``(curves, errors)``: per method and position the mean estimated θ_r/θ_1 (t⁺^{1+p}) over
    trials and the mean true curve; per method the RMSE over positions 2..10 (mean, 95% CI)."""
    g = at(df, cfg)
    # IPS: its estimator is ulm's; ulm_off estimates nothing (every bias 1)
    g = g[g.biases.notna() & ~g.model.map(lambda m: bool(cfg.arm(m).propensity) or not cfg.arm(m).update)]
    curves, errors = [], []
    for arm, h in g.groupby("model"):
        est = np.array([np.asarray(b["propensity"][:CURVE_POSITIONS], float) for b in h.biases])
        true = np.array([np.asarray(c[:CURVE_POSITIONS], float) for c in h.true_curve])
        n = min(est.shape[1], true.shape[1])
        rmse = np.sqrt(((est[:, 1:n] - true[:, 1:n]) ** 2).mean(axis=1))
        mean, lo, hi = _mean_ci(rmse)
        errors.append({"arm": arm, "method": cfg.arm(arm).label,
                       "trials": len(h), "RMSE": mean, "lo": lo, "hi": hi})
        for r in range(n):
            curves.append({"arm": arm, "position": r + 1, "estimated": est[:, r].mean(), "true": true[:, r].mean()})
    return pd.DataFrame(curves, columns=["arm", "position", "estimated", "true"]), \
        pd.DataFrame(errors, columns=["arm", "method", "trials", "RMSE", "lo", "hi"])


def propensity_figure(curves: pd.DataFrame, df: pd.DataFrame, cfg) -> Figure:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax, ax2) = plt.subplots(1, 2, figsize=(9, 3.6))
    for arm, h in curves.groupby("arm"):
        ax.plot(h.position, h.estimated, marker="o", ms=3, label=cfg.arm(arm).label)
    if len(curves):
        t = curves.groupby("position").true.mean()
        ax.plot(t.index, t.values, color="black", lw=2, ls="--", label="true θ_r/θ_1")
    ax.set_xlabel("position")
    ax.set_ylabel("examination relative to position 1")
    ax.set_title("propensity recovery (default point)", fontsize=9)
    ax.legend(fontsize=6)
    g = at(df, cfg)
    if len(g):
        shares = np.array([c["click_share_by_position"][:CURVE_POSITIONS] for c in g.clicks])
        ax2.bar(np.arange(1, shares.shape[1] + 1), shares.mean(axis=0), color="tab:gray")
    ax2.set_xlabel("position")
    ax2.set_ylabel("share of clicks")
    ax2.set_title("where the clicks fall (default point)", fontsize=9)
    return Figure("propensity", fig)


def _logger_ndcg(h: pd.DataFrame) -> float:
    """Mean over trials of the logging ranker's test NDCG@10 (recorded by every unit; NaN in runs
    recorded before it was)."""
    if "logger" not in h:
        return np.nan
    vals = [v.get(NDCG10, np.nan) for v in h.drop_duplicates("trial").logger if isinstance(v, dict)]
    return float(np.mean(vals)) if vals else np.nan


def click_table(df: pd.DataFrame, cfg) -> Table:
    """The click logs per setting and the conditions they were drawn under: the logger's test
    NDCG@10 beside the skyline's (the skyline, on expert labels, does not depend on the setting:
    its trials at the default point), and the probability that a session had a click."""
    sky = df[df.model == "skyline"]
    sky_ndcg = float(sky.drop_duplicates("trial")[NDCG10].mean()) if len(sky) else np.nan
    rows = []
    for key, h in df.groupby(list(SETTING)):
        first = h.drop_duplicates("trial")
        st = list(first.clicks)
        rows.append({**dict(zip(SETTING, key)), "trials": len(st),
                     "logger NDCG@10": _logger_ndcg(h), "skyline NDCG@10": sky_ndcg,
                     "P(session clicked)": np.mean([s.get("p_click", np.nan) for s in st]),
                     "clicks/session": np.mean([s["clicks_per_session"] for s in st]),
                     "clicks at 1": np.mean([s["click_share_by_position"][0] for s in st]),
                     f"clicks at {CURVE_POSITIONS}": np.mean([s["click_share_by_position"][-1] for s in st]),
                     "CTR at 1": np.mean([s["ctr_by_position"][0] for s in st])})
    return Table("clicks", pd.DataFrame(rows), caption="Click logs per setting and the logger that drew them",
                 legend="Means over trials. logger NDCG@10: the logging ranker's test NDCG@10 on expert labels, beside "
                        "the skyline's (λMART on every training label; the same in every row); P(session clicked): "
                        "the chance that a session has a click before any re-draw; clicks/session (after re-drawing, "
                        "if the run re-draws); share of all clicks at positions 1 and 10; click-through rate at "
                        "position 1.", notes=True)


def build(df: pd.DataFrame, cfg: DebiasingConfig, deviations=(), choices=(), as_paper=(), *,
          inference: Inference) -> Report:
    tables, figures, lines = [main_table(df, cfg, inference)], [], []
    for field, values in (("sessions", cfg.sweep_sessions), ("eta", cfg.sweep_eta), ("share", cfg.sweep_share),
                          ("click", cfg.sweep_click)):
        if not values:
            continue
        res = sweep(df, cfg, field, inference)
        tables.append(Table(f"sweep_{field}", res, caption=f"NDCG@10 along {XLABEL[field]}", notes=True,
                            legend="Mean test NDCG@10 over trials, 95% CI; Δ vs naive: paired difference against "
                                   f"λMART on raw clicks at the same value, p: {TEST_NAMES[inference.test]}; logger "
                                   "NDCG@10: the logging ranker's test NDCG@10 at that value (the logger-quality "
                                   "axis of the share sweep).",
                            formats={"p": "p"}, ci_cols={"NDCG@10": ("lo", "hi")}))
        figures.append(sweep_figure(res, cfg, field))
    curves, errors = propensity(df, cfg)
    tables += [Table("propensity", errors, caption="Propensity recovery at the default point", notes=True,
                     legend="RMSE over positions 2..10 between a method's estimated examination curve (t⁺^{1+p}, "
                            "relative to position 1) and the simulator's, mean over trials, 95% CI.",
                     ci_cols={"RMSE": ("lo", "hi")}),
               Table("propensity_curves", curves, caption="Estimated and true examination by position"),
               click_table(df, cfg)]
    figures.append(propensity_figure(curves, df, cfg))
    main = tables[0].frame
    lines += ["Default point (test NDCG@10):",
              *(f"  {r.arm:<48} {r['NDCG@10']:.4f} [{r['NDCG@10_lo']:.4f}, {r['NDCG@10_hi']:.4f}]"
                for _, r in main.iterrows()), "", "Propensity recovery (RMSE):",
              *(f"  {r.method:<48} {r.RMSE:.4f}" for _, r in errors.iterrows()), ""]
    return Report(title=f"Learning to rank from biased clicks — Hu et al. 2019's protocol ({cfg.dataset}, "
                        f"{cfg.library}, preset {cfg.preset}, {cfg.trials} trial(s))",
                  tables=tables, figures=figures, claims=build_claims(df, cfg, inference=inference),
                  deviations=list(deviations),
                  choices=list(choices), as_paper=list(as_paper), missing=an.missing_notes(df, TEST_METRICS), lines=lines,
                  inference=inference,
                  claims_caption="Claims check (debiasing)",
                  json_files={"summary.json": {"main": main.to_dict(orient="records"),
                                               "propensity": errors.to_dict(orient="records")}})
