"""Zheng et al. (2007): QBRank against GBT and RankSVM — Table 1 and Figure 1 (docs/protocols/zheng2007.md).

    python -m experiments.qbrank [--dataset yahoo --data-dir DIR] [--trials N] [--rounds 300]

Six runs per trial on the trial's L1/L2/L3 split (a paired design): GBT(L1), GBT(L2),
GBT(L1 ∪ L2) (squared loss, η and leaves tuned on validation DCG-5 over ``--gbt-grid``),
QBRank(P2), QBRank(P2 ∪ L1) (Zheng's Algorithm 2, w = 0.5, the η and leaf count GBT's
tuning picks on the same judgments — ``--qbrank-params paper`` fixes η = 0.05 and 20 leaves —
and the per-round line search — LightGBM; with ``--library xgboost`` η only, a stated
deviation) and
RankSVM(P2) (squared hinge, primal Newton, C tuned over {0.01, 0.1, 1}, at most
``--max-pairs`` pairs). ``--models`` picks systems: gbt, qbrank, ranksvm. Precision at K% on
P3 (a tied pair counts as non-contradicting, the paper's word; ``--tied-pairs contradicting``
for the strict rule) and DCG-5 on L3, DCG-5 every ``--every`` rounds for the curves.
"""
from __future__ import annotations

import sys

from experiments.cli import UsageError, cli, make_parser, parse_names, positive_int
from experiments.study import config_or_manifest, execute
from experiments.zheng2007.protocol import (EXPERIMENT, QBRANK_PARAMS, SYSTEM_NAMES, ZhengConfig, build_units,
                                            train_size, unit_fn)
from ltrrepro.metrics import TIED_PAIRS
from experiments.zheng2007.report import report


def _grid(text: str) -> tuple:
    try:
        grid = tuple((float(a), int(b)) for a, b in (x.split(":") for x in text.split(",") if x.strip()))
    except ValueError:
        raise UsageError(f"--gbt-grid takes eta:leaves pairs, e.g. 0.05:10,0.1:20; got {text!r}") from None
    return grid


def build(a) -> ZhengConfig:
    synthetic = a.dataset.startswith("synthetic")
    return ZhengConfig(experiment=EXPERIMENT, dataset=a.dataset, data_dir=a.data_dir,
                       queries=(a.queries or 1500) if synthetic else a.queries,
                       trials=a.trials or (3 if synthetic else 10), seed=a.seed, library=a.library,
                       models=tuple(parse_names(a.models, SYSTEM_NAMES, "--models", "system")),
                       rounds=a.rounds or (150 if synthetic else 300), every=a.every, grid=_grid(a.gbt_grid),
                       max_pairs=a.max_pairs, qbrank_params=a.qbrank_params, tied_pairs=a.tied_pairs)


@cli
def main(argv=None) -> int:
    ap = make_parser(__doc__, "dataset", "data-dir", "queries", "trials", "library", "rounds", "models", "every",
                     dataset="synthetic-yahoo", models=",".join(SYSTEM_NAMES), every=10)
    ap.add_argument("--max-pairs", type=positive_int, default=200_000, help="RankSVM: pairs sampled from P2 at most")
    ap.add_argument("--gbt-grid", default="0.05:10,0.05:20,0.1:10,0.1:20", help="GBT tuning grid eta:leaves,...")
    ap.add_argument("--qbrank-params", choices=QBRANK_PARAMS, default="gbt-tuned",
                    help="QBRank's eta and leaves: GBT's tuned ones (the paper's, default) or the fixed 0.05 / 20")
    ap.add_argument("--tied-pairs", choices=TIED_PAIRS, default="non-contradicting",
                    help="precision at K%%: a pair scored tied counts as non-contradicting (the paper, default) or "
                         "contradicting")
    args = ap.parse_args(argv)
    cfg = config_or_manifest(args, argv, build, ZhengConfig, EXPERIMENT)
    return execute(cfg, args, build_units(cfg), unit_fn, report, size_of=train_size)


if __name__ == "__main__":
    sys.exit(main())
