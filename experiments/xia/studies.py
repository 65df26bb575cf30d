"""Xia, Zhai and Wang's study of split principles as an :class:`~experiments.registry.Experiment`
record: its configuration (each field's flag declared by :class:`.protocol.XiaConfig`) and units
(the unit is :func:`.protocol.unit_fn`, the report :func:`.report.build` of :func:`.report.frame`)."""
from __future__ import annotations


from experiments.registry import Experiment, register
from experiments.xia.report import build as build_report, frame
from experiments.xia.paper import PAPER_ROUNDS
from experiments.xia.protocol import EXPERIMENT, SEARCH, XiaConfig, build_units, unit_fn
from ltrrepro.datasets import REGISTRY, has_folds, is_synthetic, locate_fold

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


def check_folds(cfg: XiaConfig) -> None:
    """A fold layout's units read the official folds: they are there, before any work."""
    if cfg.fold_layout:
        for fold in range(1, cfg.trials + 1):
            locate_fold(cfg.dataset, cfg.data_dir, fold)


register(Experiment(
    name=EXPERIMENT, paper="xia", title="Xia et al.: SE vs OLE split principles for McRank and LambdaMART",
    doc=DOC, config_cls=XiaConfig, units=build_units,
    unit_fn=unit_fn, build=build_report, frame=frame, tuning=SEARCH,
    reads_data=lambda cfg: not cfg.fold_layout,
    before=check_folds, paper_trials=1, paper_datasets=("web10k", "yahoo"),
    default=lambda: XiaConfig(experiment=EXPERIMENT, queries=300, trials=3,
                              rounds=(("mcrank", 60), ("lambdamart", 60)), every=3),
    data_defaults=lambda dataset: {} if is_synthetic(dataset) else {
        "queries": None, "trials": REGISTRY[dataset].n_folds if has_folds(dataset) else 3, "rounds": tuple(PAPER_ROUNDS.items()),
        "every": max(PAPER_ROUNDS.values()) // 20}))
