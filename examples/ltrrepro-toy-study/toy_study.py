"""A toy paper, as a study from outside the ltrrepro repository (docs/plugins.md).

"Toy (2026)" claims one thing: *the single feature most correlated with the grades of the
training queries beats a random order on the test queries* (NDCG@5). Each trial draws the
harness's 60/20/20 query split of the pooled dataset (:func:`ltrrepro.splits.trial_split`);
``best-feature`` picks the feature of highest Pearson correlation with the grades on the
training part and ranks the test part by it,
``random`` ranks it at random (no boosting: the study is about the platform, not a model). The
claim is the paired test of ``best-feature − random`` on NDCG@5 over the trials. Installed, it runs as every study does::

    pip install -e examples/ltrrepro-toy-study
    python -m experiments toy --queries 200 --trials 6 --out runs/toy
    python -m experiments toy --trials auto --max-trials 6 --looks 2 --save-runs --out runs/toy-auto

with the whole flag contract (``--help``), the store (resume, ``--force``), the statistics
(``--test``, ``--correction``), sequential trials and the TREC export.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from experiments import analysis as an
from experiments.config import RunConfig
from experiments.registry import Experiment
from ltrrepro.datasets import is_synthetic
from ltrrepro.inference import judge_comparison
from ltrrepro.metrics import evaluate
from ltrrepro.report import Report, Table
from ltrrepro.runner import DataRef, Unit, UnitContext, UnitRecord
from ltrrepro.splits import trial_split
from ltrrepro.trec import test_arrays

MODELS = ("best-feature", "random")
NDCG5 = an.canonical("ndcg@5")


@dataclass(frozen=True)
class ToyConfig(RunConfig):
    """The toy paper's protocol: the synthetic Web30K profile, 200 queries, 6 trials. Its flags
    are its fields' (``--dataset``, ``--data-dir``, ``--queries``, ``--trials``, ``--seed``: a
    field redeclared with a plain default keeps its flag); a field of its own with a flag is one
    line, e.g. ``noise: float = option(0.0, flag="--noise", help="...", added=True)``
    (:func:`experiments.options.option`)."""

    experiment: str = "toy"
    queries: int | None = 200
    trials: int = 6


def units(cfg: ToyConfig) -> list[Unit]:
    """One unit per (trial, ranker); the rankers of a trial share its split."""
    return [Unit(cfg.experiment, cfg.unit_dataset, t, m, seed=cfg.seed) for t in range(cfg.trials) for m in MODELS]


def best_feature(train) -> int:
    """The feature of highest Pearson correlation with ``train``'s grades (a constant feature: 0)."""
    x = np.asarray(train.X, dtype=float)
    x, y = x - x.mean(axis=0), train.y - train.y.mean()
    norm = np.sqrt((x * x).sum(axis=0) * (y @ y))
    return int(np.argmax(np.divide(x.T @ y, norm, out=np.zeros(x.shape[1]), where=norm > 0)))


def unit_fn(unit: Unit, ctx: UnitContext):
    """Score trial ``unit.trial``'s test queries with the unit's ranker; NDCG@5 and the TREC arrays."""
    ds = DataRef(**ctx.data).open()
    split = trial_split(ds.n_queries, unit.seed, unit.trial)
    test = ds.subset(split.test)
    if unit.model == "best-feature":
        scores = np.asarray(test.X[:, best_feature(ds.subset(split.train))], dtype=float)
    else:
        scores = np.random.default_rng(unit.model_seed()).random(test.n_docs)
    res = evaluate(scores, test.y, test.offsets, ["ndcg@5"])
    arrays = {"test:qid": test.query_ids, **test_arrays(scores, test)}
    # one typed record; its test scores are kept as a fingerprint (two arms that train one model are named)
    record = UnitRecord(means={k: r.mean for k, r in res.items()}, log=f"ndcg@5={res[NDCG5].mean:.4f}", scores=scores)
    return record, arrays


def build(df, cfg, deviations, choices, *, as_paper=(), inference) -> Report:
    """The toy paper's table (mean NDCG@5 per ranker) and its one claim: a pure function of the
    run's frame, configuration and the report's statistics (``inference``: test, correction,
    effects, α); the registry reads the store and writes it."""
    table = df.groupby("model")[NDCG5].mean().rename("NDCG@5").reset_index() if len(df) else df
    claim = judge_comparison("the feature most correlated with the training grades beats a random order on NDCG@5 "
                             "(Toy 2026)", an.compare(df, NDCG5, *MODELS, test=inference.test), MODELS, NDCG5,
                             inference)
    return Report(title="Toy (2026): the best single feature against a random order",
                  tables=[Table("toy", table, caption="Mean test NDCG@5 per ranker")],
                  claims=[c for c in (claim,) if c is not None], deviations=list(deviations), choices=list(choices),
                  as_paper=list(as_paper), inference=inference)


TOY = Experiment(
    name="toy", paper="toy2026", title="Toy (2026): the best single feature beats a random order", doc=__doc__,
    config_cls=ToyConfig, units=units, unit_fn=unit_fn, build=build, default=ToyConfig, keeps_rankings=True,
    paper_trials=10,
    paper_datasets=("synthetic-web30k",),
    data_defaults=lambda dataset: {} if is_synthetic(dataset) else {"queries": None})   # real data: its own size
