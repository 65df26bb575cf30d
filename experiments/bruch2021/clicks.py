"""Bruch Figure 4 (appendix E): λMART vs XE_NDCG MART trained on simulated cascade clicks.

    python -m experiments.clicks [--dataset web30k --data-dir DIR] [--levels 0.05,0.1,...] [--trials 20]

Per trial: the 60/20/20 split; every training and validation list is turned into 10
impressions of a persistent cascade user over a random shuffle (click probabilities
(C, .3, .5, .7, .95) for labels 0–4; a scan without a click gives no impression); models
are trained and early-stopped on clicks and evaluated on the original test labels. The
level C is the label-0 click probability, from .05 in steps of .05 (Bruch 2021 appendix E; docs/protocols/bruch2021.md §6; 20 trials
on real data). Claim checked: XE_NDCG is more robust to click noise (the per-trial slope of
the NDCG@5 difference against C is positive).
"""
from __future__ import annotations

import sys

from experiments import analysis as an
from experiments.bruch2021.protocol import BruchConfig, config_from_args, train_size, unit_fn
from experiments.bruch2021.report import noise
from experiments.cli import UsageError, cli, make_parser, parse_levels, positive_int
from experiments.study import config_or_manifest, execute
from ltrrepro.report import Report
from ltrrepro.runner import Unit

EXPERIMENT = "clicks"
MODELS = ("lambdamart", "xendcg")


def report(store) -> Report:
    """Figure 4 of the run in ``store`` (:func:`experiments.bruch2021.report.noise.build`), written."""
    cfg, deviations, choices = an.stored_config(store, BruchConfig)
    return noise.build(an.frame(store), cfg, deviations, choices, noise.FIGURE4).write(store.root)


def build_units(cfg: BruchConfig) -> list[Unit]:
    return [Unit(EXPERIMENT, cfg.unit_dataset, t, m, (("noise", "clicks"), ("level", c)), seed=cfg.seed)
            for t in range(cfg.trials) for c in cfg.levels for m in cfg.models]


@cli
def main(argv=None) -> int:
    ap = make_parser(__doc__, "dataset", "data-dir", "queries", "trials", "library", "preset", "rounds", "device",
                     "baseline", "models", "levels", levels="0.05,0.1,0.15,0.2,0.25,0.3")
    ap.add_argument("--impressions", type=positive_int, default=10, help="impressions per list (default 10)")
    ap.add_argument("--click-model", choices=("cascade", "pbm"), default="cascade",
                    help="cascade (the paper) or the position-based model (option)")
    ap.add_argument("--eta", type=float, default=None, help="pbm only: examination probability (1/rank)^eta "
                                                            "(default 1)")
    args = ap.parse_args(argv)

    def build(a):
        levels = parse_levels(a.levels)              # in [0, 1]: checked by the configuration
        if a.eta is not None and a.click_model != "pbm":
            raise UsageError("--eta is the position-based model's parameter: use it with --click-model pbm")
        eta = 1.0 if a.eta is None else a.eta
        if not eta > 0:
            raise UsageError(f"--eta must be > 0, got {eta}")
        return config_from_args(a, EXPERIMENT, synthetic_trials=4, synthetic_queries=400, default_models=MODELS,
                                noise=("clicks",), levels=tuple(levels), impressions=a.impressions,
                                click_model=a.click_model, eta=eta)

    cfg = config_or_manifest(args, argv, build, BruchConfig, EXPERIMENT)
    return execute(cfg, args, build_units(cfg), unit_fn, report, size_of=train_size)


if __name__ == "__main__":
    sys.exit(main())
