"""Bruch (2021)'s claims on Figures 3 and 4 — one run's, and those across its two datasets —
as pure functions of a run's frame (or the two runs' frames):

* "λMART degrades faster than XE_NDCG" as documents are added, labels perturbed, or
  non-relevant documents clicked (:func:`noise_claims`: the per-trial least-squares slope of
  the difference against the level, tested > 0 over trials; one family of the noise types);
* appendix E: "XE_NDCG MART beats λMART at every click level", each significant
  (:func:`level_claims`);
* across datasets (§5.4, on Figure 3): λMART's faster degradation "is more pronounced on the
  Yahoo! dataset" as documents are added (3a/b) and "more pronounced on Web30K" as labels are
  perturbed (3c/d) (:func:`pronounced_claims`). Per run and noise type, each trial gives the
  slope of XE_NDCG − λMART (NDCG@5) against the level — the statistic of the run's own
  "λMART degrades faster" claim; the two runs' slopes are compared, the mean on the dataset
  the paper names minus the mean on the other, by a two-sample test (the runs are
  independent) — Welch's t-test with ``--test t``, Mann–Whitney's U with ``--test wilcoxon``,
  a permutation of the two samples with ``--test permutation``. The paper gives no number:
  they are powered against the run's smallest effect of interest for NDCG over the level
  range, with Welch's power, and "trials for 80%" counts the trials per run, equal in both.
  The two claims form one family, corrected by ``--correction``.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from experiments import analysis as an
from experiments.bruch2021.protocol import NDCG5
from ltrrepro.inference import UNDERPOWERED, Claim, Evidence, Expectation, Inference, correct, judge, smallest_effect
from ltrrepro.inference.claim import conjunction_family
from ltrrepro.inference.power import two_sample_power, trials_for_two_sample_power
from ltrrepro.inference.tests import dz, dz_interval, one_sample_p, two_sample_p

__all__ = ["noise_claims", "level_claims", "pronounced_claims", "trial_slopes", "levels_of", "noise_levels",
           "expand_level0"]

NOISES = ("documents", "labels")
#: how the tables name the paper's two models
SHORT = {"xendcg": ("XE_NDCG", "XE"), "lambdamart": ("λMART", "λ")}


def expand_level0(df: pd.DataFrame) -> pd.DataFrame:
    """Level 0 (no noise) belongs to every noise type's curve."""
    base = df[df.noise == "none"]
    parts = [df[df.noise != "none"]]
    for n in NOISES:
        if (df.noise == n).any() or not (df.noise != "none").any():
            parts.append(base.assign(noise=n))
    return pd.concat(parts, ignore_index=True)


def noise_claims(df: pd.DataFrame, metric: str = NDCG5, a: str = "xendcg", b: str = "lambdamart", names=None, *,
           inference: Inference) -> list[Claim]:
    """'``b`` degrades faster than ``a``' per noise type: the per-trial least-squares slope
    of the difference (a − b) against the level, tested > 0 over trials (the chosen test of
    the slopes, two-sided p; one family of the noise types, corrected within it). The paper's
    claim for (XE_NDCG, λMART)."""
    out = []
    df = expand_level0(df)
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
            p, missing = one_sample_p(slopes, inference.test), None
        else:                                    # trials with a value at every level: none, one, all alike
            p = float("nan")
            missing = an.no_test_reason(slopes.size, slopes.std(ddof=1) if slopes.size > 1 else None,
                                        metric if g[metric].isna().any() else None)
        mean = float(slopes.mean()) if slopes.size else float("nan")
        lv = sorted(g.level.unique())
        drop = {m: float(g[(g.model == m) & (g.level == lv[0])][metric].mean()
                         - g[(g.model == m) & (g.level == lv[-1])][metric].mean()) for m in (a, b)}
        text = {"documents": f"{nb} degrades faster than {na} as documents are added",
                "labels": f"{nb} degrades faster than {na} as labels are perturbed",
                "clicks": f"{na} is more robust to click noise ({nb} degrades faster as non-relevant "
                          "documents are clicked more)"}[noise]
        interest, source = smallest_effect(metric, inference)     # over the whole level range: a slope per point
        span = float(lv[-1]) - float(lv[0])
        detail = (f"slope {mean:+.2e} per level point over {slopes.size} trials; NDCG@5 drop from level {lv[0]:g} "
                  f"to {lv[-1]:g}: {nb} {drop[b]:+.4f}, {na} {drop[a]:+.4f}" if slopes.size else
                  "no trial with NDCG@5 defined at every level")
        sizes = {"dz": dz(slopes), **dict(zip(("dz_low", "dz_high"), dz_interval(dz(slopes), slopes.size)))}
        evidence = Evidence(mean, p, slopes.size, detail, sd=float(slopes.std(ddof=1)) if slopes.size > 1 else
                            float("nan"), missing=missing, effect_sizes=sizes)
        expectation = Expectation(effect=interest / span, family=f"{nb} degrades faster than {na}: one claim per "
                                  f"noise type", effect_source=f"{source} over levels {lv[0]:g}–{lv[-1]:g} (a slope "
                                                               f"of {interest / span:.2e} per level point)")
        out.append(judge(text, evidence, expectation, inference, noise=noise,
                         statistic=f"mean per-trial slope of NDCG@5 difference ({na} − {nb}) per level point"))
    return correct(out, inference)


def level_claims(res: pd.DataFrame, names, noise: str = "clicks", *, inference: Inference) -> list[Claim]:
    """Appendix E's claim: XE_NDCG MART beats λMART at *every* click-noise level, each
    difference significant. One claim per level (the chosen test over trials, its p adjusted
    over the levels as the table's ``p_adj``; the paper gives no per-level number, so powered
    against the effect of interest), then the claim itself: supported only when every level
    is, contradicted when any level is, inconclusive (underpowered) when a level not
    significant was underpowered, else not supported."""
    (na, _), (nb, _) = names
    g = res[res.noise == noise] if len(res) else res
    out = []
    interest, source = smallest_effect(NDCG5, inference)
    for _, r in g.iterrows():
        missing = an.no_test_reason(int(r.trials), r.sd, NDCG5) if not np.isfinite(r.p) else None
        detail = (f"Δ NDCG@5 {r['diff']:+.4f} (95% CI {r.diff_lo:+.4f}..{r.diff_hi:+.4f}), W/T/L "
                  f"{int(r.wins)}/{int(r.ties)}/{int(r.losses)}" if r.trials else "Δ NDCG@5: no defined pair")
        sizes = {"dz": r.get("dz"), "dz_low": r.get("dz_lo"), "dz_high": r.get("dz_hi")}
        out.append(judge(f"{na} beats {nb} at click level {r.level:g}",
                         Evidence(r["diff"], r.p, int(r.trials), detail, sd=r.sd, missing=missing, effect_sizes=sizes,
                                  identical=an.identical_of(r)),
                         Expectation(effect=interest, effect_source=source, family=f"the {noise} levels"), inference,
                         noise=noise, level=float(r.level)))
    out = correct(out, inference)
    if out:
        verdicts = [c.verdict for c in out]
        k = verdicts.count("supported")
        untested = [c.verdict for c in out if not c.tested]
        short = verdicts.count(UNDERPOWERED)         # a level that could not have seen the effect of interest
        v = ("supported" if k == len(out) else "contradicted" if "contradicted" in verdicts
             else untested[0] if len(untested) == len(out)
             else f"{UNDERPOWERED[:-1]}: {k} of {len(out)} levels significant, {short} underpowered)" if short
             else f"not supported ({k} of {len(out)} levels significant)")
        worst = max((c.p for c in out if c.tested), default=float("nan"))
        detail = (f"{k} of {len(out)} levels supported at α = {inference.alpha:g}; value: the levels supported, "
                  f"p: the largest per-level p")
        out.append(judge(f"{na} beats {nb} at every click level, each significant (appendix E)",
                         Evidence(float(k), worst, int(g.trials.min()), detail), Expectation(verdict_text=v),
                         inference, noise=noise))
    return out


#: the paper's words per noise type: the dataset on which λMART's faster degradation is more pronounced
PRONOUNCED = {"documents": ("yahoo", "Figure 3a/b"), "labels": ("web30k", "Figure 3c/d")}


NAMES = {"web30k": "Web30K", "yahoo": "Yahoo"}


ACROSS_FAMILY = "Figure 3 across datasets: where λMART's faster degradation is more pronounced (one claim per noise type)"


def levels_of(df: pd.DataFrame, noise: str) -> list[float]:
    """The levels of ``noise`` in a run's frame, with 0 (the noise-free run) where it has one."""
    g = noise_levels(df, noise)
    return sorted(set(g.level.astype(float)))


def trial_slopes(df: pd.DataFrame, noise: str, metric: str = NDCG5, a: str = "xendcg",
                 b: str = "lambdamart", levels=None) -> np.ndarray:
    """Per trial, the least-squares slope of ``a − b`` on ``metric`` against the level, over
    the trials with both models at every one of ``levels`` (default: the run's levels of
    ``noise``; level 0 is the noise-free run, shared by the noise types)."""
    g = noise_levels(df[df.model.isin([a, b])], noise)
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
    """The two "more pronounced" claims from ``frames`` {reference: (config, frame)}, sign-aware:
    "more pronounced on A" needs λMART to degrade faster on A (A's mean per-trial slope of
    XE_NDCG − λMART > 0, the one-sample test in force) **and** faster on A than on B (the
    two-sample test of the slopes), an intersection–union test of the two
    (:func:`~ltrrepro.inference.claim.conjunction`): its value is the smaller of A's slope and
    the difference (≤ 0 when A shows no degradation), its p the larger. The two claims (one per
    noise type) form one family, corrected by ``--correction``. The scale is absolute (NDCG@5
    points per level point); the relative reading (each run's slope over its λMART NDCG@5 at
    the lowest shared level: Yahoo's NDCG is about 1.5× Web30K's) is given in the detail."""
    items, plain = [], []
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
            plain.append(judge(text, Evidence.none(why), Expectation(), inference, noise=noise))
            continue
        x, y = trial_slopes(df_w, noise, levels=levels), trial_slopes(df_o, noise, levels=levels)
        span = float(levels[-1]) - float(levels[0])
        interest, source = smallest_effect(NDCG5, inference)
        effect = interest / span
        source = f"{source} over levels {levels[0]:g}–{levels[-1]:g} (a slope of {effect:.2e} per level point)"
        parts = [_degrades(x, NAMES[where], effect, source, inference),
                 _difference(x, y, NAMES[where], NAMES[other], effect, source, levels, df_w, df_o, noise, inference)]
        detail = f"{parts[0].detail}; {parts[1].detail}; {_relative(df_w, df_o, x, y, levels, noise, test)}"
        items.append((text, parts, detail, {"noise": noise}))
    return plain + conjunction_family(items, inference, ACROSS_FAMILY)


def _degrades(x: np.ndarray, name: str, effect: float, source: str, inference: Inference) -> Claim:
    """λMART degrades faster than XE_NDCG on one dataset: its mean per-trial slope > 0."""
    sd = float(x.std(ddof=1)) if x.size > 1 else float("nan")
    p = one_sample_p(x, inference.test) if x.size > 1 and sd > 0 else float("nan")
    detail = f"{name} slope {x.mean():+.2e} (SD {sd:.2e}, {x.size} trials; one-sample test)" if x.size else \
        f"no {name} trial with every level"
    return judge(f"λMART degrades faster on {name}", Evidence(float(x.mean()) if x.size else float("nan"), p, x.size,
                                                             detail, sd=sd),
                 Expectation(effect=effect, effect_source=source), inference)


def _difference(x, y, nw, no, effect, source, levels, df_w, df_o, noise, inference: Inference) -> Claim:
    """The slope on one dataset minus that on the other, by the two-sample test in force."""
    test = inference.test
    value = float(x.mean() - y.mean()) if x.size and y.size else float("nan")
    ok = x.size >= 2 and y.size >= 2 and (x.std(ddof=1) > 0 or y.std(ddof=1) > 0)
    p = two_sample_p(x, y, test) if ok else float("nan")
    s1, s2 = (float(x.std(ddof=1)) if x.size > 1 else float("nan"), float(y.std(ddof=1)) if y.size > 1 else float("nan"))
    shared = "" if levels == levels_of(df_w, noise) == levels_of(df_o, noise) else \
        f" (over the levels both runs have: {', '.join(f'{v:g}' for v in levels)})"
    detail = (f"mean per-trial slope of XE_NDCG − λMART (NDCG@5 per level point){shared}: {nw} "
              f"{x.mean():+.2e} − {no} {y.mean():+.2e} (SD {s2:.2e}, {y.size} trials) = {value:+.2e}; p: "
              f"{'Welch t' if test == 't' else 'Mann–Whitney U' if test == 'wilcoxon' else 'permutation'} test of "
              f"the two runs' slopes (independent samples)" if x.size and y.size else
              "no trial with NDCG@5 at every level in one of the runs")

    def power_at(level: float) -> dict:              # the two-sample test's, per run
        return {"power": two_sample_power(effect, s1, x.size, s2, y.size, test, level),
                "trials_80": trials_for_two_sample_power(effect, s1, s2, test, alpha=level), "trials_80_range": None}
    evidence = Evidence(value, p, int(x.size + y.size), detail, power=power_at(inference.alpha) if ok else None,
                        power_at=power_at if ok else None,
                        missing=None if ok else "fewer than two trials with every level in a run")
    return judge(f"λMART degrades faster on {nw} than on {no}", evidence, Expectation(effect=effect, effect_source=source),
                 inference)


def _relative(df_w, df_o, x, y, levels, noise, test: str) -> str:
    """The second reading: each run's slopes over its λMART NDCG@5 at the lowest shared level."""
    def base(df):
        g = noise_levels(df[df.model == "lambdamart"], noise)
        v = g[g.level == float(levels[0])][NDCG5]
        return float(v.mean()) if len(v) else float("nan")
    bw, bo = base(df_w), base(df_o)
    if not (np.isfinite(bw) and np.isfinite(bo) and bw > 0 and bo > 0 and x.size > 1 and y.size > 1):
        return "relative reading: no λMART level to scale by"
    xr, yr = x / bw, y / bo
    p = two_sample_p(xr, yr, test) if (xr.std(ddof=1) > 0 or yr.std(ddof=1) > 0) else float("nan")
    return (f"relative reading (slope / λMART's NDCG@5 at level {levels[0]:g}: {bw:.4f} vs {bo:.4f}): "
            f"{100 * xr.mean():+.3f}% vs {100 * yr.mean():+.3f}% per level point, difference "
            f"{100 * (xr.mean() - yr.mean()):+.3f}%, p {p:.3g}")


def noise_levels(df: pd.DataFrame, noise: str) -> pd.DataFrame:
    g = df[(df.noise == noise) | (df.noise == "none")].copy()
    g["level"] = np.where(g.noise == "none", 0.0, g.level.astype(float))
    return g
