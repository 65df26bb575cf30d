"""Lyzhin et al. (2023)'s protocol as the ``tricks`` study's :class:`~experiments.registry.Experiment`
record: flags, configuration, units, unit and report; ``--tune N`` declared as data
(:class:`experiments.tuning.Search`: one budget per system, on the validation part only)."""
from __future__ import annotations

import dataclasses
from functools import partial

from experiments import analysis as an
from experiments import parts as split_parts
from experiments.lyzhin2023 import notes
from experiments.lyzhin2023.claims import tuned_claims
from experiments.lyzhin2023.protocol import ABLATION_BASE, AS_DECLARED, TricksConfig, train_size, tuning_parts, unit_fn
from experiments.lyzhin2023.report import build, model_name
from experiments.registry import Experiment, register
from experiments.tuning import Search
from ltrrepro.datasets import is_synthetic
from ltrrepro.runner import Unit

EXPERIMENT = "tricks"

#: ``--tune``: one search per system on trial 0's training and validation parts (the validation value of
#: the metric it is trained for), starting from the preset (a tuned unit's ``hp_of`` is the preset too, so
#: search and unit agree); the tables and claims reported at the fixed settings (``--hp``) and tuned
SEARCH = Search(parts=tuning_parts, base=lambda cfg, model: cfg.fixed_at(model, "preset")[0],
                options=lambda cfg, model: cfg.options(model, hp="preset"), metric="its own metric", keep_fixed=True,
                words=dataclasses.replace(notes.TUNING, name_of=model_name), twin=tuned_claims,
                prune=False)        # the study relies on its tuning: no configuration stopped early (notes)

DOC = """Which tricks matter for GBDT ranking (Lyzhin, Ustimenko, Gulin, Prokhorenkova, ICML 2023), across
LightGBM, XGBoost and CatBoost (docs/protocols/lyzhin2023.md).

    python -m experiments.tricks [--dataset web30k --data-dir DIR] [--trials N] [--tune N]
                                 [--families yetiloss,lambdamart,...] [--targets ndcg,mrr,map,err]
                                 [--ablations noise-No,neighbors-3,trees-leafwise] [--grow-policy Lossguide]
                                 [--split official|random] [--hp defaults|preset]

The parts (--split): on a registered dataset its official train/validation/test parts, as the paper
(Fold 1 of MSLR; Istella, which has no validation part, gets 20% of its training queries drawn with
the run's seed, said at the start of the run), the trials differing in the model seed only; on
synthetic data and your files (or --split random) a 60/20/20 query split of the pooled queries per
trial. Every system early-stopped on the validation value of its own metric and tested on NDCG@10,
MRR@10, MAP@10 (grades >= 1 relevant) and ERR@10. Families (--families): lgb_lambdarank,
lgb_rank_xendcg, xgb_rank_ndcg, xgb_rank_pairwise, xgb_rank_map, yetirank, yetirank_pairwise,
yetiloss (YetiRank:mode=...), lambdamart and stochasticrank (CatBoost's, metric=...), queryrmse,
querysoftmax; each family's variant trained for each --targets metric. Hyper-parameters (--hp): each
library's own defaults but the number of trees (the run's rounds, early-stopped on validation), as the
paper's §4.2 comparison at default hyper-parameters, or --preset in every library; --tune N adds every
system tuned from the preset (the tuned tables beside the fixed ones). CatBoost's trees are its
default symmetric ones, as the paper used them (--grow-policy Lossguide: leaf-wise). Ablations of
YetiLoss (NDCG) as paired differences: noise-No, noise-Gauss, neighbors-3, neighbors-8,
denominator-LogPosition, gain-Exp, trees-leafwise (the train–test gap of oblivious vs leaf-wise
trees). CatBoost's systems are skipped, with one line, where it is not installed. The default
(synthetic Web30K profile, 80 queries, 30 rounds, 2 trials, six families on NDCG and MRR, three
ablations) takes a few minutes on 2 cores."""


def units(cfg: TricksConfig) -> list[Unit]:
    """Every system as declared per trial, then the ablations of YetiLoss (NDCG) where it runs."""
    out = [Unit(EXPERIMENT, cfg.unit_dataset, t, m, (("ablation", AS_DECLARED),), seed=cfg.seed)
           for t in range(cfg.trials) for m in cfg.models]
    base = ABLATION_BASE if ABLATION_BASE in cfg.models or cfg.available(ABLATION_BASE) else None
    if base is not None and cfg.ablations:
        if base not in cfg.models:
            out += [Unit(EXPERIMENT, cfg.unit_dataset, t, base, (("ablation", AS_DECLARED),), seed=cfg.seed)
                    for t in range(cfg.trials)]
        out += [Unit(EXPERIMENT, cfg.unit_dataset, t, base, (("ablation", a),), seed=cfg.seed)
                for t in range(cfg.trials) for a in cfg.ablations]
    return out


register(Experiment(
    name=EXPERIMENT, paper="lyzhin2023", title="Which tricks matter for GBDT ranking: YetiLoss, LambdaMART, "
                                               "StochasticRank across three libraries (Lyzhin et al. 2023)",
    doc=DOC, config_cls=TricksConfig, units=units, unit_fn=unit_fn, build=build,
    frame=partial(an.frame, fields=("tuned",)), size_of=train_size, tuning=SEARCH, paper_trials=1,
    paper_datasets=("web10k", "web30k", "yahoo", "istella", "istella-s"),
    reads_data=lambda cfg: not cfg.official, before=split_parts.before,      # official parts: each unit reads its own
    default=lambda: TricksConfig(experiment=EXPERIMENT, queries=80, trials=2, rounds=30),
    data_defaults=lambda dataset: {} if is_synthetic(dataset) else {
        "queries": None, "preset": "", "trials": 5, "rounds": None,
        **split_parts.default(dataset)}))
