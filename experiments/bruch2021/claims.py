"""Every claim Bruch (2021) makes that one run can check, as pure functions of what the
report's parts computed (the claims of Figures 3 and 4, and those across the two datasets, are
in :mod:`.claims_noise`):

* Table 1 (``quality``): XE_NDCG MART > λMART > ListNet on NDCG@5 and @10, each significant,
  powered against the paper's differences (:func:`table1_claims`; plug-ins and other ranking
  systems of ``--models`` against the baseline, XE_NDCG MART against each other system);
* Figure 1 (``jensen_gap``): γ changes an example's gap (:func:`figure1_claims`, descriptive);
* Figure 2 (``convergence``): XE_NDCG's lead is larger with fewer trees (:func:`figure2_claims`);
* the remark on Figure 3a (§5.4): "the increase in NDCG@5 of XE_NDCG MART from the 40% mark to
  60% on Web30K is not statistically significant" (100 trials) (:func:`remark_claims`). A
  claim of no change is decided by an equivalence test, not by a test that fails to reject:
  TOST (two one-sided t-tests, Schuirmann 1987) with the margin ±m, m the smallest effect of
  interest for NDCG (0.01 by default, ``--effect``). ``supported (equivalent within ±m)`` when
  both one-sided tests reject at α (the change lies inside the margin); ``contradicted (a
  change beyond ±m)`` when a one-sided test shows the change outside it; ``inconclusive
  (underpowered)`` otherwise, with the power of TOST at no change, P(|T| < m/se − t_{1−α, n−1}),
  and the trials it would take.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from experiments import analysis as an
from experiments.bruch2021.paper import PAPER_TABLE1
from experiments.bruch2021.protocol import NDCG5, NDCG10, model_label, paper_reference
from ltrrepro.inference import Claim, Evidence, Expectation, Inference, correct, judge, judge_equivalence, smallest_effect

__all__ = ["table1_claims", "cross_claims", "figure1_claims", "figure2_claims", "remark_claims", "spread_ratio", "early_trees",
           "TABLE1_FAMILY", "PLUGIN_FAMILY", "OTHERS_FAMILY", "XE_OTHERS_FAMILY", "TUNED_FAMILY", "CROSS"]

LEVELS = (40.0, 60.0)
#: the claim families whose p-values are corrected together (tables and claims alike)
TABLE1_FAMILY = "Table 1: the paper's three pairs on NDCG@5 and @10"
PLUGIN_FAMILY = "plug-ins against the baseline on NDCG@5 and @10"
#: other ranking systems of --models (CatBoost's losses, ...): against the baseline (tests only) and
#: XE_NDCG MART against each (claims: Bruch's loss against a third family of library rankers)
OTHERS_FAMILY = "other ranking systems against the baseline on NDCG@5 and @10"
XE_OTHERS_FAMILY = "XE_NDCG MART against other ranking systems on NDCG@5 and @10"
#: under ``--tune``: Table 1's pairs with every system tuned, and XE_NDCG MART (the paper's settings) against tuned
#: λMART — the comparison Qin et al. (ICLR 2021) ask of a new loss (:func:`cross_claims`), corrected together
TUNED_FAMILY = "Table 1 tuned: the paper's three pairs and XE_NDCG MART against tuned λMART on NDCG@5 and @10"
#: XE_NDCG MART at the paper's settings beside the tuned frame (the cross claim)
CROSS = "xendcg@paper"


def table1_claims(comp: pd.DataFrame, cfg, df: pd.DataFrame | None = None, *, inference: Inference,
                  tuned: bool = False, also=()) -> list[Claim]:
    """The paper's claims — XE_NDCG MART > ListNet, λMART > ListNet, XE_NDCG MART > λMART on
    NDCG@5 and @10, each significant — powered against Table 1's differences for the dataset
    (or the one the synthetic data is calibrated to), and, for each plug-in, plug-in >
    baseline, and XE_NDCG MART > each other ranking system of ``--models`` (CatBoost's losses;
    no paper number: powered against the effect of interest). p: adjusted within
    the claim's family (:data:`TABLE1_FAMILY`, :data:`PLUGIN_FAMILY`) as the tests table's ``p_adj``;
    with the frame ``df``, ER, ΔRI and the size verdict against Table 1 (:func:`ltrrepro.inference.reproduction`).
    ``tuned``: the claims of a tuned frame, each system named "(tuned)" and each claim in its
    family's tuned twin (:data:`TUNED_FAMILY` for Table 1's); ``also``: claims judged elsewhere
    corrected with these (:func:`tuned_claims`' cross claims)."""

    tag = " (tuned)" if tuned else ""
    out = []
    base = cfg.baseline
    ref = paper_reference(cfg.dataset)
    pairs = [("xendcg", "listnet"), ("lambdamart", "listnet"), ("xendcg", "lambdamart"),
             *((k, base) for k, _ in cfg.plugins if k != base),
             *(("xendcg", b) for b in (sorted(set(comp.b[comp.family == XE_OTHERS_FAMILY])) if len(comp) else ()))]
    for i, k in enumerate(("NDCG@5", "NDCG@10")):
        for a, b in pairs:
            r = comp[(comp.metric == k) & (comp.a == a) & (comp.b == b)] if len(comp) else comp
            if r.empty:
                continue
            r = r.iloc[0]
            paper = PAPER_TABLE1[ref] if ref else {}
            effect = (paper[a][i] - paper[b][i]) / 100 if a in paper and b in paper else None
            where = "" if effect is None else f"; paper ({ref}) {effect:+.4f}"
            missing = an.no_test_reason(int(r.n), r.std_diff, k) if not np.isfinite(r.p) else None
            detail = (f"no trial where both are defined{where}" if int(r.n) == 0 else
                      f"mean difference {r['diff']:+.4f} (95% CI {r.ci_low:+.4f}..{r.ci_high:+.4f}), "
                      f"W/T/L {r.wins}/{r.ties}/{r.losses}{where}")
            interest, source = smallest_effect(k, inference) if effect is None else (None, None)   # (a plug-in's claim)
            more = {"dz": r.dz, "dz_low": r.dz_low, "dz_high": r.dz_high}
            if effect is not None and df is not None:
                more.update(an.reproduction_of(df, (NDCG5, NDCG10)[i], a, b, paper[a][i] / 100, paper[b][i] / 100))
            family = (TUNED_FAMILY if r.family == TABLE1_FAMILY else f"{r.family} (tuned)") if tuned else r.family
            out.append(judge(f"{model_label(a, cfg)}{tag} > {model_label(b, cfg)}{tag} on {k}",
                             Evidence(r["diff"], r.p, r.n, detail, sd=r.std_diff, missing=missing, effect_sizes=more,
                                      identical=an.identical_of(r)),
                             Expectation(paper_effect=effect, effect=interest, effect_source=source, family=family),
                             inference))
    return correct([*out, *also], inference)


def cross_claims(fixed: pd.DataFrame, tuned: pd.DataFrame, cfg, inference: Inference) -> list[Claim]:
    """XE_NDCG MART at the paper's settings (``fixed``) against tuned λMART (``tuned``), paired by
    trial, in :data:`TUNED_FAMILY`; powered against the effect of interest (the paper has no
    number for it)."""
    both = pd.concat([fixed[fixed.model == "xendcg"].assign(model=CROSS), tuned[tuned.model == "lambdamart"]])
    out = []
    for k in (NDCG5, NDCG10):
        c = an.compare(both, k, CROSS, "lambdamart", test=inference.test)
        if c is None:
            continue
        interest, source = smallest_effect(k, inference)
        detail = (f"mean difference {c.diff:+.4f} (95% CI {c.ci_low:+.4f}..{c.ci_high:+.4f}); XE_NDCG MART at the "
                  f"paper's settings, λMART tuned")
        out.append(judge(f"{model_label('xendcg', cfg)} > {model_label('lambdamart', cfg)} (tuned) on {an.label(k)}",
                         Evidence(c.diff, c.p, c.n, detail, sd=c.std_diff),
                         Expectation(effect=interest, effect_source=source, family=TUNED_FAMILY), inference))
    return out


def spread_ratio(ex: pd.DataFrame) -> tuple[float, float, float]:
    """``(ratio, within, between)``: ``within`` the median over examples of the SD of the gap
    across its draws of γ (how far γ moves one example's gap), ``between`` the SD across
    examples of their mean gaps (how far the examples differ), ``ratio`` = within / between."""
    if len(ex) < 2:
        return float("nan"), float("nan"), float("nan")
    within = float(np.median([g.std(ddof=1) for g in ex.gaps]))
    between = float(np.std([g.mean() for g in ex.gaps], ddof=1))
    return (within / between if between > 0 else float("inf")), within, between


def figure1_claims(ex: pd.DataFrame, *, inference: Inference) -> list[Claim]:
    """Figure 1's "vertically stretched clouds": how far γ moves an example's gap, measured
    against how far the examples differ (:func:`spread_ratio`). The paper shows the clouds and
    gives no number, so the claim is descriptive: no test, no verdict of support (that γ
    changes the gap at all is a property of the formula: a sanity check)."""
    ratio, within, between = spread_ratio(ex)
    detail = (f"spread across γ / spread across examples: median within-example SD of the gap over the draws "
              f"{within:.3e} / SD of the examples' mean gaps {between:.3e} = {ratio:.3f} (the paper shows the "
              f"clouds, not a number)")
    missing = None if len(ex) >= 2 else "fewer than two examples: no spread across examples"
    return [judge("γ changes the gap of an example (Figure 1's vertically stretched clouds)",
                  Evidence(ratio, float("nan"), len(ex), detail, missing=missing),
                  Expectation(verdict_text="descriptive (no number in the paper to test)"), inference)]


def early_trees(n_trees: int) -> int:
    """The 'small ensemble' of the claim: 10% of the trees (at least one)."""
    return max(1, int(round(0.1 * n_trees)))


def figure2_claims(c: dict, *, inference: Inference) -> list[Claim]:
    """XE_NDCG's lead over λMART is larger at 10% of the trees than at the end."""
    lam, xe = c["lambdamart"], c["xendcg"]
    n_trials, n_trees = lam.shape
    diff = xe - lam
    early = early_trees(n_trees)
    t = an.finite_test(diff[:, early - 1], diff[:, -1], test=inference.test) if n_trials > 0 and n_trees > 0 else None
    if t is None:
        reason, detail = "no trial with both models' curves", "no trials"
    else:
        reason = an.no_test_reason(t.n, t.std_diff, NDCG5, "validation") if not np.isfinite(t.p) else None
        detail = (f"lead at {early} trees {t.mean_a:+.4f} vs at {n_trees} trees {t.mean_b:+.4f}"
                  + (f" ({t.n} of {n_trials} trials defined)" if t.n < n_trials else "")) if t.n else \
            f"no lead: {an.undefined_reason(NDCG5, 'validation')}"
    interest, source = smallest_effect(NDCG5, inference)
    sizes = {"dz": t.dz, "dz_low": t.dz_low, "dz_high": t.dz_high} if t and t.n > 1 else {}
    evidence = Evidence(t.diff if t else float("nan"), t.p if t else float("nan"), t.n if t else 0, detail,
                        sd=t.std_diff if t else float("nan"), missing=reason, effect_sizes=sizes)
    return [judge("XE_NDCG's lead over λMART is larger with fewer trees", evidence,
                  Expectation(effect=interest, effect_source=source), inference)]


def remark_claims(df: pd.DataFrame, cfg, model: str = "xendcg", *, inference: Inference) -> list[Claim]:
    """The 40% → 60% remark, on a Web30K-profile robustness run with documents added: per
    trial, ``model``'s test NDCG@5 at 60% minus at 40% (the same split, paired). A run without
    both marks gets the claim as inconclusive, saying so."""
    if paper_reference(cfg.dataset) != "web30k" or "documents" not in cfg.noise:      # Figure 3a's runs only
        return []
    text = ("XE_NDCG MART's NDCG@5 does not change from the 40% to the 60% mark on Web30K (Figure 3a remark: "
            "'not statistically significant')")
    g = df[(df.noise == "documents") & (df.model == model)]
    wide = g.pivot_table(index="trial", columns="level", values=NDCG5, aggfunc="first")
    wide.columns = wide.columns.astype(float)
    if not set(LEVELS) <= set(wide.columns):
        why = "the run has no 40% and 60% levels (--levels)"
        return [judge(text, Evidence.none(why), Expectation(), inference, noise="documents")]
    d = (wide[LEVELS[1]] - wide[LEVELS[0]]).dropna().to_numpy()
    margin, source = smallest_effect(NDCG5, inference)
    return [judge_equivalence(
        text, d, margin,
        lambda mean, sd: (f"mean over trials of XE_NDCG's NDCG@5 at 60% − at 40% more documents: {mean:+.4f} (SD "
                          f"{sd:.4f}); p: TOST with margin ±{margin:g} (two one-sided t-tests; the paper found the change "
                          f"not significant over 100 trials)"),
        f"the equivalence margin: {source}", inference,
        missing=lambda n, sd: "fewer than two trials with both marks" if n < 2 else "zero variance of the differences",
        noise="documents")]
