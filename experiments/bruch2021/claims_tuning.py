"""Bruch's Table 1 claims under ``--tune N`` (docs/tuning.md): the tuned frame's claims in a second
family (:data:`TUNED_FAMILY`, corrected within it; the other families' tuned twins) and "XE_NDCG
MART > tuned λMART" — XE_NDCG MART at the paper's settings against λMART tuned, the comparison
Qin et al. (ICLR 2021) ask of a new loss (:func:`cross_claims`)."""
from __future__ import annotations

import pandas as pd

from experiments import analysis as an
from ltrrepro.inference import Claim, Evidence, Expectation, Inference, correct, judge, smallest_effect

__all__ = ["TUNED_FAMILY", "CROSS", "tuned_claims", "cross_claims"]

TUNED_FAMILY = "Table 1 tuned: the paper's three pairs and XE_NDCG MART against tuned λMART on NDCG@5 and @10"
#: XE_NDCG MART at the paper's settings beside the tuned frame (the cross claim)
CROSS = "xendcg@paper"


def _untested(c: Claim) -> Claim:
    """A claim as :meth:`Claim.check` made it, before the correction (to be corrected again
    within the tuned family with the cross claim)."""
    if c.p_raw is None:
        return c
    return c.replace(p=c.p_raw, p_raw=None, correction=None)


def _relabel(c: Claim) -> Claim:
    """A claim of the tuned frame: both sides named tuned, in the tuned family (Table 1's pairs)
    or its family's tuned twin (plug-ins, other ranking systems)."""
    from experiments.bruch2021.claims import TABLE1_FAMILY

    head, _, metric = c.text.rpartition(" on ")
    a, _, b = head.partition(" > ")
    family = TUNED_FAMILY if c.family == TABLE1_FAMILY else f"{c.family} (tuned)"
    return c.replace(text=f"{a} (tuned) > {b} (tuned) on {metric}", family=family)


def cross_claims(dp: pd.DataFrame, dt: pd.DataFrame, cfg, inference: Inference) -> list[Claim]:
    """XE_NDCG MART at the paper's settings against tuned λMART, paired by trial; powered
    against the effect of interest (the paper has no number for it)."""
    from experiments.bruch2021.protocol import NDCG5, NDCG10
    from experiments.bruch2021.report import model_name

    both = pd.concat([dp[dp.model == "xendcg"].assign(model=CROSS), dt[dt.model == "lambdamart"]])
    out = []
    for k in (NDCG5, NDCG10):
        c = an.compare(both, k, CROSS, "lambdamart", test=inference.test)
        if c is None:
            continue
        interest, source = smallest_effect(k, inference)
        detail = (f"mean difference {c.diff:+.4f} (95% CI {c.ci_low:+.4f}..{c.ci_high:+.4f}); XE_NDCG MART at the "
                  f"paper's settings, λMART tuned")
        out.append(judge(f"{model_name('xendcg', cfg)} > {model_name('lambdamart', cfg)} (tuned) on {an.label(k)}",
                         Evidence(c.diff, c.p, c.n, detail, sd=c.std_diff),
                         Expectation(effect=interest, effect_source=source, family=TUNED_FAMILY), inference))
    return out


def tuned_claims(comp_t: pd.DataFrame, dp: pd.DataFrame, dt: pd.DataFrame, cfg, inference: Inference) -> list[Claim]:
    """Table 1's claims on the tuned frame ``dt`` (its tests ``comp_t``), each named tuned and in
    its family's tuned twin, with the cross claims, corrected within their families."""
    from experiments.bruch2021.claims import table1_claims

    claims_t = [_relabel(_untested(c)) for c in table1_claims(comp_t, cfg, dt, inference=inference)]
    return correct([*claims_t, *cross_claims(dp, dt, cfg, inference)], inference)
