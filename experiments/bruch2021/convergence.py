"""Bruch Figure 2: validation NDCG@5 against the number of trees, λMART vs XE_NDCG MART.

    python -m experiments.convergence [--dataset web30k --data-dir DIR] [--trials N]

Each model is trained to the preset's maximum number of trees with early stopping switched
off, so every curve covers the whole range (the curve of a model selected by early
stopping is the prefix of this one). The figure shows one representative trial (the trial
whose final difference is the median one) and the mean over trials with a 95% band.
Claim checked: XE_NDCG's lead is larger when the ensemble is small — the per-trial lead at
10% of the trees minus the lead at the end, paired t-test.
"""
from __future__ import annotations

import sys

from experiments import analysis as an
from experiments.bruch2021.protocol import BruchConfig, config_from_args, train_size, unit_fn
from experiments.bruch2021.report import figure2
from experiments.bruch2021.report.figure2 import MODELS
from experiments.cli import cli, make_parser
from experiments.study import config_or_manifest, execute
from ltrrepro.report import Report
from ltrrepro.runner import Unit

EXPERIMENT = "convergence"


def report(store) -> Report:
    """Figure 2 of the run in ``store`` (:func:`experiments.bruch2021.report.figure2.build`), written."""
    cfg, deviations, choices = an.stored_config(store, BruchConfig)
    return figure2.build(an.frame(store, fields=figure2.FIELDS), cfg, deviations, choices).write(store.root)


def build_units(cfg: BruchConfig) -> list[Unit]:
    return [Unit(EXPERIMENT, cfg.unit_dataset, t, m, (("noise", "none"),), seed=cfg.seed)
            for t in range(cfg.trials) for m in MODELS]


@cli
def main(argv=None) -> int:
    ap = make_parser(__doc__, "dataset", "data-dir", "queries", "trials", "library", "preset", "rounds", "device")
    args = ap.parse_args(argv)
    cfg = config_or_manifest(args, argv, lambda a: config_from_args(
        a, EXPERIMENT, synthetic_trials=4, synthetic_queries=400, real_trials=100, default_models=MODELS,
        early_stopping=False), BruchConfig, EXPERIMENT)
    return execute(cfg, args, build_units(cfg), unit_fn, report, size_of=train_size)


if __name__ == "__main__":
    sys.exit(main())
