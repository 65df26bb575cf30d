"""Zheng et al.'s protocol notes under ``--tune N`` (docs/tuning.md): what :func:`.notes.as_paper`,
:func:`.notes.choices` and :func:`.notes.deviations` add for a tuned run (nothing without one)."""
from __future__ import annotations

from ltrrepro.fit.space import TREE_SPACE, describe

__all__ = ["tuning_notes"]


def tuning_notes(cfg) -> dict:
    """The three protocol-note columns' sentences of a tuned run (empty lists without ``--tune``)."""
    if not cfg.tune:
        return {"as_paper": [], "choices": [], "deviations": []}
    where = ("trial 0's L2 training and validation parts (one search per system, its best configuration frozen and "
             "shared by every trial)" if cfg.tune_on == "first-split" else
             "each trial's own L2 training and validation parts (one search per system and trial)")
    space = "; ".join(f"{k} {v}" for k, v in describe(TREE_SPACE).items())
    dev = [f"hyperparameters tuned (--tune {cfg.tune}, Optuna TPE, median pruning) per tree system, not the paper's "
           "one η and leaf count tuned for GBT and shared by every run (§4)"]
    if cfg.tune_on == "first-split":
        dev.append("first-split tuning: with random L2/L3 splits the search on trial 0 has seen queries that later "
                   "trials test on (--tune-on per-trial avoids it)")
    return {"as_paper": ["the paper tunes on held-out judgments: the searches select on the validation part of L2, "
                         "never on L3"],
            "choices": [f"every tree system (GBT, QBRank, a plug-in) tuned with the same budget of {cfg.tune} "
                        f"configurations on {where}, QBRank on L2's pairs (P2); each system's values used by all its "
                        f"runs (GBT(L1), GBT(L1∪L2) take GBT's); the objective: its validation DCG-5 at the last of "
                        f"{cfg.rounds} rounds (a plug-in: its early-stopped NDCG@5); the space (ltrrepro.fit.space, "
                        f"the library's): {space}; RankSVM keeps its C grid"],
            "deviations": dev}
