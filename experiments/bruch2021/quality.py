"""Bruch Table 1: ranking quality of ListNet, λMART and XE_NDCG MART, with library baselines.

    python -m experiments.quality [--dataset web30k --data-dir DIR] [--trials 100] [--library lightgbm]

Models (all on the same split of each trial): ListNet and XE_NDCG MART (ltrrepro's
objectives, Neumann order 2), λMART (the library's LambdaMART: LightGBM ``lambdarank`` with
σ = 1 and ``lambdarank_norm=false``, or XGBoost ``rank:ndcg``), and the library baselines
LightGBM ``rank_xendcg`` and XGBoost ``rank:ndcg``. Early stopping on validation NDCG@5
(queries without a relevant document dropped), 50 rounds, at most 500 trees with the paper's
presets. Reports mean test NDCG@1/3/5/10 over trials, paired t-tests of every pair of the
paper's models on NDCG@5 and @10 (α = 0.01, Holm across the comparisons also given), the
paper's numbers side by side for Web30K and Yahoo, and the claims check
"XE_NDCG MART > λMART > ListNet on NDCG@5 and @10".
"""
from __future__ import annotations

import sys

from experiments import analysis as an
from experiments.bruch2021.protocol import BruchConfig, config_from_args, train_size, unit_fn
from experiments.bruch2021.report import table1
from experiments.bruch2021.report.table1 import BASELINES, PAPER_MODELS
from experiments.cli import cli, make_parser
from experiments.study import config_or_manifest, execute
from ltrrepro.report import Report
from ltrrepro.runner import Unit

EXPERIMENT = "quality"


def build_units(cfg: BruchConfig) -> list[Unit]:
    return [Unit(EXPERIMENT, cfg.unit_dataset, t, m, (("noise", "none"),), seed=cfg.seed)
            for t in range(cfg.trials) for m in cfg.models]


def report(store) -> Report:
    """Table 1 of the run in ``store`` (:func:`experiments.bruch2021.report.table1.build`), written."""
    cfg, deviations, choices = an.stored_config(store, BruchConfig)
    return table1.build(an.frame(store, arrays=table1.ARRAYS), cfg, deviations, choices).write(store.root)


@cli
def main(argv=None) -> int:
    ap = make_parser(__doc__, "dataset", "data-dir", "queries", "trials", "library", "preset", "rounds", "device",
                     "baseline", "models")
    args = ap.parse_args(argv)
    cfg = config_or_manifest(args, argv, lambda a: config_from_args(
        a, EXPERIMENT, synthetic_trials=5, synthetic_queries=400, default_models=(*PAPER_MODELS, *BASELINES)),
        BruchConfig, EXPERIMENT)
    return execute(cfg, args, build_units(cfg), unit_fn, report, size_of=train_size)


if __name__ == "__main__":
    sys.exit(main())
