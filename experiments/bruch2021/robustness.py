"""Bruch Figure 3a–d: robustness of λMART and XE_NDCG MART to noise in the training data.

    python -m experiments.robustness [--dataset web30k --data-dir DIR] [--noise documents,labels]
                                     [--levels 0,20,40,60,80,100] [--trials N] [--jobs J]

``--noise documents``: every training list grows by LEVEL % with documents sampled from
other training lists, labelled 0. ``--noise labels``: LEVEL % of each training list's labels
are redrawn with probabilities .5/.2/.15/.1/.05 for 0–4. Validation and test data are
untouched (Bruch 2021 §5.4; docs/protocols/bruch2021.md §6). Level 0 is one shared setting. Both models of a trial see the
same split and the same noisy data (paired design); λMART is the library's LambdaMART
(LightGBM ``lambdarank``, σ = 1, no normalization; XGBoost ``rank:ndcg`` with
``--library xgboost``) and XE_NDCG MART is ltrrepro's objective.

Writes, under the results directory: ``tables/robustness.{md,tex,csv}`` (mean NDCG@5 per
model and level, the difference, its 95% CI, paired t-test p, Holm-corrected p over the
levels of a noise type, wins/ties/losses), ``figures/fig3_<noise>.{png,pdf}`` and the
claims check ``claims.{md,json}``. With no arguments it runs on the synthetic Web30K
profile at a size that finishes in about 3–4 minutes on 2 cores (the README's main job).
"""
from __future__ import annotations

import sys

import numpy as np
import pandas as pd
from scipy import stats as st

from experiments import analysis as an
from experiments.bruch2021.protocol import NDCG5, BruchConfig, config_from_args, model_label, train_size, unit_fn
from experiments.cli import cli, make_parser, parse_levels
from experiments.study import config_or_manifest, execute
from ltrrepro.report import (band, claims_text, file_stem, protocol_notes, report_outputs, save_figure, write_claims,
                             write_json, write_table)
from ltrrepro.runner import Unit
from ltrrepro.stats import paired_test, summarize

EXPERIMENT = "robustness"
MODELS = ("lambdamart", "xendcg")
NOISES = ("documents", "labels")
ALPHA = 0.01


def check_levels(levels_text: str, noise_text: str) -> tuple[tuple, tuple]:
    """(levels, noise types) of the command line; their validity is checked by the
    configuration (:func:`experiments.bruch2021.checks.check_settings`), as for a manifest."""
    return tuple(parse_levels(levels_text)), tuple(n.strip() for n in noise_text.split(",") if n.strip())


def build_units(cfg: BruchConfig) -> list[Unit]:
    settings = []
    if 0 in cfg.levels:
        settings.append((("noise", "none"), ("level", 0)))
    for n in cfg.noise:
        settings += [(("noise", n), ("level", lv)) for lv in cfg.levels if lv != 0]
    return [Unit(EXPERIMENT, cfg.unit_dataset, t, m, s, seed=cfg.seed)
            for t in range(cfg.trials) for s in settings for m in cfg.models]


def _expand_level0(df: pd.DataFrame) -> pd.DataFrame:
    """Level 0 (no noise) belongs to every noise type's curve."""
    base = df[df.noise == "none"]
    parts = [df[df.noise != "none"]]
    for n in NOISES:
        if (df.noise == n).any() or not (df.noise != "none").any():
            parts.append(base.assign(noise=n))
    return pd.concat(parts, ignore_index=True)


#: the paper's pair, and how its tables name the two models
PAPER_PAIR = ("xendcg", "lambdamart")
SHORT = {"xendcg": ("XE_NDCG", "XE"), "lambdamart": ("λMART", "λ")}


def _names(model: str, cfg: dict) -> tuple[str, str]:
    """(column name, short name) of a model in the tables."""
    if model in SHORT:
        return SHORT[model]
    label = model_label(model, cfg)
    return label, label


def analyse(df: pd.DataFrame, metric: str = NDCG5, a: str = "xendcg", b: str = "lambdamart") -> pd.DataFrame:
    """Per noise type and level: both models' means and CIs, the paired difference ``a − b``
    and its tests (columns named by the models' keys)."""
    rows = []
    df = _expand_level0(df)
    for noise, g in df.groupby("noise"):
        for level, h in g.groupby("level"):
            if len(an.paired(h, metric, a, b, dropna=False)) == 0:
                continue
            pr = an.paired(h, metric, a, b)          # the trials where both are defined (maybe none)
            c = paired_test(pr.a.values, pr.b.values)
            sa, sb = summarize(pr.a.values), summarize(pr.b.values)
            rows.append({"noise": noise, "level": float(level), "trials": c.n, b: sb.mean,
                         f"{b}_lo": sb.ci_low, f"{b}_hi": sb.ci_high, a: sa.mean,
                         f"{a}_lo": sa.ci_low, f"{a}_hi": sa.ci_high, "diff": c.diff, "diff_lo": c.ci_low,
                         "diff_hi": c.ci_high, "sd": c.std_diff, "p": c.p, "wins": c.wins, "ties": c.ties, "losses": c.losses})
    out = pd.DataFrame(rows, columns=["noise", "level", "trials", b, f"{b}_lo", f"{b}_hi", a, f"{a}_lo", f"{a}_hi",
                                      "diff", "diff_lo", "diff_hi", "sd", "p", "wins", "ties", "losses"])
    out = out.sort_values(["noise", "level"]).reset_index(drop=True)
    out["p_holm"] = an.holm_within(out, "noise") if len(out) else []
    return out


def claims(df: pd.DataFrame, metric: str = NDCG5, a: str = "xendcg", b: str = "lambdamart", names=None) -> list[dict]:
    """'``b`` degrades faster than ``a``' per noise type: the per-trial least-squares slope
    of the difference (a − b) against the level, tested > 0 over trials (one-sample t-test,
    two-sided p). The paper's claim for (XE_NDCG, λMART)."""
    out = []
    df = _expand_level0(df)
    (na, sa), (nb, sb) = names or (SHORT[a], SHORT[b])
    for noise in sorted(set(df.noise) - {"none"}):
        g = df[df.noise == noise]
        if g.empty or g.level.nunique() < 2:
            continue
        pr = an.paired(g, metric, a, b, by=("level",))
        slopes = []
        for _, h in pr.groupby("trial"):
            if h.level.nunique() == g.level.nunique():
                slopes.append(np.polyfit(h.level.astype(float), (h.a - h.b).values, 1)[0])
        slopes = np.asarray(slopes)
        if slopes.size >= 2 and slopes.std(ddof=1) > 0:
            p, missing = float(st.ttest_1samp(slopes, 0.0).pvalue), None
        else:                                    # trials with a value at every level: none, one, all alike
            p = float("nan")
            missing = an.no_test_reason(slopes.size, slopes.std(ddof=1) if slopes.size > 1 else None,
                                        metric if g[metric].isna().any() else None)
        mean = float(slopes.mean()) if slopes.size else float("nan")
        lv = sorted(g.level.unique())
        drop = {m: float(g[(g.model == m) & (g.level == lv[0])][metric].mean()
                         - g[(g.model == m) & (g.level == lv[-1])][metric].mean()) for m in (a, b)}
        claim = {"documents": f"{nb} degrades faster than {na} as documents are added",
                 "labels": f"{nb} degrades faster than {na} as labels are perturbed",
                 "clicks": f"{na} is more robust to click noise ({nb} degrades faster as non-relevant "
                           "documents are clicked more)"}[noise]
        out.append(an.claim(claim, mean, p, slopes.size,
                            f"slope {mean:+.2e} per level point over {slopes.size} trials; NDCG@5 drop from "
                            f"level {lv[0]:g} to {lv[-1]:g}: {nb} {drop[b]:+.4f}, {na} {drop[a]:+.4f}" if slopes.size
                            else f"no trial with NDCG@5 defined at every level", alpha=ALPHA, noise=noise, missing=missing,
                            statistic=f"mean per-trial slope of NDCG@5 difference ({na} − {nb}) per level point"))
    return out


def level_claims(res: pd.DataFrame, names, noise: str = "clicks") -> list[dict]:
    """Appendix E's claim: XE_NDCG MART beats λMART at *every* click-noise level, each
    difference significant. One claim per level (paired t-test over trials; the paper gives
    no per-level number, so no power), then the claim itself: supported only when every
    level is, contradicted when any level is."""
    (na, _), (nb, _) = names
    g = res[res.noise == noise] if len(res) else res
    out = []
    for _, r in g.iterrows():
        missing = an.no_test_reason(int(r.trials), r.sd, NDCG5) if not np.isfinite(r.p) else None
        out.append(an.claim(f"{na} beats {nb} at click level {r.level:g}", r["diff"], r.p, int(r.trials),
                            f"Δ NDCG@5 {r['diff']:+.4f} (95% CI {r.diff_lo:+.4f}..{r.diff_hi:+.4f}), W/T/L "
                            f"{int(r.wins)}/{int(r.ties)}/{int(r.losses)}" if r.trials else "Δ NDCG@5: no defined pair",
                            alpha=ALPHA, noise=noise, level=float(r.level), sd=r.sd, missing=missing))
    if out:
        verdicts = [c["verdict"] for c in out]
        k = verdicts.count("supported")
        untested = [c["verdict"] for c in out if not np.isfinite(c["p"])]
        v = ("supported" if k == len(out) else "contradicted" if "contradicted" in verdicts
             else untested[0] if len(untested) == len(out) else f"not supported ({k} of {len(out)} levels significant)")
        worst = max((c["p"] for c in out if np.isfinite(c["p"])), default=float("nan"))
        out.append(an.claim(f"{na} beats {nb} at every click level, each significant (appendix E)",
                            float(k), worst, int(g.trials.min()),
                            f"{k} of {len(out)} levels supported at α = {ALPHA:g}; value: the levels supported, p: "
                            f"the largest per-level p", alpha=ALPHA, verdict_text=v, noise=noise))
    return out


XLABELS = {"documents": "% increase in list length (extra negatives)", "labels": "% of labels perturbed",
           "clicks": "click probability of non-relevant documents"}


def pairs_of(cfg: dict, models) -> list[tuple[str, str, str]]:
    """(a, b, file suffix) of every comparison: the paper's pair (XE_NDCG vs λMART) when both
    ran, then each plug-in against the baseline."""
    out = [(*PAPER_PAIR, "")] if set(PAPER_PAIR) <= set(models) else []
    base = cfg.get("baseline", "lambdamart")
    for key, _ in cfg.get("plugins", []):
        if key != base and key in models and base in models:       # never a plug-in against itself
            out.append((key, base, "_" + file_stem(key)))      # file names: no dots, one per plug-in
    return out


@report_outputs
def report(store, name: str = "robustness", figure: str = "fig3", title: str = "Bruch Figure 3 — robustness") -> dict:
    """Tables, figures and claims of a noise-level experiment (also used by ``clicks``): one
    table and figure set per comparison (:func:`pairs_of`), one claims check for all."""
    df = an.frame(store)
    cfg = store.read_manifest()["config"]
    root = store.root
    devs = cfg["deviations"]
    choices = cfg.get("choices", [])
    files, cl, texts, summary = [], [], [], {}
    missing = an.missing_notes(df, [NDCG5])            # none in a normal run
    for a, b, suffix in pairs_of(cfg, set(df.model) if len(df) else set()):
        names = (_names(a, cfg), _names(b, cfg))
        res = analyse(df, a=a, b=b)
        cl += claims(df, a=a, b=b, names=names)
        if "clicks" in set(res.noise):
            cl += level_claims(res, names)
        f, text = _pair_outputs(res, cfg, root, a, b, names, name + suffix, figure, suffix, devs, choices, missing)
        files += f
        texts += [text, ""]
        summary[a + "-" + b] = res.to_dict(orient="records")
    text = [f"{title} ({cfg['dataset']}, {cfg['library']}, preset {cfg['preset']})",
            *(f"Missing: {m}" for m in missing), *texts,
            *claims_text(cl, devs, ALPHA, choices)]
    files += write_claims(root, cl, devs, f"Claims check ({title})", ALPHA, choices=choices)
    files.append(write_json(root / "summary.json", {"table": summary.get("xendcg-lambdamart", []),
                                                   "comparisons": summary}))
    return {"text": "\n".join(text), "files": files, "claims": cl}


def _pair_outputs(res, cfg, root, a, b, names, table_name, figure, suffix, devs, choices=(), missing=()):
    (na, sa), (nb, sb) = names
    long_a = "XE_NDCG MART" if a == "xendcg" else na
    d = f"Δ ({sa}−{sb})"
    table = res[["noise", "level", "trials", b, a, "diff", "diff_lo", "diff_hi", "p", "p_holm",
                 "wins", "ties", "losses"]].copy()
    table["sig"] = np.where(table.p_holm < ALPHA, "*", "")
    table = table.rename(columns={b: nb, a: na, "diff": d, "diff_lo": "Δ 95% lo", "diff_hi": "Δ 95% hi"})
    trials = int(res.trials.max()) if len(res) else 0
    legend = (f"Mean test NDCG@5 over trials. Δ = {na} − {nb} (paired by trial), 95% CI; p: paired t-test; "
              f"p (Holm): Holm over the levels of a noise type; * p (Holm) < {ALPHA}. W/T/L = trials where {na} "
              f"wins/ties/loses. {protocol_notes(devs, choices)}" + "".join(f" Missing: {m}." for m in missing))
    files = write_table(table, root / "tables" / table_name,
                        caption=f"Robustness to training noise ({cfg['dataset']}, library {cfg['library']})",
                        legend=legend, formats={"level": "g", "p": "p", "p_holm": "p"},
                        ci_cols={d: ("Δ 95% lo", "Δ 95% hi")}, marks={d: "sig"},
                        rename={d: f"{d} [95% CI]", "p_holm": "p (Holm)"})
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    for noise, g in res.groupby("noise"):
        fig, ax = plt.subplots(figsize=(5, 3.6))
        band(ax, g.level, g[b], g[f"{b}_lo"], g[f"{b}_hi"], nb, color="tab:blue")
        band(ax, g.level, g[a], g[f"{a}_lo"], g[f"{a}_hi"], long_a, color="tab:orange", marker="s")
        ax.set_xlabel(XLABELS[noise])
        ax.set_ylabel("test NDCG@5")
        ax2 = ax.twinx()
        band(ax2, g.level, g["diff"], g.diff_lo, g.diff_hi, f"Δ ({long_a.replace(' MART', '')} − {nb})",
             color="tab:green", marker="^")
        ax2.axhline(0, color="tab:green", lw=0.5, ls=":")
        ax2.set_ylabel("Δ NDCG@5", color="tab:green")
        lines = ax.get_lines()[:2] + ax2.get_lines()[:1]
        ax.legend(lines, [ln.get_label() for ln in lines], fontsize=7, loc="best")
        ax.set_title(f"{cfg['dataset']}: {noise} noise ({trials} trials, 95% CI)", fontsize=9)
        files += save_figure(fig, root / "figures" / f"{figure}_{noise}{suffix}")
    return files, table.to_string(index=False, float_format=lambda v: f"{v:.4f}")


@cli
def main(argv=None) -> int:
    ap = make_parser(__doc__, "dataset", "data-dir", "queries", "trials", "library", "preset", "rounds", "device",
                     "baseline", "models", "levels", levels="0,20,40,60,80,100")
    ap.add_argument("--noise", default="documents,labels", help="documents, labels or both (default both)")
    args = ap.parse_args(argv)

    def build(a):
        levels, noises = check_levels(a.levels, a.noise)
        return config_from_args(a, EXPERIMENT, synthetic_trials=6, synthetic_queries=400, default_models=MODELS,
                                noise=noises, levels=levels)

    cfg = config_or_manifest(args, argv, build, BruchConfig, EXPERIMENT)
    return execute(cfg, args, build_units(cfg), unit_fn, report, size_of=train_size)


if __name__ == "__main__":
    sys.exit(main())
