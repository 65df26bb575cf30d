"""The Hessian study's protocol (docs/protocols/kang2024.md): the typed configuration, the units
and the unit function.

A unit (trial t, part, arm): its data parts (``--split``, :mod:`experiments.parts`: Yahoo! Set 1's
official parts, as the authors, on the real dataset — the trials then differ by the model seed
only; trial t's 60/20/20 query split of the pooled queries on synthetic data or your files); the arm's
system (:mod:`ltrrepro.fit.hessian`: one loss under one Hessian treatment) trained on the
training part with early stopping on the validation part's NDCG@10; the validation part's NDCG@10 and the
test part's NDCG@1/3/5/10 (gain 2^y − 1, queries without a relevant document dropped) and Kang et
al.'s metric (mean DCG@10 / mean IDCG@10 over every test query) recorded. The arms of one loss
train from the same seed (their stochastic objective draws the same γ or the same rankings at a
round whose scores agree): only the Hessian differs. Parts: ``arms`` (every arm at the run's
settings), ``lr`` (the two PL-Rank arms at each learning rate of the grid) and ``samples`` (the
sampled-Hessian arm at each number of sampled rankings N) and ``paper`` (PL-Rank with the sampled
Hessian and with Hessian 1 at Kang et al.'s reported settings, in the library that takes their raw
Hessian: the paper's column; ``--paper-rounds 0`` leaves it out).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from experiments import parts as split_parts
from experiments import shared_fields, tuning
from experiments.config import RunConfig
from experiments.errors import UsageError
from experiments.kang2024 import notes, paper
from experiments.options import option
from experiments.values import parse_levels, parse_names
from ltrrepro.fit import BACKENDS, SYSTEMS
from ltrrepro.fit.backends import custom_objective_libraries, negative_hessian_libraries
from ltrrepro.fit.boosting import PRESETS, Boosting, preset
from ltrrepro.fit.hessian import HESSIAN_SYSTEMS, LOSSES, PAPER_SYSTEMS
from ltrrepro.metrics import canonical, dcg, evaluate
from ltrrepro.objectives.plrank import HESSIAN_POLICIES
from ltrrepro.runner import STREAM_MODEL, Unit, UnitRecord, unit_seed

EXPERIMENT = "hessian"
TEST_METRICS = tuple(canonical(m) for m in ("ndcg@1", "ndcg@3", "ndcg@5", "ndcg@10"))
NDCG10 = TEST_METRICS[3]
#: the column of Kang et al.'s metric (mean DCG@10 / mean IDCG@10 over the test queries)
KANG = "kang_ndcg10"
#: the metrics ``--metric`` chooses between for the table's differences and the claims
METRICS = {"ndcg": NDCG10, "kang": KANG}
PLRANK_ARMS = tuple(LOSSES["plrank"])                 # sampled, constant
PARTS = ("arms", "lr", "samples", "paper")


def _arms(text: str) -> tuple:
    """``--models``: the study's arms (each a system of :mod:`ltrrepro.fit.hessian`)."""
    return tuple(parse_names(text, HESSIAN_SYSTEMS, "--models", "arm"))


def _rates(text: str) -> tuple:
    return tuple(float(v) for v in parse_levels(text, float, "--lr-grid"))


def _counts(text: str) -> tuple:
    return tuple(int(v) for v in parse_levels(text, int, "--sweep-samples"))


def kang_ndcg(scores, labels, offsets, k: int = paper.CUTOFF) -> float:
    """Kang et al.'s NDCG@k: the mean over queries of DCG@k divided by the mean of IDCG@k (not
    each query's own), every query counted (one without a relevant document adds 0 to both).

    >>> kang_ndcg([2.0, 1.0, 1.0, 2.0], [1, 0, 1, 0], [0, 2, 4], k=2)     # DCG 1 and 1/log2(3); IDCG 1 and 1
    0.8154648767857288
    """
    labels = np.asarray(labels)
    d = dcg(scores, labels, offsets, k, norel="zero")
    ideal = dcg(labels.astype(np.float64), labels, offsets, k, norel="zero")
    return float(d.mean() / ideal.mean()) if ideal.mean() > 0 else float("nan")


def paper_boosting(model: str, rounds: int, patience: int | None = None) -> Boosting:
    """Kang et al.'s reported settings of a paper-column arm (:data:`~ltrrepro.fit.hessian.PAPER_SYSTEMS`):
    the run with the sampled Hessian's, or the run with Hessian 1's; ``rounds`` rounds, the best
    validation round kept (``patience``: default ``rounds``, so every round is trained); XGBoost's
    256 bins, depth-wise trees as 2^depth leaves, no least number of documents per leaf."""
    reported = paper.WITH_HESSIAN if model == PAPER_SYSTEMS[0] else paper.WITHOUT_HESSIAN
    values = {paper.BOOSTING_NAMES[k]: v for k, v in reported.items()}
    return Boosting(**values, num_leaves=2 ** 8, min_data_in_leaf=1, max_bin=paper.MAX_BIN, rounds=int(rounds),
                    early_stopping=int(patience or rounds))


@dataclass(frozen=True)
class HessianConfig(RunConfig):
    """The study's settings. ``hessian_policy``: what the library receives of PL-Rank's sampled
    Hessian (``abs`` by default: |h| floored; ``clip``: max(h, floor); ``none``: the estimate as
    it is, the authors', in a library that takes negative Hessians); ``samples``: N rankings per
    query per round; ``cutoff``: K of the objective and of Kang's metric; ``lr_grid``: the
    learning rates of the ``lr`` part; ``sweep_samples``: the N of the ``samples`` part;
    ``metric``: the table's differences and the claims on per-query NDCG@10 (``ndcg``) or Kang's
    (``kang``); ``margin``: the equivalence margin of the TOST claims (NDCG)."""

    dataset: str = "synthetic-yahoo"
    library: str = shared_fields.library(custom_objective_libraries()[0])
    preset: str = shared_fields.preset("fast")
    rounds: int | None = shared_fields.rounds()
    models: tuple = option(HESSIAN_SYSTEMS, flag="--models", parse=_arms,
                           help="comma-separated arms (each loss under each Hessian treatment)")
    hessian_policy: str = option("abs", flag="--hessian-policy", choices=HESSIAN_POLICIES,
                                 help="what the library receives of PL-Rank's sampled Hessian: abs (|h| floored), clip "
                                      "(max(h, floor)) or none (as estimated, the authors'; a library that takes "
                                      "negative Hessians)")
    samples: int = option(paper.SAMPLES, flag="--samples", bounds=(1, 100_000), help="rankings sampled per query")
    cutoff: int = option(paper.CUTOFF, flag="--cutoff", bounds=(1, 10_000), help="K of the objective and of Kang's metric")
    lr_grid: tuple = option((1e-4, 1e-3, 1e-2, 1e-1), flag="--lr-grid", parse=_rates,
                            help="the learning rates of the PL-Rank figure")
    sweep_samples: tuple = option((10, 50, 200), flag="--sweep-samples", parse=_counts, bounds=(1, 100_000),
                                  help="the N of the samples figure")
    metric: str = option("ndcg", flag="--metric", choices=tuple(METRICS),
                         help="the differences and claims on per-query NDCG@10 (ndcg) or Kang et al.'s mean DCG@10 / "
                              "mean IDCG@10 (kang)")
    margin: float = option(0.01, flag="--margin", help="the TOST equivalence margin (NDCG)")
    paper_rounds: int = option(paper.ROUNDS, flag="--paper-rounds", bounds=(0, 100_000), added=True,
                               help="rounds of the paper's column (PL-Rank at Kang et al.'s settings, in the library that "
                                    "takes their raw Hessian); 0 leaves the column out")
    tune: int = shared_fields.tune()
    tune_on: str = shared_fields.tune_on()
    split: str = shared_fields.split()

    def __post_init__(self):
        super().__post_init__()
        if self.library not in custom_objective_libraries():
            raise UsageError(f"--library: the arms are custom objectives; one of {', '.join(custom_objective_libraries())}")
        if self.preset not in PRESETS:
            raise UsageError(f"unknown preset {self.preset!r}; known: {', '.join(PRESETS)}")
        unknown = [m for m in self.models if m not in HESSIAN_SYSTEMS]
        if unknown or not self.models:
            raise UsageError(f"--models: {', '.join(unknown) or 'none'}; known: {', '.join(HESSIAN_SYSTEMS)}")
        if self.hessian_policy not in HESSIAN_POLICIES:
            raise UsageError(f"--hessian-policy: one of {', '.join(HESSIAN_POLICIES)}, not {self.hessian_policy!r}")
        if self.hessian_policy == "none" and self.library not in negative_hessian_libraries():
            takers = negative_hessian_libraries()
            raise UsageError(f"--hessian-policy none hands the library negative Hessians, which {BACKENDS[self.library].label} "
                             f"cannot take: use --hessian-policy abs or clip, or --library {' or '.join(takers) or '?'}")
        if self.samples < 1 or self.cutoff < 1 or min(self.sweep_samples, default=1) < 1:
            raise UsageError("--samples, --cutoff and --sweep-samples: whole numbers >= 1")
        if not all(0 < v <= 1 for v in self.lr_grid):
            raise UsageError(f"--lr-grid: learning rates in (0, 1], got {self.lr_grid}")
        if self.metric not in METRICS:
            raise UsageError(f"--metric: one of {', '.join(METRICS)}, not {self.metric!r}")
        if not self.margin > 0:
            raise UsageError(f"--margin must be > 0, got {self.margin}")
        split_parts.check(self)
        tuning.check(self)

    def check_device(self) -> None:
        if why := BACKENDS[self.library].missing():
            raise UsageError(f"--library: {why}")

    @property
    def boosting(self):
        return preset(self.preset, rounds=self.rounds)

    @property
    def column(self) -> str:
        """The frame column of ``metric``."""
        return METRICS[self.metric]

    def objective_kwargs(self, model: str, samples: int | None = None) -> tuple:
        """The PL-Rank arms' objective keywords (N, K, the Hessian policy; the paper's column: the
        authors' N, K and raw Hessian, whatever the run's); () for the others."""
        if model in PAPER_SYSTEMS:
            return (("n_samples", paper.SAMPLES), ("cutoff", paper.CUTOFF), ("hessian_policy", "none"))
        return ((("n_samples", int(samples or self.samples)), ("cutoff", self.cutoff),
                 ("hessian_policy", self.hessian_policy)) if model in PLRANK_ARMS else ())

    def options(self, model: str, samples: int | None = None) -> dict:
        """A unit's (and its search's) system options: the PL-Rank keywords, and early stopping on
        the validation NDCG@10 (Kang et al.'s K; the harness's default selection metric is NDCG@5)."""
        kw = self.objective_kwargs(model, samples)
        return {**({"objective_kwargs": kw} if kw else {}), "select": NDCG10}

    @property
    def paper_column(self) -> bool:
        """The run has the paper's column: ``--paper-rounds`` > 0 and PL-Rank's sampled arm among its arms."""
        return self.paper_rounds > 0 and PLRANK_ARMS[0] in self.models

    def base_boosting(self, model: str, search: bool = False):
        """A unit's boosting before tuning: the preset's, or a paper-column arm's Kang et al.
        settings (a search's: their 200 rounds, at most ``--paper-rounds``, patience 20)."""
        if model not in PAPER_SYSTEMS:
            return self.boosting
        if search:
            return paper_boosting(model, min(paper.SEARCH_ROUNDS, self.paper_rounds), paper.SEARCH_PATIENCE)
        return paper_boosting(model, self.paper_rounds)

    def system(self, model: str):
        """The registered system an arm trains (every arm is one: :mod:`ltrrepro.fit.hessian`)."""
        return SYSTEMS[model]

    def as_paper(self) -> list[str]:
        return notes.as_paper(self)

    def choices(self) -> list[str]:
        return notes.choices(self)

    def deviations(self) -> list[str]:
        return notes.deviations(self, super().deviations())


def build_units(cfg: HessianConfig) -> list[Unit]:
    """Every arm on each trial; the PL-Rank arms along the learning-rate grid; the sampled arm along
    N; the paper's column (PL-Rank at Kang et al.'s settings)."""
    out = []
    for t in range(cfg.trials):
        out += [Unit(EXPERIMENT, cfg.unit_dataset, t, m, (("part", "arms"),), seed=cfg.seed) for m in cfg.models]
        out += [Unit(EXPERIMENT, cfg.unit_dataset, t, m, (("part", "lr"), ("lr", lr)), seed=cfg.seed)
                for lr in cfg.lr_grid for m in PLRANK_ARMS if m in cfg.models]
        out += [Unit(EXPERIMENT, cfg.unit_dataset, t, PLRANK_ARMS[0], (("part", "samples"), ("samples", n)),
                     seed=cfg.seed) for n in cfg.sweep_samples if n != cfg.samples and PLRANK_ARMS[0] in cfg.models]
        if cfg.paper_column:
            out += [Unit(EXPERIMENT, cfg.unit_dataset, t, m, (("part", "paper"),), seed=cfg.seed) for m in PAPER_SYSTEMS]
    return out


def loss_seed(unit: Unit) -> np.random.SeedSequence:
    """The model seed of a unit: shared by the arms of its loss (its system's ``family``) at its setting."""
    return unit_seed(unit.seed, unit.trial, STREAM_MODEL, unit.setting_text, "loss=" + SYSTEMS[unit.model].family)


def tuning_parts(unit, ctx):
    """A search's (training, validation) parts: the unit's (:func:`experiments.parts.unit_parts`), never its test part."""
    parts, _ = split_parts.unit_parts(unit, ctx, ("train", "valid"))
    return parts["train"], parts["valid"]


def unit_fn(unit, ctx):
    cfg = ctx["cfg"]
    parts, drawn = split_parts.unit_parts(unit, ctx)
    system = cfg.system(unit.model)
    s = unit.settings
    boosting, over, tuned = tuning.tuned_boosting(unit, ctx, system, cfg.base_boosting(unit.model))  # --tune
    if "lr" in s:                                                     # the grid's rate over the tuned one
        boosting = boosting.replace(learning_rate=float(s["lr"]))
    over = {**over, **cfg.options(unit.model, s.get("samples"))}
    lib = system.resolve_library(cfg.library)
    trainer = system.trainer(boosting, library=lib, seed=loss_seed(unit), threads=ctx["threads"], **over)
    train = parts.pop("train")
    trainer.add_train(train)
    start = start_hessian(system, over.get("objective_kwargs", ()), train, unit) if unit.model in PAPER_SYSTEMS else {}
    del train
    valid = parts.pop("valid")
    trainer.add_valid(valid)
    try:
        fitted = trainer.fit()
    except FloatingPointError as err:  # the raw Hessian: a leaf's Σh + λ near 0 sends the scores to inf/NaN
        if unit.model not in PAPER_SYSTEMS:
            raise
        return UnitRecord.of(system, dict.fromkeys(TEST_METRICS, float("nan")), log=f"diverged: {err}",
                             library=lib, fields={"params": trainer.params, KANG: float("nan"), "valid_ndcg10": float("nan"),
                                                          "hessian": system.options.hessian, "diverged": str(err),
                                                          "learning_rate": boosting.learning_rate, **start, **drawn,
                                                          **tuned}), _no_test_values(parts["test"])
    vres = evaluate(fitted.scores(valid.X), valid.y, valid.offsets, (NDCG10,))[NDCG10]
    del valid
    test = parts.pop("test")
    scores = fitted.scores(test.X)
    res = evaluate(scores, test.y, test.offsets, TEST_METRICS)
    kang = kang_ndcg(scores, test.y, test.offsets, cfg.cutoff)
    record = UnitRecord.of(system, {m: r.mean for m, r in res.items()}, scores=scores,
                           log=f"ndcg@10={res[NDCG10].mean:.4f} kang={kang:.4f} trees={fitted.best_iteration}",
                           library=lib, fit={"best_iteration": fitted.best_iteration, "n_trees": fitted.n_rounds},
                           timings={"train_s": fitted.train_s},
                           fields={KANG: kang, "valid_ndcg10": float(vres.mean), "hessian": system.options.hessian,
                                   "round_s": fitted.train_s / max(1, fitted.n_rounds),
                                   "learning_rate": boosting.learning_rate,
                                   "n_dropped": max(r.n_dropped for r in res.values()), **start, **drawn, **tuned,
                                   **({"params": fitted.params} if unit.model in PAPER_SYSTEMS else {})})
    arrays = {f"test:{m}": r.per_query.astype(np.float32) for m, r in res.items()}
    arrays["test:qid"] = test.query_ids
    return record, arrays


def _no_test_values(test) -> dict:
    """A diverged unit's arrays: its test queries, each metric NaN (no model to score them)."""
    nan = np.full(test.n_queries, np.nan, dtype=np.float32)
    return {**{f"test:{m}": nan for m in TEST_METRICS}, "test:qid": test.query_ids}


def start_hessian(system, kwargs, train, unit) -> dict:
    """``{"start_hess_sum": Σ h}``: the objective's Hessian at the first round's scores (all 0) summed over
    the training documents, a draw of its own (an estimate of what the library receives). A split needs
    Σ h >= ``min_child_weight`` in both children: below twice that the first tree is one leaf, a constant."""
    objective = system.options.objective(**dict(kwargs))
    rng = np.random.default_rng(unit_seed(unit.seed, unit.trial, STREAM_MODEL, unit.setting_text, "start-hessian"))
    _, hess = objective.grad_hess(np.zeros(train.n_docs), train.y, train.offsets, rng=rng)
    return {"start_hess_sum": float(np.sum(hess))}


def train_size(unit, ctx) -> float:
    """What a unit's cost scales with: its N of sampled rankings for PL-Rank, else 1; a paper-column
    arm's times its rounds over the preset's."""
    cfg = ctx["cfg"]
    if unit.model in PAPER_SYSTEMS:
        return float(cfg.samples) * cfg.paper_rounds / max(1, cfg.boosting.rounds)
    return float(unit.settings.get("samples", cfg.samples)) if unit.model in PLRANK_ARMS else 1.0
