"""Bruch Figure 3a–d: robustness of λMART and XE_NDCG MART to noise in the training data.

    python -m experiments.robustness [--dataset web30k --data-dir DIR] [--noise documents,labels]
                                     [--levels 0,20,40,60,80,100] [--trials N] [--jobs J]

``--noise documents``: every training list grows by LEVEL % with documents sampled from
other training lists, labelled 0. ``--noise labels``: LEVEL % of each training list's labels
are redrawn with probabilities .5/.2/.15/.1/.05 for 0–4. Validation and test data are
untouched (Bruch 2021 §5.4; docs/protocols/bruch2021.md §6). Level 0 is one shared setting. Both models of a trial see the
same split and the same noisy data (paired design); λMART is the library's LambdaMART
(LightGBM ``lambdarank``, σ = 1, no normalization; XGBoost ``rank:ndcg`` with
``--library xgboost``) and XE_NDCG MART is ltrrepro's objective.

Writes, under the results directory: ``tables/robustness.{md,tex,csv}`` (mean NDCG@5 per
model and level, the difference, its 95% CI, paired t-test p, Holm-corrected p over the
levels of a noise type, wins/ties/losses), ``figures/fig3_<noise>.{png,pdf}`` and the
claims check ``claims.{md,json}``. With no arguments it runs on the synthetic Web30K
profile at a size that finishes in about 3–4 minutes on 2 cores (the README's main job).
"""
from __future__ import annotations

import sys

from experiments import analysis as an
from experiments.bruch2021.protocol import BruchConfig, config_from_args, train_size, unit_fn
from experiments.bruch2021.report import noise
from experiments.cli import cli, make_parser, parse_levels
from experiments.study import config_or_manifest, execute
from ltrrepro.report import Report
from ltrrepro.runner import Unit

EXPERIMENT = "robustness"
MODELS = ("lambdamart", "xendcg")


def check_levels(levels_text: str, noise_text: str) -> tuple[tuple, tuple]:
    """(levels, noise types) of the command line; their validity is checked by the
    configuration (:func:`experiments.bruch2021.checks.check_settings`), as for a manifest."""
    return tuple(parse_levels(levels_text)), tuple(n.strip() for n in noise_text.split(",") if n.strip())


def build_units(cfg: BruchConfig) -> list[Unit]:
    settings = []
    if 0 in cfg.levels:
        settings.append((("noise", "none"), ("level", 0)))
    for n in cfg.noise:
        settings += [(("noise", n), ("level", lv)) for lv in cfg.levels if lv != 0]
    return [Unit(EXPERIMENT, cfg.unit_dataset, t, m, s, seed=cfg.seed)
            for t in range(cfg.trials) for s in settings for m in cfg.models]


def report(store) -> Report:
    """Figure 3 of the run in ``store`` (:func:`experiments.bruch2021.report.noise.build`), written."""
    cfg, deviations, choices = an.stored_config(store, BruchConfig)
    return noise.build(an.frame(store), cfg, deviations, choices, noise.FIGURE3).write(store.root)


@cli
def main(argv=None) -> int:
    ap = make_parser(__doc__, "dataset", "data-dir", "queries", "trials", "library", "preset", "rounds", "device",
                     "baseline", "models", "levels", levels="0,20,40,60,80,100")
    ap.add_argument("--noise", default="documents,labels", help="documents, labels or both (default both)")
    args = ap.parse_args(argv)

    def build(a):
        levels, noises = check_levels(a.levels, a.noise)
        return config_from_args(a, EXPERIMENT, synthetic_trials=6, synthetic_queries=400, default_models=MODELS,
                                noise=noises, levels=levels)

    cfg = config_or_manifest(args, argv, build, BruchConfig, EXPERIMENT)
    return execute(cfg, args, build_units(cfg), unit_fn, report, size_of=train_size)


if __name__ == "__main__":
    sys.exit(main())
