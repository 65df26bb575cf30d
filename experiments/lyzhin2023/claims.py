"""Every claim the tricks study checks (:data:`.paper.CLAIMS`), each through
:func:`ltrrepro.inference.judge_comparison` (a paired test over trials, its power against the
smallest effect of interest at the level applied, corrected within its family):

* §4.2: YetiLoss beats CatBoost's LambdaMart, StochasticRank and LightGBM's LambdaMART on each
  target metric, each system's variant trained for that metric (one family per metric);
* §4.3: the ablations of YetiLoss (NDCG) as paired differences against the system as declared on
  the same split — Gumbel noise against none, one neighbour against three;
* appendix B: the train–test gap (training minus test NDCG@10) of oblivious trees is smaller than
  that of leaf-wise ones (YetiLoss, the same split and seed).

The paper's numbers are not transcribed (:mod:`.paper`), so every claim is powered against the
smallest effect of interest, which its ``effect_source`` says. ``tuned``: the claims of the tuned
units, each named so and in its family's tuned twin.
"""
from __future__ import annotations

import pandas as pd

from experiments import analysis as an
from experiments.lyzhin2023.paper import CLAIMS
from experiments.lyzhin2023.protocol import ABLATION_BASE, AS_DECLARED, METRICS, TRAIN_METRIC, system_for
from ltrrepro.fit import SYSTEMS
from ltrrepro.inference import Claim, Expectation, Inference, correct, judge_comparison

TEXT = {key: text for key, text, _ in CLAIMS}
GAP = "gap"


def ablation_frame(df: pd.DataFrame) -> pd.DataFrame:
    """The ablation base's units with ``model`` its ablation (``none``: as declared), and ``gap``
    its training minus test NDCG@10."""
    if not len(df) or "ablation" not in df:
        return df.iloc[0:0]
    g = df[df.model == ABLATION_BASE].copy()
    g["model"] = g.ablation
    g[GAP] = g[f"train:{TRAIN_METRIC}"] - g[TRAIN_METRIC]
    return g


def main_frame(df: pd.DataFrame) -> pd.DataFrame:
    """The units of the systems as declared."""
    return df[df.ablation == AS_DECLARED] if len(df) and "ablation" in df else df


def _name(text: str, tuned: bool) -> str:
    return f"{text} — tuned" if tuned else text


def _family(name: str, tuned: bool) -> str:
    return f"{name} (tuned)" if tuned else name


def build_claims(df: pd.DataFrame, cfg, *, inference: Inference, tuned: bool = False) -> list[Claim]:
    if not len(df):
        return []
    out = []
    g = main_frame(df)
    for m in cfg.targets:
        metric, fam = METRICS[m], _family(f"§4.2 YetiLoss beats the others on {m.upper()}@10", tuned)
        a = system_for("yetiloss", m)
        for key, (_, other) in ((k, v) for k, _, v in CLAIMS if isinstance(v, tuple)):
            b = system_for(other, m)
            if a is None or b is None or not {a, b} <= set(g.model):
                continue
            c = an.compare(g, metric, a, b, test=inference.test)
            out.append(judge_comparison(_name(f"{TEXT[key]} — {m.upper()}@10", tuned), c,
                                        (SYSTEMS[a].label, SYSTEMS[b].label), metric, inference,
                                        Expectation(sign=+1, family=fam)))
    ab = ablation_frame(df)
    fam = _family("§4.3 and appendix B: the tricks of YetiLoss", tuned)
    for key, setting, sign in (("noise_matters", "noise-No", +1), ("neighbors", "neighbors-3", +1)):
        if {setting, AS_DECLARED} <= set(ab.model):
            c = an.compare(ab, TRAIN_METRIC, AS_DECLARED, setting, test=inference.test)
            out.append(judge_comparison(_name(TEXT[key], tuned), c, ("as declared", setting), TRAIN_METRIC, inference,
                                        Expectation(sign=sign, family=fam)))
    if {"trees-leafwise", AS_DECLARED} <= set(ab.model) and cfg.grow_policy == "SymmetricTree":
        c = an.compare(ab, GAP, "trees-leafwise", AS_DECLARED, test=inference.test)
        claim = judge_comparison(_name(TEXT["oblivious_gap"], tuned), c, ("leaf-wise", "oblivious"), TRAIN_METRIC,
                                 inference, Expectation(sign=+1, family=fam))
        if claim is not None:
            out.append(claim.replace(detail="train–test gap of NDCG@10: " + claim.detail))
    return correct([c for c in out if c is not None], inference)


def tuned_claims(fixed: pd.DataFrame, tuned: pd.DataFrame, cfg, inference: Inference) -> list[Claim]:
    """The claims of the tuned units (the study's declared twin, :class:`experiments.tuning.Search`)."""
    return build_claims(tuned, cfg, inference=inference, tuned=True)
