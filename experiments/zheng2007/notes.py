"""Zheng et al. (2007)'s protocol notes for a run, in the three columns every report prints
(:func:`ltrrepro.report.protocol_notes`): what the run takes from the paper where a reader
could doubt it, what it chose where the paper is silent, and where it deviates. Pure
functions of a :class:`~experiments.zheng2007.protocol.ZhengConfig` (its ``as_paper``,
``choices`` and ``deviations`` call them); docs/protocols/zheng2007.md gives the sources."""
from __future__ import annotations

import inspect

from experiments.tuning_report import Words
from experiments.zheng2007.paper import PAPER_ETA, PAPER_LEAVES, PAPER_W
from ltrrepro.fit import BACKENDS, Boosting
from ltrrepro.fit.space import TREE_SPACE, describe
from ltrrepro.objectives.pairwise import qbrank_step

__all__ = ["as_paper", "choices", "deviations", "tree_learner", "TUNING"]

#: the words of a tuned run's notes and tuning table (:mod:`experiments.tuning_report`)
TUNING = Words(
    who="every tree system (GBT, QBRank, a plug-in)", one="system", parts="L2 training and validation parts",
    detail=lambda cfg: (f", QBRank on L2's pairs (P2); each system's values used by all its runs (GBT(L1), GBT(L1∪L2) "
                        f"take GBT's); the objective: its validation DCG-5 at the last of {cfg.rounds} rounds (a "
                        f"plug-in: its early-stopped NDCG@5); the space (ltrrepro.fit.space, the library's): "
                        + "; ".join(f"{k} {v}" for k, v in describe(TREE_SPACE).items()) + "; RankSVM keeps its C grid"),
    replaces=" per tree system, not the paper's one η and leaf count tuned for GBT and shared by every run (§4)",
    as_paper="the paper tunes on held-out judgments: the searches select on the validation part of L2, never on L3",
    splits="random L2/L3 splits", name_of=lambda model, cfg: {"gbt": "GBT", "qbrank": "QBRank"}.get(model, model),
    systems=lambda df: df.assign(model=[m[:-len(t) - 1] for m, t in zip(df.model, df.train)]),
    searched="Each tree system's best configuration of its search (Optuna TPE, median pruning) on the validation part "
             "of L2 (valid value: DCG-5 at the last round; a plug-in: NDCG@5), used by every run of the system")

#: the upper end of the line search's bracket (:func:`~ltrrepro.objectives.pairwise.qbrank_step`)
MAX_STEP = inspect.signature(qbrank_step).parameters["max_step"].default


def tree_learner(library: str, leaves: int) -> str:
    """The regression trees of the library, in words, from the settings the runs pass it
    (:class:`~ltrrepro.fit.Boosting`'s bins and leaf size; the backend says how it grows them)."""
    return BACKENDS[library].tree_learner(leaves, Boosting())


def _trees(cfg) -> bool:
    return any(m != "ranksvm" for m in cfg.models)


def as_paper(cfg) -> list[str]:
    """Settings taken from the paper (§3, Algorithm 2, §4)."""
    out = []
    if _trees(cfg) and cfg.shared_params == "paper" and (cfg.eta, cfg.leaves) == (PAPER_ETA, PAPER_LEAVES) \
            and not cfg.tune:
        out.append(f"η {PAPER_ETA:g} and {PAPER_LEAVES}-leaf regression trees, one pair shared by all six runs "
                   "(§4: tuned for GBT, not retuned for QBRank)")
    if "qbrank" in cfg.models and cfg.w == PAPER_W:
        out.append(f"QBRank's objective with w = {cfg.w:g} and τ = |grade difference| of the pair (§4)")
        if BACKENDS[cfg.library].rewrites_leaves:
            out.append("QBRank's update h ← h + η s_m g_m with the step s_m from a line search on R (Algorithm 2)")
    out.append("L1 = the queries whose documents share one grade; P2, P3: every within-query pair of different "
               "grades of L2, L3 (ties excluded)")
    if cfg.tied_pairs == "non-contradicting":
        out.append("precision at K% over the test pairs sorted by |h(x) − h(y)|: a pair the model scores tied does "
                   "not contradict its preference (the paper's 'non-contradicting')")
    return out


def choices(cfg, valid_share: float) -> list[str]:
    """Where Zheng et al. are silent, what this run does (``valid_share``: the share of L2's
    queries the protocol holds out for validation)."""
    out = []
    if _trees(cfg):
        if cfg.shared_params == "tuned":
            out.append(f"the paper tunes by cross validation: we tune once per trial on the validation part of L2 "
                       f"({int(valid_share * 100)}% of its queries), by GBT(L2)'s DCG-5 over {list(cfg.grid)}")
        out.append(f"the paper gives no number of boosting iterations: we run {cfg.rounds} for every tree run (the "
                   "harness's choice; GBT and QBRank keep all of them)")
        out.append(f"the regression trees: {tree_learner(cfg.library, cfg.leaves)} (a tree may stop short of the count "
                   "when no split is allowed); the paper does not describe its tree learner")
        out.append("starting scores: GBT from the mean training grade, QBRank from 0 (the paper does not say)")
    if "qbrank" in cfg.models and BACKENDS[cfg.library].rewrites_leaves:
        out.append(f"the line search: a bounded scalar minimization of R(h + s·g) over s ∈ [0, {MAX_STEP:g}], s = 0 when "
                   "no step decreases R (the paper gives no bracket)")
    out += [f"the L2 / L3 split at random per trial in the paper's 1300:1400 query ratio, "
            f"{int(valid_share * 100)}% of L2's queries held out for validation (tuning)",
            "DCG-5 gain 2^g − 1 (the paper gives none)",
            "precision at K%: equal margins keep pair order"]
    return out


def deviations(cfg, base: list[str]) -> list[str]:
    """The run's deviations: the generic ones (``base``: data, trials) and Zheng's own."""
    out = list(base)
    if _trees(cfg) and cfg.shared_params == "tuned":
        out.append(f"{cfg.shared_text()}, not the paper's η {PAPER_ETA:g} and {PAPER_LEAVES} leaves (the paper tuned "
                   "GBT by cross validation and kept its values for QBRank)")
    elif _trees(cfg) and (cfg.eta, cfg.leaves) != (PAPER_ETA, PAPER_LEAVES) and not cfg.tune:
        out.append(f"{cfg.shared_text()}, not the paper's η {PAPER_ETA:g} and {PAPER_LEAVES} leaves")
    if "qbrank" in cfg.models and cfg.w != PAPER_W:
        out.append(f"QBRank's w = {cfg.w:g}, not the paper's {PAPER_W:g}")
    if "qbrank" in cfg.models and not BACKENDS[cfg.library].rewrites_leaves:
        out.append(f"{BACKENDS[cfg.library].label}: QBRank without the per-round line search (η only)")
    if cfg.tied_pairs != "non-contradicting":
        out.append("precision at K% counts a tied pair as contradicting (the paper counts non-contradicting pairs: a "
                   "tie does not contradict)")
    if "qbrank" in cfg.models:
        out.append("QBRank's tree fit weights a document by its number of pairs (Newton leaves −Σg/Σh with h = w per "
                   "pair), where Algorithm 2 fits each document's averaged target once")
    for key, spec in cfg.plugins:
        out.append(f"extension: plug-in {spec} trained on L2 (the trial's shared η and leaves, at most {cfg.rounds} "
                   "trees picked on validation NDCG@5); not a system of the paper")
    if "ranksvm" in cfg.models:
        out.append(f"RankSVM: linear, squared hinge on standardized features, solved in the primal (Chapelle & "
                   f"Keerthi 2010), C tuned over {list(cfg.c_grid)}, at most {cfg.max_pairs:,} pairs sampled "
                   "uniformly (the paper does not give its RankSVM's form)")
    return out
