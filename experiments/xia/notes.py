"""Xia, Zhai and Wang's protocol notes for a run, in the three columns every report prints
(:func:`ltrrepro.report.protocol_notes`): what the run takes from the paper where a reader
could doubt it, what it chose where the paper is silent, and where it deviates. Pure
functions of a :class:`~experiments.xia.protocol.XiaConfig` (its ``as_paper``, ``choices``
and ``deviations`` call them); docs/protocols/xia.md gives the sources."""
from __future__ import annotations

from experiments.tuning_report import Words
from experiments.xia.paper import PAPER_ROUNDS
from ltrrepro.fit.space import GBDT_SPACE, describe
from ltrrepro.fit.xia import arm, arm_of

__all__ = ["as_paper", "choices", "deviations", "TUNING"]


def _valid(cfg) -> str:
    return "the fold's official validation file" if cfg.fold_layout else "the split's 20% validation part"


#: the words of a tuned run's notes and tuning table (:mod:`experiments.tuning_report`)
TUNING = Words(
    who="every arm", one="arm", parts=lambda cfg: "training part and " + _valid(cfg),
    detail=lambda cfg: ("; the objective: validation NDCG@10 (gain 2^y − 1, queries without a relevant document "
                        "dropped) at the arm's last round; the space (ltrrepro.fit.space.GBDT_SPACE, the tree "
                        "learner's): " + "; ".join(f"{k} {v}" for k, v in describe(GBDT_SPACE).items())
                        + "; growth, leaf rule, split rule and rounds as the run's"),
    replaces=" per arm, in place of the paper's grid of leaves × learning rates: OLE and SE are compared each at its "
             "own tuned values (the tables' leaves 0, lr 0 cell)",
    as_paper="the test parts are never read by a search: it selects on validation data",
    splits=lambda cfg: None if cfg.fold_layout else "random query splits",
    searched="Each arm's best configuration of its search (Optuna TPE, median pruning) by validation NDCG@10 at its "
             "last round; the other tables show it as leaves 0, lr 0 (each arm at its own values)")


def as_paper(cfg) -> list[str]:
    """Settings taken from Xia et al. (§3–§5)."""
    out = []
    if cfg.growth == "width-first":
        out.append("trees grown width-first (breadth-first, level by level) to a fixed number of leaves, not "
                   "LightGBM's best-first order")
    if cfg.split_rule == "leaf-limit":
        out.append("OLE only chooses each split; every tree grows to the leaf limit, whatever the sign of an "
                   "exact-OLE gain")
    if cfg.leaf_rule in ("diagonal", "own"):
        out.append("SE and RWSE arms: leaf values by Eq. 8 (−ΣL′/ΣL″ over the leaf's documents) after the tree "
                   "is grown")
    if set(cfg.leaves) <= {10, 20} and set(cfg.rates) <= {0.06, 0.10, 0.12}:
        out.append(f"{list(cfg.leaves)} leaves × learning rates {list(cfg.rates)} (of the paper's six "
                   "configurations per system)")
    out.append("McRank: K-class softmax boosting, one tree per class per round, documents ranked by Σ_k k·p_k; "
               "LambdaMART on NDCG lambdas")
    out.append("metrics NDCG@1, @3, @10 and ERR on the test part, ERR over the whole ranked list (§5)")
    return out


def choices(cfg) -> list[str]:
    """Where Xia et al. are silent, what this run does."""
    lam = any(m.startswith("lambdamart") for m in cfg.models)
    mc = any(m.startswith("mcrank") for m in cfg.models)
    rule = {"diagonal": " in every arm (Eq. 8, −ΣL′/ΣL″ over the leaf's documents: the standard LambdaMART leaf "
                        "and the paper's SE baseline; the paper does not say which rule its OLE arm used: "
                        "--leaf-rule exact or own for the others)",
            "exact": " in every arm (the paper does not say which rule its OLE arm used)",
            "own": " (each principle's own estimate: Eq. 8 for SE and RWSE, Eq. 11's exact −L′/L″ for OLE; the "
                   "paper does not say which rule its OLE arm used)"}[cfg.leaf_rule]
    out = [f"leaf rule {cfg.leaf_rule}{rule}"
           + ("; McRank's loss is derivative additive, so both rules give the same McRank leaves" if mc else ""),
           f"{cfg.growth} growth: nodes split in breadth-first order (left to right within a level), so a "
           f"leaf limit inside a level leaves its rightmost nodes unsplit" if cfg.growth == "width-first" else
           f"{cfg.growth} growth: the leaf of largest gain splits next",
           f"min {cfg.min_data_in_leaf} documents and Σ L″ ≥ 1e-3 per leaf, the same feasible set for every arm "
           "(the paper gives none)",
           "ties between candidate splits go to the lower feature and threshold"]
    if cfg.partner_rule:
        other = {"exact": "Eq. 11's exact leaves", "diagonal": "Eq. 8 leaves"}[cfg.partner_rule]
        out.append(f"the leaf arm: LambdaMART OLE grown again with {other}, so the loss claim splits into the "
                   "split-principle effect (Eq. 8 leaves in both arms), the leaf-rule effect (OLE splits, exact against "
                   "Eq. 8 leaves) and own, their sum (the paper compares OLE with SE only; --no-leaf-arm leaves it out)")
    elif lam and cfg.tune and cfg.leaf_arm and cfg.leaf_rule != "exact":
        out.append("no leaf arm under --tune: each arm is tuned under the run's leaf rule, and a leaf arm would need a "
                   "search of its own; the loss claim is not decomposed")
    elif lam and cfg.leaf_rule == "exact":
        out.append("no leaf arm under --leaf-rule exact: its SE arms have no Eq. 8 leaves to decompose own against, so "
                   "the loss claim is the split-principle effect under exact leaves alone")
    if lam:
        out.append("LambdaMART's lambdas as LightGBM's lambdarank: σ = 1, truncation level 30, no normalization")
    if mc:
        out.append("McRank's leaf is the plain Newton step −ΣL′/ΣL″, without Friedman's (K − 1)/K factor of "
                   "multi-class gradient boosting (the paper gives Eq. 8 only)")
    out.append("metric conventions (the paper gives none): NDCG gain 2^y − 1 with log2(rank + 1) discounts, "
               "queries without a relevant document dropped; ERR with g_max = 4; tied scores in input order")
    return out


def deviations(cfg, base: list[str]) -> list[str]:
    """The run's deviations: the generic ones (``base``: data, trials) and Xia's own."""
    out = list(base)
    r = dict(cfg.rounds)
    if r != PAPER_ROUNDS:
        out.append(f"{r['lambdamart']} LambdaMART / {r['mcrank']} McRank rounds (paper: 1,000 / 2,500)")
    if not cfg.fold_layout:
        out.append(f"{cfg.trials} random 60/20/20 query splits (train → test; paper: Yahoo Set 1's released "
                   "split plus two more made from it, MSLR-WEB10K's five official folds)")
    out.append(f"histogram splits ({cfg.max_bin} bins) instead of every distinct value")
    if cfg.growth != "width-first":
        out.append(f"{cfg.growth} tree growth (LightGBM's leaf-wise order), not the paper's width-first")
    for key, spec in cfg.plugins:
        principles = [a[1] for m in cfg.models if (a := arm_of(m)) and a[0] == key]
        out.append(f"extension: plug-in {spec} as an arm under {', '.join(p.upper() for p in principles)} "
                   f"({cfg.rounds_of(arm(key, 'se'))} rounds, LambdaMART's); not a system of the paper")
    if cfg.leaf_rule == "exact":
        out.append("exact leaves in every arm (−L′/L″ of the whole objective, the pairs inside a leaf removed "
                   "from L″), not Eq. 8's per-document (diagonal) leaf of the paper's SE baseline")
    if cfg.split_rule != "leaf-limit":
        out.append("positive-gain splits: an exact-OLE node splits only with gain > 0, so OLE trees can stop short "
                   "of the leaf limit (the paper grows to the leaf limit and uses OLE only to choose the split)")
    return out
