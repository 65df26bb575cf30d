"""Bruch's protocol notes under ``--tune N`` (docs/tuning.md): what :func:`.notes.as_paper`,
:func:`.notes.choices` and :func:`.notes.deviations` add for a tuned run (nothing without one)."""
from __future__ import annotations

__all__ = ["tuning_notes"]


def tuning_notes(cfg) -> dict:
    """The three protocol-note columns' sentences of a tuned run (empty without ``--tune``)."""
    if not cfg.tune:
        return {"as_paper": [], "choices": [], "deviations": []}
    where = ("trial 0's training and validation parts (one search per system, its best configuration frozen and "
             "shared by every trial)" if cfg.tune_on == "first-split" else
             "each trial's own training and validation parts (one search per system and trial)")
    dev = [f"hyperparameters tuned (--tune {cfg.tune}, Optuna TPE, median pruning), not the paper's fixed settings "
           "(Table 1 is reported at both)"]
    if cfg.tune_on == "first-split":
        dev.append("first-split tuning: with random query splits the search on trial 0 has seen queries that later "
                   "trials test on (--tune-on per-trial avoids it)")
    return {"as_paper": ["tuning selects on validation NDCG@5, the paper's model-selection metric; the test parts are "
                         "never read by a search"],
            "choices": [f"every system tuned with the same budget of {cfg.tune} configurations on {where}; the space "
                        "(ltrrepro.fit.space): learning rate log-uniform [0.01, 0.3], leaves [7, 255] and documents "
                        "per leaf [10, 200] log-uniform, feature and bagging fractions [0.5, 1], L2 [0.001, 10] "
                        "log-uniform, and a plug-in's own declared parameters; rounds and early stopping as the preset"],
            "deviations": dev}
