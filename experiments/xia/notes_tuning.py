"""Xia et al.'s protocol notes under ``--tune N`` (docs/tuning.md): what a tuned run adds to the
three columns (:meth:`.protocol.XiaConfig.as_paper`, ``choices``, ``deviations``; nothing without one)."""
from __future__ import annotations

from ltrrepro.fit.space import GBDT_SPACE, describe

__all__ = ["tuning_notes"]


def tuning_notes(cfg) -> dict:
    """The three protocol-note columns' sentences of a tuned run (empty lists without ``--tune``)."""
    if not cfg.tune:
        return {"as_paper": [], "choices": [], "deviations": []}
    valid = "the fold's official validation file" if cfg.fold_layout else "the split's 20% validation part"
    where = ("trial 0's training part and " + valid + " (one search per arm, its best configuration frozen and "
             "shared by every trial)" if cfg.tune_on == "first-split" else
             "each trial's own training part and " + valid + " (one search per arm and trial)")
    space = "; ".join(f"{k} {v}" for k, v in describe(GBDT_SPACE).items())
    dev = [f"hyperparameters tuned (--tune {cfg.tune}, Optuna TPE, median pruning) per arm, in place of the paper's "
           "grid of leaves × learning rates: OLE and SE are compared each at its own tuned values (the tables' "
           "leaves 0, lr 0 cell)"]
    if cfg.tune_on == "first-split" and not cfg.fold_layout:
        dev.append("first-split tuning: with random query splits the search on trial 0 has seen queries that later "
                   "trials test on (--tune-on per-trial avoids it)")
    return {"as_paper": ["the test parts are never read by a search: it selects on validation data"],
            "choices": [f"every arm tuned with the same budget of {cfg.tune} configurations on {where}; the "
                        f"objective: validation NDCG@10 (gain 2^y − 1, queries without a relevant document dropped) "
                        f"at the arm's last round; the space (ltrrepro.fit.space.GBDT_SPACE, the tree learner's): "
                        f"{space}; growth, leaf rule, split rule and rounds as the run's"],
            "deviations": dev}
