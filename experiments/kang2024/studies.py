"""The Hessian study as an :class:`~experiments.registry.Experiment` record: configuration (each
field's flag declared by :class:`.protocol.HessianConfig`), units, unit, search and report (the unit is :func:`.protocol.unit_fn`, the report
:func:`.report.build`)."""
from __future__ import annotations

from experiments import parts as split_parts
from experiments.kang2024 import notes
from experiments.kang2024.protocol import EXPERIMENT, HessianConfig, build_units, train_size, tuning_parts, unit_fn
from experiments.kang2024.report import build, frame
from experiments.registry import Experiment, register
from experiments.tuning import Search
from ltrrepro.datasets import is_synthetic

DOC = """Does second-order information matter for ranking GBDTs? Each loss under each Hessian treatment,
the same gradient, seed and data in every arm (Kang, de Rijke, Oosterhuis, SIGIR 2024; Bruch 2021's
Neumann series; docs/protocols/kang2024.md).

    python -m experiments.hessian [--dataset yahoo --data-dir DIR] [--trials N] [--tune N]
                                  [--hessian-policy abs|clip|none] [--metric ndcg|kang] [--margin 0.01]
                                  [--paper-rounds 1000] [--split official|random]

Arms (--models): PL-Rank-3 with Kang et al.'s sampled Hessian (N = --samples rankings per query)
and with Hessian 1; XE_NDCG with the Neumann series of order 0, 1, 2, 3, the exact Newton step and
Hessian 1; λMART's lambdas with their λ-Hessian and Hessian 1; ListNet with its exact diagonal and
Hessian 1; the library's own λMART. On Yahoo! (a registered dataset) its official parts, as the
authors (--split official; the trials differ by the model seed), else per trial a random 60/20/20
query split; early stopping on validation NDCG@10; test NDCG@10 per query and Kang et al.'s mean
DCG@10 / mean IDCG@10. Beside the arms: the two PL-Rank arms along --lr-grid (validation NDCG@10 against the learning rate) and the
sampled arm along --sweep-samples (NDCG@10 and time per round against N). --tune N tunes every arm
with the same budget (the constant arms on a wider learning-rate range). Claims: sampled ≫ constant
and sampled PL-Rank within ±margin of the library's λMART (Kang et al.), order-2 Neumann within
±margin of exact (Bruch), and per loss some Hessian treatment beats Hessian 1, each again in the
paper's column (PL-Rank at Kang et al.'s settings: 1,000 rounds of depth-8 trees in XGBoost). The
default run (synthetic Yahoo profile, 150 queries, 5 trials, LightGBM, 125 units) took 5.3 minutes
on 2 cores, most of it the paper's column (--paper-rounds 0 leaves it out: under 2 minutes)."""

#: what a search needs (``--tune``): the trial's parts, the preset's boosting, the PL-Rank arms' N,
#: K and Hessian policy fixed, selected on the validation NDCG@10 as every unit; every configuration
#: trained to its end (no pruning: the authors' search pruned nothing, and the claims rest on tuning)
SEARCH = Search(parts=tuning_parts, base=lambda cfg, model: cfg.base_boosting(model, search=True),
                options=lambda cfg, model: cfg.options(model), metric="ndcg@10", words=notes.TUNING,
                prune=False)


register(Experiment(
    name=EXPERIMENT, paper="kang2024", title="Does second-order information matter for ranking GBDTs? Hessian "
                                             "treatments per loss (Kang et al. 2024, Bruch 2021)",
    doc=DOC, config_cls=HessianConfig, units=build_units, unit_fn=unit_fn, build=build, frame=frame,
    size_of=train_size, tuning=SEARCH, paper_trials=1, paper_datasets=("yahoo",),
    default=lambda: HessianConfig(experiment=EXPERIMENT, queries=150, trials=5),
    data_defaults=lambda dataset: {} if is_synthetic(dataset) else {"queries": None, "trials": 5,
                                                                     **split_parts.default(dataset)},
    reads_data=lambda cfg: not split_parts.official(cfg), before=split_parts.before))
