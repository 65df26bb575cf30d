"""Zheng et al. (2007)'s study of QBRank as an :class:`~experiments.registry.Experiment`
record: its configuration (each field's flag declared by :class:`.protocol.ZhengConfig`), units
and facts (the unit is :func:`.protocol.unit_fn`, the report :func:`.report.build` of
:func:`.report.frame`)."""
from __future__ import annotations


from experiments.errors import UsageError
from experiments.registry import Experiment, register
from experiments.tuning import Search
from experiments.zheng2007.notes import TUNING
from experiments.zheng2007.protocol import EXPERIMENT, ZhengConfig, build_units, train_size, unit_fn, zheng_split
from experiments.zheng2007.report import build as build_report, frame
from ltrrepro.runner import DataRef
from ltrrepro.datasets import is_synthetic

DOC = """Zheng et al. (2007): QBRank against GBT and RankSVM — Table 1 and Figure 1 (docs/protocols/zheng2007.md).

    python -m experiments.qbrank [--dataset yahoo --data-dir DIR] [--trials N] [--rounds 300]

Six runs per trial on the trial's L1/L2/L3 split (a paired design): GBT(L1), GBT(L2),
GBT(L1 ∪ L2) (squared loss), QBRank(P2), QBRank(P2 ∪ L1) (Zheng's Algorithm 2, w = 0.5, the
per-round line search — LightGBM; with ``--library xgboost`` η only, a stated deviation) — every
tree run of a trial at one η and leaf count: the paper's 0.05 and 20 (``--eta``, ``--leaves``),
or with ``--shared-params tuned`` the pair of ``--gbt-grid`` that GBT(L2)'s validation DCG-5
picks, tuned once per trial and shared — and
RankSVM(P2) (squared hinge, primal Newton, C tuned over {0.01, 0.1, 1}, at most
``--max-pairs`` pairs). The number of boosting iterations (``--rounds``) is the harness's
choice: the paper gives none. ``--models`` picks systems: gbt, qbrank, ranksvm, and plug-in
objectives ``package.module:Name(k=v)``: one more run each, trained on L2 beside GBT(L2). Precision at K% on
P3 (a tied pair counts as non-contradicting, the paper's word; ``--tied-pairs contradicting``
for the strict rule) and DCG-5 on L3, DCG-5 every ``--every`` rounds for the curves."""


def _tuning_parts(unit, ctx):
    """A search's (training, validation) parts (``--tune``): the trial's L2 and its validation part V, never L3."""
    ds = DataRef(**ctx.data).open()
    parts = zheng_split(ds, unit.seed, unit.trial)
    return ds.subset(parts["L2"]), ds.subset(parts["V"])


def _tuning_check(cfg) -> None:
    if cfg.shared_params == "tuned":
        raise UsageError("--tune searches every tree system's own configuration: drop --shared-params tuned "
                         "(GBT(L2)'s grid shared by every run)")


#: what a tree system's search needs (``--tune``): L2 and V (QBRank on L2's pairs), the configuration's boosting,
#: GBT's grid following each configuration, QBRank's w kept; every configuration with GBT(L2)'s model seed;
#: RankSVM keeps its C grid
SEARCH = Search(parts=_tuning_parts, base=lambda cfg, model: cfg.boosting(model),
                       options=lambda cfg, model: {"grid": None} if model == "gbt" else cfg.options(model),
                       check=_tuning_check, untuned=("ranksvm",), seed_setting=lambda setting: (("train", "L2"),),
                       metric="value", words=TUNING)


register(Experiment(
    name=EXPERIMENT, paper="zheng2007", title="Zheng et al.: QBRank against GBT and RankSVM", doc=DOC,
    config_cls=ZhengConfig, units=build_units, unit_fn=unit_fn, build=build_report,
    frame=frame, size_of=train_size, tuning=SEARCH, paper_trials=1,
    paper_datasets=("yahoo",),
    default=lambda: ZhengConfig(experiment=EXPERIMENT, queries=1500, trials=3, rounds=150),
    data_defaults=lambda dataset: {} if is_synthetic(dataset) else {"queries": None, "trials": 10,
                                                                               "rounds": 300}))
