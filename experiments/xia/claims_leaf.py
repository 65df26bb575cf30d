"""Xia's loss claim and its decomposition by leaf rule (issue 38, item 4).

"OLE's final objective loss is 0.32%–1% lower than SE's" compares two arms that may differ in
two things: the split principle (how a tree is grown) and the leaf rule (what its leaves are
set to after it is grown: Eq. 8, −ΣL′/ΣL″ over the leaf's documents, or Eq. 11's exact step
−L′/L″ with the pairs inside the leaf removed from L″, footnote 2). With the leaf arm
(LambdaMART OLE under the other leaf rule, :data:`~.protocol.PARTNER_RULE`) a run has the
three arms SE₈ (SE splits, Eq. 8 leaves), OLE₈ and OLEₓ (OLE splits, Eq. 8 / exact leaves),
and per (fold, configuration), as a share of SE₈'s final loss L:

* split-principle effect  s = (L(OLE₈) − L(SE₈)) / L(SE₈)   — one common leaf rule (Eq. 8);
* leaf-rule effect        l = (L(OLEₓ) − L(OLE₈)) / L(SE₈)  — one split principle (OLE);
* ``own``                 o = (L(OLEₓ) − L(SE₈)) / L(SE₈)   — each principle its own leaves,

so o = s + l exactly (one denominator), per (fold, configuration), per fold and on average;
the same holds for the test metrics (differences of points, per query). ``s`` is the paper's
claim about split principles (powered and judged as before, alone); ``l`` and ``o`` form one
family corrected by ``--correction``, powered against the paper's smallest reduction (0.32%).
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from experiments import analysis as an
from experiments.xia.paper import PAPER_LOSS_RANGE
from experiments.xia.protocol import LEAF_ARM_SYSTEM, METRICS
from ltrrepro.inference import Claim, Evidence, Expectation, Inference, correct, judge, reproduction
from ltrrepro.inference.tests import dz_fields, paired_test

__all__ = ["RULE_WORDS", "RULE_EFFECT", "OWN_VERDICT", "loss_size", "loss_claim", "split_leaf_arm", "arms",
           "decompose", "decomposition", "decomposition_table", "decomposition_claims", "DECOMPOSITION_LEGEND"]

#: what each leaf rule puts in the leaves (the loss claim's line names the rule in use)
RULE_WORDS = {"diagonal": " (Eq. 8 in every arm)", "exact": " (exact −L′/L″ in every arm)",
              "own": " (Eq. 8 for SE/RWSE, Eq. 11's exact step for OLE)"}
#: which effect the loss claim measures under each leaf rule (a common rule isolates the split principle)
_COMMON = "the split-principle effect (one common leaf rule for both arms"
RULE_EFFECT = {"diagonal": _COMMON + ", the default)", "exact": _COMMON + ")",
               "own": "the split-principle effect plus the leaf-rule effect (each arm its own leaves: their sum, not the "
                      "split principles' alone; run --leaf-rule diagonal or exact for the split-principle effect)"}
#: the verdict of the split-principle loss claim when the run's leaf rule confounds it (no leaf arm)
OWN_VERDICT = "inconclusive (leaf rule own: the split-principle effect is not separated from the leaf rule's)"
KEY = ["fold", "leaves", "lr"]
#: the three arms' columns in the table
NAMES = {"se8": "loss SE₈", "ole8": "loss OLE₈", "olex": "loss OLEₓ"}
#: the three readings: (column, the arms it compares, words)
READINGS = (("split", "OLE₈ − SE₈", "the split-principle effect (Eq. 8 leaves in both arms)"),
            ("leaf", "OLEₓ − OLE₈", "the leaf-rule effect (OLE splits in both arms, exact against Eq. 8 leaves)"),
            ("own", "OLEₓ − SE₈", "own: each principle its own leaves, the sum of the two"))
DECOMPOSITION_LEGEND = (
    "LambdaMART's final training loss in three arms: SE₈ (SE splits, Eq. 8 leaves), OLE₈ (OLE splits, Eq. 8 "
    "leaves) and OLEₓ (OLE splits, Eq. 11's exact leaves: the pairs inside a leaf removed from L″). split = "
    "OLE₈ − SE₈, the split-principle effect under one common leaf rule (the paper's claim); leaf = OLEₓ − OLE₈, "
    "the leaf-rule effect under one split principle; own = OLEₓ − SE₈ (--leaf-rule own's comparison) = split + "
    "leaf, exactly: all three as % of SE₈'s loss (negative: lower). Test: the same three differences of the mean "
    "NDCG@1/3/10 and ERR (×100 points). McRank has no leaf arm: its loss is derivative additive, so its leaf "
    "rules coincide.")


def loss_size(value: float) -> str:
    """The verdict of a significant loss reduction (``value`` < 0, % of SE's loss): ``supported``
    only within the paper's 0.32%–1% magnitude; outside it, which way the magnitude differs
    (the claim's ``sized`` rule, :class:`ltrrepro.inference.Expectation`)."""
    lo, hi = PAPER_LOSS_RANGE
    if lo <= -value <= hi:
        return "supported"
    return (f"lower, by more than the paper's {lo:g}–{hi:g}%" if -value > hi
            else f"lower, by less than the paper's {lo:g}–{hi:g}%")


def loss_claim(text: str, per_fold: np.ndarray, per_config: np.ndarray, folds: int, head: str, *,
               inference: Inference, verdict_text: str | None = None, family: str | None = None,
               paper: bool = True) -> Claim:
    """A loss reading judged from ``per_fold`` (% of SE's loss, the mean over configurations
    per fold; NaN dropped), tested against 0 by the test in force, expected negative and powered
    against the paper's smallest reduction (−0.32%): the paper's effect where ``paper``, else
    the same size as the effect of interest. ``per_config``: the range shown; ``head``: what
    the value is. The detail gives the mean's 95% CI."""
    per_fold = np.asarray(per_fold, float)
    per_fold = per_fold[np.isfinite(per_fold)]
    c = paired_test(per_fold, np.zeros_like(per_fold), test=inference.test) if len(per_fold) > 1 else None
    value = float(per_fold.mean()) if len(per_fold) else float("nan")
    p = c.p if c else np.nan
    missing = None if np.isfinite(p) else (
        an.no_test_reason(len(per_fold), c.std_diff if c else None, on="fold") if len(per_fold)
        else "no fold with a finite loss ratio (a final loss of 0: no pair to order)")
    ci = f" (95% CI {c.ci_low:+.2f}% … {c.ci_high:+.2f}%)" if c and np.isfinite(c.ci_low) else ""
    rng = (f"{np.nanmin(per_config):+.2f}% … {np.nanmax(per_config):+.2f}% over the {len(per_config)} "
           f"configuration(s); " if np.isfinite(np.asarray(per_config, float)).any() else "")
    lo = PAPER_LOSS_RANGE[0]
    detail = (f"{head}: {rng}mean over folds {value:+.2f}%{ci} (negative: lower); "
              + ("supported only within the paper's magnitude; " if paper else "")
              + f"power against the paper's smallest reduction ({lo:g}%)")
    evidence = Evidence(value, p, folds, detail, missing=missing,
                        sd=float(np.std(per_fold, ddof=1)) if len(per_fold) > 1 else np.nan,
                        effect_sizes={**dz_fields(c), **(reproduction(per_fold, None, None, None, -lo) if paper else {})})
    expectation = (Expectation(sign=-1, paper_effect=-lo, verdict_text=verdict_text, family=family,
                               sized=loss_size) if paper else
                   Expectation(sign=-1, effect=-lo, effect_source=f"the paper's smallest loss reduction, {lo:g}% "
                               "of SE's loss", verdict_text=verdict_text, family=family))
    return judge(text, evidence, expectation, inference)


def split_leaf_arm(df: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(the study's arms, the leaf arm's rows): the leaf arm's units carry a ``leaf_rule`` setting."""
    if not len(df) or "leaf_rule" not in df:
        return df, df.iloc[0:0]
    on = df.leaf_rule.notna()
    return df[~on].drop(columns="leaf_rule"), df[on]


def arms(main: pd.DataFrame, leaf: pd.DataFrame, leaf_rule: str, column: str) -> pd.DataFrame:
    """``column`` of SE₈, OLE₈ and OLEₓ per (fold, leaves, lr) where all three are stored:
    beside a ``diagonal`` run the leaf arm is OLEₓ, beside an ``own`` run OLE₈."""
    g = main[main.system == LEAF_ARM_SYSTEM] if len(main) else main
    if not len(g) or not len(leaf) or leaf_rule not in ("diagonal", "own"):
        return pd.DataFrame(columns=["se8", "ole8", "olex"])
    pick = lambda d, pr: d[d.principle == pr].set_index(KEY)[column]  # noqa: E731
    ole, other = pick(g, "ole"), pick(leaf[leaf.system == LEAF_ARM_SYSTEM], "ole")
    ole8, olex = (ole, other) if leaf_rule == "diagonal" else (other, ole)
    both = pd.concat({"se8": pick(g, "se"), "ole8": ole8, "olex": olex}, axis=1, join="inner")
    return both.sort_index()


def decompose(se8, ole8, olex, base=1.0) -> dict:
    """The three readings of arrays of the three arms (per unit or per query), each a
    difference divided by ``base`` (SE₈'s loss for the loss, 1 for test metrics):
    ``split`` = (OLE₈ − SE₈)/base, ``leaf`` = (OLEₓ − OLE₈)/base, ``own`` = (OLEₓ − SE₈)/base;
    own = split + leaf up to rounding.

    >>> {k: float(v) for k, v in decompose(100.0, 99.5, 99.0, 100.0).items()}
    {'split': -0.005, 'leaf': -0.005, 'own': -0.01}
    """
    se8, ole8, olex = (np.asarray(a, float) for a in (se8, ole8, olex))
    return {"split": (ole8 - se8) / base, "leaf": (olex - ole8) / base, "own": (olex - se8) / base}


def decomposition(main: pd.DataFrame, leaf: pd.DataFrame, leaf_rule: str) -> pd.DataFrame:
    """Per (fold, leaves, lr): the three arms' losses, the loss readings (% of SE₈'s loss) and
    the test readings (mean of the four metrics, ×100 points); empty without a leaf arm."""
    loss = arms(main, leaf, leaf_rule, "loss")
    if loss.empty:
        return pd.DataFrame()
    test = sum(arms(main, leaf, leaf_rule, m) for m in METRICS) / len(METRICS)
    out = loss.rename(columns=NAMES)
    out = out.join(pd.DataFrame({f"{k} (%)": 100 * v for k, v in
                                 decompose(loss.se8, loss.ole8, loss.olex, loss.se8.where(loss.se8 != 0)).items()},
                                index=loss.index))
    test = test.loc[loss.index]
    out = out.join(pd.DataFrame({f"test {k} (×100)": 100 * v for k, v in decompose(test.se8, test.ole8, test.olex).items()},
                                index=loss.index))
    return out


def decomposition_table(dec: pd.DataFrame) -> pd.DataFrame:
    """The report's table: per configuration the mean over folds, then a row over all."""
    if dec.empty:
        return dec
    per = dec.groupby(level=["leaves", "lr"]).mean().reset_index()
    per.insert(2, "folds", dec.groupby(level=["leaves", "lr"]).size().to_numpy())
    total = {"leaves": "all", "lr": "all", "folds": int(dec.index.get_level_values("fold").nunique()),
             **dec.groupby(level="fold").mean().mean().to_dict()}
    return pd.concat([per.astype({"leaves": object, "lr": object}), pd.DataFrame([total])], ignore_index=True)


def decomposition_claims(dec: pd.DataFrame, folds: int, *, inference: Inference) -> list[Claim]:
    """LambdaMART's loss claim as the split-principle effect (judged alone, as the paper's claim
    was), then the leaf-rule effect and ``own`` (= their sum) as one corrected family; a
    significant ``own`` reduction keeps the paper's magnitude check at its adjusted p."""
    per_fold = dec.groupby(level="fold").mean()
    per_cfg = dec.groupby(level=["leaves", "lr"]).mean()
    name, lo, hi = "LambdaMART", *PAPER_LOSS_RANGE
    family = f"{name}: the loss claim's leaf-rule and own readings (2 claims)"
    out = []
    for col, arms_text, words in READINGS:
        head = f"{words}: {arms_text}, % of SE₈'s loss"
        if col == "split":
            out.append(loss_claim(f"{LEAF_ARM_SYSTEM}: OLE's final objective loss is lower than SE's by {lo:g}%–"
                                  f"{hi:g}% (paper)",
                                  per_fold["split (%)"].to_numpy(), per_cfg["split (%)"].to_numpy(), folds, head,
                                  inference=inference))
        elif col == "leaf":
            out.append(loss_claim(f"{LEAF_ARM_SYSTEM}: exact leaves (Eq. 11) lower OLE's final loss against Eq. 8 "
                                  "leaves (the leaf-rule effect; no paper number)", per_fold["leaf (%)"].to_numpy(),
                                  per_cfg["leaf (%)"].to_numpy(), folds, head, inference=inference, family=family,
                                  paper=False))
        else:
            out.append(loss_claim(f"{LEAF_ARM_SYSTEM}: OLE with exact leaves has a lower final loss than SE with Eq. "
                                  f"8 leaves by {lo:g}%–{hi:g}% (the paper's claim under --leaf-rule own: split + "
                                  "leaf)", per_fold["own (%)"].to_numpy(), per_cfg["own (%)"].to_numpy(), folds, head,
                                  inference=inference, family=family))
    return [out[0], *correct(out[1:], inference)]         # own's magnitude checked at its adjusted p (loss_size)
