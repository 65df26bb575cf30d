"""Xia, Zhai and Wang's study of split principles as an :class:`~experiments.registry.Experiment`
record: its flags, configuration and units (the unit is :func:`.protocol.unit_fn`, the
report :func:`.report.build` of :func:`.report.frame`)."""
from __future__ import annotations


from experiments.values import parse_levels, parse_models
from experiments.errors import UsageError
from experiments.registry import Experiment, get, register
from experiments.xia.report import build as build_report, frame
from experiments.xia.paper import PAPER_ROUNDS
from experiments.xia.protocol import EXPERIMENT, MODELS, SEARCH, XiaConfig, build_units, unit_fn
from ltrrepro.datasets import REGISTRY, has_folds, is_synthetic, locate_fold
from ltrrepro.fit.xia import GROWTH, LEAF_RULES, PRINCIPLES, SPLIT_RULES

DOC = """Xia, Zhai, Wang: the SE and OLE split principles for McRank and LambdaMART — Tables 2 and 3,
Figure 2 (docs/protocols/xia.md).

    python -m experiments.split_principles [--dataset web10k|yahoo --data-dir DIR] [--rounds N]

Systems (``--models``), all in ltrrepro.gbdt: ``mcrank-se``, ``mcrank-ole`` (McRank: OLE =
RWSE = the Newton gain, Theorem 1) and ``lambdamart-se``, ``lambdamart-ole``,
``lambdamart-rwse`` (LambdaMART: exact OLE; RWSE = the libraries' gain), over the grid
``--leaves`` × ``--rates``, a fixed number of rounds from zero scores. Trees grow
``--growth width-first`` (the paper's; ``best-first`` is LightGBM's order); leaves follow
``--leaf-rule diagonal`` (Eq. 8, the paper's SE baseline) or ``exact`` in every arm, or ``own``
(Eq. 8 for SE/RWSE, Eq. 11's exact step for OLE); ``--split-rule leaf-limit`` (the paper's)
or ``positive-gain``. Beside a ``diagonal`` (``own``) run, LambdaMART OLE is also grown with
exact (Eq. 8) leaves, the leaf arm: the final loss then splits into the split-principle effect
(Eq. 8 leaves in both arms), the leaf-rule effect (OLE splits, exact against Eq. 8 leaves) and
their sum, ``own``; ``--no-leaf-arm`` leaves it out.
``--rounds`` sets both systems' (default: the paper's 1,000 LambdaMART / 2,500 McRank on real
data; 60 / 60 on synthetic data, the default run: 300 queries, about 4 minutes on 2 cores before
the leaf arm's 18 more units; with them 14.7 minutes at load 6–8, quiet time not measured).
Folds: the official five of a fold layout (``--trials`` ≤ 5), else random 60/20/20 splits.
A loss of your own is an arm too: ``--models lambdamart-se,mylosses:Focal(gamma=2)-se`` (also
``-rwse``; ``-ole`` when the objective has ``grad_hess_pairs``), LambdaMART's rounds."""


def build(a) -> XiaConfig:
    d = get(EXPERIMENT).defaults_on(a.dataset)           # a flag left out: the study's default on this dataset
    rounds = dict(d["rounds"])
    if a.rounds is not None:
        rounds = {k: a.rounds for k in rounds}
    trials = a.trials or d["trials"]                     # real data: every official fold
    leaves = parse_levels(a.leaves, int, "--leaves")
    rates = parse_levels(a.rates, float, "--rates")
    if any(lv < 2 for lv in leaves) or any(not 0 < r <= 1 for r in rates):
        raise UsageError("--leaves must be >= 2 and --rates in (0, 1]")
    models, plugins = parse_models(a.models, MODELS, suffixes=PRINCIPLES)
    return XiaConfig(experiment=EXPERIMENT, dataset=a.dataset, data_dir=a.data_dir,
                     queries=a.queries or d["queries"], trials=trials, seed=a.seed,
                     models=models, plugins=plugins,
                     rounds=tuple(rounds.items()), every=a.every or max(1, max(rounds.values()) // 20),
                     leaves=tuple(leaves), rates=tuple(rates), growth=a.growth, leaf_rule=a.leaf_rule,
                     split_rule=a.split_rule, tune=a.tune or 0, tune_on=a.tune_on or "first-split",
                     leaf_arm=not a.no_leaf_arm)


def own_flags(ap) -> None:
    ap.add_argument("--leaves", default=",".join(map(str, XiaConfig.leaves)), help="leaf counts of the grid")
    ap.add_argument("--rates", default=",".join(map(str, XiaConfig.rates)), help="learning rates of the grid")
    ap.add_argument("--growth", choices=GROWTH, default=XiaConfig.growth,
                    help="tree growth: width-first (the paper's, default) or best-first (LightGBM's)")
    ap.add_argument("--leaf-rule", choices=LEAF_RULES, default=XiaConfig.leaf_rule,
                    help="leaf values: diagonal (Eq. 8, default) or exact (pairs inside a leaf removed from its second "
                         "derivative) in every arm, or own (Eq. 8 for SE/RWSE, Eq. 11's exact step for OLE)")
    ap.add_argument("--split-rule", choices=SPLIT_RULES, default=XiaConfig.split_rule,
                    help="when a node splits: leaf-limit (default, the paper's: exact OLE splits to the leaf limit "
                         "whatever its gain's sign) or positive-gain (gain > 0 only)")
    ap.add_argument("--no-leaf-arm", action="store_true",
                    help="without the leaf arm (LambdaMART OLE under the other leaf rule beside a diagonal or own "
                         "run): no leaf-rule effect and no decomposition of the loss claim")


def check_folds(cfg: XiaConfig) -> None:
    """A fold layout's units read the official folds: they are there, before any work."""
    if cfg.fold_layout:
        for fold in range(1, cfg.trials + 1):
            locate_fold(cfg.dataset, cfg.data_dir, fold)


register(Experiment(
    name=EXPERIMENT, paper="xia", title="Xia et al.: SE vs OLE split principles for McRank and LambdaMART",
    doc=DOC, config_cls=XiaConfig, flags=("dataset", "data-dir", "queries", "trials", "rounds", "models", "every", "tune",
                                          "tune-on"),
    defaults={"models": ",".join(MODELS)}, own_flags=own_flags, from_args=build, units=build_units,
    unit_fn=unit_fn, build=build_report, frame=frame, tuning=SEARCH,
    reads_data=lambda cfg: not cfg.fold_layout,
    before=check_folds, paper_trials=1, paper_datasets=("web10k", "yahoo"),
    default=lambda: XiaConfig(experiment=EXPERIMENT, queries=300, trials=3,
                              rounds=(("mcrank", 60), ("lambdamart", 60)), every=3),
    data_defaults=lambda dataset: {} if is_synthetic(dataset) else {
        "queries": None, "trials": REGISTRY[dataset].n_folds if has_folds(dataset) else 3, "rounds": tuple(PAPER_ROUNDS.items()),
        "every": max(PAPER_ROUNDS.values()) // 20}))
